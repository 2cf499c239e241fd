//! A convex hull as the narrow phase reads it every step: parry3d's polyhedron, and a compact
//! copy of the parts that GJK, the bounding box and the manifold's supporting face read.
//!
//! parry3d's [`ConvexPolyhedron`] keeps its points, vertices, faces and each adjacency list in
//! separate allocations. Finding a hull's supporting face walks five of them in a chain (the
//! support vertex, the faces around it, their normals, the chosen face's vertices, their
//! points), and with a thousand different hulls (`convex`) each step reads them from beyond the
//! L2 cache: the walk's loads were most of `support_feature`'s time, 8.6% of the scene's step.
//! Here the points and the face normals are one array, and the vertices' and faces' ranges and
//! both adjacency lists another, both held inline (for hulls of up to ten points or so) in the
//! allocation the shape's `Arc` already points to, so that one pointer leads to every number a
//! step reads. They are copied from the polyhedron in its order, so every choice made from them
//! is the one made from parry3d's arrays.

use std::ops::Deref;

use parry3d::bounding_volume::Aabb;
use parry3d::math::{Isometry, Point, Real, Vector};
use parry3d::shape::ConvexPolyhedron;
use smallvec::SmallVec;

/// A convex hull: parry3d's polyhedron (for its queries, mass properties and snapshots), with
/// a compact copy of what every step reads. Dereferences to the polyhedron.
///
/// ```
/// use std::sync::Arc;
/// use sprung_collision::hull::Hull;
/// use sprung_collision::parry3d::{math::Point, shape::ConvexPolyhedron};
/// use sprung_collision::shape::Shape;
///
/// let corners = [
///     Point::new(0.0, 0.0, 0.0),
///     Point::new(1.0, 0.0, 0.0),
///     Point::new(0.0, 1.0, 0.0),
///     Point::new(0.0, 0.0, 1.0),
/// ];
/// let polyhedron = ConvexPolyhedron::from_convex_hull(&corners).unwrap();
/// let shape = Shape::ConvexHull(Arc::new(Hull::from(polyhedron)));
/// assert_eq!(shape.check(), Ok(()));
/// ```
#[derive(Clone, Debug)]
// In this order, so that what every support search reads first (the counts and the points'
// slice, then the lanes) starts the allocation: laid out by the compiler, the vertex count lay
// 1.2 KB from the points, in a line of its own, missed for each of a thousand hulls (`convex`:
// the bounding boxes, which read the points then and read the lanes alone now, 6.1% of the
// step's samples before, 3.4% after).
#[repr(C)]
pub struct Hull {
    /// Vertex count.
    vertices: u32,
    /// The farthest any point lies from the local origin (m).
    extent: Real,
    /// Where `faces_around` starts in `topology`.
    around_at: u32,
    /// Where `on_face` starts in `topology`.
    on_face_at: u32,
    /// The points, then the faces' outward unit normals (as points). Inline up to 32: a hull of
    /// n points has at most 2n - 4 faces.
    geometry: SmallVec<[Point<Real>; 32]>,
    /// The points again, four at a time in lanes: per group of four, their x's, their y's and
    /// their z's (the last group filled up with copies of the last point), so that the support
    /// search loads its lanes instead of shuffling points into them. Inline up to 16 points.
    lanes: crate::support::Lanes,
    /// Per vertex its first face and face count in `faces_around`, per face its first vertex
    /// and vertex count in `on_face`, then `faces_around` and `on_face` themselves.
    topology: SmallVec<[u32; 160]>,
    polyhedron: ConvexPolyhedron,
}

impl From<ConvexPolyhedron> for Hull {
    fn from(polyhedron: ConvexPolyhedron) -> Hull {
        let points = polyhedron.points();
        let faces = polyhedron.faces();
        let geometry: SmallVec<[Point<Real>; 32]> = points
            .iter()
            .copied()
            .chain(faces.iter().map(|f| Point::from(f.normal.into_inner())))
            .collect();
        let (around, on_face) = (
            polyhedron.faces_adj_to_vertex(),
            polyhedron.vertices_adj_to_face(),
        );
        let ranges = 2 * (points.len() + faces.len());
        let mut topology = SmallVec::with_capacity(ranges + around.len() + on_face.len());
        for v in polyhedron.vertices() {
            topology.extend([v.first_adj_face_or_edge, v.num_adj_faces_or_edge]);
        }
        for f in faces {
            topology.extend([f.first_vertex_or_edge, f.num_vertices_or_edges]);
        }
        topology.extend_from_slice(around);
        topology.extend_from_slice(on_face);
        let lanes = crate::support::lanes_of(points);
        Hull {
            geometry,
            lanes,
            topology,
            vertices: points.len() as u32,
            extent: points.iter().map(|p| p.coords.norm()).fold(0.0, Real::max),
            around_at: ranges as u32,
            on_face_at: (ranges + around.len()) as u32,
            polyhedron,
        }
    }
}

impl Deref for Hull {
    type Target = ConvexPolyhedron;

    fn deref(&self) -> &ConvexPolyhedron {
        &self.polyhedron
    }
}

impl Hull {
    /// parry3d's polyhedron.
    pub fn polyhedron(&self) -> &ConvexPolyhedron {
        &self.polyhedron
    }

    /// The hull's points (local frame): the polyhedron's, from the compact block.
    #[inline]
    pub fn points(&self) -> &[Point<Real>] {
        &self.geometry[..self.vertices as usize]
    }

    /// The index of the point farthest along `dir` (local frame): the first of equals, as a
    /// scan in order finds it ([`crate::support`]).
    #[inline]
    pub(crate) fn farthest(&self, dir: &Vector<Real>) -> usize {
        crate::support::farthest_in_lanes(self.points(), &self.lanes, dir)
    }

    /// The world bounding box of the hull at `pose`, four points at a time from the lanes:
    /// each point turned by the pose's rotation as a matrix (one conversion for all of them,
    /// where parry3d's `point_cloud_aabb` takes a quaternion product per point: 375-408
    /// instructions for a hull of ten points against 223, and the broad phase asks it of every
    /// moving hull every step), the translation added to the extremes (adding a constant after the least or
    /// greatest is the same as before it: rounding is monotonic).
    pub(crate) fn aabb(&self, pose: &Isometry<Real>) -> Aabb {
        let r = pose.rotation.to_rotation_matrix().into_inner();
        let rows = [0, 1, 2].map(|axis| [r[(axis, 0)], r[(axis, 1)], r[(axis, 2)]]);
        let (least, most) = turned_extremes(&self.lanes, &rows);
        let t = pose.translation.vector;
        Aabb::new(
            Point::new(least[0] + t.x, least[1] + t.y, least[2] + t.z),
            Point::new(most[0] + t.x, most[1] + t.y, most[2] + t.z),
        )
    }

    /// Asks the processor for the compact block's cache lines, ahead of a
    /// manifold: the GJK that comes first reads the points' lanes, the supporting face after
    /// it the ranges, the faces around a vertex, their normals and the face's points, and
    /// with a thousand different hulls (`convex`, 1.4 MB of them) those come from beyond the
    /// L2 cache, each in turn, the next address known only once the last has come. Asked for
    /// before the GJK they arrive while it runs (`support_feature` 6.1% -> 4.3% of `convex`'s
    /// samples). The lanes are asked for first, the GJK's first read: in the block's order they
    /// queued behind the six lines of points and normals, which only the supporting face reads,
    /// after the GJK. Nothing elsewhere than x86-64.
    #[inline]
    pub(crate) fn prefetch(&self) {
        let lanes = Hull::LANES;
        prefetch_bytes(self, lanes.clone());
        prefetch_bytes(self, std::mem::offset_of!(Hull, geometry)..lanes.start);
        prefetch_bytes(self, lanes.end..std::mem::offset_of!(Hull, polyhedron));
    }

    /// Asks the processor for the lines [`Hull::aabb`] reads, the points' lanes, and the block's
    /// first line (the counts), which it does not read: a build without it (and with
    /// [`Hull::prefetch`] asking for the first line before the lanes) measured no better
    /// (`convex` collide 0.6-1.6% slower in three A/Bs, within the noise).
    #[inline]
    pub(crate) fn prefetch_lanes(&self) {
        prefetch_bytes(self, 0..std::mem::size_of::<u32>());
        prefetch_bytes(self, Hull::LANES);
    }

    /// Where the points' lanes lie in the block (bytes from the hull's start).
    const LANES: std::ops::Range<usize> = std::mem::offset_of!(Hull, lanes)
        ..std::mem::offset_of!(Hull, lanes) + std::mem::size_of::<crate::support::Lanes>();

    /// The farthest any point lies from the local origin (m), computed once: the narrow phase
    /// asks it of both shapes for every manifold it keeps for recycling.
    #[inline]
    pub fn extent(&self) -> Real {
        self.extent
    }

    /// Outward unit normal of face `face` (local frame).
    #[inline]
    pub(crate) fn face_normal(&self, face: usize) -> Vector<Real> {
        self.geometry[self.vertices as usize + face].coords
    }

    /// The faces around vertex `vertex`, in the polyhedron's order.
    #[inline]
    pub(crate) fn faces_around(&self, vertex: usize) -> &[u32] {
        let (first, count) = (self.topology[2 * vertex], self.topology[2 * vertex + 1]);
        let start = self.around_at as usize + first as usize;
        &self.topology[start..start + count as usize]
    }

    /// The vertices of face `face`, counter-clockwise about its normal.
    #[inline]
    pub(crate) fn face_vertices(&self, face: usize) -> &[u32] {
        let at = 2 * (self.vertices as usize + face);
        let (first, count) = (self.topology[at], self.topology[at + 1]);
        let start = self.on_face_at as usize + first as usize;
        &self.topology[start..start + count as usize]
    }
}

/// Asks the processor for the cache lines holding `bytes` of `hull` (a prefetch reads and
/// changes nothing; nothing is asked for elsewhere than x86-64).
#[inline(always)]
fn prefetch_bytes(hull: &Hull, bytes: std::ops::Range<usize>) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = (hull as *const Hull).cast::<i8>();
        let first = start.wrapping_add(bytes.start);
        // From the start of the line that holds the first byte, a line at a time.
        let mut line = first.wrapping_sub(first as usize % 64);
        let end = start.wrapping_add(bytes.end);
        while line < end {
            // SAFETY: a prefetch is a hint: it reads nothing and cannot fault.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line) };
            line = line.wrapping_add(64);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (hull, bytes);
}

/// The least and greatest of `(x rx + y ry) + z rz` over the points in `lanes`, per row
/// `(rx, ry, rz)` of `rows`: four points at a time (SSE2, part of x86-64).
#[cfg(target_arch = "x86_64")]
fn turned_extremes(lanes: &[[Real; 4]], rows: &[[Real; 3]; 3]) -> ([Real; 3], [Real; 3]) {
    use std::arch::x86_64::*;
    let mut least = [0.0; 3];
    let mut most = [0.0; 3];
    // SAFETY: SSE2 is part of x86-64; each lane row is four `f32`s, read unaligned.
    unsafe {
        let row = |axis: usize| rows[axis].map(|r| _mm_set1_ps(r));
        let (r0, r1, r2) = (row(0), row(1), row(2));
        let mut lo = [_mm_set1_ps(Real::INFINITY); 3];
        let mut hi = [_mm_set1_ps(Real::NEG_INFINITY); 3];
        for group in lanes.chunks_exact(3) {
            let x = _mm_loadu_ps(group[0].as_ptr());
            let y = _mm_loadu_ps(group[1].as_ptr());
            let z = _mm_loadu_ps(group[2].as_ptr());
            for (axis, r) in [r0, r1, r2].iter().enumerate() {
                let turned = _mm_add_ps(
                    _mm_add_ps(_mm_mul_ps(x, r[0]), _mm_mul_ps(y, r[1])),
                    _mm_mul_ps(z, r[2]),
                );
                lo[axis] = _mm_min_ps(lo[axis], turned);
                hi[axis] = _mm_max_ps(hi[axis], turned);
            }
        }
        // Across the lanes: each against its neighbour, then the pairs against each other.
        let across = |v: __m128, pick: unsafe fn(__m128, __m128) -> __m128| {
            let v = pick(v, _mm_shuffle_ps::<0b10_11_00_01>(v, v));
            _mm_cvtss_f32(pick(v, _mm_shuffle_ps::<0b01_00_11_10>(v, v)))
        };
        for axis in 0..3 {
            least[axis] = across(lo[axis], _mm_min_ps);
            most[axis] = across(hi[axis], _mm_max_ps);
        }
    }
    (least, most)
}

/// [`turned_extremes`] one point at a time, where there is no SSE2 (compiled everywhere, so
/// that the test holds the lanes to it).
#[cfg(not(target_arch = "x86_64"))]
use turned_extremes_by_point as turned_extremes;

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn turned_extremes_by_point(lanes: &[[Real; 4]], rows: &[[Real; 3]; 3]) -> ([Real; 3], [Real; 3]) {
    let mut least = [Real::INFINITY; 3];
    let mut most = [Real::NEG_INFINITY; 3];
    for group in lanes.chunks_exact(3) {
        let [xs, ys, zs] = [group[0], group[1], group[2]];
        for ((x, y), z) in xs.into_iter().zip(ys).zip(zs) {
            for (axis, r) in rows.iter().enumerate() {
                let turned = (x * r[0] + y * r[1]) + z * r[2];
                least[axis] = least[axis].min(turned);
                most[axis] = most[axis].max(turned);
            }
        }
    }
    (least, most)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compact_copy_reads_as_the_polyhedron() {
        let mut rng = 0x2545_f491_4f6c_dd1d_u64;
        let mut unit = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng >> 40) as Real / (1u64 << 24) as Real - 0.5
        };
        for _ in 0..200 {
            let cloud: Vec<Point<Real>> = (0..12)
                .map(|_| Point::new(unit(), unit(), unit()))
                .collect();
            let poly = ConvexPolyhedron::from_convex_hull(&cloud).unwrap();
            let hull = Hull::from(poly.clone());
            assert_eq!(hull.points(), poly.points());
            // The bounding box: parry3d's (a quaternion product per point) to rounding, and
            // holding every point turned by a matrix (what the lanes compute).
            for turn in 0..4 {
                let pose = Isometry::new(
                    Vector::new(unit(), unit(), unit()) * 100.0,
                    Vector::new(unit(), unit(), unit()) * (3.0 * turn as Real),
                );
                let ours = hull.aabb(&pose);
                let r = pose.rotation.to_rotation_matrix().into_inner();
                let rows = [0, 1, 2].map(|axis| [r[(axis, 0)], r[(axis, 1)], r[(axis, 2)]]);
                assert_eq!(
                    turned_extremes(&hull.lanes, &rows),
                    turned_extremes_by_point(&hull.lanes, &rows)
                );
                let theirs =
                    parry3d::bounding_volume::details::point_cloud_aabb_ref(&pose, poly.points());
                assert!(
                    (ours.mins - theirs.mins).amax() < 2e-5,
                    "{ours:?} {theirs:?}"
                );
                assert!(
                    (ours.maxs - theirs.maxs).amax() < 2e-5,
                    "{ours:?} {theirs:?}"
                );
                let r = pose.rotation.to_rotation_matrix();
                for p in poly.points() {
                    let q = r * p + pose.translation.vector;
                    assert!(ours.mins.iter().zip(q.iter()).all(|(m, x)| m <= x), "{q:?}");
                    assert!(ours.maxs.iter().zip(q.iter()).all(|(m, x)| m >= x), "{q:?}");
                }
            }
            for (i, p) in poly.points().iter().enumerate() {
                let [x, y, z] = [0, 1, 2].map(|axis| hull.lanes[3 * (i / 4) + axis][i % 4]);
                assert_eq!(Point::new(x, y, z), *p);
            }
            assert_eq!(
                hull.geometry.len(),
                poly.points().len() + poly.faces().len()
            );
            for (i, v) in poly.vertices().iter().enumerate() {
                let first = v.first_adj_face_or_edge as usize;
                let want =
                    &poly.faces_adj_to_vertex()[first..first + v.num_adj_faces_or_edge as usize];
                assert_eq!(hull.faces_around(i), want);
            }
            for (i, f) in poly.faces().iter().enumerate() {
                let first = f.first_vertex_or_edge as usize;
                let want =
                    &poly.vertices_adj_to_face()[first..first + f.num_vertices_or_edges as usize];
                assert_eq!(hull.face_vertices(i), want);
                assert_eq!(hull.face_normal(i), f.normal.into_inner());
            }
        }
    }
}

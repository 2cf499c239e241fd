//! GJK: distance, closest points and the intersection test between two convex shapes.
//!
//! In: two shapes and their poses, and for a pair queried step after step its last simplex
//! ([`SimplexCache`], where the search starts). Out: the distance between them, a closest point
//! on each, and the final simplex (which EPA continues from when the shapes overlap).
//!
//! GJK walks a simplex (1 to 4 points of the Minkowski difference A - B) towards the point of
//! A - B closest to the origin. It runs on the shapes' *cores* (point, segment, box, hull: all
//! polytopes), in A's local frame so that large world coordinates cost no precision, and adds the
//! radii back at the end: exact for spheres and capsules, and finite for every pair.
//!
//! The simplex sub-algorithm is the signed-volumes method (Montanari, Petrinic and Barbieri,
//! "Improving the GJK algorithm for faster and more reliable distance queries between convex
//! objects", ACM TOG 2017): barycentric weights come from signed lengths, areas and volumes
//! measured on the best-conditioned projection, so nearly flat or nearly collinear simplices
//! neither divide by zero nor pick the wrong Voronoi region.
//!
//! Termination, in order: the duality gap `|v|^2 - v.w` falls under a relative tolerance (the
//! support point cannot bring the estimate closer); the support point repeats a simplex vertex;
//! the simplex encloses the origin (intersection); `|v|` stops decreasing (rounding); or an
//! iteration cap is hit (never seen on polytopes, kept as a guarantee against loops).

use parry3d::math::{Isometry, Matrix, Point, Real, Vector};
use parry3d::shape::Cuboid;

use crate::contact::Contact;
use crate::hull::Hull;
use crate::shape::Shape;

/// `|v|` without overflow or underflow in the squares (the largest component is divided out
/// first).
pub(crate) fn length(v: &Vector<Real>) -> Real {
    let largest = v.amax();
    if largest > 0.0 && largest.is_finite() {
        largest * (v / largest).norm()
    } else {
        largest
    }
}

/// Relative duality gap under which the distance has converged.
const GAP_TOLERANCE: Real = 1.0e-6;
/// `|v|` under this fraction of the simplex's size counts as touching or overlapping.
const OVERLAP_TOLERANCE: Real = 1.0e-6;
/// Below this fraction of the largest vertex, the nearest point found must prove its own
/// direction ([`search`]'s end).
const PRECISE_BELOW: Real = 1.0e-3;
/// A guarantee against loops; polytopes converge in far fewer.
const MAX_ITERATIONS: usize = 64;

/// One vertex of the Minkowski difference, with the points of A and B it came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SupportPoint {
    /// Support point of A.
    pub a: Point<Real>,
    /// Support point of B.
    pub b: Point<Real>,
    /// `a - b`.
    pub w: Vector<Real>,
}

impl Default for SupportPoint {
    fn default() -> Self {
        SupportPoint {
            a: Point::origin(),
            b: Point::origin(),
            w: Vector::zeros(),
        }
    }
}

/// The support map of the Minkowski difference of two shapes' cores, in A's local frame.
#[derive(Clone, Copy)]
pub struct CorePair<'s> {
    a: &'s Shape,
    b: &'s Shape,
    /// B's pose in A's frame.
    pose_ab: Isometry<Real>,
    /// The same rotation as a matrix: each support point costs two rotations, and a matrix
    /// rotates a vector in 15 flops where a quaternion takes about 30.
    rotation_ab: Matrix<Real>,
}

impl<'s> CorePair<'s> {
    /// The pair of shapes `a` at `pose_a` and `b` at `pose_b`.
    pub fn new(
        a: &'s Shape,
        pose_a: &Isometry<Real>,
        b: &'s Shape,
        pose_b: &Isometry<Real>,
    ) -> Self {
        let pose_ab = pose_a.inv_mul(pose_b);
        let rotation_ab = pose_ab.rotation.to_rotation_matrix().into_inner();
        CorePair {
            a,
            b,
            pose_ab,
            rotation_ab,
        }
    }

    /// B's pose in A's frame.
    pub fn pose_ab(&self) -> &Isometry<Real> {
        &self.pose_ab
    }

    /// The point of `core(A) - core(B)` farthest along `dir`.
    #[inline]
    pub fn support(&self, dir: &Vector<Real>) -> SupportPoint {
        self.support_of(&AnyCore(self.a), &AnyCore(self.b), dir)
    }

    /// [`CorePair::support`] with the cores' support maps given: `a` and `b` must be this
    /// pair's shapes' cores.
    #[inline(always)]
    fn support_of<A: Core, B: Core>(&self, a: &A, b: &B, dir: &Vector<Real>) -> SupportPoint {
        let a = a.support(dir);
        let local_dir_b = self.rotation_ab.tr_mul(&-dir);
        let b = Point::from(
            self.rotation_ab * b.support(&local_dir_b).coords + self.pose_ab.translation.vector,
        );
        SupportPoint { a, b, w: a - b }
    }
}

/// A shape's core as a support map (local frame). GJK's loop is compiled once for the pairs
/// the scenes make most (two boxes, two hulls), each with its shapes' own support inlined, and
/// once for any pair through [`AnyCore`]: a match on the shape and a call in the loop made the
/// caller save every vector register it held, which cost more than a box's support itself.
trait Core {
    fn support(&self, dir: &Vector<Real>) -> Point<Real>;
}

impl Core for Cuboid {
    #[inline(always)]
    fn support(&self, dir: &Vector<Real>) -> Point<Real> {
        crate::shape::box_support(self, dir)
    }
}

impl Core for Hull {
    #[inline(always)]
    fn support(&self, dir: &Vector<Real>) -> Point<Real> {
        self.points()[self.farthest(dir)]
    }
}

/// Any shape's core, through [`Shape::core_support`] (a box's answered in place).
struct AnyCore<'s>(&'s Shape);

impl Core for AnyCore<'_> {
    #[inline(always)]
    fn support(&self, dir: &Vector<Real>) -> Point<Real> {
        match self.0 {
            Shape::Cuboid(c) => crate::shape::box_support(c, dir),
            _ => self.0.core_support(dir),
        }
    }
}

/// The vertices of a pair's last GJK simplex, kept to start the next query of the pair from
/// them: each as its point of A's core (in A's frame) and of B's core (in B's frame), so that
/// at the pair's new poses they are again points of the cores' difference, near the closest
/// one when the pair moved little (Box2D's simplex cache, with points in place of vertex
/// indices so that it serves every shape). A query started from it takes one or two
/// iterations where one started from a direction takes four to six.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SimplexCache {
    pub(crate) len: u8,
    pub(crate) points: [(Point<Real>, Point<Real>); 4],
}

impl SimplexCache {
    /// True when there is nothing to start from.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// At most four vertices, every coordinate finite (what a snapshot may hold).
    pub fn is_valid(&self) -> bool {
        self.len <= 4
            && self.points[..usize::from(self.len.min(4))]
                .iter()
                .all(|(a, b)| {
                    a.coords
                        .iter()
                        .chain(b.coords.iter())
                        .all(|x| x.is_finite())
                })
    }
}

/// A GJK simplex: 0 to 4 support points and the barycentric weights of the closest point.
#[derive(Clone, Copy, Debug, Default)]
pub struct Simplex {
    points: [SupportPoint; 4],
    weights: [Real; 4],
    len: usize,
}

impl Simplex {
    /// The live vertices.
    pub fn points(&self) -> &[SupportPoint] {
        &self.points[..self.len]
    }

    fn push(&mut self, p: SupportPoint) {
        debug_assert!(self.len < 4);
        self.points[self.len] = p;
        self.len += 1;
    }

    /// The simplex's vertices, kept to start the next query of `pair`'s shapes from them.
    pub fn cache(&self, pair: &CorePair<'_>) -> SimplexCache {
        let mut cache = SimplexCache {
            len: self.len as u8,
            ..SimplexCache::default()
        };
        let t = pair.pose_ab.translation.vector;
        for (p, kept) in self.points().iter().zip(&mut cache.points) {
            *kept = (p.a, Point::from(pair.rotation_ab.tr_mul(&(p.b.coords - t))));
        }
        cache
    }

    /// The closest points on A and on B, from the barycentric weights.
    pub fn witnesses(&self) -> (Point<Real>, Point<Real>) {
        let mut a = Vector::zeros();
        let mut b = Vector::zeros();
        for (p, &l) in self.points().iter().zip(&self.weights) {
            a += p.a.coords * l;
            b += p.b.coords * l;
        }
        (a.into(), b.into())
    }

    /// Replaces the simplex by the smallest sub-simplex holding the point closest to the origin
    /// and returns that point.
    fn reduce(&mut self) -> Vector<Real> {
        let closest = Closest::of(&self.points, self.len);
        let v = closest.point(&self.points);
        self.keep(&closest, None);
        v
    }

    /// Keeps the vertices that `closest` keeps, in their order, with their weights: taken from
    /// `from`, or, for `None`, from this simplex itself (each vertex moves down in place, to an
    /// index at most its own, so none is overwritten before it is read).
    fn keep(&mut self, closest: &Closest, from: Option<&Simplex>) {
        let mut len = 0;
        for (i, &weight) in closest.weights.iter().enumerate() {
            if closest.keep & (1 << i) != 0 {
                self.points[len] = from.map_or(self.points[i], |f| f.points[i]);
                self.weights[len] = weight;
                len += 1;
            }
        }
        self.len = len;
    }
}

/// The point of a simplex closest to the origin: the weights of its vertices, the mask of those
/// that carry it, and, when it lies inside a triangle, the origin's projection on the
/// triangle's plane.
struct Closest {
    weights: [Real; 4],
    keep: u8,
    projection: Option<Vector<Real>>,
}

impl Closest {
    /// The closest point of the simplex `points[..len]`.
    #[inline]
    fn of(points: &[SupportPoint; 4], len: usize) -> Closest {
        let w = |i: usize| points[i].w;
        let (weights, keep, projection) = match len {
            1 => ([1.0, 0.0, 0.0, 0.0], 0b0001, None),
            2 => {
                let (l, k) = closest_on_segment(w(0), w(1));
                ([l[0], l[1], 0.0, 0.0], k, None)
            }
            3 => {
                let (l, k, p) = closest_on_triangle(w(0), w(1), w(2));
                ([l[0], l[1], l[2], 0.0], k, p)
            }
            _ => closest_on_tetrahedron([w(0), w(1), w(2), w(3)]),
        };
        Closest {
            weights,
            keep,
            projection,
        }
    }

    /// The closest point itself, from the vertices `points` the weights index.
    ///
    /// Inside a triangle it is the origin's projection on the triangle's plane, computed from
    /// the plane's normal: the weighted sum of its vertices would carry their rounding (a unit
    /// in the last place of a vertex 140 m out, where a 100 m ground box meets a small hull, is
    /// 1e-5 m) into the direction of v, and a direction off by 1e-5 / 0.008 rad no longer
    /// proves a hull 8 mm above the box apart: GJK reported it touching.
    #[inline]
    fn point(&self, points: &[SupportPoint; 4]) -> Vector<Real> {
        if let Some(p) = self.projection {
            return p;
        }
        let mut v = Vector::zeros();
        for (i, p) in points.iter().enumerate() {
            if self.keep & (1 << i) != 0 {
                v += p.w * self.weights[i];
            }
        }
        v
    }
}

#[inline]
fn same_sign(a: Real, b: Real) -> bool {
    (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0)
}

/// `v[i]` for `i` in 0..3, by selection rather than by an index into memory.
#[inline(always)]
fn component(v: &Vector<Real>, i: usize) -> Real {
    match i {
        0 => v.x,
        1 => v.y,
        _ => v.z,
    }
}

fn argmax_abs(v: &Vector<Real>) -> usize {
    let a = v.abs();
    if a.x >= a.y && a.x >= a.z {
        0
    } else if a.y >= a.z {
        1
    } else {
        2
    }
}

/// Signed-volumes S1D: weights of the point of segment `s0 s1` closest to the origin, and the
/// bit mask of the vertices that carry it.
fn closest_on_segment(s0: Vector<Real>, s1: Vector<Real>) -> ([Real; 2], u8) {
    let t = s1 - s0;
    let tt = t.norm_squared();
    if tt <= Real::MIN_POSITIVE {
        return ([1.0, 0.0], 0b01);
    }
    // The origin projected on the line, then 1D signed lengths along the longest axis (only
    // that axis of the projection is needed).
    let along = s0.dot(&t) / tt;
    let i = argmax_abs(&t);
    let (a, b, ti) = (component(&s0, i), component(&s1, i), component(&t, i));
    let projected = a - ti * along;
    let mu = a - b;
    let c0 = projected - b;
    let c1 = a - projected;
    if same_sign(mu, c0) && same_sign(mu, c1) {
        ([c0 / mu, c1 / mu], 0b11)
    } else if !same_sign(mu, c0) {
        ([0.0, 1.0], 0b10) // the weight of s0 would be negative: s1 alone
    } else {
        ([1.0, 0.0], 0b01)
    }
}

/// The point of segment `s0 s1` nearest the origin, worked out in f64 from the f32 vertices.
/// Where the distance is tiny against the vertices (shapes almost touching, a metre from
/// their difference's origin), f32's rounding of `s0 + t (s1 - s0)` turns that point's
/// direction by up to a milliradian: too much for the proof that the cores are apart, and two
/// boxes 0.02-0.4 mm apart edge to edge were reported touching (2% of pairs within a
/// millimetre of touching; the restart from the best edge, which takes this, now proves them).
fn nearest_on_segment_precisely(s0: &Vector<Real>, s1: &Vector<Real>) -> Vector<Real> {
    let (p, q) = (s0.cast::<f64>(), s1.cast::<f64>());
    let d = q - p;
    let dd = d.norm_squared();
    let t = if dd > 0.0 {
        (-p.dot(&d) / dd).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p + d * t).cast::<Real>()
}

/// Signed-volumes S2D on the triangle `s0 s1 s2`; inside it, also the origin's projection on
/// its plane (None where that plane's normal is not finite).
fn closest_on_triangle(
    s0: Vector<Real>,
    s1: Vector<Real>,
    s2: Vector<Real>,
) -> ([Real; 3], u8, Option<Vector<Real>>) {
    let s = [s0, s1, s2];
    // The edge opposite vertex j, with weights indexed like the triangle.
    let edge = |j: usize| {
        let (i0, i1) = other_two(j);
        let (l, keep) = closest_on_segment(s[i0], s[i1]);
        let mut w = [0.0; 3];
        w[i0] = l[0];
        w[i1] = l[1];
        let mask = (keep & 1) << i0 | (keep >> 1) << i1;
        (w, mask, s, ())
    };
    let n = (s1 - s0).cross(&(s2 - s0));
    let nn = n.norm_squared();
    let scale = (s1 - s0).norm_squared().max((s2 - s0).norm_squared());
    if nn <= 1.0e-12 * scale * scale {
        // Collinear or collapsed: the closest point lies on one of the edges.
        let (w, mask, ()) = best_sub_simplex(3, |_| true, edge);
        return (w, mask, None);
    }
    let projected = n * (s0.dot(&n) / nn);
    // Drop the axis along which the triangle is widest; the cyclic order of the other two
    // keeps the signed areas' sign equal to that of n.
    let k = argmax_abs(&n);
    // Each point's two kept coordinates, (k + 1) % 3 then (k + 2) % 3.
    let flat = |p: &Vector<Real>| match k {
        0 => (p.y, p.z),
        1 => (p.z, p.x),
        _ => (p.x, p.y),
    };
    let area = |a: (Real, Real), b: (Real, Real), c: (Real, Real)| {
        (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
    };
    let mu = component(&n, k);
    let (p, f0, f1, f2) = (flat(&projected), flat(&s0), flat(&s1), flat(&s2));
    let c = [area(p, f1, f2), area(f0, p, f2), area(f0, f1, p)];
    if c.iter().all(|&ci| same_sign(mu, ci)) {
        let projection = (nn > 0.0 && nn.is_finite()).then_some(projected);
        return ([c[0] / mu, c[1] / mu, c[2] / mu], 0b111, projection);
    }
    let (w, mask, ()) = best_sub_simplex(3, |j| !same_sign(mu, c[j]), edge);
    (w, mask, None)
}

fn other_two(j: usize) -> (usize, usize) {
    match j {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    }
}

/// Among the sub-simplices `j` (dropping vertex j) that `consider` accepts, the one whose
/// closest point is nearest the origin. `solve(j)` gives weights indexed like the full simplex
/// and what else the caller keeps of the winner (`extra`).
fn best_sub_simplex<const N: usize, E: Copy + Default>(
    count: usize,
    consider: impl Fn(usize) -> bool,
    solve: impl Fn(usize) -> ([Real; N], u8, [Vector<Real>; N], E),
) -> ([Real; N], u8, E) {
    let mut best = ([0.0; N], 0u8, E::default());
    let mut best_d = Real::INFINITY;
    for j in 0..count {
        if !consider(j) {
            continue;
        }
        let (w, mask, s, extra) = solve(j);
        let p: Vector<Real> = (0..N).map(|i| s[i] * w[i]).sum();
        let d = p.norm_squared();
        if d < best_d {
            best_d = d;
            best = (w, mask, extra);
        }
    }
    if best.1 == 0 {
        // Cannot happen for finite input; keep the first vertex rather than an empty simplex.
        let mut w = [0.0; N];
        w[0] = 1.0;
        best = (w, 1, E::default());
    }
    best
}

/// Signed-volumes S3D on the tetrahedron `w`; inside one of its faces, also the origin's
/// projection on that face's plane.
fn closest_on_tetrahedron(w: [Vector<Real>; 4]) -> ([Real; 4], u8, Option<Vector<Real>>) {
    // Six times the signed volume of (a, b, c, d).
    let vol = |a: &Vector<Real>, b: &Vector<Real>, c: &Vector<Real>, d: &Vector<Real>| {
        (b - a).dot(&(c - a).cross(&(d - a)))
    };
    let o = Vector::zeros();
    let c = [
        vol(&o, &w[1], &w[2], &w[3]),
        vol(&w[0], &o, &w[2], &w[3]),
        vol(&w[0], &w[1], &o, &w[3]),
        vol(&w[0], &w[1], &w[2], &o),
    ];
    let det = c[0] + c[1] + c[2] + c[3];
    let scale = (1..4)
        .map(|i| (w[i] - w[0]).norm_squared())
        .fold(0.0, Real::max);
    let flat = det.abs() <= 1.0e-9 * scale * scale.sqrt();
    if !flat && c.iter().all(|&ci| same_sign(det, ci)) {
        return (
            [c[0] / det, c[1] / det, c[2] / det, c[3] / det],
            0b1111,
            None,
        );
    }
    best_sub_simplex(
        4,
        |j| flat || !same_sign(det, c[j]),
        |j| {
            let idx: [usize; 3] = match j {
                0 => [1, 2, 3],
                1 => [0, 2, 3],
                2 => [0, 1, 3],
                _ => [0, 1, 2],
            };
            let (l, keep, projection) = closest_on_triangle(w[idx[0]], w[idx[1]], w[idx[2]]);
            let mut out = [0.0; 4];
            let mut mask = 0;
            for (bit, &i) in idx.iter().enumerate() {
                out[i] = l[bit];
                mask |= ((keep >> bit) & 1) << i;
            }
            (out, mask, w, projection)
        },
    )
}

/// What GJK found, in A's local frame, for the cores.
#[derive(Clone, Copy, Debug)]
pub struct GjkResult {
    /// Distance between the cores (0 when they overlap).
    pub distance: Real,
    /// The closest point of the Minkowski difference of the cores: `point_a - point_b`.
    pub v: Vector<Real>,
    /// True when the cores touch or overlap (within tolerance).
    pub overlapping: bool,
    /// The final simplex; EPA continues from it.
    pub simplex: Simplex,
    /// Iterations used.
    pub iterations: usize,
}

/// Restarts from an edge a stalled search may make before giving up.
const MAX_RESTARTS: usize = 4;

/// True if the plane through the origin normal to `v` has the whole difference of the cores
/// beyond it: `v . w > 0` for the support point `w` along `-v`, with a margin for the rounding
/// of that dot product (1e-6 of `|v| |w|`, about eight times f32's). This is GJK's only proof
/// that the cores are apart; an estimate `v` can carry f32 noise (seen: a sliver triangle's
/// signed areas losing 1e-4 of the weights), and a search that stalls on it proves nothing.
///
/// Compared squared (no square roots) while both squared lengths lie well inside f32's range,
/// where the squares of the two sides cannot overflow or lose precision to subnormals.
#[inline(always)]
fn separates(v: &Vector<Real>, w: &SupportPoint) -> bool {
    let d = v.dot(&w.w);
    let (vv, ww) = (v.norm_squared(), w.w.norm_squared());
    if (1.0e-12..=1.0e12).contains(&vv) && (1.0e-12..=1.0e12).contains(&ww) {
        d > 0.0 && d * d > 1.0e-12 * (vv * ww)
    } else {
        d > 1.0e-6 * length(v) * length(&w.w)
    }
}

impl Simplex {
    /// The sub-segment (or vertex) of this simplex nearest the origin, with its closest point.
    /// Segments are well-conditioned where a sliver triangle is not.
    fn best_edge(&self) -> (Simplex, Vector<Real>) {
        let points = self.points();
        let mut best = (*self, Vector::repeat(Real::INFINITY));
        for i in 0..points.len() {
            for j in i..points.len() {
                let (l, keep) = if i == j {
                    ([1.0, 0.0], 0b01)
                } else {
                    closest_on_segment(points[i].w, points[j].w)
                };
                let mut edge = Simplex::default();
                for (bit, &k) in [i, j].iter().enumerate() {
                    if keep & (1 << bit) != 0 && !(i == j && bit == 1) {
                        edge.weights[edge.len] = l[bit];
                        edge.push(points[k]);
                    }
                }
                let v: Vector<Real> = if edge.len == 2 {
                    nearest_on_segment_precisely(&edge.points[0].w, &edge.points[1].w)
                } else {
                    edge.points[0].w
                };
                if v.norm_squared() < best.1.norm_squared() {
                    best = (edge, v);
                }
            }
        }
        best
    }
}

/// Runs GJK on the cores of `pair`, starting the search along `initial_dir` (any non-zero
/// guess: the centre offset, or last step's separating axis).
pub fn gjk(pair: &CorePair<'_>, initial_dir: &Vector<Real>) -> GjkResult {
    gjk_from(pair, initial_dir, &SimplexCache::default())
}

/// [`gjk`], starting from the vertices of `warm` (the pair's last simplex) unless it is empty.
pub fn gjk_from(pair: &CorePair<'_>, initial_dir: &Vector<Real>, warm: &SimplexCache) -> GjkResult {
    match (pair.a, pair.b) {
        (Shape::Cuboid(a), Shape::Cuboid(b)) => search(pair, a, b, initial_dir, warm),
        (Shape::ConvexHull(a), Shape::ConvexHull(b)) => search(pair, &**a, &**b, initial_dir, warm),
        _ => search(pair, &AnyCore(pair.a), &AnyCore(pair.b), initial_dir, warm),
    }
}

/// [`gjk_from`] with the cores' support maps `a` and `b` (those of `pair`'s shapes).
fn search<A: Core, B: Core>(
    pair: &CorePair<'_>,
    a: &A,
    b: &B,
    initial_dir: &Vector<Real>,
    warm: &SimplexCache,
) -> GjkResult {
    // Two simplices, used in turn: the search's, and the one that proved the cores apart
    // nearest (below), kept where it is rather than copied each time a proof comes.
    let mut simplices = [Simplex::default(); 2];
    let mut at = 0;
    let mut v;
    let mut iterations = 0;
    if warm.is_empty() {
        let dir = if initial_dir.norm_squared() > 0.0 {
            *initial_dir
        } else {
            Vector::x()
        };
        let simplex = &mut simplices[0];
        simplex.push(pair.support_of(a, b, &-dir));
        simplex.weights[0] = 1.0;
        v = simplex.points[0].w;
    } else {
        let simplex = &mut simplices[0];
        for (a, b) in &warm.points[..usize::from(warm.len.min(4))] {
            let b = Point::from(pair.rotation_ab * b.coords + pair.pose_ab.translation.vector);
            simplex.push(SupportPoint { a: *a, b, w: a - b });
        }
        v = simplex.reduce();
        if simplex.len == 4 {
            // The origin inside last step's tetrahedron: overlapping, for EPA (the loop below
            // does not run).
            v = Vector::zeros();
        }
    }
    // The nearest state whose plane proves the cores apart ([`separates`]): its `v` and which
    // of the two simplices holds it. The cores are reported apart if and only if some
    // iteration proved it: a 9 mm box through a 70 km one once stalled "0.14 m apart" while
    // 784 m deep, and a cube 519 m from a 74 km slab stalled unproven (fuzzer findings);
    // neither answer may stand without a proof.
    let mut proven: Option<(Vector<Real>, usize)> = None;
    let mut restarts = 0;
    // The largest squared length of any vertex the simplex has held: a bound on its size
    // (every vertex it holds now was held once).
    let mut largest = simplices[0]
        .points()
        .iter()
        .map(|p| p.w.norm_squared())
        .fold(0.0, Real::max);
    while simplices[at].len < 4 && iterations < MAX_ITERATIONS {
        iterations += 1;
        let len = simplices[at].len;
        let vv = v.norm_squared();
        // The simplex's size is only needed once `v` is small against every vertex seen.
        let overlap = OVERLAP_TOLERANCE * OVERLAP_TOLERANCE;
        if vv <= overlap * largest.max(Real::MIN_POSITIVE) {
            let size = simplices[at]
                .points()
                .iter()
                .map(|p| p.w.norm_squared())
                .fold(0.0, Real::max);
            if vv <= overlap * size.max(Real::MIN_POSITIVE) {
                break;
            }
        }
        let w = pair.support_of(a, b, &-v);
        largest = largest.max(w.w.norm_squared());
        // Whether w's plane separates, asked at most once an iteration.
        let mut separated = None;
        let nearer = match proven {
            Some((p, _)) => vv < p.norm_squared(),
            None => true,
        };
        if nearer && *separated.get_or_insert_with(|| separates(&v, &w)) {
            proven = Some((v, at));
        }
        // Duality gap: no support point lies closer to the origin than v.w / |v|.
        if vv - v.dot(&w.w) <= GAP_TOLERANCE * vv {
            break;
        }
        // The simplex the search moves into: this one, unless it holds the proof.
        let into = if proven.is_some_and(|(_, p)| p == at) {
            1 - at
        } else {
            at
        };
        let stalled = if simplices[at].points().iter().any(|p| p.w == w.w) {
            true
        } else {
            // w goes in the slot past the live vertices: the simplex as it was (and a proof
            // held in it) is unchanged until the new one is accepted.
            simplices[at].points[len] = w;
            let closest = Closest::of(&simplices[at].points, len + 1);
            let next = closest.point(&simplices[at].points);
            if proven.is_some() && (closest.keep == 0b1111 || next == Vector::zeros()) {
                // A plane proved the cores apart, yet the origin seems to lie in the new
                // simplex: rounding (a sliver, or vertices a hair from the origin). The nearest
                // state so far stands, untouched: a 4.5 cm ball whose centre lay 0.04 mm from a
                // hull's vertex was once given the proving state's 8 cm instead, and reported
                // apart (a fuzzer finding).
                break;
            }
            if closest.keep == 0b1111 || next.norm_squared() < vv {
                if into == at {
                    simplices[at].keep(&closest, None);
                } else {
                    let [first, second] = &mut simplices;
                    let (from, to) = if at == 0 {
                        (first, second)
                    } else {
                        (second, first)
                    };
                    to.keep(&closest, Some(from));
                }
                at = into;
            }
            if closest.keep == 0b1111 {
                v = Vector::zeros();
                break;
            }
            if next.norm_squared() >= vv {
                // Rounding stalled the descent: the better previous answer stays.
                true
            } else {
                v = next;
                false
            }
        };
        if stalled {
            if *separated.get_or_insert_with(|| separates(&v, &w)) || restarts == MAX_RESTARTS {
                break;
            }
            // Unproven: start again from the simplex's best edge, whose closest point is
            // computed without a sliver's cancellation.
            let (edge, edge_v) = simplices[at].best_edge();
            if proven.is_some() && edge_v == Vector::zeros() {
                // An edge through the origin against a proof: rounding, as above.
                break;
            }
            restarts += 1;
            simplices[into] = edge;
            at = into;
            v = edge_v;
        }
    }
    // The last `v` is the nearest point found (every `v` lies in the difference, so each
    // `|v|` bounds the distance from above, and the search only keeps a shorter one): it
    // stays the answer even where an earlier, farther state gave the proof (a sphere's centre
    // 0.4 mm off a hull: a fuzzer finding, where reporting the proving state's 20 m missed an
    // 8.3 m overlap of the radii). The loop stops before a simplex or edge that seems to hold
    // the origin against a proof, so a zero `v` with a proof should not come; if rounding finds
    // another way, the proving state stands (a distance, never a zero one with no direction).
    let overlapping = proven.is_none();
    if let Some((best, held)) = proven {
        if v == Vector::zeros() {
            (v, at) = (best, held);
        }
    }
    // A nearest point tiny against the difference's vertices (shapes a hair apart, metres
    // out) is short enough, but its direction carries f32's rounding of the vertices' sums,
    // which at a micrometre can be any direction at all (seen: 1 touching pair in 1,800 given
    // a normal along which the shapes overlap by a metre); and a contact's normal must be a
    // direction along which the shapes are apart. Unless the support along it proves it so,
    // it takes the direction of the state that gave the proof, keeping its own length (the
    // distance) and simplex (the witness points).
    if let Some((best, _)) = proven {
        if v != best
            && v.norm_squared() < PRECISE_BELOW * PRECISE_BELOW * largest
            && !separates(&v, &pair.support_of(a, b, &-v))
        {
            v = best * (length(&v) / length(&best));
        }
    }
    GjkResult {
        distance: if overlapping { 0.0 } else { length(&v) },
        v,
        overlapping,
        simplex: simplices[at],
        iterations,
    }
}

/// Distance and closest points between `a` at `pose_a` and `b` at `pose_b` by GJK: a
/// [`Contact`] whose separation is the distance, 0 (and the normal zero) when they touch or
/// overlap. `dispatch::distance` asks the separating-axis test first for two boxes.
///
/// ```
/// use sprung_collision::{gjk, shape::Shape};
/// use sprung_collision::parry3d::math::{Isometry, Vector};
///
/// let ball = Shape::sphere(0.5).unwrap();
/// let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
/// let d = gjk::distance(&ball, &Isometry::translation(0.0, 2.0, 0.0), &cube, &Isometry::identity());
/// assert!((d.separation - 1.0).abs() < 1e-6);
/// ```
pub fn distance(a: &Shape, pose_a: &Isometry<Real>, b: &Shape, pose_b: &Isometry<Real>) -> Contact {
    let pair = CorePair::new(a, pose_a, b, pose_b);
    let result = gjk(&pair, &pair.pose_ab().translation.vector);
    let (pa, pb) = result.simplex.witnesses();
    let (ra, rb) = (a.radius(), b.radius());
    // v = pa - pb points from B to A, and GJK measured |v| without squaring it (a v of 1e-22
    // squares to a subnormal, and v over the root of that square came out 0.5% short of unit:
    // a fuzzer finding). A distance that is not a normal number gives no direction.
    if result.overlapping || result.distance <= ra + rb || !result.distance.is_normal() {
        let p = pose_a * Point::from((pa.coords + pb.coords) * 0.5);
        return Contact {
            separation: 0.0,
            point_a: p,
            point_b: p,
            normal: Vector::zeros(),
        };
    }
    let normal = -result.v / result.distance;
    let pa = pa + normal * ra;
    let pb = pb - normal * rb;
    Contact {
        separation: result.distance - (ra + rb),
        point_a: pose_a * pa,
        point_b: pose_a * pb,
        normal: pose_a * normal,
    }
}

/// True if the two shapes touch or overlap, by GJK (`dispatch::intersects` asks the
/// separating-axis test first for two boxes).
pub fn intersects(a: &Shape, pose_a: &Isometry<Real>, b: &Shape, pose_b: &Isometry<Real>) -> bool {
    let pair = CorePair::new(a, pose_a, b, pose_b);
    let result = gjk(&pair, &pair.pose_ab().translation.vector);
    result.overlapping || result.distance <= a.radius() + b.radius()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: Real, y: Real, z: Real) -> Vector<Real> {
        Vector::new(x, y, z)
    }

    #[test]
    fn segment_regions() {
        // Origin projects inside.
        let (l, k) = closest_on_segment(v(-1.0, 1.0, 0.0), v(3.0, 1.0, 0.0));
        assert_eq!(k, 0b11);
        assert!((l[0] - 0.75).abs() < 1e-6 && (l[1] - 0.25).abs() < 1e-6);
        // Beyond s1 and beyond s0.
        assert_eq!(
            closest_on_segment(v(1.0, 1.0, 0.0), v(3.0, 1.0, 0.0)).1,
            0b01
        );
        assert_eq!(
            closest_on_segment(v(-3.0, 1.0, 0.0), v(-1.0, 1.0, 0.0)).1,
            0b10
        );
        // Collapsed.
        assert_eq!(
            closest_on_segment(v(1.0, 1.0, 0.0), v(1.0, 1.0, 0.0)).1,
            0b01
        );
    }

    #[test]
    fn triangle_regions() {
        let (l, k, _) =
            closest_on_triangle(v(-1.0, -1.0, 1.0), v(2.0, -1.0, 1.0), v(-1.0, 2.0, 1.0));
        assert_eq!(k, 0b111);
        let p = v(-1.0, -1.0, 1.0) * l[0] + v(2.0, -1.0, 1.0) * l[1] + v(-1.0, 2.0, 1.0) * l[2];
        assert!((p - v(0.0, 0.0, 1.0)).norm() < 1e-6);
        // Closest to one vertex.
        let (_, k, _) = closest_on_triangle(v(1.0, 1.0, 0.0), v(2.0, 1.0, 0.0), v(1.0, 2.0, 0.0));
        assert_eq!(k, 0b001);
        // Collinear triangle falls back to an edge.
        let (l, k, _) = closest_on_triangle(v(-1.0, 1.0, 0.0), v(0.0, 1.0, 0.0), v(1.0, 1.0, 0.0));
        let pts = [v(-1.0, 1.0, 0.0), v(0.0, 1.0, 0.0), v(1.0, 1.0, 0.0)];
        let p: Vector<Real> = (0..3)
            .filter(|i| k & (1 << i) != 0)
            .map(|i| pts[i] * l[i])
            .sum();
        assert!((p - v(0.0, 1.0, 0.0)).norm() < 1e-6, "{p:?} {k:b}");
    }

    #[test]
    fn tetrahedron_contains_origin() {
        let w = [
            v(-1.0, -1.0, -1.0),
            v(3.0, -1.0, -1.0),
            v(-1.0, 3.0, -1.0),
            v(-1.0, -1.0, 3.0),
        ];
        let (l, k, _) = closest_on_tetrahedron(w);
        assert_eq!(k, 0b1111);
        assert!((l.iter().sum::<Real>() - 1.0).abs() < 1e-6);
        // Shifted away: closest is on a face.
        let w2 = w.map(|p| p + v(0.0, 0.0, 2.0)); // now the face z = 1 is nearest
        let (_, k, _) = closest_on_tetrahedron(w2);
        assert_eq!(k, 0b0111);
    }

    #[test]
    fn boxes_apart_and_overlapping() {
        let cube = Shape::cuboid(v(0.5, 0.5, 0.5)).unwrap();
        let a = Isometry::identity();
        let b = Isometry::translation(0.0, 1.25, 0.0);
        let d = distance(&cube, &a, &cube, &b);
        assert!((d.separation - 0.25).abs() < 1e-6);
        assert!((d.normal - Vector::y()).norm() < 1e-6);
        assert!((d.point_a.y - 0.5).abs() < 1e-6 && (d.point_b.y - 0.75).abs() < 1e-6);
        assert!(intersects(
            &cube,
            &a,
            &cube,
            &Isometry::translation(0.3, 0.9, 0.0)
        ));
    }
}

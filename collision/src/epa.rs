//! EPA: penetration depth, normal and witness points of two overlapping convex shapes, and
//! [`contact`], the one query the narrow phase asks: "how far apart, or how deep, and along what?"
//!
//! In: two shapes at their poses (and GJK's final simplex when their cores overlap).
//! Out: a [`Contact`]: signed separation, unit normal from A to B, a point on each surface.
//!
//! EPA grows a polytope inside the Minkowski difference of the cores, starting from GJK's simplex,
//! always pushing out the face nearest the origin, until that face lies on the boundary: its
//! distance is the depth and its normal the direction of least penetration. Because the cores are
//! polytopes, it ends exactly instead of approximating a curved surface; the radii of spheres and
//! capsules are added after, in closed form.
//!
//! Degenerate cases answer something sensible and never loop or produce NaN:
//! - touching shapes: the polytope is blown up around the origin from whatever simplex GJK left;
//! - flat cores (point against point, point against segment, segment against segment: two
//!   spheres or capsules whose cores cross): the difference has no volume, the depth along the
//!   flat direction is exactly the sum of the radii, and the normal is that direction;
//! - identical shapes at the same pose: as any deep overlap, one face of the difference wins;
//! - every loop is bounded (iterations, vertices, faces) and the best face so far is kept.

use parry3d::math::{Isometry, Point, Real, Vector};
use smallvec::SmallVec;

use crate::contact::{Contact, Gap, GAP_SLACK};
use crate::gjk::{gjk_from, CorePair, Simplex, SimplexCache, SupportPoint};
use crate::shape::Shape;
use crate::unit::unit_vector;

const MAX_ITERATIONS: usize = 64;
/// Vertices are indexed by u8.
const MAX_VERTICES: usize = 250;
/// Relative tolerance on the support gap of the nearest face.
const GAP_TOLERANCE: Real = 1.0e-5;

/// Depth, direction and witness points of an overlap, in A's local frame, for the cores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penetration {
    /// How deep the cores overlap (m, >= 0).
    pub depth: Real,
    /// Unit direction from A to B: moving B by `depth * normal` separates the cores.
    pub normal: Vector<Real>,
    /// Deepest point of A's core.
    pub point_a: Point<Real>,
    /// Deepest point of B's core.
    pub point_b: Point<Real>,
}

#[derive(Clone, Copy, Debug)]
struct Face {
    v: [u8; 3],
    normal: Vector<Real>,
    distance: Real,
}

/// The EPA polytope. Inline storage sized for what polytopes of a few dozen vertices need, so
/// ordinary queries never allocate; a rare larger one spills to the heap rather than stopping.
struct Polytope {
    vertices: SmallVec<[SupportPoint; 72]>,
    faces: SmallVec<[Face; 160]>,
    /// A point strictly inside the polytope (the first tetrahedron's centroid; the polytope
    /// only grows): every face normal is turned to point away from it.
    interior: Vector<Real>,
}

impl Polytope {
    fn face(&self, v: [u8; 3]) -> Face {
        let [a, b, c] = v.map(|i| self.vertices[i as usize].w);
        let n = (b - a).cross(&(c - a));
        match n.try_normalize(Real::MIN_POSITIVE.sqrt()) {
            // Wound the wrong way by rounding (a sliver first tetrahedron, the origin almost
            // on an edge: a fuzzer finding, where an inward face ended EPA at depth 0 inside
            // boxes 320 m deep): turned round, normal and winding, so that the origin (inside)
            // is behind every face.
            Some(n) if n.dot(&(a - self.interior)) < 0.0 => Face {
                v: [v[0], v[2], v[1]],
                normal: -n,
                distance: -n.dot(&a),
            },
            Some(n) => Face {
                v,
                normal: n,
                distance: n.dot(&a),
            },
            // A sliver: never the nearest face, never expanded.
            None => Face {
                v,
                normal: Vector::zeros(),
                distance: Real::INFINITY,
            },
        }
    }

    fn nearest(&self) -> usize {
        let mut best = 0;
        for (i, f) in self.faces.iter().enumerate() {
            if f.distance < self.faces[best].distance {
                best = i;
            }
        }
        best
    }

    /// Witness points: the origin's projection on face `f`, in barycentric coordinates.
    fn penetration(&self, f: &Face) -> Penetration {
        let [a, b, c] = f.v.map(|i| self.vertices[i as usize]);
        let p = f.normal * f.distance;
        let (u, v, w) = barycentric(&p, &a.w, &b.w, &c.w);
        Penetration {
            depth: f.distance.max(0.0),
            normal: f.normal,
            point_a: Point::from(a.a.coords * u + b.a.coords * v + c.a.coords * w),
            point_b: Point::from(a.b.coords * u + b.b.coords * v + c.b.coords * w),
        }
    }
}

/// Barycentric coordinates of `p` in triangle `a b c`, clamped into the triangle.
fn barycentric(
    p: &Vector<Real>,
    a: &Vector<Real>,
    b: &Vector<Real>,
    c: &Vector<Real>,
) -> (Real, Real, Real) {
    let n = (b - a).cross(&(c - a));
    let nn = n.norm_squared();
    if nn <= Real::MIN_POSITIVE {
        return (1.0, 0.0, 0.0);
    }
    let u = (b - p).cross(&(c - p)).dot(&n) / nn;
    let v = (c - p).cross(&(a - p)).dot(&n) / nn;
    let (u, v) = (u.clamp(0.0, 1.0), v.clamp(0.0, 1.0));
    let w = (1.0 - u - v).max(0.0);
    let sum = u + v + w;
    (u / sum, v / sum, w / sum)
}

/// A unit vector perpendicular to `d`.
fn perpendicular(d: &Vector<Real>) -> Vector<Real> {
    let axis = if d.x.abs() < 0.57 {
        Vector::x()
    } else {
        Vector::y()
    };
    d.cross(&axis).normalize()
}

/// The flat case: the cores' difference has no volume around the origin (see the module doc).
/// The depth along `normal` is zero for the cores; the witnesses are GJK's.
fn flat(normal: Vector<Real>, hint: &Vector<Real>, simplex: &Simplex) -> Penetration {
    let normal = if normal.dot(hint) < 0.0 {
        -normal
    } else {
        normal
    };
    let (point_a, point_b) = simplex.witnesses();
    Penetration {
        depth: 0.0,
        normal,
        point_a,
        point_b,
    }
}

/// Runs EPA on the cores of `pair`, continuing from GJK's final `simplex` (which must be touching
/// or overlapping). `hint` orients normals that the geometry leaves free (the centre offset).
pub fn epa(pair: &CorePair<'_>, simplex: &Simplex, hint: &Vector<Real>) -> Penetration {
    let mut poly = Polytope {
        vertices: SmallVec::new(),
        faces: SmallVec::new(),
        interior: Vector::zeros(),
    };
    poly.vertices.extend_from_slice(simplex.points());
    let scale = poly
        .vertices
        .iter()
        .map(|p| p.w.norm())
        .fold(0.0, Real::max);
    let probe = [pair.support(&Vector::x()), pair.support(&-Vector::x())];
    let scale = scale
        .max((probe[0].w - probe[1].w).norm())
        .max(Real::MIN_POSITIVE);
    let eps = 1.0e-6 * scale;
    // The hint is the centres' offset, which the user's poses set: made unit without squaring
    // (an offset of 1e20 would square to infinity), Y if it has no direction.
    let hint = unit_vector(hint).map_or(Vector::y(), |h| h.into_inner());

    // Blow the simplex up to a tetrahedron. A direction that finds no new point proves the
    // difference flat (or a line, or a point) in the directions tried.
    if poly.vertices.len() == 1 {
        let p0 = poly.vertices[0].w;
        let axes = [
            Vector::x(),
            -Vector::x(),
            Vector::y(),
            -Vector::y(),
            Vector::z(),
            -Vector::z(),
        ];
        if let Some(w) = axes
            .iter()
            .map(|d| pair.support(d))
            .find(|w| (w.w - p0).norm() > eps)
        {
            poly.vertices.push(w);
        } else {
            return flat(hint, &hint, simplex);
        }
    }
    if poly.vertices.len() == 2 {
        let (p0, p1) = (poly.vertices[0].w, poly.vertices[1].w);
        let d = (p1 - p0).normalize();
        let e1 = perpendicular(&d);
        let e2 = d.cross(&e1);
        let found = (0..6)
            .map(|k| {
                let angle = k as Real * std::f32::consts::FRAC_PI_3;
                pair.support(&(e1 * angle.cos() + e2 * angle.sin()))
            })
            .find(|w| (w.w - p0).cross(&d).norm() > eps);
        match found {
            Some(w) => poly.vertices.push(w),
            None => {
                // A line: every perpendicular has depth zero; take the one nearest the hint.
                let n = hint - d * hint.dot(&d);
                let n = unit_vector(&n).map_or(e1, |n| n.into_inner());
                return flat(n, &hint, simplex);
            }
        }
    }
    if poly.vertices.len() == 3 {
        let [p0, p1, p2] = [0, 1, 2].map(|i| poly.vertices[i].w);
        let n = (p1 - p0).cross(&(p2 - p0));
        let Some(n) = n.try_normalize(Real::MIN_POSITIVE.sqrt()) else {
            let d = unit_vector(&(p1 - p0)).map_or(Vector::x(), |d| d.into_inner());
            return flat(perpendicular(&d), &hint, simplex);
        };
        let found = [n, -n]
            .iter()
            .map(|d| pair.support(d))
            .find(|w| (w.w - p0).dot(&n).abs() > eps);
        match found {
            Some(w) => poly.vertices.push(w),
            None => return flat(n, &hint, simplex),
        }
    }

    // The tetrahedron, every face wound outwards (away from the opposite vertex).
    poly.interior = poly.vertices.iter().map(|p| p.w).sum::<Vector<Real>>() / 4.0;
    for (i, j, k, l) in [(0, 1, 2, 3), (0, 3, 1, 2), (0, 2, 3, 1), (1, 3, 2, 0)] {
        let w = |x: usize| poly.vertices[x].w;
        let n = (w(j) - w(i)).cross(&(w(k) - w(i)));
        let v = if n.dot(&(w(l) - w(i))) > 0.0 {
            [i, k, j]
        } else {
            [i, j, k]
        };
        let face = poly.face(v.map(|x| x as u8));
        poly.faces.push(face);
    }

    let mut horizon: SmallVec<[(u8, u8); 64]> = SmallVec::new();
    // The smallest support height seen, `h(n) = max over the difference of n . x`, with its
    // direction and support point. The depth is the minimum of h over all directions, so each
    // one is an upper bound: the answer if the polytope breaks (below).
    let mut best: Option<(Real, Vector<Real>, SupportPoint)> = None;
    for _ in 0..MAX_ITERATIONS {
        let nearest = poly.nearest();
        let face = poly.faces[nearest];
        if !face.distance.is_finite() {
            break;
        }
        let w = pair.support(&face.normal);
        let height = w.w.dot(&face.normal);
        let lower = match best {
            Some((h, _, _)) => height < h,
            None => true,
        };
        if lower {
            best = Some((height, face.normal, w));
        }
        // The origin in front of the nearest face: rounding in the horizon (a new point
        // nearly on a face's plane) left the polytope not convex (a fuzzer finding: two
        // cubes 612 m deep came out at depth 0). Its faces no longer bound the depth from
        // below; the best support height does from above, within a fraction of a percent.
        if face.distance < -eps {
            break;
        }
        if height - face.distance <= GAP_TOLERANCE * scale
            || poly.vertices.iter().any(|p| p.w == w.w)
            || poly.vertices.len() >= MAX_VERTICES
        {
            return poly.penetration(&face);
        }
        // Remove every face that sees w; the edges of the removed region that only one removed
        // face owns form the horizon, which the new vertex closes with a fan of faces.
        horizon.clear();
        let mut i = 0;
        while i < poly.faces.len() {
            let f = poly.faces[i];
            let a = poly.vertices[f.v[0] as usize].w;
            // The nearest face is always among them: its gap exceeds the tolerance, and eps is smaller.
            let visible = f.distance.is_finite() && f.normal.dot(&(w.w - a)) > eps;
            if visible {
                for e in [(f.v[0], f.v[1]), (f.v[1], f.v[2]), (f.v[2], f.v[0])] {
                    if let Some(pos) = horizon.iter().position(|&h| h == (e.1, e.0)) {
                        horizon.swap_remove(pos);
                    } else {
                        horizon.push(e);
                    }
                }
                poly.faces.swap_remove(i);
            } else {
                i += 1;
            }
        }
        let new = poly.vertices.len() as u8;
        poly.vertices.push(w);
        for &(a, b) in &horizon {
            let f = poly.face([a, b, new]);
            poly.faces.push(f);
        }
        if poly.faces.is_empty() {
            break;
        }
    }
    if let Some(face) = poly
        .faces
        .get(poly.nearest())
        .filter(|f| f.distance >= -eps)
    {
        if face.distance.is_finite() {
            return poly.penetration(face);
        }
    }
    match best {
        // The deepest points along n: A's support along n, B's against it.
        Some((height, normal, w)) => Penetration {
            depth: height.max(0.0),
            normal,
            point_a: w.a,
            point_b: w.b,
        },
        None => flat(hint, &hint, simplex),
    }
}

/// The closest or deepest points of `a` and `b`, if their separation is at most `margin` (m).
///
/// ```
/// use sprung_collision::{epa, shape::Shape};
/// use sprung_collision::parry3d::math::{Isometry, Vector};
///
/// let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
/// let c = epa::contact(&cube, &Isometry::identity(), &cube, &Isometry::translation(0.0, 0.9, 0.0), 0.0)
///     .unwrap();
/// assert!((c.separation + 0.1).abs() < 1e-5);
/// assert!((c.normal - Vector::y()).norm() < 1e-5);
/// ```
pub fn contact(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    margin: Real,
) -> Option<Contact> {
    contact_or_gap(a, pose_a, b, pose_b, margin, &mut SimplexCache::default()).ok()
}

/// [`contact`], or, when the shapes are farther apart than `margin`, a lower bound of their
/// distance and the axis that showed it. GJK starts from `warm`'s vertices (the pair's last
/// simplex) if it has any, else along the centres' offset, and leaves its final simplex there.
pub(crate) fn contact_or_gap(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    margin: Real,
    warm: &mut SimplexCache,
) -> Result<Contact, Gap> {
    let pair = CorePair::new(a, pose_a, b, pose_b);
    let offset = pair.pose_ab().translation.vector;
    let g = gjk_from(&pair, &offset, warm);
    *warm = g.simplex.cache(&pair);
    let (ra, rb) = (a.radius(), b.radius());
    // The GJK normal made unit without squaring (a v of 1e-22 gave a normal 0.5% short of
    // unit: a fuzzer finding); a v too small to have a direction is a touch, for EPA.
    let apart = (!g.overlapping && g.distance > 0.0)
        .then(|| unit_vector(&-g.v))
        .flatten();
    let (separation, normal, pa, pb) = if let Some(normal) = apart {
        let separation = g.distance - ra - rb;
        if separation > margin {
            return Err(Gap {
                distance: g.distance * (1.0 - GAP_SLACK) - ra - rb,
                axis: normal.into_inner(),
            });
        }
        let (pa, pb) = g.simplex.witnesses();
        (separation, normal.into_inner(), pa, pb)
    } else {
        let p = epa(&pair, &g.simplex, &offset);
        (-(p.depth + ra + rb), p.normal, p.point_a, p.point_b)
    };
    Ok(Contact {
        separation,
        normal: pose_a * normal,
        point_a: pose_a * (pa + normal * ra),
        point_b: pose_a * (pb - normal * rb),
    })
}

/// A lower bound of the distance (m) of `a` at `pose_a` and `b` at `pose_b`: how far apart
/// their projections on `axis` (unit, in A's frame, from A towards B) are, less GJK's slack.
/// One support point of their cores' difference: what a pair kept apart tries before GJK once
/// its budget is spent, along the axis its last query found (the cached separating axis of
/// Gregorius' "The Separating Axis Test between Convex Polyhedra", GDC 2013): in a heap of
/// hulls that axis usually still separates them.
pub(crate) fn separation_along(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    axis: &Vector<Real>,
) -> Real {
    let pair = CorePair::new(a, pose_a, b, pose_b);
    // The support of core(A) - core(B) along the axis is max (a - b) . axis = -(the least
    // b . axis - a . axis).
    let cores = -axis.dot(&pair.support(axis).w);
    cores * (1.0 - GAP_SLACK.copysign(cores)) - a.radius() - b.radius()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::hull;

    #[test]
    fn coincident_spheres_have_full_depth() {
        let s = Shape::sphere(0.5).unwrap();
        let pose = Isometry::translation(1.0, 2.0, 3.0);
        let c = contact(&s, &pose, &s, &pose, 0.0).unwrap();
        assert!((c.separation + 1.0).abs() < 1e-6);
        assert!((c.normal.norm() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn crossing_capsules_are_flat_cores() {
        let cap = Shape::capsule(1.0, 0.2).unwrap();
        let a = Isometry::identity();
        // B's segment along Z through the origin, crossing A's segment along Y.
        let b = Isometry::rotation(Vector::x() * std::f32::consts::FRAC_PI_2);
        let c = contact(&cap, &a, &cap, &b, 0.0).unwrap();
        assert!((c.separation + 0.4).abs() < 1e-5, "{c:?}");
        assert!(
            c.normal.x.abs() > 0.999,
            "normal {:?} must be perpendicular to both axes",
            c.normal
        );
    }

    #[test]
    fn identical_cubes_at_one_pose() {
        let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
        let pose = Isometry::new(Vector::new(0.3, -2.0, 5.0), Vector::new(0.2, 0.4, -0.1));
        let c = contact(&cube, &pose, &cube, &pose, 0.0).unwrap();
        assert!((c.separation + 1.0).abs() < 1e-4, "{c:?}");
    }

    /// The projections on any axis are at most the shapes' distance apart (parry3d's
    /// distance is the oracle), and on the axis a query found apart they are the gap it found.
    #[test]
    fn a_projection_never_says_more_than_the_distance() {
        let mut next = crate::testing::uniform(0x9e37_79b9_7f4a_7c15u64);
        let (mut apart, mut close) = (0, 0);
        for case in 0..10_000 {
            let a = match case % 3 {
                0 => hull(&mut next),
                1 => Shape::cuboid(Vector::new(0.3, 0.5, 0.4)).unwrap(),
                _ => Shape::capsule(0.4, 0.2).unwrap(),
            };
            let b = hull(&mut next);
            let pose_a = Isometry::new(
                Vector::new(next(), next(), next()) * 4.0,
                Vector::new(next(), next(), next()) * 6.0,
            );
            let offset =
                Vector::new(next(), next(), next()).normalize() * (0.5 + 2.0 * next().abs());
            let pose_b = Isometry::new(
                pose_a.translation.vector + offset,
                Vector::new(next(), next(), next()) * 6.0,
            );
            let distance =
                parry3d::query::distance(&pose_a, a.as_parry(), &pose_b, b.as_parry()).unwrap();
            let random = Vector::new(next(), next(), next()).normalize();
            let along = separation_along(&a, &pose_a, &b, &pose_b, &random);
            assert!(
                along <= distance + 1e-5,
                "{along} along {random:?}, distance {distance}"
            );
            if let Err(gap) =
                contact_or_gap(&a, &pose_a, &b, &pose_b, 0.0, &mut SimplexCache::default())
            {
                let local = separation_along(&a, &pose_a, &b, &pose_b, &gap.axis);
                assert!(
                    local <= distance + 1e-5,
                    "{local} along the gap's axis, distance {distance}"
                );
                assert!(
                    (local - gap.distance).abs() < 2e-3 * distance.max(0.1),
                    "{local} along the gap's axis, gap {}",
                    gap.distance
                );
                apart += 1;
            } else {
                close += 1;
            }
        }
        assert!(apart > 3_000 && close > 500, "{apart} apart, {close} close");
    }

    /// GJK started from the pair's last simplex finds the contact it finds from the centres'
    /// offset: on random hull pairs apart, touching and overlapping, moved a little (as from
    /// step to step) or to an unrelated pose since that simplex was made, the same separation
    /// and normal.
    #[test]
    fn a_warm_simplex_changes_where_gjk_starts_not_what_it_finds() {
        let mut next = crate::testing::uniform(0x2545_f491_4f6c_dd1du64);
        let (mut checked, mut overlapping) = (0, 0);
        let pose_pair = |next: &mut dyn FnMut() -> Real| {
            let pose_a = Isometry::new(
                Vector::new(next(), next(), next()) * 4.0,
                Vector::new(next(), next(), next()) * 6.0,
            );
            let offset = Vector::new(next(), next(), next()).normalize() * (0.3 + next());
            let pose_b = Isometry::new(
                pose_a.translation.vector + offset,
                Vector::new(next(), next(), next()) * 6.0,
            );
            (pose_a, pose_b)
        };
        for case in 0..4_000 {
            let (a, b) = (hull(&mut next), hull(&mut next));
            let (was_a, was_b) = pose_pair(&mut next);
            let mut warm = SimplexCache::default();
            let _ = contact_or_gap(&a, &was_a, &b, &was_b, 0.2, &mut warm);
            let (pose_a, pose_b) = if case % 2 == 0 {
                let nudge = |p: &Isometry<Real>, next: &mut dyn FnMut() -> Real| {
                    let step = Isometry::new(
                        Vector::new(next(), next(), next()) * 0.05,
                        Vector::new(next(), next(), next()) * 0.1,
                    );
                    step * p
                };
                (nudge(&was_a, &mut next), nudge(&was_b, &mut next))
            } else {
                pose_pair(&mut next)
            };
            let cold = contact_or_gap(&a, &pose_a, &b, &pose_b, 0.2, &mut SimplexCache::default());
            let warmed = contact_or_gap(&a, &pose_a, &b, &pose_b, 0.2, &mut warm);
            let (cold, warmed) = match (cold, warmed) {
                (Ok(c), Ok(w)) => (c, w),
                (Err(c), Err(w)) => {
                    assert!(
                        (c.distance - w.distance).abs() < 1e-4,
                        "gap {} warm, {} cold",
                        w.distance,
                        c.distance
                    );
                    continue;
                }
                (c, w) => panic!("{w:?} warm, {c:?} cold"),
            };
            assert!(
                (warmed.separation - cold.separation).abs() < 1e-4,
                "separation {} warm, {} cold",
                warmed.separation,
                cold.separation
            );
            assert!(
                (warmed.normal - cold.normal).norm() < 2e-2 || cold.separation.abs() < 1e-4,
                "normal {:?} warm, {:?} cold",
                warmed.normal,
                cold.normal
            );
            checked += 1;
            overlapping += usize::from(cold.separation < 0.0);
        }
        assert!(
            checked > 1_000 && overlapping > 200,
            "{checked} pairs, {overlapping} overlapping"
        );
    }
}

//! Which routine makes a pair's manifolds: the entry of the manifold stage for any two shapes.
//!
//! In: two shapes, their poses, a margin. Out: their manifolds, normals from A to B. Two convex
//! shapes go to [`crate::manifold`] (GJK/EPA or SAT, then clipping: one manifold); a half-space
//! to [`crate::halfspace`] (closed form: one); a mesh or height field to [`crate::mesh`] (one per
//! group of coplanar touching triangles). Level shapes are always met from their own side and
//! the result turned round when they are B, so each routine is written for one order only.

use parry3d::math::{Isometry, Real};
use smallvec::SmallVec;

use crate::contact::{Contact, Gap, KeepWithin, Manifold, GAP_SLACK};
use crate::gjk::SimplexCache;
use crate::manifold::clip;
use crate::shape::Shape;
use crate::{closed_form, epa, gjk, halfspace, mesh, sat};

/// Distance and closest points between `a` at `pose_a` and `b` at `pose_b` (as
/// [`gjk::distance`]: the separation 0 when they touch or overlap).
///
/// Two boxes go first to the separating-axis test, which proves most pairs' closest points in
/// a fraction of GJK's time (`sat.rs`); GJK answers the rest and every other pair.
///
/// ```
/// use sprung_collision::{dispatch, shape::Shape};
/// use sprung_collision::parry3d::math::{Isometry, Vector};
///
/// let ball = Shape::sphere(0.5).unwrap();
/// let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
/// let d = dispatch::distance(&ball, &Isometry::translation(0.0, 2.0, 0.0), &cube, &Isometry::identity());
/// assert!((d.separation - 1.0).abs() < 1e-6);
/// ```
pub fn distance(a: &Shape, pose_a: &Isometry<Real>, b: &Shape, pose_b: &Isometry<Real>) -> Contact {
    if let (Shape::Cuboid(box_a), Shape::Cuboid(box_b)) = (a, b) {
        // Most box pairs have a closed form (the separating-axis test's proof).
        if let Some(closest) = sat::cuboid_cuboid_distance(box_a, pose_a, box_b, pose_b) {
            return closest;
        }
    }
    gjk::distance(a, pose_a, b, pose_b)
}

/// True if the two shapes touch or overlap.
pub fn intersects(a: &Shape, pose_a: &Isometry<Real>, b: &Shape, pose_b: &Isometry<Real>) -> bool {
    if let (Shape::Cuboid(box_a), Shape::Cuboid(box_b)) = (a, b) {
        // Two boxes: the separating-axis test, which stops at the first axis with a gap.
        if let Some(overlap) = sat::cuboid_cuboid_overlap(box_a, pose_a, box_b, pose_b) {
            return overlap;
        }
    }
    gjk::intersects(a, pose_a, b, pose_b)
}

/// The contact manifold of `a` at `pose_a` and `b` at `pose_b`, written into `out` (whose old
/// points are replaced; impulses are not carried here, see the narrow phase).
///
/// ```
/// use sprung_collision::{contact::Manifold, dispatch::manifold, shape::Shape};
/// use sprung_collision::parry3d::math::{Isometry, Vector};
///
/// let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
/// let mut m = Manifold::default();
/// manifold(&cube, &Isometry::identity(), &cube, &Isometry::translation(0.0, 0.99, 0.0), 0.02, &mut m);
/// assert_eq!(m.points.len(), 4);
/// assert!(m.points.iter().all(|p| (p.separation + 0.01).abs() < 1e-5));
/// ```
///
/// Convex shapes and half-spaces; for a mesh or height field, which can touch along several
/// normals, [`manifolds`] gives them all (this keeps the deepest).
pub fn manifold(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    margin: Real,
    out: &mut Manifold,
) {
    manifold_or_gap(
        a,
        pose_a,
        b,
        pose_b,
        margin,
        None,
        &mut SimplexCache::default(),
        out,
    );
}

/// [`manifold`], returning the [`Gap`] when the shapes were found farther apart than `margin`
/// (the manifold then has no points), or farther apart than `within` gives along the normal
/// found.
///
/// `within` is how a pair apart is spared its clip: `margin` holds the reach of the bodies'
/// whole relative speed, but shapes apart along a normal close no faster than their speeds
/// along it (their gap along it is a lower bound of their distance, and a translation across
/// it leaves it as it is; only turning can close it faster, which the reach along it holds
/// too).
#[allow(clippy::too_many_arguments)]
pub(crate) fn manifold_or_gap(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    margin: Real,
    within: KeepWithin<'_>,
    warm: &mut SimplexCache,
    out: &mut Manifold,
) -> Option<Gap> {
    out.points.clear();
    out.sub_shape = 0;
    if a.is_level() || b.is_level() {
        let mut all: SmallVec<[Manifold; 1]> = SmallVec::new();
        manifolds(a, pose_a, b, pose_b, margin, &mut all);
        let depth = |m: &Manifold| {
            m.points
                .iter()
                .map(|p| p.separation)
                .fold(Real::INFINITY, Real::min)
        };
        if let Some(deepest) = all.into_iter().min_by(|x, y| {
            depth(x)
                .partial_cmp(&depth(y))
                .unwrap_or(std::cmp::Ordering::Equal)
        }) {
            *out = deepest;
        }
        return None;
    }
    let found = match (a, b) {
        (Shape::Cuboid(ca), Shape::Cuboid(cb)) => {
            return sat::cuboid_cuboid_manifold_or_gap(ca, pose_a, cb, pose_b, margin, within, out);
        }
        // The pairs with a closed form, else the general path.
        _ => {
            // A hull's topology and normals on their way while GJK runs (`Hull::prefetch`).
            if let Shape::ConvexHull(h) = a {
                h.prefetch();
            }
            if let Shape::ConvexHull(h) = b {
                h.prefetch();
            }
            closed_form::contact_or_gap(a, pose_a, b, pose_b, margin)
                .unwrap_or_else(|| epa::contact_or_gap(a, pose_a, b, pose_b, margin, warm))
        }
    };
    match found {
        Ok(contact)
            if contact.separation > 0.0
                && within.is_some_and(|within| contact.separation > within(&contact.normal)) =>
        {
            // Apart by more than the pair can close along the normal: a lower bound of the
            // distance, with the slack GJK's gaps are given.
            let (ra, rb) = (a.radius(), b.radius());
            Some(Gap {
                distance: (contact.separation + ra + rb) * (1.0 - GAP_SLACK) - ra - rb,
                axis: pose_a.rotation.inverse_transform_vector(&contact.normal),
            })
        }
        Ok(contact) => {
            clip(a, pose_a, b, pose_b, &contact, margin, out);
            None
        }
        Err(gap) => Some(gap),
    }
}

/// Every manifold of `a` at `pose_a` against `b` at `pose_b`, replacing `out`'s: one for two
/// convex shapes or a half-space, one per group of coplanar touching triangles for a mesh or
/// height field ([`crate::mesh`]). Two level shapes (both static) give none.
///
/// ```
/// use sprung_collision::dispatch::manifolds;
/// use sprung_collision::shape::Shape;
/// use sprung_collision::parry3d::math::{Isometry, Point, Vector};
/// use smallvec::SmallVec;
///
/// // Two coplanar triangles under a cube: one manifold, straight up, four points.
/// let floor = Shape::trimesh(
///     vec![Point::new(-2.0, 0.0, -2.0), Point::new(-2.0, 0.0, 2.0), Point::new(2.0, 0.0, 2.0), Point::new(2.0, 0.0, -2.0)],
///     vec![[0, 1, 2], [0, 2, 3]],
/// ).unwrap();
/// let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
/// let mut out = SmallVec::new();
/// manifolds(&floor, &Isometry::identity(), &cube, &Isometry::translation(0.1, 0.49, 0.0), 0.02, &mut out);
/// assert_eq!(out.len(), 1);
/// assert_eq!(out[0].points.len(), 4);
/// assert!((out[0].normal - Vector::y()).norm() < 1e-6);
/// ```
pub fn manifolds(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    margin: Real,
    out: &mut SmallVec<[Manifold; 1]>,
) {
    // (Cleared here: the narrow phase's path reuses a manifold with the impulses it carries.)
    out.clear();
    manifolds_or_gap(
        a,
        pose_a,
        b,
        pose_b,
        margin,
        None,
        &mut SimplexCache::default(),
        out,
    );
}

/// [`manifolds`], returning the [`Gap`] when two convex shapes were found farther apart than
/// `margin` (`out` is then empty). `warm`: the pair's last GJK simplex, where GJK starts, and
/// where it leaves its final one. `within`: as [`manifold_or_gap`]'s, for convex pairs. A
/// convex pair's manifold already in `out` is written over
/// in place, keeping its friction impulses (the narrow phase carries them by sub-shape anyway).
#[allow(clippy::too_many_arguments)]
pub(crate) fn manifolds_or_gap(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    margin: Real,
    within: KeepWithin<'_>,
    warm: &mut SimplexCache,
    out: &mut SmallVec<[Manifold; 1]>,
) -> Option<Gap> {
    let mut gap = None;
    match (a.is_level(), b.is_level()) {
        (false, false) => {
            // The manifold already there reused (its points and kind are reset by the query,
            // its friction impulses are the caller's to carry): a new one written in its place
            // cost ~150 instructions a query.
            out.truncate(1);
            if out.is_empty() {
                out.push(Manifold::default());
            }
            gap = manifold_or_gap(a, pose_a, b, pose_b, margin, within, warm, &mut out[0]);
        }
        (true, false) => {
            out.clear();
            level(a, pose_a, b, pose_b, margin, out);
        }
        (false, true) => {
            out.clear();
            // Found from the level shape's side, then turned to point from A to B.
            level(b, pose_b, a, pose_a, margin, out);
            for m in out.iter_mut() {
                m.normal = -m.normal;
                for p in &mut m.points {
                    std::mem::swap(&mut p.point_a, &mut p.point_b);
                }
            }
        }
        (true, true) => out.clear(),
    }
    // (A convex pair's one manifold tested in place: `retain` cost ~40 instructions a query.)
    match out.as_slice() {
        [m] if m.points.is_empty() => out.clear(),
        [_] | [] => {}
        _ => out.retain(|m| !m.points.is_empty()),
    }
    gap
}

/// The manifolds of level shape `a` against convex shape `b`, normals from `a` to `b`.
fn level(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    margin: Real,
    out: &mut SmallVec<[Manifold; 1]>,
) {
    match a {
        Shape::HalfSpace(h) => {
            out.push(Manifold::default());
            halfspace::manifold(h, pose_a, b, pose_b, margin, &mut out[0]);
        }
        Shape::TriMesh(_) | Shape::HeightField(_) => {
            mesh::manifolds(a, pose_a, b, pose_b, margin, out)
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parry3d::math::{Point, Vector};

    /// Two unit cubes 5 cm apart, as hulls (GJK) and as boxes (the separating-axis test),
    /// queried with a margin that reaches across the gap: points, unless what the pair may
    /// close along the normal found (`within`) falls short of the gap, when the query gives
    /// the gap instead (its distance a lower bound, its axis the normal in A's frame).
    #[test]
    fn a_pair_apart_beyond_its_reach_along_the_normal_gets_no_points() {
        let corners: Vec<Point<Real>> = (0..8)
            .map(|i| {
                let at = |bit: u32| if i & bit == 0 { -0.5 } else { 0.5 };
                Point::new(at(1), at(2), at(4))
            })
            .collect();
        let hull = Shape::convex_hull(&corners).unwrap();
        let cuboid = Shape::cuboid(Vector::repeat(0.5)).unwrap();
        // (Turned about x and z, so that A's up is not the world's: a normal or axis in the
        // wrong frame would show.)
        let turn = nalgebra::UnitQuaternion::from_euler_angles(0.3, 0.0, 0.2);
        let pose_a = Isometry::from_parts(Vector::new(0.0, 0.0, 1.0).into(), turn);
        // B 1.05 m along A's own up axis: 5 cm apart, face to face.
        let up = turn * Vector::y();
        let pose_b = Isometry::from_parts((pose_a.translation.vector + up * 1.05).into(), turn);
        for shape in [&hull, &cuboid] {
            let query = |within: KeepWithin<'_>| {
                let mut out = Manifold::default();
                let gap = manifold_or_gap(
                    shape,
                    &pose_a,
                    shape,
                    &pose_b,
                    0.3,
                    within,
                    &mut SimplexCache::default(),
                    &mut out,
                );
                (gap, out.points.len())
            };
            assert!(matches!(query(None), (None, 4)));
            let far = |n: &Vector<Real>| {
                assert!((n - up).norm() < 1e-4, "the normal {n:?}");
                0.1
            };
            assert!(matches!(query(Some(&far)), (None, 4)));
            let near = |_: &Vector<Real>| 0.02;
            let (Some(gap), 0) = query(Some(&near)) else {
                panic!("points or no gap within 2 cm");
            };
            assert!(
                gap.distance <= 0.05 + 1e-5 && gap.distance > 0.049,
                "{gap:?}"
            );
            assert!((gap.axis - Vector::y()).norm() < 1e-4, "{gap:?}");
        }
    }
}

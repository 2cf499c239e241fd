//! Which routine makes a pair's manifolds: the entry of the manifold stage for any two shapes.
//!
//! In: two shapes, their poses, a margin. Out: their manifolds, normals from A to B. Two convex
//! shapes go to [`crate::manifold`] (GJK/EPA or SAT, then clipping: one manifold); a half-space
//! to [`crate::halfspace`] (closed form: one); a mesh or height field to [`crate::mesh`] (one per
//! group of coplanar touching triangles). Level shapes are always met from their own side and
//! the result turned round when they are B, so each routine is written for one order only.

use parry3d::math::{Isometry, Real};
use smallvec::SmallVec;

use crate::epa::Gap;
use crate::gjk::SimplexCache;
use crate::manifold::{manifold_or_gap, KeepWithin, Manifold};
use crate::shape::Shape;
use crate::{halfspace, mesh};

/// Every manifold of `a` at `pose_a` against `b` at `pose_b`, replacing `out`'s: one for two
/// convex shapes or a half-space, one per group of coplanar touching triangles for a mesh or
/// height field ([`crate::mesh`]). Two level shapes (both static) give none.
///
/// ```
/// use sprung_collision::manifold::manifolds;
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

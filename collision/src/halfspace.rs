//! Convex shape against half-space, in closed form: the manifold stage's case for infinite floors
//! and walls.
//!
//! In: a half-space (plane through its pose's origin, outward normal `n`, solid below) and a
//! convex shape. Out: one [`Manifold`] with normal `n` (from the half-space to the shape).
//!
//! How: the shape's supporting feature along `-n` (a box or hull face, a capsule's segment or end,
//! a sphere's centre: [`crate::manifold`]'s features) is the only part that can reach the plane.
//! Each of its core points, less the radius along `n`, is a contact point if its height over the
//! plane is within the margin. No GJK: the plane's distance to a point is exact, and the deepest
//! point of a convex shape is always a vertex of that feature. More than four (a hull face) are
//! reduced to four by the manifold stage's rule.

use parry3d::math::{Isometry, Real};
use parry3d::shape::HalfSpace;

use crate::contact::{mix, Manifold, ManifoldPoint};
use crate::manifold::{pick_four, plane_axes, support_feature};
use crate::shape::Shape;

/// The manifold of half-space `plane` at `pose_plane` and convex `shape` at `pose`, written into
/// `out` (points replaced), with points up to `margin` (m) apart.
///
/// ```
/// use sprung_collision::{contact::Manifold, halfspace, shape::Shape};
/// use sprung_collision::parry3d::math::{Isometry, Vector};
///
/// let Shape::HalfSpace(floor) = Shape::halfspace(Vector::y()).unwrap() else { unreachable!() };
/// let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
/// let mut m = Manifold::default();
/// halfspace::manifold(&floor, &Isometry::identity(), &cube, &Isometry::translation(0.0, 0.49, 0.0), 0.02, &mut m);
/// assert_eq!(m.points.len(), 4);
/// assert!(m.points.iter().all(|p| (p.separation + 0.01).abs() < 1e-5));
/// ```
pub fn manifold(
    plane: &HalfSpace,
    pose_plane: &Isometry<Real>,
    shape: &Shape,
    pose: &Isometry<Real>,
    margin: Real,
    out: &mut Manifold,
) {
    out.points.clear();
    out.sub_shape = 0;
    let n = pose_plane.rotation * plane.normal.into_inner();
    out.normal = n;
    if shape.is_level() {
        return;
    }
    let origin = pose_plane.translation.vector;
    let radius = shape.radius();
    let feature = support_feature(shape, pose, &-n);
    for (p, &id) in feature.points.iter().zip(&feature.ids) {
        let separation = (p.coords - origin).dot(&n) - radius;
        if separation <= margin && separation.is_finite() {
            let point_b = p - n * radius;
            out.points.push(ManifoldPoint {
                point_a: point_b - n * separation,
                point_b,
                separation,
                id: mix(feature.id, id),
                normal_impulse: 0.0,
            });
        }
    }
    if out.points.len() > 4 {
        let (t1, t2) = plane_axes(&n);
        let keep = pick_four(&out.points, &t1, &t2);
        out.points = keep.iter().map(|&i| out.points[i]).collect();
    }
}

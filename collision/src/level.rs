//! Level geometry in convex pieces, for the queries that run on convex shapes only (casts,
//! overlaps, distances) and for continuous collision.
//!
//! In: a shape at a pose and a region of the world (a box). Out: the convex pieces of the shape
//! that may reach into the region: a convex shape is its own one piece; a mesh or height field
//! gives its triangles under the region; a half-space, a slab of it under the region (a box whose
//! top face lies on the plane, wider and deeper than the region, so that anything inside the
//! region meets the slab where it would meet the plane).
//!
//! A triangle is handed over centred on its centroid, so that GJK and EPA start from an offset
//! measured from the triangle itself, not from the mesh's far-away origin. Triangles are two-sided
//! here, as in parry3d's queries: a cast from below a floor mesh hits its underside. (The
//! manifold stage, which knows which side a solid lies on, keeps them one-sided: [`crate::mesh`].)

use parry3d::bounding_volume::{Aabb, BoundingVolume};
use parry3d::math::{Isometry, Point, Real, Translation, Vector};
use parry3d::na::{Unit, UnitQuaternion};
use parry3d::shape::Triangle;

use crate::cast::{time_of_impact, Motion, Toi};
use crate::contact::Contact;
use crate::epa;
use crate::shape::Shape;

/// Calls `f` with each convex piece of `shape` (at `pose`) that may reach into `region` (world),
/// and the piece's pose. A convex shape is passed as it is, whatever the region.
///
/// ```
/// use sprung_collision::{level, shape::Shape};
/// use sprung_collision::parry3d::bounding_volume::Aabb;
/// use sprung_collision::parry3d::math::{Isometry, Point, Vector};
///
/// // A floor of two squares of two triangles each; a box over the right square finds its two
/// // triangles (those whose bounding boxes meet the region), not the left square's.
/// let corners = vec![
///     Point::new(-2.0, 0.0, -1.0), Point::new(0.0, 0.0, -1.0), Point::new(2.0, 0.0, -1.0),
///     Point::new(-2.0, 0.0, 1.0), Point::new(0.0, 0.0, 1.0), Point::new(2.0, 0.0, 1.0),
/// ];
/// let triangles = vec![[0, 4, 1], [0, 3, 4], [1, 5, 2], [1, 4, 5]];
/// let floor = Shape::trimesh(corners, triangles).unwrap();
/// let region = Aabb::new(Point::new(1.2, -0.1, -0.2), Point::new(1.6, 0.1, 0.2));
/// let mut pieces = 0;
/// level::for_each_piece(&floor, &Isometry::identity(), &region, |piece, _| {
///     assert!(matches!(piece, Shape::Triangle(_)));
///     pieces += 1;
/// });
/// assert_eq!(pieces, 2);
/// ```
pub fn for_each_piece(
    shape: &Shape,
    pose: &Isometry<Real>,
    region: &Aabb,
    mut f: impl FnMut(&Shape, &Isometry<Real>),
) {
    let local = region.transform_by(&pose.inverse());
    let mut triangle = |t: &Triangle| {
        let centroid = Point::from((t.a.coords + t.b.coords + t.c.coords) / 3.0);
        let piece = Shape::Triangle(Triangle::new(
            t.a - centroid.coords,
            t.b - centroid.coords,
            t.c - centroid.coords,
        ));
        f(&piece, &(pose * Translation::from(centroid.coords)));
    };
    match shape {
        Shape::TriMesh(mesh) => {
            for id in mesh.bvh().intersect_aabb(&local) {
                triangle(&mesh.triangle(id));
            }
        }
        Shape::HeightField(field) => {
            field.map_elements_in_local_aabb(&local, &mut |_, t| triangle(t));
        }
        Shape::HalfSpace(half) => {
            if let Some((slab, at)) = slab_under(&half.normal, &local) {
                f(&slab, &(pose * at));
            }
        }
        convex => f(convex, pose),
    }
}

/// When convex `shape`, moving as `motion`, first comes within `target` (m) of any piece of
/// `other` (at `other_pose`) inside `region` (world: a box holding the sweep), within time
/// `max_t`. The normal runs from `shape` to `other`, as [`time_of_impact`]'s from A to B. A
/// half-space is met in closed form (exact) by a shape that does not turn; everything else by
/// conservative advancement, piece by piece.
///
/// A piece already within the target at the start is hit at `t = 0` if the target is zero
/// (touching), or if the shape moves towards it. A shape within a positive target of a piece
/// that it moves along or away from is not stopped by it: the target is a skin the shape keeps,
/// and a convex piece that the linear motion does not approach at the start it never
/// approaches (the distance between convex shapes along a line is a convex function of time).
/// "Towards" means by more than a thousandth of the speed, so that motion along a surface with
/// rounding in its normal is not stopped.
pub fn cast(
    shape: &Shape,
    motion: &Motion,
    max_t: Real,
    target: Real,
    other: &Shape,
    other_pose: &Isometry<Real>,
    region: &Aabb,
) -> Option<Toi> {
    // As time_of_impact: a NaN or negative time or a bad target has no answer.
    if max_t.is_nan() || max_t < 0.0 || !(target.is_finite() && target >= 0.0) {
        return None;
    }
    let (pose, velocity) = (&motion.start, &motion.linear_velocity);
    let numbers = pose
        .translation
        .vector
        .iter()
        .chain(pose.rotation.coords.iter());
    let finite = numbers
        .chain(velocity.iter())
        .chain(motion.angular_velocity.iter())
        .all(|x| x.is_finite());
    if !finite {
        return None; // as time_of_impact: no finite answer
    }
    let turning = motion.angular_velocity != Vector::zeros();
    if let (Shape::HalfSpace(half), false) = (other, turning) {
        let n = other_pose.rotation * half.normal.into_inner();
        let lowest = support(shape, pose, &-n);
        let height = (lowest - Point::from(other_pose.translation.vector)).dot(&n);
        let closing = -velocity.dot(&n);
        let t = if height <= target {
            if target > 0.0 && closing <= APPROACH * velocity.norm() {
                return None;
            }
            0.0
        } else if closing > 0.0 && (height - target) / closing <= max_t {
            (height - target) / closing
        } else {
            return None;
        };
        // The lowest point's height over the plane then: the target, or where it starts.
        let at = if t == 0.0 { height } else { target };
        let point_a = lowest + velocity * t;
        return Some(Toi {
            t,
            normal: -n,
            point_a,
            point_b: point_a - n * at,
            converged: true,
        });
    }
    let mut best: Option<Toi> = None;
    for_each_piece(other, other_pose, region, |piece, at| {
        let reach = best.map_or(max_t, |b| b.t);
        let toi = time_of_impact(shape, motion, piece, &Motion::fixed(*at), reach, target);
        if let Some(toi) = toi {
            let away = toi.t == 0.0
                && target > 0.0
                && velocity.dot(&toi.normal) <= APPROACH * velocity.norm();
            if !away && best.is_none_or(|b| toi.t < b.t) {
                best = Some(toi);
            }
        }
    });
    best
}

/// How fast (a fraction of the speed) a shape must close on a piece it is already within the
/// target of for the piece to stop it.
const APPROACH: Real = 1.0e-3;

/// Calls `f` with the contact of each piece of `other` (at `other_pose`) that is within
/// `margin` (m) of convex `shape` at `pose`: separation (negative overlapping), the normal from
/// the piece to `shape`, the point on the piece (`point_a`) and on `shape` (`point_b`). A
/// half-space gives one contact, in closed form; a mesh or height field one per nearby triangle.
pub fn contacts(
    shape: &Shape,
    pose: &Isometry<Real>,
    other: &Shape,
    other_pose: &Isometry<Real>,
    margin: Real,
    mut f: impl FnMut(Contact),
) {
    if let Shape::HalfSpace(half) = other {
        let n = other_pose.rotation * half.normal.into_inner();
        let lowest = support(shape, pose, &-n);
        let separation = (lowest - Point::from(other_pose.translation.vector)).dot(&n);
        if separation <= margin {
            f(Contact {
                separation,
                normal: n,
                point_a: lowest - n * separation,
                point_b: lowest,
            });
        }
        return;
    }
    let region = shape.aabb(pose).loosened(margin.max(0.0));
    for_each_piece(other, other_pose, &region, |piece, at| {
        if let Some(c) = epa::contact(piece, at, shape, pose, margin) {
            f(c);
        }
    });
}

/// The point of `shape` (at `pose`) farthest along world direction `dir`.
fn support(shape: &Shape, pose: &Isometry<Real>, dir: &Vector<Real>) -> Point<Real> {
    pose * shape.support(&pose.rotation.inverse_transform_vector(dir))
}

/// A box standing for the half-space of outward `normal` under `region` (both in the
/// half-space's frame): its top face on the plane, wider and deeper than the region. Convex and
/// finite, unlike the half-space, so GJK can run on it. `None` for a region too large for a box.
fn slab_under(normal: &Unit<Vector<Real>>, region: &Aabb) -> Option<(Shape, Isometry<Real>)> {
    let size = region.half_extents().norm() + 1.0;
    let centre = region.center();
    let on_plane = centre - normal.into_inner() * normal.dot(&centre.coords);
    let turn = UnitQuaternion::rotation_between(&Vector::y(), normal).unwrap_or_else(|| {
        UnitQuaternion::from_axis_angle(&Vector::x_axis(), std::f32::consts::PI)
    });
    let slab = Shape::cuboid(Vector::repeat(size)).ok()?;
    let at = Isometry::from_parts((on_plane - normal.into_inner() * size).into(), turn);
    Some((slab, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fuzzer finding: a cube already touching a half-space, cast with a negative time
    /// budget, was hit at t = 0 (past the budget). Bad budgets and targets give no hit, as
    /// `time_of_impact` gives none.
    #[test]
    fn bad_budgets_and_targets_give_no_hit() {
        let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
        let floor = Shape::halfspace(Vector::y()).unwrap();
        let motion = Motion::linear(Isometry::translation(0.0, 0.4, 0.0), -Vector::y());
        let region = cube.aabb(&motion.start).loosened(1.0);
        let at = Isometry::identity();
        let hit = |max_t, target| cast(&cube, &motion, max_t, target, &floor, &at, &region);
        assert!(hit(1.0, 0.0).is_some_and(|t| t.t == 0.0));
        for (max_t, target) in [(-1.0, 0.0), (Real::NAN, 0.0), (1.0, -0.1), (1.0, Real::NAN)] {
            assert!(hit(max_t, target).is_none(), "{max_t} {target}");
        }
    }
}

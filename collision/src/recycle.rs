//! Contact recycling: a touching pair whose relative pose moved little since its manifold was
//! made keeps that manifold, its points carried along with their colliders and their
//! separations updated from the motion (the narrow phase's module doc says why); and the bound
//! on how far any point of B moved relative to A that both recycling and the skip of pairs
//! kept apart rest on.

use parry3d::math::{Isometry, Point, Real, Vector};
use parry3d::na::UnitQuaternion;

use crate::contact::Manifold;
use crate::shape::Shape;

/// How far (m) any point of B can have moved relative to A since B's pose relative to A was
/// `was`, the colliders now being at `now`: the relative translation, plus the chord
/// `2 extent sin(angle / 2)` of the relative turn at B's farthest point.
#[inline]
pub(crate) fn drift(
    was: &Isometry<Real>,
    now: (&Isometry<Real>, &Isometry<Real>),
    extent_b: Real,
) -> Real {
    drift_between(was, &now.0.inv_mul(now.1), extent_b)
}

/// [`drift`] from B's relative pose now, `is`.
pub(crate) fn drift_between(was: &Isometry<Real>, is: &Isometry<Real>, extent_b: Real) -> Real {
    let moved = (is.translation.vector - was.translation.vector).norm();
    // The relative turn's half angle has cosine |q_is . q_was| (a 4D dot, cheaper than the
    // quaternion product whose imaginary part's length is its sine); the sine from it loses
    // precision near zero, so a little is added (1e-6 under the root: at most a millimetre
    // of chord for a metre of extent), which only makes the bound the safer.
    let cos = is.rotation.coords.dot(&was.rotation.coords).abs().min(1.0);
    let turn = ((1.0 - cos * cos) + 1.0e-6).sqrt();
    moved + 2.0 * extent_b * turn
}

/// Whether [`drift_between`] is below `tolerance`, decided without its square roots when
/// both its terms are well under half the tolerance (most recycled pairs, every step): the
/// roots' latency was a stall in each recycled pair's walk. With a tenth of the tolerance to
/// spare, rounding cannot make the two tests disagree; a tolerance that is not positive (only
/// a hostile snapshot holds one) goes to the exact test.
#[inline(always)]
pub(crate) fn within_drift(
    was: &Isometry<Real>,
    is: &Isometry<Real>,
    extent_b: Real,
    tolerance: Real,
) -> bool {
    let half = 0.45 * tolerance;
    let moved2 = (is.translation.vector - was.translation.vector).norm_squared();
    let cos = is.rotation.coords.dot(&was.rotation.coords).abs().min(1.0);
    let turn2 = (1.0 - cos * cos) + 1.0e-6;
    let arm = 2.0 * extent_b;
    if half > 0.0 && moved2 < half * half && arm * arm * turn2 < half * half {
        return true;
    }
    drift_between(was, is, extent_b) < tolerance
}

/// What `moved` (m, both proxies' motion since the last update) takes off a pair's `budget`:
/// a little more, so that rounding in the subtraction (half a unit in the last place of the
/// budget) and in the motions (each a few operations) can only make the skip the safer.
pub(crate) fn spent(budget: Real, moved: Real) -> Real {
    moved * (1.0 + 1.0e-4) + budget.abs() * 2.4e-7
}

/// How far (m) a touching pair's relative pose may move, at the farthest point of B, before its
/// manifold is made again (Box2D v3 and Box3D: 0.05 m, ten times their linear slop). Smaller
/// shapes use a tenth of their size, so that recycled points stay close to the ones clipping
/// would find.
///
/// A pair not yet touching (only speculative points) may move no farther than the distance
/// its query kept points within: the margin plus the reach its bodies' speeds gave it. A point
/// the clip left out lay farther than that, so none can have come into touch unseen while the
/// manifold is reused. (Box2D v3, Box3D and Rapier hold such pairs to the margin alone, 0.02
/// m: that made two in three of the manifolds `convex` made again while its pile settled.)
pub const RECYCLE_DISTANCE: Real = 0.05;

/// The smallest `cos^2` of half the angle either collider may turn (in world space) before its
/// pair's manifold is made again: 10 degrees, as Box3D. The normal and the points' offsets are
/// frozen in world orientation while recycled.
pub const RECYCLE_COS2_HALF_ANGLE: Real = 0.992_403_9;

/// The most a pair's reach (how far its bodies' speeds can carry them together in a step,
/// `ProxyShapes::speculative_distance`) may exceed its recycling tolerance for its manifold to
/// be kept for reuse: a pair closing faster than that has almost always drifted past the
/// tolerance by the next step, and the record cost more than the reuse saved. Counted on
/// `convex` (200 steps), by reach over tolerance, the share of manifolds reused the next step:
/// 98% below a quarter, 92% to a half, 73% to one, 27% to two, 4% to four, 0.5% beyond.
pub const RECYCLE_REACH: Real = 2.0;

/// A manifold's origin, kept to reuse it while the pair moves little (contact recycling).
///
/// The points' separations are kept in A's frame: a point of B, fixed in B, is `relative * l`
/// in A's frame, so its separation along A's normal `n_A` is `n_A . (t + R l) - n_A . a`, that
/// is `(R^T n_A) . l + n_A . t` less a constant. One turn of the normal per pair (by the
/// relative pose, which the tolerance test works out anyway) then gives every point's
/// separation by a dot product. It replaced four quaternion turns a pair: a recycled pair of
/// `pyramid` cost ~270 instructions less (~775 before).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Recycle {
    /// Both colliders' orientations when the manifold was made.
    rotation_a: UnitQuaternion<Real>,
    rotation_b: UnitQuaternion<Real>,
    /// B's pose relative to A's then.
    relative: Isometry<Real>,
    /// The normal in A's frame.
    normal_a: Vector<Real>,
    /// How far (m) the relative pose may move before the manifold is made again.
    tolerance: Real,
    /// The farthest point of B from its origin (m): a turn of angle t moves it by at most
    /// `2 extent sin(t / 2)`.
    extent_b: Real,
    /// Per point: its offsets from each collider's origin (world orientation, frozen), which
    /// place it, and its point on B in B's frame with the constant part of its separation
    /// (the separation less `n_A . (t + R l)` when it was made), which measure it.
    points: [RecyclePoint; 4],
}

/// One point of a [`Recycle`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct RecyclePoint {
    offset_a: Vector<Real>,
    offset_b: Vector<Real>,
    local_b: Vector<Real>,
    base: Real,
}

impl Recycle {
    /// What to keep of `manifold`, made at `pose_a`, `pose_b` by a query that kept points within
    /// `kept` (m; [`RECYCLE_DISTANCE`]) for a pair whose speeds can close `reach` (m) in a
    /// step; `None` for a manifold that cannot be reused (none, or more than four points) or
    /// would not be ([`RECYCLE_REACH`]).
    pub(crate) fn new(
        manifold: &Manifold,
        (sa, pose_a): (&Shape, &Isometry<Real>),
        (sb, pose_b): (&Shape, &Isometry<Real>),
        kept: Real,
        reach: Real,
    ) -> Option<Recycle> {
        if manifold.points.is_empty() || manifold.points.len() > 4 {
            return None;
        }
        let size = |s: &Shape| match s.scale() {
            x if x > 0.0 => x,
            _ => Real::INFINITY,
        };
        let distance = RECYCLE_DISTANCE.min(0.1 * size(sa).min(size(sb)));
        let touching = manifold.points.iter().any(|p| p.separation <= 0.0);
        let tolerance = if touching {
            distance
        } else {
            distance.min(kept)
        };
        if reach > RECYCLE_REACH * tolerance {
            return None;
        }
        let (oa, ob) = (pose_a.translation.vector, pose_b.translation.vector);
        let relative = pose_a.inv_mul(pose_b);
        let normal_a = pose_a.rotation.inverse_transform_vector(&manifold.normal);
        let turned = relative.rotation.inverse_transform_vector(&normal_a);
        let moved = normal_a.dot(&relative.translation.vector);
        let mut points = [RecyclePoint::default(); 4];
        for (p, q) in manifold.points.iter().zip(&mut points) {
            let local_b = pose_b.inverse_transform_point(&p.point_b).coords;
            *q = RecyclePoint {
                offset_a: p.point_a.coords - oa,
                offset_b: p.point_b.coords - ob,
                local_b,
                base: p.separation - (moved + turned.dot(&local_b)),
            };
        }
        Some(Recycle {
            rotation_a: pose_a.rotation,
            rotation_b: pose_b.rotation,
            relative,
            normal_a,
            tolerance,
            extent_b: sb.extent_from(&Point::origin()),
            points,
        })
    }

    /// Whether every number it keeps is finite (a snapshot's may not be).
    pub(crate) fn is_finite(&self) -> bool {
        let finite = |x: &Real| x.is_finite();
        self.rotation_a.coords.iter().all(finite)
            && self.rotation_b.coords.iter().all(finite)
            && self.relative.translation.vector.iter().all(finite)
            && self.relative.rotation.coords.iter().all(finite)
            && self.normal_a.iter().all(finite)
            && self.tolerance.is_finite()
            && self.extent_b.is_finite()
            && self.points.iter().all(|p| {
                (p.offset_a.iter())
                    .chain(p.offset_b.iter())
                    .chain(p.local_b.iter())
                    .all(finite)
                    && p.base.is_finite()
            })
    }

    /// Reuses the manifold if the colliders, now at `pose_a`, `pose_b`, are close enough to
    /// where it was made (neither turned past [`RECYCLE_COS2_HALF_ANGLE`], and no point of B
    /// moved farther than the tolerance relative to A): moves its points along with their
    /// colliders and updates their separations (the type's doc). Returns the nearest
    /// separation, or `None` (the manifold untouched) when it must be made again.
    pub(crate) fn apply(
        &self,
        manifold: &mut Manifold,
        pose_a: &Isometry<Real>,
        pose_b: &Isometry<Real>,
    ) -> Option<Real> {
        let turned = |now: &Isometry<Real>, then: &UnitQuaternion<Real>| {
            let c = now.rotation.coords.dot(&then.coords);
            c * c < RECYCLE_COS2_HALF_ANGLE
        };
        if turned(pose_a, &self.rotation_a) || turned(pose_b, &self.rotation_b) {
            return None;
        }
        let is = pose_a.inv_mul(pose_b);
        if !within_drift(&self.relative, &is, self.extent_b, self.tolerance) {
            return None;
        }
        let (oa, ob) = (pose_a.translation.vector, pose_b.translation.vector);
        let turned = is.rotation.inverse_transform_vector(&self.normal_a);
        let moved = self.normal_a.dot(&is.translation.vector);
        let mut nearest = Real::INFINITY;
        for (p, q) in manifold.points.iter_mut().zip(&self.points) {
            p.separation = q.base + (moved + turned.dot(&q.local_b));
            p.point_a = Point::from(oa + q.offset_a);
            p.point_b = Point::from(ob + q.offset_b);
            nearest = nearest.min(p.separation);
        }
        Some(nearest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The drift test without square roots decides as the one with them: over random relative
    /// poses whose drift lies anywhere from far below the tolerance to past it, and for
    /// tolerances that are not positive.
    #[test]
    fn the_drift_test_without_roots_decides_as_the_one_with_them() {
        let mut uniform = crate::testing::uniform(0x5EED_D81F);
        let mut next = move || uniform() + 0.5;
        let (mut fast, mut kept) = (0, 0);
        for _ in 0..100_000 {
            let scale = [1.0e-4, 1.0e-3, 1.0e-2, 0.05][(next() * 4.0) as usize % 4];
            let (extent, tolerance) = (0.1 + next(), 0.001 + 0.1 * next());
            let mut vector =
                |scale: Real| Vector::new(next(), next(), next()).add_scalar(-0.5) * scale;
            let was = Isometry::new(vector(2.0), vector(3.0));
            let (shift, turn) = (vector(scale), vector(scale));
            let is = Isometry::new(shift + was.translation.vector, turn) * was.rotation;
            let exact = drift_between(&was, &is, extent) < tolerance;
            assert_eq!(within_drift(&was, &is, extent, tolerance), exact);
            assert!(!within_drift(&was, &is, extent, -tolerance));
            assert!(!within_drift(&was, &is, extent, 0.0));
            kept += usize::from(exact);
            let half = 0.45 * tolerance;
            let moved = (is.translation.vector - was.translation.vector).norm();
            fast += usize::from(moved < half && drift_between(&was, &is, extent) < half);
        }
        // Both outcomes, and the shortcut taken, many times over.
        assert!(
            kept > 10_000 && kept < 90_000 && fast > 5_000,
            "{kept} kept, {fast} fast"
        );
    }

    /// `drift` bounds how far any point of B within its extent moved relative to A: checked
    /// on points of B's extent sphere against the relative poses themselves, for small and
    /// large turns (the skip of pairs kept apart is exact only if it never underestimates).
    #[test]
    fn drift_bounds_the_motion_of_every_point_of_b() {
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 40) as Real / (1u64 << 24) as Real) * 2.0 - 1.0
        };
        for case in 0..2000 {
            let scale = [1.0e-4, 1.0e-2, 1.0][case % 3];
            let mut pose = |s: Real| {
                Isometry::new(
                    Vector::new(next(), next(), next()) * 3.0,
                    Vector::new(next(), next(), next()) * s,
                )
            };
            let (a0, b0) = (pose(3.0), pose(3.0));
            let (a1, b1) = (
                a0 * Isometry::new(
                    Vector::new(next(), next(), next()) * scale,
                    Vector::new(next(), next(), next()) * scale,
                ),
                b0 * Isometry::new(
                    Vector::new(next(), next(), next()) * scale,
                    Vector::new(next(), next(), next()) * scale,
                ),
            );
            let extent = 0.5 + next().abs();
            let was = a0.inv_mul(&b0);
            let is = a1.inv_mul(&b1);
            let bound = drift(&was, (&a1, &b1), extent);
            for _ in 0..20 {
                let p = Point::from(Vector::new(next(), next(), next()).normalize() * extent);
                let moved = ((is * p) - (was * p)).norm();
                assert!(
                    moved <= bound * (1.0 + 1.0e-5) + 1.0e-6,
                    "{moved} > {bound}"
                );
            }
        }
    }
}

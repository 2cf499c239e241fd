//! Time of impact by conservative advancement (Mirtich, "Impulse-based Dynamic Simulation of
//! Rigid Body Systems", 1996, ch. 3; Zhang, Redon, Lee and Kim, "Continuous Collision Detection
//! for Articulated Models using Taylor Models and Temporal Culling", SIGGRAPH 2007).
//!
//! In: two shapes, each with a [`Motion`] (constant linear and angular velocity), a time budget
//! and a target distance. Out: the first time the shapes come within the target distance, with
//! the normal and the closest points then.
//!
//! At time `t` the shapes are `d` apart along the unit normal `n` (from A to B). Along that
//! fixed axis, no point of A gains on B faster than
//! `mu = (v_a - v_b) . n + |w_a| r_a + |w_b| r_b`, where `r` is the farthest point of a shape's
//! core from the centre it turns about (the sphere swept around the core turns into itself,
//! so a ball spinning about its centre adds nothing). The gap along `n` bounds the distance from below, so the
//! shapes cannot come within the target before `t + (d - target) / mu`: advance there and ask
//! again. The steps never overshoot, so the answer is never late; `mu <= 0` means the gap
//! along `n` never closes and they never meet. A linear cast against a face needs one step;
//! turning shapes need more.

use parry3d::math::{Isometry, Point, Real, Vector};
use parry3d::na::UnitQuaternion;

use crate::epa;
use crate::shape::Shape;
use crate::unit::unit_vector;

/// Steps before giving up; each is one GJK (and EPA when touching) call.
const MAX_ITERATIONS: usize = 128;
/// Within this fraction of the shapes' size of the target distance counts as arrived.
const RELATIVE_TOLERANCE: Real = 1.0e-5;
/// And never tighter than this (m): f32 GJK is not more precise.
const ABSOLUTE_TOLERANCE: Real = 1.0e-6;

/// How a shape moves during a cast: from `start`, the point `local_center` of the shape
/// travels at `linear_velocity` (m/s) while the shape turns about it at `angular_velocity`
/// (rad/s, world axes). A body turns about its centre of mass, so pass that as the centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion {
    /// The pose at time 0.
    pub start: Isometry<Real>,
    /// Velocity of `local_center` (m/s).
    pub linear_velocity: Vector<Real>,
    /// Angular velocity (rad/s).
    pub angular_velocity: Vector<Real>,
    /// The point the shape turns about, in the shape's frame (default: its origin).
    pub local_center: Point<Real>,
}

impl Motion {
    /// Moving at `linear_velocity` and turning at `angular_velocity` about the shape's origin.
    pub fn new(
        start: Isometry<Real>,
        linear_velocity: Vector<Real>,
        angular_velocity: Vector<Real>,
    ) -> Self {
        Motion {
            start,
            linear_velocity,
            angular_velocity,
            local_center: Point::origin(),
        }
    }

    /// Sliding at `velocity` without turning.
    pub fn linear(start: Isometry<Real>, velocity: Vector<Real>) -> Self {
        Motion::new(start, velocity, Vector::zeros())
    }

    /// Not moving.
    pub fn fixed(start: Isometry<Real>) -> Self {
        Motion::new(start, Vector::zeros(), Vector::zeros())
    }

    /// The same motion turning about `local_center` (shape frame) instead of the origin.
    pub fn about(mut self, local_center: Point<Real>) -> Self {
        self.local_center = local_center;
        self
    }

    /// The pose at time `t` (s).
    pub fn pose_at(&self, t: Real) -> Isometry<Real> {
        let rotation = turn(&self.angular_velocity, t) * self.start.rotation;
        let center = self.start * self.local_center + self.linear_velocity * t;
        Isometry::from_parts((center - rotation * self.local_center).into(), rotation)
    }
}

/// The first time two moving shapes come within the target distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Toi {
    /// The time (s, or in the velocities' units).
    pub t: Real,
    /// Unit normal from A to B at `t` (world).
    pub normal: Vector<Real>,
    /// The point of A closest to B at `t` (world).
    pub point_a: Point<Real>,
    /// The point of B closest to A at `t` (world).
    pub point_b: Point<Real>,
    /// False if the iteration budget ran out first: `t` is then a time before any impact
    /// (the shapes are still apart there), not the impact.
    pub converged: bool,
}

/// The first time in `[0, max_t]` at which `a` and `b`, moving as `motion_a` and `motion_b`,
/// come within `target_distance` (m, >= 0) of each other; `t = 0` if they already are
/// (overlapping shapes included: the normal is then EPA's).
///
/// The answer is never later than the true one, and within a relative 1e-5 of the shapes'
/// size in distance. If the iteration budget runs out first (shapes turning many times
/// faster than they approach), the last safe time is returned with `converged` false: an
/// early stop, never a tunnel.
/// Non-finite input, a negative target or a negative or NaN `max_t` give `None`, and so does a
/// motion that carries a pose past f32's range before an impact.
///
/// ```
/// use sprung_collision::cast::{time_of_impact, Motion};
/// use sprung_collision::shape::Shape;
/// use sprung_collision::parry3d::math::{Isometry, Vector};
///
/// // A 5 cm bullet at 300 m/s against a 10 cm wall 2 m away: it arrives after 1.95 / 300 s.
/// let bullet = Shape::sphere(0.05).unwrap();
/// let wall = Shape::cuboid(Vector::new(0.05, 2.0, 2.0)).unwrap();
/// let shot = Motion::linear(Isometry::translation(-2.0, 0.0, 0.0), Vector::new(300.0, 0.0, 0.0));
/// let toi = time_of_impact(&bullet, &shot, &wall, &Motion::fixed(Isometry::identity()), 1.0 / 60.0, 0.0)
///     .unwrap();
/// assert!((toi.t - 1.9 / 300.0).abs() < 1e-6);
/// ```
pub fn time_of_impact(
    a: &Shape,
    motion_a: &Motion,
    b: &Shape,
    motion_b: &Motion,
    max_t: Real,
    target_distance: Real,
) -> Option<Toi> {
    let valid_target = target_distance.is_finite() && target_distance >= 0.0;
    if !(finite_motion(motion_a) && finite_motion(motion_b) && valid_target)
        || max_t.is_nan()
        || max_t < 0.0
    {
        return None;
    }
    let reach_a = a.core_extent_from(&motion_a.local_center);
    let reach_b = b.core_extent_from(&motion_b.local_center);
    // The angular part of mu is the same along every axis. A core with no reach (a ball about
    // its centre) adds nothing however fast it spins (and no 0 * infinity).
    let sweep = |w: &Vector<Real>, reach: Real| if reach > 0.0 { length(w) * reach } else { 0.0 };
    let turning =
        sweep(&motion_a.angular_velocity, reach_a) + sweep(&motion_b.angular_velocity, reach_b);
    let relative = motion_a.linear_velocity - motion_b.linear_velocity;
    // Velocities of opposite sign near f32's largest value overflow in the difference: no
    // finite answer exists, as for infinite input.
    if !relative.iter().all(|x| x.is_finite()) {
        return None;
    }
    let size = a.extent_from(&motion_a.local_center) + b.extent_from(&motion_b.local_center);
    let tolerance = (RELATIVE_TOLERANCE * size).max(ABSOLUTE_TOLERANCE);
    let mut t: Real = 0.0;
    let mut last = None;
    for _ in 0..MAX_ITERATIONS {
        let (pose_a, pose_b) = (motion_a.pose_at(t), motion_b.pose_at(t));
        // A speed near f32's largest carries a pose past it (1.8e38 m/s for 2 s: a fuzzer
        // finding, with NaN witness points): no finite answer exists from there on.
        if !(finite_pose(&pose_a) && finite_pose(&pose_b)) {
            return None;
        }
        let contact = epa::contact(a, &pose_a, b, &pose_b, Real::INFINITY)?;
        let toi = Toi {
            t,
            normal: contact.normal,
            point_a: contact.point_a,
            point_b: contact.point_b,
            converged: true,
        };
        let gap = contact.separation - target_distance;
        if gap <= tolerance {
            return Some(toi);
        }
        last = Some(toi);
        let closing = relative.dot(&contact.normal) + turning;
        if closing <= 0.0 {
            return None;
        }
        let next = t + gap / closing;
        if next > max_t {
            return None;
        }
        if next == t {
            return last; // the step is below f32 resolution at this time: as close as it gets
        }
        t = next;
    }
    last.map(|toi| Toi {
        converged: false,
        ..toi
    })
}

/// The rotation of angular velocity `w` (rad/s) over `t` (s). The axis is made unit without
/// squaring `w` (nalgebra's `from_scaled_axis` squares it: a speed of 1e20 rad/s would give an
/// infinite norm and a NaN rotation); the angle is taken modulo a full turn. An angle past f32
/// (more turns than it can count) has no meaningful phase: it counts as no turn, which
/// changes nothing for the shapes whose reach about the centre is zero, the only ones
/// conservative advancement lets get that far.
fn turn(w: &Vector<Real>, t: Real) -> UnitQuaternion<Real> {
    let Some(axis) = unit_vector(w) else {
        return UnitQuaternion::identity();
    };
    let largest = w.amax();
    let angle = largest * (w / largest).norm() * t;
    if !angle.is_finite() {
        return UnitQuaternion::identity();
    }
    UnitQuaternion::from_axis_angle(&axis, angle.rem_euclid(std::f32::consts::TAU))
}

/// `|v|` without overflow (infinite only past f32's largest value).
fn length(v: &Vector<Real>) -> Real {
    let largest = v.amax();
    if largest > 0.0 {
        largest * (v / largest).norm()
    } else {
        0.0
    }
}

fn finite_pose(pose: &Isometry<Real>) -> bool {
    let translation = pose.translation.vector.iter();
    translation
        .chain(pose.rotation.coords.iter())
        .all(|x| x.is_finite())
}

fn finite_motion(m: &Motion) -> bool {
    let values = m
        .start
        .translation
        .vector
        .iter()
        .chain(m.start.rotation.coords.iter());
    values
        .chain(m.linear_velocity.iter())
        .chain(m.angular_velocity.iter())
        .chain(m.local_center.coords.iter())
        .all(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn already_touching_is_time_zero() {
        let ball = Shape::sphere(0.5).unwrap();
        let a = Motion::fixed(Isometry::identity());
        let b = Motion::linear(Isometry::translation(0.9, 0.0, 0.0), Vector::x());
        let toi = time_of_impact(&ball, &a, &ball, &b, 1.0, 0.0).unwrap();
        assert_eq!(toi.t, 0.0);
        assert!((toi.normal - Vector::x()).norm() < 1e-5);
    }

    #[test]
    fn separating_shapes_never_meet() {
        let ball = Shape::sphere(0.5).unwrap();
        let a = Motion::fixed(Isometry::identity());
        let b = Motion::linear(Isometry::translation(2.0, 0.0, 0.0), Vector::x());
        assert!(time_of_impact(&ball, &a, &ball, &b, Real::INFINITY, 0.0).is_none());
    }

    #[test]
    fn target_distance_stops_short() {
        let ball = Shape::sphere(0.5).unwrap();
        let a = Motion::linear(Isometry::identity(), Vector::x());
        let b = Motion::fixed(Isometry::translation(3.0, 0.0, 0.0));
        let toi = time_of_impact(&ball, &a, &ball, &b, 10.0, 0.25).unwrap();
        assert!((toi.t - 1.75).abs() < 1e-5, "{toi:?}");
    }

    #[test]
    fn turning_about_a_centre() {
        // A rod turning a quarter turn about its end sweeps onto a ball.
        let rod = Shape::cuboid(Vector::new(1.0, 0.05, 0.05)).unwrap();
        let turn = Motion::new(Isometry::identity(), Vector::zeros(), Vector::z())
            .about(Point::new(-1.0, 0.0, 0.0));
        let ball = Shape::sphere(0.1).unwrap();
        let at = Motion::fixed(Isometry::translation(-1.0, 1.5, 0.0));
        let toi = time_of_impact(&rod, &turn, &ball, &at, 2.0, 0.0).unwrap();
        // The rod's top face (0.05 off its axis) touches the ball's bottom (1.4 up) when
        // its axis is at angle t: asin-free check by stepping poses instead.
        let pose = turn.pose_at(toi.t);
        let d = crate::gjk::distance(&rod, &pose, &ball, &at.start);
        assert!(d.separation < 1e-4, "{toi:?} {d:?}");
        let before = turn.pose_at(toi.t * 0.99);
        assert!(crate::gjk::distance(&rod, &before, &ball, &at.start).separation > 0.0);
    }
}

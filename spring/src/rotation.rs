//! Rotation variants: the damper and the critical spring on unit quaternions.
//!
//! After Daniel Holden, "Spring-It-On" (the quaternion spring): the offset from the goal,
//! `q goal^-1`, is turned into a rotation vector (axis times angle, rad) by the logarithm map,
//! taking the shortest way (angle at most pi); the scalar maths runs on that vector; the
//! exponential map turns it back: `q = exp(r) goal`. The offset is on the left, so angular
//! velocities are in the world frame (rad/s). Holden's version takes the rate of the rotation
//! vector as the angular velocity, which is only true while the offset keeps its axis; here the
//! angular velocity is converted to and from that rate through the Jacobian of the exponential
//! map, so it is the true angular velocity (what inertialization needs to be continuous), and
//! the motion is unchanged.
//!
//! Both are frame-rate independent as long as the offset stays under half a turn (the log map
//! wraps at pi: beyond it, the short way is the other way round).

use super::critical::CriticalStep;
use super::damper::damper_alpha;
use super::{lerp, SpringValue};
use crate::{Quaternion, Real, Vector};

/// The rotation vector (unit axis times angle, rad, angle in `[0, pi]`) of the unit quaternion
/// `q`: the logarithm map, the short way round (`q` and `-q` give the same vector). Accurate for
/// small angles (uses `atan2`, not `acos`).
pub fn rotation_vector(q: &Quaternion) -> Vector {
    let q = q.quaternion();
    let (mut w, mut v) = (q.w, q.imag());
    if w < 0.0 {
        w = -w;
        v = -v;
    }
    let n = v.norm();
    if n > 1e-6 {
        v * (2.0 * n.atan2(w) / n)
    } else {
        // angle = 2 atan(n / w) ~ 2 n / w, and w ~ 1 here.
        v * (2.0 / w.max(Real::MIN_POSITIVE))
    }
}

/// The unit quaternion of rotation vector `r` (axis times angle, rad): the exponential map,
/// normalised. Accurate for small angles.
pub fn from_rotation_vector(r: Vector) -> Quaternion {
    let angle = r.norm();
    let half = 0.5 * angle;
    let s = if angle > 1e-4 {
        half.sin() / angle
    } else {
        0.5 - angle * angle / 48.0
    };
    Quaternion::from_quaternion(nalgebra::Quaternion::new(
        half.cos(),
        r.x * s,
        r.y * s,
        r.z * s,
    ))
}

/// `J(r) w` for the left Jacobian of the exponential map: the world angular velocity of
/// `exp(r(t))` when the rotation vector `r` changes at rate `w`.
/// `J(r) = I + (1 - cos t) / t^2 [r]x + (t - sin t) / t^3 [r]x^2`, `t = |r|`.
fn exp_jacobian(r: Vector, w: Vector) -> Vector {
    let angle = r.norm();
    let (a, b) = if angle < 0.1 {
        let t2 = angle * angle;
        (0.5 - t2 / 24.0, 1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0)
    } else {
        let half_sin = (0.5 * angle).sin();
        let t2 = angle * angle;
        (
            2.0 * half_sin * half_sin / t2,
            (angle - angle.sin()) / (t2 * angle),
        )
    };
    let rw = r.cross(&w);
    w + rw * a + r.cross(&rw) * b
}

/// `J(r)^-1 w`: the rate of the rotation vector `r` for the world angular velocity `w`.
/// `J(r)^-1 = I - [r]x / 2 + (1 - (t/2) cot(t/2)) / t^2 [r]x^2`, finite for `t <= pi`.
fn exp_jacobian_inverse(r: Vector, w: Vector) -> Vector {
    let angle = r.norm();
    let c = if angle < 0.1 {
        let t2 = angle * angle;
        1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0
    } else {
        let half = 0.5 * angle;
        (1.0 - half * half.cos() / half.sin()) / (angle * angle)
    };
    let rw = r.cross(&w);
    w - rw * 0.5 + r.cross(&rw) * c
}

/// Eases rotation `q` towards `goal` with the exact exponential damper of `halflife` (s) over
/// `dt` (s), the short way: the offset's angle is multiplied by `2^(-dt / halflife)`. Returns
/// the new rotation. Bad input as for [`super::damper()`]: `q` unchanged for a bad `dt` or a NaN
/// or negative halflife, `goal` for a zero halflife.
pub fn quaternion_damper(q: Quaternion, goal: Quaternion, halflife: Real, dt: Real) -> Quaternion {
    let alpha = damper_alpha(halflife, dt);
    if alpha == 0.0 {
        return q;
    }
    let offset = rotation_vector(&(q * goal.inverse()));
    from_rotation_vector(lerp(offset, Vector::zero(), alpha)) * goal
}

/// Steps rotation `q` and world-frame angular velocity `angular_velocity` (rad/s) of the
/// critical spring of `halflife` (s) towards `goal` (at rest) by `dt` (s), the short way:
/// released from rest it turns half the angle in one halflife, without overshoot. Bad input as
/// for the critical springs: a no-op for a bad `dt` or a NaN or negative halflife, a snap to
/// `goal` at rest for a zero halflife.
pub fn quaternion_spring(
    q: &mut Quaternion,
    angular_velocity: &mut Vector,
    goal: Quaternion,
    halflife: Real,
    dt: Real,
) {
    let step = CriticalStep::new(halflife, dt);
    if step == CriticalStep::IDENTITY {
        return;
    }
    let offset = rotation_vector(&(*q * goal.inverse()));
    let rate = exp_jacobian_inverse(offset, *angular_velocity);
    let (offset, rate) = step.homogeneous(offset, rate);
    *q = from_rotation_vector(offset) * goal;
    *angular_velocity = exp_jacobian(offset, rate);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simple_spring_damper;
    use std::f32::consts::PI;

    /// Angle (rad) between two rotations, accurate when small.
    fn angle_between(a: &Quaternion, b: &Quaternion) -> Real {
        rotation_vector(&(a * b.inverse())).norm()
    }

    #[test]
    fn log_and_exp_round_trip() {
        let axis = Vector::new(1.0, -2.0, 0.5).normalize();
        for angle in [0.0, 1e-7, 1e-4, 0.3, 2.0, PI - 1e-3] {
            let r = axis * angle;
            let q = from_rotation_vector(r);
            assert!((q.quaternion().norm() - 1.0).abs() < 1e-6);
            assert!(
                (rotation_vector(&q) - r).norm() < 1e-6 + 1e-6 * angle,
                "{angle}"
            );
            // Same rotation from the other hemisphere.
            let flipped = Quaternion::new_unchecked(-q.into_inner());
            assert!((rotation_vector(&flipped) - r).norm() < 1e-6 + 1e-6 * angle);
            let nalgebra_q = Quaternion::from_scaled_axis(r);
            assert!(angle_between(&q, &nalgebra_q) < 1e-6);
        }
    }

    #[test]
    fn jacobians_give_the_world_angular_velocity() {
        let w = Vector::new(0.3, -1.0, 2.0);
        for angle in [0.0, 0.05, 0.5, 2.0, 3.1] {
            let r = Vector::new(1.0, 2.0, -0.5).normalize() * angle;
            let rate = Vector::new(-0.7, 0.2, 0.4);
            // Finite difference of exp(r + rate h) exp(r)^-1, central, in f64-free f32.
            let h = 1e-3;
            let ahead = from_rotation_vector(r + rate * h);
            let behind = from_rotation_vector(r - rate * h);
            let numeric = rotation_vector(&(ahead * behind.inverse())) / (2.0 * h);
            assert!((exp_jacobian(r, rate) - numeric).norm() < 2e-3, "{angle}");
            let back = exp_jacobian(r, exp_jacobian_inverse(r, w));
            assert!((back - w).norm() < 1e-5, "{angle}");
        }
    }

    #[test]
    fn spring_converges_and_stays_unit() {
        let goal = Quaternion::from_euler_angles(0.4, -1.2, 2.0);
        let mut q = Quaternion::from_euler_angles(-1.0, 0.5, 0.1);
        let mut w = Vector::new(3.0, -1.0, 2.0);
        for _ in 0..(60 * 5) {
            quaternion_spring(&mut q, &mut w, goal, 0.25, 1.0 / 60.0);
            assert!((q.quaternion().norm() - 1.0).abs() < 1e-6);
        }
        assert!(angle_between(&q, &goal) < 1e-4 && w.norm() < 1e-3);
    }

    #[test]
    fn spring_takes_the_short_way() {
        // Goal: 350 degrees about z, i.e. 10 degrees the other way.
        let goal = Quaternion::from_axis_angle(&Vector::z_axis(), 350.0_f32.to_radians());
        for goal in [goal, Quaternion::new_unchecked(-goal.into_inner())] {
            let mut q = Quaternion::identity();
            let mut w = Vector::zeros();
            let mut previous = angle_between(&q, &goal);
            for _ in 0..600 {
                quaternion_spring(&mut q, &mut w, goal, 0.2, 1.0 / 60.0);
                // Never further than 10 degrees from the start, always closer to the goal.
                assert!(angle_between(&q, &Quaternion::identity()) <= 10.0_f32.to_radians() + 1e-5);
                let now = angle_between(&q, &goal);
                assert!(now <= previous + 1e-6);
                previous = now;
                // It turns about -z.
                assert!(w.z <= 1e-6 && w.x.abs() < 1e-5 && w.y.abs() < 1e-5);
            }
            assert!(previous < 1e-4);
        }
    }

    #[test]
    fn spring_follows_the_scalar_spring_and_is_frame_rate_independent() {
        let axis = Vector::new(0.0, 0.6, 0.8);
        let goal = Quaternion::from_axis_angle(&nalgebra::Unit::new_normalize(axis), 0.5);
        let start = Quaternion::from_axis_angle(&nalgebra::Unit::new_normalize(axis), 2.0);
        let (mut q, mut w) = (start, Vector::zeros());
        quaternion_spring(&mut q, &mut w, goal, 0.3, 0.45);
        // About a fixed axis, the angle is the scalar simple spring.
        let (mut angle, mut rate) = (2.0_f32, 0.0_f32);
        simple_spring_damper(&mut angle, &mut rate, 0.5, 0.3, 0.45);
        let expected = Quaternion::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle);
        assert!(angle_between(&q, &expected) < 1e-5);
        assert!((w - axis * rate).norm() < 1e-5);
        for n in [2, 7, 16] {
            let (mut qn, mut wn) = (start, Vector::new(0.5, -0.2, 0.1));
            let (mut q1, mut w1) = (qn, wn);
            quaternion_spring(&mut q1, &mut w1, goal, 0.3, 0.45);
            for _ in 0..n {
                quaternion_spring(&mut qn, &mut wn, goal, 0.3, 0.45 / n as Real);
            }
            assert!(
                angle_between(&qn, &q1) < 1e-5 && (wn - w1).norm() < 1e-5,
                "n {n}"
            );
        }
    }

    #[test]
    fn damper_halves_the_angle_the_short_way() {
        let goal = Quaternion::from_axis_angle(&Vector::x_axis(), -170.0_f32.to_radians());
        let start = Quaternion::from_axis_angle(&Vector::x_axis(), 170.0_f32.to_radians());
        let q = quaternion_damper(start, goal, 0.5, 0.5);
        // 20 degrees apart the short way (through 180): half of it left.
        assert!((angle_between(&q, &goal) - 10.0_f32.to_radians()).abs() < 1e-4);
        assert!((angle_between(&q, &start) - 10.0_f32.to_radians()).abs() < 1e-4);
        let mut q2 = start;
        for _ in 0..10 {
            q2 = quaternion_damper(q2, goal, 0.5, 0.05);
        }
        assert!(angle_between(&q, &q2) < 1e-5);
    }

    #[test]
    fn bad_input() {
        let goal = Quaternion::from_euler_angles(0.1, 0.2, 0.3);
        let q0 = Quaternion::from_euler_angles(1.0, 0.0, 0.0);
        let w0 = Vector::new(1.0, 2.0, 3.0);
        for (halflife, dt) in [(0.2, 0.0), (0.2, Real::NAN), (-1.0, 0.1), (Real::NAN, 0.1)] {
            let (mut q, mut w) = (q0, w0);
            quaternion_spring(&mut q, &mut w, goal, halflife, dt);
            assert_eq!((q, w), (q0, w0));
            assert_eq!(quaternion_damper(q0, goal, halflife, dt), q0);
        }
        let (mut q, mut w) = (q0, w0);
        quaternion_spring(&mut q, &mut w, goal, 0.0, 0.1);
        assert!(angle_between(&q, &goal) < 1e-6 && w == Vector::zeros());
        assert!(angle_between(&quaternion_damper(q0, goal, 0.0, 0.1), &goal) < 1e-6);
    }
}

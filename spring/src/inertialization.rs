//! Inertialization: switching between two animations without a pop, by recording their offset
//! at the switch and decaying it to zero with the decay spring.
//!
//! After Daniel Holden, "Spring-It-On" (inertialization with springs, in place of the
//! polynomial of David Bollo's "Inertialization: High-Performance Animation Transitions in Gears
//! of War"). Only the new animation is evaluated after the switch: the output is the new
//! animation plus an offset (and offset velocity) that starts at "old output minus new
//! animation", so position and velocity are continuous, and decays critically to zero.

use super::critical::CriticalStep;
use super::rotation::quaternion_spring;
use super::SpringValue;
use crate::{Quaternion, Real, Vector};

/// The offset of an inertialized value (`f32` or vector): add it to the playing animation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inertializer<T> {
    /// Output minus the playing animation (value units).
    pub offset: T,
    /// Rate of the offset (value units per s).
    pub offset_velocity: T,
}

impl<T: SpringValue> Default for Inertializer<T> {
    fn default() -> Self {
        Inertializer {
            offset: T::zero(),
            offset_velocity: T::zero(),
        }
    }
}

impl<T: SpringValue> Inertializer<T> {
    /// No offset: the output is the animation.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a switch from the source animation (`source`, `source_velocity`: its value and
    /// rate now) to the destination animation (`destination`, `destination_velocity`), so that
    /// the output (destination plus offset) equals the output before the switch (source plus
    /// the old offset), in value and rate. Works mid-transition too.
    pub fn transition(
        &mut self,
        source: T,
        source_velocity: T,
        destination: T,
        destination_velocity: T,
    ) {
        self.offset = source + self.offset - destination;
        self.offset_velocity = source_velocity + self.offset_velocity - destination_velocity;
    }

    /// Decays the offset over `dt` (s) with the decay spring of `halflife` (s) and returns the
    /// output `(value, rate)` for the playing animation's `value` and `velocity` (rate per s).
    /// Bad input as for the critical springs: a bad `dt` or a NaN or negative halflife leaves
    /// the offset as it is (the output is still animation plus offset); a zero halflife drops
    /// the offset at once.
    pub fn update(&mut self, value: T, velocity: T, halflife: Real, dt: Real) -> (T, T) {
        CriticalStep::new(halflife, dt).apply_decay(&mut self.offset, &mut self.offset_velocity);
        self.output(value, velocity)
    }

    /// The output `(value, rate)` for the playing animation's `value` and `velocity`, without
    /// advancing time.
    pub fn output(&self, value: T, velocity: T) -> (T, T) {
        (value + self.offset, velocity + self.offset_velocity)
    }
}

/// The offset of an inertialized rotation: the output is `offset * animation`, and its world
/// angular velocity `offset_velocity + offset.rotate(animation angular velocity)` (the exact
/// composition, world frames).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RotationInertializer {
    /// Rotation taking the playing animation to the output.
    pub offset: Quaternion,
    /// Angular velocity of the offset (rad/s, world frame).
    pub offset_velocity: Vector,
}

impl Default for RotationInertializer {
    fn default() -> Self {
        RotationInertializer {
            offset: Quaternion::identity(),
            offset_velocity: Vector::zeros(),
        }
    }
}

impl RotationInertializer {
    /// No offset: the output is the animation.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a switch from the source rotation and angular velocity (rad/s, world frame) to
    /// the destination ones, keeping the output rotation and angular velocity continuous.
    pub fn transition(
        &mut self,
        source: Quaternion,
        source_velocity: Vector,
        destination: Quaternion,
        destination_velocity: Vector,
    ) {
        let (rotation, velocity) = self.output(source, source_velocity);
        self.offset = rotation * destination.inverse();
        self.offset_velocity = velocity - self.offset * destination_velocity;
    }

    /// Decays the offset over `dt` (s) with the quaternion spring of `halflife` (s) towards
    /// the identity, the short way, and returns the output `(rotation, angular velocity)` for
    /// the playing animation's rotation and angular velocity (rad/s, world frame). Bad input
    /// as for [`Inertializer::update`].
    pub fn update(
        &mut self,
        rotation: Quaternion,
        angular_velocity: Vector,
        halflife: Real,
        dt: Real,
    ) -> (Quaternion, Vector) {
        quaternion_spring(
            &mut self.offset,
            &mut self.offset_velocity,
            Quaternion::identity(),
            halflife,
            dt,
        );
        self.output(rotation, angular_velocity)
    }

    /// The output `(rotation, angular velocity)` for the playing animation's, without
    /// advancing time.
    pub fn output(&self, rotation: Quaternion, angular_velocity: Vector) -> (Quaternion, Vector) {
        (
            self.offset * rotation,
            self.offset_velocity + self.offset * angular_velocity,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rotation::rotation_vector;

    // Two animations and their rates.
    fn a(t: Real) -> (Vector, Vector) {
        let p = Vector::new(t.sin(), 0.5 * t, (2.0 * t).cos());
        let v = Vector::new(t.cos(), 0.5, -2.0 * (2.0 * t).sin());
        (p, v)
    }
    fn b(t: Real) -> (Vector, Vector) {
        let p = Vector::new(2.0 + (1.3 * t).cos(), -t, 1.0);
        let v = Vector::new(-1.3 * (1.3 * t).sin(), -1.0, 0.0);
        (p, v)
    }

    #[test]
    fn continuous_at_transitions_and_decays() {
        let (dt, halflife) = (1.0 / 60.0, 0.2);
        let mut inert = Inertializer::new();
        let mut playing_a = true;
        let mut t = 0.0;
        let (mut out, mut out_v) = inert.update(a(0.0).0, a(0.0).1, halflife, dt);
        for frame in 1..400 {
            // Switch at frames 60 and 75 (mid-transition) and 90.
            if [60, 75, 90].contains(&frame) {
                let (src, dst) = if playing_a {
                    (a(t), b(t))
                } else {
                    (b(t), a(t))
                };
                inert.transition(src.0, src.1, dst.0, dst.1);
                playing_a = !playing_a;
                // At the switch the output is the old output, value and rate.
                let now = inert.output(dst.0, dst.1);
                assert!((now.0 - out).norm() < 1e-5 && (now.1 - out_v).norm() < 1e-5);
            }
            t += dt;
            let anim = if playing_a { a(t) } else { b(t) };
            let (next, next_v) = inert.update(anim.0, anim.1, halflife, dt);
            // Continuous in time: each frame moves by the mean rate times dt, up to the
            // trapezoid error (dt^3 / 12 times the jerk, about 1e-3 here); a pop would be ~1.
            let predicted = out + (out_v + next_v) * (0.5 * dt);
            assert!((next - predicted).norm() < 3e-3, "frame {frame}");
            (out, out_v) = (next, next_v);
        }
        // 300 frames (25 halflives) after the last switch the offset is gone.
        assert!(inert.offset.norm() < 1e-5 && inert.offset_velocity.norm() < 1e-4);
        assert!((out - b(t).0).norm() < 1e-5);
    }

    #[test]
    fn rotations_are_continuous_and_decay() {
        let src = |t: Real| Quaternion::from_euler_angles(t, 0.3 * t, 1.0);
        let dst = |t: Real| Quaternion::from_euler_angles(-0.5 * t, 2.0, t);
        // Rates by finite differences of the animations (world frame).
        let rate = |f: &dyn Fn(Real) -> Quaternion, t: Real| {
            rotation_vector(&(f(t + 1e-3) * f(t - 1e-3).inverse())) / 2e-3
        };
        let mut inert = RotationInertializer::new();
        let t = 0.7;
        let before = inert.output(src(t), rate(&src, t));
        inert.transition(src(t), rate(&src, t), dst(t), rate(&dst, t));
        let after = inert.output(dst(t), rate(&dst, t));
        assert!(rotation_vector(&(after.0 * before.0.inverse())).norm() < 1e-5);
        assert!((after.1 - before.1).norm() < 1e-4);
        // Continuity over a step: the output turns by its mean angular velocity (the offset
        // accelerates at ~100 rad/s^2 here, so the two ends differ by ~0.1).
        let h = 1e-3;
        let next = inert.update(dst(t + h), rate(&dst, t + h), 0.2, h);
        let turned = rotation_vector(&(next.0 * after.0.inverse())) / h;
        assert!(
            (turned - (after.1 + next.1) * 0.5).norm() < 5e-3,
            "{turned:?}"
        );
        assert!((next.1 - after.1).norm() < 0.2);
        let mut time = t + h;
        for _ in 0..600 {
            time += 1.0 / 60.0;
            inert.update(dst(time), rate(&dst, time), 0.2, 1.0 / 60.0);
        }
        assert!(rotation_vector(&inert.offset).norm() < 1e-5);
        assert!(inert.offset_velocity.norm() < 1e-4);
    }

    #[test]
    fn bad_input_keeps_the_offset() {
        let mut inert = Inertializer::<Real>::new();
        inert.transition(1.0, 2.0, 0.0, 0.0);
        let before = inert;
        for (halflife, dt) in [(0.2, -1.0), (0.2, Real::NAN), (Real::NAN, 0.1), (-0.2, 0.1)] {
            assert_eq!(inert.update(5.0, 1.0, halflife, dt), (6.0, 3.0));
            assert_eq!(inert, before);
        }
        assert_eq!(inert.update(5.0, 1.0, 0.0, 0.1), (5.0, 1.0));
    }
}

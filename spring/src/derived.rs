//! Springs built on the critical spring: double (S-shaped ease), timed (arrive around a given
//! time) and velocity (move at a steady maximum speed).
//!
//! After Daniel Holden, "Spring-It-On" (double, timed and velocity springs). Each keeps an
//! intermediate value that the visible spring follows.
//!
//! The double spring here is the exact solution of the two-stage system (an intermediate
//! critical spring chasing the goal, the visible one chasing the intermediate), not Holden's
//! per-frame chaining (which holds the intermediate still during each step): so it is exact and
//! frame-rate independent too. Its halflife is exact in the toolkit's sense: released from rest
//! it closes half the distance in `halflife` (each stage then has `0.457 halflife`, near
//! Holden's `0.5 halflife`). The timed and velocity springs steer their intermediate per step,
//! so they are stable for any `dt` but not exactly frame-rate independent.

use super::{simple_spring_damper, valid_dt, SpringValue};
use crate::Real;
use crate::CRITICAL_HALF;

/// `w t` at which the double spring released from rest has closed half the distance: the root
/// of `e^-y (1 + y + y^2/2 + y^3/6) = 1/2` (the median of a Gamma(4) law).
pub const DOUBLE_HALF: Real = 3.672_061;

/// Past this `y = w dt` the double spring is settled in f32.
const Y_SETTLED: Real = 80.0;

/// Whether a halflife (s) and `dt` (s) are usable; see the module docs of [`super`].
fn valid(halflife: Real, dt: Real) -> bool {
    valid_dt(dt) && !halflife.is_nan() && halflife >= 0.0
}

/// A double spring: an S-shaped, critically damped ease towards a goal (zero acceleration at
/// the start, no overshoot from rest).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DoubleSpring<T> {
    /// The eased value.
    pub position: T,
    /// Its rate of change (value units per s).
    pub velocity: T,
    /// The intermediate spring the value follows.
    pub intermediate: T,
    /// The intermediate's rate of change (value units per s).
    pub intermediate_velocity: T,
}

impl<T: SpringValue> DoubleSpring<T> {
    /// A double spring at rest at `position`.
    pub fn new(position: T) -> Self {
        DoubleSpring {
            position,
            velocity: T::zero(),
            intermediate: position,
            intermediate_velocity: T::zero(),
        }
    }

    /// Steps the spring by `dt` (s) towards `goal`, exactly; released from rest it closes half
    /// the distance in `halflife` (s). Bad input as for the critical springs: a no-op for `dt`
    /// not finite or not positive or a NaN or negative halflife, a snap (at rest) for a zero
    /// halflife, no pull (coasting) for an infinite one.
    pub fn update(&mut self, goal: T, halflife: Real, dt: Real) {
        if !valid(halflife, dt) {
            return;
        }
        let omega = DOUBLE_HALF / halflife;
        let y = omega * dt;
        let (e0, v0) = (self.position - goal, self.velocity);
        let (i0, w0) = (self.intermediate - goal, self.intermediate_velocity);
        if y > Y_SETTLED {
            *self = DoubleSpring::new(goal);
            return;
        }
        // The intermediate is a critical spring of rate w: i(t) = E (i0 + (w0 + w i0) t).
        // The value obeys (D + w)^2 e = w^2 i, so e = E p with p'' = w^2 (i0 + (w0 + w i0) t).
        let e = (-y).exp();
        let ye = y * e;
        let y2 = y * y;
        self.position = goal
            + (e0 * (1.0 + y) + v0 * dt + i0 * (y2 * (0.5 + y / 6.0)) + w0 * (dt * y2 / 6.0)) * e;
        self.velocity = (v0 * (1.0 - y) + w0 * (y2 * (0.5 - y / 6.0))) * e
            + (i0 * (1.0 - y2 / 6.0) - e0) * (omega * ye);
        self.intermediate = goal + (i0 * (1.0 + y) + w0 * dt) * e;
        self.intermediate_velocity = w0 * (e - ye) - i0 * (omega * ye);
    }
}

/// A timed spring: reaches its goal around a given time, still smoothing a goal that jumps.
/// The intermediate moves at constant speed to arrive on time; the visible spring chases a
/// point `dt + apprehension * halflife` ahead on that path, to make up for its lag.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimedSpring<T> {
    /// The eased value.
    pub position: T,
    /// Its rate of change (value units per s).
    pub velocity: T,
    /// The intermediate moving linearly to the goal.
    pub intermediate: T,
    /// How far ahead to aim, in halflives (Holden's default is 2).
    pub apprehension: Real,
}

impl<T: SpringValue> TimedSpring<T> {
    /// A timed spring at rest at `position`, apprehension 2.
    pub fn new(position: T) -> Self {
        TimedSpring {
            position,
            velocity: T::zero(),
            intermediate: position,
            apprehension: 2.0,
        }
    }

    /// Steps the spring by `dt` (s) so that it arrives at `goal` around `time_to_goal` (s from
    /// now; the caller counts it down, and it may be re-set when the goal changes), smoothing
    /// with the critical spring of `halflife` (s). A `time_to_goal` at most `dt` (or NaN) sends
    /// the intermediate to the goal now. A NaN or negative apprehension counts as 0. Other bad
    /// input as for the critical springs (a no-op for a bad `dt` or halflife).
    pub fn update(&mut self, goal: T, time_to_goal: Real, halflife: Real, dt: Real) {
        if !valid(halflife, dt) {
            return;
        }
        let remaining = if time_to_goal > dt { time_to_goal } else { dt };
        let rate = (goal - self.intermediate) * (1.0 / remaining);
        let lookahead = dt + self.apprehension.max(0.0) * halflife;
        let target = if lookahead < time_to_goal {
            self.intermediate + rate * lookahead
        } else {
            goal
        };
        simple_spring_damper(&mut self.position, &mut self.velocity, target, halflife, dt);
        self.intermediate = self.intermediate + rate * dt;
    }
}

/// A velocity spring: moves towards its goal at a steady maximum speed, with smooth starts and
/// stops. The intermediate moves straight at the maximum speed (along the line to the goal for
/// vectors, so the speed is the length of the velocity); the visible spring chases a point
/// `dt + apprehension * halflife` ahead on that path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VelocitySpring<T> {
    /// The eased value.
    pub position: T,
    /// Its rate of change (value units per s).
    pub velocity: T,
    /// The intermediate moving at the maximum speed.
    pub intermediate: T,
    /// How far ahead to aim, in halflives (Holden's default is 2).
    pub apprehension: Real,
}

impl<T: SpringValue> VelocitySpring<T> {
    /// A velocity spring at rest at `position`, apprehension 2.
    pub fn new(position: T) -> Self {
        VelocitySpring {
            position,
            velocity: T::zero(),
            intermediate: position,
            apprehension: 2.0,
        }
    }

    /// Steps the spring by `dt` (s) towards `goal` at `max_speed` (value units per s; NaN or
    /// negative counts as 0, infinite jumps the intermediate to the goal), smoothing with the
    /// critical spring of `halflife` (s). Other bad input as for the critical springs.
    pub fn update(&mut self, goal: T, max_speed: Real, halflife: Real, dt: Real) {
        if !valid(halflife, dt) {
            return;
        }
        let speed = max_speed.max(0.0);
        let offset = goal - self.intermediate;
        let distance = offset.magnitude();
        // A point `time` ahead on the straight path at `speed`, or the goal if that is past it.
        let ahead = |time: Real| {
            let travel = speed * time;
            if distance > travel {
                self.intermediate + offset * (travel / distance)
            } else {
                goal
            }
        };
        let target = ahead(dt + self.apprehension.max(0.0) * halflife);
        simple_spring_damper(&mut self.position, &mut self.velocity, target, halflife, dt);
        self.intermediate = ahead(dt);
    }
}

/// The halflife (s) of each stage of a [`DoubleSpring`] of `halflife` (s).
pub fn double_spring_stage_halflife(halflife: Real) -> Real {
    halflife * (CRITICAL_HALF / DOUBLE_HALF)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::critical::CriticalStep;
    use crate::testing::{rk4, H};
    use crate::Vector;

    #[test]
    fn double_spring_matches_the_ode_and_the_stage_spring() {
        let halflife = 0.4;
        let omega = (DOUBLE_HALF / halflife) as f64;
        let (s, d) = (omega * omega, 2.0 * omega);
        let g = 1.5;
        let start = DoubleSpring {
            position: -0.5_f32,
            velocity: 2.0,
            intermediate: 0.7,
            intermediate_velocity: -1.0,
        };
        for dt in [0.004_f32, 0.05, 0.3, 1.1] {
            let mut spring = start;
            spring.update(g, halflife, dt);
            let y = [-0.5, 2.0, 0.7, -1.0];
            let [x, v, xi, vi] = rk4(
                y,
                |y| {
                    let (g, x, v, xi, vi) = (g as f64, y[0], y[1], y[2], y[3]);
                    [v, s * (xi - x) - d * v, vi, s * (g - xi) - d * vi]
                },
                dt as f64,
                H,
            );
            let got = [
                spring.position,
                spring.velocity,
                spring.intermediate,
                spring.intermediate_velocity,
            ];
            for (a, b) in got.iter().zip([x, v, xi, vi]) {
                assert!(
                    (*a as f64 - b).abs() < 1e-4,
                    "dt {dt}: {got:?} vs {:?}",
                    [x, v, xi, vi]
                );
            }
            // The intermediate is the critical spring of the stage halflife.
            let (mut xi, mut vi) = (0.7_f32, -1.0_f32);
            CriticalStep::new(double_spring_stage_halflife(halflife), dt)
                .apply_simple(&mut xi, &mut vi, g);
            assert!((xi - spring.intermediate).abs() < 1e-5);
        }
    }

    #[test]
    fn double_spring_is_frame_rate_independent_and_s_shaped() {
        let goal = Vector::new(1.0, 2.0, -1.0);
        let mut one = DoubleSpring::new(Vector::zeros());
        one.velocity = Vector::new(0.0, 1.0, 0.0);
        let start = one;
        one.update(goal, 0.3, 0.5);
        for n in [2, 7, 16] {
            let mut many = start;
            for _ in 0..n {
                many.update(goal, 0.3, 0.5 / n as Real);
            }
            assert!((many.position - one.position).norm() < 1e-5, "n {n}");
            assert!((many.velocity - one.velocity).norm() < 1e-5, "n {n}");
        }
        // From rest: exactly half way in one halflife, zero initial acceleration (the position
        // moves as t^4: the fourth-order cascade), monotone, no overshoot.
        let mut s = DoubleSpring::new(0.0_f32);
        s.update(1.0, 0.3, 0.3);
        assert!((s.position - 0.5).abs() < 1e-5, "{}", s.position);
        let (mut a, mut b) = (DoubleSpring::new(0.0_f32), DoubleSpring::new(0.0_f32));
        a.update(1.0, 0.3, 0.01);
        b.update(1.0, 0.3, 0.02);
        let ratio = b.position / a.position;
        assert!((14.0..16.5).contains(&ratio), "{ratio}");
        let mut s = DoubleSpring::new(0.0_f32);
        let mut previous = 0.0;
        for _ in 0..600 {
            s.update(1.0, 0.3, 1.0 / 60.0);
            assert!(s.position >= previous && s.position <= 1.0);
            previous = s.position;
        }
        assert!((s.position - 1.0).abs() < 1e-4);
    }

    #[test]
    fn timed_spring_arrives_on_time() {
        let (dt, t_goal) = (1.0 / 60.0, 2.0);
        let mut s = TimedSpring::new(0.0_f32);
        let mut t = 0.0;
        let mut arrival = None;
        for frame in 0..240 {
            s.update(10.0, t_goal - t, 0.1, dt);
            t += dt;
            if frame == 59 {
                assert!((s.position - 5.0).abs() < 1.0, "half way: {}", s.position);
            }
            if arrival.is_none() && s.position > 9.5 {
                arrival = Some(t);
            }
        }
        let arrival = arrival.unwrap();
        assert!((arrival - t_goal).abs() < 0.25, "arrived at {arrival}");
        assert!((s.position - 10.0).abs() < 1e-3 && s.intermediate == 10.0);
    }

    #[test]
    fn velocity_spring_moves_at_the_max_speed() {
        let dt = 1.0 / 60.0;
        let goal = Vector::new(6.0, 8.0, 0.0); // 10 away
        let mut s = VelocitySpring::new(Vector::zeros());
        for frame in 0..480 {
            s.update(goal, 2.0, 0.1, dt);
            let t = (frame + 1) as Real * dt;
            if (1.0..4.0).contains(&t) {
                // Steady: the speed is the max speed, along the line to the goal.
                assert!(
                    (s.velocity.norm() - 2.0).abs() < 0.02,
                    "t {t}: {}",
                    s.velocity.norm()
                );
                assert!(s.velocity.normalize().dot(&(goal / 10.0)) > 0.9999);
            }
        }
        assert!((s.position - goal).norm() < 1e-3 && s.intermediate == goal);
    }

    #[test]
    fn bad_input() {
        let mut d = DoubleSpring::new(1.0_f32);
        d.velocity = 1.0;
        let mut t = TimedSpring::new(1.0_f32);
        let mut v = VelocitySpring::new(1.0_f32);
        for (halflife, dt) in [
            (0.1, 0.0),
            (0.1, -1.0),
            (0.1, Real::NAN),
            (-1.0, 0.1),
            (Real::NAN, 0.1),
        ] {
            let (d0, t0, v0) = (d, t, v);
            d.update(5.0, halflife, dt);
            t.update(5.0, 1.0, halflife, dt);
            v.update(5.0, 1.0, halflife, dt);
            assert_eq!((d, t, v), (d0, t0, v0));
        }
        d.update(5.0, 0.0, 0.1);
        assert_eq!(d, DoubleSpring::new(5.0));
        t.update(5.0, Real::NAN, 0.0, 0.1);
        assert_eq!((t.position, t.intermediate), (5.0, 5.0));
        v.update(5.0, Real::NAN, 0.1, 0.1);
        assert!(v.position.is_finite() && v.intermediate == 1.0);
        v.update(5.0, Real::INFINITY, 0.0, 0.1);
        assert_eq!((v.position, v.intermediate), (5.0, 5.0));
    }
}

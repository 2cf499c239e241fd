//! A spring character controller and its trajectory prediction.
//!
//! After Daniel Holden, "Spring-It-On" (controllers, and the trajectory prediction used by
//! "Learned Motion Matching"). The input sets a goal velocity; the character's velocity follows
//! it with the critical spring of a halflife (so the spring's own rate is the character's
//! acceleration), and the position is the exact integral of that velocity. Both are closed
//! forms, so one update of any `dt` is exact, and the state at any future time (with the goal
//! velocity held) is one evaluation away: that is the prediction.
//!
//! With `j0 = v0 - q` (`q` the goal velocity), `y = w dt`, `E = e^-y`:
//! `v1 = q + E ((1 + y) j0 + dt a0)`, `a1 = E ((1 - y) a0 - w y j0)`, and
//! `x1 = x0 + q dt + j0 dt (A + F) + a0 dt^2 B`, with `A = (1 - E) / y`,
//! `B = (1 - E (1 + y)) / y^2`, `F = y B` (series for small `y`; see [`CriticalStep`]).

use super::critical::CriticalStep;
use super::SpringValue;
use crate::Real;

/// The state of a spring-driven character (or any value driven through its velocity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterState<T> {
    /// Position (m).
    pub position: T,
    /// Velocity (m/s).
    pub velocity: T,
    /// Acceleration (m/s^2): the rate of the velocity spring.
    pub acceleration: T,
}

impl<T: SpringValue> CharacterState<T> {
    /// A character at `position`, at rest.
    pub fn new(position: T) -> Self {
        CharacterState {
            position,
            velocity: T::zero(),
            acceleration: T::zero(),
        }
    }

    /// This state advanced by a precomputed step (velocity spring towards `goal_velocity`).
    fn advanced(&self, step: &CriticalStep, goal_velocity: T) -> Self {
        let j0 = self.velocity - goal_velocity;
        let a0 = self.acceleration;
        let dt = step.dt;
        let position = self.position
            + goal_velocity * dt
            + j0 * (dt * (step.a + step.f))
            + a0 * (dt * dt * step.b);
        let (j1, a1) = step.homogeneous(j0, a0);
        CharacterState {
            position,
            velocity: goal_velocity + j1,
            acceleration: a1,
        }
    }

    /// Advances the character by `dt` (s): the velocity eases towards `goal_velocity` (m/s)
    /// with the critical spring of `halflife` (s), closing half the gap from rest in
    /// `halflife`; the position integrates it exactly. Bad input as for the critical springs: a
    /// no-op for `dt` not finite or not positive or a NaN or negative halflife; a zero halflife
    /// snaps the velocity to the goal velocity (zero acceleration) and moves at it.
    pub fn update(&mut self, goal_velocity: T, halflife: Real, dt: Real) {
        *self = self.advanced(&CriticalStep::new(halflife, dt), goal_velocity);
    }

    /// Predicts the state at each of `times` (s from now, any order), with `goal_velocity`
    /// held: exactly the state [`CharacterState::update`] would reach. Writes into
    /// `out[i]` for `i < min(times.len(), out.len())`; a time that is not finite or not
    /// positive predicts the current state.
    pub fn predict_into(
        &self,
        goal_velocity: T,
        halflife: Real,
        times: &[Real],
        out: &mut [CharacterState<T>],
    ) {
        for (slot, &time) in out.iter_mut().zip(times) {
            *slot = self.advanced(&CriticalStep::new(halflife, time), goal_velocity);
        }
    }

    /// [`CharacterState::predict_into`] into a new vector, one state per time.
    pub fn predict(&self, goal_velocity: T, halflife: Real, times: &[Real]) -> Vec<Self> {
        let mut out = vec![*self; times.len()];
        self.predict_into(goal_velocity, halflife, times, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{rk4, H};
    use crate::Vector;
    use crate::CRITICAL_HALF;

    fn start() -> CharacterState<Vector> {
        CharacterState {
            position: Vector::new(1.0, 0.0, -2.0),
            velocity: Vector::new(0.0, 3.0, 1.0),
            acceleration: Vector::new(-4.0, 0.0, 2.0),
        }
    }
    const GOAL: Vector = Vector::new(2.0, -1.0, 0.0);

    #[test]
    fn matches_the_ode() {
        for halflife in [0.05_f32, 0.3, 2.0] {
            let omega = (CRITICAL_HALF / halflife) as f64;
            for dt in [0.004_f32, 0.05, 0.3, 1.1] {
                let mut s = start();
                s.update(GOAL, halflife, dt);
                for i in 0..3 {
                    let q = GOAL[i] as f64;
                    let y = [
                        start().position[i],
                        start().velocity[i],
                        start().acceleration[i],
                    ];
                    let [x, v, a] = rk4(
                        y.map(|c| c as f64),
                        |y| [y[1], y[2], omega * omega * (q - y[1]) - 2.0 * omega * y[2]],
                        dt as f64,
                        H,
                    );
                    let got = [s.position[i], s.velocity[i], s.acceleration[i]];
                    assert!((got[0] as f64 - x).abs() < 1e-4, "{halflife} {dt}: {got:?}");
                    assert!((got[1] as f64 - v).abs() < 1e-4, "{halflife} {dt}: {got:?}");
                    assert!((got[2] as f64 - a).abs() < 1e-4 * a.abs().max(1.0));
                }
            }
        }
    }

    #[test]
    fn position_is_the_integral_of_the_velocity() {
        // Simpson's rule on the closed-form velocity sampled every 0.1 ms over 2 s.
        let (halflife, total, n) = (0.25_f32, 2.0_f64, 20_000);
        let h = total / n as f64;
        let times: Vec<Real> = (0..=n).map(|i| (i as f64 * h) as Real).collect();
        let states = start().predict(GOAL, halflife, &times);
        let mut integral = Vector::zeros().cast::<f64>();
        for i in 0..n / 2 {
            let [a, b, c] = [2 * i, 2 * i + 1, 2 * i + 2].map(|k| states[k].velocity.cast::<f64>());
            integral += (a + b * 4.0 + c) * (h / 3.0);
        }
        let expected = start().position.cast::<f64>() + integral;
        let end = states[n].position.cast::<f64>();
        assert!((end - expected).norm() < 1e-4, "{end:?} vs {expected:?}");
    }

    #[test]
    fn frame_rate_independent() {
        let mut one = start();
        one.update(GOAL, 0.3, 0.6);
        for n in [2, 7, 16] {
            let mut many = start();
            for _ in 0..n {
                many.update(GOAL, 0.3, 0.6 / n as Real);
            }
            assert!((many.position - one.position).norm() < 1e-5, "n {n}");
            assert!((many.velocity - one.velocity).norm() < 1e-5, "n {n}");
            assert!(
                (many.acceleration - one.acceleration).norm() < 1e-4,
                "n {n}"
            );
        }
    }

    #[test]
    fn prediction_matches_stepping() {
        let dt = 1.0 / 60.0;
        let times: Vec<Real> = [0, 1, 5, 20, 40, 60, 90]
            .iter()
            .map(|&k| k as Real * dt)
            .collect();
        let predicted = start().predict(GOAL, 0.2, &times);
        let mut s = start();
        let mut frame = 0;
        for (&t, p) in times.iter().zip(&predicted) {
            while (frame as Real * dt) < t - 1e-6 {
                s.update(GOAL, 0.2, dt);
                frame += 1;
            }
            assert!((s.position - p.position).norm() < 1e-4, "t {t}");
            assert!((s.velocity - p.velocity).norm() < 1e-4, "t {t}");
            assert!((s.acceleration - p.acceleration).norm() < 1e-3, "t {t}");
        }
        // A short output buffer gets the first predictions only.
        let mut out = [CharacterState::new(Vector::zeros()); 2];
        start().predict_into(GOAL, 0.2, &times, &mut out);
        assert_eq!(out[1], predicted[1]);
    }

    #[test]
    fn bad_input_and_limits() {
        for (halflife, dt) in [
            (0.2, 0.0),
            (0.2, -1.0),
            (0.2, Real::NAN),
            (Real::NAN, 0.1),
            (-1.0, 0.1),
        ] {
            let mut s = start();
            s.update(GOAL, halflife, dt);
            assert_eq!(s, start());
        }
        // Zero halflife: moves at the goal velocity at once.
        let mut s = start();
        s.update(GOAL, 0.0, 0.5);
        assert!((s.position - (start().position + GOAL * 0.5)).norm() < 1e-6);
        assert_eq!((s.velocity, s.acceleration), (GOAL, Vector::zeros()));
        // Settled: the velocity is the goal velocity, the position finite.
        let mut s = start();
        s.update(GOAL, 0.2, 1e6);
        assert!(s.position.iter().all(|c| c.is_finite()) && (s.velocity - GOAL).norm() < 1e-6);
    }
}

//! Stepping a damped spring with a target by numerical integration: explicit Euler,
//! semi-implicit Euler and the implicit (stable PD) update, side by side, plus backward Euler.
//!
//! After Huw Bowles, "Spring dynamics in production" (the integration schemes), with the
//! stable PD update from Tan, Liu and Turk, "Stable Proportional-Derivative Controllers". Per
//! unit mass, with undamped angular frequency `w` and damping ratio `zeta`:
//! `a = w^2 (x_target - x) + 2 zeta w (v_target - v)`.
//!
//! These are for comparison and for springs whose targets change within a frame; when the
//! targets are constant over a step, [`super::spring_damper`] is exact. Stability, for a step
//! `h` (the growth of `w^2 x^2 + v^2` over many steps; checked by the tests):
//! - explicit Euler: stable iff `w h < 2 zeta` when `zeta < 1` (never when `zeta = 0`), and
//!   iff `w h (zeta + sqrt(zeta^2 - 1)) < 2` when `zeta >= 1`;
//! - semi-implicit Euler: iff `w h < 2 (sqrt(zeta^2 + 1) - zeta)` (2 when undamped, where it
//!   keeps the energy bounded);
//! - stable PD (Bowles' "implicit" update: the spring force at the position predicted with the
//!   current velocity, the damping implicit, the position advanced with the old velocity): iff
//!   `w h < 2 (zeta + sqrt(zeta^2 + 1))`. Far more forgiving, but not unconditional;
//! - backward Euler (fully implicit, the recurrence of the engine's soft rows): stable for
//!   every `h`, and never gains energy; it loses some, the more the larger `w h`.

use super::{valid_dt, SpringValue};
use crate::Real;
use crate::Spring;

/// A time-stepping scheme for a damped spring with a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Integrator {
    /// Position with the old velocity, velocity with the old acceleration.
    ExplicitEuler,
    /// Velocity first, then position with the new velocity (symplectic Euler).
    SemiImplicitEuler,
    /// Stable PD (Tan et al.), as in Bowles' article: implicit in the damping, the spring
    /// evaluated at `x + h v`, position advanced with the old velocity.
    StablePd,
    /// Fully implicit: both forces at the end of the step.
    BackwardEuler,
}

impl Integrator {
    /// All four, for comparisons.
    pub const ALL: [Integrator; 4] = [
        Integrator::ExplicitEuler,
        Integrator::SemiImplicitEuler,
        Integrator::StablePd,
        Integrator::BackwardEuler,
    ];

    /// Advances position `x` and velocity `v` by `dt` (s) towards `target_position` and
    /// `target_velocity`, with undamped angular frequency `angular_frequency` (rad/s) and
    /// `damping_ratio` (1 = critical), per unit mass.
    ///
    /// Bad input: `dt` not finite or not positive, or a frequency or ratio that is not finite
    /// or negative, is a no-op.
    #[allow(clippy::too_many_arguments)]
    pub fn step<T: SpringValue>(
        &self,
        x: &mut T,
        v: &mut T,
        target_position: T,
        target_velocity: T,
        angular_frequency: Real,
        damping_ratio: Real,
        dt: Real,
    ) {
        let usable = |p: Real| p.is_finite() && p >= 0.0;
        if !valid_dt(dt) || !usable(angular_frequency) || !usable(damping_ratio) {
            return;
        }
        let k = angular_frequency * angular_frequency;
        let c = 2.0 * damping_ratio * angular_frequency;
        let acceleration = |x: T, v: T| (target_position - x) * k + (target_velocity - v) * c;
        match self {
            Integrator::ExplicitEuler => {
                let a = acceleration(*x, *v);
                *x = *x + *v * dt;
                *v = *v + a * dt;
            }
            Integrator::SemiImplicitEuler => {
                *v = *v + acceleration(*x, *v) * dt;
                *x = *x + *v * dt;
            }
            Integrator::StablePd => {
                let predicted = *x + *v * dt;
                let a = acceleration(predicted, *v) * (1.0 / (1.0 + c * dt));
                *x = predicted;
                *v = *v + a * dt;
            }
            Integrator::BackwardEuler => {
                // v1 = v + h (k (xt - x - h v1) + c (vt - v1))
                let numerator = *v + ((target_position - *x) * k + target_velocity * c) * dt;
                *v = numerator * (1.0 / (1.0 + c * dt + k * dt * dt));
                *x = *x + *v * dt;
            }
        }
    }

    /// [`Integrator::step`] with the frequency and damping ratio of `spring` per unit mass
    /// (effective mass 1). Parameters that [`Spring::check`] refuses make it a no-op.
    pub fn step_spring<T: SpringValue>(
        &self,
        x: &mut T,
        v: &mut T,
        target_position: T,
        target_velocity: T,
        spring: &Spring,
        dt: Real,
    ) {
        if spring.check().is_err() {
            return;
        }
        let (omega, zeta) = (spring.angular_frequency(1.0), spring.damping_ratio(1.0));
        self.step(x, v, target_position, target_velocity, omega, zeta, dt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spring_damper;

    /// Energy per unit mass about a resting target at 0: `(w^2 x^2 + v^2) / 2`.
    fn energy(x: Real, v: Real, omega: Real) -> Real {
        0.5 * (omega * omega * x * x + v * v)
    }

    /// Runs `steps` steps of `h` from (1, 0) towards 0; returns (max energy after the first
    /// step, final energy) relative to the initial energy.
    fn run(integrator: Integrator, omega: Real, zeta: Real, h: Real, steps: usize) -> (Real, Real) {
        let (mut x, mut v) = (1.0_f32, 0.0_f32);
        let e0 = energy(x, v, omega);
        let mut max: Real = 0.0;
        for _ in 0..steps {
            integrator.step(&mut x, &mut v, 0.0, 0.0, omega, zeta, h);
            max = max.max(energy(x, v, omega) / e0);
        }
        (max, energy(x, v, omega) / e0)
    }

    #[test]
    fn explicit_blows_up_past_its_limit_while_implicit_does_not() {
        let (omega, zeta) = (10.0, 0.5);
        // Explicit limit: w h < 2 zeta = 1. Semi-implicit: 2 (sqrt(1.25) - 0.5) = 1.24.
        // Stable PD: 2 (0.5 + sqrt(1.25)) = 3.24. Backward Euler: none.
        for (wh, explicit_grows, semi_grows, pd_grows) in [
            (0.9, false, false, false),
            (1.1, true, false, false),
            (1.5, true, true, false),
            (3.0, true, true, false),
            (3.5, true, true, true),
            (50.0, true, true, true),
        ] {
            let h = wh / omega;
            let grows = |i| {
                let (_, last) = run(i, omega, zeta, h, 400);
                // Overflowing to infinity or NaN counts as growing.
                last.is_nan() || last > 1.0
            };
            assert_eq!(grows(Integrator::ExplicitEuler), explicit_grows, "w h {wh}");
            assert_eq!(grows(Integrator::SemiImplicitEuler), semi_grows, "w h {wh}");
            assert_eq!(grows(Integrator::StablePd), pd_grows, "w h {wh}");
            // Backward Euler never gains energy, not even for one step.
            let (max, last) = run(Integrator::BackwardEuler, omega, zeta, h, 400);
            assert!(max <= 1.0 && last < 1e-3, "w h {wh}: {max} {last}");
        }
        // Side by side at w h = 2: the explicit energy explodes, the implicit one decays.
        let (_, explicit) = run(Integrator::ExplicitEuler, omega, zeta, 0.2, 60);
        let (_, implicit) = run(Integrator::StablePd, omega, zeta, 0.2, 60);
        assert!(explicit > 1e10 && implicit < 1e-6, "{explicit} {implicit}");
    }

    #[test]
    fn undamped_limits() {
        // zeta = 0: explicit Euler gains energy at any step; semi-implicit and stable PD keep
        // it bounded below w h = 2 (oscillating about a modified energy) and diverge above.
        let (_, explicit) = run(Integrator::ExplicitEuler, 10.0, 0.0, 0.001, 2000);
        assert!(explicit > 1.05);
        for integrator in [Integrator::SemiImplicitEuler, Integrator::StablePd] {
            let (max, _) = run(integrator, 10.0, 0.0, 0.01, 2000);
            assert!(max < 1.2, "{integrator:?} {max}");
            let (max, _) = run(integrator, 10.0, 0.0, 0.19, 2000);
            assert!(max < 50.0, "{integrator:?} {max}");
            let (_, last) = run(integrator, 10.0, 0.0, 0.21, 2000);
            assert!(last.is_nan() || last > 1e3, "{integrator:?} {last}");
        }
    }

    #[test]
    fn all_converge_to_the_exact_spring_with_targets() {
        let spring = Spring::Frequency {
            hertz: 1.0,
            damping_ratio: 0.4,
        };
        let (mut xe, mut ve) = (0.0_f32, 1.0_f32);
        spring_damper(&mut xe, &mut ve, 2.0, 0.5, &spring, 1.0);
        for integrator in Integrator::ALL {
            let mut errors = [0.0; 2];
            for (slot, n) in errors.iter_mut().zip([100, 1000]) {
                let (mut x, mut v) = (0.0_f32, 1.0_f32);
                for _ in 0..n {
                    integrator.step_spring(&mut x, &mut v, 2.0, 0.5, &spring, 1.0 / n as Real);
                }
                *slot = (x - xe).abs() + (v - ve).abs();
            }
            // First order: ten times the steps, about a tenth of the error.
            assert!(
                errors[1] < 0.2 * errors[0] && errors[1] < 0.05,
                "{integrator:?} {errors:?}"
            );
        }
    }

    #[test]
    fn bad_input_is_a_no_op() {
        for integrator in Integrator::ALL {
            for (omega, zeta, dt) in [
                (10.0, 0.5, 0.0),
                (10.0, 0.5, Real::NAN),
                (Real::NAN, 0.5, 0.1),
                (-1.0, 0.5, 0.1),
                (10.0, Real::INFINITY, 0.1),
            ] {
                let (mut x, mut v) = (1.0_f32, 2.0_f32);
                integrator.step(&mut x, &mut v, 0.0, 0.0, omega, zeta, dt);
                assert_eq!((x, v), (1.0, 2.0));
            }
            let (mut x, mut v) = (1.0_f32, 2.0_f32);
            let bad = Spring::Halflife { halflife: -1.0 };
            integrator.step_spring(&mut x, &mut v, 0.0, 0.0, &bad, 0.1);
            assert_eq!((x, v), (1.0, 2.0));
        }
    }
}

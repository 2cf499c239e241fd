//! The fast critically damped springs: critical (goal position and goal velocity), simple (goal
//! velocity zero) and decay (goal zero), set by a halflife.
//!
//! After Daniel Holden, "Spring-It-On" (the critical spring-damper and its special cases).
//! Critical damping has one branch, so these are cheaper than [`super::exact`]: with
//! `w = CRITICAL_HALF / halflife` (exact halflife from rest), `y = w dt` and `E = e^(-y)`, the
//! offset `u = x - g` and velocity step as
//! `u1 = E ((1 + y) u0 + dt v0)`, `v1 = E ((1 - y) v0 - w y u0)`,
//! plus, for a goal velocity `q`, `2 dt F(y) q` on the offset and `2 y E q` on the velocity,
//! `F(y) = (1 - E (1 + y)) / y`. [`CriticalStep`] holds these numbers (and the integrals the
//! character controller needs), computed once per halflife and `dt`, in f32 with a series
//! where the closed form would cancel.

use super::{valid_dt, SpringValue};
use crate::Real;
use crate::CRITICAL_HALF;

/// Taylor coefficients of `B(y) = (1 - e^-y (1 + y)) / y^2 = sum (-1)^k (k+1) y^k / (k+2)!`;
/// twelve terms reach f32 rounding for `y < 1`.
const B_SERIES: [Real; 12] = [
    1.0 / 2.0,
    -1.0 / 3.0,
    1.0 / 8.0,
    -1.0 / 30.0,
    1.0 / 144.0,
    -1.0 / 840.0,
    1.0 / 5760.0,
    -1.0 / 45360.0,
    1.0 / 403200.0,
    -1.0 / 3991680.0,
    1.0 / 43545600.0,
    -1.0 / 518918400.0,
];

/// Past this `y = w dt`, `e^-y` is negligible in f32 and is taken as zero (avoids `0 * inf`).
const Y_SETTLED: Real = 80.0;

/// One step of a critically damped spring of given halflife and `dt`: the coefficients of the
/// critical, simple and decay springs, and the integrals the character controller uses. Compute
/// it once to step many values with the same halflife and `dt`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CriticalStep {
    /// The time step (s); 0 for the identity.
    pub(crate) dt: Real,
    /// `E (1 + y)`: new offset per old offset.
    pub(crate) p: Real,
    /// `E dt`: new offset per old velocity (s).
    pub(crate) q: Real,
    /// `E (1 - y)`: new velocity per old velocity.
    pub(crate) r: Real,
    /// `-w y E`: new velocity per old offset (1/s).
    pub(crate) vu: Real,
    /// `A(y) = (1 - E) / y`: the integral of `E(t)` over the step, divided by `dt`.
    pub(crate) a: Real,
    /// `B(y) = (1 - E (1 + y)) / y^2`: the integral of `t E(t)` over the step, over `dt^2`.
    pub(crate) b: Real,
    /// `F(y) = y B(y)`.
    pub(crate) f: Real,
    /// `2 y E`: new velocity per goal velocity.
    pub(crate) fq: Real,
}

impl CriticalStep {
    /// The step that changes nothing.
    pub const IDENTITY: CriticalStep = CriticalStep {
        dt: 0.0,
        p: 1.0,
        q: 0.0,
        r: 1.0,
        vu: 0.0,
        a: 1.0,
        b: 0.5,
        f: 0.0,
        fq: 0.0,
    };

    /// The step of `dt` (s) of the critical spring of `halflife` (s): from rest it closes
    /// exactly half the distance to its goal in `halflife`.
    ///
    /// Bad input: `dt` not finite or not positive, or `halflife` NaN or negative, gives
    /// [`CriticalStep::IDENTITY`]; a zero halflife snaps to the goal (at rest); an infinite
    /// halflife has no pull (the value coasts at its velocity).
    pub fn new(halflife: Real, dt: Real) -> CriticalStep {
        if !valid_dt(dt) || halflife.is_nan() || halflife < 0.0 {
            return CriticalStep::IDENTITY;
        }
        let omega = CRITICAL_HALF / halflife;
        let y = omega * dt; // +inf for a zero halflife, 0 for an infinite one
        if y > Y_SETTLED {
            let inv_y = 1.0 / y;
            return CriticalStep {
                dt,
                p: 0.0,
                q: 0.0,
                r: 0.0,
                vu: 0.0,
                a: inv_y,
                b: inv_y * inv_y,
                f: inv_y,
                fq: 0.0,
            };
        }
        let e = (-y).exp();
        let ye = y * e;
        let b = if y < 1.0 {
            B_SERIES.iter().rev().fold(0.0, |acc, c| acc * y + c)
        } else {
            // 1 - E (1 + y) = (1 - E) - y E, both positive and >= 0.26 apart here.
            (-(-y).exp_m1() - ye) / (y * y)
        };
        let a = if y < 1e-6 {
            1.0 - 0.5 * y
        } else {
            -(-y).exp_m1() / y
        };
        CriticalStep {
            dt,
            p: e + ye,
            q: e * dt,
            r: e - ye,
            vu: -omega * ye,
            a,
            b,
            f: y * b,
            fq: 2.0 * ye,
        }
    }

    /// Steps offset `u` (from a fixed goal) and velocity `v` of the critical spring whose goal
    /// velocity is zero.
    #[inline]
    pub(crate) fn homogeneous<T: SpringValue>(&self, u: T, v: T) -> (T, T) {
        (u * self.p + v * self.q, u * self.vu + v * self.r)
    }

    /// Applies the step to position `x` and velocity `v` pulled towards `goal` and
    /// `goal_velocity` (held constant over the step; the spring settles at rest at
    /// `goal + 2 goal_velocity / w`, as the general spring does).
    pub fn apply<T: SpringValue>(&self, x: &mut T, v: &mut T, goal: T, goal_velocity: T) {
        let (u, v1) = self.homogeneous(*x - goal, *v);
        *x = goal + u + goal_velocity * (2.0 * self.dt * self.f);
        *v = v1 + goal_velocity * self.fq;
    }

    /// Applies the step with a zero goal velocity (the simple spring).
    pub fn apply_simple<T: SpringValue>(&self, x: &mut T, v: &mut T, goal: T) {
        let (u, v1) = self.homogeneous(*x - goal, *v);
        *x = goal + u;
        *v = v1;
    }

    /// Applies the step with goal zero and goal velocity zero (the decay spring).
    pub fn apply_decay<T: SpringValue>(&self, x: &mut T, v: &mut T) {
        (*x, *v) = self.homogeneous(*x, *v);
    }
}

/// Steps position `x` and velocity `v` of the critical spring of `halflife` (s) towards `goal`
/// and `goal_velocity` by `dt` (s), exactly: the same motion as
/// [`super::spring_damper`] with `Spring::Halflife { halflife }`, with one branch. Bad input as
/// in [`CriticalStep::new`].
pub fn critical_spring_damper<T: SpringValue>(
    x: &mut T,
    v: &mut T,
    goal: T,
    goal_velocity: T,
    halflife: Real,
    dt: Real,
) {
    CriticalStep::new(halflife, dt).apply(x, v, goal, goal_velocity);
}

/// The critical spring with a goal velocity of zero: eases position `x` (with velocity `v`)
/// towards `goal` over `dt` (s), closing half the distance from rest in `halflife` (s). Bad
/// input as in [`CriticalStep::new`].
pub fn simple_spring_damper<T: SpringValue>(
    x: &mut T,
    v: &mut T,
    goal: T,
    halflife: Real,
    dt: Real,
) {
    CriticalStep::new(halflife, dt).apply_simple(x, v, goal);
}

/// The critical spring towards zero at rest: decays offset `x` and its velocity `v` over `dt`
/// (s), halving from rest in `halflife` (s). Bad input as in [`CriticalStep::new`].
pub fn decay_spring_damper<T: SpringValue>(x: &mut T, v: &mut T, halflife: Real, dt: Real) {
    CriticalStep::new(halflife, dt).apply_decay(x, v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spring_damper;
    use crate::testing::spring_reference;
    use crate::Spring;
    use crate::Vector;

    const HALFLIVES: [Real; 4] = [0.02, 0.15, 0.6, 3.0];
    const STEPS: [Real; 4] = [0.004, 0.05, 0.3, 1.1];

    fn reference(x: Real, v: Real, g: Real, q: Real, halflife: Real, t: Real) -> (f64, f64) {
        let omega = CRITICAL_HALF as f64 / halflife as f64;
        let (x, v, g, q) = (x as f64, v as f64, g as f64, q as f64);
        spring_reference(x, v, g, q, omega * omega, 2.0 * omega, t as f64)
    }

    fn assert_close(got: (Real, Real), want: (f64, f64), what: &str) {
        let ok = (got.0 as f64 - want.0).abs() < 1e-4 && (got.1 as f64 - want.1).abs() < 1e-4;
        assert!(ok, "{what}: {got:?} vs {want:?}");
    }

    #[test]
    fn each_form_matches_the_ode() {
        let (x0, v0, g, q) = (-0.7_f32, 1.5_f32, 0.4_f32, -0.8_f32);
        for halflife in HALFLIVES {
            for dt in STEPS {
                let what = format!("halflife {halflife} dt {dt}");
                let (mut x, mut v) = (x0, v0);
                critical_spring_damper(&mut x, &mut v, g, q, halflife, dt);
                assert_close((x, v), reference(x0, v0, g, q, halflife, dt), &what);
                let (mut x, mut v) = (x0, v0);
                simple_spring_damper(&mut x, &mut v, g, halflife, dt);
                assert_close((x, v), reference(x0, v0, g, 0.0, halflife, dt), &what);
                let (mut x, mut v) = (x0, v0);
                decay_spring_damper(&mut x, &mut v, halflife, dt);
                assert_close((x, v), reference(x0, v0, 0.0, 0.0, halflife, dt), &what);
            }
        }
    }

    #[test]
    fn agrees_with_the_general_spring() {
        for halflife in HALFLIVES {
            for dt in STEPS {
                let (mut x, mut v) = (Vector::new(1.0, -2.0, 0.3), Vector::new(0.5, 0.0, -4.0));
                let (mut xg, mut vg) = (x, v);
                let (g, q) = (Vector::new(0.0, 1.0, 2.0), Vector::new(-1.0, 0.5, 0.0));
                critical_spring_damper(&mut x, &mut v, g, q, halflife, dt);
                spring_damper(&mut xg, &mut vg, g, q, &Spring::Halflife { halflife }, dt);
                assert!((x - xg).norm() < 1e-5 && (v - vg).norm() < 1e-4 * vg.norm().max(1.0));
            }
        }
    }

    #[test]
    fn frame_rate_independent() {
        let (x0, v0, g, q) = (
            Vector::new(2.0, -1.0, 0.0),
            Vector::new(0.0, 3.0, 1.0),
            Vector::x(),
            Vector::y(),
        );
        for halflife in HALFLIVES {
            let one = CriticalStep::new(halflife, 0.4);
            for n in [2, 7, 16] {
                let many = CriticalStep::new(halflife, 0.4 / n as Real);
                let run = |step: &CriticalStep, count: usize, kind: usize| {
                    let (mut x, mut v) = (x0, v0);
                    for _ in 0..count {
                        match kind {
                            0 => step.apply(&mut x, &mut v, g, q),
                            1 => step.apply_simple(&mut x, &mut v, g),
                            _ => step.apply_decay(&mut x, &mut v),
                        }
                    }
                    (x, v)
                };
                for kind in 0..3 {
                    let (x1, v1) = run(&one, 1, kind);
                    let (xn, vn) = run(&many, n, kind);
                    let scale = v1.norm().max(1.0);
                    assert!(
                        (x1 - xn).norm() < 1e-5 && (v1 - vn).norm() < 1e-5 * scale,
                        "halflife {halflife} n {n} kind {kind}: {x1:?} {xn:?} {v1:?} {vn:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn halves_in_one_halflife_and_never_overshoots_from_rest() {
        for halflife in [0.05, 0.5, 2.0] {
            let (mut x, mut v) = (1.0_f32, 0.0_f32);
            simple_spring_damper(&mut x, &mut v, 0.0, halflife, halflife);
            assert!((x - 0.5).abs() < 0.01 * 0.5, "{x}");
            // Many samples, by frame steps and by single long steps: monotone, never below 0.
            let (mut x, mut v) = (1.0_f32, 0.0_f32);
            let mut previous = x;
            for i in 1..=2000 {
                let dt = halflife / 100.0;
                simple_spring_damper(&mut x, &mut v, 0.0, halflife, dt);
                assert!(x >= 0.0 && x <= previous, "step {i}: {x}");
                previous = x;
                let (mut xs, mut vs) = (1.0_f32, 0.0_f32);
                simple_spring_damper(&mut xs, &mut vs, 0.0, halflife, i as Real * dt);
                assert!(xs >= 0.0, "t = {}: {xs}", i as Real * dt);
            }
        }
    }

    #[test]
    fn decay_reaches_zero() {
        let (mut x, mut v) = (Vector::new(1.0, -3.0, 0.5), Vector::new(3.0, 0.0, -2.0));
        for _ in 0..(20 * 60) {
            decay_spring_damper(&mut x, &mut v, 0.3, 1.0 / 60.0);
        }
        assert!(x.norm() < 1e-4 && v.norm() < 1e-3, "{x:?} {v:?}");
    }

    #[test]
    fn bad_input_and_limits() {
        for dt in [0.0, -1.0, Real::NAN, Real::INFINITY] {
            assert_eq!(CriticalStep::new(0.3, dt), CriticalStep::IDENTITY);
        }
        for halflife in [-0.1, Real::NAN] {
            assert_eq!(CriticalStep::new(halflife, 0.1), CriticalStep::IDENTITY);
        }
        // Zero (or denormal) halflife: at the goal, at rest.
        for halflife in [0.0, 1e-44, 1e-30] {
            let (mut x, mut v) = (5.0_f32, 2.0_f32);
            critical_spring_damper(&mut x, &mut v, 1.0, 3.0, halflife, 1.0 / 60.0);
            assert!((x - 1.0).abs() < 1e-6 && v == 0.0, "{halflife}: {x} {v}");
        }
        // Infinite halflife: coasts. Huge steps: finite, at the equilibrium g + 2q/w.
        let (mut x, mut v) = (5.0_f32, 2.0_f32);
        critical_spring_damper(&mut x, &mut v, 1.0, 3.0, Real::INFINITY, 0.5);
        assert_eq!((x, v), (6.0, 2.0));
        let (mut x, mut v) = (5.0_f32, 2.0_f32);
        critical_spring_damper(&mut x, &mut v, 1.0, 3.0, 0.5, 1e30);
        let omega = CRITICAL_HALF / 0.5;
        assert!((x - (1.0 + 6.0 / omega)).abs() < 1e-6 && v == 0.0);
    }
}

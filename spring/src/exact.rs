//! The exact spring-damper: position and velocity pulled towards a goal position and a goal
//! velocity, solved in closed form so that any time step is exact.
//!
//! After Daniel Holden, "Spring-It-On" (the implicit spring-damper and its under-, critically
//! and over-damped cases). Per unit mass, with the goal position `g` and goal velocity `q` held
//! constant over the step, the spring obeys `x'' = s (g - x) + d (q - x')`. Its solution is
//! linear in the state, so one step is six numbers ([`SpringStep`]):
//!
//! `x1 = g + P (x0 - g) + Q v0 + (d W) q` and `v1 = (-s Q) (x0 - g) + R v0 + (d Q) q`,
//!
//! where `Q(t)` is the motion released from the goal at unit speed, `R = Q'`, `P = R + d Q` and
//! `W` is the integral of `Q`. The coefficients are computed in f64 from the f32 inputs, so that
//! extreme stiffnesses neither overflow nor cancel, and by one of four forms:
//! a Taylor series when the step is short (`d t <= 1` and `s t^2 <= 1`: this also keeps the pure
//! damper `s -> 0` accurate); a series in `(d^2/4 - s) t^2` near critical damping (`|.| <=
//! 0.01`: no division by a vanishing frequency, and no threshold on the damping ratio itself);
//! otherwise the underdamped (cosine) or overdamped (two exponentials, written with `expm1` and
//! the slow root `s / (d/2 + k)` so that nothing overflows or cancels) closed forms.
//!
//! Note the ODE's equilibrium: with the goal position fixed, a goal velocity `q` makes the
//! spring settle at rest at `g + d q / s` (Holden's convention), not track a moving goal.

use super::{valid_dt, SpringValue};
use crate::Real;
use crate::{Spring, CRITICAL_HALF};

/// One exact step of a spring-damper of given parameters and time step: the six coefficients of
/// the linear map from `(x0 - g, v0, q)` to `(x1 - g, v1)`. Compute it once to step many values
/// with the same spring and `dt`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringStep {
    /// Coefficients of the new offset from the goal: of the old offset, old velocity, goal
    /// velocity.
    x: [Real; 3],
    /// Coefficients of the new velocity: of the old offset, old velocity, goal velocity.
    v: [Real; 3],
}

impl SpringStep {
    /// The step that changes nothing.
    pub const IDENTITY: SpringStep = SpringStep {
        x: [1.0, 0.0, 0.0],
        v: [0.0, 1.0, 0.0],
    };

    /// The step that puts the value on its goal at rest (an infinitely stiff spring).
    pub const SNAP: SpringStep = SpringStep {
        x: [0.0; 3],
        v: [0.0; 3],
    };

    /// The exact step of `dt` (s) of `spring`, per unit mass (effective mass 1).
    ///
    /// Bad input: `dt` not finite or not positive gives [`SpringStep::IDENTITY`]; so do
    /// parameters that [`Spring::check`] refuses, except halflives: a NaN or negative one gives
    /// the identity, zero gives [`SpringStep::SNAP`] and an infinite one no spring at all (the
    /// value coasts at its velocity).
    pub fn new(spring: &Spring, dt: Real) -> SpringStep {
        if !valid_dt(dt) {
            return SpringStep::IDENTITY;
        }
        let (s, d) = match *spring {
            Spring::Halflife { halflife } => {
                if halflife.is_nan() || halflife < 0.0 {
                    return SpringStep::IDENTITY;
                }
                if halflife == 0.0 {
                    return SpringStep::SNAP;
                }
                let omega = CRITICAL_HALF as f64 / halflife as f64;
                (omega * omega, 2.0 * omega)
            }
            _ if spring.check().is_err() => return SpringStep::IDENTITY,
            Spring::Frequency {
                hertz,
                damping_ratio,
            } => {
                let omega = std::f64::consts::TAU * hertz as f64;
                (omega * omega, 2.0 * damping_ratio as f64 * omega)
            }
            Spring::Stiffness { stiffness, damping }
            | Spring::Acceleration { stiffness, damping } => (stiffness as f64, damping as f64),
        };
        SpringStep::from_coefficients(s, d, dt as f64)
    }

    /// The step of `t` (s) of the spring of stiffness `s` (1/s^2) and damping `d` (1/s), both
    /// finite and non-negative, `t` finite and positive.
    fn from_coefficients(s: f64, d: f64, t: f64) -> SpringStep {
        let [p, q, r, w] = transition(s, d, t);
        SpringStep {
            x: [p as Real, q as Real, (d * w) as Real],
            v: [(-s * q) as Real, r as Real, (d * q) as Real],
        }
    }

    /// Applies the step to position `x` and velocity `v`, pulled towards `goal` and
    /// `goal_velocity` (held constant over the step).
    pub fn apply<T: SpringValue>(&self, x: &mut T, v: &mut T, goal: T, goal_velocity: T) {
        let u = *x - goal;
        let v0 = *v;
        *x = goal + u * self.x[0] + v0 * self.x[1] + goal_velocity * self.x[2];
        *v = u * self.v[0] + v0 * self.v[1] + goal_velocity * self.v[2];
    }
}

/// `[P, Q, R, W]` at time `t` for stiffness `s` and damping `d` (see the module docs).
fn transition(s: f64, d: f64, t: f64) -> [f64; 4] {
    let (a, b) = (d * t, s * t * t);
    if a <= 1.0 && b <= 1.0 {
        return taylor(a, b, t);
    }
    let gamma = 0.5 * d;
    let disc = gamma * gamma - s;
    let z = disc * t * t;
    if z.abs() <= 1e-2 {
        // Near critical: cosh(kt) and sinh(kt)/k as series in z = k^2 t^2 (k may be imaginary).
        let c = 1.0 + z / 2.0 * (1.0 + z / 12.0 * (1.0 + z / 30.0 * (1.0 + z / 56.0)));
        let sinc = 1.0 + z / 6.0 * (1.0 + z / 20.0 * (1.0 + z / 42.0 * (1.0 + z / 72.0)));
        let e = (-gamma * t).exp();
        let q = e * t * sinc;
        let p = e * (c + gamma * t * sinc);
        let r = e * (c - gamma * t * sinc);
        // Here s t^2 >= 0.24, so 1 - P is well conditioned.
        [p, q, r, (1.0 - p) / s]
    } else if disc < 0.0 {
        let omega = (-disc).sqrt();
        let e = (-gamma * t).exp();
        let (sin, cos) = (omega * t).sin_cos();
        let sn = sin / omega;
        let p = e * (cos + gamma * sn);
        // Underdamped with a > 1 or b > 1 means s t^2 > 0.25.
        [p, e * sn, e * (cos - gamma * sn), (1.0 - p) / s]
    } else {
        // Two decay rates: fast r1 = gamma + k, slow r2 = s / r1 (= gamma - k without
        // cancellation). Written relative to the slow exponential so nothing overflows.
        let k = disc.sqrt();
        let r1 = gamma + k;
        let r2 = s / r1;
        let slow = (-r2 * t).exp();
        let em = -(-2.0 * k * t).exp_m1(); // 1 - e^(-2kt), in (0, 1)
        let q = slow * em / (2.0 * k);
        let e_cosh = slow * (1.0 - 0.5 * em);
        // W = (g(r2) - g(r1)) / (r1 - r2) with g(r) = (1 - e^(-rt)) / r.
        let g = |rate: f64| {
            if rate * t < 1e-8 {
                t * (1.0 - 0.5 * rate * t)
            } else {
                -(-rate * t).exp_m1() / rate
            }
        };
        [
            e_cosh + gamma * q,
            q,
            e_cosh - gamma * q,
            (g(r2) - g(r1)) / (2.0 * k),
        ]
    }
}

/// `[P, Q, R, W]` by their Taylor series for `a = d t <= 1`, `b = s t^2 <= 1`. With
/// `H_m = h_m t^m`, `h` the complete symmetric polynomials of the two roots, `H_0 = 1`,
/// `H_1 = -a`, `H_m = -a H_(m-1) - b H_(m-2)`: `R = sum H_m / m!`, `Q = t sum H_m / (m+1)!`,
/// `W = t^2 sum H_m / (m+2)!`, `P = R + d Q`. `|H_m| <= m + 1`, so 24 terms reach f64 rounding.
fn taylor(a: f64, b: f64, t: f64) -> [f64; 4] {
    let (mut r, mut q, mut w) = (0.0, 0.0, 0.0);
    let (mut h_prev, mut h) = (0.0, 1.0); // H_(m-1), H_m
    let mut inv_fact = 1.0; // 1 / m!
    for m in 0..24 {
        let next_fact = inv_fact / (m + 1) as f64;
        let next_next_fact = next_fact / (m + 2) as f64;
        r += h * inv_fact;
        q += h * next_fact;
        w += h * next_next_fact;
        let h_next = -a * h - b * h_prev;
        h_prev = h;
        h = h_next;
        inv_fact = next_fact;
    }
    [r + a * q, t * q, r, t * t * w]
}

/// Steps position `x` and velocity `v` of the spring-damper `spring` (per unit mass) towards
/// `goal` and `goal_velocity` by `dt` (s), exactly: under-, critically and over-damped alike,
/// any `dt`, and `n` steps of `dt / n` give one step of `dt`. Bad input as in
/// [`SpringStep::new`] (a no-op, or a snap for a zero halflife).
///
/// ```
/// use sprung_spring::Spring;
/// use sprung_spring::spring_damper;
///
/// // A bouncy spring chasing a goal at 2 m, which moves at 1 m/s.
/// let spring = Spring::Frequency { hertz: 1.0, damping_ratio: 0.3 };
/// let (mut x, mut v) = (0.0_f32, 0.0_f32);
/// spring_damper(&mut x, &mut v, 2.0, 1.0, &spring, 0.1);
/// // The same one step at 30 fps or at 1000 fps: the closed form does not care.
/// let (mut x2, mut v2) = (0.0_f32, 0.0_f32);
/// for _ in 0..100 {
///     spring_damper(&mut x2, &mut v2, 2.0, 1.0, &spring, 0.001);
/// }
/// assert!((x - x2).abs() < 1e-5 && (v - v2).abs() < 1e-4);
/// ```
pub fn spring_damper<T: SpringValue>(
    x: &mut T,
    v: &mut T,
    goal: T,
    goal_velocity: T,
    spring: &Spring,
    dt: Real,
) {
    SpringStep::new(spring, dt).apply(x, v, goal, goal_velocity);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::spring_reference;
    use crate::Vector;

    fn settings() -> Vec<Spring> {
        let critical = |hertz| Spring::Frequency {
            hertz,
            damping_ratio: 1.0,
        };
        let ratio = |damping_ratio| Spring::Frequency {
            hertz: 1.3,
            damping_ratio,
        };
        vec![
            // Under-damped.
            ratio(0.1),
            Spring::Acceleration {
                stiffness: 400.0,
                damping: 4.0,
            },
            // Critical, through each form, and within 1e-4 of it on both sides.
            critical(1.3),
            Spring::Halflife { halflife: 0.3 },
            Spring::Acceleration {
                stiffness: 16.0,
                damping: 8.0,
            },
            ratio(1.0 - 1e-4),
            ratio(1.0 + 1e-4),
            ratio(1.0 - 3e-3),
            ratio(1.0 + 3e-3),
            // Over-damped, up to a pure damper and a free mass.
            ratio(2.5),
            Spring::Stiffness {
                stiffness: 0.5,
                damping: 30.0,
            },
            Spring::Acceleration {
                stiffness: 0.0,
                damping: 3.0,
            },
            Spring::Acceleration {
                stiffness: 0.0,
                damping: 0.0,
            },
        ]
    }

    #[test]
    fn matches_the_ode() {
        let (x0, v0, g, q) = (-0.7_f32, 1.5_f32, 0.4_f32, -0.8_f32);
        for spring in settings() {
            let (s, d) = crate::params::stiffness_damping(&spring);
            for dt in [0.004_f32, 0.05, 0.3, 1.1] {
                let (mut x, mut v) = (x0, v0);
                spring_damper(&mut x, &mut v, g, q, &spring, dt);
                let (xr, vr) = spring_reference(
                    x0 as f64, v0 as f64, g as f64, q as f64, s as f64, d as f64, dt as f64,
                );
                assert!(
                    (x as f64 - xr).abs() < 1e-4 && (v as f64 - vr).abs() < 1e-4,
                    "{spring:?} dt {dt}: ({x}, {v}) vs ({xr}, {vr})"
                );
            }
        }
    }

    #[test]
    fn frame_rate_independent() {
        let (g, q) = (Vector::new(1.0, -2.0, 0.5), Vector::new(0.3, 0.0, -1.0));
        for spring in settings() {
            let (mut x1, mut v1) = (Vector::new(-1.0, 0.5, 2.0), Vector::new(0.0, 2.0, -1.0));
            let (x0, v0) = (x1, v1);
            spring_damper(&mut x1, &mut v1, g, q, &spring, 0.4);
            for n in [2, 7, 16] {
                let (mut x, mut v) = (x0, v0);
                let step = SpringStep::new(&spring, 0.4 / n as Real);
                for _ in 0..n {
                    step.apply(&mut x, &mut v, g, q);
                }
                let scale = v1.norm().max(1.0);
                assert!(
                    (x - x1).norm() < 1e-5 && (v - v1).norm() < 1e-5 * scale,
                    "{spring:?} n {n}: {x:?} vs {x1:?}, {v:?} vs {v1:?}"
                );
            }
        }
    }

    #[test]
    fn smooth_across_critical_damping() {
        let run = |damping_ratio: Real| {
            let (mut x, mut v) = (1.0_f32, -0.5_f32);
            let spring = Spring::Frequency {
                hertz: 2.0,
                damping_ratio,
            };
            spring_damper(&mut x, &mut v, 0.0, 0.7, &spring, 0.37);
            assert!(x.is_finite() && v.is_finite());
            (x, v)
        };
        let (xc, vc) = run(1.0);
        // The result is smooth in zeta (here dv/dzeta is about 1.2): no jump between branches,
        // the steps on both sides are opposite, and tiny changes give tiny differences.
        for delta in [1e-6, 1e-5, 1e-4, 1e-3] {
            let (xa, va) = run(1.0 - delta);
            let (xb, vb) = run(1.0 + delta);
            assert!((xa - xc).abs() < 2.0 * delta + 1e-6 && (va - vc).abs() < 2.0 * delta + 1e-6);
            assert!(((xa - xc) + (xb - xc)).abs() < 1e-5, "delta {delta}");
            assert!(((va - vc) + (vb - vc)).abs() < 1e-5, "delta {delta}");
        }
    }

    #[test]
    fn extreme_parameters_stay_finite() {
        let (x0, v0, g, q) = (3.0_f32, -2.0_f32, 1.0_f32, 0.5_f32);
        let step = |spring: Spring, dt: Real| {
            let (mut x, mut v) = (x0, v0);
            spring_damper(&mut x, &mut v, g, q, &spring, dt);
            assert!(x.is_finite() && v.is_finite(), "{spring:?} {dt}: {x} {v}");
            (x, v)
        };
        // Halflife to zero: snap to the goal, at rest.
        for halflife in [0.0, 1e-30, Real::MIN_POSITIVE, 1e-45] {
            let (x, v) = step(Spring::Halflife { halflife }, 1.0 / 60.0);
            assert!(
                (x - g).abs() < 1e-6 && v.abs() < 1e-6,
                "{halflife}: {x} {v}"
            );
        }
        // Huge and tiny stiffnesses and dampings, huge and tiny steps.
        for (stiffness, damping) in [(1e30, 0.0), (1e30, 1e15), (1e-30, 1.0), (3e38, 3e38)] {
            for dt in [1e-30, 1e-3, 1e6] {
                step(Spring::Acceleration { stiffness, damping }, dt);
            }
        }
        // A long step reaches the equilibrium g + d q / s at rest.
        let (x, v) = step(
            Spring::Acceleration {
                stiffness: 4.0,
                damping: 2.0,
            },
            1e6,
        );
        assert!((x - (g + 2.0 * q / 4.0)).abs() < 1e-6 && v.abs() < 1e-6);
        // An infinite halflife coasts.
        let (x, v) = step(
            Spring::Halflife {
                halflife: Real::INFINITY,
            },
            0.5,
        );
        assert!((x - (x0 + 0.5 * v0)).abs() < 1e-6 && v == v0);
    }

    #[test]
    fn bad_input_is_a_no_op() {
        let good = Spring::Halflife { halflife: 0.2 };
        for dt in [0.0, -0.1, Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
            assert_eq!(SpringStep::new(&good, dt), SpringStep::IDENTITY);
        }
        for spring in [
            Spring::Halflife { halflife: -1.0 },
            Spring::Halflife {
                halflife: Real::NAN,
            },
            Spring::Frequency {
                hertz: Real::INFINITY,
                damping_ratio: 1.0,
            },
            Spring::Frequency {
                hertz: 1.0,
                damping_ratio: -1.0,
            },
            Spring::Stiffness {
                stiffness: Real::NAN,
                damping: 1.0,
            },
            Spring::Acceleration {
                stiffness: -4.0,
                damping: 1.0,
            },
        ] {
            let (mut x, mut v) = (Vector::new(1.0, 2.0, 3.0), Vector::new(-1.0, 0.0, 1.0));
            let (x0, v0) = (x, v);
            spring_damper(&mut x, &mut v, Vector::zeros(), Vector::x(), &spring, 0.1);
            assert_eq!((x, v), (x0, v0), "{spring:?}");
        }
    }
}

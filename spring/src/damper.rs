//! The exponential (implicit) damper: a value eased towards a goal, exact for any time step.
//!
//! After Daniel Holden, "Spring-It-On" (the damper and its halflife): lerping by a fixed
//! factor per frame depends on the frame rate, and `damping * dt` explodes past 1. The exact
//! recurrence moves `x` towards the goal by the fraction `1 - 2^(-dt / halflife)`, which closes
//! exactly half the distance in one halflife whatever the step, and stepping `n` times by
//! `dt / n` equals one step of `dt`.
//!
//! Also here: Holden's cheap rational approximation of `exp(-x)`, with its measured error. The
//! toolkit's exact functions use the standard `exp`, because the approximation breaks the
//! frame-rate independence they promise.

use super::{lerp, valid_dt, SpringValue};
use crate::Real;
use std::f32::consts::LN_2;

/// The fraction (0..1) of the remaining distance an exponential damper of `halflife` (s)
/// closes in `dt` (s): `1 - 2^(-dt / halflife)`. Zero for a no-op input (`dt` not finite or not
/// positive, halflife NaN or negative) and for an infinite halflife; one for a zero halflife.
pub fn damper_alpha(halflife: Real, dt: Real) -> Real {
    if !valid_dt(dt) || halflife.is_nan() || halflife < 0.0 {
        return 0.0;
    }
    // dt / 0 = inf gives 1 (snap); dt / inf = 0 gives 0 (no pull).
    -(-LN_2 * (dt / halflife)).exp_m1()
}

/// Eases `x` towards `goal` with the exact exponential damper of `halflife` (s) over `dt` (s),
/// and returns the new value. Frame-rate independent: the distance to the goal is multiplied by
/// `2^(-dt / halflife)`.
///
/// Bad input: `dt` not finite or not positive, or `halflife` NaN or negative, returns `x`
/// unchanged; `halflife == 0` returns `goal`; an infinite halflife returns `x`.
pub fn damper<T: SpringValue>(x: T, goal: T, halflife: Real, dt: Real) -> T {
    lerp(x, goal, damper_alpha(halflife, dt))
}

/// [`damper`] with [`fast_negexp`] in place of `exp`: cheaper, but the fraction is off by up to
/// 0.019, and by at most 0.13% of itself when `dt <= 1.44 halflife` (where the argument of
/// `exp` is at most 1), so it is not exactly frame-rate independent. For display smoothing where that does not matter. Same bad-input behaviour.
pub fn damper_fast<T: SpringValue>(x: T, goal: T, halflife: Real, dt: Real) -> T {
    if !valid_dt(dt) || halflife.is_nan() || halflife < 0.0 {
        return x;
    }
    lerp(x, goal, 1.0 - fast_negexp(LN_2 * (dt / halflife)))
}

/// A fast approximation of `exp(-x)`: `1 / (1 + x + 0.48 x^2 + 0.235 x^3)` (Holden's rational
/// fit), one division and no transcendental call.
///
/// Error for `x >= 0` (measured against `exp` on a fine grid, and checked by the tests): the
/// absolute error is at most 0.019 (worst near `x = 3.3`, where `exp(-x)` is 0.036); the
/// relative error is at most 0.04% for `x <= 0.5` and 0.13% for `x <= 1`, and grows without
/// bound for large `x` (the approximation decays as `x^-3`, not exponentially). For `x < 0` it
/// returns `1 / fast_negexp(-x)`, with the same relative error as at `-x`. NaN gives NaN;
/// `+inf` gives 0.
pub fn fast_negexp(x: Real) -> Real {
    let z = x.abs();
    let approx = 1.0 / (1.0 + z + 0.48 * z * z + 0.235 * z * z * z);
    if x < 0.0 {
        1.0 / approx
    } else {
        approx
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Vector;

    #[test]
    fn halves_in_one_halflife() {
        let halflife = 0.35;
        for n in [1, 3, 60] {
            let mut x = 10.0_f32;
            for _ in 0..n {
                x = damper(x, 2.0, halflife, halflife / n as Real);
            }
            // Half of the 8 units left: 6, within 1%.
            assert!((x - 6.0).abs() < 0.01 * 4.0, "n = {n}: {x}");
        }
    }

    #[test]
    fn frame_rate_independent_on_vectors() {
        let goal = Vector::new(1.0, -2.0, 0.5);
        let start = Vector::new(-3.0, 4.0, 2.0);
        let one = damper(start, goal, 0.2, 0.5);
        for n in [2, 5, 16] {
            let mut x = start;
            for _ in 0..n {
                x = damper(x, goal, 0.2, 0.5 / n as Real);
            }
            assert!((x - one).norm() < 1e-5, "n = {n}");
        }
        // Componentwise it is the scalar damper.
        for i in 0..3 {
            assert!((one[i] - damper(start[i], goal[i], 0.2, 0.5)).abs() < 1e-6);
        }
    }

    #[test]
    fn bad_input() {
        let x = 3.0_f32;
        for dt in [0.0, -1.0, Real::NAN, Real::INFINITY] {
            assert_eq!(damper(x, 1.0, 0.5, dt), x);
            assert_eq!(damper_fast(x, 1.0, 0.5, dt), x);
        }
        for halflife in [-1.0, Real::NAN, Real::INFINITY] {
            assert_eq!(damper(x, 1.0, halflife, 0.1), x);
        }
        // Zero halflife (and a denormal one) snaps.
        assert_eq!(damper(x, 1.0, 0.0, 0.1), 1.0);
        assert_eq!(damper(x, 1.0, 1e-44, 0.1), 1.0);
        assert_eq!(damper_fast(x, 1.0, 0.0, 0.1), 1.0);
        assert_eq!(fast_negexp(Real::INFINITY), 0.0);
    }

    #[test]
    fn fast_negexp_within_documented_error() {
        let mut worst_abs = 0.0_f64;
        for i in 0..=200_000 {
            let x = i as f64 * 1e-4; // 0..20
            let exact = (-x).exp();
            let approx = fast_negexp(x as Real) as f64;
            let abs = (approx - exact).abs();
            worst_abs = worst_abs.max(abs);
            if x <= 0.5 {
                assert!(abs <= 4.0e-4 * exact, "x = {x}");
            }
            if x <= 1.0 {
                assert!(abs <= 1.3e-3 * exact, "x = {x}");
            }
            // Negative arguments: same relative error as at -x.
            if x <= 1.0 {
                let neg = fast_negexp(-x as Real) as f64;
                assert!((neg - x.exp()).abs() <= 1.3e-3 * x.exp(), "x = -{x}");
            }
        }
        assert!(worst_abs <= 0.019, "{worst_abs}");
        // The bound is tight: the error does reach most of it.
        assert!(worst_abs > 0.018);
    }

    #[test]
    fn fast_damper_is_close() {
        // The fraction closed is within 0.13% of the exact one for dt <= 1.44 halflife.
        let halflife = 0.3;
        for i in 1..=1440 {
            let dt = halflife * i as Real * 1e-3;
            let exact = damper(0.0_f32, 1.0, halflife, dt);
            let fast = damper_fast(0.0_f32, 1.0, halflife, dt);
            assert!((exact - fast).abs() <= 1.3e-3 * exact + 1e-6, "dt = {dt}");
        }
    }
}

//! Softness: how a row turns its position error into a velocity target, rigid or soft.
//!
//! In: a rigid row's Baumgarte factor, or a spring's frequency and damping ratio (or stiffness
//! and damping), and the time step. Out: three numbers that every row uses the same way:
//! `dλ = -effective_mass * mass_scale * (J·v - target + bias_rate * C) - impulse_scale * λ`.
//!
//! - Rigid (Baumgarte): `bias_rate = β / h`, `mass_scale = 1`, `impulse_scale = 0`.
//! - Spring of frequency f (ω = 2πf) and damping ratio ζ, solved implicitly (Catto, "Soft
//!   Constraints", GDC 2011): `a1 = 2ζ + hω`, `a2 = hω a1`, `a3 = 1 / (1 + a2)`;
//!   `bias_rate = ω / a1`, `mass_scale = a2 a3`, `impulse_scale = a3`.
//!
//! One type for both, so that rigid and soft rows share one code path.

use crate::Real;

/// The per-step coefficients of a row's position correction.
///
/// ```
/// use sprung_solver::softness::Softness;
///
/// let rigid = Softness::rigid(0.2, 1.0 / 60.0);
/// assert!((rigid.bias_rate - 12.0).abs() < 1e-4);
/// assert_eq!((rigid.mass_scale, rigid.impulse_scale), (1.0, 0.0));
/// // A very stiff spring tends to the rigid row with full correction.
/// let stiff = Softness::spring(1.0e6, 1.0, 1.0 / 60.0);
/// assert!(stiff.mass_scale > 0.999 && stiff.impulse_scale < 1e-3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Softness {
    /// Multiplies the position error C (1/s).
    pub bias_rate: Real,
    /// Scales the effective mass (1 for a rigid row).
    pub mass_scale: Real,
    /// Fraction of the accumulated impulse that leaks each iteration (0 for a rigid row).
    pub impulse_scale: Real,
}

impl Softness {
    /// A rigid row that ignores its position error (friction, relax iterations).
    pub const RIGID: Softness = Softness {
        bias_rate: 0.0,
        mass_scale: 1.0,
        impulse_scale: 0.0,
    };

    /// A rigid row with Baumgarte factor `beta` (0..1) at step `dt` (s).
    pub fn rigid(beta: Real, dt: Real) -> Softness {
        Softness {
            bias_rate: beta / dt,
            mass_scale: 1.0,
            impulse_scale: 0.0,
        }
    }

    /// A spring of `hertz` and `damping_ratio`, solved implicitly at step `dt` (s). A frequency
    /// of zero gives a row that does nothing.
    pub fn spring(hertz: Real, damping_ratio: Real, dt: Real) -> Softness {
        if hertz <= 0.0 {
            return Softness {
                bias_rate: 0.0,
                mass_scale: 0.0,
                impulse_scale: 1.0,
            };
        }
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let a1 = 2.0 * damping_ratio + dt * omega;
        let a2 = dt * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
            impulse_scale: a3,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An isolated implicit spring on a unit mass, stepped with the row formula, matches the
    /// implicit (backward Euler) recurrence of x'' = -k x - c x' exactly.
    #[test]
    fn spring_row_is_the_implicit_recurrence() {
        let (hertz, zeta, h) = (5.0_f32, 0.3_f32, 1.0 / 60.0);
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let (k, c) = (omega * omega, 2.0 * zeta * omega);
        let s = Softness::spring(hertz, zeta, h);
        let (mut x, mut v) = (1.0_f32, 0.0_f32);
        let (mut xr, mut vr) = (1.0_f64, 0.0_f64);
        for _ in 0..120 {
            // One row iteration from zero accumulated impulse: C = x, J = 1, m = 1.
            let impulse = -s.mass_scale * (v + s.bias_rate * x);
            v += impulse;
            x += h * v;
            // Backward Euler: v1 = v0 + h (-k x1 - c v1), x1 = x0 + h v1.
            let (hd, kd, cd) = (h as f64, k as f64, c as f64);
            vr = (vr - hd * kd * xr) / (1.0 + hd * cd + hd * hd * kd);
            xr += hd * vr;
            assert!((x as f64 - xr).abs() < 1e-5, "{x} vs {xr}");
        }
    }
}

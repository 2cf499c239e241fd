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

/// How a soft row (or a toolkit spring) is set, in the terms people reason about. One type for
/// every spring of sprung: soft joints, attachments, upright constraints, soft contacts and the
/// gameplay toolkit.
///
/// ```
/// use sprung_solver::softness::Spring;
///
/// let wobbly = Spring::Frequency { hertz: 2.0, damping_ratio: 0.3 };
/// assert!(wobbly.check().is_ok());
/// assert!(Spring::Stiffness { stiffness: -1.0, damping: 0.0 }.check().is_err());
/// // A halflife is a critically damped spring that closes half the distance in that time.
/// let omega = Spring::Halflife { halflife: 0.5 }.angular_frequency(1.0);
/// assert!((omega - 1.678_347 / 0.5).abs() < 1e-4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Spring {
    /// Frequency (Hz) and damping ratio (1 = critical): the same motion whatever the masses.
    Frequency {
        /// Undamped frequency (Hz, >= 0).
        hertz: Real,
        /// Damping ratio (>= 0; 1 is critical).
        damping_ratio: Real,
    },
    /// Stiffness and damping in physical units (N/m and N s/m, or N m/rad and N m s/rad): the
    /// motion depends on the masses, and at rest the force is exactly Hooke's `k x`.
    Stiffness {
        /// Stiffness (>= 0).
        stiffness: Real,
        /// Damping (>= 0).
        damping: Real,
    },
    /// Stiffness and damping per unit of the row's effective mass (1/s^2 and 1/s): the
    /// acceleration mode, which tunes the motion and ignores the mass.
    Acceleration {
        /// Stiffness per unit mass (1/s^2, >= 0).
        stiffness: Real,
        /// Damping per unit mass (1/s, >= 0).
        damping: Real,
    },
    /// Critically damped, closing half the distance from rest in `halflife` (s, > 0). The
    /// convention is exact: from rest, x(t) = x0 (1 + wt) e^(-wt) halves at wt = 1.678347.
    Halflife {
        /// Time to close half the distance (s).
        halflife: Real,
    },
}

/// `w t` at which a critically damped spring released from rest has closed half the distance:
/// the root of `(1 + y) e^-y = 1/2`.
pub const CRITICAL_HALF: Real = 1.678_347;

/// Largest spring frequency (Hz).
pub const MAX_HERTZ: Real = 1e6;
/// Largest damping ratio.
pub const MAX_DAMPING_RATIO: Real = 1e6;
/// Largest stiffness (N/m, or 1/s² as an acceleration) and damping (N s/m, or 1/s).
pub const MAX_STIFFNESS: Real = 1e15;
/// Shortest halflife (s).
pub const MIN_HALFLIFE: Real = 1e-6;
/// Longest halflife (s).
pub const MAX_HALFLIFE: Real = 1e6;

/// Why a spring was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpringError {
    /// A parameter was NaN or infinite.
    NonFinite,
    /// A parameter was negative (or a halflife not positive).
    Negative,
    /// A parameter past its bound (see [`Spring::check`]): squared inside the solver, it
    /// would overflow f32.
    OutOfRange,
}

impl std::fmt::Display for SpringError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpringError::NonFinite => write!(f, "spring parameters must be finite"),
            SpringError::Negative => write!(
                f,
                "spring parameters must not be negative (a halflife must be positive)"
            ),
            SpringError::OutOfRange => write!(
                f,
                "spring parameters out of range (hertz and damping ratio at most 1e6, \
                 stiffness and damping at most 1e15, halflife 1e-6 to 1e6 s)"
            ),
        }
    }
}

impl std::error::Error for SpringError {}

impl Spring {
    /// Checks the parameters: finite, not negative, a positive halflife, and within the
    /// bounds below, past which the solver's squares of them overflow f32: frequency and
    /// damping ratio at most [`MAX_HERTZ`] and [`MAX_DAMPING_RATIO`], stiffness and damping at
    /// most [`MAX_STIFFNESS`], a halflife from [`MIN_HALFLIFE`] to [`MAX_HALFLIFE`].
    pub fn check(&self) -> Result<(), SpringError> {
        let (a, b) = match *self {
            Spring::Frequency {
                hertz,
                damping_ratio,
            } => (hertz, damping_ratio),
            Spring::Stiffness { stiffness, damping }
            | Spring::Acceleration { stiffness, damping } => (stiffness, damping),
            Spring::Halflife { halflife } => (halflife, 1.0),
        };
        if !(a.is_finite() && b.is_finite()) {
            return Err(SpringError::NonFinite);
        }
        if a < 0.0 || b < 0.0 || matches!(self, Spring::Halflife { halflife } if *halflife <= 0.0) {
            return Err(SpringError::Negative);
        }
        let within = match *self {
            Spring::Frequency {
                hertz,
                damping_ratio,
            } => hertz <= MAX_HERTZ && damping_ratio <= MAX_DAMPING_RATIO,
            Spring::Stiffness { stiffness, damping }
            | Spring::Acceleration { stiffness, damping } => {
                stiffness <= MAX_STIFFNESS && damping <= MAX_STIFFNESS
            }
            Spring::Halflife { halflife } => (MIN_HALFLIFE..=MAX_HALFLIFE).contains(&halflife),
        };
        if !within {
            return Err(SpringError::OutOfRange);
        }
        Ok(())
    }

    /// The undamped angular frequency (rad/s) on a row of `effective_mass` (kg or kg m^2).
    pub fn angular_frequency(&self, effective_mass: Real) -> Real {
        match *self {
            Spring::Frequency { hertz, .. } => 2.0 * std::f32::consts::PI * hertz,
            Spring::Stiffness { stiffness, .. } => {
                (stiffness / effective_mass.max(Real::MIN_POSITIVE)).sqrt()
            }
            Spring::Acceleration { stiffness, .. } => stiffness.sqrt(),
            Spring::Halflife { halflife } => CRITICAL_HALF / halflife,
        }
    }

    /// The damping ratio on a row of `effective_mass`.
    pub fn damping_ratio(&self, effective_mass: Real) -> Real {
        let omega = self.angular_frequency(effective_mass);
        match *self {
            Spring::Frequency { damping_ratio, .. } => damping_ratio,
            Spring::Stiffness { damping, .. } => {
                if omega > 0.0 {
                    damping / (2.0 * effective_mass * omega)
                } else {
                    0.0
                }
            }
            Spring::Acceleration { damping, .. } => {
                if omega > 0.0 {
                    damping / (2.0 * omega)
                } else {
                    0.0
                }
            }
            Spring::Halflife { .. } => 1.0,
        }
    }
}

impl Softness {
    /// The implicit coefficients of `spring` on a row of `effective_mass` at step `dt`.
    /// Stiffness and damping in physical units use PHYSICS.md's form directly, so that the
    /// resting force is exactly `k C`; the others go through frequency and damping ratio.
    pub fn from_spring(spring: &Spring, effective_mass: Real, dt: Real) -> Softness {
        match *spring {
            Spring::Stiffness { stiffness, damping } => {
                let denominator = damping + dt * stiffness;
                if denominator <= 0.0 || effective_mass <= 0.0 {
                    return Softness::spring(0.0, 0.0, dt);
                }
                let gamma = 1.0 / (dt * denominator);
                let m_gamma = effective_mass * gamma;
                Softness {
                    bias_rate: stiffness / denominator,
                    mass_scale: 1.0 / (1.0 + m_gamma),
                    impulse_scale: m_gamma / (1.0 + m_gamma),
                }
            }
            _ => {
                let omega = spring.angular_frequency(effective_mass);
                let zeta = spring.damping_ratio(effective_mass);
                let hertz = omega / (2.0 * std::f32::consts::PI);
                if hertz <= 0.0 && zeta > 0.0 {
                    // A pure damper: no position term.
                    let c = 2.0 * zeta * effective_mass;
                    return Softness::from_spring(
                        &Spring::Stiffness {
                            stiffness: 0.0,
                            damping: c,
                        },
                        effective_mass,
                        dt,
                    );
                }
                Softness::spring(hertz, zeta, dt)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stiffness form is the frequency form with k = m w^2, c = 2 m zeta w (PHYSICS.md).
    #[test]
    fn stiffness_and_frequency_forms_agree() {
        let (m, hertz, zeta, dt) = (0.5_f32, 22.5_f32, 0.5_f32, 1.0 / 60.0);
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let a = Softness::spring(hertz, zeta, dt);
        let b = Softness::from_spring(
            &Spring::Stiffness {
                stiffness: m * omega * omega,
                damping: 2.0 * m * zeta * omega,
            },
            m,
            dt,
        );
        let c = Softness::from_spring(
            &Spring::Acceleration {
                stiffness: omega * omega,
                damping: 2.0 * zeta * omega,
            },
            7.0,
            dt,
        );
        for s in [b, c] {
            assert!((a.bias_rate - s.bias_rate).abs() < 1e-3 * a.bias_rate);
            assert!((a.mass_scale - s.mass_scale).abs() < 1e-5);
            assert!((a.impulse_scale - s.impulse_scale).abs() < 1e-5);
        }
    }

    /// At rest the stiffness form gives Hooke's law: the impulse that holds C steady is -h k C.
    #[test]
    fn stiffness_form_rests_at_hookes_law() {
        let (m, k, c, h) = (0.5_f32, 10_000.0_f32, 70.0_f32, 1.0 / 240.0);
        let s = Softness::from_spring(
            &Spring::Stiffness {
                stiffness: k,
                damping: c,
            },
            m,
            h,
        );
        // Steady state: J v = 0 and the accumulated impulse no longer changes:
        // 0 = -m ms (bias_rate C) - is lambda  =>  lambda = -m ms bias_rate C / is.
        let cx = 0.01;
        let lambda = -m * s.mass_scale * s.bias_rate * cx / s.impulse_scale;
        assert!(
            (lambda - (-h * k * cx)).abs() < 1e-4 * (h * k * cx),
            "{lambda} vs {}",
            -h * k * cx
        );
    }

    #[test]
    fn halflife_spring_halves_the_distance() {
        // The continuous critically damped solution from rest, at t = halflife.
        let halflife = 0.3_f32;
        let omega = Spring::Halflife { halflife }.angular_frequency(1.0);
        let x = (1.0 + omega * halflife) * (-omega * halflife).exp();
        assert!((x - 0.5).abs() < 1e-5);
    }

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

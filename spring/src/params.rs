//! Parameters of springs: [`Spring`], the one type every spring of sprung is set with (the
//! solver's soft rows and the toolkit alike), its bounds, and the conversions between the
//! toolkit's parameters.
//!
//! A toolkit spring is per unit mass: `a = s (g - x) + d (q - v)` with stiffness `s` (1/s^2)
//! and damping `d` (1/s). The same spring is described by its undamped angular frequency
//! `w = sqrt(s)` (rad/s) or frequency `w / 2 pi` (Hz) and damping ratio `zeta = d / (2 w)`, and,
//! when critically damped (`zeta = 1`), by its halflife: the time (s) it takes, released from
//! rest, to close half the distance to its goal. The halflife uses the engine's exact convention
//! `w = CRITICAL_HALF / halflife` ([`CRITICAL_HALF`]).
//!
//! Daniel Holden's "Spring-It-On" uses `d = 4 ln 2 / halflife` instead, an approximation that
//! halves the distance at about 0.83 of its halflife; [`HOLDEN_HALFLIFE_SCALE`] converts.
//! The plain exponential damper ([`super::damper()`]) has its own halflife, exact by
//! construction; [`decay_rate`] converts it to a rate.

use crate::Real;
use std::f32::consts::{LN_2, PI};

/// How a soft row (or a toolkit spring) is set, in the terms people reason about. One type for
/// every spring of sprung: soft joints, attachments, upright constraints, soft contacts and the
/// gameplay toolkit.
///
/// ```
/// use sprung_spring::Spring;
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

/// Multiply a halflife tuned with Holden's convention (`d = 4 ln 2 / h`) by this to get the
/// halflife (s) of the same critically damped spring in the toolkit's exact convention.
pub const HOLDEN_HALFLIFE_SCALE: Real = CRITICAL_HALF / (2.0 * LN_2);

/// The stiffness (1/s^2) and damping (1/s) per unit mass of `spring` (effective mass 1, so the
/// `Stiffness` and `Acceleration` forms coincide). Invalid parameters give NaN or infinities;
/// check them with [`Spring::check`] first.
pub fn stiffness_damping(spring: &Spring) -> (Real, Real) {
    let omega = spring.angular_frequency(1.0);
    match *spring {
        Spring::Stiffness { stiffness, damping } | Spring::Acceleration { stiffness, damping } => {
            (stiffness, damping)
        }
        _ => (omega * omega, 2.0 * spring.damping_ratio(1.0) * omega),
    }
}

/// `spring` in the acceleration form (stiffness 1/s^2, damping 1/s per unit mass).
pub fn to_acceleration(spring: &Spring) -> Spring {
    let (stiffness, damping) = stiffness_damping(spring);
    Spring::Acceleration { stiffness, damping }
}

/// `spring` in the frequency form (Hz and damping ratio), per unit mass.
pub fn to_frequency(spring: &Spring) -> Spring {
    Spring::Frequency {
        hertz: spring.angular_frequency(1.0) / (2.0 * PI),
        damping_ratio: spring.damping_ratio(1.0),
    }
}

/// The stiffness per unit mass (1/s^2) of a spring of undamped frequency `hertz` (Hz).
pub fn frequency_to_stiffness(hertz: Real) -> Real {
    let omega = 2.0 * PI * hertz;
    omega * omega
}

/// The undamped frequency (Hz) of a spring of stiffness per unit mass `stiffness` (1/s^2, >= 0;
/// a negative stiffness gives NaN).
pub fn stiffness_to_frequency(stiffness: Real) -> Real {
    stiffness.sqrt() / (2.0 * PI)
}

/// The damping per unit mass (1/s) that gives `damping_ratio` to a spring of stiffness per unit
/// mass `stiffness` (1/s^2).
pub fn damping_ratio_to_damping(stiffness: Real, damping_ratio: Real) -> Real {
    2.0 * damping_ratio * stiffness.sqrt()
}

/// The damping ratio of a spring of stiffness `stiffness` (1/s^2) and damping `damping` (1/s)
/// per unit mass. Zero stiffness gives 0 for no damping and infinity otherwise (a pure damper is
/// infinitely overdamped).
pub fn damping_to_damping_ratio(stiffness: Real, damping: Real) -> Real {
    let omega = stiffness.sqrt();
    if omega > 0.0 {
        damping / (2.0 * omega)
    } else if damping > 0.0 {
        Real::INFINITY
    } else {
        0.0
    }
}

/// The undamped angular frequency (rad/s) of the critical spring of `halflife` (s).
pub fn halflife_to_angular_frequency(halflife: Real) -> Real {
    CRITICAL_HALF / halflife
}

/// The halflife (s) of the critical spring of undamped angular frequency `omega` (rad/s).
pub fn angular_frequency_to_halflife(omega: Real) -> Real {
    CRITICAL_HALF / omega
}

/// The undamped frequency (Hz) of the critical spring of `halflife` (s): the frequency to use
/// with a damping ratio of 1 for the same motion as `Spring::Halflife { halflife }`.
pub fn halflife_to_frequency(halflife: Real) -> Real {
    halflife_to_angular_frequency(halflife) / (2.0 * PI)
}

/// The halflife (s) of the critically damped spring of undamped frequency `hertz` (Hz).
pub fn frequency_to_halflife(hertz: Real) -> Real {
    angular_frequency_to_halflife(2.0 * PI * hertz)
}

/// The damping per unit mass (1/s) of the critical spring of `halflife` (s): `2 w`.
pub fn halflife_to_damping(halflife: Real) -> Real {
    2.0 * halflife_to_angular_frequency(halflife)
}

/// The halflife (s) of the critical spring of damping per unit mass `damping` (1/s).
pub fn damping_to_halflife(damping: Real) -> Real {
    2.0 * CRITICAL_HALF / damping
}

/// The rate (1/s) of the exponential damper of `halflife` (s): `x - g` decays as `e^(-rate t)`,
/// `rate = ln 2 / halflife`.
pub fn decay_rate(halflife: Real) -> Real {
    LN_2 / halflife
}

/// The halflife (s) of the exponential damper that decays at `rate` (1/s).
pub fn decay_rate_to_halflife(rate: Real) -> Real {
    LN_2 / rate
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Real, b: Real, tolerance: Real) -> bool {
        (a - b).abs() <= tolerance * b.abs().max(1.0)
    }

    #[test]
    fn forms_round_trip() {
        for spring in [
            Spring::Frequency {
                hertz: 1.5,
                damping_ratio: 0.3,
            },
            Spring::Frequency {
                hertz: 0.2,
                damping_ratio: 2.5,
            },
            Spring::Acceleration {
                stiffness: 40.0,
                damping: 3.0,
            },
            Spring::Stiffness {
                stiffness: 9.0,
                damping: 6.0,
            },
            Spring::Halflife { halflife: 0.25 },
        ] {
            let (s, d) = stiffness_damping(&spring);
            let back = stiffness_damping(&to_acceleration(&to_frequency(&spring)));
            assert!(
                close(back.0, s, 1e-5) && close(back.1, d, 1e-5),
                "{spring:?}"
            );
            let zeta = damping_to_damping_ratio(s, d);
            assert!(close(zeta, spring.damping_ratio(1.0), 1e-5));
            assert!(close(damping_ratio_to_damping(s, zeta), d, 1e-5));
            let hertz = stiffness_to_frequency(s);
            assert!(close(frequency_to_stiffness(hertz), s, 1e-5));
        }
    }

    #[test]
    fn halflife_conversions() {
        let halflife = 0.4;
        let omega = halflife_to_angular_frequency(halflife);
        assert!(close(
            omega,
            Spring::Halflife { halflife }.angular_frequency(1.0),
            1e-6
        ));
        assert!(close(angular_frequency_to_halflife(omega), halflife, 1e-6));
        assert!(close(
            frequency_to_halflife(halflife_to_frequency(halflife)),
            halflife,
            1e-6
        ));
        assert!(close(
            damping_to_halflife(halflife_to_damping(halflife)),
            halflife,
            1e-6
        ));
        // The critical spring of that halflife has damping ratio 1.
        let d = halflife_to_damping(halflife);
        assert!(close(damping_to_damping_ratio(omega * omega, d), 1.0, 1e-6));
        // Same spring through the frequency form.
        let (s, d2) = stiffness_damping(&Spring::Frequency {
            hertz: halflife_to_frequency(halflife),
            damping_ratio: 1.0,
        });
        assert!(close(s, omega * omega, 1e-5) && close(d2, d, 1e-5));
        // Damper rate: e^(-rate h) = 1/2.
        assert!(close((-decay_rate(halflife) * halflife).exp(), 0.5, 1e-6));
        assert!(close(
            decay_rate_to_halflife(decay_rate(halflife)),
            halflife,
            1e-6
        ));
    }

    #[test]
    fn holden_scale_maps_his_damping() {
        // Holden: d = 4 ln 2 / h. The same spring in our convention has halflife h * scale.
        let holden = 0.3;
        let d_holden = 4.0 * LN_2 / holden;
        assert!(close(
            halflife_to_damping(holden * HOLDEN_HALFLIFE_SCALE),
            d_holden,
            1e-6
        ));
    }

    #[test]
    fn pure_damper_ratio() {
        assert_eq!(damping_to_damping_ratio(0.0, 1.0), Real::INFINITY);
        assert_eq!(damping_to_damping_ratio(0.0, 0.0), 0.0);
    }
}

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
//! One type for both, so that rigid and soft rows share one code path. The implicit spring
//! above damps more than asked (about `h omega / 2` per application); the springs users set
//! are solved with [`SpringSoftness`] instead, whose two passes together follow the closed-form
//! oscillator exactly, falling back to the implicit form only where that cannot be stable.

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

pub use sprung_spring::{
    Spring, SpringError, CRITICAL_HALF, MAX_DAMPING_RATIO, MAX_HALFLIFE, MAX_HERTZ, MAX_STIFFNESS,
    MIN_HALFLIFE,
};

impl Softness {
    /// The implicit coefficients of `spring` on a row of `effective_mass` at step `dt`, the
    /// same in every pass (Catto 2011; what [`SpringSoftness`] falls back to where it cannot
    /// be exact). Stiffness and damping in physical units use PHYSICS.md's form directly, so
    /// that the resting force is exactly `k C`; the others go through frequency and damping
    /// ratio.
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

/// How negative the relax pass's mass scale may go, per unit of the spring's damping ratio
/// (see [`SpringSoftness`]).
const RELAX_PER_DAMPING: f64 = 1.0;

/// Largest `omega h` at which a spring whose relax scale was held up is still solved with the
/// exact biased pass (stable up to about 2 for an undamped spring; past it, implicit).
const MAX_HELD_OMEGA_H: f64 = 1.0;

/// Extra damping ratio past which a spring held to [`RELAX_PER_DAMPING`] is reported.
const REPORTED_EXTRA_DAMPING: f64 = 0.01;

/// A spring row's coefficients for the two passes of a substep, chosen so that an isolated
/// spring moves exactly as the closed-form damped oscillator does, whatever the substep.
///
/// Why two: an implicit (backward Euler) spring applied once per substep is stable at any
/// stiffness but damps by about `h omega / 2` more than asked, and twice per substep (biased
/// and relax passes) twice that: a 10 Hz spring of damping ratio 0.02 at dt = 1/30 decayed as
/// if its ratio were 0.30. Per substep the solver does, for one row of effective mass `m`
/// (velocity `v` after gravity, stretch `C`, impulses divided by `m`):
///
/// - biased pass: `v3 = (1 - s1) v - P C`, with `mass_scale = s1`, `bias_rate = P / s1` and
///   `impulse_scale = 1 - s1` (the warm-started impulse is taken back whole, so the row keeps
///   no memory between substeps);
/// - positions: `C' = C + h v3`;
/// - relax pass: `v' = (1 - s2) v3`, a damper (`mass_scale = s2`, no bias, no leak).
///
/// That map of `(C, v)` has determinant `(1 - s1)(1 - s2)` and trace `1 - hP + (1 - s1)(1 - s2)`,
/// and holds still under a constant load `m g` at `C = g / omega^2`, Hooke's stretch, when
/// `P = h omega^2 (1 - s1)`. Matching the determinant and trace to the exact oscillator's over
/// `h`, `exp(-2 zeta omega h)` and `exp(r1 h) + exp(r2 h)` for its roots `r1, r2`, gives
/// `1 - s1 = e = phi(r1 h) phi(r2 h)` with `phi(z) = (exp(z) - 1) / z`, and
/// `1 - s2 = exp(-2 zeta omega h) / e`. `e` is in (0, 1]; `s2` goes negative (the relax pass
/// gives back energy the biased pass took) for light damping at high `omega h`: an undamped
/// spring has `s2 = -0.01` at `omega h = 0.3`, `-0.09` at 1.
///
/// Exact for one spring, that negative scale is not safe for a network: Gauss-Seidel's biased
/// pass takes less energy from coupled rows than from one alone, and the relax pass gives back
/// the single spring's share. Measured on a chain of 12 bodies on undamped 10,000 N/m springs
/// (modes up to `omega h = 0.48`), the energy grew 75% in 20 s; at 30,000 N/m it grew 30-fold
/// in 10 s. The relax scale is therefore held at `-zeta` or above: the spring's own damping
/// then outweighs what the coupling gives back (the chain's energy fell at every stiffness and
/// damping ratio tried, from 0 to 0.1). An undamped or very lightly damped spring held this way
/// is damped by its biased pass alone, about `omega h / 24` in damping ratio instead of the
/// implicit spring's `omega h`; past `omega h = 1`, where that is no longer stable, it falls back
/// to the implicit coefficients in both passes, stable at any stiffness. Either way `limited`
/// says so when the damping ratio rises by more than 0.01.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringSoftness {
    /// The coefficients of the biased pass.
    pub biased: Softness,
    /// The coefficients of the relax pass.
    pub relax: Softness,
    /// Whether the spring could not be exact at this substep and fell back to the implicit
    /// coefficients (more damped than asked).
    pub limited: bool,
}

impl SpringSoftness {
    /// A row that does nothing (a spring of zero stiffness and damping).
    const OFF: SpringSoftness = SpringSoftness {
        biased: Softness {
            bias_rate: 0.0,
            mass_scale: 0.0,
            impulse_scale: 1.0,
        },
        relax: Softness {
            bias_rate: 0.0,
            mass_scale: 0.0,
            impulse_scale: 1.0,
        },
        limited: false,
    };

    /// The coefficients of `spring` on a row of `effective_mass` at substep `h` (s).
    ///
    /// ```
    /// use sprung_solver::softness::{Spring, SpringSoftness};
    ///
    /// let spring = Spring::Frequency { hertz: 3.0, damping_ratio: 0.05 };
    /// let s = SpringSoftness::new(&spring, 1.0, 1.0 / 420.0);
    /// assert!(!s.limited);
    /// // Nearly all of the damping is left to the relax pass, none of the stiffness.
    /// assert!(s.relax.bias_rate == 0.0 && s.relax.mass_scale > 0.0);
    /// ```
    pub fn new(spring: &Spring, effective_mass: Real, h: Real) -> SpringSoftness {
        let m = effective_mass as f64;
        // Stiffness and damping per unit of effective mass (1/s^2, 1/s).
        let (kappa, gamma) = match *spring {
            Spring::Stiffness { stiffness, damping } => {
                if m <= 0.0 {
                    return SpringSoftness::OFF;
                }
                (stiffness as f64 / m, damping as f64 / m)
            }
            Spring::Acceleration { stiffness, damping } => (stiffness as f64, damping as f64),
            _ => {
                let omega = spring.angular_frequency(effective_mass) as f64;
                let zeta = spring.damping_ratio(effective_mass) as f64;
                (omega * omega, 2.0 * zeta * omega)
            }
        };
        // NaN-safe: a NaN anywhere gives the row that does nothing.
        let usable = (kappa > 0.0 || gamma > 0.0) && h > 0.0;
        if !usable {
            return SpringSoftness::OFF;
        }
        match exact(kappa, gamma, h as f64) {
            Some(s) => s,
            None => {
                let implicit = Softness::from_spring(spring, effective_mass, h);
                SpringSoftness {
                    biased: implicit,
                    relax: implicit,
                    limited: true,
                }
            }
        }
    }

    /// The coefficients of the biased pass, or of the relax pass.
    #[inline]
    pub fn pass(&self, use_bias: bool) -> Softness {
        if use_bias {
            self.biased
        } else {
            self.relax
        }
    }
}

/// `spring` as stiffness and damping, a spring set by frequency (or per unit mass) referring
/// to `mass` (kg, or kg m^2), not to the effective mass of the row it acts on: for springs whose
/// frequency is that of a body, a wheel's chassis share or a limb turning about its joint,
/// where the row alone sees less (the chassis's inertia at a corner, the limb's about its own
/// centre of mass).
pub fn referring_to(spring: &Spring, mass: Real) -> Spring {
    match *spring {
        Spring::Stiffness { .. } => *spring,
        _ => {
            let omega = spring.angular_frequency(mass);
            let zeta = spring.damping_ratio(mass);
            Spring::Stiffness {
                stiffness: mass * omega * omega,
                damping: 2.0 * zeta * omega * mass,
            }
        }
    }
}

/// Each joint's last spring coefficients, kept from step to step: [`SpringSoftness::new`]
/// costs an `exp`, an `exp_m1` and a `sin` in f64, and a spring's inputs (its settings, the
/// effective mass it acts on, the substep) seldom change between steps (`spring_net`'s 1,744
/// springs never do: 7% of its step went to recomputing them). A coefficient is reused only
/// when every input is bit for bit the same, so the results are exactly those of computing it
/// afresh.
#[derive(Clone, Debug, Default)]
pub struct SpringCache {
    entries: Vec<Entry>,
}

/// One joint's spring, the bits of the effective mass and substep it was computed for, and its
/// coefficients.
type Entry = Option<(Spring, u32, u32, SpringSoftness)>;

impl SpringCache {
    /// The whole cache as one window, with room for every joint below `joints`: what the
    /// workers building the joints' rows split between them ([`SpringWindow::split_at`]).
    pub fn window(&mut self, joints: usize) -> SpringWindow<'_> {
        if self.entries.len() < joints {
            self.entries.resize(joints, None);
        }
        SpringWindow {
            first: 0,
            entries: &mut self.entries,
        }
    }
}

/// The [`SpringCache`] entries of a run of consecutive joints (from `first` on), for one
/// worker building the rows of those joints while others build the rest.
#[derive(Debug, Default)]
pub struct SpringWindow<'a> {
    first: usize,
    entries: &'a mut [Entry],
}

impl<'a> SpringWindow<'a> {
    /// The coefficients of `spring` on a row of `effective_mass` at substep `h`, for the joint
    /// of index `joint`: last step's if nothing changed, else computed and kept. A joint
    /// outside this window gets them computed afresh and not kept (the same numbers, only
    /// slower).
    pub fn get(
        &mut self,
        joint: u32,
        spring: &Spring,
        effective_mass: Real,
        h: Real,
    ) -> SpringSoftness {
        let key = (effective_mass.to_bits(), h.to_bits());
        let entry = (joint as usize)
            .checked_sub(self.first)
            .and_then(|at| self.entries.get_mut(at));
        if let Some(Some((s, m, step, softness))) = entry.as_deref() {
            if s == spring && (*m, *step) == key {
                return *softness;
            }
        }
        let softness = SpringSoftness::new(spring, effective_mass, h);
        if let Some(entry) = entry {
            *entry = Some((*spring, key.0, key.1, softness));
        }
        softness
    }

    /// The joints below `joint` and those from it on, as two windows (`joint` clamped to this
    /// window's joints).
    pub fn split_at(self, joint: usize) -> (SpringWindow<'a>, SpringWindow<'a>) {
        let at = joint.saturating_sub(self.first).min(self.entries.len());
        let (below, above) = self.entries.split_at_mut(at);
        let first = self.first;
        (
            SpringWindow {
                first,
                entries: below,
            },
            SpringWindow {
                first: first + at,
                entries: above,
            },
        )
    }
}

/// `(exp(z) - 1) / z`, 1 at 0.
fn phi(z: f64) -> f64 {
    if z == 0.0 {
        1.0
    } else {
        z.exp_m1() / z
    }
}

/// The exact coefficients for stiffness `kappa` and damping `gamma` per unit mass (both >= 0,
/// not both 0) at substep `h`, held as [`SpringSoftness`] says, or `None` where the implicit
/// ones must be used instead. In f64, without
/// cancellation: `1 - s1 = |exp(r h) - 1|^2 / (omega h)^2` is computed from `exp_m1` and a
/// half-angle sine, since at small `omega h` it is 1 minus something tiny.
fn exact(kappa: f64, gamma: f64, h: f64) -> Option<SpringSoftness> {
    let half = 0.5 * gamma;
    let discriminant = half * half - kappa;
    let e = if discriminant < 0.0 {
        // Roots -half +- i beta: |exp(r h) - 1|^2 = (1 - exp(-half h))^2
        //   + 4 exp(-half h) sin^2(beta h / 2).
        let beta = (-discriminant).sqrt();
        let decay = (-half * h).exp();
        let sine = (0.5 * beta * h).sin();
        let one_minus = -(-half * h).exp_m1();
        (one_minus * one_minus + 4.0 * decay * sine * sine) / (kappa * h * h)
    } else {
        // Real roots; the small one from the product of the two (= kappa), not a difference.
        let fast = -(half + discriminant.sqrt());
        let slow = if fast != 0.0 { kappa / fast } else { 0.0 };
        phi(slow * h) * phi(fast * h)
    };
    // e = 0: an undamped spring at omega h = 2 pi k, whose substep map is the identity.
    if e.is_nan() || e <= 0.0 {
        return None;
    }
    let s1 = 1.0 - e;
    let exact_relax = 1.0 - (-gamma * h).exp() / e;
    let zeta = if kappa > 0.0 {
        gamma / (2.0 * kappa.sqrt())
    } else {
        f64::INFINITY
    };
    let relax = exact_relax.max(-RELAX_PER_DAMPING * zeta);
    let omega_h = kappa.sqrt() * h;
    if relax > exact_relax && omega_h > MAX_HELD_OMEGA_H {
        return None;
    }
    // The damping ratio added by holding the relax scale up: the determinant of the substep's
    // map is exp(-2 zeta omega h) exact, (1 - s1)(1 - relax) held.
    let extra_damping = if relax > exact_relax {
        ((1.0 - exact_relax).ln() - (1.0 - relax).ln()) / (2.0 * omega_h)
    } else {
        0.0
    };
    let product = h * kappa * e;
    Some(SpringSoftness {
        biased: Softness {
            bias_rate: if s1 > 0.0 {
                (product / s1) as Real
            } else {
                0.0
            },
            mass_scale: s1 as Real,
            impulse_scale: e as Real,
        },
        relax: Softness {
            bias_rate: 0.0,
            mass_scale: relax as Real,
            impulse_scale: 0.0,
        },
        limited: extra_damping > REPORTED_EXTRA_DAMPING,
    })
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

    /// Split into windows (one per worker building joints), the cache keeps each joint's
    /// coefficients in its own window and gives the same numbers as computing afresh, asked
    /// through any window.
    #[test]
    fn a_split_cache_keeps_each_joint_in_its_window() {
        let spring = Spring::Frequency {
            hertz: 3.0,
            damping_ratio: 0.2,
        };
        let (h, fresh) = (1.0 / 420.0, |m| {
            SpringSoftness::new(&spring, m, 1.0 / 420.0)
        });
        let mut cache = SpringCache::default();
        let (mut low, mut high) = cache.window(6).split_at(3);
        assert_eq!(low.get(1, &spring, 2.0, h), fresh(2.0));
        assert_eq!(high.get(4, &spring, 3.0, h), fresh(3.0));
        // Outside its window: computed, not kept.
        assert_eq!(low.get(5, &spring, 4.0, h), fresh(4.0));
        assert_eq!(high.get(0, &spring, 5.0, h), fresh(5.0));
        let kept: Vec<bool> = cache.entries.iter().map(Option::is_some).collect();
        assert_eq!(kept, [false, true, false, false, true, false]);
        assert_eq!(cache.window(6).get(4, &spring, 3.0, h), fresh(3.0));
    }

    /// The cache gives exactly what computing afresh gives, whatever changed in between.
    #[test]
    fn the_spring_cache_is_the_computation() {
        let mut cache = SpringCache::default();
        let soft = Spring::Frequency {
            hertz: 3.0,
            damping_ratio: 0.2,
        };
        let stiff = Spring::Stiffness {
            stiffness: 1.0e4,
            damping: 10.0,
        };
        let h = 1.0 / 420.0;
        for (joint, spring, mass, step) in [
            (3, soft, 1.0, h),
            (3, soft, 1.0, h),
            (3, stiff, 1.0, h),
            (3, stiff, 2.0, h),
            (3, stiff, 2.0, 2.0 * h),
            (0, stiff, 2.0, 2.0 * h),
            (3, soft, 1.0, h),
        ] {
            let fresh = SpringSoftness::new(&spring, mass, step);
            assert_eq!(cache.window(4).get(joint, &spring, mass, step), fresh);
        }
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

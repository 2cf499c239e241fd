//! sprung-spring: stable, frame-rate-independent dampers and springs for gameplay code, and
//! [`Spring`], the one way every spring of sprung is set (the solver's soft rows too). Usable
//! without the engine (its only dependency is nalgebra); the engine re-exports it as
//! `sprung::spring`.
//!
//! The maths follows Daniel Holden, "Spring-It-On: The Game Developer's Spring-Roll-Call"
//! (exact dampers and spring-dampers and what is built on them), and Huw Bowles, "Spring
//! dynamics in production" (the comparison of integrators and the sub-stepping schemes).
//!
//! Conventions shared by every file:
//! - Toolkit springs are per unit mass (the acceleration form, effective mass 1). General springs
//!   are set with [`crate::Spring`]; the critically damped family is set with a
//!   halflife in seconds, with the engine's exact convention: `w = CRITICAL_HALF / halflife`, so
//!   that a critical spring released from rest closes exactly half the distance in one halflife
//!   (Holden's article uses `w = 2 ln 2 / halflife`, which halves at about 0.83 halflife; see
//!   [`params::HOLDEN_HALFLIFE_SCALE`] to port tuned values).
//! - Every function works on `f32` and on [`crate::Vector`] through [`SpringValue`]: the maths is
//!   written once as scalar coefficients and applied to the value; rotations have their own
//!   functions on [`crate::Quaternion`].
//! - Bad input never panics. A time step `dt` that is not finite or not positive is a no-op (the
//!   state is returned unchanged). A halflife that is NaN or negative is a no-op; a halflife of
//!   zero snaps to the goal (the limit of an infinitely fast spring); an infinite halflife means
//!   no pull (the limit of an infinitely slow spring). Finite input gives finite output.
//!
//! | file | what |
//! |---|---|
//! | [`params`] | conversions between stiffness/damping, frequency/damping ratio and halflife |
//! | [`mod@damper`] | the exact exponential damper and a fast approximation of `exp(-x)` |
//! | [`exact`] | the exact spring-damper (under-, critically and over-damped, goal velocity) |
//! | [`critical`] | the fast critical forms: critical, simple and decay springs |
//! | [`derived`] | double, timed and velocity springs |
//! | [`rotation`] | quaternion damper and quaternion spring |
//! | [`inertialization`] | offset blending between animations, on values and on rotations |
//! | [`controller`] | character controller and trajectory prediction |
//! | [`integrators`] | explicit, semi-implicit and implicit updates of a damped spring |
//! | [`substep`] | the three sub-stepping schemes for springs updated per frame, and the fixed stepper |
//! | [`mass_spring`] | ropes and cloth as points and position-correcting springs that cannot explode |
//! | [`pd`] | the implicit (stable) PD controller that drives a body to a target |
//! | [`limits`] | the bounds on coordinates, accelerations and time steps (the engine's too) |

pub mod controller;
pub mod critical;
pub mod damper;
pub mod derived;
pub mod exact;
pub mod inertialization;
pub mod integrators;
pub mod limits;
pub mod mass_spring;
pub mod params;
pub mod pd;
pub mod rotation;
pub mod substep;

#[cfg(test)]
pub(crate) mod testing;

pub use controller::CharacterState;
pub use critical::{
    critical_spring_damper, decay_spring_damper, simple_spring_damper, CriticalStep,
};
pub use damper::{damper, damper_fast, fast_negexp};
pub use derived::{DoubleSpring, TimedSpring, VelocitySpring};
pub use exact::{spring_damper, SpringStep};
pub use inertialization::{Inertializer, RotationInertializer};
pub use integrators::Integrator;
pub use mass_spring::{MassSpring, MassSpringError, Obstacles};
pub use params::{
    Spring, SpringError, CRITICAL_HALF, MAX_DAMPING_RATIO, MAX_HALFLIFE, MAX_HERTZ, MAX_STIFFNESS,
    MIN_HALFLIFE,
};
pub use pd::PdController;
pub use rotation::{quaternion_damper, quaternion_spring};
pub use substep::{substep_max_dt, substep_uniform, FixedStepper, Interpolated};

use std::ops::{Add, Mul, Sub};

/// Scalars are f32, as in the engine.
pub type Real = f32;
/// 3-vectors.
pub type Vector = nalgebra::Vector3<Real>;
/// Unit quaternions.
pub type Quaternion = nalgebra::UnitQuaternion<Real>;

/// A value a spring can move: a scalar (`f32`) or a 3-vector ([`crate::Vector`]). The toolkit
/// writes its maths once on scalar coefficients and applies them through these operations.
pub trait SpringValue:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Real, Output = Self>
{
    /// The zero value.
    fn zero() -> Self;
    /// The magnitude: `|x|` for a scalar, the Euclidean length for a vector (same units as the
    /// value).
    fn magnitude(self) -> Real;
}

impl SpringValue for Real {
    fn zero() -> Self {
        0.0
    }

    fn magnitude(self) -> Real {
        self.abs()
    }
}

impl SpringValue for crate::Vector {
    fn zero() -> Self {
        crate::Vector::zeros()
    }

    fn magnitude(self) -> Real {
        self.norm()
    }
}

/// Whether `dt` (s) is a usable time step: finite and positive. Everything else is a no-op.
#[inline]
pub(crate) fn valid_dt(dt: Real) -> bool {
    dt.is_finite() && dt > 0.0
}

/// Moves `x` towards `y` by the fraction `alpha` (0 keeps `x`, 1 gives `y`).
#[inline]
pub(crate) fn lerp<T: SpringValue>(x: T, y: T, alpha: Real) -> T {
    x + (y - x) * alpha
}

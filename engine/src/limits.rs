//! The ranges sprung accepts, and the checks that hold user data to them.
//!
//! f32 carries about seven digits and overflows past 3.4e38: a subnormal mass inverts to
//! infinity, an inertia of 1e20 squares to infinity, a vector of 1e20 overflows when normalised,
//! and any of these turns a body (and, through its contacts, its neighbours) into NaN. Every
//! entry point holds what it is given to the ranges below and refuses the rest with a typed
//! [`Error`], changing nothing. Masses and inertias computed from colliders are clamped into
//! their ranges instead (a body is never refused for being small).
//!
//! | quantity | accepted |
//! |---|---|
//! | positions, anchors, targets, lengths (m) | finite, each component within ±[`MAX_COORDINATE`] |
//! | rotations, axes | finite and not zero or subnormal (normalised without overflow) |
//! | mass (kg) | [`MIN_MASS`] to [`MAX_MASS`] |
//! | principal inertia (kg m²) | [`MIN_INERTIA`] to [`MAX_INERTIA`] |
//! | density (kg/m³) | [`MIN_DENSITY`] to [`MAX_DENSITY`] |
//! | linear speed (m/s) | up to [`MAX_LINEAR_SPEED`] |
//! | angular speed (rad/s) | up to [`MAX_ANGULAR_SPEED`] |
//! | force (N), torque (N m), impulse (N s), motor and cap forces | each component up to [`MAX_FORCE`] |
//! | gravity (m/s²) | each component up to [`MAX_ACCELERATION`] |
//! | gravity scale | within ±[`MAX_GRAVITY_SCALE`] |
//! | damping (1/s) | 0 to [`MAX_DAMPING`] |
//! | time step (s) | [`MIN_TIME_STEP`] to [`MAX_TIME_STEP`] |
//! | friction, rolling resistance | 0 to [`MAX_FRICTION`] |
//! | restitution | 0 to 1 |
//! | springs | see [`sprung_solver::softness::Spring::check`] |
//!
//! A body that passes [`MAX_LINEAR_SPEED`] or [`MAX_ANGULAR_SPEED`] during a step, or whose
//! state stops being finite, is quarantined (see [`crate::World::step`]).

use parry3d::math::{Isometry, Real, Rotation, Vector};
use sprung_collision::unit::{unit_quaternion, unit_vector};

use crate::error::{finite, Error};

pub use sprung_spring::limits::{MAX_ACCELERATION, MAX_COORDINATE, MAX_TIME_STEP, MIN_TIME_STEP};

/// Smallest mass (kg): a milligram.
pub const MIN_MASS: Real = 1e-6;
/// Largest mass (kg): a million tonnes.
pub const MAX_MASS: Real = 1e9;
/// Smallest principal moment of inertia (kg m²).
pub const MIN_INERTIA: Real = 1e-12;
/// Largest principal moment of inertia (kg m²).
pub const MAX_INERTIA: Real = 1e15;
/// Smallest density (kg/m³): a thin gas.
pub const MIN_DENSITY: Real = 1e-3;
/// Largest density (kg/m³): fifty times osmium's.
pub const MAX_DENSITY: Real = 1e6;
/// Largest linear speed (m/s): thirty times the speed of sound, far past any game's bullet.
pub const MAX_LINEAR_SPEED: Real = 1e4;
/// Largest angular speed (rad/s): about 1,600 turns a second.
pub const MAX_ANGULAR_SPEED: Real = 1e4;
/// Largest force component (N), torque (N m) or impulse (N s).
pub const MAX_FORCE: Real = 1e15;
/// Largest gravity scale, either way.
pub const MAX_GRAVITY_SCALE: Real = 1e3;
/// Largest linear or angular damping (1/s).
pub const MAX_DAMPING: Real = 1e6;
/// Largest friction coefficient.
pub const MAX_FRICTION: Real = 1e3;

/// Finite, and every component within ±`max`; `range` is the error's text.
pub(crate) fn bounded(
    what: &'static str,
    values: &[Real],
    max: Real,
    range: &'static str,
) -> Result<(), Error> {
    finite(what, values)?;
    if values.iter().all(|v| v.abs() <= max) {
        Ok(())
    } else {
        Err(Error::OutOfRange(range))
    }
}

/// A position, anchor or target point's coordinates.
pub(crate) fn position(what: &'static str, p: &Vector<Real>) -> Result<(), Error> {
    bounded(
        what,
        p.as_slice(),
        MAX_COORDINATE,
        "coordinates: within ±1e5 m",
    )
}

/// A rotation as given (which may have lost its unit length): normalised without overflow, or
/// refused if it is not finite or has no length.
pub(crate) fn rotation(what: &'static str, q: &Rotation<Real>) -> Result<Rotation<Real>, Error> {
    finite(what, q.coords.as_slice())?;
    unit_quaternion(q.quaternion()).ok_or(Error::NonPositive(what))
}

/// A pose: its translation within range and its rotation normalised.
pub(crate) fn pose(
    translation: &'static str,
    rotation_what: &'static str,
    pose: &Isometry<Real>,
) -> Result<Isometry<Real>, Error> {
    position(translation, &pose.translation.vector)?;
    let rotation = rotation(rotation_what, &pose.rotation)?;
    Ok(Isometry::from_parts(pose.translation, rotation))
}

/// An axis or direction: its unit vector, or refused if not finite or without length.
pub(crate) fn axis(what: &'static str, v: &Vector<Real>) -> Result<Vector<Real>, Error> {
    finite(what, v.as_slice())?;
    unit_vector(v)
        .map(|u| u.into_inner())
        .ok_or(Error::NonPositive(what))
}

/// A linear velocity (m/s).
pub(crate) fn linear_velocity(v: &Vector<Real>) -> Result<(), Error> {
    finite("linear velocity", v.as_slice())?;
    if v.norm() <= MAX_LINEAR_SPEED {
        Ok(())
    } else {
        Err(Error::OutOfRange("linear velocity: at most 1e4 m/s"))
    }
}

/// An angular velocity (rad/s).
pub(crate) fn angular_velocity(w: &Vector<Real>) -> Result<(), Error> {
    finite("angular velocity", w.as_slice())?;
    if w.norm() <= MAX_ANGULAR_SPEED {
        Ok(())
    } else {
        Err(Error::OutOfRange("angular velocity: at most 1e4 rad/s"))
    }
}

/// A force, torque or impulse.
pub(crate) fn force(what: &'static str, f: &Vector<Real>) -> Result<(), Error> {
    bounded(
        what,
        f.as_slice(),
        MAX_FORCE,
        "force, torque or impulse: within ±1e15",
    )
}

/// A time step (s).
pub(crate) fn time_step(dt: Real) -> Result<(), Error> {
    if dt.is_finite() && (MIN_TIME_STEP..=MAX_TIME_STEP).contains(&dt) {
        Ok(())
    } else {
        Err(Error::InvalidTimeStep)
    }
}

/// A speed or angular speed a body may not pass during a step.
pub(crate) fn within_speed_limits(v: &Vector<Real>, w: &Vector<Real>) -> bool {
    // Squared norms: a NaN compares false, so a non-finite velocity is not within the limits.
    v.norm_squared() <= MAX_LINEAR_SPEED * MAX_LINEAR_SPEED
        && w.norm_squared() <= MAX_ANGULAR_SPEED * MAX_ANGULAR_SPEED
}

/// Whether a dynamic body with velocities `v`, `w` and accelerations `a`, `alpha` would leave
/// the finite, speed-limited state over `dt`.
pub(crate) fn runaway(
    v: &Vector<Real>,
    w: &Vector<Real>,
    a: &Vector<Real>,
    alpha: &Vector<Real>,
    dt: Real,
) -> bool {
    !within_speed_limits(&(v + a * dt), &(w + alpha * dt))
}

//! Bounds that sprung's engine and this crate's mass-spring system hold values to alike (the
//! engine's `sprung::limits` re-exports them beside its own).

use crate::Real;

/// Largest coordinate (m) of a position, anchor or target: 100 km, Box2D's "huge". Past it f32
/// resolves positions to a centimetre or worse.
pub const MAX_COORDINATE: Real = 1e5;
/// Largest gravity component (m/s²): a thousand g.
pub const MAX_ACCELERATION: Real = 1e4;
/// Smallest time step (s).
pub const MIN_TIME_STEP: Real = 1e-6;
/// Largest time step (s).
pub const MAX_TIME_STEP: Real = 1.0;

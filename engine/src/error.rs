//! The engine's one error type: what was wrong with what the user gave.

use std::fmt;

use sprung_collision::shape::ShapeError;
use sprung_solver::softness::SpringError;

/// Why a call was refused. A refused call changes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The handle's body or collider was removed (or never belonged to this world).
    StaleHandle,
    /// A value that must be finite was NaN or infinite; names which.
    NonFinite(&'static str),
    /// A value that must be positive was zero or negative (mass, density); names which.
    NonPositive(&'static str),
    /// A value that must not be negative was (damping, friction, restitution); names which.
    Negative(&'static str),
    /// The time step was not finite and within [`crate::limits::MIN_TIME_STEP`] to
    /// [`crate::limits::MAX_TIME_STEP`].
    InvalidTimeStep,
    /// The shape was refused (see [`ShapeError`]).
    Shape(ShapeError),
    /// The call needs a dynamic body (forces) or a kinematic one (targets).
    WrongBodyKind,
    /// The spring was refused (see [`SpringError`]).
    Spring(SpringError),
    /// A joint must join two different bodies.
    SameBody,
    /// The call does not apply to this kind of joint.
    WrongJointKind,
    /// A joint builder was given a setting its kind does not have, or a world joint was given
    /// to `add_joint`; says which.
    NotApplicable(&'static str),
    /// A value outside its allowed range; says which and what the range is.
    OutOfRange(&'static str),
    /// Half-spaces, triangle meshes, height fields and single triangles go on static bodies
    /// only: they have no volume or no bound, so no mass to move.
    StaticOnlyShape,
    /// Bytes given to `World::restore` were not a snapshot this build can read.
    Snapshot(SnapshotError),
}

/// Why bytes were refused as a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotError {
    /// They do not begin with a snapshot's magic bytes.
    NotASnapshot,
    /// Written by another format version (the one found).
    UnsupportedVersion(u32),
    /// Shorter than their header says.
    Truncated,
    /// Their checksum does not match, or they do not decode.
    Corrupt,
    /// They decode to a world that breaks an invariant (says which); nothing was built.
    Inconsistent(&'static str),
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotError::NotASnapshot => write!(f, "not a sprung snapshot"),
            SnapshotError::UnsupportedVersion(v) => {
                write!(f, "snapshot format version {v} is not this build's")
            }
            SnapshotError::Truncated => write!(f, "the snapshot is truncated"),
            SnapshotError::Corrupt => write!(f, "the snapshot is corrupt"),
            SnapshotError::Inconsistent(what) => {
                write!(f, "the snapshot's world is inconsistent: {what}")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::StaleHandle => write!(f, "the handle refers to a removed body or collider"),
            Error::NonFinite(what) => write!(f, "{what} must be finite (got NaN or infinity)"),
            Error::NonPositive(what) => write!(f, "{what} must be positive"),
            Error::Negative(what) => write!(f, "{what} must not be negative"),
            Error::InvalidTimeStep => write!(f, "the time step must be finite, from 1e-6 to 1 s"),
            Error::Shape(e) => write!(f, "invalid shape: {e}"),
            Error::WrongBodyKind => write!(f, "this call does not apply to this kind of body"),
            Error::Spring(e) => write!(f, "invalid spring: {e}"),
            Error::SameBody => write!(f, "a joint must join two different bodies"),
            Error::WrongJointKind => write!(f, "this call does not apply to this kind of joint"),
            Error::NotApplicable(what) => write!(f, "not applicable: {what}"),
            Error::OutOfRange(what) => write!(f, "{what}"),
            Error::StaticOnlyShape => write!(
                f,
                "half-spaces, triangle meshes, height fields and triangles need a static body"
            ),
            Error::Snapshot(e) => write!(f, "cannot restore: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ShapeError> for Error {
    fn from(e: ShapeError) -> Self {
        Error::Shape(e)
    }
}

/// Checks that every component is finite.
pub(crate) fn finite(what: &'static str, values: &[f32]) -> Result<(), Error> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Error::NonFinite(what))
    }
}

impl From<sprung_spring::MassSpringError> for Error {
    /// A mass-spring system's refusal as the engine's error, so that `?` joins them.
    fn from(e: sprung_spring::MassSpringError) -> Error {
        match e {
            sprung_spring::MassSpringError::NonFinite(what) => Error::NonFinite(what),
            sprung_spring::MassSpringError::OutOfRange(what) => Error::OutOfRange(what),
            sprung_spring::MassSpringError::InvalidTimeStep => Error::InvalidTimeStep,
        }
    }
}

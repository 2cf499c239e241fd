//! The engine's events after each step as Bevy messages, with entities for handles: read them
//! with a `MessageReader` in any system after [`crate::SprungSystems::Step`] (the same frame's
//! `Update` of the next frame, or `PostUpdate` of this one).

use bevy::prelude::*;
use sprung::math::Real;

/// Two colliders began to touch.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct ContactBegan {
    /// The world's entity.
    pub world: Entity,
    /// The two colliders' entities.
    pub entities: (Entity, Entity),
    /// The normal impulse of the step they began in (N s).
    pub impulse: Real,
}

/// Two colliders stopped touching.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct ContactEnded {
    /// The world's entity.
    pub world: Entity,
    /// The two colliders' entities.
    pub entities: (Entity, Entity),
    /// The largest normal impulse of one step while they touched (N s).
    pub max_impulse: Real,
}

/// A collider began to overlap a sensor.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SensorEntered {
    /// The world's entity.
    pub world: Entity,
    /// The sensor's entity.
    pub sensor: Entity,
    /// The other collider's entity.
    pub other: Entity,
}

/// A collider stopped overlapping a sensor.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SensorLeft {
    /// The world's entity.
    pub world: Entity,
    /// The sensor's entity.
    pub sensor: Entity,
    /// The other collider's entity.
    pub other: Entity,
}

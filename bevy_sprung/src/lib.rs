//! sprung in Bevy: add [`SprungPlugin`], spawn entities with a [`RigidBody`], a [`Collider`]
//! and a [`Transform`](bevy::prelude::Transform), and the plugin steps them in Bevy's fixed timestep and writes their
//! transforms and velocities back.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_sprung::prelude::*;
//!
//! App::new()
//!     .add_plugins((MinimalPlugins, SprungPlugin::default()))
//!     .add_systems(Startup, |mut commands: Commands| {
//!         commands.spawn((RigidBody::Fixed, Collider::halfspace(Vec3::Y)));
//!         commands.spawn((
//!             RigidBody::Dynamic,
//!             Collider::ball(0.5),
//!             Transform::from_xyz(0.0, 4.0, 0.0),
//!         ));
//!     })
//!     .run();
//! ```
//!
//! What there is:
//! - **Bodies**: [`RigidBody`] (dynamic, kinematic, fixed) with the entity's [`Transform`](bevy::prelude::Transform)
//!   (translation and rotation; set it to teleport, or to move a kinematic body) and
//!   [`Velocity`] (set it to push); a [`Collider`] on the same entity, more on child entities
//!   (placed by their transforms; [`ColliderLink`] added). [`BodyLink`] (added)
//!   says where the body is; [`Refused`] (added) what sprung refused and why.
//! - **Joints** as entities of their own: [`Joint`] between two bodies, [`WorldJoint`] from a
//!   body to the world (a mouse spring); [`JointLink`] (added) gives the handle to read or
//!   drive them through [`PhysicsWorld::world_mut`].
//! - **Ragdolls**: [`Ragdoll`] spawns an entity per part ([`RagdollPart`]).
//! - **Characters**: [`CharacterController`], sprung-control's kinematic character; [`Floating`],
//!   its floating character (a dynamic body on a ride spring, walked by motors).
//! - **Vehicles**: [`Vehicle`] on a body's entity puts wheels under it, driven through
//!   [`VehicleControls`]; the plugin spawns a child entity per wheel ([`VehicleWheel`]).
//!   [`Hover`] makes a hover racer of a body, driven through [`HoverControls`].
//! - **Worlds**: [`PhysicsWorld`] on an entity; the plugin spawns the default one
//!   ([`DefaultPhysicsWorld`]), [`InWorld`] puts a body, ragdoll or character in another.
//!   [`Gravity`] and [`PhysicsSettings`] (solver, sleep) are the default world's.
//! - **Schedule**: the step runs in [`FixedPostUpdate`](bevy::app::FixedPostUpdate) (or the
//!   schedule [`SprungPlugin::in_schedule`] names) in the sets [`SprungSystems`]; transforms
//!   are drawn between fixed steps unless [`SprungPlugin::interpolate`] turns it off.
//! - **Out**: the messages [`ContactBegan`], [`ContactEnded`], [`SensorEntered`],
//!   [`SensorLeft`]; rays, shape casts, overlaps and nearest points through
//!   [`SpatialQuery`] (or on a [`PhysicsWorld`]); colliders drawn by `SprungDebugPlugin`
//!   (feature `debug-render`).
//! - **Maths**: glam and nalgebra meet in [`convert`] only (bit for bit).

mod character;
mod colliders;
mod components;
pub mod convert;
#[cfg(feature = "debug-render")]
mod debug;
mod messages;
mod plugin;
mod query;
mod ragdoll;
mod vehicle;
mod world;

pub use character::{
    character, Character, CharacterController, CharacterSettings, Floating, FloatingCharacter,
    FloatingLink, FloatingSettings,
};
pub use colliders::ColliderLink;
pub use components::{
    BodyLink, Collider, Joint, JointLink, Refused, RigidBody, Velocity, WorldJoint,
};
#[cfg(feature = "debug-render")]
pub use debug::{DebugRender, SprungDebugPlugin};
pub use messages::{ContactBegan, ContactEnded, SensorEntered, SensorLeft};
pub use plugin::{Gravity, Interpolation, PhysicsSettings, SprungPlugin, SprungSystems};
pub use query::{PointProjection, RayHit, ShapeHit, SpatialQuery};
pub use ragdoll::{Ragdoll, RagdollLink, RagdollPart};
pub use sprung;
pub use sprung::vehicle::{VehicleBuilder, VehicleInput};
pub use sprung::{JointBuilder, QueryFilter, RagdollBuilder, Shape, SleepSettings, SolverSettings};
pub use sprung_control::{HoverInput, HoverRacer, HoverSettings};
pub use vehicle::{
    Hover, HoverControls, HoverLink, Vehicle, VehicleControls, VehicleLink, VehicleWheel,
};
pub use world::{DefaultPhysicsWorld, InWorld, PhysicsWorld};

/// What a game imports.
pub mod prelude {
    pub use crate::{
        CharacterController, CharacterSettings, Collider, ContactBegan, ContactEnded,
        DefaultPhysicsWorld, Floating, FloatingSettings, Gravity, Hover, HoverControls, HoverInput,
        HoverSettings, InWorld, Joint, JointBuilder, PhysicsSettings, PhysicsWorld, QueryFilter,
        Ragdoll, RagdollBuilder, RagdollPart, RayHit, RigidBody, SensorEntered, SensorLeft, Shape,
        ShapeHit, SpatialQuery, SprungPlugin, SprungSystems, Vehicle, VehicleBuilder,
        VehicleControls, VehicleInput, VehicleWheel, Velocity, WorldJoint,
    };
}

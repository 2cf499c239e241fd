//! sprung in Bevy: add [`SprungPlugin`], spawn entities with a [`RigidBody`], a [`Collider`]
//! and a [`Transform`], and the plugin steps them in Bevy's fixed timestep and writes their
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

mod character;
mod components;
pub mod convert;
#[cfg(feature = "debug-render")]
mod debug;
mod messages;
mod plugin;
mod query;
mod ragdoll;
mod world;

pub use character::{character, Character, CharacterController, CharacterSettings};
pub use components::{
    BodyLink, Collider, Joint, JointLink, Refused, RigidBody, Velocity, WorldJoint,
};
#[cfg(feature = "debug-render")]
pub use debug::{DebugRender, SprungDebugPlugin};
pub use messages::{ContactBegan, ContactEnded, SensorEntered, SensorLeft};
pub use plugin::{Gravity, Interpolation, SprungPlugin, SprungSystems};
pub use query::{cast_ray, RayHit, SpatialQuery};
pub use ragdoll::{Ragdoll, RagdollLink, RagdollPart};
pub use sprung;
pub use sprung::{JointBuilder, QueryFilter, RagdollBuilder};
pub use world::{DefaultPhysicsWorld, InWorld, PhysicsWorld};

/// What a game imports.
pub mod prelude {
    pub use crate::{
        CharacterController, CharacterSettings, Collider, ContactBegan, ContactEnded,
        DefaultPhysicsWorld, Gravity, InWorld, Joint, JointBuilder, PhysicsWorld, QueryFilter,
        Ragdoll, RagdollBuilder, RagdollPart, RayHit, RigidBody, SensorEntered, SensorLeft,
        SpatialQuery, SprungPlugin, SprungSystems, Velocity, WorldJoint,
    };
}

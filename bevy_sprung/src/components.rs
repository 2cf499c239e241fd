//! What an entity says of its physics: a [`RigidBody`], its [`Collider`], its [`Velocity`].

use crate::convert;
use bevy::prelude::*;
use sprung::math::Real;
use sprung::{BodyHandle, ColliderBuilder, JointBuilder, JointHandle};

/// A body: how it moves. Its pose is the entity's [`Transform`] (translation and rotation;
/// the scale is the renderer's), its velocity the entity's [`Velocity`].
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[require(Transform, Velocity)]
pub enum RigidBody {
    /// Moved by forces, contacts and joints.
    #[default]
    Dynamic,
    /// Moved by its user: set its [`Transform`] and it travels there over the next step,
    /// pushing what is in its way.
    Kinematic,
    /// Never moves.
    Fixed,
}

/// A body's velocity, world frame: written back after every step, and read before the next
/// when its user changed it.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct Velocity {
    /// m/s.
    pub linear: Vec3,
    /// rad/s.
    pub angular: Vec3,
}

/// A body's collider: its shape and material, attached at the body's origin.
#[derive(Component, Clone, Debug)]
pub struct Collider(pub ColliderBuilder);

impl Collider {
    /// A sphere.
    pub fn ball(radius: Real) -> Self {
        Collider(ColliderBuilder::ball(radius))
    }

    /// A box of half extents `half` (m).
    pub fn cuboid(half: Vec3) -> Self {
        Collider(ColliderBuilder::cuboid(half.x, half.y, half.z))
    }

    /// A capsule along y: a segment of half height `half_height`, rounded by `radius`.
    pub fn capsule(half_height: Real, radius: Real) -> Self {
        Collider(ColliderBuilder::capsule(half_height, radius))
    }

    /// The half-space below the plane through the body's origin with outward `normal`.
    pub fn halfspace(normal: Vec3) -> Self {
        Collider(ColliderBuilder::halfspace(convert::vector(normal)))
    }

    /// The builder changed by `f` (density, friction, restitution, groups...).
    pub fn with(self, f: impl FnOnce(ColliderBuilder) -> ColliderBuilder) -> Self {
        Collider(f(self.0))
    }
}

/// Where an entity's body is, and what the plugin last wrote to its transform and velocity
/// (a value that differs before the next step was set by the user: a teleport, a push).
/// Added by the plugin.
#[derive(Component, Clone, Copy, Debug)]
pub struct BodyLink {
    /// The entity of its [`crate::PhysicsWorld`].
    pub world: Entity,
    /// Its body there.
    pub handle: BodyHandle,
    pub(crate) written: (Vec3, Quat, Velocity),
}

/// A joint between two bodies' entities, on an entity of its own: despawn it (or either body)
/// and the joint is gone. Anchors and axes in the builder are in each body's frame; the
/// joint is added at the first step where both bodies are in the same world.
#[derive(Component, Clone, Debug)]
pub struct Joint {
    /// Body A's and body B's entities.
    pub bodies: (Entity, Entity),
    /// The joint (`JointBuilder::ball`, `hinge`, `swing_twist`, ...).
    pub builder: JointBuilder,
}

/// A joint from a body to the world (an attachment such as a mouse spring, an upright
/// spring, a motor), on an entity of its own.
#[derive(Component, Clone, Debug)]
pub struct WorldJoint {
    /// The body's entity.
    pub body: Entity,
    /// The joint (`JointBuilder::attachment`, `upright`, ...).
    pub builder: JointBuilder,
}

/// The engine refused this entity's body or joint (its error; the log says so too): it is
/// not asked again. Remove this to try again after fixing what was wrong.
#[derive(Component, Clone, Debug)]
pub struct Refused(pub sprung::Error);

/// Where a joint entity's joint is. Added by the plugin.
#[derive(Component, Clone, Copy, Debug)]
pub struct JointLink {
    /// The entity of its [`crate::PhysicsWorld`].
    pub world: Entity,
    /// Its joint there (read its angle, impulses and load through the world).
    pub handle: JointHandle,
}

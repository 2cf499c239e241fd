//! A physics world in the app: a [`sprung::World`] on an entity of its own, with which entity
//! each of its bodies and colliders belongs to. The plugin makes one, the default; spawn more
//! with [`PhysicsWorld::default`] and put bodies in them with [`InWorld`].

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use sprung::{BodyHandle, ColliderHandle, JointHandle};
use std::collections::HashMap;

/// A sprung world and the entities of its bodies and colliders.
#[derive(Component, Default)]
pub struct PhysicsWorld {
    pub(crate) world: sprung::World,
    /// The bodies' entities in the order they were added: what write-back walks, so that it
    /// visits only entities with physics.
    pub(crate) bodies: Vec<(Entity, BodyHandle)>,
    /// Where each entity is in `bodies`.
    pub(crate) index: EntityHashMap<usize>,
    pub(crate) colliders: HashMap<ColliderHandle, Entity>,
    /// The joint entities' joints.
    pub(crate) joints: EntityHashMap<JointHandle>,
}

impl PhysicsWorld {
    /// A world stepping `world` (its settings, gravity and anything already in it kept; only
    /// bodies added through the plugin are written back to entities).
    pub fn new(world: sprung::World) -> Self {
        PhysicsWorld {
            world,
            ..Default::default()
        }
    }

    /// The engine's world: settings, joints by handle, queries, its state hash.
    pub fn world(&self) -> &sprung::World {
        &self.world
    }

    /// The engine's world to change (its gravity, settings, joints). Bodies spawned as
    /// entities are the plugin's to add and remove.
    pub fn world_mut(&mut self) -> &mut sprung::World {
        &mut self.world
    }

    /// The body of `entity` in this world.
    pub fn body(&self, entity: Entity) -> Option<BodyHandle> {
        self.index.get(&entity).map(|&i| self.bodies[i].1)
    }

    /// The entity a collider of this world belongs to.
    pub fn collider_entity(&self, collider: ColliderHandle) -> Option<Entity> {
        self.colliders.get(&collider).copied()
    }

    /// The joint of a joint entity in this world.
    pub fn joint(&self, entity: Entity) -> Option<JointHandle> {
        self.joints.get(&entity).copied()
    }

    /// How many bodies this world holds for entities.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// Removes a joint entity's joint, if it has one here (it may have gone with a body).
    pub(crate) fn remove_joint(&mut self, entity: Entity) -> bool {
        let Some(handle) = self.joints.remove(&entity) else {
            return false;
        };
        let _ = self.world.remove_joint(handle);
        true
    }

    pub(crate) fn insert(&mut self, entity: Entity, handle: BodyHandle) {
        self.index.insert(entity, self.bodies.len());
        self.bodies.push((entity, handle));
    }

    /// Removes `entity`'s body, its colliders and joints, if it has one here.
    pub(crate) fn remove(&mut self, entity: Entity) -> bool {
        let Some(handle) = self.forget(entity) else {
            return false;
        };
        let _ = self.world.remove_body(handle);
        true
    }

    /// Forgets `entity`'s body and its colliders; the body's handle.
    fn forget(&mut self, entity: Entity) -> Option<BodyHandle> {
        let i = self.index.remove(&entity)?;
        let (_, handle) = self.bodies.swap_remove(i);
        if let Some(&(moved, _)) = self.bodies.get(i) {
            self.index.insert(moved, i);
        }
        if let Some(body) = self.world.body(handle) {
            for c in body.colliders() {
                self.colliders.remove(c);
            }
        }
        Some(handle)
    }
}

/// The world bodies go to when they name none: spawned by the plugin.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefaultPhysicsWorld(pub Entity);

/// Puts an entity's body in the world on this entity instead of the default one.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct InWorld(pub Entity);

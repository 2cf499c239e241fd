//! Ragdolls as entities: a [`Ragdoll`] entity's transform places the ragdoll's frame, and the
//! plugin spawns an entity per part ([`RagdollPart`], with [`RigidBody`], [`Transform`] and
//! [`Velocity`]) that is written back like any body. Despawning the ragdoll entity removes
//! the ragdoll and despawns its parts.

use crate::components::{BodyLink, Refused, RigidBody, Velocity};
use crate::convert;
use crate::world::{DefaultPhysicsWorld, InWorld, PhysicsWorld};
use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use sprung::{RagdollBuilder, RagdollHandle};

/// A ragdoll to add, from its description (`RagdollBuilder::humanoid()`, or your own
/// skeleton), at the entity's transform.
#[derive(Component, Clone, Debug)]
#[require(Transform)]
pub struct Ragdoll(pub RagdollBuilder);

/// A part of a ragdoll: which ragdoll entity, which part (its index in the builder's parts and
/// its name). Spawned by the plugin, with the part's body.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct RagdollPart {
    /// The ragdoll's entity.
    pub ragdoll: Entity,
    /// The part's index in the builder's parts.
    pub index: usize,
    /// The part's name (`"left_forearm"`...).
    pub name: String,
}

/// Where a ragdoll entity's ragdoll is, and its parts' entities. Added by the plugin.
#[derive(Component, Clone, Debug)]
pub struct RagdollLink {
    /// The entity of its [`PhysicsWorld`].
    pub world: Entity,
    /// Its ragdoll there (drive it to a pose through the world).
    pub handle: RagdollHandle,
    /// Its parts' entities, in the builder's order.
    pub parts: Vec<Entity>,
}

/// The ragdolls each world holds for entities (kept beside the world, so that a despawned
/// ragdoll entity can be found).
#[derive(Resource, Default)]
pub(crate) struct Ragdolls(EntityHashMap<(Entity, RagdollHandle, Vec<Entity>)>);

/// Ragdoll entities not added yet.
type NewRagdolls<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Ragdoll,
        &'static Transform,
        Option<&'static InWorld>,
    ),
    (Without<RagdollLink>, Without<Refused>),
>;

/// Adds new ragdolls (in entity index order) and removes those whose entity is gone.
pub(crate) fn prepare_ragdolls(
    mut commands: Commands,
    default_world: Res<DefaultPhysicsWorld>,
    mut worlds: Query<&mut PhysicsWorld>,
    mut ragdolls: ResMut<Ragdolls>,
    mut removed: RemovedComponents<Ragdoll>,
    new: NewRagdolls,
) {
    for entity in removed.read() {
        let Some((world_entity, handle, parts)) = ragdolls.0.remove(&entity) else {
            continue;
        };
        if let Ok(mut world) = worlds.get_mut(world_entity) {
            // Body by body (the engine dissolves a ragdoll that loses one, as when a part
            // entity was despawned on its own: its other bodies stay until removed).
            for &part in &parts {
                world.remove(part);
            }
            let _ = world.world.remove_ragdoll(handle);
        }
        for part in parts {
            if let Ok(mut e) = commands.get_entity(part) {
                e.despawn();
            }
        }
    }
    let mut new: Vec<_> = new.iter().collect();
    new.sort_unstable_by_key(|(entity, ..)| entity.index_u32());
    for (entity, ragdoll, transform, in_world) in new {
        let world_entity = in_world.map_or(default_world.0, |w| w.0);
        let Ok(mut world) = worlds.get_mut(world_entity) else {
            warn!("{entity}: no physics world on {world_entity}");
            continue;
        };
        let handle = match world
            .world
            .add_ragdoll(&ragdoll.0, convert::pose(transform))
        {
            Ok(handle) => handle,
            Err(error) => {
                warn!("{entity}: its ragdoll was refused: {error}");
                commands.entity(entity).insert(Refused(error));
                continue;
            }
        };
        let mut parts = Vec::new();
        let bodies = world
            .world
            .ragdoll(handle)
            .map(|r| r.bodies().to_vec())
            .unwrap_or_default();
        for (index, body) in bodies.into_iter().enumerate() {
            let Some(b) = world.world.body(body) else {
                continue;
            };
            let mut part_transform = Transform::default();
            convert::set_pose(&mut part_transform, b.pose());
            let velocity = Velocity {
                linear: convert::vec3(&b.linear_velocity()),
                angular: convert::vec3(&b.angular_velocity()),
            };
            let name = ragdoll.0.parts[index].name.clone();
            let colliders = b.colliders().to_vec();
            let part = commands
                .spawn((
                    RigidBody::Dynamic,
                    part_transform,
                    velocity,
                    RagdollPart {
                        ragdoll: entity,
                        index,
                        name,
                    },
                    BodyLink {
                        world: world_entity,
                        handle: body,
                        written: (
                            part_transform.translation,
                            part_transform.rotation,
                            velocity,
                        ),
                    },
                ))
                .id();
            world.insert(part, body);
            for c in colliders {
                world.colliders.insert(c, part);
            }
            parts.push(part);
        }
        ragdolls
            .0
            .insert(entity, (world_entity, handle, parts.clone()));
        commands.entity(entity).insert(RagdollLink {
            world: world_entity,
            handle,
            parts,
        });
    }
}

//! Colliders on child entities: a [`Collider`] on an entity without a [`RigidBody`] whose
//! parent has one is a collider of the parent's body, placed on it by the child's
//! [`Transform`] (its translation and rotation at the time it is added), so that one body has
//! several shapes (a table of a top and four legs). Queries and messages name the child.
//! Removing the child's `Collider` (or despawning it) takes the collider off the body.

use crate::components::{BodyLink, Collider, Refused, RigidBody};
use crate::convert;
use crate::world::PhysicsWorld;
use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use sprung::ColliderHandle;

/// Where a child entity's collider is. Added by the plugin.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColliderLink {
    /// The entity of its [`PhysicsWorld`].
    pub world: Entity,
    /// Its collider there.
    pub handle: ColliderHandle,
}

/// The child colliders of entities, kept so that one whose entity is gone can be found.
#[derive(Resource, Default)]
pub(crate) struct ChildColliders(EntityHashMap<(Entity, ColliderHandle)>);

/// Child colliders not added yet.
type NewColliders<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Collider,
        &'static Transform,
        &'static ChildOf,
    ),
    (Without<RigidBody>, Without<ColliderLink>, Without<Refused>),
>;

/// Takes off the colliders of children whose `Collider` is gone, and adds new children's
/// colliders to their parents' bodies (in entity index order).
pub(crate) fn prepare_colliders(
    mut commands: Commands,
    mut worlds: Query<&mut PhysicsWorld>,
    mut children: ResMut<ChildColliders>,
    mut removed: RemovedComponents<Collider>,
    new: NewColliders,
    bodies: Query<&BodyLink>,
) {
    for entity in removed.read() {
        let Some((world_entity, handle)) = children.0.remove(&entity) else {
            continue;
        };
        if let Ok(mut world) = worlds.get_mut(world_entity) {
            world.colliders.remove(&handle);
            // Gone already if its body was.
            let _ = world.world.remove_collider(handle);
        }
        if let Ok(mut e) = commands.get_entity(entity) {
            e.try_remove::<ColliderLink>();
        }
    }
    let mut new: Vec<_> = new.iter().collect();
    new.sort_unstable_by_key(|(entity, ..)| entity.index_u32());
    for (entity, collider, transform, parent) in new {
        // A parent without a body yet (or one sprung refused): nothing to hang it on.
        let Ok(body) = bodies.get(parent.parent()) else {
            continue;
        };
        let Ok(mut world) = worlds.get_mut(body.world) else {
            continue;
        };
        let builder = collider.0.clone().local_pose(convert::pose(transform));
        match world.world.add_collider(builder, body.handle) {
            Ok(handle) => {
                world.colliders.insert(handle, entity);
                children.0.insert(entity, (body.world, handle));
                commands.entity(entity).insert(ColliderLink {
                    world: body.world,
                    handle,
                });
            }
            Err(error) => {
                warn!("{entity}: its collider was refused: {error}");
                commands.entity(entity).insert(Refused(error));
            }
        }
    }
}

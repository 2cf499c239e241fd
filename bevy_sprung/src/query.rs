//! Scene queries as a system parameter: rays (shape casts and overlaps through
//! [`SpatialQuery::world`] for now), answered with entities.

use crate::convert;
use crate::world::{DefaultPhysicsWorld, PhysicsWorld};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use sprung::math::{Point, Real};
use sprung::QueryFilter;

/// What a ray hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The entity of the collider hit.
    pub entity: Entity,
    /// Distance from the ray's origin (m).
    pub distance: Real,
    /// The point hit (world).
    pub point: Vec3,
    /// The surface's unit normal there, facing the ray.
    pub normal: Vec3,
}

/// Asks the physics worlds what is where: `fn aim(query: SpatialQuery) { query.cast_ray(...) }`.
#[derive(SystemParam)]
pub struct SpatialQuery<'w, 's> {
    default_world: Res<'w, DefaultPhysicsWorld>,
    worlds: Query<'w, 's, &'static PhysicsWorld>,
}

impl SpatialQuery<'_, '_> {
    /// The default world.
    pub fn world(&self) -> &PhysicsWorld {
        self.worlds
            .get(self.default_world.0)
            .expect("the default physics world's entity was despawned")
    }

    /// The world on `entity`, if it is one.
    pub fn world_on(&self, entity: Entity) -> Option<&PhysicsWorld> {
        self.worlds.get(entity).ok()
    }

    /// The nearest collider of the default world along the ray from `origin` along `dir`
    /// (any length but zero) within `max_distance`; `solid`: a ray starting inside a shape
    /// hits it at once. `None` too for a ray sprung refuses (not finite, `dir` zero).
    pub fn cast_ray(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_distance: Real,
        solid: bool,
        filter: &QueryFilter,
    ) -> Option<RayHit> {
        cast_ray(self.world(), (origin, dir, max_distance), solid, filter)
    }
}

/// [`SpatialQuery::cast_ray`] in `world`.
pub fn cast_ray(
    world: &PhysicsWorld,
    (origin, dir, max_distance): (Vec3, Vec3, Real),
    solid: bool,
    filter: &QueryFilter,
) -> Option<RayHit> {
    let origin = Point::from(convert::vector(origin));
    let hit = world
        .world()
        .cast_ray(origin, convert::vector(dir), max_distance, solid, filter)
        .ok()??;
    Some(RayHit {
        entity: world.collider_entity(hit.collider)?,
        distance: hit.toi,
        point: convert::vec3(&hit.point.coords),
        normal: convert::vec3(&hit.normal),
    })
}

//! Scene queries answered with entities: rays, shape casts, overlaps and the nearest point,
//! on any [`PhysicsWorld`], and through the [`SpatialQuery`] system parameter on the default
//! one. Each asks the engine's own query (`sprung::World::cast_ray`...) and maps the collider
//! it found to its entity; a query sprung refuses (numbers not finite, a zero direction)
//! answers nothing.

use crate::convert;
use crate::world::{DefaultPhysicsWorld, PhysicsWorld};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use sprung::math::{Isometry, Point, Real};
use sprung::{QueryFilter, Shape};

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

/// Where a cast shape first touched a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeHit {
    /// The entity of the collider touched.
    pub entity: Entity,
    /// The time of impact: the shape stops at its start plus `velocity * time`.
    pub time: Real,
    /// The contact point on the collider (world).
    pub point: Vec3,
    /// The contact point on the cast shape, where it stopped (world).
    pub point_on_shape: Vec3,
    /// The collider's unit normal there, facing the shape.
    pub normal: Vec3,
}

/// The nearest point of a collider to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointProjection {
    /// The entity of the collider.
    pub entity: Entity,
    /// Its nearest point (world): on its surface, or the query point when inside and solid.
    pub point: Vec3,
    /// Whether the query point is inside it.
    pub is_inside: bool,
    /// From the query point to `point` (m).
    pub distance: Real,
}

impl PhysicsWorld {
    /// The nearest collider along the ray from `origin` along `dir` (any length but zero)
    /// within `max_distance`; `solid`: a ray starting inside a shape hits it at once.
    pub fn cast_ray(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_distance: Real,
        solid: bool,
        filter: &QueryFilter,
    ) -> Option<RayHit> {
        let origin = Point::from(convert::vector(origin));
        let hit = self
            .world
            .cast_ray(origin, convert::vector(dir), max_distance, solid, filter)
            .ok()??;
        Some(RayHit {
            entity: self.collider_entity(hit.collider)?,
            distance: hit.toi,
            point: convert::vec3(&hit.point.coords),
            normal: convert::vec3(&hit.normal),
        })
    }

    /// The first collider that `shape`, placed at `position` and `rotation` and sliding at
    /// `velocity` without turning, touches within time `max_time` (infinity allowed); one it
    /// already touches at time 0. For placing things, and for what a sweep would meet.
    pub fn cast_shape(
        &self,
        shape: &Shape,
        (position, rotation): (Vec3, Quat),
        velocity: Vec3,
        max_time: Real,
        filter: &QueryFilter,
    ) -> Option<ShapeHit> {
        let pose = pose(position, rotation);
        let velocity = convert::vector(velocity);
        let hit = self
            .world
            .cast_shape(shape, &pose, velocity, max_time, filter)
            .ok()??;
        Some(ShapeHit {
            entity: self.collider_entity(hit.collider)?,
            time: hit.toi,
            point: convert::vec3(&hit.point.coords),
            point_on_shape: convert::vec3(&hit.point_on_shape.coords),
            normal: convert::vec3(&hit.normal),
        })
    }

    /// The entities of every collider that `shape` at `position` and `rotation` touches or
    /// overlaps, in the engine's order (by collider), into `out` (cleared first; keep one
    /// buffer to ask every frame without allocating).
    pub fn overlaps_into(
        &self,
        shape: &Shape,
        (position, rotation): (Vec3, Quat),
        filter: &QueryFilter,
        out: &mut Vec<Entity>,
    ) {
        out.clear();
        let pose = pose(position, rotation);
        let Ok(found) = self.world.intersect_shape(shape, &pose, filter) else {
            return;
        };
        out.extend(found.iter().filter_map(|&(c, _)| self.collider_entity(c)));
    }

    /// [`overlaps_into`](Self::overlaps_into) into a new list.
    pub fn overlaps(&self, shape: &Shape, at: (Vec3, Quat), filter: &QueryFilter) -> Vec<Entity> {
        let mut found = Vec::new();
        self.overlaps_into(shape, at, filter, &mut found);
        found
    }

    /// The collider nearest to `point` within `max_distance` (infinity allowed), and its
    /// nearest point; `solid`: a point inside a collider is its own nearest point.
    pub fn project_point(
        &self,
        point: Vec3,
        max_distance: Real,
        solid: bool,
        filter: &QueryFilter,
    ) -> Option<PointProjection> {
        let point = Point::from(convert::vector(point));
        let found = self
            .world
            .project_point(point, max_distance, solid, filter)
            .ok()??;
        Some(PointProjection {
            entity: self.collider_entity(found.collider)?,
            point: convert::vec3(&found.point.coords),
            is_inside: found.is_inside,
            distance: found.distance,
        })
    }
}

fn pose(position: Vec3, rotation: Quat) -> Isometry<Real> {
    convert::pose(&Transform::from_translation(position).with_rotation(rotation))
}

/// Asks the physics worlds what is where: `fn aim(query: SpatialQuery) { query.cast_ray(...) }`
/// asks the default world; [`SpatialQuery::world_on`] another.
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

    /// [`PhysicsWorld::cast_ray`] in the default world.
    pub fn cast_ray(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_distance: Real,
        solid: bool,
        filter: &QueryFilter,
    ) -> Option<RayHit> {
        self.world()
            .cast_ray(origin, dir, max_distance, solid, filter)
    }

    /// [`PhysicsWorld::cast_shape`] in the default world.
    pub fn cast_shape(
        &self,
        shape: &Shape,
        at: (Vec3, Quat),
        velocity: Vec3,
        max_time: Real,
        filter: &QueryFilter,
    ) -> Option<ShapeHit> {
        self.world()
            .cast_shape(shape, at, velocity, max_time, filter)
    }

    /// [`PhysicsWorld::overlaps`] in the default world.
    pub fn overlaps(&self, shape: &Shape, at: (Vec3, Quat), filter: &QueryFilter) -> Vec<Entity> {
        self.world().overlaps(shape, at, filter)
    }

    /// [`PhysicsWorld::overlaps_into`] in the default world.
    pub fn overlaps_into(
        &self,
        shape: &Shape,
        at: (Vec3, Quat),
        filter: &QueryFilter,
        out: &mut Vec<Entity>,
    ) {
        self.world().overlaps_into(shape, at, filter, out);
    }

    /// [`PhysicsWorld::project_point`] in the default world.
    pub fn project_point(
        &self,
        point: Vec3,
        max_distance: Real,
        solid: bool,
        filter: &QueryFilter,
    ) -> Option<PointProjection> {
        self.world()
            .project_point(point, max_distance, solid, filter)
    }
}

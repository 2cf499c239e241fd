//! What many engine tests build: a ground whose top face is the plane y = 0, and dynamic
//! bodies on it. One place, so that a test says what it varies and nothing else.
#![allow(dead_code)]

use sprung::math::{Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, ColliderHandle, RigidBodyBuilder, World};

/// A static box 2 m thick whose top face is y = 0, `half_width` either side of the origin in x
/// and z; `material` sets its collider's friction and the like (`|c| c` keeps the defaults).
pub fn ground_with(
    world: &mut World,
    half_width: Real,
    material: impl FnOnce(ColliderBuilder) -> ColliderBuilder,
) -> (BodyHandle, ColliderHandle) {
    let body = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .unwrap();
    let collider = world
        .add_collider(
            material(ColliderBuilder::cuboid(half_width, 1.0, half_width)),
            body,
        )
        .unwrap();
    (body, collider)
}

/// [`ground_with`] the default material.
pub fn ground(world: &mut World, half_width: Real) -> BodyHandle {
    ground_with(world, half_width, |c| c).0
}

/// A dynamic body at `at` with one collider, `collider`.
pub fn body_at(world: &mut World, at: Vector<Real>, collider: ColliderBuilder) -> BodyHandle {
    let body = world
        .add_body(RigidBodyBuilder::dynamic().translation(at))
        .unwrap();
    world.add_collider(collider, body).unwrap();
    body
}

/// A dynamic box of half-extents `half` at `at` (density 1000, friction 0.5).
pub fn cuboid(world: &mut World, at: Vector<Real>, half: Vector<Real>) -> BodyHandle {
    body_at(world, at, ColliderBuilder::cuboid(half.x, half.y, half.z))
}

//! What many engine tests build: a ground whose top face is the plane y = 0, and dynamic
//! bodies on it. One place, so that a test says what it varies and nothing else.
#![allow(dead_code)]

/// splitmix64, the scenes' generator (demos/src/rng.rs), shared rather than copied.
#[path = "../../../demos/src/rng.rs"]
pub mod rng;

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

/// A floor tilted by `theta` about Z (rising towards +x), its top face through the origin,
/// with a 1 m cube resting on it; `floor` is its collider (a slab whose top face is 0.5 m above
/// its centre, or a half-space), and both have friction `mu`. Returns the world, the cube and
/// the unit vector down the slope.
pub fn slope(
    theta: Real,
    mu: Real,
    floor: ColliderBuilder,
    floor_half_thickness: Real,
) -> (World, BodyHandle, Vector<Real>) {
    use sprung::math::{Isometry, Rotation};
    let mut world = World::default();
    let tilt = Rotation::from_axis_angle(&Vector::z_axis(), theta);
    let up = tilt * Vector::y();
    let plane = world
        .add_body(RigidBodyBuilder::fixed().pose(Isometry::from_parts(
            (-up * floor_half_thickness).into(),
            tilt,
        )))
        .unwrap();
    world.add_collider(floor.friction(mu), plane).unwrap();
    let cube = world
        .add_body(RigidBodyBuilder::dynamic().pose(Isometry::from_parts((up * 0.5).into(), tilt)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5).friction(mu), cube)
        .unwrap();
    (world, cube, tilt * -Vector::x())
}

/// How far `body` moves in `steps` steps of `dt`.
pub fn creep(world: &mut World, body: BodyHandle, steps: usize, dt: Real) -> Real {
    let start = world.body(body).unwrap().translation();
    for _ in 0..steps {
        world.step(dt).unwrap();
    }
    (world.body(body).unwrap().translation() - start).norm()
}

/// `body`'s acceleration along `along`, measured over one second after half a second of
/// settling (the velocity's change over 60 steps of `1/60` s).
pub fn acceleration_along(world: &mut World, body: BodyHandle, along: Vector<Real>) -> Real {
    let dt = 1.0 / 60.0;
    let speed = |w: &World| w.body(body).unwrap().linear_velocity().dot(&along);
    for _ in 0..30 {
        world.step(dt).unwrap();
    }
    let v1 = speed(world);
    for _ in 0..60 {
        world.step(dt).unwrap();
    }
    (speed(world) - v1) / (60.0 * dt)
}

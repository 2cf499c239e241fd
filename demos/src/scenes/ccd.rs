//! `bullet`: a small fast sphere shot at a thin wall, for continuous collision.

use sprung::math::{Isometry, Vector};
use sprung::{ColliderBuilder, RigidBodyBuilder};

use super::common::{static_box, world_with_ground, DENSITY, FRICTION};
use super::{Check, Scene};

/// A static wall of half-extents (0.05, 5, 5) centred at (10, 5, 0), and a sphere of radius 0.05
/// at (0, 5, 0) moving at (300, 0, 0) m/s under gravity: 5 m a step, so it is inside the wall
/// for at most one step, at x = 10, if steps alone are looked at.
pub fn bullet() -> Scene {
    let mut world = world_with_ground();
    let wall = Vector::new(0.05, 5.0, 5.0);
    static_box(&mut world, wall, Vector::new(10.0, 5.0, 0.0), FRICTION);
    let at = Vector::new(0.0, 5.0, 0.0);
    let sphere = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(at)
                .linear_velocity(Vector::new(300.0, 0.0, 0.0)),
        )
        .expect("valid sphere");
    let ball = ColliderBuilder::ball(0.05)
        .density(DENSITY)
        .friction(FRICTION);
    world.add_collider(ball, sphere).expect("valid ball");
    let tracked = vec![(sphere, Isometry::translation(at.x, at.y, at.z))];
    // Past the wall's far face (x = 10.05).
    let check = Check::Pass {
        body: sphere,
        beyond: 10.05,
    };
    Scene::new(world, tracked, check)
}

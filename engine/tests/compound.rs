//! Compound bodies: several colliders on one body, their mass properties combined as the
//! parallel-axis theorem says, and each collider touching the world.

use sprung::math::{Real, Vector};
use sprung::{ColliderBuilder, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;
const PI: Real = std::f32::consts::PI;

#[test]
fn a_dumbbell_has_the_mass_centre_and_inertia_of_its_parts() {
    let mut world = World::new(Vector::zeros()).unwrap();
    let body = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    // Two balls of radius 0.25 at x = -1 and x = +2 (an uneven dumbbell), density 1000.
    let (r, density) = (0.25, 1000.0);
    for x in [-1.0, 2.0] {
        world
            .add_collider(
                ColliderBuilder::ball(r)
                    .density(density)
                    .translation(Vector::new(x, 0.0, 0.0)),
                body,
            )
            .unwrap();
    }
    let m = density * 4.0 / 3.0 * PI * r * r * r;
    let b = world.body(body).unwrap();
    assert!((b.mass().mass - 2.0 * m).abs() < 1e-3 * m);
    // Centre of mass halfway: x = 0.5.
    assert!((b.center_of_mass() - sprung::math::Point::new(0.5, 0.0, 0.0)).norm() < 1e-5);
    // About the centre: each ball 2/5 m r^2 plus m d^2 with d = 1.5 across x; along x only
    // the balls' own inertia.
    let inertia = b.world_inertia();
    let across = 2.0 * (0.4 * m * r * r + m * 1.5 * 1.5);
    let along = 2.0 * 0.4 * m * r * r;
    assert!(
        (inertia[(1, 1)] - across).abs() < 1e-3 * across,
        "{inertia}"
    );
    assert!(
        (inertia[(2, 2)] - across).abs() < 1e-3 * across,
        "{inertia}"
    );
    assert!((inertia[(0, 0)] - along).abs() < 1e-3 * along, "{inertia}");
}

#[test]
fn a_compound_rests_on_all_its_parts() {
    let mut world = World::default();
    let ground = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(20.0, 1.0, 20.0), ground)
        .unwrap();
    // A table: a top plate and four legs, all on one body.
    let table = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 1.2, 0.0)))
        .unwrap();
    world
        .add_collider(
            ColliderBuilder::cuboid(1.0, 0.05, 0.6).translation(Vector::new(0.0, 0.5, 0.0)),
            table,
        )
        .unwrap();
    for (x, z) in [(-0.9, -0.5), (0.9, -0.5), (-0.9, 0.5), (0.9, 0.5)] {
        world
            .add_collider(
                ColliderBuilder::cuboid(0.05, 0.5, 0.05).translation(Vector::new(x, 0.0, z)),
                table,
            )
            .unwrap();
    }
    for _ in 0..180 {
        world.step(DT).unwrap();
    }
    let b = world.body(table).unwrap();
    // Standing on its legs: origin 0.5 above the floor, level, at rest.
    assert!(
        (b.translation().y - 0.5).abs() < 0.01,
        "{:?}",
        b.translation()
    );
    assert!(b.pose().rotation.angle() < 0.01);
    assert!(b.linear_velocity().norm() < 0.01);
}

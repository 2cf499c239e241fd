//! Continuous collision: fast bodies do not pass through thin ones.

use sprung::collision::parry3d;
use sprung::math::{Isometry, Real, Rotation, Vector};
use sprung::{BodyHandle, ColliderBuilder, ColliderHandle, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;

/// SCENES.md's `bullet`: a 5 cm sphere at 300 m/s (5 m a step) at a 10 cm wall; whether its
/// centre ever passed x = 10.05.
fn bullet_passes(bullet: bool) -> bool {
    let mut world = World::default();
    let wall = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(10.0, 5.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.05, 5.0, 5.0), wall)
        .unwrap();
    let ball = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(0.0, 5.0, 0.0))
                .linear_velocity(Vector::new(300.0, 0.0, 0.0))
                .bullet(bullet),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.05), ball)
        .unwrap();
    (0..60).any(|_| {
        world.step(DT).unwrap();
        world.body(ball).unwrap().translation().x > 10.05
    })
}

#[test]
fn a_bullet_does_not_pass_a_wall_flagged_or_not() {
    // Fast relative to its reach, it is swept against static geometry either way.
    assert!(!bullet_passes(true));
    assert!(!bullet_passes(false));
}

#[test]
fn a_thin_fast_box_stops_at_a_thin_plate_at_any_angle() {
    for degrees in [0.0_f32, 15.0, 30.0, 45.0, 60.0, 80.0] {
        for speed in [150.0_f32, 400.0] {
            let mut world = World::new(Vector::zeros()).unwrap();
            // A 2 cm plate across x = 5.
            let plate = world
                .add_body(RigidBodyBuilder::fixed().translation(Vector::new(5.0, 0.0, 0.0)))
                .unwrap();
            world
                .add_collider(ColliderBuilder::cuboid(0.01, 4.0, 4.0), plate)
                .unwrap();
            // A 4 cm thick tile, turned about y and z, fired along x.
            let turn = Rotation::from_scaled_axis(
                Vector::new(0.0, 1.0, 0.4).normalize() * degrees.to_radians(),
            );
            let tile = world
                .add_body(
                    RigidBodyBuilder::dynamic()
                        .pose(Isometry::from_parts(Vector::zeros().into(), turn))
                        .linear_velocity(Vector::new(speed, 0.0, 0.0)),
                )
                .unwrap();
            world
                .add_collider(ColliderBuilder::cuboid(0.02, 0.5, 0.5), tile)
                .unwrap();
            for step in 0..40 {
                world.step(DT).unwrap();
                let x = world.body(tile).unwrap().translation().x;
                assert!(
                    x < 5.0,
                    "{degrees} deg at {speed} m/s: centre at x = {x} after {} steps",
                    step + 1
                );
            }
        }
    }
}

#[test]
fn a_bullet_hits_a_thin_dynamic_plate_instead_of_passing_it() {
    let mut world = World::new(Vector::zeros()).unwrap();
    let plate = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(5.0, 0.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.02, 1.0, 1.0), plate)
        .unwrap();
    let shot = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .linear_velocity(Vector::new(300.0, 0.0, 0.0))
                .bullet(true),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.05).density(8000.0), shot)
        .unwrap();
    for _ in 0..10 {
        world.step(DT).unwrap();
    }
    let (s, p) = (
        world.body(shot).unwrap().translation().x,
        world.body(plate).unwrap().translation().x,
    );
    assert!(s < p, "the bullet ({s}) passed the plate ({p})");
    // And it pushed the plate: momentum went across.
    assert!(world.body(plate).unwrap().linear_velocity().x > 0.1);
}

/// A 5 cm ball shot down at 300 m/s (5 m a step) from 7.6 m at level geometry whose surface is y = 0:
/// whether its centre ever went below y = -0.05.
fn shot_through(floor: ColliderBuilder) -> bool {
    let mut world = World::default();
    let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    world.add_collider(floor, ground).unwrap();
    let ball = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(0.3, 7.6, 0.2))
                .linear_velocity(Vector::new(0.0, -300.0, 0.0)),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.05), ball)
        .unwrap();
    (0..30).any(|_| {
        world.step(DT).unwrap();
        world.body(ball).unwrap().translation().y < -0.05
    })
}

#[test]
fn fast_bodies_do_not_pass_level_geometry() {
    use sprung::collision::parry3d::na::DMatrix;
    use sprung::math::Point;
    // A mesh: two triangles of a 20 m square.
    let square = ColliderBuilder::trimesh(
        vec![
            Point::new(-10.0, 0.0, -10.0),
            Point::new(10.0, 0.0, -10.0),
            Point::new(10.0, 0.0, 10.0),
            Point::new(-10.0, 0.0, 10.0),
        ],
        vec![[0, 2, 1], [0, 3, 2]],
    );
    assert!(!shot_through(square), "through the mesh");
    // A flat height field.
    let field = ColliderBuilder::heightfield(DMatrix::zeros(4, 4), Vector::new(20.0, 1.0, 20.0));
    assert!(!shot_through(field), "through the height field");
    // A half-space.
    assert!(
        !shot_through(ColliderBuilder::halfspace(Vector::y())),
        "through the half-space"
    );
}

/// Speculative points belong to a step in which a pair can close: a cube thrown at a thin
/// wall, 5 cm beyond which another cube rests (near enough for the broad phase to pair them),
/// gets points against that cube in the step it is thrown (it closes on it at 12 m/s, a reach
/// across the gap), and must lose them once the wall has stopped it, as a query of the pair at
/// rest finds none (the gap is beyond the resting margin). Kept, they would be solved every
/// step for as long as the two rest.
#[test]
fn speculative_points_end_when_the_pair_can_no_longer_close() {
    let mut world = World::default();
    let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vector::y()), ground)
        .unwrap();
    // The wall, 3 cm thick, 1 cm from each cube.
    world
        .add_collider(
            ColliderBuilder::cuboid(0.015, 1.0, 1.0).translation(Vector::new(0.625, 1.0, 0.0)),
            ground,
        )
        .unwrap();
    let (_, resting) = cube(&mut world, 0.1, 0.0);
    let (thrown, at_wall) = cube(&mut world, 1.15, -12.0);
    let points = |world: &World| points_between(world, resting, at_wall);
    world.step(DT).unwrap();
    assert!(
        points(&world) > 0,
        "the thrown cube had no points against the one it closed on"
    );
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    // Stopped against the wall: its face at 0.64, the cube's centre half a metre beyond.
    let rest = world.body(thrown).unwrap();
    assert!(
        rest.linear_velocity().norm() < 0.01 && (rest.translation().x - 1.14).abs() < 0.005,
        "the wall did not stop the thrown cube against it: {:?}",
        rest.translation()
    );
    assert_eq!(
        points(&world),
        0,
        "points kept between cubes 5 cm apart at rest"
    );
}

/// A pair gets speculative points only while it can close along its normal within a step: two
/// cubes 5 cm apart, one thrown away from the other at 12 m/s (a relative speed that reaches
/// 20 cm in a step, across the gap, but moves them apart), get none; thrown towards it, they
/// do. (Their gap along the normal bounds their distance from below, and a motion along it
/// away, or across it, does not shrink it.)
#[test]
fn a_pair_moving_apart_gets_no_speculative_points() {
    for (v, expected) in [(12.0, false), (-12.0, true), (0.0, false)] {
        let mut world = World::default();
        world.set_gravity(Vector::zeros()).unwrap();
        let (_, still) = cube(&mut world, 0.0, 0.0);
        let (_, moving) = cube(&mut world, 1.05, v);
        world.step(DT).unwrap();
        assert_eq!(
            points_between(&world, still, moving) > 0,
            expected,
            "thrown at {v} m/s along x"
        );
    }
}

/// A dynamic unit cube at height 0.5, `x` along the x axis, moving along it at `v` (m/s).
fn cube(world: &mut World, x: Real, v: Real) -> (BodyHandle, ColliderHandle) {
    let body = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(x, 0.5, 0.0))
                .linear_velocity(Vector::new(v, 0.0, 0.0)),
        )
        .unwrap();
    let collider = world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), body)
        .unwrap();
    (body, collider)
}

/// How many contact points the pair of colliders `a` and `b` has.
fn points_between(world: &World, a: ColliderHandle, b: ColliderHandle) -> usize {
    world
        .contacts()
        .filter(|&(x, y, _)| (x, y) == (a, b) || (x, y) == (b, a))
        .map(|(_, _, m)| m.points.len())
        .sum()
}

/// A body turns about its centre of mass, which may lie far from a collider's origin: a
/// dumbbell of two 0.5 m cubes two metres either side of its centre, spinning at 3 rad/s (its
/// cubes' far corners at ~7 m/s), one cube 5 cm below a fixed box, must not sink into the box
/// in the step it spins up to it. Its speculative reach comes from the turn about the centre
/// (2.3 m of arm), not about the cube's own origin (0.43 m), which would neither pair the two
/// in time nor reach across the gap. The overlap measured by parry3d.
#[test]
fn a_collider_far_from_its_body_s_centre_reaches_as_far_as_it_turns() {
    let mut world = World::default();
    world.set_gravity(Vector::zeros()).unwrap();
    let fixed = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let lid = world
        .add_collider(
            ColliderBuilder::cuboid(0.25, 0.25, 0.25).translation(Vector::new(2.0, 0.55, 0.0)),
            fixed,
        )
        .unwrap();
    let dumbbell = world
        .add_body(RigidBodyBuilder::dynamic().angular_velocity(Vector::new(0.0, 0.0, 3.0)))
        .unwrap();
    let mut ends = Vec::new();
    for x in [-2.0, 2.0] {
        ends.push(
            world
                .add_collider(
                    ColliderBuilder::cuboid(0.25, 0.25, 0.25).translation(Vector::new(x, 0.0, 0.0)),
                    dumbbell,
                )
                .unwrap(),
        );
    }
    let overlap = |world: &World| {
        let (a, b) = (
            world.collider(lid).unwrap(),
            world.collider(ends[1]).unwrap(),
        );
        parry3d::query::contact(
            a.world_pose(),
            a.shape().as_parry(),
            b.world_pose(),
            b.shape().as_parry(),
            0.0,
        )
        .unwrap()
        .map_or(0.0, |c| -c.dist)
    };
    for step in 0..5 {
        world.step(DT).unwrap();
        assert!(
            overlap(&world) < 0.01,
            "step {step}: the spinning cube sank {} m into the box",
            overlap(&world)
        );
    }
}

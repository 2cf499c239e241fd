//! Forces, impulses, damping and gravity scale against their one-line laws; kinematic bodies
//! push and are not pushed; the fixed-step driver interpolates between the last two poses.

use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{ColliderBuilder, FixedStepper, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;

#[test]
fn forces_impulses_damping_and_gravity_scale() {
    let mut world = World::new(Vector::new(0.0, -10.0, 0.0)).unwrap();
    let floating = world
        .add_body(RigidBodyBuilder::dynamic().gravity_scale(0.0))
        .unwrap();
    world
        .add_collider(
            ColliderBuilder::cuboid(0.5, 0.5, 0.5).density(1000.0),
            floating,
        )
        .unwrap(); // 1000 kg
                   // F = m a: 2000 N for one step gives 2 m/s^2 for dt; the force is cleared afterwards.
    world
        .apply_force(floating, Vector::new(2000.0, 0.0, 0.0))
        .unwrap();
    world.step(DT).unwrap();
    let v = world.body(floating).unwrap().linear_velocity();
    assert!((v.x - 2.0 * DT).abs() < 1e-6 && v.y == 0.0, "{v:?}");
    world.step(DT).unwrap();
    assert!((world.body(floating).unwrap().linear_velocity().x - 2.0 * DT).abs() < 1e-6);
    // An impulse J changes the velocity by J / m at once.
    world
        .apply_impulse(floating, Vector::new(0.0, 0.0, 500.0))
        .unwrap();
    assert!((world.body(floating).unwrap().linear_velocity().z - 0.5).abs() < 1e-6);
    // An off-centre impulse spins it: w = I^-1 (r x J); a cube of 1000 kg has I = m/6 = 166.7.
    world
        .apply_impulse_at_point(
            floating,
            Vector::new(0.0, 0.0, 100.0),
            Point::new(0.5, 0.0, 0.0) + world.body(floating).unwrap().translation(),
        )
        .unwrap();
    let w = world.body(floating).unwrap().angular_velocity();
    assert!(
        (w.y - (-0.5 * 100.0) / (1000.0 / 6.0)).abs() < 1e-4,
        "{w:?}"
    );

    // Damping decays the velocity by 1 / (1 + h c) per substep.
    let damped = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .gravity_scale(0.0)
                .linear_damping(3.0)
                .linear_velocity(Vector::new(1.0, 0.0, 0.0))
                .translation(Vector::new(10.0, 0.0, 0.0)),
        )
        .unwrap();
    world.step(DT).unwrap();
    let h = DT / world.settings().substeps as Real;
    let expected = (1.0 / (1.0 + h * 3.0)).powi(world.settings().substeps as i32);
    assert!((world.body(damped).unwrap().linear_velocity().x - expected).abs() < 1e-6);
}

#[test]
fn a_kinematic_body_pushes_and_is_not_pushed() {
    let mut world = World::default();
    let ground = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .unwrap();
    world
        .add_collider(
            ColliderBuilder::cuboid(50.0, 1.0, 50.0).friction(0.0),
            ground,
        )
        .unwrap();
    let pusher = world
        .add_body(
            RigidBodyBuilder::kinematic()
                .translation(Vector::new(-2.0, 0.5, 0.0))
                .linear_velocity(Vector::new(1.0, 0.0, 0.0)),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), pusher)
        .unwrap();
    let crate_ = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 0.5, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5).friction(0.0), crate_)
        .unwrap();
    for _ in 0..180 {
        world.step(DT).unwrap();
    }
    let p = world.body(pusher).unwrap();
    // The kinematic body went exactly where its velocity took it...
    assert!(
        (p.translation().x - 1.0).abs() < 1e-3 && p.linear_velocity() == Vector::new(1.0, 0.0, 0.0)
    );
    // ...and pushed the crate ahead of it.
    let c = world.body(crate_).unwrap().translation();
    assert!(c.x > 1.0 + 0.99 - 0.02, "crate at {c:?}");

    // A kinematic target is reached in one step.
    let target = Isometry::new(Vector::new(-5.0, 2.0, 1.0), Vector::new(0.0, 0.4, 0.0));
    world.set_kinematic_target(pusher, target).unwrap();
    world.step(DT).unwrap();
    let pose = world.body(pusher).unwrap().pose();
    assert!(
        (pose.translation.vector - target.translation.vector).norm() < 1e-4,
        "{pose:?}"
    );
    assert!(pose.rotation.angle_to(&target.rotation) < 1e-4);
}

#[test]
fn the_fixed_stepper_interpolates_between_the_last_two_steps() {
    let mut world = World::default();
    let ball = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 10.0, 0.0)))
        .unwrap();
    let mut stepper = FixedStepper::new(DT, 3);
    // 10 frames of 7 ms: 70 ms of frames is 5 steps (83.3 ms) of physics, the world ahead by
    // 13.3 ms, so the frame's time is 0.2 of the way through the last step.
    let mut alpha = 0.0;
    let mut steps = 0;
    for _ in 0..10 {
        alpha = world.advance(&mut stepper, 0.007).unwrap();
        steps += stepper.updates();
    }
    assert_eq!(steps, 5);
    assert!((alpha - (1.0 - (5.0 * DT - 0.070) / DT)).abs() < 1e-3);
    let body = world.body(ball).unwrap();
    let (previous, current) = (world.interpolated_pose(ball, 0.0).unwrap(), *body.pose());
    assert!(previous.translation.y > current.translation.y);
    let middle = world.interpolated_pose(ball, 0.5).unwrap();
    assert!(
        (middle.translation.y - (previous.translation.y + current.translation.y) / 2.0).abs()
            < 1e-5
    );
    // A long frame runs at most 3 steps and drops the rest.
    world.advance(&mut stepper, 1.0).unwrap();
    assert_eq!(stepper.updates(), 3);
    assert!(world.advance(&mut stepper, Real::NAN).is_err());
    assert!(world.advance(&mut FixedStepper::new(-1.0, 3), 0.1).is_err());
}

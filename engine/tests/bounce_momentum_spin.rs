//! Restitution, momentum and the gyroscopic term against their closed forms.

use sprung::math::{Real, Vector};
use sprung::{ColliderBuilder, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;

#[test]
fn a_ball_dropped_from_h_rebounds_to_e_squared_h() {
    for e in [0.5_f32, 0.8] {
        let mut world = World::default();
        let ground = world
            .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
            .unwrap();
        world
            .add_collider(
                ColliderBuilder::cuboid(50.0, 1.0, 50.0).restitution(e),
                ground,
            )
            .unwrap();
        let h = 3.0;
        let ball = world
            .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, h + 0.5, 0.0)))
            .unwrap();
        world
            .add_collider(ColliderBuilder::ball(0.5).restitution(e), ball)
            .unwrap();
        // Fall, bounce once, and record the highest point of the flight after the bounce.
        let mut bounced = false;
        let mut apex: Real = 0.0;
        for _ in 0..300 {
            world.step(DT).unwrap();
            let b = world.body(ball).unwrap();
            if b.linear_velocity().y > 0.0 {
                bounced = true;
            }
            if bounced {
                apex = apex.max(b.translation().y - 0.5);
                if b.linear_velocity().y < 0.0 && b.translation().y < 0.6 {
                    break;
                }
            }
        }
        let expected = e * e * h;
        assert!(
            (apex - expected).abs() < 0.05 * expected,
            "e {e}: rebound {apex} m, e^2 h = {expected} m"
        );
    }
}

#[test]
fn linear_momentum_is_conserved_in_a_collision_of_two_free_bodies() {
    let mut world = World::new(Vector::zeros()).unwrap();
    let a = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(-2.0, 0.0, 0.0))
                .linear_velocity(Vector::new(3.0, 0.2, 0.0)),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5).density(800.0), a)
        .unwrap();
    let b = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(1.0, 0.3, 0.1))
                .rotation(Vector::new(0.3, 0.5, 0.1))
                .linear_velocity(Vector::new(-1.0, 0.0, 0.0)),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.6).density(2500.0), b)
        .unwrap();
    let momentum = |w: &World| {
        let p = |h| {
            let body = w.body(h).unwrap();
            body.linear_velocity() * body.mass().mass
        };
        p(a) + p(b)
    };
    let before = momentum(&world);
    let mut touched = false;
    for _ in 0..120 {
        let report = world.step(DT).unwrap();
        touched |= report.contact_points > 0;
    }
    assert!(touched, "the bodies never met");
    let after = momentum(&world);
    // They did exchange momentum...
    let va = world.body(a).unwrap().linear_velocity();
    assert!(va.x < 2.9, "A kept its speed: {va:?}");
    // ...and none was created or lost.
    assert!(
        (after - before).norm() < 1e-4 * before.norm(),
        "before {before:?}, after {after:?}"
    );
}

#[test]
fn a_torque_free_spinning_body_keeps_its_angular_momentum() {
    let mut world = World::new(Vector::zeros()).unwrap();
    // Three different moments of inertia; spin mostly about the major axis, with a wobble.
    let body = world
        .add_body(RigidBodyBuilder::dynamic().angular_velocity(Vector::new(0.4, 0.3, 6.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(1.5, 1.0, 0.3), body)
        .unwrap();
    let momentum = |w: &World| {
        let b = w.body(body).unwrap();
        b.world_inertia() * b.angular_velocity()
    };
    let l0 = momentum(&world);
    let w0 = world.body(body).unwrap().angular_velocity();
    // How far the angular velocity strays from its start: the wobble (0.5 rad/s across the
    // spin axis) precesses about L, so at some point of the run it points the other way.
    let mut strayed: f32 = 0.0;
    for _ in 0..600 {
        world.step(DT).unwrap();
        strayed = strayed.max((world.body(body).unwrap().angular_velocity() - w0).norm());
    }
    let l = momentum(&world);
    assert!((l - l0).norm() < 0.01 * l0.norm(), "L0 {l0:?}, L {l:?}");
    // The gyroscopic term is doing something: the angular velocity itself has precessed.
    assert!(strayed > 0.3, "w stayed within {strayed} of {w0:?}");
}

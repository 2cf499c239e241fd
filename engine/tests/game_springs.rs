//! The spring constraints games use: the attachment (mouse drag), the upright spring and the
//! velocity motors, against what each promises.

use sprung::math::{Point, Real, Rotation, Vector};
use sprung::{ColliderBuilder, JointBuilder, RigidBodyBuilder, Spring, World};

const DT: Real = 1.0 / 60.0;

#[test]
fn the_attachment_follows_a_moving_target_without_lag() {
    let run = |feed_velocity: bool| {
        let mut world = World::new(Vector::zeros()).unwrap();
        let body = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
        world
            .add_collider(ColliderBuilder::ball(0.2), body)
            .unwrap();
        let spring = Spring::Frequency {
            hertz: 5.0,
            damping_ratio: 1.0,
        };
        let drag = world
            .add_world_joint(
                JointBuilder::attachment(Point::origin(), Point::origin(), spring, 1.0e6),
                body,
            )
            .unwrap();
        let velocity = Vector::new(2.0, 0.5, 0.0);
        let mut lag: Real = 0.0;
        for step in 1..=180 {
            // Where the target is as the step begins, and how fast it moves.
            let now = Point::from(velocity * ((step - 1) as Real * DT));
            let fed = if feed_velocity {
                velocity
            } else {
                Vector::zeros()
            };
            world.set_attachment_target(drag, now, fed).unwrap();
            assert_eq!(world.step(DT).unwrap().limited_springs, 0);
            let target = Point::from(velocity * (step as Real * DT));
            if step > 60 {
                lag = lag.max((world.body(body).unwrap().translation() - target.coords).norm());
            }
        }
        lag
    };
    let (with, without) = (run(true), run(false));
    // A critically damped spring trails a moving target by 2 v / w = 0.13 m; fed the target's
    // velocity, it does not trail at all.
    assert!(without > 0.1, "{without}");
    assert!(with < 0.01, "lag {with} m with the target velocity");
}

#[test]
fn the_attachment_respects_its_maximum_force() {
    let mut world = World::new(Vector::zeros()).unwrap();
    let crate_ = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    world
        .add_collider(
            ColliderBuilder::cuboid(0.5, 0.5, 0.5).density(1000.0),
            crate_,
        )
        .unwrap(); // 1000 kg
    let spring = Spring::Frequency {
        hertz: 10.0,
        damping_ratio: 1.0,
    };
    let max_force = 200.0;
    world
        .add_world_joint(
            JointBuilder::attachment(
                Point::origin(),
                Point::new(20.0, 0.0, 0.0),
                spring,
                max_force,
            ),
            crate_,
        )
        .unwrap();
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    // One second at the cap: v = F t / m = 0.2 m/s, not the spring's violent yank; to 0.1%,
    // which a cap applied after the spring's huge wish misses through rounding.
    let v = world.body(crate_).unwrap().linear_velocity().norm();
    assert!(
        (v - max_force / 1000.0).abs() < 1e-3 * max_force / 1000.0,
        "speed {v} after 1 s"
    );
}

#[test]
fn the_upright_spring_rights_a_body_tilted_80_degrees_without_turning_it_about_up() {
    let mut world = World::new(Vector::zeros()).unwrap();
    let tilt = Vector::x() * 80.0_f32.to_radians();
    let body = world
        .add_body(RigidBodyBuilder::dynamic().rotation(tilt))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.3, 1.0, 0.5), body)
        .unwrap();
    let spring = Spring::Frequency {
        hertz: 1.0,
        damping_ratio: 1.0,
    };
    world
        .add_world_joint(
            JointBuilder::upright(Vector::y(), Vector::y(), spring),
            body,
        )
        .unwrap();
    for _ in 0..240 {
        world.step(DT).unwrap();
        let w = world.body(body).unwrap().angular_velocity();
        assert!(w.y.abs() < 1e-3, "spinning about up at {} rad/s", w.y);
    }
    let rotation = world.body(body).unwrap().pose().rotation;
    let up = rotation * Vector::y();
    assert!(
        up.angle(&Vector::y()) < 2.0_f32.to_radians(),
        "still {} deg off",
        up.angle(&Vector::y()).to_degrees()
    );
    // Righted about the tilt's own axis: the heading is where it was.
    assert!(
        rotation.angle_to(&Rotation::identity()) < 2.0_f32.to_radians(),
        "{rotation:?}"
    );
}

#[test]
fn motors_reach_their_speed_within_their_force() {
    let mut world = World::new(Vector::zeros()).unwrap();
    let wheel = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    world
        .add_collider(
            ColliderBuilder::cuboid(0.5, 0.5, 0.5).density(1000.0),
            wheel,
        )
        .unwrap(); // I = m/6 = 166.7
    let slow = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(5.0, 0.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5).density(1000.0), slow)
        .unwrap();
    let cart = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(-5.0, 0.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5).density(1000.0), cart)
        .unwrap();
    world
        .add_world_joint(JointBuilder::angular_motor(Vector::y(), 5.0, 1.0e6), wheel)
        .unwrap();
    world
        .add_world_joint(JointBuilder::angular_motor(Vector::y(), 5.0, 100.0), slow)
        .unwrap();
    world
        .add_world_joint(JointBuilder::linear_motor(Vector::z(), 3.0, 1.0e6), cart)
        .unwrap();
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    let spin = world.body(wheel).unwrap().angular_velocity();
    assert!(
        (spin.y - 5.0).abs() < 0.01 && spin.x.abs() < 1e-4,
        "{spin:?}"
    );
    // Torque-limited: w = tau t / I = 100 * 0.5 / 166.7 = 0.3 rad/s after half a second.
    let limited = world.body(slow).unwrap().angular_velocity().y;
    assert!(
        (limited - 0.3).abs() < 0.01 * 0.3,
        "torque-limited motor at {limited} rad/s"
    );
    let v = world.body(cart).unwrap().linear_velocity();
    assert!((v.z - 3.0).abs() < 0.01 && v.x.abs() < 1e-4, "{v:?}");
}

#[test]
fn the_body_world_joints_hold_on_to_stays_hidden() {
    let mut world = World::default();
    let body = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    let spring = Spring::Frequency {
        hertz: 2.0,
        damping_ratio: 1.0,
    };
    world
        .add_world_joint(
            JointBuilder::attachment(Point::origin(), Point::new(0.0, 1.0, 0.0), spring, 100.0),
            body,
        )
        .unwrap();
    assert_eq!(world.body_count(), 1);
    assert_eq!(
        world.bodies().map(|(h, _)| h).collect::<Vec<_>>(),
        vec![body]
    );
}

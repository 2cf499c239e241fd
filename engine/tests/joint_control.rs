//! The user's control of joints: a setting a joint kind does not have is a typed error, not
//! silently dropped; world joints are refused by `add_joint`; motors, limits and springs change
//! while the joint exists; the joint's angle, travel or length is readable.

use sprung::math::{Point, Real, Vector};
use sprung::{ColliderBuilder, Error, JointBuilder, JointHandle, RigidBodyBuilder, Spring, World};

const DT: Real = 1.0 / 60.0;

/// Two free bodies to join, without gravity.
fn two_bodies() -> (World, sprung::BodyHandle, sprung::BodyHandle) {
    let mut world = World::new(Vector::zeros()).unwrap();
    let a = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    let b = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(1.0, 0.0, 0.0)))
        .unwrap();
    (world, a, b)
}

#[test]
fn a_setting_the_joint_kind_does_not_have_is_refused_by_name() {
    let (mut world, a, b) = two_bodies();
    let o = Point::origin();
    let refused = [
        JointBuilder::ball(o, o).motor(1.0, 10.0),
        JointBuilder::ball(o, o).angle_limits(-1.0, 1.0),
        JointBuilder::hinge(o, o, Vector::z(), Vector::z()).limits(0.0, 1.0),
        JointBuilder::hinge(o, o, Vector::z(), Vector::z()).translation_limits(0.0, 1.0),
        JointBuilder::slider(o, o, Vector::x()).angle_limits(-1.0, 1.0),
        JointBuilder::fixed(o, o).free(),
        JointBuilder::distance(o, o, 1.0).motor(1.0, 1.0),
    ];
    for builder in refused {
        match world.add_joint(builder.clone(), a, b) {
            Err(Error::NotApplicable(what)) => assert!(!what.is_empty()),
            other => panic!("{builder:?}: {other:?}"),
        }
    }
    // A world motor given a spring is refused too, by add_world_joint.
    let motor = JointBuilder::angular_motor(Vector::y(), 1.0, 1.0)
        .spring(Spring::Halflife { halflife: 0.1 });
    assert!(matches!(
        world.add_world_joint(motor, a),
        Err(Error::NotApplicable(_))
    ));
    assert_eq!(world.joints().count(), 0, "a refused joint was added");
    // The settings that do apply still go through.
    let hinge = JointBuilder::hinge(o, o, Vector::z(), Vector::z())
        .angle_limits(-1.0, 1.0)
        .motor(1.0, 10.0);
    assert!(world.add_joint(hinge, a, b).is_ok());
}

#[test]
fn add_joint_refuses_the_joints_that_join_a_body_to_the_world() {
    let (mut world, a, b) = two_bodies();
    let spring = Spring::Frequency {
        hertz: 2.0,
        damping_ratio: 1.0,
    };
    let world_only = [
        JointBuilder::attachment(Point::origin(), Point::origin(), spring, 100.0),
        JointBuilder::upright(Vector::y(), Vector::y(), spring),
        JointBuilder::angular_motor(Vector::y(), 1.0, 10.0),
        JointBuilder::linear_motor(Vector::y(), 1.0, 10.0),
    ];
    for builder in world_only {
        assert!(
            matches!(
                world.add_joint(builder.clone(), a, b),
                Err(Error::NotApplicable(_))
            ),
            "{builder:?}"
        );
        assert!(world.add_world_joint(builder, a).is_ok());
    }
}

/// A 1 kg wheel on a hinge about z to a static frame, its motor at `speed` with a large torque.
fn wheel(speed: Real) -> (World, sprung::BodyHandle, JointHandle) {
    let mut world = World::new(Vector::zeros()).unwrap();
    world.set_sleeping(false);
    let frame = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let wheel = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.1).density(10.0), wheel)
        .unwrap();
    let hinge = JointBuilder::hinge(Point::origin(), Point::origin(), Vector::z(), Vector::z())
        .motor(speed, 1.0e3);
    let joint = world.add_joint(hinge, frame, wheel).unwrap();
    (world, wheel, joint)
}

#[test]
fn a_hinge_motor_changed_at_run_time_drives_to_its_new_speed_and_can_be_removed() {
    let (mut world, wheel, joint) = wheel(2.0);
    let spin = |w: &World| w.body(wheel).unwrap().angular_velocity().z;
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    assert!((spin(&world) - 2.0).abs() < 0.01, "{}", spin(&world));
    world.set_joint_motor(joint, Some((-3.0, 1.0e3))).unwrap();
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    assert!((spin(&world) + 3.0).abs() < 0.01, "{}", spin(&world));
    // Without a motor nothing drives or brakes it: it keeps its speed.
    world.set_joint_motor(joint, None).unwrap();
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    assert!((spin(&world) + 3.0).abs() < 0.01, "{}", spin(&world));
    // A refused change changes nothing.
    assert!(world
        .set_joint_motor(joint, Some((Real::NAN, 1.0)))
        .is_err());
    assert!(world.set_joint_spring(joint, None).is_ok());
    assert!(world.set_joint_limits(joint, Some((1.0, -1.0))).is_err());
    for _ in 0..10 {
        world.step(DT).unwrap();
    }
    assert!((spin(&world) + 3.0).abs() < 0.01, "{}", spin(&world));
}

#[test]
fn hinge_limits_set_at_run_time_stop_the_motor_and_the_angle_reads_the_pose() {
    let (mut world, wheel, joint) = wheel(1.0);
    world.set_joint_limits(joint, Some((-0.5, 0.5))).unwrap();
    for _ in 0..120 {
        world.step(DT).unwrap();
        // The angle the joint reports is the wheel's turn about z (it started unturned).
        let q = world.body(wheel).unwrap().pose().rotation;
        let turned = q * Vector::x();
        let expected = turned.y.atan2(turned.x);
        let angle = world.joint_position(joint).unwrap();
        assert!((angle - expected).abs() < 1e-4, "{angle} vs {expected}");
        assert!(angle < 0.5 + 0.01, "past the limit: {angle}");
    }
    // The motor holds it against the upper limit.
    let angle = world.joint_position(joint).unwrap();
    assert!((angle - 0.5).abs() < 0.01, "{angle}");
    // Released, it turns on past 0.5.
    world.set_joint_limits(joint, None).unwrap();
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    let angle = world.joint_position(joint).unwrap();
    assert!(angle > 0.9, "{angle}");
}

#[test]
fn a_rod_made_a_spring_at_run_time_oscillates_and_made_rigid_again_holds_its_length() {
    let (mut world, a, b) = two_bodies();
    world.set_sleeping(false);
    let o = Point::origin();
    let rod = world
        .add_joint(JointBuilder::distance(o, o, 1.0), a, b)
        .unwrap();
    world
        .set_linear_velocity(b, Vector::new(1.0, 0.0, 0.0))
        .unwrap();
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    let length = world.joint_position(rod).unwrap();
    assert!((length - 1.0).abs() < 1e-3, "the rod stretched to {length}");
    let spring = Spring::Frequency {
        hertz: 1.0,
        damping_ratio: 0.0,
    };
    world.set_joint_spring(rod, Some(spring)).unwrap();
    world.set_linear_velocity(a, Vector::zeros()).unwrap();
    world
        .set_linear_velocity(b, Vector::new(1.0, 0.0, 0.0))
        .unwrap();
    let mut longest: Real = 0.0;
    for _ in 0..60 {
        world.step(DT).unwrap();
        longest = longest.max(world.joint_position(rod).unwrap());
    }
    // Two 1 kg bodies apart at 1 m/s on a 1 Hz spring (reduced mass 0.5 kg) stretch it by
    // about v / omega = 1 / (2 pi) = 0.16 m.
    assert!((longest - 1.16).abs() < 0.02, "stretched to {longest}");
    world.set_joint_spring(rod, None).unwrap();
    for _ in 0..120 {
        world.step(DT).unwrap();
    }
    let length = world.joint_position(rod).unwrap();
    assert!((length - 1.0).abs() < 5e-3, "rigid again at {length}");
}

#[test]
fn a_sliders_position_is_its_travel_along_the_axis() {
    let (mut world, a, b) = two_bodies();
    let slider = world
        .add_joint(
            JointBuilder::slider(Point::origin(), Point::new(-1.0, 0.0, 0.0), Vector::x()),
            a,
            b,
        )
        .unwrap();
    assert!(world.joint_position(slider).unwrap().abs() < 1e-6);
    world
        .set_linear_velocity(b, Vector::new(0.5, 0.0, 0.0))
        .unwrap();
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let gap = world.body(b).unwrap().translation().x - world.body(a).unwrap().translation().x;
    let travel = world.joint_position(slider).unwrap();
    assert!(
        (travel - (gap - 1.0)).abs() < 1e-4,
        "{travel} vs {}",
        gap - 1.0
    );
    assert!(travel > 0.2, "{travel}");
    // A ball joint has no coordinate.
    let ball = world
        .add_joint(JointBuilder::ball(Point::origin(), Point::origin()), a, b)
        .unwrap();
    assert_eq!(world.joint_position(ball), Err(Error::WrongJointKind));
}

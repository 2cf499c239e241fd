//! Hinges (motor, limits, free axis) and welds.

use sprung::math::{Point, Real, Rotation, Vector};
use sprung::{ColliderBuilder, JointBuilder, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;

#[test]
fn a_hinge_motor_reaches_its_speed_and_the_hinge_keeps_its_axis() {
    let mut world = World::default();
    let frame = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 2.0, 0.0)))
        .unwrap();
    let wheel = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 2.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.1), wheel)
        .unwrap();
    let hinge = JointBuilder::hinge(Point::origin(), Point::origin(), Vector::z(), Vector::z())
        .motor(4.0, 1.0e4);
    world.add_joint(hinge, frame, wheel).unwrap();
    // A torque about x tries to tip the wheel off its axle.
    for _ in 0..120 {
        world
            .apply_torque(wheel, Vector::new(50.0, 0.0, 0.0))
            .unwrap();
        world.step(DT).unwrap();
    }
    let w = world.body(wheel).unwrap().angular_velocity();
    assert!((w.z - 4.0).abs() < 0.02, "spins at {w:?}");
    assert!(
        w.x.abs() < 0.01 && w.y.abs() < 0.01,
        "wobbles off the axis: {w:?}"
    );
    let axis = world.body(wheel).unwrap().pose().rotation * Vector::z();
    assert!(
        axis.angle(&Vector::z()) < 0.01,
        "axis tipped by {} rad",
        axis.angle(&Vector::z())
    );
    let centre = world.body(wheel).unwrap().translation();
    assert!(
        (centre - Vector::new(0.0, 2.0, 0.0)).norm() < 0.005,
        "axle moved to {centre:?}"
    );
}

#[test]
fn hinge_limits_hold_a_bar_under_gravity() {
    let mut world = World::default();
    let wall = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 5.0, 0.0)))
        .unwrap();
    // A 2 m bar sticking out along +x from a hinge about z at the wall; gravity swings it down.
    let bar = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(1.0, 5.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(1.0, 0.05, 0.05), bar)
        .unwrap();
    let hinge = JointBuilder::hinge(
        Point::origin(),
        Point::new(-1.0, 0.0, 0.0),
        Vector::z(),
        Vector::z(),
    )
    .angle_limits(-0.5, 0.5);
    world.add_joint(hinge, wall, bar).unwrap();
    for _ in 0..300 {
        world.step(DT).unwrap();
    }
    let (axis, angle) = world
        .body(bar)
        .unwrap()
        .pose()
        .rotation
        .axis_angle()
        .unwrap();
    let signed = angle * axis.z.signum();
    assert!(
        (signed + 0.5).abs() < 0.02,
        "the lower limit should hold at -0.5 rad: {signed}"
    );
    assert!(world.body(bar).unwrap().angular_velocity().norm() < 0.01);
    // Without limits the same bar swings through -pi/2.
    let mut free_world = World::default();
    let wall = free_world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 5.0, 0.0)))
        .unwrap();
    let bar = free_world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(1.0, 5.0, 0.0)))
        .unwrap();
    free_world
        .add_collider(ColliderBuilder::cuboid(1.0, 0.05, 0.05), bar)
        .unwrap();
    free_world
        .add_joint(
            JointBuilder::hinge(
                Point::origin(),
                Point::new(-1.0, 0.0, 0.0),
                Vector::z(),
                Vector::z(),
            ),
            wall,
            bar,
        )
        .unwrap();
    let mut lowest: Real = 5.0;
    for _ in 0..120 {
        free_world.step(DT).unwrap();
        lowest = lowest.min(free_world.body(bar).unwrap().translation().y);
    }
    assert!(
        lowest < 4.05,
        "a free hinge lets the bar hang: lowest centre {lowest}"
    );
}

#[test]
fn a_weld_holds_a_cantilever() {
    let mut world = World::default();
    let wall = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 5.0, 0.0)))
        .unwrap();
    let mut previous = wall;
    let mut beams = Vec::new();
    // Three 1 m beams welded end to end, sticking out along +x.
    for i in 0..3 {
        let beam = world
            .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(
                0.5 + i as Real,
                5.0,
                0.0,
            )))
            .unwrap();
        world
            .add_collider(ColliderBuilder::cuboid(0.5, 0.1, 0.1), beam)
            .unwrap();
        let anchor_a = if i == 0 {
            Point::origin()
        } else {
            Point::new(0.5, 0.0, 0.0)
        };
        world
            .add_joint(
                JointBuilder::fixed(anchor_a, Point::new(-0.5, 0.0, 0.0)),
                previous,
                beam,
            )
            .unwrap();
        previous = beam;
        beams.push(beam);
    }
    for _ in 0..300 {
        world.step(DT).unwrap();
    }
    let tip = world.body(*beams.last().unwrap()).unwrap();
    assert!(
        (tip.translation() - Vector::new(2.5, 5.0, 0.0)).norm() < 0.05,
        "the tip sagged to {:?}",
        tip.translation()
    );
    assert!(tip.pose().rotation.angle_to(&Rotation::identity()) < 2.0_f32.to_radians());
    assert!(tip.linear_velocity().norm() < 0.01);
}

#[test]
fn a_slider_moves_only_along_its_axis_with_its_motor_and_limits() {
    let mut world = World::default();
    let rail = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 3.0, 0.0)))
        .unwrap();
    let carriage = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 3.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.3, 0.2, 0.2), carriage)
        .unwrap();
    // A rail along x, tilted 30 degrees up; the motor pushes at 1 m/s, the limit stops it at 2 m.
    let axis = Vector::new(
        30.0_f32.to_radians().cos(),
        30.0_f32.to_radians().sin(),
        0.0,
    );
    let slider = JointBuilder::slider(Point::origin(), Point::origin(), axis)
        .translation_limits(-0.5, 2.0)
        .motor(1.0, 1.0e4);
    world.add_joint(slider, rail, carriage).unwrap();
    for step in 0..240 {
        // A sideways push and a twist the slider must refuse.
        world
            .apply_force(carriage, Vector::new(0.0, 0.0, 30.0))
            .unwrap();
        world
            .apply_torque(carriage, Vector::new(5.0, 5.0, 5.0))
            .unwrap();
        world.step(DT).unwrap();
        let body = world.body(carriage).unwrap();
        let d = body.translation() - Vector::new(0.0, 3.0, 0.0);
        let off_axis = (d - axis * d.dot(&axis)).norm();
        assert!(off_axis < 0.01, "step {step}: {off_axis} m off the rail");
        assert!(body.pose().rotation.angle_to(&Rotation::identity()) < 0.01);
        if step == 60 {
            // One second at the motor's 1 m/s.
            assert!(
                (d.dot(&axis) - 1.0).abs() < 0.03,
                "travelled {}",
                d.dot(&axis)
            );
        }
    }
    let d = world.body(carriage).unwrap().translation() - Vector::new(0.0, 3.0, 0.0);
    assert!(
        (d.dot(&axis) - 2.0).abs() < 0.02,
        "the upper limit holds at 2 m: {}",
        d.dot(&axis)
    );
}

#[test]
fn a_joint_breaks_past_its_breaking_force_and_says_so() {
    use sprung::Event;
    let mut world = World::default();
    let hook = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 10.0, 0.0)))
        .unwrap();
    // Two 10 kg weights (about 98 N each) on ropes rated 150 N.
    let light = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(0.0, 9.0, 0.0))
                .mass_properties(10.0, Vector::repeat(0.1)),
        )
        .unwrap();
    let heavy = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(3.0, 9.0, 0.0))
                .mass_properties(10.0, Vector::repeat(0.1)),
        )
        .unwrap();
    let rope = |x: Real| {
        JointBuilder::ball(Point::new(x, 0.0, 0.0), Point::new(0.0, 1.0, 0.0)).break_force(150.0)
    };
    let holds = world.add_joint(rope(0.0), hook, light).unwrap();
    let snaps = world.add_joint(rope(3.0), hook, heavy).unwrap();
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let broken = |e: &Event| matches!(e, Event::JointBroken { .. });
    assert!(
        !world.drain_events().any(|e| broken(&e)),
        "98 N on a 150 N rope"
    );
    // Pull the second weight down with 100 N more: 198 N > 150 N.
    for _ in 0..10 {
        world
            .apply_force(heavy, Vector::new(0.0, -100.0, 0.0))
            .unwrap();
        world.step(DT).unwrap();
    }
    let events: Vec<Event> = world.drain_events().filter(broken).collect();
    assert_eq!(events.len(), 1, "{events:?}");
    match events[0] {
        Event::JointBroken {
            joint,
            bodies,
            load,
        } => {
            assert_eq!(joint, snaps);
            assert_eq!(bodies, (hook, heavy));
            assert!(load > 150.0 && load < 250.0, "broke at {load} N");
        }
        _ => unreachable!("filtered"),
    }
    assert!(world.joint(snaps).is_none() && world.joint(holds).is_some());
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    assert!(
        world.body(heavy).unwrap().translation().y < 8.0,
        "the freed weight falls"
    );
    assert!((world.body(light).unwrap().translation().y - 9.0).abs() < 0.01);
    assert!(world
        .add_joint(
            JointBuilder::ball(Point::origin(), Point::origin()).break_force(0.0),
            hook,
            light
        )
        .is_err());
}

/// Hinges, sliders and welds may be soft: held at the anchor by a spring, a body hangs g / w^2
/// below it, as a mass on a spring of that frequency does.
#[test]
fn soft_hinges_sliders_and_welds_sag_as_springs_do() {
    use sprung::Spring;
    let hertz = 2.0;
    let expected = 9.81 / (2.0 * std::f32::consts::PI * hertz).powi(2);
    let spring = Spring::Frequency {
        hertz,
        damping_ratio: 1.0,
    };
    let builders = [
        (
            "weld",
            JointBuilder::fixed(Point::origin(), Point::origin()).spring(spring),
        ),
        (
            "hinge",
            JointBuilder::hinge(Point::origin(), Point::origin(), Vector::z(), Vector::z())
                .spring(spring),
        ),
        // A horizontal slider: gravity pulls across its axis, on the soft rows.
        (
            "slider",
            JointBuilder::slider(Point::origin(), Point::origin(), Vector::x()).spring(spring),
        ),
    ];
    for (name, builder) in builders {
        let mut world = World::default();
        let anchor = world
            .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 5.0, 0.0)))
            .unwrap();
        let body = world
            .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 5.0, 0.0)))
            .unwrap();
        world
            .add_collider(ColliderBuilder::cuboid(0.2, 0.2, 0.2), body)
            .unwrap();
        world.add_joint(builder, anchor, body).unwrap();
        for _ in 0..240 {
            world.step(DT).unwrap();
        }
        let sag = 5.0 - world.body(body).unwrap().translation().y;
        assert!(
            (sag - expected).abs() < 0.05 * expected,
            "{name}: sagged {sag} m, g / w^2 = {expected} m"
        );
    }
}

//! Joint drives against their closed forms: a hinge driven to an angle follows the critically
//! damped step response at every sample, and a rod held level by a ball joint's orientation
//! drive sags by its weight over the drive's stiffness, or falls when the torque cap is below
//! its weight's torque.

use sprung::math::{Point, Real, Rotation, Vector};
use sprung::{ColliderBuilder, JointBuilder, RigidBodyBuilder, Spring, World};
use std::f32::consts::PI;

const DT: Real = 1.0 / 60.0;

/// Gravity off: a square plate (0.5 m, 2 kg) centred on a hinge about z, driven from 0 to 45
/// degrees by a critically damped 2 Hz drive referring to the plate's inertia about the axis.
/// At every step the angle is the closed form `45 (1 - (1 + w t) e^(-w t))` within 2% of the
/// 45 degree step, and never past 45; and the drive's impulse, read back by name, is the torque
/// of that motion, `I theta''(t) = I 45 w^2 (1 - w t) e^(-w t)` (its last substep's impulse
/// over the substep), within 2% of the step's largest torque `I 45 w^2`.
#[test]
fn a_hinge_drive_follows_the_critically_damped_step() {
    let mut world = World::new(Vector::zeros()).unwrap();
    let frame = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let plate = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    let shape = ColliderBuilder::cuboid(0.25, 0.25, 0.02).density(2.0 / (0.5 * 0.5 * 0.04));
    world.add_collider(shape, plate).unwrap();
    let target = 45f32.to_radians();
    let spring = Spring::Frequency {
        hertz: 2.0,
        damping_ratio: 1.0,
    };
    let hinge = JointBuilder::hinge(Point::origin(), Point::origin(), Vector::z(), Vector::z())
        .drive(target, spring, 1.0e4);
    let joint = world.add_joint(hinge, frame, plate).unwrap();
    let omega = 2.0 * PI * 2.0;
    // The plate's moment about the axis: m (a^2 + b^2) / 12.
    let inertia = 2.0 * (0.5 * 0.5 + 0.5 * 0.5) / 12.0;
    let peak = inertia * target * omega * omega;
    let substep = DT / world.settings().substeps as Real;
    for step in 1..=180 {
        world.step(DT).unwrap();
        let t = step as Real * DT;
        let angle = world.joint_position(joint).unwrap();
        let closed = target * (1.0 - (1.0 + omega * t) * (-omega * t).exp());
        let off = (angle - closed).abs() / target;
        assert!(off <= 0.02, "t {t}: {angle} against {closed}");
        assert!(angle <= target + 1e-4, "t {t}: past the target at {angle}");
        let torque = match world.joint(joint).unwrap().impulses() {
            sprung::JointImpulses::Hinge(h) => h.drive / substep,
            other => panic!("{other:?}"),
        };
        let closed = peak * (1.0 - omega * t) * (-omega * t).exp();
        assert!(
            (torque - closed).abs() <= 0.02 * peak,
            "t {t}: the drive's torque {torque} N m against {closed}"
        );
    }
}

/// A uniform rod of 1 m and 1 kg pivoted at its end on a ball joint, driven level by a 2 Hz
/// drive (frequency referring to the inertia it turns about the pivot, `I = m L^2 / 3`) with
/// a cap of 10 N m: it sags below level by its weight's torque over the drive's stiffness,
/// `m g L/2 / (I w^2)` (5.34 degrees), within 0.5 degrees. With a cap of 2 N m, under its
/// weight's 4.9 N m, it cannot hold and falls past 45 degrees.
#[test]
fn a_rod_driven_level_sags_by_its_weight_over_the_drive_stiffness() {
    let rod = |cap: Real| -> (World, sprung::BodyHandle) {
        let mut world = World::default();
        let pivot = world.add_body(RigidBodyBuilder::fixed()).unwrap();
        let rod = world
            .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.5, 0.0, 0.0)))
            .unwrap();
        let shape = ColliderBuilder::cuboid(0.5, 0.02, 0.02).density(1.0 / (1.0 * 0.04 * 0.04));
        world.add_collider(shape, rod).unwrap();
        let spring = Spring::Frequency {
            hertz: 2.0,
            damping_ratio: 1.0,
        };
        let ball = JointBuilder::ball(Point::origin(), Point::new(-0.5, 0.0, 0.0))
            .orientation_drive(Rotation::identity(), spring, cap);
        world.add_joint(ball, pivot, rod).unwrap();
        (world, rod)
    };
    let below_level = |world: &World, rod| -> Real {
        let axis = world.body(rod).unwrap().pose().rotation * Vector::x();
        (-axis.y).asin().to_degrees()
    };
    let (m, g, l) = (1.0, 9.81, 1.0);
    let inertia = m * l * l / 3.0;
    let omega: Real = 2.0 * PI * 2.0;
    let sag = (m * g * l / 2.0 / (inertia * omega * omega)).to_degrees();
    let (mut world, body) = rod(10.0);
    for step in 0..300 {
        world.step(DT).unwrap();
        let angle = below_level(&world, body);
        assert!(
            angle.is_finite() && angle < sag + 2.0,
            "step {step}: {angle}"
        );
    }
    let angle = below_level(&world, body);
    assert!(
        (angle - sag).abs() < 0.5,
        "sags {angle} deg, closed form {sag}"
    );
    let (mut world, body) = rod(2.0);
    for _ in 0..300 {
        world.step(DT).unwrap();
    }
    let angle = below_level(&world, body);
    assert!(angle > 45.0, "holds at {angle} deg with 2 N m");
}

//! Swing-twist joints and the ball joint's cone, held at every step against their limits: a
//! cone under a constant torque, an elliptical cone along each of its axes, twist limits both
//! ways, and a conical pendulum launched faster than its free speed riding the cone.

use sprung::math::{Point, Real, Rotation, Vector};
use sprung::{ColliderBuilder, JointBuilder, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;

/// A 1 m, 2 kg bar along x, 0.2 m square, held at its left end to the static world by `joint`,
/// gravity off. (A thinner bar, 0.1 m square, pressed into a cone by 20 N m with its twist
/// free, rocks about its own axis with a growing amplitude at 4 substeps of 1/60 s, and stays
/// bounded only at substeps of 1/15,360 s: its axial inertia is 1/200 of its inertia about the
/// pivot.)
fn bar_on(joint: JointBuilder) -> (World, sprung::BodyHandle) {
    let mut world = World::new(Vector::zeros()).unwrap();
    let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let bar = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.5, 0.0, 0.0)))
        .unwrap();
    // 1 x 0.2 x 0.2 m at 50 kg/m^3: 2 kg.
    let shape = ColliderBuilder::cuboid(0.5, 0.1, 0.1).density(50.0);
    world.add_collider(shape, bar).unwrap();
    world.add_joint(joint, ground, bar).unwrap();
    (world, bar)
}

fn swing_twist() -> JointBuilder {
    JointBuilder::swing_twist(
        Point::origin(),
        Point::new(-0.5, 0.0, 0.0),
        Vector::x(),
        Vector::y(),
    )
}

/// The angle between the bar's axis and x (the swing), in degrees.
fn swing_of(world: &World, bar: sprung::BodyHandle) -> Real {
    let axis = world.body(bar).unwrap().pose().rotation * Vector::x();
    axis.angle(&Vector::x()).to_degrees()
}

/// Pushes the bar with `torque` for 10 s, checking `within` (the largest angle, degrees) at
/// every step by `angle`; returns the largest angle reached.
fn push(
    (mut world, bar): (World, sprung::BodyHandle),
    torque: Vector<Real>,
    angle: impl Fn(&World) -> Real,
    within: Real,
) -> Real {
    let mut largest: Real = 0.0;
    for step in 0..600 {
        world.apply_torque(bar, torque).unwrap();
        world.step(DT).unwrap();
        let a = angle(&world);
        assert!(
            a.is_finite() && a <= within,
            "{torque:?} step {step}: {a} deg past {within}"
        );
        largest = largest.max(a);
    }
    largest
}

#[test]
fn a_cone_of_30_degrees_holds_under_a_constant_torque() {
    let joint = swing_twist().swing_limits(30f32.to_radians(), 30f32.to_radians());
    for torque in [Vector::y() * 20.0, Vector::new(0.0, 14.0, -14.0)] {
        let (world, bar) = bar_on(joint.clone());
        let largest = push((world, bar), torque, |w| swing_of(w, bar), 31.0);
        assert!(largest > 29.0, "reaches the cone: {largest}");
    }
    // The ball joint's cone, the same.
    let ball = JointBuilder::ball(Point::origin(), Point::new(-0.5, 0.0, 0.0))
        .cone_limit(Vector::x(), 30f32.to_radians());
    let (world, bar) = bar_on(ball);
    let largest = push((world, bar), Vector::z() * 20.0, |w| swing_of(w, bar), 31.0);
    assert!(largest > 29.0, "reaches the cone: {largest}");
}

#[test]
fn an_elliptical_cone_holds_each_axis_at_its_own_angle() {
    let joint = swing_twist().swing_limits(30f32.to_radians(), 60f32.to_radians());
    // About the plane axis (y): 30 degrees; about the normal (z): 60.
    for (torque, limit) in [
        (Vector::y(), 30.0),
        (Vector::z(), 60.0),
        (-Vector::z(), 60.0),
    ] {
        let (world, bar) = bar_on(joint.clone());
        let largest = push(
            (world, bar),
            torque * 20.0,
            |w| swing_of(w, bar),
            limit + 1.0,
        );
        assert!(largest > limit - 1.0, "{limit}: reaches {largest}");
    }
}

#[test]
fn twist_stays_within_its_limits_both_ways() {
    let joint = swing_twist()
        .swing_limits(30f32.to_radians(), 30f32.to_radians())
        .twist_limits(-20f32.to_radians(), 40f32.to_radians());
    // The twist: the bar's turn about its own axis, signed about x.
    let twist = |world: &World, bar| -> Real {
        let q: Rotation<Real> = world.body(bar).unwrap().pose().rotation;
        let v = q.scaled_axis();
        v.dot(&Vector::x()).to_degrees()
    };
    let (world, bar) = bar_on(joint.clone());
    let largest = push((world, bar), Vector::x() * 5.0, |w| twist(w, bar), 41.0);
    assert!(largest > 39.0, "reaches the upper limit: {largest}");
    let (world, bar) = bar_on(joint);
    let largest = push((world, bar), -Vector::x() * 5.0, |w| -twist(w, bar), 21.0);
    assert!(largest > 19.0, "reaches the lower limit: {largest}");
}

/// A 1 kg ball of radius 0.05 m on a 1 m link of 1 g, under a 30 degree cone about the
/// vertical, launched along the cone at 1.5 times the free conical pendulum's speed at 30
/// degrees (`v = sqrt(g L sin^2 / cos)`, 1.683 m/s): it would swing out wider, so it rides
/// pressed against the cone, at 30 degrees within 1 at every step for 10 s.
#[test]
fn a_fast_conical_pendulum_rides_the_cone() {
    let mut world = World::default();
    let pivot = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 2.0, 0.0)))
        .unwrap();
    let bob = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 1.0, 0.0)))
        .unwrap();
    let ball_volume = 4.0 / 3.0 * std::f32::consts::PI * 0.05f32.powi(3);
    world
        .add_collider(ColliderBuilder::ball(0.05).density(1.0 / ball_volume), bob)
        .unwrap();
    let radius: Real = 0.005;
    let link_volume = std::f32::consts::PI * radius * radius * (1.0 + 4.0 / 3.0 * radius);
    let link = ColliderBuilder::capsule(0.5, radius)
        .translation(Vector::new(0.0, 0.5, 0.0))
        .density(0.001 / link_volume);
    world.add_collider(link, bob).unwrap();
    let cone = JointBuilder::ball(Point::origin(), Point::new(0.0, 1.0, 0.0))
        .cone_limit(-Vector::y(), 30f32.to_radians());
    world.add_joint(cone, pivot, bob).unwrap();
    // Out to 30 degrees (turned about z), then launched about the vertical.
    let theta = 30f32.to_radians();
    let turn = Rotation::from_axis_angle(&Vector::z_axis(), theta);
    let at = Vector::new(0.0, 2.0, 0.0) + turn * Vector::new(0.0, -1.0, 0.0);
    let body = world.body(bob).unwrap();
    let pose = sprung::math::Isometry::from_parts(at.into(), turn * body.pose().rotation);
    world.set_pose(bob, pose).unwrap();
    let free = (9.81 * theta.sin().powi(2) / theta.cos()).sqrt();
    let v = Vector::z() * 1.5 * free;
    world.set_linear_velocity(bob, v).unwrap();
    world
        .set_angular_velocity(bob, -Vector::y() * (1.5 * free / theta.sin()))
        .unwrap();
    for step in 0..600 {
        world.step(DT).unwrap();
        let down = world.body(bob).unwrap().pose().translation.vector - Vector::new(0.0, 2.0, 0.0);
        let angle = down.angle(&-Vector::y()).to_degrees();
        assert!((angle - 30.0).abs() <= 1.0, "step {step}: at {angle} deg");
    }
}

/// Axes that are infinite, NaN, zero or parallel are refused at once, changing nothing (an
/// infinite axis once hung the builder: the fuzzer's world_edits found it).
#[test]
fn bad_swing_twist_axes_are_refused() {
    let (mut world, bar) = bar_on(swing_twist());
    let ground = world.bodies().next().unwrap().0;
    let joints = world.joints().count();
    let inf = Real::INFINITY;
    for (twist, plane) in [
        (Vector::new(inf, 0.0, 0.0), Vector::y()),
        (Vector::x(), Vector::new(0.0, Real::NAN, 0.0)),
        (Vector::zeros(), Vector::y()),
        (Vector::x(), Vector::x() * 2.0),
    ] {
        let joint = JointBuilder::swing_twist(Point::origin(), Point::origin(), twist, plane);
        assert!(world.add_joint(joint, ground, bar).is_err());
    }
    assert_eq!(world.joints().count(), joints);
}

//! Joints as entities: a pendulum on a ball joint swings at the closed-form period, and
//! despawning the joint entity lets the bob fall.

mod common;

use bevy::prelude::*;
use bevy_sprung::prelude::*;
use bevy_sprung::sprung::math::Point;

/// A bob of radius `r` on a massless link of length `length` below a fixed pivot 3 m up,
/// pulled 5 degrees aside: a physical pendulum of period 2 pi sqrt(I / (m g L)), I = m (L^2 +
/// 2/5 r^2) about the pivot. Sampled every step: the bob's zero crossings are half periods.
#[test]
fn a_pendulum_on_a_joint_entity_swings_at_its_period_and_falls_when_it_is_despawned() {
    let mut app = common::headless(120.0, false);
    let (length, r) = (1.0f32, 0.05f32);
    let angle = 5f32.to_radians();
    let pivot = app
        .world_mut()
        .spawn((RigidBody::Fixed, Transform::from_xyz(0.0, 3.0, 0.0)))
        .id();
    let bob = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::ball(r),
            Transform::from_xyz(length * angle.sin(), 3.0 - length * angle.cos(), 0.0),
        ))
        .id();
    let offset = Point::new(-length * angle.sin(), length * angle.cos(), 0.0);
    let joint = app
        .world_mut()
        .spawn(Joint {
            bodies: (pivot, bob),
            builder: JointBuilder::ball(Point::origin(), offset),
        })
        .id();
    let g = 9.81f64;
    let (l, r) = (length as f64, r as f64);
    let period = 2.0 * std::f64::consts::PI * ((l * l + 0.4 * r * r) / (g * l)).sqrt();
    let dt = 1.0 / 120.0;
    let mut crossings = Vec::new();
    let mut last_x = f32::NAN;
    app.update();
    for step in 1..=(5.0 * period / dt) as u32 {
        app.update();
        let t = app.world().get::<Transform>(bob).unwrap().translation;
        // Held to the link at every step.
        let apart = (t - Vec3::new(0.0, 3.0, 0.0)).length() - length;
        assert!(
            apart.abs() < 2e-3,
            "step {step}: the link stretched by {apart} m"
        );
        if last_x > 0.0 && t.x <= 0.0 || last_x < 0.0 && t.x >= 0.0 {
            // Linear interpolation of the crossing's time within the step.
            let f = last_x as f64 / (last_x as f64 - t.x as f64);
            crossings.push((step as f64 - 1.0 + f) * dt);
        }
        last_x = t.x;
    }
    assert!(crossings.len() >= 8, "{crossings:?}");
    let measured =
        2.0 * (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    assert!(
        (measured - period).abs() / period < 0.01,
        "period {measured} s against {period} s"
    );
    let world = app.world().resource::<DefaultPhysicsWorld>().0;
    let physics = app.world().get::<PhysicsWorld>(world).unwrap();
    assert!(physics.joint(joint).is_some());
    assert_eq!(physics.world().joints().count(), 1);

    app.world_mut().despawn(joint);
    app.update();
    let y0 = app.world().get::<Transform>(bob).unwrap().translation.y;
    for _ in 0..30 {
        app.update();
    }
    let physics = app.world().get::<PhysicsWorld>(world).unwrap();
    assert_eq!(physics.world().joints().count(), 0);
    let y = app.world().get::<Transform>(bob).unwrap().translation.y;
    // A quarter second of free fall from about rest: at least g t^2 / 2 less a swing's worth.
    assert!(y0 - y > 0.25, "fell {} m", y0 - y);
}

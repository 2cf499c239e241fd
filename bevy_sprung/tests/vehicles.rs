//! Vehicles as a player drives them: a car driven through `VehicleControls` (throttle, steering,
//! brake, scripted step by step) is the bare engine's car driven the same way, bit for bit at
//! every step, wheels included; taking a vehicle off or despawning its chassis leaves nothing
//! behind; controls and vehicles sprung refuses are told, not applied.

mod common;

use bevy::prelude::*;
use bevy_sprung::convert;
use bevy_sprung::prelude::*;
use bevy_sprung::sprung::{self, ColliderBuilder};
use bevy_sprung::{Refused, VehicleLink};

const START: Vec3 = Vec3::new(0.0, 1.0, 0.0);

fn chassis() -> ColliderBuilder {
    ColliderBuilder::cuboid(2.0, 0.3, 0.9).density(200.0)
}

fn spawn_car(app: &mut App, at: Vec3) -> Entity {
    app.world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider(chassis()),
            Transform::from_translation(at),
            Vehicle::car(),
        ))
        .id()
}

/// The player's hands at fixed step `step` (60 Hz): full throttle for two seconds, steering
/// left in the second of them, then coasting, then braking hard.
fn controls(step: u32) -> VehicleInput {
    VehicleInput {
        throttle: if step < 120 { 1.0 } else { 0.0 },
        steering: if (60..120).contains(&step) { 0.5 } else { 0.0 },
        brake: if step >= 180 { 1.0 } else { 0.0 },
        handbrake: 0.0,
    }
}

fn bits(v: Vec3) -> [u32; 3] {
    v.to_array().map(f32::to_bits)
}

fn quat_bits(q: Quat) -> [u32; 4] {
    q.to_array().map(f32::to_bits)
}

#[test]
fn a_driven_car_is_the_bare_engines_car_bit_for_bit_at_every_step() {
    let mut app = common::headless(60.0, true);
    let car = spawn_car(&mut app, START);
    let dt = common::fixed_dt(&app);
    // The same scene in the same order: the ground, the chassis and its collider, the car.
    let (mut bare, body) = common::bare_beside(START, chassis());
    let vehicle = bare
        .add_vehicle(sprung::vehicle::VehicleBuilder::car(body))
        .unwrap();
    app.update(); // Bevy's first update runs no fixed step.
    let mut heading_turned = false;
    for step in 0..300 {
        let input = controls(step);
        app.world_mut().get_mut::<VehicleControls>(car).unwrap().0 = input;
        bare.set_vehicle_input(vehicle, input).unwrap();
        app.update();
        bare.step(dt).unwrap();

        let transform = *app.world().get::<Transform>(car).unwrap();
        let pose = bare.body(body).unwrap().pose();
        let at = convert::vec3(&pose.translation.vector);
        assert_eq!(bits(transform.translation), bits(at), "step {step}");
        let rotation = convert::quat(&pose.rotation);
        assert_eq!(
            quat_bits(transform.rotation),
            quat_bits(rotation),
            "step {step}"
        );
        let link = app.world().get::<VehicleLink>(car).unwrap();
        let driven = bare.vehicle(vehicle).unwrap();
        assert_eq!(link.wheels.len(), 4);
        for (index, &wheel) in link.wheels.iter().enumerate() {
            let drawn = app.world().get::<Transform>(wheel).unwrap();
            let pose = driven.wheel_pose(index).unwrap();
            let what = format!("step {step}, wheel {index}");
            let translation = convert::vec3(&pose.translation.vector);
            assert_eq!(bits(drawn.translation), bits(translation), "{what}");
            let rotation = convert::quat(&pose.rotation);
            assert_eq!(quat_bits(drawn.rotation), quat_bits(rotation), "{what}");
            let of = app.world().get::<ChildOf>(wheel).unwrap().parent();
            assert_eq!(of, car, "{what}: a child of the chassis");
        }
        // What the player sees: forward (+x) under throttle, turning left (towards -z for a
        // car facing +x with up +y) while steering left, stopped by the brake.
        let forward = transform.rotation * Vec3::X;
        if step == 59 {
            assert!(at.x > 0.5 && forward.z.abs() < 0.01, "step 59: at {at}");
        }
        if step == 119 {
            heading_turned = forward.z < -0.2;
        }
        if step == 299 {
            let v = app.world().get::<Velocity>(car).unwrap().linear;
            assert!(v.length() < 0.05, "braked for 2 s: still {v} m/s");
        }
    }
    assert!(heading_turned, "steering left turned it left");
}

#[test]
fn taking_a_vehicle_off_or_despawning_its_chassis_leaves_nothing_behind() {
    let mut app = common::headless(60.0, true);
    let kept = spawn_car(&mut app, START);
    let gone = spawn_car(&mut app, START + Vec3::new(0.0, 0.0, 5.0));
    for _ in 0..3 {
        app.update();
    }
    fn world_of(app: &App) -> &sprung::World {
        let world = app.world().resource::<DefaultPhysicsWorld>().0;
        app.world().get::<PhysicsWorld>(world).unwrap().world()
    }
    assert_eq!(world_of(&app).vehicles().count(), 2);
    let kept_wheels = app.world().get::<VehicleLink>(kept).unwrap().wheels.clone();
    let gone_wheels = app.world().get::<VehicleLink>(gone).unwrap().wheels.clone();

    // The vehicle off: its wheels go, its chassis stays a body (it falls on its floor).
    app.world_mut().entity_mut(kept).remove::<Vehicle>();
    app.update();
    assert_eq!(world_of(&app).vehicles().count(), 1);
    assert!(kept_wheels
        .iter()
        .all(|&w| app.world().get_entity(w).is_err()));
    assert!(app.world().get::<VehicleLink>(kept).is_none());
    assert_eq!(world_of(&app).bodies().count(), 3);

    // The chassis despawned: its body, its vehicle and its wheels go.
    app.world_mut().entity_mut(gone).despawn();
    app.update();
    assert_eq!(world_of(&app).vehicles().count(), 0);
    assert!(gone_wheels
        .iter()
        .all(|&w| app.world().get_entity(w).is_err()));
    assert_eq!(world_of(&app).bodies().count(), 2);
    assert!(app
        .world_mut()
        .query::<&VehicleWheel>()
        .iter(app.world())
        .next()
        .is_none());
}

#[test]
fn controls_and_vehicles_sprung_refuses_are_told_not_applied() {
    let mut app = common::headless(60.0, true);
    let car = spawn_car(&mut app, START);
    let good = VehicleInput {
        throttle: 0.5,
        ..Default::default()
    };
    app.world_mut().get_mut::<VehicleControls>(car).unwrap().0 = good;
    app.update();
    app.update();
    // Throttle out of [-1, 1]: refused, the last good controls kept.
    app.world_mut()
        .get_mut::<VehicleControls>(car)
        .unwrap()
        .0
        .throttle = 2.0;
    app.update();
    let link = app.world().get::<VehicleLink>(car).unwrap().clone();
    let world = app.world().get::<PhysicsWorld>(link.world).unwrap();
    assert_eq!(world.world().vehicle(link.handle).unwrap().input(), good);

    // Wheels under a fixed body: refused with the engine's reason, nothing added.
    let fixed = app
        .world_mut()
        .spawn((
            RigidBody::Fixed,
            Collider(chassis()),
            Transform::from_xyz(0.0, 1.0, 10.0),
            Vehicle::car(),
        ))
        .id();
    app.update();
    let refused = app.world().get::<Refused>(fixed).unwrap();
    assert_eq!(refused.0, sprung::Error::WrongBodyKind);
    let world = app.world().get::<PhysicsWorld>(link.world).unwrap();
    assert_eq!(world.world().vehicles().count(), 1);
}

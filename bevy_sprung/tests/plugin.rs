//! The plugin as a headless app drives it (MinimalPlugins, time advanced by hand): the same
//! bits as the bare engine, the same state whatever the frame rate, transforms drawn at the
//! closed-form position of the frame's time between fixed steps.

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_sprung::convert;
use bevy_sprung::prelude::*;
use bevy_sprung::sprung::{self, ColliderBuilder, RigidBodyBuilder};
use std::time::Duration;

/// Fixed steps run so far.
#[derive(Resource, Default)]
struct Steps(u32);

fn app(interpolate: bool, hz: f64) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        SprungPlugin::default().interpolate(interpolate),
    ))
    .insert_resource(Time::<Fixed>::from_hz(hz))
    .init_resource::<Steps>()
    .add_systems(
        FixedPostUpdate,
        (|mut steps: ResMut<Steps>| steps.0 += 1).after(SprungSystems::Step),
    );
    app
}

/// A ground, a stack of boxes and a few balls thrown at it: as components, and as the bare
/// engine's builders in the same order.
fn scene() -> Vec<(RigidBody, Transform, Velocity, ColliderBuilder)> {
    let mut scene = vec![(
        RigidBody::Fixed,
        Transform::IDENTITY,
        Velocity::default(),
        ColliderBuilder::halfspace(sprung::math::Vector::y()),
    )];
    for level in 0..4 {
        for k in 0..3 {
            scene.push((
                RigidBody::Dynamic,
                Transform::from_xyz(k as f32 * 1.1 - 1.1, 0.5 + level as f32 * 1.01, 0.0)
                    .with_rotation(Quat::from_rotation_y(0.05 * (level * 3 + k) as f32)),
                Velocity::default(),
                ColliderBuilder::cuboid(0.5, 0.5, 0.5),
            ));
        }
    }
    for k in 0..3 {
        scene.push((
            RigidBody::Dynamic,
            Transform::from_xyz(-6.0, 1.0 + k as f32, 0.3 * k as f32),
            Velocity {
                linear: Vec3::new(9.0, 2.0, 0.0),
                angular: Vec3::new(0.0, 0.0, -3.0),
            },
            ColliderBuilder::ball(0.3),
        ));
    }
    scene
}

fn spawn(app: &mut App) -> Vec<Entity> {
    scene()
        .into_iter()
        .map(|(kind, transform, velocity, collider)| {
            app.world_mut()
                .spawn((kind, transform, velocity, Collider(collider)))
                .id()
        })
        .collect()
}

fn bits(v: Vec3) -> [u32; 3] {
    v.to_array().map(f32::to_bits)
}

/// With interpolation off, after every fixed step each entity's transform is the bare
/// engine's pose bit for bit (the same scene added in the same order, stepped by the same
/// time step).
#[test]
fn transforms_are_the_bare_engines_poses_bit_for_bit() {
    let mut app = app(false, 60.0);
    app.insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    let entities = spawn(&mut app);
    let dt = app
        .world()
        .resource::<Time<Fixed>>()
        .timestep()
        .as_secs_f32();
    let mut bare = sprung::World::default();
    let handles: Vec<_> = scene()
        .into_iter()
        .map(|(kind, transform, velocity, collider)| {
            let builder = match kind {
                RigidBody::Dynamic => RigidBodyBuilder::dynamic(),
                RigidBody::Kinematic => RigidBodyBuilder::kinematic(),
                RigidBody::Fixed => RigidBodyBuilder::fixed(),
            }
            .pose(convert::pose(&transform))
            .linear_velocity(convert::vector(velocity.linear))
            .angular_velocity(convert::vector(velocity.angular));
            let body = bare.add_body(builder).unwrap();
            bare.add_collider(collider, body).unwrap();
            body
        })
        .collect();
    let mut stepped = 0;
    for _ in 0..240 {
        app.update();
        let steps = app.world().resource::<Steps>().0;
        while stepped < steps {
            bare.step(dt).unwrap();
            stepped += 1;
        }
        // (Before the first step the transforms are as spawned: the engine keeps their
        // rotations normalised again, an ulp off some.)
        if steps == 0 {
            continue;
        }
        for (k, (&entity, &handle)) in entities.iter().zip(&handles).enumerate() {
            let transform = app.world().get::<Transform>(entity).unwrap();
            let pose = bare.body(handle).unwrap().pose();
            assert_eq!(
                bits(transform.translation),
                bits(convert::vec3(&pose.translation.vector)),
                "step {steps}, body {k}"
            );
            assert_eq!(
                transform.rotation.to_array().map(f32::to_bits),
                convert::quat(&pose.rotation).to_array().map(f32::to_bits),
                "step {steps}, body {k}"
            );
            let velocity = app.world().get::<Velocity>(entity).unwrap();
            let body = bare.body(handle).unwrap();
            assert_eq!(
                bits(velocity.linear),
                bits(convert::vec3(&body.linear_velocity()))
            );
        }
    }
    assert!(stepped >= 239, "{stepped} fixed steps in 240 frames");
    let world = app.world().resource::<DefaultPhysicsWorld>().0;
    let world = app.world().get::<PhysicsWorld>(world).unwrap();
    assert_eq!(world.world().state_hash(), bare.state_hash());
    // The stack stands and the balls flew: the scene did something.
    let top = app.world().get::<Transform>(entities[12]).unwrap();
    assert!(
        (top.translation.y - 3.53).abs() < 0.05,
        "{}",
        top.translation
    );
}

/// Frame durations (ns) of `count` frames summing to exactly `total` ns.
fn frames(count: u64, total: u64) -> impl Iterator<Item = Duration> {
    (0..count).map(move |i| Duration::from_nanos((i + 1) * total / count - i * total / count))
}

/// Runs `app` through `durations`, one frame each, after a first frame of none (Bevy's first
/// frame has no duration whatever it is given).
fn run(app: &mut App, durations: impl Iterator<Item = Duration>) {
    for d in std::iter::once(Duration::ZERO).chain(durations) {
        app.insert_resource(TimeUpdateStrategy::ManualDuration(d));
        app.update();
    }
}

/// At 60 Hz, 3 s of frames at 30 Hz and at 144 Hz run the same fixed steps and end in the same
/// state.
#[test]
fn the_frame_rate_changes_nothing() {
    let mut ends = Vec::new();
    for fps in [30, 144] {
        let mut app = app(true, 60.0);
        spawn(&mut app);
        run(&mut app, frames(3 * fps, 3_000_000_000));
        let steps = app.world().resource::<Steps>().0;
        let world = app.world().resource::<DefaultPhysicsWorld>().0;
        let hash = app
            .world()
            .get::<PhysicsWorld>(world)
            .unwrap()
            .world()
            .state_hash();
        ends.push((steps, hash));
    }
    assert_eq!(ends[0], ends[1]);
    // 3 s of steps of 1/60 s (rounded up to the nanosecond, 16,666,667 ns: 179 fit).
    assert_eq!(ends[0].0, 179, "{ends:?}");
}

/// Interpolation on, no gravity: a body moving at constant velocity is drawn at the
/// closed-form position of the frame's interpolated time (one fixed step behind the
/// simulation, at the frame's fraction of the next), within 1e-4 m, further along every frame.
#[test]
fn interpolated_transforms_follow_the_closed_form() {
    let mut app = app(true, 60.0);
    app.insert_resource(Gravity(Vec3::ZERO));
    let (x0, v) = (-2.0, 1.5);
    let body = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::ball(0.25),
            Transform::from_xyz(x0, 1.0, 0.0),
            Velocity {
                linear: Vec3::new(v, 0.0, 0.0),
                angular: Vec3::ZERO,
            },
        ))
        .id();
    let mut last = f32::NEG_INFINITY;
    let mut checked = 0;
    for d in frames(432, 3_000_000_000) {
        app.insert_resource(TimeUpdateStrategy::ManualDuration(d));
        app.update();
        let fixed = app.world().resource::<Time<Fixed>>();
        let steps = app.world().resource::<Steps>().0;
        if steps == 0 {
            continue;
        }
        let dt = fixed.timestep().as_secs_f64();
        let time = (steps - 1) as f64 * dt + fixed.overstep().as_secs_f64();
        let at = app.world().get::<Transform>(body).unwrap().translation;
        assert_eq!(at.y, 1.0, "no gravity: the body keeps its height");
        let x = at.x;
        let expected = x0 as f64 + v as f64 * time;
        assert!(
            (x as f64 - expected).abs() < 1e-4,
            "step {steps}: drawn at {x}, the closed form says {expected}"
        );
        assert!(x > last, "step {steps}: {x} after {last}");
        last = x;
        checked += 1;
    }
    assert!(checked > 400, "{checked} frames checked");
}

/// Interpolation on, frames shorter than a fixed step: a transform its user sets between
/// fixed steps is not drawn over, and the next step takes the body there (a teleport).
#[test]
fn a_teleport_between_fixed_steps_is_kept_for_the_next_step() {
    let mut app = app(true, 60.0);
    app.insert_resource(Gravity(Vec3::ZERO));
    let body = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::ball(0.25),
            Transform::from_xyz(0.0, 1.0, 0.0),
        ))
        .id();
    run(&mut app, frames(30, 500_000_000));
    // One more short frame, so that the next step is a whole step of frames away.
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(1)));
    app.update();
    let steps = app.world().resource::<Steps>().0;
    assert!(app.world().resource::<Time<Fixed>>().overstep() < Duration::from_millis(2));
    app.world_mut()
        .get_mut::<Transform>(body)
        .unwrap()
        .translation = Vec3::new(5.0, 2.0, 0.0);
    // Frames of 1 ms: the first few run no step; the transform stays where it was put.
    let mut stepped = false;
    for _ in 0..40 {
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(1)));
        app.update();
        let now = app.world().resource::<Steps>().0;
        let t = app.world().get::<Transform>(body).unwrap().translation;
        if now == steps {
            assert_eq!(t, Vec3::new(5.0, 2.0, 0.0), "drawn over before the step");
        } else {
            stepped = true;
        }
    }
    assert!(stepped);
    let world = app.world().resource::<DefaultPhysicsWorld>().0;
    let physics = app.world().get::<PhysicsWorld>(world).unwrap();
    let handle = physics.body(body).unwrap();
    let at = physics.world().body(handle).unwrap().translation();
    assert_eq!((at.x, at.y), (5.0, 2.0), "the engine took the teleport");
}

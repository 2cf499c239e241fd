//! More than one world, bodies spawned and despawned, write-back that leaves other entities
//! alone, queries and messages: as a headless app drives them.

mod common;

use bevy::prelude::*;
use bevy_sprung::convert;
use bevy_sprung::prelude::*;
use bevy_sprung::sprung::{self, ColliderBuilder, Event, RigidBodyBuilder};

fn app() -> App {
    common::headless(60.0, false)
}

fn default_world(app: &App) -> &PhysicsWorld {
    let entity = app.world().resource::<DefaultPhysicsWorld>().0;
    app.world().get::<PhysicsWorld>(entity).unwrap()
}

fn dt(app: &App) -> f32 {
    common::fixed_dt(app)
}

/// A ground and `n` balls falling on it at `x`, as builders.
fn balls(n: usize, x: f32) -> Vec<(RigidBodyBuilder, ColliderBuilder)> {
    let mut scene = vec![(
        RigidBodyBuilder::fixed(),
        ColliderBuilder::halfspace(sprung::math::Vector::y()),
    )];
    for k in 0..n {
        let at = sprung::math::Vector::new(x + 0.3 * k as f32, 1.0 + 1.1 * k as f32, 0.0);
        scene.push((
            RigidBodyBuilder::dynamic().translation(at),
            ColliderBuilder::ball(0.5),
        ));
    }
    scene
}

/// Spawns `scene` as entities (in `world`, or the default one).
fn spawn(app: &mut App, scene: &[(RigidBodyBuilder, ColliderBuilder)], world: Option<Entity>) {
    for (body, collider) in scene {
        let built = {
            let mut w = sprung::World::default();
            let h = w.add_body(body.clone()).unwrap();
            (w.body(h).unwrap().kind(), *w.body(h).unwrap().pose())
        };
        let kind = match built.0 {
            sprung::BodyKind::Dynamic => RigidBody::Dynamic,
            sprung::BodyKind::Kinematic => RigidBody::Kinematic,
            _ => RigidBody::Fixed,
        };
        let mut transform = Transform::default();
        convert::set_pose(&mut transform, &built.1);
        let mut e = app
            .world_mut()
            .spawn((kind, transform, Collider(collider.clone())));
        if let Some(world) = world {
            e.insert(InWorld(world));
        }
    }
}

fn bare(scene: &[(RigidBodyBuilder, ColliderBuilder)]) -> sprung::World {
    let mut world = sprung::World::default();
    for (body, collider) in scene {
        let h = world.add_body(body.clone()).unwrap();
        world.add_collider(collider.clone(), h).unwrap();
    }
    world
}

/// Two worlds in one app, each with its own scene: each one's state hash is that of the same
/// world stepped alone, at every step.
#[test]
fn two_worlds_step_as_each_would_alone() {
    let mut app = app();
    let second = app.world_mut().spawn(PhysicsWorld::default()).id();
    let (a, b) = (balls(3, 0.0), balls(5, 0.1));
    spawn(&mut app, &a, None);
    spawn(&mut app, &b, Some(second));
    let (mut alone_a, mut alone_b) = (bare(&a), bare(&b));
    app.update();
    for step in 0..180 {
        app.update();
        alone_a.step(dt(&app)).unwrap();
        alone_b.step(dt(&app)).unwrap();
        let second = app.world().get::<PhysicsWorld>(second).unwrap();
        assert_eq!(default_world(&app).len(), 4);
        assert_eq!(second.len(), 6);
        assert_eq!(
            default_world(&app).world().state_hash(),
            alone_a.state_hash(),
            "step {step}"
        );
        assert_eq!(
            second.world().state_hash(),
            alone_b.state_hash(),
            "step {step}"
        );
    }
    // They are different worlds: their hashes differ.
    let second = app.world().get::<PhysicsWorld>(second).unwrap();
    assert_ne!(
        default_world(&app).world().state_hash(),
        second.world().state_hash()
    );
}

/// Spawning 1,000 bodies and despawning them, ten times over, leaves no body, collider or
/// joint in the engine.
#[test]
fn despawned_bodies_leave_nothing_behind() {
    let mut app = app();
    for round in 0..10 {
        let entities: Vec<Entity> = (0..1000)
            .map(|k| {
                app.world_mut()
                    .spawn((
                        RigidBody::Dynamic,
                        Collider::ball(0.2),
                        Transform::from_xyz((k % 40) as f32, (k / 40) as f32 + 1.0, round as f32),
                    ))
                    .id()
            })
            .collect();
        app.update();
        app.update();
        let world = default_world(&app);
        assert_eq!(world.len(), 1000, "round {round}");
        assert_eq!(world.world().body_count(), 1000);
        for e in entities {
            app.world_mut().despawn(e);
        }
        app.update();
        app.update();
        let world = default_world(&app).world();
        assert_eq!(default_world(&app).len(), 0, "round {round}");
        assert_eq!(world.body_count(), 0, "round {round}");
        assert_eq!(world.joints().count(), 0);
        let colliders: usize = world.bodies().map(|(_, b)| b.colliders().len()).sum();
        assert_eq!(colliders, 0);
    }
}

/// Write-back writes the bodies' entities and leaves 10,000 entities without physics
/// untouched: their transforms are never marked changed.
#[test]
fn write_back_leaves_other_entities_alone() {
    let mut app = app();
    let plain: Vec<Entity> = (0..10_000)
        .map(|k| {
            app.world_mut()
                .spawn(Transform::from_xyz(k as f32, 0.0, 0.0))
                .id()
        })
        .collect();
    let spawned = app.world().read_change_tick();
    let ball = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::ball(0.5),
            Transform::from_xyz(0.0, 5.0, 0.0),
        ))
        .id();
    for _ in 0..30 {
        app.update();
    }
    let now = app.world().read_change_tick();
    let moved = app.world().entity(ball).get_ref::<Transform>().unwrap();
    assert!(moved.last_changed().is_newer_than(spawned, now));
    assert!(moved.translation.y < 4.0);
    for e in plain {
        let t = app.world().entity(e).get_ref::<Transform>().unwrap();
        assert!(!t.last_changed().is_newer_than(spawned, now));
    }
}

/// What the system parameter's ray hits, and the first contact as a message in the frame
/// of the step that made it.
#[derive(Resource, Default)]
struct Seen {
    hit: Option<RayHit>,
    began: Vec<(u32, ContactBegan)>,
    frame: u32,
}

fn look(query: SpatialQuery, mut seen: ResMut<Seen>) {
    seen.hit = query.cast_ray(
        Vec3::new(0.2, 10.0, 0.1),
        Vec3::NEG_Y,
        100.0,
        true,
        &QueryFilter::new(),
    );
}

fn listen(mut began: MessageReader<ContactBegan>, mut seen: ResMut<Seen>) {
    seen.frame += 1;
    let frame = seen.frame;
    seen.began.extend(began.read().map(|m| (frame, *m)));
}

#[test]
fn rays_hit_what_the_engine_hits_and_contacts_arrive_in_their_frame() {
    let mut app = app();
    app.init_resource::<Seen>()
        .add_systems(PostUpdate, (look, listen));
    let scene = balls(1, 0.0);
    spawn(&mut app, &scene, None);
    let mut alone = bare(&scene);
    let mut began_at = None;
    // Frame 1 runs no step (Bevy's first frame has no time); every later frame runs one.
    app.update();
    for frame in 2..=120u32 {
        app.update();
        alone.step(dt(&app)).unwrap();
        if began_at.is_none()
            && alone
                .drain_events()
                .any(|e| matches!(e, Event::ContactBegan { .. }))
        {
            began_at = Some(frame);
        }
        let seen = app.world().resource::<Seen>();
        let engine = default_world(&app)
            .world()
            .cast_ray(
                sprung::math::Point::new(0.2, 10.0, 0.1),
                -sprung::math::Vector::y(),
                100.0,
                true,
                &QueryFilter::new(),
            )
            .unwrap()
            .unwrap();
        let hit = seen.hit.expect("the ray hits the ball or the ground");
        assert_eq!(
            Some(hit.entity),
            default_world(&app).collider_entity(engine.collider)
        );
        assert_eq!(hit.distance.to_bits(), engine.toi.to_bits());
        assert_eq!(hit.normal, convert::vec3(&engine.normal));
    }
    let seen = app.world().resource::<Seen>();
    let began_at = began_at.expect("the ball lands");
    assert_eq!(seen.began.len(), 1, "{:?}", seen.began);
    assert_eq!(seen.began[0].0, began_at, "the frame of the step");
    let world = default_world(&app);
    let (a, b) = seen.began[0].1.entities;
    let ball_body = world.body(a).or(world.body(b)).unwrap();
    assert!(world.world().body(ball_body).is_some());
    // The ray now hits the ball resting on the ground (centre 0.5 m up), 0.2 and 0.1 m off
    // its centre line: at 0.5 + sqrt(0.25 - 0.05) m.
    let expected = 0.5 + (0.25f32 - 0.05).sqrt();
    let y = seen.hit.unwrap().point.y;
    assert!((y - expected).abs() < 0.01, "{y} against {expected}");
}

/// Settings changed through the resource reach the default world before the next step: the
/// app steps as the bare world with those settings (three substeps, sleeping off) does, hash
/// for hash; settings sprung refuses are not applied, the last good ones kept.
#[test]
fn settings_set_as_a_resource_are_the_worlds() {
    let mut app = app();
    let scene = balls(3, 0.0);
    spawn(&mut app, &scene, None);
    let mut alone = bare(&scene);
    let chosen = {
        let mut settings = PhysicsSettings::default();
        settings.solver.substeps = 3;
        settings.sleep.enabled = false;
        settings
    };
    app.insert_resource(chosen);
    alone.set_settings(chosen.solver).unwrap();
    alone.set_sleep_settings(chosen.sleep).unwrap();
    app.update();
    for step in 0..120 {
        app.update();
        alone.step(dt(&app)).unwrap();
        let world = default_world(&app).world();
        assert_eq!(world.state_hash(), alone.state_hash(), "step {step}");
        assert_eq!(*world.settings(), chosen.solver);
        assert!(world.bodies().all(|(_, b)| !b.is_sleeping()), "step {step}");
    }
    // A NaN softness: refused, the three substeps kept.
    app.world_mut()
        .resource_mut::<PhysicsSettings>()
        .solver
        .joint_damping_ratio = f32::NAN;
    app.update();
    assert_eq!(*default_world(&app).world().settings(), chosen.solver);
}

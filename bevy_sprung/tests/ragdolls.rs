//! A ragdoll as an entity: its fifteen parts spawned as entities that follow the bare
//! engine's ragdoll bit for bit at every step, asleep within 5 s, all gone when it is
//! despawned.

mod common;

use bevy::prelude::*;
use bevy_sprung::convert;
use bevy_sprung::prelude::*;
use bevy_sprung::sprung::{self, ColliderBuilder, RigidBodyBuilder};
use bevy_sprung::RagdollLink;

#[test]
fn a_ragdoll_entity_falls_as_the_engines_ragdoll_and_leaves_nothing_when_despawned() {
    let mut app = common::headless(60.0, true);
    let at = Transform::from_xyz(0.0, 2.16, 0.0)
        .with_rotation(Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2));
    let ragdoll = app
        .world_mut()
        .spawn((Ragdoll(RagdollBuilder::humanoid()), at))
        .id();

    let mut bare = sprung::World::default();
    let ground = bare.add_body(RigidBodyBuilder::fixed()).unwrap();
    bare.add_collider(
        ColliderBuilder::halfspace(sprung::math::Vector::y()),
        ground,
    )
    .unwrap();
    let handle = bare
        .add_ragdoll(&RagdollBuilder::humanoid(), convert::pose(&at))
        .unwrap();
    let dt = app
        .world()
        .resource::<Time<Fixed>>()
        .timestep()
        .as_secs_f32();

    app.update();
    let mut asleep = None;
    for step in 1..=300 {
        app.update();
        bare.step(dt).unwrap();
        let link = app.world().get::<RagdollLink>(ragdoll).unwrap().clone();
        assert_eq!(link.parts.len(), 15);
        let bodies = bare.ragdoll(handle).unwrap().bodies().to_vec();
        for (k, (&part, &body)) in link.parts.iter().zip(&bodies).enumerate() {
            let t = app.world().get::<Transform>(part).unwrap();
            let pose = bare.body(body).unwrap().pose();
            assert_eq!(
                t.translation.to_array().map(f32::to_bits),
                convert::vec3(&pose.translation.vector)
                    .to_array()
                    .map(f32::to_bits),
                "step {step}, part {k}"
            );
            assert_eq!(
                t.rotation.to_array().map(f32::to_bits),
                convert::quat(&pose.rotation).to_array().map(f32::to_bits),
                "step {step}, part {k}"
            );
            let name = &app.world().get::<RagdollPart>(part).unwrap().name;
            assert_eq!(name, &RagdollBuilder::humanoid().parts[k].name);
        }
        if asleep.is_none() && bodies.iter().all(|&b| bare.body(b).unwrap().is_sleeping()) {
            asleep = Some(step);
        }
    }
    assert!(asleep.is_some_and(|s| s <= 300), "asleep within 5 s");

    let parts = app
        .world()
        .get::<RagdollLink>(ragdoll)
        .unwrap()
        .parts
        .clone();
    app.world_mut().despawn(ragdoll);
    app.update();
    let world = app.world().resource::<DefaultPhysicsWorld>().0;
    let physics = app.world().get::<PhysicsWorld>(world).unwrap();
    assert_eq!(physics.world().body_count(), 1, "only the ground");
    assert_eq!(physics.world().joints().count(), 0);
    assert_eq!(physics.len(), 1);
    for part in parts {
        assert!(
            app.world().get_entity(part).is_err(),
            "part {part} despawned"
        );
    }
}

/// A part entity despawned on its own (the engine then dissolves the ragdoll, its other
/// bodies staying), then the ragdoll entity: nothing of it is left in the engine.
#[test]
fn despawning_a_part_then_the_ragdoll_leaves_nothing() {
    let mut app = common::headless(64.0, true);
    let ragdoll = app
        .world_mut()
        .spawn((
            Ragdoll(RagdollBuilder::humanoid()),
            Transform::from_xyz(0.0, 1.0, 0.0),
        ))
        .id();
    for _ in 0..10 {
        app.update();
    }
    let parts = app
        .world()
        .get::<RagdollLink>(ragdoll)
        .unwrap()
        .parts
        .clone();
    app.world_mut().despawn(parts[4]);
    app.update();
    app.update();
    let world = app.world().resource::<DefaultPhysicsWorld>().0;
    let physics = app.world().get::<PhysicsWorld>(world).unwrap();
    assert_eq!(
        physics.world().body_count(),
        15,
        "the ground and fourteen parts"
    );
    app.world_mut().despawn(ragdoll);
    app.update();
    app.update();
    let physics = app.world().get::<PhysicsWorld>(world).unwrap();
    assert_eq!(physics.world().body_count(), 1, "only the ground");
    assert_eq!(physics.world().joints().count(), 0);
    assert_eq!(physics.len(), 1);
}

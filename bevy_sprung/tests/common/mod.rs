//! The headless app the tests drive: MinimalPlugins and the plugin, interpolation off, one
//! fixed step of `hz` per `App::update` (Bevy's first update runs none), and optionally a
//! ground (a fixed half-space at y = 0).

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_sprung::prelude::*;

pub fn headless(hz: f64, ground: bool) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, SprungPlugin::default().interpolate(false)))
        .insert_resource(Time::<Fixed>::from_hz(hz))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    if ground {
        app.world_mut()
            .spawn((RigidBody::Fixed, Collider::halfspace(Vec3::Y)));
    }
    app
}

/// The fixed time step the app runs (s), as the engine is handed it.
#[allow(dead_code)] // (not every test binary asks)
pub fn fixed_dt(app: &App) -> f32 {
    app.world()
        .resource::<Time<Fixed>>()
        .timestep()
        .as_secs_f32()
}

/// The bare engine's world as `headless(_, true)` starts it, and a dynamic body of `collider`
/// at `at` added after the ground, as the plugin adds an entity spawned next: the same scene in
/// the same order, to step beside the app.
#[allow(dead_code)] // (not every test binary asks)
pub fn bare_beside(
    at: Vec3,
    collider: bevy_sprung::sprung::ColliderBuilder,
) -> (bevy_sprung::sprung::World, bevy_sprung::sprung::BodyHandle) {
    use bevy_sprung::sprung::RigidBodyBuilder;
    let mut bare = bare_ground();
    let pose = bevy_sprung::convert::pose(&Transform::from_translation(at));
    let body = bare
        .add_body(RigidBodyBuilder::dynamic().pose(pose))
        .unwrap();
    bare.add_collider(collider, body).unwrap();
    (bare, body)
}

/// The bare engine's world as `headless(_, true)` starts it: a fixed half-space at y = 0.
pub fn bare_ground() -> bevy_sprung::sprung::World {
    use bevy_sprung::sprung::{ColliderBuilder, RigidBodyBuilder, World};
    let mut bare = World::default();
    let ground = bare.add_body(RigidBodyBuilder::fixed()).unwrap();
    let halfspace = ColliderBuilder::halfspace(bevy_sprung::sprung::math::Vector::y());
    bare.add_collider(halfspace, ground).unwrap();
    bare
}

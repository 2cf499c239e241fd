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

//! What writing the bodies back costs, with and without 10,000 entities that have no physics
//! (they should cost nothing: write-back walks the worlds' bodies, not the app's entities).
//!
//! `cargo bench --manifest-path bevy_sprung/Cargo.toml --bench write_back`
//!
//! Two frames each: one that runs a fixed step (1,000 balls asleep on the ground: the step
//! itself costs little, the write-back of 1,000 bodies is most of it), and one between fixed
//! steps, where only the interpolated transforms are drawn.

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_sprung::prelude::*;
use criterion::{criterion_group, criterion_main, Criterion};
use std::time::Duration;

fn app(others: usize, interpolate: bool) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        SprungPlugin::default().interpolate(interpolate),
    ))
    .insert_resource(Time::<Fixed>::from_hz(60.0))
    .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut()
        .spawn((RigidBody::Fixed, Collider::halfspace(Vec3::Y)));
    for k in 0..1000 {
        let (x, z) = ((k % 32) as f32 * 1.1, (k / 32) as f32 * 1.1);
        app.world_mut().spawn((
            RigidBody::Dynamic,
            Collider::ball(0.5),
            Transform::from_xyz(x, 0.5, z),
        ));
    }
    for k in 0..others {
        app.world_mut()
            .spawn(Transform::from_xyz(k as f32, -10.0, 0.0));
    }
    // Settle and sleep.
    for _ in 0..240 {
        app.update();
    }
    app
}

fn write_back(c: &mut Criterion) {
    for others in [0, 10_000] {
        let mut stepping = app(others, false);
        c.bench_function(
            &format!("frame with a step, 1000 bodies, {others} others"),
            |b| b.iter(|| stepping.update()),
        );
        let mut between = app(others, true);
        between.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_micros(
            100,
        )));
        c.bench_function(
            &format!("frame between steps (interpolation), 1000 bodies, {others} others"),
            |b| b.iter(|| between.update()),
        );
    }
}

criterion_group!(benches, write_back);
criterion_main!(benches);

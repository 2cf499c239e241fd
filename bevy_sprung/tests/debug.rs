//! The debug drawing runs in a headless app beside the plugin (feature `debug-render`).
#![cfg(feature = "debug-render")]

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_sprung::prelude::*;
use bevy_sprung::SprungDebugPlugin;

#[test]
fn the_collider_drawing_runs_over_every_kind_without_a_renderer() {
    let mut app = App::new();
    // What DefaultPlugins would bring the gizmos: assets and meshes.
    app.add_plugins((MinimalPlugins, bevy::asset::AssetPlugin::default()))
        .init_asset::<bevy::mesh::Mesh>()
        .init_asset::<bevy::mesh::skinning::SkinnedMeshInverseBindposes>()
        .add_plugins((
            bevy::gizmos::GizmoPlugin,
            SprungPlugin::default(),
            SprungDebugPlugin,
        ))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut()
        .spawn((RigidBody::Fixed, Collider::halfspace(Vec3::Y)));
    app.world_mut().spawn((
        RigidBody::Dynamic,
        Collider::ball(0.5),
        Transform::from_xyz(0.0, 2.0, 0.0),
    ));
    app.world_mut().spawn((
        RigidBody::Dynamic,
        Collider::cuboid(Vec3::new(0.5, 0.2, 0.3)),
        Transform::from_xyz(2.0, 2.0, 0.0),
    ));
    app.world_mut().spawn((
        RigidBody::Dynamic,
        Collider::capsule(0.4, 0.2),
        Transform::from_xyz(-2.0, 2.0, 0.0),
    ));
    for _ in 0..60 {
        app.update();
    }
    let ball = app
        .world_mut()
        .query_filtered::<&Transform, With<Collider>>()
        .iter(app.world())
        .filter(|t| t.translation.x == 0.0 && t.translation.y > 0.0)
        .count();
    assert_eq!(ball, 1);
}

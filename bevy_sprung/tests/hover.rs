//! A hover racer as a player drives it: the same racer on the bare engine, driven by the same
//! scripted controls, ends every step at the same bits; it rides at its height and takes its
//! joints with it when its `Hover` is removed.

mod common;

use bevy::prelude::*;
use bevy_sprung::convert;
use bevy_sprung::prelude::*;
use bevy_sprung::sprung::ColliderBuilder;
use bevy_sprung::{HoverLink, HoverRacer};

const HALF: Vec3 = Vec3::new(1.5, 0.2, 0.8);
const START: Vec3 = Vec3::new(0.0, 0.7, 0.0);

fn hull() -> ColliderBuilder {
    ColliderBuilder::cuboid(HALF.x, HALF.y, HALF.z).density(200.0)
}

/// Full throttle for a second, then half throttle turning left, then coasting.
fn controls(step: u32) -> HoverInput {
    HoverInput {
        throttle: if step < 120 {
            1.0
        } else if step < 60 * 3 {
            0.5
        } else {
            0.0
        },
        steering: if (60..120).contains(&step) { 0.8 } else { 0.0 },
    }
}

#[test]
fn a_hover_racer_is_the_bare_engines_racer_bit_for_bit_at_every_step() {
    let mut app = common::headless(60.0, true);
    let settings = HoverSettings::for_box(convert::vector(HALF));
    let racer = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider(hull()),
            Transform::from_translation(START),
            Hover(settings.clone()),
        ))
        .id();
    let (mut bare, body) = common::bare_beside(START, hull());
    let mut alone = HoverRacer::new(&mut bare, body, settings).unwrap();
    let dt = common::fixed_dt(&app);
    app.update();
    for step in 0..240 {
        let input = controls(step);
        app.world_mut().get_mut::<HoverControls>(racer).unwrap().0 = input;
        alone.drive(&mut bare, input).unwrap();
        app.update();
        bare.step(dt).unwrap();
        let transform = app.world().get::<Transform>(racer).unwrap();
        let pose = bare.body(body).unwrap().pose();
        let at = convert::vec3(&pose.translation.vector);
        assert_eq!(
            transform.translation.to_array(),
            at.to_array(),
            "step {step}"
        );
        let turned = convert::quat(&pose.rotation).to_array();
        assert_eq!(transform.rotation.to_array(), turned, "step {step}");
        // What the player sees: it rides a few centimetres about its height (0.5 m under the
        // pads, 0.7 m at the centre) once it has settled, and goes forward under throttle.
        if step > 30 {
            assert!((at.y - 0.7).abs() < 0.1, "step {step}: at {at}");
        }
    }
    let v = app.world().get::<Velocity>(racer).unwrap().linear;
    assert!(v.length() > 1.0, "it moves: {v}");

    // Hover removed: its joints leave the world; the body stays.
    let world_entity = app.world().resource::<DefaultPhysicsWorld>().0;
    let joints_before = app
        .world()
        .get::<PhysicsWorld>(world_entity)
        .unwrap()
        .world()
        .joints()
        .count();
    assert!(joints_before >= 4, "{joints_before} joints");
    app.world_mut().entity_mut(racer).remove::<Hover>();
    app.update();
    let world = app.world().get::<PhysicsWorld>(world_entity).unwrap();
    assert_eq!(world.world().joints().count(), 0);
    assert!(app.world().get::<HoverLink>(racer).is_none());
    assert_eq!(world.world().bodies().count(), 2);
}

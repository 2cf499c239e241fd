//! The floating character as a player drives it: spawned from its component, walked by
//! scripted goals, it is the bare engine's floating character walked the same way, bit for
//! bit at every step; it rides at its height (1.2 m for the default settings) and walks at its
//! goal speed; despawned, its body and joints leave the world.

mod common;

use bevy::prelude::*;
use bevy_sprung::prelude::*;
use bevy_sprung::sprung::math::Point;
use bevy_sprung::{convert, FloatingCharacter};

const START: Vec3 = Vec3::new(0.0, 1.2, 0.0);

fn capsule() -> Shape {
    Shape::capsule(0.6, 0.3).unwrap()
}

/// Walk along x at 2 m/s for two seconds, then along z at 1 m/s, then stand.
fn goal(step: u32) -> Vec3 {
    match step {
        0..120 => Vec3::new(2.0, 0.0, 0.0),
        120..200 => Vec3::new(0.0, 0.0, 1.0),
        _ => Vec3::ZERO,
    }
}

#[test]
fn a_floating_character_is_the_bare_engines_bit_for_bit_and_walks_at_its_goal() {
    let mut app = common::headless(60.0, true);
    let settings = FloatingSettings::default();
    let hero = app
        .world_mut()
        .spawn((
            Floating {
                shape: capsule(),
                settings,
                goal: goal(0),
            },
            Transform::from_translation(START),
        ))
        .id();
    let mut bare = common::bare_ground();
    let at = Point::from(convert::vector(START));
    let mut alone = FloatingCharacter::spawn(&mut bare, capsule(), at, settings).unwrap();
    let dt = common::fixed_dt(&app);
    app.update();
    for step in 0..260 {
        app.world_mut().get_mut::<Floating>(hero).unwrap().goal = goal(step);
        alone.walk(&mut bare, convert::vector(goal(step))).unwrap();
        app.update();
        bare.step(dt).unwrap();
        let transform = app.world().get::<Transform>(hero).unwrap();
        let body = bare.body(alone.body()).unwrap();
        let here = convert::vec3(&body.pose().translation.vector);
        assert_eq!(
            transform.translation.to_array(),
            here.to_array(),
            "step {step}"
        );
        let turned = convert::quat(&body.pose().rotation).to_array();
        assert_eq!(transform.rotation.to_array(), turned, "step {step}");
        // What the player sees: at its ride height within a centimetre once settled, at its
        // goal speed within 5 cm/s a second after each change.
        let v = app.world().get::<Velocity>(hero).unwrap().linear;
        if step > 60 {
            assert!((here.y - 1.2).abs() < 0.01, "step {step}: at {here}");
        }
        if (60..120).contains(&step) || (180..200).contains(&step) || step > 250 {
            let off = (v - goal(step)).with_y(0.0).length();
            assert!(off < 0.05, "step {step}: {v} against {}", goal(step));
        }
    }
    // Despawned: its body and joints leave; only the ground stays.
    app.world_mut().entity_mut(hero).despawn();
    app.update();
    let world_entity = app.world().resource::<DefaultPhysicsWorld>().0;
    let world = app.world().get::<PhysicsWorld>(world_entity).unwrap();
    assert_eq!(world.world().bodies().count(), 1);
    assert_eq!(world.world().joints().count(), 0);
}

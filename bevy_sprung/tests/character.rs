//! The character controller as a player drives it: it walks up to its goal speed on flat
//! ground, never leaving the ground's height, and a jump peaks at v^2 / 2g above where it
//! stood (the character's vertical motion is exact under gravity).

mod common;

use bevy::prelude::*;
use bevy_sprung::prelude::*;
use bevy_sprung::sprung::Shape;
use bevy_sprung::{character, Gravity};

#[test]
fn a_character_walks_at_its_goal_speed_and_jumps_to_the_closed_form_height() {
    let mut app = common::headless(60.0, true);
    let (half, radius) = (0.5, 0.3);
    let shape = Shape::capsule(half, radius).unwrap();
    let walker = character(
        shape,
        Vec3::new(0.0, 1.5, 0.0),
        CharacterSettings::default(),
    )
    .unwrap();
    let player = app.world_mut().spawn(CharacterController::new(walker)).id();
    let dt = 1.0 / 60.0;
    // Falls and lands; its centre comes to rest half its height above the ground, plus the
    // skin it keeps.
    for _ in 0..90 {
        app.update();
    }
    let controller = app.world().get::<CharacterController>(player).unwrap();
    assert!(controller.is_grounded());
    let standing = app.world().get::<Transform>(player).unwrap().translation.y;
    let skin = CharacterSettings::default().skin;
    assert!(
        (standing - (half + radius)).abs() <= skin,
        "stands at {standing}, {} plus at most the skin",
        half + radius
    );

    // Walk: 3 m/s along x. After ten halflives (1 s) it moves at 3 m/s within 1%, and at no
    // step does it leave the ground's height.
    app.world_mut()
        .get_mut::<CharacterController>(player)
        .unwrap()
        .goal = Vec3::new(3.0, 0.0, 0.0);
    let mut last = app.world().get::<Transform>(player).unwrap().translation;
    for step in 1..=120 {
        app.update();
        let at = app.world().get::<Transform>(player).unwrap().translation;
        assert!((at.y - standing).abs() < 1e-4, "step {step}: y {}", at.y);
        if step > 60 {
            let speed = (at.x - last.x) / dt;
            assert!((speed - 3.0).abs() < 0.03, "step {step}: {speed} m/s");
        }
        last = at;
    }

    // Jump at 5 m/s: the peak is 5^2 / (2 g) above where it stood, within 1%.
    let g = -app.world().resource::<Gravity>().0.y;
    app.world_mut()
        .get_mut::<CharacterController>(player)
        .unwrap()
        .jump(5.0);
    let mut peak = standing;
    for _ in 0..90 {
        app.update();
        peak = peak.max(app.world().get::<Transform>(player).unwrap().translation.y);
    }
    let expected = 25.0 / (2.0 * g);
    let rise = peak - standing;
    // (Sampled every step: the true peak is at most g dt^2 / 8, 0.3 mm, above the highest
    // sample.)
    assert!(
        (rise - expected).abs() < 0.01 * expected,
        "rose {rise} m against {expected}"
    );
    assert!(app
        .world()
        .get::<CharacterController>(player)
        .unwrap()
        .is_grounded());
}

//! Bad input to a character is refused with a typed error and changes nothing: settings out of
//! range, shapes that are not convex, non-finite positions, goal velocities, jump speeds and
//! time steps.

mod common;

use common::*;
use sprung::math::{Point, Real, Vector};
use sprung::{Error, QueryFilter, Shape};
use sprung_control::{Character, CharacterSettings};

#[test]
fn bad_settings_and_shapes_are_refused() {
    let at = Point::new(0.0, REST, 0.0);
    let good = CharacterSettings::default();
    let bad = [
        CharacterSettings {
            up: Vector::new(0.0, 2.0, 0.0),
            ..good
        },
        CharacterSettings {
            up: Vector::new(Real::NAN, 1.0, 0.0),
            ..good
        },
        CharacterSettings { skin: 0.0, ..good },
        CharacterSettings {
            skin: Real::INFINITY,
            ..good
        },
        CharacterSettings {
            max_slope: 2.0,
            ..good
        },
        CharacterSettings {
            halflife: -1.0,
            ..good
        },
        CharacterSettings {
            max_iterations: 0,
            ..good
        },
        CharacterSettings {
            snap_distance: -0.1,
            ..good
        },
        CharacterSettings {
            step_height: Real::NAN,
            ..good
        },
        CharacterSettings {
            step_min_width: -1.0,
            ..good
        },
        CharacterSettings {
            max_recovery_speed: -1.0,
            ..good
        },
        CharacterSettings { mass: 0.0, ..good },
        CharacterSettings {
            max_push_force: -5.0,
            ..good
        },
    ];
    for settings in bad {
        assert!(settings.check().is_err(), "{settings:?}");
        assert!(
            Character::new(capsule(), at, settings).is_err(),
            "{settings:?}"
        );
    }
    let floor = Shape::halfspace(Vector::y()).unwrap();
    assert_eq!(
        Character::new(floor, at, good).unwrap_err(),
        Error::StaticOnlyShape
    );
    assert!(Character::new(capsule(), Point::new(Real::NAN, 0.0, 0.0), good).is_err());
}

#[test]
fn bad_updates_change_nothing() {
    let mut world = flat_world();
    let filter = QueryFilter::new();
    let mut hero = character(Point::new(0.0, REST, 0.0), CharacterSettings::default());
    hero.update(&mut world, Vector::new(1.0, 0.0, 0.0), DT, &filter)
        .unwrap();
    let before = (
        hero.position(),
        hero.velocity(),
        hero.walk_velocity(),
        *hero.ground(),
    );
    let hash = world.state_hash();
    for (goal, dt) in [
        (Vector::new(Real::NAN, 0.0, 0.0), DT),
        (Vector::new(Real::INFINITY, 0.0, 0.0), DT),
        (Vector::x(), 0.0),
        (Vector::x(), -DT),
        (Vector::x(), Real::NAN),
    ] {
        assert!(hero.update(&mut world, goal, dt, &filter).is_err());
        assert!(hero.predict(&world, goal, dt, 10, &filter).is_err());
        let after = (
            hero.position(),
            hero.velocity(),
            hero.walk_velocity(),
            *hero.ground(),
        );
        assert_eq!(after, before);
        assert_eq!(world.state_hash(), hash);
    }
    assert!(hero.jump(Real::NAN).is_err());
    assert!(hero
        .set_position(Point::new(0.0, Real::INFINITY, 0.0))
        .is_err());
    assert_eq!(hero.position(), before.0);
    assert!(hero.is_grounded());
}

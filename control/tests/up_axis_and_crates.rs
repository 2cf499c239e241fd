//! The character in a world whose up is +x (gravity along -x): dropped, it falls on the
//! ballistic closed form and rests a skin above a floor facing +x, walking there as on the
//! flat. And stepping onto a crate: refused by default (it stops at the crate, a skin away),
//! done with `step_on_dynamic` (it ends on top of the crate).

mod common;

use common::*;
use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{ColliderBuilder, QueryFilter, RigidBodyBuilder, World};
use sprung_control::{Character, CharacterSettings};

#[test]
fn with_up_along_x_it_falls_and_walks_as_with_up_along_y() {
    let mut world = World::new(Vector::new(-G, 0.0, 0.0)).unwrap();
    fixed(
        &mut world,
        Isometry::identity(),
        ColliderBuilder::halfspace(Vector::x()),
    );
    let settings = CharacterSettings {
        up: Vector::x(),
        ..CharacterSettings::default()
    };
    let x0 = 2.0 + HALF_HEIGHT + RADIUS;
    let mut hero = Character::new(capsule(), Point::new(x0, 0.0, 0.0), settings).unwrap();
    let filter = QueryFilter::new();
    for step in 1..=90 {
        hero.update(&mut world, Vector::zeros(), DT, &filter)
            .unwrap();
        keeps_skin(&world, &hero, "up x");
        let t = step as Real * DT;
        let free = x0 - 0.5 * G * t * t;
        let x = hero.position().x;
        if free > REST + 1e-3 {
            assert!((x - free).abs() < 1e-4, "step {step}: {x} vs {free}");
        } else {
            assert!((x - REST).abs() < 1e-4, "step {step}: rests at {x}");
            assert!(hero.is_grounded());
        }
    }
    // Walking "horizontally" (along z) at 3 m/s.
    hero.set_walk_velocity(Vector::new(0.0, 0.0, 3.0));
    for step in 0..60 {
        hero.update(&mut world, Vector::new(0.0, 0.0, 3.0), DT, &filter)
            .unwrap();
        assert!(hero.is_grounded(), "step {step}");
        assert!((hero.velocity().z - 3.0).abs() < 1e-3, "step {step}");
        assert!((hero.position().x - REST).abs() < 1e-4);
    }
}

#[test]
fn it_steps_onto_a_crate_only_when_allowed() {
    for allowed in [false, true] {
        let mut world = flat_world();
        // A 50 kg crate 0.25 m high (under the 0.3 m step), 1.2 m deep, 1 m ahead.
        let crate_ = world
            .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(1.9, 0.125, 0.0)))
            .unwrap();
        world
            .add_collider(
                ColliderBuilder::cuboid(0.6, 0.125, 1.0).density(50.0 / 0.3),
                crate_,
            )
            .unwrap();
        for _ in 0..30 {
            world.step(DT).unwrap();
        }
        let settings = CharacterSettings {
            step_on_dynamic: allowed,
            max_push_force: 0.0,
            ..CharacterSettings::default()
        };
        let mut hero = character(Point::new(0.0, REST, 0.0), settings);
        let goal = Vector::new(2.0, 0.0, 0.0);
        let filter = QueryFilter::new();
        for _ in 0..60 {
            world.step(DT).unwrap();
            hero.update(&mut world, goal, DT, &filter).unwrap();
            keeps_skin(&world, &hero, "crate");
        }
        let p = hero.position();
        if allowed {
            // On the crate's top (0.25 m), walking across it.
            assert!((p.y - (0.25 + REST)).abs() < 1e-2, "{p:?}");
            assert_eq!(hero.ground().body, Some(crate_));
        } else {
            // Held at the crate's side, a skin away, on the floor.
            assert!((p.x - (1.3 - RADIUS - SKIN)).abs() < 1e-2, "{p:?}");
            assert!((p.y - REST).abs() < 1e-4, "{p:?}");
        }
    }
}

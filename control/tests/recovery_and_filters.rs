//! What the world does to the character: a kinematic wall driven into it at 1 m/s pushes it
//! along, never nearer than half the skin; a box placed over it pushes it out at no more than
//! the skin plus the recovery speed's step, every step, until it is a skin clear; a query
//! filter that leaves a wall out lets it walk through that wall.

mod common;

use common::*;
use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{ColliderBuilder, QueryFilter, RigidBodyBuilder};
use sprung_control::CharacterSettings;

#[test]
fn a_wall_driven_into_it_pushes_it_along() {
    let mut world = flat_world();
    let filter = QueryFilter::new();
    let wall = world
        .add_body(
            RigidBodyBuilder::kinematic()
                .translation(Vector::new(-1.0, 1.0, 0.0))
                .linear_velocity(Vector::new(1.0, 0.0, 0.0)),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.25, 1.0, 3.0), wall)
        .unwrap();
    let mut hero = character(Point::new(0.0, REST, 0.0), CharacterSettings::default());
    for step in 0..180 {
        world.step(DT).unwrap();
        hero.update(&mut world, Vector::zeros(), DT, &filter)
            .unwrap();
        keeps_skin(&world, &hero, &format!("pushed, step {step}"));
        assert!(hero.is_grounded(), "step {step}");
    }
    // Three seconds at 1 m/s from a metre away: carried about two metres, ahead of the wall.
    let face = world.body(wall).unwrap().translation().x + 0.25;
    let gap = hero.position().x - RADIUS - face;
    assert!(
        (SKIN * 0.5..=SKIN * 1.01).contains(&gap),
        "{gap} m ahead of the wall"
    );
    assert!((hero.position().y - REST).abs() < 1e-4);
}

#[test]
fn a_box_placed_over_it_pushes_it_out_a_bounded_step_at_a_time() {
    let mut world = flat_world();
    let filter = QueryFilter::new();
    let settings = CharacterSettings::default();
    let mut hero = character(Point::new(0.0, REST, 0.0), settings);
    hero.update(&mut world, Vector::zeros(), DT, &filter)
        .unwrap();
    // A static box whose face is 0.2 m inside the capsule's side.
    let body = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.6, 1.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 1.0, 1.0), body)
        .unwrap();
    let budget = settings.skin + settings.max_recovery_speed * DT;
    let mut last = hero.position();
    let mut steps = 0;
    while clearance(&world, &hero) < SKIN - 1e-4 {
        hero.update(&mut world, Vector::zeros(), DT, &filter)
            .unwrap();
        let moved = (hero.position() - last).norm();
        assert!(
            moved <= budget + 1e-5,
            "moved {moved} m in a step, budget {budget}"
        );
        assert!(hero.position().x < last.x, "pushed the wrong way");
        last = hero.position();
        steps += 1;
        assert!(steps < 10, "still inside after {steps} steps");
    }
    // 0.2 m in, 0.22 m to go at 0.103 m a step: three steps.
    assert_eq!(steps, 3);
    assert!(
        (hero.position().x - (0.1 - RADIUS - SKIN)).abs() < 1e-3,
        "{:?}",
        hero.position()
    );
    assert!(hero.is_grounded());
}

#[test]
fn a_filter_that_leaves_a_wall_out_walks_through_it() {
    let mut world = flat_world();
    let wall = fixed(
        &mut world,
        Isometry::translation(1.5, 1.0, 0.0),
        ColliderBuilder::cuboid(0.25, 1.0, 3.0),
    );
    let goal = Vector::new(3.0, 0.0, 0.0);
    for (filter, through) in [
        (QueryFilter::new(), false),
        (QueryFilter::new().exclude_body(wall), true),
    ] {
        let mut hero = character(Point::new(0.0, REST, 0.0), CharacterSettings::default());
        for _ in 0..90 {
            hero.update(&mut world, goal, DT, &filter).unwrap();
        }
        let x: Real = hero.position().x;
        assert_eq!(x > 2.0, through, "ended at x = {x}");
        // Held at the wall, each update's sweep hits it; through it, none does.
        assert_eq!(hero.hits().iter().any(|h| h.body == wall), !through);
    }
}

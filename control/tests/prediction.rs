//! The predicted path (the spring toolkit's closed form, swept through the world) against the
//! path taken: over 2 s it matches within 1 mm in the open and within 2 cm sliding along a wall,
//! predicted at the update's own dt and at a tenth of a second a point.

mod common;

use common::*;
use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{ColliderBuilder, QueryFilter, World};
use sprung_control::CharacterSettings;

/// The path taken over 2 s towards `goal` from rest, and the paths predicted at the start with
/// dt and with 0.1 s, as (predicted, taken) pairs.
fn predicted_and_taken(world: &mut World, goal: Vector<Real>) -> Vec<(Point<Real>, Point<Real>)> {
    let filter = QueryFilter::new();
    let mut hero = character(Point::new(0.0, REST, 0.0), CharacterSettings::default());
    hero.update(world, Vector::zeros(), DT, &filter).unwrap();
    let fine = hero.predict(world, goal, DT, 120, &filter).unwrap();
    let coarse = hero.predict(world, goal, 0.1, 20, &filter).unwrap();
    let mut pairs = Vec::new();
    for step in 1..=120 {
        hero.update(world, goal, DT, &filter).unwrap();
        keeps_skin(world, &hero, "prediction");
        pairs.push((fine[step - 1], hero.position()));
        if step % 6 == 0 {
            pairs.push((coarse[step / 6 - 1], hero.position()));
        }
    }
    pairs
}

#[test]
fn in_the_open_the_prediction_is_the_path_within_a_millimetre() {
    let mut world = flat_world();
    let pairs = predicted_and_taken(&mut world, Vector::new(3.0, 0.0, 1.5));
    let worst = pairs
        .iter()
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, Real::max);
    assert!(worst < 1e-3, "off by {worst} m");
    // It did go somewhere: 2 s at up to 3.35 m/s.
    assert!((pairs.last().unwrap().1 - Point::new(0.0, REST, 0.0)).norm() > 5.0);
}

#[test]
fn along_a_wall_the_prediction_slides_as_the_character_does() {
    let mut world = flat_world();
    // A wall across the way, its face at x = 2, met at 30 degrees.
    fixed(
        &mut world,
        Isometry::translation(2.5, 2.0, 0.0),
        ColliderBuilder::cuboid(0.5, 2.0, 50.0),
    );
    let goal = Vector::new(0.5, 0.0, 30.0_f32.to_radians().tan().recip() * 0.5).normalize() * 3.0;
    let pairs = predicted_and_taken(&mut world, goal);
    let worst = pairs
        .iter()
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, Real::max);
    assert!(worst < 0.02, "off by {worst} m");
    // It reached the wall and slid along it.
    let end = pairs.last().unwrap().1;
    assert!((end.x - (2.0 - RADIUS - SKIN)).abs() < 1e-3, "{end:?}");
    println!("worst prediction error along the wall: {worst} m");
}

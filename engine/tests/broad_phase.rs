//! Which pairs the broad phase hands the narrow phase: every pair whose shapes come within the
//! speculative distance (2 cm) or can meet within the step, and not the neighbours of a pile
//! that merely move together. Each pair the broad phase keeps is a record the narrow phase
//! walks every step: `boxes` (cubes 0.2 m apart, falling together) once kept 46,506 of them
//! for the 4,096 its pile touches with.

mod common;

use sprung::math::{Real, Vector};
use sprung::World;

const DT: Real = 1.0 / 60.0;

/// A 4 x 4 grid of unit cubes 0.2 m apart falls from 4 m onto the ground: while it falls, no
/// cube is paired with a neighbour beside it (they fall together) nor with the ground (too
/// far); at rest, each is paired with the ground alone.
#[test]
fn cubes_side_by_side_are_not_paired_falling_or_at_rest() {
    let mut world = World::default();
    common::ground(&mut world, 20.0);
    for i in 0..4 {
        for k in 0..4 {
            let at = Vector::new(1.2 * i as Real, 4.5, 1.2 * k as Real);
            common::cuboid(&mut world, at, Vector::new(0.5, 0.5, 0.5));
        }
    }
    // 20 steps: 3.3 m/s, 0.5 m fallen, 3.5 m above the ground.
    for step in 1..=20 {
        let report = world.step(DT).unwrap();
        assert_eq!(report.broad_phase_pairs, 0, "step {step}, falling");
    }
    for _ in 0..220 {
        world.step(DT).unwrap();
    }
    let report = world.step(DT).unwrap();
    assert_eq!(report.broad_phase_pairs, 16, "at rest");
    let resting = world
        .bodies()
        .filter(|(_, b)| (b.translation().y - 0.5).abs() < 0.02);
    assert_eq!(resting.count(), 16, "each cube on the ground");
}

/// The other side: two cubes resting 1 cm apart (within the speculative distance) are paired,
/// and so is a cube thrown at another 0.5 m away at 40 m/s (0.67 m a step), in the step it
/// would reach it, whose contact then stops it there.
#[test]
fn shapes_within_reach_are_paired() {
    let mut world = World::default();
    common::ground(&mut world, 20.0);
    let cube = |world: &mut World, x: Real| {
        common::cuboid(world, Vector::new(x, 0.5, 0.0), Vector::new(0.5, 0.5, 0.5))
    };
    cube(&mut world, 0.0);
    cube(&mut world, 1.01);
    let report = world.step(DT).unwrap();
    assert_eq!(
        report.broad_phase_pairs, 3,
        "two cubes on the ground, 1 cm apart"
    );

    let mut world = World::default();
    world.set_gravity(Vector::zeros()).unwrap();
    let target = cube(&mut world, 0.0);
    let thrown = cube(&mut world, -1.5);
    world
        .set_linear_velocity(thrown, Vector::new(40.0, 0.0, 0.0))
        .unwrap();
    let report = world.step(DT).unwrap();
    assert_eq!(
        report.broad_phase_pairs, 1,
        "paired in the step it can close"
    );
    for _ in 0..3 {
        world.step(DT).unwrap();
    }
    let (a, b) = (
        world.body(thrown).unwrap().translation().x,
        world.body(target).unwrap().translation().x,
    );
    assert!(
        b - a > 0.9,
        "the thrown cube passed into its target: {a} against {b}"
    );
}

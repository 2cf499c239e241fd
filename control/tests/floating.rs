//! The floating character against closed forms, at every step (3 Hz, damping ratio 0.2, gravity
//! fed forward): it rides within 1 cm of its set height; dropped 20 cm it comes back at
//! f sqrt(1 - z^2) (within 2%) with the log decrement 2 pi z / sqrt(1 - z^2) (within 5%); it
//! tilts less than 1 degree while walking (and stands up again after a shove at the shoulder); with its motors off, a 500 N s impulse at its centre
//! of mass changes its velocity by J / m (within 2%); on a 30 degree slope it stands without
//! sliding; on a platform moving sideways at 2 m/s it keeps its place on it.

mod common;

use common::*;
use sprung::math::{Isometry, Point, Real, UnitQuaternion, Vector};
use sprung::{ColliderBuilder, RigidBodyBuilder, World};
use sprung_control::{FloatingCharacter, FloatingSettings};

const RIDE: Real = 1.2;
const TAU: Real = std::f32::consts::TAU;

fn settings() -> FloatingSettings {
    FloatingSettings {
        hertz: 3.0,
        damping_ratio: 0.2,
        ..FloatingSettings::default()
    }
}

fn floating(world: &mut World, at: Point<Real>) -> FloatingCharacter {
    FloatingCharacter::spawn(world, capsule(), at, settings()).unwrap()
}

fn centre(world: &World, hero: &FloatingCharacter) -> Point<Real> {
    Point::from(world.body(hero.body()).unwrap().translation())
}

#[test]
fn it_rides_at_its_height_and_rings_at_the_damped_frequency_when_dropped() {
    let mut world = flat_world();
    let hero = floating(&mut world, Point::new(0.0, RIDE, 0.0));
    for step in 0..120 {
        world.step(DT).unwrap();
        let y = centre(&world, &hero).y;
        assert!((y - RIDE).abs() < 0.01, "step {step}: rides at {y}");
        assert!(hero.is_grounded(&world));
    }
    // Dropped from 20 cm higher.
    let mut world = flat_world();
    let hero = floating(&mut world, Point::new(0.0, RIDE + 0.2, 0.0));
    let mut samples = Vec::new();
    for step in 1..=180 {
        world.step(DT).unwrap();
        samples.push((step as Real * DT, centre(&world, &hero).y - RIDE));
    }
    let crossings: Vec<Real> = samples
        .windows(2)
        .filter(|w| w[0].1 < 0.0 && w[1].1 >= 0.0)
        .map(|w| w[0].0 + DT * (-w[0].1) / (w[1].1 - w[0].1))
        .collect();
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as Real;
    let (f, zeta): (Real, Real) = (3.0, 0.2);
    let damped = f * (1.0 - zeta * zeta).sqrt();
    let maxima: Vec<Real> = samples
        .windows(3)
        .filter(|w| w[1].1 > w[0].1 && w[1].1 >= w[2].1 && w[1].1 > 0.0)
        .map(|w| w[1].1)
        .collect();
    let decrement = (maxima[0] / maxima[1]).ln();
    let expected = TAU * zeta / (1.0 - zeta * zeta).sqrt();
    println!(
        "{} Hz (closed form {damped}); log decrement {decrement} (closed form {expected})",
        1.0 / period
    );
    assert!(
        (1.0 / period - damped).abs() < 0.02 * damped,
        "{} Hz",
        1.0 / period
    );
    assert!(
        (decrement - expected).abs() < 0.05 * expected,
        "{decrement}"
    );
}

#[test]
fn walking_it_stays_upright() {
    let mut world = flat_world();
    let mut hero = floating(&mut world, Point::new(0.0, RIDE, 0.0));
    let mut worst: Real = 0.0;
    for step in 0..180 {
        // Starts, turns and stops: 3 m/s east, then north, then still.
        let goal = match step {
            0..=59 => Vector::new(3.0, 0.0, 0.0),
            60..=119 => Vector::new(0.0, 0.0, 3.0),
            _ => Vector::zeros(),
        };
        hero.walk(&mut world, goal).unwrap();
        world.step(DT).unwrap();
        let rotation = world.body(hero.body()).unwrap().pose().rotation;
        let tilt = (rotation * Vector::y()).angle(&Vector::y());
        worst = worst.max(tilt);
        assert!(
            tilt < 1.0_f32.to_radians(),
            "step {step}: tilted {} deg",
            tilt.to_degrees()
        );
        assert!((centre(&world, &hero).y - RIDE).abs() < 0.02, "step {step}");
    }
    let v = world.body(hero.body()).unwrap().linear_velocity();
    assert!(v.norm() < 0.05, "still moving at {v:?}");
    // The motors and the ride spring act through the centre of mass: walking alone turns it
    // no more than rounding does. A shove at the shoulder (20 N s, 0.5 m above the centre)
    // tilts it, and the upright spring stands it up again.
    assert!(worst < 1e-3, "walking tilted it {worst} rad");
    let shoulder = centre(&world, &hero) + Vector::new(0.0, 0.5, 0.0);
    world
        .apply_impulse_at_point(hero.body(), Vector::new(20.0, 0.0, 0.0), shoulder)
        .unwrap();
    let mut peak: Real = 0.0;
    for _ in 0..60 {
        hero.walk(&mut world, Vector::zeros()).unwrap();
        world.step(DT).unwrap();
        let rotation = world.body(hero.body()).unwrap().pose().rotation;
        peak = peak.max((rotation * Vector::y()).angle(&Vector::y()));
    }
    let rotation = world.body(hero.body()).unwrap().pose().rotation;
    let after = (rotation * Vector::y()).angle(&Vector::y());
    println!(
        "shoved: {} deg at most, {} deg a second later",
        peak.to_degrees(),
        after.to_degrees()
    );
    assert!(
        peak > 0.1_f32.to_radians() && peak < 1.0_f32.to_radians(),
        "{peak}"
    );
    assert!(after < 0.05_f32.to_radians(), "{after}");
}

#[test]
fn with_its_motors_off_an_impulse_changes_its_velocity_by_j_over_m() {
    let mut world = flat_world();
    let mut hero = floating(&mut world, Point::new(0.0, RIDE, 0.0));
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    hero.set_motors(&mut world, false).unwrap();
    let impulse = Vector::new(500.0, 0.0, 0.0);
    world.apply_impulse(hero.body(), impulse).unwrap();
    for step in 0..30 {
        world.step(DT).unwrap();
        let v = world.body(hero.body()).unwrap().linear_velocity();
        let expected = 500.0 / settings().mass;
        assert!(
            (v.x - expected).abs() < 0.02 * expected,
            "step {step}: {v:?}"
        );
    }
    // With them on, it is braked back to rest.
    hero.set_motors(&mut world, true).unwrap();
    for _ in 0..60 {
        hero.walk(&mut world, Vector::zeros()).unwrap();
        world.step(DT).unwrap();
    }
    assert!(world.body(hero.body()).unwrap().linear_velocity().norm() < 0.01);
}

#[test]
fn on_a_30_degree_slope_it_stands_without_sliding() {
    let mut world = World::default();
    let turn = UnitQuaternion::from_axis_angle(&Vector::z_axis(), 30.0_f32.to_radians());
    let pose = Isometry::from_parts((turn * Vector::new(0.0, -0.5, 0.0)).into(), turn);
    let slope = world
        .add_body(RigidBodyBuilder::fixed().pose(pose))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(20.0, 0.5, 5.0), slope)
        .unwrap();
    // Over the slope at x = 0 (the surface at y = 0), the ride height up.
    let mut hero = floating(&mut world, Point::new(0.0, RIDE, 0.0));
    for _ in 0..60 {
        hero.walk(&mut world, Vector::zeros()).unwrap();
        world.step(DT).unwrap();
    }
    let start = centre(&world, &hero);
    for step in 0..180 {
        hero.walk(&mut world, Vector::zeros()).unwrap();
        world.step(DT).unwrap();
        let drift = (centre(&world, &hero) - start).norm();
        assert!(drift < 0.01, "step {step}: slid {drift} m");
    }
    assert!((centre(&world, &hero).y - RIDE).abs() < 0.01);
}

#[test]
fn it_rides_a_platform_moving_sideways() {
    let mut world = flat_world();
    let platform = world
        .add_body(
            RigidBodyBuilder::kinematic()
                .translation(Vector::new(0.0, 0.25, 0.0))
                .linear_velocity(Vector::new(2.0, 0.0, 0.0)),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(10.0, 0.25, 10.0), platform)
        .unwrap();
    // Riding over the platform's top (y = 0.5).
    let mut hero = floating(&mut world, Point::new(0.0, 0.5 + RIDE, 0.0));
    let body = hero.body();
    let place = |world: &World| {
        world.body(body).unwrap().translation() - world.body(platform).unwrap().translation()
    };
    for _ in 0..60 {
        hero.walk(&mut world, Vector::zeros()).unwrap();
        world.step(DT).unwrap();
    }
    let settled = place(&world);
    for step in 0..120 {
        hero.walk(&mut world, Vector::zeros()).unwrap();
        world.step(DT).unwrap();
        let off = (place(&world) - settled).norm();
        assert!(
            off < 0.01,
            "step {step}: {off} m from its place on the platform"
        );
        assert!(
            (centre(&world, &hero).y - 0.5 - RIDE).abs() < 0.01,
            "step {step}"
        );
    }
    let v = world.body(hero.body()).unwrap().linear_velocity();
    assert!((v.x - 2.0).abs() < 0.01, "{v:?}");
}

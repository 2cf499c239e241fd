//! Steps and snapping, held at every step: ten stairs (riser 0.25 m, tread 0.4 m) climbed with
//! a 0.3 m step limit at dt = 1/30 to 1/240, always on ground and always moving, at the top
//! within 1.5 times a flat walk's time; with stepping off it stops at the first riser, a skin
//! away. Running at 10 m/s over a crest onto a 30 degree slope and down the stairs, with 0.3 m
//! snapping it stays on the ground at the height its shape rests at there (within 1 cm);
//! without, it leaves at the crest on the ballistic closed form (within 1 cm).

mod common;

use common::*;
use sprung::math::{Isometry, Point, Real, UnitQuaternion, Vector};
use sprung::{BodyHandle, ColliderBuilder, QueryFilter, World};
use sprung_control::CharacterSettings;

const RISER: Real = 0.25;
const TREAD: Real = 0.4;
const STEPS: usize = 10;
/// Where the first riser stands.
const FOOT: Real = 2.0;

/// A floor at y = 0 and ten stairs up along +x from x = FOOT, the top landing 3 m deep.
fn stairs() -> (World, Vec<BodyHandle>) {
    let mut world = flat_world();
    let end = FOOT + STEPS as Real * TREAD + 3.0;
    let steps = (1..=STEPS)
        .map(|k| {
            let (from, top) = (FOOT + (k - 1) as Real * TREAD, k as Real * RISER);
            let half = Vector::new((end - from) / 2.0, top / 2.0, 2.0);
            fixed(
                &mut world,
                Isometry::translation(from + half.x, half.y, 0.0),
                ColliderBuilder::cuboid(half.x, half.y, half.z),
            )
        })
        .collect();
    (world, steps)
}

/// The height a sphere of radius `r` centred above `x` rests at on the stairs: the highest of
/// the treads under its centre and the step edges within `r` of it.
fn stairs_rest(x: Real, r: Real) -> Real {
    let edges = (1..=STEPS).map(|k| (FOOT + (k - 1) as Real * TREAD, k as Real * RISER));
    let tread = edges
        .clone()
        .filter(|&(from, _)| x >= from)
        .map(|(_, top)| top)
        .fold(0.0, Real::max);
    let on_edge = edges
        .filter(|&(from, _)| (x - from).abs() <= r)
        .map(|(from, top)| top + (r * r - (x - from) * (x - from)).sqrt() - r)
        .fold(0.0, Real::max);
    tread.max(on_edge)
}

#[test]
fn stairs_are_climbed_at_any_dt_without_slowing() {
    let filter = QueryFilter::new();
    let v = 3.0;
    let goal = Vector::new(v, 0.0, 0.0);
    // From 1 m before the first riser to the middle of the top tread.
    let (start, top) = (FOOT - 1.0, FOOT + (STEPS as Real - 0.5) * TREAD);
    for dt in [1.0 / 30.0, 1.0 / 60.0, 1.0 / 120.0, 1.0 / 240.0] {
        let (mut world, _) = stairs();
        let mut hero = character(Point::new(start, REST, 0.0), CharacterSettings::default());
        hero.update(&mut world, Vector::zeros(), dt, &filter)
            .unwrap();
        hero.set_walk_velocity(goal);
        let flat_time = (top - start) / v;
        let mut t = 0.0;
        while hero.position().x < top {
            hero.update(&mut world, goal, dt, &filter).unwrap();
            t += dt;
            keeps_skin(&world, &hero, "stairs");
            assert!(
                hero.is_grounded(),
                "dt {dt}, t {t}: off the ground at {:?}",
                hero.position()
            );
            assert!(
                hero.velocity().x > 0.0,
                "dt {dt}, t {t}: stopped at {:?}",
                hero.position()
            );
            assert!(t < 1.5 * flat_time, "dt {dt}: still climbing after {t} s");
        }
        // On the top tread, a skin above it.
        let expected = STEPS as Real * RISER + REST;
        assert!(
            (hero.position().y - expected).abs() < 1e-3,
            "dt {dt}: {:?}",
            hero.position()
        );
        println!("dt {dt}: {t:.3} s for a flat walk's {flat_time:.3} s");
    }
}

#[test]
fn with_stepping_off_it_stops_at_the_first_riser() {
    let filter = QueryFilter::new();
    let goal = Vector::new(3.0, 0.0, 0.0);
    let (mut world, steps) = stairs();
    let settings = CharacterSettings {
        step_height: 0.0,
        ..CharacterSettings::default()
    };
    let mut hero = character(Point::new(FOOT - 1.0, REST, 0.0), settings);
    for step in 0..120 {
        hero.update(&mut world, goal, DT, &filter).unwrap();
        keeps_skin(&world, &hero, "riser");
        assert!(hero.is_grounded(), "step {step}");
    }
    let to_riser = world
        .contacts_with_shape(hero.shape(), &hero.pose(), 1.0, &filter)
        .unwrap()
        .iter()
        .filter(|c| c.body == steps[0])
        .map(|c| c.distance)
        .fold(Real::INFINITY, Real::min);
    assert!(
        (to_riser - SKIN).abs() < 0.01,
        "{to_riser} m from the first riser at {:?}, hits {:?}",
        hero.position(),
        hero.hits()
    );
    assert!(
        (hero.position().y - REST).abs() < 1e-4,
        "{:?}",
        hero.position()
    );
    assert!(hero.velocity().norm() < 1e-3);
}

/// A floor at y = 0 up to x = 0, then a 30 degree slope down along +x.
fn crest() -> World {
    let mut world = World::default();
    fixed(
        &mut world,
        Isometry::translation(-20.0, -0.5, 0.0),
        ColliderBuilder::cuboid(20.0, 0.5, 5.0),
    );
    let turn = UnitQuaternion::from_axis_angle(&Vector::z_axis(), -30.0_f32.to_radians());
    let pose = Isometry::from_parts((turn * Vector::new(20.0, -0.5, 0.0)).into(), turn);
    fixed(&mut world, pose, ColliderBuilder::cuboid(20.0, 0.5, 5.0));
    world
}

/// The height a sphere of radius `r` centred above `x` rests at over the crest.
fn crest_rest(x: Real, r: Real) -> Real {
    let angle = 30.0_f32.to_radians();
    if x <= 0.0 {
        0.0
    } else if x <= r * angle.sin() {
        (r * r - x * x).sqrt() - r // on the edge
    } else {
        -x * angle.tan() + r / angle.cos() - r // on the slope
    }
}

#[test]
fn running_over_a_crest_it_snaps_to_the_slope_or_flies_off_ballistically() {
    let filter = QueryFilter::new();
    let v = 10.0;
    let goal = Vector::new(v, 0.0, 0.0);
    let sphere = RADIUS + SKIN;
    // Starts 3 m back (the crest at the end of an update) and 3.07 m (in the middle of one).
    for (snapping, x0) in [(true, -3.0), (true, -3.07), (false, -3.0), (false, -3.07)] {
        let mut world = crest();
        let settings = CharacterSettings {
            snap_distance: if snapping { 0.3 } else { 0.0 },
            ..CharacterSettings::default()
        };
        let mut hero = character(Point::new(x0, REST, 0.0), settings);
        hero.update(&mut world, Vector::zeros(), DT, &filter)
            .unwrap();
        hero.set_walk_velocity(goal);
        let mut left: Option<Real> = None;
        for step in 0..60 {
            hero.update(&mut world, goal, DT, &filter).unwrap();
            keeps_skin(&world, &hero, "crest");
            let p = hero.position();
            if snapping {
                assert!(hero.is_grounded(), "step {step}: off the ground at {p:?}");
                let expected = crest_rest(p.x, sphere) + REST;
                assert!(
                    (p.y - expected).abs() < 0.01,
                    "step {step}: {} vs {expected}",
                    p.y
                );
            } else if !hero.is_grounded() {
                // Ballistic from the crest at v: y = -g (x / v)^2 / 2, until it lands.
                left.get_or_insert(p.x);
                let t = p.x / v;
                let ballistic = REST - 0.5 * G * t * t;
                if ballistic > crest_rest(p.x, sphere) + REST + 0.05 {
                    assert!(
                        (p.y - ballistic).abs() < 0.01,
                        "step {step}: {} vs {ballistic}",
                        p.y
                    );
                }
            }
        }
        if !snapping {
            let left = left.expect("it left the ground");
            assert!(left < 0.5, "it left at x = {left}, not at the crest");
        }
    }
}

#[test]
fn running_down_stairs_it_snaps_from_tread_to_tread() {
    let filter = QueryFilter::new();
    let v = 10.0;
    let goal = Vector::new(-v, 0.0, 0.0);
    let sphere = RADIUS + SKIN;
    let (mut world, _) = stairs();
    let top = FOOT + STEPS as Real * TREAD + 1.0;
    let mut hero = character(
        Point::new(top, STEPS as Real * RISER + REST, 0.0),
        CharacterSettings::default(),
    );
    hero.update(&mut world, Vector::zeros(), DT, &filter)
        .unwrap();
    hero.set_walk_velocity(goal);
    let mut step = 0;
    while hero.position().x > FOOT - 1.0 {
        hero.update(&mut world, goal, DT, &filter).unwrap();
        keeps_skin(&world, &hero, "down the stairs");
        let p = hero.position();
        assert!(hero.is_grounded(), "step {step}: off the ground at {p:?}");
        let expected = stairs_rest(p.x, sphere) + REST;
        assert!(
            (p.y - expected).abs() < 0.01,
            "step {step}: {} vs {expected} at x {}",
            p.y,
            p.x
        );
        step += 1;
        assert!(step < 100);
    }
}

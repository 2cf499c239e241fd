//! The character against closed forms, held at every step: a drop lands a skin above the floor
//! (touching plus the skin within 0.1 mm) after falling exactly as x = x0 - g t^2 / 2; a jump at
//! 5 m/s rises v0^2 / 2g; on slopes up to the 50 degree limit it walks v t horizontally up and
//! down, never airborne; past it, it is on steep ground and slides down at g sin(theta); standing
//! on a 40 degree slope for 10 s it does not creep.

mod common;

use common::*;
use sprung::math::{Point, Real, Vector};
use sprung::QueryFilter;
use sprung_control::{CharacterSettings, GroundState};

#[test]
fn a_drop_lands_a_skin_above_the_floor_and_a_jump_rises_v0_squared_over_2g() {
    let mut world = flat_world();
    let filter = QueryFilter::new();
    // Its lowest point 2 m above the floor.
    let y0 = 2.0 + HALF_HEIGHT + RADIUS;
    let mut hero = character(Point::new(0.0, y0, 0.0), CharacterSettings::default());
    let mut landed_at = None;
    for step in 1..=120 {
        hero.update(&mut world, Vector::zeros(), DT, &filter)
            .unwrap();
        world.step(DT).unwrap();
        keeps_skin(&world, &hero, "drop");
        let t = step as Real * DT;
        let y = hero.position().y;
        let free = y0 - 0.5 * G * t * t;
        if free > REST + 1e-3 {
            // Still falling: exactly the ballistic closed form.
            assert!((y - free).abs() < 1e-4, "step {step}: {y} vs {free}");
            assert_eq!(hero.ground().state, GroundState::InAir, "step {step}");
        } else {
            landed_at.get_or_insert(step);
            assert!(
                (y - REST).abs() < 1e-4,
                "step {step}: rests at {y}, not {REST}"
            );
            assert_eq!(hero.ground().state, GroundState::OnGround, "step {step}");
            assert!(hero.velocity().norm() < 1e-2 || step == landed_at.unwrap());
        }
    }
    assert!(landed_at.is_some());

    // The jump: every step on y = v0 t - g t^2 / 2 until it lands again.
    let v0 = 5.0;
    hero.jump(v0).unwrap();
    let mut peak: Real = 0.0;
    for step in 1..=100 {
        hero.update(&mut world, Vector::zeros(), DT, &filter)
            .unwrap();
        world.step(DT).unwrap();
        keeps_skin(&world, &hero, "jump");
        let t = step as Real * DT;
        let ballistic = v0 * t - 0.5 * G * t * t;
        let height = hero.position().y - REST;
        peak = peak.max(height);
        if ballistic > 1e-3 {
            assert!(
                (height - ballistic).abs() < 1e-4,
                "step {step}: {height} vs {ballistic}"
            );
        } else {
            assert!(height.abs() < 1e-4, "step {step}: {height}");
            assert!(hero.is_grounded());
        }
    }
    let expected = v0 * v0 / (2.0 * G);
    assert!(
        (peak - expected).abs() < 0.01 * expected,
        "peak {peak} vs {expected}"
    );
}

#[test]
fn walkable_slopes_are_walked_at_v_t_and_steeper_ones_slid_down_at_g_sin_theta() {
    let filter = QueryFilter::new();
    let settings = CharacterSettings {
        max_slope: 50.0_f32.to_radians(),
        ..CharacterSettings::default()
    };
    for degrees in (5..=85).step_by(10) {
        let angle = (degrees as Real).to_radians();
        let walkable = degrees < 50;
        for direction in [1.0, -1.0] {
            if !walkable && direction < 0.0 {
                continue; // standing still: one way is enough
            }
            let mut world = sprung::World::default();
            let n = slope(&mut world, angle);
            // On the slope, its bottom sphere a skin from the surface.
            let start = Point::from(n * (RADIUS + SKIN) + Vector::y() * HALF_HEIGHT);
            let mut hero = common::character(start, settings);
            let v = 3.0 * direction;
            let goal = if walkable {
                Vector::new(v, 0.0, 0.0)
            } else {
                Vector::zeros()
            };
            // One update standing finds the ground; then it walks, already at the goal velocity.
            hero.update(&mut world, Vector::zeros(), DT, &filter)
                .unwrap();
            hero.set_walk_velocity(goal);
            let (x0, s0) = (hero.position().x, hero.position());
            let downhill = Vector::new(-angle.cos(), -angle.sin(), 0.0);
            let steps = 90;
            for step in 1..=steps {
                hero.update(&mut world, goal, DT, &filter).unwrap();
                keeps_skin(&world, &hero, &format!("{degrees} deg"));
                let t = step as Real * DT;
                if walkable {
                    assert_eq!(
                        hero.ground().state,
                        GroundState::OnGround,
                        "{degrees} deg, {direction}, step {step}, {:?}",
                        hero.position()
                    );
                    let walked = hero.position().x - x0;
                    assert!(
                        (walked - v * t).abs() <= 0.005 * (v * t).abs(),
                        "{degrees} deg, step {step}: {walked} vs {}",
                        v * t
                    );
                } else {
                    assert_eq!(
                        hero.ground().state,
                        GroundState::OnSteepGround,
                        "{degrees} deg"
                    );
                }
            }
            if !walkable {
                // The first update found the steep ground and began the slide: its velocity
                // along the slope is then a dt, and it gains a per second: s = a dt t + a t^2 / 2.
                let t = steps as Real * DT;
                let slid = (hero.position() - s0).dot(&downhill);
                let a = G * angle.sin();
                let expected = a * DT * t + 0.5 * a * t * t;
                assert!(
                    (slid - expected).abs() < 0.02 * expected,
                    "{degrees} deg: slid {slid} vs {expected}"
                );
            }
        }
    }
}

#[test]
fn standing_on_a_40_degree_slope_it_does_not_creep() {
    let filter = QueryFilter::new();
    let mut world = sprung::World::default();
    let n = slope(&mut world, 40.0_f32.to_radians());
    let start = Point::from(n * (RADIUS + SKIN) + Vector::y() * HALF_HEIGHT);
    let mut hero = character(start, CharacterSettings::default());
    hero.update(&mut world, Vector::zeros(), DT, &filter)
        .unwrap();
    let first = hero.position();
    for step in 0..600 {
        hero.update(&mut world, Vector::zeros(), DT, &filter)
            .unwrap();
        keeps_skin(&world, &hero, "standing");
        assert!(hero.is_grounded(), "step {step}");
        let drift = (hero.position() - first).norm();
        assert!(drift < 1e-3, "step {step}: drifted {drift} m");
    }
}

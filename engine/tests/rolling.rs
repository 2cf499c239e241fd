//! Rolling resistance against its closed form. A solid sphere (I = 2/5 m r^2) rolling without
//! slipping on flat ground, held back by a torque of at most `c r N` (coefficient c, radius r,
//! normal force N = m g), decelerates at a = c g / (1 + 2/5) = 5 c g / 7 (from m a = -f and
//! (I / r) a = f r - c r N, f the friction force). From v0 it stops after v0 / a seconds and
//! v0^2 / (2 a) metres. With no rolling resistance it rolls on at v0.

use sprung::math::{Real, Vector};
use sprung::{ColliderBuilder, RigidBodyBuilder, World, DEFAULT_ROLLING_RESISTANCE};

const DT: Real = 1.0 / 60.0;

/// A ball of radius 0.5 rolling along +x at `v0` on a static ground box; both colliders have
/// rolling resistance `c`. Returns (speed after 5 s, distance when it stopped, time it took).
fn roll(c: Real, v0: Real) -> (Real, Real, Real) {
    let mut world = World::default();
    let ground = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .unwrap();
    world
        .add_collider(
            ColliderBuilder::cuboid(100.0, 1.0, 10.0).rolling_resistance(c),
            ground,
        )
        .unwrap();
    let r = 0.5;
    let ball = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(-40.0, r, 0.0))
                .linear_velocity(Vector::new(v0, 0.0, 0.0))
                // Rolling: the contact point is at rest, w x (0, -r, 0) = -v.
                .angular_velocity(Vector::new(0.0, 0.0, -v0 / r)),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(r).rolling_resistance(c), ball)
        .unwrap();
    let mut at_5s = Real::NAN;
    for step in 1..=(40.0 / DT) as usize {
        world.step(DT).unwrap();
        let b = world.body(ball).unwrap();
        let t = step as Real * DT;
        if step == (5.0 / DT).round() as usize {
            at_5s = b.linear_velocity().x;
        }
        if b.linear_velocity().x < 1e-3 {
            return (at_5s, b.translation().x + 40.0, t);
        }
    }
    let b = world.body(ball).unwrap();
    (at_5s, b.translation().x + 40.0, Real::INFINITY)
}

#[test]
fn a_rolling_ball_decelerates_at_five_sevenths_c_g_and_stops_where_the_closed_form_says() {
    // Rubber on concrete: the coefficient a user sets for rolling to die out.
    let (c, v0, g) = (0.01, 1.0, 9.81);
    let a = 5.0 * c * g / 7.0;
    let (at_5s, distance, time) = roll(c, v0);
    eprintln!("at 5 s {at_5s} m/s, stopped after {distance} m and {time} s");
    assert!(
        (at_5s - (v0 - 5.0 * a)).abs() < 0.02 * v0,
        "speed at 5 s {at_5s}, closed form {}",
        v0 - 5.0 * a
    );
    let (want_distance, want_time) = (v0 * v0 / (2.0 * a), v0 / a);
    assert!(
        (distance - want_distance).abs() < 0.03 * want_distance,
        "stopped after {distance} m, closed form {want_distance} m"
    );
    assert!(
        (time - want_time).abs() < 0.03 * want_time,
        "stopped after {time} s, closed form {want_time} s"
    );
}

#[test]
fn without_rolling_resistance_a_ball_rolls_on() {
    assert_eq!(DEFAULT_ROLLING_RESISTANCE, 0.0, "none by default");
    let (at_5s, _, time) = roll(DEFAULT_ROLLING_RESISTANCE, 1.0);
    assert!((at_5s - 1.0).abs() < 1e-3, "speed at 5 s {at_5s}");
    assert!(time.is_infinite(), "stopped after {time} s");
}

#[test]
fn a_negative_or_non_finite_rolling_resistance_is_refused() {
    let mut world = World::default();
    let body = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    for bad in [-0.1, Real::NAN, Real::INFINITY, 2000.0] {
        let builder = ColliderBuilder::ball(0.5).rolling_resistance(bad);
        assert!(world.add_collider(builder, body).is_err(), "{bad}");
    }
}

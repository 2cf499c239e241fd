//! Impacts against their closed forms: a ball meeting the ground leaves it at `e` times the
//! speed it came in at, and a row of balls with restitution 1 passes the first one's momentum
//! down the row to the last (Newton's cradle), whether the balls touch or stand apart, so that
//! the impacts fall in one step or several.

use sprung::math::{Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;

/// A cradle of five balls of radius 0.1 m on the x axis, `gap` apart, gravity off, friction 0,
/// restitution 1, the first moving at `v0` towards the others. Steps 2 s, holding at every
/// step the row's momentum and that its energy never grows; returns the balls' velocities.
fn cradle(gap: Real, v0: Real) -> Vec<Real> {
    let mut world = World::new(Vector::zeros()).unwrap();
    let r = 0.1;
    let balls: Vec<BodyHandle> = (0..5)
        .map(|i| {
            let x = i as Real * (2.0 * r + gap);
            let v = if i == 0 { v0 } else { 0.0 };
            let body = RigidBodyBuilder::dynamic()
                .translation(Vector::new(x, 0.0, 0.0))
                .linear_velocity(Vector::new(v, 0.0, 0.0));
            let ball = world.add_body(body).unwrap();
            let collider = ColliderBuilder::ball(r).friction(0.0).restitution(1.0);
            world.add_collider(collider, ball).unwrap();
            ball
        })
        .collect();
    let velocities = |w: &World| -> Vec<Real> {
        let v = |&b: &BodyHandle| w.body(b).unwrap().linear_velocity();
        balls.iter().map(|b| v(b).x).collect()
    };
    for step in 1..=120 {
        world.step(DT).unwrap();
        let v = velocities(&world);
        let momentum: Real = v.iter().sum();
        let energy: Real = v.iter().map(|v| v * v).sum();
        assert!(
            (momentum - v0).abs() <= 1e-4 * v0,
            "gap {gap}, {v0} m/s, step {step}: momentum {momentum} (per unit mass)"
        );
        assert!(
            energy <= v0 * v0 * (1.0 + 1e-4),
            "gap {gap}, {v0} m/s, step {step}: energy grew, {v:?}"
        );
    }
    velocities(&world)
}

#[test]
fn a_cradle_of_five_passes_the_momentum_to_the_last_ball() {
    for gap in [0.0, 0.001, 0.003, 0.01, 0.02, 0.05] {
        for v0 in [1.5, 2.0, 3.0, 4.0] {
            let v = cradle(gap, v0);
            let last = v[4] / v0;
            assert!(
                last >= 0.98 && last * last >= 0.98,
                "gap {gap}, {v0} m/s: the last ball leaves at {last} of v0 ({v:?})"
            );
            for (i, &vi) in v[..4].iter().enumerate() {
                assert!(
                    (vi / v0).abs() < 0.02,
                    "gap {gap}, {v0} m/s: ball {i} keeps {} of v0 ({v:?})",
                    vi / v0
                );
            }
        }
    }
}

/// A ball of radius 0.1 m meeting a static floor at `speed` (both of restitution `e`): thrown
/// at it with gravity off, or dropped from the height that gives that speed under `gravity`.
/// Holds at every step that it stays out of the floor; returns its height and vertical
/// velocity at each step, until two steps after it left.
fn thrown_at_the_floor(speed: Real, e: Real, gravity: Real) -> Vec<(Real, Real)> {
    let mut world = World::new(Vector::new(0.0, -gravity, 0.0)).unwrap();
    let floor = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .unwrap();
    world
        .add_collider(
            ColliderBuilder::cuboid(50.0, 1.0, 50.0).restitution(e),
            floor,
        )
        .unwrap();
    // Thrown from 0.3 s of travel away, or dropped from rest.
    let start = if gravity > 0.0 {
        0.1 + speed * speed / (2.0 * gravity)
    } else {
        0.1 + 0.3 * speed
    };
    let v0 = if gravity > 0.0 { 0.0 } else { -speed };
    let ball = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(0.0, start, 0.0))
                .linear_velocity(Vector::new(0.0, v0, 0.0)),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.1).restitution(e), ball)
        .unwrap();
    let mut track = Vec::new();
    for _ in 0..(2.0 / DT) as usize {
        world.step(DT).unwrap();
        let b = world.body(ball).unwrap();
        assert!(
            b.translation().y > 0.09,
            "into the floor: {}",
            b.translation().y
        );
        track.push((b.translation().y, b.linear_velocity().y));
        if b.linear_velocity().y > 0.0 && track.len() > 2 && track[track.len() - 2].1 > 0.0 {
            break;
        }
    }
    track
}

#[test]
fn a_ball_thrown_at_the_floor_leaves_at_e_times_its_speed() {
    for speed in [1.5, 3.0, 7.0, 14.0] {
        for e in [0.2, 0.5, 0.8, 1.0] {
            let track = thrown_at_the_floor(speed, e, 0.0);
            let out = track.last().unwrap().1;
            assert!(
                (out - e * speed).abs() <= 0.02 * e * speed,
                "{speed} m/s, e {e}: leaves at {out}, e v = {}",
                e * speed
            );
        }
    }
}

/// Dropped under gravity: the step it bounces in starts at `s0` down and ends at `u` up. The
/// impact comes after `k` of the step's `n` substeps of `h` (0 to n), so that it met the floor
/// at `s0 + g k h` and left at `e` times that, slowed for the `n - k` substeps left: some `k`
/// gives `u` within 2%.
#[test]
fn a_ball_dropped_on_the_floor_leaves_at_e_times_its_impact_speed() {
    let g = 9.81;
    let n = sprung::SolverSettings::default().substeps;
    let h = DT / n as Real;
    for speed in [1.5, 3.0, 7.0, 14.0] {
        for e in [0.2, 0.5, 0.8, 1.0] {
            let track = thrown_at_the_floor(speed, e, g);
            let bounce = track.iter().position(|&(_, v)| v > 0.0).unwrap();
            let (s0, u) = (-track[bounce - 1].1, track[bounce].1);
            let fits = (0..=n).any(|k| {
                let impact = s0 + g * k as Real * h;
                let leaving = e * impact - g * (n - k) as Real * h;
                (u - leaving).abs() <= 0.02 * e * impact
            });
            assert!(
                fits,
                "{speed} m/s, e {e}: {s0} down before the bounce step, {u} up after"
            );
            assert!((s0 - speed).abs() < 0.05 * speed + g * DT, "fell at {s0}");
        }
    }
}

//! The ray spring against closed forms, at every step: a body held by a spring along a ray to
//! the floor hovers at its rest length less the sag g / w^2 (fed forward: at the set height
//! within 0.1 mm); dropped 20 cm it oscillates at f sqrt(1 - z^2) (within 2%) with the log
//! decrement 2 pi z / sqrt(1 - z^2) (within 5%); a 20 Hz spring at dt = 1/60 is stable; the
//! bump stop holds a load the spring cannot; out of the ray's reach nothing holds it; the
//! axis stays fixed while the body slides sideways; bad settings are refused.

use sprung::math::{Point, Real, Vector};
use sprung::{
    BodyHandle, ColliderBuilder, Error, JointBuilder, JointHandle, RigidBodyBuilder, Spring, World,
};

const DT: Real = 1.0 / 60.0;
const G: Real = 9.81;
const TAU: Real = std::f32::consts::TAU;

/// A floor (a half-space at y = 0) and a 1 kg ball of 0.2 m at `height`, held by a ray spring
/// from its centre straight down, reaching 3 m.
fn hover(
    height: Real,
    hertz: Real,
    damping_ratio: Real,
    ride: Real,
) -> (World, BodyHandle, JointHandle) {
    let mut world = World::default();
    world.set_sleeping(false);
    let floor = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vector::y()), floor)
        .unwrap();
    let ball = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, height, 0.0)))
        .unwrap();
    let density = 1.0 / (4.0 / 3.0 * std::f32::consts::PI * 0.2_f32.powi(3));
    world
        .add_collider(ColliderBuilder::ball(0.2).density(density), ball)
        .unwrap();
    let sag = G / (TAU * hertz).powi(2);
    let spring = Spring::Frequency {
        hertz,
        damping_ratio,
    };
    let joint = world
        .add_world_joint(
            JointBuilder::ray_spring(Point::origin(), -Vector::y(), ride + sag, 3.0, spring),
            ball,
        )
        .unwrap();
    (world, ball, joint)
}

fn height(world: &World, body: BodyHandle) -> Real {
    world.body(body).unwrap().translation().y
}

#[test]
fn it_hovers_at_the_set_height_with_the_sag_fed_forward() {
    let (mut world, ball, joint) = hover(1.0, 3.0, 1.0, 1.0);
    for step in 0..300 {
        world.step(DT).unwrap();
        let y = height(&world, ball);
        assert!((y - 1.0).abs() < 1e-4, "step {step}: {y}");
    }
    // Its coordinate is that height.
    assert!((world.joint_position(joint).unwrap() - 1.0).abs() < 1e-4);
}

#[test]
fn dropped_it_rings_at_the_damped_frequency_with_the_closed_form_decay() {
    let (f, zeta) = (3.0, 0.2);
    let (mut world, ball, _) = hover(1.2, f, zeta, 1.0);
    // Peaks of the height above the ride height, with their times.
    let mut samples = Vec::new();
    for step in 1..=180 {
        world.step(DT).unwrap();
        samples.push((step as Real * DT, height(&world, ball) - 1.0));
    }
    // Upward zero crossings, interpolated, give the period.
    let crossings: Vec<Real> = samples
        .windows(2)
        .filter(|w| w[0].1 < 0.0 && w[1].1 >= 0.0)
        .map(|w| w[0].0 + DT * (-w[0].1) / (w[1].1 - w[0].1))
        .collect();
    assert!(crossings.len() >= 3, "{crossings:?}");
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as Real;
    let damped = f * (1.0 - zeta * zeta).sqrt();
    assert!(
        (1.0 / period - damped).abs() < 0.02 * damped,
        "rings at {} Hz, not {damped}",
        1.0 / period
    );
    // Successive maxima (one a period apart) shrink by exp(delta).
    let maxima: Vec<Real> = samples
        .windows(3)
        .filter(|w| w[1].1 > w[0].1 && w[1].1 >= w[2].1 && w[1].1 > 0.0)
        .map(|w| w[1].1)
        .collect();
    assert!(maxima.len() >= 3, "{maxima:?}");
    let decrement = (maxima[0] / maxima[1]).ln();
    let expected = TAU * zeta / (1.0 - zeta * zeta).sqrt();
    println!(
        "{} Hz (closed form {damped}), log decrement {decrement} (closed form {expected})",
        1.0 / period
    );
    assert!(
        (decrement - expected).abs() < 0.05 * expected,
        "log decrement {decrement}, not {expected}"
    );
}

#[test]
fn a_20_hz_spring_at_60_hz_is_stable() {
    let (mut world, ball, _) = hover(1.3, 20.0, 0.1, 1.0);
    for step in 0..600 {
        world.step(DT).unwrap();
        let y = height(&world, ball);
        assert!(y.is_finite() && (0.5..1.5).contains(&y), "step {step}: {y}");
    }
    assert!((height(&world, ball) - 1.0).abs() < 1e-3);
}

#[test]
fn the_bump_stop_holds_what_the_spring_cannot() {
    // A 0.5 Hz spring barely holds the ball (its sag is a metre); the stop at 0.6 m holds it.
    let mut world = World::default();
    let floor = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vector::y()), floor)
        .unwrap();
    let ball = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 1.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.2), ball)
        .unwrap();
    let soft = Spring::Frequency {
        hertz: 0.5,
        damping_ratio: 1.0,
    };
    world
        .add_world_joint(
            JointBuilder::ray_spring(Point::origin(), -Vector::y(), 1.0, 3.0, soft)
                .limits(0.6, 3.0),
            ball,
        )
        .unwrap();
    let mut lowest: Real = 1.0;
    for _ in 0..300 {
        world.step(DT).unwrap();
        lowest = lowest.min(height(&world, ball));
    }
    assert!(lowest > 0.6 - 5e-3, "went down to {lowest}");
    assert!((height(&world, ball) - 0.6).abs() < 5e-3);
}

#[test]
fn out_of_reach_it_falls_freely() {
    // 4 m up with a 3 m ray: free fall until the ray reaches the floor.
    let (mut world, ball, joint) = hover(4.0, 3.0, 1.0, 1.0);
    for step in 1..=20 {
        world.step(DT).unwrap();
        let t = step as Real * DT;
        let free = 4.0 - 0.5 * G * t * t;
        if free > 3.0 + 0.05 {
            // The solver's own integration (symplectic Euler, substeps) against the closed
            // form: within its per-step error.
            assert!((height(&world, ball) - free).abs() < 5e-3, "step {step}");
            assert!(world.joint_position(joint).is_err());
        }
    }
}

#[test]
fn sliding_sideways_the_spring_stays_vertical() {
    let (mut world, ball, _) = hover(1.0, 3.0, 1.0, 1.0);
    world
        .set_linear_velocity(ball, Vector::new(5.0, 0.0, 0.0))
        .unwrap();
    for step in 0..60 {
        world.step(DT).unwrap();
        let b = world.body(ball).unwrap();
        // No force along x: the velocity is kept.
        assert!(
            (b.linear_velocity().x - 5.0).abs() < 1e-4,
            "step {step}: {:?}",
            b.linear_velocity()
        );
        assert!((b.translation().y - 1.0).abs() < 1e-3, "step {step}");
    }
}

#[test]
fn bad_ray_springs_are_refused() {
    let (mut world, ball, _) = hover(1.0, 3.0, 1.0, 1.0);
    let good = Spring::Frequency {
        hertz: 3.0,
        damping_ratio: 1.0,
    };
    let bad = Spring::Frequency {
        hertz: Real::NAN,
        damping_ratio: 1.0,
    };
    for builder in [
        JointBuilder::ray_spring(Point::origin(), Vector::zeros(), 1.0, 3.0, good),
        JointBuilder::ray_spring(Point::origin(), -Vector::y(), -1.0, 3.0, good),
        JointBuilder::ray_spring(Point::origin(), -Vector::y(), 1.0, Real::NAN, good),
        JointBuilder::ray_spring(Point::origin(), -Vector::y(), 1.0, 3.0, bad),
        JointBuilder::ray_spring(Point::origin(), -Vector::y(), 1.0, 3.0, good).limits(2.0, 1.0),
    ] {
        assert!(world.add_world_joint(builder, ball).is_err());
    }
    // A world joint: not between two bodies.
    let other = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    let joint = JointBuilder::ray_spring(Point::origin(), -Vector::y(), 1.0, 3.0, good);
    assert!(matches!(
        world.add_joint(joint, ball, other),
        Err(Error::NotApplicable(_))
    ));
}

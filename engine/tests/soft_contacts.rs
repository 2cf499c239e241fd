//! Soft (penalty) contacts: springs inside the solver, against Hooke's law at rest, and the three
//! materials of Fiedler's article: a trampoline bounces, quicksand swallows slowly, concrete holds.

use sprung::math::{Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, RigidBodyBuilder, Spring, World};

const DT: Real = 1.0 / 60.0;

/// A ball of radius 0.5 m (1000 kg/m^3) dropped from `height` (its bottom) onto ground whose
/// material is `ground`.
fn drop_on(ground: Option<Spring>, height: Real) -> (World, BodyHandle) {
    let mut world = World::default();
    // Quicksand's slow mode creeps at a few cm/s, under the default sleep threshold (0.05 m/s
    // for 0.5 s): asleep, the ball would stop 5 cm short of where the spring holds it.
    world.set_sleeping(false);
    let floor = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .unwrap();
    let mut material = ColliderBuilder::cuboid(20.0, 1.0, 20.0);
    if let Some(spring) = ground {
        material = material.soft_contact(spring);
    }
    world.add_collider(material, floor).unwrap();
    let ball = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, height + 0.5, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.5), ball)
        .unwrap();
    (world, ball)
}

#[test]
fn a_body_resting_on_a_soft_contact_sinks_m_g_over_k() {
    for stiffness in [2.0e5_f32, 1.0e6] {
        let mass = 1000.0 * 4.0 / 3.0 * std::f32::consts::PI * 0.125;
        let damping = 2.0 * (stiffness * mass).sqrt(); // critical: settles without bouncing
        let (mut world, ball) = drop_on(Some(Spring::Stiffness { stiffness, damping }), 0.0);
        for _ in 0..300 {
            world.step(DT).unwrap();
        }
        let depth = 0.5 - world.body(ball).unwrap().translation().y;
        let expected = mass * 9.81 / stiffness;
        assert!(
            (depth - expected).abs() < 0.05 * expected,
            "k {stiffness}: sank {depth} m, m g / k = {expected} m"
        );
    }
}

/// The bottom of the ball over time, and its highest point after the first contact.
fn flight(ground: Option<Spring>, seconds: Real) -> (Vec<Real>, Vec<Real>) {
    let (mut world, ball) = drop_on(ground, 2.0);
    let (mut heights, mut speeds) = (Vec::new(), Vec::new());
    for _ in 0..(seconds / DT) as usize {
        world.step(DT).unwrap();
        let b = world.body(ball).unwrap();
        heights.push(b.translation().y - 0.5);
        speeds.push(b.linear_velocity().y);
    }
    (heights, speeds)
}

#[test]
fn a_trampoline_bounces_quicksand_swallows_and_concrete_holds() {
    // Trampoline: soft and barely damped: the ball comes back up most of the way.
    let (heights, _) = flight(
        Some(Spring::Frequency {
            hertz: 2.0,
            damping_ratio: 0.05,
        }),
        4.0,
    );
    let first_touch = heights.iter().position(|&h| h < 0.0).expect("it lands");
    let rebound = heights[first_touch..]
        .iter()
        .copied()
        .fold(Real::NEG_INFINITY, Real::max);
    // Half a cycle at zeta 0.05 keeps 73% of the drop height; implicit Euler at 240 Hz damps a
    // little more (measured: 0.93 m of 2 m). A rigid floor returns nothing.
    assert!(
        rebound > 0.5,
        "the trampoline threw the ball back up only {rebound} m of 2 m"
    );
    let lowest = heights.iter().copied().fold(Real::INFINITY, Real::min);
    assert!(lowest < -0.1, "a trampoline gives way: lowest {lowest}");

    // Quicksand: soft and heavily damped: it sinks slowly, never comes back up, and stops
    // g / w^2 = 0.3 m deep (0.91 Hz), with a slow mode of about 1.4 s at damping ratio 4.
    let (heights, speeds) = flight(
        Some(Spring::Frequency {
            hertz: 0.91,
            damping_ratio: 4.0,
        }),
        10.0,
    );
    let first_touch = heights.iter().position(|&h| h < 0.0).expect("it lands");
    let upward = speeds[first_touch..].iter().copied().fold(0.0, Real::max);
    assert!(
        upward < 0.05,
        "quicksand bounced the ball up at {upward} m/s"
    );
    let (sunk_early, sunk_late) = (heights[first_touch + 30], heights[heights.len() - 1]);
    assert!(
        sunk_late < sunk_early - 0.05,
        "still sinking after the impact: {sunk_early} then {sunk_late}"
    );
    assert!(
        (sunk_late + 0.3).abs() < 0.03,
        "quicksand holds at g / w^2 = 0.3 m: ended at {sunk_late}"
    );
    assert!(
        speeds[speeds.len() - 1].abs() < 0.05,
        "and stops: {}",
        speeds[speeds.len() - 1]
    );

    // The default (rigid) material: the ball lands and rests on the surface.
    let (heights, speeds) = flight(None, 4.0);
    let end = heights[heights.len() - 1];
    assert!(
        end.abs() < 0.01 && speeds[speeds.len() - 1].abs() < 0.01,
        "rests at {end}"
    );
    assert!(heights.iter().all(|&h| h > -0.05), "sank into concrete");
}

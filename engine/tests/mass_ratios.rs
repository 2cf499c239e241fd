//! Mass ratios: light joints holding heavy bodies keep their length. Gauss-Seidel alone lets a
//! chain of light links under a heavy load stretch by tens of percent and bounce (measured
//! before chains were solved whole: 21-87% over 5 s for the chain below).

use sprung::math::{Point, Real, Vector};
use sprung::{BodyHandle, JointBuilder, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;

/// A ball of `mass` at `at`, its inertia that of a small sphere of that mass.
fn ball(world: &mut World, mass: Real, at: Vector<Real>) -> BodyHandle {
    world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(at)
                .mass_properties(mass, Vector::repeat(mass * 0.001)),
        )
        .unwrap()
}

/// 30 links of 0.05 kg and 0.1 m on ball joints, hung from a static point, holding a 50 kg body
/// (1000:1), under gravity for 5 s: the chain's length (anchor to the heavy body's centre)
/// stays within 1% at every step after the first second, and the heavy body comes to rest.
#[test]
fn a_chain_of_light_links_holds_a_body_a_thousand_times_heavier_at_its_length() {
    let (links, link, light, heavy) = (30, 0.1, 0.05, 50.0);
    let mut world = World::default();
    world.set_sleeping(false);
    let top = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let mut previous = top;
    for i in 0..=links {
        let mass = if i == links { heavy } else { light };
        let body = ball(
            &mut world,
            mass,
            Vector::new(0.0, -link * (i as Real + 0.5), 0.0),
        );
        let above = if previous == top {
            Point::origin()
        } else {
            Point::new(0.0, -link / 2.0, 0.0)
        };
        let joint = JointBuilder::ball(above, Point::new(0.0, link / 2.0, 0.0));
        world.add_joint(joint, previous, body).unwrap();
        previous = body;
    }
    let length = link * (links as Real + 0.5);
    let mut worst: Real = 0.0;
    for step in 0..300 {
        world.step(DT).unwrap();
        if step >= 60 {
            let y = world.body(previous).unwrap().translation().y;
            worst = worst.max((-y - length).abs() / length);
        }
    }
    eprintln!("chain: worst stretch {:.4}%", 100.0 * worst);
    assert!(worst < 0.01, "stretched by {:.2}%", 100.0 * worst);
    let speed = world.body(previous).unwrap().linear_velocity().norm();
    assert!(speed < 1e-2, "still moving at {speed} m/s: it bounces");
}

/// A double pendulum of 1 m links, released horizontal, its bobs 1 kg and 1000 kg (each
/// order): both lengths stay within 1% while it swings for 5 s.
#[test]
fn a_double_pendulum_of_a_thousand_to_one_keeps_its_lengths() {
    for (upper, lower) in [(1.0, 1000.0), (1000.0, 1.0)] {
        let mut world = World::default();
        world.set_sleeping(false);
        let pivot = world.add_body(RigidBodyBuilder::fixed()).unwrap();
        let first = ball(&mut world, upper, Vector::new(1.0, 0.0, 0.0));
        let second = ball(&mut world, lower, Vector::new(2.0, 0.0, 0.0));
        let o = Point::origin();
        world
            .add_joint(
                JointBuilder::ball(o, Point::new(-1.0, 0.0, 0.0)),
                pivot,
                first,
            )
            .unwrap();
        world
            .add_joint(
                JointBuilder::ball(o, Point::new(-1.0, 0.0, 0.0)),
                first,
                second,
            )
            .unwrap();
        let mut worst: Real = 0.0;
        for _ in 0..300 {
            world.step(DT).unwrap();
            let (p1, p2) = (
                world.body(first).unwrap().translation(),
                world.body(second).unwrap().translation(),
            );
            worst = worst
                .max((p1.norm() - 1.0).abs())
                .max(((p2 - p1).norm() - 1.0).abs());
        }
        eprintln!("{upper} kg over {lower} kg: worst {:.4}%", 100.0 * worst);
        assert!(
            worst < 0.01,
            "{upper} kg over {lower} kg: a length off by {:.2}%",
            100.0 * worst
        );
    }
}

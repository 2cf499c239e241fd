//! The hover racer (issue 45's test 7): with gravity fed forward into its pads' springs it
//! hovers within 1 cm of its set height, at rest and cruising; with gravity and the pads off,
//! tilted 30° about its heading, it comes back level at the upright spring's damped frequency.

use sprung::math::{Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, RigidBodyBuilder, Spring, World};
use sprung_control::{HoverInput, HoverRacer, HoverSettings};

const DT: Real = 1.0 / 60.0;
const HALF: Vector<Real> = Vector::new(1.5, 0.2, 0.8);

/// A racer of 384 kg (a 3 x 0.4 x 1.6 m box of 200 kg/m^3) in `world`, its centre at
/// `height` over the origin, turned by `tilt` (axis times angle).
fn racer(world: &mut World, height: Real, tilt: Vector<Real>) -> (BodyHandle, HoverRacer) {
    let body = RigidBodyBuilder::dynamic()
        .translation(Vector::new(0.0, height, 0.0))
        .rotation(tilt);
    let body = world.add_body(body).unwrap();
    let shape = ColliderBuilder::cuboid(HALF.x, HALF.y, HALF.z).density(200.0);
    world.add_collider(shape, body).unwrap();
    let settings = HoverSettings::for_box(HALF);
    let racer = HoverRacer::new(world, body, settings).unwrap();
    (body, racer)
}

/// The pads' heights over the flat ground at y = 0.
fn pad_heights(world: &World, racer: &HoverRacer) -> Vec<Real> {
    let pose = world.body(racer.body()).unwrap().pose();
    let pads = racer.settings().pads.iter();
    pads.map(|pad| (pose * pad).y).collect()
}

/// At rest and then cruising at 20 m/s, every pad rides within 1 cm of the set height at
/// every step once it has settled (the sag under gravity is fed into the springs' rest
/// length; without it, they would ride g / (2 pi 2 Hz)^2 = 6.2 cm lower).
#[test]
fn it_hovers_at_its_set_height() {
    let mut world = World::default();
    let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let floor = ColliderBuilder::halfspace(Vector::y());
    world.add_collider(floor, ground).unwrap();
    let (_, mut racer) = racer(&mut world, 0.5 + HALF.y, Vector::zeros());
    let set = racer.settings().height;
    for step in 0..900 {
        let throttle = if step < 300 { 0.0 } else { 0.5 };
        let input = HoverInput {
            throttle,
            steering: 0.0,
        };
        racer.drive(&mut world, input).unwrap();
        world.step(DT).unwrap();
        if step >= 120 {
            for (pad, h) in pad_heights(&world, &racer).iter().enumerate() {
                assert!((h - set).abs() < 0.01, "step {step}, pad {pad}: {h} m");
            }
        }
    }
    let v = world.body(racer.body()).unwrap().linear_velocity().x;
    assert!((v - 20.0).abs() < 0.1, "{v} m/s");
}

/// Gravity off and the pads removed, tilted 30° about its heading, it rolls back level and
/// past, at the upright spring's damped frequency f sqrt(1 - zeta^2) within 2% (2 Hz, damping
/// ratio 0.1 here; the spring's frequency refers to the body's inertia about the heading,
/// about which it turns alone).
#[test]
fn tilted_it_comes_back_level_at_the_upright_springs_frequency() {
    let mut world = World::new(Vector::zeros()).unwrap();
    let tilt = Vector::x() * 30.0_f32.to_radians();
    let body = RigidBodyBuilder::dynamic().rotation(tilt);
    let body = world.add_body(body).unwrap();
    let shape = ColliderBuilder::cuboid(HALF.x, HALF.y, HALF.z).density(200.0);
    world.add_collider(shape, body).unwrap();
    let (f, zeta) = (2.0, 0.1);
    let settings = HoverSettings {
        upright: Spring::Frequency {
            hertz: f,
            damping_ratio: zeta,
        },
        ..HoverSettings::for_box(HALF)
    };
    let mut racer = HoverRacer::new(&mut world, body, settings).unwrap();
    for pad in racer.joints().0.to_vec() {
        world.remove_joint(pad).unwrap();
    }
    let mut roll = Vec::new();
    for _ in 0..300 {
        racer.drive(&mut world, HoverInput::default()).unwrap();
        world.step(DT).unwrap();
        let up = world.body(body).unwrap().pose().rotation * Vector::y();
        roll.push(up.z.asin());
    }
    let crossings: Vec<Real> = roll
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] < 0.0 && w[1] >= 0.0)
        .map(|(i, w)| (i as Real + w[0] / (w[0] - w[1])) * DT)
        .collect();
    assert!(crossings.len() >= 6, "{crossings:?}");
    let n = crossings.len() - 1;
    let measured = n as Real / (crossings[n] - crossings[0]);
    let damped = f * (1.0 - zeta * zeta).sqrt();
    assert!(
        (measured - damped).abs() < 0.02 * damped,
        "{measured} Hz, closed form {damped} Hz"
    );
}

//! Heavy on light: two 0.5 m cubes stacked on the ground, one up to a thousand times denser than
//! the other, either on top, rest where they just touch and fall asleep.
//!
//! Gauss-Seidel moves a heavy body resting on a light one by the light one's share of each
//! impulse, so on its own the contact under it holds like a spring of the light body's
//! stiffness: at 1000:1 the upper cube sinks 8.5 cm and bounces. A contact that holds a body up
//! solves at most [`sprung::SolverSettings::support_mass_ratio`] (10) as it is, which these
//! tests hold to the closed form of a 10:1 stack: a soft contact gives `F / (m_eff (2 pi f)^2)`
//! at rest (PHYSICS.md), under a millimetre here.

mod common;

use sprung::math::{Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, RigidBodyBuilder, SimdWidth, World};

const DT: Real = 1.0 / 60.0;
const HALF: Real = 0.25;

fn cube(world: &mut World, y: Real, density: Real) -> BodyHandle {
    let body = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, y, 0.0)))
        .unwrap();
    world
        .add_collider(
            ColliderBuilder::cuboid(HALF, HALF, HALF).density(density),
            body,
        )
        .unwrap();
    body
}

/// The stack `bottom` over `top` (densities) placed just touching and stepped for 5 s with the
/// solver working `simd` wide: at every step both cubes stay within `tolerance` of their
/// touching places (the contacts begin unloaded, so the landing is held as well as the rest),
/// and at the end both are asleep. Returns the end poses' bits.
fn holds(bottom: Real, top: Real, tolerance: Real, simd: SimdWidth) -> Vec<u32> {
    let mut world = World::default();
    let settings = sprung::SolverSettings {
        simd,
        ..*world.settings()
    };
    world.set_settings(settings).unwrap();
    common::ground(&mut world, 5.0);
    let lower = cube(&mut world, HALF, bottom);
    let upper = cube(&mut world, 3.0 * HALF, top);
    let places = [(lower, HALF), (upper, 3.0 * HALF)];
    let mut worst: [Real; 2] = [0.0; 2];
    for step in 1..=300 {
        world.step(DT).unwrap();
        for (k, &(body, height)) in places.iter().enumerate() {
            let at = world.body(body).unwrap().translation();
            let off = (at - Vector::new(0.0, height, 0.0)).norm();
            worst[k] = worst[k].max(off);
            assert!(
                off <= tolerance,
                "{bottom} under {top} kg/m^3, step {step}: the {} cube is {:.2} mm from where it \
                 touches (at most {:.1})",
                ["lower", "upper"][k],
                off * 1e3,
                tolerance * 1e3,
            );
        }
    }
    eprintln!(
        "{bottom:>9} under {top:>9} kg/m^3: {:.3} mm (lower), {:.3} mm (upper) at worst",
        worst[0] * 1e3,
        worst[1] * 1e3
    );
    let mut bits = Vec::new();
    for (body, _) in places {
        let body = world.body(body).unwrap();
        assert!(
            body.is_sleeping(),
            "{bottom} under {top} kg/m^3: not asleep after 5 s"
        );
        bits.extend(body.translation().iter().map(|x| x.to_bits()));
    }
    bits
}

#[test]
fn a_hundred_to_one_rests_within_five_millimetres_either_way_up() {
    for (bottom, top) in [
        (1.0e3, 1.0e5),
        (1.0e5, 1.0e3),
        (1.0e4, 1.0e6),
        (1.0e6, 1.0e4),
    ] {
        holds(bottom, top, 5e-3, SimdWidth::Auto);
    }
}

#[test]
fn a_thousand_to_one_rests_within_a_centimetre_either_way_up() {
    for (bottom, top) in [(1.0e3, 1.0e6), (1.0e6, 1.0e3)] {
        holds(bottom, top, 1e-2, SimdWidth::Auto);
    }
}

/// The heavy cube held up by a light one rests where a 10:1 stack would: the contact between
/// them gives `m_top g / (m_eff (2 pi 60)^2)` with `m_eff` the 10:1 pair's, the ground's gives
/// `(1 + 10) m_bottom g / (m_bottom (2 pi 120)^2)` (the light cube passes down ten times its
/// weight), each within 5%; and one lane, four or eight give the same bits.
#[test]
fn a_light_body_holds_a_heavy_one_as_a_ten_to_one_stack_would() {
    let bits = holds(1.0e3, 1.0e6, 1e-2, SimdWidth::Scalar);
    for simd in [SimdWidth::Four, SimdWidth::Eight] {
        assert_eq!(holds(1.0e3, 1.0e6, 1e-2, simd), bits, "{simd:?}");
    }
    let at = |k: usize| Real::from_bits(bits[k]);
    let (lower, upper) = (at(1), at(4));
    let g = 9.81;
    let w = |hz: Real| (2.0 * std::f32::consts::PI * hz).powi(2);
    let m_top: Real = 1.0e6 * 0.125;
    // In the contact between them the light cube weighs a tenth of the heavy one.
    let m_eff = 1.0 / (1.0 / m_top + 10.0 / m_top);
    let between = m_top * g / (m_eff * w(60.0));
    let ground = 11.0 * g / w(120.0);
    for (what, sink, expected) in [
        ("ground", HALF - lower, ground),
        ("between", (3.0 * HALF - upper) - (HALF - lower), between),
    ] {
        eprintln!(
            "{what}: sinks {:.4} mm, closed form {:.4} mm",
            sink * 1e3,
            expected * 1e3
        );
        assert!(
            (sink - expected).abs() <= 0.05 * expected,
            "{what}: sinks {sink} m, a 10:1 stack {expected} m"
        );
    }
}

/// With every ratio solved as it is (`support_mass_ratio` infinite), the same 1000:1 stack
/// sinks centimetres: what holds it above is the ratio, nothing else.
#[test]
fn without_the_ratio_the_heavy_cube_sinks_centimetres() {
    let mut world = World::default();
    let settings = sprung::SolverSettings {
        support_mass_ratio: Real::INFINITY,
        ..*world.settings()
    };
    world.set_settings(settings).unwrap();
    common::ground(&mut world, 5.0);
    cube(&mut world, HALF, 1.0e3);
    let upper = cube(&mut world, 3.0 * HALF, 1.0e6);
    let mut deepest: Real = 0.0;
    for _ in 0..120 {
        world.step(DT).unwrap();
        deepest = deepest.max(3.0 * HALF - world.body(upper).unwrap().translation().y);
    }
    eprintln!("sinks {:.1} mm", deepest * 1e3);
    assert!(deepest > 0.03, "sinks only {deepest} m");
}

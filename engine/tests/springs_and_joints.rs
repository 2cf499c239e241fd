//! Springs and joints against closed forms: the damped oscillator, an implicit spring that
//! stays stable where explicit Euler diverges, the pendulum's period, a chain under a heavy load.

use sprung::math::{Point, Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, JointBuilder, RigidBodyBuilder, Spring, World};

/// A 1 kg body on a distance spring of rest length 1 m to a static anchor at the origin, in a
/// world without gravity, released from `1 + amplitude` on the x axis.
fn oscillator(spring: Spring, amplitude: Real) -> (World, BodyHandle) {
    let mut world = World::new(Vector::zeros()).unwrap();
    // The decay is measured down to small amplitudes, where the body would fall asleep.
    world.set_sleeping(false);
    let anchor = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let body = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(1.0 + amplitude, 0.0, 0.0))
                .mass_properties(1.0, Vector::repeat(0.1)),
        )
        .unwrap();
    world
        .add_joint(
            JointBuilder::distance(Point::origin(), Point::origin(), 1.0).spring(spring),
            anchor,
            body,
        )
        .unwrap();
    (world, body)
}

#[test]
fn a_soft_spring_oscillates_at_its_frequency_and_decays_by_its_damping_ratio() {
    let dt = 1.0 / 1000.0;
    for (hertz, zeta) in [(1.0_f32, 0.1_f32), (2.0, 0.05), (0.5, 0.2)] {
        let (mut world, body) = oscillator(
            Spring::Frequency {
                hertz,
                damping_ratio: zeta,
            },
            0.1,
        );
        let x = |w: &World| w.body(body).unwrap().translation().x - 1.0;
        // Record the times of upward zero crossings and the peaks between them.
        let (mut crossings, mut peaks) = (Vec::new(), Vec::new());
        let (mut previous, mut peak): (Real, Real) = (x(&world), 0.0);
        for step in 1..=(6.0 / (hertz * dt)) as usize {
            world.step(dt).unwrap();
            let now = x(&world);
            peak = peak.max(now);
            if previous < 0.0 && now >= 0.0 {
                // Linear interpolation of the crossing time.
                crossings.push((step as Real - now / (now - previous)) * dt);
                peaks.push(peak);
                peak = 0.0;
            }
            previous = now;
        }
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let damped_period = 2.0 * std::f32::consts::PI / (omega * (1.0 - zeta * zeta).sqrt());
        let measured =
            (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as Real;
        assert!(
            (measured - damped_period).abs() < 0.02 * damped_period,
            "{hertz} Hz: period {measured}, expected {damped_period}"
        );
        // Successive peaks shrink by exp(-2 pi zeta / sqrt(1 - zeta^2)) (the log decrement).
        let expected_ratio =
            (-2.0 * std::f32::consts::PI * zeta / (1.0 - zeta * zeta).sqrt()).exp();
        // Lobes above 1% of the release amplitude: below, f32 rounding of positions near 1 m
        // starts to show in the ratio.
        let lobes: Vec<Real> = peaks[1..]
            .iter()
            .copied()
            .take_while(|&p| p > 0.001)
            .collect();
        assert!(lobes.len() >= 3, "{lobes:?}");
        for pair in lobes.windows(2) {
            let ratio = pair[1] / pair[0];
            assert!(
                (ratio - expected_ratio).abs() < 0.05 * expected_ratio,
                "{hertz} Hz zeta {zeta}: ratio {ratio}, expected {expected_ratio}"
            );
        }
    }
}

#[test]
fn critically_damped_and_overdamped_springs_never_overshoot() {
    for spring in [
        Spring::Frequency {
            hertz: 2.0,
            damping_ratio: 1.0,
        },
        Spring::Frequency {
            hertz: 2.0,
            damping_ratio: 3.0,
        },
        Spring::Halflife { halflife: 0.2 },
        Spring::Stiffness {
            stiffness: 400.0,
            damping: 40.0,
        }, // critical for 1 kg: c = 2 sqrt(k m)
    ] {
        let (mut world, body) = oscillator(spring, 0.5);
        for _ in 0..600 {
            world.step(1.0 / 120.0).unwrap();
            let x = world.body(body).unwrap().translation().x - 1.0;
            assert!(x > -1e-4, "{spring:?} overshot to {x}");
        }
        assert!(
            world.body(body).unwrap().translation().x - 1.0 < 0.01,
            "{spring:?} did not settle"
        );
    }
}

/// Explicit Euler on m x'' = -k x - c v, the textbook way a game integrates a spring.
fn explicit_euler(k: Real, c: Real, m: Real, dt: Real, steps: usize) -> Real {
    let (mut x, mut v) = (0.1_f32, 0.0_f32);
    let mut largest: Real = 0.0;
    for _ in 0..steps {
        let a = (-k * x - c * v) / m;
        x += v * dt;
        v += a * dt;
        largest = largest.max(x.abs());
    }
    largest
}

#[test]
fn a_stiff_implicit_spring_settles_where_explicit_euler_diverges() {
    let dt = 1.0 / 60.0;
    for omega_dt in [2.4_f32, 10.0, 100.0] {
        let omega = omega_dt / dt;
        let (k, c, m) = (omega * omega, 2.0 * 0.5 * omega, 1.0);
        // Side by side: the same spring, integrated explicitly, blows up...
        let explicit = explicit_euler(k, c, m, dt, 600);
        assert!(
            explicit > 1.0e3 || !explicit.is_finite(),
            "omega dt {omega_dt}: explicit Euler stayed at {explicit}"
        );
        // ...while the engine's implicit row stays bounded and settles.
        let (mut world, body) = oscillator(
            Spring::Stiffness {
                stiffness: k,
                damping: c,
            },
            0.1,
        );
        let mut largest: Real = 0.0;
        for _ in 0..600 {
            world.step(dt).unwrap();
            largest = largest.max((world.body(body).unwrap().translation().x - 1.0).abs());
        }
        assert!(
            largest <= 0.1 + 1e-4,
            "omega dt {omega_dt}: grew to {largest}"
        );
        let rest = (world.body(body).unwrap().translation().x - 1.0).abs();
        assert!(rest < 1e-3, "omega dt {omega_dt}: still {rest} from rest");
    }
}

#[test]
fn a_pendulum_swings_with_the_small_angle_period() {
    for length in [1.0_f32, 2.5] {
        let mut world = World::default();
        let pivot = world
            .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 10.0, 0.0)))
            .unwrap();
        // A small ball (radius 0.1 m, 1 kg) 5 degrees out, hinged at the pivot through a rigid
        // arm: a physical pendulum, T = 2 pi sqrt((I + m L^2) / (m g L)), which for this ball
        // is the small-angle 2 pi sqrt(L / g) lengthened by 0.1-0.2%.
        let angle: Real = 5.0_f32.to_radians();
        let offset = Vector::new(length * angle.sin(), -length * angle.cos(), 0.0);
        let at = Vector::new(0.0, 10.0, 0.0) + offset;
        let inertia = 0.4 * 1.0 * 0.1 * 0.1;
        let bob = world
            .add_body(
                RigidBodyBuilder::dynamic()
                    .translation(at)
                    .mass_properties(1.0, Vector::repeat(inertia)),
            )
            .unwrap();
        world
            .add_joint(
                JointBuilder::ball(Point::origin(), Point::from(-offset)),
                pivot,
                bob,
            )
            .unwrap();
        let dt = 1.0 / 60.0;
        let (mut crossings, mut previous) = (Vec::new(), world.body(bob).unwrap().translation().x);
        for step in 1..=1200 {
            world.step(dt).unwrap();
            let x = world.body(bob).unwrap().translation().x;
            if previous > 0.0 && x <= 0.0 {
                crossings.push((step as Real - x / (x - previous)) * dt);
            }
            previous = x;
        }
        let period =
            (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as Real;
        let expected =
            2.0 * std::f32::consts::PI * ((inertia + length * length) / (9.81 * length)).sqrt();
        assert!(
            (period - expected).abs() < 0.01 * expected,
            "L {length}: period {period}, 2 pi sqrt(L/g) = {expected}"
        );
    }
}

#[test]
fn a_chain_of_twenty_links_holds_a_body_a_hundred_times_heavier() {
    let mut world = World::default();
    let top = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 30.0, 0.0)))
        .unwrap();
    let mut previous = top;
    let mut joints = Vec::new();
    let link_mass = 1.0;
    for i in 1..=21 {
        let heavy = i == 21;
        let mass = if heavy { 100.0 * link_mass } else { link_mass };
        let body = world
            .add_body(
                RigidBodyBuilder::dynamic()
                    .translation(Vector::new(0.0, 30.0 - 0.5 * i as Real, 0.0))
                    .mass_properties(mass, Vector::repeat(0.01 * mass)),
            )
            .unwrap();
        world
            .add_collider(ColliderBuilder::ball(0.1), body)
            .unwrap();
        let joint = JointBuilder::ball(Point::new(0.0, -0.25, 0.0), Point::new(0.0, 0.25, 0.0));
        joints.push(world.add_joint(joint, previous, body).unwrap());
        previous = body;
    }
    // Swing it a little too.
    world
        .apply_impulse(previous, Vector::new(50.0, 0.0, 0.0))
        .unwrap();
    for _ in 0..600 {
        world.step(1.0 / 60.0).unwrap();
    }
    let error = joints
        .iter()
        .map(|j| {
            let joint = world.joint(*j).unwrap();
            let (a, b) = joint.bodies();
            let (la, lb) = joint.local_anchors();
            (world.body(a).unwrap().pose() * la - world.body(b).unwrap().pose() * lb).norm()
        })
        .fold(0.0, Real::max);
    assert!(error < 0.05, "largest joint error {error} m");
}

/// A soft ball joint of very high frequency behaves as the rigid one: the same pendulum swing.
#[test]
fn a_very_stiff_soft_joint_converges_to_the_rigid_joint() {
    let swing = |spring: Option<Spring>| {
        let mut world = World::default();
        let pivot = world
            .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 10.0, 0.0)))
            .unwrap();
        let bob = world
            .add_body(
                RigidBodyBuilder::dynamic()
                    .translation(Vector::new(1.0, 10.0, 0.0))
                    .mass_properties(1.0, Vector::repeat(0.01)),
            )
            .unwrap();
        let joint = JointBuilder::ball(Point::origin(), Point::new(-1.0, 0.0, 0.0));
        let joint = match spring {
            Some(s) => joint.spring(s),
            None => joint,
        };
        world.add_joint(joint, pivot, bob).unwrap();
        (0..90)
            .map(|_| {
                world.step(1.0 / 60.0).unwrap();
                world.body(bob).unwrap().translation()
            })
            .collect::<Vec<_>>()
    };
    let rigid = swing(None);
    let soft = swing(Some(Spring::Frequency {
        hertz: 1000.0,
        damping_ratio: 1.0,
    }));
    let loose = swing(Some(Spring::Frequency {
        hertz: 2.0,
        damping_ratio: 1.0,
    }));
    let gap = |a: &[Vector<Real>], b: &[Vector<Real>]| {
        a.iter()
            .zip(b)
            .map(|(p, q)| (p - q).norm())
            .fold(0.0, Real::max)
    };
    assert!(
        gap(&rigid, &soft) < 0.02,
        "stiff spring strays {} m from the rigid joint",
        gap(&rigid, &soft)
    );
    assert!(
        gap(&rigid, &loose) > 0.2,
        "a 2 Hz spring should not behave as rigid: {}",
        gap(&rigid, &loose)
    );
}

use super::*;
use crate::body::{BodySim, BodyState, STATIC};
use crate::contact::{ContactConstraint, ContactMaterial, ContactPointInput};
use crate::settings::SolverSettings;
use crate::step::StepContext;
use crate::Quaternion;
use crate::Real;

use crate::testing::Lcg;

/// `count` moving bodies of unequal moments turned at random, the last with no mass.
fn turned_bodies(rng: &mut Lcg, count: usize) -> Bodies {
    let mut bodies = Bodies::default();
    for i in 0..count {
        let turn = Quaternion::from_euler_angles(rng.next(), rng.next(), rng.next());
        let d = Matrix::from_diagonal(&Vector::new(1.3, 0.7 + 0.1 * i as Real, 2.1));
        let r = turn.to_rotation_matrix().into_inner();
        let sim = if i + 1 == count {
            BodySim::with_mass(0.0, Matrix::zeros())
        } else {
            BodySim::with_mass(0.5 + 0.1 * i as Real, r * d * r.transpose())
        };
        bodies.push(BodyState::moving(rng.vector(), rng.vector()), sim);
    }
    bodies
}

/// The wide preparation gives, lane by lane and bit for bit, what the scalar preparation
/// of the same contact gives: friction frame and centre, masses, and every point's row.
#[test]
fn wide_preparation_matches_the_scalar_one() {
    let mut rng = Lcg(7);
    let bodies = turned_bodies(&mut rng, 6);
    let pairs = [
        (0, 1),
        (2, STATIC),
        (STATIC, 3),
        (4, 5),
        (1, 2),
        (3, 0),
        (5, 4),
    ];
    let contacts: Vec<Contact> = pairs
        .iter()
        .enumerate()
        .map(|(i, &(a, b))| Contact {
            body_a: a,
            body_b: b,
            normal: rng.vector().normalize(),
            material: ContactMaterial {
                friction: 0.6,
                restitution: if i % 2 == 0 { 0.3 } else { 0.0 },
                spring: None,
                rolling_resistance: if i == 3 { 0.02 } else { 0.0 },
            },
            points: (0..=i % 4)
                .map(|_| ContactPointInput {
                    anchor_a: rng.vector(),
                    anchor_b: rng.vector(),
                    separation: 0.1 * rng.next(),
                    normal_impulse: rng.next().abs(),
                    max_normal_impulse: 0.0,
                })
                .collect(),
            friction_impulse: rng.vector(),
            twist_impulse: rng.next(),
            rolling_impulse: rng.vector(),
            user_index: i as u32,
        })
        .collect();
    // Up, and a ratio that these bodies' masses pass: some contacts hold one body up at
    // more than it, and scale its masses (`support_scales`).
    let settings = ContactSettings {
        up: -contacts[0].normal,
        support_ratio: 1.1,
        ..StepContext::new(&SolverSettings::default(), 1.0 / 60.0, &Vector::zeros()).contact
    };
    let scaled = contacts.iter().filter(|c| {
        let (a, b) = (bodies.mass(c.body_a).0, bodies.mass(c.body_b).0);
        crate::contact::support_scales(a, b, &c.normal, &settings) != (1.0, 1.0)
    });
    assert!(scaled.count() > 0, "no contact here holds a body up");
    let indices: Vec<u32> = (0..contacts.len() as u32).collect();
    let (mut bundle, mut cold) = (Bundle::<8>::empty(), BundleCold::default());
    bundle.prepare(&mut cold, &bodies, &contacts, &indices, &settings);
    assert_eq!(bundle.lanes, contacts.len());
    let bits = |x: Real| x.to_bits();
    let same = |a: &Vector, b: &Vector| a.map(bits) == b.map(bits);
    for (lane, contact) in contacts.iter().enumerate() {
        let c = ContactConstraint::new(&bodies, contact, lane as u32, &settings);
        let f = &c.frame;
        assert!(
            same(&bundle.tangents[0].get(lane), &f.tangents[0]),
            "lane {lane}"
        );
        assert!(
            same(&bundle.tangents[1].get(lane), &f.tangents[1]),
            "lane {lane}"
        );
        assert!(same(&bundle.center_a.get(lane), &f.center_a), "lane {lane}");
        assert!(same(&bundle.center_b.get(lane), &f.center_b), "lane {lane}");
        for k in 0..3 {
            assert_eq!(
                bits(bundle.tangent_mass[k].0[lane]),
                bits(f.tangent_mass[k])
            );
        }
        for k in 0..2 {
            assert_eq!(
                bits(bundle.friction_impulse[k].0[lane]),
                bits(f.friction_impulse[k])
            );
        }
        assert_eq!(bits(bundle.twist_mass.0[lane]), bits(f.twist_mass));
        assert_eq!(bits(bundle.bias_rate.0[lane]), bits(f.softness.bias_rate));
        assert!(same(&cold.rolling_impulse.get(lane), &f.rolling_impulse));
        for (k, p) in c.points.iter().enumerate() {
            let q = &bundle.points[k];
            assert_eq!(bits(q.base_separation.0[lane]), bits(p.base_separation));
            assert!(same(&q.angular_a.get(lane), &p.normal.angular_a));
            assert!(same(&q.angular_b.get(lane), &p.normal.angular_b));
            assert_eq!(
                bits(q.normal_mass.0[lane]),
                bits(p.normal.mass),
                "lane {lane}"
            );
            assert_eq!(bits(q.lever_arm.0[lane]), bits(p.lever_arm));
            assert_eq!(bits(q.normal_impulse.0[lane]), bits(p.normal.impulse));
        }
        for k in c.points.len()..WIDE_POINTS {
            assert_eq!(bundle.points[k].normal_mass.0[lane], 0.0);
        }
    }
    // The empty lane holds nothing: no masses, no frame.
    let empty = contacts.len();
    assert_eq!(bundle.pair.inv_mass_a.0[empty], 0.0);
    assert_eq!(bundle.tangent_mass[0].0[empty], 0.0);
    assert!(bundle.tangents[0].get(empty).iter().all(|x| *x == 0.0));
}

/// A full bundle of eight loaded by transposes (the AVX2 preparation) holds what one loaded
/// lane by lane holds, bit for bit, in the bundle, its cold half and the inputs: static
/// bodies on either side, one to four points, rolling resistance and restitution in some
/// lanes, a negative zero, a NaN separation, a point's impulse left from an earlier step.
/// And what the AVX2 derivation ([`Bundle::derive_eight`]) makes of them is what the lane
/// loops make, in full bundles and in partial ones (one to seven lanes, loaded lane by
/// lane), empty lanes included.
#[cfg(target_arch = "x86_64")]
#[test]
fn a_bundle_prepared_with_avx2_is_the_one_prepared_lane_by_lane() {
    /// # Safety
    /// The CPU has AVX2 (`Kernels::avx2`, below).
    #[target_feature(enable = "avx2")]
    unsafe fn transposed(
        bundle: &mut Bundle<8>,
        cold: &mut BundleCold<8>,
        inputs: &mut Inputs<8>,
        sources: (&Bodies, &[Contact]),
        indices: &[u32],
        settings: &ContactSettings,
    ) {
        bundle.prepare_with::<true>(cold, inputs, sources, indices, settings);
    }
    if !crate::kernels::Kernels::new(crate::kernels::SimdWidth::Auto).avx2() {
        return;
    }
    let mut rng = Lcg(11);
    let bodies = turned_bodies(&mut rng, 10);
    // Up, and a ratio that these bodies' masses pass: some contacts hold one body up at
    // more than it, and scale its masses (`support_scales`).
    let settings = ContactSettings {
        up: Vector::y(),
        support_ratio: 1.1,
        ..StepContext::new(&SolverSettings::default(), 1.0 / 60.0, &Vector::zeros()).contact
    };
    let mut scaled = 0;
    for round in 0..50 {
        let body = |rng: &mut Lcg| match (rng.next() * 12.0) as i64 {
            x if (0..10).contains(&x) => x as u32,
            _ => STATIC,
        };
        let contacts: Vec<Contact> = (0..8)
            .map(|i| {
                let a = body(&mut rng);
                let b = match body(&mut rng) {
                    b if b == a => STATIC,
                    b => b,
                };
                Contact {
                    body_a: a,
                    body_b: if a == STATIC && b == STATIC { 0 } else { b },
                    normal: rng.vector().normalize(),
                    material: ContactMaterial {
                        friction: 0.6 * rng.next().abs(),
                        restitution: if (i + round) % 3 == 0 { 0.3 } else { 0.0 },
                        spring: None,
                        rolling_resistance: if (i + round) % 5 == 0 { 0.02 } else { 0.0 },
                    },
                    points: (0..=(i + round) % 4)
                        .map(|k| ContactPointInput {
                            anchor_a: rng.vector(),
                            anchor_b: rng.vector(),
                            separation: match (i + k) % 7 {
                                0 => -0.0,
                                6 if round == 3 => Real::NAN,
                                _ => 0.1 * rng.next(),
                            },
                            normal_impulse: rng.next().abs(),
                            max_normal_impulse: rng.next().abs(),
                        })
                        .collect(),
                    friction_impulse: rng.vector(),
                    twist_impulse: rng.next(),
                    rolling_impulse: rng.vector(),
                    user_index: i as u32,
                }
            })
            .collect();
        // Every fourth round a partial bundle.
        let count = if round % 4 == 3 { 1 + round % 7 } else { 8 };
        scaled += contacts
            .iter()
            .filter(|c| {
                let (a, b) = (bodies.mass(c.body_a).0, bodies.mass(c.body_b).0);
                crate::contact::support_scales(a, b, &c.normal, &settings) != (1.0, 1.0)
            })
            .count();
        let indices: Vec<u32> = (0..8).rev().take(count).collect();
        let sources = (&bodies, contacts.as_slice());
        let (mut lane_by_lane, mut cold_a, mut inputs_a) = (
            Bundle::<8>::empty(),
            BundleCold::default(),
            Inputs::default(),
        );
        lane_by_lane.prepare_with::<false>(
            &mut cold_a,
            &mut inputs_a,
            sources,
            &indices,
            &settings,
        );
        let (mut by_transposes, mut cold_b, mut inputs_b) = (
            Bundle::<8>::empty(),
            BundleCold::default(),
            Inputs::default(),
        );
        // SAFETY: the CPU has AVX2 (checked above).
        unsafe {
            transposed(
                &mut by_transposes,
                &mut cold_b,
                &mut inputs_b,
                sources,
                &indices,
                &settings,
            )
        };
        // Debug prints every float's bits apart (a sign of zero, a NaN) but NaN payloads.
        assert_eq!(
            format!("{lane_by_lane:?}"),
            format!("{by_transposes:?}"),
            "round {round}"
        );
        assert_eq!(
            format!("{cold_a:?}"),
            format!("{cold_b:?}"),
            "round {round}"
        );
        assert_eq!(
            format!("{inputs_a:?}"),
            format!("{inputs_b:?}"),
            "round {round}"
        );
    }
    assert!(scaled > 0, "no contact held a body up");
}

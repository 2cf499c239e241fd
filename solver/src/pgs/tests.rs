use super::*;
use crate::body::Motion;
use crate::body::{BodySim, BodyState, STATIC};
use crate::contact::{ContactMaterial, ContactPointInput};
use crate::joint::JointFrame;
use crate::kernels::SimdWidth;
use crate::settings::SolverSettings;
use crate::testing::Lcg;
use crate::{Matrix, Quaternion, Real};

/// Columns of boxes (unequal moments, so the gyroscopic term and full inertias take
/// part), each on the one below through four points on a tilted normal, the bottom ones on
/// static ground, moving and spinning at random, with last step's impulses to start from.
fn columns(rng: &mut Lcg) -> (Bodies, Vec<Contact>) {
    columns_of(rng, |rng| Vector::new(0.1, 0.2, 0.15) + rng.vector() * 0.02)
}

/// [`columns`] with each body's principal moments from `moments`.
fn columns_of(rng: &mut Lcg, moments: impl Fn(&mut Lcg) -> Vector) -> (Bodies, Vec<Contact>) {
    let mut bodies = Bodies::default();
    let mut contacts = Vec::new();
    let material = ContactMaterial {
        friction: 0.6,
        ..ContactMaterial::default()
    };
    for column in 0..6 {
        for row in 0..8u32 {
            let moments = moments(rng);
            let index = bodies.push(
                BodyState::moving(rng.vector(), rng.vector() * 2.0),
                BodySim {
                    inv_mass: 1.0 + 0.5 * rng.next(),
                    inv_inertia: Matrix::from_diagonal(&moments.map(|m| 1.0 / m)),
                    principal_inertia: moments,
                    principal_frame: Quaternion::identity(),
                    gyroscopic: true,
                    position: Vector::new(2.0 * column as Real, 0.5 + row as Real, 0.0),
                    rotation: Quaternion::identity(),
                    linear_acceleration: Vector::new(0.0, -9.81, 0.0),
                    angular_acceleration: Vector::zeros(),
                    linear_damping: 0.0,
                    angular_damping: 0.0,
                },
            );
            let normal = (Vector::y() + rng.vector() * 0.1).normalize();
            let points = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
                .iter()
                .map(|&(x, z)| ContactPointInput {
                    anchor_a: Vector::new(x, 0.5, z) + rng.vector() * 0.05,
                    anchor_b: Vector::new(x, -0.5, z) + rng.vector() * 0.05,
                    separation: 0.01 * rng.next(),
                    normal_impulse: 0.05 * (1.0 + rng.next()),
                    max_normal_impulse: 0.0,
                })
                .collect();
            contacts.push(Contact {
                body_a: if row == 0 { STATIC } else { index - 1 },
                body_b: index,
                normal,
                material,
                points,
                friction_impulse: rng.vector() * 0.01,
                user_index: contacts.len() as u32,
                ..Contact::default()
            });
        }
    }
    (bodies, contacts)
}

/// One step of `columns` with each lane count, solved by a solver `setup` makes for
/// `false` and for `true`: the bodies' states at the end of each.
fn both_ways(
    columns: impl Fn() -> (Bodies, Vec<Contact>),
    setup: impl Fn(bool, &Bodies) -> Solver,
    check: impl Fn(SimdWidth, &[BodyState], &[BodyState]),
) {
    for simd in [SimdWidth::Scalar, SimdWidth::Four, SimdWidth::Eight] {
        let settings = SolverSettings {
            simd,
            ..SolverSettings::default()
        };
        let step = StepContext::new(&settings, 1.0 / 60.0, &Vector::zeros());
        let ends = [false, true].map(|way| {
            let (mut bodies, contacts) = columns();
            let mut solver = setup(way, &bodies);
            solver.contacts = contacts;
            solver.solve(&mut bodies, &step);
            bodies.states
        });
        check(simd, &ends[0], &ends[1]);
    }
}

/// One step of `kept` over `bodies` beside a fresh solver with its joint parts and
/// contacts over a copy of them: both must end at the same bits (`what` says which case).
fn step_beside_fresh(kept: &mut Solver, bodies: &mut Bodies, step: &StepContext, what: &str) {
    let mut fresh = Solver {
        points: kept.points.clone(),
        contacts: kept.contacts.clone(),
        ..Solver::default()
    };
    let mut other = bodies.clone();
    kept.solve(bodies, step);
    fresh.solve(&mut other, step);
    for (k, f) in bodies.states.iter().zip(&other.states) {
        assert_eq!(k.linear_velocity, f.linear_velocity, "{what}");
        assert_eq!(k.angular_velocity, f.angular_velocity, "{what}");
    }
}

/// The carried warm start is the warm start: a step with it ends where a step that warm
/// starts every contact on every substep ends, up to rounding (2e-6 m/s here), on every
/// lane count; a warm start carried twice is off by tens of m/s.
#[test]
fn a_carried_warm_start_is_the_warm_start() {
    let setup = |classic, _: &Bodies| {
        let solver = Solver {
            classic_warm_start: classic,
            ..Solver::default()
        };
        assert_eq!(solver.carries_warm_start(), !classic);
        solver
    };
    both_ways(
        || columns(&mut Lcg(7)),
        setup,
        |simd, carried, classic| {
            let mut worst: Real = 0.0;
            for (carried, classic) in carried.iter().zip(classic) {
                let dv = carried.linear_velocity - classic.linear_velocity;
                let dw = carried.angular_velocity - classic.angular_velocity;
                worst = worst.max(dv.amax()).max(dw.amax());
            }
            assert!(
                worst < 1e-4,
                "{simd:?}: carried and classic differ by {worst}"
            );
        },
    );
}

/// A solver that keeps its joints' chains and colours from the step before (the same
/// parts between the same bodies) ends a step exactly where a fresh solver ends it, on
/// every lane count, and so does one whose parts changed since (it makes them again).
#[test]
fn kept_chains_and_colours_end_where_fresh_ones_end() {
    for simd in [SimdWidth::Scalar, SimdWidth::Four, SimdWidth::Eight] {
        let settings = SolverSettings {
            simd,
            ..SolverSettings::default()
        };
        let step = StepContext::new(&settings, 1.0 / 60.0, &Vector::zeros());
        let (mut bodies, contacts) = columns(&mut Lcg(5));
        // A chain along the columns' tops (7, 15, 23, 31: two interior bodies) and two
        // softer parts that no chain takes.
        let part = |bodies: &Bodies, a: u32, b: u32, soft: [Softness; 2]| {
            let (ma, mb) = (Motion::load(bodies, a), Motion::load(bodies, b));
            let frame = JointFrame {
                body_a: a,
                body_b: b,
                anchor_a: Vector::new(1.0, 0.5, 0.0),
                anchor_b: Vector::new(-1.0, 0.5, 0.0),
                separation: Vector::zeros(),
                rotations: (crate::Quaternion::identity(), crate::Quaternion::identity()),
            };
            PointRow::new(&frame, &ma, &mb, soft, Vector::zeros())
        };
        let rigid = [step.joint.stabilisation, Softness::RIGID];
        let soft = [Softness::spring(5.0, 0.5, step.h); 2];
        let mut kept = Solver {
            points: vec![
                part(&bodies, 7, 15, rigid),
                part(&bodies, 15, 23, rigid),
                part(&bodies, 23, 31, rigid),
                part(&bodies, 39, 47, soft),
                part(&bodies, 30, 38, soft),
            ],
            contacts,
            ..Solver::default()
        };
        kept.solve(&mut bodies, &step);
        assert!(kept.chains.chained[..3].iter().all(|&c| c));
        // Nothing changed; a soft part moved onto a body of the other (the chains as they
        // were: the two may no longer share a colour); a link of the chain gone.
        for change in 0..3 {
            if change == 1 {
                kept.points[4] = part(&bodies, 39, 46, soft);
            }
            if change == 2 {
                kept.points.remove(1);
            }
            let what = format!("{simd:?} {change}");
            step_beside_fresh(&mut kept, &mut bodies, &step, &what);
        }
    }
}

/// A solver that keeps its contacts' colours while the contacts join the same bodies ends
/// every step where a fresh one ends, on every lane count, as contacts change under it:
/// none; one moved onto another pair of bodies; one given a fifth point (which the wide
/// kernel does not take); one gone; the lane count changed.
#[test]
fn kept_contact_colours_end_where_fresh_ones_end() {
    let settings_of = |simd| SolverSettings {
        simd,
        ..SolverSettings::default()
    };
    for simd in [SimdWidth::Scalar, SimdWidth::Four, SimdWidth::Eight] {
        let step = StepContext::new(&settings_of(simd), 1.0 / 60.0, &Vector::zeros());
        let (mut bodies, contacts) = columns(&mut Lcg(9));
        let mut kept = Solver {
            contacts,
            ..Solver::default()
        };
        kept.solve(&mut bodies, &step);
        for change in 0..5 {
            let mut settings = settings_of(simd);
            match change {
                1 => kept.contacts[9].body_a = 20,
                2 => {
                    let extra = kept.contacts[12].points[0];
                    kept.contacts[12].points.push(extra);
                }
                3 => {
                    kept.contacts.remove(30);
                }
                4 => {
                    settings.simd = match simd {
                        SimdWidth::Four => SimdWidth::Eight,
                        _ => SimdWidth::Four,
                    }
                }
                _ => {}
            }
            let what = format!("{simd:?} {change}");
            let step = StepContext::new(&settings, 1.0 / 60.0, &Vector::zeros());
            step_beside_fresh(&mut kept, &mut bodies, &step, &what);
        }
    }
}

/// Cubes (equal moments) take the short inertia products, and end a step exactly where
/// the full products take them, on every lane count, joints and contacts; bodies with
/// unequal moments are not taken for cubes.
#[test]
fn equal_moments_take_the_short_products_to_the_same_end() {
    let cubes = |rng: &mut Lcg| Vector::repeat(0.15 + 0.05 * rng.next());
    assert!(bundle::isotropic(&columns_of(&mut Lcg(3), cubes).0));
    assert!(!bundle::isotropic(&columns(&mut Lcg(3)).0));
    assert!(bundle::isotropic(&Bodies::default()));
    let setup = |full, bodies: &Bodies| {
        let mut solver = Solver {
            full_inertia: full,
            ..Solver::default()
        };
        assert_eq!(solver.step_shape(bodies).isotropic, !full);
        // Rigid ball joints between neighbouring columns' tops, solved in lanes.
        for top in [7u32, 15, 23] {
            let (a, b) = (Motion::load(bodies, top), Motion::load(bodies, top + 8));
            let frame = JointFrame {
                body_a: top,
                body_b: top + 8,
                anchor_a: Vector::new(1.0, 0.5, 0.0),
                anchor_b: Vector::new(-1.0, 0.5, 0.0),
                separation: Vector::zeros(),
                rotations: (crate::Quaternion::identity(), crate::Quaternion::identity()),
            };
            let rigid = [Softness::RIGID; 2];
            solver
                .points
                .push(PointRow::new(&frame, &a, &b, rigid, Vector::zeros()));
        }
        solver
    };
    both_ways(
        || columns_of(&mut Lcg(11), cubes),
        setup,
        |simd, short, full| {
            for (short, full) in short.iter().zip(full) {
                assert_eq!(short.linear_velocity, full.linear_velocity, "{simd:?}");
                assert_eq!(short.angular_velocity, full.angular_velocity, "{simd:?}");
            }
        },
    );
}

/// Contacts of one or two points (spheres, capsules, edges) take as many point slots in
/// the passes as the step's largest contact, and end exactly where solving all four slots
/// ends, on every lane count; the slots counted are the most any contact has.
#[test]
fn the_passes_solve_only_the_points_contacts_have() {
    let fewer = || {
        let (bodies, mut contacts) = columns(&mut Lcg(5));
        for (i, c) in contacts.iter_mut().enumerate() {
            c.points.truncate(1 + i % 2);
        }
        (bodies, contacts)
    };
    let (bodies, contacts) = fewer();
    let solver = Solver {
        contacts,
        ..Solver::default()
    };
    assert_eq!(solver.step_shape(&bodies).points, 2);
    let setup = |all, _: &Bodies| Solver {
        all_points: all,
        ..Solver::default()
    };
    both_ways(fewer, setup, |simd, fewer, all| {
        for (fewer, all) in fewer.iter().zip(all) {
            assert_eq!(fewer.linear_velocity, all.linear_velocity, "{simd:?}");
            assert_eq!(fewer.angular_velocity, all.angular_velocity, "{simd:?}");
        }
    });
}

//! The contact solver's kernel: one set of contacts prepared (into lanes, or one by one) and
//! solved for a whole step (the default substeps, each a warm start, a biased and a relax pass:
//! 21 passes over every contact at 7), with the scalar path and with 4 and 8 lanes. The set: 20 columns of 20 unit cubes, each resting on
//! the one below with four corner points, the bottom row on static ground (400 contacts,
//! 1,600 points), colours alternating up each column.
//!
//! `cargo bench -p sprung-benches --bench solver`

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use nalgebra::{Matrix3, UnitQuaternion, Vector3};
use sprung_solver::body::{Bodies, BodySim, BodyState, STATIC};
use sprung_solver::contact::{Contact, ContactMaterial, ContactPointInput};
use sprung_solver::kernels::SimdWidth;
use sprung_solver::pgs::Solver;
use sprung_solver::settings::SolverSettings;
use sprung_solver::step::StepContext;

const COLUMNS: usize = 20;
const ROWS: usize = 20;
const DT: f32 = 1.0 / 60.0;

/// The bodies (unit cubes of 1 kg) and their contacts, as the engine hands them over.
fn stack() -> (Bodies, Vec<Contact>) {
    let mut bodies = Bodies::default();
    let inertia = 1.0 / 6.0;
    for c in 0..COLUMNS {
        for r in 0..ROWS {
            bodies.push(
                BodyState::moving(Vector3::zeros(), Vector3::zeros()),
                BodySim {
                    inv_mass: 1.0,
                    inv_inertia: Matrix3::identity() / inertia,
                    principal_inertia: Vector3::repeat(inertia),
                    principal_frame: UnitQuaternion::identity(),
                    gyroscopic: false,
                    position: Vector3::new(2.0 * c as f32, 0.5 + r as f32, 0.0),
                    rotation: UnitQuaternion::identity(),
                    linear_acceleration: Vector3::new(0.0, -9.81, 0.0),
                    angular_acceleration: Vector3::zeros(),
                    linear_damping: 0.0,
                    angular_damping: 0.0,
                },
            );
        }
    }
    let material = ContactMaterial {
        friction: 0.6,
        ..ContactMaterial::default()
    };
    let mut contacts = Vec::new();
    for c in 0..COLUMNS {
        for r in 0..ROWS {
            let upper = (c * ROWS + r) as u32;
            let lower = if r == 0 { STATIC } else { upper - 1 };
            let points = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
                .iter()
                .map(|&(x, z)| ContactPointInput {
                    // From the lower body's centre (for the ground, its anchors are never read
                    // as a lever: it has no inverse mass) and from the upper's.
                    anchor_a: Vector3::new(x, 0.5, z),
                    anchor_b: Vector3::new(x, -0.5, z),
                    separation: -0.001,
                    normal_impulse: 9.81 * DT / 4.0 * (ROWS - r) as f32,
                    max_normal_impulse: 0.0,
                })
                .collect();
            contacts.push(Contact {
                body_a: lower,
                body_b: upper,
                normal: Vector3::y(),
                material,
                points,
                user_index: contacts.len() as u32,
                ..Contact::default()
            });
        }
    }
    (bodies, contacts)
}

fn contact_solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("contact_solve_step");
    group.throughput(Throughput::Elements((COLUMNS * ROWS) as u64));
    for (name, simd) in [
        ("scalar", SimdWidth::Scalar),
        ("4 lanes", SimdWidth::Four),
        ("8 lanes", SimdWidth::Eight),
    ] {
        let settings = SolverSettings {
            simd,
            ..SolverSettings::default()
        };
        let step = StepContext::new(&settings, DT, &Vector3::zeros());
        let (bodies, contacts) = stack();
        let mut solver = Solver::default();
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_batched(
                || (bodies.clone(), contacts.clone()),
                |(mut bodies, contacts)| {
                    solver.contacts = contacts;
                    solver.solve(&mut bodies, &step);
                    bodies
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, contact_solve);
criterion_main!(benches);

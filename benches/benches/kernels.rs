//! Collision kernels, each beside parry3d's own query on the same inputs in the same run:
//! GJK distance, EPA depth, the box-box manifold, and a sweep-and-prune update of 8,000
//! moving proxies (beside parry3d's BVH: partial update, refit, self-traversal).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sprung_benches::{hull, pairs, Pair, Rng};
use sprung_collision::broad_phase::{BroadPhase, PairEvent};
use sprung_collision::contact::Manifold;
use sprung_collision::dispatch::manifold;
use sprung_collision::parry3d::bounding_volume::{Aabb, BoundingVolume};
use sprung_collision::parry3d::math::{Point, Real, Vector};
use sprung_collision::parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use sprung_collision::parry3d::query::{
    self, ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher,
};
use sprung_collision::shape::Shape;
use sprung_collision::{dispatch, epa};

const PAIRS: usize = 256;

fn boxes(rng: &mut Rng) -> (Shape, Shape) {
    let mut cuboid = || {
        Shape::cuboid(Vector::new(
            rng.range(0.2, 0.7),
            rng.range(0.2, 0.7),
            rng.range(0.2, 0.7),
        ))
        .unwrap()
    };
    (cuboid(), cuboid())
}

fn hulls(rng: &mut Rng) -> (Shape, Shape) {
    (hull(rng), hull(rng))
}

fn capsule_box(rng: &mut Rng) -> (Shape, Shape) {
    let c = Shape::capsule(rng.range(0.1, 0.6), rng.range(0.1, 0.4)).unwrap();
    (c, boxes(rng).0)
}

type Maker = fn(&mut Rng) -> (Shape, Shape);
const KINDS: [(&str, Maker); 3] = [
    ("box-box", boxes),
    ("hull-hull", hulls),
    ("capsule-box", capsule_box),
];

fn gjk_distance(c: &mut Criterion) {
    let mut group = c.benchmark_group("gjk_distance");
    group.throughput(Throughput::Elements(PAIRS as u64));
    for (name, make) in KINDS {
        let inputs = pairs(1, PAIRS, make, |d| d > 0.0);
        group.bench_with_input(
            BenchmarkId::new("sprung", name),
            &inputs,
            |bench, inputs| {
                bench.iter(|| {
                    inputs
                        .iter()
                        .map(|p| dispatch::distance(&p.a, &p.pose_a, &p.b, &p.pose_b).separation)
                        .sum::<Real>()
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("parry3d", name),
            &inputs,
            |bench, inputs| {
                bench.iter(|| {
                    inputs
                        .iter()
                        .map(|p| {
                            query::distance(&p.pose_a, p.a.as_parry(), &p.pose_b, p.b.as_parry())
                                .unwrap()
                        })
                        .sum::<Real>()
                })
            },
        );
    }
    group.finish();
}

fn epa_depth(c: &mut Criterion) {
    let mut group = c.benchmark_group("epa_depth");
    group.throughput(Throughput::Elements(PAIRS as u64));
    for (name, make) in KINDS {
        let inputs = pairs(2, PAIRS, make, |d| d <= 0.0);
        group.bench_with_input(
            BenchmarkId::new("sprung", name),
            &inputs,
            |bench, inputs| {
                bench.iter(|| {
                    inputs
                        .iter()
                        .filter_map(|p| epa::contact(&p.a, &p.pose_a, &p.b, &p.pose_b, 0.0))
                        .map(|c| c.separation)
                        .sum::<Real>()
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("parry3d", name),
            &inputs,
            |bench, inputs| {
                bench.iter(|| {
                    inputs
                        .iter()
                        .filter_map(|p| {
                            query::contact(
                                &p.pose_a,
                                p.a.as_parry(),
                                &p.pose_b,
                                p.b.as_parry(),
                                0.0,
                            )
                            .unwrap()
                        })
                        .map(|c| c.dist)
                        .sum::<Real>()
                })
            },
        );
    }
    group.finish();
}

fn box_box_manifold(c: &mut Criterion) {
    let mut group = c.benchmark_group("box_box_manifold");
    group.throughput(Throughput::Elements(PAIRS as u64));
    // Boxes resting on boxes (the case a stack makes every step) and random overlapping poses.
    let mut rng = Rng(3);
    let resting: Vec<Pair> = (0..PAIRS)
        .map(|_| {
            let (a, b) = boxes(&mut rng);
            let pose_a = rng.pose(5.0);
            let (ha, hb) = match (&a, &b) {
                (Shape::Cuboid(ca), Shape::Cuboid(cb)) => (ca.half_extents.y, cb.half_extents.y),
                _ => unreachable!(),
            };
            let offset = Vector::new(rng.range(-0.1, 0.1), ha + hb - 0.005, rng.range(-0.1, 0.1));
            let pose_b = pose_a
                * sprung_collision::parry3d::math::Isometry::new(
                    offset,
                    Vector::y() * rng.range(-0.2, 0.2),
                );
            Pair {
                a,
                pose_a,
                b,
                pose_b,
            }
        })
        .collect();
    let random = pairs(4, PAIRS, boxes, |d| d <= 0.0);
    for (name, inputs) in [("resting", &resting), ("random", &random)] {
        group.bench_with_input(BenchmarkId::new("sprung", name), inputs, |bench, inputs| {
            let mut m = Manifold::default();
            bench.iter(|| {
                let mut n = 0;
                for p in inputs.iter() {
                    manifold(&p.a, &p.pose_a, &p.b, &p.pose_b, 0.02, &mut m);
                    n += m.points.len();
                }
                n
            })
        });
        group.bench_with_input(
            BenchmarkId::new("parry3d", name),
            inputs,
            |bench, inputs| {
                let mut m = ContactManifold::<(), ()>::new();
                bench.iter(|| {
                    let mut n = 0;
                    for p in inputs.iter() {
                        let pos12 = p.pose_a.inv_mul(&p.pose_b);
                        DefaultQueryDispatcher
                            .contact_manifold_convex_convex(
                                &pos12,
                                p.a.as_parry(),
                                p.b.as_parry(),
                                None,
                                None,
                                0.02,
                                &mut m,
                            )
                            .unwrap();
                        n += m.points.len();
                    }
                    n
                })
            },
        );
    }
    group.finish();
}

/// The step of the drift: a second forwards, a second back, so the boxes stay in their cells.
fn drift_dt(step: usize) -> Real {
    if (step / 60).is_multiple_of(2) {
        1.0 / 60.0
    } else {
        -1.0 / 60.0
    }
}

/// 8,000 boxes in a loose 20 x 20 x 20 grid, all drifting a little every update.
fn sap_update(c: &mut Criterion) {
    const N: usize = 8000;
    const MARGIN: Real = 0.05;
    let mut rng = Rng(5);
    let centres: Vec<Point<Real>> = (0..N)
        .map(|i| {
            Point::new(
                (i % 20) as Real * 1.1,
                ((i / 20) % 20) as Real * 1.1,
                (i / 400) as Real * 1.1,
            ) + rng.vector(0.2)
        })
        .collect();
    let velocities: Vec<Vector<Real>> = (0..N).map(|_| rng.vector(1.0)).collect();
    let aabb_at = |c: &Point<Real>| Aabb::new(c - Vector::repeat(0.5), c + Vector::repeat(0.5));
    let mut group = c.benchmark_group("sap_update_8000_moving");
    group.throughput(Throughput::Elements(N as u64));
    group.sample_size(30);

    group.bench_function("sprung", |bench| {
        let mut sap = BroadPhase::new(MARGIN);
        let ids: Vec<_> = centres
            .iter()
            .map(|c| sap.insert(aabb_at(c)).unwrap())
            .collect();
        let mut events: Vec<PairEvent> = Vec::new();
        sap.update(&mut events);
        let mut pos = centres.clone();
        let mut step = 0usize;
        bench.iter(|| {
            step += 1;
            let dt = drift_dt(step);
            for ((p, v), id) in pos.iter_mut().zip(&velocities).zip(&ids) {
                *p += v * dt;
                sap.set_aabb(*id, aabb_at(p));
            }
            events.clear();
            sap.update(&mut events);
            black_box(events.len())
        })
    });

    // parry3d's BVH as Rapier's broad phase drives it: each leaf given its tight box with a
    // change-detection margin (a leaf whose box left its fat box takes the new one and is marked
    // changed), a refit, and a traversal of the pairs that have a changed leaf. That is the
    // BVH's share of the same job; it still leaves to its caller the pairs that ended and the
    // pairs found again (sprung's update reports exact began and ended events).
    // The BVH over the grid's fat boxes, and those boxes.
    let fat_bvh = || {
        let leaves: Vec<Aabb> = centres
            .iter()
            .map(|c| aabb_at(c).loosened(MARGIN))
            .collect();
        (Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves), leaves)
    };
    group.bench_function("parry3d_bvh", |bench| {
        let (mut bvh, _) = fat_bvh();
        let mut workspace = BvhWorkspace::default();
        let mut pos = centres.clone();
        let mut step = 0usize;
        let mut found = Vec::new();
        bench.iter(|| {
            step += 1;
            let dt = drift_dt(step);
            for (i, (p, v)) in pos.iter_mut().zip(&velocities).enumerate() {
                *p += v * dt;
                bvh.insert_or_update_partially(aabb_at(p), i as u32, MARGIN);
            }
            bvh.refit(&mut workspace);
            found.clear();
            bvh.traverse_bvtt_single_tree::<true>(&mut workspace, &mut |a, b| found.push((a, b)));
            black_box(found.len())
        })
    });

    // The refit alone (a zero change-detection margin marks no leaf, so the traversal finds no
    // pair): the floor of keeping the tree, given for comparison. Before 2026-11-26 this was
    // the bench's "parry3d_bvh" line.
    group.bench_function("parry3d_bvh_refit_only", |bench| {
        let (mut bvh, mut fat) = fat_bvh();
        let mut workspace = BvhWorkspace::default();
        let mut pos = centres.clone();
        let mut step = 0usize;
        bench.iter(|| {
            step += 1;
            let dt = drift_dt(step);
            for (i, (p, v)) in pos.iter_mut().zip(&velocities).enumerate() {
                *p += v * dt;
                let tight = aabb_at(p);
                if !fat[i].contains(&tight) {
                    fat[i] = tight.loosened(MARGIN);
                    bvh.insert_or_update_partially(fat[i], i as u32, 0.0);
                }
            }
            bvh.refit(&mut workspace);
            black_box(bvh.root_aabb())
        })
    });
    group.finish();
}

criterion_group!(
    kernels,
    gjk_distance,
    epa_depth,
    box_box_manifold,
    sap_update
);
criterion_main!(kernels);

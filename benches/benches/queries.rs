//! World queries among moving bodies: 1,000 short rays (2 m, random, most hitting nothing)
//! among 100, 1,000 and 10,000 moving balls falling in a loose grid. A query must cost about
//! what it reaches, not the number of moving bodies (issue 15's target: 1,000 rays among
//! 10,000 in under 2 ms on one core).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use sprung::math::{Point, Real, Vector};
use sprung::{ColliderBuilder, QueryFilter, RigidBodyBuilder, World};
use sprung_demos::rng::Rng;

/// `n` balls of 0.3 m in a grid of 1.5 m spacing, high up, falling (stepped twice).
fn world_of(n: usize) -> World {
    let mut world = World::default();
    let side = (n as f64).cbrt().ceil() as usize;
    for i in 0..n {
        let (x, y, z) = (i % side, (i / side) % side, i / (side * side));
        let at = Vector::new(x as Real, y as Real + 20.0, z as Real) * 1.5;
        let body = world
            .add_body(RigidBodyBuilder::dynamic().translation(at))
            .expect("valid body");
        world
            .add_collider(ColliderBuilder::ball(0.3), body)
            .expect("valid ball");
    }
    for _ in 0..2 {
        world.step(1.0 / 60.0).expect("valid step");
    }
    world
}

fn rays(c: &mut Criterion) {
    let mut group = c.benchmark_group("rays_1000_short");
    group.sample_size(20);
    for n in [100, 1_000, 10_000] {
        let world = world_of(n);
        let extent = (n as f64).cbrt() as Real * 1.5;
        let mut rng = Rng(3);
        let rays: Vec<(Point<Real>, Vector<Real>)> = (0..1_000)
            .map(|_| {
                let origin = Point::new(0.0, 20.0, 0.0) + rng.vector(extent);
                let dir = rng.vector(1.0);
                (origin, dir.try_normalize(1e-3).unwrap_or(Vector::x()))
            })
            .collect();
        let filter = QueryFilter::new();
        group.bench_with_input(BenchmarkId::from_parameter(n), &rays, |b, rays| {
            b.iter(|| {
                let mut hits = 0;
                for (origin, dir) in rays {
                    let hit = world.cast_ray(*origin, *dir, 2.0, true, &filter);
                    hits += usize::from(hit.expect("valid ray").is_some());
                }
                black_box(hits)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, rays);
criterion_main!(benches);

//! The cost of a character's move against the cost of eight shape casts of the same capsule
//! among the same colliders (issue 44's target: a move costs at most eight casts). Both on the
//! `character` scene after 300 steps, where the 100 characters are on the stairs, the slope
//! and the platform: one bench updates all of them once (from the same state each time), the
//! other casts each one's capsule eight times along its last motion.

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use sprung::math::Real;
use sprung::QueryFilter;
use sprung_demos::find;

fn character(c: &mut Criterion) {
    let spec = find("character").expect("the character scene");
    let mut scene = (spec.build)();
    for _ in 0..300 {
        scene.step(spec.dt).expect("a valid step");
    }
    let dt: Real = spec.dt;
    let crowd = scene.crowd.take().expect("characters");
    let mut world = scene.world;
    let filter = QueryFilter::new();
    let mut group = c.benchmark_group("character_100");
    group.bench_function("move", |b| {
        b.iter_batched_ref(
            || crowd.characters.clone(),
            |characters| {
                for character in characters.iter_mut() {
                    character
                        .update(&mut world, crowd.goal, dt, &filter)
                        .expect("a valid update");
                }
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("eight_casts", |b| {
        b.iter(|| {
            let mut hits = 0;
            for character in &crowd.characters {
                let motion = character.velocity() * dt;
                for _ in 0..8 {
                    let hit = world.cast_shape_to(
                        character.shape(),
                        &character.pose(),
                        motion,
                        1.0,
                        0.01,
                        &filter,
                    );
                    hits += usize::from(matches!(hit, Ok(Some(_))));
                }
            }
            black_box(hits)
        })
    });
    group.finish();
}

criterion_group!(benches, character);
criterion_main!(benches);

//! The standard scenes, one step at a time, after they have settled for a second (the state a
//! running game spends its time in). `sprung bench` reports the same scenes from start to end.

use criterion::{criterion_group, criterion_main, Criterion};
use sprung_demos::find;

fn scenes(c: &mut Criterion) {
    let mut group = c.benchmark_group("scene_step");
    group.sample_size(20);
    for name in ["pyramid", "pyramid3d"] {
        let spec = find(name).expect("scene in the catalogue");
        let mut scene = (spec.build)();
        for _ in 0..60 {
            scene.world.step(spec.dt).expect("valid dt");
        }
        group.bench_function(name, |b| {
            b.iter(|| scene.world.step(spec.dt).expect("valid dt"))
        });
    }
    group.finish();
}

criterion_group!(benches, scenes);
criterion_main!(benches);

//! Determinism across the solver's paths: the same scene stepped with the scalar contact
//! kernel, with four lanes and with eight (AVX2 where the CPU has it), on one worker thread,
//! two or four, ends at the same bits of every body's pose and velocity. The lanes and the
//! workers' blocks of a colour share no moving body and do the same IEEE operations as the
//! scalar path on one thread, so any difference is a bug.

use sprung::SimdWidth;
use sprung_demos::find;

fn hash_with(name: &str, steps: usize, simd: SimdWidth, threads: u32) -> u64 {
    let spec = find(name).unwrap();
    let mut scene = (spec.build)();
    let settings = sprung::SolverSettings {
        simd,
        threads,
        ..*scene.world.settings()
    };
    scene.world.set_settings(settings).unwrap();
    for _ in 0..steps {
        scene.step(spec.dt).unwrap();
    }
    scene.state_hash()
}

#[test]
fn every_lane_count_and_thread_count_gives_the_same_bits() {
    for (name, steps) in [
        ("pyramid", 60),
        ("pyramid3d", 40),
        ("boxes", 60),
        ("balls", 20),
        ("convex", 40),
        ("joint_grid", 20),
        ("spring_net", 30),
    ] {
        let scalar = hash_with(name, steps, SimdWidth::Scalar, 1);
        for simd in [SimdWidth::Four, SimdWidth::Eight, SimdWidth::Auto] {
            assert_eq!(
                hash_with(name, steps, simd, 1),
                scalar,
                "{name}: {simd:?} differs from the scalar path"
            );
        }
        for (simd, threads) in [
            (SimdWidth::Scalar, 2),
            (SimdWidth::Four, 2),
            (SimdWidth::Eight, 4),
        ] {
            assert_eq!(
                hash_with(name, steps, simd, threads),
                scalar,
                "{name}: {simd:?} on {threads} threads differs from the scalar path on one"
            );
        }
    }
}

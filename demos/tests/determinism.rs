//! Determinism across the solver's paths: the same scene stepped with the scalar contact
//! kernel, with four lanes and with eight (AVX2 where the CPU has it) ends at the same bits of
//! every body's pose and velocity. The lanes of a colour share no moving body and do the same
//! IEEE operations as the scalar path, so any difference is a bug.

use sprung::SimdWidth;
use sprung_demos::find;

fn hash_with(name: &str, steps: usize, simd: SimdWidth) -> u64 {
    let spec = find(name).unwrap();
    let mut scene = (spec.build)();
    let settings = sprung::SolverSettings {
        simd,
        ..*scene.world.settings()
    };
    scene.world.set_settings(settings).unwrap();
    for _ in 0..steps {
        scene.step(spec.dt).unwrap();
    }
    scene.state_hash()
}

#[test]
fn scalar_four_and_eight_lanes_give_the_same_bits() {
    for (name, steps) in [
        ("pyramid", 60),
        ("pyramid3d", 40),
        ("boxes", 60),
        ("balls", 20),
        ("convex", 40),
        ("joint_grid", 20),
    ] {
        let scalar = hash_with(name, steps, SimdWidth::Scalar);
        for simd in [SimdWidth::Four, SimdWidth::Eight, SimdWidth::Auto] {
            assert_eq!(
                hash_with(name, steps, simd),
                scalar,
                "{name}: {simd:?} differs from the scalar path"
            );
        }
    }
}

//! Determinism across the solver's paths: the same scene stepped with the scalar contact
//! kernel, with four lanes and with eight (AVX2 where the CPU has it), on one worker thread,
//! two or four, ends at the same bits of every body's pose and velocity. The lanes and the
//! workers' blocks of a colour share no moving body and do the same IEEE operations as the
//! scalar path on one thread, so any difference is a bug. (A step runs on at most the
//! machine's cores: on two cores, four threads run as two; without the `parallel` feature,
//! every count runs as one.)

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

/// Every step's events of `name` with `threads` workers (sleeping on, as the scene says),
/// written out without their handles' world (each world has its own).
fn events_with(name: &str, steps: usize, threads: u32) -> Vec<Vec<String>> {
    let spec = find(name).unwrap();
    let mut scene = (spec.build)();
    let settings = sprung::SolverSettings {
        threads,
        ..*scene.world.settings()
    };
    scene.world.set_settings(settings).unwrap();
    (0..steps)
        .map(|_| {
            scene.step(spec.dt).unwrap();
            let events: Vec<sprung::Event> = scene.world.drain_events().collect();
            events
                .iter()
                .map(|e| without_world(&format!("{e:?}")))
                .collect()
        })
        .collect()
}

/// `text` without its `world: N, ` fields.
fn without_world(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("world: ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "world: ".len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        rest = after[digits..].trim_start_matches(", ");
    }
    out.push_str(rest);
    out
}

/// The contacts handed to the solver and the touches reported after it are made block by
/// block on the narrow phase's workers (`build_contacts`, `report_touching`): the events come
/// out in the same order, with the same impulses, on any number of threads. `boxes` makes and
/// ends contacts by the thousand as its boxes land; in `convex`, between steps 220 and 230, a
/// hull wakes others gone to sleep, whose pairs the narrow phase had left as they were (their
/// contacts then outgrow the room counted for them: the one-walk fallback).
#[test]
fn every_thread_count_reports_the_same_events() {
    for (name, steps) in [("pyramid", 30), ("boxes", 150), ("convex", 240)] {
        let one = events_with(name, steps, 1);
        assert!(
            one.iter().map(Vec::len).sum::<usize>() > 100,
            "{name}: too few events"
        );
        for threads in [2, 4] {
            let many = events_with(name, steps, threads);
            for (step, (a, b)) in one.iter().zip(&many).enumerate() {
                assert_eq!(
                    a, b,
                    "{name}, step {step}: {threads} threads differ from one"
                );
            }
        }
    }
}

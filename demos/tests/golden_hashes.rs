//! Golden hashes: every scene of the catalogue, stepped a fixed number of times, ends at
//! exactly the bits it ended at when the hash was pinned. A change that moves a hash must say
//! why in its commit message, and update the table here.
//!
//! The hashes are those of x86-64 Linux with the default (SSE2, no fused multiply-add) build:
//! the engine promises bit-identical results on one machine and build, not across CPU
//! architectures or math libraries, so the table is only checked there.

use sprung_demos::{catalogue, find};

/// Steps run per scene before hashing (fewer for the largest scenes, to keep CI short).
fn steps(name: &str) -> usize {
    match name {
        "boxes" | "balls" | "joint_grid100" | "many_pyramids" | "large_pyramid" => 30,
        _ => 60,
    }
}

fn hash_after(name: &str) -> u64 {
    let spec = find(name).unwrap();
    let mut scene = (spec.build)();
    for _ in 0..steps(name) {
        scene.step(spec.dt).unwrap();
    }
    scene.state_hash()
}

/// (scene, hash after `steps(scene)` steps).
const GOLDEN: &[(&str, u64)] = &[
    ("pyramid", 0xc052a23480cc3d89),
    ("pyramid3d", 0x353333c79b00d87a),
    ("boxes", 0x420f13a00aa27cf7),
    ("balls", 0x540867c13c4ed8d2),
    ("convex", 0xc725062c5ff0018a),
    ("joint_grid", 0x709b67a17a8a4220),
    ("spring_net", 0xc25bf69795ffb17e),
    ("rope", 0xd2af0f9165fc4110),
    ("cloth", 0xab84a446c1785c27),
    ("bullet", 0x05c9f08961f6d2f3),
    ("large_pyramid", 0x9c8699cdeade00c7),
    ("many_pyramids", 0x0b66a8d174470e42),
    ("joint_grid100", 0x79175ca78e731c8e),
];

#[test]
fn every_scene_ends_at_its_pinned_hash() {
    let mut wrong = Vec::new();
    for spec in catalogue() {
        let hash = hash_after(spec.name);
        match GOLDEN.iter().find(|(name, _)| *name == spec.name) {
            Some(&(_, pinned)) if pinned == hash => {}
            Some(&(_, pinned)) => wrong.push(format!(
                "{}: {hash:#018x}, pinned {pinned:#018x}",
                spec.name
            )),
            None => wrong.push(format!("{}: {hash:#018x}, not pinned", spec.name)),
        }
    }
    if cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        assert!(wrong.is_empty(), "hashes moved:\n{}", wrong.join("\n"));
    }
}

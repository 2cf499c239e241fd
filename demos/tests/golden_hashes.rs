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
    ("pyramid", 0x2ca8d2754c59fa1a),
    ("pyramid3d", 0x9fa2e76db1bc20b2),
    ("boxes", 0x71d01473369d349f),
    ("balls", 0xb3a3557043c7a716),
    ("convex", 0x3ffdb8729845cb3c),
    ("joint_grid", 0xe5608d19d17a4395),
    ("spring_net", 0x2c990e2b30bdaf25),
    ("rope", 0xd2af0f9165fc4110),
    ("cloth", 0xab84a446c1785c27),
    ("bullet", 0x995d94fe2ded0ad1),
    ("large_pyramid", 0x780ca5e095601c37),
    ("many_pyramids", 0x5c7fcaadedf03b33),
    ("joint_grid100", 0xb67e4f4279c305df),
    ("character", 0xf1fe35b6d9797912),
    ("vehicles", 0x86be1e4ea8b3b915),
    ("ragdolls", 0x9a147f68f7af13be),
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

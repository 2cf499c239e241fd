//! The standard scenes pass their checks as SCENES.md states them, and the same world stepped
//! the same way ends bit for bit where it ended before.

use sprung_demos::find;

fn run(name: &str, steps: usize) -> sprung_demos::Scene {
    let spec = find(name).unwrap();
    let mut scene = (spec.build)();
    for _ in 0..steps {
        scene.step(spec.dt).unwrap();
    }
    scene
}

#[test]
fn pyramid_stands() {
    let spec = find("pyramid").unwrap();
    let scene = run("pyramid", spec.steps);
    let figures = scene.figures();
    assert!(figures.iter().all(|f| f.ok), "{figures:?}");
}

#[test]
fn pyramid3d_stands() {
    let spec = find("pyramid3d").unwrap();
    let scene = run("pyramid3d", spec.steps);
    let figures = scene.figures();
    assert!(figures.iter().all(|f| f.ok), "{figures:?}");
}

/// Every pose bit, hashed: equal across two runs of the same scene.
#[test]
fn stepping_is_deterministic() {
    let hash = |scene: &sprung_demos::Scene| {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for (handle, _) in &scene.tracked {
            let pose = scene.world.body(*handle).unwrap().pose();
            for x in pose
                .translation
                .vector
                .iter()
                .chain(pose.rotation.coords.iter())
            {
                h = (h ^ x.to_bits() as u64).wrapping_mul(0x100_0000_01b3);
            }
        }
        h
    };
    // Awake throughout, so that every step moves something (the settled pyramid would sleep).
    let awake = |steps: usize| {
        let spec = find("pyramid3d").unwrap();
        let mut scene = (spec.build)();
        scene.world.sleep.enabled = false;
        for _ in 0..steps {
            scene.step(spec.dt).unwrap();
        }
        scene
    };
    let a = awake(120);
    let b = awake(120);
    assert_eq!(hash(&a), hash(&b));
    // And the scene did move (the hash is not of a frozen world).
    let c = awake(121);
    assert_ne!(hash(&a), hash(&c));
}

#[test]
fn spring_net_joint_grid_and_the_toolkit_scenes_pass() {
    for name in ["spring_net", "joint_grid", "rope", "cloth"] {
        let spec = find(name).unwrap();
        let scene = run(name, spec.steps);
        let figures = scene.figures();
        assert!(
            !figures.is_empty() && figures.iter().all(|f| f.ok),
            "{name}: {figures:?}"
        );
    }
}

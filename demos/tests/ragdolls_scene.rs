//! The `ragdolls` scene: 100 humanoids dropped into a bin fall into a pile with every joint
//! together and within its limits, none lost (its checks at the end; within 5 mm and 3 degrees
//! at every 60th step on the way);
//! and it ends at the same bits on 1, 2 and 4 threads, as does every joint scene (issue 46's
//! test 4).

use sprung_demos::{find, worst_joints};

#[test]
fn the_pile_holds_every_joint_together_and_within_its_limits() {
    let spec = find("ragdolls").unwrap();
    let mut scene = (spec.build)();
    assert_eq!(scene.ragdolls.len(), sprung_demos::RAGDOLLS);
    for step in 1..=spec.steps {
        scene.step(spec.dt).unwrap();
        // Sampled once a second: in the thick of the fall (1 s) a joint stood 4.0 mm apart and
        // a limit passed by 2.5 degrees (measured); the scene's own checks, at the end, hold
        // 1 cm and 2. (Between samples the layers' impact parts a joint by up to 13 mm and
        // passes a limit by up to 5.4 degrees: the feet-first weakness of issue 46's note.)
        if step % 60 == 0 {
            let (apart, past) = worst_joints(&scene.world, &scene.ragdolls);
            assert!(apart < 0.005, "step {step}: a joint {apart} m apart");
            assert!(
                past.to_degrees() < 3.0,
                "step {step}: a limit passed by {past} rad"
            );
        }
    }
    for f in &scene.figures() {
        assert!(f.ok, "{} = {} ({})", f.name, f.value, f.limit);
    }
}

#[test]
fn ragdolls_and_the_joint_scenes_are_the_same_on_every_thread_count() {
    for name in ["ragdolls", "joint_grid", "spring_net", "joint_grid100"] {
        let spec = find(name).unwrap();
        let hash = |threads| spec.hash_after(60, threads).unwrap();
        let one = hash(1);
        assert_eq!(hash(2), one, "{name}");
        assert_eq!(hash(4), one, "{name}");
    }
}

//! The `character` scene: every character crosses the course (mesh floor, ramp, stairs, slope,
//! moving platform, crates), riding the platform and pushing the crates on the way, none ever
//! nearer a collider than half its skin; and it ends at the same bits on 1, 2 and 4 threads.

use sprung::math::Real;
use sprung::BodyKind;
use sprung_demos::find;

#[test]
fn every_character_walks_the_course_riding_the_platform_and_pushing_the_crates() {
    let spec = find("character").unwrap();
    let mut scene = (spec.build)();
    let platform = scene
        .world
        .bodies()
        .find(|(_, b)| b.kind() == BodyKind::Kinematic)
        .map(|(h, _)| h)
        .unwrap();
    let crates: Vec<_> = scene.tracked.iter().map(|(h, p)| (*h, *p)).collect();
    let (mut rode, mut highest): (usize, Real) = (0, 0.0);
    for _ in 0..spec.steps {
        scene.step(spec.dt).unwrap();
        let crowd = scene.crowd.as_ref().unwrap();
        for c in &crowd.characters {
            rode += usize::from(c.ground().body == Some(platform));
            highest = highest.max(c.position().y);
        }
    }
    let figures = scene.figures();
    for f in &figures {
        assert!(f.ok, "{} = {} ({})", f.name, f.value, f.limit);
    }
    assert_eq!(figures.len(), 4);
    // On the 1.8 m top of the stairs: 1.8 + 0.92 at rest.
    assert!((highest - 2.72).abs() < 0.01, "highest centre {highest}");
    // Each character is on the 4 m platform for about a second at 4 m/s: 60 updates each.
    assert!(rode > 100 * 40, "{rode} character-updates on the platform");
    for (handle, start) in crates {
        let moved = scene.world.body(handle).unwrap().translation() - start.translation.vector;
        assert!(moved.x > 0.5, "a crate was pushed only {moved:?}");
    }
}

#[test]
fn the_character_scene_is_the_same_on_every_thread_count() {
    let spec = find("character").unwrap();
    let hash = |threads| spec.hash_after(300, threads).unwrap();
    let one = hash(1);
    assert_eq!(hash(2), one);
    assert_eq!(hash(4), one);
}

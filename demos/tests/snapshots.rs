//! Snapshots: a world saved and restored steps on exactly as the original would have (the state
//! hash after N + M steps is the same), and bytes that are not a whole, current snapshot are a
//! typed error, never a panic.

use sprung::math::{Point, Real, Vector};
use sprung::vehicle::{VehicleBuilder, VehicleInput};
use sprung::{
    ColliderBuilder, Error, JointBuilder, RigidBodyBuilder, SnapshotError, Spring, World,
    SNAPSHOT_VERSION,
};
use sprung_demos::find;

/// The scene stepped `first` steps, saved, restored into a fresh world, and stepped `then`
/// more, against the same scene stepped `first + then` without a break.
fn round_trip(name: &str, first: usize, then: usize) {
    let spec = find(name).unwrap();
    let mut straight = (spec.build)();
    let mut interrupted = (spec.build)();
    let start = straight.world.state_hash();
    for _ in 0..first {
        straight.step(spec.dt).unwrap();
        interrupted.step(spec.dt).unwrap();
    }
    let bytes = interrupted.world.save();
    let mut restored = World::restore(&bytes).unwrap();
    assert_eq!(
        restored.state_hash(),
        interrupted.world.state_hash(),
        "{name}"
    );
    // Saving the restored world gives the same world again.
    assert_eq!(
        World::restore(&restored.save()).unwrap().state_hash(),
        restored.state_hash()
    );
    for _ in 0..then {
        straight.step(spec.dt).unwrap();
        restored.step(spec.dt).unwrap();
    }
    assert_eq!(restored.state_hash(), straight.world.state_hash(), "{name}");
    assert_ne!(restored.state_hash(), start, "{name}: the scene moved");
}

#[test]
fn standard_scenes_step_on_from_a_snapshot_bit_for_bit() {
    // The 300 + 300 where a scene is cheap; the larger ones shorter, to keep CI short.
    for (name, first, then) in [
        ("pyramid", 150, 150),
        ("convex", 40, 40),
        ("spring_net", 300, 300),
        ("bullet", 20, 40),
        ("joint_grid", 30, 30),
    ] {
        round_trip(name, first, then);
    }
}

/// A world with what the scenes lack: removals (free slots), a world joint (the hidden anchor),
/// a joint that turns collision off, an excluded pair, a sensor, a kinematic body, sleepers.
fn busy_world() -> World {
    let mut world = World::default();
    let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vector::y()), ground)
        .unwrap();
    let mut cubes = Vec::new();
    for i in 0..8 {
        let body = world
            .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(
                (i % 4) as Real * 1.5,
                0.5 + (i / 4) as Real * 1.01,
                0.0,
            )))
            .unwrap();
        world
            .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), body)
            .unwrap();
        cubes.push(body);
    }
    world.remove_body(cubes[2]).unwrap();
    world.remove_body(cubes[5]).unwrap();
    let spring = Spring::Frequency {
        hertz: 2.0,
        damping_ratio: 0.2,
    };
    world
        .add_world_joint(
            JointBuilder::attachment(Point::origin(), Point::new(0.0, 3.0, 0.0), spring, 1e4),
            cubes[0],
        )
        .unwrap();
    // A cube floating on a ray spring: its ground point and impulses carry over.
    let hover = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(8.0, 1.5, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.25, 0.25, 0.25), hover)
        .unwrap();
    world
        .add_world_joint(
            JointBuilder::ray_spring(Point::origin(), -Vector::y(), 1.2, 3.0, spring),
            hover,
        )
        .unwrap();
    world
        .add_joint(
            JointBuilder::hinge(
                Point::new(0.75, 0.0, 0.0),
                Point::new(-0.75, 0.0, 0.0),
                Vector::z(),
                Vector::z(),
            )
            .collide(false),
            cubes[1],
            cubes[3],
        )
        .unwrap();
    world.set_pair_collision(cubes[6], cubes[7], false).unwrap();
    let sensor = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(3.0, 0.5, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(1.0).sensor(true), sensor)
        .unwrap();
    let platform = world
        .add_body(
            RigidBodyBuilder::kinematic()
                .translation(Vector::new(-3.0, 0.2, 0.0))
                .linear_velocity(Vector::new(0.0, 0.0, 0.3)),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(1.0, 0.2, 1.0), platform)
        .unwrap();
    // Level shapes, rebuilt through their constructors on restore, and a hull, kept as it was.
    let level = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(-8.0, 0.1, 0.0)))
        .unwrap();
    let heights = nalgebra::DMatrix::from_fn(4, 5, |r, c| 0.1 * (r as Real - c as Real).sin());
    world
        .add_collider(
            ColliderBuilder::heightfield(heights, Vector::new(4.0, 1.0, 4.0)),
            level,
        )
        .unwrap();
    let vertices = vec![
        Point::new(6.0, 0.1, -2.0),
        Point::new(10.0, 0.1, -2.0),
        Point::new(10.0, 0.3, 2.0),
        Point::new(6.0, 0.3, 2.0),
    ];
    world
        .add_collider(
            ColliderBuilder::trimesh(vertices, vec![[0, 2, 1], [0, 3, 2]]),
            ground,
        )
        .unwrap();
    let hull_points: Vec<Point<Real>> = (0..12)
        .map(|i| {
            let a = i as Real * 0.9;
            Point::new(0.5 * a.cos(), 0.4 * (a * 1.7).sin(), 0.5 * a.sin())
        })
        .collect();
    for (x, shape) in [
        (-8.0, ColliderBuilder::ball(0.3)),
        (8.0, ColliderBuilder::convex_hull(&hull_points)),
    ] {
        let body = world
            .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(x, 1.5, 0.3)))
            .unwrap();
        world.add_collider(shape, body).unwrap();
    }
    // A car driving a circle: its wheels' spin, impulses, gear and input carry over.
    let chassis = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 0.75, 8.0)))
        .unwrap();
    world
        .add_collider(
            ColliderBuilder::cuboid(2.0, 0.3, 0.8).density(1500.0 / 3.84),
            chassis,
        )
        .unwrap();
    let car = world.add_vehicle(VehicleBuilder::car(chassis)).unwrap();
    let input = VehicleInput {
        throttle: 0.6,
        steering: 0.5,
        ..VehicleInput::default()
    };
    world.set_vehicle_input(car, input).unwrap();
    world
}

#[test]
fn a_busy_world_steps_on_from_a_snapshot_bit_for_bit() {
    for first in [0, 1, 37, 90] {
        let (mut straight, mut interrupted) = (busy_world(), busy_world());
        for _ in 0..first {
            straight.step(1.0 / 60.0).unwrap();
            interrupted.step(1.0 / 60.0).unwrap();
        }
        let mut restored = World::restore(&interrupted.save()).unwrap();
        for _ in 0..150 {
            straight.step(1.0 / 60.0).unwrap();
            restored.step(1.0 / 60.0).unwrap();
        }
        assert_eq!(
            restored.state_hash(),
            straight.state_hash(),
            "after {first}"
        );
        // The wheels' state, bit for bit (the handles inside differ: two worlds' ids).
        let wheels = |w: &World| {
            let (_, car) = w.vehicles().next().unwrap();
            let states = car.wheels().iter().map(|wheel| {
                let s = wheel.state;
                [
                    s.spin,
                    s.rotation,
                    s.load,
                    s.lateral_force,
                    s.suspension_length,
                ]
                .map(f32::to_bits)
            });
            (car.gear(), car.rpm().to_bits(), states.collect::<Vec<_>>())
        };
        assert_eq!(wheels(&restored), wheels(&straight), "after {first}");
        let (_, car) = straight.vehicles().next().unwrap();
        assert!(car.wheels()[2].state.spin > 1.0);
        // Handles of the saved world work in the restored one, and slots are reused the same
        // way (the hash covers each body's slot and generation).
        for (handle, _) in interrupted.bodies() {
            assert!(restored.body(handle).is_some());
        }
        for w in [&mut straight, &mut restored] {
            w.add_body(RigidBodyBuilder::dynamic()).unwrap();
            w.add_body(RigidBodyBuilder::dynamic()).unwrap();
        }
        assert_eq!(
            restored.state_hash(),
            straight.state_hash(),
            "new slots after {first}"
        );
        let asleep = |w: &World| w.bodies().filter(|(_, b)| b.is_sleeping()).count();
        assert_eq!(asleep(&restored), asleep(&straight));
    }
}

#[test]
fn bytes_that_are_not_a_whole_current_snapshot_are_refused() {
    let mut world = busy_world();
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    let bytes = world.save();
    let err = |b: &[u8]| {
        World::restore(b).err().map(|e| match e {
            Error::Snapshot(s) => s,
            other => panic!("not a snapshot error: {other:?}"),
        })
    };
    assert_eq!(err(b""), Some(SnapshotError::NotASnapshot));
    assert_eq!(
        err(b"PK\x03\x04 a zip file"),
        Some(SnapshotError::NotASnapshot)
    );
    // Every truncation.
    for len in 8..bytes.len() {
        assert_eq!(err(&bytes[..len]), Some(SnapshotError::Truncated), "{len}");
    }
    // Another version.
    let mut other = bytes.clone();
    other[8..12].copy_from_slice(&(SNAPSHOT_VERSION + 1).to_le_bytes());
    assert_eq!(
        err(&other),
        Some(SnapshotError::UnsupportedVersion(SNAPSHOT_VERSION + 1))
    );
    // Any flipped bit of the payload.
    for at in (28..bytes.len()).step_by(7) {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x10;
        assert_eq!(err(&flipped), Some(SnapshotError::Corrupt), "{at}");
    }
    assert!(World::restore(&bytes).is_ok());
}

#[test]
fn payloads_that_decode_but_break_the_world_are_refused_without_a_panic() {
    let mut world = busy_world();
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    let payload = world.save()[28..].to_vec();
    assert!(World::restore_payload(&payload).is_ok());
    // Every single-byte change past the checksum: each is refused or restores a world that
    // steps without a panic and stays finite.
    let (mut refused, mut accepted) = (0, 0);
    for at in 0..payload.len() {
        for delta in [1u8, 0x80] {
            let mut bytes = payload.clone();
            bytes[at] = bytes[at].wrapping_add(delta);
            match World::restore_payload(&bytes) {
                Err(Error::Snapshot(_)) => refused += 1,
                Err(other) => panic!("not a snapshot error: {other:?}"),
                Ok(mut w) => {
                    accepted += 1;
                    for _ in 0..3 {
                        w.step(1.0 / 60.0).unwrap();
                    }
                    assert!(w
                        .bodies()
                        .all(|(_, b)| b.translation().iter().all(|x| x.is_finite())));
                }
            }
        }
    }
    assert!(
        refused > 0 && accepted > 0,
        "{refused} refused, {accepted} accepted"
    );
}

/// A payload the snapshot fuzzer found (fuzz/fuzz_targets/snapshot.rs): a height field whose
/// rows times columns overflowed inside parry3d's own deserialiser, a panic before any check
/// could run. Shapes are now read as what builds them and rebuilt through their constructors.
const HEIGHT_FIELD_OVERFLOW: &[u8] = &[
    0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a,
    0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x3b, 0x2c, 0x99, 0x00, 0x2a, 0x2a, 0x2a,
    0x2a, 0x2a, 0x2a, 0x2a, 0x40, 0xfe, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x2d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xdd, 0x80, 0x5b, 0x17, 0xbf, 0x29, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x07, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xdd, 0x80, 0x5b, 0x17, 0xbf, 0x29, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x07,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xfd, 0xff, 0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x2a, 0x2a, 0x2a, 0x2a, 0x40, 0xfe, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x65, 0x45, 0xfd, 0x45, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2d,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xdd, 0x80, 0x5b, 0x17, 0xbf, 0x29, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x07, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xdd,
    0x80, 0x5b, 0x17, 0xbf, 0x29, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x6b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc9,
    0x00, 0x00, 0x00, 0x00, 0x2f, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0x00, 0x6b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc9, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xff, 0xff, 0x3d, 0xff, 0x0a,
];

#[test]
fn fuzzer_findings_are_refused() {
    assert!(matches!(
        World::restore_payload(HEIGHT_FIELD_OVERFLOW),
        Err(Error::Snapshot(_))
    ));
}

/// The world of the snapshot fuzz target's edit mode (fuzz/fuzz_targets/snapshot.rs), stepped
/// until some of it sleeps: its payload, past the header.
fn fuzz_world_payload() -> Vec<u8> {
    let mut world = World::default();
    let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vector::y()), ground)
        .unwrap();
    let mut cubes = Vec::new();
    for i in 0..5 {
        let at = Vector::new(i as f32 * 1.2, 0.5, 0.0);
        let body = world
            .add_body(RigidBodyBuilder::dynamic().translation(at))
            .unwrap();
        world
            .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), body)
            .unwrap();
        cubes.push(body);
    }
    world.remove_body(cubes[1]).unwrap();
    let spring = Spring::Frequency {
        hertz: 2.0,
        damping_ratio: 0.5,
    };
    world
        .add_world_joint(
            JointBuilder::attachment(Point::origin(), Point::new(0.0, 2.0, 0.0), spring, 1e3),
            cubes[0],
        )
        .unwrap();
    world
        .add_joint(
            JointBuilder::ball(Point::origin(), Point::new(-1.2, 0.0, 0.0)),
            cubes[2],
            cubes[3],
        )
        .unwrap();
    for _ in 0..60 {
        world.step(1.0 / 60.0).unwrap();
    }
    assert!(world.bodies().any(|(_, b)| b.is_sleeping()));
    world.save()[28..].to_vec()
}

/// Every sleeping body's colliders stand where its pose puts them (the step takes them so).
fn sleeping_colliders_are_placed(world: &World) -> bool {
    world.bodies().all(|(_, body)| {
        body.colliders().iter().all(|&handle| {
            let c = world.collider(handle).unwrap();
            !body.is_sleeping() || *c.world_pose() == *body.pose() * *c.local_pose()
        })
    })
}

/// The snapshot fuzzer's input `6e 3a 22 52` (edit mode: one byte of the payload set to
/// 0x52) moved a sleeping cube's x from 2.4 to 2.3957 (the float's second byte, 0x99 to 0x52)
/// and left its collider where it was: the payload was accepted and the next step stopped on a
/// debug assertion (in a release build, the cube stepped on 4 mm from its collider). Now that
/// edit is refused wherever the payload holds the cube's x (found by its bits, so that the test
/// follows the layout); and every one-byte change of the payload is refused or restores a world
/// whose sleeping colliders are placed, which steps (with debug assertions, in the tests'
/// profile) and stays finite.
#[test]
fn a_sleeping_body_moved_away_from_its_colliders_is_refused() {
    let payload = fuzz_world_payload();
    let x = 2.4f32.to_le_bytes();
    let places: Vec<usize> = (0..payload.len() - 3)
        .filter(|&at| payload[at..at + 4] == x)
        .collect();
    let refused = places.iter().filter(|&&at| {
        let mut edited = payload.clone();
        edited[at + 1] = 0x52;
        match World::restore_payload(&edited) {
            Err(Error::Snapshot(_)) => true,
            Ok(world) => {
                assert!(sleeping_colliders_are_placed(&world), "x at {at}");
                false
            }
            Err(other) => panic!("{other:?}"),
        }
    });
    assert!(
        refused.count() > 0,
        "the fuzzer's edit is refused: {places:?}"
    );
    for at in 0..payload.len() {
        for delta in [1u8, 0x80] {
            let mut bytes = payload.clone();
            bytes[at] = bytes[at].wrapping_add(delta);
            if let Ok(mut world) = World::restore_payload(&bytes) {
                assert!(sleeping_colliders_are_placed(&world), "byte {at} + {delta}");
                for _ in 0..3 {
                    world.step(1.0 / 60.0).unwrap();
                }
                assert!(world
                    .bodies()
                    .all(|(_, b)| b.translation().iter().all(|x| x.is_finite())));
            }
        }
    }
}

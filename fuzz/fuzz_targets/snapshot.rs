//! Bytes into sprung's snapshot loading: `World::restore` on raw bytes, `World::restore_payload`
//! (past the checksum) on raw bytes, and on a real payload (with a car driving) with bytes
//! changed: never a panic;
//! a world that is restored steps three times and stays finite.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sprung::math::{Isometry, Point, UnitQuaternion, Vector};
use sprung::vehicle::{VehicleBuilder, VehicleInput};
use sprung::{
    ColliderBuilder, JointBuilder, RagdollBuilder, RagdollPose, RigidBodyBuilder, Spring, World,
};

/// A small world with most of what a snapshot holds, stepped until some of it sleeps.
fn payload() -> &'static [u8] {
    static PAYLOAD: OnceLock<Vec<u8>> = OnceLock::new();
    PAYLOAD.get_or_init(|| {
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
        // A car on the move: its wheels' state, drive train and input are in the payload.
        let at = Vector::new(0.0, 0.75, 6.0);
        let chassis = world
            .add_body(RigidBodyBuilder::dynamic().translation(at))
            .unwrap();
        world
            .add_collider(
                ColliderBuilder::cuboid(2.0, 0.3, 0.8).density(390.0),
                chassis,
            )
            .unwrap();
        let car = world.add_vehicle(VehicleBuilder::car(chassis)).unwrap();
        let input = VehicleInput {
            throttle: 0.5,
            steering: 0.3,
            ..VehicleInput::default()
        };
        world.set_vehicle_input(car, input).unwrap();
        // A ragdoll driven towards a pose: its swing-twist joints, hinges, drives and the
        // ragdoll's record are in the payload.
        let at = Isometry::translation(-6.0, 0.5, 0.0);
        let ragdoll = world.add_ragdoll(&RagdollBuilder::humanoid(), at).unwrap();
        let mut pose = RagdollPose::bind(15);
        pose.targets[3] = UnitQuaternion::from_scaled_axis(Vector::x() * -0.5);
        world
            .drive_ragdoll(ragdoll, Some((&pose, spring, 100.0)))
            .unwrap();
        for _ in 0..60 {
            world.step(1.0 / 60.0).unwrap();
        }
        world.save()[28..].to_vec()
    })
}

fn step_finite(mut world: World) {
    for _ in 0..3 {
        world.step(1.0 / 60.0).unwrap();
    }
    for (_, b) in world.bodies() {
        assert!(b.translation().iter().all(|x| x.is_finite()));
        assert!(b.linear_velocity().iter().all(|x| x.is_finite()));
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => {
            if let Ok(world) = World::restore(rest) {
                step_finite(world);
            }
        }
        1 => {
            if let Ok(world) = World::restore_payload(rest) {
                step_finite(world);
            }
        }
        _ => {
            // Edits of a real payload: (position, new byte) pairs.
            let mut bytes = payload().to_vec();
            for edit in rest.chunks_exact(3) {
                let at = u16::from_le_bytes([edit[0], edit[1]]) as usize % bytes.len();
                bytes[at] = edit[2];
            }
            if let Ok(world) = World::restore_payload(&bytes) {
                step_finite(world);
            }
        }
    }
});

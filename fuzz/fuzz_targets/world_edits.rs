//! Bytes into a sequence of world edits through sprung's public API (add and remove bodies,
//! colliders, joints and vehicles, set poses, velocities, forces, settings, gravity, a
//! vehicle's input; step), with the
//! hostile numbers of `number`: never a panic, and after every edit every live body finite, the
//! counts right, every collider's body live, every contact between live colliders.
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use sprung::math::{Isometry, Point, UnitQuaternion, Vector};
use sprung::vehicle::{VehicleBuilder, VehicleHandle, VehicleInput, WheelCast};
use sprung::{
    BodyHandle, ColliderBuilder, ColliderHandle, JointBuilder, JointHandle, RagdollBuilder,
    RagdollPose, RigidBodyBuilder, SolverSettings, Spring, World,
};
use sprung_collision_fuzz::{number, plausible, vector};

fn pick<T: Copy>(u: &mut Unstructured, list: &[T]) -> Result<Option<T>> {
    if list.is_empty() {
        return Ok(None);
    }
    Ok(Some(list[u.choose_index(list.len())?]))
}

/// Mostly a small number, sometimes anything.
fn value(u: &mut Unstructured) -> Result<f32> {
    if u.ratio(1, 4)? {
        number(u)
    } else {
        Ok(plausible(u)?.clamp(-5.0, 5.0))
    }
}

fn small_vector(u: &mut Unstructured) -> Result<Vector<f32>> {
    Ok(Vector::new(value(u)?, value(u)?, value(u)?))
}

fn run(u: &mut Unstructured) -> Result<()> {
    let mut world = World::default();
    let floor = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vector::y()), floor)
        .unwrap();
    let mut bodies: Vec<BodyHandle> = vec![floor];
    let mut colliders: Vec<ColliderHandle> = Vec::new();
    let mut joints: Vec<JointHandle> = Vec::new();
    let mut vehicles: Vec<VehicleHandle> = Vec::new();
    let edits = u.int_in_range(1..=64)?;
    for _ in 0..edits {
        match u.choose_index(15)? {
            0 | 1 => {
                let builder = match u.choose_index(3)? {
                    0 => RigidBodyBuilder::dynamic(),
                    1 => RigidBodyBuilder::kinematic(),
                    _ => RigidBodyBuilder::fixed(),
                };
                let at = small_vector(u)?;
                if let Ok(h) = world.add_body(builder.translation(at).linear_velocity(vector(u)?)) {
                    bodies.push(h);
                }
            }
            2 | 3 => {
                if let Some(b) = pick(u, &bodies)? {
                    let size = value(u)?;
                    let builder = match u.choose_index(4)? {
                        0 => ColliderBuilder::ball(size),
                        1 => ColliderBuilder::cuboid(size, value(u)?, size),
                        2 => ColliderBuilder::capsule(size, value(u)?),
                        _ => ColliderBuilder::halfspace(vector(u)?),
                    };
                    if let Ok(c) = world.add_collider(builder.density(number(u)?.abs()), b) {
                        colliders.push(c);
                    }
                }
            }
            4 => {
                if let Some(b) = pick(u, &bodies)? {
                    let _ = world.remove_body(b);
                }
            }
            5 => {
                if let Some(c) = pick(u, &colliders)? {
                    let _ = world.remove_collider(c);
                }
            }
            6 => {
                let (Some(a), Some(b)) = (pick(u, &bodies)?, pick(u, &bodies)?) else {
                    continue;
                };
                let p = Point::from(small_vector(u)?);
                let spring = Spring::Frequency {
                    hertz: number(u)?,
                    damping_ratio: value(u)?,
                };
                let turn = UnitQuaternion::from_scaled_axis(vector(u)?);
                let builder = match u.choose_index(8)? {
                    0 => JointBuilder::ball(Point::origin(), p),
                    1 => JointBuilder::distance(Point::origin(), p, value(u)?).spring(spring),
                    2 => JointBuilder::hinge(Point::origin(), p, vector(u)?, vector(u)?)
                        .motor(value(u)?, number(u)?)
                        .drive(value(u)?, spring, number(u)?),
                    3 => JointBuilder::ray_spring(p, vector(u)?, value(u)?, value(u)?, spring)
                        .limits(value(u)?, value(u)?),
                    4 => JointBuilder::swing_twist(Point::origin(), p, vector(u)?, vector(u)?)
                        .swing_limits(value(u)?, value(u)?)
                        .twist_limits(value(u)?, value(u)?)
                        .friction(number(u)?)
                        .orientation_drive(turn, spring, number(u)?),
                    5 => JointBuilder::ball(Point::origin(), p)
                        .cone_limit(vector(u)?, value(u)?)
                        .orientation_drive(turn, spring, number(u)?),
                    6 => JointBuilder::fixed(Point::origin(), p).orientation_drive(
                        turn,
                        spring,
                        number(u)?,
                    ),
                    _ => JointBuilder::attachment(Point::origin(), p, spring, number(u)?),
                };
                let made = if u.arbitrary()? {
                    world.add_world_joint(builder, b)
                } else {
                    world.add_joint(builder, a, b)
                };
                if let Ok(j) = made {
                    joints.push(j);
                }
            }
            7 => {
                if let Some(j) = pick(u, &joints)? {
                    let _ = world.remove_joint(j);
                }
            }
            8 => {
                if let Some(b) = pick(u, &bodies)? {
                    let _ = world.set_pose(b, Isometry::new(small_vector(u)?, vector(u)?));
                    let _ = world.set_linear_velocity(b, vector(u)?);
                    let _ = world.set_angular_velocity(b, vector(u)?);
                }
            }
            9 => {
                if let Some(b) = pick(u, &bodies)? {
                    let _ = world.apply_force(b, vector(u)?);
                    let _ = world.apply_torque(b, vector(u)?);
                    let _ = world.apply_impulse_at_point(b, vector(u)?, Point::from(vector(u)?));
                }
            }
            10 => {
                let settings = SolverSettings {
                    substeps: u.int_in_range(0..=70)?,
                    contact_hertz: number(u)?,
                    joint_hertz: number(u)?,
                    // Several workers reach the split paths (their thresholds are low under
                    // `cfg(fuzzing)`); 0 is refused with the rest of the settings.
                    threads: u.int_in_range(0..=4)?,
                    ..*world.settings()
                };
                let _ = world.set_settings(settings);
                let _ = world.set_gravity(vector(u)?);
            }
            11 => {
                // A vehicle on any body, its wheels, springs, tyres and drive train hostile.
                let Some(b) = pick(u, &bodies)? else {
                    continue;
                };
                let mut builder = VehicleBuilder::car(b);
                if u.arbitrary()? {
                    builder.wheels.truncate(u.int_in_range(0..=4)?);
                }
                for wheel in &mut builder.wheels {
                    if u.ratio(1, 3)? {
                        wheel.mount = Point::from(small_vector(u)?);
                        wheel.direction = vector(u)?;
                        wheel.radius = value(u)?;
                        wheel.rest_length = value(u)?;
                        wheel.max_length = value(u)?;
                        wheel.inertia = number(u)?;
                        wheel.spring = Spring::Frequency {
                            hertz: number(u)?,
                            damping_ratio: value(u)?,
                        };
                        wheel.tyre.grip = value(u)?;
                        wheel.brake_torque = number(u)?;
                        wheel.anti_lock = u.arbitrary()?;
                        if u.arbitrary()? {
                            wheel.cast = WheelCast::Sphere;
                        }
                    }
                }
                if u.ratio(1, 3)? {
                    builder.engine.max_torque = number(u)?;
                    builder.engine.inertia = number(u)?;
                    builder.differentials[0].limited_slip_torque = number(u)?;
                    builder.anti_roll_bars[0].stiffness = number(u)?;
                }
                if let Ok(v) = world.add_vehicle(builder) {
                    vehicles.push(v);
                }
            }
            13 => {
                let builder = RagdollBuilder::humanoid()
                    .stabilise(u.arbitrary()?)
                    .joint_friction(number(u)?.abs());
                let at = Isometry::new(small_vector(u)?, vector(u)?);
                if let Ok(r) = world.add_ragdoll(&builder, at) {
                    let pose = RagdollPose {
                        targets: (0..15)
                            .map(|_| Ok(UnitQuaternion::from_scaled_axis(vector(u)?)))
                            .collect::<Result<_>>()?,
                    };
                    let spring = Spring::Frequency {
                        hertz: number(u)?,
                        damping_ratio: value(u)?,
                    };
                    let _ = world.drive_ragdoll(r, Some((&pose, spring, number(u)?)));
                    if u.arbitrary()? {
                        let _ = world.remove_ragdoll(r);
                    }
                }
            }
            12 => {
                if let Some(v) = pick(u, &vehicles)? {
                    if u.ratio(1, 5)? {
                        let _ = world.remove_vehicle(v);
                        continue;
                    }
                    let input = VehicleInput {
                        throttle: value(u)?,
                        brake: value(u)?,
                        handbrake: value(u)?,
                        steering: value(u)?,
                    };
                    let _ = world.set_vehicle_input(v, input);
                }
            }
            _ => {
                let dt = if u.ratio(1, 4)? {
                    number(u)?
                } else {
                    1.0 / 60.0
                };
                for _ in 0..u.int_in_range(1..=4)? {
                    let _ = world.step(dt);
                }
                world.drain_events().for_each(drop);
            }
        }
        check(&world, &colliders);
    }
    Ok(())
}

fn check(world: &World, colliders: &[ColliderHandle]) {
    assert_eq!(world.body_count(), world.bodies().count());
    for (_, b) in world.bodies() {
        let finite = b
            .translation()
            .iter()
            .chain(b.pose().rotation.coords.iter())
            .chain(b.linear_velocity().iter())
            .chain(b.angular_velocity().iter())
            .all(|x| x.is_finite());
        assert!(finite, "non-finite body: {b:?}");
    }
    for &c in colliders {
        if let Some(collider) = world.collider(c) {
            assert!(
                world.body(collider.body()).is_some(),
                "a collider outlived its body"
            );
        }
    }
    for (a, b, _) in world.contacts() {
        assert!(world.collider(a).is_some() && world.collider(b).is_some());
    }
    for (_, vehicle) in world.vehicles() {
        assert!(
            world.body(vehicle.chassis()).is_some(),
            "a vehicle outlived its chassis"
        );
        for wheel in vehicle.wheels() {
            let s = wheel.state;
            let values = [
                s.spin,
                s.rotation,
                s.load,
                s.suspension_length,
                s.drive_torque,
            ];
            assert!(
                values.iter().all(|x| x.is_finite()),
                "non-finite wheel: {s:?}"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

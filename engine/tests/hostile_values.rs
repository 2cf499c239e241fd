//! Values a hostile (or careless) user can pass, through the public API only: each gets its
//! typed error and leaves the world bit for bit as it was (its state hash unchanged), values
//! that only need normalising are normalised without overflow, and a body driven past the
//! limits inside a step is quarantined without touching its neighbours.

use sprung::limits::{MAX_FORCE, MIN_MASS};
use sprung::math::{Isometry, Point, Real, Rotation, Vector};
use sprung::solver::softness::SpringError;
use sprung::{
    ColliderBuilder, Error, Event, JointBuilder, JointKind, QueryFilter, RigidBodyBuilder,
    SleepSettings, SolverSettings, Spring, World,
};

const DT: Real = 1.0 / 60.0;

/// A ground, a stack of three cubes on it, stepped until it rests.
fn stack() -> (World, Vec<sprung::BodyHandle>) {
    let mut world = World::default();
    let ground = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -0.5, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(10.0, 0.5, 10.0), ground)
        .unwrap();
    let cubes = (0..3)
        .map(|i| {
            let body = world
                .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(
                    0.0,
                    0.5 + i as Real,
                    0.0,
                )))
                .unwrap();
            world
                .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), body)
                .unwrap();
            body
        })
        .collect();
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    (world, cubes)
}

/// `call` is refused with `expected` and the world's state does not move.
fn refused<T: std::fmt::Debug>(
    world: &mut World,
    expected: Error,
    call: impl FnOnce(&mut World) -> Result<T, Error>,
) {
    let before = (
        world.state_hash(),
        world.body_count(),
        world.joints().count(),
    );
    assert_eq!(call(world).unwrap_err(), expected);
    let after = (
        world.state_hash(),
        world.body_count(),
        world.joints().count(),
    );
    assert_eq!(before, after, "a refused call changed the world");
}

fn zero_rotation() -> Rotation<Real> {
    Rotation::new_unchecked(nalgebra::Quaternion::new(0.0, 0.0, 0.0, 0.0))
}

#[test]
fn bodies_outside_the_documented_ranges_are_refused() {
    let (mut world, _) = stack();
    let dynamic = RigidBodyBuilder::dynamic;
    let cases: Vec<(RigidBodyBuilder, Error)> = vec![
        (
            dynamic().mass_properties(MIN_MASS / 1e3, Vector::repeat(1.0)),
            Error::OutOfRange("mass: 1e-6 to 1e9 kg"),
        ),
        (
            dynamic().mass_properties(1e-40, Vector::repeat(1.0)),
            Error::OutOfRange("mass: 1e-6 to 1e9 kg"),
        ),
        (
            dynamic().mass_properties(1.0, Vector::new(1.0, 1e20, 1.0)),
            Error::OutOfRange("inertia: 1e-12 to 1e15 kg m^2"),
        ),
        (
            dynamic().translation(Vector::new(0.0, 1e30, 0.0)),
            Error::OutOfRange("coordinates: within ±1e5 m"),
        ),
        (
            dynamic().pose(Isometry::from_parts(
                Vector::zeros().into(),
                zero_rotation(),
            )),
            Error::NonPositive("body rotation"),
        ),
        (
            dynamic().linear_velocity(Vector::new(1e20, 0.0, 0.0)),
            Error::OutOfRange("linear velocity: at most 1e4 m/s"),
        ),
        (
            dynamic().angular_velocity(Vector::new(0.0, 1e20, 0.0)),
            Error::OutOfRange("angular velocity: at most 1e4 rad/s"),
        ),
        (
            dynamic().gravity_scale(1e30),
            Error::OutOfRange("gravity scale: within ±1000"),
        ),
        (
            dynamic().linear_damping(1e30),
            Error::OutOfRange("damping: at most 1e6 per second"),
        ),
    ];
    for (builder, error) in cases {
        refused(&mut world, error, |w| w.add_body(builder));
    }
}

#[test]
fn colliders_joints_and_springs_outside_their_ranges_are_refused() {
    let (mut world, cubes) = stack();
    let (a, b) = (cubes[0], cubes[1]);
    refused(
        &mut world,
        Error::OutOfRange("density: 1e-3 to 1e6 kg/m^3"),
        |w| w.add_collider(ColliderBuilder::ball(0.5).density(1e-30), a),
    );
    refused(
        &mut world,
        Error::OutOfRange("restitution: at most 1"),
        |w| w.add_collider(ColliderBuilder::ball(0.5).restitution(5.0), a),
    );
    refused(&mut world, Error::NonPositive("collider rotation"), |w| {
        let pose = Isometry::from_parts(Vector::zeros().into(), zero_rotation());
        w.add_collider(ColliderBuilder::ball(0.5).local_pose(pose), a)
    });
    let spring = |hertz: Real| Spring::Frequency {
        hertz,
        damping_ratio: 0.5,
    };
    refused(&mut world, Error::Spring(SpringError::OutOfRange), |w| {
        w.add_joint(
            JointBuilder::distance(Point::origin(), Point::origin(), 1.0).spring(spring(1e30)),
            a,
            b,
        )
    });
    refused(&mut world, Error::Spring(SpringError::OutOfRange), |w| {
        let stiff = Spring::Stiffness {
            stiffness: 1e30,
            damping: 1.0,
        };
        w.add_joint(
            JointBuilder::ball(Point::origin(), Point::origin()).spring(stiff),
            a,
            b,
        )
    });
    refused(&mut world, Error::NonPositive("hinge axis"), |w| {
        let tiny = Vector::new(1e-42, 0.0, 0.0);
        w.add_joint(
            JointBuilder::hinge(Point::origin(), Point::origin(), tiny, Vector::x()),
            a,
            b,
        )
    });
    refused(
        &mut world,
        Error::OutOfRange("max force: at most 1e15"),
        |w| {
            w.add_joint(
                JointBuilder::hinge(Point::origin(), Point::origin(), Vector::x(), Vector::x())
                    .motor(1.0, 1e30),
                a,
                b,
            )
        },
    );
    refused(
        &mut world,
        Error::OutOfRange("coordinates: within ±1e5 m"),
        |w| {
            w.add_joint(
                JointBuilder::ball(Point::new(1e20, 0.0, 0.0), Point::origin()),
                a,
                b,
            )
        },
    );
    refused(
        &mut world,
        Error::OutOfRange("joint length: at most 1e5 m"),
        |w| {
            w.add_joint(
                JointBuilder::distance(Point::origin(), Point::origin(), 1e30),
                a,
                b,
            )
        },
    );
}

#[test]
fn huge_axes_and_directions_are_normalised_without_overflow() {
    let (mut world, cubes) = stack();
    let hinge = world
        .add_joint(
            JointBuilder::hinge(
                Point::origin(),
                Point::new(0.0, -1.0, 0.0),
                Vector::new(0.0, 0.0, 1e30),
                Vector::new(0.0, 0.0, 3e20),
            ),
            cubes[0],
            cubes[1],
        )
        .unwrap();
    match world.joint(hinge).unwrap().kind() {
        JointKind::Hinge(hinge) => {
            assert_eq!(hinge.axis_a, Vector::z());
            assert_eq!(hinge.axis_b, Vector::z());
        }
        other => panic!("{other:?}"),
    }
    for _ in 0..10 {
        world.step(DT).unwrap();
    }
    // A ray straight down with a direction of 1e30 finds the top cube as a unit one does.
    let filter = QueryFilter::default();
    let origin = Point::new(0.0, 10.0, 0.0);
    let unit = world
        .cast_ray(origin, -Vector::y(), 100.0, true, &filter)
        .unwrap()
        .unwrap();
    let huge = world
        .cast_ray(origin, Vector::new(0.0, -1e30, 0.0), 100.0, true, &filter)
        .unwrap()
        .unwrap();
    assert_eq!(unit.collider, huge.collider);
    assert_eq!(unit.toi, huge.toi);
    refused(
        &mut world,
        Error::NonPositive("ray direction length"),
        |w| w.cast_ray(origin, Vector::new(0.0, -1e-42, 0.0), 100.0, true, &filter),
    );
}

#[test]
fn poses_are_normalised_and_zero_rotations_refused() {
    let (mut world, cubes) = stack();
    let top = cubes[2];
    refused(&mut world, Error::NonPositive("rotation"), |w| {
        w.set_pose(
            top,
            Isometry::from_parts(Vector::zeros().into(), zero_rotation()),
        )
    });
    // A rotation scaled by 1e25 (no longer unit) is taken as the rotation it points to.
    let q = Rotation::from_axis_angle(&Vector::y_axis(), 0.3);
    let scaled = Rotation::new_unchecked(q.into_inner() * 1e25);
    world
        .set_pose(
            top,
            Isometry::from_parts(Vector::new(0.0, 2.5, 0.0).into(), scaled),
        )
        .unwrap();
    let stored = world.body(top).unwrap().pose().rotation;
    assert!((stored.into_inner().norm() - 1.0).abs() < 1e-6);
    assert!(stored.angle_to(&q) < 1e-5);
    let kinematic = world
        .add_body(RigidBodyBuilder::kinematic().translation(Vector::new(5.0, 1.0, 0.0)))
        .unwrap();
    world
        .set_kinematic_target(
            kinematic,
            Isometry::from_parts(Vector::new(5.0, 1.0, 0.0).into(), scaled),
        )
        .unwrap();
    world.step(DT).unwrap();
    let turned = world.body(kinematic).unwrap().pose().rotation;
    assert!((turned.into_inner().norm() - 1.0).abs() < 1e-6);
    assert!(turned.angle_to(&q) < 1e-5);
    let slab = world
        .add_collider(
            ColliderBuilder::cuboid(0.1, 0.1, 0.1)
                .local_pose(Isometry::from_parts(Vector::zeros().into(), scaled)),
            kinematic,
        )
        .unwrap();
    let local = world.collider(slab).unwrap().local_pose().rotation;
    assert!((local.into_inner().norm() - 1.0).abs() < 1e-6);
}

#[test]
fn user_set_motion_and_world_values_are_held_to_their_ranges() {
    let (mut world, cubes) = stack();
    let top = cubes[2];
    let big = Vector::new(1e20, 0.0, 0.0);
    refused(
        &mut world,
        Error::OutOfRange("linear velocity: at most 1e4 m/s"),
        |w| w.set_linear_velocity(top, big),
    );
    refused(
        &mut world,
        Error::OutOfRange("angular velocity: at most 1e4 rad/s"),
        |w| w.set_angular_velocity(top, big),
    );
    let too_much = "force, torque or impulse: within ±1e15";
    refused(&mut world, Error::OutOfRange(too_much), |w| {
        w.apply_force(top, big * 1e5)
    });
    refused(&mut world, Error::OutOfRange(too_much), |w| {
        w.apply_torque(top, big * 1e5)
    });
    // An impulse within range that would still pass the speed limit.
    refused(
        &mut world,
        Error::OutOfRange("linear velocity: at most 1e4 m/s"),
        |w| w.apply_impulse(top, Vector::new(1e9, 0.0, 0.0)),
    );
    refused(
        &mut world,
        Error::OutOfRange("gravity: within ±1e4 m/s^2"),
        |w| w.set_gravity(Vector::new(0.0, -1e30, 0.0)),
    );
    for dt in [0.0, 1e-30, 1e-7, 2.0, 1e30, Real::NAN] {
        refused(&mut world, Error::InvalidTimeStep, |w| w.step(dt));
    }
    assert!(World::new(Vector::new(0.0, Real::INFINITY, 0.0)).is_err());
}

#[test]
fn settings_are_checked_before_the_step_reads_them() {
    let (mut world, _) = stack();
    let good = *world.settings();
    let bad = [
        (
            SolverSettings {
                joint_damping_ratio: Real::NAN,
                ..good
            },
            Error::NonFinite("solver settings"),
        ),
        (
            SolverSettings {
                substeps: 0,
                ..good
            },
            Error::OutOfRange("substeps: 1 to 64"),
        ),
        (
            SolverSettings {
                iterations: u32::MAX,
                ..good
            },
            Error::OutOfRange("iterations: 1 to 64"),
        ),
        (
            SolverSettings { threads: 0, ..good },
            Error::OutOfRange("threads: 1 to 64"),
        ),
        (
            SolverSettings {
                contact_hertz: -3.0,
                ..good
            },
            Error::NonPositive("contact hertz"),
        ),
        (
            SolverSettings {
                joint_hertz: 0.0,
                ..good
            },
            Error::NonPositive("joint hertz"),
        ),
        (
            SolverSettings {
                contact_damping_ratio: -1.0,
                ..good
            },
            Error::Negative("contact damping ratio"),
        ),
        (
            SolverSettings {
                support_mass_ratio: 0.5,
                ..good
            },
            Error::OutOfRange("support mass ratio: at least 1"),
        ),
        (
            SolverSettings {
                support_mass_ratio: Real::NAN,
                ..good
            },
            Error::OutOfRange("support mass ratio: at least 1"),
        ),
    ];
    for (settings, error) in bad {
        assert_eq!(world.set_settings(settings), Err(error));
        assert_eq!(*world.settings(), good);
    }
    let sleep = *world.sleep_settings();
    assert_eq!(
        world.set_sleep_settings(SleepSettings {
            time_to_sleep: Real::NAN,
            ..sleep
        }),
        Err(Error::NonFinite("sleep settings"))
    );
    assert_eq!(*world.sleep_settings(), sleep);
    world.step(DT).unwrap();
    assert!(world
        .bodies()
        .all(|(_, b)| b.translation().iter().all(|x| x.is_finite())));
}

#[test]
fn interpolating_at_nan_gives_the_current_pose() {
    let (mut world, cubes) = stack();
    world.set_linear_velocity(cubes[2], Vector::x()).unwrap();
    world.step(DT).unwrap();
    let now = *world.body(cubes[2]).unwrap().pose();
    assert_eq!(world.interpolated_pose(cubes[2], Real::NAN), Some(now));
    let before = world.interpolated_pose(cubes[2], -5.0).unwrap();
    assert_ne!(before, now);
}

#[test]
fn a_body_driven_past_the_limits_is_quarantined_and_its_neighbours_step_on() {
    let (mut world, cubes) = stack();
    // The lightest body the limits allow, in the middle of the stack, pushed by the largest
    // force they allow: 1e21 m/s^2, past the speed limit in any step.
    let runaway = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 3.5, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), runaway)
        .unwrap();
    let light = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(0.0, 4.5, 0.0))
                .mass_properties(MIN_MASS, Vector::repeat(1e-6)),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), light)
        .unwrap();
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    world.drain_events().for_each(drop);
    let light_pose = *world.body(light).unwrap().pose();
    world
        .apply_force(light, Vector::new(MAX_FORCE, -MAX_FORCE, 0.0))
        .unwrap();
    let report = world.step(DT).unwrap();
    assert_eq!(report.quarantined, 1);
    let events: Vec<Event> = world.drain_events().collect();
    assert!(
        events.contains(&Event::BodyQuarantined(light)),
        "{events:?}"
    );
    let body = world.body(light).unwrap();
    assert!(body.is_quarantined());
    assert_eq!(*body.pose(), light_pose, "frozen where the step began");
    assert_eq!(body.linear_velocity(), Vector::zeros());
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    for &c in cubes.iter().chain([&runaway]) {
        let b = world.body(c).unwrap();
        assert!(!b.is_quarantined());
        assert!(
            b.linear_velocity().norm() < 0.1,
            "{:?}",
            b.linear_velocity()
        );
        assert!(b.translation().iter().all(|x| x.is_finite()));
    }
    // Teleporting it releases it.
    world
        .set_pose(light, Isometry::translation(3.0, 3.0, 0.0))
        .unwrap();
    assert!(!world.body(light).unwrap().is_quarantined());
    world.step(DT).unwrap();
    assert!(
        world.body(light).unwrap().linear_velocity().y < 0.0,
        "it falls again"
    );
}

/// Three of 3,000 falling bodies, far apart in the list, pushed past the limits in one step:
/// the bodies are gathered for the solver on several workers (one run of slots each) and the
/// three leave holes that are closed after. The same bodies are quarantined, reported in slot
/// order, and every other body falls freely, with the same bits as on one thread.
#[test]
fn quarantines_while_gathering_on_several_workers_match_one_thread() {
    let run = |threads: u32| {
        let mut world = World::default();
        let settings = SolverSettings {
            threads,
            ..*world.settings()
        };
        world.set_settings(settings).unwrap();
        let bodies: Vec<_> = (0..3000)
            .map(|k| {
                let at = Vector::new((k % 60) as Real, (k / 60) as Real, 0.0);
                let body = RigidBodyBuilder::dynamic()
                    .translation(at)
                    .mass_properties(MIN_MASS, Vector::repeat(1e-6));
                world.add_body(body).unwrap()
            })
            .collect();
        // A first step so that the next gathers as many bodies as moved in this one.
        world.step(DT).unwrap();
        world.drain_events().for_each(drop);
        let pushed = [bodies[2990], bodies[17], bodies[1600]];
        for &body in &pushed {
            world
                .apply_force(body, Vector::new(MAX_FORCE, 0.0, 0.0))
                .unwrap();
        }
        let report = world.step(DT).unwrap();
        assert_eq!(report.quarantined, 3, "{threads} threads");
        let events: Vec<Event> = world.drain_events().collect();
        let order = [bodies[17], bodies[1600], bodies[2990]].map(Event::BodyQuarantined);
        assert_eq!(events, order, "{threads} threads: in slot order");
        world.step(DT).unwrap();
        // Free fall, semi-implicit: v = g t after three steps.
        let g = world.gravity().y;
        for (&body, k) in bodies.iter().zip(0..) {
            let b = world.body(body).unwrap();
            if pushed.contains(&body) {
                assert!(b.is_quarantined(), "body {k}");
            } else {
                let v = b.linear_velocity().y;
                assert!((v - 3.0 * DT * g).abs() < 1e-4, "body {k}: {v}");
            }
        }
        world.state_hash()
    };
    assert_eq!(run(1), run(2));
}

//! Every bad input gets its typed error, changes nothing, and the world steps on.

use sprung::collision::shape::ShapeError;
use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{ColliderBuilder, Error, RigidBodyBuilder, World};

fn all_finite(world: &World) -> bool {
    world.bodies().all(|(_, b)| {
        b.translation()
            .iter()
            .chain(b.linear_velocity().iter())
            .chain(b.angular_velocity().iter())
            .all(|x| x.is_finite())
    })
}

#[test]
fn bad_inputs_are_refused_and_change_nothing() {
    let mut world = World::default();
    let ground = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(20.0, 1.0, 20.0), ground)
        .unwrap();
    let cube = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 0.5, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), cube)
        .unwrap();
    let bodies = world.body_count();
    let nan = Real::NAN;
    let inf = Real::INFINITY;

    // Bodies.
    assert_eq!(
        world
            .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(nan, 0.0, 0.0)))
            .unwrap_err(),
        Error::NonFinite("body pose")
    );
    assert_eq!(
        world
            .add_body(RigidBodyBuilder::dynamic().linear_velocity(Vector::new(0.0, inf, 0.0)))
            .unwrap_err(),
        Error::NonFinite("linear velocity")
    );
    assert_eq!(
        world
            .add_body(RigidBodyBuilder::dynamic().angular_velocity(Vector::new(0.0, 0.0, nan)))
            .unwrap_err(),
        Error::NonFinite("angular velocity")
    );
    assert_eq!(
        world
            .add_body(RigidBodyBuilder::dynamic().mass_properties(0.0, Vector::repeat(1.0)))
            .unwrap_err(),
        Error::NonPositive("mass")
    );
    assert_eq!(
        world
            .add_body(RigidBodyBuilder::dynamic().mass_properties(-2.0, Vector::repeat(1.0)))
            .unwrap_err(),
        Error::NonPositive("mass")
    );
    assert_eq!(
        world
            .add_body(RigidBodyBuilder::dynamic().mass_properties(1.0, Vector::new(1.0, 0.0, 1.0)))
            .unwrap_err(),
        Error::NonPositive("inertia")
    );
    assert_eq!(
        world
            .add_body(RigidBodyBuilder::dynamic().linear_damping(-1.0))
            .unwrap_err(),
        Error::Negative("damping")
    );
    assert_eq!(world.body_count(), bodies);

    // Colliders.
    let mass_before = world.body(cube).unwrap().mass().mass;
    assert_eq!(
        world
            .add_collider(ColliderBuilder::ball(0.5).density(0.0), cube)
            .unwrap_err(),
        Error::NonPositive("density")
    );
    assert_eq!(
        world
            .add_collider(ColliderBuilder::ball(0.5).density(-5.0), cube)
            .unwrap_err(),
        Error::NonPositive("density")
    );
    assert_eq!(
        world
            .add_collider(ColliderBuilder::ball(0.5).density(nan), cube)
            .unwrap_err(),
        Error::NonFinite("collider material")
    );
    assert_eq!(
        world
            .add_collider(ColliderBuilder::ball(nan), cube)
            .unwrap_err(),
        Error::Shape(ShapeError::NonFinite)
    );
    assert_eq!(
        world
            .add_collider(ColliderBuilder::cuboid(1.0, 0.0, 1.0), cube)
            .unwrap_err(),
        Error::Shape(ShapeError::NonPositive)
    );
    let flat = [
        Point::new(0.0, 0.0, 0.0),
        Point::new(1.0, 0.0, 0.0),
        Point::new(0.0, 0.0, 1.0),
        Point::new(1.0, 0.0, 1.0),
    ];
    assert_eq!(
        world
            .add_collider(ColliderBuilder::convex_hull(&flat), cube)
            .unwrap_err(),
        Error::Shape(ShapeError::DegenerateHull)
    );
    assert_eq!(
        world
            .add_collider(ColliderBuilder::ball(0.5).friction(-0.1), cube)
            .unwrap_err(),
        Error::Negative("friction")
    );
    assert_eq!(
        world
            .add_collider(
                ColliderBuilder::ball(0.5).translation(Vector::new(inf, 0.0, 0.0)),
                cube
            )
            .unwrap_err(),
        Error::NonFinite("collider pose")
    );
    assert_eq!(world.body(cube).unwrap().mass().mass, mass_before);
    assert_eq!(world.body(cube).unwrap().colliders().len(), 1);

    // Mutators.
    let pose = *world.body(cube).unwrap().pose();
    let v = world.body(cube).unwrap().linear_velocity();
    assert_eq!(
        world
            .set_linear_velocity(cube, Vector::new(nan, 0.0, 0.0))
            .unwrap_err(),
        Error::NonFinite("linear velocity")
    );
    assert_eq!(
        world
            .set_angular_velocity(cube, Vector::new(inf, 0.0, 0.0))
            .unwrap_err(),
        Error::NonFinite("angular velocity")
    );
    assert_eq!(
        world
            .set_pose(cube, Isometry::translation(nan, 0.0, 0.0))
            .unwrap_err(),
        Error::NonFinite("pose")
    );
    assert_eq!(
        world
            .apply_force(cube, Vector::new(0.0, inf, 0.0))
            .unwrap_err(),
        Error::NonFinite("force")
    );
    assert_eq!(
        world
            .apply_torque(cube, Vector::new(0.0, nan, 0.0))
            .unwrap_err(),
        Error::NonFinite("torque")
    );
    assert_eq!(
        world
            .apply_impulse(cube, Vector::new(nan, 0.0, 0.0))
            .unwrap_err(),
        Error::NonFinite("impulse")
    );
    assert_eq!(
        world
            .apply_impulse_at_point(cube, Vector::x(), Point::new(0.0, inf, 0.0))
            .unwrap_err(),
        Error::NonFinite("point")
    );
    assert_eq!(
        world.apply_force(ground, Vector::x()).unwrap_err(),
        Error::WrongBodyKind
    );
    assert_eq!(
        world
            .set_kinematic_target(cube, Isometry::identity())
            .unwrap_err(),
        Error::WrongBodyKind
    );
    assert_eq!(
        world.set_gravity(Vector::new(0.0, nan, 0.0)).unwrap_err(),
        Error::NonFinite("gravity")
    );
    assert_eq!(*world.body(cube).unwrap().pose(), pose);
    assert_eq!(world.body(cube).unwrap().linear_velocity(), v);
    assert_eq!(world.gravity(), Vector::new(0.0, -9.81, 0.0));

    // Time steps.
    for dt in [0.0, -1.0 / 60.0, nan, inf] {
        assert_eq!(world.step(dt).unwrap_err(), Error::InvalidTimeStep);
    }
    assert_eq!(*world.body(cube).unwrap().pose(), pose);

    // Stale handles: a removed body's handle never reaches the body that takes its slot.
    let doomed = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(5.0, 3.0, 0.0)))
        .unwrap();
    let doomed_collider = world
        .add_collider(ColliderBuilder::ball(0.3), doomed)
        .unwrap();
    world.remove_body(doomed).unwrap();
    let heir = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(-5.0, 3.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.3), heir)
        .unwrap();
    assert!(world.body(doomed).is_none());
    assert!(world.collider(doomed_collider).is_none());
    assert_eq!(
        world.set_linear_velocity(doomed, Vector::x()).unwrap_err(),
        Error::StaleHandle
    );
    assert_eq!(
        world.apply_impulse(doomed, Vector::x()).unwrap_err(),
        Error::StaleHandle
    );
    assert_eq!(world.remove_body(doomed).unwrap_err(), Error::StaleHandle);
    assert_eq!(
        world.remove_collider(doomed_collider).unwrap_err(),
        Error::StaleHandle
    );
    assert_eq!(
        world
            .add_collider(ColliderBuilder::ball(0.3), doomed)
            .unwrap_err(),
        Error::StaleHandle
    );
    assert_eq!(world.body(heir).unwrap().linear_velocity(), Vector::zeros());

    // The world steps on, and everything stays finite.
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
    }
    assert!(all_finite(&world));
    assert!((world.body(cube).unwrap().translation().y - 0.5).abs() < 0.01);
    assert!((world.body(heir).unwrap().translation().y - 0.3).abs() < 0.01);
}

#[test]
fn bad_joints_are_refused() {
    use sprung::solver::softness::SpringError;
    use sprung::{JointBuilder, Spring};
    let mut world = World::default();
    let a = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let b = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    let o = Point::origin();
    let hinge = || JointBuilder::hinge(o, o, Vector::z(), Vector::z());
    assert!(matches!(
        world.add_joint(hinge().angle_limits(1.0, -1.0), a, b),
        Err(Error::OutOfRange(_))
    ));
    assert_eq!(
        world.add_joint(hinge().motor(1.0, -5.0), a, b).unwrap_err(),
        Error::Negative("hinge motor")
    );
    let nan_spring = Spring::Frequency {
        hertz: Real::NAN,
        damping_ratio: 1.0,
    };
    assert_eq!(
        world
            .add_joint(hinge().spring(nan_spring), a, b)
            .unwrap_err(),
        Error::Spring(SpringError::NonFinite)
    );
    let zero_axis = JointBuilder::hinge(o, o, Vector::zeros(), Vector::z());
    assert_eq!(
        world.add_joint(zero_axis, a, b).unwrap_err(),
        Error::NonPositive("hinge axis")
    );
    let slider = JointBuilder::slider(o, o, Vector::x()).translation_limits(0.0, Real::INFINITY);
    assert_eq!(
        world.add_joint(slider, a, b).unwrap_err(),
        Error::NonFinite("slider limits")
    );
    assert_eq!(
        world.add_joint(JointBuilder::ball(o, o), a, a).unwrap_err(),
        Error::SameBody
    );
    let negative = JointBuilder::distance(o, o, -1.0);
    assert_eq!(
        world.add_joint(negative, a, b).unwrap_err(),
        Error::Negative("joint length")
    );
    let soft_fixed = JointBuilder::fixed(o, o).spring(Spring::Halflife { halflife: 0.0 });
    assert_eq!(
        world.add_joint(soft_fixed, a, b).unwrap_err(),
        Error::Spring(SpringError::Negative)
    );
    assert_eq!(world.joints().count(), 0);
    world.step(1.0 / 60.0).unwrap();
}

#[test]
fn shapes_built_by_hand_are_checked_too() {
    use sprung::collision::parry3d::shape::{Ball, Cuboid};
    use sprung::collision::shape::Shape;
    let mut world = World::default();
    let body = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    for (shape, error) in [
        (Shape::Sphere(Ball::new(-1.0)), ShapeError::NonPositive),
        (Shape::Sphere(Ball::new(0.0)), ShapeError::NonPositive),
        (
            Shape::Cuboid(Cuboid::new(Vector::new(1.0, Real::NAN, 1.0))),
            ShapeError::NonFinite,
        ),
    ] {
        assert_eq!(
            world.add_collider(ColliderBuilder::new(shape), body),
            Err(Error::Shape(error))
        );
    }
    assert_eq!(world.body(body).unwrap().colliders().len(), 0);
}

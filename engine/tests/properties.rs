//! Properties of the world under random edits: random sequences of adds, removals, changes and
//! steps, with ordinary and hostile values mixed, never panic, never leave a non-finite number
//! in a live body, and keep the world's bookkeeping true (handles, counts, joints and contacts
//! only between live things). Through the public API only.

use proptest::prelude::*;
use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{
    BodyHandle, ColliderBuilder, ColliderHandle, JointBuilder, JointHandle, RigidBodyBuilder,
    SolverSettings, Spring, World,
};

/// A number: mostly ordinary, sometimes hostile (NaN, infinities, zero, subnormal, huge, tiny).
fn number() -> impl Strategy<Value = Real> {
    prop_oneof![
        6 => -5.0..5.0f32,
        1 => prop::sample::select(vec![
            Real::NAN,
            Real::INFINITY,
            Real::NEG_INFINITY,
            0.0,
            -0.0,
            1e-42,
            Real::MIN_POSITIVE,
            1e-30,
            1e20,
            -1e30,
            Real::MAX,
            1e5,
            1e4,
        ]),
    ]
}

fn vector() -> impl Strategy<Value = Vector<Real>> {
    (number(), number(), number()).prop_map(|(x, y, z)| Vector::new(x, y, z))
}

/// A position: mostly just above the floor, near the others, sometimes hostile.
fn position() -> impl Strategy<Value = Vector<Real>> {
    prop_oneof![
        6 => (-1.5..1.5f32, 0.0..4.0f32, -1.5..1.5f32).prop_map(|(x, y, z)| Vector::new(x, y, z)),
        1 => vector(),
    ]
}

/// A positive size: mostly sensible, sometimes hostile.
fn size() -> impl Strategy<Value = Real> {
    prop_oneof![5 => 0.1..1.5f32, 1 => number()]
}

#[derive(Clone, Debug)]
enum Edit {
    AddBody {
        kind: u8,
        at: Vector<Real>,
        v: Vector<Real>,
    },
    AddCollider {
        body: usize,
        shape: u8,
        size: Real,
        density: Real,
    },
    RemoveBody(usize),
    RemoveCollider(usize),
    AddJoint {
        a: usize,
        b: usize,
        kind: u8,
        x: Real,
        hertz: Real,
    },
    AttachToWorld {
        body: usize,
        target: Vector<Real>,
        force: Real,
    },
    RemoveJoint(usize),
    SetPose {
        body: usize,
        at: Vector<Real>,
        turn: Vector<Real>,
    },
    SetVelocity {
        body: usize,
        v: Vector<Real>,
        w: Vector<Real>,
    },
    Push {
        body: usize,
        force: Vector<Real>,
        impulse: Vector<Real>,
    },
    PairCollision {
        a: usize,
        b: usize,
        collide: bool,
    },
    Settings {
        substeps: u32,
        contact_hertz: Real,
        hertz: Real,
    },
    Gravity(Vector<Real>),
    Step(Real),
}

fn edit() -> impl Strategy<Value = Edit> {
    let index = 0..16usize;
    prop_oneof![
        4 => (0..3u8, position(), vector()).prop_map(|(kind, at, v)| Edit::AddBody { kind, at, v }),
        5 => (index.clone(), 0..4u8, size(), prop_oneof![4 => Just(1000.0f32), 1 => number()])
            .prop_map(|(body, shape, size, density)| Edit::AddCollider { body, shape, size, density }),
        1 => index.clone().prop_map(Edit::RemoveBody),
        1 => index.clone().prop_map(Edit::RemoveCollider),
        2 => (index.clone(), index.clone(), 0..5u8, number(), prop_oneof![3 => 0.5..20.0f32, 1 => number()])
            .prop_map(|(a, b, kind, x, hertz)| Edit::AddJoint { a, b, kind, x, hertz }),
        1 => (index.clone(), vector(), number())
            .prop_map(|(body, target, force)| Edit::AttachToWorld { body, target, force }),
        1 => index.clone().prop_map(Edit::RemoveJoint),
        1 => (index.clone(), position(), vector()).prop_map(|(body, at, turn)| Edit::SetPose { body, at, turn }),
        1 => (index.clone(), vector(), vector()).prop_map(|(body, v, w)| Edit::SetVelocity { body, v, w }),
        1 => (index.clone(), vector(), vector())
            .prop_map(|(body, force, impulse)| Edit::Push { body, force, impulse }),
        1 => (index.clone(), index, any::<bool>())
            .prop_map(|(a, b, collide)| Edit::PairCollision { a, b, collide }),
        1 => (0..80u32, number(), number())
            .prop_map(|(substeps, contact_hertz, hertz)| Edit::Settings { substeps, contact_hertz, hertz }),
        1 => vector().prop_map(Edit::Gravity),
        8 => prop_oneof![6 => Just(1.0f32 / 60.0), 1 => number()].prop_map(Edit::Step),
    ]
}

/// What the test remembers of the world: every handle it was given, live or not.
#[derive(Default)]
struct Model {
    bodies: Vec<BodyHandle>,
    colliders: Vec<ColliderHandle>,
    joints: Vec<JointHandle>,
}

fn pick<T: Copy>(list: &[T], i: usize) -> Option<T> {
    (!list.is_empty()).then(|| list[i % list.len()])
}

fn apply(world: &mut World, model: &mut Model, edit: &Edit) {
    // Results are ignored: a refusal is allowed, a panic or a broken invariant is not.
    match *edit {
        Edit::AddBody { kind, at, v } => {
            let builder = match kind {
                0 => RigidBodyBuilder::dynamic(),
                1 => RigidBodyBuilder::kinematic(),
                _ => RigidBodyBuilder::fixed(),
            };
            if let Ok(h) = world.add_body(builder.translation(at).linear_velocity(v)) {
                model.bodies.push(h);
            }
        }
        Edit::AddCollider {
            body,
            shape,
            size,
            density,
        } => {
            let Some(b) = pick(&model.bodies, body) else {
                return;
            };
            let builder = match shape {
                0 => ColliderBuilder::ball(size),
                1 => ColliderBuilder::cuboid(size, size * 0.5, size),
                2 => ColliderBuilder::capsule(size, size * 0.5),
                _ => ColliderBuilder::halfspace(Vector::new(0.0, size, 0.0)),
            };
            if let Ok(h) = world.add_collider(builder.density(density), b) {
                model.colliders.push(h);
            }
        }
        Edit::RemoveBody(i) => {
            if let Some(b) = pick(&model.bodies, i) {
                let _ = world.remove_body(b);
            }
        }
        Edit::RemoveCollider(i) => {
            if let Some(c) = pick(&model.colliders, i) {
                let _ = world.remove_collider(c);
            }
        }
        Edit::AddJoint {
            a,
            b,
            kind,
            x,
            hertz,
        } => {
            let (Some(a), Some(b)) = (pick(&model.bodies, a), pick(&model.bodies, b)) else {
                return;
            };
            let spring = Spring::Frequency {
                hertz,
                damping_ratio: 0.3,
            };
            let p = Point::new(0.0, x, 0.0);
            let builder = match kind {
                0 => JointBuilder::ball(Point::origin(), p),
                1 => JointBuilder::distance(Point::origin(), Point::origin(), x).spring(spring),
                2 => JointBuilder::hinge(Point::origin(), p, Vector::new(x, 1.0, 0.0), Vector::z())
                    .motor(x, hertz),
                3 => JointBuilder::fixed(Point::origin(), p).collide(false),
                _ => JointBuilder::slider(Point::origin(), p, Vector::new(1.0, x, 0.0))
                    .limits(-1.0, x),
            };
            if let Ok(j) = world.add_joint(builder, a, b) {
                model.joints.push(j);
            }
        }
        Edit::AttachToWorld {
            body,
            target,
            force,
        } => {
            let Some(b) = pick(&model.bodies, body) else {
                return;
            };
            let spring = Spring::Frequency {
                hertz: 3.0,
                damping_ratio: 1.0,
            };
            let builder = JointBuilder::attachment(Point::origin(), target.into(), spring, force);
            if let Ok(j) = world.add_world_joint(builder, b) {
                model.joints.push(j);
            }
        }
        Edit::RemoveJoint(i) => {
            if let Some(j) = pick(&model.joints, i) {
                let _ = world.remove_joint(j);
            }
        }
        Edit::SetPose { body, at, turn } => {
            if let Some(b) = pick(&model.bodies, body) {
                let _ = world.set_pose(b, Isometry::new(at, turn));
            }
        }
        Edit::SetVelocity { body, v, w } => {
            if let Some(b) = pick(&model.bodies, body) {
                let _ = world.set_linear_velocity(b, v);
                let _ = world.set_angular_velocity(b, w);
            }
        }
        Edit::Push {
            body,
            force,
            impulse,
        } => {
            if let Some(b) = pick(&model.bodies, body) {
                let _ = world.apply_force(b, force);
                let _ = world.apply_torque(b, force);
                let _ = world.apply_impulse(b, impulse);
                let _ = world.apply_impulse_at_point(b, impulse, Point::from(force));
            }
        }
        Edit::PairCollision { a, b, collide } => {
            if let (Some(a), Some(b)) = (pick(&model.bodies, a), pick(&model.bodies, b)) {
                let _ = world.set_pair_collision(a, b, collide);
            }
        }
        Edit::Settings {
            substeps,
            contact_hertz,
            hertz,
        } => {
            let settings = SolverSettings {
                substeps,
                contact_hertz,
                joint_hertz: hertz,
                ..*world.settings()
            };
            let _ = world.set_settings(settings);
        }
        Edit::Gravity(g) => {
            let _ = world.set_gravity(g);
        }
        Edit::Step(dt) => {
            let _ = world.step(dt);
            let _ = world.drain_events().count();
        }
    }
}

/// Everything the world says about itself agrees, and every live number is finite.
fn check(world: &World, model: &Model) -> Result<(), TestCaseError> {
    let live: Vec<BodyHandle> = model
        .bodies
        .iter()
        .copied()
        .filter(|&b| world.body(b).is_some())
        .collect();
    prop_assert_eq!(world.body_count(), live.len());
    prop_assert_eq!(world.bodies().count(), live.len());
    for (handle, body) in world.bodies() {
        prop_assert!(live.contains(&handle));
        let numbers = body
            .translation()
            .iter()
            .chain(body.pose().rotation.coords.iter())
            .chain(body.linear_velocity().iter())
            .chain(body.angular_velocity().iter())
            .all(|x| x.is_finite());
        prop_assert!(numbers, "non-finite body {:?}", body);
        prop_assert!((body.pose().rotation.coords.norm() - 1.0).abs() < 1e-3);
        for &c in body.colliders() {
            let collider = world.collider(c);
            prop_assert!(collider.is_some(), "a body lists a removed collider");
            prop_assert_eq!(collider.unwrap().body(), handle);
        }
    }
    for &c in &model.colliders {
        if let Some(collider) = world.collider(c) {
            let owner = world.body(collider.body());
            prop_assert!(owner.is_some(), "a collider outlived its body");
            prop_assert!(owner.unwrap().colliders().contains(&c));
        }
    }
    for (_, joint) in world.joints() {
        let (a, b) = joint.bodies();
        // One side may be the hidden anchor of world joints, which `body` does not show.
        let live_sides = [a, b].iter().filter(|&&h| world.body(h).is_some()).count();
        prop_assert!(live_sides >= 1, "a joint outlived its bodies");
        prop_assert!(a != b);
    }
    for (ca, cb, manifold) in world.contacts() {
        prop_assert!(world.collider(ca).is_some() && world.collider(cb).is_some());
        prop_assert!(manifold.normal.iter().all(|x| x.is_finite()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_edits_never_panic_or_spread_nan(edits in prop::collection::vec(edit(), 1..120)) {
        let mut world = World::default();
        let mut model = Model::default();
        // A floor, so that bodies meet something.
        let floor = world.add_body(RigidBodyBuilder::fixed()).unwrap();
        world.add_collider(ColliderBuilder::halfspace(Vector::y()), floor).unwrap();
        model.bodies.push(floor);
        // And a small pile resting on it, so that edits meet contacts from the start.
        for i in 0..4 {
            let at = Vector::new(0.3 * (i % 2) as Real, 0.5 + i as Real, 0.0);
            let body = world.add_body(RigidBodyBuilder::dynamic().translation(at)).unwrap();
            let collider = world.add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), body).unwrap();
            model.bodies.push(body);
            model.colliders.push(collider);
        }
        for _ in 0..5 {
            world.step(1.0 / 60.0).unwrap();
        }
        for edit in &edits {
            apply(&mut world, &mut model, edit);
            check(&world, &model)?;
        }
        for _ in 0..10 {
            world.step(1.0 / 60.0).unwrap();
            check(&world, &model)?;
        }
    }
}

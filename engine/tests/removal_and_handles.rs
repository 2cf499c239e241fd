//! Removing things a game removes every day, and handles that do not belong: never a panic,
//! always a typed error, and the world steps on. Through the public API only.

mod common;

use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{ColliderBuilder, Error, Event, JointBuilder, RigidBodyBuilder, Spring, World};

const DT: Real = 1.0 / 60.0;

/// A ground slab and a cube resting on it after a second.
fn cube_on_ground() -> (
    World,
    sprung::BodyHandle,
    sprung::ColliderHandle,
    sprung::BodyHandle,
) {
    let mut world = World::default();
    let (ground, slab) = common::ground_with(&mut world, 10.0, |c| c);
    let cube = common::cuboid(
        &mut world,
        Vector::new(0.0, 0.5, 0.0),
        Vector::new(0.5, 0.5, 0.5),
    );
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    assert!(world.contacts().count() > 0, "the cube rests on the slab");
    (world, ground, slab, cube)
}

#[test]
fn removing_a_touching_collider_ends_its_contact_and_wakes_what_it_held() {
    let (mut world, _ground, slab, cube) = cube_on_ground();
    world.drain_events().for_each(drop);
    world.remove_collider(slab).unwrap();
    let ended = world
        .drain_events()
        .filter(|e| matches!(e, Event::ContactEnded { colliders, .. } if colliders.0 == slab || colliders.1 == slab))
        .count();
    assert_eq!(ended, 1, "the slab's contact ends with it");
    assert_eq!(world.contacts().count(), 0);
    assert_eq!(world.remove_collider(slab), Err(Error::StaleHandle));
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    let y = world.body(cube).unwrap().translation().y;
    assert!(y < 0.0, "nothing holds the cube up any more: y = {y}");
}

#[test]
fn removing_a_touching_body_then_editing_before_the_step_does_not_panic() {
    let (mut world, ground, _slab, cube) = cube_on_ground();
    let other = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(3.0, 0.5, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.5), other)
        .unwrap();
    world.step(DT).unwrap();
    world.remove_body(cube).unwrap();
    // Edits between a removal and the next step: each walks the pairs.
    let fresh = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 2.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), fresh)
        .unwrap();
    world
        .add_joint(
            JointBuilder::ball(Point::origin(), Point::new(0.0, 2.0, 0.0)).collide(false),
            other,
            fresh,
        )
        .unwrap();
    world.set_pair_collision(ground, other, false).unwrap();
    world.set_pair_collision(ground, other, true).unwrap();
    world
        .set_pose(other, Isometry::translation(3.0, 1.0, 0.0))
        .unwrap();
    assert_eq!(world.remove_body(cube).unwrap_err(), Error::StaleHandle);
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    assert_eq!(world.body_count(), 3);
}

#[test]
fn removing_every_collider_of_a_resting_pile_one_by_one() {
    let mut world = World::default();
    let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vector::y()), ground)
        .unwrap();
    let mut colliders = Vec::new();
    for i in 0..10 {
        let body = world
            .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(
                0.0,
                0.5 + i as Real,
                0.0,
            )))
            .unwrap();
        colliders.push(
            world
                .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), body)
                .unwrap(),
        );
    }
    for _ in 0..120 {
        world.step(DT).unwrap();
    }
    // From the middle out, a step between some of them.
    for (k, c) in colliders.iter().enumerate().rev() {
        world.remove_collider(*c).unwrap();
        if k % 3 == 0 {
            world.step(DT).unwrap();
        }
    }
    world.step(DT).unwrap();
    assert_eq!(world.contacts().count(), 0);
}

#[test]
fn a_handle_of_another_world_is_stale_here() {
    let (mut world, ground, slab, cube) = cube_on_ground();
    let (mut other, other_ground, other_slab, other_cube) = cube_on_ground();
    assert!(world.body(other_cube).is_none());
    assert!(world.collider(other_slab).is_none());
    assert_eq!(
        world.set_linear_velocity(other_cube, Vector::x()),
        Err(Error::StaleHandle)
    );
    assert_eq!(
        world.remove_body(other_ground).unwrap_err(),
        Error::StaleHandle
    );
    assert_eq!(world.remove_collider(other_slab), Err(Error::StaleHandle));
    assert_eq!(
        world
            .add_joint(
                JointBuilder::ball(Point::origin(), Point::origin()),
                cube,
                other_cube
            )
            .unwrap_err(),
        Error::StaleHandle
    );
    assert_eq!(
        world
            .add_collider(ColliderBuilder::ball(1.0), other_cube)
            .unwrap_err(),
        Error::StaleHandle
    );
    // Each world still answers its own.
    assert!(world.body(cube).is_some() && world.collider(slab).is_some());
    assert!(other.body(other_cube).is_some());
    assert_eq!(world.body_count(), 2);
    world.remove_body(ground).unwrap();
    other.step(DT).unwrap();
    assert_eq!(other.body_count(), 2);
}

#[test]
fn the_hidden_anchor_of_world_joints_cannot_be_reached() {
    let (mut world, _ground, _slab, cube) = cube_on_ground();
    let drag = world
        .add_world_joint(
            JointBuilder::attachment(
                Point::origin(),
                Point::new(0.0, 2.0, 0.0),
                Spring::Frequency {
                    hertz: 2.0,
                    damping_ratio: 1.0,
                },
                1e4,
            ),
            cube,
        )
        .unwrap();
    let anchor = world.joint(drag).unwrap().bodies().0;
    assert_ne!(anchor, cube);
    assert_eq!(world.body_count(), 2);
    assert!(world.body(anchor).is_none());
    assert_eq!(world.remove_body(anchor).unwrap_err(), Error::StaleHandle);
    assert_eq!(
        world
            .add_collider(ColliderBuilder::ball(1.0), anchor)
            .unwrap_err(),
        Error::StaleHandle
    );
    assert_eq!(
        world.set_pose(anchor, Isometry::translation(0.0, 5.0, 0.0)),
        Err(Error::StaleHandle)
    );
    assert_eq!(
        world
            .add_joint(
                JointBuilder::ball(Point::origin(), Point::origin()),
                anchor,
                cube
            )
            .unwrap_err(),
        Error::StaleHandle
    );
    assert_eq!(
        world.set_pair_collision(anchor, cube, false),
        Err(Error::StaleHandle)
    );
    assert_eq!(world.body_count(), 2);
    assert_eq!(world.bodies().count(), 2);
    world.remove_joint(drag).unwrap();
    assert_eq!(world.body_count(), 2);
    world.step(DT).unwrap();
}

#[test]
fn a_refused_world_joint_leaves_no_anchor_behind() {
    let mut world = World::default();
    let a = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    let bad = JointBuilder::attachment(
        Point::origin(),
        Point::origin(),
        Spring::Frequency {
            hertz: Real::NAN,
            damping_ratio: 1.0,
        },
        1.0,
    );
    assert!(world.add_world_joint(bad, a).is_err());
    assert_eq!(world.joints().count(), 0);
    // The next body takes the slot right after `a`: no hidden body was made in between.
    let b = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    let slot = |h: sprung::BodyHandle| {
        let text = format!("{h:?}");
        let at = text.find("index: ").unwrap() + "index: ".len();
        text[at..]
            .split(',')
            .next()
            .unwrap()
            .trim()
            .parse::<u32>()
            .unwrap()
    };
    assert_eq!(slot(b), slot(a) + 1);
}

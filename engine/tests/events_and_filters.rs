//! Filters (groups, per-pair exclusion, sensors) and the events a step reports.

mod common;

use sprung::math::{Isometry, Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, Event, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;

use common::body_at as cube_at;

fn ground(world: &mut World) -> BodyHandle {
    common::ground(world, 20.0)
}

#[test]
fn a_landing_begins_a_contact_with_its_impact_and_lifting_off_ends_it() {
    let mut world = World::default();
    let floor = ground(&mut world);
    // A 1000 kg cube whose bottom falls 1.25 m: it lands at v = sqrt(2 g h) = 4.95 m/s.
    let cube = cube_at(
        &mut world,
        Vector::new(0.0, 1.75, 0.0),
        ColliderBuilder::cuboid(0.5, 0.5, 0.5),
    );
    let momentum = 1000.0 * (2.0 * 9.81 * 1.25_f32).sqrt();
    let mut began = Vec::new();
    for _ in 0..60 {
        world.step(DT).unwrap();
        began.extend(world.drain_events().filter_map(|e| match e {
            Event::ContactBegan {
                bodies, impulse, ..
            } => Some((bodies, impulse)),
            _ => None,
        }));
    }
    assert_eq!(began.len(), 1, "{began:?}");
    let (bodies, impulse) = began[0];
    assert!(bodies == (floor, cube) || bodies == (cube, floor));
    // The impact's momentum is stopped by four corners over the first substeps: the largest
    // one-substep point impulse is a real share of m v, never more than all of it.
    assert!(
        impulse > 0.05 * momentum && impulse <= momentum,
        "impulse {impulse} N s for m v = {momentum}"
    );
    // Thrown up, it leaves the floor: the contact ends, with the impact as its peak.
    world
        .set_linear_velocity(cube, Vector::new(0.0, 5.0, 0.0))
        .unwrap();
    let mut ended = Vec::new();
    for _ in 0..30 {
        world.step(DT).unwrap();
        ended.extend(world.drain_events().filter_map(|e| match e {
            Event::ContactEnded { max_impulse, .. } => Some(max_impulse),
            _ => None,
        }));
    }
    assert_eq!(ended.len(), 1);
    assert!(ended[0] >= impulse, "{} < {impulse}", ended[0]);
}

#[test]
fn a_sensor_reports_a_body_passing_through_and_never_touches_it() {
    let fall = |with_sensor: bool| {
        let mut world = World::default();
        let gate = world
            .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 5.0, 0.0)))
            .unwrap();
        if with_sensor {
            world
                .add_collider(ColliderBuilder::cuboid(2.0, 0.5, 2.0).sensor(true), gate)
                .unwrap();
        }
        let ball = cube_at(
            &mut world,
            Vector::new(0.0, 8.0, 0.0),
            ColliderBuilder::ball(0.25),
        );
        let mut events = Vec::new();
        let mut velocities = Vec::new();
        for _ in 0..90 {
            world.step(DT).unwrap();
            events.extend(world.drain_events());
            velocities.push(world.body(ball).unwrap().linear_velocity());
        }
        (ball, events, velocities)
    };
    let (ball, events, with) = fall(true);
    let (_, _, without) = fall(false);
    // Bit for bit the same fall: the sensor never pushed.
    assert_eq!(with, without);
    let entered: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::SensorEntered { body, .. } => Some(*body),
            _ => None,
        })
        .collect();
    let left: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::SensorLeft { body, .. } => Some(*body),
            _ => None,
        })
        .collect();
    assert_eq!(entered, vec![ball]);
    assert_eq!(left, vec![ball]);
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::ContactBegan { .. })));
}

/// Two cubes stacked; whether the upper one rests on the lower after a second.
fn stays_up(upper: ColliderBuilder, lower: ColliderBuilder) -> bool {
    let mut world = World::default();
    ground(&mut world);
    cube_at(&mut world, Vector::new(0.0, 0.5, 0.0), lower);
    let top = cube_at(&mut world, Vector::new(0.0, 1.5, 0.0), upper);
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    world.body(top).unwrap().translation().y > 1.4
}

#[test]
fn group_masks_are_honoured_both_ways() {
    let cube = || ColliderBuilder::cuboid(0.5, 0.5, 0.5);
    // Group 1 and group 2, each admitting the other: they touch.
    assert!(stays_up(
        cube().collision_groups(1, 2),
        cube().collision_groups(2, 1)
    ));
    // Either side refusing the other is enough to pass through, whichever side it is.
    assert!(!stays_up(
        cube().collision_groups(1, 2),
        cube().collision_groups(2, 0)
    ));
    assert!(!stays_up(
        cube().collision_groups(1, 0),
        cube().collision_groups(2, 1)
    ));
    // A membership the other does not admit: also apart.
    assert!(!stays_up(
        cube().collision_groups(4, u32::MAX),
        cube().collision_groups(2, 1)
    ));
}

#[test]
fn a_pair_can_be_excluded_and_restored() {
    let mut world = World::default();
    ground(&mut world);
    let cube = || ColliderBuilder::cuboid(0.5, 0.5, 0.5);
    let lower = cube_at(&mut world, Vector::new(0.0, 0.5, 0.0), cube());
    let upper = cube_at(&mut world, Vector::new(0.0, 1.5, 0.0), cube());
    world.set_pair_collision(lower, upper, false).unwrap();
    for _ in 0..15 {
        world.step(DT).unwrap();
    }
    // Falling into the lower cube...
    let sunk = world.body(upper).unwrap().translation().y;
    assert!(sunk < 1.2, "{sunk}");
    // ...and pushed back out once they collide again, although their boxes overlapped all
    // along (the broad phase has nothing new to report).
    world.set_pair_collision(lower, upper, true).unwrap();
    for _ in 0..120 {
        world.step(DT).unwrap();
    }
    let y = world.body(upper).unwrap().translation().y;
    assert!(y > 1.4, "{y}");
    // Bad handles are refused.
    assert!(world.set_pair_collision(lower, lower, false).is_err());
}

/// A static body teleported (`set_pose`) onto a body it was apart from touches it at the next
/// step: the narrow phase, which skips pairs known to be apart until their colliders could
/// have moved that far, counts the jump as motion.
#[test]
fn a_static_body_teleported_onto_a_body_touches_it_at_the_next_step() {
    let mut world = World::new(Vector::zeros()).unwrap();
    world.set_sleeping(false);
    let ball = cube_at(&mut world, Vector::zeros(), ColliderBuilder::ball(0.5));
    let corner = Vector::new(0.95, 0.95, 0.95);
    let wall = world
        .add_body(RigidBodyBuilder::fixed().translation(corner))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), wall)
        .unwrap();
    for _ in 0..5 {
        world.step(DT).unwrap();
    }
    // Their boxes overlap at the cube's corner, 0.28 m from the ball: a pair, found apart.
    assert!(world.contacts().all(|(_, _, m)| m.points.is_empty()));
    world.drain_events().for_each(drop);
    // Onto the ball, 0.1 m deep; their boxes still overlap, so the pair goes on.
    world
        .set_pose(wall, Isometry::translation(0.9, 0.0, 0.0))
        .unwrap();
    world.step(DT).unwrap();
    let began = world
        .drain_events()
        .any(|e| matches!(e, Event::ContactBegan { bodies, .. } if bodies == (ball, wall) || bodies == (wall, ball)));
    assert!(began, "no contact began");
    // And pushed out of part of the overlap in that step (the soft contact moves it over a few
    // steps, and its relax pass leaves it no speed).
    let x = world.body(ball).unwrap().translation().x;
    assert!(x < -0.03, "the ball was not pushed out: x = {x}");
}

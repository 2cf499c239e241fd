//! Islands and sleeping: a settled stack sleeps as a unit, costs no solver work while it
//! sleeps, wakes when something touches it or the user changes it, and sleeps again.

mod common;

use sprung::math::{Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, Event, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;

/// A small pyramid of cubes (rows of 4, 3, 2, 1) on a ground box.
fn pyramid(world: &mut World) -> (BodyHandle, Vec<BodyHandle>) {
    let ground = common::ground(world, 20.0);
    let mut cubes = Vec::new();
    for row in 0..4 {
        for j in 0..4 - row {
            let x = j as Real - (3 - row) as Real / 2.0;
            let body = world
                .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(
                    x,
                    0.5 + row as Real,
                    0.0,
                )))
                .unwrap();
            world
                .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), body)
                .unwrap();
            cubes.push(body);
        }
    }
    (ground, cubes)
}

fn asleep(world: &World, bodies: &[BodyHandle]) -> usize {
    bodies
        .iter()
        .filter(|b| world.body(**b).unwrap().is_sleeping())
        .count()
}

/// Steps until every body of `bodies` sleeps, or `limit` steps; returns the steps taken.
fn settle(world: &mut World, bodies: &[BodyHandle], limit: usize) -> usize {
    for step in 1..=limit {
        world.step(DT).unwrap();
        if asleep(world, bodies) == bodies.len() {
            return step;
        }
    }
    panic!(
        "only {} of {} asleep after {limit} steps",
        asleep(world, bodies),
        bodies.len()
    );
}

#[test]
fn a_settled_pyramid_sleeps_is_woken_by_a_ball_and_sleeps_again() {
    let mut world = World::default();
    let (_, cubes) = pyramid(&mut world);
    let steps = settle(&mut world, &cubes, 600);
    // Slow for 0.5 s first: not at once.
    assert!(
        steps as Real * DT >= world.sleep_settings().time_to_sleep,
        "{steps}"
    );
    let events: Vec<Event> = world.drain_events().collect();
    let slept = events
        .iter()
        .filter(|e| matches!(e, Event::BodyFellAsleep(_)))
        .count();
    assert_eq!(slept, cubes.len(), "{events:?}");
    // Asleep, it costs the solver nothing: no contact rows at all.
    let report = world.step(DT).unwrap();
    assert_eq!(report.contact_pairs, 0);
    let poses: Vec<_> = cubes
        .iter()
        .map(|c| *world.body(*c).unwrap().pose())
        .collect();
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    for (c, pose) in cubes.iter().zip(&poses) {
        assert_eq!(
            world.body(*c).unwrap().pose(),
            pose,
            "a sleeping cube moved"
        );
    }

    // A ball thrown at the top cube wakes the whole island, not just the cube it hits. (Damped
    // as it rolls: a ball on a flat floor would otherwise roll on for ever, as it should.)
    let ball = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(-4.0, 3.5, 0.0))
                .linear_velocity(Vector::new(8.0, 0.0, 0.0))
                .angular_damping(2.0),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.3).density(200.0), ball)
        .unwrap();
    let mut woke_all = false;
    for _ in 0..120 {
        world.step(DT).unwrap();
        if asleep(&world, &cubes) == 0 {
            woke_all = true;
            break;
        }
    }
    assert!(woke_all, "the ball did not wake the pyramid");
    let woke = world
        .drain_events()
        .filter(|e| matches!(e, Event::BodyWoke(_)))
        .count();
    assert_eq!(woke, cubes.len());
    // Knocked about, everything (the ball too) comes to rest and sleeps again.
    let mut all = cubes.clone();
    all.push(ball);
    settle(&mut world, &all, 1200);
}

#[test]
fn sleeping_can_be_turned_off_for_the_world_and_for_a_body() {
    let mut world = World::default();
    world.set_sleeping(false);
    let (_, cubes) = pyramid(&mut world);
    for _ in 0..240 {
        world.step(DT).unwrap();
    }
    assert_eq!(asleep(&world, &cubes), 0);
    // Turned back on, the pyramid sleeps; turned off again, it wakes at the next step.
    world.set_sleeping(true);
    settle(&mut world, &cubes, 120);
    world.set_sleeping(false);
    world.step(DT).unwrap();
    assert_eq!(asleep(&world, &cubes), 0);

    // One body that may not sleep keeps its whole island awake, and a lone one sleeps.
    let mut world = World::default();
    let (ground, _) = pyramid(&mut world);
    let restless = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(0.0, 4.5, 0.0))
                .can_sleep(false),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), restless)
        .unwrap();
    let lone = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(8.0, 0.5, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), lone)
        .unwrap();
    for _ in 0..300 {
        world.step(DT).unwrap();
    }
    let stacked: Vec<BodyHandle> = world
        .bodies()
        .map(|(h, _)| h)
        .filter(|h| *h != ground && *h != lone)
        .collect();
    assert_eq!(asleep(&world, &stacked), 0);
    assert!(world.body(lone).unwrap().is_sleeping());
}

#[test]
fn the_user_wakes_what_they_touch() {
    let mut world = World::default();
    let (ground, cubes) = pyramid(&mut world);
    let top = *cubes.last().unwrap();
    settle(&mut world, &cubes, 600);

    // An impulse wakes the island and moves the body.
    world
        .apply_impulse(top, Vector::new(0.0, 5000.0, 0.0))
        .unwrap();
    assert_eq!(asleep(&world, &cubes), 0);
    world.step(DT).unwrap();
    assert!(world.body(top).unwrap().linear_velocity().y > 1.0);
    settle(&mut world, &cubes, 1200);

    // A force too, for the next step.
    world.apply_force(top, Vector::new(0.0, 1.0, 0.0)).unwrap();
    assert_eq!(asleep(&world, &cubes), 0);
    settle(&mut world, &cubes, 1200);

    // Removing what held the stack up wakes it, and it falls.
    world.remove_body(ground).unwrap();
    assert_eq!(asleep(&world, &cubes), 0);
    let y0 = world.body(cubes[0]).unwrap().translation().y;
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    assert!(world.body(cubes[0]).unwrap().translation().y < y0 - 1.0);
}

#[test]
fn a_body_on_a_moving_platform_stays_awake_and_rides() {
    let mut world = World::default();
    let platform = world
        .add_body(
            RigidBodyBuilder::kinematic()
                .translation(Vector::new(0.0, -0.5, 0.0))
                .linear_velocity(Vector::new(1.0, 0.0, 0.0)),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(50.0, 0.5, 5.0), platform)
        .unwrap();
    let rider = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 0.5, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), rider)
        .unwrap();
    for _ in 0..300 {
        world.step(DT).unwrap();
    }
    let body = world.body(rider).unwrap();
    assert!(!body.is_sleeping());
    // Carried by friction at the platform's speed for most of 5 s.
    assert!(body.translation().x > 4.0, "{:?}", body.translation());
}

/// Touch events across sleep, which the step reads without walking the pairs asleep: a pile
/// asleep reports nothing; a ball landing on it begins one contact with it and wakes it, its
/// cubes holding each other up from the step they wake; once
/// everything sleeps again, the ball thrown up from it ends that contact once.
#[test]
fn touch_events_hold_across_sleep_and_waking() {
    let mut world = World::default();
    let (_, cubes) = pyramid(&mut world);
    settle(&mut world, &cubes, 600);
    let _: Vec<Event> = world.drain_events().collect();
    for _ in 0..120 {
        world.step(DT).unwrap();
    }
    let events: Vec<Event> = world.drain_events().collect();
    assert!(events.is_empty(), "events from a sleeping pile: {events:?}");

    let ball = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 5.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.3).density(200.0), ball)
        .unwrap();
    // The cubes woken by the landing keep their contacts from the step they wake (pairs the
    // narrow phase kept as they were, both asleep when it ran): none drops below where it
    // slept by more than the landing's compliance (a step without them is a 2.7 mm fall).
    let height = |world: &World, b: &BodyHandle| world.body(*b).unwrap().translation().y;
    let slept: Vec<Real> = cubes.iter().map(|b| height(&world, b)).collect();
    let (mut began, mut woke) = (0, false);
    let mut sank: Real = 0.0;
    for _ in 0..90 {
        world.step(DT).unwrap();
        woke |= asleep(&world, &cubes) < cubes.len();
        for (b, y) in cubes.iter().zip(&slept) {
            sank = sank.max(y - height(&world, b));
        }
        began += world
            .drain_events()
            .filter(|e| matches!(e, Event::ContactBegan { bodies: (a, b), .. } if *a == ball || *b == ball))
            .count();
    }
    assert_eq!(began, 1, "the ball's landing");
    assert!(woke, "the ball woke the pile");
    assert!(sank < 1e-3, "a woken cube sank {sank} m");

    let mut all = cubes.clone();
    all.push(ball);
    settle(&mut world, &all, 900);
    let _: Vec<Event> = world.drain_events().collect();
    let top = *cubes.last().unwrap();
    world
        .apply_impulse(ball, Vector::new(0.0, 200.0, 0.0))
        .unwrap();
    let mut ball_ended = 0;
    for _ in 0..30 {
        world.step(DT).unwrap();
        ball_ended += world
            .drain_events()
            .filter(|e| {
                matches!(e, Event::ContactEnded { bodies: (a, b), .. }
                    if (*a, *b) == (top, ball) || (*a, *b) == (ball, top))
            })
            .count();
    }
    assert_eq!(ball_ended, 1, "the ball thrown up left the pile");
}

/// A world at rest for a while (the narrow phase then skips its walk over the pairs) still
/// sees what the user changes: the ground teleported from under the sleeping pile wakes it and
/// the pile follows it, whether the ground drops a little (the pairs' boxes still overlap, and
/// their manifolds must follow the ground) or far (the pairs end). Fails if the broad phase
/// takes a static body for a sleeping one and misses its teleport (checked).
#[test]
fn a_world_long_at_rest_sees_its_ground_teleported() {
    for drop in [0.02, 1.0] {
        let mut world = World::default();
        let (ground, cubes) = pyramid(&mut world);
        settle(&mut world, &cubes, 600);
        for _ in 0..60 {
            let report = world.step(DT).unwrap();
            assert_eq!(report.contact_pairs, 0);
        }
        let _: Vec<Event> = world.drain_events().collect();
        let y0 = world.body(cubes[0]).unwrap().translation().y;
        let mut pose = *world.body(ground).unwrap().pose();
        pose.translation.vector.y -= drop;
        world.set_pose(ground, pose).unwrap();
        let mut ended = 0;
        for _ in 0..60 {
            world.step(DT).unwrap();
            ended += world
                .drain_events()
                .filter(|e| {
                    matches!(e, Event::ContactEnded { bodies: (a, b), .. } if *a == ground || *b == ground)
                })
                .count();
        }
        let fell = y0 - world.body(cubes[0]).unwrap().translation().y;
        if drop < 0.5 {
            // Landed again on the ground, as far below as it went (within the contacts' give).
            assert!(
                (fell - drop).abs() < 3e-3,
                "fell {fell} m for a drop of {drop}"
            );
        } else {
            // The bottom row (four cubes) stood on the ground: a second of free fall is 4.9 m,
            // so it landed on the ground 1 m below (ending and beginning again its contacts).
            assert!(
                ended >= 4,
                "the bottom row's contacts with the ground: {ended}"
            );
            assert!(
                (fell - drop).abs() < 3e-3,
                "fell {fell} m for a drop of {drop}"
            );
        }
    }
}

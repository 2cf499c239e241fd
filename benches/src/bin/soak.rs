//! The soak run: a million steps of a world that never stops changing, to show that memory stays
//! flat, nothing turns NaN, energy stays bounded and steps do not slow down.
//!
//! Boxes, balls and capsules rain into a bin (one every 8 steps, at a seeded random place and
//! spin); past 160 bodies the oldest is removed (touching its neighbours: the removal path that
//! used to panic). Every 40 steps a ball joint with a breaking force joins a random body to its
//! nearest neighbour where they stand, and past 24 joints the oldest is removed; overloaded ones break on their own. Every 100,000
//! steps the world is saved and the run goes on in the restored copy (its hash checked equal).
//!
//! `cargo run --release -p sprung-benches --bin soak -- [--steps N] [--window N]` prints one JSON
//! line per window of steps, then a summary line. Not a test: its figures go in
//! docs/RELIABILITY.md.

use std::collections::VecDeque;
use std::time::Instant;

use sprung::math::{Point, Real, Vector};
use sprung::{
    BodyHandle, ColliderBuilder, Event, JointBuilder, JointHandle, RigidBodyBuilder, World,
};
use sprung_demos::rng::Rng;

const DT: Real = 1.0 / 60.0;
const MAX_BODIES: usize = 160;
const MAX_JOINTS: usize = 24;
const HALF_WIDTH: Real = 4.0;

/// Resident memory (KiB) from /proc (0 where there is none).
fn resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4)
}

fn bin() -> World {
    let mut world = World::default();
    let ground = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(20.0, 1.0, 20.0), ground)
        .unwrap();
    for (at, half) in [
        (
            Vector::new(HALF_WIDTH + 0.5, 4.0, 0.0),
            Vector::new(0.5, 4.0, HALF_WIDTH),
        ),
        (
            Vector::new(-HALF_WIDTH - 0.5, 4.0, 0.0),
            Vector::new(0.5, 4.0, HALF_WIDTH),
        ),
        (
            Vector::new(0.0, 4.0, HALF_WIDTH + 0.5),
            Vector::new(HALF_WIDTH, 4.0, 0.5),
        ),
        (
            Vector::new(0.0, 4.0, -HALF_WIDTH - 0.5),
            Vector::new(HALF_WIDTH, 4.0, 0.5),
        ),
    ] {
        let wall = world
            .add_body(RigidBodyBuilder::fixed().translation(at))
            .unwrap();
        world
            .add_collider(ColliderBuilder::cuboid(half.x, half.y, half.z), wall)
            .unwrap();
    }
    world
}

/// Kinetic plus potential energy (J, height from the ground) of the dynamic bodies, the fastest
/// speed, and how many numbers are not finite.
fn energy(world: &World) -> (f64, f64, usize) {
    let g = world.gravity().norm() as f64;
    let (mut total, mut fastest, mut bad) = (0.0, 0.0_f64, 0);
    for (_, b) in world.bodies() {
        if b.kind() != sprung::BodyKind::Dynamic {
            continue;
        }
        let finite = b
            .translation()
            .iter()
            .chain(b.linear_velocity().iter())
            .chain(b.angular_velocity().iter())
            .all(|x| x.is_finite());
        if !finite {
            bad += 1;
            continue;
        }
        let m = b.mass().mass as f64;
        let v = b.linear_velocity().norm() as f64;
        let w = b.angular_velocity();
        let spin = (w.transpose() * b.world_inertia() * w)[0] as f64;
        total += 0.5 * m * v * v + 0.5 * spin + m * g * b.translation().y as f64;
        fastest = fastest.max(v);
    }
    (total, fastest, bad)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1)?.parse().ok())
            .unwrap_or(default)
    };
    let steps = flag("--steps", 1_000_000);
    let window = flag("--window", 10_000).max(1);

    let mut world = bin();
    let mut rng = Rng(42);
    let mut bodies: VecDeque<BodyHandle> = VecDeque::new();
    let mut joints: VecDeque<JointHandle> = VecDeque::new();
    let (mut added, mut removed, mut made, mut broken, mut quarantined) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut worst_energy_per_body, mut non_finite_total) = (0.0_f64, 0usize);
    let mut windows: Vec<(f64, u64)> = Vec::new();
    let mut clock = Instant::now();
    let mut step_time = 0.0_f64;
    for step in 1..=steps {
        if step % 8 == 0 {
            let at = Vector::new(
                rng.range(-HALF_WIDTH + 1.0, HALF_WIDTH - 1.0),
                9.0 + rng.range(0.0, 2.0),
                rng.range(-HALF_WIDTH + 1.0, HALF_WIDTH - 1.0),
            );
            let collider = match added % 3 {
                0 => ColliderBuilder::cuboid(0.4, 0.3, 0.25),
                1 => ColliderBuilder::ball(0.35),
                _ => ColliderBuilder::capsule(0.3, 0.2),
            };
            let body = world
                .add_body(
                    RigidBodyBuilder::dynamic()
                        .translation(at)
                        .angular_velocity(rng.vector(3.0)),
                )
                .unwrap();
            world.add_collider(collider, body).unwrap();
            bodies.push_back(body);
            added += 1;
            if bodies.len() > MAX_BODIES {
                let oldest = bodies.pop_front().unwrap();
                world.remove_body(oldest).unwrap();
                removed += 1;
            }
        }
        if step % 40 == 0 && bodies.len() > 2 {
            // A random body and its nearest neighbour, joined where they are now (at their
            // midpoint), if they are within reach: a joint between far-apart bodies would fling
            // them together, which is the user's doing, not the engine's.
            let i = (rng.next_u64() % bodies.len() as u64) as usize;
            let pose = |h: BodyHandle| *world.body(h).unwrap().pose();
            let here = pose(bodies[i]).translation.vector;
            let nearest = bodies
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(j, &h)| ((pose(h).translation.vector - here).norm(), j))
                .min_by(|x, y| x.0.total_cmp(&y.0));
            if let Some((_, j)) = nearest.filter(|n| n.0 < 1.2) {
                let mid = Point::from((here + pose(bodies[j]).translation.vector) / 2.0);
                let anchor_a = pose(bodies[i]).inverse_transform_point(&mid);
                let anchor_b = pose(bodies[j]).inverse_transform_point(&mid);
                let joint = JointBuilder::ball(anchor_a, anchor_b).break_force(2_000.0);
                if let Ok(h) = world.add_joint(joint, bodies[i], bodies[j]) {
                    joints.push_back(h);
                    made += 1;
                }
            }
            if joints.len() > MAX_JOINTS {
                let _ = world.remove_joint(joints.pop_front().unwrap());
            }
        }
        let start = Instant::now();
        let report = world.step(DT).unwrap();
        step_time += start.elapsed().as_secs_f64();
        quarantined += report.quarantined as u64;
        for event in world.drain_events() {
            if let Event::JointBroken { .. } = event {
                broken += 1;
            }
        }
        if step % 100_000 == 0 {
            let hash = world.state_hash();
            world = World::restore(&world.save()).unwrap();
            assert_eq!(world.state_hash(), hash, "the restored copy differs");
        }
        if step % window == 0 {
            let (e, fastest, bad) = energy(&world);
            non_finite_total += bad;
            let per_body = e / bodies.len().max(1) as f64;
            if step > window {
                worst_energy_per_body = worst_energy_per_body.max(per_body);
            }
            let ms = step_time * 1e3 / window as f64;
            let rss = resident_kib();
            windows.push((ms, rss));
            let asleep = world.bodies().filter(|(_, b)| b.is_sleeping()).count();
            println!(
                "{{\"step\":{step},\"bodies\":{},\"asleep\":{asleep},\"joints\":{},\"ms_per_step\":{ms:.4},\"rss_kib\":{rss},\"energy_j\":{e:.1},\"energy_per_body_j\":{per_body:.2},\"max_speed\":{fastest:.3},\"non_finite\":{bad},\"added\":{added},\"removed\":{removed},\"joints_made\":{made},\"joints_broken\":{broken},\"quarantined\":{quarantined},\"wall_s\":{:.1}}}",
                bodies.len(),
                world.joints().count(),
                clock.elapsed().as_secs_f64()
            );
            step_time = 0.0;
            if step == window {
                clock = Instant::now();
            }
        }
    }
    // After warm-up (the second window, once the bin is full) against the end.
    let settled = windows.get(windows.len().min(2).saturating_sub(1)).copied();
    let last = windows.last().copied();
    if let (Some((ms0, rss0)), Some((ms1, rss1))) = (settled, last) {
        let best = windows.iter().map(|w| w.0).fold(f64::INFINITY, f64::min);
        let worst = windows.iter().skip(1).map(|w| w.0).fold(0.0, f64::max);
        println!(
            "{{\"summary\":true,\"steps\":{steps},\"rss_kib_after_warmup\":{rss0},\"rss_kib_end\":{rss1},\"ms_per_step_after_warmup\":{ms0:.4},\"ms_per_step_end\":{ms1:.4},\"ms_per_step_best_window\":{best:.4},\"ms_per_step_worst_window\":{worst:.4},\"max_energy_per_body_j\":{worst_energy_per_body:.2},\"non_finite\":{non_finite_total},\"quarantined\":{quarantined},\"bodies_added\":{added},\"bodies_removed\":{removed},\"joints_made\":{made},\"joints_broken\":{broken}}}"
        );
    }
}

//! Stacks that rest: a tower of cubes and a brick wall, placed exactly touching, must settle
//! where they were put (a soft contact sinks by about `F / (m_eff (2 pi f)^2)`, PHYSICS.md, so
//! this also pins the contact stiffness) and fall asleep, not rock by themselves.

use sprung::math::{Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;

fn tuned() -> World {
    let mut world = World::default();
    let mut s = *world.settings();
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<Real>().ok());
    if let Some(v) = env("HZ") {
        s.contact_hertz = v;
    }
    if let Some(v) = env("SHZ") {
        s.static_contact_hertz = v;
    }
    if let Some(v) = env("ZETA") {
        s.contact_damping_ratio = v;
    }
    if let Some(v) = env("SUB") {
        s.substeps = v as u32;
    }
    if let Some(v) = env("RELAX") {
        s.relax_iterations = v as u32;
    }
    if let Some(v) = env("FB") {
        s.friction_in_biased_pass = v != 0.0;
    }
    world.set_settings(s).unwrap();
    world
}

fn ground(world: &mut World) {
    let ground = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(50.0, 1.0, 50.0), ground)
        .unwrap();
}

fn cuboid(world: &mut World, at: Vector<Real>, half: Vector<Real>) -> BodyHandle {
    let body = world
        .add_body(RigidBodyBuilder::dynamic().translation(at))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(half.x, half.y, half.z), body)
        .unwrap();
    body
}

/// What a run of `seconds` did to `bodies`: the largest distance any moved from its start at
/// any step, the largest speed at the end, and the time when all were first asleep.
struct Settling {
    max_moved: Real,
    max_sideways: Real,
    max_sink: Real,
    end_speed: Real,
    asleep_at: Option<Real>,
}

fn run(world: &mut World, bodies: &[BodyHandle], seconds: Real) -> Settling {
    let start: Vec<Vector<Real>> = bodies
        .iter()
        .map(|b| world.body(*b).unwrap().pose().translation.vector)
        .collect();
    let mut result = Settling {
        max_moved: 0.0,
        max_sideways: 0.0,
        max_sink: 0.0,
        end_speed: 0.0,
        asleep_at: None,
    };
    let steps = (seconds / DT).round() as usize;
    for step in 1..=steps {
        world.step(DT).unwrap();
        for (b, s) in bodies.iter().zip(&start) {
            let moved = world.body(*b).unwrap().pose().translation.vector - s;
            result.max_moved = result.max_moved.max(moved.norm());
            result.max_sideways = result.max_sideways.max(moved.xz().norm());
            result.max_sink = result.max_sink.max(-moved.y);
        }
        let all_asleep = bodies.iter().all(|b| world.body(*b).unwrap().is_sleeping());
        if all_asleep && result.asleep_at.is_none() {
            result.asleep_at = Some(step as Real * DT);
        }
    }
    result.end_speed = bodies
        .iter()
        .map(|b| world.body(*b).unwrap().linear_velocity().norm())
        .fold(0.0, Real::max);
    result
}

/// Sixteen unit cubes, one on another, each resting exactly on the one below.
#[test]
#[ignore = "contact solver rebuild under way (issue 13): sinks 25 mm at 60 Hz contact springs, leans 4 mm"]
fn a_tower_of_sixteen_cubes_stays_within_5_mm_and_sleeps_within_4_s() {
    let mut world = tuned();
    ground(&mut world);
    let cubes: Vec<BodyHandle> = (0..16)
        .map(|i| {
            cuboid(
                &mut world,
                Vector::new(0.0, 0.5 + i as Real, 0.0),
                Vector::new(0.5, 0.5, 0.5),
            )
        })
        .collect();
    let s = run(&mut world, &cubes, 6.0);
    eprintln!(
        "tower16: max moved {:.5} m (sideways {:.5}, sink {:.5}), end speed {:.5} m/s, asleep at {:?} s",
        s.max_moved, s.max_sideways, s.max_sink, s.end_speed, s.asleep_at
    );
    assert!(s.max_moved < 0.005, "moved {} m", s.max_moved);
    assert!(
        s.asleep_at.is_some_and(|t| t <= 4.0),
        "asleep at {:?}",
        s.asleep_at
    );
}

/// Thirty rows of ten bricks (2 x 0.5 x 1 m), running bond: each row shifted half a brick.
#[test]
// At 60 Hz contact springs the wall is near buckling: each course's rotational stiffness about
// the wall's length (4 points a brick at +-0.5 m) is about 1.8e8 N m/rad, and the sum over the
// courses of (weight above x its height) / stiffness comes to about 1.3, so a lean grows.
#[ignore = "contact solver rebuild under way (issue 13): the wall leans 0.15 m (0.01 with 2 relax passes)"]
fn a_wall_of_thirty_rows_stands_sinks_less_than_3_cm_and_sleeps() {
    let mut world = tuned();
    ground(&mut world);
    let half = Vector::new(1.0, 0.25, 0.5);
    let mut bricks = Vec::new();
    for row in 0..30 {
        let shift = if row % 2 == 0 { 0.0 } else { 1.0 };
        for i in 0..10 {
            let at = Vector::new(
                -10.0 + 2.0 * i as Real + shift,
                0.25 + 0.5 * row as Real,
                0.0,
            );
            bricks.push(cuboid(&mut world, at, half));
        }
    }
    let s = run(&mut world, &bricks, 8.0);
    eprintln!(
        "wall30: max moved {:.5} m (sideways {:.5}, sink {:.5}), end speed {:.5} m/s, asleep at {:?} s",
        s.max_moved, s.max_sideways, s.max_sink, s.end_speed, s.asleep_at
    );
    assert!(s.max_moved < 0.03, "moved {} m", s.max_moved);
    assert!(s.asleep_at.is_some(), "never asleep");
}

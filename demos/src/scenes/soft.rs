//! `rope` and `cloth`: the spring toolkit's position-based mass-spring system in a world (not
//! part of SCENES.md; the spring toolkit's own scenes).

use sprung::math::{Point, Real, Vector};
use sprung::spring::MassSpring;
use sprung::{ColliderBuilder, RigidBodyBuilder};

use super::common::{world_with_ground, GRAVITY};
use super::{Check, Scene};

const DT: Real = 1.0 / 60.0;

/// A 6 m rope of 61 points, pinned at one end 8 m up and released horizontally, swinging down
/// past a static box that it drapes over.
pub fn rope() -> Scene {
    let mut world = world_with_ground();
    let post = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(2.0, 2.0, 0.0)))
        .expect("valid post");
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 2.0, 0.5), post)
        .expect("valid post box");
    let mut rope = MassSpring::new(1.0, GRAVITY, DT).expect("valid rope");
    rope.iterations = 40;
    rope.set_damping(0.02).expect("valid damping");
    let mut previous = rope
        .add_point(Point::new(0.0, 8.0, 0.0), true)
        .expect("finite");
    for i in 1..=60 {
        let p = rope
            .add_point(Point::new(0.1 * i as Real, 8.0, 0.0), false)
            .expect("finite");
        rope.add_spring(previous, p).expect("existing points");
        previous = p;
    }
    // Position-based springs give a little under load: a rope's links share its weight.
    let check = Check::MassSpring {
        max_stretch: 1.1,
        floor: -0.01,
        max_motion: 0.01,
    };
    Scene {
        mass_spring: Some(rope),
        ..Scene::new(world, Vec::new(), check)
    }
}

/// A 3 m square cloth of 31 x 31 points dropped from 3 m onto a static sphere of radius 1 m.
pub fn cloth() -> Scene {
    const N: usize = 31;
    let mut world = world_with_ground();
    let ball = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 1.0, 0.0)))
        .expect("valid ball");
    world
        .add_collider(ColliderBuilder::ball(1.0), ball)
        .expect("valid sphere");
    let mut cloth = MassSpring::new(1.0, GRAVITY, DT).expect("valid cloth");
    cloth.set_damping(0.02).expect("valid damping");
    for i in 0..N {
        for k in 0..N {
            let at = Point::new(0.1 * i as Real - 1.5, 3.0, 0.1 * k as Real - 1.5);
            cloth.add_point(at, false).expect("finite");
        }
    }
    for i in 0..N {
        for k in 0..N {
            if i + 1 < N {
                cloth
                    .add_spring(i * N + k, (i + 1) * N + k)
                    .expect("existing points");
            }
            if k + 1 < N {
                cloth
                    .add_spring(i * N + k, i * N + k + 1)
                    .expect("existing points");
            }
        }
    }
    let check = Check::MassSpring {
        max_stretch: 1.05,
        floor: -0.01,
        max_motion: 0.01,
    };
    Scene {
        mass_spring: Some(cloth),
        ..Scene::new(world, Vec::new(), check)
    }
}

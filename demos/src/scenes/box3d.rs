//! Box3D's three benchmark scenes (erincatto/box3d, benchmark/) with Box3D's own parameters, as
//! SCENES.md rebuilds them: `large_pyramid`, `many_pyramids` and `joint_grid100`. Gravity
//! (0, -10, 0), friction 0.6, restitution 0, no damping, and sleeping off for the whole run.

use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, JointBuilder, RigidBodyBuilder, World};

use super::common::{body, ground};
use super::{Check, Scene};

/// Box3D's gravity (m/s^2).
const GRAVITY: Vector<Real> = Vector::new(0.0, -10.0, 0.0);
/// Box3D's friction.
const FRICTION: Real = 0.6;
/// Box3D's cube density (kg/m^3).
const CUBE_DENSITY: Real = 100.0;

/// A world with Box3D's gravity, sleeping off.
fn world() -> World {
    let mut world = World::new(GRAVITY).expect("finite gravity");
    world.set_sleeping(false);
    world
}

/// A cube of half-extent 0.5 and density 100 at rest, unrotated, centred at `at`.
fn cube(world: &mut World, at: Vector<Real>) -> (BodyHandle, Isometry<Real>) {
    let cube = ColliderBuilder::cuboid(0.5, 0.5, 0.5)
        .density(CUBE_DENSITY)
        .friction(FRICTION);
    body(world, at, cube)
}

/// Ground of half-extents (400, 1, 400); row i (0..100) holds 100 - i cubes, cube m centred at
/// x = -49.5 + 0.5 i + m, y = 0.5 + i, z = 0.
pub fn large_pyramid() -> Scene {
    const ROWS: usize = 100;
    let mut world = world();
    ground(&mut world, Vector::new(400.0, 1.0, 400.0), FRICTION);
    let mut tracked = Vec::with_capacity(ROWS * (ROWS + 1) / 2);
    for i in 0..ROWS {
        for m in 0..ROWS - i {
            let at = Vector::new(-49.5 + 0.5 * i as Real + m as Real, 0.5 + i as Real, 0.0);
            tracked.push(cube(&mut world, at));
        }
    }
    let check = Check::Stack {
        max_drift: 0.05,
        max_sink: 0.5,
        min_y: 0.45,
    };
    Scene::new(world, tracked, check)
}

/// Ground of half-extents (77, 1, 77); 14 x 14 pyramids of 10 levels, level i of pyramid (c, r)
/// holding 10 - i cubes centred at x = -76 + 11 c + 0.5 i + m, y = 0.5 + i,
/// z = -76 + r * 152/13.
pub fn many_pyramids() -> Scene {
    const GRID: usize = 14;
    const LEVELS: usize = 10;
    let mut world = world();
    ground(&mut world, Vector::new(77.0, 1.0, 77.0), FRICTION);
    let mut tracked = Vec::with_capacity(GRID * GRID * LEVELS * (LEVELS + 1) / 2);
    for c in 0..GRID {
        for r in 0..GRID {
            let z = -76.0 + r as Real * 152.0 / 13.0;
            for i in 0..LEVELS {
                for m in 0..LEVELS - i {
                    let x = -76.0 + 11.0 * c as Real + 0.5 * i as Real + m as Real;
                    tracked.push(cube(&mut world, Vector::new(x, 0.5 + i as Real, z)));
                }
            }
        }
    }
    let check = Check::Stack {
        max_drift: 0.05,
        max_sink: 0.2,
        min_y: 0.45,
    };
    Scene::new(world, tracked, check)
}

/// No ground; body (k, i) (k, i = 0..100) is a sphere of radius 0.4 and density 1000 centred at
/// (k, -i, 0), static for i = 0; spheres never collide with each other. Ball joints (the joined
/// bodies not colliding) join (k, i - 1) to (k, i) at local (0, -0.5, 0) and (0, 0.5, 0), and
/// (k - 1, i) to (k, i) at local (0.5, 0, 0) and (-0.5, 0, 0). The 99 joints between two static
/// bodies (row i = 0) are left out, as SCENES.md allows: 9900 + 9801 = 19,701 joints.
/// Bodies and joints are made in Box3D's order: k outermost, each body's joints after it.
pub fn joint_grid100() -> Scene {
    const N: usize = 100;
    const GRID: u32 = 1 << 2;
    let mut world = world();
    let mut bodies = Vec::with_capacity(N * N);
    let mut tracked = Vec::with_capacity(N * (N - 1));
    for k in 0..N {
        for i in 0..N {
            let at = Vector::new(k as Real, -(i as Real), 0.0);
            let builder = if i == 0 {
                RigidBodyBuilder::fixed()
            } else {
                RigidBodyBuilder::dynamic()
            };
            let body = world.add_body(builder.translation(at)).expect("valid body");
            // A member of GRID meeting everything but GRID: spheres never collide.
            let sphere = ColliderBuilder::ball(0.4)
                .density(1000.0)
                .friction(FRICTION)
                .collision_groups(GRID, !GRID);
            world.add_collider(sphere, body).expect("valid sphere");
            bodies.push(body);
            if i > 0 {
                tracked.push((body, Isometry::translation(at.x, at.y, at.z)));
                let above = bodies[k * N + i - 1];
                let joint =
                    JointBuilder::ball(Point::new(0.0, -0.5, 0.0), Point::new(0.0, 0.5, 0.0));
                world.add_joint(joint, above, body).expect("valid joint");
            }
            if k > 0 && i > 0 {
                let left = bodies[(k - 1) * N + i];
                let joint =
                    JointBuilder::ball(Point::new(0.5, 0.0, 0.0), Point::new(-0.5, 0.0, 0.0));
                world.add_joint(joint, left, body).expect("valid joint");
            }
        }
    }
    let check = Check::Joints {
        max_error: 0.1,
        finite: true,
    };
    Scene::new(world, tracked, check)
}

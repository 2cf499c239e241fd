//! `joint_grid` (2500 spheres held by 4900 ball joints) and `spring_net` (900 bodies held by
//! stiff distance springs), as SCENES.md builds them.

use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{ColliderBuilder, JointBuilder, RigidBodyBuilder, Spring};

use super::common::{world_with_ground, DENSITY, FRICTION};
use super::{Check, Scene};

/// A 50 x 50 grid of spheres in the x-y plane, each joined to its right and lower neighbour at
/// the midpoint; spheres with j = 0 and i a multiple of 10 are static.
pub fn joint_grid() -> Scene {
    const N: usize = 50;
    let mut world = world_with_ground();
    let mut bodies = Vec::with_capacity(N * N);
    let mut tracked = Vec::new();
    for i in 0..N {
        for j in 0..N {
            let at = Vector::new(i as Real, 60.0 - j as Real, 0.0);
            let fixed = j == 0 && i % 10 == 0;
            let builder = if fixed {
                RigidBodyBuilder::fixed()
            } else {
                RigidBodyBuilder::dynamic()
            };
            let body = world.add_body(builder.translation(at)).expect("valid body");
            world
                .add_collider(
                    ColliderBuilder::ball(0.25)
                        .density(DENSITY)
                        .friction(FRICTION),
                    body,
                )
                .expect("valid ball");
            bodies.push(body);
            if !fixed {
                tracked.push((body, Isometry::translation(at.x, at.y, at.z)));
            }
        }
    }
    let at = |i: usize, j: usize| bodies[i * N + j];
    for i in 0..N {
        for j in 0..N {
            if i + 1 < N {
                let joint =
                    JointBuilder::ball(Point::new(0.5, 0.0, 0.0), Point::new(-0.5, 0.0, 0.0));
                world
                    .add_joint(joint, at(i, j), at(i + 1, j))
                    .expect("valid joint");
            }
            if j + 1 < N {
                // (i, j + 1) hangs one metre below (i, j).
                let joint =
                    JointBuilder::ball(Point::new(0.0, -0.5, 0.0), Point::new(0.0, 0.5, 0.0));
                world
                    .add_joint(joint, at(i, j), at(i, j + 1))
                    .expect("valid joint");
            }
        }
    }
    let check = Check::Joints {
        max_error: 0.05,
        finite: false,
    };
    Scene::new(world, tracked, check)
}

/// A 30 x 30 net of 1 kg cubes joined to their +x and +z neighbours by distance springs
/// (rest 0.5 m, 10,000 N/m, 70 N s/m), its corners hung from static anchors by zero-length
/// springs on all three axes (100,000 N/m, 600 N s/m); linear damping 2 /s; the net's bodies
/// do not collide with each other.
pub fn spring_net() -> Scene {
    const N: usize = 30;
    const NET: u32 = 1 << 1;
    let mut world = world_with_ground();
    let mut bodies = Vec::with_capacity(N * N);
    let mut tracked = Vec::new();
    for i in 0..N {
        for k in 0..N {
            let at = Vector::new(0.5 * i as Real - 7.25, 20.0, 0.5 * k as Real - 7.25);
            let body = world
                .add_body(
                    RigidBodyBuilder::dynamic()
                        .translation(at)
                        .linear_damping(2.0),
                )
                .expect("valid body");
            // 1 kg: density 125 times (0.2 m)^3. Members of NET, colliding with all but NET.
            let cube = ColliderBuilder::cuboid(0.1, 0.1, 0.1)
                .density(125.0)
                .friction(FRICTION)
                .collision_groups(NET, !NET);
            world.add_collider(cube, body).expect("valid cube");
            bodies.push(body);
            tracked.push((body, Isometry::translation(at.x, at.y, at.z)));
        }
    }
    let at = |i: usize, k: usize| bodies[i * N + k];
    let net_spring = Spring::Stiffness {
        stiffness: 10_000.0,
        damping: 70.0,
    };
    for i in 0..N {
        for k in 0..N {
            let spring =
                JointBuilder::distance(Point::origin(), Point::origin(), 0.5).spring(net_spring);
            if i + 1 < N {
                world
                    .add_joint(spring.clone(), at(i, k), at(i + 1, k))
                    .expect("valid spring");
            }
            if k + 1 < N {
                world
                    .add_joint(spring, at(i, k), at(i, k + 1))
                    .expect("valid spring");
            }
        }
    }
    let corner_spring = Spring::Stiffness {
        stiffness: 100_000.0,
        damping: 600.0,
    };
    for (i, k) in [(0, 0), (N - 1, 0), (0, N - 1), (N - 1, N - 1)] {
        let corner = at(i, k);
        let centre = world.body(corner).expect("live").translation();
        let anchor = world
            .add_body(RigidBodyBuilder::fixed().translation(centre))
            .expect("valid anchor");
        let joint = JointBuilder::ball(Point::origin(), Point::origin()).spring(corner_spring);
        world
            .add_joint(joint, anchor, corner)
            .expect("valid corner spring");
    }
    let check = Check::SpringNet {
        rest_length: 0.5,
        stretch: (1.358, 0.03),
        min_y: (12.69, 0.1),
        max_speed: 0.05,
    };
    Scene::new(world, tracked, check)
}

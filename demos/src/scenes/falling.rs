//! `boxes` (4096 falling cubes), `balls` (8000 spheres in a bin) and `convex` (1000 falling
//! convex hulls), as SCENES.md builds them.

use sprung::math::{Point, Real, Vector};
use sprung::ColliderBuilder;

use super::common::{body, cube, static_box, world_with_ground, DENSITY, FRICTION};
use super::{Check, Scene};
use crate::rng::Rng;

/// A 16 x 16 x 16 grid of cubes; cube (a, b, c) is centred at
/// (1.2 a - 9, 5 + 1.2 b, 1.2 c - 9).
pub fn boxes() -> Scene {
    const N: usize = 16;
    let mut world = world_with_ground();
    let mut tracked = Vec::with_capacity(N * N * N);
    for a in 0..N {
        for b in 0..N {
            for c in 0..N {
                let at = Vector::new(
                    1.2 * a as Real - 9.0,
                    5.0 + 1.2 * b as Real,
                    1.2 * c as Real - 9.0,
                );
                tracked.push(cube(&mut world, at));
            }
        }
    }
    Scene::new(world, tracked, Check::Fallen { min_y: 0.4 })
}

/// A bin of four static walls on the ground and a 20 x 20 x 20 grid of spheres of radius 0.5;
/// sphere (a, b, c) is centred at (1.1 a - 10.45, 2 + 1.1 b, 1.1 c - 10.45).
pub fn balls() -> Scene {
    const N: usize = 20;
    let mut world = world_with_ground();
    for x in [13.5, -13.5] {
        let wall = Vector::new(0.5, 10.0, 13.0);
        static_box(&mut world, wall, Vector::new(x, 10.0, 0.0), FRICTION);
    }
    for z in [13.5, -13.5] {
        let wall = Vector::new(13.0, 10.0, 0.5);
        static_box(&mut world, wall, Vector::new(0.0, 10.0, z), FRICTION);
    }
    let mut tracked = Vec::with_capacity(N * N * N);
    for a in 0..N {
        for b in 0..N {
            for c in 0..N {
                let at = Vector::new(
                    1.1 * a as Real - 10.45,
                    2.0 + 1.1 * b as Real,
                    1.1 * c as Real - 10.45,
                );
                let ball = ColliderBuilder::ball(0.5)
                    .density(DENSITY)
                    .friction(FRICTION);
                tracked.push(body(&mut world, at, ball));
            }
        }
    }
    let check = Check::Bin {
        half_width: 13.0,
        floor: 0.4,
    };
    Scene::new(world, tracked, check)
}

/// A 10 x 10 x 10 grid of hulls of 10 random points each (splitmix64 seeded 42, each point's
/// x, y, z drawn in turn as u - 0.5, hull after hull with a outermost); hull (a, b, c) has its
/// body's origin, the frame its points were drawn in, at (1.5 a - 6.75, 3 + 1.5 b,
/// 1.5 c - 6.75).
pub fn convex() -> Scene {
    const N: usize = 10;
    let mut rng = Rng(42);
    let mut world = world_with_ground();
    let mut tracked = Vec::with_capacity(N * N * N);
    for a in 0..N {
        for b in 0..N {
            for c in 0..N {
                let points: Vec<Point<Real>> = (0..10)
                    .map(|_| {
                        let x = rng.unit() - 0.5;
                        let y = rng.unit() - 0.5;
                        let z = rng.unit() - 0.5;
                        Point::new(x, y, z)
                    })
                    .collect();
                let at = Vector::new(
                    1.5 * a as Real - 6.75,
                    3.0 + 1.5 * b as Real,
                    1.5 * c as Real - 6.75,
                );
                let hull = ColliderBuilder::convex_hull(&points)
                    .density(DENSITY)
                    .friction(FRICTION);
                tracked.push(body(&mut world, at, hull));
            }
        }
    }
    Scene::new(world, tracked, Check::Hulls { min_vertex_y: -0.1 })
}

//! `pyramid` (a wall of 465 cubes) and `pyramid3d` (a square pyramid of 650 cubes).

use sprung::math::{Real, Vector};

use super::common::{cube, world_with_ground};
use super::{Check, Scene};

const STACK: Check = Check::Stack {
    max_drift: 0.05,
    max_sink: 0.2,
    min_y: 0.45,
};

/// Row i (0..30) holds 30 - i cubes; cube j is centred at x = j - (29 - i)/2, y = 0.5 + i, z = 0.
pub fn pyramid() -> Scene {
    let mut world = world_with_ground();
    let mut tracked = Vec::new();
    for i in 0..30 {
        for j in 0..30 - i {
            let at = Vector::new(j as Real - (29 - i) as Real / 2.0, 0.5 + i as Real, 0.0);
            tracked.push(cube(&mut world, at));
        }
    }
    Scene::new(world, tracked, STACK)
}

/// Layer i (0..12) holds (12 - i)^2 cubes; cube (j, k) is centred at x = j - (11 - i)/2,
/// y = 0.5 + i, z = k - (11 - i)/2.
pub fn pyramid3d() -> Scene {
    let mut world = world_with_ground();
    let mut tracked = Vec::new();
    for i in 0..12 {
        let offset = (11 - i) as Real / 2.0;
        for j in 0..12 - i {
            for k in 0..12 - i {
                let at = Vector::new(j as Real - offset, 0.5 + i as Real, k as Real - offset);
                tracked.push(cube(&mut world, at));
            }
        }
    }
    Scene::new(world, tracked, STACK)
}

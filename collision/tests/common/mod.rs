//! Shared helpers for the collision tests: a seeded generator and random shapes and poses.
#![allow(dead_code)]

use sprung_collision::parry3d::math::{Isometry, Point, Real, Vector};
use sprung_collision::shape::Shape;

/// splitmix64, as in ../shared/bench/SCENES.md.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> Real {
        (self.next_u64() >> 40) as Real / 16777216.0
    }
    pub fn range(&mut self, lo: Real, hi: Real) -> Real {
        lo + (hi - lo) * self.unit()
    }
    pub fn vector(&mut self, half: Real) -> Vector<Real> {
        Vector::new(
            self.range(-half, half),
            self.range(-half, half),
            self.range(-half, half),
        )
    }
    pub fn pose(&mut self, half: Real) -> Isometry<Real> {
        let axis = self.vector(1.0);
        let angle = self.range(0.0, std::f32::consts::PI);
        let axisangle = axis.try_normalize(1e-3).unwrap_or(Vector::y()) * angle;
        Isometry::new(self.vector(half), axisangle)
    }
}

pub const KINDS: [&str; 4] = ["sphere", "cuboid", "capsule", "hull"];

/// A random shape of the given kind, about one metre across.
pub fn shape(rng: &mut Rng, kind: usize) -> Shape {
    match kind {
        0 => Shape::sphere(rng.range(0.2, 0.8)).unwrap(),
        1 => Shape::cuboid(Vector::new(
            rng.range(0.1, 0.8),
            rng.range(0.1, 0.8),
            rng.range(0.1, 0.8),
        ))
        .unwrap(),
        2 => Shape::capsule(rng.range(0.05, 0.7), rng.range(0.1, 0.5)).unwrap(),
        _ => {
            let scale = Vector::new(
                rng.range(0.4, 1.6),
                rng.range(0.4, 1.6),
                rng.range(0.4, 1.6),
            );
            let pts: Vec<Point<Real>> = (0..12)
                .map(|_| Point::from(rng.vector(0.5).component_mul(&scale)))
                .collect();
            Shape::convex_hull(&pts).unwrap()
        }
    }
}

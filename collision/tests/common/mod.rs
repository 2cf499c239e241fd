//! Shared helpers for the collision tests: a seeded generator and random shapes and poses.
#![allow(dead_code)]

use sprung_collision::parry3d::math::{Isometry, Point, Real, Vector};
use sprung_collision::shape::Shape;

// splitmix64 and its helpers: the scenes' own generator, shared rather than copied.
#[path = "../../../demos/src/rng.rs"]
mod rng;
pub use rng::Rng;

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

/// Signed distance from `p` to the surface of `s` (negative inside), from exact primitives:
/// parry3d's point projection for spheres, boxes and capsules (closed forms), and for hulls the
/// planes of [`hull_facets`] (parry3d projects on hulls with its GJK, precise only to a relative
/// 1e-3): a point is as far outside as its largest height above a facet plane, exact on the
/// surface and inside.
pub fn signed_distance(s: &Shape, pose: &Isometry<Real>, p: &Point<Real>) -> Real {
    if let Shape::ConvexHull(h) = s {
        let local = pose.inverse_transform_point(p);
        return hull_facets(h.points())
            .iter()
            .map(|(n, offset)| n.dot(&local.coords) - offset)
            .fold(Real::NEG_INFINITY, Real::max);
    }
    let proj = s.as_parry().project_point(pose, p, false);
    let d = (proj.point - p).norm();
    if proj.is_inside {
        -d
    } else {
        d
    }
}

/// The facet planes of the convex hull of `points`, by brute force: every plane through three of
/// the points with all the others on or below it, computed in f64 so that thin facets keep
/// their planes. Written apart from parry3d's faces, which merge triangles up to about 1.5
/// degrees apart and so are not exact planes of the hull.
pub fn hull_facets(points: &[Point<Real>]) -> Vec<(Vector<Real>, Real)> {
    let p: Vec<[f64; 3]> = points
        .iter()
        .map(|p| [p.x as f64, p.y as f64, p.z as f64])
        .collect();
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let tolerance = 1.0e-9 * p.iter().flatten().fold(0.0, |m: f64, x| m.max(x.abs()));
    let mut planes = Vec::new();
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            for k in j + 1..p.len() {
                let n = cross(sub(p[j], p[i]), sub(p[k], p[i]));
                let length = dot(n, n).sqrt();
                if length <= 1.0e-15 {
                    continue;
                }
                let n = [n[0] / length, n[1] / length, n[2] / length];
                let offset = dot(n, p[i]);
                let heights = p.iter().map(|q| dot(n, *q) - offset);
                let (low, high) =
                    heights.fold((0.0, 0.0), |(lo, hi): (f64, f64), h| (lo.min(h), hi.max(h)));
                let as_f32 = |n: [f64; 3], o: f64| {
                    (
                        Vector::new(n[0] as Real, n[1] as Real, n[2] as Real),
                        o as Real,
                    )
                };
                if high <= tolerance {
                    planes.push(as_f32(n, offset));
                } else if low >= -tolerance {
                    planes.push(as_f32([-n[0], -n[1], -n[2]], -offset));
                }
            }
        }
    }
    planes
}

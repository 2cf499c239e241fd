//! What the crate's unit tests share.

use parry3d::math::{Point, Real};

use crate::shape::Shape;

/// A small deterministic generator (xorshift64, no dependency for a few tests): uniform in
/// [-0.5, 0.5).
pub(crate) fn uniform(mut seed: u64) -> impl FnMut() -> Real {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as Real / (1u64 << 24) as Real - 0.5
    }
}

/// The hull of ten points drawn from `next`, as `convex`'s hulls are made.
pub(crate) fn hull(next: &mut impl FnMut() -> Real) -> Shape {
    let points: Vec<Point<Real>> = (0..10)
        .map(|_| Point::new(next(), next(), next()))
        .collect();
    Shape::convex_hull(&points).unwrap()
}

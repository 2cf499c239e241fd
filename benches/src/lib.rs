//! sprung-benches: criterion benches of sprung's kernels and, later, of the standard scenes.
//!
//! Every kernel bench runs sprung's code and parry3d's answer to the same question on the same
//! inputs in one run, so that the ratio is measured on one machine at one time, not guessed:
//! `cargo bench -p sprung-benches --bench kernels`.
//!
//! This library holds the seeded inputs the benches share.

use sprung_collision::parry3d::math::{Isometry, Point, Real};
use sprung_collision::shape::Shape;

/// splitmix64, as in docs/SCENES.md: the scenes' generator, shared from sprung-demos.
pub use sprung_demos::rng::Rng;

/// A pair of shapes at their poses.
pub struct Pair {
    /// Shape A.
    pub a: Shape,
    /// A's pose.
    pub pose_a: Isometry<Real>,
    /// Shape B.
    pub b: Shape,
    /// B's pose.
    pub pose_b: Isometry<Real>,
}

/// A random hull of 12 points about a metre across.
pub fn hull(rng: &mut Rng) -> Shape {
    let pts: Vec<Point<Real>> = (0..12).map(|_| Point::from(rng.vector(0.5))).collect();
    Shape::convex_hull(&pts).expect("12 random points span a volume")
}

/// `count` random pairs made by `make`, kept only if `keep` accepts their parry3d distance
/// (so that benches can ask for separated or for overlapping pairs).
pub fn pairs(
    seed: u64,
    count: usize,
    make: impl Fn(&mut Rng) -> (Shape, Shape),
    keep: impl Fn(Real) -> bool,
) -> Vec<Pair> {
    let mut rng = Rng(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let (a, b) = make(&mut rng);
        let (pose_a, pose_b) = (rng.pose(1.0), rng.pose(1.0));
        let d = sprung_collision::parry3d::query::distance(
            &pose_a,
            a.as_parry(),
            &pose_b,
            b.as_parry(),
        );
        if d.is_ok_and(&keep) {
            out.push(Pair {
                a,
                pose_a,
                b,
                pose_b,
            });
        }
    }
    out
}

//! The separating-axis test for two boxes: the closed-form path of the commonest pair.
//!
//! In: two cuboids and their poses. Out: the same [`Contact`] that [`crate::epa::contact`] gives
//! (signed separation, normal from A to B, a point on each surface), found by testing the 15
//! candidate axes (3 face normals of each box, 9 edge-edge cross products) instead of running
//! GJK and EPA. Stacks of boxes make this pair every step, so it is worth a special case; the
//! tests hold it to the general path.
//!
//! When the boxes overlap, the axis of least overlap is the exact penetration normal. When they
//! are apart, the largest separation over the axes is a lower bound of the distance (exact for
//! face contacts, short for a corner meeting a corner), which is what a speculative contact
//! needs: the solver lets the bodies close at most that gap.
//!
//! Faces win ties over edges (an edge axis must separate more by a small tolerance): resting
//! boxes keep a face normal instead of flickering between a face and a nearly parallel edge.

use parry3d::math::{Isometry, Matrix, Point, Real, Vector};
use parry3d::shape::Cuboid;

use crate::epa::{Contact, Gap};

/// How much more an edge axis must separate (relative to the boxes' size) to beat a face axis.
const EDGE_TOLERANCE: Real = 1.0e-4;

/// The axis of largest separation of boxes `a` and `b`, if it is at most `margin` (m).
///
/// ```
/// use sprung_collision::sat::cuboid_cuboid;
/// use sprung_collision::parry3d::{math::{Isometry, Vector}, shape::Cuboid};
///
/// let cube = Cuboid::new(Vector::new(0.5, 0.5, 0.5));
/// let c = cuboid_cuboid(&cube, &Isometry::identity(), &cube, &Isometry::translation(0.0, 0.99, 0.0), 0.0)
///     .unwrap();
/// assert!((c.separation + 0.01).abs() < 1e-6 && (c.normal - Vector::y()).norm() < 1e-6);
/// ```
pub fn cuboid_cuboid(
    a: &Cuboid,
    pose_a: &Isometry<Real>,
    b: &Cuboid,
    pose_b: &Isometry<Real>,
    margin: Real,
) -> Option<Contact> {
    cuboid_cuboid_or_gap(a, pose_a, b, pose_b, margin).ok()
}

/// [`cuboid_cuboid`], or, when the boxes are farther apart than `margin`, the width of the
/// gap along the separating axis that showed it (a lower bound of their distance) and that
/// axis.
pub(crate) fn cuboid_cuboid_or_gap(
    a: &Cuboid,
    pose_a: &Isometry<Real>,
    b: &Cuboid,
    pose_b: &Isometry<Real>,
    margin: Real,
) -> Result<Contact, Gap> {
    // Everything in A's frame: B's centre t and axes r.column(j).
    let pose_ab = pose_a.inv_mul(pose_b);
    let r: Matrix<Real> = pose_ab.rotation.to_rotation_matrix().into_inner();
    let t = pose_ab.translation.vector;
    let (ha, hb) = (a.half_extents, b.half_extents);
    let abs_r = r.abs();

    // Face axes of A, then of B: separation = |t.L| - (radius of A along L + radius of B).
    let mut best_face = (Real::NEG_INFINITY, Vector::zeros(), Axis::FaceA);
    for i in 0..3 {
        let sep = t[i].abs() - (ha[i] + hb.dot(&abs_r.row(i).transpose()));
        if sep > best_face.0 {
            let mut n = Vector::zeros();
            n[i] = if t[i] >= 0.0 { 1.0 } else { -1.0 };
            best_face = (sep, n, Axis::FaceA);
        }
    }
    for j in 0..3 {
        let axis = r.column(j).into_owned();
        let d = t.dot(&axis);
        let sep = d.abs() - (hb[j] + ha.dot(&abs_r.column(j).into_owned()));
        // A's faces win exact ties, so that equal stacked boxes keep the lower box's face.
        if sep > best_face.0 + Real::EPSILON * (1.0 + sep.abs()) {
            best_face = (sep, if d >= 0.0 { axis } else { -axis }, Axis::FaceB);
        }
    }
    if best_face.0 > margin {
        return Err(Gap {
            distance: best_face.0,
            axis: best_face.1,
        });
    }
    let mut best = best_face;
    let tolerance = EDGE_TOLERANCE * (ha.norm() + hb.norm());
    for i in 0..3 {
        for j in 0..3 {
            // L = e_i x b_j; near-parallel edges give no axis of their own.
            let l = Vector::ith(i, 1.0).cross(&r.column(j).into_owned());
            let len = l.norm();
            if len < 1.0e-5 {
                continue;
            }
            let l = l / len;
            let radius_a = ha.dot(&l.abs());
            let radius_b = hb.dot(&(r.tr_mul(&l)).abs());
            let d = t.dot(&l);
            let sep = d.abs() - radius_a - radius_b;
            if sep > margin {
                return Err(Gap {
                    distance: sep,
                    axis: if d >= 0.0 { l } else { -l },
                });
            }
            if sep > best.0.max(best_face.0 + tolerance) {
                best = (sep, if d >= 0.0 { l } else { -l }, Axis::Edges(i, j));
            }
        }
    }
    let (separation, n, axis) = best;
    // Witness points, in A's frame.
    let support_a =
        |d: &Vector<Real>| Point::from(ha.zip_map(d, |h, x| if x >= 0.0 { h } else { -h }));
    let support_b = |d: &Vector<Real>| {
        let local = r.tr_mul(d);
        Point::from(r * hb.zip_map(&local, |h, x| if x >= 0.0 { h } else { -h }) + t)
    };
    let (pa, pb) = match axis {
        Axis::FaceA => {
            let pb = support_b(&-n);
            (pb - n * separation, pb)
        }
        Axis::FaceB => {
            let pa = support_a(&n);
            (pa, pa + n * separation)
        }
        Axis::Edges(i, j) => {
            // The edge of A along e_i through its support vertex, and B's along b_j.
            let (va, vb) = (support_a(&n), support_b(&-n));
            let da = Vector::ith(i, 1.0);
            let mut a0 = va;
            a0[i] = -ha[i];
            let da = da * (2.0 * ha[i]);
            let db = r.column(j).into_owned();
            let b_local = r.tr_mul(&(vb.coords - t));
            let b0 = vb - db * (b_local[j] + hb[j]);
            let db = db * (2.0 * hb[j]);
            closest_on_segments(&a0, &da, &b0, &db)
        }
    };
    Ok(Contact {
        separation,
        normal: pose_a.rotation * n,
        point_a: pose_a * pa,
        point_b: pose_a * pb,
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    FaceA,
    FaceB,
    Edges(usize, usize),
}

/// Closest points of segments `a0 + s da` and `b0 + t db`, s and t in [0, 1].
fn closest_on_segments(
    a0: &Point<Real>,
    da: &Vector<Real>,
    b0: &Point<Real>,
    db: &Vector<Real>,
) -> (Point<Real>, Point<Real>) {
    let w = a0 - b0;
    let (aa, bb, ab) = (da.dot(da), db.dot(db), da.dot(db));
    let (aw, bw) = (da.dot(&w), db.dot(&w));
    let det = aa * bb - ab * ab;
    let mut s = if det > 1.0e-12 * aa * bb {
        ((ab * bw - bb * aw) / det).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let t = if bb > 0.0 {
        ((ab * s + bw) / bb).clamp(0.0, 1.0)
    } else {
        0.0
    };
    if aa > 0.0 {
        s = ((ab * t - aw) / aa).clamp(0.0, 1.0);
    }
    (a0 + da * s, b0 + db * t)
}

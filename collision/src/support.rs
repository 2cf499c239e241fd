//! The support point of a point cloud (a hull's vertices): the point farthest along a
//! direction, four points at a time.
//!
//! GJK asks two of these per iteration, and on a hull scene they were the narrow phase's
//! largest single cost (`convex`: 2.3 million calls in a run of 120 steps, 13.6% of the
//! instructions, about 220 each for a hull of ten points). A hull keeps its points a second
//! time in lanes ([`lanes_of`]: per group of four points their x's, their y's, their z's, the
//! last group filled up with copies of the last point); on x86-64, for eight points or more,
//! they are compared four lanes at a time (SSE2, which every x86-64 CPU has) straight from
//! those rows (turning `x y z x y z ...` into lanes by shuffles at each search made it 165
//! instructions for ten points; from the rows alone it is about 120). Elsewhere, and for fewer
//! points, one at a time. Both compute each dot product as `(x dx + y dy) + z dz` and keep
//! the first of equal points, so both choose the same point.

use parry3d::math::{Point, Real, Vector};
use smallvec::SmallVec;

/// A cloud's points in lanes: per group of four points, a row of their x's, one of their y's
/// and one of their z's; the last group is filled up with copies of the last point (equal to
/// it, they can never be chosen over it). Inline up to 16 points (a hull of ten takes 144 bytes).
pub(crate) type Lanes = SmallVec<[[Real; 4]; 12]>;

/// `points` in lanes (see [`Lanes`]); empty for no points.
pub(crate) fn lanes_of(points: &[Point<Real>]) -> Lanes {
    let groups = points.len().div_ceil(4);
    let mut lanes = Lanes::with_capacity(3 * groups);
    for group in 0..groups {
        let point = |lane: usize| points[(4 * group + lane).min(points.len() - 1)];
        lanes.push([0, 1, 2, 3].map(|lane| point(lane).x));
        lanes.push([0, 1, 2, 3].map(|lane| point(lane).y));
        lanes.push([0, 1, 2, 3].map(|lane| point(lane).z));
    }
    lanes
}

/// The index of the point of `points` farthest along `dir`: the first of equals, and 0 when
/// no point is farther than the first (a NaN along the way counts as not farther). `points`
/// must not be empty, and `lanes` must be [`lanes_of`] them.
#[inline]
pub(crate) fn farthest_in_lanes(
    points: &[Point<Real>],
    lanes: &[[Real; 4]],
    dir: &Vector<Real>,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if points.len() >= 8 {
        return farthest_sse2(lanes, dir);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = lanes;
    farthest_from(points, dir, 0, dot(&points[0], dir), 1)
}

/// `p . dir` in the order both paths use.
#[inline(always)]
fn dot(p: &Point<Real>, dir: &Vector<Real>) -> Real {
    (p.x * dir.x + p.y * dir.y) + p.z * dir.z
}

/// One at a time from `start`, against the best so far (`best`, at `best_dot`).
#[inline(always)]
fn farthest_from(
    points: &[Point<Real>],
    dir: &Vector<Real>,
    mut best: usize,
    mut best_dot: Real,
    start: usize,
) -> usize {
    for (i, p) in points.iter().enumerate().skip(start) {
        let d = dot(p, dir);
        if d > best_dot {
            best_dot = d;
            best = i;
        }
    }
    best
}

/// [`farthest_in_lanes`] four points at a time: each lane keeps the first greatest dot
/// product of the points it saw (indices `lane`, `lane + 4`, ...), starting below every
/// number, so that NaNs are never taken; the lanes are merged, the lowest index winning a tie,
/// which is the first greatest overall (the copies that fill the last group up tie with the
/// last point, whose index is lower). A scan in order keeps the first point if its dot
/// product is NaN (nothing compares greater than it): that case is answered from the first
/// group's lane 0 (the same product, in the same order) before the lanes go on.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn farthest_sse2(lanes: &[[Real; 4]], dir: &Vector<Real>) -> usize {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86-64; each row is four `f32`s, read unaligned.
    let (lane_dot, lane_index) = unsafe {
        let (dx, dy, dz) = (_mm_set1_ps(dir.x), _mm_set1_ps(dir.y), _mm_set1_ps(dir.z));
        let dots = |group: &[[Real; 4]]| {
            let x = _mm_loadu_ps(group[0].as_ptr());
            let y = _mm_loadu_ps(group[1].as_ptr());
            let z = _mm_loadu_ps(group[2].as_ptr());
            _mm_add_ps(
                _mm_add_ps(_mm_mul_ps(x, dx), _mm_mul_ps(y, dy)),
                _mm_mul_ps(z, dz),
            )
        };
        let first = dots(&lanes[..3]);
        if _mm_cvtss_f32(first).is_nan() {
            return 0;
        }
        // The first group is taken whole: every lane starts below every number.
        let not_nan = _mm_cmpord_ps(first, first);
        let mut best_dot = _mm_or_ps(
            _mm_and_ps(not_nan, first),
            _mm_andnot_ps(not_nan, _mm_set1_ps(Real::NEG_INFINITY)),
        );
        let mut best_index = _mm_setr_epi32(0, 1, 2, 3);
        let mut index = best_index;
        let four = _mm_set1_epi32(4);
        for group in lanes[3..].chunks_exact(3) {
            index = _mm_add_epi32(index, four);
            let d = dots(group);
            let greater = _mm_cmpgt_ps(d, best_dot);
            best_dot = _mm_or_ps(_mm_and_ps(greater, d), _mm_andnot_ps(greater, best_dot));
            let take = _mm_castps_si128(greater);
            best_index = _mm_or_si128(
                _mm_and_si128(take, index),
                _mm_andnot_si128(take, best_index),
            );
        }
        let mut dots: [Real; 4] = [0.0; 4];
        let mut indices = [0i32; 4];
        _mm_storeu_ps(dots.as_mut_ptr(), best_dot);
        _mm_storeu_si128(indices.as_mut_ptr() as *mut __m128i, best_index);
        (dots, indices)
    };
    let mut best = (lane_dot[0], lane_index[0]);
    for lane in 1..4 {
        let (d, i) = (lane_dot[lane], lane_index[lane]);
        if d > best.0 || (d == best.0 && i < best.1) {
            best = (d, i);
        }
    }
    best.1 as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four-at-a-time search picks the point a scan in order picks, for clouds of 1 to 40
    /// points (every remainder after the groups of four), ties (repeated points, and
    /// directions along an axis of a grid) and NaN directions.
    #[test]
    fn the_lanes_pick_what_a_scan_picks() {
        let mut next = crate::testing::uniform(0x9e37_79b9_7f4a_7c15u64);
        let scan = |points: &[Point<Real>], dir: &Vector<Real>| {
            farthest_from(points, dir, 0, dot(&points[0], dir), 1)
        };
        let mut checked = 0;
        for case in 0..20_000 {
            let n = 1 + case % 40;
            let grid = case % 3 == 0;
            let points: Vec<Point<Real>> = (0..n)
                .map(|_| {
                    if grid {
                        // Coordinates from {-1, 0, 1}: many equal dot products.
                        Point::new(
                            (next() * 3.0).round(),
                            (next() * 3.0).round(),
                            (next() * 3.0).round(),
                        )
                    } else {
                        Point::new(next(), next(), next()) * 4.0
                    }
                })
                .collect();
            let dir = match case % 7 {
                0 => Vector::x(),
                1 => Vector::new(0.0, -1.0, 0.0),
                2 => Vector::new(Real::NAN, 1.0, 0.0),
                _ => Vector::new(next(), next(), next()),
            };
            assert_eq!(
                farthest_in_lanes(&points, &lanes_of(&points), &dir),
                scan(&points, &dir),
                "{points:?} {dir:?}"
            );
            checked += usize::from(n >= 8);
        }
        assert!(checked > 10_000);
    }
}

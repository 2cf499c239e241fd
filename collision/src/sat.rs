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
//! needs: the solver lets the bodies close at most that gap. [`gjk::distance`] asks the same
//! test for two boxes' exact distance, which it proves for most pairs (a pair of points that
//! gap apart), and runs GJK for the rest.
//!
//! [`gjk::distance`]: crate::gjk::distance
//!
//! Faces win ties over edges (an edge axis must separate more by a small tolerance): resting
//! boxes keep a face normal instead of flickering between a face and a nearly parallel edge.

use parry3d::math::{Isometry, Matrix, Point, Real, Vector};
use parry3d::shape::Cuboid;

use crate::contact::{mix, Contact, Gap, KeepWithin, Manifold, ManifoldPoint, GAP_SLACK};
use crate::manifold::{keep_four, single, Candidates, DEEPEST_TOLERANCE};

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
    separating_axis(a, pose_a, b, pose_b, margin).map(|found| found.contact)
}

/// The manifold of boxes `a` and `b` (`out`'s points replaced), or the gap when they are
/// farther apart than `margin` (or than `within` gives along the axis found, as for
/// [`crate::dispatch::manifold_or_gap`]): [`cuboid_cuboid_or_gap`], then, when the axis is a
/// face's, that face (the reference) clipped against the other box's face most opposed to it (the
/// incident face), in the reference box's frame, where the reference face is a rectangle
/// and clipping is four comparisons against its half extents per point (Box2D's and ODE's
/// box-box, our own code). The general clip ([`crate::manifold`]) projects both faces on the
/// contact plane and clips polygons there, for any pair of convex features; on two faces of
/// boxes it finds the same polygon, about five times slower (the tests hold the two
/// together). An edge axis gives the test's witness pair as the one point.
pub(crate) fn cuboid_cuboid_manifold_or_gap(
    a: &Cuboid,
    pose_a: &Isometry<Real>,
    b: &Cuboid,
    pose_b: &Isometry<Real>,
    margin: Real,
    within: KeepWithin<'_>,
    out: &mut Manifold,
) -> Option<Gap> {
    let found = match separating_axis(a, pose_a, b, pose_b, margin) {
        Ok(found) => found,
        Err(gap) => return Some(gap),
    };
    let separation = found.contact.separation;
    if separation > 0.0 && within.is_some_and(|within| separation > within(&found.contact.normal)) {
        // Apart by more than the pair can close along the axis ([`manifold_or_gap`]): the
        // gap along it, with the slack of the test's other gaps.
        return Some(Gap {
            distance: separation * (1.0 - GAP_SLACK),
            axis: found.normal,
        });
    }
    let mut candidates = Candidates::new();
    out.normal = box_candidates(&found, (a, pose_a), (b, pose_b), margin, &mut candidates);
    keep_four(&candidates, out);
    None
}

/// The candidate points of the boxes' manifold, pushed on `candidates`, and its normal, for
/// the axis the test found: a face clipped against the other box's, or the edges' one point.
fn box_candidates(
    found: &Found,
    (a, pose_a): (&Cuboid, &Isometry<Real>),
    (b, pose_b): (&Cuboid, &Isometry<Real>),
    margin: Real,
    candidates: &mut Candidates,
) -> Vector<Real> {
    match found.axis {
        // B's face, but one of A's within 1e-3 rad of it: A's is the reference, as the
        // general clip snaps the normal to A's face, so that a pair keeps one face as its
        // normal from step to step instead of whichever of two nearly parallel faces overlaps
        // least by a rounding error.
        Axis::FaceB if nearly_a_face(&found.normal) => {
            clip_faces(found, (a, pose_a), b, false, margin, candidates)
        }
        Axis::FaceA => clip_faces(found, (a, pose_a), b, false, margin, candidates),
        Axis::FaceB => clip_faces(found, (b, pose_b), a, true, margin, candidates),
        Axis::Edges(..) => {
            // Two edges crossing meet at a point: the test's witness pair (the general clip
            // would clip the two faces nearest the axis, five times the work, for points
            // that all lie within rounding of that one or beyond the margin).
            candidates.push(single(&found.contact, found.edges));
            found.contact.normal
        }
    }
}

/// Whether unit vector `n` (in a box's frame) is within 1e-3 rad of one of the box's face
/// normals (the general clip's `SNAP`).
fn nearly_a_face(n: &Vector<Real>) -> bool {
    // The sine from the two other components (`1 - n_k^2` would lose it to rounding).
    let k = n.iamax();
    let (u, v) = (n[(k + 1) % 3], n[(k + 2) % 3]);
    u * u + v * v < 1.0e-6
}

/// What the separating-axis test found for two overlapping (or nearly touching) boxes.
struct Found {
    contact: Contact,
    axis: Axis,
    /// The axis in A's frame, from A towards B.
    normal: Vector<Real>,
    /// For an edge axis, which two edges (an id that stays while they stay the nearest, so
    /// that the point's impulse carries over); 0 for a face axis.
    edges: u32,
    /// B's axes (columns) and centre in A's frame, as the test had them.
    rotation: Matrix<Real>,
    centre: Vector<Real>,
}

/// The test itself (the module doc), with the axis it chose.
fn separating_axis(
    a: &Cuboid,
    pose_a: &Isometry<Real>,
    b: &Cuboid,
    pose_b: &Isometry<Real>,
    margin: Real,
) -> Result<Found, Gap> {
    // Everything in A's frame: B's centre t and axes r.column(j).
    let pair = BoxPair::new(a, pose_a, b, pose_b);
    let (r, t, ha, hb) = (pair.r, pair.t, pair.ha, pair.hb);

    // Face axes of A, then of B: separation = |t.L| - (radius of A along L + radius of B).
    let mut best_face = (Real::NEG_INFINITY, Vector::zeros(), Axis::FaceA);
    for i in 0..3 {
        let sep = pair.gap_a(i);
        if sep > best_face.0 {
            let mut n = Vector::zeros();
            n[i] = if t[i] >= 0.0 { 1.0 } else { -1.0 };
            best_face = (sep, n, Axis::FaceA);
        }
    }
    for j in 0..3 {
        let sep = pair.gap_b(j);
        // A's faces win exact ties, so that equal stacked boxes keep the lower box's face.
        if sep > best_face.0 + Real::EPSILON * (1.0 + sep.abs()) {
            let axis = r.column(j).into_owned();
            let n = if t.dot(&axis) >= 0.0 { axis } else { -axis };
            best_face = (sep, n, Axis::FaceB);
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
            let Some((sep, axis)) = pair.gap_edges(i, j) else {
                continue;
            };
            if sep > margin {
                return Err(Gap {
                    distance: sep,
                    axis,
                });
            }
            if sep > best.0.max(best_face.0 + tolerance) {
                best = (sep, axis, Axis::Edges(i, j));
            }
        }
    }
    let (separation, n, axis) = best;
    // Witness points, in A's frame.
    let support_a = |d: &Vector<Real>| pair.support_a(d);
    let support_b = |d: &Vector<Real>| pair.support_b(d);
    let mut edges = 0;
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
            // Each edge by its axis and the side of the two others it lies on.
            let sides = |d: &Vector<Real>, along: usize| {
                (0..3)
                    .filter(|&m| m != along && d[m] >= 0.0)
                    .fold(0u32, |bits, m| bits | 1 << m)
            };
            let (side_a, side_b) = (sides(&n, i), sides(&r.tr_mul(&-n), j));
            edges = 0xE000 | (i as u32) << 10 | (j as u32) << 8 | side_a << 4 | side_b;
            closest_on_segments(&a0, &da, &b0, &db)
        }
    };
    Ok(Found {
        contact: Contact {
            separation,
            normal: pose_a.rotation * n,
            point_a: pose_a * pa,
            point_b: pose_a * pb,
        },
        axis,
        normal: n,
        edges,
        rotation: r,
        centre: t,
    })
}

/// Box B seen from box A, for the separating-axis queries: B's centre `t` and axes (the
/// columns of `r`) in A's frame, and the gap (negative: overlap) along each candidate axis.
struct BoxPair {
    r: Matrix<Real>,
    abs_r: Matrix<Real>,
    t: Vector<Real>,
    ha: Vector<Real>,
    hb: Vector<Real>,
}

impl BoxPair {
    fn new(a: &Cuboid, pose_a: &Isometry<Real>, b: &Cuboid, pose_b: &Isometry<Real>) -> BoxPair {
        let pose_ab = pose_a.inv_mul(pose_b);
        let r: Matrix<Real> = pose_ab.rotation.to_rotation_matrix().into_inner();
        BoxPair {
            abs_r: r.abs(),
            r,
            t: pose_ab.translation.vector,
            ha: a.half_extents,
            hb: b.half_extents,
        }
    }

    /// The gap along A's axis `i`.
    fn gap_a(&self, i: usize) -> Real {
        self.t[i].abs() - (self.ha[i] + self.hb.dot(&self.abs_r.row(i).transpose()))
    }

    /// The gap along B's axis `j`.
    fn gap_b(&self, j: usize) -> Real {
        self.t.dot(&self.r.column(j)).abs() - (self.hb[j] + self.ha.dot(&self.abs_r.column(j)))
    }

    /// A's corner farthest along `d` (A's frame).
    fn support_a(&self, d: &Vector<Real>) -> Point<Real> {
        Point::from(self.ha.zip_map(d, |h, x| if x >= 0.0 { h } else { -h }))
    }

    /// B's corner farthest along `d` (A's frame).
    fn support_b(&self, d: &Vector<Real>) -> Point<Real> {
        let local = self.r.tr_mul(d);
        Point::from(
            self.r
                * self
                    .hb
                    .zip_map(&local, |h, x| if x >= 0.0 { h } else { -h })
                + self.t,
        )
    }

    /// The gaps along every candidate axis: A's faces and B's, then the edge pairs' (those not
    /// too near parallel), in the order the overlap test reads them.
    fn gaps(&self) -> impl Iterator<Item = Real> + '_ {
        let faces = (0..3).flat_map(|i| [self.gap_a(i), self.gap_b(i)]);
        let edges = (0..9).filter_map(|k| self.gap_edges(k / 3, k % 3).map(|(gap, _)| gap));
        faces.chain(edges)
    }

    /// The gap along `e_i x b_j` and that unit axis, pointing from A to B; `None` for edges
    /// too near parallel to give an axis of their own (the face axes then decide).
    fn gap_edges(&self, i: usize, j: usize) -> Option<(Real, Vector<Real>)> {
        let l = Vector::ith(i, 1.0).cross(&self.r.column(j));
        let len = l.norm();
        if len < 1.0e-5 {
            return None;
        }
        let l = l / len;
        let d = self.t.dot(&l);
        let gap = d.abs() - self.ha.dot(&l.abs()) - self.hb.dot(&self.r.tr_mul(&l).abs());
        Some((gap, if d >= 0.0 { l } else { -l }))
    }
}

/// Whether boxes `a` and `b` touch or overlap, by the separating-axis test (no axis with a
/// gap), stopping at the first axis that shows one; `None` when a gap is NaN (a pose that
/// is not finite: [`crate::gjk`] then answers, as for any other pair).
pub(crate) fn cuboid_cuboid_overlap(
    a: &Cuboid,
    pose_a: &Isometry<Real>,
    b: &Cuboid,
    pose_b: &Isometry<Real>,
) -> Option<bool> {
    for gap in BoxPair::new(a, pose_a, b, pose_b).gaps() {
        if gap > 0.0 {
            return Some(false);
        }
        if gap.is_nan() {
            return None;
        }
    }
    Some(true)
}

/// The distance of boxes `a` and `b` and a closest point on each, when the separating-axis
/// test can prove it; `None` when the boxes touch or overlap, or no proof is found
/// ([`crate::gjk`] then answers).
///
/// Every axis bounds the distance from below by the gap along it, and a point of each box that
/// gap apart bounds it from above, so such a pair is a closest pair. The widest face gap often
/// has one: the other box's corner nearest the face, and that corner's foot on the face when
/// the foot lies within the face (a corner or an edge facing a face). The widest edge-edge gap
/// has one when the two edges' closest points lie within both (edges crossing). For a corner
/// facing an edge or a corner, the corner nearest the other box along the widest axis and its
/// nearest point on that box (clamped in the box's frame) are tried, and kept when the gap
/// along the line through them is their distance. parry3d's box-box distance also starts from
/// the test but then projects a corner on the other box without proving it the closest pair.
pub(crate) fn cuboid_cuboid_distance(
    a: &Cuboid,
    pose_a: &Isometry<Real>,
    b: &Cuboid,
    pose_b: &Isometry<Real>,
) -> Option<Contact> {
    // Everything in A's frame: B's centre t and axes r.column(j).
    let pair = BoxPair::new(a, pose_a, b, pose_b);
    let (r, t, ha, hb) = (pair.r, pair.t, pair.ha, pair.hb);
    let sign = |x: Real| if x >= 0.0 { 1.0 } else { -1.0 };
    let support_a = |d: &Vector<Real>| pair.support_a(d);
    let support_b = |d: &Vector<Real>| pair.support_b(d);
    let answer = |gap: Real, n: Vector<Real>, pa: Point<Real>, pb: Point<Real>| Contact {
        separation: gap,
        point_a: pose_a * pa,
        point_b: pose_a * pb,
        normal: pose_a.rotation * n,
    };
    // Rounding allowed in the corners' proof: a few units in the last place of the
    // coordinates involved.
    let slack = 1.0e-6 * (t.norm() + ha.norm() + hb.norm());
    // The corner of each box nearest the other along `n` (from A to B) with its nearest point
    // on the other box, proven when the gap along the line through them is their distance.
    let corners = |n: &Vector<Real>| {
        let proven = |pa: Point<Real>, pb: Point<Real>| {
            let d = pb - pa;
            let apart = d.norm();
            // The gap along d, times |d|: B's least extent along d less A's greatest.
            let gap = d.dot(&t) - hb.dot(&r.tr_mul(&d).abs()) - ha.dot(&d.abs());
            (apart > 0.0 && apart * apart - gap <= slack * apart)
                .then(|| answer(apart, d / apart, pa, pb))
        };
        let va = support_a(n);
        let local = r.tr_mul(&(va.coords - t));
        let on_b = Point::from(r * local.zip_map(&hb, |x, h| x.clamp(-h, h)) + t);
        proven(va, on_b).or_else(|| {
            let vb = support_b(&-n);
            proven(
                Point::from(vb.coords.zip_map(&ha, |x, h| x.clamp(-h, h))),
                vb,
            )
        })
    };

    // The widest face gap: A's faces, then B's.
    let (mut gap, mut face) = (Real::NEG_INFINITY, 0);
    for i in 0..3 {
        let sep = pair.gap_a(i);
        if sep > gap {
            (gap, face) = (sep, i);
        }
    }
    for j in 0..3 {
        let sep = pair.gap_b(j);
        if sep > gap {
            (gap, face) = (sep, 3 + j);
        }
    }
    if gap > 0.0 {
        let n = if face < 3 {
            // B's corner nearest A's face, and its foot on the face.
            let i = face;
            let n = Vector::ith(i, sign(t[i]));
            let pb = support_b(&-n);
            let (u, v) = ((i + 1) % 3, (i + 2) % 3);
            if pb[u].abs() <= ha[u] && pb[v].abs() <= ha[v] {
                let mut pa = pb;
                pa[i] = ha[i] * n[i];
                return Some(answer(gap, n, pa, pb));
            }
            n
        } else {
            // A's corner nearest B's face, and its foot on that face.
            let j = face - 3;
            let axis = r.column(j).into_owned();
            let n = axis * sign(t.dot(&axis));
            let pa = support_a(&n);
            let local = r.tr_mul(&(pa.coords - t));
            let (u, v) = ((j + 1) % 3, (j + 2) % 3);
            if local[u].abs() <= hb[u] && local[v].abs() <= hb[v] {
                return Some(answer(gap, n, pa, pa + n * gap));
            }
            n
        };
        if let Some(closest) = corners(&n) {
            return Some(closest);
        }
    }

    // The widest edge-edge gap.
    let mut edges = None;
    for i in 0..3 {
        for j in 0..3 {
            if let Some((sep, axis)) = pair.gap_edges(i, j).filter(|&(sep, _)| sep > gap) {
                gap = sep;
                edges = Some((i, j, axis));
            }
        }
    }
    let (i, j, n) = edges.filter(|_| gap > 0.0)?;
    // A's edge along e_i through its corner nearest B, and B's along b_j likewise.
    let (va, vb) = (support_a(&n), support_b(&-n));
    let mut a0 = va;
    a0[i] = -ha[i];
    let db = r.column(j).into_owned();
    let b0 = vb - db * (db.dot(&(vb.coords - t)) + hb[j]);
    let (da, db) = (Vector::ith(i, 2.0 * ha[i]), db * (2.0 * hb[j]));
    // The lines' closest points; a pair within both edges is the edges' (crossing edges).
    let w = a0 - b0;
    let (aa, bb, ab) = (da.dot(&da), db.dot(&db), da.dot(&db));
    let (aw, bw) = (da.dot(&w), db.dot(&w));
    let det = aa * bb - ab * ab;
    let (s, u) = ((ab * bw - bb * aw) / det, (aa * bw - ab * aw) / det);
    let within = |x: Real| (0.0..=1.0).contains(&x);
    if within(s) && within(u) {
        return Some(answer(gap, n, a0 + da * s, b0 + db * u));
    }
    corners(&n)
}

/// A point of the incident face while it is clipped: where it is in the reference box's
/// frame, and its feature id (a corner of the incident face, or where one of its edges, as
/// clipped so far, crosses a side of the reference face).
#[derive(Clone, Copy)]
struct Corner {
    at: Point<Real>,
    id: u32,
}

/// The candidate points of a face contact, pushed on `found_points`, and its normal:
/// `incident`'s face most opposed to `reference`'s face along the test's axis, clipped against
/// the sides of that face. `swapped` when the reference is B (then the axis, from A to B, points into the
/// reference box, and the points are given back in A-B order).
fn clip_faces(
    found: &Found,
    (reference, pose_r): (&Cuboid, &Isometry<Real>),
    incident: &Cuboid,
    swapped: bool,
    margin: Real,
    found_points: &mut Candidates,
) -> Vector<Real> {
    // The incident box in the reference box's frame, and the reference face's outward normal
    // there: +-e_k, pointing at the incident box.
    // (From the test's relative pose of B: transposed when B is the reference.)
    let (rotation, centre) = if swapped {
        let back = found.rotation.transpose();
        (back, -(back * found.centre))
    } else {
        (found.rotation, found.centre)
    };
    let towards = if swapped {
        // The axis is in A's frame, A the incident box: into the reference frame, reversed.
        -(rotation * found.normal)
    } else {
        found.normal
    };
    let k = towards.iamax();
    let s: Real = if towards[k] >= 0.0 { 1.0 } else { -1.0 };
    let (hr, hi) = (reference.half_extents, incident.half_extents);
    // The incident face: the one whose outward normal is most opposed to +-e_k.
    let along = rotation.row(k).transpose() * -s;
    let j = along.iamax();
    let sj: Real = if along[j] >= 0.0 { 1.0 } else { -1.0 };
    let (u, v) = ((j + 1) % 3, (j + 2) % 3);
    let face = centre + rotation.column(j) * (sj * hi[j]);
    let (eu, ev) = (rotation.column(u) * hi[u], rotation.column(v) * hi[v]);
    let fixed = if sj > 0.0 { 1u32 << j } else { 0 };
    let mut polygon = [Corner {
        at: Point::origin(),
        id: 0,
    }; 8];
    // The general clip's order: B's face counter-clockwise about its outward normal, so
    // clockwise about -n where A's face is the incident one. The points reach the solver in
    // this order, which a stack feels (the other winding rocked `pyramid3d` sideways 4.9 mm
    // against 1.8, and `pyramid` 4.6 against 2.9).
    let mut quad = [(0, 0), (1, 0), (1, 1), (0, 1)];
    if (sj < 0.0) != swapped {
        quad.reverse();
    }
    for (slot, (su, sv)) in polygon.iter_mut().zip(quad) {
        let sign = |bit: u32| if bit == 1 { 1.0 } else { -1.0 };
        slot.at = Point::from(face + eu * sign(su) + ev * sign(sv));
        slot.id = fixed | (su << u) | (sv << v);
    }
    let mut count = 4;
    // The four sides of the reference face: |x_a| <= hr[a] for the two axes a other than k.
    // The polygon goes from one buffer to the other, and a side it lies within (most, for a
    // box resting on a larger one) leaves it where it is.
    let mut scratch = polygon;
    let (mut polygon, mut scratch) = (&mut polygon, &mut scratch);
    for (side, (axis, sign)) in [
        ((k + 1) % 3, 1.0),
        ((k + 1) % 3, -1.0),
        ((k + 2) % 3, 1.0),
        ((k + 2) % 3, -1.0),
    ]
    .into_iter()
    .enumerate()
    {
        let limit = hr[axis];
        let outside = |c: &Corner| sign * c.at[axis] - limit;
        if polygon[..count].iter().all(|c| outside(c) <= 0.0) {
            continue;
        }
        let mut kept = 0;
        for i in 0..count {
            let (c0, c1) = (polygon[i], polygon[if i + 1 == count { 0 } else { i + 1 }]);
            let (d0, d1) = (outside(&c0), outside(&c1));
            if d0 <= 0.0 && kept < scratch.len() {
                scratch[kept] = c0;
                kept += 1;
            }
            if (d0 <= 0.0) != (d1 <= 0.0) && kept < scratch.len() {
                // (Room is checked only for rounding's sake: a convex polygon gains at most
                // one corner per side, four corners eight.)
                let t = d0 / (d0 - d1);
                scratch[kept] = Corner {
                    at: c0.at + (c1.at - c0.at) * t,
                    id: mix(mix(c0.id, c1.id), 0x5100 + side as u32),
                };
                kept += 1;
            }
        }
        (polygon, scratch) = (scratch, polygon);
        count = kept;
        if count == 0 {
            break;
        }
    }

    // Each clipped point's depth below the reference face, and its image on that face.
    // Ids: the reference face, and the incident box's corners (a corner keeps its id when the
    // incident face changes to its neighbour, as a box rocking about an edge does).
    let reference_face = 2 * k as u32 + u32::from(s < 0.0);
    let base = mix(reference_face, if swapped { 0x2B } else { 0x1B });
    // One rotation matrix for every point (cheaper than a quaternion product per point), and
    // the point on the face is the incident one moved back along the face's normal.
    let turn = pose_r.rotation.to_rotation_matrix();
    let outward = turn.matrix().column(k) * s;
    for c in &polygon[..count] {
        let separation = s * c.at[k] - hr[k];
        if !(separation <= margin && separation.is_finite()) {
            continue;
        }
        let on_incident = Point::from(turn * c.at.coords + pose_r.translation.vector);
        let on_face = on_incident - outward * separation;
        let (point_a, point_b) = if swapped {
            (on_incident, on_face)
        } else {
            (on_face, on_incident)
        };
        found_points.push(ManifoldPoint {
            point_a,
            point_b,
            separation,
            id: mix(base, c.id),
            normal_impulse: 0.0,
        });
    }
    let normal = if swapped { -outward } else { outward };
    // As the general clip: the test's own witness pair when clipping lost the deepest point.
    let contact = &found.contact;
    let deepest = found_points
        .iter()
        .map(|p| p.separation)
        .fold(Real::INFINITY, Real::min);
    if deepest > contact.separation + DEEPEST_TOLERANCE {
        found_points.push(ManifoldPoint {
            point_a: contact.point_a,
            point_b: contact.point_b,
            separation: contact.separation,
            id: mix(base, 0xFFFF),
            normal_impulse: 0.0,
        });
    }
    normal
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

#[cfg(test)]
mod tests;

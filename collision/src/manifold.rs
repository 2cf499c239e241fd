//! Contact manifolds: up to four points that hold two shapes apart, each with a feature id.
//!
//! In: two shapes, their poses, and a speculative margin. Out: a [`Manifold`]: the unit normal
//! from A to B and up to 4 [`ManifoldPoint`]s with their signed separations (negative when
//! overlapping, up to `margin` when apart: speculative points let the solver stop bodies before
//! they touch).
//!
//! Two boxes take their own path ([`crate::sat`]: the separating-axis test, then the face of one
//! clipped against the side planes of the other's, in that box's frame). For the others:
//!
//! How: [`crate::epa::contact`] gives the normal `n`. Each shape then offers its supporting
//! feature along it (A along `n`, B along `-n`): the face of a box or hull whose normal is
//! closest to `n`, the core segment of a capsule lying across `n`, or a single point. Both
//! features are projected on the plane perpendicular to `n` and one is clipped against the other
//! there (Sutherland-Hodgman); every vertex of the overlap is lifted back onto both features
//! along `n` to measure its separation, and points farther apart than the margin are dropped.
//! Separation is linear over a planar overlap, so its deepest point is always one of those
//! vertices: an edge crossing an edge comes out as the single crossing point, a box on its edge as
//! two points, a box flat on a box as four. More than four are reduced to the four that keep the
//! deepest point and the largest area.
//!
//! Clipping in the contact plane, not against a reference face's side planes, because it
//! treats every pair of features (face, edge, point) with one routine and one normal; two
//! boxes, the commonest pair, have the reference-face clip, held to this one by a test.

use parry3d::math::{Isometry, Point, Real, Vector};
use parry3d::shape::Cuboid;
use smallvec::SmallVec;

use crate::clipper::{
    clip_by_polygon, clip_in_arrays, clip_segment_by_segment, small_vec_of, Clip, CLIP_ROOM,
};
use crate::contact::{mix, Contact, FeatureId, Manifold, ManifoldPoint};
use crate::shape::Shape;

/// How much shallower (m) than the contact query the deepest clipped point may be.
pub(crate) const DEEPEST_TOLERANCE: Real = 1.0e-3;

/// Largest angle (rad) between EPA's normal and a face normal that is snapped to the face.
const SNAP: Real = 1.0e-3;

/// A supporting feature in world space: 1 point (vertex), 2 (segment) or 3 and more (a convex
/// face, wound counter-clockwise about its outward normal).
pub(crate) struct Feature {
    pub(crate) points: SmallVec<[Point<Real>; 8]>,
    pub(crate) ids: SmallVec<[u32; 8]>,
    /// Which face or segment, to tell features apart in ids.
    pub(crate) id: u32,
    /// Outward face normal, for faces.
    normal: Vector<Real>,
    /// Exactly planar (a box face, a triangle): lifted onto its plane, not onto a triangle fan.
    planar: bool,
}

impl Feature {
    /// No points yet.
    fn empty() -> Feature {
        Feature {
            points: SmallVec::new(),
            ids: SmallVec::new(),
            id: 0,
            normal: Vector::zeros(),
            planar: false,
        }
    }
}

/// The corner of a cuboid with index `i`: bit k set means +half-extent on axis k.
fn corner(c: &Cuboid, i: u32) -> Point<Real> {
    let h = c.half_extents;
    let s = |bit: u32| if i & (1 << bit) != 0 { 1.0 } else { -1.0 };
    Point::new(h.x * s(0), h.y * s(1), h.z * s(2))
}

/// The face of `shape` (at `pose`) that supports it best along world direction `dir`.
pub(crate) fn support_feature(shape: &Shape, pose: &Isometry<Real>, dir: &Vector<Real>) -> Feature {
    let mut f = Feature::empty();
    support_feature_into(shape, pose, dir, &mut f);
    f
}

/// [`support_feature`], written into `f` (empty): in place, where the feature returned was
/// copied out of the function, 200 bytes a time, twice a manifold.
fn support_feature_into(shape: &Shape, pose: &Isometry<Real>, dir: &Vector<Real>, f: &mut Feature) {
    let local = pose.rotation.inverse_transform_vector(dir);
    f.normal = *dir;
    match shape {
        Shape::Sphere(_) => {
            f.points.push(pose * Point::origin());
            f.ids.push(0);
        }
        Shape::Capsule(c) => {
            let axis = c.segment.b - c.segment.a;
            // Across the normal: the whole segment; end on: the end nearest the other shape.
            if local.cross(&axis).norm() > 0.1 * axis.norm() {
                f.points.extend([pose * c.segment.a, pose * c.segment.b]);
                f.ids.extend([0, 1]);
            } else {
                let end = if local.dot(&axis) >= 0.0 { 1 } else { 0 };
                f.points
                    .push(pose * if end == 1 { c.segment.b } else { c.segment.a });
                f.ids.push(end);
            }
        }
        Shape::Cuboid(c) => {
            let a = local.abs();
            let k = if a.x >= a.y && a.x >= a.z {
                0
            } else if a.y >= a.z {
                1
            } else {
                2
            };
            let positive = local[k] >= 0.0;
            let (u, v) = ((k + 1) % 3, (k + 2) % 3);
            let fixed = if positive { 1u32 << k } else { 0 };
            // Around +axis k the cyclic axes (u, v) turn counter-clockwise; flip for -axis k.
            let mut quad = [(0, 0), (1, 0), (1, 1), (0, 1)];
            if !positive {
                quad.reverse();
            }
            // One rotation matrix for the four corners (cheaper than four quaternion products).
            let rotation = pose.rotation.to_rotation_matrix();
            for (su, sv) in quad {
                let i = fixed | (su << u) | (sv << v);
                f.points.push(Point::from(
                    rotation * corner(c, i).coords + pose.translation.vector,
                ));
                f.ids.push(i);
            }
            f.id = 2 * k as u32 + u32::from(!positive);
            let sign = if positive { 1.0 } else { -1.0 };
            f.normal = rotation.matrix().column(k) * sign;
            f.planar = true;
        }
        Shape::ConvexHull(h) => {
            // The face nearest the normal among those around the support vertex: on an
            // irregular hull the face nearest the normal overall can lie away from the contact.
            let support = h.farthest(&local);
            let around = h.faces_around(support);
            let score = |i: usize| h.face_normal(i).dot(&local);
            let mut best = around.first().map_or(0, |&i| i as usize);
            // (The best score kept, not worked out again against each face.)
            let mut best_score = score(best);
            for &i in around {
                let s = score(i as usize);
                if s > best_score {
                    (best, best_score) = (i as usize, s);
                }
            }
            // One rotation matrix for the face's points and normal, as for a box.
            let rotation = pose.rotation.to_rotation_matrix();
            let points = h.points();
            for &i in h.face_vertices(best) {
                f.points.push(Point::from(
                    rotation * points[i as usize].coords + pose.translation.vector,
                ));
                f.ids.push(i);
            }
            f.id = best as u32;
            f.normal = rotation * h.face_normal(best);
            // A triangle is a plane: its points lift onto it in one division, where the fan
            // (for faces merged from nearly coplanar triangles) costs two a triangle.
            f.planar = f.points.len() == 3;
        }
        Shape::Triangle(t) => {
            // The face while the direction is within 60 degrees of either side's normal (as
            // a box offers a face), else the edge that leans most towards the direction:
            // a face seen edge-on projects to a sliver the clipper cannot use.
            let face = (t.b - t.a).cross(&(t.c - t.a));
            let cos = face.dot(&local) / (face.norm() * local.norm()).max(Real::MIN_POSITIVE);
            let corners = [t.a, t.b, t.c];
            if cos.abs() >= 0.5 {
                let order = if cos >= 0.0 { [0, 1, 2] } else { [0, 2, 1] };
                for i in order {
                    f.points.push(pose * corners[i]);
                    f.ids.push(i as u32);
                }
                f.id = u32::from(cos < 0.0);
                let n = pose.rotation * face.normalize();
                f.normal = if cos >= 0.0 { n } else { -n };
                f.planar = true;
            } else {
                let edge = (0..3)
                    .max_by(|&i, &j| {
                        let along = |k: usize| {
                            (corners[k] + corners[(k + 1) % 3].coords)
                                .coords
                                .dot(&local)
                        };
                        along(i)
                            .partial_cmp(&along(j))
                            .unwrap_or(std::cmp::Ordering::Equal)
                    })
                    .unwrap_or(0);
                for i in [edge, (edge + 1) % 3] {
                    f.points.push(pose * corners[i]);
                    f.ids.push(i as u32);
                }
                f.id = 2 + edge as u32;
            }
        }
        // Level shapes never reach here (the dispatcher cuts them first); a point keeps a stray
        // call finite.
        Shape::HalfSpace(_) | Shape::TriMesh(_) | Shape::HeightField(_) => {
            f.points.push(pose * Point::origin());
            f.ids.push(0);
        }
    }
}

/// The manifold around a contact already found: the supporting features of `a` and `b` along
/// `contact.normal`, clipped against each other (the module doc). `out`'s points are replaced.
pub(crate) fn clip(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    contact: &Contact,
    margin: Real,
    out: &mut Manifold,
) {
    let mut found = Candidates::new();
    out.normal = clip_candidates(a, pose_a, b, pose_b, contact, margin, &mut found);
    keep_four(&found, out);
}

/// A manifold's candidate points before four are kept. On the stack: two quads clip to up to
/// eight points (plus the deepest), and gathering them in a manifold's points (four inline)
/// spilled it to the heap for every face-face pair of every step (measured: 290 allocations
/// a step in `pyramid`).
pub(crate) type Candidates = SmallVec<[ManifoldPoint; 16]>;

/// `out`'s points replaced by `found`, or by four of them ([`pick_four`]) when there are more.
pub(crate) fn keep_four(found: &[ManifoldPoint], out: &mut Manifold) {
    out.points.clear();
    if found.len() > 4 {
        let (t1, t2) = plane_axes(&out.normal);
        let keep = pick_four(found, &t1, &t2);
        out.points.extend(keep.iter().map(|&i| found[i]));
    } else {
        out.points.extend_from_slice(found);
    }
}

/// [`clip`]'s candidate points, pushed on `found`, and the manifold's normal.
pub(crate) fn clip_candidates(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    contact: &Contact,
    margin: Real,
    found: &mut Candidates,
) -> Vector<Real> {
    let contact = *contact;
    let mut n = contact.normal;
    let (mut fa, mut fb) = (Feature::empty(), Feature::empty());
    support_feature_into(a, pose_a, &n, &mut fa);
    support_feature_into(b, pose_b, &-n, &mut fb);
    // A face within 1e-3 rad of the normal gives it exactly: EPA's normal carries the rounding
    // of its cross products, and a resting box should push straight up, as SAT would give.
    if fa.points.len() >= 3 && n.cross(&fa.normal).norm() < SNAP {
        n = fa.normal;
    } else if fb.points.len() >= 3 && n.cross(&fb.normal).norm() < SNAP {
        n = -fb.normal;
    }
    let base = mix(
        mix(fa.id, fb.id),
        (fa.points.len() as u32) << 4 | fb.points.len() as u32,
    );
    if fa.points.len() == 1 || fb.points.len() == 1 {
        found.push(single(&contact, mix(base, fa.ids[0] << 16 | fb.ids[0])));
        return n;
    }

    // The contact plane: origin at A's witness point, axes t1, t2 perpendicular to n.
    let origin = contact.point_a;
    let (t1, t2) = plane_axes(&n);
    let to_plane = |p: &Point<Real>| {
        let d = p - origin;
        (d.dot(&t1), d.dot(&t2))
    };

    // Both features on the plane, once: the subject and the outline below, and the fan
    // triangles that lift a hull's points back (which projected every vertex again per point).
    let on_plane = |points: &[Point<Real>]| -> SmallVec<[(Real, Real); 8]> {
        small_vec_of(points.len(), (0.0, 0.0), points.iter().map(to_plane))
    };
    let (plane_a, plane_b) = (on_plane(&fa.points), on_plane(&fb.points));

    // Clip the smaller feature (subject) against the larger one (clipper).
    let b_clips = fb.points.len() > fa.points.len();
    let (clipper, subject) = if b_clips { (&fb, &fa) } else { (&fa, &fb) };
    let (outline, subject_plane) = if b_clips {
        (&plane_b, &plane_a)
    } else {
        (&plane_a, &plane_b)
    };
    let clip_of = |(&(x, y), &id): (&(Real, Real), &u32)| Clip {
        x,
        y,
        id: mix(1, id),
    };
    let subject_points = subject_plane.iter().zip(&subject.ids);
    // Polygons of up to sixteen corners between them (every box face and nearly every hull
    // face) clip in arrays on the stack ([`clip_in_arrays`]); the rest in small vectors.
    let room = subject_points.len() + outline.len();
    let mut on_stack = [Clip::BLANK; CLIP_ROOM];
    let spilled: SmallVec<[Clip; 16]>;
    let clipped: &[Clip] =
        if outline.len() > 2 && room <= CLIP_ROOM && clipper.ids.len() == outline.len() {
            let count = subject_points.len();
            for (slot, point) in on_stack.iter_mut().zip(subject_points) {
                *slot = clip_of(point);
            }
            let count = clip_in_arrays(&mut on_stack, count, room, outline, &clipper.ids);
            &on_stack[..count]
        } else {
            let mut points = small_vec_of(
                subject_points.len(),
                Clip::BLANK,
                subject_points.map(clip_of),
            );
            if outline.len() == 2 {
                clip_segment_by_segment(&mut points, outline);
            } else {
                clip_by_polygon(&mut points, outline, &clipper.ids);
            }
            spilled = points;
            &spilled
        };

    let (ra, rb) = (a.radius(), b.radius());
    let (lift_a, lift_b) = (Lift::new(&fa, &plane_a, &n), Lift::new(&fb, &plane_b, &n));
    // Each clipped point lifted from its own place on the plane (projecting `at` back onto
    // the plane gave it again, with a rounding, for every point).
    for c in clipped {
        let at = origin + t1 * c.x + t2 * c.y;
        let lifted = (lift_a.lift(&at, (c.x, c.y)), lift_b.lift(&at, (c.x, c.y)));
        let (Some(pa), Some(pb)) = lifted else {
            continue;
        };
        let separation = (pb - pa).dot(&n) - ra - rb;
        if separation <= margin && separation.is_finite() {
            found.push(ManifoldPoint {
                point_a: pa + n * ra,
                point_b: pb - n * rb,
                separation,
                id: mix(base, c.id),
                normal_impulse: 0.0,
            });
        }
    }
    // Deep overlaps can clip the deepest point away (the other shape's vertex sinks past the
    // edge of this face): the query's own witness pair then joins the points, so the manifold
    // is never shallower than the contact.
    let deepest = found
        .iter()
        .map(|p| p.separation)
        .fold(Real::INFINITY, Real::min);
    if deepest > contact.separation + DEEPEST_TOLERANCE {
        found.push(single(&contact, mix(base, 0xFFFF)));
    }
    n
}

/// The contact plane's two axes for unit normal `n`, chosen the same way every time.
pub(crate) fn plane_axes(n: &Vector<Real>) -> (Vector<Real>, Vector<Real>) {
    let t1 = if n.x.abs() < 0.57 {
        n.cross(&Vector::x())
    } else {
        n.cross(&Vector::y())
    }
    .normalize();
    (t1, n.cross(&t1))
}

/// The contact's own witness pair as a point.
pub(crate) fn single(c: &Contact, id: FeatureId) -> ManifoldPoint {
    ManifoldPoint {
        point_a: c.point_a,
        point_b: c.point_b,
        separation: c.separation,
        id,
        normal_impulse: 0.0,
    }
}

/// A feature made ready to lift points of the contact plane back onto it (along the normal
/// `n`): its points as a slice and `n . normal` worked out once for all the clipped points.
struct Lift<'f> {
    points: &'f [Point<Real>],
    /// The feature's points on the contact plane.
    plane: &'f [(Real, Real)],
    normal: Vector<Real>,
    planar: bool,
    n: Vector<Real>,
    dn: Real,
}

impl<'f> Lift<'f> {
    fn new(f: &'f Feature, plane: &'f [(Real, Real)], n: &Vector<Real>) -> Lift<'f> {
        Lift {
            points: &f.points,
            plane,
            normal: f.normal,
            planar: f.planar,
            n: *n,
            dn: n.dot(&f.normal),
        }
    }

    /// The point of the feature that projects on the contact plane at `at` (moving along
    /// the normal); `(x, y)` is `at` on the plane.
    /// (The plane's few operations inline, the rest out of line.)
    #[inline(always)]
    fn lift(&self, at: &Point<Real>, xy: (Real, Real)) -> Option<Point<Real>> {
        if self.planar && self.dn.abs() >= 1.0e-3 {
            let h = (self.points[0] - at).dot(&self.normal) / self.dn;
            return Some(at + self.n * h);
        }
        self.lift_off_plane(at, xy)
    }

    /// [`Lift::lift`] for a face that is not one plane, a segment or a face seen edge-on.
    #[inline(never)]
    fn lift_off_plane(&self, at: &Point<Real>, (x, y): (Real, Real)) -> Option<Point<Real>> {
        let (points, plane, dn, n) = (self.points, self.plane, self.dn, &self.n);
        if points.len() >= 3 {
            // Hull faces are merged from nearly coplanar triangles, so interpolate on the
            // triangle of the fan that holds the point rather than on one plane.
            let p0 = points[0];
            let q0 = plane[0];
            let mut best: Option<(Real, Point<Real>)> = None;
            for i in 1..points.len() - 1 {
                let (p1, p2) = (points[i], points[i + 1]);
                let (q1, q2) = (plane[i], plane[i + 1]);
                let det = (q1.0 - q0.0) * (q2.1 - q0.1) - (q1.1 - q0.1) * (q2.0 - q0.0);
                if det.abs() <= Real::MIN_POSITIVE {
                    continue;
                }
                let u = ((x - q0.0) * (q2.1 - q0.1) - (y - q0.1) * (q2.0 - q0.0)) / det;
                let v = ((q1.0 - q0.0) * (y - q0.1) - (q1.1 - q0.1) * (x - q0.0)) / det;
                // How far outside this triangle (0 inside): the fan triangle that holds it
                // wins.
                let outside = (-u).max(-v).max(u + v - 1.0).max(0.0);
                if best.is_none_or(|(o, _)| outside < o) {
                    best = Some((outside, p0 + (p1 - p0) * u + (p2 - p0) * v));
                }
            }
            if best.is_none() && dn.abs() >= 1.0e-3 {
                let h = (p0 - at).dot(&self.normal) / dn;
                return Some(at + n * h);
            }
            best.map(|(_, p)| p)
        } else {
            let (p0, p1) = (points[0], points[1]);
            let ((x0, y0), (x1, y1)) = (plane[0], plane[1]);
            let (dx, dy) = (x1 - x0, y1 - y0);
            let len2 = dx * dx + dy * dy;
            let u = if len2 > 0.0 {
                (((x - x0) * dx + (y - y0) * dy) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            Some(p0 + (p1 - p0) * u)
        }
    }
}

/// The indices of four of `pts` to keep: the deepest, the one farthest from it, the one making
/// the largest triangle with those, and the one adding the most area beyond that triangle
/// (fewer if some coincide).
pub(crate) fn pick_four(
    pts: &[ManifoldPoint],
    t1: &Vector<Real>,
    t2: &Vector<Real>,
) -> SmallVec<[usize; 4]> {
    // Each point on the plane once (the scores below read them four times over).
    let plane: SmallVec<[(Real, Real); 16]> = pts
        .iter()
        .map(|p| (p.point_a.coords.dot(t1), p.point_a.coords.dot(t2)))
        .collect();
    let area = |a: (Real, Real), b: (Real, Real), c: (Real, Real)| {
        (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
    };
    let argmax = |score: &dyn Fn(usize) -> Real| {
        (0..pts.len()).fold(0, |best, i| if score(i) > score(best) { i } else { best })
    };
    let i1 = argmax(&|i| -pts[i].separation);
    let p1 = plane[i1];
    let i2 = argmax(&|i| {
        let p = plane[i];
        (p.0 - p1.0).powi(2) + (p.1 - p1.1).powi(2)
    });
    let p2 = plane[i2];
    let i3 = argmax(&|i| area(p1, p2, plane[i]).abs());
    let p3 = plane[i3];
    let sign = if area(p1, p2, p3) >= 0.0 { 1.0 } else { -1.0 };
    // Area added outside each edge of the (counter-clockwise) triangle.
    let i4 = argmax(&|i| {
        let q = plane[i];
        [(p1, p2), (p2, p3), (p3, p1)]
            .iter()
            .map(|&(u, v)| -sign * area(u, v, q))
            .fold(0.0, Real::max)
    });
    let mut keep: SmallVec<[usize; 4]> = SmallVec::new();
    for i in [i1, i2, i3, i4] {
        if !keep.contains(&i) {
            keep.push(i);
        }
    }
    keep
}

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

pub use crate::dispatch::manifolds;
use crate::epa::{self, Contact, Gap, GAP_SLACK};
use crate::gjk::SimplexCache;
use crate::shape::Shape;
use crate::{closed_form, sat};

/// Identifies which features of the two shapes made a contact point, so that the next step can
/// recognise the same point and carry its impulses over (warm starting).
pub type FeatureId = u32;

/// One contact point.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifoldPoint {
    /// The point on A's surface (world).
    pub point_a: Point<Real>,
    /// The point on B's surface (world).
    pub point_b: Point<Real>,
    /// Signed distance along the normal (m): negative overlapping, positive apart (speculative).
    pub separation: Real,
    /// Features of A and B that made this point.
    pub id: FeatureId,
    /// Accumulated normal impulse (N s), kept for warm starting; the collision crate only
    /// carries it from step to step.
    pub normal_impulse: Real,
}

/// The contact between two shapes: a normal and up to four points.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Manifold {
    /// Unit normal from A to B (world).
    pub normal: Vector<Real>,
    /// The points; empty when the shapes are farther apart than the margin.
    pub points: SmallVec<[ManifoldPoint; 4]>,
    /// Which part of a mesh or height field made it (its first triangle's index); 0 for
    /// convex shapes and half-spaces.
    pub sub_shape: u32,
    /// Accumulated friction impulse (N s, world), applied at the points' centre: the solver
    /// holds one friction per manifold, kept in world space so that it survives the tangents
    /// turning with the normal. Carried from step to step like the points' impulses.
    pub friction_impulse: Vector<Real>,
    /// Accumulated twist friction impulse about the normal (N m s), likewise.
    pub twist_impulse: Real,
    /// Accumulated rolling resistance impulse (N m s, world), likewise.
    pub rolling_impulse: Vector<Real>,
}

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

/// A point being clipped: its plane coordinates and its id.
#[derive(Clone, Copy, Debug)]
struct Clip {
    x: Real,
    y: Real,
    id: u32,
}

impl Clip {
    /// A slot not yet written.
    const BLANK: Clip = Clip {
        x: 0.0,
        y: 0.0,
        id: 0,
    };
}

pub(crate) fn mix(a: u32, b: u32) -> u32 {
    (a ^ b.wrapping_mul(0x9E37_79B1))
        .rotate_left(13)
        .wrapping_mul(0x85EB_CA6B)
        ^ b
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

/// The contact manifold of `a` at `pose_a` and `b` at `pose_b`, written into `out` (whose old
/// points are replaced; impulses are not carried here, see the narrow phase).
///
/// ```
/// use sprung_collision::{manifold::{manifold, Manifold}, shape::Shape};
/// use sprung_collision::parry3d::math::{Isometry, Vector};
///
/// let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
/// let mut m = Manifold::default();
/// manifold(&cube, &Isometry::identity(), &cube, &Isometry::translation(0.0, 0.99, 0.0), 0.02, &mut m);
/// assert_eq!(m.points.len(), 4);
/// assert!(m.points.iter().all(|p| (p.separation + 0.01).abs() < 1e-5));
/// ```
///
/// Convex shapes and half-spaces; for a mesh or height field, which can touch along several
/// normals, [`manifolds`] gives them all (this keeps the deepest).
pub fn manifold(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    margin: Real,
    out: &mut Manifold,
) {
    manifold_or_gap(
        a,
        pose_a,
        b,
        pose_b,
        margin,
        None,
        &mut SimplexCache::default(),
        out,
    );
}

/// For shapes found apart, how far apart (m) along their normal (world, unit, from A towards
/// B) they may lie and still be given points: the margin plus how far they can close along
/// that normal in a step (see [`manifold_or_gap`]).
pub(crate) type KeepWithin<'k> = Option<&'k dyn Fn(&Vector<Real>) -> Real>;

/// [`manifold`], returning the [`Gap`] when the shapes were found farther apart than `margin`
/// (the manifold then has no points), or farther apart than `within` gives along the normal
/// found.
///
/// `within` is how a pair apart is spared its clip: `margin` holds the reach of the bodies'
/// whole relative speed, but shapes apart along a normal close no faster than their speeds
/// along it (their gap along it is a lower bound of their distance, and a translation across
/// it leaves it as it is; only turning can close it faster, which the reach along it holds
/// too).
#[allow(clippy::too_many_arguments)]
pub(crate) fn manifold_or_gap(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    margin: Real,
    within: KeepWithin<'_>,
    warm: &mut SimplexCache,
    out: &mut Manifold,
) -> Option<Gap> {
    out.points.clear();
    out.sub_shape = 0;
    if a.is_level() || b.is_level() {
        let mut all: SmallVec<[Manifold; 1]> = SmallVec::new();
        manifolds(a, pose_a, b, pose_b, margin, &mut all);
        let depth = |m: &Manifold| {
            m.points
                .iter()
                .map(|p| p.separation)
                .fold(Real::INFINITY, Real::min)
        };
        if let Some(deepest) = all.into_iter().min_by(|x, y| {
            depth(x)
                .partial_cmp(&depth(y))
                .unwrap_or(std::cmp::Ordering::Equal)
        }) {
            *out = deepest;
        }
        return None;
    }
    let found = match (a, b) {
        (Shape::Cuboid(ca), Shape::Cuboid(cb)) => {
            return sat::cuboid_cuboid_manifold_or_gap(ca, pose_a, cb, pose_b, margin, within, out);
        }
        // The pairs with a closed form, else the general path.
        _ => {
            // A hull's topology and normals on their way while GJK runs (`Hull::prefetch`).
            if let Shape::ConvexHull(h) = a {
                h.prefetch();
            }
            if let Shape::ConvexHull(h) = b {
                h.prefetch();
            }
            closed_form::contact_or_gap(a, pose_a, b, pose_b, margin)
                .unwrap_or_else(|| epa::contact_or_gap(a, pose_a, b, pose_b, margin, warm))
        }
    };
    match found {
        Ok(contact)
            if contact.separation > 0.0
                && within.is_some_and(|within| contact.separation > within(&contact.normal)) =>
        {
            // Apart by more than the pair can close along the normal: a lower bound of the
            // distance, with the slack GJK's gaps are given.
            let (ra, rb) = (a.radius(), b.radius());
            Some(Gap {
                distance: (contact.separation + ra + rb) * (1.0 - GAP_SLACK) - ra - rb,
                axis: pose_a.rotation.inverse_transform_vector(&contact.normal),
            })
        }
        Ok(contact) => {
            clip(a, pose_a, b, pose_b, &contact, margin, out);
            None
        }
        Err(gap) => Some(gap),
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

/// A small vector of `len` items: those of `items` (at most `len`), then `blank`s. Up to `N`
/// are written in an array that becomes the vector: collecting into a small vector cost ~140
/// instructions a call in the clip, `from_elem` or `resize` and a fill in place ~100 more than
/// this (they write and check a slot at a time). More than `N` are collected.
#[inline(always)]
fn small_vec_of<T: Copy, const N: usize>(
    len: usize,
    blank: T,
    items: impl Iterator<Item = T>,
) -> SmallVec<[T; N]>
where
    [T; N]: smallvec::Array<Item = T>,
{
    if len > N {
        return items.chain(std::iter::repeat(blank)).take(len).collect();
    }
    let mut buf = [blank; N];
    for (slot, item) in buf[..len].iter_mut().zip(items) {
        *slot = item;
    }
    SmallVec::from_buf_and_len(buf, len)
}

/// The index after `i` around a polygon of `len` corners: `(i + 1) % len` without the
/// division (an integer division's latency on every edge of every clip).
#[inline(always)]
fn after(i: usize, len: usize) -> usize {
    if i + 1 >= len {
        0
    } else {
        i + 1
    }
}

/// Sutherland-Hodgman: keeps the part of `points` (a polygon, a segment) inside `outline`.
/// Each point's side of an edge is computed once (it ends one edge of the subject and starts
/// the next), and the two buffers trade places by reference, not by copying their contents.
fn clip_by_polygon(points: &mut SmallVec<[Clip; 16]>, outline: &[(Real, Real)], ids: &[u32]) {
    // Both buffers have room for every side to add a point (a convex polygon gains at most
    // one a side).
    let room = points.len() + outline.len();
    let mut from: SmallVec<[Clip; 16]> = SmallVec::from_elem(Clip::BLANK, room);
    from[..points.len()].copy_from_slice(points);
    let mut to: SmallVec<[Clip; 16]> = SmallVec::from_elem(Clip::BLANK, room);
    let mut count = points.len();
    let winding = winding(outline);
    for i in 0..outline.len() {
        if count == 0 {
            break;
        }
        let edge = ClipEdge::new(outline, ids, i, winding);
        count = edge.clip(&from[..count], &mut to[..]);
        std::mem::swap(&mut from, &mut to);
    }
    points.clear();
    points.extend_from_slice(&from[..count]);
    let len = merge_coincident(points.as_mut_slice());
    points.truncate(len);
}

/// How many points a clip takes on the stack ([`clip_in_arrays`]): a power of two.
const CLIP_ROOM: usize = 16;

/// [`clip_by_polygon`] in arrays on the stack, `count` points in `from` and `room` (at most
/// [`CLIP_ROOM`]) slots each side may fill; returns how many points are left in `from`. Their
/// indices need no bounds checks (a mask, the arrays being a power of two long): on small
/// vectors, each read and write checked where their items live and each index its bound,
/// a fifth of the clip's own instructions.
#[inline(always)]
fn clip_in_arrays(
    from: &mut [Clip; CLIP_ROOM],
    mut count: usize,
    room: usize,
    outline: &[(Real, Real)],
    ids: &[u32],
) -> usize {
    debug_assert!(count <= room && room <= CLIP_ROOM);
    let mut spare = [Clip::BLANK; CLIP_ROOM];
    let (mut a, mut b) = (from, &mut spare);
    let mut in_spare = false;
    let winding = winding(outline);
    for i in 0..outline.len() {
        if count == 0 {
            break;
        }
        let edge = ClipEdge::new(outline, ids, i, winding);
        count = edge.clip_masked(a, count, b, room);
        std::mem::swap(&mut a, &mut b);
        in_spare = !in_spare;
    }
    if in_spare {
        // (`a` is the spare array now, `b` the caller's.)
        b[..count].copy_from_slice(&a[..count]);
    }
    let (from, _) = if in_spare { (b, a) } else { (a, b) };
    merge_coincident(&mut from[..count])
}

/// The sign of `outline`'s signed area: "inside" is to the left of each edge when it is
/// counter-clockwise (positive).
fn winding(outline: &[(Real, Real)]) -> Real {
    let area: Real = (0..outline.len())
        .map(|i| {
            let (p, q) = (outline[i], outline[after(i, outline.len())]);
            p.0 * q.1 - q.0 * p.1
        })
        .sum();
    if area >= 0.0 {
        1.0
    } else {
        -1.0
    }
}

/// One edge of the outline, `p` to `q`, as the clip uses it.
struct ClipEdge {
    p: (Real, Real),
    /// `q - p`.
    dx: Real,
    dy: Real,
    winding: Real,
    id: u32,
}

impl ClipEdge {
    /// Edge `i` of `outline`, whose [`winding`] is `winding`.
    #[inline(always)]
    fn new(outline: &[(Real, Real)], ids: &[u32], i: usize, winding: Real) -> ClipEdge {
        let (p, q) = (outline[i], outline[after(i, outline.len())]);
        ClipEdge {
            p,
            dx: q.0 - p.0,
            dy: q.1 - p.1,
            winding,
            id: mix(ids[i], ids[after(i, ids.len())]),
        }
    }

    #[inline(always)]
    fn side(&self, c: &Clip) -> Real {
        self.winding * (self.dx * (c.y - self.p.1) - self.dy * (c.x - self.p.0))
    }

    #[inline(always)]
    fn cut(&self, c0: &Clip, c1: &Clip, s0: Real, s1: Real) -> Clip {
        let t = s0 / (s0 - s1);
        Clip {
            x: c0.x + (c1.x - c0.x) * t,
            y: c0.y + (c1.y - c0.y) * t,
            id: mix(self.id, mix(c0.id, c1.id)),
        }
    }

    /// The part of `subject` (a polygon of three points or more, or a segment or point) on
    /// the inner side, written to `to` (points past its end dropped: only rounding could ask
    /// for them); returns how many.
    fn clip(&self, subject: &[Clip], to: &mut [Clip]) -> usize {
        let mut kept = 0;
        self.clip_with(
            subject.len(),
            |j| subject[j],
            |c| {
                if let Some(slot) = to.get_mut(kept) {
                    *slot = c;
                    kept += 1;
                }
            },
        );
        kept
    }

    /// [`ClipEdge::clip`] between arrays of [`CLIP_ROOM`], `count` points in `from` and
    /// `room` slots in `to`: every index masked into the array, so none is checked.
    #[inline(always)]
    fn clip_masked(
        &self,
        from: &[Clip; CLIP_ROOM],
        count: usize,
        to: &mut [Clip; CLIP_ROOM],
        room: usize,
    ) -> usize {
        const MASK: usize = CLIP_ROOM - 1;
        let mut kept = 0;
        self.clip_with(
            count,
            |j| from[j & MASK],
            |c| {
                if kept < room {
                    to[kept & MASK] = c;
                    kept += 1;
                }
            },
        );
        kept
    }

    /// The clip of the `count` (at least one) points `at` gives, each point kept passed to
    /// `keep` in order.
    #[inline(always)]
    fn clip_with(&self, count: usize, at: impl Fn(usize) -> Clip, mut keep: impl FnMut(Clip)) {
        let first = at(0);
        let mut s1 = self.side(&first);
        if count <= 2 {
            // A point, or a segment: its ends are kept when inside, the crossing added.
            if s1 >= 0.0 {
                keep(first);
            }
            if count == 2 {
                let c1 = at(1);
                let s0 = s1;
                s1 = self.side(&c1);
                if (s0 >= 0.0) != (s1 >= 0.0) {
                    keep(self.cut(&first, &c1, s0, s1));
                }
                if s1 >= 0.0 {
                    keep(c1);
                }
            }
            return;
        }
        let mut c0 = first;
        for j in 1..=count {
            let c1 = if j == count { first } else { at(j) };
            let s0 = s1;
            s1 = self.side(&c1);
            if s0 >= 0.0 {
                keep(c0);
            }
            if (s0 >= 0.0) != (s1 >= 0.0) {
                keep(self.cut(&c0, &c1, s0, s1));
            }
            c0 = c1;
        }
    }
}

/// Clipping can leave coincident points (a corner on an edge): keeps one of each, in place,
/// and returns how many are left.
fn merge_coincident(kept: &mut [Clip]) -> usize {
    let (mut i, mut len) = (0, kept.len());
    while i < len && len > 1 {
        let next = after(i, len);
        let (c, d) = (kept[i], kept[next]);
        if (c.x - d.x).abs() <= 1.0e-6 && (c.y - d.y).abs() <= 1.0e-6 {
            kept.copy_within(next + 1..len, next);
            len -= 1;
        } else {
            i += 1;
        }
    }
    len
}

/// Two segments in the plane: parallel ones keep their overlap (two points), crossing ones the
/// crossing point.
fn clip_segment_by_segment(points: &mut SmallVec<[Clip; 16]>, outline: &[(Real, Real)]) {
    if points.len() != 2 {
        return;
    }
    let (p, q) = (outline[0], outline[1]);
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let len2 = dx * dx + dy * dy;
    let (c0, c1) = (points[0], points[1]);
    let (ex, ey) = (c1.x - c0.x, c1.y - c0.y);
    let cross = dx * ey - dy * ex;
    let elen2 = ex * ex + ey * ey;
    if len2 <= 0.0 || elen2 <= 0.0 {
        points.truncate(1);
        return;
    }
    if cross.abs() <= 0.05 * (len2 * elen2).sqrt() {
        // Parallel: clamp the subject's ends to the clipper's extent along its direction.
        let along = |x: Real, y: Real| ((x - p.0) * dx + (y - p.1) * dy) / len2;
        for c in points.iter_mut() {
            let u = along(c.x, c.y);
            if !(0.0..=1.0).contains(&u) {
                let u = u.clamp(0.0, 1.0);
                // Move along the subject's own line to where it meets the clipper's end.
                let (ux0, ux1) = (along(c0.x, c0.y), along(c1.x, c1.y));
                if (ux1 - ux0).abs() > 1.0e-12 {
                    let t = (u - ux0) / (ux1 - ux0);
                    c.x = c0.x + ex * t;
                    c.y = c0.y + ey * t;
                    c.id = mix(c.id, 0xC1 + u as u32);
                }
            }
        }
    } else {
        // Crossing: one point where the lines meet, clamped onto the subject.
        let t = (((p.0 - c0.x) * dy - (p.1 - c0.y) * dx) / (ex * dy - ey * dx)).clamp(0.0, 1.0);
        points[0] = Clip {
            x: c0.x + ex * t,
            y: c0.y + ey * t,
            id: mix(c0.id, c1.id),
        };
        points.truncate(1);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::uniform;

    /// A convex polygon of `n` corners on a circle about a random centre, counter-clockwise or
    /// (when `clockwise`) the other way, with ids `first..`.
    fn polygon(
        next: &mut impl FnMut() -> Real,
        n: usize,
        clockwise: bool,
        first: u32,
    ) -> (Vec<(Real, Real)>, Vec<u32>) {
        let (cx, cy, r) = (next(), next(), 0.3 + next().abs());
        let mut angles: Vec<Real> = (0..n)
            .map(|_| (next() + 0.5) * std::f32::consts::TAU)
            .collect();
        angles.sort_by(Real::total_cmp);
        if clockwise {
            angles.reverse();
        }
        let corners = angles
            .iter()
            .map(|a| (cx + r * a.cos(), cy + r * a.sin()))
            .collect();
        (corners, (first..first + n as u32).collect())
    }

    /// Whether `(x, y)` lies inside convex `outline` (either winding), within `slack`.
    fn inside(outline: &[(Real, Real)], (x, y): (Real, Real), slack: Real) -> bool {
        let w = winding(outline);
        (0..outline.len()).all(|i| {
            let (p, q) = (outline[i], outline[after(i, outline.len())]);
            let (dx, dy) = (q.0 - p.0, q.1 - p.1);
            w * (dx * (y - p.1) - dy * (x - p.0)) >= -slack * (dx * dx + dy * dy).sqrt()
        })
    }

    #[test]
    fn the_clip_in_arrays_is_the_clip_in_small_vectors() {
        let mut next = uniform(0x5EED_C11F);
        let (mut compared, mut spilled, mut empty) = (0, 0, 0);
        for case in 0..4_000 {
            // Subjects of one and two points too (a vertex, an edge against a face).
            let (na, nb) = (3 + case % 9, 1 + (case / 9) % 11);
            let (outline, ids) = polygon(&mut next, na, case % 2 == 0, 100);
            let (subject, subject_ids) = polygon(&mut next, nb, case % 3 == 0, 0);
            let clips: SmallVec<[Clip; 16]> = subject
                .iter()
                .zip(&subject_ids)
                .map(|(&(x, y), &id)| Clip { x, y, id })
                .collect();
            let mut general = clips.clone();
            clip_by_polygon(&mut general, &outline, &ids);
            for c in &general {
                assert!(inside(&outline, (c.x, c.y), 1e-4), "case {case}");
                assert!(nb < 3 || inside(&subject, (c.x, c.y), 1e-4), "case {case}");
            }
            empty += usize::from(general.is_empty());
            let room = clips.len() + outline.len();
            if room > CLIP_ROOM {
                spilled += 1;
                continue;
            }
            let mut on_stack = [Clip::BLANK; CLIP_ROOM];
            on_stack[..clips.len()].copy_from_slice(&clips);
            let count = clip_in_arrays(&mut on_stack, clips.len(), room, &outline, &ids);
            let bits = |c: &Clip| (c.x.to_bits(), c.y.to_bits(), c.id);
            assert_eq!(
                on_stack[..count].iter().map(bits).collect::<Vec<_>>(),
                general.iter().map(bits).collect::<Vec<_>>(),
                "case {case}"
            );
            compared += 1;
        }
        // Both paths and both outcomes were taken.
        assert!(compared > 2_000 && spilled > 500, "{compared} {spilled}");
        assert!(empty > 100 && empty < 3_000, "{empty}");
    }

    /// Two unit cubes 5 cm apart, as hulls (GJK) and as boxes (the separating-axis test),
    /// queried with a margin that reaches across the gap: points, unless what the pair may
    /// close along the normal found (`within`) falls short of the gap, when the query gives
    /// the gap instead (its distance a lower bound, its axis the normal in A's frame).
    #[test]
    fn a_pair_apart_beyond_its_reach_along_the_normal_gets_no_points() {
        let corners: Vec<Point<Real>> = (0..8)
            .map(|i| {
                let at = |bit: u32| if i & bit == 0 { -0.5 } else { 0.5 };
                Point::new(at(1), at(2), at(4))
            })
            .collect();
        let hull = Shape::convex_hull(&corners).unwrap();
        let cuboid = Shape::cuboid(Vector::repeat(0.5)).unwrap();
        // (Turned about x and z, so that A's up is not the world's: a normal or axis in the
        // wrong frame would show.)
        let turn = nalgebra::UnitQuaternion::from_euler_angles(0.3, 0.0, 0.2);
        let pose_a = Isometry::from_parts(Vector::new(0.0, 0.0, 1.0).into(), turn);
        // B 1.05 m along A's own up axis: 5 cm apart, face to face.
        let up = turn * Vector::y();
        let pose_b = Isometry::from_parts((pose_a.translation.vector + up * 1.05).into(), turn);
        for shape in [&hull, &cuboid] {
            let query = |within: KeepWithin<'_>| {
                let mut out = Manifold::default();
                let gap = manifold_or_gap(
                    shape,
                    &pose_a,
                    shape,
                    &pose_b,
                    0.3,
                    within,
                    &mut SimplexCache::default(),
                    &mut out,
                );
                (gap, out.points.len())
            };
            assert!(matches!(query(None), (None, 4)));
            let far = |n: &Vector<Real>| {
                assert!((n - up).norm() < 1e-4, "the normal {n:?}");
                0.1
            };
            assert!(matches!(query(Some(&far)), (None, 4)));
            let near = |_: &Vector<Real>| 0.02;
            let (Some(gap), 0) = query(Some(&near)) else {
                panic!("points or no gap within 2 cm");
            };
            assert!(
                gap.distance <= 0.05 + 1e-5 && gap.distance > 0.049,
                "{gap:?}"
            );
            assert!((gap.axis - Vector::y()).norm() < 1e-4, "{gap:?}");
        }
    }

    #[test]
    fn a_square_clipped_by_a_square_is_their_overlap() {
        let square = |x0: Real, y0: Real, s: Real| {
            vec![(x0, y0), (x0 + s, y0), (x0 + s, y0 + s), (x0, y0 + s)]
        };
        let outline = square(0.0, 0.0, 1.0);
        let subject = square(0.5, 0.25, 1.0);
        let mut on_stack = [Clip::BLANK; CLIP_ROOM];
        for (i, &(x, y)) in subject.iter().enumerate() {
            on_stack[i] = Clip { x, y, id: i as u32 };
        }
        let count = clip_in_arrays(&mut on_stack, 4, 8, &outline, &[0, 1, 2, 3]);
        let mut got: Vec<(Real, Real)> = on_stack[..count].iter().map(|c| (c.x, c.y)).collect();
        got.sort_by(|p, q| p.partial_cmp(q).unwrap());
        assert_eq!(got, vec![(0.5, 0.25), (0.5, 1.0), (1.0, 0.25), (1.0, 1.0)]);
    }
}

//! Contacts in closed form, for the pairs that have one: no GJK or EPA iterations.
//!
//! Two spheres: the line through the centres is the normal, the distance between the centres
//! less both radii the separation. A sphere and a box: the box's point closest to the centre
//! (or, for a centre inside, the nearest face). Capsules (and a capsule and a sphere): the
//! closest points of the core segments. Each is held to the GJK/EPA path by
//! `manifold_cases.rs` (10,000 random pairs each).

use parry3d::math::{Isometry, Point, Real, Vector};
use parry3d::shape::{Capsule, Cuboid};

use crate::contact::{Contact, Gap, GAP_SLACK};
use crate::shape::Shape;

/// The contact of `a` at `pose_a` and `b` at `pose_b` in closed form, for the pairs that have
/// one (two spheres, a sphere and a box, capsules and spheres, a capsule and a box whose core
/// stays outside it): `None` for the others, whose contact is found by GJK and EPA
/// ([`crate::epa::contact`]); `Some(None)` when the shapes are farther apart than `margin` (m).
///
/// ```
/// use sprung_collision::{closed_form, shape::Shape};
/// use sprung_collision::parry3d::math::{Isometry, Vector};
///
/// let ball = Shape::sphere(0.5).unwrap();
/// let capsule = Shape::capsule(1.0, 0.25).unwrap();
/// let above = Isometry::translation(0.0, 1.65, 0.0); // 0.1 m into the capsule's top
/// let c = closed_form::contact(&capsule, &Isometry::identity(), &ball, &above, 0.0);
/// assert!((c.unwrap().unwrap().separation + 0.1).abs() < 1e-6);
/// let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
/// // Two boxes go through the separating axis test, not a closed form.
/// assert!(closed_form::contact(&cube, &Isometry::identity(), &cube, &above, 0.0).is_none());
/// ```
pub fn contact(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    margin: Real,
) -> Option<Option<Contact>> {
    contact_or_gap(a, pose_a, b, pose_b, margin).map(Result::ok)
}

/// [`contact`], with the [`Gap`] of shapes found apart.
pub(crate) fn contact_or_gap(
    a: &Shape,
    pose_a: &Isometry<Real>,
    b: &Shape,
    pose_b: &Isometry<Real>,
    margin: Real,
) -> Option<Result<Contact, Gap>> {
    Some(match (a, b) {
        (Shape::Sphere(sa), Shape::Sphere(sb)) => {
            sphere_sphere_or_gap(sa.radius, pose_a, sb.radius, pose_b, margin)
        }
        (Shape::Sphere(s), Shape::Cuboid(c)) => {
            sphere_cuboid_or_gap(s.radius, pose_a, c, pose_b, margin, true)
        }
        (Shape::Cuboid(c), Shape::Sphere(s)) => {
            sphere_cuboid_or_gap(s.radius, pose_b, c, pose_a, margin, false)
        }
        (Shape::Capsule(c), Shape::Cuboid(b)) => {
            return capsule_cuboid_or_gap(c, pose_a, b, pose_b, margin, true)
        }
        (Shape::Cuboid(b), Shape::Capsule(c)) => {
            return capsule_cuboid_or_gap(c, pose_b, b, pose_a, margin, false)
        }
        (Shape::Sphere(_) | Shape::Capsule(_), Shape::Sphere(_) | Shape::Capsule(_)) => {
            // A sphere is a capsule whose core is a point.
            let rounded = |shape: &Shape| match shape {
                Shape::Capsule(c) => ((c.segment.a, c.segment.b), c.radius),
                _ => ((Point::origin(), Point::origin()), shape.radius()),
            };
            let ((core_a, ra), (core_b, rb)) = (rounded(a), rounded(b));
            capsule_capsule_or_gap((core_a, ra, pose_a), (core_b, rb, pose_b), margin)
        }
        _ => return None,
    })
}

/// The contact of spheres of radii `ra` and `rb` centred at `pose_a` and `pose_b`, if their
/// separation is at most `margin` (m). Concentric spheres push along +y.
///
/// ```
/// use sprung_collision::closed_form::sphere_sphere;
/// use sprung_collision::parry3d::math::{Isometry, Vector};
///
/// let c = sphere_sphere(0.5, &Isometry::identity(), 0.25, &Isometry::translation(0.0, 0.7, 0.0), 0.0)
///     .unwrap();
/// assert!((c.separation + 0.05).abs() < 1e-6 && (c.normal - Vector::y()).norm() < 1e-6);
/// assert!((c.point_a.y - 0.5).abs() < 1e-6 && (c.point_b.y - 0.45).abs() < 1e-6);
/// ```
pub fn sphere_sphere(
    ra: Real,
    pose_a: &Isometry<Real>,
    rb: Real,
    pose_b: &Isometry<Real>,
    margin: Real,
) -> Option<Contact> {
    sphere_sphere_or_gap(ra, pose_a, rb, pose_b, margin).ok()
}

/// [`sphere_sphere`], or a lower bound of the spheres' distance (m) when they are farther
/// apart than `margin` (with no axis: this is as cheap as a test along one).
pub(crate) fn sphere_sphere_or_gap(
    ra: Real,
    pose_a: &Isometry<Real>,
    rb: Real,
    pose_b: &Isometry<Real>,
    margin: Real,
) -> Result<Contact, Gap> {
    let (ca, cb) = (pose_a.translation.vector, pose_b.translation.vector);
    let d = cb - ca;
    let distance = d.norm();
    let separation = distance - ra - rb;
    if separation > margin {
        // Less the rounding of the norm, as the GJK path does: a bound, never more.
        return Err(Gap {
            distance: distance * (1.0 - GAP_SLACK) - ra - rb,
            axis: Vector::zeros(),
        });
    }
    let normal = if distance > NORMALISABLE {
        d / distance
    } else {
        Vector::y()
    };
    Ok(Contact {
        separation,
        normal,
        point_a: Point::from(ca + normal * ra),
        point_b: Point::from(cb - normal * rb),
    })
}

/// The contact of a sphere of radius `radius` at `pose_s` and box `cuboid` at `pose_c`, if
/// their separation is at most `margin` (m); `sphere_first` says which of the two is A (the
/// normal points from A to B). Outside the box, the normal runs from the box's closest point
/// to the centre; a centre inside (or on) the box leaves through the nearest face (the lowest
/// axis of equals), as EPA's least penetration does.
///
/// ```
/// use sprung_collision::closed_form::sphere_cuboid;
/// use sprung_collision::parry3d::{math::{Isometry, Vector}, shape::Cuboid};
///
/// let ground = Cuboid::new(Vector::new(5.0, 0.5, 5.0));
/// let at = Isometry::translation(1.0, 0.9, 0.0);
/// let c = sphere_cuboid(0.5, &at, &ground, &Isometry::identity(), 0.0, true).unwrap();
/// assert!((c.separation + 0.1).abs() < 1e-6 && (c.normal + Vector::y()).norm() < 1e-6);
/// assert!((c.point_b.y - 0.5).abs() < 1e-6 && (c.point_a.y - 0.4).abs() < 1e-6);
/// ```
pub fn sphere_cuboid(
    radius: Real,
    pose_s: &Isometry<Real>,
    cuboid: &Cuboid,
    pose_c: &Isometry<Real>,
    margin: Real,
    sphere_first: bool,
) -> Option<Contact> {
    sphere_cuboid_or_gap(radius, pose_s, cuboid, pose_c, margin, sphere_first).ok()
}

/// [`sphere_cuboid`], or a lower bound of their distance (m) and the axis that showed it.
pub(crate) fn sphere_cuboid_or_gap(
    radius: Real,
    pose_s: &Isometry<Real>,
    cuboid: &Cuboid,
    pose_c: &Isometry<Real>,
    margin: Real,
    sphere_first: bool,
) -> Result<Contact, Gap> {
    let h = cuboid.half_extents;
    let centre = pose_s.translation.vector;
    // The centre in the box's frame, and the box's point closest to it.
    let local = pose_c.inverse_transform_point(&Point::from(centre)).coords;
    let closest = Vector::new(
        local.x.clamp(-h.x, h.x),
        local.y.clamp(-h.y, h.y),
        local.z.clamp(-h.z, h.z),
    );
    let outside = local - closest;
    let distance = outside.norm();
    // The box's outward normal towards the centre (box frame), the box's witness point, and
    // the cores' signed distance.
    let (outward, witness, cores) = if distance > NORMALISABLE {
        (outside / distance, closest, distance)
    } else {
        // Inside or on the surface: out through the face with the least depth.
        let depth = h - local.abs();
        let k = if depth.x <= depth.y && depth.x <= depth.z {
            0
        } else if depth.y <= depth.z {
            1
        } else {
            2
        };
        let sign = if local[k] >= 0.0 { 1.0 } else { -1.0 };
        let mut outward = Vector::zeros();
        outward[k] = sign;
        let mut witness = local;
        witness[k] = sign * h[k];
        (outward, witness, -depth[k])
    };
    let core = Point::from(centre);
    let rounded = (core, radius, pose_s, sphere_first);
    against_box((outward, witness, cores), pose_c, rounded, margin)
}

/// The contact (or the gap) of a box at `pose_box` and a rounded shape (a sphere, a capsule)
/// whose core point `core` (world) is nearest the box: `cores` (m, negative inside) out from
/// the box's point `witness` along its outward normal `outward` (both in the box's frame). The
/// rounded shape, of radius `radius` at `pose`, is A when `first`.
fn against_box(
    (outward, witness, cores): (Vector<Real>, Vector<Real>, Real),
    pose_box: &Isometry<Real>,
    (core, radius, pose, first): (Point<Real>, Real, &Isometry<Real>, bool),
    margin: Real,
) -> Result<Contact, Gap> {
    let outward = pose_box.rotation * outward;
    let separation = cores - radius;
    let normal = if first { -outward } else { outward };
    if separation > margin {
        let pose_a = if first { pose } else { pose_box };
        return Err(Gap {
            distance: cores * (1.0 - GAP_SLACK) - radius,
            axis: pose_a.inverse_transform_vector(&normal),
        });
    }
    let on_box = pose_box * Point::from(witness);
    let on_rounded = core - outward * radius;
    let (point_a, point_b) = if first {
        (on_rounded, on_box)
    } else {
        (on_box, on_rounded)
    };
    Ok(Contact {
        separation,
        normal,
        point_a,
        point_b,
    })
}

/// The contact of capsule `capsule` at `pose_c` and box `cuboid` at `pose_b`, if their
/// separation is at most `margin` (m), with `capsule_first` saying which is A; `None` when the
/// capsule's core segment enters the box (a penetration deeper than its radius, rare: GJK and
/// EPA take it). The core's point nearest the box is found exactly: along the segment the
/// squared distance to the box is a convex quadratic between the places where the segment
/// crosses a face's plane, so its least value is at a crossing or at one quadratic's vertex.
pub(crate) fn capsule_cuboid_or_gap(
    capsule: &Capsule,
    pose_c: &Isometry<Real>,
    cuboid: &Cuboid,
    pose_b: &Isometry<Real>,
    margin: Real,
    capsule_first: bool,
) -> Option<Result<Contact, Gap>> {
    let h = cuboid.half_extents;
    let to_box = pose_b.inv_mul(pose_c);
    let (p0, p1) = (to_box * capsule.segment.a, to_box * capsule.segment.b);
    let (on_core, on_box) = segment_box(p0.coords, p1.coords, &h);
    let outside = on_core - on_box;
    let distance = outside.norm();
    // A core that touches or enters the box has no direction from it: EPA's case.
    if distance <= 1.0e-6 * (1.0 + h.norm()) {
        return None;
    }
    let core = pose_b * Point::from(on_core);
    let rounded = (core, capsule.radius, pose_c, capsule_first);
    Some(against_box(
        (outside / distance, on_box, distance),
        pose_b,
        rounded,
        margin,
    ))
}

/// The point of segment `p0 p1` nearest the box of half-extents `h` (all in the box's frame)
/// and the box's point nearest it. Between the places where the segment crosses the planes of
/// the box's faces, each coordinate stays below, within or above its slab, so the squared
/// distance is one quadratic there: each piece's least value is at its vertex or its ends.
fn segment_box(
    p0: Vector<Real>,
    p1: Vector<Real>,
    h: &Vector<Real>,
) -> (Vector<Real>, Vector<Real>) {
    let d = p1 - p0;
    let mut cuts = [0.0; 8];
    cuts[1] = 1.0;
    let mut count = 2;
    for i in 0..3 {
        if d[i] != 0.0 {
            for plane in [-h[i], h[i]] {
                let t = (plane - p0[i]) / d[i];
                if t > 0.0 && t < 1.0 {
                    cuts[count] = t;
                    count += 1;
                }
            }
        }
    }
    let cuts = &mut cuts[..count];
    cuts.sort_unstable_by(Real::total_cmp);
    let clamp = |p: &Vector<Real>| {
        Vector::new(
            p.x.clamp(-h.x, h.x),
            p.y.clamp(-h.y, h.y),
            p.z.clamp(-h.z, h.z),
        )
    };
    let mut best = (Real::INFINITY, p0, clamp(&p0));
    let mut consider = |t: Real| {
        let p = p0 + d * t;
        let q = clamp(&p);
        let distance2 = (p - q).norm_squared();
        if distance2 < best.0 {
            best = (distance2, p, q);
        }
    };
    for w in cuts.windows(2) {
        let (start, end) = (w[0], w[1]);
        consider(start);
        // The piece's quadratic: the coordinates outside their slab in its middle.
        let middle = p0 + d * (0.5 * (start + end));
        let (mut a, mut b) = (0.0, 0.0);
        for i in 0..3 {
            let face = if middle[i] > h[i] {
                h[i]
            } else if middle[i] < -h[i] {
                -h[i]
            } else {
                continue;
            };
            a += d[i] * d[i];
            b += (p0[i] - face) * d[i];
        }
        if a > 0.0 {
            consider((-b / a).clamp(start, end));
        }
    }
    consider(1.0);
    (best.1, best.2)
}

/// The contact of two capsules or a capsule and a sphere (a sphere is a capsule whose core
/// segment is a point), if their separation is at most `margin` (m): the closest points of
/// the two core segments, `a`'s at `pose_a` and `b`'s at `pose_b`, with radii `ra` and `rb`.
/// Cores that cross have no line between their closest points: the normal is then across both
/// segments (or across the one, or +y), pointing from A's side to B's.
///
/// ```
/// use sprung_collision::closed_form::capsule_capsule;
/// use sprung_collision::parry3d::math::{Isometry, Point, Vector};
///
/// let core = (Point::new(0.0, -1.0, 0.0), Point::new(0.0, 1.0, 0.0));
/// let lying = Isometry::new(Vector::new(0.0, 1.4, 0.0), Vector::z() * std::f32::consts::FRAC_PI_2);
/// let c = capsule_capsule(core, 0.5, &Isometry::identity(), core, 0.5, &lying, 0.0).unwrap();
/// assert!((c.separation + 0.6).abs() < 1e-5 && (c.normal - Vector::y()).norm() < 1e-5);
/// ```
pub fn capsule_capsule(
    a: (Point<Real>, Point<Real>),
    ra: Real,
    pose_a: &Isometry<Real>,
    b: (Point<Real>, Point<Real>),
    rb: Real,
    pose_b: &Isometry<Real>,
    margin: Real,
) -> Option<Contact> {
    capsule_capsule_or_gap((a, ra, pose_a), (b, rb, pose_b), margin).ok()
}

/// A capsule's (or a sphere's) core segment, radius and pose.
pub(crate) type Rounded<'a> = ((Point<Real>, Point<Real>), Real, &'a Isometry<Real>);

/// [`capsule_capsule`], or a lower bound of their distance (m) and the axis that showed it.
pub(crate) fn capsule_capsule_or_gap(
    (a, ra, pose_a): Rounded,
    (b, rb, pose_b): Rounded,
    margin: Real,
) -> Result<Contact, Gap> {
    let (a0, a1) = (pose_a * a.0, pose_a * a.1);
    let (b0, b1) = (pose_b * b.0, pose_b * b.1);
    let (pa, pb) = closest_on_segments((a0, a1), (b0, b1));
    let d = pb - pa;
    let distance = d.norm();
    let normal = if distance > NORMALISABLE {
        d / distance
    } else {
        crossing_normal(a1 - a0, b1 - b0, center(&b0, &b1) - center(&a0, &a1))
    };
    let separation = distance - ra - rb;
    if separation > margin {
        return Err(Gap {
            distance: distance * (1.0 - GAP_SLACK) - ra - rb,
            axis: pose_a.inverse_transform_vector(&normal),
        });
    }
    Ok(Contact {
        separation,
        normal,
        point_a: pa + normal * ra,
        point_b: pb - normal * rb,
    })
}

/// The shortest offset (m) divided by its norm: below it the squares summed by the norm are
/// subnormal or zero, and the quotient falls short of unit length (a core 6.4e-23 m long gave a
/// normal of length 0.986). Closer centres or cores are taken as coincident.
const NORMALISABLE: Real = 1.0e-18;

fn center(p: &Point<Real>, q: &Point<Real>) -> Vector<Real> {
    (p.coords + q.coords) * 0.5
}

/// A unit normal for cores that touch (no line between their closest points): across both
/// directions `u` and `v`, or across the one that has a length, turned towards `towards`;
/// +y when nothing gives a direction.
fn crossing_normal(u: Vector<Real>, v: Vector<Real>, towards: Vector<Real>) -> Vector<Real> {
    let across = u.cross(&v);
    let length = across.norm();
    let n = if length > 1.0e-6 * u.norm() * v.norm() && length > NORMALISABLE {
        across / length
    } else {
        let line = if u.norm_squared() >= v.norm_squared() {
            u
        } else {
            v
        };
        match line.try_normalize(NORMALISABLE) {
            // Across the line, in the plane it makes with the offset if there is one.
            Some(l) => {
                let off = towards - l * towards.dot(&l);
                off.try_normalize(1.0e-6).unwrap_or_else(|| {
                    let (t1, _) = crate::manifold::plane_axes(&l);
                    t1
                })
            }
            None => return Vector::y(),
        }
    };
    if n.dot(&towards) < 0.0 {
        -n
    } else {
        n
    }
}

/// The closest points of segments `(p0, p1)` and `(q0, q1)` (Ericson, "Real-Time Collision
/// Detection" 5.1.9): either may be a point; parallel segments give the pair at the start of
/// their overlap.
fn closest_on_segments(
    (p0, p1): (Point<Real>, Point<Real>),
    (q0, q1): (Point<Real>, Point<Real>),
) -> (Point<Real>, Point<Real>) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.norm_squared(), d2.norm_squared(), d2.dot(&r));
    let tiny = Real::MIN_POSITIVE;
    let (s, t) = if a <= tiny && e <= tiny {
        (0.0, 0.0)
    } else if a <= tiny {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(&r);
        if e <= tiny {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(&d2);
            let denominator = a * e - b * b;
            // Parallel (or nearly): any s will do; take 0 and let t follow.
            let s = if denominator > 1.0e-7 * a * e {
                ((b * f - c * e) / denominator).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t = (b * s + f) / e;
            if t < 0.0 {
                ((-c / a).clamp(0.0, 1.0), 0.0)
            } else if t > 1.0 {
                (((b - c) / a).clamp(0.0, 1.0), 1.0)
            } else {
                (s, t)
            }
        }
    };
    (p0 + d1 * s, q0 + d2 * t)
}

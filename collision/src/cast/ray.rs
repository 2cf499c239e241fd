//! Ray casts in closed form.
//!
//! Each shape gives the *chord* of the ray's line through it: the parameters where the line
//! enters and leaves the solid, with the outward normals there. [`Chord::first_hit`] then
//! applies the rules once for every shape (those of parry3d, so that it can be the oracle):
//! - the origin outside: the entry, if it lies ahead within `max_toi`;
//! - the origin inside a solid shape: toi 0 at the origin, normal `-dir`;
//! - the origin inside a hollow shape (`solid` false): the exit, normal pointing inwards.
//!
//! The work is done in the shape's local frame, where the cuboid is axis-aligned and the
//! capsule's segment and the hull's planes are stored.

use parry3d::math::{Isometry, Point, Real, Vector};
use parry3d::shape::{Capsule, ConvexPolyhedron};

use crate::shape::{facet_planes, Shape};
use crate::unit::unit_vector;

/// Where a ray first meets a shape (world frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The ray parameter of the hit: `point = origin + toi * dir` (m for a unit `dir`).
    pub toi: Real,
    /// The hit point.
    pub point: Point<Real>,
    /// Unit surface normal at the hit, facing the ray: outward where the ray enters, inward
    /// where a hollow cast leaves, `-dir` for a solid cast from inside.
    pub normal: Vector<Real>,
}

/// The first hit of the ray `origin + t * dir`, `0 <= t <= max_toi`, on `shape` at `pose`.
///
/// `dir` is normally unit (then `toi` is a distance); any non-zero `dir` works, with `toi` in
/// units of its length. Input that is not finite, a zero `dir` or a negative or NaN `max_toi`
/// gives `None` (the engine refuses it before it gets here).
///
/// ```
/// use sprung_collision::{cast::ray_cast, shape::Shape};
/// use sprung_collision::parry3d::math::{Isometry, Point, Vector};
///
/// let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
/// let hit = ray_cast(&cube, &Isometry::identity(), &Point::new(0.0, 3.0, 0.0), &-Vector::y(), 10.0, true)
///     .unwrap();
/// assert_eq!((hit.toi, hit.normal), (2.5, Vector::y()));
/// ```
pub fn ray_cast(
    shape: &Shape,
    pose: &Isometry<Real>,
    origin: &Point<Real>,
    dir: &Vector<Real>,
    max_toi: Real,
    solid: bool,
) -> Option<RayHit> {
    if max_toi.is_nan() || max_toi < 0.0 || !origin.coords.iter().all(|x| x.is_finite()) {
        return None;
    }
    // The cast runs along the unit direction, with distances for parameters; `dir`'s length
    // is only a unit of the answer. Its length `largest * across` is never formed: a `dir` of
    // 1e20 would square to infinity (`unit_vector` divides by the largest component first).
    let unit = unit_vector(dir)?.into_inner();
    let largest = dir.amax();
    let across = (dir / largest).norm();
    // Distance to parameter and back; a limit past f32 (max_toi near 1e38 with a long `dir`)
    // saturates to infinity, which still means "no limit".
    let to_parameter = |distance: Real| distance / largest / across;
    let max_distance = max_toi * largest * across;
    let o = pose.inverse_transform_point(origin);
    let d = pose.inverse_transform_vector(&unit);
    if !o.coords.iter().all(|x| x.is_finite()) {
        return None;
    }
    let chord = match shape {
        Shape::Sphere(b) => sphere_chord(&Point::origin(), b.radius, &o, &d),
        Shape::Cuboid(c) => box_chord(&c.half_extents, &o, &d),
        Shape::Capsule(c) => capsule_chord(c, &o, &d),
        Shape::ConvexHull(h) => hull_chord(h, &o, &d),
        // Level geometry is parry3d's, and so is its ray cast (through its BVH).
        Shape::Triangle(_) | Shape::HalfSpace(_) | Shape::TriMesh(_) | Shape::HeightField(_) => {
            let ray = parry3d::query::Ray::new(o, d);
            let hit = shape
                .as_parry()
                .cast_local_ray_and_get_normal(&ray, max_distance, solid)?;
            // parry3d answers an infinite exit for a hollow cast from inside a half-space
            // along its plane: it never leaves, which is no hit.
            if !hit.time_of_impact.is_finite() || !hit.normal.iter().all(|x| x.is_finite()) {
                return None;
            }
            let toi = to_parameter(hit.time_of_impact);
            if !toi.is_finite() {
                return None; // see below
            }
            // parry3d answers a solid cast from inside with a zero normal; ours is -dir, as
            // for every other shape (the module doc).
            let normal = if hit.normal.norm_squared() > 0.5 {
                pose * hit.normal
            } else {
                -unit
            };
            return Some(RayHit {
                toi,
                point: origin + unit * hit.time_of_impact,
                normal,
            });
        }
    }?;
    let (distance, normal) = chord.first_hit(&d, max_distance, solid)?;
    let toi = to_parameter(distance);
    // A `dir` shorter than the distance by more than f32's range (1e-30 against 1e10 m): the
    // hit's parameter overflows, and no f32 `max_toi` can reach it.
    if !toi.is_finite() {
        return None;
    }
    Some(RayHit {
        toi,
        point: origin + unit * distance,
        normal: pose * normal,
    })
}

/// The part of a line inside a convex solid: parameters and outward unit normals where it
/// enters and leaves (`enter <= exit`).
#[derive(Clone, Copy, Debug)]
struct Chord {
    enter: Real,
    enter_normal: Vector<Real>,
    exit: Real,
    exit_normal: Vector<Real>,
}

impl Chord {
    /// The hit of the ray `t >= 0` on this chord, by the rules of the module doc.
    fn first_hit(
        &self,
        d: &Vector<Real>,
        max_toi: Real,
        solid: bool,
    ) -> Option<(Real, Vector<Real>)> {
        if self.exit < 0.0 {
            return None; // the solid lies behind the origin
        }
        if self.enter >= 0.0 {
            return (self.enter <= max_toi).then_some((self.enter, self.enter_normal));
        }
        if solid {
            return Some((0.0, -d.normalize()));
        }
        (self.exit <= max_toi).then_some((self.exit, -self.exit_normal))
    }

    /// The chord of the union of two convex pieces of one convex solid (whose chords overlap):
    /// the earliest entry and the latest exit.
    fn union(a: Option<Chord>, b: Option<Chord>) -> Option<Chord> {
        match (a, b) {
            (Some(a), Some(b)) => {
                let (enter, enter_normal) = if b.enter < a.enter {
                    (b.enter, b.enter_normal)
                } else {
                    (a.enter, a.enter_normal)
                };
                let (exit, exit_normal) = if b.exit > a.exit {
                    (b.exit, b.exit_normal)
                } else {
                    (a.exit, a.exit_normal)
                };
                Some(Chord {
                    enter,
                    enter_normal,
                    exit,
                    exit_normal,
                })
            }
            (a, b) => a.or(b),
        }
    }
}

/// The unit direction from `center` to `p`, or `fallback` if they coincide.
fn radial(p: &Point<Real>, center: &Point<Real>, fallback: &Vector<Real>) -> Vector<Real> {
    unit_vector(&(p - center)).map_or(*fallback, |n| n.into_inner())
}

/// The line's parameters where it is within `radius` of the origin, measuring only the part of
/// `o` and `d` that is given (the full vectors for a sphere, their parts across the axis for a
/// cylinder). Written about the closest approach `tc` rather than as the textbook quadratic:
/// `|o + tc d|^2` is computed directly instead of as the difference `b^2 - ac` of two large
/// numbers, which loses every digit when the origin is far away (Haines et al., "Precision
/// Improvements for Ray/Sphere Intersection", Ray Tracing Gems, 2019).
fn within_radius(o: &Vector<Real>, d: &Vector<Real>, radius: Real) -> Option<(Real, Real)> {
    let a = d.norm_squared();
    if a <= 0.0 {
        return None;
    }
    let tc = -o.dot(d) / a;
    let closest = o + d * tc;
    let gap = radius * radius - closest.norm_squared();
    if gap < 0.0 {
        return None;
    }
    let half = (gap / a).sqrt();
    Some((tc - half, tc + half))
}

fn sphere_chord(
    center: &Point<Real>,
    radius: Real,
    o: &Point<Real>,
    d: &Vector<Real>,
) -> Option<Chord> {
    let (enter, exit) = within_radius(&(o - center), d, radius)?;
    let back = -d.normalize();
    Some(Chord {
        enter,
        enter_normal: radial(&(o + d * enter), center, &back),
        exit,
        exit_normal: radial(&(o + d * exit), center, &-back),
    })
}

/// Slabs: on each axis the line is inside between the two face planes; the chord is the
/// intersection of the three intervals, entering through the face of the latest entry.
fn box_chord(half: &Vector<Real>, o: &Point<Real>, d: &Vector<Real>) -> Option<Chord> {
    let mut chord = Chord {
        enter: Real::NEG_INFINITY,
        enter_normal: Vector::zeros(),
        exit: Real::INFINITY,
        exit_normal: Vector::zeros(),
    };
    for i in 0..3 {
        if d[i] == 0.0 {
            // Parallel to this slab: inside it everywhere or nowhere.
            if o[i].abs() > half[i] {
                return None;
            }
            continue;
        }
        let sign = d[i].signum();
        // The face the line enters through is the one it moves towards from outside: -sign.
        let enter = (-sign * half[i] - o[i]) / d[i];
        let exit = (sign * half[i] - o[i]) / d[i];
        if enter > chord.enter {
            chord.enter = enter;
            chord.enter_normal = Vector::ith(i, -sign);
        }
        if exit < chord.exit {
            chord.exit = exit;
            chord.exit_normal = Vector::ith(i, sign);
        }
    }
    (chord.enter <= chord.exit).then_some(chord)
}

/// A capsule is the union of a finite cylinder around its segment and a sphere at each end.
/// The line's chord through it is the union of the pieces' chords, with the cylinder's counted
/// only where it crosses the curved side between the end planes (its flat ends lie inside the
/// spheres, so they are never the capsule's surface).
fn capsule_chord(capsule: &Capsule, o: &Point<Real>, d: &Vector<Real>) -> Option<Chord> {
    let (a, b, radius) = (capsule.segment.a, capsule.segment.b, capsule.radius);
    let spheres = Chord::union(
        sphere_chord(&a, radius, o, d),
        sphere_chord(&b, radius, o, d),
    );
    let axis = b - a;
    let length = axis.norm();
    if length <= 0.0 {
        return spheres;
    }
    let axis = axis / length;
    let across = |v: Vector<Real>| v - axis * axis.dot(&v);
    let (oa, d_across) = (o - a, across(*d));
    let Some((enter, exit)) = within_radius(&across(oa), &d_across, radius) else {
        return spheres;
    };
    // Where along the axis the line crosses the curved side, and the outward normal there.
    // If rounding puts the crossing on the axis itself (an origin far beyond the shapes'
    // bounds: a fuzzer finding gave a zero normal), the side faces back along the ray.
    let back = unit_vector(&across(-*d))
        .or_else(|| unit_vector(&axis.cross(&Vector::x())))
        .or_else(|| unit_vector(&axis.cross(&Vector::y())))
        .map_or(Vector::x(), |n| n.into_inner());
    let side = |t: Real| {
        let s = axis.dot(&(oa + d * t));
        let normal = unit_vector(&across(oa + d * t)).map_or(back, |n| n.into_inner());
        ((0.0..=length).contains(&s), normal)
    };
    let (enter_on_side, enter_normal) = side(enter);
    let (exit_on_side, exit_normal) = side(exit);
    // A missing side crossing is stood for by an empty-effect bound, so that the union takes
    // the spheres' entry or exit there.
    let cylinder = (enter_on_side || exit_on_side).then_some(Chord {
        enter: if enter_on_side { enter } else { Real::INFINITY },
        enter_normal,
        exit: if exit_on_side {
            exit
        } else {
            Real::NEG_INFINITY
        },
        exit_normal,
    });
    let chord = Chord::union(cylinder, spheres)?;
    (chord.enter <= chord.exit).then_some(chord)
}

/// Clips the line against every face plane: entering planes (normal against `d`) raise the
/// entry, leaving planes lower the exit.
fn hull_chord(hull: &ConvexPolyhedron, o: &Point<Real>, d: &Vector<Real>) -> Option<Chord> {
    let mut chord = Chord {
        enter: Real::NEG_INFINITY,
        enter_normal: Vector::zeros(),
        exit: Real::INFINITY,
        exit_normal: Vector::zeros(),
    };
    for (normal, offset) in facet_planes(hull) {
        let along = normal.dot(d);
        let height = normal.dot(&o.coords) - offset; // > 0 outside this plane
        if along == 0.0 {
            if height > 0.0 {
                return None;
            }
            continue;
        }
        let t = -height / along;
        if along < 0.0 {
            if t > chord.enter {
                chord.enter = t;
                chord.enter_normal = normal;
            }
        } else if t < chord.exit {
            chord.exit = t;
            chord.exit_normal = normal;
        }
        if chord.enter > chord.exit {
            return None;
        }
    }
    Some(chord)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cast(shape: &Shape, from: [Real; 3], dir: [Real; 3], solid: bool) -> Option<RayHit> {
        let (o, d) = (Point::from(from), Vector::from(dir));
        ray_cast(shape, &Isometry::identity(), &o, &d, Real::INFINITY, solid)
    }

    #[test]
    fn inside_solid_and_hollow() {
        let ball = Shape::sphere(1.0).unwrap();
        let solid = cast(&ball, [0.0; 3], [1.0, 0.0, 0.0], true).unwrap();
        assert_eq!((solid.toi, solid.normal), (0.0, -Vector::x()));
        let hollow = cast(&ball, [0.0; 3], [1.0, 0.0, 0.0], false).unwrap();
        assert!((hollow.toi - 1.0).abs() < 1e-6);
        assert!((hollow.normal + Vector::x()).norm() < 1e-6);
        assert!(cast(&ball, [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], true).is_none());
    }

    #[test]
    fn capsule_side_and_cap() {
        let capsule = Shape::capsule(1.0, 0.5).unwrap();
        let side = cast(&capsule, [3.0, 0.5, 0.0], [-1.0, 0.0, 0.0], true).unwrap();
        assert!((side.toi - 2.5).abs() < 1e-6 && (side.normal - Vector::x()).norm() < 1e-6);
        let cap = cast(&capsule, [0.0, 4.0, 0.0], [0.0, -1.0, 0.0], true).unwrap();
        assert!((cap.toi - 2.5).abs() < 1e-6 && (cap.normal - Vector::y()).norm() < 1e-6);
        // Along the axis from inside: leaves through the far cap.
        let out = cast(&capsule, [0.0, 0.0, 0.0], [0.0, -1.0, 0.0], false).unwrap();
        assert!((out.toi - 1.5).abs() < 1e-6 && (out.normal - Vector::y()).norm() < 1e-6);
    }

    #[test]
    fn far_origin_keeps_precision() {
        let ball = Shape::sphere(0.5).unwrap();
        let hit = cast(&ball, [0.0, 0.0, -10_000.0], [0.0, 0.0, 1.0], true).unwrap();
        assert!((hit.toi - 9_999.5).abs() < 1e-3, "{}", hit.toi);
        let grazing = cast(&ball, [0.49, 0.0, -10_000.0], [0.0, 0.0, 1.0], true);
        assert!(grazing.is_some());
    }

    #[test]
    fn bad_input_is_no_hit() {
        let cube = Shape::cuboid(Vector::new(1.0, 1.0, 1.0)).unwrap();
        let at = Isometry::identity();
        let o = Point::new(0.0, 5.0, 0.0);
        assert!(ray_cast(&cube, &at, &o, &Vector::zeros(), 10.0, true).is_none());
        assert!(ray_cast(&cube, &at, &o, &-Vector::y(), Real::NAN, true).is_none());
        assert!(ray_cast(&cube, &at, &o, &-Vector::y(), -1.0, true).is_none());
        let nan = Point::new(Real::NAN, 5.0, 0.0);
        assert!(ray_cast(&cube, &at, &nan, &-Vector::y(), 10.0, true).is_none());
    }
}

//! Contacts in closed form, for the pairs that have one: no GJK or EPA iterations.
//!
//! Two spheres: the line through the centres is the normal, the distance between the centres
//! less both radii the separation. Held to the GJK/EPA path by `manifold_cases.rs` (10,000
//! random pairs).

use parry3d::math::{Isometry, Point, Real, Vector};

use crate::epa::{Contact, Gap, GAP_SLACK};

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
    let normal = if distance > Real::MIN_POSITIVE {
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

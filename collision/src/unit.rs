//! Unit vectors and unit quaternions made from whatever a user passes, without overflow.
//!
//! `v.normalize()` squares the components first: a vector of 1e20 has a squared norm of 1e40,
//! which is infinite in f32, and the result is NaN or zero. These functions divide by the
//! largest component first (so the largest becomes exactly +-1 and the squares cannot overflow
//! or underflow to zero), then normalise. They answer `None` for a zero, subnormal-only or
//! non-finite input, which the caller turns into its own typed error.

use parry3d::math::{Real, Vector};
use parry3d::na::{Quaternion, Unit, UnitQuaternion};

/// `v / |v|`, or `None` if `v` has a NaN or infinite component or no normal (non-subnormal)
/// component.
///
/// ```
/// use sprung_collision::unit::unit_vector;
/// use sprung_collision::parry3d::math::Vector;
///
/// let n = unit_vector(&Vector::new(3e30, 4e30, 0.0)).unwrap();
/// assert!((n.x - 0.6).abs() < 1e-6 && (n.y - 0.8).abs() < 1e-6);
/// assert!(unit_vector(&Vector::zeros()).is_none());
/// assert!(unit_vector(&Vector::new(1e-42, 0.0, 0.0)).is_none());
/// ```
pub fn unit_vector(v: &Vector<Real>) -> Option<Unit<Vector<Real>>> {
    let scaled = scaled_by_largest(v.as_slice())?;
    let v = Vector::new(scaled[0], scaled[1], scaled[2]);
    Some(Unit::new_normalize(v))
}

/// `q / |q|`, or `None` if `q` has a NaN or infinite component or no normal component (a zero
/// or subnormal quaternion is no rotation).
///
/// ```
/// use sprung_collision::unit::unit_quaternion;
/// use sprung_collision::parry3d::na::Quaternion;
///
/// let q = unit_quaternion(&Quaternion::new(2e25, 0.0, 0.0, 0.0)).unwrap();
/// assert_eq!(q.w, 1.0);
/// assert!(unit_quaternion(&Quaternion::new(0.0, 0.0, 0.0, 0.0)).is_none());
/// ```
pub fn unit_quaternion(q: &Quaternion<Real>) -> Option<UnitQuaternion<Real>> {
    let scaled = scaled_by_largest(q.coords.as_slice())?;
    let q = Quaternion::new(scaled[3], scaled[0], scaled[1], scaled[2]);
    Some(UnitQuaternion::new_normalize(q))
}

/// The components divided by the largest magnitude among them (which becomes +-1), or `None`
/// if one is not finite or the largest is zero or subnormal.
fn scaled_by_largest(values: &[Real]) -> Option<[Real; 4]> {
    let mut out = [0.0; 4];
    let mut largest: Real = 0.0;
    for &x in values {
        if !x.is_finite() {
            return None;
        }
        largest = largest.max(x.abs());
    }
    if !largest.is_normal() {
        return None;
    }
    for (o, &x) in out.iter_mut().zip(values) {
        *o = x / largest;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_and_tiny_vectors_normalise_to_the_same_direction() {
        let reference = Vector::new(1.0, -2.0, 2.0) / 3.0;
        for scale in [1e-30, 1e-20, 1.0, 1e20, 1e30, 1e38] {
            let n = unit_vector(&(Vector::new(1.0, -2.0, 2.0) * scale)).unwrap();
            assert!(
                (n.into_inner() - reference).norm() < 1e-6,
                "scale {scale}: {n:?}"
            );
        }
    }

    #[test]
    fn what_has_no_direction_is_refused() {
        for v in [
            Vector::zeros(),
            Vector::new(Real::MIN_POSITIVE / 2.0, 0.0, 0.0),
            Vector::new(Real::NAN, 1.0, 0.0),
            Vector::new(Real::INFINITY, 1.0, 0.0),
        ] {
            assert!(unit_vector(&v).is_none(), "{v:?}");
        }
        assert!(unit_quaternion(&Quaternion::new(1e-40, 0.0, 0.0, 0.0)).is_none());
        assert!(unit_quaternion(&Quaternion::new(Real::NAN, 0.0, 0.0, 0.0)).is_none());
    }

    #[test]
    fn a_quaternion_keeps_its_components_in_place() {
        let q = unit_quaternion(&Quaternion::new(0.0, 0.0, 3e30, 4e30)).unwrap();
        assert_eq!(q.w, 0.0);
        assert!((q.j - 0.6).abs() < 1e-6 && (q.k - 0.8).abs() < 1e-6);
    }
}

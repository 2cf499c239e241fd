//! The one place glam (Bevy's maths) meets nalgebra (sprung's). Every conversion moves the same
//! `f32`s between the two layouts and does no arithmetic, so a value goes there and back bit
//! for bit (tests below); a rotation is taken as it is, unit or not (Bevy's `Quat` keeps
//! itself unit, and sprung refuses a rotation that is far from it with a typed error).

use bevy::math::{Quat, Vec3};
use bevy::transform::components::Transform;
use sprung::math::{Isometry, Quaternion, Real, Translation, UnitQuaternion, Vector};

/// A glam vector as sprung's.
#[inline]
pub fn vector(v: Vec3) -> Vector<Real> {
    Vector::new(v.x, v.y, v.z)
}

/// sprung's vector as glam's.
#[inline]
pub fn vec3(v: &Vector<Real>) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

/// A glam rotation as sprung's (its four numbers as they are).
#[inline]
pub fn rotation(q: Quat) -> UnitQuaternion<Real> {
    UnitQuaternion::new_unchecked(Quaternion::new(q.w, q.x, q.y, q.z))
}

/// sprung's rotation as glam's.
#[inline]
pub fn quat(q: &UnitQuaternion<Real>) -> Quat {
    let c = &q.as_ref().coords;
    Quat::from_xyzw(c.x, c.y, c.z, c.w)
}

/// A transform's translation and rotation as a pose (its scale is not physics': colliders
/// carry their own sizes).
#[inline]
pub fn pose(t: &Transform) -> Isometry<Real> {
    Isometry::from_parts(
        Translation::from(vector(t.translation)),
        rotation(t.rotation),
    )
}

/// `t` moved to `pose`, its scale kept.
#[inline]
pub fn set_pose(t: &mut Transform, pose: &Isometry<Real>) {
    t.translation = vec3(&pose.translation.vector);
    t.rotation = quat(&pose.rotation);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values that rounding would change: subnormals, signed zeros, the extremes, digits that
    /// no short decimal holds.
    fn awkward() -> Vec<f32> {
        vec![
            0.0,
            -0.0,
            1.0e-45,
            -3.0e-39,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            0.1,
            -1.0 / 3.0,
            std::f32::consts::PI,
            16_777_217.0,
            1.234_567_9e-7,
        ]
    }

    #[test]
    fn vectors_go_there_and_back_bit_for_bit() {
        let values = awkward();
        for (i, &x) in values.iter().enumerate() {
            let (y, z) = (
                values[(i + 3) % values.len()],
                values[(i + 7) % values.len()],
            );
            let v = Vec3::new(x, y, z);
            let n = vector(v);
            assert_eq!(
                [n.x.to_bits(), n.y.to_bits(), n.z.to_bits()],
                [x.to_bits(), y.to_bits(), z.to_bits()]
            );
            let back = vec3(&n);
            assert_eq!(
                back.to_array().map(f32::to_bits),
                v.to_array().map(f32::to_bits)
            );
        }
    }

    #[test]
    fn rotations_go_there_and_back_bit_for_bit() {
        for k in 0..200 {
            let (a, b) = (k as f32 * 0.37, k as f32 * 1.13);
            let q = Quat::from_euler(bevy::math::EulerRot::YXZ, a, b, a * b);
            let n = rotation(q);
            // The same rotation: turning a vector both ways gives the same result to rounding.
            let v = Vec3::new(0.3, -1.2, 2.5);
            let (glam, nalgebra) = (q * v, vec3(&(n * vector(v))));
            assert!((glam - nalgebra).length() < 1e-5, "{glam} {nalgebra}");
            let back = quat(&n);
            assert_eq!(
                back.to_array().map(f32::to_bits),
                q.to_array().map(f32::to_bits)
            );
        }
    }

    #[test]
    fn transforms_go_there_and_back_bit_for_bit_keeping_their_scale() {
        let t = Transform {
            translation: Vec3::new(1.0e-45, -0.0, 123_456.79),
            rotation: Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.7),
            scale: Vec3::splat(2.0),
        };
        let mut back = Transform::from_scale(Vec3::splat(2.0));
        set_pose(&mut back, &pose(&t));
        assert_eq!(
            back.translation.to_array().map(f32::to_bits),
            t.translation.to_array().map(f32::to_bits)
        );
        assert_eq!(
            back.rotation.to_array().map(f32::to_bits),
            t.rotation.to_array().map(f32::to_bits)
        );
        assert_eq!(back.scale, t.scale);
    }
}

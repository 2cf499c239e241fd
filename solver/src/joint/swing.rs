//! Swing and twist: B's orientation relative to A's, measured in a joint frame on each body
//! (x the twist axis, y and z across it), split into a twist about B's x axis and a swing of
//! that axis away from A's, `q = q_swing q_twist` with `q = f_a^-1 f_b` (Jolt's decomposition;
//! our own code). The split is exact for the rows here: a relative turn about the world swing
//! axis `f_a n` (n in A's y-z plane) changes the swing angle alone, by as much, and one about B's
//! twist axis `f_b x` the twist angle alone.
//!
//! The cone ([`Cone`]) keeps the swing angle within a half angle that may differ about y and z:
//! the swing's rotation vector `theta n` stays inside the ellipse with those half angles as
//! semi-axes, pushed back along its own direction (one angular row about the swing axis,
//! `C = theta - theta_max(n)`, `1 / theta_max^2 = n_y^2 / theta_y^2 + n_z^2 / theta_z^2`). Along
//! y and z this is the ellipse exactly; between them it holds the ellipse's boundary, with the
//! push radial rather than along the boundary's normal.

use super::angular::angular_row;
use super::axis::{AxisPart, AxisSettings};
use super::part::{Part, PassContext};
use crate::body::Motion;
use crate::softness::{Spring, SpringSoftness};
use crate::{Quaternion, Real, Vector};

/// The swing and twist of `f_b` relative to `f_a` (world orientations of the joint frames):
/// the swing angle (rad, in [0, pi]) with its axis in A's joint frame (unit, in the y-z plane;
/// `None` with no swing), and the twist angle (rad, in [-pi, pi]).
pub fn swing_twist(f_a: &Quaternion, f_b: &Quaternion) -> (Real, Option<Vector>, Real) {
    let q = (f_a.inverse() * f_b).into_inner();
    // The twist: q's part about x; the swing what is left, q t^-1.
    let (tw, tx) = if q.w < 0.0 { (-q.w, -q.i) } else { (q.w, q.i) };
    let norm = (tw * tw + tx * tx).sqrt();
    let (tw, tx) = if norm > 1.0e-9 {
        (tw / norm, tx / norm)
    } else {
        (1.0, 0.0) // swung half a turn: no twist to speak of
    };
    let twist = 2.0 * tx.atan2(tw);
    // q (tw - tx i) without its x part (zero by construction).
    let sw = q.w * tw + q.i * tx;
    let sy = q.j * tw - q.k * tx;
    let sz = q.k * tw + q.j * tx;
    let (sw, sy, sz) = if sw < 0.0 {
        (-sw, -sy, -sz)
    } else {
        (sw, sy, sz)
    };
    let sin = (sy * sy + sz * sz).sqrt();
    let swing = 2.0 * sin.atan2(sw);
    let axis = (sin > 1.0e-9).then(|| Vector::new(0.0, sy / sin, sz / sin));
    (swing, axis, twist)
}

/// The largest swing about `axis` (unit, in the y-z plane) in the cone of half angles
/// `(about_y, about_z)`.
pub fn cone_angle(axis: &Vector, (about_y, about_z): (Real, Real)) -> Real {
    let (y, z) = (axis.y / about_y, axis.z / about_z);
    1.0 / (y * y + z * z).sqrt()
}

/// A joint frame whose x axis is `axis` (unit; the frame's roll about it is any).
pub fn frame_along(axis: &Vector) -> Quaternion {
    Quaternion::rotation_between(&Vector::x(), axis)
        .unwrap_or_else(|| Quaternion::from_axis_angle(&Vector::y_axis(), std::f32::consts::PI))
}

/// A cone limit on a ball joint: the angle between A's axis and B's axis (each in its body's
/// frame) at most `half_angle` (rad, in (0, pi)).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConeLimit {
    /// The cone's axis on A (unit).
    pub axis_a: Vector,
    /// The axis on B kept within the cone (unit).
    pub axis_b: Vector,
    /// The cone's half angle (rad).
    pub half_angle: Real,
}

/// The joint frames in the world at the start of the step: `f = q * frame`.
#[derive(Clone, Copy, Debug)]
pub struct Frames {
    /// A's joint frame.
    pub a: Quaternion,
    /// B's joint frame.
    pub b: Quaternion,
}

impl Frames {
    /// The frames now, turned by the bodies' rotation since the step began.
    pub fn now(&self, a: &Motion, b: &Motion) -> (Quaternion, Quaternion) {
        (a.delta_rotation * self.a, b.delta_rotation * self.b)
    }
}

/// The cone: the swing held within half angles about the joint frame's y and z axes.
#[derive(Clone, Copy, Debug)]
pub struct Cone {
    /// The row about the swing axis, with an upper limit of zero on `theta - theta_max`.
    part: AxisPart,
    /// Half angles about y and z (rad).
    half_angles: (Real, Real),
}

impl Cone {
    /// The cone of `half_angles` (about y and z, rad) between the joint frames `frames`, hard or
    /// pushed back by `spring`, at substep `h`, carrying last step's `impulse`.
    pub fn new(
        frames: &Frames,
        (a, b): (&Motion, &Motion),
        half_angles: (Real, Real),
        (spring, h): (Option<&Spring>, Real),
        impulse: Real,
    ) -> Cone {
        let (_, axis, _) = swing_twist(&frames.a, &frames.b);
        // About the axis the swing has as the step begins (any across the twist axis if none),
        // kept for the step as a contact keeps its normal, so that every pass and the warm
        // start push along the same axis.
        let axis = frames.a * axis.unwrap_or(Vector::y());
        let row = angular_row(&axis, a, b);
        let settings = AxisSettings {
            limits: Some((Real::NEG_INFINITY, 0.0)),
            limit_spring: spring.map(|s| SpringSoftness::new(s, row.effective_mass.max(0.0), h)),
            ..AxisSettings::default()
        };
        Cone {
            part: AxisPart::new(row, settings, [0.0, 0.0, impulse, 0.0]),
            half_angles,
        }
    }

    /// The accumulated impulse (N m s).
    pub fn impulse(&self) -> Real {
        self.part.total()
    }

    /// How far the swing `(angle, axis)` ([`swing_twist`]) is past the cone (rad; negative
    /// inside it).
    pub fn past(&self, (swing, axis): (Real, Option<Vector>)) -> Real {
        let limit = match axis {
            Some(n) => cone_angle(&n, self.half_angles),
            None => self.half_angles.0.min(self.half_angles.1),
        };
        swing - limit
    }

    /// One iteration with the swing now `(angle, axis)` ([`swing_twist`]).
    pub fn solve(
        &mut self,
        (a, b): (&mut Motion, &mut Motion),
        (swing, axis): (Real, Option<Vector>),
        pass: &PassContext,
    ) {
        let past = self.past((swing, axis));
        self.part.solve(a, b, past, pass);
    }
}

impl Part for Cone {
    fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
        self.part.warm_start(a, b);
    }

    fn reset(&mut self) {
        self.part.reset();
    }

    fn too_stiff(&self) -> bool {
        self.part.too_stiff()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::FRAC_PI_2;

    /// The split of known turns: a twist alone, a swing alone about y and about z, a swing
    /// after a twist; each recovers the angles it was made of.
    #[test]
    fn swing_and_twist_are_recovered_from_known_turns() {
        let id = Quaternion::identity();
        let twist = Quaternion::from_axis_angle(&Vector::x_axis(), 0.7);
        let (s, axis, t) = swing_twist(&id, &twist);
        assert!(s.abs() < 1e-6 && axis.is_none() && (t - 0.7).abs() < 1e-6);
        let swing_y = Quaternion::from_axis_angle(&Vector::y_axis(), 0.4);
        let (s, axis, t) = swing_twist(&id, &swing_y);
        assert!((s - 0.4).abs() < 1e-6 && t.abs() < 1e-6);
        assert!((axis.unwrap() - Vector::y()).norm() < 1e-6);
        let swing_z = Quaternion::from_axis_angle(&Vector::z_axis(), -1.2);
        let (s, axis, _) = swing_twist(&id, &(swing_z * twist));
        assert!((s - 1.2).abs() < 1e-5, "{s}");
        assert!((axis.unwrap() + Vector::z()).norm() < 1e-5);
        let (_, _, t) = swing_twist(&id, &(swing_z * twist));
        assert!((t - 0.7).abs() < 1e-5, "{t}");
        // Measured in a turned frame on A, the same.
        let f = Quaternion::from_axis_angle(&Vector::z_axis(), FRAC_PI_2);
        let (s, _, t) = swing_twist(&f, &(f * swing_y * twist));
        assert!((s - 0.4).abs() < 1e-5 && (t - 0.7).abs() < 1e-5);
    }

    /// The cone's largest swing is each half angle along its own axis, and between them the
    /// ellipse's radius.
    #[test]
    fn the_cone_angle_is_the_ellipse_radius() {
        let half = (0.5, 1.0);
        assert!((cone_angle(&Vector::y(), half) - 0.5).abs() < 1e-6);
        assert!((cone_angle(&Vector::z(), half) - 1.0).abs() < 1e-6);
        let diagonal = Vector::new(0.0, 1.0, 1.0).normalize();
        // r(phi) = ab / sqrt(b^2 cos^2 + a^2 sin^2) at 45 degrees.
        let r = 0.5 / (0.5f32 * (1.0 + 0.25)).sqrt();
        assert!((cone_angle(&diagonal, half) - r).abs() < 1e-6);
    }
}

//! Drives: a joint's coordinate pulled towards a target by a spring whose push is capped (a
//! motor in position mode), for ragdolls held in a pose, doors that close, arms that reach.
//!
//! - A coordinate drive ([`Drive`]): a hinge's angle (rad) or a slider's travel (m), one axis
//!   part holding the error `coordinate - target` (an angle's wrapped into (-pi, pi]) at zero.
//! - An orientation drive ([`OrientationDrive`]): B's orientation relative to A's, three axis
//!   parts about the world axes holding the rotation vector of `q_b (q_a target)^-1` at zero
//!   (as the weld's angular lock, but soft and capped).
//!
//! A drive set by frequency moves at that frequency: its spring refers to the inertia the drive
//! turns, each moving body's about the joint's anchor (a rod pinned at its end turns about the
//! pin, `m L^2 / 3`, not about its centre of mass, `m L^2 / 12`), and is solved as the stiffness
//! and damping that inertia gives ([`crate::softness::referring_to`]). The cap bounds each
//! axis part's impulse by `max * h`.

use super::angular::AngularLock;
use super::axis::{AxisPart, AxisSettings, Hold};
use super::part::JointFrame;
use super::point::symmetric_inverse;
use crate::body::Motion;
use crate::row::Row;
use crate::softness::{referring_to, Spring};
use crate::{Matrix, Quaternion, Real, Vector};

/// A drive towards a coordinate: a hinge's angle (rad) or a slider's travel (m).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Drive {
    /// The coordinate to reach (rad or m).
    pub target: Real,
    /// The spring pulling there; a frequency refers to the inertia (or mass) the drive turns.
    pub spring: Spring,
    /// The largest torque or force it pushes with (N m or N).
    pub max_force: Real,
}

/// A drive towards an orientation of B relative to A: `q_b = q_a target` for a ball joint or
/// a weld (bodies' frames; identity: as the bodies were when the joint was added for a weld,
/// aligned for a ball joint), `f_b = f_a target` for a swing-twist joint (its joint frames;
/// identity: the pose it was added in).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OrientationDrive {
    /// The relative orientation to reach.
    pub target: Quaternion,
    /// The spring pulling there, about each world axis; a frequency refers to the inertia the
    /// drive turns about that axis.
    pub spring: Spring,
    /// The largest torque it pushes with about each world axis (N m).
    pub max_torque: Real,
}

/// The inertia a drive turns about (`angular`) or along `dir` (unit): the bodies' inverse
/// inertias about the joint's anchors summed, or their inverse masses, inverted.
pub fn turned_inertia(
    frame: &JointFrame,
    (a, b): (&Motion, &Motion),
    dir: &Vector,
    angular: bool,
) -> Real {
    let inverse = if angular {
        about_anchor(a, &frame.anchor_a, dir) + about_anchor(b, &frame.anchor_b, dir)
    } else {
        a.inv_mass + b.inv_mass
    };
    if inverse > 0.0 && inverse.is_finite() {
        1.0 / inverse
    } else {
        0.0
    }
}

/// `dir . I_p^-1 dir` for the body's inertia about the anchor `r` (from its centre of mass),
/// `I_p = I + m (|r|^2 1 - r r^T)`; zero for a body that does not move.
fn about_anchor(body: &Motion, r: &Vector, dir: &Vector) -> Real {
    if body.inv_mass <= 0.0 {
        return 0.0;
    }
    let Some(inertia) = symmetric_inverse(&body.inv_inertia) else {
        // Rotation locked about some axis: its own inverse inertia, anchor aside.
        return dir.dot(&(body.inv_inertia * dir));
    };
    let pinned = (Matrix::identity() * r.norm_squared() - r * r.transpose()) / body.inv_mass;
    symmetric_inverse(&(inertia + pinned)).map_or(0.0, |inv| dir.dot(&(inv * dir)))
}

/// One axis part holding its error at zero as `spring` referring to `turned` with at most
/// `max` (N or N m), at substep `h`, carrying last step's `impulse`.
pub(super) fn drive_part(
    row: Row,
    (spring, turned, max): (&Spring, Real, Real),
    h: Real,
    impulse: Real,
) -> AxisPart {
    let spring = if turned > 0.0 {
        referring_to(spring, turned)
    } else {
        *spring
    };
    let settings = AxisSettings {
        hold: Some((0.0, Hold::of(Some(&spring), &row, h))),
        hold_cap: Some(max),
        ..AxisSettings::default()
    };
    AxisPart::new(row, settings, [impulse, 0.0, 0.0, 0.0])
}

/// An angle `a - b` wrapped into (-pi, pi].
pub(super) fn wrapped(angle: Real) -> Real {
    let pi = std::f32::consts::PI;
    let turns = ((angle + pi) / (2.0 * pi)).floor();
    let wrapped = angle - turns * 2.0 * pi;
    if wrapped <= -pi {
        wrapped + 2.0 * pi
    } else {
        wrapped
    }
}

/// An orientation drive prepared for a step: an angular lock whose three axis parts are
/// capped springs, holding `f_b` (the second of `frames`, world, at the start of the step) at
/// `f_a target`, between the ends of `frame`, at substep `h`, carrying last step's impulses
/// (about the world axes).
pub fn orientation_drive(
    frame: &JointFrame,
    (a, b): (&Motion, &Motion),
    frames: (Quaternion, Quaternion),
    drive: &OrientationDrive,
    h: Real,
    impulses: Vector,
) -> AngularLock {
    let axes = [0, 1, 2].map(|k| {
        let dir = Vector::ith(k, 1.0);
        let row = Row::new(Vector::zeros(), -dir, dir, a, b);
        let turned = turned_inertia(frame, (a, b), &dir, true);
        drive_part(
            row,
            (&drive.spring, turned, drive.max_torque),
            h,
            impulses[k],
        )
    });
    AngularLock::of_parts(axes, drive.target, frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A uniform rod of 1 kg and 1 m pinned at its end turns about the pin with `m L^2 / 3`,
    /// about its length with its own (tiny) inertia; a body pinned at its centre of mass with
    /// its own; a static body adds nothing.
    #[test]
    fn the_turned_inertia_is_about_the_anchor() {
        let rod = Motion {
            inv_mass: 1.0,
            inv_inertia: Matrix::from_diagonal(&Vector::new(1.0e3, 12.0, 12.0)),
            ..Motion::STATIC
        };
        let frame = JointFrame {
            body_a: crate::body::STATIC,
            body_b: 0,
            anchor_a: Vector::zeros(),
            anchor_b: Vector::new(-0.5, 0.0, 0.0),
            separation: Vector::zeros(),
            rotations: (Quaternion::identity(), Quaternion::identity()),
        };
        let ends = (&Motion::STATIC, &rod);
        let about_z = turned_inertia(&frame, ends, &Vector::z(), true);
        assert!((about_z - 1.0 / 3.0).abs() < 1e-5, "{about_z}");
        let about_x = turned_inertia(&frame, ends, &Vector::x(), true);
        assert!((about_x - 1.0e-3).abs() < 1e-7, "{about_x}");
        let centred = JointFrame {
            anchor_b: Vector::zeros(),
            ..frame
        };
        let own = turned_inertia(&centred, ends, &Vector::z(), true);
        assert!((own - 1.0 / 12.0).abs() < 1e-6, "{own}");
        assert_eq!(turned_inertia(&frame, ends, &Vector::y(), false), 1.0);
    }

    #[test]
    fn angles_wrap_into_the_half_open_turn() {
        let pi = std::f32::consts::PI;
        assert!((wrapped(0.3) - 0.3).abs() < 1e-6);
        assert!((wrapped(2.0 * pi - 0.3) + 0.3).abs() < 1e-5);
        assert!((wrapped(-2.0 * pi + 0.3) - 0.3).abs() < 1e-5);
        assert!((wrapped(-pi) - pi).abs() < 1e-5);
    }
}

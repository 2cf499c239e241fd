//! Joints changed and read while they exist: a motor, limits or a spring set at run time (a
//! vehicle's throttle, a door that locks, a suspension stiffened), and the joint's coordinate
//! now (a hinge's angle, a slider's travel, a distance joint's length).

use super::*;
use crate::joint::{
    check_kind, AttachmentSettings, BallSettings, Drive, FixedSettings, HingeSettings,
    OrientationDrive, RaySpringSettings, SliderSettings, SwingTwistSettings, UprightSettings,
};
use parry3d::math::Rotation;
use sprung_solver::joint::hinge_angle;
use sprung_solver::softness::Spring;

impl World {
    /// Sets a hinge's or a slider's motor: `Some((speed, max))` drives the joint's rate
    /// towards `speed` (rad/s or m/s) with at most `max` (N m or N), `None` removes it. On a
    /// world motor ([`JointBuilder::angular_motor`], [`JointBuilder::linear_motor`]), sets its
    /// speed and largest force. Checked as the builder checks it; a refused change changes
    /// nothing. Wakes the joint's bodies.
    pub fn set_joint_motor(
        &mut self,
        handle: JointHandle,
        motor: Option<(Real, Real)>,
    ) -> Result<(), Error> {
        self.change_joint(handle, |kind| match kind {
            JointKind::Hinge(HingeSettings { motor: m, .. })
            | JointKind::Slider(SliderSettings { motor: m, .. }) => {
                *m = motor;
                Ok(())
            }
            JointKind::Motor(m) => match motor {
                Some(set) => {
                    (m.speed, m.max_force) = set;
                    Ok(())
                }
                None => Err(Error::NotApplicable(
                    "set_joint_motor: a world motor is its motor (remove_joint removes it)",
                )),
            },
            _ => Err(Error::WrongJointKind),
        })
    }

    /// Sets a hinge's angle limits (rad), a slider's translation limits (m), a distance
    /// joint's length limits (m) or a swing-twist joint's twist limits (rad): `Some((lower, upper))`, or `None` for none. Checked as the
    /// builder checks them; wakes the joint's bodies.
    pub fn set_joint_limits(
        &mut self,
        handle: JointHandle,
        limits: Option<(Real, Real)>,
    ) -> Result<(), Error> {
        self.change_joint(handle, |kind| match kind {
            JointKind::Hinge(HingeSettings { limits: l, .. })
            | JointKind::Slider(SliderSettings { limits: l, .. }) => {
                *l = limits;
                Ok(())
            }
            JointKind::Distance(d) => {
                (d.min_length, d.max_length) = limits.unwrap_or((0.0, Real::INFINITY));
                Ok(())
            }
            JointKind::SwingTwist(st) => {
                st.twist = limits;
                Ok(())
            }
            _ => Err(Error::WrongJointKind),
        })
    }

    /// Makes a joint soft (`Some(spring)`) or rigid again (`None`): ball, distance, hinge,
    /// slider and weld joints, as [`JointBuilder::spring`]; a swing-twist joint's limits, as
    /// [`JointBuilder::limit_spring`]; an attachment's or upright spring's
    /// spring is replaced (`Some` only). Checked as the builder checks it; wakes the joint's
    /// bodies.
    pub fn set_joint_spring(
        &mut self,
        handle: JointHandle,
        spring: Option<Spring>,
    ) -> Result<(), Error> {
        self.change_joint(handle, |kind| match kind {
            JointKind::Ball(BallSettings { spring: s, .. })
            | JointKind::Hinge(HingeSettings { spring: s, .. })
            | JointKind::Fixed(FixedSettings { spring: s, .. })
            | JointKind::Slider(SliderSettings { spring: s, .. }) => {
                *s = spring;
                Ok(())
            }
            JointKind::Distance(d) => {
                d.spring = spring;
                d.holds_rest_length |= spring.is_some();
                Ok(())
            }
            JointKind::Attachment(AttachmentSettings { spring: s, .. })
            | JointKind::Upright(UprightSettings { spring: s, .. })
            | JointKind::RaySpring(RaySpringSettings { spring: s, .. }) => match spring {
                Some(set) => {
                    *s = set;
                    Ok(())
                }
                None => Err(Error::NotApplicable(
                    "set_joint_spring: an attachment, upright or ray spring is its spring \
                         (remove_joint removes it)",
                )),
            },
            JointKind::SwingTwist(st) => {
                st.limit_spring = spring;
                Ok(())
            }
            JointKind::Motor(_) => Err(Error::WrongJointKind),
        })
    }

    /// Sets a hinge's or a slider's drive ([`JointBuilder::drive`]), or removes it (`None`).
    /// Checked as the builder checks it; wakes the joint's bodies.
    pub fn set_joint_drive(
        &mut self,
        handle: JointHandle,
        drive: Option<Drive>,
    ) -> Result<(), Error> {
        self.change_joint(handle, |kind| match kind {
            JointKind::Hinge(HingeSettings { drive: d, .. })
            | JointKind::Slider(SliderSettings { drive: d, .. }) => {
                *d = drive;
                Ok(())
            }
            _ => Err(Error::WrongJointKind),
        })
    }

    /// Sets a ball, swing-twist or weld joint's orientation drive
    /// ([`JointBuilder::orientation_drive`]), or removes it (`None`). Checked as the builder
    /// checks it; wakes the joint's bodies.
    pub fn set_joint_orientation_drive(
        &mut self,
        handle: JointHandle,
        drive: Option<OrientationDrive>,
    ) -> Result<(), Error> {
        self.change_joint(handle, |kind| match kind {
            JointKind::Ball(BallSettings { drive: d, .. })
            | JointKind::SwingTwist(SwingTwistSettings { drive: d, .. })
            | JointKind::Fixed(FixedSettings { drive: d, .. }) => {
                *d = drive;
                Ok(())
            }
            _ => Err(Error::WrongJointKind),
        })
    }

    /// B's orientation relative to A's now, as an orientation drive measures it: `q_a^-1 q_b`
    /// for a ball joint, `relative^-1 q_a^-1 q_b` for a weld (identity as added), and the joint
    /// frames' `f_a^-1 f_b` for a swing-twist joint (identity as added; its swing and twist are
    /// [`sprung_solver::joint::swing_twist`] of the frames).
    pub fn joint_orientation(&self, handle: JointHandle) -> Result<Rotation<Real>, Error> {
        let joint = self.joints.get(handle).ok_or(Error::StaleHandle)?;
        let qa = self.bodies.at(joint.body_a.index).pose.rotation;
        let qb = self.bodies.at(joint.body_b.index).pose.rotation;
        match &joint.kind {
            JointKind::Ball(_) => Ok(qa.inverse() * qb),
            JointKind::Fixed(f) => Ok((qa * f.relative).inverse() * qb),
            JointKind::SwingTwist(st) => Ok((qa * st.frame_a).inverse() * (qb * st.frame_b)),
            _ => Err(Error::WrongJointKind),
        }
    }

    /// The joint's coordinate now, from the bodies' poses: a hinge's angle (rad, in (-pi, pi],
    /// zero where it was added), a slider's translation (m: B's anchor's offset from A's along
    /// the axis, what its limits bound), a distance joint's length (m), a ray spring's height
    /// over what its ray hit at the last step (m).
    pub fn joint_position(&self, handle: JointHandle) -> Result<Real, Error> {
        let joint = self.joints.get(handle).ok_or(Error::StaleHandle)?;
        let pose_a = &self.bodies.at(joint.body_a.index).pose;
        let pose_b = &self.bodies.at(joint.body_b.index).pose;
        let offset = pose_b * joint.local_anchor_b - pose_a * joint.local_anchor_a;
        match &joint.kind {
            JointKind::Hinge(h) => Ok(hinge_angle(
                &(pose_a.rotation * h.axis_a),
                &(pose_a.rotation * h.references.0),
                &(pose_b.rotation * h.references.1),
            )),
            JointKind::Slider(s) => Ok(offset.dot(&(pose_a.rotation * s.axis_a))),
            JointKind::Distance(_) => Ok(offset.norm()),
            JointKind::RaySpring(r) => {
                let anchor = pose_b * joint.local_anchor_b;
                r.ground
                    .map(|g| (g - anchor).dot(&r.axis))
                    .ok_or(Error::NotApplicable("joint_position: the ray hit nothing"))
            }
            _ => Err(Error::WrongJointKind),
        }
    }

    /// Applies `change` to a copy of the joint's settings, checks the result as the builder
    /// would, and only then keeps it (waking the joint's bodies).
    fn change_joint(
        &mut self,
        handle: JointHandle,
        change: impl FnOnce(&mut JointKind) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let joint = self.joints.get(handle).ok_or(Error::StaleHandle)?;
        let mut kind = joint.kind;
        change(&mut kind)?;
        check_kind(&mut kind)?;
        let joint = self.joints.get_mut(handle).ok_or(Error::StaleHandle)?;
        joint.kind = kind;
        self.joint_table.stale = true;
        let (a, b) = (joint.body_a, joint.body_b);
        self.wake(a);
        self.wake(b);
        Ok(())
    }
}

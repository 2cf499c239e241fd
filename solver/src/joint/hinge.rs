//! The hinge (revolute) joint: the point part, two alignment directions and the hinge angle.
//!
//! - The point part ([`BallJoint`]) keeps the anchors together.
//! - Alignment: two axis parts keep A's axis and B's axis parallel, `C_k = (u_a x u_b) . t_k`
//!   along the two directions `t_k` across A's axis, `J_k = [0, -t_k, 0, t_k]`.
//! - The angle about the axis: one axis part with the angle limits (rigid, speculative while
//!   apart, as every limit) and the motor (a target speed, bounded by the maximum torque).
//!
//! Angles and axes are measured on the bodies' current orientation (their rotation since the
//! step began), like every joint's anchors; the parts' directions turn with A each pass.

use super::angular::angular_row;
use super::axis::{AxisPart, AxisSettings, Hold};
use super::ball::BallJoint;
use super::drive::{drive_part, turned_inertia, wrapped, Drive};
use super::part::{impulses, Joint, JointFrame, Part, PassContext};
use super::project::{past, project_angle};
use crate::body::Motion;
use crate::contact::tangents;
use crate::softness::Spring;
use crate::step::StepContext;
use crate::{Real, Vector};

/// How a hinge is set, in its bodies' frames.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HingeSettings {
    /// The hinge axis in A's frame (unit).
    pub axis_a: Vector,
    /// The hinge axis in B's frame (unit); on `axis_a` when the joint is satisfied.
    pub axis_b: Vector,
    /// Directions across the axis, in A's and B's frames, that coincide at angle zero.
    pub references: (Vector, Vector),
    /// Lower and upper angle (rad), if limited.
    pub limits: Option<(Real, Real)>,
    /// Motor: target speed (rad/s) and maximum torque (N m).
    pub motor: Option<(Real, Real)>,
    /// A soft hinge: this spring instead of rigid point and alignment rows.
    pub spring: Option<Spring>,
    /// A drive towards an angle (rad).
    pub drive: Option<Drive>,
}

impulses! {
    /// A hinge's accumulated impulses.
    pub struct HingeImpulses {
        /// The point's (world, N s).
        pub point: Vector,
        /// Keeping the axes parallel, about the two directions across A's axis (N m s).
        pub align: [Real; 2],
        /// The lower angle limit's.
        pub lower: Real,
        /// The upper angle limit's.
        pub upper: Real,
        /// The motor's.
        pub motor: Real,
        /// The drive's (N m s).
        pub drive: Real,
    }
}

/// The hinge's axes and references in the world at the start of the step.
#[derive(Clone, Copy, Debug)]
struct Axes {
    axis_a: Vector,
    axis_b: Vector,
    reference_a: Vector,
    reference_b: Vector,
}

/// A hinge prepared for a step.
#[derive(Clone, Debug)]
pub struct HingeJoint {
    /// The point part.
    pub point: BallJoint,
    /// A's and B's axes kept parallel, across A's axis.
    align: [AxisPart; 2],
    /// The hinge angle: its limits and motor.
    angle: AxisPart,
    /// The drive towards an angle, and that angle.
    drive: Option<(AxisPart, Real)>,
    axes: Axes,
    /// The angle's limits, for the projection, and whether the hinge is rigid.
    limits: Option<(Real, Real)>,
    rigid: bool,
}

/// The hinge angle of `reference_b` from `reference_a` about `axis` (rad, in (-pi, pi]).
pub fn hinge_angle(axis: &Vector, reference_a: &Vector, reference_b: &Vector) -> Real {
    axis.dot(&reference_a.cross(reference_b))
        .atan2(reference_a.dot(reference_b))
}

impl Joint for HingeJoint {
    type Settings = HingeSettings;
    type Impulses = HingeImpulses;

    fn prepare(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: &HingeSettings,
        step: &StepContext,
        carried: &HingeImpulses,
    ) -> Self {
        let (qa, qb) = frame.rotations;
        let axes = Axes {
            axis_a: qa * settings.axis_a,
            axis_b: qb * settings.axis_b,
            reference_a: qa * settings.references.0,
            reference_b: qb * settings.references.1,
        };
        let spring = settings.spring;
        let point = BallJoint::new(frame, a, b, spring, &step.joint, step.h, carried.point);
        let across = tangents(&axes.axis_a);
        let align = [0, 1].map(|k| {
            let row = angular_row(&across[k], a, b);
            let hold = Some((0.0, Hold::of(spring.as_ref(), &row, step.h)));
            let settings = AxisSettings {
                hold,
                ..AxisSettings::default()
            };
            AxisPart::new(row, settings, [carried.align[k], 0.0, 0.0, 0.0])
        });
        let angle = AxisPart::new(
            angular_row(&axes.axis_a, a, b),
            AxisSettings {
                hold: None,
                limits: settings.limits,
                motor: settings.motor,
                limit_spring: None,
                hold_cap: None,
            },
            [0.0, carried.lower, carried.upper, carried.motor],
        );
        let drive = settings.drive.map(|drive| {
            let row = angular_row(&axes.axis_a, a, b);
            let turned = turned_inertia(frame, (a, b), &axes.axis_a, true);
            let spring = (&drive.spring, turned, drive.max_force);
            (drive_part(row, spring, step.h, carried.drive), drive.target)
        });
        HingeJoint {
            point,
            align,
            angle,
            drive,
            axes,
            limits: settings.limits,
            rigid: settings.spring.is_none(),
        }
    }

    fn parts(&mut self) -> impl Part + '_ {
        (
            &mut self.point,
            (&mut self.align, &mut self.angle),
            self.drive.as_mut().map(|(part, _)| part),
        )
    }

    /// The angle's drive, motor and limits first, so that alignment and the point have the
    /// last word.
    fn solve(&mut self, _: &JointFrame, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        let s = &self.axes;
        let axis_a = a.delta_rotation * s.axis_a;
        let axis_b = b.delta_rotation * s.axis_b;
        let angle = hinge_angle(
            &axis_a,
            &(a.delta_rotation * s.reference_a),
            &(b.delta_rotation * s.reference_b),
        );
        if let Some((drive, target)) = &mut self.drive {
            drive.aim(angular_row(&axis_a, a, b));
            drive.solve(a, b, wrapped(angle - *target), pass);
        }
        self.angle.aim(angular_row(&axis_a, a, b));
        self.angle.solve(a, b, angle, pass);
        let error = axis_a.cross(&axis_b);
        for (part, dir) in self.align.iter_mut().zip(tangents(&axis_a)) {
            part.aim(angular_row(&dir, a, b));
            part.solve(a, b, error.dot(&dir), pass);
        }
        self.point.solve_motions(a, b, pass.use_bias, 0.0);
    }

    /// The angle's limits, the axes' alignment, then the point.
    fn project(&mut self, frame: &JointFrame, a: &mut Motion, b: &mut Motion) {
        let s = self.axes;
        let axis_a = a.delta_rotation * s.axis_a;
        if let Some((lower, upper)) = self.limits {
            let angle = hinge_angle(
                &axis_a,
                &(a.delta_rotation * s.reference_a),
                &(b.delta_rotation * s.reference_b),
            );
            let past = past(angle, (lower, upper));
            if past != 0.0 {
                project_angle(a, b, &axis_a, past);
            }
        }
        if !self.rigid {
            return;
        }
        let (axis_a, axis_b) = (a.delta_rotation * s.axis_a, b.delta_rotation * s.axis_b);
        let across = axis_a.cross(&axis_b);
        if let Some(n) = across.try_normalize(1.0e-9) {
            let angle = across.norm().atan2(axis_a.dot(&axis_b));
            project_angle(a, b, &n, angle);
        }
        self.point.project_point(frame, a, b);
    }

    fn impulses(&self) -> HingeImpulses {
        let [_, lower, upper, motor] = self.angle.impulses();
        HingeImpulses {
            point: self.point.impulse(),
            align: self.align.map(|part| part.total()),
            lower,
            upper,
            motor,
            drive: self.drive.map_or(0.0, |(part, _)| part.total()),
        }
    }

    fn load(&self) -> Real {
        self.point.impulse().norm()
    }
}

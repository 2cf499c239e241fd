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
use super::{BallJoint, JointFrame, PassContext};
use crate::body::Motion;
use crate::contact::tangents;
use crate::softness::Spring;
use crate::step::StepContext;
use crate::{Real, Vector};

/// How a hinge is set, in world space at the start of the step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HingeSettings {
    /// The hinge axis on A (world, unit).
    pub axis_a: Vector,
    /// The hinge axis on B (world, unit); parallel to `axis_a` when the joint is satisfied.
    pub axis_b: Vector,
    /// A direction across the axis on A (world, unit): angle zero is where B's matches it.
    pub reference_a: Vector,
    /// The same direction, carried by B.
    pub reference_b: Vector,
    /// Lower and upper angle (rad), if limited.
    pub limits: Option<(Real, Real)>,
    /// Motor: target speed (rad/s) and maximum torque (N m).
    pub motor: Option<(Real, Real)>,
    /// A soft hinge: this spring instead of rigid point and alignment rows.
    pub spring: Option<Spring>,
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
    pub(super) settings: HingeSettings,
}

/// The hinge angle of `reference_b` from `reference_a` about `axis` (rad, in (-pi, pi]).
pub fn hinge_angle(axis: &Vector, reference_a: &Vector, reference_b: &Vector) -> Real {
    axis.dot(&reference_a.cross(reference_b))
        .atan2(reference_a.dot(reference_b))
}

impl HingeJoint {
    /// The hinge for `frame` and `settings` in the step of `step`, carrying last step's
    /// `impulses` (point as a world vector, then the two alignment directions, the lower and
    /// upper limits and the motor).
    pub fn new(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: HingeSettings,
        step: &StepContext,
        impulses: &[Real; 8],
    ) -> Self {
        let spring = settings.spring;
        let point = Vector::new(impulses[0], impulses[1], impulses[2]);
        let point = BallJoint::new(frame, a, b, spring, &step.joint, step.h, point);
        let across = tangents(&settings.axis_a);
        let align = [0, 1].map(|k| {
            let row = angular_row(&across[k], a, b);
            let hold = Some((0.0, Hold::of(spring.as_ref(), &row, step.h)));
            let settings = AxisSettings {
                hold,
                ..AxisSettings::default()
            };
            AxisPart::new(row, settings, [impulses[3 + k], 0.0, 0.0, 0.0])
        });
        let angle = AxisPart::new(
            angular_row(&settings.axis_a, a, b),
            AxisSettings {
                hold: None,
                limits: settings.limits,
                motor: settings.motor,
            },
            [0.0, impulses[5], impulses[6], impulses[7]],
        );
        HingeJoint {
            point,
            align,
            angle,
            settings,
        }
    }

    /// The impulses to carry over: point (world vector), then the alignment directions, the
    /// lower and upper limits and the motor.
    pub fn impulses(&self) -> [Real; 8] {
        let p = self.point.impulse();
        let [_, lower, upper, motor] = self.angle.impulses();
        let [t1, t2] = self.align.map(|part| part.total());
        [p.x, p.y, p.z, t1, t2, lower, upper, motor]
    }

    /// Whether a spring was too stiff at this substep to be exact.
    pub fn too_stiff(&self) -> bool {
        self.point.too_stiff() || self.align.iter().any(AxisPart::too_stiff)
    }

    /// Forgets the accumulated impulses (warm starting off).
    pub fn reset_impulses(&mut self) {
        self.point.reset_impulse();
        self.align.iter_mut().for_each(AxisPart::reset);
        self.angle.reset();
    }

    /// Applies the accumulated impulses (warm starting).
    pub(super) fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
        self.point.warm_start_motions(a, b);
        self.align.iter().for_each(|part| part.warm_start(a, b));
        self.angle.warm_start(a, b);
    }

    /// One iteration: the angle's motor and limits first, so that alignment and the point
    /// have the last word.
    pub(super) fn solve(&mut self, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        let s = &self.settings;
        let axis_a = a.delta_rotation * s.axis_a;
        let axis_b = b.delta_rotation * s.axis_b;
        let angle = hinge_angle(
            &axis_a,
            &(a.delta_rotation * s.reference_a),
            &(b.delta_rotation * s.reference_b),
        );
        self.angle.aim(angular_row(&axis_a, a, b));
        self.angle.solve(a, b, angle, pass);
        let error = axis_a.cross(&axis_b);
        for (part, dir) in self.align.iter_mut().zip(tangents(&axis_a)) {
            part.aim(angular_row(&dir, a, b));
            part.solve(a, b, error.dot(&dir), pass);
        }
        self.point.solve_motions(a, b, pass.use_bias);
    }
}

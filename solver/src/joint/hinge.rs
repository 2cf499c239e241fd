//! The hinge (revolute) joint, with angle limits and a motor, and the fixed (weld) joint.
//!
//! Both start from the ball joint's three point rows ([`BallJoint`]) and add angular rows:
//! - hinge: two rows keeping A's axis and B's axis parallel, `C_k = (u_a x u_b) · t_k` along the
//!   two directions `t_k` across A's axis, `J_k = [0, -t_k, 0, t_k]`; then, about the axis, a
//!   lower and an upper limit row on the hinge angle (rigid, speculative while apart, as the
//!   distance joint's) and a motor row (a target speed, bounded by the maximum torque).
//! - fixed: three rows holding B's orientation relative to A's, `C = θ` the rotation vector of
//!   `q_b (q_a q_rel)^-1`, along the world axes.
//!
//! Angles and axes are measured on the bodies' current orientation (their rotation since the
//! step began), like every joint's anchors.

use super::{position_softness, solve_limit, solve_motor, BallJoint, JointFrame, JointSettings};
use crate::body::Motion;
use crate::contact::tangents;
use crate::row::Row;
use crate::softness::Spring;
use crate::{Quaternion, Real, Vector};

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

/// A hinge's rows: the point rows, then align, align, lower, upper, motor.
#[derive(Clone, Debug)]
pub struct HingeJoint {
    /// The point rows.
    pub point: BallJoint,
    /// Two alignment rows, the lower and upper limit rows and the motor row.
    pub rows: [Row; 5],
    pub(super) settings: HingeSettings,
}

/// The hinge angle of `reference_b` from `reference_a` about `axis` (rad, in (-pi, pi]).
pub fn hinge_angle(axis: &Vector, reference_a: &Vector, reference_b: &Vector) -> Real {
    axis.dot(&reference_a.cross(reference_b))
        .atan2(reference_a.dot(reference_b))
}

fn angular_row(dir: &Vector, a: &Motion, b: &Motion, impulse: Real) -> Row {
    let mut row = Row::new(Vector::zeros(), -dir, *dir, a, b);
    row.impulse = impulse;
    row
}

impl HingeJoint {
    /// Rows for `frame` and `settings` at substep `h`, carrying last step's `impulses`
    /// (point as a world vector, then the five rows).
    pub fn new(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        settings: HingeSettings,
        joint: &JointSettings,
        h: Real,
        impulses: &[Real; 8],
    ) -> Self {
        let point = BallJoint::new(
            frame,
            a,
            b,
            settings.spring,
            joint,
            h,
            Vector::new(impulses[0], impulses[1], impulses[2]),
        );
        let [t1, t2] = tangents(&settings.axis_a);
        let axes = [t1, t2, settings.axis_a, settings.axis_a, settings.axis_a];
        let rows = [0, 1, 2, 3, 4].map(|k| angular_row(&axes[k], a, b, impulses[3 + k]));
        let mut joint = HingeJoint {
            point,
            rows,
            settings,
        };
        // Rows that do not act this step carry nothing: a motor or limits removed at run time
        // would otherwise go on warm starting their last impulse forever.
        if joint.settings.motor.is_none() {
            joint.rows[4].impulse = 0.0;
        }
        if joint.settings.limits.is_none() {
            joint.rows[2].impulse = 0.0;
            joint.rows[3].impulse = 0.0;
        }
        joint
    }

    /// The impulses to carry over: point (world vector), then the five rows.
    pub fn impulses(&self) -> [Real; 8] {
        let p = self.point.impulse();
        let r = &self.rows;
        [
            p.x,
            p.y,
            p.z,
            r[0].impulse,
            r[1].impulse,
            r[2].impulse,
            r[3].impulse,
            r[4].impulse,
        ]
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve(
        &mut self,
        a: &mut Motion,
        b: &mut Motion,
        settings: &JointSettings,
        h: Real,
        use_bias: bool,
    ) {
        let s = &self.settings;
        let axis_a = a.delta_rotation * s.axis_a;
        let axis_b = b.delta_rotation * s.axis_b;
        let angle = hinge_angle(
            &axis_a,
            &(a.delta_rotation * s.reference_a),
            &(b.delta_rotation * s.reference_b),
        );
        // The motor first, so that the limits and the point rows have the last word.
        for k in 2..5 {
            self.rows[k] = angular_row(&axis_a, a, b, self.rows[k].impulse);
        }
        if let Some((speed, max_torque)) = s.motor {
            solve_motor(&mut self.rows[4], a, b, speed, max_torque * h);
        }
        if let Some((lower, upper)) = s.limits {
            solve_limit(
                &mut self.rows[2],
                a,
                b,
                angle,
                lower,
                true,
                settings,
                h,
                use_bias,
            );
            solve_limit(
                &mut self.rows[3],
                a,
                b,
                angle,
                upper,
                false,
                settings,
                h,
                use_bias,
            );
        }
        let error = axis_a.cross(&axis_b);
        let [t1, t2] = tangents(&axis_a);
        for (k, dir) in [t1, t2].iter().enumerate() {
            let row = &mut self.rows[k];
            *row = angular_row(dir, a, b, row.impulse);
            let soft = position_softness(self.settings.spring.as_ref(), row, settings, h, use_bias);
            row.solve(
                a,
                b,
                0.0,
                soft.bias_rate * error.dot(dir),
                &soft,
                Real::NEG_INFINITY,
                Real::INFINITY,
            );
        }
        self.point.solve_motions(a, b, use_bias);
    }
}

/// A fixed joint's rows: the point rows and three angular rows.
#[derive(Clone, Debug)]
pub struct FixedJoint {
    /// The point rows.
    pub point: BallJoint,
    /// The angular rows along the world axes.
    pub rows: [Row; 3],
    /// B's orientation relative to A's to hold: `q_b = q_a relative`.
    relative: Quaternion,
    /// The bodies' orientations at the start of the step.
    start: (Quaternion, Quaternion),
    /// A soft weld: this spring instead of rigid rows.
    pub(super) spring: Option<Spring>,
}

impl FixedJoint {
    /// Rows holding B at `relative` to A; `start` are the bodies' orientations now.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        relative: Quaternion,
        start: (Quaternion, Quaternion),
        spring: Option<Spring>,
        joint: &JointSettings,
        h: Real,
        impulses: &[Real; 8],
    ) -> Self {
        let point = BallJoint::new(
            frame,
            a,
            b,
            spring,
            joint,
            h,
            Vector::new(impulses[0], impulses[1], impulses[2]),
        );
        let rows = [0, 1, 2].map(|k| angular_row(&Vector::ith(k, 1.0), a, b, impulses[3 + k]));
        FixedJoint {
            point,
            rows,
            relative,
            start,
            spring,
        }
    }

    /// The impulses to carry over: point (world vector), then the three angular rows.
    pub fn impulses(&self) -> [Real; 8] {
        let p = self.point.impulse();
        [
            p.x,
            p.y,
            p.z,
            self.rows[0].impulse,
            self.rows[1].impulse,
            self.rows[2].impulse,
            0.0,
            0.0,
        ]
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve(
        &mut self,
        a: &mut Motion,
        b: &mut Motion,
        settings: &JointSettings,
        h: Real,
        use_bias: bool,
    ) {
        let q_a = a.delta_rotation * self.start.0;
        let q_b = b.delta_rotation * self.start.1;
        let error = (q_b * (q_a * self.relative).inverse()).scaled_axis();
        for (k, row) in self.rows.iter_mut().enumerate() {
            let dir = Vector::ith(k, 1.0);
            *row = angular_row(&dir, a, b, row.impulse);
            let soft = position_softness(self.spring.as_ref(), row, settings, h, use_bias);
            row.solve(
                a,
                b,
                0.0,
                soft.bias_rate * error[k],
                &soft,
                Real::NEG_INFINITY,
                Real::INFINITY,
            );
        }
        self.point.solve_motions(a, b, use_bias);
    }
}

/// How a slider is set, in world space at the start of the step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SliderSettings {
    /// The sliding axis, carried by A (world, unit).
    pub axis_a: Vector,
    /// Lower and upper translation along the axis (m), if limited.
    pub limits: Option<(Real, Real)>,
    /// Motor: target speed (m/s) and maximum force (N).
    pub motor: Option<(Real, Real)>,
    /// A soft slider: this spring instead of rigid angular and across-axis rows.
    pub spring: Option<Spring>,
}

/// A slider (prismatic) joint: B keeps A's orientation and moves only along A's axis.
/// Rows: three angular (as the weld's), two linear across the axis, `C_k = d · t_k` with
/// `J_k = [-t_k, -(r_a + d) x t_k, t_k, r_b x t_k]` (A's lever reaches to B's anchor, since the
/// axis turns with A), then the lower and upper limits and the motor along the axis.
#[derive(Clone, Debug)]
pub struct SliderJoint {
    /// Angular x, y, z; across 1, across 2; lower, upper, motor.
    pub rows: [Row; 8],
    relative: Quaternion,
    start: (Quaternion, Quaternion),
    pub(super) settings: SliderSettings,
}

impl SliderJoint {
    /// Rows holding B at `relative` to A and on the axis; `start` are the orientations now.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        settings: SliderSettings,
        relative: Quaternion,
        start: (Quaternion, Quaternion),
        impulses: &[Real; 8],
    ) -> Self {
        let mut rows = [Row::default(); 8];
        // The rows in the directions `solve` gives them, so that warm starting applies last
        // step's impulses where they acted: across the axis for rows 3 and 4, along it after.
        let [t1, t2] = tangents(&settings.axis_a);
        let lever_a = frame.anchor_a + frame.separation;
        for (k, row) in rows.iter_mut().enumerate() {
            *row = match k {
                0..=2 => angular_row(&Vector::ith(k, 1.0), a, b, impulses[k]),
                3 | 4 => {
                    let dir = if k == 3 { t1 } else { t2 };
                    JointFrame::row(&dir, &lever_a, &frame.anchor_b, a, b, impulses[k])
                }
                _ => JointFrame::row(
                    &settings.axis_a,
                    &lever_a,
                    &frame.anchor_b,
                    a,
                    b,
                    impulses[k],
                ),
            };
        }
        // Rows that do not act this step carry nothing (see `HingeJoint::new`).
        if settings.limits.is_none() {
            rows[5].impulse = 0.0;
            rows[6].impulse = 0.0;
        }
        if settings.motor.is_none() {
            rows[7].impulse = 0.0;
        }
        SliderJoint {
            rows,
            relative,
            start,
            settings,
        }
    }

    /// The impulses to carry over, row by row.
    pub fn impulses(&self) -> [Real; 8] {
        self.rows.map(|r| r.impulse)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve(
        &mut self,
        a: &mut Motion,
        b: &mut Motion,
        separation: &Vector,
        (r_a, r_b): &(Vector, Vector),
        settings: &JointSettings,
        h: Real,
        use_bias: bool,
    ) {
        let s = self.settings;
        let axis = a.delta_rotation * s.axis_a;
        let lever_a = r_a + separation;
        let along = separation.dot(&axis);
        for k in 5..8 {
            self.rows[k] = JointFrame::row(&axis, &lever_a, r_b, a, b, self.rows[k].impulse);
        }
        if let Some((speed, max_force)) = s.motor {
            solve_motor(&mut self.rows[7], a, b, speed, max_force * h);
        }
        if let Some((lower, upper)) = s.limits {
            solve_limit(
                &mut self.rows[5],
                a,
                b,
                along,
                lower,
                true,
                settings,
                h,
                use_bias,
            );
            solve_limit(
                &mut self.rows[6],
                a,
                b,
                along,
                upper,
                false,
                settings,
                h,
                use_bias,
            );
        }
        let q_a = a.delta_rotation * self.start.0;
        let q_b = b.delta_rotation * self.start.1;
        let error = (q_b * (q_a * self.relative).inverse()).scaled_axis();
        for k in 0..3 {
            let row = &mut self.rows[k];
            *row = angular_row(&Vector::ith(k, 1.0), a, b, row.impulse);
            let soft = position_softness(s.spring.as_ref(), row, settings, h, use_bias);
            row.solve(
                a,
                b,
                0.0,
                soft.bias_rate * error[k],
                &soft,
                Real::NEG_INFINITY,
                Real::INFINITY,
            );
        }
        for (k, dir) in tangents(&axis).iter().enumerate() {
            let row = &mut self.rows[3 + k];
            *row = JointFrame::row(dir, &lever_a, r_b, a, b, row.impulse);
            let soft = position_softness(s.spring.as_ref(), row, settings, h, use_bias);
            row.solve(
                a,
                b,
                0.0,
                soft.bias_rate * separation.dot(dir),
                &soft,
                Real::NEG_INFINITY,
                Real::INFINITY,
            );
        }
    }
}

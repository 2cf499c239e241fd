//! The slider (prismatic) joint: B keeps A's orientation and moves only along A's axis.
//!
//! - The angular lock holds the orientation.
//! - Across the axis: two axis parts, `C_k = d . t_k` with
//!   `J_k = [-t_k, -(r_a + d) x t_k, t_k, r_b x t_k]` (A's lever reaches to B's anchor, since the
//!   axis turns with A).
//! - Along the axis: one axis part with the travel's limits and the motor.

use super::angular::AngularLock;
use super::axis::{AxisPart, AxisSettings, Hold};
use super::drive::{drive_part, turned_inertia, Drive};
use super::part::{impulses, Joint, JointFrame, Part, PassContext};
use crate::body::Motion;
use crate::contact::tangents;
use crate::softness::Spring;
use crate::step::StepContext;
use crate::{Quaternion, Real, Vector};

/// How a slider is set, in its bodies' frames.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SliderSettings {
    /// The sliding axis in A's frame (unit).
    pub axis_a: Vector,
    /// B's orientation relative to A's to hold, `q_a^-1 q_b`.
    pub relative: Quaternion,
    /// Lower and upper translation along the axis (m), if limited.
    pub limits: Option<(Real, Real)>,
    /// Motor: target speed (m/s) and maximum force (N).
    pub motor: Option<(Real, Real)>,
    /// A soft slider: this spring instead of rigid angular and across-axis rows.
    pub spring: Option<Spring>,
    /// A drive towards a travel (m).
    pub drive: Option<Drive>,
}

impulses! {
    /// A slider's accumulated impulses.
    pub struct SliderImpulses {
        /// The orientation's, about the world axes (N m s).
        pub angular: Vector,
        /// Keeping B's anchor on the axis, along the two directions across it (N s).
        pub across: [Real; 2],
        /// The lower travel limit's.
        pub lower: Real,
        /// The upper travel limit's.
        pub upper: Real,
        /// The motor's.
        pub motor: Real,
        /// The drive's (N s).
        pub drive: Real,
    }
}

/// A slider prepared for a step.
#[derive(Clone, Debug)]
pub struct SliderJoint {
    /// The angular lock.
    lock: AngularLock,
    /// B's anchor kept on A's axis, along the two directions across it.
    across: [AxisPart; 2],
    /// The travel along the axis: its limits and motor.
    travel: AxisPart,
    /// The drive towards a travel, and that travel.
    drive: Option<(AxisPart, Real)>,
    /// The axis in the world at the start of the step.
    axis: Vector,
}

impl Joint for SliderJoint {
    type Settings = SliderSettings;
    type Impulses = SliderImpulses;

    fn prepare(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: &SliderSettings,
        step: &StepContext,
        carried: &SliderImpulses,
    ) -> Self {
        let spring = settings.spring.as_ref();
        let (relative, start) = (settings.relative, frame.rotations);
        let lock = AngularLock::new((a, b), relative, start, (spring, step.h), carried.angular);
        let axis = start.0 * settings.axis_a;
        // The parts in the directions `solve` gives them, so that warm starting applies last
        // step's impulses where they acted.
        let lever_a = frame.anchor_a + frame.separation;
        let row = |dir: &Vector| JointFrame::row(dir, &lever_a, &frame.anchor_b, a, b);
        let dirs = tangents(&axis);
        let across = [0, 1].map(|k| {
            let row = row(&dirs[k]);
            let hold = Some((0.0, Hold::of(spring, &row, step.h)));
            let settings = AxisSettings {
                hold,
                ..AxisSettings::default()
            };
            AxisPart::new(row, settings, [carried.across[k], 0.0, 0.0, 0.0])
        });
        let travel = AxisPart::new(
            row(&axis),
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
            let turned = turned_inertia(frame, (a, b), &axis, false);
            let spring = (&drive.spring, turned, drive.max_force);
            (
                drive_part(row(&axis), spring, step.h, carried.drive),
                drive.target,
            )
        });
        SliderJoint {
            lock,
            across,
            travel,
            drive,
            axis,
        }
    }

    fn parts(&mut self) -> impl Part + '_ {
        (
            &mut self.lock,
            (&mut self.across, &mut self.travel),
            self.drive.as_mut().map(|(part, _)| part),
        )
    }

    /// The travel's drive, motor and limits first, then the orientation and the axis.
    fn solve(&mut self, frame: &JointFrame, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        let separation = frame.current_separation(a, b);
        let (r_a, r_b) = frame.current_anchors(a, b);
        let axis = a.delta_rotation * self.axis;
        let lever_a = r_a + separation;
        let along = JointFrame::row(&axis, &lever_a, &r_b, a, b);
        if let Some((drive, target)) = &mut self.drive {
            drive.aim(along);
            drive.solve(a, b, separation.dot(&axis) - *target, pass);
        }
        self.travel.aim(along);
        self.travel.solve(a, b, separation.dot(&axis), pass);
        self.lock.solve(a, b, pass);
        for (part, dir) in self.across.iter_mut().zip(tangents(&axis)) {
            part.aim(JointFrame::row(&dir, &lever_a, &r_b, a, b));
            part.solve(a, b, separation.dot(&dir), pass);
        }
    }

    fn impulses(&self) -> SliderImpulses {
        let [_, lower, upper, motor] = self.travel.impulses();
        SliderImpulses {
            angular: self.lock.impulses(),
            across: self.across.map(|part| part.total()),
            lower,
            upper,
            motor,
            drive: self.drive.map_or(0.0, |(part, _)| part.total()),
        }
    }

    /// Across the axis and along it.
    fn load(&self) -> Real {
        let [t1, t2] = self.across.map(|part| part.total());
        let along = self.travel.total();
        (t1 * t1 + t2 * t2 + along * along).sqrt()
    }
}

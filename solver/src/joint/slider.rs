//! The slider (prismatic) joint: B keeps A's orientation and moves only along A's axis.
//!
//! - The angular lock holds the orientation.
//! - Across the axis: two axis parts, `C_k = d . t_k` with
//!   `J_k = [-t_k, -(r_a + d) x t_k, t_k, r_b x t_k]` (A's lever reaches to B's anchor, since the
//!   axis turns with A).
//! - Along the axis: one axis part with the travel's limits and the motor.

use super::angular::AngularLock;
use super::axis::{AxisPart, AxisSettings, Hold};
use super::{JointFrame, PassContext};
use crate::body::Motion;
use crate::contact::tangents;
use crate::softness::Spring;
use crate::step::StepContext;
use crate::{Quaternion, Real, Vector};

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

/// A slider prepared for a step.
#[derive(Clone, Debug)]
pub struct SliderJoint {
    /// The angular lock.
    lock: AngularLock,
    /// B's anchor kept on A's axis, along the two directions across it.
    across: [AxisPart; 2],
    /// The travel along the axis: its limits and motor.
    travel: AxisPart,
    pub(super) settings: SliderSettings,
}

impl SliderJoint {
    /// The slider holding B at `relative` to A (`start`: the bodies' orientations now) and on
    /// the axis, in the step of `step`, carrying last step's `impulses` (about x, y and z,
    /// across the axis twice, then the lower and upper limits and the motor).
    pub fn new(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: SliderSettings,
        (relative, start): (Quaternion, (Quaternion, Quaternion)),
        step: &StepContext,
        impulses: &[Real; 8],
    ) -> Self {
        let spring = settings.spring.as_ref();
        let angular = [impulses[0], impulses[1], impulses[2]];
        let lock = AngularLock::new((a, b), relative, start, (spring, step.h), angular);
        // The parts in the directions `solve` gives them, so that warm starting applies last
        // step's impulses where they acted.
        let lever_a = frame.anchor_a + frame.separation;
        let row = |dir: &Vector| JointFrame::row(dir, &lever_a, &frame.anchor_b, a, b);
        let dirs = tangents(&settings.axis_a);
        let across = [0, 1].map(|k| {
            let row = row(&dirs[k]);
            let hold = Some((0.0, Hold::of(spring, &row, step.h)));
            let settings = AxisSettings {
                hold,
                ..AxisSettings::default()
            };
            AxisPart::new(row, settings, [impulses[3 + k], 0.0, 0.0, 0.0])
        });
        let travel = AxisPart::new(
            row(&settings.axis_a),
            AxisSettings {
                hold: None,
                limits: settings.limits,
                motor: settings.motor,
            },
            [0.0, impulses[5], impulses[6], impulses[7]],
        );
        SliderJoint {
            lock,
            across,
            travel,
            settings,
        }
    }

    /// The impulses to carry over: about x, y and z, across the axis twice, then the lower and
    /// upper limits and the motor.
    pub fn impulses(&self) -> [Real; 8] {
        let [x, y, z] = self.lock.impulses();
        let [t1, t2] = self.across.map(|part| part.total());
        let [_, lower, upper, motor] = self.travel.impulses();
        [x, y, z, t1, t2, lower, upper, motor]
    }

    /// The force it holds with across the axis and along it (N s, summed over the substep).
    pub fn impulse(&self) -> Real {
        let [t1, t2] = self.across.map(|part| part.total());
        let along = self.travel.total();
        (t1 * t1 + t2 * t2 + along * along).sqrt()
    }

    /// Whether a spring was too stiff at this substep to be exact.
    pub fn too_stiff(&self) -> bool {
        self.lock.too_stiff() || self.across.iter().any(AxisPart::too_stiff)
    }

    /// Forgets the accumulated impulses (warm starting off).
    pub fn reset_impulses(&mut self) {
        self.lock.reset();
        self.across.iter_mut().for_each(AxisPart::reset);
        self.travel.reset();
    }

    /// Applies the accumulated impulses (warm starting).
    pub(super) fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
        self.lock.warm_start(a, b);
        self.across.iter().for_each(|part| part.warm_start(a, b));
        self.travel.warm_start(a, b);
    }

    /// One iteration with the anchors `r_a`, `r_b` and their offset `separation` now: the
    /// travel's motor and limits first, then the orientation and the axis.
    pub(super) fn solve(
        &mut self,
        (a, b): (&mut Motion, &mut Motion),
        separation: &Vector,
        (r_a, r_b): &(Vector, Vector),
        pass: &PassContext,
    ) {
        let axis = a.delta_rotation * self.settings.axis_a;
        let lever_a = r_a + separation;
        self.travel.aim(JointFrame::row(&axis, &lever_a, r_b, a, b));
        self.travel.solve(a, b, separation.dot(&axis), pass);
        self.lock.solve(a, b, pass);
        for (part, dir) in self.across.iter_mut().zip(tangents(&axis)) {
            part.aim(JointFrame::row(&dir, &lever_a, r_b, a, b));
            part.solve(a, b, separation.dot(&dir), pass);
        }
    }
}

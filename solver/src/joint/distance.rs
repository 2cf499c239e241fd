//! The distance joint: keeps the anchors' distance at a rest length (rigid), pulls it there (a
//! spring), and/or holds it within `[min, max]` (limits; a rope is a maximum only).
//!
//! One axis part ([`super::axis::AxisPart`]) along the anchors' axis, `C = |p_b - p_a|`: it
//! holds the rest length (rigid or spring) and keeps the length within the limits. A limit
//! that is slack lets the length change by at most its slack this substep (speculative, as
//! contacts do), so a rope goes taut without a jerk. Without limits the joint is a length part
//! ([`LengthRow`]), solved in lanes.

use super::axis::{AxisPart, AxisSettings, Hold};
use super::length::LengthRow;
use super::part::{impulses, Joint, JointFrame, Part, PassContext};
use crate::body::Motion;
use crate::softness::{Softness, Spring, SpringWindow};
use crate::step::JointSettings;
use crate::step::StepContext;
use crate::{Real, Vector};

impulses! {
    /// A distance joint's accumulated impulses (N s).
    pub struct DistanceImpulses {
        /// Holding the rest length.
        pub rest: Real,
        /// The lower limit's.
        pub lower: Real,
        /// The upper limit's.
        pub upper: Real,
    }
}

/// A distance joint prepared for a step: one axis part along the anchors' axis.
#[derive(Clone, Debug)]
pub struct DistanceJoint {
    /// The rest length (held rigidly or as a spring) and the limits.
    pub(super) part: AxisPart,
    /// The axis last used, kept for anchors that meet (no direction of their own).
    axis: Vector,
}

/// How a distance joint is set.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DistanceSettings {
    /// Rest length (m).
    pub rest_length: Real,
    /// Shortest allowed length (m); 0 for none.
    pub min_length: Real,
    /// Longest allowed length (m); infinity for none.
    pub max_length: Real,
    /// A spring towards the rest length, or `None` for a rigid rod (when `rigid` is set).
    pub spring: Option<Spring>,
    /// Whether the rest length is held at all (a rope or a limits-only joint does not).
    pub holds_rest_length: bool,
}

impl Joint for DistanceJoint {
    type Settings = DistanceSettings;
    type Impulses = DistanceImpulses;

    fn prepare(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: &DistanceSettings,
        step: &StepContext,
        carried: &DistanceImpulses,
    ) -> Self {
        let axis = frame
            .separation
            .try_normalize(1.0e-6)
            .unwrap_or(Vector::y());
        let row = JointFrame::row(&axis, &frame.anchor_a, &frame.anchor_b, a, b);
        let hold = settings.holds_rest_length.then(|| {
            (
                settings.rest_length,
                Hold::of(settings.spring.as_ref(), &row, step.h),
            )
        });
        let lower = if settings.min_length > 0.0 {
            settings.min_length
        } else {
            Real::NEG_INFINITY
        };
        let limited = lower > Real::NEG_INFINITY || settings.max_length < Real::INFINITY;
        let limits = limited.then_some((lower, settings.max_length));
        let axis_settings = AxisSettings {
            hold,
            limits,
            ..AxisSettings::default()
        };
        let c = carried;
        DistanceJoint {
            part: AxisPart::new(row, axis_settings, [c.rest, c.lower, c.upper, 0.0]),
            axis,
        }
    }

    fn parts(&mut self) -> impl Part + '_ {
        &mut self.part
    }

    fn solve(&mut self, frame: &JointFrame, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        let separation = frame.current_separation(a, b);
        let (r_a, r_b) = frame.current_anchors(a, b);
        // The Jacobian follows the current axis (see the module doc of `joint`).
        self.axis = separation.try_normalize(1.0e-6).unwrap_or(self.axis);
        let row = JointFrame::row(&self.axis, &r_a, &r_b, a, b);
        self.part.aim(row);
        self.part.solve(a, b, separation.norm(), pass);
    }

    fn impulses(&self) -> DistanceImpulses {
        let [rest, lower, upper, _] = self.part.impulses();
        DistanceImpulses { rest, lower, upper }
    }

    fn load(&self) -> Real {
        self.part.total().abs()
    }
}

impl DistanceJoint {
    /// Whether a distance joint set as `settings` is its length part and nothing more: it
    /// holds its rest length and has no limits. Such joints go to the solver's fast path
    /// ([`DistanceJoint::plain`]).
    pub fn is_plain(settings: &DistanceSettings) -> bool {
        settings.holds_rest_length
            && settings.min_length <= 0.0
            && settings.max_length == Real::INFINITY
    }

    /// The length part alone, for the joint of `user_index` set as `settings`, that is nothing
    /// more ([`DistanceJoint::is_plain`]; rigid with `rigid`'s stabilisation or a spring):
    /// what the solver's fast path takes ([`crate::pgs::Solver::lengths`]), built without the
    /// joint's three rows.
    #[allow(clippy::too_many_arguments)]
    pub fn plain(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: &DistanceSettings,
        rigid: &JointSettings,
        (h, cache): (Real, &mut SpringWindow),
        impulse: Real,
        user_index: u32,
    ) -> LengthRow {
        debug_assert!(Self::is_plain(settings));
        let (softness, too_stiff) = match &settings.spring {
            None => ([rigid.stabilisation, Softness::RIGID], false),
            Some(spring) => {
                let axis = frame
                    .separation
                    .try_normalize(1.0e-6)
                    .unwrap_or(Vector::y());
                let row = JointFrame::row(&axis, &frame.anchor_a, &frame.anchor_b, a, b);
                let s = cache.get(user_index, spring, row.effective_mass.max(0.0), h);
                ([s.biased, s.relax], s.limited)
            }
        };
        let mut row = LengthRow::new(frame, (a, b), settings.rest_length, softness, impulse);
        row.user_index = user_index;
        row.too_stiff = too_stiff;
        row
    }
}

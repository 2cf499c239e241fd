//! The distance joint: keeps the anchors' distance at a rest length (rigid), pulls it there (a
//! spring), and/or holds it within `[min, max]` (limits; a rope is a maximum only).
//!
//! One Jacobian along the anchors' axis at the start of the step, `C = |p_b - p_a| - L`, and up
//! to three rows on it: the rest-length row (rigid or spring), the lower limit (impulse >= 0)
//! and the upper limit (impulse <= 0). A limit that is slack lets the length change by at most
//! its slack this substep (speculative, as contacts do), so a rope goes taut without a jerk.

use super::LengthRow;
use super::{solve_limit, spring_softness, JointFrame, JointSettings};
use crate::body::Motion;
use crate::row::Row;
use crate::softness::{Softness, Spring, SpringCache, SpringSoftness};
use crate::{Real, Vector};

/// A distance joint's rows and settings.
#[derive(Clone, Debug)]
pub struct DistanceJoint {
    /// The rest-length row, the lower limit row and the upper limit row.
    pub rows: [Row; 3],
    rest_length: Real,
    min_length: Real,
    max_length: Real,
    /// `Some` for a spring; `None` for a rigid rest length unless it is free between limits.
    softness: Option<SpringSoftness>,
    /// Whether the rest-length row acts at all (off for a pure rope or limits-only joint).
    holds_rest_length: bool,
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

impl DistanceJoint {
    /// Rows for `frame` at substep `h`, from last step's `impulses`.
    pub fn new(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        settings: &DistanceSettings,
        h: Real,
        impulses: [Real; 3],
    ) -> Self {
        let axis = frame
            .separation
            .try_normalize(1.0e-6)
            .unwrap_or(Vector::y());
        let rows = [0, 1, 2]
            .map(|k| JointFrame::row(&axis, &frame.anchor_a, &frame.anchor_b, a, b, impulses[k]));
        let mut rows = rows;
        // Rows that do not act this step carry nothing: limits or a rest length dropped at run
        // time would otherwise go on warm starting their last impulse forever.
        for (k, acts) in [
            settings.holds_rest_length,
            settings.min_length > 0.0,
            settings.max_length.is_finite(),
        ]
        .into_iter()
        .enumerate()
        {
            if !acts {
                rows[k].impulse = 0.0;
            }
        }
        let softness = settings.spring.map(|s| spring_softness(&s, &rows[0], h));
        DistanceJoint {
            rows,
            rest_length: settings.rest_length,
            min_length: settings.min_length,
            max_length: settings.max_length,
            softness,
            holds_rest_length: settings.holds_rest_length,
        }
    }

    /// Whether the spring fell back to implicit coefficients (too stiff to be exact).
    pub fn too_stiff(&self) -> bool {
        self.softness.is_some_and(|s| s.limited)
    }

    /// The length part alone, for the joint of `user_index` set as `settings`, if that is all
    /// it is (it holds its rest length, rigid with `rigid`'s stabilisation or a spring, and has
    /// no limits): what the solver's fast path takes ([`crate::pgs::Solver::lengths`]), built
    /// without the joint's three rows.
    #[allow(clippy::too_many_arguments)]
    pub fn plain(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: &DistanceSettings,
        rigid: &JointSettings,
        (h, cache): (Real, &mut SpringCache),
        impulse: Real,
        user_index: u32,
    ) -> Option<LengthRow> {
        let plain = settings.holds_rest_length
            && settings.min_length <= 0.0
            && settings.max_length == Real::INFINITY;
        if !plain {
            return None;
        }
        let (softness, too_stiff) = match &settings.spring {
            None => ([rigid.stabilisation, Softness::RIGID], false),
            Some(spring) => {
                let axis = frame
                    .separation
                    .try_normalize(1.0e-6)
                    .unwrap_or(Vector::y());
                let row = JointFrame::row(&axis, &frame.anchor_a, &frame.anchor_b, a, b, 0.0);
                let s = cache.get(user_index, spring, row.effective_mass.max(0.0), h);
                ([s.biased, s.relax], s.limited)
            }
        };
        let mut row = LengthRow::new(frame, (a, b), settings.rest_length, softness, impulse);
        row.user_index = user_index;
        row.too_stiff = too_stiff;
        Some(row)
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
        let length = separation.norm();
        // The Jacobian follows the current axis (see the module doc of `joint`).
        let axis = separation
            .try_normalize(1.0e-6)
            .unwrap_or(self.rows[0].linear);
        for row in &mut self.rows {
            *row = JointFrame::row(&axis, r_a, r_b, a, b, row.impulse);
        }
        let [rest, lower, upper] = &mut self.rows;
        if self.holds_rest_length {
            let c = length - self.rest_length;
            match &self.softness {
                Some(soft) => {
                    let soft = soft.pass(use_bias);
                    rest.solve(
                        a,
                        b,
                        0.0,
                        soft.bias_rate * c,
                        &soft,
                        Real::NEG_INFINITY,
                        Real::INFINITY,
                    );
                }
                None => {
                    let soft = settings.rigid(use_bias);
                    rest.solve(
                        a,
                        b,
                        0.0,
                        soft.bias_rate * c,
                        &soft,
                        Real::NEG_INFINITY,
                        Real::INFINITY,
                    );
                }
            }
        }
        if self.min_length > 0.0 {
            solve_limit(
                lower,
                a,
                b,
                length,
                self.min_length,
                true,
                settings,
                h,
                use_bias,
            );
        }
        if self.max_length.is_finite() {
            solve_limit(
                upper,
                a,
                b,
                length,
                self.max_length,
                false,
                settings,
                h,
                use_bias,
            );
        }
    }
}

//! The ball (spherical) joint: B's anchor stays on A's anchor; rotation is free.
//!
//! Three rows along the world axes: `C_k = e_k · (p_b - p_a)`, `J_k = [-e_k, -(r_a x e_k), e_k,
//! r_b x e_k]`, rebuilt each iteration on the anchors turned by the bodies' rotation. Rigid, or a
//! spring on all three axes (a zero-length spring, as the corners of `spring_net` are held).

use super::{spring_softness, JointFrame, JointSettings};
use crate::body::Motion;
use crate::row::Row;
use crate::softness::{Softness, Spring};
use crate::{Real, Vector};

/// A ball joint's rows.
#[derive(Clone, Debug)]
pub struct BallJoint {
    /// Rows along x, y, z.
    pub rows: [Row; 3],
    /// The spring, if soft; per-row softness follows each row's effective mass.
    softness: Option<[Softness; 3]>,
}

impl BallJoint {
    /// Rows for `frame`, rigid or `spring`, at substep `h`, from last step's `impulses`.
    pub fn new(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        spring: Option<Spring>,
        h: Real,
        impulses: [Real; 3],
    ) -> Self {
        let axes = [Vector::x(), Vector::y(), Vector::z()];
        let rows = [0, 1, 2].map(|k| {
            JointFrame::row(
                &axes[k],
                &frame.anchor_a,
                &frame.anchor_b,
                a,
                b,
                impulses[k],
            )
        });
        let softness = spring.map(|s| [0, 1, 2].map(|k| spring_softness(&s, &rows[k], h)));
        BallJoint { rows, softness }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve(
        &mut self,
        a: &mut Motion,
        b: &mut Motion,
        separation: &Vector,
        (r_a, r_b): &(Vector, Vector),
        settings: &JointSettings,
        use_bias: bool,
    ) {
        let axes = [Vector::x(), Vector::y(), Vector::z()];
        for (k, row) in self.rows.iter_mut().enumerate() {
            *row = JointFrame::row(&axes[k], r_a, r_b, a, b, row.impulse);
            let c = separation[k];
            match &self.softness {
                Some(soft) => {
                    row.solve(
                        a,
                        b,
                        0.0,
                        soft[k].bias_rate * c,
                        &soft[k],
                        Real::NEG_INFINITY,
                        Real::INFINITY,
                    );
                }
                None => {
                    let soft = settings.rigid(use_bias);
                    row.solve(
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
    }
}

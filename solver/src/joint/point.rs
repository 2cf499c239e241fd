//! The point part: B's anchor held on A's anchor, the three position rows solved together as
//! one 3 x 3 block.
//!
//! The impulse `P` that meets the three rows is `-K^-1 (J v + bias)` with the point's mass
//! matrix `K = (1/m_a + 1/m_b) I - [r_a]x I_a^-1 [r_a]x - [r_b]x I_b^-1 [r_b]x`. Solved as three
//! scalar rows along the world axes, a long lever arm couples the rows so strongly that
//! Gauss-Seidel's few passes leave the constraint unmet (a 2.5 m pendulum swung 2% slow); the
//! block meets all three at once, as rows along K's eigen-axes did before it, without an
//! eigen-decomposition per joint and step or rows rebuilt every pass (measured on `joint_grid`:
//! those two were 60% of the step).
//!
//! Prepared once per step (Jolt's `PointConstraintPart` does the same): `K^-1` from the anchors
//! and world inertia at the start of the step, and the bodies' inverse masses, so that a pass
//! reads only the bodies' hot state. Each pass turns the anchors by the bodies' rotation since
//! the step began, for the position error and for the Jacobian. A [`PointRow`] is small (about
//! 200 bytes) because the solver streams through thousands of them per pass (`joint_grid`'s
//! 4,900): read from the joints' general list, 800 bytes each, the passes were memory-bound.

use nalgebra::Matrix3;

use super::ends::Ends;
use super::JointFrame;
use crate::body::{BodyState, Motion};
use crate::softness::Softness;
use crate::{Real, Vector};

/// A point part prepared for one step, with everything its passes read.
#[derive(Clone, Copy, Debug)]
pub struct PointRow {
    /// The bodies, their masses and the anchors.
    pub ends: Ends,
    /// `K^-1` at the start of the step (zero if neither body can move).
    pub(super) effective_mass: Matrix3<Real>,
    /// The coefficients of the biased and of the relax pass, the same along every direction.
    pub(super) softness: [Softness; 2],
    /// The accumulated impulse (N s, world), kept for warm starting.
    pub impulse: Vector,
    /// The caller's index for the joint (to store its impulse back).
    pub user_index: u32,
    /// Whether its spring fell back to implicit coefficients (too stiff to be exact).
    pub too_stiff: bool,
}

impl PointRow {
    /// The point part of `frame` between `a` and `b`, with `softness` for the biased and the
    /// relax pass, carrying last step's `impulse` (a world vector, N s; anything not finite is
    /// dropped).
    pub fn new(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        softness: [Softness; 2],
        impulse: Vector,
    ) -> PointRow {
        PointRow {
            ends: Ends::new(frame, a, b),
            effective_mass: mass_matrix(frame, a, b)
                .try_inverse()
                .unwrap_or_else(Matrix3::zeros),
            softness,
            impulse: if impulse.iter().all(|x| x.is_finite()) {
                impulse
            } else {
                Vector::zeros()
            },
            user_index: 0,
            too_stiff: false,
        }
    }

    /// The velocity of B's anchor relative to A's.
    #[inline]
    pub(super) fn velocity(a: &BodyState, b: &BodyState, (r_a, r_b): (&Vector, &Vector)) -> Vector {
        (b.linear_velocity + b.angular_velocity.cross(r_b))
            - (a.linear_velocity + a.angular_velocity.cross(r_a))
    }

    /// The accumulated impulse one block iteration under `soft` would reach, for relative
    /// velocity `velocity` and position error `separation`.
    #[inline]
    pub(super) fn wanted(&self, velocity: &Vector, separation: &Vector, soft: &Softness) -> Vector {
        self.impulse
            - self.effective_mass * (velocity + separation * soft.bias_rate) * soft.mass_scale
            - self.impulse * soft.impulse_scale
    }
}

/// The point's mass matrix `K` at the start of the step.
pub(super) fn mass_matrix(frame: &JointFrame, a: &Motion, b: &Motion) -> Matrix3<Real> {
    Matrix3::identity() * (a.inv_mass + b.inv_mass)
        + lever(&frame.anchor_a, &a.inv_inertia)
        + lever(&frame.anchor_b, &b.inv_inertia)
}

/// `[r]x M [r]x^T` for a skew matrix `[r]x` (how an anchor's lever arm turns inverse inertia
/// into the point's inverse mass).
fn lever(r: &Vector, inv_inertia: &Matrix3<Real>) -> Matrix3<Real> {
    let s = r.cross_matrix();
    s * inv_inertia * s.transpose()
}

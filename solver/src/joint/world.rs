//! The constraints between a body and the world that game code reaches for: the attachment
//! (mouse drag), the upright spring and the velocity motors. Each is rows like every joint;
//! body A is the static world.
//!
//! - Attachment: the ball joint's rows ([`super::BallJoint`]) as a spring towards a world target
//!   that may move (its velocity is the rows' target, so the body does not lag behind it), with
//!   the total impulse capped at `max_force * h`, so that it cannot fling a heavy body.
//! - Upright: two angular rows perpendicular to a world axis `w`, with the body axis `u` (turned
//!   by the body's rotation since the step began): `C = -(u x w) · t_k`; a spring pulls `u` onto
//!   `w`, and rotation about `w` stays free.
//! - Motor: one row, linear or angular, whose target is a speed and whose impulse is bounded by
//!   `max_force * h` (a spring on velocity, Fiedler's "springs on velocity").

use super::{spring_softness, JointFrame};
use crate::body::Motion;
use crate::contact::tangents;
use crate::row::Row;
use crate::softness::{Spring, SpringSoftness};
use crate::{Real, Vector};

/// An upright spring's rows.
#[derive(Clone, Debug)]
pub struct UprightJoint {
    /// Rows about the two directions perpendicular to the world axis.
    pub rows: [Row; 2],
    axes: [Vector; 2],
    /// The body axis in world space at the start of the step.
    body_axis: Vector,
    world_axis: Vector,
    softness: [SpringSoftness; 2],
}

impl UprightJoint {
    /// Keeps `body_axis` (world, at the start of the step) on `world_axis` by `spring`.
    pub fn new(
        b: &Motion,
        body_axis: Vector,
        world_axis: Vector,
        spring: &Spring,
        h: Real,
        impulses: [Real; 2],
    ) -> Self {
        let world_axis = world_axis.try_normalize(1.0e-9).unwrap_or(Vector::y());
        let [t1, t2] = tangents(&world_axis);
        let axes = [t1, t2];
        let rows = [0, 1].map(|k| {
            let mut row = Row::new(Vector::zeros(), -axes[k], axes[k], &Motion::STATIC, b);
            row.impulse = impulses[k];
            row
        });
        let softness = rows.map(|row| spring_softness(spring, &row, h));
        UprightJoint {
            rows,
            axes,
            body_axis,
            world_axis,
            softness,
        }
    }

    /// Whether the spring fell back to implicit coefficients (too stiff to be exact).
    pub fn too_stiff(&self) -> bool {
        self.softness.iter().any(|s| s.limited)
    }

    pub(super) fn solve(&mut self, a: &mut Motion, b: &mut Motion, use_bias: bool) {
        let u = b.delta_rotation * self.body_axis;
        let error = u.cross(&self.world_axis);
        for (k, row) in self.rows.iter_mut().enumerate() {
            let c = -error.dot(&self.axes[k]);
            let soft = self.softness[k].pass(use_bias);
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

/// A velocity motor's row.
#[derive(Clone, Debug)]
pub struct MotorJoint {
    /// The row: along `axis` (linear) or about it (angular).
    pub row: Row,
    speed: Real,
    max_impulse: Real,
}

impl MotorJoint {
    /// Drives the body's velocity along (`angular: false`) or about (`angular: true`) the world
    /// `axis` towards `speed` (m/s or rad/s) with at most `max_force` (N or N m), at substep `h`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        axis: Vector,
        angular: bool,
        speed: Real,
        max_force: Real,
        h: Real,
        impulse: Real,
    ) -> Self {
        let axis = axis.try_normalize(1.0e-9).unwrap_or(Vector::y());
        let mut row = if angular {
            Row::new(Vector::zeros(), -axis, axis, a, b)
        } else {
            JointFrame::row(&axis, &frame.anchor_a, &frame.anchor_b, a, b, 0.0)
        };
        row.impulse = impulse;
        MotorJoint {
            row,
            speed,
            max_impulse: max_force * h,
        }
    }

    pub(super) fn solve(&mut self, a: &mut Motion, b: &mut Motion) {
        super::solve_motor(&mut self.row, a, b, self.speed, self.max_impulse);
    }
}

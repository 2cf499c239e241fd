//! The angular lock: B's orientation held relative to A's, `C = θ`, the rotation vector of
//! `q_b (q_a q_rel)^-1`, as three axis parts along the world axes (`J_k = [0, -e_k, 0, e_k]`).
//! The weld and the slider are built on it. Along world axes the Jacobian does not turn with
//! the bodies, so the parts are prepared once per step; the error is measured each pass on the
//! bodies' current orientation.

use super::axis::{AxisPart, AxisSettings, Hold};
use super::part::{Part, PassContext};
use crate::body::Motion;
use crate::row::Row;
use crate::softness::Spring;
use crate::{Quaternion, Real, Vector};

/// A row about `dir` (unit) between `a` and `b`: angular only.
pub(super) fn angular_row(dir: &Vector, a: &Motion, b: &Motion) -> Row {
    Row::new(Vector::zeros(), -dir, *dir, a, b)
}

/// An angular lock prepared for a step.
#[derive(Clone, Copy, Debug)]
pub struct AngularLock {
    /// About the world x, y and z axes.
    axes: [AxisPart; 3],
    /// B's orientation relative to A's to hold: `q_b = q_a relative`.
    relative: Quaternion,
    /// The bodies' orientations at the start of the step.
    start: (Quaternion, Quaternion),
}

impl AngularLock {
    /// The lock of B at `relative` to A, rigid or `spring` at substep `h`; `start` are the
    /// bodies' orientations now; `impulses` last step's, about x, y and z.
    pub fn new(
        (a, b): (&Motion, &Motion),
        relative: Quaternion,
        start: (Quaternion, Quaternion),
        (spring, h): (Option<&Spring>, Real),
        impulses: Vector,
    ) -> AngularLock {
        let axes = [0, 1, 2].map(|k| {
            let row = angular_row(&Vector::ith(k, 1.0), a, b);
            let settings = AxisSettings {
                hold: Some((0.0, Hold::of(spring, &row, h))),
                ..AxisSettings::default()
            };
            AxisPart::new(row, settings, [impulses[k], 0.0, 0.0, 0.0])
        });
        AngularLock {
            axes,
            relative,
            start,
        }
    }

    /// The lock of B at `relative` to A by the axis parts `axes` (about the world x, y and z
    /// axes: a drive's, [`super::OrientationDrive`]); `start` as for [`AngularLock::new`].
    pub fn of_parts(
        axes: [AxisPart; 3],
        relative: Quaternion,
        start: (Quaternion, Quaternion),
    ) -> AngularLock {
        AngularLock {
            axes,
            relative,
            start,
        }
    }

    /// The accumulated impulses about x, y and z (N m s).
    pub fn impulses(&self) -> Vector {
        Vector::from(self.axes.map(|axis| axis.total()))
    }

    /// One iteration.
    pub fn solve(&mut self, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        let q_a = a.delta_rotation * self.start.0;
        let q_b = b.delta_rotation * self.start.1;
        let error = (q_b * (q_a * self.relative).inverse()).scaled_axis();
        for (k, axis) in self.axes.iter_mut().enumerate() {
            axis.solve(a, b, error[k], pass);
        }
    }
}

impl Part for AngularLock {
    fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
        self.axes.warm_start(a, b);
    }

    fn reset(&mut self) {
        self.axes.reset();
    }

    fn too_stiff(&self) -> bool {
        self.axes.too_stiff()
    }
}

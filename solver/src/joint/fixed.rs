//! The fixed joint (weld): the point part and the angular lock. B's anchor stays on A's and
//! B's orientation relative to A's stays as it was set.

use super::{AngularLock, BallJoint, JointFrame, PassContext};
use crate::body::Motion;
use crate::softness::Spring;
use crate::step::StepContext;
use crate::{Quaternion, Real, Vector};

/// A weld prepared for a step.
#[derive(Clone, Debug)]
pub struct FixedJoint {
    /// The point part.
    pub point: BallJoint,
    /// The angular lock.
    lock: AngularLock,
}

impl FixedJoint {
    /// The weld holding B at `relative` to A (`start`: the bodies' orientations now), rigid or
    /// `spring`, in the step of `step`, carrying last step's `impulses` (point as a world
    /// vector, then about x, y and z).
    pub fn new(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        (relative, start): (Quaternion, (Quaternion, Quaternion)),
        spring: Option<Spring>,
        step: &StepContext,
        impulses: &[Real; 8],
    ) -> Self {
        let point = Vector::new(impulses[0], impulses[1], impulses[2]);
        let point = BallJoint::new(frame, a, b, spring, &step.joint, step.h, point);
        let angular = [impulses[3], impulses[4], impulses[5]];
        let lock = AngularLock::new((a, b), relative, start, (spring.as_ref(), step.h), angular);
        FixedJoint { point, lock }
    }

    /// The impulses to carry over: point (world vector), then about x, y and z.
    pub fn impulses(&self) -> [Real; 8] {
        let p = self.point.impulse();
        let [x, y, z] = self.lock.impulses();
        [p.x, p.y, p.z, x, y, z, 0.0, 0.0]
    }

    /// Whether a spring was too stiff at this substep to be exact.
    pub fn too_stiff(&self) -> bool {
        self.point.too_stiff() || self.lock.too_stiff()
    }

    /// Forgets the accumulated impulses (warm starting off).
    pub fn reset_impulses(&mut self) {
        self.point.reset_impulse();
        self.lock.reset();
    }

    /// Applies the accumulated impulses (warm starting).
    pub(super) fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
        self.point.warm_start_motions(a, b);
        self.lock.warm_start(a, b);
    }

    /// One iteration: the orientation, then the point.
    pub(super) fn solve(&mut self, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        self.lock.solve(a, b, pass);
        self.point.solve_motions(a, b, pass.use_bias);
    }
}

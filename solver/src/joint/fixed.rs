//! The fixed joint (weld): the point part and the angular lock. B's anchor stays on A's and
//! B's orientation relative to A's stays as it was set.

use super::angular::AngularLock;
use super::ball::BallJoint;
use super::drive::{orientation_drive, OrientationDrive};
use super::part::{impulses, Joint, JointFrame, Part, PassContext};
use crate::body::Motion;
use crate::softness::Spring;
use crate::step::StepContext;
use crate::{Quaternion, Real, Vector};

/// How a weld is set.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FixedSettings {
    /// B's orientation relative to A's to hold, `q_a^-1 q_b`.
    pub relative: Quaternion,
    /// A soft weld: a spring on position and orientation instead of rigid rows.
    pub spring: Option<Spring>,
    /// A drive towards an orientation relative to the held one (`q_b = q_a relative target`),
    /// in place of holding it rigidly (or by `spring`).
    pub drive: Option<OrientationDrive>,
}

impulses! {
    /// A weld's accumulated impulses.
    pub struct FixedImpulses {
        /// The point's (world, N s).
        pub point: Vector,
        /// The orientation's, about the world axes (N m s).
        pub angular: Vector,
    }
}

/// A weld prepared for a step.
#[derive(Clone, Debug)]
pub struct FixedJoint {
    /// The point part.
    pub point: BallJoint,
    /// The angular lock: rigid, a spring, or the drive.
    lock: AngularLock,
}

impl Joint for FixedJoint {
    type Settings = FixedSettings;
    type Impulses = FixedImpulses;

    fn prepare(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: &FixedSettings,
        step: &StepContext,
        carried: &FixedImpulses,
    ) -> Self {
        let spring = settings.spring;
        let point = BallJoint::new(frame, a, b, spring, &step.joint, step.h, carried.point);
        let (relative, start) = (settings.relative, frame.rotations);
        let lock = match &settings.drive {
            None => {
                let soft = (spring.as_ref(), step.h);
                AngularLock::new((a, b), relative, start, soft, carried.angular)
            }
            Some(drive) => {
                let frames = (start.0 * relative, start.1);
                let (h, carried) = (step.h, carried.angular);
                orientation_drive(frame, (a, b), frames, drive, h, carried)
            }
        };
        FixedJoint { point, lock }
    }

    fn parts(&mut self) -> impl Part + '_ {
        (&mut self.point, &mut self.lock)
    }

    /// The orientation, then the point.
    fn solve(&mut self, _: &JointFrame, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        self.lock.solve(a, b, pass);
        self.point.solve_motions(a, b, pass.use_bias, 0.0);
    }

    fn impulses(&self) -> FixedImpulses {
        FixedImpulses {
            point: self.point.impulse(),
            angular: self.lock.impulses(),
        }
    }

    fn load(&self) -> Real {
        self.point.impulse().norm()
    }
}

//! What happened in a step that the user may want to react to, collected in a list that the
//! user drains (not callbacks that borrow the world).

use parry3d::math::Real;

use crate::handle::BodyHandle;
use crate::joint::JointHandle;

/// One thing that happened during a step.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A joint held with more than its breaking force and was removed.
    JointBroken {
        /// The removed joint (now stale).
        joint: JointHandle,
        /// The bodies it joined.
        bodies: (BodyHandle, BodyHandle),
        /// The force (N, or torque N m) it broke at.
        load: Real,
    },
    /// A body fell asleep with its island: it is not simulated until something wakes it.
    BodyFellAsleep(BodyHandle),
    /// A sleeping body woke (touched by an awake body, joined, or changed by the user).
    BodyWoke(BodyHandle),
}

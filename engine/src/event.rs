//! What happened in a step that the user may want to react to, collected in a list that the
//! user drains (not callbacks that borrow the world).

use parry3d::math::Real;

use crate::handle::{BodyHandle, ColliderHandle, JointHandle};

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
    /// Two colliders began to touch.
    ContactBegan {
        /// The two colliders.
        colliders: (ColliderHandle, ColliderHandle),
        /// Their bodies, in the same order.
        bodies: (BodyHandle, BodyHandle),
        /// The largest normal impulse (N s) a contact point took in one substep of the step
        /// it began: how hard the hit was.
        impulse: Real,
    },
    /// Two colliders stopped touching (or their boxes parted). Not reported when a collider
    /// is removed.
    ContactEnded {
        /// The two colliders.
        colliders: (ColliderHandle, ColliderHandle),
        /// Their bodies, in the same order.
        bodies: (BodyHandle, BodyHandle),
        /// The largest normal impulse (N s) a point took in one substep while they touched.
        max_impulse: Real,
    },
    /// A collider began to overlap a sensor.
    SensorEntered {
        /// The sensor.
        sensor: ColliderHandle,
        /// The collider that entered it.
        other: ColliderHandle,
        /// That collider's body.
        body: BodyHandle,
    },
    /// A collider stopped overlapping a sensor.
    SensorLeft {
        /// The sensor.
        sensor: ColliderHandle,
        /// The collider that left it.
        other: ColliderHandle,
        /// That collider's body.
        body: BodyHandle,
    },
    /// A body fell asleep with its island: it is not simulated until something wakes it.
    BodyFellAsleep(BodyHandle),
    /// A sleeping body woke (touched by an awake body, joined, or changed by the user).
    BodyWoke(BodyHandle),
    /// A body's state stopped being finite or passed a speed limit during a step: the step put
    /// it aside, frozen, before it could reach another body (see
    /// [`crate::RigidBody::is_quarantined`]).
    BodyQuarantined(BodyHandle),
}

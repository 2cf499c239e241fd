//! The world's ragdolls: adding one from its description (bodies, colliders, joints), removing
//! it, driving it towards a pose and reading the pose it is in. What a ragdoll is:
//! `crate::ragdoll`.

use parry3d::math::{Isometry, Real, Rotation};
use sprung_solver::softness::Spring;

use super::World;
use crate::body::RigidBodyBuilder;
use crate::collider::ColliderBuilder;
use crate::error::Error;
use crate::joint::{frame_of, Drive, JointBuilder, OrientationDrive};
use crate::limits;
use crate::ragdoll::{
    part_pose, Ragdoll, RagdollBuilder, RagdollHandle, RagdollJoint, RagdollPose,
};

impl World {
    /// Adds a ragdoll at `at` (its frame's pose in the world): a body and a capsule per part,
    /// a joint per part but the root. Refused whole (nothing added) if any part is.
    pub fn add_ragdoll(
        &mut self,
        builder: &RagdollBuilder,
        at: Isometry<Real>,
    ) -> Result<RagdollHandle, Error> {
        builder.check()?;
        let at = limits::pose("ragdoll pose", "ragdoll rotation", &at)?;
        let mut ragdoll = Ragdoll {
            parts: builder.parts.clone(),
            bodies: Vec::with_capacity(builder.parts.len()),
            joints: Vec::with_capacity(builder.parts.len()),
        };
        if let Err(error) = self.build_ragdoll(builder, &at, &mut ragdoll) {
            for &body in &ragdoll.bodies {
                let _ = self.remove_body(body);
            }
            return Err(error);
        }
        Ok(self.ragdolls.insert(ragdoll))
    }

    /// The bodies and joints of `ragdoll`, added one by one (the caller removes them if one is
    /// refused).
    fn build_ragdoll(
        &mut self,
        builder: &RagdollBuilder,
        at: &Isometry<Real>,
        ragdoll: &mut Ragdoll,
    ) -> Result<(), Error> {
        let masses = builder.masses();
        for (part, (mass, inertia)) in builder.parts.iter().zip(masses) {
            let pose = part_pose(at, part);
            let body = RigidBodyBuilder::dynamic()
                .pose(pose)
                .mass_properties(mass, inertia);
            let body = self.add_body(body)?;
            ragdoll.bodies.push(body);
            let capsule = ColliderBuilder::capsule(part.half_height, part.radius);
            self.add_collider(capsule, body)?;
        }
        for (i, part) in builder.parts.iter().enumerate() {
            let (Some(parent), Some(joint)) = (part.parent, part.joint) else {
                ragdoll.joints.push(None);
                continue;
            };
            let (a, b) = (ragdoll.bodies[parent], ragdoll.bodies[i]);
            let pose_a = self.body(a).ok_or(Error::StaleHandle)?.pose;
            let pose_b = self.body(b).ok_or(Error::StaleHandle)?.pose;
            let anchor = at * joint.anchor();
            let (anchor_a, anchor_b) = (pose_a.inverse() * anchor, pose_b.inverse() * anchor);
            // Axes from the ragdoll's frame into A's.
            let into_a = |v| pose_a.rotation.inverse() * (at.rotation * v);
            let joint = match joint {
                RagdollJoint::SwingTwist {
                    twist_axis,
                    plane_axis,
                    swing,
                    twist,
                    ..
                } => JointBuilder::swing_twist(
                    anchor_a,
                    anchor_b,
                    into_a(twist_axis),
                    into_a(plane_axis),
                )
                .swing_limits(swing.0, swing.1)
                .twist_limits(twist.0, twist.1)
                .friction(builder.joint_friction),
                RagdollJoint::Hinge { axis, limits, .. } => {
                    let axis_b = pose_b.rotation.inverse() * (at.rotation * axis);
                    JointBuilder::hinge(anchor_a, anchor_b, into_a(axis), axis_b)
                        .angle_limits(limits.0, limits.1)
                }
            };
            ragdoll.joints.push(Some(self.add_joint(joint, a, b)?));
        }
        Ok(())
    }

    /// Removes a ragdoll and its bodies (with their colliders and joints).
    pub fn remove_ragdoll(&mut self, handle: RagdollHandle) -> Result<Ragdoll, Error> {
        let ragdoll = self.ragdolls.remove(handle).ok_or(Error::StaleHandle)?;
        for &body in &ragdoll.bodies {
            self.remove_body(body)?;
        }
        Ok(ragdoll)
    }

    /// A ragdoll.
    pub fn ragdoll(&self, handle: RagdollHandle) -> Option<&Ragdoll> {
        self.ragdolls.get(handle)
    }

    /// Drives every joint of a ragdoll towards `pose` (each part's turn relative to its parent,
    /// in the ragdoll's frame at the bind pose: [`RagdollPose`]) by `spring` with at most
    /// `max_torque` (N m) per joint and axis, or lets it go limp (`None`). Wakes it.
    pub fn drive_ragdoll(
        &mut self,
        handle: RagdollHandle,
        drive: Option<(&RagdollPose, Spring, Real)>,
    ) -> Result<(), Error> {
        let ragdoll = self.ragdolls.get(handle).ok_or(Error::StaleHandle)?;
        if let Some((pose, _, _)) = drive {
            if pose.targets.len() != ragdoll.parts.len() {
                return Err(Error::OutOfRange("ragdoll pose: one target per part"));
            }
        }
        let ragdoll = ragdoll.clone();
        for (i, part) in ragdoll.parts.iter().enumerate() {
            let (Some(joint), Some(kind)) = (ragdoll.joints[i], part.joint) else {
                continue;
            };
            match kind {
                RagdollJoint::SwingTwist {
                    twist_axis,
                    plane_axis,
                    ..
                } => {
                    let frame = frame_of(&twist_axis, &plane_axis).unwrap_or_default();
                    let drive = drive.map(|(pose, spring, max_torque)| OrientationDrive {
                        target: frame.inverse() * pose.targets[i] * frame,
                        spring,
                        max_torque,
                    });
                    self.set_joint_orientation_drive(joint, drive)?;
                }
                RagdollJoint::Hinge { axis, .. } => {
                    let drive = drive.map(|(pose, spring, max_force)| Drive {
                        target: pose.targets[i].scaled_axis().dot(&axis.normalize()),
                        spring,
                        max_force,
                    });
                    self.set_joint_drive(joint, drive)?;
                }
            }
        }
        Ok(())
    }

    /// The pose a ragdoll is in now, as [`World::drive_ragdoll`] takes it (each part's turn
    /// relative to its parent, in the ragdoll's frame at the bind pose; the root's identity).
    pub fn ragdoll_pose(&self, handle: RagdollHandle) -> Result<RagdollPose, Error> {
        let ragdoll = self.ragdolls.get(handle).ok_or(Error::StaleHandle)?;
        let mut pose = RagdollPose::bind(ragdoll.parts.len());
        for (i, part) in ragdoll.parts.iter().enumerate() {
            let (Some(joint), Some(kind)) = (ragdoll.joints[i], part.joint) else {
                continue;
            };
            pose.targets[i] = match kind {
                RagdollJoint::SwingTwist {
                    twist_axis,
                    plane_axis,
                    ..
                } => {
                    let frame = frame_of(&twist_axis, &plane_axis).unwrap_or_default();
                    frame * self.joint_orientation(joint)? * frame.inverse()
                }
                RagdollJoint::Hinge { axis, .. } => {
                    let angle = self.joint_position(joint)?;
                    Rotation::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle)
                }
            };
        }
        Ok(pose)
    }
}

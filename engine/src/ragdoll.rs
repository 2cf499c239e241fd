//! Ragdolls: a skeleton of capsules joined by swing-twist joints and hinges, built from a
//! description (parents, bind pose, shapes, limits), made steady where its masses differ, and
//! driven towards a pose.
//!
//! A ragdoll is bodies and joints like any other: parent and child do not collide (their
//! joint says so), the joints hold their limits, and since its joints join its bodies into one
//! island it falls asleep as a whole. What the ragdoll adds is the build and the pose.
//!
//! **Stabilisation** (Jolt's `RagdollSettings::Stabilize`, our own code). A human's torso
//! weighs some forty hands: Gauss-Seidel passes a load between bodies of such ratios slowly,
//! and a light body between heavy ones is shaken by them. With
//! [`RagdollBuilder::stabilise`] on (the default), two things change before the bodies are
//! made, the total mass kept: each child's mass is held within [`RagdollBuilder::mass_ratio`]
//! of its parent's (walking from the root down, then every mass scaled back to the total), and
//! each part's inertia is raised, axis by axis, to at least that of its children's masses as
//! points at their joints (a light parent swung by heavy children turns as if it carried
//! them).
//!
//! ```
//! use sprung::{ColliderBuilder, RagdollBuilder, RigidBodyBuilder, World};
//! use sprung::math::{Isometry, Vector};
//!
//! let mut world = World::default();
//! let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
//! world.add_collider(ColliderBuilder::halfspace(Vector::y()), ground).unwrap();
//! // A humanoid of 15 capsules, standing 2 m up, falls to the ground and lies still.
//! let at = Isometry::translation(0.0, 2.0, 0.0);
//! let ragdoll = world.add_ragdoll(&RagdollBuilder::humanoid(), at).unwrap();
//! for _ in 0..300 {
//!     world.step(1.0 / 60.0).unwrap();
//! }
//! assert_eq!(world.ragdoll(ragdoll).unwrap().bodies().len(), 15);
//! ```

use parry3d::math::{Isometry, Point, Real, Rotation, Vector};

use crate::error::{finite, Error};
pub use crate::handle::RagdollHandle;
use crate::handle::{BodyHandle, JointHandle};
use crate::limits;

/// How a part hangs on its parent, in the ragdoll's frame at its bind pose.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RagdollJoint {
    /// Shoulders, hips, spine, neck, wrists, ankles: a swing-twist joint at `anchor` whose
    /// twist axis is `twist_axis` and whose cone's first half angle is about `plane_axis`,
    /// with the cone's half angles `swing` and the twist's limits `twist` (rad).
    SwingTwist {
        /// The joint's place.
        anchor: Point<Real>,
        /// The twist axis (the child's length, usually).
        twist_axis: Vector<Real>,
        /// The axis the cone's first half angle is about.
        plane_axis: Vector<Real>,
        /// The cone's half angles about `plane_axis` and about the axis square to both.
        swing: (Real, Real),
        /// Lower and upper twist.
        twist: (Real, Real),
    },
    /// Elbows and knees: a hinge at `anchor` about `axis` within `limits` (rad, zero at the
    /// bind pose, positive turning the child about `axis` by the right hand).
    Hinge {
        /// The joint's place.
        anchor: Point<Real>,
        /// The hinge axis.
        axis: Vector<Real>,
        /// Lower and upper angle.
        limits: (Real, Real),
    },
}

impl RagdollJoint {
    /// Where the joint is (ragdoll's frame, bind pose).
    pub fn anchor(&self) -> Point<Real> {
        match self {
            RagdollJoint::SwingTwist { anchor, .. } | RagdollJoint::Hinge { anchor, .. } => *anchor,
        }
    }
}

/// One part: a capsule and how it hangs on its parent.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RagdollPart {
    /// Its name (for users' lookups: "pelvis", "left_forearm").
    pub name: String,
    /// Its parent's index in the parts (which come after their parents); `None` for the root.
    pub parent: Option<usize>,
    /// The capsule's centre (ragdoll's frame, bind pose).
    pub center: Point<Real>,
    /// The capsule's axis (unit, ragdoll's frame).
    pub axis: Vector<Real>,
    /// Half the length of the capsule's segment (m).
    pub half_height: Real,
    /// The capsule's radius (m).
    pub radius: Real,
    /// Density (kg/m^3).
    pub density: Real,
    /// The joint to its parent (ignored for the root).
    pub joint: Option<RagdollJoint>,
}

/// A ragdoll's description: its parts, in order from the root, and how it is made.
#[derive(Clone, Debug, PartialEq)]
pub struct RagdollBuilder {
    /// The parts, parents first.
    pub parts: Vec<RagdollPart>,
    /// Whether masses and inertias are made steady (see the module's doc); on by default.
    pub stabilise: bool,
    /// The largest ratio between a part's mass and its parent's that stabilisation keeps
    /// (default 2).
    pub mass_ratio: Real,
    /// Friction torque in every swing-twist joint (N m), a ragdoll's muscle tone when limp.
    pub joint_friction: Real,
}

/// A ragdoll in a world: its bodies and joints, by part.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ragdoll {
    pub(crate) parts: Vec<RagdollPart>,
    pub(crate) bodies: Vec<BodyHandle>,
    /// Each part's joint to its parent (`None` for the root).
    pub(crate) joints: Vec<Option<JointHandle>>,
}

impl Ragdoll {
    /// Its bodies, one per part, in the parts' order.
    pub fn bodies(&self) -> &[BodyHandle] {
        &self.bodies
    }

    /// Each part's joint to its parent (`None` for the root).
    pub fn joints(&self) -> &[Option<JointHandle>] {
        &self.joints
    }

    /// The parts it was built from.
    pub fn parts(&self) -> &[RagdollPart] {
        &self.parts
    }

    /// The index of the part named `name`.
    pub fn part(&self, name: &str) -> Option<usize> {
        self.parts.iter().position(|p| p.name == name)
    }
}

/// A pose to drive a ragdoll towards: for each part, its joint's target, as the joint frames'
/// relative orientation (identity: the bind pose; a hinge takes the turn about its axis).
#[derive(Clone, Debug, PartialEq)]
pub struct RagdollPose {
    /// One target per part (the root's is not read).
    pub targets: Vec<Rotation<Real>>,
}

impl RagdollPose {
    /// The bind pose of a ragdoll of `parts` parts.
    pub fn bind(parts: usize) -> RagdollPose {
        RagdollPose {
            targets: vec![Rotation::identity(); parts],
        }
    }
}

/// The mass (kg) and principal inertia (kg m^2, about the capsule's centre; y along its axis)
/// of a capsule of `half_height`, `radius` and `density`.
pub fn capsule_mass(half_height: Real, radius: Real, density: Real) -> (Real, Vector<Real>) {
    use std::f32::consts::PI;
    let (h, r) = (2.0 * half_height, radius);
    let cylinder = density * PI * r * r * h;
    let hemisphere = density * 2.0 / 3.0 * PI * r * r * r;
    let axial = cylinder * r * r / 2.0 + 2.0 * hemisphere * 2.0 * r * r / 5.0;
    let across = cylinder * (h * h / 12.0 + r * r / 4.0)
        + 2.0 * hemisphere * (2.0 * r * r / 5.0 + h * h / 4.0 + 3.0 * h * r / 8.0);
    (
        cylinder + 2.0 * hemisphere,
        Vector::new(across, axial, across),
    )
}

/// The rotation taking y onto `axis` (unit), for a capsule's body.
pub(crate) fn capsule_rotation(axis: &Vector<Real>) -> Rotation<Real> {
    Rotation::rotation_between(&Vector::y(), axis)
        .unwrap_or_else(|| Rotation::from_axis_angle(&Vector::x_axis(), std::f32::consts::PI))
}

/// The humanoid's joint friction (N m): see [`RagdollBuilder::humanoid`].
const HUMANOID_JOINT_FRICTION: Real = 0.5;

impl RagdollBuilder {
    /// A ragdoll of `parts` (parents first), stabilised, with no joint friction.
    pub fn new(parts: Vec<RagdollPart>) -> RagdollBuilder {
        RagdollBuilder {
            parts,
            stabilise: true,
            mass_ratio: 2.0,
            joint_friction: 0.0,
        }
    }

    /// A humanoid of 15 capsules, 1.8 m tall, standing on y = 0 and facing +z, arms down:
    /// pelvis, chest, head, and left and right upper arm, forearm, hand, thigh, shin and foot.
    /// Spine, neck, shoulders, wrists, hips and ankles are swing-twist joints, elbows and knees
    /// hinges. Density 1,000 kg/m^3 gives 73 kg, the chest 44 times the mass of a hand.
    ///
    /// Its swing-twist joints have 0.5 N m of friction, as real joints have some: without it
    /// a limb that comes to rest between two supports (an arm lying straight from the
    /// shoulder to a hand on the ground) swings about the line between them as a pendulum
    /// nothing damps, and the ragdoll never sleeps (four of ten drops in the tests); with 0.2
    /// or 0.3 N m an arm could still swing for 9 to 11 s. With 0.5, thirty drops (five
    /// orientations, six heights) all sleep within 3.7 s. The price: a hand (about 0.3 N m of
    /// weight about its wrist) stays as it lands instead of drooping; set
    /// [`RagdollBuilder::joint_friction`] lower for floppier limbs.
    pub fn humanoid() -> RagdollBuilder {
        let deg = |d: Real| d.to_radians();
        let mut parts = Vec::new();
        let mut part = |name: &str,
                        parent: Option<usize>,
                        (center, axis): (Point<Real>, Vector<Real>),
                        (half_height, radius): (Real, Real),
                        joint: Option<RagdollJoint>| {
            parts.push(RagdollPart {
                name: name.to_string(),
                parent,
                center,
                axis,
                half_height,
                radius,
                density: 1000.0,
                joint,
            });
            parts.len() - 1
        };
        let (up, down, side, forward) = (Vector::y(), -Vector::y(), Vector::x(), Vector::z());
        let swing = |anchor, twist_axis, plane_axis, swing, twist| {
            Some(RagdollJoint::SwingTwist {
                anchor,
                twist_axis,
                plane_axis,
                swing,
                twist,
            })
        };
        let hinge = |anchor, axis, limits| {
            Some(RagdollJoint::Hinge {
                anchor,
                axis,
                limits,
            })
        };
        let pelvis = part(
            "pelvis",
            None,
            (Point::new(0.0, 1.0, 0.0), side),
            (0.1, 0.1),
            None,
        );
        let chest = part(
            "chest",
            Some(pelvis),
            (Point::new(0.0, 1.35, 0.0), up),
            (0.12, 0.14),
            swing(
                Point::new(0.0, 1.12, 0.0),
                up,
                side,
                (deg(30.0), deg(20.0)),
                (deg(-25.0), deg(25.0)),
            ),
        );
        part(
            "head",
            Some(chest),
            (Point::new(0.0, 1.72, 0.0), up),
            (0.05, 0.1),
            swing(
                Point::new(0.0, 1.6, 0.0),
                up,
                side,
                (deg(40.0), deg(30.0)),
                (deg(-60.0), deg(60.0)),
            ),
        );
        for (name, x) in [("left", 0.27), ("right", -0.27)] {
            let upper = part(
                &format!("{name}_upper_arm"),
                Some(chest),
                (Point::new(x, 1.33, 0.0), down),
                (0.1, 0.05),
                swing(
                    Point::new(x, 1.48, 0.0),
                    down,
                    forward,
                    (deg(70.0), deg(80.0)),
                    (deg(-60.0), deg(60.0)),
                ),
            );
            let forearm = part(
                &format!("{name}_forearm"),
                Some(upper),
                (Point::new(x, 1.05, 0.0), down),
                (0.09, 0.045),
                hinge(Point::new(x, 1.18, 0.0), side, (deg(-140.0), 0.0)),
            );
            part(
                &format!("{name}_hand"),
                Some(forearm),
                (Point::new(x, 0.87, 0.0), down),
                (0.04, 0.038),
                swing(
                    Point::new(x, 0.92, 0.0),
                    down,
                    forward,
                    (deg(60.0), deg(30.0)),
                    (deg(-30.0), deg(30.0)),
                ),
            );
        }
        for (name, x) in [("left", 0.1), ("right", -0.1)] {
            let thigh = part(
                &format!("{name}_thigh"),
                Some(pelvis),
                (Point::new(x, 0.72, 0.0), down),
                (0.14, 0.07),
                swing(
                    Point::new(x, 0.92, 0.0),
                    down,
                    side,
                    (deg(60.0), deg(30.0)),
                    (deg(-30.0), deg(30.0)),
                ),
            );
            let shin = part(
                &format!("{name}_shin"),
                Some(thigh),
                (Point::new(x, 0.3, 0.0), down),
                (0.15, 0.055),
                hinge(Point::new(x, 0.5, 0.0), side, (0.0, deg(140.0))),
            );
            part(
                &format!("{name}_foot"),
                Some(shin),
                (Point::new(x, 0.05, 0.07), forward),
                (0.06, 0.045),
                swing(
                    Point::new(x, 0.08, 0.0),
                    down,
                    side,
                    (deg(30.0), deg(15.0)),
                    (deg(-15.0), deg(15.0)),
                ),
            );
        }
        RagdollBuilder::new(parts).joint_friction(HUMANOID_JOINT_FRICTION)
    }

    /// Turns stabilisation on or off.
    pub fn stabilise(mut self, on: bool) -> Self {
        self.stabilise = on;
        self
    }

    /// Every part's density (kg/m^3), to make a heavier or lighter ragdoll, or with
    /// [`RagdollBuilder::part_density`], a lopsided one.
    pub fn density(mut self, density: Real) -> Self {
        self.parts.iter_mut().for_each(|p| p.density = density);
        self
    }

    /// One part's density (kg/m^3).
    pub fn part_density(mut self, name: &str, density: Real) -> Self {
        if let Some(p) = self.parts.iter_mut().find(|p| p.name == name) {
            p.density = density;
        }
        self
    }

    /// Friction torque in every swing-twist joint (N m).
    pub fn joint_friction(mut self, torque: Real) -> Self {
        self.joint_friction = torque;
        self
    }

    /// Whether the description can be built: parents before children, one root first, finite
    /// positions within range, unit axes not zero, positive sizes and densities, limits in range.
    pub(crate) fn check(&self) -> Result<(), Error> {
        if self.parts.is_empty() || self.parts[0].parent.is_some() {
            return Err(Error::OutOfRange(
                "ragdoll: the first part is the root, with no parent",
            ));
        }
        if self.parts.len() > MAX_PARTS {
            return Err(Error::OutOfRange("ragdoll: at most 256 parts"));
        }
        finite(
            "ragdoll mass ratio",
            &[self.mass_ratio, self.joint_friction],
        )?;
        if self.mass_ratio < 1.0
            || self.joint_friction < 0.0
            || self.joint_friction > limits::MAX_FORCE
        {
            return Err(Error::OutOfRange(
                "ragdoll: mass ratio at least 1, friction 0 to 1e15",
            ));
        }
        for (i, p) in self.parts.iter().enumerate() {
            if i > 0 && p.parent.is_none_or(|parent| parent >= i) {
                return Err(Error::OutOfRange(
                    "ragdoll: each part's parent comes before it",
                ));
            }
            limits::position("ragdoll part", &p.center.coords)?;
            limits::axis("ragdoll part axis", &p.axis)?;
            finite("ragdoll part size", &[p.half_height, p.radius, p.density])?;
            if p.half_height < 0.0 || p.radius <= 0.0 || p.density <= 0.0 {
                return Err(Error::NonPositive("ragdoll part size or density"));
            }
            if i > 0 && p.joint.is_none() {
                return Err(Error::OutOfRange(
                    "ragdoll: every part but the root has a joint",
                ));
            }
            if let Some(joint) = &p.joint {
                limits::position("ragdoll joint", &joint.anchor().coords)?;
            }
        }
        Ok(())
    }

    /// Each part's mass and principal inertia (about its centre; y along its capsule),
    /// stabilised if asked.
    pub(crate) fn masses(&self) -> Vec<(Real, Vector<Real>)> {
        let mut masses: Vec<(Real, Vector<Real>)> = self
            .parts
            .iter()
            .map(|p| capsule_mass(p.half_height, p.radius, p.density))
            .collect();
        if !self.stabilise {
            return masses;
        }
        let total: Real = masses.iter().map(|(m, _)| m).sum();
        // Each child within the ratio of its parent (parents first, so a chain follows its
        // root), its inertia scaled with it (the same shape, another density).
        for i in 1..masses.len() {
            let Some(parent) = self.parts[i].parent else {
                continue;
            };
            let (m, inertia) = masses[i];
            let within = m.clamp(
                masses[parent].0 / self.mass_ratio,
                masses[parent].0 * self.mass_ratio,
            );
            masses[i] = (within, inertia * (within / m));
        }
        let scale = total / masses.iter().map(|(m, _)| m).sum::<Real>();
        for (m, inertia) in &mut masses {
            *m *= scale;
            *inertia *= scale;
        }
        // Each part's inertia at least its children's masses' as points at their joints.
        for i in 0..masses.len() {
            let rotation = capsule_rotation(&self.parts[i].axis);
            let mut points = nalgebra::Matrix3::zeros();
            for (c, child) in self.parts.iter().enumerate() {
                if child.parent != Some(i) {
                    continue;
                }
                let Some(joint) = &child.joint else {
                    continue;
                };
                // The joint from the part's centre, in the part's (capsule's) frame.
                let r = rotation.inverse() * (joint.anchor() - self.parts[i].center);
                points += (nalgebra::Matrix3::identity() * r.norm_squared() - r * r.transpose())
                    * masses[c].0;
            }
            let inertia = &mut masses[i].1;
            for k in 0..3 {
                inertia[k] = inertia[k].max(points[(k, k)]);
            }
        }
        masses
    }
}

/// The most parts a ragdoll may have.
pub const MAX_PARTS: usize = 256;

/// The ragdoll's bodies' poses at `at`: each capsule's centre, its y along the part's axis.
pub(crate) fn part_pose(at: &Isometry<Real>, part: &RagdollPart) -> Isometry<Real> {
    let rotation = capsule_rotation(&part.axis.normalize());
    at * Isometry::from_parts(part.center.coords.into(), rotation)
}

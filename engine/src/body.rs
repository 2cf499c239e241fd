//! Rigid bodies and their builder.

use parry3d::math::{Isometry, Point, Real, Rotation, Vector};
use smallvec::SmallVec;

use crate::error::{finite, Error};
use crate::handle::ColliderHandle;
use crate::limits;

/// How a body moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BodyKind {
    /// Moved by gravity, forces and contacts.
    Dynamic,
    /// Moved only by its velocity or a target pose; pushes dynamic bodies, is not pushed.
    Kinematic,
    /// Never moves.
    Static,
}

/// A rigid body of a [`crate::World`]: its pose, velocities, mass and the forces on it.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RigidBody {
    pub(crate) kind: BodyKind,
    pub(crate) pose: Isometry<Real>,
    pub(crate) previous_pose: Isometry<Real>,
    pub(crate) linear_velocity: Vector<Real>,
    pub(crate) angular_velocity: Vector<Real>,
    pub(crate) force: Vector<Real>,
    pub(crate) torque: Vector<Real>,
    pub(crate) linear_damping: Real,
    pub(crate) angular_damping: Real,
    pub(crate) gravity_scale: Real,
    pub(crate) mass: Mass,
    /// Mass set by hand: colliders then do not change it.
    pub(crate) fixed_mass: bool,
    pub(crate) colliders: SmallVec<[ColliderHandle; 1]>,
    pub(crate) kinematic_target: Option<Isometry<Real>>,
    /// Index into the step's solver bodies (u32::MAX when not in the solver).
    pub(crate) solver_index: u32,
    /// Whether this body may fall asleep with its island.
    pub(crate) can_sleep: bool,
    /// Swept against every other body, not just static ones, whatever its speed.
    pub(crate) bullet: bool,
    /// How long (s) it has been slow: an island sleeps when all its bodies have been slow for
    /// the world's `time_to_sleep`.
    pub(crate) slow_time: Real,
    /// The sleeping island it belongs to (an index into the world's list), if asleep.
    pub(crate) island: Option<u32>,
    /// Put aside by the step after its state stopped being finite or passed a speed limit:
    /// frozen where the step began, until [`crate::World::set_pose`] releases it.
    pub(crate) quarantined: bool,
}

/// Mass, centre of mass and principal inertia.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Mass {
    /// Mass (kg).
    pub mass: Real,
    /// Centre of mass in the body's frame.
    pub local_center: Point<Real>,
    /// Principal moments of inertia (kg m^2).
    pub principal_inertia: Vector<Real>,
    /// Orientation of the principal axes in the body's frame.
    pub principal_frame: Rotation<Real>,
}

impl Mass {
    /// What a dynamic body without colliders or a mass of its own gets: 1 kg, unit inertia.
    pub const UNIT: Mass = Mass {
        mass: 1.0,
        local_center: Point::new(0.0, 0.0, 0.0),
        principal_inertia: Vector::new(1.0, 1.0, 1.0),
        principal_frame: Rotation::new_unchecked(nalgebra::Quaternion::new(1.0, 0.0, 0.0, 0.0)),
    };
}

impl RigidBody {
    /// True while the body sleeps: it is not simulated until something wakes its island.
    pub fn is_sleeping(&self) -> bool {
        self.island.is_some()
    }

    /// True for a bullet (see [`RigidBodyBuilder::bullet`]).
    /// Whether the step put this body aside: its velocity or pose stopped being finite, or it
    /// passed [`crate::limits::MAX_LINEAR_SPEED`] or [`crate::limits::MAX_ANGULAR_SPEED`]. It
    /// stays frozen where the step that diverged began (others collide with it as with a
    /// static body) until [`crate::World::set_pose`] moves it.
    pub fn is_quarantined(&self) -> bool {
        self.quarantined
    }

    /// Static, asleep or quarantined: the step neither moves it nor solves for it.
    pub(crate) fn is_resting(&self) -> bool {
        self.kind == BodyKind::Static || self.is_sleeping() || self.quarantined
    }

    pub fn is_bullet(&self) -> bool {
        self.bullet
    }

    /// Dynamic, kinematic or static.
    pub fn kind(&self) -> BodyKind {
        self.kind
    }
    /// Pose of the body's origin (world).
    pub fn pose(&self) -> &Isometry<Real> {
        &self.pose
    }
    /// Position of the body's origin (world).
    pub fn translation(&self) -> Vector<Real> {
        self.pose.translation.vector
    }
    /// Velocity of the centre of mass (m/s).
    pub fn linear_velocity(&self) -> Vector<Real> {
        self.linear_velocity
    }
    /// Angular velocity (rad/s).
    pub fn angular_velocity(&self) -> Vector<Real> {
        self.angular_velocity
    }
    /// Mass properties.
    pub fn mass(&self) -> &Mass {
        &self.mass
    }
    /// Centre of mass (world).
    pub fn center_of_mass(&self) -> Point<Real> {
        self.pose * self.mass.local_center
    }
    /// The colliders attached to this body.
    pub fn colliders(&self) -> &[ColliderHandle] {
        &self.colliders
    }
    /// Inertia tensor about the centre of mass (world).
    pub fn world_inertia(&self) -> nalgebra::Matrix3<Real> {
        let r = (self.pose.rotation * self.mass.principal_frame).to_rotation_matrix();
        r.matrix()
            * nalgebra::Matrix3::from_diagonal(&self.mass.principal_inertia)
            * r.matrix().transpose()
    }
}

/// Builds a [`RigidBody`]; [`crate::World::add_body`] checks it.
///
/// ```
/// use sprung::{RigidBodyBuilder, World};
/// use sprung::math::Vector;
///
/// let mut world = World::default();
/// let body = world
///     .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 2.0, 0.0)).linear_damping(0.1))
///     .unwrap();
/// assert_eq!(world.body(body).unwrap().translation().y, 2.0);
/// ```
#[derive(Clone, Debug)]
pub struct RigidBodyBuilder {
    kind: BodyKind,
    pose: Isometry<Real>,
    linear_velocity: Vector<Real>,
    angular_velocity: Vector<Real>,
    linear_damping: Real,
    angular_damping: Real,
    gravity_scale: Real,
    mass: Option<Mass>,
    can_sleep: bool,
    bullet: bool,
}

impl RigidBody {
    /// Whether a body read from bytes (a snapshot) holds what `RigidBodyBuilder` would have let
    /// through, and finite values in the fields the step keeps.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) fn check(&self) -> Result<(), Error> {
        let builder = RigidBodyBuilder {
            kind: self.kind,
            pose: self.pose,
            linear_velocity: self.linear_velocity,
            angular_velocity: self.angular_velocity,
            linear_damping: self.linear_damping,
            angular_damping: self.angular_damping,
            gravity_scale: self.gravity_scale,
            mass: Some(self.mass),
            can_sleep: self.can_sleep,
            bullet: self.bullet,
        };
        builder.build()?;
        limits::pose("body pose", "body rotation", &self.previous_pose)?;
        limits::rotation("mass frame", &self.mass.principal_frame)?;
        limits::position("centre of mass", &self.mass.local_center.coords)?;
        limits::force("force", &self.force)?;
        limits::force("torque", &self.torque)?;
        if let Some(target) = &self.kinematic_target {
            limits::pose("kinematic target", "kinematic target rotation", target)?;
        }
        if !(self.slow_time.is_finite() && self.slow_time >= 0.0) {
            return Err(Error::NonFinite("sleep timer"));
        }
        // The stored rotations are used as they are: they must already be unit.
        for q in [&self.pose.rotation, &self.previous_pose.rotation] {
            if (q.coords.norm() - 1.0).abs() > 1e-3 {
                return Err(Error::OutOfRange("body rotation: not a unit quaternion"));
            }
        }
        Ok(())
    }
}

impl RigidBodyBuilder {
    fn new(kind: BodyKind) -> Self {
        RigidBodyBuilder {
            kind,
            pose: Isometry::identity(),
            linear_velocity: Vector::zeros(),
            angular_velocity: Vector::zeros(),
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            mass: None,
            can_sleep: true,
            bullet: false,
        }
    }
    /// A body moved by gravity, forces and contacts.
    pub fn dynamic() -> Self {
        Self::new(BodyKind::Dynamic)
    }
    /// A body moved only by its velocity (or a target pose), pushing dynamic bodies.
    pub fn kinematic() -> Self {
        Self::new(BodyKind::Kinematic)
    }
    /// A body that never moves (ground, walls).
    pub fn fixed() -> Self {
        Self::new(BodyKind::Static)
    }
    /// Position of the body's origin (m).
    pub fn translation(mut self, translation: Vector<Real>) -> Self {
        self.pose.translation.vector = translation;
        self
    }
    /// Orientation as a rotation vector (axis times angle, rad).
    pub fn rotation(mut self, axis_angle: Vector<Real>) -> Self {
        self.pose.rotation = Rotation::new(axis_angle);
        self
    }
    /// The whole pose.
    pub fn pose(mut self, pose: Isometry<Real>) -> Self {
        self.pose = pose;
        self
    }
    /// Initial linear velocity (m/s).
    pub fn linear_velocity(mut self, v: Vector<Real>) -> Self {
        self.linear_velocity = v;
        self
    }
    /// Initial angular velocity (rad/s).
    pub fn angular_velocity(mut self, w: Vector<Real>) -> Self {
        self.angular_velocity = w;
        self
    }
    /// Linear damping (1/s, >= 0; default 0).
    pub fn linear_damping(mut self, damping: Real) -> Self {
        self.linear_damping = damping;
        self
    }
    /// Angular damping (1/s, >= 0; default 0).
    pub fn angular_damping(mut self, damping: Real) -> Self {
        self.angular_damping = damping;
        self
    }
    /// Multiplies gravity for this body (default 1).
    pub fn gravity_scale(mut self, scale: Real) -> Self {
        self.gravity_scale = scale;
        self
    }
    /// Whether the body may fall asleep when it and everything it touches have come to rest
    /// (default true; the world's [`crate::SleepSettings`] can also turn sleeping off).
    pub fn can_sleep(mut self, can_sleep: bool) -> Self {
        self.can_sleep = can_sleep;
        self
    }
    /// A bullet: swept every step against static and non-bullet dynamic bodies so that it
    /// cannot pass through them, however fast. Other bodies are swept against static ones only,
    /// and only when they move farther in a step than their speculative contacts reach.
    pub fn bullet(mut self, bullet: bool) -> Self {
        self.bullet = bullet;
        self
    }
    /// Sets mass (kg, > 0) and principal inertia (kg m^2, each > 0) about the body's origin,
    /// instead of computing them from the colliders' densities.
    pub fn mass_properties(mut self, mass: Real, principal_inertia: Vector<Real>) -> Self {
        self.mass = Some(Mass {
            mass,
            principal_inertia,
            ..Mass::UNIT
        });
        self
    }

    pub(crate) fn build(self) -> Result<RigidBody, Error> {
        let pose = limits::pose("body pose", "body rotation", &self.pose)?;
        limits::linear_velocity(&self.linear_velocity)?;
        limits::angular_velocity(&self.angular_velocity)?;
        finite("damping", &[self.linear_damping, self.angular_damping])?;
        limits::bounded(
            "gravity scale",
            &[self.gravity_scale],
            limits::MAX_GRAVITY_SCALE,
            "gravity scale: within ±1000",
        )?;
        if self.linear_damping < 0.0 || self.angular_damping < 0.0 {
            return Err(Error::Negative("damping"));
        }
        if self.linear_damping.max(self.angular_damping) > limits::MAX_DAMPING {
            return Err(Error::OutOfRange("damping: at most 1e6 per second"));
        }
        if let Some(m) = &self.mass {
            finite("mass", &[m.mass])?;
            finite("inertia", m.principal_inertia.as_slice())?;
            if m.mass <= 0.0 {
                return Err(Error::NonPositive("mass"));
            }
            if m.principal_inertia.iter().any(|&i| i <= 0.0) {
                return Err(Error::NonPositive("inertia"));
            }
            if !(limits::MIN_MASS..=limits::MAX_MASS).contains(&m.mass) {
                return Err(Error::OutOfRange("mass: 1e-6 to 1e9 kg"));
            }
            let inertia = limits::MIN_INERTIA..=limits::MAX_INERTIA;
            if !m.principal_inertia.iter().all(|i| inertia.contains(i)) {
                return Err(Error::OutOfRange("inertia: 1e-12 to 1e15 kg m^2"));
            }
        }
        let moving = self.kind != BodyKind::Static;
        Ok(RigidBody {
            kind: self.kind,
            pose,
            previous_pose: pose,
            linear_velocity: if moving {
                self.linear_velocity
            } else {
                Vector::zeros()
            },
            angular_velocity: if moving {
                self.angular_velocity
            } else {
                Vector::zeros()
            },
            force: Vector::zeros(),
            torque: Vector::zeros(),
            linear_damping: self.linear_damping,
            angular_damping: self.angular_damping,
            gravity_scale: self.gravity_scale,
            mass: self.mass.unwrap_or(Mass::UNIT),
            fixed_mass: self.mass.is_some(),
            colliders: SmallVec::new(),
            kinematic_target: None,
            solver_index: u32::MAX,
            can_sleep: self.can_sleep,
            bullet: self.bullet,
            slow_time: 0.0,
            island: None,
            quarantined: false,
        })
    }
}

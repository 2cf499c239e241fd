//! Joints between bodies, and their builder.

use parry3d::math::{Point, Real, Rotation, Vector};
use sprung_solver::joint::DistanceSettings;
use sprung_solver::softness::Spring;

use crate::error::{finite, Error};
use crate::handle::BodyHandle;
use crate::limits;

/// A joint of a [`crate::World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JointHandle {
    pub(crate) world: u32,
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

/// What a joint holds.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum JointKind {
    /// The anchors coincide; rotation is free. Rigid, or a zero-length spring on three axes.
    Ball {
        /// A spring instead of a rigid point constraint.
        spring: Option<Spring>,
    },
    /// The anchors' distance: a rod, a spring, limits, or a rope.
    Distance(DistanceSettings),
    /// The mouse drag: a spring pulling the body's anchor to a world target (anchor A), which
    /// may move at `target_velocity`, with at most `max_force` (N).
    Attachment {
        /// The spring.
        spring: Spring,
        /// Largest force (N).
        max_force: Real,
        /// How fast the target moves (m/s): followed without lag.
        target_velocity: Vector<Real>,
    },
    /// An angular spring keeping the body axis `body_axis` (body frame) on the world axis
    /// `world_axis`; rotation about that axis stays free.
    Upright {
        /// Axis in the body's frame.
        body_axis: Vector<Real>,
        /// Axis in the world.
        world_axis: Vector<Real>,
        /// The spring.
        spring: Spring,
    },
    /// A hinge about `axis_a` (A's frame) and `axis_b` (B's frame), with optional angle limits
    /// (rad) and a motor (target speed rad/s, maximum torque N m).
    Hinge {
        /// Axis in A's frame.
        axis_a: Vector<Real>,
        /// Axis in B's frame.
        axis_b: Vector<Real>,
        /// Angle limits (rad), angle zero being the pose at which the joint was added.
        limits: Option<(Real, Real)>,
        /// Target speed (rad/s) and maximum torque (N m).
        motor: Option<(Real, Real)>,
        /// Directions across the axis, in A's and B's frames, that coincide at angle zero
        /// (filled in when the joint is added).
        references: (Vector<Real>, Vector<Real>),
        /// A soft hinge: a spring instead of rigid point and alignment rows.
        spring: Option<Spring>,
    },
    /// A slider: B keeps A's orientation (as when added) and moves only along `axis_a` (A's
    /// frame), with optional limits (m, zero being the pose when added) and a motor (target
    /// speed m/s, maximum force N).
    Slider {
        /// Axis in A's frame.
        axis_a: Vector<Real>,
        /// Translation limits (m).
        limits: Option<(Real, Real)>,
        /// Target speed (m/s) and maximum force (N).
        motor: Option<(Real, Real)>,
        /// `q_a^-1 q_b` when added.
        relative: Rotation<Real>,
        /// A soft slider: a spring instead of rigid orientation and across-axis rows.
        spring: Option<Spring>,
    },
    /// A weld: B keeps the orientation relative to A it had when the joint was added.
    Fixed {
        /// `q_a^-1 q_b` when added.
        relative: Rotation<Real>,
        /// A soft weld: a spring on position and orientation instead of rigid rows.
        spring: Option<Spring>,
    },
    /// A spring along a ray, for floating characters and hover craft: each step the engine
    /// casts a ray from the body's anchor along the world `axis` (unit; down, usually) up to
    /// `max_length` m, and where it hits, one soft row holds the anchor's height over the hit
    /// point, measured along the axis, at `rest_length` (the spring) and never below
    /// `min_length` (rigid: a bump stop). Nothing within reach: no force. The ground hit is
    /// held as the world is (not pushed back).
    RaySpring {
        /// The ray's direction (world, unit).
        axis: Vector<Real>,
        /// The length the spring pulls the anchor's height to (m).
        rest_length: Real,
        /// The shortest the height may be (m): a rigid stop.
        min_length: Real,
        /// How far the ray looks (m).
        max_length: Real,
        /// The spring.
        spring: Spring,
        /// Where the last step's ray hit (world), filled in by the engine; `None` if it hit
        /// nothing.
        ground: Option<Point<Real>>,
    },
    /// Drives the body's velocity along (linear) or about (angular) a world axis towards a
    /// speed, with at most `max_force` (N, or N m).
    Motor {
        /// World axis.
        axis: Vector<Real>,
        /// Angular (about the axis) or linear (along it).
        angular: bool,
        /// Target speed (m/s or rad/s).
        speed: Real,
        /// Largest force (N) or torque (N m).
        max_force: Real,
    },
}

/// A joint: two bodies, an anchor on each (in the body's frame), and what it holds.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Joint {
    pub(crate) kind: JointKind,
    pub(crate) body_a: BodyHandle,
    pub(crate) body_b: BodyHandle,
    pub(crate) local_anchor_a: Point<Real>,
    pub(crate) local_anchor_b: Point<Real>,
    pub(crate) collide: bool,
    pub(crate) impulses: [Real; 8],
    pub(crate) break_force: Option<Real>,
}

impl Joint {
    /// The joined bodies.
    pub fn bodies(&self) -> (BodyHandle, BodyHandle) {
        (self.body_a, self.body_b)
    }
    /// The anchors, each in its body's frame.
    pub fn local_anchors(&self) -> (Point<Real>, Point<Real>) {
        (self.local_anchor_a, self.local_anchor_b)
    }
    /// What it holds.
    pub fn kind(&self) -> &JointKind {
        &self.kind
    }
    /// Last step's accumulated impulses of its rows (N s, per substep): point rows as a world
    /// vector first, then its other rows.
    pub fn impulses(&self) -> [Real; 8] {
        self.impulses
    }
}

/// Builds a joint; [`crate::World::add_joint`] checks it. Jointed bodies do not collide with
/// each other unless asked to.
///
/// ```
/// use sprung::{JointBuilder, RigidBodyBuilder, World};
/// use sprung::solver::softness::Spring;
/// use sprung::math::{Point, Vector};
///
/// let mut world = World::default();
/// let anchor = world.add_body(RigidBodyBuilder::fixed()).unwrap();
/// let bob = world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(1.0, 0.0, 0.0))).unwrap();
/// // A pendulum: the bob's centre hangs one metre from the anchor's origin.
/// world.add_joint(JointBuilder::ball(Point::origin(), Point::new(-1.0, 0.0, 0.0)), anchor, bob).unwrap();
/// // A spring of 2 Hz, lightly damped, with a rest length of 1 m.
/// let spring = Spring::Frequency { hertz: 2.0, damping_ratio: 0.1 };
/// world.add_joint(JointBuilder::distance(Point::origin(), Point::origin(), 1.0).spring(spring), anchor, bob).unwrap();
/// ```
///
/// A setting the joint's kind does not have (a motor on a ball joint, length limits on a hinge)
/// is not dropped: `add_joint` refuses the builder with [`Error::NotApplicable`], naming it.
/// Motors, limits and springs can be changed once the joint exists
/// ([`crate::World::set_joint_motor`], [`crate::World::set_joint_limits`],
/// [`crate::World::set_joint_spring`]), and its angle, travel or length read
/// ([`crate::World::joint_position`]).
#[derive(Clone, Debug)]
pub struct JointBuilder {
    kind: JointKind,
    local_anchor_a: Point<Real>,
    local_anchor_b: Point<Real>,
    collide: bool,
    break_force: Option<Real>,
    /// The first setting given that this kind of joint does not have: `add_joint` refuses the
    /// builder with it ([`Error::NotApplicable`]) instead of dropping the setting silently.
    misuse: Option<&'static str>,
}

impl Joint {
    /// Whether a joint read from bytes (a snapshot) holds what `JointBuilder` would have let
    /// through: the builder's checks again, and finite carried impulses and captured frames.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) fn check(&self) -> Result<(), Error> {
        let builder = JointBuilder {
            kind: self.kind,
            local_anchor_a: self.local_anchor_a,
            local_anchor_b: self.local_anchor_b,
            collide: self.collide,
            break_force: self.break_force,
            misuse: None,
        };
        builder.build(self.body_a, self.body_b)?;
        finite("joint impulses", &self.impulses)?;
        match &self.kind {
            JointKind::Fixed { relative, .. } | JointKind::Slider { relative, .. } => {
                limits::rotation("joint frame", relative)?;
            }
            JointKind::Hinge { references, .. } => {
                finite("joint frame", references.0.as_slice())?;
                finite("joint frame", references.1.as_slice())?;
            }
            _ => {}
        }
        Ok(())
    }
}

impl JointBuilder {
    /// A joint of `kind` between the anchors, colliding or not, unbreakable.
    fn with(kind: JointKind, anchor_a: Point<Real>, anchor_b: Point<Real>, collide: bool) -> Self {
        JointBuilder {
            kind,
            local_anchor_a: anchor_a,
            local_anchor_b: anchor_b,
            collide,
            break_force: None,
            misuse: None,
        }
    }

    /// Notes that `setting` does not apply to this joint's kind (the first such one is kept).
    fn misused(mut self, setting: &'static str) -> Self {
        self.misuse.get_or_insert(setting);
        self
    }

    /// A ball joint between `anchor_a` (on A) and `anchor_b` (on B), each in its body's frame.
    pub fn ball(anchor_a: Point<Real>, anchor_b: Point<Real>) -> Self {
        JointBuilder::with(JointKind::Ball { spring: None }, anchor_a, anchor_b, false)
    }

    /// A rigid distance of `rest_length` (m) between the anchors.
    pub fn distance(anchor_a: Point<Real>, anchor_b: Point<Real>, rest_length: Real) -> Self {
        let settings = DistanceSettings {
            rest_length,
            min_length: 0.0,
            max_length: Real::INFINITY,
            spring: None,
            holds_rest_length: true,
        };
        JointBuilder::with(JointKind::Distance(settings), anchor_a, anchor_b, false)
    }

    /// The mouse drag, for [`crate::World::add_world_joint`]: a spring pulling `anchor` (in the
    /// body's frame) towards the world point `target` with at most `max_force` (N).
    pub fn attachment(
        anchor: Point<Real>,
        target: Point<Real>,
        spring: Spring,
        max_force: Real,
    ) -> Self {
        let kind = JointKind::Attachment {
            spring,
            max_force,
            target_velocity: Vector::zeros(),
        };
        JointBuilder::with(kind, target, anchor, true)
    }

    /// An upright spring, for [`crate::World::add_world_joint`]: keeps `body_axis` (body frame)
    /// aligned with `world_axis`, leaving rotation about it free (hover racers, wobbly
    /// characters).
    pub fn upright(body_axis: Vector<Real>, world_axis: Vector<Real>, spring: Spring) -> Self {
        let kind = JointKind::Upright {
            body_axis,
            world_axis,
            spring,
        };
        JointBuilder::with(kind, Point::origin(), Point::origin(), true)
    }

    /// A spring along a ray, for [`crate::World::add_world_joint`]: holds the height of the
    /// body's `anchor` (body frame) over whatever a ray from it along the world `axis` hits
    /// within `max_length` at `rest_length`, by `spring` (see [`JointKind::RaySpring`]); the
    /// height never goes below zero (set a higher stop with [`JointBuilder::limits`]).
    ///
    /// ```
    /// use sprung::{ColliderBuilder, JointBuilder, RigidBodyBuilder, Spring, World};
    /// use sprung::math::{Point, Vector};
    ///
    /// let mut world = World::default();
    /// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    /// world.add_collider(ColliderBuilder::halfspace(Vector::y()), ground).unwrap();
    /// let craft = world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 1.0, 0.0))).unwrap();
    /// world.add_collider(ColliderBuilder::ball(0.25), craft).unwrap();
    /// // Held 1 m up by a 2 Hz spring, the sag (g / (2 pi 2)^2 = 6.2 cm) fed forward.
    /// let sag = 9.81 / (2.0 * std::f32::consts::PI * 2.0).powi(2);
    /// let hover = Spring::Frequency { hertz: 2.0, damping_ratio: 1.0 };
    /// world.add_world_joint(JointBuilder::ray_spring(Point::origin(), -Vector::y(), 1.0 + sag, 3.0, hover), craft).unwrap();
    /// for _ in 0..300 {
    ///     world.step(1.0 / 60.0).unwrap();
    /// }
    /// assert!((world.body(craft).unwrap().translation().y - 1.0).abs() < 1e-3);
    /// ```
    pub fn ray_spring(
        anchor: Point<Real>,
        axis: Vector<Real>,
        rest_length: Real,
        max_length: Real,
        spring: Spring,
    ) -> Self {
        let kind = JointKind::RaySpring {
            axis,
            rest_length,
            min_length: 0.0,
            max_length,
            spring,
            ground: None,
        };
        JointBuilder::with(kind, Point::origin(), anchor, true)
    }

    /// A motor, for [`crate::World::add_world_joint`]: drives the angular velocity about the
    /// world `axis` towards `speed` (rad/s) with at most `max_torque` (N m).
    pub fn angular_motor(axis: Vector<Real>, speed: Real, max_torque: Real) -> Self {
        let kind = JointKind::Motor {
            axis,
            angular: true,
            speed,
            max_force: max_torque,
        };
        JointBuilder::with(kind, Point::origin(), Point::origin(), true)
    }

    /// A motor, for [`crate::World::add_world_joint`]: drives the velocity along the world
    /// `axis` towards `speed` (m/s) with at most `max_force` (N).
    pub fn linear_motor(axis: Vector<Real>, speed: Real, max_force: Real) -> Self {
        let kind = JointKind::Motor {
            axis,
            angular: false,
            speed,
            max_force,
        };
        JointBuilder::with(kind, Point::origin(), Point::origin(), true)
    }

    /// A hinge: the anchors coincide and B turns about `axis_b` (B's frame) kept on `axis_a`
    /// (A's frame). Angle zero is the pose when it is added; see [`JointBuilder::angle_limits`]
    /// and [`JointBuilder::motor`].
    pub fn hinge(
        anchor_a: Point<Real>,
        anchor_b: Point<Real>,
        axis_a: Vector<Real>,
        axis_b: Vector<Real>,
    ) -> Self {
        let kind = JointKind::Hinge {
            axis_a,
            axis_b,
            limits: None,
            motor: None,
            references: (Vector::zeros(), Vector::zeros()),
            spring: None,
        };
        JointBuilder::with(kind, anchor_a, anchor_b, false)
    }

    /// A weld: the anchors coincide and B keeps its orientation relative to A as when added.
    pub fn fixed(anchor_a: Point<Real>, anchor_b: Point<Real>) -> Self {
        let kind = JointKind::Fixed {
            relative: Rotation::identity(),
            spring: None,
        };
        JointBuilder::with(kind, anchor_a, anchor_b, false)
    }

    /// A slider: the anchors stay on A's `axis_a` (A's frame) and B keeps A's orientation. Zero
    /// translation is the pose when it is added; see [`JointBuilder::translation_limits`] and
    /// [`JointBuilder::motor`].
    pub fn slider(anchor_a: Point<Real>, anchor_b: Point<Real>, axis_a: Vector<Real>) -> Self {
        let kind = JointKind::Slider {
            axis_a,
            limits: None,
            motor: None,
            relative: Rotation::identity(),
            spring: None,
        };
        JointBuilder::with(kind, anchor_a, anchor_b, false)
    }

    /// A hinge's angle limits (rad, lower <= upper).
    pub fn angle_limits(mut self, lower: Real, upper: Real) -> Self {
        match &mut self.kind {
            JointKind::Hinge { limits, .. } => *limits = Some((lower, upper)),
            _ => return self.misused("angle_limits: only a hinge has angle limits"),
        }
        self
    }

    /// A slider's translation limits along its axis (m, lower <= upper).
    pub fn translation_limits(mut self, lower: Real, upper: Real) -> Self {
        match &mut self.kind {
            JointKind::Slider { limits, .. } => *limits = Some((lower, upper)),
            _ => return self.misused("translation_limits: only a slider has translation limits"),
        }
        self
    }

    /// A motor on a hinge (`speed` rad/s, `max` torque N m) or a slider (`speed` m/s, `max`
    /// force N): drives the joint's rate towards `speed` with at most `max`.
    pub fn motor(mut self, speed: Real, max: Real) -> Self {
        match &mut self.kind {
            JointKind::Hinge { motor, .. } | JointKind::Slider { motor, .. } => {
                *motor = Some((speed, max))
            }
            _ => {
                return self.misused(
                    "motor: only hinges and sliders have one (a world motor is \
                     JointBuilder::angular_motor or linear_motor)",
                )
            }
        }
        self
    }

    /// A rope: the anchors at most `max_length` (m) apart, free when slack.
    pub fn rope(anchor_a: Point<Real>, anchor_b: Point<Real>, max_length: Real) -> Self {
        Self::distance(anchor_a, anchor_b, max_length)
            .limits(0.0, max_length)
            .free()
    }

    /// Makes the joint soft: a spring instead of a rigid constraint (ball: on all three axes;
    /// distance: towards the rest length; hinge, slider, weld: on every row they hold rigidly
    /// but their limits and motor).
    pub fn spring(mut self, spring: Spring) -> Self {
        match &mut self.kind {
            JointKind::Ball { spring: s } => *s = Some(spring),
            JointKind::Distance(d) => {
                d.spring = Some(spring);
                d.holds_rest_length = true;
            }
            JointKind::Attachment { spring: s, .. }
            | JointKind::Upright { spring: s, .. }
            | JointKind::RaySpring { spring: s, .. } => *s = spring,
            JointKind::Hinge { spring: s, .. }
            | JointKind::Fixed { spring: s, .. }
            | JointKind::Slider { spring: s, .. } => *s = Some(spring),
            JointKind::Motor { .. } => return self.misused("spring: a motor has no spring"),
        }
        self
    }

    /// Distance limits (m): the length stays within `[min, max]` (rigid), whatever the spring.
    /// A ray spring's: the shortest its height may be (a bump stop) and how far its ray looks.
    pub fn limits(mut self, min: Real, max: Real) -> Self {
        match &mut self.kind {
            JointKind::Distance(d) => (d.min_length, d.max_length) = (min, max),
            JointKind::RaySpring {
                min_length,
                max_length,
                ..
            } => (*min_length, *max_length) = (min, max),
            _ => {
                return self.misused(
                    "limits: only a distance joint has length limits (hinges: angle_limits, \
                     sliders: translation_limits)",
                )
            }
        }
        self
    }

    /// A distance joint that holds no rest length: only its limits act.
    pub fn free(mut self) -> Self {
        match &mut self.kind {
            JointKind::Distance(d) => (d.holds_rest_length, d.spring) = (false, None),
            _ => return self.misused("free: only a distance joint has a rest length to free"),
        }
        self
    }

    /// Whether the joint joins a body to the world (attachments, upright springs, ray springs,
    /// motors):
    /// those go through [`crate::World::add_world_joint`].
    pub(crate) fn is_world_only(&self) -> bool {
        matches!(
            self.kind,
            JointKind::Attachment { .. }
                | JointKind::Upright { .. }
                | JointKind::Motor { .. }
                | JointKind::RaySpring { .. }
        )
    }

    /// Breaks the joint when it holds with more than `force` (N; N m for angular ones): it is
    /// removed and [`crate::Event::JointBroken`] says so.
    pub fn break_force(mut self, force: Real) -> Self {
        self.break_force = Some(force);
        self
    }

    /// Whether the two bodies still collide with each other (default: no).
    pub fn collide(mut self, collide: bool) -> Self {
        self.collide = collide;
        self
    }

    pub(crate) fn build(self, body_a: BodyHandle, body_b: BodyHandle) -> Result<Joint, Error> {
        if let Some(setting) = self.misuse {
            return Err(Error::NotApplicable(setting));
        }
        limits::position("joint anchor", &self.local_anchor_a.coords)?;
        limits::position("joint anchor", &self.local_anchor_b.coords)?;
        let mut kind = self.kind;
        check_kind(&mut kind)?;
        if let Some(force) = self.break_force {
            finite("break force", &[force])?;
            if force <= 0.0 {
                return Err(Error::NonPositive("break force"));
            }
        }
        Ok(Joint {
            kind,
            body_a,
            body_b,
            local_anchor_a: self.local_anchor_a,
            local_anchor_b: self.local_anchor_b,
            collide: self.collide,
            impulses: [0.0; 8],
            break_force: self.break_force,
        })
    }
}

/// Checks a joint's settings, as the builder lets them through: axes normalised in place,
/// limits, motors, lengths and springs within range. Also what a change at run time
/// ([`crate::World::set_joint_motor`] and its kin) must pass.
pub(crate) fn check_kind(kind: &mut JointKind) -> Result<(), Error> {
    {
        let spring = match kind {
            JointKind::Ball { spring } => *spring,
            JointKind::Attachment {
                spring,
                max_force,
                target_velocity,
            } => {
                check_max_force("attachment", *max_force)?;
                limits::linear_velocity(target_velocity)?;
                Some(*spring)
            }
            JointKind::Upright {
                body_axis,
                world_axis,
                spring,
            } => {
                *body_axis = limits::axis("upright axis length", body_axis)?;
                *world_axis = limits::axis("upright axis length", world_axis)?;
                Some(*spring)
            }
            JointKind::RaySpring {
                axis,
                rest_length,
                min_length,
                max_length,
                spring,
                ground: _,
            } => {
                *axis = limits::axis("ray spring axis length", axis)?;
                let lengths = [*rest_length, *min_length, *max_length];
                limits::bounded(
                    "ray spring length",
                    &lengths,
                    limits::MAX_COORDINATE,
                    "ray spring length: at most 1e5 m",
                )?;
                if lengths.iter().any(|&l| l < 0.0) || *max_length < *min_length {
                    return Err(Error::Negative("ray spring length"));
                }
                Some(*spring)
            }
            JointKind::Motor {
                axis,
                speed,
                max_force,
                ..
            } => {
                finite("motor", &[*speed, *max_force])?;
                *axis = limits::axis("motor axis length", axis)?;
                check_max_force("motor", *max_force)?;
                check_speed("motor", *speed)?;
                None
            }
            JointKind::Hinge {
                axis_a,
                axis_b,
                limits,
                motor,
                spring,
                ..
            } => {
                *axis_a = limits::axis("hinge axis", axis_a)?;
                *axis_b = limits::axis("hinge axis", axis_b)?;
                check_limits("hinge limits", limits)?;
                check_motor("hinge motor", motor)?;
                *spring
            }
            JointKind::Fixed { spring, .. } => *spring,
            JointKind::Slider {
                axis_a,
                limits,
                motor,
                spring,
                ..
            } => {
                *axis_a = limits::axis("slider axis", axis_a)?;
                check_limits("slider limits", limits)?;
                check_motor("slider motor", motor)?;
                *spring
            }
            JointKind::Distance(d) => {
                finite("joint length", &[d.rest_length, d.min_length])?;
                if d.max_length.is_nan() {
                    return Err(Error::NonFinite("joint length"));
                }
                let longest = d.rest_length.max(d.min_length);
                if longest > limits::MAX_COORDINATE
                    || (d.max_length.is_finite() && d.max_length > limits::MAX_COORDINATE)
                {
                    return Err(Error::OutOfRange("joint length: at most 1e5 m"));
                }
                if d.rest_length < 0.0 || d.min_length < 0.0 || d.max_length < d.min_length {
                    return Err(Error::Negative("joint length"));
                }
                d.spring
            }
        };
        if let Some(s) = spring {
            s.check().map_err(Error::Spring)?;
        }
    }
    Ok(())
}

/// Finite limits within ±[`limits::MAX_COORDINATE`] (m or rad), lower not above upper.
fn check_limits(what: &'static str, range: &Option<(Real, Real)>) -> Result<(), Error> {
    if let Some((lower, upper)) = range {
        limits::bounded(
            what,
            &[*lower, *upper],
            limits::MAX_COORDINATE,
            "joint limits: within ±1e5",
        )?;
        if lower > upper {
            return Err(Error::OutOfRange("joint limits: lower above upper"));
        }
    }
    Ok(())
}

/// A finite motor speed within the speed limits and a maximum force or torque that is not
/// negative and at most [`limits::MAX_FORCE`].
fn check_motor(what: &'static str, motor: &Option<(Real, Real)>) -> Result<(), Error> {
    if let Some((speed, max)) = motor {
        finite(what, &[*speed, *max])?;
        if *max < 0.0 {
            return Err(Error::Negative(what));
        }
        check_max_force(what, *max)?;
        check_speed(what, *speed)?;
    }
    Ok(())
}

/// A force cap (N or N m): finite, not negative, at most [`limits::MAX_FORCE`].
fn check_max_force(what: &'static str, max_force: Real) -> Result<(), Error> {
    finite(what, &[max_force])?;
    if max_force < 0.0 {
        return Err(Error::Negative("max force"));
    }
    if max_force > limits::MAX_FORCE {
        return Err(Error::OutOfRange("max force: at most 1e15"));
    }
    Ok(())
}

/// A motor's target speed (m/s or rad/s), within the bodies' speed limits.
fn check_speed(what: &'static str, speed: Real) -> Result<(), Error> {
    finite(what, &[speed])?;
    if speed.abs() > limits::MAX_LINEAR_SPEED.min(limits::MAX_ANGULAR_SPEED) {
        return Err(Error::OutOfRange("motor speed: at most 1e4"));
    }
    Ok(())
}

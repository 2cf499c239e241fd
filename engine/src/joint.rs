//! Joints between bodies, and their builder.

use parry3d::math::{Point, Real, Rotation, Vector};
use sprung_solver::joint::Finite;
pub use sprung_solver::joint::{
    AttachmentSettings, BallSettings, ConeLimit, DistanceSettings, Drive, FixedSettings,
    HingeSettings, JointImpulses, JointKind, MotorSettings, OrientationDrive, RaySpringSettings,
    SliderSettings, SwingTwistSettings, UprightSettings,
};
use sprung_solver::softness::Spring;

use crate::error::{finite, Error};
use crate::handle::BodyHandle;
use crate::limits;

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
    pub(crate) impulses: JointImpulses,
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
    /// Last step's accumulated impulses of its rows (N s or N m s, per substep), named by
    /// its kind.
    pub fn impulses(&self) -> &JointImpulses {
        &self.impulses
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
        if !self.impulses.is_finite() {
            return Err(Error::NonFinite("joint impulses"));
        }
        if !self.impulses.is_of(&self.kind) {
            return Err(Error::OutOfRange("joint impulses: another kind's"));
        }
        match &self.kind {
            JointKind::Fixed(FixedSettings { relative, .. })
            | JointKind::Slider(SliderSettings { relative, .. }) => {
                limits::rotation("joint frame", relative)?;
            }
            JointKind::SwingTwist(st) => {
                limits::rotation("joint frame", &st.frame_a)?;
                limits::rotation("joint frame", &st.frame_b)?;
            }
            JointKind::Hinge(h) => {
                finite("joint frame", h.references.0.as_slice())?;
                finite("joint frame", h.references.1.as_slice())?;
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
        let kind = JointKind::Ball(BallSettings::default());
        JointBuilder::with(kind, anchor_a, anchor_b, false)
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
        let kind = JointKind::Attachment(AttachmentSettings {
            spring,
            max_force,
            target_velocity: Vector::zeros(),
        });
        JointBuilder::with(kind, target, anchor, true)
    }

    /// An upright spring, for [`crate::World::add_world_joint`]: keeps `body_axis` (body frame)
    /// aligned with `world_axis`, leaving rotation about it free (hover racers, wobbly
    /// characters).
    pub fn upright(body_axis: Vector<Real>, world_axis: Vector<Real>, spring: Spring) -> Self {
        let kind = JointKind::Upright(UprightSettings {
            body_axis,
            world_axis,
            spring,
        });
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
        let kind = JointKind::RaySpring(RaySpringSettings {
            axis,
            rest_length,
            min_length: 0.0,
            max_length,
            spring,
            ground: None,
        });
        JointBuilder::with(kind, Point::origin(), anchor, true)
    }

    /// A motor, for [`crate::World::add_world_joint`]: drives the angular velocity about the
    /// world `axis` towards `speed` (rad/s) with at most `max_torque` (N m).
    pub fn angular_motor(axis: Vector<Real>, speed: Real, max_torque: Real) -> Self {
        let kind = JointKind::Motor(MotorSettings {
            axis,
            angular: true,
            speed,
            max_force: max_torque,
        });
        JointBuilder::with(kind, Point::origin(), Point::origin(), true)
    }

    /// A motor, for [`crate::World::add_world_joint`]: drives the velocity along the world
    /// `axis` towards `speed` (m/s) with at most `max_force` (N).
    pub fn linear_motor(axis: Vector<Real>, speed: Real, max_force: Real) -> Self {
        let kind = JointKind::Motor(MotorSettings {
            axis,
            angular: false,
            speed,
            max_force,
        });
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
        let kind = JointKind::Hinge(HingeSettings {
            axis_a,
            axis_b,
            limits: None,
            motor: None,
            references: (Vector::zeros(), Vector::zeros()),
            spring: None,
            drive: None,
        });
        JointBuilder::with(kind, anchor_a, anchor_b, false)
    }

    /// A weld: the anchors coincide and B keeps its orientation relative to A as when added.
    pub fn fixed(anchor_a: Point<Real>, anchor_b: Point<Real>) -> Self {
        let kind = JointKind::Fixed(FixedSettings {
            relative: Rotation::identity(),
            spring: None,
            drive: None,
        });
        JointBuilder::with(kind, anchor_a, anchor_b, false)
    }

    /// A slider: the anchors stay on A's `axis_a` (A's frame) and B keeps A's orientation. Zero
    /// translation is the pose when it is added; see [`JointBuilder::translation_limits`] and
    /// [`JointBuilder::motor`].
    pub fn slider(anchor_a: Point<Real>, anchor_b: Point<Real>, axis_a: Vector<Real>) -> Self {
        let kind = JointKind::Slider(SliderSettings {
            axis_a,
            limits: None,
            motor: None,
            relative: Rotation::identity(),
            spring: None,
            drive: None,
        });
        JointBuilder::with(kind, anchor_a, anchor_b, false)
    }

    /// A swing-twist joint (shoulders, hips, necks): the anchors coincide, and B's turn
    /// relative to A splits into a twist about the twist axis and a swing of that axis, each
    /// limited by [`JointBuilder::swing_limits`] (a cone, elliptical if its half angles differ)
    /// and [`JointBuilder::twist_limits`]. The joint's frame is `twist_axis` (x) and
    /// `plane_axis` (y, made square to x; the cone's first half angle is about it), given in
    /// A's frame; B carries the same frame from the pose it is added in, where swing and twist
    /// are zero.
    ///
    /// ```
    /// use sprung::{JointBuilder, RigidBodyBuilder, World};
    /// use sprung::math::{Point, Vector};
    ///
    /// let mut world = World::default();
    /// let torso = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    /// let arm = world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.5, 0.0, 0.0))).unwrap();
    /// // A shoulder: the arm's axis (x) within 45 degrees about y and 80 about z, twist +-30.
    /// let shoulder = JointBuilder::swing_twist(Point::origin(), Point::new(-0.5, 0.0, 0.0), Vector::x(), Vector::y())
    ///     .swing_limits(45f32.to_radians(), 80f32.to_radians())
    ///     .twist_limits(-30f32.to_radians(), 30f32.to_radians());
    /// world.add_joint(shoulder, torso, arm).unwrap();
    /// ```
    pub fn swing_twist(
        anchor_a: Point<Real>,
        anchor_b: Point<Real>,
        twist_axis: Vector<Real>,
        plane_axis: Vector<Real>,
    ) -> Self {
        let kind = JointKind::SwingTwist(SwingTwistSettings {
            frame_a: frame_of(&twist_axis, &plane_axis).unwrap_or(Rotation::identity()),
            frame_b: Rotation::identity(),
            swing: None,
            twist: None,
            limit_spring: None,
            friction: 0.0,
            drive: None,
        });
        let mut builder = JointBuilder::with(kind, anchor_a, anchor_b, false);
        if frame_of(&twist_axis, &plane_axis).is_none() {
            builder = builder.misused(
                "swing_twist: the twist and plane axes must be finite, not zero and not parallel",
            );
        }
        builder
    }

    /// A swing-twist joint's cone: the twist axis swings at most `about_plane` (rad) about the
    /// plane axis and `about_normal` about the axis square to both (each in (0, pi)); between
    /// them, within the ellipse with those semi-axes.
    pub fn swing_limits(mut self, about_plane: Real, about_normal: Real) -> Self {
        match &mut self.kind {
            JointKind::SwingTwist(s) => s.swing = Some((about_plane, about_normal)),
            _ => return self.misused("swing_limits: only a swing-twist joint has a cone of two half angles (a ball joint: cone_limit)"),
        }
        self
    }

    /// A swing-twist joint's twist limits (rad, within [-pi, pi], lower <= upper).
    pub fn twist_limits(mut self, lower: Real, upper: Real) -> Self {
        match &mut self.kind {
            JointKind::SwingTwist(s) => s.twist = Some((lower, upper)),
            _ => return self.misused("twist_limits: only a swing-twist joint has twist limits"),
        }
        self
    }

    /// Soft limits for a swing-twist joint: past a limit, pushed back by `spring` instead of
    /// rigidly.
    pub fn limit_spring(mut self, spring: Spring) -> Self {
        match &mut self.kind {
            JointKind::SwingTwist(s) => s.limit_spring = Some(spring),
            _ => return self.misused("limit_spring: only a swing-twist joint has soft limits"),
        }
        self
    }

    /// Friction torque (N m) against any turn of a swing-twist joint.
    pub fn friction(mut self, torque: Real) -> Self {
        match &mut self.kind {
            JointKind::SwingTwist(s) => s.friction = torque,
            _ => return self.misused("friction: only a swing-twist joint has friction torque"),
        }
        self
    }

    /// A ball joint's cone: B's axis (A's `axis` in the pose the joint is added in, carried by
    /// B) stays within `half_angle` (rad, in (0, pi)) of `axis` (A's frame).
    pub fn cone_limit(mut self, axis: Vector<Real>, half_angle: Real) -> Self {
        match &mut self.kind {
            JointKind::Ball(b) => {
                b.cone = Some(ConeLimit {
                    axis_a: axis,
                    axis_b: axis,
                    half_angle,
                })
            }
            _ => {
                return self.misused(
                    "cone_limit: only a ball joint has a cone limit (swing-twist: swing_limits)",
                )
            }
        }
        self
    }

    /// A drive on a hinge (towards an angle, rad) or a slider (towards a travel, m): `spring`
    /// pulls the joint there with at most `max_force` (N m or N). Set by frequency, the spring
    /// refers to the inertia the drive turns (each moving body's about the joint's anchor), so
    /// that a limb driven at 2 Hz swings at 2 Hz.
    ///
    /// ```
    /// use sprung::{JointBuilder, RigidBodyBuilder, Spring, World};
    /// use sprung::math::{Point, Vector};
    ///
    /// let mut world = World::default();
    /// let frame = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    /// let door = world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.5, 0.0, 0.0))).unwrap();
    /// // A door that swings shut (angle zero) at 1 Hz, critically damped, with at most 50 N m.
    /// let closer = Spring::Frequency { hertz: 1.0, damping_ratio: 1.0 };
    /// let hinge = JointBuilder::hinge(Point::origin(), Point::new(-0.5, 0.0, 0.0), Vector::y(), Vector::y())
    ///     .drive(0.0, closer, 50.0);
    /// world.add_joint(hinge, frame, door).unwrap();
    /// ```
    pub fn drive(mut self, target: Real, spring: Spring, max_force: Real) -> Self {
        let drive = Some(Drive {
            target,
            spring,
            max_force,
        });
        match &mut self.kind {
            JointKind::Hinge(h) => h.drive = drive,
            JointKind::Slider(s) => s.drive = drive,
            _ => {
                return self.misused(
                    "drive: only hinges and sliders drive to a coordinate (ball, swing-twist and \
                     weld joints: orientation_drive)",
                )
            }
        }
        self
    }

    /// A drive on a ball, swing-twist or weld joint towards an orientation of B relative to A
    /// ([`OrientationDrive`]): `spring` about each world axis, with at most `max_torque` (N m)
    /// about each.
    pub fn orientation_drive(
        mut self,
        target: Rotation<Real>,
        spring: Spring,
        max_torque: Real,
    ) -> Self {
        let drive = Some(OrientationDrive {
            target,
            spring,
            max_torque,
        });
        match &mut self.kind {
            JointKind::Ball(b) => b.drive = drive,
            JointKind::SwingTwist(s) => s.drive = drive,
            JointKind::Fixed(f) => f.drive = drive,
            _ => {
                return self.misused(
                    "orientation_drive: only ball, swing-twist and weld joints drive to an \
                     orientation (hinges and sliders: drive)",
                )
            }
        }
        self
    }

    /// A hinge's angle limits (rad, lower <= upper).
    pub fn angle_limits(mut self, lower: Real, upper: Real) -> Self {
        match &mut self.kind {
            JointKind::Hinge(h) => h.limits = Some((lower, upper)),
            _ => return self.misused("angle_limits: only a hinge has angle limits"),
        }
        self
    }

    /// A slider's translation limits along its axis (m, lower <= upper).
    pub fn translation_limits(mut self, lower: Real, upper: Real) -> Self {
        match &mut self.kind {
            JointKind::Slider(s) => s.limits = Some((lower, upper)),
            _ => return self.misused("translation_limits: only a slider has translation limits"),
        }
        self
    }

    /// A motor on a hinge (`speed` rad/s, `max` torque N m) or a slider (`speed` m/s, `max`
    /// force N): drives the joint's rate towards `speed` with at most `max`.
    pub fn motor(mut self, speed: Real, max: Real) -> Self {
        match &mut self.kind {
            JointKind::Hinge(HingeSettings { motor, .. })
            | JointKind::Slider(SliderSettings { motor, .. }) => *motor = Some((speed, max)),
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
            JointKind::Distance(d) => {
                d.spring = Some(spring);
                d.holds_rest_length = true;
            }
            JointKind::Attachment(AttachmentSettings { spring: s, .. })
            | JointKind::Upright(UprightSettings { spring: s, .. })
            | JointKind::RaySpring(RaySpringSettings { spring: s, .. }) => *s = spring,
            JointKind::Ball(BallSettings { spring: s, .. })
            | JointKind::Hinge(HingeSettings { spring: s, .. })
            | JointKind::Fixed(FixedSettings { spring: s, .. })
            | JointKind::Slider(SliderSettings { spring: s, .. }) => *s = Some(spring),
            JointKind::Motor(_) => return self.misused("spring: a motor has no spring"),
            JointKind::SwingTwist(_) => {
                return self.misused(
                    "spring: a swing-twist joint's limits take one (JointBuilder::limit_spring)",
                )
            }
        }
        self
    }

    /// Distance limits (m): the length stays within `[min, max]` (rigid), whatever the spring.
    /// A ray spring's: the shortest its height may be (a bump stop) and how far its ray looks.
    pub fn limits(mut self, min: Real, max: Real) -> Self {
        match &mut self.kind {
            JointKind::Distance(d) => (d.min_length, d.max_length) = (min, max),
            JointKind::RaySpring(r) => (r.min_length, r.max_length) = (min, max),
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
            JointKind::Attachment(_)
                | JointKind::Upright(_)
                | JointKind::Motor(_)
                | JointKind::RaySpring(_)
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
            impulses: kind.fresh_impulses(),
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
            JointKind::Ball(BallSettings {
                spring,
                cone,
                drive,
            }) => {
                check_orientation_drive(drive)?;
                if let Some(cone) = cone {
                    cone.axis_a = limits::axis("cone axis", &cone.axis_a)?;
                    cone.axis_b = limits::axis("cone axis", &cone.axis_b)?;
                    check_half_angles("cone limit", &[cone.half_angle])?;
                }
                *spring
            }
            JointKind::Attachment(AttachmentSettings {
                spring,
                max_force,
                target_velocity,
            }) => {
                check_max_force("attachment", *max_force)?;
                limits::linear_velocity(target_velocity)?;
                Some(*spring)
            }
            JointKind::Upright(UprightSettings {
                body_axis,
                world_axis,
                spring,
            }) => {
                *body_axis = limits::axis("upright axis length", body_axis)?;
                *world_axis = limits::axis("upright axis length", world_axis)?;
                Some(*spring)
            }
            JointKind::RaySpring(RaySpringSettings {
                axis,
                rest_length,
                min_length,
                max_length,
                spring,
                ground: _,
            }) => {
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
            JointKind::Motor(MotorSettings {
                axis,
                speed,
                max_force,
                ..
            }) => {
                finite("motor", &[*speed, *max_force])?;
                *axis = limits::axis("motor axis length", axis)?;
                check_max_force("motor", *max_force)?;
                check_speed("motor", *speed)?;
                None
            }
            JointKind::Hinge(HingeSettings {
                axis_a,
                axis_b,
                limits,
                motor,
                spring,
                drive,
                ..
            }) => {
                *axis_a = limits::axis("hinge axis", axis_a)?;
                *axis_b = limits::axis("hinge axis", axis_b)?;
                check_limits("hinge limits", limits)?;
                check_motor("hinge motor", motor)?;
                check_drive(drive)?;
                *spring
            }
            JointKind::Fixed(FixedSettings { spring, drive, .. }) => {
                check_orientation_drive(drive)?;
                *spring
            }
            JointKind::Slider(SliderSettings {
                axis_a,
                limits,
                motor,
                spring,
                drive,
                ..
            }) => {
                *axis_a = limits::axis("slider axis", axis_a)?;
                check_limits("slider limits", limits)?;
                check_motor("slider motor", motor)?;
                check_drive(drive)?;
                *spring
            }
            JointKind::SwingTwist(st) => {
                check_orientation_drive(&mut st.drive)?;
                if let Some((y, z)) = st.swing {
                    check_half_angles("swing limits", &[y, z])?;
                }
                if let Some((lower, upper)) = st.twist {
                    finite("twist limits", &[lower, upper])?;
                    let pi = std::f32::consts::PI;
                    if lower < -pi || upper > pi || lower > upper {
                        return Err(Error::OutOfRange(
                            "twist limits: within [-pi, pi], lower not above upper",
                        ));
                    }
                }
                check_max_force("friction", st.friction)?;
                st.limit_spring
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

/// A coordinate drive: a finite target within ±[`limits::MAX_COORDINATE`], a valid spring, a
/// force cap.
fn check_drive(drive: &Option<Drive>) -> Result<(), Error> {
    if let Some(d) = drive {
        limits::bounded(
            "drive target",
            &[d.target],
            limits::MAX_COORDINATE,
            "drive target: within ±1e5",
        )?;
        d.spring.check().map_err(Error::Spring)?;
        check_max_force("drive", d.max_force)?;
    }
    Ok(())
}

/// An orientation drive: a unit target (normalised in place), a valid spring, a torque cap.
fn check_orientation_drive(drive: &mut Option<OrientationDrive>) -> Result<(), Error> {
    if let Some(d) = drive {
        d.target = limits::rotation("drive target", &d.target)?;
        d.spring.check().map_err(Error::Spring)?;
        check_max_force("drive", d.max_torque)?;
    }
    Ok(())
}

/// Half angles of a cone (rad): finite, above zero and below pi.
fn check_half_angles(what: &'static str, angles: &[Real]) -> Result<(), Error> {
    finite(what, angles)?;
    if angles
        .iter()
        .any(|&a| a <= 0.0 || a >= std::f32::consts::PI)
    {
        return Err(Error::OutOfRange("cone half angles: above 0 and below pi"));
    }
    Ok(())
}

/// The joint frame whose x axis is `x` and whose y axis is `y` made square to it, if they are
/// finite, not zero and not parallel.
pub(crate) fn frame_of(x: &Vector<Real>, y: &Vector<Real>) -> Option<Rotation<Real>> {
    if !x.iter().chain(y.iter()).all(|c| c.is_finite()) {
        return None;
    }
    let x = x.try_normalize(1.0e-6)?;
    let y = (y - x * x.dot(y)).try_normalize(1.0e-6)?;
    let z = x.cross(&y);
    // In closed form from the (orthonormal) basis: `Rotation::from_matrix` iterates until it
    // converges, and never did on the NaNs of an infinite axis (a fuzzer's input hung there).
    let basis = nalgebra::Rotation3::from_basis_unchecked(&[x, y, z]);
    let r = Rotation::from_rotation_matrix(&basis);
    r.coords.iter().all(|c| c.is_finite()).then_some(r)
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

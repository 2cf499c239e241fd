//! The constraints between a body and the world that game code reaches for: the attachment
//! (mouse drag), the upright spring and the velocity motors. Each is rows like every joint;
//! body A is the static world.
//!
//! - Attachment: the ball joint's rows ([`super::BallJoint`]) as a spring towards a world target
//!   that may move (its velocity is the rows' target, so the body does not lag behind it), with
//!   the total impulse capped at `max_force * h`, so that it cannot fling a heavy body.
//! - Upright: two angular rows perpendicular to a world axis `w`, with the body axis `u` (turned
//!   by the body's rotation since the step began): `C = -(u x w) · t_k`; a spring pulls `u` onto
//!   `w`, and rotation about `w` stays free.
//! - Motor: one row, linear or angular, whose target is a speed and whose impulse is bounded by
//!   `max_force * h` (a spring on velocity, Fiedler's "springs on velocity").
//! - Ray spring: one axis part along a fixed world axis between a ground point (anchor A, found
//!   by the engine's ray at the start of the step) and the body's anchor: the coordinate is the
//!   anchor's height over the ground point along the axis, held at a rest length by a spring,
//!   with a rigid lower limit (a bump stop). The axis does not turn with the body: a hover
//!   craft sliding sideways keeps its spring vertical, as a wheel's suspension does.

use super::axis::{AxisPart, AxisSettings, Hold};
use super::ball::{BallImpulses, BallJoint};
use super::part::{impulses, Joint, JointFrame, Part, PassContext};
use crate::body::Motion;
use crate::contact::tangents;
use crate::row::Row;
use crate::softness::Spring;
use crate::step::StepContext;
use crate::{Point, Real, Vector};

/// How an attachment is set.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AttachmentSettings {
    /// The spring.
    pub spring: Spring,
    /// Largest force (N).
    pub max_force: Real,
    /// How fast the target moves (m/s): followed without lag.
    pub target_velocity: Vector,
}

/// An attachment prepared for a step: a ball joint's rows as a capped spring to a moving
/// target.
#[derive(Clone, Debug)]
pub struct AttachmentJoint {
    ball: BallJoint,
}

impl Joint for AttachmentJoint {
    type Settings = AttachmentSettings;
    type Impulses = BallImpulses;

    fn prepare(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: &AttachmentSettings,
        step: &StepContext,
        carried: &BallImpulses,
    ) -> Self {
        let spring = Some(settings.spring);
        let mut ball = BallJoint::new(frame, a, b, spring, &step.joint, step.h, carried.point);
        ball.target_velocity = settings.target_velocity;
        ball.max_impulse = settings.max_force * step.h;
        AttachmentJoint { ball }
    }

    fn parts(&mut self) -> impl Part + '_ {
        &mut self.ball
    }

    fn solve(&mut self, frame: &JointFrame, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        self.ball.solve(frame, a, b, pass);
    }

    fn impulses(&self) -> BallImpulses {
        self.ball.impulses()
    }

    fn load(&self) -> Real {
        self.ball.load()
    }

    fn limited(&self) -> Option<(Real, Real)> {
        let ball = &self.ball;
        ball.wanted_impulse.map(|wanted| (wanted, ball.max_impulse))
    }
}

/// How an upright spring is set.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UprightSettings {
    /// The axis in the body's frame (B's).
    pub body_axis: Vector,
    /// The axis in the world.
    pub world_axis: Vector,
    /// The spring.
    pub spring: Spring,
}

impulses! {
    /// An upright spring's accumulated impulses (N m s).
    pub struct UprightImpulses {
        /// About the two directions across the world axis.
        pub about: [Real; 2],
    }
}

/// An upright spring prepared for a step: two axis parts about the directions across the
/// world axis.
#[derive(Clone, Debug)]
pub struct UprightJoint {
    parts: [AxisPart; 2],
    axes: [Vector; 2],
    /// The body axis in world space at the start of the step.
    body_axis: Vector,
    world_axis: Vector,
}

impl Joint for UprightJoint {
    type Settings = UprightSettings;
    type Impulses = UprightImpulses;

    /// Keeps the body axis on the world axis; A is the world.
    fn prepare(
        frame: &JointFrame,
        (_, b): (&Motion, &Motion),
        settings: &UprightSettings,
        step: &StepContext,
        carried: &UprightImpulses,
    ) -> Self {
        let body_axis = frame.rotations.1 * settings.body_axis.normalize();
        let world_axis = settings
            .world_axis
            .try_normalize(1.0e-9)
            .unwrap_or(Vector::y());
        let axes = tangents(&world_axis);
        let parts = [0, 1].map(|k| {
            let row = Row::new(Vector::zeros(), -axes[k], axes[k], &Motion::STATIC, b);
            let settings = AxisSettings {
                hold: Some((0.0, Hold::of(Some(&settings.spring), &row, step.h))),
                ..AxisSettings::default()
            };
            AxisPart::new(row, settings, [carried.about[k], 0.0, 0.0, 0.0])
        });
        UprightJoint {
            parts,
            axes,
            body_axis,
            world_axis,
        }
    }

    fn parts(&mut self) -> impl Part + '_ {
        &mut self.parts
    }

    fn solve(&mut self, _: &JointFrame, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        let u = b.delta_rotation * self.body_axis;
        let error = u.cross(&self.world_axis);
        for (part, axis) in self.parts.iter_mut().zip(&self.axes) {
            part.solve(a, b, -error.dot(axis), pass);
        }
    }

    fn impulses(&self) -> UprightImpulses {
        UprightImpulses {
            about: self.parts.map(|part| part.total()),
        }
    }

    fn load(&self) -> Real {
        let [x, y] = self.impulses().about;
        (x * x + y * y).sqrt()
    }
}

/// How a ray spring is set: the engine casts a ray from B's anchor along the world `axis` up
/// to `max_length` each step; where it hits (`ground`, anchor A), the height of B's anchor
/// over it along the axis is held at `rest_length` by `spring`, and never below `min_length`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RaySpringSettings {
    /// The ray's direction (world, unit).
    pub axis: Vector,
    /// The length the spring pulls the anchor's height to (m).
    pub rest_length: Real,
    /// The shortest the height may be (m): a rigid stop.
    pub min_length: Real,
    /// How far the ray looks (m).
    pub max_length: Real,
    /// The spring.
    pub spring: Spring,
    /// Where the last step's ray hit (world), filled in by the engine; `None` if it hit
    /// nothing.
    pub ground: Option<Point>,
}

impulses! {
    /// A ray spring's accumulated impulses (N s).
    pub struct RaySpringImpulses {
        /// The spring's.
        pub spring: Real,
        /// The stop's.
        pub stop: Real,
    }
}

/// A ray spring prepared for a step: one axis part along the world axis.
#[derive(Clone, Debug)]
pub struct RaySpringJoint {
    part: AxisPart,
    /// Unit, from the ground towards the body (against the ray).
    up: Vector,
}

impl Joint for RaySpringJoint {
    type Settings = RaySpringSettings;
    type Impulses = RaySpringImpulses;

    /// Between the ends of `frame`, anchor A on the ground.
    fn prepare(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: &RaySpringSettings,
        step: &StepContext,
        carried: &RaySpringImpulses,
    ) -> Self {
        let up = (-settings.axis)
            .try_normalize(1.0e-9)
            .unwrap_or(Vector::y());
        let row = JointFrame::row(&up, &frame.anchor_a, &frame.anchor_b, a, b);
        let axis_settings = AxisSettings {
            hold: Some((
                settings.rest_length,
                Hold::of(Some(&settings.spring), &row, step.h),
            )),
            limits: Some((settings.min_length, Real::INFINITY)),
            motor: None,
            limit_spring: None,
            hold_cap: None,
        };
        let carried = [carried.spring, carried.stop, 0.0, 0.0];
        RaySpringJoint {
            part: AxisPart::new(row, axis_settings, carried),
            up,
        }
    }

    fn parts(&mut self) -> impl Part + '_ {
        &mut self.part
    }

    /// The height now is the anchors' separation along the fixed axis.
    fn solve(&mut self, frame: &JointFrame, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        let separation = frame.current_separation(a, b);
        self.part.solve(a, b, separation.dot(&self.up), pass);
    }

    fn impulses(&self) -> RaySpringImpulses {
        let [spring, stop, _, _] = self.part.impulses();
        RaySpringImpulses { spring, stop }
    }

    fn load(&self) -> Real {
        let RaySpringImpulses { spring, stop } = self.impulses();
        (spring + stop).abs()
    }
}

/// How a velocity motor drives: along (`angular: false`) or about (`angular: true`) a world
/// axis, towards a speed (m/s or rad/s), with at most a force or torque (N or N m).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MotorSettings {
    /// The world axis.
    pub axis: Vector,
    /// About the axis, not along it.
    pub angular: bool,
    /// The target speed.
    pub speed: Real,
    /// The largest force or torque.
    pub max_force: Real,
}

impulses! {
    /// A velocity motor's accumulated impulse (N s or N m s).
    pub struct MotorImpulses {
        /// The motor's.
        pub motor: Real,
    }
}

/// A velocity motor prepared for a step: one axis part with a motor.
#[derive(Clone, Debug)]
pub struct MotorJoint {
    part: AxisPart,
}

impl Joint for MotorJoint {
    type Settings = MotorSettings;
    type Impulses = MotorImpulses;

    fn prepare(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: &MotorSettings,
        _: &StepContext,
        carried: &MotorImpulses,
    ) -> Self {
        let axis = settings.axis.try_normalize(1.0e-9).unwrap_or(Vector::y());
        let row = if settings.angular {
            Row::new(Vector::zeros(), -axis, axis, a, b)
        } else {
            JointFrame::row(&axis, &frame.anchor_a, &frame.anchor_b, a, b)
        };
        let axis_settings = AxisSettings {
            motor: Some((settings.speed, settings.max_force)),
            ..AxisSettings::default()
        };
        MotorJoint {
            part: AxisPart::new(row, axis_settings, [0.0, 0.0, 0.0, carried.motor]),
        }
    }

    fn parts(&mut self) -> impl Part + '_ {
        &mut self.part
    }

    fn solve(&mut self, _: &JointFrame, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        self.part.solve(a, b, 0.0, pass);
    }

    fn impulses(&self) -> MotorImpulses {
        MotorImpulses {
            motor: self.part.total(),
        }
    }

    fn load(&self) -> Real {
        self.part.total().abs()
    }
}

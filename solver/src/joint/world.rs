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
use super::{JointFrame, PassContext};
use crate::body::Motion;
use crate::contact::tangents;
use crate::row::Row;
use crate::softness::Spring;
use crate::{Real, Vector};

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

impl UprightJoint {
    /// Keeps `body_axis` (world, at the start of the step) on `world_axis` by `spring`.
    pub fn new(
        b: &Motion,
        (body_axis, world_axis): (Vector, Vector),
        spring: &Spring,
        h: Real,
        impulses: [Real; 2],
    ) -> Self {
        let world_axis = world_axis.try_normalize(1.0e-9).unwrap_or(Vector::y());
        let axes = tangents(&world_axis);
        let parts = [0, 1].map(|k| {
            let row = Row::new(Vector::zeros(), -axes[k], axes[k], &Motion::STATIC, b);
            let settings = AxisSettings {
                hold: Some((0.0, Hold::of(Some(spring), &row, h))),
                ..AxisSettings::default()
            };
            AxisPart::new(row, settings, [impulses[k], 0.0, 0.0, 0.0])
        });
        UprightJoint {
            parts,
            axes,
            body_axis,
            world_axis,
        }
    }

    /// Whether the spring fell back to implicit coefficients (too stiff to be exact).
    pub fn too_stiff(&self) -> bool {
        self.parts.iter().any(AxisPart::too_stiff)
    }

    /// The impulses to carry over, about each direction.
    pub fn impulses(&self) -> [Real; 2] {
        self.parts.map(|part| part.total())
    }

    /// Forgets the accumulated impulses (warm starting off).
    pub fn reset_impulses(&mut self) {
        self.parts.iter_mut().for_each(AxisPart::reset);
    }

    /// Applies the accumulated impulses (warm starting).
    pub(super) fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
        self.parts.iter().for_each(|part| part.warm_start(a, b));
    }

    pub(super) fn solve(&mut self, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        let u = b.delta_rotation * self.body_axis;
        let error = u.cross(&self.world_axis);
        for (part, axis) in self.parts.iter_mut().zip(&self.axes) {
            part.solve(a, b, -error.dot(axis), pass);
        }
    }
}

/// A ray spring prepared for a step: one axis part along the world axis.
#[derive(Clone, Debug)]
pub struct RaySpringJoint {
    part: AxisPart,
    /// Unit, from the ground towards the body (against the ray).
    up: Vector,
}

/// What a ray spring holds: along `up` (world, unit, from the ground to the body), the height
/// at `rest_length` by `spring`, at least `min_length` (m).
#[derive(Clone, Copy, Debug)]
pub struct RaySpringSettings {
    /// From the ground towards the body.
    pub up: Vector,
    /// The height the spring pulls to (m).
    pub rest_length: Real,
    /// The least height (m): a rigid stop.
    pub min_length: Real,
    /// The spring.
    pub spring: Spring,
}

impl RaySpringJoint {
    /// The ray spring `settings` between the ends of `frame` (anchor A on the ground), at
    /// substep `h`, carrying last step's `impulses` (spring, stop).
    pub fn new(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: RaySpringSettings,
        h: Real,
        impulses: [Real; 2],
    ) -> Self {
        let up = settings.up.try_normalize(1.0e-9).unwrap_or(Vector::y());
        let row = JointFrame::row(&up, &frame.anchor_a, &frame.anchor_b, a, b);
        let axis_settings = AxisSettings {
            hold: Some((
                settings.rest_length,
                Hold::of(Some(&settings.spring), &row, h),
            )),
            limits: Some((settings.min_length, Real::INFINITY)),
            motor: None,
        };
        RaySpringJoint {
            part: AxisPart::new(row, axis_settings, [impulses[0], impulses[1], 0.0, 0.0]),
            up,
        }
    }

    /// Whether the spring fell back to implicit coefficients (too stiff to be exact).
    pub fn too_stiff(&self) -> bool {
        self.part.too_stiff()
    }

    /// The impulses to carry over: the spring's and the stop's.
    pub fn impulses(&self) -> [Real; 2] {
        let [hold, lower, _, _] = self.part.impulses();
        [hold, lower]
    }

    /// Forgets the accumulated impulses (warm starting off).
    pub fn reset_impulses(&mut self) {
        self.part.reset();
    }

    /// Applies the accumulated impulses (warm starting).
    pub(super) fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
        self.part.warm_start(a, b);
    }

    /// The height now is the anchors' separation along the fixed axis.
    pub(super) fn solve(
        &mut self,
        (a, b): (&mut Motion, &mut Motion),
        separation: &Vector,
        pass: &PassContext,
    ) {
        self.part.solve(a, b, separation.dot(&self.up), pass);
    }
}

/// How a velocity motor drives: along (`angular: false`) or about (`angular: true`) a world
/// axis, towards a speed (m/s or rad/s), with at most a force or torque (N or N m).
#[derive(Clone, Copy, Debug)]
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

/// A velocity motor prepared for a step: one axis part with a motor.
#[derive(Clone, Debug)]
pub struct MotorJoint {
    /// Its one part, with a motor.
    pub(super) part: AxisPart,
}

impl MotorJoint {
    /// The motor `settings` between the ends of `frame`, carrying last step's `impulse`.
    pub fn new(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: MotorSettings,
        impulse: Real,
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
            part: AxisPart::new(row, axis_settings, [0.0, 0.0, 0.0, impulse]),
        }
    }

    pub(super) fn solve(&mut self, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        self.part.solve(a, b, 0.0, pass);
    }
}

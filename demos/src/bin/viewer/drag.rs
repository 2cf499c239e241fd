//! The mouse drag: the engine's own attachment spring. A click on a dynamic body fixes an
//! anchor on it where the cursor's ray hit it; while the button is held, the spring's target
//! follows the cursor across the plane through that point facing the camera; on release the
//! joint is removed. Its frequency, damping ratio and force cap are the user's to change.

use macroquad::prelude::Vec3;
use sprung::math::{Point, Real};
use sprung::{BodyHandle, BodyKind, JointBuilder, JointHandle, QueryFilter, Spring, World};

use crate::camera::Ray;
use crate::scene_view::{point3, to_point, to_vector, vec3};

/// The spring the mouse pulls with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DragSpring {
    /// Frequency (Hz).
    pub hertz: Real,
    /// Damping ratio (1: critical).
    pub damping_ratio: Real,
    /// Force cap, in multiples of the grabbed body's weight.
    pub weights: Real,
}

impl Default for DragSpring {
    fn default() -> Self {
        DragSpring {
            hertz: 4.0,
            damping_ratio: 0.7,
            weights: 50.0,
        }
    }
}

impl DragSpring {
    /// Stiffer (`up`) or softer, by a quarter.
    pub fn change_hertz(&mut self, up: bool) {
        self.hertz = (self.hertz * if up { 1.25 } else { 0.8 }).clamp(0.25, 60.0);
    }
    /// More (`up`) or less damped, by 0.1.
    pub fn change_damping(&mut self, up: bool) {
        let step = if up { 0.1 } else { -0.1 };
        self.damping_ratio = ((self.damping_ratio + step) * 10.0).round() / 10.0;
        self.damping_ratio = self.damping_ratio.clamp(0.0, 3.0);
    }
    /// A cap twice (`up`) or half as high.
    pub fn change_cap(&mut self, up: bool) {
        self.weights = (self.weights * if up { 2.0 } else { 0.5 }).clamp(0.5, 12_800.0);
    }
    /// The engine's spring.
    pub fn spring(&self) -> Spring {
        Spring::Frequency {
            hertz: self.hertz,
            damping_ratio: self.damping_ratio,
        }
    }
    /// The force cap (N) for a body of `mass` (kg) under gravity `g` (m/s^2).
    pub fn max_force(&self, mass: Real, g: Real) -> Real {
        self.weights * mass * g.max(1.0)
    }
}

/// A body held by the mouse.
#[derive(Clone, Copy, Debug)]
pub struct Drag {
    /// The body.
    pub body: BodyHandle,
    /// The attachment joint.
    pub joint: JointHandle,
    /// The anchor, in the body's frame.
    pub anchor: Point<Real>,
    /// The spring's target now (world).
    pub target: Vec3,
    /// The plane the target moves in: a point and its unit normal (towards the eye).
    plane: (Vec3, Vec3),
    /// Where the body's centre was when grabbed.
    pub start: Vec3,
    /// The force cap in use (N).
    pub max_force: Real,
}

impl Drag {
    /// Grabs the dynamic body that `ray` hits first, if it hits one (static geometry in front
    /// hides what is behind it).
    pub fn grab(world: &mut World, ray: &Ray, spring: &DragSpring) -> Option<Drag> {
        let filter = QueryFilter::new().exclude_sensors();
        let hit = world
            .cast_ray(
                to_point(ray.origin),
                to_vector(ray.dir),
                1.0e4,
                true,
                &filter,
            )
            .ok()??;
        let body = world.body(hit.body)?;
        if body.kind() != BodyKind::Dynamic {
            return None;
        }
        let anchor = body.pose().inverse_transform_point(&hit.point);
        let max_force = spring.max_force(body.mass().mass, world.gravity().norm());
        let start = vec3(&body.translation());
        let builder = JointBuilder::attachment(anchor, hit.point, spring.spring(), max_force);
        let joint = world.add_world_joint(builder, hit.body).ok()?;
        let point = point3(&hit.point);
        Some(Drag {
            body: hit.body,
            joint,
            anchor,
            target: point,
            plane: (point, -ray.dir),
            start,
            max_force,
        })
    }

    /// Moves the target to where `ray` meets the drag plane, travelling there over `dt` (s; 0
    /// when paused: the target jumps and the body follows from rest).
    pub fn pull(&mut self, world: &mut World, ray: &Ray, dt: Real) {
        let (origin, normal) = self.plane;
        let facing = ray.dir.dot(normal);
        if facing.abs() < 1e-4 {
            return;
        }
        let t = (origin - ray.origin).dot(normal) / facing;
        if t <= 0.0 {
            return;
        }
        let target = ray.origin + t * ray.dir;
        let velocity = if dt > 0.0 {
            (target - self.target) / dt
        } else {
            Vec3::ZERO
        };
        // A jump of the cursor (a frame of seconds) should not fling the body.
        let velocity = velocity.clamp_length_max(50.0);
        self.target = target;
        world
            .set_attachment_target(self.joint, to_point(target), to_vector(velocity))
            .ok();
    }

    /// Builds the joint again with a changed spring (the engine's attachment keeps its spring
    /// for life).
    pub fn respring(&mut self, world: &mut World, spring: &DragSpring) {
        let Some(body) = world.body(self.body) else {
            return;
        };
        self.max_force = spring.max_force(body.mass().mass, world.gravity().norm());
        world.remove_joint(self.joint).ok();
        let builder = JointBuilder::attachment(
            self.anchor,
            to_point(self.target),
            spring.spring(),
            self.max_force,
        );
        if let Ok(joint) = world.add_world_joint(builder, self.body) {
            self.joint = joint;
        }
    }

    /// Lets go.
    pub fn release(self, world: &mut World) {
        world.remove_joint(self.joint).ok();
    }

    /// Where the anchor on the body is now (world).
    pub fn anchor_now(&self, world: &World) -> Option<Vec3> {
        world
            .body(self.body)
            .map(|b| point3(&(b.pose() * self.anchor)))
    }

    /// Whether the engine held the spring to its cap in the last step.
    pub fn limited(&self, world: &World) -> bool {
        world
            .limited_springs()
            .iter()
            .any(|l| l.joint == self.joint)
    }
}

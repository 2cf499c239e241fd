//! The orbit camera: it circles a target at a distance, turned by yaw and pitch; dragged to
//! orbit, wheeled to zoom, dragged with the right button (or shift) to pan; it can follow a
//! point. It also turns a pixel into a ray for picking.

use macroquad::camera::Camera3D;
use macroquad::prelude::{vec3, Vec2, Vec3};

/// Vertical field of view (rad).
const FOVY: f32 = 0.8;
/// Nearest pitch to the poles (rad), so that the view never flips.
const MAX_PITCH: f32 = 1.5;

/// An orbit camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    /// The point looked at.
    pub target: Vec3,
    /// Distance from the target (m).
    pub distance: f32,
    /// Angle about the vertical (rad); 0 looks along -z.
    pub yaw: f32,
    /// Angle above the horizontal (rad).
    pub pitch: f32,
}

/// A ray: origin and unit direction.
#[derive(Clone, Copy, Debug)]
pub struct Ray {
    /// Where it starts.
    pub origin: Vec3,
    /// Unit direction.
    pub dir: Vec3,
}

impl Orbit {
    /// A camera that frames a sphere of `radius` about `centre`, from the front and above.
    pub fn framing(centre: Vec3, radius: f32) -> Orbit {
        let distance = (radius / (0.5 * FOVY).sin()).clamp(3.0, 400.0);
        Orbit {
            target: centre,
            distance,
            yaw: 0.35,
            pitch: 0.35,
        }
    }

    /// Where the eye is.
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + self.distance * vec3(cp * sy, sp, cp * cy)
    }

    /// The eye's unit forward, right and up.
    pub fn basis(&self) -> (Vec3, Vec3, Vec3) {
        let forward = (self.target - self.eye()).normalize();
        let right = forward.cross(Vec3::Y).normalize();
        let up = right.cross(forward);
        (forward, right, up)
    }

    /// Turns by a drag of `delta` pixels.
    pub fn orbit(&mut self, delta: Vec2) {
        self.yaw -= delta.x * 0.008;
        self.pitch = (self.pitch + delta.y * 0.008).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Moves the target with a drag of `delta` pixels on a screen `height` pixels tall, so
    /// that the point under the cursor stays under it (at the target's depth).
    pub fn pan(&mut self, delta: Vec2, height: f32) {
        let (_, right, up) = self.basis();
        let metres_per_pixel = 2.0 * self.distance * (0.5 * FOVY).tan() / height.max(1.0);
        self.target += (-delta.x * right + delta.y * up) * metres_per_pixel;
    }

    /// Zooms in (positive `notches`) or out.
    pub fn zoom(&mut self, notches: f32) {
        self.distance = (self.distance * 0.88f32.powf(notches)).clamp(0.5, 1000.0);
    }

    /// Moves the target part of the way to `point` (a follow that does not jerk).
    pub fn follow(&mut self, point: Vec3, share: f32) {
        self.target += (point - self.target) * share.clamp(0.0, 1.0);
    }

    /// The macroquad camera for this view.
    pub fn camera(&self) -> Camera3D {
        Camera3D {
            position: self.eye(),
            target: self.target,
            up: Vec3::Y,
            fovy: FOVY,
            z_near: 0.05,
            z_far: 2000.0,
            ..Default::default()
        }
    }

    /// The ray through pixel `cursor` of a screen of `size` pixels.
    pub fn ray(&self, cursor: Vec2, size: Vec2) -> Ray {
        let (forward, right, up) = self.basis();
        let half = (0.5 * FOVY).tan();
        let x = (2.0 * cursor.x / size.x.max(1.0) - 1.0) * half * size.x / size.y.max(1.0);
        let y = (1.0 - 2.0 * cursor.y / size.y.max(1.0)) * half;
        Ray {
            origin: self.eye(),
            dir: (forward + x * right + y * up).normalize(),
        }
    }

    /// The pixel where `point` is seen on a screen of `size`, if in front of the eye.
    #[cfg(test)]
    pub fn project(&self, point: Vec3, size: Vec2) -> Option<Vec2> {
        let (forward, right, up) = self.basis();
        let d = point - self.eye();
        let depth = d.dot(forward);
        if depth <= 1e-3 {
            return None;
        }
        let half = (0.5 * FOVY).tan();
        let x = d.dot(right) / (depth * half * size.x / size.y.max(1.0));
        let y = d.dot(up) / (depth * half);
        Some(Vec2::new(
            0.5 * (x + 1.0) * size.x,
            0.5 * (1.0 - y) * size.y,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_centre_ray_looks_at_the_target() {
        let orbit = Orbit::framing(vec3(1.0, 2.0, 3.0), 5.0);
        let size = Vec2::new(1280.0, 720.0);
        let ray = orbit.ray(size / 2.0, size);
        let to_target = (orbit.target - ray.origin).normalize();
        assert!((ray.dir - to_target).length() < 1e-5);
    }

    #[test]
    fn a_projected_point_casts_back_through_itself() {
        let orbit = Orbit {
            target: vec3(0.0, 1.0, 0.0),
            distance: 12.0,
            yaw: 0.7,
            pitch: 0.3,
        };
        let size = Vec2::new(1280.0, 720.0);
        let point = vec3(2.0, 0.5, -1.0);
        let pixel = orbit.project(point, size).unwrap();
        let ray = orbit.ray(pixel, size);
        let along = (point - ray.origin).dot(ray.dir);
        let nearest = ray.origin + along * ray.dir;
        assert!((nearest - point).length() < 1e-3, "{nearest} vs {point}");
    }

    #[test]
    fn pan_keeps_the_grabbed_point_under_the_cursor() {
        let mut orbit = Orbit::framing(Vec3::ZERO, 4.0);
        let size = Vec2::new(800.0, 600.0);
        let before = orbit.project(Vec3::ZERO, size).unwrap();
        orbit.pan(Vec2::new(40.0, -25.0), size.y);
        let after = orbit.project(Vec3::ZERO, size).unwrap();
        assert!((after - before - Vec2::new(40.0, -25.0)).length() < 0.5);
    }
}

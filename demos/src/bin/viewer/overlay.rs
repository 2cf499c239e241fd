//! What the viewer draws over the scene: debug geometry in 3D (contact points and normals,
//! joint anchors and axes, bounding boxes, the mouse spring, a rope's springs) and text in 2D
//! (the scene list, the stats, the keys).

use macroquad::prelude::{
    draw_cube, draw_line_3d, draw_rectangle, draw_text, measure_text, Color, Vec2, Vec3,
};
use sprung::math::Real;
use sprung::{
    BodyKind, HingeSettings, JointKind, MotorSettings, RaySpringSettings, SliderSettings,
    UprightSettings, World,
};

use crate::scene_view::{point3, vec3 as to_vec3, MASS_SPRING};

const CONTACT: Color = Color::new(0.9, 0.1, 0.1, 1.0);
const SPECULATIVE: Color = Color::new(1.0, 0.6, 0.1, 1.0);
const NORMAL: Color = Color::new(0.1, 0.75, 0.2, 1.0);
const ANCHOR_A: Color = Color::new(0.1, 0.7, 0.95, 1.0);
const ANCHOR_B: Color = Color::new(0.9, 0.2, 0.8, 1.0);
const LINK: Color = Color::new(0.95, 0.85, 0.1, 1.0);
const AXIS: Color = Color::new(0.2, 0.3, 0.95, 1.0);
const AABB_AWAKE: Color = Color::new(0.1, 0.6, 0.2, 1.0);
const AABB_ASLEEP: Color = Color::new(0.35, 0.35, 0.35, 1.0);
const AABB_STATIC: Color = Color::new(0.45, 0.3, 0.2, 1.0);
const WHEEL: Color = Color::new(0.12, 0.12, 0.14, 1.0);
/// Above this many joints, [`Sketch::joints`] draws their lines without the anchors' markers.
pub const MANY_JOINTS: usize = 1000;
/// The panels' background.
pub const PANEL: Color = Color::new(0.08, 0.09, 0.11, 0.72);
/// The panels' text.
pub const TEXT: Color = Color::new(0.93, 0.94, 0.96, 1.0);
/// Text that stands out (the scene shown, a spring at its cap).
pub const ACCENT: Color = Color::new(1.0, 0.75, 0.3, 1.0);

/// Debug geometry gathered over a frame and drawn at the end, all markers first and then all
/// lines: macroquad starts a new draw call whenever the kind of primitive changes, and a
/// marker, a line, a marker, ... made one per contact point (seconds per frame under
/// software GL).
#[derive(Default)]
pub struct Sketch {
    markers: Vec<(Vec3, f32, Color)>,
    lines: Vec<(Vec3, Vec3, Color)>,
}

impl Sketch {
    /// A small cube of side `size` at `at`.
    fn marker(&mut self, at: Vec3, size: f32, colour: Color) {
        self.markers.push((at, size, colour));
    }

    fn line(&mut self, from: Vec3, to: Vec3, colour: Color) {
        self.lines.push((from, to, colour));
    }

    /// The twelve edges of the box from `lo` to `hi`.
    fn wire_box(&mut self, lo: Vec3, hi: Vec3, colour: Color) {
        let corner = |i: usize| {
            Vec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            )
        };
        for i in 0..8 {
            for bit in [1, 2, 4] {
                if i & bit == 0 {
                    self.line(corner(i), corner(i | bit), colour);
                }
            }
        }
    }

    /// Draws what was gathered and empties it.
    pub fn draw(&mut self) {
        for (at, size, colour) in self.markers.drain(..) {
            draw_cube(at, Vec3::splat(size), None, colour);
        }
        for (from, to, colour) in self.lines.drain(..) {
            draw_line_3d(from, to, colour);
        }
    }

    /// Each vehicle's wheels: a rim of 16 segments in the wheel's plane and two spokes that
    /// turn with it, where the chassis is drawn (its pose interpolated by `alpha`).
    pub fn wheels(&mut self, world: &World, alpha: Real) {
        for (handle, vehicle) in world.vehicles() {
            let chassis = vehicle.chassis();
            let (Some(now), Some(drawn)) = (
                world.body(chassis).map(|b| *b.pose()),
                world.interpolated_pose(chassis, alpha),
            ) else {
                continue;
            };
            for (i, wheel) in vehicle.wheels().iter().enumerate() {
                let Some(pose) = world.wheel_pose(handle, i) else {
                    continue;
                };
                // The wheel's pose on the chassis, put where the chassis is drawn.
                let pose = drawn * (now.inverse() * pose);
                let radius = wheel.settings.radius;
                let point = |angle: Real| {
                    let local = sprung::math::Point::new(angle.cos(), angle.sin(), 0.0) * radius;
                    point3(&(pose * local))
                };
                let segments = 16;
                for k in 0..segments {
                    let (a, b) = (k as Real, (k + 1) as Real);
                    let step = std::f32::consts::TAU / segments as Real;
                    self.line(point(a * step), point(b * step), WHEEL);
                }
                let centre = point3(&(pose * sprung::math::Point::origin()));
                for angle in [0.0, std::f32::consts::FRAC_PI_2] {
                    self.line(point(angle), point(angle + std::f32::consts::PI), WHEEL);
                }
                self.marker(centre, 0.08 * radius, WHEEL);
            }
        }
    }

    /// Each contact point (red: touching; orange: speculative, not yet touching) and its normal.
    /// `scale` (m) sizes the markers.
    pub fn contacts(&mut self, world: &World, scale: f32) {
        for (_, _, manifold) in world.contacts() {
            let normal = to_vec3(&manifold.normal);
            for point in &manifold.points {
                let at = 0.5 * (point3(&point.point_a) + point3(&point.point_b));
                let colour = if point.separation <= 0.0 {
                    CONTACT
                } else {
                    SPECULATIVE
                };
                self.marker(at, scale, colour);
                self.line(at, at + normal * 8.0 * scale, NORMAL);
            }
        }
    }

    /// Each joint: its two anchors (A blue, B magenta) joined by a line, the axis of a hinge or
    /// slider, and the two axes of an upright spring. Poses are interpolated by `alpha`.
    ///
    /// Above [`MANY_JOINTS`] joints the anchors' markers are left out: in a grid of thousands
    /// they hide the bodies, and as thousands of small cubes they cost software GL more than
    /// the bodies themselves; the lines still show each joint and how far it is pulled open.
    pub fn joints(&mut self, world: &World, alpha: Real, scale: f32) {
        let markers = world.joints().nth(MANY_JOINTS).is_none();
        for (_, joint) in world.joints() {
            let (a, b) = joint.bodies();
            let (Some(pose_a), Some(pose_b)) = (
                world.interpolated_pose(a, alpha),
                world.interpolated_pose(b, alpha),
            ) else {
                continue;
            };
            let (la, lb) = joint.local_anchors();
            let (pa, pb) = (point3(&(pose_a * la)), point3(&(pose_b * lb)));
            match joint.kind() {
                JointKind::Upright(UprightSettings {
                    body_axis,
                    world_axis,
                    ..
                }) => {
                    let centre = to_vec3(&pose_b.translation.vector);
                    let length = 20.0 * scale;
                    self.line(
                        centre,
                        centre + to_vec3(&(pose_b * body_axis)) * length,
                        AXIS,
                    );
                    self.line(centre, centre + to_vec3(world_axis) * length, LINK);
                    self.marker(centre, scale, ANCHOR_B);
                    continue;
                }
                JointKind::RaySpring(RaySpringSettings { ground, .. }) => {
                    // From the anchor down to where the ray hit, if it did.
                    if let Some(ground) = ground {
                        self.line(pb, point3(ground), LINK);
                        self.marker(point3(ground), scale, ANCHOR_A);
                    }
                    self.marker(pb, scale, ANCHOR_B);
                    continue;
                }
                JointKind::Motor(MotorSettings { axis, .. }) => {
                    let centre = to_vec3(&pose_b.translation.vector);
                    self.line(centre, centre + to_vec3(axis) * 20.0 * scale, AXIS);
                    continue;
                }
                JointKind::Hinge(HingeSettings { axis_a, .. })
                | JointKind::Slider(SliderSettings { axis_a, .. }) => {
                    let axis = to_vec3(&(pose_a * axis_a)) * 15.0 * scale;
                    self.line(pa - axis, pa + axis, AXIS);
                }
                _ => {}
            }
            self.line(pa, pb, LINK);
            if markers {
                self.marker(pa, scale, ANCHOR_A);
                self.marker(pb, scale, ANCHOR_B);
            }
        }
    }

    /// Each collider's bounding box (static brown, awake green, asleep grey); boxes larger than a
    /// kilometre (half-spaces) are left out.
    pub fn aabbs(&mut self, world: &World) {
        for (_, body) in world.bodies() {
            let colour = match (body.kind(), body.is_sleeping()) {
                (BodyKind::Static, _) => AABB_STATIC,
                (_, true) => AABB_ASLEEP,
                _ => AABB_AWAKE,
            };
            for &c in body.colliders() {
                let Some(collider) = world.collider(c) else {
                    continue;
                };
                let aabb = collider.aabb();
                let size = to_vec3(&aabb.extents());
                if size.max_element() > 1000.0 {
                    continue;
                }
                self.wire_box(point3(&aabb.mins), point3(&aabb.maxs), colour);
            }
        }
    }

    /// The mouse spring: a line from the anchor on the body to the target, and the target.
    pub fn drag(&mut self, anchor: Vec3, target: Vec3, scale: f32, limited: bool) {
        let colour = if limited { CONTACT } else { LINK };
        self.line(anchor, target, colour);
        self.marker(target, 1.5 * scale, colour);
        self.marker(anchor, scale, ANCHOR_B);
    }

    /// The springs of a rope or cloth.
    pub fn mass_spring(&mut self, system: &sprung::spring::MassSpring) {
        let points = system.points();
        for (a, b) in system.springs() {
            self.line(point3(&points[a]), point3(&points[b]), MASS_SPRING);
        }
    }
}

/// Lines of text in a panel with its top-left at `at`; each line in its own colour. Returns the
/// panel's size.
pub fn panel(at: Vec2, lines: &[(String, Color)], size: u16) -> Vec2 {
    let line_height = size as f32 * 1.15;
    let width = lines
        .iter()
        .map(|(text, _)| measure_text(text, None, size, 1.0).width)
        .fold(0.0, f32::max);
    let panel = Vec2::new(width + 16.0, line_height * lines.len() as f32 + 10.0);
    draw_rectangle(at.x, at.y, panel.x, panel.y, PANEL);
    for (i, (text, colour)) in lines.iter().enumerate() {
        let baseline = at.y + 5.0 + line_height * (i as f32 + 0.8);
        draw_text(text, at.x + 8.0, baseline, size as f32, *colour);
    }
    panel
}

/// Which line of a panel drawn by [`panel`] at `at` is under `cursor`, if any.
pub fn line_under(at: Vec2, panel: Vec2, lines: usize, size: u16, cursor: Vec2) -> Option<usize> {
    let inside = cursor.x >= at.x
        && cursor.x <= at.x + panel.x
        && cursor.y >= at.y + 5.0
        && cursor.y < at.y + panel.y - 5.0;
    let line = ((cursor.y - at.y - 5.0) / (size as f32 * 1.15)) as usize;
    (inside && line < lines).then_some(line)
}

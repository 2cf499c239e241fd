//! Colliders drawn with Bevy's gizmos (feature `debug-render`): add [`SprungDebugPlugin`]
//! beside [`crate::SprungPlugin`]. Each collider at its body's interpolated pose: spheres,
//! boxes and capsules as outlines, half-spaces as a grid, hulls by their bounding boxes;
//! moving bodies orange, sleeping ones grey, static ones green. Meshes and height fields are
//! the level's own drawing's to show.

use crate::convert;
use crate::plugin::Interpolation;
use crate::world::PhysicsWorld;
use bevy::color::Color;
use bevy::math::primitives::Capsule3d;
use bevy::math::Isometry3d;
use bevy::prelude::*;
use sprung::math::{Isometry, Real};
use sprung::{BodyKind, Shape};

/// Draws every world's colliders each frame while [`DebugRender`] is on, through the app's
/// gizmos (`DefaultPlugins` bring them).
pub struct SprungDebugPlugin;

/// Whether the colliders are drawn (on by default; a key can toggle it).
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct DebugRender(pub bool);

impl Default for DebugRender {
    fn default() -> Self {
        DebugRender(true)
    }
}

impl Plugin for SprungDebugPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<DebugRender>().add_systems(
            PostUpdate,
            draw_colliders.run_if(|on: Res<DebugRender>| on.0),
        );
    }
}

fn isometry(pose: &Isometry<Real>) -> Isometry3d {
    Isometry3d::new(
        convert::vec3(&pose.translation.vector),
        convert::quat(&pose.rotation),
    )
}

fn draw_colliders(
    time: Res<Time<Fixed>>,
    interpolation: Option<Res<Interpolation>>,
    worlds: Query<&PhysicsWorld>,
    mut gizmos: Gizmos,
) {
    let alpha = if interpolation.is_some_and(|i| i.0) {
        time.overstep_fraction()
    } else {
        1.0
    };
    for world in &worlds {
        let world = world.world();
        for (handle, body) in world.bodies() {
            let color = match body.kind() {
                BodyKind::Static => Color::srgb(0.3, 0.8, 0.4),
                _ if body.is_sleeping() => Color::srgb(0.5, 0.5, 0.5),
                _ => Color::srgb(1.0, 0.6, 0.2),
            };
            let Some(drawn) = world.interpolated_pose(handle, alpha) else {
                continue;
            };
            // A collider's pose relative to its body, carried to where the body is drawn.
            let to_drawn = drawn * body.pose().inverse();
            for &c in body.colliders() {
                let Some(collider) = world.collider(c) else {
                    continue;
                };
                let pose = to_drawn * collider.world_pose();
                let at = isometry(&pose);
                match collider.shape() {
                    Shape::Sphere(ball) => {
                        gizmos.sphere(at, ball.radius, color);
                    }
                    Shape::Cuboid(cuboid) => {
                        let scale = convert::vec3(&(cuboid.half_extents * 2.0));
                        let t = Transform::from_isometry(at).with_scale(scale);
                        gizmos.cube(t, color);
                    }
                    Shape::Capsule(capsule) => {
                        let (a, b) = (capsule.segment.a, capsule.segment.b);
                        let middle = pose * nalgebra_middle(a.coords, b.coords);
                        let length = (b - a).norm();
                        let at = Isometry3d::new(
                            convert::vec3(&middle.coords),
                            convert::quat(&pose.rotation),
                        );
                        gizmos.primitive_3d(&Capsule3d::new(capsule.radius, length), at, color);
                    }
                    Shape::HalfSpace(half) => {
                        let normal = convert::vec3(&half.normal);
                        let turn = Quat::from_rotation_arc(Vec3::Z, normal);
                        let at = Isometry3d::new(at.translation, at.rotation * turn);
                        gizmos.grid(at, UVec2::splat(40), Vec2::splat(1.0), color);
                    }
                    Shape::ConvexHull(_) => {
                        let aabb = collider.aabb();
                        let (lo, hi) = (aabb.mins.coords, aabb.maxs.coords);
                        let centre = convert::vec3(&((lo + hi) * 0.5));
                        let size = convert::vec3(&(hi - lo));
                        gizmos.cube(Transform::from_translation(centre).with_scale(size), color);
                    }
                    _ => {}
                }
            }
        }
    }
}

/// The middle of a segment, as a point.
fn nalgebra_middle(
    a: sprung::math::Vector<Real>,
    b: sprung::math::Vector<Real>,
) -> sprung::math::Point<Real> {
    sprung::math::Point::from((a + b) * 0.5)
}

//! The world as obstacles for the spring toolkit's mass-spring system (ropes, cloth): its
//! colliders push points out, never pushed back.

use super::*;
use parry3d::bounding_volume::Aabb;
use sprung_spring::Obstacles;

impl Obstacles for World {
    /// Out of every collider `point` is inside (along the nearest way out) or within `radius`
    /// of, to `radius` from its surface.
    fn push_out(&self, p: &mut Point<Real>, r: Real) {
        let probe = Aabb::new(*p - Vector::repeat(r), *p + Vector::repeat(r));
        self.colliders_in(&probe, |collider| {
            let shape = collider.shape().as_parry();
            let projection = shape.project_point(collider.world_pose(), p, true);
            let to_surface = projection.point - *p;
            let distance = to_surface.norm();
            if projection.is_inside {
                // Inside (solid projection returns the point itself): out along the nearest
                // surface, found by projecting onto the boundary.
                let boundary = shape.project_point(collider.world_pose(), p, false);
                let out = boundary.point - *p;
                if let Some(dir) = out.try_normalize(1.0e-9) {
                    *p = boundary.point + dir * r;
                }
            } else if distance < r {
                if let Some(dir) = (-to_surface).try_normalize(1.0e-9) {
                    *p = projection.point + dir * r;
                }
            }
        });
    }
}

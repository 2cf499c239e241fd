//! The queries' view of the world: what they read of it (bodies, colliders, the broad phase and
//! how far colliders may have moved since it was updated), and how far from a point they must
//! look.

use super::*;

impl World {
    /// How far from `point` a collider can lie, where queries test it (m): to the farthest
    /// corner of a box holding every collider (0 with none).
    pub(crate) fn query_reach(&self, point: &Point<Real>) -> Real {
        let mut extent = self.broad_phase.bounds();
        let slack = self.query_slack;
        let mut add = |index: u32| {
            let body = self.bodies.at(index);
            for &handle in &body.colliders {
                let collider = self.colliders.at(handle.index);
                let now = collider.shape.aabb(&(body.pose * collider.local_pose));
                extent = Some(extent.map_or(now, |e| e.merged(&now)));
            }
        };
        if slack.is_finite() {
            self.teleported.iter().for_each(|&index| add(index));
        } else {
            let moving = self
                .bodies
                .iter()
                .filter(|(_, b)| b.kind != BodyKind::Static);
            moving.for_each(|(index, _)| add(index));
        }
        extent.map_or(0.0, |e| {
            let grown = if slack.is_finite() {
                e.loosened(slack)
            } else {
                e
            };
            let far = (grown.mins - point).abs().sup(&(grown.maxs - point).abs());
            far.norm()
        })
    }

    pub(crate) fn query_view(&self) -> crate::query::QueryView<'_> {
        crate::query::QueryView {
            bodies: &self.bodies,
            colliders: &self.colliders,
            broad_phase: &self.broad_phase,
            slack: self.query_slack,
            teleported: &self.teleported,
        }
    }
}

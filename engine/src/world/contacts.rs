//! Reading the contacts of the last step, for debug drawing and gameplay: which colliders
//! touch, along which normal, at which points. Read only; the pair cache stays the engine's.

use sprung_collision::contact::Manifold;
use sprung_collision::narrow_phase::PairContact;

use super::World;
use crate::handle::ColliderHandle;

impl World {
    /// The contact manifolds found by the last step: for each pair of colliders whose shapes
    /// are within the contact margin, its two colliders (the manifold's normal points from the
    /// first to the second) and each of its manifolds that holds points (world coordinates; a
    /// point with positive `separation` is speculative, not yet touching).
    ///
    /// ```
    /// use sprung::{ColliderBuilder, RigidBodyBuilder, World};
    /// use sprung::math::Vector;
    ///
    /// let mut world = World::default();
    /// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    /// world.add_collider(ColliderBuilder::cuboid(5.0, 0.5, 5.0), ground).unwrap();
    /// let cube = world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 1.0, 0.0))).unwrap();
    /// world.add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), cube).unwrap();
    /// world.step(1.0 / 60.0).unwrap();
    /// let points: usize = world.contacts().map(|(_, _, m)| m.points.len()).sum();
    /// assert_eq!(points, 4);
    /// ```
    pub fn contacts(&self) -> impl Iterator<Item = (ColliderHandle, ColliderHandle, &Manifold)> {
        self.narrow_phase
            .contacts()
            .iter()
            .filter_map(|pair| {
                let a = self.proxy_collider(pair.pair.a.0)?;
                let b = self.proxy_collider(pair.pair.b.0)?;
                Some((a, b, pair))
            })
            .flat_map(|(a, b, pair): (_, _, &PairContact)| {
                pair.manifolds
                    .iter()
                    .filter(|m| !m.points.is_empty())
                    .map(move |m| (a, b, m))
            })
    }

    /// The handle of the collider behind broad-phase proxy `proxy`, if it is live.
    fn proxy_collider(&self, proxy: u32) -> Option<ColliderHandle> {
        let slot = self
            .broad_phase
            .payload(sprung_collision::broad_phase::ProxyId(proxy))?;
        Some(self.colliders.handle(slot))
    }
}

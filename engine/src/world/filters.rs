//! Which pairs may collide, beyond collision groups: pairs the user excludes, and the pairs
//! restarted when their collision is turned back on.

use super::*;

impl World {
    /// Lets bodies `a` and `b` collide (`true`, the default) or not (`false`), whatever their
    /// groups say; joints that turn their collision off still do.
    ///
    /// ```
    /// use sprung::{RigidBodyBuilder, World};
    ///
    /// let mut world = World::default();
    /// let a = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    /// let b = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    /// world.set_pair_collision(a, b, false).unwrap(); // they pass through each other
    /// ```
    pub fn set_pair_collision(
        &mut self,
        a: BodyHandle,
        b: BodyHandle,
        collide: bool,
    ) -> Result<(), Error> {
        if self.body(a).is_none() || self.body(b).is_none() {
            return Err(Error::StaleHandle);
        }
        if a == b {
            return Err(Error::SameBody);
        }
        let key = body_pair(a, b);
        if collide {
            if self.excluded.remove(&key) {
                self.restore_pairs(a, b);
            }
        } else if self.excluded.insert(key) {
            self.drop_pairs(a, b);
        }
        self.wake(a);
        self.wake(b);
        Ok(())
    }

    /// Ends the pairs (and contacts) of `a`'s and `b`'s colliders.
    pub(super) fn drop_pairs(&mut self, a: BodyHandle, b: BodyHandle) {
        let key = body_pair(a, b);
        let (broad_phase, colliders) = (&self.broad_phase, &self.colliders);
        self.narrow_phase.retain(|pair| {
            let body_of = |p: ProxyId| Some(colliders.at(broad_phase.payload(p)?).body);
            match (body_of(pair.a), body_of(pair.b)) {
                (Some(a), Some(b)) => body_pair(a, b) != key,
                _ => false, // a collider gone: its pair goes too
            }
        });
    }

    /// Starts again the pairs of `a`'s and `b`'s colliders whose boxes overlap now: the broad
    /// phase reports a pair only when its boxes begin to overlap, which these did long ago.
    pub(super) fn restore_pairs(&mut self, a: BodyHandle, b: BodyHandle) {
        let (Some(ba), Some(bb)) = (self.body(a), self.body(b)) else {
            return;
        };
        let mut began = Vec::new();
        for ca in &ba.colliders {
            for cb in &bb.colliders {
                let (p, q) = (
                    self.colliders.at(ca.index).proxy,
                    self.colliders.at(cb.index).proxy,
                );
                let (Some(x), Some(y)) =
                    (self.broad_phase.fat_aabb(p), self.broad_phase.fat_aabb(q))
                else {
                    continue;
                };
                if x.intersects(&y) && self.can_touch(p, q) {
                    began.push(PairEvent::Began(ProxyPair {
                        a: ProxyId(p.0.min(q.0)),
                        b: ProxyId(p.0.max(q.0)),
                    }));
                }
            }
        }
        self.narrow_phase.apply(&began);
    }
}

//! Narrow phase: the pair cache that keeps each pair's manifolds from step to step.
//!
//! In: the broad phase's pair events (which pairs began and ended overlapping) and, each step,
//! the shape and pose of every proxy. Out: for every overlapping pair, its [`Manifold`]s (one for
//! two convex shapes, one per touching group of triangles of a mesh), with each point's
//! accumulated impulses carried over from the previous step's point of the same feature id
//! (for a mesh the id includes the triangle), so that the solver can warm start.
//!
//! Pairs live in one `Vec`, in the order they began (swap-removed when they end), so the step
//! walks a flat array; the hash map beside it is only read when a pair begins or ends.

use std::collections::HashMap;

use parry3d::math::{Isometry, Real, Vector};
use smallvec::SmallVec;

use crate::broad_phase::{PairEvent, ProxyId, ProxyPair};
use crate::manifold::{manifolds, Manifold, ManifoldPoint};
use crate::shape::Shape;

/// Where the narrow phase reads each proxy's shape and pose (the engine's collider set).
pub trait ProxyShapes {
    /// Shape and world pose of `proxy`, or `None` if it is gone (its pair is then skipped).
    fn shape_and_pose(&self, proxy: ProxyId) -> Option<(&Shape, &Isometry<Real>)>;

    /// How far (m) proxies `a` and `b` may close on each other before the next update: added
    /// to the margin of their pair so that fast shapes get speculative points in time (shapes
    /// that move together, side by side in a falling pile, need none). Default 0.
    fn speculative_distance(&self, _a: ProxyId, _b: ProxyId) -> Real {
        0.0
    }

    /// True if `proxy` does not move this step (static, or asleep): a pair of two resting
    /// proxies keeps its manifold as it is. Default false.
    fn is_resting(&self, _proxy: ProxyId) -> bool {
        false
    }
}

/// A slice indexed by proxy id serves tests and simple callers.
impl ProxyShapes for [(Shape, Isometry<Real>)] {
    fn shape_and_pose(&self, proxy: ProxyId) -> Option<(&Shape, &Isometry<Real>)> {
        self.get(proxy.0 as usize).map(|(s, p)| (s, p))
    }
}

/// One overlapping pair and its contact manifolds.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PairContact {
    /// The two proxies, `a < b`; the manifolds' normals point from `a` to `b`.
    pub pair: ProxyPair,
    /// The contact: one manifold per normal, none while the shapes are farther apart than the
    /// margin. Inline for one, so convex pairs never allocate.
    pub manifolds: SmallVec<[Manifold; 1]>,
    /// Whether the shapes touched (a point at or below zero separation) after the last step:
    /// kept by the caller, which reports contacts beginning and ending.
    pub touching: bool,
    /// The largest normal impulse (N s) the contact has taken since it began touching: kept by
    /// the caller.
    pub peak_impulse: Real,
}

/// The persistent pair cache.
///
/// ```
/// use sprung_collision::broad_phase::{PairEvent, ProxyId, ProxyPair};
/// use sprung_collision::narrow_phase::NarrowPhase;
/// use sprung_collision::shape::Shape;
/// use parry3d::math::{Isometry, Vector};
///
/// let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
/// let colliders = vec![(cube.clone(), Isometry::identity()), (cube, Isometry::translation(0.0, 0.99, 0.0))];
/// let mut narrow = NarrowPhase::new(0.02);
/// narrow.apply(&[PairEvent::Began(ProxyPair { a: ProxyId(0), b: ProxyId(1) })]);
/// narrow.update(colliders.as_slice());
/// assert_eq!(narrow.contacts()[0].manifolds[0].points.len(), 4);
/// ```
#[derive(Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NarrowPhase {
    margin: Real,
    contacts: Vec<PairContact>,
    #[cfg_attr(feature = "serde", serde(skip))]
    index: HashMap<ProxyPair, usize>,
    /// Last step's points of the pair being updated, kept to reuse its buffer.
    #[cfg_attr(feature = "serde", serde(skip))]
    previous: Vec<ManifoldPoint>,
    /// The same for each manifold's friction: (sub-shape, friction, twist and rolling impulses).
    previous_friction: Vec<(u32, Vector<Real>, Real, Vector<Real>)>,
}

impl NarrowPhase {
    /// A pair cache producing speculative points up to `margin` (m) apart.
    pub fn new(margin: Real) -> Self {
        NarrowPhase {
            margin,
            contacts: Vec::new(),
            index: HashMap::new(),
            previous: Vec::new(),
            previous_friction: Vec::new(),
        }
    }

    /// The speculative margin (m).
    pub fn margin(&self) -> Real {
        self.margin
    }

    /// Starts and ends pairs as the broad phase reported.
    pub fn apply(&mut self, events: &[PairEvent]) {
        for event in events {
            match *event {
                PairEvent::Began(pair) => {
                    if !self.index.contains_key(&pair) {
                        self.index.insert(pair, self.contacts.len());
                        self.contacts.push(PairContact {
                            pair,
                            manifolds: SmallVec::new(),
                            touching: false,
                            peak_impulse: 0.0,
                        });
                    }
                }
                PairEvent::Ended(pair) => self.remove(pair),
            }
        }
    }

    fn remove(&mut self, pair: ProxyPair) {
        if let Some(slot) = self.index.remove(&pair) {
            self.contacts.swap_remove(slot);
            if let Some(moved) = self.contacts.get(slot) {
                self.index.insert(moved.pair, slot);
            }
        }
    }

    /// Recomputes every pair's manifolds at the current poses, carrying impulses over by
    /// feature id. Points are kept up to the margin plus both proxies' speculative distances.
    pub fn update<S: ProxyShapes + ?Sized>(&mut self, shapes: &S) {
        let margin = self.margin;
        let old = &mut self.previous;
        let old_friction = &mut self.previous_friction;
        for contact in &mut self.contacts {
            if shapes.is_resting(contact.pair.a) && shapes.is_resting(contact.pair.b) {
                continue;
            }
            let (Some((sa, pa)), Some((sb, pb))) = (
                shapes.shape_and_pose(contact.pair.a),
                shapes.shape_and_pose(contact.pair.b),
            ) else {
                contact.manifolds.clear();
                continue;
            };
            old.clear();
            old_friction.clear();
            for m in &contact.manifolds {
                old.extend_from_slice(&m.points);
                old_friction.push((
                    m.sub_shape,
                    m.friction_impulse,
                    m.twist_impulse,
                    m.rolling_impulse,
                ));
            }
            let reach = shapes.speculative_distance(contact.pair.a, contact.pair.b);
            manifolds(sa, pa, sb, pb, margin + reach, &mut contact.manifolds);
            for point in contact.manifolds.iter_mut().flat_map(|m| &mut m.points) {
                if let Some(previous) = old.iter().find(|o| o.id == point.id) {
                    point.normal_impulse = previous.normal_impulse;
                }
            }
            for m in &mut contact.manifolds {
                if let Some(&(_, f, t, r)) = old_friction.iter().find(|o| o.0 == m.sub_shape) {
                    m.friction_impulse = f;
                    m.twist_impulse = t;
                    m.rolling_impulse = r;
                }
            }
        }
    }

    /// Drops the pairs `keep` refuses (for example two bodies a new joint stops colliding).
    /// They come back only when the broad phase reports them beginning again.
    pub fn retain(&mut self, mut keep: impl FnMut(&ProxyPair) -> bool) {
        let mut i = 0;
        while i < self.contacts.len() {
            if keep(&self.contacts[i].pair) {
                i += 1;
            } else {
                let pair = self.contacts[i].pair;
                self.remove(pair);
            }
        }
    }

    /// Rebuilds the pair index after the pairs were restored from bytes (sprung's snapshots);
    /// false, leaving the cache empty, if a pair is not ordered (`a < b`) or appears twice.
    pub fn reindex(&mut self) -> bool {
        self.index.clear();
        for (i, c) in self.contacts.iter().enumerate() {
            if c.pair.a >= c.pair.b || self.index.insert(c.pair, i).is_some() {
                self.index.clear();
                self.contacts.clear();
                return false;
            }
        }
        true
    }

    /// Every overlapping pair with its manifolds, in a deterministic order.
    pub fn contacts(&self) -> &[PairContact] {
        &self.contacts
    }

    /// Mutable access for the solver to store impulses after solving.
    pub fn contacts_mut(&mut self) -> &mut [PairContact] {
        &mut self.contacts
    }

    /// One pair, if its fat boxes overlap.
    pub fn pair(&self, pair: ProxyPair) -> Option<&PairContact> {
        self.index.get(&pair).map(|&i| &self.contacts[i])
    }

    /// The manifolds of one pair, if its boxes overlap.
    pub fn manifolds(&self, pair: ProxyPair) -> Option<&[Manifold]> {
        self.index
            .get(&pair)
            .map(|&i| self.contacts[i].manifolds.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parry3d::math::Vector;

    #[test]
    fn impulses_follow_feature_ids_and_pairs_end() {
        let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
        // B overhangs A's corner (a generic overlap: no corner sits exactly on an edge).
        let mut colliders = vec![
            (cube.clone(), Isometry::identity()),
            (cube, Isometry::translation(0.1, 0.99, 0.05)),
        ];
        let pair = ProxyPair {
            a: ProxyId(0),
            b: ProxyId(1),
        };
        let mut narrow = NarrowPhase::new(0.02);
        narrow.apply(&[PairEvent::Began(pair)]);
        narrow.update(colliders.as_slice());
        for (i, p) in narrow.contacts_mut()[0].manifolds[0]
            .points
            .iter_mut()
            .enumerate()
        {
            p.normal_impulse = 1.0 + i as Real;
        }
        let before: Vec<_> = narrow.contacts()[0].manifolds[0]
            .points
            .iter()
            .map(|p| (p.id, p.normal_impulse))
            .collect();
        // A small slide keeps the same features: every point keeps its impulse.
        colliders[1].1 = Isometry::translation(0.11, 0.985, 0.05);
        narrow.update(colliders.as_slice());
        let after: Vec<_> = narrow.contacts()[0].manifolds[0]
            .points
            .iter()
            .map(|p| (p.id, p.normal_impulse))
            .collect();
        assert_eq!(after.len(), 4);
        for (id, impulse) in &after {
            let old = before
                .iter()
                .find(|(i, _)| i == id)
                .expect("same features, same ids");
            assert_eq!(old.1, *impulse);
        }
        // A turn about the normal makes new clipped features: those start from zero.
        colliders[1].1 = Isometry::new(Vector::new(0.2, 0.985, 0.1), Vector::y() * 0.5);
        narrow.update(colliders.as_slice());
        let mut fresh = 0;
        for p in &narrow.contacts()[0].manifolds[0].points {
            match before.iter().find(|(i, _)| *i == p.id) {
                Some(old) => assert_eq!(old.1, p.normal_impulse),
                None => {
                    assert_eq!(p.normal_impulse, 0.0);
                    fresh += 1;
                }
            }
        }
        assert!(fresh > 0);
        narrow.apply(&[PairEvent::Ended(pair)]);
        assert!(narrow.contacts().is_empty() && narrow.manifolds(pair).is_none());
    }
}

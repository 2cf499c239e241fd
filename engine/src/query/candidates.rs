//! Which colliders a query has to test: the broad phase prunes, the shapes decide.
//!
//! In: what the query reaches (a [`Sweep`]) and a filter. Out: each collider that may touch it,
//! with the pose to test it at.
//!
//! The broad phase's boxes are set at the start of each step, from the poses before it moves
//! the bodies, and colliders added since are only queued. So:
//! - colliders of static bodies are searched in the broad phase (and its queue), at the pose it
//!   holds for them (a static body teleported by `set_pose` is seen there after the next step,
//!   as its contacts are);
//! - colliders of moving bodies are searched in the broad phase too, with the query's reach
//!   grown by the world's slack (the farthest the step carried any moving collider from where
//!   its box was made: `World::place_colliders`), and tested at their body's current pose; the
//!   queued ones and those of bodies teleported since the last step are tested one by one.
//!   Searching the broad phase makes a query cost about what it reaches, not the number of
//!   moving bodies (a pass over them took 341 ms for 1,000 short rays among 10,000; the
//!   broad phase, 0.12 ms: `cargo bench -p sprung-benches --bench queries`).
use parry3d::bounding_volume::{Aabb, BoundingVolume};
use parry3d::math::{Isometry, Point, Real, Vector};
use sprung_collision::broad_phase::{BroadPhase, ProxyId};

use super::filter::QueryFilter;
use crate::body::{BodyKind, RigidBody};
use crate::collider::Collider;
use crate::handle::{Arena, BodyHandle, ColliderHandle};

/// The parts of a world that queries read (made by `World::query_view`).
pub(crate) struct QueryView<'w> {
    pub bodies: &'w Arena<RigidBody, BodyHandle>,
    pub colliders: &'w Arena<Collider, ColliderHandle>,
    pub broad_phase: &'w BroadPhase,
    /// How far a moving collider can be outside its broad-phase box (m; infinite: unknown).
    pub slack: Real,
    /// Bodies teleported since the broad phase was updated.
    pub teleported: &'w [u32],
}

/// A collider a query has to test.
pub(crate) struct Candidate<'w> {
    pub handle: ColliderHandle,
    pub collider: &'w Collider,
    pub body: BodyHandle,
    /// Where to test it (world).
    pub pose: Isometry<Real>,
}

/// What a query reaches: a box swept along `dir` for `t` in `[0, max_t]`. A ray is a point
/// swept; an overlap test is a box that stays put.
pub(crate) struct Sweep {
    pub start: Aabb,
    pub dir: Vector<Real>,
    pub max_t: Real,
}

impl Sweep {
    /// The range of `t` in `[0, max_t]` over which the swept box overlaps `aabb`: slabs of the
    /// box's centre against `aabb` grown by the box's half-extents.
    fn overlap(&self, aabb: &Aabb) -> Option<(Real, Real)> {
        let center = self.start.center();
        let half = self.start.half_extents();
        let (mut enter, mut exit): (Real, Real) = (0.0, self.max_t);
        for k in 0..3 {
            let (lo, hi) = (aabb.mins[k] - half[k], aabb.maxs[k] + half[k]);
            if self.dir[k] == 0.0 {
                if center[k] < lo || center[k] > hi {
                    return None;
                }
                continue;
            }
            let (t0, t1) = (
                (lo - center[k]) / self.dir[k],
                (hi - center[k]) / self.dir[k],
            );
            enter = enter.max(t0.min(t1));
            exit = exit.min(t0.max(t1));
        }
        (enter <= exit).then_some((enter, exit))
    }

    /// Whether the sweep reaches `aabb`.
    pub fn touches(&self, aabb: &Aabb) -> bool {
        self.overlap(aabb).is_some()
    }

    /// A box around the part of the sweep inside `bounds`: the broad phase's search box, finite
    /// even for an infinite sweep; also the region in which a mesh's triangles are cut.
    pub fn within(&self, bounds: &Aabb) -> Option<Aabb> {
        let (enter, exit) = self.overlap(bounds)?;
        let at = |t: Real| {
            // An infinite t only survives the slabs with a zero direction: no motion then.
            let shift = if t.is_finite() {
                self.dir * t
            } else {
                Vector::zeros()
            };
            Aabb::new(self.start.mins + shift, self.start.maxs + shift)
        };
        Some(at(enter).merged(&at(exit)))
    }
}

impl<'w> QueryView<'w> {
    /// Calls `f` for every collider that `filter` accepts and whose box `sweep` reaches: static
    /// ones in the broad phase's order, then moving ones in body order (deterministic).
    pub fn for_each(&self, sweep: &Sweep, filter: &QueryFilter, mut f: impl FnMut(Candidate<'w>)) {
        if filter.sees_static() {
            if let Some(search) = self.broad_phase.bounds().and_then(|b| sweep.within(&b)) {
                self.broad_phase.query_aabb(&search, |proxy| {
                    if self
                        .broad_phase
                        .fat_aabb(proxy)
                        .is_some_and(|b| sweep.touches(&b))
                    {
                        self.visit_static(proxy, filter, &mut f);
                    }
                });
            }
            for proxy in self.broad_phase.queued() {
                if self
                    .broad_phase
                    .fat_aabb(proxy)
                    .is_some_and(|b| sweep.touches(&b))
                {
                    self.visit_static(proxy, filter, &mut f);
                }
            }
        }
        if filter.sees_moving() {
            if self.slack.is_finite() {
                self.moving_in_broad_phase(sweep, filter, &mut f);
            } else {
                self.every_moving(sweep, filter, &mut f);
            }
        }
    }

    /// The moving colliders the broad phase finds within the world's slack of the sweep, the
    /// queued ones and those of teleported bodies, each tested at its current pose.
    fn moving_in_broad_phase(
        &self,
        sweep: &Sweep,
        filter: &QueryFilter,
        f: &mut impl FnMut(Candidate<'w>),
    ) {
        let grown = self.broad_phase.bounds().map(|b| b.loosened(self.slack));
        if let Some(search) = grown.and_then(|b| sweep.within(&b)) {
            let search = search.loosened(self.slack);
            self.broad_phase.query_aabb(&search, |proxy| {
                // The search box of a long slanted sweep holds much it never reaches: the
                // proxy's own box, grown by the slack, is tested before the shape's is made.
                let grown = self
                    .broad_phase
                    .fat_aabb(proxy)
                    .map(|b| b.loosened(self.slack));
                if grown.is_some_and(|b| sweep.touches(&b)) {
                    self.visit_moving(proxy, sweep, filter, f);
                }
            });
        }
        for proxy in self.broad_phase.queued() {
            self.visit_moving(proxy, sweep, filter, f);
        }
        for &index in self.teleported {
            let body = self.bodies.at(index);
            if body.kind != BodyKind::Static {
                self.test_body(body, sweep, filter, f);
            }
        }
    }

    /// The collider of a broad-phase proxy, if it is on a moving body that was not teleported
    /// (those are tested apart) and passes the filter, tested at its current pose.
    fn visit_moving(
        &self,
        proxy: ProxyId,
        sweep: &Sweep,
        filter: &QueryFilter,
        f: &mut impl FnMut(Candidate<'w>),
    ) {
        let Some((slot, collider)) = self.collider_of(proxy) else {
            return;
        };
        let index = collider.body.index;
        let body = self.bodies.at(index);
        if body.kind == BodyKind::Static || self.teleported.contains(&index) {
            return;
        }
        let handle = self.colliders.handle(slot);
        self.test(handle, collider, body, sweep, filter, f);
    }

    /// Every moving body's colliders, one by one (when the slack is unknown).
    fn every_moving(&self, sweep: &Sweep, filter: &QueryFilter, f: &mut impl FnMut(Candidate<'w>)) {
        for (_, body) in self.bodies.iter() {
            if body.kind != BodyKind::Static {
                self.test_body(body, sweep, filter, f);
            }
        }
    }

    /// A moving body's colliders, each tested at its current pose.
    fn test_body(
        &self,
        body: &'w RigidBody,
        sweep: &Sweep,
        filter: &QueryFilter,
        f: &mut impl FnMut(Candidate<'w>),
    ) {
        for &handle in &body.colliders {
            let collider = self.colliders.at(handle.index);
            self.test(handle, collider, body, sweep, filter, f);
        }
    }

    /// One moving collider: passed to `f` if the filter accepts it and the sweep reaches its
    /// box at its body's current pose.
    fn test(
        &self,
        handle: ColliderHandle,
        collider: &'w Collider,
        body: &RigidBody,
        sweep: &Sweep,
        filter: &QueryFilter,
        f: &mut impl FnMut(Candidate<'w>),
    ) {
        if !filter.accepts(handle, collider, body.kind) {
            return;
        }
        let pose = body.pose * collider.local_pose;
        if sweep.touches(&collider.shape.aabb(&pose)) {
            f(Candidate {
                handle,
                collider,
                body: collider.body,
                pose,
            });
        }
    }

    /// The slot and collider of a broad-phase proxy, if it has one.
    fn collider_of(&self, proxy: ProxyId) -> Option<(u32, &'w Collider)> {
        let slot = self.broad_phase.payload(proxy)?;
        Some((slot, self.colliders.at(slot)))
    }

    /// The collider of a broad-phase proxy, if it is on a static body and passes the filter.
    fn visit_static(
        &self,
        proxy: ProxyId,
        filter: &QueryFilter,
        f: &mut impl FnMut(Candidate<'w>),
    ) {
        let Some((slot, collider)) = self.collider_of(proxy) else {
            return;
        };
        let kind = self.bodies.at(collider.body.index).kind;
        if kind != BodyKind::Static {
            return; // tested at its current pose by the moving pass
        }
        let handle = self.colliders.handle(slot);
        if filter.accepts(handle, collider, kind) {
            f(Candidate {
                handle,
                collider,
                body: collider.body,
                pose: collider.world_pose,
            });
        }
    }
}

/// A box of zero size at `p`.
pub(crate) fn point_box(p: &Point<Real>) -> Aabb {
    Aabb::new(*p, *p)
}

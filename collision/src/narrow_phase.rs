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
//!
//! Contact recycling (Box2D v3, Box3D and Rapier do the same; our own code): a convex pair whose
//! relative pose has moved less than a small distance since its manifold was made keeps that
//! manifold — its normal and its points frozen in world orientation, carried along with their
//! colliders — and only updates each point's separation from the colliders' motion, the way the
//! solver updates it between substeps. A settled stack then costs no clipping, and the points
//! and arms on which warm-started impulses land stop twitching from step to step (Box3D: "This
//! eliminates jitter"; Rapier calls re-linearising the arms under heavy warm-started impulses
//! an energy pump for tall stacks). See [`RECYCLE_DISTANCE`].
//!
//! Pairs found apart (their boxes overlap, the shapes do not come within the margin) keep a
//! lower bound of their distance from the query, and are not queried again until their
//! relative motion since, at B's farthest point, could have closed it to within the margin and
//! the step's speculative reach: the skip is exact (a query would have found no point), and a
//! pile of hulls or balls mostly consists of such pairs.

use std::collections::HashMap;

use parry3d::math::{Isometry, Point, Real, Vector};
use parry3d::na::UnitQuaternion;
use smallvec::SmallVec;

use crate::broad_phase::{PairEvent, ProxyId, ProxyPair};
use crate::dispatch::manifolds_or_gap;
use crate::epa::separation_along;
use crate::gjk::SimplexCache;
use crate::manifold::{Manifold, ManifoldPoint};
use crate::shape::Shape;

/// Where the narrow phase reads each proxy's shape and pose (the engine's collider set).
pub trait ProxyShapes {
    /// Shape and world pose of `proxy`, or `None` if it is gone (its pair is then skipped).
    fn shape_and_pose(&self, proxy: ProxyId) -> Option<(&Shape, &Isometry<Real>)>;

    /// World pose of `proxy`, or `None` if it is gone: what reused pairs need (by default from
    /// [`ProxyShapes::shape_and_pose`]).
    fn pose(&self, proxy: ProxyId) -> Option<&Isometry<Real>> {
        self.shape_and_pose(proxy).map(|(_, pose)| pose)
    }

    /// How far (m) proxies `a` and `b` may close on each other before the next update: added
    /// to the margin of their pair so that fast shapes get speculative points in time (shapes
    /// that move together, side by side in a falling pile, need none). Default 0.
    fn speculative_distance(&self, _a: ProxyId, _b: ProxyId) -> Real {
        0.0
    }

    /// How far (m) `a` and `b` can close along `normal` (world, unit, from A towards B) in a
    /// step: their relative velocity's component along it while they approach, plus how fast
    /// their surfaces turn. Shapes apart along `normal` by more than the margin and this get no
    /// points (their gap along it bounds their distance from below, and a motion across it
    /// leaves that gap as it is). At most [`ProxyShapes::speculative_distance`], which the
    /// default gives.
    ///
    /// Both reaches come from the velocities before the step's solve: a contact elsewhere that
    /// turns a body towards a neighbour it was moving past (a cube sliding into a ramp under a
    /// ledge) closes on it unforeseen, by up to that velocity change over the step less the
    /// margin (which absorbs 1.2 m/s at 60 Hz). Box2D v3 and Box3D keep speculative points
    /// within a fixed margin whatever the speeds.
    fn speculative_distance_along(&self, a: ProxyId, b: ProxyId, _normal: &Vector<Real>) -> Real {
        self.speculative_distance(a, b)
    }

    /// True if `proxy` does not move this step (static, or asleep): a pair of two resting
    /// proxies keeps its manifold as it is. Default false.
    fn is_resting(&self, _proxy: ProxyId) -> bool {
        false
    }

    /// How far (m) any point of `proxy`'s shape may have moved since the last update, at most:
    /// its translation plus the chord of its turn at its farthest point. Pairs found apart are
    /// skipped until their proxies have moved, together, as far as they were apart, without
    /// reading their poses: a proxy that is gone must report infinity, so that its pairs are
    /// looked at (and dropped). Default infinite: a caller that does not track motion has its
    /// pairs apart queried every update.
    fn moved(&self, _proxy: ProxyId) -> Real {
        Real::INFINITY
    }

    /// True if every proxy rests and none moved since the last update (every
    /// [`ProxyShapes::is_resting`] true, every [`ProxyShapes::moved`] zero): a world at rest.
    /// An update then leaves every pair as it is, and a second one in a row has nothing to
    /// do, not even the walk over the pairs. Default false.
    fn all_at_rest(&self) -> bool {
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
///
/// Laid out for the step's walk over every pair (`repr(C)`, one cache line aligned): what a
/// pair kept apart reads — its proxies, whether it touched, its cache's kind and budget — sits
/// in the record's first 64 bytes, so that the pairs of a heap, mostly kept apart, cost one
/// cache line each instead of three or four (the manifolds, read only for pairs with points,
/// come last).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C, align(64))]
pub struct PairContact {
    /// The two proxies, `a < b`; the manifolds' normals point from `a` to `b`.
    pub pair: ProxyPair,
    /// Whether the shapes touched (a point at or below zero separation) after the last step:
    /// kept by the caller, which reports contacts beginning and ending.
    pub touching: bool,
    /// The largest normal impulse (N s) the contact has taken since it began touching: kept by
    /// the caller.
    pub peak_impulse: Real,
    /// What the last query found, kept while it still holds: the manifold to reuse, or how
    /// far apart the shapes were.
    pub cache: Option<PairCache>,
    /// The contact: one manifold per normal, none while the shapes are farther apart than the
    /// margin. Inline for one, so convex pairs never allocate.
    pub manifolds: SmallVec<[Manifold; 1]>,
}

/// What a convex pair keeps from its last query so that the next steps can skip it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PairCache {
    /// The manifold, reused while the pair moves little (contact recycling).
    Manifold(Recycle),
    /// The shapes were apart by at least `gap` (m): no point can come within the margin
    /// until they have moved that much closer, so the pair is not queried until then. Two
    /// bounds of how much closer they may be: `budget`, what is left of a lower bound of their
    /// distance once both proxies' own motions ([`ProxyShapes::moved`]) are taken off at each
    /// update (a subtraction: cheap, and tight for shapes moving every which way, as balls in
    /// a heap); and B's drift relative to A since `relative` (a pose product: it sees shapes
    /// moving together, as a falling pile, as not moving). The first is tried first; when
    /// both are spent, the shapes' projections on `axis` before a query.
    Apart {
        /// B's pose relative to A's when the gap was measured.
        relative: Isometry<Real>,
        /// The farthest point of B from its origin (m).
        extent_b: Real,
        /// A lower bound of their distance then (m).
        gap: Real,
        /// A lower bound of their distance now, less their motions since it was set (m).
        budget: Real,
        /// The unit axis (A's frame, from A towards B) that showed the gap, or zero.
        axis: Vector<Real>,
    },
}

impl PairContact {
    /// Whether the pair's cache fits its manifolds and holds finite numbers: a reused manifold
    /// is the pair's only one, with as many points as the cache keeps (at most four); a pair
    /// kept apart has no manifold. Snapshots are refused when it does not.
    pub fn cache_is_consistent(&self) -> bool {
        let finite = |i: &Isometry<Real>| {
            i.translation.vector.iter().all(|x| x.is_finite())
                && i.rotation.coords.iter().all(|x| x.is_finite())
        };
        match &self.cache {
            None => true,
            Some(PairCache::Manifold(r)) => {
                self.manifolds.len() == 1
                    && (1..=4).contains(&self.manifolds[0].points.len())
                    && r.rotation_a.coords.iter().all(|x| x.is_finite())
                    && r.rotation_b.coords.iter().all(|x| x.is_finite())
                    && finite(&r.relative)
                    && r.normal_a.iter().all(|x| x.is_finite())
                    && r.tolerance.is_finite()
                    && r.extent_b.is_finite()
                    && r.points.iter().all(|p| {
                        (p.offset_a.iter())
                            .chain(p.offset_b.iter())
                            .chain(p.local_b.iter())
                            .all(|x| x.is_finite())
                            && p.base.is_finite()
                    })
            }
            Some(PairCache::Apart {
                relative,
                extent_b,
                gap,
                budget,
                axis,
            }) => {
                // (An axis longer than unit would inflate the bound it gives.)
                let length2 = axis.norm_squared();
                self.manifolds.is_empty()
                    && finite(relative)
                    && extent_b.is_finite()
                    && gap.is_finite()
                    && budget.is_finite()
                    && (length2 == 0.0 || (length2 - 1.0).abs() < 1.0e-5)
            }
        }
    }
}

/// How far (m) any point of B can have moved relative to A since B's pose relative to A was
/// `was`, the colliders now being at `now`: the relative translation, plus the chord
/// `2 extent sin(angle / 2)` of the relative turn at B's farthest point.
#[inline]
fn drift(was: &Isometry<Real>, now: (&Isometry<Real>, &Isometry<Real>), extent_b: Real) -> Real {
    drift_between(was, &now.0.inv_mul(now.1), extent_b)
}

/// [`drift`] from B's relative pose now, `is`.
fn drift_between(was: &Isometry<Real>, is: &Isometry<Real>, extent_b: Real) -> Real {
    let moved = (is.translation.vector - was.translation.vector).norm();
    // The relative turn's half angle has cosine |q_is . q_was| (a 4D dot, cheaper than the
    // quaternion product whose imaginary part's length is its sine); the sine from it loses
    // precision near zero, so a little is added (1e-6 under the root: at most a millimetre
    // of chord for a metre of extent), which only makes the bound the safer.
    let cos = is.rotation.coords.dot(&was.rotation.coords).abs().min(1.0);
    let turn = ((1.0 - cos * cos) + 1.0e-6).sqrt();
    moved + 2.0 * extent_b * turn
}

/// Whether [`drift_between`] is below `tolerance`, decided without its square roots when
/// both its terms are well under half the tolerance (most recycled pairs, every step): the
/// roots' latency was a stall in each recycled pair's walk. With a tenth of the tolerance to
/// spare, rounding cannot make the two tests disagree; a tolerance that is not positive (only
/// a hostile snapshot holds one) goes to the exact test.
#[inline(always)]
fn within_drift(
    was: &Isometry<Real>,
    is: &Isometry<Real>,
    extent_b: Real,
    tolerance: Real,
) -> bool {
    let half = 0.45 * tolerance;
    let moved2 = (is.translation.vector - was.translation.vector).norm_squared();
    let cos = is.rotation.coords.dot(&was.rotation.coords).abs().min(1.0);
    let turn2 = (1.0 - cos * cos) + 1.0e-6;
    let arm = 2.0 * extent_b;
    if half > 0.0 && moved2 < half * half && arm * arm * turn2 < half * half {
        return true;
    }
    drift_between(was, is, extent_b) < tolerance
}

/// What `moved` (m, both proxies' motion since the last update) takes off a pair's `budget`:
/// a little more, so that rounding in the subtraction (half a unit in the last place of the
/// budget) and in the motions (each a few operations) can only make the skip the safer.
fn spent(budget: Real, moved: Real) -> Real {
    moved * (1.0 + 1.0e-4) + budget.abs() * 2.4e-7
}

/// How far (m) a touching pair's relative pose may move, at the farthest point of B, before its
/// manifold is made again (Box2D v3 and Box3D: 0.05 m, ten times their linear slop). Smaller
/// shapes use a tenth of their size, so that recycled points stay close to the ones clipping
/// would find.
///
/// A pair not yet touching (only speculative points) may move no farther than the distance
/// its query kept points within: the margin plus the reach its bodies' speeds gave it. A point
/// the clip left out lay farther than that, so none can have come into touch unseen while the
/// manifold is reused. (Box2D v3, Box3D and Rapier hold such pairs to the margin alone, 0.02
/// m: that made two in three of the manifolds `convex` made again while its pile settled.)
pub const RECYCLE_DISTANCE: Real = 0.05;

/// The smallest `cos^2` of half the angle either collider may turn (in world space) before its
/// pair's manifold is made again: 10 degrees, as Box3D. The normal and the points' offsets are
/// frozen in world orientation while recycled.
pub const RECYCLE_COS2_HALF_ANGLE: Real = 0.992_403_9;

/// The most a pair's reach (how far its bodies' speeds can carry them together in a step,
/// [`ProxyShapes::speculative_distance`]) may exceed its recycling tolerance for its manifold to
/// be kept for reuse: a pair closing faster than that has almost always drifted past the
/// tolerance by the next step, and the record cost more than the reuse saved. Counted on
/// `convex` (200 steps), by reach over tolerance, the share of manifolds reused the next step:
/// 98% below a quarter, 92% to a half, 73% to one, 27% to two, 4% to four, 0.5% beyond.
pub const RECYCLE_REACH: Real = 2.0;

/// A manifold's origin, kept to reuse it while the pair moves little (contact recycling).
///
/// The points' separations are kept in A's frame: a point of B, fixed in B, is `relative * l`
/// in A's frame, so its separation along A's normal `n_A` is `n_A . (t + R l) - n_A . a`, that
/// is `(R^T n_A) . l + n_A . t` less a constant. One turn of the normal per pair (by the
/// relative pose, which the tolerance test works out anyway) then gives every point's
/// separation by a dot product. It replaced four quaternion turns a pair: a recycled pair of
/// `pyramid` cost ~270 instructions less (~775 before).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Recycle {
    /// Both colliders' orientations when the manifold was made.
    rotation_a: UnitQuaternion<Real>,
    rotation_b: UnitQuaternion<Real>,
    /// B's pose relative to A's then.
    relative: Isometry<Real>,
    /// The normal in A's frame.
    normal_a: Vector<Real>,
    /// How far (m) the relative pose may move before the manifold is made again.
    tolerance: Real,
    /// The farthest point of B from its origin (m): a turn of angle t moves it by at most
    /// `2 extent sin(t / 2)`.
    extent_b: Real,
    /// Per point: its offsets from each collider's origin (world orientation, frozen), which
    /// place it, and its point on B in B's frame with the constant part of its separation
    /// (the separation less `n_A . (t + R l)` when it was made), which measure it.
    points: [RecyclePoint; 4],
}

/// One point of a [`Recycle`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct RecyclePoint {
    offset_a: Vector<Real>,
    offset_b: Vector<Real>,
    local_b: Vector<Real>,
    base: Real,
}

impl Recycle {
    /// What to keep of `manifold`, made at `pose_a`, `pose_b` by a query that kept points within
    /// `kept` (m; [`RECYCLE_DISTANCE`]) for a pair whose speeds can close `reach` (m) in a
    /// step; `None` for a manifold that cannot be reused (none, or more than four points) or
    /// would not be ([`RECYCLE_REACH`]).
    fn new(
        manifold: &Manifold,
        (sa, pose_a): (&Shape, &Isometry<Real>),
        (sb, pose_b): (&Shape, &Isometry<Real>),
        kept: Real,
        reach: Real,
    ) -> Option<Recycle> {
        if manifold.points.is_empty() || manifold.points.len() > 4 {
            return None;
        }
        let size = |s: &Shape| match s.scale() {
            x if x > 0.0 => x,
            _ => Real::INFINITY,
        };
        let distance = RECYCLE_DISTANCE.min(0.1 * size(sa).min(size(sb)));
        let touching = manifold.points.iter().any(|p| p.separation <= 0.0);
        let tolerance = if touching {
            distance
        } else {
            distance.min(kept)
        };
        if reach > RECYCLE_REACH * tolerance {
            return None;
        }
        let (oa, ob) = (pose_a.translation.vector, pose_b.translation.vector);
        let relative = pose_a.inv_mul(pose_b);
        let normal_a = pose_a.rotation.inverse_transform_vector(&manifold.normal);
        let turned = relative.rotation.inverse_transform_vector(&normal_a);
        let moved = normal_a.dot(&relative.translation.vector);
        let mut points = [RecyclePoint::default(); 4];
        for (p, q) in manifold.points.iter().zip(&mut points) {
            let local_b = pose_b.inverse_transform_point(&p.point_b).coords;
            *q = RecyclePoint {
                offset_a: p.point_a.coords - oa,
                offset_b: p.point_b.coords - ob,
                local_b,
                base: p.separation - (moved + turned.dot(&local_b)),
            };
        }
        Some(Recycle {
            rotation_a: pose_a.rotation,
            rotation_b: pose_b.rotation,
            relative,
            normal_a,
            tolerance,
            extent_b: sb.extent_from(&Point::origin()),
            points,
        })
    }

    /// Reuses the manifold if the colliders, now at `pose_a`, `pose_b`, are close enough to
    /// where it was made (neither turned past [`RECYCLE_COS2_HALF_ANGLE`], and no point of B
    /// moved farther than the tolerance relative to A): moves its points along with their
    /// colliders and updates their separations (the type's doc). Returns the nearest
    /// separation, or `None` (the manifold untouched) when it must be made again.
    fn apply(
        &self,
        manifold: &mut Manifold,
        pose_a: &Isometry<Real>,
        pose_b: &Isometry<Real>,
    ) -> Option<Real> {
        let turned = |now: &Isometry<Real>, then: &UnitQuaternion<Real>| {
            let c = now.rotation.coords.dot(&then.coords);
            c * c < RECYCLE_COS2_HALF_ANGLE
        };
        if turned(pose_a, &self.rotation_a) || turned(pose_b, &self.rotation_b) {
            return None;
        }
        let is = pose_a.inv_mul(pose_b);
        if !within_drift(&self.relative, &is, self.extent_b, self.tolerance) {
            return None;
        }
        let (oa, ob) = (pose_a.translation.vector, pose_b.translation.vector);
        let turned = is.rotation.inverse_transform_vector(&self.normal_a);
        let moved = self.normal_a.dot(&is.translation.vector);
        let mut nearest = Real::INFINITY;
        for (p, q) in manifold.points.iter_mut().zip(&self.points) {
            p.separation = q.base + (moved + turned.dot(&q.local_b));
            p.point_a = Point::from(oa + q.offset_a);
            p.point_b = Point::from(ob + q.offset_b);
            nearest = nearest.min(p.separation);
        }
        Some(nearest)
    }
}

/// A block of the watched list ([`NarrowPhase::watched_blocks`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WatchedBlock {
    /// The pairs (indices into [`NarrowPhase::contacts`]) the block's worker updated.
    pub pairs: std::ops::Range<usize>,
    /// Where the block ends in the watched list (it starts where the one before ends).
    pub end: usize,
    /// Where it ends in the updated list ([`NarrowPhase::updated`]).
    pub updated_end: usize,
    /// How many manifolds with points its updated pairs hold ([`NarrowPhase::updated`]): as
    /// many contacts as its pairs give unless a pair left as it was (both proxies at rest,
    /// most often asleep) has its bodies woken since.
    pub manifolds: usize,
}

/// One worker's buffers and tallies during an update.
#[derive(Debug, Default)]
struct Scratch {
    /// Last step's points of the pair being updated, kept to reuse its buffer.
    previous: Vec<ManifoldPoint>,
    /// The same for each manifold's friction: (sub-shape, friction, twist and rolling impulses).
    previous_friction: Vec<(u32, Vector<Real>, Real, Vector<Real>)>,
    recycled: usize,
    kept_apart: usize,
    /// The pairs of this worker's block with points or touching, in order.
    watched: Vec<u32>,
    /// Those of them the update looked at, in order.
    updated: Vec<u32>,
    /// How many manifolds with points the watched pairs it updated hold.
    manifolds: usize,
}

impl Scratch {
    fn start(&mut self) {
        self.recycled = 0;
        self.kept_apart = 0;
        self.watched.clear();
        self.updated.clear();
        self.manifolds = 0;
    }

    /// Adds pair `contact`, number `index`, which the update looked at, to the watched list.
    #[inline]
    fn watch(&mut self, contact: &PairContact, index: usize) {
        self.watched.push(index as u32);
        // Every manifold the update leaves has points (a query keeps only those, a recycled
        // manifold keeps its own).
        self.manifolds += contact.manifolds.len();
    }
}

/// A pointer shared by the workers of [`NarrowPhase::update_on`], each touching its own part.
struct SharedMut<T>(*mut T);
// SAFETY: the workers touch disjoint parts (see `update_on`).
unsafe impl<T> Sync for SharedMut<T> {}

/// Worker `worker` of `workers`'s block of `0..len`: consecutive blocks, the first ones one
/// longer when `len` does not divide evenly.
fn share(len: usize, worker: usize, workers: usize) -> std::ops::Range<usize> {
    let (base, extra) = (len / workers, len % workers);
    let start = worker * base + worker.min(extra);
    start..start + base + usize::from(worker < extra)
}

/// Updates pair `contact`, number `index`: kept as it is when both proxies rest, its manifold
/// recycled while it holds, skipped while it is known to be apart, else queried again (its
/// points and friction keeping last step's impulses by feature).
fn update_pair<S: ProxyShapes + ?Sized>(
    contact: &mut PairContact,
    simplex: &mut SimplexCache,
    index: usize,
    shapes: &S,
    margin: Real,
    scratch: &mut Scratch,
) {
    let old = &mut scratch.previous;
    let old_friction = &mut scratch.previous_friction;
    'pair: {
        let (a, b) = (contact.pair.a, contact.pair.b);
        if shapes.is_resting(a) && shapes.is_resting(b) {
            // Kept as it is; a pair kept apart still counts what its proxies moved (a body's
            // last step before it fell asleep, a static body teleported), and is queried when
            // one of them moves again if that may have brought them within the margin.
            let moved = shapes.moved(a) + shapes.moved(b);
            if moved == 0.0 {
                // Left as it was (a pile asleep): watched if it was, but not updated.
                if is_watched(contact) {
                    // Not counted in `manifolds`: its points are not read (their record's
                    // first line tells it is watched), and a pair asleep gives no contact.
                    scratch.watched.push(index as u32);
                }
                return;
            }
            if let Some(PairCache::Apart { budget, .. }) = &mut contact.cache {
                *budget -= spent(*budget, moved);
                let room = *budget > margin; // (false for NaN)
                if !room {
                    contact.cache = None;
                }
            }
            break 'pair;
        }
        // A pair kept apart: its budget first, which needs not even the poses (the common case
        // in a heap); when that runs out, B's drift relative to A since the gap was measured
        // gives another bound of their distance now, which the budget starts from again; and
        // when that is spent too, the shapes' projections on the axis that showed the gap
        // (two support points, where a query is a GJK) measure it again.
        let mut reach = None;
        if let Some(PairCache::Apart {
            relative,
            extent_b,
            gap,
            budget,
            axis,
        }) = &mut contact.cache
        {
            let r = shapes.speculative_distance(a, b);
            let mut left = *budget - spent(*budget, shapes.moved(a) + shapes.moved(b));
            if left.is_nan() || left <= margin + r {
                if let (Some(pa), Some(pb)) = (shapes.pose(a), shapes.pose(b)) {
                    left = left.max(*gap - drift(relative, (pa, pb), *extent_b));
                }
            }
            if (left.is_nan() || left <= margin + r) && *axis != Vector::zeros() {
                if let (Some((sa, pa)), Some((sb, pb))) =
                    (shapes.shape_and_pose(a), shapes.shape_and_pose(b))
                {
                    // (Along the axis, the pair closes no faster than its speed along it.)
                    let along = separation_along(sa, pa, sb, pb, axis);
                    let world = pa.rotation * *axis;
                    if along > margin + shapes.speculative_distance_along(a, b, &world) {
                        (*relative, *gap, *budget) = (pa.inv_mul(pb), along, along);
                        scratch.kept_apart += 1;
                        break 'pair;
                    }
                }
            }
            if left > margin + r {
                *budget = left;
                scratch.kept_apart += 1;
                break 'pair;
            }
            reach = Some(r);
        }
        let (Some(pa), Some(pb)) = (shapes.pose(contact.pair.a), shapes.pose(contact.pair.b))
        else {
            contact.manifolds.clear();
            contact.cache = None;
            break 'pair;
        };
        // (A cache that does not fit its manifolds, as a hostile snapshot could hold, is never
        // used: the pair is queried.)
        if let (Some(PairCache::Manifold(recycle)), [manifold]) =
            (&contact.cache, contact.manifolds.as_mut_slice())
        {
            if let Some(nearest) = recycle.apply(manifold, pa, pb) {
                // Speculative points made while the pair closed fast are kept only while the
                // pair can still close that far along their normal in a step (as a query would
                // give them, `speculative_distance_along`): when two bodies that came to rest
                // side by side kept them, they would be solved (and walked) for as long as they
                // rest, as no query would have found them. (The first test spares the pairs
                // touching, most of them, the reach.)
                if nearest <= margin
                    || nearest <= margin + shapes.speculative_distance_along(a, b, &manifold.normal)
                {
                    scratch.recycled += 1;
                    break 'pair;
                }
            }
        }
        let reach =
            reach.unwrap_or_else(|| shapes.speculative_distance(contact.pair.a, contact.pair.b));
        let (Some((sa, pa)), Some((sb, pb))) = (
            shapes.shape_and_pose(contact.pair.a),
            shapes.shape_and_pose(contact.pair.b),
        ) else {
            contact.manifolds.clear();
            contact.cache = None;
            break 'pair;
        };
        // For shapes apart along a normal: how far apart along it they may lie and still need
        // points ([`ProxyShapes::speculative_distance_along`]).
        let within =
            |normal: &Vector<Real>| margin + shapes.speculative_distance_along(a, b, normal);
        // Nothing cached and no points (most often a pair the broad phase has just begun): the
        // line between the shapes' origins is tried as a separating axis first, a support
        // point of each against a cold GJK. In a heap, boxes begin to overlap well before
        // their shapes come within reach.
        if contact.cache.is_none()
            && contact.manifolds.is_empty()
            && !sa.is_level()
            && !sb.is_level()
        {
            if let Some(apart) = apart_along_centres((sa, pa), (sb, pb), &within) {
                contact.cache = Some(apart);
                scratch.kept_apart += 1;
                break 'pair;
            }
        }
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
        let gap = manifolds_or_gap(
            sa,
            pa,
            sb,
            pb,
            margin + reach,
            Some(&within),
            simplex,
            &mut contact.manifolds,
        );
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
        // Meshes and height fields give a manifold per group of triangles, which a turn
        // can split or merge: only convex pairs recycle.
        let convex = |s: &Shape| !matches!(s, Shape::TriMesh(_) | Shape::HeightField(_));
        contact.cache = match contact.manifolds.as_slice() {
            _ if !(convex(sa) && convex(sb)) => None,
            [m] => {
                Recycle::new(m, (sa, pa), (sb, pb), margin + reach, reach).map(PairCache::Manifold)
            }
            [] => gap.filter(|g| g.distance > 0.0).map(|g| PairCache::Apart {
                relative: pa.inv_mul(pb),
                extent_b: sb.extent_from(&Point::origin()),
                gap: g.distance,
                budget: g.distance,
                axis: g.axis,
            }),
            _ => None,
        };
    }
    if is_watched(contact) {
        scratch.watch(contact, index);
        scratch.updated.push(index as u32);
    }
}

/// The pair kept apart if `a` and `b`'s projections on the line between their origins lie
/// farther apart than `within` (m) gives along it (world, from A towards B): a lower bound of
/// their distance, whatever the axis.
fn apart_along_centres(
    (sa, pa): (&Shape, &Isometry<Real>),
    (sb, pb): (&Shape, &Isometry<Real>),
    within: &dyn Fn(&Vector<Real>) -> Real,
) -> Option<PairCache> {
    let relative = pa.inv_mul(pb);
    let between = relative.translation.vector;
    let length = between.norm();
    if length.is_nan() || length <= 0.0 {
        return None;
    }
    let axis = between / length;
    let gap = separation_along(sa, pa, sb, pb, &axis);
    (gap > within(&(pa.rotation * axis))).then(|| PairCache::Apart {
        relative,
        extent_b: sb.extent_from(&Point::origin()),
        gap,
        budget: gap,
        axis,
    })
}

/// How many pairs ahead of the one being updated the walk asks for its record's first cache
/// line.
const PREFETCH_AHEAD: usize = 4;

/// Asks the processor for the first cache line of `pairs[index]`, if there is one. The walk
/// reads only that line of most records (the layout of [`PairContact`]); one line in seven
/// is a stride the hardware's prefetchers miss, and each pair would wait a trip to memory.
#[inline(always)]
fn prefetch(pairs: &[PairContact], index: usize) {
    prefetch_lines(pairs, index, 64);
}

/// Asks the processor for the cache lines of `pairs[index]`'s first `bytes`, if there is such
/// a record. A prefetch is only a hint: it reads nothing into the program and cannot fault.
#[inline(always)]
fn prefetch_lines(pairs: &[PairContact], index: usize, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(pair) = pairs.get(index) {
        let start = (pair as *const PairContact).cast::<i8>();
        for line in (0..bytes.min(std::mem::size_of::<PairContact>())).step_by(64) {
            // SAFETY: a hint, and the address is within a live record anyway.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>(start.add(line));
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (pairs, index, bytes);
}

/// Asks the processor for every cache line of `pairs[index]`'s record, if there is one
/// ([`NarrowPhase::prefetch_pair`] for a block of the pairs).
pub fn prefetch_record(pairs: &[PairContact], index: usize) {
    prefetch_lines(pairs, index, std::mem::size_of::<PairContact>());
}

/// Whether the engine's walks over the pairs need `contact`: points now, or touching before.
#[inline]
fn is_watched(contact: &PairContact) -> bool {
    // (A pair kept apart has no manifold: its cache's kind is read instead of the manifolds'
    // length, which lies in another cache line of the record.)
    contact.touching
        || (!matches!(contact.cache, Some(PairCache::Apart { .. }))
            && !contact.manifolds.is_empty())
}

/// The persistent pair cache.
///
/// ```
/// use sprung_collision::broad_phase::{PairEvent, ProxyId, ProxyPair};
/// use sprung_collision::narrow_phase::NarrowPhase;
/// use sprung_collision::shape::Shape;
/// use sprung_collision::parry3d::math::{Isometry, Vector};
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
    /// Each pair's last GJK simplex (empty for pairs GJK does not query), where its next
    /// query starts; beside the pairs rather than in them, so that the walks over the pairs,
    /// most of which never run GJK, read no more than they did.
    simplices: Vec<SimplexCache>,
    /// Where each pair's record is. Looked up, never walked, so its hash is a fast one with a
    /// fixed seed (the standard SipHash was most of a lookup's instructions) and its order
    /// never reaches a result.
    #[cfg_attr(feature = "serde", serde(skip))]
    index: HashMap<ProxyPair, usize, foldhash::fast::FixedState>,
    /// Each worker's buffers and tallies for its share of an update (one for a serial update),
    /// kept from step to step so that a settled scene allocates nothing.
    #[cfg_attr(feature = "serde", serde(skip))]
    scratch: Vec<Scratch>,
    /// Pairs the last update recycled.
    #[cfg_attr(feature = "serde", serde(skip))]
    recycled: usize,
    /// Pairs the last update kept apart without a query.
    #[cfg_attr(feature = "serde", serde(skip))]
    kept_apart: usize,
    /// See [`NarrowPhase::watched`].
    #[cfg_attr(feature = "serde", serde(skip))]
    watched: Vec<u32>,
    /// See [`NarrowPhase::updated`].
    #[cfg_attr(feature = "serde", serde(skip))]
    updated: Vec<u32>,
    /// See [`NarrowPhase::watched_blocks`].
    #[cfg_attr(feature = "serde", serde(skip))]
    blocks: Vec<WatchedBlock>,
    /// The last update found every proxy at rest ([`ProxyShapes::all_at_rest`]), so left every
    /// pair as it was, and no pair has changed since: its lists stand, and the next update at
    /// rest has nothing to do. Cleared by every change to the pairs.
    #[cfg_attr(feature = "serde", serde(skip))]
    settled: bool,
}

impl NarrowPhase {
    /// A pair cache producing speculative points up to `margin` (m) apart.
    pub fn new(margin: Real) -> Self {
        NarrowPhase {
            margin,
            contacts: Vec::new(),
            simplices: Vec::new(),
            index: HashMap::default(),
            scratch: Vec::new(),
            recycled: 0,
            kept_apart: 0,
            watched: Vec::new(),
            updated: Vec::new(),
            blocks: Vec::new(),
            settled: false,
        }
    }

    /// The speculative margin (m).
    pub fn margin(&self) -> Real {
        self.margin
    }

    /// Starts and ends pairs as the broad phase reported.
    pub fn apply(&mut self, events: &[PairEvent]) {
        if !events.is_empty() {
            self.settled = false;
        }
        // Room for the pairs beginning, at once: a scene's first step begins every pair, and
        // growing the records (512 bytes each) and the index as they come copied them over and
        // over.
        let began = events
            .iter()
            .filter(|e| matches!(e, PairEvent::Began(_)))
            .count();
        self.contacts.reserve(began);
        self.simplices.reserve(began);
        self.index.reserve(began);
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
                            cache: None,
                        });
                        self.simplices.push(SimplexCache::default());
                    }
                }
                PairEvent::Ended(pair) => self.remove(pair),
            }
        }
    }

    fn remove(&mut self, pair: ProxyPair) {
        if let Some(slot) = self.index.remove(&pair) {
            self.contacts.swap_remove(slot);
            self.simplices.swap_remove(slot);
            if let Some(moved) = self.contacts.get(slot) {
                self.index.insert(moved.pair, slot);
            }
        }
    }

    /// Brings every pair's manifolds to the current poses, carrying impulses over by feature
    /// id: a convex pair that moved little since its manifold was made reuses it (module doc),
    /// the others are made again. Points are kept up to the margin plus both proxies'
    /// speculative distances.
    pub fn update<S: ProxyShapes + ?Sized>(&mut self, shapes: &S) {
        if self.skip_if_settled(shapes) {
            return;
        }
        self.scratch.resize_with(1, Scratch::default);
        let scratch = &mut self.scratch[0];
        scratch.start();
        for index in 0..self.contacts.len().min(self.simplices.len()) {
            prefetch(&self.contacts, index + PREFETCH_AHEAD);
            let (contact, simplex) = (&mut self.contacts[index], &mut self.simplices[index]);
            update_pair(contact, simplex, index, shapes, self.margin, scratch);
        }
        self.finish(1);
        self.settled = shapes.all_at_rest();
    }

    /// If the world is at rest and was at the last update, nothing having changed since, sets
    /// what the walk would find (every pair as it is, the watched pairs still watched, none
    /// updated, nothing recycled or kept apart) and returns true: the walk is skipped.
    fn skip_if_settled<S: ProxyShapes + ?Sized>(&mut self, shapes: &S) -> bool {
        if !(self.settled && shapes.all_at_rest()) {
            return false;
        }
        self.recycled = 0;
        self.kept_apart = 0;
        self.updated.clear();
        for block in &mut self.blocks {
            block.updated_end = 0;
        }
        true
    }

    /// [`NarrowPhase::update`] split over `workers` threads: `run` must call its argument
    /// with `(worker, workers)` for every worker of `workers` at once (on a thread pool), and
    /// return when all have returned. Each worker updates a fixed block of the pairs, so the
    /// result is the same bits as a serial update, whatever the count.
    pub fn update_on<S: ProxyShapes + Sync + ?Sized>(
        &mut self,
        shapes: &S,
        workers: usize,
        run: impl FnOnce(&(dyn Fn(usize, usize) + Sync)),
    ) {
        if self.skip_if_settled(shapes) {
            return;
        }
        let workers = workers.max(1);
        self.scratch.resize_with(workers, Scratch::default);
        let margin = self.margin;
        let len = self.contacts.len();
        let contacts = SharedMut(self.contacts.as_mut_ptr());
        let simplices = SharedMut(self.simplices.as_mut_ptr());
        let scratches = SharedMut(self.scratch.as_mut_ptr());
        run(&|worker, count| {
            if count != workers || worker >= workers {
                return;
            }
            let (contacts, simplices, scratches) = (&contacts, &simplices, &scratches);
            let range = share(len, worker, workers);
            // SAFETY: each worker takes its own scratch and its own block of the pairs and of
            // their simplices (as many as pairs), through pointers that stay valid until
            // `run` returns.
            let (scratch, pairs, simplices) = unsafe {
                (
                    &mut *scratches.0.add(worker),
                    std::slice::from_raw_parts_mut(contacts.0.add(range.start), range.len()),
                    std::slice::from_raw_parts_mut(simplices.0.add(range.start), range.len()),
                )
            };
            scratch.start();
            for offset in 0..pairs.len() {
                prefetch(pairs, offset + PREFETCH_AHEAD);
                update_pair(
                    &mut pairs[offset],
                    &mut simplices[offset],
                    range.start + offset,
                    shapes,
                    margin,
                    scratch,
                );
            }
        });
        self.finish(workers);
        self.settled = shapes.all_at_rest();
    }

    /// The tallies and the watched list of `workers` scratches, in worker (so pair) order.
    fn finish(&mut self, workers: usize) {
        self.recycled = 0;
        self.kept_apart = 0;
        self.watched.clear();
        self.updated.clear();
        self.blocks.clear();
        let len = self.contacts.len().min(self.simplices.len());
        for (worker, scratch) in self.scratch[..workers].iter().enumerate() {
            self.recycled += scratch.recycled;
            self.kept_apart += scratch.kept_apart;
            self.watched.extend_from_slice(&scratch.watched);
            self.updated.extend_from_slice(&scratch.updated);
            self.blocks.push(WatchedBlock {
                pairs: share(len, worker, workers),
                end: self.watched.len(),
                updated_end: self.updated.len(),
                manifolds: scratch.manifolds,
            });
        }
    }

    /// The pairs that have points or were touching after the last [`NarrowPhase::update`], in
    /// pair order: the only ones a step's walks over the pairs (building the solver's contacts,
    /// reporting touches) need to look at. The others (most pairs of a pile: boxes overlap,
    /// shapes apart) would be read only to be skipped.
    pub fn watched(&self) -> &[u32] {
        &self.watched
    }

    /// The watched list ([`NarrowPhase::watched`]) in the blocks the last update's workers
    /// made it in (one for a serial update), each with its pairs and how many manifolds with
    /// points its updated pairs hold: a worker of a later stage can take a block whose pairs
    /// its own core has just read and written, and know where its output can start from the
    /// blocks before it.
    pub fn watched_blocks(&self) -> &[WatchedBlock] {
        &self.blocks
    }

    /// The watched pairs ([`NarrowPhase::watched`]) that the last update looked at, in pair
    /// order: all but those kept as they were because both proxies rest and did not move,
    /// whose points and touch it left as they were.
    pub fn updated(&self) -> &[u32] {
        &self.updated
    }

    /// How many pairs the last [`NarrowPhase::update`] reused instead of making again.
    pub fn recycled(&self) -> usize {
        self.recycled
    }

    /// How many pairs the last [`NarrowPhase::update`] did not query because they were too
    /// far apart, by their last query, to have come within the margin since.
    pub fn kept_apart(&self) -> usize {
        self.kept_apart
    }

    /// Drops the pairs `keep` refuses (for example two bodies a new joint stops colliding).
    /// They come back only when the broad phase reports them beginning again.
    pub fn retain(&mut self, mut keep: impl FnMut(&ProxyPair) -> bool) {
        self.settled = false;
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
    /// false, leaving the cache empty, if a pair is not ordered (`a < b`) or appears twice, or
    /// the simplices do not match the pairs (one each, at most four finite vertices).
    pub fn reindex(&mut self) -> bool {
        self.settled = false;
        self.index.clear();
        let index = &mut self.index;
        let fits = self.simplices.len() == self.contacts.len()
            && self.simplices.iter().all(SimplexCache::is_valid)
            && (self.contacts.iter().enumerate())
                .all(|(i, c)| c.pair.a < c.pair.b && index.insert(c.pair, i).is_none());
        if !fits {
            self.index.clear();
            self.contacts.clear();
            self.simplices.clear();
        }
        fits
    }

    /// Asks the memory for every cache line of pair `index`'s record, for a walk that will
    /// read it a few pairs from now (the engine's walks over the watched pairs: their records
    /// are 512 bytes apart and the manifolds lie past the first line, which a pair kept apart
    /// alone reads). A hint: it reads nothing into the program; an index out of range asks
    /// for nothing.
    #[inline(always)]
    pub fn prefetch_pair(&self, index: usize) {
        prefetch_record(&self.contacts, index);
    }

    /// Every overlapping pair with its manifolds, in a deterministic order.
    pub fn contacts(&self) -> &[PairContact] {
        &self.contacts
    }

    /// [`NarrowPhase::contacts_mut`] with the updated list ([`NarrowPhase::updated`]).
    pub fn contacts_mut_and_updated(&mut self) -> (&mut [PairContact], &[u32]) {
        self.settled = false;
        (&mut self.contacts, &self.updated)
    }

    /// Mutable access for the solver to store impulses after solving.
    pub fn contacts_mut(&mut self) -> &mut [PairContact] {
        self.settled = false;
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

    /// The drift test without square roots decides as the one with them: over random relative
    /// poses whose drift lies anywhere from far below the tolerance to past it, and for
    /// tolerances that are not positive.
    #[test]
    fn the_drift_test_without_roots_decides_as_the_one_with_them() {
        let mut uniform = crate::testing::uniform(0x5EED_D81F);
        let mut next = move || uniform() + 0.5;
        let (mut fast, mut kept) = (0, 0);
        for _ in 0..100_000 {
            let scale = [1.0e-4, 1.0e-3, 1.0e-2, 0.05][(next() * 4.0) as usize % 4];
            let (extent, tolerance) = (0.1 + next(), 0.001 + 0.1 * next());
            let mut vector =
                |scale: Real| Vector::new(next(), next(), next()).add_scalar(-0.5) * scale;
            let was = Isometry::new(vector(2.0), vector(3.0));
            let (shift, turn) = (vector(scale), vector(scale));
            let is = Isometry::new(shift + was.translation.vector, turn) * was.rotation;
            let exact = drift_between(&was, &is, extent) < tolerance;
            assert_eq!(within_drift(&was, &is, extent, tolerance), exact);
            assert!(!within_drift(&was, &is, extent, -tolerance));
            assert!(!within_drift(&was, &is, extent, 0.0));
            kept += usize::from(exact);
            let half = 0.45 * tolerance;
            let moved = (is.translation.vector - was.translation.vector).norm();
            fast += usize::from(moved < half && drift_between(&was, &is, extent) < half);
        }
        // Both outcomes, and the shortcut taken, many times over.
        assert!(
            kept > 10_000 && kept < 90_000 && fast > 5_000,
            "{kept} kept, {fast} fast"
        );
    }

    /// What the walk reads of a pair kept apart lies in the record's first cache line (the
    /// layout [`PairContact`]'s doc describes; `Option<PairCache>`'s own layout is the
    /// compiler's, so it is measured).
    #[test]
    fn a_pair_kept_apart_reads_one_cache_line() {
        let contact = PairContact {
            pair: ProxyPair {
                a: ProxyId(0),
                b: ProxyId(1),
            },
            touching: false,
            peak_impulse: 0.0,
            cache: Some(PairCache::Apart {
                relative: Isometry::identity(),
                extent_b: 1.0,
                gap: 1.0,
                budget: 1.0,
                axis: Vector::zeros(),
            }),
            manifolds: SmallVec::new(),
        };
        let start = &contact as *const PairContact as usize;
        assert_eq!(start % 64, 0);
        let Some(PairCache::Apart { budget, gap, .. }) = &contact.cache else {
            unreachable!()
        };
        let end =
            |field: &Real| field as *const Real as usize + std::mem::size_of::<Real>() - start;
        assert!(
            end(budget) <= 64 && end(gap) <= 64,
            "{} {}",
            end(budget),
            end(gap)
        );
        let (pair, touching) = (
            &contact.pair as *const ProxyPair as usize - start,
            &contact.touching as *const bool as usize - start,
        );
        assert!(pair < 64 && touching < 64);
    }
    use parry3d::math::Vector;

    /// Restored pairs need one simplex each, with finite vertices: anything else (what a
    /// hostile snapshot could hold) is refused and leaves the cache empty.
    #[test]
    fn reindex_refuses_simplices_that_do_not_fit() {
        let hull = crate::testing::hull(&mut crate::testing::uniform(5));
        let colliders = vec![
            (hull.clone(), Isometry::identity()),
            (hull, Isometry::translation(0.0, 0.7, 0.0)),
        ];
        let fresh = || {
            let mut narrow = NarrowPhase::new(0.02);
            narrow.apply(&[PairEvent::Began(ProxyPair {
                a: ProxyId(0),
                b: ProxyId(1),
            })]);
            narrow.update(colliders.as_slice());
            assert!(!narrow.simplices[0].is_empty());
            narrow
        };
        assert!(fresh().reindex());
        let mut short = fresh();
        short.simplices.clear();
        assert!(!short.reindex());
        assert!(short.contacts().is_empty() && short.simplices.is_empty());
        let mut long = fresh();
        long.simplices.push(SimplexCache::default());
        assert!(!long.reindex());
        let mut nan = fresh();
        nan.simplices[0].points[0].0.x = Real::NAN;
        assert!(!nan.reindex());
    }

    /// A pair whose budget and drift are spent (B slid 0.6 m along a gap of 0.5) is kept apart by the
    /// axis that showed the gap, without a query, and is queried once it comes within the
    /// margin: for boxes (the separating axis test's axis) and hulls (GJK's).
    #[test]
    fn a_gap_along_its_axis_keeps_a_sliding_pair_apart() {
        let points: Vec<Point<Real>> = [
            [-0.5, -0.5, -0.5],
            [0.5, -0.5, -0.5],
            [-0.5, 0.5, -0.5],
            [0.5, 0.5, -0.5],
            [-0.5, -0.5, 0.5],
            [0.5, -0.5, 0.5],
            [-0.4, 0.5, 0.5],
            [0.5, 0.5, 0.4],
        ]
        .iter()
        .map(|&[x, y, z]| Point::new(x, y, z))
        .collect();
        let shapes = [
            Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap(),
            Shape::convex_hull(&points).unwrap(),
        ];
        for shape in shapes {
            let mut colliders = vec![
                (shape.clone(), Isometry::identity()),
                (shape, Isometry::translation(0.0, 1.5, 0.0)),
            ];
            let mut narrow = NarrowPhase::new(0.02);
            narrow.apply(&[PairEvent::Began(ProxyPair {
                a: ProxyId(0),
                b: ProxyId(1),
            })]);
            narrow.update(colliders.as_slice());
            let Some(PairCache::Apart { axis, .. }) = narrow.contacts()[0].cache else {
                panic!("{:?}", narrow.contacts()[0].cache);
            };
            assert!((axis - Vector::y()).norm() < 1e-5, "{axis:?}");
            // (A slice's proxies report infinite motion: the budget is spent every update.)
            colliders[1].1.translation.vector.x += 0.6;
            narrow.update(colliders.as_slice());
            assert_eq!(narrow.kept_apart(), 1);
            colliders[1].1.translation.vector.y = 1.01;
            narrow.update(colliders.as_slice());
            assert_eq!(narrow.kept_apart(), 0);
            assert!(!narrow.contacts()[0].manifolds.is_empty());
        }
    }

    /// `drift` bounds how far any point of B within its extent moved relative to A: checked
    /// on points of B's extent sphere against the relative poses themselves, for small and
    /// large turns (the skip of pairs kept apart is exact only if it never underestimates).
    #[test]
    fn drift_bounds_the_motion_of_every_point_of_b() {
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 40) as Real / (1u64 << 24) as Real) * 2.0 - 1.0
        };
        for case in 0..2000 {
            let scale = [1.0e-4, 1.0e-2, 1.0][case % 3];
            let mut pose = |s: Real| {
                Isometry::new(
                    Vector::new(next(), next(), next()) * 3.0,
                    Vector::new(next(), next(), next()) * s,
                )
            };
            let (a0, b0) = (pose(3.0), pose(3.0));
            let (a1, b1) = (
                a0 * Isometry::new(
                    Vector::new(next(), next(), next()) * scale,
                    Vector::new(next(), next(), next()) * scale,
                ),
                b0 * Isometry::new(
                    Vector::new(next(), next(), next()) * scale,
                    Vector::new(next(), next(), next()) * scale,
                ),
            );
            let extent = 0.5 + next().abs();
            let was = a0.inv_mul(&b0);
            let is = a1.inv_mul(&b1);
            let bound = drift(&was, (&a1, &b1), extent);
            for _ in 0..20 {
                let p = Point::from(Vector::new(next(), next(), next()).normalize() * extent);
                let moved = ((is * p) - (was * p)).norm();
                assert!(
                    moved <= bound * (1.0 + 1.0e-5) + 1.0e-6,
                    "{moved} > {bound}"
                );
            }
        }
    }

    /// Split over workers, an update gives exactly what the serial one gives: the manifolds,
    /// their caches, the tallies and the watched pairs in order, step after step, for any
    /// count (the workers here run one after the other, as a pool may schedule them).
    #[test]
    fn an_update_split_over_workers_is_the_serial_one() {
        let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
        let ball = Shape::sphere(0.5).unwrap();
        let place = |i: usize, t: Real| {
            let (x, z) = ((i % 5) as Real * 0.95, (i / 5 % 5) as Real * 0.97);
            let y = (i / 25) as Real * 0.98 + 0.02 * (t + i as Real).sin();
            Isometry::new(
                Vector::new(x, y, z),
                Vector::new(0.0, 0.1 * t * (i % 3) as Real, 0.0),
            )
        };
        let shape = |i: usize| {
            if i.is_multiple_of(4) {
                ball.clone()
            } else {
                cube.clone()
            }
        };
        let n = 75;
        let mut events = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                events.push(PairEvent::Began(ProxyPair {
                    a: ProxyId(a as u32),
                    b: ProxyId(b as u32),
                }));
            }
        }
        let mut serial = NarrowPhase::new(0.02);
        serial.apply(&events);
        let mut split: Vec<NarrowPhase> = (0..3).map(|_| NarrowPhase::new(0.02)).collect();
        for narrow in &mut split {
            narrow.apply(&events);
        }
        for step in 0..6 {
            let t = step as Real * 0.05;
            let colliders: Vec<(Shape, Isometry<Real>)> =
                (0..n).map(|i| (shape(i), place(i, t))).collect();
            serial.update(colliders.as_slice());
            assert!(!serial.watched().is_empty());
            for (k, narrow) in split.iter_mut().enumerate() {
                let workers = k + 2;
                narrow.update_on(colliders.as_slice(), workers, |work| {
                    for w in (0..workers).rev() {
                        work(w, workers);
                    }
                });
                assert_eq!(narrow.watched(), serial.watched(), "{workers} workers");
                assert_eq!(narrow.recycled(), serial.recycled());
                assert_eq!(narrow.kept_apart(), serial.kept_apart());
                for (p, q) in narrow.contacts().iter().zip(serial.contacts()) {
                    assert_eq!(p.manifolds, q.manifolds, "{workers} workers");
                    assert_eq!(p.cache, q.cache);
                }
            }
        }
    }

    /// Colliders as a world at rest shows them: every proxy resting and unmoved; `claims`
    /// says whether the view also reports it through [`ProxyShapes::all_at_rest`] (the fast
    /// path) or leaves the narrow phase to find it pair by pair.
    struct AtRest<'a> {
        colliders: &'a [(Shape, Isometry<Real>)],
        claims: bool,
    }

    impl ProxyShapes for AtRest<'_> {
        fn shape_and_pose(&self, proxy: ProxyId) -> Option<(&Shape, &Isometry<Real>)> {
            self.colliders.shape_and_pose(proxy)
        }
        fn is_resting(&self, _proxy: ProxyId) -> bool {
            true
        }
        fn moved(&self, _proxy: ProxyId) -> Real {
            0.0
        }
        fn all_at_rest(&self) -> bool {
            self.claims
        }
    }

    /// A world at rest skips the walk over the pairs from its second update on, and what it
    /// reports is what the walk would have found; a change to the pairs in between (here one
    /// made through `contacts_mut`, as the engine stores impulses) makes the next update walk.
    #[test]
    fn a_world_at_rest_skips_the_walk_and_finds_what_it_would() {
        let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
        let colliders: Vec<(Shape, Isometry<Real>)> = (0..6)
            .map(|i| {
                let x = (i / 2) as Real * 3.0;
                (
                    cube.clone(),
                    Isometry::translation(x, (i % 2) as Real * 0.99, 0.0),
                )
            })
            .collect();
        let events: Vec<PairEvent> = (0..5u32)
            .map(|i| {
                PairEvent::Began(ProxyPair {
                    a: ProxyId(i),
                    b: ProxyId(i + 1),
                })
            })
            .collect();
        let (mut fast, mut walked) = (NarrowPhase::new(0.02), NarrowPhase::new(0.02));
        for narrow in [&mut fast, &mut walked] {
            narrow.apply(&events);
            narrow.update(colliders.as_slice());
        }
        let claims = AtRest {
            colliders: &colliders,
            claims: true,
        };
        let finds = AtRest {
            colliders: &colliders,
            claims: false,
        };
        let same = |fast: &NarrowPhase, walked: &NarrowPhase| {
            assert_eq!(fast.watched(), walked.watched());
            assert_eq!(fast.updated(), walked.updated());
            assert_eq!(fast.recycled(), walked.recycled());
            assert_eq!(fast.kept_apart(), walked.kept_apart());
        };
        for round in 0..3 {
            fast.update(&claims);
            walked.update(&finds);
            same(&fast, &walked);
            assert!(fast.settled, "round {round}");
            assert_eq!(fast.watched(), &[0, 2, 4][..], "the touching pairs");
        }
        // A change between updates: the next one walks and sees it.
        for narrow in [&mut fast, &mut walked] {
            narrow.contacts_mut()[2].manifolds.clear();
        }
        assert!(!fast.settled);
        fast.update(&claims);
        walked.update(&finds);
        same(&fast, &walked);
        assert_eq!(fast.watched(), &[0, 4][..]);
        // A pair ending, likewise.
        let end = [PairEvent::Ended(ProxyPair {
            a: ProxyId(0),
            b: ProxyId(1),
        })];
        for narrow in [&mut fast, &mut walked] {
            narrow.apply(&end);
        }
        fast.update(&claims);
        walked.update(&finds);
        same(&fast, &walked);
        assert_eq!(fast.contacts().len(), 4);
        assert_eq!(fast.watched().len(), 1);
    }

    /// A cache that no longer fits its manifolds (a hostile snapshot's) is reported and never
    /// used: the next update queries the pair instead of indexing a manifold that is not there.
    #[test]
    fn a_cache_that_does_not_fit_is_refused_and_not_used() {
        let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
        let colliders = vec![
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
        assert!(matches!(
            narrow.contacts()[0].cache,
            Some(PairCache::Manifold(_))
        ));
        assert!(narrow.contacts()[0].cache_is_consistent());
        narrow.contacts_mut()[0].manifolds.clear();
        assert!(!narrow.contacts()[0].cache_is_consistent());
        narrow.update(colliders.as_slice());
        assert_eq!(narrow.recycled(), 0);
        assert_eq!(narrow.contacts()[0].manifolds[0].points.len(), 4);
        assert!(narrow.contacts()[0].cache_is_consistent());
        // Apart with a manifold, or with a NaN gap, is refused too.
        let contact = &mut narrow.contacts_mut()[0];
        contact.cache = Some(PairCache::Apart {
            relative: Isometry::identity(),
            extent_b: 1.0,
            gap: 0.5,
            budget: 0.5,
            axis: Vector::y(),
        });
        assert!(!contact.cache_is_consistent());
        contact.manifolds.clear();
        assert!(contact.cache_is_consistent());
        contact.cache = Some(PairCache::Apart {
            relative: Isometry::identity(),
            extent_b: 1.0,
            gap: 0.5,
            budget: Real::NAN,
            axis: Vector::y(),
        });
        assert!(!contact.cache_is_consistent());
    }

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

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
//! an energy pump for tall stacks). See [`crate::recycle::RECYCLE_DISTANCE`].
//!
//! Pairs found apart (their boxes overlap, the shapes do not come within the margin) keep a
//! lower bound of their distance from the query, and are not queried again until their
//! relative motion since, at B's farthest point, could have closed it to within the margin and
//! the step's speculative reach: the skip is exact (a query would have found no point), and a
//! pile of hulls or balls mostly consists of such pairs.

use std::collections::HashMap;

use parry3d::math::{Isometry, Point, Real, Vector};
use smallvec::SmallVec;

use crate::broad_phase::{PairEvent, ProxyId, ProxyPair};
use crate::contact::{Manifold, ManifoldPoint};
use crate::dispatch::manifolds_or_gap;
use crate::epa::separation_along;
use crate::gjk::SimplexCache;
use crate::recycle::{drift, spent, Recycle};
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
                    && r.is_finite()
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

/// One worker's share of [`NarrowPhase::update_on`]: a block of the pairs, their simplices, and
/// the worker's buffers and tallies.
pub struct UpdateBlock<'a> {
    start: usize,
    pairs: &'a mut [PairContact],
    simplices: &'a mut [SimplexCache],
    scratch: &'a mut Scratch,
}

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

    /// [`NarrowPhase::update`] split over `workers` threads, each a fixed block of the pairs, so
    /// the result is the same bits as a serial update whatever the count. `run` is handed the
    /// blocks (one a worker, in order) and what to do with each, `work(index, block)`; it must
    /// call `work` once for each block (on a thread pool, at once or one after another) and
    /// return when all are done.
    pub fn update_on<S: ProxyShapes + Sync + ?Sized>(
        &mut self,
        shapes: &S,
        workers: usize,
        run: impl for<'b> FnOnce(
            &mut (dyn Iterator<Item = UpdateBlock<'b>> + 'b),
            &(dyn Fn(usize, UpdateBlock<'b>) + Sync),
        ),
    ) {
        if self.skip_if_settled(shapes) {
            return;
        }
        let workers = workers.max(1);
        self.scratch.resize_with(workers, Scratch::default);
        let margin = self.margin;
        let len = self.contacts.len().min(self.simplices.len());
        let (mut pairs, mut simplices) = (&mut self.contacts[..len], &mut self.simplices[..len]);
        // Each worker's block of the pairs and of their simplices, split off in turn.
        let mut blocks =
            self.scratch[..workers]
                .iter_mut()
                .enumerate()
                .map(move |(worker, scratch)| {
                    let range = share(len, worker, workers);
                    let (mine, rest) = std::mem::take(&mut pairs).split_at_mut(range.len());
                    pairs = rest;
                    let (their_simplices, rest) =
                        std::mem::take(&mut simplices).split_at_mut(range.len());
                    simplices = rest;
                    UpdateBlock {
                        start: range.start,
                        pairs: mine,
                        simplices: their_simplices,
                        scratch,
                    }
                });
        run(&mut blocks, &|_, block| {
            let UpdateBlock {
                start,
                pairs,
                simplices,
                scratch,
            } = block;
            scratch.start();
            for offset in 0..pairs.len() {
                prefetch(pairs, offset + PREFETCH_AHEAD);
                update_pair(
                    &mut pairs[offset],
                    &mut simplices[offset],
                    start + offset,
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
mod tests;

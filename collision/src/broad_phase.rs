//! Broad phase: incremental sweep-and-prune (SAP) on all three axes.
//!
//! **Stage.** First stage of collision detection, run once per step before the narrow phase.
//! **In:** one axis-aligned bounding box per collider (the *tight* box, in world space), given
//! through [`BroadPhase::insert`], [`BroadPhase::set_aabb`] and [`BroadPhase::remove`].
//! **Out:** from [`BroadPhase::update`], the [`PairEvent`]s for proxy pairs whose *fat* boxes
//! began or ended overlapping since the previous call; [`BroadPhase::pairs`] and
//! [`BroadPhase::query_aabb`] answer questions about the current state.
//!
//! # Design
//!
//! * **Three-axis incremental SAP.** For each axis the broad phase keeps every proxy's min and max
//!   endpoint in one array, sorted between updates. A moved proxy's endpoints are carried to their
//!   new places by insertion sort; each swap of a min with a max of another proxy is exactly the
//!   moment the two intervals start or stop overlapping on that axis, so the overlapping-pair set is
//!   updated on the swap (a pair is added only if the other two axes overlap as well). Because
//!   objects move little between steps the work is proportional to the motion, not to the scene,
//!   and keeping all three axes sorted makes each overlap test a few integer comparisons of
//!   endpoint positions, always consistent with the arrays. Ties sort a min before a max, so
//!   touching boxes overlap (closed intervals, as [`Aabb::intersects`]).
//! * **Fat boxes.** Each proxy stores its box enlarged by `margin`. While the tight box stays
//!   inside the fat box nothing in the arrays changes, so resting or slowly moving bodies cost one
//!   containment test; the narrow phase filters the few extra pairs. A fat box more than twice
//!   the margin larger than its box on some side is refitted too: the engine grows boxes by how
//!   far their bodies travel in a step, and a pile that fell and came to rest would otherwise
//!   keep every pair its falling boxes made.
//! * **Batched insertion and removal.** Inserting proxies one by one into sorted arrays costs O(n)
//!   each (O(n^2) for a scene load). Instead `insert` and `remove` are queued; `update` sorts the
//!   new endpoints, merges them into each array in one O(n + k log k) pass, and finds the pairs of
//!   new proxies with a single sweep along the axis where they are most spread. Removals end their
//!   pairs with the same kind of sweep and compact the arrays once.
//!
//! Output is deterministic: the pair set is a hash set used for membership only; the pairs touched
//! during an update are logged in a `Vec`, and events are produced from that sorted log.

use parry3d::bounding_volume::{Aabb, BoundingVolume};
use parry3d::math::Real;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Handle of one proxy (an AABB registered with the broad phase). Indices are reused after removal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ProxyId(pub u32);

/// A pair of proxies, always stored with `a < b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ProxyPair {
    /// The proxy with the smaller id.
    pub a: ProxyId,
    /// The proxy with the larger id.
    pub b: ProxyId,
}

/// A change of the overlapping-pair set, reported by [`BroadPhase::update`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairEvent {
    /// The two fat boxes overlap now and did not at the previous update.
    Began(ProxyPair),
    /// The two fat boxes overlapped at the previous update and do not now (or one was removed).
    Ended(ProxyPair),
}

/// The error of [`BroadPhase::insert`]: a box with a NaN or infinite bound, or `mins > maxs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidAabb;

impl std::fmt::Display for InvalidAabb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bounding box has a non-finite bound or mins > maxs")
    }
}

impl std::error::Error for InvalidAabb {}

/// Finite bounds with `mins <= maxs` on every axis.
fn is_valid(aabb: &Aabb) -> bool {
    (0..3).all(|k| {
        aabb.mins[k].is_finite() && aabb.maxs[k].is_finite() && aabb.mins[k] <= aabb.maxs[k]
    })
}

fn make_pair(p: usize, q: usize) -> ProxyPair {
    let (a, b) = if p < q { (p, q) } else { (q, p) };
    ProxyPair {
        a: ProxyId(a as u32),
        b: ProxyId(b as u32),
    }
}

/// Hasher for `ProxyPair` (two `u32` writes): packs them and mixes with the splitmix64 finalizer.
#[derive(Default)]
struct PairHasher(u64);

impl Hasher for PairHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.0 = self.0.rotate_left(32) ^ u64::from(x);
    }
    fn finish(&self) -> u64 {
        let mut z = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

type PairSet = HashSet<ProxyPair, BuildHasherDefault<PairHasher>>;

/// A proxy open during a sweep: its endpoint positions on the two other axes, then its index.
type ActiveRecord = [u32; 5];

/// Positions of a proxy's endpoints: `[axis][0 = min, 1 = max]`.
type Ends = [[u32; 2]; 3];

/// One interval bound on one axis: `data = proxy << 1 | is_max`.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Endpoint {
    value: Real,
    data: u32,
}

impl Endpoint {
    fn proxy(self) -> usize {
        (self.data >> 1) as usize
    }
    /// 0 for a min endpoint, 1 for a max endpoint.
    fn side(self) -> usize {
        (self.data & 1) as usize
    }
    /// Strict sort order: by value, and at equal values mins before maxes (closed intervals).
    fn before(self, other: Self) -> bool {
        self.value < other.value || (self.value == other.value && self.side() < other.side())
    }
    /// Key of a total order agreeing with `before` (value, then side, then proxy), used to sort
    /// a batch as plain integers; `from_key` inverts it. `-0.0` becomes `+0.0`, which `before`
    /// treats as equal anyway.
    fn key(value: Real, proxy: u32, side: u32) -> u64 {
        let bits = (value + 0.0).to_bits();
        let ordered = if bits >> 31 == 1 {
            !bits
        } else {
            bits | 1 << 31
        };
        (u64::from(ordered) << 32) | u64::from(side << 31 | proxy)
    }
    fn from_key(key: u64) -> Self {
        let ordered = (key >> 32) as u32;
        let bits = if ordered >> 31 == 1 {
            ordered & !(1 << 31)
        } else {
            !ordered
        };
        let low = key as u32;
        Self {
            value: Real::from_bits(bits),
            data: low.rotate_left(1), // side << 31 | proxy  ->  proxy << 1 | side
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
enum State {
    /// Slot on the free list.
    Free,
    /// Inserted, waiting for the next `update` to enter the arrays.
    Queued,
    /// In the arrays.
    Live,
    /// Removed by the user, still in the arrays until the next `update`.
    Removed,
}

#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct ProxyInfo {
    /// The wanted fat box; equals the box in the arrays except while a move is pending.
    fat: Aabb,
    state: State,
    /// Already on the pending-move list.
    moved: bool,
    /// Index in a sweep's active list.
    slot: u32,
}

/// Endpoint positions plus the pair set and its change log (split out for borrowing).
#[derive(Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Tracker {
    ends: Vec<Ends>,
    pairs: PairSet,
    /// Every pair inserted into or removed from `pairs` since the last `update` finished.
    log: Vec<ProxyPair>,
}

impl Tracker {
    /// A sweep found `p` and `q` overlapping. Adding: the pair is new (it involves a proxy that
    /// just entered the arrays) and is only logged; `flush_inserts` adds the logged pairs to the
    /// set in one go. Removing: the pair leaves the set.
    fn set_pair(&mut self, p: usize, q: usize, adding: bool) {
        let pair = make_pair(p, q);
        if adding || self.pairs.remove(&pair) {
            self.log.push(pair);
        }
    }

    /// Carries the endpoint at `i` on axis `k` (whose value just changed) to its sorted place,
    /// swapping with neighbours. The caller moves a proxy's endpoints so that its own min stays
    /// before its own max; then a min passing below another proxy's max (or a max passing above
    /// a min) means the two intervals now overlap on `k`, and the reverse crossings mean they
    /// stopped. Either way the pair's state flips iff the boxes overlap on the two other axes
    /// (a pair not overlapping there was never in the set); min/min and max/max swaps change
    /// nothing.
    fn sift(&mut self, arr: &mut [Endpoint], k: usize, mut i: usize) {
        // Plain slices, so the hot loop does not reload the vectors' headers after each store.
        let ends = &mut self.ends[..];
        let e = arr[i];
        let (p, s) = (e.proxy(), e.side());
        let (a, b) = ((k + 1) % 3, (k + 2) % 3);
        // Branch-free overlap test on the two other axes, run on every swap.
        let overlaps_off = |ends: &[Ends], q: usize| {
            let (ep, eq) = (&ends[p], &ends[q]);
            (ep[a][0] < eq[a][1])
                & (eq[a][0] < ep[a][1])
                & (ep[b][0] < eq[b][1])
                & (eq[b][0] < ep[b][1])
        };
        let mut flip = |q: usize, gained: bool| {
            let pair = make_pair(p, q);
            let changed = if gained {
                self.pairs.insert(pair)
            } else {
                self.pairs.remove(&pair)
            };
            if changed {
                self.log.push(pair);
            }
        };
        while i > 0 && e.before(arr[i - 1]) {
            let o = arr[i - 1];
            arr[i] = o;
            ends[o.proxy()][k][o.side()] = i as u32;
            i -= 1;
            if (o.side() != s) & overlaps_off(ends, o.proxy()) {
                flip(o.proxy(), s == 0);
            }
        }
        while i + 1 < arr.len() && arr[i + 1].before(e) {
            let o = arr[i + 1];
            arr[i] = o;
            ends[o.proxy()][k][o.side()] = i as u32;
            i += 1;
            if (o.side() != s) & overlaps_off(ends, o.proxy()) {
                flip(o.proxy(), s == 1);
            }
        }
        arr[i] = e;
        ends[p][k][s] = i as u32;
    }
}

/// Incremental three-axis sweep-and-prune over fat AABBs; see the module documentation.
///
/// ```
/// use sprung_collision::broad_phase::{BroadPhase, PairEvent};
/// use parry3d::bounding_volume::Aabb;
/// use parry3d::math::Point;
///
/// let unit = |x: f32| Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0));
/// let mut broad = BroadPhase::new(0.05);
/// let a = broad.insert(unit(0.0)).unwrap();
/// let b = broad.insert(unit(0.5)).unwrap();
/// let mut events = Vec::new();
/// broad.update(&mut events);
/// assert!(matches!(events[..], [PairEvent::Began(p)] if (p.a, p.b) == (a, b)));
/// broad.set_aabb(b, unit(3.0));
/// events.clear();
/// broad.update(&mut events);
/// assert!(matches!(events[..], [PairEvent::Ended(_)]));
/// ```
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BroadPhase {
    margin: Real,
    axes: [Vec<Endpoint>; 3],
    track: Tracker,
    proxies: Vec<ProxyInfo>,
    free: Vec<u32>,
    live: usize,
    pending_insert: Vec<u32>,
    pending_remove: Vec<u32>,
    pending_move: Vec<u32>,
    /// Sort keys: a batch of new endpoints, or moved proxies by position (kept buffer).
    #[cfg_attr(feature = "serde", serde(skip))]
    scratch: Vec<u64>,
    /// Sweep active lists: `[flagged, others]`.
    #[cfg_attr(feature = "serde", serde(skip))]
    active: [Vec<ActiveRecord>; 2],
    /// Pairs that began, collected while `Ended` events are emitted.
    #[cfg_attr(feature = "serde", serde(skip))]
    began: Vec<ProxyPair>,
}

impl BroadPhase {
    /// `margin` (m): how much each proxy's AABB is fattened; a proxy whose tight box stays inside
    /// its fat box costs nothing to move. A negative or non-finite margin is taken as 0.
    pub fn new(margin: Real) -> Self {
        let margin = if margin.is_finite() {
            margin.max(0.0)
        } else {
            0.0
        };
        Self {
            margin,
            axes: Default::default(),
            track: Tracker::default(),
            proxies: Vec::new(),
            free: Vec::new(),
            live: 0,
            pending_insert: Vec::new(),
            pending_remove: Vec::new(),
            pending_move: Vec::new(),
            scratch: Vec::new(),
            active: Default::default(),
            began: Vec::new(),
        }
    }

    /// Registers a proxy for the tight box `aabb` (stored fattened by the margin). It takes part
    /// in pairs from the next [`update`](Self::update) on. A box with a NaN or infinite bound, or
    /// with `mins > maxs`, is refused and changes nothing.
    pub fn insert(&mut self, aabb: Aabb) -> Result<ProxyId, InvalidAabb> {
        if !is_valid(&aabb) {
            return Err(InvalidAabb);
        }
        let info = ProxyInfo {
            fat: aabb.loosened(self.margin),
            state: State::Queued,
            moved: false,
            slot: 0,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.proxies[id as usize] = info;
                id
            }
            None => {
                assert!(self.proxies.len() < 1 << 31, "too many broad-phase proxies");
                self.proxies.push(info);
                self.track.ends.push([[0; 2]; 3]);
                self.proxies.len() as u32 - 1
            }
        };
        self.pending_insert.push(id);
        self.live += 1;
        Ok(ProxyId(id))
    }

    /// Removes a proxy; its pairs are reported as ended at the next [`update`](Self::update).
    /// Returns `false` (and does nothing) if `id` is not a live proxy.
    pub fn remove(&mut self, id: ProxyId) -> bool {
        let Some(info) = self.proxies.get_mut(id.0 as usize) else {
            return false;
        };
        match info.state {
            // Never entered the arrays: the id can be reused at once, and leaves the queue so
            // that a reused id is queued once (`queued` lists each proxy once).
            State::Queued => {
                info.state = State::Free;
                self.free.push(id.0);
                if let Some(i) = self.pending_insert.iter().rposition(|&p| p == id.0) {
                    self.pending_insert.swap_remove(i);
                }
            }
            State::Live => {
                info.state = State::Removed;
                self.pending_remove.push(id.0);
            }
            State::Free | State::Removed => return false,
        }
        self.live -= 1;
        true
    }

    /// Sets the tight box of a proxy. If it is not contained in the stored fat box, the fat box is
    /// recomputed and the proxy moves at the next [`update`](Self::update). Returns `false`, and
    /// changes nothing, for a dead id or an invalid box (as [`insert`](Self::insert) refuses).
    pub fn set_aabb(&mut self, id: ProxyId, aabb: Aabb) -> bool {
        if !is_valid(&aabb) {
            return false;
        }
        let Some(info) = self.proxies.get_mut(id.0 as usize) else {
            return false;
        };
        if !matches!(info.state, State::Queued | State::Live) {
            return false;
        }
        // Refit when the box leaves its fat box, and when the fat box has become much larger
        // than the box needs (a body that slowed down after its box was grown by its speed):
        // stale fat boxes keep pairs alive that no longer need the narrow phase.
        let slack = 2.0 * self.margin;
        let oversized = (0..3).any(|k| {
            aabb.mins[k] - info.fat.mins[k] > slack || info.fat.maxs[k] - aabb.maxs[k] > slack
        });
        if oversized || !info.fat.contains(&aabb) {
            info.fat = aabb.loosened(self.margin);
            if info.state == State::Live && !info.moved {
                info.moved = true;
                self.pending_move.push(id.0);
            }
        }
        true
    }

    /// How much each proxy's box is fattened (m).
    pub fn margin(&self) -> Real {
        self.margin
    }

    /// The fat box of a live proxy (including changes not yet applied by `update`).
    pub fn fat_aabb(&self, id: ProxyId) -> Option<Aabb> {
        let info = self.proxies.get(id.0 as usize)?;
        matches!(info.state, State::Queued | State::Live).then_some(info.fat)
    }

    /// The proxies inserted since the last [`update`](Self::update), which
    /// [`query_aabb`](Self::query_aabb) does not see yet; each once.
    pub fn queued(&self) -> impl Iterator<Item = ProxyId> + '_ {
        let queued = self.pending_insert.iter().copied();
        queued
            .filter(|&p| self.proxies[p as usize].state == State::Queued)
            .map(ProxyId)
    }

    /// A box around every live proxy's fat box, including changes not yet applied by
    /// [`update`](Self::update) (`None` when there is no proxy). Cheap: the ends of the sorted
    /// arrays, plus the pending inserts and moves. May be larger than needed (it can still
    /// hold a proxy removed since the last update), never smaller.
    pub fn bounds(&self) -> Option<Aabb> {
        if self.live == 0 {
            return None;
        }
        // Each axis's array is sorted: its first endpoint is the smallest min, its last the
        // largest max.
        let ends = |k: usize| Some((self.axes[k].first()?.value, self.axes[k].last()?.value));
        let mut bounds = match (ends(0), ends(1), ends(2)) {
            (Some(x), Some(y), Some(z)) => {
                Some(Aabb::new([x.0, y.0, z.0].into(), [x.1, y.1, z.1].into()))
            }
            _ => None,
        };
        for &p in self.pending_insert.iter().chain(&self.pending_move) {
            let info = &self.proxies[p as usize];
            if matches!(info.state, State::Queued | State::Live) {
                bounds = Some(bounds.map_or(info.fat, |b| b.merged(&info.fat)));
            }
        }
        bounds
    }

    /// Number of live proxies.
    pub fn len(&self) -> usize {
        self.live
    }

    /// True if there is no live proxy.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Applies pending work and appends the pairs that began and ended overlapping since the last
    /// call: first all `Ended`, then all `Began`, each sorted by pair. A pair that began and ended
    /// between two calls is not reported.
    pub fn update(&mut self, events: &mut Vec<PairEvent>) {
        self.flush_removals();
        self.flush_moves();
        self.flush_inserts();
        let log = &mut self.track.log;
        log.sort_unstable_by_key(|p| (u64::from(p.a.0) << 32) | u64::from(p.b.0));
        // Each logged entry toggles membership, so a pair changed iff it was logged an odd number
        // of times, and its current membership says which way.
        self.began.clear();
        for run in log.chunk_by(|a, b| a == b) {
            if run.len() % 2 == 1 {
                if self.track.pairs.contains(&run[0]) {
                    self.began.push(run[0]);
                } else {
                    events.push(PairEvent::Ended(run[0]));
                }
            }
        }
        events.extend(self.began.iter().map(|&p| PairEvent::Began(p)));
        log.clear();
    }

    /// Whether the internal bookkeeping holds: every endpoint array sorted and of twice the
    /// proxies in it, each endpoint where its proxy's record says, states, free and pending
    /// lists and the pair set naming proxies that can be there. Always true for a broad phase
    /// built through its methods; for one restored from bytes (sprung's snapshots) it is what
    /// stands between corrupt data and an out-of-bounds index in `update`.
    pub fn is_consistent(&self) -> bool {
        let n = self.proxies.len();
        if self.track.ends.len() != n || n >= 1 << 31 {
            return false;
        }
        let in_arrays = |s: State| matches!(s, State::Live | State::Removed);
        let arrayed = self.proxies.iter().filter(|p| in_arrays(p.state)).count();
        for (k, arr) in self.axes.iter().enumerate() {
            if arr.len() != 2 * arrayed {
                return false;
            }
            for (i, e) in arr.iter().enumerate() {
                let p = e.proxy();
                let placed = p < n
                    && in_arrays(self.proxies[p].state)
                    && self.track.ends[p][k][e.side()] as usize == i
                    && e.value.is_finite();
                let sorted = i == 0 || !e.before(arr[i - 1]);
                if !(placed && sorted) {
                    return false;
                }
            }
        }
        let boxes = self
            .proxies
            .iter()
            .filter(|p| matches!(p.state, State::Queued | State::Live))
            .all(|p| is_valid(&p.fat));
        let live = self
            .proxies
            .iter()
            .filter(|p| matches!(p.state, State::Queued | State::Live))
            .count();
        let mut freed = vec![false; n];
        let free = self.free.iter().all(|&p| {
            let p = p as usize;
            p < n && self.proxies[p].state == State::Free && !std::mem::replace(&mut freed[p], true)
        });
        let free_count = self
            .proxies
            .iter()
            .filter(|p| p.state == State::Free)
            .count();
        let pending = self
            .pending_insert
            .iter()
            .chain(&self.pending_remove)
            .chain(&self.pending_move)
            .all(|&p| (p as usize) < n);
        let removed = self.pending_remove.iter().all(|&p| {
            self.proxies
                .get(p as usize)
                .is_some_and(|i| i.state == State::Removed)
        });
        let mut waiting = vec![false; n];
        for &p in &self.pending_insert {
            if let Some(w) = waiting.get_mut(p as usize) {
                *w = true;
            }
        }
        let queued = self
            .proxies
            .iter()
            .zip(&waiting)
            .all(|(i, &w)| i.state != State::Queued || w);
        let pairs = self.track.pairs.iter().chain(&self.track.log).all(|pair| {
            let (a, b) = (pair.a.0 as usize, pair.b.0 as usize);
            a < b && b < n && in_arrays(self.proxies[a].state) && in_arrays(self.proxies[b].state)
        });
        boxes
            && live == self.live
            && free
            && free_count == self.free.len()
            && pending
            && removed
            && queued
            && pairs
    }

    /// Every overlapping pair (fat boxes) as of the last `update`, sorted.
    pub fn pairs(&self) -> Vec<ProxyPair> {
        let mut out: Vec<ProxyPair> = self.track.pairs.iter().copied().collect();
        out.sort_unstable();
        out
    }

    /// Calls `f` for every live proxy whose fat box (as of the last `update`) overlaps `aabb`,
    /// in a deterministic order. Proxies inserted since the last `update` are not seen; removed
    /// ones are skipped.
    pub fn query_aabb(&self, aabb: &Aabb, mut f: impl FnMut(ProxyId)) {
        // Candidates: mins <= aabb.maxs (a prefix) or maxs >= aabb.mins (a suffix) of one axis;
        // scan the shortest of the six ranges.
        let mut best = (usize::MAX, 0, 0, 0..0);
        for (k, arr) in self.axes.iter().enumerate() {
            let below = arr.partition_point(|e| e.value <= aabb.maxs[k]);
            let above = arr.partition_point(|e| e.value < aabb.mins[k]);
            if below < best.0 {
                best = (below, k, 0, 0..below);
            }
            if arr.len() - above < best.0 {
                best = (arr.len() - above, k, 1, above..arr.len());
            }
        }
        let (_, k, side, range) = best;
        for e in &self.axes[k][range] {
            let p = e.proxy();
            if e.side() == side && self.proxies[p].state == State::Live {
                let ends = &self.track.ends[p];
                let hit = (0..3).all(|a| {
                    self.axes[a][ends[a][0] as usize].value <= aabb.maxs[a]
                        && self.axes[a][ends[a][1] as usize].value >= aabb.mins[a]
                });
                if hit {
                    f(ProxyId(p as u32));
                }
            }
        }
    }

    fn flush_removals(&mut self) {
        if self.pending_remove.is_empty() {
            return;
        }
        let removed = std::mem::take(&mut self.pending_remove);
        self.sweep(&removed, State::Removed, false);
        for (k, arr) in self.axes.iter_mut().enumerate() {
            let mut w = 0;
            for r in 0..arr.len() {
                let e = arr[r];
                if self.proxies[e.proxy()].state == State::Removed {
                    continue;
                }
                if w != r {
                    arr[w] = e;
                    self.track.ends[e.proxy()][k][e.side()] = w as u32;
                }
                w += 1;
            }
            arr.truncate(w);
        }
        for &p in &removed {
            self.proxies[p as usize].state = State::Free;
            self.free.push(p);
        }
        self.pending_remove = removed;
        self.pending_remove.clear();
    }

    fn flush_moves(&mut self) {
        let mut moved = std::mem::take(&mut self.pending_move);
        moved.retain(|&p| {
            let info = &mut self.proxies[p as usize];
            info.moved = false;
            info.state == State::Live
        });
        // Axis by axis, visiting the moved proxies in array order, so the sifts walk the array
        // (and the neighbouring proxies' records) mostly forward and stay in cache. Any order
        // gives the same result: every swap keeps the pair set consistent with the arrays.
        for (k, arr) in self.axes.iter_mut().enumerate() {
            self.scratch.clear();
            let ends = &self.track.ends;
            let by_pos = moved
                .iter()
                .map(|&p| u64::from(ends[p as usize][k][0]) << 32 | u64::from(p));
            self.scratch.extend(by_pos);
            self.scratch.sort_unstable();
            for &key in &self.scratch {
                let p = key as u32 as usize;
                let fat = &self.proxies[p].fat;
                let [imin, imax] = self.track.ends[p][k].map(|i| i as usize);
                let (old_min, old_max) = (arr[imin].value, arr[imax].value);
                let (new_min, new_max) = (fat.mins[k], fat.maxs[k]);
                // Grow first, then shrink: a proxy's own min always stays before its own max.
                let steps = [
                    (0, new_min < old_min, new_min),
                    (1, new_max > old_max, new_max),
                    (0, new_min > old_min, new_min),
                    (1, new_max < old_max, new_max),
                ];
                for (side, needed, value) in steps {
                    if needed {
                        let i = self.track.ends[p][k][side] as usize;
                        arr[i].value = value;
                        self.track.sift(arr, k, i);
                    }
                }
            }
        }
        self.pending_move = moved;
        self.pending_move.clear();
    }

    fn flush_inserts(&mut self) {
        let mut new = std::mem::take(&mut self.pending_insert);
        // Queued-then-removed ids were freed and may have been queued again: drop both cases.
        new.sort_unstable();
        new.dedup();
        new.retain(|&p| self.proxies[p as usize].state == State::Queued);
        if !new.is_empty() {
            for (k, arr) in self.axes.iter_mut().enumerate() {
                self.scratch.clear();
                for &p in &new {
                    let fat = &self.proxies[p as usize].fat;
                    self.scratch.push(Endpoint::key(fat.mins[k], p, 0));
                    self.scratch.push(Endpoint::key(fat.maxs[k], p, 1));
                }
                self.scratch.sort_unstable();
                // Merge from the back; old endpoints below the first new one stay in place.
                let (mut i, mut j) = (arr.len(), self.scratch.len());
                arr.resize(i + j, Endpoint::from_key(self.scratch[0]));
                let mut w = arr.len();
                while j > 0 {
                    w -= 1;
                    let new = Endpoint::from_key(self.scratch[j - 1]);
                    let e = if i > 0 && new.before(arr[i - 1]) {
                        i -= 1;
                        arr[i]
                    } else {
                        j -= 1;
                        new
                    };
                    arr[w] = e;
                    self.track.ends[e.proxy()][k][e.side()] = w as u32;
                }
            }
            let start = self.track.log.len();
            self.sweep(&new, State::Queued, true);
            let track = &mut self.track;
            track.pairs.reserve(track.log.len() - start);
            for pair in &track.log[start..] {
                let fresh = track.pairs.insert(*pair);
                debug_assert!(fresh, "a new proxy already had a pair");
            }
            for &p in &new {
                self.proxies[p as usize].state = State::Live;
            }
        }
        self.pending_insert = new;
        self.pending_insert.clear();
    }

    /// One sweep along the axis where the `flagged` proxies (`ids`, all in the arrays with state
    /// `flag`) are most spread, visiting every pair that overlaps on that axis and involves at
    /// least one flagged proxy; overlapping pairs are added to (or removed from) the pair set.
    fn sweep(&mut self, ids: &[u32], flag: State, adding: bool) {
        let mut sums = [[0.0f64; 2]; 3];
        for &p in ids {
            let fat = &self.proxies[p as usize].fat;
            for (k, s) in sums.iter_mut().enumerate() {
                let c = f64::from(fat.mins[k]) + f64::from(fat.maxs[k]);
                s[0] += c;
                s[1] += c * c;
            }
        }
        let spread = |s: [f64; 2]| s[1] - s[0] * s[0] / ids.len() as f64;
        let k = (0..3).fold(0, |b, k| {
            if spread(sums[k]) > spread(sums[b]) {
                k
            } else {
                b
            }
        });

        // Active records hold the endpoint positions on the two other axes (fixed during the
        // sweep) so the overlap test reads contiguous memory: [min_a, max_a, min_b, max_b, proxy].
        let (a, b) = ((k + 1) % 3, (k + 2) % 3);
        let [act_flag, act_other] = &mut self.active;
        act_flag.clear();
        act_other.clear();
        let mut open = ids.len();
        for &e in &self.axes[k] {
            let p = e.proxy();
            let flagged = self.proxies[p].state == flag;
            if e.side() == 1 {
                let list = if flagged {
                    &mut *act_flag
                } else {
                    &mut *act_other
                };
                let s = self.proxies[p].slot as usize;
                list.swap_remove(s);
                if let Some(r) = list.get(s) {
                    self.proxies[r[4] as usize].slot = s as u32;
                }
                if flagged {
                    open -= 1;
                    if open == 0 {
                        break;
                    }
                }
                continue;
            }
            let ends = &self.track.ends[p];
            let me = [ends[a][0], ends[a][1], ends[b][0], ends[b][1], p as u32];
            let hits = |r: &&ActiveRecord| {
                (me[0] < r[1]) & (r[0] < me[1]) & (me[2] < r[3]) & (r[2] < me[3])
            };
            for r in act_flag.iter().filter(hits) {
                self.track.set_pair(p, r[4] as usize, adding);
            }
            if flagged {
                for r in act_other.iter().filter(hits) {
                    self.track.set_pair(p, r[4] as usize, adding);
                }
            }
            let list = if flagged {
                &mut *act_flag
            } else {
                &mut *act_other
            };
            self.proxies[p].slot = list.len() as u32;
            list.push(me);
        }
    }
}

#[cfg(test)]
mod tests;

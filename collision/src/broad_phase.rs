//! Broad phase: sweep-and-prune per lane of a grid.
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
//! * **Lanes.** The y-z plane is cut into square cells, the *lanes*, each running the length of
//!   the x axis; a lane's side is twice the median proxy's size across them, chosen at the first
//!   update and again whenever the number of proxies has doubled. Each proxy is listed in every lane its
//!   box crosses (one to four for most), and each lane is kept sorted along x: sweep-and-prune
//!   on one axis, with the two others as a box test, within a lane. One sorted axis over the whole
//!   scene (Terdiman's box pruning) is the same thing with a single lane, and it fails on a grid:
//!   every box of a 20 x 20 x 20 block overlaps the 400 of its slab along any axis. All three axes
//!   kept sorted (the incremental SAP this replaced) fails on motion: a box drifting in a dense
//!   scene swaps its endpoints past hundreds of others per step (3.4 ms for 8,000 drifting boxes,
//!   17 times parry3d's BVH). A lane holds only the proxies near it across the sweep axis.
//! * **Each pair in one lane.** Two overlapping boxes can share several lanes; a pair is taken in
//!   the lane holding the low corner of their overlap (on y and z), which both boxes cross.
//! * **Large proxies.** A box crossing more than 16 lanes (a ground, a wall) is not put in lanes;
//!   it is tested directly against the proxies that changed.
//! * **Fat boxes.** Each proxy stores its box enlarged by `margin`. While the tight box stays
//!   inside the fat box nothing changes, so resting or slowly moving bodies cost one containment
//!   test; the narrow phase filters the few extra pairs. A fat box more than twice the margin
//!   larger than its box on some side is refitted too: the engine grows boxes by how far their
//!   bodies travel in a step, and a pile that fell and came to rest would otherwise keep every
//!   pair its falling boxes made.
//! * **Updates by difference.** `insert`, `set_aabb` (when the fat box must change) and `remove`
//!   are queued. `update` takes the changed proxies out of their lanes and merges them back where
//!   they are now (one pass over the entries, a sort of the changed ones), finds every overlap
//!   that has a changed proxy (a sweep of the lanes when many changed, a search of the changed
//!   proxies' lanes when few), and compares them with the last update's pairs of changed proxies:
//!   the difference is the events. An update with nothing queued costs nothing.
//!
//! Output is deterministic: the entries, the pair list and the events are sorted, and nothing
//! depends on the order in which proxies were moved.

use parry3d::bounding_volume::{Aabb, BoundingVolume};
use parry3d::math::Real;

mod check;
mod lanes;
mod sort;

use lanes::{across, key, overlaps_across, Entry, Lanes, LANE_FACTOR};
use sort::sort_pairs;

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

/// A pair as one integer (lower index high), so that pair lists sort and merge as integers.
fn pair_key(p: usize, q: usize) -> u64 {
    let (a, b) = if p < q { (p, q) } else { (q, p) };
    (a as u64) << 32 | b as u64
}

/// The inverse of [`pair_key`].
fn pair_of(key: u64) -> ProxyPair {
    ProxyPair {
        a: ProxyId((key >> 32) as u32),
        b: ProxyId(key as u32),
    }
}

#[cfg(test)]
fn make_pair(p: usize, q: usize) -> ProxyPair {
    let (a, b) = if p < q { (p, q) } else { (q, p) };
    ProxyPair {
        a: ProxyId(a as u32),
        b: ProxyId(b as u32),
    }
}

/// A proxy's change in an update: none; moved within the lanes it was in (its entries are
/// updated in place); or inserted, removed, or moved across lanes (its entries are replaced).
const UNCHANGED: u8 = 0;
const MOVED: u8 = 1;
const REPLACED: u8 = 2;

/// A query box spanning more lanes than this is answered by a scan of every proxy.
const MAX_QUERY_LANES: i64 = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
enum State {
    /// Slot on the free list.
    Free,
    /// Inserted, waiting for the next `update` to be placed.
    Queued,
    /// Placed: in the lanes (or the large list) and in pairs.
    Live,
    /// Removed by the user, still placed until the next `update`.
    Removed,
}

#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct ProxyInfo {
    /// The wanted fat box; equals the placed box except while a move is pending.
    fat: Aabb,
    state: State,
    /// Already on the pending-move list.
    moved: bool,
    /// The lanes of the placed box.
    lanes: Lanes,
}

/// The payload of a proxy that has none ([`BroadPhase::payload`] reads it as `None`).
pub const NO_PAYLOAD: u32 = u32::MAX;

/// Sweep-and-prune per lane of a grid over fat AABBs; see the module documentation.
///
/// ```
/// use sprung_collision::broad_phase::{BroadPhase, PairEvent};
/// use sprung_collision::parry3d::bounding_volume::Aabb;
/// use sprung_collision::parry3d::math::Point;
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
    proxies: Vec<ProxyInfo>,
    /// Each proxy's payload (the user's index for it; [`NO_PAYLOAD`] for none, and for free
    /// and removed proxies), apart from the proxies so that the narrow phase's lookups read
    /// four bytes a proxy.
    payloads: Vec<u32>,
    /// Each proxy's box as of the last update: what pairs and queries are made of.
    placed: Vec<Aabb>,
    free: Vec<u32>,
    live: usize,
    pending_insert: Vec<u32>,
    pending_remove: Vec<u32>,
    pending_move: Vec<u32>,
    /// A lane's side (m); 0 until the first update with proxies.
    lane_size: Real,
    /// The number of live proxies when the lane size was chosen; it is chosen again when there
    /// are twice as many.
    sized_for: usize,
    /// At least the extent along the sweep axis of every proxy in `entries`.
    width: Real,
    /// A box holding every placed box (it grows; chosen again with the lane size).
    extent: Option<Aabb>,
    /// Every placed proxy that is not large, once per lane it covers, sorted by (lane, min along
    /// the sweep axis, proxy).
    entries: Vec<Entry>,
    /// The placed proxies covering more than [`lanes::MAX_LANES`] lanes, by index.
    large: Vec<u32>,
    /// Every overlapping pair, sorted.
    pairs: Vec<u64>,
    /// Per proxy, in the update under way: [`UNCHANGED`], [`MOVED`] within its lanes, or
    /// [`REPLACED`] (inserted, removed, or moved to other lanes).
    #[cfg_attr(feature = "serde", serde(skip))]
    changed: Vec<u8>,
    /// The proxies with `changed` set.
    #[cfg_attr(feature = "serde", serde(skip))]
    changed_ids: Vec<u32>,
    /// New entries, sorted and then merged.
    #[cfg_attr(feature = "serde", serde(skip))]
    batch: Vec<Entry>,
    /// Overlapping pairs with a changed proxy, found in the update under way.
    #[cfg_attr(feature = "serde", serde(skip))]
    found: Vec<u64>,
    /// The radix sort's second buffer for `found`.
    #[cfg_attr(feature = "serde", serde(skip))]
    sort_scratch: Vec<u64>,
    /// The pair list being made by an update, swapped with `pairs` at its end.
    #[cfg_attr(feature = "serde", serde(skip))]
    next_pairs: Vec<u64>,
    /// The pairs that began, collected while the ends are reported.
    #[cfg_attr(feature = "serde", serde(skip))]
    began: Vec<u64>,
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
            proxies: Vec::new(),
            payloads: Vec::new(),
            placed: Vec::new(),
            free: Vec::new(),
            live: 0,
            pending_insert: Vec::new(),
            pending_remove: Vec::new(),
            pending_move: Vec::new(),
            lane_size: 0.0,
            sized_for: 0,
            width: 0.0,
            extent: None,
            entries: Vec::new(),
            large: Vec::new(),
            pairs: Vec::new(),
            changed: Vec::new(),
            changed_ids: Vec::new(),
            batch: Vec::new(),
            found: Vec::new(),
            sort_scratch: Vec::new(),
            next_pairs: Vec::new(),
            began: Vec::new(),
        }
    }

    /// Registers a proxy for the tight box `aabb` (stored fattened by the margin). It takes part
    /// in pairs from the next [`update`](Self::update) on. A box with a NaN or infinite bound, or
    /// with `mins > maxs`, is refused and changes nothing.
    pub fn insert(&mut self, aabb: Aabb) -> Result<ProxyId, InvalidAabb> {
        self.insert_with_payload(aabb, NO_PAYLOAD)
    }

    /// As [`insert`](Self::insert), and the proxy carries `payload` (the user's index for what
    /// it bounds: sprung's engine keeps its collider's there), read back by
    /// [`payload`](Self::payload) until the proxy is removed. `NO_PAYLOAD` is none.
    pub fn insert_with_payload(
        &mut self,
        aabb: Aabb,
        payload: u32,
    ) -> Result<ProxyId, InvalidAabb> {
        if !is_valid(&aabb) {
            return Err(InvalidAabb);
        }
        let fat = aabb.loosened(self.margin);
        let info = ProxyInfo {
            fat,
            state: State::Queued,
            moved: false,
            lanes: Lanes::default(),
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.proxies[id as usize] = info;
                self.placed[id as usize] = fat;
                self.payloads[id as usize] = payload;
                id
            }
            None => {
                assert!(self.proxies.len() < 1 << 31, "too many broad-phase proxies");
                self.proxies.push(info);
                self.placed.push(fat);
                self.payloads.push(payload);
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
            // Never placed: the id can be reused at once, and leaves the queue so that a reused
            // id is queued once (`queued` lists each proxy once).
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
        self.payloads[id.0 as usize] = NO_PAYLOAD;
        self.live -= 1;
        true
    }

    /// One past the largest proxy id handed out so far (ids are reused; a table indexed by
    /// proxy needs this many rows).
    pub fn id_bound(&self) -> usize {
        self.proxies.len()
    }

    /// Sets the payload of a proxy not yet removed; returns `false` (and does nothing) for a
    /// dead id.
    pub fn set_payload(&mut self, id: ProxyId, payload: u32) -> bool {
        let live = self
            .proxies
            .get(id.0 as usize)
            .is_some_and(|info| matches!(info.state, State::Queued | State::Live));
        if live {
            self.payloads[id.0 as usize] = payload;
        }
        live
    }

    /// The payload of proxy `id` ([`insert_with_payload`](Self::insert_with_payload)), if it is
    /// live (not yet removed) and has one.
    #[inline]
    pub fn payload(&self, id: ProxyId) -> Option<u32> {
        self.payloads
            .get(id.0 as usize)
            .copied()
            .filter(|&p| p != NO_PAYLOAD)
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

    /// Whether [`set_aabb`](Self::set_aabb) would leave proxy `id` as it is for every box
    /// lying within `outer` and reaching at least `least`'s bounds (its mins at most
    /// `least.mins`, its maxs at least `least.maxs`): `outer` is inside the fat box, and such a
    /// box cannot be so much smaller than the fat box that it is refitted. Lets a caller that
    /// can bound a box more cheaply than it can compute it skip the computing. False for a dead
    /// id, and for bounds that are not numbers.
    pub fn keeps(&self, id: ProxyId, outer: &Aabb, least: &Aabb) -> bool {
        let Some(info) = self.proxies.get(id.0 as usize) else {
            return false;
        };
        let slack = 2.0 * self.margin;
        let fat = &info.fat;
        matches!(info.state, State::Queued | State::Live)
            && (0..3).all(|k| {
                // The tests of `set_aabb`, each the other way round and false for NaN.
                fat.mins[k] <= outer.mins[k]
                    && outer.maxs[k] <= fat.maxs[k]
                    && least.mins[k] - fat.mins[k] <= slack
                    && fat.maxs[k] - least.maxs[k] <= slack
            })
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
    /// [`update`](Self::update) (`None` when there is no proxy). Cheap: a box kept through the
    /// updates, plus the pending inserts and moves. May be larger than needed (it grows, and can
    /// still hold proxies removed since), never smaller.
    pub fn bounds(&self) -> Option<Aabb> {
        if self.live == 0 {
            return None;
        }
        let mut bounds = self.extent;
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
    /// between two calls is not reported. Costs nothing when nothing was inserted, moved or
    /// removed; otherwise one pass over the lanes' entries and the pairs, plus work in proportion
    /// to the changed proxies and their neighbours.
    pub fn update(&mut self, events: &mut Vec<PairEvent>) {
        if self.pending_insert.is_empty()
            && self.pending_remove.is_empty()
            && self.pending_move.is_empty()
        {
            return;
        }
        self.mark_changes();
        if self.lane_size == 0.0 || self.live > 2 * self.sized_for {
            self.choose_lanes();
        } else {
            self.replace_changed();
        }
        self.find_pairs();
        self.report(events);
        for &p in &self.changed_ids {
            self.changed[p as usize] = UNCHANGED;
            let info = &mut self.proxies[p as usize];
            if info.state == State::Removed {
                info.state = State::Free;
                self.free.push(p);
            }
        }
        self.changed_ids.clear();
    }

    /// Takes the pending lists: the removed, moved and inserted proxies are flagged as changed,
    /// and the moved and inserted ones take their new boxes and lanes.
    fn mark_changes(&mut self) {
        self.changed.resize(self.proxies.len(), UNCHANGED);
        self.changed_ids.clear();
        for &p in &self.pending_remove {
            self.changed[p as usize] = REPLACED;
            self.changed_ids.push(p);
        }
        self.pending_remove.clear();
        for &p in &self.pending_move {
            let info = &mut self.proxies[p as usize];
            info.moved = false;
            if info.state == State::Live && self.changed[p as usize] == UNCHANGED {
                let lanes = Lanes::of(&info.fat, self.lane_size.max(Real::MIN_POSITIVE));
                let stays = lanes == info.lanes && !lanes.is_large();
                self.changed[p as usize] = if stays { MOVED } else { REPLACED };
                self.changed_ids.push(p);
                info.lanes = lanes;
                self.placed[p as usize] = info.fat;
            }
        }
        self.pending_move.clear();
        for &p in &self.pending_insert {
            let info = &mut self.proxies[p as usize];
            if info.state == State::Queued {
                info.state = State::Live;
                info.lanes = Lanes::of(&info.fat, self.lane_size.max(Real::MIN_POSITIVE));
                self.placed[p as usize] = info.fat;
                self.changed[p as usize] = REPLACED;
                self.changed_ids.push(p);
            }
        }
        self.pending_insert.clear();
        // In index order, so that everything that follows is the same for any call order.
        self.changed_ids.sort_unstable();
    }

    /// Chooses the lane size from the live proxies (the median of their larger extent across the
    /// lanes) and places every one of them again.
    fn choose_lanes(&mut self) {
        let mut extents: Vec<Real> = (0..self.proxies.len())
            .filter(|&p| self.proxies[p].state == State::Live)
            .map(|p| {
                let b = &self.placed[p];
                (b.maxs.y - b.mins.y).max(b.maxs.z - b.mins.z)
            })
            .collect();
        self.sized_for = extents.len();
        let size = if extents.is_empty() {
            1.0
        } else {
            let middle = extents.len() / 2;
            *extents.select_nth_unstable_by(middle, Real::total_cmp).1 * LANE_FACTOR
        };
        self.lane_size = if size.is_finite() && size > 1e-6 {
            size
        } else {
            1.0
        };
        self.entries.clear();
        self.large.clear();
        self.batch.clear();
        self.width = 0.0;
        self.extent = None;
        for p in 0..self.proxies.len() {
            let info = &mut self.proxies[p];
            if info.state != State::Live {
                continue;
            }
            info.lanes = Lanes::of(&self.placed[p], self.lane_size);
            self.place(p as u32);
        }
        self.merge_batch();
    }

    /// Puts the changed proxies where they are now: in one pass over the entries, those that
    /// moved within their lanes take their new bounds and those replaced leave, and each entry
    /// kept is inserted back in order among those before it (a moved one goes a few places);
    /// the replaced proxies that are live come back in a sorted batch.
    fn replace_changed(&mut self) {
        let (changed, placed) = (&self.changed, &self.placed);
        let mut kept = 0;
        for r in 0..self.entries.len() {
            let mut e = self.entries[r];
            match changed[e.proxy as usize] {
                UNCHANGED => {}
                MOVED => {
                    let b = &placed[e.proxy as usize];
                    e = Entry::new(e.lane(), b, e.proxy, e.first);
                    self.width = self.width.max((b.maxs.x - b.mins.x).next_up());
                }
                _ => continue,
            }
            let mut j = kept;
            while j > 0 && e.before(self.entries[j - 1]) {
                self.entries[j] = self.entries[j - 1];
                j -= 1;
            }
            self.entries[j] = e;
            kept += 1;
        }
        self.entries.truncate(kept);
        self.large.retain(|&p| changed[p as usize] == UNCHANGED);
        self.batch.clear();
        for i in 0..self.changed_ids.len() {
            let p = self.changed_ids[i];
            let live = self.proxies[p as usize].state == State::Live;
            match self.changed[p as usize] {
                REPLACED if live => self.place(p),
                MOVED => {
                    let b = self.placed[p as usize];
                    self.extent = Some(self.extent.map_or(b, |e| e.merged(&b)));
                }
                _ => {}
            }
        }
        self.large.sort_unstable();
        self.merge_batch();
    }

    /// Adds a live proxy's entries to the batch, or the proxy to the large list.
    fn place(&mut self, p: u32) {
        let b = self.placed[p as usize];
        self.extent = Some(self.extent.map_or(b, |e| e.merged(&b)));
        let lanes = self.proxies[p as usize].lanes;
        if lanes.is_large() {
            self.large.push(p);
            return;
        }
        self.width = self.width.max((b.maxs.x - b.mins.x).next_up());
        let first = lanes.first();
        self.batch
            .extend(lanes.codes().map(|lane| Entry::new(lane, &b, p, first)));
    }

    /// Sorts the batch and merges it into the entries, from the back, in place.
    fn merge_batch(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        self.batch.sort_unstable_by_key(|e| (e.key, e.proxy));
        let (mut i, mut j) = (self.entries.len(), self.batch.len());
        self.entries.resize(i + j, self.batch[0]);
        let mut w = self.entries.len();
        while j > 0 {
            w -= 1;
            let new = self.batch[j - 1];
            self.entries[w] = if i > 0 && new.before(self.entries[i - 1]) {
                i -= 1;
                self.entries[i]
            } else {
                j -= 1;
                new
            };
        }
    }

    /// Every overlapping pair with a changed live proxy, into `found`, sorted.
    fn find_pairs(&mut self) {
        self.found.clear();
        // Many changed: one sweep of every lane, forward only, is less work than searching from
        // each changed entry both ways.
        let changed_entries = self.changed_ids.len() * 2;
        if changed_entries * 4 > self.entries.len() {
            self.sweep_lanes();
        } else {
            self.search_lanes();
        }
        self.pair_large();
        sort_pairs(&mut self.found, &mut self.sort_scratch, self.proxies.len());
        debug_assert!(
            self.found.windows(2).all(|w| w[0] != w[1]),
            "a pair found twice"
        );
    }

    /// Box pruning along every lane: each entry against the later entries of its lane that start
    /// before it ends. A pair is kept if one of its proxies changed, the boxes overlap across the
    /// lanes and this lane holds the corner of their overlap.
    fn sweep_lanes(&mut self) {
        let (entries, changed) = (&self.entries, &self.changed);
        for (i, e) in entries.iter().enumerate() {
            let (p, lane) = (e.proxy, e.lane());
            let (to, changed_p) = (key(lane, e.max), changed[p as usize] != UNCHANGED);
            for f in entries[i + 1..].iter().take_while(|f| f.key <= to) {
                let q = f.proxy;
                let hit = (changed_p | (changed[q as usize] != UNCHANGED))
                    & overlaps_across(&e.across, &f.across)
                    & (Lanes::corner(e.first, f.first) == lane);
                if hit {
                    self.found.push(pair_key(p as usize, q as usize));
                }
            }
        }
    }

    /// From each entry of a changed proxy, its lane searched both ways for the entries that can
    /// overlap it: back to those starting `width` before it, forward to its end. A pair is kept
    /// if the boxes overlap across the lanes and this lane holds the corner of their overlap; a
    /// pair of two changed proxies is reported by the lower index.
    fn search_lanes(&mut self) {
        let (entries, changed) = (&self.entries, &self.changed);
        for (i, e) in entries.iter().enumerate() {
            let p = e.proxy;
            if changed[p as usize] == UNCHANGED {
                continue;
            }
            let (min, lane) = (e.min(), e.lane());
            let from = key(lane, (min - self.width).next_down());
            let to = key(lane, e.max);
            // One branch per candidate (on the outcome), the tests themselves without: which
            // neighbours overlap is as good as random.
            let mut check = |f: &Entry| {
                let q = f.proxy;
                let reported_by_q = (changed[q as usize] != UNCHANGED) & (q < p);
                let hit = !reported_by_q
                    & (f.max >= min)
                    & overlaps_across(&e.across, &f.across)
                    & (Lanes::corner(e.first, f.first) == lane);
                if hit {
                    self.found.push(pair_key(p as usize, q as usize));
                }
            };
            for f in entries[..i].iter().rev().take_while(|f| f.key >= from) {
                check(f);
            }
            for f in entries[i + 1..].iter().take_while(|f| f.key <= to) {
                check(f);
            }
        }
    }

    /// The pairs of the large proxies: a changed one against every live proxy, an unchanged one
    /// against the changed proxies that are not large.
    fn pair_large(&mut self) {
        let (placed, changed) = (&self.placed, &self.changed);
        for &l in &self.large {
            let lb = &placed[l as usize];
            if changed[l as usize] != UNCHANGED {
                for (q, info) in self.proxies.iter().enumerate() {
                    let both_large_changed =
                        info.lanes.is_large() && changed[q] != UNCHANGED && q < l as usize;
                    let skip = q == l as usize || info.state != State::Live || both_large_changed;
                    if !skip && lb.intersects(&placed[q]) {
                        self.found.push(pair_key(l as usize, q));
                    }
                }
            } else {
                for &c in &self.changed_ids {
                    let info = &self.proxies[c as usize];
                    let skip = info.state != State::Live || info.lanes.is_large();
                    if !skip && lb.intersects(&placed[c as usize]) {
                        self.found.push(pair_key(l as usize, c as usize));
                    }
                }
            }
        }
    }

    /// The last update's pairs against those found now, in one merge of the two sorted lists: a
    /// pair found is kept, and began if it was not there; a pair of the last update not found
    /// is kept if neither proxy changed (nothing about it can have), else it ended. (It was a
    /// split of the pairs by whether a proxy changed and two merges: three passes over them.)
    fn report(&mut self, events: &mut Vec<PairEvent>) {
        let changed = |p: u64| self.changed[p as u32 as usize] != UNCHANGED;
        let (old, found) = (&self.pairs, &self.found);
        let next = &mut self.next_pairs;
        next.clear();
        next.reserve(old.len() + found.len());
        self.began.clear();
        let (mut i, mut j) = (0, 0);
        while i < old.len() && j < found.len() {
            let (o, f) = (old[i], found[j]);
            if o < f {
                if changed(o >> 32) | changed(o) {
                    events.push(PairEvent::Ended(pair_of(o)));
                } else {
                    next.push(o);
                }
                i += 1;
            } else {
                if f < o {
                    self.began.push(f);
                } else {
                    i += 1;
                }
                next.push(f);
                j += 1;
            }
        }
        for &o in &old[i..] {
            if changed(o >> 32) | changed(o) {
                events.push(PairEvent::Ended(pair_of(o)));
            } else {
                next.push(o);
            }
        }
        self.began.extend_from_slice(&found[j..]);
        next.extend_from_slice(&found[j..]);
        events.extend(self.began.iter().map(|&p| PairEvent::Began(pair_of(p))));
        std::mem::swap(&mut self.pairs, &mut self.next_pairs);
    }

    /// Every overlapping pair (fat boxes) as of the last `update`, sorted.
    pub fn pairs(&self) -> Vec<ProxyPair> {
        self.pairs.iter().map(|&p| pair_of(p)).collect()
    }

    /// Calls `f` for every live proxy whose fat box (as of the last `update`) overlaps `aabb`,
    /// in a deterministic order. Proxies inserted since the last `update` are not seen; removed
    /// ones are skipped.
    pub fn query_aabb(&self, aabb: &Aabb, mut f: impl FnMut(ProxyId)) {
        if self.lane_size == 0.0 {
            return; // nothing placed yet
        }
        let live = |p: usize| self.proxies[p].state == State::Live;
        let lanes = Lanes::of(aabb, self.lane_size);
        if lanes.count() > MAX_QUERY_LANES {
            for p in (0..self.proxies.len()).filter(|&p| live(p)) {
                if self.placed[p].intersects(aabb) {
                    f(ProxyId(p as u32));
                }
            }
            return;
        }
        let from = (aabb.mins.x - self.width).next_down();
        let (q, first) = (across(aabb), lanes.first());
        for lane in lanes.codes() {
            let (lo, hi) = (key(lane, from), key(lane, aabb.maxs.x));
            let start = self.entries.partition_point(|e| e.key < lo);
            for e in &self.entries[start..] {
                if e.key > hi {
                    break;
                }
                let p = e.proxy as usize;
                let hit = e.max >= aabb.mins.x && overlaps_across(&e.across, &q) && live(p);
                if hit && Lanes::corner(e.first, first) == lane {
                    f(ProxyId(p as u32));
                }
            }
        }
        for &p in &self.large {
            if live(p as usize) && self.placed[p as usize].intersects(aabb) {
                f(ProxyId(p));
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // (a test times the update against brute force)
mod tests;

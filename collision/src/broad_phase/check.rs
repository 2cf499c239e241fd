//! The broad phase's consistency check: what stands between a corrupt snapshot and an
//! out-of-bounds index.

use super::*;

impl BroadPhase {
    /// Whether the internal bookkeeping holds: the entries sorted, each placed proxy in exactly
    /// its lanes (or on the large list) with its placed box, states, free and pending lists and
    /// the pair list naming proxies that can be there. Always true for a broad phase built
    /// through its methods; for one restored from bytes (sprung's snapshots) it is what stands
    /// between corrupt data and an out-of-bounds index in `update`.
    pub fn is_consistent(&self) -> bool {
        let n = self.proxies.len();
        if self.placed.len() != n || self.payloads.len() != n || n >= 1 << 31 {
            return false;
        }
        // Only proxies not yet removed carry a payload.
        let carried = |s: State| matches!(s, State::Queued | State::Live);
        if (0..n).any(|p| self.payloads[p] != NO_PAYLOAD && !carried(self.proxies[p].state)) {
            return false;
        }
        let placed = |s: State| matches!(s, State::Live | State::Removed);
        let valid_size =
            self.lane_size == 0.0 || (self.lane_size.is_finite() && self.lane_size > 0.0);
        if !valid_size || self.width.is_nan() || self.width < 0.0 {
            return false;
        }
        // Each placed proxy: its lanes those of its box, its entries (or large-list place) all
        // there, each with its box's values.
        let mut seen = vec![0i64; n];
        let sorted = self.entries.windows(2).all(|w| w[0].before(w[1]));
        let entries_ok = self.lane_size > 0.0 || self.entries.is_empty();
        let entries_ok = entries_ok
            && self.entries.iter().all(|e| {
                let p = e.proxy as usize;
                if p >= n || !placed(self.proxies[p].state) {
                    return false;
                }
                let (b, lanes) = (&self.placed[p], self.proxies[p].lanes);
                seen[p] += 1;
                !lanes.is_large()
                    && lanes.codes().any(|c| c == e.lane())
                    && e.min() == b.mins.x
                    && e.max == b.maxs.x
                    && e.across == across(b)
                    && e.first == lanes.first()
                    && b.maxs.x - b.mins.x <= self.width
            });
        let large_ok = self.large.windows(2).all(|w| w[0] < w[1])
            && self.large.iter().all(|&p| {
                (p as usize) < n
                    && placed(self.proxies[p as usize].state)
                    && self.proxies[p as usize].lanes.is_large()
            });
        let each_placed = (0..n).all(|p| {
            let info = &self.proxies[p];
            if !placed(info.state) {
                return seen[p] == 0;
            }
            let b = &self.placed[p];
            let fits = self.lane_size > 0.0
                && is_valid(b)
                && info.lanes == Lanes::of(b, self.lane_size)
                && self.extent.is_some_and(|e| e.contains(b));
            let listed = if info.lanes.is_large() {
                self.large.binary_search(&(p as u32)).is_ok()
            } else {
                seen[p] == info.lanes.count()
            };
            fits && listed
        });
        let fat_ok = self
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
        // Every removed proxy waits on the removal list exactly once (else it would stay in
        // the lanes for ever, and pair).
        let mut listed = vec![false; n];
        let removed = self.pending_remove.iter().all(|&p| {
            let removed = self
                .proxies
                .get(p as usize)
                .is_some_and(|i| i.state == State::Removed);
            removed && !std::mem::replace(&mut listed[p as usize], true)
        }) && self
            .proxies
            .iter()
            .filter(|p| p.state == State::Removed)
            .count()
            == self.pending_remove.len();
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
        let pairs = self.pairs.windows(2).all(|w| w[0] < w[1])
            && self.pairs.iter().all(|&pair| {
                let (a, b) = ((pair >> 32) as usize, pair as u32 as usize);
                a < b && b < n && placed(self.proxies[a].state) && placed(self.proxies[b].state)
            });
        sorted
            && entries_ok
            && large_ok
            && each_placed
            && fat_ok
            && live == self.live
            && free
            && free_count == self.free.len()
            && pending
            && removed
            && queued
            && pairs
    }
}

//! Contacts and sensor overlaps that began or ended, reported as events after the solve.

use super::rows::PREFETCH_AHEAD;
use super::*;
use sprung_collision::narrow_phase::{prefetch_record, PairContact};
use sprung_solver::Shared;

impl World {
    /// Hands each contact's accumulated impulses back to its pair for the next warm start,
    /// compares each moving pair's contact with the last step's and reports the contacts and
    /// sensor overlaps that began or ended. A contact touches when a point overlaps or took an
    /// impulse (a speculative point that stopped an approach did touch).
    ///
    /// One walk over the pairs that can have changed this step, each pair's solved contacts
    /// taken with it: the pairs of the solved contacts (built in pair order by
    /// `build_contacts`) and those the narrow phase updated ([`NarrowPhase::updated`]). Every
    /// other watched pair has both proxies at rest, its points and touch as the last step left
    /// them, so it cannot begin or end touching: a pile asleep is not read at all. A pair's
    /// record (432 bytes) is read once here, not once to store the impulses and again to
    /// report (in `boxes` each first read of a record is a cache miss).
    ///
    /// When `build_contacts` wrote the contacts on several workers, the same workers walk the
    /// same blocks of pairs here (each its block's records, in its core's cache), each event
    /// kept in its block's list and the lists added in block order: the events of one walk.
    ///
    /// [`NarrowPhase::updated`]: sprung_collision::narrow_phase::NarrowPhase::updated
    pub(super) fn report_touching(&mut self) {
        if self.solver.contacts.is_empty() && self.narrow_phase.updated().is_empty() {
            // Nothing to walk (a world at rest): the pairs are left untouched, so that the
            // narrow phase knows they have not changed.
            return;
        }
        if self.report_blocks.len() > 1 {
            let workers = self.report_blocks.len();
            self.block_events.resize_with(workers, Vec::new);
            let (pairs, updated) = self.narrow_phase.contacts_mut_and_updated();
            let pairs = Shared(pairs.as_mut_ptr());
            let events = Shared(self.block_events.as_mut_ptr());
            // Out of the solver while its pool runs the walk (a move of the list's handle).
            let solved = std::mem::take(&mut self.solver.contacts);
            let (blocks, contacts) = (&self.report_blocks, solved.as_slice());
            let (sources, broad_phase) = (&self.contact_sources, &self.broad_phase);
            let colliders = &self.colliders;
            let event_of =
                |pair, began, impulse| touch_event_of(broad_phase, colliders, pair, began, impulse);
            self.solver.run_on_workers(workers, &|worker, count| {
                if count != workers || worker >= workers {
                    return;
                }
                let block = &blocks[worker];
                let (pairs, events) = (&pairs, &events);
                // SAFETY: each worker touches its own block of the pairs (the narrow phase's
                // blocks are disjoint, and a block's contacts and updated pairs lie in it) and
                // its own event list, through pointers valid until `run_on_workers` returns.
                let (records, out) = unsafe {
                    (
                        std::slice::from_raw_parts_mut(
                            pairs.0.add(block.pairs.start),
                            block.pairs.len(),
                        ),
                        &mut *events.0.add(worker),
                    )
                };
                out.clear();
                let walk = Walk {
                    solved: &contacts[block.contacts.clone()],
                    sources,
                    updated: &updated[block.updated.clone()],
                };
                walk.run(records, block.pairs.start, out, &event_of);
            });
            self.solver.contacts = solved;
            for list in &self.block_events {
                self.events.extend_from_slice(list);
            }
            return;
        }
        let (pairs, updated) = self.narrow_phase.contacts_mut_and_updated();
        let walk = Walk {
            solved: &self.solver.contacts,
            sources: &self.contact_sources,
            updated,
        };
        let (broad_phase, colliders) = (&self.broad_phase, &self.colliders);
        let event_of =
            |pair, began, impulse| touch_event_of(broad_phase, colliders, pair, began, impulse);
        walk.run(pairs, 0, &mut self.events, &event_of);
    }

    /// The event of `pair` beginning (`began`) or ending to touch, if both colliders live.
    pub(super) fn touch_event(&self, pair: ProxyPair, began: bool, impulse: Real) -> Option<Event> {
        touch_event_of(&self.broad_phase, &self.colliders, pair, began, impulse)
    }
}

/// The lists [`World::report_touching`] walks (a block of them, on several workers).
struct Walk<'a> {
    /// The solved contacts, in pair order, and every contact's source by its `user_index`.
    solved: &'a [Contact],
    sources: &'a [(u32, u32)],
    /// The pairs the narrow phase updated, in pair order.
    updated: &'a [u32],
}

impl Walk<'_> {
    /// The walk over `pairs` (the records of pairs `base..`), events pushed on `events`.
    fn run(
        &self,
        pairs: &mut [PairContact],
        base: usize,
        events: &mut Vec<Event>,
        event_of: &dyn Fn(ProxyPair, bool, Real) -> Option<Event>,
    ) {
        let (mut next, mut u) = (0, 0);
        loop {
            // The next pair, in pair order, of either list.
            let solved = self.solved.get(next).map(|c| {
                let (source, _) = self.sources[c.user_index as usize];
                source as usize
            });
            let updated = self.updated.get(u).map(|&i| i as usize);
            let i = match (solved, updated) {
                (None, None) => break,
                (Some(s), Some(w)) => s.min(w),
                (Some(s), None) => s,
                (None, Some(w)) => w,
            };
            if updated == Some(i) {
                u += 1;
            }
            // The pair a few contacts ahead (its record was read before the solve, and the
            // solve's bundles have since pushed it out of the cache).
            if let Some(c) = self.solved.get(next + PREFETCH_AHEAD) {
                let (ahead, _) = self.sources[c.user_index as usize];
                prefetch_record(pairs, ahead as usize - base);
            }
            let pair = &mut pairs[i - base];
            // A pair that was not touching restarts its peak, once (at its first manifold).
            let mut first = true;
            while let Some(c) = self.solved.get(next) {
                let (source, m) = self.sources[c.user_index as usize];
                if source as usize != i {
                    break;
                }
                next += 1;
                let manifold = &mut pair.manifolds[m as usize];
                for (stored, solved) in manifold.points.iter_mut().zip(&c.points) {
                    stored.normal_impulse = solved.normal_impulse;
                }
                manifold.friction_impulse = c.friction_impulse;
                manifold.twist_impulse = c.twist_impulse;
                manifold.rolling_impulse = c.rolling_impulse;
                let step_peak = c
                    .points
                    .iter()
                    .map(|p| p.max_normal_impulse)
                    .fold(0.0, Real::max);
                if !pair.touching && first {
                    pair.peak_impulse = 0.0;
                }
                first = false;
                pair.peak_impulse = pair.peak_impulse.max(step_peak);
            }
            let now = pair
                .manifolds
                .iter()
                .flat_map(|m| &m.points)
                .any(|p| p.separation <= 0.0 || p.normal_impulse > 0.0);
            if now == pair.touching {
                continue;
            }
            pair.touching = now;
            let (pair, impulse) = (pair.pair, pair.peak_impulse);
            events.extend(event_of(pair, now, impulse));
        }
    }
}

/// The event of `pair` beginning (`began`) or ending to touch, if both colliders live.
fn touch_event_of(
    broad_phase: &BroadPhase,
    colliders: &Arena<Collider, ColliderHandle>,
    pair: ProxyPair,
    began: bool,
    impulse: Real,
) -> Option<Event> {
    let (sa, sb) = (broad_phase.payload(pair.a)?, broad_phase.payload(pair.b)?);
    let handle = |index: u32| -> ColliderHandle { colliders.handle(index) };
    let (ca, cb) = (colliders.at(sa), colliders.at(sb));
    if ca.sensor || cb.sensor {
        let (sensor, other, body) = if ca.sensor {
            (handle(sa), handle(sb), cb.body)
        } else {
            (handle(sb), handle(sa), ca.body)
        };
        return Some(if began {
            Event::SensorEntered {
                sensor,
                other,
                body,
            }
        } else {
            Event::SensorLeft {
                sensor,
                other,
                body,
            }
        });
    }
    let (colliders, bodies) = ((handle(sa), handle(sb)), (ca.body, cb.body));
    Some(if began {
        Event::ContactBegan {
            colliders,
            bodies,
            impulse,
        }
    } else {
        Event::ContactEnded {
            colliders,
            bodies,
            max_impulse: impulse,
        }
    })
}

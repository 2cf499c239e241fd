//! Contacts and sensor overlaps that began or ended, reported as events after the solve.

use super::*;

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
    /// [`NarrowPhase::updated`]: sprung_collision::narrow_phase::NarrowPhase::updated
    pub(super) fn report_touching(&mut self) {
        let (mut next, mut u) = (0, 0);
        loop {
            // The next pair, in pair order, of either list.
            let solved = self.solver.contacts.get(next).map(|c| {
                let (source, _) = self.contact_sources[c.user_index as usize];
                source as usize
            });
            let updated = self.narrow_phase.updated().get(u).map(|&i| i as usize);
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
            if let Some(c) = self.solver.contacts.get(next + super::rows::PREFETCH_AHEAD) {
                let (ahead, _) = self.contact_sources[c.user_index as usize];
                self.narrow_phase.prefetch_pair(ahead as usize);
            }
            let pair = &mut self.narrow_phase.contacts_mut()[i];
            // A pair that was not touching restarts its peak, once (at its first manifold).
            let mut first = true;
            while let Some(c) = self.solver.contacts.get(next) {
                let (source, m) = self.contact_sources[c.user_index as usize];
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
            let event = self.touch_event(pair, now, impulse);
            self.events.extend(event);
        }
    }

    /// The event of `pair` beginning (`began`) or ending to touch, if both colliders live.
    pub(super) fn touch_event(&self, pair: ProxyPair, began: bool, impulse: Real) -> Option<Event> {
        let (sa, sb) = (
            self.broad_phase.payload(pair.a)?,
            self.broad_phase.payload(pair.b)?,
        );
        let handle = |index: u32| -> ColliderHandle { self.colliders.handle(index) };
        let (ca, cb) = (self.colliders.at(sa), self.colliders.at(sb));
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
}

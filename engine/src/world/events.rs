//! Contacts and sensor overlaps that began or ended, reported as events after the solve.

use super::*;

impl World {
    /// Compares each moving pair's contact with the last step's and reports the contacts and
    /// sensor overlaps that began or ended. A contact touches when a point overlaps or took an
    /// impulse (a speculative point that stopped an approach did touch).
    pub(super) fn report_touching(&mut self) {
        let pairs = self.narrow_phase.contacts_mut();
        for c in &self.solver.contacts {
            let step_peak = c
                .points
                .iter()
                .map(|p| p.max_normal_impulse)
                .fold(0.0, Real::max);
            let source = c.user_index as usize;
            let index = self.contact_sources[source].0;
            let first = source == 0 || self.contact_sources[source - 1].0 != index;
            let pair = &mut pairs[index as usize];
            // A pair that was not touching restarts its peak, once (at its first manifold).
            if !pair.touching && first {
                pair.peak_impulse = 0.0;
            }
            pair.peak_impulse = pair.peak_impulse.max(step_peak);
        }
        // Only pairs with points now, or touching before, can change.
        for w in 0..self.narrow_phase.watched().len() {
            let i = self.narrow_phase.watched()[w] as usize;
            let c = &self.narrow_phase.contacts()[i];
            let now = c
                .manifolds
                .iter()
                .flat_map(|m| &m.points)
                .any(|p| p.separation <= 0.0 || p.normal_impulse > 0.0);
            if now == c.touching {
                continue;
            }
            let (pair, impulse) = (c.pair, c.peak_impulse);
            self.narrow_phase.contacts_mut()[i].touching = now;
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

//! Islands and sleeping: bodies that touch or are joined form islands, and an island whose
//! bodies have all been slow for a while stops being simulated until something wakes it.

use parry3d::math::{Real, Vector};

use crate::body::{BodyKind, RigidBody};
use crate::handle::{Arena, BodyHandle};

/// When bodies fall asleep. A world holds one ([`crate::World::sleep_settings`], checked by
/// [`crate::World::set_sleep_settings`]).
///
/// ```
/// use sprung::{SleepSettings, World};
///
/// let mut world = World::default();
/// assert!(world.sleep_settings().enabled);
/// world.set_sleeping(false); // every body stays awake: the raw cost of a step
/// let slower = SleepSettings { time_to_sleep: 1.0, ..*world.sleep_settings() };
/// world.set_sleep_settings(slower).unwrap();
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SleepSettings {
    /// Whether islands may sleep at all.
    pub enabled: bool,
    /// A body is slow while its linear speed is under this (m/s)...
    pub linear_threshold: Real,
    /// ...and its angular speed under this (rad/s).
    pub angular_threshold: Real,
    /// How long (s) every body of an island must have been slow before it sleeps.
    pub time_to_sleep: Real,
}

impl Default for SleepSettings {
    fn default() -> Self {
        SleepSettings {
            enabled: true,
            linear_threshold: 0.05,
            angular_threshold: 0.05,
            time_to_sleep: 0.5,
        }
    }
}

/// The islands of the step and the islands asleep.
///
/// Awake islands are found afresh each step by union-find over the solver's bodies, linked by
/// the step's contacts and joints: no graph is kept up to date through every change. An island
/// that falls asleep is remembered as its list of body slots, so that touching any of its
/// bodies wakes all of them at once, and a sleeping island costs nothing until then.
#[derive(Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Islands {
    /// Union-find parent of each solver body (reused each step).
    #[cfg_attr(feature = "serde", serde(skip))]
    parent: Vec<u32>,
    /// Per root: the shortest time any member has been slow.
    #[cfg_attr(feature = "serde", serde(skip))]
    slowest: Vec<Real>,
    /// Per root: the sleeping island it became this step (u32::MAX: none).
    #[cfg_attr(feature = "serde", serde(skip))]
    became: Vec<u32>,
    /// Sleeping islands: the slots of their bodies.
    asleep: Arena<Vec<u32>>,
    /// Bodies that fell asleep or woke since the events were last collected.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) fell_asleep: Vec<u32>,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) woke: Vec<u32>,
}

impl Default for Islands {
    fn default() -> Self {
        Islands {
            parent: Vec::new(),
            slowest: Vec::new(),
            became: Vec::new(),
            // Island ids never leave the engine: no world id needed.
            asleep: Arena::new(0),
            fell_asleep: Vec::new(),
            woke: Vec::new(),
        }
    }
}

impl Islands {
    /// Wakes the island `slot` sleeps in, if it sleeps. Returns true if it did.
    pub(crate) fn wake(&mut self, bodies: &mut Arena<RigidBody, BodyHandle>, slot: u32) -> bool {
        let Some(island) = bodies.at(slot).island else {
            return false;
        };
        for member in self.asleep.take(island).unwrap_or_default() {
            let body = bodies.at_mut(member);
            body.island = None;
            body.slow_time = 0.0;
            self.woke.push(member);
        }
        true
    }

    /// Whether the sleeping islands and the bodies agree (for a restored snapshot): each island
    /// lists live dynamic bodies that name it, and each body naming an island is listed there.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) fn is_consistent(&self, bodies: &Arena<RigidBody, BodyHandle>) -> bool {
        if !self.asleep.is_consistent() {
            return false;
        }
        let listed = self.asleep.iter().all(|(island, members)| {
            !members.is_empty()
                && members.iter().all(|&slot| {
                    bodies.is_live(slot) && {
                        let body = bodies.at(slot);
                        body.island == Some(island) && body.kind == BodyKind::Dynamic
                    }
                })
        });
        let named = bodies.iter().all(|(slot, body)| match body.island {
            None => true,
            Some(island) => self.asleep.is_live(island) && self.asleep.at(island).contains(&slot),
        });
        listed && named
    }

    /// True if some island sleeps.
    pub(crate) fn any_asleep(&self) -> bool {
        !self.asleep.is_empty()
    }

    /// Wakes every sleeping island (sleeping was turned off).
    pub(crate) fn wake_all(&mut self, bodies: &mut Arena<RigidBody, BodyHandle>) {
        loop {
            let first = self.asleep.iter().next().map(|(_, members)| members[0]);
            let Some(first) = first else { break };
            self.wake(bodies, first);
        }
    }

    /// Forgets a body about to be removed: its island wakes first, so no list keeps its slot.
    pub(crate) fn forget(&mut self, bodies: &mut Arena<RigidBody, BodyHandle>, slot: u32) {
        self.wake(bodies, slot);
        self.woke.retain(|&s| s != slot);
        self.fell_asleep.retain(|&s| s != slot);
    }

    /// After the solve: advances each awake body's slow time, groups the solver's bodies into
    /// islands along `links` (pairs of solver indices), and puts to sleep every island whose
    /// bodies have all been slow for `settings.time_to_sleep`. `slots[i]` is the body slot of
    /// solver body `i`.
    pub(crate) fn update(
        &mut self,
        bodies: &mut Arena<RigidBody, BodyHandle>,
        slots: &[u32],
        links: impl Iterator<Item = (u32, u32)>,
        settings: &SleepSettings,
        dt: Real,
    ) {
        let mut ready = false;
        for &slot in slots {
            let body = bodies.at_mut(slot);
            let slow = settings.enabled
                && body.can_sleep
                && body.kind == BodyKind::Dynamic
                && body.linear_velocity.norm_squared() < settings.linear_threshold.powi(2)
                && body.angular_velocity.norm_squared() < settings.angular_threshold.powi(2);
            body.slow_time = if slow { body.slow_time + dt } else { 0.0 };
            ready |= body.slow_time >= settings.time_to_sleep;
        }
        // No body slow for long enough: no island can sleep, so none need be found.
        if !settings.enabled || !ready {
            return;
        }
        let n = slots.len();
        self.parent.clear();
        self.parent.extend(0..n as u32);
        self.slowest.clear();
        self.slowest.resize(n, Real::INFINITY);
        // Kinematic bodies carry what they touch but never sleep, and do not join islands.
        let dynamic = |bodies: &Arena<RigidBody, BodyHandle>, slot: u32| {
            bodies.at(slot).kind == BodyKind::Dynamic
        };
        for (a, b) in links {
            let (Some(&slot_a), Some(&slot_b)) = (slots.get(a as usize), slots.get(b as usize))
            else {
                continue; // static
            };
            if dynamic(bodies, slot_a) && dynamic(bodies, slot_b) {
                let (ra, rb) = (self.root(a), self.root(b));
                // The smaller index becomes the root: the same world gives the same islands.
                self.parent[ra.max(rb) as usize] = ra.min(rb);
            }
        }
        for (i, &slot) in slots.iter().enumerate() {
            let root = self.root(i as u32) as usize;
            self.slowest[root] = self.slowest[root].min(bodies.at(slot).slow_time);
        }
        self.became.clear();
        self.became.resize(n, u32::MAX);
        for (i, &slot) in slots.iter().enumerate() {
            let root = self.root(i as u32) as usize;
            if !dynamic(bodies, slot) || self.slowest[root] < settings.time_to_sleep {
                continue;
            }
            if self.became[root] == u32::MAX {
                self.became[root] = self.asleep.add(Vec::new());
            }
            let island = self.became[root];
            self.asleep.at_mut(island).push(slot);
            let body = bodies.at_mut(slot);
            body.island = Some(island);
            body.linear_velocity = Vector::zeros();
            body.angular_velocity = Vector::zeros();
            self.fell_asleep.push(slot);
        }
    }

    /// The root of `i`'s set, halving the path on the way.
    fn root(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            let grand = self.parent[self.parent[i as usize] as usize];
            self.parent[i as usize] = grand;
            i = grand;
        }
        i
    }
}

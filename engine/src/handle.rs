//! Generational handles over a slab, one type for each kind of thing a world keeps: a removed
//! body's handle never finds another body, and a handle of another world never finds anything
//! here.
//!
//! A handle is (world, index, generation). The world id is handed out once per [`crate::World`]
//! from a process-wide counter, so that a handle kept from one world and passed to another is
//! refused as stale instead of acting on whatever that world keeps in the same slot.

use std::sync::atomic::{AtomicU32, Ordering};

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub struct $name {
            pub(crate) world: u32,
            pub(crate) index: u32,
            pub(crate) generation: u32,
        }

        impl Handle for $name {
            fn parts(self) -> (u32, u32, u32) {
                (self.world, self.index, self.generation)
            }
            fn from_parts(world: u32, index: u32, generation: u32) -> Self {
                Self {
                    world,
                    index,
                    generation,
                }
            }
        }
    };
}

/// What the arena needs of a handle: its three parts, and how to make one of them.
pub(crate) trait Handle: Copy {
    fn parts(self) -> (u32, u32, u32);
    fn from_parts(world: u32, index: u32, generation: u32) -> Self;
}

handle!(
    /// A body of a [`crate::World`].
    BodyHandle
);
handle!(
    /// A collider of a [`crate::World`].
    ColliderHandle
);
handle!(
    /// A joint of a [`crate::World`].
    JointHandle
);
handle!(
    /// A vehicle of a [`crate::World`].
    VehicleHandle
);
handle!(
    /// A ragdoll of a [`crate::World`].
    RagdollHandle
);

impl BodyHandle {
    /// A handle no world holds (world ids start at 1): a placeholder for a description made
    /// before its body is, such as a vehicle builder's chassis that a plugin fills in. Every
    /// world refuses it as stale.
    pub const INVALID: BodyHandle = BodyHandle {
        world: 0,
        index: u32::MAX,
        generation: u32::MAX,
    };
}

/// A new world id: never 0, never the same twice in a process (until 2^32 worlds).
pub(crate) fn new_world_id() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed).max(1)
}

/// Slots that count their removals, so that a handle is (world, index, generation), with a
/// free list reused last-in first-out.
///
/// Our own rather than `slab`'s: a snapshot must hold the free list in its order (the slots new
/// bodies will take, and so every later step, depend on it), and `slab` does not show it.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Arena<T, H = ()> {
    world: u32,
    slots: Vec<Slot<T>>,
    /// Vacant slots, the next to reuse last.
    free: Vec<u32>,
    len: usize,
    /// The handle type this arena gives out and takes: a body's arena takes no collider's
    /// handle. `()` for an arena used by slot alone.
    #[cfg_attr(feature = "serde", serde(skip))]
    handles: std::marker::PhantomData<fn() -> H>,
}

#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

impl<T, H: Handle> Arena<T, H> {
    /// Stores `value` and returns its handle.
    pub fn insert(&mut self, value: T) -> H {
        let index = self.add(value);
        H::from_parts(self.world, index, self.slots[index as usize].generation)
    }

    /// The slot of a live handle of this world.
    fn slot(&self, handle: H) -> Option<usize> {
        let (world, index, generation) = handle.parts();
        let slot = self.slots.get(index as usize)?;
        let live = world == self.world && slot.generation == generation && slot.value.is_some();
        live.then_some(index as usize)
    }

    pub fn get(&self, handle: H) -> Option<&T> {
        self.slots[self.slot(handle)?].value.as_ref()
    }

    pub fn get_mut(&mut self, handle: H) -> Option<&mut T> {
        let slot = self.slot(handle)?;
        self.slots[slot].value.as_mut()
    }

    pub fn remove(&mut self, handle: H) -> Option<T> {
        let index = self.slot(handle)?;
        self.take(index as u32)
    }

    /// The handle of the live value in slot `index`.
    pub fn handle(&self, index: u32) -> H {
        H::from_parts(self.world, index, self.slots[index as usize].generation)
    }
}

/// A run of an arena's slots, for one worker changing the values there while others change
/// the rest ([`Arena::runs_mut`]).
#[derive(Debug)]
pub(crate) struct ArenaRun<'a, T> {
    /// The index of the run's first slot.
    first: usize,
    slots: &'a mut [Slot<T>],
}

impl<T> ArenaRun<'_, T> {
    /// The live values of the run, by slot index, in slot order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> {
        let first = self.first;
        let slots = self.slots.iter_mut().enumerate();
        slots.filter_map(move |(i, s)| Some(((first + i) as u32, s.value.as_mut()?)))
    }

    /// The indices of the run's slots.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.slots.len()
    }

    /// The value in slot `index`, if it is live and in this run.
    pub fn live(&self, index: usize) -> Option<&T> {
        let at = index.checked_sub(self.first)?;
        self.slots.get(at)?.value.as_ref()
    }

    /// The value in slot `index`, if it is live and in this run.
    pub fn live_mut(&mut self, index: u32) -> Option<&mut T> {
        let at = (index as usize).checked_sub(self.first)?;
        self.slots.get_mut(at)?.value.as_mut()
    }
}

impl<T, H> Arena<T, H> {
    /// An empty arena whose handles carry `world`.
    pub fn new(world: u32) -> Self {
        Arena {
            world,
            slots: Vec::new(),
            free: Vec::new(),
            len: 0,
            handles: std::marker::PhantomData,
        }
    }

    /// The slots in runs, each ending where `ends` says (increasing; clamped to the slots),
    /// the first from slot 0 and each after from where the one before ends.
    pub fn runs_mut(
        &mut self,
        ends: impl IntoIterator<Item = usize>,
    ) -> impl Iterator<Item = ArenaRun<'_, T>> {
        let (mut rest, mut first) = (self.slots.as_mut_slice(), 0);
        ends.into_iter().map(move |end| {
            let len = end.saturating_sub(first).min(rest.len());
            let (run, after) = std::mem::take(&mut rest).split_at_mut(len);
            rest = after;
            let run = ArenaRun { first, slots: run };
            first += len;
            run
        })
    }

    /// The slots in `workers` runs of about equal length ([`sprung_solver::share`]).
    pub fn shares_mut(&mut self, workers: usize) -> impl Iterator<Item = ArenaRun<'_, T>> {
        let (len, workers) = (self.slots.len(), workers.max(1));
        let share = sprung_solver::share;
        self.runs_mut((0..workers).map(move |w| share(len, w, workers).end))
    }

    /// Stores `value` in the slot freed last (or a new one) and returns its index.
    pub fn add(&mut self, value: T) -> u32 {
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    value: None,
                });
                self.slots.len() as u32 - 1
            }
        };
        self.slots[index as usize].value = Some(value);
        self.len += 1;
        index
    }

    /// Empties slot `index` (if live) and returns what it held.
    pub fn take(&mut self, index: u32) -> Option<T> {
        let slot = self.slots.get_mut(index as usize)?;
        let value = slot.value.take()?;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(index);
        self.len -= 1;
        Some(value)
    }

    /// By slot, for the step's loops (which already hold valid indices).
    pub fn at(&self, index: u32) -> &T {
        self.slots[index as usize]
            .value
            .as_ref()
            .expect("a live slot")
    }

    pub fn at_mut(&mut self, index: u32) -> &mut T {
        self.slots[index as usize]
            .value
            .as_mut()
            .expect("a live slot")
    }

    /// What slot `index` holds, if it is live (`None` past the end too).
    pub fn live(&self, index: usize) -> Option<&T> {
        self.slots.get(index)?.value.as_ref()
    }

    /// The same, to change it.
    pub fn live_mut(&mut self, index: usize) -> Option<&mut T> {
        self.slots.get_mut(index)?.value.as_mut()
    }

    /// In slot order: deterministic.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((i as u32, s.value.as_ref()?)))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> {
        self.slots
            .iter_mut()
            .enumerate()
            .filter_map(|(i, s)| Some((i as u32, s.value.as_mut()?)))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// How many slots there are, live or free: every index handed out is below it.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether slot `index` holds a value.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub fn is_live(&self, index: u32) -> bool {
        self.slots
            .get(index as usize)
            .is_some_and(|s| s.value.is_some())
    }

    /// The world id its handles carry.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub fn world(&self) -> u32 {
        self.world
    }

    /// Whether the bookkeeping holds (for a restored snapshot): `len` counts the live slots,
    /// and the free list names every vacant slot exactly once.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub fn is_consistent(&self) -> bool {
        let vacant = self.slots.iter().filter(|s| s.value.is_none()).count();
        let mut seen = vec![false; self.slots.len()];
        let free_ok = self.free.iter().all(|&i| {
            let ok = self
                .slots
                .get(i as usize)
                .is_some_and(|s| s.value.is_none())
                && !std::mem::replace(&mut seen[i as usize], true);
            ok
        });
        free_ok && self.free.len() == vacant && self.len + vacant == self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reused_slot_does_not_answer_the_old_handle() {
        let mut arena = Arena::new(7);
        let first: BodyHandle = arena.insert("first");
        assert_eq!(arena.remove(first), Some("first"));
        let second: BodyHandle = arena.insert("second");
        assert_eq!(first.index, second.index);
        assert_ne!(first.generation, second.generation);
        assert_eq!(arena.get(first), None);
        assert_eq!(arena.get(second), Some(&"second"));
        assert_eq!(arena.remove(first), None);
    }

    #[test]
    fn a_handle_of_another_world_finds_nothing() {
        let (mut here, mut there) = (Arena::new(new_world_id()), Arena::new(new_world_id()));
        let mine: BodyHandle = here.insert(1);
        let theirs: BodyHandle = there.insert(2);
        assert_eq!(
            (mine.index, mine.generation),
            (theirs.index, theirs.generation)
        );
        assert_eq!(here.get(theirs), None);
        assert_eq!(here.remove(theirs), None);
        assert_eq!(here.get(mine), Some(&1));
    }
}

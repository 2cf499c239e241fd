//! Generational handles over a slab: a removed body's handle never finds another body, and a
//! handle of another world never finds anything here.
//!
//! A handle is (world, index, generation). The world id is handed out once per [`crate::World`]
//! from a process-wide counter, so that a handle kept from one world and passed to another is
//! refused as stale instead of acting on whatever that world keeps in the same slot.

use std::sync::atomic::{AtomicU32, Ordering};

use slab::Slab;

/// A body of a [`crate::World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyHandle {
    pub(crate) world: u32,
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

/// A collider of a [`crate::World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ColliderHandle {
    pub(crate) world: u32,
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

/// What the arena needs of a handle: its three parts, and how to make one of them.
pub(crate) trait Handle: Copy {
    fn parts(self) -> (u32, u32, u32);
    fn from_parts(world: u32, index: u32, generation: u32) -> Self;
}

macro_rules! handle {
    ($name:ty) => {
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
handle!(BodyHandle);
handle!(ColliderHandle);
handle!(crate::joint::JointHandle);

/// A new world id: never 0, never the same twice in a process (until 2^32 worlds).
pub(crate) fn new_world_id() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed).max(1)
}

/// A slab whose slots count their removals, so that a handle is (world, index, generation).
#[derive(Clone, Debug)]
pub(crate) struct Arena<T> {
    world: u32,
    slab: Slab<T>,
    generations: Vec<u32>,
}

impl<T> Arena<T> {
    /// An empty arena whose handles carry `world`.
    pub fn new(world: u32) -> Self {
        Arena {
            world,
            slab: Slab::new(),
            generations: Vec::new(),
        }
    }

    pub fn insert<H: Handle>(&mut self, value: T) -> H {
        let index = self.slab.insert(value);
        if index >= self.generations.len() {
            self.generations.resize(index + 1, 0);
        }
        H::from_parts(self.world, index as u32, self.generations[index])
    }

    /// The slot of a live handle of this world.
    fn slot<H: Handle>(&self, handle: H) -> Option<usize> {
        let (world, index, generation) = handle.parts();
        let live = world == self.world
            && self.generations.get(index as usize) == Some(&generation)
            && self.slab.contains(index as usize);
        live.then_some(index as usize)
    }

    pub fn get<H: Handle>(&self, handle: H) -> Option<&T> {
        self.slab.get(self.slot(handle)?)
    }

    pub fn get_mut<H: Handle>(&mut self, handle: H) -> Option<&mut T> {
        let slot = self.slot(handle)?;
        self.slab.get_mut(slot)
    }

    pub fn remove<H: Handle>(&mut self, handle: H) -> Option<T> {
        let slot = self.slot(handle)?;
        self.generations[slot] = self.generations[slot].wrapping_add(1);
        Some(self.slab.remove(slot))
    }

    /// The handle of the live value in slot `index`.
    pub fn handle<H: Handle>(&self, index: u32) -> H {
        H::from_parts(self.world, index, self.generations[index as usize])
    }

    /// By slot, for the step's loops (which already hold valid indices).
    pub fn at(&self, index: u32) -> &T {
        &self.slab[index as usize]
    }

    pub fn at_mut(&mut self, index: u32) -> &mut T {
        &mut self.slab[index as usize]
    }

    /// In slot order: deterministic.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.slab.iter().map(|(i, t)| (i as u32, t))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> {
        self.slab.iter_mut().map(|(i, t)| (i as u32, t))
    }

    pub fn len(&self) -> usize {
        self.slab.len()
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

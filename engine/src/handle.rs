//! Generational handles over a slab: a removed body's handle never finds another body.

use slab::Slab;

/// A body of a [`crate::World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyHandle {
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

/// A collider of a [`crate::World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ColliderHandle {
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

/// A slab whose slots count their removals, so that a handle is (index, generation).
#[derive(Debug)]
pub(crate) struct Arena<T> {
    slab: Slab<T>,
    generations: Vec<u32>,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            slab: Slab::new(),
            generations: Vec::new(),
        }
    }
}

impl<T> Arena<T> {
    pub fn insert(&mut self, value: T) -> (u32, u32) {
        let index = self.slab.insert(value);
        if index >= self.generations.len() {
            self.generations.resize(index + 1, 0);
        }
        (index as u32, self.generations[index])
    }

    pub fn get(&self, index: u32, generation: u32) -> Option<&T> {
        if self.generations.get(index as usize) == Some(&generation) {
            self.slab.get(index as usize)
        } else {
            None
        }
    }

    pub fn get_mut(&mut self, index: u32, generation: u32) -> Option<&mut T> {
        if self.generations.get(index as usize) == Some(&generation) {
            self.slab.get_mut(index as usize)
        } else {
            None
        }
    }

    pub fn remove(&mut self, index: u32, generation: u32) -> Option<T> {
        self.get(index, generation)?;
        self.generations[index as usize] = self.generations[index as usize].wrapping_add(1);
        Some(self.slab.remove(index as usize))
    }

    /// By slot, for the step's loops (which already hold valid indices).
    pub fn at(&self, index: u32) -> &T {
        &self.slab[index as usize]
    }

    pub fn at_mut(&mut self, index: u32) -> &mut T {
        &mut self.slab[index as usize]
    }

    pub fn generation(&self, index: u32) -> u32 {
        self.generations[index as usize]
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
        let mut arena = Arena::default();
        let (i, g) = arena.insert("first");
        assert_eq!(arena.remove(i, g), Some("first"));
        let (j, h) = arena.insert("second");
        assert_eq!(i, j);
        assert_ne!(g, h);
        assert_eq!(arena.get(i, g), None);
        assert_eq!(arena.get(j, h), Some(&"second"));
        assert_eq!(arena.remove(i, g), None);
    }
}

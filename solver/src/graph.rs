//! The constraint graph's colouring: contacts split into colours in which no two share a moving
//! body, so that a colour's contacts can be solved side by side (in SIMD lanes, on several
//! cores) with exactly the result of solving them one after the other (Box2D v3's
//! `constraint_graph.c`, our own code).
//!
//! Made from the step's contacts, in their order (the narrow phase's pair order), so it is the
//! same for the same world; made again only when the contacts join other bodies than the last
//! step's (the solver compares a key of them, `pgs/keys.rs`), else kept with its bundles' layout. A contact between two moving bodies takes the lowest
//! colour free at both; one against a static or kinematic body the highest free at its moving
//! body, so that contacts with the ground are solved last, after the contacts above them have
//! had their say (Box2D v3 found that this stacks better). Static and kinematic bodies are never
//! written by a contact, so they do not count. What finds no colour, and the contacts the wide
//! kernel does not handle (soft materials, more than four points), go to the overflow, solved
//! one by one before the colours.

use crate::body::{Bodies, STATIC};
use crate::contact::Contact;

/// How many colours the graph has (a body can touch that many others in different colours).
pub const COLOURS: usize = 32;

/// The step's colouring, its buffers kept from step to step.
#[derive(Clone, Debug, Default)]
pub struct Colouring {
    /// Per colour, the indices of its contacts in the step's contact list, in order.
    pub colours: Vec<Vec<u32>>,
    /// Contacts solved one by one.
    pub overflow: Vec<u32>,
    /// Per body, the colours it is already in (bit c for colour c).
    used: Vec<u32>,
}

impl Colouring {
    /// No colours, nothing in the overflow (the buffers kept).
    pub fn clear(&mut self) {
        for c in &mut self.colours {
            c.clear();
        }
        self.overflow.clear();
    }

    /// Colours `contacts` over `bodies`.
    pub fn build(&mut self, contacts: &[Contact], bodies: &Bodies) {
        let pairs = contacts.iter().map(|c| (c.body_a, c.body_b, c.fits_wide()));
        self.build_pairs(pairs, bodies);
    }

    /// Colours constraints given as `(body_a, body_b, fits)` over `bodies`, in order; those
    /// that do not `fit` the wide kernel go to the overflow (the joints' point parts, coloured
    /// apart from the contacts, come this way).
    pub fn build_pairs(&mut self, pairs: impl Iterator<Item = (u32, u32, bool)>, bodies: &Bodies) {
        self.colours.resize_with(COLOURS, Vec::new);
        for c in &mut self.colours {
            c.clear();
        }
        self.overflow.clear();
        self.used.clear();
        self.used.resize(bodies.len(), 0);
        let moving = |i: u32| i != STATIC && bodies.sims[i as usize].is_dynamic();
        for (index, (body_a, body_b, fits)) in pairs.enumerate() {
            if !fits {
                self.overflow.push(index as u32);
                continue;
            }
            let (a, b) = (moving(body_a), moving(body_b));
            let colour = match (a, b) {
                (true, true) => {
                    let taken = self.used[body_a as usize] | self.used[body_b as usize];
                    lowest_free(taken)
                }
                (true, false) | (false, true) => {
                    let body = if a { body_a } else { body_b };
                    highest_free(self.used[body as usize])
                }
                // Nothing moving can be pushed: solve it anyway (it changes nothing).
                (false, false) => None,
            };
            match colour {
                Some(k) => {
                    for (body, is_moving) in [(body_a, a), (body_b, b)] {
                        if is_moving {
                            self.used[body as usize] |= 1 << k;
                        }
                    }
                    self.colours[k].push(index as u32);
                }
                None => self.overflow.push(index as u32),
            }
        }
    }
}

/// The lowest colour not in `taken` (bit c for colour c), if any: one bit scan, where a walk
/// over the colours tested a bit a colour (~8 a contact in `pyramid3d`).
fn lowest_free(taken: u32) -> Option<usize> {
    let free = !taken & colour_mask();
    (free != 0).then(|| free.trailing_zeros() as usize)
}

/// The highest colour not in `taken`, if any.
fn highest_free(taken: u32) -> Option<usize> {
    let free = !taken & colour_mask();
    (free != 0).then(|| 31 - free.leading_zeros() as usize)
}

/// The bits of the [`COLOURS`] colours.
const fn colour_mask() -> u32 {
    if COLOURS >= 32 {
        u32::MAX
    } else {
        (1 << COLOURS) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit scans pick the colour the walk over the colours picks, full sets included.
    #[test]
    fn bit_scans_pick_what_the_walk_picks() {
        let mut masks = vec![0, u32::MAX, 1, 1 << 31, u32::MAX - 1, u32::MAX >> 1];
        let mut x = 0x9e37_79b9u32;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            // Dense masks too: most contacts meet bodies with many colours taken.
            masks.push(x | (x >> 3) | (x << 7));
            masks.push(x);
        }
        for taken in masks {
            let walk_up = (0..COLOURS).find(|&k| taken & (1 << k) == 0);
            let walk_down = (0..COLOURS).rev().find(|&k| taken & (1 << k) == 0);
            assert_eq!(lowest_free(taken), walk_up, "{taken:#034b}");
            assert_eq!(highest_free(taken), walk_down, "{taken:#034b}");
        }
    }
}

//! The constraint graph's colouring: contacts split into colours in which no two share a moving
//! body, so that a colour's contacts can be solved side by side (in SIMD lanes, on several
//! cores) with exactly the result of solving them one after the other (Box2D v3's
//! `constraint_graph.c`, our own code).
//!
//! Made each step from the step's contacts, in their order (the narrow phase's pair order), so
//! it is the same for the same world. A contact between two moving bodies takes the lowest
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
/// Most points per contact in the wide kernel.
pub const WIDE_POINTS: usize = 4;

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
                    (0..COLOURS).find(|&k| taken & (1 << k) == 0)
                }
                (true, false) | (false, true) => {
                    let body = if a { body_a } else { body_b };
                    let taken = self.used[body as usize];
                    (0..COLOURS).rev().find(|&k| taken & (1 << k) == 0)
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

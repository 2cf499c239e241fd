//! What the colourings and layouts are made from, this step's beside the last step's: while
//! they stay, the colours and layouts stand.

use crate::body::Bodies;
use crate::contact::Contact;
use crate::joint::{LengthRow, PointRow};
use crate::softness::Softness;

/// Which bodies each contact joins, whether each of them moves, whether it fits the wide
/// kernel, and the lane count: all that the contacts' colouring and their bundles' layout are
/// made from, this step's beside the last step's. While they stay (most steps of a scene whose
/// contacts neither begin nor end) the colours and the layout stand: in a settled `pyramid`,
/// comparing the keys costs ~15 instructions a contact where colouring cost ~80.
#[derive(Debug, Default)]
pub(super) struct ContactKey {
    pub(super) now: Vec<(u32, u32, u8)>,
    pub(super) last: Vec<(u32, u32, u8)>,
    pub(super) lanes: [usize; 2],
}

impl ContactKey {
    /// This step's key for `contacts` over `bodies` in bundles of `lanes`, the last one kept;
    /// whether they differ.
    pub(super) fn fill(&mut self, contacts: &[Contact], bodies: &Bodies, lanes: usize) -> bool {
        std::mem::swap(&mut self.now, &mut self.last);
        self.now.clear();
        let moving = |b: u32| b != crate::body::STATIC && bodies.sims[b as usize].is_dynamic();
        self.now.extend(contacts.iter().map(|c| {
            let (a, b) = (c.body_a, c.body_b);
            let flags = u8::from(moving(a)) << 1 | u8::from(moving(b)) << 2;
            (a, b, flags | u8::from(c.fits_wide()))
        }));
        self.lanes = [lanes, self.lanes[0]];
        self.now != self.last || self.lanes[0] != self.lanes[1]
    }
}

/// Which bodies each lane-solved joint part joins, whether each of them moves, and whether a
/// point part is rigid (a chain candidate): what the chains and the joints' colouring are
/// made from, this step's beside the last step's.
#[derive(Debug, Default)]
pub(super) struct JointKey {
    pub(super) now: Vec<(u32, u32, u8)>,
    pub(super) last: Vec<(u32, u32, u8)>,
}

impl JointKey {
    /// This step's key, the last one kept; whether they differ.
    pub(super) fn fill(
        &mut self,
        points: &[PointRow],
        lengths: &[LengthRow],
        bodies: &Bodies,
        rigid: [Softness; 2],
    ) -> bool {
        std::mem::swap(&mut self.now, &mut self.last);
        self.now.clear();
        let moving = |b: u32| b != crate::body::STATIC && bodies.sims[b as usize].is_dynamic();
        let flags = |a: u32, b: u32| u8::from(moving(a)) << 1 | u8::from(moving(b)) << 2;
        self.now.extend(points.iter().map(|p| {
            let (a, b) = (p.ends.body_a, p.ends.body_b);
            (a, b, flags(a, b) | u8::from(*p.softness() == rigid))
        }));
        self.now.extend(lengths.iter().map(|l| {
            let (a, b) = (l.ends.body_a, l.ends.body_b);
            (a, b, flags(a, b) | 8)
        }));
        self.now != self.last
    }
}

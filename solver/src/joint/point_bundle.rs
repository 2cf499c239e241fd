//! Plain ball joints solved side by side: their point parts ([`PointRow`]), coloured apart from
//! the contacts so that no two of a colour share a moving body, packed `L` to a bundle and
//! solved in lanes (4 with SSE2, 8 with AVX2, 1 for the scalar choice), as the contacts are
//! (`bundle.rs`). Every lane count runs this one code with the same IEEE operations in the same
//! order, so every choice gives the same bits.

// Lane loops index several arrays by the same lane: the plain form is the clearest.
#![allow(clippy::needless_range_loop)]

use super::ends::EndLanes;
use super::part::JointPass;
use super::point::PointRow;
use crate::body::StateView;
use crate::lanes::Sym;
use crate::wide::{cross, V3};
use crate::Vector;

/// Up to `L` point parts of one colour (unused lanes join two static bodies and write nothing).
#[derive(Clone, Debug)]
pub(crate) struct PointBundle<const L: usize> {
    ends: EndLanes<L>,
    effective_mass: Sym<L>,
    impulse: V3<L>,
}

impl<const L: usize> PointBundle<L> {
    /// A bundle with every lane unused.
    pub(crate) fn empty() -> PointBundle<L> {
        PointBundle {
            ends: EndLanes::empty(),
            effective_mass: Sym::default(),
            impulse: V3::default(),
        }
    }

    /// Fills the lanes from `rows[i - offset]` for `i` in `indices` (at most `L`), the rest
    /// unused.
    pub(crate) fn prepare(&mut self, rows: &[PointRow], indices: &[u32], offset: u32) {
        *self = PointBundle::empty();
        for (lane, &i) in indices.iter().enumerate() {
            let p = &rows[(i - offset) as usize];
            self.ends.set(lane, &p.ends, &p.softness);
            self.effective_mass.set(lane, &p.effective_mass);
            self.impulse.set(lane, &p.impulse);
        }
    }

    /// Lane `lane`'s accumulated impulse.
    pub(crate) fn impulse(&self, lane: usize) -> Vector {
        self.impulse.get(lane)
    }

    /// Applies the accumulated impulses.
    #[inline(always)]
    fn warm_start<const AVX2: bool, const ISO: bool>(&self, bodies: StateView) {
        let pair = &self.ends.pair;
        let (mut a, mut b) = pair.gather::<AVX2>(bodies);
        let (ra, rb, _) = self.ends.now(&a, &b);
        pair.apply::<ISO>(&ra, &rb, &self.impulse, &mut a, &mut b);
        pair.scatter::<AVX2>(bodies, &a, &b);
    }

    /// One block iteration, biased or relaxing (see [`PointRow`]).
    #[inline(always)]
    fn solve<const AVX2: bool, const ISO: bool>(&mut self, bodies: StateView, use_bias: bool) {
        let pair = &self.ends.pair;
        let (mut a, mut b) = pair.gather::<AVX2>(bodies);
        let (ra, rb, separation) = self.ends.now(&a, &b);
        let velocity = (b.v + cross(&b.w, &rb)) - (a.v + cross(&a.w, &ra));
        let soft = self.ends.softness(use_bias);
        let target = velocity + separation * soft.bias_rate;
        let wanted = self.impulse
            - self.effective_mass.mul(&target) * soft.mass_scale
            - self.impulse * soft.impulse_scale;
        let applied = wanted - self.impulse;
        self.impulse = wanted;
        pair.apply::<ISO>(&ra, &rb, &applied, &mut a, &mut b);
        pair.scatter::<AVX2>(bodies, &a, &b);
    }
}

/// One pass over `bundles`; `AVX2` only where compiled with it.
#[inline(always)]
pub(super) fn run<const L: usize, const AVX2: bool, const ISO: bool>(
    bundles: &mut [PointBundle<L>],
    bodies: StateView,
    pass: JointPass,
) {
    for bundle in bundles {
        match pass {
            JointPass::WarmStart => bundle.warm_start::<AVX2, ISO>(bodies),
            JointPass::Solve { use_bias } => bundle.solve::<AVX2, ISO>(bodies, use_bias),
        }
    }
}

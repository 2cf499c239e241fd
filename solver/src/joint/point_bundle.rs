//! Plain ball joints solved side by side: their point parts ([`PointRow`]), coloured apart from
//! the contacts so that no two of a colour share a moving body, packed `L` to a bundle and
//! solved in lanes (4 with SSE2, 8 with AVX2, 1 for the scalar choice), as the contacts are
//! (`bundle.rs`). Every lane count runs this one code with the same IEEE operations in the same
//! order, so every choice gives the same bits.

// Lane loops index several arrays by the same lane: the plain form is the clearest.
#![allow(clippy::needless_range_loop)]

use super::point::PointRow;
use crate::body::StateView;
use crate::bundle::{Pair, Sym};
use crate::softness::Softness;
use crate::wide::{cross, F, V3};

/// A softness as lanes: `bias_rate`, `mass_scale`, `impulse_scale`.
#[derive(Clone, Copy, Debug, Default)]
struct SoftLanes<const L: usize> {
    bias_rate: F<L>,
    mass_scale: F<L>,
    impulse_scale: F<L>,
}

impl<const L: usize> SoftLanes<L> {
    fn set(&mut self, lane: usize, s: &Softness) {
        self.bias_rate.0[lane] = s.bias_rate;
        self.mass_scale.0[lane] = s.mass_scale;
        self.impulse_scale.0[lane] = s.impulse_scale;
    }
}

/// Up to `L` point parts of one colour (unused lanes join two static bodies and write nothing).
#[derive(Clone, Debug)]
pub(crate) struct PointBundle<const L: usize> {
    /// The lanes' bodies and their masses.
    pair: Pair<L>,
    anchor_a: V3<L>,
    anchor_b: V3<L>,
    separation: V3<L>,
    effective_mass: Sym<L>,
    impulse: V3<L>,
    biased: SoftLanes<L>,
    relax: SoftLanes<L>,
}

impl<const L: usize> PointBundle<L> {
    /// A bundle with every lane unused.
    pub(crate) fn empty() -> PointBundle<L> {
        PointBundle {
            pair: Pair::empty(),
            anchor_a: V3::default(),
            anchor_b: V3::default(),
            separation: V3::default(),
            effective_mass: Sym::default(),
            impulse: V3::default(),
            biased: SoftLanes::default(),
            relax: SoftLanes::default(),
        }
    }

    /// Fills the lanes from `rows[indices]` (at most `L`), the rest unused.
    pub(crate) fn prepare(&mut self, rows: &[PointRow], indices: &[u32]) {
        *self = PointBundle::empty();
        for (lane, &i) in indices.iter().enumerate() {
            let p = &rows[i as usize];
            self.pair.body_a[lane] = p.body_a;
            self.pair.body_b[lane] = p.body_b;
            self.anchor_a.set(lane, &p.anchor_a);
            self.anchor_b.set(lane, &p.anchor_b);
            self.separation.set(lane, &p.separation);
            self.pair.inv_mass_a.0[lane] = p.inv_mass[0];
            self.pair.inv_mass_b.0[lane] = p.inv_mass[1];
            self.pair.inv_inertia_a.set(lane, &p.inv_inertia[0]);
            self.pair.inv_inertia_b.set(lane, &p.inv_inertia[1]);
            self.effective_mass.set(lane, &p.effective_mass);
            self.impulse.set(lane, &p.impulse);
            self.biased.set(lane, &p.softness[0]);
            self.relax.set(lane, &p.softness[1]);
        }
    }

    /// Hands the lanes' impulses back to `rows[indices]`.
    pub(crate) fn unpack(&self, rows: &mut [PointRow], indices: &[u32]) {
        for (lane, &i) in indices.iter().enumerate() {
            rows[i as usize].impulse = self.impulse.get(lane);
        }
    }

    /// Applies the accumulated impulses.
    #[inline(always)]
    fn warm_start<const AVX2: bool>(&self, bodies: StateView) {
        let (mut a, mut b) = self.pair.gather::<AVX2>(bodies);
        let ra = a.dq.rotate(&self.anchor_a);
        let rb = b.dq.rotate(&self.anchor_b);
        self.pair.apply(&ra, &rb, &self.impulse, &mut a, &mut b);
        self.pair.scatter::<AVX2>(bodies, &a, &b);
    }

    /// One block iteration, biased or relaxing (see [`PointRow`]).
    #[inline(always)]
    fn solve<const AVX2: bool>(&mut self, bodies: StateView, use_bias: bool) {
        let (mut a, mut b) = self.pair.gather::<AVX2>(bodies);
        let ra = a.dq.rotate(&self.anchor_a);
        let rb = b.dq.rotate(&self.anchor_b);
        let separation =
            self.separation + (b.dp + (rb - self.anchor_b)) - (a.dp + (ra - self.anchor_a));
        let velocity = (b.v + cross(&b.w, &rb)) - (a.v + cross(&a.w, &ra));
        let soft = if use_bias { &self.biased } else { &self.relax };
        let target = velocity + separation * soft.bias_rate;
        let wanted = self.impulse
            - self.effective_mass.mul(&target) * soft.mass_scale
            - self.impulse * soft.impulse_scale;
        let applied = wanted - self.impulse;
        self.impulse = wanted;
        self.pair.apply(&ra, &rb, &applied, &mut a, &mut b);
        self.pair.scatter::<AVX2>(bodies, &a, &b);
    }
}

/// What a pass over point bundles does.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PointPass {
    /// Apply the accumulated impulses.
    WarmStart,
    /// One iteration, biased or not.
    Solve { use_bias: bool },
}

/// One pass over `bundles`; `AVX2` only where compiled with it.
#[inline(always)]
fn run<const L: usize, const AVX2: bool>(
    bundles: &mut [PointBundle<L>],
    bodies: StateView,
    pass: PointPass,
) {
    for bundle in bundles {
        match pass {
            PointPass::WarmStart => bundle.warm_start::<AVX2>(bodies),
            PointPass::Solve { use_bias } => bundle.solve::<AVX2>(bodies, use_bias),
        }
    }
}

/// One pass over `bundles`, compiled for the default instruction set.
pub(crate) fn pass<const L: usize>(
    bundles: &mut [PointBundle<L>],
    bodies: StateView,
    pass: PointPass,
) {
    run::<L, false>(bundles, bodies, pass)
}

/// One pass over 8-lane bundles compiled with AVX2 when the CPU has it; the same operations,
/// so the same bits, as [`pass`].
#[cfg(target_arch = "x86_64")]
pub(crate) fn pass_avx2(bundles: &mut [PointBundle<8>], bodies: StateView, pass: PointPass) {
    #[target_feature(enable = "avx2")]
    unsafe fn avx2(bundles: &mut [PointBundle<8>], bodies: StateView, pass: PointPass) {
        run::<8, true>(bundles, bodies, pass)
    }
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (just checked), which is all `avx2` requires.
        unsafe { avx2(bundles, bodies, pass) }
    } else {
        run::<8, false>(bundles, bodies, pass)
    }
}

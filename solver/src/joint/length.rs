//! The length part: one row holding the anchors' distance at a rest length, rigid (a rod) or a
//! spring, along the anchors' current axis. A distance joint without limits is this part alone,
//! and `spring_net`'s 1,740 springs are such joints, so it is prepared once per step in a
//! compact form ([`LengthRow`]) and solved in lanes ([`LengthBundle`]) beside the point parts,
//! in the same colours.
//!
//! Each pass measures the anchors' separation `d` from the bodies' motion since the step began,
//! and solves `C = |d| - L` along `n = d / |d|` with the effective mass on that axis: the axis
//! must follow the bodies (frozen at the start of the step, `spring_net` diverged within 100
//! steps at 4 substeps). A spring's coefficients are the step's
//! ([`crate::softness::SpringSoftness`], from the effective mass at the start of the step).

// Lane loops index several arrays by the same lane: the plain form is the clearest.
#![allow(clippy::needless_range_loop)]

use super::ends::{EndLanes, Ends};
use super::part::JointFrame;
use super::part::JointPass;
use crate::body::{Motion, StateView};
use crate::lanes::Lanes;
use crate::softness::Softness;
use crate::wide::{cross, F, V3};
use crate::Real;

/// A length part prepared for one step, with everything its passes read.
#[derive(Clone, Copy, Debug)]
pub struct LengthRow {
    /// The bodies, their masses and the anchors.
    pub ends: Ends,
    rest_length: Real,
    /// The coefficients of the biased and of the relax pass.
    softness: [Softness; 2],
    /// The accumulated impulse (N s), kept for warm starting.
    pub impulse: Real,
    /// The caller's index for the joint (to store its impulse back).
    pub user_index: u32,
    /// Whether its spring fell back to implicit coefficients (too stiff to be exact).
    pub too_stiff: bool,
}

impl LengthRow {
    /// The length part of `frame` between `a` and `b` at `rest_length`, with `softness` for
    /// the biased and the relax pass, carrying last step's `impulse` (N s; dropped if not
    /// finite).
    pub fn new(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        rest_length: Real,
        softness: [Softness; 2],
        impulse: Real,
    ) -> LengthRow {
        LengthRow {
            ends: Ends::new(frame, a, b),
            rest_length,
            softness,
            impulse: if impulse.is_finite() { impulse } else { 0.0 },
            user_index: 0,
            too_stiff: false,
        }
    }
}

/// Up to `L` length parts of one colour (unused lanes join two static bodies and write
/// nothing).
#[derive(Clone, Debug)]
pub(crate) struct LengthBundle<const L: usize> {
    ends: EndLanes<L>,
    rest_length: F<L>,
    impulse: F<L>,
}

impl<const L: usize> LengthBundle<L> {
    /// A bundle with every lane unused.
    pub(crate) fn empty() -> LengthBundle<L> {
        LengthBundle {
            ends: EndLanes::empty(),
            rest_length: F::default(),
            impulse: F::default(),
        }
    }

    /// Fills the lanes from `rows[i - offset]` for `i` in `indices` (at most `L`), the rest
    /// unused.
    pub(crate) fn prepare(&mut self, rows: &[LengthRow], indices: &[u32], offset: u32) {
        *self = LengthBundle::empty();
        for (lane, &i) in indices.iter().enumerate() {
            let p = &rows[(i - offset) as usize];
            self.ends.set(lane, &p.ends, &p.softness);
            self.rest_length.0[lane] = p.rest_length;
            self.impulse.0[lane] = p.impulse;
        }
    }

    /// Lane `lane`'s accumulated impulse.
    pub(crate) fn impulse(&self, lane: usize) -> Real {
        self.impulse.0[lane]
    }

    /// The anchors now, the axis along them, and each body's lever arm on it.
    #[inline(always)]
    fn axis(&self, a: &Lanes<L>, b: &Lanes<L>) -> Axis<L> {
        let (ra, rb, d) = self.ends.now(a, b);
        let length = d.dot(&d).sqrt();
        // Coincident anchors have no axis: y, as the scalar distance joint falls back to.
        let tiny = F::splat(1.0e-6);
        let safe = length.max(tiny);
        let unit = d.unscale(safe);
        let fallback = V3 {
            x: F::splat(0.0),
            y: F::splat(1.0),
            z: F::splat(0.0),
        };
        let n = V3::select_gt(length, tiny, &unit, &fallback);
        let (arm_a, arm_b) = (cross(&ra, &n), cross(&rb, &n));
        Axis {
            length,
            n,
            arm_a,
            arm_b,
        }
    }

    /// Applies `impulse` along the axis.
    #[inline(always)]
    fn apply<const ISO: bool>(
        &self,
        axis: &Axis<L>,
        impulse: F<L>,
        a: &mut Lanes<L>,
        b: &mut Lanes<L>,
    ) {
        let p = &self.ends.pair;
        let linear = axis.n * impulse;
        a.v -= linear * p.inv_mass_a;
        a.w -= p.inv_inertia_a.turn::<ISO>(&axis.arm_a) * impulse;
        b.v += linear * p.inv_mass_b;
        b.w += p.inv_inertia_b.turn::<ISO>(&axis.arm_b) * impulse;
    }

    /// Applies the accumulated impulses.
    #[inline(always)]
    fn warm_start<const AVX2: bool, const ISO: bool>(&self, bodies: StateView) {
        let (mut a, mut b) = self.ends.pair.gather::<AVX2>(bodies);
        let axis = self.axis(&a, &b);
        self.apply::<ISO>(&axis, self.impulse, &mut a, &mut b);
        self.ends.pair.scatter::<AVX2>(bodies, &a, &b);
    }

    /// One iteration, biased or relaxing.
    #[inline(always)]
    fn solve<const AVX2: bool, const ISO: bool>(&mut self, bodies: StateView, use_bias: bool) {
        let (mut a, mut b) = self.ends.pair.gather::<AVX2>(bodies);
        let axis = self.axis(&a, &b);
        let p = &self.ends.pair;
        let k = (p.inv_mass_a + p.inv_mass_b)
            + axis.arm_a.dot(&p.inv_inertia_a.turn::<ISO>(&axis.arm_a))
            + axis.arm_b.dot(&p.inv_inertia_b.turn::<ISO>(&axis.arm_b));
        let zero = F::splat(0.0);
        let mass = k.select_gt(
            zero,
            F::splat(1.0) / k.max(F::splat(Real::MIN_POSITIVE)),
            zero,
        );
        let velocity = axis.n.dot(&(b.v - a.v)) + axis.arm_b.dot(&b.w) - axis.arm_a.dot(&a.w);
        let soft = self.ends.softness(use_bias);
        let error = axis.length - self.rest_length;
        let wanted = self.impulse
            - mass * soft.mass_scale * (velocity + soft.bias_rate * error)
            - soft.impulse_scale * self.impulse;
        let applied = wanted - self.impulse;
        self.impulse = wanted;
        self.apply::<ISO>(&axis, applied, &mut a, &mut b);
        self.ends.pair.scatter::<AVX2>(bodies, &a, &b);
    }
}

/// A length part's axis in one pass.
struct Axis<const L: usize> {
    length: F<L>,
    n: V3<L>,
    arm_a: V3<L>,
    arm_b: V3<L>,
}

/// One pass over `bundles`; `AVX2` only where compiled with it.
#[inline(always)]
pub(super) fn run<const L: usize, const AVX2: bool, const ISO: bool>(
    bundles: &mut [LengthBundle<L>],
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

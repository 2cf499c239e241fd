//! A joint's two ends, prepared once per step: which bodies, their masses, and the anchors.
//! What every part solved from the bodies' hot state needs (the point part, the length part),
//! one at a time ([`Ends`]) or in lanes ([`EndLanes`]).

use super::part::JointFrame;
use crate::body::{BodyState, Motion};
use crate::lanes::{Lanes, Pair};
use crate::softness::Softness;
use crate::wide::{F, V3};
use crate::{Matrix, Real, Vector};

/// Both ends of a joint at the start of the step.
#[derive(Clone, Copy, Debug)]
pub struct Ends {
    /// Body A's solver index, or [`crate::body::STATIC`].
    pub body_a: u32,
    /// Body B's solver index, or [`crate::body::STATIC`].
    pub body_b: u32,
    /// A's anchor from A's centre of mass (world orientation).
    pub(super) anchor_a: Vector,
    /// B's anchor from B's centre of mass.
    pub(super) anchor_b: Vector,
    /// B's anchor minus A's anchor.
    pub(super) separation: Vector,
    /// Inverse masses of A and B (0 for a static body).
    pub(super) inv_mass: [Real; 2],
    /// World inverse inertias of A and B.
    pub(super) inv_inertia: [Matrix; 2],
}

impl Ends {
    /// The ends of `frame` on bodies `a` and `b`.
    #[inline]
    pub fn new(frame: &JointFrame, a: &Motion, b: &Motion) -> Ends {
        Ends {
            body_a: frame.body_a,
            body_b: frame.body_b,
            anchor_a: frame.anchor_a,
            anchor_b: frame.anchor_b,
            separation: frame.separation,
            inv_mass: [a.inv_mass, b.inv_mass],
            inv_inertia: [a.inv_inertia, b.inv_inertia],
        }
    }

    /// The anchors now (from each centre of mass), turned by the bodies' rotation since the
    /// step began.
    #[inline]
    pub(super) fn anchors(&self, a: &BodyState, b: &BodyState) -> (Vector, Vector) {
        (
            a.delta_rotation * self.anchor_a,
            b.delta_rotation * self.anchor_b,
        )
    }

    /// B's anchor minus A's anchor now, for anchors `r_a`, `r_b` turned as [`Self::anchors`].
    #[inline]
    pub(super) fn separation(
        &self,
        a: &BodyState,
        b: &BodyState,
        (r_a, r_b): (&Vector, &Vector),
    ) -> Vector {
        self.separation + (b.delta_position + (r_b - self.anchor_b))
            - (a.delta_position + (r_a - self.anchor_a))
    }

    /// Applies `impulse` at the anchors `r_a`, `r_b`: `-impulse` to A, `impulse` to B.
    #[inline]
    pub(super) fn apply(
        &self,
        a: &mut BodyState,
        b: &mut BodyState,
        (r_a, r_b): (&Vector, &Vector),
        impulse: &Vector,
    ) {
        a.linear_velocity -= impulse * self.inv_mass[0];
        a.angular_velocity -= self.inv_inertia[0] * r_a.cross(impulse);
        b.linear_velocity += impulse * self.inv_mass[1];
        b.angular_velocity += self.inv_inertia[1] * r_b.cross(impulse);
    }
}

/// Up to `L` joints' ends, as lanes, with each lane's softness in the two passes (unused lanes
/// join two static bodies and write nothing).
#[derive(Clone, Copy, Debug)]
pub(crate) struct EndLanes<const L: usize> {
    /// The bodies and their masses.
    pub(crate) pair: Pair<L>,
    anchor_a: V3<L>,
    anchor_b: V3<L>,
    separation: V3<L>,
    biased: SoftLanes<L>,
    relax: SoftLanes<L>,
}

/// A softness as lanes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SoftLanes<const L: usize> {
    pub(crate) bias_rate: F<L>,
    pub(crate) mass_scale: F<L>,
    pub(crate) impulse_scale: F<L>,
}

impl<const L: usize> SoftLanes<L> {
    fn set(&mut self, lane: usize, s: &Softness) {
        self.bias_rate.0[lane] = s.bias_rate;
        self.mass_scale.0[lane] = s.mass_scale;
        self.impulse_scale.0[lane] = s.impulse_scale;
    }
}

impl<const L: usize> EndLanes<L> {
    /// Every lane unused.
    pub(crate) fn empty() -> EndLanes<L> {
        EndLanes {
            pair: Pair::empty(),
            anchor_a: V3::default(),
            anchor_b: V3::default(),
            separation: V3::default(),
            biased: SoftLanes::default(),
            relax: SoftLanes::default(),
        }
    }

    /// Lane `lane` from `ends`, with `softness` in the biased and the relax pass.
    pub(crate) fn set(&mut self, lane: usize, ends: &Ends, softness: &[Softness; 2]) {
        self.biased.set(lane, &softness[0]);
        self.relax.set(lane, &softness[1]);
        let p = &mut self.pair;
        p.body_a[lane] = ends.body_a;
        p.body_b[lane] = ends.body_b;
        p.inv_mass_a.0[lane] = ends.inv_mass[0];
        p.inv_mass_b.0[lane] = ends.inv_mass[1];
        p.inv_inertia_a.set(lane, &ends.inv_inertia[0]);
        p.inv_inertia_b.set(lane, &ends.inv_inertia[1]);
        self.anchor_a.set(lane, &ends.anchor_a);
        self.anchor_b.set(lane, &ends.anchor_b);
        self.separation.set(lane, &ends.separation);
    }

    /// The softness of the biased or the relax pass.
    #[inline(always)]
    pub(crate) fn softness(&self, use_bias: bool) -> &SoftLanes<L> {
        if use_bias {
            &self.biased
        } else {
            &self.relax
        }
    }

    /// The anchors now, turned by the bodies' rotation since the step began, and B's anchor
    /// minus A's: `(r_a, r_b, separation)`.
    #[inline(always)]
    pub(crate) fn now(&self, a: &Lanes<L>, b: &Lanes<L>) -> (V3<L>, V3<L>, V3<L>) {
        let ra = a.dq.rotate(&self.anchor_a);
        let rb = b.dq.rotate(&self.anchor_b);
        let d = self.separation + (b.dp + (rb - self.anchor_b)) - (a.dp + (ra - self.anchor_a));
        (ra, rb, d)
    }
}

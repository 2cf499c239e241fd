//! The bodies' state in lanes, as the contact bundles and the lane-solved joint parts read
//! and write it: both bodies of each lane gathered and scattered ([`Lanes`], [`Pair`]), and
//! symmetric matrices of lanes ([`Sym`], a world inverse inertia).

// Lane loops index several arrays by the same lane: the plain form is the clearest, and the
// one the compiler vectorises.
#![allow(clippy::needless_range_loop)]

use crate::body::{StateView, STATIC};
use crate::wide::{cross, F, Q, V3};
use crate::Matrix;

/// A symmetric 3x3 matrix of lanes (a world inverse inertia).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sym<const L: usize> {
    pub(crate) xx: F<L>,
    pub(crate) yy: F<L>,
    pub(crate) zz: F<L>,
    pub(crate) xy: F<L>,
    pub(crate) xz: F<L>,
    pub(crate) yz: F<L>,
}

impl<const L: usize> Sym<L> {
    pub(crate) fn set(&mut self, lane: usize, m: &Matrix) {
        self.xx.0[lane] = m[(0, 0)];
        self.yy.0[lane] = m[(1, 1)];
        self.zz.0[lane] = m[(2, 2)];
        self.xy.0[lane] = m[(0, 1)];
        self.xz.0[lane] = m[(0, 2)];
        self.yz.0[lane] = m[(1, 2)];
    }

    #[inline(always)]
    pub(crate) fn mul(&self, v: &V3<L>) -> V3<L> {
        V3 {
            x: self.xx * v.x + self.xy * v.y + self.xz * v.z,
            y: self.xy * v.x + self.yy * v.y + self.yz * v.z,
            z: self.xz * v.x + self.yz * v.y + self.zz * v.z,
        }
    }

    /// `M v`, or with `ISO` (every matrix of the step a multiple of the identity: see
    /// [`crate::bundle::isotropic`]) `M_xx v`, which reads one lane array instead of six.
    #[inline(always)]
    pub(crate) fn turn<const ISO: bool>(&self, v: &V3<L>) -> V3<L> {
        if ISO {
            *v * self.xx
        } else {
            self.mul(v)
        }
    }

    /// Whether `m` is a multiple of the identity (a sphere's or a cube's inverse inertia,
    /// which the engine's `gather` makes exactly diagonal, or a static body's zero).
    pub(crate) fn is_isotropic(m: &Matrix) -> bool {
        m[(0, 1)] == 0.0
            && m[(0, 2)] == 0.0
            && m[(1, 2)] == 0.0
            && m[(0, 0)] == m[(1, 1)]
            && m[(1, 1)] == m[(2, 2)]
    }
}

/// Both bodies' states of each lane, gathered for a pass.
#[derive(Clone, Copy, Default)]
pub(crate) struct Lanes<const L: usize> {
    pub(crate) v: V3<L>,
    pub(crate) w: V3<L>,
    pub(crate) dp: V3<L>,
    pub(crate) dq: Q<L>,
}

impl<const L: usize> Lanes<L> {
    /// The states of bodies `index`, one a lane (a static body reads as at rest): lane by lane,
    /// or, with `AVX2` (only inside the AVX2-compiled pass, `Kernels::run`) and eight lanes,
    /// by transposes.
    #[inline(always)]
    pub(crate) fn gather<const AVX2: bool>(bodies: StateView, index: &[u32; L]) -> Lanes<L> {
        #[cfg(target_arch = "x86_64")]
        if AVX2 && L == 8 {
            let mut out = Lanes::default();
            // SAFETY: L is 8, so the casts are to the same types; AVX2 is set only by
            // `Kernels::run`'s AVX2-compiled frame, run on a CPU that has it.
            unsafe {
                let index = &*(index as *const [u32; L] as *const [u32; 8]);
                let lanes = &mut *(&mut out as *mut Lanes<L> as *mut Lanes<8>);
                (lanes.v, lanes.w, lanes.dp, lanes.dq) = crate::transpose::gather(bodies, index);
            }
            return out;
        }
        let mut out = Lanes::default();
        for lane in 0..L {
            let s = bodies.get(index[lane]);
            out.v.set(lane, &s.linear_velocity);
            out.w.set(lane, &s.angular_velocity);
            out.dp.set(lane, &s.delta_position);
            out.dq.w.0[lane] = s.delta_rotation.w;
            out.dq.v.set(lane, &s.delta_rotation.imag());
        }
        out
    }
}

/// Writes each lane's new velocities to its moving bodies, unless they stopped being finite
/// (then the lane changes nothing this pass, as [`crate::body::Bodies::store_pair`]). Static and
/// kinematic bodies (no inverse mass) are never written: a contact cannot change them, and
/// several contacts of one colour may share one. With `AVX2` and eight lanes, by transposes.
#[inline(always)]
pub(crate) fn scatter<const L: usize, const AVX2: bool>(
    bodies: StateView,
    index: (&[u32; L], &[u32; L]),
    moving: (&F<L>, &F<L>),
    a: &Lanes<L>,
    b: &Lanes<L>,
) {
    // The same sums, lane by lane, on every path.
    let sum = (a.v.x + a.v.y + a.v.z) + (a.w.x + a.w.y + a.w.z);
    let sum = sum + ((b.v.x + b.v.y + b.v.z) + (b.w.x + b.w.y + b.w.z));
    #[cfg(target_arch = "x86_64")]
    if AVX2 && L == 8 {
        // SAFETY: as in `Lanes::gather`; the bodies written are this bundle's moving ones,
        // which no other worker touches during this colour.
        unsafe {
            let cast = |i: &[u32; L]| &*(i as *const [u32; L] as *const [u32; 8]);
            let eight = |x: &F<L>| &*(x as *const F<L> as *const F<8>);
            let lanes = |l: &Lanes<L>| &*(l as *const Lanes<L> as *const Lanes<8>);
            let (a8, b8) = (lanes(a), lanes(b));
            let (write_a, write_b) =
                crate::transpose::write_masks(eight(&sum), (eight(moving.0), eight(moving.1)));
            crate::transpose::scatter(bodies, cast(index.0), write_a, &a8.v, &a8.w);
            crate::transpose::scatter(bodies, cast(index.1), write_b, &b8.v, &b8.w);
        }
        return;
    }
    let finite: [bool; L] = std::array::from_fn(|lane| sum.0[lane].is_finite());
    for lane in 0..L {
        if !finite[lane] {
            continue;
        }
        if moving.0 .0[lane] > 0.0 {
            bodies.set_velocity(index.0[lane], a.v.get(lane), a.w.get(lane));
        }
        if moving.1 .0[lane] > 0.0 {
            bodies.set_velocity(index.1[lane], b.v.get(lane), b.w.get(lane));
        }
    }
}

/// The two bodies of each lane and their masses: what every wide kernel (contacts, joints'
/// point parts) needs to read their states and push them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pair<const L: usize> {
    pub(crate) body_a: [u32; L],
    pub(crate) body_b: [u32; L],
    pub(crate) inv_mass_a: F<L>,
    pub(crate) inv_mass_b: F<L>,
    pub(crate) inv_inertia_a: Sym<L>,
    pub(crate) inv_inertia_b: Sym<L>,
}

impl<const L: usize> Pair<L> {
    /// Every lane unused: two static bodies, which are never written.
    pub(crate) fn empty() -> Pair<L> {
        Pair {
            body_a: [STATIC; L],
            body_b: [STATIC; L],
            inv_mass_a: F::default(),
            inv_mass_b: F::default(),
            inv_inertia_a: Sym::default(),
            inv_inertia_b: Sym::default(),
        }
    }

    /// Both bodies' states, lane by lane ([`Lanes::gather`]).
    #[inline(always)]
    pub(crate) fn gather<const AVX2: bool>(&self, bodies: StateView) -> (Lanes<L>, Lanes<L>) {
        (
            Lanes::gather::<AVX2>(bodies, &self.body_a),
            Lanes::gather::<AVX2>(bodies, &self.body_b),
        )
    }

    /// Writes the lanes' new velocities back ([`scatter`]).
    #[inline(always)]
    pub(crate) fn scatter<const AVX2: bool>(&self, bodies: StateView, a: &Lanes<L>, b: &Lanes<L>) {
        scatter::<L, AVX2>(
            bodies,
            (&self.body_a, &self.body_b),
            (&self.inv_mass_a, &self.inv_mass_b),
            a,
            b,
        );
    }

    /// Applies `impulse` at anchors `ra`, `rb`: minus to A, plus to B (`ISO`: see
    /// [`Sym::turn`]).
    #[inline(always)]
    pub(crate) fn apply<const ISO: bool>(
        &self,
        ra: &V3<L>,
        rb: &V3<L>,
        impulse: &V3<L>,
        a: &mut Lanes<L>,
        b: &mut Lanes<L>,
    ) {
        a.v -= *impulse * self.inv_mass_a;
        a.w -= self.inv_inertia_a.turn::<ISO>(&cross(ra, impulse));
        b.v += *impulse * self.inv_mass_b;
        b.w += self.inv_inertia_b.turn::<ISO>(&cross(rb, impulse));
    }
}

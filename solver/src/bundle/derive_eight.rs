//! [`Bundle::derive`] for eight lanes, written with AVX2 intrinsics: the same formulas in the
//! same order, so the same bits (a test below holds it to that on bundles full and partial,
//! with static sides, signed zeros and NaN).
//!
//! Why a second copy: written over [`F`]'s lane loops, the derivation is left to LLVM's SLP
//! vectoriser, which on this code splits the eight lanes into groups (1, 4, 2, 1) or packs a
//! vector's three components, or the four points, into one register instead: about half of
//! its ~3,500 instructions a bundle ran 4-wide or scalar, and four ways of coaxing it failed. Here every lane operation is one 8-wide instruction.
//! The passes, whose values come from transposes, vectorise well from the loops and keep them.
//!
//! Callable only from code compiled with AVX2 (the preparation's `#[target_feature]` function,
//! after run-time detection).

use std::arch::x86_64::*;
use std::ops::{Add, Div, Mul, Neg, Sub};

use super::{Bundle, Inputs, M3};
use crate::contact::FRICTION_CENTRE_REACH;
use crate::contact::WIDE_POINTS;
use crate::wide::{F, V3};

/// Eight lanes in one AVX register.
#[derive(Clone, Copy)]
struct Y(__m256);

/// Eight lanes of a 3-vector.
#[derive(Clone, Copy)]
struct Y3 {
    x: Y,
    y: Y,
    z: Y,
}

// The AVX intrinsics below need a CPU with AVX, which the only caller ([`Bundle::derive_eight`],
// from the AVX2-compiled preparation) has checked; the loads and stores read and write the
// eight floats of an `F<8>`.

impl Y {
    #[inline(always)]
    fn splat(x: f32) -> Y {
        // SAFETY: AVX (the caller checked it); registers only.
        Y(unsafe { _mm256_set1_ps(x) })
    }

    #[inline(always)]
    fn load<const L: usize>(f: &F<L>) -> Y {
        debug_assert_eq!(L, 8);
        // SAFETY: AVX (the caller checked it); reads the eight floats of `f` (L is 8).
        Y(unsafe { _mm256_loadu_ps(f.0.as_ptr()) })
    }

    #[inline(always)]
    fn store<const L: usize>(self, f: &mut F<L>) {
        debug_assert_eq!(L, 8);
        // SAFETY: AVX (the caller checked it); writes the eight floats of `f` (L is 8).
        unsafe { _mm256_storeu_ps(f.0.as_mut_ptr(), self.0) }
    }

    /// `a` where `self > rhs`, else `b` (`F::select_gt`: a NaN compares false).
    #[inline(always)]
    fn select_gt(self, rhs: Y, a: Y, b: Y) -> Y {
        // SAFETY: AVX (the caller checked it); registers only.
        unsafe {
            let gt = _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, rhs.0);
            Y(_mm256_blendv_ps(b.0, a.0, gt))
        }
    }

    /// `f32::abs`: the sign bit cleared.
    #[inline(always)]
    fn abs(self) -> Y {
        // SAFETY: AVX (the caller checked it); registers only.
        Y(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
    }

    /// `f32::clamp`: below `min` gives `min`, then above `max` gives `max`; NaN stays.
    #[inline(always)]
    fn clamp(self, min: f32, max: f32) -> Y {
        let (min, max) = (Y::splat(min), Y::splat(max));
        let low = min.select_gt(self, min, self);
        low.select_gt(max, max, low)
    }

    #[inline(always)]
    fn sqrt(self) -> Y {
        // SAFETY: AVX (the caller checked it); registers only.
        Y(unsafe { _mm256_sqrt_ps(self.0) })
    }
}

macro_rules! lanewise {
    ($trait:ident, $method:ident, $intrinsic:ident) => {
        impl $trait for Y {
            type Output = Y;
            #[inline(always)]
            fn $method(self, rhs: Y) -> Y {
                // SAFETY: AVX (the caller checked it); registers only.
                Y(unsafe { $intrinsic(self.0, rhs.0) })
            }
        }
    };
}
lanewise!(Add, add, _mm256_add_ps);
lanewise!(Sub, sub, _mm256_sub_ps);
lanewise!(Mul, mul, _mm256_mul_ps);
lanewise!(Div, div, _mm256_div_ps);

impl Neg for Y {
    type Output = Y;
    /// `-x`: the sign bit flipped.
    #[inline(always)]
    fn neg(self) -> Y {
        // SAFETY: AVX (the caller checked it); registers only.
        Y(unsafe { _mm256_xor_ps(_mm256_set1_ps(-0.0), self.0) })
    }
}

impl Y3 {
    #[inline(always)]
    fn splat(x: f32) -> Y3 {
        Y3 {
            x: Y::splat(x),
            y: Y::splat(x),
            z: Y::splat(x),
        }
    }

    #[inline(always)]
    fn load<const L: usize>(v: &V3<L>) -> Y3 {
        Y3 {
            x: Y::load(&v.x),
            y: Y::load(&v.y),
            z: Y::load(&v.z),
        }
    }

    #[inline(always)]
    fn store<const L: usize>(self, v: &mut V3<L>) {
        self.x.store(&mut v.x);
        self.y.store(&mut v.y);
        self.z.store(&mut v.z);
    }

    /// `x x + y y + z z`, in that order (`V3::dot`).
    #[inline(always)]
    fn dot(&self, o: &Y3) -> Y {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    #[inline(always)]
    fn cross(&self, b: &Y3) -> Y3 {
        Y3 {
            x: self.y * b.z - self.z * b.y,
            y: self.z * b.x - self.x * b.z,
            z: self.x * b.y - self.y * b.x,
        }
    }

    #[inline(always)]
    fn scale(&self, s: Y) -> Y3 {
        Y3 {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }

    #[inline(always)]
    fn unscale(&self, s: Y) -> Y3 {
        Y3 {
            x: self.x / s,
            y: self.y / s,
            z: self.z / s,
        }
    }

    #[inline(always)]
    fn add(&self, o: &Y3) -> Y3 {
        Y3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }

    #[inline(always)]
    fn sub(&self, o: &Y3) -> Y3 {
        Y3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }

    /// `a` where `when > rhs`, else `b`, component by component.
    #[inline(always)]
    fn select_gt(when: Y, rhs: Y, a: &Y3, b: &Y3) -> Y3 {
        Y3 {
            x: when.select_gt(rhs, a.x, b.x),
            y: when.select_gt(rhs, a.y, b.y),
            z: when.select_gt(rhs, a.z, b.z),
        }
    }
}

/// A 3x3 matrix of lanes by columns (`M3`).
#[derive(Clone, Copy)]
struct Ym([Y3; 3]);

impl Ym {
    #[inline(always)]
    fn load<const L: usize>(m: &M3<L>) -> Ym {
        Ym(m.columns.each_ref().map(Y3::load))
    }

    /// `M v`, column by column (`M3::mul`).
    #[inline(always)]
    fn mul(&self, v: &Y3) -> Y3 {
        let [c0, c1, c2] = &self.0;
        c0.scale(v.x).add(&c1.scale(v.y)).add(&c2.scale(v.z))
    }

    #[inline(always)]
    fn add(&self, o: &Ym) -> Ym {
        let ([a0, a1, a2], [b0, b1, b2]) = (&self.0, &o.0);
        Ym([a0.add(b0), a1.add(b1), a2.add(b2)])
    }
}

impl<const L: usize> Bundle<L> {
    /// [`Bundle::derive`], eight lanes at a time: see the module's documentation.
    ///
    /// # Safety
    /// `L` is 8, and the CPU has AVX2 and the caller is compiled with it.
    #[inline(always)]
    pub(super) unsafe fn derive_eight(&mut self, inputs: &Inputs<L>) {
        let (zero, one) = (Y::splat(0.0), Y::splat(1.0));
        let n = Y3::load(&self.normal);
        let (ma, mb) = (
            Y::load(&self.pair.inv_mass_a),
            Y::load(&self.pair.inv_mass_b),
        );
        let (ia, ib) = (Ym::load(&inputs.inertia_a), Ym::load(&inputs.inertia_b));
        // The tangents, as `contact::tangents` chooses them.
        let first = Y::splat(0.57).select_gt(n.x.abs(), one, zero);
        let axis = Y3 {
            x: first,
            y: one - first,
            z: zero,
        };
        let t1 = n.cross(&axis);
        let length = t1.dot(&t1).sqrt();
        let t1 = Y3::select_gt(length, zero, &t1.unscale(length), &Y3::splat(0.0));
        let t2 = n.cross(&t1);
        t1.store(&mut self.tangents[0]);
        t2.store(&mut self.tangents[1]);
        // The friction centre.
        let (mut center_a, mut center_b, mut total) = (Y3::splat(0.0), Y3::splat(0.0), zero);
        let reach = Y::splat(FRICTION_CENTRE_REACH);
        for k in 0..WIDE_POINTS {
            let weight = (one - Y::load(&inputs.separation[k]) / reach).clamp(0.01, 1.0);
            let weight = Y::load(&inputs.present[k]).select_gt(zero, weight, zero);
            let (ra, rb) = (Y3::load(&inputs.anchor_a[k]), Y3::load(&inputs.anchor_b[k]));
            center_a = center_a.add(&ra.scale(weight));
            center_b = center_b.add(&rb.scale(weight));
            total = total + weight;
        }
        let divisor = total.select_gt(zero, total, one);
        let ca = Y3::select_gt(total, zero, &center_a.unscale(divisor), &center_a);
        let cb = Y3::select_gt(total, zero, &center_b.unscale(divisor), &center_b);
        ca.store(&mut self.center_a);
        cb.store(&mut self.center_b);
        // The tangent block.
        let (rta, rtb) = (
            [ca.cross(&t1), ca.cross(&t2)],
            [cb.cross(&t1), cb.cross(&t2)],
        );
        // (Functions, not closures: a closure is compiled apart, without the caller's AVX2.)
        #[inline(always)]
        fn entry(
            linear: Y,
            (ra_i, ra_j, ia): (&Y3, &Y3, &Ym),
            (rb_i, rb_j, ib): (&Y3, &Y3, &Ym),
        ) -> Y {
            linear + ra_i.dot(&ia.mul(ra_j)) + rb_i.dot(&ib.mul(rb_j))
        }
        let k11 = entry(ma + mb, (&rta[0], &rta[0], &ia), (&rtb[0], &rtb[0], &ib));
        let k12 = entry(zero, (&rta[0], &rta[1], &ia), (&rtb[0], &rtb[1], &ib));
        let k22 = entry(ma + mb, (&rta[1], &rta[1], &ia), (&rtb[1], &rtb[1], &ib));
        let det = k11 * k22 - k12 * k12;
        let positive = det.select_gt(zero, det, one);
        det.select_gt(zero, k22 / positive, zero)
            .store(&mut self.tangent_mass[0]);
        det.select_gt(zero, -k12 / positive, zero)
            .store(&mut self.tangent_mass[1]);
        det.select_gt(zero, k11 / positive, zero)
            .store(&mut self.tangent_mass[2]);
        let twist = n.dot(&ia.add(&ib).mul(&n));
        twist
            .select_gt(zero, one / twist.select_gt(zero, twist, one), zero)
            .store(&mut self.twist_mass);
        let friction = Y3::load(&inputs.friction_impulse);
        friction.dot(&t1).store(&mut self.friction_impulse[0]);
        friction.dot(&t2).store(&mut self.friction_impulse[1]);
        // Each point's normal row.
        for k in 0..WIDE_POINTS {
            let present = Y::load(&inputs.present[k]);
            let p = &mut self.points[k];
            let (ra, rb) = (Y3::load(&inputs.anchor_a[k]), Y3::load(&inputs.anchor_b[k]));
            let (angular_a, angular_b) = (ra.cross(&n), rb.cross(&n));
            let k_n =
                ma + mb + angular_a.dot(&ia.mul(&angular_a)) + angular_b.dot(&ib.mul(&angular_b));
            let mass = k_n.select_gt(zero, one / k_n.select_gt(zero, k_n, one), zero);
            present
                .select_gt(zero, mass, zero)
                .store(&mut p.normal_mass);
            angular_a.store(&mut p.angular_a);
            angular_b.store(&mut p.angular_b);
            p.base_separation = inputs.separation[k];
            let lever = ra.sub(&ca);
            present
                .select_gt(zero, lever.dot(&lever).sqrt(), zero)
                .store(&mut p.lever_arm);
        }
    }
}

//! Lanes: `L` independent f32 values that every operation treats alike, and 3-vectors of them.
//!
//! The wide contact kernel ([`crate::bundle`]) is written once over these, for any `L`. Each
//! operation is a plain loop over the lanes, which the compiler turns into SSE2 (4 lanes, the
//! default x86-64 build) or AVX2 (8 lanes, in functions compiled with that feature enabled and
//! chosen at run time). Every lane does exactly the IEEE operations the one-lane (scalar) form
//! does, in the same order, and nothing is fused (Rust never contracts `a * b + c` into a fused
//! multiply-add by itself), so the scalar, 4-lane and 8-lane paths give bit-identical results.

// Lane loops index several arrays by the same lane: the plain form is the clearest, and the
// one the compiler vectorises.
#![allow(clippy::needless_range_loop)]

use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

use crate::{Real, Vector};

/// `L` lanes of f32.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct F<const L: usize>(pub [Real; L]);

impl<const L: usize> Default for F<L> {
    fn default() -> Self {
        F([0.0; L])
    }
}

macro_rules! lanewise {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<const L: usize> $trait for F<L> {
            type Output = F<L>;
            #[inline(always)]
            fn $method(self, rhs: F<L>) -> F<L> {
                let mut out = [0.0; L];
                for i in 0..L {
                    out[i] = self.0[i] $op rhs.0[i];
                }
                F(out)
            }
        }
    };
}
lanewise!(Add, add, +);
lanewise!(Sub, sub, -);
lanewise!(Mul, mul, *);
lanewise!(Div, div, /);

impl<const L: usize> Neg for F<L> {
    type Output = F<L>;
    #[inline(always)]
    fn neg(self) -> F<L> {
        self.each(|x| -x)
    }
}

impl<const L: usize> AddAssign for F<L> {
    #[inline(always)]
    fn add_assign(&mut self, rhs: F<L>) {
        *self = *self + rhs;
    }
}

impl<const L: usize> F<L> {
    /// Every lane `x`.
    #[inline(always)]
    pub fn splat(x: Real) -> F<L> {
        F([x; L])
    }

    /// Lane by lane, the larger (`f32::max`: a NaN lane gives the other operand).
    #[inline(always)]
    pub fn max(self, rhs: F<L>) -> F<L> {
        let mut out = [0.0; L];
        for i in 0..L {
            out[i] = self.0[i].max(rhs.0[i]);
        }
        F(out)
    }

    /// Lane by lane, the smaller.
    #[inline(always)]
    pub fn min(self, rhs: F<L>) -> F<L> {
        let mut out = [0.0; L];
        for i in 0..L {
            out[i] = self.0[i].min(rhs.0[i]);
        }
        F(out)
    }

    /// Lane by lane, the absolute value.
    #[inline(always)]
    pub fn abs(self) -> F<L> {
        self.each(Real::abs)
    }

    /// Lane by lane, `f32::clamp` (NaN stays NaN).
    #[inline(always)]
    pub fn clamp(self, min: Real, max: Real) -> F<L> {
        self.each(|x| x.clamp(min, max))
    }

    /// Lane by lane, the square root.
    #[inline(always)]
    pub fn sqrt(self) -> F<L> {
        self.each(Real::sqrt)
    }

    /// `f` on each lane, as a plain loop: `array::map` goes through a closure the compiler
    /// may leave out of line, compiled without the caller's AVX2.
    #[inline(always)]
    fn each(self, f: impl Fn(Real) -> Real) -> F<L> {
        let mut out = [0.0; L];
        for i in 0..L {
            out[i] = f(self.0[i]);
        }
        F(out)
    }

    /// Lane by lane: `a` where `self > rhs`, else `b`.
    #[inline(always)]
    pub fn select_gt(self, rhs: F<L>, a: F<L>, b: F<L>) -> F<L> {
        let mut out = [0.0; L];
        for i in 0..L {
            out[i] = if self.0[i] > rhs.0[i] { a.0[i] } else { b.0[i] };
        }
        F(out)
    }
}

/// A 3-vector of lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct V3<const L: usize> {
    /// x of every lane.
    pub x: F<L>,
    /// y of every lane.
    pub y: F<L>,
    /// z of every lane.
    pub z: F<L>,
}

impl<const L: usize> V3<L> {
    /// Lane `lane` set to `v`.
    #[inline(always)]
    pub fn set(&mut self, lane: usize, v: &Vector) {
        self.x.0[lane] = v.x;
        self.y.0[lane] = v.y;
        self.z.0[lane] = v.z;
    }

    /// Lane `lane`.
    #[inline(always)]
    pub fn get(&self, lane: usize) -> Vector {
        Vector::new(self.x.0[lane], self.y.0[lane], self.z.0[lane])
    }

    /// The dot product, `x x + y y + z z` in that order (as nalgebra's scalar `dot`).
    #[inline(always)]
    pub fn dot(&self, o: &V3<L>) -> F<L> {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    /// Lane by lane: `a` where `when > rhs`, else `b`.
    #[inline(always)]
    pub fn select_gt(when: F<L>, rhs: F<L>, a: &V3<L>, b: &V3<L>) -> V3<L> {
        V3 {
            x: when.select_gt(rhs, a.x, b.x),
            y: when.select_gt(rhs, a.y, b.y),
            z: when.select_gt(rhs, a.z, b.z),
        }
    }

    /// Each component divided by `s` (as nalgebra's `unscale`).
    #[inline(always)]
    pub fn unscale(&self, s: F<L>) -> V3<L> {
        V3 {
            x: self.x / s,
            y: self.y / s,
            z: self.z / s,
        }
    }

    /// Each component times `s`.
    #[inline(always)]
    pub fn scale(&self, s: F<L>) -> V3<L> {
        V3 {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }
}

impl<const L: usize> Add for V3<L> {
    type Output = V3<L>;
    #[inline(always)]
    fn add(self, o: V3<L>) -> V3<L> {
        V3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

impl<const L: usize> Sub for V3<L> {
    type Output = V3<L>;
    #[inline(always)]
    fn sub(self, o: V3<L>) -> V3<L> {
        V3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

impl<const L: usize> AddAssign for V3<L> {
    #[inline(always)]
    fn add_assign(&mut self, o: V3<L>) {
        *self = *self + o;
    }
}

impl<const L: usize> SubAssign for V3<L> {
    #[inline(always)]
    fn sub_assign(&mut self, o: V3<L>) {
        *self = *self - o;
    }
}

impl<const L: usize> Mul<F<L>> for V3<L> {
    type Output = V3<L>;
    #[inline(always)]
    fn mul(self, s: F<L>) -> V3<L> {
        self.scale(s)
    }
}

/// A unit quaternion of lanes, `(w; x, y, z)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Q<const L: usize> {
    /// Scalar part.
    pub w: F<L>,
    /// Vector part.
    pub v: V3<L>,
}

impl<const L: usize> Q<L> {
    /// `q u`: `u` turned by the rotation, `u + w t + v x t` with `t = 2 (v x u)`.
    #[inline(always)]
    pub fn rotate(&self, u: &V3<L>) -> V3<L> {
        let two = F::splat(2.0);
        let t = cross(&self.v, u).scale(two);
        *u + t.scale(self.w) + cross(&self.v, &t)
    }
}

/// `a x b`.
#[inline(always)]
pub fn cross<const L: usize>(a: &V3<L>, b: &V3<L>) -> V3<L> {
    V3 {
        x: a.y * b.z - a.z * b.y,
        y: a.z * b.x - a.x * b.z,
        z: a.x * b.y - a.y * b.x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Quaternion;

    /// `q` and `u` in every lane.
    fn splat<const L: usize>(q: &Quaternion, u: &Vector) -> (Q<L>, V3<L>) {
        let (mut lanes, mut ul) = (Q::<L>::default(), V3::<L>::default());
        for i in 0..L {
            lanes.w.0[i] = q.w;
            lanes.v.set(i, &q.imag());
            ul.set(i, u);
        }
        (lanes, ul)
    }

    /// The lanes' rotation agrees with nalgebra's to rounding.
    #[test]
    fn rotation_matches_nalgebra() {
        let q = Quaternion::from_euler_angles(-0.4, 0.9, 2.6);
        let u = Vector::new(-1.2, 0.4, 0.9);
        let (lanes, ul) = splat::<8>(&q, &u);
        let (turned, want) = (lanes.rotate(&ul).get(5), q * u);
        assert!((turned - want).norm() < 1e-6, "{turned} vs {want}");
    }
}

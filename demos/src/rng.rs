//! splitmix64, exactly as docs/SCENES.md writes it: the one seeded generator of the
//! scenes, the benches (which use it from here) and the collision crate's tests (which include
//! this file, as the engine's and the broad phase's tests do: it needs only nalgebra).

use nalgebra::{Isometry3, Vector3};

type Real = f32;
type Vector<T> = Vector3<T>;
type Isometry<T> = Isometry3<T>;

/// splitmix64, as in docs/SCENES.md; the state is the seed to start with.
///
/// ```
/// let mut rng = sprung_demos::rng::Rng(42);
/// let u = rng.unit();
/// assert!((0.0..1.0).contains(&u));
/// ```
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1): the top 24 bits of the next output over 2^24 (SCENES.md).
    pub fn unit(&mut self) -> Real {
        (self.next_u64() >> 40) as Real / 16_777_216.0
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: Real, hi: Real) -> Real {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in [-half, half).
    pub fn signed(&mut self, half: Real) -> Real {
        self.range(-half, half)
    }

    /// An index below `n` (> 0), by the remainder of the next output.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A vector with components uniform in [-half, half).
    pub fn vector(&mut self, half: Real) -> Vector<Real> {
        Vector::new(
            self.range(-half, half),
            self.range(-half, half),
            self.range(-half, half),
        )
    }

    /// A random pose: translation within `half` of the origin, any rotation.
    pub fn pose(&mut self, half: Real) -> Isometry<Real> {
        let axis = self.vector(1.0).try_normalize(1e-3).unwrap_or(Vector::y());
        Isometry::new(
            self.vector(half),
            axis * self.range(0.0, std::f32::consts::PI),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference outputs of splitmix64 seeded with 0 (Vigna's splitmix64.c).
    #[test]
    fn matches_the_reference_sequence() {
        let mut rng = Rng(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    }
}

//! What the crate's unit tests share.

use crate::{Real, Vector};

/// A small deterministic generator (no dependency for a few tests).
pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    /// Uniform in [-1, 1).
    pub(crate) fn next(&mut self) -> Real {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as Real / (1u64 << 24) as Real) * 2.0 - 1.0
    }

    /// Each component uniform in [-1, 1).
    pub(crate) fn vector(&mut self) -> Vector {
        Vector::new(self.next(), self.next(), self.next())
    }
}

//! The world's state as one number: every body's pose and velocity bits, in handle order.
//!
//! Two worlds with the same hash hold the same bodies at the same bits; a test that pins the
//! hash after N steps of a scene catches any change to what the step computes, down to the last
//! bit. FNV-1a (64 bits) over the bytes, not the standard library's `DefaultHasher`, whose
//! algorithm may change between Rust releases: a pinned hash must mean the same thing tomorrow.

use super::*;

/// FNV-1a's 64-bit offset basis and prime.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// A running FNV-1a hash over 32-bit words (their little-endian bytes).
#[derive(Clone, Copy)]
pub(crate) struct StateHasher(u64);

impl StateHasher {
    pub(crate) fn new() -> Self {
        StateHasher(FNV_OFFSET)
    }

    pub(crate) fn byte(&mut self, byte: u8) {
        self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(FNV_PRIME);
    }

    pub(crate) fn word(&mut self, word: u32) {
        for byte in word.to_le_bytes() {
            self.byte(byte);
        }
    }

    pub(crate) fn reals(&mut self, values: &[Real]) {
        for v in values {
            self.word(v.to_bits());
        }
    }

    pub(crate) fn finish(self) -> u64 {
        self.0
    }
}

impl World {
    /// A hash of every body's state: for each body in handle order (slot, generation), its
    /// kind, the bits of its translation, rotation, linear and angular velocity. Equal for two
    /// worlds built and stepped the same way on the same machine, whatever the thread count;
    /// the world's id (inside its handles) is left out, so two such worlds hash alike.
    ///
    /// The order in which a world was built is part of its state: bodies, colliders and joints
    /// take slots in creation order and the solver visits them in that order, so the same
    /// bodies added in another order make another world, which may hash and step differently.
    ///
    /// ```
    /// use sprung::{ColliderBuilder, RigidBodyBuilder, World};
    /// use sprung::math::Vector;
    ///
    /// let build = || {
    ///     let mut world = World::default();
    ///     let ball = world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 5.0, 0.0))).unwrap();
    ///     world.add_collider(ColliderBuilder::ball(0.5), ball).unwrap();
    ///     world
    /// };
    /// let (mut a, mut b) = (build(), build());
    /// for _ in 0..10 {
    ///     a.step(1.0 / 60.0).unwrap();
    ///     b.step(1.0 / 60.0).unwrap();
    /// }
    /// assert_eq!(a.state_hash(), b.state_hash());
    /// b.step(1.0 / 60.0).unwrap();
    /// assert_ne!(a.state_hash(), b.state_hash());
    /// ```
    pub fn state_hash(&self) -> u64 {
        let mut hasher = StateHasher::new();
        for (handle, body) in self.bodies() {
            hasher.word(handle.index);
            hasher.word(handle.generation);
            hasher.word(body.kind as u32);
            hasher.reals(body.pose.translation.vector.as_slice());
            hasher.reals(body.pose.rotation.coords.as_slice());
            hasher.reals(body.linear_velocity.as_slice());
            hasher.reals(body.angular_velocity.as_slice());
        }
        hasher.finish()
    }
}

//! sprung-control: the gameplay layer on top of the engine, written against sprung's public API
//! and its spring toolkit as a user's crate would be.
//!
//! - [`character`]: a kinematic character that walks the world by collide and slide, its
//!   horizontal velocity driven by the toolkit's critical spring, its vertical motion exact
//!   under gravity, with ground states, slopes, snapping to the ground, moving platforms, and a
//!   prediction of its path that sees the world.

pub mod character;

pub use character::{Character, CharacterHit, CharacterSettings, Ground, GroundState};

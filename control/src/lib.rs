//! sprung-control: the gameplay layer on top of the engine, written against sprung's public API
//! and its spring toolkit as a user's crate would be.
//!
//! - [`character`]: a kinematic character that walks the world by collide and slide, its
//!   horizontal velocity driven by the toolkit's critical spring, its vertical motion exact
//!   under gravity, with ground states, slopes, snapping to the ground, moving platforms, and a
//!   prediction of its path that sees the world.
//! - [`floating`]: a dynamic body held at a ride height by a spring along a ray, kept upright
//!   and walked by capped motors: the character that feels pushes.
//! - [`hover`]: a hover racer on spring rays at its corners, kept level by an upright spring,
//!   driven and turned by capped motors.

pub mod character;
pub mod floating;
pub mod hover;

pub use character::{Character, CharacterHit, CharacterSettings, Ground, GroundState};
pub use floating::{FloatingCharacter, FloatingSettings};
pub use hover::{HoverInput, HoverRacer, HoverSettings};

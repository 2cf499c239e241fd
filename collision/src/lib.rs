//! sprung-collision: everything that finds contacts, and nothing that knows mass or velocity.
//!
//! The stages, in the order the engine runs them: [`broad_phase`] (sweep-and-prune over fat
//! AABBs: which pairs might touch), [`narrow_phase`] (per pair: [`gjk`] distance, [`epa`]
//! depth, [`manifold`] clipping, kept from step to step; [`dispatch`] picks the routine, and
//! static level geometry goes through [`halfspace`] in closed form and [`mesh`] triangle by
//! triangle). [`shape`] holds the shapes ([`hull`] the compact copy of a hull that every step reads); [`cast`] answers ray casts and time of impact for
//! queries and continuous collision.
//! All types are parry3d's `math` types (f32), Y up.

pub mod broad_phase;
pub mod cast;
pub mod closed_form;
pub mod dispatch;
pub mod epa;
pub mod gjk;
pub mod halfspace;
pub mod hull;
pub mod level;
pub mod manifold;
pub mod mesh;
pub mod narrow_phase;
pub mod sat;
pub mod shape;
#[cfg(feature = "serde")]
mod shape_serde;
mod support;
#[cfg(test)]
mod testing;
pub mod unit;

pub use parry3d;

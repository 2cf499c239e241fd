//! sprung-collision: everything that finds contacts, and nothing that knows mass or velocity.
//!
//! The stages, in the order the engine runs them: [`broad_phase`] (sweep-and-prune over fat
//! AABBs: which pairs might touch), then [`narrow_phase`] (the pair cache: each pair's
//! manifolds kept from step to step, [`recycle`]d while the pair moves little). For each pair,
//! [`dispatch`] picks the routine: two boxes the separating-axis test ([`sat`]), pairs with a
//! closed form [`closed_form`], the rest [`gjk`] distance and [`epa`] depth, then [`manifold`]
//! clipping (its polygon clipper apart); static level geometry goes through [`halfspace`] in
//! closed form and [`mesh`] triangle by triangle. What they all answer lives in [`contact`],
//! which imports none of them. [`shape`] holds the shapes ([`hull`] the compact copy of a hull
//! that every step reads); [`cast`] answers ray casts and time of impact for queries and
//! continuous collision; [`level`] the queries against level geometry.
//! All types are parry3d's `math` types (f32), Y up.

pub mod broad_phase;
pub mod cast;
mod clipper;
pub mod closed_form;
pub mod contact;
pub mod dispatch;
pub mod epa;
pub mod gjk;
pub mod halfspace;
pub mod hull;
pub mod level;
pub mod manifold;
pub mod mesh;
pub mod narrow_phase;
pub mod recycle;
pub mod sat;
pub mod shape;
#[cfg(feature = "serde")]
mod shape_serde;
mod support;
#[cfg(test)]
mod testing;
pub mod unit;

pub use parry3d;

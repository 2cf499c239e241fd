//! Casts: where a ray first meets a shape ([`ray_cast`]), and when two moving shapes first come
//! within a distance of each other ([`time_of_impact`]).
//!
//! In: shapes at poses, a ray or two motions. Out: the first hit (time, point, normal), or `None`.
//! The engine's world queries (ray and shape casts) and continuous collision run on these.
//!
//! Rays are closed forms per shape (sphere: a quadratic; cuboid: slabs; capsule: a cylinder and
//! two spheres; hull: its face planes), each giving the chord of the line through the solid, so
//! the rules for a ray starting inside are written once (`cast::ray`). Time of impact is conservative
//! advancement over our GJK and EPA (`cast::toi`).

mod ray;
mod toi;

pub use ray::{ray_cast, RayHit};
pub use toi::{time_of_impact, Motion, Toi};

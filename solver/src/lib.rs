//! sprung-solver: velocity-level constraints, knowing nothing of shapes.
//!
//! The stages of a solve, in order: a step's numbers are made once from the [`settings`]
//! ([`step::StepContext`]); bodies are gathered into [`body::Bodies`] (a hot state the loop
//! reads and writes, a cold half it does not); contacts are prepared once per step
//! ([`contact`], solved in lanes by [`bundle`]) and joints are composed of parts ([`joint`]:
//! point, length and axis parts, the last made of [`row::Row`]s); [`pgs::Solver`] runs the
//! substeps (integrate velocities, impacts, warm start, iterate with bias, integrate
//! positions, impacts, relax without bias), and hands back the impulses for next step's warm
//! start. Every row, rigid or soft, is solved by the same formula with coefficients from
//! [`softness::Softness`].

pub mod body;
pub mod bundle;
pub mod contact;
pub mod graph;
mod impact;
mod integrate;
pub mod joint;
pub mod kernels;
mod lanes;
mod parallel;
pub use parallel::{share, Shared};
pub mod pgs;
mod rotation;
pub mod row;
pub mod settings;
pub mod softness;
pub mod step;
#[cfg(test)]
mod testing;
#[cfg(target_arch = "x86_64")]
mod transpose;
pub mod vehicle;
pub mod wheel;
pub mod wide;

/// Scalars are f32, as in parry3d.
pub type Real = f32;
/// 3-vectors.
pub type Vector = nalgebra::Vector3<Real>;
/// 3x3 matrices.
pub type Matrix = nalgebra::Matrix3<Real>;
/// Unit quaternions.
pub type Quaternion = nalgebra::UnitQuaternion<Real>;
/// A point in space.
pub type Point = nalgebra::Point3<Real>;

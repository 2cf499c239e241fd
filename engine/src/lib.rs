//! sprung: a small 3D rigid-body physics engine in which springs are constraints like any other.
//!
//! This crate will hold what a user imports: `World`, rigid bodies, colliders, handles and the
//! step (issue 3). Today the pipeline's collision stage is ready in [`collision`]; the solver
//! stage follows.

pub use sprung_collision as collision;

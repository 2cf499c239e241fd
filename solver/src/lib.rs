//! sprung-solver: velocity-level constraints, knowing nothing of shapes.
//!
//! It will hold the one constraint row type shared by contacts, joints and springs, its
//! softness (rigid with Baumgarte, or a spring by frequency and damping ratio), and the
//! projected Gauss-Seidel solver (issues 3 and 4). Nothing is implemented here yet.

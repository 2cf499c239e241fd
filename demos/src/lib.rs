//! sprung-demos: the scene catalogue of docs/SCENES.md as a library, and the programs
//! that run it (`sprung bench`, the headless runner).
//!
//! Each scene is built exactly as SCENES.md writes it and knows its own checks, so the runner,
//! the benches and the tests all measure the same thing.
//!
//! ```
//! let spec = sprung_demos::find("pyramid").unwrap();
//! let mut scene = (spec.build)();
//! scene.world.step(spec.dt).unwrap();
//! assert_eq!(scene.tracked.len(), 465);
//! ```

pub mod closed_forms;
pub mod plot;
pub mod rng;
pub mod runner;
pub mod scenes;
pub mod spring_plot;

pub use scenes::{
    catalogue, find, find_any, worst_joints, Check, Crowd, Fleet, Lap, Scene, SceneSpec, Steer,
    RAGDOLLS, SHOWCASE, VEHICLES,
};

//! sprung-demos: the scene catalogue of ../shared/bench/SCENES.md as a library, and the
//! programs that run it (the headless runner, then the viewer). The scenes arrive with the
//! world and its step (issue 3); nothing is implemented here yet.

//! Sub-stepping for springs updated once per frame: three ways to keep each update's `dt`
//! small (for stability and consistent feel) whatever the frame rate.
//!
//! After Huw Bowles, "Spring dynamics in production" (the three sub-stepping schemes and the
//! cap on updates). Each is generic over a closure that advances a state by a given `dt`, so
//! they work for any integrator and any state:
//! - [`substep_max_dt`]: steps of `max_dt`, then one step of the remainder (mixed `dt`s);
//! - [`substep_uniform`]: `ceil(dt / max_dt)` equal steps (Bowles' favourite);
//! - [`FixedStepper`]: always `fixed_dt` (deterministic), with the output interpolated between
//!   the last two states so it lands on the frame's time.
//!
//! All cap the updates per frame: past the cap the rest of the frame's time is dropped (the
//! spring runs in slow motion through a long hitch rather than stalling the game further). The
//! fixed stepper drops its backlog too, so one long frame does not make every later frame hit
//! the cap. Each returns how much time it simulated, so the caller can see what was dropped.

use super::{lerp, valid_dt, SpringValue};
use crate::Real;

/// Relative slack on step counts, so that rounding (`3 * (1/60)` vs `0.05`) does not add a
/// sliver of a step: a remainder within this fraction of `max_dt` joins the previous step.
const SLACK: Real = 1e-4;

/// Whether a frame of `dt` can be cut into substeps of at most `max_dt`: `dt` a usable time
/// step and `max_dt` positive (infinite: one substep). Otherwise the substeppers do nothing.
fn valid_substeps(dt: Real, max_dt: Real) -> bool {
    valid_dt(dt) && max_dt > 0.0
}

/// Advances `state` by `dt` (s) in steps of `max_dt` (s) and a final remainder step, at most
/// `max_updates` calls of `step(state, h)`. Returns the time simulated (s): `dt`, or less if
/// the cap was hit. The last step may exceed `max_dt` by `1e-4 max_dt` (to absorb rounding).
///
/// Bad input: `dt` or `max_dt` not positive (or NaN), an infinite `dt`, or `max_updates == 0`
/// simulates nothing (returns 0); an infinite `max_dt` means one step of `dt`.
pub fn substep_max_dt<S>(
    state: &mut S,
    dt: Real,
    max_dt: Real,
    max_updates: usize,
    mut step: impl FnMut(&mut S, Real),
) -> Real {
    if !valid_substeps(dt, max_dt) {
        return 0.0;
    }
    let mut done = 0.0;
    for i in 0..max_updates {
        // From the step count, not a running difference: no drift.
        let remaining = if i == 0 { dt } else { dt - i as Real * max_dt };
        let h = if remaining <= max_dt * (1.0 + SLACK) {
            remaining
        } else {
            max_dt
        };
        step(state, h);
        done += h;
        if h == remaining {
            break;
        }
    }
    done
}

/// Advances `state` by `dt` (s) in `n = ceil(dt / max_dt)` equal steps of `dt / n` (each at
/// most `max_dt`, up to `1e-4` slack for rounding). If `n` exceeds `max_updates`, only
/// `max_updates` of those steps are taken (each still at most `max_dt`). Returns the time
/// simulated (s). Bad input as in [`substep_max_dt`].
pub fn substep_uniform<S>(
    state: &mut S,
    dt: Real,
    max_dt: Real,
    max_updates: usize,
    mut step: impl FnMut(&mut S, Real),
) -> Real {
    if !valid_substeps(dt, max_dt) {
        return 0.0;
    }
    let count = (dt / max_dt - SLACK).ceil().max(1.0);
    let h = dt / count;
    let taken = (count as usize).min(max_updates); // the cast saturates
    for _ in 0..taken {
        step(state, h);
    }
    h * taken as Real
}

/// A fixed-step driver, the one sprung has: frame times in, whole steps of `fixed_dt` out, at
/// most `max_updates` a frame (past the cap the backlog is dropped, so that one slow frame does
/// not make every later one hit the cap). What it drives runs ahead of the frame's time by less
/// than a step, and [`FixedStepper::alpha`] says where the frame's time lies between the last
/// two states (0: the one before the last step, 1: the last), to blend them: a world with
/// `World::interpolated_pose` (sprung's `World::advance` drives one), anything else with
/// [`Interpolated`]. Deterministic: the states do not depend on the frame times, only their
/// count does.
///
/// ```
/// use sprung_spring::substep::{FixedStepper, Interpolated};
///
/// let mut stepper = FixedStepper::new(0.01, 8);
/// let mut height = Interpolated::new(0.0_f32);
/// // A 25 ms frame: three 10 ms steps, the frame's time 0.5 of the way through the last.
/// assert_eq!(stepper.advance(0.025, |h| height.step(|y| *y += h)), 3);
/// assert!((stepper.alpha() - 0.5).abs() < 1e-4);
/// let y = height.output(stepper.alpha(), |a, b, t| a + (b - a) * t);
/// assert!((y - 0.025).abs() < 1e-6);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FixedStepper {
    fixed_dt: Real,
    max_updates: usize,
    /// Frame time not yet simulated (s); at most 0 after an advance: the state is ahead.
    pending: Real,
    alpha: Real,
    updates: usize,
}

impl FixedStepper {
    /// Steps of `fixed_dt` (s), at most `max_updates` per frame. A `fixed_dt` that is not finite
    /// and positive makes every advance a no-op (sprung's `World::advance` refuses it).
    pub fn new(fixed_dt: Real, max_updates: usize) -> FixedStepper {
        FixedStepper {
            fixed_dt,
            max_updates,
            pending: 0.0,
            alpha: 1.0,
            updates: 0,
        }
    }

    /// The step (s).
    pub fn fixed_dt(&self) -> Real {
        self.fixed_dt
    }

    /// The most updates per advance.
    pub fn max_updates(&self) -> usize {
        self.max_updates
    }

    /// Advances the frame time by `dt` (s), calling `step(fixed_dt)` as many times as needed (at
    /// most `max_updates`). Returns the number of updates. Bad input (`dt` or `fixed_dt` not
    /// finite or not positive) does nothing.
    pub fn advance(&mut self, dt: Real, mut step: impl FnMut(Real)) -> usize {
        let done: Result<usize, std::convert::Infallible> = self.try_advance(dt, |h| {
            step(h);
            Ok(())
        });
        match done {
            Ok(updates) => updates,
            Err(never) => match never {},
        }
    }

    /// As [`FixedStepper::advance`] with a step that can fail: stops at the first error, the
    /// steps before it counted.
    pub fn try_advance<E>(
        &mut self,
        dt: Real,
        mut step: impl FnMut(Real) -> Result<(), E>,
    ) -> Result<usize, E> {
        self.updates = 0;
        if !valid_dt(dt) || !valid_dt(self.fixed_dt) {
            return Ok(0);
        }
        self.pending += dt;
        while self.pending > SLACK * self.fixed_dt && self.updates < self.max_updates {
            self.updates += 1;
            self.pending -= self.fixed_dt;
            step(self.fixed_dt)?;
        }
        if self.pending > SLACK * self.fixed_dt {
            self.pending = 0.0; // capped: drop the backlog
        }
        self.alpha = (1.0 + self.pending / self.fixed_dt).clamp(0.0, 1.0);
        Ok(self.updates)
    }

    /// Where the frame's time lies between the last two states (0..1).
    pub fn alpha(&self) -> Real {
        self.alpha
    }

    /// Steps run by the last advance.
    pub fn updates(&self) -> usize {
        self.updates
    }

    /// Forgets the pending time (after a restart: the state is at the frame's time).
    pub fn reset(&mut self) {
        self.pending = 0.0;
        self.alpha = 1.0;
        self.updates = 0;
    }
}

/// The last two states of something stepped by a [`FixedStepper`], to blend for the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Interpolated<S> {
    previous: S,
    current: S,
}

impl<S: Clone> Interpolated<S> {
    /// Both states at `state`.
    pub fn new(state: S) -> Self {
        Interpolated {
            previous: state.clone(),
            current: state,
        }
    }

    /// Puts both states at `state`.
    pub fn reset(&mut self, state: S) {
        self.previous = state.clone();
        self.current = state;
    }

    /// One step: the current state becomes the previous one, then `step` advances it.
    pub fn step(&mut self, step: impl FnOnce(&mut S)) {
        self.previous = self.current.clone();
        step(&mut self.current);
    }

    /// The state before the last step.
    pub fn previous(&self) -> &S {
        &self.previous
    }

    /// The latest state (at or ahead of the frame's time).
    pub fn current(&self) -> &S {
        &self.current
    }

    /// The state at the frame's time: `interpolate(previous, current, alpha)`, with `alpha`
    /// from [`FixedStepper::alpha`].
    pub fn output(&self, alpha: Real, interpolate: impl Fn(&S, &S, Real) -> S) -> S {
        interpolate(&self.previous, &self.current, alpha)
    }
}

/// Linear interpolation of a `(position, velocity)` pair, for [`Interpolated::output`].
pub fn lerp_pair<T: SpringValue>(a: &(T, T), b: &(T, T), alpha: Real) -> (T, T) {
    (lerp(a.0, b.0, alpha), lerp(a.1, b.1, alpha))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Spring;
    use crate::{spring_damper, Integrator};

    const SPRING: Spring = Spring::Frequency {
        hertz: 1.0,
        damping_ratio: 0.3,
    };

    fn exact(state: &mut (Real, Real), h: Real) {
        spring_damper(&mut state.0, &mut state.1, 1.0, 0.0, &SPRING, h);
    }

    fn explicit(state: &mut (Real, Real), h: Real) {
        Integrator::ExplicitEuler.step(&mut state.0, &mut state.1, 1.0, 0.0, 10.0, 0.5, h);
    }

    #[test]
    fn max_dt_with_remainder() {
        let mut steps = Vec::new();
        let mut state = 0.0;
        let done = substep_max_dt(&mut state, 0.05, 0.02, 8, |s: &mut Real, h| {
            steps.push(h);
            *s += h;
        });
        assert_eq!(steps.len(), 3);
        assert!((steps[0] - 0.02).abs() < 1e-7 && (steps[2] - 0.01).abs() < 1e-6);
        assert!((done - 0.05).abs() < 1e-6 && (state - 0.05).abs() < 1e-6);
        // Exact multiples do not leave a sliver; the exact spring lands where one step does.
        let (mut a, mut b) = ((0.0, 0.0), (0.0, 0.0));
        let mut count = 0;
        substep_max_dt(&mut a, 0.1, 1.0 / 60.0, 8, |s, h| {
            count += 1;
            exact(s, h)
        });
        exact(&mut b, 0.1);
        assert_eq!(count, 6);
        assert!((a.0 - b.0).abs() < 1e-5 && (a.1 - b.1).abs() < 1e-5);
        // The cap drops the rest.
        let done = substep_max_dt(&mut 0.0, 0.05, 0.02, 2, |s: &mut Real, h| *s += h);
        assert!((done - 0.04).abs() < 1e-6);
    }

    #[test]
    fn uniform_keeps_explicit_euler_stable() {
        // w = 10, zeta = 0.5: explicit Euler needs w h < 1. Frames of 0.2 s (w h = 2).
        let (mut single, mut sub) = ((0.0, 0.0), (0.0, 0.0));
        let mut sizes = Vec::new();
        for _ in 0..50 {
            explicit(&mut single, 0.2);
            let done = substep_uniform(&mut sub, 0.2, 1.0 / 60.0, 16, |s, h| {
                sizes.push(h);
                explicit(s, h)
            });
            assert!((done - 0.2).abs() < 1e-6);
        }
        let diverged = single.0.is_nan() || single.0.abs() > 1e6;
        assert!(diverged, "single steps diverge: {single:?}");
        assert!((sub.0 - 1.0).abs() < 1e-3 && sub.1.abs() < 1e-2, "{sub:?}");
        assert_eq!(sizes.len(), 50 * 12);
        assert!(sizes.iter().all(|&h| (h - 0.2 / 12.0).abs() < 1e-7));
        // Capped: 4 of the 12 steps, each still small.
        let done = substep_uniform(&mut (0.0, 0.0), 0.2, 1.0 / 60.0, 4, explicit);
        assert!((done - 4.0 / 60.0).abs() < 1e-6);
    }

    #[test]
    fn fixed_steps_interpolate_onto_the_frame_time() {
        let fixed = 1.0 / 120.0;
        let (mut stepper, mut state) = (FixedStepper::new(fixed, 8), Interpolated::new((0.0, 0.0)));
        let mut reference = (
            FixedStepper::new(fixed, 1000),
            Interpolated::new((0.0, 0.0)),
        );
        let frames = [0.016, 0.007, 0.033, 0.0169, 0.021, 0.004, 0.05, 0.0166];
        let (mut t, mut updates) = (0.0, 0);
        for i in 0..200 {
            let dt = frames[i % frames.len()];
            t += dt;
            updates += stepper.advance(dt, |h| state.step(|s| exact(s, h)));
            let (x, v) = state.output(stepper.alpha(), lerp_pair);
            // The exact solution at the frame's time; linear interpolation of a smooth motion
            // over 1/120 s is within (h^2 / 8) |x''| of it.
            let (mut xe, mut ve) = (0.0, 0.0);
            exact_at(&mut xe, &mut ve, t);
            assert!(
                (x - xe).abs() < 2e-3 && (v - ve).abs() < 1e-2,
                "t {t}: {x} vs {xe}"
            );
        }
        // Deterministic: the same states whatever the frame pattern (bit for bit).
        let steps = |n: usize| {
            let mut manual = (0.0, 0.0);
            for _ in 0..n {
                exact(&mut manual, fixed);
            }
            manual
        };
        assert_eq!(*state.current(), steps(updates));
        let (stepper, reference_state) = (&mut reference.0, &mut reference.1);
        let n = stepper.advance(t, |h| reference_state.step(|s| exact(s, h)));
        assert!(n.abs_diff(updates) <= 1);
        assert_eq!(*reference_state.current(), steps(n));
        fn exact_at(x: &mut Real, v: &mut Real, t: Real) {
            spring_damper(x, v, 1.0, 0.0, &SPRING, t);
        }
    }

    #[test]
    fn fixed_stepper_cap_drops_the_backlog() {
        let mut stepper = FixedStepper::new(0.01, 8);
        let mut state = Interpolated::new(0.0);
        let mut add = |stepper: &mut FixedStepper, dt: Real| {
            stepper.advance(dt, |h: Real| state.step(|s: &mut Real| *s += h))
        };
        assert_eq!(add(&mut stepper, 1.0), 8);
        assert_eq!(stepper.alpha(), 1.0);
        // The next ordinary frame is ordinary: no catching up.
        assert_eq!(add(&mut stepper, 0.015), 2);
        assert!((stepper.alpha() - 0.5).abs() < 1e-3);
        // Bad input: nothing happens.
        let before = stepper.clone();
        for dt in [0.0, -1.0, Real::NAN, Real::INFINITY] {
            assert_eq!(add(&mut stepper, dt), 0);
        }
        assert_eq!(
            (stepper.alpha(), stepper.fixed_dt()),
            (before.alpha(), before.fixed_dt())
        );
        assert!((state.output(stepper.alpha(), |a, b, t| a + (b - a) * t) - 0.095).abs() < 1e-5);
        state.reset(3.0);
        assert_eq!(state.output(0.3, |a, b, t| a + (b - a) * t), 3.0);
        // A failing step stops the advance; the steps before it count.
        let mut calls = 0;
        let result: Result<usize, &str> = stepper.try_advance(0.05, |_| {
            calls += 1;
            if calls == 3 {
                Err("stop")
            } else {
                Ok(())
            }
        });
        assert_eq!((result, calls, stepper.updates()), (Err("stop"), 3, 3));
    }

    #[test]
    fn bad_input() {
        for (dt, max_dt) in [
            (0.0, 0.1),
            (-1.0, 0.1),
            (Real::NAN, 0.1),
            (0.1, 0.0),
            (0.1, Real::NAN),
        ] {
            let mut calls = 0;
            assert_eq!(
                substep_max_dt(&mut (), dt, max_dt, 8, |_, _| calls += 1),
                0.0
            );
            assert_eq!(
                substep_uniform(&mut (), dt, max_dt, 8, |_, _| calls += 1),
                0.0
            );
            assert_eq!(calls, 0);
        }
        assert_eq!(substep_max_dt(&mut (), 0.1, 0.01, 0, |_, _| ()), 0.0);
        assert_eq!(
            substep_uniform(&mut (), 0.1, Real::INFINITY, 8, |_, _| ()),
            0.1
        );
        assert_eq!(
            substep_max_dt(&mut (), 0.1, Real::INFINITY, 8, |_, _| ()),
            0.1
        );
    }
}

//! The fixed-step driver: real frame times in, fixed physics steps out, and an interpolation
//! factor for rendering (the accumulator scheme: physics never depends on the frame rate).

use parry3d::math::Real;

use crate::error::Error;
use crate::world::World;

/// Steps a world at a fixed `dt` from variable frame times.
///
/// ```
/// use sprung::{FixedStepper, World};
///
/// let mut world = World::default();
/// let mut stepper = FixedStepper::new(1.0 / 60.0, 4).unwrap();
/// // A 25 ms frame runs one 16.7 ms step and carries the rest.
/// let alpha = stepper.advance(&mut world, 0.025).unwrap();
/// assert_eq!(stepper.steps_taken(), 1);
/// assert!((alpha - 0.5).abs() < 1e-3);
/// ```
#[derive(Clone, Debug)]
pub struct FixedStepper {
    dt: Real,
    max_steps: u32,
    accumulator: Real,
    steps_taken: u32,
}

impl FixedStepper {
    /// Steps of `dt` (s), at most `max_steps_per_frame` per call (time beyond it is dropped, so
    /// that a slow frame does not snowball into slower ones).
    pub fn new(dt: Real, max_steps_per_frame: u32) -> Result<Self, Error> {
        crate::limits::time_step(dt)?;
        Ok(FixedStepper {
            dt,
            max_steps: max_steps_per_frame.max(1),
            accumulator: 0.0,
            steps_taken: 0,
        })
    }

    /// Adds `frame_time` (s) and steps while a whole `dt` is owed. Returns how far the leftover
    /// time is into the next step (0..1), to blend the previous and current poses with
    /// [`World::interpolated_pose`].
    pub fn advance(&mut self, world: &mut World, frame_time: Real) -> Result<Real, Error> {
        self.advance_with(frame_time, |dt| world.step(dt).map(|_| ()))
    }

    /// As [`advance`](Self::advance), but each fixed step is `step(dt)`: for a world stepped
    /// with something beside it (a rope of the spring toolkit, a record of each
    /// [`crate::StepReport`]). Stops at the first error.
    ///
    /// ```
    /// use sprung::{FixedStepper, World};
    ///
    /// let mut world = World::default();
    /// let mut stepper = FixedStepper::new(1.0 / 60.0, 4).unwrap();
    /// let mut reports = Vec::new();
    /// stepper
    ///     .advance_with(0.06, |dt| world.step(dt).map(|r| reports.push(r)))
    ///     .unwrap();
    /// assert_eq!(reports.len(), 3);
    /// ```
    pub fn advance_with<E: From<Error>>(
        &mut self,
        frame_time: Real,
        mut step: impl FnMut(Real) -> Result<(), E>,
    ) -> Result<Real, E> {
        if !(frame_time.is_finite() && frame_time >= 0.0) {
            return Err(Error::InvalidTimeStep.into());
        }
        self.accumulator += frame_time;
        self.steps_taken = 0;
        while self.accumulator >= self.dt && self.steps_taken < self.max_steps {
            step(self.dt)?;
            self.accumulator -= self.dt;
            self.steps_taken += 1;
        }
        if self.steps_taken == self.max_steps && self.accumulator >= self.dt {
            self.accumulator %= self.dt;
        }
        Ok(self.accumulator / self.dt)
    }

    /// The fixed step (s).
    pub fn dt(&self) -> Real {
        self.dt
    }

    /// Steps run by the last [`advance`](Self::advance).
    pub fn steps_taken(&self) -> u32 {
        self.steps_taken
    }
}

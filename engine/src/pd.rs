//! Drives a body of the world with the spring toolkit's implicit PD controller
//! ([`PdController`]): the force for the next step, computed from the body's mass, centre of
//! mass and velocity and the world's substep count, applied as a force (cleared after the step,
//! like [`World::apply_force`]).

use parry3d::math::{Point, Real, Vector};
use sprung_spring::PdController;

use crate::error::{finite, Error};
use crate::handle::BodyHandle;
use crate::world::World;

impl World {
    /// Applies `pd`'s force for the next step of `dt` to `body` (dynamic), driving its centre
    /// of mass towards `target` moving at `target_velocity`. Call it before each step.
    ///
    /// ```
    /// use sprung::spring::PdController;
    /// use sprung::{RigidBodyBuilder, Spring, World};
    /// use sprung::math::{Point, Vector};
    ///
    /// let mut world = World::new(Vector::zeros()).unwrap();
    /// let body = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    /// let pd = PdController::new(Spring::Frequency { hertz: 2.0, damping_ratio: 1.0 }).unwrap();
    /// for _ in 0..180 {
    ///     world.apply_pd(body, &pd, Point::new(1.0, 2.0, 0.0), Vector::zeros(), 1.0 / 60.0).unwrap();
    ///     world.step(1.0 / 60.0).unwrap();
    /// }
    /// assert!((world.body(body).unwrap().translation() - Vector::new(1.0, 2.0, 0.0)).norm() < 0.01);
    /// ```
    pub fn apply_pd(
        &mut self,
        body: BodyHandle,
        pd: &PdController,
        target: Point<Real>,
        target_velocity: Vector<Real>,
        dt: Real,
    ) -> Result<(), Error> {
        finite("target", target.coords.as_slice())?;
        finite("target velocity", target_velocity.as_slice())?;
        crate::limits::time_step(dt)?;
        let b = self.body(body).ok_or(Error::StaleHandle)?;
        let force = pd.force(
            b.mass().mass,
            b.center_of_mass(),
            b.linear_velocity(),
            target,
            target_velocity,
            dt,
            self.settings().substeps,
        );
        self.apply_force(body, force)
    }
}

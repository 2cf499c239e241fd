//! A PD controller that drives a body of the world towards a target position and velocity with
//! the implicit ("stable PD", Tan, Liu and Turk) formula: the spring and damper are evaluated at
//! the end of the step, so no gain and no step makes it overshoot into divergence.
//!
//! For stiffness k, damping c and mass m over a step dt, solving
//! `m a = k (x_t - x - dt v - b dt^2 a) + c (v_t - v - dt a)` for the force `m a` gives
//! `F = m (k (x_t - x - dt v) + c (v_t - v)) / (m + dt c + b dt^2 k)`, where `b dt^2 a` is how
//! far a constant acceleration moves the body in the step: b = 1 for one semi-implicit Euler
//! step, (N + 1) / 2N over the world's N substeps. In acceleration mode (any
//! [`Spring`] but `Stiffness`) k and c are per unit mass, so every body follows the same motion.

use parry3d::math::{Point, Real, Vector};
use sprung_solver::softness::Spring;

use crate::error::{finite, Error};
use crate::handle::BodyHandle;
use crate::world::World;

/// Drives a body's centre of mass towards a target.
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
///     pd.apply(&mut world, body, Point::new(1.0, 2.0, 0.0), Vector::zeros(), 1.0 / 60.0).unwrap();
///     world.step(1.0 / 60.0).unwrap();
/// }
/// assert!((world.body(body).unwrap().translation() - Vector::new(1.0, 2.0, 0.0)).norm() < 0.01);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PdController {
    spring: Spring,
}

impl PdController {
    /// A controller of `spring`: `Stiffness` in N/m and N s/m (force mode, the motion depends
    /// on the mass); any other form is per unit mass (acceleration mode).
    pub fn new(spring: Spring) -> Result<Self, Error> {
        spring.check().map_err(Error::Spring)?;
        Ok(PdController { spring })
    }

    /// The force (N) that brings a body of `mass` at `position` moving at `velocity` towards
    /// `target` moving at `target_velocity`, over a step of `dt` integrated in `substeps`
    /// semi-implicit Euler substeps.
    #[allow(clippy::too_many_arguments)]
    pub fn force(
        &self,
        mass: Real,
        position: Point<Real>,
        velocity: Vector<Real>,
        target: Point<Real>,
        target_velocity: Vector<Real>,
        dt: Real,
        substeps: u32,
    ) -> Vector<Real> {
        let n = substeps.max(1) as Real;
        let reach = (n + 1.0) / (2.0 * n);
        let (k, c, m) = match self.spring {
            Spring::Stiffness { stiffness, damping } => (stiffness, damping, mass),
            other => {
                let omega = other.angular_frequency(1.0);
                (omega * omega, 2.0 * other.damping_ratio(1.0) * omega, 1.0)
            }
        };
        let pull = (target - position - velocity * dt) * k + (target_velocity - velocity) * c;
        pull * (mass / (m + dt * c + reach * dt * dt * k))
    }

    /// Applies the force for the next step of `dt` to `body` (dynamic).
    pub fn apply(
        &self,
        world: &mut World,
        body: BodyHandle,
        target: Point<Real>,
        target_velocity: Vector<Real>,
        dt: Real,
    ) -> Result<(), Error> {
        finite("target", target.coords.as_slice())?;
        finite("target velocity", target_velocity.as_slice())?;
        crate::limits::time_step(dt)?;
        let b = world.body(body).ok_or(Error::StaleHandle)?;
        let force = self.force(
            b.mass().mass,
            b.center_of_mass(),
            b.linear_velocity(),
            target,
            target_velocity,
            dt,
            world.settings().substeps,
        );
        world.apply_force(body, force)
    }
}

//! A PD controller that drives a body towards a target position and velocity with the implicit
//! ("stable PD", Tan, Liu and Turk) formula: the spring and damper are evaluated at the end of
//! the step, so no gain and no step makes it overshoot into divergence.
//!
//! For stiffness k, damping c and mass m over a step dt, solving
//! `m a = k (x_t - x - dt v - b dt^2 a) + c (v_t - v - dt a)` for the force `m a` gives
//! `F = m (k (x_t - x - dt v) + c (v_t - v)) / (m + dt c + b dt^2 k)`, where `b dt^2 a` is how
//! far a constant acceleration moves the body in the step: b = 1 for one semi-implicit Euler
//! step, (N + 1) / 2N over N substeps. In acceleration mode (any [`Spring`] but `Stiffness`) k
//! and c are per unit mass, so every body follows the same motion.
//!
//! This is the force alone, for any integrator that holds it over a step; the engine applies it
//! to a body of its world with `World::apply_pd`.

use nalgebra::Point3;

use crate::{Real, Spring, SpringError, Vector};

/// Drives a body's centre of mass towards a target: [`PdController::force`] is the force to
/// hold over the next step.
///
/// ```
/// use sprung_spring::{PdController, Spring, Vector};
/// use nalgebra::Point3;
///
/// // A body of 2 kg at rest at the origin, pulled to (1, 0, 0) at 2 Hz, critically damped,
/// // integrated in one semi-implicit Euler step of 1/60 s per update.
/// let pd = PdController::new(Spring::Frequency { hertz: 2.0, damping_ratio: 1.0 }).unwrap();
/// let (mass, dt) = (2.0, 1.0 / 60.0);
/// let (mut x, mut v) = (Point3::origin(), Vector::zeros());
/// for _ in 0..180 {
///     let force = pd.force(mass, x, v, Point3::new(1.0, 0.0, 0.0), Vector::zeros(), dt, 1);
///     v += force / mass * dt;
///     x += v * dt;
/// }
/// assert!((x - Point3::new(1.0, 0.0, 0.0)).norm() < 0.01);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PdController {
    spring: Spring,
}

impl PdController {
    /// A controller of `spring`: `Stiffness` in N/m and N s/m (force mode, the motion depends
    /// on the mass); any other form is per unit mass (acceleration mode).
    pub fn new(spring: Spring) -> Result<Self, SpringError> {
        spring.check()?;
        Ok(PdController { spring })
    }

    /// The spring it was made with.
    pub fn spring(&self) -> Spring {
        self.spring
    }

    /// The force (N) that brings a body of `mass` at `position` moving at `velocity` towards
    /// `target` moving at `target_velocity`, held over a step of `dt` integrated in `substeps`
    /// semi-implicit Euler substeps (0 counts as 1).
    #[allow(clippy::too_many_arguments)]
    pub fn force(
        &self,
        mass: Real,
        position: Point3<Real>,
        velocity: Vector,
        target: Point3<Real>,
        target_velocity: Vector,
        dt: Real,
        substeps: u32,
    ) -> Vector {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One step of `substeps` semi-implicit Euler substeps under a constant force.
    fn step(
        x: Point3<Real>,
        v: Vector,
        a: Vector,
        dt: Real,
        substeps: u32,
    ) -> (Point3<Real>, Vector) {
        let h = dt / substeps as Real;
        let (mut x, mut v) = (x, v);
        for _ in 0..substeps {
            v += a * h;
            x += v * h;
        }
        (x, v)
    }

    #[test]
    fn the_force_is_the_spring_and_damper_at_the_end_of_the_step() {
        // The definition: m a = k (x_t - x') + c (v_t - v'), with x' and v' where the force
        // carries the body over the step. Checked after integrating, in both modes and for
        // one and several substeps.
        let (x, v) = (Point3::new(0.3, -1.0, 2.0), Vector::new(1.0, 0.5, -2.0));
        let (target, target_v) = (Point3::new(2.0, 1.0, -1.0), Vector::new(0.0, 1.0, 0.0));
        let dt = 1.0 / 60.0;
        let springs = [
            (
                Spring::Stiffness {
                    stiffness: 400.0,
                    damping: 30.0,
                },
                4.0,
            ),
            (
                Spring::Frequency {
                    hertz: 3.0,
                    damping_ratio: 0.4,
                },
                4.0,
            ),
        ];
        for (spring, mass) in springs {
            let pd = PdController::new(spring).unwrap();
            let (k, c) = match spring {
                Spring::Stiffness { stiffness, damping } => (stiffness, damping),
                other => {
                    let w = other.angular_frequency(1.0);
                    let (k, c) = (w * w, 2.0 * other.damping_ratio(1.0) * w);
                    (k * mass, c * mass)
                }
            };
            for substeps in [1, 4, 7] {
                let force = pd.force(mass, x, v, target, target_v, dt, substeps);
                let (x1, v1) = step(x, v, force / mass, dt, substeps);
                let end = (target - x1) * k + (target_v - v1) * c;
                assert!(
                    (force - end).norm() < 1e-3 * force.norm(),
                    "{spring:?}, {substeps} substeps: {force:?} vs {end:?}"
                );
            }
        }
    }

    #[test]
    fn a_bad_spring_is_refused() {
        let bad = Spring::Frequency {
            hertz: Real::NAN,
            damping_ratio: 1.0,
        };
        assert_eq!(PdController::new(bad), Err(SpringError::NonFinite));
    }
}

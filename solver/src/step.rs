//! The step context: what every stage of a step derives from the step's length and the solver's
//! settings (the substep and its inverse, the contacts' and the rigid joints' softness), made
//! once per step by [`SolverSettings::step`] and passed down, so that no stage recomputes
//! `dt / substeps` its own way.

use crate::contact::ContactSettings;
use crate::joint::JointSettings;
use crate::pgs::SolverSettings;
use crate::{Real, Vector};

/// One step's derived quantities.
#[derive(Clone, Copy, Debug)]
pub struct StepContext {
    /// The step (s).
    pub dt: Real,
    /// The substeps per step (at least 1).
    pub substeps: u32,
    /// The substep `dt / substeps` (s).
    pub h: Real,
    /// `1 / h` (1/s).
    pub inv_h: Real,
    /// What contact rows read.
    pub contact: ContactSettings,
    /// How rigid joint rows correct their position error.
    pub joint: JointSettings,
}

impl SolverSettings {
    /// The context of a step of `dt` (s) under these settings.
    ///
    /// ```
    /// use sprung_solver::pgs::SolverSettings;
    ///
    /// let settings = SolverSettings { substeps: 4, ..SolverSettings::default() };
    /// let step = settings.step(1.0 / 60.0);
    /// assert_eq!(step.h, 1.0 / 240.0);
    /// assert_eq!(step.contact.h, step.h);
    /// ```
    pub fn step(&self, dt: Real) -> StepContext {
        let substeps = self.substeps.max(1);
        let h = dt / substeps as Real;
        StepContext {
            dt,
            substeps,
            h,
            inv_h: 1.0 / h,
            contact: self.contact_settings(dt),
            joint: JointSettings::new(self.joint_hertz, self.joint_damping_ratio, h),
        }
    }

    /// [`SolverSettings::step`] under `gravity` (m/s^2), so that contacts know which of their
    /// bodies holds the other up ([`SolverSettings::support_mass_ratio`]); without gravity
    /// there is no up.
    ///
    /// ```
    /// use sprung_solver::pgs::SolverSettings;
    /// use sprung_solver::Vector;
    ///
    /// let step = SolverSettings::default().step_under(1.0 / 60.0, &Vector::new(0.0, -9.81, 0.0));
    /// assert_eq!(step.contact.up, Vector::y());
    /// let floating = SolverSettings::default().step_under(1.0 / 60.0, &Vector::zeros());
    /// assert_eq!(floating.contact.up, Vector::zeros());
    /// ```
    pub fn step_under(&self, dt: Real, gravity: &Vector) -> StepContext {
        let mut step = self.step(dt);
        let g = gravity.norm();
        if g > 0.0 && g.is_finite() {
            step.contact.up = -gravity / g;
        }
        step
    }
}

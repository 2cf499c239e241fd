//! The step context: what every stage of a step derives from the step's length and the solver's
//! settings (the substep and its inverse, the contacts' and the rigid joints' softness), made
//! once per step by [`SolverSettings::step`] and passed down, so that no stage recomputes
//! `dt / substeps` its own way.

use crate::contact::ContactSettings;
use crate::joint::JointSettings;
use crate::pgs::SolverSettings;
use crate::Real;

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
}

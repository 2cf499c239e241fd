//! Projected Gauss-Seidel with substeps: the solve stage of the step.
//!
//! In: the solver bodies (gathered by the engine) and the step's prepared contact constraints
//! and joints. Out: the bodies' new velocities and poses, and every row's accumulated impulse.
//!
//! Per substep of `h = dt / substeps`: integrate velocities (semi-implicit Euler), warm start
//! (apply the accumulated impulses), `iterations` biased passes (joints' position correction,
//! contacts' soft push-out), integrate positions, then `relax_iterations` passes without bias
//! (Catto's "soft step", Box2D v3), which remove the velocity the push added so that it does
//! not show as bounce. After the substeps, restitution; then the bodies' poses are composed
//! from their motion over the step.

use crate::body::Bodies;
use crate::contact::{ContactConstraint, ContactSettings};
use crate::joint::{JointConstraint, JointSettings};
use crate::softness::Softness;
use crate::Real;
/// How the solver iterates; the engine's `World` holds one.
///
/// The defaults were chosen on the standard scenes (docs/PERFORMANCE.md has the figures). A
/// rigid joint under load stays stretched by about `F / (m_eff (2 pi f)^2)`, and `f` cannot
/// pass a quarter of the substep rate without coupled rows diverging, so the joint error falls
/// with the square of the substep count: measured on `joint_grid` (2,500 balls hung from 5
/// points), 4 substeps at 60 Hz left 0.123 m, 6 at 90 Hz 0.059 m, 8 at 120 Hz 0.034 m (the
/// check is 0.05 m). A soft contact at rest gives by the same law, which sets how far a stack
/// sinks: the contact frequencies are capped at a quarter (between moving bodies) and half
/// (against a static one) of the substep rate.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SolverSettings {
    /// Substeps per step (>= 1).
    pub substeps: u32,
    /// Biased iterations per substep (>= 1).
    pub iterations: u32,
    /// Unbiased (relax) iterations per substep after positions are integrated.
    pub relax_iterations: u32,
    /// Frequency (Hz) of the spring that pushes overlapping moving bodies apart (capped at a
    /// quarter of the substep rate).
    pub contact_hertz: Real,
    /// The same against a static or kinematic body (capped at half the substep rate).
    pub static_contact_hertz: Real,
    /// Damping ratio of the contact springs.
    pub contact_damping_ratio: Real,
    /// Largest push-out speed (m/s).
    pub max_push_out_speed: Real,
    /// Frequency (Hz) of rigid joints' position correction (capped at a quarter of the substep
    /// rate).
    pub joint_hertz: Real,
    /// Damping ratio of rigid joints' position correction.
    pub joint_damping_ratio: Real,
    /// Approach speed under which contacts do not bounce (m/s).
    pub restitution_threshold: Real,
    /// Whether to start from last step's impulses.
    pub warm_starting: bool,
    /// Whether friction is solved in the biased pass as well as the relax pass.
    pub friction_in_biased_pass: bool,
}

impl Default for SolverSettings {
    fn default() -> Self {
        SolverSettings {
            substeps: 8,
            iterations: 1,
            relax_iterations: 1,
            contact_hertz: 60.0,
            static_contact_hertz: 120.0,
            contact_damping_ratio: 10.0,
            max_push_out_speed: 3.0,
            joint_hertz: 120.0,
            joint_damping_ratio: 5.0,
            restitution_threshold: 1.0,
            warm_starting: true,
            friction_in_biased_pass: true,
        }
    }
}

impl SolverSettings {
    /// The substep of a step of `dt` (s).
    pub fn substep(&self, dt: Real) -> Real {
        dt / self.substeps.max(1) as Real
    }

    /// What contact rows read in a step of `dt` (s).
    pub fn contact_settings(&self, dt: Real) -> ContactSettings {
        let h = self.substep(dt);
        let rate = 1.0 / h;
        ContactSettings {
            h,
            softness: Softness::spring(
                self.contact_hertz.min(0.25 * rate),
                self.contact_damping_ratio,
                h,
            ),
            static_softness: Softness::spring(
                self.static_contact_hertz.min(0.5 * rate),
                self.contact_damping_ratio,
                h,
            ),
            max_push_out_speed: self.max_push_out_speed,
            restitution_threshold: self.restitution_threshold,
            friction_in_biased_pass: self.friction_in_biased_pass,
        }
    }
}

/// The solver's buffers, kept between steps so that a settled scene allocates nothing.
#[derive(Debug, Default)]
pub struct Solver {
    /// The step's contacts; the engine fills it, the solver works on it.
    pub contacts: Vec<ContactConstraint>,
    /// The step's joints, solved before the contacts in every pass.
    pub joints: Vec<JointConstraint>,
}

impl Solver {
    /// Runs the substeps over `bodies`, `self.joints` and `self.contacts` for a step of `dt`
    /// (s), and leaves each body's pose at the end of the step in its [`crate::body::BodySim`].
    pub fn solve(&mut self, bodies: &mut Bodies, settings: &SolverSettings, dt: Real) {
        let substeps = settings.substeps.max(1);
        let h = settings.substep(dt);
        let contact = settings.contact_settings(dt);
        let joint_settings =
            JointSettings::new(settings.joint_hertz, settings.joint_damping_ratio, h);
        // Without a relax pass, friction has only the biased one.
        let friction_in_biased_pass =
            contact.friction_in_biased_pass || settings.relax_iterations == 0;
        if !settings.warm_starting {
            for j in &mut self.joints {
                j.reset_impulses();
            }
            for c in &mut self.contacts {
                c.reset_impulses();
            }
        }
        for substep in 0..substeps {
            let start = substep as Real * h;
            bodies.integrate_velocities(h);
            for j in &self.joints {
                j.warm_start(bodies);
            }
            for c in &self.contacts {
                c.warm_start(bodies);
            }
            for _ in 0..settings.iterations.max(1) {
                for j in &mut self.joints {
                    j.solve(bodies, &joint_settings, h, true, start);
                }
                for c in &mut self.contacts {
                    c.solve(bodies, &contact, true, friction_in_biased_pass);
                }
            }
            bodies.integrate_positions(h);
            for _ in 0..settings.relax_iterations {
                for j in &mut self.joints {
                    j.solve(bodies, &joint_settings, h, false, start + h);
                }
                for c in &mut self.contacts {
                    c.solve(bodies, &contact, false, true);
                }
            }
        }
        for c in &mut self.contacts {
            c.restitute(bodies, settings.restitution_threshold);
        }
        bodies.finalize();
    }
}

//! Projected Gauss-Seidel with substeps: the solve stage of the step.
//!
//! In: the solver bodies (gathered by the engine) and the contact constraints of the step.
//! Out: the bodies' new velocities and poses, and every row's accumulated impulse.
//!
//! Per substep of `h = dt / substeps`: integrate velocities (semi-implicit Euler), warm start
//! (apply the accumulated impulses), `iterations` passes with the Baumgarte push, integrate
//! positions, then `relax_iterations` passes without it (Catto's "soft step", Box2D v3), which
//! removes the velocity the push added so that it does not show as bounce. After the substeps,
//! restitution.

use crate::body::SolverBody;
use crate::contact::{ContactConstraint, ContactSettings};
use crate::joint::{JointConstraint, JointSettings};
use crate::Real;

/// How the solver iterates; the engine's `World` holds one.
///
/// The defaults (8 substeps of one biased and one relax pass, rigid joints corrected at 120 Hz,
/// a quarter of the substep rate) were chosen on the standard scenes. A rigid joint under load
/// stays stretched by about `F / (m_eff (2 pi f)^2)`, and `f` cannot pass a quarter of the
/// substep rate without coupled rows diverging, so the joint error falls with the square of the
/// substep count: measured on `joint_grid` (2,500 balls hung from 5 points), 4 substeps at
/// 60 Hz left 0.123 m, 6 at 90 Hz 0.059 m, 8 at 120 Hz 0.034 m (the check is 0.05 m). The
/// pyramid wall's drift is 0.035 at 4 substeps with 2 relax passes and 0.032 at 8 with 1, for
/// 27% more time per step.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SolverSettings {
    /// Substeps per step (>= 1).
    pub substeps: u32,
    /// Biased iterations per substep (>= 1).
    pub iterations: u32,
    /// Unbiased (relax) iterations per substep after positions are integrated.
    pub relax_iterations: u32,
    /// Baumgarte factor for contact overlap (0..1).
    pub baumgarte: Real,
    /// Frequency (Hz) of rigid joints' position correction (capped at a quarter of the substep
    /// rate).
    pub joint_hertz: Real,
    /// Damping ratio of rigid joints' position correction.
    pub joint_damping_ratio: Real,
    /// Overlap tolerated without correction (m).
    pub slop: Real,
    /// Largest push-out speed (m/s).
    pub max_push_out_speed: Real,
    /// Approach speed under which contacts do not bounce (m/s).
    pub restitution_threshold: Real,
    /// Whether to start from last step's impulses.
    pub warm_starting: bool,
}

impl Default for SolverSettings {
    fn default() -> Self {
        SolverSettings {
            substeps: 8,
            iterations: 1,
            relax_iterations: 1,
            baumgarte: 0.2,
            joint_hertz: 120.0,
            joint_damping_ratio: 5.0,
            slop: 0.005,
            max_push_out_speed: 3.0,
            restitution_threshold: 1.0,
            warm_starting: true,
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
    /// Runs the substeps over `bodies` and `self.contacts` for a step of `dt` (s).
    pub fn solve(&mut self, bodies: &mut [SolverBody], settings: &SolverSettings, dt: Real) {
        let substeps = settings.substeps.max(1);
        let h = dt / substeps as Real;
        let contact_settings = ContactSettings {
            baumgarte: settings.baumgarte,
            slop: settings.slop,
            max_push_out_speed: settings.max_push_out_speed,
            restitution_threshold: settings.restitution_threshold,
        };
        let joint_settings =
            JointSettings::new(settings.joint_hertz, settings.joint_damping_ratio, h);
        if !settings.warm_starting {
            for j in &mut self.joints {
                j.reset_impulses();
            }
            for c in &mut self.contacts {
                for p in &mut c.points {
                    p.normal.impulse = 0.0;
                    p.tangent[0].impulse = 0.0;
                    p.tangent[1].impulse = 0.0;
                }
            }
        }
        for substep in 0..substeps {
            let start = substep as Real * h;
            for body in bodies.iter_mut() {
                body.integrate_velocity(h);
            }
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
                    c.solve(bodies, &contact_settings, h, true);
                }
            }
            for body in bodies.iter_mut() {
                body.integrate_position(h);
            }
            for _ in 0..settings.relax_iterations {
                for j in &mut self.joints {
                    j.solve(bodies, &joint_settings, h, false, start + h);
                }
                for c in &mut self.contacts {
                    c.solve(bodies, &contact_settings, h, false);
                }
            }
        }
        for c in &mut self.contacts {
            c.restitute(bodies, settings.restitution_threshold);
        }
    }
}

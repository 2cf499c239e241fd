//! The step context: everything a stage of the step reads that the step's length and the
//! solver's settings decide, made once at the start of each step ([`StepContext::new`]) and
//! passed down: the step and the substep and its inverse, how soft contacts and rigid joints
//! are, how many workers and lanes. No stage recomputes `dt / substeps` its own way.

use crate::kernels::Kernels;
use crate::settings::SolverSettings;
use crate::softness::Softness;
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
    /// How many workers the step runs on ([`SolverSettings::workers`]).
    pub workers: usize,
    /// The kernels the step runs: how many contacts of a colour are solved side by side (1,
    /// 4 or 8), and whether in their AVX2-compiled form.
    pub kernels: Kernels,
    /// The settings the rest was made from (iterations, warm starting, restitution...).
    pub settings: SolverSettings,
}

impl StepContext {
    /// The context of a step of `dt` (s) under `settings` and `gravity` (m/s^2): gravity tells
    /// contacts which of their bodies holds the other up
    /// ([`SolverSettings::support_mass_ratio`]); without gravity there is no up.
    ///
    /// ```
    /// use sprung_solver::settings::SolverSettings;
    /// use sprung_solver::step::StepContext;
    /// use sprung_solver::Vector;
    ///
    /// let settings = SolverSettings { substeps: 4, ..SolverSettings::default() };
    /// let step = StepContext::new(&settings, 1.0 / 60.0, &Vector::new(0.0, -9.81, 0.0));
    /// assert_eq!(step.h, 1.0 / 240.0);
    /// assert_eq!(step.contact.h, step.h);
    /// assert_eq!(step.contact.up, Vector::y());
    /// let floating = StepContext::new(&settings, 1.0 / 60.0, &Vector::zeros());
    /// assert_eq!(floating.contact.up, Vector::zeros());
    /// ```
    pub fn new(settings: &SolverSettings, dt: Real, gravity: &Vector) -> StepContext {
        let substeps = settings.substeps.max(1);
        let h = dt / substeps as Real;
        let inv_h = 1.0 / h;
        let g = gravity.norm();
        let up = if g > 0.0 && g.is_finite() {
            -gravity / g
        } else {
            Vector::zeros()
        };
        let s = settings;
        let contact = ContactSettings {
            h,
            softness: Softness::spring(
                s.contact_hertz.min(0.25 * inv_h),
                s.contact_damping_ratio,
                h,
            ),
            static_softness: Softness::spring(
                s.static_contact_hertz.min(0.5 * inv_h),
                s.contact_damping_ratio,
                h,
            ),
            max_push_out_speed: s.max_push_out_speed,
            friction_in_biased_pass: s.friction_in_biased_pass,
            up,
            support_ratio: s.support_mass_ratio,
        };
        StepContext {
            dt,
            substeps,
            h,
            inv_h,
            contact,
            joint: JointSettings::new(s.joint_hertz, s.joint_damping_ratio, h),
            workers: s.workers(),
            kernels: Kernels::new(s.simd),
            settings: *s,
        }
    }
}

/// What contact rows read during a step, made once per step from the solver's settings.
#[derive(Clone, Copy, Debug)]
pub struct ContactSettings {
    /// The substep (s).
    pub h: Real,
    /// Overlap's push-out spring between two moving bodies.
    pub softness: Softness,
    /// The same against a static or kinematic body: stiffer, since only one side gives.
    pub static_softness: Softness,
    /// Largest speed at which overlap is pushed out (m/s).
    pub max_push_out_speed: Real,
    /// Whether friction is solved in the biased pass too, or only in the relax pass.
    pub friction_in_biased_pass: bool,
    /// Up, against gravity (unit), or zero without gravity: which body of a contact holds the
    /// other up.
    pub up: Vector,
    /// [`crate::settings::SolverSettings::support_mass_ratio`].
    pub support_ratio: Real,
}

/// How rigid joint rows correct their position error.
///
/// Not Baumgarte, unlike contacts: measured on a hanging chain of 20 balls at 4 substeps with
/// warm starting and relax passes, Baumgarte (0.2) left the joints 3.5 m apart after 10 s and
/// diverged at 1 relax pass, while this soft correction (Box2D v3's; then 60 Hz, damping ratio
/// 5) held them within 3 mm. The position error is pulled out by a stiff, heavily damped
/// implicit spring, whose leak (`impulse_scale`) keeps warm starting from feeding back: on
/// `joint_grid`, Baumgarte diverged, and so did a leak of only the impulse added since the
/// warm start. The price is a stretch of about `F / (m_eff w^2)` under a load `F`, which is why
/// the default frequency is as high as the substep allows. Position passes after the velocity
/// solve (Box2D v2's, Jolt's) were tried against that stretch and did not reduce it on
/// `joint_grid` even at 50 passes: the error belongs to a 50-link chain, which Gauss-Seidel on
/// positions converges as slowly as on velocities.
///
/// What an impact leaves past a small slop is another matter: the joints solved one by one
/// (hinges, swing-twist joints, ball joints with a cone) are projected after the solve
/// (`project.rs`), which took a humanoid dropped flat from 2 m from 1.0 cm apart at its worst
/// joint to 2 mm (the slop).
#[derive(Clone, Copy, Debug)]
pub struct JointSettings {
    /// The position correction of rigid rows while biased.
    pub stabilisation: Softness,
}

impl JointSettings {
    /// `hertz` and `damping_ratio` at substep `h`; the frequency is capped at a quarter of the
    /// substep rate, past which coupled rows stop converging.
    pub fn new(hertz: Real, damping_ratio: Real, h: Real) -> Self {
        JointSettings {
            stabilisation: Softness::spring(hertz.min(0.25 / h), damping_ratio, h),
        }
    }

    /// The softness of a rigid row: the stabilisation while biased, none while relaxing.
    pub fn rigid(&self, use_bias: bool) -> Softness {
        if use_bias {
            self.stabilisation
        } else {
            Softness::RIGID
        }
    }
}

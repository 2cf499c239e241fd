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
use crate::bundle::{self, Bundle, Pass};
use crate::contact::{ContactConstraint, ContactSettings};
use crate::graph::Colouring;
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
    /// Damping ratio of the contact springs. Measured: Box2D's 10 let a 16-cube tower lean
    /// 35 mm and sleep at 1.5 s; 2 leaned 4 mm and slept at 0.7 s, and left large_pyramid's
    /// drift at 0.076 m (0.082 at 10); below 1 the large pyramid spreads (0.15 m at 0.5).
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
    /// Whether friction is solved in the biased pass as well as the relax pass. Measured with
    /// central friction: relax-only (Box3D's choice) let large_pyramid drift 0.37 m and the
    /// tower lean twice as far, so both passes it is.
    pub friction_in_biased_pass: bool,
    /// How many contacts are solved side by side: every choice gives the same bits.
    pub simd: SimdWidth,
}

/// How many contacts of a colour the solver works on at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SimdWidth {
    /// Eight lanes where the CPU has AVX2, else four.
    #[default]
    Auto,
    /// One at a time.
    Scalar,
    /// Four lanes (SSE2 on x86-64).
    Four,
    /// Eight lanes (AVX2 if the CPU has it, else two SSE2 halves).
    Eight,
}

impl SimdWidth {
    /// The lane count this choice means on this CPU.
    pub fn lanes(self) -> usize {
        match self {
            SimdWidth::Scalar => 1,
            SimdWidth::Four => 4,
            SimdWidth::Eight => 8,
            SimdWidth::Auto => {
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    return 8;
                }
                4
            }
        }
    }
}

impl Default for SolverSettings {
    fn default() -> Self {
        SolverSettings {
            substeps: 8,
            iterations: 1,
            relax_iterations: 1,
            contact_hertz: 60.0,
            static_contact_hertz: 120.0,
            contact_damping_ratio: 2.0,
            max_push_out_speed: 3.0,
            joint_hertz: 120.0,
            joint_damping_ratio: 5.0,
            restitution_threshold: 1.0,
            warm_starting: true,
            friction_in_biased_pass: true,
            simd: SimdWidth::Auto,
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
    /// The contacts' colours.
    colouring: Colouring,
    /// The coloured contacts in lanes, for the lane count of this step.
    bundles: Bundles,
}

/// The coloured contacts packed for one lane count (the others stay empty).
#[derive(Debug, Default)]
struct Bundles {
    one: Vec<Bundle<1>>,
    four: Vec<Bundle<4>>,
    eight: Vec<Bundle<8>>,
}

impl Bundles {
    /// Packs every colour of `colouring`, colour after colour, `lanes` contacts a bundle.
    fn pack(&mut self, contacts: &[ContactConstraint], colouring: &Colouring, lanes: usize) {
        fn fill<const L: usize>(
            out: &mut Vec<Bundle<L>>,
            contacts: &[ContactConstraint],
            colouring: &Colouring,
        ) {
            out.clear();
            for colour in &colouring.colours {
                out.extend(colour.chunks(L).map(|c| Bundle::pack(contacts, c)));
            }
        }
        self.one.clear();
        self.four.clear();
        self.eight.clear();
        match lanes {
            1 => fill(&mut self.one, contacts, colouring),
            4 => fill(&mut self.four, contacts, colouring),
            _ => fill(&mut self.eight, contacts, colouring),
        }
    }

    /// One pass over every bundle, colour after colour.
    fn pass(&mut self, bodies: &mut Bodies, settings: &ContactSettings, pass: Pass) {
        bundle::pass(&mut self.one, bodies, settings, pass);
        bundle::pass(&mut self.four, bodies, settings, pass);
        #[cfg(target_arch = "x86_64")]
        bundle::pass_avx2(&mut self.eight, bodies, settings, pass);
        #[cfg(not(target_arch = "x86_64"))]
        bundle::pass(&mut self.eight, bodies, settings, pass);
    }

    /// Hands the impulses back to the contacts.
    fn unpack(&self, contacts: &mut [ContactConstraint]) {
        self.one.iter().for_each(|b| b.unpack(contacts));
        self.four.iter().for_each(|b| b.unpack(contacts));
        self.eight.iter().for_each(|b| b.unpack(contacts));
    }
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
        self.colouring.build(&self.contacts, bodies);
        self.bundles
            .pack(&self.contacts, &self.colouring, settings.simd.lanes());
        let overflow = &self.colouring.overflow;
        for substep in 0..substeps {
            let start = substep as Real * h;
            bodies.integrate_velocities(h);
            for j in &self.joints {
                j.warm_start(bodies);
            }
            for &c in overflow {
                self.contacts[c as usize].warm_start(bodies);
            }
            self.bundles.pass(bodies, &contact, Pass::WarmStart);
            for _ in 0..settings.iterations.max(1) {
                for j in &mut self.joints {
                    j.solve(bodies, &joint_settings, h, true, start);
                }
                for &c in overflow {
                    self.contacts[c as usize].solve(
                        bodies,
                        &contact,
                        true,
                        friction_in_biased_pass,
                    );
                }
                let pass = Pass::Solve {
                    use_bias: true,
                    friction: friction_in_biased_pass,
                };
                self.bundles.pass(bodies, &contact, pass);
            }
            bodies.integrate_positions(h);
            for _ in 0..settings.relax_iterations {
                for j in &mut self.joints {
                    j.solve(bodies, &joint_settings, h, false, start + h);
                }
                for &c in overflow {
                    self.contacts[c as usize].solve(bodies, &contact, false, true);
                }
                let pass = Pass::Solve {
                    use_bias: false,
                    friction: true,
                };
                self.bundles.pass(bodies, &contact, pass);
            }
        }
        for &c in overflow {
            self.contacts[c as usize].restitute(bodies, settings.restitution_threshold);
        }
        self.bundles.pass(bodies, &contact, Pass::Restitute);
        self.bundles.unpack(&mut self.contacts);
        bodies.finalize();
    }
}

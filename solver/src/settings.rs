//! The solver's settings: how many substeps and passes, how soft contacts and joints are, how
//! many lanes and threads. The engine's `World` holds one; a step derives what its stages read
//! from it once ([`crate::step::StepContext`]).

use crate::kernels::SimdWidth;
use crate::Real;

/// Most worker threads.
pub const MAX_THREADS: u32 = 64;

/// How the solver iterates; the engine's `World` holds one.
///
/// The defaults were chosen on the standard scenes (docs/PERFORMANCE.md has the figures). A
/// rigid joint under load stays stretched by about `F / (m_eff (2 pi f)^2)`, and `f` cannot
/// pass a quarter of the substep rate without coupled rows diverging, so the joint error falls
/// with the square of the substep count: measured on `joint_grid` (2,500 balls hung from 5
/// points), 4 substeps at 60 Hz left 0.123 m, 6 at 90 Hz 0.059 m, 7 at 105 Hz 0.038 m, 8 at
/// 120 Hz 0.034 m (the check is 0.05 m). A soft contact at rest gives by the same law, which
/// sets how far a stack sinks: the contact frequencies are capped at a quarter (between moving
/// bodies) and half (against a static one) of the substep rate. Seven substeps is the fewest
/// that keep every standard scene within its checks (at 6 `joint_grid` fails; at 4 `pyramid`
/// and `large_pyramid` fall at 60 Hz and sink 0.06 and 0.70 m at 30 Hz), and it costs 8% fewer
/// instructions than 8 (docs/PERFORMANCE.md).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SolverSettings {
    /// Substeps per step (>= 1); 7 by default.
    pub substeps: u32,
    /// Biased iterations per substep (>= 1).
    pub iterations: u32,
    /// Unbiased (relax) iterations per substep after positions are integrated.
    pub relax_iterations: u32,
    /// Frequency (Hz) of the spring that pushes overlapping moving bodies apart (capped at a
    /// quarter of the substep rate). It sets how far a stack sinks, `F / (m_eff (2 pi f)^2)`
    /// per contact: a 16-cube tower 17 mm at 60 Hz (120 Hz against the ground), 10 mm at 80.
    /// Measured at 8 substeps (ratio 5): 80 Hz lets `pyramid` drift 13 mm instead of 2, 100 Hz
    /// topples it, and 120 Hz topples a 30-row wall; at 7, 80 Hz lets `pyramid` drift 64 mm
    /// (its check is 50) and 100 Hz topples it. 60 Hz keeps a margin (3 mm at 7).
    pub contact_hertz: Real,
    /// The same against a static or kinematic body (capped at half the substep rate).
    pub static_contact_hertz: Real,
    /// Damping ratio of the contact springs. A tall stack on soft contacts is a chain of
    /// springs whose slowest modes (the whole stack bouncing and swaying) are damped far less
    /// than each contact; a heavily damped contact keeps them from ringing. Measured with
    /// contact recycling (docs/PERFORMANCE.md): `large_pyramid`'s drift is 0.22 m at 1, 0.060
    /// at 2 (its check is 0.05) and 0.028 for every ratio from 3 to 10; the 16-cube tower
    /// leans 1.3 mm at 2, 1.9 at 5, 3.2 at 10, and sleeps at 0.6-0.7 s.
    pub contact_damping_ratio: Real,
    /// Largest push-out speed (m/s).
    pub max_push_out_speed: Real,
    /// Largest mass ratio a contact that holds one body up (its normal within 45 degrees of
    /// up, against gravity) solves as it is: under a body more than this many times heavier,
    /// the lower body acts in that contact as if it were only this many times lighter.
    ///
    /// Why: Gauss-Seidel moves a heavy body resting on a light one by the light one's share of
    /// each impulse, so the contact under it holds it like a spring of the light body's
    /// stiffness: two 0.5 m cubes at 1000:1 sink 8.5 cm into each other and the ground and
    /// bounce; held to 10:1 they stay within 0.96 mm of touching (`heavy_on_light.rs`). What
    /// it costs: the light body passes down this ratio of its own weight (the ground under it
    /// feels `1 + ratio` times its weight, not the heavy body's too), and grips the ground and
    /// reports forces accordingly. A stack of like bodies is not touched. 10 by default;
    /// infinity keeps every ratio.
    pub support_mass_ratio: Real,
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
    /// Worker threads for the step (1 to [`MAX_THREADS`]): every count gives the same bits.
    /// One by default: a library does not start threads unasked. The step runs on at most as
    /// many as the machine has cores ([`SolverSettings::workers`]), and on one without the
    /// `parallel` feature (default; off for wasm32 and other one-thread targets).
    pub threads: u32,
}

impl Default for SolverSettings {
    fn default() -> Self {
        SolverSettings {
            substeps: 7,
            iterations: 1,
            relax_iterations: 1,
            contact_hertz: 60.0,
            static_contact_hertz: 120.0,
            contact_damping_ratio: 5.0,
            max_push_out_speed: 3.0,
            support_mass_ratio: 10.0,
            joint_hertz: 120.0,
            joint_damping_ratio: 5.0,
            restitution_threshold: 1.0,
            warm_starting: true,
            friction_in_biased_pass: true,
            simd: SimdWidth::Auto,
            threads: 1,
        }
    }
}

impl SolverSettings {
    /// How many workers a step runs on: [`threads`](Self::threads), at most the cores the
    /// machine gives this process (`std::thread::available_parallelism`, read once). The
    /// workers meet at a barrier per colour many times a step, and a barrier is only as quick
    /// as its last worker: with more workers than cores, each crossing waits for the
    /// scheduler to run them all. `joint_grid100` on two cores took 6.4 ms a step on two
    /// threads, 21.7 on four and 183 on sixty-four before this cap. One without the
    /// `parallel` feature.
    pub fn workers(&self) -> usize {
        #[cfg(feature = "parallel")]
        {
            static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
            // (The engine crates' clippy list keeps this call to the pool's own count.)
            #[allow(clippy::disallowed_methods)]
            let cores = *CORES.get_or_init(|| {
                std::thread::available_parallelism().map_or(MAX_THREADS as usize, |n| n.get())
            });
            (self.threads.clamp(1, MAX_THREADS) as usize).min(cores)
        }
        #[cfg(not(feature = "parallel"))]
        1
    }
}

//! The stats panel's numbers: each stage's time per step, averaged over the last 60 steps.

use sprung::math::Real;
use sprung::StepReport;

/// Per-step costs, averaged over the last steps.
#[derive(Clone, Debug, Default)]
pub(crate) struct Stats {
    pub(crate) last: StepReport,
    /// Stage times (ms) of recent steps: broad phase, narrow phase, solve, integrate, after.
    pub(crate) recent: std::collections::VecDeque<[f64; 5]>,
    pub(crate) steps_this_frame: u32,
    pub(crate) time: f64,
}

impl Stats {
    pub(crate) fn record(&mut self, report: StepReport, dt: Real) {
        self.last = report;
        self.recent.push_back([
            report.broad_phase_ms,
            report.narrow_phase_ms,
            report.solve_ms,
            report.integrate_ms,
            report.after_ms,
        ]);
        if self.recent.len() > 60 {
            self.recent.pop_front();
        }
        self.time += dt as f64;
    }

    /// The mean of each stage's time over the recent steps (ms).
    pub(crate) fn mean(&self) -> [f64; 5] {
        let n = self.recent.len().max(1) as f64;
        let mut sum = [0.0; 5];
        for step in &self.recent {
            for (total, ms) in sum.iter_mut().zip(step) {
                *total += ms;
            }
        }
        sum.map(|total| total / n)
    }
}

//! The step: [`World::step`] runs the stages in order, each given the step's context
//! ([`StepContext`]: the step and substep, the softness of contacts and joints, the workers and
//! lanes), made once as the step begins.

use parry3d::math::Real;
use sprung_solver::step::StepContext;

use super::{StepReport, World};
use crate::error::Error;
use crate::{integrate, limits};

impl World {
    /// Advances the world by `dt` (s), in the order of DESIGN.md: find contacts (broad phase,
    /// narrow phase) and wake the sleeping islands an awake body touches; gather the awake
    /// bodies and their forces; solve (per substep: integrate velocities, constraints, integrate
    /// positions, relax); report contacts that began or ended; write the bodies back; sweep the
    /// fast ones (continuous collision); break overloaded joints; put slow islands to sleep.
    pub fn step(&mut self, dt: Real) -> Result<StepReport, Error> {
        limits::time_step(dt)?;
        let step = StepContext::new(&self.settings, dt, &self.gravity);
        if !self.sleep.enabled {
            self.islands.wake_all(&mut self.bodies);
        }
        integrate::aim_kinematic(&mut self.bodies, &step);
        self.wake_driven_vehicles();
        let mut clock = Stopwatch::start();
        self.update_broad_phase(&step);
        let broad_phase_ms = clock.lap();
        self.update_narrow_phase(&step);
        self.wake_touched();
        let narrow_phase_ms = clock.lap();
        let gathered = integrate::Gathered {
            out: &mut self.solver_bodies,
            slots: &mut self.solver_slots,
            runaways: &mut self.runaways,
        };
        integrate::gather(
            &mut self.bodies,
            gathered,
            &self.gravity,
            &step,
            &mut self.solver,
        );
        let mut quarantined = self.report_runaways();
        let gather_ms = clock.lap();
        self.build_contacts(&step);
        self.cast_ray_springs();
        self.build_joints(&step);
        self.build_wheels(&step);
        self.solver.solve(&mut self.solver_bodies, &step);
        quarantined += self.quarantine_diverged();
        self.store_joint_impulses();
        self.store_wheels(&step);
        self.report_touching();
        let solve_ms = clock.lap();
        integrate::scatter(
            &mut self.bodies,
            &self.solver_bodies,
            &step,
            &mut self.solver,
        );
        let scatter_ms = clock.lap();
        self.solve_continuous(&step);
        self.place_colliders(&step);
        self.break_joints(&step);
        self.update_islands(&step);
        let after_ms = clock.lap();
        Ok(StepReport {
            collide_ms: broad_phase_ms + narrow_phase_ms,
            broad_phase_ms,
            narrow_phase_ms,
            solve_ms,
            integrate_ms: gather_ms + scatter_ms,
            after_ms,
            quarantined,
            ..self.report()
        })
    }
}

/// Wall time between laps, in milliseconds: the only clock the step reads, and only with the
/// `timings` feature (default): without it every lap reads zero, for targets with no clock
/// (`std::time::Instant::now` panics on wasm32 without a host's).
struct Stopwatch(#[cfg(feature = "timings")] std::time::Instant);

impl Stopwatch {
    // (The engine crates' clippy list keeps `Instant::now` to here.)
    #[allow(clippy::disallowed_methods)]
    fn start() -> Self {
        Stopwatch(
            #[cfg(feature = "timings")]
            std::time::Instant::now(),
        )
    }

    /// Milliseconds since the last lap (or the start), and a new lap begins.
    #[allow(clippy::disallowed_methods)]
    fn lap(&mut self) -> f64 {
        #[cfg(feature = "timings")]
        {
            let now = std::time::Instant::now();
            let ms = (now - self.0).as_secs_f64() * 1e3;
            self.0 = now;
            ms
        }
        #[cfg(not(feature = "timings"))]
        0.0
    }
}

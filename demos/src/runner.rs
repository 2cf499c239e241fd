//! Running a scene of the catalogue and reporting it: the headless runner's work, apart from
//! its command line (`src/bin/sprung.rs`) so that the benches and tests can run scenes the
//! same way.
//!
//! A run is one [`Report`]: SCENES.md's JSON object (serialised by serde, one line per scene)
//! and the figures behind it, which [`table`] and [`failures`] turn into text for a person.

use std::time::Instant;

use serde::Serialize;
use sprung::SolverSettings;

use crate::scenes::{Figure, SceneSpec};

/// How to run a scene: what the command line sets.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Steps to run; `None` runs the scene's own count.
    pub steps: Option<usize>,
    /// Keep every body awake (the scene may already have turned sleeping off itself).
    pub no_sleep: bool,
    /// Runs of each scene: the report gives the best and the median time per step.
    pub repeat: usize,
    /// The solver's settings, checked by the caller (`World::set_settings`).
    pub settings: SolverSettings,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            steps: None,
            no_sleep: false,
            repeat: 1,
            settings: SolverSettings::default(),
        }
    }
}

/// What one scene's run reports: SCENES.md's keys and then ours. Times are milliseconds of
/// wall time of `step` alone (not building the scene, not measuring the checks).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The scene's name.
    pub scene: &'static str,
    /// Dynamic bodies, plus the points of a rope or cloth (which are its bodies).
    pub bodies: usize,
    /// Steps run.
    pub steps: usize,
    /// The time step (s).
    pub dt: f32,
    /// Whether bodies may fall asleep.
    pub sleep: bool,
    /// Mean time per step of the best run.
    pub ms_per_step: f64,
    /// Median over the runs of their mean time per step (the best's with one run).
    pub ms_per_step_median: f64,
    /// Runs made (`--repeat`).
    pub repeat: usize,
    /// The first step alone (it builds the pair cache and the colouring from nothing).
    pub ms_first_step: f64,
    /// The slowest step after the first.
    pub ms_max_step: f64,
    /// The measured figures by name (SCENES.md's `checks`).
    #[serde(serialize_with = "figure_values")]
    pub checks: Vec<Figure>,
    /// Whether every check passes and every step succeeded.
    pub ok: bool,
    /// The names of the checks that fail.
    pub failed: Vec<&'static str>,
    /// Pairs of colliders with contact points at the end, awake and asleep.
    pub contact_pairs: usize,
    /// Their contact points.
    pub contact_points: usize,
    /// Pairs whose manifold the last step reused (recycling).
    pub recycled_pairs: usize,
    /// Mean time of the collision stages per step.
    pub ms_collide: f64,
    /// Mean time of the solve stage per step.
    pub ms_solve: f64,
    /// Bodies asleep at the end.
    pub bodies_asleep: usize,
    /// Characters' scenes: the mean time of one character's update (µs) in the best run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub us_per_move: Option<f64>,
    /// Characters' scenes: the mean time of eight shape casts of a character's shape from
    /// where it ended, along its last motion (µs): what a move's cost is held to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub us_per_eight_casts: Option<f64>,
    /// Vehicles' scenes: the best run's mean step time per vehicle (µs), the drivers' scripts
    /// left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub us_per_vehicle: Option<f64>,
    /// The settings the scene ran with.
    pub settings: Settings,
    /// Why a step failed, if one did (the run stops there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The solver settings of a run, as reported.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Settings {
    substeps: u32,
    iterations: u32,
    relax_iterations: u32,
    contact_hertz: f32,
    static_contact_hertz: f32,
    contact_damping_ratio: f32,
    max_push_out_speed: f32,
    support_mass_ratio: f32,
    friction_in_biased_pass: bool,
    simd_lanes: usize,
    threads: u32,
    joint_hertz: f32,
    joint_damping_ratio: f32,
    warm_starting: bool,
}

impl From<&SolverSettings> for Settings {
    fn from(s: &SolverSettings) -> Settings {
        Settings {
            substeps: s.substeps,
            iterations: s.iterations,
            relax_iterations: s.relax_iterations,
            contact_hertz: s.contact_hertz,
            static_contact_hertz: s.static_contact_hertz,
            contact_damping_ratio: s.contact_damping_ratio,
            max_push_out_speed: s.max_push_out_speed,
            support_mass_ratio: s.support_mass_ratio,
            friction_in_biased_pass: s.friction_in_biased_pass,
            simd_lanes: s.simd.lanes(),
            threads: s.threads,
            joint_hertz: s.joint_hertz,
            joint_damping_ratio: s.joint_damping_ratio,
            warm_starting: s.warm_starting,
        }
    }
}

/// `checks` as an object of name to value, in the scene's order (a NaN becomes `null`). A
/// value that is an `f32` (most are: positions of the engine's `f32` bodies) is written as
/// one, `0.003`, not as the `f64` it was widened to, `0.0030000000260770321`.
fn figure_values<S: serde::Serializer>(figures: &[Figure], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(figures.iter().map(|f| (f.name, Number(f.value))))
}

/// A number written as what it is: an integer (counts, yes/no figures), else the narrowest
/// float that holds it exactly.
struct Number(f64);

impl Serialize for Number {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let narrow = self.0 as f32;
        if self.0.fract() == 0.0 && self.0.abs() < 9.0e15 {
            s.serialize_i64(self.0 as i64)
        } else if f64::from(narrow) == self.0 {
            s.serialize_f32(narrow)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

impl Report {
    /// The report as one line of JSON.
    pub fn json(&self) -> String {
        serde_json::to_string(self).expect("a report serialises")
    }
}

/// One run's timings.
#[derive(Default)]
struct Timing {
    total: f64,
    first: f64,
    worst_after_first: f64,
    collide: f64,
    solve: f64,
    /// Time in the characters' updates (ms).
    moves: f64,
}

impl Timing {
    /// Counts step number `step` (from 0), which took `ms`: the first apart (it builds what
    /// the scene keeps: contacts, colours, caches), the slowest of the rest, all in the total.
    fn record(&mut self, step: usize, ms: f64) {
        self.total += ms;
        if step == 0 {
            self.first = ms;
        } else {
            self.worst_after_first = self.worst_after_first.max(ms);
        }
    }
}

/// Runs `spec` as `options` say; `on_step` is called after each step (outside the timing),
/// for a progress bar.
pub fn run(spec: &SceneSpec, options: &Options, on_step: &mut dyn FnMut()) -> Report {
    let steps = options.steps.unwrap_or(spec.steps);
    let mut timings = Vec::new();
    let mut last = None;
    for _ in 0..options.repeat.max(1) {
        let mut scene = (spec.build)();
        if let Err(e) = scene.world.set_settings(options.settings) {
            return failed(spec, steps, options, format!("bad solver settings: {e}"));
        }
        if options.no_sleep {
            scene.world.set_sleeping(false);
        }
        let mut timing = Timing::default();
        let mut report = sprung::StepReport::default();
        let mut error = None;
        for step in 0..steps {
            let watched = outside_the_step(&scene);
            let start = Instant::now();
            let result = scene.step(spec.dt);
            // The characters' per-step checks and the drivers' scripts are the run's, not the
            // step's.
            let checks = outside_the_step(&scene) - watched;
            let ms = start.elapsed().as_secs_f64() * 1e3 - checks;
            match result {
                Ok(r) => {
                    timing.collide += r.collide_ms;
                    timing.solve += r.solve_ms;
                    report = r;
                }
                Err(e) => {
                    error = Some(e.to_string());
                    break;
                }
            }
            timing.record(step, ms);
            on_step();
        }
        timing.moves = scene.crowd.as_ref().map_or(0.0, |c| c.move_ms);
        timings.push(timing);
        last = Some((scene, report, error));
    }
    let (scene, report, error) = last.expect("at least one run");
    let per_step = |t: &Timing| t.total / steps.max(1) as f64;
    let best = timings
        .iter()
        .min_by(|a, b| per_step(a).total_cmp(&per_step(b)))
        .expect("at least one run");
    let mut means: Vec<f64> = timings.iter().map(per_step).collect();
    means.sort_by(f64::total_cmp);
    let median = if means.len() % 2 == 1 {
        means[means.len() / 2]
    } else {
        0.5 * (means[means.len() / 2 - 1] + means[means.len() / 2])
    };

    let checks = scene.figures();
    let failed: Vec<&'static str> = checks.iter().filter(|f| !f.ok).map(|f| f.name).collect();
    let (mut contact_pairs, mut contact_points) = (0, 0);
    let mut previous = None;
    for (a, b, manifold) in scene.world.contacts() {
        // A pair with several manifolds (compound shapes) counts once.
        if previous != Some((a, b)) {
            contact_pairs += 1;
            previous = Some((a, b));
        }
        contact_points += manifold.points.len();
    }
    let points = scene.mass_spring.as_ref().map_or(0, |m| m.points().len());
    let (us_per_move, us_per_eight_casts) = match &scene.crowd {
        Some(crowd) => {
            let moves = (steps * crowd.characters.len()).max(1) as f64;
            let casts = crowd.eight_casts_us(&scene.world, spec.dt);
            (Some(best.moves * 1e3 / moves), Some(casts))
        }
        None => (None, None),
    };
    let us_per_vehicle = scene.fleet.as_ref().map(|fleet| {
        let vehicles = fleet.vehicles.len() + usize::from(fleet.racer.is_some());
        per_step(best) * 1e3 / vehicles.max(1) as f64
    });
    Report {
        scene: spec.name,
        bodies: report.dynamic_bodies + points,
        steps,
        dt: spec.dt,
        sleep: scene.world.sleep_settings().enabled,
        ms_per_step: per_step(best),
        ms_per_step_median: median,
        repeat: timings.len(),
        ms_first_step: best.first,
        ms_max_step: best.worst_after_first,
        ok: error.is_none() && failed.is_empty(),
        failed,
        checks,
        contact_pairs,
        contact_points,
        recycled_pairs: report.recycled_pairs,
        ms_collide: best.collide / steps.max(1) as f64,
        ms_solve: best.solve / steps.max(1) as f64,
        bodies_asleep: scene
            .world
            .bodies()
            .filter(|(_, b)| b.is_sleeping())
            .count(),
        us_per_move,
        us_per_eight_casts,
        us_per_vehicle,
        settings: Settings::from(scene.world.settings()),
        error,
    }
}

/// Time a scene has spent on work that is not the engine's step (ms): its characters' checks
/// and its drivers' scripts.
fn outside_the_step(scene: &crate::Scene) -> f64 {
    let crowd = scene.crowd.as_ref().map_or(0.0, |c| c.watch_ms);
    crowd + scene.fleet.as_ref().map_or(0.0, |f| f.script_ms)
}

/// A run that could not start.
fn failed(spec: &SceneSpec, steps: usize, options: &Options, error: String) -> Report {
    Report {
        scene: spec.name,
        bodies: 0,
        steps,
        dt: spec.dt,
        sleep: !options.no_sleep,
        ms_per_step: 0.0,
        ms_per_step_median: 0.0,
        repeat: 0,
        ms_first_step: 0.0,
        ms_max_step: 0.0,
        checks: Vec::new(),
        ok: false,
        failed: Vec::new(),
        contact_pairs: 0,
        contact_points: 0,
        recycled_pairs: 0,
        ms_collide: 0.0,
        ms_solve: 0.0,
        bodies_asleep: 0,
        us_per_move: None,
        us_per_eight_casts: None,
        us_per_vehicle: None,
        settings: Settings::from(&options.settings),
        error: Some(error),
    }
}

/// A figure's value with four significant digits, or the integer it is.
fn value(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e9 {
        format!("{x:.0}")
    } else if x.is_finite() {
        let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 8) as usize;
        format!("{x:.digits$}")
    } else {
        format!("{x}")
    }
}

/// The reports as a table for a person: a line per check, with the scene, its bodies and its
/// time per step on the first.
pub fn table(reports: &[Report]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<15} {:>7} {:>9}  {:<16} {:>10}  {:<14} result",
        "scene", "bodies", "ms/step", "check", "value", "limit"
    );
    for r in reports {
        let head = format!("{:<15} {:>7} {:>9.3}", r.scene, r.bodies, r.ms_per_step);
        let blank = " ".repeat(head.chars().count());
        if r.checks.is_empty() {
            let _ = writeln!(out, "{head}  {:<43} FAIL", "(no checks)");
        }
        for (i, f) in r.checks.iter().enumerate() {
            let _ = writeln!(
                out,
                "{}  {:<16} {:>10}  {:<14} {}",
                if i == 0 { &head } else { &blank },
                f.name,
                value(f.value),
                f.limit.to_string(),
                if f.ok { "ok" } else { "FAIL" }
            );
        }
        if let Some(e) = &r.error {
            let _ = writeln!(out, "{blank}  error: {e}");
        }
    }
    let passed = reports.iter().filter(|r| r.ok).count();
    let _ = writeln!(out, "{passed} of {} scenes pass", reports.len());
    out
}

/// Why a report fails, one line per failed check or error (empty if it passes): for stderr.
pub fn failures(report: &Report) -> Vec<String> {
    let mut lines: Vec<String> = report
        .checks
        .iter()
        .filter(|f| !f.ok)
        .map(|f| {
            format!(
                "{}: check {} failed: measured {}, limit {}",
                report.scene,
                f.name,
                value(f.value),
                f.limit
            )
        })
        .collect();
    if let Some(e) = &report.error {
        lines.push(format!("{}: {e}", report.scene));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quick(name: &str, steps: usize) -> Report {
        let options = Options {
            steps: Some(steps),
            ..Options::default()
        };
        run(crate::find(name).unwrap(), &options, &mut || {})
    }

    #[test]
    fn contacts_are_counted_awake_and_asleep() {
        // The pyramid is asleep within 100 steps; its 465 cubes still rest on each other.
        let report = quick("pyramid", 100);
        assert_eq!(report.bodies_asleep, report.bodies);
        // Each cube but the top row's rests on two below, each contact a face of 4 points.
        assert!(
            report.contact_pairs >= 2 * (465 - 30),
            "{}",
            report.contact_pairs
        );
        assert_eq!(report.contact_points, 4 * report.contact_pairs);
    }

    #[test]
    fn a_rope_counts_its_points_as_bodies() {
        let report = quick("rope", 1);
        let scene = (crate::find("rope").unwrap().build)();
        let points = scene.mass_spring.as_ref().unwrap().points().len();
        assert!(points > 0);
        assert_eq!(
            report.bodies,
            points
                + scene
                    .world
                    .bodies()
                    .filter(|(_, b)| b.kind() == sprung::BodyKind::Dynamic)
                    .count()
        );
    }

    #[test]
    fn the_table_names_every_check_its_limit_and_the_verdict() {
        let (good, bad) = (quick("bullet", 2), quick("rope", 20));
        let table = table(&[good, bad]);
        assert!(table.contains("passed") && table.contains("= 0"), "{table}");
        let failing = table.lines().find(|l| l.contains("max_motion")).unwrap();
        assert!(
            failing.contains("< 0.01") && failing.ends_with("FAIL"),
            "{table}"
        );
        assert!(table.ends_with("1 of 2 scenes pass\n"), "{table}");
    }

    #[test]
    fn the_first_step_is_reported_apart_from_the_slowest_of_the_rest() {
        // The slowest step is the first: it stays out of the maximum.
        let mut timing = Timing::default();
        for (step, ms) in [5.0, 1.0, 3.0, 2.0].into_iter().enumerate() {
            timing.record(step, ms);
        }
        assert_eq!(
            (timing.first, timing.worst_after_first, timing.total),
            (5.0, 3.0, 11.0)
        );
        // And a real run reports them so: the rest's sum holds their maximum.
        let report = quick("pyramid", 3);
        assert!(report.ms_first_step > 0.0 && report.ms_max_step > 0.0);
        let total = report.ms_per_step * 3.0;
        assert!((total - report.ms_first_step) >= report.ms_max_step * 0.999);
    }
}

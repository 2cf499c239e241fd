//! `sprung bench [SCENE...] [--steps N] [--no-sleep]`: the headless runner. Builds each scene of
//! ../shared/bench/SCENES.md, steps it, prints one JSON line per scene, and exits non-zero if a
//! check fails. Progress goes to stderr. `--no-sleep` keeps every body awake (`"sleep":false`).
//!
//! `--substeps N`, `--iterations N`, `--relax N`, `--threads N`, `--contact-hertz X`, `--static-hertz X`,
//! `--contact-damping X`, `--push-out X`, `--joint-hertz X`, `--joint-damping X` and
//! `--friction-relax-only` override the solver's defaults, to measure what each costs and buys.

use std::process::ExitCode;
use std::time::Instant;

use sprung_demos::json::Line;
use sprung_demos::{catalogue, find, SceneSpec};

fn usage() -> ExitCode {
    eprintln!("usage: sprung plot springs --out FILE.png");
    eprintln!("usage: sprung bench [SCENE...|--all] [--steps N] [--no-sleep] [--substeps N] [--iterations N] [--relax N] [--threads N] [--contact-hertz X] [--static-hertz X] [--contact-damping X] [--push-out X] [--joint-hertz X] [--joint-damping X] [--friction-relax-only] [--simd auto|scalar|4|8]");
    eprintln!(
        "scenes: {}",
        catalogue()
            .iter()
            .map(|s| s.name)
            .collect::<Vec<_>>()
            .join(" ")
    );
    ExitCode::from(2)
}

/// `sprung plot springs --out FILE.png`: the spring toolkit's responses as a picture.
fn plot(args: &[String]) -> ExitCode {
    let out = match args {
        [what, flag, path] if what == "springs" && flag == "--out" => path,
        _ => {
            eprintln!("usage: sprung plot springs --out FILE.png");
            return ExitCode::from(2);
        }
    };
    match sprung_demos::spring_plot::springs().save(std::path::Path::new(out)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cannot write {out}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("plot") {
        return plot(&args[1..]);
    }
    if args.first().map(String::as_str) != Some("bench") {
        return usage();
    }
    let mut steps: Option<usize> = None;
    let mut no_sleep = false;
    let mut settings = sprung::SolverSettings::default();
    let mut specs: Vec<&SceneSpec> = Vec::new();
    let mut rest = args[1..].iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--steps" => match rest.next().and_then(|n| n.parse().ok()) {
                Some(n) => steps = Some(n),
                None => return usage(),
            },
            "--substeps" | "--iterations" | "--relax" | "--threads" | "--contact-hertz"
            | "--static-hertz" | "--contact-damping" | "--push-out" | "--joint-hertz"
            | "--joint-damping" => {
                let Some(value) = rest.next().and_then(|n| n.parse::<f32>().ok()) else {
                    return usage();
                };
                match arg.as_str() {
                    "--substeps" => settings.substeps = value as u32,
                    "--iterations" => settings.iterations = value as u32,
                    "--relax" => settings.relax_iterations = value as u32,
                    "--threads" => settings.threads = value as u32,
                    "--joint-hertz" => settings.joint_hertz = value,
                    "--joint-damping" => settings.joint_damping_ratio = value,
                    "--contact-hertz" => settings.contact_hertz = value,
                    "--static-hertz" => settings.static_contact_hertz = value,
                    "--contact-damping" => settings.contact_damping_ratio = value,
                    _ => settings.max_push_out_speed = value,
                }
            }
            "--no-sleep" => no_sleep = true,
            "--friction-relax-only" => settings.friction_in_biased_pass = false,
            "--simd" => {
                settings.simd = match rest.next().map(String::as_str) {
                    Some("auto") => sprung::SimdWidth::Auto,
                    Some("1") | Some("scalar") => sprung::SimdWidth::Scalar,
                    Some("4") => sprung::SimdWidth::Four,
                    Some("8") => sprung::SimdWidth::Eight,
                    _ => return usage(),
                }
            }
            "--all" => specs.extend(catalogue()),
            name => match find(name) {
                Some(spec) => specs.push(spec),
                None => {
                    eprintln!("unknown scene {name}");
                    return usage();
                }
            },
        }
    }
    if specs.is_empty() {
        specs.extend(catalogue());
    }
    if let Err(e) = sprung::World::default().set_settings(settings) {
        eprintln!("bad solver settings: {e}");
        return ExitCode::from(2);
    }
    let mut all_ok = true;
    for spec in specs {
        let (line, ok) = run(spec, steps.unwrap_or(spec.steps), &settings, no_sleep);
        println!("{line}");
        all_ok &= ok;
    }
    if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs one scene; `no_sleep` keeps every body awake (the scene may already have turned
/// sleeping off itself, as Box3D's do).
fn run(
    spec: &SceneSpec,
    steps: usize,
    settings: &sprung::SolverSettings,
    no_sleep: bool,
) -> (String, bool) {
    let mut scene = (spec.build)();
    scene
        .world
        .set_settings(*settings)
        .expect("main checked the settings");
    if no_sleep {
        scene.world.set_sleeping(false);
    }
    let (mut total, mut worst) = (0.0_f64, 0.0_f64);
    let (mut collide, mut solve) = (0.0_f64, 0.0_f64);
    let mut last = Default::default();
    let mut failed_step = None;
    for step in 0..steps {
        let start = Instant::now();
        match scene.step(spec.dt) {
            Ok(report) => {
                collide += report.collide_ms;
                solve += report.solve_ms;
                last = report;
            }
            Err(e) => {
                failed_step = Some(format!("{e}"));
                break;
            }
        }
        let ms = start.elapsed().as_secs_f64() * 1e3;
        total += ms;
        worst = worst.max(ms);
        if (step + 1) % 100 == 0 {
            eprint!("\r{}: step {}/{}", spec.name, step + 1, steps);
        }
    }
    eprintln!();
    let figures = scene.figures();
    let ok = failed_step.is_none() && figures.iter().all(|f| f.ok);
    let checks = figures
        .iter()
        .fold(Line::default(), |line, f| line.number(f.name, f.value));
    let asleep = scene
        .world
        .bodies()
        .filter(|(_, b)| b.is_sleeping())
        .count();
    let s = scene.world.settings();
    let settings = Line::default()
        .number("substeps", s.substeps as f64)
        .number("iterations", s.iterations as f64)
        .number("relax_iterations", s.relax_iterations as f64)
        .number("contact_hertz", s.contact_hertz as f64)
        .number("static_contact_hertz", s.static_contact_hertz as f64)
        .number("contact_damping_ratio", s.contact_damping_ratio as f64)
        .number("max_push_out_speed", s.max_push_out_speed as f64)
        .boolean("friction_in_biased_pass", s.friction_in_biased_pass)
        .number("simd_lanes", s.simd.lanes() as f64)
        .number("threads", s.threads as f64)
        .number("joint_hertz", s.joint_hertz as f64)
        .number("joint_damping_ratio", s.joint_damping_ratio as f64)
        .boolean("warm_starting", s.warm_starting);
    let line = Line::default()
        .string("scene", spec.name)
        .number("bodies", last.dynamic_bodies as f64)
        .number("steps", steps as f64)
        .number("dt", spec.dt as f64)
        .boolean("sleep", scene.world.sleep_settings().enabled)
        .number(
            "ms_per_step",
            if steps > 0 { total / steps as f64 } else { 0.0 },
        )
        .number("ms_max_step", worst)
        .object("checks", checks)
        .boolean("ok", ok)
        .number("contact_pairs", last.contact_pairs as f64)
        .number("contact_points", last.contact_points as f64)
        .number("recycled_pairs", last.recycled_pairs as f64)
        .number("ms_collide", collide / steps.max(1) as f64)
        .number("ms_solve", solve / steps.max(1) as f64)
        .number("bodies_asleep", asleep as f64)
        .object("settings", settings);

    let line = match failed_step {
        Some(e) => line.string("error", &e),
        None => line,
    };
    (line.finish(), ok)
}

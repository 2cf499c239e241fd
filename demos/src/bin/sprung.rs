//! `sprung`: the headless runner. `sprung bench [SCENE...]` builds each scene of the catalogue
//! (docs/SCENES.md), steps it, checks it, and prints a table on a terminal or one JSON line per
//! scene otherwise; it exits 1 if a check fails. `sprung plot springs --out FILE.png` draws the
//! spring toolkit's responses. `sprung --help` says the rest.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sprung_demos::runner::{self, Options, Report};
use sprung_demos::{catalogue, find, SceneSpec};

/// sprung's headless runner: the standard scenes, measured and checked.
#[derive(Parser, Debug)]
#[command(name = "sprung", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run scenes, check them and report their timings (exit status 1 if a check fails).
    Bench(Bench),
    /// Draw a plot to a PNG file.
    Plot {
        /// What to plot.
        what: PlotKind,
        /// The PNG file to write.
        #[arg(long, value_name = "FILE.png")]
        out: PathBuf,
    },
    /// List the scenes of the catalogue.
    List,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum PlotKind {
    /// The spring toolkit's step responses.
    Springs,
    /// Each spring's error against its closed form as the time step grows (log-log).
    Accuracy,
    /// Energy over time of the spring net and of a pendulum.
    Energy,
}

#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
struct Bench {
    /// Scenes to run (`sprung list` names them); none, or `--all`, runs every scene.
    #[arg(value_name = "SCENE", value_parser = scene_name)]
    scenes: Vec<&'static SceneSpec>,
    /// Run every scene.
    #[arg(long)]
    all: bool,
    /// Steps to run each scene (default: the scene's own count).
    #[arg(long, value_name = "N")]
    steps: Option<usize>,
    /// Keep every body awake (Box3D's scenes always do).
    #[arg(long)]
    no_sleep: bool,
    /// Run each scene N times and report the best and the median time per step.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Print JSON lines even on a terminal (they are the output whenever stdout is not one).
    #[arg(long)]
    json: bool,
    /// Also write the JSON lines to FILE.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    #[command(flatten)]
    solver: SolverArgs,
}

/// Overrides of the solver's defaults, to measure what each costs and buys.
#[derive(Args, Debug)]
#[command(next_help_heading = "Solver settings")]
struct SolverArgs {
    /// Substeps per step.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    substeps: Option<u32>,
    /// Biased iterations per substep.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    iterations: Option<u32>,
    /// Relax iterations per substep.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..))]
    relax: Option<u32>,
    /// Worker threads of the solver and the narrow phase (every count gives the same bits).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
    /// Contact frequency (Hz).
    #[arg(long, value_name = "HZ")]
    contact_hertz: Option<f32>,
    /// Frequency of contacts with static bodies (Hz).
    #[arg(long, value_name = "HZ")]
    static_hertz: Option<f32>,
    /// Largest mass ratio a contact holding one body up solves as it is.
    #[arg(long, value_name = "RATIO")]
    support_ratio: Option<f32>,
    /// Contact damping ratio.
    #[arg(long, value_name = "RATIO")]
    contact_damping: Option<f32>,
    /// Largest speed at which overlap is pushed out (m/s).
    #[arg(long, value_name = "M/S")]
    push_out: Option<f32>,
    /// Frequency of rigid joints' stabilisation (Hz).
    #[arg(long, value_name = "HZ")]
    joint_hertz: Option<f32>,
    /// Damping ratio of rigid joints' stabilisation.
    #[arg(long, value_name = "RATIO")]
    joint_damping: Option<f32>,
    /// Solve friction in the relax pass only.
    #[arg(long)]
    friction_relax_only: bool,
    /// SIMD width of the contact kernel.
    #[arg(long, value_enum)]
    simd: Option<Simd>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Simd {
    /// The widest the CPU runs.
    Auto,
    /// One lane.
    #[value(alias = "1")]
    Scalar,
    /// Four lanes.
    #[value(name = "4")]
    Four,
    /// Eight lanes.
    #[value(name = "8")]
    Eight,
}

/// A scene of the catalogue by name, or an error that lists them.
fn scene_name(name: &str) -> Result<&'static SceneSpec, String> {
    find(name).ok_or_else(|| {
        let names: Vec<&str> = catalogue().iter().map(|s| s.name).collect();
        format!("no scene `{name}`; the scenes are: {}", names.join(", "))
    })
}

impl SolverArgs {
    /// The defaults with these overrides.
    fn settings(&self) -> sprung::SolverSettings {
        let mut s = sprung::SolverSettings::default();
        let set = |field: &mut f32, value: Option<f32>| {
            if let Some(v) = value {
                *field = v;
            }
        };
        s.substeps = self.substeps.unwrap_or(s.substeps);
        s.iterations = self.iterations.unwrap_or(s.iterations);
        s.relax_iterations = self.relax.unwrap_or(s.relax_iterations);
        s.threads = self.threads.unwrap_or(s.threads);
        set(&mut s.contact_hertz, self.contact_hertz);
        set(&mut s.static_contact_hertz, self.static_hertz);
        set(&mut s.contact_damping_ratio, self.contact_damping);
        set(&mut s.support_mass_ratio, self.support_ratio);
        set(&mut s.max_push_out_speed, self.push_out);
        set(&mut s.joint_hertz, self.joint_hertz);
        set(&mut s.joint_damping_ratio, self.joint_damping);
        if self.friction_relax_only {
            s.friction_in_biased_pass = false;
        }
        if let Some(simd) = self.simd {
            s.simd = match simd {
                Simd::Auto => sprung::SimdWidth::Auto,
                Simd::Scalar => sprung::SimdWidth::Scalar,
                Simd::Four => sprung::SimdWidth::Four,
                Simd::Eight => sprung::SimdWidth::Eight,
            };
        }
        s
    }
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Bench(bench) => run_bench(bench),
        Command::Plot { what, out } => plot(what, &out),
        Command::List => {
            for spec in catalogue() {
                println!(
                    "{:<15} {:>6} steps of {:.4} s",
                    spec.name, spec.steps, spec.dt
                );
            }
            ExitCode::SUCCESS
        }
    }
}

fn plot(what: PlotKind, out: &std::path::Path) -> ExitCode {
    let picture = match what {
        PlotKind::Springs => sprung_demos::spring_plot::springs(),
        PlotKind::Accuracy => sprung_demos::spring_plot::accuracy(),
        PlotKind::Energy => sprung_demos::spring_plot::energy(),
    };
    match picture.save(out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}

fn run_bench(bench: Bench) -> ExitCode {
    let settings = bench.solver.settings();
    if let Err(e) = sprung::World::default().set_settings(settings) {
        eprintln!("error: bad solver settings: {e}");
        return ExitCode::from(2);
    }
    let mut specs = bench.scenes;
    if bench.all || specs.is_empty() {
        specs = catalogue().iter().collect();
    }
    let options = Options {
        steps: bench.steps,
        no_sleep: bench.no_sleep,
        repeat: bench.repeat as usize,
        settings,
    };
    let mut out = match &bench.out {
        Some(path) => match std::fs::File::create(path) {
            Ok(file) => Some(std::io::BufWriter::new(file)),
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let json = bench.json || !std::io::stdout().is_terminal();

    // A progress bar on a terminal only: logs get the result lines and nothing else.
    let total: u64 = specs
        .iter()
        .map(|s| (options.steps.unwrap_or(s.steps) * options.repeat) as u64)
        .sum();
    let progress = if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    progress.set_style(
        ProgressStyle::with_template(
            "{msg:24} [{elapsed_precise}] {wide_bar} {pos}/{len} steps, ETA {eta}",
        )
        .expect("a valid template"),
    );

    let mut reports = Vec::new();
    for (k, spec) in specs.iter().enumerate() {
        progress.set_message(format!("{} ({} of {})", spec.name, k + 1, specs.len()));
        let report = runner::run(spec, &options, &mut || progress.inc(1));
        progress.suspend(|| emit(&report, json, out.as_mut()));
        reports.push(report);
    }
    progress.finish_and_clear();
    if !json {
        print!("{}", runner::table(&reports));
    }
    if let Some(Err(e)) = out.as_mut().map(|o| o.flush()) {
        eprintln!("error: cannot write the JSON lines: {e}");
        return ExitCode::from(2);
    }
    if reports.iter().all(|r| r.ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// One scene's result: its JSON line (stdout if `json`, and `out`), why it failed (stderr).
fn emit(report: &Report, json: bool, out: Option<&mut std::io::BufWriter<std::fs::File>>) {
    let line = report.json();
    if json {
        println!("{line}");
    }
    if let Some(out) = out {
        let _ = writeln!(out, "{line}");
    }
    for failure in runner::failures(report) {
        eprintln!("{failure}");
    }
}

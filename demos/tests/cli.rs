//! The runner's command line, run as a user runs it: help and version, bad values refused
//! with the argument named, JSON lines when stdout is not a terminal, `--out`, exit codes.

use std::process::{Command, Output};

fn sprung(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sprung"))
        .args(args)
        .output()
        .expect("the runner starts")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

#[test]
fn help_and_version_go_to_stdout_and_succeed() {
    for args in [&["--help"][..], &["bench", "--help"], &["help", "bench"]] {
        let out = sprung(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let stdout = text(&out.stdout);
        assert!(stdout.contains("Usage: sprung"), "{args:?}: {stdout}");
    }
    let bench = text(&sprung(&["bench", "--help"]).stdout);
    for option in [
        "--steps",
        "--no-sleep",
        "--repeat",
        "--json",
        "--out",
        "--substeps",
    ] {
        assert!(bench.contains(option), "bench --help lacks {option}");
    }
    let version = sprung(&["--version"]);
    assert_eq!(version.status.code(), Some(0));
    assert_eq!(
        text(&version.stdout).trim(),
        format!("sprung {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn bad_values_name_their_argument_and_exit_2() {
    for (args, named) in [
        (&["bench", "--steps", "abc"][..], "--steps"),
        (&["bench", "--substeps", "-1"], "--substeps"),
        (&["bench", "--substeps", "2.5"], "--substeps"),
        (&["bench", "--substeps", "0"], "--substeps"),
        (&["bench", "--repeat", "0"], "--repeat"),
        (&["bench", "--simd", "3"], "--simd"),
        (&["bench", "no_such_scene"], "no_such_scene"),
        (&["frobnicate"], "frobnicate"),
    ] {
        let out = sprung(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(named), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // A value clap accepts but the engine refuses: the engine's typed error, exit 2.
    let out = sprung(&["bench", "bullet", "--contact-hertz", "nan"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("settings"));
}

#[test]
fn json_lines_when_stdout_is_not_a_terminal_and_in_the_out_file() {
    let file = std::env::temp_dir().join(format!("sprung-cli-{}.jsonl", std::process::id()));
    let path = file.to_str().expect("a UTF-8 temporary path");
    let out = sprung(&["bench", "bullet", "pyramid", "--steps", "5", "--out", path]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // No progress text when stderr is not a terminal.
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let written = std::fs::read_to_string(&file).expect("--out wrote the file");
    std::fs::remove_file(&file).ok();
    assert_eq!(stdout, written);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 2);
    let pyramid = &lines[1];
    assert_eq!(pyramid["scene"], "pyramid");
    assert_eq!(pyramid["steps"], 5);
    assert_eq!(pyramid["bodies"], 465);
    assert_eq!(pyramid["ok"], true);
    // SCENES.md's keys, and floats as the values they are: the f32 time step as an f32.
    for key in [
        "sleep",
        "ms_per_step",
        "ms_max_step",
        "ms_first_step",
        "checks",
    ] {
        assert!(!pyramid[key].is_null(), "missing {key}");
    }
    assert_eq!(pyramid["dt"].to_string(), "0.016666668");
    assert!(pyramid["checks"]["max_drift"].is_number());
    assert_eq!(lines[0]["checks"]["passed"], 0);
}

#[test]
fn a_failing_check_is_named_on_stderr_and_exits_1() {
    // A rope released 20 steps (a third of a second) ago is still falling, about 3 m/s, or
    // 5 cm a step: its `max_motion` check (at rest, under 1 cm a step) fails.
    let out = sprung(&["bench", "rope", "--steps", "20"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("rope: check max_motion failed: measured")
            && stderr.contains("limit < 0.01"),
        "{stderr}"
    );
    let line: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(line["ok"], false);
    assert_eq!(line["failed"], serde_json::json!(["max_motion"]));
}

#[test]
fn repeat_reports_the_best_and_the_median() {
    let out = sprung(&["bench", "bullet", "--steps", "3", "--repeat", "3", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let line: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(line["repeat"], 3);
    let (best, median) = (
        line["ms_per_step"].as_f64().unwrap(),
        line["ms_per_step_median"].as_f64().unwrap(),
    );
    assert!(best > 0.0 && best <= median, "{best} {median}");
}

#[test]
fn list_names_every_scene() {
    let out = sprung(&["list"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    for spec in sprung_demos::catalogue() {
        assert!(stdout.contains(spec.name));
    }
}

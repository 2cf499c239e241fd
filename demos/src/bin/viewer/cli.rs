//! The viewer's command line: what clap parses ([`Cli`]) and what the viewer keeps of it
//! ([`Options`]).

use std::path::PathBuf;

use macroquad::prelude::Vec2;
use sprung_demos::{catalogue, find_any, SHOWCASE};

use crate::scene_view::SphereStyle;

/// The command line.
#[derive(Clone, Debug, Default)]
pub(crate) struct Options {
    pub(crate) scene: Option<String>,
    pub(crate) screenshot: Option<PathBuf>,
    pub(crate) frames: Option<u64>,
    pub(crate) drag_at: Option<Vec2>,
    pub(crate) drag_to: Option<Vec2>,
    pub(crate) size: (i32, i32),
    pub(crate) show: Show,
    pub(crate) msaa: Option<i32>,
    pub(crate) spheres: SphereStyle,
    /// W, A, S, D held for the whole run (scripted).
    pub(crate) hold: [bool; 4],
}

/// sprung's viewer: every scene of the catalogue in a window, with the mouse as a spring.
#[derive(clap::Parser, Debug)]
#[command(name = "viewer", version)]
pub(crate) struct Cli {
    /// The scene to open (`showcase` unless named; `sprung list` names the others).
    #[arg(value_name = "SCENE", value_parser = scene_name)]
    scene: Option<String>,
    /// Save the last frame to FILE.png (needs --frames).
    #[arg(long, value_name = "FILE.png", requires = "frames")]
    screenshot: Option<PathBuf>,
    /// Run N frames of exactly one fixed step's time each, then exit.
    #[arg(long, value_name = "N")]
    frames: Option<u64>,
    /// Press the mouse at pixel X,Y (with --drag-to and --frames).
    #[arg(long, value_name = "X,Y", value_parser = pixel, requires_all = ["drag_to", "frames"])]
    drag_at: Option<(f32, f32)>,
    /// Move the pressed mouse to pixel X,Y and hold it there.
    #[arg(long, value_name = "X,Y", value_parser = pixel, requires = "drag_at")]
    drag_to: Option<(f32, f32)>,
    /// The window's size in pixels.
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = size)]
    size: (i32, i32),
    /// Samples per pixel (multisampling) [default: 4 on a GPU, 1 under software GL such as
    /// Mesa's llvmpipe, where 4 samples cost more than drawing the scene].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..=16))]
    msaa: Option<i32>,
    /// Start with these shown.
    #[arg(long, value_name = "WHAT", value_delimiter = ',', value_enum)]
    show: Vec<ShowWhat>,
    /// How spheres are drawn: `auto` draws impostors (a quad each, lit per pixel) for scenes
    /// of many spheres and meshes otherwise.
    #[arg(long, value_name = "STYLE", value_enum, default_value_t)]
    spheres: SphereStyle,
    /// Hold these of the keys W, A, S, D for the whole run (with --frames): drives the
    /// character scene's character; the run then reports how far it went.
    #[arg(long, value_name = "KEYS", value_parser = held, requires = "frames")]
    hold: Option<[bool; 4]>,
}

/// `--hold`'s letters: some of w, a, s and d.
fn held(text: &str) -> Result<[bool; 4], String> {
    let mut keys = [false; 4];
    for c in text.chars() {
        let i = "wasd"
            .find(c.to_ascii_lowercase())
            .ok_or_else(|| format!("{c}: only w, a, s and d can be held"))?;
        keys[i] = true;
    }
    Ok(keys)
}

/// What `--show` can start with.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ShowWhat {
    /// Contact points and normals.
    Contacts,
    /// Joint anchors and axes.
    Joints,
    /// Bounding boxes.
    Aabbs,
    /// Islands, by colour.
    Islands,
}

/// A scene `find_any` knows.
fn scene_name(name: &str) -> Result<String, String> {
    match find_any(name) {
        Some(_) => Ok(name.to_string()),
        None => {
            let names: Vec<&str> = std::iter::once(SHOWCASE.name)
                .chain(catalogue().iter().map(|s| s.name))
                .collect();
            Err(format!(
                "no scene `{name}`; the scenes are: {}",
                names.join(", ")
            ))
        }
    }
}

/// Two numbers separated by `sep`.
fn pair(text: &str, sep: char) -> Option<(f32, f32)> {
    let (a, b) = text.split_once(sep)?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// A pixel `X,Y`.
fn pixel(text: &str) -> Result<(f32, f32), String> {
    pair(text, ',')
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .ok_or_else(|| "want X,Y, two numbers".to_string())
}

/// A window size `WxH`, at least 64 pixels each way.
fn size(text: &str) -> Result<(i32, i32), String> {
    match pair(text, 'x') {
        Some((w, h)) if w >= 64.0 && h >= 64.0 && w <= 16384.0 && h <= 16384.0 => {
            Ok((w as i32, h as i32))
        }
        _ => Err("want WxH, each 64 to 16384 pixels".to_string()),
    }
}

impl From<Cli> for Options {
    fn from(cli: Cli) -> Options {
        let mut show = Show::default();
        for what in cli.show {
            match what {
                ShowWhat::Contacts => show.contacts = true,
                ShowWhat::Joints => show.joints = true,
                ShowWhat::Aabbs => show.aabbs = true,
                ShowWhat::Islands => show.islands = true,
            }
        }
        let at = |p: Option<(f32, f32)>| p.map(|(x, y)| Vec2::new(x, y));
        Options {
            scene: cli.scene,
            screenshot: cli.screenshot,
            frames: cli.frames,
            drag_at: at(cli.drag_at),
            drag_to: at(cli.drag_to),
            size: cli.size,
            show,
            msaa: cli.msaa,
            spheres: cli.spheres,
            hold: cli.hold.unwrap_or_default(),
        }
    }
}

/// What the debug toggles show.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Show {
    pub(crate) contacts: bool,
    pub(crate) joints: bool,
    pub(crate) aabbs: bool,
    pub(crate) islands: bool,
    pub(crate) hide_help: bool,
    /// The stats panel in full (every line) rather than its first line: on by default only
    /// where the window is wide enough that it does not cover the scene.
    pub(crate) all_stats: bool,
}

//! `viewer [SCENE]`: every scene of the catalogue in a window, with the mouse as a spring.
//!
//! Built with the `viewer` feature of sprung-demos:
//! `cargo run --release -p sprung-demos --features viewer --bin viewer [SCENE]`.
//! The scene starts as `showcase` unless named; the list on the left switches scenes.
//!
//! Mouse: drag a body to pull it with the engine's attachment spring; drag empty space to
//! orbit, with the right button (or shift) to pan; the wheel zooms. Keys: see [`HELP`].
//!
//! Automation: `--frames N` runs N frames of exactly one fixed step's time each (so the run
//! is the same on any machine, if nobody touches the window) and exits; `--screenshot
//! FILE.png` saves the last frame; `--drag-at X,Y --drag-to X,Y` presses the mouse at pixel
//! (X, Y), moves it to the second pixel and holds it, then prints how far the dragged body
//! moved. `--size WxH` sets the window (default 1280x720), `--msaa N` its samples per pixel
//! (default 4 on a GPU, 1 under software GL); `--show contacts,joints,aabbs,islands` starts
//! with those shown; `--spheres mesh|impostor` draws spheres one way (by default impostors
//! above 500 spheres). The command line is in `cli.rs`, the frame's input in `input.rs`.

mod camera;
mod cli;
mod drag;
mod impostor;
mod input;
mod multisample;
mod overlay;
mod render;
mod scene_view;
mod stats;

use std::process::ExitCode;

use macroquad::prelude::*;
use sprung::math::Real;
use sprung::{BodyHandle, BodyKind, FixedStepper};
use sprung_demos::{catalogue, Scene, SceneSpec, SHOWCASE};

use camera::Orbit;
use cli::{Cli, Options, Show};
use drag::{Drag, DragSpring};
use impostor::SphereMaterial;
use input::{Gesture, Input, Script};
use scene_view::{point3, sphere_count, vec3 as to_vec3, SceneView, Tint};
use stats::Stats;

/// The keys, as the help panel lists them.
const HELP: &[&str] = &[
    "left drag body: pull it (attachment spring)",
    "left drag space: orbit   right/shift drag: pan   wheel: zoom",
    "F follow body under cursor   Space pause   N step   R restart",
    "T slow motion   Tab / shift+Tab next / previous scene",
    "1 contacts   2 joints   3 AABBs   4 islands   H hide help   I all stats",
    "spring: Q/A hertz   W/S damping ratio   E/D force cap",
];

/// The help of the character scene, whose keys drive a character.
const CHARACTER_HELP: &[&str] = &[
    "W/A/S/D walk (from the camera's view)   Space jump   P pause",
    "left drag space: orbit   wheel: zoom   the camera follows the character",
    "N step   R restart   T slow motion   Tab / shift+Tab next / previous scene",
    "1 contacts   3 AABBs   H hide help   I all stats",
];

/// The help of the vehicles scene, whose keys drive a car or fly the hover racer.
const VEHICLE_HELP: &[&str] = &[
    "arrows or W/A/S/D drive (down: reverse)   Space brake   V car / hover racer   P pause",
    "left drag space: orbit   wheel: zoom   the camera chases the car",
    "N step   R restart   T slow motion   Tab / shift+Tab next / previous scene",
    "1 contacts   3 AABBs   H hide help   I all stats",
];

/// The character a player drives in the character scene: the middle lane.
const PLAYER: usize = sprung_demos::scenes::CHARACTERS / 2;

/// The car a player drives in the vehicles scene: one near the middle of the grid.
const PLAYER_CAR: usize = 45;

/// A player's walking speed (m/s).
const WALK: Real = 5.0;

/// Slow-motion factors that T cycles through.
const SLOW: [Real; 3] = [1.0, 0.25, 0.05];

/// Text size of the panels (pixels).
const TEXT_SIZE: u16 = 18;

fn main() -> ExitCode {
    let options = Options::from(<Cli as clap::Parser>::parse());
    // miniquad opens an X11 display (its default backend on Linux) and panics without one.
    if cfg!(target_os = "linux") && std::env::var_os("DISPLAY").is_none() {
        eprintln!("viewer: no X display (DISPLAY is not set); on a headless machine run it under `xvfb-run -a`");
        return ExitCode::from(4);
    }
    let conf = macroquad::conf::Conf {
        miniquad_conf: macroquad::miniquad::conf::Conf {
            window_title: "sprung viewer".to_string(),
            window_width: options.size.0,
            window_height: options.size.1,
            high_dpi: false,
            sample_count: multisample::samples(options.msaa),
            window_resizable: true,
            ..Default::default()
        },
        // macroquad clamps a draw of as many vertices or indices as its capacity: one more.
        draw_call_vertex_capacity: render::BATCH_VERTICES + 1,
        draw_call_index_capacity: render::BATCH_INDICES + 1,
        ..Default::default()
    };
    macroquad::Window::from_config(conf, async move {
        let code = App::new(options).run().await;
        std::process::exit(code);
    });
    ExitCode::SUCCESS
}

/// The view of `scene`, its spheres drawn as `options` say (impostors only if `can_impostor`:
/// their shader compiled).
fn new_view(scene: &Scene, options: &Options, can_impostor: bool) -> SceneView {
    let points = scene.mass_spring.as_ref().map_or(0, |s| s.points().len());
    let spheres = sphere_count(&scene.world, points);
    SceneView::new(
        &scene.world,
        can_impostor && options.spheres.impostors(spheres),
    )
}

struct App {
    options: Options,
    specs: Vec<&'static SceneSpec>,
    current: usize,
    scene: Scene,
    view: SceneView,
    stepper: FixedStepper,
    alpha: Real,
    orbit: Orbit,
    follow: Option<BodyHandle>,
    paused: bool,
    slow: usize,
    show: Show,
    spring: DragSpring,
    drag: Option<Drag>,
    /// The body last held, and how far it had moved from where it was grabbed when let go.
    last_dragged: Option<(BodyHandle, Vec3)>,
    gesture: Gesture,
    last_cursor: Vec2,
    stats: Stats,
    script: Option<Script>,
    frame: u64,
    /// Where the player's character was at the first frame (the character scene).
    player_start: Option<Vec3>,
    list: (Vec2, Vec2),
    sketch: overlay::Sketch,
    /// The impostors' shader; `None` if it did not compile (spheres are then meshes).
    sphere_material: Option<SphereMaterial>,
}

impl App {
    fn new(options: Options) -> App {
        let specs: Vec<&'static SceneSpec> =
            std::iter::once(&SHOWCASE).chain(catalogue()).collect();
        let name = options.scene.as_deref().unwrap_or(SHOWCASE.name);
        let current = specs.iter().position(|s| s.name == name).unwrap_or(0);
        let scene = (specs[current].build)();
        let sphere_material = SphereMaterial::new()
            .map_err(|e| {
                eprintln!("viewer: spheres drawn as meshes, the impostor shader failed: {e}")
            })
            .ok();
        let view = new_view(&scene, &options, sphere_material.is_some());
        let orbit = initial_view(specs[current], &scene);
        let script = match (options.drag_at, options.drag_to, options.frames) {
            (Some(at), Some(to), Some(frames)) => Some(Script::new(at, to, frames)),
            _ => None,
        };
        if options.msaa.is_none()
            && multisample::software_gl()
            && !multisample::likely_software_gl()
        {
            eprintln!("viewer: GL renders in software here, where multisampling costs more than the scene: `--msaa 1` draws faster");
        }
        App {
            stepper: FixedStepper::new(specs[current].dt, 4),
            show: Show {
                // A scene of joints shows them from the start; the stats in full only where
                // the window is wide enough for them to leave the scene alone.
                joints: options.show.joints || scene.world.joints().next().is_some(),
                all_stats: options.size.0 >= 1600,
                ..options.show
            },
            options,
            specs,
            current,
            scene,
            view,
            alpha: 1.0,
            orbit,
            follow: None,
            paused: false,
            slow: 0,
            spring: DragSpring::default(),
            drag: None,
            last_dragged: None,
            gesture: Gesture::None,
            last_cursor: Vec2::ZERO,
            stats: Stats::default(),
            script,
            frame: 0,
            player_start: None,
            list: (Vec2::ZERO, Vec2::ZERO),
            sketch: overlay::Sketch::default(),
            sphere_material,
        }
    }

    /// Builds scene `index` again (a restart when it is the current one); the camera is kept
    /// on a restart and framed anew on a switch.
    fn load(&mut self, index: usize) {
        if let Some(drag) = self.drag.take() {
            drag.release(&mut self.scene.world);
        }
        let switch = index != self.current;
        self.current = index;
        let spec = self.specs[index];
        self.scene = (spec.build)();
        // A scene of joints shows them from the start (2 hides them).
        if switch && self.scene.world.joints().next().is_some() {
            self.show.joints = true;
        }
        self.view = new_view(&self.scene, &self.options, self.sphere_material.is_some());
        self.stepper = FixedStepper::new(spec.dt, 4);
        self.stats = Stats::default();
        self.follow = None;
        self.last_dragged = None;
        self.alpha = 1.0;
        if switch {
            self.orbit = initial_view(spec, &self.scene);
        }
    }

    /// The main loop; returns the exit code.
    async fn run(mut self) -> i32 {
        loop {
            let scripted = self.options.frames.is_some();
            // A scripted drag replaces the mouse and keys; `--frames` alone only fixes the frame
            // time and the end, so a person (or xdotool) can still use the window.
            let mut input = match self.script {
                Some(script) => script.input(self.frame),
                None => Input::real(),
            };
            if self.options.hold.contains(&true) {
                input.held = self.options.hold;
            }
            if self.frame == 0 {
                self.player_start = self.player_position();
            }
            if self.script.is_none() && is_key_pressed(KeyCode::Escape) {
                return 0;
            }
            let frame_time = if scripted {
                self.specs[self.current].dt
            } else {
                get_frame_time().min(0.1)
            };
            self.handle_keys(&input);
            self.handle_mouse(&input, frame_time);
            self.advance(frame_time);
            self.draw();
            self.frame += 1;
            if Some(self.frame) == self.options.frames {
                return self.finish();
            }
            next_frame().await;
        }
    }

    /// The end of a scripted run: the screenshot, and how far the dragged body moved.
    fn finish(&mut self) -> i32 {
        let mut code = 0;
        if let Some(path) = &self.options.screenshot {
            if let Err(e) = save_screenshot(path) {
                eprintln!("cannot write {}: {e}", path.display());
                code = 1;
            } else {
                println!("screenshot: {}", path.display());
            }
        }
        if let (Some(from), Some(to)) = (self.player_start, self.player_position()) {
            let who = if self.scene.fleet.is_some() {
                "vehicle"
            } else {
                "character"
            };
            println!(
                "{who} moved {:.3} m from ({:.3}, {:.3}, {:.3}) to ({:.3}, {:.3}, {:.3})",
                (to - from).length(),
                from.x,
                from.y,
                from.z,
                to.x,
                to.y,
                to.z
            );
        }
        if self.script.is_some() {
            let moved = match (&self.drag, self.last_dragged) {
                (Some(drag), _) => self
                    .scene
                    .world
                    .body(drag.body)
                    .map(|b| (drag.start, to_vec3(&b.translation()))),
                (None, Some((body, start))) => self
                    .scene
                    .world
                    .body(body)
                    .map(|b| (start, to_vec3(&b.translation()))),
                _ => None,
            };
            match moved {
                Some((from, to)) => println!(
                    "dragged body moved {:.3} m from ({:.3}, {:.3}, {:.3}) to ({:.3}, {:.3}, {:.3})",
                    (to - from).length(),
                    from.x,
                    from.y,
                    from.z,
                    to.x,
                    to.y,
                    to.z
                ),
                None => {
                    println!("the drag hit no dynamic body");
                    code = 3;
                }
            }
        }
        code
    }

    fn handle_keys(&mut self, input: &Input) {
        if self.scene.crowd.is_some() {
            return self.drive(input);
        }
        if self.scene.fleet.is_some() {
            return self.drive_vehicle(input);
        }
        for key in &input.keys {
            match key {
                KeyCode::Space => self.paused = !self.paused,
                KeyCode::N => self.single_step(),
                KeyCode::R => self.load(self.current),
                KeyCode::T => self.slow = (self.slow + 1) % SLOW.len(),
                KeyCode::Tab => {
                    let n = self.specs.len();
                    let next = if input.shift {
                        (self.current + n - 1) % n
                    } else {
                        (self.current + 1) % n
                    };
                    self.load(next);
                }
                KeyCode::F => self.toggle_follow(input.cursor),
                KeyCode::Key1 => self.show.contacts = !self.show.contacts,
                KeyCode::Key2 => self.show.joints = !self.show.joints,
                KeyCode::Key3 => self.show.aabbs = !self.show.aabbs,
                KeyCode::Key4 => self.show.islands = !self.show.islands,
                KeyCode::H => self.show.hide_help = !self.show.hide_help,
                KeyCode::I => self.show.all_stats = !self.show.all_stats,
                KeyCode::Q | KeyCode::A => {
                    self.change_spring(|s| s.change_hertz(*key == KeyCode::Q))
                }
                KeyCode::W | KeyCode::S => {
                    self.change_spring(|s| s.change_damping(*key == KeyCode::W))
                }
                KeyCode::E | KeyCode::D => self.change_spring(|s| s.change_cap(*key == KeyCode::E)),
                _ => {}
            }
        }
    }

    /// Where the player's character is, in the character scene, or the player's car or
    /// racer in the vehicles scene.
    fn player_position(&self) -> Option<Vec3> {
        if let Some(body) = self.player_body() {
            return Some(to_vec3(&self.scene.world.body(body)?.translation()));
        }
        let crowd = self.scene.crowd.as_ref()?;
        Some(scene_view::point3(
            &crowd.characters.get(PLAYER)?.position(),
        ))
    }

    /// The body the player drives in the vehicles scene: the car's chassis or the racer.
    fn player_body(&self) -> Option<BodyHandle> {
        let fleet = self.scene.fleet.as_ref()?;
        match fleet.player {
            Some((index, _)) if index == sprung_demos::VEHICLES => {
                fleet.racer.as_ref().map(|r| r.body())
            }
            _ => {
                let car = *fleet.vehicles.get(PLAYER_CAR)?;
                self.scene.world.vehicle(car).map(|v| v.chassis())
            }
        }
    }

    /// The keys the gameplay scenes share (their others drive): pause, step, restart, slow
    /// motion, next scene, contacts, AABBs, help and stats. Returns whether another scene was
    /// loaded (the input is then spent).
    fn gameplay_key(&mut self, key: KeyCode, shift: bool) -> bool {
        match key {
            KeyCode::P => self.paused = !self.paused,
            KeyCode::N => self.single_step(),
            KeyCode::R => self.load(self.current),
            KeyCode::T => self.slow = (self.slow + 1) % SLOW.len(),
            KeyCode::Tab => {
                let n = self.specs.len();
                let next = if shift {
                    (self.current + n - 1) % n
                } else {
                    (self.current + 1) % n
                };
                self.load(next);
                return true;
            }
            KeyCode::Key1 => self.show.contacts = !self.show.contacts,
            KeyCode::Key3 => self.show.aabbs = !self.show.aabbs,
            KeyCode::H => self.show.hide_help = !self.show.hide_help,
            KeyCode::I => self.show.all_stats = !self.show.all_stats,
            _ => {}
        }
        false
    }

    /// The vehicles scene's keys: W/A/S/D or the arrows drive the player's car (throttle,
    /// steering; back: reverse, or a brake while rolling forward), Space brakes, V switches
    /// between the car and the hover racer; the others as in the character scene.
    fn drive_vehicle(&mut self, input: &Input) {
        let [w, a, s, d] = input.held.map(|down| if down { 1.0 } else { 0.0 });
        let mut racer = self
            .scene
            .fleet
            .as_ref()
            .is_some_and(|f| matches!(f.player, Some((i, _)) if i == sprung_demos::VEHICLES));
        for key in &input.keys {
            if *key == KeyCode::V {
                racer = !racer;
            } else if self.gameplay_key(*key, input.shift) {
                return;
            }
        }
        let drive = sprung::vehicle::VehicleInput {
            throttle: w - s,
            brake: if input.space { 1.0 } else { 0.0 },
            handbrake: 0.0,
            steering: a - d,
        };
        if let Some(fleet) = &mut self.scene.fleet {
            let index = if racer {
                sprung_demos::VEHICLES
            } else {
                PLAYER_CAR
            };
            fleet.player = Some((index, drive));
        }
    }

    /// The character scene's keys: W/A/S/D walk the player's character in the camera's frame,
    /// Space jumps, P pauses; the others as in every scene.
    fn drive(&mut self, input: &Input) {
        let (forward, right, _) = self.orbit.basis();
        let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z).normalize_or_zero();
        let [w, a, s, d] = input.held.map(|down| if down { 1.0 } else { 0.0 });
        let stick = flat(forward) * (w - s) + flat(right) * (d - a);
        let goal = scene_view::to_vector(stick.normalize_or_zero() * WALK);
        let mut jump = false;
        for key in &input.keys {
            if *key == KeyCode::Space {
                jump = true;
            } else if self.gameplay_key(*key, input.shift) {
                return;
            }
        }
        if let Some(crowd) = &mut self.scene.crowd {
            let jump = jump || crowd.steer.is_some_and(|s| s.jump);
            crowd.steer = Some(sprung_demos::Steer {
                index: PLAYER,
                goal,
                jump,
            });
        }
    }

    fn change_spring(&mut self, change: impl FnOnce(&mut DragSpring)) {
        change(&mut self.spring);
        if let Some(drag) = &mut self.drag {
            drag.respring(&mut self.scene.world, &self.spring);
        }
    }

    /// Follows the body under the cursor, or the one held or last held; or stops following.
    fn toggle_follow(&mut self, cursor: Vec2) {
        if self.follow.take().is_some() {
            return;
        }
        let ray = self.orbit.ray(cursor, screen_size());
        let filter = sprung::QueryFilter::new().exclude_static();
        let under = self
            .scene
            .world
            .cast_ray(
                scene_view::to_point(ray.origin),
                scene_view::to_vector(ray.dir),
                1.0e4,
                true,
                &filter,
            )
            .ok()
            .flatten()
            .map(|hit| hit.body);
        self.follow = under
            .or(self.drag.map(|d| d.body))
            .or(self.last_dragged.map(|(b, _)| b));
    }

    fn handle_mouse(&mut self, input: &Input, frame_time: Real) {
        let delta = input.cursor - self.last_cursor;
        self.last_cursor = input.cursor;
        if input.wheel != 0.0 {
            self.orbit.zoom(input.wheel);
        }
        if input.pressed && self.gesture == Gesture::None {
            let (at, size) = self.list;
            if let Some(line) =
                overlay::line_under(at, size, self.specs.len() + 1, TEXT_SIZE, input.cursor)
            {
                // Line 0 is the list's title.
                if line > 0 {
                    self.load(line - 1);
                }
                return;
            }
            self.gesture = if input.pan {
                Gesture::Pan
            } else {
                let ray = self.orbit.ray(input.cursor, screen_size());
                match Drag::grab(&mut self.scene.world, &ray, &self.spring) {
                    Some(drag) => {
                        self.drag = Some(drag);
                        Gesture::Pull
                    }
                    None => Gesture::Orbit,
                }
            };
        }
        if !input.down || input.released {
            if let Some(drag) = self.drag.take() {
                let moved = drag.start;
                self.last_dragged = Some((drag.body, moved));
                drag.release(&mut self.scene.world);
            }
            self.gesture = Gesture::None;
            return;
        }
        match self.gesture {
            Gesture::Orbit => self.orbit.orbit(delta),
            Gesture::Pan => self.orbit.pan(delta, screen_height()),
            Gesture::Pull => {
                let ray = self.orbit.ray(input.cursor, screen_size());
                let dt = if self.paused {
                    0.0
                } else {
                    frame_time * SLOW[self.slow]
                };
                if let Some(drag) = &mut self.drag {
                    drag.pull(&mut self.scene.world, &ray, dt);
                }
            }
            Gesture::None => {}
        }
    }

    /// Steps the physics by this frame's share of time (none when paused).
    fn advance(&mut self, frame_time: Real) {
        self.stats.steps_this_frame = 0;
        if !self.paused {
            let Self { scene, stats, .. } = self;
            let result = self
                .stepper
                .try_advance(frame_time * SLOW[self.slow], |dt| {
                    let report = scene.step(dt)?;
                    stats.record(report, dt);
                    Ok::<(), sprung::Error>(())
                });
            match result {
                Ok(_) => self.alpha = self.stepper.alpha(),
                Err(e) => {
                    eprintln!("step failed: {e}; paused");
                    self.paused = true;
                }
            }
            self.stats.steps_this_frame = self.stepper.updates() as u32;
        }
        if let Some(player) = self
            .scene
            .crowd
            .as_ref()
            .and_then(|c| c.characters.get(PLAYER))
        {
            self.orbit
                .follow(scene_view::point3(&player.position()), 0.15);
        }
        // The chase camera: behind the player's car (or racer), turning with it.
        if let Some(body) = self.player_body() {
            if let Some(pose) = self.scene.world.interpolated_pose(body, self.alpha) {
                self.orbit.follow(to_vec3(&pose.translation.vector), 0.2);
                let heading = pose.rotation * sprung::math::Vector::x();
                let behind = (-heading.x).atan2(-heading.z);
                let turn = (behind - self.orbit.yaw + std::f32::consts::PI)
                    .rem_euclid(std::f32::consts::TAU)
                    - std::f32::consts::PI;
                self.orbit.yaw += 0.05 * turn;
            }
        }
        if let Some(body) = self.follow {
            match self.scene.world.interpolated_pose(body, self.alpha) {
                Some(pose) => self.orbit.follow(to_vec3(&pose.translation.vector), 0.15),
                None => self.follow = None,
            }
        }
    }

    /// One step while paused (N).
    fn single_step(&mut self) {
        self.paused = true;
        let dt = self.specs[self.current].dt;
        match self.scene.step(dt) {
            Ok(report) => {
                self.stats.record(report, dt);
                self.alpha = 1.0;
            }
            Err(e) => eprintln!("step failed: {e}"),
        }
    }

    fn draw(&mut self) {
        clear_background(render::palette::SKY);
        set_camera(&self.orbit.camera());
        let islands = self
            .show
            .islands
            .then(|| scene_view::islands(&self.scene.world));
        let tint = Tint {
            dragged: self.drag.map(|d| d.body),
            islands: islands.as_ref(),
            mass_spring: self.scene.mass_spring.as_ref(),
            crowd: self
                .scene
                .crowd
                .as_ref()
                .map(|c| (c.characters.as_slice(), PLAYER)),
        };
        self.view.update(&self.scene.world, self.alpha, &tint);
        let (_, _, up) = self.orbit.basis();
        self.view
            .draw(self.sphere_material.as_ref(), self.orbit.eye(), up);
        // Markers keep about the same size on screen.
        let scale = 0.003 * self.orbit.distance;
        let sketch = &mut self.sketch;
        let world = &self.scene.world;
        if let Some(system) = &self.scene.mass_spring {
            sketch.mass_spring(system);
        }
        sketch.wheels(world, self.alpha);
        sketch.draw();
        // Debug geometry shows through the bodies.
        // SAFETY: macroquad's internal GL is only reached from this (its) thread, between
        // drawing calls; switching the depth test is what set_camera itself does.
        unsafe { get_internal_gl().quad_gl.depth_test(false) };
        if self.show.aabbs {
            sketch.aabbs(world);
        }
        if self.show.contacts {
            sketch.contacts(world, scale);
        }
        if self.show.joints {
            sketch.joints(world, self.alpha, scale);
        }
        if let Some(drag) = &self.drag {
            if let Some(anchor) = drag.anchor_now(world) {
                sketch.drag(anchor, drag.target, scale, drag.limited(world));
            }
        }
        sketch.draw();
        set_default_camera();
        self.draw_panels();
    }

    fn draw_panels(&mut self) {
        // The scene list.
        let mut lines = vec![("scenes (click, or Tab)".to_string(), overlay::ACCENT)];
        for (i, spec) in self.specs.iter().enumerate() {
            let (mark, colour) = if i == self.current {
                ("> ", overlay::ACCENT)
            } else {
                ("  ", overlay::TEXT)
            };
            lines.push((format!("{mark}{}", spec.name), colour));
        }
        let at = Vec2::new(10.0, 10.0);
        let size = overlay::panel(at, &lines, TEXT_SIZE);
        self.list = (at, size);

        // The stats.
        let world = &self.scene.world;
        let bodies = world.body_count();
        let awake = world
            .bodies()
            .filter(|(_, b)| b.kind() != BodyKind::Static && !b.is_sleeping())
            .count();
        let joints = world.joints().count();
        let [broad, narrow, solve, integrate, after] = self.stats.mean();
        let last = &self.stats.last;
        let state = if self.paused {
            "paused (Space)".to_string()
        } else if SLOW[self.slow] < 1.0 {
            format!("slow motion x{}", SLOW[self.slow])
        } else {
            "running".to_string()
        };
        let mut stats = vec![
            (
                format!(
                    "{}  t = {:.2} s  {state}",
                    self.specs[self.current].name, self.stats.time
                ),
                overlay::ACCENT,
            ),
            (
                format!("bodies {bodies}   awake {awake}   joints {joints}"),
                overlay::TEXT,
            ),
            (
                format!(
                    "contact pairs {}   points {}",
                    last.contact_pairs, last.contact_points
                ),
                overlay::TEXT,
            ),
            (
                format!(
                    "ms: broad {broad:.2}  narrow {narrow:.2}  solve {solve:.2}  \
                     integrate {integrate:.2}  ccd+sleep {after:.2}"
                ),
                overlay::TEXT,
            ),
            (
                format!(
                    "{} steps/frame   {} fps   {}k vertices",
                    self.stats.steps_this_frame,
                    get_fps(),
                    self.view.vertex_count() / 1000
                ),
                overlay::TEXT,
            ),
        ];
        let on = |b: bool| if b { "on" } else { "off" };
        stats.push((
            format!(
                "contacts {}  joints {}  AABBs {}  islands {}  follow {}",
                on(self.show.contacts),
                on(self.show.joints),
                on(self.show.aabbs),
                on(self.show.islands),
                on(self.follow.is_some())
            ),
            overlay::TEXT,
        ));
        if !self.show.all_stats {
            // One line at the top right: the scene, its time and the frame rate (I shows all).
            stats.truncate(1);
            stats[0]
                .0
                .push_str(&format!("   {} fps   (I: stats)", get_fps()));
        }
        let width = stats
            .iter()
            .map(|(t, _)| measure_text(t, None, TEXT_SIZE, 1.0).width)
            .fold(0.0, f32::max);
        overlay::panel(
            Vec2::new(screen_width() - width - 26.0, 10.0),
            &stats,
            TEXT_SIZE,
        );

        // The mouse spring and the keys.
        let mut lines = Vec::new();
        let mut spring = format!(
            "mouse spring: {:.2} Hz   damping ratio {:.1}   force cap {} x weight",
            self.spring.hertz, self.spring.damping_ratio, self.spring.weights
        );
        let mut colour = overlay::TEXT;
        if let Some(drag) = &self.drag {
            spring.push_str(&format!(" = {:.0} N", drag.max_force));
            if drag.limited(&self.scene.world) {
                spring.push_str("  (held to its cap)");
                colour = overlay::ACCENT;
            }
        }
        lines.push((spring, colour));
        if !self.show.hide_help {
            let help = if self.scene.crowd.is_some() {
                CHARACTER_HELP
            } else if self.scene.fleet.is_some() {
                VEHICLE_HELP
            } else {
                HELP
            };
            lines.extend(help.iter().map(|h| (h.to_string(), overlay::TEXT)));
        }
        let height = lines.len() as f32 * TEXT_SIZE as f32 * 1.15 + 10.0;
        overlay::panel(
            Vec2::new(10.0, screen_height() - height - 10.0),
            &lines,
            TEXT_SIZE,
        );
    }
}

fn screen_size() -> Vec2 {
    Vec2::new(screen_width(), screen_height())
}

/// Where the camera starts: the showcase's capsule in the middle; any other scene framed
/// round its moving bodies.
fn initial_view(spec: &SceneSpec, scene: &Scene) -> Orbit {
    if spec.name == SHOWCASE.name {
        let at = sprung_demos::scenes::SHOWCASE_UPRIGHT_AT;
        return Orbit {
            target: Vec3::new(at.x, at.y + 0.3, at.z),
            distance: 17.0,
            yaw: 0.25,
            pitch: 0.32,
        };
    }
    // Behind the player's car, looking along its heading (+x): W drives it.
    if let Some(fleet) = &scene.fleet {
        let car = fleet.vehicles.get(PLAYER_CAR);
        let chassis = car
            .and_then(|&c| scene.world.vehicle(c))
            .map(|v| v.chassis());
        if let Some(body) = chassis.and_then(|c| scene.world.body(c)) {
            return Orbit {
                target: to_vec3(&body.translation()),
                distance: 11.0,
                yaw: -std::f32::consts::FRAC_PI_2,
                pitch: 0.3,
            };
        }
    }
    // Behind the player's character, looking down the course (+x): W walks it.
    if let Some(player) = scene.crowd.as_ref().and_then(|c| c.characters.get(PLAYER)) {
        return Orbit {
            target: point3(&player.position()),
            distance: 9.0,
            yaw: -std::f32::consts::FRAC_PI_2,
            pitch: 0.35,
        };
    }
    let world = &scene.world;
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for (_, body) in world.bodies() {
        if body.kind() == BodyKind::Static {
            continue;
        }
        for &c in body.colliders() {
            if let Some(collider) = world.collider(c) {
                let aabb = collider.aabb();
                lo = lo.min(point3(&aabb.mins));
                hi = hi.max(point3(&aabb.maxs));
            }
        }
    }
    if let Some(system) = &scene.mass_spring {
        for p in system.points() {
            lo = lo.min(point3(p));
            hi = hi.max(point3(p));
        }
    }
    if !(lo.is_finite() && hi.is_finite()) {
        return Orbit::framing(Vec3::new(0.0, 1.0, 0.0), 8.0);
    }
    // Frame down to the floor, so a falling scene lands in view.
    lo.y = lo.y.min(0.0);
    let centre = 0.5 * (lo + hi);
    Orbit::framing(centre, 0.5 * (hi - lo).length())
}

/// Saves the window as it is drawn now as a PNG (through the demos' own PNG writer).
fn save_screenshot(path: &std::path::Path) -> std::io::Result<()> {
    let image = get_screen_data();
    let (width, height) = (image.width as usize, image.height as usize);
    // GL's rows go bottom-up.
    let pixels = (0..height)
        .rev()
        .flat_map(|y| {
            image.bytes[y * width * 4..(y + 1) * width * 4]
                .chunks(4)
                .map(|p| [p[0], p[1], p[2]])
                .collect::<Vec<_>>()
        })
        .collect();
    let canvas = sprung_demos::plot::Canvas::from_pixels(width, height, pixels)
        .ok_or_else(|| std::io::Error::other("screen data of the wrong size"))?;
    canvas.save(path)
}

//! `character`: 100 kinematic characters walk a course of a triangle-mesh floor, a ramp, stairs,
//! a slope down, a moving platform and crates to push, each in its own lane.

use std::time::Instant;

use sprung::math::{Isometry, Point, Real, UnitQuaternion, Vector};
use sprung::{ColliderBuilder, QueryFilter, RigidBodyBuilder, Shape, World};
use sprung_control::{Character, CharacterSettings};

use super::common::{static_box, FRICTION, GRAVITY};
use super::{Check, Scene};

/// Characters, one per lane.
pub const CHARACTERS: usize = 100;
/// Lanes are this far apart along z (m).
const LANE: Real = 1.0;
/// The goal velocity: 4 m/s along +x.
const SPEED: Real = 4.0;
/// A player's jump (m/s): 0.8 m high.
pub const JUMP_SPEED: Real = 4.0;
/// The line every character must cross (m, along x).
pub const GOAL_X: Real = 34.0;
/// The course's half-width along z (m): wider than the lanes.
const HALF_WIDTH: Real = 53.0;

/// The capsule walking it (radius 0.3 m, half-height 0.6 m) with the default settings (2 cm skin).
pub fn capsule() -> Shape {
    Shape::capsule(0.6, 0.3).expect("a valid capsule")
}

/// The characters of a scene, what they are told, and what their checks saw.
#[derive(Clone, Debug)]
pub struct Crowd {
    /// The characters, in lane order.
    pub characters: Vec<Character>,
    /// The goal velocity each is given every update.
    pub goal: Vector<Real>,
    /// Time spent in their updates since the scene was built (ms).
    pub move_ms: f64,
    /// Time spent measuring their clearance since the scene was built (ms): the check's, not the
    /// characters' (the runner leaves it out of the step's time).
    pub watch_ms: f64,
    /// The smallest distance from any character to any collider after any update (m).
    pub min_clearance: Real,
    /// Characters whose centre was ever below the floor.
    pub fell_through: usize,
    /// One character driven by a player instead of the script (the viewer's).
    pub steer: Option<Steer>,
}

/// A player's input for one character of a [`Crowd`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Steer {
    /// Which character (its lane).
    pub index: usize,
    /// The goal velocity (m/s).
    pub goal: Vector<Real>,
    /// Jump at the next update, if standing.
    pub jump: bool,
}

impl Crowd {
    /// Updates every character, in lane order, after the world's step.
    pub fn update(&mut self, world: &mut World, dt: Real) -> Result<(), sprung::Error> {
        let filter = QueryFilter::new();
        let start = Instant::now();
        for (i, character) in self.characters.iter_mut().enumerate() {
            let goal = match &mut self.steer {
                Some(steer) if steer.index == i => {
                    if std::mem::take(&mut steer.jump) && character.is_grounded() {
                        character.jump(JUMP_SPEED)?;
                    }
                    steer.goal
                }
                _ => self.goal,
            };
            character.update(world, goal, dt, &filter)?;
        }
        self.move_ms += start.elapsed().as_secs_f64() * 1e3;
        Ok(())
    }

    /// Measures what the checks watch every step: the nearest collider to each character, and
    /// whether one is below the floor.
    pub fn watch(&mut self, world: &World) {
        let start = Instant::now();
        let filter = QueryFilter::new();
        for character in &self.characters {
            let near = world
                .contacts_with_shape(character.shape(), &character.pose(), 0.1, &filter)
                .map_or(Real::NEG_INFINITY, |found| {
                    found.iter().map(|c| c.distance).fold(0.1, Real::min)
                });
            self.min_clearance = self.min_clearance.min(near);
            if character.position().y < 0.0 {
                self.fell_through += 1;
            }
        }
        self.watch_ms += start.elapsed().as_secs_f64() * 1e3;
    }

    /// How many have crossed the goal line.
    pub fn arrived(&self) -> usize {
        self.characters
            .iter()
            .filter(|c| c.position().x >= GOAL_X)
            .count()
    }

    /// The mean time (µs) of eight casts of each character's shape from where it stands, along
    /// its last update's motion: what the issue holds a move's cost to.
    pub fn eight_casts_us(&self, world: &World, dt: Real) -> f64 {
        let filter = QueryFilter::new();
        let start = Instant::now();
        let mut hits = 0;
        for character in &self.characters {
            let motion = character.velocity() * dt;
            for _ in 0..8 {
                let hit = world.cast_shape_to(
                    character.shape(),
                    &character.pose(),
                    motion,
                    1.0,
                    0.01,
                    &filter,
                );
                hits += usize::from(matches!(hit, Ok(Some(_))));
            }
        }
        let us = start.elapsed().as_secs_f64() * 1e6;
        std::hint::black_box(hits);
        us / self.characters.len().max(1) as f64
    }
}

/// The course, built along +x over lanes z = -49.5 .. 49.5: a triangle-mesh floor (x -2 to 6),
/// a 15 degree ramp up 1 m, a plateau, four stairs up (riser 0.2 m, tread 0.5 m) to 1.8 m, a 25
/// degree slope down to the floor, a kinematic platform 0.2 m high moving sideways at 0.3 m/s
/// (x 22 to 26), a 5 kg crate in every fifth lane at x = 29, and the goal line at x = 34. Each
/// character starts at x = 0 at rest and is told to walk at 4 m/s along +x.
pub fn character() -> Scene {
    let mut world = World::new(GRAVITY).expect("finite gravity");
    mesh_floor(&mut world);
    // The floor after the mesh, its top at y = 0.
    static_box(
        &mut world,
        Vector::new(20.0, 0.5, HALF_WIDTH),
        Vector::new(26.0, -0.5, 0.0),
        FRICTION,
    );
    let ramp = 15.0_f32.to_radians();
    slab(&mut world, (6.0, 0.0), ramp, 1.0 / ramp.sin());
    let plateau_from = 6.0 + 1.0 / ramp.tan();
    static_box(
        &mut world,
        Vector::new((12.0 - plateau_from) / 2.0 + 0.25, 0.5, HALF_WIDTH),
        Vector::new((12.0 + plateau_from) / 2.0 + 0.25, 0.5, 0.0),
        FRICTION,
    );
    for k in 1..=4 {
        let (from, top) = (12.0 + 0.5 * (k - 1) as Real, 1.0 + 0.2 * k as Real);
        let half = Vector::new((16.0 - from) / 2.0, top / 2.0, HALF_WIDTH);
        static_box(
            &mut world,
            half,
            Vector::new(from + half.x, half.y, 0.0),
            FRICTION,
        );
    }
    let down = 25.0_f32.to_radians();
    slab(&mut world, (16.0, 1.8), -down, 1.8 / down.sin());
    // The platform: 4 m long, 0.2 m high, wider than the course, drifting along z.
    let platform = world
        .add_body(
            RigidBodyBuilder::kinematic()
                .translation(Vector::new(24.0, 0.1, 0.0))
                .linear_velocity(Vector::new(0.0, 0.0, 0.3)),
        )
        .expect("valid platform");
    world
        .add_collider(
            ColliderBuilder::cuboid(2.0, 0.1, HALF_WIDTH + 5.0).friction(FRICTION),
            platform,
        )
        .expect("valid platform box");
    let mut tracked = Vec::new();
    for lane in (0..CHARACTERS).step_by(5) {
        let at = Vector::new(29.0, 0.25, lane_z(lane));
        let crate_ = world
            .add_body(RigidBodyBuilder::dynamic().translation(at))
            .expect("valid crate");
        world
            .add_collider(
                ColliderBuilder::cuboid(0.25, 0.25, 0.25)
                    .density(5.0 / 0.125)
                    .friction(FRICTION),
                crate_,
            )
            .expect("valid crate box");
        tracked.push((crate_, Isometry::translation(at.x, at.y, at.z)));
    }
    let settings = CharacterSettings::default();
    let rest = 0.6 + 0.3 + settings.skin;
    let characters = (0..CHARACTERS)
        .map(|lane| {
            Character::new(capsule(), Point::new(0.0, rest, lane_z(lane)), settings)
                .expect("a valid character")
        })
        .collect();
    let mut scene = Scene::new(
        world,
        tracked,
        Check::Characters {
            goal_x: GOAL_X,
            min_clearance: 0.5 * settings.skin,
        },
    );
    scene.crowd = Some(Crowd {
        characters,
        goal: Vector::new(SPEED, 0.0, 0.0),
        move_ms: 0.0,
        watch_ms: 0.0,
        min_clearance: Real::INFINITY,
        fell_through: 0,
        steer: None,
    });
    scene
}

/// The z of lane `lane`.
fn lane_z(lane: usize) -> Real {
    (lane as Real - (CHARACTERS as Real - 1.0) / 2.0) * LANE
}

/// A 0.5 m thick static slab across the course whose top face starts at `from` (x, y) and runs
/// `length` m along +x, rising at `angle` (negative: falling).
fn slab(world: &mut World, from: (Real, Real), angle: Real, length: Real) {
    let turn = UnitQuaternion::from_axis_angle(&Vector::z_axis(), angle);
    let centre = Vector::new(from.0, from.1, 0.0) + turn * Vector::new(length / 2.0, -0.25, 0.0);
    let body = world
        .add_body(RigidBodyBuilder::fixed().pose(Isometry::from_parts(centre.into(), turn)))
        .expect("valid slab");
    world
        .add_collider(
            ColliderBuilder::cuboid(length / 2.0, 0.25, HALF_WIDTH).friction(FRICTION),
            body,
        )
        .expect("valid slab box");
}

/// A flat triangle-mesh floor at y = 0 over x -2 to 6, of 1 m by 2 m cells.
fn mesh_floor(world: &mut World) {
    let (nx, nz) = (8usize, 53usize);
    let mut vertices = Vec::new();
    for i in 0..=nz {
        for j in 0..=nx {
            vertices.push(Point::new(
                -2.0 + j as Real,
                0.0,
                -HALF_WIDTH + 2.0 * i as Real,
            ));
        }
    }
    let at = |i: usize, j: usize| (i * (nx + 1) + j) as u32;
    let mut indices = Vec::new();
    for i in 0..nz {
        for j in 0..nx {
            indices.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    let body = world
        .add_body(RigidBodyBuilder::fixed())
        .expect("valid floor");
    world
        .add_collider(
            ColliderBuilder::trimesh(vertices, indices).friction(FRICTION),
            body,
        )
        .expect("valid mesh floor");
}

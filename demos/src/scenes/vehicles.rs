//! `vehicles`: 100 cars drive a lap each, a circle of 6 m radius, over a rolling height field,
//! some across a ramp (and off its end), some through a crate; a hover racer flies a lap of its
//! own. Each car is driven as a player would: a throttle holding 5.5 m/s and a steering wheel
//! following the circle.

use std::time::Instant;

use sprung::math::{DMatrix, Isometry, Point, Real, UnitQuaternion, Vector};
use sprung::vehicle::{VehicleBuilder, VehicleHandle, VehicleInput};
use sprung::{ColliderBuilder, QueryFilter, RigidBodyBuilder, World};
use sprung_control::{HoverInput, HoverRacer, HoverSettings};

use super::common::GRAVITY;
use super::{Check, Scene};

/// Cars, in a 10 x 10 grid.
pub const VEHICLES: usize = 100;
/// The grid's spacing (m): the laps' centres are this far apart.
const SPACING: Real = 16.0;
/// A lap's radius (m).
pub const LAP_RADIUS: Real = 6.0;
/// The speed the drivers hold (m/s): 5 m/s^2 across the lap, half the tyres' grip.
const SPEED: Real = 5.5;
/// The road's friction (the tyres' slip curve multiplies it).
const ROAD_FRICTION: Real = 1.0;
/// The chassis: 4 x 0.6 x 1.6 m, 1,500 kg.
const CHASSIS: Vector<Real> = Vector::new(2.0, 0.3, 0.8);
const CHASSIS_MASS: Real = 1500.0;
/// The terrain's half-size (m).
const TERRAIN: Real = 100.0;

/// The terrain's height at (x, z): rolling by up to 0.12 m.
pub fn terrain_height(x: Real, z: Real) -> Real {
    let tau = std::f32::consts::TAU;
    0.12 * (tau * x / 23.0).sin() * (tau * z / 29.0).cos()
}

/// One car's lap: the circle it follows and how far round it has come.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lap {
    /// The circle's centre (x, z).
    pub centre: (Real, Real),
    /// +1 anticlockwise seen from above (turning left), -1 clockwise.
    pub direction: Real,
    /// The angle swept round the centre so far (rad, in the lap's direction).
    pub swept: Real,
    /// The car's angle about the centre at the last step.
    last: Real,
}

impl Lap {
    /// Whether it has come all the way round.
    pub fn done(&self) -> bool {
        self.swept >= std::f32::consts::TAU
    }
}

/// The cars of a scene, their drivers' laps, and what their checks saw.
#[derive(Clone, Debug)]
pub struct Fleet {
    /// The cars, in grid order.
    pub vehicles: Vec<VehicleHandle>,
    /// Their laps.
    pub laps: Vec<Lap>,
    /// The hover racer, flying a lap of its own.
    pub racer: Option<HoverRacer>,
    /// Its lap.
    pub racer_lap: Lap,
    /// A car (its index) or the racer (`VEHICLES`) driven by a player instead of its driver.
    pub player: Option<(usize, VehicleInput)>,
    /// Cars whose chassis was ever tipped past 60° from upright.
    pub flipped: usize,
    /// Cars whose chassis's centre was ever below the terrain.
    pub fell_through: usize,
    /// Time in the drivers' scripts since the scene was built (ms): a player's, not the
    /// engine's (the runner leaves it out of the step's time).
    pub script_ms: f64,
}

impl Fleet {
    /// Sets every driver's input for the next step: the throttle holds the speed, the
    /// steering follows the lap's circle (pure pursuit of a point 4 m ahead on it).
    pub fn drive(&mut self, world: &mut World) -> Result<(), sprung::Error> {
        let start = Instant::now();
        for (i, (&car, lap)) in self.vehicles.iter().zip(&self.laps).enumerate() {
            let input = match self.player {
                Some((player, input)) if player == i => input,
                _ => {
                    let chassis = world.vehicle(car).map(|v| v.chassis());
                    match chassis.and_then(|c| world.body(c)) {
                        Some(body) => follow(body, lap),
                        None => continue,
                    }
                }
            };
            world.set_vehicle_input(car, input)?;
        }
        if let Some(racer) = &mut self.racer {
            let input = match self.player {
                Some((player, input)) if player == VEHICLES => HoverInput {
                    throttle: input.throttle,
                    steering: input.steering,
                },
                _ => {
                    // 6 m/s, turning at the speed times the pursuit's curvature.
                    let body = world.body(racer.body()).expect("the racer's body");
                    let (curvature, speed) = pursue(body, &self.racer_lap);
                    let rate = racer.settings().turn_rate;
                    HoverInput {
                        throttle: 6.0 / racer.settings().max_speed,
                        steering: (speed * curvature / rate).clamp(-1.0, 1.0),
                    }
                }
            };
            racer.drive(world, input)?;
        }
        self.script_ms += start.elapsed().as_secs_f64() * 1e3;
        Ok(())
    }

    /// Measures what the checks watch every step: how far round each lap is, and whether a
    /// car is tipped or below the terrain.
    pub fn watch(&mut self, world: &World) {
        let start = Instant::now();
        for (&car, lap) in self.vehicles.iter().zip(&mut self.laps) {
            let Some(body) = world.vehicle(car).and_then(|v| world.body(v.chassis())) else {
                continue;
            };
            advance(lap, body);
            let up = body.pose().rotation * Vector::y();
            if up.y < 0.5 {
                self.flipped += 1;
            }
            let at = body.translation();
            if at.y < terrain_height(at.x, at.z) || !at.iter().all(|x| x.is_finite()) {
                self.fell_through += 1;
            }
        }
        if let Some(body) = self.racer.as_ref().and_then(|r| world.body(r.body())) {
            advance(&mut self.racer_lap, body);
        }
        self.script_ms += start.elapsed().as_secs_f64() * 1e3;
    }

    /// How many cars have come all the way round.
    pub fn laps_done(&self) -> usize {
        self.laps.iter().filter(|lap| lap.done()).count()
    }
}

/// The input that follows `lap` for the car of `body`: the steering angle of the pursuit's
/// curvature for the car's wheelbase, the throttle and brake holding the speed.
fn follow(body: &sprung::RigidBody, lap: &Lap) -> VehicleInput {
    let (curvature, speed) = pursue(body, lap);
    let wheel = (2.8 * curvature).atan();
    VehicleInput {
        throttle: ((SPEED - speed) * 0.5).clamp(0.0, 1.0),
        brake: ((speed - SPEED - 1.0) * 0.5).clamp(0.0, 1.0),
        handbrake: 0.0,
        steering: (wheel / 30.0_f32.to_radians()).clamp(-1.0, 1.0),
    }
}

/// Pure pursuit of the point 4 m ahead round `lap` by the body heading +x in its frame: the
/// curvature of the arc to it (1/m, positive turning left) and the body's speed along its
/// heading.
fn pursue(body: &sprung::RigidBody, lap: &Lap) -> (Real, Real) {
    let at = body.translation();
    let heading = body.pose().rotation * Vector::x();
    let angle = (at.z - lap.centre.1).atan2(at.x - lap.centre.0);
    // Aim at the point 4 m ahead round the circle (a left turn, about +y, takes the angle
    // from x towards z down).
    let ahead = angle - lap.direction * 4.0 / LAP_RADIUS;
    let target = Vector::new(
        lap.centre.0 + LAP_RADIUS * ahead.cos(),
        at.y,
        lap.centre.1 + LAP_RADIUS * ahead.sin(),
    );
    let to = target - at;
    // Positive to the left (about +y): heading x to.
    let alpha = heading.cross(&to).y.atan2(heading.dot(&to));
    let curvature = 2.0 * alpha.sin() / to.norm().max(0.1);
    (curvature, body.linear_velocity().dot(&heading))
}

/// Adds the angle `body` has moved round `lap`'s centre since the last step.
fn advance(lap: &mut Lap, body: &sprung::RigidBody) {
    let at = body.translation();
    let angle = (at.z - lap.centre.1).atan2(at.x - lap.centre.0);
    let tau = std::f32::consts::TAU;
    let delta = (angle - lap.last + std::f32::consts::PI).rem_euclid(tau) - std::f32::consts::PI;
    // atan2 about +y from x to z is clockwise seen from above: left turns sweep negative.
    lap.swept -= lap.direction * delta;
    lap.last = angle;
}

/// A lap of `direction` about `centre`, starting at angle `angle`.
fn lap(centre: (Real, Real), direction: Real, angle: Real) -> Lap {
    Lap {
        centre,
        direction,
        swept: 0.0,
        last: angle,
    }
}

/// 100 cars (chassis 4 x 0.6 x 1.6 m of 1,500 kg on [`VehicleBuilder::car`]'s wheels) on a
/// 200 x 200 m height field rolling by 0.12 m (friction 1), each at the start of a lap of 6 m
/// radius about its grid point (16 m apart), half of them turning left and half right; a 0.3 m
/// ramp across every fifth lap (cars 2, 7, ...) a quarter of the way round, a 20 kg crate (0.5 m)
/// in every tenth (cars 4, 14, ...) half way round; a hover racer on a lap of its own. 600 steps
/// of 1/60 s.
pub fn vehicles() -> Scene {
    let mut world = World::new(GRAVITY).expect("finite gravity");
    let cells = 100;
    let heights = DMatrix::from_fn(cells + 1, cells + 1, |i, j| {
        // Row i along z, column j along x.
        let at = |k: usize| -TERRAIN + 2.0 * TERRAIN * k as Real / cells as Real;
        terrain_height(at(j), at(i))
    });
    let ground = world.add_body(RigidBodyBuilder::fixed()).expect("ground");
    let terrain =
        ColliderBuilder::heightfield(heights, Vector::new(2.0 * TERRAIN, 1.0, 2.0 * TERRAIN))
            .friction(ROAD_FRICTION);
    world.add_collider(terrain, ground).expect("valid terrain");
    let mut tracked = Vec::new();
    let mut vehicles = Vec::new();
    let mut laps = Vec::new();
    let side = (VEHICLES as Real).sqrt() as usize;
    for k in 0..VEHICLES {
        let (row, column) = (k / side, k % side);
        let offset = (side as Real - 1.0) / 2.0;
        let centre = (
            (column as Real - offset) * SPACING,
            (row as Real - offset) * SPACING,
        );
        // Every car starts heading +x: left turns (about +y, towards -z) at the circle's +z
        // point, right turns at its -z point.
        let direction = if k % 2 == 0 { 1.0 } else { -1.0 };
        let start_angle = direction * std::f32::consts::FRAC_PI_2;
        let start = (centre.0, centre.1 + LAP_RADIUS * start_angle.sin());
        let height = ground_height(&world, start.0, start.1);
        // At its resting height: the wheels' rest length less the sag.
        let sag = 9.81 / (std::f32::consts::TAU * 1.5).powi(2);
        let at = Vector::new(start.0, height + 0.85 - sag, start.1);
        let chassis = world
            .add_body(RigidBodyBuilder::dynamic().translation(at))
            .expect("valid chassis");
        let volume = 8.0 * CHASSIS.x * CHASSIS.y * CHASSIS.z;
        let shape = ColliderBuilder::cuboid(CHASSIS.x, CHASSIS.y, CHASSIS.z)
            .density(CHASSIS_MASS / volume)
            .friction(0.5);
        world
            .add_collider(shape, chassis)
            .expect("valid chassis box");
        vehicles.push(
            world
                .add_vehicle(VehicleBuilder::car(chassis))
                .expect("valid car"),
        );
        laps.push(lap(centre, direction, start_angle));
        if k % 5 == 2 {
            ramp(&mut world, centre, direction);
        }
        if k % 10 == 4 {
            let angle = start_angle + std::f32::consts::PI;
            let (x, z) = (
                centre.0 + LAP_RADIUS * angle.cos(),
                centre.1 + LAP_RADIUS * angle.sin(),
            );
            let at = Vector::new(x, ground_height(&world, x, z) + 0.26, z);
            let crate_ = world
                .add_body(RigidBodyBuilder::dynamic().translation(at))
                .expect("valid crate");
            let shape = ColliderBuilder::cuboid(0.25, 0.25, 0.25).density(20.0 / 0.125);
            world.add_collider(shape, crate_).expect("valid crate box");
            tracked.push((crate_, Isometry::translation(at.x, at.y, at.z)));
        }
    }
    // The hover racer: a 3 x 0.4 x 1.6 m sled of 384 kg, on a lap round the grid's corner.
    let half = Vector::new(1.5, 0.2, 0.8);
    let centre = (-TERRAIN + 12.0, -TERRAIN + 12.0);
    let start = (centre.0, centre.1 + LAP_RADIUS);
    let at = Vector::new(
        start.0,
        ground_height(&world, start.0, start.1) + 0.7,
        start.1,
    );
    let sled = world
        .add_body(RigidBodyBuilder::dynamic().translation(at))
        .expect("valid sled");
    let shape = ColliderBuilder::cuboid(half.x, half.y, half.z).density(200.0);
    world.add_collider(shape, sled).expect("valid sled box");
    let racer = HoverRacer::new(&mut world, sled, HoverSettings::for_box(half)).expect("a racer");
    let mut scene = Scene::new(world, tracked, Check::Vehicles { laps: VEHICLES });
    scene.fleet = Some(Fleet {
        vehicles,
        laps,
        racer: Some(racer),
        racer_lap: lap(centre, 1.0, std::f32::consts::FRAC_PI_2),
        player: None,
        flipped: 0,
        fell_through: 0,
        script_ms: 0.0,
    });
    scene
}

/// The terrain's height under (x, z), as the world has it (a ray down).
fn ground_height(world: &World, x: Real, z: Real) -> Real {
    let from = Point::new(x, 10.0, z);
    let hit = world.cast_ray(from, -Vector::y(), 20.0, true, &QueryFilter::new());
    hit.ok().flatten().map_or(0.0, |h| h.point.y)
}

/// A ramp on the lap about `centre` a quarter of the way round: a 3 m slab rising 0.3 m along
/// the lap's heading there, with a drop at its end.
fn ramp(world: &mut World, centre: (Real, Real), direction: Real) {
    // A quarter round from the start, at (centre.x + R, centre.z), a car heads along -z when
    // turning left, +z when turning right: the slab's top rises that way (turned about x).
    let (x, z) = (centre.0 + LAP_RADIUS, centre.1);
    let rise = (0.3_f32 / 3.0).asin();
    let turn = UnitQuaternion::from_axis_angle(&Vector::x_axis(), direction * rise);
    let base = ground_height(world, x, z);
    let centre_top = Vector::new(x, base + 0.15, z);
    let centre = centre_top + turn * Vector::new(0.0, -0.1, 0.0);
    let body = world
        .add_body(RigidBodyBuilder::fixed().pose(Isometry::from_parts(centre.into(), turn)))
        .expect("valid ramp");
    let shape = ColliderBuilder::cuboid(1.5, 0.1, 1.5).friction(ROAD_FRICTION);
    world.add_collider(shape, body).expect("valid ramp box");
}

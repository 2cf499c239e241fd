//! Wheeled vehicles: a dynamic chassis on wheels whose suspension, tyres and brakes are rows of
//! the solver (`sprung_solver::wheel`), and the drive train that turns them.
//!
//! Each step, each wheel casts a ray from its suspension's mount along the suspension
//! direction. On the ground, the wheel is three rows between the chassis and the body it hit
//! (which is pushed back, and whose velocity is the ground's speed under the wheel):
//!
//! - **Suspension**: a spring holding the mount at its rest length (plus the radius) over the
//!   ground, exact in frequency like every spring of sprung (a [`Spring`] by frequency refers to
//!   the chassis mass each wheel carries at rest: its mass over the wheel count, as Jolt's), and
//!   a rigid bump stop at the shortest length. It only pushes.
//! - **Tyre**: along the wheel's heading, the slip between the ground and the tyre's surface
//!   (whose speed is the wheel's spin times its radius), and across it, each held at zero while
//!   the tyre grips, within the friction circle `mu * load`. `mu` is the ground collider's
//!   friction times the tyre's slip curve ([`Tyre`]): `grip` up to `peak_slip`, falling linearly
//!   to `slide` at `slide_slip`, where the slip is the speed of the tyre over the ground divided
//!   by the wheel's speed (at least [`SLIP_SPEED`]). A tyre that grips holds exactly; one that
//!   slides pushes with `slide`.
//! - **Brake**: a row on the wheel's spin within the brake's torque, solved together with the
//!   tyre's heading row, so that a braked car stands on a slope without creeping.
//!
//! The wheel's spin is a state of its own (inertia and angular velocity). The engine's torque
//! reaches the driven wheels through the gearbox and the differentials, rows of the solve
//! too: an open differential gives its two wheels equal torques (a wheel on ice spins, the
//! other gets no more), a limited-slip one locks them together up to its torque; the engine's
//! inertia, times the gear ratio squared, turns with them. The gearbox shifts by itself at set
//! engine speeds. Steering turns the steered wheels by
//! Ackermann's geometry: every wheel's heading is tangent to a circle about one point on the
//! rear axle's line.
//!
//! ```
//! use sprung::vehicle::{VehicleBuilder, VehicleInput};
//! use sprung::{ColliderBuilder, RigidBodyBuilder, World};
//! use sprung::math::Vector;
//!
//! let mut world = World::default();
//! let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
//! // A road: friction 1 (the tyres' slip curve multiplies it).
//! let road = ColliderBuilder::halfspace(Vector::y()).friction(1.0);
//! world.add_collider(road, ground).unwrap();
//! let chassis = world
//!     .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 0.75, 0.0)))
//!     .unwrap();
//! // A 4 x 0.6 x 1.6 m box of 1,500 kg.
//! let body = ColliderBuilder::cuboid(2.0, 0.3, 0.8).density(1500.0 / 3.84);
//! world.add_collider(body, chassis).unwrap();
//! let car = world.add_vehicle(VehicleBuilder::car(chassis)).unwrap();
//! for _ in 0..60 {
//!     world.set_vehicle_input(car, VehicleInput { throttle: 1.0, ..VehicleInput::default() }).unwrap();
//!     world.step(1.0 / 60.0).unwrap();
//! }
//! // A second of full throttle: it drove off along its heading (+x).
//! assert!(world.body(chassis).unwrap().translation().x > 1.0);
//! assert!(world.vehicle(car).unwrap().wheels()[0].state.contact.is_some());
//! ```

use parry3d::math::{Isometry, Point, Real, Rotation, Translation, Vector};
use sprung_solver::softness::Spring;

use crate::error::Error;
pub use crate::handle::VehicleHandle;
use crate::handle::{BodyHandle, ColliderHandle};
use crate::limits;

/// The speed (m/s) below which slip is measured against this speed instead of the wheel's:
/// without it a wheel at rest would read any creep as a full slide.
pub const SLIP_SPEED: Real = 1.0;

/// A tyre's friction against its slip, as multiples of the ground collider's friction.
///
/// The slip is the speed of the tyre's surface over the ground (heading and side together)
/// divided by the larger of the wheel's speed over the ground and its rolling speed (at least
/// [`SLIP_SPEED`]): 0 while rolling, 1 for a locked wheel sliding. The friction is `grip` up to
/// `peak_slip`, falls linearly to `slide` at `slide_slip`, and stays there.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Tyre {
    /// The friction while the tyre grips (times the ground's).
    pub grip: Real,
    /// The friction once it slides (times the ground's).
    pub slide: Real,
    /// The slip up to which it grips.
    pub peak_slip: Real,
    /// The slip from which it slides.
    pub slide_slip: Real,
    /// The rolling resistance: a torque of this times the load times the radius against the
    /// wheel's spin (0.015: a car tyre on asphalt).
    pub rolling_resistance: Real,
}

impl Default for Tyre {
    fn default() -> Self {
        Tyre {
            grip: 1.0,
            slide: 0.7,
            peak_slip: 0.1,
            slide_slip: 0.4,
            rolling_resistance: 0.015,
        }
    }
}

impl Tyre {
    /// The friction (times the ground's) at `slip`.
    ///
    /// ```
    /// use sprung::vehicle::Tyre;
    ///
    /// let tyre = Tyre::default();
    /// assert_eq!(tyre.friction(0.0), tyre.grip);
    /// assert_eq!(tyre.friction(1.0), tyre.slide);
    /// ```
    pub fn friction(&self, slip: Real) -> Real {
        if slip <= self.peak_slip {
            self.grip
        } else if slip >= self.slide_slip {
            self.slide
        } else {
            let t = (slip - self.peak_slip) / (self.slide_slip - self.peak_slip);
            self.grip + (self.slide - self.grip) * t
        }
    }

    fn check(&self) -> Result<(), Error> {
        crate::error::finite(
            "tyre",
            &[
                self.grip,
                self.slide,
                self.peak_slip,
                self.slide_slip,
                self.rolling_resistance,
            ],
        )?;
        let negative = [
            self.grip,
            self.slide,
            self.peak_slip,
            self.rolling_resistance,
        ];
        if negative.iter().any(|&x| x < 0.0) {
            return Err(Error::Negative("tyre friction or slip"));
        }
        let frictions = [self.grip, self.slide, self.rolling_resistance];
        if frictions.iter().any(|&x| x > limits::MAX_FRICTION) {
            return Err(Error::OutOfRange("tyre friction: at most 1000"));
        }
        if self.slide_slip <= self.peak_slip {
            return Err(Error::OutOfRange("tyre: slide_slip above peak_slip"));
        }
        Ok(())
    }
}

/// How a wheel finds the ground.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WheelCast {
    /// A ray from the mount along the suspension: the cheapest; the ground under the wheel's
    /// axis alone (a kerb is met when the axis is over it, at once).
    #[default]
    Ray,
    /// A sphere of the wheel's radius swept from the mount along the suspension: meets a kerb
    /// or a crate's edge with the wheel's front, rising onto it over a stretch instead of at
    /// once, and does not drop into cracks narrower than the wheel.
    Sphere,
}

/// One wheel: where its suspension is mounted on the chassis, how it springs, and what drives,
/// steers and brakes it. Positions and directions are in the chassis's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WheelSettings {
    /// The suspension's mount (chassis frame): the wheel's centre is `length` along
    /// `direction` from it.
    pub mount: Point<Real>,
    /// The suspension's direction, from the mount towards the wheel (chassis frame, unit).
    pub direction: Vector<Real>,
    /// The wheel's radius (m).
    pub radius: Real,
    /// How it finds the ground.
    pub cast: WheelCast,
    /// The suspension's length at which its spring pushes nothing (m).
    pub rest_length: Real,
    /// The shortest length: the bump stop (m).
    pub min_length: Real,
    /// The longest length: beyond it the wheel hangs in the air (m).
    pub max_length: Real,
    /// The suspension spring (by frequency: referring to the chassis mass over the wheel
    /// count).
    pub spring: Spring,
    /// The wheel's moment of inertia about its axle (kg m^2).
    pub inertia: Real,
    /// The largest steering angle (rad); 0: not steered.
    pub max_steer: Real,
    /// The brake's largest torque (N m).
    pub brake_torque: Real,
    /// The handbrake's largest torque (N m); 0: no handbrake on this wheel.
    pub handbrake_torque: Real,
    /// Anti-lock brakes: the brakes hold the wheel with at most the torque its tyre can pass
    /// to the ground, so that braking never locks it and the tyre brakes at its grip (the
    /// handbrake, mechanical, still locks it).
    pub anti_lock: bool,
    /// The tyre.
    pub tyre: Tyre,
}

impl WheelSettings {
    /// A wheel of `radius` at `mount`, finding the ground by a ray, hanging straight down (-y),
    /// with a 0.5 m suspension
    /// (rest 0.4, bump stop 0.1) on a 1.5 Hz spring of damping ratio 0.5, 1 kg m^2 of inertia,
    /// 1,500 N m of brake, not steered (a differential drives it, if one names it).
    pub fn new(mount: Point<Real>, radius: Real) -> WheelSettings {
        WheelSettings {
            mount,
            direction: -Vector::y(),
            radius,
            cast: WheelCast::Ray,
            rest_length: 0.4,
            min_length: 0.1,
            max_length: 0.5,
            spring: Spring::Frequency {
                hertz: 1.5,
                damping_ratio: 0.5,
            },
            inertia: 1.0,
            max_steer: 0.0,
            brake_torque: 1500.0,
            handbrake_torque: 0.0,
            anti_lock: false,
            tyre: Tyre::default(),
        }
    }

    fn check(&self) -> Result<(), Error> {
        limits::position("wheel mount", &self.mount.coords)?;
        limits::axis("wheel direction", &self.direction)?;
        crate::error::finite(
            "wheel",
            &[
                self.radius,
                self.rest_length,
                self.min_length,
                self.max_length,
                self.inertia,
                self.max_steer,
                self.brake_torque,
                self.handbrake_torque,
            ],
        )?;
        if self.radius <= 0.0 || self.inertia <= 0.0 {
            return Err(Error::NonPositive("wheel radius or inertia"));
        }
        if self.min_length < 0.0 || self.brake_torque < 0.0 || self.handbrake_torque < 0.0 {
            return Err(Error::Negative("wheel length or brake torque"));
        }
        let lengths = [self.radius, self.max_length];
        limits::bounded("wheel", &lengths, limits::MAX_COORDINATE, "wheel lengths")?;
        if self.min_length > self.max_length {
            return Err(Error::OutOfRange("wheel: min_length at most max_length"));
        }
        if self.inertia < limits::MIN_INERTIA || self.inertia > limits::MAX_INERTIA {
            return Err(Error::OutOfRange("wheel inertia"));
        }
        if self.max_steer.abs() >= std::f32::consts::FRAC_PI_2 {
            return Err(Error::OutOfRange("wheel max_steer: below a right angle"));
        }
        let torques = [self.brake_torque, self.handbrake_torque];
        limits::bounded("brake torque", &torques, limits::MAX_FORCE, "brake torque")?;
        self.spring.check().map_err(Error::Spring)?;
        self.tyre.check()
    }
}

/// The engine: its torque against its speed, and its speed range.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Engine {
    /// The largest torque (N m).
    pub max_torque: Real,
    /// The moment of inertia of the engine and gearbox about the engine's shaft (kg m^2): the
    /// wheels feel it times the overall gear ratio squared.
    pub inertia: Real,
    /// The speed at which it idles, and below which it does not turn (rpm).
    pub idle_rpm: Real,
    /// The highest speed (rpm): no torque beyond it.
    pub max_rpm: Real,
    /// The torque (times `max_torque`) at speeds between 0 and `max_rpm` (as fractions of it),
    /// linear between the points; sorted by speed.
    pub torque_curve: Vec<(Real, Real)>,
}

impl Default for Engine {
    /// 200 N m, 0.5 kg m^2, 1,000 to 6,000 rpm, 80% of its torque at either end and all of it
    /// at 4,000:
    /// in first gear, through the default gearbox, a little less than what the two driven
    /// tyres of a 1,500 kg car hold on a road (more spins them, and a spinning tyre, sliding,
    /// holds less).
    fn default() -> Self {
        Engine {
            max_torque: 200.0,
            inertia: 0.5,
            idle_rpm: 1000.0,
            max_rpm: 6000.0,
            torque_curve: vec![(0.0, 0.8), (0.66, 1.0), (1.0, 0.8)],
        }
    }
}

impl Engine {
    /// The torque at `rpm` with the throttle full (N m).
    ///
    /// ```
    /// use sprung::vehicle::Engine;
    ///
    /// let engine = Engine::default();
    /// assert_eq!(engine.torque(0.66 * 6000.0), 200.0);
    /// assert_eq!(engine.torque(6001.0), 0.0);
    /// ```
    pub fn torque(&self, rpm: Real) -> Real {
        if rpm.is_nan() || rpm > self.max_rpm {
            return 0.0;
        }
        let x = rpm / self.max_rpm;
        let curve = &self.torque_curve;
        let fraction = match curve.iter().position(|&(at, _)| at >= x) {
            None => curve.last().map_or(1.0, |p| p.1),
            Some(0) => curve[0].1,
            Some(i) => {
                let ((x0, y0), (x1, y1)) = (curve[i - 1], curve[i]);
                y0 + (y1 - y0) * (x - x0) / (x1 - x0).max(Real::EPSILON)
            }
        };
        self.max_torque * fraction
    }

    fn check(&self) -> Result<(), Error> {
        let values = [self.max_torque, self.idle_rpm, self.max_rpm, self.inertia];
        crate::error::finite("engine", &values)?;
        if self.max_torque < 0.0 || self.idle_rpm < 0.0 {
            return Err(Error::Negative("engine torque or idle speed"));
        }
        if !(limits::MIN_INERTIA..=limits::MAX_INERTIA).contains(&self.inertia) {
            return Err(Error::OutOfRange("engine inertia"));
        }
        if self.max_rpm <= self.idle_rpm {
            return Err(Error::OutOfRange("engine: max_rpm above idle_rpm"));
        }
        limits::bounded(
            "engine torque",
            &values[..1],
            limits::MAX_FORCE,
            "engine torque",
        )?;
        let mut last = Real::NEG_INFINITY;
        for &(x, y) in &self.torque_curve {
            crate::error::finite("torque curve", &[x, y])?;
            if x < last || !(0.0..=1.0).contains(&x) || y < 0.0 {
                return Err(Error::OutOfRange(
                    "torque curve: speeds sorted within 0 to 1, torques not negative",
                ));
            }
            last = x;
        }
        Ok(())
    }
}

/// The gearbox and the final drive: the ratios between the engine's speed and the driven
/// wheels', and when the automatic box shifts.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Gearbox {
    /// The forward gears' ratios, first gear first.
    pub ratios: Vec<Real>,
    /// The reverse gear's ratio (positive).
    pub reverse_ratio: Real,
    /// The differential's ratio, times every gear's.
    pub differential_ratio: Real,
    /// The engine speed at which it shifts up (rpm).
    pub shift_up_rpm: Real,
    /// The engine speed at which it shifts down (rpm).
    pub shift_down_rpm: Real,
    /// The least time between two shifts (s): a wheel spinning up does not run the box
    /// through every gear at once.
    pub shift_time: Real,
}

impl Default for Gearbox {
    /// Five gears (2.66, 1.78, 1.3, 1.0, 0.74), reverse 2.9, final drive 3.42, shifting up at
    /// 4,000 rpm and down at 2,000 (Jolt's defaults), at most every half second.
    fn default() -> Self {
        Gearbox {
            ratios: vec![2.66, 1.78, 1.3, 1.0, 0.74],
            reverse_ratio: 2.9,
            differential_ratio: 3.42,
            shift_up_rpm: 4000.0,
            shift_down_rpm: 2000.0,
            shift_time: 0.5,
        }
    }
}

impl Gearbox {
    fn check(&self) -> Result<(), Error> {
        let values = [
            self.reverse_ratio,
            self.differential_ratio,
            self.shift_up_rpm,
            self.shift_down_rpm,
            self.shift_time,
        ];
        crate::error::finite("gearbox", &values)?;
        if self.shift_time < 0.0 {
            return Err(Error::Negative("gearbox shift_time"));
        }
        crate::error::finite("gear ratios", &self.ratios)?;
        let positive = |r: &Real| *r > 0.0 && *r <= 1e3;
        if self.ratios.is_empty()
            || !self.ratios.iter().all(positive)
            || !positive(&self.reverse_ratio)
            || !positive(&self.differential_ratio)
        {
            return Err(Error::OutOfRange(
                "gear ratios: at least one, each in (0, 1000]",
            ));
        }
        if self.shift_down_rpm >= self.shift_up_rpm {
            return Err(Error::OutOfRange(
                "gearbox: shift_down_rpm below shift_up_rpm",
            ));
        }
        Ok(())
    }
}

/// What a driver does, each within its range: `throttle` in [-1, 1] (negative: reverse, or a
/// brake while still rolling forward), `brake` and `handbrake` in [0, 1], `steering` in
/// [-1, 1] (positive: to the left, turning about the vehicle's up axis).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VehicleInput {
    /// The accelerator: forward when positive, reverse when negative.
    pub throttle: Real,
    /// The brake pedal.
    pub brake: Real,
    /// The handbrake.
    pub handbrake: Real,
    /// The steering wheel: positive turns left.
    pub steering: Real,
}

impl VehicleInput {
    pub(crate) fn check(&self) -> Result<(), Error> {
        crate::error::finite(
            "vehicle input",
            &[self.throttle, self.brake, self.handbrake, self.steering],
        )?;
        let within = |x: Real, lo: Real| (lo..=1.0).contains(&x);
        if within(self.throttle, -1.0)
            && within(self.brake, 0.0)
            && within(self.handbrake, 0.0)
            && within(self.steering, -1.0)
        {
            Ok(())
        } else {
            Err(Error::OutOfRange(
                "vehicle input: throttle and steering in [-1, 1], brakes in [0, 1]",
            ))
        }
    }
}

/// An anti-roll bar: a torsion spring between the two wheels of an axle. When one wheel's
/// suspension is shorter than the other's (the body rolls towards it), it pushes that side up
/// and pulls the other down, by `stiffness` times the difference in length (N) along each
/// suspension (Jolt's model). It stiffens the body's roll and leaves its bounce, which moves
/// both wheels alike, as it is.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AntiRollBar {
    /// The left wheel's index.
    pub left: usize,
    /// The right wheel's index.
    pub right: usize,
    /// The bar's stiffness (N/m of difference in suspension length).
    pub stiffness: Real,
}

/// A differential: the engine drives its two wheels with equal torques (an open
/// differential: a wheel on ice spins, the other gets no more torque than it), or, with a
/// `limited_slip_torque`, locks their spins together up to that torque (N m), so that the wheel
/// with grip gets the rest.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Differential {
    /// The left wheel's index.
    pub left: usize,
    /// The right wheel's index.
    pub right: usize,
    /// The most torque (N m) the limited slip passes from one wheel to the other; 0: open.
    pub limited_slip_torque: Real,
}

/// A vehicle to add to a world ([`crate::World::add_vehicle`]).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VehicleBuilder {
    /// The dynamic body the wheels hold up.
    pub chassis: BodyHandle,
    /// The chassis's forward direction (its frame).
    pub forward: Vector<Real>,
    /// The chassis's up direction (its frame).
    pub up: Vector<Real>,
    /// The wheels.
    pub wheels: Vec<WheelSettings>,
    /// The engine.
    pub engine: Engine,
    /// The gearbox.
    pub gearbox: Gearbox,
    /// The anti-roll bars.
    pub anti_roll_bars: Vec<AntiRollBar>,
    /// The differentials: the engine drives their wheels.
    pub differentials: Vec<Differential>,
}

impl VehicleBuilder {
    /// A vehicle on `chassis` (forward +x, up +y) without wheels yet.
    pub fn new(chassis: BodyHandle) -> VehicleBuilder {
        VehicleBuilder {
            chassis,
            forward: Vector::x(),
            up: Vector::y(),
            wheels: Vec::new(),
            engine: Engine::default(),
            gearbox: Gearbox::default(),
            anti_roll_bars: Vec::new(),
            differentials: Vec::new(),
        }
    }

    /// A car on `chassis` (forward +x, up +y): four wheels of radius 0.35 m mounted at
    /// (±1.4, -0.1, ±0.8) in the chassis's frame (a 2.8 m wheelbase; a chassis 0.6 m tall
    /// centred on its frame rides with its floor a little above the wheels' centres), the
    /// front ones steered up to 30°, the rear ones driven through an open differential and
    /// with a 4,000 N m handbrake, an anti-roll bar of 10,000 N/m on each axle.
    pub fn car(chassis: BodyHandle) -> VehicleBuilder {
        let mut builder = VehicleBuilder::new(chassis);
        for (x, z) in [(1.4, 0.8), (1.4, -0.8), (-1.4, 0.8), (-1.4, -0.8)] {
            let mut wheel = WheelSettings::new(Point::new(x, -0.1, z), 0.35);
            if x > 0.0 {
                wheel.max_steer = 30.0_f32.to_radians();
            } else {
                wheel.handbrake_torque = 4000.0;
            }
            builder.wheels.push(wheel);
        }
        // Wheels 1 and 3 are on the left (-z: up x forward).
        builder.anti_roll_bars = [(1, 0), (3, 2)]
            .map(|(left, right)| AntiRollBar {
                left,
                right,
                stiffness: 10_000.0,
            })
            .to_vec();
        builder.differentials = vec![Differential {
            left: 3,
            right: 2,
            limited_slip_torque: 0.0,
        }];
        builder
    }

    /// Adds a wheel.
    pub fn wheel(mut self, wheel: WheelSettings) -> VehicleBuilder {
        self.wheels.push(wheel);
        self
    }

    pub(crate) fn check(&self) -> Result<(), Error> {
        limits::axis("vehicle forward", &self.forward)?;
        limits::axis("vehicle up", &self.up)?;
        let (f, u) = (self.forward.normalize(), self.up.normalize());
        if f.dot(&u).abs() > 1e-3 {
            return Err(Error::OutOfRange("vehicle: forward and up perpendicular"));
        }
        if self.wheels.is_empty() || self.wheels.len() > MAX_WHEELS {
            return Err(Error::OutOfRange("vehicle: 1 to 64 wheels"));
        }
        for wheel in &self.wheels {
            wheel.check()?;
        }
        let pair = |l: usize, r: usize| l < self.wheels.len() && r < self.wheels.len() && l != r;
        for d in &self.differentials {
            if !pair(d.left, d.right) {
                return Err(Error::OutOfRange(
                    "differential: two of the vehicle's wheels",
                ));
            }
            crate::error::finite("limited slip torque", &[d.limited_slip_torque])?;
            if d.limited_slip_torque < 0.0 {
                return Err(Error::Negative("limited slip torque"));
            }
            let torque = [d.limited_slip_torque];
            limits::bounded("limited slip torque", &torque, limits::MAX_FORCE, "torque")?;
        }
        // A wheel on two differentials would be driven twice.
        let mut driven = [false; MAX_WHEELS];
        for wheel in self.differentials.iter().flat_map(|d| [d.left, d.right]) {
            if std::mem::replace(&mut driven[wheel.min(MAX_WHEELS - 1)], true) {
                return Err(Error::OutOfRange(
                    "differentials: each wheel on one at most",
                ));
            }
        }
        for bar in &self.anti_roll_bars {
            if !pair(bar.left, bar.right) {
                return Err(Error::OutOfRange(
                    "anti-roll bar: two of the vehicle's wheels",
                ));
            }
            crate::error::finite("anti-roll bar stiffness", &[bar.stiffness])?;
            if bar.stiffness < 0.0 {
                return Err(Error::Negative("anti-roll bar stiffness"));
            }
            limits::bounded(
                "anti-roll bar",
                &[bar.stiffness],
                1e15,
                "anti-roll bar stiffness",
            )?;
        }
        self.engine.check()?;
        self.gearbox.check()
    }
}

/// The most wheels a vehicle may have.
pub const MAX_WHEELS: usize = 64;

/// Where a wheel touches the ground.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WheelContact {
    /// The point (world).
    pub point: Point<Real>,
    /// The ground's normal there (world, unit).
    pub normal: Vector<Real>,
    /// The collider under the wheel.
    pub collider: ColliderHandle,
    /// Its body (pushed back by the wheel).
    pub body: BodyHandle,
}

/// What a wheel did in the last step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WheelState {
    /// Where it touches the ground, if it does.
    pub contact: Option<WheelContact>,
    /// The suspension's length as the step began (m): the mount to the wheel's centre.
    pub suspension_length: Real,
    /// The force the suspension pushed the chassis up with (N): the wheel's load.
    pub load: Real,
    /// The tyre's force on the chassis along the wheel's heading (N).
    pub longitudinal_force: Real,
    /// The tyre's force on the chassis across the wheel's heading, to its left (N).
    pub lateral_force: Real,
    /// The tyre's friction coefficient in the step (its slip curve times the ground's).
    pub friction: Real,
    /// The slip the step began with (see [`Tyre`]).
    pub slip: Real,
    /// The wheel's angular velocity about its axle (rad/s, positive rolling forward).
    pub spin: Real,
    /// The wheel's turn about its axle (rad, for drawing it).
    pub rotation: Real,
    /// The steering angle (rad, positive to the left).
    pub steer: Real,
    /// The torque its differential drove it with (N m, positive forward).
    pub drive_torque: Real,
    /// The brake torque it was held with at most (N m).
    pub brake_torque: Real,
    /// The impulses to carry to the next step.
    pub(crate) impulses: [Real; 5],
}

/// One wheel: its settings and what it did.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Wheel {
    /// How it is built.
    pub settings: WheelSettings,
    /// What it did in the last step.
    pub state: WheelState,
}

/// A vehicle in a world: its settings, its driver's input, its engine and its wheels.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Vehicle {
    pub(crate) chassis: BodyHandle,
    pub(crate) forward: Vector<Real>,
    pub(crate) up: Vector<Real>,
    pub(crate) wheels: Vec<Wheel>,
    pub(crate) engine: Engine,
    pub(crate) gearbox: Gearbox,
    pub(crate) anti_roll_bars: Vec<AntiRollBar>,
    pub(crate) differentials: Vec<Differential>,
    /// Each differential's impulses to carry to the next step.
    pub(crate) differential_impulses: Vec<[Real; 2]>,
    /// The differentials' carrier's spin (rad/s): the engine's over the overall ratio.
    pub(crate) carrier: Real,
    /// Whether the clutch was in at the last step (the carrier turning with the engine).
    pub(crate) carrier_engaged: bool,
    pub(crate) input: VehicleInput,
    /// The gear engaged: 1 is first, -1 reverse, 0 neutral.
    pub(crate) gear: i32,
    /// The engine's speed (rpm).
    pub(crate) rpm: Real,
    /// Time since the last shift (s).
    pub(crate) since_shift: Real,
}

impl Vehicle {
    pub(crate) fn new(builder: VehicleBuilder) -> Vehicle {
        let idle = builder.engine.idle_rpm;
        Vehicle {
            chassis: builder.chassis,
            forward: builder.forward.normalize(),
            up: builder.up.normalize(),
            wheels: builder
                .wheels
                .into_iter()
                .map(|settings| Wheel {
                    settings: WheelSettings {
                        direction: settings.direction.normalize(),
                        ..settings
                    },
                    state: WheelState {
                        suspension_length: settings.max_length,
                        ..WheelState::default()
                    },
                })
                .collect(),
            engine: builder.engine,
            gearbox: builder.gearbox,
            anti_roll_bars: builder.anti_roll_bars,
            differential_impulses: vec![[0.0; 2]; builder.differentials.len()],
            differentials: builder.differentials,
            carrier: 0.0,
            carrier_engaged: false,
            input: VehicleInput::default(),
            gear: 1,
            rpm: idle,
            since_shift: 0.0,
        }
    }

    /// Whether a vehicle read back from a snapshot is one [`crate::World::add_vehicle`] and
    /// the steps could have made.
    #[cfg(feature = "serde")]
    pub(crate) fn check(&self) -> Result<(), Error> {
        let builder = VehicleBuilder {
            chassis: self.chassis,
            forward: self.forward,
            up: self.up,
            wheels: self.wheels.iter().map(|w| w.settings).collect(),
            engine: self.engine.clone(),
            gearbox: self.gearbox.clone(),
            anti_roll_bars: self.anti_roll_bars.clone(),
            differentials: self.differentials.clone(),
        };
        builder.check()?;
        self.input.check()?;
        let gears = self.gearbox.ratios.len() as i32;
        if !(-1..=gears).contains(&self.gear) {
            return Err(Error::OutOfRange("vehicle gear"));
        }
        crate::error::finite("vehicle state", &[self.rpm, self.since_shift, self.carrier])?;
        if self.differential_impulses.len() != self.differentials.len() {
            return Err(Error::OutOfRange("differentials' impulses"));
        }
        for impulses in &self.differential_impulses {
            crate::error::finite("differential impulses", impulses)?;
        }
        for wheel in &self.wheels {
            let s = &wheel.state;
            let values = [
                s.suspension_length,
                s.load,
                s.longitudinal_force,
                s.lateral_force,
                s.friction,
                s.slip,
                s.spin,
                s.rotation,
                s.steer,
                s.drive_torque,
                s.brake_torque,
            ];
            crate::error::finite("wheel state", &values)?;
            crate::error::finite("wheel impulses", &s.impulses)?;
            let contact = s.contact.map(|c| [c.point.coords, c.normal]);
            for v in contact.iter().flatten() {
                limits::position("wheel contact", v)?;
            }
        }
        Ok(())
    }

    /// The chassis.
    pub fn chassis(&self) -> BodyHandle {
        self.chassis
    }

    /// The wheels, as added.
    pub fn wheels(&self) -> &[Wheel] {
        &self.wheels
    }

    /// The driver's input now.
    pub fn input(&self) -> VehicleInput {
        self.input
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The gearbox.
    pub fn gearbox(&self) -> &Gearbox {
        &self.gearbox
    }

    /// The differentials.
    pub fn differentials(&self) -> &[Differential] {
        &self.differentials
    }

    /// The anti-roll bars.
    pub fn anti_roll_bars(&self) -> &[AntiRollBar] {
        &self.anti_roll_bars
    }

    /// The gear engaged: 1 is first, -1 reverse.
    pub fn gear(&self) -> i32 {
        self.gear
    }

    /// The engine's speed (rpm).
    pub fn rpm(&self) -> Real {
        self.rpm
    }

    /// The chassis's forward and up directions (its frame, unit).
    pub fn axes(&self) -> (Vector<Real>, Vector<Real>) {
        (self.forward, self.up)
    }

    /// Where wheel `wheel` is in the chassis's frame: at its suspension's length along its
    /// direction from the mount, steered, and turned about its axle (the chassis's left) by
    /// its rotation; for drawing it as a child of the chassis. In the world:
    /// [`crate::World::wheel_pose`].
    pub fn wheel_pose(&self, wheel: usize) -> Option<Isometry<Real>> {
        let w = self.wheels.get(wheel)?;
        let (forward, up) = (self.forward, self.up);
        let left = up.cross(&forward);
        let centre = w.settings.mount + w.settings.direction * w.state.suspension_length;
        let steer = Rotation::from_scaled_axis(up * w.state.steer);
        // Rolling forward turns the wheel about its axle (left) from up towards forward.
        let roll = Rotation::from_scaled_axis(left * w.state.rotation);
        Some(Isometry::from_parts(
            Translation::from(centre.coords),
            steer * roll,
        ))
    }
}

/// Each wheel's steering angle for `steering` (rad, positive left), `forward` and `up` being
/// the chassis's axes in its frame: the steered wheels' headings are tangent to circles about
/// one point on the line through the unsteered wheels' mean position (Ackermann's geometry),
/// the point about which a wheel midway between the left and right ones would turn by
/// `steering` times its largest angle.
pub(crate) fn steer_angles(
    wheels: &[Wheel],
    (forward, up): (&Vector<Real>, &Vector<Real>),
    steering: Real,
    out: &mut [Real],
) {
    let side = up.cross(forward);
    let fixed = wheels.iter().filter(|w| w.settings.max_steer == 0.0);
    let (sum, count) = fixed.fold((0.0, 0), |(sum, n), w| {
        (sum + w.settings.mount.coords.dot(forward), n + 1)
    });
    let rear = if count > 0 { sum / count as Real } else { 0.0 };
    for (out, wheel) in out.iter_mut().zip(wheels) {
        let w = &wheel.settings;
        let centre = steering * w.max_steer;
        let along = w.mount.coords.dot(forward) - rear;
        *out = if w.max_steer == 0.0 || centre == 0.0 {
            0.0
        } else if along.abs() < 1e-6 {
            centre
        } else {
            // The turning point's distance to the left of the centre line, and this wheel's
            // angle to it.
            let radius = along / centre.tan();
            let across = w.mount.coords.dot(&side);
            (along / (radius - across)).atan()
        };
    }
}

//! Wheeled vehicles against closed forms (issue 45's tests 1 to 4), as a driver drives them:
//! a 4 x 1.6 x 0.6 m chassis of 1,500 kg, its centre of mass at its centre, on four wheels of
//! radius 0.35 m at (±1.4, ±0.8) (wheelbase 2.8 m), ground friction 1, dt = 1/60 s. Every
//! check is held at every step where the test says so.

use sprung::math::{Real, Vector};
use sprung::vehicle::{Tyre, VehicleBuilder, VehicleHandle, VehicleInput};
use sprung::{BodyHandle, ColliderBuilder, RigidBodyBuilder, SleepSettings, Spring, World};
use std::f32::consts::PI;

const DT: Real = 1.0 / 60.0;
const MASS: Real = 1500.0;
const G: Real = 9.81;
/// The chassis centre's height over the ground with the suspension at its rest length: the
/// mount 0.1 m under the centre, 0.4 m of suspension, 0.35 m of wheel.
const REST_HEIGHT: Real = 0.85;

struct Car {
    world: World,
    chassis: BodyHandle,
    car: VehicleHandle,
}

/// A car on flat ground (or a slope of `slope` rad rising along +x, the car on it pointing
/// up it), its chassis centre `height` over the ground along the ground's normal, with
/// `spring` in every suspension.
fn car(spring: Spring, height: Real, slope: Real) -> Car {
    car_with(height, slope, |builder| {
        for wheel in &mut builder.wheels {
            wheel.spring = spring;
        }
    })
}

/// The same car, its builder changed by `edit`.
fn car_with(height: Real, slope: Real, edit: impl FnOnce(&mut VehicleBuilder)) -> Car {
    let mut world = World::default();
    let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let normal = Vector::new(-slope.sin(), slope.cos(), 0.0);
    let floor = ColliderBuilder::halfspace(normal).friction(1.0);
    world.add_collider(floor, ground).unwrap();
    let body = RigidBodyBuilder::dynamic()
        .translation(normal * height)
        .rotation(Vector::z() * slope);
    let (chassis, car) = add_car(&mut world, body, edit);
    Car {
        world,
        chassis,
        car,
    }
}

/// A chassis (a 4 x 0.6 x 1.6 m box of 1,500 kg) of `body` in `world`, on the wheels of
/// [`VehicleBuilder::car`] changed by `edit`.
fn add_car(
    world: &mut World,
    body: RigidBodyBuilder,
    edit: impl FnOnce(&mut VehicleBuilder),
) -> (BodyHandle, VehicleHandle) {
    let chassis = world.add_body(body).unwrap();
    let shape = ColliderBuilder::cuboid(2.0, 0.3, 0.8).density(MASS / 3.84);
    world.add_collider(shape, chassis).unwrap();
    let mut builder = VehicleBuilder::car(chassis);
    edit(&mut builder);
    (chassis, world.add_vehicle(builder).unwrap())
}

/// Parks `car` with its handbrake.
fn park(world: &mut World, car: VehicleHandle) {
    let hold = VehicleInput {
        handbrake: 1.0,
        ..VehicleInput::default()
    };
    world.set_vehicle_input(car, hold).unwrap();
}

/// The default car (1.5 Hz, damping ratio 0.5) placed at its resting height on flat ground.
fn resting_car() -> Car {
    let sag = G / (2.0 * PI * 1.5).powi(2);
    car(frequency(1.5, 0.5), REST_HEIGHT - sag, 0.0)
}

/// The default car at its resting height on a slope of `slope` rad, and the input that holds
/// it there: the handbrake.
fn parked(slope: Real) -> (Car, VehicleInput) {
    let sag = G * slope.cos() / (2.0 * PI * 1.5).powi(2);
    let hold = VehicleInput {
        handbrake: 1.0,
        ..VehicleInput::default()
    };
    (car(frequency(1.5, 0.5), REST_HEIGHT - sag, slope), hold)
}

fn frequency(hertz: Real, damping_ratio: Real) -> Spring {
    Spring::Frequency {
        hertz,
        damping_ratio,
    }
}

impl Car {
    fn step(&mut self, input: VehicleInput) {
        self.world.set_vehicle_input(self.car, input).unwrap();
        self.world.step(DT).unwrap();
    }

    fn height(&self) -> Real {
        self.world.body(self.chassis).unwrap().translation().y
    }

    fn loads(&self) -> Real {
        let vehicle = self.world.vehicle(self.car).unwrap();
        vehicle.wheels().iter().map(|w| w.state.load).sum()
    }

    fn velocity(&self) -> Vector<Real> {
        self.world.body(self.chassis).unwrap().linear_velocity()
    }

    fn angular_velocity(&self) -> Vector<Real> {
        self.world.body(self.chassis).unwrap().angular_velocity()
    }
}

/// Test 1: the sag of a 1.5 Hz suspension is g / (2 pi 1.5)^2 = 0.110 m within 2%, that of a
/// stiffness k per wheel m g / 4k, and the wheels' loads sum to m g within 1%.
#[test]
fn the_chassis_sags_by_its_springs_closed_form() {
    let omega = 2.0 * PI * 1.5;
    let cases = [
        (frequency(1.5, 0.5), G / (omega * omega)),
        (
            Spring::Stiffness {
                stiffness: 30_000.0,
                damping: 6_000.0,
            },
            MASS * G / (4.0 * 30_000.0),
        ),
    ];
    for (spring, sag) in cases {
        let mut car = car(spring, REST_HEIGHT, 0.0);
        for _ in 0..600 {
            car.step(VehicleInput::default());
        }
        let measured = REST_HEIGHT - car.height();
        assert!(
            (measured - sag).abs() < 0.02 * sag,
            "sag {measured} m, closed form {sag} m"
        );
        let loads = car.loads();
        assert!(
            (loads - MASS * G).abs() < 0.01 * MASS * G,
            "loads {loads} N, weight {} N",
            MASS * G
        );
        // Closer than the issue asks: a chassis settling on its springs does not fall asleep
        // mid-swing (it did, 0.4% off its rest, when only the bodies' sleep threshold held it).
        assert!(
            (measured - sag).abs() < 0.002 * sag,
            "sag {measured} m, {sag} m"
        );
        assert!(
            (loads - MASS * G).abs() < 0.001 * MASS * G,
            "loads {loads} N"
        );
    }
}

/// Test 1 on a 10° slope, held by the handbrake: the loads sum to m g cos 10° within 1%.
#[test]
fn on_a_slope_the_loads_carry_the_weight_across_it() {
    let slope = 10.0_f32.to_radians();
    let (mut car, hold) = parked(slope);
    for _ in 0..600 {
        car.step(hold);
    }
    let (loads, weight) = (car.loads(), MASS * G * slope.cos());
    assert!(
        (loads - weight).abs() < 0.01 * weight,
        "loads {loads} N, m g cos 10° {weight} N"
    );
}

/// The times `signal` crosses zero going up, interpolated between samples `DT` apart.
fn upward_crossings(signal: &[Real]) -> Vec<Real> {
    let pairs = signal.windows(2).enumerate();
    let up = pairs.filter(|(_, w)| w[0] < 0.0 && w[1] >= 0.0);
    up.map(|(i, w)| (i as Real + w[0] / (w[0] - w[1])) * DT)
        .collect()
}

/// Test 2: dropped 5 cm from its resting height with damping ratio 0.2, the chassis rises
/// and falls at f sqrt(1 - zeta^2) within 2%, and its swings shrink by the logarithmic
/// decrement 2 pi zeta / sqrt(1 - zeta^2) within 5%.
#[test]
fn dropped_it_bounces_at_the_damped_frequency_and_decrement() {
    let (f, zeta) = (1.5, 0.2);
    let sag = G / (2.0 * PI * f).powi(2);
    let rest = REST_HEIGHT - sag;
    let mut car = car(frequency(f, zeta), rest + 0.05, 0.0);
    // Awake throughout: swings of a few millimetres are slow enough to sleep on.
    let awake = SleepSettings {
        enabled: false,
        ..SleepSettings::default()
    };
    car.world.set_sleep_settings(awake).unwrap();
    let mut heights = Vec::new();
    for _ in 0..600 {
        car.step(VehicleInput::default());
        heights.push(car.height());
    }
    // About the height it comes to rest at (the sag's own test holds that to its closed form):
    // the swings are measured after it.
    let settled = heights[heights.len() - 1];
    assert!((settled - rest).abs() < 0.02 * sag, "{settled} {rest}");
    let signal: Vec<Real> = heights[..300].iter().map(|y| y - settled).collect();
    let crossings = upward_crossings(&signal);
    assert!(crossings.len() >= 4, "{crossings:?}");
    let periods = crossings.len() - 1;
    let measured = periods as Real / (crossings[periods] - crossings[0]);
    let damped = f * (1.0 - zeta * zeta).sqrt();
    assert!(
        (measured - damped).abs() < 0.02 * damped,
        "{measured} Hz, closed form {damped} Hz"
    );
    // Successive maxima, one period apart.
    let peaks: Vec<Real> = signal
        .windows(3)
        .filter(|w| w[1] > w[0] && w[1] >= w[2] && w[1] > 0.0)
        .map(|w| w[1])
        .collect();
    assert!(peaks.len() >= 2, "{peaks:?}");
    let decrement = (peaks[0] / peaks[1]).ln();
    let expected = 2.0 * PI * zeta / (1.0 - zeta * zeta).sqrt();
    assert!(
        (decrement - expected).abs() < 0.05 * expected,
        "decrement {decrement}, closed form {expected}"
    );
}

/// Test 2: a 20 Hz suspension at dt = 1/60 s is stable: dropped 5 cm, it comes to rest at
/// its (0.6 mm) sag without leaving the ground or gaining energy.
#[test]
fn a_stiff_suspension_is_stable_at_a_long_step() {
    let sag = G / (2.0 * PI * 20.0).powi(2);
    let rest = REST_HEIGHT - sag;
    let mut car = car(frequency(20.0, 0.2), rest + 0.05, 0.0);
    for step in 0..600 {
        car.step(VehicleInput::default());
        let (y, v) = (car.height(), car.velocity().norm());
        assert!(y.is_finite() && (y - rest).abs() < 0.06, "step {step}: {y}");
        assert!(v < 2.0, "step {step}: {v} m/s");
    }
    assert!((car.height() - rest).abs() < 0.002, "{}", car.height());
}

/// Test 3: damping ratio 0.5, placed at its resting height on flat ground: after 2 s it
/// moves less than 1e-3 m/s and turns less than 1e-3 rad/s for 10 s, then falls asleep.
#[test]
fn at_rest_it_rests_then_sleeps() {
    let mut car = resting_car();
    for step in 0..720 {
        car.step(VehicleInput::default());
        if step >= 120 {
            let (v, w) = (car.velocity().norm(), car.angular_velocity().norm());
            assert!(v < 1e-3 && w < 1e-3, "step {step}: {v} m/s, {w} rad/s");
        }
    }
    let asleep = (0..300).any(|_| {
        car.step(VehicleInput::default());
        car.world.body(car.chassis).unwrap().is_sleeping()
    });
    assert!(asleep, "still awake after 17 s");
    // Input wakes it.
    car.step(VehicleInput {
        throttle: 0.5,
        ..VehicleInput::default()
    });
    assert!(!car.world.body(car.chassis).unwrap().is_sleeping());
}

/// Test 3: on a 10° slope with the handbrake, less than 1 cm of drift in 10 s (after the
/// first second, in which it settles on its springs).
#[test]
fn the_handbrake_holds_it_on_a_slope() {
    let slope = 10.0_f32.to_radians();
    let (mut car, hold) = parked(slope);
    for _ in 0..60 {
        car.step(hold);
    }
    let start = car.world.body(car.chassis).unwrap().translation();
    for step in 0..600 {
        car.step(hold);
        let at = car.world.body(car.chassis).unwrap().translation();
        let drift = (at - start).norm();
        assert!(drift < 0.01, "step {step}: drifted {drift} m");
    }
}

/// Test 3: braking to a standstill, its velocity along its heading never goes below -1e-3
/// m/s once it first falls under 1e-3 m/s (no rolling back). The velocity is the chassis's at
/// the road under its centre: its centre, 0.74 m up, sways back as the nose rises when the
/// car stops (by the height times the pitch rate, as any car's does), which is not the car
/// rolling.
#[test]
fn braking_to_a_standstill_does_not_rock_back() {
    let mut car = resting_car();
    let throttle = VehicleInput {
        throttle: 1.0,
        ..VehicleInput::default()
    };
    for _ in 0..90 {
        car.step(throttle);
    }
    assert!(car.velocity().x > 3.0, "{}", car.velocity().x);
    let brake = VehicleInput {
        brake: 1.0,
        ..VehicleInput::default()
    };
    let mut stopped = false;
    for step in 0..600 {
        car.step(brake);
        let body = car.world.body(car.chassis).unwrap();
        let under = Vector::new(0.0, -body.translation().y, 0.0);
        let v = (body.linear_velocity() + body.angular_velocity().cross(&under)).x;
        if stopped {
            assert!(v >= -1e-3, "step {step}: {v} m/s");
        }
        stopped |= v < 1e-3;
    }
    assert!(stopped);
}

/// Test 4: one second of full throttle from rest drives it more than 1 m along its heading
/// and less than 2 cm sideways.
#[test]
fn full_throttle_drives_it_straight() {
    let mut car = resting_car();
    let throttle = VehicleInput {
        throttle: 1.0,
        ..VehicleInput::default()
    };
    for step in 0..60 {
        car.step(throttle);
        let z = car.world.body(car.chassis).unwrap().translation().z;
        assert!(z.abs() < 0.02, "step {step}: {z} m sideways");
    }
    let x = car.world.body(car.chassis).unwrap().translation().x;
    assert!(x > 1.0, "{x} m");
}

/// Test 4: braking from 20 m/s with the brakes just short of locking (anti-lock: each brake
/// holds its wheel with at most what its tyre passes to the ground) stops it between
/// v^2 / (2 mu_peak g) and v^2 / (2 mu_slide g) + 5%, no wheel ever sliding past the peak of
/// its slip curve. Without anti-lock, the same brakes (1,500 N m, more than a tyre holds before
/// the load has shifted forward) lock wheels.
#[test]
fn braking_from_speed_stops_within_the_tyres_friction() {
    let tyre = Tyre::default();
    let peak_slip = tyre.peak_slip;
    for anti_lock in [true, false] {
        let sag = G / (2.0 * PI * 1.5).powi(2);
        let mut car = car_with(REST_HEIGHT - sag, 0.0, |builder| {
            for wheel in &mut builder.wheels {
                wheel.anti_lock = anti_lock;
            }
        });
        // Up to 20 m/s on the throttle.
        let throttle = VehicleInput {
            throttle: 1.0,
            ..VehicleInput::default()
        };
        for _ in 0..1200 {
            if car.velocity().x >= 20.0 {
                break;
            }
            car.step(throttle);
        }
        let v0 = car.velocity().x;
        assert!(v0 >= 20.0, "{v0}");
        let x0 = car.world.body(car.chassis).unwrap().translation().x;
        let brake = VehicleInput {
            brake: 1.0,
            ..VehicleInput::default()
        };
        let mut most: Real = 0.0;
        for _ in 0..600 {
            car.step(brake);
            let wheels = car.world.vehicle(car.car).unwrap().wheels();
            most = wheels.iter().map(|w| w.state.slip).fold(most, Real::max);
            if car.velocity().x < 1e-3 {
                break;
            }
        }
        let distance = car.world.body(car.chassis).unwrap().translation().x - x0;
        let (peak, slide) = (
            v0 * v0 / (2.0 * tyre.grip * G),
            v0 * v0 / (2.0 * tyre.slide * G),
        );
        if anti_lock {
            assert!(
                distance > peak && distance < 1.05 * slide,
                "stopped in {distance} m; v^2 / 2 mu g: {peak} m at the peak, {slide} m sliding"
            );
            assert!(most <= peak_slip, "a wheel slid: slip {most}");
        } else {
            assert!(most >= 0.99, "no wheel locked: slip {most}");
        }
    }
}

/// Test 4: a fixed steering angle of 5° at 10 m/s turns it the way it is steered at a yaw
/// rate within 10% of v / R, R = wheelbase / tan 5° = 32 m.
#[test]
fn steering_turns_it_at_the_kinematic_yaw_rate() {
    let mut car = resting_car();
    car.world
        .set_linear_velocity(car.chassis, Vector::new(10.0, 0.0, 0.0))
        .unwrap();
    // The front wheels turn up to 30°: a sixth of full lock is 5° at the axle's middle.
    let steer = VehicleInput {
        steering: 1.0 / 6.0,
        ..VehicleInput::default()
    };
    let radius = 2.8 / 5.0_f32.to_radians().tan();
    for step in 0..180 {
        car.step(steer);
        if step >= 60 {
            let (v, w) = (car.velocity().norm(), car.angular_velocity().y);
            let expected = v / radius;
            assert!(
                (w - expected).abs() < 0.1 * expected,
                "step {step}: yaw rate {w} rad/s, v / R {expected}"
            );
        }
    }
}

/// Bad vehicles and inputs are typed errors that change nothing; a removed chassis takes its
/// vehicle with it.
#[test]
fn bad_vehicles_and_inputs_are_refused() {
    use sprung::vehicle::{Engine, WheelSettings};
    use sprung::Error;
    let mut car = car(frequency(1.5, 0.5), REST_HEIGHT, 0.0);
    let chassis = car.chassis;
    let mut nan_wheel = VehicleBuilder::car(chassis);
    nan_wheel.wheels[1].radius = Real::NAN;
    let mut no_wheels = VehicleBuilder::car(chassis);
    no_wheels.wheels.clear();
    let mut bad_tyre = VehicleBuilder::car(chassis);
    bad_tyre.wheels[0].tyre.slide_slip = 0.0;
    let mut bad_engine = VehicleBuilder::car(chassis);
    bad_engine.engine = Engine {
        torque_curve: vec![(0.5, 1.0), (0.2, 1.0)],
        ..Engine::default()
    };
    let mut bad_axes = VehicleBuilder::car(chassis);
    bad_axes.up = bad_axes.forward;
    let mut bad_spring = VehicleBuilder::car(chassis);
    bad_spring.wheels[3].spring = frequency(-1.0, 0.5);
    let mut lengths = VehicleBuilder::car(chassis);
    lengths.wheels[2] = WheelSettings {
        min_length: 0.6,
        ..lengths.wheels[2]
    };
    let before = car.world.vehicles().count();
    for builder in [
        nan_wheel, no_wheels, bad_tyre, bad_engine, bad_axes, bad_spring, lengths,
    ] {
        assert!(car.world.add_vehicle(builder).is_err());
    }
    assert_eq!(car.world.vehicles().count(), before);
    // A fixed body cannot be a chassis.
    let fixed = car.world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let on_fixed = car.world.add_vehicle(VehicleBuilder::car(fixed));
    assert_eq!(on_fixed.unwrap_err(), Error::WrongBodyKind);
    for input in [
        VehicleInput {
            throttle: Real::NAN,
            ..VehicleInput::default()
        },
        VehicleInput {
            brake: -0.5,
            ..VehicleInput::default()
        },
        VehicleInput {
            steering: 1.5,
            ..VehicleInput::default()
        },
    ] {
        assert!(car.world.set_vehicle_input(car.car, input).is_err());
    }
    assert_eq!(
        car.world.vehicle(car.car).unwrap().input(),
        VehicleInput::default()
    );
    car.world.step(DT).unwrap();
    car.world.remove_body(chassis).unwrap();
    assert!(car.world.vehicle(car.car).is_none());
    assert_eq!(
        car.world
            .set_vehicle_input(car.car, VehicleInput::default()),
        Err(Error::StaleHandle)
    );
    car.world.step(DT).unwrap();
}

/// Drives a steady turn of radius 20 m at 10 m/s for 5 s (the throttle holding the speed)
/// and returns the body's mean roll (rad, outwards positive) over the last second; holds at
/// every step every wheel's tyre force (heading and side together) within its friction times
/// its load.
fn steady_turn(bars: bool) -> Real {
    let sag = G / (2.0 * PI * 1.5).powi(2);
    let mut car = car_with(REST_HEIGHT - sag, 0.0, |builder| {
        if !bars {
            builder.anti_roll_bars.clear();
        }
    });
    car.world
        .set_linear_velocity(car.chassis, Vector::new(10.0, 0.0, 0.0))
        .unwrap();
    let centre = (2.8_f32 / 20.0).atan();
    let mut roll = 0.0;
    for step in 0..300 {
        let v = car.velocity().norm();
        let input = VehicleInput {
            throttle: ((10.0 - v) * 2.0).clamp(0.0, 1.0),
            steering: centre / 30.0_f32.to_radians(),
            ..VehicleInput::default()
        };
        car.step(input);
        for (i, wheel) in car
            .world
            .vehicle(car.car)
            .unwrap()
            .wheels()
            .iter()
            .enumerate()
        {
            let s = wheel.state;
            let force = s.longitudinal_force.hypot(s.lateral_force);
            let limit = s.friction * s.load;
            assert!(
                force <= limit * 1.0001 + 1e-3,
                "step {step}, wheel {i}: {force} N past {limit} N"
            );
        }
        if step >= 240 {
            let pose = car.world.body(car.chassis).unwrap().pose();
            let (up, forward) = (pose.rotation * Vector::y(), pose.rotation * Vector::x());
            // The turn is to the left (+y about up): outwards is to the right.
            let right = forward.cross(&Vector::y()).normalize();
            roll += up.dot(&right).asin() / 60.0;
        }
    }
    let v = car.velocity().norm();
    assert!((v - 10.0).abs() < 0.5, "{v} m/s");
    roll
}

/// Test 5: in a steady 20 m turn at 10 m/s (friction 1) the body rolls outwards, less with
/// anti-roll bars than without (by the ratio of the roll stiffnesses within 10%), and no tyre
/// ever pushes past friction times its load.
#[test]
fn anti_roll_bars_reduce_the_roll_in_a_steady_turn() {
    let (with, without) = (steady_turn(true), steady_turn(false));
    assert!(without > 0.005, "rolled {without} rad without bars");
    // The roll falls as the roll stiffness rises: the springs' 4 k (0.8 m)^2 (k = m/4 (2 pi
    // 1.5 Hz)^2), the two bars' 2 x 10,000 N/m x (1.6 m)^2.
    let springs = 4.0 * MASS / 4.0 * (2.0 * PI * 1.5).powi(2) * 0.8 * 0.8;
    let expected = springs / (springs + 2.0 * 10_000.0 * 1.6 * 1.6);
    let ratio = with / without;
    assert!(
        (ratio - expected).abs() < 0.1 * expected,
        "{with} rad with bars, {without} without: {ratio}, stiffnesses give {expected}"
    );
}

/// Test 6: from rest on full throttle, the automatic gearbox shifts up, one gear at a time,
/// at the step whose engine speed (the carrier's spin times the gear's overall ratio, as the
/// step begins) first passes its shift speed (4,000 rpm), and never sooner than its shift time
/// after the last shift.
#[test]
fn the_gearbox_shifts_up_at_its_set_engine_speed() {
    let mut car = resting_car();
    let throttle = VehicleInput {
        throttle: 1.0,
        ..VehicleInput::default()
    };
    let gearbox = car.world.vehicle(car.car).unwrap().gearbox().clone();
    let overall = |gear: i32| gearbox.ratios[gear as usize - 1] * gearbox.differential_ratio;
    let (mut gear, mut rpm, mut last_shift) = (1, 0.0, 0);
    let mut shifts = 0;
    for step in 0..1200 {
        car.step(throttle);
        let vehicle = car.world.vehicle(car.car).unwrap();
        let (now, now_rpm) = (vehicle.gear(), vehicle.rpm());
        if now != gear {
            assert_eq!(now, gear + 1, "step {step}");
            // The same carrier's spin at the old ratio: where the engine stood as it shifted.
            let at = now_rpm * overall(gear) / overall(now);
            assert!(
                at > gearbox.shift_up_rpm && rpm <= gearbox.shift_up_rpm,
                "step {step}: shifted from {gear} at {at} rpm, {rpm} rpm the step before"
            );
            let waited = (step - last_shift) as Real * DT;
            assert!(
                waited >= gearbox.shift_time - 1e-4,
                "step {step}: {waited} s"
            );
            (last_shift, shifts) = (step, shifts + 1);
        }
        (gear, rpm) = (now, now_rpm);
    }
    assert!(shifts >= 3, "{shifts} shifts");
}

/// A car whose left rear wheel (driven, with the right rear, by a differential locking up to
/// `locking` N m) stands on a strip of ice, on full throttle for 3 s: how far it goes. Holds at
/// every step that the car's momentum is within what the differential can have given it: with
/// an open one, the wheel with grip gets the torque the wheel on ice takes, all of which went
/// into that wheel's spin, so `m v <= I_wheel spin_ice / radius`.
fn on_ice(locking: Real) -> Real {
    let mut car = car_with(REST_HEIGHT - G / (2.0 * PI * 1.5).powi(2), 0.0, |builder| {
        builder.differentials[0].limited_slip_torque = locking;
    });
    // The strip along the left rear wheel's path (-z is left), its top 1 mm over the road.
    let ice = car.world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let strip = ColliderBuilder::cuboid(4.0, 0.05, 0.3)
        .translation(Vector::new(0.0, -0.049, -0.8))
        .friction(0.0);
    car.world.add_collider(strip, ice).unwrap();
    let throttle = VehicleInput {
        throttle: 1.0,
        ..VehicleInput::default()
    };
    for step in 0..180 {
        car.step(throttle);
        if locking == 0.0 {
            let wheels = car.world.vehicle(car.car).unwrap().wheels();
            let (ice, grip) = (wheels[3].state, wheels[2].state);
            let given = wheels[3].settings.inertia * ice.spin.abs() / 0.35;
            let momentum = MASS * car.velocity().x;
            assert!(
                momentum <= given * 1.01 + 1.0,
                "step {step}: {momentum} N s, {given}"
            );
            let (a, b) = (ice.drive_torque, grip.drive_torque);
            assert!(
                (a - b).abs() <= 1e-3 * a.abs().max(1.0),
                "step {step}: {a} N m, {b} N m"
            );
        }
    }
    car.world.body(car.chassis).unwrap().translation().x
}

/// Test 6: with an open differential and one driven wheel on ice the car does not drive off:
/// the wheel on ice spins up and the other gets the same torque, which creeps the car by what
/// the spinning wheel's inertia hands it (the bound held every step in `on_ice`; measured 0.52
/// m in 3 s), less than a tenth of how far a limited-slip one drives it (9.9 m).
#[test]
fn an_open_differential_spins_the_wheel_on_ice_and_a_limited_slip_one_drives() {
    let (open, locked) = (on_ice(0.0), on_ice(2000.0));
    assert!(locked > 5.0, "limited slip: {locked} m");
    assert!(
        open.abs() < 0.1 * locked,
        "open: {open} m, limited slip {locked} m"
    );
}

/// The ground under a wheel is pushed back: a 400 kg platform held up by four spring rays
/// (50,000 N/m each, gravity not fed forward) sags under the car parked on it by the car's
/// weight too, `(m_platform + m_car) g / 4k`, within 2%.
#[test]
fn the_ground_under_the_wheels_carries_the_cars_weight() {
    use sprung::JointBuilder;
    let mut world = World::default();
    let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    world
        .add_collider(
            ColliderBuilder::halfspace(Vector::y()).friction(1.0),
            ground,
        )
        .unwrap();
    let platform = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 0.6, 0.0)))
        .unwrap();
    let slab = ColliderBuilder::cuboid(4.0, 0.1, 2.0)
        .density(400.0 / 6.4)
        .friction(1.0);
    world.add_collider(slab, platform).unwrap();
    let k = 50_000.0;
    let spring = Spring::Stiffness {
        stiffness: k,
        damping: 10_000.0,
    };
    for (x, z) in [(3.5, 1.5), (3.5, -1.5), (-3.5, 1.5), (-3.5, -1.5)] {
        let pad = sprung::math::Point::new(x, -0.1, z);
        let ray = JointBuilder::ray_spring(pad, -Vector::y(), 0.5, 1.0, spring);
        world.add_world_joint(ray, platform).unwrap();
    }
    let level = Spring::Frequency {
        hertz: 2.0,
        damping_ratio: 1.0,
    };
    let upright = JointBuilder::upright(Vector::y(), Vector::y(), level);
    world.add_world_joint(upright, platform).unwrap();
    // The car at its resting height on the platform's top (0.7 m, less the platform's sag).
    let body = RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 1.35, 0.0));
    let (_, car) = add_car(&mut world, body, |_| {});
    park(&mut world, car);
    for _ in 0..600 {
        world.step(DT).unwrap();
    }
    let on_platform = world
        .vehicle(car)
        .unwrap()
        .wheels()
        .iter()
        .all(|w| w.state.contact.map(|c| c.body) == Some(platform));
    assert!(on_platform);
    let sag = 0.6 - world.body(platform).unwrap().translation().y;
    let expected = (400.0 + MASS) * G / (4.0 * k);
    assert!(
        (sag - expected).abs() < 0.02 * expected,
        "the platform sags {sag} m, (m_p + m_car) g / 4k = {expected} m"
    );
}

/// The ground's velocity is the wheels' ground speed: a car parked (handbrake) on a kinematic
/// platform moving at 2 m/s along x rides it, its velocity the platform's within 1e-3 m/s at
/// every step after the first second.
#[test]
fn a_parked_car_rides_a_moving_platform() {
    let mut world = World::default();
    let platform = world
        .add_body(
            RigidBodyBuilder::kinematic()
                .translation(Vector::new(0.0, -0.1, 0.0))
                .linear_velocity(Vector::new(2.0, 0.0, 0.0)),
        )
        .unwrap();
    let slab = ColliderBuilder::cuboid(50.0, 0.1, 5.0).friction(1.0);
    world.add_collider(slab, platform).unwrap();
    let sag = G / (2.0 * PI * 1.5).powi(2);
    let at = Vector::new(0.0, REST_HEIGHT - sag, 0.0);
    let body = RigidBodyBuilder::dynamic()
        .translation(at)
        .linear_velocity(Vector::new(2.0, 0.0, 0.0));
    let (chassis, car) = add_car(&mut world, body, |_| {});
    park(&mut world, car);
    for step in 0..300 {
        world.step(DT).unwrap();
        if step >= 60 {
            let v = world.body(chassis).unwrap().linear_velocity();
            let off = (v - Vector::new(2.0, 0.0, 0.0)).norm();
            assert!(off < 1e-3, "step {step}: {v:?}");
        }
    }
}

/// The largest change of the front left wheel's suspension length from one step to the next
/// as the car, driven at 3 m/s, rolls up a 10 cm kerb, its wheels finding the ground by `cast`.
fn kerb(cast: sprung::vehicle::WheelCast) -> Real {
    let mut car = car_with(REST_HEIGHT - G / (2.0 * PI * 1.5).powi(2), 0.0, |builder| {
        for wheel in &mut builder.wheels {
            wheel.cast = cast;
        }
    });
    let kerb = car.world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let block = ColliderBuilder::cuboid(10.0, 0.05, 5.0)
        .translation(Vector::new(15.0, 0.05, 0.0))
        .friction(1.0);
    car.world.add_collider(block, kerb).unwrap();
    let (mut last, mut largest): (Option<Real>, Real) = (None, 0.0);
    for _ in 0..240 {
        let v = car.velocity().x;
        let input = VehicleInput {
            throttle: ((3.0 - v) * 0.5).clamp(0.0, 1.0),
            ..VehicleInput::default()
        };
        car.step(input);
        let wheel = car.world.vehicle(car.car).unwrap().wheels()[1].state;
        if let Some(last) = last {
            largest = Real::max(largest, (wheel.suspension_length - last).abs());
        }
        last = Some(wheel.suspension_length);
    }
    let x = car.world.body(car.chassis).unwrap().translation().x;
    assert!(x > 8.0, "{cast:?}: stopped at {x} m");
    largest
}

/// A wheel that finds the ground by a swept sphere meets a kerb with its front and rises onto
/// it over a stretch (measured: at most 2.8 cm a step); a ray meets it under the axle, at once
/// (the 10 cm in one step).
#[test]
fn a_swept_wheel_rolls_onto_a_kerb_a_ray_jumps_it() {
    use sprung::vehicle::WheelCast;
    let (ray, sphere) = (kerb(WheelCast::Ray), kerb(WheelCast::Sphere));
    assert!(ray > 0.08, "ray: {ray} m");
    assert!(sphere < 0.5 * ray, "sphere: {sphere} m, ray {ray} m");
}

//! The world's vehicles: adding and driving them, and the step's part of their work, each
//! wheel's cast and rows before the solve ([`World::build_wheels`]) and its spin and forces after
//! it ([`World::store_wheels`]). What a vehicle is: `crate::vehicle`.

use parry3d::math::{Isometry, Point, Real, Rotation, Vector};
use sprung_collision::shape::Shape;
use sprung_solver::body::STATIC;
use sprung_solver::joint::JointFrame;
use sprung_solver::step::StepContext;
use sprung_solver::vehicle::{DifferentialRows, DriveRows};
use sprung_solver::wheel::{WheelRows, WheelSetup};

use super::World;
use crate::body::{BodyKind, RigidBody};
use crate::error::Error;
use crate::vehicle::{
    steer_angles, Vehicle, VehicleBuilder, VehicleHandle, VehicleInput, Wheel, WheelCast,
    WheelContact, WheelSettings, MAX_WHEELS, SLIP_SPEED,
};

/// Below this spin (rad/s) a wheel does not keep its vehicle awake.
const RESTING_SPIN: Real = 0.05;
/// Above this speed (m/s, or rad/s) a chassis is still settling and does not fall asleep.
const RESTING_SPEED: Real = 1e-3;

impl World {
    /// Adds a vehicle on its builder's chassis, a dynamic body of this world.
    pub fn add_vehicle(&mut self, builder: VehicleBuilder) -> Result<VehicleHandle, Error> {
        let chassis = self.body(builder.chassis).ok_or(Error::StaleHandle)?;
        if chassis.kind() != BodyKind::Dynamic {
            return Err(Error::WrongBodyKind);
        }
        builder.check()?;
        let chassis = builder.chassis;
        let handle = self.vehicles.insert(Vehicle::new(builder));
        self.wake(chassis);
        Ok(handle)
    }

    /// Removes a vehicle (its chassis stays, a body like any other).
    pub fn remove_vehicle(&mut self, handle: VehicleHandle) -> Result<Vehicle, Error> {
        let vehicle = self.vehicles.remove(handle).ok_or(Error::StaleHandle)?;
        if self.body(vehicle.chassis).is_some() {
            self.wake(vehicle.chassis);
        }
        Ok(vehicle)
    }

    /// A vehicle: its wheels' state, gear and engine speed.
    pub fn vehicle(&self, handle: VehicleHandle) -> Option<&Vehicle> {
        self.vehicles.get(handle)
    }

    /// Every vehicle, in a deterministic order.
    pub fn vehicles(&self) -> impl Iterator<Item = (VehicleHandle, &Vehicle)> {
        self.vehicles
            .iter()
            .map(|(index, vehicle)| (self.vehicles.handle(index), vehicle))
    }

    /// Sets what the driver does from the next step on; a change wakes the vehicle.
    pub fn set_vehicle_input(
        &mut self,
        handle: VehicleHandle,
        input: VehicleInput,
    ) -> Result<(), Error> {
        input.check()?;
        let vehicle = self.vehicles.get_mut(handle).ok_or(Error::StaleHandle)?;
        if vehicle.input != input {
            vehicle.input = input;
            let chassis = vehicle.chassis;
            self.wake(chassis);
        }
        Ok(())
    }

    /// Where wheel `wheel` of a vehicle is (world): at its suspension's length along its
    /// direction from the mount, steered, and turned about its axle (the chassis's left) by
    /// its rotation; for drawing it.
    pub fn wheel_pose(&self, handle: VehicleHandle, wheel: usize) -> Option<Isometry<Real>> {
        let vehicle = self.vehicles.get(handle)?;
        let local = vehicle.wheel_pose(wheel)?;
        let chassis = self.body(vehicle.chassis)?;
        Some(chassis.pose() * local)
    }

    /// Keeps awake every vehicle whose driver asks for something or whose wheels still turn
    /// (a car must not fall asleep with its wheels spinning), and holds off the sleep of a
    /// chassis still settling on its springs.
    pub(super) fn wake_driven_vehicles(&mut self) {
        for slot in 0..self.vehicles.slots() {
            let Some(vehicle) = self.vehicles.live(slot) else {
                continue;
            };
            let input = vehicle.input;
            let turning = vehicle
                .wheels
                .iter()
                .any(|w| w.state.spin.abs() > RESTING_SPIN);
            let chassis = vehicle.chassis;
            let driven = input.throttle != 0.0 || turning || vehicle.carrier.abs() > RESTING_SPIN;
            let body = self.bodies.at_mut(chassis.index);
            if body.is_sleeping() {
                if driven {
                    self.wake(chassis);
                }
                continue;
            }
            // Still settling on its springs (a car bouncing a few millimetres moves slower than
            // the bodies' sleep threshold, and would fall asleep mid-swing, off its rest), or
            // creeping under the throttle (asleep, it would stop, and wake, and stop): not
            // slow yet.
            let settling = body.linear_velocity().norm() > RESTING_SPEED
                || body.angular_velocity().norm() > RESTING_SPEED;
            if driven || settling {
                body.slow_time = 0.0;
            }
        }
    }

    /// Casts each awake vehicle's wheels, runs its drive train, and gives the solver its rows:
    /// each wheel's (on the ground or not) and its differentials'.
    pub(super) fn build_wheels(&mut self, step: &StepContext) {
        self.solver.vehicles.clear();
        if self.vehicles.is_empty() {
            return;
        }
        for slot in 0..self.vehicles.slots() {
            let Some(vehicle) = self.vehicles.live_mut(slot) else {
                continue;
            };
            // The wheels are taken out (no allocation) so that the casts may borrow the world.
            let mut wheels = std::mem::take(&mut vehicle.wheels);
            let chassis = self.bodies.at(vehicle.chassis.index);
            if chassis.solver_index != STATIC {
                self.drive(slot, &mut wheels, step);
            }
            if let Some(vehicle) = self.vehicles.live_mut(slot) {
                vehicle.wheels = wheels;
            }
        }
    }

    /// One awake vehicle's step before the solve.
    fn drive(&mut self, slot: usize, wheels: &mut [Wheel], step: &StepContext) {
        let Some(vehicle) = self.vehicles.live_mut(slot) else {
            return;
        };
        let chassis = self.bodies.at(vehicle.chassis.index);
        let pose = *chassis.pose();
        let forward = pose.rotation * vehicle.forward;
        let up = pose.rotation * vehicle.up;
        let speed = chassis.linear_velocity().dot(&forward);
        // The sprung mass each wheel carries at rest, which a suspension frequency refers to.
        let share = chassis.mass().mass / wheels.len() as Real;
        let input = vehicle.input;
        let mut steer = [0.0; MAX_WHEELS];
        steer_angles(
            wheels,
            (&vehicle.forward, &vehicle.up),
            input.steering,
            &mut steer,
        );
        let (carrier, brake) = drive_train(vehicle, wheels, speed, step.dt);
        let first_wheel = self.solver.vehicles.wheels.len();
        let first_differential = self.solver.vehicles.differentials.len();
        let differentials = vehicle.differentials.iter();
        for (d, impulses) in differentials.zip(&mut vehicle.differential_impulses) {
            if carrier.is_none() {
                *impulses = [0.0; 2]; // declutched: the wheels roll free
                continue;
            }
            let rows = DifferentialRows::new((d.left, d.right), d.limited_slip_torque, *impulses);
            self.solver.vehicles.differentials.push(rows);
        }
        let carrier = carrier.unwrap_or((0.0, 0.0, 0.0));
        let chassis_handle = vehicle.chassis;
        let chassis = self.bodies.at(chassis_handle.index);
        let chassis_index = chassis.solver_index;
        let chassis_com = chassis.center_of_mass();
        let filter = crate::QueryFilter::new()
            .exclude_body(chassis_handle)
            .exclude_sensors();
        let b = self.motion(chassis_index);
        // The casts first: an anti-roll bar reads two wheels' lengths.
        let mut planes = [(Vector::zeros(), Vector::zeros()); MAX_WHEELS];
        for (i, wheel) in wheels.iter_mut().enumerate() {
            let w = wheel.settings;
            let state = &mut wheel.state;
            state.steer = steer[i];
            state.brake_torque = input.brake * w.brake_torque
                + input.handbrake * w.handbrake_torque
                + brake * w.brake_torque;
            let mount = pose * w.mount;
            let dir = pose.rotation * w.direction;
            let hit = self.find_ground(&w, (mount, dir), &filter);
            // Along the wheel's heading and across it, in the ground's plane.
            let heading = Rotation::from_scaled_axis(up * steer[i]) * forward;
            let plane = hit.and_then(|hit| {
                let n = hit.normal;
                let along = (heading - n * heading.dot(&n)).try_normalize(1e-6)?;
                Some((hit, along, n.cross(&along)))
            });
            // No ground, or ground standing across the heading (a wall, not a road).
            let Some((hit, along, side)) = plane else {
                state.contact = None;
                state.suspension_length = w.max_length;
                state.impulses = [0.0; 5];
                state.load = 0.0;
                state.longitudinal_force = 0.0;
                state.lateral_force = 0.0;
                continue;
            };
            planes[i] = (along, side);
            let ground = self.bodies.at(hit.body.index);
            let point = hit.point;
            let ground_velocity = ground.linear_velocity()
                + ground
                    .angular_velocity()
                    .cross(&(point - ground.center_of_mass()));
            let v = b.v + b.w.cross(&(point - chassis_com)) - ground_velocity;
            let (v_long, v_lat) = (v.dot(&along), v.dot(&side));
            let rolling = state.spin * w.radius;
            let slip_speed = ((v_long - rolling).powi(2) + v_lat * v_lat).sqrt();
            state.slip = slip_speed / v_long.abs().max(rolling.abs()).max(SLIP_SPEED);
            let ground_friction = self.colliders.get(hit.collider).map_or(0.0, |c| c.friction);
            state.friction = ground_friction * w.tyre.friction(state.slip);
            state.suspension_length = hit.length;
            state.contact = Some(WheelContact {
                point,
                normal: hit.normal,
                collider: hit.collider,
                body: hit.body,
            });
        }
        let mut extra = [0.0; MAX_WHEELS];
        if let Some(vehicle) = self.vehicles.live(slot) {
            for bar in &vehicle.anti_roll_bars {
                let (left, right) = (&wheels[bar.left].state, &wheels[bar.right].state);
                if left.contact.is_some() && right.contact.is_some() {
                    let push = bar.stiffness * (right.suspension_length - left.suspension_length);
                    extra[bar.left] += push;
                    extra[bar.right] -= push;
                }
            }
        }
        for (i, wheel) in wheels.iter().enumerate() {
            let (w, state) = (&wheel.settings, &wheel.state);
            let mount = pose * w.mount;
            // In the air: the spin and the brake alone (no body rows).
            let (ground_index, frame) = match state.contact {
                Some(contact) => {
                    let ground = self.bodies.at(contact.body.index);
                    let frame = JointFrame {
                        body_a: solver_index(ground),
                        body_b: chassis_index,
                        anchor_a: contact.point - ground.center_of_mass(),
                        anchor_b: mount - chassis_com,
                        separation: mount - contact.point,
                        rotations: (ground.pose.rotation, pose.rotation),
                    };
                    (frame.body_a, frame)
                }
                None => (STATIC, JointFrame::unattached()),
            };
            let a = self.motion(ground_index);
            let (along, side) = planes[i];
            let setup = WheelSetup {
                up: -(pose.rotation * w.direction),
                forward: along,
                side,
                rest: w.rest_length + w.radius,
                stop: w.min_length + w.radius,
                // By frequency referring to the chassis mass the wheel carries at rest, not to
                // the row's effective mass (smaller at a corner than at the centre).
                spring: sprung_solver::softness::referring_to(&w.spring, share),
                radius: w.radius,
                inertia: w.inertia,
                friction: state.friction,
                brake_torque: state.brake_torque,
                // The handbrake is mechanical: it locks the wheel, anti-lock or not.
                anti_lock: w.anti_lock && input.handbrake == 0.0,
                rolling_resistance: w.tyre.rolling_resistance,
                spin: state.spin,
                extra_force: extra[i],
                grounded: state.contact.is_some(),
            };
            let carried = (step.h, state.impulses);
            let rows = WheelRows::new(&frame, (&a, &b), setup, carried);
            self.solver.vehicles.wheels.push(rows);
        }
        let ranges = (
            first_wheel..self.solver.vehicles.wheels.len(),
            first_differential..self.solver.vehicles.differentials.len(),
        );
        let drive = DriveRows::new(ranges, carrier, slot as u32);
        self.solver.vehicles.drives.push(drive);
    }

    /// The ground under a wheel mounted at `mount` (world) with its suspension along `dir`:
    /// where its ray or its swept sphere first meets a collider within the suspension's
    /// longest length (the chassis and sensors left out).
    fn find_ground(
        &self,
        w: &WheelSettings,
        (mount, dir): (Point<Real>, Vector<Real>),
        filter: &crate::QueryFilter,
    ) -> Option<GroundHit> {
        match w.cast {
            WheelCast::Ray => {
                let hit = self.cast_ray(mount, dir, w.max_length + w.radius, true, filter);
                hit.ok().flatten().map(|h| GroundHit {
                    collider: h.collider,
                    body: h.body,
                    length: h.toi - w.radius,
                    point: h.point,
                    normal: h.normal,
                })
            }
            WheelCast::Sphere => {
                let ball = Shape::sphere(w.radius).ok()?;
                let at = Isometry::from_parts(mount.coords.into(), Rotation::identity());
                let hit = self.cast_shape(&ball, &at, dir, w.max_length, filter);
                hit.ok().flatten().map(|h| GroundHit {
                    collider: h.collider,
                    body: h.body,
                    length: h.toi,
                    point: h.point,
                    normal: h.normal,
                })
            }
        }
    }

    /// Gives each awake vehicle its carrier's spin, and each of its wheels its spin and forces,
    /// from the solve, and turns the wheels by their spin.
    pub(super) fn store_wheels(&mut self, step: &StepContext) {
        let (h, solved) = (step.h, &self.solver.vehicles);
        for drive in &solved.drives {
            let Some(vehicle) = self.vehicles.live_mut(drive.user_index as usize) else {
                continue;
            };
            vehicle.carrier = spin_within_limits(drive.carrier());
            let differentials = &solved.differentials[drive.differentials.clone()];
            for (k, rows) in differentials.iter().enumerate() {
                let [split, lock] = rows.impulses().map(finite_or_zero);
                vehicle.differential_impulses[k] = [split, lock];
                let d = vehicle.differentials[k];
                vehicle.wheels[d.left].state.drive_torque = finite_or_zero((split + lock) / h);
                vehicle.wheels[d.right].state.drive_torque = finite_or_zero((split - lock) / h);
            }
            let wheels = &solved.wheels[drive.wheels.clone()];
            for (wheel, rows) in vehicle.wheels.iter_mut().zip(wheels) {
                let state = &mut wheel.state;
                let impulses = rows.impulses().map(finite_or_zero);
                state.impulses = impulses;
                state.spin = spin_within_limits(rows.spin());
                state.load = finite_or_zero(rows.load_impulse() / h);
                state.longitudinal_force = finite_or_zero(impulses[2] / h);
                state.lateral_force = finite_or_zero(impulses[3] / h);
                let turned = state.rotation + state.spin * step.dt;
                state.rotation = turned.rem_euclid(std::f32::consts::TAU);
            }
        }
    }
}

/// Where a wheel found the ground.
struct GroundHit {
    collider: crate::ColliderHandle,
    body: crate::BodyHandle,
    /// The suspension's length at which the wheel touches it (m).
    length: Real,
    /// The touching point on the ground (world).
    point: Point<Real>,
    /// The ground's normal there (world, unit).
    normal: Vector<Real>,
}

/// A wheel's or carrier's spin held to the engine's angular speed limit, and to zero if it is
/// not a number (hostile settings: an engine of next to no inertia on a huge torque), so that
/// a vehicle's state stays finite whatever it is given.
fn spin_within_limits(spin: Real) -> Real {
    let max = crate::limits::MAX_ANGULAR_SPEED;
    if spin.is_nan() {
        0.0
    } else {
        spin.clamp(-max, max)
    }
}

/// What the solve hands back, kept finite (a snapshot of the world must stay valid).
fn finite_or_zero(x: Real) -> Real {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

/// A body's index in the solver: static (and asleep) bodies are the static world.
fn solver_index(body: &RigidBody) -> u32 {
    if body.kind() == BodyKind::Static {
        STATIC
    } else {
        body.solver_index
    }
}

/// The drive train for one step: the gear, the engine's speed, and, while the clutch is in
/// (the throttle pushing), the carrier's state for the solve (its spin, its inertia and the
/// torque on it: the engine's times the overall gear ratio, and its inertia times that ratio
/// squared); with the brake the throttle asks for (a fraction of each wheel's brake: the
/// throttle against the motion brakes first).
///
/// Without throttle the clutch is out: the engine idles and the wheels roll free of it (no
/// engine braking), so that the brakes do not have to stop the engine's flywheel, and a
/// change of gear while coasting or braking puts no momentum into the wheels. The clutch
/// takes up at the driven wheels' mean spin.
fn drive_train(
    vehicle: &mut Vehicle,
    wheels: &[Wheel],
    speed: Real,
    dt: Real,
) -> (Option<(Real, Real, Real)>, Real) {
    vehicle.since_shift += dt;
    let throttle = vehicle.input.throttle;
    let driven = vehicle.differentials.iter().flat_map(|d| [d.left, d.right]);
    let (sum, count) = driven.fold((0.0, 0), |(s, n), i| (s + wheels[i].state.spin, n + 1));
    let engaged = vehicle.carrier_engaged;
    let carrier = match (engaged, count) {
        (_, 0) => 0.0,
        (true, _) => vehicle.carrier,
        (false, _) => sum / count as Real,
    };
    // The throttle against the motion brakes until the vehicle all but stands.
    let braking = throttle > 0.0 && speed < -SLIP_SPEED || throttle < 0.0 && speed > SLIP_SPEED;
    if !braking {
        if throttle < 0.0 && vehicle.gear != -1 {
            vehicle.gear = -1;
            vehicle.since_shift = 0.0;
        } else if throttle > 0.0 && vehicle.gear < 1 {
            vehicle.gear = 1;
            vehicle.since_shift = 0.0;
        }
    }
    let gearbox = &vehicle.gearbox;
    let ratio = |gear: i32| {
        let r = if gear < 0 {
            -gearbox.reverse_ratio
        } else {
            gearbox.ratios[(gear.max(1) as usize - 1).min(gearbox.ratios.len() - 1)]
        };
        r * gearbox.differential_ratio
    };
    let to_rpm = 60.0 / std::f32::consts::TAU;
    let rpm = |gear: i32| (carrier * ratio(gear) * to_rpm).max(vehicle.engine.idle_rpm);
    if vehicle.gear > 0 && vehicle.since_shift >= gearbox.shift_time {
        let (gear, top) = (vehicle.gear, gearbox.ratios.len() as i32);
        if rpm(gear) > gearbox.shift_up_rpm && gear < top {
            vehicle.gear += 1;
        } else if rpm(gear) < gearbox.shift_down_rpm && gear > 1 {
            vehicle.gear -= 1;
        }
        if vehicle.gear != gear {
            vehicle.since_shift = 0.0;
        }
    }
    let g = ratio(vehicle.gear);
    let brake = if braking { throttle.abs() } else { 0.0 };
    vehicle.carrier_engaged = throttle != 0.0 && !braking && count > 0;
    if !vehicle.carrier_engaged {
        vehicle.rpm = vehicle.engine.idle_rpm;
        vehicle.carrier = carrier;
        return (None, brake);
    }
    vehicle.rpm = rpm(vehicle.gear);
    let torque = throttle.abs() * vehicle.engine.torque(vehicle.rpm) * g;
    let inertia = vehicle.engine.inertia * g * g;
    (Some((carrier, inertia, torque)), brake)
}

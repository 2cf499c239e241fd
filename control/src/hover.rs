//! A hover racer: a dynamic body held over the ground by spring rays at its corners, kept
//! level by an upright spring, driven along its heading and turned by capped motors: the seed's
//! use of the upright constraint, built from the solver's own rows
//! ([`JointBuilder::ray_spring`], [`JointBuilder::upright`], [`JointBuilder::linear_motor`],
//! [`JointBuilder::angular_motor`]).
//!
//! Each pad's spring is set by frequency referring to the body's mass over the pad count (the
//! mass each pad carries when level), as stiffness and damping, and its rest length is the hover
//! height plus the sag `g / (2 pi f)^2`: gravity fed forward, so that the pads ride at the
//! height set. The rays point along the world's down, so on a slope the springs push straight
//! up; the upright spring keeps the body's up on the world's up, leaving its heading free for
//! the turning motor.
//!
//! Driving: two linear motors across the world's up drive the body's velocity towards its
//! heading times a speed, and towards nothing across its heading (its grip), each with at most
//! the thrust; the angular motor drives its yaw rate towards the steering's with at most the
//! turning torque. Without throttle, the speed it drives towards is the one it has: it coasts.

use sprung::math::{Point, Real, Rotation, Vector};
use sprung::{BodyHandle, Error, JointBuilder, JointHandle, Spring, World};

use crate::floating::across;

/// How a hover racer hovers, drives and turns.
#[derive(Clone, Debug, PartialEq)]
pub struct HoverSettings {
    /// The world's up (unit): the rays point the other way.
    pub up: Vector<Real>,
    /// The body's heading (its frame, across `up` when level).
    pub forward: Vector<Real>,
    /// The body's up (its frame), kept on the world's up.
    pub body_up: Vector<Real>,
    /// Where the pads are (the body's frame): each casts its ray from there.
    pub pads: Vec<Point<Real>>,
    /// The pads' height over the ground (m).
    pub height: Real,
    /// How much farther than the height the rays look for ground (m).
    pub reach: Real,
    /// The pads' springs (by frequency: referring to the body's mass over the pad count).
    pub hover: Spring,
    /// The spring that keeps it level.
    pub upright: Spring,
    /// The highest speed the throttle asks for (m/s).
    pub max_speed: Real,
    /// The drive motors' largest force (N), each.
    pub thrust: Real,
    /// The yaw rate at full steering (rad/s).
    pub turn_rate: Real,
    /// The turning motor's largest torque (N m).
    pub turn_torque: Real,
}

impl HoverSettings {
    /// A racer whose pads are the four bottom corners of a box of half extents `half` centred
    /// on the body (y up, x forward), hovering them 0.5 m up on 2 Hz springs of damping ratio
    /// 0.5, kept level at 2 Hz (damping ratio 0.3), up to 40 m/s with 20,000 N of thrust,
    /// turning at up to 1.5 rad/s with 20,000 N m.
    pub fn for_box(half: Vector<Real>) -> HoverSettings {
        let pads = [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)]
            .map(|(x, z)| Point::new(x * half.x, -half.y, z * half.z))
            .to_vec();
        HoverSettings {
            up: Vector::y(),
            forward: Vector::x(),
            body_up: Vector::y(),
            pads,
            height: 0.5,
            reach: 1.0,
            hover: Spring::Frequency {
                hertz: 2.0,
                damping_ratio: 0.5,
            },
            upright: Spring::Frequency {
                hertz: 2.0,
                damping_ratio: 0.3,
            },
            max_speed: 40.0,
            thrust: 20_000.0,
            turn_rate: 1.5,
            turn_torque: 20_000.0,
        }
    }
}

/// What the pilot does: `throttle` in [-1, 1] (a speed along the heading, as a fraction of the
/// largest; 0 coasts), `steering` in [-1, 1] (a yaw rate, positive to the left).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HoverInput {
    /// The speed asked for along the heading, as a fraction of the largest (0: coast).
    pub throttle: Real,
    /// The yaw rate asked for, as a fraction of the largest (positive: left).
    pub steering: Real,
}

/// A hover racer on a body of a world. See the [module](self).
///
/// ```
/// use sprung::{ColliderBuilder, RigidBodyBuilder, World};
/// use sprung::math::Vector;
/// use sprung_control::{HoverInput, HoverRacer, HoverSettings};
///
/// let mut world = World::default();
/// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
/// world.add_collider(ColliderBuilder::halfspace(Vector::y()), ground).unwrap();
/// let half = Vector::new(1.5, 0.2, 0.8);
/// let body = world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 0.7, 0.0))).unwrap();
/// world.add_collider(ColliderBuilder::cuboid(half.x, half.y, half.z).density(200.0), body).unwrap();
/// let mut racer = HoverRacer::new(&mut world, body, HoverSettings::for_box(half)).unwrap();
/// for _ in 0..120 {
///     racer.drive(&mut world, HoverInput { throttle: 0.5, steering: 0.0 }).unwrap();
///     world.step(1.0 / 60.0).unwrap();
/// }
/// let body = world.body(body).unwrap();
/// assert!(body.linear_velocity().x > 5.0);
/// assert!((body.translation().y - 0.7).abs() < 0.05); // its pads ride 0.5 m up
/// ```
#[derive(Clone, Debug)]
pub struct HoverRacer {
    body: BodyHandle,
    pads: Vec<JointHandle>,
    upright: JointHandle,
    /// Along the two world axes across up.
    motors: [JointHandle; 2],
    axes: [Vector<Real>; 2],
    turn: JointHandle,
    settings: HoverSettings,
}

impl HoverRacer {
    /// Puts `body` (a dynamic body of `world`, with its colliders) on pads, upright and motors.
    /// Refused: a body not of the world, settings the joints refuse (nothing is added then).
    pub fn new(
        world: &mut World,
        body: BodyHandle,
        settings: HoverSettings,
    ) -> Result<Self, Error> {
        let mass = world.body(body).ok_or(Error::StaleHandle)?.mass().mass;
        let numbers = [settings.height, settings.reach, settings.max_speed];
        if !numbers.iter().all(|x| x.is_finite()) {
            return Err(Error::NonFinite("hover settings"));
        }
        if numbers.iter().any(|&x| x <= 0.0) || settings.pads.is_empty() {
            return Err(Error::NonPositive("hover settings"));
        }
        let up = settings
            .up
            .try_normalize(1.0e-6)
            .ok_or(Error::NonFinite("up"))?;
        settings.hover.check().map_err(Error::Spring)?;
        // Each pad's spring as stiffness, referring to its share of the mass, and the sag under
        // that share's weight fed forward into its rest length.
        let share = mass / settings.pads.len() as Real;
        let omega = settings.hover.angular_frequency(share);
        let spring = Spring::Stiffness {
            stiffness: share * omega * omega,
            damping: 2.0 * settings.hover.damping_ratio(share) * omega * share,
        };
        let weight = (-world.gravity().dot(&up)).max(0.0);
        let sag = if omega > 0.0 {
            weight / (omega * omega)
        } else {
            0.0
        };
        let axes = across(&up);
        let mut builders: Vec<JointBuilder> = settings
            .pads
            .iter()
            .map(|&pad| {
                let reach = settings.height + settings.reach;
                JointBuilder::ray_spring(pad, -up, settings.height + sag, reach, spring)
            })
            .collect();
        builders.push(JointBuilder::upright(
            settings.body_up,
            up,
            settings.upright,
        ));
        for axis in axes {
            builders.push(JointBuilder::linear_motor(axis, 0.0, settings.thrust));
        }
        builders.push(JointBuilder::angular_motor(up, 0.0, settings.turn_torque));
        // Checked before anything is added: the joints' own checks, on a scratch world.
        let mut scratch = World::default();
        let probe = scratch.add_body(sprung::RigidBodyBuilder::dynamic())?;
        for builder in &builders {
            scratch.add_world_joint(builder.clone(), probe)?;
        }
        let mut handles = builders.into_iter().map(|b| {
            world
                .add_world_joint(b, body)
                .expect("checked on a scratch world")
        });
        let pads = handles.by_ref().take(settings.pads.len()).collect();
        let upright = handles.next().expect("added");
        let motors = [
            handles.next().expect("added"),
            handles.next().expect("added"),
        ];
        let turn = handles.next().expect("added");
        Ok(HoverRacer {
            body,
            pads,
            upright,
            motors,
            axes,
            turn,
            settings: HoverSettings { up, ..settings },
        })
    }

    /// Its body.
    pub fn body(&self) -> BodyHandle {
        self.body
    }

    /// The pads' ray springs, the upright spring, the two drive motors and the turning motor.
    pub fn joints(&self) -> (&[JointHandle], JointHandle, [JointHandle; 2], JointHandle) {
        (&self.pads, self.upright, self.motors, self.turn)
    }

    /// The settings.
    pub fn settings(&self) -> &HoverSettings {
        &self.settings
    }

    /// Drives by `input` from the next step on. Call before each step.
    pub fn drive(&mut self, world: &mut World, input: HoverInput) -> Result<(), Error> {
        let numbers = [input.throttle, input.steering];
        if !numbers.iter().all(|x| x.is_finite() && x.abs() <= 1.0) {
            return Err(Error::OutOfRange(
                "hover input: throttle and steering in [-1, 1]",
            ));
        }
        let body = world.body(self.body).ok_or(Error::StaleHandle)?;
        let s = &self.settings;
        let up = s.up;
        let heading = body.pose().rotation * s.forward;
        let heading = (heading - up * heading.dot(&up))
            .try_normalize(1.0e-6)
            .unwrap_or(self.axes[0]);
        let velocity = body.linear_velocity();
        let speed = if input.throttle == 0.0 {
            velocity.dot(&heading)
        } else {
            input.throttle * s.max_speed
        };
        // Along the heading at that speed, nothing across it.
        let goal = heading * speed;
        for (motor, axis) in self.motors.iter().zip(&self.axes) {
            world.set_joint_motor(*motor, Some((goal.dot(axis), s.thrust)))?;
        }
        let rate = input.steering * s.turn_rate;
        world.set_joint_motor(self.turn, Some((rate, s.turn_torque)))?;
        Ok(())
    }

    /// Its heading (world, across up).
    pub fn heading(&self, world: &World) -> Option<Vector<Real>> {
        let body = world.body(self.body)?;
        let turned: Rotation<Real> = body.pose().rotation;
        Some(turned * self.settings.forward)
    }
}

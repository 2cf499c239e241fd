//! A floating character: a dynamic body (a capsule, usually) held at a ride height over the
//! ground by a spring along a ray, kept upright by an angular spring, and walked by velocity
//! motors with a force cap. Unlike the kinematic [`crate::Character`] it is a body of the
//! world: it feels pushes and blows, rides what moves under it, and weighs on what it stands on
//! through its contacts, while its legs are the spring.
//!
//! All three are the solver's own rows ([`JointBuilder::ray_spring`],
//! [`JointBuilder::upright`], [`JointBuilder::linear_motor`]), so the spring is exact in
//! frequency and cannot explode, and the motors never push harder than their cap. The ray
//! spring's rest length is the ride height plus the sag `g / (2 pi f)^2`: gravity fed
//! forward, so that it rides at the height set. The ray's axis is fixed (straight down), so
//! on a slope the spring pushes straight up and the character does not slide down it.

use sprung::math::{Point, Real, Vector};
use sprung::{
    BodyHandle, ColliderBuilder, Error, JointBuilder, JointHandle, JointKind, QueryFilter,
    RigidBodyBuilder, Shape, Spring, World,
};

/// How a floating character floats and walks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatingSettings {
    /// Unit vector away from the ground: the ray points the other way.
    pub up: Vector<Real>,
    /// Mass (kg).
    pub mass: Real,
    /// The height of the body's centre over the ground it rides (m).
    pub ride_height: Real,
    /// How much farther than the ride height the ray looks for ground (m).
    pub reach: Real,
    /// The ride spring's frequency (Hz) and damping ratio.
    pub hertz: Real,
    /// The ride spring's damping ratio.
    pub damping_ratio: Real,
    /// The spring that keeps it upright.
    pub upright: Spring,
    /// The walking motors' largest force (N) along each horizontal axis.
    pub max_force: Real,
}

impl Default for FloatingSettings {
    /// Y up, 80 kg riding its centre 1.2 m up (a 1.8 m capsule 0.3 m off the ground), looking
    /// 0.5 m farther; a 3 Hz ride spring at damping ratio 0.5; upright at 5 Hz, critically
    /// damped; 2,000 N motors.
    fn default() -> Self {
        FloatingSettings {
            up: Vector::y(),
            mass: 80.0,
            ride_height: 1.2,
            reach: 0.5,
            hertz: 3.0,
            damping_ratio: 0.5,
            upright: Spring::Frequency {
                hertz: 5.0,
                damping_ratio: 1.0,
            },
            max_force: 2000.0,
        }
    }
}

/// A floating character in a world. See the [module](self).
///
/// ```
/// use sprung::{ColliderBuilder, RigidBodyBuilder, Shape, World};
/// use sprung::math::{Point, Vector};
/// use sprung_control::{FloatingCharacter, FloatingSettings};
///
/// let mut world = World::default();
/// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
/// world.add_collider(ColliderBuilder::halfspace(Vector::y()), ground).unwrap();
/// let capsule = Shape::capsule(0.6, 0.3).unwrap();
/// let settings = FloatingSettings::default();
/// let mut hero = FloatingCharacter::spawn(&mut world, capsule, Point::new(0.0, 1.2, 0.0), settings).unwrap();
/// for _ in 0..120 {
///     hero.walk(&mut world, Vector::new(2.0, 0.0, 0.0)).unwrap();
///     world.step(1.0 / 60.0).unwrap();
/// }
/// let body = world.body(hero.body()).unwrap();
/// assert!((body.translation().y - 1.2).abs() < 0.01);
/// assert!((body.linear_velocity().x - 2.0).abs() < 0.05);
/// ```
#[derive(Clone, Debug)]
pub struct FloatingCharacter {
    body: BodyHandle,
    ray: JointHandle,
    upright: JointHandle,
    motors: [JointHandle; 2],
    /// The motors' world axes: across `up`.
    axes: [Vector<Real>; 2],
    settings: FloatingSettings,
    motors_on: bool,
}

impl FloatingCharacter {
    /// Adds a dynamic body of `shape` (its axis along `settings.up`) at `position`, with its
    /// ride spring, upright spring and walking motors, to `world`.
    ///
    /// Refused: a shape or position the world refuses, a non-positive mass, ride height or
    /// frequency, a damping ratio or force the joints refuse. Nothing is added then.
    pub fn spawn(
        world: &mut World,
        shape: Shape,
        position: Point<Real>,
        settings: FloatingSettings,
    ) -> Result<Self, Error> {
        let numbers = [
            settings.mass,
            settings.ride_height,
            settings.reach,
            settings.hertz,
        ];
        if !numbers.iter().all(|x| x.is_finite()) {
            return Err(Error::NonFinite("floating settings"));
        }
        if numbers.iter().any(|&x| x <= 0.0) {
            return Err(Error::NonPositive("floating settings"));
        }
        let up = settings
            .up
            .try_normalize(1.0e-6)
            .filter(|u| u.iter().all(|x| x.is_finite()))
            .ok_or(Error::NonFinite("up"))?;
        // The sag under gravity along the ray, fed forward into the rest length.
        let weight = (-world.gravity().dot(&up)).max(0.0);
        let sag = weight / (std::f32::consts::TAU * settings.hertz).powi(2);
        let ride = Spring::Frequency {
            hertz: settings.hertz,
            damping_ratio: settings.damping_ratio,
        };
        ride.check().map_err(Error::Spring)?;
        settings.upright.check().map_err(Error::Spring)?;
        // Checked before anything is added: the joints' own checks, on a scratch world.
        let tilt = sprung::math::UnitQuaternion::rotation_between(&Vector::y(), &up)
            .unwrap_or_else(|| {
                sprung::math::UnitQuaternion::from_axis_angle(
                    &Vector::x_axis(),
                    std::f32::consts::PI,
                )
            });
        let volume = shape.as_parry().mass_properties(1.0).mass();
        let collider = ColliderBuilder::new(shape).density(settings.mass / volume);
        let axes = across(&up);
        let builders = [
            JointBuilder::ray_spring(
                Point::origin(),
                -up,
                settings.ride_height + sag,
                settings.ride_height + settings.reach,
                ride,
            ),
            JointBuilder::upright(Vector::y(), up, settings.upright),
            JointBuilder::linear_motor(axes[0], 0.0, settings.max_force),
            JointBuilder::linear_motor(axes[1], 0.0, settings.max_force),
        ];
        let mut scratch = World::default();
        let probe = scratch.add_body(RigidBodyBuilder::dynamic())?;
        scratch.add_collider(collider.clone(), probe)?;
        for builder in &builders {
            scratch.add_world_joint(builder.clone(), probe)?;
        }
        let pose = sprung::math::Isometry::from_parts(position.coords.into(), tilt);
        let body = world.add_body(RigidBodyBuilder::dynamic().pose(pose))?;
        if let Err(e) = world.add_collider(collider, body) {
            world.remove_body(body).ok();
            return Err(e);
        }
        let [ray, upright, x, z] = builders.map(|b| {
            world
                .add_world_joint(b, body)
                .expect("checked on a scratch world")
        });
        Ok(FloatingCharacter {
            body,
            ray,
            upright,
            motors: [x, z],
            axes,
            settings: FloatingSettings { up, ..settings },
            motors_on: true,
        })
    }

    /// Its body.
    pub fn body(&self) -> BodyHandle {
        self.body
    }

    /// The ride spring (a [`JointKind::RaySpring`]), the upright spring and the two motors.
    pub fn joints(&self) -> (JointHandle, JointHandle, [JointHandle; 2]) {
        (self.ray, self.upright, self.motors)
    }

    /// The settings.
    pub fn settings(&self) -> &FloatingSettings {
        &self.settings
    }

    /// Where its ride spring's ray hit at the last step, if it hit.
    pub fn ground(&self, world: &World) -> Option<Point<Real>> {
        match world.joint(self.ray)?.kind() {
            JointKind::RaySpring(spring) => spring.ground,
            _ => None,
        }
    }

    /// Whether its ray found ground within reach at the last step.
    pub fn is_grounded(&self, world: &World) -> bool {
        self.ground(world).is_some()
    }

    /// The velocity of the ground under it (m/s): of the point its ride spring's ray hit, on
    /// whatever body that is (zero for static ground or none).
    pub fn ground_velocity(&self, world: &World) -> Vector<Real> {
        let Some(point) = self.ground(world) else {
            return Vector::zeros();
        };
        // The body under the ray's end: a short ray just above the point finds it.
        let filter = QueryFilter::new().exclude_body(self.body);
        let from = point + self.settings.up * 0.01;
        let hit = world.cast_ray(from, -self.settings.up, 0.02, true, &filter);
        let under = hit.ok().flatten().and_then(|h| world.body(h.body));
        under.map_or(Vector::zeros(), |b| {
            b.linear_velocity() + b.angular_velocity().cross(&(point - b.center_of_mass()))
        })
    }

    /// Walks towards `goal_velocity` (m/s; its part along `up` is ignored) relative to the
    /// ground it rides: the motors drive the body's velocity across `up` to the goal plus the
    /// ground's, with at most their force, so that it rides a moving platform. Call before
    /// each step.
    pub fn walk(&mut self, world: &mut World, goal_velocity: Vector<Real>) -> Result<(), Error> {
        if !goal_velocity.iter().all(|x| x.is_finite()) {
            return Err(Error::NonFinite("goal velocity"));
        }
        let force = if self.motors_on {
            self.settings.max_force
        } else {
            0.0
        };
        let target = goal_velocity + self.ground_velocity(world);
        for (motor, axis) in self.motors.iter().zip(&self.axes) {
            world.set_joint_motor(*motor, Some((target.dot(axis), force)))?;
        }
        Ok(())
    }

    /// Turns the motors on or off (off: no force along the ground at all).
    pub fn set_motors(&mut self, world: &mut World, on: bool) -> Result<(), Error> {
        self.motors_on = on;
        let force = if on { self.settings.max_force } else { 0.0 };
        for motor in self.motors {
            world.set_joint_motor(motor, Some((0.0, force)))?;
        }
        Ok(())
    }
}

/// Two unit vectors across `up` and across each other.
pub(crate) fn across(up: &Vector<Real>) -> [Vector<Real>; 2] {
    let other = if up.x.abs() < 0.9 {
        Vector::x()
    } else {
        Vector::z()
    };
    let a = up.cross(&other).normalize();
    [a.cross(up).normalize(), a]
}

//! A kinematic character: a convex shape (a capsule, usually) that walks the world by collide
//! and slide, moved by the spring toolkit.
//!
//! In: a goal velocity each update (the player's stick), jumps, and the world to walk. Out: the
//! character's position, velocity, facing, the ground under it, and what it hit.
//!
//! How one update of `dt` moves it:
//! 1. **Platform.** Standing on a moving body, it is first carried as a point of that body
//!    through the body's last step (its velocities held over `dt`: a turn is a turn, not a
//!    chord), and its facing turns with it.
//! 2. **Intent.** The horizontal velocity follows the goal velocity with the toolkit's critical
//!    spring of [`CharacterSettings::halflife`]; the displacement is that spring's exact integral
//!    ([`CharacterState`]), so the walk is the same at any `dt`. On walkable ground it is laid on
//!    the ground's plane *vertically* (its horizontal part kept), so walking up or down a slope
//!    covers the same horizontal distance as on the flat.
//! 3. **Gravity.** In the air, or on ground too steep to stand on, the vertical motion is the
//!    exact ballistic one, `x += v dt + g dt^2 / 2`, so jump heights and falls hold at any `dt`.
//!    On walkable ground there is none: a character standing on a slope does not creep.
//! 4. **Collide and slide.** The motion is swept through the world ([`World::cast_shape_to`])
//!    keeping half the skin: it goes to the first hit, and the rest of the motion is laid on the
//!    planes hit so far (a crease of two along their common line, a corner of three stops it),
//!    a few times. A walkable plane takes the motion vertically (climbing a ramp keeps the
//!    horizontal speed); a wall orthogonally (sliding along it at `v cos theta`); a plane too
//!    steep to stand on orthogonally and as a vertical wall too, so pushing into it never climbs
//!    it but gravity slides down it at `g sin theta`. Something too steep but no higher than
//!    [`CharacterSettings::step_height`] is stepped onto instead: a sweep up, along (with at
//!    least [`CharacterSettings::step_min_width`] free) and down onto walkable ground.
//! 5. **Skin and ground.** One contact query ([`World::contacts_with_shape_into`]) then finds
//!    what is within twice the skin: whatever is nearer than the skin pushes the character back
//!    out to it (a walkable floor vertically; while standing, steeper ground and step edges
//!    sideways only, so that they never lift it; anything else along its normal; at most
//!    [`CharacterSettings::max_recovery_speed`] beyond the skin per step: what the world moved
//!    into it is left over a few steps, not in one jump), and the nearest walkable contact within
//!    1.5 skins is the ground (a contact on an edge counts by the face beyond it: a capsule
//!    resting on a step's edge stands on the step). Resting a whole skin above the floor and
//!    sweeping with half of it, the character never meets the seams of a tiled floor or a mesh:
//!    a coplanar neighbour is never nearer than the skin.
//! 6. **Snap.** Standing farther than the skin from its ground, it is put back on it; having
//!    stood on ground that is gone, and not rising, it looks down
//!    [`CharacterSettings::snap_distance`] for walkable ground to stay on (a crest, stairs
//!    down), and without any it flies off on the ballistic path from where the ground ended.
//!
//! The character is not a body: bodies do not collide with it; it pushes what it walks into
//! and weighs on what it stands on ([`CharacterSettings::mass`]). Update it right after
//! `World::step`: a platform has then made the move the character follows.

use smallvec::SmallVec;
use sprung::math::{Isometry, Point, Real, UnitQuaternion, Vector};
use sprung::{
    BodyHandle, BodyKind, ColliderHandle, Error, QueryFilter, Shape, ShapeContact, World,
};
use sprung_spring::CharacterState;

mod ground;

/// Ground this near (in skins) holds the character up.
const GROUND_REACH: Real = 1.5;
/// Contacts this near (in skins) are read each update: the skin and the ground come from them.
const PROBE: Real = 2.0;
/// A motion shorter than this (m) is done.
const TINY: Real = 1.0e-7;
/// A motion may lean into a plane by this fraction of its length (rounding) and still count as
/// along it.
const ALONG: Real = 1.0e-4;

/// How a character moves. Lengths in metres, angles in radians, times in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterSettings {
    /// Unit vector away from the ground (against gravity, usually): what "up", "walkable" and
    /// "horizontal" refer to.
    pub up: Vector<Real>,
    /// The gap kept between the character and the world. It rests this far above the floor and
    /// sweeps its motions keeping half of it, so it never touches.
    pub skin: Real,
    /// The steepest slope it stands on and walks up (rad); steeper ground it slides down.
    pub max_slope: Real,
    /// The horizontal velocity closes half its gap to the goal velocity in this time (the
    /// toolkit's critical spring); 0 snaps to the goal.
    pub halflife: Real,
    /// Sweeps per motion: each hit lays the rest of the motion on the planes hit so far.
    pub max_iterations: usize,
    /// How far below (m) it looks for ground to stay on when the ground drops away under it;
    /// 0 turns snapping off.
    pub snap_distance: Real,
    /// The highest step (m, from the character's lowest point) it walks up without slowing;
    /// 0 turns stepping off.
    pub step_height: Real,
    /// The free depth (m) it needs on top of a step to step onto it.
    pub step_min_width: Real,
    /// Whether it steps onto dynamic bodies (crates) as onto the level.
    pub step_on_dynamic: bool,
    /// How fast (m/s) it is pushed out of what moved into it, beyond the skin's own recovery.
    pub max_recovery_speed: Real,
    /// Its mass (kg): what it weighs on the dynamic bodies it stands on, and how hard it pushes
    /// the ones it walks into (an inelastic push between its mass and theirs).
    pub mass: Real,
    /// The largest force (N) it pushes a dynamic body with.
    pub max_push_force: Real,
}

impl Default for CharacterSettings {
    /// Y up, a 2 cm skin, a 50 degree slope limit, a 0.1 s halflife, four sweeps, 0.3 m snap,
    /// 0.3 m steps at least 0.1 m deep (not onto dynamic bodies), 5 m/s recovery, 80 kg pushing
    /// with at most 200 N.
    fn default() -> Self {
        CharacterSettings {
            up: Vector::y(),
            skin: 0.02,
            max_slope: 50.0_f32.to_radians(),
            halflife: 0.1,
            max_iterations: 4,
            snap_distance: 0.3,
            step_height: 0.3,
            step_min_width: 0.1,
            step_on_dynamic: false,
            max_recovery_speed: 5.0,
            mass: 80.0,
            max_push_force: 200.0,
        }
    }
}

impl CharacterSettings {
    /// Checks every setting: `Error::OutOfRange` (or `NonFinite`, `Negative`) names the first
    /// that is wrong.
    pub fn check(&self) -> Result<(), Error> {
        let finite = |what, x: Real| {
            if x.is_finite() {
                Ok(())
            } else {
                Err(Error::NonFinite(what))
            }
        };
        if !self.up.iter().all(|x| x.is_finite()) {
            return Err(Error::NonFinite("up"));
        }
        if (self.up.norm() - 1.0).abs() > 1.0e-3 {
            return Err(Error::OutOfRange("up: a unit vector"));
        }
        finite("skin", self.skin)?;
        if !(self.skin > 0.0 && self.skin <= 1.0) {
            return Err(Error::OutOfRange("skin: above 0, at most 1 m"));
        }
        finite("max_slope", self.max_slope)?;
        if !(0.0..std::f32::consts::FRAC_PI_2).contains(&self.max_slope) {
            return Err(Error::OutOfRange("max_slope: 0 to below pi/2"));
        }
        finite("halflife", self.halflife)?;
        if self.halflife < 0.0 {
            return Err(Error::Negative("halflife"));
        }
        if !(1..=16).contains(&self.max_iterations) {
            return Err(Error::OutOfRange("max_iterations: 1 to 16"));
        }
        finite("snap_distance", self.snap_distance)?;
        if !(0.0..=100.0).contains(&self.snap_distance) {
            return Err(Error::OutOfRange("snap_distance: 0 to 100 m"));
        }
        finite("step_height", self.step_height)?;
        if !(0.0..=100.0).contains(&self.step_height) {
            return Err(Error::OutOfRange("step_height: 0 to 100 m"));
        }
        finite("step_min_width", self.step_min_width)?;
        if !(0.0..=100.0).contains(&self.step_min_width) {
            return Err(Error::OutOfRange("step_min_width: 0 to 100 m"));
        }
        finite("max_recovery_speed", self.max_recovery_speed)?;
        if self.max_recovery_speed < 0.0 {
            return Err(Error::Negative("max_recovery_speed"));
        }
        finite("mass", self.mass)?;
        if !(self.mass > 0.0 && self.mass <= 1.0e9) {
            return Err(Error::OutOfRange("mass: above 0, at most 1e9 kg"));
        }
        finite("max_push_force", self.max_push_force)?;
        if self.max_push_force < 0.0 {
            return Err(Error::Negative("max_push_force"));
        }
        Ok(())
    }

    /// Whether ground of unit normal `n` can be stood on.
    fn walkable(&self, n: &Vector<Real>) -> bool {
        n.dot(&self.up) >= self.max_slope.cos()
    }
}

/// Where the character stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroundState {
    /// On ground no steeper than the slope limit: it walks, gravity does not pull it.
    OnGround,
    /// On ground too steep to stand on: it slides down.
    OnSteepGround,
    /// Nothing under it within reach.
    InAir,
}

/// The ground under the character after an update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ground {
    /// Standing, sliding, or in the air (the other fields are then zero or `None`).
    pub state: GroundState,
    /// Unit normal of the ground, away from it.
    pub normal: Vector<Real>,
    /// The ground's nearest point (world).
    pub point: Point<Real>,
    /// The collider stood on.
    pub collider: Option<ColliderHandle>,
    /// Its body.
    pub body: Option<BodyHandle>,
    /// The velocity of the ground's point (m/s): a moving platform's.
    pub velocity: Vector<Real>,
}

impl Ground {
    fn air() -> Self {
        Ground {
            state: GroundState::InAir,
            normal: Vector::zeros(),
            point: Point::origin(),
            collider: None,
            body: None,
            velocity: Vector::zeros(),
        }
    }
}

/// Something a sweep of the last update hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterHit {
    /// The collider hit.
    pub collider: ColliderHandle,
    /// Its body.
    pub body: BodyHandle,
    /// The hit point on the collider (world).
    pub point: Point<Real>,
    /// Unit normal of the collider there, facing the character.
    pub normal: Vector<Real>,
}

/// A plane the rest of a motion is laid on.
#[derive(Clone, Copy, Debug)]
struct Plane {
    normal: Vector<Real>,
    /// Walkable: a motion into it is lifted vertically onto it, keeping its horizontal part.
    vertical: bool,
}

/// A kinematic character. See the [module](self) for how it moves.
///
/// ```
/// use sprung::{ColliderBuilder, QueryFilter, RigidBodyBuilder, Shape, World};
/// use sprung::math::{Point, Vector};
/// use sprung_control::{Character, CharacterSettings, GroundState};
///
/// let mut world = World::default();
/// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
/// world.add_collider(ColliderBuilder::halfspace(Vector::y()), ground).unwrap();
///
/// // A capsule 1.8 m tall dropped from a metre up walks east at 2 m/s.
/// let capsule = Shape::capsule(0.6, 0.3).unwrap();
/// let settings = CharacterSettings::default();
/// let mut hero = Character::new(capsule, Point::new(0.0, 1.9, 0.0), settings).unwrap();
/// let filter = QueryFilter::new();
/// for _ in 0..120 {
///     hero.update(&mut world, Vector::new(2.0, 0.0, 0.0), 1.0 / 60.0, &filter).unwrap();
///     world.step(1.0 / 60.0).unwrap();
/// }
/// assert_eq!(hero.ground().state, GroundState::OnGround);
/// // Resting a skin above the floor: centre at half-height + radius + skin.
/// assert!((hero.position().y - 0.92).abs() < 1e-4);
/// assert!((hero.velocity().x - 2.0).abs() < 1e-3);
/// ```
#[derive(Clone, Debug)]
pub struct Character {
    shape: Shape,
    settings: CharacterSettings,
    /// The shape's centre.
    position: Point<Real>,
    /// The shape's fixed rotation: its own y axis along `up`.
    tilt: UnitQuaternion<Real>,
    /// Which way it faces: a turn about `up` (platforms turn it).
    facing: UnitQuaternion<Real>,
    /// From the centre down to the shape's lowest point, along `up` (m).
    reach_down: Real,
    /// The horizontal velocity spring (its position is unused: each update reads the step).
    walk: CharacterState<Vector<Real>>,
    /// The velocity gravity, jumps and sliding gave it (m/s).
    fall: Vector<Real>,
    /// Its velocity over the last update, platform included (m/s).
    velocity: Vector<Real>,
    ground: Ground,
    hits: Vec<CharacterHit>,
    /// The contact query's buffer, kept between updates.
    contacts: Vec<ShapeContact>,
}

impl Character {
    /// A character of convex `shape` (its axis, for a capsule, along `settings.up`) centred at
    /// `position`, at rest and in the air until its first update finds ground.
    ///
    /// Refused: settings that fail [`CharacterSettings::check`], a shape with bad numbers or
    /// one that is not convex (level geometry), a non-finite position.
    pub fn new(
        shape: Shape,
        position: Point<Real>,
        settings: CharacterSettings,
    ) -> Result<Self, Error> {
        settings.check()?;
        shape.check()?;
        if shape.is_static_only() {
            return Err(Error::StaticOnlyShape);
        }
        if !position.iter().all(|x| x.is_finite()) {
            return Err(Error::NonFinite("character position"));
        }
        let up = settings.up.normalize();
        let tilt = UnitQuaternion::rotation_between(&Vector::y(), &up).unwrap_or_else(|| {
            UnitQuaternion::from_axis_angle(&Vector::x_axis(), std::f32::consts::PI)
        });
        let lowest = tilt * shape.support(&(tilt.inverse() * -up));
        let reach_down = -lowest.coords.dot(&up);
        Ok(Character {
            reach_down,
            shape,
            settings: CharacterSettings { up, ..settings },
            position,
            tilt,
            facing: UnitQuaternion::identity(),
            walk: CharacterState::new(Vector::zeros()),
            fall: Vector::zeros(),
            velocity: Vector::zeros(),
            ground: Ground::air(),
            // An update hits at most three sweeps' worth (carry, walk, drop): never regrown.
            hits: Vec::with_capacity(3 * settings.max_iterations),
            contacts: Vec::with_capacity(16),
        })
    }

    /// The shape's centre (world).
    pub fn position(&self) -> Point<Real> {
        self.position
    }

    /// Moves the character to `position` at once (no sweep), keeping its velocity.
    pub fn set_position(&mut self, position: Point<Real>) -> Result<(), Error> {
        if !position.iter().all(|x| x.is_finite()) {
            return Err(Error::NonFinite("character position"));
        }
        self.position = position;
        Ok(())
    }

    /// The shape's pose: at its position, axis along `up` (the facing does not turn the shape).
    pub fn pose(&self) -> Isometry<Real> {
        Isometry::from_parts(self.position.coords.into(), self.tilt)
    }

    /// The shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The settings.
    pub fn settings(&self) -> &CharacterSettings {
        &self.settings
    }

    /// Which way the character faces: a turn about `up`, turned by the platforms it rides.
    pub fn facing(&self) -> UnitQuaternion<Real> {
        self.facing
    }

    /// Sets the facing (a game turns its character towards the stick).
    pub fn set_facing(&mut self, facing: UnitQuaternion<Real>) {
        self.facing = facing;
    }

    /// Its velocity over the last update (m/s), a platform's carry included.
    pub fn velocity(&self) -> Vector<Real> {
        self.velocity
    }

    /// The horizontal velocity it wants (m/s): the spring's, walls not counted.
    pub fn walk_velocity(&self) -> Vector<Real> {
        self.walk.velocity
    }

    /// Sets the horizontal velocity it walks at now (m/s; its part along `up` is dropped).
    pub fn set_walk_velocity(&mut self, velocity: Vector<Real>) {
        let up = self.settings.up;
        self.walk.velocity = velocity - up * velocity.dot(&up);
        self.walk.acceleration = Vector::zeros();
    }

    /// The ground under it after the last update.
    pub fn ground(&self) -> &Ground {
        &self.ground
    }

    /// Whether it stands on walkable ground.
    pub fn is_grounded(&self) -> bool {
        self.ground.state == GroundState::OnGround
    }

    /// What the sweeps of the last update hit, in order.
    pub fn hits(&self) -> &[CharacterHit] {
        &self.hits
    }

    /// Jumps: the velocity along `up` becomes `speed` (m/s) more than the ground's, and it
    /// leaves the ground at the next update.
    pub fn jump(&mut self, speed: Real) -> Result<(), Error> {
        if !speed.is_finite() {
            return Err(Error::NonFinite("jump speed"));
        }
        let up = self.settings.up;
        let ground_up = self.ground.velocity.dot(&up).max(0.0);
        self.fall = self.fall - up * self.fall.dot(&up) + up * (ground_up + speed);
        self.ground = Ground::air();
        Ok(())
    }

    /// Moves the character through `world` for `dt` s, its horizontal velocity easing towards
    /// `goal_velocity` (m/s; its part along `up` is ignored). `filter` says which colliders
    /// stop it.
    ///
    /// Refused (nothing changes): a non-finite goal velocity, `dt` not finite and positive.
    pub fn update(
        &mut self,
        world: &mut World,
        goal_velocity: Vector<Real>,
        dt: Real,
        filter: &QueryFilter,
    ) -> Result<(), Error> {
        self.advance(world, goal_velocity, dt, filter)?;
        self.push_and_weigh(world, dt)
    }

    /// Pushes the dynamic bodies the last update walked into, and weighs on the one it stands
    /// on. A push is the impulse of an inelastic collision between the character's mass and the
    /// body's at the speed the character would close on it, at most the push force for `dt`,
    /// applied at the height of the body's centre of mass (so that a push moves a crate, and
    /// tips it only as a push there would). The weight is `mass g dt` at the ground's point.
    fn push_and_weigh(&mut self, world: &mut World, dt: Real) -> Result<(), Error> {
        let s = self.settings;
        let up = s.up;
        let mut pushed: SmallVec<[BodyHandle; 4]> = SmallVec::new();
        for hit in &self.hits {
            if s.walkable(&hit.normal) || pushed.contains(&hit.body) {
                continue;
            }
            let Some(body) = world
                .body(hit.body)
                .filter(|b| b.kind() == BodyKind::Dynamic)
            else {
                continue;
            };
            pushed.push(hit.body);
            let into = -hit.normal;
            let com = body.center_of_mass();
            let at = hit.point + up * (com - hit.point).dot(&up);
            let body_speed =
                (body.linear_velocity() + body.angular_velocity().cross(&(at - com))).dot(&into);
            let closing = self.walk.velocity.dot(&into) - body_speed;
            if closing <= 0.0 {
                continue;
            }
            let m = body.mass().mass;
            let impulse = (closing * s.mass * m / (s.mass + m)).min(s.max_push_force * dt);
            world.apply_impulse_at_point(hit.body, into * impulse, at)?;
        }
        if self.is_grounded() {
            if let Some(body) = self.ground.body {
                let dynamic = world
                    .body(body)
                    .is_some_and(|b| b.kind() == BodyKind::Dynamic);
                if dynamic {
                    let weight = world.gravity() * (s.mass * dt);
                    world.apply_impulse_at_point(body, weight, self.ground.point)?;
                }
            }
        }
        Ok(())
    }

    /// The positions the character would pass through over `steps` updates of `dt` with the
    /// goal velocity held, in a world that stays as it is: the toolkit's prediction, with the
    /// world's walls and floors in it. The character is not moved.
    pub fn predict(
        &self,
        world: &World,
        goal_velocity: Vector<Real>,
        dt: Real,
        steps: usize,
        filter: &QueryFilter,
    ) -> Result<Vec<Point<Real>>, Error> {
        let mut ghost = self.clone();
        let mut path = Vec::with_capacity(steps);
        for _ in 0..steps {
            ghost.advance(world, goal_velocity, dt, filter)?;
            path.push(ghost.position);
        }
        Ok(path)
    }

    /// One update against a world it only reads.
    fn advance(
        &mut self,
        world: &World,
        goal_velocity: Vector<Real>,
        dt: Real,
        filter: &QueryFilter,
    ) -> Result<(), Error> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(Error::InvalidTimeStep);
        }
        if !goal_velocity.iter().all(|x| x.is_finite()) {
            return Err(Error::NonFinite("goal velocity"));
        }
        let up = self.settings.up;
        let start = self.position;
        self.hits.clear();

        // 1. Carried by the platform it stands on.
        if let Some(carry) = self.carry(world, dt) {
            self.slide(world, carry, false, filter)?;
        }

        // 2. The walk: the spring's exact step.
        let goal = goal_velocity - up * goal_velocity.dot(&up);
        self.walk.position = Vector::zeros();
        self.walk.update(goal, self.settings.halflife, dt);
        let mut motion = self.walk.position;

        // 3. Gravity, unless standing.
        let g = world.gravity();
        let standing = self.is_grounded() && self.fall.dot(&up) <= 0.0;
        let fall_end = if standing {
            self.fall = Vector::zeros();
            motion = onto_plane(&motion, &self.ground.normal, &up);
            Vector::zeros()
        } else {
            motion += self.fall * dt + g * (0.5 * dt * dt);
            self.fall + g * dt
        };

        // 4. Collide and slide; the velocity loses what the planes took from the motion.
        let before = self.position;
        let planes = self.slide(world, motion, standing, filter)?;
        self.fall = constrain(fall_end, &planes, &up);

        // 5 and 6. The skin, the ground, the snap.
        let was_grounded = standing;
        let gap = self.settle(world, dt, standing, filter)?;
        let falling = self.fall.dot(&up) <= 0.0;
        if self.is_grounded() && falling && gap > self.settings.skin + 1.0e-6 {
            // Standing, but farther than the skin: kept on the ground.
            self.snap(world, GROUND_REACH * self.settings.skin, filter)?;
        } else if was_grounded && !self.is_grounded() && falling {
            self.snap(world, self.settings.snap_distance, filter)?;
            if !self.is_grounded() {
                // Walked off an edge: ballistic from where the ground ended, not from the
                // start of the next update (at 10 m/s that is a metre per second of fall).
                let left = self.left_ground(world, before, filter)?;
                let flight = (1.0 - left) * dt;
                let drop = g * (0.5 * flight * flight);
                let hit = self.slide(world, drop, false, filter)?;
                self.fall = constrain(g * flight, &hit, &up);
            }
        }
        if self.is_grounded() {
            self.fall = Vector::zeros();
        }
        self.velocity = (self.position - start) / dt;
        Ok(())
    }

    /// The fraction of the move from `from` to the character's position after which nothing
    /// held it up any more (to 1/32 of the move).
    fn left_ground(
        &mut self,
        world: &World,
        from: Point<Real>,
        filter: &QueryFilter,
    ) -> Result<Real, Error> {
        let to = self.position;
        let mut contacts = std::mem::take(&mut self.contacts);
        let (mut held, mut free): (Real, Real) = (0.0, 1.0);
        let mut result = Ok(());
        for _ in 0..5 {
            let mid = 0.5 * (held + free);
            match self.supported(world, &(from + (to - from) * mid), filter, &mut contacts) {
                Ok(true) => held = mid,
                Ok(false) => free = mid,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.contacts = contacts;
        result.map(|()| 0.5 * (held + free))
    }

    /// Whether walkable ground holds up the character centred at `centre`: within the skin, as
    /// it stands (the ground within reach of the ground state would carry a fast character
    /// past an edge it has left). `contacts` is a buffer.
    fn supported(
        &self,
        world: &World,
        centre: &Point<Real>,
        filter: &QueryFilter,
        contacts: &mut Vec<ShapeContact>,
    ) -> Result<bool, Error> {
        let pose = Isometry::from_parts(centre.coords.into(), self.tilt);
        let reach = self.settings.skin + 1.0e-4;
        world.contacts_with_shape_into(&self.shape, &pose, reach, filter, contacts)?;
        for c in contacts.iter() {
            let upward = c.normal.dot(&self.settings.up) > 1.0e-3;
            if upward
                && self
                    .support(world, centre, &c.point, &c.normal, filter)?
                    .is_some()
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// How the ground's body moved the character's centre over the last `dt`, if it moves;
    /// turns the facing with it.
    fn carry(&mut self, world: &World, dt: Real) -> Option<Vector<Real>> {
        let body = world.body(self.ground.body?)?;
        if body.kind() == BodyKind::Static || !self.is_grounded() {
            return None;
        }
        // The body has just moved (the world stepped before this update): its centre was
        // `v dt` back, and it has turned by `w dt` about it since.
        let (v, w) = (body.linear_velocity(), body.angular_velocity());
        let center = body.center_of_mass();
        let turn = UnitQuaternion::from_scaled_axis(w * dt);
        let carried = center + turn * (self.position - (center - v * dt));
        let up = self.settings.up;
        self.facing = UnitQuaternion::from_scaled_axis(up * (w.dot(&up) * dt)) * self.facing;
        Some(carried - self.position)
    }

    /// Sweeps `motion` through the world, sliding along what it hits (and, if `can_step`,
    /// stepping up what is low enough); returns the planes hit.
    fn slide(
        &mut self,
        world: &World,
        motion: Vector<Real>,
        can_step: bool,
        filter: &QueryFilter,
    ) -> Result<SmallVec<[Plane; 6]>, Error> {
        let up = self.settings.up;
        let keep = 0.5 * self.settings.skin;
        let mut planes: SmallVec<[Plane; 6]> = SmallVec::new();
        let mut rest = motion;
        for _ in 0..self.settings.max_iterations {
            let length = rest.norm();
            if length < TINY {
                break;
            }
            let dir = rest / length;
            let hit = world.cast_shape_to(&self.shape, &self.pose(), dir, length, keep, filter)?;
            let Some(hit) = hit else {
                self.position += rest;
                break;
            };
            self.position += dir * hit.toi;
            rest = dir * (length - hit.toi);
            self.hits.push(CharacterHit {
                collider: hit.collider,
                body: hit.body,
                point: hit.point,
                normal: hit.normal,
            });
            let n = hit.normal;
            // Something too steep to walk up, low enough to step onto: up, along, down.
            let low = (hit.point - self.position).dot(&up) + self.reach_down;
            let steep = !self.settings.walkable(&n);
            if can_step && steep && low <= self.settings.step_height {
                let level = rest - up * rest.dot(&up);
                if self.step_up(world, level, filter)? {
                    break;
                }
            }
            if !steep {
                planes.push(Plane {
                    normal: n,
                    vertical: true,
                });
            } else {
                planes.push(Plane {
                    normal: n,
                    vertical: false,
                });
                // Too steep to stand on: a wall as well, so that walking into it never climbs.
                let level = n - up * n.dot(&up);
                if n.dot(&up) > 0.0 {
                    if let Some(wall) = level.try_normalize(1.0e-6) {
                        planes.push(Plane {
                            normal: wall,
                            vertical: false,
                        });
                    }
                }
            }
            if planes.len() > 6 {
                planes.drain(..planes.len() - 6);
            }
            rest = constrain(rest, &planes, &up);
        }
        Ok(planes)
    }
}

/// `v` laid on the plane of unit normal `n` vertically (along `up`), if it goes into it: its
/// horizontal part is kept. A plane that is itself vertical takes it orthogonally.
fn onto_plane(v: &Vector<Real>, n: &Vector<Real>, up: &Vector<Real>) -> Vector<Real> {
    let into = v.dot(n);
    let rise = n.dot(up);
    if rise > 1.0e-3 {
        v - up * (into / rise)
    } else {
        v - n * into
    }
}

/// `v` laid on one plane if it goes into it: a walkable one vertically (the horizontal part
/// kept), another orthogonally.
fn project(v: &Vector<Real>, plane: &Plane, up: &Vector<Real>) -> Vector<Real> {
    let into = v.dot(&plane.normal);
    if into >= 0.0 {
        *v
    } else if plane.vertical {
        onto_plane(v, &plane.normal, up)
    } else {
        v - plane.normal * into
    }
}

/// Whether `v` goes into none of `planes` (beyond rounding).
fn clear_of(v: &Vector<Real>, planes: &[Plane]) -> bool {
    let slack = ALONG * v.norm();
    planes.iter().all(|p| v.dot(&p.normal) >= -slack)
}

/// The motion `v` laid on `planes`: as it is if it goes into none; else laid on one plane if that
/// clears the others; else along the crease of two that clears the rest; else nothing (a corner).
fn constrain(v: Vector<Real>, planes: &[Plane], up: &Vector<Real>) -> Vector<Real> {
    let into = |p: &Plane| v.dot(&p.normal) < -ALONG * v.norm();
    if planes.is_empty() || !planes.iter().any(into) {
        return v;
    }
    for plane in planes {
        let on = project(&v, plane, up);
        if clear_of(&on, planes) {
            return on;
        }
    }
    for (i, a) in planes.iter().enumerate() {
        for b in &planes[i + 1..] {
            let Some(crease) = a.normal.cross(&b.normal).try_normalize(1.0e-6) else {
                continue;
            };
            let on = crease * crease.dot(&v);
            if clear_of(&on, planes) {
                return on;
            }
        }
    }
    Vector::zeros()
}

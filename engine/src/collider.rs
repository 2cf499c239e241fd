//! Colliders: a shape, where it sits on its body, and its material.
//!
//! Level geometry (half-spaces, triangle meshes, height fields) goes on static bodies only:
//! [`crate::World::add_collider`] refuses it elsewhere with [`Error::StaticOnlyShape`], rather
//! than give a moving body a shape with no mass.

use parry3d::bounding_volume::Aabb;
use parry3d::math::{Isometry, Point, Real, Vector};
use parry3d::na::DMatrix;
use sprung_collision::broad_phase::ProxyId;
use sprung_collision::shape::{Shape, ShapeError};

use sprung_solver::softness::Spring;

use crate::error::{finite, Error};
use crate::handle::BodyHandle;
use crate::limits;

/// A shape attached to a body.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Collider {
    pub(crate) shape: Shape,
    /// `shape.scale()`, kept: the step reads it per pair (a hull's walks all its points).
    pub(crate) scale: Real,
    /// `shape.thickness()`, kept: continuous collision reads it per body and step (a hull's
    /// walks all its points). Derived, so not saved: [`World::restore`] computes it again.
    ///
    /// [`World::restore`]: crate::World::restore
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) thickness: Real,
    pub(crate) local_pose: Isometry<Real>,
    pub(crate) world_pose: Isometry<Real>,
    pub(crate) density: Real,
    pub(crate) friction: Real,
    pub(crate) restitution: Real,
    pub(crate) rolling_resistance: Real,
    pub(crate) body: BodyHandle,
    pub(crate) proxy: ProxyId,
    pub(crate) groups: CollisionGroups,
    pub(crate) contact_spring: Option<Spring>,
    pub(crate) sensor: bool,
    /// How far (m) any point of the shape moved since the narrow phase last saw it, at most
    /// (its shift plus its turn's chord at [`Collider::radius`]): what its pairs kept apart
    /// take off the distance they may still close. Infinite until first seen.
    pub(crate) moved: Real,
    /// The shape's bounding box where the broad phase's loop last computed it, and how far
    /// (m) any point of the shape moved since, at most (infinite: no box yet). While the box
    /// grown by that distance, swept and loosened, stays inside the proxy's fat box, and
    /// shrunk by it is not too small for the fat box, the box now cannot change the broad
    /// phase, and the step does not compute it (`keeps_box` in `world/collide.rs`). Not saved:
    /// a restored world computes every box again.
    #[cfg_attr(feature = "serde", serde(skip, default = "no_box"))]
    pub(crate) last_box: (Aabb, Real),
    /// The farthest (m) the shape lies from its body's centre of mass, and that centre (body
    /// frame) when it was measured ([`Collider::turn_radius`]): the body turns about it, which
    /// may lie off the collider's origin. Not saved: measured again when first asked.
    #[cfg_attr(feature = "serde", serde(skip, default = "no_turn"))]
    pub(crate) turn: (Point<Real>, Real),
}

/// [`Collider::last_box`] before any box: none, and infinitely far from it.
pub(crate) fn no_box() -> (Aabb, Real) {
    (Aabb::new_invalid(), Real::INFINITY)
}

/// [`Collider::turn`] before any measure: a centre no body has (NaN), so that the first ask
/// measures it.
pub(crate) fn no_turn() -> (Point<Real>, Real) {
    (Point::new(Real::NAN, Real::NAN, Real::NAN), 0.0)
}

/// Which colliders meet: two colliders can touch only if each one's `memberships` share a bit
/// with the other's `filter`. Default: member of every group, meeting every group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CollisionGroups {
    /// The groups this collider belongs to.
    pub memberships: u32,
    /// The groups it can touch.
    pub filter: u32,
}

impl Default for CollisionGroups {
    fn default() -> Self {
        CollisionGroups {
            memberships: u32::MAX,
            filter: u32::MAX,
        }
    }
}

impl CollisionGroups {
    /// True if colliders with these two settings can touch (both ways).
    pub fn meet(&self, other: &CollisionGroups) -> bool {
        self.memberships & other.filter != 0 && other.memberships & self.filter != 0
    }
}

impl Collider {
    /// The shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }
    /// Pose on the body.
    pub fn local_pose(&self) -> &Isometry<Real> {
        &self.local_pose
    }
    /// Pose in the world at the last step.
    pub fn world_pose(&self) -> &Isometry<Real> {
        &self.world_pose
    }
    /// The body it is attached to.
    pub fn body(&self) -> BodyHandle {
        self.body
    }
    /// Friction coefficient.
    pub fn friction(&self) -> Real {
        self.friction
    }
    /// Restitution.
    pub fn restitution(&self) -> Real {
        self.restitution
    }
    /// Rolling resistance coefficient (see [`ColliderBuilder::rolling_resistance`]).
    pub fn rolling_resistance(&self) -> Real {
        self.rolling_resistance
    }
    /// Density (kg/m^3).
    pub fn density(&self) -> Real {
        self.density
    }
    /// The spring of its soft contacts, if its material is soft.
    pub fn contact_spring(&self) -> Option<Spring> {
        self.contact_spring
    }
    /// True for a sensor: it reports overlaps and never pushes.
    pub fn is_sensor(&self) -> bool {
        self.sensor
    }
    /// Its collision groups.
    pub fn collision_groups(&self) -> CollisionGroups {
        self.groups
    }
    /// World bounding box at the last step.
    pub fn aabb(&self) -> Aabb {
        self.shape.aabb(&self.world_pose)
    }
}

/// Builds a [`Collider`]; [`crate::World::add_collider`] checks it and attaches it.
///
/// ```
/// use sprung::{ColliderBuilder, RigidBodyBuilder, World};
///
/// let mut world = World::default();
/// let body = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
/// world.add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5).density(1000.0).friction(0.5), body).unwrap();
/// assert!((world.body(body).unwrap().mass().mass - 1000.0).abs() < 1e-3);
/// // A bad shape is an error when the collider is added, not a panic.
/// assert!(world.add_collider(ColliderBuilder::ball(-1.0), body).is_err());
/// ```
#[derive(Clone, Debug)]
pub struct ColliderBuilder {
    shape: Result<Shape, ShapeError>,
    local_pose: Isometry<Real>,
    density: Real,
    friction: Real,
    restitution: Real,
    rolling_resistance: Real,
    groups: CollisionGroups,
    contact_spring: Option<Spring>,
    sensor: bool,
}

/// The rolling resistance colliders get unless told otherwise: none, as in Rapier, Box2D and
/// Jolt, so that a ball rolls down a slope at the textbook's 5/7 g sin(theta) and rolls on
/// along a flat floor for ever. Set one ([`ColliderBuilder::rolling_resistance`]) for rolling
/// to die out: rubber on concrete is about 0.01 to 0.02, and a ball of either material
/// rolling on the other then slows at 5/7 c g (0.07 m/s^2 for 0.01). Piles of balls come to
/// rest without it (the sleep rule, [`crate::SleepSettings`]).
pub const DEFAULT_ROLLING_RESISTANCE: Real = 0.0;

impl Collider {
    /// The farthest any point of the shape is from the collider's origin (m): how far a turn
    /// can carry the shape's surface (infinite for a half-space).
    pub(crate) fn radius(&self) -> Real {
        match &self.shape {
            Shape::Capsule(c) => {
                let ends = c.segment.a.coords.norm().max(c.segment.b.coords.norm());
                ends + c.radius
            }
            Shape::TriMesh(_) | Shape::HeightField(_) => {
                let b = self.shape.as_parry().compute_local_aabb();
                b.center().coords.norm() + b.half_extents().norm()
            }
            Shape::HalfSpace(_) => Real::INFINITY,
            // The largest distance of a point from the origin, kept.
            _ => self.scale,
        }
    }

    /// The farthest (m) the shape lies from `center` (its body's centre of mass, body frame):
    /// how far a turn of the body about it can carry the shape's surface. Measured when the
    /// centre is not the one last measured from (a collider added or removed, a mass set).
    pub(crate) fn turn_radius(&mut self, center: &Point<Real>) -> Real {
        if self.turn.0 != *center {
            let local = self.local_pose.inverse_transform_point(center);
            let radius = match &self.shape {
                // Static only, never turned: the radius about the origin, as the box takes.
                Shape::HalfSpace(_) | Shape::TriMesh(_) | Shape::HeightField(_) => {
                    self.radius() + local.coords.norm()
                }
                shape => shape.extent_from(&local),
            };
            self.turn = (*center, radius);
        }
        self.turn.1
    }

    /// Whether a collider read from bytes (a snapshot) holds what `ColliderBuilder` would have
    /// let through, with a finite world pose.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) fn check(&self) -> Result<(), Error> {
        let builder = ColliderBuilder {
            shape: Ok(self.shape.clone()),
            local_pose: self.local_pose,
            density: self.density,
            friction: self.friction,
            restitution: self.restitution,
            rolling_resistance: self.rolling_resistance,
            groups: self.groups,
            contact_spring: self.contact_spring,
            sensor: self.sensor,
        };
        builder.build(self.body)?;
        limits::pose("collider pose", "collider rotation", &self.world_pose)?;
        if self.scale.to_bits() != self.shape.scale().to_bits() {
            return Err(Error::OutOfRange("collider scale: its shape's"));
        }
        // Not negative (a pair kept apart would wrongly gain room), nor NaN.
        if self.moved.is_nan() || self.moved < 0.0 {
            return Err(Error::OutOfRange("collider motion since the narrow phase"));
        }
        Ok(())
    }
}

impl ColliderBuilder {
    /// A collider of any shape. Defaults: density 1000 kg/m^3, friction 0.5, restitution 0,
    /// rolling resistance [`DEFAULT_ROLLING_RESISTANCE`].
    pub fn new(shape: Shape) -> Self {
        Self::from(Ok(shape))
    }
    fn from(shape: Result<Shape, ShapeError>) -> Self {
        ColliderBuilder {
            shape,
            local_pose: Isometry::identity(),
            density: 1000.0,
            friction: 0.5,
            restitution: 0.0,
            rolling_resistance: DEFAULT_ROLLING_RESISTANCE,
            groups: CollisionGroups::default(),
            contact_spring: None,
            sensor: false,
        }
    }
    /// A box of half-extents (m).
    pub fn cuboid(hx: Real, hy: Real, hz: Real) -> Self {
        Self::from(Shape::cuboid(Vector::new(hx, hy, hz)))
    }
    /// A sphere of `radius` (m).
    pub fn ball(radius: Real) -> Self {
        Self::from(Shape::sphere(radius))
    }
    /// A capsule along local Y.
    pub fn capsule(half_height: Real, radius: Real) -> Self {
        Self::from(Shape::capsule(half_height, radius))
    }
    /// The convex hull of `points` (local frame).
    pub fn convex_hull(points: &[Point<Real>]) -> Self {
        Self::from(Shape::convex_hull(points))
    }
    /// Everything below the plane through the body's origin with outward `normal` (any length
    /// but zero): an endless floor or wall. Static bodies only. Its broad-phase box is
    /// finite (1e6 m about the world origin), so it reaches no further than that.
    ///
    /// ```
    /// use sprung::{ColliderBuilder, RigidBodyBuilder, World};
    /// use sprung::math::Vector;
    ///
    /// let mut world = World::default();
    /// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    /// world.add_collider(ColliderBuilder::halfspace(Vector::y()), ground).unwrap();
    /// let ball = world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 1.0, 0.0))).unwrap();
    /// world.add_collider(ColliderBuilder::ball(0.5), ball).unwrap();
    /// for _ in 0..60 {
    ///     world.step(1.0 / 60.0).unwrap();
    /// }
    /// assert!((world.body(ball).unwrap().translation().y - 0.5).abs() < 0.01);
    /// // Level shapes only go on static bodies.
    /// assert!(world.add_collider(ColliderBuilder::halfspace(Vector::y()), ball).is_err());
    /// ```
    pub fn halfspace(normal: Vector<Real>) -> Self {
        Self::from(Shape::halfspace(normal))
    }
    /// A triangle mesh (body frame): `vertices` and counter-clockwise `indices`, the solid behind
    /// the front faces. Static bodies only. Contacts do not catch on the seams between coplanar
    /// triangles. Refused: empty, non-finite, indices out of range, or every triangle flat.
    ///
    /// ```
    /// use sprung::{ColliderBuilder, RigidBodyBuilder, World};
    /// use sprung::math::Point;
    ///
    /// let mut world = World::default();
    /// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    /// // A 10 m square floor of two triangles, facing up.
    /// let vertices = vec![
    ///     Point::new(-5.0, 0.0, -5.0),
    ///     Point::new(-5.0, 0.0, 5.0),
    ///     Point::new(5.0, 0.0, 5.0),
    ///     Point::new(5.0, 0.0, -5.0),
    /// ];
    /// world.add_collider(ColliderBuilder::trimesh(vertices, vec![[0, 1, 2], [0, 2, 3]]), ground).unwrap();
    /// assert!(world.add_collider(ColliderBuilder::trimesh(vec![], vec![]), ground).is_err());
    /// ```
    pub fn trimesh(vertices: Vec<Point<Real>>, indices: Vec<[u32; 3]>) -> Self {
        Self::from(Shape::trimesh(vertices, indices))
    }
    /// A height field (body frame): `heights` is nrows x ncols (at least 2 x 2; row i along Z,
    /// column j along X) spread over `scale.x` by `scale.z` metres centred on the body, each
    /// height times `scale.y`; solid below. Static bodies only.
    ///
    /// ```
    /// use sprung::{ColliderBuilder, RigidBodyBuilder, World};
    /// use sprung::math::Vector;
    /// use sprung::math::DMatrix;
    ///
    /// let mut world = World::default();
    /// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    /// // 20 m x 20 m of gentle waves, 11 x 11 samples.
    /// let heights = DMatrix::from_fn(11, 11, |i, j| 0.2 * ((i + j) as f32 * 0.5).sin());
    /// world.add_collider(ColliderBuilder::heightfield(heights, Vector::new(20.0, 1.0, 20.0)), ground).unwrap();
    /// // A single row is no surface.
    /// let flat = DMatrix::zeros(1, 5);
    /// assert!(world.add_collider(ColliderBuilder::heightfield(flat, Vector::new(1.0, 1.0, 1.0)), ground).is_err());
    /// ```
    pub fn heightfield(heights: DMatrix<Real>, scale: Vector<Real>) -> Self {
        Self::from(Shape::heightfield(heights, scale))
    }
    /// Pose on the body.
    pub fn local_pose(mut self, pose: Isometry<Real>) -> Self {
        self.local_pose = pose;
        self
    }
    /// Offset on the body (m).
    pub fn translation(mut self, t: Vector<Real>) -> Self {
        self.local_pose.translation.vector = t;
        self
    }
    /// Density (kg/m^3, > 0).
    pub fn density(mut self, density: Real) -> Self {
        self.density = density;
        self
    }
    /// Friction coefficient (>= 0); pairs mix by the geometric mean.
    pub fn friction(mut self, friction: Real) -> Self {
        self.friction = friction;
        self
    }
    /// A soft (penalty) material: its contacts push back as `spring` per contact point instead
    /// of as rigid rows. A trampoline is low stiffness and low damping, quicksand low stiffness
    /// and high damping; at rest a body of mass m on one point sinks m g / k.
    pub fn soft_contact(mut self, spring: Spring) -> Self {
        self.contact_spring = Some(spring);
        self
    }
    /// A sensor: it reports bodies entering and leaving it ([`crate::Event::SensorEntered`],
    /// [`crate::Event::SensorLeft`]) and never pushes them; it adds no mass to its body.
    pub fn sensor(mut self, sensor: bool) -> Self {
        self.sensor = sensor;
        self
    }
    /// Collision groups: this collider belongs to `memberships` and touches only colliders
    /// that belong to a group of `filter` (and whose own filter admits it).
    pub fn collision_groups(mut self, memberships: u32, filter: u32) -> Self {
        self.groups = CollisionGroups {
            memberships,
            filter,
        };
        self
    }
    /// Restitution (>= 0); pairs take the larger.
    pub fn restitution(mut self, restitution: Real) -> Self {
        self.restitution = restitution;
        self
    }
    /// Rolling resistance coefficient (0 to [`limits::MAX_FRICTION`]); pairs take the larger.
    /// A round shape (sphere, capsule) rolling on another feels a torque of at most this times
    /// its radius times the normal force (Box3D's form); shapes with flat faces do not roll.
    /// None by default ([`DEFAULT_ROLLING_RESISTANCE`]): a solid ball rolling on flat ground
    /// with `c` slows at 5/7 c g and stops after `v^2 / (10/7 c g)` metres.
    pub fn rolling_resistance(mut self, rolling_resistance: Real) -> Self {
        self.rolling_resistance = rolling_resistance;
        self
    }

    pub(crate) fn build(self, body: BodyHandle) -> Result<Collider, Error> {
        let shape = self.shape?;
        // A shape built from its variants by hand has not met its constructor's checks.
        shape.check()?;
        let local_pose = limits::pose("collider pose", "collider rotation", &self.local_pose)?;
        finite(
            "collider material",
            &[
                self.density,
                self.friction,
                self.restitution,
                self.rolling_resistance,
            ],
        )?;
        if self.density <= 0.0 {
            return Err(Error::NonPositive("density"));
        }
        if self.friction < 0.0 {
            return Err(Error::Negative("friction"));
        }
        if self.restitution < 0.0 {
            return Err(Error::Negative("restitution"));
        }
        if self.rolling_resistance < 0.0 {
            return Err(Error::Negative("rolling resistance"));
        }
        if self.rolling_resistance > limits::MAX_FRICTION {
            return Err(Error::OutOfRange("rolling resistance: at most 1000"));
        }
        if !(limits::MIN_DENSITY..=limits::MAX_DENSITY).contains(&self.density) {
            return Err(Error::OutOfRange("density: 1e-3 to 1e6 kg/m^3"));
        }
        if self.friction > limits::MAX_FRICTION {
            return Err(Error::OutOfRange("friction: at most 1000"));
        }
        if self.restitution > 1.0 {
            return Err(Error::OutOfRange("restitution: at most 1"));
        }
        if let Some(spring) = &self.contact_spring {
            spring.check().map_err(Error::Spring)?;
        }
        Ok(Collider {
            scale: shape.scale(),
            thickness: shape.thickness(),
            shape,
            local_pose,
            world_pose: local_pose,
            density: self.density,
            friction: self.friction,
            restitution: self.restitution,
            rolling_resistance: self.rolling_resistance,
            body,
            proxy: ProxyId(u32::MAX),
            groups: self.groups,
            contact_spring: self.contact_spring,
            sensor: self.sensor,
            moved: Real::INFINITY,
            last_box: no_box(),
            turn: no_turn(),
        })
    }
}

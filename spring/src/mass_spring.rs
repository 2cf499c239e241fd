//! A position-based mass-spring system for ropes and cloth that cannot explode.
//!
//! Points move by Verlet integration in positions only (the step's velocity is the last
//! displacement, gravity a displacement per update), and springs are not forces but position
//! corrections: each pulls its two points towards its rest length by a fraction `elasticity`
//! of the error, between 0 (slack) and 2 (mirrored past the rest length); beyond 2 a correction
//! would overshoot by more than the error and is refused. Pinned points stay put. Points collide
//! one way with obstacles ([`Obstacles`]: sprung's `World` is one, its colliders): pushed out of
//! them, never pushing.
//! (After the article "how to make a mass-spring model that never explodes", seeds/001.)
//!
//! The article notes that without damping the elasticity must stay under 1. The reason, for one
//! spring whose error is e: Verlet carries the correction into the next update, e' = (1 - s)
//! (e + k v), whose growth factor leaves the unit circle once `c = s - 1 > 0` and the kept
//! velocity fraction `k` exceeds `(1 - c) / (2 c)`. So above 1 the system keeps at most that
//! fraction of the velocity (less a margin): the damping the elasticity needs is applied, not
//! left to the user to find. At 2 it keeps none: the springs then relax the shape each update.

use nalgebra::{Point3, Vector3};

use crate::limits;
use crate::Real;

type Point<T> = Point3<T>;
type Vector<T> = Vector3<T>;

/// What a mass-spring system's points are kept out of. sprung's `World` is one: its colliders
/// push points out to `radius` from their surfaces.
pub trait Obstacles {
    /// Moves `point` out of every obstacle it is inside or within `radius` of, to `radius` from
    /// the surface along the nearest way out; leaves it alone otherwise.
    fn push_out(&self, point: &mut Point<Real>, radius: Real);
}

/// Why a mass-spring system refused a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MassSpringError {
    /// A value was NaN or infinite (which one).
    NonFinite(&'static str),
    /// A value outside its range (which, and the range).
    OutOfRange(&'static str),
    /// A time step that is not finite or outside [`limits::MIN_TIME_STEP`] to
    /// [`limits::MAX_TIME_STEP`].
    InvalidTimeStep,
}

impl std::fmt::Display for MassSpringError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MassSpringError::NonFinite(what) => write!(f, "{what} must be finite"),
            MassSpringError::OutOfRange(what) => write!(f, "out of range: {what}"),
            MassSpringError::InvalidTimeStep => write!(f, "invalid time step"),
        }
    }
}

impl std::error::Error for MassSpringError {}

/// Finite, and every component within ±[`limits::MAX_COORDINATE`].
fn position(what: &'static str, p: &Vector<Real>) -> Result<(), MassSpringError> {
    if !p.iter().all(|x| x.is_finite()) {
        return Err(MassSpringError::NonFinite(what));
    }
    if p.iter().any(|x| x.abs() > limits::MAX_COORDINATE) {
        return Err(MassSpringError::OutOfRange("coordinates: within ±1e5 m"));
    }
    Ok(())
}

/// A spring between two points: its rest length is their distance when it was added.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Link {
    a: u32,
    b: u32,
    rest: Real,
}

/// Ropes and cloth as points and position-correcting springs.
///
/// ```
/// use sprung_spring::MassSpring;
/// use nalgebra::{Point3 as Point, Vector3 as Vector};
///
/// // A 2 m rope of 11 points hanging from its first.
/// let mut rope = MassSpring::new(1.0, Vector::new(0.0, -9.81, 0.0), 1.0 / 60.0).unwrap();
/// let mut previous = rope.add_point(Point::new(0.0, 5.0, 0.0), true).unwrap();
/// for i in 1..=10 {
///     let p = rope.add_point(Point::new(0.2 * i as f32, 5.0, 0.0), false).unwrap();
///     rope.add_spring(previous, p).unwrap();
///     previous = p;
/// }
/// for _ in 0..600 {
///     rope.update(None);
/// }
/// assert!(rope.point(10).unwrap().y < 3.2);
/// ```
#[derive(Clone, Debug)]
pub struct MassSpring {
    points: Vec<Point<Real>>,
    previous: Vec<Point<Real>>,
    pinned: Vec<bool>,
    links: Vec<Link>,
    elasticity: Real,
    /// Gravity as a displacement per update (m): g dt^2.
    fall: Vector<Real>,
    /// Fraction of each update's velocity kept (1 - damping), in [0, 1].
    keep: Real,
    /// Passes over the springs per update.
    pub iterations: u32,
    /// How far points stay from colliders' surfaces (m).
    pub radius: Real,
}

impl MassSpring {
    /// An empty system: springs of `elasticity` (in [0, 2]), `gravity` (m/s^2), updated every
    /// `dt` (s). Damping 1% of the velocity per update, 8 passes over the springs.
    pub fn new(elasticity: Real, gravity: Vector<Real>, dt: Real) -> Result<Self, MassSpringError> {
        if !elasticity.is_finite() {
            return Err(MassSpringError::NonFinite("elasticity"));
        }
        if !gravity.iter().all(|g| g.is_finite()) {
            return Err(MassSpringError::NonFinite("gravity"));
        }
        if gravity.iter().any(|g| g.abs() > limits::MAX_ACCELERATION) {
            return Err(MassSpringError::OutOfRange("gravity: within ±1e4 m/s^2"));
        }
        if !(0.0..=2.0).contains(&elasticity) {
            return Err(MassSpringError::OutOfRange(
                "elasticity must be within [0, 2]",
            ));
        }
        if !(dt.is_finite() && (limits::MIN_TIME_STEP..=limits::MAX_TIME_STEP).contains(&dt)) {
            return Err(MassSpringError::InvalidTimeStep);
        }
        Ok(MassSpring {
            points: Vec::new(),
            previous: Vec::new(),
            pinned: Vec::new(),
            links: Vec::new(),
            elasticity,
            fall: gravity * dt * dt,
            keep: 0.99,
            iterations: 8,
            radius: 0.02,
        })
    }

    /// Keeps `1 - damping` of each update's velocity (`damping` in [0, 1]).
    pub fn set_damping(&mut self, damping: Real) -> Result<(), MassSpringError> {
        if !(0.0..=1.0).contains(&damping) {
            return Err(MassSpringError::OutOfRange("damping must be within [0, 1]"));
        }
        self.keep = 1.0 - damping;
        Ok(())
    }

    /// Adds a point at rest at `at`; a pinned point never moves. Returns its index.
    pub fn add_point(&mut self, at: Point<Real>, pinned: bool) -> Result<usize, MassSpringError> {
        position("point", &at.coords)?;
        self.points.push(at);
        self.previous.push(at);
        self.pinned.push(pinned);
        Ok(self.points.len() - 1)
    }

    /// Joins points `a` and `b` by a spring whose rest length is their distance now.
    pub fn add_spring(&mut self, a: usize, b: usize) -> Result<(), MassSpringError> {
        if a >= self.points.len() || b >= self.points.len() || a == b {
            return Err(MassSpringError::OutOfRange(
                "spring points must be two existing points",
            ));
        }
        let rest = (self.points[b] - self.points[a]).norm();
        self.links.push(Link {
            a: a as u32,
            b: b as u32,
            rest,
        });
        Ok(())
    }

    /// Puts a point at `at`, at rest (a pinned one too: this is how a rope's end is carried).
    pub fn set_point(&mut self, index: usize, at: Point<Real>) -> Result<(), MassSpringError> {
        position("point", &at.coords)?;
        if index >= self.points.len() {
            return Err(MassSpringError::OutOfRange("no such point"));
        }
        self.points[index] = at;
        self.previous[index] = at;
        Ok(())
    }

    /// Pulls a free point by `displacement` (m) without touching its last position: the pull
    /// becomes velocity, as a hand yanking the cloth would.
    pub fn pull(
        &mut self,
        index: usize,
        displacement: Vector<Real>,
    ) -> Result<(), MassSpringError> {
        position("pull", &displacement)?;
        if index >= self.points.len() {
            return Err(MassSpringError::OutOfRange("no such point"));
        }
        if !self.pinned[index] {
            self.points[index] += displacement;
        }
        Ok(())
    }

    /// Where point `index` is (`None` for an index `add_point` never returned).
    pub fn point(&self, index: usize) -> Option<Point<Real>> {
        self.points.get(index).copied()
    }

    /// All points.
    pub fn points(&self) -> &[Point<Real>] {
        &self.points
    }

    /// The springs, each as the indices of its two points (for drawing).
    pub fn springs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.links.iter().map(|l| (l.a as usize, l.b as usize))
    }

    /// The largest length / rest length over the springs.
    pub fn max_stretch(&self) -> Real {
        self.links
            .iter()
            .filter(|l| l.rest > 0.0)
            .map(|l| (self.points[l.b as usize] - self.points[l.a as usize]).norm() / l.rest)
            .fold(0.0, Real::max)
    }

    /// The largest distance a point moved in the last update (m): near zero at rest.
    pub fn last_motion(&self) -> Real {
        self.points
            .iter()
            .zip(&self.previous)
            .map(|(p, q)| (p - q).norm())
            .fold(0.0, Real::max)
    }

    /// One update: Verlet in positions, then passes of the springs' corrections and the
    /// obstacles pushing points out (if given: `Some(&world)` for sprung's colliders).
    pub fn update(&mut self, obstacles: Option<&dyn Obstacles>) {
        let c = self.elasticity - 1.0;
        let keep = if c > 0.0 {
            self.keep.min(0.9 * (1.0 - c) / (2.0 * c))
        } else {
            self.keep
        };
        for i in 0..self.points.len() {
            if self.pinned[i] {
                self.previous[i] = self.points[i];
                continue;
            }
            let velocity = (self.points[i] - self.previous[i]) * keep;
            self.previous[i] = self.points[i];
            self.points[i] += velocity + self.fall;
        }
        // Springs and colliders are projected together, pass after pass, so that neither
        // undoes the other (a rope over an edge keeps its length and stays out of the edge).
        for _ in 0..self.iterations {
            self.relax_springs();
            if let Some(obstacles) = obstacles {
                self.collide(obstacles);
            }
        }
    }

    /// One pass over the springs.
    fn relax_springs(&mut self) {
        for link in &self.links {
            let (a, b) = (link.a as usize, link.b as usize);
            let d = self.points[b] - self.points[a];
            let length = d.norm();
            if length <= Real::EPSILON {
                continue;
            }
            let error = d * ((length - link.rest) / length * self.elasticity);
            match (self.pinned[a], self.pinned[b]) {
                (false, false) => {
                    self.points[a] += error * 0.5;
                    self.points[b] -= error * 0.5;
                }
                (false, true) => self.points[a] += error,
                (true, false) => self.points[b] -= error,
                (true, true) => {}
            }
        }
    }

    /// Pushes every free point out of the obstacles, `radius` from their surfaces.
    fn collide(&mut self, obstacles: &dyn Obstacles) {
        for (i, p) in self.points.iter_mut().enumerate() {
            if !self.pinned[i] {
                obstacles.push_out(p, self.radius);
            }
        }
    }
}

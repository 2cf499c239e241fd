//! World queries: ray casts, shape casts, overlap tests and contacts against the world's
//! colliders.
//!
//! In: a ray, a moving shape, a point or a shape, and a [`QueryFilter`]. Out: the colliders hit
//! or overlapped, with where and how. The broad phase prunes and [`sprung_collision::cast`],
//! GJK and EPA decide ([`candidates`] says which pose each collider is tested at). Level
//! geometry is tested piece by piece ([`sprung_collision::level`]): a mesh or height field by
//! its triangles under what the query reaches, a half-space in closed form. Queries read the
//! world and change nothing; bad input is refused with an [`Error`].

mod candidates;
mod filter;

pub(crate) use candidates::QueryView;
pub use filter::QueryFilter;

use parry3d::bounding_volume::BoundingVolume;
use parry3d::math::{Isometry, Point, Real, Vector};
use sprung_collision::cast::{ray_cast, Motion};
use sprung_collision::shape::Shape;
use sprung_collision::{dispatch, level};

use crate::error::{finite, Error};
use crate::handle::{BodyHandle, ColliderHandle};
use crate::limits;
use crate::world::World;
use candidates::{point_box, Sweep};

/// Where a ray hit a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHitInfo {
    /// The collider hit.
    pub collider: ColliderHandle,
    /// Its body.
    pub body: BodyHandle,
    /// Distance from the ray's origin to the hit (m).
    pub toi: Real,
    /// The hit point (world).
    pub point: Point<Real>,
    /// Unit surface normal at the hit, facing the ray (`-dir` for a solid cast from inside).
    pub normal: Vector<Real>,
}

/// The nearest point of a collider to a query point ([`World::project_point`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointProjection {
    /// The collider.
    pub collider: ColliderHandle,
    /// Its body.
    pub body: BodyHandle,
    /// The nearest point of the collider (world): on its surface, or the query point itself
    /// when that is inside and the projection solid.
    pub point: Point<Real>,
    /// Whether the query point is inside the collider.
    pub is_inside: bool,
    /// From the query point to `point` (m).
    pub distance: Real,
}

/// Where a cast shape first touched a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeHitInfo {
    /// The collider hit.
    pub collider: ColliderHandle,
    /// Its body.
    pub body: BodyHandle,
    /// When the shape touches it, in the velocity's time units (s for m/s; m for a unit
    /// direction); 0 if it already touches at the start.
    pub toi: Real,
    /// The touching point on the collider (world).
    pub point: Point<Real>,
    /// The touching point on the cast shape, at `toi` (world).
    pub point_on_shape: Point<Real>,
    /// Unit normal of the collider's surface at the contact, facing the cast shape.
    pub normal: Vector<Real>,
}

/// Where a shape is near or inside a collider ([`World::contacts_with_shape`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeContact {
    /// The collider.
    pub collider: ColliderHandle,
    /// Its body.
    pub body: BodyHandle,
    /// Signed distance between the surfaces (m): positive apart, negative overlapping.
    pub distance: Real,
    /// Unit normal of the collider's surface there, from the collider towards the shape: the
    /// way to move the shape by `-distance` to just touch (out of an overlap).
    pub normal: Vector<Real>,
    /// The collider's nearest (or deepest) point (world).
    pub point: Point<Real>,
    /// The shape's nearest (or deepest) point (world).
    pub point_on_shape: Point<Real>,
}

impl World {
    /// The first collider hit by the ray from `origin` along `dir`, within `max_toi` metres
    /// (infinity allowed). `dir` need not be unit: it is normalised, and `toi` is a distance.
    /// A `solid` shape around the origin is hit at once (toi 0); a hollow one where the ray
    /// leaves it. Colliders are tested where their bodies are now.
    ///
    /// Refused: a non-finite origin or direction, a zero direction, a NaN or negative
    /// `max_toi`.
    ///
    /// ```
    /// use sprung::{ColliderBuilder, QueryFilter, RigidBodyBuilder, World};
    /// use sprung::math::{Point, Vector};
    ///
    /// let mut world = World::default();
    /// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    /// world.add_collider(ColliderBuilder::cuboid(10.0, 0.5, 10.0), ground).unwrap();
    ///
    /// let hit = world
    ///     .cast_ray(Point::new(1.0, 5.0, 0.0), -Vector::y(), 100.0, true, &QueryFilter::new())
    ///     .unwrap()
    ///     .expect("the ground is below");
    /// assert_eq!(hit.body, ground);
    /// assert!((hit.toi - 4.5).abs() < 1e-5);
    /// assert!((hit.normal - Vector::y()).norm() < 1e-5);
    /// // A ray needs a direction.
    /// assert!(world.cast_ray(Point::origin(), Vector::zeros(), 1.0, true, &QueryFilter::new()).is_err());
    /// ```
    pub fn cast_ray(
        &self,
        origin: Point<Real>,
        dir: Vector<Real>,
        max_toi: Real,
        solid: bool,
        filter: &QueryFilter,
    ) -> Result<Option<RayHitInfo>, Error> {
        let unit = check_ray(&origin, &dir, max_toi)?;
        let mut best: Option<RayHitInfo> = None;
        let sweep = Sweep {
            start: point_box(&origin),
            dir: unit,
            max_t: max_toi,
        };
        self.query_view().for_each(&sweep, filter, |c| {
            // Only what is nearer than the best so far can replace it.
            let reach = best.map_or(max_toi, |b| b.toi);
            if let Some(hit) = ray_cast(&c.collider.shape, &c.pose, &origin, &unit, reach, solid) {
                let info = RayHitInfo {
                    collider: c.handle,
                    body: c.body,
                    toi: hit.toi,
                    point: hit.point,
                    normal: hit.normal,
                };
                if best.is_none_or(|b| nearer(info.toi, info.collider, b.toi, b.collider)) {
                    best = Some(info);
                }
            }
        });
        Ok(best)
    }

    /// Every collider hit by the ray (as [`cast_ray`](Self::cast_ray)), nearest first (ties by
    /// handle).
    pub fn cast_ray_all(
        &self,
        origin: Point<Real>,
        dir: Vector<Real>,
        max_toi: Real,
        solid: bool,
        filter: &QueryFilter,
    ) -> Result<Vec<RayHitInfo>, Error> {
        let unit = check_ray(&origin, &dir, max_toi)?;
        let mut hits = Vec::new();
        let sweep = Sweep {
            start: point_box(&origin),
            dir: unit,
            max_t: max_toi,
        };
        self.query_view().for_each(&sweep, filter, |c| {
            if let Some(hit) = ray_cast(&c.collider.shape, &c.pose, &origin, &unit, max_toi, solid)
            {
                hits.push(RayHitInfo {
                    collider: c.handle,
                    body: c.body,
                    toi: hit.toi,
                    point: hit.point,
                    normal: hit.normal,
                });
            }
        });
        hits.sort_by(|a, b| a.toi.total_cmp(&b.toi).then(a.collider.cmp(&b.collider)));
        Ok(hits)
    }

    /// The first collider that `shape`, starting at `pose` and sliding at `velocity` without
    /// turning, touches within time `max_toi` (infinity allowed): a sweep for character
    /// controllers and placement. A collider it already touches is hit at toi 0.
    ///
    /// Refused: a shape with bad numbers, a non-finite pose or velocity, a NaN or negative
    /// `max_toi`.
    pub fn cast_shape(
        &self,
        shape: &Shape,
        pose: &Isometry<Real>,
        velocity: Vector<Real>,
        max_toi: Real,
        filter: &QueryFilter,
    ) -> Result<Option<ShapeHitInfo>, Error> {
        self.cast_shape_to(shape, pose, velocity, max_toi, 0.0, filter)
    }

    /// As [`cast_shape`](Self::cast_shape), but the shape stops when it comes within `distance`
    /// (m, >= 0) of a collider: the sweep of a character that keeps a skin between itself and
    /// the world. A collider already that near is hit at toi 0 if the shape moves towards it
    /// (it may be inside the skin after the world moved); one it moves along or away from does
    /// not stop it, so a character resting a skin above the floor can walk. A mesh counts
    /// triangle by triangle.
    ///
    /// ```
    /// use sprung::{ColliderBuilder, QueryFilter, RigidBodyBuilder, Shape, World};
    /// use sprung::math::{Isometry, Vector};
    ///
    /// let mut world = World::default();
    /// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    /// world.add_collider(ColliderBuilder::halfspace(Vector::y()), ground).unwrap();
    /// // A ball of 0.5 m falling from 3 m stops 2 cm above the floor: after 2.48 m.
    /// let ball = Shape::sphere(0.5).unwrap();
    /// let start = Isometry::translation(0.0, 3.0, 0.0);
    /// let filter = QueryFilter::new();
    /// let hit = world.cast_shape_to(&ball, &start, -Vector::y(), 10.0, 0.02, &filter).unwrap();
    /// assert!((hit.unwrap().toi - 2.48).abs() < 1e-5);
    /// ```
    pub fn cast_shape_to(
        &self,
        shape: &Shape,
        pose: &Isometry<Real>,
        velocity: Vector<Real>,
        max_toi: Real,
        distance: Real,
        filter: &QueryFilter,
    ) -> Result<Option<ShapeHitInfo>, Error> {
        let pose = &check_shape(shape, pose)?;
        check_margin("distance", distance)?;
        limits::bounded(
            "shape cast velocity",
            velocity.as_slice(),
            limits::MAX_COORDINATE,
            "shape cast velocity: within ±1e5",
        )?;
        check_max_toi(max_toi)?;
        let motion = Motion::linear(*pose, velocity);
        let mut best: Option<ShapeHitInfo> = None;
        let sweep = Sweep {
            start: shape.aabb(pose).loosened(distance),
            dir: velocity,
            max_t: max_toi,
        };
        self.query_view().for_each(&sweep, filter, |c| {
            let reach = best.map_or(max_toi, |b| b.toi);
            // A mesh is cut into triangles where the sweep crosses its box.
            let region = match &c.collider.shape {
                s if s.is_level() => match sweep.within(&s.aabb(&c.pose)) {
                    Some(region) => region,
                    None => return,
                },
                _ => sweep.start,
            };
            let toi = level::cast(
                shape,
                &motion,
                reach,
                distance,
                &c.collider.shape,
                &c.pose,
                &region,
            );
            if let Some(toi) = toi {
                let info = ShapeHitInfo {
                    collider: c.handle,
                    body: c.body,
                    toi: toi.t,
                    point: toi.point_b,
                    point_on_shape: toi.point_a,
                    normal: -toi.normal,
                };
                if best.is_none_or(|b| nearer(info.toi, info.collider, b.toi, b.collider)) {
                    best = Some(info);
                }
            }
        });
        Ok(best)
    }

    /// The nearest point to `point` on any collider the filter accepts, if one lies within
    /// `max_dist` (m; may be infinite). With `solid`, a point inside a collider is its own
    /// projection (distance 0); without, it goes to the collider's surface. Ties go to the
    /// smaller handle.
    ///
    /// The broad phase is searched in a box around the point that grows until it holds a
    /// collider at least as near as the box's half-width (then nothing nearer can lie
    /// outside it), or holds the whole world.
    ///
    /// ```
    /// use sprung::{ColliderBuilder, QueryFilter, RigidBodyBuilder, World};
    /// use sprung::math::{Point, Real, Vector};
    ///
    /// let mut world = World::default();
    /// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    /// world.add_collider(ColliderBuilder::cuboid(10.0, 0.5, 10.0), ground).unwrap();
    /// let filter = QueryFilter::new();
    /// let above = world.project_point(Point::new(1.0, 3.0, 2.0), Real::INFINITY, true, &filter);
    /// let p = above.unwrap().unwrap();
    /// assert!((p.point - Point::new(1.0, 0.5, 2.0)).norm() < 1e-5 && !p.is_inside);
    /// assert!((p.distance - 2.5).abs() < 1e-5);
    /// // Nothing within a metre of it.
    /// assert!(world.project_point(Point::new(1.0, 3.0, 2.0), 1.0, true, &filter).unwrap().is_none());
    /// ```
    pub fn project_point(
        &self,
        point: Point<Real>,
        max_dist: Real,
        solid: bool,
        filter: &QueryFilter,
    ) -> Result<Option<PointProjection>, Error> {
        limits::position("point", &point.coords)?;
        if max_dist.is_nan() {
            return Err(Error::NonFinite("max_dist"));
        } else if max_dist < 0.0 {
            return Err(Error::Negative("max_dist"));
        }
        let view = self.query_view();
        // Past this distance there is no collider at all.
        let limit = max_dist.min(self.query_reach(&point));
        let mut half = limit.min(1.0);
        loop {
            let sweep = Sweep {
                start: point_box(&point).loosened(half),
                dir: Vector::zeros(),
                max_t: 0.0,
            };
            let mut best: Option<PointProjection> = None;
            view.for_each(&sweep, filter, |c| {
                let near = c
                    .collider
                    .shape
                    .as_parry()
                    .project_point(&c.pose, &point, solid);
                let distance = (near.point - point).norm();
                let nearest = best.is_none_or(|b| {
                    distance < b.distance || (distance == b.distance && c.handle < b.collider)
                });
                if distance <= max_dist && nearest {
                    best = Some(PointProjection {
                        collider: c.handle,
                        body: c.body,
                        point: near.point,
                        is_inside: near.is_inside,
                        distance,
                    });
                }
            });
            match best {
                // Anything nearer is within `half` on every axis: in the box searched.
                Some(b) if b.distance <= half => return Ok(Some(b)),
                _ if half >= limit => return Ok(best),
                Some(b) => half = b.distance.min(limit),
                None => half = (half * 4.0).max(1.0e-3).min(limit),
            }
        }
    }

    /// Every collider containing `point` (surface included), by handle.
    pub fn intersect_point(
        &self,
        point: Point<Real>,
        filter: &QueryFilter,
    ) -> Result<Vec<(ColliderHandle, BodyHandle)>, Error> {
        limits::position("point", &point.coords)?;
        let mut found = Vec::new();
        let sweep = Sweep {
            start: point_box(&point),
            dir: Vector::zeros(),
            max_t: 0.0,
        };
        self.query_view().for_each(&sweep, filter, |c| {
            let local = c.pose.inverse_transform_point(&point);
            if c.collider.shape.contains_local_point(&local) {
                found.push((c.handle, c.body));
            }
        });
        found.sort_unstable();
        Ok(found)
    }

    /// Every collider that `shape` at `pose` touches or overlaps (GJK distance 0), by handle.
    ///
    /// Refused: a shape with bad numbers, a non-finite pose.
    pub fn intersect_shape(
        &self,
        shape: &Shape,
        pose: &Isometry<Real>,
        filter: &QueryFilter,
    ) -> Result<Vec<(ColliderHandle, BodyHandle)>, Error> {
        let pose = &check_shape(shape, pose)?;
        let mut found = Vec::new();
        let sweep = Sweep {
            start: shape.aabb(pose),
            dir: Vector::zeros(),
            max_t: 0.0,
        };
        self.query_view().for_each(&sweep, filter, |c| {
            let touches = if c.collider.shape.is_level() {
                let mut any = false;
                level::contacts(shape, pose, &c.collider.shape, &c.pose, 0.0, |_| any = true);
                any
            } else {
                dispatch::intersects(shape, pose, &c.collider.shape, &c.pose)
            };
            if touches {
                found.push((c.handle, c.body));
            }
        });
        found.sort_unstable();
        Ok(found)
    }

    /// Every collider within `margin` (m, >= 0) of `shape` at `pose`, with how far and which way:
    /// what a character controller reads to step out of what moved into it. A mesh or height
    /// field gives one contact per triangle near the shape, a half-space one; the list is in
    /// collider order (triangles in the mesh's order).
    ///
    /// Refused: a shape with bad numbers, a non-finite pose, a NaN, negative or infinite margin.
    ///
    /// ```
    /// use sprung::{ColliderBuilder, QueryFilter, RigidBodyBuilder, Shape, World};
    /// use sprung::math::{Isometry, Vector};
    ///
    /// let mut world = World::default();
    /// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    /// world.add_collider(ColliderBuilder::halfspace(Vector::y()), ground).unwrap();
    /// // A ball of 0.5 m sunk 0.1 m into the floor: out along +y by 0.1 m.
    /// let ball = Shape::sphere(0.5).unwrap();
    /// let pose = Isometry::translation(0.0, 0.4, 0.0);
    /// let found = world.contacts_with_shape(&ball, &pose, 0.01, &QueryFilter::new()).unwrap();
    /// assert_eq!(found.len(), 1);
    /// assert!((found[0].distance + 0.1).abs() < 1e-6);
    /// assert!((found[0].normal - Vector::y()).norm() < 1e-6);
    /// ```
    pub fn contacts_with_shape(
        &self,
        shape: &Shape,
        pose: &Isometry<Real>,
        margin: Real,
        filter: &QueryFilter,
    ) -> Result<Vec<ShapeContact>, Error> {
        let mut found = Vec::new();
        self.contacts_with_shape_into(shape, pose, margin, filter, &mut found)?;
        Ok(found)
    }

    /// [`contacts_with_shape`](Self::contacts_with_shape) into `out` (cleared first), so that a
    /// caller asking every frame keeps one buffer instead of allocating. Refused as it is;
    /// `out` is then left empty.
    pub fn contacts_with_shape_into(
        &self,
        shape: &Shape,
        pose: &Isometry<Real>,
        margin: Real,
        filter: &QueryFilter,
        out: &mut Vec<ShapeContact>,
    ) -> Result<(), Error> {
        out.clear();
        let pose = &check_shape(shape, pose)?;
        check_margin("margin", margin)?;
        let sweep = Sweep {
            start: shape.aabb(pose).loosened(margin),
            dir: Vector::zeros(),
            max_t: 0.0,
        };
        self.query_view().for_each(&sweep, filter, |c| {
            level::contacts(shape, pose, &c.collider.shape, &c.pose, margin, |contact| {
                out.push(ShapeContact {
                    collider: c.handle,
                    body: c.body,
                    distance: contact.separation,
                    normal: contact.normal,
                    point: contact.point_a,
                    point_on_shape: contact.point_b,
                });
            });
        });
        // Stable: a collider's own contacts stay in the order its pieces came.
        out.sort_by_key(|c| c.collider);
        Ok(())
    }
}

/// Whether a hit at `toi` on collider `a` beats one at `best` on `b`: the nearer, ties to the
/// smaller handle, so that the answer does not depend on the order colliders are visited in.
fn nearer(toi: Real, a: ColliderHandle, best: Real, b: ColliderHandle) -> bool {
    toi < best || (toi == best && a < b)
}

/// Checks a ray and returns its unit direction.
fn check_ray(
    origin: &Point<Real>,
    dir: &Vector<Real>,
    max_toi: Real,
) -> Result<Vector<Real>, Error> {
    limits::position("ray origin", &origin.coords)?;
    finite("ray direction", dir.as_slice())?;
    check_max_toi(max_toi)?;
    // Normalised without overflow: 1e30 is a direction; zero or subnormal is not.
    limits::axis("ray direction length", dir)
}

/// `max_toi` may be infinite, not NaN or negative.
fn check_max_toi(max_toi: Real) -> Result<(), Error> {
    if max_toi.is_nan() {
        Err(Error::NonFinite("max_toi"))
    } else if max_toi < 0.0 {
        Err(Error::Negative("max_toi"))
    } else {
        Ok(())
    }
}

/// A distance a query reaches around a shape: finite, >= 0, within the coordinate limit.
fn check_margin(what: &'static str, margin: Real) -> Result<(), Error> {
    limits::bounded(
        what,
        &[margin],
        limits::MAX_COORDINATE,
        "query distance: within 1e5",
    )?;
    if margin < 0.0 {
        return Err(Error::Negative(what));
    }
    Ok(())
}

/// Checks a query's shape and pose, and returns the pose with its rotation normalised.
fn check_shape(shape: &Shape, pose: &Isometry<Real>) -> Result<Isometry<Real>, Error> {
    shape.check()?;
    limits::pose("query pose", "query rotation", pose)
}

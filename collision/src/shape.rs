//! Shapes: the convex solids sprung collides, their bounding boxes and their support maps.
//!
//! In: a shape's dimensions (or a point cloud for a hull). Out: a validated [`Shape`] that the
//! broad phase bounds with [`Shape::aabb`] and that GJK, EPA and the manifold builder read through
//! its *core* and *radius*.
//!
//! Static level geometry ([`Shape::HalfSpace`], [`Shape::TriMesh`], [`Shape::HeightField`]) is not
//! convex and has no core: the manifold stage cuts it into flat [`Shape::Triangle`]s near the
//! other shape (or meets a half-space in closed form), and it only goes on static bodies.
//!
//! Every convex shape is a core swept by a sphere: a sphere is a point swept by its radius, a capsule a
//! segment, a cuboid or a hull is its own core with radius zero. GJK runs on the cores, which are
//! all polytopes, so it terminates exactly instead of creeping towards a curved surface; the
//! radii are added back in closed form. The shapes themselves are parry3d's, so that mass
//! properties, AABBs and the oracle queries in the tests come from one well-tested place.

use std::fmt;
use std::sync::Arc;

use parry3d::bounding_volume::Aabb;
use parry3d::mass_properties::MassProperties;
use parry3d::math::{Isometry, Point, Real, Vector};
use parry3d::na::DMatrix;
use parry3d::shape::{
    Ball, Capsule, ConvexPolyhedron, Cuboid, HalfSpace, HeightField, Shape as ParryShape, TriMesh,
    TriMeshFlags, Triangle,
};
use smallvec::SmallVec;

use crate::hull::Hull;
use crate::unit::unit_vector;

/// Half the side (m) of the box that stands for a half-space in the broad phase: finite, because
/// the broad phase refuses infinite bounds, and far beyond any scene f32 can simulate with
/// millimetre precision (at 1e6 m an f32 step is 6 cm).
pub const HALF_SPACE_EXTENT: Real = 1.0e6;

/// The largest size (m) any shape may have: no dimension, vertex coordinate or scaled height
/// beyond it. 100 km, Box2D's "huge" (`B2_HUGE`): f32 spacing there is 8 mm, still enough for
/// contacts, and the squares GJK, EPA and the casts form (up to a few times 1e10 m^2, their
/// products up to 1e21) stay far from f32 overflow (3.4e38), so no query on shapes within
/// it can overflow to infinity and then NaN.
pub const MAX_EXTENT: Real = 1.0e5;

/// The smallest size (m) of a solid: a sphere's radius, a box's half extents, a capsule's
/// radius and a hull's width along its widest axis must be at least this. 0.1 mm: below it
/// the relative tolerances of GJK and EPA (1e-6 of the shapes' size) approach the absolute
/// f32 resolution of a scene a few hundred metres across, and the contact solver's slop
/// (millimetres) exceeds the shape itself. A capsule's half height may be zero (a sphere).
pub const MIN_DIMENSION: Real = 1.0e-4;

/// How far (relative) from 1 the length of a half-space normal built by hand may be.
const UNIT_TOLERANCE: Real = 1.0e-4;

/// What was wrong with the numbers given to a shape constructor, or found by [`Shape::check`]
/// in a shape built by hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeError {
    /// A dimension or a point was NaN or infinite.
    NonFinite,
    /// A dimension that must be positive was zero or negative.
    NonPositive,
    /// A dimension, coordinate or scaled height beyond [`MAX_EXTENT`].
    TooLarge,
    /// A solid smaller than [`MIN_DIMENSION`] (radius, half extent, or a hull's width or its
    /// thickness across a face).
    TooSmall,
    /// A hull whose points do not span a volume (fewer than four points off one plane), one so
    /// flat that parry3d folds it into fewer than four faces (a pyramid whose sides slope
    /// under about 1.5 degrees: parry3d merges faces whose normals are that close), or a hull
    /// built by hand with such faces, a zero face normal or a vertex on no face.
    DegenerateHull,
    /// A triangle mesh without vertices or triangles.
    EmptyMesh,
    /// A triangle index past the end of the vertices.
    IndexOutOfRange,
    /// A mesh whose triangles all have zero area, or a triangle of zero area.
    DegenerateMesh,
    /// A height field with fewer than 2 rows or 2 columns of heights.
    HeightFieldTooSmall,
    /// A half-space normal of zero length.
    ZeroNormal,
    /// A half-space normal built by hand whose length is not 1 (within 1e-4).
    NonUnitNormal,
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::NonFinite => write!(f, "shape dimension or point is NaN or infinite"),
            ShapeError::NonPositive => write!(f, "shape dimension must be positive"),
            ShapeError::TooLarge => write!(
                f,
                "shape dimension, coordinate or height is beyond {MAX_EXTENT} m (MAX_EXTENT)"
            ),
            ShapeError::TooSmall => write!(
                f,
                "shape radius, half extent or width is below {MIN_DIMENSION} m (MIN_DIMENSION)"
            ),
            ShapeError::DegenerateHull => {
                write!(
                    f,
                    "convex hull points must span a volume (at least four points off one plane, \
                     sides sloping more than about 1.5 degrees)"
                )
            }
            ShapeError::EmptyMesh => write!(f, "a triangle mesh needs vertices and triangles"),
            ShapeError::IndexOutOfRange => {
                write!(f, "a triangle index is past the end of the vertices")
            }
            ShapeError::DegenerateMesh => write!(f, "every triangle of the mesh has zero area"),
            ShapeError::HeightFieldTooSmall => {
                write!(f, "a height field needs at least 2 rows and 2 columns")
            }
            ShapeError::ZeroNormal => write!(f, "a half-space normal must not be zero"),
            ShapeError::NonUnitNormal => {
                write!(f, "a half-space normal built by hand must have length 1")
            }
        }
    }
}

impl std::error::Error for ShapeError {}

/// A collision shape, in its own local frame: convex solids for any body, level geometry for
/// static bodies only ([`Shape::is_static_only`]).
///
/// ```
/// use sprung_collision::shape::Shape;
/// use sprung_collision::parry3d::math::{Isometry, Vector};
///
/// let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
/// let aabb = cube.aabb(&Isometry::translation(0.0, 2.0, 0.0));
/// assert_eq!(aabb.mins.y, 1.5);
/// assert!(Shape::sphere(-1.0).is_err());
/// ```
#[derive(Clone, Debug)]
pub enum Shape {
    /// A sphere (parry3d's `Ball`).
    Sphere(Ball),
    /// A box given by its half-extents.
    Cuboid(Cuboid),
    /// A capsule along the local Y axis.
    Capsule(Capsule),
    /// The convex hull of a point cloud; shared, because hulls are cloned with their colliders.
    ConvexHull(Arc<Hull>),
    /// One flat triangle: a core of zero volume, what meshes are cut into for GJK and EPA.
    /// Static only (no mass). Solid on both sides when used alone.
    Triangle(Triangle),
    /// Everything below a plane through the local origin, with outward unit `normal`.
    /// Static only. Its bounding box is finite: [`HALF_SPACE_EXTENT`].
    HalfSpace(HalfSpace),
    /// A triangle mesh, one-sided: solid behind its counter-clockwise faces. Static only.
    /// Built by [`Shape::trimesh`], which also finds the edges between coplanar or concave
    /// triangles (parry3d's pseudo-normals) that contacts must not catch on.
    TriMesh(Arc<TriMesh>),
    /// A height field over the local XZ plane, centred on the origin, solid below. Static only.
    HeightField(Arc<HeightField>),
}

/// A box's corner farthest along `dir` (local frame; ties to the positive side).
#[inline(always)]
pub(crate) fn box_support(c: &Cuboid, dir: &Vector<Real>) -> Point<Real> {
    let h = c.half_extents;
    Point::new(
        if dir.x >= 0.0 { h.x } else { -h.x },
        if dir.y >= 0.0 { h.y } else { -h.y },
        if dir.z >= 0.0 { h.z } else { -h.z },
    )
}

fn finite_positive(x: Real) -> Result<Real, ShapeError> {
    if !x.is_finite() {
        Err(ShapeError::NonFinite)
    } else if x <= 0.0 {
        Err(ShapeError::NonPositive)
    } else {
        Ok(x)
    }
}

/// A solid's size (m): finite, positive, within [`MIN_DIMENSION`] and [`MAX_EXTENT`].
fn dimension(x: Real) -> Result<Real, ShapeError> {
    finite_positive(x)?;
    if x > MAX_EXTENT {
        Err(ShapeError::TooLarge)
    } else if x < MIN_DIMENSION {
        Err(ShapeError::TooSmall)
    } else {
        Ok(x)
    }
}

/// A length that may be zero (a capsule's half height): finite, not negative, within
/// [`MAX_EXTENT`].
fn length(x: Real) -> Result<Real, ShapeError> {
    if !x.is_finite() {
        Err(ShapeError::NonFinite)
    } else if x < 0.0 {
        Err(ShapeError::NonPositive)
    } else if x > MAX_EXTENT {
        Err(ShapeError::TooLarge)
    } else {
        Ok(x)
    }
}

/// Every coordinate finite, then every coordinate within [`MAX_EXTENT`] (NaN is reported
/// before size, whichever point comes first).
fn coordinates<'p>(
    points: impl Iterator<Item = &'p Point<Real>> + Clone,
) -> Result<(), ShapeError> {
    if !points.clone().all(finite_point) {
        return Err(ShapeError::NonFinite);
    }
    if points
        .flat_map(|p| p.coords.iter())
        .any(|c| c.abs() > MAX_EXTENT)
    {
        return Err(ShapeError::TooLarge);
    }
    Ok(())
}

/// A hull's point cloud: finite, within [`MAX_EXTENT`], at least four points not all at one
/// place, and at least [`MIN_DIMENSION`] wide along its widest axis.
fn hull_points(points: &[Point<Real>]) -> Result<Real, ShapeError> {
    coordinates(points.iter())?;
    if points.len() < 4 {
        return Err(ShapeError::DegenerateHull);
    }
    let (mut lo, mut hi) = (points[0].coords, points[0].coords);
    for p in points {
        lo = lo.inf(&p.coords);
        hi = hi.sup(&p.coords);
    }
    let width = (hi - lo).max();
    if width <= 0.0 {
        Err(ShapeError::DegenerateHull)
    } else if width < MIN_DIMENSION {
        Err(ShapeError::TooSmall)
    } else {
        Ok(width)
    }
}

/// A hand-built hull's topology: at least four faces with unit normals (parry3d leaves a zero normal
/// on a face it finds degenerate), every face and vertex range and every vertex
/// index lies inside parry3d's arrays (the manifold stage indexes them unchecked), and every
/// point is a vertex of some face (the support map sees every point; a point on no face, which
/// parry3d's quickhull can leave when it gives up on it, makes the faces and the support map
/// two different solids: [`Shape::convex_hull`] rebuilds such hulls without the point).
fn hull_topology(hull: &ConvexPolyhedron) -> Result<(), ShapeError> {
    let (points, vertices) = (hull.points(), hull.vertices());
    let (on_face, at_vertex) = (hull.vertices_adj_to_face(), hull.faces_adj_to_vertex());
    let faces = hull.faces();
    let in_range = |first: u32, count: u32, len: usize| {
        count > 0 && (first as usize).saturating_add(count as usize) <= len
    };
    // A closed polytope has at least four faces: parry3d can fold a nearly flat cloud into
    // two back-to-back polygons (a fuzzer finding), which has no volume or inertia.
    let consistent = faces.len() >= 4
        && vertices.len() == points.len()
        && on_face.iter().all(|&i| (i as usize) < points.len())
        && at_vertex.iter().all(|&i| (i as usize) < faces.len())
        && faces.iter().all(|f| {
            in_range(
                f.first_vertex_or_edge,
                f.num_vertices_or_edges,
                on_face.len(),
            ) && (f.normal.norm() - 1.0).abs() <= UNIT_TOLERANCE
        })
        && vertices.iter().all(|v| {
            in_range(
                v.first_adj_face_or_edge,
                v.num_adj_faces_or_edge,
                at_vertex.len(),
            )
        });
    if consistent {
        Ok(())
    } else {
        Err(ShapeError::DegenerateHull)
    }
}

/// A hull at least [`MIN_DIMENSION`] thick across each face (its width along the face's
/// normal), as a box must be at least that in each half extent: a needle of 4 um by 0.9 mm
/// passed the width test and had no usable inertia (a fuzzer finding).
fn hull_thickness(hull: &ConvexPolyhedron) -> Result<(), ShapeError> {
    let points = hull.points();
    for face in hull.faces() {
        let (lo, hi) = points.iter().fold((Real::MAX, Real::MIN), |(lo, hi), p| {
            let d = face.normal.dot(&p.coords);
            (lo.min(d), hi.max(d))
        });
        if hi - lo < MIN_DIMENSION {
            return Err(ShapeError::TooSmall);
        }
    }
    Ok(())
}

/// A triangle: finite corners within [`MAX_EXTENT`] and a non-zero area (parry3d's test: a
/// normal longer than f32 epsilon).
fn triangle_corners(t: &Triangle) -> Result<(), ShapeError> {
    coordinates([t.a, t.b, t.c].iter())?;
    t.normal().map(|_| ()).ok_or(ShapeError::DegenerateMesh)
}

/// A hand-built half-space's normal: finite, not zero, of length 1 within 1e-4.
fn unit_normal(n: &Vector<Real>) -> Result<(), ShapeError> {
    if !n.iter().all(|x| x.is_finite()) {
        return Err(ShapeError::NonFinite);
    }
    unit_vector(n).ok_or(ShapeError::ZeroNormal)?;
    // The norm of a finite vector past 1e19 is infinite: that is not unit either.
    if (n.norm() - 1.0).abs() > UNIT_TOLERANCE {
        return Err(ShapeError::NonUnitNormal);
    }
    Ok(())
}

/// A mesh's arrays: both non-empty, vertices finite and within [`MAX_EXTENT`], indices in
/// range, and some triangle of non-zero area.
fn mesh_arrays(vertices: &[Point<Real>], indices: &[[u32; 3]]) -> Result<(), ShapeError> {
    if vertices.is_empty() || indices.is_empty() {
        return Err(ShapeError::EmptyMesh);
    }
    coordinates(vertices.iter())?;
    let count = vertices.len();
    if indices.iter().flatten().any(|&i| i as usize >= count) {
        return Err(ShapeError::IndexOutOfRange);
    }
    let any_area = indices.iter().any(|t| {
        let [a, b, c] = t.map(|i| vertices[i as usize]);
        Triangle::new(a, b, c).normal().is_some()
    });
    if !any_area {
        return Err(ShapeError::DegenerateMesh);
    }
    Ok(())
}

/// A height field's numbers: at least 2 x 2 heights, all finite; a finite, positive scale
/// of at most [`MAX_EXTENT`] per axis, at least [`MIN_DIMENSION`] across (X and Z); every
/// scaled height within [`MAX_EXTENT`].
fn field_numbers(heights: &DMatrix<Real>, scale: &Vector<Real>) -> Result<(), ShapeError> {
    if heights.nrows() < 2 || heights.ncols() < 2 {
        return Err(ShapeError::HeightFieldTooSmall);
    }
    if !heights.iter().all(|h| h.is_finite()) {
        return Err(ShapeError::NonFinite);
    }
    for i in 0..3 {
        finite_positive(scale[i])?;
    }
    if scale.iter().any(|&s| s > MAX_EXTENT)
        || heights.iter().any(|h| (h * scale.y).abs() > MAX_EXTENT)
    {
        return Err(ShapeError::TooLarge);
    }
    if scale.x < MIN_DIMENSION || scale.z < MIN_DIMENSION {
        return Err(ShapeError::TooSmall);
    }
    Ok(())
}

impl Shape {
    /// A sphere of `radius` (m, [`MIN_DIMENSION`] to [`MAX_EXTENT`]).
    pub fn sphere(radius: Real) -> Result<Shape, ShapeError> {
        Ok(Shape::Sphere(Ball::new(dimension(radius)?)))
    }

    /// A box of `half_extents` (m, each [`MIN_DIMENSION`] to [`MAX_EXTENT`]).
    pub fn cuboid(half_extents: Vector<Real>) -> Result<Shape, ShapeError> {
        for i in 0..3 {
            dimension(half_extents[i])?;
        }
        Ok(Shape::Cuboid(Cuboid::new(half_extents)))
    }

    /// A capsule along local Y: a segment from -`half_height` to +`half_height` (m, 0 to
    /// [`MAX_EXTENT`]) swept by `radius` (m, [`MIN_DIMENSION`] to [`MAX_EXTENT`]).
    pub fn capsule(half_height: Real, radius: Real) -> Result<Shape, ShapeError> {
        let half_height = length(half_height)?;
        Ok(Shape::Capsule(Capsule::new_y(
            half_height,
            dimension(radius)?,
        )))
    }

    /// The convex hull of `points` (local frame, each coordinate within [`MAX_EXTENT`], the
    /// cloud at least [`MIN_DIMENSION`] wide). Points that do not span a volume are refused
    /// with [`ShapeError::DegenerateHull`] before parry3d is asked to build anything.
    pub fn convex_hull(points: &[Point<Real>]) -> Result<Shape, ShapeError> {
        let width = hull_points(points)?;
        if !spans_volume(points) {
            return Err(ShapeError::DegenerateHull);
        }
        // parry3d's hull has absolute tolerances: a face whose edges' cross product is below
        // f32 epsilon (1.2e-7 m^2: any face of a hull under about 0.4 mm) gets a zero normal
        // and counts as degenerate. So the hull is built at unit size and scaled back, by a
        // power of two so that both scalings are exact and the points come back bit for bit.
        let unit = Real::powi(2.0, width.log2().round() as i32);
        let points: Vec<Point<Real>> = points.iter().map(|p| p / unit).collect();
        let points = &points[..];
        let mut hull =
            ConvexPolyhedron::from_convex_hull(points).ok_or(ShapeError::DegenerateHull)?;
        // parry3d's quickhull can give up on a point ("undecidable") and leave it on no face;
        // its faces then no longer bound one convex polytope (on random clouds of 12 points,
        // about 3% of hulls, with ray exits off by up to 5% of the size), while its support map
        // still sees the point. Rebuilding from the faces' vertices gives a hull whose faces,
        // support map and mass agree, so GJK, manifolds and ray casts see one shape; it lacks
        // the sliver where the point was (up to 1.5% of the size in those clouds). Bounded:
        // each pass drops a point.
        for _ in 0..points.len() {
            let on_faces = vertices_on_faces(&hull);
            if on_faces.len() == hull.points().len() {
                break;
            }
            hull =
                ConvexPolyhedron::from_convex_hull(&on_faces).ok_or(ShapeError::DegenerateHull)?;
        }
        // A uniform scale keeps every face normal (parry3d renormalises them).
        let hull = hull
            .scaled(&Vector::repeat(unit))
            .ok_or(ShapeError::DegenerateHull)?;
        let shape = Shape::ConvexHull(Arc::new(Hull::from(hull)));
        // What parry3d built is held to the rules of a hand-built hull too.
        shape.check()?;
        Ok(shape)
    }

    /// One triangle (local frame), refused if a corner is not finite or beyond
    /// [`MAX_EXTENT`], or its area is zero.
    pub fn triangle(a: Point<Real>, b: Point<Real>, c: Point<Real>) -> Result<Shape, ShapeError> {
        let triangle = Triangle::new(a, b, c);
        triangle_corners(&triangle)?;
        Ok(Shape::Triangle(triangle))
    }

    /// The half-space below the plane through the local origin with outward `normal` (any
    /// finite length but zero; normalised here without overflow, so 1e30 works as well as 1).
    pub fn halfspace(normal: Vector<Real>) -> Result<Shape, ShapeError> {
        if !normal.iter().all(|x| x.is_finite()) {
            return Err(ShapeError::NonFinite);
        }
        let normal = unit_vector(&normal).ok_or(ShapeError::ZeroNormal)?;
        Ok(Shape::HalfSpace(HalfSpace::new(normal)))
    }

    /// A triangle mesh of `vertices` and counter-clockwise `indices` (outward side in front).
    /// Vertex coordinates under 1e-20 m in magnitude are taken as zero (see the body).
    /// Refused: no vertices or triangles, a non-finite vertex or one beyond [`MAX_EXTENT`],
    /// an index out of range, or only zero-area triangles (single ones are kept and never
    /// touched). Duplicate vertices are merged and edge pseudo-normals computed, which the
    /// contact stage reads to find the internal edges of flat or concave surfaces.
    pub fn trimesh(
        vertices: Vec<Point<Real>>,
        indices: Vec<[u32; 3]>,
    ) -> Result<Shape, ShapeError> {
        mesh_arrays(&vertices, &indices)?;
        // parry3d's BVH bins triangles by 8 / (spread of their centres): a spread below 2e-38
        // (coordinates near the subnormals) makes that infinite and indexes out of bounds (a
        // fuzzer finding: a panic inside parry3d). Coordinates under 1e-20 m, far below any
        // size a mesh can mean, are taken as zero, so that every spread is 0 or above 1e-27.
        let vertices = vertices
            .into_iter()
            .map(|p| p.map(|c| if c.abs() < 1.0e-20 { 0.0 } else { c }))
            .collect();
        let mesh = TriMesh::with_flags(vertices, indices, TriMeshFlags::FIX_INTERNAL_EDGES)
            .map_err(|_| ShapeError::DegenerateMesh)?;
        let shape = Shape::TriMesh(Arc::new(mesh));
        // parry3d merges duplicate vertices and may drop triangles: check what it kept.
        shape.check()?;
        Ok(shape)
    }

    /// A height field: `heights` (at least 2 x 2; row i runs along Z, column j along X) over a
    /// rectangle of `scale.x` by `scale.z` metres centred on the origin, each height multiplied
    /// by `scale.y`. Heights and scale must be finite, the scale positive and at most
    /// [`MAX_EXTENT`] (X and Z at least [`MIN_DIMENSION`]), every scaled height within
    /// [`MAX_EXTENT`].
    pub fn heightfield(heights: DMatrix<Real>, scale: Vector<Real>) -> Result<Shape, ShapeError> {
        field_numbers(&heights, &scale)?;
        Ok(Shape::HeightField(Arc::new(HeightField::new(
            heights, scale,
        ))))
    }

    /// True for the shapes only static bodies may carry: triangles, half-spaces, meshes and
    /// height fields have no volume or no bound, hence no mass.
    pub fn is_static_only(&self) -> bool {
        matches!(
            self,
            Shape::Triangle(_) | Shape::HalfSpace(_) | Shape::TriMesh(_) | Shape::HeightField(_)
        )
    }

    /// True for the shapes the manifold stage cuts into triangles or meets in closed form,
    /// instead of running GJK on them.
    pub fn is_level(&self) -> bool {
        matches!(
            self,
            Shape::HalfSpace(_) | Shape::TriMesh(_) | Shape::HeightField(_)
        )
    }

    /// The radius that sweeps the core: the sphere's or capsule's radius, zero for polytopes.
    #[inline]
    pub fn radius(&self) -> Real {
        match self {
            Shape::Sphere(b) => b.radius,
            Shape::Capsule(c) => c.radius,
            _ => 0.0,
        }
    }

    /// The support point of the core in local direction `dir` (need not be unit): the core point
    /// with the largest projection on `dir`. Ties go to the positive side, deterministically.
    #[inline]
    pub fn core_support(&self, dir: &Vector<Real>) -> Point<Real> {
        match self {
            Shape::Sphere(_) => Point::origin(),
            Shape::Capsule(c) => {
                if dir.dot(&(c.segment.b - c.segment.a)) >= 0.0 {
                    c.segment.b
                } else {
                    c.segment.a
                }
            }
            Shape::Cuboid(c) => box_support(c, dir),
            Shape::ConvexHull(hull) => hull.points()[hull.farthest(dir)],
            Shape::Triangle(t) => {
                let (da, db, dc) = (
                    t.a.coords.dot(dir),
                    t.b.coords.dot(dir),
                    t.c.coords.dot(dir),
                );
                if da >= db && da >= dc {
                    t.a
                } else if db >= dc {
                    t.b
                } else {
                    t.c
                }
            }
            // Not support-mapped: the manifold stage never hands them to GJK. The origin keeps
            // a stray query finite.
            Shape::HalfSpace(_) | Shape::TriMesh(_) | Shape::HeightField(_) => Point::origin(),
        }
    }

    /// The support point of the whole shape (core plus radius) in local direction `dir`.
    pub fn support(&self, dir: &Vector<Real>) -> Point<Real> {
        let core = self.core_support(dir);
        let r = self.radius();
        // Overflow-safe: the level shapes' code passes world directions through here.
        match unit_vector(dir) {
            Some(n) if r > 0.0 => core + n.into_inner() * r,
            _ => core,
        }
    }

    /// Asks the processor for what [`Shape::aabb`] reads of a shape held apart (a hull's
    /// points), a few shapes ahead of a loop over many: it reads nothing, changes nothing.
    #[inline]
    pub fn prefetch_bounds(&self) {
        if let Shape::ConvexHull(h) = self {
            h.prefetch_lanes();
        }
    }

    /// The world-space bounding box of the shape at `pose`. A half-space's is the part of the
    /// cube of half-side [`HALF_SPACE_EXTENT`] about the world origin below its plane, trimmed only
    /// along an axis its normal lies on.
    pub fn aabb(&self, pose: &Isometry<Real>) -> Aabb {
        match self {
            Shape::HalfSpace(h) => {
                let e = HALF_SPACE_EXTENT;
                let mut aabb = Aabb::new(Point::new(-e, -e, -e), Point::new(e, e, e));
                let n = pose.rotation * h.normal.into_inner();
                let offset = n.dot(&pose.translation.vector);
                for k in 0..3 {
                    if (n[k].abs() - 1.0).abs() <= 1.0e-6 {
                        // Plane perpendicular to axis k: solid on one side of x_k = offset.
                        let at = (offset * n[k].signum()).clamp(-e, e);
                        if n[k] > 0.0 {
                            aabb.maxs[k] = at;
                        } else {
                            aabb.mins[k] = at;
                        }
                    }
                }
                aabb
            }
            Shape::ConvexHull(h) => h.aabb(pose),
            _ => self.as_parry().compute_aabb(pose),
        }
    }

    /// Mass, centre of mass and inertia at `density` (kg/m^3), from parry3d; zero for the
    /// static-only shapes.
    pub fn mass_properties(&self, density: Real) -> MassProperties {
        match self {
            _ if self.is_static_only() => MassProperties::default(),
            Shape::ConvexHull(h) => hull_mass_properties(h, density),
            _ => self.as_parry().mass_properties(density),
        }
    }

    /// A length that stands for the size of the shape: tolerances are taken relative to it.
    pub fn scale(&self) -> Real {
        match self {
            Shape::Sphere(b) => b.radius,
            Shape::Capsule(c) => c.radius + c.half_height(),
            Shape::Cuboid(c) => c.half_extents.norm(),
            Shape::ConvexHull(h) => h.extent(),
            Shape::Triangle(t) => [t.a, t.b, t.c]
                .iter()
                .map(|p| p.coords.norm())
                .fold(0.0, Real::max),
            Shape::HalfSpace(_) => 0.0,
            Shape::TriMesh(_) | Shape::HeightField(_) => {
                self.as_parry().compute_local_aabb().half_extents().norm()
            }
        }
    }

    /// Checks a shape however it was built: the constructors' rules, applied to what the
    /// variant holds. A user can build any variant by hand from parry3d's types (a
    /// `HalfSpace` with `Unit::new_unchecked`, a `TriMesh` or `HeightField` with NaN in it, a
    /// capsule with a NaN segment); the engine calls this on every collider, so that the
    /// queries never meet numbers that could make them panic or answer NaN.
    ///
    /// ```
    /// use sprung_collision::shape::{Shape, ShapeError};
    /// use sprung_collision::parry3d::{math::Vector, na::Unit, shape::HalfSpace};
    ///
    /// let tilted = Shape::HalfSpace(HalfSpace::new(Unit::new_unchecked(Vector::new(0.0, 2.0, 0.0))));
    /// assert_eq!(tilted.check(), Err(ShapeError::NonUnitNormal));
    /// ```
    pub fn check(&self) -> Result<(), ShapeError> {
        match self {
            Shape::Sphere(b) => dimension(b.radius).map(|_| ()),
            Shape::Cuboid(c) => (0..3).try_for_each(|i| dimension(c.half_extents[i]).map(|_| ())),
            Shape::Capsule(c) => {
                coordinates([c.segment.a, c.segment.b].iter())?;
                dimension(c.radius).map(|_| ())
            }
            Shape::ConvexHull(h) => {
                hull_points(h.points())?;
                hull_topology(h)?;
                hull_thickness(h)
            }
            Shape::Triangle(t) => triangle_corners(t),
            Shape::HalfSpace(h) => unit_normal(&h.normal),
            Shape::TriMesh(m) => mesh_arrays(m.vertices(), m.indices()),
            Shape::HeightField(f) => field_numbers(f.heights(), f.scale()),
        }
    }

    /// Half the shape's thinnest dimension (m): how far it may move in a step before a thin
    /// wall could fit between where it was and where it is (a hull's is its box's, an upper
    /// bound).
    pub fn thickness(&self) -> Real {
        match self {
            Shape::Sphere(b) => b.radius,
            Shape::Capsule(c) => c.radius,
            Shape::Cuboid(c) => c.half_extents.min(),
            Shape::ConvexHull(h) => {
                let aabb = h.local_aabb();
                aabb.half_extents().min()
            }
            // Flat or static-only: they never move, so never sweep.
            Shape::Triangle(_)
            | Shape::HalfSpace(_)
            | Shape::TriMesh(_)
            | Shape::HeightField(_) => 0.0,
        }
    }

    /// The farthest any point of the shape lies from `center` (local frame, m).
    pub fn extent_from(&self, center: &Point<Real>) -> Real {
        self.core_extent_from(center) + self.radius()
    }

    /// The farthest any point of the core lies from `center` (local frame, m). A shape turning
    /// about `center` at angular speed w moves its surface no faster than w times this: the
    /// sphere swept around the core turns into itself.
    pub fn core_extent_from(&self, center: &Point<Real>) -> Real {
        match self {
            Shape::Sphere(_) => center.coords.norm(),
            Shape::Cuboid(c) => (center.coords.abs() + c.half_extents).norm(),
            Shape::Capsule(c) => (c.segment.a - center)
                .norm()
                .max((c.segment.b - center).norm()),
            // From the origin (what recycling asks): kept by the hull, the same number.
            Shape::ConvexHull(h) if center.coords == Vector::zeros() => h.extent(),
            Shape::ConvexHull(h) => h
                .points()
                .iter()
                .map(|p| (p - center).norm())
                .fold(0.0, Real::max),
            Shape::Triangle(t) => [t.a, t.b, t.c]
                .iter()
                .map(|p| (p - center).norm())
                .fold(0.0, Real::max),
            // Static only: they never turn, and a size of a million metres would swamp the
            // tolerances of a cast that is relative to both shapes' extents.
            Shape::HalfSpace(_) | Shape::TriMesh(_) | Shape::HeightField(_) => 0.0,
        }
    }

    /// True if the local point `p` lies inside the shape or on its surface.
    pub fn contains_local_point(&self, p: &Point<Real>) -> bool {
        match self {
            Shape::Sphere(b) => p.coords.norm_squared() <= b.radius * b.radius,
            Shape::Cuboid(c) => (0..3).all(|i| p[i].abs() <= c.half_extents[i]),
            Shape::Capsule(c) => {
                let (a, axis) = (c.segment.a, c.segment.b - c.segment.a);
                let length2 = axis.norm_squared();
                let s = if length2 > 0.0 {
                    ((p - a).dot(&axis) / length2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                (p - (a + axis * s)).norm_squared() <= c.radius * c.radius
            }
            Shape::ConvexHull(h) => facet_planes(h).all(|(n, offset)| n.dot(&p.coords) <= offset),
            Shape::HalfSpace(h) => h.normal.dot(&p.coords) <= 0.0,
            // Flat or hollow: parry3d's answer (a mesh's inside by its pseudo-normals).
            Shape::Triangle(_) | Shape::TriMesh(_) | Shape::HeightField(_) => {
                self.as_parry().contains_local_point(p)
            }
        }
    }

    /// The parry3d shape underneath, for queries sprung does not write itself and for tests.
    pub fn as_parry(&self) -> &dyn ParryShape {
        match self {
            Shape::Sphere(b) => b,
            Shape::Cuboid(c) => c,
            Shape::Capsule(c) => c,
            Shape::ConvexHull(h) => h.polyhedron(),
            Shape::Triangle(t) => t,
            Shape::HalfSpace(h) => h,
            Shape::TriMesh(m) => m.as_ref(),
            Shape::HeightField(h) => h.as_ref(),
        }
    }
}

/// The hull's facet planes as (outward unit normal, offset): the solid is every `x` with
/// `normal . x <= offset` for all of them.
///
/// parry3d merges adjacent triangles whose normals are within about 1.5 degrees into one face
/// and keeps one triangle's normal, so a merged face's plane can stand off the hull by that
/// angle times the face's width. A merged face is therefore split back into the triangles of
/// its vertices whose planes have every hull point on or below them (the hull's true facets,
/// whichever way they were triangulated). Triangles stay as parry3d built them.
pub(crate) fn facet_planes(
    hull: &ConvexPolyhedron,
) -> impl Iterator<Item = (Vector<Real>, Real)> + '_ {
    let (points, adjacent) = (hull.points(), hull.vertices_adj_to_face());
    let tolerance = 1.0e-6 * points.iter().map(|p| p.coords.amax()).fold(0.0, Real::max);
    hull.faces().iter().flat_map(move |face| {
        let first = face.first_vertex_or_edge as usize;
        let ids = &adjacent[first..first + face.num_vertices_or_edges as usize];
        let vertex = |i: usize| points[ids[i] as usize];
        let mut planes: SmallVec<[(Vector<Real>, Real); 4]> = SmallVec::new();
        if ids.len() == 3 {
            planes.push((*face.normal, face.normal.dot(&vertex(0).coords)));
            return planes;
        }
        for i in 0..ids.len() {
            for j in i + 1..ids.len() {
                for k in j + 1..ids.len() {
                    let n = (vertex(j) - vertex(i)).cross(&(vertex(k) - vertex(i)));
                    let n = if n.dot(&face.normal) < 0.0 { -n } else { n };
                    let Some(n) = n.try_normalize(Real::MIN_POSITIVE) else {
                        continue;
                    };
                    let offset = n.dot(&vertex(i).coords);
                    if points
                        .iter()
                        .all(|p| n.dot(&p.coords) <= offset + tolerance)
                    {
                        planes.push((n, offset));
                    }
                }
            }
        }
        if planes.is_empty() {
            // Cannot happen for a hull parry3d built; its own plane, pushed out to support
            // every point, keeps the answer conservative.
            let offset = points
                .iter()
                .map(|p| face.normal.dot(&p.coords))
                .fold(Real::NEG_INFINITY, Real::max);
            planes.push((*face.normal, offset));
        }
        planes
    })
}

/// Mass, centre of mass and inertia of a hull of `density` (kg/m^3), in f64 about the mean of
/// its vertices.
///
/// Not parry3d's: it sums in f32 about the local origin and shifts to the centre of mass
/// afterwards, and the cancellation left a thin hull (0.9 mm by 4 um, found by fuzzing) with
/// its centre of mass 13 mm outside itself and every principal inertia negative, clamped to
/// zero (an infinite inertia). Here each facet triangle makes a tetrahedron with the reference
/// point; its covariance is `det(A) A C A^T` with `C` the canonical tetrahedron's
/// (`[[2,1,1],[1,2,1],[1,1,2]] / 120`), summed, shifted to the centre of mass and turned into
/// the inertia tensor `tr(C) I - C` (Eberly, "Polyhedral Mass Properties (Revisited)", 2002;
/// Kallay, "Computing the Moment of Inertia of a Solid Defined by a Triangle Mesh", 2006). The
/// eigen decomposition is f64 too, so a needle's small principal inertia keeps its digits.
fn hull_mass_properties(hull: &ConvexPolyhedron, density: Real) -> MassProperties {
    use parry3d::na::{Matrix3, Vector3};
    let points = hull.points();
    let to64 = |p: &Point<Real>| Vector3::new(p.x as f64, p.y as f64, p.z as f64);
    let reference = points.iter().map(to64).sum::<Vector3<f64>>() / points.len().max(1) as f64;
    let adjacent = hull.vertices_adj_to_face();
    let canonical = Matrix3::new(2.0, 1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 2.0) / 120.0;
    let (mut volume, mut moment, mut covariance) = (0.0, Vector3::zeros(), Matrix3::zeros());
    for face in hull.faces() {
        let first = face.first_vertex_or_edge as usize;
        let ids = &adjacent[first..first + face.num_vertices_or_edges as usize];
        // A fan over the face (convex, wound counter-clockwise about its outward normal).
        for k in 1..ids.len().saturating_sub(1) {
            let [a, b, c] =
                [ids[0], ids[k], ids[k + 1]].map(|i| to64(&points[i as usize]) - reference);
            let m = Matrix3::from_columns(&[a, b, c]);
            // Six times the volume. The reference point (the vertices' mean) is inside the
            // hull, so every tetrahedron counts positive, whichever way parry3d wound the
            // face (a sliver came back with a face wound inwards: a fuzzer finding).
            let det = m.determinant().abs();
            volume += det / 6.0;
            moment += (a + b + c) * (det / 24.0);
            covariance += m * canonical * m.transpose() * det;
        }
    }
    let rho = density as f64;
    if volume.is_nan() || volume <= 0.0 {
        return MassProperties::default(); // unreachable for a hull that passed `check`
    }
    let com = moment / volume;
    let mass = rho * volume;
    let covariance = covariance * rho - com * com.transpose() * mass;
    let inertia = Matrix3::identity() * covariance.trace() - covariance;
    let mut eigen = inertia.symmetric_eigen();
    if eigen.eigenvectors.determinant() < 0.0 {
        eigen.eigenvectors.swap_columns(1, 2);
        eigen.eigenvalues.swap_rows(1, 2);
    }
    let frame = parry3d::na::Rotation3::from_matrix_unchecked(eigen.eigenvectors.cast::<Real>());
    let frame = parry3d::na::UnitQuaternion::from_rotation_matrix(&frame);
    let principal = eigen.eigenvalues.map(|e| e.max(0.0) as Real);
    let com = reference + com;
    MassProperties::with_principal_inertia_frame(
        Point::new(com.x as Real, com.y as Real, com.z as Real),
        mass as Real,
        principal,
        frame,
    )
}

/// The hull's points that are a vertex of some face.
///
/// Read through each face's range, not the whole `vertices_adj_to_face` array: parry3d can
/// leave entries between faces' ranges that belong to no face (seen on random clouds of 12
/// points, with the left-out point then on no face at all).
fn vertices_on_faces(hull: &ConvexPolyhedron) -> Vec<Point<Real>> {
    let mut on_face = vec![false; hull.points().len()];
    let adjacent = hull.vertices_adj_to_face();
    for face in hull.faces() {
        let first = face.first_vertex_or_edge as usize;
        for &i in &adjacent[first..first + face.num_vertices_or_edges as usize] {
            on_face[i as usize] = true;
        }
    }
    let pairs = hull.points().iter().zip(&on_face);
    pairs.filter(|(_, &on)| on).map(|(p, _)| *p).collect()
}

fn finite_point(p: &Point<Real>) -> bool {
    p.coords.iter().all(|c| c.is_finite())
}

/// True if some four of `points` form a tetrahedron of non-negligible volume, relative to the
/// cloud's extent. Found greedily: farthest point, farthest from the line, farthest from the plane.
fn spans_volume(points: &[Point<Real>]) -> bool {
    if points.len() < 4 {
        return false;
    }
    let p0 = points[0];
    let farthest = |key: &dyn Fn(&Point<Real>) -> Real| {
        points
            .iter()
            .copied()
            .map(|p| (key(&p), p))
            .fold((-1.0, p0), |best, c| if c.0 > best.0 { c } else { best })
    };
    let (d1, p1) = farthest(&|p| (p - p0).norm_squared());
    if d1 <= 0.0 {
        return false;
    }
    let extent = d1.sqrt();
    let axis = (p1 - p0) / extent;
    let (d2, p2) = farthest(&|p| (p - p0).cross(&axis).norm_squared());
    if d2.sqrt() <= 1.0e-5 * extent {
        return false;
    }
    let normal = (p1 - p0).cross(&(p2 - p0)).normalize();
    let (d3, _) = farthest(&|p| (p - p0).dot(&normal).abs());
    d3 > 1.0e-5 * extent
}

#[cfg(test)]
mod tests;

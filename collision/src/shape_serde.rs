//! Shapes to bytes and back (feature `serde`, for sprung's snapshots), never trusting the bytes.
//!
//! Not parry3d's own serde for every variant: its height field deserialises a matrix whose
//! row count times column count can overflow (a fuzzer finding: a panic before any check could
//! run), and its meshes and height fields carry derived structures (trees, edge flags) that the
//! bytes could make disagree with the data. So each shape is written as what builds it and is
//! rebuilt through its constructor, which checks it: a mesh as vertices and triangles, a height
//! field as rows, columns, heights and scale, the primitives as their numbers. A hull is the one
//! exception: it is kept as parry3d wrote it, because rebuilding it from its vertices need not
//! give the same faces in the same order (and contacts name features by index); `Shape::check`,
//! which the engine runs on every restored collider, validates its topology.

use std::sync::Arc;

use parry3d::math::{Point, Real, Vector};
use parry3d::na::{DMatrix, Unit};
use parry3d::shape::{Ball, Capsule, ConvexPolyhedron, Cuboid, HalfSpace, Triangle};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::hull::Hull;
use crate::shape::Shape;

/// What builds each shape.
#[derive(Serialize, Deserialize)]
enum Recipe {
    Sphere(Real),
    Cuboid(Vector<Real>),
    Capsule(Point<Real>, Point<Real>, Real),
    ConvexHull(ConvexPolyhedron),
    Triangle(Point<Real>, Point<Real>, Point<Real>),
    HalfSpace(Vector<Real>),
    TriMesh(Vec<Point<Real>>, Vec<[u32; 3]>),
    HeightField {
        rows: u32,
        columns: u32,
        /// Column-major, as nalgebra stores them.
        heights: Vec<Real>,
        scale: Vector<Real>,
    },
}

impl Serialize for Shape {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let recipe = match self {
            Shape::Sphere(b) => Recipe::Sphere(b.radius),
            Shape::Cuboid(c) => Recipe::Cuboid(c.half_extents),
            Shape::Capsule(c) => Recipe::Capsule(c.segment.a, c.segment.b, c.radius),
            Shape::ConvexHull(h) => Recipe::ConvexHull(h.polyhedron().clone()),
            Shape::Triangle(t) => Recipe::Triangle(t.a, t.b, t.c),
            Shape::HalfSpace(h) => Recipe::HalfSpace(h.normal.into_inner()),
            Shape::TriMesh(m) => Recipe::TriMesh(m.vertices().to_vec(), m.indices().to_vec()),
            Shape::HeightField(f) => {
                let heights = f.heights();
                Recipe::HeightField {
                    rows: heights.nrows() as u32,
                    columns: heights.ncols() as u32,
                    heights: heights.as_slice().to_vec(),
                    scale: *f.scale(),
                }
            }
        };
        recipe.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Shape, D::Error> {
        let refused = |e| D::Error::custom(format_args!("invalid shape: {e}"));
        Ok(match Recipe::deserialize(deserializer)? {
            // The primitives as they were (hand-built ones included); `Shape::check` judges them.
            Recipe::Sphere(r) => Shape::Sphere(Ball::new(r)),
            Recipe::Cuboid(h) => Shape::Cuboid(Cuboid::new(h)),
            Recipe::Capsule(a, b, r) => Shape::Capsule(Capsule::new(a, b, r)),
            Recipe::ConvexHull(h) => Shape::ConvexHull(Arc::new(Hull::from(h))),
            Recipe::Triangle(a, b, c) => Shape::Triangle(Triangle::new(a, b, c)),
            Recipe::HalfSpace(n) => Shape::HalfSpace(HalfSpace::new(Unit::new_unchecked(n))),
            Recipe::TriMesh(vertices, indices) => {
                Shape::trimesh(vertices, indices).map_err(refused)?
            }
            Recipe::HeightField {
                rows,
                columns,
                heights,
                scale,
            } => {
                let cells = (rows as usize).checked_mul(columns as usize);
                if cells != Some(heights.len()) {
                    return Err(D::Error::custom(
                        "height field size does not match its heights",
                    ));
                }
                let heights = DMatrix::from_vec(rows as usize, columns as usize, heights);
                Shape::heightfield(heights, scale).map_err(refused)?
            }
        })
    }
}

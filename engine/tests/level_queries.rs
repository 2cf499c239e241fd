//! Queries against level geometry (a half-space, a triangle mesh, a height field) answer what
//! parry3d's queries answer: shape casts hit at the same time of impact with the same normal,
//! overlaps agree, and `contacts_with_shape` finds the same nearest distance. The shapes are
//! cast from random poses in random directions onto a rolling terrain; parry3d is the oracle.

use parry3d::na::DMatrix;
use parry3d::query::{self as oracle, ShapeCastOptions};
use sprung::math::{Isometry, Point, Real, Rotation, Vector};
use sprung::{ColliderBuilder, QueryFilter, RigidBodyBuilder, Shape, World};

/// The terrain's height at (x, z), for the mesh and the height field alike.
fn terrain(x: Real, z: Real) -> Real {
    0.4 * x.sin() * (0.7 * z).cos()
}

/// A 12 m square of 24 x 24 quads.
fn mesh() -> Shape {
    let (n, size) = (24usize, 0.5);
    let half = n as Real * size * 0.5;
    let mut vertices = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            let (x, z) = (j as Real * size - half, i as Real * size - half);
            vertices.push(Point::new(x, terrain(x, z), z));
        }
    }
    let at = |i: usize, j: usize| (i * (n + 1) + j) as u32;
    let mut indices = Vec::new();
    for i in 0..n {
        for j in 0..n {
            indices.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    Shape::trimesh(vertices, indices).unwrap()
}

/// The same terrain as a height field (rows along z, columns along x).
fn field() -> Shape {
    let n = 25;
    let heights = DMatrix::from_fn(n, n, |i, j| {
        let (x, z) = (j as Real * 0.5 - 6.0, i as Real * 0.5 - 6.0);
        terrain(x, z)
    });
    Shape::heightfield(heights, Vector::new(12.0, 1.0, 12.0)).unwrap()
}

/// Each level, its pose, and the shape parry3d answers for: itself, except the height field,
/// for which parry3d 0.25 has no contact or distance query; its own triangles stand in.
fn levels() -> Vec<(&'static str, Shape, Isometry<Real>, Shape)> {
    let tilt = Rotation::from_axis_angle(&Vector::z_axis(), 0.15)
        * Rotation::from_axis_angle(&Vector::x_axis(), -0.1);
    let field = field();
    let Shape::HeightField(cells) = &field else {
        unreachable!()
    };
    let (vertices, indices) = cells.to_trimesh();
    let triangles = Shape::trimesh(vertices, indices).unwrap();
    let plane = Shape::halfspace(Vector::y()).unwrap();
    vec![
        (
            "half-space",
            plane.clone(),
            Isometry::from_parts(Vector::new(0.3, -0.2, 0.1).into(), tilt),
            plane,
        ),
        (
            "mesh",
            mesh(),
            Isometry::translation(0.2, 0.0, -0.1),
            mesh(),
        ),
        (
            "height field",
            field,
            Isometry::translation(-0.1, 0.1, 0.2),
            triangles,
        ),
    ]
}

fn shapes() -> Vec<Shape> {
    let hull = [
        Point::new(0.3, 0.1, 0.0),
        Point::new(-0.2, 0.3, 0.1),
        Point::new(0.0, -0.3, 0.25),
        Point::new(0.1, 0.0, -0.3),
        Point::new(-0.25, -0.1, -0.1),
        Point::new(0.2, 0.25, 0.2),
    ];
    vec![
        Shape::sphere(0.3).unwrap(),
        Shape::capsule(0.6, 0.3).unwrap(),
        Shape::cuboid(Vector::new(0.3, 0.5, 0.2)).unwrap(),
        Shape::convex_hull(&hull).unwrap(),
    ]
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> Real {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as Real / (1u64 << 24) as Real
    }
    fn range(&mut self, lo: Real, hi: Real) -> Real {
        lo + (hi - lo) * self.unit()
    }
    fn rotation(&mut self) -> Rotation<Real> {
        let axis = Vector::new(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        );
        Rotation::from_scaled_axis(axis * 3.0)
    }
}

fn world_with(level: &Shape, pose: &Isometry<Real>) -> World {
    let mut world = World::default();
    let body = world
        .add_body(RigidBodyBuilder::fixed().pose(*pose))
        .unwrap();
    world
        .add_collider(ColliderBuilder::new(level.clone()), body)
        .unwrap();
    world
}

#[test]
fn shape_casts_onto_level_geometry_hit_where_parry3d_says() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let filter = QueryFilter::new();
    for (name, level, level_pose, truth) in levels() {
        let world = world_with(&level, &level_pose);
        let (mut worst_distance, mut worst_normal): (Real, Real) = (0.0, 1.0);
        let mut misses = 0;
        for shape in shapes() {
            for _ in 0..60 {
                let pose = Isometry::from_parts(
                    Vector::new(
                        rng.range(-3.0, 3.0),
                        rng.range(1.5, 3.0),
                        rng.range(-3.0, 3.0),
                    )
                    .into(),
                    rng.rotation(),
                );
                let velocity = Vector::new(
                    rng.range(-0.5, 0.5),
                    rng.range(-1.0, -0.3),
                    rng.range(-0.5, 0.5),
                ) * rng.range(1.0, 3.0);
                let ours = world
                    .cast_shape(&shape, &pose, velocity, 20.0, &filter)
                    .unwrap();
                let options = ShapeCastOptions::with_max_time_of_impact(20.0);
                let theirs = oracle::cast_shapes(
                    &pose,
                    &velocity,
                    shape.as_parry(),
                    &level_pose,
                    &Vector::zeros(),
                    truth.as_parry(),
                    options,
                )
                .unwrap();
                let (ours, theirs) = match (ours, theirs) {
                    (Some(ours), Some(theirs)) => (ours, theirs),
                    (None, None) => {
                        misses += 1;
                        continue;
                    }
                    _ => panic!(
                        "{name}: from {pose:?} at {velocity:?}: {ours:?} vs parry3d {theirs:?}"
                    ),
                };
                // Keeping a skin of 2 cm: parry3d's target distance.
                let skin = 0.02;
                let short = world
                    .cast_shape_to(&shape, &pose, velocity, 20.0, skin, &filter)
                    .unwrap()
                    .expect("the skin is hit before the surface");
                let options = ShapeCastOptions {
                    target_distance: skin,
                    ..ShapeCastOptions::with_max_time_of_impact(20.0)
                };
                let theirs_short = oracle::cast_shapes(
                    &pose,
                    &velocity,
                    shape.as_parry(),
                    &level_pose,
                    &Vector::zeros(),
                    truth.as_parry(),
                    options,
                )
                .unwrap()
                .expect("parry3d stops at the skin too");
                let off = (short.toi - theirs_short.time_of_impact).abs() * velocity.norm();
                assert!(
                    off < 1e-3,
                    "{name}: skin toi {} vs {}",
                    short.toi,
                    theirs_short.time_of_impact
                );
                assert!(short.toi < ours.toi, "{name}");
                // Compared as distances travelled, so a slow cast does not hide an error.
                let off = (ours.toi - theirs.time_of_impact).abs() * velocity.norm();
                assert!(
                    off < 1e-3,
                    "{name}: toi {} vs parry3d {} ({pose:?}, {velocity:?})",
                    ours.toi,
                    theirs.time_of_impact,
                );
                worst_distance = worst_distance.max(off);
                // Parry's normal2 is the level's outward normal, in its frame.
                let normal = level_pose * theirs.normal2.into_inner();
                worst_normal = worst_normal.min(ours.normal.dot(&normal));
                // Touching there: the shape's point and the level's point coincide.
                assert!((ours.point - ours.point_on_shape).norm() < 1e-3, "{name}");
                let moved = Isometry::from_parts(
                    (pose.translation.vector + velocity * ours.toi).into(),
                    pose.rotation,
                );
                let near = oracle::contact(
                    &level_pose,
                    truth.as_parry(),
                    &moved,
                    shape.as_parry(),
                    1e-3,
                )
                .unwrap();
                assert!(near.is_some(), "{name}: apart at the reported toi");
            }
        }
        assert!(
            worst_normal > 0.99,
            "{name}: normals differ: {worst_normal}"
        );
        // Most casts land (the terrain is 12 m wide; some leave past its edge).
        assert!(misses < 40, "{name}: {misses} of 240 missed");
        println!("{name}: worst toi offset {worst_distance:e} m, worst normal cos {worst_normal}");
    }
}

#[test]
fn overlaps_and_contacts_with_level_geometry_agree_with_parry3d() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let filter = QueryFilter::new();
    let margin = 0.25;
    for (name, level, level_pose, truth) in levels() {
        let world = world_with(&level, &level_pose);
        let (mut overlapping, mut apart) = (0, 0);
        for shape in shapes() {
            for _ in 0..80 {
                // Around the surface: some in, some near, some out of reach of the margin.
                let (x, z) = (rng.range(-4.0, 4.0), rng.range(-4.0, 4.0));
                let pose = Isometry::from_parts(
                    Vector::new(x, rng.range(-0.6, 1.6), z).into(),
                    rng.rotation(),
                );
                // The level first: parry3d 0.25 passes the inverse pose to its half-space
                // contact when the half-space comes second.
                let theirs = oracle::contact(
                    &level_pose,
                    truth.as_parry(),
                    &pose,
                    shape.as_parry(),
                    margin,
                )
                .unwrap();
                let ours = world
                    .contacts_with_shape(&shape, &pose, margin, &filter)
                    .unwrap();
                let nearest = ours
                    .iter()
                    .map(|c| c.distance)
                    .fold(Real::INFINITY, Real::min);
                match theirs {
                    Some(c) => {
                        assert!(
                            (nearest - c.dist).abs() < 2e-3,
                            "{name}: nearest {nearest} vs parry3d {} at {pose:?}",
                            c.dist
                        );
                        let deepest = ours.iter().find(|o| o.distance == nearest).unwrap();
                        // Both from the level towards the shape (parry3d's in the world here).
                        let normal = c.normal1.into_inner();
                        if c.dist < 0.0 {
                            overlapping += 1;
                        } else {
                            apart += 1;
                        }
                        assert!(
                            deepest.normal.dot(&normal) > 0.98 || c.dist.abs() < 1e-3,
                            "{name}: normal {:?} vs parry3d {normal:?}",
                            deepest.normal
                        );
                    }
                    None => assert!(
                        nearest > margin - 2e-3,
                        "{name}: we find {nearest} within {margin} where parry3d finds nothing"
                    ),
                }
                let touches = world.intersect_shape(&shape, &pose, &filter).unwrap();
                let truth = oracle::intersection_test(
                    &pose,
                    shape.as_parry(),
                    &level_pose,
                    truth.as_parry(),
                )
                .unwrap();
                if nearest.abs() > 2e-3 {
                    assert_eq!(!touches.is_empty(), truth, "{name} at {pose:?}: {nearest}");
                }
            }
        }
        // Both sides of the surface were tried.
        assert!(
            overlapping > 20 && apart > 20,
            "{name}: {overlapping} in, {apart} out"
        );
    }
}

#[test]
fn contacts_with_shape_refuses_bad_margins() {
    let world = world_with(
        &Shape::halfspace(Vector::y()).unwrap(),
        &Isometry::identity(),
    );
    let ball = Shape::sphere(0.5).unwrap();
    let pose = Isometry::translation(0.0, 0.4, 0.0);
    let filter = QueryFilter::new();
    for margin in [Real::NAN, -0.1, Real::INFINITY, 1e6] {
        assert!(world
            .contacts_with_shape(&ball, &pose, margin, &filter)
            .is_err());
    }
    assert_eq!(
        world
            .contacts_with_shape(&ball, &pose, 0.0, &filter)
            .unwrap()
            .len(),
        1
    );
}

//! Hostile input: shapes built by hand around the constructors, huge normals and directions,
//! and extreme but valid shapes and poses.
//!
//! - Every variant a user can build from parry3d's types directly is refused by
//!   `Shape::check` with its typed error, and the constructors apply the same bounds
//!   (`MIN_DIMENSION`, `MAX_EXTENT`).
//! - A half-space normal or ray direction of 1e20 or 1e30 gives the answer of the unit one:
//!   the values are held to parry3d's queries on the unit input (or to f64 arithmetic), never to
//!   our own output.
//! - GJK, EPA, the manifold dispatch, ray casts and time of impact answer finitely for shapes at
//!   the bounds, at poses out to `MAX_EXTENT` and with nearly degenerate rotations; where parry3d
//!   says two convex shapes are clearly apart or clearly overlapping, so do we.

mod common;

use std::sync::Arc;

use common::signed_distance;
use sprung_collision::cast::{ray_cast, time_of_impact, Motion};
use sprung_collision::dispatch::manifolds;
use sprung_collision::hull::Hull;
use sprung_collision::parry3d;
use sprung_collision::parry3d::math::{Isometry, Point, Real, Translation, Vector};
use sprung_collision::parry3d::na::{DMatrix, Quaternion, Unit, UnitQuaternion};
use sprung_collision::parry3d::query::{Ray, ShapeCastOptions};
use sprung_collision::parry3d::shape::{
    Ball, Capsule, ConvexPolyhedron, Cuboid, HalfSpace, HeightField, TriMesh, Triangle,
};
use sprung_collision::shape::{Shape, ShapeError, MAX_EXTENT, MIN_DIMENSION};
use sprung_collision::unit::unit_quaternion;
use sprung_collision::{dispatch, epa};

fn p(x: Real, y: Real, z: Real) -> Point<Real> {
    Point::new(x, y, z)
}

fn v(x: Real, y: Real, z: Real) -> Vector<Real> {
    Vector::new(x, y, z)
}

fn finite_vector(x: &Vector<Real>) -> bool {
    x.iter().all(|c| c.is_finite())
}

fn finite_point(x: &Point<Real>) -> bool {
    finite_vector(&x.coords)
}

fn tetrahedron(scale: Real, offset: Vector<Real>) -> Vec<Point<Real>> {
    [
        p(0.0, 0.0, 0.0),
        p(1.0, 0.0, 0.0),
        p(0.0, 1.0, 0.0),
        p(0.0, 0.0, 1.0),
    ]
    .iter()
    .map(|q| q * scale + offset)
    .collect()
}

// ---------------------------------------------------------------------------------------------
// Hand-built variants
// ---------------------------------------------------------------------------------------------

#[test]
fn hand_built_solids_get_their_typed_errors() {
    let nan = Real::NAN;
    let cases: Vec<(Shape, ShapeError)> = vec![
        (Shape::Sphere(Ball::new(nan)), ShapeError::NonFinite),
        (
            Shape::Sphere(Ball::new(Real::INFINITY)),
            ShapeError::NonFinite,
        ),
        (Shape::Sphere(Ball::new(0.0)), ShapeError::NonPositive),
        (Shape::Sphere(Ball::new(-1.0)), ShapeError::NonPositive),
        (Shape::Sphere(Ball::new(1.0e-5)), ShapeError::TooSmall),
        (Shape::Sphere(Ball::new(2.0e5)), ShapeError::TooLarge),
        (
            Shape::Cuboid(Cuboid::new(v(1.0, nan, 1.0))),
            ShapeError::NonFinite,
        ),
        (
            Shape::Cuboid(Cuboid::new(v(1.0, 1.0, -1.0))),
            ShapeError::NonPositive,
        ),
        (
            Shape::Cuboid(Cuboid::new(v(1.0, 1.0e-6, 1.0))),
            ShapeError::TooSmall,
        ),
        (
            Shape::Cuboid(Cuboid::new(v(1.0e6, 1.0, 1.0))),
            ShapeError::TooLarge,
        ),
        (
            Shape::Capsule(Capsule::new(p(nan, 0.0, 0.0), p(0.0, 1.0, 0.0), 0.5)),
            ShapeError::NonFinite,
        ),
        (
            Shape::Capsule(Capsule::new(
                p(0.0, 0.0, 0.0),
                p(0.0, Real::INFINITY, 0.0),
                0.5,
            )),
            ShapeError::NonFinite,
        ),
        (
            Shape::Capsule(Capsule::new(p(0.0, 0.0, 0.0), p(0.0, 1.0, 0.0), nan)),
            ShapeError::NonFinite,
        ),
        (
            Shape::Capsule(Capsule::new(p(0.0, 0.0, 0.0), p(0.0, 1.0, 0.0), 0.0)),
            ShapeError::NonPositive,
        ),
        (
            Shape::Capsule(Capsule::new(p(0.0, 0.0, 0.0), p(0.0, 1.0, 0.0), 1.0e-5)),
            ShapeError::TooSmall,
        ),
        (
            Shape::Capsule(Capsule::new(p(0.0, -3.0e5, 0.0), p(0.0, 1.0, 0.0), 0.5)),
            ShapeError::TooLarge,
        ),
        (
            Shape::Capsule(Capsule::new(p(0.0, 0.0, 0.0), p(0.0, 1.0, 0.0), 1.0e6)),
            ShapeError::TooLarge,
        ),
    ];
    for (shape, error) in cases {
        assert_eq!(shape.check(), Err(error), "{shape:?}");
    }
}

#[test]
fn hand_built_hulls_are_checked() {
    // parry3d builds these hulls; only the bounds refuse them.
    let huge = ConvexPolyhedron::from_convex_hull(&tetrahedron(4.0e5, Vector::zeros())).unwrap();
    assert_eq!(
        Shape::ConvexHull(Arc::new(Hull::from(huge))).check(),
        Err(ShapeError::TooLarge)
    );
    let far = ConvexPolyhedron::from_convex_hull(&tetrahedron(1.0, v(0.0, 2.0e5, 0.0))).unwrap();
    assert_eq!(
        Shape::ConvexHull(Arc::new(Hull::from(far))).check(),
        Err(ShapeError::TooLarge)
    );
    let tiny = ConvexPolyhedron::from_convex_hull(&tetrahedron(1.0e-5, Vector::zeros())).unwrap();
    assert_eq!(
        Shape::ConvexHull(Arc::new(Hull::from(tiny))).check(),
        Err(ShapeError::TooSmall)
    );
    // A hull whose mesh parry3d accepted with a NaN corner (from_convex_mesh computes no hull).
    let mut corners = tetrahedron(1.0, Vector::zeros());
    corners[3] = p(0.0, 0.0, Real::NAN);
    let faces = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    if let Some(hull) = ConvexPolyhedron::from_convex_mesh(corners, &faces) {
        assert_eq!(
            Shape::ConvexHull(Arc::new(Hull::from(hull))).check(),
            Err(ShapeError::NonFinite)
        );
    }
    let good = ConvexPolyhedron::from_convex_hull(&tetrahedron(1.0, Vector::zeros())).unwrap();
    assert_eq!(
        Shape::ConvexHull(Arc::new(Hull::from(good))).check(),
        Ok(())
    );
}

#[test]
fn hand_built_level_shapes_get_their_typed_errors() {
    let nan = Real::NAN;
    let half = |n: Vector<Real>| Shape::HalfSpace(HalfSpace::new(Unit::new_unchecked(n)));
    let tri = |a, b, c| Shape::Triangle(Triangle::new(a, b, c));
    let quad = |y: Real, far: Real| {
        vec![
            p(-1.0, 0.0, -1.0),
            p(-1.0, y, 1.0),
            p(far, 0.0, 1.0),
            p(1.0, 0.0, -1.0),
        ]
    };
    let mesh = |vertices: Vec<Point<Real>>| {
        Shape::TriMesh(Arc::new(
            TriMesh::new(vertices, vec![[0, 1, 2], [0, 2, 3]]).unwrap(),
        ))
    };
    let field = |heights: DMatrix<Real>, scale: Vector<Real>| {
        Shape::HeightField(Arc::new(HeightField::new(heights, scale)))
    };
    let cases: Vec<(Shape, ShapeError)> = vec![
        (half(Vector::zeros()), ShapeError::ZeroNormal),
        (half(v(1.0e-42, 0.0, 0.0)), ShapeError::ZeroNormal),
        (half(v(nan, 1.0, 0.0)), ShapeError::NonFinite),
        (half(v(0.0, Real::INFINITY, 0.0)), ShapeError::NonFinite),
        (half(v(0.0, 2.0, 0.0)), ShapeError::NonUnitNormal),
        (half(v(0.0, 0.999, 0.0)), ShapeError::NonUnitNormal),
        (half(v(0.0, 1.0e30, 0.0)), ShapeError::NonUnitNormal),
        (
            tri(p(0.0, 0.0, 0.0), p(1.0, nan, 0.0), p(0.0, 0.0, 1.0)),
            ShapeError::NonFinite,
        ),
        (
            tri(p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0), p(2.0, 2.0, 2.0)),
            ShapeError::DegenerateMesh,
        ),
        (
            tri(p(0.0, 0.0, 0.0), p(2.0e5, 0.0, 0.0), p(0.0, 0.0, 1.0)),
            ShapeError::TooLarge,
        ),
        (mesh(quad(nan, 1.0)), ShapeError::NonFinite),
        (mesh(quad(0.0, 5.0e5)), ShapeError::TooLarge),
        (
            field(DMatrix::from_element(3, 3, nan), v(1.0, 1.0, 1.0)),
            ShapeError::NonFinite,
        ),
        (
            field(DMatrix::zeros(3, 3), v(1.0, nan, 1.0)),
            ShapeError::NonFinite,
        ),
        (
            field(DMatrix::zeros(3, 3), v(0.0, 1.0, 1.0)),
            ShapeError::NonPositive,
        ),
        (
            field(DMatrix::zeros(3, 3), v(1.0, -1.0, 1.0)),
            ShapeError::NonPositive,
        ),
        (
            field(DMatrix::zeros(3, 3), v(1.0, 1.0, 3.0e5)),
            ShapeError::TooLarge,
        ),
        (
            field(DMatrix::from_element(3, 3, 2.0), v(1.0, 1.0e5, 1.0)),
            ShapeError::TooLarge,
        ),
        (
            field(DMatrix::zeros(3, 3), v(1.0e-6, 1.0, 1.0)),
            ShapeError::TooSmall,
        ),
    ];
    for (shape, error) in cases {
        assert_eq!(shape.check(), Err(error), "{shape:?}");
    }
    // Within tolerance of unit is accepted as built.
    assert_eq!(half(v(0.0, 1.0 + 5.0e-5, 0.0)).check(), Ok(()));
    assert_eq!(mesh(quad(0.0, 1.0)).check(), Ok(()));
}

#[test]
fn constructors_enforce_the_bounds() {
    let big = 2.0 * MAX_EXTENT;
    let small = 0.5 * MIN_DIMENSION;
    assert_eq!(Shape::sphere(big).unwrap_err(), ShapeError::TooLarge);
    assert_eq!(Shape::sphere(small).unwrap_err(), ShapeError::TooSmall);
    assert_eq!(
        Shape::cuboid(v(1.0, big, 1.0)).unwrap_err(),
        ShapeError::TooLarge
    );
    assert_eq!(
        Shape::cuboid(v(1.0, small, 1.0)).unwrap_err(),
        ShapeError::TooSmall
    );
    assert_eq!(Shape::capsule(big, 1.0).unwrap_err(), ShapeError::TooLarge);
    assert_eq!(
        Shape::capsule(1.0, small).unwrap_err(),
        ShapeError::TooSmall
    );
    assert_eq!(Shape::capsule(1.0, big).unwrap_err(), ShapeError::TooLarge);
    assert_eq!(
        Shape::convex_hull(&tetrahedron(big, Vector::zeros())).unwrap_err(),
        ShapeError::TooLarge
    );
    assert_eq!(
        Shape::convex_hull(&tetrahedron(small, Vector::zeros())).unwrap_err(),
        ShapeError::TooSmall
    );
    assert_eq!(
        Shape::triangle(p(0.0, 0.0, 0.0), p(big, 0.0, 0.0), p(0.0, 0.0, 1.0)).unwrap_err(),
        ShapeError::TooLarge
    );
    let quad = vec![
        p(-big, 0.0, -1.0),
        p(-1.0, 0.0, 1.0),
        p(1.0, 0.0, 1.0),
        p(1.0, 0.0, -1.0),
    ];
    assert_eq!(
        Shape::trimesh(quad, vec![[0, 1, 2], [0, 2, 3]]).unwrap_err(),
        ShapeError::TooLarge
    );
    assert_eq!(
        Shape::heightfield(DMatrix::zeros(2, 2), v(big, 1.0, 1.0)).unwrap_err(),
        ShapeError::TooLarge
    );
    assert_eq!(
        Shape::heightfield(DMatrix::from_element(2, 2, big), v(1.0, 1.0, 1.0)).unwrap_err(),
        ShapeError::TooLarge
    );
    assert_eq!(
        Shape::heightfield(DMatrix::zeros(2, 2), v(1.0, 1.0, small)).unwrap_err(),
        ShapeError::TooSmall
    );
    // Exactly at the bounds is accepted.
    assert!(Shape::sphere(MAX_EXTENT).is_ok() && Shape::sphere(MIN_DIMENSION).is_ok());
    assert!(Shape::cuboid(v(MAX_EXTENT, MIN_DIMENSION, 1.0)).is_ok());
    assert!(Shape::capsule(MAX_EXTENT, MIN_DIMENSION).is_ok());
    assert!(Shape::capsule(0.0, MAX_EXTENT).is_ok());
    // Every error says what it is about.
    for e in [
        ShapeError::TooLarge,
        ShapeError::TooSmall,
        ShapeError::NonUnitNormal,
    ] {
        assert!(!e.to_string().is_empty());
    }
    assert!(ShapeError::TooLarge.to_string().contains("MAX_EXTENT"));
    assert!(ShapeError::TooSmall.to_string().contains("MIN_DIMENSION"));
}

// ---------------------------------------------------------------------------------------------
// Huge normals and directions
// ---------------------------------------------------------------------------------------------

#[test]
fn a_huge_half_space_normal_is_the_unit_one() {
    for scale in [1.0e20, 1.0e30, 5.0e37] {
        for n in [v(0.0, 1.0, 0.0), v(3.0, 4.0, 0.0), v(-1.0, 2.0, -2.0)] {
            let Shape::HalfSpace(h) = Shape::halfspace(n * scale).unwrap() else {
                unreachable!()
            };
            // The oracle: the direction in f64.
            let n64 = n.map(|x| x as f64);
            let expected = n64 / n64.norm();
            let got = h.normal.map(|x| x as f64);
            assert!((got - expected).norm() < 1.0e-6, "{scale} {n:?}: {got:?}");
            assert!(Shape::HalfSpace(h).check().is_ok());
        }
    }
    assert_eq!(
        Shape::halfspace(Vector::zeros()).unwrap_err(),
        ShapeError::ZeroNormal
    );
    assert_eq!(
        Shape::halfspace(v(1.0e-42, 0.0, 0.0)).unwrap_err(),
        ShapeError::ZeroNormal
    );
}

#[test]
fn a_huge_normal_half_space_touches_as_parry3d_says() {
    let floor = Shape::halfspace(v(0.0, 1.0e30, 0.0)).unwrap();
    let cube = Shape::cuboid(v(0.5, 0.5, 0.5)).unwrap();
    let at = Isometry::new(v(0.3, 0.45, -0.2), v(0.0, 0.3, 0.0));
    let mut out = smallvec::SmallVec::new();
    manifolds(&floor, &Isometry::identity(), &cube, &at, 0.02, &mut out);
    let oracle = HalfSpace::new(Vector::y_axis());
    let theirs = parry3d::query::contact(&Isometry::identity(), &oracle, &at, cube.as_parry(), 0.0)
        .unwrap()
        .unwrap();
    assert_eq!(out.len(), 1);
    let deepest = out[0]
        .points
        .iter()
        .map(|q| q.separation)
        .fold(Real::INFINITY, Real::min);
    assert!(
        (deepest - theirs.dist).abs() < 1.0e-5,
        "{deepest} vs {}",
        theirs.dist
    );
    assert!((out[0].normal - theirs.normal1.into_inner()).norm() < 1.0e-5);
}

/// parry3d's support point of a capsule or hull along world direction `dir`.
fn support_point(shape: &Shape, pose: &Isometry<Real>, dir: &Vector<Real>) -> Point<Real> {
    use sprung_collision::parry3d::shape::SupportMap;
    match shape {
        Shape::Capsule(c) => c.support_point(pose, dir),
        Shape::ConvexHull(h) => h.support_point(pose, dir),
        _ => unreachable!(),
    }
}

/// Every kind of shape, about a metre across, for the casts.
fn zoo() -> Vec<Shape> {
    let square = vec![
        p(-1.0, 0.0, -1.0),
        p(-1.0, 0.0, 1.0),
        p(1.0, 0.0, 1.0),
        p(1.0, 0.0, -1.0),
    ];
    vec![
        Shape::sphere(0.5).unwrap(),
        Shape::cuboid(v(0.5, 0.3, 0.7)).unwrap(),
        Shape::capsule(0.4, 0.3).unwrap(),
        Shape::convex_hull(&[
            p(-0.5, -0.4, -0.3),
            p(0.6, -0.5, -0.2),
            p(0.0, 0.7, 0.1),
            p(-0.1, -0.2, 0.6),
            p(0.2, 0.1, -0.6),
        ])
        .unwrap(),
        Shape::triangle(p(-1.0, 0.0, -1.0), p(-1.0, 0.0, 1.0), p(1.0, 0.0, 0.0)).unwrap(),
        Shape::halfspace(v(0.0, 1.0, 0.0)).unwrap(),
        Shape::trimesh(square, vec![[0, 1, 2], [0, 2, 3]]).unwrap(),
        Shape::heightfield(
            DMatrix::from_fn(4, 4, |i, j| 0.1 * (i as Real) - 0.05 * (j as Real)),
            v(2.0, 1.0, 2.0),
        )
        .unwrap(),
    ]
}

#[test]
fn huge_ray_directions_hit_where_the_unit_ones_do() {
    let pose = Isometry::new(v(0.2, -0.1, 0.3), v(0.1, 0.7, -0.2));
    let origins = [p(0.1, 3.0, 0.2), p(-3.0, 0.4, 0.1), p(0.05, -0.05, 0.02)];
    let mut hits = 0;
    for shape in zoo() {
        for origin in &origins {
            let to_centre = pose.translation.vector - origin.coords;
            for unit in [to_centre.normalize(), v(0.1, -1.0, 0.05).normalize()] {
                for solid in [true, false] {
                    // The oracle: parry3d's cast of the unit ray, its toi a distance.
                    let ray = Ray::new(*origin, unit);
                    let theirs = shape
                        .as_parry()
                        .cast_ray_and_get_normal(&pose, &ray, 100.0, solid);
                    for scale in [1.0e20, 1.0e30] {
                        let dir = unit * scale;
                        let ours = ray_cast(&shape, &pose, origin, &dir, 100.0 / scale, solid);
                        match (ours, theirs) {
                            (Some(o), Some(t)) => {
                                hits += 1;
                                // parry3d's rays on capsules and hulls run its GJK, good to
                                // a few 1e-4 (cast_oracle.rs): there the hit point is also
                                // held to the exact surface.
                                let approximate =
                                    matches!(shape, Shape::Capsule(_) | Shape::ConvexHull(_));
                                let tolerance = if approximate { 2.0e-3 } else { 1.0e-4 };
                                let distance = o.toi as f64 * scale as f64;
                                assert!(
                                    (distance - t.time_of_impact as f64).abs() < tolerance,
                                    "{shape:?} {origin:?} {scale}: {o:?} vs {t:?}"
                                );
                                let expected = origin + unit * t.time_of_impact;
                                assert!(
                                    (o.point - expected).norm() < tolerance as Real,
                                    "{o:?} vs {t:?}"
                                );
                                assert!(finite_vector(&o.normal));
                                if approximate && t.time_of_impact > 0.0 {
                                    let gap = signed_distance(&shape, &pose, &o.point);
                                    assert!(gap.abs() < 1.0e-5, "{shape:?}: {o:?} {gap}");
                                }
                                // From inside a solid, the normal is a convention (ours
                                // -dir, parry3d's varies by shape): compared only on hits.
                                if t.time_of_impact > 0.0 && !approximate {
                                    assert!(
                                        (o.normal - t.normal).norm() < 1.0e-3,
                                        "{shape:?} {origin:?}: {o:?} vs {t:?}"
                                    );
                                }
                                // parry3d's normal on them is approximate too (0.06 off seen):
                                // ours must be a supporting plane's at the hit point, by
                                // parry3d's exact support map.
                                if t.time_of_impact > 0.0 && approximate {
                                    // A hollow cast leaving the shape has an inward normal.
                                    let inside = signed_distance(&shape, &pose, origin) < 0.0;
                                    let outward = if inside && !solid {
                                        -o.normal
                                    } else {
                                        o.normal
                                    };
                                    let support = support_point(&shape, &pose, &outward);
                                    let gap = (support - o.point).dot(&outward);
                                    assert!(gap.abs() < 1.0e-5, "{shape:?}: {o:?} {gap}");
                                }
                            }
                            (None, None) => {}
                            (o, t) => panic!("{shape:?} {origin:?} {scale}: {o:?} vs {t:?}"),
                        }
                    }
                }
            }
        }
    }
    assert!(hits > 40, "only {hits} hits: the test lost its teeth");
}

#[test]
fn huge_speeds_give_the_unit_speed_time_scaled() {
    let ball = Shape::sphere(0.25).unwrap();
    let wall = Shape::cuboid(v(0.1, 2.0, 2.0)).unwrap();
    let start = Isometry::translation(-3.0, 0.2, 0.1);
    let wall_at = Isometry::translation(0.0, 0.0, 0.0);
    // The oracle: parry3d's linear cast at unit speed.
    let theirs = parry3d::query::cast_shapes(
        &start,
        &Vector::x(),
        ball.as_parry(),
        &wall_at,
        &Vector::zeros(),
        wall.as_parry(),
        ShapeCastOptions::with_max_time_of_impact(10.0),
    )
    .unwrap()
    .unwrap();
    for speed in [1.0e20, 1.0e30] {
        // Spinning about its centre at any speed changes nothing for a ball.
        let motion = Motion::new(start, Vector::x() * speed, v(1.0, 2.0, 3.0) * speed);
        let toi = time_of_impact(
            &ball,
            &motion,
            &wall,
            &Motion::fixed(wall_at),
            10.0 / speed,
            0.0,
        )
        .unwrap();
        let t = toi.t as f64 * speed as f64;
        assert!(
            (t - theirs.time_of_impact as f64).abs() < 1.0e-4,
            "{speed}: {toi:?} vs {theirs:?}"
        );
        assert!(finite_point(&toi.point_a) && finite_point(&toi.point_b));
    }
    // A box spinning past f32's count of turns: an answer, finite, never late.
    let rod = Shape::cuboid(v(1.0, 0.05, 0.05)).unwrap();
    for spin in [1.0e20, 1.0e30, Real::MAX] {
        let motion = Motion::new(start, Vector::x(), v(0.0, 0.0, spin));
        if let Some(toi) = time_of_impact(&rod, &motion, &wall, &Motion::fixed(wall_at), 10.0, 0.0)
        {
            assert!(toi.t.is_finite() && toi.t <= theirs.time_of_impact + 1.0e-4);
            assert!(finite_vector(&toi.normal) && finite_point(&toi.point_a));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Extreme but valid shapes and poses
// ---------------------------------------------------------------------------------------------

/// Shapes at the bounds: the largest and smallest the constructors accept.
fn extremes() -> Vec<Shape> {
    let e = MAX_EXTENT;
    let m = MIN_DIMENSION;
    let square = vec![p(-e, 0.0, -e), p(-e, 0.0, e), p(e, 0.0, e), p(e, 0.0, -e)];
    vec![
        Shape::sphere(m).unwrap(),
        Shape::sphere(e).unwrap(),
        Shape::cuboid(v(m, m, m)).unwrap(),
        Shape::cuboid(v(e, m, e)).unwrap(),
        Shape::capsule(e, m).unwrap(),
        Shape::capsule(0.0, m).unwrap(),
        Shape::convex_hull(&tetrahedron(2.0 * m, Vector::zeros())).unwrap(),
        Shape::convex_hull(&[
            p(-e, -e, -e),
            p(e, -e, -e),
            p(0.0, e, 0.0),
            p(0.0, -e, e),
            p(0.0, 0.0, -e),
        ])
        .unwrap(),
        Shape::triangle(p(-e, 0.0, -e), p(-e, 0.0, e), p(e, 0.0, 0.0)).unwrap(),
        Shape::halfspace(v(1.0e-20, 1.0e30, -1.0e25)).unwrap(),
        Shape::trimesh(square, vec![[0, 1, 2], [0, 2, 3]]).unwrap(),
        Shape::heightfield(
            DMatrix::from_fn(3, 3, |i, j| if (i + j) % 2 == 0 { e } else { -e }),
            v(e, 1.0, e),
        )
        .unwrap(),
    ]
}

/// Rotations that are unit but come from nearly degenerate quaternions.
fn rotations() -> Vec<UnitQuaternion<Real>> {
    let q = |w, i, j, k| unit_quaternion(&Quaternion::new(w, i, j, k)).unwrap();
    vec![
        UnitQuaternion::identity(),
        q(1.0e-30, 1.0e-30, 0.0, 1.0e-30),
        q(3.0e38, 1.0e30, -2.0e38, 0.0),
        q(1.0, 1.0e-20, 0.0, 0.0),
        q(0.0, 0.0, 1.0, 0.0),     // half a turn
        q(-1.0, 0.0, 0.0, 1.0e-7), // the other cover, nearly identity
        q(0.5, -0.5, 0.5, 0.5),
    ]
}

fn poses() -> Vec<Isometry<Real>> {
    let e = MAX_EXTENT;
    let spots = [
        v(0.0, 0.0, 0.0),
        v(e, -e, e),
        v(-e, e, 0.5 * e),
        v(1.0e-3, 2.0e-4, 0.0),
        v(e, e, e),
    ];
    let mut out = Vec::new();
    for (k, r) in rotations().into_iter().enumerate() {
        for (i, s) in spots.iter().enumerate() {
            if (i + k) % 2 == 0 {
                out.push(Isometry::from_parts(Translation::from(*s), r));
            }
        }
    }
    out
}

/// Every query on the pair: no panic, finite numbers, and agreement with parry3d where it says
/// the convex pair is clearly apart or clearly overlapping.
fn query_pair(a: &Shape, pa: &Isometry<Real>, b: &Shape, pb: &Isometry<Real>) {
    let what = || format!("{a:?} at {pa:?} / {b:?} at {pb:?}");
    let mut out = smallvec::SmallVec::new();
    manifolds(a, pa, b, pb, 0.05, &mut out);
    for m in &out {
        assert!(finite_vector(&m.normal), "{}", what());
        assert!(m.points.len() <= 4);
        for q in &m.points {
            assert!(
                q.separation.is_finite() && finite_point(&q.point_a) && finite_point(&q.point_b),
                "{q:?} {}",
                what()
            );
        }
    }
    if a.is_level() || b.is_level() {
        return;
    }
    let d = dispatch::distance(a, pa, b, pb);
    assert!(
        d.separation.is_finite() && finite_point(&d.point_a) && finite_point(&d.point_b),
        "{d:?} {}",
        what()
    );
    assert!(finite_vector(&d.normal), "{d:?} {}", what());
    let touching = dispatch::intersects(a, pa, b, pb);
    let contact = epa::contact(a, pa, b, pb, Real::INFINITY).expect("an infinite margin");
    assert!(
        contact.separation.is_finite()
            && finite_vector(&contact.normal)
            && finite_point(&contact.point_a)
            && finite_point(&contact.point_b),
        "{contact:?} {}",
        what()
    );
    // The oracle, with a margin: f32 at 1e5 m has centimetre spacing, and parry3d's GJK has
    // its own tolerance. That one is partly absolute: on shapes under a millimetre parry3d
    // reports a 0.1 mm ball on a 0.2 mm tetrahedron's corner as 0.1 mm apart, so tiny pairs
    // are held to exact geometry instead (`tiny_shapes_touch_where_geometry_says`).
    // Nor is it reliable on slivers: two 1e5 x 1e-4 x 1e5 m slabs whose edges meet (within
    // f32's 8 mm spacing there, checked by hand in f64) are 173 759 m apart by its distance.
    // Such pairs keep the finiteness checks above.
    let plain = |s: &Shape| s.scale() >= 1.0e-2 && s.thickness() >= 1.0e-3 * s.scale();
    if !(plain(a) && plain(b)) {
        return;
    }
    let theirs = parry3d::query::distance(pa, a.as_parry(), pb, b.as_parry()).unwrap();
    let size = a.scale() + b.scale() + pa.translation.vector.amax() + pb.translation.vector.amax();
    let margin = 1.0e-4 * size + 1.0e-5;
    if theirs > margin {
        assert!(!touching, "parry3d: {theirs} apart; {}", what());
        assert!(
            contact.separation > 0.0,
            "{contact:?} parry3d {theirs}; {}",
            what()
        );
    }
    let deep = parry3d::query::contact(pa, a.as_parry(), pb, b.as_parry(), 0.0).unwrap();
    if let Some(deep) = deep.filter(|c| c.dist < -margin) {
        assert!(touching, "parry3d: {} deep; {}", deep.dist, what());
        assert!(
            contact.separation < 0.0,
            "{contact:?} vs {deep:?}; {}",
            what()
        );
    }
}

#[test]
fn extreme_shapes_and_poses_answer_finitely() {
    let shapes = extremes();
    let poses = poses();
    for a in &shapes {
        for b in &shapes {
            for (i, pa) in poses.iter().enumerate() {
                // Every pose of A against a few of B (all would be 100 000 pairs).
                for pb in poses.iter().skip(i % 3).step_by(3) {
                    query_pair(a, pa, b, pb);
                }
            }
        }
    }
}

#[test]
fn tiny_shapes_touch_where_geometry_says() {
    let m = MIN_DIMENSION;
    let ball = Shape::sphere(m).unwrap();
    let cube = Shape::cuboid(v(m, m, m)).unwrap();
    let tetra = Shape::convex_hull(&tetrahedron(2.0 * m, Vector::zeros())).unwrap();
    for r in rotations() {
        let turned = |x: Vector<Real>| Isometry::from_parts(Translation::from(x), r);
        // The ball's centre on the tetrahedron's corner at its origin: overlapping by m.
        assert!(dispatch::intersects(
            &ball,
            &Isometry::identity(),
            &tetra,
            &turned(Vector::zeros())
        ));
        let c = epa::contact(
            &ball,
            &Isometry::identity(),
            &tetra,
            &turned(Vector::zeros()),
            0.0,
        )
        .unwrap();
        assert!(c.separation < 0.0 && finite_vector(&c.normal), "{c:?}");
        // The ball 3m off that corner along the negative X axis of the tetrahedron's frame,
        // where the corner is nearest: 2m apart.
        let centre = r * v(-3.0 * m, -0.5 * m, -0.5 * m);
        let at = Isometry::translation(centre.x, centre.y, centre.z);
        let expected = (3.0 * m * 3.0 * m + 0.5 * m * 0.5 * m * 2.0).sqrt() - m;
        let d = dispatch::distance(&ball, &at, &tetra, &turned(Vector::zeros()));
        assert!(
            (d.separation - expected).abs() < 1.0e-8,
            "{d:?} vs {expected}"
        );
        // Two tiny cubes side by side, m apart along the second cube's own X axis.
        let b = turned(r * v(3.0 * m, 0.0, 0.0));
        let d = dispatch::distance(&cube, &turned(Vector::zeros()), &cube, &b);
        assert!((d.separation - m).abs() < 1.0e-8, "{d:?}");
    }
}

#[test]
fn extreme_casts_answer_finitely() {
    let shapes = extremes();
    let poses = poses();
    let dirs = [
        v(0.0, -1.0, 0.0),
        v(1.0e30, 1.0e-30, -1.0e20),
        v(1.0e-30, 0.0, 0.0),
        v(-1.0, 1.0, 1.0),
    ];
    for shape in &shapes {
        for pose in &poses {
            for dir in &dirs {
                for origin in [p(0.0, 0.0, 0.0), p(MAX_EXTENT, -MAX_EXTENT, 3.0)] {
                    for solid in [true, false] {
                        for max in [0.0, 1.0, Real::INFINITY] {
                            if let Some(hit) = ray_cast(shape, pose, &origin, dir, max, solid) {
                                assert!(
                                    hit.toi.is_finite()
                                        && hit.toi >= 0.0
                                        && finite_point(&hit.point)
                                        && finite_vector(&hit.normal),
                                    "{hit:?} {shape:?} {pose:?} {dir:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
        // Time of impact of every convex extreme against the others, moving fast and turning.
        if shape.is_static_only() {
            continue;
        }
        for other in &shapes {
            for (k, pose) in poses.iter().enumerate().step_by(4) {
                let motion = Motion::new(
                    *pose,
                    v(1.0e3, -2.0e2, 5.0) * (k as Real),
                    v(0.0, 30.0, 1.0e5),
                );
                let fixed = Motion::fixed(poses[(k + 1) % poses.len()]);
                for target in [0.0, 0.01] {
                    let toi = if other.is_level() {
                        // Level shapes are never cast against (the manifold stage handles them);
                        // only convex pairs reach time of impact.
                        continue;
                    } else {
                        time_of_impact(shape, &motion, other, &fixed, 1.0, target)
                    };
                    if let Some(toi) = toi {
                        assert!(
                            toi.t.is_finite()
                                && (0.0..=1.0).contains(&toi.t)
                                && finite_vector(&toi.normal)
                                && finite_point(&toi.point_a)
                                && finite_point(&toi.point_b),
                            "{toi:?} {shape:?} {other:?} {pose:?}"
                        );
                    }
                }
            }
        }
    }
}

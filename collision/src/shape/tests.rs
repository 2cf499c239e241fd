use super::*;

#[test]
fn bad_dimensions_are_refused() {
    assert_eq!(Shape::sphere(0.0).unwrap_err(), ShapeError::NonPositive);
    assert_eq!(Shape::sphere(Real::NAN).unwrap_err(), ShapeError::NonFinite);
    assert_eq!(
        Shape::cuboid(Vector::new(1.0, Real::INFINITY, 1.0)).unwrap_err(),
        ShapeError::NonFinite
    );
    assert_eq!(
        Shape::cuboid(Vector::new(1.0, -1.0, 1.0)).unwrap_err(),
        ShapeError::NonPositive
    );
    assert_eq!(
        Shape::capsule(-0.1, 1.0).unwrap_err(),
        ShapeError::NonPositive
    );
    assert!(Shape::capsule(0.0, 1.0).is_ok());
}

#[test]
fn degenerate_hulls_are_typed_errors() {
    let p = |x, y, z| Point::new(x, y, z);
    let cases: Vec<Vec<Point<Real>>> = vec![
        vec![],
        vec![p(0.0, 0.0, 0.0)],
        vec![p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0)],
        vec![p(0.0, 0.0, 0.0); 10],
        (0..10)
            .map(|i| p(i as Real, 2.0 * i as Real, 0.5))
            .collect(),
        (0..10)
            .map(|i| p(i as Real, (i * i) as Real, 0.0))
            .collect(),
    ];
    for pts in cases {
        assert_eq!(
            Shape::convex_hull(&pts).unwrap_err(),
            ShapeError::DegenerateHull,
            "{pts:?}"
        );
    }
    assert_eq!(
        Shape::convex_hull(&[p(0.0, 0.0, Real::NAN), p(1.0, 0.0, 0.0)]).unwrap_err(),
        ShapeError::NonFinite
    );
    let tetra = [
        p(0.0, 0.0, 0.0),
        p(1.0, 0.0, 0.0),
        p(0.0, 1.0, 0.0),
        p(0.0, 0.0, 1.0),
    ];
    assert!(Shape::convex_hull(&tetra).is_ok());
}

#[test]
fn support_is_the_farthest_point() {
    let shapes = [
        Shape::sphere(0.7).unwrap(),
        Shape::cuboid(Vector::new(0.5, 1.0, 2.0)).unwrap(),
        Shape::capsule(0.8, 0.3).unwrap(),
    ];
    for shape in &shapes {
        for dir in [
            Vector::x(),
            -Vector::y(),
            Vector::new(1.0, 2.0, -3.0).normalize(),
        ] {
            // parry3d's own support map is the reference.
            let expected = match shape {
                Shape::Sphere(b) => parry3d::shape::SupportMap::local_support_point(b, &dir),
                Shape::Cuboid(c) => parry3d::shape::SupportMap::local_support_point(c, &dir),
                Shape::Capsule(c) => parry3d::shape::SupportMap::local_support_point(c, &dir),
                _ => unreachable!(),
            };
            assert!(
                (shape.support(&dir).coords.dot(&dir) - expected.coords.dot(&dir)).abs() < 1e-5
            );
        }
    }
}

//! Degenerate inputs never panic, hang or return NaN: a property test over the configurations
//! that break naive GJK and EPA code.

mod common;

use common::{shape, Rng};
use sprung_collision::contact::Manifold;
use sprung_collision::dispatch::manifold;
use sprung_collision::parry3d::math::{Isometry, Point, Real, Vector};
use sprung_collision::shape::Shape;
use sprung_collision::{dispatch, epa};

fn finite(p: &Point<Real>) -> bool {
    p.coords.iter().all(|x| x.is_finite())
}

/// Every query on the pair answers, with finite numbers, and the manifold holds at most 4 points.
fn check(a: &Shape, pa: &Isometry<Real>, b: &Shape, pb: &Isometry<Real>) {
    let d = dispatch::distance(a, pa, b, pb);
    assert!(
        d.separation.is_finite() && d.separation >= 0.0 && finite(&d.point_a) && finite(&d.point_b),
        "{d:?}"
    );
    assert!(d.normal.iter().all(|x| x.is_finite()));
    let _ = dispatch::intersects(a, pa, b, pb);
    if let Some(c) = epa::contact(a, pa, b, pb, 0.05) {
        assert!(
            c.separation.is_finite() && finite(&c.point_a) && finite(&c.point_b),
            "{c:?}"
        );
        assert!(
            (c.normal.norm() - 1.0).abs() < 1e-3,
            "normal {:?} for {a:?} {pa:?} {b:?} {pb:?}",
            c.normal
        );
    }
    let mut m = Manifold::default();
    manifold(a, pa, b, pb, 0.05, &mut m);
    assert!(m.points.len() <= 4);
    for p in &m.points {
        assert!(
            p.separation.is_finite() && finite(&p.point_a) && finite(&p.point_b),
            "{p:?}"
        );
    }
}

fn awkward_shapes(rng: &mut Rng) -> Vec<Shape> {
    let p = |x, y, z| Point::new(x, y, z);
    let mut shapes = vec![
        // Thin, tiny and huge shapes.
        Shape::cuboid(Vector::new(1.0, 1.0e-4, 1.0)).unwrap(),
        Shape::cuboid(Vector::new(1.0e-3, 1.0e-3, 1.0e-3)).unwrap(),
        Shape::cuboid(Vector::new(500.0, 1.0, 500.0)).unwrap(),
        Shape::sphere(1.0e-3).unwrap(),
        Shape::capsule(0.0, 0.3).unwrap(),
        Shape::capsule(50.0, 0.01).unwrap(),
        // A hull from duplicated points, and a nearly flat sliver: sides sloping 2.9 degrees
        // (parry3d folds a pyramid flatter than about 1.5 degrees into two back-to-back faces,
        // which the constructor refuses since the fuzzing found it).
        Shape::convex_hull(&[
            p(0.0, 0.0, 0.0),
            p(0.0, 0.0, 0.0),
            p(1.0, 0.0, 0.0),
            p(1.0, 0.0, 0.0),
            p(0.0, 1.0, 0.0),
            p(0.0, 0.0, 1.0),
            p(0.0, 0.0, 1.0),
        ])
        .unwrap(),
        Shape::convex_hull(&[
            p(-1.0, 0.0, -1.0),
            p(1.0, 0.0, -1.0),
            p(1.0, 0.0, 1.0),
            p(-1.0, 0.0, 1.0),
            p(0.0, 0.05, 0.0),
        ])
        .unwrap(),
    ];
    for k in 0..4 {
        shapes.push(shape(rng, k));
    }
    shapes
}

#[test]
fn degenerate_pairs_answer_finitely() {
    let mut rng = Rng(99);
    let shapes = awkward_shapes(&mut rng);
    for a in &shapes {
        for b in &shapes {
            // Identical poses (a shape against itself or another centred on it).
            for _ in 0..5 {
                let pose = rng.pose(3.0);
                check(a, &pose, b, &pose);
            }
            // Axis-aligned, exactly touching, face to face, edge to edge, vertex to vertex.
            let ha = a.aabb(&Isometry::identity()).half_extents();
            let hb = b.aabb(&Isometry::identity()).half_extents();
            for dir in [
                Vector::y(),
                Vector::new(1.0, 1.0, 0.0),
                Vector::new(1.0, 1.0, 1.0),
            ] {
                let offset = dir.component_mul(&(ha + hb));
                check(
                    a,
                    &Isometry::identity(),
                    b,
                    &Isometry::translation(offset.x, offset.y, offset.z),
                );
            }
            // Far apart, and at large world coordinates.
            check(
                a,
                &Isometry::identity(),
                b,
                &Isometry::translation(1.0e4, 0.0, 0.0),
            );
            check(
                a,
                &Isometry::translation(1.0e4, 2.0e4, -1.0e4),
                b,
                &Isometry::translation(1.0e4, 2.0e4 + 0.5, -1.0e4),
            );
            // Random poses at every scale of offset.
            for scale in [1.0e-4, 1.0e-2, 0.3, 1.0, 3.0] {
                for _ in 0..20 {
                    check(a, &rng.pose(scale), b, &rng.pose(scale));
                }
            }
        }
    }
}

#[test]
fn touching_boxes_resolve_to_zero_depth() {
    let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
    for (x, y, z) in [
        (0.0, 1.0, 0.0),
        (1.0, 1.0, 0.0),
        (1.0, 1.0, 1.0),
        (0.3, 1.0, -0.2),
    ] {
        let c = epa::contact(
            &cube,
            &Isometry::identity(),
            &cube,
            &Isometry::translation(x, y, z),
            0.0,
        )
        .unwrap();
        assert!(c.separation.abs() < 1e-5, "{c:?}");
    }
}

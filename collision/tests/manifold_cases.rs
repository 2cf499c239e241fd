//! Manifolds with known answers: the number of points, their depths and where they lie.

mod common;

use common::{shape, Rng};
use sprung_collision::contact::Manifold;
use sprung_collision::dispatch::manifold;
use sprung_collision::epa;
use sprung_collision::parry3d::math::{Isometry, Point, Real, Vector};
use sprung_collision::shape::Shape;
use std::f32::consts::{FRAC_PI_2, FRAC_PI_4};

const MARGIN: Real = 0.02;

fn cube(h: Real) -> Shape {
    Shape::cuboid(Vector::new(h, h, h)).unwrap()
}

fn run(a: &Shape, pa: Isometry<Real>, b: &Shape, pb: Isometry<Real>) -> Manifold {
    let mut m = Manifold::default();
    manifold(a, &pa, b, &pb, MARGIN, &mut m);
    m
}

#[test]
fn box_flat_on_box_gives_four_points_at_the_set_depth() {
    let ground = Shape::cuboid(Vector::new(5.0, 0.5, 5.0)).unwrap();
    for depth in [0.0, 0.005, 0.05, -0.01] {
        // A unit cube on a thick slab whose top is y = 0, overlapping by `depth` (negative: apart).
        let top = Isometry::translation(0.3, 0.5 - depth, -0.2);
        let m = run(
            &ground,
            Isometry::translation(0.0, -0.5, 0.0),
            &cube(0.5),
            top,
        );
        assert_eq!(m.points.len(), 4, "depth {depth}: {m:?}");
        assert!((m.normal - Vector::y()).norm() < 1e-5, "{:?}", m.normal);
        for p in &m.points {
            assert!(
                (p.separation + depth).abs() < 1e-5,
                "separation {} for depth {depth}",
                p.separation
            );
            assert!(
                (p.point_b.x - 0.3).abs() - 0.5 < 1e-5
                    && ((p.point_b.x - 0.3).abs() - 0.5).abs() < 1e-5
            );
            assert!(((p.point_b.z + 0.2).abs() - 0.5).abs() < 1e-5);
        }
        let mut ids: Vec<_> = m.points.iter().map(|p| p.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 4, "feature ids must be distinct");
    }
    // Equal boxes stacked exactly: corners on corners.
    let m = run(
        &cube(0.5),
        Isometry::identity(),
        &cube(0.5),
        Isometry::translation(0.0, 0.99, 0.0),
    );
    assert_eq!(m.points.len(), 4, "{m:?}");
}

#[test]
fn rotated_box_on_box_keeps_four_points_and_the_largest_area() {
    // A cube turned 45 degrees about Y on a cube: the overlap is an octagon, reduced to 4.
    let m = run(
        &cube(0.5),
        Isometry::identity(),
        &cube(0.5),
        Isometry::new(Vector::new(0.0, 0.99, 0.0), Vector::y() * FRAC_PI_4),
    );
    assert_eq!(m.points.len(), 4, "{m:?}");
    for p in &m.points {
        assert!((p.separation + 0.01).abs() < 1e-5);
    }
    // The overlap is a regular octagon of area 0.828 whose best four vertices (every other one)
    // span 2 - sqrt(2) = 0.586; four neighbouring vertices would span only 0.41.
    let mut pts: Vec<(Real, Real)> = m
        .points
        .iter()
        .map(|p| (p.point_a.x, p.point_a.z))
        .collect();
    let c = pts
        .iter()
        .fold((0.0, 0.0), |s, p| (s.0 + p.0 / 4.0, s.1 + p.1 / 4.0));
    pts.sort_by(|p, q| {
        (p.1 - c.1)
            .atan2(p.0 - c.0)
            .partial_cmp(&(q.1 - c.1).atan2(q.0 - c.0))
            .unwrap()
    });
    let area: Real = (0..4)
        .map(|i| pts[i].0 * pts[(i + 1) % 4].1 - pts[(i + 1) % 4].0 * pts[i].1)
        .sum::<Real>()
        / 2.0;
    assert!(area > 0.585, "area {area}");
}

#[test]
fn box_on_its_edge_gives_two_points() {
    // A cube rotated 45 degrees about Z stands on its edge, dipping 0.01 into the ground.
    let half_diag = 0.5 * 2.0f32.sqrt();
    let ground = Shape::cuboid(Vector::new(5.0, 0.5, 5.0)).unwrap();
    let m = run(
        &ground,
        Isometry::translation(0.0, -0.5, 0.0),
        &cube(0.5),
        Isometry::new(
            Vector::new(0.0, half_diag - 0.01, 0.0),
            Vector::z() * FRAC_PI_4,
        ),
    );
    assert_eq!(m.points.len(), 2, "{m:?}");
    for p in &m.points {
        assert!((p.separation + 0.01).abs() < 1e-4, "{p:?}");
        assert!(
            p.point_b.x.abs() < 1e-4 && (p.point_b.z.abs() - 0.5).abs() < 1e-4,
            "{p:?}"
        );
    }
}

#[test]
fn sphere_on_box_gives_one_point() {
    let m = run(
        &cube(0.5),
        Isometry::identity(),
        &Shape::sphere(0.25).unwrap(),
        Isometry::translation(0.1, 0.74, 0.2),
    );
    assert_eq!(m.points.len(), 1);
    let p = m.points[0];
    assert!((p.separation + 0.01).abs() < 1e-5);
    assert!((p.point_a - Point::new(0.1, 0.5, 0.2)).norm() < 1e-5);
    assert!((p.point_b - Point::new(0.1, 0.49, 0.2)).norm() < 1e-5);
}

#[test]
fn capsule_lying_on_box_gives_two_points() {
    // A capsule along X (rotated from Y), resting 0.01 deep on a box.
    let capsule = Shape::capsule(0.4, 0.1).unwrap();
    let m = run(
        &Shape::cuboid(Vector::new(2.0, 0.5, 2.0)).unwrap(),
        Isometry::identity(),
        &capsule,
        Isometry::new(Vector::new(0.0, 0.59, 0.0), Vector::z() * FRAC_PI_2),
    );
    assert_eq!(m.points.len(), 2, "{m:?}");
    for p in &m.points {
        assert!((p.separation + 0.01).abs() < 1e-5, "{p:?}");
        assert!((p.point_a.x.abs() - 0.4).abs() < 1e-5, "{p:?}");
    }
    // Standing upright, it touches with one point.
    let m = run(
        &cube(0.5),
        Isometry::identity(),
        &capsule,
        Isometry::translation(0.0, 0.99, 0.0),
    );
    assert_eq!(m.points.len(), 1);
}

#[test]
fn hull_on_hull() {
    // A square-based pyramid hull standing on its base on a cube-shaped hull: 4 points;
    // turned upside down, it stands on its apex: 1 point.
    let p = |x, y, z| Point::new(x, y, z);
    let pyramid = Shape::convex_hull(&[
        p(-0.5, 0.0, -0.5),
        p(0.5, 0.0, -0.5),
        p(0.5, 0.0, 0.5),
        p(-0.5, 0.0, 0.5),
        p(0.0, 1.0, 0.0),
    ])
    .unwrap();
    let block: Vec<Point<Real>> = (0..8)
        .map(|i| {
            p(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -0.5 } else { 0.5 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            )
        })
        .collect();
    let block = Shape::convex_hull(&block).unwrap();
    let m = run(
        &block,
        Isometry::identity(),
        &pyramid,
        Isometry::translation(0.1, 0.49, 0.0),
    );
    assert_eq!(m.points.len(), 4, "{m:?}");
    assert!(m.points.iter().all(|q| (q.separation + 0.01).abs() < 1e-5));
    let m = run(
        &block,
        Isometry::identity(),
        &pyramid,
        Isometry::new(
            Vector::new(0.0, 1.49, 0.0),
            Vector::x() * std::f32::consts::PI,
        ),
    );
    assert_eq!(m.points.len(), 1, "{m:?}");
    assert!((m.points[0].separation + 0.01).abs() < 1e-4);
}

#[test]
fn speculative_points_and_far_pairs() {
    // 1 cm apart: within the margin, four points with positive separation.
    let m = run(
        &cube(0.5),
        Isometry::identity(),
        &cube(0.5),
        Isometry::translation(0.0, 1.01, 0.0),
    );
    assert_eq!(m.points.len(), 4);
    assert!(m.points.iter().all(|p| (p.separation - 0.01).abs() < 1e-5));
    // Beyond the margin: nothing.
    let m = run(
        &cube(0.5),
        Isometry::identity(),
        &cube(0.5),
        Isometry::translation(0.0, 1.05, 0.0),
    );
    assert!(m.points.is_empty());
}

/// On random overlapping pairs, the manifold's deepest point is as deep as EPA says, no point
/// is deeper, every point is finite, and there are at most four.
#[test]
fn manifolds_agree_with_epa_on_random_pairs() {
    let mut rng = Rng(7);
    let mut checked = 0;
    for i in 0..20_000 {
        let (ka, kb) = (i % 4, (i / 4) % 4);
        let a = shape(&mut rng, ka);
        let b = shape(&mut rng, kb);
        let (pa, pb) = (rng.pose(1.0), rng.pose(1.0));
        let mut m = Manifold::default();
        manifold(&a, &pa, &b, &pb, MARGIN, &mut m);
        let c = epa::contact(&a, &pa, &b, &pb, MARGIN);
        assert_eq!(c.is_some(), !m.points.is_empty());
        let Some(c) = c else { continue };
        checked += 1;
        assert!(m.points.len() <= 4);
        let deepest = m
            .points
            .iter()
            .map(|p| p.separation)
            .fold(Real::INFINITY, Real::min);
        let size = a.scale().max(b.scale());
        assert!(
            deepest >= c.separation - 1e-3 * size,
            "a point deeper than EPA: {deepest} < {} ({ka} {kb}) {a:?} {pa:?} {b:?} {pb:?} {m:?}",
            c.separation
        );
        assert!(
            deepest <= c.separation + 2e-2 * size,
            "deepest point {deepest} vs EPA {} ({ka}, {kb})",
            c.separation
        );
        for p in &m.points {
            assert!(
                p.separation.is_finite()
                    && p.point_a
                        .coords
                        .iter()
                        .chain(p.point_b.coords.iter())
                        .all(|x| x.is_finite())
            );
            assert!(p.separation <= MARGIN + 1e-6);
        }
    }
    assert!(checked > 3000, "{checked}");
}

/// The box-box closed form (SAT) agrees with the general GJK + EPA path on random overlapping
/// boxes: same depth, and the same normal unless two axes tie for least overlap.
#[test]
fn box_box_sat_agrees_with_gjk_epa() {
    use sprung_collision::parry3d::shape::Cuboid;
    use sprung_collision::sat::cuboid_cuboid;
    let mut rng = Rng(11);
    let (mut overlapping, mut ties) = (0, 0);
    for _ in 0..20_000 {
        let mut half = || {
            Vector::new(
                rng.range(0.1, 0.8),
                rng.range(0.1, 0.8),
                rng.range(0.1, 0.8),
            )
        };
        let (ha, hb) = (half(), half());
        let (pa, pb) = (rng.pose(1.0), rng.pose(1.0));
        let (ca, cb) = (Cuboid::new(ha), Cuboid::new(hb));
        let (sa, sb) = (Shape::cuboid(ha).unwrap(), Shape::cuboid(hb).unwrap());
        let general = epa::contact(&sa, &pa, &sb, &pb, 0.0);
        let sat = cuboid_cuboid(&ca, &pa, &cb, &pb, 0.0);
        let size = ha.norm().max(hb.norm());
        match (general, sat) {
            (Some(g), Some(s)) if g.separation < -1e-4 * size => {
                overlapping += 1;
                // SAT prefers a face to an edge within 1e-4 of the boxes' size: allow for it.
                assert!(
                    (g.separation - s.separation).abs() < 3e-4 * size,
                    "depth {g:?} vs sat {s:?}"
                );
                // Both points lie on their surfaces, and the SAT normal's overlap is its depth.
                assert!(
                    ((s.point_b - s.point_a).dot(&s.normal) - s.separation).abs() < 1e-4 * size
                );
                if g.normal.dot(&s.normal) < 1.0_f32.to_radians().cos() {
                    // A tie: EPA's normal overlaps by as much as SAT's (parry3d's supports).
                    let overlap = |n: &Vector<Real>| {
                        let sa = sa
                            .as_parry()
                            .as_support_map()
                            .unwrap()
                            .support_point(&pa, n);
                        let sb = sb
                            .as_parry()
                            .as_support_map()
                            .unwrap()
                            .support_point(&pb, &-n);
                        n.dot(&(sa - sb))
                    };
                    assert!(
                        (overlap(&g.normal) + s.separation).abs() < 3e-4 * size,
                        "not a tie: {g:?} {s:?}"
                    );
                    assert!((overlap(&s.normal) + s.separation).abs() < 1e-4 * size);
                    ties += 1;
                }
            }
            (None, Some(s)) => assert!(s.separation <= 0.0 && s.separation > -1e-4 * size),
            (Some(g), None) => assert!(g.separation > -1e-4 * size, "SAT found no overlap: {g:?}"),
            _ => {}
        }
    }
    assert!(overlapping > 3000);
    assert!(
        ties * 100 <= overlapping,
        "{ties} ties out of {overlapping}"
    );
}

/// Sphere-sphere in closed form agrees with the GJK/EPA path on 10,000 random pairs (apart
/// within the margin, touching and overlapping): same separation, normal and witness points,
/// and the same answer to "within the margin or not" away from the margin itself; and the
/// manifold of two spheres is its one point.
#[test]
fn sphere_sphere_closed_form_agrees_with_gjk_epa() {
    use sprung_collision::closed_form::sphere_sphere;
    let mut rng = Rng(23);
    let (mut overlapping, mut apart) = (0, 0);
    for _ in 0..10_000 {
        let (ra, rb) = (rng.range(0.05, 1.0), rng.range(0.05, 1.0));
        let (pa, pb) = (rng.pose(1.0), rng.pose(1.0));
        let (sa, sb) = (Shape::sphere(ra).unwrap(), Shape::sphere(rb).unwrap());
        let general = epa::contact(&sa, &pa, &sb, &pb, MARGIN);
        let closed = sphere_sphere(ra, &pa, rb, &pb, MARGIN);
        let size = ra + rb;
        let gap = (pb.translation.vector - pa.translation.vector).norm() - size;
        match (general, closed) {
            (Some(g), Some(c)) => {
                if c.separation < 0.0 {
                    overlapping += 1;
                } else {
                    apart += 1;
                }
                assert!(
                    (g.separation - c.separation).abs() < 1e-5 * size,
                    "{g:?} {c:?}"
                );
                assert!((g.normal - c.normal).norm() < 1e-4, "{g:?} {c:?}");
                assert!((g.point_a - c.point_a).norm() < 1e-4 * size, "{g:?} {c:?}");
                assert!((g.point_b - c.point_b).norm() < 1e-4 * size, "{g:?} {c:?}");
                let m = run(&sa, pa, &sb, pb);
                assert_eq!(m.points.len(), 1);
                assert!((m.points[0].separation - c.separation).abs() < 1e-5 * size);
            }
            (None, None) => assert!(gap > MARGIN - 1e-5),
            _ => assert!(
                (gap - MARGIN).abs() < 1e-4,
                "disagree away from the margin: {gap}"
            ),
        }
    }
    assert!(overlapping > 1_000 && apart > 50, "{overlapping} {apart}");
}

/// The closed forms of a sphere and a box, of a sphere and a capsule, of two capsules and of a
/// capsule and a box (each order; a capsule whose core enters the box is left to EPA) agree with the GJK/EPA path on 10,000 random pairs each, and hold up against
/// parry3d's geometry: the same separation as GJK/EPA and the same answer to "within the
/// margin" away from the margin itself; both points on their shapes' surfaces (parry3d's
/// projections) and as far apart along the normal as the separation (for shapes apart, that
/// far apart at all: the distance can be no more); and a best normal: the shapes' support
/// points along it (parry3d's support maps) are exactly the separation apart, so no direction
/// pulls them apart further or pushes them out with less (a centre equally deep below two
/// faces may take either).
///
/// parry3d's distance and contact queries are not the oracle for capsules: on one of these
/// pairs both say 0.0210 m where a brute-force scan of the two segments, GJK/EPA and the closed
/// form all say 0.0189 m.
#[test]
fn sphere_box_and_capsule_closed_forms_agree_with_gjk_epa_and_parry3d() {
    use common::signed_distance;
    use sprung_collision::closed_form;
    // (A's kind, B's kind) as in `common::shape`: 0 sphere, 1 cuboid, 2 capsule.
    let pairs = [(0, 1), (1, 0), (0, 2), (2, 0), (2, 2), (2, 1), (1, 2)];
    for (seed, (ka, kb)) in pairs.into_iter().enumerate() {
        let mut rng = Rng(31 + seed as u64);
        let (mut overlapping, mut apart, mut deep) = (0, 0, 0);
        for _ in 0..10_000 {
            let (sa, sb) = (shape(&mut rng, ka), shape(&mut rng, kb));
            let (pa, pb) = (rng.pose(1.0), rng.pose(1.0));
            let general = epa::contact(&sa, &pa, &sb, &pb, MARGIN);
            let Some(closed) = closed_form::contact(&sa, &pa, &sb, &pb, MARGIN) else {
                // A capsule's core inside a box is left to EPA: as deep as the radius at least.
                let radius = sa.radius() + sb.radius();
                let g = general.expect("a core inside a box touches it");
                assert!(ka + kb == 3 && g.separation < -radius + 1e-4, "{g:?}");
                deep += 1;
                continue;
            };
            let what = format!("kinds {ka} {kb}: {sa:?} at {pa:?}, {sb:?} at {pb:?}");
            let (Some(c), Some(g)) = (closed, general) else {
                // Both must say "apart", but for pairs at the margin itself.
                let found = closed.or(general).map_or(MARGIN, |c| c.separation);
                assert!(
                    (found - MARGIN).abs() < 1e-4,
                    "disagree away from the margin: {closed:?} {general:?} {what}"
                );
                continue;
            };
            if c.separation < 0.0 {
                overlapping += 1;
            } else {
                apart += 1;
                let length = (c.point_b - c.point_a).norm();
                assert!((length - c.separation).abs() < 2e-4, "{c:?} {what}");
            }
            assert!(
                (c.separation - g.separation).abs() < 2e-4,
                "{c:?} {g:?} {what}"
            );
            assert!((c.normal.norm() - 1.0).abs() < 1e-5, "{c:?}");
            for (point, s, pose) in [(c.point_a, &sa, &pa), (c.point_b, &sb, &pb)] {
                let off = signed_distance(s, pose, &point);
                assert!(
                    off.abs() < 2e-4,
                    "point {point:?} off its surface by {off}: {c:?} {what}"
                );
            }
            let along = (c.point_b - c.point_a).dot(&c.normal);
            assert!((along - c.separation).abs() < 2e-4, "{c:?} {what}");
            let support = |s: &Shape, pose: &Isometry<Real>, n: &Vector<Real>| {
                s.as_parry()
                    .as_support_map()
                    .unwrap()
                    .support_point(pose, n)
            };
            let n = c.normal;
            let gap = n.dot(&(support(&sb, &pb, &-n) - support(&sa, &pa, &n)));
            assert!(
                (gap - c.separation).abs() < 2e-4,
                "not a best normal: {gap} {c:?} {what}"
            );
        }
        assert!(
            overlapping > 1_000 && apart > 50 && deep < 2_000,
            "kinds {ka} {kb}: {overlapping} overlapping, {apart} apart, {deep} deep"
        );
    }
}

use super::*;
use crate::manifold::clip_candidates;
use crate::shape::Shape;
use crate::testing::uniform;
use parry3d::math::Rotation;

/// The box-box distance by the separating-axis test against GJK's (`gjk::distance`,
/// itself held to parry3d by the oracle tests) on 10,000 separated box pairs at random
/// poses and gaps: where the test proves a pair, the same distance (within 1e-5 m) and
/// normal (1e-3 rad), and points on the boxes that distance apart along it. Each of the
/// three proofs (A's face, B's face, crossing edges) must take part, and together most
/// pairs: a test that declined every pair would pass the rest vacuously.
#[test]
fn box_box_distance_agrees_with_gjk() {
    let mut next = uniform(0xd15_7a4c);
    let (mut faces_a, mut faces_b, mut edges, mut declined, mut overlapping) = (0, 0, 0, 0, 0);
    let pairs = 10_000;
    for case in 0..pairs {
        let mut half = || Vector::new(next() + 0.6, next() + 0.6, next() + 0.6);
        let (ha, hb) = (half(), half());
        let pose_a = Isometry::new(
            Vector::new(next(), next(), next()) * 4.0,
            Vector::new(next(), next(), next()) * 6.0,
        );
        let dir = Vector::new(next(), next(), next()).normalize();
        let pose_b = Isometry::from_parts(
            (pose_a.translation.vector + dir * (ha.norm() + hb.norm()) * (1.0 + next())).into(),
            Rotation::from_scaled_axis(Vector::new(next(), next(), next()) * 6.0),
        );
        let (a, b) = (Cuboid::new(ha), Cuboid::new(hb));
        let (sa, sb) = (Shape::Cuboid(a), Shape::Cuboid(b));
        let reference = crate::gjk::distance(&sa, &pose_a, &sb, &pose_b);
        let found = cuboid_cuboid_distance(&a, &pose_a, &b, &pose_b);
        if reference.separation == 0.0 {
            // Touching or overlapping: no gap to prove.
            assert!(found.is_none(), "case {case}: {found:?}");
            overlapping += 1;
            continue;
        }
        let Some(ours) = found else {
            declined += 1;
            continue;
        };
        assert!(
            (ours.separation - reference.separation).abs() < 1e-5,
            "case {case}: {ours:?} against {reference:?}"
        );
        assert!(
            (ours.normal - reference.normal).norm() < 1e-3,
            "case {case}: {ours:?} against {reference:?}"
        );
        let along = ours.point_b - ours.point_a - ours.normal * ours.separation;
        assert!(along.norm() < 1e-5, "case {case}: {ours:?}");
        let inside = |p: &Point<Real>, pose: &Isometry<Real>, h: &Vector<Real>| {
            let local = pose.inverse_transform_point(p);
            (0..3).all(|k| local[k].abs() <= h[k] + 1e-5)
        };
        assert!(inside(&ours.point_a, &pose_a, &ha), "case {case}: {ours:?}");
        assert!(inside(&ours.point_b, &pose_b, &hb), "case {case}: {ours:?}");
        // Which proof it was: a face's normal is one of that box's axes.
        let on_axis = |pose: &Isometry<Real>| {
            let local = pose.rotation.inverse() * ours.normal;
            local.amax() > 1.0 - 1e-6
        };
        if on_axis(&pose_a) {
            faces_a += 1;
        } else if on_axis(&pose_b) {
            faces_b += 1;
        } else {
            edges += 1;
        }
    }
    println!("A's face {faces_a}, B's face {faces_b}, edges or corners {edges}, declined {declined}, overlapping {overlapping}");
    let separated = pairs - overlapping;
    assert!(
        separated > pairs / 4,
        "{overlapping} of {pairs} overlapping"
    );
    assert!(faces_a > separated / 10 && faces_b > separated / 10 && edges > separated / 10);
    assert!(
        declined < separated / 10,
        "declined {declined} of {separated}"
    );
}

/// The boxes' overlap test, and GJK's (`gjk::intersects`), against parry3d's signed
/// distance (its GJK on the cuboids' support maps, its contact's depth when they overlap) on 10,000 box pairs at random poses from deep
/// overlap to well apart, a third of them moved to within a millimetre of touching: the
/// same answer wherever parry3d's distance is more than 1e-5 m from zero. (GJK's own once
/// said "touching" for 63 of these pairs, 0.02-0.4 mm apart edge to edge: the f32 rounding
/// of its nearest point's direction defeated its proof of separation.)
#[test]
fn box_box_overlap_agrees_with_parry() {
    let mut next = uniform(0x0b0c_5a75);
    let (mut overlapping, mut apart, mut near) = (0, 0, 0);
    for case in 0..10_000 {
        let mut half = || Vector::new(next() + 0.6, next() + 0.6, next() + 0.6);
        let (ha, hb) = (half(), half());
        let pose_a = Isometry::new(
            Vector::new(next(), next(), next()) * 4.0,
            Vector::new(next(), next(), next()) * 6.0,
        );
        let dir = Vector::new(next(), next(), next()).normalize();
        let mut pose_b = Isometry::from_parts(
            (pose_a.translation.vector + dir * (ha.norm() + hb.norm()) * (0.7 + next())).into(),
            Rotation::from_scaled_axis(Vector::new(next(), next(), next()) * 6.0),
        );
        let (a, b) = (Cuboid::new(ha), Cuboid::new(hb));
        let (sa, sb) = (Shape::Cuboid(a), Shape::Cuboid(b));
        if case % 3 == 0 {
            // Moved along the closest points' line to within a millimetre of touching.
            let d = crate::gjk::distance(&sa, &pose_a, &sb, &pose_b);
            if d.separation > 0.0 {
                let shift = d.normal * (d.separation - 1e-3 * next());
                pose_b.translation.vector -= shift;
            }
        }
        // parry3d's signed distance: its GJK's gap, or its contact's depth when none.
        let gap = parry3d::query::details::distance_support_map_support_map(
            &pose_a.inv_mul(&pose_b),
            &a,
            &b,
        );
        let theirs = if gap > 0.0 {
            gap
        } else {
            parry3d::query::contact(&pose_a, &a, &pose_b, &b, 0.0)
                .unwrap()
                .map_or(0.0, |c| c.dist)
        };
        if theirs.abs() <= 1e-5 {
            continue; // within rounding of touching
        }
        let touching = theirs <= 0.0;
        let ours = cuboid_cuboid_overlap(&a, &pose_a, &b, &pose_b);
        assert_eq!(
            ours,
            Some(touching),
            "case {case}: parry3d distance {theirs}"
        );
        let by_gjk = crate::gjk::intersects(&sa, &pose_a, &sb, &pose_b);
        assert_eq!(by_gjk, touching, "case {case}: parry3d distance {theirs}");
        if touching {
            overlapping += 1;
        } else {
            apart += 1;
            near += usize::from(theirs < 1e-3);
        }
    }
    println!("overlapping {overlapping}, apart {apart} ({near} within 1 mm)");
    assert!(overlapping > 2_000 && apart > 2_000 && near > 500);
    // A pose that is not finite is left to GJK.
    let cube = Cuboid::new(Vector::new(0.5, 0.5, 0.5));
    let nowhere = Isometry::translation(Real::NAN, 0.0, 0.0);
    assert_eq!(
        cuboid_cuboid_overlap(&cube, &Isometry::identity(), &cube, &nowhere),
        None
    );
}

/// The two box queries at every scale a world may hold: 20,000 pairs of boxes from a
/// millimetre to a hundred metres, their sizes and the gap between them drawn
/// log-uniformly, up to a kilometre from the origin. The distance, where proved, is GJK's
/// within 1e-4 of the larger box's size (f32 at these coordinates), its points finite; the
/// overlap verdict is GJK's wherever GJK's distance is beyond that.
#[test]
fn box_box_queries_hold_at_every_scale() {
    let mut next = uniform(0x005c_a1e5);
    let mut log = |lo: Real, hi: Real| (lo.ln() + (next() + 0.5) * (hi / lo).ln()).exp();
    let (mut proved, mut compared) = (0, 0);
    for case in 0..20_000 {
        let size = log(1e-3, 1e2);
        let ratio = log(0.1, 10.0);
        let mut half =
            |s: Real| Vector::new(s * log(0.3, 1.0), s * log(0.3, 1.0), s * log(0.3, 1.0));
        let (ha, hb) = (half(size), half(size * ratio));
        let scale = ha.norm().max(hb.norm());
        let at = Vector::new(log(1e-2, 1e3), -log(1e-2, 1e3), log(1e-2, 1e3));
        let pose_a = Isometry::new(
            at,
            Vector::new(log(0.1, 6.0), -log(0.1, 6.0), log(0.1, 6.0)),
        );
        let dir = Vector::new(log(0.1, 1.0), -log(0.1, 1.0), log(0.1, 1.0)).normalize();
        let reach = (ha.norm() + hb.norm()) * log(0.3, 1.5) + scale * log(1e-4, 1.0);
        let pose_b = Isometry::new(
            at + dir * reach,
            Vector::new(-log(0.1, 6.0), log(0.1, 6.0), log(0.1, 6.0)),
        );
        let (a, b) = (Cuboid::new(ha), Cuboid::new(hb));
        let (sa, sb) = (Shape::Cuboid(a), Shape::Cuboid(b));
        let reference = crate::gjk::distance(&sa, &pose_a, &sb, &pose_b);
        let tol = 1e-4 * scale;
        if let Some(ours) = cuboid_cuboid_distance(&a, &pose_a, &b, &pose_b) {
            proved += 1;
            assert!(
                ours.point_a
                    .coords
                    .iter()
                    .chain(ours.point_b.coords.iter())
                    .all(|x| x.is_finite()),
                "case {case}: {ours:?}"
            );
            assert!(
                (ours.separation - reference.separation).abs() <= tol,
                "case {case}: {ours:?} against {reference:?}"
            );
        }
        if reference.separation > tol || reference.separation == 0.0 {
            let touching = crate::gjk::intersects(&sa, &pose_a, &sb, &pose_b);
            if reference.separation > tol || touching {
                compared += 1;
                let ours = cuboid_cuboid_overlap(&a, &pose_a, &b, &pose_b);
                // GJK's "touching" may be within its own tolerance of apart: the SAT
                // must then find no gap beyond that tolerance.
                if ours == Some(false) && touching {
                    let widest = BoxPair::new(&a, &pose_a, &b, &pose_b)
                        .gaps()
                        .fold(Real::NEG_INFINITY, Real::max);
                    assert!(widest <= tol, "case {case}: SAT gap {widest}, GJK touching");
                } else {
                    assert_eq!(ours, Some(touching), "case {case}: GJK {reference:?}");
                }
            }
        }
    }
    println!("proved {proved}, compared {compared}");
    assert!(
        proved > 5_000 && compared > 15_000,
        "proved {proved}, compared {compared}"
    );
}

/// The face clip against the general one (`manifold::clip`, which projects both faces on
/// the contact plane) on 20,000 box pairs, half of them resting face on face (small turns
/// and offsets: four to eight candidates, the case a stack makes) and half at random
/// overlapping poses: on a face axis, the same normal and as many candidates, each within 0.1 mm of one of the other's (clipped
/// corners at shallow crossings, metres from the origin, round differently) with the same
/// separation; on an edge axis, one point that none of the general clip's is deeper than.
#[test]
fn box_box_manifold_agrees_with_the_general_clip() {
    let mut next = uniform(0x5eed_b0c5);
    let (mut faces, mut faces_of_b, mut edges, mut compared, mut wound) = (0, 0, 0, 0, 0);
    for case in 0..20_000 {
        let mut half = || Vector::new(next() + 0.6, next() + 0.6, next() + 0.6);
        let (ha, hb) = (half(), half());
        let pose_a = Isometry::new(
            Vector::new(next(), next(), next()) * 4.0,
            Vector::new(next(), next(), next()) * 6.0,
        );
        let pose_b = if case % 2 == 0 {
            // Resting on A's top face, turned a little, overlapping up to 1 cm.
            let offset = Vector::new(
                next() * 0.4,
                ha.y + hb.y - 0.01 * (next() + 0.5),
                next() * 0.4,
            );
            let turn = Vector::new(next() * 0.02, next() * 2.0, next() * 0.02);
            pose_a * Isometry::new(offset, turn)
        } else {
            let dir = Vector::new(next(), next(), next()).normalize();
            Isometry::from_parts(
                (pose_a.translation.vector + dir * (ha.norm() + hb.norm()) * (0.2 + next().abs()))
                    .into(),
                Rotation::from_scaled_axis(Vector::new(next(), next(), next()) * 6.0),
            )
        };
        let (a, b) = (Cuboid::new(ha), Cuboid::new(hb));
        let margin = 0.02;
        let Ok(found) = separating_axis(&a, &pose_a, &b, &pose_b, margin) else {
            continue;
        };
        let mut fast = Manifold::default();
        assert!(
            cuboid_cuboid_manifold_or_gap(&a, &pose_a, &b, &pose_b, margin, None, &mut fast)
                .is_none()
        );
        let (sa, sb) = (Shape::Cuboid(a), Shape::Cuboid(b));
        let mut general = Candidates::new();
        let general_normal = clip_candidates(
            &sa,
            &pose_a,
            &sb,
            &pose_b,
            &found.contact,
            margin,
            &mut general,
        );
        let mut candidates = Candidates::new();
        let normal = box_candidates(
            &found,
            (&a, &pose_a),
            (&b, &pose_b),
            margin,
            &mut candidates,
        );
        if let Axis::Edges(..) = found.axis {
            // One point, the test's witness pair; nothing the general clip finds is
            // deeper.
            edges += 1;
            let deepest = general
                .iter()
                .map(|p| p.separation)
                .fold(Real::MAX, Real::min);
            assert!(deepest >= found.contact.separation - 1e-4, "case {case}");
            assert_eq!(fast.points.len(), 1);
            let p = fast.points[0];
            assert_eq!(
                (p.point_a, p.point_b, p.separation),
                (
                    found.contact.point_a,
                    found.contact.point_b,
                    found.contact.separation
                )
            );
            continue;
        }
        faces += 1;
        faces_of_b += usize::from(found.axis == Axis::FaceB && !nearly_a_face(&found.normal));
        assert!(
            (normal - general_normal).norm() < 1e-5 && fast.normal == normal,
            "case {case}: {normal:?} vs {general_normal:?}"
        );
        assert_eq!(
            candidates.len(),
            general.len(),
            "case {case}: {candidates:?} vs {general:?}"
        );
        for p in &candidates {
            let close = general.iter().any(|q| {
                (p.point_a - q.point_a).norm() < 1e-4
                    && (p.point_b - q.point_b).norm() < 1e-4
                    && (p.separation - q.separation).abs() < 1e-4
            });
            assert!(close, "case {case}: {p:?} not in {general:?}");
        }
        // Ids tell the points apart (warm starting matches them), and the manifold keeps
        // four of the candidates.
        for (i, p) in candidates.iter().enumerate() {
            assert!(candidates[..i].iter().all(|q| q.id != p.id));
        }
        assert_eq!(fast.points.len(), candidates.len().min(4));
        assert!(fast.points.iter().all(|p| candidates.contains(p)));
        // The same winding (the order the solver takes the points in): the candidates'
        // signed area on the contact plane has the general clip's sign.
        let (t1, t2) = crate::manifold::plane_axes(&normal);
        let area = |points: &[ManifoldPoint]| {
            let at = |p: &ManifoldPoint| (p.point_a.coords.dot(&t1), p.point_a.coords.dot(&t2));
            (0..points.len()).fold(0.0, |sum, i| {
                let (p, q) = (at(&points[i]), at(&points[(i + 1) % points.len()]));
                sum + p.0 * q.1 - q.0 * p.1
            })
        };
        let (mine, theirs) = (area(&candidates), area(&general));
        if candidates.len() >= 3 && theirs.abs() > 1e-4 {
            assert!(
                mine * theirs > 0.0,
                "case {case}: winding {mine} vs {theirs}"
            );
            wound += 1;
        }
        compared += candidates.len();
    }
    assert!(
        faces > 10_000
            && faces_of_b > 2_000
            && edges > 1_000
            && compared > 40_000
            && wound > 5_000,
        "{faces} face pairs ({faces_of_b} of B), {edges} edge pairs, {compared} points, {wound} wound"
    );
}

//! parry3d is the oracle for our GJK and EPA: 10,000 random pairs for every ordered combination
//! of the four shapes, at random poses.
//!
//! parry3d's GJK stops once its bounds are within a relative 1.1e-3 (`sqrt(10 * f32::EPSILON)`,
//! see `parry3d::query::gjk::eps_tol`), so on pairs without a closed form (anything with a hull,
//! a capsule against a box) its distance and depth are only that precise, while ours, running on
//! polytope cores, are exact. Where the two differ by more than the tolerance, the test therefore
//! asks parry3d two more questions that it answers exactly: its support maps along our normal
//! (the width of the gap or overlap along that axis) and its point projection of our witness
//! points (they lie on the shapes). For a distance these bound the true answer from both sides,
//! a proof to the tolerance; for a depth, the overlap along our normal is an upper bound and
//! parry's depth, within its own band, the reference. A pair neither agreed nor certified fails.

mod common;

use common::{shape, signed_distance, Rng, KINDS};
use sprung_collision::parry3d;
use sprung_collision::parry3d::math::{Isometry, Point, Real, Vector};
use sprung_collision::shape::Shape;
use sprung_collision::{contact, dispatch, epa};

const PAIRS: usize = 10_000;
/// parry3d's GJK relative tolerance, plus rounding.
const PARRY_REL: Real = 1.2e-3;

/// Depth of overlap of the two shapes along unit `n` (from A to B), by parry3d's support maps:
/// negative when there is a gap of that width.
fn overlap_along(
    a: &Shape,
    pa: &Isometry<Real>,
    b: &Shape,
    pb: &Isometry<Real>,
    n: &Vector<Real>,
) -> Real {
    let sa = a.as_parry().as_support_map().unwrap().support_point(pa, n);
    let sb = b
        .as_parry()
        .as_support_map()
        .unwrap()
        .support_point(pb, &-n);
    n.dot(&sa.coords) - n.dot(&sb.coords)
}

/// Distance from `p` to the solid `s` (0 inside or on it), by parry3d's exact primitives
/// (see [`signed_distance`]).
fn off_surface(s: &Shape, pose: &Isometry<Real>, p: &Point<Real>) -> Real {
    signed_distance(s, pose, p).max(0.0)
}

/// Distance from `p` to the core of `s` (centre, segment or the polytope itself).
fn off_core(s: &Shape, pose: &Isometry<Real>, p: &Point<Real>) -> Real {
    use parry3d::query::PointQuery;
    match s {
        Shape::Sphere(_) => (pose.translation.vector - p.coords).norm(),
        Shape::Capsule(c) => c.segment.distance_to_point(pose, p, true),
        _ => off_surface(s, pose, p),
    }
}

/// For a sphere or capsule in the pair, a lower bound on the true depth from our contact:
/// any overlap is at least `ra + rb - |ca - cb|` for points `ca`, `cb` of the two cores, because
/// no direction separates the cores by more than their distance. parry3d checks the core points.
fn round_lower_bound(
    a: &Shape,
    pa: &Isometry<Real>,
    b: &Shape,
    pb: &Isometry<Real>,
    c: &contact::Contact,
) -> Option<Real> {
    let (ra, rb) = (a.radius(), b.radius());
    if ra + rb == 0.0 {
        return None;
    }
    let ca = c.point_a - c.normal * ra;
    let cb = c.point_b + c.normal * rb;
    let tol = 1.0e-5 * a.scale().max(b.scale());
    (off_core(a, pa, &ca) <= tol && off_core(b, pb, &cb) <= tol).then(|| ra + rb - (ca - cb).norm())
}

#[derive(Default)]
struct Tally {
    penetrating: usize,
    agreed_distance: usize,
    certified_distance: usize,
    agreed_depth: usize,
    certified_depth: usize,
    normal_ties: usize,
    failures: usize,
    first_failure: Option<String>,
}

impl Tally {
    fn fail(&mut self, what: String) {
        if std::env::var("ORACLE_DEBUG").is_ok() {
            println!("FAIL {}", &what[..what.len().min(300)]);
        }
        self.failures += 1;
        self.first_failure.get_or_insert(what);
    }
}

fn check_pair(t: &mut Tally, a: &Shape, pa: &Isometry<Real>, b: &Shape, pb: &Isometry<Real>) {
    let size = a.scale().max(b.scale());
    let tol = 1.0e-4 * size;

    // Distance.
    let ours = dispatch::distance(a, pa, b, pb);
    let theirs = parry3d::query::distance(pa, a.as_parry(), pb, b.as_parry()).unwrap();
    assert!(ours.separation.is_finite() && ours.point_a.coords.iter().all(|x| x.is_finite()));
    if ours.separation > 0.0 {
        // A unit normal, from A's closest point to B's, which lie the distance apart along it.
        assert!((ours.normal.norm() - 1.0).abs() < 1.0e-5, "{ours:?}");
        let along = ours.point_b - ours.point_a - ours.normal * ours.separation;
        assert!(along.norm() <= tol, "{ours:?}");
    }
    if (ours.separation - theirs).abs() <= tol {
        t.agreed_distance += 1;
    } else {
        // A proof from parry3d's exact primitives: our witness points lie on the shapes (so the
        // distance is at most ours) and the gap along our normal between parry's support points
        // equals ours (so the distance is at least ours).
        let certified = ours.separation > 0.0
            && (ours.separation + overlap_along(a, pa, b, pb, &ours.normal)).abs() <= tol
            && off_surface(a, pa, &ours.point_a) <= tol
            && off_surface(b, pb, &ours.point_b) <= tol
            && ((ours.point_b - ours.point_a).norm() - ours.separation).abs() <= tol;
        if std::env::var("ORACLE_DEBUG").is_ok() && !certified {
            println!(
                "gap {} offa {} offb {} pts {}",
                ours.separation + overlap_along(a, pa, b, pb, &ours.normal),
                off_surface(a, pa, &ours.point_a),
                off_surface(b, pb, &ours.point_b),
                (ours.point_b - ours.point_a).norm() - ours.separation
            );
        }
        if certified {
            t.certified_distance += 1;
        } else {
            t.fail(format!(
                "distance ours {} parry {theirs}: {a:?} at {pa:?}, {b:?} at {pb:?}",
                ours.separation
            ));
        }
    }
    if dispatch::intersects(a, pa, b, pb) != (theirs <= 0.0)
        && theirs.abs() > tol
        && ours.separation > tol
    {
        t.fail(format!(
            "verdict: parry distance {theirs}: {a:?} at {pa:?}, {b:?} at {pb:?}"
        ));
    }

    // Depth and normal.
    let theirs = parry3d::query::contact(pa, a.as_parry(), pb, b.as_parry(), 0.0).unwrap();
    let Some(theirs) = theirs.filter(|c| c.dist < -tol) else {
        return;
    };
    t.penetrating += 1;
    let Some(ours) = epa::contact(a, pa, b, pb, 0.0) else {
        t.fail(format!(
            "no contact, parry depth {}: {a:?} at {pa:?}, {b:?} at {pb:?}",
            -theirs.dist
        ));
        return;
    };
    assert!(ours.separation.is_finite() && ours.normal.iter().all(|x| x.is_finite()));
    let (depth, parry_depth) = (-ours.separation, -theirs.dist);
    // Our depth must be the overlap along our own normal: an upper bound on the true depth.
    let along_ours = overlap_along(a, pa, b, pb, &ours.normal);
    if (along_ours - depth).abs() > 1.0e-3 * size {
        t.fail(format!("depth {depth} but overlap along our normal {along_ours}: {a:?} at {pa:?}, {b:?} at {pb:?}"));
        return;
    }
    if (depth - parry_depth).abs() <= 1.0e-3 * size {
        t.agreed_depth += 1;
        let angle = ours.normal.dot(&theirs.normal1).clamp(-1.0, 1.0).acos();
        if angle > 1.0_f32.to_radians() {
            // Two directions of (nearly) equal least depth: both answers are right.
            let along_theirs = overlap_along(a, pa, b, pb, &theirs.normal1);
            if (along_theirs - depth).abs() <= 1.0e-3 * size {
                t.normal_ties += 1;
            } else {
                t.fail(format!(
                    "normal off by {} deg: {a:?} at {pa:?}, {b:?} at {pb:?}",
                    angle.to_degrees()
                ));
            }
        }
    } else if depth < parry_depth && parry_depth - depth <= PARRY_REL * parry_depth + 1.0e-3 * size
    {
        // Shallower than parry along a direction whose overlap parry's supports confirm.
        t.certified_depth += 1;
    } else if round_lower_bound(a, pa, b, pb, &ours).is_some_and(|lo| depth - lo <= 1.0e-3 * size) {
        // Deeper than parry, but proven: parry's EPA on curved shapes stops short.
        t.certified_depth += 1;
    } else {
        t.fail(format!(
            "depth ours {depth} parry {parry_depth}: {a:?} at {pa:?}, {b:?} at {pb:?}"
        ));
    }
}

#[test]
fn gjk_distance_and_epa_depth_agree_with_parry() {
    let mut report = Vec::new();
    let mut failed = false;
    for (ka, name_a) in KINDS.iter().enumerate() {
        for (kb, name_b) in KINDS.iter().enumerate() {
            let mut rng = Rng(42 + (ka * 4 + kb) as u64);
            let mut t = Tally::default();
            for _ in 0..PAIRS {
                let a = shape(&mut rng, ka);
                let b = shape(&mut rng, kb);
                let pa = rng.pose(1.2);
                let pb = rng.pose(1.2);
                check_pair(&mut t, &a, &pa, &b, &pb);
            }
            let line = format!(
                "{:>7} vs {:<7}: {PAIRS} pairs, distance agreed {} certified {}; {} penetrating, depth agreed {} certified {}, normal ties {}; failures {}",
                name_a, name_b, t.agreed_distance, t.certified_distance, t.penetrating,
                t.agreed_depth, t.certified_depth, t.normal_ties, t.failures
            );
            if t.failures * 1000 > PAIRS {
                failed = true;
                report.push(format!(
                    "{line}  <-- over 0.1%; first: {}",
                    t.first_failure.unwrap_or_default()
                ));
            } else {
                report.push(line);
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(!failed, "{}", report.join("\n"));
}

/// A shape hovering over a ground box two hundred metres wide is as far from it as its lowest
/// point is high: a closed form (parry3d's own GJK is off by up to 5 mm here). GJK once took
/// its direction from the weighted sum of support points 140 m out, whose rounding (1e-5 m)
/// turned it too far to prove a gap of millimetres: 43% of hulls within 5 cm of the ground
/// were reported touching it, at a depth of zero.
#[test]
fn a_shape_over_a_wide_ground_box_is_as_far_as_its_lowest_point() {
    let ground = Shape::cuboid(Vector::new(100.0, 1.0, 100.0)).unwrap();
    let pose_ground = Isometry::translation(0.0, -1.0, 0.0);
    let mut rng = Rng(7);
    let mut worst: (Real, String) = (0.0, String::new());
    for case in 0..10_000 {
        let s = shape(&mut rng, 1 + case % 3);
        let turned = Isometry::new(
            Vector::new(rng.signed(50.0), 0.0, rng.signed(50.0)),
            rng.vector(3.0),
        );
        let lowest =
            (turned * s.support(&turned.rotation.inverse_transform_vector(&-Vector::y()))).y;
        let height = rng.range(0.0, 0.05);
        let pose = Isometry::from_parts(
            (turned.translation.vector + Vector::y() * (height - lowest)).into(),
            turned.rotation,
        );
        let found = match epa::contact(&ground, &pose_ground, &s, &pose, 0.06) {
            Some(c) => c.separation,
            None => Real::INFINITY,
        };
        // GJK counts a distance under a millionth of the simplex's size (here up to 250 m) as
        // a touch.
        let error = (found - height).abs() - 2.5e-4;
        if error > worst.0 {
            worst = (
                error,
                format!(
                    "{} m found for a height of {height} m: {s:?} at {pose:?}",
                    found
                ),
            );
        }
    }
    assert!(worst.0 <= 1.0e-5, "{}", worst.1);
}

/// A random pair of shapes of kinds `ka` and `kb` at random poses, B then moved along their
/// closest points' line until they are `gap(rng)` apart (negative: overlapping); `None` for a
/// pair that touched to begin with.
fn moved_to(
    rng: &mut Rng,
    ka: usize,
    kb: usize,
    gap: impl FnOnce(&mut Rng) -> Real,
) -> Option<(Shape, Isometry<Real>, Shape, Isometry<Real>)> {
    let a = shape(rng, ka);
    let b = shape(rng, kb);
    let pa = rng.pose(1.2);
    let mut pb = rng.pose(1.2);
    let d = dispatch::distance(&a, &pa, &b, &pb);
    if d.separation <= 0.0 {
        return None;
    }
    pb.translation.vector -= d.normal * (d.separation - gap(rng));
    Some((a, pa, b, pb))
}

/// Polytopes a hair apart: boxes and hulls in every ordered pairing, 2,000 pairs each, moved
/// along their closest points' line to within a millimetre of touching (a quarter of them into
/// overlap). Where parry3d puts them more than 2e-5 m apart (its distance) or deep (its
/// contact's depth), `dispatch::intersects` must say so, and our distance must be parry3d's within
/// 1e-5 m or proven as in [`check_pair`]. (Closer than that, about a hundred units in f32's
/// last place at these coordinates, the verdict is rounding's: one cuboid-hull pair 1.3e-5 m
/// apart is reported touching.) Random poses rarely come this close; here GJK once said
/// "touching" for 2% of box pairs 0.02-0.4 mm apart edge to edge (the f32 rounding of its
/// nearest point's direction defeated its proof of separation).
#[test]
fn polytopes_a_hair_apart_are_apart() {
    const TOL: Real = 1.0e-5;
    let mut report = Vec::new();
    let mut failed = false;
    for ka in [1, 3] {
        for kb in [1, 3] {
            let mut rng = Rng(7_000 + (ka * 4 + kb) as u64);
            let (mut apart, mut touching, mut wrong) = (0, 0, Vec::new());
            for case in 0..2_000 {
                let gap = |rng: &mut Rng| 1.0e-3 * (rng.unit() - 0.25);
                let Some((a, pa, b, pb)) = moved_to(&mut rng, ka, kb, gap) else {
                    continue;
                };
                let (pa_, pb_) = (a.as_parry(), b.as_parry());
                let mut theirs = parry3d::query::distance(&pa, pa_, &pb, pb_).unwrap();
                if theirs <= 0.0 {
                    theirs = parry3d::query::contact(&pa, pa_, &pb, pb_, 0.0)
                        .unwrap()
                        .map_or(0.0, |c| c.dist);
                }
                if theirs.abs() <= 2.0 * TOL {
                    continue;
                }
                let ours = dispatch::distance(&a, &pa, &b, &pb);
                let verdict = dispatch::intersects(&a, &pa, &b, &pb);
                // Agreed, or (parry3d's GJK stops at a relative tolerance) proven as in
                // `check_pair`: the gap along our normal is our distance, our points on the shapes.
                let agreed = (ours.separation - theirs).abs() <= TOL
                    || ((ours.separation + overlap_along(&a, &pa, &b, &pb, &ours.normal)).abs()
                        <= TOL
                        && off_surface(&a, &pa, &ours.point_a) <= TOL
                        && off_surface(&b, &pb, &ours.point_b) <= TOL);
                if verdict != (theirs < 0.0) || (theirs > 0.0 && !agreed) {
                    wrong.push(format!(
                        "case {case}: ours {} ({verdict}), parry3d {theirs}",
                        ours.separation
                    ));
                }
                if theirs > 0.0 {
                    apart += 1;
                } else {
                    touching += 1;
                }
            }
            let line = format!(
                "{:>7} vs {:<7}: {apart} apart, {touching} overlapping, {} wrong{}",
                KINDS[ka],
                KINDS[kb],
                wrong.len(),
                wrong
                    .first()
                    .map(|w| format!(" (first: {w})"))
                    .unwrap_or_default()
            );
            failed |= !wrong.is_empty() || apart < 500 || touching < 100;
            report.push(line);
        }
    }
    println!("{}", report.join("\n"));
    assert!(!failed, "{}", report.join("\n"));
}

/// Contacts of shapes touching to within 0.05 mm (either way), 2,000 pairs for each pairing
/// of a box or hull with a box or hull, and a capsule and a sphere on a hull: the overlap along
/// the contact's normal, by parry3d's support maps, must be the contact's depth (to 1e-4 m), so
/// that the normal is a direction along which the shapes do touch, and every pair must give a
/// contact (the margin is 1 cm). GJK's nearest point at a micrometre can point anywhere in f32;
/// 4 of these 12,000 pairs once got a normal along which the shapes overlapped by 3-107 cm.
#[test]
fn touching_contacts_have_true_normals() {
    for (ka, kb) in [(1, 1), (1, 3), (3, 1), (3, 3), (2, 3), (0, 3)] {
        let mut rng = Rng(9_000 + (ka * 4 + kb) as u64);
        let (mut contacts, mut wrong) = (0, Vec::new());
        for case in 0..2_000 {
            let gap = |rng: &mut Rng| 1.0e-4 * (rng.unit() - 0.5);
            let Some((a, pa, b, pb)) = moved_to(&mut rng, ka, kb, gap) else {
                continue;
            };
            let Some(c) = epa::contact(&a, &pa, &b, &pb, 0.01) else {
                wrong.push(format!("case {case}: no contact"));
                continue;
            };
            contacts += 1;
            let along = overlap_along(&a, &pa, &b, &pb, &c.normal);
            if (along + c.separation).abs() > 1.0e-4 {
                wrong.push(format!(
                    "case {case}: separation {}, overlap along the normal {along}",
                    c.separation
                ));
            }
        }
        assert!(
            wrong.is_empty() && contacts > 1_000,
            "{} vs {}: {contacts} contacts, wrong: {wrong:?}",
            KINDS[ka],
            KINDS[kb]
        );
    }
}

//! Contact recycling held to parry3d: a pair that moved a little since its manifold was made
//! keeps the manifold (its normal and its material points) and updates only the separations.
//! parry3d's support maps give the oracle: the gap between the two shapes along the frozen
//! normal, `min over B of n.b - max over A of n.a`. Each recycled separation is `n.(b - a)` for
//! two material points, so it can never be below that gap, and it must follow the gap's change
//! as the shapes move, within what motion along the surfaces can change (a vertex slid past an
//! edge, a point rolled along a curve). Motions past the tolerance, or turns past ten degrees,
//! make the manifold again.

mod common;

use common::{shape, Rng, KINDS};
use smallvec::SmallVec;
use sprung_collision::broad_phase::{PairEvent, ProxyId, ProxyPair};
use sprung_collision::dispatch::manifolds;
use sprung_collision::narrow_phase::{NarrowPhase, PairCache, ProxyShapes};
use sprung_collision::parry3d;
use sprung_collision::parry3d::math::{Isometry, Point, Real, Translation, Vector};
use sprung_collision::parry3d::na::UnitQuaternion;
use sprung_collision::recycle::{RECYCLE_DISTANCE, RECYCLE_REACH};
use sprung_collision::shape::Shape;

const MARGIN: Real = 0.02;

fn pair() -> ProxyPair {
    ProxyPair {
        a: ProxyId(0),
        b: ProxyId(1),
    }
}

/// parry3d's signed distance between the two shapes (negative: depth) and its normal, A to B.
fn contact(colliders: &[(Shape, Isometry<Real>)]) -> (Real, Vector<Real>) {
    let ((a, pa), (b, pb)) = (&colliders[0], &colliders[1]);
    let c = parry3d::query::contact(pa, a.as_parry(), pb, b.as_parry(), 10.0)
        .unwrap()
        .expect("within 10 m");
    (c.dist, c.normal1.into_inner())
}

/// The gap between the shapes along unit `n` (A to B) by parry3d's support maps: negative when
/// their shadows on `n` overlap.
fn gap_along(colliders: &[(Shape, Isometry<Real>)], n: &Vector<Real>) -> Real {
    let ((a, pa), (b, pb)) = (&colliders[0], &colliders[1]);
    let support = |s: &Shape, pose, d: &Vector<Real>| {
        s.as_parry()
            .as_support_map()
            .expect("convex")
            .support_point(pose, d)
    };
    n.dot(&support(b, pb, &-n).coords) - n.dot(&support(a, pa, n).coords)
}

/// The two colliders of a test pair, A then B.
type Colliders = Vec<(Shape, Isometry<Real>)>;

/// Two random shapes of random kinds (returned), A at a random pose, B placed along a random
/// direction from it and then moved along parry3d's normal until its distance is about
/// `wanted` (m, negative for overlap); and that normal.
fn random_pair(rng: &mut Rng, wanted: Real) -> (usize, usize, Colliders, Vector<Real>) {
    let (ka, kb) = ((rng.next_u64() % 4) as usize, (rng.next_u64() % 4) as usize);
    let (a, b) = (shape(rng, ka), shape(rng, kb));
    let pose_a = rng.pose(2.0);
    let dir = rng.vector(1.0).try_normalize(1e-3).unwrap_or(Vector::y());
    let mut pose_b = rng.pose(0.0);
    pose_b.translation = Translation::from(pose_a.translation.vector + dir * 4.0);
    let mut colliders = vec![(a, pose_a), (b, pose_b)];
    let (gap, normal) = contact(&colliders);
    colliders[1].1.translation.vector -= normal * (gap - wanted);
    (ka, kb, colliders, normal)
}

fn deepest(narrow: &NarrowPhase) -> Real {
    narrow.contacts()[0].manifolds[0]
        .points
        .iter()
        .map(|p| p.separation)
        .fold(Real::INFINITY, Real::min)
}

/// Random pairs of every combination of kinds, made to overlap by up to 5 mm, then B moved
/// relative to A and the whole carried by a common motion:
/// - along the normal (up to 3 mm, plus up to 0.2 mm across, no relative turn), the deepest
///   separation's change must match the gap's within the motion across the normal plus 5% of
///   the motion along it; without the update it would be off by the whole motion along the
///   normal;
/// - any motion of up to 3 mm and 0.3 degrees: within the motion (twice the turn's chord).
///
/// And never below the gap.
#[test]
fn recycled_separations_follow_the_gap_parry3d_measures() {
    let mut rng = Rng(0x5EED_2026);
    let (mut tried, mut recycled) = (0, 0);
    for round in 0..4_000 {
        let along_normal = round % 2 == 0;
        let wanted = rng.range(-0.005, 0.0);
        let (ka, kb, mut colliders, _) = random_pair(&mut rng, wanted);
        let mut narrow = NarrowPhase::new(MARGIN);
        narrow.apply(&[PairEvent::Began(pair())]);
        narrow.update(colliders.as_slice());
        if narrow.contacts()[0].manifolds[0].points.is_empty() {
            continue;
        }
        assert_eq!(narrow.recycled(), 0, "a new pair is made, not recycled");
        let n = narrow.contacts()[0].manifolds[0].normal;
        let (before, gap_before) = (deepest(&narrow), gap_along(&colliders, &n));
        // B's motion relative to A (in A's frame), then a common motion of both.
        let local_normal = colliders[0].1.rotation.inverse_transform_vector(&n);
        let (normal_shift, across, max_angle) = if along_normal {
            let across = rng.vector(0.0002);
            let across = across - local_normal * local_normal.dot(&across);
            (rng.range(-0.003, 0.003), across, 0.0)
        } else {
            (
                0.0,
                rng.vector(0.003 / 3.0_f32.sqrt()),
                0.3_f32.to_radians(),
            )
        };
        let shift = local_normal * normal_shift + across;
        let axis = rng.vector(1.0).try_normalize(1e-3).unwrap_or(Vector::x());
        let angle = rng.range(0.0, max_angle);
        let turn = UnitQuaternion::from_scaled_axis(axis * angle);
        let b_local = colliders[0].1.inv_mul(&colliders[1].1);
        let moved_local = Isometry::from_parts(
            Translation::from(b_local.translation.vector + shift),
            turn * b_local.rotation,
        );
        // The common motion: any translation, a turn of 0.05 rad (within the 10 degrees).
        let carry = rng.pose(1.0);
        let carry = Isometry::from_parts(
            carry.translation,
            UnitQuaternion::from_scaled_axis(carry.rotation.scaled_axis().normalize() * 0.05),
        );
        colliders[0].1 = carry * colliders[0].1;
        colliders[1].1 = colliders[0].1 * moved_local;
        narrow.update(colliders.as_slice());
        tried += 1;
        if narrow.recycled() == 0 {
            continue;
        }
        recycled += 1;
        // The manifold keeps its world normal; the gap is measured along the normal turned
        // with A by the common motion, so that its change is the relative motion's alone (the
        // recycled points turn with their shapes, and the frozen normal differs from the
        // turned one by 0.05 rad, which changes `n . (b - a)` only by that angle times the
        // few millimetres between the points).
        let kept = narrow.contacts()[0].manifolds[0].normal;
        assert_eq!(kept, n, "the normal is frozen");
        let after = deepest(&narrow);
        let gap_after = gap_along(&colliders, &(carry.rotation * n));
        let extent = colliders[1].0.extent_from(&Point::origin());
        let chord = 2.0 * extent * (angle / 2.0).sin();
        let error = ((after - before) - (gap_after - gap_before)).abs();
        let bound = if along_normal {
            across.norm() + 0.05 * normal_shift.abs() + 2e-4
        } else {
            // A turn dips B's corners by up to the chord, some outside the contact (where the
            // gap sees them and the points do not), and lifts the points by as much.
            shift.norm() + 2.0 * chord + 2e-4
        };
        // n . (b - a) against n' . (b - a): at most 0.05 rad times the points' distance.
        let tilt = 0.05 * (after.abs() + shift.norm() + chord);
        assert!(
            after >= gap_after - tilt - 1e-4,
            "{} on {}: recycled {after} below the gap {gap_after}",
            KINDS[kb],
            KINDS[ka],
        );
        assert!(
            error <= bound,
            "{} on {} ({}): recycled {before} -> {after}, gap {gap_before} -> {gap_after}, error {error} > {bound}",
            KINDS[kb],
            KINDS[ka],
            if along_normal { "along the normal" } else { "any motion" },
        );
    }
    eprintln!("recycled {recycled} of {tried}");
    assert!(recycled * 10 > tried * 9, "recycled {recycled} of {tried}");
}

/// A box resting on a box: carried together, nothing changes; pushed 4 mm deeper along the
/// normal, every separation drops 4 mm; slid past the tolerance, or both turned past ten
/// degrees, the manifold is made again.
#[test]
fn recycling_keeps_what_holds_and_remakes_what_does_not() {
    let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
    let mut colliders = vec![
        (cube.clone(), Isometry::identity()),
        (cube, Isometry::translation(0.1, 0.99, 0.05)),
    ];
    let mut narrow = NarrowPhase::new(MARGIN);
    narrow.apply(&[PairEvent::Began(pair())]);
    narrow.update(colliders.as_slice());
    let first = narrow.contacts()[0].manifolds[0].clone();
    assert_eq!(first.points.len(), 4);
    assert_eq!(narrow.recycled(), 0);

    let carry = Isometry::translation(3.0, -2.0, 1.0);
    let at = |b: Isometry<Real>| [carry, carry * b];
    let [pa, pb] = at(Isometry::translation(0.1, 0.986, 0.05));
    colliders[0].1 = pa;
    colliders[1].1 = pb;
    narrow.update(colliders.as_slice());
    assert_eq!(narrow.recycled(), 1);
    let now = &narrow.contacts()[0].manifolds[0];
    assert_eq!(now.normal, first.normal);
    for (p, q) in now.points.iter().zip(&first.points) {
        assert_eq!(p.id, q.id);
        assert!((p.separation - (q.separation - 0.004)).abs() < 1e-5);
        assert!((p.point_b - q.point_b - Vector::new(3.0, -2.004, 1.0)).norm() < 1e-5);
    }

    // A slide of 6 cm, past the 5 cm tolerance.
    let [pa, pb] = at(Isometry::translation(0.16, 0.986, 0.05));
    colliders[0].1 = pa;
    colliders[1].1 = pb;
    narrow.update(colliders.as_slice());
    assert_eq!(narrow.recycled(), 0);

    // Both turned 12 degrees together: nothing moved relative to A, but the normal is frozen
    // in world space, so the manifold is made again; 5 degrees keeps it.
    for (degrees, expected) in [(5.0_f32, 1), (12.0, 0)] {
        let turn = Isometry::rotation(Vector::z() * degrees.to_radians());
        let [pa, pb] = at(Isometry::translation(0.16, 0.986, 0.05));
        // Re-made at the untilted pose first, then turned.
        colliders[0].1 = pa;
        colliders[1].1 = pb;
        narrow.update(colliders.as_slice());
        colliders[0].1 = turn * pa;
        colliders[1].1 = turn * pb;
        narrow.update(colliders.as_slice());
        assert_eq!(narrow.recycled(), expected, "turned {degrees} degrees");
    }
}

/// The two colliders with the reach their speeds give their pair, as a world tells the narrow
/// phase: in all, and along any normal.
struct Reaching<'a> {
    colliders: &'a [(Shape, Isometry<Real>)],
    reach: Real,
    along: Real,
}

impl ProxyShapes for Reaching<'_> {
    fn shape_and_pose(&self, proxy: ProxyId) -> Option<(&Shape, &Isometry<Real>)> {
        self.colliders.shape_and_pose(proxy)
    }

    fn speculative_distance(&self, _a: ProxyId, _b: ProxyId) -> Real {
        self.reach
    }

    fn speculative_distance_along(&self, _a: ProxyId, _b: ProxyId, _normal: &Vector<Real>) -> Real {
        self.along
    }
}

/// Speculative points are reused while the pair can close as far as the nearest of them along
/// their normal in a step, as a query would give them: two cubes 5 cm apart, whose speeds reach
/// 8 cm (a record is kept), reuse their points the next step while they still reach 8 cm along
/// the normal, and lose them to a query (which keeps the pair apart) when they reach nothing
/// along it, moving across it or away, however fast.
#[test]
fn recycled_speculative_points_end_when_the_pair_no_longer_closes_along_their_normal() {
    let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
    let colliders = vec![
        (cube.clone(), Isometry::identity()),
        (cube, Isometry::translation(0.1, 1.05, 0.05)),
    ];
    let view = |along: Real| Reaching {
        colliders: &colliders,
        reach: 0.08,
        along,
    };
    for (along, points) in [(0.08, 4), (0.0, 0)] {
        let mut narrow = NarrowPhase::new(MARGIN);
        narrow.apply(&[PairEvent::Began(pair())]);
        narrow.update(&view(0.08));
        assert_eq!(narrow.contacts()[0].manifolds[0].points.len(), 4);
        assert!(matches!(
            narrow.contacts()[0].cache,
            Some(PairCache::Manifold(_))
        ));
        narrow.update(&view(along));
        assert_eq!(narrow.recycled(), usize::from(points > 0), "along {along}");
        let kept: usize = narrow.contacts()[0]
            .manifolds
            .iter()
            .map(|m| m.points.len())
            .sum();
        assert_eq!(kept, points, "along {along}");
        if points == 0 {
            assert!(matches!(
                narrow.contacts()[0].cache,
                Some(PairCache::Apart { .. })
            ));
        }
    }
}

/// A manifold is kept for reuse while its pair's reach is at most `RECYCLE_REACH` times its
/// tolerance (`RECYCLE_DISTANCE` for a touching pair of unit cubes), and reused at the next
/// update; beyond, it is not kept, and the pair is queried again, finding the same points.
#[test]
fn a_pair_closing_fast_keeps_no_manifold_for_reuse() {
    let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
    let colliders = vec![
        (cube.clone(), Isometry::identity()),
        (cube, Isometry::translation(0.1, 0.99, 0.0)),
    ];
    let limit = RECYCLE_REACH * RECYCLE_DISTANCE;
    for (reach, kept) in [(0.0, true), (0.99 * limit, true), (1.01 * limit, false)] {
        let view = Reaching {
            colliders: &colliders,
            reach,
            along: reach,
        };
        let mut narrow = NarrowPhase::new(0.02);
        narrow.apply(&[PairEvent::Began(pair())]);
        narrow.update(&view);
        let first = narrow.contacts()[0].manifolds.clone();
        assert_eq!(first[0].points.len(), 4, "reach {reach}");
        let cached = matches!(narrow.contacts()[0].cache, Some(PairCache::Manifold(_)));
        assert_eq!(cached, kept, "reach {reach}");
        narrow.update(&view);
        assert_eq!(narrow.recycled(), usize::from(kept), "reach {reach}");
        let again = &narrow.contacts()[0].manifolds;
        for (p, q) in again[0].points.iter().zip(&first[0].points) {
            assert_eq!(p.id, q.id);
            assert!((p.separation - q.separation).abs() < 1e-6, "reach {reach}");
        }
    }
}

/// A pair with only speculative points keeps its manifold while it has moved no farther than
/// the distance its query kept points within (the margin plus its reach), so that no point the
/// clip left out can have come into touch unseen; past that it is made again. A cube 15 mm
/// above another, sliding sideways by 30 mm: kept with a reach of 20 mm (40 mm kept), made
/// again with none (20 mm), and made again at 45 mm whatever the reach.
#[test]
fn a_speculative_manifold_is_kept_within_the_distance_its_points_were_kept() {
    let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
    for (reach, slide, expected) in [(0.02, 0.03, 1), (0.0, 0.03, 0), (0.02, 0.045, 0)] {
        let mut colliders = vec![
            (cube.clone(), Isometry::identity()),
            (cube.clone(), Isometry::translation(0.1, 1.015, 0.05)),
        ];
        let mut narrow = NarrowPhase::new(MARGIN);
        narrow.apply(&[PairEvent::Began(pair())]);
        narrow.update(&Reaching {
            colliders: &colliders,
            reach,
            along: reach,
        });
        let first = narrow.contacts()[0].manifolds[0].clone();
        assert_eq!(first.points.len(), 4);
        assert!(first.points.iter().all(|p| p.separation > 0.0));
        colliders[1].1 = Isometry::translation(0.1 + slide, 1.015, 0.05);
        narrow.update(&Reaching {
            colliders: &colliders,
            reach,
            along: reach,
        });
        assert_eq!(
            narrow.recycled(),
            expected,
            "reach {reach}, slide {slide}: kept {expected}"
        );
        assert!((deepest(&narrow) - 0.015).abs() < 1e-5);
    }
}

/// The two colliders with how far each moved since the last update, as a world tells the
/// narrow phase.
struct Moving<'a> {
    colliders: &'a [(Shape, Isometry<Real>)],
    moved: [Real; 2],
}

impl ProxyShapes for Moving<'_> {
    fn shape_and_pose(&self, proxy: ProxyId) -> Option<(&Shape, &Isometry<Real>)> {
        self.colliders.shape_and_pose(proxy)
    }

    fn moved(&self, proxy: ProxyId) -> Real {
        self.moved[proxy.0 as usize]
    }
}

/// Pairs found apart are not queried again until they could have come within the margin:
/// over random pairs of every kind placed up to 1 m apart and moved by random small steps,
/// every step the narrow phase skips must be one where a fresh query finds no point (the
/// skip is exact, not an approximation), and some steps must be skipped. Each step tells the
/// narrow phase how far B moved: its shift plus the chord of its turn at its farthest point.
#[test]
fn pairs_kept_apart_would_have_found_no_point() {
    let mut rng = Rng(0xA9A2_7001);
    let (mut skipped, mut queried) = (0, 0);
    for _ in 0..1_000 {
        let wanted = rng.range(0.05, 1.0);
        let (ka, kb, mut colliders, normal) = random_pair(&mut rng, wanted);
        let mut narrow = NarrowPhase::new(MARGIN);
        narrow.apply(&[PairEvent::Began(pair())]);
        narrow.update(colliders.as_slice());
        // Ten steps of B closing in, sliding and turning a little.
        for _ in 0..10 {
            let step = -normal * rng.range(0.0, 0.08) + rng.vector(0.02);
            let turn = UnitQuaternion::from_scaled_axis(rng.vector(0.05));
            let pose_b = &mut colliders[1].1;
            pose_b.translation.vector += step;
            pose_b.rotation = turn * pose_b.rotation;
            let extent_b = colliders[1].0.extent_from(&Point::origin());
            let chord = 2.0 * turn.as_ref().imag().norm();
            let moving = Moving {
                colliders: &colliders,
                moved: [0.0, step.norm() + chord * extent_b],
            };
            narrow.update(&moving);
            if narrow.kept_apart() == 1 {
                skipped += 1;
                let mut fresh = SmallVec::new();
                let ((sa, pa), (sb, pb)) = (&colliders[0], &colliders[1]);
                manifolds(sa, pa, sb, pb, MARGIN, &mut fresh);
                assert!(
                    fresh.is_empty(),
                    "{} and {}: skipped, but a query finds {:?}",
                    KINDS[ka],
                    KINDS[kb],
                    fresh[0].points
                );
                assert!(narrow.contacts()[0].manifolds.is_empty());
            } else {
                queried += 1;
            }
        }
    }
    eprintln!("skipped {skipped}, queried {queried}");
    assert!(
        skipped > 1_000 && queried > 1_000,
        "skipped {skipped}, queried {queried}"
    );
}

/// A pair the broad phase has just begun is kept apart from its first update, without a query,
/// when the shapes' shadows on the line between their origins lie farther apart than the
/// margin: over random pairs of every kind placed up to 1 m apart, every such skip must be one
/// where a query finds no point, the distance it keeps must not pass parry3d's, and most pairs
/// apart along that line must be skipped.
#[test]
fn pairs_begun_apart_along_the_line_between_them_are_not_queried() {
    let mut rng = Rng(0xC3A7_2E11);
    let (mut skipped, mut queried) = (0, 0);
    for _ in 0..2_000 {
        let wanted = rng.range(0.05, 1.0);
        let (ka, kb, colliders, _) = random_pair(&mut rng, wanted);
        let mut narrow = NarrowPhase::new(MARGIN);
        narrow.apply(&[PairEvent::Began(pair())]);
        narrow.update(colliders.as_slice());
        let ((sa, pa), (sb, pb)) = (&colliders[0], &colliders[1]);
        if narrow.kept_apart() == 1 {
            skipped += 1;
            let mut fresh = SmallVec::new();
            manifolds(sa, pa, sb, pb, MARGIN, &mut fresh);
            assert!(fresh.is_empty(), "{} and {}", KINDS[ka], KINDS[kb]);
            assert!(narrow.contacts()[0].manifolds.is_empty());
            let distance = contact(&colliders).0;
            let kept = narrow.contacts()[0].cache.map(|c| match c {
                PairCache::Apart { gap, .. } => gap,
                PairCache::Manifold(_) => Real::NAN,
            });
            let kept = kept.expect("a cache");
            assert!(
                kept > MARGIN && kept <= distance + 1e-5,
                "{} and {}: kept {kept} apart, parry3d finds {distance}",
                KINDS[ka],
                KINDS[kb]
            );
        } else {
            queried += 1;
        }
    }
    eprintln!("skipped {skipped}, queried {queried}");
    assert!(
        skipped > 1_500 && queried > 20,
        "skipped {skipped}, queried {queried}"
    );
}

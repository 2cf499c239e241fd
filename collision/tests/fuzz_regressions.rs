//! Inputs the fuzz targets (fuzz/, docs/RELIABILITY.md) found, kept as tests. Values are the
//! fuzzer's, trimmed by hand to the shapes and poses involved; the expected answers come from
//! exact geometry or parry3d, never from our own output. Each input failed before its fix (the
//! test itself was re-run against the old code for the time of impact one only), except
//! `coincident_capsules_overlap_by_their_radii` (parry3d was wrong there, not us) and
//! `a_mesh_with_subnormal_coordinates_builds` (built from the analysis of a panic inside
//! parry3d, not from its input; the input itself was replayed against the fix).

use smallvec::SmallVec;
use sprung_collision::cast::ray_cast;
use sprung_collision::dispatch::manifolds;
use sprung_collision::parry3d::math::{Isometry, Point, Real, Vector};
use sprung_collision::parry3d::na::{Quaternion, Translation3};
use sprung_collision::shape::{Shape, ShapeError};
use sprung_collision::unit::unit_quaternion;
use sprung_collision::{dispatch, epa};

/// shape_from_bytes: four points 59 m off a plane across 13 km. parry3d folded them into two
/// back-to-back quadrilaterals (two faces, zero inertia about two axes), which the constructor
/// accepted. A hull now needs four faces; this one is refused, or, if it is ever built, has
/// positive inertia.
#[test]
fn a_nearly_flat_hull_is_refused_or_solid() {
    let points = [
        Point::new(-5896.6763, -4218.5337, 2.996683e-7),
        Point::new(-5896.6763, -7035.416, -58.966763),
        Point::new(7535.019, -4.2260256, 0.0),
        Point::new(0.0, 0.0, 0.0),
    ];
    match Shape::convex_hull(&points) {
        Err(e) => assert_eq!(e, ShapeError::DegenerateHull),
        Ok(hull) => {
            let Shape::ConvexHull(h) = &hull else {
                unreachable!()
            };
            assert!(h.faces().len() >= 4);
            let m = hull.mass_properties(1000.0);
            assert!(m.principal_inertia().iter().all(|&x| x > 0.0), "{m:?}");
        }
    }
}

/// narrow_phase: two capsules on one axis at one pose. parry3d's distance says 2.5 mm apart;
/// their segments coincide, so they overlap by the sum of the radii along any perpendicular.
/// Ours was right; the fuzz oracle now needs parry3d's verdict proved (see fuzz/src/lib.rs).
#[test]
fn coincident_capsules_overlap_by_their_radii() {
    let a = Shape::capsule(0.032348633, 0.0021102906).unwrap();
    let b = Shape::capsule(0.047709655, 0.000987671).unwrap();
    let at = Isometry::identity();
    assert!(dispatch::intersects(&a, &at, &b, &at));
    assert_eq!(dispatch::distance(&a, &at, &b, &at).separation, 0.0);
    let c = epa::contact(&a, &at, &b, &at, 0.0).unwrap();
    let depth = 0.0021102906 + 0.000987671;
    assert!((c.separation + depth).abs() < 1e-7, "{c:?}");
    assert!(c.normal.y.abs() < 1e-6, "perpendicular to the axis: {c:?}");
    let mut out = SmallVec::new();
    manifolds(&a, &at, &b, &at, 0.0, &mut out);
    assert_eq!(out.len(), 1);
}

/// casts: a solid ray from inside a half-space got parry3d's zero normal; every other shape
/// answers -dir there (cast::ray's rules), and so does a half-space now.
#[test]
fn a_solid_ray_from_inside_a_half_space_faces_back() {
    let floor = Shape::halfspace(Vector::new(-7.844544e17, -1.5689088e19, -1.5689088e19)).unwrap();
    let rotation = unit_quaternion(&Quaternion::new(
        0.00235993,
        -1.0007755e-7,
        -0.9999968,
        -0.0010007754,
    ))
    .unwrap();
    let pose = Isometry::from_parts(
        Translation3::new(7.1237184e-7, -156.89087, -0.15689087),
        rotation,
    );
    let origin = Point::new(-0.00015689088, -0.15689087, -0.15689087);
    let dir = Vector::new(-0.15689087, -0.15628052, -0.15628052);
    let hit = ray_cast(&floor, &pose, &origin, &dir, 1.5689087, true).unwrap();
    assert_eq!(hit.toi, 0.0);
    assert_eq!(hit.point, origin);
    assert!((hit.normal + dir.normalize()).norm() < 1e-6, "{hit:?}");
    let _: Real = hit.toi;
}

/// shape_from_bytes: a needle hull 0.9 mm long and 4 um thick. parry3d's mass properties put
/// its centre of mass 13 mm outside it with zero principal inertia; a hull must now be at
/// least MIN_DIMENSION thick across every face.
#[test]
fn a_needle_hull_is_too_small() {
    let points = [
        Point::new(-0.00093065854, -4.1510457e-6, -4.1510457e-6),
        Point::new(-2.944004e-8, -2.944004e-8, 0.0),
        Point::new(-0.0004085983, -2.944004e-8, -2.944004e-8),
        Point::new(3.1777578e-8, 3.177758e-7, 3.177758e-7),
        Point::new(3.177758e-7, 3.177758e-7, 0.0),
        Point::new(2.1e-44, 0.0, 0.0),
        Point::new(0.0, 0.0, 0.0),
    ];
    assert_eq!(
        Shape::convex_hull(&points).unwrap_err(),
        ShapeError::TooSmall
    );
}

/// Our hull mass properties (f64, about the vertices' mean) against parry3d's closed form for
/// a box, for box-shaped hulls from ordinary to thin and far from their origin, where parry3d's
/// own hull sums lose digits.
#[test]
fn hull_mass_properties_match_the_box_formula() {
    use sprung_collision::parry3d::shape::Cuboid;
    for (half, offset) in [
        (Vector::new(0.5, 0.5, 0.5), Vector::zeros()),
        (Vector::new(2.0, 0.3, 0.7), Vector::new(3.0, -1.0, 2.0)),
        (Vector::new(1.0, 1.0e-3, 1.0), Vector::new(1000.0, 0.0, 0.0)),
        (
            Vector::new(1.0e-3, 2.0e-3, 5.0e-3),
            Vector::new(0.0, 50.0, 0.0),
        ),
        (
            Vector::new(1.0e4, 10.0, 1.0e4),
            Vector::new(5.0e4, 0.0, 0.0),
        ),
    ] {
        let corners: Vec<Point<Real>> = (0..8)
            .map(|i| {
                let s = |bit: u32| if i & (1 << bit) != 0 { 1.0 } else { -1.0 };
                Point::from(offset + Vector::new(half.x * s(0), half.y * s(1), half.z * s(2)))
            })
            .collect();
        let hull = Shape::convex_hull(&corners).unwrap();
        // The box the f32 corners really span (50 + 1e-3 rounds by 4e-6), in f64.
        let half = Vector::from_fn(|k, _| {
            let (lo, hi) = (corners[0][k] as f64, corners[7][k] as f64);
            ((hi - lo) / 2.0) as Real
        });
        let ours = hull.mass_properties(700.0);
        let theirs =
            sprung_collision::parry3d::shape::Shape::mass_properties(&Cuboid::new(half), 700.0);
        assert!(
            (ours.mass() / theirs.mass() - 1.0).abs() < 1e-5,
            "{ours:?} {theirs:?}"
        );
        assert!((ours.local_com.coords - offset).norm() <= 1e-6 * offset.norm().max(half.max()));
        let mut a: Vec<Real> = ours.principal_inertia().iter().copied().collect();
        let mut b: Vec<Real> = theirs.principal_inertia().iter().copied().collect();
        a.sort_by(|x, y| x.partial_cmp(y).unwrap());
        b.sort_by(|x, y| x.partial_cmp(y).unwrap());
        for (x, y) in a.iter().zip(&b) {
            assert!(
                (x / y - 1.0).abs() < 1e-4,
                "{half:?} {offset:?}: {a:?} vs {b:?}"
            );
        }
    }
}

/// narrow_phase: a sphere on a hull whose GJK vector was 1e-22 long: v / |v| came out 0.5%
/// short of unit (the square underflowed to a subnormal). Normals are made unit without
/// squaring now.
#[test]
fn a_tiny_gjk_vector_still_gives_a_unit_normal() {
    let ball = Shape::sphere(8.313599).unwrap();
    let hull = Shape::convex_hull(&[
        Point::new(-0.00025818124, -6.7682213e-6, -6.7682214),
        Point::new(0.0, 0.0, -1.3436191e-22),
        Point::new(-7.2045474, -6.7682213e-6, -6.7682214),
        Point::new(0.21347716, 0.3516816, 0.0),
        Point::new(0.0, 0.0, 0.0),
    ])
    .unwrap();
    let at = Isometry::identity();
    let mut out = SmallVec::new();
    manifolds(&ball, &at, &hull, &at, 0.0, &mut out);
    for m in &out {
        assert!((m.normal.norm() - 1.0).abs() < 1e-6, "{m:?}");
    }
    let c = epa::contact(&ball, &at, &hull, &at, Real::INFINITY).unwrap();
    assert!((c.normal.norm() - 1.0).abs() < 1e-6, "{c:?}");
}

/// casts: a ray from 1.4e10 m (far beyond MAX_EXTENT) through a capsule: rounding put the
/// side crossing on the axis and the normal came out zero. Such a hit is as imprecise as its
/// origin, but its normal is unit.
#[test]
fn a_ray_from_far_away_has_a_unit_normal() {
    let capsule = Shape::capsule(8.657532e-5, 132.2937).unwrap();
    let pose = Isometry::from_parts(
        Translation3::new(5.7983396e-10, 0.0, 0.0),
        unit_quaternion(&Quaternion::new(0.0, 0.0, 1.0, 0.0)).unwrap(),
    );
    let origin = Point::new(13979697000.0, 13979697000.0, 13979697000.0);
    let dir = Vector::new(-1.5689088e19, -1.5689088e19, -1.5689088e19);
    for solid in [true, false] {
        if let Some(hit) = ray_cast(&capsule, &pose, &origin, &dir, 1.5689087, solid) {
            assert!((hit.normal.norm() - 1.0).abs() < 1e-5, "{hit:?}");
            assert!(hit.toi.is_finite() && hit.point.coords.iter().all(|x| x.is_finite()));
        }
    }
}

/// narrow_phase: two boxes 320 m deep in each other. GJK's final simplex was a sliver with the
/// origin almost on an edge; a face of EPA's first tetrahedron came out wound inwards and EPA
/// stopped on it at depth 0. parry3d's depth (its contact, with the midpoint of its witness
/// points inside both boxes) is the oracle.
#[test]
fn epa_on_a_sliver_simplex_finds_the_depth() {
    use sprung_collision::parry3d::na::UnitQuaternion;
    let a = Shape::cuboid(Vector::new(0.83917236, 133.3313, 133.3313)).unwrap();
    let b = Shape::cuboid(Vector::new(133.3313, 133.3313, 816.3452)).unwrap();
    let pa = Isometry::from_parts(
        Translation3::new(0.0008313599, 0.8892822, 0.16461182),
        UnitQuaternion::new_normalize(Quaternion::new(
            0.94178766,
            0.33620855,
            -3.7381426e-6,
            -3.7381426e-6,
        )),
    );
    let pb = Isometry::from_parts(
        Translation3::new(-3.0517578e-5, -3.0517578e-5, -3.0517578e-5),
        UnitQuaternion::new_normalize(Quaternion::new(-0.5, -0.5, -0.5, -0.5)),
    );
    let theirs =
        sprung_collision::parry3d::query::contact(&pa, a.as_parry(), &pb, b.as_parry(), 0.0)
            .unwrap()
            .unwrap();
    let ours = epa::contact(&a, &pa, &b, &pb, Real::INFINITY).unwrap();
    assert!(
        (ours.separation - theirs.dist).abs() < 1e-3 * theirs.dist.abs(),
        "{ours:?} vs {theirs:?}"
    );
}

/// casts (through Shape::trimesh): triangles whose centres differ by a subnormal amount made
/// parry3d's BVH binning divide by it and index out of bounds: a panic inside parry3d. The
/// constructor now takes coordinates under 1e-20 m as zero.
#[test]
fn a_mesh_with_subnormal_coordinates_builds() {
    let vertices = vec![
        Point::new(0.0, 0.0, 0.0),
        Point::new(1.0e-40, 0.0, 0.0),
        Point::new(0.0, 1.0, 0.0),
        Point::new(0.0, 0.0, 1.0),
    ];
    let mesh = Shape::trimesh(vertices, vec![[0, 2, 3], [1, 3, 2]]).unwrap();
    assert_eq!(mesh.check(), Ok(()));
    let hit = ray_cast(
        &mesh,
        &Isometry::identity(),
        &Point::new(1.0, 0.2, 0.2),
        &-Vector::x(),
        10.0,
        true,
    )
    .unwrap();
    assert!((hit.toi - 1.0).abs() < 1e-6, "{hit:?}");
}

/// narrow_phase: a box 9 mm thin through the middle of a 70 km one, both axis-aligned. GJK's
/// direction carried f32 noise, the descent stalled, and it reported the boxes 0.14 m apart
/// while they overlap by 784 m. A stop without a separating plane now counts as touching, and
/// EPA measures the depth; parry3d's contact is the oracle.
#[test]
fn a_stalled_gjk_does_not_claim_separation() {
    let a = Shape::cuboid(Vector::new(8.379211, 509.79614, 0.004547119)).unwrap();
    let b = Shape::cuboid(Vector::new(70587.16, 274.6582, 7537.842)).unwrap();
    let pa = Isometry::translation(-3.0517578e-5, 0.14059448, 815.73486);
    let pb = Isometry::identity();
    assert!(dispatch::intersects(&a, &pa, &b, &pb));
    assert_eq!(dispatch::distance(&a, &pa, &b, &pb).separation, 0.0);
    let theirs =
        sprung_collision::parry3d::query::contact(&pa, a.as_parry(), &pb, b.as_parry(), 0.0)
            .unwrap()
            .unwrap();
    let ours = epa::contact(&a, &pa, &b, &pb, Real::INFINITY).unwrap();
    assert!(
        (ours.separation - theirs.dist).abs() < 1e-3 * theirs.dist.abs(),
        "{ours:?} vs {theirs:?}"
    );
}

/// narrow_phase: two equal cubes 612 m deep in each other. A new EPA vertex almost on a face's
/// plane left the polytope not convex, the origin in front of its nearest face, and EPA
/// answered depth 0. It now stops there and answers its smallest support height, an upper
/// bound of the depth (0.13% over parry3d's here), along that direction.
#[test]
fn epa_survives_a_polytope_gone_concave() {
    use sprung_collision::parry3d::na::UnitQuaternion;
    let cube = Shape::cuboid(Vector::new(611.7859, 611.7859, 611.7859)).unwrap();
    let pa = Isometry::from_parts(
        Translation3::new(-611.7859, -611.7859, -611.7859),
        UnitQuaternion::new_normalize(Quaternion::new(
            1.3589055e-6,
            1.3589055e-5,
            -0.99999917,
            -0.0012937088,
        )),
    );
    let pb = Isometry::translation(-611.7859, -2.4108887, 1.159668);
    let theirs =
        sprung_collision::parry3d::query::contact(&pa, cube.as_parry(), &pb, cube.as_parry(), 0.0)
            .unwrap()
            .unwrap();
    let ours = epa::contact(&cube, &pa, &cube, &pb, Real::INFINITY).unwrap();
    assert!(
        ours.separation <= theirs.dist + 1e-3,
        "{ours:?} vs {theirs:?}"
    );
    assert!(
        (ours.separation - theirs.dist).abs() < 2e-3 * theirs.dist.abs(),
        "{ours:?} vs {theirs:?}"
    );
    assert!(
        (ours.normal - theirs.normal1.into_inner()).norm() < 2e-3,
        "{ours:?} vs {theirs:?}"
    );
}

/// shape_from_bytes, against the f64 hull mass properties above: parry3d wound one face of this
/// sliver tetrahedron inwards, the signed volumes cancelled and the mass came out zero. Each
/// tetrahedron now counts its volume's magnitude (the reference point is inside). The oracle is
/// the tetrahedron's volume, |det| / 6 in f64.
#[test]
fn a_hull_with_a_face_wound_inwards_has_its_mass() {
    let corners = [
        Point::new(0.0, -274.30875, -274.30875),
        Point::new(0.0, 0.0, 0.0),
        Point::new(-274.30875, 350.52316, -0.19659139),
        Point::new(-1.3715982, -274.30875, -274.30875),
    ];
    let hull = Shape::convex_hull(&corners).unwrap();
    let m = hull.mass_properties(2.0);
    let e = |i: usize| corners[i].coords.map(|x| x as f64) - corners[0].coords.map(|x| x as f64);
    let volume = e(1).cross(&e(2)).dot(&e(3)).abs() / 6.0;
    assert!(
        ((m.mass() as f64) / (2.0 * volume) - 1.0).abs() < 1e-4,
        "{m:?} vs {volume}"
    );
    assert!(
        m.principal_inertia()
            .iter()
            .all(|&x| x > 0.0 && x.is_finite()),
        "{m:?}"
    );
    let centroid = corners.iter().map(|p| p.coords).sum::<Vector<Real>>() / 4.0;
    assert!((m.local_com.coords - centroid).norm() < 1e-3, "{m:?}");
}

/// narrow_phase, against the first fix of `a_stalled_gjk_does_not_claim_separation`: a cube
/// 519 m from a 74 km slab 1.6 mm thin. GJK's sliver triangle gave a direction with a few
/// metres of f32 noise along the slab, the search stalled without a proof, and "unproven" was
/// then taken as touching. Now it restarts from the best edge and proves them apart; parry3d's
/// distance is the oracle.
#[test]
fn a_stall_near_a_long_slab_is_proved_apart() {
    use sprung_collision::parry3d::na::UnitQuaternion;
    let a = Shape::cuboid(Vector::new(0.82351685, 0.82351685, 0.82351685)).unwrap();
    let b = Shape::cuboid(Vector::new(0.82351685, 0.00082812505, 36837.77)).unwrap();
    let pa = Isometry::from_parts(
        Translation3::new(368.62183, 368.62183, 368.62183),
        UnitQuaternion::new_normalize(Quaternion::new(
            0.55984294,
            0.58462375,
            0.58718896,
            1.6325326e-7,
        )),
    );
    let pb = Isometry::translation(0.0050979615, 0.0051956177, 0.014117432);
    let theirs =
        sprung_collision::parry3d::query::distance(&pa, a.as_parry(), &pb, b.as_parry()).unwrap();
    assert!(!dispatch::intersects(&a, &pa, &b, &pb));
    let d = dispatch::distance(&a, &pa, &b, &pb);
    assert!(
        (d.separation - theirs).abs() < 1e-3 * theirs,
        "{d:?} vs {theirs}"
    );
    let c = epa::contact(&a, &pa, &b, &pb, Real::INFINITY).unwrap();
    assert!(
        (c.separation - theirs).abs() < 1e-3 * theirs,
        "{c:?} vs {theirs}"
    );
}

/// narrow_phase, against the second fix of GJK: a sphere (8.3 m) whose centre lies 0.4 mm off
/// a hull. The search proved the cores apart early (at 20 m) and only approximately at the end
/// (0.4 mm, below the proof's rounding margin); reporting the proving state's distance made the
/// shapes 12 m apart instead of 8.3 m deep. The nearest state is the answer now; parry3d's
/// contact (proved: its witness midpoint lies inside both) is the oracle.
#[test]
fn gjk_keeps_its_nearest_point_after_an_early_proof() {
    let ball = Shape::sphere(8.313599).unwrap();
    let hull = Shape::convex_hull(&[
        Point::new(0.00048599244, 0.0004617538, 21.865591),
        Point::new(-22.268156, 0.10848045, 0.0),
        Point::new(-22.217306, -444.3461, -22.217306),
        Point::new(-0.00045019388, 0.0, 0.0),
    ])
    .unwrap();
    let at = Isometry::identity();
    let theirs =
        sprung_collision::parry3d::query::contact(&at, ball.as_parry(), &at, hull.as_parry(), 0.0)
            .unwrap()
            .unwrap();
    assert!(dispatch::intersects(&ball, &at, &hull, &at));
    let ours = epa::contact(&ball, &at, &hull, &at, Real::INFINITY).unwrap();
    assert!(
        (ours.separation - theirs.dist).abs() < 1e-3,
        "{ours:?} vs {theirs:?}"
    );
}

/// casts: a box moving at 1.8e38 m/s (finite, near f32's largest). Conservative advancement
/// stepped to t = 1.95 s, where the pose is past f32's range, and answered NaN witness points.
/// A motion that overflows its pose before an impact now gives `None`.
#[test]
fn a_motion_past_f32_range_gives_no_impact() {
    use sprung_collision::cast::{time_of_impact, Motion};
    let a = Shape::cuboid(Vector::new(454.92554, 0.022746278, 454.92554)).unwrap();
    let b = Shape::cuboid(Vector::new(454.92554, 454.92554, 0.022746278)).unwrap();
    let ma = Motion::new(
        Isometry::from_parts(
            Translation3::new(-459.80835, -454.92554, -454.92554),
            unit_quaternion(&Quaternion::new(
                0.58452106,
                -0.128982,
                -0.12918271,
                -0.7905761,
            ))
            .unwrap(),
        ),
        Vector::new(3.149414e-8, -1.8343346e38, -0.0002081604),
        Vector::new(-0.15689087, -0.15689087, -0.00015689088),
    )
    .about(Point::new(-1.6281128e-7, -0.012550354, -0.012550354));
    let mb = Motion::new(
        Isometry::from_parts(
            Translation3::new(-0.012550354, -0.012550354, -0.012550354),
            unit_quaternion(&Quaternion::new(-0.5, -0.5, -0.5, -0.5)).unwrap(),
        ),
        Vector::repeat(-0.012550354),
        Vector::repeat(-0.012550354),
    )
    .about(Point::new(-0.012550354, -0.046372987, 8.675537e-7));
    let toi = time_of_impact(&a, &ma, &b, &mb, 454.92554, 0.6069946);
    if let Some(toi) = toi {
        let finite = |p: &Point<Real>| p.coords.iter().all(|x| x.is_finite());
        assert!(
            toi.t.is_finite() && finite(&toi.point_a) && finite(&toi.point_b),
            "{toi:?}"
        );
        assert!(toi.normal.iter().all(|x| x.is_finite()), "{toi:?}");
    }
}

/// narrow_phase: a sphere of radius 7.75 m and a capsule of radius 1.6 mm whose core is
/// 1.3e-22 m long, both at the origin (input `00 a3 07 fe 00 0a 00 6a 9a 9a 9a 9a 9a 6a`). The
/// line between the cores' closest points is a few 1e-23 m: its squares underflow, its norm
/// came out short, and the normal had length 0.986.
#[test]
fn a_sphere_on_a_capsule_of_a_subnormal_core_gets_a_unit_normal() {
    let sphere = Shape::sphere(7.75).unwrap();
    let capsule = Shape::capsule(6.4e-23, 0.0016).unwrap();
    let at = Isometry::identity();
    let mut out = SmallVec::new();
    manifolds(&sphere, &at, &capsule, &at, 0.0, &mut out);
    assert_eq!(out.len(), 1);
    let n = out[0].normal;
    assert!(
        (n.norm() - 1.0).abs() < 1e-6,
        "normal {n:?}, length {}",
        n.norm()
    );
    // They overlap by the sum of the radii, along any direction.
    for p in &out[0].points {
        assert!((p.separation + 7.75 + 0.0016).abs() < 1e-5, "{p:?}");
    }
}

/// The kind of the input above, for every closed-form pair: centres coincident or apart by
/// offsets whose squares are subnormal or zero, in several directions. Every manifold's
/// normal is a unit vector, and its depth is the overlap along it.
#[test]
fn closed_form_normals_are_unit_at_any_tiny_offset() {
    let shapes = [
        Shape::sphere(0.5).unwrap(),
        Shape::sphere(7.75).unwrap(),
        Shape::capsule(6.4e-23, 0.0016).unwrap(),
        Shape::capsule(0.3, 0.2).unwrap(),
        Shape::capsule(1.0e-20, 0.5).unwrap(),
        Shape::cuboid(Vector::new(0.5, 0.25, 1.0)).unwrap(),
    ];
    let directions = [
        Vector::new(1.0, 0.0, 0.0),
        Vector::new(0.0, 1.0, 0.0),
        Vector::new(0.6, -0.48, 0.64),
        Vector::new(-0.36, 0.48, 0.8),
    ];
    for a in &shapes {
        for b in &shapes {
            for scale in [0.0, 1.0e-38, 1.0e-30, 1.0e-23, 1.0e-21, 1.0e-19, 1.0e-17] {
                for d in &directions {
                    let pose_b = Isometry::translation(d.x * scale, d.y * scale, d.z * scale);
                    let mut out = SmallVec::new();
                    manifolds(a, &Isometry::identity(), b, &pose_b, 0.0, &mut out);
                    assert!(!out.is_empty(), "{a:?} {b:?} at {scale} {d:?}: no contact");
                    for m in &out {
                        let length = m.normal.norm();
                        assert!(
                            (length - 1.0).abs() < 1e-6,
                            "{a:?} {b:?} at {scale} along {d:?}: normal {:?} of length {length}",
                            m.normal
                        );
                    }
                }
            }
        }
    }
}

/// narrow_phase (found at 86a7c89, already there at 4fea58a): a ball of 4.5 cm at the origin
/// against a hull of thirteen points, seven of them one corner repeated, its centre 0.04 mm
/// from that corner. parry3d's contact proves them 4.5 cm deep; GJK proved the cores apart at
/// its third step (8 cm), came within 0.04 mm, then met a tetrahedron that by rounding seemed
/// to enclose the origin, and fell back to the proving state's 8 cm: "apart". The oracle is
/// parry3d's contact and distance.
#[test]
fn a_ball_against_a_hull_of_repeated_points_is_touching() {
    let ball = Shape::sphere(0.04498749).unwrap();
    let t = -5.804138e-5;
    let turn = |x, y, z, w| unit_quaternion(&Quaternion::new(w, x, y, z)).unwrap();
    let pa = Isometry::from_parts(Translation3::new(t, t, t), turn(-0.5, -0.5, -0.5, -0.5));
    let c = -2.7525239e-5;
    let mut points = vec![
        Point::new(0.81350845, 0.7853226, -0.37172836),
        Point::new(0.18392365, 0.0003678473, -0.010258657),
        Point::new(-3.6724174, -2.0517313, -0.37172836),
        Point::new(0.0007156562, 0.0, 0.0),
        Point::new(-1.2210766e-6, c, c),
    ];
    points.extend(std::iter::repeat_n(Point::new(c, c, c), 7));
    points.push(Point::new(c, c, -0.5235025));
    let hull = Shape::convex_hull(&points).unwrap();
    let pb = Isometry::from_parts(
        Translation3::new(t, t, t),
        turn(6.978282e-5, 0.00070055417, 0.077465124, -0.99699485),
    );
    let theirs =
        sprung_collision::parry3d::query::contact(&pa, ball.as_parry(), &pb, hull.as_parry(), 1.0)
            .unwrap()
            .unwrap();
    assert!(theirs.dist < -0.04, "{theirs:?}");
    assert!(dispatch::intersects(&ball, &pa, &hull, &pb));
    let ours = dispatch::distance(&ball, &pa, &hull, &pb);
    let parrys =
        sprung_collision::parry3d::query::distance(&pa, ball.as_parry(), &pb, hull.as_parry())
            .unwrap();
    assert_eq!(parrys, 0.0);
    assert_eq!(ours.separation, 0.0, "{ours:?}");
}

/// narrow_phase (found at e2eb99e, in debug builds): a ball of 0.49 m whose centre is a
/// triangle's corner (4e-24 m off it). GJK proved the cores apart by that hair, then restarted
/// from an edge through the origin (by rounding) and was left with no direction, which
/// e2eb99e's debug assertion refused (before it, and now as a last resort, the proving state
/// stands in). The oracle is parry3d: touching, the ball a radius deep.
#[test]
fn a_ball_centred_on_a_triangles_corner_is_touching() {
    let ball = Shape::sphere(0.4862671).unwrap();
    let tiny = -3.944516e-24;
    let triangle = Shape::triangle(
        Point::new(0.48501587, 0.4862671, 0.952301),
        Point::new(0.0, -3.9445333e-24, tiny),
        Point::new(tiny, tiny, -0.0008078614),
    )
    .unwrap();
    let at = Isometry::identity();
    let parrys =
        sprung_collision::parry3d::query::distance(&at, ball.as_parry(), &at, triangle.as_parry())
            .unwrap();
    assert_eq!(parrys, 0.0);
    assert!(dispatch::intersects(&ball, &at, &triangle, &at));
    let ours = dispatch::distance(&ball, &at, &triangle, &at);
    assert_eq!(ours.separation, 0.0, "{ours:?}");
    let theirs = sprung_collision::parry3d::query::contact(
        &at,
        ball.as_parry(),
        &at,
        triangle.as_parry(),
        1.0,
    )
    .unwrap()
    .unwrap();
    let c = epa::contact(&ball, &at, &triangle, &at, 1.0).unwrap();
    assert!(
        (c.separation - theirs.dist).abs() < 1e-3,
        "ours {c:?}, parry3d's {theirs:?}"
    );
    assert!((c.normal.norm() - 1.0).abs() < 1e-5, "{c:?}");
}

//! Contacts with static level geometry against known answers: half-spaces in closed form, flat
//! triangle cores against parry3d's queries, tessellated floors that must give the contact of one
//! slab (no sideways normal at a seam), convex ridges that must keep their edge normal, and
//! degenerate level shapes refused with typed errors.

mod common;

use common::{shape, Rng, KINDS};
use smallvec::SmallVec;
use sprung_collision::contact::Manifold;
use sprung_collision::dispatch::{manifold, manifolds};
use sprung_collision::parry3d::math::{Isometry, Point, Real, Vector};
use sprung_collision::parry3d::na::DMatrix;
use sprung_collision::shape::{Shape, ShapeError, HALF_SPACE_EXTENT};
use sprung_collision::{dispatch, epa};

const MARGIN: Real = 0.02;

fn all(a: &Shape, pa: &Isometry<Real>, b: &Shape, pb: &Isometry<Real>) -> Vec<Manifold> {
    let mut out: SmallVec<[Manifold; 1]> = SmallVec::new();
    manifolds(a, pa, b, pb, MARGIN, &mut out);
    out.into_vec()
}

/// A flat floor at y = 0 of `n` x `n` quads of `size` m, two triangles each, centred on the
/// origin and facing up.
fn grid_floor(n: usize, size: Real) -> Shape {
    let half = n as Real * size * 0.5;
    let mut vertices = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            vertices.push(Point::new(
                j as Real * size - half,
                0.0,
                i as Real * size - half,
            ));
        }
    }
    let at = |i: usize, j: usize| (i * (n + 1) + j) as u32;
    let mut indices = Vec::new();
    for i in 0..n {
        for j in 0..n {
            // Counter-clockwise seen from above (+y): z grows "down" the screen.
            indices.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    Shape::trimesh(vertices, indices).unwrap()
}

#[test]
fn a_box_on_a_half_space_gets_its_four_bottom_corners() {
    let floor = Shape::halfspace(Vector::new(0.0, 2.0, 0.0)).unwrap();
    let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
    let pose = Isometry::translation(3.0, 0.49, -2.0);
    let m = all(&floor, &Isometry::identity(), &cube, &pose);
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].normal, Vector::y());
    assert_eq!(m[0].points.len(), 4);
    for p in &m[0].points {
        assert!((p.separation + 0.01).abs() < 1e-6, "{p:?}");
        assert!(p.point_a.y.abs() < 1e-6 && (p.point_b.y + 0.01).abs() < 1e-6);
    }
    // The other order: the normal turns round, the points swap.
    let flipped = all(&cube, &pose, &floor, &Isometry::identity());
    assert_eq!(flipped[0].normal, -Vector::y());
    assert!(flipped[0].points.iter().all(|p| p.point_b.y.abs() < 1e-6));
}

#[test]
fn half_space_contacts_are_the_support_points_within_the_margin() {
    // A tilted plane through (0, 1, 0): the distance of every shape is known in closed form.
    let n = Vector::new(0.3, 1.0, -0.2).normalize();
    let plane = Shape::halfspace(n).unwrap();
    let plane_pose = Isometry::translation(0.0, 1.0, 0.0);
    let ball = Shape::sphere(0.4).unwrap();
    // A point of the plane two metres along it, then 0.39 m out: 1 cm into the ball's radius.
    let along = n.cross(&Vector::z()).normalize() * 2.0;
    let centre = Point::new(0.0, 1.0, 0.0) + along + n * 0.39;
    let m = all(
        &plane,
        &plane_pose,
        &ball,
        &Isometry::translation(centre.x, centre.y, centre.z),
    );
    assert_eq!(m[0].points.len(), 1);
    assert!((m[0].points[0].separation + 0.01).abs() < 1e-5);
    assert!((m[0].normal - n).norm() < 1e-6);
    // A capsule lying along the plane: both ends; standing on it: the lower end only.
    let capsule = Shape::capsule(1.0, 0.25).unwrap();
    let lying = Isometry::rotation(Vector::z() * std::f32::consts::FRAC_PI_2);
    let flat_floor = Shape::halfspace(Vector::y()).unwrap();
    let at = |y: Real, r: Isometry<Real>| {
        Isometry::from_parts(Vector::new(0.0, y, 0.0).into(), r.rotation)
    };
    let m = all(
        &flat_floor,
        &Isometry::identity(),
        &capsule,
        &at(0.245, lying),
    );
    assert_eq!(m[0].points.len(), 2);
    let m = all(
        &flat_floor,
        &Isometry::identity(),
        &capsule,
        &at(1.245, Isometry::identity()),
    );
    assert_eq!(m[0].points.len(), 1);
    assert!((m[0].points[0].separation + 0.005).abs() < 1e-5);
    // Farther than the margin: nothing.
    assert!(all(
        &flat_floor,
        &Isometry::identity(),
        &ball,
        &Isometry::translation(0.0, 0.5, 0.0)
    )
    .is_empty());
}

#[test]
fn a_half_space_box_is_huge_but_finite() {
    let floor = Shape::halfspace(Vector::y()).unwrap();
    let aabb = floor.aabb(&Isometry::translation(0.0, -1.0, 0.0));
    assert_eq!(aabb.maxs.y, -1.0);
    assert_eq!(aabb.mins.y, -HALF_SPACE_EXTENT);
    assert_eq!(aabb.maxs.x, HALF_SPACE_EXTENT);
    let tilted = Shape::halfspace(Vector::new(1.0, 1.0, 0.0)).unwrap();
    let aabb = tilted.aabb(&Isometry::identity());
    assert!(aabb
        .mins
        .iter()
        .chain(aabb.maxs.iter())
        .all(|x| x.is_finite()));
}

#[test]
fn a_triangle_core_meets_gjk_and_epa_like_parry() {
    let triangle = Shape::triangle(
        Point::new(-1.0, 0.0, -1.0),
        Point::new(0.0, 0.0, 1.5),
        Point::new(1.2, 0.1, -0.8),
    )
    .unwrap();
    let shapes = [
        Shape::sphere(0.3).unwrap(),
        Shape::cuboid(Vector::new(0.3, 0.2, 0.4)).unwrap(),
        Shape::capsule(0.5, 0.2).unwrap(),
    ];
    let tri_pose = Isometry::new(Vector::new(0.1, -0.2, 0.3), Vector::new(0.1, 0.2, -0.1));
    for shape in &shapes {
        for (k, offset) in [
            Vector::new(0.1, 0.6, 0.0),   // apart, over the face
            Vector::new(0.0, 0.15, 0.2),  // overlapping the face
            Vector::new(-1.3, 0.1, -1.2), // near a corner
            Vector::new(0.6, 0.1, 0.9),   // near an edge
        ]
        .into_iter()
        .enumerate()
        {
            let pose = Isometry::new(tri_pose * offset, Vector::new(0.3, -0.4, 0.2));
            let ours = dispatch::distance(&triangle, &tri_pose, shape, &pose);
            let theirs = sprung_collision::parry3d::query::distance(
                &tri_pose,
                triangle.as_parry(),
                &pose,
                shape.as_parry(),
            )
            .unwrap();
            assert!(
                (ours.separation - theirs).abs() < 1e-4,
                "case {k}: {ours:?} vs {theirs}"
            );
            if let Some(c) = epa::contact(&triangle, &tri_pose, shape, &pose, 1.0) {
                let theirs = sprung_collision::parry3d::query::contact(
                    &tri_pose,
                    triangle.as_parry(),
                    &pose,
                    shape.as_parry(),
                    1.0,
                )
                .unwrap()
                .unwrap();
                // Overlapping a flat triangle: depth is the least push out along either side,
                // which parry3d measures the same way for a triangle.
                assert!(
                    (c.separation - theirs.dist).abs() < 1e-3,
                    "case {k} {shape:?}: ours {} theirs {}",
                    c.separation,
                    theirs.dist
                );
            }
        }
    }
}

#[test]
fn a_box_across_seams_of_a_flat_floor_gets_one_manifold_straight_up() {
    let floor = grid_floor(8, 1.0);
    let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
    // Straddling four quads (eight triangles), a corner 1 mm past a seam, turned a little.
    for pose in [
        Isometry::translation(0.001, 0.495, 0.3),
        Isometry::translation(0.5, 0.495, 0.5),
        Isometry::new(Vector::new(0.2, 0.495, -0.3), Vector::y() * 0.4),
        Isometry::translation(-0.499, 0.5 + 0.01, 0.0), // speculative: 1 cm above
    ] {
        let m = all(&floor, &Isometry::identity(), &cube, &pose);
        assert_eq!(m.len(), 1, "{pose:?}: {m:#?}");
        assert!(
            (m[0].normal - Vector::y()).norm() < 1e-5,
            "{:?}",
            m[0].normal
        );
        assert_eq!(m[0].points.len(), 4, "{pose:?}");
        let expected = pose.translation.vector.y - 0.5;
        for p in &m[0].points {
            assert!((p.separation - expected).abs() < 1e-5, "{p:?}");
        }
    }
}

/// Sweeps a small box, resting 2 mm deep and turned a little, across the seams of `floor`
/// (whose surface is y = `top`) in 6 mm steps: at every position the only normal is straight up.
fn sweep_sees_only_up(floor: &Shape, top: Real) {
    let cube = Shape::cuboid(Vector::new(0.25, 0.25, 0.25)).unwrap();
    for i in 0..200 {
        let x = -0.6 + i as Real * 0.006;
        let pose = Isometry::new(Vector::new(x, top + 0.248, 0.31), Vector::y() * 0.2);
        let m = all(floor, &Isometry::identity(), &cube, &pose);
        assert_eq!(m.len(), 1, "x = {x}");
        assert!(
            (m[0].normal - Vector::y()).norm() < 1e-5,
            "x = {x}: {:?}",
            m[0].normal
        );
    }
}

#[test]
fn a_box_sliding_past_a_seam_never_sees_a_sideways_normal() {
    sweep_sees_only_up(&grid_floor(4, 1.0), 0.0);
}

#[test]
fn a_triangle_soup_floor_finds_its_seams_by_merging_vertices() {
    // Every triangle with its own three vertices: the seams are found all the same.
    let Shape::TriMesh(grid) = grid_floor(4, 1.0) else {
        unreachable!()
    };
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for t in grid.triangles() {
        let base = vertices.len() as u32;
        vertices.extend([t.a, t.b, t.c]);
        indices.push([base, base + 1, base + 2]);
    }
    sweep_sees_only_up(&Shape::trimesh(vertices, indices).unwrap(), 0.0);
}

#[test]
fn a_box_sliding_over_a_flat_height_field_never_sees_a_sideways_normal() {
    let field = Shape::heightfield(
        DMatrix::from_element(5, 5, 0.25),
        Vector::new(4.0, 2.0, 4.0),
    )
    .unwrap();
    sweep_sees_only_up(&field, 0.5);
}

#[test]
fn a_ball_on_a_convex_ridge_keeps_the_edge_normal() {
    // A roof: two faces meeting at a ridge along z at x = 0, y = 1, sloping down at 45 degrees.
    let vertices = vec![
        Point::new(-1.0, 0.0, -1.0),
        Point::new(-1.0, 0.0, 1.0),
        Point::new(0.0, 1.0, 1.0),
        Point::new(0.0, 1.0, -1.0),
        Point::new(1.0, 0.0, 1.0),
        Point::new(1.0, 0.0, -1.0),
    ];
    let roof = Shape::trimesh(vertices, vec![[0, 1, 2], [0, 2, 3], [3, 2, 4], [3, 4, 5]]).unwrap();
    let ball = Shape::sphere(0.2).unwrap();
    let m = all(
        &roof,
        &Isometry::identity(),
        &ball,
        &Isometry::translation(0.0, 1.19, 0.0),
    );
    assert!(!m.is_empty());
    // Straight above the ridge the nearest point is the ridge itself: the normal is straight up,
    // between the two faces' normals, not either face's.
    for manifold in &m {
        assert!(
            (manifold.normal - Vector::y()).norm() < 1e-3,
            "{:?}",
            manifold.normal
        );
        assert!((manifold.points[0].separation + 0.01).abs() < 1e-4);
    }
}

#[test]
fn a_ball_in_a_concave_crease_is_held_by_both_faces() {
    // A V valley along z: faces rising at 45 degrees on each side of x = 0.
    let vertices = vec![
        Point::new(-1.0, 1.0, -1.0),
        Point::new(-1.0, 1.0, 1.0),
        Point::new(0.0, 0.0, 1.0),
        Point::new(0.0, 0.0, -1.0),
        Point::new(1.0, 1.0, 1.0),
        Point::new(1.0, 1.0, -1.0),
    ];
    let valley =
        Shape::trimesh(vertices, vec![[0, 1, 2], [0, 2, 3], [3, 2, 4], [3, 4, 5]]).unwrap();
    let ball = Shape::sphere(0.2).unwrap();
    // Resting in the crease: centre 0.2 * sqrt(2) above the bottom, touching both faces.
    let y = 0.2 * std::f32::consts::SQRT_2 - 0.001;
    let m = all(
        &valley,
        &Isometry::identity(),
        &ball,
        &Isometry::translation(0.0, y, 0.0),
    );
    assert_eq!(m.len(), 2, "{m:#?}");
    let s = std::f32::consts::FRAC_1_SQRT_2;
    for manifold in &m {
        assert!((manifold.normal.y - s).abs() < 1e-4 && (manifold.normal.x.abs() - s).abs() < 1e-4);
    }
}

#[test]
fn a_shape_behind_a_mesh_face_gets_no_contact() {
    let floor = grid_floor(2, 1.0);
    let ball = Shape::sphere(0.3).unwrap();
    // Under the floor, mostly through it: one-sided, so no push up through the face.
    let m = all(
        &floor,
        &Isometry::identity(),
        &ball,
        &Isometry::translation(0.2, -0.25, 0.2),
    );
    assert!(m.is_empty(), "{m:#?}");
}

#[test]
fn a_box_on_a_flat_height_field_gets_one_manifold() {
    let field =
        Shape::heightfield(DMatrix::from_element(9, 9, 0.5), Vector::new(8.0, 2.0, 8.0)).unwrap();
    let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
    let pose = Isometry::new(Vector::new(0.3, 1.495, -0.2), Vector::y() * 0.3);
    let m = all(&field, &Isometry::identity(), &cube, &pose);
    assert_eq!(m.len(), 1, "{m:#?}");
    assert!((m[0].normal - Vector::y()).norm() < 1e-5);
    assert_eq!(m[0].points.len(), 4);
    assert!(m[0]
        .points
        .iter()
        .all(|p| (p.separation + 0.005).abs() < 1e-5));
    // The single-manifold entry point keeps the deepest.
    let mut one = Manifold::default();
    manifold(
        &field,
        &Isometry::identity(),
        &cube,
        &pose,
        MARGIN,
        &mut one,
    );
    assert_eq!(one.points.len(), 4);
}

#[test]
fn level_shapes_against_each_other_give_nothing() {
    let floor = Shape::halfspace(Vector::y()).unwrap();
    let mesh = grid_floor(2, 1.0);
    assert!(all(&floor, &Isometry::identity(), &mesh, &Isometry::identity()).is_empty());
}

#[test]
fn degenerate_level_shapes_are_typed_errors() {
    let p = Point::new;
    assert_eq!(
        Shape::halfspace(Vector::zeros()).unwrap_err(),
        ShapeError::ZeroNormal
    );
    assert_eq!(
        Shape::halfspace(Vector::new(0.0, Real::NAN, 0.0)).unwrap_err(),
        ShapeError::NonFinite
    );
    assert_eq!(
        Shape::trimesh(vec![], vec![]).unwrap_err(),
        ShapeError::EmptyMesh
    );
    let tri = vec![p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 0.0, 1.0)];
    assert_eq!(
        Shape::trimesh(tri.clone(), vec![]).unwrap_err(),
        ShapeError::EmptyMesh
    );
    assert_eq!(
        Shape::trimesh(tri.clone(), vec![[0, 1, 3]]).unwrap_err(),
        ShapeError::IndexOutOfRange
    );
    assert_eq!(
        Shape::trimesh(tri.clone(), vec![[0, 1, 1]]).unwrap_err(),
        ShapeError::DegenerateMesh
    );
    let collinear = vec![p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(2.0, 0.0, 0.0)];
    assert_eq!(
        Shape::trimesh(collinear, vec![[0, 1, 2]]).unwrap_err(),
        ShapeError::DegenerateMesh
    );
    let mut bad = tri.clone();
    bad[1].y = Real::NAN;
    assert_eq!(
        Shape::trimesh(bad, vec![[0, 1, 2]]).unwrap_err(),
        ShapeError::NonFinite
    );
    // One good triangle among degenerate ones is a mesh.
    assert!(Shape::trimesh(tri, vec![[0, 1, 2], [0, 0, 0]]).is_ok());

    let one = Vector::new(1.0, 1.0, 1.0);
    for (rows, cols) in [(0, 0), (1, 5), (5, 1)] {
        assert_eq!(
            Shape::heightfield(DMatrix::zeros(rows, cols), one).unwrap_err(),
            ShapeError::HeightFieldTooSmall
        );
    }
    let mut nan = DMatrix::zeros(3, 3);
    nan[(1, 1)] = Real::NAN;
    assert_eq!(
        Shape::heightfield(nan, one).unwrap_err(),
        ShapeError::NonFinite
    );
    assert_eq!(
        Shape::heightfield(DMatrix::zeros(3, 3), Vector::new(1.0, 0.0, 1.0)).unwrap_err(),
        ShapeError::NonPositive
    );
    assert_eq!(
        Shape::triangle(p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0), p(2.0, 2.0, 2.0)).unwrap_err(),
        ShapeError::DegenerateMesh
    );
}

#[test]
fn stray_queries_on_level_shapes_stay_finite() {
    // GJK and EPA are not meant for level shapes; asked anyway, they answer finite numbers.
    let floor = Shape::halfspace(Vector::y()).unwrap();
    let mesh = grid_floor(2, 1.0);
    let ball = Shape::sphere(0.5).unwrap();
    for level in [&floor, &mesh] {
        let d = dispatch::distance(
            level,
            &Isometry::identity(),
            &ball,
            &Isometry::translation(0.0, 0.4, 0.0),
        );
        assert!(d.separation.is_finite());
        assert!(level.mass_properties(1000.0).mass() == 0.0);
        assert!(level.is_static_only());
    }
}

#[test]
fn random_shapes_on_level_geometry_give_finite_small_manifolds() {
    // Every convex kind at random poses over a bumpy height field, a mesh bowl and a tilted
    // half-space, both orders: no panic, finite numbers, unit normals, at most 4 points each,
    // nothing deeper than the shape could sink.
    let mut rng = Rng(0x5EED_1E7E1);
    let field = Shape::heightfield(
        DMatrix::from_fn(9, 9, |i, j| 0.3 * ((i * 7 + j * 3) % 5) as Real),
        Vector::new(6.0, 1.0, 6.0),
    )
    .unwrap();
    let Shape::TriMesh(grid) = grid_floor(6, 1.0) else {
        unreachable!()
    };
    let bowl_vertices: Vec<Point<Real>> = grid
        .vertices()
        .iter()
        .map(|p| Point::new(p.x, 0.2 * (p.x * p.x + p.z * p.z), p.z))
        .collect();
    let bowl = Shape::trimesh(bowl_vertices, grid.indices().to_vec()).unwrap();
    let plane = Shape::halfspace(Vector::new(0.2, 1.0, 0.1)).unwrap();
    let levels = [&field, &bowl, &plane];
    for round in 0..3000 {
        let kind = round % KINDS.len();
        let convex = shape(&mut rng, kind);
        let level = levels[round % levels.len()];
        let pose = rng.pose(2.0);
        let pose = Isometry::from_parts(
            (pose.translation.vector + Vector::y() * rng.range(-0.5, 1.5)).into(),
            pose.rotation,
        );
        let level_pose = Isometry::translation(0.0, rng.range(-0.2, 0.2), 0.0);
        for (m, flipped) in [
            (all(level, &level_pose, &convex, &pose), false),
            (all(&convex, &pose, level, &level_pose), true),
        ] {
            for manifold in &m {
                assert!((manifold.normal.norm() - 1.0).abs() < 1e-3, "{manifold:?}");
                assert!(!manifold.points.is_empty() && manifold.points.len() <= 4);
                for p in &manifold.points {
                    let finite = |q: &Point<Real>| q.iter().all(|x| x.is_finite());
                    assert!(finite(&p.point_a) && finite(&p.point_b), "{p:?}");
                    assert!(p.separation <= MARGIN + 1e-5, "{p:?}");
                    assert!(
                        p.separation >= -4.0,
                        "round {round} flipped {flipped}: {p:?}"
                    );
                }
            }
        }
    }
}

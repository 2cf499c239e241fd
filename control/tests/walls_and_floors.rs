//! Walls, corners and floors with seams, held at every step: walking into a wall at an angle
//! theta between the goal velocity and the wall it slides along at v cos(theta); into a 90 and
//! a 30 degree corner it stops (less than 0.1 mm a step); over a floor of tiled boxes and over a
//! triangle mesh it keeps |v_y| < 1 mm/s and never loses the ground; nothing ever comes nearer
//! than half the skin.

mod common;

use common::*;
use sprung::math::{Isometry, Point, Real, UnitQuaternion, Vector};
use sprung::{ColliderBuilder, QueryFilter, World};
use sprung_control::CharacterSettings;

const V: Real = 3.0;

/// A character standing on the floor of `world` at `at` (x, z), already walking at `goal`.
fn walker(world: &mut World, x: Real, z: Real, goal: Vector<Real>) -> sprung_control::Character {
    let mut hero = character(Point::new(x, REST, z), CharacterSettings::default());
    hero.update(world, Vector::zeros(), DT, &QueryFilter::new())
        .unwrap();
    assert!(hero.is_grounded());
    hero.set_walk_velocity(goal);
    hero
}

#[test]
fn into_a_wall_at_an_angle_it_slides_along_at_v_cos_theta() {
    let filter = QueryFilter::new();
    for degrees in [10.0, 30.0, 45.0, 60.0, 80.0] {
        let theta = (degrees as Real).to_radians();
        let mut world = flat_world();
        // A wall whose face is the plane x = 1, facing -x.
        fixed(
            &mut world,
            Isometry::translation(1.5, 2.0, 0.0),
            ColliderBuilder::cuboid(0.5, 2.0, 50.0),
        );
        let goal = Vector::new(theta.sin(), 0.0, theta.cos()) * V;
        let mut hero = walker(&mut world, 0.0, 0.0, goal);
        let (mut sliding, mut at_wall) = (0, false);
        for step in 0..120 {
            hero.update(&mut world, goal, DT, &filter).unwrap();
            keeps_skin(&world, &hero, &format!("{degrees} deg"));
            assert!(hero.is_grounded(), "{degrees} deg, step {step}");
            let gap = 1.0 - (hero.position().x + RADIUS);
            if at_wall {
                // Held a skin from the wall since the last step: along it at v cos(theta).
                sliding += 1;
                let v = hero.velocity();
                let expected = V * theta.cos();
                assert!(
                    (v.z - expected).abs() < 0.01 * expected,
                    "{degrees} deg, step {step}: {} vs {expected}",
                    v.z
                );
                assert!(v.x.abs() < 1e-3, "{degrees} deg: {}", v.x);
                assert!(
                    (gap - SKIN).abs() < 1e-4,
                    "{degrees} deg: {gap} from the wall"
                );
            }
            at_wall = (gap - SKIN).abs() < 1e-4;
        }
        assert!(
            sliding > 30,
            "{degrees} deg: reached the wall for {sliding} steps"
        );
    }
}

/// Two half-space walls meeting along a vertical line at `corner`, `angle` (rad) apart, the
/// opening towards -x, and a half-space floor.
fn wedge(angle: Real, corner: Point<Real>) -> World {
    let mut world = World::default();
    fixed(
        &mut world,
        Isometry::identity(),
        ColliderBuilder::halfspace(Vector::y()),
    );
    for side in [1.0, -1.0] {
        // Each wall's inward normal points into the wedge: -x turned by (pi - angle) / 2 each way.
        let turn = UnitQuaternion::from_axis_angle(
            &Vector::y_axis(),
            side * (std::f32::consts::PI - angle) / 2.0,
        );
        let normal = turn * -Vector::x();
        fixed(
            &mut world,
            Isometry::translation(corner.x, corner.y, corner.z),
            ColliderBuilder::halfspace(normal),
        );
    }
    world
}

#[test]
fn into_90_and_30_degree_corners_it_stops() {
    let filter = QueryFilter::new();
    for degrees in [90.0, 30.0] {
        let corner = Point::new(3.0, 0.0, 0.0);
        let mut world = wedge((degrees as Real).to_radians(), corner);
        // Into the corner along the wedge's bisector, a little off it so that one wall comes first.
        let goal = Vector::new(1.0, 0.0, 0.1).normalize() * V;
        let mut hero = walker(&mut world, 0.0, 0.0, goal);
        let mut stopped = 0;
        let mut last = hero.position();
        for step in 0..240 {
            hero.update(&mut world, goal, DT, &filter).unwrap();
            keeps_skin(&world, &hero, &format!("{degrees} deg corner"));
            assert!(hero.is_grounded(), "{degrees} deg, step {step}");
            let moved = (hero.position() - last).norm();
            last = hero.position();
            if step >= 120 {
                assert!(
                    moved < 1e-4,
                    "{degrees} deg corner, step {step}: moved {moved} m"
                );
                stopped += 1;
            }
        }
        assert_eq!(stopped, 120);
        // It went in as far as the skin lets it: half a skin to a skin from both walls.
        let near = clearance(&world, &hero);
        assert!(
            near < SKIN + 1e-4,
            "{degrees} deg: stopped {near} m from the walls"
        );
    }
}

/// Walks 10 m along +x at 3 m/s over `world` from (-5, z) and checks every step.
fn walk_ten_metres(world: &mut World, z: Real, what: &str) {
    let filter = QueryFilter::new();
    let goal = Vector::new(V, 0.0, 0.0);
    let mut hero = walker(world, -5.0, z, goal);
    let x0 = hero.position().x;
    let y0 = hero.position().y;
    let mut step = 0;
    while hero.position().x - x0 < 10.0 {
        hero.update(world, goal, DT, &filter).unwrap();
        keeps_skin(world, &hero, what);
        assert!(hero.is_grounded(), "{what}, step {step}: lost the ground");
        let vy = hero.velocity().y;
        assert!(
            vy.abs() < 1e-3,
            "{what}, step {step}: v_y {vy} at {:?}",
            hero.position()
        );
        assert!((hero.position().y - y0).abs() < 1e-4, "{what}, step {step}");
        step += 1;
        assert!(step < 300, "{what}: did not cover 10 m");
    }
}

#[test]
fn over_tiled_boxes_and_a_triangle_mesh_it_keeps_the_ground_without_bumps() {
    // Forty 0.5 m tiles in a row, top at y = 0; walked along their row and across a seam line.
    let mut tiles = World::default();
    for i in 0..40 {
        for j in 0..4 {
            fixed(
                &mut tiles,
                Isometry::translation(-10.0 + 0.5 * i as Real, -0.25, -1.0 + 0.5 * j as Real),
                ColliderBuilder::cuboid(0.25, 0.25, 0.25),
            );
        }
    }
    walk_ten_metres(&mut tiles, 0.0, "tiles on a seam");
    walk_ten_metres(&mut tiles, 0.1, "tiles");

    // A 24 m square of 0.5 m quads, two triangles each.
    let (n, size) = (48usize, 0.5);
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
            indices.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    let mut mesh = World::default();
    fixed(
        &mut mesh,
        Isometry::identity(),
        ColliderBuilder::trimesh(vertices, indices),
    );
    walk_ten_metres(&mut mesh, 0.0, "mesh on an edge line");
    walk_ten_metres(&mut mesh, 0.13, "mesh");
}

//! Static level geometry against known answers: a box sliding over a floor of 3200 triangles
//! decelerates exactly as on one slab (mu g, no snag at the seams); bodies rest on a height field
//! at the height its triangles have there; a sphere rolls down a sloped height field at
//! (5/7) g sin(theta); a cube and a sphere rest on a half-space, and on a tilted one a box stays
//! when tan(theta) < mu and otherwise slides at g (sin - mu cos); a ball settles at the bottom
//! of a mesh bowl; bad level geometry is refused with typed errors.

mod common;

use sprung::collision::shape::ShapeError;
use sprung::math::{Point, Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, Error, Event, RigidBodyBuilder, World};

use parry3d::na::DMatrix;

const DT: Real = 1.0 / 60.0;
const G: Real = 9.81;

/// A square grid of `n` x `n` quads of `size` m centred on the origin, two triangles each,
/// counter-clockwise seen from above, at the heights `height(x, z)`.
fn grid(n: usize, size: Real, height: impl Fn(Real, Real) -> Real) -> ColliderBuilder {
    let half = n as Real * size * 0.5;
    let mut vertices = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            let (x, z) = (j as Real * size - half, i as Real * size - half);
            vertices.push(Point::new(x, height(x, z), z));
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
    ColliderBuilder::trimesh(vertices, indices)
}

fn fixed(world: &mut World, collider: ColliderBuilder) -> BodyHandle {
    let body = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    world.add_collider(collider, body).unwrap();
    body
}

/// Speeds, step by step, of a 1 m cube launched at `v0` along `direction` on `floor`, friction
/// `mu` on both; also the largest vertical and angular speeds seen (a snag shows there).
fn slide(
    floor: ColliderBuilder,
    mu: Real,
    v0: Real,
    direction: Vector<Real>,
) -> (Vec<Real>, Real, Real) {
    let mut world = World::default();
    fixed(&mut world, floor.friction(mu));
    let cube = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(-6.3, 0.5, -2.2))
                .linear_velocity(direction * v0),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5).friction(mu), cube)
        .unwrap();
    let (mut speeds, mut vertical, mut spin): (Vec<Real>, Real, Real) = (Vec::new(), 0.0, 0.0);
    for _ in 0..150 {
        world.step(DT).unwrap();
        let body = world.body(cube).unwrap();
        speeds.push(body.linear_velocity().dot(&direction));
        vertical = vertical.max(body.linear_velocity().y.abs());
        spin = spin.max(body.angular_velocity().norm());
    }
    (speeds, vertical, spin)
}

/// The largest relative difference of two speed histories while the formula's speed is above
/// 1 m/s (well clear of stopping), and of the first from `v0 - mu g t`.
fn worst_differences(first: &[Real], second: &[Real], v0: Real, mu: Real) -> (Real, Real) {
    let (mut between, mut formula_worst): (Real, Real) = (0.0, 0.0);
    for (k, (a, b)) in first.iter().zip(second).enumerate() {
        let t = (k + 1) as Real * DT;
        let formula = v0 - mu * G * t;
        if formula > 1.0 {
            between = between.max((a - b).abs() / b);
            formula_worst = formula_worst.max((a - formula).abs() / formula);
        }
    }
    (between, formula_worst)
}

#[test]
fn a_box_slides_over_3200_triangles_as_over_one_slab() {
    let (mu, v0) = (0.3, 6.0);
    // 40 x 40 quads of 1 m: 3200 triangles, their seams every metre in x, z and diagonally.
    let mesh = || grid(40, 1.0, |_, _| 0.0);
    let slab = || ColliderBuilder::cuboid(20.0, 1.0, 20.0).translation(Vector::new(0.0, -1.0, 0.0));
    // Along x: over the seams at every metre and every diagonal, along the seam at z = -2.
    let x = Vector::x();
    let (on_mesh, vertical, spin) = slide(mesh(), mu, v0, x);
    let (on_slab, _, _) = slide(slab(), mu, v0, x);
    let (between, formula) = worst_differences(&on_mesh, &on_slab, v0, mu);
    println!(
        "along x: mesh vs slab {:.3} %, mesh vs v0 - mu g t {:.3} %",
        between * 100.0,
        formula * 100.0
    );
    assert!(
        between < 0.02,
        "mesh and slab differ by {} %",
        between * 100.0
    );
    assert!(
        formula < 0.02,
        "mesh and mu g differ by {} %",
        formula * 100.0
    );
    assert!(on_mesh.last().unwrap().abs() < 0.01 && on_slab.last().unwrap().abs() < 0.01);
    // No hop, no tumble at the seams.
    assert!(vertical < 0.05, "vertical speed {vertical} m/s");
    assert!(spin < 0.05, "spin {spin} rad/s");

    // Across the grid at an angle, crossing seams of every direction: mesh and slab agree.
    // (Not against mu g: the solver clamps the two friction rows each to mu N, a box rather
    // than a circle, so a diagonal slide decelerates faster than mu g on any floor.)
    let slant = Vector::new(1.0, 0.0, 0.37).normalize();
    let (on_mesh, vertical, spin) = slide(mesh(), mu, v0, slant);
    let (on_slab, _, _) = slide(slab(), mu, v0, slant);
    let (between, _) = worst_differences(&on_mesh, &on_slab, v0, mu);
    println!("slanted: mesh vs slab {:.3} %", between * 100.0);
    assert!(
        between < 0.02,
        "slanted: mesh and slab differ by {} %",
        between * 100.0
    );
    assert!(
        vertical < 0.05 && spin < 0.05,
        "slanted: {vertical} m/s, {spin} rad/s"
    );
}

/// The height field's surface height and unit normal at (x, z), found independently of the engine:
/// the cell under the point, split along its (x0, z1)-(x1, z0) diagonal, linear on each half.
fn field_surface(
    heights: &DMatrix<Real>,
    scale: Vector<Real>,
    x: Real,
    z: Real,
) -> (Real, Vector<Real>) {
    let (rows, cols) = (heights.nrows(), heights.ncols());
    let (w, d) = (scale.x / (cols - 1) as Real, scale.z / (rows - 1) as Real);
    let (fx, fz) = ((x + scale.x / 2.0) / w, (z + scale.z / 2.0) / d);
    let (j, i) = (fx.floor() as usize, fz.floor() as usize);
    let (u, v) = (fx - j as Real, fz - i as Real);
    let y = |i: usize, j: usize| heights[(i, j)] * scale.y;
    let (y00, y10, y01, y11) = (y(i, j), y(i + 1, j), y(i, j + 1), y(i + 1, j + 1));
    // Slopes dy/dx and dy/dz of the half that holds the point.
    let (h, sx, sz) = if u + v <= 1.0 {
        let (sx, sz) = ((y01 - y00) / w, (y10 - y00) / d);
        (y00 + u * (y01 - y00) + v * (y10 - y00), sx, sz)
    } else {
        let (sx, sz) = ((y11 - y10) / w, (y11 - y01) / d);
        (
            y11 + (1.0 - u) * (y10 - y11) + (1.0 - v) * (y01 - y11),
            sx,
            sz,
        )
    };
    (h, Vector::new(-sx, 1.0, -sz).normalize())
}

#[test]
fn a_box_rests_on_a_height_field_at_the_fields_height() {
    // 21 x 21 samples over 20 m: 1 m cells of gentle hills (slopes under 0.25).
    let heights = DMatrix::from_fn(21, 21, |i, j| {
        0.6 * (0.35 * i as Real).sin() + 0.4 * (0.3 * j as Real).cos()
    });
    let scale = Vector::new(20.0, 1.0, 20.0);
    let mut world = World::default();
    fixed(
        &mut world,
        ColliderBuilder::heightfield(heights.clone(), scale).friction(1.0),
    );
    let half = 0.1;
    let mut boxes = Vec::new();
    for (x, z) in [(1.3, -2.7), (-4.6, 3.2), (6.25, 6.6)] {
        let (h, _) = field_surface(&heights, scale, x, z);
        let body = world
            .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(x, h + 0.4, z)))
            .unwrap();
        world
            .add_collider(
                ColliderBuilder::cuboid(half, half, half).friction(1.0),
                body,
            )
            .unwrap();
        boxes.push(body);
    }
    for _ in 0..240 {
        world.step(DT).unwrap();
    }
    for body in boxes {
        let c = world.body(body).unwrap().translation();
        // Flat on its triangle: the centre is `half` from the plane along the normal, so
        // `half / n.y` above the surface straight below it.
        let (h, n) = field_surface(&heights, scale, c.x, c.z);
        let expected = h + half / n.y;
        assert!(
            (c.y - expected).abs() < 0.004,
            "box at ({}, {}): y {} but the field says {expected}",
            c.x,
            c.z,
            c.y
        );
        assert!(world.body(body).unwrap().linear_velocity().norm() < 0.01);
    }
}

#[test]
fn a_sphere_rolls_down_a_sloped_height_field_at_five_sevenths_g_sin_theta_less_rolling_resistance()
{
    // A plane rising along +x, 12 x 12 cells: every cell crossed is two more seams.
    let slope = 0.3;
    let heights = DMatrix::from_fn(13, 13, |_, j| slope * (j as Real - 6.0));
    let scale = Vector::new(24.0, 2.0, 24.0); // cells 2 m wide: height rises 0.6 per 2 m
    let theta = (slope * scale.y / (scale.x / 12.0)).atan();
    let mut world = World::default();
    fixed(
        &mut world,
        ColliderBuilder::heightfield(heights, scale).friction(0.6),
    );
    let r = 0.4;
    let n = Vector::new(-theta.sin(), theta.cos(), 0.0);
    let start = Vector::new(8.0, 8.0 * theta.tan(), 0.7) + n * r;
    let ball = world
        .add_body(RigidBodyBuilder::dynamic().translation(start))
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(r).friction(0.6), ball)
        .unwrap();
    let down = Vector::new(-theta.cos(), -theta.sin(), 0.0);
    let speed = |w: &World| w.body(ball).unwrap().linear_velocity().dot(&down);
    for _ in 0..20 {
        world.step(DT).unwrap();
    }
    let v1 = speed(&world);
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let measured = (speed(&world) - v1) / (60.0 * DT);
    // Rolling without slipping against the default rolling resistance `c`, a torque of at
    // most `c r N` with `N = m g cos`: `m a = m g sin - F`, `(2/5) m r^2 a / r = F r - c r N`,
    // so `a = (5/7) g (sin - c cos)`.
    let c = sprung::DEFAULT_ROLLING_RESISTANCE;
    let expected = 5.0 / 7.0 * G * (theta.sin() - c * theta.cos());
    println!("rolling: a = {measured}, (5/7) g (sin - c cos) = {expected}");
    assert!(
        (measured - expected).abs() < 0.002 * expected,
        "a = {measured}, rolling says {expected}"
    );
    // Still on the surface, not bouncing: its distance to the plane is its radius.
    let c = world.body(ball).unwrap().translation();
    let height_over_plane = (c.y - c.x * theta.tan()) * theta.cos();
    assert!((height_over_plane - r).abs() < 0.01, "{height_over_plane}");
}

#[test]
fn a_cube_and_a_sphere_rest_on_a_half_space() {
    let mut world = World::default();
    let floor = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -2.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::halfspace(Vector::y()), floor)
        .unwrap();
    let cube = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 0.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), cube)
        .unwrap();
    let ball = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(3.0, 1.0, 2.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.3), ball)
        .unwrap();
    for _ in 0..300 {
        world.step(DT).unwrap();
    }
    let c = world.body(cube).unwrap();
    assert!(
        (c.translation().y + 1.5).abs() < 0.005,
        "{}",
        c.translation().y
    );
    assert!(c.linear_velocity().norm() < 1e-3);
    let b = world.body(ball).unwrap();
    assert!(
        (b.translation().y + 1.7).abs() < 0.005,
        "{}",
        b.translation().y
    );
    assert!((b.translation().x - 3.0).abs() < 1e-3 && (b.translation().z - 2.0).abs() < 1e-3);
}

/// A half-space tilted by `theta` about Z with a 1 m cube resting on it.
fn tilted(theta: Real, mu: Real) -> (World, BodyHandle, Vector<Real>) {
    common::slope(theta, mu, ColliderBuilder::halfspace(Vector::y()), 0.0)
}

#[test]
fn on_a_twenty_degree_half_space_a_box_stays_at_mu_half_and_slides_at_mu_one_fifth() {
    let theta = 20.0_f32.to_radians();
    let (mut world, cube, _) = tilted(theta, 0.5);
    let moved = common::creep(&mut world, cube, 300, DT);
    assert!(moved < 0.01, "crept {moved} m at mu 0.5");

    let mu = 0.2;
    let (mut world, cube, down) = tilted(theta, mu);
    let measured = common::acceleration_along(&mut world, cube, down);
    let expected = G * (theta.sin() - mu * theta.cos());
    println!("tilted half-space: a = {measured}, Coulomb says {expected}");
    assert!(
        (measured - expected).abs() < 0.02 * expected,
        "a = {measured}, Coulomb says {expected}"
    );
}

#[test]
fn a_ball_dropped_in_a_mesh_bowl_settles_at_its_bottom() {
    // A paraboloid bowl y = 0.25 (x^2 + z^2) over 8 m x 8 m, 16 x 16 quads; its bottom at the
    // origin is a vertex where eight triangles meet.
    let mut world = World::default();
    fixed(&mut world, grid(16, 0.5, |x, z| 0.25 * (x * x + z * z)));
    let r = 0.3;
    let ball = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(1.4, 2.5, -0.9))
                .linear_damping(0.5)
                .angular_damping(0.5),
        )
        .unwrap();
    world.add_collider(ColliderBuilder::ball(r), ball).unwrap();
    for _ in 0..1200 {
        world.step(DT).unwrap();
    }
    let c = world.body(ball).unwrap().translation();
    // At the bottom vertex, the ball touches the eight faces around it: its centre sits a
    // little over r above the vertex, and within a few centimetres of the axis.
    assert!(c.x.hypot(c.z) < 0.05, "ball at {c:?}");
    assert!(c.y > r - 0.01 && c.y < r + 0.05, "ball at {c:?}");
    assert!(world.body(ball).unwrap().linear_velocity().norm() < 0.01);
}

#[test]
fn a_box_on_a_mesh_floor_is_one_contact_and_falls_asleep() {
    let mut world = World::default();
    fixed(&mut world, grid(8, 1.0, |_, _| 0.0));
    // Over the corner where four quads meet.
    let cube = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 1.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), cube)
        .unwrap();
    let mut began = 0;
    let mut asleep = false;
    for _ in 0..240 {
        let report = world.step(DT).unwrap();
        assert!(
            report.contact_pairs <= 1 && report.contact_points <= 4,
            "{report:?}"
        );
        for event in world.drain_events() {
            match event {
                Event::ContactBegan { .. } => began += 1,
                Event::ContactEnded { .. } => panic!("the box never leaves the floor"),
                Event::BodyFellAsleep(_) => asleep = true,
                _ => {}
            }
        }
    }
    assert_eq!(began, 1);
    assert!(asleep && world.body(cube).unwrap().is_sleeping());
    assert!((world.body(cube).unwrap().translation().y - 0.5).abs() < 0.005);
}

#[test]
fn bad_level_geometry_is_refused_with_errors_never_panics() {
    let mut world = World::default();
    let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    let shape = |e: ShapeError| Err(Error::Shape(e));
    let p = Point::new;
    let tri = vec![p(0.0, 0.0, 0.0), p(0.0, 0.0, 1.0), p(1.0, 0.0, 0.0)];
    let cases: Vec<(ColliderBuilder, ShapeError)> = vec![
        (
            ColliderBuilder::halfspace(Vector::zeros()),
            ShapeError::ZeroNormal,
        ),
        (
            ColliderBuilder::halfspace(Vector::new(Real::NAN, 1.0, 0.0)),
            ShapeError::NonFinite,
        ),
        (
            ColliderBuilder::trimesh(vec![], vec![]),
            ShapeError::EmptyMesh,
        ),
        (
            ColliderBuilder::trimesh(tri.clone(), vec![[0, 1, 7]]),
            ShapeError::IndexOutOfRange,
        ),
        (
            ColliderBuilder::trimesh(tri.clone(), vec![[2, 2, 2]]),
            ShapeError::DegenerateMesh,
        ),
        (
            ColliderBuilder::trimesh(vec![p(0.0, Real::INFINITY, 0.0); 3], vec![[0, 1, 2]]),
            ShapeError::NonFinite,
        ),
        (
            ColliderBuilder::heightfield(DMatrix::zeros(0, 0), Vector::new(1.0, 1.0, 1.0)),
            ShapeError::HeightFieldTooSmall,
        ),
        (
            ColliderBuilder::heightfield(DMatrix::zeros(4, 4), Vector::new(0.0, 1.0, 1.0)),
            ShapeError::NonPositive,
        ),
        (
            ColliderBuilder::heightfield(
                DMatrix::from_element(3, 3, Real::NAN),
                Vector::new(1.0, 1.0, 1.0),
            ),
            ShapeError::NonFinite,
        ),
    ];
    for (builder, error) in cases {
        assert_eq!(
            world.add_collider(builder, ground).map(|_| ()),
            shape(error)
        );
    }
    assert!(world.body(ground).unwrap().colliders().is_empty());

    // Level shapes on moving bodies: refused, the body untouched.
    for body in [RigidBodyBuilder::dynamic(), RigidBodyBuilder::kinematic()] {
        let body = world.add_body(body).unwrap();
        for builder in [
            ColliderBuilder::halfspace(Vector::y()),
            ColliderBuilder::trimesh(tri.clone(), vec![[0, 1, 2]]),
            ColliderBuilder::heightfield(DMatrix::zeros(2, 2), Vector::new(1.0, 1.0, 1.0)),
        ] {
            assert_eq!(
                world.add_collider(builder, body).map(|_| ()),
                Err(Error::StaticOnlyShape)
            );
        }
        assert!(world.body(body).unwrap().colliders().is_empty());
    }
    world.step(DT).unwrap();
}

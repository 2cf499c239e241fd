//! World queries against closed forms: a box resting on the ground, rays and sweeps from above.

mod common;

use common::rng::Rng;

use sprung::collision::cast::ray_cast;
use sprung::collision::parry3d::shape::Ball;
use sprung::collision::shape::{Shape, ShapeError};
use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{
    BodyHandle, ColliderBuilder, ColliderHandle, Error, QueryFilter, RigidBodyBuilder, World,
};

/// Ground: a static slab whose top is y = 0. Box: a 1 m dynamic cube resting on it (top y = 1),
/// in collision group 1 only.
struct Scene {
    world: World,
    ground: BodyHandle,
    ground_collider: ColliderHandle,
    cube: BodyHandle,
    cube_collider: ColliderHandle,
}

fn scene() -> Scene {
    let mut world = World::default();
    let ground = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -0.5, 0.0)))
        .unwrap();
    let ground_collider = world
        .add_collider(ColliderBuilder::cuboid(10.0, 0.5, 10.0), ground)
        .unwrap();
    let cube = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 0.5, 0.0)))
        .unwrap();
    let cube_collider = world
        .add_collider(
            ColliderBuilder::cuboid(0.5, 0.5, 0.5).collision_groups(0b01, 0b01),
            cube,
        )
        .unwrap();
    Scene {
        world,
        ground,
        ground_collider,
        cube,
        cube_collider,
    }
}

fn down(world: &World, from: Point<Real>, filter: &QueryFilter) -> Option<sprung::RayHitInfo> {
    world
        .cast_ray(from, -Vector::y(), Real::INFINITY, true, filter)
        .unwrap()
}

#[test]
fn ray_hits_the_top_face_before_and_after_stepping() {
    let mut s = scene();
    // Never stepped: both colliders are only queued in the broad phase.
    let hit = down(&s.world, Point::new(0.2, 5.0, 0.1), &QueryFilter::new()).unwrap();
    assert_eq!((hit.collider, hit.body), (s.cube_collider, s.cube));
    assert!((hit.toi - 4.0).abs() < 1e-5, "{hit:?}");
    assert!((hit.point - Point::new(0.2, 1.0, 0.1)).norm() < 1e-5);
    assert!((hit.normal - Vector::y()).norm() < 1e-6);
    // Stepped: the cube settles a little; the ray sees it where it is now.
    for _ in 0..30 {
        s.world.step(1.0 / 60.0).unwrap();
    }
    let top = s.world.body(s.cube).unwrap().translation().y + 0.5;
    let hit = down(&s.world, Point::new(0.2, 5.0, 0.1), &QueryFilter::new()).unwrap();
    assert_eq!(hit.collider, s.cube_collider);
    assert!((hit.toi - (5.0 - top)).abs() < 1e-4, "{hit:?} top {top}");
    // Beside the cube: the ground.
    let hit = down(&s.world, Point::new(3.0, 5.0, 0.0), &QueryFilter::new()).unwrap();
    assert_eq!((hit.collider, hit.body), (s.ground_collider, s.ground));
    assert!((hit.toi - 5.0).abs() < 1e-5);
    // Too short, or pointing away.
    let short = s.world.cast_ray(
        Point::new(3.0, 5.0, 0.0),
        -Vector::y(),
        4.9,
        true,
        &QueryFilter::new(),
    );
    assert_eq!(short.unwrap(), None);
    assert_eq!(
        down(&s.world, Point::new(3.0, -5.0, 0.0), &QueryFilter::new()),
        None
    );
}

#[test]
fn ray_from_far_away_with_unnormalised_direction() {
    let s = scene();
    let from = Point::new(-1000.0, -0.5, 0.0);
    let hit = s
        .world
        .cast_ray(
            from,
            Vector::x() * 7.0,
            Real::INFINITY,
            true,
            &QueryFilter::new(),
        )
        .unwrap()
        .unwrap();
    assert_eq!(hit.collider, s.ground_collider); // the slab reaches out to x = -10
    assert!((hit.toi - 990.0).abs() < 1e-3, "{hit:?}");
    assert!((hit.normal + Vector::x()).norm() < 1e-6);
    let miss = s.world.cast_ray(
        from,
        -Vector::x(),
        Real::INFINITY,
        true,
        &QueryFilter::new(),
    );
    assert_eq!(miss.unwrap(), None);
}

#[test]
fn ray_all_lists_cube_then_ground() {
    let s = scene();
    let hits = s
        .world
        .cast_ray_all(
            Point::new(0.0, 5.0, 0.0),
            -Vector::y(),
            100.0,
            true,
            &QueryFilter::new(),
        )
        .unwrap();
    let got: Vec<(ColliderHandle, Real)> = hits.iter().map(|h| (h.collider, h.toi)).collect();
    assert_eq!(got.len(), 2, "{hits:?}");
    assert_eq!(got[0].0, s.cube_collider);
    assert_eq!(got[1].0, s.ground_collider);
    assert!((got[0].1 - 4.0).abs() < 1e-5 && (got[1].1 - 5.0).abs() < 1e-5);
    // From inside the cube, hollow: it leaves the cube through its bottom (normal inwards) just
    // where it enters the ground; at equal distances the smaller handle comes first.
    let hits = s
        .world
        .cast_ray_all(
            Point::new(0.0, 0.5, 0.0),
            -Vector::y(),
            100.0,
            false,
            &QueryFilter::new(),
        )
        .unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert_eq!(
        (hits[0].collider, hits[1].collider),
        (s.ground_collider, s.cube_collider)
    );
    assert!(hits
        .iter()
        .all(|h| (h.toi - 0.5).abs() < 1e-5 && (h.normal - Vector::y()).norm() < 1e-6));
}

#[test]
fn filters() {
    let s = scene();
    let from = Point::new(0.0, 5.0, 0.0);
    let first = |filter: QueryFilter| down(&s.world, from, &filter).map(|h| h.collider);
    assert_eq!(first(QueryFilter::new()), Some(s.cube_collider));
    assert_eq!(
        first(QueryFilter::new().exclude_body(s.cube)),
        Some(s.ground_collider)
    );
    assert_eq!(
        first(QueryFilter::new().exclude_collider(s.cube_collider)),
        Some(s.ground_collider)
    );
    assert_eq!(
        first(QueryFilter::new().exclude_body(s.ground)),
        Some(s.cube_collider)
    );
    assert_eq!(
        first(QueryFilter::new().only_static()),
        Some(s.ground_collider)
    );
    assert_eq!(
        first(QueryFilter::new().exclude_static()),
        Some(s.cube_collider)
    );
    assert_eq!(
        first(QueryFilter::new().exclude_static().exclude_body(s.cube)),
        None
    );
    // Groups both ways: the cube is in group 1 and meets only group 1.
    assert_eq!(
        first(QueryFilter::new().groups(0b01, 0b01)),
        Some(s.cube_collider)
    );
    // The query is in group 2, which the cube's filter refuses.
    assert_eq!(
        first(QueryFilter::new().groups(0b10, 0b11)),
        Some(s.ground_collider)
    );
    // The query looks only at group 2, which the cube is not in.
    assert_eq!(
        first(QueryFilter::new().groups(0b11, 0b10)),
        Some(s.ground_collider)
    );
    // Sensors: no collider is one yet.
    assert_eq!(
        first(QueryFilter::new().exclude_sensors()),
        Some(s.cube_collider)
    );
}

#[test]
fn sphere_cast_lands_on_the_ground() {
    let s = scene();
    let ball = Shape::sphere(0.5).unwrap();
    let start = Isometry::translation(5.0, 3.0, 5.0);
    for speed in [1.0, 2.0, 40.0] {
        let hit = s
            .world
            .cast_shape(
                &ball,
                &start,
                -Vector::y() * speed,
                Real::INFINITY,
                &QueryFilter::new(),
            )
            .unwrap()
            .unwrap();
        assert_eq!((hit.collider, hit.body), (s.ground_collider, s.ground));
        assert!((hit.toi * speed - 2.5).abs() < 1e-4, "{speed}: {hit:?}");
        assert!((hit.normal - Vector::y()).norm() < 1e-4);
        assert!(
            (hit.point - Point::new(5.0, 0.0, 5.0)).norm() < 1e-3,
            "{hit:?}"
        );
        assert!((hit.point_on_shape - hit.point).norm() < 1e-3);
    }
    // Over the cube: lands on its top (y = 1) first.
    let over = Isometry::translation(0.0, 3.0, 0.0);
    let hit = s
        .world
        .cast_shape(&ball, &over, -Vector::y(), 10.0, &QueryFilter::new())
        .unwrap()
        .unwrap();
    assert_eq!(hit.collider, s.cube_collider);
    assert!((hit.toi - 1.5).abs() < 1e-4, "{hit:?}");
    // Upwards, or not far enough, or standing still in the air: nothing.
    let cast = |v: Vector<Real>, max: Real| {
        s.world
            .cast_shape(&ball, &start, v, max, &QueryFilter::new())
            .unwrap()
    };
    assert_eq!(cast(Vector::y(), Real::INFINITY), None);
    assert_eq!(cast(-Vector::y(), 2.4), None);
    assert_eq!(cast(Vector::zeros(), Real::INFINITY), None);
    // Starting inside the ground: toi 0.
    let sunk = Isometry::translation(5.0, 0.2, 5.0);
    let hit = s
        .world
        .cast_shape(&ball, &sunk, Vector::x(), 1.0, &QueryFilter::new())
        .unwrap()
        .unwrap();
    assert_eq!((hit.collider, hit.toi), (s.ground_collider, 0.0));
}

#[test]
fn point_and_shape_overlaps() {
    let s = scene();
    let at = |p: Point<Real>| {
        s.world
            .intersect_point(p, &QueryFilter::new())
            .unwrap()
            .into_iter()
            .map(|(c, _)| c)
            .collect::<Vec<_>>()
    };
    assert_eq!(at(Point::new(0.1, 0.5, -0.2)), vec![s.cube_collider]);
    assert_eq!(at(Point::new(5.0, -0.25, 5.0)), vec![s.ground_collider]);
    assert_eq!(at(Point::new(5.0, 0.25, 5.0)), vec![]);
    // On the face they share: both (surfaces count).
    let mut both = vec![s.ground_collider, s.cube_collider];
    both.sort();
    assert_eq!(at(Point::new(0.0, 0.0, 0.0)), both);

    let ball = Shape::sphere(0.3).unwrap();
    let touching = |p: Isometry<Real>, filter: QueryFilter| {
        let found = s.world.intersect_shape(&ball, &p, &filter).unwrap();
        found.into_iter().map(|(c, _)| c).collect::<Vec<_>>()
    };
    assert_eq!(
        touching(Isometry::translation(0.0, 1.2, 0.0), QueryFilter::new()),
        vec![s.cube_collider]
    );
    assert_eq!(
        touching(Isometry::translation(3.0, 0.2, 3.0), QueryFilter::new()),
        vec![s.ground_collider]
    );
    assert_eq!(
        touching(Isometry::translation(3.0, 0.31, 3.0), QueryFilter::new()),
        vec![]
    );
    assert_eq!(
        touching(Isometry::translation(0.0, 0.0, 0.0), QueryFilter::new()),
        both
    );
    assert_eq!(
        touching(
            Isometry::translation(0.0, 0.0, 0.0),
            QueryFilter::new().only_static()
        ),
        vec![s.ground_collider]
    );
}

/// A body moving faster than the broad phase's boxes grow: queries see it where it is.
#[test]
fn fast_body_is_seen_where_it_is() {
    let mut world = World::new(Vector::zeros()).unwrap();
    let bullet = world
        .add_body(RigidBodyBuilder::dynamic().linear_velocity(Vector::new(300.0, 0.0, 0.0)))
        .unwrap();
    let collider = world
        .add_collider(ColliderBuilder::ball(0.1), bullet)
        .unwrap();
    world.step(1.0 / 60.0).unwrap();
    world.step(1.0 / 60.0).unwrap();
    let x = world.body(bullet).unwrap().translation().x;
    assert!((x - 10.0).abs() < 1e-3, "{x}");
    let hit = world
        .cast_ray(
            Point::new(x, 5.0, 0.0),
            -Vector::y(),
            10.0,
            true,
            &QueryFilter::new(),
        )
        .unwrap()
        .unwrap();
    assert_eq!(hit.collider, collider);
    assert!((hit.toi - 4.9).abs() < 1e-4);
    let inside = world
        .intersect_point(Point::new(x, 0.05, 0.0), &QueryFilter::new())
        .unwrap();
    assert_eq!(inside, vec![(collider, bullet)]);
    // A static collider added since the last step is only queued in the broad phase: seen.
    let wall = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(20.0, 0.0, 0.0)))
        .unwrap();
    let wall_collider = world
        .add_collider(ColliderBuilder::cuboid(0.1, 2.0, 2.0), wall)
        .unwrap();
    let hit = world
        .cast_ray(
            Point::new(x + 0.5, 0.0, 0.0),
            Vector::x(),
            100.0,
            true,
            &QueryFilter::new(),
        )
        .unwrap()
        .unwrap();
    assert_eq!((hit.collider, hit.body), (wall_collider, wall));
    assert!((hit.toi - (19.9 - x - 0.5)).abs() < 1e-3, "{hit:?}");
    // Removed: gone from queries at once.
    world.remove_collider(collider).unwrap();
    let after = world.cast_ray(
        Point::new(x, 5.0, 0.0),
        -Vector::y(),
        10.0,
        true,
        &QueryFilter::new(),
    );
    assert_eq!(after.unwrap(), None);
}

fn poses(world: &World) -> Vec<[Real; 13]> {
    world
        .bodies()
        .map(|(_, b)| {
            let (p, v, w) = (b.pose(), b.linear_velocity(), b.angular_velocity());
            let q = p.rotation.coords;
            let t = p.translation.vector;
            [
                t.x, t.y, t.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z,
            ]
        })
        .collect()
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let mut s = scene();
    let mut twin = scene();
    for _ in 0..10 {
        s.world.step(1.0 / 60.0).unwrap();
        twin.world.step(1.0 / 60.0).unwrap();
    }
    let before = poses(&s.world);
    let (nan, inf) = (Real::NAN, Real::INFINITY);
    let any = QueryFilter::new();
    let w = &s.world;
    let o = Point::new(0.0, 5.0, 0.0);
    let d = -Vector::y();
    assert_eq!(
        w.cast_ray(Point::new(nan, 5.0, 0.0), d, 1.0, true, &any),
        Err(Error::NonFinite("ray origin"))
    );
    assert_eq!(
        w.cast_ray(Point::new(inf, 5.0, 0.0), d, 1.0, true, &any),
        Err(Error::NonFinite("ray origin"))
    );
    assert_eq!(
        w.cast_ray(o, Vector::new(0.0, nan, 0.0), 1.0, true, &any),
        Err(Error::NonFinite("ray direction"))
    );
    assert_eq!(
        w.cast_ray(o, Vector::zeros(), 1.0, true, &any),
        Err(Error::NonPositive("ray direction length"))
    );
    assert_eq!(
        w.cast_ray(o, Vector::new(0.0, -1.0e-40, 0.0), 1.0, true, &any),
        Err(Error::NonPositive("ray direction length"))
    );
    assert_eq!(
        w.cast_ray(o, d, -1.0, true, &any),
        Err(Error::Negative("max_toi"))
    );
    assert_eq!(
        w.cast_ray(o, d, nan, true, &any),
        Err(Error::NonFinite("max_toi"))
    );
    assert_eq!(
        w.cast_ray_all(o, Vector::zeros(), 1.0, true, &any),
        Err(Error::NonPositive("ray direction length"))
    );
    assert_eq!(
        w.cast_ray_all(o, d, -0.5, true, &any),
        Err(Error::Negative("max_toi"))
    );

    let ball = Shape::sphere(0.5).unwrap();
    let at = Isometry::translation(0.0, 5.0, 0.0);
    let bad_ball = Shape::Sphere(Ball::new(-1.0));
    assert_eq!(
        w.cast_shape(&bad_ball, &at, d, 1.0, &any),
        Err(Error::Shape(ShapeError::NonPositive))
    );
    assert_eq!(
        w.cast_shape(&Shape::Sphere(Ball::new(nan)), &at, d, 1.0, &any),
        Err(Error::Shape(ShapeError::NonFinite))
    );
    assert_eq!(
        w.cast_shape(&ball, &Isometry::translation(0.0, nan, 0.0), d, 1.0, &any),
        Err(Error::NonFinite("query pose"))
    );
    assert_eq!(
        w.cast_shape(&ball, &at, Vector::new(inf, 0.0, 0.0), 1.0, &any),
        Err(Error::NonFinite("shape cast velocity"))
    );
    assert_eq!(
        w.cast_shape(&ball, &at, d, -1.0, &any),
        Err(Error::Negative("max_toi"))
    );
    assert_eq!(
        w.cast_shape(&ball, &at, d, nan, &any),
        Err(Error::NonFinite("max_toi"))
    );
    assert_eq!(
        w.intersect_point(Point::new(0.0, nan, 0.0), &any),
        Err(Error::NonFinite("point"))
    );
    assert_eq!(
        w.intersect_shape(&bad_ball, &at, &any),
        Err(Error::Shape(ShapeError::NonPositive))
    );
    assert_eq!(
        w.intersect_shape(&ball, &Isometry::translation(inf, 0.0, 0.0), &any),
        Err(Error::NonFinite("query pose"))
    );

    // Nothing moved, and the world steps on exactly as its twin that was never asked.
    assert_eq!(poses(&s.world), before);
    for _ in 0..30 {
        s.world.step(1.0 / 60.0).unwrap();
        twin.world.step(1.0 / 60.0).unwrap();
    }
    assert_eq!(poses(&s.world), poses(&twin.world));
    assert!(down(&s.world, Point::new(0.0, 5.0, 0.0), &any).is_some());
}

#[test]
fn sensors_can_be_left_out_of_queries() {
    let mut world = World::default();
    let gate = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 5.0, 0.0)))
        .unwrap();
    let sensor = world
        .add_collider(ColliderBuilder::cuboid(1.0, 1.0, 1.0).sensor(true), gate)
        .unwrap();
    let down = Vector::new(0.0, -1.0, 0.0);
    let from = Point::new(0.0, 10.0, 0.0);
    let hit = world
        .cast_ray(from, down, 100.0, true, &QueryFilter::new())
        .unwrap()
        .expect("the sensor is hit by default");
    assert_eq!(hit.collider, sensor);
    assert!((hit.toi - 4.0).abs() < 1e-5);
    let skipped = world
        .cast_ray(
            from,
            down,
            100.0,
            true,
            &QueryFilter::new().exclude_sensors(),
        )
        .unwrap();
    assert!(skipped.is_none());
}

/// The first hit of a ray by testing every collider at its body's pose now, with the same
/// ray test the world uses (the ray against each shape is checked against parry3d elsewhere;
/// this is about which colliders get tested): collider and time of impact.
fn brute_first_hit(
    world: &World,
    origin: Point<Real>,
    dir: Vector<Real>,
    max_toi: Real,
) -> Option<(ColliderHandle, Real)> {
    let mut best: Option<(ColliderHandle, Real)> = None;
    for (_, body) in world.bodies() {
        for &handle in body.colliders() {
            let collider = world.collider(handle).unwrap();
            let pose = body.pose() * collider.local_pose();
            let hit = ray_cast(collider.shape(), &pose, &origin, &dir, max_toi, true);
            if let Some(hit) = hit {
                if best.is_none_or(|(_, b)| hit.toi < b) {
                    best = Some((handle, hit.toi));
                }
            }
        }
    }
    best
}

/// Throws every fourth of `bodies` at 180 m/s in a random direction, and spins it up to `spin`
/// rad/s about each axis if given: in the next step (3 m) it travels farther than the broad
/// phase grows a box by (at most 2 m), so it ends the step outside its box.
fn throw_every_fourth(world: &mut World, rng: &mut Rng, bodies: &[BodyHandle], spin: Option<Real>) {
    for &body in bodies.iter().step_by(4) {
        world
            .set_linear_velocity(body, rng.vector(1.0).normalize() * 180.0)
            .unwrap();
        if let Some(spin) = spin {
            world.set_angular_velocity(body, rng.vector(spin)).unwrap();
        }
    }
}

/// Teleports every `nth` of `bodies` (by `set_pose`, unrotated) to a random point at `height`
/// within `half` of the origin along x and z.
fn teleport(
    world: &mut World,
    rng: &mut Rng,
    bodies: &[BodyHandle],
    nth: usize,
    half: Real,
    height: Real,
) {
    for &body in bodies.iter().step_by(nth) {
        let to = Vector::new(rng.signed(half), height, rng.signed(half));
        world
            .set_pose(body, Isometry::translation(to.x, to.y, to.z))
            .unwrap();
    }
}

/// 10,000 random rays among 2,000 moving bodies (falling and spinning, some fast enough to
/// leave their broad-phase boxes within a step, some teleported and some added since the last
/// step) hit first what testing every collider says: the broad phase prunes the moving bodies
/// without losing any.
#[test]
fn rays_among_two_thousand_moving_bodies_hit_first_what_brute_force_says() {
    let mut rng = Rng(42);
    let mut world = World::default();
    let ground = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(40.0, 1.0, 40.0), ground)
        .unwrap();
    let add = |world: &mut World, rng: &mut Rng, k: usize| {
        let at = Vector::new(
            rng.signed(25.0),
            2.0 + rng.signed(1.0).abs() * 20.0,
            rng.signed(25.0),
        );
        let speed = if k.is_multiple_of(10) { 40.0 } else { 3.0 };
        let builder = RigidBodyBuilder::dynamic()
            .translation(at)
            .rotation(rng.vector(3.0))
            .linear_velocity(rng.vector(speed))
            .angular_velocity(rng.vector(20.0));
        let body = world.add_body(builder).unwrap();
        let shape = match k % 3 {
            0 => ColliderBuilder::ball(0.2 + rng.signed(0.3).abs()),
            1 => ColliderBuilder::cuboid(0.5, 0.2 + rng.signed(0.2).abs(), 0.3),
            _ => ColliderBuilder::capsule(0.4, 0.2),
        };
        world.add_collider(shape, body).unwrap();
        body
    };
    let bodies: Vec<BodyHandle> = (0..2000).map(|k| add(&mut world, &mut rng, k)).collect();
    for _ in 0..6 {
        world.step(1.0 / 60.0).unwrap();
    }
    // A quarter thrown hard and spun fast, so that they end the step outside their boxes.
    throw_every_fourth(&mut world, &mut rng, &bodies, Some(60.0));
    world.step(1.0 / 60.0).unwrap();
    // Since the last step: a few teleported, a few added (only queued in the broad phase).
    teleport(&mut world, &mut rng, &bodies, 97, 25.0, 5.0);
    for k in 0..20 {
        add(&mut world, &mut rng, k);
    }
    let mut hits = 0;
    for i in 0..10_000 {
        let origin = Point::from(Vector::new(
            rng.signed(30.0),
            rng.signed(12.0) + 10.0,
            rng.signed(30.0),
        ));
        // Every other ray aimed near a body (a thrown one every fourth), the rest anywhere.
        let aim = bodies[(rng.next_u64() % bodies.len() as u64) as usize];
        let target = world.body(aim).unwrap().pose().translation.vector + rng.vector(0.3);
        let dir = if i % 2 == 0 {
            target - origin.coords
        } else {
            rng.vector(1.0)
        };
        let dir = dir.try_normalize(1e-3).unwrap_or(Vector::x());
        let max_toi = if i % 4 == 0 {
            Real::INFINITY
        } else {
            1.0 + rng.signed(30.0).abs()
        };
        let got = world
            .cast_ray(origin, dir, max_toi, true, &QueryFilter::new())
            .unwrap()
            .map(|h| (h.collider, h.toi));
        let want = brute_first_hit(&world, origin, dir, max_toi);
        match (got, want) {
            (None, None) => {}
            (Some((a, ta)), Some((b, tb))) => {
                // The same collider, or another one at the same distance (a tie).
                assert!(
                    a == b || ta == tb,
                    "ray {i}: {a:?} at {ta}, brute force {b:?} at {tb}"
                );
                assert!(
                    (ta - tb).abs() <= 1e-5 * (1.0 + tb),
                    "ray {i}: {ta} vs {tb}"
                );
                hits += 1;
            }
            _ => panic!("ray {i}: {got:?}, brute force {want:?}"),
        }
    }
    assert!(hits > 4_000, "too few hits to mean anything: {hits}");
}

/// The nearest point of every collider the filter accepts, by testing each with parry3d's
/// projection at its body's pose now: collider and distance.
fn brute_nearest(
    world: &World,
    point: Point<Real>,
    max_dist: Real,
    solid: bool,
    keep: &dyn Fn(ColliderHandle) -> bool,
) -> Option<(ColliderHandle, Real)> {
    let mut best: Option<(ColliderHandle, Real)> = None;
    for (_, body) in world.bodies() {
        for &handle in body.colliders() {
            if !keep(handle) {
                continue;
            }
            let collider = world.collider(handle).unwrap();
            let pose = body.pose() * collider.local_pose();
            let near = collider
                .shape()
                .as_parry()
                .project_point(&pose, &point, solid);
            let d = (near.point - point).norm();
            let nearer = best.is_none_or(|(h, b)| d < b || (d == b && handle < h));
            if d <= max_dist && nearer {
                best = Some((handle, d));
            }
        }
    }
    best
}

/// Points projected onto the world (500 moving bodies, some thrown out of their boxes, a few
/// teleported; static boxes; a ground) reach the collider brute force says, at its distance,
/// with and without a search limit, solid or not, and through a predicate filter; the ground
/// alone gives the closed form (straight down to its top).
#[test]
fn projected_points_reach_the_nearest_collider_as_brute_force_says() {
    let mut rng = Rng(7);
    let mut world = World::default();
    let ground = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .unwrap();
    let slab = world
        .add_collider(ColliderBuilder::cuboid(30.0, 1.0, 30.0), ground)
        .unwrap();
    // The closed form first: above the ground's top (y = 0), nothing else yet.
    let filter = QueryFilter::new();
    let p = world
        .project_point(Point::new(3.0, 4.0, -2.0), Real::INFINITY, true, &filter)
        .unwrap()
        .unwrap();
    assert_eq!(p.collider, slab);
    assert!(
        (p.distance - 4.0).abs() < 1e-5 && (p.point - Point::new(3.0, 0.0, -2.0)).norm() < 1e-5
    );
    for _ in 0..20 {
        let at = Vector::new(rng.signed(20.0), rng.signed(3.0).abs(), rng.signed(20.0));
        let wall = world
            .add_body(RigidBodyBuilder::fixed().translation(at))
            .unwrap();
        world
            .add_collider(ColliderBuilder::cuboid(1.0, 2.0, 0.3), wall)
            .unwrap();
    }
    let (mut bodies, mut skipped) = (Vec::new(), Vec::new());
    for k in 0..500 {
        let at = Vector::new(
            rng.signed(20.0),
            2.0 + rng.signed(8.0).abs(),
            rng.signed(20.0),
        );
        let builder = RigidBodyBuilder::dynamic()
            .translation(at)
            .rotation(rng.vector(3.0))
            .angular_velocity(rng.vector(10.0));
        let body = world.add_body(builder).unwrap();
        let shape = match k % 3 {
            0 => ColliderBuilder::ball(0.3),
            1 => ColliderBuilder::cuboid(0.4, 0.2, 0.3),
            _ => ColliderBuilder::capsule(0.3, 0.2),
        };
        let collider = world.add_collider(shape, body).unwrap();
        if k % 3 == 1 {
            skipped.push(collider);
        }
        bodies.push(body);
    }
    for _ in 0..5 {
        world.step(1.0 / 60.0).unwrap();
    }
    throw_every_fourth(&mut world, &mut rng, &bodies, None);
    world.step(1.0 / 60.0).unwrap();
    teleport(&mut world, &mut rng, &bodies, 61, 20.0, 4.0);
    let odd = |handle: ColliderHandle| !skipped.contains(&handle);
    let keep = |handle: ColliderHandle, _: &sprung::Collider| odd(handle);
    for i in 0..2_000 {
        // Every other point near a body (a thrown one every fourth), the rest anywhere.
        let near = bodies[(rng.next_u64() % bodies.len() as u64) as usize];
        let point = if i % 2 == 1 {
            Point::from(world.body(near).unwrap().pose().translation.vector + rng.vector(1.0))
        } else {
            Point::from(Vector::new(
                rng.signed(40.0),
                rng.signed(10.0) + 5.0,
                rng.signed(40.0),
            ))
        };
        let max_dist = [Real::INFINITY, 0.5, 3.0][i % 3];
        let solid = i % 4 < 2;
        let (filter, rule): (QueryFilter, &dyn Fn(ColliderHandle) -> bool) = if i % 5 == 0 {
            (QueryFilter::new().predicate(&keep), &odd)
        } else {
            (QueryFilter::new(), &|_| true)
        };
        let got = world
            .project_point(point, max_dist, solid, &filter)
            .unwrap()
            .map(|p| (p.collider, p.distance));
        let want = brute_nearest(&world, point, max_dist, solid, rule);
        assert_eq!(
            got, want,
            "point {i} at {point:?}, max {max_dist}, solid {solid}"
        );
    }
    assert!(world
        .project_point(Point::origin(), Real::NAN, true, &filter)
        .is_err());
    assert!(world
        .project_point(Point::origin(), -1.0, true, &filter)
        .is_err());
}

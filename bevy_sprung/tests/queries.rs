//! Scene queries through the system parameter: each answers what the engine's own query
//! answers (bit for bit, the collider mapped to its entity) while the scene moves, and the
//! closed forms hold (a ball cast down onto the ground stops a radius above it; the nearest
//! point of a box below a point is on its top face).

mod common;

use bevy::prelude::*;
use bevy_sprung::convert;
use bevy_sprung::prelude::*;
use bevy_sprung::sprung::math::{Point, Real};
use bevy_sprung::{sprung, PointProjection};

/// What the system saw this frame.
#[derive(Resource, Default)]
struct Seen {
    cast: Option<ShapeHit>,
    overlaps: Vec<Entity>,
    nearest: Option<PointProjection>,
    frames: u32,
}

const CAST_FROM: Vec3 = Vec3::new(0.3, 6.0, 0.2);
const OVERLAP_AT: Vec3 = Vec3::new(0.0, 1.0, 0.0);
const POINT: Vec3 = Vec3::new(0.1, 3.0, -0.2);

fn probe() -> Shape {
    Shape::sphere(0.5).unwrap()
}

fn look(query: SpatialQuery, mut seen: ResMut<Seen>, mut buffer: Local<Vec<Entity>>) {
    let filter = QueryFilter::new();
    let down = (CAST_FROM, Quat::IDENTITY);
    seen.cast = query.cast_shape(&probe(), down, Vec3::NEG_Y, 100.0, &filter);
    let at = (OVERLAP_AT, Quat::from_rotation_y(0.3));
    let wide = Shape::cuboid(convert::vector(Vec3::new(2.0, 1.2, 2.0))).unwrap();
    query.overlaps_into(&wide, at, &filter, &mut buffer);
    seen.overlaps.clone_from(&buffer);
    seen.nearest = query.project_point(POINT, Real::INFINITY, true, &filter);
    seen.frames += 1;
}

#[test]
fn shape_casts_overlaps_and_nearest_points_are_the_engines_answers() {
    let mut app = common::headless(60.0, true);
    app.init_resource::<Seen>().add_systems(PostUpdate, look);
    // Two boxes falling onto the ground (the helper's), one resting at the side.
    let falling: Vec<Entity> = (0..2)
        .map(|k| {
            app.world_mut()
                .spawn((
                    RigidBody::Dynamic,
                    Collider::cuboid(Vec3::splat(0.4)),
                    Transform::from_xyz(0.1 * k as f32, 2.0 + 1.0 * k as f32, 0.0),
                ))
                .id()
        })
        .collect();
    let side = app
        .world_mut()
        .spawn((
            RigidBody::Fixed,
            Collider::cuboid(Vec3::splat(0.5)),
            Transform::from_xyz(4.0, 0.5, 0.0),
        ))
        .id();
    let mut hits = std::collections::HashSet::new();
    app.update();
    for frame in 0..120 {
        app.update();
        let world_entity = app.world().resource::<DefaultPhysicsWorld>().0;
        let world = app.world().get::<PhysicsWorld>(world_entity).unwrap();
        let engine = world.world();
        let seen = app.world().resource::<Seen>();
        let filter = QueryFilter::new();

        let start = convert::pose(&Transform::from_translation(CAST_FROM));
        let down = -sprung_y();
        let cast = engine
            .cast_shape(&probe(), &start, down, 100.0, &filter)
            .unwrap()
            .unwrap();
        let hit = seen
            .cast
            .expect("the ball cast down meets a box or the ground");
        assert_eq!(
            Some(hit.entity),
            world.collider_entity(cast.collider),
            "{frame}"
        );
        assert_eq!(hit.time.to_bits(), cast.toi.to_bits(), "{frame}");
        assert_eq!(hit.normal, convert::vec3(&cast.normal), "{frame}");
        hits.insert(hit.entity);
        // The ball stops where its lowest point meets what it hit: its centre a radius above.
        assert!(
            (CAST_FROM.y - hit.time - 0.5 - hit.point.y).abs() < 1e-3,
            "frame {frame}: stopped at {}, touching at {}",
            CAST_FROM.y - hit.time,
            hit.point.y
        );

        let wide = sprung::Shape::cuboid(convert::vector(Vec3::new(2.0, 1.2, 2.0))).unwrap();
        let at = Transform::from_translation(OVERLAP_AT).with_rotation(Quat::from_rotation_y(0.3));
        let found = engine
            .intersect_shape(&wide, &convert::pose(&at), &filter)
            .unwrap();
        let entities: Vec<Entity> = found
            .iter()
            .map(|&(c, _)| world.collider_entity(c).unwrap())
            .collect();
        assert_eq!(seen.overlaps, entities, "frame {frame}");
        assert!(!seen.overlaps.contains(&side), "frame {frame}");

        let point = Point::from(convert::vector(POINT));
        let nearest = engine
            .project_point(point, Real::INFINITY, true, &filter)
            .unwrap()
            .unwrap();
        let seen_nearest = seen.nearest.expect("something is nearest");
        assert_eq!(
            Some(seen_nearest.entity),
            world.collider_entity(nearest.collider)
        );
        assert_eq!(seen_nearest.distance.to_bits(), nearest.distance.to_bits());
        assert_eq!(seen_nearest.point, convert::vec3(&nearest.point.coords));
    }
    assert_eq!(app.world().resource::<Seen>().frames, 121);
    // While they fell the cast met the upper box; once they rest it still does (stacked).
    assert!(hits.contains(&falling[1]), "the cast met the upper box");
    // Both boxes at rest inside the overlap box: found, the side box not.
    let seen = app.world().resource::<Seen>();
    assert!(falling.iter().all(|e| seen.overlaps.contains(e)));
    // The point 3 m up is nearest to the upper box's top face, straight below it.
    let top = app.world().get::<Transform>(falling[1]).unwrap();
    let nearest = seen.nearest.unwrap();
    assert_eq!(nearest.entity, falling[1]);
    assert!(!nearest.is_inside);
    assert!((nearest.distance - (POINT.y - (top.translation.y + 0.4))).abs() < 0.02);
}

fn sprung_y() -> sprung::math::Vector<Real> {
    sprung::math::Vector::y()
}

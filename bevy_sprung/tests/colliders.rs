//! Colliders on child entities: a body of three shapes (a bar and two balls on children,
//! offset and turned) steps as the bare engine's body with the same three colliders, bit for
//! bit at every step; a ray names the child it hits; a child's collider goes with its
//! `Collider`, and every collider with the body.

mod common;

use bevy::prelude::*;
use bevy_sprung::prelude::*;
use bevy_sprung::sprung::{self, ColliderBuilder, RigidBodyBuilder};
use bevy_sprung::{convert, BodyLink, ColliderLink};

/// The dumbbell's children: (where on the body, their collider).
fn weights() -> [(Transform, ColliderBuilder); 2] {
    [
        (
            Transform::from_xyz(1.0, 0.0, 0.0),
            ColliderBuilder::ball(0.4),
        ),
        (
            Transform::from_xyz(-1.0, 0.1, 0.0).with_rotation(Quat::from_rotation_z(0.3)),
            ColliderBuilder::cuboid(0.3, 0.3, 0.3).density(2_000.0),
        ),
    ]
}

const START: Vec3 = Vec3::new(0.0, 2.0, 0.0);

fn start() -> Transform {
    Transform::from_translation(START).with_rotation(Quat::from_rotation_x(0.2))
}

#[test]
fn a_body_of_child_colliders_is_the_bare_engines_compound_bit_for_bit() {
    let mut app = common::headless(60.0, true);
    let bar = ColliderBuilder::cuboid(1.0, 0.1, 0.1);
    let body = app
        .world_mut()
        .spawn((RigidBody::Dynamic, Collider(bar.clone()), start()))
        .id();
    let children: Vec<Entity> = weights()
        .into_iter()
        .map(|(at, collider)| {
            let child = (Collider(collider), at, ChildOf(body));
            app.world_mut().spawn(child).id()
        })
        .collect();

    let mut bare = sprung::World::default();
    let ground = bare.add_body(RigidBodyBuilder::fixed()).unwrap();
    let halfspace = ColliderBuilder::halfspace(sprung::math::Vector::y());
    bare.add_collider(halfspace, ground).unwrap();
    let pose = convert::pose(&start());
    let handle = bare
        .add_body(RigidBodyBuilder::dynamic().pose(pose))
        .unwrap();
    bare.add_collider(bar, handle).unwrap();
    for (at, collider) in weights() {
        let placed = collider.local_pose(convert::pose(&at));
        bare.add_collider(placed, handle).unwrap();
    }
    let dt = common::fixed_dt(&app);
    app.update();
    for step in 0..180 {
        app.update();
        bare.step(dt).unwrap();
        let transform = app.world().get::<Transform>(body).unwrap();
        let pose = bare.body(handle).unwrap().pose();
        let at = convert::vec3(&pose.translation.vector).to_array();
        assert_eq!(transform.translation.to_array(), at, "step {step}");
        let turned = convert::quat(&pose.rotation).to_array();
        assert_eq!(transform.rotation.to_array(), turned, "step {step}");
    }
    // Three colliders on the body.
    let world_entity = app.world().resource::<DefaultPhysicsWorld>().0;
    let world = app.world().get::<PhysicsWorld>(world_entity).unwrap();
    let link = *app.world().get::<BodyLink>(body).unwrap();
    assert_eq!(
        world.world().body(link.handle).unwrap().colliders().len(),
        3
    );
    let ball = *app.world().get::<ColliderLink>(children[0]).unwrap();
    assert_eq!(world.collider_entity(ball.handle), Some(children[0]));

    // A ray down onto the ball's end names the ball's entity.
    let centre = app
        .world()
        .get::<Transform>(body)
        .unwrap()
        .transform_point(Vec3::X);
    let above = centre + Vec3::Y * 3.0;
    let filter = QueryFilter::new();
    let hit = world
        .cast_ray(above, Vec3::NEG_Y, 10.0, true, &filter)
        .unwrap();
    assert_eq!(hit.entity, children[0]);

    // The box's child loses its Collider: its collider leaves the body; the rest stays.
    app.world_mut().entity_mut(children[1]).remove::<Collider>();
    app.update();
    let world = app.world().get::<PhysicsWorld>(world_entity).unwrap();
    assert_eq!(
        world.world().body(link.handle).unwrap().colliders().len(),
        2
    );
    assert!(app.world().get::<ColliderLink>(children[1]).is_none());

    // The body despawned (its children with it): no collider but the ground's.
    app.world_mut().entity_mut(body).despawn();
    app.update();
    let world = app.world().get::<PhysicsWorld>(world_entity).unwrap();
    assert_eq!(world.world().bodies().count(), 1);
    assert!(world.world().collider(ball.handle).is_none());
    assert!(world.collider_entity(ball.handle).is_none());
}

//! The viewer's showcase scene runs as it says: nothing lost or non-finite, the motor turns
//! its paddle, the upright spring keeps its capsule standing, the trampoline holds its balls.

use sprung::collision::shape::Shape;
use sprung::{BodyKind, World};
use sprung_demos::SHOWCASE;

/// The dynamic bodies whose (first) collider is a ball of `radius`.
fn balls(world: &World, radius: f32) -> Vec<sprung::BodyHandle> {
    world
        .bodies()
        .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
        .filter(|(_, b)| {
            b.colliders().first().is_some_and(|&c| {
                matches!(world.collider(c).unwrap().shape(), Shape::Sphere(s) if s.radius == radius)
            })
        })
        .map(|(h, _)| h)
        .collect()
}

#[test]
fn the_showcase_runs_as_it_says() {
    let mut scene = (SHOWCASE.build)();
    assert!(
        sprung_demos::find("showcase").is_none(),
        "not a benchmark scene"
    );
    assert_eq!(sprung_demos::find_any("showcase").unwrap().name, "showcase");
    for _ in 0..SHOWCASE.steps {
        scene.step(SHOWCASE.dt).unwrap();
    }
    let figures = scene.figures();
    assert!(figures.iter().all(|f| f.ok), "{figures:?}");
    let world = &scene.world;

    // The paddle (the one 3.2 m bar) turns at its motor's speed about z. (Found by its shape:
    // a ball of the pendulum chain can pass 1.5 rad/s about z too as it swings.)
    let paddles: Vec<_> = world
        .bodies()
        .filter(|(_, b)| {
            b.colliders().first().is_some_and(|&c| {
                matches!(world.collider(c).unwrap().shape(),
                    Shape::Cuboid(s) if s.half_extents.x == 1.6)
            })
        })
        .collect();
    assert_eq!(paddles.len(), 1, "one paddle");
    let spin = paddles[0].1.angular_velocity();
    assert!(
        (spin.z - 1.5).abs() < 0.05 && spin.xy().norm() < 0.05,
        "the paddle turns at {spin:?}, its motor at 1.5 rad/s about z"
    );

    // The capsule stands: its axis within a few degrees of vertical, its centre where it began.
    let upright = sprung_demos::scenes::SHOWCASE_UPRIGHT_AT;
    let (_, capsule) = world
        .bodies()
        .find(|(_, b)| (b.translation() - upright).norm() < 0.05)
        .expect("the capsule stays put");
    let axis = capsule.pose().rotation * sprung::math::Vector::y();
    assert!(axis.y > 0.99, "capsule axis {axis:?}");

    // The three trampoline balls rest on its top (y = 0.8), sunk a little into it, not through.
    let on_trampoline = balls(world, 0.4);
    assert_eq!(on_trampoline.len(), 3);
    for ball in on_trampoline {
        let y = world.body(ball).unwrap().translation().y;
        assert!((1.0..1.25).contains(&y), "a trampoline ball at y = {y}");
    }
}

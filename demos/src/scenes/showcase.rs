//! `showcase`: the viewer's opening scene (not a benchmark scene of SCENES.md). One of each of
//! the engine's ideas side by side on an endless floor: stacks, a pendulum chain, a hinge
//! turned by its motor, a body held upright by a spring, a trampoline (a soft contact
//! material), a rope, and convex rocks on a height field.
//!
//! Laid out along x, facing +z (where the viewer's camera starts):
//! ```text
//!   x: -10 .. -5     -3 .. 1          0          1.5 .. 5       4.5 .. 6   9
//!      tower,        pendulum chain   upright    rope           motor      trampoline
//!      pyramid       (swings down)    capsule    (z = 1.5)      paddle,    and balls
//!                                                               two cubes
//!   behind, at z = -7: rocks on a height field
//! ```

use nalgebra::DMatrix;
use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, JointBuilder, RigidBodyBuilder, Spring, World};

use super::common::{cube, DENSITY, FRICTION, GRAVITY};
use super::{Check, Scene};
use crate::rng::Rng;

/// The body the upright spring holds: the capsule in the middle, where the viewer's camera
/// looks first (so a drag from the window's centre grabs it).
pub const UPRIGHT_AT: Vector<Real> = Vector::new(0.0, 1.05, 0.0);

/// Builds the showcase.
pub fn showcase() -> Scene {
    let mut world = World::new(GRAVITY).expect("finite gravity");
    let floor = world
        .add_body(RigidBodyBuilder::fixed())
        .expect("valid floor");
    world
        .add_collider(
            ColliderBuilder::halfspace(Vector::y()).friction(FRICTION),
            floor,
        )
        .expect("valid floor");
    let mut tracked = Vec::new();
    stacks(&mut world, &mut tracked);
    pendulum(&mut world, &mut tracked);
    upright(&mut world, &mut tracked);
    rope(&mut world, &mut tracked);
    motor(&mut world, &mut tracked);
    trampoline(&mut world, &mut tracked);
    rocks(&mut world, &mut tracked);
    Scene::new(world, tracked, Check::Fallen { min_y: 0.0 })
}

type Tracked = Vec<(BodyHandle, Isometry<Real>)>;

/// A static body at `at` with one collider.
fn fixed(world: &mut World, at: Vector<Real>, collider: ColliderBuilder) -> BodyHandle {
    let body = world
        .add_body(RigidBodyBuilder::fixed().translation(at))
        .expect("valid static body");
    world.add_collider(collider, body).expect("valid collider");
    body
}

/// A dynamic body at `at` with one collider, tracked.
fn dynamic(
    world: &mut World,
    tracked: &mut Tracked,
    at: Vector<Real>,
    collider: ColliderBuilder,
) -> BodyHandle {
    let (body, pose) = super::common::body(world, at, collider);
    tracked.push((body, pose));
    body
}

/// A tower of six unit cubes and a pyramid with a base of four.
fn stacks(world: &mut World, tracked: &mut Tracked) {
    for i in 0..6 {
        tracked.push(cube(world, Vector::new(-9.5, 0.5 + i as Real, 0.0)));
    }
    for row in 0..4 {
        for i in 0..(4 - row) {
            let x = -7.5 + i as Real * 1.05 + row as Real * 0.525;
            tracked.push(cube(world, Vector::new(x, 0.5 + row as Real, 0.0)));
        }
    }
}

/// Five balls hung by ball joints from a static block, let go level so that the chain swings.
fn pendulum(world: &mut World, tracked: &mut Tracked) {
    let top = Vector::new(-3.0, 7.0, -1.0);
    let block = fixed(world, top, ColliderBuilder::cuboid(0.3, 0.15, 0.3));
    let link = 0.8;
    let mut previous = block;
    for i in 1..=5 {
        let at = top + Vector::new(link * i as Real, 0.0, 0.0);
        let ball = ColliderBuilder::ball(0.25)
            .density(DENSITY)
            .friction(FRICTION);
        let body = dynamic(world, tracked, at, ball);
        // The joint sits halfway between the two centres.
        let half = Point::new(0.5 * link, 0.0, 0.0);
        let anchor_a = if previous == block {
            Point::origin()
        } else {
            half
        };
        let anchor_b = if previous == block {
            Point::new(-link, 0.0, 0.0)
        } else {
            -half
        };
        world
            .add_joint(JointBuilder::ball(anchor_a, anchor_b), previous, body)
            .expect("valid joint");
        previous = body;
    }
}

/// A capsule standing on the floor, kept upright by an angular spring (2 Hz, damping ratio
/// 0.3): push it and it wobbles back, free to turn about the vertical.
fn upright(world: &mut World, tracked: &mut Tracked) {
    let capsule = ColliderBuilder::capsule(0.7, 0.35)
        .density(DENSITY)
        .friction(FRICTION);
    let body = dynamic(world, tracked, UPRIGHT_AT, capsule);
    let spring = Spring::Frequency {
        hertz: 2.0,
        damping_ratio: 0.3,
    };
    world
        .add_world_joint(
            JointBuilder::upright(Vector::y(), Vector::y(), spring),
            body,
        )
        .expect("valid upright spring");
}

/// Ten small balls tied by rope joints (slack allowed, 0.3 m at most) from a static hook,
/// with a box at the end, let go level.
fn rope(world: &mut World, tracked: &mut Tracked) {
    let hook_at = Vector::new(1.5, 6.5, 1.5);
    let hook = fixed(world, hook_at, ColliderBuilder::ball(0.15));
    let link = 0.3;
    let mut previous = hook;
    for i in 1..=10 {
        let at = hook_at + Vector::new(link * i as Real, 0.0, 0.0);
        let knot = ColliderBuilder::ball(0.1)
            .density(DENSITY)
            .friction(FRICTION);
        let body = dynamic(world, tracked, at, knot);
        world
            .add_joint(
                JointBuilder::rope(Point::origin(), Point::origin(), link),
                previous,
                body,
            )
            .expect("valid rope link");
        previous = body;
    }
    let end = hook_at + Vector::new(link * 11.0 + 0.2, 0.0, 0.0);
    let weight = ColliderBuilder::cuboid(0.25, 0.25, 0.25)
        .density(DENSITY)
        .friction(FRICTION);
    let body = dynamic(world, tracked, end, weight);
    world
        .add_joint(
            JointBuilder::rope(Point::origin(), Point::new(-0.2, 0.0, 0.0), link),
            previous,
            body,
        )
        .expect("valid rope link");
}

/// A paddle hinged to a post about z, turned by its motor (1.5 rad/s, at most 20,000 N m),
/// knocking over two cubes.
fn motor(world: &mut World, tracked: &mut Tracked) {
    let post = fixed(
        world,
        Vector::new(4.5, 1.5, -0.6),
        ColliderBuilder::cuboid(0.2, 1.5, 0.2),
    );
    let paddle = ColliderBuilder::cuboid(1.6, 0.15, 0.15)
        .density(DENSITY)
        .friction(FRICTION);
    let wheel = dynamic(world, tracked, Vector::new(4.5, 3.0, 0.0), paddle);
    let hinge = JointBuilder::hinge(
        Point::new(0.0, 1.5, 0.6),
        Point::origin(),
        Vector::z(),
        Vector::z(),
    )
    .motor(1.5, 20_000.0);
    world.add_joint(hinge, post, wheel).expect("valid hinge");
    // Something for it to stir: two cubes stacked where the paddle's tip sweeps.
    tracked.push(cube(world, Vector::new(5.6, 0.5, 0.0)));
    tracked.push(cube(world, Vector::new(5.6, 1.5, 0.0)));
}

/// A soft slab (a contact spring of 5 Hz, damping ratio 0.05: it gives and gives back) and
/// three balls dropped on it.
fn trampoline(world: &mut World, tracked: &mut Tracked) {
    let spring = Spring::Frequency {
        hertz: 5.0,
        damping_ratio: 0.05,
    };
    fixed(
        world,
        Vector::new(9.0, 0.4, 0.0),
        ColliderBuilder::cuboid(1.5, 0.4, 1.5)
            .friction(FRICTION)
            .soft_contact(spring),
    );
    for (i, (x, z)) in [(8.2, -0.7), (9.8, 0.7), (9.0, 0.0)]
        .into_iter()
        .enumerate()
    {
        let ball = ColliderBuilder::ball(0.4)
            .density(DENSITY)
            .friction(FRICTION);
        dynamic(
            world,
            tracked,
            Vector::new(x, 3.0 + 1.5 * i as Real, z),
            ball,
        );
    }
}

/// Eight random convex rocks (splitmix64, seed 7) dropped on a bumpy height field.
fn rocks(world: &mut World, tracked: &mut Tracked) {
    let heights = DMatrix::from_fn(17, 17, |i, j| {
        let (u, v) = (i as Real / 16.0, j as Real / 16.0);
        0.3 + 0.25 * (u * 9.0).sin() * (v * 7.0).cos()
    });
    fixed(
        world,
        Vector::new(0.0, 0.0, -7.0),
        ColliderBuilder::heightfield(heights, Vector::new(10.0, 1.0, 6.0)).friction(FRICTION),
    );
    let mut rng = Rng(7);
    for i in 0..8 {
        let points: Vec<Point<Real>> = (0..10).map(|_| Point::from(rng.vector(0.8))).collect();
        let rock = ColliderBuilder::convex_hull(&points)
            .density(DENSITY)
            .friction(FRICTION);
        let at = Vector::new(-3.5 + i as Real, 2.5 + 0.5 * (i % 3) as Real, -7.0);
        dynamic(world, tracked, at, rock);
    }
}

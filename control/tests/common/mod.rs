//! What the character tests share: the capsule (radius 0.3 m, half-height 0.6 m, 2 cm
//! skin), worlds to walk, and the check held at every step: nothing nearer than half the skin.
#![allow(dead_code)]

use sprung::math::{Isometry, Point, Real, UnitQuaternion, Vector};
use sprung::{BodyHandle, ColliderBuilder, QueryFilter, RigidBodyBuilder, Shape, World};
use sprung_control::{Character, CharacterSettings};

pub const DT: Real = 1.0 / 60.0;
pub const G: Real = 9.81;
pub const RADIUS: Real = 0.3;
pub const HALF_HEIGHT: Real = 0.6;
pub const SKIN: Real = 0.02;
/// The centre's height over a flat floor at rest: touching plus the skin.
pub const REST: Real = HALF_HEIGHT + RADIUS + SKIN;

pub fn capsule() -> Shape {
    Shape::capsule(HALF_HEIGHT, RADIUS).unwrap()
}

pub fn character(at: Point<Real>, settings: CharacterSettings) -> Character {
    Character::new(capsule(), at, settings).unwrap()
}

pub fn fixed(world: &mut World, pose: Isometry<Real>, collider: ColliderBuilder) -> BodyHandle {
    let body = world
        .add_body(RigidBodyBuilder::fixed().pose(pose))
        .unwrap();
    world.add_collider(collider, body).unwrap();
    body
}

/// A world whose floor is a 100 m box with its top at y = 0.
pub fn flat_world() -> World {
    let mut world = World::default();
    fixed(
        &mut world,
        Isometry::translation(0.0, -0.5, 0.0),
        ColliderBuilder::cuboid(50.0, 0.5, 50.0),
    );
    world
}

/// A box slope rising towards +x at `angle` (rad) whose top face passes through the origin;
/// returns its outward unit normal.
pub fn slope(world: &mut World, angle: Real) -> Vector<Real> {
    let turn = UnitQuaternion::from_axis_angle(&Vector::z_axis(), angle);
    let pose = Isometry::from_parts((turn * Vector::new(0.0, -0.5, 0.0)).into(), turn);
    fixed(world, pose, ColliderBuilder::cuboid(60.0, 0.5, 10.0));
    turn * Vector::y()
}

/// The nearest any collider comes to the character now (m), up to a metre.
pub fn clearance(world: &World, character: &Character) -> Real {
    world
        .contacts_with_shape(
            character.shape(),
            &character.pose(),
            1.0,
            &QueryFilter::new(),
        )
        .unwrap()
        .iter()
        .map(|c| c.distance)
        .fold(1.0, Real::min)
}

/// Asserts the check: no collider nearer than half the skin.
#[track_caller]
pub fn keeps_skin(world: &World, character: &Character, what: &str) {
    let near = clearance(world, character);
    assert!(
        near >= 0.5 * SKIN - 1e-5,
        "{what}: a collider {near} m from the character at {:?}",
        character.position()
    );
}

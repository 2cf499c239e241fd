//! The kinematic character (`sprung-control`'s [`Character`]: collide and slide, ground,
//! slopes, steps, moving platforms) as a component: set its [`CharacterController::goal`]
//! (the player's stick) and [`CharacterController::jump`] from input, and the plugin moves it
//! through its world after each step and writes its transform, drawn between fixed steps like
//! the bodies'.

use crate::convert;
use crate::plugin::Interpolation;
use crate::world::{DefaultPhysicsWorld, InWorld, PhysicsWorld};
use bevy::prelude::*;
use sprung::math::{Point, Real};
use sprung::QueryFilter;
pub use sprung_control::{Character, CharacterSettings};

/// A character the plugin walks through the world (the entity's own world, or the default).
#[derive(Component, Debug)]
#[require(Transform)]
pub struct CharacterController {
    /// The character: its shape, settings and state (position, velocity, ground).
    pub character: Character,
    /// The horizontal velocity it eases towards (m/s; its part along `up` is ignored).
    pub goal: Vec3,
    jump: Option<Real>,
    /// Its position before the last update, for drawing between fixed steps.
    previous: Vec3,
}

impl CharacterController {
    /// Walks `character` (made with `Character::new(shape, position, settings)`).
    pub fn new(character: Character) -> Self {
        let at = convert::vec3(&character.position().coords);
        CharacterController {
            character,
            goal: Vec3::ZERO,
            jump: None,
            previous: at,
        }
    }

    /// Jumps at the next update if it stands on something: its speed along `up` becomes
    /// `speed` (m/s) more than the ground's.
    pub fn jump(&mut self, speed: Real) {
        self.jump = Some(speed);
    }

    /// Whether it stands on walkable ground.
    pub fn is_grounded(&self) -> bool {
        self.character.is_grounded()
    }
}

/// Moves every character through its world by the step's `dt`, after the bodies' step.
pub(crate) fn move_characters(
    time: Res<Time>,
    default_world: Res<DefaultPhysicsWorld>,
    mut worlds: Query<&mut PhysicsWorld>,
    interpolation: Res<Interpolation>,
    mut characters: Query<(
        Entity,
        &mut CharacterController,
        &mut Transform,
        Option<&InWorld>,
    )>,
    mut order: Local<Vec<Entity>>,
) {
    let dt = time.delta_secs();
    let filter = QueryFilter::new();
    // In entity index order, through a list kept between steps (no allocation per step).
    order.clear();
    order.extend(characters.iter().map(|(entity, ..)| entity));
    order.sort_unstable_by_key(|entity| entity.index_u32());
    for &entity in order.iter() {
        let Ok((_, mut controller, mut transform, in_world)) = characters.get_mut(entity) else {
            continue;
        };
        let Ok(mut world) = worlds.get_mut(in_world.map_or(default_world.0, |w| w.0)) else {
            continue;
        };
        let controller = &mut *controller;
        controller.previous = convert::vec3(&controller.character.position().coords);
        if let Some(speed) = controller.jump.take() {
            if controller.character.is_grounded() {
                if let Err(error) = controller.character.jump(speed) {
                    warn!("{entity}: its jump was refused: {error}");
                }
            }
        }
        let goal = convert::vector(controller.goal);
        if let Err(error) = controller
            .character
            .update(world.world_mut(), goal, dt, &filter)
        {
            warn!("{entity}: its move was refused: {error}");
        }
        if !interpolation.0 {
            transform.translation = convert::vec3(&controller.character.position().coords);
        }
    }
}

/// Every character drawn where it is at this frame's time between its last two updates.
pub(crate) fn interpolate_characters(
    time: Res<Time<Fixed>>,
    mut characters: Query<(&CharacterController, &mut Transform)>,
) {
    let alpha = time.overstep_fraction();
    for (controller, mut transform) in &mut characters {
        let now = convert::vec3(&controller.character.position().coords);
        let drawn = controller.previous.lerp(now, alpha);
        if transform.translation != drawn {
            transform.translation = drawn;
        }
    }
}

/// A character at `position` (world) with `shape` and `settings`, or the reason sprung
/// refuses them.
pub fn character(
    shape: sprung::Shape,
    position: Vec3,
    settings: CharacterSettings,
) -> Result<Character, sprung::Error> {
    Character::new(shape, Point::from(convert::vector(position)), settings)
}

//! The kinematic character (`sprung-control`'s [`Character`]: collide and slide, ground,
//! slopes, steps, moving platforms) as a component: set its [`CharacterController::goal`]
//! (the player's stick) and [`CharacterController::jump`] from input, and the plugin moves it
//! through its world after each step and writes its transform, drawn between fixed steps like
//! the bodies'.

use crate::components::{BodyLink, Refused, RigidBody, Velocity};
use crate::convert;
use crate::plugin::Interpolation;
use crate::world::{DefaultPhysicsWorld, InWorld, PhysicsWorld};
use bevy::prelude::*;
use sprung::math::{Point, Real};
use sprung::QueryFilter;
pub use sprung_control::{Character, CharacterSettings, FloatingCharacter, FloatingSettings};

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

/// A floating character to spawn at the entity's transform (sprung-control's
/// [`FloatingCharacter`]: a dynamic body of `shape` held at its ride height by a spring along a
/// ray, kept upright, walked by capped motors, so that it feels pushes). Its body becomes the
/// entity's ([`RigidBody`], [`BodyLink`] added, written back like any body); the plugin walks
/// it towards [`Floating::goal`] before every step.
#[derive(Component, Clone, Debug)]
#[require(Transform, Velocity)]
pub struct Floating {
    /// Its shape (its axis along the settings' `up`).
    pub shape: sprung::Shape,
    /// Its mass, ride height, springs and motors' force.
    pub settings: FloatingSettings,
    /// The velocity it walks towards (m/s, relative to the ground it rides; its part along
    /// `up` is ignored).
    pub goal: Vec3,
}

/// The character the plugin spawned for a [`Floating`] entity. Added by the plugin.
#[derive(Component, Debug)]
pub struct FloatingLink {
    /// The entity of its [`PhysicsWorld`].
    pub world: Entity,
    /// The character (its body, joints and ground).
    pub character: FloatingCharacter,
}

/// Floating entities not spawned yet.
type NewFloating<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Floating,
        &'static Transform,
        Option<&'static InWorld>,
    ),
    (Without<FloatingLink>, Without<BodyLink>, Without<Refused>),
>;

/// Spawns the new floating characters (in entity index order) and walks every one towards its
/// goal.
pub(crate) fn prepare_floating(
    mut commands: Commands,
    default_world: Res<DefaultPhysicsWorld>,
    mut worlds: Query<&mut PhysicsWorld>,
    new: NewFloating,
    mut walking: Query<(Entity, &Floating, &mut FloatingLink)>,
) {
    let mut new: Vec<_> = new.iter().collect();
    new.sort_unstable_by_key(|(entity, ..)| entity.index_u32());
    for (entity, floating, transform, in_world) in new {
        let world_entity = in_world.map_or(default_world.0, |w| w.0);
        let Ok(mut world) = worlds.get_mut(world_entity) else {
            continue;
        };
        let at = Point::from(convert::vector(transform.translation));
        let spawned = FloatingCharacter::spawn(
            &mut world.world,
            floating.shape.clone(),
            at,
            floating.settings,
        );
        let mut character = match spawned {
            Ok(character) => character,
            Err(error) => {
                warn!("{entity}: its floating character was refused: {error}");
                commands.entity(entity).insert(Refused(error));
                continue;
            }
        };
        // Walked from its first step, as those spawned before.
        if let Err(error) = character.walk(&mut world.world, convert::vector(floating.goal)) {
            warn!("{entity}: its goal was refused: {error}");
        }
        let body = character.body();
        world.insert(entity, body);
        let colliders = world
            .world
            .body(body)
            .map(|b| b.colliders().to_vec())
            .unwrap_or_default();
        for c in colliders {
            world.colliders.insert(c, entity);
        }
        let (mut placed, mut velocity) = (*transform, Velocity::default());
        if let Some(b) = world.world.body(body) {
            convert::set_pose(&mut placed, b.pose());
            velocity.linear = convert::vec3(&b.linear_velocity());
            velocity.angular = convert::vec3(&b.angular_velocity());
        }
        commands.entity(entity).insert((
            RigidBody::Dynamic,
            placed,
            velocity,
            BodyLink {
                world: world_entity,
                handle: body,
                written: (placed.translation, placed.rotation, velocity),
            },
            FloatingLink {
                world: world_entity,
                character,
            },
        ));
    }
    for (entity, floating, mut link) in &mut walking {
        let link = &mut *link;
        let Ok(mut world) = worlds.get_mut(link.world) else {
            continue;
        };
        let goal = convert::vector(floating.goal);
        if let Err(error) = link.character.walk(&mut world.world, goal) {
            warn!("{entity}: its goal was refused: {error}");
        }
    }
}

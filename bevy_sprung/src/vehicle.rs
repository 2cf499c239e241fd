//! Vehicles as components: a [`Vehicle`] on an entity with a dynamic
//! [`RigidBody`](crate::RigidBody) and its [`Collider`](crate::Collider) (the chassis) puts
//! wheels under it. The player drives it
//! through [`VehicleControls`] (throttle, brake, handbrake, steering), handed to the engine
//! before each step; the plugin spawns a child entity per wheel ([`VehicleWheel`]) whose
//! transform it keeps where the wheel is in the chassis's frame (suspension, steering, spin),
//! so that a wheel mesh on it follows the chassis as drawn. Removing [`Vehicle`] takes the
//! wheels off (the chassis stays a body); despawning the chassis takes everything.

use crate::components::{BodyLink, Refused};
use crate::convert;
use crate::plugin::place;
use crate::world::PhysicsWorld;
use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use sprung::vehicle::{VehicleBuilder, VehicleHandle, VehicleInput};
use sprung::BodyHandle;
use sprung_control::{HoverInput, HoverRacer, HoverSettings};

/// Wheels under this entity's body, as `VehicleBuilder` describes them (its `chassis` is
/// ignored: the plugin sets it to the entity's body).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_sprung::prelude::*;
///
/// fn spawn_car(mut commands: Commands) {
///     commands.spawn((
///         RigidBody::Dynamic,
///         Collider::cuboid(Vec3::new(2.0, 0.3, 0.9)).with(|c| c.density(200.0)),
///         Transform::from_xyz(0.0, 1.0, 0.0),
///         Vehicle::car(),
///     ));
/// }
/// ```
#[derive(Component, Clone, Debug)]
#[require(VehicleControls)]
pub struct Vehicle(pub VehicleBuilder);

impl Vehicle {
    /// sprung's car (`VehicleBuilder::car`: forward +x, up +y, four wheels of 0.35 m, front
    /// steered, rear driven) under the entity's body.
    pub fn car() -> Self {
        Vehicle(VehicleBuilder::car(BodyHandle::INVALID))
    }
}

/// What the driver does: set it from input; the plugin hands it to the engine before each
/// step. Values out of range (throttle and steering in [-1, 1], brakes in [0, 1]) are refused
/// with a warning and the last good ones kept.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct VehicleControls(pub VehicleInput);

/// Where a vehicle entity's vehicle is, and its wheels' entities. Added by the plugin.
#[derive(Component, Clone, Debug)]
pub struct VehicleLink {
    /// The entity of its [`PhysicsWorld`].
    pub world: Entity,
    /// Its vehicle there (gear, engine speed, each wheel's load and slip:
    /// `PhysicsWorld::world().vehicle(handle)`).
    pub handle: VehicleHandle,
    /// Its wheels' entities (children of the chassis), in the builder's order.
    pub wheels: Vec<Entity>,
}

/// A wheel of a vehicle: which vehicle entity (its parent), which wheel. Spawned by the
/// plugin; its transform is the wheel's pose in the chassis's frame.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct VehicleWheel {
    /// The vehicle's (chassis's) entity.
    pub vehicle: Entity,
    /// The wheel's index in the builder's wheels.
    pub index: usize,
}

/// The vehicles of entities, kept so that one whose entity or component is gone can be found.
#[derive(Resource, Default)]
pub(crate) struct Vehicles(EntityHashMap<(Entity, VehicleHandle, Vec<Entity>)>);

/// Vehicle entities whose body is in and whose vehicle is not yet.
type NewVehicles<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Vehicle,
        &'static VehicleControls,
        &'static BodyLink,
    ),
    (Without<VehicleLink>, Without<Refused>),
>;

/// Takes off the vehicles whose component or entity is gone, adds new ones (in entity index
/// order) with their wheel entities, and hands the engine the controls players changed.
pub(crate) fn prepare_vehicles(
    mut commands: Commands,
    mut worlds: Query<&mut PhysicsWorld>,
    mut vehicles: ResMut<Vehicles>,
    mut removed: RemovedComponents<Vehicle>,
    new: NewVehicles,
    controls: Query<(Entity, &VehicleControls, &VehicleLink), Changed<VehicleControls>>,
) {
    for entity in removed.read() {
        let Some((world_entity, handle, wheels)) = vehicles.0.remove(&entity) else {
            continue;
        };
        if let Ok(mut world) = worlds.get_mut(world_entity) {
            // Gone already if its chassis was.
            let _ = world.world.remove_vehicle(handle);
        }
        for wheel in wheels {
            if let Ok(mut e) = commands.get_entity(wheel) {
                e.despawn();
            }
        }
        if let Ok(mut e) = commands.get_entity(entity) {
            e.try_remove::<VehicleLink>();
        }
    }
    let mut new: Vec<_> = new.iter().collect();
    new.sort_unstable_by_key(|(entity, ..)| entity.index_u32());
    for (entity, vehicle, controls, body) in new {
        let Ok(mut world) = worlds.get_mut(body.world) else {
            continue;
        };
        let builder = VehicleBuilder {
            chassis: body.handle,
            ..vehicle.0.clone()
        };
        let handle = match world.world.add_vehicle(builder) {
            Ok(handle) => handle,
            Err(error) => {
                warn!("{entity}: its vehicle was refused: {error}");
                commands.entity(entity).insert(Refused(error));
                continue;
            }
        };
        if let Err(error) = world.world.set_vehicle_input(handle, controls.0) {
            warn!("{entity}: its controls were refused: {error}");
        }
        let mut wheels = Vec::new();
        for index in 0..vehicle.0.wheels.len() {
            let mut transform = Transform::default();
            if let Some(pose) = world
                .world
                .vehicle(handle)
                .and_then(|v| v.wheel_pose(index))
            {
                convert::set_pose(&mut transform, &pose);
            }
            let wheel = commands
                .spawn((
                    VehicleWheel {
                        vehicle: entity,
                        index,
                    },
                    transform,
                    ChildOf(entity),
                ))
                .id();
            wheels.push(wheel);
        }
        vehicles
            .0
            .insert(entity, (body.world, handle, wheels.clone()));
        commands.entity(entity).insert(VehicleLink {
            world: body.world,
            handle,
            wheels,
        });
    }
    for (entity, controls, link) in &controls {
        let Ok(mut world) = worlds.get_mut(link.world) else {
            continue;
        };
        if let Err(error) = world.world.set_vehicle_input(link.handle, controls.0) {
            warn!("{entity}: its controls were refused: {error}");
        }
    }
}

/// Each wheel entity's transform: where its wheel is in the chassis's frame after the step.
pub(crate) fn write_wheels(
    worlds: Query<&PhysicsWorld>,
    vehicles: Query<&VehicleLink>,
    mut wheels: Query<&mut Transform, With<VehicleWheel>>,
) {
    for link in &vehicles {
        let Some(vehicle) = worlds
            .get(link.world)
            .ok()
            .and_then(|world| world.world.vehicle(link.handle))
        else {
            continue;
        };
        for (index, &wheel) in link.wheels.iter().enumerate() {
            let (Ok(mut transform), Some(pose)) =
                (wheels.get_mut(wheel), vehicle.wheel_pose(index))
            else {
                continue;
            };
            place(&mut transform, &pose);
        }
    }
}

/// A hover racer on this entity's body (sprung-control's [`HoverRacer`]: springs along rays
/// from pads hold it at its height, an upright spring keeps it level, capped motors drive and
/// turn it), driven through [`HoverControls`] before every step.
#[derive(Component, Clone, Debug)]
#[require(HoverControls)]
pub struct Hover(pub HoverSettings);

/// What the pilot does: set it from input (throttle and steering in [-1, 1]); the plugin
/// drives the racer with it before every step. Values out of range are refused with a warning
/// and the racer left as the last good ones set it.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct HoverControls(pub HoverInput);

/// The racer the plugin made for a [`Hover`] entity, in the entity's world (its joints:
/// `racer.joints()`). Added by the plugin.
#[derive(Component, Debug)]
pub struct HoverLink {
    /// The entity of its [`PhysicsWorld`].
    pub world: Entity,
    /// The racer.
    pub racer: HoverRacer,
}

/// Hover entities whose body is in and whose racer is not yet.
type NewHovers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Hover,
        &'static HoverControls,
        &'static BodyLink,
    ),
    (Without<HoverLink>, Without<Refused>),
>;

/// Takes the racers off the entities whose `Hover` was removed, makes the new ones' (in entity
/// index order), and drives every racer with its controls.
pub(crate) fn prepare_hovers(
    mut commands: Commands,
    mut worlds: Query<&mut PhysicsWorld>,
    mut removed: RemovedComponents<Hover>,
    new: NewHovers,
    mut racers: Query<(Entity, &mut HoverLink, Option<&HoverControls>)>,
) {
    for entity in removed.read() {
        // (A despawned entity's racer went with its body.)
        let Ok((_, link, _)) = racers.get(entity) else {
            continue;
        };
        if let Ok(mut world) = worlds.get_mut(link.world) {
            let (pads, upright, motors, turn) = link.racer.joints();
            for joint in pads.iter().chain([&upright, &turn]).chain(&motors) {
                let _ = world.world.remove_joint(*joint);
            }
        }
        commands.entity(entity).remove::<HoverLink>();
    }
    let mut new: Vec<_> = new.iter().collect();
    new.sort_unstable_by_key(|(entity, ..)| entity.index_u32());
    for (entity, hover, controls, body) in new {
        let Ok(mut world) = worlds.get_mut(body.world) else {
            continue;
        };
        match HoverRacer::new(&mut world.world, body.handle, hover.0.clone()) {
            Ok(mut racer) => {
                // Driven from its first step, as the racers already made below.
                if let Err(error) = racer.drive(&mut world.world, controls.0) {
                    warn!("{entity}: its hover controls were refused: {error}");
                }
                commands.entity(entity).insert(HoverLink {
                    world: body.world,
                    racer,
                });
            }
            Err(error) => {
                warn!("{entity}: its hover racer was refused: {error}");
                commands.entity(entity).insert(Refused(error));
            }
        }
    }
    for (entity, mut link, controls) in &mut racers {
        let input = controls.map_or(HoverInput::default(), |c| c.0);
        let link = &mut *link;
        let Ok(mut world) = worlds.get_mut(link.world) else {
            continue;
        };
        if let Err(error) = link.racer.drive(&mut world.world, input) {
            warn!("{entity}: its hover controls were refused: {error}");
        }
    }
}

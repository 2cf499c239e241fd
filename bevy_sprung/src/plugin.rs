//! The plugin: the step in Bevy's fixed timestep, in three public sets (prepare, step,
//! write-back) that user systems can be ordered around, and the transforms drawn between fixed
//! steps from the engine's interpolated poses.

use crate::character::{interpolate_characters, move_characters, prepare_floating};
use crate::colliders::{prepare_colliders, ChildColliders};
use crate::components::{
    BodyLink, Collider, Joint, JointLink, Refused, RigidBody, Velocity, WorldJoint,
};
use crate::convert;
use crate::messages::{ContactBegan, ContactEnded, SensorEntered, SensorLeft};
use crate::ragdoll::{prepare_ragdolls, Ragdolls};
use crate::vehicle::{prepare_hovers, prepare_vehicles, write_wheels, Vehicles};
use crate::world::{DefaultPhysicsWorld, InWorld, PhysicsWorld};
use bevy::app::{RunFixedMainLoop, RunFixedMainLoopSystems};
use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use sprung::math::{Isometry, Real};
use sprung::{Event, RigidBodyBuilder, SleepSettings, SolverSettings};

/// sprung in a Bevy app. By default the step runs in [`FixedPostUpdate`] (set its rate with
/// `Time::<Fixed>::from_hz`) and transforms are interpolated between fixed steps.
pub struct SprungPlugin {
    schedule: Interned<dyn ScheduleLabel>,
    interpolate: bool,
}

impl Default for SprungPlugin {
    fn default() -> Self {
        SprungPlugin {
            schedule: FixedPostUpdate.intern(),
            interpolate: true,
        }
    }
}

impl SprungPlugin {
    /// The step in `schedule` instead (a fixed one, or the world steps by frame times, which
    /// sprung refuses outside its time step limits).
    pub fn in_schedule(mut self, schedule: impl ScheduleLabel) -> Self {
        self.schedule = schedule.intern();
        self
    }

    /// Whether transforms are drawn between fixed steps (default) or written only after each
    /// step, as the engine left them.
    pub fn interpolate(mut self, on: bool) -> Self {
        self.interpolate = on;
        self
    }
}

/// The plugin's systems, in this order in its schedule: order yours around them.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SprungSystems {
    /// New bodies added, removed ones taken out, transforms and velocities their users
    /// changed handed to the engine.
    Prepare,
    /// Every world stepped by the schedule's time step, then the characters moved through
    /// it.
    Step,
    /// Velocities (and, without interpolation, transforms) written back.
    Writeback,
}

/// The default world's gravity (m/s^2; default 9.81 down y). Other worlds keep their own
/// (`PhysicsWorld::world_mut().set_gravity`).
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct Gravity(pub Vec3);

impl Default for Gravity {
    fn default() -> Self {
        Gravity(Vec3::new(0.0, -9.81, 0.0))
    }
}

/// The default world's solver and sleep settings (sprung's defaults: seven substeps, islands
/// asleep after half a second at rest...). Change them and the plugin hands them to the world
/// before the next step; settings sprung refuses are warned of and change nothing. Other
/// worlds keep their own (`PhysicsWorld::world_mut().set_settings`).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct PhysicsSettings {
    /// Substeps, iterations, softness, threads, lane width.
    pub solver: SolverSettings,
    /// When islands fall asleep, or whether they may.
    pub sleep: SleepSettings,
}

/// Hands the default world the gravity and settings its user changed.
fn apply_settings(
    gravity: Res<Gravity>,
    settings: Res<PhysicsSettings>,
    default_world: Res<DefaultPhysicsWorld>,
    mut worlds: Query<&mut PhysicsWorld>,
) {
    if !gravity.is_changed() && !settings.is_changed() {
        return;
    }
    let Ok(mut world) = worlds.get_mut(default_world.0) else {
        return;
    };
    let world = &mut world.world;
    if gravity.is_changed() {
        if let Err(error) = world.set_gravity(convert::vector(gravity.0)) {
            warn!("gravity {} was refused: {error}", gravity.0);
        }
    }
    if settings.is_changed() {
        if let Err(error) = world.set_settings(settings.solver) {
            warn!(
                "solver settings {:?} were refused: {error}",
                settings.solver
            );
        }
        if let Err(error) = world.set_sleep_settings(settings.sleep) {
            warn!("sleep settings {:?} were refused: {error}", settings.sleep);
        }
    }
}

/// Whether transforms are interpolated (see [`SprungPlugin::interpolate`]).
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interpolation(pub bool);

impl Plugin for SprungPlugin {
    fn build(&self, app: &mut App) {
        let world = app.world_mut().spawn(PhysicsWorld::default()).id();
        app.insert_resource(DefaultPhysicsWorld(world))
            .insert_resource(Interpolation(self.interpolate))
            .init_resource::<Gravity>()
            .init_resource::<PhysicsSettings>()
            .init_resource::<Ragdolls>()
            .init_resource::<Vehicles>()
            .init_resource::<ChildColliders>()
            .add_message::<ContactBegan>()
            .add_message::<ContactEnded>()
            .add_message::<SensorEntered>()
            .add_message::<SensorLeft>()
            .configure_sets(
                self.schedule,
                (
                    SprungSystems::Prepare,
                    SprungSystems::Step,
                    SprungSystems::Writeback,
                )
                    .chain(),
            )
            .add_systems(
                self.schedule,
                (
                    (
                        apply_settings,
                        prepare,
                        prepare_colliders,
                        prepare_ragdolls,
                        prepare_vehicles,
                        prepare_hovers,
                        prepare_floating,
                        prepare_joints,
                    )
                        .chain()
                        .in_set(SprungSystems::Prepare),
                    (step, move_characters).chain().in_set(SprungSystems::Step),
                    (write_back, write_wheels).in_set(SprungSystems::Writeback),
                ),
            )
            .add_systems(
                RunFixedMainLoop,
                (interpolate, interpolate_characters)
                    .run_if(|on: Res<Interpolation>| on.0)
                    .in_set(RunFixedMainLoopSystems::AfterFixedMainLoop),
            );
    }
}

/// The bodies of entities a step has not seen yet.
type NewBodies<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static RigidBody,
        &'static Transform,
        &'static Velocity,
        Option<&'static Collider>,
        Option<&'static InWorld>,
    ),
    (Without<BodyLink>, Without<Refused>),
>;

/// Takes out the bodies of despawned entities, adds new ones (in the order of their entities'
/// indices, so that the same spawns give the same world), and hands the engine what users
/// changed.
fn prepare(
    mut commands: Commands,
    default_world: Res<DefaultPhysicsWorld>,
    mut worlds: Query<&mut PhysicsWorld>,
    mut removed: RemovedComponents<RigidBody>,
    new: NewBodies,
    mut linked: Query<(&mut BodyLink, &RigidBody, &Transform, &Velocity)>,
) {
    for entity in removed.read() {
        for mut world in &mut worlds {
            if world.remove(entity) {
                break;
            }
        }
        if let Ok(mut e) = commands.get_entity(entity) {
            e.try_remove::<BodyLink>();
        }
    }
    let mut new: Vec<_> = new.iter().collect();
    // (By index: live entities' indices differ, and a fresh app hands them out in spawn
    // order; `Entity`'s own order is by its bits, which run the other way.)
    new.sort_unstable_by_key(|(entity, ..)| entity.index_u32());
    for (entity, kind, transform, velocity, collider, in_world) in new {
        let world_entity = in_world.map_or(default_world.0, |w| w.0);
        let Ok(mut world) = worlds.get_mut(world_entity) else {
            warn!("{entity}: no physics world on {world_entity}");
            continue;
        };
        let builder = match kind {
            RigidBody::Dynamic => RigidBodyBuilder::dynamic(),
            RigidBody::Kinematic => RigidBodyBuilder::kinematic(),
            RigidBody::Fixed => RigidBodyBuilder::fixed(),
        }
        .pose(convert::pose(transform))
        .linear_velocity(convert::vector(velocity.linear))
        .angular_velocity(convert::vector(velocity.angular));
        let handle = match world.world.add_body(builder) {
            Ok(handle) => handle,
            Err(error) => {
                warn!("{entity}: its body was refused: {error}");
                commands.entity(entity).insert(Refused(error));
                continue;
            }
        };
        if let Some(collider) = collider {
            match world.world.add_collider(collider.0.clone(), handle) {
                Ok(c) => {
                    world.colliders.insert(c, entity);
                }
                Err(error) => warn!("{entity}: its collider was refused: {error}"),
            }
        }
        world.insert(entity, handle);
        commands.entity(entity).insert(BodyLink {
            world: world_entity,
            handle,
            written: (transform.translation, transform.rotation, *velocity),
        });
    }
    for (mut link, kind, transform, velocity) in &mut linked {
        let Ok(mut world) = worlds.get_mut(link.world) else {
            continue;
        };
        let (translation, rotation, written) = link.written;
        if transform.translation != translation || transform.rotation != rotation {
            let pose = convert::pose(transform);
            let moved = match kind {
                RigidBody::Kinematic => world.world.set_kinematic_target(link.handle, pose),
                _ => world.world.set_pose(link.handle, pose),
            };
            if let Err(error) = moved {
                warn!("its transform was refused: {error}");
            }
            link.written.0 = transform.translation;
            link.written.1 = transform.rotation;
        }
        if *velocity != written {
            let (v, w) = (velocity.linear, velocity.angular);
            let set = world
                .world
                .set_linear_velocity(link.handle, convert::vector(v))
                .and_then(|()| {
                    world
                        .world
                        .set_angular_velocity(link.handle, convert::vector(w))
                });
            if let Err(error) = set {
                warn!("its velocity was refused: {error}");
            }
            link.written.2 = *velocity;
        }
    }
}

/// The messages the step writes.
#[derive(SystemParam)]
struct Writers<'w> {
    began: MessageWriter<'w, ContactBegan>,
    ended: MessageWriter<'w, ContactEnded>,
    entered: MessageWriter<'w, SensorEntered>,
    left: MessageWriter<'w, SensorLeft>,
}

/// Joint entities not added yet: added once both their bodies are in one world.
type NewJoints<'w, 's> = Query<
    'w,
    's,
    (Entity, Option<&'static Joint>, Option<&'static WorldJoint>),
    (
        Without<JointLink>,
        Without<Refused>,
        Or<(With<Joint>, With<WorldJoint>)>,
    ),
>;

/// Takes out the joints of despawned joint entities, and adds new ones whose bodies are in
/// (in entity index order).
fn prepare_joints(
    mut commands: Commands,
    mut worlds: Query<&mut PhysicsWorld>,
    mut removed: RemovedComponents<Joint>,
    mut removed_world: RemovedComponents<WorldJoint>,
    new: NewJoints,
    links: Query<&BodyLink>,
) {
    for entity in removed.read().chain(removed_world.read()) {
        for mut world in &mut worlds {
            if world.remove_joint(entity) {
                break;
            }
        }
        if let Ok(mut e) = commands.get_entity(entity) {
            e.try_remove::<JointLink>();
        }
    }
    let mut new: Vec<_> = new.iter().collect();
    new.sort_unstable_by_key(|(entity, ..)| entity.index_u32());
    for (entity, joint, world_joint) in new {
        let added = match (joint, world_joint) {
            (Some(joint), _) => {
                let (Ok(a), Ok(b)) = (links.get(joint.bodies.0), links.get(joint.bodies.1)) else {
                    continue;
                };
                if a.world != b.world {
                    warn!("{entity}: its bodies are in different worlds");
                    continue;
                }
                let Ok(mut world) = worlds.get_mut(a.world) else {
                    continue;
                };
                let handle = world
                    .world
                    .add_joint(joint.builder.clone(), a.handle, b.handle);
                (a.world, handle)
            }
            (None, Some(joint)) => {
                let Ok(body) = links.get(joint.body) else {
                    continue;
                };
                let Ok(mut world) = worlds.get_mut(body.world) else {
                    continue;
                };
                let handle = world
                    .world
                    .add_world_joint(joint.builder.clone(), body.handle);
                (body.world, handle)
            }
            (None, None) => continue,
        };
        match added {
            (world_entity, Ok(handle)) => {
                if let Ok(mut world) = worlds.get_mut(world_entity) {
                    world.joints.insert(entity, handle);
                }
                commands.entity(entity).insert(JointLink {
                    world: world_entity,
                    handle,
                });
            }
            (_, Err(error)) => {
                warn!("{entity}: its joint was refused: {error}");
                commands.entity(entity).insert(Refused(error));
            }
        }
    }
}

/// Every world stepped by the schedule's time step, its events written as messages.
fn step(time: Res<Time>, mut worlds: Query<(Entity, &mut PhysicsWorld)>, mut writers: Writers) {
    let dt = time.delta_secs();
    for (world_entity, mut world) in &mut worlds {
        if let Err(error) = world.world.step(dt) {
            warn!("a physics step of {dt} s was refused: {error}");
        }
        let world = &mut *world;
        let colliders = &world.colliders;
        let of = |c| colliders.get(&c).copied();
        for event in world.world.drain_events() {
            match event {
                Event::ContactBegan {
                    colliders: (a, b),
                    impulse,
                    ..
                } => {
                    if let (Some(a), Some(b)) = (of(a), of(b)) {
                        writers.began.write(ContactBegan {
                            world: world_entity,
                            entities: (a, b),
                            impulse,
                        });
                    }
                }
                Event::ContactEnded {
                    colliders: (a, b),
                    max_impulse,
                    ..
                } => {
                    if let (Some(a), Some(b)) = (of(a), of(b)) {
                        writers.ended.write(ContactEnded {
                            world: world_entity,
                            entities: (a, b),
                            max_impulse,
                        });
                    }
                }
                Event::SensorEntered { sensor, other, .. } => {
                    if let (Some(sensor), Some(other)) = (of(sensor), of(other)) {
                        writers.entered.write(SensorEntered {
                            world: world_entity,
                            sensor,
                            other,
                        });
                    }
                }
                Event::SensorLeft { sensor, other, .. } => {
                    if let (Some(sensor), Some(other)) = (of(sensor), of(other)) {
                        writers.left.write(SensorLeft {
                            world: world_entity,
                            sensor,
                            other,
                        });
                    }
                }
                _ => {}
            }
        }
    }
}

/// Each body's velocity, and its pose unless interpolation draws it, written to its entity
/// (only where they changed, so that resting bodies cost no transform propagation). Walks
/// the worlds' bodies, not the app's entities.
fn write_back(
    interpolation: Res<Interpolation>,
    worlds: Query<&PhysicsWorld>,
    mut bodies: Query<(&mut Transform, &mut Velocity, &mut BodyLink)>,
) {
    for world in &worlds {
        for &(entity, handle) in &world.bodies {
            let (Ok((mut transform, mut velocity, mut link)), Some(body)) =
                (bodies.get_mut(entity), world.world.body(handle))
            else {
                continue;
            };
            let now = Velocity {
                linear: convert::vec3(&body.linear_velocity()),
                angular: convert::vec3(&body.angular_velocity()),
            };
            velocity.set_if_neq(now);
            link.written.2 = now;
            if !interpolation.0 {
                (link.written.0, link.written.1) = place(&mut transform, body.pose());
            }
        }
    }
}

/// Every body drawn where it is at this frame's time between the last two fixed steps.
fn interpolate(
    time: Res<Time<Fixed>>,
    worlds: Query<&PhysicsWorld>,
    mut bodies: Query<(&mut Transform, &mut BodyLink)>,
) {
    let alpha = time.overstep_fraction();
    for world in &worlds {
        for &(entity, handle) in &world.bodies {
            let (Ok((mut transform, mut link)), Some(pose)) = (
                bodies.get_mut(entity),
                world.world.interpolated_pose(handle, alpha),
            ) else {
                continue;
            };
            // Moved by its user since the plugin last wrote it: left for the next step's
            // prepare to hand to the engine (a frame without a fixed step would lose it).
            if transform.translation != link.written.0 || transform.rotation != link.written.1 {
                continue;
            }
            (link.written.0, link.written.1) = place(&mut transform, &pose);
        }
    }
}

/// Puts `transform` at `pose` (its scale kept), touching it only if that moves it, so that
/// what rests costs no change detection or transform propagation; what it wrote.
pub(crate) fn place(transform: &mut Mut<Transform>, pose: &Isometry<Real>) -> (Vec3, Quat) {
    let translation = convert::vec3(&pose.translation.vector);
    let rotation = convert::quat(&pose.rotation);
    if transform.translation != translation || transform.rotation != rotation {
        transform.translation = translation;
        transform.rotation = rotation;
    }
    (translation, rotation)
}

//! A small 3D prototype on sprung: run a character along a course of ramps and steps, through
//! a wall of crates, knock over the ragdolls at its end, drive the car parked beside it, and
//! drag anything with the mouse (a spring to the cursor).
//!
//! `cargo run --manifest-path bevy_sprung/Cargo.toml --example game --features example`
//!
//! WASD or the arrows walk, Space jumps; Tab gets into the car or out of it (then W and S
//! drive forward and back, A and D steer, Space is the handbrake); R brings the ragdolls back,
//! the left mouse button drags what is under the cursor, F1 shows the colliders.

use bevy::prelude::*;
use bevy::render::view::screenshot::{save_to_disk, Screenshot, ScreenshotCaptured};
use bevy_sprung::prelude::*;
use bevy_sprung::sprung::math::Point;
use bevy_sprung::sprung::{Shape, Spring};
use bevy_sprung::{
    character, convert, BodyLink, DebugRender, JointLink, RagdollLink, SprungDebugPlugin,
};

fn main() -> AppExit {
    App::new()
        .add_plugins((DefaultPlugins, SprungPlugin::default(), SprungDebugPlugin))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .insert_resource(DebugRender(false))
        .init_resource::<Drag>()
        .init_resource::<Verdict>()
        .init_resource::<Driving>()
        .add_systems(Startup, (course, player, ragdolls, car))
        .add_systems(
            Update,
            (
                walk,
                drive,
                dress_wheels,
                drag,
                respawn,
                dress_ragdolls,
                follow,
                toggle_colliders,
                screenshot.after(walk).after(drive),
            ),
        )
        .run()
}

/// With `SPRUNG_SCREENSHOT=FILE.png`: after three seconds of play (the character sent running into
/// the crates; the player in the car from the first fifth of a second, driving it up beside the
/// course; the colliders drawn) the window is saved to the file and checked, and the app ends:
/// with success if the picture has the scene's many colours, with an error if it is blank or one
/// colour (CI's render check, under Xvfb with a software Vulkan).
#[allow(clippy::too_many_arguments)]
fn screenshot(
    time: Res<Time>,
    mut commands: Commands,
    mut taken: Local<Option<f32>>,
    verdict: Res<Verdict>,
    mut exit: MessageWriter<AppExit>,
    mut player: Query<&mut CharacterController, With<Player>>,
    mut car: Query<&mut VehicleControls, With<Car>>,
    mut driving: ResMut<Driving>,
    mut show: ResMut<DebugRender>,
) {
    let Ok(path) = std::env::var("SPRUNG_SCREENSHOT") else {
        return;
    };
    let now = time.elapsed_secs();
    if let Ok(mut controller) = player.single_mut() {
        controller.goal = if now < 2.0 { Vec3::Z * 6.0 } else { Vec3::ZERO };
    }
    driving.0 = now > 0.2;
    if let (true, Ok(mut controls)) = (driving.0, car.single_mut()) {
        controls.0 = VehicleInput {
            throttle: 1.0,
            ..default()
        };
    }
    show.0 = true;
    match *taken {
        None if now > 3.0 => {
            commands
                .spawn(Screenshot::primary_window())
                .observe(save_to_disk(path))
                .observe(judge);
            *taken = Some(now);
        }
        // The file is written on another thread: some time for it before the app ends.
        Some(at) if now > at + 3.0 => match verdict.0 {
            Some(colours) if colours >= 20 => {
                info!("screenshot: {colours} colours");
                exit.write(AppExit::Success);
            }
            Some(colours) => {
                error!("screenshot: {colours} colours, nothing drawn");
                exit.write(AppExit::error());
            }
            None if now > at + 20.0 => {
                error!("screenshot: never captured");
                exit.write(AppExit::error());
            }
            None => {}
        },
        _ => {}
    }
}

/// How many colours the screenshot had (a sample of its pixels).
#[derive(Resource, Default)]
struct Verdict(Option<usize>);

fn judge(captured: On<ScreenshotCaptured>, mut verdict: ResMut<Verdict>) {
    let colours: std::collections::HashSet<&[u8]> = captured
        .image
        .data
        .as_deref()
        .unwrap_or_default()
        .chunks_exact(4)
        .step_by(97)
        .collect();
    verdict.0 = Some(colours.len());
}

/// The character the player walks.
#[derive(Component)]
struct Player;

/// The car the player drives.
#[derive(Component)]
struct Car;

/// Whether the player is in the car (Tab).
#[derive(Resource, Default)]
struct Driving(bool);

/// The mouse spring, while a button is held.
#[derive(Resource, Default)]
struct Drag {
    joint: Option<Entity>,
    distance: f32,
}

fn colour(
    meshes: &mut Assets<StandardMaterial>,
    r: f32,
    g: f32,
    b: f32,
) -> Handle<StandardMaterial> {
    meshes.add(StandardMaterial {
        base_color: Color::srgb(r, g, b),
        perceptual_roughness: 0.8,
        ..default()
    })
}

/// The ground, a course of ramps and steps, a light and the camera.
fn course(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.spawn((
        RigidBody::Fixed,
        Collider::halfspace(Vec3::Y),
        Mesh3d(meshes.add(Plane3d::default().mesh().size(200.0, 200.0))),
        MeshMaterial3d(colour(&mut materials, 0.35, 0.5, 0.3)),
    ));
    let stone = colour(&mut materials, 0.6, 0.6, 0.65);
    // Blocks along +z: (centre, half extents, tilt about x).
    let blocks = [
        (Vec3::new(0.0, 0.5, 12.0), Vec3::new(3.0, 0.1, 4.0), -0.25),
        (Vec3::new(0.0, 1.0, 19.0), Vec3::new(3.0, 1.0, 3.0), 0.0),
        (Vec3::new(0.0, 0.75, 24.0), Vec3::new(3.0, 0.75, 2.0), 0.0),
        (Vec3::new(0.0, 0.5, 28.0), Vec3::new(3.0, 0.5, 2.0), 0.0),
        (Vec3::new(0.0, 0.25, 32.0), Vec3::new(3.0, 0.25, 2.0), 0.0),
    ];
    for (centre, half, tilt) in blocks {
        commands.spawn((
            RigidBody::Fixed,
            Collider::cuboid(half),
            Transform::from_translation(centre).with_rotation(Quat::from_rotation_x(tilt)),
            Mesh3d(meshes.add(Cuboid::from_size(half * 2.0))),
            MeshMaterial3d(stone.clone()),
        ));
    }
    // A wall of crates to push through.
    let wood = colour(&mut materials, 0.7, 0.5, 0.3);
    for level in 0..3 {
        for k in 0..5 {
            commands.spawn((
                RigidBody::Dynamic,
                Collider::cuboid(Vec3::splat(0.4)).with(|c| c.density(60.0)),
                Transform::from_xyz(k as f32 * 0.82 - 1.64, 0.4 + level as f32 * 0.81, 6.0),
                Mesh3d(meshes.add(Cuboid::from_size(Vec3::splat(0.8)))),
                MeshMaterial3d(wood.clone()),
            ));
        }
    }
    commands.spawn((
        DirectionalLight {
            illuminance: 8_000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(10.0, 20.0, -5.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        Camera3d::default(),
        Transform::from_xyz(0.0, 6.0, -10.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
}

fn player(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let (half, radius) = (0.5, 0.35);
    let shape = Shape::capsule(half, radius).expect("a capsule");
    // Strong enough to push through the crate wall (200 N by default: a crate with two on it
    // takes more than that to slide).
    let settings = CharacterSettings {
        max_push_force: 1_500.0,
        ..default()
    };
    let walker = character(shape, Vec3::new(0.0, 1.2, 0.0), settings).expect("a character");
    commands.spawn((
        Player,
        CharacterController::new(walker),
        Mesh3d(meshes.add(Capsule3d::new(radius, 2.0 * half))),
        MeshMaterial3d(colour(&mut materials, 0.9, 0.2, 0.2)),
    ));
}

/// Three humanoids standing at the course's end.
fn ragdolls(mut commands: Commands) {
    for k in 0..3 {
        commands.spawn((
            Ragdoll(RagdollBuilder::humanoid()),
            Transform::from_xyz(k as f32 * 1.2 - 1.2, 0.02, 38.0)
                .with_rotation(Quat::from_rotation_y(std::f32::consts::PI)),
        ));
    }
}

/// A car parked beside the course's start, facing along it (+z): sprung's car under an
/// 860 kg chassis.
fn car(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let half = Vec3::new(2.0, 0.3, 0.9);
    commands.spawn((
        Car,
        RigidBody::Dynamic,
        Collider::cuboid(half).with(|c| c.density(200.0)),
        // The car's forward is its chassis's +x: turned to face +z.
        Transform::from_xyz(5.0, 1.0, 0.0)
            .with_rotation(Quat::from_rotation_y(-std::f32::consts::FRAC_PI_2)),
        Vehicle::car(),
        Mesh3d(meshes.add(Cuboid::from_size(half * 2.0))),
        MeshMaterial3d(colour(&mut materials, 0.2, 0.35, 0.8)),
    ));
}

/// Gives each wheel a tyre: a cylinder about its axle (the chassis's z), on a child, since
/// the plugin writes the wheel entity's own transform.
fn dress_wheels(
    mut commands: Commands,
    wheels: Query<Entity, Added<VehicleWheel>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let rubber = colour(&mut materials, 0.1, 0.1, 0.1);
    for wheel in &wheels {
        // (Drawn things' parents are drawn things too.)
        commands.entity(wheel).insert(Visibility::default());
        commands.spawn((
            Mesh3d(meshes.add(Cylinder::new(0.35, 0.25))),
            MeshMaterial3d(rubber.clone()),
            Transform::from_rotation(Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
            ChildOf(wheel),
        ));
    }
}

/// Tab: into the car or out of it. In it, W and S (or the arrows) drive forward and back, A
/// and D steer, Space holds the handbrake; out of it, the car coasts to a stop on its brake.
fn drive(
    keys: Res<ButtonInput<KeyCode>>,
    mut driving: ResMut<Driving>,
    mut car: Query<&mut VehicleControls, With<Car>>,
) {
    if keys.just_pressed(KeyCode::Tab) {
        driving.0 = !driving.0;
    }
    let Ok(mut controls) = car.single_mut() else {
        return;
    };
    let held = |a, b| keys.pressed(a) || keys.pressed(b);
    let axis = |plus: bool, minus: bool| f32::from(u8::from(plus)) - f32::from(u8::from(minus));
    let input = if driving.0 {
        VehicleInput {
            throttle: axis(
                held(KeyCode::KeyW, KeyCode::ArrowUp),
                held(KeyCode::KeyS, KeyCode::ArrowDown),
            ),
            steering: axis(
                held(KeyCode::KeyA, KeyCode::ArrowLeft),
                held(KeyCode::KeyD, KeyCode::ArrowRight),
            ),
            handbrake: f32::from(u8::from(keys.pressed(KeyCode::Space))),
            brake: 0.0,
        }
    } else {
        VehicleInput {
            brake: 1.0,
            ..default()
        }
    };
    controls.set_if_neq(VehicleControls(input));
}

/// Gives each ragdoll part the capsule it is.
fn dress_ragdolls(
    mut commands: Commands,
    parts: Query<(Entity, &RagdollPart), Added<RagdollPart>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let skin = colour(&mut materials, 0.85, 0.75, 0.6);
    let humanoid = RagdollBuilder::humanoid();
    for (entity, part) in &parts {
        let p = &humanoid.parts[part.index];
        commands.entity(entity).insert((
            Mesh3d(meshes.add(Capsule3d::new(p.radius, p.half_height * 2.0))),
            MeshMaterial3d(skin.clone()),
        ));
    }
}

/// R: the ragdolls despawned and spawned again where they stood.
fn respawn(
    keys: Res<ButtonInput<KeyCode>>,
    mut commands: Commands,
    dolls: Query<Entity, With<RagdollLink>>,
) {
    if keys.just_pressed(KeyCode::KeyR) {
        for doll in &dolls {
            commands.entity(doll).despawn();
        }
        ragdolls(commands);
    }
}

/// WASD or the arrows walk the character (6 m/s), Space jumps (5 m/s up: 1.27 m high).
fn walk(
    keys: Res<ButtonInput<KeyCode>>,
    driving: Res<Driving>,
    mut player: Query<&mut CharacterController, With<Player>>,
) {
    let Ok(mut controller) = player.single_mut() else {
        return;
    };
    if driving.0 {
        controller.goal = Vec3::ZERO;
        return;
    }
    let mut wish = Vec3::ZERO;
    for (key, dir) in [
        (KeyCode::KeyW, Vec3::Z),
        (KeyCode::ArrowUp, Vec3::Z),
        (KeyCode::KeyS, -Vec3::Z),
        (KeyCode::ArrowDown, -Vec3::Z),
        (KeyCode::KeyA, Vec3::X),
        (KeyCode::ArrowLeft, Vec3::X),
        (KeyCode::KeyD, -Vec3::X),
        (KeyCode::ArrowRight, -Vec3::X),
    ] {
        if keys.pressed(key) {
            wish += dir;
        }
    }
    controller.goal = wish.normalize_or_zero() * 6.0;
    if keys.just_pressed(KeyCode::Space) {
        controller.jump(5.0);
    }
}

/// The left button grabs what is under the cursor by a spring from the grabbed point to the
/// cursor's ray, at the distance it was grabbed at.
// (A Bevy system takes what it reads as arguments.)
#[allow(clippy::too_many_arguments)]
fn drag(
    buttons: Res<ButtonInput<MouseButton>>,
    windows: Query<&Window>,
    camera: Query<(&Camera, &GlobalTransform)>,
    default_world: Res<DefaultPhysicsWorld>,
    bodies: Query<(&Transform, &BodyLink)>,
    links: Query<&JointLink>,
    mut worlds: Query<&mut PhysicsWorld>,
    mut drag: ResMut<Drag>,
    mut commands: Commands,
) {
    let (Ok(window), Ok((camera, at))) = (windows.single(), camera.single()) else {
        return;
    };
    let ray = window
        .cursor_position()
        .and_then(|c| camera.viewport_to_world(at, c).ok());
    if buttons.just_released(MouseButton::Left) {
        if let Some(joint) = drag.joint.take() {
            commands.entity(joint).despawn();
        }
        return;
    }
    let Some(ray) = ray else {
        return;
    };
    if buttons.just_pressed(MouseButton::Left) {
        let Ok(world) = worlds.get(default_world.0) else {
            return;
        };
        let filter = QueryFilter::new();
        let Some(hit) = world.cast_ray(ray.origin, *ray.direction, 200.0, true, &filter) else {
            return;
        };
        let Ok((transform, _)) = bodies.get(hit.entity) else {
            return;
        };
        let local = transform.rotation.inverse() * (hit.point - transform.translation);
        let spring = Spring::Frequency {
            hertz: 3.0,
            damping_ratio: 0.7,
        };
        let builder = JointBuilder::attachment(
            Point::from(convert::vector(local)),
            Point::from(convert::vector(hit.point)),
            spring,
            2_000.0,
        );
        drag.distance = hit.distance;
        drag.joint = Some(
            commands
                .spawn(WorldJoint {
                    body: hit.entity,
                    builder,
                })
                .id(),
        );
    } else if let Some(joint) = drag.joint {
        let Ok(link) = links.get(joint) else {
            return;
        };
        let target = ray.origin + *ray.direction * drag.distance;
        if let Ok(mut world) = worlds.get_mut(link.world) {
            let _ = world.world_mut().set_attachment_target(
                link.handle,
                Point::from(convert::vector(target)),
                convert::vector(Vec3::ZERO),
            );
        }
    }
}

/// The camera behind the character, or behind the car while driving it.
fn follow(
    driving: Res<Driving>,
    player: Query<&Transform, (With<Player>, Without<Camera3d>)>,
    car: Query<&Transform, (With<Car>, Without<Camera3d>)>,
    mut camera: Query<&mut Transform, With<Camera3d>>,
    time: Res<Time>,
) {
    let (Ok(walker), Ok(car), Ok(mut camera)) =
        (player.single(), car.single(), camera.single_mut())
    else {
        return;
    };
    let goal = if driving.0 {
        // Behind the car along its forward (its chassis's +x), flattened.
        let back = -(car.rotation * Vec3::X).with_y(0.0).normalize_or(Vec3::Z);
        car.translation + back * 10.0 + Vec3::Y * 4.0
    } else {
        walker.translation + Vec3::new(0.0, 5.0, -9.0)
    };
    let target = if driving.0 { car } else { walker };
    let t = 1.0 - (-4.0 * time.delta_secs()).exp();
    camera.translation = camera.translation.lerp(goal, t);
    camera.look_at(target.translation, Vec3::Y);
}

fn toggle_colliders(keys: Res<ButtonInput<KeyCode>>, mut show: ResMut<DebugRender>) {
    if keys.just_pressed(KeyCode::F1) {
        show.0 = !show.0;
    }
}

//! The standard scenes and their checks.

mod box3d;
mod ccd;
mod character;
mod checks;
mod falling;
mod joints;
mod pyramid;
mod ragdolls;
mod showcase;
mod soft;
mod vehicles;

pub use character::{Crowd, Steer, CHARACTERS};
pub use checks::{Check, Figure, Limit};
pub use ragdolls::{worst_joints, RAGDOLLS};
pub use showcase::UPRIGHT_AT as SHOWCASE_UPRIGHT_AT;
pub use vehicles::{terrain_height, Fleet, Lap, LAP_RADIUS, VEHICLES};

use sprung::math::{Isometry, Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, RigidBodyBuilder, World};

/// A scene of the catalogue: how to build it and how long to run it.
#[derive(Clone, Copy, Debug)]
pub struct SceneSpec {
    /// Its name in SCENES.md.
    pub name: &'static str,
    /// Steps to run.
    pub steps: usize,
    /// Time step (s).
    pub dt: Real,
    /// Builds the world.
    pub build: fn() -> Scene,
}

impl SceneSpec {
    /// The scene built, solved on `threads` worker threads and stepped `steps` times: its
    /// [`Scene::state_hash`] (the same on every thread count, as the engine promises).
    pub fn hash_after(&self, steps: usize, threads: u32) -> Result<u64, sprung::Error> {
        let mut scene = (self.build)();
        let settings = sprung::SolverSettings {
            threads,
            ..*scene.world.settings()
        };
        scene.world.set_settings(settings)?;
        for _ in 0..steps {
            scene.step(self.dt)?;
        }
        Ok(scene.state_hash())
    }
}

/// A built scene: the world, the bodies its checks watch (with where they started), and which
/// checks apply.
pub struct Scene {
    /// The world, ready to step.
    pub world: World,
    /// The dynamic bodies the checks measure, with their starting poses.
    pub tracked: Vec<(BodyHandle, Isometry<Real>)>,
    /// What to check after the run.
    pub check: Check,
    /// A rope or cloth of the spring toolkit, updated with the world.
    pub mass_spring: Option<sprung::spring::MassSpring>,
    /// What the checks saw during the run, for checks that watch every step (see [`Check::Pass`]).
    pub watched: Watched,
    /// Kinematic characters, updated after each step of the world.
    pub crowd: Option<Crowd>,
    /// Vehicles and their drivers, who set their inputs before each step of the world.
    pub fleet: Option<Fleet>,
    /// The ragdolls its checks measure.
    pub ragdolls: Vec<sprung::RagdollHandle>,
}

/// What the checks that watch every step have seen so far; [`Scene::step`] updates it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Watched {
    /// Whether the watched body's centre has been past the line of a [`Check::Pass`].
    pub passed: bool,
}

impl Scene {
    /// A scene of `world` whose checks measure `tracked` (with their starting poses).
    pub fn new(world: World, tracked: Vec<(BodyHandle, Isometry<Real>)>, check: Check) -> Scene {
        Scene {
            world,
            tracked,
            check,
            mass_spring: None,
            watched: Watched::default(),
            crowd: None,
            fleet: None,
            ragdolls: Vec::new(),
        }
    }

    /// One step of `dt`: the drivers' inputs, the world, then its rope or cloth against the
    /// world's colliders, then its characters, then the checks that watch every step.
    pub fn step(&mut self, dt: Real) -> Result<sprung::StepReport, sprung::Error> {
        if let Some(fleet) = &mut self.fleet {
            fleet.drive(&mut self.world)?;
        }
        let report = self.world.step(dt)?;
        if let Some(m) = &mut self.mass_spring {
            m.update(Some(&self.world));
        }
        if let Some(crowd) = &mut self.crowd {
            crowd.update(&mut self.world, dt)?;
        }
        self.watch();
        Ok(report)
    }

    /// The world's [`World::state_hash`], with the bits of the characters' positions, the
    /// rope's or cloth's points and the vehicles' wheels (spin, suspension length) folded in
    /// (FNV-1a over them, after the world's hash).
    pub fn state_hash(&self) -> u64 {
        let mut hash = self.world.state_hash();
        let fold = |hash: &mut u64, x: Real| {
            for byte in x.to_bits().to_le_bytes() {
                *hash = (*hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        if let Some(crowd) = &self.crowd {
            for c in &crowd.characters {
                c.position().iter().for_each(|&x| fold(&mut hash, x));
            }
        }
        if let Some(m) = &self.mass_spring {
            for p in m.points() {
                p.coords.iter().for_each(|&x| fold(&mut hash, x));
            }
        }
        if let Some(fleet) = &self.fleet {
            let vehicles = fleet.vehicles.iter().filter_map(|&v| self.world.vehicle(v));
            for wheel in vehicles.flat_map(|v| v.wheels()) {
                fold(&mut hash, wheel.state.spin);
                fold(&mut hash, wheel.state.suspension_length);
            }
        }
        hash
    }
}

/// Every scene, SCENES.md's in its order (the spring toolkit's rope and cloth, which SCENES.md
/// does not have, after spring_net; the gameplay scenes last).
pub fn catalogue() -> &'static [SceneSpec] {
    &[
        SceneSpec {
            name: "pyramid",
            steps: 600,
            dt: 1.0 / 60.0,
            build: pyramid::pyramid,
        },
        SceneSpec {
            name: "pyramid3d",
            steps: 600,
            dt: 1.0 / 60.0,
            build: pyramid::pyramid3d,
        },
        SceneSpec {
            name: "boxes",
            steps: 600,
            dt: 1.0 / 60.0,
            build: falling::boxes,
        },
        SceneSpec {
            name: "balls",
            steps: 600,
            dt: 1.0 / 60.0,
            build: falling::balls,
        },
        SceneSpec {
            name: "convex",
            steps: 600,
            dt: 1.0 / 60.0,
            build: falling::convex,
        },
        SceneSpec {
            name: "joint_grid",
            steps: 600,
            dt: 1.0 / 60.0,
            build: joints::joint_grid,
        },
        SceneSpec {
            name: "spring_net",
            steps: 600,
            dt: 1.0 / 60.0,
            build: joints::spring_net,
        },
        SceneSpec {
            name: "rope",
            steps: 600,
            dt: 1.0 / 60.0,
            build: soft::rope,
        },
        SceneSpec {
            name: "cloth",
            steps: 600,
            dt: 1.0 / 60.0,
            build: soft::cloth,
        },
        SceneSpec {
            name: "bullet",
            steps: 60,
            dt: 1.0 / 60.0,
            build: ccd::bullet,
        },
        SceneSpec {
            name: "large_pyramid",
            steps: 200,
            dt: 1.0 / 60.0,
            build: box3d::large_pyramid,
        },
        SceneSpec {
            name: "many_pyramids",
            steps: 100,
            dt: 1.0 / 60.0,
            build: box3d::many_pyramids,
        },
        SceneSpec {
            name: "joint_grid100",
            steps: 100,
            dt: 1.0 / 60.0,
            build: box3d::joint_grid100,
        },
        SceneSpec {
            name: "character",
            steps: 600,
            dt: 1.0 / 60.0,
            build: character::character,
        },
        SceneSpec {
            name: "vehicles",
            steps: 600,
            dt: 1.0 / 60.0,
            build: vehicles::vehicles,
        },
        SceneSpec {
            name: "ragdolls",
            steps: 600,
            dt: 1.0 / 60.0,
            build: ragdolls::ragdolls,
        },
    ]
}

/// The scene called `name`.
pub fn find(name: &str) -> Option<&'static SceneSpec> {
    catalogue().iter().find(|s| s.name == name)
}

/// The viewer's opening scene: stacks, a pendulum chain, a hinge with a motor, a body held
/// upright by a spring, a trampoline, a rope and rocks on a height field. Not a scene of
/// SCENES.md, so neither in [`catalogue`] nor measured by the runner and the benches.
pub const SHOWCASE: SceneSpec = SceneSpec {
    name: "showcase",
    steps: 600,
    dt: 1.0 / 60.0,
    build: showcase::showcase,
};

/// The scene called `name`: [`SHOWCASE`] or one of the [`catalogue`].
pub fn find_any(name: &str) -> Option<&'static SceneSpec> {
    if name == SHOWCASE.name {
        Some(&SHOWCASE)
    } else {
        find(name)
    }
}

/// SCENES.md's common settings.
pub(crate) mod common {
    use super::*;

    /// Gravity of the common scenes (m/s^2).
    pub const GRAVITY: Vector<Real> = Vector::new(0.0, -9.81, 0.0);
    /// Friction of every collider.
    pub const FRICTION: Real = 0.5;
    /// Density of every collider unless stated (kg/m^3).
    pub const DENSITY: Real = 1000.0;

    /// A world with the common gravity and the ground: a static box of half-extents
    /// (100, 1, 100) centred at (0, -1, 0).
    pub fn world_with_ground() -> World {
        let mut world = World::new(GRAVITY).expect("finite gravity");
        ground(&mut world, Vector::new(100.0, 1.0, 100.0), FRICTION);
        world
    }

    /// A static box of `half_extents` whose top face is y = 0.
    pub fn ground(world: &mut World, half_extents: Vector<Real>, friction: Real) {
        static_box(
            world,
            half_extents,
            Vector::new(0.0, -half_extents.y, 0.0),
            friction,
        );
    }

    /// A static box of `half_extents` centred at `at`.
    pub fn static_box(
        world: &mut World,
        half_extents: Vector<Real>,
        at: Vector<Real>,
        friction: Real,
    ) {
        let body = world
            .add_body(RigidBodyBuilder::fixed().translation(at))
            .expect("valid static body");
        let (hx, hy, hz) = (half_extents.x, half_extents.y, half_extents.z);
        world
            .add_collider(ColliderBuilder::cuboid(hx, hy, hz).friction(friction), body)
            .expect("valid static box");
    }

    /// A dynamic body at rest, unrotated, at `at`, with one collider; with its starting pose.
    pub fn body(
        world: &mut World,
        at: Vector<Real>,
        collider: ColliderBuilder,
    ) -> (BodyHandle, Isometry<Real>) {
        let body = world
            .add_body(RigidBodyBuilder::dynamic().translation(at))
            .expect("valid body");
        world.add_collider(collider, body).expect("valid collider");
        (body, Isometry::translation(at.x, at.y, at.z))
    }

    /// A unit cube at rest, unrotated, centred at `at`.
    pub fn cube(world: &mut World, at: Vector<Real>) -> (BodyHandle, Isometry<Real>) {
        let cube = ColliderBuilder::cuboid(0.5, 0.5, 0.5)
            .density(DENSITY)
            .friction(FRICTION);
        body(world, at, cube)
    }
}

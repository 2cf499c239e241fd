//! The standard scenes and their checks.

mod box3d;
mod ccd;
mod falling;
mod joints;
mod pyramid;
mod showcase;
mod soft;

pub use showcase::UPRIGHT_AT as SHOWCASE_UPRIGHT_AT;

use sprung::math::{Isometry, Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, JointKind, RigidBodyBuilder, World};

/// A scene of the catalogue: how to build it and how long to run it.
#[derive(Clone, Copy)]
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
}

/// What the checks that watch every step have seen so far; [`Scene::step`] updates it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Watched {
    /// Whether the watched body's centre has been past the line of a [`Check::Pass`].
    pub passed: bool,
}

/// A scene's pass criteria (SCENES.md).
#[derive(Clone, Copy, Debug)]
pub enum Check {
    /// Stacks: horizontal drift, sink and lowest centre.
    Stack {
        /// Largest allowed horizontal drift (m).
        max_drift: Real,
        /// Largest allowed sink (m).
        max_sink: Real,
        /// Lowest allowed centre (m).
        min_y: Real,
    },
    /// Jointed bodies: the largest distance between the two anchors of any joint.
    Joints {
        /// Largest allowed anchor separation (m).
        max_error: Real,
        /// Whether `finite` (every tracked position and velocity finite) is checked too.
        finite: bool,
    },
    /// Falling bodies on the ground: `min_y` (lowest tracked centre) and `lost`.
    Fallen {
        /// Lowest allowed centre (m).
        min_y: Real,
    },
    /// Bodies in a bin: `escaped` (centres outside the bin or below `floor`) and `lost`.
    Bin {
        /// Half-width of the bin's inside in x and z (m).
        half_width: Real,
        /// Lowest allowed centre (m).
        floor: Real,
    },
    /// Falling hulls: `min_vertex_y` (lowest vertex of any tracked body's colliders) and `lost`.
    Hulls {
        /// Lowest allowed vertex (m).
        min_vertex_y: Real,
    },
    /// A fast body and a wall: `passed` = 1 if `body`'s centre had x > `beyond` after any
    /// step (watched every step by [`Scene::step`]); it must not have.
    Pass {
        /// The body watched.
        body: BodyHandle,
        /// The x its centre must never exceed (m).
        beyond: Real,
    },
    /// A rope or cloth: finite, its springs near their length, above `floor`, at rest.
    MassSpring {
        /// Largest allowed length / rest length of its springs.
        max_stretch: Real,
        /// Lowest allowed point (m).
        floor: Real,
        /// Largest allowed displacement of a point in the last update (m).
        max_motion: Real,
    },
    /// The spring net: finite, stretched as physics says, hanging where physics says, at rest.
    SpringNet {
        /// Rest length of the net's springs (m).
        rest_length: Real,
        /// Expected largest length / rest length, and tolerance.
        stretch: (Real, Real),
        /// Expected lowest centre (m), and tolerance.
        min_y: (Real, Real),
        /// Largest allowed speed (m/s).
        max_speed: Real,
    },
}

/// One measured figure and whether it passes.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// Name in SCENES.md.
    pub name: &'static str,
    /// The measured value.
    pub value: f64,
    /// Whether it satisfies the scene's bound.
    pub ok: bool,
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
        }
    }

    /// One step of `dt`: the world, then its rope or cloth against the world's colliders, then
    /// the checks that watch every step.
    pub fn step(&mut self, dt: Real) -> Result<sprung::StepReport, sprung::Error> {
        let report = self.world.step(dt)?;
        if let Some(m) = &mut self.mass_spring {
            m.update(Some(&self.world));
        }
        self.watch();
        Ok(report)
    }

    /// The world's [`World::state_hash`], with the bits of the rope's or cloth's points folded
    /// in (FNV-1a over them, after the world's hash).
    pub fn state_hash(&self) -> u64 {
        let mut hash = self.world.state_hash();
        if let Some(m) = &self.mass_spring {
            for p in m.points() {
                for x in p.coords.iter() {
                    for byte in x.to_bits().to_le_bytes() {
                        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
                    }
                }
            }
        }
        hash
    }

    /// Records what the checks that watch every step see now.
    fn watch(&mut self) {
        if let Check::Pass { body, beyond } = self.check {
            if let Some(b) = self.world.body(body) {
                self.watched.passed |= b.translation().x > beyond;
            }
        }
    }

    /// Tracked bodies whose centre has |x| > 100 or |z| > 100 or y < -1, or is not finite
    /// (SCENES.md's `lost`).
    fn lost(&self) -> usize {
        self.tracked_bodies()
            .filter(|b| {
                let p = b.translation();
                !p.iter().all(|x| x.is_finite())
                    || p.x.abs() > 100.0
                    || p.z.abs() > 100.0
                    || p.y < -1.0
            })
            .count()
    }

    fn tracked_bodies(&self) -> impl Iterator<Item = &sprung::RigidBody> + '_ {
        self.tracked
            .iter()
            .map(|(h, _)| self.world.body(*h).expect("tracked bodies live"))
    }

    /// 1 if every tracked body's position and velocity is finite, else 0.
    fn finite(&self) -> Figure {
        let finite = self.tracked_bodies().all(|b| {
            b.translation()
                .iter()
                .chain(b.linear_velocity().iter())
                .all(|x| x.is_finite())
        });
        Figure {
            name: "finite",
            value: if finite { 1.0 } else { 0.0 },
            ok: finite,
        }
    }

    /// Measures the scene's checks now.
    pub fn figures(&self) -> Vec<Figure> {
        match self.check {
            Check::Stack {
                max_drift,
                max_sink,
                min_y,
            } => {
                let (mut drift, mut sink, mut lowest) = (0.0_f64, 0.0_f64, f64::INFINITY);
                for (handle, start) in &self.tracked {
                    let Some(body) = self.world.body(*handle) else {
                        continue;
                    };
                    let (now, then) = (body.translation(), start.translation.vector);
                    let d = Vector::new(now.x - then.x, 0.0, now.z - then.z).norm() as f64;
                    drift = drift.max(if d.is_finite() { d } else { f64::INFINITY });
                    sink = sink.max((then.y - now.y) as f64);
                    lowest = lowest.min(if now.y.is_finite() {
                        now.y as f64
                    } else {
                        f64::NEG_INFINITY
                    });
                }
                vec![
                    Figure {
                        name: "max_drift",
                        value: drift,
                        ok: drift < max_drift as f64,
                    },
                    Figure {
                        name: "max_sink",
                        value: sink,
                        ok: sink < max_sink as f64,
                    },
                    Figure {
                        name: "min_y",
                        value: lowest,
                        ok: lowest > min_y as f64,
                    },
                ]
            }
            Check::MassSpring {
                max_stretch,
                floor,
                max_motion,
            } => {
                let Some(m) = &self.mass_spring else {
                    return Vec::new();
                };
                let finite = m
                    .points()
                    .iter()
                    .all(|p| p.coords.iter().all(|x| x.is_finite()));
                let stretch = m.max_stretch() as f64;
                let lowest = m
                    .points()
                    .iter()
                    .map(|p| p.y as f64)
                    .fold(f64::INFINITY, f64::min);
                let motion = m.last_motion() as f64;
                vec![
                    Figure {
                        name: "finite",
                        value: if finite { 1.0 } else { 0.0 },
                        ok: finite,
                    },
                    Figure {
                        name: "max_stretch",
                        value: stretch,
                        ok: stretch < max_stretch as f64,
                    },
                    Figure {
                        name: "min_y",
                        value: lowest,
                        ok: lowest > floor as f64,
                    },
                    Figure {
                        name: "max_motion",
                        value: motion,
                        ok: motion < max_motion as f64,
                    },
                ]
            }
            Check::Joints { max_error, finite } => {
                let error = self.joint_lengths(|_| true).fold(0.0_f64, f64::max);
                let mut figures = vec![Figure {
                    name: "max_joint_error",
                    value: error,
                    ok: error < max_error as f64,
                }];
                if finite {
                    figures.push(self.finite());
                }
                figures
            }
            Check::Fallen { min_y } => {
                let lowest = self
                    .tracked_bodies()
                    .map(|b| finite_or(b.translation().y as f64, f64::NEG_INFINITY))
                    .fold(f64::INFINITY, f64::min);
                vec![
                    Figure {
                        name: "min_y",
                        value: lowest,
                        ok: lowest > min_y as f64,
                    },
                    lost_figure(self.lost()),
                ]
            }
            Check::Bin { half_width, floor } => {
                let escaped = self
                    .tracked_bodies()
                    .filter(|b| {
                        let p = b.translation();
                        // A NaN centre is not inside the bin either.
                        !(p.x.abs() <= half_width && p.z.abs() <= half_width && p.y >= floor)
                    })
                    .count();
                vec![
                    Figure {
                        name: "escaped",
                        value: escaped as f64,
                        ok: escaped == 0,
                    },
                    lost_figure(self.lost()),
                ]
            }
            Check::Hulls { min_vertex_y } => {
                let down = -Vector::y();
                let mut lowest = f64::INFINITY;
                for body in self.tracked_bodies() {
                    for &c in body.colliders() {
                        let collider = self.world.collider(c).expect("attached colliders live");
                        let pose = body.pose() * collider.local_pose();
                        let vertex =
                            pose * collider.shape().support(&(pose.rotation.inverse() * down));
                        lowest = lowest.min(finite_or(vertex.y as f64, f64::NEG_INFINITY));
                    }
                }
                vec![
                    Figure {
                        name: "min_vertex_y",
                        value: lowest,
                        ok: lowest > min_vertex_y as f64,
                    },
                    lost_figure(self.lost()),
                ]
            }
            Check::Pass { body, beyond } => {
                let now = self
                    .world
                    .body(body)
                    .is_some_and(|b| b.translation().x > beyond);
                let passed = self.watched.passed || now;
                vec![Figure {
                    name: "passed",
                    value: if passed { 1.0 } else { 0.0 },
                    ok: !passed,
                }]
            }
            Check::SpringNet {
                rest_length,
                stretch,
                min_y,
                max_speed,
            } => {
                let is_net_spring = move |kind: &JointKind| matches!(kind, JointKind::Distance(d) if d.rest_length == rest_length);
                let max_stretch = self
                    .joint_lengths(is_net_spring)
                    .map(|l| l / rest_length as f64)
                    .fold(0.0, f64::max);
                let lowest = self
                    .tracked_bodies()
                    .map(|b| b.translation().y as f64)
                    .fold(f64::INFINITY, f64::min);
                let fastest = self
                    .tracked_bodies()
                    .map(|b| b.linear_velocity().norm() as f64)
                    .fold(0.0, f64::max);
                let near = |value: f64, (expected, tolerance): (Real, Real)| {
                    (value - expected as f64).abs() <= tolerance as f64
                };
                vec![
                    self.finite(),
                    Figure {
                        name: "max_stretch",
                        value: max_stretch,
                        ok: near(max_stretch, stretch),
                    },
                    Figure {
                        name: "min_y",
                        value: lowest,
                        ok: near(lowest, min_y),
                    },
                    Figure {
                        name: "max_speed",
                        value: fastest,
                        ok: fastest < max_speed as f64,
                    },
                ]
            }
        }
    }

    /// The distance between the two world anchors of every joint whose kind `keep` accepts.
    fn joint_lengths<'s>(
        &'s self,
        keep: impl Fn(&JointKind) -> bool + 's,
    ) -> impl Iterator<Item = f64> + 's {
        self.world
            .joints()
            .filter(move |(_, j)| keep(j.kind()))
            .map(|(_, j)| {
                let (a, b) = j.bodies();
                let (la, lb) = j.local_anchors();
                let pa = self.world.body(a).expect("joined bodies live").pose() * la;
                let pb = self.world.body(b).expect("joined bodies live").pose() * lb;
                let d = (pb - pa).norm() as f64;
                if d.is_finite() {
                    d
                } else {
                    f64::INFINITY
                }
            })
    }
}

/// `x` if finite, else `otherwise` (a check must fail on NaN, which compares false).
fn finite_or(x: f64, otherwise: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        otherwise
    }
}

/// SCENES.md's `lost`: must be 0.
fn lost_figure(lost: usize) -> Figure {
    Figure {
        name: "lost",
        value: lost as f64,
        ok: lost == 0,
    }
}

/// Every scene, SCENES.md's in its order (the spring toolkit's rope and cloth, which SCENES.md
/// does not have, after spring_net).
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

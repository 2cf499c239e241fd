//! The standard scenes and their checks.

mod joints;
mod pyramid;
mod soft;

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
    /// One step of `dt`: the world, then its rope or cloth against the world's colliders.
    pub fn step(&mut self, dt: Real) -> Result<sprung::StepReport, sprung::Error> {
        let report = self.world.step(dt)?;
        if let Some(m) = &mut self.mass_spring {
            m.update(Some(&self.world));
        }
        Ok(report)
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
            Check::Joints { max_error } => {
                let error = self.joint_lengths(|_| true).fold(0.0_f64, f64::max);
                vec![Figure {
                    name: "max_joint_error",
                    value: error,
                    ok: error < max_error as f64,
                }]
            }
            Check::SpringNet {
                rest_length,
                stretch,
                min_y,
                max_speed,
            } => {
                let bodies = || {
                    self.tracked
                        .iter()
                        .map(|(h, _)| self.world.body(*h).expect("tracked bodies live"))
                };
                let finite = bodies().all(|b| {
                    b.translation()
                        .iter()
                        .chain(b.linear_velocity().iter())
                        .all(|x| x.is_finite())
                });
                let is_net_spring = move |kind: &JointKind| matches!(kind, JointKind::Distance(d) if d.rest_length == rest_length);
                let max_stretch = self
                    .joint_lengths(is_net_spring)
                    .map(|l| l / rest_length as f64)
                    .fold(0.0, f64::max);
                let lowest = bodies()
                    .map(|b| b.translation().y as f64)
                    .fold(f64::INFINITY, f64::min);
                let fastest = bodies()
                    .map(|b| b.linear_velocity().norm() as f64)
                    .fold(0.0, f64::max);
                let near = |value: f64, (expected, tolerance): (Real, Real)| {
                    (value - expected as f64).abs() <= tolerance as f64
                };
                vec![
                    Figure {
                        name: "finite",
                        value: if finite { 1.0 } else { 0.0 },
                        ok: finite,
                    },
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

/// Every scene, in SCENES.md's order.
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
    ]
}

/// The scene called `name`.
pub fn find(name: &str) -> Option<&'static SceneSpec> {
    catalogue().iter().find(|s| s.name == name)
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
        let ground = world
            .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
            .expect("valid ground");
        world
            .add_collider(
                ColliderBuilder::cuboid(100.0, 1.0, 100.0).friction(FRICTION),
                ground,
            )
            .expect("valid ground box");
        world
    }

    /// A unit cube at rest, unrotated, centred at `at`.
    pub fn cube(world: &mut World, at: Vector<Real>) -> (BodyHandle, Isometry<Real>) {
        let body = world
            .add_body(RigidBodyBuilder::dynamic().translation(at))
            .expect("valid cube");
        world
            .add_collider(
                ColliderBuilder::cuboid(0.5, 0.5, 0.5)
                    .density(DENSITY)
                    .friction(FRICTION),
                body,
            )
            .expect("valid cube box");
        (body, Isometry::translation(at.x, at.y, at.z))
    }
}

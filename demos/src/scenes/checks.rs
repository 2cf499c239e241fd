//! What a scene checks after its run (SCENES.md's criteria) and the figures it measures,
//! each with the limit it is held to.

use sprung::math::{Real, Vector};
use sprung::{BodyHandle, JointKind};

use super::Scene;

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
    /// Characters walking a course: every one past the goal line, none ever nearer a collider
    /// than `min_clearance` or below the floor (watched every step by [`Scene::step`]).
    Characters {
        /// The line along x each must have crossed (m).
        goal_x: Real,
        /// The least distance to any collider allowed at any step (m): half the skin.
        min_clearance: Real,
    },
    /// Vehicles driving laps: every car round its lap, none ever tipped past 60° or below the
    /// terrain (watched every step by [`Scene::step`]), the hover racer round its lap, no
    /// crate lost.
    Vehicles {
        /// The laps to complete: one per car.
        laps: usize,
    },
    /// Ragdolls in a pile: every joint of theirs within `max_error` of together and within
    /// `max_limit_degrees` of its limits, every body finite, none lost.
    Ragdolls {
        /// Largest allowed joint separation (m).
        max_error: Real,
        /// Largest allowed limit violation (degrees).
        max_limit_degrees: Real,
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

/// The bound a figure is held to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// Strictly below.
    Below(Real),
    /// Strictly above.
    Above(Real),
    /// Exactly (counts and yes/no figures: 1 yes, 0 no).
    Equal(Real),
    /// Within `tolerance` of `expected`, either side.
    Near {
        /// The value physics predicts.
        expected: Real,
        /// How far from it passes.
        tolerance: Real,
    },
}

impl Limit {
    /// `expected ± tolerance`.
    pub fn near((expected, tolerance): (Real, Real)) -> Limit {
        Limit::Near {
            expected,
            tolerance,
        }
    }

    /// Whether `value` satisfies the limit (never a NaN, which compares false).
    pub fn admits(&self, value: f64) -> bool {
        match *self {
            Limit::Below(x) => value < f64::from(x),
            Limit::Above(x) => value > f64::from(x),
            Limit::Equal(x) => value == f64::from(x),
            Limit::Near {
                expected,
                tolerance,
            } => (value - f64::from(expected)).abs() <= f64::from(tolerance),
        }
    }
}

impl std::fmt::Display for Limit {
    /// `< 0.05`, `> 0.4`, `= 0`, `1.3 ± 0.05`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::Below(x) => write!(f, "< {x}"),
            Limit::Above(x) => write!(f, "> {x}"),
            Limit::Equal(x) => write!(f, "= {x}"),
            Limit::Near {
                expected,
                tolerance,
            } => write!(f, "{expected} ± {tolerance}"),
        }
    }
}

/// One measured figure, the limit it is held to, and whether it passes.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// Name in SCENES.md.
    pub name: &'static str,
    /// The measured value.
    pub value: f64,
    /// The bound it must satisfy.
    pub limit: Limit,
    /// Whether `value` satisfies `limit`.
    pub ok: bool,
}

impl Figure {
    /// `value` measured under `name`, held to `limit`.
    pub fn new(name: &'static str, value: f64, limit: Limit) -> Figure {
        Figure {
            name,
            value,
            limit,
            ok: limit.admits(value),
        }
    }

    /// A yes/no figure (1 yes, 0 no) that passes when it is `wanted`.
    pub fn flag(name: &'static str, value: bool, wanted: bool) -> Figure {
        let one = |b: bool| if b { 1.0 } else { 0.0 };
        Figure::new(name, one(value), Limit::Equal(one(wanted) as Real))
    }
}

impl Scene {
    /// Records what the checks that watch every step see now.
    pub(super) fn watch(&mut self) {
        if let Check::Pass { body, beyond } = self.check {
            if let Some(b) = self.world.body(body) {
                self.watched.passed |= b.translation().x > beyond;
            }
        }
        if let Some(crowd) = &mut self.crowd {
            crowd.watch(&self.world);
        }
        if let Some(fleet) = &mut self.fleet {
            fleet.watch(&self.world);
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
        Figure::flag("finite", finite, true)
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
                    Figure::new("max_drift", drift, Limit::Below(max_drift)),
                    Figure::new("max_sink", sink, Limit::Below(max_sink)),
                    Figure::new("min_y", lowest, Limit::Above(min_y)),
                ]
            }
            Check::Characters {
                goal_x: _,
                min_clearance,
            } => {
                let Some(crowd) = &self.crowd else {
                    return Vec::new();
                };
                let all = crowd.characters.len() as Real;
                vec![
                    Figure::new("arrived", crowd.arrived() as f64, Limit::Equal(all)),
                    Figure::new(
                        "min_clearance",
                        f64::from(crowd.min_clearance),
                        Limit::Above(min_clearance),
                    ),
                    Figure::new("fell_through", crowd.fell_through as f64, Limit::Equal(0.0)),
                    Figure::new("lost", self.lost() as f64, Limit::Equal(0.0)),
                ]
            }
            Check::Vehicles { laps } => {
                let Some(fleet) = &self.fleet else {
                    return Vec::new();
                };
                let racer = fleet.racer.is_some() && fleet.racer_lap.done();
                vec![
                    Figure::new("laps", fleet.laps_done() as f64, Limit::Equal(laps as Real)),
                    Figure::new("flipped", fleet.flipped as f64, Limit::Equal(0.0)),
                    Figure::new("fell_through", fleet.fell_through as f64, Limit::Equal(0.0)),
                    Figure::new("racer_lap", f64::from(u8::from(racer)), Limit::Equal(1.0)),
                    Figure::new("lost", self.lost() as f64, Limit::Equal(0.0)),
                ]
            }
            Check::Ragdolls {
                max_error,
                max_limit_degrees,
            } => {
                let (apart, past) = super::worst_joints(&self.world, &self.ragdolls);
                vec![
                    Figure::new("max_joint_error", f64::from(apart), Limit::Below(max_error)),
                    Figure::new(
                        "max_limit_violation_deg",
                        f64::from(past.to_degrees()),
                        Limit::Below(max_limit_degrees),
                    ),
                    self.finite(),
                    Figure::new("lost", self.lost() as f64, Limit::Equal(0.0)),
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
                    Figure::flag("finite", finite, true),
                    Figure::new("max_stretch", stretch, Limit::Below(max_stretch)),
                    Figure::new("min_y", lowest, Limit::Above(floor)),
                    Figure::new("max_motion", motion, Limit::Below(max_motion)),
                ]
            }
            Check::Joints { max_error, finite } => {
                let error = self.joint_lengths(|_| true).fold(0.0_f64, f64::max);
                let mut figures = vec![Figure::new(
                    "max_joint_error",
                    error,
                    Limit::Below(max_error),
                )];
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
                    Figure::new("min_y", lowest, Limit::Above(min_y)),
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
                    Figure::new("escaped", escaped as f64, Limit::Equal(0.0)),
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
                    Figure::new("min_vertex_y", lowest, Limit::Above(min_vertex_y)),
                    lost_figure(self.lost()),
                ]
            }
            Check::Pass { body, beyond } => {
                let now = self
                    .world
                    .body(body)
                    .is_some_and(|b| b.translation().x > beyond);
                let passed = self.watched.passed || now;
                vec![Figure::flag("passed", passed, false)]
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
                vec![
                    self.finite(),
                    Figure::new("max_stretch", max_stretch, Limit::near(stretch)),
                    Figure::new("min_y", lowest, Limit::near(min_y)),
                    Figure::new("max_speed", fastest, Limit::Below(max_speed)),
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
    Figure::new("lost", lost as f64, Limit::Equal(0.0))
}

//! Joints, each composed of parts, one file per joint.
//!
//! The parts: the point part ([`PointRow`]: the anchors together, a 3 x 3 block), the length
//! part ([`LengthRow`]: the anchors' distance), the axis part ([`AxisPart`]: hold, limits and
//! motor along one direction, linear or angular), the angular lock ([`AngularLock`]: three
//! axis parts) and the cone ([`Cone`]: the swing within an elliptical cone). A ball joint is a
//! point part (and a cone, if limited); a distance joint an axis part (or, without limits, a
//! length part); a hinge a point part, two axis parts keeping the axes parallel and one for
//! the angle; a weld a point part and an angular lock; a slider an angular lock, two axis parts
//! across its axis and one along it; a swing-twist joint a point part, a cone, an axis part for
//! the twist and three for friction; the upright spring two axis parts; the motor one.
//!
//! Each kind is one file: its settings (in the bodies' frames, what the world keeps), its
//! named impulses, and its rows implementing [`Joint`] (one `prepare` for every kind, its parts
//! named once for the calls every part answers, [`Part`]); and one line of `joint_kinds!`,
//! which makes the enums a joint crosses the solver as ([`JointKind`], [`JointImpulses`],
//! [`JointRows`]).
//!
//! In: the two bodies, the anchors (from each centre of mass, world orientation, at the start of
//! the step) and the bodies' orientations ([`JointFrame`]), the joint's settings and last
//! step's impulses; the step's context ([`crate::step::StepContext`]) when a joint is made,
//! and each pass's ([`PassContext`]). Each substep: warm start, then solve (biased, then
//! relax); the engine stores the impulses for the next step.
//!
//! The position error is measured like a contact's separation: the anchors' offset at the start
//! of the step plus the bodies' motion since (their displacement and small rotation). Unlike a
//! contact's, a joint's directions follow that motion too: the parts along directions that turn
//! with the bodies are aimed again each pass ([`AxisPart::aim`]). Measured: with the axis
//! frozen at the start of the step, the 30 x 30 `spring_net` diverged within 100 steps at 4
//! substeps; with the current axis it settles. Rigid parts get the joints' stabilisation
//! ([`crate::step::JointSettings`], dropped in relax passes); soft ones are springs and always apply, since
//! the spring is physics, not stabilisation, each pass with its own coefficients
//! ([`crate::softness::SpringSoftness`]) so that an isolated spring moves as the closed-form
//! oscillator does.

mod angular;
mod axis;
mod ball;
pub(crate) mod bundles;
mod chain;
mod distance;
mod drive;
mod ends;
mod fixed;
mod hinge;
mod length;
pub(crate) mod part;
mod point;
mod point_bundle;
mod project;
mod slider;
mod swing;
mod swing_twist;
mod world;

pub use angular::AngularLock;
pub use axis::{AxisPart, AxisSettings, Hold};
pub use ball::{BallImpulses, BallJoint, BallSettings};
#[cfg(target_arch = "x86_64")]
pub(crate) use bundles::{
    pass as joint_pass, run as joint_run, JointBundles, Lists as JointListsOf,
};
pub(crate) use chain::Chains;
pub use distance::{DistanceImpulses, DistanceJoint, DistanceSettings};
pub use drive::{orientation_drive, turned_inertia, Drive, OrientationDrive};
pub use ends::Ends;
pub use fixed::{FixedImpulses, FixedJoint, FixedSettings};
pub use hinge::{hinge_angle, HingeImpulses, HingeJoint, HingeSettings};
pub(crate) use length::LengthBundle;
pub use length::LengthRow;
pub(crate) use part::JointPass;
pub use part::{Finite, Joint, JointFrame, Part, PassContext};
pub(crate) use point::prepare_masses;
pub use point::PointRow;
pub(crate) use point_bundle::PointBundle;
pub(crate) use project::Stamps;
pub use project::PROJECTION_PASSES;
pub use slider::{SliderImpulses, SliderJoint, SliderSettings};
pub use swing::{cone_angle, frame_along, swing_twist, Cone, ConeLimit, Frames};
pub use swing_twist::{SwingTwistImpulses, SwingTwistJoint, SwingTwistSettings};
pub use world::{
    AttachmentJoint, AttachmentSettings, MotorImpulses, MotorJoint, MotorSettings,
    RaySpringImpulses, RaySpringJoint, RaySpringSettings, UprightImpulses, UprightJoint,
    UprightSettings,
};

use crate::body::{Bodies, BodySim, Motion, StateView};
use crate::softness::SpringWindow;
use crate::step::StepContext;
use crate::Real;

/// The joint kinds, each a variant of the three enums a joint crosses as: its settings
/// ([`JointKind`], what the world keeps), its impulses ([`JointImpulses`]) and its rows for a
/// step ([`JointRows`]), with the calls that pass from one to the other.
macro_rules! joint_kinds {
    ($($(#[$doc:meta])* $kind:ident($rows:ty),)+) => {
        /// What a joint holds, by kind: the settings of each, in its bodies' frames.
        #[derive(Clone, Copy, Debug, PartialEq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub enum JointKind {
            $($(#[$doc])* $kind(<$rows as Joint>::Settings),)+
        }

        /// A joint's accumulated impulses, by kind (named in each kind's own type).
        #[derive(Clone, Copy, Debug, PartialEq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub enum JointImpulses {
            $($(#[$doc])* $kind(<$rows as Joint>::Impulses),)+
        }

        /// A joint's rows prepared for a step, by kind. Unboxed, however the kinds' sizes
        /// differ: the solver's list keeps its records from step to step, and a box would be
        /// an allocation per joint and step.
        #[derive(Clone, Debug)]
        #[allow(clippy::large_enum_variant)]
        pub enum JointRows {
            $($(#[$doc])* $kind($rows),)+
        }

        impl JointKind {
            /// No impulses yet, for a joint of this kind.
            pub fn fresh_impulses(&self) -> JointImpulses {
                match self {
                    $(JointKind::$kind(_) => JointImpulses::$kind(Default::default()),)+
                }
            }

            /// The rows of this joint for the step ([`Joint::prepare`]), carrying `carried` if
            /// they are this kind's.
            pub fn prepare(
                &self,
                frame: &JointFrame,
                ends: (&Motion, &Motion),
                step: &StepContext,
                carried: &JointImpulses,
            ) -> JointRows {
                match (self, carried) {
                    $((JointKind::$kind(settings), JointImpulses::$kind(carried)) => {
                        JointRows::$kind(<$rows>::prepare(frame, ends, settings, step, carried))
                    })+
                    (kind, _) => kind.prepare(frame, ends, step, &kind.fresh_impulses()),
                }
            }
        }

        impl JointImpulses {
            /// Whether these are a joint of `kind`'s.
            pub fn is_of(&self, kind: &JointKind) -> bool {
                matches!((self, kind), $((JointImpulses::$kind(_), JointKind::$kind(_)))|+)
            }
        }

        impl Finite for JointImpulses {
            fn is_finite(&self) -> bool {
                match self {
                    $(JointImpulses::$kind(impulses) => impulses.is_finite(),)+
                }
            }
        }

        impl JointRows {
            /// Applies the accumulated impulses (warm starting).
            fn warm_start(&mut self, a: &mut Motion, b: &mut Motion) {
                match self {
                    $(JointRows::$kind(j) => j.parts().warm_start(a, b),)+
                }
            }

            /// One iteration ([`Joint::solve`]).
            fn solve(
                &mut self,
                frame: &JointFrame,
                a: &mut Motion,
                b: &mut Motion,
                pass: &PassContext,
            ) {
                match self {
                    $(JointRows::$kind(j) => j.solve(frame, a, b, pass),)+
                }
            }

            /// Forgets the accumulated impulses.
            fn reset(&mut self) {
                match self {
                    $(JointRows::$kind(j) => j.parts().reset(),)+
                }
            }

            /// Whether a spring was too stiff at the substep to be exact.
            fn too_stiff(&mut self) -> bool {
                match self {
                    $(JointRows::$kind(j) => j.parts().too_stiff(),)+
                }
            }

            /// The impulses to carry over.
            fn impulses(&self) -> JointImpulses {
                match self {
                    $(JointRows::$kind(j) => JointImpulses::$kind(j.impulses()),)+
                }
            }

            /// [`Joint::load`].
            fn load(&self) -> Real {
                match self {
                    $(JointRows::$kind(j) => j.load(),)+
                }
            }

            /// [`Joint::limited`].
            fn limited(&self) -> Option<(Real, Real)> {
                match self {
                    $(JointRows::$kind(j) => j.limited(),)+
                }
            }

            /// [`Joint::project`].
            fn project(&mut self, frame: &JointFrame, a: &mut Motion, b: &mut Motion) {
                match self {
                    $(JointRows::$kind(j) => j.project(frame, a, b),)+
                }
            }
        }
    };
}

joint_kinds! {
    /// Spherical: the anchors coincide (rigid or a 3-axis spring).
    Ball(BallJoint),
    /// The anchors' distance: fixed, a spring, and/or limits (a rope is a maximum only).
    Distance(DistanceJoint),
    /// The mouse drag: a spring pulling B's anchor to a world target that may move, with a
    /// force cap.
    Attachment(AttachmentJoint),
    /// A body axis held on a world axis by an angular spring.
    Upright(UprightJoint),
    /// A hinge with optional limits and motor.
    Hinge(HingeJoint),
    /// A slider with optional limits and motor.
    Slider(SliderJoint),
    /// A weld.
    Fixed(FixedJoint),
    /// A spring along a ray's axis to the ground it hit.
    RaySpring(RaySpringJoint),
    /// A velocity motor with a force cap.
    Motor(MotorJoint),
    /// A ball joint with a cone (elliptical) on its swing and limits on its twist.
    SwingTwist(SwingTwistJoint),
}

/// A joint in the step's solve.
#[derive(Clone, Debug)]
pub struct JointConstraint {
    /// Bodies and anchors.
    pub frame: JointFrame,
    /// The rows.
    pub rows: JointRows,
    /// The caller's index for this joint (to store impulses back).
    pub user_index: u32,
}

impl JointConstraint {
    /// Applies the accumulated impulses.
    pub fn warm_start(&mut self, bodies: &mut Bodies) {
        let (view, sims) = bodies.split();
        self.warm_start_shared(&view, sims);
    }

    /// One iteration, in the pass `pass`.
    pub fn solve(&mut self, bodies: &mut Bodies, pass: &PassContext) {
        let (view, sims) = bodies.split();
        self.solve_shared(&view, sims, pass);
    }

    /// Both bodies' motion through the workers' shared view.
    fn motions(&self, view: &StateView, sims: &[BodySim]) -> (Motion, Motion) {
        let load = |index| Motion::load_shared(view, sims, index);
        (load(self.frame.body_a), load(self.frame.body_b))
    }

    /// [`JointConstraint::warm_start`] by a worker solving a colour of joints, through the
    /// workers' shared view of the states.
    pub(crate) fn warm_start_shared(&mut self, view: &StateView, sims: &[BodySim]) {
        let (ia, ib) = (self.frame.body_a, self.frame.body_b);
        let (mut a, mut b) = self.motions(view, sims);
        self.rows.warm_start(&mut a, &mut b);
        Motion::store_pair_shared(view, sims, (&a, ia), (&b, ib));
    }

    /// [`JointConstraint::solve`] by a worker solving a colour of joints.
    pub(crate) fn solve_shared(&mut self, view: &StateView, sims: &[BodySim], pass: &PassContext) {
        let (ia, ib) = (self.frame.body_a, self.frame.body_b);
        let (mut a, mut b) = self.motions(view, sims);
        self.rows.solve(&self.frame, &mut a, &mut b, pass);
        Motion::store_pair_shared(view, sims, (&a, ia), (&b, ib));
    }

    /// Pass `pass` of the position projection (`project.rs`) over this joint, by a worker
    /// projecting a colour of joints, if its bodies moved since its last ([`Stamps`]);
    /// whether it moved a moving body (stamped then).
    pub(crate) fn project_shared(
        &mut self,
        view: &StateView,
        sims: &[BodySim],
        (stamps, pass): (&Stamps, usize),
    ) -> bool {
        let (ia, ib) = (self.frame.body_a, self.frame.body_b);
        if !stamps.due((ia, ib), pass) {
            return false;
        }
        let (mut a, mut b) = self.motions(view, sims);
        let moves = |m: &Motion| (m.delta_position, m.delta_rotation);
        let before = (moves(&a), moves(&b));
        self.rows.project(&self.frame, &mut a, &mut b);
        let dynamic = |i: u32| sims.get(i as usize).is_some_and(BodySim::is_dynamic);
        let moved_a = dynamic(ia) && moves(&a) != before.0;
        let moved_b = dynamic(ib) && moves(&b) != before.1;
        if moved_a {
            stamps.mark(ia, pass);
        }
        if moved_b {
            stamps.mark(ib, pass);
        }
        if moved_a || moved_b {
            Motion::store_moves_shared(view, sims, (&a, ia), (&b, ib));
        }
        moved_a || moved_b
    }

    /// Forgets the accumulated impulses (warm starting off).
    pub fn reset_impulses(&mut self) {
        self.rows.reset();
    }

    /// If a force cap held the joint back this step (an attachment's), the force it asked for
    /// and the force it was allowed (N), over substeps of `h`.
    pub fn limited(&self, h: Real) -> Option<(Real, Real)> {
        self.rows
            .limited()
            .map(|(wanted, allowed)| (wanted / h, allowed / h))
    }

    /// Whether one of the joint's springs was too stiff at the substep for its exact
    /// coefficients and fell back to the implicit ones ([`crate::softness::SpringSoftness`]).
    pub fn too_stiff(&mut self) -> bool {
        self.rows.too_stiff()
    }

    /// The force (N) or torque (N m) the joint holds with, from the impulses of the last
    /// substep of length `h`: what a breaking force is compared with.
    pub fn load(&self, h: Real) -> Real {
        self.rows.load() / h
    }

    /// The accumulated impulses to carry to the next step (N s).
    pub fn impulses(&self) -> JointImpulses {
        self.rows.impulses()
    }
}

// The solver's three joint lists as the engine fills them each step: sized first (keeping the
// records of the last step), then written in runs, one run of each list per worker, each run
// the rows of the joints in one range of the engine's slots. The runs follow the slots' order,
// so the lists are the same however many workers wrote them.

/// How many records of each joint list a step (or one worker's run of it) writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JointCounts {
    /// Plain ball joints ([`crate::pgs::Solver::points`]).
    pub points: usize,
    /// Plain distance joints ([`crate::pgs::Solver::lengths`]).
    pub lengths: usize,
    /// Every other joint ([`crate::pgs::Solver::joints`]).
    pub joints: usize,
}

/// Runs of the solver's joint lists, and of its spring cache, for one writer: the records it
/// must write, in order, and the cache entries of the joints it builds.
#[derive(Debug, Default)]
pub struct JointLists<'a> {
    /// Records for plain ball joints ([`BallJoint::plain`]).
    pub points: &'a mut [PointRow],
    /// Records for plain distance joints ([`DistanceJoint::plain`]).
    pub lengths: &'a mut [LengthRow],
    /// Records for every other joint ([`JointKind::prepare`]).
    pub joints: &'a mut [JointConstraint],
    /// The spring coefficients of the joints in this run's range of slots.
    pub springs: SpringWindow<'a>,
}

impl<'a> JointLists<'a> {
    /// The first `counts` records of each list with the cache entries of the joints below slot
    /// `slot`, and the rest (each count clamped to what the list holds).
    pub fn split(self, counts: JointCounts, slot: usize) -> (JointLists<'a>, JointLists<'a>) {
        let (points, rest_points) = self
            .points
            .split_at_mut(counts.points.min(self.points.len()));
        let (lengths, rest_lengths) = self
            .lengths
            .split_at_mut(counts.lengths.min(self.lengths.len()));
        let (joints, rest_joints) = self
            .joints
            .split_at_mut(counts.joints.min(self.joints.len()));
        let (springs, rest_springs) = self.springs.split_at(slot);
        (
            JointLists {
                points,
                lengths,
                joints,
                springs,
            },
            JointLists {
                points: rest_points,
                lengths: rest_lengths,
                joints: rest_joints,
                springs: rest_springs,
            },
        )
    }
}

/// One writer's part of a step's joint lists: how many records of each list it writes, and
/// the end of its range of joint slots (each range starts where the one before ends).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JointRun {
    /// The records it writes.
    pub counts: JointCounts,
    /// Where its joint slots end.
    pub end: usize,
}

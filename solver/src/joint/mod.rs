//! Joints, each composed of parts, one file per joint.
//!
//! The parts: the point part ([`PointRow`]: the anchors together, a 3 x 3 block), the length
//! part ([`LengthRow`]: the anchors' distance), the axis part ([`AxisPart`]: hold, limits and
//! motor along one direction, linear or angular) and the angular lock ([`AngularLock`]: three
//! axis parts). A ball joint is a point part; a distance joint an axis part (or, without
//! limits, a length part); a hinge a point part, two axis parts keeping the axes parallel and
//! one for the angle; a weld a point part and an angular lock; a slider an angular lock, two
//! axis parts across its axis and one along it; the upright spring two axis parts; the motor
//! one.
//!
//! In: the two bodies, the anchors (from each centre of mass, world orientation, at the start of
//! the step), the joint's settings and last step's impulses; the step's context
//! ([`crate::step::StepContext`]) when a joint is made, and each pass's ([`PassContext`]). Each
//! substep: warm start, then solve (biased, then relax); the engine stores the impulses for the
//! next step.
//!
//! The position error is measured like a contact's separation: the anchors' offset at the start
//! of the step plus the bodies' motion since (their displacement and small rotation). Unlike a
//! contact's, a joint's directions follow that motion too: the parts along directions that turn
//! with the bodies are aimed again each pass ([`AxisPart::aim`]). Measured: with the axis
//! frozen at the start of the step, the 30 x 30 `spring_net` diverged within 100 steps at 4
//! substeps; with the current axis it settles. Rigid parts get the joints' stabilisation
//! ([`JointSettings`], dropped in relax passes); soft ones are springs and always apply, since
//! the spring is physics, not stabilisation, each pass with its own coefficients
//! ([`crate::softness::SpringSoftness`]) so that an isolated spring moves as the closed-form
//! oscillator does.

mod angular;
mod axis;
mod ball;
mod bundles;
mod chain;
mod distance;
mod ends;
mod fixed;
mod hinge;
mod length;
mod point;
mod point_bundle;
mod slider;
mod world;

pub use angular::AngularLock;
pub use axis::{AxisPart, AxisSettings, Hold};
pub use ball::BallJoint;
#[cfg(target_arch = "x86_64")]
pub(crate) use bundles::pass_avx2 as joint_pass_avx2;
pub(crate) use bundles::{pass as joint_pass, JointBundles, JointPass, Lists as JointListsOf};
pub(crate) use chain::Chains;
pub use distance::{DistanceJoint, DistanceSettings};
pub use ends::Ends;
pub use fixed::FixedJoint;
pub use hinge::{hinge_angle, HingeJoint, HingeSettings};
pub(crate) use length::LengthBundle;
pub use length::LengthRow;
pub(crate) use point::prepare_masses;
pub use point::PointRow;
pub(crate) use point_bundle::PointBundle;
pub use slider::{SliderJoint, SliderSettings};
pub use world::{MotorJoint, MotorSettings, RaySpringJoint, RaySpringSettings, UprightJoint};

use crate::body::{Bodies, Motion};
use crate::row::Row;
use crate::softness::Softness;
use crate::{Real, Vector};

/// Where a joint attaches to its two bodies, at the start of the step.
#[derive(Clone, Copy, Debug)]
pub struct JointFrame {
    /// Body A's solver index, or [`crate::body::STATIC`].
    pub body_a: u32,
    /// Body B's solver index, or [`crate::body::STATIC`].
    pub body_b: u32,
    /// A's anchor relative to A's centre of mass (world orientation).
    pub anchor_a: Vector,
    /// B's anchor relative to B's centre of mass.
    pub anchor_b: Vector,
    /// B's anchor minus A's anchor, in world space, at the start of the step.
    pub separation: Vector,
}

impl JointFrame {
    /// The anchors now (from each centre of mass), turned by the bodies' rotation since the
    /// step began.
    pub fn current_anchors(&self, a: &Motion, b: &Motion) -> (Vector, Vector) {
        (
            a.delta_rotation * self.anchor_a,
            b.delta_rotation * self.anchor_b,
        )
    }

    /// B's anchor minus A's anchor now, from the bodies' motion since the step began.
    pub fn current_separation(&self, a: &Motion, b: &Motion) -> Vector {
        self.separation + b.anchor_motion(&self.anchor_b) - a.anchor_motion(&self.anchor_a)
    }

    /// A row along `dir` through the anchors `r_a` and `r_b`.
    pub fn row(dir: &Vector, r_a: &Vector, r_b: &Vector, a: &Motion, b: &Motion) -> Row {
        Row::new(*dir, -r_a.cross(dir), r_b.cross(dir), a, b)
    }
}

/// How rigid joint rows correct their position error.
///
/// Not Baumgarte, unlike contacts: measured on a hanging chain of 20 balls at 4 substeps with
/// warm starting and relax passes, Baumgarte (0.2) left the joints 3.5 m apart after 10 s and
/// diverged at 1 relax pass, while this soft correction (Box2D v3's; then 60 Hz, damping ratio
/// 5) held them within 3 mm. The position error is pulled out by a stiff, heavily damped
/// implicit spring, whose leak (`impulse_scale`) keeps warm starting from feeding back: on
/// `joint_grid`, Baumgarte diverged, and so did a leak of only the impulse added since the
/// warm start. The price is a stretch of about `F / (m_eff w^2)` under a load `F`, which is why
/// the default frequency is as high as the substep allows. Position passes after the velocity
/// solve (Box2D v2's, Jolt's) were tried against that stretch and did not reduce it on
/// `joint_grid` even at 50 passes: the error belongs to a 50-link chain, which Gauss-Seidel on
/// positions converges as slowly as on velocities.
#[derive(Clone, Copy, Debug)]
pub struct JointSettings {
    /// The position correction of rigid rows while biased.
    pub stabilisation: Softness,
}

impl JointSettings {
    /// `hertz` and `damping_ratio` at substep `h`; the frequency is capped at a quarter of the
    /// substep rate, past which coupled rows stop converging.
    pub fn new(hertz: Real, damping_ratio: Real, h: Real) -> Self {
        JointSettings {
            stabilisation: Softness::spring(hertz.min(0.25 / h), damping_ratio, h),
        }
    }

    /// The softness of a rigid row: the stabilisation while biased, none while relaxing.
    pub fn rigid(&self, use_bias: bool) -> Softness {
        if use_bias {
            self.stabilisation
        } else {
            Softness::RIGID
        }
    }
}

/// What one pass over a joint reads of the step: the substep, whether the pass is biased, the
/// time since the step began at which the bodies' positions now stand (for targets that move),
/// and how rigid rows correct their position error.
#[derive(Clone, Copy, Debug)]
pub struct PassContext {
    /// The substep (s).
    pub h: Real,
    /// The biased pass (position error corrected), or the relax pass.
    pub use_bias: bool,
    /// Time since the step began (s).
    pub elapsed: Real,
    /// The rigid rows' stabilisation.
    pub joint: JointSettings,
}

impl PassContext {
    /// The softness of a rigid row in this pass.
    pub fn rigid(&self) -> Softness {
        self.joint.rigid(self.use_bias)
    }
}

/// One of the joint kinds.
#[derive(Clone, Debug)]
pub enum JointKind {
    /// Spherical: the anchors coincide (rigid or a 3-axis spring).
    Ball(BallJoint),
    /// The anchors' distance: fixed, a spring, and/or limits (a rope is a maximum only).
    Distance(DistanceJoint),
    /// A body axis held on a world axis by an angular spring.
    Upright(UprightJoint),
    /// A velocity motor with a force cap.
    Motor(MotorJoint),
    /// A spring along a ray's axis to the ground it hit.
    RaySpring(RaySpringJoint),
    /// A hinge with optional limits and motor.
    Hinge(HingeJoint),
    /// A weld.
    Fixed(FixedJoint),
    /// A slider with optional limits and motor.
    Slider(SliderJoint),
}

/// A joint in the step's solve.
#[derive(Clone, Debug)]
pub struct JointConstraint {
    /// Bodies and anchors.
    pub frame: JointFrame,
    /// The rows.
    pub kind: JointKind,
    /// The caller's index for this joint (to store impulses back).
    pub user_index: u32,
}

impl JointConstraint {
    /// Applies the accumulated impulses.
    pub fn warm_start(&self, bodies: &mut Bodies) {
        if let JointKind::Ball(j) = &self.kind {
            // The point part reads only the hot state (its masses are its own).
            let (ia, ib) = (self.frame.body_a, self.frame.body_b);
            let (mut a, mut b) = (*bodies.state(ia), *bodies.state(ib));
            j.warm_start(&mut a, &mut b);
            bodies.store_pair((ia, &a), (ib, &b));
            return;
        }
        let mut a = Motion::load(bodies, self.frame.body_a);
        let mut b = Motion::load(bodies, self.frame.body_b);
        let (a_, b_) = (&mut a, &mut b);
        match &self.kind {
            JointKind::Ball(_) => {}
            JointKind::Distance(j) => j.part.warm_start(a_, b_),
            JointKind::Upright(j) => j.warm_start(a_, b_),
            JointKind::Motor(j) => j.part.warm_start(a_, b_),
            JointKind::RaySpring(j) => j.warm_start(a_, b_),
            JointKind::Hinge(j) => j.warm_start(a_, b_),
            JointKind::Fixed(j) => j.warm_start(a_, b_),
            JointKind::Slider(j) => j.warm_start(a_, b_),
        }
        Motion::store_pair(bodies, (&a, self.frame.body_a), (&b, self.frame.body_b));
    }

    /// One iteration, in the pass `pass`.
    pub fn solve(&mut self, bodies: &mut Bodies, pass: &PassContext) {
        if let JointKind::Ball(j) = &mut self.kind {
            let (ia, ib) = (self.frame.body_a, self.frame.body_b);
            let (mut a, mut b) = (*bodies.state(ia), *bodies.state(ib));
            j.solve(&mut a, &mut b, pass.use_bias, pass.elapsed);
            bodies.store_pair((ia, &a), (ib, &b));
            return;
        }
        let mut a = Motion::load(bodies, self.frame.body_a);
        let mut b = Motion::load(bodies, self.frame.body_b);
        let separation = self.frame.current_separation(&a, &b);
        let anchors = self.frame.current_anchors(&a, &b);
        let (a_, b_) = (&mut a, &mut b);
        match &mut self.kind {
            JointKind::Ball(_) => {}
            JointKind::Distance(j) => j.solve((a_, b_), &separation, &anchors, pass),
            JointKind::Upright(j) => j.solve(a_, b_, pass),
            JointKind::Motor(j) => j.solve(a_, b_, pass),
            JointKind::RaySpring(j) => j.solve((a_, b_), &separation, pass),
            JointKind::Hinge(j) => j.solve(a_, b_, pass),
            JointKind::Fixed(j) => j.solve(a_, b_, pass),
            JointKind::Slider(j) => j.solve((a_, b_), &separation, &anchors, pass),
        }
        Motion::store_pair(bodies, (&a, self.frame.body_a), (&b, self.frame.body_b));
    }

    /// Forgets the accumulated impulses (warm starting off).
    pub fn reset_impulses(&mut self) {
        match &mut self.kind {
            JointKind::Ball(j) => j.reset_impulse(),
            JointKind::Distance(j) => j.part.reset(),
            JointKind::Upright(j) => j.reset_impulses(),
            JointKind::Motor(j) => j.part.reset(),
            JointKind::RaySpring(j) => j.reset_impulses(),
            JointKind::Hinge(j) => j.reset_impulses(),
            JointKind::Fixed(j) => j.reset_impulses(),
            JointKind::Slider(j) => j.reset_impulses(),
        }
    }

    /// If a force cap held the joint back this step (an attachment's), the force it asked for
    /// and the force it was allowed (N), over substeps of `h`.
    pub fn limited(&self, h: Real) -> Option<(Real, Real)> {
        match &self.kind {
            JointKind::Ball(j) => j.wanted_impulse.map(|w| (w / h, j.max_impulse / h)),
            _ => None,
        }
    }

    /// Whether one of the joint's springs was too stiff at the substep for its exact
    /// coefficients and fell back to the implicit ones ([`crate::softness::SpringSoftness`]).
    pub fn too_stiff(&self) -> bool {
        match &self.kind {
            JointKind::Ball(j) => j.too_stiff(),
            JointKind::Distance(j) => j.too_stiff(),
            JointKind::Upright(j) => j.too_stiff(),
            JointKind::Motor(_) => false,
            JointKind::RaySpring(j) => j.too_stiff(),
            JointKind::Hinge(j) => j.too_stiff(),
            JointKind::Fixed(j) => j.too_stiff(),
            JointKind::Slider(j) => j.too_stiff(),
        }
    }

    /// The force (N) or torque (N m) the joint holds with, from the impulses of the last
    /// substep of length `h`: what a breaking force is compared with.
    pub fn load(&self, h: Real) -> Real {
        let impulse = match &self.kind {
            JointKind::Ball(j) => j.impulse().norm(),
            JointKind::Hinge(j) => j.point.impulse().norm(),
            JointKind::Fixed(j) => j.point.impulse().norm(),
            JointKind::Distance(j) => j.part.total().abs(),
            JointKind::Slider(j) => j.impulse(),
            JointKind::Upright(j) => {
                let [x, y] = j.impulses();
                (x * x + y * y).sqrt()
            }
            JointKind::Motor(j) => j.part.total().abs(),
            JointKind::RaySpring(j) => j.impulses().iter().sum::<Real>().abs(),
        };
        impulse / h
    }

    /// The accumulated impulses to carry to the next step (N s): point parts as a world vector
    /// first, then the joint's other parts in order.
    pub fn impulses(&self) -> [Real; 8] {
        let mut out = [0.0; 8];
        match &self.kind {
            JointKind::Ball(j) => out[..3].copy_from_slice(j.impulse().as_slice()),
            JointKind::Distance(j) => out[..3].copy_from_slice(&j.impulses()),
            JointKind::Upright(j) => out[..2].copy_from_slice(&j.impulses()),
            JointKind::Motor(j) => out[0] = j.part.total(),
            JointKind::RaySpring(j) => out[..2].copy_from_slice(&j.impulses()),
            JointKind::Hinge(j) => out = j.impulses(),
            JointKind::Fixed(j) => out = j.impulses(),
            JointKind::Slider(j) => out = j.impulses(),
        }
        out
    }
}

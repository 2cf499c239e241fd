//! Joints: each one is rows with one lifecycle, built from the same [`Row`] as contacts.
//!
//! In: the two bodies, the anchors (from each centre of mass, world orientation, at the start of
//! the step), the joint's settings and last step's impulses. Each substep: `warm_start`, then
//! `solve(use_bias)`; the engine stores the impulses for the next step.
//!
//! The position error is measured like a contact's separation: the anchors' offset at the start
//! of the step plus the bodies' motion since (their displacement and small rotation). Unlike a
//! contact's, a joint's Jacobian follows that motion too: each iteration rebuilds its rows on the
//! current anchors and axis. Measured: with the axis frozen at the start of the step, the
//! 30 x 30 `spring_net` diverged within 100 steps at 4 substeps; with the current axis it settles. Rigid rows get the Baumgarte push (dropped in relax
//! passes); soft rows are springs ([`Spring`]) and always apply, since the spring is physics, not
//! stabilisation, each pass with its own coefficients ([`SpringSoftness`]) so that an isolated
//! spring moves as the closed-form oscillator does.

mod ball;
mod bundles;
mod chain;
mod distance;
mod ends;
mod hinge;
mod length;
mod point;
mod point_bundle;
mod world;

pub use ball::BallJoint;
#[cfg(target_arch = "x86_64")]
pub(crate) use bundles::pass_avx2 as joint_pass_avx2;
pub(crate) use bundles::{pass as joint_pass, JointBundles, JointPass, Lists as JointListsOf};
pub(crate) use chain::Chains;
pub use distance::{DistanceJoint, DistanceSettings};
pub use ends::Ends;
pub use hinge::{hinge_angle, FixedJoint, HingeJoint, HingeSettings, SliderJoint, SliderSettings};
pub(crate) use length::LengthBundle;
pub use length::LengthRow;
pub use point::PointRow;
pub(crate) use point_bundle::PointBundle;
pub use world::{MotorJoint, UprightJoint};

use crate::body::{Bodies, Motion};
use crate::row::Row;
use crate::softness::{Softness, Spring, SpringSoftness};
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

    /// A row along `dir` through the anchors `r_a` and `r_b`, carrying `impulse`.
    pub fn row(
        dir: &Vector,
        r_a: &Vector,
        r_b: &Vector,
        a: &Motion,
        b: &Motion,
        impulse: Real,
    ) -> Row {
        let mut row = Row::new(*dir, -r_a.cross(dir), r_b.cross(dir), a, b);
        row.impulse = impulse;
        row
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
        match &self.kind {
            JointKind::Hinge(j) => j.point.warm_start_motions(&mut a, &mut b),
            JointKind::Fixed(j) => j.point.warm_start_motions(&mut a, &mut b),
            _ => {}
        }
        self.for_each_row(|row| row.apply(&mut a, &mut b, row.impulse));
        Motion::store_pair(bodies, (&a, self.frame.body_a), (&b, self.frame.body_b));
    }

    /// One iteration; `h` is the substep (s), `elapsed` the time since the step began at which
    /// the bodies' positions now stand (s), for targets that move.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        bodies: &mut Bodies,
        settings: &JointSettings,
        h: Real,
        use_bias: bool,
        elapsed: Real,
    ) {
        if let JointKind::Ball(j) = &mut self.kind {
            let (ia, ib) = (self.frame.body_a, self.frame.body_b);
            let (mut a, mut b) = (*bodies.state(ia), *bodies.state(ib));
            j.solve(&mut a, &mut b, use_bias, elapsed);
            bodies.store_pair((ia, &a), (ib, &b));
            return;
        }
        let mut a = Motion::load(bodies, self.frame.body_a);
        let mut b = Motion::load(bodies, self.frame.body_b);
        let separation = self.frame.current_separation(&a, &b);
        let anchors = self.frame.current_anchors(&a, &b);
        match &mut self.kind {
            JointKind::Ball(_) => {}
            JointKind::Distance(j) => {
                j.solve(&mut a, &mut b, &separation, &anchors, settings, h, use_bias)
            }
            JointKind::Upright(j) => j.solve(&mut a, &mut b, use_bias),
            JointKind::Motor(j) => j.solve(&mut a, &mut b),
            JointKind::Hinge(j) => j.solve(&mut a, &mut b, settings, h, use_bias),
            JointKind::Fixed(j) => j.solve(&mut a, &mut b, settings, h, use_bias),
            JointKind::Slider(j) => {
                j.solve(&mut a, &mut b, &separation, &anchors, settings, h, use_bias)
            }
        }
        Motion::store_pair(bodies, (&a, self.frame.body_a), (&b, self.frame.body_b));
    }

    /// Calls `f` on every row (for warm starting); point parts are not rows.
    fn for_each_row(&self, mut f: impl FnMut(&Row)) {
        match &self.kind {
            JointKind::Ball(_) => {}
            JointKind::Distance(j) => j.rows.iter().for_each(f),
            JointKind::Upright(j) => j.rows.iter().for_each(f),
            JointKind::Motor(j) => f(&j.row),
            JointKind::Hinge(j) => j.rows.iter().for_each(f),
            JointKind::Fixed(j) => j.rows.iter().for_each(f),
            JointKind::Slider(j) => j.rows.iter().for_each(f),
        }
    }

    /// Forgets the accumulated impulses (warm starting off).
    pub fn reset_impulses(&mut self) {
        let clear = |r: &mut Row| r.impulse = 0.0;
        match &mut self.kind {
            JointKind::Ball(j) => j.reset_impulse(),
            JointKind::Distance(j) => j.rows.iter_mut().for_each(clear),
            JointKind::Upright(j) => j.rows.iter_mut().for_each(clear),
            JointKind::Motor(j) => clear(&mut j.row),
            JointKind::Hinge(j) => {
                j.point.reset_impulse();
                j.rows.iter_mut().for_each(clear)
            }
            JointKind::Fixed(j) => {
                j.point.reset_impulse();
                j.rows.iter_mut().for_each(clear)
            }
            JointKind::Slider(j) => j.rows.iter_mut().for_each(clear),
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

    /// Whether one of the joint's springs was too stiff at substep `h` for its exact
    /// coefficients and fell back to the implicit ones ([`SpringSoftness`]).
    pub fn too_stiff(&self, h: Real) -> bool {
        let rows_of = |spring: Option<&Spring>, rows: &[Row]| {
            spring.is_some_and(|s| rows.iter().any(|r| spring_softness(s, r, h).limited))
        };
        match &self.kind {
            JointKind::Ball(j) => j.too_stiff(),
            JointKind::Distance(j) => j.too_stiff(),
            JointKind::Upright(j) => j.too_stiff(),
            JointKind::Motor(_) => false,
            JointKind::Hinge(j) => {
                rows_of(j.settings.spring.as_ref(), &j.rows[..2]) || j.point.too_stiff()
            }
            JointKind::Fixed(j) => rows_of(j.spring.as_ref(), &j.rows) || j.point.too_stiff(),
            JointKind::Slider(j) => rows_of(j.settings.spring.as_ref(), &j.rows[..5]),
        }
    }

    /// The force (N) or torque (N m) the joint holds with, from the impulses of the last
    /// substep of length `h`: what a breaking force is compared with.
    pub fn load(&self, h: Real) -> Real {
        let impulse = match &self.kind {
            JointKind::Ball(j) => j.impulse().norm(),
            JointKind::Hinge(j) => j.point.impulse().norm(),
            JointKind::Fixed(j) => j.point.impulse().norm(),
            JointKind::Distance(j) => j.rows.iter().map(|r| r.impulse).sum::<Real>().abs(),
            JointKind::Slider(j) => {
                let along: Real = j.rows[5..].iter().map(|r| r.impulse).sum();
                (j.rows[3].impulse.powi(2) + j.rows[4].impulse.powi(2) + along * along).sqrt()
            }
            JointKind::Upright(j) => (j.rows[0].impulse.powi(2) + j.rows[1].impulse.powi(2)).sqrt(),
            JointKind::Motor(j) => j.row.impulse.abs(),
        };
        impulse / h
    }

    /// The accumulated impulses to carry to the next step (N s): point rows as a world vector
    /// first, then the joint's other rows in order.
    pub fn impulses(&self) -> [Real; 8] {
        let mut out = [0.0; 8];
        match &self.kind {
            JointKind::Ball(j) => out[..3].copy_from_slice(j.impulse().as_slice()),
            JointKind::Distance(j) => out[..3].copy_from_slice(&j.rows.map(|r| r.impulse)),
            JointKind::Upright(j) => out[..2].copy_from_slice(&j.rows.map(|r| r.impulse)),
            JointKind::Motor(j) => out[0] = j.row.impulse,
            JointKind::Hinge(j) => out = j.impulses(),
            JointKind::Fixed(j) => out = j.impulses(),
            JointKind::Slider(j) => out = j.impulses(),
        }
        out
    }
}

/// A limit row on one coordinate (a length, an angle, a translation) whose value is `value`:
/// `lower` keeps it at least `bound` (impulse >= 0), otherwise it keeps it at most `bound`
/// (impulse <= 0). While the limit is slack the row lets the coordinate close the gap by at most
/// the gap this substep (speculative, as contacts do); once violated it is a rigid row. The
/// row's Jacobian must already be the coordinate's.
#[allow(clippy::too_many_arguments)]
fn solve_limit(
    row: &mut Row,
    a: &mut Motion,
    b: &mut Motion,
    value: Real,
    bound: Real,
    lower: bool,
    settings: &JointSettings,
    h: Real,
    use_bias: bool,
) {
    let c = value - bound;
    let slack = if lower { c > 0.0 } else { c < 0.0 };
    let (bias, soft) = if slack {
        (c / h, Softness::RIGID)
    } else {
        let soft = settings.rigid(use_bias);
        (soft.bias_rate * c, soft)
    };
    let (lo, hi) = if lower {
        (0.0, Real::INFINITY)
    } else {
        (Real::NEG_INFINITY, 0.0)
    };
    row.solve(a, b, 0.0, bias, &soft, lo, hi);
}

/// A motor row: drives the row's rate towards `speed`, with an impulse of at most
/// `max_impulse` (N s: the maximum force or torque times the substep) either way.
fn solve_motor(row: &mut Row, a: &mut Motion, b: &mut Motion, speed: Real, max_impulse: Real) {
    row.solve(
        a,
        b,
        speed,
        0.0,
        &Softness::RIGID,
        -max_impulse,
        max_impulse,
    );
}

/// The softness of one of a joint's position rows: its spring's if the joint is soft, else the
/// rigid stabilisation (while biased).
fn position_softness(
    spring: Option<&Spring>,
    row: &Row,
    settings: &JointSettings,
    h: Real,
    use_bias: bool,
) -> Softness {
    match spring {
        Some(spring) => spring_softness(spring, row, h).pass(use_bias),
        None => settings.rigid(use_bias),
    }
}

/// The coefficients of a spring row of `row`'s effective mass at substep `h`, for both passes.
fn spring_softness(spring: &Spring, row: &Row, h: Real) -> SpringSoftness {
    let mass = if row.effective_mass > 0.0 {
        row.effective_mass
    } else {
        0.0
    };
    SpringSoftness::new(spring, mass, h)
}

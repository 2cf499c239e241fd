//! The ball (spherical) joint: B's anchor stays on A's anchor; rotation is free. Its rows are
//! the point part ([`PointRow`], solved as one 3 x 3 block), which hinges and welds share; the
//! ball joint adds what attachments need (a moving target, a force cap) and springs of
//! physical stiffness.
//!
//! A spring set by frequency (or acceleration, or halflife) has the same coefficients along
//! every direction and is solved on the block. A spring of physical stiffness is not: its
//! frequency depends on the effective mass along each direction, so it is solved along K's
//! eigen-axes, each with its own coefficients ([`SpringSoftness`]), still as one impulse.

use nalgebra::Matrix3;

use super::angular::AngularLock;
use super::drive::{orientation_drive, OrientationDrive};
use super::part::{impulses, Joint, JointFrame, Part, PassContext};
use super::point::{mass_matrix, PointRow};
use super::project::{project_angle, project_point};
use super::swing::{frame_along, swing_twist, Cone, ConeLimit, Frames};
use crate::body::{BodyState, Motion};
use crate::softness::{Softness, Spring, SpringSoftness, SpringWindow};
use crate::step::JointSettings;
use crate::step::StepContext;
use crate::{Real, Vector};

/// How a ball joint is set.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BallSettings {
    /// A spring on all three axes instead of a rigid point.
    pub spring: Option<Spring>,
    /// A cone B's axis stays within about A's.
    pub cone: Option<ConeLimit>,
    /// A drive towards an orientation of B relative to A (`q_b = q_a target`).
    pub drive: Option<OrientationDrive>,
}

impulses! {
    /// A ball joint's accumulated impulses.
    pub struct BallImpulses {
        /// The point's (world, N s).
        pub point: Vector,
        /// The cone's (N m s).
        pub cone: Real,
        /// The drive's, about the world axes (N m s).
        pub drive: Vector,
    }
}

/// A spring of physical stiffness along K's eigen-axes.
#[derive(Clone, Copy, Debug)]
struct PerAxis {
    /// The axes (orthonormal).
    axes: [Vector; 3],
    /// The effective mass along each.
    masses: [Real; 3],
    /// The coefficients along each.
    softness: [SpringSoftness; 3],
}

/// A ball joint prepared for one step.
#[derive(Clone, Debug)]
pub struct BallJoint {
    /// The point part: the block, its softness (unless `per_axis`) and its impulse.
    point: PointRow,
    /// A spring of physical stiffness, solved per axis instead of on the block.
    per_axis: Option<PerAxis>,
    /// Whether the spring was too stiff for exact coefficients ([`SpringSoftness::limited`]).
    too_stiff: bool,
    /// Velocity of A's anchor to follow (m/s): an attachment's moving target.
    pub target_velocity: Vector,
    /// Largest total impulse per substep (N s): an attachment's force cap times h.
    pub max_impulse: Real,
    /// The largest impulse the point asked for past `max_impulse` in the last substep's passes
    /// (N s), if the cap held it back: what the step reports as a limited spring.
    pub wanted_impulse: Option<Real>,
    /// What the biased pass asked for before the cap (N s): a capped spring's relax pass adds
    /// its damping to this wish, not to the capped impulse (see `solve`).
    wish: Vector,
    /// The cone, with the frames its axes are the x axes of.
    cone: Option<(Cone, Frames)>,
    /// The drive towards an orientation.
    drive: Option<AngularLock>,
    /// Whether the point is rigid (its error projected after the solve: `project.rs`).
    rigid: bool,
}

/// The eigen-axes of `k` (orthonormal) and the effective mass along each (0 where `k` has
/// none), or the world axes if it cannot be decomposed.
fn eigen_axes(k: &Matrix3<Real>) -> ([Vector; 3], [Real; 3]) {
    let world = [Vector::x(), Vector::y(), Vector::z()];
    let along = |axes: [Vector; 3]| {
        axes.map(|e| {
            let k = e.dot(&(k * e));
            if k > 0.0 {
                1.0 / k
            } else {
                0.0
            }
        })
    };
    if k.norm() <= Real::MIN_POSITIVE || !k.iter().all(|x| x.is_finite()) {
        return (world, along(world));
    }
    let eigen = k.symmetric_eigen();
    let (e0, e1) = (
        eigen.eigenvectors.column(0).into_owned(),
        eigen.eigenvectors.column(1).into_owned(),
    );
    let axes = match (e0.try_normalize(1.0e-6), e1.try_normalize(1.0e-6)) {
        (Some(x), Some(y)) => {
            // Re-orthonormalise (the solver's vectors are orthogonal up to rounding).
            let z = x.cross(&y).normalize();
            [x, z.cross(&x), z]
        }
        _ => world,
    };
    (axes, along(axes))
}

impl BallJoint {
    /// The joint for `frame`, rigid (with `settings`' stabilisation) or `spring`, at substep
    /// `h`, carrying last step's `impulse` (a world vector, N s).
    pub fn new(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        spring: Option<Spring>,
        settings: &JointSettings,
        h: Real,
        impulse: Vector,
    ) -> Self {
        let (mut softness, mut per_axis, mut too_stiff) =
            ([settings.stabilisation, Softness::RIGID], None, false);
        match spring {
            None => {}
            Some(s) if !matches!(s, Spring::Stiffness { .. }) => {
                (softness, too_stiff) = uniform(&s, h);
            }
            Some(s) => {
                let (axes, masses) = eigen_axes(&mass_matrix(frame, a, b));
                let per = masses.map(|m| SpringSoftness::new(&s, m, h));
                too_stiff = per.iter().any(|s| s.limited);
                per_axis = Some(PerAxis {
                    axes,
                    masses,
                    softness: per,
                });
            }
        }
        BallJoint {
            point: PointRow::new(frame, a, b, softness, impulse),
            per_axis,
            too_stiff,
            target_velocity: Vector::zeros(),
            max_impulse: Real::INFINITY,
            wanted_impulse: None,
            wish: Vector::zeros(),
            cone: None,
            drive: None,
            rigid: spring.is_none(),
        }
    }

    /// Whether a ball joint set as `settings` is a point part and nothing more: rigid, or a
    /// spring set by frequency, acceleration or halflife (not one of physical stiffness, which
    /// needs the joint's effective mass), with no cone and no drive. Such joints go to the
    /// solver's fast path ([`BallJoint::plain`]).
    pub fn is_plain(settings: &BallSettings) -> bool {
        let stiffness = matches!(settings.spring, Some(Spring::Stiffness { .. }));
        settings.cone.is_none() && settings.drive.is_none() && !stiffness
    }

    /// The point part alone, for a ball joint of `user_index` that is nothing more
    /// ([`BallJoint::is_plain`]; rigid with `rigid`'s stabilisation or `settings`' spring):
    /// what the solver's fast path takes ([`crate::pgs::Solver::points`]), built without the
    /// joint around it.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn plain(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        settings: &BallSettings,
        rigid: &JointSettings,
        (h, cache): (Real, &mut SpringWindow),
        impulse: Vector,
        user_index: u32,
    ) -> PointRow {
        debug_assert!(Self::is_plain(settings));
        let (softness, too_stiff) = match &settings.spring {
            None => ([rigid.stabilisation, Softness::RIGID], false),
            Some(s) => {
                // Independent of the mass: any mass gives the same coefficients.
                let s = cache.get(user_index, s, 1.0, h);
                ([s.biased, s.relax], s.limited)
            }
        };
        // (Its `K^-1` is the solve's to compute, for all point parts at once, in lanes.)
        let mut row = PointRow::without_mass(frame, a, b, softness, impulse);
        row.user_index = user_index;
        row.too_stiff = too_stiff;
        row
    }

    /// The accumulated impulse as a world vector (N s).
    pub fn impulse(&self) -> Vector {
        self.point.impulse
    }

    /// Applies the accumulated impulse (warm starting).
    fn warm_start_states(&self, a: &mut BodyState, b: &mut BodyState) {
        let ends = &self.point.ends;
        let (r_a, r_b) = ends.anchors(a, b);
        ends.apply(a, b, (&r_a, &r_b), &self.point.impulse);
    }

    /// One iteration, biased or relaxing; `elapsed` is the time since the step began at which
    /// the bodies' positions now stand (s), for a moving target.
    fn solve_states(
        &mut self,
        a: &mut BodyState,
        b: &mut BodyState,
        use_bias: bool,
        elapsed: Real,
    ) {
        let (r_a, r_b) = self.point.ends.anchors(a, b);
        let r = (&r_a, &r_b);
        let separation = self.point.ends.separation(a, b, r) - self.target_velocity * elapsed;
        let velocity = PointRow::velocity(a, b, r) - self.target_velocity;
        let pass = if use_bias { 0 } else { 1 };
        let impulse = self.point.impulse;
        let mut wish = match &self.per_axis {
            None => self
                .point
                .wanted(&velocity, &separation, &self.point.softness[pass]),
            Some(per) => {
                let mut wish = Vector::zeros();
                for k in 0..3 {
                    let soft = per.softness[k].pass(use_bias);
                    let (e, lambda) = (&per.axes[k], impulse.dot(&per.axes[k]));
                    let along = lambda
                        - per.masses[k]
                            * soft.mass_scale
                            * (e.dot(&velocity) + soft.bias_rate * e.dot(&separation))
                        - soft.impulse_scale * lambda;
                    wish += e * along;
                }
                wish
            }
        };
        if self.max_impulse.is_finite() {
            // A spring's relax pass only adds the rest of its damping to what the biased
            // pass asked for; added to the capped impulse instead, it would pull a saturated
            // spring below its cap (a 200 N drag reached 0.19 m/s instead of 0.2 after 1 s
            // of a 1,000 kg crate).
            if use_bias {
                self.wish = wish;
            } else {
                wish = self.wish + (wish - impulse);
            }
            let norm = wish.norm();
            if norm > self.max_impulse {
                self.wanted_impulse = Some(self.wanted_impulse.map_or(norm, |w| w.max(norm)));
                wish *= self.max_impulse / norm;
            }
        }
        self.point.impulse = wish;
        self.point.ends.apply(a, b, r, &(wish - impulse));
    }

    /// The point's error projected away, if it is rigid.
    pub(super) fn project_point(&self, frame: &JointFrame, a: &mut Motion, b: &mut Motion) {
        if self.rigid && self.target_velocity == Vector::zeros() {
            project_point(frame, a, b);
        }
    }

    /// One iteration on a joint's loaded bodies, biased or relaxing; `elapsed` is the time
    /// since the step began at which the bodies' positions now stand (s), for a moving target.
    pub(super) fn solve_motions(
        &mut self,
        a: &mut Motion,
        b: &mut Motion,
        use_bias: bool,
        elapsed: Real,
    ) {
        let (mut sa, mut sb) = (state_of(a), state_of(b));
        self.solve_states(&mut sa, &mut sb, use_bias, elapsed);
        (a.v, a.w) = (sa.linear_velocity, sa.angular_velocity);
        (b.v, b.w) = (sb.linear_velocity, sb.angular_velocity);
    }
}

/// The point part of hinges and welds, and the ball joint's own rows.
impl Part for BallJoint {
    fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
        if let Some((cone, _)) = &self.cone {
            cone.warm_start(a, b);
        }
        if let Some(drive) = &self.drive {
            drive.warm_start(a, b);
        }
        let (mut sa, mut sb) = (state_of(a), state_of(b));
        self.warm_start_states(&mut sa, &mut sb);
        (a.v, a.w) = (sa.linear_velocity, sa.angular_velocity);
        (b.v, b.w) = (sb.linear_velocity, sb.angular_velocity);
    }

    fn reset(&mut self) {
        self.point.impulse = Vector::zeros();
        if let Some((cone, _)) = &mut self.cone {
            cone.reset();
        }
        if let Some(drive) = &mut self.drive {
            drive.reset();
        }
    }

    fn too_stiff(&self) -> bool {
        self.too_stiff || self.drive.as_ref().is_some_and(Part::too_stiff)
    }
}

impl Joint for BallJoint {
    type Settings = BallSettings;
    type Impulses = BallImpulses;

    fn prepare(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: &BallSettings,
        step: &StepContext,
        carried: &BallImpulses,
    ) -> Self {
        let mut ball = BallJoint::new(
            frame,
            a,
            b,
            settings.spring,
            &step.joint,
            step.h,
            carried.point,
        );
        if let Some(limit) = &settings.cone {
            let (qa, qb) = frame.rotations;
            let frames = Frames {
                a: qa * frame_along(&limit.axis_a),
                b: qb * frame_along(&limit.axis_b),
            };
            let half = (limit.half_angle, limit.half_angle);
            let cone = Cone::new(&frames, (a, b), half, (None, step.h), carried.cone);
            ball.cone = Some((cone, frames));
        }
        ball.drive = settings.drive.map(|drive| {
            let (h, carried) = (step.h, carried.drive);
            orientation_drive(frame, (a, b), frame.rotations, &drive, h, carried)
        });
        ball
    }

    fn parts(&mut self) -> impl Part + '_ {
        self
    }

    /// The drive, the cone, then the point.
    fn solve(&mut self, _: &JointFrame, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        if let Some(drive) = &mut self.drive {
            drive.solve(a, b, pass);
        }
        if let Some((cone, frames)) = &mut self.cone {
            let (f_a, f_b) = frames.now(a, b);
            let (swing, axis, _) = swing_twist(&f_a, &f_b);
            cone.solve((a, b), (swing, axis), pass);
        }
        self.solve_motions(a, b, pass.use_bias, pass.elapsed);
    }

    /// The cone, then the point.
    fn project(&mut self, frame: &JointFrame, a: &mut Motion, b: &mut Motion) {
        if let Some((cone, frames)) = &self.cone {
            let (f_a, f_b) = frames.now(a, b);
            let (swing, axis, _) = swing_twist(&f_a, &f_b);
            let past = cone.past((swing, axis));
            if let (true, Some(n)) = (past > 0.0, axis) {
                project_angle(a, b, &(f_a * n), past);
            }
        }
        self.project_point(frame, a, b);
    }

    fn impulses(&self) -> BallImpulses {
        BallImpulses {
            point: self.point.impulse,
            cone: self.cone.as_ref().map_or(0.0, |(cone, _)| cone.impulse()),
            drive: self.drive.map_or(Vector::zeros(), |drive| drive.impulses()),
        }
    }

    fn load(&self) -> Real {
        self.point.impulse.norm()
    }
}

/// The two passes' coefficients of a spring whose coefficients do not depend on the mass (set
/// by frequency, acceleration or halflife), and whether it was too stiff to be exact.
fn uniform(spring: &Spring, h: Real) -> ([Softness; 2], bool) {
    // Any mass gives the same coefficients.
    let s = SpringSoftness::new(spring, 1.0, h);
    ([s.biased, s.relax], s.limited)
}

/// The hot state a loaded body carries.
fn state_of(m: &Motion) -> BodyState {
    BodyState {
        linear_velocity: m.v,
        angular_velocity: m.w,
        delta_position: m.delta_position,
        delta_rotation: m.delta_rotation,
        ..BodyState::STATIC
    }
}

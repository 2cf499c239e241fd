//! The ball (spherical) joint, and the point part that hinges and welds share: B's anchor stays
//! on A's anchor; rotation is free.
//!
//! The three position rows `C = p_b - p_a` are solved together, as one 3 x 3 block: the impulse
//! `P` that meets them is `-K^-1 (J v + bias)` with the point's mass matrix
//! `K = (1/m_a + 1/m_b) I - [r_a]x I_a^-1 [r_a]x - [r_b]x I_b^-1 [r_b]x`. Solved as three
//! scalar rows along the world axes, a long lever arm couples the rows so strongly that
//! Gauss-Seidel's few passes leave the constraint unmet (a 2.5 m pendulum swung 2% slow); the
//! block meets all three at once, as the rows along K's eigen-axes did before it, without an
//! eigen-decomposition per joint and step or rows rebuilt every pass (measured on `joint_grid`:
//! those two were 60% of the step).
//!
//! Prepared once per step (Jolt's `PointConstraintPart` does the same): `K^-1` from the anchors
//! and world inertia at the start of the step, the bodies' inverse masses, so that a pass reads
//! only the bodies' hot state. Each pass turns the anchors by the bodies' rotation since the
//! step began, for the position error and for the Jacobian.
//!
//! A spring set by frequency (or acceleration, or halflife) has the same coefficients along
//! every direction and is solved on the block too. A spring of physical stiffness is not: its
//! frequency depends on the effective mass along each direction, so it is solved along K's
//! eigen-axes, each with its own coefficients ([`SpringSoftness`]), still as one impulse.

use nalgebra::Matrix3;

use super::{JointFrame, JointSettings};
use crate::body::{BodyState, Motion};
use crate::softness::{Softness, Spring, SpringSoftness};
use crate::{Real, Vector};

/// How the point's rows are softened.
#[derive(Clone, Copy, Debug)]
enum PointSoftness {
    /// Rigid: the joints' stabilisation in the biased pass, none in the relax pass.
    Rigid,
    /// A spring with the same coefficients along every direction.
    Uniform(SpringSoftness),
    /// A spring whose coefficients follow the effective mass along each of K's eigen-axes
    /// (orthonormal), `masses` being those effective masses.
    PerAxis {
        axes: [Vector; 3],
        masses: [Real; 3],
        softness: [SpringSoftness; 3],
    },
}

/// A ball joint's point part, prepared for one step.
#[derive(Clone, Debug)]
pub struct BallJoint {
    /// A's anchor from A's centre of mass at the start of the step (world orientation).
    anchor_a: Vector,
    /// B's anchor from B's centre of mass.
    anchor_b: Vector,
    /// B's anchor minus A's anchor at the start of the step.
    separation: Vector,
    /// Inverse masses of A and B (0 for a static body).
    inv_mass: [Real; 2],
    /// World inverse inertias of A and B at the start of the step.
    inv_inertia: [Matrix3<Real>; 2],
    /// `K^-1` at the start of the step (zero if neither body can move).
    effective_mass: Matrix3<Real>,
    softness: PointSoftness,
    /// The accumulated impulse (N s, world), kept for warm starting.
    impulse: Vector,
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
}

/// `[r]x M [r]x^T` for a skew matrix `[r]x` (how an anchor's lever arm turns inverse inertia
/// into the point's inverse mass).
fn lever(r: &Vector, inv_inertia: &Matrix3<Real>) -> Matrix3<Real> {
    let s = r.cross_matrix();
    s * inv_inertia * s.transpose()
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
    /// The point part for `frame`, rigid or `spring`, at substep `h`, carrying last step's
    /// `impulse` (a world vector, N s).
    pub fn new(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        spring: Option<Spring>,
        h: Real,
        impulse: Vector,
    ) -> Self {
        let k = Matrix3::identity() * (a.inv_mass + b.inv_mass)
            + lever(&frame.anchor_a, &a.inv_inertia)
            + lever(&frame.anchor_b, &b.inv_inertia);
        let effective_mass = k.try_inverse().unwrap_or_else(Matrix3::zeros);
        let softness = match spring {
            None => PointSoftness::Rigid,
            Some(s @ Spring::Stiffness { .. }) => {
                let (axes, masses) = eigen_axes(&k);
                PointSoftness::PerAxis {
                    axes,
                    masses,
                    softness: masses.map(|m| SpringSoftness::new(&s, m, h)),
                }
            }
            // Independent of the mass: any mass gives the same coefficients.
            Some(s) => PointSoftness::Uniform(SpringSoftness::new(&s, 1.0, h)),
        };
        BallJoint {
            anchor_a: frame.anchor_a,
            anchor_b: frame.anchor_b,
            separation: frame.separation,
            inv_mass: [a.inv_mass, b.inv_mass],
            inv_inertia: [a.inv_inertia, b.inv_inertia],
            effective_mass,
            softness,
            impulse: if impulse.iter().all(|x| x.is_finite()) {
                impulse
            } else {
                Vector::zeros()
            },
            target_velocity: Vector::zeros(),
            max_impulse: Real::INFINITY,
            wanted_impulse: None,
            wish: Vector::zeros(),
        }
    }

    /// The accumulated impulse as a world vector (N s).
    pub fn impulse(&self) -> Vector {
        self.impulse
    }

    /// Forgets the accumulated impulse (warm starting off).
    pub fn reset_impulse(&mut self) {
        self.impulse = Vector::zeros();
    }

    /// Whether a spring fell back to implicit coefficients (too stiff to be exact).
    pub fn too_stiff(&self) -> bool {
        match &self.softness {
            PointSoftness::Rigid => false,
            PointSoftness::Uniform(s) => s.limited,
            PointSoftness::PerAxis { softness, .. } => softness.iter().any(|s| s.limited),
        }
    }

    /// The anchors now (from each centre of mass), turned by the bodies' rotation since the
    /// step began.
    #[inline]
    fn anchors(&self, a: &BodyState, b: &BodyState) -> (Vector, Vector) {
        (
            a.delta_rotation * self.anchor_a,
            b.delta_rotation * self.anchor_b,
        )
    }

    /// Applies `impulse` at the anchors `r_a`, `r_b`: `-impulse` to A, `impulse` to B.
    #[inline]
    fn apply(
        &self,
        a: &mut BodyState,
        b: &mut BodyState,
        (r_a, r_b): (&Vector, &Vector),
        impulse: &Vector,
    ) {
        a.linear_velocity -= impulse * self.inv_mass[0];
        a.angular_velocity -= self.inv_inertia[0] * r_a.cross(impulse);
        b.linear_velocity += impulse * self.inv_mass[1];
        b.angular_velocity += self.inv_inertia[1] * r_b.cross(impulse);
    }

    /// Applies the accumulated impulse (warm starting).
    pub fn warm_start(&self, a: &mut BodyState, b: &mut BodyState) {
        let (r_a, r_b) = self.anchors(a, b);
        self.apply(a, b, (&r_a, &r_b), &self.impulse);
    }

    /// One iteration, biased or relaxing; `elapsed` is the time since the step began at which
    /// the bodies' positions now stand (s), for a moving target.
    pub fn solve(
        &mut self,
        a: &mut BodyState,
        b: &mut BodyState,
        settings: &JointSettings,
        use_bias: bool,
        elapsed: Real,
    ) {
        let (r_a, r_b) = self.anchors(a, b);
        let separation = self.separation + (b.delta_position + (r_b - self.anchor_b))
            - (a.delta_position + (r_a - self.anchor_a))
            - self.target_velocity * elapsed;
        let velocity = (b.linear_velocity + b.angular_velocity.cross(&r_b))
            - (a.linear_velocity + a.angular_velocity.cross(&r_a))
            - self.target_velocity;
        let block = |soft: &Softness| {
            self.impulse
                - self.effective_mass * (velocity + separation * soft.bias_rate) * soft.mass_scale
                - self.impulse * soft.impulse_scale
        };
        let mut wish = match &self.softness {
            PointSoftness::Rigid => block(&settings.rigid(use_bias)),
            PointSoftness::Uniform(s) => block(&s.pass(use_bias)),
            PointSoftness::PerAxis {
                axes,
                masses,
                softness,
            } => {
                let mut wish = Vector::zeros();
                for k in 0..3 {
                    let soft = softness[k].pass(use_bias);
                    let (e, lambda) = (&axes[k], self.impulse.dot(&axes[k]));
                    let along = lambda
                        - masses[k]
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
            if use_bias || matches!(self.softness, PointSoftness::Rigid) {
                self.wish = wish;
            } else {
                wish = self.wish + (wish - self.impulse);
            }
            let norm = wish.norm();
            if norm > self.max_impulse {
                self.wanted_impulse = Some(self.wanted_impulse.map_or(norm, |w| w.max(norm)));
                wish *= self.max_impulse / norm;
            }
        }
        let applied = wish - self.impulse;
        self.impulse = wish;
        self.apply(a, b, (&r_a, &r_b), &applied);
    }

    /// [`BallJoint::solve`] on a joint's loaded bodies (hinges and welds, which still work on
    /// [`Motion`]s).
    pub(super) fn solve_motions(
        &mut self,
        a: &mut Motion,
        b: &mut Motion,
        settings: &JointSettings,
        use_bias: bool,
    ) {
        let mut sa = state_of(a);
        let mut sb = state_of(b);
        self.solve(&mut sa, &mut sb, settings, use_bias, 0.0);
        (a.v, a.w) = (sa.linear_velocity, sa.angular_velocity);
        (b.v, b.w) = (sb.linear_velocity, sb.angular_velocity);
    }

    /// [`BallJoint::warm_start`] on loaded bodies.
    pub(super) fn warm_start_motions(&self, a: &mut Motion, b: &mut Motion) {
        let mut sa = state_of(a);
        let mut sb = state_of(b);
        self.warm_start(&mut sa, &mut sb);
        (a.v, a.w) = (sa.linear_velocity, sa.angular_velocity);
        (b.v, b.w) = (sb.linear_velocity, sb.angular_velocity);
    }
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

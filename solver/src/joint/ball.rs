//! The ball (spherical) joint: B's anchor stays on A's anchor; rotation is free.
//!
//! Three rows, `C_k = e_k · (p_b - p_a)`, `J_k = [-e_k, -(r_a x e_k), e_k, r_b x e_k]`, rebuilt
//! each iteration on the anchors turned by the bodies' rotation. Rigid, or a spring on all three
//! axes (a zero-length spring, as the corners of `spring_net` are held).
//!
//! The axes e_k are not the world's: they are the eigenvectors of the point's mass matrix
//! `K = J M^-1 J^T` at the start of the step, along which the three rows do not disturb each
//! other. Along world axes a long lever arm couples them so strongly that Gauss-Seidel's few
//! passes leave the velocity constraint unmet: measured, a 2.5 m pendulum on world-axis rows
//! swung 2% slow (5 m: 4%); on the eigen-axes, within 0.1%. Still three scalar rows of the one
//! row type: only their directions are chosen with care. Impulses are kept as a world vector, so
//! that warm starting survives the axes turning from step to step.

use nalgebra::Matrix3;

use super::{spring_softness, JointFrame, JointSettings};
use crate::body::Motion;
use crate::row::Row;
use crate::softness::{Spring, SpringSoftness};
use crate::{Real, Vector};

/// A ball joint's rows.
#[derive(Clone, Debug)]
pub struct BallJoint {
    /// The three rows, along `axes`.
    pub rows: [Row; 3],
    /// The rows' directions for this step (orthonormal).
    axes: [Vector; 3],
    /// The spring, if soft; per-row softness follows each row's effective mass.
    softness: Option<[SpringSoftness; 3]>,
    /// Velocity of A's anchor to follow (m/s): an attachment's moving target.
    pub target_velocity: Vector,
    /// Largest total impulse per substep (N s): an attachment's force cap times h.
    pub max_impulse: Real,
    /// The largest impulse the rows asked for past `max_impulse` in the last substep's passes
    /// (N s), if the cap held them back: what the step reports as a limited spring.
    pub wanted_impulse: Option<Real>,
    /// What each row's biased pass asked for before the cap (N s): a capped spring's relax
    /// pass adds its damping to this wish, not to the capped impulse (see `solve`).
    wish: [Real; 3],
}

/// `[r]x M [r]x^T` for a skew matrix `[r]x` (how an anchor's lever arm turns inverse inertia
/// into the point's inverse mass).
fn lever(r: &Vector, inv_inertia: &Matrix3<Real>) -> Matrix3<Real> {
    let s = r.cross_matrix();
    s * inv_inertia * s.transpose()
}

/// Directions along which the point constraint's rows are uncoupled: the eigenvectors of its
/// mass matrix, or the world axes if it has none (two immovable bodies).
fn decoupled_axes(frame: &JointFrame, a: &Motion, b: &Motion) -> [Vector; 3] {
    let k = Matrix3::identity() * (a.inv_mass + b.inv_mass)
        + lever(&frame.anchor_a, &a.inv_inertia)
        + lever(&frame.anchor_b, &b.inv_inertia);
    let world = [Vector::x(), Vector::y(), Vector::z()];
    if k.norm() <= Real::MIN_POSITIVE || !k.iter().all(|x| x.is_finite()) {
        return world;
    }
    let eigen = k.symmetric_eigen();
    let (e0, e1) = (
        eigen.eigenvectors.column(0).into_owned(),
        eigen.eigenvectors.column(1).into_owned(),
    );
    match (e0.try_normalize(1.0e-6), e1.try_normalize(1.0e-6)) {
        (Some(x), Some(y)) => {
            // Re-orthonormalise (the solver's vectors are orthogonal up to rounding).
            let z = x.cross(&y).normalize();
            [x, z.cross(&x), z]
        }
        _ => world,
    }
}

impl BallJoint {
    /// Rows for `frame`, rigid or `spring`, at substep `h`, carrying last step's `impulse`
    /// (a world vector, N s).
    pub fn new(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        spring: Option<Spring>,
        h: Real,
        impulse: Vector,
    ) -> Self {
        let axes = decoupled_axes(frame, a, b);
        let rows = axes.map(|axis| {
            JointFrame::row(
                &axis,
                &frame.anchor_a,
                &frame.anchor_b,
                a,
                b,
                impulse.dot(&axis),
            )
        });
        let softness = spring.map(|s| rows.map(|row| spring_softness(&s, &row, h)));
        BallJoint {
            rows,
            axes,
            softness,
            target_velocity: Vector::zeros(),
            max_impulse: Real::INFINITY,
            wanted_impulse: None,
            wish: [0.0; 3],
        }
    }

    /// Whether a spring row fell back to implicit coefficients (too stiff to be exact).
    pub fn too_stiff(&self) -> bool {
        self.softness.iter().flatten().any(|s| s.limited)
    }

    /// The accumulated impulse as a world vector (N s).
    pub fn impulse(&self) -> Vector {
        self.rows
            .iter()
            .zip(&self.axes)
            .map(|(row, axis)| axis * row.impulse)
            .sum()
    }

    pub(super) fn solve(
        &mut self,
        a: &mut Motion,
        b: &mut Motion,
        separation: &Vector,
        (r_a, r_b): &(Vector, Vector),
        settings: &JointSettings,
        use_bias: bool,
    ) {
        let capped = self.max_impulse.is_finite();
        let mut wanted = [0.0; 3];
        for (k, row) in self.rows.iter_mut().enumerate() {
            *row = JointFrame::row(&self.axes[k], r_a, r_b, a, b, row.impulse);
            let c = separation.dot(&self.axes[k]);
            let soft = match &self.softness {
                Some(soft) => soft[k].pass(use_bias),
                None => settings.rigid(use_bias),
            };
            let target = self.target_velocity.dot(&self.axes[k]);
            let bias = soft.bias_rate * c;
            if capped {
                // A spring's relax pass only adds the rest of its damping to what the biased
                // pass asked for; added to the capped impulse instead, it would pull a
                // saturated spring below its cap (a 200 N drag reached 0.19 m/s instead of
                // 0.2 after 1 s of a 1,000 kg crate).
                let wish = row.wanted(a, b, target, bias, &soft);
                wanted[k] = if use_bias || self.softness.is_none() {
                    self.wish[k] = wish;
                    wish
                } else {
                    self.wish[k] + (wish - row.impulse)
                };
            } else {
                let (lower, upper) = (Real::NEG_INFINITY, Real::INFINITY);
                row.solve(a, b, target, bias, &soft, lower, upper);
            }
        }
        if capped {
            // The three rows are uncoupled (eigen-axes), so their wishes can be taken together
            // and scaled back to the cap before anything is applied: applying first and taking
            // back the excess cancelled a spring's huge wish against the body's velocity and
            // lost the small capped pull to rounding (1% of it at 8 substeps, measured).
            let norm = wanted.iter().map(|x| x * x).sum::<Real>().sqrt();
            let scale = if norm > self.max_impulse {
                self.wanted_impulse = Some(self.wanted_impulse.map_or(norm, |w| w.max(norm)));
                self.max_impulse / norm
            } else {
                1.0
            };
            for (row, wanted) in self.rows.iter_mut().zip(wanted) {
                let total = wanted * scale;
                row.apply(a, b, total - row.impulse);
                row.impulse = total;
            }
        }
    }
}

//! Contact constraints: a normal row and two friction rows per manifold point.
//!
//! In: per touching pair, the two bodies, the unit normal from A to B, the material (friction
//! and restitution, already mixed), and per point the anchors from each centre of mass, the
//! separation, and last step's impulses. Out: after the solve, each point's accumulated impulses,
//! for the next step's warm start.
//!
//! The normal row: `C = separation`, `J = [-n, -(r_a x n), n, r_b x n]`, impulse >= 0. A point
//! still apart (speculative, C > 0) lets the bodies close by at most C this substep (bias C / h),
//! so they meet the surface and stop instead of tunnelling or bouncing off early. A point that
//! overlaps gets the rigid row's Baumgarte push, `β/h (C + slop)`, capped at a maximum push-out
//! speed; the relax pass solves without it, so that speed does not linger as bounce.
//! Separation between substeps is updated from the bodies' motion since the step began (their
//! displacement and small rotation at the anchors), not recomputed by the narrow phase.
//!
//! Friction: two rows along tangents t1, t2 (t1 chosen from the normal deterministically, so warm
//! starting finds the same directions again), each within `±μ λ_n`.
//! Restitution: after the substeps, points that approached faster than a threshold are driven to
//! separate at `e` times their approach speed.
//! Soft (penalty) contacts: a material with a spring turns each overlapping point's normal row
//! into that spring (stiffness and damping, or frequency and damping ratio, per point), solved
//! implicitly like any soft row; still bounded to push only, and pushing nothing while apart.

use smallvec::SmallVec;

use crate::body::{Motion, SolverBody};
use crate::row::Row;
use crate::softness::{Softness, Spring};
use crate::{Real, Vector};

/// One contact point as the engine hands it over.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContactPointInput {
    /// The point on A, relative to A's centre of mass (world orientation).
    pub anchor_a: Vector,
    /// The point on B, relative to B's centre of mass.
    pub anchor_b: Vector,
    /// Signed distance along the normal (m), negative when overlapping.
    pub separation: Real,
    /// Last step's normal impulse (N s), for warm starting.
    pub normal_impulse: Real,
    /// Last step's friction impulses along the two tangents.
    pub tangent_impulse: [Real; 2],
}

/// A contact point's rows.
#[derive(Clone, Copy, Debug)]
pub struct ContactPoint {
    anchor_a: Vector,
    anchor_b: Vector,
    separation: Real,
    /// Normal relative velocity before the solve (m/s), for restitution.
    approach_speed: Real,
    /// The non-penetration row.
    pub normal: Row,
    /// The friction rows.
    pub tangent: [Row; 2],
    /// The largest normal impulse applied in any substep (N s).
    pub max_normal_impulse: Real,
    /// For a soft contact, the spring's coefficients on this point's normal row.
    spring: Option<Softness>,
}

/// What two colliders' materials make of their contact, already mixed by the engine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactMaterial {
    /// Friction coefficient.
    pub friction: Real,
    /// Restitution (rigid contacts only: a soft contact bounces by its spring).
    pub restitution: Real,
    /// A soft (penalty) contact: overlap is pushed back by this spring, per point, instead of
    /// the rigid row's Baumgarte push.
    pub spring: Option<Spring>,
}

/// The contact between two bodies: up to four points sharing a normal and a material.
#[derive(Clone, Debug)]
pub struct ContactConstraint {
    /// Body A's solver index, or [`crate::body::STATIC`].
    pub body_a: u32,
    /// Body B's solver index, or [`crate::body::STATIC`].
    pub body_b: u32,
    normal: Vector,
    friction: Real,
    restitution: Real,
    /// The points, in the order they were given.
    pub points: SmallVec<[ContactPoint; 4]>,
    /// The caller's index for this contact (to store impulses back).
    pub user_index: u32,
}

/// The two tangent directions for `normal`, chosen the same way every step.
pub fn tangents(normal: &Vector) -> [Vector; 2] {
    let axis = if normal.x.abs() < 0.57 {
        Vector::x()
    } else {
        Vector::y()
    };
    let t1 = normal.cross(&axis).normalize();
    [t1, normal.cross(&t1)]
}

/// The settings contact rows read during a substep.
#[derive(Clone, Copy, Debug)]
pub struct ContactSettings {
    /// Baumgarte factor for overlap (0..1).
    pub baumgarte: Real,
    /// Overlap tolerated without correction (m).
    pub slop: Real,
    /// Largest speed at which overlap is pushed out (m/s).
    pub max_push_out_speed: Real,
    /// Approach speed under which restitution is ignored (m/s).
    pub restitution_threshold: Real,
}

impl ContactConstraint {
    /// Builds the rows of one contact from the bodies' state at the start of the step.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        bodies: &[SolverBody],
        body_a: u32,
        body_b: u32,
        normal: Vector,
        material: &ContactMaterial,
        points: &[ContactPointInput],
        h: Real,
        user_index: u32,
    ) -> ContactConstraint {
        let (friction, restitution) = (material.friction, material.restitution);
        let a = Motion::load(bodies, body_a);
        let b = Motion::load(bodies, body_b);
        let tangents = tangents(&normal);
        let rows = points
            .iter()
            .map(|p| {
                let row = |dir: &Vector, impulse: Real| {
                    let mut r =
                        Row::new(*dir, -p.anchor_a.cross(dir), p.anchor_b.cross(dir), &a, &b);
                    r.impulse = impulse;
                    r
                };
                let normal_row = row(&normal, p.normal_impulse);
                ContactPoint {
                    anchor_a: p.anchor_a,
                    anchor_b: p.anchor_b,
                    separation: p.separation,
                    approach_speed: normal_row.velocity(&a, &b),
                    normal: normal_row,
                    tangent: [
                        row(&tangents[0], p.tangent_impulse[0]),
                        row(&tangents[1], p.tangent_impulse[1]),
                    ],
                    max_normal_impulse: 0.0,
                    spring: material
                        .spring
                        .map(|s| Softness::from_spring(&s, normal_row.effective_mass, h)),
                }
            })
            .collect();
        ContactConstraint {
            body_a,
            body_b,
            normal,
            friction,
            restitution,
            points: rows,
            user_index,
        }
    }

    /// Applies the accumulated impulses (last step's, then each substep's) before iterating.
    pub fn warm_start(&self, bodies: &mut [SolverBody]) {
        let mut a = Motion::load(bodies, self.body_a);
        let mut b = Motion::load(bodies, self.body_b);
        for p in &self.points {
            p.normal.apply(&mut a, &mut b, p.normal.impulse);
            p.tangent[0].apply(&mut a, &mut b, p.tangent[0].impulse);
            p.tangent[1].apply(&mut a, &mut b, p.tangent[1].impulse);
        }
        Motion::store_pair(bodies, (&a, self.body_a), (&b, self.body_b));
    }

    /// One iteration over the points: normal rows (with the Baumgarte push if `use_bias`), then
    /// friction. `h` is the substep (s).
    pub fn solve(
        &mut self,
        bodies: &mut [SolverBody],
        settings: &ContactSettings,
        h: Real,
        use_bias: bool,
    ) {
        let mut a = Motion::load(bodies, self.body_a);
        let mut b = Motion::load(bodies, self.body_b);
        let push = Softness::rigid(settings.baumgarte, h);
        for p in &mut self.points {
            // Separation now: at the step's start plus the relative motion of the anchors.
            let moved = b.anchor_motion(&p.anchor_b) - a.anchor_motion(&p.anchor_a);
            let separation = p.separation + moved.dot(&self.normal);
            if let Some(soft) = &p.spring {
                // A soft contact: the overlap is a spring's stretch, in every pass; apart, it
                // pushes nothing (a rigid speculative stop would catch the body at the surface
                // and leave the spring nothing to do).
                if separation <= 0.0 {
                    p.normal.solve(
                        &mut a,
                        &mut b,
                        0.0,
                        soft.bias_rate * separation,
                        soft,
                        0.0,
                        Real::INFINITY,
                    );
                } else if p.normal.impulse != 0.0 {
                    let release = -p.normal.impulse;
                    p.normal.impulse = 0.0;
                    p.normal.apply(&mut a, &mut b, release);
                }
                p.max_normal_impulse = p.max_normal_impulse.max(p.normal.impulse);
                continue;
            }
            let bias = if separation > 0.0 {
                separation / h
            } else if use_bias {
                (push.bias_rate * (separation + settings.slop).min(0.0))
                    .max(-settings.max_push_out_speed)
            } else {
                0.0
            };
            p.normal.solve(
                &mut a,
                &mut b,
                0.0,
                bias,
                &Softness::RIGID,
                0.0,
                Real::INFINITY,
            );
            p.max_normal_impulse = p.max_normal_impulse.max(p.normal.impulse);
        }
        // Friction after the normal rows, within the bounds of the impulses they just found
        // (measured: solving friction first let the 465-cube wall drift 60% further).
        // The two rows are one friction force: held to the circle of radius mu N, not each to
        // mu N (a square, which lets a diagonal slide feel up to 1.41 times the friction).
        for p in &mut self.points {
            let bound = self.friction * p.normal.impulse;
            // Both rows' wishes from the same velocity, so that the pair points against the
            // slip (one after the other, the first would turn the slip the second sees).
            let wish = |row: &Row| row.wanted(&a, &b, 0.0, 0.0, &Softness::RIGID);
            let wanted = [wish(&p.tangent[0]), wish(&p.tangent[1])];
            // Not hypot: libm's careful hypot cost a tenth of the whole step.
            let total = (wanted[0] * wanted[0] + wanted[1] * wanted[1]).sqrt();
            let scale = if total > bound { bound / total } else { 1.0 };
            for (row, wanted) in p.tangent.iter_mut().zip(wanted) {
                let impulse = wanted * scale;
                row.apply(&mut a, &mut b, impulse - row.impulse);
                row.impulse = impulse;
            }
        }
        Motion::store_pair(bodies, (&a, self.body_a), (&b, self.body_b));
    }

    /// Restitution, once after the substeps: points that approached faster than the threshold
    /// and were pushed are driven to separate at `e` times their approach speed.
    pub fn restitute(&mut self, bodies: &mut [SolverBody], threshold: Real) {
        if self.restitution == 0.0 {
            return;
        }
        let mut a = Motion::load(bodies, self.body_a);
        let mut b = Motion::load(bodies, self.body_b);
        for p in &mut self.points {
            if p.spring.is_some() || p.approach_speed > -threshold || p.max_normal_impulse == 0.0 {
                continue;
            }
            let target = -self.restitution * p.approach_speed;
            p.normal.solve(
                &mut a,
                &mut b,
                target,
                0.0,
                &Softness::RIGID,
                0.0,
                Real::INFINITY,
            );
        }
        Motion::store_pair(bodies, (&a, self.body_a), (&b, self.body_b));
    }
}

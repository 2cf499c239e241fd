//! Contact constraints, prepared once per step: a normal row and two friction rows per
//! manifold point, solved on the bodies' hot state.
//!
//! In: per touching pair, the two bodies, the unit normal from A to B, the material (friction
//! and restitution, already mixed), and per point the anchors from each centre of mass, the
//! separation, and last step's impulses. Out: after the solve, each point's accumulated impulses,
//! for the next step's warm start.
//!
//! Preparation (once per step, [`ContactConstraint::new`]) copies the bodies' inverse masses,
//! computes each row's angular Jacobian `r x d`, its image `I^-1 (r x d)` under the world
//! inverse inertia and its effective mass, and a base separation from which every pass finds
//! the live one: `s = base + n . (dp_b - dp_a) + (dq_b^-1 n) . r_b - (dq_a^-1 n) . r_a`, the
//! bodies' motion since the step began applied to the anchors, with one rotation of the normal
//! per body instead of one rotation per anchor. Nothing is rebuilt between substeps (Box2D v3).
//!
//! The normal row, `C = s`, impulse >= 0, solved the soft-step way (Catto, "Solver2D", 2024):
//! - a point still apart (speculative, `s > 0`) lets the bodies close by at most `s` this
//!   substep (bias `s / h`), rigidly, so they meet the surface and stop instead of tunnelling;
//! - an overlapping point, in the biased pass, is a stiff spring (frequency and damping ratio,
//!   stiffer against static bodies) pushing out no faster than a set speed; there is no slop:
//!   the spring's own give is the tolerance, `F / (m_eff (2 pi f)^2)` at rest;
//! - in the relax pass, after positions are integrated, the row is rigid with no bias, which
//!   removes the velocity the push added so that it does not show as bounce.
//!
//! Friction: two rows along tangents t1, t2 (t1 chosen from the normal deterministically, so warm
//! starting finds the same directions again), held together to the circle of radius `mu λ_n`.
//! Restitution: after the substeps, points that approached faster than a threshold and were
//! pushed are driven to separate at `e` times their approach speed.
//! Soft (penalty) contacts: a material with a spring turns each overlapping point's normal row
//! into that spring (stiffness and damping, or frequency and damping ratio, per point), solved
//! implicitly like any soft row in every pass; still bounded to push only, and pushing nothing
//! while apart.

use smallvec::SmallVec;

use crate::body::{Bodies, BodyState};
use crate::softness::{Softness, Spring};
use crate::{Matrix, Real, Vector};

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

/// One row of a contact point: its direction (the contact's normal or a tangent) is the
/// constraint's; the point keeps the angular parts and the effective mass.
#[derive(Clone, Copy, Debug, Default)]
pub struct PointRow {
    /// `r_a x d`: A's angular Jacobian is its negative.
    pub(crate) angular_a: Vector,
    /// `r_b x d`: B's angular Jacobian.
    pub(crate) angular_b: Vector,
    /// `I_a^-1 (r_a x d)`, so that applying an impulse costs no matrix product.
    pub(crate) inv_inertia_a: Vector,
    /// `I_b^-1 (r_b x d)`.
    pub(crate) inv_inertia_b: Vector,
    /// `1 / (J M^-1 J^T)` (kg).
    pub(crate) mass: Real,
    /// Accumulated impulse (N s), kept for warm starting.
    pub impulse: Real,
}

impl PointRow {
    fn new(dir: &Vector, r_a: &Vector, r_b: &Vector, bodies: &Masses, impulse: Real) -> PointRow {
        let angular_a = r_a.cross(dir);
        let angular_b = r_b.cross(dir);
        let inv_inertia_a = bodies.inv_inertia_a * angular_a;
        let inv_inertia_b = bodies.inv_inertia_b * angular_b;
        let k = bodies.inv_mass_a
            + bodies.inv_mass_b
            + angular_a.dot(&inv_inertia_a)
            + angular_b.dot(&inv_inertia_b);
        PointRow {
            angular_a,
            angular_b,
            inv_inertia_a,
            inv_inertia_b,
            mass: if k > 0.0 { 1.0 / k } else { 0.0 },
            impulse,
        }
    }

    /// `J v` along `dir`: the relative velocity of the anchors.
    #[inline]
    fn velocity(&self, dir: &Vector, a: &BodyState, b: &BodyState) -> Real {
        dir.dot(&(b.linear_velocity - a.linear_velocity)) + self.angular_b.dot(&b.angular_velocity)
            - self.angular_a.dot(&a.angular_velocity)
    }

    /// Applies impulse `lambda` along `dir` to both bodies.
    #[inline]
    fn apply(
        &self,
        dir: &Vector,
        m: (Real, Real),
        a: &mut BodyState,
        b: &mut BodyState,
        lambda: Real,
    ) {
        a.linear_velocity -= dir * (lambda * m.0);
        a.angular_velocity -= self.inv_inertia_a * lambda;
        b.linear_velocity += dir * (lambda * m.1);
        b.angular_velocity += self.inv_inertia_b * lambda;
    }
}

/// The two bodies' masses, as preparation reads them.
struct Masses {
    inv_mass_a: Real,
    inv_mass_b: Real,
    inv_inertia_a: Matrix,
    inv_inertia_b: Matrix,
}

/// A contact point's rows.
#[derive(Clone, Copy, Debug)]
pub struct ContactPoint {
    /// The point on A from A's centre of mass at the start of the step.
    pub(crate) anchor_a: Vector,
    /// The point on B from B's centre of mass.
    pub(crate) anchor_b: Vector,
    /// The separation at the start of the step minus `n . (r_b - r_a)` (module doc).
    pub(crate) base_separation: Real,
    /// Normal relative velocity before the solve (m/s), for restitution.
    pub(crate) approach_speed: Real,
    /// The non-penetration row.
    pub normal: PointRow,
    /// The friction rows.
    pub tangent: [PointRow; 2],
    /// The largest normal impulse applied in any substep (N s).
    pub max_normal_impulse: Real,
    /// For a soft contact, the spring's coefficients on this point's normal row.
    pub(crate) spring: Option<Softness>,
}

/// What two colliders' materials make of their contact, already mixed by the engine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactMaterial {
    /// Friction coefficient.
    pub friction: Real,
    /// Restitution (rigid contacts only: a soft contact bounces by its spring).
    pub restitution: Real,
    /// A soft (penalty) contact: overlap is pushed back by this spring, per point, instead of
    /// the solver's contact softness.
    pub spring: Option<Spring>,
}

/// The contact between two bodies: up to four points sharing a normal and a material.
#[derive(Clone, Debug)]
pub struct ContactConstraint {
    /// Body A's solver index, or [`crate::body::STATIC`].
    pub body_a: u32,
    /// Body B's solver index, or [`crate::body::STATIC`].
    pub body_b: u32,
    pub(crate) inv_mass_a: Real,
    pub(crate) inv_mass_b: Real,
    /// The bodies' world inverse inertia, for the wide kernel (which keeps no per-row copy).
    pub(crate) inv_inertia_a: Matrix,
    pub(crate) inv_inertia_b: Matrix,
    pub(crate) normal: Vector,
    pub(crate) tangents: [Vector; 2],
    pub(crate) friction: Real,
    pub(crate) restitution: Real,
    /// The push-out spring of overlapping points in the biased pass.
    pub(crate) softness: Softness,
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

/// What contact rows read during a step, made once per step from the solver's settings.
#[derive(Clone, Copy, Debug)]
pub struct ContactSettings {
    /// The substep (s).
    pub h: Real,
    /// Overlap's push-out spring between two moving bodies.
    pub softness: Softness,
    /// The same against a static or kinematic body: stiffer, since only one side gives.
    pub static_softness: Softness,
    /// Largest speed at which overlap is pushed out (m/s).
    pub max_push_out_speed: Real,
    /// Approach speed under which restitution is ignored (m/s).
    pub restitution_threshold: Real,
    /// Whether friction is solved in the biased pass too, or only in the relax pass.
    pub friction_in_biased_pass: bool,
}

impl ContactConstraint {
    /// Prepares the rows of one contact from the bodies' state at the start of the step.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        bodies: &Bodies,
        body_a: u32,
        body_b: u32,
        normal: Vector,
        material: &ContactMaterial,
        points: &[ContactPointInput],
        settings: &ContactSettings,
        user_index: u32,
    ) -> ContactConstraint {
        let ((inv_mass_a, inv_inertia_a), (inv_mass_b, inv_inertia_b)) =
            (bodies.mass(body_a), bodies.mass(body_b));
        let masses = Masses {
            inv_mass_a,
            inv_mass_b,
            inv_inertia_a,
            inv_inertia_b,
        };
        let (a, b) = (bodies.state(body_a), bodies.state(body_b));
        let tangents = tangents(&normal);
        let prepared = points
            .iter()
            .map(|p| {
                let (ra, rb) = (&p.anchor_a, &p.anchor_b);
                let normal_row = PointRow::new(&normal, ra, rb, &masses, p.normal_impulse);
                ContactPoint {
                    anchor_a: *ra,
                    anchor_b: *rb,
                    base_separation: p.separation - normal.dot(&(rb - ra)),
                    approach_speed: normal_row.velocity(&normal, a, b),
                    normal: normal_row,
                    tangent: [
                        PointRow::new(&tangents[0], ra, rb, &masses, p.tangent_impulse[0]),
                        PointRow::new(&tangents[1], ra, rb, &masses, p.tangent_impulse[1]),
                    ],
                    max_normal_impulse: 0.0,
                    spring: material
                        .spring
                        .map(|s| Softness::from_spring(&s, normal_row.mass, settings.h)),
                }
            })
            .collect();
        let against_static = inv_mass_a == 0.0 || inv_mass_b == 0.0;
        ContactConstraint {
            body_a,
            body_b,
            inv_mass_a,
            inv_mass_b,
            inv_inertia_a,
            inv_inertia_b,
            normal,
            tangents,
            friction: material.friction,
            restitution: material.restitution,
            softness: if against_static {
                settings.static_softness
            } else {
                settings.softness
            },
            points: prepared,
            user_index,
        }
    }

    /// Whether the wide kernel ([`crate::bundle`]) can solve this contact: up to four points,
    /// none with a material spring.
    pub fn fits_wide(&self) -> bool {
        self.points.len() <= crate::graph::WIDE_POINTS
            && self.points.iter().all(|p| p.spring.is_none())
    }

    /// Forgets the accumulated impulses (no warm start).
    pub fn reset_impulses(&mut self) {
        for p in &mut self.points {
            p.normal.impulse = 0.0;
            p.tangent[0].impulse = 0.0;
            p.tangent[1].impulse = 0.0;
            p.max_normal_impulse = 0.0;
        }
    }

    /// Applies the accumulated impulses (last step's, then each substep's) before iterating.
    pub fn warm_start(&self, bodies: &mut Bodies) {
        let mut a = *bodies.state(self.body_a);
        let mut b = *bodies.state(self.body_b);
        let (n, t) = (&self.normal, &self.tangents);
        for p in &self.points {
            let (ln, l1, l2) = (p.normal.impulse, p.tangent[0].impulse, p.tangent[1].impulse);
            let impulse = n * ln + t[0] * l1 + t[1] * l2;
            a.linear_velocity -= impulse * self.inv_mass_a;
            a.angular_velocity -= p.normal.inv_inertia_a * ln
                + p.tangent[0].inv_inertia_a * l1
                + p.tangent[1].inv_inertia_a * l2;
            b.linear_velocity += impulse * self.inv_mass_b;
            b.angular_velocity += p.normal.inv_inertia_b * ln
                + p.tangent[0].inv_inertia_b * l1
                + p.tangent[1].inv_inertia_b * l2;
        }
        bodies.store_pair((self.body_a, &a), (self.body_b, &b));
    }

    /// One iteration over the points: normal rows (pushing out overlap if `use_bias`), then
    /// friction if `friction` is set.
    pub fn solve(
        &mut self,
        bodies: &mut Bodies,
        settings: &ContactSettings,
        use_bias: bool,
        friction: bool,
    ) {
        let mut a = *bodies.state(self.body_a);
        let mut b = *bodies.state(self.body_b);
        let m = (self.inv_mass_a, self.inv_mass_b);
        let n = self.normal;
        // The normal as each body's anchors at the start of the step see it (module doc).
        let n_a = a.delta_rotation.inverse_transform_vector(&n);
        let n_b = b.delta_rotation.inverse_transform_vector(&n);
        let moved = n.dot(&(b.delta_position - a.delta_position));
        let h = settings.h;
        for p in &mut self.points {
            let separation =
                p.base_separation + moved + n_b.dot(&p.anchor_b) - n_a.dot(&p.anchor_a);
            if let Some(soft) = &p.spring {
                // A soft contact: the overlap is a spring's stretch, in every pass; apart, it
                // pushes nothing (a rigid speculative stop would catch the body at the surface
                // and leave the spring nothing to do).
                let wanted = if separation <= 0.0 {
                    let vn = p.normal.velocity(&n, &a, &b);
                    p.normal.impulse
                        - p.normal.mass * soft.mass_scale * (vn + soft.bias_rate * separation)
                        - soft.impulse_scale * p.normal.impulse
                } else {
                    0.0
                };
                let total = wanted.max(0.0);
                let applied = total - p.normal.impulse;
                p.normal.impulse = total;
                p.normal.apply(&n, m, &mut a, &mut b, applied);
                p.max_normal_impulse = p.max_normal_impulse.max(total);
                continue;
            }
            let (bias, mass_scale, impulse_scale) = if separation > 0.0 {
                (separation / h, 1.0, 0.0)
            } else if use_bias {
                let s = &self.softness;
                (
                    (s.bias_rate * separation).max(-settings.max_push_out_speed),
                    s.mass_scale,
                    s.impulse_scale,
                )
            } else {
                (0.0, 1.0, 0.0)
            };
            let vn = p.normal.velocity(&n, &a, &b);
            let wanted = p.normal.impulse
                - p.normal.mass * mass_scale * (vn + bias)
                - impulse_scale * p.normal.impulse;
            let total = wanted.max(0.0);
            let applied = total - p.normal.impulse;
            p.normal.impulse = total;
            p.normal.apply(&n, m, &mut a, &mut b, applied);
            p.max_normal_impulse = p.max_normal_impulse.max(total);
        }
        if friction {
            // After the normal rows, within the bounds of the impulses they just found
            // (measured: solving friction first let the 465-cube wall drift 60% further).
            // The two rows are one friction force: held to the circle of radius mu N, not
            // each to mu N (a square, which lets a diagonal slide feel up to 1.41 times the
            // friction).
            let t = &self.tangents;
            for p in &mut self.points {
                let bound = self.friction * p.normal.impulse;
                // Both rows' wishes from the same velocity, so that the pair points against
                // the slip (one after the other, the first would turn the slip the second sees).
                let [r1, r2] = &p.tangent;
                let w1 = r1.impulse - r1.mass * r1.velocity(&t[0], &a, &b);
                let w2 = r2.impulse - r2.mass * r2.velocity(&t[1], &a, &b);
                // Not hypot: libm's careful hypot cost a tenth of the whole step.
                let total = (w1 * w1 + w2 * w2).sqrt();
                let scale = if total > bound { bound / total } else { 1.0 };
                let (n1, n2) = (w1 * scale, w2 * scale);
                let (d1, d2) = (n1 - r1.impulse, n2 - r2.impulse);
                p.tangent[0].impulse = n1;
                p.tangent[1].impulse = n2;
                let impulse = t[0] * d1 + t[1] * d2;
                a.linear_velocity -= impulse * m.0;
                a.angular_velocity -=
                    p.tangent[0].inv_inertia_a * d1 + p.tangent[1].inv_inertia_a * d2;
                b.linear_velocity += impulse * m.1;
                b.angular_velocity +=
                    p.tangent[0].inv_inertia_b * d1 + p.tangent[1].inv_inertia_b * d2;
            }
        }
        bodies.store_pair((self.body_a, &a), (self.body_b, &b));
    }

    /// Restitution, once after the substeps: points that approached faster than the threshold
    /// and were pushed are driven to separate at `e` times their approach speed.
    pub fn restitute(&mut self, bodies: &mut Bodies, threshold: Real) {
        if self.restitution == 0.0 {
            return;
        }
        let mut a = *bodies.state(self.body_a);
        let mut b = *bodies.state(self.body_b);
        let m = (self.inv_mass_a, self.inv_mass_b);
        let n = self.normal;
        for p in &mut self.points {
            if p.spring.is_some() || p.approach_speed > -threshold || p.max_normal_impulse == 0.0 {
                continue;
            }
            let target = -self.restitution * p.approach_speed;
            let vn = p.normal.velocity(&n, &a, &b);
            let total = (p.normal.impulse - p.normal.mass * (vn - target)).max(0.0);
            let applied = total - p.normal.impulse;
            p.normal.impulse = total;
            p.normal.apply(&n, m, &mut a, &mut b, applied);
        }
        bodies.store_pair((self.body_a, &a), (self.body_b, &b));
    }
}

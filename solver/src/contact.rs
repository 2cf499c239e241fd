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
//! inverse inertia and its effective mass. Every pass finds the live separation from the one at
//! the start of the step and the bodies' motion since: `s = s_0 + n . (dp_b - dp_a) +
//! theta_b . (r_b x n) - theta_a . (r_a x n)`, first order in the turns `theta` (twice the
//! delta rotations' vector parts), so that the normal row's angular Jacobians serve and the
//! anchors need not be kept: at 5 rad/s a 0.5 m anchor errs by 2 mm in a 60 Hz step, which
//! only a speculative point could notice, inside its margin. Nothing is rebuilt between
//! substeps (Box2D v3).
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
//! Friction, once per manifold (Box3D's central friction): a 2x2 block along tangents t1, t2 at
//! the points' centre, held to the circle of radius `mu` times the sum of the normal impulses,
//! and a twist row about the normal bounded by `mu` times their moments about the centre. Its
//! impulse is carried from step to step in world space, so the tangents may turn with the
//! normal. Round shapes also meet rolling resistance: their relative spin is resisted with a
//! torque of at most a set arm times the normal force (Box3D's form).
//! Restitution: within each substep (`crate::impact`), points closing faster than a threshold
//! are given `e` times their approach speed to separate at.
//! Soft (penalty) contacts: a material with a spring turns each overlapping point's normal row
//! into that spring (stiffness and damping, or frequency and damping ratio, per point), solved
//! implicitly like any soft row in every pass; still bounded to push only, and pushing nothing
//! while apart.

use smallvec::SmallVec;

use crate::body::{Bodies, BodyState};
use crate::softness::{Softness, Spring, SpringSoftness};
use crate::step::ContactSettings;
use crate::{Matrix, Real, Vector};

/// Most points per contact in the wide kernel.
pub const WIDE_POINTS: usize = 4;

/// One contact point as the engine hands it over, and as the solver hands it back. Laid out
/// in order (`repr(C)`): the wide preparation reads its first eight floats (anchors,
/// separation, impulse) as one vector.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct ContactPointInput {
    /// The point on A, relative to A's centre of mass (world orientation).
    pub anchor_a: Vector,
    /// The point on B, relative to B's centre of mass.
    pub anchor_b: Vector,
    /// Signed distance along the normal (m), negative when overlapping.
    pub separation: Real,
    /// The accumulated normal impulse (N s): last step's on the way in (for warm starting),
    /// this step's on the way out.
    pub normal_impulse: Real,
    /// Out: the largest normal impulse applied in any substep of the solve (N s).
    pub max_normal_impulse: Real,
}

/// One contact manifold as the engine hands it over, and as the solver hands it back with its
/// impulses: the solver's contact list is a list of these, filled by the engine each step.
/// The solver prepares its own constraints from them (in lanes for the wide kernel, as
/// [`ContactConstraint`]s for the others), so that nothing larger is copied per contact.
///
/// Laid out in order (`repr(C)`): the wide preparation reads its first eight words (bodies,
/// normal, friction, restitution, rolling resistance) and the eight from its friction impulse
/// on (impulses and user index) as vectors.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct Contact {
    /// Body A's solver index, or [`crate::body::STATIC`].
    pub body_a: u32,
    /// Body B's solver index, or [`crate::body::STATIC`].
    pub body_b: u32,
    /// Unit normal from A to B.
    pub normal: Vector,
    /// The mixed material.
    pub material: ContactMaterial,
    /// The points (in and out).
    pub points: SmallVec<[ContactPointInput; 4]>,
    /// The friction impulse (world, N s): last step's in, this step's out.
    pub friction_impulse: Vector,
    /// The twist impulse about the normal (N m s), likewise.
    pub twist_impulse: Real,
    /// The rolling resistance impulse (world, N m s), likewise.
    pub rolling_impulse: Vector,
    /// The caller's index for this contact.
    pub user_index: u32,
}

impl Contact {
    /// Whether the wide kernel ([`crate::bundle`]) can solve this contact: up to four points,
    /// and a rigid material (soft materials are solved one by one).
    pub fn fits_wide(&self) -> bool {
        self.points.len() <= WIDE_POINTS && self.material.spring.is_none()
    }

    /// Forgets the accumulated impulses (no warm start; or a solve to be thrown away).
    pub fn reset_impulses(&mut self) {
        for p in &mut self.points {
            p.normal_impulse = 0.0;
            p.max_normal_impulse = 0.0;
        }
        self.friction_impulse = Vector::zeros();
        self.twist_impulse = 0.0;
        self.rolling_impulse = Vector::zeros();
    }
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
    /// The separation at the start of the step (module doc).
    pub(crate) base_separation: Real,
    /// The non-penetration row.
    pub normal: PointRow,
    /// Distance from the friction centre (m): twist friction is bounded by `mu` times the
    /// normal impulses times their lever arms.
    pub(crate) lever_arm: Real,
    /// The largest normal impulse applied in any substep (N s).
    pub max_normal_impulse: Real,
    /// For a soft contact, the spring's coefficients on this point's normal row.
    pub(crate) spring: Option<SpringSoftness>,
}

/// What two colliders' materials make of their contact, already mixed by the engine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct ContactMaterial {
    /// Friction coefficient.
    pub friction: Real,
    /// Restitution (rigid contacts only: a soft contact bounces by its spring).
    pub restitution: Real,
    /// Rolling resistance as a torque arm (m): the largest rolling torque is this times the
    /// normal force (the engine multiplies the coefficient by the rounder shape's radius).
    pub rolling_resistance: Real,
    /// A soft (penalty) contact: overlap is pushed back by this spring, per point, instead of
    /// the solver's contact softness.
    pub spring: Option<Spring>,
}

/// What a contact's rows share, prepared once per step: the bodies and their masses, the
/// normal and the friction frame, the material and the softness, friction's and twist's
/// effective masses and impulses. The scalar constraint holds one; the wide kernel copies one
/// per lane ([`crate::bundle::Bundle::prepare`]).
#[derive(Clone, Debug)]
pub struct ContactFrame {
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
    /// The push-out spring of overlapping points in the biased pass.
    pub(crate) softness: Softness,
    /// Friction acts at the points' centre, from each centre of mass (Box3D's central
    /// friction: one 2x2 block for the whole manifold instead of two rows per point, which
    /// solved one point after another pushed a symmetric stack sideways).
    pub(crate) center_a: Vector,
    pub(crate) center_b: Vector,
    /// The inverse of the tangent block's 2x2 mass matrix: (11, 12, 22).
    pub(crate) tangent_mass: [Real; 3],
    /// Accumulated friction impulse along the two tangents (N s).
    pub friction_impulse: [Real; 2],
    /// `1 / (n . (I_a^-1 + I_b^-1) n)`, twist's effective mass.
    pub(crate) twist_mass: Real,
    /// Accumulated twist impulse about the normal (N m s).
    pub twist_impulse: Real,
    /// Rolling resistance as a torque arm (m); 0 for none.
    pub(crate) rolling_resistance: Real,
    /// `(I_a^-1 + I_b^-1)^-1`, the rolling row's mass (zero without rolling resistance).
    pub(crate) rolling_mass: Matrix,
    /// Accumulated rolling resistance impulse (N m s, world).
    pub rolling_impulse: Vector,
}

/// The contact between two bodies: up to four points sharing a normal and a material.
#[derive(Clone, Debug)]
pub struct ContactConstraint {
    /// What the rows share.
    pub frame: ContactFrame,
    /// The points, in the order they were given.
    pub points: SmallVec<[ContactPoint; 4]>,
    /// This contact's index in the solver's contact list (to hand impulses back).
    pub source: u32,
}

/// How far apart (m) a speculative point's weight in the friction centre falls to nothing: the
/// centre is where the touching points are, and moves smoothly as points come and go.
pub(crate) const FRICTION_CENTRE_REACH: Real = 0.05;

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

/// The factors on body A's and body B's inverse mass and inertia in a contact: 1, unless the
/// contact holds up (its normal within 45 degrees of up) a body more than
/// [`ContactSettings::support_ratio`] times heavier than the one below, which then acts in this
/// contact as if that ratio were all (`crate::settings::SolverSettings::support_mass_ratio` says why).
#[inline]
pub(crate) fn support_scales(
    inv_mass_a: Real,
    inv_mass_b: Real,
    normal: &Vector,
    settings: &ContactSettings,
) -> (Real, Real) {
    let ratio = settings.support_ratio;
    // The masses first: most contacts are between bodies within the ratio.
    let a_lighter = inv_mass_b > 0.0 && inv_mass_a > ratio * inv_mass_b;
    let b_lighter = inv_mass_a > 0.0 && inv_mass_b > ratio * inv_mass_a;
    if !(a_lighter || b_lighter) {
        return (1.0, 1.0);
    }
    let rise = normal.dot(&settings.up);
    if a_lighter && rise > UPRIGHT {
        (ratio * inv_mass_b / inv_mass_a, 1.0)
    } else if b_lighter && rise < -UPRIGHT {
        (1.0, ratio * inv_mass_a / inv_mass_b)
    } else {
        (1.0, 1.0)
    }
}

/// cos 45 degrees: a contact whose normal is nearer the vertical than this holds one body up.
const UPRIGHT: Real = std::f32::consts::FRAC_1_SQRT_2;

/// The inverse masses and world inverse inertias the rows of a contact between `body_a` and
/// `body_b` along `normal` use: the bodies', scaled by [`support_scales`]. Every preparation
/// (scalar, lanes, transposed lanes) takes them from here, so all give the same bits.
#[inline]
pub(crate) fn pair_masses(
    bodies: &Bodies,
    (body_a, body_b): (u32, u32),
    normal: &Vector,
    settings: &ContactSettings,
) -> ((Real, Matrix), (Real, Matrix)) {
    let ((inv_mass_a, inertia_a), (inv_mass_b, inertia_b)) =
        (bodies.mass(body_a), bodies.mass(body_b));
    let (sa, sb) = support_scales(inv_mass_a, inv_mass_b, normal, settings);
    if (sa, sb) == (1.0, 1.0) {
        return ((inv_mass_a, inertia_a), (inv_mass_b, inertia_b));
    }
    (
        (inv_mass_a * sa, inertia_a * sa),
        (inv_mass_b * sb, inertia_b * sb),
    )
}

impl ContactFrame {
    /// Prepares what the rows of contact `input` share, from the bodies' state at the start of
    /// the step.
    #[inline]
    pub fn new(bodies: &Bodies, input: &Contact, settings: &ContactSettings) -> ContactFrame {
        let (body_a, body_b, normal) = (input.body_a, input.body_b, input.normal);
        let ((inv_mass_a, inv_inertia_a), (inv_mass_b, inv_inertia_b)) =
            pair_masses(bodies, (body_a, body_b), &normal, settings);
        let tangents = tangents(&normal);
        // The friction centre: points weighted so that far speculative ones hardly count.
        let (mut center_a, mut center_b, mut total) = (Vector::zeros(), Vector::zeros(), 0.0);
        for p in &input.points {
            let weight = (1.0 - p.separation / FRICTION_CENTRE_REACH).clamp(0.01, 1.0);
            center_a += p.anchor_a * weight;
            center_b += p.anchor_b * weight;
            total += weight;
        }
        if total > 0.0 {
            center_a /= total;
            center_b /= total;
        }
        let against_static = inv_mass_a == 0.0 || inv_mass_b == 0.0;
        // The tangent block: K_ij = (m_a + m_b) t_i . t_j + (r_a x t_i) . I_a^-1 (r_a x t_j) + B's.
        let rt = |r: &Vector| [r.cross(&tangents[0]), r.cross(&tangents[1])];
        let (rta, rtb) = (rt(&center_a), rt(&center_b));
        let k = |i: usize, j: usize| {
            let linear = if i == j { inv_mass_a + inv_mass_b } else { 0.0 };
            linear + rta[i].dot(&(inv_inertia_a * rta[j])) + rtb[i].dot(&(inv_inertia_b * rtb[j]))
        };
        let (k11, k12, k22) = (k(0, 0), k(0, 1), k(1, 1));
        let det = k11 * k22 - k12 * k12;
        let tangent_mass = if det > 0.0 {
            [k22 / det, -k12 / det, k11 / det]
        } else {
            [0.0; 3]
        };
        let twist = normal.dot(&((inv_inertia_a + inv_inertia_b) * normal));
        let rolling_resistance = input.material.rolling_resistance;
        let rolling_mass = if rolling_resistance > 0.0 {
            (inv_inertia_a + inv_inertia_b)
                .try_inverse()
                .unwrap_or_else(Matrix::zeros)
        } else {
            Matrix::zeros()
        };
        ContactFrame {
            body_a,
            body_b,
            inv_mass_a,
            inv_mass_b,
            inv_inertia_a,
            inv_inertia_b,
            normal,
            tangents,
            friction: input.material.friction,
            softness: if against_static {
                settings.static_softness
            } else {
                settings.softness
            },
            center_a,
            center_b,
            tangent_mass,
            friction_impulse: [
                input.friction_impulse.dot(&tangents[0]),
                input.friction_impulse.dot(&tangents[1]),
            ],
            twist_mass: if twist > 0.0 { 1.0 / twist } else { 0.0 },
            twist_impulse: input.twist_impulse,
            rolling_resistance,
            rolling_mass,
            rolling_impulse: if rolling_resistance > 0.0 {
                input.rolling_impulse
            } else {
                Vector::zeros()
            },
        }
    }

    /// Prepares point `p`'s normal row, with `spring` for a soft material's points.
    #[inline]
    pub fn point(&self, p: &ContactPointInput, spring: Option<(&Spring, Real)>) -> ContactPoint {
        let masses = Masses {
            inv_mass_a: self.inv_mass_a,
            inv_mass_b: self.inv_mass_b,
            inv_inertia_a: self.inv_inertia_a,
            inv_inertia_b: self.inv_inertia_b,
        };
        let (ra, rb, normal) = (&p.anchor_a, &p.anchor_b, &self.normal);
        let normal_row = PointRow::new(normal, ra, rb, &masses, p.normal_impulse);
        ContactPoint {
            base_separation: p.separation,
            normal: normal_row,
            lever_arm: (ra - self.center_a).norm(),
            max_normal_impulse: 0.0,
            spring: spring.map(|(s, h)| SpringSoftness::new(s, normal_row.mass, h)),
        }
    }

    /// The friction impulse in world space (for the next step's warm start).
    pub fn world_friction_impulse(&self) -> Vector {
        self.tangents[0] * self.friction_impulse[0] + self.tangents[1] * self.friction_impulse[1]
    }
}

impl ContactConstraint {
    /// Prepares the rows of contact `source` of the solver's list, `input`, from the bodies'
    /// state at the start of the step.
    pub fn new(
        bodies: &Bodies,
        input: &Contact,
        source: u32,
        settings: &ContactSettings,
    ) -> ContactConstraint {
        let frame = ContactFrame::new(bodies, input, settings);
        let spring = input.material.spring.as_ref().map(|s| (s, settings.h));
        let points = input
            .points
            .iter()
            .map(|p| frame.point(p, spring))
            .collect();
        ContactConstraint {
            frame,
            points,
            source,
        }
    }

    /// Hands this contact's accumulated impulses back to `contact`, the one it was prepared
    /// from.
    pub fn unpack(&self, contact: &mut Contact) {
        for (p, q) in contact.points.iter_mut().zip(&self.points) {
            p.normal_impulse = q.normal.impulse;
            p.max_normal_impulse = q.max_normal_impulse;
        }
        contact.friction_impulse = self.frame.world_friction_impulse();
        contact.twist_impulse = self.frame.twist_impulse;
        contact.rolling_impulse = self.frame.rolling_impulse;
    }

    /// Applies the accumulated impulses (last step's, then each substep's) before iterating.
    pub fn warm_start(&self, bodies: &mut Bodies) {
        let mut a = *bodies.state(self.frame.body_a);
        let mut b = *bodies.state(self.frame.body_b);
        let m = (self.frame.inv_mass_a, self.frame.inv_mass_b);
        for p in &self.points {
            p.normal
                .apply(&self.frame.normal, m, &mut a, &mut b, p.normal.impulse);
        }
        let friction = self.frame.world_friction_impulse();
        self.apply(
            &self.frame.center_a,
            &self.frame.center_b,
            &friction,
            &mut a,
            &mut b,
        );
        self.twist(self.frame.twist_impulse, &mut a, &mut b);
        a.angular_velocity -= self.frame.inv_inertia_a * self.frame.rolling_impulse;
        b.angular_velocity += self.frame.inv_inertia_b * self.frame.rolling_impulse;
        bodies.store_pair((self.frame.body_a, &a), (self.frame.body_b, &b));
    }

    /// Applies `impulse` at anchors `ra`, `rb`: minus to A, plus to B.
    #[inline]
    fn apply(
        &self,
        ra: &Vector,
        rb: &Vector,
        impulse: &Vector,
        a: &mut BodyState,
        b: &mut BodyState,
    ) {
        a.linear_velocity -= impulse * self.frame.inv_mass_a;
        a.angular_velocity -= self.frame.inv_inertia_a * ra.cross(impulse);
        b.linear_velocity += impulse * self.frame.inv_mass_b;
        b.angular_velocity += self.frame.inv_inertia_b * rb.cross(impulse);
    }

    /// Applies a twist impulse `lambda` about the normal.
    #[inline]
    fn twist(&self, lambda: Real, a: &mut BodyState, b: &mut BodyState) {
        let impulse = self.frame.normal * lambda;
        a.angular_velocity -= self.frame.inv_inertia_a * impulse;
        b.angular_velocity += self.frame.inv_inertia_b * impulse;
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
        let mut a = *bodies.state(self.frame.body_a);
        let mut b = *bodies.state(self.frame.body_b);
        let m = (self.frame.inv_mass_a, self.frame.inv_mass_b);
        let n = self.frame.normal;
        // How far the bodies moved and turned since the step began (module doc).
        let turn_a = a.delta_rotation.imag() * 2.0;
        let turn_b = b.delta_rotation.imag() * 2.0;
        let moved = n.dot(&(b.delta_position - a.delta_position));
        let h = settings.h;
        for p in &mut self.points {
            let separation = p.base_separation + moved + turn_b.dot(&p.normal.angular_b)
                - turn_a.dot(&p.normal.angular_a);
            if let Some(soft) = &p.spring {
                let soft = soft.pass(use_bias);
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
                let s = &self.frame.softness;
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
            self.solve_friction(&mut a, &mut b);
        }
        bodies.store_pair((self.frame.body_a, &a), (self.frame.body_b, &b));
    }

    /// Twist, then the central friction block, within the bounds the normal impulses just
    /// found: the friction impulse inside the circle of radius `mu` times their sum, the twist
    /// within `mu` times their moments about the centre.
    fn solve_friction(&mut self, a: &mut BodyState, b: &mut BodyState) {
        let (mut total, mut moment) = (0.0, 0.0);
        for p in &self.points {
            total += p.normal.impulse;
            moment += p.lever_arm * p.normal.impulse;
        }
        let limit = self.frame.friction * moment;
        let spin = self
            .frame
            .normal
            .dot(&(b.angular_velocity - a.angular_velocity));
        let old = self.frame.twist_impulse;
        self.frame.twist_impulse = (old - self.frame.twist_mass * spin).max(-limit).min(limit);
        self.twist(self.frame.twist_impulse - old, a, b);

        if self.frame.rolling_resistance > 0.0 {
            // Rolling: all relative spin resisted, within the circle of the largest torque.
            let old = self.frame.rolling_impulse;
            let wanted = old - self.frame.rolling_mass * (b.angular_velocity - a.angular_velocity);
            let bound = self.frame.rolling_resistance * total;
            let length = wanted.norm();
            let scale = if length > bound { bound / length } else { 1.0 };
            self.frame.rolling_impulse = wanted * scale;
            let delta = self.frame.rolling_impulse - old;
            a.angular_velocity -= self.frame.inv_inertia_a * delta;
            b.angular_velocity += self.frame.inv_inertia_b * delta;
        }

        let (ra, rb) = (self.frame.center_a, self.frame.center_b);
        let vr = (b.linear_velocity + b.angular_velocity.cross(&rb))
            - (a.linear_velocity + a.angular_velocity.cross(&ra));
        let [t1, t2] = self.frame.tangents;
        let (v1, v2) = (t1.dot(&vr), t2.dot(&vr));
        let [m11, m12, m22] = self.frame.tangent_mass;
        let [o1, o2] = self.frame.friction_impulse;
        let (w1, w2) = (o1 - (m11 * v1 + m12 * v2), o2 - (m12 * v1 + m22 * v2));
        let bound = self.frame.friction * total;
        // Not hypot: libm's careful hypot cost a tenth of the whole step.
        let length = (w1 * w1 + w2 * w2).sqrt();
        let scale = if length > bound { bound / length } else { 1.0 };
        let (n1, n2) = (w1 * scale, w2 * scale);
        self.frame.friction_impulse = [n1, n2];
        let impulse = t1 * (n1 - o1) + t2 * (n2 - o2);
        self.apply(&ra, &rb, &impulse, a, b);
    }
}

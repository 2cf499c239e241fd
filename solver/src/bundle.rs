//! The wide contact kernel: `L` contacts of one colour solved side by side, one per lane
//! (Box2D v3's `contact_solver.c` and Rapier's SIMD contacts do the same; our own code).
//!
//! A [`Bundle`] holds its contacts as structure-of-arrays copies of their prepared data
//! ([`crate::contact::ContactConstraint`]: anchors, base separations, effective masses, the
//! bodies' masses), prepared once per step straight into the lanes and unpacked (the
//! impulses) into the solver's contact list after the solve. The passes gather both bodies'
//! states into lanes, run the same rows as the
//! scalar contact (speculative points rigid, overlap pushed by the contact spring in the biased
//! pass, friction held to the circle `mu λ_n`), and scatter the velocities back; a lane whose
//! velocities stopped being finite writes nothing, as [`crate::body::Bodies::store_pair`] does. Missing
//! points and empty lanes hold zeros (no mass, no impulse) and so change nothing.
//!
//! The kernel is generic over `L` and every operation is lane by lane (see [`crate::wide`]):
//! `Bundle<1>` is the scalar path, `Bundle<4>` and `Bundle<8>` the SIMD ones, and all three give
//! the same bits, since the contacts of a colour share no moving body.

// Lane loops index several arrays by the same lane: the plain form is the clearest, and the
// one the compiler vectorises.
#![allow(clippy::needless_range_loop)]

use crate::body::Bodies;
use crate::body::{StateView, STATIC};
use crate::contact::{Contact, ContactFrame, ContactSettings};
use crate::graph::WIDE_POINTS;
use crate::wide::{cross, F, Q, V3};
use crate::{Matrix, Real, Vector};

/// A symmetric 3x3 matrix of lanes (a world inverse inertia).
#[derive(Clone, Copy, Debug, Default)]
struct Sym<const L: usize> {
    xx: F<L>,
    yy: F<L>,
    zz: F<L>,
    xy: F<L>,
    xz: F<L>,
    yz: F<L>,
}

impl<const L: usize> Sym<L> {
    fn set(&mut self, lane: usize, m: &Matrix) {
        self.xx.0[lane] = m[(0, 0)];
        self.yy.0[lane] = m[(1, 1)];
        self.zz.0[lane] = m[(2, 2)];
        self.xy.0[lane] = m[(0, 1)];
        self.xz.0[lane] = m[(0, 2)];
        self.yz.0[lane] = m[(1, 2)];
    }

    #[inline(always)]
    fn mul(&self, v: &V3<L>) -> V3<L> {
        V3 {
            x: self.xx * v.x + self.xy * v.y + self.xz * v.z,
            y: self.xy * v.x + self.yy * v.y + self.yz * v.z,
            z: self.xz * v.x + self.yz * v.y + self.zz * v.z,
        }
    }
}

/// One point of each lane: 12 floats a lane. The rows' Jacobians are not stored: they are the
/// anchors crossed with the normal or a tangent, recomputed each pass, which costs less than
/// reading them (the solve streams through every contact 24 times a step, and a large scene's
/// contacts do not fit in the cache).
#[derive(Clone, Copy, Debug, Default)]
struct PointLanes<const L: usize> {
    anchor_a: V3<L>,
    anchor_b: V3<L>,
    base_separation: F<L>,
    max_normal_impulse: F<L>,
    normal_mass: F<L>,
    normal_impulse: F<L>,
    lever_arm: F<L>,
}

/// Up to `L` contacts of one colour.
#[derive(Clone, Debug)]
pub struct Bundle<const L: usize> {
    body_a: [u32; L],
    body_b: [u32; L],
    /// Each lane's index in the step's contact list (for unpacking).
    source: [u32; L],
    /// How many lanes hold a contact.
    lanes: usize,
    inv_mass_a: F<L>,
    inv_mass_b: F<L>,
    inv_inertia_a: Sym<L>,
    inv_inertia_b: Sym<L>,
    normal: V3<L>,
    tangents: [V3<L>; 2],
    friction: F<L>,
    bias_rate: F<L>,
    mass_scale: F<L>,
    impulse_scale: F<L>,
    center_a: V3<L>,
    center_b: V3<L>,
    tangent_mass: [F<L>; 3],
    friction_impulse: [F<L>; 2],
    twist_mass: F<L>,
    twist_impulse: F<L>,
    /// Whether any lane has rolling resistance (most bundles have none: boxes do not roll).
    rolling: bool,
    /// Whether any lane bounces (restitution above zero).
    bounces: bool,
    points: [PointLanes<L>; WIDE_POINTS],
}

/// What a bundle's passes seldom read, kept apart from it (in a list beside the bundles) so
/// that the passes over boxes stream fewer bytes: restitution, read once a step, and rolling
/// resistance, read only by bundles with a round shape in some lane. Past the caches the
/// kernel is bound by reading its bundles (docs/PERFORMANCE.md).
#[derive(Clone, Debug, Default)]
pub struct BundleCold<const L: usize> {
    restitution: F<L>,
    /// Each point's normal velocity before the solve, for restitution.
    approach_speed: [F<L>; WIDE_POINTS],
    rolling_resistance: F<L>,
    rolling_mass: Sym<L>,
    rolling_impulse: V3<L>,
}

/// Both bodies' states of each lane, gathered for a pass.
#[derive(Clone, Copy, Default)]
struct Lanes<const L: usize> {
    v: V3<L>,
    w: V3<L>,
    dp: V3<L>,
    dq: Q<L>,
}

impl<const L: usize> Lanes<L> {
    /// The states of bodies `index`, one a lane (a static body reads as at rest): lane by lane,
    /// or, with `AVX2` (only inside the AVX2-compiled pass) and eight lanes, by transposes.
    #[inline(always)]
    fn gather<const AVX2: bool>(bodies: StateView, index: &[u32; L]) -> Lanes<L> {
        #[cfg(target_arch = "x86_64")]
        if AVX2 && L == 8 {
            let mut out = Lanes::default();
            // SAFETY: L is 8, so the casts are to the same types; AVX2 is set only by
            // `pass_avx2`, compiled with AVX2 and run on a CPU that has it.
            unsafe {
                let index = &*(index as *const [u32; L] as *const [u32; 8]);
                let lanes = &mut *(&mut out as *mut Lanes<L> as *mut Lanes<8>);
                (lanes.v, lanes.w, lanes.dp, lanes.dq) = crate::transpose::gather(bodies, index);
            }
            return out;
        }
        let mut out = Lanes::default();
        for lane in 0..L {
            let s = bodies.get(index[lane]);
            out.v.set(lane, &s.linear_velocity);
            out.w.set(lane, &s.angular_velocity);
            out.dp.set(lane, &s.delta_position);
            out.dq.w.0[lane] = s.delta_rotation.w;
            out.dq.v.set(lane, &s.delta_rotation.imag());
        }
        out
    }
}

/// Writes each lane's new velocities to its moving bodies, unless they stopped being finite
/// (then the lane changes nothing this pass, as [`crate::body::Bodies::store_pair`]). Static and
/// kinematic bodies (no inverse mass) are never written: a contact cannot change them, and
/// several contacts of one colour may share one. With `AVX2` and eight lanes, by transposes.
#[inline(always)]
fn scatter<const L: usize, const AVX2: bool>(
    bodies: StateView,
    index: (&[u32; L], &[u32; L]),
    moving: (&F<L>, &F<L>),
    a: &Lanes<L>,
    b: &Lanes<L>,
) {
    // The same sums, lane by lane, on every path.
    let sum = (a.v.x + a.v.y + a.v.z) + (a.w.x + a.w.y + a.w.z);
    let sum = sum + ((b.v.x + b.v.y + b.v.z) + (b.w.x + b.w.y + b.w.z));
    let finite: [bool; L] = std::array::from_fn(|lane| sum.0[lane].is_finite());
    #[cfg(target_arch = "x86_64")]
    if AVX2 && L == 8 {
        let write = |m: &F<L>| std::array::from_fn(|lane| finite[lane] && m.0[lane] > 0.0);
        // SAFETY: as in `Lanes::gather`; the bodies written are this bundle's moving ones,
        // which no other worker touches during this colour.
        unsafe {
            let cast = |i: &[u32; L]| &*(i as *const [u32; L] as *const [u32; 8]);
            let lanes = |l: &Lanes<L>| &*(l as *const Lanes<L> as *const Lanes<8>);
            let (a8, b8) = (lanes(a), lanes(b));
            crate::transpose::scatter(bodies, cast(index.0), write(moving.0), &a8.v, &a8.w);
            crate::transpose::scatter(bodies, cast(index.1), write(moving.1), &b8.v, &b8.w);
        }
        return;
    }
    for lane in 0..L {
        if !finite[lane] {
            continue;
        }
        if moving.0 .0[lane] > 0.0 {
            bodies.set_velocity(index.0[lane], a.v.get(lane), a.w.get(lane));
        }
        if moving.1 .0[lane] > 0.0 {
            bodies.set_velocity(index.1[lane], b.v.get(lane), b.w.get(lane));
        }
    }
}

impl<const L: usize> Bundle<L> {
    /// A bundle with no contact in any lane: no masses, no impulses, static bodies.
    pub fn empty() -> Bundle<L> {
        Bundle {
            body_a: [STATIC; L],
            body_b: [STATIC; L],
            source: [u32::MAX; L],
            lanes: 0,
            inv_mass_a: F::default(),
            inv_mass_b: F::default(),
            inv_inertia_a: Sym::default(),
            inv_inertia_b: Sym::default(),
            normal: V3::default(),
            tangents: [V3::default(); 2],
            friction: F::default(),
            bias_rate: F::default(),
            mass_scale: F::default(),
            impulse_scale: F::default(),
            center_a: V3::default(),
            center_b: V3::default(),
            tangent_mass: [F::default(); 3],
            friction_impulse: [F::default(); 2],
            twist_mass: F::default(),
            twist_impulse: F::default(),
            rolling: false,
            bounces: false,
            points: [PointLanes::default(); WIDE_POINTS],
        }
    }

    /// Prepares `indices` (at most `L`) of `contacts` into this bundle's lanes, in place, each
    /// as [`ContactConstraint::new`] prepares it; lanes past them hold nothing.
    pub fn prepare(
        &mut self,
        cold: &mut BundleCold<L>,
        bodies: &Bodies,
        contacts: &[Contact],
        indices: &[u32],
        settings: &ContactSettings,
    ) {
        if indices.len() < L {
            *self = Bundle::empty();
            *cold = BundleCold::default();
        }
        self.lanes = indices.len().min(L);
        self.rolling = false;
        self.bounces = false;
        for (lane, &index) in indices.iter().take(L).enumerate() {
            self.set_lane(
                lane,
                cold,
                bodies,
                &contacts[index as usize],
                index,
                settings,
            );
        }
    }

    /// Lane `lane` prepared from `contact`, index `source` of the solver's list; every field
    /// of the lane is written (missing points and rolling resistance as zeros).
    #[inline]
    fn set_lane(
        &mut self,
        lane: usize,
        cold: &mut BundleCold<L>,
        bodies: &Bodies,
        contact: &Contact,
        source: u32,
        settings: &ContactSettings,
    ) {
        let c = ContactFrame::new(bodies, contact, settings);
        let states = (bodies.state(c.body_a), bodies.state(c.body_b));
        self.body_a[lane] = c.body_a;
        self.body_b[lane] = c.body_b;
        self.source[lane] = source;
        self.inv_mass_a.0[lane] = c.inv_mass_a;
        self.inv_mass_b.0[lane] = c.inv_mass_b;
        self.inv_inertia_a.set(lane, &c.inv_inertia_a);
        self.inv_inertia_b.set(lane, &c.inv_inertia_b);
        self.normal.set(lane, &c.normal);
        self.tangents[0].set(lane, &c.tangents[0]);
        self.tangents[1].set(lane, &c.tangents[1]);
        self.friction.0[lane] = c.friction;
        cold.restitution.0[lane] = c.restitution;
        self.bounces |= c.restitution != 0.0;
        self.bias_rate.0[lane] = c.softness.bias_rate;
        self.mass_scale.0[lane] = c.softness.mass_scale;
        self.impulse_scale.0[lane] = c.softness.impulse_scale;
        self.center_a.set(lane, &c.center_a);
        self.center_b.set(lane, &c.center_b);
        for k in 0..3 {
            self.tangent_mass[k].0[lane] = c.tangent_mass[k];
        }
        for k in 0..2 {
            self.friction_impulse[k].0[lane] = c.friction_impulse[k];
        }
        self.twist_mass.0[lane] = c.twist_mass;
        self.twist_impulse.0[lane] = c.twist_impulse;
        self.rolling |= c.rolling_resistance > 0.0;
        cold.rolling_resistance.0[lane] = c.rolling_resistance;
        cold.rolling_mass.set(lane, &c.rolling_mass);
        cold.rolling_impulse.set(lane, &c.rolling_impulse);
        for (k, q) in self.points.iter_mut().enumerate() {
            let p = contact.points.get(k).map(|p| c.point(p, states, None));
            let (anchor_a, anchor_b) = p.as_ref().map_or((Vector::zeros(), Vector::zeros()), |p| {
                (p.anchor_a, p.anchor_b)
            });
            q.anchor_a.set(lane, &anchor_a);
            q.anchor_b.set(lane, &anchor_b);
            q.base_separation.0[lane] = p.as_ref().map_or(0.0, |p| p.base_separation);
            cold.approach_speed[k].0[lane] = p.as_ref().map_or(0.0, |p| p.approach_speed);
            q.max_normal_impulse.0[lane] = 0.0;
            q.normal_mass.0[lane] = p.as_ref().map_or(0.0, |p| p.normal.mass);
            q.normal_impulse.0[lane] = p.as_ref().map_or(0.0, |p| p.normal.impulse);
            q.lever_arm.0[lane] = p.as_ref().map_or(0.0, |p| p.lever_arm);
        }
    }

    /// Hands the accumulated impulses back to the contacts they came from.
    pub fn unpack(&self, cold: &BundleCold<L>, contacts: &mut [Contact]) {
        for lane in 0..self.lanes {
            let c = &mut contacts[self.source[lane] as usize];
            for (p, q) in c.points.iter_mut().zip(&self.points) {
                p.normal_impulse = q.normal_impulse.0[lane];
                p.max_normal_impulse = q.max_normal_impulse.0[lane];
            }
            c.friction_impulse = self.tangents[0].get(lane) * self.friction_impulse[0].0[lane]
                + self.tangents[1].get(lane) * self.friction_impulse[1].0[lane];
            c.twist_impulse = self.twist_impulse.0[lane];
            c.rolling_impulse = cold.rolling_impulse.get(lane);
        }
    }

    /// Writes the lanes' new velocities back ([`scatter`]).
    #[inline(always)]
    fn scatter<const AVX2: bool>(&self, bodies: StateView, a: &Lanes<L>, b: &Lanes<L>) {
        scatter::<L, AVX2>(
            bodies,
            (&self.body_a, &self.body_b),
            (&self.inv_mass_a, &self.inv_mass_b),
            a,
            b,
        );
    }

    /// Applies `impulse` at anchors `ra`, `rb`: minus to A, plus to B.
    #[inline(always)]
    fn apply(&self, ra: &V3<L>, rb: &V3<L>, impulse: &V3<L>, a: &mut Lanes<L>, b: &mut Lanes<L>) {
        a.v -= *impulse * self.inv_mass_a;
        a.w -= self.inv_inertia_a.mul(&cross(ra, impulse));
        b.v += *impulse * self.inv_mass_b;
        b.w += self.inv_inertia_b.mul(&cross(rb, impulse));
    }

    /// Applies a twist impulse `lambda` about the normal.
    #[inline(always)]
    fn twist(&self, lambda: F<L>, a: &mut Lanes<L>, b: &mut Lanes<L>) {
        let impulse = self.normal * lambda;
        a.w -= self.inv_inertia_a.mul(&impulse);
        b.w += self.inv_inertia_b.mul(&impulse);
    }

    /// The relative velocity of anchors `ra`, `rb`, B's minus A's.
    #[inline(always)]
    fn relative_velocity(ra: &V3<L>, rb: &V3<L>, a: &Lanes<L>, b: &Lanes<L>) -> V3<L> {
        (b.v + cross(&b.w, rb)) - (a.v + cross(&a.w, ra))
    }

    /// Applies the accumulated impulses.
    #[inline(always)]
    pub(crate) fn warm_start<const AVX2: bool>(&self, cold: &BundleCold<L>, bodies: StateView) {
        let mut a = Lanes::gather::<AVX2>(bodies, &self.body_a);
        let mut b = Lanes::gather::<AVX2>(bodies, &self.body_b);
        let [t1, t2] = &self.tangents;
        for p in &self.points {
            let impulse = self.normal * p.normal_impulse;
            self.apply(&p.anchor_a, &p.anchor_b, &impulse, &mut a, &mut b);
        }
        let friction = *t1 * self.friction_impulse[0] + *t2 * self.friction_impulse[1];
        self.apply(&self.center_a, &self.center_b, &friction, &mut a, &mut b);
        self.twist(self.twist_impulse, &mut a, &mut b);
        if self.rolling {
            a.w -= self.inv_inertia_a.mul(&cold.rolling_impulse);
            b.w += self.inv_inertia_b.mul(&cold.rolling_impulse);
        }
        self.scatter::<AVX2>(bodies, &a, &b);
    }

    /// One iteration over the points: normal rows (pushing out overlap if `use_bias`), then
    /// friction if `friction` is set.
    #[inline(always)]
    pub(crate) fn solve<const AVX2: bool>(
        &mut self,
        cold: &mut BundleCold<L>,
        bodies: StateView,
        settings: &ContactSettings,
        use_bias: bool,
        friction: bool,
    ) {
        let mut a = Lanes::gather::<AVX2>(bodies, &self.body_a);
        let mut b = Lanes::gather::<AVX2>(bodies, &self.body_b);
        let n = self.normal;
        let n_a = a.dq.inverse_rotate(&n);
        let n_b = b.dq.inverse_rotate(&n);
        let moved = n.dot(&(b.dp - a.dp));
        let (zero, one) = (F::splat(0.0), F::splat(1.0));
        let inv_h = F::splat(1.0 / settings.h);
        let push = F::splat(-settings.max_push_out_speed);
        for k in 0..WIDE_POINTS {
            let p = &self.points[k];
            let separation =
                p.base_separation + moved + n_b.dot(&p.anchor_b) - n_a.dot(&p.anchor_a);
            // Apart: rigid, closing at most the gap. Overlapping: the spring (biased pass) or
            // rigid without bias (relax pass).
            let (soft_bias, soft_mass, soft_impulse) = if use_bias {
                (
                    (self.bias_rate * separation).max(push),
                    self.mass_scale,
                    self.impulse_scale,
                )
            } else {
                (zero, one, zero)
            };
            let bias = separation.select_gt(zero, separation * inv_h, soft_bias);
            let mass_scale = separation.select_gt(zero, one, soft_mass);
            let impulse_scale = separation.select_gt(zero, zero, soft_impulse);
            let vn = n.dot(&Self::relative_velocity(&p.anchor_a, &p.anchor_b, &a, &b));
            let old = p.normal_impulse;
            let wanted = old - p.normal_mass * mass_scale * (vn + bias) - impulse_scale * old;
            let total = wanted.max(zero);
            self.apply(
                &p.anchor_a,
                &p.anchor_b,
                &(n * (total - old)),
                &mut a,
                &mut b,
            );
            let q = &mut self.points[k];
            q.normal_impulse = total;
            q.max_normal_impulse = q.max_normal_impulse.max(total);
        }
        if friction {
            self.solve_friction(cold, &mut a, &mut b);
        }
        self.scatter::<AVX2>(bodies, &a, &b);
    }

    /// Twist, then the central friction block (as [`ContactConstraint`]'s).
    #[inline(always)]
    fn solve_friction(&mut self, cold: &mut BundleCold<L>, a: &mut Lanes<L>, b: &mut Lanes<L>) {
        let (mut total, mut moment) = (F::splat(0.0), F::splat(0.0));
        for p in &self.points {
            total += p.normal_impulse;
            moment += p.lever_arm * p.normal_impulse;
        }
        let limit = self.friction * moment;
        let spin = self.normal.dot(&(b.w - a.w));
        let old = self.twist_impulse;
        self.twist_impulse = (old - self.twist_mass * spin).max(-limit).min(limit);
        self.twist(self.twist_impulse - old, a, b);

        if self.rolling {
            let old = cold.rolling_impulse;
            let wanted = old - cold.rolling_mass.mul(&(b.w - a.w));
            let bound = cold.rolling_resistance * total;
            let length = wanted.dot(&wanted).sqrt();
            let scale = length.select_gt(bound, bound / length, F::splat(1.0));
            cold.rolling_impulse = wanted * scale;
            let delta = cold.rolling_impulse - old;
            a.w -= self.inv_inertia_a.mul(&delta);
            b.w += self.inv_inertia_b.mul(&delta);
        }

        let (ra, rb) = (self.center_a, self.center_b);
        let vr = Self::relative_velocity(&ra, &rb, a, b);
        let [t1, t2] = self.tangents;
        let (v1, v2) = (t1.dot(&vr), t2.dot(&vr));
        let [m11, m12, m22] = self.tangent_mass;
        let [o1, o2] = self.friction_impulse;
        let (w1, w2) = (o1 - (m11 * v1 + m12 * v2), o2 - (m12 * v1 + m22 * v2));
        let bound = self.friction * total;
        let length = (w1 * w1 + w2 * w2).sqrt();
        let scale = length.select_gt(bound, bound / length, F::splat(1.0));
        let (n1, n2) = (w1 * scale, w2 * scale);
        self.friction_impulse = [n1, n2];
        let impulse = t1 * (n1 - o1) + t2 * (n2 - o2);
        self.apply(&ra, &rb, &impulse, a, b);
    }

    /// Restitution, once after the substeps (as [`ContactConstraint::restitute`]).
    #[inline(always)]
    pub(crate) fn restitute<const AVX2: bool>(
        &mut self,
        cold: &BundleCold<L>,
        bodies: StateView,
        threshold: Real,
    ) {
        if !self.bounces {
            return;
        }
        let mut a = Lanes::gather::<AVX2>(bodies, &self.body_a);
        let mut b = Lanes::gather::<AVX2>(bodies, &self.body_b);
        let n = self.normal;
        let zero = F::splat(0.0);
        let mut any = false;
        for k in 0..WIDE_POINTS {
            let p = &self.points[k];
            // 1 where the point bounces: it approached fast enough and was pushed.
            let mut bounces = F::<L>::splat(0.0);
            for lane in 0..L {
                if cold.restitution.0[lane] != 0.0
                    && cold.approach_speed[k].0[lane] <= -threshold
                    && p.max_normal_impulse.0[lane] != 0.0
                {
                    bounces.0[lane] = 1.0;
                    any = true;
                }
            }
            let target = -(cold.restitution * cold.approach_speed[k]);
            let vn = n.dot(&Self::relative_velocity(&p.anchor_a, &p.anchor_b, &a, &b));
            let old = p.normal_impulse;
            let wanted = (old - p.normal_mass * (vn - target)).max(zero);
            let total = bounces.select_gt(zero, wanted, old);
            self.apply(
                &p.anchor_a,
                &p.anchor_b,
                &(n * (total - old)),
                &mut a,
                &mut b,
            );
            self.points[k].normal_impulse = total;
        }
        if any {
            self.scatter::<AVX2>(bodies, &a, &b);
        }
    }
}

/// What a pass over the bundles does.
#[derive(Clone, Copy, Debug)]
pub enum Pass {
    /// Apply the accumulated impulses.
    WarmStart,
    /// One iteration, biased or relaxing, with or without friction.
    Solve {
        /// The biased pass (push overlap out).
        use_bias: bool,
        /// Solve friction too.
        friction: bool,
    },
    /// Restitution after the substeps.
    Restitute,
}

/// One pass over `bundles`; `AVX2` only where compiled with it (see [`Lanes::gather`]).
#[inline(always)]
fn run<const L: usize, const AVX2: bool>(
    (bundles, colds): (&mut [Bundle<L>], &mut [BundleCold<L>]),
    bodies: StateView,
    settings: &ContactSettings,
    pass: Pass,
) {
    for (bundle, cold) in bundles.iter_mut().zip(colds) {
        match pass {
            Pass::WarmStart => bundle.warm_start::<AVX2>(cold, bodies),
            Pass::Solve { use_bias, friction } => {
                bundle.solve::<AVX2>(cold, bodies, settings, use_bias, friction)
            }
            Pass::Restitute => {
                bundle.restitute::<AVX2>(cold, bodies, settings.restitution_threshold)
            }
        }
    }
}

/// One pass over `bundles`, compiled for the default instruction set.
pub(crate) fn pass<const L: usize>(
    bundles: (&mut [Bundle<L>], &mut [BundleCold<L>]),
    bodies: StateView,
    settings: &ContactSettings,
    pass: Pass,
) {
    run::<L, false>(bundles, bodies, settings, pass)
}

/// One pass over 8-lane bundles compiled with AVX2, when the CPU has it (checked once per
/// solve by the caller); the same operations, so the same bits, as [`pass`].
#[cfg(target_arch = "x86_64")]
pub(crate) fn pass_avx2(
    bundles: (&mut [Bundle<8>], &mut [BundleCold<8>]),
    bodies: StateView,
    settings: &ContactSettings,
    pass: Pass,
) {
    #[target_feature(enable = "avx2")]
    unsafe fn avx2(
        bundles: (&mut [Bundle<8>], &mut [BundleCold<8>]),
        bodies: StateView,
        settings: &ContactSettings,
        pass: Pass,
    ) {
        run::<8, true>(bundles, bodies, settings, pass)
    }
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (just checked), which is all `avx2` requires.
        unsafe { avx2(bundles, bodies, settings, pass) }
    } else {
        run::<8, false>(bundles, bodies, settings, pass)
    }
}

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
use crate::body::StateView;
use crate::contact::WIDE_POINTS;
use crate::contact::{pair_masses, Contact, FRICTION_CENTRE_REACH};
use crate::lanes::{Lanes, Pair, Sym};
use crate::step::ContactSettings;
use crate::wide::{cross, F, V3};
use crate::{Matrix, Vector};

#[cfg(target_arch = "x86_64")]
mod derive_eight;

/// Whether every body of the step has an inverse inertia that is a multiple of the identity
/// (spheres, cubes; a static body's is zero), as most scenes' bodies do. The contact passes
/// then turn an angular impulse into a spin by one product per axis and do not read the
/// off-diagonal lanes: a sixth fewer bytes a bundle and a shorter dependency chain from one
/// point to the next. Decided for the whole step, never per bundle: `M_xx v` and the full
/// product can differ in the sign of a zero, and a lane's bits must not depend on the other
/// lanes of its bundle (nor therefore on the lane count).
pub(crate) fn isotropic(bodies: &Bodies) -> bool {
    bodies
        .sims
        .iter()
        .all(|s| Sym::<1>::is_isotropic(&s.inv_inertia))
}

/// A full 3x3 matrix of lanes, for preparation: its products are nalgebra's, in nalgebra's
/// order (a world inverse inertia need not be symmetric to the last bit).
#[derive(Clone, Copy, Debug, Default)]
struct M3<const L: usize> {
    columns: [V3<L>; 3],
}

impl<const L: usize> M3<L> {
    fn set(&mut self, lane: usize, m: &Matrix) {
        for (j, column) in self.columns.iter_mut().enumerate() {
            column.set(lane, &m.column(j).into_owned());
        }
    }

    /// `M v`, summed column by column as nalgebra's `gemv` does.
    #[inline(always)]
    fn mul(&self, v: &V3<L>) -> V3<L> {
        let [c0, c1, c2] = &self.columns;
        *c0 * v.x + *c1 * v.y + *c2 * v.z
    }

    #[inline(always)]
    fn add(&self, o: &M3<L>) -> M3<L> {
        let ([a0, a1, a2], [b0, b1, b2]) = (&self.columns, &o.columns);
        M3 {
            columns: [*a0 + *b0, *a1 + *b1, *a2 + *b2],
        }
    }
}

/// A bundle's preparation inputs that the passes do not keep.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Inputs<const L: usize> {
    inertia_a: M3<L>,
    inertia_b: M3<L>,
    /// Last step's friction impulse (world).
    friction_impulse: V3<L>,
    /// Each point's anchors on A and B, from the centres of mass.
    anchor_a: [V3<L>; WIDE_POINTS],
    anchor_b: [V3<L>; WIDE_POINTS],
    separation: [F<L>; WIDE_POINTS],
    /// 1 where the contact has point `k`, else 0.
    present: [F<L>; WIDE_POINTS],
}

/// One point of each lane: 11 floats a lane. The normal row's angular Jacobians are stored in
/// place of the anchors (as many floats): a pass reads the relative velocity with three dot
/// products instead of two cross products, and applies an impulse without them. Their images
/// under the inverse inertias are not stored: in a large scene the kernel is bound by reading
/// its bundles (six more floats a point cost `many_pyramids` 14%), in a small one by its
/// instructions (they saved 9% on `pyramid`); docs/PERFORMANCE.md. The live separation uses
/// the same Jacobians (below, [`Bundle::solve`]).
#[derive(Clone, Copy, Debug, Default)]
struct PointLanes<const L: usize> {
    /// `r_a x n`: A's angular Jacobian is its negative.
    angular_a: V3<L>,
    /// `r_b x n`.
    angular_b: V3<L>,
    base_separation: F<L>,
    max_normal_impulse: F<L>,
    normal_mass: F<L>,
    normal_impulse: F<L>,
    lever_arm: F<L>,
}

/// Up to `L` contacts of one colour.
#[derive(Clone, Debug)]
pub struct Bundle<const L: usize> {
    /// The lanes' bodies and their masses.
    pair: Pair<L>,
    /// Each lane's index in the step's contact list (for unpacking).
    source: [u32; L],
    /// How many lanes hold a contact.
    lanes: usize,
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
    points: [PointLanes<L>; WIDE_POINTS],
}

/// What a bundle's passes seldom read, kept apart from it (in a list beside the bundles) so
/// that the passes over boxes stream fewer bytes: rolling resistance, read only by bundles
/// with a round shape in some lane. Past the caches the
/// kernel is bound by reading its bundles (docs/PERFORMANCE.md).
#[derive(Clone, Debug, Default)]
pub struct BundleCold<const L: usize> {
    rolling_resistance: F<L>,
    rolling_mass: Sym<L>,
    rolling_impulse: V3<L>,
}

impl<const L: usize> Bundle<L> {
    /// A bundle with no contact in any lane: no masses, no impulses, static bodies.
    pub fn empty() -> Bundle<L> {
        Bundle {
            pair: Pair::empty(),
            source: [u32::MAX; L],
            lanes: 0,
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
            points: [PointLanes::default(); WIDE_POINTS],
        }
    }

    /// Prepares `indices` (at most `L`) of `contacts` into this bundle's lanes, in place, as
    /// [`ContactConstraint::new`] prepares each: every lane's inputs are copied in one by one
    /// (`Bundle::load_lane`), then what is derived from them is computed for all lanes at
    /// once (`Bundle::derive`), with the scalar preparation's operations in its order, so
    /// that both give the same bits. Lanes past `indices` hold nothing.
    ///
    /// [`ContactConstraint::new`]: crate::contact::ContactConstraint::new
    #[inline(always)]
    pub fn prepare(
        &mut self,
        cold: &mut BundleCold<L>,
        bodies: &Bodies,
        contacts: &[Contact],
        indices: &[u32],
        settings: &ContactSettings,
    ) {
        let mut inputs = Inputs::default();
        self.prepare_with::<false>(cold, &mut inputs, (bodies, contacts), indices, settings);
    }

    /// [`Bundle::prepare`] with the caller's scratch for the inputs, which a worker keeps for
    /// all its bundles: a full bundle writes every lane of it, so only a partial one clears it
    /// first (zeroing its 2 KB for every bundle cost 4% of `pyramid`'s instructions).
    #[inline(always)]
    ///
    /// With `AVX2` (only inside the AVX2-compiled preparation, `Kernels::run`), a full bundle of eight is
    /// loaded by transposes ([`Bundle::load_eight`]).
    pub(crate) fn prepare_with<const AVX2: bool>(
        &mut self,
        cold: &mut BundleCold<L>,
        inputs: &mut Inputs<L>,
        (bodies, contacts): (&Bodies, &[Contact]),
        indices: &[u32],
        settings: &ContactSettings,
    ) {
        #[cfg(target_arch = "x86_64")]
        if AVX2 && L == 8 && indices.len() == 8 {
            self.lanes = 8;
            // SAFETY: L is 8 and the bundle full; AVX2 is set only by `Kernels::run`'s AVX2-compiled
            // preparation, run on a CPU that has it.
            unsafe {
                self.load_eight(cold, inputs, (bodies, contacts), indices, settings);
                self.derive_eight(inputs);
            }
            return;
        }
        if indices.len() < L {
            *self = Bundle::empty();
            *cold = BundleCold::default();
            *inputs = Inputs::default();
        }
        self.lanes = indices.len().min(L);
        self.rolling = false;
        for (lane, &index) in indices.iter().take(L).enumerate() {
            let contact = &contacts[index as usize];
            self.load_lane(lane, cold, inputs, bodies, contact, index, settings);
        }
        #[cfg(target_arch = "x86_64")]
        if AVX2 && L == 8 {
            // SAFETY: L is 8; AVX2 is set only by `Kernels::run`'s AVX2-compiled frame, run on a CPU
            // that has it.
            unsafe { self.derive_eight(inputs) };
            return;
        }
        self.derive(inputs);
    }

    /// Copies lane `lane`'s inputs from `contact`, index `source` of the solver's list: what
    /// the passes read as given (bodies, masses, normal, material, softness, impulses,
    /// anchors) into the lane, the rest into `inputs`. Missing points and rolling resistance
    /// are zeros.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn load_lane(
        &mut self,
        lane: usize,
        cold: &mut BundleCold<L>,
        inputs: &mut Inputs<L>,
        bodies: &Bodies,
        contact: &Contact,
        source: u32,
        settings: &ContactSettings,
    ) {
        let (body_a, body_b) = (contact.body_a, contact.body_b);
        let ((inv_mass_a, inertia_a), (inv_mass_b, inertia_b)) =
            pair_masses(bodies, (body_a, body_b), &contact.normal, settings);
        self.pair.body_a[lane] = body_a;
        self.pair.body_b[lane] = body_b;
        self.source[lane] = source;
        self.pair.inv_mass_a.0[lane] = inv_mass_a;
        self.pair.inv_mass_b.0[lane] = inv_mass_b;
        self.pair.inv_inertia_a.set(lane, &inertia_a);
        self.pair.inv_inertia_b.set(lane, &inertia_b);
        inputs.inertia_a.set(lane, &inertia_a);
        inputs.inertia_b.set(lane, &inertia_b);
        self.normal.set(lane, &contact.normal);
        let material = &contact.material;
        self.friction.0[lane] = material.friction;
        self.set_softness(lane, settings);
        inputs.friction_impulse.set(lane, &contact.friction_impulse);
        self.twist_impulse.0[lane] = contact.twist_impulse;
        let rolling = material.rolling_resistance;
        self.rolling |= rolling > 0.0;
        cold.rolling_resistance.0[lane] = rolling;
        let (rolling_mass, rolling_impulse) = if rolling > 0.0 {
            let mass = (inertia_a + inertia_b).try_inverse();
            (mass.unwrap_or_else(Matrix::zeros), contact.rolling_impulse)
        } else {
            (Matrix::zeros(), Vector::zeros())
        };
        cold.rolling_mass.set(lane, &rolling_mass);
        cold.rolling_impulse.set(lane, &rolling_impulse);
        for (k, q) in self.points.iter_mut().enumerate() {
            let p = contact.points.get(k).copied().unwrap_or_default();
            inputs.anchor_a[k].set(lane, &p.anchor_a);
            inputs.anchor_b[k].set(lane, &p.anchor_b);
            q.normal_impulse.0[lane] = p.normal_impulse;
            q.max_normal_impulse.0[lane] = 0.0;
            inputs.separation[k].0[lane] = p.separation;
            inputs.present[k].0[lane] = if k < contact.points.len() { 1.0 } else { 0.0 };
        }
    }

    /// [`Bundle::load_lane`] for every lane of a full bundle of eight, by transposes: each
    /// contact's, body's and point's fields are read as rows of eight floats and leave as
    /// lanes, so that `derive` reads whole vectors that were written whole (lanes stored one
    /// float at a time and read back as a vector stall every such load, and the lane-by-lane
    /// copies were half the preparation's instructions). The same numbers moved, nothing
    /// computed: the same bits as `load_lane`.
    ///
    /// # Safety
    /// `L` is 8, `indices` holds eight indices of `contacts`, and the CPU has AVX2 and the
    /// caller is compiled with it.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load_eight(
        &mut self,
        cold: &mut BundleCold<L>,
        inputs: &mut Inputs<L>,
        (bodies, contacts): (&Bodies, &[Contact]),
        indices: &[u32],
        settings: &ContactSettings,
    ) {
        use crate::body::BodySim;
        use crate::contact::ContactPointInput;
        use crate::transpose::columns;
        use std::mem::offset_of;
        // What the rows below read, at the offsets they read it.
        const _: () = {
            assert!(offset_of!(Contact, body_b) == 4 && offset_of!(Contact, normal) == 8);
            assert!(offset_of!(Contact, material) == 20);
            assert!(offset_of!(crate::contact::ContactMaterial, restitution) == 4);
            assert!(offset_of!(crate::contact::ContactMaterial, rolling_resistance) == 8);
            assert!(
                offset_of!(Contact, twist_impulse) == offset_of!(Contact, friction_impulse) + 12
            );
            assert!(offset_of!(Contact, user_index) == offset_of!(Contact, friction_impulse) + 28);
            assert!(offset_of!(ContactPointInput, anchor_b) == 12);
            assert!(offset_of!(ContactPointInput, normal_impulse) == 28);
            assert!(offset_of!(BodySim, inv_mass) == 0 && offset_of!(BodySim, inv_inertia) == 4);
        };
        /// Stands for a static body's masses and a missing point: ten zeros.
        static ZEROS: [f32; 10] = [0.0; 10];
        // SAFETY: the caller's contract makes these `Bundle<8>`, `BundleCold<8>`, `Inputs<8>`.
        let (this, cold, inputs) = unsafe {
            (
                &mut *(self as *mut Bundle<L> as *mut Bundle<8>),
                &mut *(cold as *mut BundleCold<L> as *mut BundleCold<8>),
                &mut *(inputs as *mut Inputs<L> as *mut Inputs<8>),
            )
        };
        let contact: [&Contact; 8] = std::array::from_fn(|lane| &contacts[indices[lane] as usize]);
        let v3 = |c: &[F<8>], at: usize| V3 {
            x: c[at],
            y: c[at + 1],
            z: c[at + 2],
        };
        // SAFETY: AVX2 by the caller's contract, and each row (here and below) is eight
        // initialised 4-byte words inside one value, at the offsets asserted above: a
        // contact's first eight, its friction impulse to its user index, a point's anchors to
        // its impulse, a body's inverse mass to its inertia's seventh entry and its inertia's
        // second to ninth, or `ZEROS`.
        let head = unsafe { columns(contact.map(|c| c as *const Contact as *const f32)) };
        this.pair.body_a = head[0].0.map(f32::to_bits);
        this.pair.body_b = head[1].0.map(f32::to_bits);
        this.source = std::array::from_fn(|lane| indices[lane]);
        this.normal = v3(&head, 2);
        this.friction = head[5];
        cold.rolling_resistance = head[7];
        // (From the whole contact's pointer: the row reads past the one field.)
        let impulses = |c: &Contact| {
            (c as *const Contact as *const u8).wrapping_add(offset_of!(Contact, friction_impulse))
                as *const f32
        };
        // SAFETY: as `head`'s: a contact's friction impulse to its user index.
        let tail = unsafe { columns(contact.map(impulses)) };
        inputs.friction_impulse = v3(&tail, 0);
        this.twist_impulse = tail[3];
        // Masses: rows from the inverse mass (mass, inertia entries 0 to 6) and from the
        // inertia's second entry (entries 1 to 8); column-major, entry 3 j + i is row i of
        // column j.
        let sim = |body: u32| {
            bodies
                .sims
                .get(body as usize)
                .map_or(ZEROS.as_ptr(), |s| s as *const BodySim as *const f32)
        };
        for (index, inv_mass, sym, m3) in [
            (
                this.pair.body_a,
                &mut this.pair.inv_mass_a,
                &mut this.pair.inv_inertia_a,
                &mut inputs.inertia_a,
            ),
            (
                this.pair.body_b,
                &mut this.pair.inv_mass_b,
                &mut this.pair.inv_inertia_b,
                &mut inputs.inertia_b,
            ),
        ] {
            let rows = index.map(sim);
            // SAFETY: as `head`'s: a body's inverse mass to its inertia's seventh entry, or
            // `ZEROS`.
            let first = unsafe { columns(rows) };
            // SAFETY: two floats on, still inside the body (or `ZEROS`).
            let second = unsafe { columns(rows.map(|p| p.add(2))) };
            let e = [
                first[1], first[2], first[3], first[4], first[5], first[6], first[7], second[6],
                second[7],
            ];
            *inv_mass = first[0];
            *sym = Sym {
                xx: e[0],
                yy: e[4],
                zz: e[8],
                xy: e[3],
                xz: e[6],
                yz: e[7],
            };
            m3.columns = [v3(&e, 0), v3(&e, 3), v3(&e, 6)];
        }
        // A light body holding up a far heavier one acts heavier in this contact
        // (`pair_masses`). Most bundles have no pair beyond the ratio: one test of all eight
        // lanes passes them; a lane that has one is loaded again as `load_lane` loads it.
        let (ia, ib, ratio) = (
            &this.pair.inv_mass_a.0,
            &this.pair.inv_mass_b.0,
            settings.support_ratio,
        );
        let beyond = (0..8).fold(false, |any, l| {
            any | ((ia[l] > ratio * ib[l]) & (ib[l] > 0.0))
                | ((ib[l] > ratio * ia[l]) & (ia[l] > 0.0))
        });
        if beyond {
            for (lane, c) in contact.iter().enumerate() {
                let ((ma, ia), (mb, ib)) =
                    pair_masses(bodies, (c.body_a, c.body_b), &c.normal, settings);
                this.pair.inv_mass_a.0[lane] = ma;
                this.pair.inv_mass_b.0[lane] = mb;
                this.pair.inv_inertia_a.set(lane, &ia);
                this.pair.inv_inertia_b.set(lane, &ib);
                inputs.inertia_a.set(lane, &ia);
                inputs.inertia_b.set(lane, &ib);
            }
        }
        // The points: a missing one reads as zeros.
        for k in 0..WIDE_POINTS {
            let point = |c: &Contact| {
                c.points.get(k).map_or(ZEROS.as_ptr(), |p| {
                    p as *const ContactPointInput as *const f32
                })
            };
            // SAFETY: as `head`'s: a point's anchors to its impulse, or `ZEROS`.
            let p = unsafe { columns(contact.map(point)) };
            (inputs.anchor_a[k], inputs.anchor_b[k]) = (v3(&p, 0), v3(&p, 3));
            inputs.separation[k] = p[6];
            this.points[k].normal_impulse = p[7];
            this.points[k].max_normal_impulse = F::splat(0.0);
            inputs.present[k] = F(contact.map(|c| if k < c.points.len() { 1.0 } else { 0.0 }));
        }
        // Softness by whether a side is static; restitution and rolling flags.
        for lane in 0..8 {
            this.set_softness(lane, settings);
        }
        this.rolling = cold.rolling_resistance.0.iter().any(|&r| r > 0.0);
        cold.rolling_mass = Sym::default();
        cold.rolling_impulse = V3::default();
        if this.rolling {
            for (lane, c) in contact.iter().enumerate() {
                if c.material.rolling_resistance > 0.0 {
                    let ((_, ia), (_, ib)) =
                        pair_masses(bodies, (c.body_a, c.body_b), &c.normal, settings);
                    let mass = (ia + ib).try_inverse().unwrap_or_else(Matrix::zeros);
                    cold.rolling_mass.set(lane, &mass);
                    cold.rolling_impulse.set(lane, &c.rolling_impulse);
                }
            }
        }
    }

    /// Lane `lane`'s contact softness: the static one if a side has no inverse mass (its
    /// masses already loaded).
    #[inline(always)]
    fn set_softness(&mut self, lane: usize, settings: &ContactSettings) {
        let (ma, mb) = (self.pair.inv_mass_a.0[lane], self.pair.inv_mass_b.0[lane]);
        let softness = if ma == 0.0 || mb == 0.0 {
            settings.static_softness
        } else {
            settings.softness
        };
        self.bias_rate.0[lane] = softness.bias_rate;
        self.mass_scale.0[lane] = softness.mass_scale;
        self.impulse_scale.0[lane] = softness.impulse_scale;
    }

    /// Everything the lanes' inputs imply, all lanes at once, as [`ContactFrame::new`] and
    /// [`ContactFrame::point`] compute it one contact at a time: the friction frame and centre,
    /// the tangent block's and twist's masses, and each point's base separation, effective
    /// mass, lever arm and approach speed.
    ///
    /// [`ContactFrame::new`]: crate::contact::ContactFrame::new
    /// [`ContactFrame::point`]: crate::contact::ContactFrame::point
    #[inline(always)]
    fn derive(&mut self, inputs: &Inputs<L>) {
        let (zero, one) = (F::splat(0.0), F::splat(1.0));
        let n = self.normal;
        let (ma, mb) = (self.pair.inv_mass_a, self.pair.inv_mass_b);
        let (ia, ib) = (&inputs.inertia_a, &inputs.inertia_b);
        // The tangents, as `contact::tangents` chooses them.
        let first = F::splat(0.57).select_gt(n.x.abs(), one, zero);
        let axis = V3 {
            x: first,
            y: one - first,
            z: zero,
        };
        let t1 = cross(&n, &axis);
        let length = t1.dot(&t1).sqrt();
        // (An empty lane has no normal: its frame stays zero.)
        let t1 = V3::select_gt(length, zero, &t1.unscale(length), &V3::default());
        self.tangents = [t1, cross(&n, &t1)];
        // The friction centre: points weighted so that far speculative ones hardly count.
        let (mut center_a, mut center_b, mut total) = (V3::default(), V3::default(), zero);
        let reach = F::splat(FRICTION_CENTRE_REACH);
        for k in 0..WIDE_POINTS {
            let weight = (one - inputs.separation[k] / reach).clamp(0.01, 1.0);
            let weight = inputs.present[k].select_gt(zero, weight, zero);
            center_a += inputs.anchor_a[k] * weight;
            center_b += inputs.anchor_b[k] * weight;
            total += weight;
        }
        let divisor = total.select_gt(zero, total, one);
        self.center_a = V3::select_gt(total, zero, &center_a.unscale(divisor), &center_a);
        self.center_b = V3::select_gt(total, zero, &center_b.unscale(divisor), &center_b);
        // The tangent block: K_ij = (m_a + m_b) t_i . t_j + (r_a x t_i) . I_a^-1 (r_a x t_j) + B's.
        let (ca, cb) = (self.center_a, self.center_b);
        let rta = [cross(&ca, &self.tangents[0]), cross(&ca, &self.tangents[1])];
        let rtb = [cross(&cb, &self.tangents[0]), cross(&cb, &self.tangents[1])];
        // (A function, not a closure: a closure is compiled apart, without the caller's AVX2.)
        #[inline(always)]
        fn entry<const L: usize>(
            linear: F<L>,
            (ra_i, ra_j, ia): (&V3<L>, &V3<L>, &M3<L>),
            (rb_i, rb_j, ib): (&V3<L>, &V3<L>, &M3<L>),
        ) -> F<L> {
            linear + ra_i.dot(&ia.mul(ra_j)) + rb_i.dot(&ib.mul(rb_j))
        }
        let k11 = entry(ma + mb, (&rta[0], &rta[0], ia), (&rtb[0], &rtb[0], ib));
        let k12 = entry(zero, (&rta[0], &rta[1], ia), (&rtb[0], &rtb[1], ib));
        let k22 = entry(ma + mb, (&rta[1], &rta[1], ia), (&rtb[1], &rtb[1], ib));
        let det = k11 * k22 - k12 * k12;
        let positive = det.select_gt(zero, det, one);
        self.tangent_mass = [
            det.select_gt(zero, k22 / positive, zero),
            det.select_gt(zero, -k12 / positive, zero),
            det.select_gt(zero, k11 / positive, zero),
        ];
        let twist = n.dot(&ia.add(ib).mul(&n));
        self.twist_mass = twist.select_gt(zero, one / twist.select_gt(zero, twist, one), zero);
        let friction = inputs.friction_impulse;
        self.friction_impulse = [
            friction.dot(&self.tangents[0]),
            friction.dot(&self.tangents[1]),
        ];
        // Each point's normal row, as `PointRow::new` and `ContactFrame::point` make it.
        for k in 0..WIDE_POINTS {
            let present = inputs.present[k];
            let p = &mut self.points[k];
            let (ra, rb) = (inputs.anchor_a[k], inputs.anchor_b[k]);
            let (angular_a, angular_b) = (cross(&ra, &n), cross(&rb, &n));
            let k_n =
                ma + mb + angular_a.dot(&ia.mul(&angular_a)) + angular_b.dot(&ib.mul(&angular_b));
            let mass = k_n.select_gt(zero, one / k_n.select_gt(zero, k_n, one), zero);
            p.normal_mass = present.select_gt(zero, mass, zero);
            (p.angular_a, p.angular_b) = (angular_a, angular_b);
            p.base_separation = inputs.separation[k];
            let lever = ra - ca;
            p.lever_arm = present.select_gt(zero, lever.dot(&lever).sqrt(), zero);
        }
    }

    /// Hands the accumulated impulses back to the contacts they came from, through a pointer,
    /// for workers that unpack their own bundles into one list at once: only this bundle's
    /// contacts are touched (a lane whose index is out of bounds writes nothing).
    ///
    /// # Safety
    /// `contacts` must point to `len` contacts, of which no one else touches this bundle's
    /// meanwhile.
    pub(crate) unsafe fn unpack_into(
        &self,
        cold: &BundleCold<L>,
        contacts: *mut Contact,
        len: usize,
    ) {
        for lane in 0..self.lanes {
            let source = self.source[lane] as usize;
            if source >= len {
                continue;
            }
            // SAFETY: in bounds, and this bundle's alone (the caller's contract).
            let c = unsafe { &mut *contacts.add(source) };
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

    /// Writes the lanes' new velocities back ([`Pair::scatter`]).
    #[inline(always)]
    fn scatter<const AVX2: bool>(&self, bodies: StateView, a: &Lanes<L>, b: &Lanes<L>) {
        self.pair.scatter::<AVX2>(bodies, a, b);
    }

    /// Applies a twist impulse `lambda` about the normal.
    #[inline(always)]
    fn twist<const ISO: bool>(&self, lambda: F<L>, a: &mut Lanes<L>, b: &mut Lanes<L>) {
        let impulse = self.normal * lambda;
        a.w -= self.pair.inv_inertia_a.turn::<ISO>(&impulse);
        b.w += self.pair.inv_inertia_b.turn::<ISO>(&impulse);
    }

    /// Applies normal impulse `lambda` at point `p`: minus to A, plus to B.
    #[inline(always)]
    fn push<const ISO: bool>(
        &self,
        p: &PointLanes<L>,
        lambda: F<L>,
        a: &mut Lanes<L>,
        b: &mut Lanes<L>,
    ) {
        a.v -= self.normal * (lambda * self.pair.inv_mass_a);
        a.w -= self.pair.inv_inertia_a.turn::<ISO>(&(p.angular_a * lambda));
        b.v += self.normal * (lambda * self.pair.inv_mass_b);
        b.w += self.pair.inv_inertia_b.turn::<ISO>(&(p.angular_b * lambda));
    }

    /// The normal relative velocity at point `p`, B's minus A's.
    #[inline(always)]
    fn normal_velocity(&self, p: &PointLanes<L>, a: &Lanes<L>, b: &Lanes<L>) -> F<L> {
        self.normal.dot(&(b.v - a.v)) + p.angular_b.dot(&b.w) - p.angular_a.dot(&a.w)
    }

    /// The relative velocity of anchors `ra`, `rb`, B's minus A's.
    #[inline(always)]
    fn relative_velocity(ra: &V3<L>, rb: &V3<L>, a: &Lanes<L>, b: &Lanes<L>) -> V3<L> {
        (b.v + cross(&b.w, rb)) - (a.v + cross(&a.w, ra))
    }

    /// Applies the accumulated impulses.
    #[inline(always)]
    pub(crate) fn warm_start<const AVX2: bool, const ISO: bool>(
        &self,
        cold: &BundleCold<L>,
        bodies: StateView,
        points: usize,
    ) {
        let mut a = Lanes::gather::<AVX2>(bodies, &self.pair.body_a);
        let mut b = Lanes::gather::<AVX2>(bodies, &self.pair.body_b);
        let [t1, t2] = &self.tangents;
        for p in &self.points[..points] {
            self.push::<ISO>(p, p.normal_impulse, &mut a, &mut b);
        }
        let friction = *t1 * self.friction_impulse[0] + *t2 * self.friction_impulse[1];
        self.pair
            .apply::<ISO>(&self.center_a, &self.center_b, &friction, &mut a, &mut b);
        self.twist::<ISO>(self.twist_impulse, &mut a, &mut b);
        if self.rolling {
            a.w -= self.pair.inv_inertia_a.turn::<ISO>(&cold.rolling_impulse);
            b.w += self.pair.inv_inertia_b.turn::<ISO>(&cold.rolling_impulse);
        }
        self.scatter::<AVX2>(bodies, &a, &b);
    }

    /// One iteration over the points: normal rows (pushing out overlap if `use_bias`), then
    /// friction if `friction` is set.
    #[inline(always)]
    pub(crate) fn solve<const AVX2: bool, const ISO: bool>(
        &mut self,
        cold: &mut BundleCold<L>,
        bodies: StateView,
        settings: &ContactSettings,
        (use_bias, friction): (bool, bool),
        points: usize,
    ) {
        let mut a = Lanes::gather::<AVX2>(bodies, &self.pair.body_a);
        let mut b = Lanes::gather::<AVX2>(bodies, &self.pair.body_b);
        let n = self.normal;
        // The live separation to first order in the bodies' turns since the step began:
        // `n . (q r - r)` is `theta . (r x n)` for a turn `theta` (twice the delta rotation's
        // vector part), so the angular Jacobians serve here too. A body turning fast enough for
        // the second order to matter (a 0.5 m anchor at 5 rad/s errs by 2 mm in a 60 Hz step)
        // is a speculative contact's worry only, and its margin covers it.
        let two = F::splat(2.0);
        let (turn_a, turn_b) = (a.dq.v * two, b.dq.v * two);
        let moved = n.dot(&(b.dp - a.dp));
        let (zero, one) = (F::splat(0.0), F::splat(1.0));
        let inv_h = F::splat(1.0 / settings.h);
        let push = F::splat(-settings.max_push_out_speed);
        for k in 0..points {
            let p = &self.points[k];
            let separation =
                p.base_separation + moved + turn_b.dot(&p.angular_b) - turn_a.dot(&p.angular_a);
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
            let vn = self.normal_velocity(p, &a, &b);
            let old = p.normal_impulse;
            let wanted = old - p.normal_mass * mass_scale * (vn + bias) - impulse_scale * old;
            let total = wanted.max(zero);
            self.push::<ISO>(p, total - old, &mut a, &mut b);
            let q = &mut self.points[k];
            q.normal_impulse = total;
            q.max_normal_impulse = q.max_normal_impulse.max(total);
        }
        if friction {
            self.solve_friction::<ISO>(cold, &mut a, &mut b, points);
        }
        self.scatter::<AVX2>(bodies, &a, &b);
    }

    /// Twist, then the central friction block (as [`crate::contact::ContactConstraint`]'s).
    #[inline(always)]
    fn solve_friction<const ISO: bool>(
        &mut self,
        cold: &mut BundleCold<L>,
        a: &mut Lanes<L>,
        b: &mut Lanes<L>,
        points: usize,
    ) {
        let (mut total, mut moment) = (F::splat(0.0), F::splat(0.0));
        for p in &self.points[..points] {
            total += p.normal_impulse;
            moment += p.lever_arm * p.normal_impulse;
        }
        let limit = self.friction * moment;
        let spin = self.normal.dot(&(b.w - a.w));
        let old = self.twist_impulse;
        self.twist_impulse = (old - self.twist_mass * spin).max(-limit).min(limit);
        self.twist::<ISO>(self.twist_impulse - old, a, b);

        if self.rolling {
            let old = cold.rolling_impulse;
            let wanted = old - cold.rolling_mass.mul(&(b.w - a.w));
            let bound = cold.rolling_resistance * total;
            let length = wanted.dot(&wanted).sqrt();
            let scale = length.select_gt(bound, bound / length, F::splat(1.0));
            cold.rolling_impulse = wanted * scale;
            let delta = cold.rolling_impulse - old;
            a.w -= self.pair.inv_inertia_a.turn::<ISO>(&delta);
            b.w += self.pair.inv_inertia_b.turn::<ISO>(&delta);
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
        self.pair.apply::<ISO>(&ra, &rb, &impulse, a, b);
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
}

/// One pass over `bundles`, with `AVX2` when compiled with it (from
/// [`crate::kernels::Kernels::run`]).
///
/// # Safety
/// `AVX2` only where the CPU has AVX2 (the eight-lane gathers and scatters then use it,
/// [`Lanes::gather`]).
#[inline(always)]
pub(crate) unsafe fn run<const L: usize, const AVX2: bool>(
    bundles: (&mut [Bundle<L>], &mut [BundleCold<L>]),
    bodies: StateView,
    settings: &ContactSettings,
    pass: Pass,
    step: &StepShape,
) {
    let what = (pass, step.points);
    // Every point slot as a constant (the loops over them unrolled), or fewer as a bound.
    match (step.isotropic, step.points == WIDE_POINTS) {
        (true, true) => run_with::<L, AVX2, true, true>(bundles, bodies, settings, what),
        (true, false) => run_with::<L, AVX2, true, false>(bundles, bodies, settings, what),
        (false, true) => run_with::<L, AVX2, false, true>(bundles, bodies, settings, what),
        (false, false) => run_with::<L, AVX2, false, false>(bundles, bodies, settings, what),
    }
}

/// [`run`] with `ISO` decided (see [`isotropic`]), and with `ALL` every point slot.
#[inline(always)]
fn run_with<const L: usize, const AVX2: bool, const ISO: bool, const ALL: bool>(
    (bundles, colds): (&mut [Bundle<L>], &mut [BundleCold<L>]),
    bodies: StateView,
    settings: &ContactSettings,
    (pass, points): (Pass, usize),
) {
    let points = if ALL { WIDE_POINTS } else { points };
    for (bundle, cold) in bundles.iter_mut().zip(colds) {
        match pass {
            Pass::WarmStart => bundle.warm_start::<AVX2, ISO>(cold, bodies, points),
            Pass::Solve { use_bias, friction } => {
                let kind = (use_bias, friction);
                bundle.solve::<AVX2, ISO>(cold, bodies, settings, kind, points)
            }
        }
    }
}

/// What the lane kernels may assume of the whole step, the same for every bundle (so that a
/// lane's bits do not depend on the others of its bundle, nor on the lane count).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepShape {
    /// Every body's inverse inertia is a multiple of the identity ([`isotropic`]).
    pub(crate) isotropic: bool,
    /// The most points any contact of the step has (at most [`WIDE_POINTS`]): the passes
    /// leave the others out. A ball scene's contacts have one point each, and its passes did
    /// four points' work for it; leaving out a point that no lane has is exact but for the
    /// sign of a zero velocity, hence once for the step.
    pub(crate) points: usize,
}

impl StepShape {
    /// What `bodies` and `contacts` make of a step.
    pub(crate) fn of(bodies: &Bodies, contacts: &[Contact]) -> StepShape {
        StepShape {
            isotropic: isotropic(bodies),
            points: contacts
                .iter()
                .map(|c| c.points.len())
                .max()
                .unwrap_or(0)
                .min(WIDE_POINTS),
        }
    }
}

#[cfg(test)]
mod tests;

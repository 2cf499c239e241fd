//! The velocity half of each substep's integration, as the solve's workers run it over their
//! share of the bodies: gravity and applied forces, the implicit gyroscopic term, damping, and
//! the carried warm start (the `pgs` module's documentation says why it is carried).
//!
//! It runs once per substep over every moving body, so it reads what it needs from a compact
//! copy made once a step ([`Integration::build`]): a 32-byte [`Drive`] per body instead of the
//! 136-byte [`BodySim`] (in `boxes`, 4,096 bodies, seven passes a step over half a megabyte
//! each, beside the contacts' bundles in the cache), and the bodies with a gyroscopic term in
//! groups of their own, solved eight at a time in lanes ([`gyroscopic`]): the term is about
//! 150 operations a body, the largest part of integrating a hull.
//!
//! Every body goes through the same operations in the same order as
//! [`BodySim::integrate_velocity`] (which uses the same lane formula with one lane), so the two
//! give the same bits, whatever the number of workers; and those of the code before the lanes
//! (nalgebra's order of operations is kept).

use std::ops::Range;

use crate::body::{BodySim, BodyState, StateView, STATIC};
use crate::parallel::share;
use crate::wide::{cross, F, Q, V3};
use crate::{Quaternion, Real, Vector};

/// A body's linear and angular velocity, padded to a row of eight floats (the AVX2 pass loads
/// eight bodies' rows and transposes them into lanes).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
pub(crate) struct Velocities {
    pub(crate) linear: Vector,
    pub(crate) angular: Vector,
    padding: [Real; 2],
}

/// What a substep's velocity integration reads of one body (see the module's documentation).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
pub(crate) struct Drive {
    linear_acceleration: Vector,
    linear_damping: Real,
    angular_acceleration: Vector,
    angular_damping: Real,
}

/// Eight moving bodies whose gyroscopic term can be non-zero (unequal principal moments), in
/// lanes: their principal moments and frames at the start of the step (unused lanes: a static
/// body with no moments, which the term leaves as it is and nothing writes).
#[derive(Clone, Copy, Debug)]
struct SpinGroup {
    bodies: [u32; 8],
    count: usize,
    inertia: V3<8>,
    frame: Q<8>,
}

/// The step's compact integration data, kept between steps (no allocation once settled).
#[derive(Debug, Default)]
pub(crate) struct Integration {
    drives: Vec<Drive>,
    /// Whether each body is pushed by constraints (kinematic bodies are not, and are not
    /// integrated here: they keep their velocity).
    dynamic: Vec<bool>,
    /// The bodies with a gyroscopic term, eight to a group, each worker's share of the bodies
    /// in groups of its own (`shares`), so that no two workers touch one body.
    groups: Vec<SpinGroup>,
    shares: Vec<Range<usize>>,
}

/// The carried warm start's buffers, a slot per body: each body's velocities as integrated at
/// the start of the last substep, and its carried difference between the passes over a share
/// with spinning bodies; and whether this is the step's first substep (nothing carried).
#[derive(Clone, Copy)]
pub(crate) struct Carry {
    pub(crate) starts: *mut Velocities,
    pub(crate) carried: *mut Velocities,
    pub(crate) first: bool,
}

impl Integration {
    /// Copies what integration reads of `sims`, for `workers` workers taking
    /// [`share`]s of the bodies.
    pub(crate) fn build(&mut self, sims: &[BodySim], workers: usize) {
        self.drives.clear();
        self.dynamic.clear();
        self.groups.clear();
        self.shares.clear();
        for sim in sims {
            self.drives.push(Drive {
                linear_acceleration: sim.linear_acceleration,
                linear_damping: sim.linear_damping,
                angular_acceleration: sim.angular_acceleration,
                angular_damping: sim.angular_damping,
            });
            self.dynamic.push(sim.is_dynamic());
        }
        for worker in 0..workers {
            let first = self.groups.len();
            let mut group = SpinGroup::empty();
            for i in share(sims.len(), worker, workers) {
                let sim = &sims[i];
                if !(sim.is_dynamic() && sim.gyroscopic) {
                    continue;
                }
                let lane = group.count;
                group.bodies[lane] = i as u32;
                group.inertia.set(lane, &sim.principal_inertia);
                group.frame.set(lane, &sim.principal_frame);
                group.count += 1;
                if group.count == 8 {
                    self.groups.push(group);
                    group = SpinGroup::empty();
                }
            }
            if group.count > 0 {
                self.groups.push(group);
            }
            self.shares.push(first..self.groups.len());
        }
    }

    /// Integrates the velocities of worker `worker`'s share of the bodies (as given to
    /// [`Integration::build`]) over a substep of `h`, as [`BodySim::integrate_velocity`]. With
    /// `carry`, the warm start is carried: a body's velocity less its start is what the
    /// contacts did to it since, added back after the integration (not on the first substep,
    /// nor when it is not finite); the starts become the integrated velocities.
    ///
    /// # Safety
    /// `states` and `carry`'s buffers must hold a slot per body of [`Integration::build`]'s
    /// list, and no one else may touch this worker's share of them meanwhile.
    pub(crate) unsafe fn velocities(
        &self,
        states: *mut BodyState,
        (worker, workers): (usize, usize),
        h: Real,
        carry: Option<Carry>,
    ) {
        let range = share(self.drives.len(), worker, workers);
        let groups = &self.groups[self.shares[worker].clone()];
        if groups.is_empty() {
            // One pass, each body integrated and carried at once: eight at a time in lanes
            // where the CPU has AVX2, the rest one by one.
            #[cfg(target_arch = "x86_64")]
            let range = if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (just checked); the rest is the caller's contract.
                let done = unsafe { self.accelerate_eights(states, range.clone(), h, carry) };
                range.start + done..range.end
            } else {
                range
            };
            for i in range {
                // SAFETY: a slot of this worker's share (the caller's contract).
                unsafe {
                    let carried = self.accelerate(states, i, h, carry);
                    self.finish(states, i, h, carry, &carried);
                }
            }
            return;
        }
        // The gyroscopic term comes between the accelerations and the damping: three passes,
        // the carried differences kept in between.
        for i in range.clone() {
            // SAFETY: as above; the carried buffer has a slot per body.
            unsafe {
                let carried = self.accelerate(states, i, h, carry);
                if let Some(carry) = carry {
                    *carry.carried.add(i) = carried;
                }
            }
        }
        // SAFETY: the groups' bodies are this worker's.
        unsafe { spin_all(states, self.drives.len(), groups, h) };
        for i in range {
            // SAFETY: as above.
            unsafe {
                let carried = match carry {
                    Some(carry) => *carry.carried.add(i),
                    None => Velocities::default(),
                };
                self.finish(states, i, h, carry, &carried);
            }
        }
    }

    /// Body `i`'s accelerations applied; what it carries (its velocity less its start, when
    /// carrying), returned.
    ///
    /// # Safety
    /// As [`Integration::velocities`], `i` in the worker's share.
    #[inline(always)]
    unsafe fn accelerate(
        &self,
        states: *mut BodyState,
        i: usize,
        h: Real,
        carry: Option<Carry>,
    ) -> Velocities {
        let mut carried = Velocities::default();
        if !self.dynamic[i] {
            return carried;
        }
        // SAFETY: the caller's contract.
        let state = unsafe { &mut *states.add(i) };
        if let Some(carry) = carry {
            // SAFETY: as `state`.
            let s = unsafe { &*carry.starts.add(i) };
            carried = Velocities {
                linear: state.linear_velocity - s.linear,
                angular: state.angular_velocity - s.angular,
                padding: [0.0; 2],
            };
        }
        let drive = &self.drives[i];
        state.linear_velocity += drive.linear_acceleration * h;
        state.angular_velocity += drive.angular_acceleration * h;
        carried
    }

    /// Body `i`'s damping, and its warm start carried.
    ///
    /// # Safety
    /// As [`Integration::accelerate`].
    #[inline(always)]
    unsafe fn finish(
        &self,
        states: *mut BodyState,
        i: usize,
        h: Real,
        carry: Option<Carry>,
        c: &Velocities,
    ) {
        if !self.dynamic[i] {
            return;
        }
        // SAFETY: the caller's contract.
        let state = unsafe { &mut *states.add(i) };
        let drive = &self.drives[i];
        damp(state, drive.linear_damping, drive.angular_damping, h);
        if let Some(carry) = carry {
            // SAFETY: as `state`.
            let s = unsafe { &mut *carry.starts.add(i) };
            s.linear = state.linear_velocity;
            s.angular = state.angular_velocity;
            let (v, w) = (&c.linear, &c.angular);
            if !carry.first && ((v.x + v.y + v.z) + (w.x + w.y + w.z)).is_finite() {
                state.linear_velocity += c.linear;
                state.angular_velocity += c.angular;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Integration {
    /// [`Integration::accelerate`] and [`Integration::finish`] for the bodies of `range`, eight
    /// at a time from its start: each eight's states, drives and starts are transposed into
    /// lanes, integrated by the same operations in the same order (so the same bits; a damping
    /// of zero divides by exactly one, which changes nothing), and written back for the
    /// dynamic ones. Returns how many bodies it did (a multiple of eight): the rest are the
    /// caller's. In `pyramid` (every body a cube, nothing gyroscopic) the one-by-one pass was
    /// ~88 instructions a body and substep.
    ///
    /// # Safety
    /// The CPU must have AVX2; otherwise as [`Integration::velocities`].
    #[target_feature(enable = "avx2")]
    unsafe fn accelerate_eights(
        &self,
        states: *mut BodyState,
        range: Range<usize>,
        h: Real,
        carry: Option<Carry>,
    ) -> usize {
        use crate::transpose::transpose;
        use std::arch::x86_64::*;
        let eights = range.len() / 8;
        let (hh, one) = (_mm256_set1_ps(h), _mm256_set1_ps(1.0));
        for e in 0..eights {
            let first = range.start + 8 * e;
            let mut write = 0u32;
            for (lane, &dynamic) in self.dynamic[first..first + 8].iter().enumerate() {
                write |= u32::from(dynamic) << lane;
            }
            if write == 0 {
                continue;
            }
            // SAFETY: slots `first..first + 8` are this worker's (the caller's contract); a
            // state's first eight floats are its velocities and two of its shift (64-byte
            // aligned), a drive and a start are rows of eight floats (`repr(C)`, 32-byte
            // aligned).
            unsafe {
                let state = |k: usize| states.add(first + k) as *mut f32;
                let drive = |k: usize| &self.drives[first + k] as *const Drive as *const f32;
                // Lanes: v.x v.y v.z w.x w.y w.z dp.x dp.y of the eight states.
                let mut s = transpose(std::array::from_fn(|k| _mm256_load_ps(state(k))));
                // a.x a.y a.z linear damping, b.x b.y b.z angular damping.
                let d = transpose(std::array::from_fn(|k| _mm256_load_ps(drive(k))));
                let mut carried = [_mm256_setzero_ps(); 6];
                if let Some(carry) = carry {
                    let start = |k: usize| carry.starts.add(first + k) as *const f32;
                    let t = transpose(std::array::from_fn(|k| _mm256_load_ps(start(k))));
                    carried = std::array::from_fn(|c| _mm256_sub_ps(s[c], t[c]));
                }
                // `v += a h`, then `damp`: `v / (1 + h c)`, which is `v` itself for `c` zero.
                let (linear, angular) = (
                    _mm256_add_ps(one, _mm256_mul_ps(hh, d[3])),
                    _mm256_add_ps(one, _mm256_mul_ps(hh, d[7])),
                );
                for c in 0..3 {
                    let v = _mm256_add_ps(s[c], _mm256_mul_ps(d[c], hh));
                    s[c] = _mm256_div_ps(v, linear);
                    let w = _mm256_add_ps(s[3 + c], _mm256_mul_ps(d[4 + c], hh));
                    s[3 + c] = _mm256_div_ps(w, angular);
                }
                if let Some(carry) = carry {
                    let zero = _mm256_setzero_ps();
                    let starts = transpose([s[0], s[1], s[2], s[3], s[4], s[5], zero, zero]);
                    for (lane, row) in starts.iter().enumerate() {
                        if write & (1 << lane) != 0 {
                            let at = carry.starts.add(first + lane) as *mut f32;
                            _mm256_store_ps(at, *row);
                        }
                    }
                    if !carry.first {
                        // Added lane by lane where the carried sum is finite (`sum - sum` is zero
                        // then, NaN otherwise); elsewhere left as it was (not plus zero, which
                        // would turn a -0 into +0).
                        let c = &carried;
                        let sum = _mm256_add_ps(
                            _mm256_add_ps(_mm256_add_ps(c[0], c[1]), c[2]),
                            _mm256_add_ps(_mm256_add_ps(c[3], c[4]), c[5]),
                        );
                        let finite = _mm256_cmp_ps::<_CMP_EQ_OQ>(_mm256_sub_ps(sum, sum), zero);
                        for k in 0..6 {
                            s[k] = _mm256_blendv_ps(s[k], _mm256_add_ps(s[k], c[k]), finite);
                        }
                    }
                }
                for (lane, row) in transpose(s).iter().enumerate() {
                    if write & (1 << lane) != 0 {
                        _mm256_store_ps(state(lane), *row);
                    }
                }
            }
        }
        8 * eights
    }
}

/// [`BodyState::integrate_position`] for the states of `range`, eight at a time from its
/// start: each eight's states transposed into lanes, their shifts and turns integrated by the
/// same operations in the same order (nalgebra's Hamilton product and normalisation, term by
/// term), and transposed back. Returns how many states it did (a multiple of eight): the rest
/// are the caller's. One by one it was ~54 instructions a body and substep in `pyramid`.
///
/// # Safety
/// The CPU must have AVX2; `states` must hold the slots of `range`, which no one else touches
/// meanwhile.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn positions_eights(
    states: *mut BodyState,
    range: Range<usize>,
    h: Real,
) -> usize {
    use crate::transpose::transpose;
    use std::arch::x86_64::*;
    let eights = range.len() / 8;
    let (hh, half_h, zero) = (
        _mm256_set1_ps(h),
        _mm256_set1_ps(0.5 * h),
        _mm256_setzero_ps(),
    );
    let (add, sub, mul) = (_mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps);
    for e in 0..eights {
        let first = range.start + 8 * e;
        // SAFETY: the caller's contract; a state is two aligned rows of eight floats.
        unsafe {
            let row = |k: usize, half: usize| (states.add(first + k) as *mut f32).add(8 * half);
            // Lanes: v.x v.y v.z w.x w.y w.z dp.x dp.y, and dp.z q.i q.j q.k q.w and padding.
            let mut low = transpose(std::array::from_fn(|k| _mm256_load_ps(row(k, 0))));
            let mut high = transpose(std::array::from_fn(|k| _mm256_load_ps(row(k, 1))));
            low[6] = add(low[6], mul(low[0], hh));
            low[7] = add(low[7], mul(low[1], hh));
            high[0] = add(high[0], mul(low[2], hh));
            // `spin q` with `spin = (0; w h / 2)`, then `q + spin q`, normalised.
            let (sx, sy, sz, sw) = (
                mul(low[3], half_h),
                mul(low[4], half_h),
                mul(low[5], half_h),
                zero,
            );
            let (qx, qy, qz, qw) = (high[1], high[2], high[3], high[4]);
            let pw = sub(sub(sub(mul(sw, qw), mul(sx, qx)), mul(sy, qy)), mul(sz, qz));
            let px = sub(add(add(mul(sw, qx), mul(sx, qw)), mul(sy, qz)), mul(sz, qy));
            let py = add(add(sub(mul(sw, qy), mul(sx, qz)), mul(sy, qw)), mul(sz, qx));
            let pz = add(sub(add(mul(sw, qz), mul(sx, qy)), mul(sy, qx)), mul(sz, qw));
            let d = [add(qx, px), add(qy, py), add(qz, pz), add(qw, pw)];
            // nalgebra's four-term dot: (i i + k k) + (j j + w w).
            let square = |k: usize| mul(d[k], d[k]);
            let squares = add(add(square(0), square(2)), add(square(1), square(3)));
            let norm = _mm256_sqrt_ps(squares);
            for k in 0..4 {
                high[1 + k] = _mm256_div_ps(d[k], norm);
            }
            for (k, rows) in [transpose(low), transpose(high)].iter().enumerate() {
                for (lane, r) in rows.iter().enumerate() {
                    _mm256_store_ps(row(lane, k), *r);
                }
            }
        }
    }
    8 * eights
}

impl SpinGroup {
    fn empty() -> SpinGroup {
        SpinGroup {
            bodies: [STATIC; 8],
            count: 0,
            inertia: V3::default(),
            frame: Q::default(),
        }
    }
}

/// Damping as an implicit decay, stable for any rate: `v / (1 + h c)`.
#[inline(always)]
pub(crate) fn damp(state: &mut BodyState, linear: Real, angular: Real, h: Real) {
    if linear != 0.0 {
        state.linear_velocity /= 1.0 + h * linear;
    }
    if angular != 0.0 {
        state.angular_velocity /= 1.0 + h * angular;
    }
}

/// The gyroscopic term of `groups`' bodies (of `len` states): with AVX2 where the CPU has it
/// (the states gathered and scattered by transposes, as the contact kernel's), else lane by
/// lane. The same operations on every path, so the same bits.
///
/// # Safety
/// Each group's bodies must have slots in `states` that no one else touches meanwhile.
unsafe fn spin_all(states: *mut BodyState, len: usize, groups: &[SpinGroup], h: Real) {
    // SAFETY: the caller's contract; the view is used for these bodies alone.
    let view = unsafe { StateView::from_raw(states, len) };
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(view: StateView, groups: &[SpinGroup], h: Real) {
            for group in groups {
                // SAFETY: AVX2, and the caller's contract.
                unsafe {
                    let (v, w, _, turn) = crate::transpose::gather(view, &group.bodies);
                    let (out, correction) =
                        gyroscopic(&turn.mul(&group.frame), &w, &group.inertia, h);
                    let write = (1u32 << group.count) - 1;
                    crate::transpose::scatter(view, &group.bodies, write, &v, &out);
                    set_rotations(view, group, &correction.mul(&turn));
                }
            }
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (just checked); the rest is the caller's contract.
            return unsafe { avx2(view, groups, h) };
        }
    }
    spin_lanewise(view, groups, h);
}

/// [`spin_all`] without AVX2: each lane gathered and scattered on its own.
fn spin_lanewise(view: StateView, groups: &[SpinGroup], h: Real) {
    for group in groups {
        let (mut w, mut turn) = (V3::<8>::default(), Q::<8>::default());
        for lane in 0..group.count {
            let state = view.get(group.bodies[lane]);
            w.set(lane, &state.angular_velocity);
            turn.set(lane, &state.delta_rotation);
        }
        let (out, correction) = gyroscopic(&turn.mul(&group.frame), &w, &group.inertia, h);
        for lane in 0..group.count {
            let state = view.get(group.bodies[lane]);
            view.set_velocity(group.bodies[lane], state.linear_velocity, out.get(lane));
        }
        set_rotations(view, group, &correction.mul(&turn));
    }
}

/// Each of `group`'s bodies' motion's rotation set to its lane of `turns`.
#[inline(always)]
fn set_rotations(view: StateView, group: &SpinGroup, turns: &Q<8>) {
    for lane in 0..group.count {
        view.set_rotation(group.bodies[lane], turns.get(lane));
    }
}

/// A torque-free turn over a substep of `h` that keeps the body's angular momentum and its
/// kinetic energy, in the principal frame `frame` (world from principal axes) with principal
/// moments `inertia`: the body's new angular velocity, and a turn to compose before its
/// rotation ([`BodyState::delta_rotation`]) so that the position half, which turns the body
/// by its new velocity, turns it by the substep's mean velocity instead.
///
/// Euler's equation in the body frame, `I w' + w x I w = 0`, by the implicit midpoint rule:
/// `L2 = L1 + h Lm x I^-1 Lm`, `Lm = (L1 + L2) / 2`. The rule keeps every quadratic invariant
/// of the flow, so both `|L|` and `L . I^-1 L / 2` exactly; and `L2` is exactly `L1` turned
/// back by the Cayley rotation of `h I^-1 Lm`, the turn the position half makes when given
/// that velocity (`q + h/2 (0, w) q`, normalised), so the world's `L` is kept too. A body
/// turned by its end velocity instead (the backward Euler step, Catto's "Numerical Methods",
/// GDC 2015) keeps neither: a 1 x 2 x 3 m box spun at 5 rad/s about its intermediate axis
/// drifted 0.8% in L and 1.6% in energy over 10 s at 1/60 s (a model of that step). The
/// midpoint `wm = I^-1 Lm` solves `I (wm - w1) + h/2 wm x I wm = 0`, the backward Euler step
/// over half the substep: two Newton steps from `w1` (each by cofactors, below),
/// then `w2 = 2 wm - w1`.
///
/// In the principal frame the Jacobian `I + k ([x]x I - [I x]x)` of that equation (`k = h/2`)
/// and its curvature share three numbers, `a = k (I_z - I_y)`, `b = k (I_x - I_z)`,
/// `c = k (I_y - I_x)`: the Jacobian is `[[I_x, a x_z, a x_y], [b x_z, I_y, b x_x],
/// [c x_y, c x_x, I_z]]` and `k x x I x` is `(a x_y x_z, b x_z x_x, c x_x x_y)`; each step is
/// solved by cofactors (about a fifth of the work of forming the matrices and inverting the
/// general 3 x 3).
///
/// Where the two steps have not converged (a turn of a radian or more a substep), the body
/// takes the half step's velocity and turns by its end velocity as any body: dissipative and
/// stable. Neither path gains energy (a rounding up is scaled away). A lane with a moment
/// that is not positive, or a singular Jacobian, keeps its `w` and its turn.
#[inline(always)]
pub(crate) fn gyroscopic<const L: usize>(
    frame: &Q<L>,
    w: &V3<L>,
    inertia: &V3<L>,
    h: Real,
) -> (V3<L>, Q<L>) {
    let zero = F::splat(0.0);
    let one = F::splat(1.0);
    let half = F::splat(0.5 * h);
    // The frame as a matrix over its squared length ([`Rot`]): the frame is a product of unit
    // quaternions, so of a length off by roundings, and turned by as unit it scales the
    // vector by its length squared; renormalised, its roundings lengthen it on average.
    // Either way the turns into the body and back out gained 0.1% of the energy over 10 s.
    let r = Rot::of(frame);
    let w1 = r.transposed_times(w);
    let (x, det1) = midpoint_newton(&w1, &w1, inertia, half);
    let (x, det2) = midpoint_newton(&x, &w1, inertia, half);
    // The residual left, against the momentum's size.
    let iw1 = inertia_times(inertia, &w1);
    let ix = inertia_times(inertia, &x);
    let residual = (ix - iw1) + cross(&x, &ix).scale(half);
    let converged =
        F::splat(MIDPOINT_TOLERANCE * MIDPOINT_TOLERANCE) * iw1.dot(&iw1) - residual.dot(&residual);
    // The midpoint's end velocity, or the half step's where it has not converged.
    let end = V3::select_gt(converged, zero, &(x.scale(F::splat(2.0)) - w1), &x);
    // Never more energy than the body came in with.
    let (e1, e2) = (w1.dot(&iw1), end.dot(&inertia_times(inertia, &end)));
    let end = end.scale(e2.select_gt(e1, (e1 / e2).sqrt(), one));
    // The mean velocity's turn (world), and the end velocity in the world after it (where
    // the midpoint has not converged, the body turns by its end velocity as any body).
    let (mean_turn, mean_length) = cayley(&r.times(&x), half);
    let in_world = r.times(&end);
    let out = V3::select_gt(converged, zero, &mean_turn.turn_any(&in_world), &in_world);
    // What the position half will turn by (the end velocity's turn), taken back; of unit
    // length (the position half renormalises what it makes of it, but the solve between
    // turns anchors by it).
    let (end_turn, end_length) = cayley(&out, half);
    let correction = end_turn.conjugate().mul(&mean_turn);
    let scale = (end_length * mean_length).sqrt();
    let correction = Q {
        w: correction.w / scale,
        v: correction.v.unscale(scale),
    };
    let identity = Q {
        w: one,
        v: V3::default(),
    };
    // Usable: positive moments, both determinants non-zero and finite (NaN fails both).
    let size = det1.abs().min(det2.abs());
    let usable = F::splat(Real::INFINITY).select_gt(size, size, zero);
    let usable = inertia
        .x
        .min(inertia.y)
        .min(inertia.z)
        .select_gt(zero, usable, zero);
    let turn = usable.select_gt(zero, converged.select_gt(zero, one, zero), zero);
    (
        V3::select_gt(usable, zero, &out, w),
        Q::select_gt(turn, zero, &correction, &identity),
    )
}

/// How close the midpoint's two Newton steps must come (the residual over `|I w1|`) for its
/// turn to be taken: well under the rounding of a step at a twentieth of a radian a substep,
/// and far above f32's own rounding.
const MIDPOINT_TOLERANCE: Real = 1.0e-4;

/// One Newton step from `x` on `I (x - w1) + k x x I x = 0` (principal frame), by cofactors
/// (see [`gyroscopic`]); the next iterate and the Jacobian's determinant.
#[inline(always)]
fn midpoint_newton<const L: usize>(
    x: &V3<L>,
    w1: &V3<L>,
    inertia: &V3<L>,
    k: F<L>,
) -> (V3<L>, F<L>) {
    let (ix, iy, iz) = (inertia.x, inertia.y, inertia.z);
    let (wx, wy, wz) = (x.x, x.y, x.z);
    let (a, b, c) = (k * (iz - iy), k * (ix - iz), k * (iy - ix));
    let f = V3 {
        x: ix * (wx - w1.x) + a * wy * wz,
        y: iy * (wy - w1.y) + b * wz * wx,
        z: iz * (wz - w1.z) + c * wx * wy,
    };
    // The Jacobian's cofactors, row by row (its adjugate's columns).
    let (j01, j02) = (a * wz, a * wy);
    let (j10, j12) = (b * wz, b * wx);
    let (j20, j21) = (c * wy, c * wx);
    let c00 = iy * iz - j12 * j21;
    let c01 = j12 * j20 - j10 * iz;
    let c02 = j10 * j21 - iy * j20;
    let det = ix * c00 + j01 * c01 + j02 * c02;
    let c10 = j02 * j21 - j01 * iz;
    let c11 = ix * iz - j02 * j20;
    let c12 = j01 * j20 - ix * j21;
    let c20 = j01 * j12 - j02 * iy;
    let c21 = j02 * j10 - ix * j12;
    let c22 = ix * iy - j01 * j10;
    // J^-1 f = adj(J) f / det, adj(J) being the cofactors transposed.
    let step = V3 {
        x: c00 * f.x + c10 * f.y + c20 * f.z,
        y: c01 * f.x + c11 * f.y + c21 * f.z,
        z: c02 * f.x + c12 * f.y + c22 * f.z,
    }
    .scale(F::splat(1.0) / det);
    (*x - step, det)
}

/// The rotation of a quaternion of any non-zero length as a matrix (`q u q* / |q|^2`), rows
/// of lanes: formed once, it turns three vectors for less than three sandwiches.
struct Rot<const L: usize> {
    rows: [V3<L>; 3],
}

impl<const L: usize> Rot<L> {
    #[inline(always)]
    fn of(q: &Q<L>) -> Rot<L> {
        let (w, x, y, z) = (q.w, q.v.x, q.v.y, q.v.z);
        let (ww, xx, yy, zz) = (w * w, x * x, y * y, z * z);
        let over = F::splat(1.0) / (ww + xx + yy + zz);
        let two = F::splat(2.0) * over;
        let (xy, xz, yz, wx, wy, wz) = (x * y, x * z, y * z, w * x, w * y, w * z);
        Rot {
            rows: [
                V3 {
                    x: (ww + xx - yy - zz) * over,
                    y: (xy - wz) * two,
                    z: (xz + wy) * two,
                },
                V3 {
                    x: (xy + wz) * two,
                    y: (ww - xx + yy - zz) * over,
                    z: (yz - wx) * two,
                },
                V3 {
                    x: (xz - wy) * two,
                    y: (yz + wx) * two,
                    z: (ww - xx - yy + zz) * over,
                },
            ],
        }
    }

    /// `R u`.
    #[inline(always)]
    fn times(&self, u: &V3<L>) -> V3<L> {
        V3 {
            x: self.rows[0].dot(u),
            y: self.rows[1].dot(u),
            z: self.rows[2].dot(u),
        }
    }

    /// `R^T u`.
    #[inline(always)]
    fn transposed_times(&self, u: &V3<L>) -> V3<L> {
        let [a, b, c] = &self.rows;
        a.scale(u.x) + b.scale(u.y) + c.scale(u.z)
    }
}

/// `I x` for principal moments `inertia`.
#[inline(always)]
fn inertia_times<const L: usize>(inertia: &V3<L>, x: &V3<L>) -> V3<L> {
    V3 {
        x: inertia.x * x.x,
        y: inertia.y * x.y,
        z: inertia.z * x.z,
    }
}

/// The turn the position half makes at angular velocity `w` over a substep of `2 half`,
/// `(1, half w)` (the Cayley rotation of `2 half w`) unnormalised, and its squared length.
#[inline(always)]
fn cayley<const L: usize>(w: &V3<L>, half: F<L>) -> (Q<L>, F<L>) {
    let v = w.scale(half);
    let one = F::splat(1.0);
    (Q { w: one, v }, one + v.dot(&v))
}

/// [`gyroscopic`] of one body (the same operations, so the same bits as in lanes).
pub(crate) fn gyroscopic_one(
    frame: &Quaternion,
    w: &Vector,
    inertia: &Vector,
    h: Real,
) -> (Vector, Quaternion) {
    let mut lanes = (Q::<1>::default(), V3::<1>::default(), V3::<1>::default());
    lanes.0.set(0, frame);
    lanes.1.set(0, w);
    lanes.2.set(0, inertia);
    let (w, turn) = gyroscopic(&lanes.0, &lanes.1, &lanes.2, h);
    (w.get(0), turn.get(0))
}

/// `turn * frame` of one body, as [`Integration::velocities`] forms it in lanes.
pub(crate) fn compose_one(turn: &Quaternion, frame: &Quaternion) -> Quaternion {
    let (mut a, mut b) = (Q::<1>::default(), Q::<1>::default());
    a.set(0, turn);
    b.set(0, frame);
    a.mul(&b).get(0)
}

/// (Used by [`compose_one`] and the lanes: nothing else needs a quaternion product in lanes.)
impl<const L: usize> Q<L> {
    /// Lane `lane` set to `q`.
    #[inline(always)]
    fn set(&mut self, lane: usize, q: &Quaternion) {
        self.w.0[lane] = q.w;
        self.v.set(lane, &q.imag());
    }

    /// Lane `lane`, as a unit quaternion (not renormalised).
    #[inline(always)]
    fn get(&self, lane: usize) -> Quaternion {
        let v = self.v.get(lane);
        Quaternion::new_unchecked(nalgebra::Quaternion::new(self.w.0[lane], v.x, v.y, v.z))
    }

    /// The Hamilton product `self o`, term by term in nalgebra's order (so that the lanes
    /// give the bits the scalar integration gave before them).
    #[inline(always)]
    fn mul(&self, o: &Q<L>) -> Q<L> {
        let (a, b) = (self, o);
        Q {
            w: a.w * b.w - a.v.x * b.v.x - a.v.y * b.v.y - a.v.z * b.v.z,
            v: V3 {
                x: a.w * b.v.x + a.v.x * b.w + a.v.y * b.v.z - a.v.z * b.v.y,
                y: a.w * b.v.y - a.v.x * b.v.z + a.v.y * b.w + a.v.z * b.v.x,
                z: a.w * b.v.z + a.v.x * b.v.y - a.v.y * b.v.x + a.v.z * b.w,
            },
        }
    }

    /// `u` turned by the rotation of a quaternion of any non-zero length:
    /// `q u q* / |q|^2 = ((w^2 - v.v) u + 2 (v.u) v + 2 w (v x u)) / (w^2 + v.v)`.
    #[inline(always)]
    fn turn_any(&self, u: &V3<L>) -> V3<L> {
        let (w, v) = (self.w, &self.v);
        let vv = v.dot(v);
        let two = F::splat(2.0);
        let over = F::splat(1.0) / (w * w + vv);
        (u.scale(w * w - vv) + v.scale(two * v.dot(u)) + cross(v, u).scale(two * w)).scale(over)
    }

    /// Lane by lane: `a` where `when > rhs`, else `b`.
    #[inline(always)]
    fn select_gt(when: F<L>, rhs: F<L>, a: &Q<L>, b: &Q<L>) -> Q<L> {
        Q {
            w: when.select_gt(rhs, a.w, b.w),
            v: V3::select_gt(when, rhs, &a.v, &b.v),
        }
    }

    /// The inverse rotation of a unit quaternion.
    #[inline(always)]
    fn conjugate(&self) -> Q<L> {
        Q {
            w: self.w,
            v: V3 {
                x: -self.v.x,
                y: -self.v.y,
                z: -self.v.z,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Lcg;

    /// Random bodies, a third kinematic, a half with unequal moments, turned and spinning.
    fn bodies(rng: &mut Lcg, n: usize) -> (Vec<BodyState>, Vec<BodySim>) {
        let mut states = Vec::new();
        let mut sims = Vec::new();
        for i in 0..n {
            let mut state = BodyState::moving(rng.vector() * 3.0, rng.vector() * 20.0);
            state.delta_rotation = Quaternion::from_scaled_axis(rng.vector() * 0.3);
            let mut sim = BodySim::with_mass(
                if i % 3 == 0 { 0.0 } else { 1.0 },
                crate::Matrix::identity(),
            );
            sim.linear_acceleration = rng.vector() * 10.0;
            sim.angular_acceleration = rng.vector();
            sim.linear_damping = if i % 4 == 0 { 0.5 } else { 0.0 };
            sim.angular_damping = if i % 5 == 0 { 0.3 } else { 0.0 };
            if i % 2 == 0 {
                sim.gyroscopic = true;
                sim.principal_inertia = Vector::new(0.1, 0.2, 0.15) + rng.vector() * 0.05;
                sim.principal_frame = Quaternion::from_scaled_axis(rng.vector() * 3.0);
            }
            states.push(state);
            sims.push(sim);
        }
        (states, sims)
    }

    /// Chunks, lanes and shares give, body by body, the bits of the one-body integration.
    #[test]
    fn lanes_give_the_bits_of_one_body_at_a_time() {
        let mut rng = Lcg(11);
        let (states, sims) = bodies(&mut rng, 300);
        let h = 1.0 / 420.0;
        let mut one = states.clone();
        for (state, sim) in one.iter_mut().zip(&sims) {
            sim.integrate_velocity(state, h);
        }
        let mut integration = Integration::default();
        for workers in [1, 2, 3] {
            integration.build(&sims, workers);
            let mut many = states.clone();
            for worker in 0..workers {
                // SAFETY: a slot per body, one share at a time.
                unsafe { integration.velocities(many.as_mut_ptr(), (worker, workers), h, None) };
            }
            for (a, b) in one.iter().zip(&many) {
                assert_eq!(a.linear_velocity, b.linear_velocity);
                assert_eq!(a.angular_velocity, b.angular_velocity);
            }
        }
        // The path without AVX2 too (the one above is the CPU's), group by group.
        integration.build(&sims, 1);
        let mut lanewise = states.clone();
        for (state, sim) in lanewise.iter_mut().zip(&sims) {
            if sim.is_dynamic() {
                state.linear_velocity += sim.linear_acceleration * h;
                state.angular_velocity += sim.angular_acceleration * h;
            }
        }
        let len = lanewise.len();
        // SAFETY: a slot per body, nothing else touching them.
        let view = unsafe { StateView::from_raw(lanewise.as_mut_ptr(), len) };
        spin_lanewise(view, &integration.groups, h);
        for (state, sim) in lanewise.iter_mut().zip(&sims) {
            if sim.is_dynamic() {
                damp(state, sim.linear_damping, sim.angular_damping, h);
            }
        }
        for (a, b) in one.iter().zip(&lanewise) {
            assert_eq!(a.angular_velocity, b.angular_velocity);
        }
    }

    /// Without gyroscopic bodies, eight bodies at a time in lanes (AVX2, where the CPU has it)
    /// give, bit for bit, the one-by-one pass's velocities and starts: kinematic bodies left
    /// alone, damping of zero and not, the first substep and the next, carried differences
    /// that are not finite (left out), velocities of -0, and a count that is not a multiple
    /// of eight.
    #[test]
    fn eights_in_lanes_give_the_bits_of_one_body_at_a_time() {
        let mut rng = Lcg(13);
        let (mut states, mut sims) = bodies(&mut rng, 203);
        for (i, (state, sim)) in states.iter_mut().zip(&mut sims).enumerate() {
            sim.gyroscopic = false;
            if i % 7 == 0 {
                state.linear_velocity.y = -0.0;
                state.angular_velocity.z = -0.0;
            }
        }
        let h = 1.0 / 420.0;
        let bits = |v: &Vector| v.map(Real::to_bits);
        for first in [true, false] {
            let mut integration = Integration::default();
            integration.build(&sims, 1);
            assert!(integration.groups.is_empty());
            let mut starts: Vec<Velocities> = (0..states.len())
                .map(|i| Velocities {
                    linear: rng.vector(),
                    angular: if i % 11 == 0 {
                        Vector::new(Real::NAN, 0.0, Real::INFINITY)
                    } else {
                        rng.vector()
                    },
                    padding: [0.0; 2],
                })
                .collect();
            let mut carried = starts.clone();
            let (mut one, mut one_starts) = (states.clone(), starts.clone());
            let carry = |starts: &mut Vec<Velocities>, carried: &mut Vec<Velocities>| Carry {
                starts: starts.as_mut_ptr(),
                carried: carried.as_mut_ptr(),
                first,
            };
            for i in 0..one.len() {
                let at = Some(carry(&mut one_starts, &mut carried));
                // SAFETY: a slot per body.
                unsafe {
                    let c = integration.accelerate(one.as_mut_ptr(), i, h, at);
                    integration.finish(one.as_mut_ptr(), i, h, at, &c);
                }
            }
            let at = Some(carry(&mut starts, &mut carried));
            // SAFETY: a slot per body, one worker.
            unsafe { integration.velocities(states.as_mut_ptr(), (0, 1), h, at) };
            for i in 0..one.len() {
                let (a, b) = (&one[i], &states[i]);
                assert_eq!(
                    bits(&a.linear_velocity),
                    bits(&b.linear_velocity),
                    "body {i}"
                );
                assert_eq!(
                    bits(&a.angular_velocity),
                    bits(&b.angular_velocity),
                    "body {i}"
                );
                let (a, b) = (&one_starts[i], &starts[i]);
                assert_eq!(bits(&a.linear), bits(&b.linear), "start {i}");
                assert_eq!(bits(&a.angular), bits(&b.angular), "start {i}");
            }
        }
    }

    /// Eight states at a time in lanes give, bit for bit, each state's own position step:
    /// spinning and still, with components of -0 (where the CPU has AVX2, which the lanes
    /// need; elsewhere there is nothing to compare).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn positions_in_lanes_give_the_bits_of_one_body_at_a_time() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let mut rng = Lcg(14);
        let (mut states, _) = bodies(&mut rng, 83);
        for (i, state) in states.iter_mut().enumerate() {
            if i % 5 == 0 {
                state.angular_velocity = Vector::new(0.0, -0.0, 0.0);
            }
            if i % 7 == 0 {
                state.linear_velocity.x = -0.0;
                state.delta_position = rng.vector();
            }
        }
        let h = 1.0 / 420.0;
        let mut one = states.clone();
        for state in &mut one {
            state.integrate_position(h);
        }
        let mut lanes = states.clone();
        // SAFETY: AVX2 (checked), a slot per state.
        let done = unsafe { positions_eights(lanes.as_mut_ptr(), 0..lanes.len(), h) };
        assert_eq!(done, 80);
        let bits = |s: &BodyState| {
            let q = s.delta_rotation.coords;
            let floats = [s.linear_velocity, s.angular_velocity, s.delta_position];
            (floats.map(|v| v.map(Real::to_bits)), q.map(Real::to_bits))
        };
        for i in 0..done {
            assert_eq!(bits(&one[i]), bits(&lanes[i]), "state {i}");
        }
    }

    /// Carrying adds back what happened since the last start, except on the first substep.
    #[test]
    fn the_carry_adds_back_what_the_contacts_did() {
        let mut rng = Lcg(12);
        let (mut states, sims) = bodies(&mut rng, 100);
        let mut integration = Integration::default();
        integration.build(&sims, 1);
        let h = 1.0 / 420.0;
        let mut starts = vec![Velocities::default(); states.len()];
        let mut carried = starts.clone();
        let mut carry = Carry {
            starts: starts.as_mut_ptr(),
            carried: carried.as_mut_ptr(),
            first: true,
        };
        // SAFETY: a slot per body.
        unsafe { integration.velocities(states.as_mut_ptr(), (0, 1), h, Some(carry)) };
        let kick = Vector::new(0.0, 1.0, 0.0);
        for (state, sim) in states.iter_mut().zip(&sims) {
            if sim.is_dynamic() {
                state.linear_velocity += kick;
            }
        }
        let mut want = states.clone();
        for (state, sim) in want.iter_mut().zip(&sims) {
            // The kick is what contacts did over the substep: integrated with the body, then
            // applied again as the next substep's warm start.
            if sim.is_dynamic() {
                sim.integrate_velocity(state, h);
                state.linear_velocity += kick;
            }
        }
        carry.first = false;
        // SAFETY: as above.
        unsafe { integration.velocities(states.as_mut_ptr(), (0, 1), h, Some(carry)) };
        for (a, b) in states.iter().zip(&want) {
            assert!((a.linear_velocity - b.linear_velocity).norm() < 1e-5);
            assert!((a.angular_velocity - b.angular_velocity).norm() < 1e-5);
        }
    }
}

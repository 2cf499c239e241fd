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

use crate::body::{damp, BodySim, BodyState, StateView, STATIC};
use crate::kernels::Kernels;
use crate::parallel::share;
use crate::rotation::gyroscopic;
use crate::wide::{Q, V3};
use crate::{Real, Vector};

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
        (h, kernels): (Real, Kernels),
        carry: Option<Carry>,
    ) {
        let range = share(self.drives.len(), worker, workers);
        let groups = &self.groups[self.shares[worker].clone()];
        if groups.is_empty() {
            // One pass, each body integrated and carried at once: eight at a time in lanes
            // where the CPU has AVX2, the rest one by one.
            #[cfg(target_arch = "x86_64")]
            let range = if kernels.avx2() {
                // SAFETY: the CPU has AVX2 (`Kernels::avx2`); the rest is the caller's contract.
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
        unsafe { spin_all(states, self.drives.len(), groups, (h, kernels)) };
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

/// The gyroscopic term of `groups`' bodies (of `len` states): with AVX2 where the CPU has it
/// (the states gathered and scattered by transposes, as the contact kernel's), else lane by
/// lane. The same operations on every path, so the same bits.
///
/// # Safety
/// Each group's bodies must have slots in `states` that no one else touches meanwhile.
unsafe fn spin_all(
    states: *mut BodyState,
    len: usize,
    groups: &[SpinGroup],
    (h, kernels): (Real, Kernels),
) {
    // SAFETY: the caller's contract; the view is used for these bodies alone.
    let view = unsafe { StateView::from_raw(states, len) };
    #[cfg(target_arch = "x86_64")]
    {
        /// # Safety
        /// The CPU has AVX2 (the caller checked it).
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
        if kernels.avx2() {
            // SAFETY: the CPU has AVX2 (`Kernels::avx2`); the rest is the caller's contract.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Lcg;
    use crate::Quaternion;

    /// This CPU's kernels at the default width.
    fn kernels() -> Kernels {
        Kernels::new(crate::kernels::SimdWidth::Auto)
    }

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
                unsafe {
                    integration.velocities(
                        many.as_mut_ptr(),
                        (worker, workers),
                        (h, kernels()),
                        None,
                    )
                };
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
            unsafe { integration.velocities(states.as_mut_ptr(), (0, 1), (h, kernels()), at) };
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
        if !kernels().avx2() {
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
        unsafe { integration.velocities(states.as_mut_ptr(), (0, 1), (h, kernels()), Some(carry)) };
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
        unsafe { integration.velocities(states.as_mut_ptr(), (0, 1), (h, kernels()), Some(carry)) };
        for (a, b) in states.iter().zip(&want) {
            assert!((a.linear_velocity - b.linear_velocity).norm() < 1e-5);
            assert!((a.angular_velocity - b.angular_velocity).norm() < 1e-5);
        }
    }
}

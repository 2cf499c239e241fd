//! The wide kernel's gather and scatter for eight lanes with AVX2: each body's 64-byte state
//! is two rows of eight floats, and eight bodies' rows become the lanes of each field by an
//! 8x8 transpose (the usual unpack, shuffle, permute sequence), instead of 104 scalar loads and
//! lane inserts a bundle side. Scatter transposes the velocities back and blends them over the
//! rest of each state. Only data moves, so the results are the bits of the lane-by-lane path
//! ([`crate::bundle`]'s), which the determinism tests hold it to.
//!
//! Callable only from code compiled with AVX2 (the kernel's `#[target_feature]` pass, after
//! run-time detection).

use std::arch::x86_64::*;

use crate::body::{BodyState, StateView};
use crate::wide::{F, Q, V3};

/// What a static body reads as: at rest, never written.
static AT_REST: BodyState = BodyState::STATIC;

/// `r` (eight rows of eight) transposed: lane `i` of output `j` is `r[i][j]` (its own inverse).
///
/// # Safety
/// The CPU has AVX (the caller checked it).
#[inline(always)]
pub(crate) unsafe fn transpose(r: [__m256; 8]) -> [__m256; 8] {
    // SAFETY: register shuffles only, on a CPU with AVX (the caller's contract).
    unsafe {
        let t0 = _mm256_unpacklo_ps(r[0], r[1]);
        let t1 = _mm256_unpackhi_ps(r[0], r[1]);
        let t2 = _mm256_unpacklo_ps(r[2], r[3]);
        let t3 = _mm256_unpackhi_ps(r[2], r[3]);
        let t4 = _mm256_unpacklo_ps(r[4], r[5]);
        let t5 = _mm256_unpackhi_ps(r[4], r[5]);
        let t6 = _mm256_unpacklo_ps(r[6], r[7]);
        let t7 = _mm256_unpackhi_ps(r[6], r[7]);
        let s0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let s1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let s2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let s3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let s4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let s5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let s6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let s7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        [
            _mm256_permute2f128_ps::<0x20>(s0, s4),
            _mm256_permute2f128_ps::<0x20>(s1, s5),
            _mm256_permute2f128_ps::<0x20>(s2, s6),
            _mm256_permute2f128_ps::<0x20>(s3, s7),
            _mm256_permute2f128_ps::<0x31>(s0, s4),
            _mm256_permute2f128_ps::<0x31>(s1, s5),
            _mm256_permute2f128_ps::<0x31>(s2, s6),
            _mm256_permute2f128_ps::<0x31>(s3, s7),
        ]
    }
}

/// Eight floats from each of `rows` (unaligned), turned into eight lanes of each.
///
/// # Safety
/// Each pointer valid for reading eight initialised floats; the CPU must have AVX2, and the
/// caller be compiled with it.
#[inline(always)]
pub(crate) unsafe fn columns(rows: [*const f32; 8]) -> [F<8>; 8] {
    // SAFETY: the caller's contract.
    unsafe { transpose(rows.map(|row| _mm256_loadu_ps(row))).map(lanes) }
}

#[inline(always)]
fn lanes(x: __m256) -> F<8> {
    // SAFETY: both are eight f32s.
    unsafe { std::mem::transmute::<__m256, F<8>>(x) }
}

#[inline(always)]
fn vector(x: F<8>) -> __m256 {
    // SAFETY: both are eight f32s.
    unsafe { std::mem::transmute::<F<8>, __m256>(x) }
}

/// The states of bodies `index` as lanes: `(v, w, dp, dq)`.
///
/// # Safety
/// The CPU must have AVX2, and the caller be compiled with it.
#[inline(always)]
pub(crate) unsafe fn gather(bodies: StateView, index: &[u32; 8]) -> (V3<8>, V3<8>, V3<8>, Q<8>) {
    let rows = |half: usize| -> [__m256; 8] {
        std::array::from_fn(|lane| {
            let state = bodies
                .slot(index[lane])
                .map_or(&AT_REST as *const BodyState, |s| s);
            // SAFETY: a state is 16 initialised floats (its padding is a field), 64-byte
            // aligned; the view's slots are valid for reads while the pass runs.
            unsafe { _mm256_load_ps((state as *const f32).add(8 * half)) }
        })
    };
    // SAFETY: AVX2, as the caller promises.
    let (low, high) = unsafe { (transpose(rows(0)), transpose(rows(1))) };
    // Low row: v.x v.y v.z w.x w.y w.z dp.x dp.y; high: dp.z q.i q.j q.k q.w and padding.
    let v = V3 {
        x: lanes(low[0]),
        y: lanes(low[1]),
        z: lanes(low[2]),
    };
    let w = V3 {
        x: lanes(low[3]),
        y: lanes(low[4]),
        z: lanes(low[5]),
    };
    let dp = V3 {
        x: lanes(low[6]),
        y: lanes(low[7]),
        z: lanes(high[0]),
    };
    let dq = Q {
        w: lanes(high[4]),
        v: V3 {
            x: lanes(high[1]),
            y: lanes(high[2]),
            z: lanes(high[3]),
        },
    };
    (v, w, dp, dq)
}

/// Which lanes may write each side's body, as bit masks: those whose velocity `sum` is finite
/// (`sum - sum == 0` fails only for infinity and NaN) and whose body `moving` (inverse mass
/// above zero).
///
/// # Safety
/// The CPU must have AVX2, and the caller be compiled with it.
#[inline(always)]
pub(crate) unsafe fn write_masks(sum: &F<8>, moving: (&F<8>, &F<8>)) -> (u32, u32) {
    // SAFETY: AVX2, as the caller promises.
    unsafe {
        let (sum, zero) = (vector(*sum), _mm256_setzero_ps());
        let finite = _mm256_cmp_ps::<_CMP_EQ_OQ>(_mm256_sub_ps(sum, sum), zero);
        let mask = |m: &F<8>| {
            let positive = _mm256_cmp_ps::<_CMP_GT_OQ>(vector(*m), zero);
            _mm256_movemask_ps(_mm256_and_ps(finite, positive)) as u32
        };
        (mask(moving.0), mask(moving.1))
    }
}

/// Writes velocities `v`, `w` of each lane whose bit is set in `write` to body `index[lane]`,
/// leaving the rest of its state as it is.
///
/// # Safety
/// The CPU must have AVX2, and the caller be compiled with it; every body written must be one
/// this worker alone touches now (the kernel's colours see to it).
#[inline(always)]
pub(crate) unsafe fn scatter(
    bodies: StateView,
    index: &[u32; 8],
    mut write: u32,
    v: &V3<8>,
    w: &V3<8>,
) {
    let zero = F::<8>::splat(0.0);
    let rows = [v.x, v.y, v.z, w.x, w.y, w.z, zero, zero].map(vector);
    // SAFETY: AVX2, as the caller promises.
    let columns = unsafe { transpose(rows) };
    while write != 0 {
        let lane = write.trailing_zeros() as usize;
        write &= write - 1;
        if let Some(state) = bodies.slot(index[lane]) {
            // SAFETY: an aligned state this worker alone touches; the first six floats are
            // the velocities, the other two (dp.x, dp.y) are written back unchanged.
            unsafe {
                let at = state as *mut f32;
                let kept = _mm256_load_ps(at);
                _mm256_store_ps(at, _mm256_blend_ps::<0b0011_1111>(kept, columns[lane]));
            }
        }
    }
}

//! The broad phase's sorts: floats as integers of the same order, and pair keys sorted by
//! radix.

use parry3d::math::Real;

/// `v` as an integer of the same order (`-0.0` as `+0.0`).
pub(super) fn ordered(v: Real) -> u32 {
    let bits = (v + 0.0).to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}

/// The inverse of [`ordered`].
pub(super) fn from_ordered(o: u32) -> Real {
    Real::from_bits(if o >> 31 == 1 { o & !(1 << 31) } else { !o })
}

/// Fewest pairs for which [`sort_pairs`] sorts by radix in three passes, and twice the fewest
/// in two (below, the standard sort is as fast).
pub(super) const RADIX_PAIRS: usize = 2048;

/// Sorts distinct pair keys (`pair_key` of proxies below `id_bound`) ascending, as
/// `sort_unstable` would (distinct keys have one order). With ids below 2^16 and many pairs, a
/// least-significant-digit radix sort ([`radix_sort`]): two passes of 11 bits while an id fits
/// 11 bits (2,048 proxies), else three; it does a third of the comparison sort's work on
/// `boxes`' 47,000 pairs a step. `scratch` is the second buffer, kept from call to call.
pub(super) fn sort_pairs(keys: &mut Vec<u64>, scratch: &mut Vec<u64>, id_bound: usize) {
    // Bits an id needs (at least one).
    let id_bits = usize::BITS - id_bound.saturating_sub(1).max(1).leading_zeros();
    if id_bits <= RADIX_BITS && keys.len() >= RADIX_PAIRS / 2 {
        radix_sort::<2>(keys, scratch, id_bits);
    } else if id_bits <= 16 && keys.len() >= RADIX_PAIRS {
        radix_sort::<3>(keys, scratch, id_bits);
    } else {
        keys.sort_unstable();
    }
}

/// The bits of a key [`radix_sort`] sorts by in one pass.
pub(super) const RADIX_BITS: u32 = 11;

/// [`sort_pairs`]' radix sort in `PASSES` passes of [`RADIX_BITS`], for keys of ids below
/// `2^id_bits`: each key read as `a << id_bits | b` (the same order), the histograms of every
/// pass counted in one pass over the keys first.
pub(super) fn radix_sort<const PASSES: usize>(
    keys: &mut Vec<u64>,
    scratch: &mut Vec<u64>,
    id_bits: u32,
) {
    const MASK: u64 = (1 << RADIX_BITS) - 1;
    let packed = |k: u64| (k >> 32) << id_bits | (k & 0xFFFF_FFFF);
    let mut counts = [[0u32; 1 << RADIX_BITS]; PASSES];
    for &k in keys.iter() {
        let p = packed(k);
        for (pass, count) in counts.iter_mut().enumerate() {
            count[((p >> (RADIX_BITS * pass as u32)) & MASK) as usize] += 1;
        }
    }
    scratch.clear();
    scratch.resize(keys.len(), 0);
    for (pass, count) in counts.iter_mut().enumerate() {
        // Where each digit's keys start.
        let mut start = 0;
        for c in count.iter_mut() {
            (*c, start) = (start, start + *c);
        }
        let shift = RADIX_BITS * pass as u32;
        for &k in keys.iter() {
            let digit = ((packed(k) >> shift) & MASK) as usize;
            scratch[count[digit] as usize] = k;
            count[digit] += 1;
        }
        std::mem::swap(keys, scratch);
    }
}

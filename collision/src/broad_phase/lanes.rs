//! The lanes of the broad phase's grid: which cells a box covers across the sweep axis, and a
//! proxy's entry in a lane.

use parry3d::bounding_volume::Aabb;
use parry3d::math::Real;

use super::sort::{from_ordered, ordered};

/// The most lanes a proxy may span and still be swept in them. A larger proxy (a ground, a wall)
/// is kept apart and tested directly against the proxies that changed.
pub(super) const MAX_LANES: i64 = 16;

/// A lane's side over the median proxy's larger extent across the lanes. On the kernel bench
/// (8,000 drifting boxes, one run): 1.06 ms at 1, 0.95 ms at 2 (fewer entries per proxy, a
/// few more candidates per search).
pub(super) const LANE_FACTOR: Real = 2.0;

/// The longest a proxy may be along the lanes, in lane sides, and still be in them.
pub(super) const MAX_LENGTH: Real = 4.0;

/// Lane coordinates are clamped to this either way, so that any finite box has lanes (far
/// away, lanes get crowded rather than wrong).
pub(super) const CELL_LIMIT: i32 = 32_767;

/// The sort key of an entry: its lane, then its min along the sweep axis.
pub(super) fn key(lane: u32, min: Real) -> u64 {
    u64::from(lane) << 32 | u64::from(ordered(min))
}

/// The lane cell of coordinate `v`.
pub(super) fn cell(v: Real, size: Real) -> i32 {
    // Rounded down by hand: `floor` is a libm call on the baseline x86-64 target. A NaN stays
    // NaN through the clamp and casts to 0.
    let limit = CELL_LIMIT as Real;
    let t = (v / size).clamp(-limit, limit);
    let i = t as i32;
    if (i as Real) > t {
        i - 1
    } else {
        i
    }
}

/// The code of lane (`y`, `z`); codes sort y-major.
pub(super) fn lane_code(y: i32, z: i32) -> u32 {
    ((y + 32_768) as u32) << 16 | (z + 32_768) as u32
}

/// A box's bounds across the lanes: min y, max y, min z, max z.
pub(super) type Across = [Real; 4];

pub(super) fn across(b: &Aabb) -> Across {
    [b.mins.y, b.maxs.y, b.mins.z, b.maxs.z]
}

/// Whether two boxes overlap across the lanes (closed intervals on y and z).
pub(super) fn overlaps_across(a: &Across, b: &Across) -> bool {
    (a[0] <= b[1]) & (b[0] <= a[1]) & (a[2] <= b[3]) & (b[2] <= a[3])
}

/// One proxy in one lane: the lane and the proxy's min along the sweep axis (x) as a sort key,
/// its max, its index, and its bounds across the lanes (so that a lane is searched without
/// reading anything else).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(super) struct Entry {
    pub(super) key: u64,
    pub(super) max: Real,
    pub(super) proxy: u32,
    pub(super) across: Across,
    /// The code of the proxy's first lane (lowest y and z).
    pub(super) first: u32,
}

impl Entry {
    pub(super) fn new(lane: u32, b: &Aabb, proxy: u32, first: u32) -> Self {
        Entry {
            key: key(lane, b.mins.x),
            max: b.maxs.x,
            proxy,
            across: across(b),
            first,
        }
    }
    pub(super) fn lane(self) -> u32 {
        (self.key >> 32) as u32
    }
    pub(super) fn min(self) -> Real {
        from_ordered(self.key as u32)
    }
    /// The strict order of the entries: key, then proxy.
    pub(super) fn before(self, other: Self) -> bool {
        (self.key, self.proxy) < (other.key, other.proxy)
    }
}

/// The cells a box covers across the lanes: `[first, last]` on y and on z; and whether the box
/// is large: it crosses more than [`MAX_LANES`] lanes, or is longer along the lanes than
/// [`MAX_LENGTH`] lane sides (which would widen every search of its lanes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(super) struct Lanes {
    pub(super) y: [i32; 2],
    pub(super) z: [i32; 2],
    pub(super) large: bool,
}

impl Lanes {
    pub(super) fn of(aabb: &Aabb, size: Real) -> Self {
        let mut lanes = Lanes {
            y: [cell(aabb.mins.y, size), cell(aabb.maxs.y, size)],
            z: [cell(aabb.mins.z, size), cell(aabb.maxs.z, size)],
            large: false,
        };
        let long = aabb.maxs.x - aabb.mins.x > MAX_LENGTH * size;
        lanes.large = long || lanes.count() > MAX_LANES;
        lanes
    }
    pub(super) fn count(self) -> i64 {
        let span = |c: [i32; 2]| i64::from(c[1]) - i64::from(c[0]) + 1;
        span(self.y) * span(self.z)
    }
    pub(super) fn is_large(self) -> bool {
        self.large
    }
    /// The lane codes, in sort order.
    pub(super) fn codes(self) -> impl Iterator<Item = u32> {
        (self.y[0]..=self.y[1])
            .flat_map(move |y| (self.z[0]..=self.z[1]).map(move |z| lane_code(y, z)))
    }
    /// The code of the first lane.
    pub(super) fn first(self) -> u32 {
        lane_code(self.y[0], self.z[0])
    }

    /// The lane in which a pair of overlapping boxes is found, from their first lanes: the one
    /// holding the low corner of their overlap, which both boxes cross (so that each pair is
    /// found in exactly one lane). Lane cells grow with the coordinate, so the corner's cell is
    /// the larger of the two first cells, on y and on z.
    pub(super) fn corner(a: u32, b: u32) -> u32 {
        (a & 0xFFFF_0000).max(b & 0xFFFF_0000) | (a & 0xFFFF).max(b & 0xFFFF)
    }
}

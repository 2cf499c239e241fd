//! The polygon clipper of the manifold stage: two features projected on the contact plane,
//! one clipped against the other (Sutherland-Hodgman against a convex outline, or a segment
//! against a segment), each point keeping the id of the feature it came from.

use parry3d::math::Real;
use smallvec::SmallVec;

use crate::contact::mix;

/// A point being clipped: its plane coordinates and its id.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clip {
    pub x: Real,
    pub y: Real,
    pub id: u32,
}

impl Clip {
    /// A slot not yet written.
    pub const BLANK: Clip = Clip {
        x: 0.0,
        y: 0.0,
        id: 0,
    };
}

/// A small vector of `len` items: those of `items` (at most `len`), then `blank`s. Up to `N`
/// are written in an array that becomes the vector: collecting into a small vector cost ~140
/// instructions a call in the clip, `from_elem` or `resize` and a fill in place ~100 more than
/// this (they write and check a slot at a time). More than `N` are collected.
#[inline(always)]
pub(crate) fn small_vec_of<T: Copy, const N: usize>(
    len: usize,
    blank: T,
    items: impl Iterator<Item = T>,
) -> SmallVec<[T; N]>
where
    [T; N]: smallvec::Array<Item = T>,
{
    if len > N {
        return items.chain(std::iter::repeat(blank)).take(len).collect();
    }
    let mut buf = [blank; N];
    for (slot, item) in buf[..len].iter_mut().zip(items) {
        *slot = item;
    }
    SmallVec::from_buf_and_len(buf, len)
}

/// The index after `i` around a polygon of `len` corners: `(i + 1) % len` without the
/// division (an integer division's latency on every edge of every clip).
#[inline(always)]
fn after(i: usize, len: usize) -> usize {
    if i + 1 >= len {
        0
    } else {
        i + 1
    }
}

/// Sutherland-Hodgman: keeps the part of `points` (a polygon, a segment) inside `outline`.
/// Each point's side of an edge is computed once (it ends one edge of the subject and starts
/// the next), and the two buffers trade places by reference, not by copying their contents.
pub(crate) fn clip_by_polygon(
    points: &mut SmallVec<[Clip; 16]>,
    outline: &[(Real, Real)],
    ids: &[u32],
) {
    // Both buffers have room for every side to add a point (a convex polygon gains at most
    // one a side).
    let room = points.len() + outline.len();
    let mut from: SmallVec<[Clip; 16]> = SmallVec::from_elem(Clip::BLANK, room);
    from[..points.len()].copy_from_slice(points);
    let mut to: SmallVec<[Clip; 16]> = SmallVec::from_elem(Clip::BLANK, room);
    let mut count = points.len();
    let winding = winding(outline);
    for i in 0..outline.len() {
        if count == 0 {
            break;
        }
        let edge = ClipEdge::new(outline, ids, i, winding);
        count = edge.clip(&from[..count], &mut to[..]);
        std::mem::swap(&mut from, &mut to);
    }
    points.clear();
    points.extend_from_slice(&from[..count]);
    let len = merge_coincident(points.as_mut_slice());
    points.truncate(len);
}

/// How many points a clip takes on the stack ([`clip_in_arrays`]): a power of two.
pub(crate) const CLIP_ROOM: usize = 16;

/// [`clip_by_polygon`] in arrays on the stack, `count` points in `from` and `room` (at most
/// [`CLIP_ROOM`]) slots each side may fill; returns how many points are left in `from`. Their
/// indices need no bounds checks (a mask, the arrays being a power of two long): on small
/// vectors, each read and write checked where their items live and each index its bound,
/// a fifth of the clip's own instructions.
#[inline(always)]
pub(crate) fn clip_in_arrays(
    from: &mut [Clip; CLIP_ROOM],
    mut count: usize,
    room: usize,
    outline: &[(Real, Real)],
    ids: &[u32],
) -> usize {
    debug_assert!(count <= room && room <= CLIP_ROOM);
    let mut spare = [Clip::BLANK; CLIP_ROOM];
    let (mut a, mut b) = (from, &mut spare);
    let mut in_spare = false;
    let winding = winding(outline);
    for i in 0..outline.len() {
        if count == 0 {
            break;
        }
        let edge = ClipEdge::new(outline, ids, i, winding);
        count = edge.clip_masked(a, count, b, room);
        std::mem::swap(&mut a, &mut b);
        in_spare = !in_spare;
    }
    if in_spare {
        // (`a` is the spare array now, `b` the caller's.)
        b[..count].copy_from_slice(&a[..count]);
    }
    let (from, _) = if in_spare { (b, a) } else { (a, b) };
    merge_coincident(&mut from[..count])
}

/// The sign of `outline`'s signed area: "inside" is to the left of each edge when it is
/// counter-clockwise (positive).
fn winding(outline: &[(Real, Real)]) -> Real {
    let area: Real = (0..outline.len())
        .map(|i| {
            let (p, q) = (outline[i], outline[after(i, outline.len())]);
            p.0 * q.1 - q.0 * p.1
        })
        .sum();
    if area >= 0.0 {
        1.0
    } else {
        -1.0
    }
}

/// One edge of the outline, `p` to `q`, as the clip uses it.
struct ClipEdge {
    p: (Real, Real),
    /// `q - p`.
    dx: Real,
    dy: Real,
    winding: Real,
    id: u32,
}

impl ClipEdge {
    /// Edge `i` of `outline`, whose [`winding`] is `winding`.
    #[inline(always)]
    fn new(outline: &[(Real, Real)], ids: &[u32], i: usize, winding: Real) -> ClipEdge {
        let (p, q) = (outline[i], outline[after(i, outline.len())]);
        ClipEdge {
            p,
            dx: q.0 - p.0,
            dy: q.1 - p.1,
            winding,
            id: mix(ids[i], ids[after(i, ids.len())]),
        }
    }

    #[inline(always)]
    fn side(&self, c: &Clip) -> Real {
        self.winding * (self.dx * (c.y - self.p.1) - self.dy * (c.x - self.p.0))
    }

    #[inline(always)]
    fn cut(&self, c0: &Clip, c1: &Clip, s0: Real, s1: Real) -> Clip {
        let t = s0 / (s0 - s1);
        Clip {
            x: c0.x + (c1.x - c0.x) * t,
            y: c0.y + (c1.y - c0.y) * t,
            id: mix(self.id, mix(c0.id, c1.id)),
        }
    }

    /// The part of `subject` (a polygon of three points or more, or a segment or point) on
    /// the inner side, written to `to` (points past its end dropped: only rounding could ask
    /// for them); returns how many.
    fn clip(&self, subject: &[Clip], to: &mut [Clip]) -> usize {
        let mut kept = 0;
        self.clip_with(
            subject.len(),
            |j| subject[j],
            |c| {
                if let Some(slot) = to.get_mut(kept) {
                    *slot = c;
                    kept += 1;
                }
            },
        );
        kept
    }

    /// [`ClipEdge::clip`] between arrays of [`CLIP_ROOM`], `count` points in `from` and
    /// `room` slots in `to`: every index masked into the array, so none is checked.
    #[inline(always)]
    fn clip_masked(
        &self,
        from: &[Clip; CLIP_ROOM],
        count: usize,
        to: &mut [Clip; CLIP_ROOM],
        room: usize,
    ) -> usize {
        const MASK: usize = CLIP_ROOM - 1;
        let mut kept = 0;
        self.clip_with(
            count,
            |j| from[j & MASK],
            |c| {
                if kept < room {
                    to[kept & MASK] = c;
                    kept += 1;
                }
            },
        );
        kept
    }

    /// The clip of the `count` (at least one) points `at` gives, each point kept passed to
    /// `keep` in order.
    #[inline(always)]
    fn clip_with(&self, count: usize, at: impl Fn(usize) -> Clip, mut keep: impl FnMut(Clip)) {
        let first = at(0);
        let mut s1 = self.side(&first);
        if count <= 2 {
            // A point, or a segment: its ends are kept when inside, the crossing added.
            if s1 >= 0.0 {
                keep(first);
            }
            if count == 2 {
                let c1 = at(1);
                let s0 = s1;
                s1 = self.side(&c1);
                if (s0 >= 0.0) != (s1 >= 0.0) {
                    keep(self.cut(&first, &c1, s0, s1));
                }
                if s1 >= 0.0 {
                    keep(c1);
                }
            }
            return;
        }
        let mut c0 = first;
        for j in 1..=count {
            let c1 = if j == count { first } else { at(j) };
            let s0 = s1;
            s1 = self.side(&c1);
            if s0 >= 0.0 {
                keep(c0);
            }
            if (s0 >= 0.0) != (s1 >= 0.0) {
                keep(self.cut(&c0, &c1, s0, s1));
            }
            c0 = c1;
        }
    }
}

/// Clipping can leave coincident points (a corner on an edge): keeps one of each, in place,
/// and returns how many are left.
fn merge_coincident(kept: &mut [Clip]) -> usize {
    let (mut i, mut len) = (0, kept.len());
    while i < len && len > 1 {
        let next = after(i, len);
        let (c, d) = (kept[i], kept[next]);
        if (c.x - d.x).abs() <= 1.0e-6 && (c.y - d.y).abs() <= 1.0e-6 {
            kept.copy_within(next + 1..len, next);
            len -= 1;
        } else {
            i += 1;
        }
    }
    len
}

/// Two segments in the plane: parallel ones keep their overlap (two points), crossing ones the
/// crossing point.
pub(crate) fn clip_segment_by_segment(points: &mut SmallVec<[Clip; 16]>, outline: &[(Real, Real)]) {
    if points.len() != 2 {
        return;
    }
    let (p, q) = (outline[0], outline[1]);
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let len2 = dx * dx + dy * dy;
    let (c0, c1) = (points[0], points[1]);
    let (ex, ey) = (c1.x - c0.x, c1.y - c0.y);
    let cross = dx * ey - dy * ex;
    let elen2 = ex * ex + ey * ey;
    if len2 <= 0.0 || elen2 <= 0.0 {
        points.truncate(1);
        return;
    }
    if cross.abs() <= 0.05 * (len2 * elen2).sqrt() {
        // Parallel: clamp the subject's ends to the clipper's extent along its direction.
        let along = |x: Real, y: Real| ((x - p.0) * dx + (y - p.1) * dy) / len2;
        for c in points.iter_mut() {
            let u = along(c.x, c.y);
            if !(0.0..=1.0).contains(&u) {
                let u = u.clamp(0.0, 1.0);
                // Move along the subject's own line to where it meets the clipper's end.
                let (ux0, ux1) = (along(c0.x, c0.y), along(c1.x, c1.y));
                if (ux1 - ux0).abs() > 1.0e-12 {
                    let t = (u - ux0) / (ux1 - ux0);
                    c.x = c0.x + ex * t;
                    c.y = c0.y + ey * t;
                    c.id = mix(c.id, 0xC1 + u as u32);
                }
            }
        }
    } else {
        // Crossing: one point where the lines meet, clamped onto the subject.
        let t = (((p.0 - c0.x) * dy - (p.1 - c0.y) * dx) / (ex * dy - ey * dx)).clamp(0.0, 1.0);
        points[0] = Clip {
            x: c0.x + ex * t,
            y: c0.y + ey * t,
            id: mix(c0.id, c1.id),
        };
        points.truncate(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::uniform;

    /// A convex polygon of `n` corners on a circle about a random centre, counter-clockwise or
    /// (when `clockwise`) the other way, with ids `first..`.
    fn polygon(
        next: &mut impl FnMut() -> Real,
        n: usize,
        clockwise: bool,
        first: u32,
    ) -> (Vec<(Real, Real)>, Vec<u32>) {
        let (cx, cy, r) = (next(), next(), 0.3 + next().abs());
        let mut angles: Vec<Real> = (0..n)
            .map(|_| (next() + 0.5) * std::f32::consts::TAU)
            .collect();
        angles.sort_by(Real::total_cmp);
        if clockwise {
            angles.reverse();
        }
        let corners = angles
            .iter()
            .map(|a| (cx + r * a.cos(), cy + r * a.sin()))
            .collect();
        (corners, (first..first + n as u32).collect())
    }

    /// Whether `(x, y)` lies inside convex `outline` (either winding), within `slack`.
    fn inside(outline: &[(Real, Real)], (x, y): (Real, Real), slack: Real) -> bool {
        let w = winding(outline);
        (0..outline.len()).all(|i| {
            let (p, q) = (outline[i], outline[after(i, outline.len())]);
            let (dx, dy) = (q.0 - p.0, q.1 - p.1);
            w * (dx * (y - p.1) - dy * (x - p.0)) >= -slack * (dx * dx + dy * dy).sqrt()
        })
    }

    #[test]
    fn the_clip_in_arrays_is_the_clip_in_small_vectors() {
        let mut next = uniform(0x5EED_C11F);
        let (mut compared, mut spilled, mut empty) = (0, 0, 0);
        for case in 0..4_000 {
            // Subjects of one and two points too (a vertex, an edge against a face).
            let (na, nb) = (3 + case % 9, 1 + (case / 9) % 11);
            let (outline, ids) = polygon(&mut next, na, case % 2 == 0, 100);
            let (subject, subject_ids) = polygon(&mut next, nb, case % 3 == 0, 0);
            let clips: SmallVec<[Clip; 16]> = subject
                .iter()
                .zip(&subject_ids)
                .map(|(&(x, y), &id)| Clip { x, y, id })
                .collect();
            let mut general = clips.clone();
            clip_by_polygon(&mut general, &outline, &ids);
            for c in &general {
                assert!(inside(&outline, (c.x, c.y), 1e-4), "case {case}");
                assert!(nb < 3 || inside(&subject, (c.x, c.y), 1e-4), "case {case}");
            }
            empty += usize::from(general.is_empty());
            let room = clips.len() + outline.len();
            if room > CLIP_ROOM {
                spilled += 1;
                continue;
            }
            let mut on_stack = [Clip::BLANK; CLIP_ROOM];
            on_stack[..clips.len()].copy_from_slice(&clips);
            let count = clip_in_arrays(&mut on_stack, clips.len(), room, &outline, &ids);
            let bits = |c: &Clip| (c.x.to_bits(), c.y.to_bits(), c.id);
            assert_eq!(
                on_stack[..count].iter().map(bits).collect::<Vec<_>>(),
                general.iter().map(bits).collect::<Vec<_>>(),
                "case {case}"
            );
            compared += 1;
        }
        // Both paths and both outcomes were taken.
        assert!(compared > 2_000 && spilled > 500, "{compared} {spilled}");
        assert!(empty > 100 && empty < 3_000, "{empty}");
    }

    #[test]
    fn a_square_clipped_by_a_square_is_their_overlap() {
        let square = |x0: Real, y0: Real, s: Real| {
            vec![(x0, y0), (x0 + s, y0), (x0 + s, y0 + s), (x0, y0 + s)]
        };
        let outline = square(0.0, 0.0, 1.0);
        let subject = square(0.5, 0.25, 1.0);
        let mut on_stack = [Clip::BLANK; CLIP_ROOM];
        for (i, &(x, y)) in subject.iter().enumerate() {
            on_stack[i] = Clip { x, y, id: i as u32 };
        }
        let count = clip_in_arrays(&mut on_stack, 4, 8, &outline, &[0, 1, 2, 3]);
        let mut got: Vec<(Real, Real)> = on_stack[..count].iter().map(|c| (c.x, c.y)).collect();
        got.sort_by(|p, q| p.partial_cmp(q).unwrap());
        assert_eq!(got, vec![(0.5, 0.25), (0.5, 1.0), (1.0, 0.25), (1.0, 1.0)]);
    }
}

//! The joints solved in lanes, one colour at a time: a colour's point parts
//! ([`super::point_bundle`]) then its length parts ([`super::length`]), compiled for the
//! default instruction set or, for eight lanes on a CPU that has it, with AVX2. Every path
//! does the same IEEE operations, so every lane count gives the same bits.

use std::ops::Range;

use super::length::{self, LengthBundle, LengthRow};
use super::point::PointRow;
use super::point_bundle::{self, PointBundle};
use crate::body::StateView;
use crate::graph::Colouring;

/// What a pass over joint bundles does.
#[derive(Clone, Copy, Debug)]
pub(crate) enum JointPass {
    /// Apply the accumulated impulses.
    WarmStart,
    /// One iteration, biased or not.
    Solve { use_bias: bool },
}

/// One pass over a colour's bundles, compiled for the default instruction set; `isotropic`:
/// whether every body of the step's inverse inertia is a multiple of the identity
/// (`crate::bundle::isotropic`).
pub(crate) fn pass<const L: usize>(
    points: &mut [PointBundle<L>],
    lengths: &mut [LengthBundle<L>],
    bodies: StateView,
    pass: JointPass,
    isotropic: bool,
) {
    run::<L, false>(points, lengths, bodies, pass, isotropic);
}

/// Both kinds of bundle, with the inertia products decided once.
#[inline(always)]
fn run<const L: usize, const AVX2: bool>(
    points: &mut [PointBundle<L>],
    lengths: &mut [LengthBundle<L>],
    bodies: StateView,
    pass: JointPass,
    isotropic: bool,
) {
    if isotropic {
        point_bundle::run::<L, AVX2, true>(points, bodies, pass);
        length::run::<L, AVX2, true>(lengths, bodies, pass);
    } else {
        point_bundle::run::<L, AVX2, false>(points, bodies, pass);
        length::run::<L, AVX2, false>(lengths, bodies, pass);
    }
}

/// One pass over a colour's 8-lane bundles, with AVX2 when the CPU has it; the same operations,
/// so the same bits, as [`pass`].
#[cfg(target_arch = "x86_64")]
pub(crate) fn pass_avx2(
    points: &mut [PointBundle<8>],
    lengths: &mut [LengthBundle<8>],
    bodies: StateView,
    pass: JointPass,
    isotropic: bool,
) {
    #[target_feature(enable = "avx2")]
    unsafe fn avx2(
        points: &mut [PointBundle<8>],
        lengths: &mut [LengthBundle<8>],
        bodies: StateView,
        pass: JointPass,
        isotropic: bool,
    ) {
        run::<8, true>(points, lengths, bodies, pass, isotropic);
    }
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (just checked), which is all `avx2` requires.
        unsafe { avx2(points, lengths, bodies, pass, isotropic) }
    } else {
        run::<8, false>(points, lengths, bodies, pass, isotropic);
    }
}

/// One lane count's bundles of each kind.
#[derive(Debug, Default)]
pub(crate) struct Lists<const L: usize> {
    pub(crate) points: Vec<PointBundle<L>>,
    pub(crate) lengths: Vec<LengthBundle<L>>,
}

impl<const L: usize> Lists<L> {
    /// Packs `indices` (ascending; below `split` a point part, from it a length part at
    /// `index - split`) `L` to a bundle, after the bundles already packed; returns the ranges
    /// of the new ones in each list.
    fn pack(
        &mut self,
        indices: &[u32],
        (points, lengths): (&[PointRow], &[LengthRow]),
        split: u32,
        len: &mut (usize, usize),
    ) -> (Range<usize>, Range<usize>) {
        let cut = indices.partition_point(|&i| i < split);
        let first = *len;
        for chunk in indices[..cut].chunks(L) {
            if len.0 == self.points.len() {
                self.points.push(PointBundle::empty());
            }
            self.points[len.0].prepare(points, chunk, 0);
            len.0 += 1;
        }
        for chunk in indices[cut..].chunks(L) {
            if len.1 == self.lengths.len() {
                self.lengths.push(LengthBundle::empty());
            }
            self.lengths[len.1].prepare(lengths, chunk, split);
            len.1 += 1;
        }
        (first.0..len.0, first.1..len.1)
    }

    /// Hands the impulses of the bundles packed from `lists` (in that order) back.
    fn unpack<'a>(
        &self,
        lists: impl Iterator<Item = &'a [u32]>,
        (points, lengths): (&mut [PointRow], &mut [LengthRow]),
        split: u32,
    ) {
        let (mut p, mut l) = (self.points.iter(), self.lengths.iter());
        for indices in lists {
            let cut = indices.partition_point(|&i| i < split);
            // Chunks first: `zip` asks its first iterator first, and must not take a bundle
            // from the next colour when this one's chunks are done.
            for (chunk, bundle) in indices[..cut].chunks(L).zip(p.by_ref()) {
                bundle.unpack(points, chunk, 0);
            }
            for (chunk, bundle) in indices[cut..].chunks(L).zip(l.by_ref()) {
                bundle.unpack(lengths, chunk, split);
            }
        }
    }
}

/// The joints solved in lanes, packed for one lane count (the others stay empty), colour after
/// colour, and the ones no colour took, one to a bundle.
#[derive(Debug, Default)]
pub(crate) struct JointBundles {
    pub(crate) one: Lists<1>,
    pub(crate) four: Lists<4>,
    pub(crate) eight: Lists<8>,
    /// Each colour's point and length bundles, as ranges of the filled lists.
    pub(crate) colours: Vec<(Range<usize>, Range<usize>)>,
    /// The parts no colour took (a body in more than 32 of them), solved by the serial stage.
    pub(crate) overflow: Lists<1>,
}

impl JointBundles {
    /// Packs `points` and `lengths`, coloured by `colouring` over the two lists one after the
    /// other, `lanes` to a bundle.
    pub(crate) fn pack(
        &mut self,
        colouring: &Colouring,
        rows: (&[PointRow], &[LengthRow]),
        lanes: usize,
    ) {
        fn fill<const L: usize>(
            out: &mut Lists<L>,
            colouring: &Colouring,
            rows: (&[PointRow], &[LengthRow]),
            colours: &mut Vec<(Range<usize>, Range<usize>)>,
        ) {
            let (split, mut len) = (rows.0.len() as u32, (0, 0));
            for colour in &colouring.colours {
                colours.push(out.pack(colour, rows, split, &mut len));
            }
            out.points.truncate(len.0);
            out.lengths.truncate(len.1);
        }
        self.colours.clear();
        match lanes {
            1 => fill(&mut self.one, colouring, rows, &mut self.colours),
            4 => fill(&mut self.four, colouring, rows, &mut self.colours),
            _ => fill(&mut self.eight, colouring, rows, &mut self.colours),
        }
        let (split, mut len) = (rows.0.len() as u32, (0, 0));
        self.overflow
            .pack(&colouring.overflow, rows, split, &mut len);
        self.overflow.points.truncate(len.0);
        self.overflow.lengths.truncate(len.1);
    }

    /// Hands every bundle's impulses back to `points` and `lengths`.
    pub(crate) fn unpack(
        &self,
        colouring: &Colouring,
        (points, lengths): (&mut [PointRow], &mut [LengthRow]),
        lanes: usize,
    ) {
        let split = points.len() as u32;
        let colours = colouring.colours.iter().map(|c| c.as_slice());
        let rows = (&mut *points, &mut *lengths);
        match lanes {
            1 => self.one.unpack(colours, rows, split),
            4 => self.four.unpack(colours, rows, split),
            _ => self.eight.unpack(colours, rows, split),
        }
        let overflow = std::iter::once(colouring.overflow.as_slice());
        self.overflow.unpack(overflow, (points, lengths), split);
    }

    /// How many bundles are packed in colours.
    pub(crate) fn len(&self) -> usize {
        self.colours.last().map_or(0, |(p, l)| p.end + l.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{Bodies, BodySim, BodyState, Motion, STATIC};
    use crate::joint::JointFrame;
    use crate::softness::Softness;
    use crate::{Matrix, Real, Vector};

    /// Every part packed into lanes comes back to its own row: a star of 40 joints on one hub
    /// (more than the 32 colours, so some overflow) and a chain, points and lengths mixed, at
    /// every lane count. Each row carries a distinct impulse; after packing and unpacking
    /// without a pass in between, each must still hold its own.
    #[test]
    fn packing_and_unpacking_hands_each_impulse_back_to_its_row() {
        let mut bodies = Bodies::default();
        for _ in 0..60 {
            let sim = BodySim::with_mass(1.0, Matrix::identity());
            bodies.push(BodyState::moving(Vector::zeros(), Vector::zeros()), sim);
        }
        let motion = |i: u32| Motion::load(&bodies, i);
        let frame = |a: u32, b: u32| JointFrame {
            body_a: a,
            body_b: b,
            anchor_a: Vector::zeros(),
            anchor_b: Vector::zeros(),
            separation: Vector::x(),
            rotations: (crate::Quaternion::identity(), crate::Quaternion::identity()),
        };
        let soft = [Softness::RIGID; 2];
        // The hub (0) joined to 1..=40 by points; a chain 41..60 by lengths, one to static.
        let mut points: Vec<PointRow> = (1..=40)
            .map(|i| PointRow::new(&frame(0, i), &motion(0), &motion(i), soft, Vector::zeros()))
            .collect();
        let mut lengths: Vec<LengthRow> = (41..60)
            .map(|i| {
                let f = frame(i, if i == 59 { STATIC } else { i + 1 });
                LengthRow::new(&f, (&motion(f.body_a), &motion(f.body_b)), 1.0, soft, 0.0)
            })
            .collect();
        for (k, p) in points.iter_mut().enumerate() {
            p.impulse = Vector::new(k as Real, 0.5, -1.0);
        }
        for (k, l) in lengths.iter_mut().enumerate() {
            l.impulse = 100.0 + k as Real;
        }
        let (want_points, want_lengths) = (points.clone(), lengths.clone());
        let mut colouring = Colouring::default();
        let pairs = points.iter().map(|p| (p.ends.body_a, p.ends.body_b, true));
        let pairs = pairs.chain(lengths.iter().map(|l| (l.ends.body_a, l.ends.body_b, true)));
        colouring.build_pairs(pairs, &bodies);
        assert!(!colouring.overflow.is_empty(), "the hub should overflow");
        for lanes in [1, 4, 8] {
            let mut bundles = JointBundles::default();
            bundles.pack(&colouring, (&points, &lengths), lanes);
            for p in &mut points {
                p.impulse = Vector::zeros();
            }
            for l in &mut lengths {
                l.impulse = 0.0;
            }
            bundles.unpack(&colouring, (&mut points, &mut lengths), lanes);
            for (got, want) in points.iter().zip(&want_points) {
                assert_eq!(got.impulse, want.impulse, "{lanes} lanes");
            }
            for (got, want) in lengths.iter().zip(&want_lengths) {
                assert_eq!(got.impulse, want.impulse, "{lanes} lanes");
            }
        }
    }
}

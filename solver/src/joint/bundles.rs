//! The joints solved in lanes, one colour at a time: a colour's point parts
//! ([`super::point_bundle`]) then its length parts ([`super::length`]), compiled for the
//! default instruction set or, for eight lanes on a CPU that has it, with AVX2. Every path
//! does the same IEEE operations, so every lane count gives the same bits.

use std::ops::Range;

use super::length::{self, LengthBundle, LengthRow};
use super::part::JointPass;
use super::point::PointRow;
use super::point_bundle::{self, PointBundle};
use crate::body::StateView;
use crate::graph::Colouring;
use crate::kernels::Kernels;
use crate::parallel::Shared;

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

/// One pass over a colour's 8-lane bundles, with AVX2 when `kernels` says the CPU has it; the
/// same operations, so the same bits, as [`pass`].
#[cfg(target_arch = "x86_64")]
pub(crate) fn pass_avx2(
    points: &mut [PointBundle<8>],
    lengths: &mut [LengthBundle<8>],
    bodies: StateView,
    pass: JointPass,
    (isotropic, kernels): (bool, Kernels),
) {
    /// # Safety
    /// The CPU has AVX2 (the caller checked it).
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
    if kernels.avx2() {
        // SAFETY: the CPU has AVX2 (`Kernels::avx2`), which is all `avx2` requires.
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
    /// `points` point bundles and `lengths` length bundles (the ones kept from the last step
    /// reused).
    fn resize(&mut self, (points, lengths): (usize, usize)) {
        self.points.resize_with(points, PointBundle::empty);
        self.lengths.resize_with(lengths, LengthBundle::empty);
    }

    #[cfg(test)]
    /// The two lists' buffers, for [`fill`] and [`unpack`].
    pub(crate) fn raw(&mut self) -> (*mut PointBundle<L>, *mut LengthBundle<L>) {
        (self.points.as_mut_ptr(), self.lengths.as_mut_ptr())
    }
}

/// Where one bundle's parts are: a range of its colour's list in the joints' colouring.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Source {
    colour: u32,
    start: u32,
    end: u32,
}

impl Source {
    /// The colour of the parts no colour took.
    const OVERFLOW: u32 = u32::MAX;

    /// The parts' indices (below `split` a point part, from it a length part).
    fn indices<'a>(&self, colouring: &'a Colouring) -> &'a [u32] {
        let list = match self.colour {
            Source::OVERFLOW => &colouring.overflow,
            colour => &colouring.colours[colour as usize],
        };
        &list[self.start as usize..self.end as usize]
    }

    /// `list`'s parts (`colour`'s) below `split` (point parts) and from it (length parts), in
    /// sources of `lanes` parts.
    fn chunks(
        list: &[u32],
        colour: u32,
        split: u32,
        lanes: usize,
    ) -> (impl Iterator<Item = Source>, impl Iterator<Item = Source>) {
        let cut = list.partition_point(|&i| i < split);
        let chunks = move |range: Range<usize>| {
            range.clone().step_by(lanes).map(move |start| Source {
                colour,
                start: start as u32,
                end: (start + lanes).min(range.end) as u32,
            })
        };
        (chunks(0..cut), chunks(cut..list.len()))
    }
}

/// The joints solved in lanes, packed for one lane count (the others stay empty), colour after
/// colour, and the ones no colour took, one to a bundle.
///
/// Laid out first ([`JointBundles::layout`]: how many bundles each colour takes and where
/// each one's parts are, serially), then filled and unpacked bundle by bundle
/// ([`JointBundles::fill`], [`JointBundles::unpack_bundles`]), by the workers side by side.
#[derive(Debug, Default)]
pub(crate) struct JointBundles {
    pub(crate) one: Lists<1>,
    pub(crate) four: Lists<4>,
    pub(crate) eight: Lists<8>,
    /// Each colour's point and length bundles, as ranges of the filled lists.
    pub(crate) colours: Vec<(Range<usize>, Range<usize>)>,
    /// Where each point bundle's and each length bundle's parts are.
    pub(crate) sources: (Vec<Source>, Vec<Source>),
    /// The parts no colour took (a body in more than 32 of them), one to a bundle, solved by
    /// the serial stage, and where each one is.
    pub(crate) overflow: Lists<1>,
    pub(crate) overflow_sources: (Vec<Source>, Vec<Source>),
}

/// The rows the bundles are filled from and hand their impulses back to, as the workers share
/// them (each bundle's parts are its own).
#[derive(Clone, Copy)]
pub(crate) struct Rows {
    pub(crate) points: (Shared<PointRow>, usize),
    pub(crate) lengths: (Shared<LengthRow>, usize),
}

impl Rows {
    /// The rows of `points` and `lengths`.
    pub(crate) fn of(points: &mut [PointRow], lengths: &mut [LengthRow]) -> Rows {
        Rows {
            points: (Shared(points.as_mut_ptr()), points.len()),
            lengths: (Shared(lengths.as_mut_ptr()), lengths.len()),
        }
    }

    fn split(&self) -> u32 {
        self.points.1 as u32
    }
}

impl JointBundles {
    /// Lays out the bundles of `colouring`'s colours over `split` point parts and then the
    /// length parts, `lanes` to a bundle: each colour's ranges, each bundle's source, the
    /// lists sized (bundles kept from the last step are reused).
    pub(crate) fn layout(&mut self, colouring: &Colouring, split: u32, lanes: usize) {
        self.colours.clear();
        let (points, lengths) = &mut self.sources;
        points.clear();
        lengths.clear();
        for (colour, list) in colouring.colours.iter().enumerate() {
            let first = (points.len(), lengths.len());
            let (p, l) = Source::chunks(list, colour as u32, split, lanes);
            points.extend(p);
            lengths.extend(l);
            self.colours
                .push((first.0..points.len(), first.1..lengths.len()));
        }
        let sizes = (points.len(), lengths.len());
        match lanes {
            1 => self.one.resize(sizes),
            4 => self.four.resize(sizes),
            _ => self.eight.resize(sizes),
        }
        let (points, lengths) = &mut self.overflow_sources;
        let (p, l) = Source::chunks(&colouring.overflow, Source::OVERFLOW, split, 1);
        points.clear();
        points.extend(p);
        lengths.clear();
        lengths.extend(l);
        self.overflow.resize((points.len(), lengths.len()));
    }

    /// Packs `points` and `lengths`, coloured by `colouring` over the two lists one after the
    /// other, `lanes` to a bundle: the layout, every bundle filled, and the overflow.
    #[cfg(test)]
    pub(crate) fn pack(
        &mut self,
        colouring: &Colouring,
        (points, lengths): (&mut [PointRow], &mut [LengthRow]),
        lanes: usize,
    ) {
        let rows = Rows::of(points, lengths);
        self.layout(colouring, rows.split(), lanes);
        let all = (0..self.sources.0.len(), 0..self.sources.1.len());
        // SAFETY: one thread, every bundle, rows from live slices.
        unsafe {
            match lanes {
                1 => fill(self.one.raw(), &self.sources, all, colouring, rows),
                4 => fill(self.four.raw(), &self.sources, all, colouring, rows),
                _ => fill(self.eight.raw(), &self.sources, all, colouring, rows),
            }
            let sources = &self.overflow_sources;
            let all = (0..sources.0.len(), 0..sources.1.len());
            fill(self.overflow.raw(), sources, all, colouring, rows);
        }
    }

    /// Hands every bundle's impulses back to `points` and `lengths`.
    #[cfg(test)]
    pub(crate) fn unpack(
        &mut self,
        colouring: &Colouring,
        (points, lengths): (&mut [PointRow], &mut [LengthRow]),
        lanes: usize,
    ) {
        let rows = Rows::of(points, lengths);
        let all = (0..self.sources.0.len(), 0..self.sources.1.len());
        // SAFETY: one thread, every bundle, rows from live slices.
        unsafe {
            match lanes {
                1 => unpack(self.one.raw(), &self.sources, all, colouring, rows),
                4 => unpack(self.four.raw(), &self.sources, all, colouring, rows),
                _ => unpack(self.eight.raw(), &self.sources, all, colouring, rows),
            }
            let sources = &self.overflow_sources;
            let all = (0..sources.0.len(), 0..sources.1.len());
            unpack(self.overflow.raw(), sources, all, colouring, rows);
        }
    }

    /// How many bundles are packed in colours.
    pub(crate) fn len(&self) -> usize {
        self.colours.last().map_or(0, |(p, l)| p.end + l.end)
    }
}

impl Rows {
    /// The rows as slices.
    ///
    /// # Safety
    /// The rows must be live and no one may write them while the slices are held.
    unsafe fn slices<'a>(&self) -> (&'a [PointRow], &'a [LengthRow]) {
        // SAFETY: the caller's contract.
        unsafe {
            (
                std::slice::from_raw_parts(self.points.0 .0, self.points.1),
                std::slice::from_raw_parts(self.lengths.0 .0, self.lengths.1),
            )
        }
    }
}

/// Hands the impulses of point bundles `range.0` and length bundles `range.1` (of the lists
/// at `point_bundles` and `length_bundles`) back to their rows.
///
/// # Safety
/// `rows` must point to the rows the bundles were filled from (laid out for `sources`), and
/// no one else may touch these bundles or their rows meanwhile.
pub(crate) unsafe fn unpack<const L: usize>(
    (point_bundles, length_bundles): (*mut PointBundle<L>, *mut LengthBundle<L>),
    sources: &(Vec<Source>, Vec<Source>),
    range: (Range<usize>, Range<usize>),
    colouring: &Colouring,
    rows: Rows,
) {
    let split = rows.split();
    // SAFETY: the caller's contract: each bundle and its rows are this caller's.
    unsafe {
        for b in range.0 {
            let bundle = &*point_bundles.add(b);
            for (lane, &i) in sources.0[b].indices(colouring).iter().enumerate() {
                (*rows.points.0 .0.add(i as usize)).impulse = bundle.impulse(lane);
            }
        }
        for b in range.1 {
            let bundle = &*length_bundles.add(b);
            for (lane, &i) in sources.1[b].indices(colouring).iter().enumerate() {
                (*rows.lengths.0 .0.add((i - split) as usize)).impulse = bundle.impulse(lane);
            }
        }
    }
}

/// Fills point bundles `range.0` and length bundles `range.1` (of the lists at
/// `point_bundles` and `length_bundles`) from their rows.
///
/// # Safety
/// `rows` must point to live rows that no one writes meanwhile, the lists be laid out for
/// `sources`, and no one else touch these bundles.
pub(crate) unsafe fn fill<const L: usize>(
    (point_bundles, length_bundles): (*mut PointBundle<L>, *mut LengthBundle<L>),
    sources: &(Vec<Source>, Vec<Source>),
    range: (Range<usize>, Range<usize>),
    colouring: &Colouring,
    rows: Rows,
) {
    // SAFETY: the caller's contract: the rows are only read, each bundle is this caller's.
    unsafe {
        let (points, lengths) = rows.slices();
        let split = rows.split();
        for b in range.0 {
            let indices = sources.0[b].indices(colouring);
            (*point_bundles.add(b)).prepare(points, indices, 0);
        }
        for b in range.1 {
            let indices = sources.1[b].indices(colouring);
            (*length_bundles.add(b)).prepare(lengths, indices, split);
        }
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
            bundles.pack(&colouring, (&mut points, &mut lengths), lanes);
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

//! The joints solved in lanes, one colour at a time: a colour's point parts
//! ([`super::point_bundle`]) then its length parts ([`super::length`]), compiled for the
//! default instruction set or, for eight lanes on a CPU that has it, with AVX2
//! ([`crate::kernels::Kernels::run`] chooses). Every path does the same IEEE operations, so
//! every lane count gives the same bits.

use std::ops::Range;

use super::length::{self, LengthBundle, LengthRow};
use super::part::JointPass;
use super::point::PointRow;
use super::point_bundle::{self, PointBundle};
use crate::body::StateView;
use crate::graph::Colouring;
use crate::kernels::{ByLanes, LaneWork};
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
    // SAFETY: `AVX2` false.
    unsafe { run::<L, false>(points, lengths, bodies, pass, isotropic) };
}

/// [`pass`], with `AVX2` when compiled with it (from [`crate::kernels::Kernels::run`]): both
/// kinds of bundle, with the inertia products decided once.
///
/// # Safety
/// `AVX2` only where the CPU has AVX2 (the eight-lane gathers and scatters then use it).
#[inline(always)]
pub(crate) unsafe fn run<const L: usize, const AVX2: bool>(
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

/// The bundle lists of each lane count as raw pointers (point bundles, length bundles).
pub(crate) struct RawLists;

impl ByLanes for RawLists {
    type Of<const L: usize> = (*mut PointBundle<L>, *mut LengthBundle<L>);
}

/// Filling bundles `range` from their rows ([`fill`], when `fill`) or handing their impulses
/// back ([`unpack`]), on the lists of the step's lane count. Its contract
/// ([`LaneWork::run`]): [`fill`]'s or [`unpack`]'s.
pub(crate) struct Transfer<'a> {
    pub(crate) sources: &'a (Vec<Source>, Vec<Source>),
    pub(crate) range: (Range<usize>, Range<usize>),
    pub(crate) colouring: &'a Colouring,
    pub(crate) rows: Rows,
    pub(crate) fill: bool,
}

impl<'a> Transfer<'a> {
    /// The work on every bundle laid out for `sources`.
    pub(crate) fn all(
        sources: &'a (Vec<Source>, Vec<Source>),
        colouring: &'a Colouring,
        rows: Rows,
        fill: bool,
    ) -> Transfer<'a> {
        Transfer {
            sources,
            range: (0..sources.0.len(), 0..sources.1.len()),
            colouring,
            rows,
            fill,
        }
    }
}

impl LaneWork for Transfer<'_> {
    type Lanes = RawLists;
    type Output = ();

    /// # Safety
    /// As [`LaneWork::run`]'s.
    #[inline(always)]
    unsafe fn run<const L: usize, const AVX2: bool>(
        self,
        &lists: &(*mut PointBundle<L>, *mut LengthBundle<L>),
    ) {
        let Transfer {
            sources,
            range,
            colouring,
            rows,
            fill: filling,
        } = self;
        // SAFETY: the work's contract.
        unsafe {
            if filling {
                fill(lists, sources, range, colouring, rows);
            } else {
                unpack(lists, sources, range, colouring, rows);
            }
        }
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

    /// [`Lists::resize`] to `sizes` if these are the lists of `lanes` lanes, else empty.
    fn resize_for(&mut self, lanes: usize, sizes: (usize, usize)) {
        self.resize(if lanes == L { sizes } else { (0, 0) });
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
/// ([`fill`], [`unpack`]), by the workers side by side.
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
        self.one.resize_for(lanes, sizes);
        self.four.resize_for(lanes, sizes);
        self.eight.resize_for(lanes, sizes);
        let (points, lengths) = &mut self.overflow_sources;
        let (p, l) = Source::chunks(&colouring.overflow, Source::OVERFLOW, split, 1);
        points.clear();
        points.extend(p);
        lengths.clear();
        lengths.extend(l);
        self.overflow.resize((points.len(), lengths.len()));
    }

    /// Packs `points` and `lengths`, coloured by `colouring` over the two lists one after the
    /// other, a bundle of `kernels`' lane count: the layout, every bundle filled, and the
    /// overflow.
    #[cfg(test)]
    pub(crate) fn pack(
        &mut self,
        colouring: &Colouring,
        (points, lengths): (&mut [PointRow], &mut [LengthRow]),
        kernels: crate::kernels::Kernels,
    ) {
        let rows = Rows::of(points, lengths);
        self.layout(colouring, rows.split(), kernels.lanes());
        self.transfer(colouring, rows, kernels, true);
    }

    /// Hands every bundle's impulses back to `points` and `lengths`.
    #[cfg(test)]
    pub(crate) fn unpack(
        &mut self,
        colouring: &Colouring,
        (points, lengths): (&mut [PointRow], &mut [LengthRow]),
        kernels: crate::kernels::Kernels,
    ) {
        let rows = Rows::of(points, lengths);
        self.transfer(colouring, rows, kernels, false);
    }

    /// Every bundle and the overflow filled from `rows` (`fill`) or handed back to them.
    #[cfg(test)]
    fn transfer(
        &mut self,
        colouring: &Colouring,
        rows: Rows,
        kernels: crate::kernels::Kernels,
        fill_them: bool,
    ) {
        let lists = crate::kernels::PerLanes::<RawLists> {
            one: self.one.raw(),
            four: self.four.raw(),
            eight: self.eight.raw(),
        };
        let work = Transfer::all(&self.sources, colouring, rows, fill_them);
        let overflow = self.overflow.raw();
        let rest = Transfer::all(&self.overflow_sources, colouring, rows, fill_them);
        // SAFETY: one thread, every bundle, rows from live slices, laid out for the sources.
        unsafe {
            kernels.run(&lists, work);
            rest.run::<1, false>(&overflow);
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
    use crate::kernels::{Kernels, SimdWidth};
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
        for simd in [SimdWidth::Scalar, SimdWidth::Four, SimdWidth::Eight] {
            let kernels = Kernels::new(simd);
            let lanes = kernels.lanes();
            let mut bundles = JointBundles::default();
            bundles.pack(&colouring, (&mut points, &mut lengths), kernels);
            for p in &mut points {
                p.impulse = Vector::zeros();
            }
            for l in &mut lengths {
                l.impulse = 0.0;
            }
            bundles.unpack(&colouring, (&mut points, &mut lengths), kernels);
            for (got, want) in points.iter().zip(&want_points) {
                assert_eq!(got.impulse, want.impulse, "{lanes} lanes");
            }
            for (got, want) in lengths.iter().zip(&want_lengths) {
                assert_eq!(got.impulse, want.impulse, "{lanes} lanes");
            }
        }
    }
}

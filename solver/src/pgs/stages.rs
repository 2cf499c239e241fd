//! The stage list of one step as every worker runs it: preparing the bundles, the substeps'
//! integrations, warm starts, passes and impacts, the joints' colours, projection and the
//! serial stage, each worker on its share between barriers (`parallel.rs`); and the bundles'
//! layout the stages read.

use crate::body::{Bodies, BodyState, StateView};
use crate::bundle::{self, Bundle, BundleCold, Pass};
use crate::contact::{Contact, ContactConstraint};
use crate::graph::Colouring;
use crate::impact::Impacts;
use crate::integrate::{Carry, Integration, Velocities};
use crate::joint::bundles::{Rows, Source, Transfer};
use crate::joint::{
    joint_pass, joint_run, Chains, JointConstraint, JointPass, LengthBundle, PassContext,
    PointBundle, PointRow, Stamps, PROJECTION_PASSES,
};
use crate::kernels::{ByLanes, LaneWork, PerLanes};
use crate::parallel::{share, Barrier, Shared};
use crate::step::{ContactSettings, StepContext};
use crate::vehicle::Vehicles;
use crate::Real;
use std::sync::atomic::{AtomicBool, Ordering};

/// The stage list of one step, as every worker runs it (see `parallel.rs`).
pub(super) struct Stages<'a> {
    pub(super) bodies: Shared<Bodies>,
    /// The hot states, taken once before the workers start.
    pub(super) states: Shared<BodyState>,
    pub(super) body_count: usize,
    /// The bodies' integration data (`integrate.rs`).
    pub(super) integration: &'a Integration,
    /// Each body's velocities at the start of the substep and its carried difference, when
    /// warm starting is carried (`None`: warm started every substep).
    pub(super) starts: Option<(Shared<Velocities>, Shared<Velocities>)>,
    /// Each lane count's bundle list (only one is filled), and the colours' ranges in it.
    pub(super) lists: PerLanes<ContactLists>,
    pub(super) colours: &'a [std::ops::Range<usize>],
    /// The colours' contacts and each bundle's span of them (see [`Bundles`]).
    pub(super) colour_lists: &'a [Vec<u32>],
    pub(super) spans: &'a [Span],
    /// The step's contacts: read to prepare the bundles, their impulses written back after.
    pub(super) contacts: (Shared<Contact>, usize),
    /// The general joints (solved by their colours, the serial stage taking the rest).
    pub(super) joints: (Shared<JointConstraint>, usize),
    /// `joints`' colours and the ones no colour took.
    pub(super) joint_graph: &'a Colouring,
    /// Whether there are joints in `joints` to project after the substeps (`project.rs`).
    pub(super) project: bool,
    /// Whether a projection pass moved any body, one flag a pass: the passes stop after one
    /// that moved nothing. (Every joint's answer is the same on any worker count, so is
    /// their OR, and every worker reads it after the pass's last barrier.)
    pub(super) projected: [AtomicBool; PROJECTION_PASSES],
    /// Which pass last moved each body: later passes project only the joints it left due.
    pub(super) stamps: &'a Stamps,
    pub(super) vehicles: Shared<Vehicles>,
    /// The lane-solved joints' rows (point parts, length parts), their colouring and where
    /// each bundle's parts are in it (and the overflow's), and the chains of point parts
    /// solved whole.
    pub(super) joint_rows: Rows,
    pub(super) joint_colouring: &'a Colouring,
    pub(super) joint_sources: &'a (Vec<Source>, Vec<Source>),
    pub(super) joint_overflow_sources: &'a (Vec<Source>, Vec<Source>),
    pub(super) chains: Shared<Chains>,
    /// The lane-solved joints' bundles (one lane count filled, as `lists`), their colours'
    /// ranges, and the ones no colour took (solved by the serial stage).
    pub(super) joint_lists: PerLanes<JointListsByLanes>,
    pub(super) joint_colours: &'a [(std::ops::Range<usize>, std::ops::Range<usize>)],
    pub(super) joint_overflow: JointLists<1>,
    /// The overflow contacts, prepared one by one.
    pub(super) scalar: Shared<Vec<ContactConstraint>>,
    /// The bouncy contacts' impacts, if the step has any.
    pub(super) impacts: Option<Shared<Impacts>>,
    /// The step's context: its substep, softness, settings.
    pub(super) step: &'a StepContext,
    pub(super) friction_in_biased_pass: bool,
    /// What the lane kernels may assume of the whole step (`bundle::StepShape`).
    pub(super) shape: bundle::StepShape,
    pub(super) substeps: u32,
    pub(super) barrier: &'a Barrier,
}

/// One worker's place in a run of the stage list: which worker of how many. Only
/// [`Stages::run`] makes one, and its contract has every worker of `workers` run the list at
/// once, each with its own `worker`, all taking the same stages in the same order (the list
/// branches only on what every worker reads alike); so holding a `Crew` is the proof the
/// stages below rest on: this worker may touch its own share of a stage's buffers until the
/// barrier that closes the stage, and worker 0 everything in the serial stage.
#[derive(Clone, Copy)]
struct Crew {
    worker: usize,
    workers: usize,
}

impl Crew {
    /// This worker's share of `len` items (`parallel::share`).
    fn share(self, len: usize) -> std::ops::Range<usize> {
        share(len, self.worker, self.workers)
    }
}

impl Stages<'_> {
    /// Worker `worker` of `workers`'s part of the step: integration of its share of the
    /// bodies, its share of each colour's bundles and joints, and (worker 0 only) the serial
    /// stage (chains, vehicles, what no colour took), each stage closed by a barrier.
    ///
    /// # Safety
    /// Every worker of `workers` must run this at once with the same `self`, and nothing else
    /// may touch the bodies, joints, contacts or bundles until all have returned.
    pub(super) unsafe fn run(&self, worker: usize, workers: usize) {
        let crew = Crew { worker, workers };
        let (h, barrier) = (self.step.h, self.barrier);
        self.prepare(crew);
        self.joint_masses(crew);
        barrier.wait();
        // The joint bundles are filled from the rows, which nothing writes until the first
        // joint pass, after the barrier closing the first substep's integration (which
        // touches neither).
        self.joint_bundles(crew, true);
        for substep in 0..self.substeps {
            let start = substep as Real * h;
            // SAFETY: each worker integrates its own share of the bodies; `starts` (when
            // carried) has a slot per body.
            unsafe {
                let carry = self.starts.map(|(starts, carried)| Carry {
                    starts: starts.0,
                    carried: carried.0,
                    first: substep == 0,
                });
                self.integration.velocities(
                    self.states.0,
                    (worker, workers),
                    (h, self.step.kernels),
                    carry,
                )
            };
            barrier.wait();
            self.impacts(crew);
            if self.starts.is_none() || substep == 0 {
                self.joint_colours(crew, JointPass::WarmStart);
                self.general_joints(crew, JointPass::WarmStart, start);
                self.serial(crew, |mut s| {
                    self.serial_joints(&mut s, JointPass::WarmStart, start);
                    for c in s.contacts.iter() {
                        c.warm_start(s.bodies);
                    }
                });
                self.colours(crew, Pass::WarmStart);
            }
            for _ in 0..self.step.settings.iterations.max(1) {
                let friction = self.friction_in_biased_pass;
                let pass = JointPass::Solve { use_bias: true };
                self.joint_colours(crew, pass);
                self.general_joints(crew, pass, start);
                self.serial(crew, |mut s| {
                    self.serial_joints(&mut s, pass, start);
                    for c in s.contacts.iter_mut() {
                        c.solve(s.bodies, &self.step.contact, true, friction);
                    }
                });
                let pass = Pass::Solve {
                    use_bias: true,
                    friction,
                };
                self.colours(crew, pass);
            }
            self.integrate_positions(crew);
            barrier.wait();
            self.impacts(crew);
            for _ in 0..self.step.settings.relax_iterations {
                let pass = JointPass::Solve { use_bias: false };
                self.joint_colours(crew, pass);
                self.general_joints(crew, pass, start + h);
                self.serial(crew, |mut s| {
                    self.serial_joints(&mut s, pass, start + h);
                    for c in s.contacts.iter_mut() {
                        c.solve(s.bodies, &self.step.contact, false, true);
                    }
                });
                let pass = Pass::Solve {
                    use_bias: false,
                    friction: true,
                };
                self.colours(crew, pass);
            }
        }
        if self.project {
            for (pass, projected) in self.projected.iter().enumerate() {
                self.project_joints(crew, pass, projected);
                if !projected.load(Ordering::Relaxed) {
                    break;
                }
            }
        }
        self.unpack(crew);
        self.joint_bundles(crew, false);
    }

    /// The effective masses (`K^-1`) of this worker's share of the point parts.
    fn joint_masses(&self, crew: Crew) {
        let (rows, len) = self.joint_rows.points;
        let range = crew.share(len);
        // SAFETY: the crew's (each worker its own share of the rows, which nothing else
        // touches in this stage).
        let mine = unsafe { std::slice::from_raw_parts_mut(rows.0.add(range.start), range.len()) };
        crate::joint::prepare_masses(mine, self.step.kernels);
    }

    /// This worker's share of the joint bundles (and, worker 0, the overflow's): filled from
    /// the rows (`fill_them`), or their impulses handed back to them.
    fn joint_bundles(&self, crew: Crew, fill_them: bool) {
        let (sources, colouring, rows) =
            (self.joint_sources, self.joint_colouring, self.joint_rows);
        let range = (crew.share(sources.0.len()), crew.share(sources.1.len()));
        let lists = PerLanes {
            one: self.joint_lists.one.raw(),
            four: self.joint_lists.four.raw(),
            eight: self.joint_lists.eight.raw(),
        };
        let work = Transfer {
            sources,
            range,
            colouring,
            rows,
            fill: fill_them,
        };
        // SAFETY: the crew's: disjoint shares of the bundles, laid out for the sources; the
        // rows are only read while the bundles are filled, and each bundle writes back only
        // its own parts' rows.
        unsafe {
            self.step.kernels.run(&lists, work);
            if crew.worker == 0 {
                let overflow = self.joint_overflow_sources;
                let work = Transfer::all(overflow, colouring, rows, fill_them);
                work.run::<1, false>(&self.joint_overflow.raw());
            }
        }
    }

    /// The impacts (`impact.rs`) of points that will close within the next substep of the
    /// bodies' motion, if the step has bouncy contacts: before each substep's solve, and
    /// again after its positions, before the relax pass, which would stop a speculative point
    /// closing within the next substep.
    fn impacts(&self, crew: Crew) {
        let Some(impacts) = self.impacts else {
            return;
        };
        self.serial(crew, |s| {
            let threshold = self.step.settings.restitution_threshold;
            // SAFETY: the serial stage's (worker 0 alone): `starts` has a slot per body, and
            // no one else touches it or the impacts now.
            unsafe {
                let starts = self
                    .starts
                    .map(|(starts, _)| std::slice::from_raw_parts_mut(starts.0, self.body_count));
                (*impacts.0).substep(s.bodies, starts, self.step.h, threshold);
            }
        });
    }

    /// This worker's share of the bundles, prepared from the step's contacts.
    fn prepare(&self, crew: Crew) {
        let range = crew.share(self.spans.len());
        // SAFETY: the crew's: no one writes the bodies or contacts in this stage.
        let input = unsafe {
            Preparation {
                bodies: &*self.bodies.0,
                contacts: std::slice::from_raw_parts(self.contacts.0 .0, self.contacts.1),
                colours: self.colour_lists,
                spans: self.spans,
                settings: &self.step.contact,
            }
        };
        let work = Prepare {
            range,
            input: &input,
        };
        // SAFETY: the crew's: disjoint shares of the filled list.
        unsafe { self.step.kernels.run(&self.lists, work) }
    }

    /// This worker's share of the bundles' impulses, handed back to the contacts.
    fn unpack(&self, crew: Crew) {
        let range = crew.share(self.spans.len());
        let (contacts, len) = self.contacts;
        let work = Unpack {
            range,
            contacts,
            len,
        };
        // SAFETY: the crew's: disjoint shares; each bundle writes only its own contacts (a
        // contact is in one bundle).
        unsafe { self.step.kernels.run(&self.lists, work) }
    }

    /// Integrates the positions of this worker's share of the bodies over the substep.
    fn integrate_positions(&self, crew: Crew) {
        let range = crew.share(self.body_count);
        // Eight at a time in lanes where the CPU has AVX2 (the same bits), the rest one by one.
        #[cfg(target_arch = "x86_64")]
        let range = if self.step.kernels.avx2() {
            // SAFETY: the CPU has AVX2 (`Kernels::avx2`); the crew's: each worker takes a
            // disjoint share of the bodies, through the buffer's pointer taken before the
            // workers started.
            let done = unsafe {
                crate::integrate::positions_eights(self.states.0, range.clone(), self.step.h)
            };
            range.start + done..range.end
        } else {
            range
        };
        for i in range {
            // SAFETY: the crew's: each worker takes a disjoint share of the bodies, through the
            // buffer's pointer taken before the workers started.
            unsafe { (*self.states.0.add(i)).integrate_position(self.step.h) };
        }
    }

    /// `f` on worker 0 alone, the others waiting at the barrier after it.
    fn serial(&self, crew: Crew, f: impl FnOnce(Serial)) {
        if crew.worker == 0 {
            // SAFETY: the crew's: the other workers touch nothing until the barrier below.
            unsafe {
                f(Serial {
                    bodies: &mut *self.bodies.0,
                    joints: std::slice::from_raw_parts_mut(self.joints.0 .0, self.joints.1),
                    vehicles: &mut *self.vehicles.0,
                    points: std::slice::from_raw_parts_mut(
                        self.joint_rows.points.0 .0,
                        self.joint_rows.points.1,
                    ),
                    chains: &mut *self.chains.0,
                    contacts: &mut *self.scalar.0,
                })
            };
        }
        self.barrier.wait();
    }

    /// One pass over the lane-solved joints' colours, this worker's share of each colour's
    /// point and length bundles, a barrier after each colour.
    fn joint_colours(&self, crew: Crew, pass: JointPass) {
        // SAFETY: the crew's: this worker writes only the moving bodies of its share until
        // the next barrier.
        let view = unsafe { StateView::from_raw(self.states.0, self.body_count) };
        for (points, lengths) in self.joint_colours {
            if points.is_empty() && lengths.is_empty() {
                continue;
            }
            let (p, l) = (crew.share(points.len()), crew.share(lengths.len()));
            let (p, l) = (
                points.start + p.start..points.start + p.end,
                lengths.start + l.start..lengths.start + l.end,
            );
            let work = JointColour {
                parts: (p, l),
                view,
                pass,
                isotropic: self.shape.isotropic,
            };
            // SAFETY: within a colour the workers' parts are disjoint bundles touching
            // disjoint moving bodies; the barrier orders the colours.
            unsafe { self.step.kernels.run(&self.joint_lists, work) };
            self.barrier.wait();
        }
    }

    /// One pass over the general joints' colours, this worker's share of each colour's
    /// joints, a barrier after each colour; `elapsed` is the time since the step began at
    /// which the bodies' positions now stand (for moving targets).
    fn general_joints(&self, crew: Crew, pass: JointPass, elapsed: Real) {
        let context = self.pass_context(pass, elapsed);
        self.joint_colours_each(crew, |joint, view, sims| match &context {
            None => joint.warm_start_shared(view, sims),
            Some(context) => joint.solve_shared(view, sims, context),
        });
    }

    /// One pass of the position projection over the general joints: their colours as
    /// [`Stages::general_joints`], then the ones no colour took in the serial stage. Raises
    /// `projected` if it moved a body (before the pass's last barrier, which orders it for
    /// every worker's read after).
    fn project_joints(&self, crew: Crew, pass: usize, projected: &AtomicBool) {
        let stamps = (self.stamps, pass);
        self.joint_colours_each(crew, |joint, view, sims| {
            if joint.project_shared(view, sims, stamps) {
                projected.store(true, Ordering::Relaxed);
            }
        });
        if self.joint_graph.overflow.is_empty() {
            return;
        }
        self.serial(crew, |s| {
            let (view, sims) = s.bodies.split();
            for &j in &self.joint_graph.overflow {
                if s.joints[j as usize].project_shared(&view, sims, stamps) {
                    projected.store(true, Ordering::Relaxed);
                }
            }
        });
    }

    /// `f` on this worker's share of each colour of the general joints, a barrier after each
    /// colour.
    fn joint_colours_each(
        &self,
        crew: Crew,
        f: impl Fn(&mut JointConstraint, &StateView, &[crate::body::BodySim]),
    ) {
        for colour in &self.joint_graph.colours {
            if colour.is_empty() {
                continue;
            }
            // SAFETY: the crew's: within a colour the joints share no moving body, and each
            // worker takes its own share of them (the shared stores write only moving bodies);
            // the states and joints are not otherwise touched until the barrier, which orders
            // the colours.
            unsafe {
                let (view, sims) = self.shared_bodies();
                for &j in &colour[crew.share(colour.len())] {
                    f(&mut *self.joints.0 .0.add(j as usize), &view, sims);
                }
            }
            self.barrier.wait();
        }
    }

    /// The workers' shared view of the bodies' states, and their cold half.
    ///
    /// # Safety
    /// Only while no worker holds the bodies whole (outside the serial stage), and writing
    /// only as [`StateView`] allows.
    unsafe fn shared_bodies(&self) -> (StateView<'_>, &[crate::body::BodySim]) {
        // SAFETY: the states buffer outlives the stages; the cold half is only read while
        // the workers run.
        unsafe {
            let view = StateView::from_raw(self.states.0, self.body_count);
            (view, &(*self.bodies.0).sims)
        }
    }

    /// What a joint's solve needs of the pass (`None` for the warm start).
    fn pass_context(&self, pass: JointPass, elapsed: Real) -> Option<PassContext> {
        match pass {
            JointPass::WarmStart => None,
            JointPass::Solve { use_bias } => Some(PassContext {
                h: self.step.h,
                use_bias,
                elapsed,
                joint: self.step.joint,
            }),
        }
    }

    /// The serial stage's pass over the joints: the chains, the lane-solved joints no colour
    /// took, the general joints no colour took, then the vehicles.
    fn serial_joints(&self, s: &mut Serial, pass: JointPass, elapsed: Real) {
        match pass {
            JointPass::WarmStart => s.chains.warm_start(s.points, s.bodies),
            JointPass::Solve { use_bias } => s.chains.solve(s.points, s.bodies, use_bias),
        }
        self.joint_overflow(s, pass);
        let overflow = &self.joint_graph.overflow;
        match self.pass_context(pass, elapsed) {
            None => {
                for &j in overflow {
                    s.joints[j as usize].warm_start(s.bodies);
                }
                s.vehicles.warm_start(s.bodies, self.step.h);
            }
            Some(context) => {
                for &j in overflow {
                    s.joints[j as usize].solve(s.bodies, &context);
                }
                s.vehicles.solve(s.bodies, &context);
            }
        }
    }

    /// One pass over the joints no colour took (worker 0, in the serial stage, whose `Serial`
    /// is the proof).
    fn joint_overflow(&self, s: &mut Serial, pass: JointPass) {
        // The serial stage holds the bodies whole.
        let view = StateView::of(&mut s.bodies.states);
        let all = |n| 0..n;
        // SAFETY: the serial stage's (a `Serial` is made only there): the overflow lists are
        // worker 0's alone until the barrier closing the stage.
        unsafe {
            let (p, l) = self
                .joint_overflow
                .parts(all(self.joint_overflow.2), all(self.joint_overflow.3));
            joint_pass(p, l, view, pass, self.shape.isotropic);
        }
    }

    /// One pass over every colour, this worker's share of each, a barrier after each colour.
    fn colours(&self, crew: Crew, pass: Pass) {
        // SAFETY: the crew's: this worker writes only the moving bodies of its share until
        // the next barrier.
        let view = unsafe { StateView::from_raw(self.states.0, self.body_count) };
        for colour in self.colours {
            if colour.is_empty() {
                continue;
            }
            let part = crew.share(colour.len());
            let (start, len) = (colour.start + part.start, part.len());
            let work = ContactColour {
                part: (start, len),
                view,
                settings: &self.step.contact,
                pass,
                shape: &self.shape,
            };
            // SAFETY: within a colour the workers' parts are disjoint bundles touching
            // disjoint moving bodies; the barrier orders the colours.
            unsafe { self.step.kernels.run(&self.lists, work) };
            self.barrier.wait();
        }
    }
}

/// What the serial stage works on (worker 0 alone, the others at the barrier after it). Made
/// only by [`Stages::serial`], so holding one is the proof that worker 0 has the step's
/// buffers to itself.
struct Serial<'a> {
    bodies: &'a mut Bodies,
    joints: &'a mut [JointConstraint],
    vehicles: &'a mut Vehicles,
    points: &'a mut [PointRow],
    chains: &'a mut Chains,
    contacts: &'a mut Vec<ContactConstraint>,
}

/// One lane count's joint bundles, as the workers share them: the point and length lists and
/// their lengths.
#[derive(Clone, Copy)]
pub(super) struct JointLists<const L: usize>(
    Shared<PointBundle<L>>,
    Shared<LengthBundle<L>>,
    usize,
    usize,
);

impl<const L: usize> JointLists<L> {
    pub(super) fn of(lists: &mut crate::joint::JointListsOf<L>) -> JointLists<L> {
        JointLists(
            Shared(lists.points.as_mut_ptr()),
            Shared(lists.lengths.as_mut_ptr()),
            lists.points.len(),
            lists.lengths.len(),
        )
    }

    /// The two lists' buffers.
    pub(super) fn raw(&self) -> (*mut PointBundle<L>, *mut LengthBundle<L>) {
        (self.0 .0, self.1 .0)
    }

    /// Point bundles `p` and length bundles `l`.
    ///
    /// # Safety
    /// In bounds, and no other worker touches the same bundles meanwhile.
    pub(super) unsafe fn parts<'a>(
        &self,
        p: std::ops::Range<usize>,
        l: std::ops::Range<usize>,
    ) -> (&'a mut [PointBundle<L>], &'a mut [LengthBundle<L>]) {
        // SAFETY: the caller's contract.
        unsafe {
            (
                std::slice::from_raw_parts_mut(self.0 .0.add(p.start), p.len()),
                std::slice::from_raw_parts_mut(self.1 .0.add(l.start), l.len()),
            )
        }
    }
}

/// One lane count's bundles and, index for index, their cold halves, as the workers share them.
pub(super) struct Lists<const L: usize>(Shared<Bundle<L>>, Shared<BundleCold<L>>);

impl<const L: usize> Lists<L> {
    pub(super) fn of(bundles: &mut Packed<L>) -> Lists<L> {
        Lists(
            Shared(bundles.hot.as_mut_ptr()),
            Shared(bundles.cold.as_mut_ptr()),
        )
    }

    /// Bundles `start..start + len` and their cold halves.
    ///
    /// # Safety
    /// In bounds of the lists, and no other worker touches the same bundles meanwhile.
    pub(super) unsafe fn part<'a>(
        &self,
        start: usize,
        len: usize,
    ) -> (&'a mut [Bundle<L>], &'a mut [BundleCold<L>]) {
        // SAFETY: the caller's contract.
        unsafe {
            (
                std::slice::from_raw_parts_mut(self.0 .0.add(start), len),
                std::slice::from_raw_parts_mut(self.1 .0.add(start), len),
            )
        }
    }
}

/// One lane count's bundles, hot and cold halves in two lists of the same length.
#[derive(Debug, Default)]
pub(super) struct Packed<const L: usize> {
    pub(super) hot: Vec<Bundle<L>>,
    pub(super) cold: Vec<BundleCold<L>>,
}

/// What preparing a share of the bundles reads: the bodies at the start of the step, the
/// step's contacts, the colours' contact lists and each bundle's span of one.
pub(super) struct Preparation<'a> {
    pub(super) bodies: &'a Bodies,
    pub(super) contacts: &'a [Contact],
    pub(super) colours: &'a [Vec<u32>],
    pub(super) spans: &'a [Span],
    pub(super) settings: &'a ContactSettings,
}

/// A bundle's contacts: `start..end` of colour `colour`'s list.
#[derive(Clone, Copy, Debug)]
pub(super) struct Span {
    pub(super) colour: u32,
    pub(super) start: u32,
    pub(super) end: u32,
}

/// The coloured contacts packed for one lane count (the others stay empty).
#[derive(Debug, Default)]
pub(super) struct Bundles {
    pub(super) one: Packed<1>,
    pub(super) four: Packed<4>,
    pub(super) eight: Packed<8>,
    /// Each colour's bundles, as a range of the filled list.
    pub(super) colours: Vec<std::ops::Range<usize>>,
    /// Each bundle's contacts, as a span of its colour's list.
    pub(super) spans: Vec<Span>,
}

impl Bundles {
    /// Lays out every colour of `colouring`, colour after colour, `lanes` contacts a bundle,
    /// and sizes the list of that lane count to hold them (the workers then prepare them). The
    /// lists keep their bundles from step to step, so that a settled scene neither allocates
    /// nor copies a bundle.
    pub(super) fn layout(&mut self, colouring: &Colouring, lanes: usize) {
        /// `len` bundles if these are the lists of `lanes` lanes, else none.
        fn size<const L: usize>(out: &mut Packed<L>, lanes: usize, len: usize) {
            let len = if lanes == L { len } else { 0 };
            out.hot.resize_with(len, Bundle::empty);
            out.cold.resize_with(len, BundleCold::default);
        }
        self.colours.clear();
        self.spans.clear();
        for (c, colour) in colouring.colours.iter().enumerate() {
            let first = self.spans.len();
            for start in (0..colour.len()).step_by(lanes) {
                self.spans.push(Span {
                    colour: c as u32,
                    start: start as u32,
                    end: (start + lanes).min(colour.len()) as u32,
                });
            }
            self.colours.push(first..self.spans.len());
        }
        let len = self.spans.len();
        size(&mut self.one, lanes, len);
        size(&mut self.four, lanes, len);
        size(&mut self.eight, lanes, len);
    }
}

/// The contact bundle lists of each lane count, as the workers share them.
pub(super) struct ContactLists;

impl ByLanes for ContactLists {
    type Of<const L: usize> = Lists<L>;
}

/// The joint bundle lists of each lane count, as the workers share them.
pub(super) struct JointListsByLanes;

impl ByLanes for JointListsByLanes {
    type Of<const L: usize> = JointLists<L>;
}

/// Preparing bundles `range` from `input` (see [`Bundle::prepare_with`]). Its contract
/// ([`LaneWork::run`]): `range` within the lists, and no other worker touching those bundles
/// meanwhile.
struct Prepare<'a> {
    range: std::ops::Range<usize>,
    input: &'a Preparation<'a>,
}

impl LaneWork for Prepare<'_> {
    type Lanes = ContactLists;
    type Output = ();

    /// # Safety
    /// As [`LaneWork::run`]'s.
    #[inline(always)]
    unsafe fn run<const L: usize, const AVX2: bool>(self, lists: &Lists<L>) {
        let Prepare { range, input } = self;
        // SAFETY: the work's contract.
        let (hot, cold) = unsafe { lists.part(range.start, range.len()) };
        let mut inputs = bundle::Inputs::default();
        let sources = (input.bodies, input.contacts);
        for ((bundle, cold), span) in hot.iter_mut().zip(cold).zip(&input.spans[range]) {
            let colour = &input.colours[span.colour as usize];
            let indices = &colour[span.start as usize..span.end as usize];
            // `AVX2` as `LaneWork::run`'s.
            bundle.prepare_with::<AVX2>(cold, &mut inputs, sources, indices, input.settings);
        }
    }
}

/// Handing the impulses of bundles `range` back to the step's `contacts`. Its contract: `range`
/// within the lists, and `contacts` the step's list (`len` long), whose contacts in these
/// bundles no other worker touches meanwhile (a contact is in one bundle).
struct Unpack {
    range: std::ops::Range<usize>,
    contacts: Shared<Contact>,
    len: usize,
}

impl LaneWork for Unpack {
    type Lanes = ContactLists;
    type Output = ();

    /// # Safety
    /// As [`LaneWork::run`]'s.
    #[inline(always)]
    unsafe fn run<const L: usize, const AVX2: bool>(self, lists: &Lists<L>) {
        // SAFETY: the work's contract.
        unsafe {
            let (hot, cold) = lists.part(self.range.start, self.range.len());
            for (bundle, cold) in hot.iter().zip(cold.iter()) {
                bundle.unpack_into(cold, self.contacts.0, self.len);
            }
        }
    }
}

/// One pass over bundles `part` (start, length) of a colour's contacts. Its contract
/// ([`LaneWork::run`]): the bundles within the lists, and no other worker touching them or
/// their moving bodies meanwhile.
struct ContactColour<'a> {
    part: (usize, usize),
    view: StateView<'a>,
    settings: &'a ContactSettings,
    pass: Pass,
    shape: &'a bundle::StepShape,
}

impl LaneWork for ContactColour<'_> {
    type Lanes = ContactLists;
    type Output = ();

    /// # Safety
    /// As [`LaneWork::run`]'s.
    #[inline(always)]
    unsafe fn run<const L: usize, const AVX2: bool>(self, lists: &Lists<L>) {
        // SAFETY: the work's contract; `AVX2` as `LaneWork::run`'s.
        unsafe {
            let part = lists.part(self.part.0, self.part.1);
            bundle::run::<L, AVX2>(part, self.view, self.settings, self.pass, self.shape);
        }
    }
}

/// One pass over point bundles `parts.0` and length bundles `parts.1` of a colour's joints.
/// Its contract as [`ContactColour`]'s.
struct JointColour<'a> {
    parts: (std::ops::Range<usize>, std::ops::Range<usize>),
    view: StateView<'a>,
    pass: JointPass,
    isotropic: bool,
}

impl LaneWork for JointColour<'_> {
    type Lanes = JointListsByLanes;
    type Output = ();

    /// # Safety
    /// As [`LaneWork::run`]'s.
    #[inline(always)]
    unsafe fn run<const L: usize, const AVX2: bool>(self, lists: &JointLists<L>) {
        // SAFETY: the work's contract; `AVX2` as `LaneWork::run`'s.
        unsafe {
            let (p, l) = lists.parts(self.parts.0, self.parts.1);
            joint_run::<L, AVX2>(p, l, self.view, self.pass, self.isotropic);
        }
    }
}

//! Projected Gauss-Seidel with substeps: the solve stage of the step.
//!
//! In: the solver bodies (gathered by the engine) and the step's prepared contact constraints
//! and joints. Out: the bodies' new velocities and poses, and every row's accumulated impulse.
//!
//! Per substep of `h = dt / substeps`: integrate velocities (semi-implicit Euler), impacts
//! (restitution of bouncy contacts closing within the substep, `impact.rs`), warm start (apply
//! the accumulated impulses), `iterations` biased passes (joints' position correction,
//! contacts' soft push-out), integrate positions, impacts again (of points closing within the
//! next substep, which the relax pass would stop), then `relax_iterations` passes without bias
//! (Catto's "soft step", Box2D v3), which remove the velocity the push added so that it does
//! not show as bounce. After the substeps, the bodies' poses are composed from their motion
//! over the step.
//!
//! Warm starting after the first substep is carried, not recomputed, when the step has no
//! joints: a contact's Jacobians are fixed for the step, so what the warm start of substep
//! `k + 1` applies to a body (`M^-1 J^T λ_k`, the impulses accumulated by the end of substep
//! `k`) is exactly what every contact did to it over substep `k` (the warm start of `λ_{k-1}`
//! and the passes' increments up to `λ_k`). Each body keeps its velocity as integrated at the
//! start of a substep, and the next integration adds back the difference (see
//! `integrate.rs`): one pass over the bodies instead of a pass over every
//! contact and a barrier per colour. Joints re-prepare their rows between substeps, so a step
//! with joints warm starts every substep.

use crate::body::{Bodies, BodyState, StateView};
use crate::bundle::{self, Bundle, BundleCold, Pass};
use crate::contact::{Contact, ContactConstraint};
use crate::graph::Colouring;
use crate::impact::Impacts;
use crate::integrate::{Carry, Integration, Velocities};
use crate::joint::bundles::{fill, unpack, Rows, Source};
use crate::joint::{
    joint_pass, Chains, JointBundles, JointConstraint, JointPass, LengthBundle, LengthRow,
    PassContext, PointBundle, PointRow, Stamps, PROJECTION_PASSES,
};
use crate::parallel::{share, Barrier, Pool, Shared};
use crate::settings::MAX_THREADS;
use crate::softness::{Softness, SpringCache};
use crate::step::{ContactSettings, StepContext};
use crate::vehicle::Vehicles;
use crate::{Real, Vector};
use std::sync::atomic::{AtomicBool, Ordering};
/// The solver's buffers, kept between steps so that a settled scene allocates nothing.
#[derive(Debug, Default)]
pub struct Solver {
    /// The step's contacts: the engine fills it, and finds each one's impulses in it after the
    /// solve.
    pub contacts: Vec<Contact>,
    /// The contacts the wide kernel does not take (soft materials, more than four points, none
    /// left in the colours), prepared one by one and solved before the colours.
    scalar: Vec<ContactConstraint>,
    /// The step's joints, solved before the contacts in every pass.
    pub joints: Vec<JointConstraint>,
    /// `joints` in colours sharing no moving body, solved (and projected) side by side by the
    /// workers, colour after colour; those no colour took go to the serial stage.
    joint_graph: Colouring,
    /// The joints that are a point part alone (plain ball joints, [`crate::joint::BallJoint::plain`]):
    /// the engine fills it, and finds each one's impulse in it after the solve. Coloured and
    /// solved in lanes before the other joints.
    pub points: Vec<PointRow>,
    /// The joints that are a length part alone (distance joints without limits,
    /// [`crate::joint::DistanceJoint::plain`]), as `points`.
    pub lengths: Vec<LengthRow>,
    /// The step's vehicles (wheels and drive trains), solved after the joints in the serial
    /// stage: the engine fills them, and finds their impulses and spins in them after the
    /// solve.
    pub vehicles: Vehicles,
    /// Each joint's last spring coefficients, for the engine to build the step's point and
    /// length parts without recomputing them.
    pub spring_cache: SpringCache,
    /// The colours of the joints solved in lanes (apart from the contacts'), and their bundles.
    joint_colouring: Colouring,
    joint_bundles: JointBundles,
    /// The chains of rigid ball joints, solved each as a whole in the serial stage.
    chains: Chains,
    /// Which projection pass last moved each body (`project.rs`).
    stamps: Stamps,
    /// What the chains and the joints' colours were made from (kept when it does not change).
    joint_key: JointKey,
    /// The contacts' colours.
    colouring: Colouring,
    /// What the contacts' colours and their bundles' layout were made from (kept when it does
    /// not change).
    contact_key: ContactKey,
    /// The coloured contacts in lanes, for the lane count of this step.
    bundles: Bundles,
    /// Each body's velocities as integrated at the start of the current substep, before any
    /// impulse (for the carried warm start, see the module's documentation).
    starts: Vec<Velocities>,
    /// Each body's carried difference within a substep's integration (`integrate.rs`).
    carried: Vec<Velocities>,
    /// The step's bouncy contacts, for the impact stage (`impact.rs`).
    impacts: Impacts,
    /// What integrating the bodies' velocities reads, copied from them once a step.
    integration: Integration,
    /// Warm start every substep even without joints (to hold the carried warm start to it).
    #[cfg(test)]
    classic_warm_start: bool,
    /// Take the full inertia products even when every body's is a multiple of the identity
    /// (to hold the short ones to them).
    #[cfg(test)]
    full_inertia: bool,
    /// Solve every point slot of the bundles even when no contact has as many points.
    #[cfg(test)]
    all_points: bool,
    /// The worker threads (none until `threads` asks for more than one).
    pub(crate) pool: Pool,
}

/// Which bodies each contact joins, whether each of them moves, whether it fits the wide
/// kernel, and the lane count: all that the contacts' colouring and their bundles' layout are
/// made from, this step's beside the last step's. While they stay (most steps of a scene whose
/// contacts neither begin nor end) the colours and the layout stand: in a settled `pyramid`,
/// comparing the keys costs ~15 instructions a contact where colouring cost ~80.
#[derive(Debug, Default)]
struct ContactKey {
    now: Vec<(u32, u32, u8)>,
    last: Vec<(u32, u32, u8)>,
    lanes: [usize; 2],
}

impl ContactKey {
    /// This step's key for `contacts` over `bodies` in bundles of `lanes`, the last one kept;
    /// whether they differ.
    fn fill(&mut self, contacts: &[Contact], bodies: &Bodies, lanes: usize) -> bool {
        std::mem::swap(&mut self.now, &mut self.last);
        self.now.clear();
        let moving = |b: u32| b != crate::body::STATIC && bodies.sims[b as usize].is_dynamic();
        self.now.extend(contacts.iter().map(|c| {
            let (a, b) = (c.body_a, c.body_b);
            let flags = u8::from(moving(a)) << 1 | u8::from(moving(b)) << 2;
            (a, b, flags | u8::from(c.fits_wide()))
        }));
        self.lanes = [lanes, self.lanes[0]];
        self.now != self.last || self.lanes[0] != self.lanes[1]
    }
}

/// Which bodies each lane-solved joint part joins, whether each of them moves, and whether a
/// point part is rigid (a chain candidate): what the chains and the joints' colouring are
/// made from, this step's beside the last step's.
#[derive(Debug, Default)]
struct JointKey {
    now: Vec<(u32, u32, u8)>,
    last: Vec<(u32, u32, u8)>,
}

impl JointKey {
    /// This step's key, the last one kept; whether they differ.
    fn fill(
        &mut self,
        points: &[PointRow],
        lengths: &[LengthRow],
        bodies: &Bodies,
        rigid: [Softness; 2],
    ) -> bool {
        std::mem::swap(&mut self.now, &mut self.last);
        self.now.clear();
        let moving = |b: u32| b != crate::body::STATIC && bodies.sims[b as usize].is_dynamic();
        let flags = |a: u32, b: u32| u8::from(moving(a)) << 1 | u8::from(moving(b)) << 2;
        self.now.extend(points.iter().map(|p| {
            let (a, b) = (p.ends.body_a, p.ends.body_b);
            (a, b, flags(a, b) | u8::from(*p.softness() == rigid))
        }));
        self.now.extend(lengths.iter().map(|l| {
            let (a, b) = (l.ends.body_a, l.ends.body_b);
            (a, b, flags(a, b) | 8)
        }));
        self.now != self.last
    }
}

/// Fewest bundles a worker of the solve is given (see [`Solver::solve`]). `pyramid`'s ~170
/// bundles (`--no-sleep`) solve in 0.39 ms on two workers against 0.55 on one (in runs where
/// this project's two virtual cores sit near each other: docs/PERFORMANCE.md, fifteenth
/// session); at 128 (before) they stayed on one. One under `cfg(fuzzing)` (which cargo-fuzz
/// sets), so that the fuzz targets' small worlds take the split paths too.
const BUNDLES_PER_WORKER: usize = if cfg!(fuzzing) { 1 } else { 64 };

/// The stage list of one step, as every worker runs it (see `parallel.rs`).
struct Stages<'a> {
    bodies: Shared<Bodies>,
    /// The hot states, taken once before the workers start.
    states: Shared<BodyState>,
    body_count: usize,
    /// The bodies' integration data (`integrate.rs`).
    integration: &'a Integration,
    /// Each body's velocities at the start of the substep and its carried difference, when
    /// warm starting is carried (`None`: warm started every substep).
    starts: Option<(Shared<Velocities>, Shared<Velocities>)>,
    /// Each lane count's bundle list (only one is filled), and the colours' ranges in it.
    lists: (Lists<1>, Lists<4>, Lists<8>),
    lanes: usize,
    colours: &'a [std::ops::Range<usize>],
    /// The colours' contacts and each bundle's span of them (see [`Bundles`]).
    colour_lists: &'a [Vec<u32>],
    spans: &'a [Span],
    /// The step's contacts: read to prepare the bundles, their impulses written back after.
    contacts: (Shared<Contact>, usize),
    /// The general joints (solved by their colours, the serial stage taking the rest).
    joints: (Shared<JointConstraint>, usize),
    /// `joints`' colours and the ones no colour took.
    joint_graph: &'a Colouring,
    /// Whether there are joints in `joints` to project after the substeps (`project.rs`).
    project: bool,
    /// Whether a projection pass moved any body, one flag a pass: the passes stop after one
    /// that moved nothing. (Every joint's answer is the same on any worker count, so is
    /// their OR, and every worker reads it after the pass's last barrier.)
    projected: [AtomicBool; PROJECTION_PASSES],
    /// Which pass last moved each body: later passes project only the joints it left due.
    stamps: &'a Stamps,
    vehicles: Shared<Vehicles>,
    /// The lane-solved joints' rows (point parts, length parts), their colouring and where
    /// each bundle's parts are in it (and the overflow's), and the chains of point parts
    /// solved whole.
    joint_rows: Rows,
    joint_colouring: &'a Colouring,
    joint_sources: &'a (Vec<Source>, Vec<Source>),
    joint_overflow_sources: &'a (Vec<Source>, Vec<Source>),
    chains: Shared<Chains>,
    /// The lane-solved joints' bundles (one lane count filled, as `lists`), their colours'
    /// ranges, and the ones no colour took (solved by the serial stage).
    joint_lists: (JointLists<1>, JointLists<4>, JointLists<8>),
    joint_colours: &'a [(std::ops::Range<usize>, std::ops::Range<usize>)],
    joint_overflow: JointLists<1>,
    /// The overflow contacts, prepared one by one.
    scalar: Shared<Vec<ContactConstraint>>,
    /// The bouncy contacts' impacts, if the step has any.
    impacts: Option<Shared<Impacts>>,
    /// The step's context: its substep, softness, settings.
    step: &'a StepContext,
    friction_in_biased_pass: bool,
    /// What the lane kernels may assume of the whole step (`bundle::StepShape`).
    shape: bundle::StepShape,
    substeps: u32,
    barrier: &'a Barrier,
}

// SAFETY: the shared pointers are used as `run`'s contract says.
unsafe impl Sync for Stages<'_> {}

impl Stages<'_> {
    /// Worker `worker` of `workers`'s part of the step: integration of its share of the
    /// bodies, its share of each colour's bundles and joints, and (worker 0 only) the serial
    /// stage (chains, vehicles, what no colour took), each stage closed by a barrier.
    ///
    /// # Safety
    /// Every worker of `workers` must run this at once with the same `self`, and nothing else
    /// may touch the bodies, joints, contacts or bundles until all have returned.
    unsafe fn run(&self, worker: usize, workers: usize) {
        let (h, barrier) = (self.step.h, self.barrier);
        // SAFETY: each worker prepares its own share of the bundles, reading the bodies and
        // contacts, which nothing writes until the barrier.
        unsafe { self.prepare(worker, workers) };
        // SAFETY: each worker its own share of the point parts.
        unsafe { self.joint_masses(worker, workers) };
        barrier.wait();
        // SAFETY: each worker fills its own share of the joint bundles, reading the rows,
        // which nothing writes until the first joint pass, after the barrier closing the
        // first substep's integration (which touches neither).
        unsafe { self.joint_bundles(worker, workers, true) };
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
                self.integration
                    .velocities(self.states.0, (worker, workers), h, carry)
            };
            barrier.wait();
            self.impacts(worker);
            if self.starts.is_none() || substep == 0 {
                self.joint_colours(worker, workers, JointPass::WarmStart);
                self.general_joints(worker, workers, JointPass::WarmStart, start);
                self.serial(worker, |mut s| {
                    self.serial_joints(&mut s, JointPass::WarmStart, start);
                    for c in s.contacts.iter() {
                        c.warm_start(s.bodies);
                    }
                });
                self.colours(worker, workers, Pass::WarmStart);
            }
            for _ in 0..self.step.settings.iterations.max(1) {
                let friction = self.friction_in_biased_pass;
                let pass = JointPass::Solve { use_bias: true };
                self.joint_colours(worker, workers, pass);
                self.general_joints(worker, workers, pass, start);
                self.serial(worker, |mut s| {
                    self.serial_joints(&mut s, pass, start);
                    for c in s.contacts.iter_mut() {
                        c.solve(s.bodies, &self.step.contact, true, friction);
                    }
                });
                let pass = Pass::Solve {
                    use_bias: true,
                    friction,
                };
                self.colours(worker, workers, pass);
            }
            self.integrate_positions(worker, workers);
            barrier.wait();
            self.impacts(worker);
            for _ in 0..self.step.settings.relax_iterations {
                let pass = JointPass::Solve { use_bias: false };
                self.joint_colours(worker, workers, pass);
                self.general_joints(worker, workers, pass, start + h);
                self.serial(worker, |mut s| {
                    self.serial_joints(&mut s, pass, start + h);
                    for c in s.contacts.iter_mut() {
                        c.solve(s.bodies, &self.step.contact, false, true);
                    }
                });
                let pass = Pass::Solve {
                    use_bias: false,
                    friction: true,
                };
                self.colours(worker, workers, pass);
            }
        }
        if self.project {
            for (pass, projected) in self.projected.iter().enumerate() {
                self.project_joints(worker, workers, pass, projected);
                if !projected.load(Ordering::Relaxed) {
                    break;
                }
            }
        }
        // SAFETY: each worker unpacks its own share of the bundles, each into the contacts it
        // was prepared from (a contact is in one bundle).
        unsafe { self.unpack(worker, workers) };
        // SAFETY: likewise each worker its own share of the joint bundles, each into the
        // rows it was filled from.
        unsafe { self.joint_bundles(worker, workers, false) };
    }

    /// The effective masses (`K^-1`) of this worker's share of the point parts.
    ///
    /// # Safety
    /// As [`Stages::run`]; nothing else touches the rows during this stage.
    unsafe fn joint_masses(&self, worker: usize, workers: usize) {
        let (rows, len) = self.joint_rows.points;
        let range = share(len, worker, workers);
        // SAFETY: disjoint shares of the rows.
        let mine = unsafe { std::slice::from_raw_parts_mut(rows.add(range.start), range.len()) };
        crate::joint::prepare_masses(mine);
    }

    /// This worker's share of the joint bundles (and, worker 0, the overflow's): filled from
    /// the rows (`fill_them`), or their impulses handed back to them.
    ///
    /// # Safety
    /// As [`Stages::run`]: the rows are only read while the bundles are filled, and each
    /// bundle writes back only its own parts' rows.
    unsafe fn joint_bundles(&self, worker: usize, workers: usize, fill_them: bool) {
        let (sources, colouring, rows) =
            (self.joint_sources, self.joint_colouring, self.joint_rows);
        let range = (
            share(sources.0.len(), worker, workers),
            share(sources.1.len(), worker, workers),
        );
        // SAFETY: disjoint shares of the bundles, laid out for the sources.
        unsafe {
            match (self.lanes, fill_them) {
                (1, true) => fill(self.joint_lists.0.raw(), sources, range, colouring, rows),
                (1, false) => unpack(self.joint_lists.0.raw(), sources, range, colouring, rows),
                (4, true) => fill(self.joint_lists.1.raw(), sources, range, colouring, rows),
                (4, false) => unpack(self.joint_lists.1.raw(), sources, range, colouring, rows),
                (_, true) => fill(self.joint_lists.2.raw(), sources, range, colouring, rows),
                (_, false) => unpack(self.joint_lists.2.raw(), sources, range, colouring, rows),
            }
            if worker == 0 {
                let (lists, sources) = (self.joint_overflow.raw(), self.joint_overflow_sources);
                let all = (0..sources.0.len(), 0..sources.1.len());
                match fill_them {
                    true => fill(lists, sources, all, colouring, rows),
                    false => unpack(lists, sources, all, colouring, rows),
                }
            }
        }
    }

    /// The impacts (`impact.rs`) of points that will close within the next substep of the
    /// bodies' motion, if the step has bouncy contacts: before each substep's solve, and
    /// again after its positions, before the relax pass, which would stop a speculative point
    /// closing within the next substep.
    fn impacts(&self, worker: usize) {
        let Some(impacts) = self.impacts else {
            return;
        };
        // SAFETY: worker 0 alone, the others at the barrier after it.
        unsafe {
            self.serial(worker, |s| {
                // SAFETY: `starts` has a slot per body, and no one else reads it now.
                let starts = self
                    .starts
                    .map(|(starts, _)| std::slice::from_raw_parts_mut(starts.0, self.body_count));
                let threshold = self.step.settings.restitution_threshold;
                (*impacts.0).substep(s.bodies, starts, self.step.h, threshold);
            })
        };
    }

    /// This worker's share of the bundles, prepared from the step's contacts.
    ///
    /// # Safety
    /// As [`Stages::run`]: no one writes the bodies or contacts meanwhile.
    unsafe fn prepare(&self, worker: usize, workers: usize) {
        let range = share(self.spans.len(), worker, workers);
        // SAFETY: read only during this stage (the caller's contract).
        let input = unsafe {
            Preparation {
                bodies: &*self.bodies.0,
                contacts: std::slice::from_raw_parts(self.contacts.0 .0, self.contacts.1),
                colours: self.colour_lists,
                spans: self.spans,
                settings: &self.step.contact,
            }
        };
        // SAFETY: disjoint shares of the filled list.
        unsafe {
            match self.lanes {
                1 => prepare_part::<1, false>(&self.lists.0, range, &input),
                4 => prepare_part::<4, false>(&self.lists.1, range, &input),
                _ => prepare_part_eight(&self.lists.2, range, &input),
            }
        }
    }

    /// This worker's share of the bundles' impulses, handed back to the contacts.
    ///
    /// # Safety
    /// As [`Stages::run`].
    unsafe fn unpack(&self, worker: usize, workers: usize) {
        let range = share(self.spans.len(), worker, workers);
        let (contacts, len) = self.contacts;
        // SAFETY: disjoint shares; each bundle writes only its own contacts.
        unsafe {
            match self.lanes {
                1 => unpack_part(&self.lists.0, range, contacts, len),
                4 => unpack_part(&self.lists.1, range, contacts, len),
                _ => unpack_part(&self.lists.2, range, contacts, len),
            }
        }
    }

    /// Integrates the positions of this worker's share of the bodies over the substep.
    fn integrate_positions(&self, worker: usize, workers: usize) {
        let range = share(self.body_count, worker, workers);
        // Eight at a time in lanes where the CPU has AVX2 (the same bits), the rest one by one.
        #[cfg(target_arch = "x86_64")]
        let range = if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (just checked); each worker takes a disjoint share of
            // the bodies, through the buffer's pointer taken before the workers started.
            let done = unsafe {
                crate::integrate::positions_eights(self.states.0, range.clone(), self.step.h)
            };
            range.start + done..range.end
        } else {
            range
        };
        for i in range {
            // SAFETY: each worker takes a disjoint share of the bodies, through the buffer's
            // pointer taken before the workers started.
            unsafe { (*self.states.0.add(i)).integrate_position(self.step.h) };
        }
    }

    /// `f` on worker 0 alone, the others waiting at the barrier after it.
    unsafe fn serial(&self, worker: usize, f: impl FnOnce(Serial)) {
        if worker == 0 {
            // SAFETY: the other workers touch nothing until the barrier below.
            unsafe {
                f(Serial {
                    bodies: &mut *self.bodies.0,
                    joints: std::slice::from_raw_parts_mut(self.joints.0 .0, self.joints.1),
                    vehicles: &mut *self.vehicles.0,
                    points: std::slice::from_raw_parts_mut(
                        self.joint_rows.points.0,
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
    unsafe fn joint_colours(&self, worker: usize, workers: usize, pass: JointPass) {
        let view = StateView::from_raw(self.states.0, self.body_count);
        for (points, lengths) in self.joint_colours {
            if points.is_empty() && lengths.is_empty() {
                continue;
            }
            let (p, l) = (
                share(points.len(), worker, workers),
                share(lengths.len(), worker, workers),
            );
            let (p, l) = (
                points.start + p.start..points.start + p.end,
                lengths.start + l.start..lengths.start + l.end,
            );
            // SAFETY: within a colour the workers' parts are disjoint bundles touching
            // disjoint moving bodies; the barrier orders the colours.
            unsafe {
                match self.lanes {
                    1 => {
                        let (p, l) = self.joint_lists.0.parts(p, l);
                        joint_pass(p, l, view, pass, self.shape.isotropic)
                    }
                    4 => {
                        let (p, l) = self.joint_lists.1.parts(p, l);
                        joint_pass(p, l, view, pass, self.shape.isotropic)
                    }
                    _ => {
                        let (p, l) = self.joint_lists.2.parts(p, l);
                        #[cfg(target_arch = "x86_64")]
                        crate::joint::joint_pass_avx2(p, l, view, pass, self.shape.isotropic);
                        #[cfg(not(target_arch = "x86_64"))]
                        joint_pass(p, l, view, pass, self.shape.isotropic);
                    }
                }
            }
            self.barrier.wait();
        }
    }

    /// One pass over the general joints' colours, this worker's share of each colour's
    /// joints, a barrier after each colour; `elapsed` is the time since the step began at
    /// which the bodies' positions now stand (for moving targets).
    fn general_joints(&self, worker: usize, workers: usize, pass: JointPass, elapsed: Real) {
        let context = self.pass_context(pass, elapsed);
        self.joint_colours_each(worker, workers, |joint, view, sims| match &context {
            None => joint.warm_start_shared(view, sims),
            Some(context) => joint.solve_shared(view, sims, context),
        });
    }

    /// One pass of the position projection over the general joints: their colours as
    /// [`Stages::general_joints`], then the ones no colour took in the serial stage. Raises
    /// `projected` if it moved a body (before the pass's last barrier, which orders it for
    /// every worker's read after).
    fn project_joints(&self, worker: usize, workers: usize, pass: usize, projected: &AtomicBool) {
        let stamps = (self.stamps, pass);
        self.joint_colours_each(worker, workers, |joint, view, sims| {
            if joint.project_shared(view, sims, stamps) {
                projected.store(true, Ordering::Relaxed);
            }
        });
        if self.joint_graph.overflow.is_empty() {
            return;
        }
        // SAFETY: worker 0 alone, the others at the barrier after it.
        unsafe {
            self.serial(worker, |s| {
                let (view, sims) = s.bodies.split();
                for &j in &self.joint_graph.overflow {
                    if s.joints[j as usize].project_shared(&view, sims, stamps) {
                        projected.store(true, Ordering::Relaxed);
                    }
                }
            })
        };
    }

    /// `f` on this worker's share of each colour of the general joints, a barrier after each
    /// colour.
    fn joint_colours_each(
        &self,
        worker: usize,
        workers: usize,
        f: impl Fn(&mut JointConstraint, &StateView, &[crate::body::BodySim]),
    ) {
        for colour in &self.joint_graph.colours {
            if colour.is_empty() {
                continue;
            }
            // SAFETY: within a colour the joints share no moving body, and each worker takes
            // its own share of them (the shared stores write only moving bodies); the states
            // and joints are not otherwise touched until the barrier, which orders the colours.
            unsafe {
                let (view, sims) = self.shared_bodies();
                for &j in &colour[share(colour.len(), worker, workers)] {
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
        // SAFETY: the serial stage alone touches the bodies and the overflow lists.
        unsafe { self.joint_overflow(s.bodies, pass) };
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

    /// One pass over the joints no colour took (worker 0, in the serial stage).
    ///
    /// # Safety
    /// Only from the serial stage, which alone touches the bodies then.
    unsafe fn joint_overflow(&self, bodies: &mut Bodies, pass: JointPass) {
        let view = StateView::from_raw(bodies.states.as_mut_ptr(), bodies.len());
        let all = |n| 0..n;
        // SAFETY: the overflow lists are this stage's alone.
        unsafe {
            let (p, l) = self
                .joint_overflow
                .parts(all(self.joint_overflow.2), all(self.joint_overflow.3));
            joint_pass(p, l, view, pass, self.shape.isotropic);
        }
    }

    /// One pass over every colour, this worker's share of each, a barrier after each colour.
    unsafe fn colours(&self, worker: usize, workers: usize, pass: Pass) {
        let view = StateView::from_raw(self.states.0, self.body_count);
        for colour in self.colours {
            if colour.is_empty() {
                continue;
            }
            let part = share(colour.len(), worker, workers);
            let (start, len) = (colour.start + part.start, part.len());
            // SAFETY: within a colour the workers' parts are disjoint bundles touching
            // disjoint moving bodies; the barrier orders the colours.
            unsafe {
                match self.lanes {
                    1 => {
                        let part = self.lists.0.part(start, len);
                        bundle::pass(part, view, &self.step.contact, pass, &self.shape)
                    }
                    4 => {
                        let part = self.lists.1.part(start, len);
                        bundle::pass(part, view, &self.step.contact, pass, &self.shape)
                    }
                    _ => {
                        let part = self.lists.2.part(start, len);
                        #[cfg(target_arch = "x86_64")]
                        bundle::pass_avx2(part, view, &self.step.contact, pass, &self.shape);
                        #[cfg(not(target_arch = "x86_64"))]
                        bundle::pass(part, view, &self.step.contact, pass, &self.shape);
                    }
                }
            }
            self.barrier.wait();
        }
    }
}

/// What the serial stages work on (worker 0 alone).
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
struct JointLists<const L: usize>(
    Shared<PointBundle<L>>,
    Shared<LengthBundle<L>>,
    usize,
    usize,
);

impl<const L: usize> JointLists<L> {
    fn of(lists: &mut crate::joint::JointListsOf<L>) -> JointLists<L> {
        JointLists(
            Shared(lists.points.as_mut_ptr()),
            Shared(lists.lengths.as_mut_ptr()),
            lists.points.len(),
            lists.lengths.len(),
        )
    }

    /// The two lists' buffers.
    fn raw(&self) -> (*mut PointBundle<L>, *mut LengthBundle<L>) {
        (self.0 .0, self.1 .0)
    }

    /// Point bundles `p` and length bundles `l`.
    ///
    /// # Safety
    /// In bounds, and no other worker touches the same bundles meanwhile.
    unsafe fn parts<'a>(
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
struct Lists<const L: usize>(Shared<Bundle<L>>, Shared<BundleCold<L>>);

impl<const L: usize> Lists<L> {
    fn of(bundles: &mut Packed<L>) -> Lists<L> {
        Lists(
            Shared(bundles.hot.as_mut_ptr()),
            Shared(bundles.cold.as_mut_ptr()),
        )
    }

    /// Bundles `start..start + len` and their cold halves.
    ///
    /// # Safety
    /// In bounds of the lists, and no other worker touches the same bundles meanwhile.
    unsafe fn part<'a>(
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
struct Packed<const L: usize> {
    hot: Vec<Bundle<L>>,
    cold: Vec<BundleCold<L>>,
}

/// What preparing a share of the bundles reads: the bodies at the start of the step, the
/// step's contacts, the colours' contact lists and each bundle's span of one.
struct Preparation<'a> {
    bodies: &'a Bodies,
    contacts: &'a [Contact],
    colours: &'a [Vec<u32>],
    spans: &'a [Span],
    settings: &'a ContactSettings,
}

/// A bundle's contacts: `start..end` of colour `colour`'s list.
#[derive(Clone, Copy, Debug)]
struct Span {
    colour: u32,
    start: u32,
    end: u32,
}

/// Prepares bundles `range` of `lists` (see [`Bundle::prepare`]; `AVX2` only from the
/// AVX2-compiled caller, see `Bundle::prepare_with`).
///
/// # Safety
/// `range` within the lists, and no other worker touching those bundles meanwhile.
#[inline(always)]
unsafe fn prepare_part<const L: usize, const AVX2: bool>(
    lists: &Lists<L>,
    range: std::ops::Range<usize>,
    input: &Preparation,
) {
    // SAFETY: the caller's contract.
    let (hot, cold) = unsafe { lists.part(range.start, range.len()) };
    let mut inputs = bundle::Inputs::default();
    let sources = (input.bodies, input.contacts);
    for ((bundle, cold), span) in hot.iter_mut().zip(cold).zip(&input.spans[range]) {
        let indices = &input.colours[span.colour as usize][span.start as usize..span.end as usize];
        bundle.prepare_with::<AVX2>(cold, &mut inputs, sources, indices, input.settings);
    }
}

/// [`prepare_part`] for eight lanes, compiled with AVX2 when the CPU has it (the preparation's
/// lane loops then run as eight-wide vectors; the same operations, so the same bits).
///
/// # Safety
/// As [`prepare_part`].
unsafe fn prepare_part_eight(lists: &Lists<8>, range: std::ops::Range<usize>, input: &Preparation) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(lists: &Lists<8>, range: std::ops::Range<usize>, input: &Preparation) {
            // SAFETY: passed on from the caller.
            unsafe { prepare_part::<8, true>(lists, range, input) }
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (just checked), which is all `avx2` adds to the
            // caller's contract.
            return unsafe { avx2(lists, range, input) };
        }
    }
    // SAFETY: the caller's contract.
    unsafe { prepare_part::<8, false>(lists, range, input) }
}

/// Hands the impulses of bundles `range` of `lists` back to their contacts.
///
/// # Safety
/// `range` within the lists, and `contacts` the step's list, whose contacts in these bundles no
/// other worker touches meanwhile (a contact is in one bundle).
unsafe fn unpack_part<const L: usize>(
    lists: &Lists<L>,
    range: std::ops::Range<usize>,
    contacts: Shared<Contact>,
    len: usize,
) {
    // SAFETY: the caller's contract.
    unsafe {
        let (hot, cold) = lists.part(range.start, range.len());
        for (bundle, cold) in hot.iter().zip(cold.iter()) {
            bundle.unpack_into(cold, contacts.0, len);
        }
    }
}

/// The coloured contacts packed for one lane count (the others stay empty).
#[derive(Debug, Default)]
struct Bundles {
    one: Packed<1>,
    four: Packed<4>,
    eight: Packed<8>,
    /// Each colour's bundles, as a range of the filled list.
    colours: Vec<std::ops::Range<usize>>,
    /// Each bundle's contacts, as a span of its colour's list.
    spans: Vec<Span>,
}

impl Bundles {
    /// Lays out every colour of `colouring`, colour after colour, `lanes` contacts a bundle,
    /// and sizes the list of that lane count to hold them (the workers then prepare them). The
    /// lists keep their bundles from step to step, so that a settled scene neither allocates
    /// nor copies a bundle.
    fn layout(&mut self, colouring: &Colouring, lanes: usize) {
        fn size<const L: usize>(out: &mut Packed<L>, len: usize) {
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
        size(&mut self.one, if lanes == 1 { len } else { 0 });
        size(&mut self.four, if lanes == 4 { len } else { 0 });
        size(
            &mut self.eight,
            if lanes != 1 && lanes != 4 { len } else { 0 },
        );
    }
}

impl Solver {
    /// Runs `work(worker, workers)` for every worker of `workers` at once on the solver's
    /// threads (worker 0 on the calling thread), for the engine's other stages that split their
    /// work in fixed blocks (the narrow phase): one pool for the whole step.
    pub fn run_on_workers(&mut self, workers: usize, work: &(dyn Fn(usize, usize) + Sync)) {
        self.pool.run(workers.clamp(1, MAX_THREADS as usize), work);
    }

    /// Runs `work(piece, value)` for every piece of `pieces` at once on the solver's threads,
    /// a worker each (the first on the calling thread; at most [`MAX_THREADS`] pieces), for
    /// the engine's stages whose pieces each own what they change (runs of its lists, split
    /// before): one pool for the whole step.
    pub fn run_pieces<T: Send>(
        &mut self,
        pieces: impl IntoIterator<Item = T>,
        work: &(dyn Fn(usize, T) + Sync),
    ) {
        self.pool.run_pieces(pieces, work);
    }

    /// Whether this step's warm start is carried between substeps: when no joint re-prepares
    /// its rows (the module's documentation).
    fn carries_warm_start(&self) -> bool {
        #[cfg(test)]
        if self.classic_warm_start {
            return false;
        }
        self.joints.is_empty()
            && self.points.is_empty()
            && self.lengths.is_empty()
            && self.vehicles.is_empty()
    }

    /// What this step's lane kernels may assume ([`bundle::StepShape`]).
    fn step_shape(&self, bodies: &Bodies) -> bundle::StepShape {
        let shape = bundle::StepShape::of(bodies, &self.contacts);
        #[cfg(test)]
        let shape = bundle::StepShape {
            isotropic: shape.isotropic && !self.full_inertia,
            points: if self.all_points {
                crate::graph::WIDE_POINTS
            } else {
                shape.points
            },
        };
        shape
    }

    /// Runs the substeps over `bodies`, `self.joints` and `self.contacts` for the step
    /// `step` describes, and leaves each body's pose at the end of the step in its
    /// [`crate::body::BodySim`].
    pub fn solve(&mut self, bodies: &mut Bodies, step: &StepContext) {
        let (settings, substeps) = (&step.settings, step.substeps);
        let (contact, joint_settings) = (step.contact, step.joint);
        // Without a relax pass, friction has only the biased one.
        let friction_in_biased_pass =
            contact.friction_in_biased_pass || settings.relax_iterations == 0;
        if !settings.warm_starting {
            for j in &mut self.joints {
                j.reset_impulses();
            }
            for p in &mut self.points {
                p.impulse = Vector::zeros();
            }
            for l in &mut self.lengths {
                l.impulse = 0.0;
            }
            self.vehicles.reset_impulses();
            for c in &mut self.contacts {
                c.reset_impulses();
            }
        }
        let lanes = step.lanes;
        let rigid = [joint_settings.stabilisation, Softness::RIGID];
        // The chains' runs and the joints' colours depend only on which bodies each part
        // joins, whether those move, which point parts are rigid, and (the colours) which
        // parts the chains took: while those stay (most steps), the runs are walked and the
        // parts coloured once, and only the chains' factors are made again.
        let walk = self
            .joint_key
            .fill(&self.points, &self.lengths, bodies, rigid);
        let rechained = self.chains.build(&self.points, bodies, rigid, walk);
        if walk || rechained {
            let chained = &self.chains.chained;
            let points = self
                .points
                .iter()
                .zip(chained)
                .map(|(p, &chained)| (p.ends.body_a, p.ends.body_b, !chained));
            let lengths = self
                .lengths
                .iter()
                .map(|l| (l.ends.body_a, l.ends.body_b, true));
            self.joint_colouring
                .build_pairs(points.chain(lengths), bodies);
            // The chained point parts went to the overflow; the chains solve them instead.
            let split = self.points.len();
            self.joint_colouring
                .overflow
                .retain(|&i| i as usize >= split || !chained[i as usize]);
        }
        let split = self.points.len() as u32;
        self.joint_bundles
            .layout(&self.joint_colouring, split, lanes);
        if self.joints.is_empty() {
            self.joint_graph.clear();
        } else {
            let ends = self
                .joints
                .iter()
                .map(|j| (j.frame.body_a, j.frame.body_b, true));
            self.joint_graph.build_pairs(ends, bodies);
        }
        if self.contact_key.fill(&self.contacts, bodies, lanes) {
            self.colouring.build(&self.contacts, bodies);
            self.bundles.layout(&self.colouring, lanes);
        }
        self.scalar.clear();
        let contacts = &self.contacts;
        self.scalar.extend(
            self.colouring
                .overflow
                .iter()
                .map(|&c| ContactConstraint::new(bodies, &contacts[c as usize], c, &contact)),
        );
        // Each worker gets at least `BUNDLES_PER_WORKER` bundles or none is woken: below that,
        // waking threads and meeting at a barrier per colour costs more than it shares (a
        // small or mostly sleeping scene ran slower on two threads than on one). Any count
        // gives the same bits.
        let bundles = self.bundles.spans.len() + self.joint_bundles.len() + self.joints.len();
        let most = (bundles / BUNDLES_PER_WORKER).max(1);
        let workers = step.workers.min(most);
        let barrier = Barrier::new(workers);
        let shape = self.step_shape(bodies);
        let lists = (
            Lists::of(&mut self.bundles.one),
            Lists::of(&mut self.bundles.four),
            Lists::of(&mut self.bundles.eight),
        );
        let (states, body_count) = (Shared(bodies.states.as_mut_ptr()), bodies.len());
        // Warm starting is carried between substeps unless a joint re-prepares its rows.
        let carry = self.carries_warm_start();
        if carry {
            // The first substep writes every moving body's slot before any is read.
            self.starts.resize(body_count, Velocities::default());
            self.carried.resize(body_count, Velocities::default());
        }
        let starts = carry.then_some((
            Shared(self.starts.as_mut_ptr()),
            Shared(self.carried.as_mut_ptr()),
        ));
        self.integration.build(&bodies.sims, workers);
        self.impacts.prepare(&self.contacts, bodies);
        let impacts = self.impacts.any().then_some(Shared(&mut self.impacts));
        if !self.joints.is_empty() {
            self.stamps.reset(body_count);
        }
        let stages = Stages {
            bodies: Shared(bodies),
            states,
            body_count,
            integration: &self.integration,
            starts,
            lists,
            lanes,
            colours: &self.bundles.colours,
            colour_lists: &self.colouring.colours,
            spans: &self.bundles.spans,
            contacts: (Shared(self.contacts.as_mut_ptr()), self.contacts.len()),
            project: !self.joints.is_empty(),
            projected: Default::default(),
            stamps: &self.stamps,
            joint_graph: &self.joint_graph,
            joints: (Shared(self.joints.as_mut_ptr()), self.joints.len()),
            vehicles: Shared(&mut self.vehicles),
            joint_rows: Rows::of(&mut self.points, &mut self.lengths),
            joint_colouring: &self.joint_colouring,
            joint_sources: &self.joint_bundles.sources,
            joint_overflow_sources: &self.joint_bundles.overflow_sources,
            chains: Shared(&mut self.chains),
            joint_lists: (
                JointLists::of(&mut self.joint_bundles.one),
                JointLists::of(&mut self.joint_bundles.four),
                JointLists::of(&mut self.joint_bundles.eight),
            ),
            joint_colours: &self.joint_bundles.colours,
            joint_overflow: JointLists::of(&mut self.joint_bundles.overflow),
            scalar: Shared(&mut self.scalar),
            impacts,
            step,
            friction_in_biased_pass,
            shape,
            substeps,
            barrier: &barrier,
        };
        // SAFETY: `Stages::run`'s contract: every worker runs the same stage list, touching
        // only its share between barriers; nothing else touches these buffers meanwhile.
        self.pool.run(workers, &|worker, workers| unsafe {
            stages.run(worker, workers)
        });
        for c in &self.scalar {
            c.unpack(&mut self.contacts[c.source as usize]);
        }
        self.impacts.report(&mut self.contacts);
        bodies.finalize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::Motion;
    use crate::body::{BodySim, BodyState, STATIC};
    use crate::contact::{ContactMaterial, ContactPointInput};
    use crate::joint::JointFrame;
    use crate::settings::{SimdWidth, SolverSettings};
    use crate::testing::Lcg;
    use crate::{Matrix, Quaternion};

    /// Columns of boxes (unequal moments, so the gyroscopic term and full inertias take
    /// part), each on the one below through four points on a tilted normal, the bottom ones on
    /// static ground, moving and spinning at random, with last step's impulses to start from.
    fn columns(rng: &mut Lcg) -> (Bodies, Vec<Contact>) {
        columns_of(rng, |rng| Vector::new(0.1, 0.2, 0.15) + rng.vector() * 0.02)
    }

    /// [`columns`] with each body's principal moments from `moments`.
    fn columns_of(rng: &mut Lcg, moments: impl Fn(&mut Lcg) -> Vector) -> (Bodies, Vec<Contact>) {
        let mut bodies = Bodies::default();
        let mut contacts = Vec::new();
        let material = ContactMaterial {
            friction: 0.6,
            ..ContactMaterial::default()
        };
        for column in 0..6 {
            for row in 0..8u32 {
                let moments = moments(rng);
                let index = bodies.push(
                    BodyState::moving(rng.vector(), rng.vector() * 2.0),
                    BodySim {
                        inv_mass: 1.0 + 0.5 * rng.next(),
                        inv_inertia: Matrix::from_diagonal(&moments.map(|m| 1.0 / m)),
                        principal_inertia: moments,
                        principal_frame: Quaternion::identity(),
                        gyroscopic: true,
                        position: Vector::new(2.0 * column as Real, 0.5 + row as Real, 0.0),
                        rotation: Quaternion::identity(),
                        linear_acceleration: Vector::new(0.0, -9.81, 0.0),
                        angular_acceleration: Vector::zeros(),
                        linear_damping: 0.0,
                        angular_damping: 0.0,
                    },
                );
                let normal = (Vector::y() + rng.vector() * 0.1).normalize();
                let points = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
                    .iter()
                    .map(|&(x, z)| ContactPointInput {
                        anchor_a: Vector::new(x, 0.5, z) + rng.vector() * 0.05,
                        anchor_b: Vector::new(x, -0.5, z) + rng.vector() * 0.05,
                        separation: 0.01 * rng.next(),
                        normal_impulse: 0.05 * (1.0 + rng.next()),
                        max_normal_impulse: 0.0,
                    })
                    .collect();
                contacts.push(Contact {
                    body_a: if row == 0 { STATIC } else { index - 1 },
                    body_b: index,
                    normal,
                    material,
                    points,
                    friction_impulse: rng.vector() * 0.01,
                    user_index: contacts.len() as u32,
                    ..Contact::default()
                });
            }
        }
        (bodies, contacts)
    }

    /// One step of `columns` with each lane count, solved by a solver `setup` makes for
    /// `false` and for `true`: the bodies' states at the end of each.
    fn both_ways(
        columns: impl Fn() -> (Bodies, Vec<Contact>),
        setup: impl Fn(bool, &Bodies) -> Solver,
        check: impl Fn(SimdWidth, &[BodyState], &[BodyState]),
    ) {
        for simd in [SimdWidth::Scalar, SimdWidth::Four, SimdWidth::Eight] {
            let settings = SolverSettings {
                simd,
                ..SolverSettings::default()
            };
            let step = StepContext::new(&settings, 1.0 / 60.0, &Vector::zeros());
            let ends = [false, true].map(|way| {
                let (mut bodies, contacts) = columns();
                let mut solver = setup(way, &bodies);
                solver.contacts = contacts;
                solver.solve(&mut bodies, &step);
                bodies.states
            });
            check(simd, &ends[0], &ends[1]);
        }
    }

    /// One step of `kept` over `bodies` beside a fresh solver with its joint parts and
    /// contacts over a copy of them: both must end at the same bits (`what` says which case).
    fn step_beside_fresh(kept: &mut Solver, bodies: &mut Bodies, step: &StepContext, what: &str) {
        let mut fresh = Solver {
            points: kept.points.clone(),
            contacts: kept.contacts.clone(),
            ..Solver::default()
        };
        let mut other = bodies.clone();
        kept.solve(bodies, step);
        fresh.solve(&mut other, step);
        for (k, f) in bodies.states.iter().zip(&other.states) {
            assert_eq!(k.linear_velocity, f.linear_velocity, "{what}");
            assert_eq!(k.angular_velocity, f.angular_velocity, "{what}");
        }
    }

    /// The carried warm start is the warm start: a step with it ends where a step that warm
    /// starts every contact on every substep ends, up to rounding (2e-6 m/s here), on every
    /// lane count; a warm start carried twice is off by tens of m/s.
    #[test]
    fn a_carried_warm_start_is_the_warm_start() {
        let setup = |classic, _: &Bodies| {
            let solver = Solver {
                classic_warm_start: classic,
                ..Solver::default()
            };
            assert_eq!(solver.carries_warm_start(), !classic);
            solver
        };
        both_ways(
            || columns(&mut Lcg(7)),
            setup,
            |simd, carried, classic| {
                let mut worst: Real = 0.0;
                for (carried, classic) in carried.iter().zip(classic) {
                    let dv = carried.linear_velocity - classic.linear_velocity;
                    let dw = carried.angular_velocity - classic.angular_velocity;
                    worst = worst.max(dv.amax()).max(dw.amax());
                }
                assert!(
                    worst < 1e-4,
                    "{simd:?}: carried and classic differ by {worst}"
                );
            },
        );
    }

    /// A solver that keeps its joints' chains and colours from the step before (the same
    /// parts between the same bodies) ends a step exactly where a fresh solver ends it, on
    /// every lane count, and so does one whose parts changed since (it makes them again).
    #[test]
    fn kept_chains_and_colours_end_where_fresh_ones_end() {
        for simd in [SimdWidth::Scalar, SimdWidth::Four, SimdWidth::Eight] {
            let settings = SolverSettings {
                simd,
                ..SolverSettings::default()
            };
            let step = StepContext::new(&settings, 1.0 / 60.0, &Vector::zeros());
            let (mut bodies, contacts) = columns(&mut Lcg(5));
            // A chain along the columns' tops (7, 15, 23, 31: two interior bodies) and two
            // softer parts that no chain takes.
            let part = |bodies: &Bodies, a: u32, b: u32, soft: [Softness; 2]| {
                let (ma, mb) = (Motion::load(bodies, a), Motion::load(bodies, b));
                let frame = JointFrame {
                    body_a: a,
                    body_b: b,
                    anchor_a: Vector::new(1.0, 0.5, 0.0),
                    anchor_b: Vector::new(-1.0, 0.5, 0.0),
                    separation: Vector::zeros(),
                    rotations: (crate::Quaternion::identity(), crate::Quaternion::identity()),
                };
                PointRow::new(&frame, &ma, &mb, soft, Vector::zeros())
            };
            let rigid = [step.joint.stabilisation, Softness::RIGID];
            let soft = [Softness::spring(5.0, 0.5, step.h); 2];
            let mut kept = Solver {
                points: vec![
                    part(&bodies, 7, 15, rigid),
                    part(&bodies, 15, 23, rigid),
                    part(&bodies, 23, 31, rigid),
                    part(&bodies, 39, 47, soft),
                    part(&bodies, 30, 38, soft),
                ],
                contacts,
                ..Solver::default()
            };
            kept.solve(&mut bodies, &step);
            assert!(kept.chains.chained[..3].iter().all(|&c| c));
            // Nothing changed; a soft part moved onto a body of the other (the chains as they
            // were: the two may no longer share a colour); a link of the chain gone.
            for change in 0..3 {
                if change == 1 {
                    kept.points[4] = part(&bodies, 39, 46, soft);
                }
                if change == 2 {
                    kept.points.remove(1);
                }
                let what = format!("{simd:?} {change}");
                step_beside_fresh(&mut kept, &mut bodies, &step, &what);
            }
        }
    }

    /// A solver that keeps its contacts' colours while the contacts join the same bodies ends
    /// every step where a fresh one ends, on every lane count, as contacts change under it:
    /// none; one moved onto another pair of bodies; one given a fifth point (which the wide
    /// kernel does not take); one gone; the lane count changed.
    #[test]
    fn kept_contact_colours_end_where_fresh_ones_end() {
        let settings_of = |simd| SolverSettings {
            simd,
            ..SolverSettings::default()
        };
        for simd in [SimdWidth::Scalar, SimdWidth::Four, SimdWidth::Eight] {
            let step = StepContext::new(&settings_of(simd), 1.0 / 60.0, &Vector::zeros());
            let (mut bodies, contacts) = columns(&mut Lcg(9));
            let mut kept = Solver {
                contacts,
                ..Solver::default()
            };
            kept.solve(&mut bodies, &step);
            for change in 0..5 {
                let mut settings = settings_of(simd);
                match change {
                    1 => kept.contacts[9].body_a = 20,
                    2 => {
                        let extra = kept.contacts[12].points[0];
                        kept.contacts[12].points.push(extra);
                    }
                    3 => {
                        kept.contacts.remove(30);
                    }
                    4 => {
                        settings.simd = match simd {
                            SimdWidth::Four => SimdWidth::Eight,
                            _ => SimdWidth::Four,
                        }
                    }
                    _ => {}
                }
                let what = format!("{simd:?} {change}");
                let step = StepContext::new(&settings, 1.0 / 60.0, &Vector::zeros());
                step_beside_fresh(&mut kept, &mut bodies, &step, &what);
            }
        }
    }

    /// Cubes (equal moments) take the short inertia products, and end a step exactly where
    /// the full products take them, on every lane count, joints and contacts; bodies with
    /// unequal moments are not taken for cubes.
    #[test]
    fn equal_moments_take_the_short_products_to_the_same_end() {
        let cubes = |rng: &mut Lcg| Vector::repeat(0.15 + 0.05 * rng.next());
        assert!(bundle::isotropic(&columns_of(&mut Lcg(3), cubes).0));
        assert!(!bundle::isotropic(&columns(&mut Lcg(3)).0));
        assert!(bundle::isotropic(&Bodies::default()));
        let setup = |full, bodies: &Bodies| {
            let mut solver = Solver {
                full_inertia: full,
                ..Solver::default()
            };
            assert_eq!(solver.step_shape(bodies).isotropic, !full);
            // Rigid ball joints between neighbouring columns' tops, solved in lanes.
            for top in [7u32, 15, 23] {
                let (a, b) = (Motion::load(bodies, top), Motion::load(bodies, top + 8));
                let frame = JointFrame {
                    body_a: top,
                    body_b: top + 8,
                    anchor_a: Vector::new(1.0, 0.5, 0.0),
                    anchor_b: Vector::new(-1.0, 0.5, 0.0),
                    separation: Vector::zeros(),
                    rotations: (crate::Quaternion::identity(), crate::Quaternion::identity()),
                };
                let rigid = [Softness::RIGID; 2];
                solver
                    .points
                    .push(PointRow::new(&frame, &a, &b, rigid, Vector::zeros()));
            }
            solver
        };
        both_ways(
            || columns_of(&mut Lcg(11), cubes),
            setup,
            |simd, short, full| {
                for (short, full) in short.iter().zip(full) {
                    assert_eq!(short.linear_velocity, full.linear_velocity, "{simd:?}");
                    assert_eq!(short.angular_velocity, full.angular_velocity, "{simd:?}");
                }
            },
        );
    }

    /// Contacts of one or two points (spheres, capsules, edges) take as many point slots in
    /// the passes as the step's largest contact, and end exactly where solving all four slots
    /// ends, on every lane count; the slots counted are the most any contact has.
    #[test]
    fn the_passes_solve_only_the_points_contacts_have() {
        let fewer = || {
            let (bodies, mut contacts) = columns(&mut Lcg(5));
            for (i, c) in contacts.iter_mut().enumerate() {
                c.points.truncate(1 + i % 2);
            }
            (bodies, contacts)
        };
        let (bodies, contacts) = fewer();
        let solver = Solver {
            contacts,
            ..Solver::default()
        };
        assert_eq!(solver.step_shape(&bodies).points, 2);
        let setup = |all, _: &Bodies| Solver {
            all_points: all,
            ..Solver::default()
        };
        both_ways(fewer, setup, |simd, fewer, all| {
            for (fewer, all) in fewer.iter().zip(all) {
                assert_eq!(fewer.linear_velocity, all.linear_velocity, "{simd:?}");
                assert_eq!(fewer.angular_velocity, all.angular_velocity, "{simd:?}");
            }
        });
    }
}

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
//! contact and a barrier per colour. A joint's directions turn with its bodies (each pass aims
//! them again), and a wheel's rows follow its chassis, so a step with joints or vehicles warm
//! starts every substep.

use crate::body::Bodies;
use crate::bundle::{self};
use crate::contact::{Contact, ContactConstraint};
use crate::graph::Colouring;
use crate::impact::Impacts;
use crate::integrate::{Integration, Velocities};
use crate::joint::bundles::Rows;
use crate::joint::{Chains, JointBundles, JointConstraint, LengthRow, PointRow, Stamps};
use crate::kernels::PerLanes;
use crate::parallel::{Barrier, Pool, Shared};
use crate::settings::MAX_THREADS;
use crate::softness::{Softness, SpringCache};
use crate::step::StepContext;
use crate::vehicle::Vehicles;
use crate::Vector;

mod joint_lists;
mod keys;
mod stages;

use keys::{ContactKey, JointKey};
use stages::{Bundles, JointLists, Lists, Stages};
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

/// Fewest bundles a worker of the solve is given (see [`Solver::solve`]). `pyramid`'s ~170
/// bundles (`--no-sleep`) solve in 0.39 ms on two workers against 0.55 on one (in runs where
/// the machine's two virtual cores sit near each other); at 128 they stayed on one. One under `cfg(fuzzing)` (which cargo-fuzz
/// sets), so that the fuzz targets' small worlds take the split paths too.
const BUNDLES_PER_WORKER: usize = if cfg!(fuzzing) { 1 } else { 64 };

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

    /// Whether this step's warm start is carried between substeps: when it has no joint and
    /// no vehicle, whose rows turn with their bodies (the module's documentation).
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
                crate::contact::WIDE_POINTS
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
        let lanes = step.kernels.lanes();
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
        let lists = PerLanes {
            one: Lists::of(&mut self.bundles.one),
            four: Lists::of(&mut self.bundles.four),
            eight: Lists::of(&mut self.bundles.eight),
        };
        let (states, body_count) = (Shared(bodies.states.as_mut_ptr()), bodies.len());
        // Warm starting is carried between substeps unless a joint's or a wheel's rows turn.
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
            joint_lists: PerLanes {
                one: JointLists::of(&mut self.joint_bundles.one),
                four: JointLists::of(&mut self.joint_bundles.four),
                eight: JointLists::of(&mut self.joint_bundles.eight),
            },
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
mod tests;

//! The solve stage's input on the world's side for contacts: the step's manifolds turned into
//! the solver's contacts (their impulses go back to the pair cache in `report_touching`'s walk;
//! the joints' side is in `joint_rows`).

use super::*;
use sprung_solver::body::BodySim;
use sprung_solver::step::StepContext;
use sprung_solver::Shared;

/// How many pairs ahead the walks over the watched pairs ask for a record (each is 512 bytes,
/// its manifolds past the first cache line: the walks waited on each one's load).
pub(super) const PREFETCH_AHEAD: usize = 4;

/// One worker's share of [`World::report_touching`]'s walk: the block of pairs it updated in
/// the narrow phase, and that block's stretches of the updated list and of the solver's
/// contacts (set by `build_contacts` when it wrote the contacts on several workers).
#[derive(Clone, Debug, Default)]
pub(super) struct ReportBlock {
    pub(super) pairs: std::ops::Range<usize>,
    pub(super) updated: std::ops::Range<usize>,
    pub(super) contacts: std::ops::Range<usize>,
}

/// What writing the solver's contacts reads: the pair cache, each proxy's collider as a
/// contact needs it ([`ContactSide`]) and each body's place in the solver's list, the bodies
/// (for a static body's centre of mass) and the solver's bodies (the fields of the world that
/// the workers share while the solver's list is written, apart from the solver, whose pool
/// runs them).
struct ContactInput<'a> {
    narrow: &'a NarrowPhase,
    watched: &'a [u32],
    sides: &'a [ContactSide],
    solver_index: &'a [u32],
    bodies: &'a Arena<RigidBody, BodyHandle>,
    sims: &'a [BodySim],
}

/// What [`ContactInput`] reads of the colliders and bodies, kept apart from them: each proxy's
/// [`ContactSide`], made again only when colliders were added or removed since, and each body
/// slot's place in the solver's list (`STATIC` for none), every step.
#[derive(Debug, Default)]
pub(super) struct ContactTables {
    sides: Vec<ContactSide>,
    solver_index: Vec<u32>,
    /// Colliders were added or removed since `sides` was made.
    pub(super) stale: bool,
}

impl ContactTables {
    /// Each body slot's place in the solver's list this step (`STATIC`: not moving), as
    /// `build_contacts` left it for the joints to read too.
    pub(super) fn solver_index(&self) -> &[u32] {
        &self.solver_index
    }

    /// Brings both tables up to date with `colliders` (proxies below `proxies`) and the
    /// solver's bodies, each the body of slot `solver_slots[i]` (of `body_slots`).
    fn refresh(
        &mut self,
        (colliders, proxies): (&Arena<Collider, ColliderHandle>, usize),
        (solver_slots, body_slots): (&[u32], usize),
    ) {
        if self.stale || self.sides.len() != proxies {
            self.sides.clear();
            self.sides.resize(proxies, ContactSide::NONE);
            for (_, collider) in colliders.iter() {
                if let Some(side) = self.sides.get_mut(collider.proxy.0 as usize) {
                    *side = ContactSide::of(collider);
                }
            }
            self.stale = false;
        }
        self.solver_index.clear();
        self.solver_index.resize(body_slots, STATIC);
        for (index, &slot) in solver_slots.iter().enumerate() {
            if let Some(at) = self.solver_index.get_mut(slot as usize) {
                *at = index as u32;
            }
        }
    }
}

impl<'a> ContactInput<'a> {
    fn new(
        narrow: &'a NarrowPhase,
        tables: &'a ContactTables,
        bodies: &'a Arena<RigidBody, BodyHandle>,
        sims: &'a [BodySim],
    ) -> Self {
        ContactInput {
            narrow,
            watched: narrow.watched(),
            sides: &tables.sides,
            solver_index: &tables.solver_index,
            bodies,
            sims,
        }
    }
}

/// What a contact needs of one of its colliders, kept by broad-phase proxy
/// ([`ContactTables`]): colliders do not change once added, and reaching these
/// through the proxy's payload, the collider and its body (records of a few hundred bytes,
/// scattered) took several cache misses for every pair of every step.
#[derive(Clone, Copy, Debug)]
pub(super) struct ContactSide {
    /// The collider's body (its slot); [`ContactSide::NONE`]'s for a proxy with no collider.
    body: u32,
    sensor: bool,
    friction: Real,
    restitution: Real,
    rolling_resistance: Real,
    /// The shape's rounding radius (zero for polytopes): the rolling torque's arm.
    radius: Real,
    spring: Option<sprung_solver::softness::Spring>,
}

impl ContactSide {
    /// A proxy with no collider behind it.
    const NONE: ContactSide = ContactSide {
        body: u32::MAX,
        sensor: true,
        friction: 0.0,
        restitution: 0.0,
        rolling_resistance: 0.0,
        radius: 0.0,
        spring: None,
    };

    fn of(collider: &Collider) -> ContactSide {
        ContactSide {
            body: collider.body.index,
            sensor: collider.sensor,
            friction: collider.friction,
            restitution: collider.restitution,
            rolling_resistance: collider.rolling_resistance,
            radius: collider.shape.radius(),
            spring: collider.contact_spring,
        }
    }
}

impl ContactInput<'_> {
    /// Writes the contacts of watched pairs `range` (the manifolds with points, in order) into
    /// `out` and their sources into `sources`, the first numbered `first`, and returns how
    /// many; `None` if `out` or `sources` has no room for them all.
    fn write(
        &self,
        range: std::ops::Range<usize>,
        out: &mut [Contact],
        sources: &mut [(u32, u32)],
        first: usize,
    ) -> Option<usize> {
        let mut count = 0;
        let watched = &self.watched[range];
        let side = |p: ProxyId| self.sides.get(p.0 as usize).unwrap_or(&ContactSide::NONE);
        for (k, &index) in watched.iter().enumerate() {
            if let Some(&ahead) = watched.get(k + PREFETCH_AHEAD) {
                self.narrow.prefetch_pair(ahead as usize);
            }
            let pair = &self.narrow.contacts()[index as usize];
            if pair.manifolds.is_empty() {
                continue;
            }
            let (sa, sb) = (side(pair.pair.a), side(pair.pair.b));
            if sa.sensor || sb.sensor {
                continue; // reports, never pushes (or has no collider)
            }
            // A body's place in the solver's list: `STATIC` for a static body, or one asleep.
            let index_of = |s: &ContactSide| {
                let index = self.solver_index.get(s.body as usize);
                index.copied().unwrap_or(STATIC)
            };
            let (ia, ib) = (index_of(sa), index_of(sb));
            if ia == STATIC && ib == STATIC {
                continue; // asleep, or asleep on something static
            }
            // A moving body's centre of mass as `gather` computed it (the same expression at the
            // same pose, so the same bits), read from the solver's compact list instead of
            // turning the local centre again for every pair it is in.
            let com = |index: u32, s: &ContactSide| match self.sims.get(index as usize) {
                Some(sim) => Point::from(sim.position),
                None => self.bodies.at(s.body).center_of_mass(),
            };
            let (com_a, com_b) = (com(ia, sa), com(ib, sb));
            let material = mix(sa, sb);
            for (m, manifold) in pair.manifolds.iter().enumerate() {
                if manifold.points.is_empty() {
                    continue;
                }
                // Out of room when either list is (the solver's may hold records past it).
                let (contact, source) = (out.get_mut(count)?, sources.get_mut(count)?);
                contact.body_a = ia;
                contact.body_b = ib;
                contact.normal = manifold.normal;
                contact.material = material;
                // Written in place (a settled scene keeps each contact's count): extending the
                // small vector cost ~150 instructions a contact, 2.7% of `pyramid`'s step.
                contact
                    .points
                    .resize(manifold.points.len(), ContactPointInput::default());
                for (c, p) in contact.points.iter_mut().zip(&manifold.points) {
                    *c = ContactPointInput {
                        anchor_a: p.point_a - com_a,
                        anchor_b: p.point_b - com_b,
                        separation: p.separation,
                        normal_impulse: p.normal_impulse,
                        max_normal_impulse: 0.0,
                    };
                }
                contact.friction_impulse = manifold.friction_impulse;
                contact.twist_impulse = manifold.twist_impulse;
                contact.rolling_impulse = manifold.rolling_impulse;
                contact.user_index = (first + count) as u32;
                *source = (index, m as u32);
                count += 1;
            }
        }
        Some(count)
    }
}

/// At least `room` contacts in the solver's list (records kept from the last step are reused)
/// and exactly `room` sources.
fn make_room((contacts, sources): (&mut Vec<Contact>, &mut Vec<(u32, u32)>), room: usize) {
    if contacts.len() < room {
        contacts.resize_with(room, Contact::default);
    }
    sources.resize(room, (0, 0));
}

impl World {
    /// Brings the tables [`ContactInput`] reads up to date.
    fn refresh_contact_tables(&mut self) {
        let proxies = (&self.colliders, self.broad_phase.id_bound());
        let solver = (self.solver_slots.as_slice(), self.bodies.slots());
        self.contact_tables.refresh(proxies, solver);
    }

    /// Hands every manifold with points to the solver as a contact (a pair with a mesh may
    /// give several, one per normal), noting where each came from. The solver's list keeps its
    /// records, and their points' buffers, from step to step.
    ///
    /// Written block by block of the narrow phase's update ([`NarrowPhase::watched_blocks`]),
    /// on the workers that updated them when there are several (each reads the pairs its own
    /// core just wrote, where one thread reading them all waited on the other core's cache):
    /// each block from where the blocks before it could end at the most (their manifolds with
    /// points), the gaps left by contacts dropped on the way (sensors, bodies asleep) closed
    /// after. The same list, in the same order, however many workers. Where each block's
    /// contacts lie is kept for `report_touching`, which hands the blocks back to the same
    /// workers. `pyramid --no-sleep` on two threads, steps of 300, best of five alternating
    /// with the serial walks, three runs: 0.482 | 0.462 | 0.448 ms against 0.494 | 0.528 |
    /// 0.496.
    pub(super) fn build_contacts(&mut self, step: &StepContext) {
        self.report_blocks.clear();
        self.refresh_contact_tables();
        if self.solver_bodies.is_empty() {
            // Nothing awake: every pair is between bodies asleep or static.
            self.solver.contacts.clear();
            self.contact_sources.clear();
            return;
        }
        let (narrow, tables) = (&self.narrow_phase, &self.contact_tables);
        let input = ContactInput::new(narrow, tables, &self.bodies, &self.solver_bodies.sims);
        let blocks = self.narrow_phase.watched_blocks();
        // Room for the contacts of every manifold the update left with points (all the
        // blocks give, unless a pair left as it was has its bodies woken since).
        let room = blocks.iter().map(|b| b.manifolds).sum();
        make_room((&mut self.solver.contacts, &mut self.contact_sources), room);
        let workers = blocks.len();
        self.contact_counts.clear();
        self.contact_counts.resize(workers, None);
        if workers > 1 && step.workers > 1 {
            let out = Shared(self.solver.contacts.as_mut_ptr());
            let sources = Shared(self.contact_sources.as_mut_ptr());
            let counts = Shared(self.contact_counts.as_mut_ptr());
            self.solver.run_on_workers(workers, &|worker, count| {
                if count != workers || worker >= workers {
                    return;
                }
                let (out, sources, counts) = (&out, &sources, &counts);
                let start = worker.checked_sub(1).map_or(0, |b| blocks[b].end);
                let first: usize = blocks[..worker].iter().map(|b| b.manifolds).sum();
                let room = blocks[worker].manifolds;
                // SAFETY: each worker writes its own block's room of the lists (the rooms
                // tile the lists' first `room` slots, which they hold) and its own count,
                // through pointers that stay valid until `run_on_workers` returns.
                unsafe {
                    let out = std::slice::from_raw_parts_mut(out.0.add(first), room);
                    let sources = std::slice::from_raw_parts_mut(sources.0.add(first), room);
                    *counts.0.add(worker) =
                        input.write(start..blocks[worker].end, out, sources, first);
                }
            });
        } else if workers > 0 {
            let all = 0..input.watched.len();
            self.contact_counts[0] =
                input.write(all, &mut self.solver.contacts, &mut self.contact_sources, 0);
            self.contact_counts.truncate(1);
        }
        // Close the gaps: each block's contacts moved down to where the ones before end.
        let (mut count, mut first, mut updated) = (Some(0), 0, 0);
        for (block, &written) in blocks.iter().zip(&self.contact_counts) {
            let (Some(at), Some(written)) = (count, written) else {
                count = None;
                break;
            };
            if first != at {
                for k in 0..written {
                    self.solver.contacts.swap(at + k, first + k);
                    self.solver.contacts[at + k].user_index = (at + k) as u32;
                    self.contact_sources[at + k] = self.contact_sources[first + k];
                }
            }
            self.report_blocks.push(ReportBlock {
                pairs: block.pairs.clone(),
                updated: updated..block.updated_end,
                contacts: at..at + written,
            });
            count = Some(at + written);
            (first, updated) = (first + block.manifolds, block.updated_end);
        }
        if workers == 0 {
            count = None; // no update since a snapshot was restored: no blocks to follow
        }
        let count = count.unwrap_or_else(|| {
            // A block outgrew its room (bodies woken since the narrow phase counted their
            // pairs' manifolds): one walk again, with room for every manifold of every pair.
            self.report_blocks.clear();
            let all = input.narrow.contacts().iter().map(|p| p.manifolds.len());
            make_room(
                (&mut self.solver.contacts, &mut self.contact_sources),
                all.sum(),
            );
            let (out, sources) = (&mut self.solver.contacts, &mut self.contact_sources);
            // (The room holds every manifold, so the walk cannot run out of it.)
            input
                .write(0..input.watched.len(), out, sources, 0)
                .unwrap_or(0)
        });
        self.solver.contacts.truncate(count);
        self.contact_sources.truncate(count);
        // One block is one walk: `report_touching` takes the blocks only to share them.
        if self.report_blocks.len() < 2 {
            self.report_blocks.clear();
        }
    }
}

/// The material of two colliders' contact: friction by the geometric mean, restitution the
/// larger (as Box2D), and of two soft materials the softer one (the smaller stiffness, or
/// frequency), since the soft one gives way first.
fn mix(a: &ContactSide, b: &ContactSide) -> ContactMaterial {
    let spring = match (a.spring, b.spring) {
        (Some(x), Some(y)) => Some(if softness_key(&x) <= softness_key(&y) {
            x
        } else {
            y
        }),
        (x, y) => x.or(y),
    };
    ContactMaterial {
        friction: (a.friction * b.friction).sqrt(),
        restitution: a.restitution.max(b.restitution),
        // A torque arm: the rounder shape's radius (zero between polytopes, which do not roll).
        rolling_resistance: a.rolling_resistance.max(b.rolling_resistance) * a.radius.max(b.radius),
        spring,
    }
}

/// How stiff a contact spring is, to pick the softer of two (stiffness, or frequency squared).
fn softness_key(spring: &sprung_solver::softness::Spring) -> Real {
    let omega = spring.angular_frequency(1.0);
    omega * omega
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk that writes the solver's contacts stops, and says so, when either list runs
    /// out of room: the solver's list may hold records past the sources' (kept from a step
    /// with more contacts), and the walk must not write a source past the end.
    #[test]
    fn writing_contacts_past_either_list_is_refused() {
        let mut world = World::default();
        let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
        let floor = ColliderBuilder::cuboid(5.0, 0.5, 5.0);
        world.add_collider(floor, ground).unwrap();
        let at = Vector::new(0.0, 0.99, 0.0);
        let cube = world
            .add_body(RigidBodyBuilder::dynamic().translation(at))
            .unwrap();
        world
            .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), cube)
            .unwrap();
        world.step(1.0 / 60.0).unwrap();
        world.refresh_contact_tables();
        let (narrow, tables) = (&world.narrow_phase, &world.contact_tables);
        let input = ContactInput::new(narrow, tables, &world.bodies, &world.solver_bodies.sims);
        let all = 0..input.watched.len();
        let mut out = vec![Contact::default(); 4];
        let (mut none, mut four) = (Vec::new(), vec![(0, 0); 4]);
        assert_eq!(input.write(all.clone(), &mut out, &mut none, 0), None);
        assert_eq!(input.write(all.clone(), &mut [], &mut four, 0), None);
        assert_eq!(input.write(all, &mut out, &mut four, 0), Some(1));
        assert_eq!(four[0].1, 0);
    }

    /// The table of what each proxy's collider gives a contact follows colliders added and
    /// removed: a collider put in place of another (taking its proxy's id) lends the contact its
    /// own material, and a body falling asleep leaves the contacts.
    #[test]
    fn contacts_take_the_material_of_the_colliders_there_now() {
        let mut world = World::default();
        let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
        let floor = ColliderBuilder::cuboid(5.0, 0.5, 5.0).friction(0.64);
        world.add_collider(floor, ground).unwrap();
        let at = Vector::new(0.0, 0.99, 0.0);
        let cube = world
            .add_body(RigidBodyBuilder::dynamic().translation(at))
            .unwrap();
        let shape = || ColliderBuilder::cuboid(0.5, 0.5, 0.5);
        let first = world.add_collider(shape().friction(0.25), cube).unwrap();
        world.step(1.0 / 60.0).unwrap();
        let friction = |world: &World| -> Vec<Real> {
            let contacts = world.solver.contacts.iter();
            contacts.map(|c| c.material.friction).collect()
        };
        // The geometric mean: sqrt(0.64 * 0.25).
        assert_eq!(friction(&world), vec![0.4]);
        world.remove_collider(first).unwrap();
        world.add_collider(shape().friction(1.0), cube).unwrap();
        world.step(1.0 / 60.0).unwrap();
        assert_eq!(friction(&world), vec![0.8]);
        // Asleep: no contact (the table's solver indices follow the bodies every step).
        for _ in 0..600 {
            if world.body(cube).unwrap().is_sleeping() {
                break;
            }
            assert!(!world.solver.contacts.is_empty());
            world.step(1.0 / 60.0).unwrap();
        }
        assert!(world.body(cube).unwrap().is_sleeping());
        world.step(1.0 / 60.0).unwrap();
        assert!(world.solver.contacts.is_empty());
    }
}

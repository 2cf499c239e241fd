//! The collision stages on the world's side: colliders moved to their bodies in the broad
//! phase, which pairs may touch, the narrow phase's view of the colliders, and colliders put
//! where the step left their bodies.

use super::*;
use crate::handle::ArenaRun;
use parry3d::bounding_volume::Aabb;
use sprung_solver::settings::MAX_THREADS;
use sprung_solver::step::StepContext;
use sprung_solver::Shared;

/// Least work (in recycled pairs, see [`QUERY_WEIGHT`]) for which the narrow phase is split
/// over threads: below it, handing out the work costs more than it saves. Measured on two
/// threads (`--no-sleep`, every pair recycled): while a sleeping worker took ~25 us to wake,
/// `pyramid`'s 1,335 pairs took 0.054 ms split against 0.042 serial; since workers watch for
/// work between uses (`parallel.rs`), its collide stage takes 0.044 ms split against 0.062.
/// One under `cfg(fuzzing)` (which cargo-fuzz sets), as every split's threshold, so that the
/// fuzz targets' small worlds take the split paths too.
const PARALLEL_WORK: usize = if cfg!(fuzzing) { 1 } else { 1024 };
/// What a pair the narrow phase queries costs against one it recycles or keeps apart: a
/// manifold made again is thousands of instructions (clipping, GJK), a recycled one ~500.
const QUERY_WEIGHT: usize = 8;
/// Fewest moving proxies for the same: a pile asleep has many pairs and nothing to update.
const PARALLEL_PROXIES: usize = if cfg!(fuzzing) { 1 } else { 128 };

/// How many colliders ahead of the one placed the broad phase's loop asks for the data its
/// box reads (a hull's points, from beyond the L2 cache in a heap of different hulls).
const BOUNDS_AHEAD: usize = 4;

impl World {
    /// Moves every collider to its body's pose, with its box swept over the step ([`sweep`]),
    /// and lets the broad phase report pairs that began or ended. A collider whose box cannot
    /// have left its proxy's fat box since it was last computed keeps its proxy as it is
    /// without computing it ([`keeps_box`]).
    ///
    /// Runs of collider slots go to the workers when many bodies moved in the last step
    /// ([`integrate::PARALLEL_BODIES`]): each collider writes its own proxy's motion, and the
    /// boxes that must change are handed to the broad phase after, run by run, in slot order
    /// as on one thread (the order its moved list keeps).
    pub(super) fn update_broad_phase(&mut self, step: &StepContext) {
        let dt = step.dt;
        self.proxy_motion.clear();
        self.proxy_motion
            .resize(self.broad_phase.id_bound(), ProxyMotion::default());
        let workers = if self.solver_bodies.len() >= integrate::PARALLEL_BODIES {
            step.workers
        } else {
            1
        };
        self.new_boxes.resize_with(workers, Vec::new);
        let mut at_rest = [true; MAX_THREADS as usize];
        // Each live collider has a proxy of its own (a restored world's are checked to map
        // back to their colliders), so no two runs write the same proxy's motion.
        let motions = (
            Shared(self.proxy_motion.as_mut_ptr()),
            self.proxy_motion.len(),
        );
        let motion_of = |ProxyId(index): ProxyId, motion: ProxyMotion| {
            let (Shared(list), len) = &motions;
            if (index as usize) < *len {
                // SAFETY: in bounds, no other worker writes this element (above), and nothing
                // reads the list until `run_pieces` returns.
                unsafe { list.add(index as usize).write(motion) };
            }
        };
        let (bodies, broad_phase) = (&self.bodies, &self.broad_phase);
        let runs = self.colliders.shares_mut(workers);
        let runs = runs.zip(self.new_boxes.iter_mut().zip(at_rest.iter_mut()));
        self.solver
            .run_pieces(runs, &|_, (mut run, (boxes, at_rest))| {
                boxes.clear();
                let world = (bodies, broad_phase);
                *at_rest = move_colliders(&mut run, world, dt, boxes, motion_of);
            });
        for boxes in &self.new_boxes {
            for &(proxy, aabb) in boxes {
                self.broad_phase.set_aabb(proxy, aabb);
            }
        }
        self.proxies_at_rest = at_rest.iter().all(|&r| r);
        self.pair_events.clear();
        self.broad_phase.update(&mut self.pair_events);
        // Every collider is inside its box again.
        self.query_slack = 0.0;
        self.teleported.clear();
        self.kept_events.clear();
        for i in 0..self.pair_events.len() {
            match self.pair_events[i] {
                PairEvent::Began(pair) if !self.can_touch(pair.a, pair.b) => continue,
                PairEvent::Ended(pair) => {
                    // Boxes apart: a contact still touching ends here.
                    if let Some(c) = self.narrow_phase.pair(pair).filter(|c| c.touching) {
                        let event = self.touch_event(pair, false, c.peak_impulse);
                        self.events.extend(event);
                    }
                }
                _ => {}
            }
            self.kept_events.push(self.pair_events[i]);
        }
        self.narrow_phase.apply(&self.kept_events);
    }

    /// Whether two colliders' pair deserves a manifold: not two colliders of one body, not two
    /// bodies that cannot move, not two bodies a joint keeps apart, and their groups meet.
    pub(super) fn can_touch(&self, p: ProxyId, q: ProxyId) -> bool {
        let (Some(cp), Some(cq)) = (self.collider_of(p), self.collider_of(q)) else {
            return false;
        };
        let (a, b) = (cp.body, cq.body);
        let dynamic = |h: BodyHandle| self.bodies.at(h.index).kind == BodyKind::Dynamic;
        a != b
            && (dynamic(a) || dynamic(b))
            && !(cp.sensor && cq.sensor)
            && cp.groups.meet(&cq.groups)
            && !self.no_collide.contains_key(&body_pair(a, b))
            && !self.excluded.contains(&body_pair(a, b))
    }

    pub(super) fn update_narrow_phase(&mut self, step: &StepContext) {
        let view = ColliderView {
            broad_phase: &self.broad_phase,
            colliders: &self.colliders,
            motion: &self.proxy_motion,
            at_rest: self.proxies_at_rest,
            dt: step.dt,
        };
        // Split over the solver's threads when there is enough to share: the pairs are
        // updated in fixed blocks, so every count gives the same bits.
        let workers = step.workers;
        let moving = || self.proxy_motion.iter().filter(|m| !m.resting).count();
        // The work foreseen from the last update's tallies (a pair it neither recycled nor
        // kept apart counts as a query).
        let pairs = self.narrow_phase.contacts().len();
        let cheap = self.narrow_phase.recycled() + self.narrow_phase.kept_apart();
        let work = pairs + QUERY_WEIGHT * pairs.saturating_sub(cheap);
        if workers > 1 && work >= PARALLEL_WORK && moving() >= PARALLEL_PROXIES {
            let solver = &mut self.solver;
            self.narrow_phase.update_on(&view, workers, |blocks, work| {
                solver.run_pieces(blocks, work)
            });
        } else {
            self.narrow_phase.update(&view);
        }
    }

    /// Puts every moving body's colliders where the step left the body, so that what the user
    /// reads between steps (a collider's pose, the queries) is the world as it now stands.
    /// Grows the queries' slack by how far each collider moved since its box was made: no
    /// point of a shape moves farther than its origin's shift plus the rotation's chord
    /// (`2 |sin(angle / 2)|`, the turn's quaternion's vector part, doubled) times the shape's
    /// reach from its origin.
    pub(super) fn place_colliders(&mut self, step: &StepContext) {
        let workers = if self.solver_bodies.len() >= integrate::PARALLEL_BODIES {
            step.workers
        } else {
            1
        };
        // Each run's largest motion, kept apart so that no worker waits on another.
        let mut slacks: [Real; MAX_THREADS as usize] = [0.0; MAX_THREADS as usize];
        let bodies = &self.bodies;
        let runs = self.colliders.shares_mut(workers).zip(slacks.iter_mut());
        self.solver.run_pieces(runs, &|_, (mut run, slack)| {
            for (_, collider) in run.iter_mut() {
                let body = bodies.at(collider.body.index);
                if !body.is_resting() {
                    let before = collider.world_pose;
                    collider.world_pose = body.pose * collider.local_pose;
                    let moved = motion(&before, &collider.world_pose, collider.radius());
                    *slack = Real::max(*slack, moved);
                    collider.moved += moved;
                }
            }
        });
        self.query_slack = slacks.iter().fold(self.query_slack, |a, &b| a.max(b));
    }

    /// Ends every pair of `proxy` now, for a collider about to be removed: a touching pair
    /// reports its contact (or sensor overlap) ended, and the body on the other side wakes,
    /// since what rested on the collider may now fall. The broad phase reports the same pairs
    /// ended at the next step and finds them gone.
    pub(super) fn end_pairs_of(&mut self, proxy: ProxyId) {
        for i in 0..self.narrow_phase.contacts().len() {
            let c = &self.narrow_phase.contacts()[i];
            let other = match c.pair {
                ProxyPair { a, b } if a == proxy => b,
                ProxyPair { a, b } if b == proxy => a,
                _ => continue,
            };
            if c.touching {
                let event = self.touch_event(c.pair, false, c.peak_impulse);
                self.events.extend(event);
            }
            if let Some(other) = self.collider_of(other) {
                self.wake(other.body);
            }
        }
        self.narrow_phase
            .retain(|pair| pair.a != proxy && pair.b != proxy);
    }
}

/// Moves a run's colliders to their bodies' poses: each collider's proxy motion goes to
/// `motion`, each new box the broad phase must take to `boxes`, in slot order. Returns
/// whether every collider rested without having moved since its box was made.
fn move_colliders(
    run: &mut ArenaRun<'_, Collider>,
    (bodies, broad_phase): (&Arena<RigidBody, BodyHandle>, &BroadPhase),
    dt: Real,
    boxes: &mut Vec<(ProxyId, Aabb)>,
    motion_of: impl Fn(ProxyId, ProxyMotion),
) -> bool {
    let mut at_rest = true;
    for index in run.range() {
        if let Some(ahead) = run.live(index + BOUNDS_AHEAD) {
            ahead.shape.prefetch_bounds();
        }
        let Some(collider) = run.live_mut(index as u32) else {
            continue;
        };
        let body = bodies.at(collider.body.index);
        let resting = body.is_resting();
        // A sleeping body has not moved since its colliders were placed (only the step
        // moves a body without waking it, and it fell asleep after its last placing): its
        // colliders' poses stand, without the product (most colliders of a world at rest).
        let pose = if body.is_sleeping() {
            debug_assert_eq!(body.pose * collider.local_pose, collider.world_pose);
            collider.world_pose
        } else {
            body.pose * collider.local_pose
        };
        if pose != collider.world_pose {
            // Teleported since the last step (or a static body moved): counted too.
            collider.moved += motion(&collider.world_pose, &pose, collider.radius());
            collider.world_pose = pose;
        } else if resting {
            at_rest &= collider.moved == 0.0;
            let turn_radius = collider.turn_radius(&body.mass.local_center);
            motion_of(collider.proxy, ProxyMotion::of(body, collider, turn_radius));
            add_motion(&mut collider.last_box.1, collider.moved);
            collider.moved = 0.0;
            continue;
        }
        at_rest = false;
        let turn_radius = collider.turn_radius(&body.mass.local_center);
        let proxy_motion = ProxyMotion::of(body, collider, turn_radius);
        motion_of(collider.proxy, proxy_motion);
        // Every pair of the proxy takes it off its budget in this update.
        add_motion(&mut collider.last_box.1, collider.moved);
        collider.moved = 0.0;
        let (travel, loosen) = sweep(&body.linear_velocity, proxy_motion.spin, dt);
        if !keeps_box(broad_phase, collider, &travel, loosen) {
            let here = collider.shape.aabb(&collider.world_pose);
            collider.last_box = (here, 0.0);
            boxes.push((collider.proxy, swept(&here, &travel, loosen)));
        }
    }
    at_rest
}

/// How far (m) any point within `radius` of a collider's origin moved when the collider went
/// from pose `before` to `after`, at most: the shift, plus the chord of the turn at `radius`.
fn motion(before: &Isometry<Real>, after: &Isometry<Real>, radius: Real) -> Real {
    let shift = (after.translation.vector - before.translation.vector).norm();
    let turn = after.rotation * before.rotation.inverse();
    let chord = 2.0 * turn.as_ref().imag().norm();
    shift + chord * radius
}

/// How the box the broad phase holds a collider in for a step of `dt` is made from the box of
/// its shape where it is ([`swept`]): the motion its body's velocity gives it over the step
/// (capped at `MAX_SPECULATIVE_DISTANCE`, beyond which continuous collision takes over), and
/// how much it is grown all round: by how far its turn can carry any of its points and by half
/// the speculative distance.
///
/// Two colliders are paired, then, when their shapes come within the speculative distance of
/// each other or their motions over the step can bring them together, and not merely because
/// they move fast: a box grown all round by its speed paired every cube of a falling grid with
/// its neighbours beside it, 0.2 m away and falling alongside (`boxes`: 46,500 pairs for the
/// 4,096 the pile touches), where the swept box grows along the fall only. Rapier and Box2D
/// likewise keep the prediction distance in the box their broad phase is given.
///
/// `velocity` is the body's (its centre of mass's), `spin` its angular speed times the farthest
/// the collider's surface lies from that centre (the [`ProxyMotion`] the narrow phase is given,
/// whose square root this shares).
fn sweep(velocity: &Vector<Real>, spin: Real, dt: Real) -> (Vector<Real>, Real) {
    let mut travel = velocity * dt;
    // Compared squared: the square root only for a sweep that is capped (few bodies, few steps).
    let length2 = travel.norm_squared();
    if length2 > MAX_SPECULATIVE_DISTANCE * MAX_SPECULATIVE_DISTANCE {
        travel *= MAX_SPECULATIVE_DISTANCE / length2.sqrt();
    }
    let turn = spin * dt;
    (
        travel,
        turn.min(MAX_SPECULATIVE_DISTANCE) + SPECULATIVE_DISTANCE / 2.0,
    )
}

/// The box `here` and the same box moved by `travel`, together, grown all round by `loosen`
/// ([`sweep`]).
fn swept(here: &Aabb, travel: &Vector<Real>, loosen: Real) -> Aabb {
    let there = Aabb::new(here.mins + travel, here.maxs + travel);
    here.merged(&there).loosened(loosen)
}

/// Adds `moved` (m) to `total`, rounding up: a motion too small to change the sum when rounded
/// to nearest (below half a unit in its last place) must still count, or a shape creeping by
/// less than that each step would never have its box computed again.
fn add_motion(total: &mut Real, moved: Real) {
    if moved > 0.0 {
        *total = (*total + moved).next_up();
    } else if moved.is_nan() {
        *total = moved;
    }
}

/// Whether the broad phase would keep `collider`'s proxy as it is, whatever its shape's box now,
/// known from the box last computed ([`Collider::last_box`]) and how far any point moved
/// since: the box now lies within that box grown by the distance and reaches at least that box
/// shrunk by it, so the box the proxy would be given lies between the two swept and loosened
/// alike ([`BroadPhase::keeps`]). The same operations in the same order as the box made
/// ([`swept`]), each monotonic, so that rounding cannot put the box outside the bounds; the
/// distance is taken larger by the rounding of the two boxes (four millionths, some 30 units
/// in the last place, of the shape's reach and the box's largest coordinate) and of the motion
/// (summed rounding up, [`add_motion`]).
/// Most colliders of a pile at rest but awake then cost a few comparisons, where a hull's box
/// turns every point.
fn keeps_box(broad: &BroadPhase, collider: &Collider, travel: &Vector<Real>, loosen: Real) -> bool {
    let (last, moved) = &collider.last_box;
    // Moved as far as the fat box's margin: rarely kept, not worth the bounds. (A NaN goes
    // on, and fails them.)
    if *moved >= BROAD_PHASE_MARGIN {
        return false;
    }
    // A box's rounding: its points turned about the shape's origin (a few units in the last
    // place of the shape's reach from it, which may be far larger than the box), then moved
    // (of the box's largest coordinate); twice, for the box last computed and the box now.
    let largest = last.mins.coords.amax().max(last.maxs.coords.amax());
    let grow = moved * (1.0 + 1.0e-5) + 4.0e-6 * (largest + collider.radius() + moved);
    // (By hand rather than `loosened`, which asserts: a NaN must only fail the test.)
    let grown = Aabb::new(
        last.mins - Vector::repeat(grow),
        last.maxs + Vector::repeat(grow),
    );
    let shrunk = Aabb::new(
        last.mins + Vector::repeat(grow),
        last.maxs - Vector::repeat(grow),
    );
    let least = Aabb::new(
        shrunk.mins - Vector::repeat(loosen),
        shrunk.maxs + Vector::repeat(loosen),
    );
    broad.keeps(collider.proxy, &swept(&grown, travel, loosen), &least)
}

/// A proxy's collider as the narrow phase reads it each step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProxyMotion {
    /// The collider's world pose.
    pose: Isometry<Real>,
    /// Its body's velocity (m/s).
    velocity: Vector<Real>,
    /// Its body's angular speed times the farthest its surface lies from the body's centre of
    /// mass, at most (m/s): how fast its surface can turn.
    spin: Real,
    /// How far any point of it moved since the last update (m, at most).
    moved: Real,
    /// Whether its body rests (static, asleep or quarantined); also set for a proxy with no
    /// collider.
    resting: bool,
}

impl Default for ProxyMotion {
    fn default() -> Self {
        ProxyMotion {
            pose: Isometry::identity(),
            velocity: Vector::zeros(),
            spin: 0.0,
            moved: Real::INFINITY,
            resting: true,
        }
    }
}

impl ProxyMotion {
    /// `collider`'s motion on `body`, whose surface lies within `turn_radius` (m) of the
    /// body's centre of mass ([`Collider::turn_radius`]).
    fn of(body: &RigidBody, collider: &Collider, turn_radius: Real) -> ProxyMotion {
        ProxyMotion {
            pose: collider.world_pose,
            velocity: body.linear_velocity,
            // The body turns about its centre of mass, which may lie off the collider's
            // origin (a hull's centroid is seldom its origin).
            spin: body.angular_velocity.norm() * turn_radius,
            moved: collider.moved,
            resting: body.is_resting(),
        }
    }
}

/// The narrow phase's view of the colliders, by broad-phase proxy.
struct ColliderView<'w> {
    broad_phase: &'w BroadPhase,
    colliders: &'w Arena<Collider, ColliderHandle>,
    motion: &'w [ProxyMotion],
    /// Every collider rests and none moved since the last update.
    at_rest: bool,
    dt: Real,
}

impl ColliderView<'_> {
    fn collider(&self, proxy: ProxyId) -> Option<&Collider> {
        Some(self.colliders.at(self.broad_phase.payload(proxy)?))
    }
}

impl ProxyShapes for ColliderView<'_> {
    fn shape_and_pose(&self, proxy: ProxyId) -> Option<(&Shape, &Isometry<Real>)> {
        self.collider(proxy).map(|c| (&c.shape, &c.world_pose))
    }

    fn pose(&self, proxy: ProxyId) -> Option<&Isometry<Real>> {
        self.broad_phase.payload(proxy)?;
        Some(&self.motion[proxy.0 as usize].pose)
    }

    fn speculative_distance(&self, a: ProxyId, b: ProxyId) -> Real {
        let (Some(ma), Some(mb)) = (self.motion.get(a.0 as usize), self.motion.get(b.0 as usize))
        else {
            return 0.0;
        };
        // Their relative velocity, and any point's speed about its centre of mass.
        let closing = (ma.velocity - mb.velocity).norm() + ma.spin + mb.spin;
        (closing * self.dt).min(2.0 * MAX_SPECULATIVE_DISTANCE)
    }

    fn speculative_distance_along(&self, a: ProxyId, b: ProxyId, normal: &Vector<Real>) -> Real {
        let (Some(ma), Some(mb)) = (self.motion.get(a.0 as usize), self.motion.get(b.0 as usize))
        else {
            return 0.0;
        };
        // A approaching B along the normal (from A towards B), and any point's speed about
        // its centre of mass.
        let along = (ma.velocity - mb.velocity).dot(normal);
        let closing = along.max(0.0) + ma.spin + mb.spin;
        if along.is_nan() || closing.is_nan() {
            return self.speculative_distance(a, b);
        }
        (closing * self.dt).min(2.0 * MAX_SPECULATIVE_DISTANCE)
    }

    fn is_resting(&self, proxy: ProxyId) -> bool {
        self.motion.get(proxy.0 as usize).is_none_or(|m| m.resting)
    }

    fn all_at_rest(&self) -> bool {
        self.at_rest
    }

    fn moved(&self, proxy: ProxyId) -> Real {
        self.motion
            .get(proxy.0 as usize)
            .map_or(Real::INFINITY, |m| m.moved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ColliderBuilder, RigidBodyBuilder};

    /// The points of an irregular hull, about 0.3 m from its origin.
    fn hull_points() -> Vec<Point<Real>> {
        [
            (0.3, 0.0, 0.0),
            (-0.3, 0.05, 0.1),
            (0.0, 0.3, -0.1),
            (0.05, -0.3, 0.2),
            (0.1, 0.1, 0.35),
            (-0.1, 0.0, -0.3),
        ]
        .iter()
        .map(|&(x, y, z)| Point::new(x, y, z))
        .collect()
    }

    /// A heap of boxes and hulls, awake, landing and settling.
    fn heap() -> World {
        let mut world = World::default();
        world.set_sleeping(false);
        let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
        world
            .add_collider(ColliderBuilder::halfspace(Vector::y()), ground)
            .unwrap();
        let hull = hull_points();
        // The same hull with its points 8 m from its origin, on a body 8 m the other way: its
        // box's rounding is that of points 8 m out, where the box's own coordinates are small.
        let far = Vector::new(8.0, 0.0, 0.0);
        let off_centre: Vec<Point<Real>> = hull.iter().map(|p| p + far).collect();
        for i in 0..36 {
            let mut at = Vector::new(
                (i % 6) as Real * 0.7,
                0.6 + (i / 6) as Real * 0.5,
                (i % 5) as Real * 0.1,
            );
            let shape = match i % 3 {
                0 => ColliderBuilder::cuboid(0.25, 0.2, 0.3),
                1 => ColliderBuilder::convex_hull(&hull),
                _ => {
                    at -= far;
                    ColliderBuilder::convex_hull(&off_centre)
                }
            };
            let body = world
                .add_body(RigidBodyBuilder::dynamic().translation(at))
                .unwrap();
            world.add_collider(shape, body).unwrap();
        }
        world
    }

    /// A collider whose box is not computed (`keeps_box`) leaves the broad phase exactly as
    /// computing it would have: a world that computes every box every step (its colliders told
    /// they moved infinitely far) holds the same fat boxes and ends at the same bits, step
    /// after step, while the other skips most boxes once the heap settles.
    #[test]
    fn boxes_not_computed_change_nothing() {
        let (mut skipping, mut computing) = (heap(), heap());
        let mut skipped = 0;
        for step in 0..240 {
            for (_, collider) in computing.colliders.iter_mut() {
                collider.last_box.1 = Real::INFINITY;
            }
            skipping.step(1.0 / 60.0).unwrap();
            computing.step(1.0 / 60.0).unwrap();
            assert_eq!(skipping.state_hash(), computing.state_hash(), "step {step}");
            for ((_, a), (_, b)) in skipping.colliders.iter().zip(computing.colliders.iter()) {
                let fat = |w: &World, c: &Collider| w.broad_phase.fat_aabb(c.proxy);
                assert_eq!(fat(&skipping, a), fat(&computing, b), "step {step}");
            }
            // A box carried over a step without being computed has a distance to it.
            skipped += skipping
                .colliders
                .iter()
                .filter(|(_, c)| c.last_box.1 > 0.0 && c.last_box.1.is_finite())
                .count();
        }
        assert!(skipped > 36 * 60, "{skipped} boxes carried over");
    }

    /// A collider's turn radius is the farthest its shape lies from its body's centre of mass
    /// (parry3d's hull points, measured one by one), and follows the centre when a collider
    /// added to the body moves it.
    #[test]
    fn the_turn_radius_is_measured_from_the_centre_of_mass() {
        let mut world = World::default();
        let points = hull_points();
        let body = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
        let hull = world
            .add_collider(
                ColliderBuilder::convex_hull(&points).translation(Vector::new(1.0, 0.0, 0.5)),
                body,
            )
            .unwrap();
        let expected = |world: &World| {
            let collider = &world.colliders.at(hull.index);
            let center = world.bodies.at(body.index).mass.local_center;
            let Shape::ConvexHull(h) = &collider.shape else {
                unreachable!()
            };
            h.polyhedron()
                .points()
                .iter()
                .map(|p| (collider.local_pose * p - center).norm())
                .fold(0.0, Real::max)
        };
        let measured = |world: &mut World| {
            let center = world.bodies.at(body.index).mass.local_center;
            world.colliders.at_mut(hull.index).turn_radius(&center)
        };
        let alone = expected(&world);
        assert!((measured(&mut world) - alone).abs() < 1e-5);
        // A second collider 3 m away moves the centre of mass towards it.
        world
            .add_collider(
                ColliderBuilder::cuboid(0.5, 0.5, 0.5).translation(Vector::new(-3.0, 0.0, 0.0)),
                body,
            )
            .unwrap();
        let with_box = expected(&world);
        assert!(with_box > alone + 1.0, "{alone} -> {with_box}");
        assert!((measured(&mut world) - with_box).abs() < 1e-5);
    }
}

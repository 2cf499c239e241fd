//! The step's joints on the world's side of the solve: each joint turned into the solver's
//! rows (on several workers when there are many), each ray spring's ray cast first, their
//! impulses stored back for warm starting, and the joints that held with more than their
//! breaking force removed.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use sprung_solver::joint::{JointCounts, JointLists, JointRun};
use sprung_solver::settings::MAX_THREADS;
use sprung_solver::step::StepContext;

use super::*;
use crate::handle::ArenaRun;
use sprung_solver::share;

/// From how many joints `build_joints` splits the rows over the workers (two under
/// `cfg(fuzzing)`: see `PARALLEL_WORK`).
const PARALLEL_JOINTS: usize = if cfg!(fuzzing) { 2 } else { 1024 };

/// Which of the solver's lists a joint's rows go to this step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum JointLane {
    /// None: no joint in this slot, both bodies are static or asleep, or it is a ray spring
    /// whose ray hit nothing.
    Idle,
    /// A plain ball joint: a point part solved in lanes ([`BallJoint::plain`]).
    Point,
    /// A plain distance joint: a length part solved in lanes ([`DistanceJoint::plain`]).
    Length,
    /// Any other: its kind's rows ([`JointKind::prepare`]).
    Rows,
    /// A ray spring: `Rows` when its ray hit something this step, else `Idle` (in the table
    /// only; a step's lanes say which).
    RaySpring,
}

impl JointLane {
    /// Where a joint set as `kind` goes (before its bodies or its ray are looked at).
    fn of(kind: &JointKind) -> JointLane {
        match kind {
            JointKind::RaySpring(_) => JointLane::RaySpring,
            JointKind::Ball(ball) if BallJoint::is_plain(ball) => JointLane::Point,
            JointKind::Distance(d) if DistanceJoint::is_plain(d) => JointLane::Length,
            _ => JointLane::Rows,
        }
    }
}

/// One joint slot as the step's walks read it: its bodies' slots and where its kind goes.
#[derive(Clone, Copy, Debug)]
struct JointEntry {
    bodies: (u32, u32),
    lane: JointLane,
}

/// Each joint slot's bodies and the list its kind goes to, kept apart from the joints: their
/// records are hundreds of bytes, and deciding each step where every joint goes by reading
/// them cost 0.45 ms of `joint_grid100`'s 19,701 joints. Made again when a joint is added,
/// removed or changed (`stale`), or the joints' slots are not the table's (a restored world).
/// Also this step's lane of each slot, its bodies and ray looked at.
#[derive(Debug, Default)]
pub(super) struct JointTable {
    entries: Vec<JointEntry>,
    /// How many joints have a breaking force.
    breakable: usize,
    /// How many plain ball and distance joints are springs (only a spring is ever too stiff).
    plain_springs: usize,
    /// A joint was added, removed or changed since `entries` was made.
    pub(super) stale: bool,
    /// This step's lane of each slot.
    lanes: Vec<JointLane>,
    /// This step's runs of the solver's joint lists: the ranges of slots the workers built, and
    /// the records of each.
    runs: Vec<JointRun>,
}

impl JointTable {
    /// Brings the table up to date with `joints` and sets this step's lanes, each body's
    /// place in the solver's list read from `solver_index` (by body slot, `STATIC` for one
    /// that does not move this step).
    fn refresh(&mut self, joints: &Arena<Joint, JointHandle>, solver_index: &[u32]) {
        if self.stale || self.entries.len() != joints.slots() {
            self.entries.clear();
            self.breakable = 0;
            self.plain_springs = 0;
            self.entries
                .extend((0..joints.slots()).map(|slot| match joints.live(slot) {
                    Some(joint) => {
                        let lane = JointLane::of(&joint.kind);
                        self.breakable += usize::from(joint.break_force.is_some());
                        let spring = match &joint.kind {
                            JointKind::Ball(ball) => ball.spring.is_some(),
                            JointKind::Distance(d) => d.spring.is_some(),
                            _ => false,
                        };
                        let plain = matches!(lane, JointLane::Point | JointLane::Length);
                        self.plain_springs += usize::from(plain && spring);
                        JointEntry {
                            bodies: (joint.body_a.index, joint.body_b.index),
                            lane,
                        }
                    }
                    None => JointEntry {
                        bodies: (0, 0),
                        lane: JointLane::Idle,
                    },
                }));
            self.stale = false;
        }
        let index = |body: u32| solver_index.get(body as usize).copied().unwrap_or(STATIC);
        self.lanes.clear();
        self.lanes
            .extend(self.entries.iter().enumerate().map(|(slot, entry)| {
                let (a, b) = entry.bodies;
                match entry.lane {
                    JointLane::Idle => JointLane::Idle,
                    _ if index(a) == STATIC && index(b) == STATIC => JointLane::Idle,
                    JointLane::RaySpring => match joints.live(slot).map(|j| &j.kind) {
                        Some(JointKind::RaySpring(RaySpringSettings {
                            ground: Some(_), ..
                        })) => JointLane::Rows,
                        _ => JointLane::Idle,
                    },
                    lane => lane,
                }
            }));
    }
}

/// What building the joints' rows reads (shared by the workers that build them).
struct JointInput<'a> {
    joints: &'a Arena<Joint, JointHandle>,
    bodies: &'a Arena<RigidBody, BodyHandle>,
    solver_bodies: &'a Bodies,
    solver_index: &'a [u32],
    lanes: &'a [JointLane],
    step: &'a StepContext,
}

impl JointInput<'_> {
    /// Writes the rows of the joints in `slots` to `out`, in slot order: exactly as many
    /// records of each list as [`JointLane`] counted for these slots.
    fn write(&self, slots: Range<usize>, out: JointLists) {
        let JointLists {
            points,
            lengths,
            joints,
            mut springs,
        } = out;
        let (mut points, mut lengths, mut joints) =
            (points.iter_mut(), lengths.iter_mut(), joints.iter_mut());
        let (h, rigid) = (self.step.h, &self.step.joint);
        for slot in slots {
            let lane = self.lanes.get(slot).copied().unwrap_or(JointLane::Idle);
            let Some(joint) = self.joints.live(slot).filter(|_| lane != JointLane::Idle) else {
                continue;
            };
            let frame = self.frame(joint);
            let a = Motion::load(self.solver_bodies, frame.body_a);
            let b = Motion::load(self.solver_bodies, frame.body_b);
            let index = slot as u32;
            let cache = (h, &mut springs);
            match (lane, &joint.kind, &joint.impulses) {
                (JointLane::Point, JointKind::Ball(settings), carried) => {
                    let carried = match carried {
                        JointImpulses::Ball(carried) => carried.point,
                        _ => Vector::zeros(),
                    };
                    if let Some(out) = points.next() {
                        *out = BallJoint::plain(
                            &frame, &a, &b, settings, rigid, cache, carried, index,
                        );
                    }
                }
                (JointLane::Length, JointKind::Distance(settings), carried) => {
                    let carried = match carried {
                        JointImpulses::Distance(carried) => carried.rest,
                        _ => 0.0,
                    };
                    let ends = (&a, &b);
                    if let Some(out) = lengths.next() {
                        *out = DistanceJoint::plain(
                            &frame, ends, settings, rigid, cache, carried, index,
                        );
                    }
                }
                (JointLane::Rows, ..) => {
                    if let Some(out) = joints.next() {
                        out.rows = joint
                            .kind
                            .prepare(&frame, (&a, &b), self.step, &joint.impulses);
                        out.frame = frame;
                        out.user_index = index;
                    }
                }
                _ => {} // (none: the lane was read from the kind)
            }
        }
    }

    /// Where `joint` attaches to its bodies at the start of the step. A ray spring's anchor A
    /// is where its ray hit this step.
    fn frame(&self, joint: &Joint) -> JointFrame {
        let (ba, bb) = (
            self.bodies.at(joint.body_a.index),
            self.bodies.at(joint.body_b.index),
        );
        let index = |body: BodyHandle| {
            let index = self.solver_index.get(body.index as usize);
            index.copied().unwrap_or(STATIC)
        };
        let pa = match &joint.kind {
            JointKind::RaySpring(RaySpringSettings {
                ground: Some(g), ..
            }) => *g,
            _ => ba.pose * joint.local_anchor_a,
        };
        let pb = bb.pose * joint.local_anchor_b;
        JointFrame {
            body_a: index(joint.body_a),
            body_b: index(joint.body_b),
            anchor_a: pa - ba.center_of_mass(),
            anchor_b: pb - bb.center_of_mass(),
            separation: pb - pa,
            rotations: (ba.pose.rotation, bb.pose.rotation),
        }
    }
}

/// Hands each joint of `joints` its rows' impulses in `lists`, for the next warm start;
/// whether every row's joint was there.
fn store(lists: &JointLists, joints: &mut ArenaRun<Joint>) -> bool {
    let mut all = true;
    let mut keep = |index: u32, impulses: JointImpulses| match joints.live_mut(index) {
        Some(joint) => joint.impulses = impulses,
        None => all = false,
    };
    for j in lists.joints.iter() {
        keep(j.user_index, j.impulses());
    }
    for p in lists.points.iter() {
        let point = BallImpulses {
            point: p.impulse,
            ..BallImpulses::default()
        };
        keep(p.user_index, JointImpulses::Ball(point));
    }
    for l in lists.lengths.iter() {
        let rest = DistanceImpulses {
            rest: l.impulse,
            ..DistanceImpulses::default()
        };
        keep(l.user_index, JointImpulses::Distance(rest));
    }
    all
}

impl World {
    /// Casts each ray spring's ray from its body's anchor (bodies asleep keep their last hit)
    /// and keeps where it hit, for [`World::build_joints`]; a ray that hits nothing drops the
    /// spring's carried impulses.
    pub(super) fn cast_ray_springs(&mut self) {
        if self.ray_springs == 0 {
            return;
        }
        for slot in 0..self.joints.slots() {
            let Some(joint) = self.joints.live(slot) else {
                continue;
            };
            let JointKind::RaySpring(RaySpringSettings {
                axis, max_length, ..
            }) = joint.kind
            else {
                continue;
            };
            let body = self.bodies.at(joint.body_b.index);
            if body.is_sleeping() {
                continue;
            }
            let origin = body.pose * joint.local_anchor_b;
            let filter = crate::QueryFilter::new()
                .exclude_body(joint.body_b)
                .exclude_sensors();
            let hit = self.cast_ray(origin, axis, max_length, true, &filter);
            let ground = hit.ok().flatten().map(|h| origin + axis * h.toi);
            let Some(joint) = self.joints.live_mut(slot) else {
                continue;
            };
            if let JointKind::RaySpring(settings) = &mut joint.kind {
                settings.ground = ground;
            }
            if ground.is_none() {
                joint.impulses = joint.kind.fresh_impulses();
            }
        }
    }

    /// Turns every joint into the solver's rows, anchored at the bodies' current poses: plain
    /// ball and distance joints into the solver's lists solved in lanes, the rest prepared by
    /// their kind ([`JointKind::prepare`]).
    ///
    /// First, on this thread, which list each joint goes to ([`JointLane`]) and so where each
    /// range of joint slots writes in each list; then the rows, each range by one worker when
    /// there are many joints (building a joint's rows reads its bodies' poses and masses, and
    /// a prepared kind's rows fill about a kilobyte). The lists come out in slot order, the
    /// same however many workers wrote them.
    pub(super) fn build_joints(&mut self, step: &StepContext) {
        let slots = self.joints.slots();
        let threads = step.workers;
        let workers = if threads > 1 && self.joints.len() >= PARALLEL_JOINTS {
            threads
        } else {
            1
        };
        let solver_index = self.contact_tables.solver_index();
        self.joint_table.refresh(&self.joints, solver_index);
        let lanes = &self.joint_table.lanes;
        // What each worker's range of slots writes.
        let mut runs = [JointRun::default(); MAX_THREADS as usize];
        for (worker, run) in runs.iter_mut().enumerate().take(workers) {
            let slots = share(slots, worker, workers);
            run.end = slots.end;
            for lane in &lanes[slots] {
                let count = match lane {
                    JointLane::Idle | JointLane::RaySpring => continue,
                    JointLane::Point => &mut run.counts.points,
                    JointLane::Length => &mut run.counts.lengths,
                    JointLane::Rows => &mut run.counts.joints,
                };
                *count += 1;
            }
        }
        let input = JointInput {
            joints: &self.joints,
            bodies: &self.bodies,
            solver_bodies: &self.solver_bodies,
            solver_index,
            lanes,
            step,
        };
        self.solver
            .write_joints(&runs[..workers], step, &|worker, lists| {
                input.write(share(slots, worker, workers), lists);
            });
        self.joint_table.runs.clear();
        self.joint_table.runs.extend_from_slice(&runs[..workers]);
    }

    /// A solver body's mass and velocity as rows see them (static: none).
    pub(super) fn motion(&self, index: u32) -> Motion {
        Motion::load(&self.solver_bodies, index)
    }

    /// Hands each joint's accumulated impulses back to it for the next warm start (the
    /// contacts' go back to the pair cache in [`World::report_touching`]'s walk over the
    /// pairs).
    ///
    /// By the same workers over the same runs of the solver's lists as `build_joints` (each
    /// run's records are the rows of its range of joint slots, which it changes alone).
    pub(super) fn store_joint_impulses(&mut self) {
        let runs = &self.joint_table.runs;
        let solver = &self.solver;
        let lengths = (
            solver.points.len(),
            solver.lengths.len(),
            solver.joints.len(),
        );
        let counted = runs.iter().fold((0, 0, 0), |(p, l, j), run| {
            let c = &run.counts;
            (p + c.points, l + c.lengths, j + c.joints)
        });
        let missed = AtomicBool::new(counted != lengths);
        if counted == lengths {
            let joints = self.joints.runs_mut(runs.iter().map(|run| run.end));
            self.solver
                .joint_runs(runs, joints, &|_, lists, mut joints| {
                    if !store(&lists, &mut joints) {
                        missed.store(true, Ordering::Relaxed);
                    }
                });
        }
        if missed.load(Ordering::Relaxed) {
            // (Not met: the lists are in the runs' order.) Once more, over every joint.
            let all = self.joints.runs_mut([usize::MAX]);
            let runs = [JointRun {
                counts: JointCounts {
                    points: lengths.0,
                    lengths: lengths.1,
                    joints: lengths.2,
                },
                end: usize::MAX,
            }];
            self.solver.joint_runs(&runs, all, &|_, lists, mut joints| {
                store(&lists, &mut joints);
            });
        }
    }

    /// Removes the joints that held with more than their breaking force, and says so; notes the
    /// springs held back by a cap.
    pub(super) fn break_joints(&mut self, step: &StepContext) {
        let h = step.h;
        self.limited.clear();
        for j in &mut self.solver.joints {
            let joint = self.joints.handle(j.user_index);
            if let Some((wanted, allowed)) = j.limited(h) {
                let limit = SpringLimit::ForceCap { wanted, allowed };
                self.limited.push(LimitedSpring { joint, limit });
            }
            if j.too_stiff() {
                let limit = SpringLimit::TooStiff;
                self.limited.push(LimitedSpring { joint, limit });
            }
        }
        // Only a spring is ever too stiff: the walk over every plain joint's row (0.2 ms of
        // `joint_grid100`) is for worlds with plain springs.
        if self.joint_table.plain_springs > 0 {
            let points = self.solver.points.iter();
            let points = points.map(|p| (p.user_index, p.too_stiff));
            let lengths = self.solver.lengths.iter();
            let lengths = lengths.map(|l| (l.user_index, l.too_stiff));
            for (index, _) in points.chain(lengths).filter(|(_, too_stiff)| *too_stiff) {
                let joint = self.joints.handle(index);
                let limit = SpringLimit::TooStiff;
                self.limited.push(LimitedSpring { joint, limit });
            }
        }
        self.broken.clear();
        if self.joint_table.breakable == 0 {
            return; // (the walk below reads every joint's record: 0.7 ms of `joint_grid100`)
        }
        let loads = self.solver.joints.iter().map(|j| (j.user_index, j.load(h)));
        let point_loads = self.solver.points.iter();
        let point_loads = point_loads.map(|p| (p.user_index, p.impulse.norm() / h));
        let length_loads = self.solver.lengths.iter();
        let length_loads = length_loads.map(|l| (l.user_index, l.impulse.abs() / h));
        for (index, load) in loads.chain(point_loads).chain(length_loads) {
            let joint = self.joints.at(index);
            if joint.break_force.is_some_and(|limit| load > limit) {
                self.broken.push((self.joints.handle(index), load));
            }
        }
        // By index, so that the buffer keeps its capacity for the next step.
        for i in 0..self.broken.len() {
            let (handle, load) = self.broken[i];
            if let Ok(joint) = self.remove_joint(handle) {
                self.events.push(Event::JointBroken {
                    joint: handle,
                    bodies: (joint.body_a, joint.body_b),
                    load,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sprung_solver::softness::Spring;

    /// A joint goes to the list its settings send it to from the step after it was added,
    /// changed or removed (the table of where each joint goes is made again then): a plain
    /// ball to the points, one given a stiffness spring to the prepared joints, a plain
    /// distance to the lengths, one given limits to the prepared joints; every list as long as
    /// the joints it holds, every joint's rows its own.
    #[test]
    fn joints_changed_at_run_time_go_to_their_new_lists() {
        let mut world = World::default();
        let mut body = |x: Real| {
            let at = Vector::new(x, 2.0, 0.0);
            let body = world.add_body(RigidBodyBuilder::dynamic().translation(at));
            let body = body.unwrap();
            world
                .add_collider(ColliderBuilder::ball(0.2), body)
                .unwrap();
            body
        };
        let (a, b, c) = (body(0.0), body(1.0), body(2.0));
        let lists = |world: &mut World| {
            world.step(1.0 / 60.0).unwrap();
            let solver = &world.solver;
            let mut users: Vec<u32> = solver.points.iter().map(|p| p.user_index).collect();
            users.extend(solver.lengths.iter().map(|l| l.user_index));
            users.extend(solver.joints.iter().map(|j| j.user_index));
            let live = world
                .joints
                .iter()
                .map(|(slot, _)| slot)
                .collect::<Vec<_>>();
            users.sort_unstable();
            assert_eq!(users, live, "each joint once");
            assert_eq!(
                world.solver_bodies.len(),
                3,
                "every body moves (none quarantined)"
            );
            (
                solver.points.len(),
                solver.lengths.len(),
                solver.joints.len(),
            )
        };
        // (Anchors in each body's frame: the joints hold from the start.)
        let plain_ball =
            || JointBuilder::ball(Point::new(0.5, 0.0, 0.0), Point::new(-0.5, 0.0, 0.0));
        let ball = world.add_joint(plain_ball(), a, b).unwrap();
        assert_eq!(lists(&mut world), (1, 0, 0));
        let stiff = Spring::Stiffness {
            stiffness: 1.0e3,
            damping: 10.0,
        };
        world.set_joint_spring(ball, Some(stiff)).unwrap();
        assert_eq!(lists(&mut world), (0, 0, 1));
        let rope = JointBuilder::distance(Point::origin(), Point::origin(), 1.0);
        let rope = world.add_joint(rope, b, c).unwrap();
        assert_eq!(lists(&mut world), (0, 1, 1));
        world.set_joint_limits(rope, Some((0.5, 2.0))).unwrap();
        assert_eq!(lists(&mut world), (0, 0, 2));
        world.set_joint_spring(ball, None).unwrap();
        assert_eq!(lists(&mut world), (1, 0, 1));
        world.remove_joint(ball).unwrap();
        assert_eq!(lists(&mut world), (0, 0, 1));
        // A new joint in the freed slot, a plain ball again.
        world.add_joint(plain_ball(), a, b).unwrap();
        assert_eq!(lists(&mut world), (1, 0, 1));
    }
}

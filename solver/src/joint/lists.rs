//! The solver's three joint lists as the engine fills them each step: sized first (keeping the
//! records of the last step), then written in runs, one run of each list per worker, each run
//! the rows of the joints in one range of the engine's slots. The runs follow the slots' order,
//! so the lists are the same however many workers wrote them.

use super::{
    BallSettings, JointConstraint, JointFrame, JointImpulses, JointKind, LengthRow, PointRow,
};
use crate::body::Motion;
use crate::pgs::Solver;
use crate::softness::{Softness, SpringWindow};
use crate::step::StepContext;
use crate::Vector;

/// How many records of each joint list a step (or one worker's run of it) writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JointCounts {
    /// Plain ball joints ([`Solver::points`]).
    pub points: usize,
    /// Plain distance joints ([`Solver::lengths`]).
    pub lengths: usize,
    /// Every other joint ([`Solver::joints`]).
    pub joints: usize,
}

/// Runs of the solver's joint lists, and of its spring cache, for one writer: the records it
/// must write, in order, and the cache entries of the joints it builds.
#[derive(Debug, Default)]
pub struct JointLists<'a> {
    /// Records for plain ball joints ([`super::BallJoint::plain`]).
    pub points: &'a mut [PointRow],
    /// Records for plain distance joints ([`super::DistanceJoint::plain`]).
    pub lengths: &'a mut [LengthRow],
    /// Records for every other joint ([`super::JointKind::prepare`]).
    pub joints: &'a mut [JointConstraint],
    /// The spring coefficients of the joints in this run's range of slots.
    pub springs: SpringWindow<'a>,
}

impl<'a> JointLists<'a> {
    /// The first `counts` records of each list with the cache entries of the joints below slot
    /// `slot`, and the rest (each count clamped to what the list holds).
    pub fn split(self, counts: JointCounts, slot: usize) -> (JointLists<'a>, JointLists<'a>) {
        let (points, rest_points) = self
            .points
            .split_at_mut(counts.points.min(self.points.len()));
        let (lengths, rest_lengths) = self
            .lengths
            .split_at_mut(counts.lengths.min(self.lengths.len()));
        let (joints, rest_joints) = self
            .joints
            .split_at_mut(counts.joints.min(self.joints.len()));
        let (springs, rest_springs) = self.springs.split_at(slot);
        (
            JointLists {
                points,
                lengths,
                joints,
                springs,
            },
            JointLists {
                points: rest_points,
                lengths: rest_lengths,
                joints: rest_joints,
                springs: rest_springs,
            },
        )
    }
}

/// One writer's part of a step's joint lists: how many records of each list it writes, and
/// the end of its range of joint slots (each range starts where the one before ends).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JointRun {
    /// The records it writes.
    pub counts: JointCounts,
    /// Where its joint slots end.
    pub end: usize,
}

impl Solver {
    /// Sizes the joint lists for `runs` (every record of every run) and has `write(run, lists)`
    /// fill each run's records, on the solver's workers, one run each, when there are several.
    /// Records left from the last step are reused as they are; new ones are placeholders (rows
    /// between two static bodies), every one of which `write` must overwrite.
    pub fn write_joints(
        &mut self,
        runs: &[JointRun],
        step: &StepContext,
        write: &(dyn Fn(usize, JointLists) + Sync),
    ) {
        let mut total = JointCounts::default();
        for run in runs {
            total.points += run.counts.points;
            total.lengths += run.counts.lengths;
            total.joints += run.counts.joints;
        }
        self.size_joint_lists(total, step);
        self.joint_runs(runs, std::iter::repeat(()), &|worker, lists, ()| {
            write(worker, lists)
        });
    }

    /// Has `work(run, lists, piece)` read or change each run of the joint lists (as
    /// [`Solver::write_joints`] made them from `runs`), each with the next piece of `with` (a
    /// run of the caller's own joints, say), on the solver's workers, one run each, when there
    /// are several. Each run's records are its range of joint slots' rows when the lists are
    /// as the last `write_joints` left them.
    pub fn joint_runs<T: Send>(
        &mut self,
        runs: &[JointRun],
        with: impl IntoIterator<Item = T>,
        work: &(dyn Fn(usize, JointLists, T) + Sync),
    ) {
        let slots = runs.last().map_or(0, |run| run.end);
        let mut lists = JointLists {
            points: &mut self.points,
            lengths: &mut self.lengths,
            joints: &mut self.joints,
            springs: self.spring_cache.window(slots),
        };
        // Each run's records, split off in turn, for a worker of its own.
        let pieces = runs.iter().zip(with).map(|(run, piece)| {
            let (mine, rest) = std::mem::take(&mut lists).split(run.counts, run.end);
            lists = rest;
            (mine, piece)
        });
        self.pool
            .run_pieces(pieces, &|worker, (lists, piece)| work(worker, lists, piece));
    }

    /// The joint lists at `counts` records, new ones placeholders.
    fn size_joint_lists(&mut self, counts: JointCounts, step: &StepContext) {
        let frame = JointFrame::unattached();
        let still = (&Motion::STATIC, &Motion::STATIC);
        let rigid = [Softness::RIGID; 2];
        if self.points.len() < counts.points {
            let row = PointRow::without_mass(&frame, still.0, still.1, rigid, Vector::zeros());
            self.points.resize(counts.points, row);
        }
        self.points.truncate(counts.points);
        if self.lengths.len() < counts.lengths {
            let row = LengthRow::new(&frame, still, 0.0, rigid, 0.0);
            self.lengths.resize(counts.lengths, row);
        }
        self.lengths.truncate(counts.lengths);
        if self.joints.len() < counts.joints {
            let carried = JointImpulses::Ball(Default::default());
            let kind = JointKind::Ball(BallSettings::default());
            let placeholder = JointConstraint {
                frame,
                rows: kind.prepare(&frame, still, step, &carried),
                user_index: 0,
            };
            self.joints.resize(counts.joints, placeholder);
        }
        self.joints.truncate(counts.joints);
    }
}

//! The solver's side of the joint lists the engine fills each step (`crate::joint::lists`):
//! sized first, then written in runs, one per worker.

use super::Solver;
use crate::body::Motion;
use crate::joint::{
    BallSettings, JointConstraint, JointCounts, JointFrame, JointImpulses, JointKind, JointLists,
    JointRun, LengthRow, PointRow,
};
use crate::softness::Softness;
use crate::step::StepContext;
use crate::Vector;

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

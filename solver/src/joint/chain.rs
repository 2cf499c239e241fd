//! Chains of rigid ball joints solved exactly, all joints of a chain at once: what keeps a
//! light chain holding a heavy body at its length.
//!
//! Gauss-Seidel passes a load down a chain one joint per iteration, and a rigid joint's soft
//! stabilisation stays stretched by `F K / omega^2` at rest, `K` the joint's own inverse
//! effective mass: light links holding a heavy body have a large `K` and carry the whole load,
//! so a 30-link chain of 0.05 kg links holding 50 kg stretched 20-90% and bounced. Solved
//! together, the rest stretch of each joint is `(K_chain lambda)_i / omega^2` instead, where
//! the chain's block matrix acts on the impulses as a second difference: the loads of
//! neighbouring joints cancel but for the links' own weight.
//!
//! A chain is a path of point parts ([`PointRow`], rigid, with the joints' stabilisation)
//! whose interior bodies each belong to exactly two of them (ropes, chains, pendulums; not
//! grids, whose bodies have three or four). Its matrix is block tridiagonal (3 x 3 blocks):
//! `K_ij = s_i s_j (1/m I + [r_i]x I^-1 [r_j]x^T)` summed over the bodies joints `i` and `j`
//! share, `s` being -1 on a joint's body A and +1 on its B. It is factored once per step
//! (block LU from the anchors at the start of the step, as each point part's `K^-1` is), and
//! each pass solves `K x = J v + bias C` for the whole chain, in linear time (Baraff, "Linear-time
//! dynamics using Lagrange multipliers", 1996, for the general tree; the chain is its simplest
//! case), then applies `-mass_scale x - impulse_scale lambda` to each joint as one point part
//! would. Solved on one worker in the serial stage, in a fixed order: the same bits for any
//! thread or lane count.

use std::ops::Range;

use nalgebra::Matrix3;

use super::point::PointRow;
use crate::body::{Bodies, STATIC};
use crate::softness::Softness;
use crate::{Real, Vector};

/// Fewest joints a path must have to be solved as a chain. Two: a 1 m double pendulum of 1000
/// kg over 1 kg, swinging, kept its lengths within 0.02% solved whole, 3.1% in the lanes.
const SHORTEST: usize = 2;

/// Which side of a joint a body is on: its anchor, its sign and its masses' index in
/// [`super::ends::Ends`].
#[derive(Clone, Copy, Debug)]
struct Side {
    sign: Real,
    anchor: Vector,
    end: usize,
}

impl Side {
    /// Body `body`'s side of `p`.
    fn of(p: &PointRow, body: u32) -> Side {
        if p.ends.body_b == body {
            Side {
                sign: 1.0,
                anchor: p.ends.anchor_b,
                end: 1,
            }
        } else {
            Side {
                sign: -1.0,
                anchor: p.ends.anchor_a,
                end: 0,
            }
        }
    }
}

/// The chains of a step, their factors and the passes' scratch, kept from step to step.
#[derive(Clone, Debug, Default)]
pub(crate) struct Chains {
    /// Each chain's range in `joints`.
    ranges: Vec<Range<usize>>,
    /// Indices of point parts, chain after chain, in order along each chain.
    joints: Vec<u32>,
    /// Per chain joint `i`: `D_i^-1`, `L_i = K_(i,i-1) D_(i-1)^-1` and `U_i = K_(i,i+1)`.
    d_inv: Vec<Matrix3<Real>>,
    lower: Vec<Matrix3<Real>>,
    upper: Vec<Matrix3<Real>>,
    /// Per chain joint, the pass's anchors now and right-hand side, then its solution.
    anchors: Vec<(Vector, Vector)>,
    x: Vec<Vector>,
    /// Per point part: whether it is in a chain.
    pub(crate) chained: Vec<bool>,
    /// Per body: how many candidate point parts it has, and the first two.
    degree: Vec<(u8, [u32; 2])>,
    visited: Vec<bool>,
    /// The last walk's runs of joints (long enough to be chains, factored or not), as ranges
    /// of `run_joints`.
    runs: Vec<Range<usize>>,
    run_joints: Vec<u32>,
    /// `chained` as the build before left it.
    was_chained: Vec<bool>,
}

impl Chains {
    /// Finds the chains among `points` whose softness is `rigid` (the joints'
    /// stabilisation in the biased pass, none in the relax pass), and factors them. With
    /// `walk` false the runs of joints found by the last build are taken again (the caller
    /// knows that the parts join the same bodies as then). Returns whether the parts chained
    /// differ from the last build's.
    pub(crate) fn build(
        &mut self,
        points: &[PointRow],
        bodies: &Bodies,
        rigid: [Softness; 2],
        walk: bool,
    ) -> bool {
        if walk {
            self.walk(points, bodies, rigid);
        }
        std::mem::swap(&mut self.chained, &mut self.was_chained);
        self.chained.clear();
        self.chained.resize(points.len(), false);
        self.ranges.clear();
        self.joints.clear();
        for r in 0..self.runs.len() {
            let first = self.joints.len();
            let run = self.runs[r].clone();
            self.joints.extend_from_slice(&self.run_joints[run]);
            if !self.factor(points, first) {
                self.joints.truncate(first);
                continue;
            }
            for &j in &self.joints[first..] {
                self.chained[j as usize] = true;
            }
            self.ranges.push(first..self.joints.len());
        }
        self.chained != self.was_chained
    }

    /// The runs of candidate point parts through moving bodies with two of them, each
    /// started from a part with an end that is not such a body (a closed loop is no run).
    fn walk(&mut self, points: &[PointRow], bodies: &Bodies, rigid: [Softness; 2]) {
        self.runs.clear();
        self.run_joints.clear();
        self.degree.clear();
        self.degree.resize(bodies.len(), (0, [u32::MAX; 2]));
        self.visited.clear();
        self.visited.resize(points.len(), false);
        let candidate = |p: &PointRow| p.softness == rigid;
        let moving = |b: u32| b != STATIC && bodies.sims[b as usize].is_dynamic();
        for (i, p) in points.iter().enumerate() {
            if !candidate(p) {
                self.visited[i] = true;
                continue;
            }
            for b in [p.ends.body_a, p.ends.body_b] {
                if moving(b) {
                    let (count, first) = &mut self.degree[b as usize];
                    if (*count as usize) < 2 {
                        first[*count as usize] = i as u32;
                    }
                    *count = count.saturating_add(1);
                }
            }
        }
        let interior = |degree: &[(u8, [u32; 2])], b: u32| moving(b) && degree[b as usize].0 == 2;
        for start in 0..points.len() {
            if self.visited[start] {
                continue;
            }
            let p = &points[start];
            // A chain starts at a joint with an end that is not interior; walk away from it.
            let (a_in, b_in) = (
                interior(&self.degree, p.ends.body_a),
                interior(&self.degree, p.ends.body_b),
            );
            if a_in && b_in {
                continue; // inside a chain (reached from its end) or on a cycle
            }
            let first = self.run_joints.len();
            let (mut joint, mut towards) = (
                start as u32,
                if a_in { p.ends.body_a } else { p.ends.body_b },
            );
            loop {
                self.visited[joint as usize] = true;
                self.run_joints.push(joint);
                if !interior(&self.degree, towards) {
                    break;
                }
                let [j0, j1] = self.degree[towards as usize].1;
                joint = if j0 == joint { j1 } else { j0 };
                if self.visited[joint as usize] {
                    break;
                }
                let q = &points[joint as usize];
                towards = if q.ends.body_a == towards {
                    q.ends.body_b
                } else {
                    q.ends.body_a
                };
            }
            if self.run_joints.len() - first < SHORTEST {
                self.run_joints.truncate(first);
            } else {
                self.runs.push(first..self.run_joints.len());
            }
        }
    }

    /// Factors the chain starting at `first` in `joints` (to its end); false if a pivot block
    /// is singular (the chain is then left to the lanes).
    fn factor(&mut self, points: &[PointRow], first: usize) -> bool {
        let n = self.joints.len();
        for v in [&mut self.d_inv, &mut self.lower, &mut self.upper] {
            v.resize(n, Matrix3::zeros());
        }
        self.anchors.resize(n, (Vector::zeros(), Vector::zeros()));
        self.x.resize(n, Vector::zeros());
        let block = |p: &PointRow, i: Side, j: Side| {
            let (inv_mass, inv_inertia) = (p.ends.inv_mass[i.end], &p.ends.inv_inertia[i.end]);
            let lever = i.anchor.cross_matrix() * inv_inertia * j.anchor.cross_matrix().transpose();
            (Matrix3::identity() * inv_mass + lever) * (i.sign * j.sign)
        };
        let diagonal = |p: &PointRow| {
            let (a, b) = (Side::of(p, p.ends.body_a), Side::of(p, p.ends.body_b));
            block(p, a, a) + block(p, b, b)
        };
        for k in first..n {
            let p = &points[self.joints[k] as usize];
            let mut d = diagonal(p);
            if k > first {
                d -= self.lower[k] * self.upper[k - 1];
            }
            let Some(d_inv) = d.try_inverse() else {
                return false;
            };
            self.d_inv[k] = d_inv;
            if k + 1 < n {
                let q = &points[self.joints[k + 1] as usize];
                let shared = [p.ends.body_a, p.ends.body_b]
                    .into_iter()
                    .find(|&b| b == q.ends.body_a || b == q.ends.body_b)
                    .unwrap_or(STATIC);
                let (i, j) = (Side::of(p, shared), Side::of(q, shared));
                self.upper[k] = block(p, i, j);
                // K_(k+1,k) = U_k^T, the matrix being symmetric.
                self.lower[k + 1] = self.upper[k].transpose() * d_inv;
            }
        }
        true
    }

    /// Applies each chained joint's accumulated impulse (warm starting).
    pub(crate) fn warm_start(&self, points: &[PointRow], bodies: &mut Bodies) {
        for &j in &self.joints {
            let p = &points[j as usize];
            let (mut a, mut b) = (*bodies.state(p.ends.body_a), *bodies.state(p.ends.body_b));
            let (ra, rb) = p.ends.anchors(&a, &b);
            p.ends.apply(&mut a, &mut b, (&ra, &rb), &p.impulse);
            bodies.store_pair((p.ends.body_a, &a), (p.ends.body_b, &b));
        }
    }

    /// One pass over every chain, each solved as a whole, biased or relaxing.
    pub(crate) fn solve(&mut self, points: &mut [PointRow], bodies: &mut Bodies, use_bias: bool) {
        let pass = if use_bias { 0 } else { 1 };
        for range in &self.ranges {
            // Right-hand sides from the velocities before any joint of the chain acts.
            for k in range.clone() {
                let p = &points[self.joints[k] as usize];
                let (a, b) = (bodies.state(p.ends.body_a), bodies.state(p.ends.body_b));
                let (ra, rb) = p.ends.anchors(a, b);
                let r = (&ra, &rb);
                let separation = p.ends.separation(a, b, r);
                let velocity = PointRow::velocity(a, b, r);
                self.x[k] = velocity + separation * p.softness[pass].bias_rate;
                self.anchors[k] = (ra, rb);
            }
            // Block LU: forward, then back.
            for k in range.start + 1..range.end {
                let previous = self.x[k - 1];
                self.x[k] -= self.lower[k] * previous;
            }
            let last = range.end - 1;
            self.x[last] = self.d_inv[last] * self.x[last];
            for k in (range.start..last).rev() {
                self.x[k] = self.d_inv[k] * (self.x[k] - self.upper[k] * self.x[k + 1]);
            }
            for k in range.clone() {
                let p = &mut points[self.joints[k] as usize];
                let soft = &p.softness[pass];
                let wanted =
                    p.impulse - self.x[k] * soft.mass_scale - p.impulse * soft.impulse_scale;
                let applied = wanted - p.impulse;
                p.impulse = wanted;
                let (mut a, mut b) = (*bodies.state(p.ends.body_a), *bodies.state(p.ends.body_b));
                let (ra, rb) = &self.anchors[k];
                p.ends.apply(&mut a, &mut b, (ra, rb), &applied);
                bodies.store_pair((p.ends.body_a, &a), (p.ends.body_b, &b));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{BodySim, BodyState, Motion};
    use crate::joint::JointFrame;

    /// One rigid pass over a chain meets every joint's velocity constraint at once, whatever the
    /// masses (1000:1 here) and lever arms: what Gauss-Seidel needs many passes for. A chain of
    /// five bodies from a static point, each joint's anchors off the centres of mass.
    #[test]
    fn one_pass_meets_every_joint_of_a_chain_at_once() {
        let mut bodies = Bodies::default();
        let masses = [0.05, 0.05, 50.0, 0.05, 1.0];
        for (i, &m) in masses.iter().enumerate() {
            let inertia = Matrix3::from_diagonal(&Vector::new(1.0, 2.0, 0.5)) * (0.01 * m);
            let inv = inertia.try_inverse().unwrap();
            let state = BodyState::moving(
                Vector::new(0.3 * i as Real, -1.0, 0.2),
                Vector::new(0.1, 0.5 * i as Real, -0.7),
            );
            bodies.push(state, BodySim::with_mass(1.0 / m, inv));
        }
        let soft = [Softness::RIGID; 2];
        let points: Vec<PointRow> = (0..masses.len() as u32)
            .map(|i| {
                let a = if i == 0 { STATIC } else { i - 1 };
                let frame = JointFrame {
                    body_a: a,
                    body_b: i,
                    anchor_a: Vector::new(0.1, -0.2, 0.05 * i as Real),
                    anchor_b: Vector::new(-0.05, 0.3, 0.1),
                    separation: Vector::zeros(),
                    rotations: (crate::Quaternion::identity(), crate::Quaternion::identity()),
                };
                let (ma, mb) = (Motion::load(&bodies, a), Motion::load(&bodies, i));
                PointRow::new(&frame, &ma, &mb, soft, Vector::zeros())
            })
            .collect();
        let mut points = points;
        let mut chains = Chains::default();
        chains.build(&points, &bodies, soft, true);
        assert!(chains.chained.iter().all(|&c| c), "{:?}", chains.chained);
        let error = |points: &[PointRow], bodies: &Bodies| -> Real {
            points
                .iter()
                .map(|p| {
                    let (a, b) = (bodies.state(p.ends.body_a), bodies.state(p.ends.body_b));
                    let (ra, rb) = p.ends.anchors(a, b);
                    PointRow::velocity(a, b, (&ra, &rb)).norm()
                })
                .fold(0.0, Real::max)
        };
        assert!(error(&points, &bodies) > 0.5);
        chains.solve(&mut points, &mut bodies, false);
        assert!(
            error(&points, &bodies) < 1e-4,
            "{}",
            error(&points, &bodies)
        );
    }
}

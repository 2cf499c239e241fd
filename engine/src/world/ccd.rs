//! Continuous collision: the sweep that stops fast bodies from passing through thin ones.
//!
//! Speculative contacts stop a body whose contacts reach as far as it travels; past
//! `MAX_SPECULATIVE_DISTANCE` in one step they do not, and neither does the broad phase, whose
//! boxes grow by no more; and a body that moves more than half its thickness can turn through
//! a thin wall about the one point its contact holds. Such bodies, and bullets always, are swept from where they were at the
//! start of the step to where the solver put them, by conservative advancement
//! ([`time_of_impact`]), against static colliders (bullets: against dynamic non-bullets too, at
//! their end poses); a mesh or height field by its triangles under the sweep, a half-space by a
//! slab of it. A body whose centre ended beyond the surface it first hit is moved back to
//! the time of impact, keeping its velocity: the next step's contact then stops it, as Box2D v3
//! does. A body that stopped in front (its contacts did their work) is left alone.

use parry3d::bounding_volume::BoundingVolume;
use parry3d::math::{Isometry, Real, Vector};
use sprung_collision::cast::{time_of_impact, Motion as Sweep};
use sprung_collision::level;
use sprung_collision::shape::Shape;

use super::{World, MAX_SPECULATIVE_DISTANCE};
use crate::body::{BodyKind, RigidBody};
use crate::collider::Collider;
use crate::handle::{Arena, ColliderHandle};
use crate::integrate::PARALLEL_BODIES;
use sprung_solver::share;
use sprung_solver::step::StepContext;

/// Whether `body` (moving) must be swept: a bullet, or a dynamic body that moved too far for
/// its contacts' reach or for its own thinness (a wall could fit in between).
fn needs_sweep(body: &RigidBody, colliders: &Arena<Collider, ColliderHandle>) -> bool {
    if body.kind != BodyKind::Dynamic {
        return false;
    }
    if body.bullet {
        return true;
    }
    let (start, end) = (body.previous_pose, body.pose);
    let turn = end.rotation * start.rotation.inverse();
    // The largest collider's reach and the thinnest one's thickness, in one walk.
    let (mut extent, mut thinnest) = (0.0, Real::INFINITY);
    for c in &body.colliders {
        let c = colliders.at(c.index);
        extent = Real::max(extent, c.scale);
        thinnest = Real::min(thinnest, c.thickness);
    }
    let shift = (body.center_of_mass() - start * body.mass.local_center).norm();
    let limit = MAX_SPECULATIVE_DISTANCE.min(thinnest);
    // The turn's angle is at most pi times the sine of its half (the quaternion's vector
    // part), and 3.2 leaves rounding no say: a body that turned little is let go without the
    // arc tangent the exact angle takes (most bodies, every step); the decision is the one
    // the exact angle makes.
    let bound = shift + 3.2 * turn.as_ref().imag().norm() * extent;
    !(bound <= limit || shift + turn.scaled_axis().norm() * extent <= limit)
}

/// Stop this far (m) in front of the surface hit: the next step's contact begins there.
const TOI_TARGET: Real = 0.005;

impl World {
    /// Sweeps every body that moved too far for its contacts (and every bullet) and moves it
    /// back to its first time of impact if it passed through something. Which bodies need a
    /// sweep is decided on the workers when many bodies move (each body alone: a walk over
    /// every moving body's record); the sweeps, few, follow in the solver's order.
    pub(super) fn solve_continuous(&mut self, step: &StepContext) {
        let dt = step.dt;
        let moving = self.solver_slots.len();
        let workers = if moving >= PARALLEL_BODIES {
            step.workers
        } else {
            1
        };
        self.swept.clear();
        self.swept.resize(moving, false);
        let (slots, bodies, colliders) = (&self.solver_slots, &self.bodies, &self.colliders);
        let mut rest = self.swept.as_mut_slice();
        let runs = (0..workers).map(|worker| {
            let range = share(moving, worker, workers);
            let (run, after) = std::mem::take(&mut rest).split_at_mut(range.len());
            rest = after;
            (range.start, run)
        });
        self.solver.run_pieces(runs, &|_, (first, run)| {
            for (flag, &slot) in run.iter_mut().zip(&slots[first..]) {
                *flag = needs_sweep(bodies.at(slot), colliders);
            }
        });
        for i in 0..moving {
            if !self.swept[i] {
                continue;
            }
            let slot = self.solver_slots[i];
            if let Some((t, normal)) = self.first_pass_through(slot, dt) {
                let body = self.bodies.at_mut(slot);
                body.pose =
                    sweep_of(body.previous_pose, body.pose, body.mass.local_center, dt).pose_at(t);
                if t == 0.0 {
                    // Touching at the start and through anyway: its contact could not stop the
                    // centre (a body pivoting hard on one point). Kept, that approach would
                    // send it back to the same pose step after step; it goes instead.
                    let approach = body.linear_velocity.dot(&normal).max(0.0);
                    body.linear_velocity -= normal * approach;
                }
            }
        }
    }

    /// The earliest time in the step at which body `slot`, moving from its previous pose to
    /// its pose, hit a collider it then passed (its centre ending beyond the surface), with
    /// the normal there (from the body to what it hit).
    fn first_pass_through(&self, slot: u32, dt: Real) -> Option<(Real, Vector<Real>)> {
        let body = self.bodies.at(slot);
        let motion = sweep_of(body.previous_pose, body.pose, body.mass.local_center, dt);
        let mut first: Option<(Real, Vector<Real>)> = None;
        for own in &body.colliders {
            let collider = self.colliders.at(own.index);
            let moving = Sweep {
                start: body.previous_pose * collider.local_pose,
                local_center: collider.local_pose.inverse() * body.mass.local_center,
                ..motion
            };
            let end = collider.shape.aabb(&(body.pose * collider.local_pose));
            let swept = collider.shape.aabb(&moving.start).merged(&end);
            self.broad_phase.query_aabb(&swept, |proxy| {
                let Some(other_slot) = self.broad_phase.payload(proxy) else {
                    return;
                };
                if proxy == collider.proxy {
                    return;
                }
                let other = self.colliders.at(other_slot);
                let other_body = self.bodies.at(other.body.index);
                let target = match other_body.kind {
                    BodyKind::Static => true,
                    BodyKind::Dynamic => body.bullet && !other_body.bullet,
                    BodyKind::Kinematic => false,
                };
                if !target || other.sensor || !self.can_touch(collider.proxy, proxy) {
                    return;
                }
                let pose = other_body.pose * other.local_pose;
                let mut consider = |piece: &Shape, piece_pose: Isometry<Real>| {
                    let still = Sweep::fixed(piece_pose);
                    let toi = |target| {
                        time_of_impact(&collider.shape, &moving, piece, &still, dt, target)
                    };
                    // Already within the target at the start (a contact from the last sweep):
                    // then what matters is whether it gets closer still, to touching.
                    let hit = match toi(TOI_TARGET) {
                        Some(hit) if hit.t == 0.0 => toi(0.0),
                        hit => hit,
                    };
                    let Some(hit) = hit else {
                        return;
                    };
                    // A stop in front is the contacts' business. A body already touching at
                    // the start whose centre still ended beyond (turning through about the one
                    // point its contact held) goes back to where it was: it loses the step's
                    // motion, not the wall.
                    let beyond = (end.center() - hit.point_b).dot(&hit.normal) > 0.0;
                    if hit.t < dt && beyond && first.is_none_or(|(f, _)| hit.t < f) {
                        first = Some((hit.t, hit.normal));
                    }
                };
                // Level geometry is swept piece by piece: the triangles under the swept box,
                // or a slab of the half-space there.
                level::for_each_piece(&other.shape, &pose, &swept, |piece, at| {
                    consider(piece, *at)
                });
            });
        }
        first
    }
}

/// The motion that takes a body from `start` to `end` in `dt`: its centre of mass (at
/// `local_center`) in a straight line, turning at a constant rate.
fn sweep_of(
    start: Isometry<Real>,
    end: Isometry<Real>,
    local_center: parry3d::math::Point<Real>,
    dt: Real,
) -> Sweep {
    let turn = (end.rotation * start.rotation.inverse()).scaled_axis();
    Sweep::new(
        start,
        (end * local_center - start * local_center) / dt,
        turn / dt,
    )
    .about(local_center)
}

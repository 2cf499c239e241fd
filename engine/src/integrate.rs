//! The integrate stage's two halves around the solver: gather bodies into the solver's compact
//! [`Bodies`] (hot state and cold half) (velocities, forces as accelerations, inverse mass and world inertia),
//! and scatter the result back (velocities and poses). The semi-implicit Euler updates
//! themselves run inside the solver, once per substep (`BodySim::integrate_velocity` and
//! `BodyState::integrate_position`), because substeps interleave them with the constraint iterations.

use parry3d::math::{Real, Vector};
use sprung_solver::body::{Bodies, BodySim, BodyState, STATIC};
use sprung_solver::pgs::Solver;
use sprung_solver::settings::MAX_THREADS;
use sprung_solver::step::StepContext;

use crate::body::{BodyKind, RigidBody};
use crate::handle::{Arena, BodyHandle};
use crate::limits::runaway;

/// From how many moving bodies the walks over every body or collider after the solve
/// (`scatter`, `place_colliders`) split the slots over the workers: below, waking them costs
/// about what the walk does. (Two under `cfg(fuzzing)`: see `PARALLEL_WORK`.)
pub(crate) const PARALLEL_BODIES: usize = if cfg!(fuzzing) { 2 } else { 2048 };

/// Gives each kinematic body with a target the velocity that reaches it in this step (what
/// the broad phase and contacts see); `scatter` then places the body on the target exactly.
pub(crate) fn aim_kinematic(bodies: &mut Arena<RigidBody, BodyHandle>, step: &StepContext) {
    let dt = step.dt;
    for (_, body) in bodies.iter_mut() {
        if let (BodyKind::Kinematic, Some(target)) = (body.kind, body.kinematic_target) {
            body.linear_velocity = (target * body.mass.local_center - body.center_of_mass()) / dt;
            body.angular_velocity =
                (target.rotation * body.pose.rotation.inverse()).scaled_axis() / dt;
        }
    }
}

/// Where [`gather`] writes: the solver's bodies, each one's body slot, and the slots of the
/// bodies it quarantined.
pub(crate) struct Gathered<'a> {
    pub out: &'a mut Bodies,
    pub slots: &'a mut Vec<u32>,
    pub runaways: &'a mut Vec<u32>,
}

/// Fills `out` with every moving body (dynamic and kinematic) that is awake, in slot order,
/// records each body's index there, and in `slots` each solver body's slot.
///
/// On `workers` of `solver`'s threads when many bodies moved in the last step, in the runs
/// of body slots that `scatter` and the broad phase hand the same workers (each reads the
/// bodies its own core last wrote): a first pass counts each run's moving bodies, a second
/// writes each run's at its offset. A body quarantined on the way leaves a hole at its run's
/// end, closed after. The same list on any number of workers.
pub(crate) fn gather(
    bodies: &mut Arena<RigidBody, BodyHandle>,
    into: Gathered<'_>,
    gravity: &Vector<Real>,
    step: &StepContext,
    solver: &mut Solver,
) {
    let (gravity, dt, workers) = (*gravity, step.dt, step.workers);
    let Gathered {
        out,
        slots,
        runaways,
    } = into;
    runaways.clear();
    // The last step's count, as the other walks over every body decide.
    let workers = if out.len() >= PARALLEL_BODIES {
        workers
    } else {
        1
    };
    if workers <= 1 {
        out.clear();
        slots.clear();
        for (slot, body) in bodies.iter_mut() {
            body.previous_pose = body.pose;
            if body.is_resting() {
                body.solver_index = STATIC;
                continue;
            }
            match solver_body(body, gravity, dt) {
                Some((state, sim)) => {
                    slots.push(slot);
                    body.solver_index = out.push(state, sim);
                }
                None => runaways.push(slot),
            }
        }
        return;
    }
    let mut counts = [0usize; MAX_THREADS as usize];
    let runs = bodies.shares_mut(workers).zip(counts.iter_mut());
    solver.run_pieces(runs, &|_, (mut run, count)| {
        for (_, body) in run.iter_mut() {
            body.previous_pose = body.pose;
            if body.is_resting() {
                body.solver_index = STATIC;
            } else {
                *count += 1;
            }
        }
    });
    let counts = &counts[..workers];
    let total = counts.iter().sum();
    out.resize(total);
    slots.resize(total, 0);
    let mut offsets = [0usize; MAX_THREADS as usize];
    let mut written = [0usize; MAX_THREADS as usize];
    for w in 1..workers {
        offsets[w] = offsets[w - 1] + counts[w - 1];
    }
    let parts = split_runs(&mut out.states, counts)
        .zip(split_runs(&mut out.sims, counts))
        .zip(split_runs(slots, counts));
    let runs = bodies.shares_mut(workers).zip(parts);
    let runs = runs.zip(offsets.iter().zip(written.iter_mut()));
    solver.run_pieces(runs, &|_,
                              (
        (mut run, ((states, sims), slots)),
        (&offset, written),
    )| {
        // Moving bodies from the front, the slots of those quarantined from the back.
        let (mut front, mut back) = (0, slots.len());
        for (slot, body) in run.iter_mut() {
            if body.is_resting() {
                continue;
            }
            match solver_body(body, gravity, dt) {
                Some((state, sim)) if front < back => {
                    (states[front], sims[front], slots[front]) = (state, sim, slot);
                    body.solver_index = (offset + front) as u32;
                    front += 1;
                }
                // (Not met: the first pass counted this body.)
                Some(_) => body.solver_index = STATIC,
                None if front < back => {
                    back -= 1;
                    slots[back] = slot;
                }
                None => {}
            }
        }
        *written = front;
    });
    if written[..workers] == *counts {
        return;
    }
    // Close the holes: each run's bodies moved down to follow the last, its quarantined
    // bodies' slots (read before a later run's bodies cover them) in slot order.
    let mut cursor = 0;
    for w in 0..workers {
        let (start, kept) = (offsets[w], written[w]);
        runaways.extend(slots[start + kept..start + counts[w]].iter().rev());
        if start != cursor {
            out.states.copy_within(start..start + kept, cursor);
            out.sims.copy_within(start..start + kept, cursor);
            slots.copy_within(start..start + kept, cursor);
            for (k, &slot) in slots.iter().enumerate().skip(cursor).take(kept) {
                bodies.at_mut(slot).solver_index = k as u32;
            }
        }
        cursor += kept;
    }
    out.truncate(cursor);
    slots.truncate(cursor);
}

/// `list` cut into consecutive runs of `lens` (which sum to at most its length).
fn split_runs<'a, T>(
    list: &'a mut [T],
    lens: &'a [usize],
) -> impl Iterator<Item = &'a mut [T]> + 'a {
    let mut rest = list;
    lens.iter().map(move |&len| {
        let (run, after) = std::mem::take(&mut rest).split_at_mut(len);
        rest = after;
        run
    })
}

/// A moving body as the solver takes it: its velocities, and its inverse mass and world
/// inertia, forces as accelerations, pose and damping. None for a body whose velocity the
/// step would carry past the limits: it is quarantined here (check 1 of
/// world/quarantine.rs) before it meets a row.
fn solver_body(
    body: &mut RigidBody,
    gravity: Vector<Real>,
    dt: Real,
) -> Option<(BodyState, BodySim)> {
    let dynamic = body.kind == BodyKind::Dynamic;
    let i = body.mass.principal_inertia;
    // Equal moments (a sphere, a cube): the same inertia about every axis, in any frame, so
    // neither the frame nor a rotated matrix is needed (most bodies of most scenes), and
    // there is no gyroscopic term.
    let isotropic = i.x == i.y && i.y == i.z;
    let (inv_mass, inv_inertia, principal_inertia, frame) = if !dynamic {
        let none = nalgebra::Matrix3::zeros();
        (0.0, none, Vector::zeros(), body.pose.rotation)
    } else if isotropic {
        let inv = nalgebra::Matrix3::from_diagonal_element(1.0 / i.x);
        (1.0 / body.mass.mass, inv, i, body.pose.rotation)
    } else {
        let frame = body.pose.rotation * body.mass.principal_frame;
        let r = frame.to_rotation_matrix();
        let inv_diag = i.map(|i| 1.0 / i);
        let inv = r.matrix() * nalgebra::Matrix3::from_diagonal(&inv_diag) * r.matrix().transpose();
        (1.0 / body.mass.mass, inv, i, frame)
    };
    let linear_acceleration = if dynamic {
        gravity * body.gravity_scale + body.force * inv_mass
    } else {
        Vector::zeros()
    };
    let angular_acceleration = inv_inertia * body.torque;
    let (v, w) = (&body.linear_velocity, &body.angular_velocity);
    if dynamic && runaway(v, w, &linear_acceleration, &angular_acceleration, dt) {
        // Check 1 of world/quarantine.rs: quarantined before it meets a row.
        body.quarantined = true;
        body.linear_velocity = Vector::zeros();
        body.angular_velocity = Vector::zeros();
        body.force = Vector::zeros();
        body.torque = Vector::zeros();
        body.solver_index = STATIC;
        return None;
    }
    Some((
        BodyState::moving(body.linear_velocity, body.angular_velocity),
        BodySim {
            inv_mass,
            inv_inertia,
            principal_inertia,
            principal_frame: frame,
            gyroscopic: dynamic && !isotropic,
            position: body.center_of_mass().coords,
            rotation: body.pose.rotation,
            linear_acceleration,
            angular_acceleration,
            linear_damping: body.linear_damping,
            angular_damping: body.angular_damping,
        },
    ))
}

/// Writes the solver's velocities and poses back, and clears the step's forces: on `workers`
/// of `solver`'s threads, a run of body slots each, when there are many bodies.
pub(crate) fn scatter(
    bodies: &mut Arena<RigidBody, BodyHandle>,
    solved: &Bodies,
    step: &StepContext,
    solver: &mut Solver,
) {
    let workers = if solved.len() >= PARALLEL_BODIES {
        step.workers
    } else {
        1
    };
    solver.run_pieces(bodies.shares_mut(workers), &|_, mut run| {
        for (_, body) in run.iter_mut() {
            scatter_body(body, solved);
        }
    });
}

/// [`scatter`] for one body.
fn scatter_body(body: &mut RigidBody, solved: &Bodies) {
    let i = body.solver_index as usize;
    let (Some(state), Some(s)) = (solved.states.get(i), solved.sims.get(i)) else {
        return;
    };
    body.linear_velocity = state.linear_velocity;
    body.angular_velocity = state.angular_velocity;
    body.pose.rotation = s.rotation;
    body.pose.translation.vector = s.position - s.rotation * body.mass.local_center.coords;
    if let Some(target) = body.kinematic_target.take() {
        body.pose = target;
    }
    body.force = Vector::zeros();
    body.torque = Vector::zeros();
}

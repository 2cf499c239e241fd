//! The integrate stage's two halves around the solver: gather bodies into the solver's compact
//! [`Bodies`] (hot state and cold half) (velocities, forces as accelerations, inverse mass and world inertia),
//! and scatter the result back (velocities and poses). The semi-implicit Euler updates
//! themselves run inside the solver, once per substep (`BodySim::integrate_velocity` and
//! `BodyState::integrate_position`), because substeps interleave them with the constraint iterations.

use parry3d::math::{Real, Vector};
use sprung_solver::body::{Bodies, BodySim, BodyState, STATIC};
use sprung_solver::pgs::Solver;

use crate::body::{BodyKind, RigidBody};
use crate::handle::{Arena, BodyHandle};
use crate::world::runaway;

/// From how many moving bodies the walks over every body or collider after the solve
/// (`scatter`, `place_colliders`) split the slots over the workers: below, waking them costs
/// about what the walk does. (Two under `cfg(fuzzing)`: see `PARALLEL_WORK`.)
pub(crate) const PARALLEL_BODIES: usize = if cfg!(fuzzing) { 2 } else { 2048 };

/// Gives each kinematic body with a target the velocity that reaches it in this step (what
/// the broad phase and contacts see); `scatter` then places the body on the target exactly.
pub(crate) fn aim_kinematic(bodies: &mut Arena<RigidBody, BodyHandle>, dt: Real) {
    for (_, body) in bodies.iter_mut() {
        if let (BodyKind::Kinematic, Some(target)) = (body.kind, body.kinematic_target) {
            body.linear_velocity = (target * body.mass.local_center - body.center_of_mass()) / dt;
            body.angular_velocity =
                (target.rotation * body.pose.rotation.inverse()).scaled_axis() / dt;
        }
    }
}

/// Fills `out` with every moving body (dynamic and kinematic) that is awake, in slot order,
/// records each body's index there, and in `slots` each solver body's slot.
pub(crate) fn gather(
    bodies: &mut Arena<RigidBody, BodyHandle>,
    out: &mut Bodies,
    slots: &mut Vec<u32>,
    gravity: Vector<Real>,
    dt: Real,
    runaways: &mut Vec<u32>,
) {
    out.clear();
    slots.clear();
    runaways.clear();
    for (slot, body) in bodies.iter_mut() {
        body.previous_pose = body.pose;
        if body.is_resting() {
            body.solver_index = STATIC;
            continue;
        }
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
            let inv =
                r.matrix() * nalgebra::Matrix3::from_diagonal(&inv_diag) * r.matrix().transpose();
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
            runaways.push(slot);
            continue;
        }
        slots.push(slot);
        body.solver_index = out.push(
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
        );
    }
}

/// Writes the solver's velocities and poses back, and clears the step's forces: on `workers`
/// of `solver`'s threads, a run of body slots each, when there are many bodies.
pub(crate) fn scatter(
    bodies: &mut Arena<RigidBody, BodyHandle>,
    solved: &Bodies,
    (solver, workers): (&mut Solver, usize),
) {
    let workers = if solved.len() >= PARALLEL_BODIES {
        workers
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

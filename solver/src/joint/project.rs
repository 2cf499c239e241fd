//! Position projection: after the velocity solve, each general joint's remaining position error
//! (anchors apart, limits passed) removed by moving its bodies, mass-weighted, a few times over
//! (Jolt's position iterations; our own code). The velocity solve corrects a rigid joint's error
//! with a stiff spring capped at a quarter of the substep rate, which lets an impact stretch
//! it: a humanoid dropped feet first from 2 m parted its ankles by 3.7 cm and bent them 28
//! degrees past their cones, the body's weight arriving through the light feet faster than
//! Gauss-Seidel passes it on. Moving the bodies takes the error out where it is; velocities are
//! left as solved. The passes walk the joints' colours as the velocity passes do (`pgs/stages.rs`), on
//! every worker.

use super::part::JointFrame;
use crate::body::Motion;
use crate::{Matrix, Quaternion, Real, Vector};
use std::sync::atomic::{AtomicU8, Ordering};

/// Most passes over the joints; they stop after a pass that moved no body (a world at rest:
/// one pass), and after the first a pass visits only the joints whose bodies were moved since
/// their last visit (`Stamps`). A humanoid dropped feet first from 2 m passes its ankles'
/// cones by 6.8 degrees for a step or two with four passes, 2.6 with eight, 1.45 with twelve:
/// the body's weight reaches the ground through the light feet, and each pass carries a
/// correction one joint further along the chain. With the skipping, twelve cost a pile of
/// ragdolls what four cost without it.
pub const PROJECTION_PASSES: usize = 12;

/// Which projection pass last moved each body this step: the pass's number plus one, zero
/// for none. A joint whose bodies no pass has moved since its last projection, which moved
/// nothing, would move nothing again (the projection reads nothing else), so later passes
/// skip it: in a pile where a few joints are past their slop, the passes after the first
/// touch those joints' neighbours only. Skipping changes no bit.
///
/// Written by the joint that moves a body, read by the joints of later colours: within a
/// colour no two joints share a moving body, and the barrier after each colour orders the
/// writes before the reads (relaxed atomics, so that no `unsafe` is needed).
#[derive(Debug, Default)]
pub(crate) struct Stamps(Vec<AtomicU8>);

impl Stamps {
    /// No body moved, for a step over `bodies` solver bodies.
    pub(crate) fn reset(&mut self, bodies: usize) {
        self.0.clear();
        self.0.resize_with(bodies, || AtomicU8::new(0));
    }

    /// Whether pass `pass` must project a joint between `a` and `b`: every joint in the
    /// first pass; after it, one a body of which the pass before or this one moved (a joint
    /// a later colour of the pass before moved a body of was projected before that move).
    pub(crate) fn due(&self, (a, b): (u32, u32), pass: usize) -> bool {
        let moved = |i: u32| {
            self.0
                .get(i as usize)
                .map_or(0, |s| s.load(Ordering::Relaxed) as usize)
        };
        pass == 0 || moved(a) >= pass || moved(b) >= pass
    }

    /// Body `i` moved in pass `pass` (a static body's index is outside: nothing is kept).
    pub(crate) fn mark(&self, i: u32, pass: usize) {
        if let Some(s) = self.0.get(i as usize) {
            s.store(pass as u8 + 1, Ordering::Relaxed);
        }
    }
}
/// How far apart anchors may stay (m) and how far past its limit an angle (rad) before the
/// projection moves them: what the velocity solve's stabilisation holds of a resting load is
/// left to it, so that bodies at rest are not moved every step (which kept piles awake).
pub const POINT_SLOP: Real = 0.002;
/// See [`POINT_SLOP`].
pub const ANGLE_SLOP: Real = 0.015;

/// Moves `a` and `b` so that B's anchor meets A's (the point's error removed, as a position
/// impulse through the point's mass matrix at the bodies' orientations now).
pub(super) fn project_point(frame: &JointFrame, a: &mut Motion, b: &mut Motion) {
    let (r_a, r_b) = frame.current_anchors(a, b);
    let error = frame.current_separation(a, b);
    let length = error.norm();
    // (NaN too: it compares false.)
    if length.is_nan() || length <= POINT_SLOP {
        return;
    }
    let error = error * ((length - POINT_SLOP) / length);
    let k = lever(&r_a, &a.inv_inertia)
        + lever(&r_b, &b.inv_inertia)
        + Matrix::identity() * (a.inv_mass + b.inv_mass);
    let Some(inverse) = k.try_inverse() else {
        return;
    };
    let impulse = -(inverse * error);
    if !impulse.iter().all(|x| x.is_finite()) {
        return;
    }
    a.delta_position -= impulse * a.inv_mass;
    turn(a, &-(a.inv_inertia * r_a.cross(&impulse)));
    b.delta_position += impulse * b.inv_mass;
    turn(b, &(b.inv_inertia * r_b.cross(&impulse)));
}

/// Turns `a` and `b` about `axis` (world, unit) so that an angle that is `error` (rad) past its
/// bound, growing with B's turn about `axis` relative to A, comes back to it.
pub(super) fn project_angle(a: &mut Motion, b: &mut Motion, axis: &Vector, error: Real) {
    if error.is_nan() || error.abs() <= ANGLE_SLOP {
        return;
    }
    let error = error - ANGLE_SLOP.copysign(error);
    let (wa, wb) = (a.inv_inertia * axis, b.inv_inertia * axis);
    let k = axis.dot(&(wa + wb));
    if k.is_nan() || k <= 0.0 {
        return;
    }
    let lambda = -error / k;
    turn(a, &(-wa * lambda));
    turn(b, &(wb * lambda));
}

/// How far `value` is past `(lower, upper)`: above the upper (positive), below the lower
/// (negative), or zero within them.
pub(super) fn past(value: Real, (lower, upper): (Real, Real)) -> Real {
    if value > upper {
        value - upper
    } else if value < lower {
        value - lower
    } else {
        0.0
    }
}

/// `[r]x M [r]x^T`: how a lever arm turns an inverse inertia into inverse mass at its end.
fn lever(r: &Vector, m: &Matrix) -> Matrix {
    let skew = r.cross_matrix();
    -(skew * m * skew)
}

/// Turns a body by the rotation vector `theta` (world), after its turn since the step began.
fn turn(body: &mut Motion, theta: &Vector) {
    if body.inv_mass <= 0.0 && body.inv_inertia == Matrix::zeros() {
        return;
    }
    body.delta_rotation = Quaternion::from_scaled_axis(*theta) * body.delta_rotation;
}

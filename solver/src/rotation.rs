//! The rotational half of a body's integration, in lanes: the gyroscopic term by the implicit
//! midpoint rule (Newton's method in the principal frame), and turns composed as quaternion
//! products term by term; one-lane forms for a body alone (`crate::body`).

use crate::wide::{cross, F, Q, V3};
use crate::{Quaternion, Real, Vector};

/// A torque-free turn over a substep of `h` that keeps the body's angular momentum and its
/// kinetic energy, in the principal frame `frame` (world from principal axes) with principal
/// moments `inertia`: the body's new angular velocity, and a turn to compose before its
/// rotation ([`crate::body::BodyState::delta_rotation`]) so that the position half, which
/// turns the body by its new velocity, turns it by the substep's mean velocity instead.
///
/// Euler's equation in the body frame, `I w' + w x I w = 0`, by the implicit midpoint rule:
/// `L2 = L1 + h Lm x I^-1 Lm`, `Lm = (L1 + L2) / 2`. The rule keeps every quadratic invariant
/// of the flow, so both `|L|` and `L . I^-1 L / 2` exactly; and `L2` is exactly `L1` turned
/// back by the Cayley rotation of `h I^-1 Lm`, the turn the position half makes when given
/// that velocity (`q + h/2 (0, w) q`, normalised), so the world's `L` is kept too. A body
/// turned by its end velocity instead (the backward Euler step, Catto's "Numerical Methods",
/// GDC 2015) keeps neither: a 1 x 2 x 3 m box spun at 5 rad/s about its intermediate axis
/// drifted 0.8% in L and 1.6% in energy over 10 s at 1/60 s (a model of that step). The
/// midpoint `wm = I^-1 Lm` solves `I (wm - w1) + h/2 wm x I wm = 0`, the backward Euler step
/// over half the substep: two Newton steps from `w1` (each by cofactors, below),
/// then `w2 = 2 wm - w1`.
///
/// In the principal frame the Jacobian `I + k ([x]x I - [I x]x)` of that equation (`k = h/2`)
/// and its curvature share three numbers, `a = k (I_z - I_y)`, `b = k (I_x - I_z)`,
/// `c = k (I_y - I_x)`: the Jacobian is `[[I_x, a x_z, a x_y], [b x_z, I_y, b x_x],
/// [c x_y, c x_x, I_z]]` and `k x x I x` is `(a x_y x_z, b x_z x_x, c x_x x_y)`; each step is
/// solved by cofactors (about a fifth of the work of forming the matrices and inverting the
/// general 3 x 3).
///
/// Where the two steps have not converged (a turn of a radian or more a substep), the body
/// takes the half step's velocity and turns by its end velocity as any body: dissipative and
/// stable. Neither path gains energy (a rounding up is scaled away). A lane with a moment
/// that is not positive, or a singular Jacobian, keeps its `w` and its turn.
#[inline(always)]
pub(crate) fn gyroscopic<const L: usize>(
    frame: &Q<L>,
    w: &V3<L>,
    inertia: &V3<L>,
    h: Real,
) -> (V3<L>, Q<L>) {
    let zero = F::splat(0.0);
    let one = F::splat(1.0);
    let half = F::splat(0.5 * h);
    // The frame as a matrix over its squared length ([`Rot`]): the frame is a product of unit
    // quaternions, so of a length off by roundings, and turned by as unit it scales the
    // vector by its length squared; renormalised, its roundings lengthen it on average.
    // Either way the turns into the body and back out gained 0.1% of the energy over 10 s.
    let r = Rot::of(frame);
    let w1 = r.transposed_times(w);
    let (x, det1) = midpoint_newton(&w1, &w1, inertia, half);
    let (x, det2) = midpoint_newton(&x, &w1, inertia, half);
    // The residual left, against the momentum's size.
    let iw1 = inertia_times(inertia, &w1);
    let ix = inertia_times(inertia, &x);
    let residual = (ix - iw1) + cross(&x, &ix).scale(half);
    let converged =
        F::splat(MIDPOINT_TOLERANCE * MIDPOINT_TOLERANCE) * iw1.dot(&iw1) - residual.dot(&residual);
    // The midpoint's end velocity, or the half step's where it has not converged.
    let end = V3::select_gt(converged, zero, &(x.scale(F::splat(2.0)) - w1), &x);
    // Never more energy than the body came in with.
    let (e1, e2) = (w1.dot(&iw1), end.dot(&inertia_times(inertia, &end)));
    let end = end.scale(e2.select_gt(e1, (e1 / e2).sqrt(), one));
    // The mean velocity's turn (world), and the end velocity in the world after it (where
    // the midpoint has not converged, the body turns by its end velocity as any body).
    let (mean_turn, mean_length) = cayley(&r.times(&x), half);
    let in_world = r.times(&end);
    let out = V3::select_gt(converged, zero, &mean_turn.turn_any(&in_world), &in_world);
    // What the position half will turn by (the end velocity's turn), taken back; of unit
    // length (the position half renormalises what it makes of it, but the solve between
    // turns anchors by it).
    let (end_turn, end_length) = cayley(&out, half);
    let correction = end_turn.conjugate().mul(&mean_turn);
    let scale = (end_length * mean_length).sqrt();
    let correction = Q {
        w: correction.w / scale,
        v: correction.v.unscale(scale),
    };
    let identity = Q {
        w: one,
        v: V3::default(),
    };
    // Usable: positive moments, both determinants non-zero and finite (NaN fails both).
    let size = det1.abs().min(det2.abs());
    let usable = F::splat(Real::INFINITY).select_gt(size, size, zero);
    let usable = inertia
        .x
        .min(inertia.y)
        .min(inertia.z)
        .select_gt(zero, usable, zero);
    let turn = usable.select_gt(zero, converged.select_gt(zero, one, zero), zero);
    (
        V3::select_gt(usable, zero, &out, w),
        Q::select_gt(turn, zero, &correction, &identity),
    )
}

/// How close the midpoint's two Newton steps must come (the residual over `|I w1|`) for its
/// turn to be taken: well under the rounding of a step at a twentieth of a radian a substep,
/// and far above f32's own rounding.
const MIDPOINT_TOLERANCE: Real = 1.0e-4;

/// One Newton step from `x` on `I (x - w1) + k x x I x = 0` (principal frame), by cofactors
/// (see [`gyroscopic`]); the next iterate and the Jacobian's determinant.
#[inline(always)]
fn midpoint_newton<const L: usize>(
    x: &V3<L>,
    w1: &V3<L>,
    inertia: &V3<L>,
    k: F<L>,
) -> (V3<L>, F<L>) {
    let (ix, iy, iz) = (inertia.x, inertia.y, inertia.z);
    let (wx, wy, wz) = (x.x, x.y, x.z);
    let (a, b, c) = (k * (iz - iy), k * (ix - iz), k * (iy - ix));
    let f = V3 {
        x: ix * (wx - w1.x) + a * wy * wz,
        y: iy * (wy - w1.y) + b * wz * wx,
        z: iz * (wz - w1.z) + c * wx * wy,
    };
    // The Jacobian's cofactors, row by row (its adjugate's columns).
    let (j01, j02) = (a * wz, a * wy);
    let (j10, j12) = (b * wz, b * wx);
    let (j20, j21) = (c * wy, c * wx);
    let c00 = iy * iz - j12 * j21;
    let c01 = j12 * j20 - j10 * iz;
    let c02 = j10 * j21 - iy * j20;
    let det = ix * c00 + j01 * c01 + j02 * c02;
    let c10 = j02 * j21 - j01 * iz;
    let c11 = ix * iz - j02 * j20;
    let c12 = j01 * j20 - ix * j21;
    let c20 = j01 * j12 - j02 * iy;
    let c21 = j02 * j10 - ix * j12;
    let c22 = ix * iy - j01 * j10;
    // J^-1 f = adj(J) f / det, adj(J) being the cofactors transposed.
    let step = V3 {
        x: c00 * f.x + c10 * f.y + c20 * f.z,
        y: c01 * f.x + c11 * f.y + c21 * f.z,
        z: c02 * f.x + c12 * f.y + c22 * f.z,
    }
    .scale(F::splat(1.0) / det);
    (*x - step, det)
}

/// The rotation of a quaternion of any non-zero length as a matrix (`q u q* / |q|^2`), rows
/// of lanes: formed once, it turns three vectors for less than three sandwiches.
struct Rot<const L: usize> {
    rows: [V3<L>; 3],
}

impl<const L: usize> Rot<L> {
    #[inline(always)]
    fn of(q: &Q<L>) -> Rot<L> {
        let (w, x, y, z) = (q.w, q.v.x, q.v.y, q.v.z);
        let (ww, xx, yy, zz) = (w * w, x * x, y * y, z * z);
        let over = F::splat(1.0) / (ww + xx + yy + zz);
        let two = F::splat(2.0) * over;
        let (xy, xz, yz, wx, wy, wz) = (x * y, x * z, y * z, w * x, w * y, w * z);
        Rot {
            rows: [
                V3 {
                    x: (ww + xx - yy - zz) * over,
                    y: (xy - wz) * two,
                    z: (xz + wy) * two,
                },
                V3 {
                    x: (xy + wz) * two,
                    y: (ww - xx + yy - zz) * over,
                    z: (yz - wx) * two,
                },
                V3 {
                    x: (xz - wy) * two,
                    y: (yz + wx) * two,
                    z: (ww - xx - yy + zz) * over,
                },
            ],
        }
    }

    /// `R u`.
    #[inline(always)]
    fn times(&self, u: &V3<L>) -> V3<L> {
        V3 {
            x: self.rows[0].dot(u),
            y: self.rows[1].dot(u),
            z: self.rows[2].dot(u),
        }
    }

    /// `R^T u`.
    #[inline(always)]
    fn transposed_times(&self, u: &V3<L>) -> V3<L> {
        let [a, b, c] = &self.rows;
        a.scale(u.x) + b.scale(u.y) + c.scale(u.z)
    }
}

/// `I x` for principal moments `inertia`.
#[inline(always)]
fn inertia_times<const L: usize>(inertia: &V3<L>, x: &V3<L>) -> V3<L> {
    V3 {
        x: inertia.x * x.x,
        y: inertia.y * x.y,
        z: inertia.z * x.z,
    }
}

/// The turn the position half makes at angular velocity `w` over a substep of `2 half`,
/// `(1, half w)` (the Cayley rotation of `2 half w`) unnormalised, and its squared length.
#[inline(always)]
fn cayley<const L: usize>(w: &V3<L>, half: F<L>) -> (Q<L>, F<L>) {
    let v = w.scale(half);
    let one = F::splat(1.0);
    (Q { w: one, v }, one + v.dot(&v))
}

/// [`gyroscopic`] of one body (the same operations, so the same bits as in lanes).
pub(crate) fn gyroscopic_one(
    frame: &Quaternion,
    w: &Vector,
    inertia: &Vector,
    h: Real,
) -> (Vector, Quaternion) {
    let mut lanes = (Q::<1>::default(), V3::<1>::default(), V3::<1>::default());
    lanes.0.set(0, frame);
    lanes.1.set(0, w);
    lanes.2.set(0, inertia);
    let (w, turn) = gyroscopic(&lanes.0, &lanes.1, &lanes.2, h);
    (w.get(0), turn.get(0))
}

/// `turn * frame` of one body, as [`crate::integrate::Integration::velocities`] forms it in lanes.
pub(crate) fn compose_one(turn: &Quaternion, frame: &Quaternion) -> Quaternion {
    let (mut a, mut b) = (Q::<1>::default(), Q::<1>::default());
    a.set(0, turn);
    b.set(0, frame);
    a.mul(&b).get(0)
}

// Used by `compose_one` and the lanes: nothing else needs a quaternion product in lanes.
impl<const L: usize> Q<L> {
    /// Lane `lane` set to `q`.
    #[inline(always)]
    pub(crate) fn set(&mut self, lane: usize, q: &Quaternion) {
        self.w.0[lane] = q.w;
        self.v.set(lane, &q.imag());
    }

    /// Lane `lane`, as a unit quaternion (not renormalised).
    #[inline(always)]
    pub(crate) fn get(&self, lane: usize) -> Quaternion {
        let v = self.v.get(lane);
        Quaternion::new_unchecked(nalgebra::Quaternion::new(self.w.0[lane], v.x, v.y, v.z))
    }

    /// The Hamilton product `self o`, term by term in nalgebra's order (so that the lanes
    /// give the bits the scalar integration gave before them).
    #[inline(always)]
    pub(crate) fn mul(&self, o: &Q<L>) -> Q<L> {
        let (a, b) = (self, o);
        Q {
            w: a.w * b.w - a.v.x * b.v.x - a.v.y * b.v.y - a.v.z * b.v.z,
            v: V3 {
                x: a.w * b.v.x + a.v.x * b.w + a.v.y * b.v.z - a.v.z * b.v.y,
                y: a.w * b.v.y - a.v.x * b.v.z + a.v.y * b.w + a.v.z * b.v.x,
                z: a.w * b.v.z + a.v.x * b.v.y - a.v.y * b.v.x + a.v.z * b.w,
            },
        }
    }

    /// `u` turned by the rotation of a quaternion of any non-zero length:
    /// `q u q* / |q|^2 = ((w^2 - v.v) u + 2 (v.u) v + 2 w (v x u)) / (w^2 + v.v)`.
    #[inline(always)]
    pub(crate) fn turn_any(&self, u: &V3<L>) -> V3<L> {
        let (w, v) = (self.w, &self.v);
        let vv = v.dot(v);
        let two = F::splat(2.0);
        let over = F::splat(1.0) / (w * w + vv);
        (u.scale(w * w - vv) + v.scale(two * v.dot(u)) + cross(v, u).scale(two * w)).scale(over)
    }

    /// Lane by lane: `a` where `when > rhs`, else `b`.
    #[inline(always)]
    pub(crate) fn select_gt(when: F<L>, rhs: F<L>, a: &Q<L>, b: &Q<L>) -> Q<L> {
        Q {
            w: when.select_gt(rhs, a.w, b.w),
            v: V3::select_gt(when, rhs, &a.v, &b.v),
        }
    }

    /// The inverse rotation of a unit quaternion.
    #[inline(always)]
    pub(crate) fn conjugate(&self) -> Q<L> {
        Q {
            w: self.w,
            v: V3 {
                x: -self.v.x,
                y: -self.v.y,
                z: -self.v.z,
            },
        }
    }
}

//! The point part: B's anchor held on A's anchor, the three position rows solved together as
//! one 3 x 3 block.
//!
//! The impulse `P` that meets the three rows is `-K^-1 (J v + bias)` with the point's mass
//! matrix `K = (1/m_a + 1/m_b) I - [r_a]x I_a^-1 [r_a]x - [r_b]x I_b^-1 [r_b]x`. Solved as three
//! scalar rows along the world axes, a long lever arm couples the rows so strongly that
//! Gauss-Seidel's few passes leave the constraint unmet (a 2.5 m pendulum swung 2% slow); the
//! block meets all three at once, as rows along K's eigen-axes did before it, without an
//! eigen-decomposition per joint and step or rows rebuilt every pass (measured on `joint_grid`:
//! those two were 60% of the step).
//!
//! Prepared once per step (Jolt's `PointConstraintPart` does the same): `K^-1` from the anchors
//! and world inertia at the start of the step, and the bodies' inverse masses, so that a pass
//! reads only the bodies' hot state. Each pass turns the anchors by the bodies' rotation since
//! the step began, for the position error and for the Jacobian. A [`PointRow`] is small (about
//! 200 bytes) because the solver streams through thousands of them per pass (`joint_grid`'s
//! 4,900): read from the joints' general list, 800 bytes each, the passes were memory-bound.

use nalgebra::Matrix3;

use super::ends::Ends;
use super::part::JointFrame;
use crate::body::{BodyState, Motion};
use crate::kernels::Kernels;
use crate::softness::Softness;
use crate::wide::{F, V3};
use crate::{Real, Vector};

/// A point part prepared for one step, with everything its passes read.
#[derive(Clone, Copy, Debug)]
pub struct PointRow {
    /// The bodies, their masses and the anchors.
    pub ends: Ends,
    /// `K^-1` at the start of the step (zero if neither body can move).
    pub(super) effective_mass: Matrix3<Real>,
    /// The coefficients of the biased and of the relax pass, the same along every direction.
    pub(super) softness: [Softness; 2],
    /// The accumulated impulse (N s, world), kept for warm starting.
    pub impulse: Vector,
    /// The caller's index for the joint (to store its impulse back).
    pub user_index: u32,
    /// Whether its spring fell back to implicit coefficients (too stiff to be exact).
    pub too_stiff: bool,
}

impl PointRow {
    /// The point part of `frame` between `a` and `b`, with `softness` for the biased and the
    /// relax pass, carrying last step's `impulse` (a world vector, N s; anything not finite is
    /// dropped).
    #[inline]
    pub fn new(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        softness: [Softness; 2],
        impulse: Vector,
    ) -> PointRow {
        PointRow {
            effective_mass: symmetric_inverse(&mass_matrix(frame, a, b))
                .unwrap_or_else(Matrix3::zeros),
            ..PointRow::without_mass(frame, a, b, softness, impulse)
        }
    }

    /// [`PointRow::new`] without `K^-1`, for the solver's list of point parts, whose effective
    /// masses the solve computes itself, in lanes ([`prepare_masses`]).
    #[inline]
    pub(crate) fn without_mass(
        frame: &JointFrame,
        a: &Motion,
        b: &Motion,
        softness: [Softness; 2],
        impulse: Vector,
    ) -> PointRow {
        PointRow {
            ends: Ends::new(frame, a, b),
            effective_mass: Matrix3::zeros(),
            softness,
            impulse: if impulse.iter().all(|x| x.is_finite()) {
                impulse
            } else {
                Vector::zeros()
            },
            user_index: 0,
            too_stiff: false,
        }
    }

    /// The coefficients of the biased and of the relax pass.
    pub(crate) fn softness(&self) -> &[Softness; 2] {
        &self.softness
    }

    /// The velocity of B's anchor relative to A's.
    #[inline]
    pub(super) fn velocity(a: &BodyState, b: &BodyState, (r_a, r_b): (&Vector, &Vector)) -> Vector {
        (b.linear_velocity + b.angular_velocity.cross(r_b))
            - (a.linear_velocity + a.angular_velocity.cross(r_a))
    }

    /// The accumulated impulse one block iteration under `soft` would reach, for relative
    /// velocity `velocity` and position error `separation`.
    #[inline]
    pub(super) fn wanted(&self, velocity: &Vector, separation: &Vector, soft: &Softness) -> Vector {
        self.impulse
            - self.effective_mass * (velocity + separation * soft.bias_rate) * soft.mass_scale
            - self.impulse * soft.impulse_scale
    }
}

/// The point's mass matrix `K` at the start of the step.
pub(super) fn mass_matrix(frame: &JointFrame, a: &Motion, b: &Motion) -> Matrix3<Real> {
    let mut k = lever(&frame.anchor_a, &a.inv_inertia) + lever(&frame.anchor_b, &b.inv_inertia);
    let linear = a.inv_mass + b.inv_mass;
    k.m11 += linear;
    k.m22 += linear;
    k.m33 += linear;
    k
}

/// `[r]x M [r]x^T` for a skew matrix `[r]x` and a symmetric `M` (how an anchor's lever arm
/// turns inverse inertia into the point's inverse mass). Entry `(i, j)` is `s_i . M s_j` for
/// the rows `s_i` of `[r]x`, each of which has a zero: the eight entries of `M s_j` that meet
/// a non-zero of some `s_i`, two products each, then six two-term dot products, symmetric by
/// construction (nalgebra's two general products took ~650 instructions per joint, 6% of
/// `joint_grid100`'s step; full matrix-vector products ~280).
fn lever(r: &Vector, m: &Matrix3<Real>) -> Matrix3<Real> {
    let (x, y, z) = (r.x, r.y, r.z);
    let (a, b, c) = (m.m11, m.m12, m.m13);
    let (d, e, f) = (m.m22, m.m23, m.m33);
    // Rows of [r]x: s0 = (0, -z, y), s1 = (z, 0, -x), s2 = (-y, x, 0); t_j = M s_j.
    let (t0y, t0z) = (y * e - z * d, y * f - z * e);
    let (t1x, t1y, t1z) = (z * a - x * c, z * b - x * e, z * c - x * f);
    let (t2x, t2y, t2z) = (x * b - y * a, x * d - y * b, x * e - y * c);
    let k00 = y * t0z - z * t0y;
    let k01 = y * t1z - z * t1y;
    let k02 = y * t2z - z * t2y;
    let k11 = z * t1x - x * t1z;
    let k12 = z * t2x - x * t2z;
    let k22 = x * t2y - y * t2x;
    Matrix3::new(k00, k01, k02, k01, k11, k12, k02, k12, k22)
}

/// The inverse of a symmetric 3 x 3 matrix from its six cofactors, or `None` if it is singular
/// or not finite.
pub(super) fn symmetric_inverse(k: &Matrix3<Real>) -> Option<Matrix3<Real>> {
    let (a, b, c) = (k.m11, k.m12, k.m13);
    let (d, e, f) = (k.m22, k.m23, k.m33);
    let (c00, c01, c02) = (d * f - e * e, c * e - b * f, b * e - c * d);
    let det = a * c00 + b * c01 + c * c02;
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let (c11, c12, c22) = (a * f - c * c, b * c - a * e, a * d - b * b);
    // One division: the six cofactors times its reciprocal.
    let scale = 1.0 / det;
    let (i00, i01, i02) = (c00 * scale, c01 * scale, c02 * scale);
    let (i11, i12, i22) = (c11 * scale, c12 * scale, c22 * scale);
    let finite = [i00, i01, i02, i11, i12, i22].iter().all(|x| x.is_finite());
    finite.then(|| Matrix3::new(i00, i01, i02, i01, i11, i12, i02, i12, i22))
}

/// Every point part's `K^-1` from its ends, as [`PointRow::new`] computes it: eight parts at a
/// time in lanes where the CPU has AVX2 (the function compiled with it), else four, with the
/// operations of [`mass_matrix`], [`lever`] and [`symmetric_inverse`] in their order, so the
/// same bits (a unit test holds them to it). The scalar form was 8-9% of the joint grids'
/// steps.
pub(crate) fn prepare_masses(points: &mut [PointRow], kernels: Kernels) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        fn avx2(points: &mut [PointRow]) {
            masses_in_lanes::<8>(points, &mut MassLanes::default());
        }
        if kernels.avx2() {
            // SAFETY: the CPU has AVX2 (`Kernels::avx2`), all `avx2` asks.
            return unsafe { avx2(points) };
        }
    }
    masses_in_lanes::<4>(points, &mut MassLanes::default());
}

/// The inputs of `L` parts' `K`, lane by lane (kept in memory by the caller, so that the lane
/// loops read them as vectors).
#[derive(Clone, Copy, Default)]
struct MassLanes<const L: usize> {
    anchor_a: V3<L>,
    anchor_b: V3<L>,
    /// The inverse inertias' entries `m11, m12, m13, m22, m23, m33`.
    inertia_a: [F<L>; 6],
    inertia_b: [F<L>; 6],
    mass_a: F<L>,
    mass_b: F<L>,
}

#[inline(always)]
fn masses_in_lanes<const L: usize>(points: &mut [PointRow], lanes: &mut MassLanes<L>) {
    let entries = |m: &Matrix3<Real>| [m.m11, m.m12, m.m13, m.m22, m.m23, m.m33];
    for chunk in points.chunks_mut(L) {
        // (The lanes past a short last chunk keep the chunk before's inputs, unread.)
        for (lane, p) in chunk.iter().enumerate() {
            let e = &p.ends;
            lanes.anchor_a.set(lane, &e.anchor_a);
            lanes.anchor_b.set(lane, &e.anchor_b);
            let (ia, ib) = (entries(&e.inv_inertia[0]), entries(&e.inv_inertia[1]));
            for k in 0..6 {
                lanes.inertia_a[k].0[lane] = ia[k];
                lanes.inertia_b[k].0[lane] = ib[k];
            }
            lanes.mass_a.0[lane] = e.inv_mass[0];
            lanes.mass_b.0[lane] = e.inv_mass[1];
        }
        let la = lever_lanes(&lanes.anchor_a, &lanes.inertia_a);
        let lb = lever_lanes(&lanes.anchor_b, &lanes.inertia_b);
        let mut k: [F<L>; 6] = std::array::from_fn(|i| la[i] + lb[i]);
        let linear = lanes.mass_a + lanes.mass_b;
        for i in [0, 3, 5] {
            k[i] += linear;
        }
        let [a, b, c, d, e, f] = k;
        let (c00, c01, c02) = (d * f - e * e, c * e - b * f, b * e - c * d);
        let det = a * c00 + b * c01 + c * c02;
        let (c11, c12, c22) = (a * f - c * c, b * c - a * e, a * d - b * b);
        let scale = F::splat(1.0) / det;
        let inverse = [c00, c01, c02, c11, c12, c22].map(|x| x * scale);
        for (lane, p) in chunk.iter_mut().enumerate() {
            let det = det.0[lane];
            let [i00, i01, i02, i11, i12, i22] = inverse.map(|x| x.0[lane]);
            let usable = det != 0.0
                && det.is_finite()
                && [i00, i01, i02, i11, i12, i22].iter().all(|x| x.is_finite());
            p.effective_mass = if usable {
                Matrix3::new(i00, i01, i02, i01, i11, i12, i02, i12, i22)
            } else {
                Matrix3::zeros()
            };
        }
    }
}

/// [`lever`] in lanes: the entries `k00, k01, k02, k11, k12, k22`.
#[inline(always)]
fn lever_lanes<const L: usize>(r: &V3<L>, m: &[F<L>; 6]) -> [F<L>; 6] {
    let (x, y, z) = (r.x, r.y, r.z);
    let [a, b, c, d, e, f] = *m;
    let (t0y, t0z) = (y * e - z * d, y * f - z * e);
    let (t1x, t1y, t1z) = (z * a - x * c, z * b - x * e, z * c - x * f);
    let (t2x, t2y, t2z) = (x * b - y * a, x * d - y * b, x * e - y * c);
    [
        y * t0z - z * t0y,
        y * t1z - z * t1y,
        y * t2z - z * t2y,
        z * t1x - x * t1z,
        z * t2x - x * t2z,
        x * t2y - y * t2x,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lanes give every part the bits of [`PointRow::new`]'s `K^-1`, singular parts (two
    /// static ends) included, for any count of parts (a short last chunk).
    #[test]
    fn masses_in_lanes_are_the_scalar_ones() {
        let mut rng = crate::testing::Lcg(7);
        for count in [1, 5, 8, 13, 64] {
            let rows: Vec<PointRow> = (0..count)
                .map(|i| {
                    let rotation = nalgebra::UnitQuaternion::from_scaled_axis(rng.vector() * 3.0);
                    let r = rotation.to_rotation_matrix();
                    let moments = Vector::new(1.0, 0.3, 2.0) + rng.vector().abs();
                    let inertia = r * Matrix3::from_diagonal(&moments) * r.transpose();
                    let moving = Motion {
                        inv_mass: 0.5 + rng.next().abs(),
                        inv_inertia: inertia,
                        ..Motion::STATIC
                    };
                    let b = if i % 5 == 4 { Motion::STATIC } else { moving };
                    let a = if i % 3 == 2 { Motion::STATIC } else { moving };
                    let frame = JointFrame {
                        body_a: 0,
                        body_b: 1,
                        anchor_a: rng.vector() * 2.0,
                        anchor_b: rng.vector(),
                        separation: Vector::zeros(),
                        rotations: (crate::Quaternion::identity(), crate::Quaternion::identity()),
                    };
                    let soft = [Softness::RIGID; 2];
                    PointRow::new(&frame, &a, &b, soft, Vector::zeros())
                })
                .collect();
            let mut lanes = rows.clone();
            for p in &mut lanes {
                p.effective_mass = Matrix3::repeat(Real::NAN);
            }
            // The CPU's path, and the four-lane one (without AVX2) and one lane by name.
            let mut four = lanes.clone();
            let mut one = lanes.clone();
            prepare_masses(&mut lanes, Kernels::new(crate::kernels::SimdWidth::Auto));
            masses_in_lanes::<4>(&mut four, &mut MassLanes::default());
            masses_in_lanes::<1>(&mut one, &mut MassLanes::default());
            let bits = |m: &Matrix3<Real>| m.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            for got in [&lanes, &four, &one] {
                for (want, got) in rows.iter().zip(got) {
                    assert_eq!(bits(&want.effective_mass), bits(&got.effective_mass));
                }
            }
        }
    }

    /// The hand-written `K` and its inverse agree with nalgebra's general products and
    /// inverse on random bodies and anchors.
    #[test]
    fn mass_matrix_and_inverse_match_general_products() {
        let mut seed = 1u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 40) as Real / (1u64 << 24) as Real) * 2.0 - 1.0
        };
        for _ in 0..200 {
            let rotation = nalgebra::UnitQuaternion::from_scaled_axis(Vector::new(
                next() * 3.0,
                next() * 3.0,
                next() * 3.0,
            ));
            let inertia = |x: Real, y: Real, z: Real| {
                let r = rotation.to_rotation_matrix();
                r * Matrix3::from_diagonal(&Vector::new(x, y, z)) * r.transpose()
            };
            let a = Motion {
                inv_mass: 0.5 + next().abs(),
                inv_inertia: inertia(1.0 + next().abs(), 0.2 + next().abs(), 2.0),
                ..Motion::STATIC
            };
            let b = Motion {
                inv_mass: 0.1 + next().abs(),
                inv_inertia: inertia(0.3, 1.0 + next().abs(), 0.5 + next().abs()),
                ..Motion::STATIC
            };
            let frame = JointFrame {
                body_a: 0,
                body_b: 1,
                anchor_a: Vector::new(next(), next(), next()) * 2.0,
                anchor_b: Vector::new(next(), next(), next()),
                separation: Vector::zeros(),
                rotations: (crate::Quaternion::identity(), crate::Quaternion::identity()),
            };
            let general = |r: &Vector, m: &Matrix3<Real>| {
                let s = r.cross_matrix();
                s * m * s.transpose()
            };
            let want = Matrix3::identity() * (a.inv_mass + b.inv_mass)
                + general(&frame.anchor_a, &a.inv_inertia)
                + general(&frame.anchor_b, &b.inv_inertia);
            let got = mass_matrix(&frame, &a, &b);
            assert!((got - want).norm() <= 1e-5 * want.norm(), "{got} {want}");
            let inverse = symmetric_inverse(&got).expect("invertible");
            let identity = inverse * want;
            assert!((identity - Matrix3::identity()).norm() < 1e-4, "{identity}");
        }
        assert!(symmetric_inverse(&Matrix3::zeros()).is_none());
        assert!(symmetric_inverse(&Matrix3::from_element(Real::NAN)).is_none());
    }
}

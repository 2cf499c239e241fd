//! One constraint row, scalar: what the joints' axis parts are made of.
//!
//! A row is one scalar equation between bodies A and B, `J v = target` (or a bound on it), with
//! `J v = linear · (v_b - v_a) + angular_a · w_a + angular_b · w_b`. The row holds the Jacobian
//! and the effective mass; what it drives towards, in which bounds and how softly ([`Wish`]),
//! and the impulse it has accumulated, belong to the part that uses it. (Contacts, and the
//! point and length parts, are solved in lanes on the same equations: `crate::bundle`,
//! `crate::joint`.)
//!
//! Each iteration (sequential impulses, Catto 2005; soft form, Catto 2011):
//! `dλ = -effective_mass * mass_scale * (J v - target + bias) - impulse_scale * λ`, then the
//! accumulated `λ + dλ` is clamped into `[lower, upper]` and the clamped change applied.

use crate::body::Motion;
use crate::softness::Softness;
use crate::{Real, Vector};

/// One scalar velocity constraint between two bodies: its Jacobian and effective mass. What
/// it drives towards and its accumulated impulse belong to the part that uses it
/// ([`crate::joint::AxisPart`] keeps several accumulated impulses on one row).
#[derive(Clone, Copy, Debug, Default)]
pub struct Row {
    /// Jacobian of B's linear velocity; A's is its negative.
    pub linear: Vector,
    /// Jacobian of A's angular velocity.
    pub angular_a: Vector,
    /// Jacobian of B's angular velocity.
    pub angular_b: Vector,
    /// `I_a^-1 angular_a`, kept so that applying an impulse costs no matrix product.
    inv_inertia_angular_a: Vector,
    /// `I_b^-1 angular_b`.
    inv_inertia_angular_b: Vector,
    /// `1 / (J M^-1 J^T)` (kg, or kg m^2).
    pub effective_mass: Real,
}

/// What one iteration of a row asks: `J v` towards `target - bias` under `softness`, with the
/// accumulated impulse kept within `bounds`.
#[derive(Clone, Copy, Debug)]
pub struct Wish {
    /// The target rate (m/s or rad/s).
    pub target: Real,
    /// The position correction, as a rate.
    pub bias: Real,
    /// The row's softness in this pass.
    pub softness: Softness,
    /// Lowest and highest accumulated impulse.
    pub bounds: (Real, Real),
}

impl Row {
    /// The row with Jacobian (`-linear`, `angular_a`, `linear`, `angular_b`) between `a` and `b`.
    pub fn new(
        linear: Vector,
        angular_a: Vector,
        angular_b: Vector,
        a: &Motion,
        b: &Motion,
    ) -> Row {
        let inv_inertia_angular_a = a.inv_inertia * angular_a;
        let inv_inertia_angular_b = b.inv_inertia * angular_b;
        let k = (a.inv_mass + b.inv_mass) * linear.norm_squared()
            + angular_a.dot(&inv_inertia_angular_a)
            + angular_b.dot(&inv_inertia_angular_b);
        Row {
            linear,
            angular_a,
            angular_b,
            inv_inertia_angular_a,
            inv_inertia_angular_b,
            effective_mass: if k > 0.0 { 1.0 / k } else { 0.0 },
        }
    }

    /// `J v`: the row's relative velocity.
    #[inline]
    pub fn velocity(&self, a: &Motion, b: &Motion) -> Real {
        self.linear.dot(&(b.v - a.v)) + self.angular_a.dot(&a.w) + self.angular_b.dot(&b.w)
    }

    /// Applies impulse `lambda` along the row to both bodies.
    #[inline]
    pub fn apply(&self, a: &mut Motion, b: &mut Motion, lambda: Real) {
        a.v -= self.linear * (lambda * a.inv_mass);
        a.w += self.inv_inertia_angular_a * lambda;
        b.v += self.linear * (lambda * b.inv_mass);
        b.w += self.inv_inertia_angular_b * lambda;
    }

    /// One iteration on the accumulated impulse `accumulated`: `wish`'s impulse, clamped into
    /// its bounds, applied by its change. Returns the impulse applied.
    #[inline]
    pub fn solve(
        &self,
        (a, b): (&mut Motion, &mut Motion),
        accumulated: &mut Real,
        wish: &Wish,
    ) -> Real {
        let soft = &wish.softness;
        let jv = self.velocity(a, b);
        let wanted = *accumulated
            - self.effective_mass * soft.mass_scale * (jv - wish.target + wish.bias)
            - soft.impulse_scale * *accumulated;
        // max then min, not clamp: a NaN bound must not panic inside a step.
        let total = wanted.max(wish.bounds.0).min(wish.bounds.1);
        let applied = total - *accumulated;
        *accumulated = total;
        self.apply(a, b, applied);
        applied
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Matrix;

    fn body(mass: Real, inertia: Real) -> Motion {
        Motion {
            inv_mass: 1.0 / mass,
            inv_inertia: Matrix::identity() / inertia,
            ..Motion::STATIC
        }
    }

    /// A rigid row between two free bodies stops their relative motion in one iteration and
    /// conserves linear momentum.
    #[test]
    fn rigid_row_stops_relative_motion() {
        let mut a = body(2.0, 1.0);
        let mut b = body(3.0, 1.0);
        a.v = Vector::new(1.0, 0.0, 0.0);
        b.v = Vector::new(-2.0, 0.0, 0.0);
        let p0 = a.v * 2.0 + b.v * 3.0;
        let row = Row::new(Vector::x(), Vector::zeros(), Vector::zeros(), &a, &b);
        assert!((row.effective_mass - 1.2).abs() < 1e-6); // 1 / (1/2 + 1/3)
        let wish = Wish {
            target: 0.0,
            bias: 0.0,
            softness: Softness::RIGID,
            bounds: (Real::NEG_INFINITY, Real::INFINITY),
        };
        row.solve((&mut a, &mut b), &mut 0.0, &wish);
        assert!(row.velocity(&a, &b).abs() < 1e-6);
        assert!((a.v * 2.0 + b.v * 3.0 - p0).norm() < 1e-6);
    }

    /// Bounds hold: a contact-like row never pulls.
    #[test]
    fn bounds_clamp_the_accumulated_impulse() {
        let mut a = body(1.0, 1.0);
        let mut b = body(1.0, 1.0);
        b.v = Vector::new(1.0, 0.0, 0.0); // separating
        let row = Row::new(Vector::x(), Vector::zeros(), Vector::zeros(), &a, &b);
        let wish = Wish {
            target: 0.0,
            bias: 0.0,
            softness: Softness::RIGID,
            bounds: (0.0, Real::INFINITY),
        };
        let mut impulse = 0.0;
        row.solve((&mut a, &mut b), &mut impulse, &wish);
        assert_eq!(impulse, 0.0);
        assert_eq!(b.v.x, 1.0);
    }
}

//! A vehicle's wheel on the ground: the suspension, the tyre and the brake as rows between the
//! chassis (body B) and the body under the wheel (body A, pushed back), solved with the joints
//! in the serial stage (a wheel joins a chassis to whatever it rolls on, so it takes no colour).
//!
//! The wheel's spin is a state of its own, one degree of freedom beside the bodies' (angular
//! velocity `spin` about its axle, positive when it rolls forward, inertia `inertia`):
//!
//! - **Suspension**: one row along the suspension axis `up` (world, from the ground to the
//!   chassis), whose coordinate is the mount's height over the ground point: held at
//!   `rest` by a spring (exact, [`SpringSoftness`]), kept above `stop` by a rigid row (the bump
//!   stop). Both only push: a wheel cannot pull the chassis down onto the ground.
//! - **Tyre**: a row along the wheel's heading in the ground plane (`forward`) whose velocity is
//!   the slip, `(v_chassis - v_ground) · forward - spin * radius`, and a row across it (`side`),
//!   both at the contact point. Each holds its slip at zero while the tyre grips; together they
//!   push at most `friction * load` (the friction circle, the load being the suspension's
//!   impulse this substep), the heading first.
//! - **Brake**: a row on the spin alone towards zero, within the brake's torque and the
//!   tyre's rolling resistance (its coefficient times the load times the radius).
//!
//! The heading row and the brake share the spin, and the spin's inertia is small beside the
//! chassis's: solved one after the other, a braked wheel on a slope converges by about
//! `inertia / (radius^2 mass)` of the error a pass (0.5% for a car), and the car creeps. They are
//! solved together, as one 2 x 2 block, exactly (`WheelRows::solve_heading`).
//!
//! An extra force along the suspension (an anti-roll bar's, which the engine computes from the
//! two wheels' suspension lengths as the step begins) is applied once per substep, with the warm
//! start. A wheel in the air has its spin and brake only. The drive reaches the spin through
//! the differentials' rows (`crate::vehicle`).

use crate::body::{Bodies, Motion};
use crate::joint::{JointFrame, PassContext};
use crate::row::{Row, Wish};
use crate::softness::{Softness, Spring, SpringSoftness};
use crate::{Real, Vector};

/// What a wheel on the ground is, for one step: the engine fills it from the wheel's cast.
#[derive(Clone, Copy, Debug)]
pub struct WheelSetup {
    /// Unit, along the suspension from the ground towards the chassis.
    pub up: Vector,
    /// Unit, the wheel's heading in the ground plane.
    pub forward: Vector,
    /// Unit, across the heading in the ground plane (to the wheel's left).
    pub side: Vector,
    /// The height the spring holds (m): the rest length plus the radius.
    pub rest: Real,
    /// The least height (m): the bump stop.
    pub stop: Real,
    /// The suspension spring.
    pub spring: Spring,
    /// The wheel's radius (m).
    pub radius: Real,
    /// The wheel's moment of inertia about its axle (kg m^2, > 0).
    pub inertia: Real,
    /// The tyre's friction coefficient this step (its slip curve times the ground's friction).
    pub friction: Real,
    /// The brake's largest torque (N m).
    pub brake_torque: Real,
    /// Anti-lock: the brake holds the wheel with at most the torque its tyre can pass to the
    /// ground (the grip times the radius), so that braking never locks the wheel.
    pub anti_lock: bool,
    /// The tyre's rolling resistance: a torque of this times the load times the radius
    /// against the spin.
    pub rolling_resistance: Real,
    /// The wheel's spin as the step begins (rad/s).
    pub spin: Real,
    /// A force along the suspension added to the spring's (N; an anti-roll bar's), applied
    /// as it stands for the step.
    pub extra_force: Real,
    /// Whether the wheel is on the ground: without, its spin and brake alone.
    pub grounded: bool,
}

/// Which of a wheel's accumulated impulses is which.
const SPRING: usize = 0;
const STOP: usize = 1;
const HEADING: usize = 2;
const SIDE: usize = 3;
const BRAKE: usize = 4;

/// A wheel on the ground prepared for a step.
#[derive(Clone, Debug)]
pub struct WheelRows {
    /// A: the ground (anchor at the contact point); B: the chassis (anchor at the mount).
    frame: JointFrame,
    setup: WheelSetup,
    /// The suspension spring's coefficients for the substep.
    spring: SpringSoftness,
    suspension: Row,
    heading: Row,
    side: Row,
    /// The spin the wheel has now (rad/s).
    pub(crate) spin: Real,
    /// The extra force's impulse per substep (N s).
    extra: Real,
    /// Accumulated impulses: spring, stop, heading, side (N s), brake (N m s).
    impulses: [Real; 5],
}

impl WheelRows {
    /// The wheel of `setup` between the ground (A) and the chassis (B) of `frame`, whose anchor
    /// A is the contact point and B the suspension's mount (on the suspension axis through
    /// it), at substep `h`, carrying last step's `impulses` (spring, stop, heading, side,
    /// brake).
    pub fn new(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        setup: WheelSetup,
        (h, impulses): (Real, [Real; 5]),
    ) -> WheelRows {
        // The contact point from the chassis's centre of mass: the mount and the contact are on
        // the same line along `up`, which the suspension's lever arm cannot tell apart, but the
        // tyre's rows act at the contact point.
        let contact_b = frame.anchor_b - frame.separation;
        let on_contact = |dir: &Vector| JointFrame::row(dir, &frame.anchor_a, &contact_b, a, b);
        let impulses = impulses.map(|i| if i.is_finite() { i } else { 0.0 });
        let suspension = on_contact(&setup.up);
        WheelRows {
            frame: *frame,
            spring: SpringSoftness::new(&setup.spring, suspension.effective_mass, h),
            suspension,
            heading: on_contact(&setup.forward),
            side: on_contact(&setup.side),
            spin: setup.spin,
            extra: setup.extra_force * h,
            setup,
            impulses,
        }
    }

    /// The wheel's spin now (rad/s).
    pub fn spin(&self) -> Real {
        self.spin
    }

    /// The impulses to carry over: spring, stop, heading, side (N s), brake (N m s).
    pub fn impulses(&self) -> [Real; 5] {
        self.impulses
    }

    /// The suspension's impulse this substep (N s), with the extra force's: the wheel's load
    /// times the substep.
    pub fn load_impulse(&self) -> Real {
        (self.impulses[SPRING] + self.impulses[STOP] + self.extra).max(0.0)
    }

    /// Forgets the accumulated impulses (warm starting off).
    pub fn reset_impulses(&mut self) {
        self.impulses = [0.0; 5];
    }

    /// The wheel's inverse moment of inertia about its axle (1 / (kg m^2)).
    pub(crate) fn inverse_inertia(&self) -> Real {
        1.0 / self.setup.inertia
    }

    /// Applies the accumulated impulses.
    pub fn warm_start(&mut self, bodies: &mut Bodies) {
        let i = self.impulses;
        let s = &self.setup;
        self.spin += (i[BRAKE] - i[HEADING] * s.radius) / s.inertia;
        if !s.grounded {
            return;
        }
        let mut a = Motion::load(bodies, self.frame.body_a);
        let mut b = Motion::load(bodies, self.frame.body_b);
        self.suspension
            .apply(&mut a, &mut b, i[SPRING] + i[STOP] + self.extra);
        self.heading.apply(&mut a, &mut b, i[HEADING]);
        self.side.apply(&mut a, &mut b, i[SIDE]);
        Motion::store_pair(bodies, (&a, self.frame.body_a), (&b, self.frame.body_b));
    }

    /// One iteration: the suspension, then the heading with the brake, then the side; in the
    /// air, the brake alone.
    pub fn solve(&mut self, bodies: &mut Bodies, pass: &PassContext) {
        if !self.setup.grounded {
            let brake = self.setup.brake_torque * pass.h;
            let k0 = self.impulses[BRAKE];
            let k = (k0 - self.spin * self.setup.inertia).max(-brake).min(brake);
            self.impulses[BRAKE] = k;
            self.spin += (k - k0) / self.setup.inertia;
            return;
        }
        let mut a = Motion::load(bodies, self.frame.body_a);
        let mut b = Motion::load(bodies, self.frame.body_b);
        let height = self.frame.current_separation(&a, &b).dot(&self.setup.up);
        self.solve_suspension((&mut a, &mut b), height, pass);
        let grip = self.setup.friction * self.load_impulse();
        self.solve_heading((&mut a, &mut b), grip, pass.h);
        let left = (grip * grip - self.impulses[HEADING].powi(2))
            .max(0.0)
            .sqrt();
        let wish = Wish {
            target: 0.0,
            bias: 0.0,
            softness: Softness::RIGID,
            bounds: (-left, left),
        };
        self.side
            .solve((&mut a, &mut b), &mut self.impulses[SIDE], &wish);
        Motion::store_pair(bodies, (&a, self.frame.body_a), (&b, self.frame.body_b));
    }

    /// The spring towards the rest height and the bump stop, each pushing only.
    fn solve_suspension(
        &mut self,
        (a, b): (&mut Motion, &mut Motion),
        height: Real,
        pass: &PassContext,
    ) {
        let softness = self.spring.pass(pass.use_bias);
        let wish = Wish {
            target: 0.0,
            bias: softness.bias_rate * (height - self.setup.rest),
            softness,
            bounds: (0.0, Real::INFINITY),
        };
        self.suspension
            .solve((a, b), &mut self.impulses[SPRING], &wish);
        // The stop: speculative while the gap is open (it may close this substep, no more), a
        // rigid row with the joints' stabilisation once passed.
        let gap = height - self.setup.stop;
        let (bias, softness) = if gap > 0.0 {
            (gap / pass.h, Softness::RIGID)
        } else {
            let softness = pass.rigid();
            (softness.bias_rate * gap, softness)
        };
        let wish = Wish {
            target: 0.0,
            bias,
            softness,
            bounds: (0.0, Real::INFINITY),
        };
        self.suspension
            .solve((a, b), &mut self.impulses[STOP], &wish);
    }

    /// The heading row and the brake together: impulses `t` (on the bodies along `forward`;
    /// `-t * radius` on the spin) and `k` (on the spin), `|t| <= grip`, `|k| <= brake torque *
    /// h`. With `e_t` the slip and `e_k` the spin, and `n = 1 / inertia`, `r = radius`, `m` the
    /// row's inverse effective mass, the block is `[[m + r^2 n, -r n], [-r n, n]]` (determinant
    /// `m n`): solved whole, then, if a bound is passed, clamped and the other row solved
    /// alone against it.
    fn solve_heading(&mut self, (a, b): (&mut Motion, &mut Motion), grip: Real, h: Real) {
        let s = &self.setup;
        let (r, n) = (s.radius, 1.0 / s.inertia);
        let mut brake = s.brake_torque * h;
        if s.anti_lock {
            brake = brake.min(grip * r);
        }
        let brake = brake + s.rolling_resistance * r * self.load_impulse();
        let m = if self.heading.effective_mass > 0.0 {
            1.0 / self.heading.effective_mass
        } else {
            0.0
        };
        let e_t = self.heading.velocity(a, b) - self.spin * r;
        let e_k = self.spin;
        let (k_tt, k_tk, k_kk) = (m + r * r * n, -r * n, n);
        let (t0, k0) = (self.impulses[HEADING], self.impulses[BRAKE]);
        let clamp = |x: Real, bound: Real| x.max(-bound).min(bound);
        // The tyre alone against a brake impulse `k`, and the brake alone against `t`.
        let tyre = |k: Real| clamp(t0 - (e_t + k_tk * (k - k0)) / k_tt, grip);
        let braked = |t: Real| clamp(k0 - (e_k + k_tk * (t - t0)) / k_kk, brake);
        let (t, k) = if m > 0.0 {
            let t = t0 - (e_t + r * e_k) / m;
            let k = k0 - (k_tt * e_k - k_tk * e_t) / (m * n);
            if k.abs() > brake {
                let k = clamp(k, brake);
                let t = tyre(k);
                (t, if t.abs() >= grip { braked(t) } else { k })
            } else if t.abs() > grip {
                let t = clamp(t, grip);
                (t, braked(t))
            } else {
                (t, k)
            }
        } else {
            // Nothing moves under the tyre (both ends static): the brake alone.
            (t0, braked(t0))
        };
        let (dt, dk) = (t - t0, k - k0);
        self.impulses[HEADING] = t;
        self.impulses[BRAKE] = k;
        self.heading.apply(a, b, dt);
        self.spin += (dk - dt * r) * n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{BodySim, BodyState};
    use crate::step::JointSettings;
    use crate::Matrix;

    const H: Real = 1.0 / 420.0;

    fn pass() -> PassContext {
        PassContext {
            h: H,
            use_bias: true,
            elapsed: 0.0,
            joint: JointSettings::new(60.0, 5.0, H),
        }
    }

    /// A 400 kg block on one wheel of radius 0.3 m and inertia 1 kg m^2 on static ground,
    /// resting on its suspension (mount 0.5 m over the contact), moving forward at `v`.
    fn wheel(v: Real, spin: Real, brake_torque: Real, friction: Real) -> (Bodies, WheelRows) {
        let mut bodies = Bodies::default();
        let sim = BodySim::with_mass(1.0 / 400.0, Matrix::identity() / 100.0);
        let chassis = bodies.push(BodyState::STATIC, sim);
        bodies.states[chassis as usize].linear_velocity = Vector::new(v, 0.0, 0.0);
        let frame = JointFrame {
            body_a: crate::body::STATIC,
            body_b: chassis,
            anchor_a: Vector::zeros(),
            anchor_b: Vector::zeros(),
            separation: Vector::new(0.0, 0.5, 0.0),
            rotations: (crate::Quaternion::identity(), crate::Quaternion::identity()),
        };
        let spring = Spring::Stiffness {
            stiffness: 40_000.0,
            damping: 2_000.0,
        };
        let setup = WheelSetup {
            up: Vector::y(),
            forward: Vector::x(),
            side: -Vector::z(),
            rest: 0.6,
            stop: 0.35,
            spring,
            radius: 0.3,
            inertia: 1.0,
            friction,
            brake_torque,
            anti_lock: false,
            rolling_resistance: 0.0,
            spin,
            extra_force: 0.0,
            grounded: true,
        };
        let (a, b) = (Motion::STATIC, Motion::load(&bodies, chassis));
        let rows = WheelRows::new(&frame, (&a, &b), setup, (H, [0.0; 5]));
        (bodies, rows)
    }

    /// The chassis's speed along the heading at the contact point (it pitches as it brakes).
    fn contact_speed(bodies: &Bodies, rows: &WheelRows) -> Real {
        let b = Motion::load(bodies, 0);
        rows.heading.velocity(&Motion::STATIC, &b)
    }

    /// A rolling wheel with a brake strong enough stops the chassis's contact point and the
    /// wheel together in one iteration (the block is exact), with the tyre's impulse within its grip.
    #[test]
    fn a_strong_brake_stops_wheel_and_chassis_together() {
        let (mut bodies, mut rows) = wheel(0.01, 0.01 / 0.3, 1e6, 1.0);
        rows.solve(&mut bodies, &pass());
        let v = contact_speed(&bodies, &rows);
        assert!(
            v.abs() < 1e-5 && rows.spin().abs() < 1e-4,
            "{v} {}",
            rows.spin()
        );
        let [_, _, t, _, k] = rows.impulses();
        // The contact point's effective mass: 1 / (1/400 + 0.5^2/100) = 200 kg.
        assert!(
            t.abs() <= rows.load_impulse() && (t + 0.01 * 200.0).abs() < 1e-4,
            "{t}"
        );
        assert!(k < 0.0, "{k}");
    }

    /// A brake weaker than the wheel's demand slips: its impulse is exactly its torque times
    /// the substep (against the spin), and the tyre still rolls without slip.
    #[test]
    fn a_weak_brake_slips_at_its_torque() {
        let (mut bodies, mut rows) = wheel(5.0, 5.0 / 0.3, 100.0, 1.0);
        rows.solve(&mut bodies, &pass());
        let [_, _, _, _, k] = rows.impulses();
        assert!((k + 100.0 * H).abs() < 1e-7, "{k}");
        let slip = contact_speed(&bodies, &rows) - rows.spin() * 0.3;
        assert!(slip.abs() < 1e-4, "{slip}");
    }

    /// A locked wheel at speed slides: the tyre pushes back with exactly its grip, and the brake
    /// holds the spin at zero.
    #[test]
    fn a_locked_wheel_slides_at_its_grip() {
        let (mut bodies, mut rows) = wheel(10.0, 0.0, 1e6, 0.8);
        rows.solve(&mut bodies, &pass());
        let [_, _, t, _, _] = rows.impulses();
        let grip = 0.8 * rows.load_impulse();
        assert!(grip > 0.0 && (t + grip).abs() < 1e-6, "{t} {grip}");
        assert!(rows.spin().abs() < 1e-4, "{}", rows.spin());
    }
}

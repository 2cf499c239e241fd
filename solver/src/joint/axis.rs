//! The axis part: what a joint does along one direction, linear or angular. It can hold a
//! coordinate there (rigidly, or as a spring), keep it within limits and drive it with a
//! motor, as rows sharing one Jacobian, each with its own accumulated impulse (the idea of
//! Jolt's `AxisConstraintPart`; our own code). The distance joint is one axis part; the hinge's
//! angle, the slider's travel, the hinge's two alignment directions and the slider's two
//! directions across its axis are axis parts too, and the angular lock is three.
//!
//! The joint gives the part its Jacobian ([`Row`]: direction, lever arms, effective mass) when
//! it is made, and again when the direction turns with the bodies ([`AxisPart::aim`]); each pass
//! it gives the coordinate's value now. The part solves the motor, then the hold, then the
//! limits, so that the limits have the last word.

use super::part::{Part, PassContext};
use crate::body::Motion;
use crate::row::{Row, Wish};
use crate::softness::{Softness, Spring, SpringSoftness};
use crate::Real;

/// How a coordinate is held at its target.
#[derive(Clone, Copy, Debug)]
pub enum Hold {
    /// Rigidly, with the joints' stabilisation while biased.
    Rigid,
    /// As a spring, with these coefficients (exact where they can be: [`SpringSoftness`]).
    Spring(SpringSoftness),
}

impl Hold {
    /// Rigid without a spring; else the spring's coefficients for `row`'s effective mass at
    /// substep `h`.
    pub fn of(spring: Option<&Spring>, row: &Row, h: Real) -> Hold {
        match spring {
            None => Hold::Rigid,
            Some(spring) => {
                Hold::Spring(SpringSoftness::new(spring, row.effective_mass.max(0.0), h))
            }
        }
    }
}

/// What acts along an axis.
#[derive(Clone, Copy, Debug, Default)]
pub struct AxisSettings {
    /// Hold the coordinate at this value, as this.
    pub hold: Option<(Real, Hold)>,
    /// Keep the coordinate at least and at most these (either may be infinite).
    pub limits: Option<(Real, Real)>,
    /// Soft limits: past a bound, pushed back by this spring instead of rigidly.
    pub limit_spring: Option<SpringSoftness>,
    /// The largest force or torque the hold may push with (N or N m), if capped: a drive's.
    pub hold_cap: Option<Real>,
    /// Drive the coordinate's rate to a speed (m/s or rad/s) with at most a force or torque
    /// (N or N m).
    pub motor: Option<(Real, Real)>,
}

/// Which of an axis part's accumulated impulses is which.
const HOLD: usize = 0;
const LOWER: usize = 1;
const UPPER: usize = 2;
const MOTOR: usize = 3;

/// An axis part prepared for a step.
#[derive(Clone, Copy, Debug)]
pub struct AxisPart {
    /// The Jacobian and effective mass (its own impulse is unused: see `impulses`).
    row: Row,
    /// The accumulated impulses (N s or N m s) of the hold, the lower limit, the upper limit
    /// and the motor.
    impulses: [Real; 4],
    settings: AxisSettings,
}

impl AxisPart {
    /// The part along `row` with `settings`, carrying last step's `impulses` (hold, lower,
    /// upper, motor); what does not act this step carries nothing (a motor or limits removed
    /// at run time would otherwise go on warm starting their last impulse forever), nor does
    /// anything not finite.
    pub fn new(row: Row, settings: AxisSettings, impulses: [Real; 4]) -> AxisPart {
        let acts = [
            settings.hold.is_some(),
            settings
                .limits
                .is_some_and(|(lower, _)| lower > Real::NEG_INFINITY),
            settings
                .limits
                .is_some_and(|(_, upper)| upper < Real::INFINITY),
            settings.motor.is_some(),
        ];
        let impulses = [0, 1, 2, 3].map(|k| {
            if acts[k] && impulses[k].is_finite() {
                impulses[k]
            } else {
                0.0
            }
        });
        AxisPart {
            row,
            impulses,
            settings,
        }
    }

    /// The same part along a new Jacobian (its direction turned with the bodies).
    pub fn aim(&mut self, row: Row) {
        self.row = row;
    }

    /// The accumulated impulses: hold, lower, upper, motor.
    pub fn impulses(&self) -> [Real; 4] {
        self.impulses
    }

    /// The sum of the accumulated impulses: what the part applies along its axis.
    pub fn total(&self) -> Real {
        self.impulses.iter().sum()
    }

    /// One iteration with the coordinate at `value` now.
    pub fn solve(&mut self, a: &mut Motion, b: &mut Motion, value: Real, pass: &PassContext) {
        let s = self.settings;
        if let Some((speed, max)) = s.motor {
            let max = max * pass.h;
            let wish = Wish {
                target: speed,
                bias: 0.0,
                softness: Softness::RIGID,
                bounds: (-max, max),
            };
            self.solve_row(MOTOR, a, b, wish);
        }
        if let Some((at, hold)) = s.hold {
            let softness = match hold {
                Hold::Rigid => pass.rigid(),
                Hold::Spring(spring) => spring.pass(pass.use_bias),
            };
            let bounds = match s.hold_cap {
                Some(max) => (-max * pass.h, max * pass.h),
                None => (Real::NEG_INFINITY, Real::INFINITY),
            };
            let wish = Wish {
                target: 0.0,
                bias: softness.bias_rate * (value - at),
                softness,
                bounds,
            };
            self.solve_row(HOLD, a, b, wish);
        }
        if let Some((lower, upper)) = s.limits {
            if lower > Real::NEG_INFINITY {
                self.solve_limit(LOWER, a, b, value - lower, pass);
            }
            if upper < Real::INFINITY {
                self.solve_limit(UPPER, a, b, value - upper, pass);
            }
        }
    }

    /// A limit whose coordinate is `c` past its bound (positive: above it). The lower limit
    /// keeps `c >= 0` (impulse >= 0), the upper `c <= 0` (impulse <= 0). While slack, the row
    /// lets the coordinate close the gap by at most the gap this substep (speculative, as
    /// contacts do); once violated it is a rigid row.
    fn solve_limit(
        &mut self,
        which: usize,
        a: &mut Motion,
        b: &mut Motion,
        c: Real,
        pass: &PassContext,
    ) {
        let lower = which == LOWER;
        let slack = if lower { c > 0.0 } else { c < 0.0 };
        let (bias, softness) = if slack {
            (c / pass.h, Softness::RIGID)
        } else {
            let softness = match &self.settings.limit_spring {
                Some(spring) => spring.pass(pass.use_bias),
                None => pass.rigid(),
            };
            (softness.bias_rate * c, softness)
        };
        let bounds = if lower {
            (0.0, Real::INFINITY)
        } else {
            (Real::NEG_INFINITY, 0.0)
        };
        let wish = Wish {
            target: 0.0,
            bias,
            softness,
            bounds,
        };
        self.solve_row(which, a, b, wish);
    }

    /// One iteration of the row whose accumulated impulse is `impulses[which]`.
    fn solve_row(&mut self, which: usize, a: &mut Motion, b: &mut Motion, wish: Wish) {
        self.row.solve((a, b), &mut self.impulses[which], &wish);
    }
}

impl Part for AxisPart {
    fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
        for impulse in self.impulses {
            self.row.apply(a, b, impulse);
        }
    }

    fn reset(&mut self) {
        self.impulses = [0.0; 4];
    }

    /// The hold's spring, or the limits'.
    fn too_stiff(&self) -> bool {
        let limits = self.settings.limit_spring.is_some_and(|s| s.limited);
        limits || matches!(self.settings.hold, Some((_, Hold::Spring(s))) if s.limited)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::step::JointSettings;
    use crate::{Matrix, Vector};

    const H: Real = 1.0 / 240.0;

    /// A free body of 2 kg (B) against the static world (A), an axis part along x.
    fn setup(settings: AxisSettings) -> (Motion, Motion, AxisPart) {
        let a = Motion::STATIC;
        let b = Motion {
            inv_mass: 0.5,
            inv_inertia: Matrix::identity(),
            ..Motion::STATIC
        };
        let row = Row::new(Vector::x(), Vector::zeros(), Vector::zeros(), &a, &b);
        (a, b, AxisPart::new(row, settings, [0.0; 4]))
    }

    fn pass(use_bias: bool) -> PassContext {
        PassContext {
            h: H,
            use_bias,
            elapsed: 0.0,
            joint: JointSettings::new(60.0, 5.0, H),
        }
    }

    /// A motor reaches its speed in one iteration when its force allows, and pushes with
    /// exactly its maximum force times the substep when it does not.
    #[test]
    fn a_motor_drives_to_its_speed_within_its_force() {
        let strong = AxisSettings {
            motor: Some((3.0, 1.0e6)),
            ..AxisSettings::default()
        };
        let (mut a, mut b, mut part) = setup(strong);
        part.solve(&mut a, &mut b, 0.0, &pass(true));
        assert!((b.v.x - 3.0).abs() < 1e-6, "{}", b.v.x);
        let weak = AxisSettings {
            motor: Some((3.0, 10.0)),
            ..AxisSettings::default()
        };
        let (mut a, mut b, mut part) = setup(weak);
        part.solve(&mut a, &mut b, 0.0, &pass(true));
        // 10 N for H on 2 kg.
        assert!((b.v.x - 10.0 * H / 2.0).abs() < 1e-6, "{}", b.v.x);
        assert_eq!(part.impulses()[MOTOR], 10.0 * H);
    }

    /// A slack limit lets the coordinate close its gap in one substep and no more; a violated
    /// one pushes back (impulse of its sign only); a limit that is not reached does nothing.
    #[test]
    fn limits_are_speculative_while_slack_and_push_once_violated() {
        let limits = AxisSettings {
            limits: Some((0.0, 1.0)),
            ..AxisSettings::default()
        };
        // 0.01 m above the lower bound, closing at 10 m/s: it may close 0.01 m this substep.
        let (mut a, mut b, mut part) = setup(limits);
        b.v.x = -10.0;
        part.solve(&mut a, &mut b, 0.01, &pass(true));
        assert!((b.v.x + 0.01 / H).abs() < 1e-4, "{}", b.v.x);
        assert!(part.impulses()[LOWER] > 0.0 && part.impulses()[UPPER] == 0.0);
        // Moving away from both bounds, inside them: nothing.
        let (mut a, mut b, mut part) = setup(limits);
        b.v.x = 0.5;
        part.solve(&mut a, &mut b, 0.5, &pass(true));
        assert_eq!(b.v.x, 0.5);
        assert_eq!(part.total(), 0.0);
        // 0.02 m past the upper bound, at rest: pushed back down, never pulled up.
        let (mut a, mut b, mut part) = setup(limits);
        part.solve(&mut a, &mut b, 1.02, &pass(true));
        assert!(b.v.x < 0.0 && part.impulses()[UPPER] < 0.0);
    }

    /// A rigid hold stops the coordinate's rate in the relax pass (no stabilisation there) and
    /// pulls back towards its target in the biased pass; a removed motor or limit carries no
    /// impulse into the next step.
    #[test]
    fn a_rigid_hold_stops_the_rate_and_pulls_towards_its_target() {
        let hold = AxisSettings {
            hold: Some((0.0, Hold::Rigid)),
            ..AxisSettings::default()
        };
        let (mut a, mut b, mut part) = setup(hold);
        b.v.x = 2.0;
        part.solve(&mut a, &mut b, 0.0, &pass(false));
        assert!(b.v.x.abs() < 1e-6, "{}", b.v.x);
        part.solve(&mut a, &mut b, 0.1, &pass(true));
        assert!(b.v.x < 0.0, "{}", b.v.x);
        let row = Row::new(Vector::x(), Vector::zeros(), Vector::zeros(), &a, &b);
        let carried = AxisPart::new(row, hold, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(carried.impulses(), [1.0, 0.0, 0.0, 0.0]);
    }
}

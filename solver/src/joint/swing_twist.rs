//! The swing-twist joint, for shoulders, hips and necks: the point part, a cone on the swing
//! whose half angles about the joint frame's y and z axes may differ (an elliptical cone), twist
//! limits about B's twist axis, soft limits by a spring, and friction torque (the idea of Jolt's
//! `SwingTwistConstraint`; our own code, with the swing and twist of [`super::swing`]).
//!
//! Rows, each pass: the drive towards an orientation ([`super::OrientationDrive`]), the friction (three angular rows about the world axes, a velocity motor to
//! zero within the friction torque), the twist limits (about B's twist axis, `C = twist`), the
//! cone (about the swing axis), then the point, so that the anchors have the last word. The
//! twist and cone rows keep the axes they have as the step begins (as a contact keeps its
//! normal); their angles are measured again each pass.

use super::angular::angular_row;
use super::angular::AngularLock;
use super::axis::{AxisPart, AxisSettings};
use super::ball::BallJoint;
use super::drive::{orientation_drive, OrientationDrive};
use super::part::{impulses, Joint, JointFrame, Part, PassContext};
use super::project::{past, project_angle};
use super::swing::{swing_twist, Cone, Frames};
use crate::body::Motion;
use crate::softness::{Spring, SpringSoftness};
use crate::step::StepContext;
use crate::{Quaternion, Real, Vector};

/// How a swing-twist joint is set, in its bodies' frames.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SwingTwistSettings {
    /// The joint frame on A: its x axis the twist axis, its y and z axes those the cone's half
    /// angles are about.
    pub frame_a: Quaternion,
    /// The joint frame on B: no swing and no twist where it matches A's.
    pub frame_b: Quaternion,
    /// The cone's half angles about the frame's y and z axes (rad, each in (0, pi)), if limited.
    pub swing: Option<(Real, Real)>,
    /// Lower and upper twist (rad, within [-pi, pi]), if limited.
    pub twist: Option<(Real, Real)>,
    /// Soft limits: past a limit, B is pushed back by this spring instead of rigidly.
    pub limit_spring: Option<Spring>,
    /// Friction torque against any turn of B relative to A (N m); zero for none.
    pub friction: Real,
    /// A drive towards an orientation of B's joint frame relative to A's (`f_b = f_a target`;
    /// identity: the pose the joint was added in).
    pub drive: Option<OrientationDrive>,
}

impulses! {
    /// A swing-twist joint's accumulated impulses.
    pub struct SwingTwistImpulses {
        /// The point's (world, N s).
        pub point: Vector,
        /// The cone's (N m s).
        pub swing: Real,
        /// The lower twist limit's.
        pub twist_lower: Real,
        /// The upper twist limit's.
        pub twist_upper: Real,
        /// The friction's, about the world axes.
        pub friction: Vector,
        /// The drive's, about the world axes.
        pub drive: Vector,
    }
}

/// A swing-twist joint prepared for a step.
#[derive(Clone, Debug)]
pub struct SwingTwistJoint {
    point: BallJoint,
    cone: Option<Cone>,
    twist: Option<AxisPart>,
    friction: Option<[AxisPart; 3]>,
    drive: Option<AngularLock>,
    frames: Frames,
    /// The twist's limits, for the projection.
    twist_limits: Option<(Real, Real)>,
}

impl Joint for SwingTwistJoint {
    type Settings = SwingTwistSettings;
    type Impulses = SwingTwistImpulses;

    fn prepare(
        frame: &JointFrame,
        (a, b): (&Motion, &Motion),
        settings: &SwingTwistSettings,
        step: &StepContext,
        carried: &SwingTwistImpulses,
    ) -> Self {
        let h = step.h;
        let point = BallJoint::new(frame, a, b, None, &step.joint, h, carried.point);
        let (qa, qb) = frame.rotations;
        let frames = Frames {
            a: qa * settings.frame_a,
            b: qb * settings.frame_b,
        };
        let spring = settings.limit_spring.as_ref();
        let cone = settings.swing.map(|half_angles| {
            let soft = (spring, h);
            Cone::new(&frames, (a, b), half_angles, soft, carried.swing)
        });
        let twist = settings.twist.map(|limits| {
            let row = angular_row(&(frames.b * Vector::x()), a, b);
            let limit_spring = spring.map(|s| SpringSoftness::new(s, row.effective_mass, h));
            let settings = AxisSettings {
                limits: Some(limits),
                limit_spring,
                ..AxisSettings::default()
            };
            let carried = [0.0, carried.twist_lower, carried.twist_upper, 0.0];
            AxisPart::new(row, settings, carried)
        });
        let friction = (settings.friction > 0.0).then(|| {
            [0, 1, 2].map(|k| {
                let row = angular_row(&Vector::ith(k, 1.0), a, b);
                let settings = AxisSettings {
                    motor: Some((0.0, settings.friction)),
                    ..AxisSettings::default()
                };
                AxisPart::new(row, settings, [0.0, 0.0, 0.0, carried.friction[k]])
            })
        });
        let drive = settings.drive.map(|drive| {
            let ends = (frames.a, frames.b);
            orientation_drive(frame, (a, b), ends, &drive, h, carried.drive)
        });
        SwingTwistJoint {
            point,
            cone,
            twist,
            friction,
            drive,
            frames,
            twist_limits: settings.twist,
        }
    }

    fn parts(&mut self) -> impl Part + '_ {
        (
            &mut self.point,
            (&mut self.cone, &mut self.twist),
            (&mut self.friction, &mut self.drive),
        )
    }

    fn solve(&mut self, _: &JointFrame, a: &mut Motion, b: &mut Motion, pass: &PassContext) {
        if let Some(drive) = &mut self.drive {
            drive.solve(a, b, pass);
        }
        if let Some(friction) = &mut self.friction {
            for part in friction {
                part.solve(a, b, 0.0, pass);
            }
        }
        if self.cone.is_some() || self.twist.is_some() {
            let (f_a, f_b) = self.frames.now(a, b);
            let (swing, axis, twist) = swing_twist(&f_a, &f_b);
            if let Some(part) = &mut self.twist {
                part.solve(a, b, twist, pass);
            }
            if let Some(cone) = &mut self.cone {
                cone.solve((a, b), (swing, axis), pass);
            }
        }
        self.point.solve_motions(a, b, pass.use_bias, 0.0);
    }

    /// The twist, the cone, then the point.
    fn project(&mut self, frame: &JointFrame, a: &mut Motion, b: &mut Motion) {
        if let Some((lower, upper)) = self.twist_limits {
            let (f_a, f_b) = self.frames.now(a, b);
            let (_, _, twist) = swing_twist(&f_a, &f_b);
            let past = past(twist, (lower, upper));
            if past != 0.0 {
                project_angle(a, b, &(f_b * Vector::x()), past);
            }
        }
        if let Some(cone) = &self.cone {
            // Measured again: the twist's turn moved B.
            let (f_a, f_b) = self.frames.now(a, b);
            let (swing, axis, _) = swing_twist(&f_a, &f_b);
            let past = cone.past((swing, axis));
            if let (true, Some(n)) = (past > 0.0, axis) {
                project_angle(a, b, &(f_a * n), past);
            }
        }
        self.point.project_point(frame, a, b);
    }

    fn impulses(&self) -> SwingTwistImpulses {
        let [_, twist_lower, twist_upper, _] = self.twist.map_or([0.0; 4], |t| t.impulses());
        let friction = self
            .friction
            .map_or([0.0; 3], |parts| parts.map(|p| p.total()));
        SwingTwistImpulses {
            point: self.point.impulse(),
            swing: self.cone.as_ref().map_or(0.0, Cone::impulse),
            twist_lower,
            twist_upper,
            friction: Vector::from(friction),
            drive: self.drive.map_or(Vector::zeros(), |drive| drive.impulses()),
        }
    }

    fn load(&self) -> Real {
        self.point.impulse().norm()
    }
}

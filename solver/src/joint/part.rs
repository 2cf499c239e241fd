//! What every joint and every part share, in a file of its own that imports none of them: where
//! a joint attaches to its bodies ([`JointFrame`]), what each pass reads ([`PassContext`]) and
//! does over the lane-solved parts ([`JointPass`]), the calls every part answers ([`Part`]),
//! the one `prepare` of every kind ([`Joint`]), and the impulses' checks ([`Finite`],
//! `impulses!`).

use crate::body::Motion;
use crate::row::Row;
use crate::softness::Softness;
use crate::step::{JointSettings, StepContext};
use crate::{Quaternion, Real, Vector};

/// What a pass over joint bundles does.
#[derive(Clone, Copy, Debug)]
pub(crate) enum JointPass {
    /// Apply the accumulated impulses.
    WarmStart,
    /// One iteration, biased or not.
    Solve { use_bias: bool },
}

/// Where a joint attaches to its two bodies, at the start of the step.
#[derive(Clone, Copy, Debug)]
pub struct JointFrame {
    /// Body A's solver index, or [`crate::body::STATIC`].
    pub body_a: u32,
    /// Body B's solver index, or [`crate::body::STATIC`].
    pub body_b: u32,
    /// A's anchor relative to A's centre of mass (world orientation).
    pub anchor_a: Vector,
    /// B's anchor relative to B's centre of mass.
    pub anchor_b: Vector,
    /// B's anchor minus A's anchor, in world space, at the start of the step.
    pub separation: Vector,
    /// A's and B's orientations at the start of the step: what turns the settings, given in
    /// the bodies' frames, into the world.
    pub rotations: (Quaternion, Quaternion),
}

impl JointFrame {
    /// A frame between no bodies (both [`crate::body::STATIC`]), anchored at their origins:
    /// what a row with nothing to hold starts from.
    pub fn unattached() -> JointFrame {
        JointFrame {
            body_a: crate::body::STATIC,
            body_b: crate::body::STATIC,
            anchor_a: Vector::zeros(),
            anchor_b: Vector::zeros(),
            separation: Vector::zeros(),
            rotations: (Quaternion::identity(), Quaternion::identity()),
        }
    }

    /// The anchors now (from each centre of mass), turned by the bodies' rotation since the
    /// step began.
    pub fn current_anchors(&self, a: &Motion, b: &Motion) -> (Vector, Vector) {
        (
            a.delta_rotation * self.anchor_a,
            b.delta_rotation * self.anchor_b,
        )
    }

    /// B's anchor minus A's anchor now, from the bodies' motion since the step began.
    pub fn current_separation(&self, a: &Motion, b: &Motion) -> Vector {
        self.separation + b.anchor_motion(&self.anchor_b) - a.anchor_motion(&self.anchor_a)
    }

    /// A row along `dir` through the anchors `r_a` and `r_b`.
    pub fn row(dir: &Vector, r_a: &Vector, r_b: &Vector, a: &Motion, b: &Motion) -> Row {
        Row::new(*dir, -r_a.cross(dir), r_b.cross(dir), a, b)
    }
}

/// What one pass over a joint reads of the step: the substep, whether the pass is biased, the
/// time since the step began at which the bodies' positions now stand (for targets that move),
/// and how rigid rows correct their position error.
#[derive(Clone, Copy, Debug)]
pub struct PassContext {
    /// The substep (s).
    pub h: Real,
    /// The biased pass (position error corrected), or the relax pass.
    pub use_bias: bool,
    /// Time since the step began (s).
    pub elapsed: Real,
    /// The rigid rows' stabilisation.
    pub joint: JointSettings,
}

impl PassContext {
    /// The softness of a rigid row in this pass.
    pub fn rigid(&self) -> Softness {
        self.joint.rigid(self.use_bias)
    }
}

/// What every part of a joint answers (the point part, the axis part, the angular lock), and
/// so every list of parts: a joint made of parts warm starts, forgets and reports a spring too
/// stiff by naming its parts once ([`Joint::parts`]). Solving is not here: each part measures
/// its coordinate from what its joint tells it.
pub trait Part {
    /// Applies the accumulated impulses (warm starting).
    fn warm_start(&self, a: &mut Motion, b: &mut Motion);
    /// Forgets the accumulated impulses (warm starting off).
    fn reset(&mut self);
    /// Whether a spring fell back to implicit coefficients at this substep (too stiff to be
    /// exact: [`crate::softness::SpringSoftness`]).
    fn too_stiff(&self) -> bool;
}

impl<P: Part + ?Sized> Part for &mut P {
    fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
        (**self).warm_start(a, b)
    }
    fn reset(&mut self) {
        (**self).reset()
    }
    fn too_stiff(&self) -> bool {
        (**self).too_stiff()
    }
}

/// A part a joint may not have this step.
impl<P: Part> Part for Option<P> {
    fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
        if let Some(part) = self {
            part.warm_start(a, b);
        }
    }
    fn reset(&mut self) {
        if let Some(part) = self {
            part.reset();
        }
    }
    fn too_stiff(&self) -> bool {
        self.as_ref().is_some_and(Part::too_stiff)
    }
}

impl<P: Part, const N: usize> Part for [P; N] {
    fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
        self.iter().for_each(|part| part.warm_start(a, b));
    }
    fn reset(&mut self) {
        self.iter_mut().for_each(Part::reset);
    }
    fn too_stiff(&self) -> bool {
        self.iter().any(Part::too_stiff)
    }
}

/// Tuples of parts, warm started in order.
macro_rules! part_tuple {
    ($($name:ident $index:tt),+) => {
        impl<$($name: Part),+> Part for ($($name,)+) {
            fn warm_start(&self, a: &mut Motion, b: &mut Motion) {
                $(self.$index.warm_start(a, b);)+
            }
            fn reset(&mut self) {
                $(self.$index.reset();)+
            }
            fn too_stiff(&self) -> bool {
                false $(|| self.$index.too_stiff())+
            }
        }
    };
}
part_tuple!(P0 0, P1 1);
part_tuple!(P0 0, P1 1, P2 2);

/// A joint kind: what it is set by, what it carries from step to step, and its rows for one
/// step. Each kind is one file implementing this and one line of `joint_kinds!`; the world
/// keeps the settings and the impulses, and hands them back each step.
pub trait Joint: Sized {
    /// How the joint is set, in its bodies' frames (the world keeps this; changed at run time).
    type Settings;
    /// Its accumulated impulses, named, carried to the next step's warm start.
    type Impulses: Copy + Default;

    /// The rows for the step of `step`, between the ends of `frame` (`ends`: the bodies as
    /// they start the step), carrying last step's impulses (anything not finite is dropped).
    fn prepare(
        frame: &JointFrame,
        ends: (&Motion, &Motion),
        settings: &Self::Settings,
        step: &StepContext,
        carried: &Self::Impulses,
    ) -> Self;

    /// Its parts, named once for the calls every part answers.
    fn parts(&mut self) -> impl Part + '_;

    /// One iteration in the pass `pass`, the bodies having moved since the step began.
    fn solve(&mut self, frame: &JointFrame, a: &mut Motion, b: &mut Motion, pass: &PassContext);

    /// The accumulated impulses, to carry to the next step.
    fn impulses(&self) -> Self::Impulses;

    /// The impulse it holds with (N s, or N m s; over the last substep): what a breaking force
    /// is compared with.
    fn load(&self) -> Real;

    /// If a cap held the joint back this step (an attachment's), the impulse it asked for and
    /// the one it was allowed (N s).
    fn limited(&self) -> Option<(Real, Real)> {
        None
    }

    /// Moves the bodies to take out what is left of its rigid parts' position error after the
    /// velocity solve (`project.rs`); nothing for a joint that is springs, motors or drives.
    fn project(&mut self, _frame: &JointFrame, _a: &mut Motion, _b: &mut Motion) {}
}

/// Whether every impulse is finite (what a snapshot's joints are checked for).
pub trait Finite {
    /// Every value finite.
    fn is_finite(&self) -> bool;
}

impl Finite for Real {
    fn is_finite(&self) -> bool {
        Real::is_finite(*self)
    }
}

impl Finite for Vector {
    fn is_finite(&self) -> bool {
        self.iter().all(|x| x.is_finite())
    }
}

impl<T: Finite, const N: usize> Finite for [T; N] {
    fn is_finite(&self) -> bool {
        self.iter().all(Finite::is_finite)
    }
}

/// Named impulses: a struct whose every field is finite or not ([`Finite`]).
macro_rules! impulses {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub struct $name { $($(#[$field_meta])* pub $field: $ty,)+ }

        impl $crate::joint::part::Finite for $name {
            fn is_finite(&self) -> bool {
                true $(&& $crate::joint::part::Finite::is_finite(&self.$field))+
            }
        }
    };
}
pub(crate) use impulses;

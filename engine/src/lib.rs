//! sprung: a small 3D rigid-body physics engine in which springs are constraints like any other.
//!
//! A [`World`] holds bodies ([`RigidBodyBuilder`]: dynamic, kinematic or static) and their
//! colliders ([`ColliderBuilder`]: sphere, box, capsule, convex hull; for static level geometry
//! half-space, triangle mesh, height field). [`World::step`] runs the
//! pipeline of DESIGN.md: gather bodies, broad phase (sweep-and-prune), narrow phase (GJK, EPA,
//! clipped manifolds), solve (substepped sequential impulses with warm starting over a
//! coloured constraint graph, contacts in SIMD lanes, soft contacts and joints' Baumgarte
//! correction in the biased pass, then a relax pass), write back. [`World::advance`] drives it from variable frame times with a [`FixedStepper`]. Between steps,
//! [`World::cast_ray`], [`World::cast_shape`], [`World::intersect_point`] and
//! [`World::intersect_shape`] ask what is where, through a [`QueryFilter`]. [`vehicle`] puts a
//! chassis on wheels whose suspension, tyres, brakes and drive train are rows of the solve.
//!
//! ```
//! use sprung::{ColliderBuilder, RigidBodyBuilder, World};
//! use sprung::math::Vector;
//!
//! let mut world = World::default();
//! let ball = world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 10.0, 0.0))).unwrap();
//! world.add_collider(ColliderBuilder::ball(0.5), ball).unwrap();
//! world.step(1.0 / 60.0).unwrap();
//! assert!(world.body(ball).unwrap().linear_velocity().y < 0.0);
//! ```
//!
//! # Features
//!
//! - `parallel` (default): a step splits over [`SolverSettings::threads`] worker threads. Off,
//!   every step runs on the calling thread and no thread is ever started; the results are
//!   the same bits either way.
//! - `timings` (default): [`StepReport`]'s wall times, from `std::time::Instant`. Off, they
//!   read zero and the step reads no clock.
//! - `serde`: `World::save` and `World::restore`, snapshots of a world.
//!
//! With `default-features = false` the engine starts no thread and reads no clock, as
//! wasm32 in a browser needs: `cargo build -p sprung --no-default-features --target
//! wasm32-unknown-unknown`.

mod body;
mod collider;
mod error;
mod event;
mod handle;
mod integrate;
mod joint;
pub mod limits;
mod pd;
mod query;
pub mod ragdoll;
pub mod settings;
mod sleep;
pub mod vehicle;
mod world;

pub use body::{BodyKind, Mass, RigidBody, RigidBodyBuilder};
pub use collider::{Collider, ColliderBuilder, CollisionGroups, DEFAULT_ROLLING_RESISTANCE};
pub use error::{Error, SnapshotError};
pub use event::Event;
pub use handle::{BodyHandle, ColliderHandle, JointHandle, RagdollHandle};
pub use joint::{
    AttachmentSettings, BallSettings, ConeLimit, DistanceSettings, Drive, FixedSettings,
    HingeSettings, Joint, JointBuilder, JointImpulses, JointKind, MotorSettings, OrientationDrive,
    RaySpringSettings, SliderSettings, SwingTwistSettings, UprightSettings,
};
pub use query::{PointProjection, QueryFilter, RayHitInfo, ShapeContact, ShapeHitInfo};
pub use ragdoll::{Ragdoll, RagdollBuilder, RagdollJoint, RagdollPart, RagdollPose};
pub use sleep::SleepSettings;
pub use sprung_collision as collision;
pub use sprung_solver as solver;
pub use sprung_solver::kernels::SimdWidth;
pub use sprung_solver::settings::SolverSettings;
pub use sprung_solver::softness::Spring;
pub use sprung_spring::FixedStepper;
#[cfg(feature = "serde")]
pub use world::SNAPSHOT_VERSION;
pub use world::{LimitedSpring, SpringLimit, StepReport, World};

/// Springs outside the rigid-body solver, for gameplay code: the toolkit of dampers, exact
/// spring-dampers and what is built on them (the `sprung-spring` crate, usable without the
/// engine), the position-based mass-spring system for ropes and cloth, and the PD controller
/// that drives a body (applied with `World::apply_pd`).
pub mod spring {
    pub use sprung_spring::*;
}

/// The math types sprung takes and returns (`f32`), so that a user's crate needs no other
/// dependency: parry3d's aliases (`Vector`, `Point`, `Isometry`, `Rotation`, `Real`, ...) and
/// the nalgebra types the API takes (a height field's `DMatrix`, an inertia's `Matrix3`, a
/// rotation's `UnitQuaternion`). Adding `parry3d` or `nalgebra` to a user's manifest is not
/// needed, and risks a version that does not fit (parry3d 0.26 and later are built on glam).
///
/// ```
/// use sprung::math::{DMatrix, Isometry, Matrix3, Point, Real, UnitQuaternion, Vector};
///
/// let pose = Isometry::new(Vector::new(1.0, 2.0, 3.0), Vector::y() * std::f32::consts::FRAC_PI_2);
/// let turned: Point<Real> = pose * Point::new(1.0, 0.0, 0.0);
/// assert!((turned - Point::new(1.0, 2.0, 2.0)).norm() < 1e-6);
/// let _ = (UnitQuaternion::<Real>::identity(), Matrix3::<Real>::identity(), DMatrix::<Real>::zeros(2, 2));
/// ```
pub mod math {
    pub use nalgebra::{
        DMatrix, Isometry3, Matrix3, Point3, Quaternion, Translation3, Unit, UnitQuaternion,
        Vector3,
    };
    pub use parry3d::math::*;
}

pub use sprung_collision::contact::{Manifold, ManifoldPoint};
pub use sprung_collision::shape::{Shape, ShapeError};

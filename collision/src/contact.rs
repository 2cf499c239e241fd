//! What the collision queries answer, in a module of its own that imports none of them: where
//! two shapes are closest or deepest ([`Contact`]), how far apart they are at least when a query
//! stopped early (`Gap`), and the contact manifold the solver holds them apart with
//! ([`Manifold`], [`ManifoldPoint`]).

use parry3d::math::{Point, Real, Vector};
use smallvec::SmallVec;

/// Where two shapes are closest or deepest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Signed distance between the surfaces (m): positive apart, negative overlapping.
    pub separation: Real,
    /// Unit normal from A to B (world).
    pub normal: Vector<Real>,
    /// Point on A's surface (world).
    pub point_a: Point<Real>,
    /// Point on B's surface (world).
    pub point_b: Point<Real>,
}

/// How much below GJK's distance its proven lower bound may be, relative: GJK stops once
/// `|v|^2 - v.w <= 1e-6 |v|^2`; a thousandth leaves room for its other exits and rounding.
pub(crate) const GAP_SLACK: Real = 1.0e-3;

/// Two shapes found farther apart than a margin: what a caller keeps to skip the pair until
/// they could have closed that far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Gap {
    /// A lower bound of their distance (m).
    pub distance: Real,
    /// A unit axis in A's frame, from A towards B, along which their projections were at
    /// least `distance` apart; zero where the query had none worth keeping.
    pub axis: Vector<Real>,
}

/// Identifies which features of the two shapes made a contact point, so that the next step can
/// recognise the same point and carry its impulses over (warm starting).
pub type FeatureId = u32;

/// The id of a feature made of features `a` and `b` (a clipped point of two edges, a corner
/// of a triangle...): a hash, so that the same two give the same id step after step.
pub(crate) fn mix(a: u32, b: u32) -> u32 {
    (a ^ b.wrapping_mul(0x9E37_79B1))
        .rotate_left(13)
        .wrapping_mul(0x85EB_CA6B)
        ^ b
}

/// One contact point.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifoldPoint {
    /// The point on A's surface (world).
    pub point_a: Point<Real>,
    /// The point on B's surface (world).
    pub point_b: Point<Real>,
    /// Signed distance along the normal (m): negative overlapping, positive apart (speculative).
    pub separation: Real,
    /// Features of A and B that made this point.
    pub id: FeatureId,
    /// Accumulated normal impulse (N s), kept for warm starting; the collision crate only
    /// carries it from step to step.
    pub normal_impulse: Real,
}

/// The contact between two shapes: a normal and up to four points.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Manifold {
    /// Unit normal from A to B (world).
    pub normal: Vector<Real>,
    /// The points; empty when the shapes are farther apart than the margin.
    pub points: SmallVec<[ManifoldPoint; 4]>,
    /// Which part of a mesh or height field made it (its first triangle's index); 0 for
    /// convex shapes and half-spaces.
    pub sub_shape: u32,
    /// Accumulated friction impulse (N s, world), applied at the points' centre: the solver
    /// holds one friction per manifold, kept in world space so that it survives the tangents
    /// turning with the normal. Carried from step to step like the points' impulses.
    pub friction_impulse: Vector<Real>,
    /// Accumulated twist friction impulse about the normal (N m s), likewise.
    pub twist_impulse: Real,
    /// Accumulated rolling resistance impulse (N m s, world), likewise.
    pub rolling_impulse: Vector<Real>,
}

/// For shapes found apart, how far apart (m) along their normal (world, unit, from A towards
/// B) they may lie and still be given points: the margin plus how far they can close along
/// that normal in a step (see `dispatch::manifold_or_gap`).
pub(crate) type KeepWithin<'k> = Option<&'k dyn Fn(&Vector<Real>) -> Real>;

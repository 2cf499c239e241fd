//! Which colliders a world query may report.

use crate::body::BodyKind;
use crate::collider::{Collider, CollisionGroups};
use crate::handle::{BodyHandle, ColliderHandle};

/// Which colliders a query sees. The default sees every collider; each builder call narrows it.
///
/// ```
/// use sprung::{ColliderBuilder, QueryFilter, RigidBodyBuilder, World};
/// use sprung::math::{Point, Vector};
///
/// let mut world = World::default();
/// let player = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
/// world.add_collider(ColliderBuilder::capsule(0.5, 0.3), player).unwrap();
/// let ground = world.add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -2.0, 0.0))).unwrap();
/// let slab = ColliderBuilder::cuboid(10.0, 1.0, 10.0).collision_groups(0b01, u32::MAX);
/// world.add_collider(slab, ground).unwrap();
///
/// // Looking down from the player's centre: skip the player itself.
/// let filter = QueryFilter::new().exclude_body(player);
/// let hit = world.cast_ray(Point::origin(), -Vector::y(), 10.0, true, &filter).unwrap().unwrap();
/// assert_eq!(hit.body, ground);
/// assert!((hit.toi - 1.0).abs() < 1e-5);
///
/// // Only colliders in group 2: the ground is in group 1, so nothing.
/// let filter = filter.groups(u32::MAX, 0b10);
/// assert!(world.cast_ray(Point::origin(), -Vector::y(), 10.0, true, &filter).unwrap().is_none());
///
/// // Any rule of the caller's: here, only colliders with friction above 0.9 (none).
/// let grippy = |_handle, collider: &sprung::Collider| collider.friction() > 0.9;
/// let filter = QueryFilter::new().predicate(&grippy);
/// assert!(world.cast_ray(Point::origin(), -Vector::y(), 10.0, true, &filter).unwrap().is_none());
/// ```
#[derive(Clone, Copy, Default)]
pub struct QueryFilter<'a> {
    exclude_body: Option<BodyHandle>,
    exclude_collider: Option<ColliderHandle>,
    groups: Option<CollisionGroups>,
    kinds: Kinds,
    exclude_sensors: bool,
    predicate: Option<Predicate<'a>>,
}

/// A caller's rule for which colliders a query sees ([`QueryFilter::predicate`]).
pub type Predicate<'a> = &'a dyn Fn(ColliderHandle, &Collider) -> bool;

impl std::fmt::Debug for QueryFilter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryFilter")
            .field("exclude_body", &self.exclude_body)
            .field("exclude_collider", &self.exclude_collider)
            .field("groups", &self.groups)
            .field("kinds", &self.kinds)
            .field("exclude_sensors", &self.exclude_sensors)
            .field("predicate", &self.predicate.is_some())
            .finish()
    }
}

/// Which kinds of body a query sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Kinds {
    #[default]
    All,
    Moving,
    Static,
}

impl<'a> QueryFilter<'a> {
    /// A filter that sees every collider.
    pub fn new() -> Self {
        Self::default()
    }

    /// Skips every collider of `body` (the caster's own body, typically).
    pub fn exclude_body(mut self, body: BodyHandle) -> Self {
        self.exclude_body = Some(body);
        self
    }

    /// Skips one collider.
    pub fn exclude_collider(mut self, collider: ColliderHandle) -> Self {
        self.exclude_collider = Some(collider);
        self
    }

    /// Sees only colliders that would touch a collider of these groups: the query belongs to
    /// `memberships` and sees groups in `filter`, both ways, as [`CollisionGroups::meet`].
    pub fn groups(mut self, memberships: u32, filter: u32) -> Self {
        self.groups = Some(CollisionGroups {
            memberships,
            filter,
        });
        self
    }

    /// Skips colliders of static bodies (replaces [`only_static`](Self::only_static)).
    pub fn exclude_static(mut self) -> Self {
        self.kinds = Kinds::Moving;
        self
    }

    /// Sees only colliders of static bodies (replaces [`exclude_static`](Self::exclude_static)).
    pub fn only_static(mut self) -> Self {
        self.kinds = Kinds::Static;
        self
    }

    /// Skips sensors.
    pub fn exclude_sensors(mut self) -> Self {
        self.exclude_sensors = true;
        self
    }

    /// Sees only the colliders for which `keep` returns true, after the other rules (it is
    /// not called for what they skip). Called once per candidate collider, in no set order.
    pub fn predicate(mut self, keep: Predicate<'a>) -> Self {
        self.predicate = Some(keep);
        self
    }

    /// Whether colliders of static bodies can pass.
    pub(crate) fn sees_static(&self) -> bool {
        self.kinds != Kinds::Moving
    }

    /// Whether colliders of dynamic and kinematic bodies can pass.
    pub(crate) fn sees_moving(&self) -> bool {
        self.kinds != Kinds::Static
    }

    /// Whether the query reports `collider` (handle `handle`, on a body of `kind`).
    pub(crate) fn accepts(
        &self,
        handle: ColliderHandle,
        collider: &Collider,
        kind: BodyKind,
    ) -> bool {
        let is_sensor = collider.sensor;
        let static_body = kind == BodyKind::Static;
        !(self.exclude_sensors && is_sensor)
            && self.exclude_body != Some(collider.body)
            && self.exclude_collider != Some(handle)
            && self.groups.is_none_or(|g| g.meet(&collider.groups))
            && if static_body {
                self.sees_static()
            } else {
                self.sees_moving()
            }
            && self.predicate.is_none_or(|keep| keep(handle, collider))
    }
}

//! Snapshots (feature `serde`): a world to bytes and back, bit for bit.
//!
//! What is saved is everything a later step reads: gravity and settings, the bodies, colliders
//! and joints in their slots (with the free slots in the order they will be reused), the hidden
//! anchor of world joints, the pair filters, the broad phase as it stands (endpoints, fat boxes,
//! pending changes), the pair cache with every manifold and its warm-starting impulses, and the
//! sleeping islands. A restored world therefore steps exactly as the saved one would have:
//! `save` after 300 steps, `restore`, 300 more steps gives the state hash of 600 steps.
//! Not saved: events not yet drained, the last step's report and limited springs, and scratch
//! buffers the step rebuilds.
//!
//! The restored world keeps the saved world's id, so handles kept from the saved world (in a
//! game's own save, say) work in the restored one; the two are then copies that accept the same
//! handles, as two clones would.
//!
//! Layout: an 8-byte magic `sprungSN`, the format version (u32, little-endian), the payload's
//! length (u64) and its FNV-1a 64 checksum (u64), then the payload (postcard). Bytes of another
//! version, truncated, corrupt (checksum) or undecodable are a typed [`SnapshotError`]; a payload
//! that decodes but breaks an invariant (a handle to nothing, a non-finite number, a shape its
//! constructor would refuse, broad-phase records that disagree) is refused by [`validate`]
//! before any world exists, so there is never a half-built world, and never a panic later.

use serde::{Deserialize, Serialize};

use super::*;
use crate::error::SnapshotError;
use crate::world::hash::StateHasher;

/// The first bytes of every snapshot.
const MAGIC: [u8; 8] = *b"sprungSN";
/// The format this build writes and reads. Raise it whenever what is saved changes.
pub const SNAPSHOT_VERSION: u32 = 18;
/// Magic, version, payload length, checksum.
const HEADER: usize = 8 + 4 + 8 + 8;

/// What is saved, borrowed from the world.
#[derive(Serialize)]
struct SavedRef<'w> {
    gravity: &'w Vector<Real>,
    settings: &'w SolverSettings,
    sleep: &'w SleepSettings,
    bodies: &'w Arena<RigidBody, BodyHandle>,
    colliders: &'w Arena<Collider, ColliderHandle>,
    joints: &'w Arena<Joint, JointHandle>,
    vehicles: &'w Arena<Vehicle, VehicleHandle>,
    ragdolls: &'w Arena<Ragdoll, RagdollHandle>,
    world_anchor: &'w Option<BodyHandle>,
    /// Sorted: a hash map's order is not the world's.
    no_collide: Vec<((u32, u32), u32)>,
    excluded: Vec<(u32, u32)>,
    broad_phase: &'w BroadPhase,
    narrow_phase: &'w NarrowPhase,
    islands: &'w Islands,
}

/// What is read back.
#[derive(Deserialize)]
struct Saved {
    gravity: Vector<Real>,
    settings: SolverSettings,
    sleep: SleepSettings,
    bodies: Arena<RigidBody, BodyHandle>,
    colliders: Arena<Collider, ColliderHandle>,
    joints: Arena<Joint, JointHandle>,
    vehicles: Arena<Vehicle, VehicleHandle>,
    ragdolls: Arena<Ragdoll, RagdollHandle>,
    world_anchor: Option<BodyHandle>,
    no_collide: Vec<((u32, u32), u32)>,
    excluded: Vec<(u32, u32)>,
    broad_phase: BroadPhase,
    narrow_phase: NarrowPhase,
    islands: Islands,
}

fn checksum(bytes: &[u8]) -> u64 {
    let mut hasher = StateHasher::new();
    for &b in bytes {
        hasher.byte(b);
    }
    hasher.finish()
}

impl World {
    /// The world as bytes, for [`World::restore`] (see the module doc for what is kept).
    ///
    /// ```
    /// use sprung::{ColliderBuilder, RigidBodyBuilder, World};
    /// use sprung::math::Vector;
    ///
    /// let mut world = World::default();
    /// let ball = world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 3.0, 0.0))).unwrap();
    /// world.add_collider(ColliderBuilder::ball(0.5), ball).unwrap();
    /// world.step(1.0 / 60.0).unwrap();
    /// let bytes = world.save();
    /// let mut copy = World::restore(&bytes).unwrap();
    /// world.step(1.0 / 60.0).unwrap();
    /// copy.step(1.0 / 60.0).unwrap();
    /// assert_eq!(world.state_hash(), copy.state_hash());
    /// assert!(copy.body(ball).is_some()); // the saved world's handles work in the copy
    /// ```
    pub fn save(&self) -> Vec<u8> {
        let mut no_collide: Vec<_> = self.no_collide.iter().map(|(&k, &v)| (k, v)).collect();
        no_collide.sort_unstable();
        let mut excluded: Vec<_> = self.excluded.iter().copied().collect();
        excluded.sort_unstable();
        let saved = SavedRef {
            gravity: &self.gravity,
            settings: &self.settings,
            sleep: &self.sleep,
            bodies: &self.bodies,
            colliders: &self.colliders,
            joints: &self.joints,
            vehicles: &self.vehicles,
            ragdolls: &self.ragdolls,
            world_anchor: &self.world_anchor,
            no_collide,
            excluded,
            broad_phase: &self.broad_phase,
            narrow_phase: &self.narrow_phase,
            islands: &self.islands,
        };
        // Serialising plain data into a Vec cannot fail.
        let payload = postcard::to_stdvec(&saved).expect("a world serialises");
        let mut bytes = Vec::with_capacity(HEADER + payload.len());
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&checksum(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    /// A world from the bytes of [`World::save`], or why not: another format version,
    /// truncated or corrupt bytes, or a payload that breaks the world's invariants. Never a
    /// panic, never a half-built world.
    pub fn restore(bytes: &[u8]) -> Result<World, Error> {
        let fail = |e| Err(Error::Snapshot(e));
        if bytes.len() < 8 || bytes[..8] != MAGIC {
            return fail(SnapshotError::NotASnapshot);
        }
        if bytes.len() < HEADER {
            return fail(SnapshotError::Truncated);
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version != SNAPSHOT_VERSION {
            return fail(SnapshotError::UnsupportedVersion(version));
        }
        let payload = &bytes[HEADER..];
        if word(12) != payload.len() as u64 {
            return fail(SnapshotError::Truncated);
        }
        if word(20) != checksum(payload) {
            return fail(SnapshotError::Corrupt);
        }
        World::restore_payload(payload)
    }

    /// [`World::restore`] without the header and checksum: decodes and validates a payload.
    /// For fuzzing the validation, which the checksum would otherwise keep random bytes from.
    #[doc(hidden)]
    pub fn restore_payload(payload: &[u8]) -> Result<World, Error> {
        let saved: Saved =
            postcard::from_bytes(payload).map_err(|_| Error::Snapshot(SnapshotError::Corrupt))?;
        let mut world = World::new(saved.gravity)
            .map_err(|_| Error::Snapshot(SnapshotError::Inconsistent("gravity")))?;
        validate(&saved).map_err(|what| Error::Snapshot(SnapshotError::Inconsistent(what)))?;
        world.settings = saved.settings;
        world.sleep = saved.sleep;
        world.bodies = saved.bodies;
        world.colliders = saved.colliders;
        for (_, collider) in world.colliders.iter_mut() {
            collider.thickness = collider.shape.thickness();
        }
        world.joints = saved.joints;
        let kinds = world.joints.iter().map(|(_, joint)| &joint.kind);
        world.ray_springs = kinds
            .filter(|kind| matches!(kind, JointKind::RaySpring(_)))
            .count();
        world.vehicles = saved.vehicles;
        world.ragdolls = saved.ragdolls;
        world.world_anchor = saved.world_anchor;
        world.no_collide = saved.no_collide.into_iter().collect();
        world.excluded = saved.excluded.into_iter().collect();
        world.broad_phase = saved.broad_phase;
        world.narrow_phase = saved.narrow_phase;
        world.islands = saved.islands;
        // Where the bodies stand against their broad-phase boxes is not saved: queries walk
        // every moving body until the next step.
        world.query_slack = Real::INFINITY;
        if !world.narrow_phase.reindex() {
            return Err(Error::Snapshot(SnapshotError::Inconsistent(
                "a contact pair twice or out of order",
            )));
        }
        Ok(world)
    }
}

/// Every invariant the step relies on, checked on the decoded parts; the text says which broke.
fn validate(s: &Saved) -> Result<(), &'static str> {
    let world = s.bodies.world();
    let arenas = s.bodies.is_consistent()
        && s.colliders.is_consistent()
        && s.joints.is_consistent()
        && s.vehicles.is_consistent()
        && s.ragdolls.is_consistent();
    if !arenas {
        return Err("slot bookkeeping");
    }
    let worlds = [
        s.colliders.world(),
        s.joints.world(),
        s.vehicles.world(),
        s.ragdolls.world(),
    ];
    if worlds.iter().any(|&w| w != world) {
        return Err("world ids");
    }
    crate::settings::check_solver(&s.settings).map_err(|_| "solver settings")?;
    crate::settings::check_sleep(&s.sleep).map_err(|_| "sleep settings")?;
    for (slot, body) in s.bodies.iter() {
        body.check().map_err(|_| "a body's values")?;
        let handle: BodyHandle = s.bodies.handle(slot);
        for &c in &body.colliders {
            if s.colliders.get(c).map(|c| c.body) != Some(handle) {
                return Err("a body's colliders");
            }
        }
    }
    for (slot, collider) in s.colliders.iter() {
        collider.check().map_err(|_| "a collider's values")?;
        let handle: ColliderHandle = s.colliders.handle(slot);
        let owned = s
            .bodies
            .get(collider.body)
            .is_some_and(|b| b.colliders.contains(&handle));
        let mapped = s.broad_phase.payload(collider.proxy) == Some(slot)
            && s.broad_phase.fat_aabb(collider.proxy).is_some();
        if !(owned && mapped) {
            return Err("a collider's body or proxy");
        }
        // A sleeping body's colliders are not placed again until it wakes: the step takes
        // their saved poses as its body's (an awake one's are placed, and any move counted).
        let body = s.bodies.get(collider.body).expect("owned, so live");
        if body.is_sleeping() && body.pose * collider.local_pose != collider.world_pose {
            return Err("a sleeping body's collider pose");
        }
    }
    for proxy in 0..s.broad_phase.id_bound() {
        let id = ProxyId(proxy as u32);
        let ok = s
            .broad_phase
            .payload(id)
            .is_none_or(|slot| s.colliders.is_live(slot) && s.colliders.at(slot).proxy == id);
        if !ok {
            return Err("the proxies' colliders");
        }
    }
    for (_, joint) in s.joints.iter() {
        let live = s.bodies.get(joint.body_a).is_some() && s.bodies.get(joint.body_b).is_some();
        if !live || joint.body_a == joint.body_b {
            return Err("a joint's bodies");
        }
        joint.check().map_err(|_| "a joint's values")?;
    }
    for (_, vehicle) in s.vehicles.iter() {
        if s.bodies.get(vehicle.chassis).map(|b| b.kind) != Some(BodyKind::Dynamic) {
            return Err("a vehicle's chassis");
        }
        vehicle.check().map_err(|_| "a vehicle's values")?;
    }
    for (_, ragdoll) in s.ragdolls.iter() {
        let parts = ragdoll.parts.len();
        let bodies = ragdoll.bodies.iter().all(|&b| s.bodies.get(b).is_some());
        let joints = ragdoll
            .joints
            .iter()
            .flatten()
            .all(|&j| s.joints.get(j).is_some());
        if ragdoll.bodies.len() != parts || ragdoll.joints.len() != parts || !bodies || !joints {
            return Err("a ragdoll's bodies or joints");
        }
    }
    if let Some(anchor) = s.world_anchor {
        if s.bodies.get(anchor).map(|b| b.kind) != Some(BodyKind::Static) {
            return Err("the world joints' anchor");
        }
    }
    // Constants of the engine, saved with the structures that hold them.
    if s.broad_phase.margin() != BROAD_PHASE_MARGIN
        || s.narrow_phase.margin() != SPECULATIVE_DISTANCE
    {
        return Err("margins");
    }
    if !s.broad_phase.is_consistent() {
        return Err("the broad phase");
    }
    for c in s.narrow_phase.contacts() {
        let live = |p: ProxyId| s.broad_phase.payload(p).is_some();
        if !(live(c.pair.a) && live(c.pair.b)) {
            return Err("a contact pair's colliders");
        }
        let finite = c.peak_impulse.is_finite()
            && c.manifolds.iter().all(|m| {
                m.normal.iter().all(|x| x.is_finite())
                    && m.friction_impulse.iter().all(|x| x.is_finite())
                    && m.twist_impulse.is_finite()
                    && m.rolling_impulse.iter().all(|x| x.is_finite())
                    && m.points.iter().all(|p| {
                        p.point_a
                            .iter()
                            .chain(p.point_b.iter())
                            .all(|x| x.is_finite())
                            && p.separation.is_finite()
                            && p.normal_impulse.is_finite()
                    })
            });
        if !finite {
            return Err("a contact's numbers");
        }
        if !c.cache_is_consistent() {
            return Err("a contact's cache");
        }
    }
    if !s.islands.is_consistent(&s.bodies) {
        return Err("the sleeping islands");
    }
    Ok(())
}

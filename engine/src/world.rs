//! The world: bodies, colliders, and the step that moves them.
//!
//! This file holds the world's data and what users call to change it. The rest is in files of
//! their own under `world/`:
//! - `step`: `World::step`, which reads top to bottom, calling the stages in order;
//! - the stages: `collide` (colliders placed, broad and narrow phase), `sleeping` (waking and
//!   islands), `rows` (contacts into the solver), `joint_rows` (joints into the solver and
//!   back, ray springs' casts, breaking joints), `vehicles` (wheels' casts and rows, their
//!   state after the solve), `quarantine` (bodies whose numbers ran away), `events` (contacts
//!   and sensors that began or ended), `ccd` (continuous collision);
//! - what users call besides: `joints` (motors, limits and springs at run time), `ragdolls`,
//!   `filters` (excluded pairs), `contacts` (reading the step's contacts), `queries` (what
//!   the queries read), `obstacles` (the world for the spring toolkit's mass-spring system),
//!   `hash` (the state as one number), `snapshot` (to bytes and back).

use std::collections::{HashMap, HashSet};

use parry3d::bounding_volume::BoundingVolume;
use parry3d::math::{Isometry, Point, Real, Vector};
use sprung_collision::broad_phase::{BroadPhase, PairEvent, ProxyId, ProxyPair};
use sprung_collision::narrow_phase::{NarrowPhase, ProxyShapes};
use sprung_collision::shape::Shape;
use sprung_solver::body::Motion;
use sprung_solver::body::{Bodies, STATIC};
use sprung_solver::contact::{Contact, ContactMaterial, ContactPointInput};
use sprung_solver::joint::{
    BallImpulses, BallJoint, BallSettings, DistanceImpulses, DistanceJoint, JointFrame,
    JointImpulses, RaySpringSettings,
};
use sprung_solver::pgs::Solver;
use sprung_solver::settings::SolverSettings;
use sprung_spring::FixedStepper;

use crate::body::{BodyKind, Mass, RigidBody, RigidBodyBuilder};
use crate::collider::{Collider, ColliderBuilder};
use crate::error::Error;
use crate::event::Event;
use crate::handle::{Arena, BodyHandle, ColliderHandle, JointHandle, RagdollHandle, VehicleHandle};
use crate::integrate;
use crate::joint::{FixedSettings, Joint, JointBuilder, JointKind, SliderSettings};
use crate::limits;
use crate::ragdoll::Ragdoll;
use crate::sleep::{Islands, SleepSettings};
use crate::vehicle::Vehicle;

mod ccd;
mod collide;
mod contacts;
mod events;
mod filters;
mod hash;
mod joint_rows;
mod joints;
mod obstacles;
mod quarantine;
mod queries;
mod ragdolls;
mod rows;
mod sleeping;
#[cfg(feature = "serde")]
mod snapshot;
mod step;
mod vehicles;
use collide::ProxyMotion;

#[cfg(feature = "serde")]
pub use snapshot::SNAPSHOT_VERSION;

/// How much the broad phase fattens every box (m): bodies moving less than this between steps
/// cost the broad phase nothing. With the half speculative distance every box already has,
/// shapes 0.04 m apart are paired when their boxes are refitted, Rapier's default skin; 0.1
/// (Box2D's) kept ten times the pairs the piles of `boxes` and `balls` touch with (their
/// neighbours 0.2 and 0.1 m apart) and made their collide stage three times as long.
const BROAD_PHASE_MARGIN: Real = 0.03;
/// Contact points are kept up to this far apart (m) at rest; moving bodies add the distance
/// they can travel towards each other in one step, so that speculative points stop them before
/// they touch: along the normal a query finds, the part of their relative velocity that closes
/// along it plus their surfaces' turning (a pair moving apart, or past each other, gets none).
const SPECULATIVE_DISTANCE: Real = 0.02;
/// No body reaches further than this per step for speculative contacts (m); faster bodies are
/// the business of continuous collision.
const MAX_SPECULATIVE_DISTANCE: Real = 2.0;

/// What one step did and what it cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Dynamic bodies.
    pub dynamic_bodies: usize,
    /// Pairs with contact points that the step solved (pairs asleep are not counted).
    pub contact_pairs: usize,
    /// Contact points.
    pub contact_points: usize,
    /// Pairs whose manifold the narrow phase reused from an earlier step instead of making it
    /// again: they had moved less than the recycling tolerance relative to each other
    /// (`sprung_collision::recycle::RECYCLE_DISTANCE`).
    pub recycled_pairs: usize,
    /// Pairs of colliders that may touch whose boxes the broad phase found overlapping: the
    /// narrow phase's work list, touching or not (each is one record it walks every step).
    pub broad_phase_pairs: usize,
    /// Wall time of the collision stages (broad and narrow phase), ms. This and the other
    /// wall times read zero without the `timings` feature (default).
    pub collide_ms: f64,
    /// Wall time of the broad phase, ms (part of `collide_ms`).
    pub broad_phase_ms: f64,
    /// Wall time of the narrow phase and of waking what it found touching, ms (part of
    /// `collide_ms`).
    pub narrow_phase_ms: f64,
    /// Wall time of the solve stage (rows built, substeps of integration and constraints,
    /// impulses stored, contact events), ms.
    pub solve_ms: f64,
    /// Wall time of gathering the bodies for the solver and writing them back, ms.
    pub integrate_ms: f64,
    /// Wall time of continuous collision, joint breaking and islands after the solve, ms.
    pub after_ms: f64,
    /// Springs the engine limited this step (attachments held to their force cap, springs too
    /// stiff for the substep to follow exactly): listed by [`World::limited_springs`].
    pub limited_springs: usize,
    /// Bodies the step quarantined: their state stopped being finite or passed a speed limit
    /// (see [`RigidBody::is_quarantined`]); each is also an [`Event::BodyQuarantined`].
    pub quarantined: usize,
}

/// A spring the engine held back in the last step, and how.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LimitedSpring {
    /// The joint.
    pub joint: JointHandle,
    /// What held it back.
    pub limit: SpringLimit,
}

/// How a spring was held back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpringLimit {
    /// An attachment reached its force cap.
    ForceCap {
        /// The force it asked for (N).
        wanted: Real,
        /// The force it was allowed (N): its cap.
        allowed: Real,
    },
    /// The spring is too stiff and too lightly damped for the substep to follow its
    /// oscillation exactly (above about a sixth of the substep rate; see
    /// [`sprung_solver::softness::SpringSoftness`]): it was solved implicitly instead, stable
    /// but damped more than asked. More substeps, or more damping, make it exact again.
    TooStiff,
}

/// A physics world: gravity, settings, bodies with their colliders, and the step.
///
/// ```
/// use sprung::{ColliderBuilder, RigidBodyBuilder, World};
/// use sprung::math::Vector;
///
/// let mut world = World::default();
/// let ground = world.add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0))).unwrap();
/// world.add_collider(ColliderBuilder::cuboid(50.0, 1.0, 50.0), ground).unwrap();
/// let cube = world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 2.0, 0.0))).unwrap();
/// world.add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), cube).unwrap();
/// for _ in 0..120 {
///     world.step(1.0 / 60.0).unwrap();
/// }
/// // The cube has fallen and rests on the ground (its centre half a metre up).
/// assert!((world.body(cube).unwrap().translation().y - 0.5).abs() < 0.01);
/// ```
pub struct World {
    gravity: Vector<Real>,
    /// Solver settings: substeps, iterations, contact and joint softness, restitution threshold (checked by
    /// `set_settings`).
    settings: SolverSettings,
    /// When islands fall asleep (on by default; checked by `set_sleep_settings`).
    sleep: SleepSettings,
    bodies: Arena<RigidBody, BodyHandle>,
    colliders: Arena<Collider, ColliderHandle>,
    joints: Arena<Joint, JointHandle>,
    /// How many of the joints are ray springs: the step casts their rays only when there are
    /// any (the walk over every joint slot cost `joint_grid100` 19,800 matches a step).
    ray_springs: usize,
    /// The vehicles (`crate::vehicle`): their wheels are rows of the solve.
    vehicles: Arena<Vehicle, VehicleHandle>,
    /// The ragdolls (`crate::ragdoll`): their bodies and joints, by part.
    ragdolls: Arena<Ragdoll, RagdollHandle>,
    /// The static body that world joints (attachments, uprights, motors) hold on to: created
    /// with the first of them, fixed at the origin, without colliders.
    world_anchor: Option<BodyHandle>,
    /// Body slot pairs (smaller first) joined by joints that turn their collision off, with how
    /// many such joints join them. Read only when a pair begins.
    no_collide: HashMap<(u32, u32), u32>,
    /// Body slot pairs the user told not to collide. Read only when a pair begins.
    excluded: HashSet<(u32, u32)>,
    broad_phase: BroadPhase,
    narrow_phase: NarrowPhase,
    solver: Solver,
    /// For each solver contact (by position, its `user_index`): the narrow-phase pair and the
    /// manifold within it that it was built from.
    contact_sources: Vec<(u32, u32)>,
    /// How many contacts each block's worker wrote in `build_contacts` (`None`: out of room).
    contact_counts: Vec<Option<usize>>,
    /// The blocks `report_touching` walks on several workers (empty: one walk).
    report_blocks: Vec<rows::ReportBlock>,
    /// Each joint slot's bodies and the list its kind goes to, and which list each goes to
    /// this step (`build_joints`).
    joint_table: joint_rows::JointTable,
    /// Which moving bodies (by place in the solver's list) `solve_continuous` sweeps.
    swept: Vec<bool>,
    /// Each of those workers' events, added to `events` in block order.
    block_events: Vec<Vec<Event>>,
    /// How far a moving collider can be outside its broad-phase box (m): the step moves the
    /// bodies after the broad phase is updated, and `place_colliders` grows this by each
    /// collider's motion; the next update resets it. Queries search the broad phase with their
    /// reach grown by it. Infinite when unknown (a world just restored): queries then walk every
    /// moving body.
    query_slack: Real,
    /// Bodies teleported by `set_pose` since the broad phase was updated (their colliders are
    /// anywhere): queries test them one by one.
    teleported: Vec<u32>,
    /// What the narrow phase reads of each proxy for every pair, every step, kept compact
    /// (filled as the colliders are moved, world/collide.rs): reaching it through the
    /// collider and body arenas cost several cache misses a pair.
    proxy_motion: Vec<ProxyMotion>,
    /// The boxes each worker's run of colliders hands the broad phase (kept from step to
    /// step for their room).
    new_boxes: Vec<Vec<(ProxyId, parry3d::bounding_volume::Aabb)>>,
    /// Every collider rested and none had moved when the broad phase was last updated (the
    /// narrow phase then has nothing to do: [`sprung_collision::narrow_phase::ProxyShapes::all_at_rest`]).
    proxies_at_rest: bool,
    solver_bodies: Bodies,
    /// The body slot of each solver body.
    solver_slots: Vec<u32>,
    /// What writing the contacts reads of the colliders and bodies (world/rows.rs).
    contact_tables: rows::ContactTables,
    islands: Islands,
    pair_events: Vec<PairEvent>,
    kept_events: Vec<PairEvent>,
    events: Vec<Event>,
    /// Body slots quarantined before this step's solve (world/quarantine.rs).
    runaways: Vec<u32>,
    broken: Vec<(JointHandle, Real)>,
    limited: Vec<LimitedSpring>,
}

impl Default for World {
    /// Earth gravity along -Y and the default solver settings.
    fn default() -> Self {
        World::new(Vector::new(0.0, -9.81, 0.0)).expect("finite gravity")
    }
}

impl World {
    /// An empty world with `gravity` (m/s^2).
    pub fn new(gravity: Vector<Real>) -> Result<World, Error> {
        check_gravity(&gravity)?;
        let id = crate::handle::new_world_id();
        Ok(World {
            gravity,
            settings: SolverSettings::default(),
            sleep: SleepSettings::default(),
            bodies: Arena::new(id),
            colliders: Arena::new(id),
            joints: Arena::new(id),
            ray_springs: 0,
            vehicles: Arena::new(id),
            ragdolls: Arena::new(id),
            world_anchor: None,
            no_collide: HashMap::new(),
            excluded: HashSet::new(),
            broad_phase: BroadPhase::new(BROAD_PHASE_MARGIN),
            narrow_phase: NarrowPhase::new(SPECULATIVE_DISTANCE),
            solver: Solver::default(),
            contact_sources: Vec::new(),
            contact_counts: Vec::new(),
            report_blocks: Vec::new(),
            joint_table: joint_rows::JointTable::default(),
            swept: Vec::new(),
            block_events: Vec::new(),
            query_slack: 0.0,
            teleported: Vec::new(),
            proxy_motion: Vec::new(),
            new_boxes: Vec::new(),
            proxies_at_rest: false,
            solver_bodies: Bodies::default(),
            solver_slots: Vec::new(),
            contact_tables: rows::ContactTables::default(),
            islands: Islands::default(),
            pair_events: Vec::new(),
            kept_events: Vec::new(),
            events: Vec::new(),
            runaways: Vec::new(),
            broken: Vec::new(),
            limited: Vec::new(),
        })
    }

    /// Gravity (m/s^2).
    pub fn gravity(&self) -> Vector<Real> {
        self.gravity
    }

    /// Sets gravity (m/s^2); refused if not finite.
    pub fn set_gravity(&mut self, gravity: Vector<Real>) -> Result<(), Error> {
        check_gravity(&gravity)?;
        self.gravity = gravity;
        Ok(())
    }

    /// The solver settings.
    pub fn settings(&self) -> &SolverSettings {
        &self.settings
    }

    /// Replaces the solver settings, if every field is in its range (see [`crate::settings`]);
    /// refused settings change nothing.
    ///
    /// ```
    /// use sprung::{Error, SolverSettings, World};
    ///
    /// let mut world = World::default();
    /// world.set_settings(SolverSettings { substeps: 4, ..*world.settings() }).unwrap();
    /// let bad = SolverSettings { joint_damping_ratio: f32::NAN, ..*world.settings() };
    /// assert_eq!(world.set_settings(bad), Err(Error::NonFinite("solver settings")));
    /// assert_eq!(world.settings().substeps, 4);
    /// ```
    pub fn set_settings(&mut self, settings: SolverSettings) -> Result<(), Error> {
        crate::settings::check_solver(&settings)?;
        self.settings = settings;
        Ok(())
    }

    /// When islands fall asleep.
    pub fn sleep_settings(&self) -> &SleepSettings {
        &self.sleep
    }

    /// Replaces the sleep settings, if every field is in its range (see [`crate::settings`]);
    /// refused settings change nothing. Turning sleeping off wakes every body at the next step.
    pub fn set_sleep_settings(&mut self, sleep: SleepSettings) -> Result<(), Error> {
        crate::settings::check_sleep(&sleep)?;
        self.sleep = sleep;
        Ok(())
    }

    /// Turns sleeping on or off (on by default); off keeps every body awake, the raw cost of a
    /// step.
    pub fn set_sleeping(&mut self, enabled: bool) {
        self.sleep.enabled = enabled;
    }

    /// Adds a body (without colliders: add them with [`World::add_collider`]).
    pub fn add_body(&mut self, builder: RigidBodyBuilder) -> Result<BodyHandle, Error> {
        let body = builder.build()?;
        Ok(self.bodies.insert(body))
    }

    /// Attaches a collider to `body`; a dynamic body's mass follows its colliders (unless set by
    /// hand).
    pub fn add_collider(
        &mut self,
        builder: ColliderBuilder,
        body: BodyHandle,
    ) -> Result<ColliderHandle, Error> {
        let owner = self.body(body).ok_or(Error::StaleHandle)?;
        let mut collider = builder.build(body)?;
        if collider.shape.is_static_only() && owner.kind != BodyKind::Static {
            return Err(Error::StaticOnlyShape);
        }
        collider.world_pose = owner.pose * collider.local_pose;
        let aabb = collider.shape.aabb(&collider.world_pose);
        let proxy = self
            .broad_phase
            .insert(aabb)
            .map_err(|_| Error::NonFinite("collider bounds"))?;
        collider.proxy = proxy;
        let handle: ColliderHandle = self.colliders.insert(collider);
        self.contact_tables.stale = true;
        // The proxy carries its collider's slot: pairs of proxies are pairs of colliders.
        self.broad_phase.set_payload(proxy, handle.index);
        let owner = self.bodies.get_mut(body).expect("checked above");
        owner.colliders.push(handle);
        self.update_mass(body);
        self.wake(body);
        Ok(handle)
    }

    /// Recomputes a body's mass from its colliders' densities (unless it was set by hand).
    fn update_mass(&mut self, handle: BodyHandle) {
        let body = self.bodies.at(handle.index);
        if body.fixed_mass {
            return;
        }
        let mut total = parry3d::mass_properties::MassProperties::default();
        for c in &body.colliders {
            let collider = self.colliders.at(c.index);
            if collider.sensor {
                continue;
            }
            total += collider
                .shape
                .mass_properties(collider.density)
                .transform_by(&collider.local_pose);
        }
        // Clamped into the ranges of `limits`: a tiny or huge compound still gets a mass the
        // solver can invert (documented there).
        let mass = if total.mass() > 0.0 && total.principal_inertia().iter().all(|&i| i > 0.0) {
            Mass {
                mass: total.mass().clamp(limits::MIN_MASS, limits::MAX_MASS),
                local_center: total.local_com,
                principal_inertia: total
                    .principal_inertia()
                    .map(|i| i.clamp(limits::MIN_INERTIA, limits::MAX_INERTIA)),
                principal_frame: total.principal_inertia_local_frame,
            }
        } else {
            Mass::UNIT
        };
        self.bodies.at_mut(handle.index).mass = mass;
    }

    /// Joins bodies `a` and `b` (anchors in the builder are in each body's frame).
    pub fn add_joint(
        &mut self,
        builder: JointBuilder,
        a: BodyHandle,
        b: BodyHandle,
    ) -> Result<JointHandle, Error> {
        if self.body(a).is_none() || self.body(b).is_none() {
            return Err(Error::StaleHandle);
        }
        if builder.is_world_only() {
            return Err(Error::NotApplicable(
                "add_joint: attachments, upright springs and motors join a body to the world: \
                 use add_world_joint",
            ));
        }
        self.join(builder, a, b)
    }

    /// Joins two live bodies, the hidden anchor of world joints among them.
    fn join(
        &mut self,
        builder: JointBuilder,
        a: BodyHandle,
        b: BodyHandle,
    ) -> Result<JointHandle, Error> {
        if a == b {
            return Err(Error::SameBody);
        }
        let mut joint = builder.build(a, b)?;
        // Capture the relative orientation the joint will hold (its angle zero).
        let (qa, qb) = (
            self.bodies.at(a.index).pose.rotation,
            self.bodies.at(b.index).pose.rotation,
        );
        match &mut joint.kind {
            JointKind::Fixed(FixedSettings { relative, .. })
            | JointKind::Slider(SliderSettings { relative, .. }) => *relative = qa.inverse() * qb,
            JointKind::Hinge(h) => {
                let across = sprung_solver::contact::tangents(&h.axis_a)[0];
                h.references = (across, qb.inverse() * (qa * across));
            }
            // B carries A's frame (or axis) from the pose it is added in.
            JointKind::SwingTwist(st) => st.frame_b = qb.inverse() * qa * st.frame_a,
            JointKind::Ball(BallSettings {
                cone: Some(cone), ..
            }) => cone.axis_b = qb.inverse() * (qa * cone.axis_a),
            _ => {}
        }
        if !joint.collide {
            *self.no_collide.entry(body_pair(a, b)).or_insert(0) += 1;
            self.drop_pairs(a, b);
        }
        self.ray_springs += usize::from(matches!(joint.kind, JointKind::RaySpring(_)));
        let handle = self.joints.insert(joint);
        self.joint_table.stale = true;
        self.wake(a);
        self.wake(b);
        Ok(handle)
    }

    /// Joins `body` to the world: attachments, upright springs and motors, or any joint whose
    /// anchor A is then a fixed point of the world.
    pub fn add_world_joint(
        &mut self,
        builder: JointBuilder,
        body: BodyHandle,
    ) -> Result<JointHandle, Error> {
        self.body(body).ok_or(Error::StaleHandle)?;
        // Checked before the anchor exists, so that a refused joint leaves no anchor behind.
        builder.clone().build(body, body)?;
        let anchor = match self.world_anchor {
            Some(anchor) => anchor,
            None => {
                let anchor = self.add_body(RigidBodyBuilder::fixed())?;
                self.world_anchor = Some(anchor);
                anchor
            }
        };
        self.join(builder, anchor, body)
    }

    /// Moves an attachment's target to `target` (world, where it is as the next step begins),
    /// travelling at `velocity` (m/s) through the step: the body follows without lagging.
    pub fn set_attachment_target(
        &mut self,
        handle: JointHandle,
        target: Point<Real>,
        velocity: Vector<Real>,
    ) -> Result<(), Error> {
        limits::position("attachment target", &target.coords)?;
        limits::linear_velocity(&velocity)?;
        let joint = self.joints.get_mut(handle).ok_or(Error::StaleHandle)?;
        match &mut joint.kind {
            JointKind::Attachment(attachment) => {
                attachment.target_velocity = velocity;
                joint.local_anchor_a = target;
                let body = joint.body_b;
                self.wake(body);
                Ok(())
            }
            _ => Err(Error::WrongJointKind),
        }
    }

    /// Removes a joint.
    pub fn remove_joint(&mut self, handle: JointHandle) -> Result<Joint, Error> {
        let joint = self.joints.remove(handle).ok_or(Error::StaleHandle)?;
        self.joint_table.stale = true;
        self.ray_springs -= usize::from(matches!(joint.kind, JointKind::RaySpring(_)));
        for body in [joint.body_a, joint.body_b] {
            if self.body(body).is_some() {
                self.wake(body);
            }
        }
        if !joint.collide {
            let key = body_pair(joint.body_a, joint.body_b);
            if let Some(count) = self.no_collide.get_mut(&key) {
                *count -= 1;
                if *count == 0 {
                    self.no_collide.remove(&key);
                    self.restore_pairs(joint.body_a, joint.body_b);
                }
            }
        }
        Ok(joint)
    }

    /// The joint, if the handle is live.
    pub fn joint(&self, handle: JointHandle) -> Option<&Joint> {
        self.joints.get(handle)
    }

    /// Calls `f` on every collider whose (fattened) bounding box overlaps `aabb`, as of the last
    /// step: the broad phase prunes, the caller tests the shapes.
    pub fn colliders_in(
        &self,
        aabb: &parry3d::bounding_volume::Aabb,
        mut f: impl FnMut(&Collider),
    ) {
        self.broad_phase.query_aabb(aabb, |proxy| {
            if let Some(slot) = self.broad_phase.payload(proxy) {
                f(self.colliders.at(slot));
            }
        });
    }

    /// Every joint with its handle, in a fixed order.
    pub fn joints(&self) -> impl Iterator<Item = (JointHandle, &Joint)> {
        self.joints
            .iter()
            .map(|(index, joint)| (self.joints.handle(index), joint))
    }

    /// Removes a body, its colliders, its joints and their contacts; what touched it wakes.
    pub fn remove_body(&mut self, handle: BodyHandle) -> Result<RigidBody, Error> {
        self.body(handle).ok_or(Error::StaleHandle)?;
        let attached: Vec<JointHandle> = self
            .joints()
            .filter(|(_, j)| j.body_a == handle || j.body_b == handle)
            .map(|(h, _)| h)
            .collect();
        for joint in attached {
            self.remove_joint(joint)?;
        }
        // A ragdoll without one of its bodies is a ragdoll no more (its other bodies stay).
        let ragdolls = self
            .ragdolls
            .iter()
            .filter(|(_, r)| r.bodies.contains(&handle));
        let ragdolls: Vec<u32> = ragdolls.map(|(index, _)| index).collect();
        for index in ragdolls {
            let ragdoll = self.ragdolls.handle(index);
            self.ragdolls.remove(ragdoll);
        }
        let vehicles = self.vehicles.iter().filter(|(_, v)| v.chassis == handle);
        let vehicles: Vec<u32> = vehicles.map(|(index, _)| index).collect();
        for index in vehicles {
            let vehicle = self.vehicles.handle(index);
            self.remove_vehicle(vehicle)?;
        }
        self.islands.forget(&mut self.bodies, handle.index);
        self.excluded
            .retain(|&(x, y)| x != handle.index && y != handle.index);
        let colliders = self.bodies.at(handle.index).colliders.clone();
        for c in colliders {
            self.detach_collider(c);
        }
        self.teleported.retain(|&b| b != handle.index);
        self.bodies.remove(handle).ok_or(Error::StaleHandle)
    }

    /// Removes a collider; its body's mass follows, and what touched it wakes.
    pub fn remove_collider(&mut self, handle: ColliderHandle) -> Result<(), Error> {
        let owner = self.collider(handle).ok_or(Error::StaleHandle)?.body;
        self.detach_collider(handle);
        self.wake(owner);
        let body = self.bodies.at_mut(owner.index);
        body.colliders.retain(|c| *c != handle);
        self.update_mass(owner);
        Ok(())
    }

    /// Takes a live collider out of the arena and the broad phase, ending its pairs at once (a
    /// touching one reports its contact ended) so that no pair outlives its collider.
    fn detach_collider(&mut self, handle: ColliderHandle) {
        let Some(collider) = self.colliders.get(handle) else {
            return;
        };
        let proxy = collider.proxy;
        self.end_pairs_of(proxy);
        self.detach_proxy(proxy);
        self.colliders.remove(handle);
        self.contact_tables.stale = true;
    }

    fn detach_proxy(&mut self, proxy: ProxyId) {
        self.broad_phase.remove(proxy);
    }

    /// The collider behind broad-phase proxy `proxy` (its payload), if it still has one.
    fn collider_of(&self, proxy: ProxyId) -> Option<&Collider> {
        Some(self.colliders.at(self.broad_phase.payload(proxy)?))
    }

    /// The body, if the handle is live (and is not the hidden body world joints hold on to).
    pub fn body(&self, handle: BodyHandle) -> Option<&RigidBody> {
        if Some(handle) == self.world_anchor {
            return None;
        }
        self.bodies.get(handle)
    }

    /// The collider, if the handle is live.
    pub fn collider(&self, handle: ColliderHandle) -> Option<&Collider> {
        self.colliders.get(handle)
    }

    /// Every body with its handle, in a fixed order (not the hidden body that world joints hold
    /// on to).
    pub fn bodies(&self) -> impl Iterator<Item = (BodyHandle, &RigidBody)> {
        let anchor = self.world_anchor;
        self.bodies
            .iter()
            .map(|(index, body)| (self.bodies.handle(index), body))
            .filter(move |(handle, _)| Some(*handle) != anchor)
    }

    /// Number of bodies (not counting the hidden one world joints hold on to).
    pub fn body_count(&self) -> usize {
        self.bodies.len() - usize::from(self.world_anchor.is_some())
    }

    fn body_mut(&mut self, handle: BodyHandle) -> Result<&mut RigidBody, Error> {
        if Some(handle) == self.world_anchor {
            return Err(Error::StaleHandle);
        }
        self.bodies.get_mut(handle).ok_or(Error::StaleHandle)
    }

    fn moving_body_mut(&mut self, handle: BodyHandle) -> Result<&mut RigidBody, Error> {
        let body = self.body_mut(handle)?;
        if body.kind == BodyKind::Static {
            return Err(Error::WrongBodyKind);
        }
        Ok(body)
    }

    fn dynamic_body_mut(&mut self, handle: BodyHandle) -> Result<&mut RigidBody, Error> {
        let body = self.body_mut(handle)?;
        if body.kind != BodyKind::Dynamic {
            return Err(Error::WrongBodyKind);
        }
        Ok(body)
    }

    /// Sets the linear velocity (m/s) of a dynamic or kinematic body.
    pub fn set_linear_velocity(
        &mut self,
        handle: BodyHandle,
        v: Vector<Real>,
    ) -> Result<(), Error> {
        limits::linear_velocity(&v)?;
        self.moving_body_mut(handle)?.linear_velocity = v;
        self.wake(handle);
        Ok(())
    }

    /// Sets the angular velocity (rad/s) of a dynamic or kinematic body.
    pub fn set_angular_velocity(
        &mut self,
        handle: BodyHandle,
        w: Vector<Real>,
    ) -> Result<(), Error> {
        limits::angular_velocity(&w)?;
        self.moving_body_mut(handle)?.angular_velocity = w;
        self.wake(handle);
        Ok(())
    }

    /// Teleports a body to `pose` (its colliders follow at the next step).
    pub fn set_pose(&mut self, handle: BodyHandle, pose: Isometry<Real>) -> Result<(), Error> {
        let pose = limits::pose("pose", "rotation", &pose)?;
        let body = self.body_mut(handle)?;
        body.pose = pose;
        body.previous_pose = pose;
        body.quarantined = false;
        if !self.teleported.contains(&handle.index) {
            self.teleported.push(handle.index);
        }
        self.wake(handle);
        self.wake_neighbours(handle);
        Ok(())
    }

    /// Moves a kinematic body so that it reaches `target` at the end of the next step, pushing
    /// what is in its way.
    pub fn set_kinematic_target(
        &mut self,
        handle: BodyHandle,
        target: Isometry<Real>,
    ) -> Result<(), Error> {
        let target = limits::pose("kinematic target", "kinematic target rotation", &target)?;
        let body = self.body_mut(handle)?;
        if body.kind != BodyKind::Kinematic {
            return Err(Error::WrongBodyKind);
        }
        body.kinematic_target = Some(target);
        self.wake_neighbours(handle);
        Ok(())
    }

    /// Adds a force (N) at the centre of mass for the next step.
    pub fn apply_force(&mut self, handle: BodyHandle, force: Vector<Real>) -> Result<(), Error> {
        limits::force("force", &force)?;
        self.dynamic_body_mut(handle)?.force += force;
        self.wake(handle);
        Ok(())
    }

    /// Adds a torque (N m) for the next step.
    pub fn apply_torque(&mut self, handle: BodyHandle, torque: Vector<Real>) -> Result<(), Error> {
        limits::force("torque", &torque)?;
        self.dynamic_body_mut(handle)?.torque += torque;
        self.wake(handle);
        Ok(())
    }

    /// Applies an impulse (N s) at the centre of mass: the velocity changes at once.
    pub fn apply_impulse(
        &mut self,
        handle: BodyHandle,
        impulse: Vector<Real>,
    ) -> Result<(), Error> {
        limits::force("impulse", &impulse)?;
        let body = self.dynamic_body_mut(handle)?;
        let v = body.linear_velocity + impulse / body.mass.mass;
        limits::linear_velocity(&v)?;
        body.linear_velocity = v;
        self.wake(handle);
        Ok(())
    }

    /// Applies an impulse (N s) at a world point: linear and angular velocity change at once.
    pub fn apply_impulse_at_point(
        &mut self,
        handle: BodyHandle,
        impulse: Vector<Real>,
        point: Point<Real>,
    ) -> Result<(), Error> {
        limits::force("impulse", &impulse)?;
        limits::position("point", &point.coords)?;
        let body = self.dynamic_body_mut(handle)?;
        let arm = point - body.center_of_mass();
        let inv_inertia = body
            .world_inertia()
            .try_inverse()
            .unwrap_or_else(nalgebra::Matrix3::zeros);
        let v = body.linear_velocity + impulse / body.mass.mass;
        let w = body.angular_velocity + inv_inertia * arm.cross(&impulse);
        limits::linear_velocity(&v)?;
        limits::angular_velocity(&w)?;
        body.linear_velocity = v;
        body.angular_velocity = w;
        self.wake(handle);
        Ok(())
    }

    /// Steps the world for a frame of `frame_time` (s) in whole steps of `stepper`'s fixed
    /// step (at most its `max_updates`; time past the cap is dropped, so that a slow frame does
    /// not snowball into slower ones). The world runs ahead of the frame's time by less than a
    /// step; the returned fraction (0..1, [`FixedStepper::alpha`]) is where the frame's time
    /// lies between the last two steps, to blend poses with [`World::interpolated_pose`].
    /// Physics never depends on the frame rate. For a world stepped with something beside it,
    /// call [`FixedStepper::try_advance`] with your own step.
    ///
    /// Refused: a stepper whose step is outside [`crate::limits`]' time steps, a frame time
    /// that is negative or not finite. Stops at the first step that fails.
    ///
    /// ```
    /// use sprung::{FixedStepper, World};
    ///
    /// let mut world = World::default();
    /// let mut stepper = FixedStepper::new(1.0 / 60.0, 4);
    /// // A 25 ms frame runs two 16.7 ms steps; its time is half way through the second.
    /// let alpha = world.advance(&mut stepper, 0.025).unwrap();
    /// assert_eq!(stepper.updates(), 2);
    /// assert!((alpha - 0.5).abs() < 1e-3);
    /// ```
    pub fn advance(&mut self, stepper: &mut FixedStepper, frame_time: Real) -> Result<Real, Error> {
        limits::time_step(stepper.fixed_dt())?;
        if !(frame_time.is_finite() && frame_time >= 0.0) {
            return Err(Error::InvalidTimeStep);
        }
        stepper.try_advance(frame_time, |dt| self.step(dt).map(|_| ()))?;
        Ok(stepper.alpha())
    }

    /// The pose between the last two steps at fraction `alpha` (0: previous, 1: current), for
    /// rendering between fixed steps. `alpha` is clamped into [0, 1]; NaN gives the current
    /// pose.
    pub fn interpolated_pose(&self, handle: BodyHandle, alpha: Real) -> Option<Isometry<Real>> {
        let body = self.body(handle)?;
        // The ends exactly (slerp at 1 is not bit for bit the pose it heads to).
        Some(if alpha.is_nan() || alpha >= 1.0 {
            body.pose
        } else if alpha <= 0.0 {
            body.previous_pose
        } else {
            body.previous_pose.lerp_slerp(&body.pose, alpha)
        })
    }

    /// The events of the steps so far, oldest first, emptying the list.
    ///
    /// The iterator borrows the world, so the loop over it cannot change the world. Two
    /// idioms work: react in your own state during the loop and change the world after it,
    /// or collect the events first (`let events: Vec<Event> = world.drain_events().collect();`)
    /// and then loop over them with the world free.
    ///
    /// ```
    /// use sprung::{ColliderBuilder, Event, RigidBodyBuilder, World};
    /// use sprung::math::Vector;
    ///
    /// let mut world = World::default();
    /// let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
    /// world.add_collider(ColliderBuilder::cuboid(5.0, 0.5, 5.0), ground).unwrap();
    /// let ball = world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 1.2, 0.0))).unwrap();
    /// world.add_collider(ColliderBuilder::ball(0.5), ball).unwrap();
    /// for _ in 0..30 {
    ///     world.step(1.0 / 60.0).unwrap();
    ///     let events: Vec<Event> = world.drain_events().collect();
    ///     for event in events {
    ///         if let Event::ContactBegan { bodies: (a, b), .. } = event {
    ///             // The world is free here: kick whatever landed.
    ///             let landed = if a == ground { b } else { a };
    ///             world.apply_impulse(landed, Vector::new(1.0, 0.0, 0.0)).unwrap();
    ///         }
    ///     }
    /// }
    /// assert!(world.body(ball).unwrap().linear_velocity().x > 0.0);
    /// ```
    pub fn drain_events(&mut self) -> impl Iterator<Item = Event> + '_ {
        self.events.drain(..)
    }

    /// The springs the engine held back in the last step (never silently): each attachment that
    /// reached its force cap, with the force it asked for and the force it got, and each spring
    /// too stiff for the substep to be exact.
    pub fn limited_springs(&self) -> &[LimitedSpring] {
        &self.limited
    }

    /// The step's counts (its timings are the step's to fill in).
    fn report(&self) -> StepReport {
        StepReport {
            dynamic_bodies: self
                .bodies
                .iter()
                .filter(|(_, b)| b.kind == BodyKind::Dynamic)
                .count(),
            // Sources run pair by pair: a pair counts once however many manifolds it gave.
            contact_pairs: self
                .contact_sources
                .iter()
                .enumerate()
                .filter(|(i, (pair, _))| *i == 0 || self.contact_sources[i - 1].0 != *pair)
                .count(),
            contact_points: self.solver.contacts.iter().map(|c| c.points.len()).sum(),
            recycled_pairs: self.narrow_phase.recycled(),
            broad_phase_pairs: self.narrow_phase.contacts().len(),
            limited_springs: self.limited.len(),
            ..StepReport::default()
        }
    }
}

/// Gravity within ±[`limits::MAX_ACCELERATION`] per component.
fn check_gravity(gravity: &Vector<Real>) -> Result<(), Error> {
    limits::bounded(
        "gravity",
        gravity.as_slice(),
        limits::MAX_ACCELERATION,
        "gravity: within ±1e4 m/s^2",
    )
}

/// Two bodies as an unordered key.
fn body_pair(a: BodyHandle, b: BodyHandle) -> (u32, u32) {
    (a.index.min(b.index), a.index.max(b.index))
}

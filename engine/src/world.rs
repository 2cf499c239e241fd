//! The world: bodies, colliders, and the step that moves them.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use parry3d::bounding_volume::BoundingVolume;
use parry3d::math::{Isometry, Point, Real, Vector};
use smallvec::SmallVec;
use sprung_collision::broad_phase::{BroadPhase, PairEvent, ProxyId, ProxyPair};
use sprung_collision::narrow_phase::{NarrowPhase, ProxyShapes};
use sprung_collision::shape::Shape;
use sprung_solver::body::Motion;
use sprung_solver::body::{SolverBody, STATIC};
use sprung_solver::contact::{ContactConstraint, ContactMaterial, ContactPointInput};
use sprung_solver::joint::{
    BallJoint, DistanceJoint, FixedJoint, HingeJoint, HingeSettings, JointConstraint, JointFrame,
    JointKind as Rows, MotorJoint, SliderJoint, SliderSettings, UprightJoint,
};
use sprung_solver::pgs::{Solver, SolverSettings};

use crate::body::{BodyKind, Mass, RigidBody, RigidBodyBuilder};
use crate::collider::{Collider, ColliderBuilder};
use crate::error::{finite, Error};
use crate::event::Event;
use crate::handle::{Arena, BodyHandle, ColliderHandle};
use crate::integrate;
use crate::joint::{Joint, JointBuilder, JointHandle, JointKind};
use crate::sleep::{Islands, SleepSettings};

mod ccd;
mod contacts;

/// How much the broad phase fattens every box (m): bodies moving less than this between steps
/// cost the broad phase nothing.
const BROAD_PHASE_MARGIN: Real = 0.1;
/// Contact points are kept up to this far apart (m) at rest; moving bodies add the distance
/// they can travel in one step, so that speculative points stop them before they touch.
const SPECULATIVE_DISTANCE: Real = 0.02;
/// No body reaches further than this per step for speculative contacts (m); faster bodies are
/// the business of continuous collision.
const MAX_SPECULATIVE_DISTANCE: Real = 2.0;

/// What one step did and what it cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Dynamic bodies.
    pub dynamic_bodies: usize,
    /// Pairs with contact points.
    pub contact_pairs: usize,
    /// Contact points.
    pub contact_points: usize,
    /// Wall time of the collision stages (broad and narrow phase), ms.
    pub collide_ms: f64,
    /// Wall time of the solve stage (substeps: integration and constraints), ms.
    pub solve_ms: f64,
    /// Springs the engine limited this step (attachments held to their force cap): listed by
    /// [`World::limited_springs`].
    pub limited_springs: usize,
}

/// A spring the engine held back in the last step, and by how much.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LimitedSpring {
    /// The joint (an attachment).
    pub joint: JointHandle,
    /// The force it asked for (N).
    pub wanted: Real,
    /// The force it was allowed (N): its cap.
    pub allowed: Real,
}

/// A physics world: gravity, settings, bodies with their colliders, and the step.
///
/// ```
/// use sprung::{ColliderBuilder, RigidBodyBuilder, World};
/// use parry3d::math::Vector;
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
    /// Solver settings: substeps, iterations, Baumgarte, restitution threshold.
    pub settings: SolverSettings,
    /// When islands fall asleep (on by default).
    pub sleep: SleepSettings,
    bodies: Arena<RigidBody>,
    colliders: Arena<Collider>,
    joints: Arena<Joint>,
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
    /// Collider slot of each broad-phase proxy (u32::MAX: none).
    proxy_colliders: Vec<u32>,
    solver_bodies: Vec<SolverBody>,
    /// The body slot of each solver body.
    solver_slots: Vec<u32>,
    islands: Islands,
    pair_events: Vec<PairEvent>,
    kept_events: Vec<PairEvent>,
    events: Vec<Event>,
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
        finite("gravity", gravity.as_slice())?;
        Ok(World {
            gravity,
            settings: SolverSettings::default(),
            sleep: SleepSettings::default(),
            bodies: Arena::default(),
            colliders: Arena::default(),
            joints: Arena::default(),
            world_anchor: None,
            no_collide: HashMap::new(),
            excluded: HashSet::new(),
            broad_phase: BroadPhase::new(BROAD_PHASE_MARGIN),
            narrow_phase: NarrowPhase::new(SPECULATIVE_DISTANCE),
            solver: Solver::default(),
            contact_sources: Vec::new(),
            proxy_colliders: Vec::new(),
            solver_bodies: Vec::new(),
            solver_slots: Vec::new(),
            islands: Islands::default(),
            pair_events: Vec::new(),
            kept_events: Vec::new(),
            events: Vec::new(),
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
        finite("gravity", gravity.as_slice())?;
        self.gravity = gravity;
        Ok(())
    }

    /// Adds a body (without colliders: add them with [`World::add_collider`]).
    pub fn add_body(&mut self, builder: RigidBodyBuilder) -> Result<BodyHandle, Error> {
        let body = builder.build()?;
        let (index, generation) = self.bodies.insert(body);
        Ok(BodyHandle { index, generation })
    }

    /// Attaches a collider to `body`; a dynamic body's mass follows its colliders (unless set by
    /// hand).
    pub fn add_collider(
        &mut self,
        builder: ColliderBuilder,
        body: BodyHandle,
    ) -> Result<ColliderHandle, Error> {
        let owner = self
            .bodies
            .get(body.index, body.generation)
            .ok_or(Error::StaleHandle)?;
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
        let (index, generation) = self.colliders.insert(collider);
        let slot = proxy.0 as usize;
        if self.proxy_colliders.len() <= slot {
            self.proxy_colliders.resize(slot + 1, u32::MAX);
        }
        self.proxy_colliders[slot] = index;
        let handle = ColliderHandle { index, generation };
        let owner = self
            .bodies
            .get_mut(body.index, body.generation)
            .expect("checked above");
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
        let mass = if total.mass() > 0.0 && total.principal_inertia().iter().all(|&i| i > 0.0) {
            Mass {
                mass: total.mass(),
                local_center: total.local_com,
                principal_inertia: total.principal_inertia(),
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
            JointKind::Fixed { relative, .. } => *relative = qa.inverse() * qb,
            JointKind::Slider {
                axis_a, relative, ..
            } => {
                *axis_a = axis_a.normalize();
                *relative = qa.inverse() * qb;
            }
            JointKind::Hinge {
                axis_a,
                axis_b,
                references,
                ..
            } => {
                *axis_a = axis_a.normalize();
                *axis_b = axis_b.normalize();
                let across = sprung_solver::contact::tangents(axis_a)[0];
                *references = (across, qb.inverse() * (qa * across));
            }
            _ => {}
        }
        if !joint.collide {
            *self.no_collide.entry(body_pair(a, b)).or_insert(0) += 1;
            self.drop_pairs(a, b);
        }
        let (index, generation) = self.joints.insert(joint);
        self.wake(a);
        self.wake(b);
        Ok(JointHandle { index, generation })
    }

    /// Joins `body` to the world: attachments, upright springs and motors, or any joint whose
    /// anchor A is then a fixed point of the world.
    pub fn add_world_joint(
        &mut self,
        builder: JointBuilder,
        body: BodyHandle,
    ) -> Result<JointHandle, Error> {
        self.body(body).ok_or(Error::StaleHandle)?;
        let anchor = match self.world_anchor {
            Some(anchor) => anchor,
            None => {
                let anchor = self.add_body(RigidBodyBuilder::fixed())?;
                self.world_anchor = Some(anchor);
                anchor
            }
        };
        self.add_joint(builder, anchor, body)
    }

    /// Moves an attachment's target to `target` (world, where it is as the next step begins),
    /// travelling at `velocity` (m/s) through the step: the body follows without lagging.
    pub fn set_attachment_target(
        &mut self,
        handle: JointHandle,
        target: Point<Real>,
        velocity: Vector<Real>,
    ) -> Result<(), Error> {
        finite("attachment target", target.coords.as_slice())?;
        finite("attachment target velocity", velocity.as_slice())?;
        let joint = self
            .joints
            .get_mut(handle.index, handle.generation)
            .ok_or(Error::StaleHandle)?;
        match &mut joint.kind {
            JointKind::Attachment {
                target_velocity, ..
            } => {
                *target_velocity = velocity;
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
        let joint = self
            .joints
            .remove(handle.index, handle.generation)
            .ok_or(Error::StaleHandle)?;
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

    /// Lets bodies `a` and `b` collide (`true`, the default) or not (`false`), whatever their
    /// groups say; joints that turn their collision off still do.
    ///
    /// ```
    /// use sprung::{RigidBodyBuilder, World};
    ///
    /// let mut world = World::default();
    /// let a = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    /// let b = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    /// world.set_pair_collision(a, b, false).unwrap(); // they pass through each other
    /// ```
    pub fn set_pair_collision(
        &mut self,
        a: BodyHandle,
        b: BodyHandle,
        collide: bool,
    ) -> Result<(), Error> {
        if self.body(a).is_none() || self.body(b).is_none() {
            return Err(Error::StaleHandle);
        }
        if a == b {
            return Err(Error::SameBody);
        }
        let key = body_pair(a, b);
        if collide {
            if self.excluded.remove(&key) {
                self.restore_pairs(a, b);
            }
        } else if self.excluded.insert(key) {
            self.drop_pairs(a, b);
        }
        self.wake(a);
        self.wake(b);
        Ok(())
    }

    /// Ends the pairs (and contacts) of `a`'s and `b`'s colliders.
    fn drop_pairs(&mut self, a: BodyHandle, b: BodyHandle) {
        let key = body_pair(a, b);
        let (proxies, colliders) = (&self.proxy_colliders, &self.colliders);
        self.narrow_phase.retain(|pair| {
            let body_of = |p: ProxyId| colliders.at(proxies[p.0 as usize]).body;
            body_pair(body_of(pair.a), body_of(pair.b)) != key
        });
    }

    /// Starts again the pairs of `a`'s and `b`'s colliders whose boxes overlap now: the broad
    /// phase reports a pair only when its boxes begin to overlap, which these did long ago.
    fn restore_pairs(&mut self, a: BodyHandle, b: BodyHandle) {
        let (Some(ba), Some(bb)) = (self.body(a), self.body(b)) else {
            return;
        };
        let mut began = Vec::new();
        for ca in &ba.colliders {
            for cb in &bb.colliders {
                let (p, q) = (
                    self.colliders.at(ca.index).proxy,
                    self.colliders.at(cb.index).proxy,
                );
                let (Some(x), Some(y)) =
                    (self.broad_phase.fat_aabb(p), self.broad_phase.fat_aabb(q))
                else {
                    continue;
                };
                if x.intersects(&y) && self.can_touch(p, q) {
                    began.push(PairEvent::Began(ProxyPair {
                        a: ProxyId(p.0.min(q.0)),
                        b: ProxyId(p.0.max(q.0)),
                    }));
                }
            }
        }
        self.narrow_phase.apply(&began);
    }

    /// The joint, if the handle is live.
    pub fn joint(&self, handle: JointHandle) -> Option<&Joint> {
        self.joints.get(handle.index, handle.generation)
    }

    /// Calls `f` on every collider whose (fattened) bounding box overlaps `aabb`, as of the last
    /// step: the broad phase prunes, the caller tests the shapes.
    pub fn colliders_in(
        &self,
        aabb: &parry3d::bounding_volume::Aabb,
        mut f: impl FnMut(&Collider),
    ) {
        self.broad_phase.query_aabb(aabb, |proxy| {
            if let Some(&slot) = self.proxy_colliders.get(proxy.0 as usize) {
                if slot != u32::MAX {
                    f(self.colliders.at(slot));
                }
            }
        });
    }

    /// Every joint with its handle, in a fixed order.
    pub fn joints(&self) -> impl Iterator<Item = (JointHandle, &Joint)> {
        self.joints.iter().map(|(index, joint)| {
            (
                JointHandle {
                    index,
                    generation: self.joints.generation(index),
                },
                joint,
            )
        })
    }

    /// Removes a body, its colliders, its joints and their contacts.
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
        self.wake_neighbours(handle);
        self.islands.forget(&mut self.bodies, handle.index);
        self.excluded
            .retain(|&(x, y)| x != handle.index && y != handle.index);
        let body = self
            .bodies
            .remove(handle.index, handle.generation)
            .ok_or(Error::StaleHandle)?;
        for c in &body.colliders {
            if let Some(collider) = self.colliders.remove(c.index, c.generation) {
                self.detach_proxy(collider.proxy);
            }
        }
        Ok(body)
    }

    /// Removes a collider; its body's mass follows.
    pub fn remove_collider(&mut self, handle: ColliderHandle) -> Result<(), Error> {
        let collider = self
            .colliders
            .remove(handle.index, handle.generation)
            .ok_or(Error::StaleHandle)?;
        let owner = collider.body;
        self.wake_neighbours(owner);
        self.detach_proxy(collider.proxy);
        if self.body(owner).is_some() {
            self.wake(owner);
        }
        if let Some(body) = self.bodies.get_mut(owner.index, owner.generation) {
            body.colliders.retain(|c| *c != handle);
            self.update_mass(owner);
        }
        Ok(())
    }

    fn detach_proxy(&mut self, proxy: ProxyId) {
        self.broad_phase.remove(proxy);
        if let Some(slot) = self.proxy_colliders.get_mut(proxy.0 as usize) {
            *slot = u32::MAX;
        }
    }

    /// The body, if the handle is live.
    pub fn body(&self, handle: BodyHandle) -> Option<&RigidBody> {
        self.bodies.get(handle.index, handle.generation)
    }

    /// The collider, if the handle is live.
    pub fn collider(&self, handle: ColliderHandle) -> Option<&Collider> {
        self.colliders.get(handle.index, handle.generation)
    }

    /// Every body with its handle, in a fixed order.
    pub fn bodies(&self) -> impl Iterator<Item = (BodyHandle, &RigidBody)> {
        self.bodies.iter().map(|(index, body)| {
            (
                BodyHandle {
                    index,
                    generation: self.bodies.generation(index),
                },
                body,
            )
        })
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    fn body_mut(&mut self, handle: BodyHandle) -> Result<&mut RigidBody, Error> {
        self.bodies
            .get_mut(handle.index, handle.generation)
            .ok_or(Error::StaleHandle)
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
        finite("linear velocity", v.as_slice())?;
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
        finite("angular velocity", w.as_slice())?;
        self.moving_body_mut(handle)?.angular_velocity = w;
        self.wake(handle);
        Ok(())
    }

    /// Teleports a body to `pose` (its colliders follow at the next step).
    pub fn set_pose(&mut self, handle: BodyHandle, pose: Isometry<Real>) -> Result<(), Error> {
        finite("pose", pose.translation.vector.as_slice())?;
        finite("rotation", pose.rotation.coords.as_slice())?;
        let body = self.body_mut(handle)?;
        body.pose = pose;
        body.pose.rotation.renormalize();
        body.previous_pose = body.pose;
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
        finite("kinematic target", target.translation.vector.as_slice())?;
        finite(
            "kinematic target rotation",
            target.rotation.coords.as_slice(),
        )?;
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
        finite("force", force.as_slice())?;
        self.dynamic_body_mut(handle)?.force += force;
        self.wake(handle);
        Ok(())
    }

    /// Adds a torque (N m) for the next step.
    pub fn apply_torque(&mut self, handle: BodyHandle, torque: Vector<Real>) -> Result<(), Error> {
        finite("torque", torque.as_slice())?;
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
        finite("impulse", impulse.as_slice())?;
        let body = self.dynamic_body_mut(handle)?;
        body.linear_velocity += impulse / body.mass.mass;
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
        finite("impulse", impulse.as_slice())?;
        finite("point", point.coords.as_slice())?;
        let body = self.dynamic_body_mut(handle)?;
        let arm = point - body.center_of_mass();
        let inv_inertia = body
            .world_inertia()
            .try_inverse()
            .unwrap_or_else(nalgebra::Matrix3::zeros);
        body.linear_velocity += impulse / body.mass.mass;
        body.angular_velocity += inv_inertia * arm.cross(&impulse);
        self.wake(handle);
        Ok(())
    }

    /// The pose between the last two steps at fraction `alpha` (0: previous, 1: current), for
    /// rendering between fixed steps.
    pub fn interpolated_pose(&self, handle: BodyHandle, alpha: Real) -> Option<Isometry<Real>> {
        let body = self.body(handle)?;
        Some(
            body.previous_pose
                .lerp_slerp(&body.pose, alpha.clamp(0.0, 1.0)),
        )
    }

    /// Advances the world by `dt` (s), in the order of DESIGN.md: find contacts (broad phase,
    /// narrow phase) and wake the sleeping islands an awake body touches; gather the awake
    /// bodies and their forces; solve (per substep: integrate velocities, constraints, integrate
    /// positions, relax); report contacts that began or ended; write the bodies back; sweep the
    /// fast ones (continuous collision); break overloaded joints; put slow islands to sleep.
    pub fn step(&mut self, dt: Real) -> Result<StepReport, Error> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(Error::InvalidTimeStep);
        }
        if !self.sleep.enabled {
            self.islands.wake_all(&mut self.bodies);
        }
        integrate::aim_kinematic(&mut self.bodies, dt);
        let collide = Instant::now();
        self.update_broad_phase(dt);
        self.update_narrow_phase(dt);
        self.wake_touched();
        let collide_ms = collide.elapsed().as_secs_f64() * 1e3;
        let solve = Instant::now();
        integrate::gather(
            &mut self.bodies,
            &mut self.solver_bodies,
            &mut self.solver_slots,
            self.gravity,
        );
        self.build_contacts(dt);
        self.build_joints(dt);
        self.solver
            .solve(&mut self.solver_bodies, &self.settings, dt);
        self.store_impulses();
        self.report_touching();
        let solve_ms = solve.elapsed().as_secs_f64() * 1e3;
        integrate::scatter(&mut self.bodies, &self.solver_bodies);
        self.solve_continuous(dt);
        self.place_colliders();
        self.break_joints(dt);
        self.update_islands(dt);
        Ok(self.report(collide_ms, solve_ms))
    }

    /// Puts every moving body's colliders where the step left the body, so that what the user
    /// reads between steps (a collider's pose, the queries) is the world as it now stands.
    fn place_colliders(&mut self) {
        for (_, collider) in self.colliders.iter_mut() {
            let body = self.bodies.at(collider.body.index);
            if body.kind != BodyKind::Static && !body.is_sleeping() {
                collider.world_pose = body.pose * collider.local_pose;
            }
        }
    }

    /// Wakes every sleeping island that an awake moving body touches or is joined to; again
    /// until none is left, since a woken island may touch another.
    fn wake_touched(&mut self) {
        let active = |b: &RigidBody| match b.kind {
            BodyKind::Dynamic => !b.is_sleeping(),
            BodyKind::Kinematic => {
                b.kinematic_target.is_some()
                    || b.linear_velocity != Vector::zeros()
                    || b.angular_velocity != Vector::zeros()
            }
            BodyKind::Static => false,
        };
        loop {
            let mut woke = false;
            let touching = self
                .narrow_phase
                .contacts()
                .iter()
                .filter(|c| c.manifolds.iter().any(|m| !m.points.is_empty()))
                .map(|c| {
                    let body = |p: ProxyId| {
                        self.colliders
                            .at(self.proxy_colliders[p.0 as usize])
                            .body
                            .index
                    };
                    (body(c.pair.a), body(c.pair.b))
                });
            let joined = self
                .joints
                .iter()
                .map(|(_, j)| (j.body_a.index, j.body_b.index));
            for (a, b) in touching.chain(joined) {
                let (ba, bb) = (self.bodies.at(a), self.bodies.at(b));
                if ba.is_sleeping() && active(bb) {
                    woke |= self.islands.wake(&mut self.bodies, a);
                } else if bb.is_sleeping() && active(ba) {
                    woke |= self.islands.wake(&mut self.bodies, b);
                }
            }
            if !woke {
                break;
            }
        }
    }

    /// Compares each moving pair's contact with the last step's and reports the contacts and
    /// sensor overlaps that began or ended. A contact touches when a point overlaps or took an
    /// impulse (a speculative point that stopped an approach did touch).
    fn report_touching(&mut self) {
        let pairs = self.narrow_phase.contacts_mut();
        for c in &self.solver.contacts {
            let step_peak = c
                .points
                .iter()
                .map(|p| p.max_normal_impulse)
                .fold(0.0, Real::max);
            let source = c.user_index as usize;
            let index = self.contact_sources[source].0;
            let first = source == 0 || self.contact_sources[source - 1].0 != index;
            let pair = &mut pairs[index as usize];
            // A pair that was not touching restarts its peak, once (at its first manifold).
            if !pair.touching && first {
                pair.peak_impulse = 0.0;
            }
            pair.peak_impulse = pair.peak_impulse.max(step_peak);
        }
        for i in 0..self.narrow_phase.contacts().len() {
            let c = &self.narrow_phase.contacts()[i];
            let now = c
                .manifolds
                .iter()
                .flat_map(|m| &m.points)
                .any(|p| p.separation <= 0.0 || p.normal_impulse > 0.0);
            if now == c.touching {
                continue;
            }
            let (pair, impulse) = (c.pair, c.peak_impulse);
            self.narrow_phase.contacts_mut()[i].touching = now;
            let event = self.touch_event(pair, now, impulse);
            self.events.extend(event);
        }
    }

    /// The event of `pair` beginning (`began`) or ending to touch, if both colliders live.
    fn touch_event(&self, pair: ProxyPair, began: bool, impulse: Real) -> Option<Event> {
        let slot = |p: ProxyId| {
            let slot = *self.proxy_colliders.get(p.0 as usize)?;
            (slot != u32::MAX).then_some(slot)
        };
        let (sa, sb) = (slot(pair.a)?, slot(pair.b)?);
        let handle = |index: u32| ColliderHandle {
            index,
            generation: self.colliders.generation(index),
        };
        let (ca, cb) = (self.colliders.at(sa), self.colliders.at(sb));
        if ca.sensor || cb.sensor {
            let (sensor, other, body) = if ca.sensor {
                (handle(sa), handle(sb), cb.body)
            } else {
                (handle(sb), handle(sa), ca.body)
            };
            return Some(if began {
                Event::SensorEntered {
                    sensor,
                    other,
                    body,
                }
            } else {
                Event::SensorLeft {
                    sensor,
                    other,
                    body,
                }
            });
        }
        let (colliders, bodies) = ((handle(sa), handle(sb)), (ca.body, cb.body));
        Some(if began {
            Event::ContactBegan {
                colliders,
                bodies,
                impulse,
            }
        } else {
            Event::ContactEnded {
                colliders,
                bodies,
                max_impulse: impulse,
            }
        })
    }

    /// After the step: sleep timers, islands, and the bodies that fell asleep or woke as
    /// events.
    fn update_islands(&mut self, dt: Real) {
        let contacts = self.solver.contacts.iter().map(|c| (c.body_a, c.body_b));
        let joints = self
            .solver
            .joints
            .iter()
            .map(|j| (j.frame.body_a, j.frame.body_b));
        self.islands.update(
            &mut self.bodies,
            &self.solver_slots,
            contacts.chain(joints),
            &self.sleep,
            dt,
        );
        let handle = |bodies: &Arena<RigidBody>, index: u32| BodyHandle {
            index,
            generation: bodies.generation(index),
        };
        for &slot in &self.islands.woke {
            self.events
                .push(Event::BodyWoke(handle(&self.bodies, slot)));
        }
        for &slot in &self.islands.fell_asleep {
            self.events
                .push(Event::BodyFellAsleep(handle(&self.bodies, slot)));
        }
        self.islands.woke.clear();
        self.islands.fell_asleep.clear();
    }

    /// Wakes `body`'s island (if asleep) and restarts its sleep timer: what every change the
    /// user makes to a body does.
    fn wake(&mut self, body: BodyHandle) {
        self.islands.wake(&mut self.bodies, body.index);
        self.bodies.at_mut(body.index).slow_time = 0.0;
    }

    /// Wakes every body that has a contact with one of `body`'s colliders (something it held
    /// up may now fall).
    fn wake_neighbours(&mut self, body: BodyHandle) {
        for i in 0..self.narrow_phase.contacts().len() {
            let pair = self.narrow_phase.contacts()[i].pair;
            let owner = |p: ProxyId| {
                let slot = self.proxy_colliders[p.0 as usize];
                (slot != u32::MAX).then(|| self.colliders.at(slot).body)
            };
            match (owner(pair.a), owner(pair.b)) {
                (Some(a), Some(b)) if a == body => self.wake(b),
                (Some(a), Some(b)) if b == body => self.wake(a),
                _ => {}
            }
        }
    }

    /// Moves every collider to its body's pose, with its box grown by the distance its body can
    /// travel this step, and lets the broad phase report pairs that began or ended.
    fn update_broad_phase(&mut self, dt: Real) {
        for (_, collider) in self.colliders.iter_mut() {
            let body = self.bodies.at(collider.body.index);
            let resting = body.kind == BodyKind::Static || body.is_sleeping();
            if resting && collider.world_pose == body.pose * collider.local_pose {
                continue;
            }
            collider.world_pose = body.pose * collider.local_pose;
            let aabb = collider
                .shape
                .aabb(&collider.world_pose)
                .loosened(reach(body, collider, dt));
            self.broad_phase.set_aabb(collider.proxy, aabb);
        }
        self.pair_events.clear();
        self.broad_phase.update(&mut self.pair_events);
        self.kept_events.clear();
        for i in 0..self.pair_events.len() {
            match self.pair_events[i] {
                PairEvent::Began(pair) if !self.can_touch(pair.a, pair.b) => continue,
                PairEvent::Ended(pair) => {
                    // Boxes apart: a contact still touching ends here.
                    if let Some(c) = self.narrow_phase.pair(pair).filter(|c| c.touching) {
                        let event = self.touch_event(pair, false, c.peak_impulse);
                        self.events.extend(event);
                    }
                }
                _ => {}
            }
            self.kept_events.push(self.pair_events[i]);
        }
        self.narrow_phase.apply(&self.kept_events);
    }

    /// Whether two colliders' pair deserves a manifold: not two colliders of one body, not two
    /// bodies that cannot move, not two bodies a joint keeps apart, and their groups meet.
    fn can_touch(&self, p: ProxyId, q: ProxyId) -> bool {
        let (cp, cq) = (
            self.colliders.at(self.proxy_colliders[p.0 as usize]),
            self.colliders.at(self.proxy_colliders[q.0 as usize]),
        );
        let (a, b) = (cp.body, cq.body);
        let dynamic = |h: BodyHandle| self.bodies.at(h.index).kind == BodyKind::Dynamic;
        a != b
            && (dynamic(a) || dynamic(b))
            && !(cp.sensor && cq.sensor)
            && cp.groups.meet(&cq.groups)
            && !self.no_collide.contains_key(&body_pair(a, b))
            && !self.excluded.contains(&body_pair(a, b))
    }

    fn update_narrow_phase(&mut self, dt: Real) {
        let view = ColliderView {
            proxies: &self.proxy_colliders,
            colliders: &self.colliders,
            bodies: &self.bodies,
            dt,
        };
        self.narrow_phase.update(&view);
    }

    /// Turns every manifold with points into a contact constraint of the solver (a pair with a
    /// mesh may give several, one per normal), noting where each came from.
    fn build_contacts(&mut self, dt: Real) {
        let h = dt / self.settings.substeps.max(1) as Real;
        self.solver.contacts.clear();
        self.contact_sources.clear();
        for (index, pair) in self.narrow_phase.contacts().iter().enumerate() {
            if pair.manifolds.is_empty() {
                continue;
            }
            let ca = self
                .colliders
                .at(self.proxy_colliders[pair.pair.a.0 as usize]);
            let cb = self
                .colliders
                .at(self.proxy_colliders[pair.pair.b.0 as usize]);
            if ca.sensor || cb.sensor {
                continue; // reports, never pushes
            }
            let (ba, bb) = (self.bodies.at(ca.body.index), self.bodies.at(cb.body.index));
            let index_of = |b: &RigidBody| {
                if b.kind == BodyKind::Static {
                    STATIC
                } else {
                    b.solver_index
                }
            };
            if index_of(ba) == STATIC && index_of(bb) == STATIC {
                continue; // asleep, or asleep on something static
            }
            let (com_a, com_b) = (ba.center_of_mass(), bb.center_of_mass());
            let material = mix(ca, cb);
            for (m, manifold) in pair.manifolds.iter().enumerate() {
                if manifold.points.is_empty() {
                    continue;
                }
                let points: SmallVec<[ContactPointInput; 4]> = manifold
                    .points
                    .iter()
                    .map(|p| ContactPointInput {
                        anchor_a: p.point_a - com_a,
                        anchor_b: p.point_b - com_b,
                        separation: p.separation,
                        normal_impulse: p.normal_impulse,
                        tangent_impulse: p.tangent_impulse,
                    })
                    .collect();
                self.solver.contacts.push(ContactConstraint::new(
                    &self.solver_bodies,
                    index_of(ba),
                    index_of(bb),
                    manifold.normal,
                    &material,
                    &points,
                    h,
                    self.contact_sources.len() as u32,
                ));
                self.contact_sources.push((index as u32, m as u32));
            }
        }
    }

    /// Turns every joint into the solver's rows, anchored at the bodies' current poses.
    fn build_joints(&mut self, dt: Real) {
        let h = dt / self.settings.substeps.max(1) as Real;
        self.solver.joints.clear();
        for (index, joint) in self.joints.iter() {
            let (ba, bb) = (
                self.bodies.at(joint.body_a.index),
                self.bodies.at(joint.body_b.index),
            );
            let solver_index = |b: &RigidBody| {
                if b.kind == BodyKind::Static {
                    STATIC
                } else {
                    b.solver_index
                }
            };
            let (pa, pb) = (
                ba.pose * joint.local_anchor_a,
                bb.pose * joint.local_anchor_b,
            );
            let frame = JointFrame {
                body_a: solver_index(ba),
                body_b: solver_index(bb),
                anchor_a: pa - ba.center_of_mass(),
                anchor_b: pb - bb.center_of_mass(),
                separation: pb - pa,
            };
            if frame.body_a == STATIC && frame.body_b == STATIC {
                continue; // asleep, or joined to something static
            }
            let (a, b) = (self.motion(frame.body_a), self.motion(frame.body_b));
            let impulses = joint.impulses;
            let point = Vector::new(impulses[0], impulses[1], impulses[2]);
            let rows = match &joint.kind {
                JointKind::Ball { spring } => {
                    Rows::Ball(BallJoint::new(&frame, &a, &b, *spring, h, point))
                }
                JointKind::Distance(d) => {
                    let carried = [impulses[0], impulses[1], impulses[2]];
                    Rows::Distance(DistanceJoint::new(&frame, &a, &b, d, h, carried))
                }
                JointKind::Hinge {
                    axis_a,
                    axis_b,
                    limits,
                    motor,
                    references,
                    spring,
                } => {
                    let (qa, qb) = (ba.pose.rotation, bb.pose.rotation);
                    let settings = HingeSettings {
                        axis_a: qa * axis_a,
                        axis_b: qb * axis_b,
                        reference_a: qa * references.0,
                        reference_b: qb * references.1,
                        limits: *limits,
                        motor: *motor,
                        spring: *spring,
                    };
                    Rows::Hinge(HingeJoint::new(&frame, &a, &b, settings, h, &impulses))
                }
                JointKind::Fixed { relative, spring } => {
                    let start = (ba.pose.rotation, bb.pose.rotation);
                    Rows::Fixed(FixedJoint::new(
                        &frame, &a, &b, *relative, start, *spring, h, &impulses,
                    ))
                }
                JointKind::Slider {
                    axis_a,
                    limits,
                    motor,
                    relative,
                    spring,
                } => {
                    let start = (ba.pose.rotation, bb.pose.rotation);
                    let settings = SliderSettings {
                        axis_a: start.0 * axis_a,
                        limits: *limits,
                        motor: *motor,
                        spring: *spring,
                    };
                    Rows::Slider(SliderJoint::new(
                        &frame, &a, &b, settings, *relative, start, &impulses,
                    ))
                }
                JointKind::Attachment {
                    spring,
                    max_force,
                    target_velocity,
                } => {
                    let mut rows = BallJoint::new(&frame, &a, &b, Some(*spring), h, point);
                    rows.target_velocity = *target_velocity;
                    rows.max_impulse = max_force * h;
                    Rows::Ball(rows)
                }
                JointKind::Upright {
                    body_axis,
                    world_axis,
                    spring,
                } => {
                    let axis = bb.pose.rotation * body_axis.normalize();
                    Rows::Upright(UprightJoint::new(
                        &b,
                        axis,
                        *world_axis,
                        spring,
                        h,
                        [impulses[0], impulses[1]],
                    ))
                }
                JointKind::Motor {
                    axis,
                    angular,
                    speed,
                    max_force,
                } => Rows::Motor(MotorJoint::new(
                    &frame,
                    &a,
                    &b,
                    *axis,
                    *angular,
                    *speed,
                    *max_force,
                    h,
                    impulses[0],
                )),
            };
            self.solver.joints.push(JointConstraint {
                frame,
                kind: rows,
                user_index: index,
            });
        }
    }

    /// A solver body's mass and velocity as rows see them (static: none).
    fn motion(&self, index: u32) -> Motion {
        Motion::load(&self.solver_bodies, index)
    }

    /// The events of the steps so far, oldest first, emptying the list.
    pub fn drain_events(&mut self) -> impl Iterator<Item = Event> + '_ {
        self.events.drain(..)
    }

    /// The springs the engine held back in the last step (never silently): each attachment that
    /// reached its force cap, with the force it asked for and the force it got.
    pub fn limited_springs(&self) -> &[LimitedSpring] {
        &self.limited
    }

    /// Removes the joints that held with more than their breaking force, and says so; notes the
    /// springs held back by a cap.
    fn break_joints(&mut self, dt: Real) {
        let h = dt / self.settings.substeps.max(1) as Real;
        self.limited.clear();
        for j in &self.solver.joints {
            if let Some((wanted, allowed)) = j.limited(h) {
                let joint = JointHandle {
                    index: j.user_index,
                    generation: self.joints.generation(j.user_index),
                };
                self.limited.push(LimitedSpring {
                    joint,
                    wanted,
                    allowed,
                });
            }
        }
        self.broken.clear();
        for j in &self.solver.joints {
            let joint = self.joints.at(j.user_index);
            let load = j.load(h);
            if joint.break_force.is_some_and(|limit| load > limit) {
                let handle = JointHandle {
                    index: j.user_index,
                    generation: self.joints.generation(j.user_index),
                };
                self.broken.push((handle, load));
            }
        }
        // By index, so that the buffer keeps its capacity for the next step.
        for i in 0..self.broken.len() {
            let (handle, load) = self.broken[i];
            if let Ok(joint) = self.remove_joint(handle) {
                self.events.push(Event::JointBroken {
                    joint: handle,
                    bodies: (joint.body_a, joint.body_b),
                    load,
                });
            }
        }
    }

    /// Hands each point's accumulated impulses back to the pair cache for the next warm start.
    fn store_impulses(&mut self) {
        for j in &self.solver.joints {
            self.joints.at_mut(j.user_index).impulses = j.impulses();
        }
        let pairs = self.narrow_phase.contacts_mut();
        for c in &self.solver.contacts {
            let (pair, m) = self.contact_sources[c.user_index as usize];
            let manifold = &mut pairs[pair as usize].manifolds[m as usize];
            for (stored, solved) in manifold.points.iter_mut().zip(&c.points) {
                stored.normal_impulse = solved.normal.impulse;
                stored.tangent_impulse = [solved.tangent[0].impulse, solved.tangent[1].impulse];
            }
        }
    }

    fn report(&self, collide_ms: f64, solve_ms: f64) -> StepReport {
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
            collide_ms,
            solve_ms,
            limited_springs: self.limited.len(),
        }
    }
}

/// The material of two colliders' contact: friction by the geometric mean, restitution the
/// larger (as Box2D), and of two soft materials the softer one (the smaller stiffness, or
/// frequency), since the soft one gives way first.
fn mix(a: &Collider, b: &Collider) -> ContactMaterial {
    let spring = match (a.contact_spring, b.contact_spring) {
        (Some(x), Some(y)) => Some(if softness_key(&x) <= softness_key(&y) {
            x
        } else {
            y
        }),
        (x, y) => x.or(y),
    };
    ContactMaterial {
        friction: (a.friction * b.friction).sqrt(),
        restitution: a.restitution.max(b.restitution),
        spring,
    }
}

/// How stiff a contact spring is, to pick the softer of two (stiffness, or frequency squared).
fn softness_key(spring: &sprung_solver::softness::Spring) -> Real {
    let omega = spring.angular_frequency(1.0);
    omega * omega
}

/// Two bodies as an unordered key.
fn body_pair(a: BodyHandle, b: BodyHandle) -> (u32, u32) {
    (a.index.min(b.index), a.index.max(b.index))
}

/// How far (m) any point of `collider` can travel in `dt`: its box grows by this much in the
/// broad phase, and its contacts are kept this much further apart (speculative).
fn reach(body: &RigidBody, collider: &Collider, dt: Real) -> Real {
    let speed = body.linear_velocity.norm() + body.angular_velocity.norm() * collider.shape.scale();
    (speed * dt).min(MAX_SPECULATIVE_DISTANCE)
}

/// The narrow phase's view of the colliders, by broad-phase proxy.
struct ColliderView<'w> {
    proxies: &'w [u32],
    colliders: &'w Arena<Collider>,
    bodies: &'w Arena<RigidBody>,
    dt: Real,
}

impl ColliderView<'_> {
    fn collider(&self, proxy: ProxyId) -> Option<&Collider> {
        let slot = *self.proxies.get(proxy.0 as usize)?;
        (slot != u32::MAX).then(|| self.colliders.at(slot))
    }
}

impl ProxyShapes for ColliderView<'_> {
    fn shape_and_pose(&self, proxy: ProxyId) -> Option<(&Shape, &Isometry<Real>)> {
        self.collider(proxy).map(|c| (&c.shape, &c.world_pose))
    }

    fn speculative_distance(&self, proxy: ProxyId) -> Real {
        self.collider(proxy)
            .map_or(0.0, |c| reach(self.bodies.at(c.body.index), c, self.dt))
    }

    fn is_resting(&self, proxy: ProxyId) -> bool {
        self.collider(proxy).is_none_or(|c| {
            let body = self.bodies.at(c.body.index);
            body.kind == BodyKind::Static || body.is_sleeping()
        })
    }
}

/// What world queries read (query.rs), so that they need no field of `World` opened up.
impl World {
    pub(crate) fn query_view(&self) -> crate::query::QueryView<'_> {
        crate::query::QueryView {
            bodies: &self.bodies,
            colliders: &self.colliders,
            broad_phase: &self.broad_phase,
            proxy_colliders: &self.proxy_colliders,
        }
    }
}

//! Impacts: restitution at the substep in which a contact closes, passed along chains of
//! contacts.
//!
//! A point of a bouncy contact (restitution above zero, a rigid material) impacts in a substep
//! when it approaches faster than the restitution threshold and will have closed by the end of
//! the substep (its separation plus `h` times its normal velocity is not positive). Before the
//! substep's warm start and solve, such a contact's impacting points are driven to separate at
//! `e` times the speed they approached at, by impulses of their own (a few Gauss-Seidel sweeps
//! over the contact's points, so that a box landing flat bounces flat); the solve that follows
//! finds them separating and leaves them so.
//!
//! The approach speed is the impact's own: measured when the contact is taken, after the
//! impacts taken before it in the same substep. The contacts are walked in order, again and
//! again, each taken once a substep, until a walk takes none: so in a row of touching balls the
//! first impact sets the second ball moving, the second contact then approaches at that speed
//! and bounces in turn, and so on down the row, as the textbook's cradle does. Restitution
//! measured once a step from the speeds at its start (Box2D's pass) sees no approach at a
//! contact that closes during the step, and solved with the rest of the step's contacts, the
//! impacts of a row share their momentum out: a cradle of five with 1 cm gaps ended with
//! (-0.15, -0.15, 0.20, 1.04, 1.04) for (0, 0, 0, 0, 2).
//!
//! The impulses are one-shot: not accumulated with the contact's normal impulse, so not warm
//! started; a body's velocity at the start of the substep, which the carried warm start
//! subtracts (`integrate.rs`), takes them in too. The stage runs on one worker, in the order
//! of the step's contact list, and only when some contact bounces.

use smallvec::SmallVec;

use crate::body::{Bodies, BodyState};
use crate::contact::Contact;
use crate::integrate::Velocities;
use crate::{Matrix, Real, Vector};

/// Gauss-Seidel sweeps over one contact's impacting points.
const SWEEPS: usize = 4;

/// Walks over the contacts in one substep at most: a row of contacts needs one walk when its
/// contacts are listed in its order and one per contact listed against it.
const MOST_WALKS: usize = 64;

/// One impacting point's row.
#[derive(Clone, Copy, Debug, Default)]
struct ImpactPoint {
    /// `r_a x n`, `r_b x n`.
    angular_a: Vector,
    angular_b: Vector,
    /// `1 / (J M^-1 J^T)` (kg).
    mass: Real,
    /// The separation at the start of the step (m).
    separation: Real,
    /// The normal velocity this substep's impact aims for (m/s), and the impulse (N s) it has
    /// taken, this substep and over the step.
    target: Real,
    impulse: Real,
    step_impulse: Real,
}

/// A bouncy contact, as the stage reads it.
#[derive(Clone, Debug, Default)]
struct ImpactContact {
    body_a: u32,
    body_b: u32,
    normal: Vector,
    restitution: Real,
    inv_mass_a: Real,
    inv_mass_b: Real,
    inv_inertia_a: Matrix,
    inv_inertia_b: Matrix,
    points: SmallVec<[ImpactPoint; 4]>,
    /// Its index in the step's contact list.
    source: u32,
}

/// The step's bouncy contacts, kept between steps (no allocation once settled).
#[derive(Debug, Default)]
pub(crate) struct Impacts {
    contacts: Vec<ImpactContact>,
    /// Which contacts were taken in this substep.
    taken: Vec<bool>,
}

impl Impacts {
    /// The bouncy contacts of `contacts` (restitution above zero, a rigid material, points),
    /// with the bodies' masses at the start of the step.
    pub(crate) fn prepare(&mut self, contacts: &[Contact], bodies: &Bodies) {
        self.contacts.clear();
        for (source, c) in contacts.iter().enumerate() {
            if c.material.restitution <= 0.0 || c.material.spring.is_some() {
                continue;
            }
            let ((inv_mass_a, inv_inertia_a), (inv_mass_b, inv_inertia_b)) =
                (bodies.mass(c.body_a), bodies.mass(c.body_b));
            let n = c.normal;
            let points = c
                .points
                .iter()
                .map(|p| {
                    let (angular_a, angular_b) = (p.anchor_a.cross(&n), p.anchor_b.cross(&n));
                    let k = inv_mass_a
                        + inv_mass_b
                        + angular_a.dot(&(inv_inertia_a * angular_a))
                        + angular_b.dot(&(inv_inertia_b * angular_b));
                    ImpactPoint {
                        angular_a,
                        angular_b,
                        mass: if k > 0.0 { 1.0 / k } else { 0.0 },
                        separation: p.separation,
                        ..ImpactPoint::default()
                    }
                })
                .collect();
            self.contacts.push(ImpactContact {
                body_a: c.body_a,
                body_b: c.body_b,
                normal: n,
                restitution: c.material.restitution,
                inv_mass_a,
                inv_mass_b,
                inv_inertia_a,
                inv_inertia_b,
                points,
                source: source as u32,
            });
        }
        self.taken.clear();
        self.taken.resize(self.contacts.len(), false);
    }

    /// Whether the step has a bouncy contact.
    pub(crate) fn any(&self) -> bool {
        !self.contacts.is_empty()
    }

    /// The substep's impacts (substeps of `h`, approach speeds under `threshold` ignored).
    /// With `starts` (the carried warm start's velocities at the substep's start, a slot per
    /// body), each impulse is added there too.
    pub(crate) fn substep(
        &mut self,
        bodies: &mut Bodies,
        mut starts: Option<&mut [Velocities]>,
        h: Real,
        threshold: Real,
    ) {
        self.taken.fill(false);
        for _ in 0..MOST_WALKS {
            let mut took = false;
            for (c, taken) in self.contacts.iter_mut().zip(&mut self.taken) {
                if *taken {
                    continue;
                }
                let (mut a, mut b) = (*bodies.state(c.body_a), *bodies.state(c.body_b));
                if !c.aim(&a, &b, h, threshold) {
                    continue;
                }
                *taken = true;
                took = true;
                let (before_a, before_b) = (a, b);
                c.bounce(&mut a, &mut b);
                bodies.store_pair((c.body_a, &a), (c.body_b, &b));
                if let Some(starts) = starts.as_deref_mut() {
                    for (body, after, before) in
                        [(c.body_a, &a, &before_a), (c.body_b, &b, &before_b)]
                    {
                        if let Some(s) = starts.get_mut(body as usize) {
                            s.linear += after.linear_velocity - before.linear_velocity;
                            s.angular += after.angular_velocity - before.angular_velocity;
                        }
                    }
                }
            }
            if !took {
                break;
            }
        }
    }

    /// Adds each contact's impact impulses to its points' largest impulse of the step (what
    /// the contact events report), and forgets them.
    pub(crate) fn report(&mut self, contacts: &mut [Contact]) {
        for c in &mut self.contacts {
            let Some(out) = contacts.get_mut(c.source as usize) else {
                continue;
            };
            for (p, q) in c.points.iter_mut().zip(out.points.iter_mut()) {
                q.max_normal_impulse = q.max_normal_impulse.max(p.step_impulse);
                p.step_impulse = 0.0;
            }
        }
    }
}

impl ImpactContact {
    /// The normal velocity of point `p` between states `a` and `b`.
    fn velocity(&self, p: &ImpactPoint, a: &BodyState, b: &BodyState) -> Real {
        self.normal.dot(&(b.linear_velocity - a.linear_velocity))
            + p.angular_b.dot(&b.angular_velocity)
            - p.angular_a.dot(&a.angular_velocity)
    }

    /// Sets each point's target: `-e` times its approach speed where it impacts in this
    /// substep (approaching faster than `threshold` and closed by its end), else none (zero
    /// target, and not pushed). Returns whether any point impacts.
    fn aim(&mut self, a: &BodyState, b: &BodyState, h: Real, threshold: Real) -> bool {
        // Where the points stand now: the step's motion along the normal so far (the turns to
        // first order, as the solve's separation).
        let moved = self.normal.dot(&(b.delta_position - a.delta_position));
        let (turn_a, turn_b) = (
            a.delta_rotation.as_ref().imag() * 2.0,
            b.delta_rotation.as_ref().imag() * 2.0,
        );
        let mut any = false;
        for k in 0..self.points.len() {
            let p = self.points[k];
            let vn = self.velocity(&p, a, b);
            let separation =
                p.separation + moved + turn_b.dot(&p.angular_b) - turn_a.dot(&p.angular_a);
            let impacts = vn <= -threshold && separation + h * vn <= 0.0 && p.mass > 0.0;
            let q = &mut self.points[k];
            q.impulse = 0.0;
            q.target = if impacts {
                -self.restitution * vn
            } else {
                Real::NAN
            };
            any |= impacts;
        }
        any
    }

    /// Drives the impacting points to their targets, impulses never pulling.
    fn bounce(&mut self, a: &mut BodyState, b: &mut BodyState) {
        for _ in 0..SWEEPS {
            for k in 0..self.points.len() {
                let p = self.points[k];
                if p.target.is_nan() {
                    continue;
                }
                let vn = self.velocity(&p, a, b);
                let total = (p.impulse - p.mass * (vn - p.target)).max(0.0);
                let applied = total - p.impulse;
                let impulse = self.normal * applied;
                a.linear_velocity -= impulse * self.inv_mass_a;
                a.angular_velocity -= self.inv_inertia_a * p.angular_a * applied;
                b.linear_velocity += impulse * self.inv_mass_b;
                b.angular_velocity += self.inv_inertia_b * p.angular_b * applied;
                let q = &mut self.points[k];
                q.impulse = total;
                q.step_impulse += applied;
            }
        }
    }
}

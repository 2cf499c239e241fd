//! The world's side of sleeping: waking the islands that awake bodies touch or that the user
//! changes, and handing the step's contacts and joints to the islands (`crate::sleep`).

use sprung_solver::step::StepContext;

use super::*;

impl World {
    /// Wakes every sleeping island that an awake moving body touches or is joined to; again
    /// until none is left, since a woken island may touch another.
    pub(super) fn wake_touched(&mut self) {
        if !self.islands.any_asleep() {
            return; // nothing to wake: no walk over the pairs
        }
        let active = |b: &RigidBody| match b.kind {
            BodyKind::Dynamic => !b.is_resting(),
            BodyKind::Kinematic => {
                b.kinematic_target.is_some()
                    || b.linear_velocity != Vector::zeros()
                    || b.angular_velocity != Vector::zeros()
            }
            BodyKind::Static => false,
        };
        // Only an active body wakes anything: with none (a world at rest), no pair can, and
        // the walk over the pairs (two cache lines of each record) is skipped for a walk over
        // the bodies.
        if !self.bodies.iter().any(|(_, b)| active(b)) {
            return;
        }
        loop {
            let mut woke = false;
            let touching = self
                .narrow_phase
                .contacts()
                .iter()
                .filter(|c| c.manifolds.iter().any(|m| !m.points.is_empty()))
                .filter_map(|c| {
                    let body = |p: ProxyId| {
                        Some(self.colliders.at(self.broad_phase.payload(p)?).body.index)
                    };
                    Some((body(c.pair.a)?, body(c.pair.b)?))
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

    /// After the step: sleep timers, islands, and the bodies that fell asleep or woke as
    /// events.
    pub(super) fn update_islands(&mut self, step: &StepContext) {
        let dt = step.dt;
        let contacts = self.solver.contacts.iter().map(|c| (c.body_a, c.body_b));
        let joints = self
            .solver
            .joints
            .iter()
            .map(|j| (j.frame.body_a, j.frame.body_b));
        let points = self
            .solver
            .points
            .iter()
            .map(|p| (p.ends.body_a, p.ends.body_b));
        let lengths = self
            .solver
            .lengths
            .iter()
            .map(|l| (l.ends.body_a, l.ends.body_b));
        self.islands.update(
            &mut self.bodies,
            &self.solver_slots,
            contacts.chain(joints).chain(points).chain(lengths),
            &self.sleep,
            dt,
        );
        let handle = |bodies: &Arena<RigidBody, BodyHandle>, index: u32| bodies.handle(index);
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
    pub(super) fn wake(&mut self, body: BodyHandle) {
        self.islands.wake(&mut self.bodies, body.index);
        self.bodies.at_mut(body.index).slow_time = 0.0;
    }

    /// Wakes every body that has a contact with one of `body`'s colliders (something it held
    /// up may now fall).
    pub(super) fn wake_neighbours(&mut self, body: BodyHandle) {
        for i in 0..self.narrow_phase.contacts().len() {
            let pair = self.narrow_phase.contacts()[i].pair;
            let owner = |p: ProxyId| Some(self.collider_of(p)?.body);
            match (owner(pair.a), owner(pair.b)) {
                (Some(a), Some(b)) if a == body => self.wake(b),
                (Some(a), Some(b)) if b == body => self.wake(a),
                _ => {}
            }
        }
    }
}

//! Quarantine: a body whose state stops being finite, or passes a speed limit, is put aside
//! before it can reach any other body.
//!
//! Validation at the door keeps NaN and overflow out of what the user sets, but values inside
//! the documented ranges can still combine into a runaway (the largest force on the lightest
//! body), and within a substep a body gone bad hands NaN, or an absurd impulse, to every body its
//! contacts and joints reach. So the step checks twice:
//!
//! 1. **Before the solve** ([`integrate::gather`] calls [`limits::runaway`]): a dynamic body
//!    whose velocity after this step's forces and gravity would not be finite or would pass
//!    [`limits::MAX_LINEAR_SPEED`] / [`limits::MAX_ANGULAR_SPEED`] is quarantined at once and
//!    never enters the solve; its neighbours meet it as a static body.
//! 2. **After the solve, before anything is written back** ([`World::quarantine_diverged`]):
//!    if a solver body's new pose or velocity is not finite or passes a speed limit, every body
//!    linked to it through this step's contacts and joints (transitively, stopping at static and
//!    kinematic bodies, which rows cannot change) keeps the state it had when the step began, as
//!    if the step had not happened to it, and those contacts and joints forget their impulses
//!    (no warm start from them). The bad bodies among them are quarantined.
//!
//! A quarantined body is frozen where the step began, with zero velocity, reported in
//! [`StepReport::quarantined`] and by [`Event::BodyQuarantined`], and left out of every later
//! step (others collide with it as with a static body) until [`World::set_pose`] releases it.

use sprung_solver::body::{BodySim, BodyState};

use super::*;

/// Whether the solver left this body's state non-finite or past a speed limit.
fn diverged((state, s): (&BodyState, &BodySim)) -> bool {
    let finite_pose =
        s.position.iter().all(|x| x.is_finite()) && s.rotation.coords.iter().all(|x| x.is_finite());
    !(finite_pose && limits::within_speed_limits(&state.linear_velocity, &state.angular_velocity))
}

impl World {
    /// Reports the bodies `integrate::gather` quarantined before the solve.
    pub(super) fn report_runaways(&mut self) -> usize {
        let count = self.runaways.len();
        for i in 0..count {
            let handle = self.bodies.handle(self.runaways[i]);
            self.events.push(Event::BodyQuarantined(handle));
        }
        count
    }

    /// Check 2 of the module doc, on the solver's result: the diverged bodies are quarantined,
    /// and every body linked to one keeps its state from before the step. Returns how many were
    /// quarantined. One pass over the solver bodies when nothing diverged (the usual case).
    pub(super) fn quarantine_diverged(&mut self) -> usize {
        let solved = &self.solver_bodies;
        let pairs = || solved.states.iter().zip(&solved.sims);
        if !pairs().any(diverged) {
            return 0;
        }
        // Rare: allocating here costs nothing in a step that goes well.
        let bad: Vec<bool> = pairs().map(diverged).collect();
        let mut tainted = bad.clone();
        // Rows cannot change a static or kinematic body, so NaN does not pass through one.
        let passes = |i: u32| i != STATIC && self.solver_bodies.sims[i as usize].inv_mass > 0.0;
        let links: Vec<(u32, u32)> = self
            .solver
            .contacts
            .iter()
            .map(|c| (c.body_a, c.body_b))
            .chain(
                self.solver
                    .joints
                    .iter()
                    .map(|j| (j.frame.body_a, j.frame.body_b)),
            )
            .filter(|&(a, b)| passes(a) && passes(b))
            .collect();
        loop {
            let mut grew = false;
            for &(a, b) in &links {
                let (a, b) = (a as usize, b as usize);
                if tainted[a] != tainted[b] {
                    tainted[a] = true;
                    tainted[b] = true;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let touches = |i: u32| i != STATIC && tainted[i as usize];
        for c in &mut self.solver.contacts {
            if touches(c.body_a) || touches(c.body_b) {
                c.reset_impulses();
            }
        }
        for j in &mut self.solver.joints {
            if touches(j.frame.body_a) || touches(j.frame.body_b) {
                j.reset_impulses();
            }
        }
        for p in &mut self.solver.points {
            if touches(p.ends.body_a) || touches(p.ends.body_b) {
                p.impulse = Vector::zeros();
            }
        }
        for l in &mut self.solver.lengths {
            if touches(l.ends.body_a) || touches(l.ends.body_b) {
                l.impulse = 0.0;
            }
        }
        let mut count = 0;
        for (i, &slot) in self.solver_slots.iter().enumerate() {
            if !tainted[i] {
                continue;
            }
            // Back to where the step began: `scatter` writes this back.
            let body = self.bodies.at_mut(slot);
            let s = &mut self.solver_bodies.sims[i];
            s.position = body.center_of_mass().coords;
            s.rotation = body.pose.rotation;
            let state = &mut self.solver_bodies.states[i];
            state.linear_velocity = body.linear_velocity;
            state.angular_velocity = body.angular_velocity;
            if bad[i] {
                body.quarantined = true;
                body.kinematic_target = None;
                state.linear_velocity = Vector::zeros();
                state.angular_velocity = Vector::zeros();
                self.events
                    .push(Event::BodyQuarantined(self.bodies.handle(slot)));
                count += 1;
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ColliderBuilder;

    /// Through private fields: the public API cannot drive a body past its limits inside the
    /// solve (check 1 catches what forces can do), so this pokes an inertia no builder would
    /// accept into the middle cube of a stack, which makes its contact rows spin it without
    /// bound (every mass ratio solved as it is: the support ratio would have the cube act
    /// heavier under the one it holds up, and tame it).
    #[test]
    fn a_body_that_diverges_in_the_solve_is_quarantined_and_its_stack_keeps_its_state() {
        let mut world = World::default();
        let every_ratio = SolverSettings {
            support_mass_ratio: Real::INFINITY,
            ..*world.settings()
        };
        world.set_settings(every_ratio).unwrap();
        let ground = world.add_body(RigidBodyBuilder::fixed()).unwrap();
        world
            .add_collider(ColliderBuilder::halfspace(Vector::y()), ground)
            .unwrap();
        let cubes: Vec<BodyHandle> = (0..3)
            .map(|i| {
                let body = world
                    .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(
                        0.1 * i as Real,
                        0.5 + i as Real,
                        0.0,
                    )))
                    .unwrap();
                world
                    .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), body)
                    .unwrap();
                body
            })
            .collect();
        for _ in 0..10 {
            world.step(1.0 / 60.0).unwrap();
        }
        let middle = cubes[1];
        let mass = &mut world.bodies.at_mut(middle.index).mass;
        mass.principal_inertia = Vector::repeat(1e-30);
        mass.mass = 1e-30;
        world.set_sleeping(false);
        let before: Vec<Isometry<Real>> = cubes
            .iter()
            .map(|c| *world.body(*c).unwrap().pose())
            .collect();
        let report = world.step(1.0 / 60.0).unwrap();
        assert_eq!(report.quarantined, 1);
        assert!(world.body(middle).unwrap().is_quarantined());
        let events: Vec<Event> = world.drain_events().collect();
        assert!(
            events.contains(&Event::BodyQuarantined(middle)),
            "{events:?}"
        );
        for (c, pose) in cubes.iter().zip(&before) {
            let now = world.body(*c).unwrap();
            assert_eq!(now.pose(), pose, "the stack keeps its state this step");
        }
        for _ in 0..30 {
            world.step(1.0 / 60.0).unwrap();
        }
        for c in &cubes {
            let b = world.body(*c).unwrap();
            assert!(b.translation().iter().all(|x| x.is_finite()));
            assert!(b.linear_velocity().iter().all(|x| x.is_finite()));
        }
        assert_eq!(world.body(middle).unwrap().pose(), &before[1], "frozen");
    }
}

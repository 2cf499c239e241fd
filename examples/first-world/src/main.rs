//! What a game does with sprung in its first hour: a world with ground, a door on a hinge
//! driven by a motor, the motor changed at run time, a ray cast for line of sight, and the
//! contact events read after each step. Everything comes from `sprung` alone.

use sprung::math::{Point, Real, Vector};
use sprung::{
    ColliderBuilder, Event, JointBuilder, JointHandle, QueryFilter, RigidBodyBuilder, World,
};

/// The demo's world and the handles it keeps.
pub struct Demo {
    /// The world.
    pub world: World,
    /// The door's hinge.
    pub hinge: JointHandle,
    /// Contacts that began, counted from the events.
    pub contacts_began: usize,
}

impl Demo {
    /// Ground, a crate dropped on it, and a door hinged to a post, its motor turning it at
    /// 1 rad/s.
    pub fn new() -> Result<Demo, sprung::Error> {
        let mut world = World::default();
        let ground = world.add_body(RigidBodyBuilder::fixed())?;
        world.add_collider(ColliderBuilder::cuboid(20.0, 0.5, 20.0), ground)?;

        let crate_body =
            world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(3.0, 2.0, 0.0)))?;
        world.add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), crate_body)?;

        // A post, and a door hinged to it about the vertical, clear of the ground.
        let post =
            world.add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 2.0, 0.0)))?;
        let door =
            world.add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 2.0, 0.6)))?;
        world.add_collider(ColliderBuilder::cuboid(0.05, 1.0, 0.5), door)?;
        let hinge = world.add_joint(
            JointBuilder::hinge(
                Point::origin(),
                Point::new(0.0, 0.0, -0.6),
                Vector::y(),
                Vector::y(),
            )
            .motor(1.0, 10_000.0),
            post,
            door,
        )?;
        Ok(Demo {
            world,
            hinge,
            contacts_began: 0,
        })
    }

    /// One step, then its events.
    pub fn step(&mut self) -> Result<(), sprung::Error> {
        self.world.step(1.0 / 60.0)?;
        // The events are drained into the demo's own counters; the world is free again after.
        for event in self.world.drain_events() {
            if let Event::ContactBegan { .. } = event {
                self.contacts_began += 1;
            }
        }
        Ok(())
    }

    /// The door's angle (rad).
    pub fn door_angle(&self) -> Result<Real, sprung::Error> {
        self.world.joint_position(self.hinge)
    }

    /// The distance to the first thing a ray from `from` along `towards` hits, if any.
    pub fn line_of_sight(&self, from: Point<Real>, towards: Vector<Real>) -> Option<Real> {
        self.world
            .cast_ray(from, towards, 100.0, true, &QueryFilter::new())
            .ok()
            .flatten()
            .map(|hit| hit.toi)
    }
}

fn main() -> Result<(), sprung::Error> {
    let mut demo = Demo::new()?;
    for _ in 0..60 {
        demo.step()?;
    }
    println!("after 1 s the door is at {:.2} rad", demo.door_angle()?);
    // Reverse the motor: the door swings back.
    demo.world
        .set_joint_motor(demo.hinge, Some((-1.0, 10_000.0)))?;
    for _ in 0..60 {
        demo.step()?;
    }
    println!("after 2 s it is at {:.2} rad", demo.door_angle()?);
    let down = demo.line_of_sight(Point::new(3.0, 5.0, 0.0), -Vector::y());
    println!(
        "looking down on the crate: {down:?} m; contacts began: {}",
        demo.contacts_began
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_motor_turns_the_door_and_turns_it_back() {
        let mut demo = Demo::new().unwrap();
        for _ in 0..60 {
            demo.step().unwrap();
        }
        // One second at 1 rad/s: 10 kN m bring the door (200 kg, 67 kg m^2 about the hinge) to
        // speed in 7 ms, so it lags the motor by 3 mrad.
        let there = demo.door_angle().unwrap();
        assert!((there - 1.0).abs() < 0.02, "{there}");
        demo.world
            .set_joint_motor(demo.hinge, Some((-1.0, 10_000.0)))
            .unwrap();
        for _ in 0..60 {
            demo.step().unwrap();
        }
        let back = demo.door_angle().unwrap();
        assert!(back.abs() < 0.02, "{back}");
    }

    #[test]
    fn the_ray_sees_the_crate_and_the_events_saw_it_land() {
        let mut demo = Demo::new().unwrap();
        for _ in 0..120 {
            demo.step().unwrap();
        }
        // The crate (half-height 0.5) rests on the ground's top at y = 0.5: its top is at 1.5,
        // 3.5 m below the ray's origin.
        let toi = demo
            .line_of_sight(Point::new(3.0, 5.0, 0.0), -Vector::y())
            .unwrap();
        assert!((toi - 3.5).abs() < 0.02, "{toi}");
        assert!(demo.contacts_began >= 1);
    }
}

//! The engine with its defaults against four textbook closed forms, as the time step grows
//! (the right panel of `sprung plot accuracy`): each is a world of one moving body, stepped at
//! `dt`, and its relative error.
//!
//! - rolling: a solid ball (r 0.25 m, friction 0.5) rolling from rest down a 10 degree slope,
//!   its acceleration (a line through its speeds from 0.5 s to 2 s) against `5/7 g sin`;
//! - restitution: a ball thrown at 3 m/s at a floor (restitution 0.5, gravity off), the speed
//!   it leaves at against `e v`;
//! - pendulum: a ball (r 0.05 m) on a 1 m ball joint swinging from 3 degrees, its period over
//!   four swings against the physical pendulum's `2 pi sqrt((L^2 + 2/5 r^2) / (g L))`, less
//!   its amplitude's lengthening `1 + theta^2 / 16`;
//! - free spin: a 1 x 2 x 3 m box spun at 5 rad/s about its intermediate axis (gravity off)
//!   for 5 s, the largest drift of its angular momentum or kinetic energy (both constant).

use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{ColliderBuilder, JointBuilder, RigidBodyBuilder, World};

const G: Real = 9.81;

/// The rolling ball's relative error in acceleration at step `dt`.
pub fn rolling(dt: Real) -> f64 {
    let theta: Real = 10.0_f32.to_radians();
    let normal = Vector::new(theta.sin(), theta.cos(), 0.0);
    let down = Vector::new(theta.cos(), -theta.sin(), 0.0);
    let mut world = World::default();
    let slope = Isometry::new(-normal, Vector::new(0.0, 0.0, -theta));
    let ground = world
        .add_body(RigidBodyBuilder::fixed().pose(slope))
        .expect("a valid body");
    world
        .add_collider(ColliderBuilder::cuboid(40.0, 1.0, 10.0), ground)
        .expect("a valid collider");
    let r = 0.25;
    let ball = world
        .add_body(RigidBodyBuilder::dynamic().translation(normal * r - down * 10.0))
        .expect("a valid body");
    world
        .add_collider(ColliderBuilder::ball(r), ball)
        .expect("a valid collider");
    let (mut n, mut st, mut sv, mut stt, mut stv) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for i in 1..=(2.0 / dt).round() as usize {
        world.step(dt).expect("a valid step");
        let t = i as f64 * dt as f64;
        if t >= 0.5 {
            let v = world.body(ball).expect("live").linear_velocity().dot(&down) as f64;
            (n, st, sv, stt, stv) = (n + 1.0, st + t, sv + v, stt + t * t, stv + t * v);
        }
    }
    let a = (n * stv - st * sv) / (n * stt - st * st);
    let exact = 5.0 / 7.0 * G as f64 * (theta as f64).sin();
    (a - exact).abs() / exact
}

/// The thrown ball's relative error in the speed it leaves the floor at, at step `dt`.
pub fn restitution(dt: Real) -> f64 {
    let (speed, e) = (3.0, 0.5);
    let mut world = World::new(Vector::zeros()).expect("finite gravity");
    let floor = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .expect("a valid body");
    world
        .add_collider(
            ColliderBuilder::cuboid(10.0, 1.0, 10.0).restitution(e),
            floor,
        )
        .expect("a valid collider");
    let ball = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(0.0, 1.0, 0.0))
                .linear_velocity(Vector::new(0.0, -speed, 0.0)),
        )
        .expect("a valid body");
    world
        .add_collider(ColliderBuilder::ball(0.1).restitution(e), ball)
        .expect("a valid collider");
    for _ in 0..(1.0 / dt).round() as usize {
        world.step(dt).expect("a valid step");
    }
    let out = world.body(ball).expect("live").linear_velocity().y as f64;
    let exact = (e * speed) as f64;
    (out - exact).abs() / exact
}

/// The pendulum's relative error in its period at step `dt`.
pub fn pendulum(dt: Real) -> f64 {
    let (length, r, amplitude) = (1.0_f64, 0.05_f64, 3.0_f64.to_radians());
    let mut world = World::default();
    let pivot = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 2.0, 0.0)))
        .expect("a valid body");
    let (s, c) = (amplitude.sin() as Real, amplitude.cos() as Real);
    let bob = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(s, 2.0 - c, 0.0)))
        .expect("a valid body");
    world
        .add_collider(ColliderBuilder::ball(r as Real), bob)
        .expect("a valid collider");
    world
        .add_joint(
            JointBuilder::ball(Point::origin(), Point::new(-s, c, 0.0)),
            pivot,
            bob,
        )
        .expect("a valid joint");
    // Times the bob crosses the vertical going the same way, between steps by a line.
    let mut crossings = Vec::new();
    let mut last = s as f64;
    let period =
        2.0 * std::f64::consts::PI * ((length * length + 0.4 * r * r) / (9.81 * length)).sqrt();
    for i in 1..=(5.0 * period / dt as f64).ceil() as usize {
        world.step(dt).expect("a valid step");
        let x = world.body(bob).expect("live").translation().x as f64;
        if last > 0.0 && x <= 0.0 {
            let t = (i as f64 - x / (x - last)) * dt as f64;
            crossings.push(t);
        }
        last = x;
    }
    let (Some(first), Some(end)) = (crossings.first(), crossings.last()) else {
        return 1.0;
    };
    let measured = (end - first) / (crossings.len() - 1).max(1) as f64;
    let exact = period * (1.0 + amplitude * amplitude / 16.0);
    (measured - exact).abs() / exact
}

/// The spinning box's largest relative drift of its angular momentum or energy at step `dt`.
pub fn free_spin(dt: Real) -> f64 {
    let mut world = World::new(Vector::zeros()).expect("finite gravity");
    let body = world
        .add_body(RigidBodyBuilder::dynamic().angular_velocity(Vector::new(5e-3, 5.0, 5e-3)))
        .expect("a valid body");
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 1.0, 1.5), body)
        .expect("a valid collider");
    let state = |world: &World| {
        let b = world.body(body).expect("live");
        let w = b.angular_velocity().cast::<f64>();
        let l = b.world_inertia().cast::<f64>() * w;
        (l, 0.5 * l.dot(&w))
    };
    let (l0, e0) = state(&world);
    let mut worst = 0.0_f64;
    for _ in 0..(5.0 / dt).round() as usize {
        world.step(dt).expect("a valid step");
        let (l, e) = state(&world);
        worst = worst
            .max((l - l0).norm() / l0.norm())
            .max((e - e0).abs() / e0);
    }
    worst
}

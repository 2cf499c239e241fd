//! Free fall and projectile flight against semi-implicit Euler: bit for bit against the f32
//! recurrence `v += g h; d += v h` run substep by substep, the motion `d` since the step began
//! added to the position once per step (as the solver keeps it, so that contacts can read it), and against its closed form after N
//! substeps, x = x0 + v0 N h + g h^2 N (N + 1) / 2 (PHYSICS.md), within f32 rounding of a
//! 200 m trajectory.

use sprung::math::{Real, Vector};
use sprung::{ColliderBuilder, RigidBodyBuilder, World};

#[test]
fn free_fall_and_projectile_follow_semi_implicit_euler_step_by_step() {
    let mut world = World::default();
    let dt: Real = 1.0 / 60.0;
    let substeps = world.settings().substeps as f64;
    let h = dt as f64 / substeps;
    let g = -9.81_f64;
    let (x0, y0, vx, vy) = (-3.0_f64, 200.0_f64, 4.0_f64, 12.0_f64);
    let ball = world
        .add_body(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(x0 as Real, y0 as Real, 0.0))
                .linear_velocity(Vector::new(vx as Real, vy as Real, 0.0)),
        )
        .unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.5), ball)
        .unwrap();
    let dropped = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(50.0, 100.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), dropped)
        .unwrap();
    // The f32 recurrence, substep by substep, as PHYSICS.md writes it, with the position
    // moved once per step by the motion summed over its substeps.
    let h32 = dt / world.settings().substeps as Real;
    let (mut ry, mut rvy) = (y0 as Real, vy as Real);
    let (mut dy, mut dvy): (Real, Real) = (100.0, 0.0);
    // Rounding of a trajectory 200 m long over a thousand substeps.
    let tol = 2e-5 * 200.0;
    for step in 1..=300 {
        world.step(dt).unwrap();
        let (mut moved_r, mut moved_d): (Real, Real) = (0.0, 0.0);
        for _ in 0..world.settings().substeps {
            rvy += -9.81 * h32;
            moved_r += rvy * h32;
            dvy += -9.81 * h32;
            moved_d += dvy * h32;
        }
        ry += moved_r;
        dy += moved_d;
        assert_eq!(world.body(ball).unwrap().translation().y, ry, "step {step}");
        assert_eq!(
            world.body(ball).unwrap().linear_velocity().y,
            rvy,
            "step {step}"
        );
        assert_eq!(
            world.body(dropped).unwrap().translation().y,
            dy,
            "step {step}"
        );
        let n = step as f64 * substeps;
        let expected_y = y0 + vy * n * h + g * h * h * n * (n + 1.0) / 2.0;
        let expected_x = x0 + vx * n * h;
        let p = world.body(ball).unwrap().translation();
        assert!(
            (p.y as f64 - expected_y).abs() < tol,
            "step {step}: y {} vs {expected_y}",
            p.y
        );
        assert!(
            (p.x as f64 - expected_x).abs() < tol,
            "step {step}: x {} vs {expected_x}",
            p.x
        );
        let v = world.body(ball).unwrap().linear_velocity();
        assert!((v.y as f64 - (vy + g * n * h)).abs() < 1e-4 * (1.0 + (g * n * h).abs()));
        let d = world.body(dropped).unwrap().translation();
        let expected = 100.0 + g * h * h * n * (n + 1.0) / 2.0;
        assert!(
            (d.y as f64 - expected).abs() < tol,
            "step {step}: {} vs {expected}",
            d.y
        );
        assert_eq!(
            world.body(dropped).unwrap().pose().rotation,
            sprung::math::Rotation::identity()
        );
    }
}

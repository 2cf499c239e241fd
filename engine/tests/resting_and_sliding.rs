//! Friction against Coulomb's law: a cube at rest stays put; on a slope it stays when
//! tan(theta) < mu and otherwise slides with a = g (sin(theta) - mu cos(theta)) (PHYSICS.md).

mod common;

use sprung::math::{Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;

#[test]
fn a_cube_resting_on_the_ground_moves_less_than_a_millimetre_in_ten_seconds() {
    let mut world = World::default();
    common::ground(&mut world, 100.0);
    let cube = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.3, 0.5, -0.7)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), cube)
        .unwrap();
    let start = *world.body(cube).unwrap().pose();
    for _ in 0..600 {
        world.step(DT).unwrap();
    }
    let end = world.body(cube).unwrap().pose();
    let moved = (end.translation.vector - start.translation.vector).norm();
    assert!(moved < 1e-3, "moved {moved} m");
    assert!(end.rotation.angle_to(&start.rotation) < 1e-3);
}

/// A slope of `theta`: a big static box turned about Z, the cube resting on it.
fn slope(theta: Real, mu: Real) -> (World, BodyHandle, Vector<Real>) {
    common::slope(theta, mu, ColliderBuilder::cuboid(40.0, 0.5, 40.0), 0.5)
}

#[test]
fn a_cube_stays_on_a_slope_when_tan_theta_is_below_mu() {
    for (theta_deg, mu) in [(10.0_f32, 0.5_f32), (20.0, 0.5), (25.0, 0.6)] {
        let (mut world, cube, _) = slope(theta_deg.to_radians(), mu);
        let moved = common::creep(&mut world, cube, 300, DT);
        assert!(moved < 0.01, "theta {theta_deg} mu {mu}: crept {moved} m");
    }
}

#[test]
fn a_cube_slides_down_a_slope_with_the_coulomb_acceleration() {
    let g = 9.81;
    for (theta_deg, mu) in [(30.0_f32, 0.2_f32), (35.0, 0.5), (20.0, 0.1)] {
        let theta = theta_deg.to_radians();
        let expected = g * (theta.sin() - mu * theta.cos());
        let (mut world, cube, down) = slope(theta, mu);
        let measured = common::acceleration_along(&mut world, cube, down);
        assert!(
            (measured - expected).abs() < 0.02 * expected,
            "theta {theta_deg} mu {mu}: a = {measured}, Coulomb says {expected}"
        );
    }
}

/// A cube sliding on the ground in any direction slows at mu g: friction is one force of at
/// most mu N, whatever the direction (not mu N along each of two axes).
#[test]
fn a_sliding_cube_slows_at_mu_g_in_every_direction() {
    let mu = 0.3;
    for degrees in [0.0_f32, 20.0, 45.0, 70.0] {
        let mut world = World::default();
        common::ground_with(&mut world, 50.0, |c| c.friction(mu));
        let heading = Vector::new(degrees.to_radians().cos(), 0.0, degrees.to_radians().sin());
        let cube = world
            .add_body(
                RigidBodyBuilder::dynamic()
                    .translation(Vector::new(0.0, 0.5, 0.0))
                    .linear_velocity(heading * 6.0),
            )
            .unwrap();
        world
            .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5).friction(mu), cube)
            .unwrap();
        // 1 s of sliding: from 6 m/s down to 6 - mu g = 3.06 m/s, along the same heading.
        for _ in 0..60 {
            world.step(DT).unwrap();
        }
        let v = world.body(cube).unwrap().linear_velocity();
        let expected = 6.0 - mu * 9.81;
        assert!(
            (v.norm() - expected).abs() < 0.02 * expected,
            "{degrees} deg: {} m/s, expected {expected}",
            v.norm()
        );
        assert!(
            v.normalize().dot(&heading) > 0.999,
            "{degrees} deg: turned to {v:?}"
        );
    }
}

//! The implicit PD controller: mass-independent in acceleration mode, and stable where the
//! explicit PD diverges.

use sprung::math::{Point, Real, Vector};
use sprung::spring::PdController;
use sprung::{ColliderBuilder, RigidBodyBuilder, Spring, World};

const DT: Real = 1.0 / 60.0;

fn follow(pd: &PdController, density: Real, steps: usize) -> Vec<Vector<Real>> {
    let mut world = World::new(Vector::zeros()).unwrap();
    let body = world.add_body(RigidBodyBuilder::dynamic()).unwrap();
    world
        .add_collider(ColliderBuilder::ball(0.5).density(density), body)
        .unwrap();
    let target = Point::new(3.0, -1.0, 2.0);
    (0..steps)
        .map(|_| {
            world
                .apply_pd(body, pd, target, Vector::zeros(), DT)
                .unwrap();
            world.step(DT).unwrap();
            world.body(body).unwrap().translation()
        })
        .collect()
}

#[test]
fn acceleration_mode_moves_every_mass_alike_and_arrives() {
    let pd = PdController::new(Spring::Frequency {
        hertz: 1.0,
        damping_ratio: 1.0,
    })
    .unwrap();
    let light = follow(&pd, 10.0, 300);
    let heavy = follow(&pd, 10_000.0, 300);
    for (a, b) in light.iter().zip(&heavy) {
        assert!((a - b).norm() < 1e-4, "{a:?} vs {b:?}");
    }
    assert!((light[light.len() - 1] - Vector::new(3.0, -1.0, 2.0)).norm() < 1e-3);
    // Critically damped: it never overshoots the target along the way.
    assert!(light.iter().all(|p| p.x <= 3.0 + 1e-4));
}

#[test]
fn the_implicit_pd_is_stable_where_the_explicit_one_diverges() {
    // omega dt = 10: far past explicit PD's limit.
    let omega: Real = 10.0 / DT;
    let pd = PdController::new(Spring::Acceleration {
        stiffness: omega * omega,
        damping: 2.0 * omega,
    })
    .unwrap();
    let path = follow(&pd, 1000.0, 120);
    // Bounded: the force is held for the whole step while the solver takes its substeps, so
    // the body arrives with some speed left; the recurrence of a constant force over n
    // substeps overshoots by 6% at n = 4 and 9% at n = 8 (7 by default), tending to 13% as n
    // grows.
    let reach = Vector::<Real>::new(3.0, -1.0, 2.0).norm();
    assert!(
        path.iter().all(|p| p.norm() < 1.12 * reach),
        "overshot far: {:?}",
        path.iter().map(|p| p.norm()).fold(0.0, Real::max)
    );
    assert!((path[path.len() - 1] - Vector::new(3.0, -1.0, 2.0)).norm() < 1e-3);
    // The explicit PD at the same gains, on a unit mass in one dimension.
    let (mut x, mut v): (Real, Real) = (0.0, 0.0);
    for _ in 0..120 {
        let a = omega * omega * (3.0 - x) - 2.0 * omega * v;
        v += a * DT;
        x += v * DT;
    }
    assert!(!x.is_finite() || x.abs() > 1e6, "explicit PD stayed at {x}");
}

#[test]
fn force_mode_uses_physical_units() {
    // k = 100 N/m on a 1 kg body: 10 rad/s; on a 4 kg body: 5 rad/s. The heavier lags.
    let pd = PdController::new(Spring::Stiffness {
        stiffness: 100.0,
        damping: 5.0,
    })
    .unwrap();
    let mass_of = |density: Real| density * 4.0 / 3.0 * std::f32::consts::PI * 0.125;
    let light = follow(&pd, 1.0 / mass_of(1.0), 20);
    let heavy = follow(&pd, 4.0 / mass_of(1.0), 20);
    assert!(
        light[19].x > heavy[19].x + 0.1,
        "{:?} vs {:?}",
        light[19],
        heavy[19]
    );
    assert!(PdController::new(Spring::Stiffness {
        stiffness: -1.0,
        damping: 0.0
    })
    .is_err());
}

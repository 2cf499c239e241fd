//! The position-based mass-spring system: it cannot explode, a rope hangs at its length, and
//! cloth lands on the world's colliders without moving them.

mod common;

use sprung::math::{Point, Real, Vector};
use sprung::spring::MassSpring;
use sprung::{ColliderBuilder, Error, RigidBodyBuilder, World};

fn cloth(n: usize, elasticity: Real, y: Real) -> MassSpring {
    cloth_in(n, elasticity, y, Vector::new(0.0, -9.81, 0.0), false)
}

/// An n x n cloth 0.2 m apart at height `y`, its first corner pinned if `pin_corner`.
fn cloth_in(
    n: usize,
    elasticity: Real,
    y: Real,
    gravity: Vector<Real>,
    pin_corner: bool,
) -> MassSpring {
    let mut cloth = MassSpring::new(elasticity, gravity, 1.0 / 60.0).unwrap();
    for i in 0..n {
        for k in 0..n {
            let at = Point::new(0.2 * i as Real - 1.0, y, 0.2 * k as Real - 1.0);
            cloth.add_point(at, pin_corner && i == 0 && k == 0).unwrap();
        }
    }
    for i in 0..n {
        for k in 0..n {
            if i + 1 < n {
                cloth.add_spring(i * n + k, (i + 1) * n + k).unwrap();
            }
            if k + 1 < n {
                cloth.add_spring(i * n + k, i * n + k + 1).unwrap();
            }
        }
    }
    cloth
}

#[test]
fn it_never_explodes_whatever_the_elasticity_and_refuses_what_would() {
    for elasticity in [0.1, 0.9, 1.0, 1.2, 1.5, 1.9, 2.0] {
        let mut c = cloth(10, elasticity, 0.0);
        c.set_damping(0.0).unwrap();
        // Scatter every point up to 50 m away: springs stretched 500-fold.
        let mut seed = 7u64;
        let mut random = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 40) as Real / 16_777_216.0 - 0.5) * 100.0
        };
        for i in 0..c.points().len() {
            let p = c.point(i).unwrap();
            c.set_point(i, p + Vector::new(random(), random(), random()))
                .unwrap();
        }
        let extent = |c: &MassSpring| {
            c.points()
                .iter()
                .map(|p| p.coords.norm())
                .fold(0.0, Real::max)
        };
        let start = extent(&c);
        for _ in 0..1000 {
            c.update(None);
            assert!(c
                .points()
                .iter()
                .all(|p| p.coords.iter().all(|x| x.is_finite())));
        }
        // Gravity alone moves it 0.5 g t^2 = 1362 m in 16.7 s; the springs add nothing.
        let fallen = 0.5 * 9.81 * (1000.0_f32 / 60.0).powi(2);
        assert!(
            extent(&c) < start + fallen + 1.0,
            "elasticity {elasticity}: grew from {start} to {}",
            extent(&c)
        );
    }
    assert!(matches!(
        MassSpring::new(2.01, Vector::zeros(), 0.01).map_err(Error::from),
        Err(Error::OutOfRange(_))
    ));
    assert!(matches!(
        MassSpring::new(-0.1, Vector::zeros(), 0.01).map_err(Error::from),
        Err(Error::OutOfRange(_))
    ));
    assert!(matches!(
        MassSpring::new(1.0, Vector::zeros(), 0.0).map_err(Error::from),
        Err(Error::InvalidTimeStep)
    ));
    let mut c = cloth(2, 1.0, 0.0);
    assert!(c.add_spring(0, 9).is_err() && c.add_spring(1, 1).is_err());
    assert!(c.add_point(Point::new(Real::NAN, 0.0, 0.0), false).is_err());
}

#[test]
fn a_pinned_rope_hangs_at_its_length() {
    let mut rope = MassSpring::new(1.0, Vector::new(0.0, -9.81, 0.0), 1.0 / 60.0).unwrap();
    rope.iterations = 30;
    rope.set_damping(0.05).unwrap();
    let top = rope.add_point(Point::new(0.0, 10.0, 0.0), true).unwrap();
    let mut previous = top;
    for i in 1..=20 {
        let p = rope
            .add_point(Point::new(0.1 * i as Real, 10.0, 0.0), false)
            .unwrap();
        rope.add_spring(previous, p).unwrap();
        previous = p;
    }
    for _ in 0..1200 {
        rope.update(None);
    }
    let end = rope.point(previous).unwrap();
    assert_eq!(rope.point(top).unwrap(), Point::new(0.0, 10.0, 0.0));
    // Hanging straight down, 2 m long, give or take a little stretch.
    assert!(
        end.x.abs() < 0.01 && (10.0 - end.y - 2.0).abs() < 0.04,
        "end at {end:?}"
    );
}

#[test]
fn cloth_lands_on_a_box_and_does_not_push_it() {
    let mut world = World::default();
    let table = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 0.5, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), table)
        .unwrap();
    let ground = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0, 0.0)))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(20.0, 1.0, 20.0), ground)
        .unwrap();
    let mut c = cloth(11, 1.0, 2.0);
    c.set_damping(0.05).unwrap();
    for _ in 0..300 {
        world.step(1.0 / 60.0).unwrap();
        c.update(Some(&world));
    }
    // The centre of the cloth rests on the table's top (y = 1) and the rest drapes down, above
    // the ground; the table (a dynamic body) was not pushed.
    let centre = c.point(5 * 11 + 5).unwrap();
    assert!(
        (centre.y - 1.0 - c.radius).abs() < 0.02,
        "centre at {centre:?}"
    );
    assert!(
        c.points().iter().all(|p| p.y > -0.01),
        "cloth through the ground"
    );
    let t = world.body(table).unwrap().translation();
    assert!(
        (t - Vector::new(0.0, 0.5, 0.0)).norm() < 0.01,
        "the table moved to {t:?}"
    );
}

/// The property test: for every elasticity in [0, 2], 100,000 updates with a random pull
/// of up to 1 m on a random point every 10 updates stay finite and bounded.
#[test]
fn random_pulls_for_a_hundred_thousand_updates_stay_bounded() {
    let mut rng = common::rng::Rng(42);
    let mut random = move || rng.unit();
    for step in 0..=8 {
        let elasticity = step as Real * 0.25;
        // A 6 x 6 cloth without gravity, its first corner pinned.
        let mut c = cloth_in(6, elasticity, 0.0, Vector::zeros(), true);
        let mut largest: Real = 0.0;
        for update in 0..100_000 {
            if update % 10 == 0 {
                let index = (random() * 36.0) as usize % 36;
                let pull = Vector::new(random() - 0.5, random() - 0.5, random() - 0.5) * 2.0;
                c.pull(index, pull).unwrap();
            }
            c.update(None);
            if update % 1000 == 0 {
                largest = largest.max(
                    c.points()
                        .iter()
                        .map(|p| p.coords.norm())
                        .fold(0.0, Real::max),
                );
            }
        }
        assert!(
            c.points()
                .iter()
                .all(|p| p.coords.iter().all(|x| x.is_finite())),
            "elasticity {elasticity}"
        );
        // Pinned at a corner, 1 m across at rest: anything past ~10 m would be the springs
        // feeding energy (a slack elasticity of 0 leaves free points to drift on the pulls alone).
        let bound = if elasticity == 0.0 { 1.0e4 } else { 10.0 };
        assert!(
            largest < bound,
            "elasticity {elasticity}: reached {largest} m"
        );
    }
}

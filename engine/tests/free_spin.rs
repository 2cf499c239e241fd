//! A torque-free body against the closed form: its angular momentum (a vector) and its kinetic
//! energy are constant, whatever it does. A box spun about its major or minor axis keeps
//! spinning about it; spun about its intermediate axis it flips end over end (the tennis
//! racket theorem, Dzhanibekov's wing nut), every few seconds for the wobble given here.

use sprung::math::{Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;

/// A box of full extents 1 x 2 x 3 m, gravity off, spun at 5 rad/s about principal axis
/// `axis` with 1e-3 of that about the other two.
fn spinning_box(axis: usize) -> (World, BodyHandle) {
    let mut world = World::new(Vector::zeros()).unwrap();
    let mut w = Vector::repeat(5.0e-3);
    w[axis] = 5.0;
    let body = world
        .add_body(RigidBodyBuilder::dynamic().angular_velocity(w))
        .unwrap();
    world
        .add_collider(ColliderBuilder::cuboid(0.5, 1.0, 1.5), body)
        .unwrap();
    (world, body)
}

/// World angular momentum and kinetic energy (f64, from what the body reports).
fn momentum_and_energy(world: &World, body: BodyHandle) -> (nalgebra::Vector3<f64>, f64) {
    let b = world.body(body).unwrap();
    let w = b.angular_velocity().cast::<f64>();
    let l = b.world_inertia().cast::<f64>() * w;
    (l, 0.5 * l.dot(&w))
}

/// Steps 10 s, holding L and the energy within 0.1% at every step; returns, over the run, the
/// lowest cosine between the spin axis (in the world) and its start, and the largest angle
/// (degrees) between that axis and L.
fn spin(axis: usize) -> (f64, f64) {
    let (mut world, body) = spinning_box(axis);
    let (l0, e0) = momentum_and_energy(&world, body);
    let start = Vector::ith(axis, 1.0);
    let (mut lowest, mut widest) = (1.0f64, 0.0f64);
    for step in 1..=600 {
        world.step(DT).unwrap();
        let (l, e) = momentum_and_energy(&world, body);
        assert!(
            (l - l0).norm() <= 1e-3 * l0.norm(),
            "axis {axis}, step {step}: L {l:?}, at the start {l0:?}"
        );
        assert!(
            (e - e0).abs() <= 1e-3 * e0,
            "axis {axis}, step {step}: energy {e}, at the start {e0}"
        );
        let now = (world.body(body).unwrap().pose().rotation * start).cast::<f64>();
        lowest = lowest.min(now.dot(&start.cast()));
        let angle = now.dot(&l).abs() / l.norm();
        widest = widest.max(angle.min(1.0).acos().to_degrees());
    }
    (lowest, widest)
}

#[test]
fn a_box_spun_about_its_major_axis_keeps_l_and_its_energy_and_its_axis() {
    let (_, widest) = spin(0);
    assert!(
        widest < 1.0,
        "the major axis strayed {widest} degrees from L"
    );
}

#[test]
fn a_box_spun_about_its_minor_axis_keeps_l_and_its_energy_and_its_axis() {
    let (_, widest) = spin(2);
    assert!(
        widest < 1.0,
        "the minor axis strayed {widest} degrees from L"
    );
}

#[test]
fn a_box_spun_about_its_intermediate_axis_flips_and_keeps_l_and_its_energy() {
    let (lowest, _) = spin(1);
    assert!(
        lowest < -0.9,
        "never flipped: the axis's lowest cosine {lowest}"
    );
}

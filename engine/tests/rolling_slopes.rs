//! Rolling and sliding down slopes with the default material, against the closed forms. A
//! round body rolling without slipping down a slope of angle theta accelerates at
//! `g sin(theta) / (1 + I / (m r^2))`: 5/7 g sin(theta) for a solid ball. It rolls while the
//! friction this needs, `(I / (I + m r^2)) m g sin(theta)`, is within `mu m g cos(theta)`: for
//! a ball, while `tan(theta) <= 3.5 mu`; steeper, it slides at `g (sin(theta) - mu
//! cos(theta))`. On flat ground a rolling ball keeps its speed. Every run checks at every step
//! that the body stays on the surface, and fits its speed along the slope over 0.5-3 s.

use sprung::math::{Isometry, Real, Vector};
use sprung::{BodyHandle, ColliderBuilder, RigidBodyBuilder, World};

const DT: Real = 1.0 / 60.0;
const G: Real = 9.81;

/// A slope of `degrees` falling along +x (a static box whose top face passes through the
/// origin), with friction `mu` on both the slope and the body.
struct Slope {
    world: World,
    /// The surface's normal and the direction straight down it.
    normal: Vector<Real>,
    down: Vector<Real>,
}

impl Slope {
    fn new(degrees: Real, mu: Real) -> Slope {
        let theta = degrees.to_radians();
        let normal = Vector::new(theta.sin(), theta.cos(), 0.0);
        let down = Vector::new(theta.cos(), -theta.sin(), 0.0);
        let mut world = World::default();
        let pose = Isometry::new(-normal, Vector::new(0.0, 0.0, -theta));
        let ground = world
            .add_body(RigidBodyBuilder::fixed().pose(pose))
            .unwrap();
        world
            .add_collider(
                ColliderBuilder::cuboid(80.0, 1.0, 10.0).friction(mu),
                ground,
            )
            .unwrap();
        Slope {
            world,
            normal,
            down,
        }
    }

    /// Adds `collider` on a body `up` metres up the slope, its centre `height` over the
    /// surface, moving down it at `v0`, and rolling at that speed on a radius of `roll_r` if
    /// that is positive.
    fn add(
        &mut self,
        collider: ColliderBuilder,
        height: Real,
        up: Real,
        v0: Real,
        roll_r: Real,
    ) -> BodyHandle {
        let at = -self.down * up + self.normal * height;
        let mut body = RigidBodyBuilder::dynamic()
            .translation(at)
            .linear_velocity(self.down * v0);
        if roll_r > 0.0 {
            // Rolling: the contact point is still, w x (-n r) = -v, so w = (n x v) / r.
            body = body.angular_velocity(self.normal.cross(&(self.down * v0)) / roll_r);
        }
        let handle = self.world.add_body(body).unwrap();
        self.world.add_collider(collider, handle).unwrap();
        handle
    }

    /// Steps 3 s; checks at every step that the body's centre stays `height` over the surface
    /// (within 1 cm); returns the acceleration along the slope, a least-squares line through
    /// the speeds from 0.5 s to 3 s.
    fn acceleration(&mut self, body: BodyHandle, height: Real) -> Real {
        let (mut n, mut st, mut sv, mut stt, mut stv) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for step in 1..=180 {
            self.world.step(DT).unwrap();
            let b = self.world.body(body).unwrap();
            let over = b.translation().dot(&self.normal);
            assert!(
                (over - height).abs() < 0.01,
                "step {step}: the centre is {over} m over the surface, not {height}"
            );
            let t = step as f64 * DT as f64;
            if t >= 0.5 {
                let v = b.linear_velocity().dot(&self.down) as f64;
                n += 1.0;
                st += t;
                sv += v;
                stt += t * t;
                stv += t * v;
            }
        }
        ((n * stv - st * sv) / (n * stt - st * st)) as Real
    }
}

#[test]
fn a_ball_rolls_down_slopes_of_5_to_30_degrees_at_five_sevenths_g_sin_theta() {
    let r = 0.25;
    for degrees in [5.0, 10.0, 15.0, 20.0, 25.0, 30.0] {
        for v0 in [0.0, 1.0] {
            let mut slope = Slope::new(degrees, 0.5);
            let ball = slope.add(ColliderBuilder::ball(r), r, 20.0, v0, r);
            let a = slope.acceleration(ball, r);
            let expected = 5.0 / 7.0 * G * degrees.to_radians().sin();
            assert!(
                (a - expected).abs() < 0.01 * expected,
                "{degrees} degrees from {v0} m/s: a = {a}, 5/7 g sin = {expected}"
            );
        }
    }
}

#[test]
fn a_ball_slides_down_slopes_steeper_than_tan_theta_3_5_mu() {
    let (r, mu) = (0.25, 0.1);
    for degrees in [20.0, 25.0, 30.0] {
        let mut slope = Slope::new(degrees, mu);
        let ball = slope.add(ColliderBuilder::ball(r).friction(mu), r, 20.0, 0.0, 0.0);
        let a = slope.acceleration(ball, r);
        let theta: Real = degrees.to_radians();
        let expected = G * (theta.sin() - mu * theta.cos());
        assert!(
            (a - expected).abs() < 0.02 * expected,
            "{degrees} degrees: a = {a}, g (sin - mu cos) = {expected}"
        );
    }
}

#[test]
fn a_capsule_rolls_sideways_down_a_slope_as_its_axial_moment_says() {
    let (r, half_height, degrees) = (0.2, 0.3, 15.0);
    let mut slope = Slope::new(degrees, 0.5);
    // The capsule's axis along z, across the slope.
    let capsule = ColliderBuilder::capsule(half_height, r).local_pose(Isometry::rotation(
        Vector::x() * std::f32::consts::FRAC_PI_2,
    ));
    let body = slope.add(capsule, r, 20.0, 0.0, 0.0);
    let a = slope.acceleration(body, r);
    // The axial moment over m r^2: a cylinder (1/2) and two hemispheres (a ball, 2/5), by
    // their shares of the mass.
    let cylinder = std::f32::consts::PI * r * r * 2.0 * half_height;
    let ball = 4.0 / 3.0 * std::f32::consts::PI * r * r * r;
    let ratio = (0.5 * cylinder + 0.4 * ball) / (cylinder + ball);
    let expected = G * degrees.to_radians().sin() / (1.0 + ratio);
    assert!(
        (a - expected).abs() < 0.02 * expected,
        "a = {a}, g sin / (1 + I / (m r^2)) = {expected}"
    );
}

/// A ball rolling on flat ground at `v0` keeps that speed within 0.5% for 5 s, checked at
/// every step (sleeping does not stop a ball that still rolls).
#[test]
fn a_ball_rolling_on_flat_ground_keeps_its_speed() {
    let r = 0.25;
    for v0 in [2.0, 0.2] {
        let mut flat = Slope::new(0.0, 0.5);
        let ball = flat.add(ColliderBuilder::ball(r), r, 5.0, v0, r);
        for step in 1..=300 {
            flat.world.step(DT).unwrap();
            let b = flat.world.body(ball).unwrap();
            let v = b.linear_velocity().dot(&flat.down);
            assert!(
                (v - v0).abs() < 0.005 * v0,
                "from {v0} m/s, step {step}: {v} m/s"
            );
            assert!(!b.is_sleeping(), "from {v0} m/s, asleep at step {step}");
        }
    }
}

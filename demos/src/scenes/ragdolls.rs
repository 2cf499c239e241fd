//! `ragdolls`: 100 humanoids (15 capsules each, `RagdollBuilder::humanoid`) dropped lying down
//! into a bin, five layers of 20, none touching another at the start, the layers crosswise,
//! to fall into a pile. Checks after 10 s: every joint within 1 cm and within its limits, none lost.

use std::f32::consts::{FRAC_PI_2, PI};

use sprung::math::{Isometry, Real, Translation, UnitQuaternion, Vector};
use sprung::solver::joint::{cone_angle, swing_twist};
use sprung::{BodyHandle, JointKind, RagdollBuilder, RagdollHandle, World};

use super::common::{static_box, world_with_ground, FRICTION};
use super::{Check, Scene};
use crate::rng::Rng;

/// Ragdolls in the scene.
pub const RAGDOLLS: usize = 100;
/// The bin's inside half-width (m).
const BIN: Real = 4.0;
/// Ragdolls in each layer (a 4 x 5 grid).
const PER_LAYER: usize = 20;
/// Most a ragdoll is turned (rad) from its cell's long side, either way.
const JITTER: Real = 0.2;

/// The pile.
pub fn ragdolls() -> Scene {
    let mut world = world_with_ground();
    for (x, z, hx, hz) in [
        (BIN + 0.25, 0.0, 0.25, BIN + 0.5),
        (-BIN - 0.25, 0.0, 0.25, BIN + 0.5),
        (0.0, BIN + 0.25, BIN + 0.5, 0.25),
        (0.0, -BIN - 0.25, BIN + 0.5, 0.25),
    ] {
        static_box(
            &mut world,
            Vector::new(hx, 1.5, hz),
            Vector::new(x, 1.5, z),
            FRICTION,
        );
    }
    let builder = RagdollBuilder::humanoid();
    let mut rng = Rng(46);
    let mut tracked = Vec::new();
    let mut handles = Vec::with_capacity(RAGDOLLS);
    // Lying on its back, head towards -z, then turned about the vertical: in layers of 4 x 5
    // cells of 2 x 1.5 m whose long side turns from layer to layer, so that no ragdoll starts
    // inside another or a wall (a humanoid is 1.8 m long and 0.6 m wide).
    let lying = UnitQuaternion::from_axis_angle(&Vector::x_axis(), -90f32.to_radians());
    for k in 0..RAGDOLLS {
        let (layer, cell) = (k / PER_LAYER, k % PER_LAYER);
        let along = -3.0 + 2.0 * (cell % 4) as Real;
        let across = -3.0 + 1.5 * (cell / 4) as Real;
        let head_first = if rng.unit() < 0.5 { 0.0 } else { PI };
        let jitter = rng.range(-JITTER, JITTER);
        let (x, z, heading) = if layer % 2 == 0 {
            (across, along, 0.0)
        } else {
            (along, across, FRAC_PI_2)
        };
        let turn =
            UnitQuaternion::from_axis_angle(&Vector::y_axis(), heading + head_first + jitter);
        let at = Vector::new(x, 0.6 + 0.9 * layer as Real, z);
        // The middle of the body's length (0.92 m up in the bind pose) at the cell's centre.
        let middle = Isometry::translation(0.0, -0.92, 0.0);
        let pose = Isometry::from_parts(Translation::from(at), turn * lying) * middle;
        let ragdoll = world.add_ragdoll(&builder, pose).expect("a valid ragdoll");
        handles.push(ragdoll);
        for &body in world.ragdoll(ragdoll).expect("just added").bodies() {
            tracked.push((body, *world.body(body).expect("live").pose()));
        }
    }
    let mut scene = Scene::new(
        world,
        tracked,
        Check::Ragdolls {
            max_error: 0.01,
            max_limit_degrees: 2.0,
        },
    );
    scene.ragdolls = handles;
    scene
}

/// The largest joint separation (m) and limit violation (rad) among `ragdolls`' joints.
pub fn worst_joints(world: &World, ragdolls: &[RagdollHandle]) -> (Real, Real) {
    let (mut apart, mut past): (Real, Real) = (0.0, 0.0);
    let ragdolls = ragdolls.iter().filter_map(|&r| world.ragdoll(r));
    for joint in ragdolls.flat_map(|r| r.joints().iter().flatten()) {
        let Some(j) = world.joint(*joint) else {
            continue;
        };
        let (a, b) = j.bodies();
        let pose = |h: BodyHandle| *world.body(h).expect("a joint's body").pose();
        let (pa, pb) = (pose(a), pose(b));
        let (la, lb) = j.local_anchors();
        apart = apart.max((pa * la - pb * lb).norm());
        let violation = match j.kind() {
            JointKind::SwingTwist(st) => {
                let (f_a, f_b) = (pa.rotation * st.frame_a, pb.rotation * st.frame_b);
                let (swing, axis, twist) = swing_twist(&f_a, &f_b);
                let cone = st.swing.unwrap_or((Real::INFINITY, Real::INFINITY));
                let limit = axis.map_or(cone.0.min(cone.1), |n| cone_angle(&n, cone));
                let (lower, upper) = st.twist.unwrap_or((-Real::INFINITY, Real::INFINITY));
                (swing - limit).max(lower - twist).max(twist - upper)
            }
            JointKind::Hinge(h) => {
                let angle = world.joint_position(*joint).unwrap_or(0.0);
                let (lower, upper) = h.limits.unwrap_or((-Real::INFINITY, Real::INFINITY));
                (lower - angle).max(angle - upper)
            }
            _ => 0.0,
        };
        past = past.max(violation);
    }
    (apart, past)
}

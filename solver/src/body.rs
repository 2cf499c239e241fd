//! The solver's view of a body, in two parts (Box2D v3's `b2BodyState` and `b2BodySim`):
//!
//! - [`BodyState`], hot: what the constraint loop reads and writes on every row, velocities
//!   and the motion since the step began, 64 bytes and one cache line per body.
//! - [`BodySim`], cold: what only integration and preparation read, mass properties, forces as
//!   accelerations and the pose at the start of the step.
//!
//! Constraints copy a body's inverse mass and world inverse inertia once per step when they are
//! prepared, so the loop never reads the cold half. Static bodies are not solver bodies at all:
//! rows refer to them by [`STATIC`] and read [`BodyState::STATIC`] (no velocity, no motion),
//! which is never written.
//!
//! In: mass properties, velocities, forces and the pose of the centre of mass, gathered by the
//! engine at the start of a step. Out: velocities, and after [`Bodies::finalize`] the centre of
//! mass's pose at the end of the step.

use crate::parallel::Shared;
use crate::{Matrix, Quaternion, Real, Vector};

/// The index rows use for a static body (or the world).
pub const STATIC: u32 = u32::MAX;

/// What the constraint loop reads and writes of one moving body.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct BodyState {
    /// Velocity of the centre of mass (m/s).
    pub linear_velocity: Vector,
    /// Angular velocity (rad/s, world).
    pub angular_velocity: Vector,
    /// How far the centre of mass has moved since the step began: contacts and joints compute
    /// their separation from it between substeps instead of asking the narrow phase again.
    pub delta_position: Vector,
    /// Rotation since the step began (world frame: the pose is `delta_rotation * start`).
    /// Anchors turn by it exactly, so a fast-spinning body's anchors do not stretch as a
    /// small-angle update would make them.
    pub delta_rotation: Quaternion,
    /// The rest of the 64 bytes, kept as initialised floats so that the wide kernel may load
    /// a whole state as vectors (the AVX2 gather, `transpose.rs`).
    pub(crate) padding: [Real; 3],
}

impl BodyState {
    /// A static body: no velocity and no motion.
    pub const STATIC: BodyState = BodyState {
        linear_velocity: Vector::new(0.0, 0.0, 0.0),
        angular_velocity: Vector::new(0.0, 0.0, 0.0),
        delta_position: Vector::new(0.0, 0.0, 0.0),
        delta_rotation: Quaternion::new_unchecked(nalgebra::Quaternion::new(1.0, 0.0, 0.0, 0.0)),
        padding: [0.0; 3],
    };

    /// A body at the start of a step, moving at `v` and `w`.
    pub fn moving(linear_velocity: Vector, angular_velocity: Vector) -> BodyState {
        BodyState {
            linear_velocity,
            angular_velocity,
            ..BodyState::STATIC
        }
    }

    /// Semi-implicit Euler, position half: `x += h v`, `q += h/2 (w, 0) q`, renormalised; kept
    /// as the motion since the step began.
    #[inline]
    pub fn integrate_position(&mut self, h: Real) {
        self.delta_position += self.linear_velocity * h;
        let spin = nalgebra::Quaternion::from_parts(0.0, self.angular_velocity * (0.5 * h));
        let d = self.delta_rotation.into_inner() + spin * self.delta_rotation.into_inner();
        self.delta_rotation = Quaternion::new_normalize(d);
    }

    /// The sum of the velocity components: finite if and only if each is (barring overflow).
    #[inline]
    fn velocity_sum(&self) -> Real {
        let (v, w) = (&self.linear_velocity, &self.angular_velocity);
        (v.x + v.y + v.z) + (w.x + w.y + w.z)
    }
}

/// What integration and preparation read of one moving body. Kinematic bodies have zero
/// inverse mass and inertia: they move at their velocity and are not pushed.
///
/// Laid out in order (`repr(C)`): the wide preparation reads the inverse mass and inertia as
/// two vectors of eight floats.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct BodySim {
    /// 1 / mass (1/kg); 0 for kinematic bodies.
    pub inv_mass: Real,
    /// Inverse inertia about the centre of mass, world frame, fixed for the step.
    pub inv_inertia: Matrix,
    /// Principal moments of inertia (kg m^2), for the gyroscopic term; zero when not dynamic.
    pub principal_inertia: Vector,
    /// Orientation of the principal axes at the start of the step (body rotation times the
    /// principal frame).
    pub principal_frame: Quaternion,
    /// Whether the gyroscopic term can be non-zero: not for a body whose three principal
    /// moments are equal (a sphere, a cube), for which `w x I w` vanishes.
    pub gyroscopic: bool,
    /// Centre of mass (world): at the start of the step, and after [`Bodies::finalize`] at its
    /// end.
    pub position: Vector,
    /// Orientation of the body: likewise.
    pub rotation: Quaternion,
    /// Constant linear acceleration for the step: gravity times scale plus force / mass.
    pub linear_acceleration: Vector,
    /// Angular acceleration from the applied torque (world).
    pub angular_acceleration: Vector,
    /// Linear damping (1/s).
    pub linear_damping: Real,
    /// Angular damping (1/s).
    pub angular_damping: Real,
}

impl BodySim {
    /// A body of inverse mass `inv_mass` and world inverse inertia `inv_inertia`, at rest at
    /// the origin, untouched by forces (for tests, and as a placeholder).
    pub(crate) fn with_mass(inv_mass: Real, inv_inertia: Matrix) -> BodySim {
        BodySim {
            inv_mass,
            inv_inertia,
            principal_inertia: Vector::zeros(),
            principal_frame: Quaternion::identity(),
            gyroscopic: false,
            position: Vector::zeros(),
            rotation: Quaternion::identity(),
            linear_acceleration: Vector::zeros(),
            angular_acceleration: Vector::zeros(),
            linear_damping: 0.0,
            angular_damping: 0.0,
        }
    }

    /// True if constraints can push this body.
    pub fn is_dynamic(&self) -> bool {
        self.inv_mass > 0.0
    }

    /// Semi-implicit Euler, velocity half: `v += h a`, the gyroscopic term (a torque-free turn
    /// that keeps the angular momentum and the kinetic energy: the implicit midpoint rule,
    /// which also sets the turn the position half will make; `integrate.rs`), and damping.
    /// The solve integrates its bodies in lanes with the same operations (`integrate.rs`), so
    /// this gives the same bits.
    #[inline]
    pub fn integrate_velocity(&self, state: &mut BodyState, h: Real) {
        if !self.is_dynamic() {
            return;
        }
        state.linear_velocity += self.linear_acceleration * h;
        state.angular_velocity += self.angular_acceleration * h;
        if self.gyroscopic {
            let frame = crate::rotation::compose_one(&state.delta_rotation, &self.principal_frame);
            let (w, correction) = self.gyroscopic(&frame, &state.angular_velocity, h);
            state.angular_velocity = w;
            state.delta_rotation = crate::rotation::compose_one(&correction, &state.delta_rotation);
        }
        damp(state, self.linear_damping, self.angular_damping, h);
    }

    /// The gyroscopic term of this body in principal frame `frame` (world from principal
    /// axes): [`crate::rotation::gyroscopic`] with one lane.
    fn gyroscopic(&self, frame: &Quaternion, w: &Vector, h: Real) -> (Vector, Quaternion) {
        crate::rotation::gyroscopic_one(frame, w, &self.principal_inertia, h)
    }
}

/// The step's moving bodies, hot and cold halves side by side (index `i` of one is index `i`
/// of the other).
#[derive(Clone, Debug, Default)]
pub struct Bodies {
    /// What the constraint loop reads and writes.
    pub states: Vec<BodyState>,
    /// What integration and preparation read.
    pub sims: Vec<BodySim>,
}

impl Bodies {
    /// The hot states as a worker's view beside the cold half, for code written for the
    /// workers' shared views run by one worker alone.
    pub(crate) fn split(&mut self) -> (StateView<'_>, &[BodySim]) {
        (StateView::of(&mut self.states), &self.sims)
    }

    /// Empties both halves, keeping their capacity.
    pub fn clear(&mut self) {
        self.states.clear();
        self.sims.clear();
    }

    /// Sets the count to `len`: bodies past it dropped, new ones static at the origin, to be
    /// written in place (by runs, on several workers: `states` and `sims` split alike). The
    /// bodies kept are left as they are, so a count that holds from step to step writes
    /// nothing here.
    pub fn resize(&mut self, len: usize) {
        let placeholder = BodySim::with_mass(0.0, Matrix::zeros());
        self.states.resize(len, BodyState::STATIC);
        self.sims.resize(len, placeholder);
    }

    /// Drops the bodies from `len` on.
    pub fn truncate(&mut self, len: usize) {
        self.states.truncate(len);
        self.sims.truncate(len);
    }

    /// Adds a body; returns its solver index.
    pub fn push(&mut self, state: BodyState, sim: BodySim) -> u32 {
        self.states.push(state);
        self.sims.push(sim);
        self.states.len() as u32 - 1
    }

    /// How many bodies.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The hot state of body `index` (a static one's for [`STATIC`]).
    #[inline]
    pub fn state(&self, index: u32) -> &BodyState {
        self.states
            .get(index as usize)
            .unwrap_or(&BodyState::STATIC)
    }

    /// Body `index`'s inverse mass and world inverse inertia (zeros for a static body).
    #[inline]
    pub fn mass(&self, index: u32) -> (Real, Matrix) {
        match self.sims.get(index as usize) {
            Some(s) => (s.inv_mass, s.inv_inertia),
            None => (0.0, Matrix::zeros()),
        }
    }

    /// Integrates every body's velocity over a substep of `h` (s).
    pub fn integrate_velocities(&mut self, h: Real) {
        for (state, sim) in self.states.iter_mut().zip(&self.sims) {
            sim.integrate_velocity(state, h);
        }
    }

    /// Integrates every body's position over a substep of `h` (s).
    pub fn integrate_positions(&mut self, h: Real) {
        for state in &mut self.states {
            state.integrate_position(h);
        }
    }

    /// Composes the step's motion into each body's pose: `x0 + dx`, `dq * q0`. Called once,
    /// after the last substep.
    pub fn finalize(&mut self) {
        for (state, sim) in self.states.iter().zip(&mut self.sims) {
            sim.position += state.delta_position;
            sim.rotation = Quaternion::new_normalize(
                state.delta_rotation.into_inner() * sim.rotation.into_inner(),
            );
        }
    }

    /// Writes two bodies' new velocities, unless one stopped being finite: then the constraint
    /// that computed them changes nothing this pass. A row thus never hands NaN or infinity
    /// from one body to another; the engine finds the body that diverged on its own and
    /// quarantines it (sprung's world/quarantine.rs).
    #[inline]
    pub fn store_pair(&mut self, a: (u32, &BodyState), b: (u32, &BodyState)) {
        // One sum, not twelve tests: NaN and infinity carry through it (a sum of finite values
        // that overflows is refused too, rightly: such a body has diverged anyway).
        if (a.1.velocity_sum() + b.1.velocity_sum()).is_finite() {
            if let Some(s) = self.states.get_mut(a.0 as usize) {
                s.linear_velocity = a.1.linear_velocity;
                s.angular_velocity = a.1.angular_velocity;
            }
            if let Some(s) = self.states.get_mut(b.0 as usize) {
                s.linear_velocity = b.1.linear_velocity;
                s.angular_velocity = b.1.angular_velocity;
            }
        }
    }
}

/// The hot states as the wide contact kernel reads and writes them, from one worker or several
/// at once. Several workers may hold copies of a view while each writes only bodies no other
/// touches: the contacts of one colour share no moving body, and a worker writes only the
/// moving bodies of its own contacts (never a static or kinematic one, which many contacts of
/// a colour may share). That invariant, kept by the solver's stage loop, is what makes the
/// unsynchronised writes sound; the type is therefore crate-private.
#[derive(Clone, Copy)]
pub(crate) struct StateView<'a> {
    /// The buffer, shared as [`Shared`]'s contract allows (the type's doc says how).
    states: Shared<BodyState>,
    len: usize,
    _borrow: std::marker::PhantomData<&'a mut [BodyState]>,
}

impl<'a> StateView<'a> {
    /// A view of `len` states at `states`, for workers that share the buffer.
    ///
    /// # Safety
    /// `states` must point to `len` states that outlive the view, written only as the type's
    /// doc says.
    pub(crate) unsafe fn from_raw(states: *mut BodyState, len: usize) -> StateView<'a> {
        StateView {
            states: Shared(states),
            len,
            _borrow: std::marker::PhantomData,
        }
    }

    /// A view of `states` for one worker alone (the serial stage, tests).
    pub(crate) fn of(states: &'a mut [BodyState]) -> StateView<'a> {
        StateView {
            states: Shared(states.as_mut_ptr()),
            len: states.len(),
            _borrow: std::marker::PhantomData,
        }
    }

    /// Body `index`'s state ([`BodyState::STATIC`] for a static body).
    #[inline(always)]
    pub(crate) fn get(&self, index: u32) -> BodyState {
        if (index as usize) < self.len {
            // SAFETY: in bounds; no other worker writes this body during this colour.
            unsafe { *self.states.0.add(index as usize) }
        } else {
            BodyState::STATIC
        }
    }

    /// Body `index`'s state, if it is one of the view's (not static), for the kernel's vector
    /// loads and stores.
    #[inline(always)]
    pub(crate) fn slot(&self, index: u32) -> Option<*mut BodyState> {
        // SAFETY: in bounds; what may be done with the pointer is the type's doc.
        ((index as usize) < self.len).then(|| unsafe { self.states.0.add(index as usize) })
    }

    /// Sets body `index`'s rotation since the step began (nothing for a static body).
    #[inline(always)]
    pub(crate) fn set_rotation(&self, index: u32, q: Quaternion) {
        if (index as usize) < self.len {
            // SAFETY: in bounds; this worker is the only one touching this body now.
            unsafe { (*self.states.0.add(index as usize)).delta_rotation = q }
        }
    }

    /// Sets body `index`'s motion since the step began (nothing for a static body).
    #[inline(always)]
    pub(crate) fn set_moves(&self, index: u32, position: Vector, rotation: Quaternion) {
        if (index as usize) < self.len {
            // SAFETY: in bounds; this worker is the only one touching this body now.
            unsafe {
                let s = &mut *self.states.0.add(index as usize);
                s.delta_position = position;
                s.delta_rotation = rotation;
            }
        }
    }

    /// Sets body `index`'s velocities (nothing for a static body).
    #[inline(always)]
    pub(crate) fn set_velocity(&self, index: u32, v: Vector, w: Vector) {
        if (index as usize) < self.len {
            // SAFETY: in bounds; this worker is the only one touching this body now.
            unsafe {
                let s = &mut *self.states.0.add(index as usize);
                s.linear_velocity = v;
                s.angular_velocity = w;
            }
        }
    }
}

/// A body as a joint row sees it: its state with its mass (or zeros for a static body). Joints
/// load it per pass; contacts, the hot path, keep their own copy of the masses instead.
#[derive(Clone, Copy, Debug)]
pub struct Motion {
    /// Linear velocity (m/s).
    pub v: Vector,
    /// Angular velocity (rad/s).
    pub w: Vector,
    /// Inverse mass.
    pub inv_mass: Real,
    /// Inverse inertia (world).
    pub inv_inertia: Matrix,
    /// Motion since the step began, for separation updates.
    pub delta_position: Vector,
    /// Rotation since the step began.
    pub delta_rotation: Quaternion,
}

impl Motion {
    /// A static body: no velocity, infinite mass.
    pub const STATIC: Motion = Motion {
        v: Vector::new(0.0, 0.0, 0.0),
        w: Vector::new(0.0, 0.0, 0.0),
        inv_mass: 0.0,
        inv_inertia: Matrix::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        delta_position: Vector::new(0.0, 0.0, 0.0),
        delta_rotation: Quaternion::new_unchecked(nalgebra::Quaternion::new(1.0, 0.0, 0.0, 0.0)),
    };

    /// Where an anchor `r` (from the centre of mass, at the start of the step) is now, relative
    /// to where it was: the body's displacement plus the anchor's turn.
    #[inline]
    pub fn anchor_motion(&self, r: &Vector) -> Vector {
        self.delta_position + (self.delta_rotation * r - r)
    }

    /// The motion of body `index` (or a static one).
    #[inline]
    pub fn load(bodies: &Bodies, index: u32) -> Motion {
        match (
            bodies.states.get(index as usize),
            bodies.sims.get(index as usize),
        ) {
            (Some(s), Some(m)) => Motion {
                v: s.linear_velocity,
                w: s.angular_velocity,
                inv_mass: m.inv_mass,
                inv_inertia: m.inv_inertia,
                delta_position: s.delta_position,
                delta_rotation: s.delta_rotation,
            },
            _ => Motion::STATIC,
        }
    }

    /// The motion of body `index` as a worker solving a colour of joints sees it (or a static
    /// one): [`Motion::load`] through the workers' shared view.
    #[inline]
    pub(crate) fn load_shared(view: &StateView, sims: &[BodySim], index: u32) -> Motion {
        match sims.get(index as usize) {
            Some(m) => {
                let s = view.get(index);
                Motion {
                    v: s.linear_velocity,
                    w: s.angular_velocity,
                    inv_mass: m.inv_mass,
                    inv_inertia: m.inv_inertia,
                    delta_position: s.delta_position,
                    delta_rotation: s.delta_rotation,
                }
            }
            None => Motion::STATIC,
        }
    }

    /// [`Motion::store_pair`] through the workers' shared view. Only dynamic bodies are
    /// written: a kinematic body's motion comes back unchanged from a joint (its masses are
    /// zero), and it may be shared by several joints of a colour, which a write would race.
    #[inline]
    pub(crate) fn store_pair_shared(
        view: &StateView,
        sims: &[BodySim],
        a: (&Motion, u32),
        b: (&Motion, u32),
    ) {
        let sum = |m: &Motion| (m.v.x + m.v.y + m.v.z) + (m.w.x + m.w.y + m.w.z);
        if (sum(a.0) + sum(b.0)).is_finite() {
            for (m, index) in [a, b] {
                if sims.get(index as usize).is_some_and(BodySim::is_dynamic) {
                    view.set_velocity(index, m.v, m.w);
                }
            }
        }
    }

    /// Writes both bodies' motion since the step began back after a joint's position
    /// projection moved them, unless it stopped being finite; dynamic bodies only (as
    /// [`Motion::store_pair_shared`]).
    #[inline]
    pub(crate) fn store_moves_shared(
        view: &StateView,
        sims: &[BodySim],
        a: (&Motion, u32),
        b: (&Motion, u32),
    ) {
        for (m, index) in [a, b] {
            let finite = m.delta_position.iter().all(|x| x.is_finite())
                && m.delta_rotation.coords.iter().all(|x| x.is_finite());
            if finite && sims.get(index as usize).is_some_and(BodySim::is_dynamic) {
                view.set_moves(index, m.delta_position, m.delta_rotation);
            }
        }
    }

    /// Writes both bodies' velocities back after a joint has worked on them, unless one
    /// stopped being finite ([`Bodies::store_pair`]).
    #[inline]
    pub fn store_pair(bodies: &mut Bodies, a: (&Motion, u32), b: (&Motion, u32)) {
        let state = |m: &Motion| BodyState {
            linear_velocity: m.v,
            angular_velocity: m.w,
            ..BodyState::STATIC
        };
        bodies.store_pair((a.1, &state(a.0)), (b.1, &state(b.0)));
    }
}

/// Damping as an implicit decay, stable for any rate: `v / (1 + h c)`.
#[inline(always)]
pub(crate) fn damp(state: &mut BodyState, linear: Real, angular: Real, h: Real) {
    if linear != 0.0 {
        state.linear_velocity /= 1.0 + h * linear;
    }
    if angular != 0.0 {
        state.angular_velocity /= 1.0 + h * angular;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hot state is one cache line.
    #[test]
    fn body_state_is_64_bytes_and_aligned() {
        assert_eq!(std::mem::size_of::<BodyState>(), 64);
        assert_eq!(std::mem::align_of::<BodyState>(), 64);
    }

    /// The torque-free turn against the implicit midpoint rule solved in f64 to convergence:
    /// over random inertias (ratios up to 100), spins up to 50 rad/s and substeps up to 1/120 s
    /// (turns of up to 0.1 rad a substep), in turned frames, the end velocity matches, and the
    /// body turned by the correction and then by the position half (as the step does) ends at
    /// the midpoint's rotation, keeping the world's angular momentum and the kinetic energy.
    #[test]
    fn the_gyroscopic_turn_is_the_implicit_midpoint_rule() {
        use nalgebra::{Matrix3, UnitQuaternion, Vector3};
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as Real / (1u64 << 24) as Real
        };
        let mut converged = 0;
        for _ in 0..10_000 {
            let inertia = Vector::new(0.01 + next(), 0.01 + next(), 0.01 + next()) * 10.0;
            let w = (Vector::new(next(), next(), next()) * 2.0 - Vector::repeat(1.0)) * 50.0;
            let h = next() / 120.0;
            if h * w.norm() > 0.1 {
                continue;
            }
            converged += 1;
            let frame = Quaternion::from_scaled_axis(Vector::new(next(), next(), next()) * 6.0);
            let mut sim = BodySim::with_mass(1.0, Matrix::identity());
            sim.principal_inertia = inertia;
            let (fast, correction) = sim.gyroscopic(&frame, &w, h);
            // The body, turned by the correction and then by the position half.
            let mut state = BodyState::moving(Vector::zeros(), fast);
            state.delta_rotation = correction;
            state.integrate_position(h);
            let turned = state.delta_rotation * frame;

            // The rule in f64: `Lm = L1 + h/2 Lm x I^-1 Lm` by Newton's method to convergence.
            let i = inertia.cast::<f64>();
            let q = frame.cast::<f64>();
            let (hf, l1) = (
                h as f64,
                i.component_mul(&q.inverse_transform_vector(&w.cast())),
            );
            let mut lm = l1;
            for _ in 0..50 {
                let wm = lm.component_div(&i);
                let g = lm - l1 - lm.cross(&wm) * (0.5 * hf);
                let jacobian = Matrix3::identity()
                    - (lm.cross_matrix() * Matrix3::from_diagonal(&i.map(|x| 1.0 / x))
                        - wm.cross_matrix())
                        * (0.5 * hf);
                lm -= jacobian.try_inverse().unwrap() * g;
            }
            let l2 = lm * 2.0 - l1;
            let mean = lm.component_div(&i) * (0.5 * hf);
            let cayley =
                UnitQuaternion::from_quaternion(nalgebra::Quaternion::from_parts(1.0, mean));
            let q2 = q * cayley;
            let slow = q2 * l2.component_div(&i);
            let w_f64: Vector3<f64> = fast.cast();
            assert!(
                (w_f64 - slow).norm() <= 1e-4 * (1.0 + slow.norm()),
                "{fast:?} vs {slow:?} (w {w:?}, I {inertia:?}, h {h})"
            );
            assert!(
                turned.cast::<f64>().angle_to(&q2) < 1e-5,
                "turned {turned:?}, midpoint {q2:?}"
            );
            // L and the energy, from the velocity and rotation the step leaves.
            let world_inertia = |q: &UnitQuaternion<f64>| {
                let r = q.to_rotation_matrix();
                r.matrix() * Matrix3::from_diagonal(&i) * r.matrix().transpose()
            };
            let l_before = world_inertia(&q) * w.cast::<f64>();
            let tq = turned.cast::<f64>();
            let l_after = world_inertia(&tq) * w_f64;
            assert!((l_after - l_before).norm() <= 2e-5 * l_before.norm());
            let (e0, e1) = (l_before.dot(&w.cast()), l_after.dot(&w_f64));
            assert!((e1 - e0).abs() <= 4e-5 * e0, "energy {e0} -> {e1}");
        }
        assert!(converged > 1000, "{converged} cases");
    }

    /// Past where the midpoint's Newton steps converge (turns of up to 3 rad a substep, moments
    /// apart by up to 100), the torque-free turn stays finite and never gains energy.
    #[test]
    fn the_gyroscopic_turn_never_gains_energy() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as Real / (1u64 << 24) as Real
        };
        for _ in 0..10_000 {
            let inertia = Vector::new(0.01 + next(), 0.01 + next(), 0.01 + next()) * 10.0;
            let w = (Vector::new(next(), next(), next()) * 2.0 - Vector::repeat(1.0)) * 200.0;
            let h = next() / 60.0;
            let frame = Quaternion::from_scaled_axis(Vector::new(next(), next(), next()) * 6.0);
            let mut sim = BodySim::with_mass(1.0, Matrix::identity());
            sim.principal_inertia = inertia;
            let (out, correction) = sim.gyroscopic(&frame, &w, h);
            assert!(
                out.iter().all(|x| x.is_finite())
                    && correction.coords.iter().all(|x| x.is_finite())
            );
            let mut state = BodyState::moving(Vector::zeros(), out);
            state.delta_rotation = correction;
            state.integrate_position(h);
            let energy = |q: &Quaternion, w: &Vector| {
                let body = q.inverse_transform_vector(w);
                body.dot(&inertia.component_mul(&body))
            };
            let (before, after) = (
                energy(&frame, &w),
                energy(&(state.delta_rotation * frame), &out),
            );
            assert!(after <= before * (1.0 + 1e-5), "energy {before} -> {after}");
        }
    }
}

//! The solver's view of a body: what the constraint loop reads and writes, laid out compactly
//! (the engine's `RigidBody` carries much more that the loop never touches).
//!
//! In: mass properties, velocities, forces and the pose of the centre of mass, gathered by the
//! engine at the start of a step. Out: velocities and the centre of mass's pose after the step.
//! Static bodies are not solver bodies at all: rows refer to them by [`STATIC`] and see zero
//! velocity and infinite mass.

use crate::{Matrix, Quaternion, Real, Vector};

/// The index rows use for a static body (or the world).
pub const STATIC: u32 = u32::MAX;

/// One moving body as the solver sees it. Kinematic bodies have zero inverse mass and inertia:
/// they move at their velocity and are not pushed.
#[derive(Clone, Copy, Debug)]
pub struct SolverBody {
    /// Velocity of the centre of mass (m/s).
    pub linear_velocity: Vector,
    /// Angular velocity (rad/s, world).
    pub angular_velocity: Vector,
    /// 1 / mass (1/kg); 0 for kinematic bodies.
    pub inv_mass: Real,
    /// Inverse inertia about the centre of mass, world frame, fixed for the step.
    pub inv_inertia: Matrix,
    /// Principal moments of inertia (kg m^2), for the gyroscopic term; zero when not dynamic.
    pub principal_inertia: Vector,
    /// Orientation of the principal axes (body rotation times the principal frame).
    pub principal_frame: Quaternion,
    /// Centre of mass (world).
    pub position: Vector,
    /// Orientation of the body.
    pub rotation: Quaternion,
    /// How far the centre of mass has moved since the step began (contacts read it to update
    /// their separation between substeps).
    pub delta_position: Vector,
    /// Rotation since the step began (for the same purpose): anchors turn by it exactly, so a
    /// fast-spinning body's anchors do not stretch as a small-angle update would make them.
    pub delta_rotation: Quaternion,
    /// Constant linear acceleration for the step: gravity times scale plus force / mass.
    pub linear_acceleration: Vector,
    /// Angular acceleration from the applied torque (world).
    pub angular_acceleration: Vector,
    /// Linear damping (1/s).
    pub linear_damping: Real,
    /// Angular damping (1/s).
    pub angular_damping: Real,
}

impl SolverBody {
    /// True if constraints can push this body.
    pub fn is_dynamic(&self) -> bool {
        self.inv_mass > 0.0
    }

    /// Semi-implicit Euler, velocity half: `v += h a`, damping, and the implicit gyroscopic term.
    pub fn integrate_velocity(&mut self, h: Real) {
        if !self.is_dynamic() {
            return;
        }
        self.linear_velocity += self.linear_acceleration * h;
        self.angular_velocity += self.angular_acceleration * h;
        self.angular_velocity = self.gyroscopic(h);
        // Damping as an implicit decay, stable for any rate: v / (1 + h c).
        self.linear_velocity /= 1.0 + h * self.linear_damping;
        self.angular_velocity /= 1.0 + h * self.angular_damping;
    }

    /// One Newton step on `I (w2 - w1) + h w2 x I w2 = 0` in the principal frame (Catto,
    /// "Numerical Methods", GDC 2015): the implicit gyroscopic term, which unlike the explicit
    /// `-h I^-1 (w x I w)` never adds energy.
    fn gyroscopic(&self, h: Real) -> Vector {
        let inertia = self.principal_inertia;
        if inertia.iter().any(|&i| i <= 0.0) {
            return self.angular_velocity;
        }
        let w1 = self
            .principal_frame
            .inverse_transform_vector(&self.angular_velocity);
        let iw = inertia.component_mul(&w1);
        let f = w1.cross(&iw) * h;
        let jacobian = Matrix::from_diagonal(&inertia)
            + (w1.cross_matrix() * Matrix::from_diagonal(&inertia) - iw.cross_matrix()) * h;
        let w2 = match jacobian.try_inverse() {
            Some(inv) => w1 - inv * f,
            None => w1,
        };
        self.principal_frame * w2
    }

    /// Semi-implicit Euler, position half: `x += h v`, `q += h/2 (w, 0) q`, renormalised.
    pub fn integrate_position(&mut self, h: Real) {
        let dx = self.linear_velocity * h;
        self.position += dx;
        self.delta_position += dx;
        let spin = nalgebra::Quaternion::from_parts(0.0, self.angular_velocity * (0.5 * h));
        let q = self.rotation.into_inner() + spin * self.rotation.into_inner();
        self.rotation = Quaternion::new_normalize(q);
        let p = self.principal_frame.into_inner() + spin * self.principal_frame.into_inner();
        self.principal_frame = Quaternion::new_normalize(p);
        let d = self.delta_rotation.into_inner() + spin * self.delta_rotation.into_inner();
        self.delta_rotation = Quaternion::new_normalize(d);
    }
}

/// The velocity state a row works on: a copy of a body's (or zeros for a static body).
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
    pub fn load(bodies: &[SolverBody], index: u32) -> Motion {
        match bodies.get(index as usize) {
            Some(b) => Motion {
                v: b.linear_velocity,
                w: b.angular_velocity,
                inv_mass: b.inv_mass,
                inv_inertia: b.inv_inertia,
                delta_position: b.delta_position,
                delta_rotation: b.delta_rotation,
            },
            None => Motion::STATIC,
        }
    }

    /// Writes both bodies' velocities back after a constraint has worked on them, unless one
    /// stopped being finite: then the constraint changes nothing this pass. A row thus never
    /// hands NaN or infinity from one body to another; the engine finds the body that diverged
    /// on its own and quarantines it (sprung's world/quarantine.rs).
    #[inline]
    pub fn store_pair(bodies: &mut [SolverBody], a: (&Motion, u32), b: (&Motion, u32)) {
        // One sum, not twelve tests: NaN and infinity carry through it (a sum of finite values
        // that overflows is refused too, rightly: such a body has diverged anyway).
        if (a.0.sum() + b.0.sum()).is_finite() {
            a.0.store(bodies, a.1);
            b.0.store(bodies, b.1);
        }
    }

    /// The sum of the velocity components: finite if and only if each is (barring overflow).
    #[inline]
    fn sum(&self) -> Real {
        (self.v.x + self.v.y + self.v.z) + (self.w.x + self.w.y + self.w.z)
    }

    /// Writes the velocities back (nothing for a static body).
    #[inline]
    pub fn store(&self, bodies: &mut [SolverBody], index: u32) {
        if let Some(b) = bodies.get_mut(index as usize) {
            b.linear_velocity = self.v;
            b.angular_velocity = self.w;
        }
    }
}

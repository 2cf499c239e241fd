//! Vehicles in the solve: each one's wheels ([`WheelRows`]) and its drive train, solved
//! together in the serial stage after the joints.
//!
//! The drive train is one more degree of freedom, the differentials' carrier: the engine and
//! gearbox as seen from the wheels' side of the final drive, turning at `carrier` (rad/s) with
//! the engine's inertia times the overall ratio squared, driven by the engine's torque times
//! that ratio. Each differential is a row joining it to two wheels' spins,
//! `spin_left + spin_right = 2 carrier`, whose impulse reaches both wheels alike: the torques
//! on its two wheels are equal, as an open differential's are, so a wheel on ice takes only the
//! torque that spins it up and the other gets no more. A limited-slip differential adds a row
//! `spin_left = spin_right` within its locking torque.

use std::ops::Range;

use crate::body::Bodies;
use crate::joint::PassContext;
use crate::wheel::WheelRows;
use crate::Real;

/// A vehicle's drive train prepared for a step: the carrier and its differentials.
#[derive(Clone, Debug)]
pub struct DriveRows {
    /// The engine's index for this vehicle (to store its state back).
    pub user_index: u32,
    /// Its wheels in [`Vehicles::wheels`].
    pub wheels: Range<usize>,
    /// Its differentials in [`Vehicles::differentials`].
    pub differentials: Range<usize>,
    /// The carrier's spin (rad/s).
    carrier: Real,
    /// The carrier's inverse inertia (1 / (kg m^2)).
    inverse_inertia: Real,
    /// The torque on the carrier (N m).
    torque: Real,
}

impl DriveRows {
    /// A drive train of `wheels` and `differentials` (ranges of the lists they were pushed to),
    /// its carrier turning at `carrier` (rad/s) with `inertia` (kg m^2, > 0) under `torque`
    /// (N m).
    pub fn new(
        (wheels, differentials): (Range<usize>, Range<usize>),
        (carrier, inertia, torque): (Real, Real, Real),
        user_index: u32,
    ) -> DriveRows {
        DriveRows {
            user_index,
            wheels,
            differentials,
            carrier,
            inverse_inertia: if inertia > 0.0 { 1.0 / inertia } else { 0.0 },
            torque,
        }
    }

    /// The carrier's spin now (rad/s).
    pub fn carrier(&self) -> Real {
        self.carrier
    }
}

/// A differential between two wheels of its vehicle (their indices among its wheels).
#[derive(Clone, Debug)]
pub struct DifferentialRows {
    left: usize,
    right: usize,
    /// The limited slip's largest torque (N m; 0: open).
    locking: Real,
    /// Accumulated impulses: the split (N m s, on each wheel), the lock (on the left wheel, the
    /// opposite on the right).
    impulses: [Real; 2],
}

impl DifferentialRows {
    /// The differential between wheels `left` and `right`, locking with at most `locking`
    /// (N m), carrying last step's `impulses`.
    pub fn new((left, right): (usize, usize), locking: Real, impulses: [Real; 2]) -> Self {
        DifferentialRows {
            left,
            right,
            locking: locking.max(0.0),
            impulses: impulses.map(|i| if i.is_finite() { i } else { 0.0 }),
        }
    }

    /// The impulses to carry over: the split's and the lock's.
    pub fn impulses(&self) -> [Real; 2] {
        self.impulses
    }
}

/// The step's vehicles, as the engine fills them: every wheel of every awake vehicle, their
/// differentials, and one drive train per vehicle holding its ranges of both.
#[derive(Debug, Default)]
pub struct Vehicles {
    /// The wheels, each vehicle's together.
    pub wheels: Vec<WheelRows>,
    /// The differentials, each vehicle's together.
    pub differentials: Vec<DifferentialRows>,
    /// The drive trains.
    pub drives: Vec<DriveRows>,
}

impl Vehicles {
    /// Empties the lists, keeping their capacity.
    pub fn clear(&mut self) {
        self.wheels.clear();
        self.differentials.clear();
        self.drives.clear();
    }

    /// Whether there is nothing to solve.
    pub fn is_empty(&self) -> bool {
        self.drives.is_empty()
    }

    /// Forgets the accumulated impulses (warm starting off).
    pub fn reset_impulses(&mut self) {
        self.wheels.iter_mut().for_each(WheelRows::reset_impulses);
        for d in &mut self.differentials {
            d.impulses = [0.0; 2];
        }
    }

    /// The substep's engine torque on each carrier, and every accumulated impulse.
    pub fn warm_start(&mut self, bodies: &mut Bodies, h: Real) {
        for drive in &mut self.drives {
            drive.carrier += drive.torque * h * drive.inverse_inertia;
            let wheels = &mut self.wheels[drive.wheels.clone()];
            wheels.iter_mut().for_each(|w| w.warm_start(bodies));
            for d in &self.differentials[drive.differentials.clone()] {
                let [split, lock] = d.impulses;
                apply(wheels, drive, d, split, lock);
            }
        }
    }

    /// One iteration: each vehicle's wheels, then its differentials.
    pub fn solve(&mut self, bodies: &mut Bodies, pass: &PassContext) {
        for drive in &mut self.drives {
            let wheels = &mut self.wheels[drive.wheels.clone()];
            wheels.iter_mut().for_each(|w| w.solve(bodies, pass));
            for d in &mut self.differentials[drive.differentials.clone()] {
                let (l, r) = (&wheels[d.left], &wheels[d.right]);
                let (n_l, n_r) = (l.inverse_inertia(), r.inverse_inertia());
                // The split: spin_left + spin_right - 2 carrier = 0, equal torques on both.
                let error = l.spin + r.spin - 2.0 * drive.carrier;
                let k = n_l + n_r + 4.0 * drive.inverse_inertia;
                let split = if k > 0.0 { -error / k } else { 0.0 };
                d.impulses[0] += split;
                apply(wheels, drive, d, split, 0.0);
                // The lock: spin_left - spin_right = 0, within its torque.
                if d.locking > 0.0 {
                    let (l, r) = (&wheels[d.left], &wheels[d.right]);
                    let error = l.spin - r.spin;
                    let bound = d.locking * pass.h;
                    let lock0 = d.impulses[1];
                    let lock = (lock0 - error / (n_l + n_r)).max(-bound).min(bound);
                    d.impulses[1] = lock;
                    apply(wheels, drive, d, 0.0, lock - lock0);
                }
            }
        }
    }
}

/// Applies a differential's impulses: `split` to both wheels (and twice, back, to the
/// carrier), `lock` to the left wheel and back to the right.
fn apply(
    wheels: &mut [WheelRows],
    drive: &mut DriveRows,
    d: &DifferentialRows,
    split: Real,
    lock: Real,
) {
    let (l, r) = (d.left, d.right);
    let n_l = wheels[l].inverse_inertia();
    let n_r = wheels[r].inverse_inertia();
    wheels[l].spin += (split + lock) * n_l;
    wheels[r].spin += (split - lock) * n_r;
    drive.carrier -= 2.0 * split * drive.inverse_inertia;
}

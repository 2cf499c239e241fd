//! Checks of the world's settings: the step reads them raw, so nothing reaches it unchecked.
//!
//! [`crate::World::set_settings`] and [`crate::World::set_sleep_settings`] refuse a settings
//! value with any field out of its range (typed [`Error`], nothing changed). The ranges:
//!
//! | field | range |
//! |---|---|
//! | `substeps` | 1 to [`MAX_SUBSTEPS`] |
//! | `iterations` | 1 to [`MAX_ITERATIONS`] |
//! | `relax_iterations` | 0 to [`MAX_ITERATIONS`] |
//! | `threads` | 1 to 64 (the step runs on at most the machine's cores; on one without the `parallel` feature) |
//! | `contact_hertz`, `static_contact_hertz`, `joint_hertz` | finite, > 0 |
//! | `contact_damping_ratio`, `joint_damping_ratio`, `max_push_out_speed`, `restitution_threshold` | finite, >= 0 |
//! | `support_mass_ratio` | >= 1 (infinity keeps every ratio) |
//! | sleep thresholds, `time_to_sleep` | finite, >= 0 |

use sprung_solver::settings::{SolverSettings, MAX_THREADS};

use crate::error::{finite, Error};
use crate::sleep::SleepSettings;

/// Most substeps per step: beyond it a step costs more than any scene is worth, and a typo
/// (`u32::MAX`) would hang the step.
pub const MAX_SUBSTEPS: u32 = 64;
/// Most biased (or relax) iterations per substep.
pub const MAX_ITERATIONS: u32 = 64;

pub(crate) fn check_solver(s: &SolverSettings) -> Result<(), Error> {
    if !(1..=MAX_SUBSTEPS).contains(&s.substeps) {
        return Err(Error::OutOfRange("substeps: 1 to 64"));
    }
    if !(1..=MAX_ITERATIONS).contains(&s.iterations) {
        return Err(Error::OutOfRange("iterations: 1 to 64"));
    }
    if !(1..=MAX_THREADS).contains(&s.threads) {
        return Err(Error::OutOfRange("threads: 1 to 64"));
    }
    if s.relax_iterations > MAX_ITERATIONS {
        return Err(Error::OutOfRange("relax iterations: 0 to 64"));
    }
    finite(
        "solver settings",
        &[
            s.contact_hertz,
            s.static_contact_hertz,
            s.contact_damping_ratio,
            s.joint_hertz,
            s.joint_damping_ratio,
            s.max_push_out_speed,
            s.restitution_threshold,
        ],
    )?;
    for (value, what) in [
        (s.contact_hertz, "contact hertz"),
        (s.static_contact_hertz, "static contact hertz"),
        (s.joint_hertz, "joint hertz"),
    ] {
        if value <= 0.0 {
            return Err(Error::NonPositive(what));
        }
    }
    for (value, what) in [
        (s.contact_damping_ratio, "contact damping ratio"),
        (s.joint_damping_ratio, "joint damping ratio"),
        (s.max_push_out_speed, "max push-out speed"),
        (s.restitution_threshold, "restitution threshold"),
    ] {
        if value < 0.0 {
            return Err(Error::Negative(what));
        }
    }
    if s.support_mass_ratio.is_nan() || s.support_mass_ratio < 1.0 {
        return Err(Error::OutOfRange("support mass ratio: at least 1"));
    }
    Ok(())
}

pub(crate) fn check_sleep(s: &SleepSettings) -> Result<(), Error> {
    finite(
        "sleep settings",
        &[s.linear_threshold, s.angular_threshold, s.time_to_sleep],
    )?;
    if s.linear_threshold < 0.0 || s.angular_threshold < 0.0 {
        return Err(Error::Negative("sleep threshold"));
    }
    if s.time_to_sleep < 0.0 {
        return Err(Error::Negative("time to sleep"));
    }
    Ok(())
}

//! Islands and sleeping: bodies that touch or are joined form islands, and an island whose
//! bodies have all been slow for a while stops being simulated until something wakes it.

use parry3d::math::Real;

/// When bodies fall asleep. A world holds one ([`crate::World::sleep`]).
///
/// ```
/// use sprung::World;
///
/// let mut world = World::default();
/// assert!(world.sleep.enabled);
/// world.sleep.enabled = false; // every body stays awake: the raw cost of a step
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SleepSettings {
    /// Whether islands may sleep at all.
    pub enabled: bool,
    /// A body is slow while its linear speed is under this (m/s)...
    pub linear_threshold: Real,
    /// ...and its angular speed under this (rad/s).
    pub angular_threshold: Real,
    /// How long (s) every body of an island must have been slow before it sleeps.
    pub time_to_sleep: Real,
}

impl Default for SleepSettings {
    fn default() -> Self {
        SleepSettings {
            enabled: true,
            linear_threshold: 0.05,
            angular_threshold: 0.05,
            time_to_sleep: 0.5,
        }
    }
}

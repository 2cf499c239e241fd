//! The spring toolkit's responses over time, for `sprung plot springs`: each starts at 0 and
//! heads for 1 (the inertialized one switches from a rising animation to a constant 1).

use sprung::math::Real;
use sprung::spring::critical::critical_spring_damper;
use sprung::spring::damper::damper;
use sprung::spring::derived::{DoubleSpring, TimedSpring};
use sprung::spring::exact::spring_damper;
use sprung::spring::inertialization::Inertializer;
use sprung::Spring;

use crate::plot::{chart, Canvas};

const DT: Real = 1.0 / 60.0;
const SECONDS: Real = 3.0;

fn sample(mut step: impl FnMut() -> Real) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0)];
    for i in 1..=(SECONDS / DT) as usize {
        out.push((i as f64 * DT as f64, step() as f64));
    }
    out
}

/// The chart of every response.
pub fn springs() -> Canvas {
    let mut x = 0.0;
    let damped = sample(|| {
        x = damper(x, 1.0, 0.25, DT);
        x
    });
    let spring = |zeta: Real| {
        let (mut x, mut v) = (0.0, 0.0);
        let s = Spring::Frequency {
            hertz: 1.0,
            damping_ratio: zeta,
        };
        sample(move || {
            spring_damper(&mut x, &mut v, 1.0, 0.0, &s, DT);
            x
        })
    };
    let (mut cx, mut cv) = (0.0, 0.0);
    let critical = sample(|| {
        critical_spring_damper(&mut cx, &mut cv, 1.0, 0.0, 0.25, DT);
        cx
    });
    let mut double = DoubleSpring::new(0.0);
    let doubled = sample(|| {
        double.update(1.0, 0.25, DT);
        double.position
    });
    let mut timed = TimedSpring::new(0.0);
    let mut elapsed = 0.0;
    let timing = sample(|| {
        elapsed += DT;
        timed.update(1.0, (1.5 - elapsed).max(0.0), 0.1, DT);
        timed.position
    });
    // An animation rising at 1/s switches at 0.5 s to holding 1: inertialization hides the jump.
    let mut blend: Inertializer<Real> = Inertializer::new();
    let mut t = 0.0;
    let inertialized = sample(|| {
        t += DT;
        if t < 0.5 {
            t
        } else {
            if (t - DT) < 0.5 {
                blend.transition(t - DT, 1.0, 1.0, 0.0);
            }
            blend.update(1.0, 0.0, 0.15, DT).0
        }
    });
    chart(
        "SPRUNG SPRING TOOLKIT: RESPONSES TO A STEP",
        (0.0, SECONDS as f64),
        (0.0, 1.75),
        &[
            ("DAMPER, HALFLIFE 0.25", [31, 119, 180], damped),
            ("UNDERDAMPED, 1 HZ, 0.2", [214, 39, 40], spring(0.2)),
            ("CRITICAL, HALFLIFE 0.25", [44, 160, 44], critical),
            ("OVERDAMPED, 1 HZ, 3", [148, 103, 189], spring(3.0)),
            ("DOUBLE, HALFLIFE 0.25", [255, 127, 14], doubled),
            ("TIMED, ARRIVE AT 1.5 S", [140, 86, 75], timing),
            ("INERTIALIZED SWITCH", [227, 119, 194], inertialized),
        ],
    )
}

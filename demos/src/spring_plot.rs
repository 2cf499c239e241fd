//! The pictures of `sprung plot`: the spring toolkit's step responses (`springs`), the error
//! of each spring against its closed form as the time step grows (`accuracy`: the toolkit's
//! promise in one picture), and the energy of the spring net and of a pendulum over time
//! (`energy`).

use sprung::math::{Point, Real, Vector};
use sprung::spring::critical::critical_spring_damper;
use sprung::spring::damper::damper;
use sprung::spring::derived::{DoubleSpring, TimedSpring};
use sprung::spring::exact::spring_damper;
use sprung::spring::inertialization::Inertializer;
use sprung::spring::integrators::Integrator;
use sprung::{ColliderBuilder, JointBuilder, JointKind, RigidBodyBuilder, Spring, World};

use plotters::prelude::{IntoLogRange, SeriesLabelPosition};

use crate::plot::{chart, draw_chart, panels, Canvas, Chart, Colour};

/// The pictures' size (pixels).
pub const SIZE: (usize, usize) = (1280, 720);

/// The curves' colours (the usual ten-colour palette's first seven).
pub const PALETTE: [Colour; 7] = [
    [31, 119, 180],
    [214, 39, 40],
    [44, 160, 44],
    [148, 103, 189],
    [255, 127, 14],
    [140, 86, 75],
    [227, 119, 194],
];

const DT: Real = 1.0 / 60.0;
const SECONDS: Real = 3.0;

fn sample(mut step: impl FnMut() -> Real) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0)];
    for i in 1..=(SECONDS / DT) as usize {
        out.push((i as f64 * DT as f64, step() as f64));
    }
    out
}

/// Each of the toolkit's springs from 0 towards 1, at 60 Hz.
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
    let p = PALETTE;
    let spec = Chart {
        title: "The spring toolkit: responses to a step from 0 to 1 (60 Hz updates)",
        x_label: "time (s)",
        y_label: "position",
        series: vec![
            ("damper, halflife 0.25 s", p[0], damped),
            ("spring-damper, 1 Hz, damping ratio 0.2", p[1], spring(0.2)),
            ("critical spring, halflife 0.25 s", p[2], critical),
            ("spring-damper, 1 Hz, damping ratio 3", p[3], spring(3.0)),
            ("double spring, halflife 0.25 s", p[4], doubled),
            ("timed spring, arriving at 1.5 s", p[5], timing),
            ("inertialized switch at 0.5 s", p[6], inertialized),
        ],
        legend: SeriesLabelPosition::UpperRight,
    };
    chart(SIZE, &spec, 0.0..SECONDS as f64, 0.0..1.75)
}

/// Errors below this are drawn at it (a log axis has no zero; f32 rounding is about 1e-7).
const ERROR_FLOOR: f64 = 1e-8;
/// Errors above this are drawn at it (an explicit integrator past its limit diverges).
const ERROR_CEILING: f64 = 10.0;

/// The time steps of the accuracy chart: 1/960 s to 1/15 s, log-spaced.
fn time_steps() -> Vec<Real> {
    (0..=12)
        .map(|i| (1.0 / 960.0_f64 * (64.0_f64).powf(i as f64 / 12.0)) as Real)
        .collect()
}

/// The largest error over `seconds` of the states `step` makes at steps of `dt` against
/// `exact(t)`, floored and capped for the log axis.
fn error_at(
    dt: Real,
    seconds: f64,
    mut step: impl FnMut(Real) -> Real,
    exact: impl Fn(f64) -> f64,
) -> f64 {
    let n = (seconds / dt as f64).round() as usize;
    let mut worst = 0.0_f64;
    for i in 1..=n {
        let x = step(dt) as f64;
        let e = (x - exact(i as f64 * dt as f64)).abs();
        worst = if e.is_finite() {
            worst.max(e)
        } else {
            f64::INFINITY
        };
    }
    worst.clamp(ERROR_FLOOR, ERROR_CEILING)
}

/// The error of each spring against its closed form over 3 s of a step from 0 to 1, as the
/// time step grows (1/960 s to 1/15 s): the toolkit's springs follow theirs at any step;
/// integrating the same spring does not. The first three curves are the toolkit's.
pub fn accuracy_series() -> Vec<crate::plot::Series<'static>> {
    let (hertz, zeta, halflife) = (1.0_f64, 0.2_f64, 0.25_f64);
    let omega = 2.0 * std::f64::consts::PI * hertz;
    let damped_omega = omega * (1.0 - zeta * zeta).sqrt();
    // The underdamped oscillator from rest at 0 towards 1.
    let oscillator = move |t: f64| {
        1.0 - (-zeta * omega * t).exp()
            * ((damped_omega * t).cos() + zeta * omega / damped_omega * (damped_omega * t).sin())
    };
    // The critical spring of halflife h: from rest, 1 - (1 + w t) e^(-w t), w = 1.678347 / h.
    let w = 1.678_347 / halflife;
    let critical = move |t: f64| 1.0 - (1.0 + w * t) * (-w * t).exp();
    // The damper halves the distance every halflife.
    let halving = move |t: f64| 1.0 - 0.5_f64.powf(t / halflife);
    let spring = Spring::Frequency {
        hertz: hertz as Real,
        damping_ratio: zeta as Real,
    };
    let seconds = 3.0;
    let steps = time_steps();
    let curve = |run: &dyn Fn(Real) -> f64| -> Vec<(f64, f64)> {
        steps.iter().map(|&dt| (dt as f64, run(dt))).collect()
    };
    let exact_spring = curve(&|dt| {
        let (mut x, mut v) = (0.0, 0.0);
        error_at(
            dt,
            seconds,
            |h| {
                spring_damper(&mut x, &mut v, 1.0, 0.0, &spring, h);
                x
            },
            oscillator,
        )
    });
    let critical_spring = curve(&|dt| {
        let (mut x, mut v) = (0.0, 0.0);
        error_at(
            dt,
            seconds,
            |h| {
                critical_spring_damper(&mut x, &mut v, 1.0, 0.0, halflife as Real, h);
                x
            },
            critical,
        )
    });
    let damper_curve = curve(&|dt| {
        let mut x = 0.0;
        error_at(
            dt,
            seconds,
            |h| {
                x = damper(x, 1.0, halflife as Real, h);
                x
            },
            halving,
        )
    });
    let integrated = |integrator: Integrator| {
        curve(&move |dt| {
            let (mut x, mut v) = (0.0, 0.0);
            error_at(
                dt,
                seconds,
                |h| {
                    integrator.step_spring(&mut x, &mut v, 1.0, 0.0, &spring, h);
                    x
                },
                oscillator,
            )
        })
    };
    let p = PALETTE;
    let mut series = vec![
        ("exact spring-damper, 1 Hz, ratio 0.2", p[1], exact_spring),
        ("critical spring, halflife 0.25 s", p[2], critical_spring),
        ("damper, halflife 0.25 s", p[0], damper_curve),
    ];
    for (name, colour, integrator) in [
        (
            "the same spring, semi-implicit Euler",
            p[4],
            Integrator::SemiImplicitEuler,
        ),
        (
            "the same spring, explicit Euler",
            p[3],
            Integrator::ExplicitEuler,
        ),
        (
            "the same spring, backward Euler",
            p[5],
            Integrator::BackwardEuler,
        ),
        ("the same spring, stable PD", p[6], Integrator::StablePd),
    ] {
        series.push((name, colour, integrated(integrator)));
    }
    series
}

/// The engine with its defaults against four textbook closed forms (see
/// [`crate::closed_forms`]), the relative error of each as the time step grows from 1/960 s to
/// 1/15 s: rolling, restitution, pendulum, free spin.
pub fn engine_accuracy_series() -> Vec<crate::plot::Series<'static>> {
    let steps = time_steps();
    let curve = |run: fn(Real) -> f64| -> Vec<(f64, f64)> {
        let floor = |e: f64| e.clamp(ERROR_FLOOR, ERROR_CEILING);
        steps
            .iter()
            .map(|&dt| (dt as f64, floor(run(dt))))
            .collect()
    };
    use crate::closed_forms::{free_spin, pendulum, restitution, rolling};
    let p = PALETTE;
    vec![
        (
            "ball rolling down 10 degrees: 5/7 g sin",
            p[0],
            curve(rolling),
        ),
        (
            "ball thrown at a floor: leaves at e v",
            p[1],
            curve(restitution),
        ),
        ("pendulum from 3 degrees: its period", p[2], curve(pendulum)),
        (
            "box spun about its middle axis: L, energy",
            p[3],
            curve(free_spin),
        ),
    ]
}

/// [`accuracy_series`] on log-log axes, beside [`engine_accuracy_series`].
pub fn accuracy() -> Canvas {
    let spec = Chart {
        title: "The springs against their closed forms (3 s of a step)",
        x_label: "time step (s), log",
        y_label: "largest error, log",
        series: accuracy_series(),
        legend: SeriesLabelPosition::UpperLeft,
    };
    let engine = Chart {
        title: "The engine against the textbook (defaults)",
        x_label: "time step (s), log",
        y_label: "relative error, log",
        series: engine_accuracy_series(),
        legend: SeriesLabelPosition::UpperLeft,
    };
    let steps = time_steps();
    let first = *steps.first().expect("time steps") as f64;
    let last = *steps.last().expect("time steps") as f64;
    let x = || (first * 0.9..last * 1.1).log_scale();
    let y = || (ERROR_FLOOR * 0.5..ERROR_CEILING * 2.0).log_scale();
    panels(
        SIZE,
        &[&|area| draw_chart(area, &spec, x(), y()), &|area| {
            draw_chart(area, &engine, x(), y())
        }],
    )
}

/// Kinetic energy of every dynamic body, gravitational energy above y = 0, and the energy of
/// the distance joints' springs of stiffness form (J).
fn energies(world: &World) -> (f64, f64, f64) {
    let g = -world.gravity().y as f64;
    let (mut kinetic, mut height) = (0.0, 0.0);
    for (_, body) in world.bodies() {
        if body.kind() != sprung::BodyKind::Dynamic {
            continue;
        }
        let mass = body.mass().mass as f64;
        let v = body.linear_velocity().norm_squared() as f64;
        let w = body.angular_velocity();
        let inertia = body.world_inertia();
        kinetic += 0.5 * mass * v + 0.5 * w.dot(&(inertia * w)) as f64;
        height += mass * g * body.translation().y as f64;
    }
    let mut springs = 0.0;
    for (_, joint) in world.joints() {
        if let JointKind::Distance(d) = joint.kind() {
            if let Some(Spring::Stiffness { stiffness, .. }) = d.spring {
                let (a, b) = joint.bodies();
                let (la, lb) = joint.local_anchors();
                let pa = world.body(a).expect("joined bodies live").pose() * la;
                let pb = world.body(b).expect("joined bodies live").pose() * lb;
                let stretch = ((pb - pa).norm() - d.rest_length) as f64;
                springs += 0.5 * stiffness as f64 * stretch * stretch;
            }
        }
    }
    (kinetic, height, springs)
}

/// A 1 kg ball (radius 0.1 m) on a 1 m rigid ball joint, let go 60 degrees from the bottom.
pub fn pendulum() -> World {
    let mut world = World::new(Vector::new(0.0, -9.81, 0.0)).expect("finite gravity");
    let pivot = world
        .add_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 2.0, 0.0)))
        .expect("a valid body");
    let angle: Real = 60.0_f32.to_radians();
    let bob = world
        .add_body(RigidBodyBuilder::dynamic().translation(Vector::new(
            angle.sin(),
            2.0 - angle.cos(),
            0.0,
        )))
        .expect("a valid body");
    // 1 kg: a ball of radius 0.1 m at 238.73 kg/m^3.
    world
        .add_collider(ColliderBuilder::ball(0.1).density(238.732_4), bob)
        .expect("a valid collider");
    let arm = Point::new(-angle.sin(), angle.cos(), 0.0);
    world
        .add_joint(JointBuilder::ball(Point::origin(), arm), pivot, bob)
        .expect("a valid joint");
    world
}

/// Energy over time of `world` stepped at 60 Hz for `seconds`: kinetic, gravitational, the
/// springs', and their total, each against time.
pub fn energy_over_time(mut world: World, seconds: f64) -> [Vec<(f64, f64)>; 4] {
    let mut curves: [Vec<(f64, f64)>; 4] = Default::default();
    let steps = (seconds / DT as f64).round() as usize;
    for i in 0..=steps {
        if i > 0 {
            world.step(DT).expect("the scene steps");
        }
        let t = i as f64 * DT as f64;
        let (k, h, s) = energies(&world);
        for (curve, value) in curves.iter_mut().zip([k, h, s, k + h + s]) {
            curve.push((t, value));
        }
    }
    curves
}

/// A chart of energies against time, its y range fitted to them.
fn energy_chart<'a>(
    title: &'a str,
    y_label: &'a str,
    series: Vec<crate::plot::Series<'a>>,
    legend: SeriesLabelPosition,
) -> (Chart<'a>, std::ops::Range<f64>) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (_, e) in series.iter().flat_map(|(_, _, c)| c.iter()) {
        (lo, hi) = (lo.min(*e), hi.max(*e));
    }
    let pad = 0.08 * (hi - lo).max(1e-9);
    let chart = Chart {
        title,
        x_label: "time (s)",
        y_label,
        series,
        legend,
    };
    (chart, (lo - pad)..(hi + pad))
}

/// The spring net's and a pendulum's energy over time: the net's damped springs lose energy
/// until it hangs at rest; the rigid pendulum keeps almost all of its own.
pub fn energy() -> Canvas {
    let net = (crate::find("spring_net")
        .expect("the catalogue has spring_net")
        .build)()
    .world;
    let [k1, h1, s1, t1] = energy_over_time(net, 6.0);
    let [k2, h2, _, t2] = energy_over_time(pendulum(), 6.0);
    let kilo = |c: Vec<(f64, f64)>| c.into_iter().map(|(t, e)| (t, e / 1000.0)).collect();
    let p = PALETTE;
    let (net, net_range) = energy_chart(
        "spring_net: 900 bodies on damped springs",
        "energy (kJ)",
        vec![
            ("kinetic", p[0], kilo(k1)),
            ("gravitational", p[2], kilo(h1)),
            ("springs", p[4], kilo(s1)),
            ("total", p[1], kilo(t1)),
        ],
        SeriesLabelPosition::UpperRight,
    );
    let (pendulum, pendulum_range) = energy_chart(
        "A rigid pendulum: 1 kg, 1 m, from 60 degrees",
        "energy (J)",
        vec![
            ("kinetic", p[0], k2),
            ("gravitational", p[2], h2),
            ("total", p[1], t2),
        ],
        SeriesLabelPosition::MiddleRight,
    );
    panels(
        SIZE,
        &[
            &|area| draw_chart(area, &net, 0.0..6.0, net_range.clone()),
            &|area| draw_chart(area, &pendulum, 0.0..6.0, pendulum_range.clone()),
        ],
    )
}

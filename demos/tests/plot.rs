//! `sprung plot` draws real pictures, and the accuracy picture shows what the toolkit promises.

use sprung_demos::plot::{decode_png, Canvas};
use sprung_demos::spring_plot::{self, PALETTE, SIZE};

/// A chart: the picture's size, mostly white, with text and grid, and the curves of the first
/// `curves` palette colours each drawn over many pixels.
fn check_chart(name: &str, canvas: &Canvas, curves: usize) {
    assert_eq!(canvas.size(), SIZE, "{name}");
    let total = SIZE.0 * SIZE.1;
    let white = canvas.count_near([255, 255, 255], 0);
    assert!(
        white > total / 2 && white < total,
        "{name}: {white} white of {total}"
    );
    // Anti-aliased lines and text: many shades, not a handful of flat colours.
    assert!(
        canvas.colours() > 200,
        "{name}: {} colours",
        canvas.colours()
    );
    // Text and axes: dark pixels.
    assert!(canvas.count_near([0, 0, 0], 60) > 2000, "{name}: no text");
    for (i, colour) in PALETTE.iter().take(curves).enumerate() {
        let inked = canvas.count_near(*colour, 12);
        assert!(
            inked > 150,
            "{name}: curve {i} {colour:?} has {inked} pixels"
        );
    }
}

#[test]
fn the_springs_picture_shows_seven_curves() {
    check_chart("springs", &spring_plot::springs(), 7);
}

#[test]
fn the_accuracy_picture_shows_seven_curves() {
    check_chart("accuracy", &spring_plot::accuracy(), 7);
}

#[test]
fn the_energy_picture_shows_its_curves() {
    // Blue kinetic, red total, green gravitational, orange springs.
    check_chart("energy", &spring_plot::energy(), 3);
    assert!(spring_plot::energy().count_near(PALETTE[4], 12) > 150);
}

/// The toolkit's springs follow their closed forms to f32 rounding at every time step from
/// 1/960 s to 1/15 s; the same spring integrated step by step errs in proportion to the step.
#[test]
fn the_toolkit_springs_are_exact_and_integrators_are_first_order() {
    let series = spring_plot::accuracy_series();
    for (name, _, points) in &series[..3] {
        for &(dt, error) in points {
            assert!(error < 1e-5, "{name}: {error} at dt {dt}");
        }
    }
    for (name, _, points) in &series[3..] {
        let (first, last) = (points[0], points[points.len() - 1]);
        // 64 times the step: about 64 times the error for a first-order method.
        let growth = last.1 / first.1;
        assert!(
            growth > 16.0,
            "{name}: error grew {growth}x over a 64x step"
        );
        assert!(first.1 > 1e-3, "{name}: {} at the smallest step", first.1);
    }
}

/// The engine's closed forms in the accuracy picture: at every step from 1/960 s to 1/15 s
/// each error is finite and under 10%, and at 1/60 s within the engine's promises: rolling
/// 1%, restitution 2%, the pendulum's period 1%, the free spin's L and energy 0.1%. (The free
/// spin's f32 roundings add up with the substeps: 0.3% in 5 s at 1/960 s.)
#[test]
fn the_engine_follows_the_textbook_at_game_steps() {
    let series = spring_plot::engine_accuracy_series();
    assert_eq!(series.len(), 4);
    let game_step = |dt: f64| (dt - 1.0 / 60.0).abs() < 1e-6;
    for ((name, _, points), bound) in series.iter().zip([0.01, 0.02, 0.01, 0.001]) {
        assert_eq!(points.len(), 13, "{name}");
        assert!(points.iter().any(|&(dt, _)| game_step(dt)), "{name}");
        for &(dt, error) in points {
            assert!(
                error.is_finite() && error < 0.1,
                "{name}: {error} at dt {dt}"
            );
            if game_step(dt) {
                assert!(error < bound, "{name}: {error} at dt {dt}, bound {bound}");
            }
        }
    }
}

/// The PNG writer and reader agree pixel for pixel, and the reader refuses what is not a PNG.
#[test]
fn a_png_reads_back_as_written() {
    let canvas = spring_plot::springs();
    let png = canvas.png();
    assert_eq!(&png[..8], &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]);
    let back = decode_png(&png).unwrap();
    assert_eq!(back, canvas);
    assert!(decode_png(b"not a png").is_err());
}

/// The pendulum of the energy picture against its closed forms: its kinetic energy peaks
/// every half period, `T = 2 pi sqrt(I / (m g L)) (1 + a^2/16 + 11 a^4/3072)` for amplitude
/// `a` (a ball of radius r: `I = m L^2 + (2/5) m r^2`), and it keeps its energy (the README
/// says how much).
#[test]
fn the_pendulum_swings_at_its_period_and_keeps_its_energy() {
    let [kinetic, _, _, total] = spring_plot::energy_over_time(spring_plot::pendulum(), 6.0);
    let peaks: Vec<f64> = kinetic
        .windows(3)
        .filter(|w| w[1].1 > w[0].1 && w[1].1 >= w[2].1 && w[1].1 > 2.0)
        .map(|w| w[1].0)
        .collect();
    assert!(peaks.len() >= 5, "{peaks:?}");
    let half_period = (peaks[peaks.len() - 1] - peaks[0]) / (peaks.len() - 1) as f64;
    let (a, length, r, g): (f64, f64, f64, f64) = (60f64.to_radians(), 1.0, 0.1, 9.81);
    let inertia = length * length + 0.4 * r * r;
    let period = 2.0
        * std::f64::consts::PI
        * (inertia / (g * length)).sqrt()
        * (1.0 + a * a / 16.0 + 11.0 * a.powi(4) / 3072.0);
    // Peaks are found to a step (1/60 s) each; over five half periods that is 0.3%.
    assert!(
        (2.0 * half_period - period).abs() < 0.01 * period,
        "period {} against {period}",
        2.0 * half_period
    );
    let kept = total.last().unwrap().1 / total[0].1;
    println!(
        "the pendulum keeps {:.2}% of its energy over 6 s",
        kept * 100.0
    );
    assert!(kept > 0.98 && kept <= 1.0 + 1e-6, "{kept}");
}

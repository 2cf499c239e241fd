use std::time::Instant;
fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap();
    let steps: usize = args.next().map(|s| s.parse().unwrap()).unwrap_or(200);
    let spec = sprung_demos::scenes::find(&name).unwrap();
    let mut scene = (spec.build)();
    if std::env::var("SLEEP").is_err() {
        scene.world.set_sleeping(false);
    }
    let (mut bp, mut np, mut solve, mut integ, mut after, mut total) =
        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    let from = steps / 2;
    for i in 0..steps {
        let t = Instant::now();
        let r = scene.step(spec.dt).unwrap();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if i >= from {
            bp += r.broad_phase_ms;
            np += r.narrow_phase_ms;
            solve += r.solve_ms;
            integ += r.integrate_ms;
            after += r.after_ms;
            total += ms;
        }
    }
    let n = (steps - from) as f64;
    println!("{name}: last {n} steps: total {:.3} bp {:.3} np {:.3} solve {:.3} integ {:.3} after {:.3} rest {:.3}", total/n, bp/n, np/n, solve/n, integ/n, after/n, (total-bp-np-solve-integ-after)/n);
}

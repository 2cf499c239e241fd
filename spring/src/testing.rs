//! Test helpers: a high-accuracy reference integrator for the springs' ODEs.

/// Integrates `y' = f(y)` from `y` over `duration` (s) with classic RK4 in f64 at a step of at
/// most `h` (s). Used as the ground truth the exact springs are held to.
pub fn rk4<const N: usize>(
    mut y: [f64; N],
    f: impl Fn(&[f64; N]) -> [f64; N],
    duration: f64,
    h: f64,
) -> [f64; N] {
    let steps = (duration / h).ceil().max(1.0) as usize;
    let h = duration / steps as f64;
    let axpy = |y: &[f64; N], k: &[f64; N], a: f64| {
        let mut out = *y;
        for i in 0..N {
            out[i] += a * k[i];
        }
        out
    };
    for _ in 0..steps {
        let k1 = f(&y);
        let k2 = f(&axpy(&y, &k1, h / 2.0));
        let k3 = f(&axpy(&y, &k2, h / 2.0));
        let k4 = f(&axpy(&y, &k3, h));
        for i in 0..N {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    y
}

/// The reference step used in the tests (s).
pub const H: f64 = 1e-5;

/// The damped spring with constant goal position `g` and goal velocity `q`, per unit mass:
/// `x'' = s (g - x) + d (q - x')`, integrated by [`rk4`]. Returns `(x, v)` after `t`.
pub fn spring_reference(x: f64, v: f64, g: f64, q: f64, s: f64, d: f64, t: f64) -> (f64, f64) {
    let [x, v] = rk4([x, v], |y| [y[1], s * (g - y[0]) + d * (q - y[1])], t, H);
    (x, v)
}

//! The solver's worker threads: one scope per step on a private rayon pool, every worker
//! running the same stage list and meeting the others at a barrier between stages (Box2D v3's
//! `solver.c` does the same with its own task system; our own code).
//!
//! Work is split the same way every step: each colour's bundles in `workers` consecutive
//! blocks, the bodies for integration likewise, joints and the overflow contacts on worker 0
//! alone. The contacts of a colour share no moving body, so which worker solves which block
//! cannot change a bit of the result: one thread, two or four give the same world.

use std::sync::atomic::{AtomicUsize, Ordering};

/// A reusable spinning barrier for `n` workers. Spins briefly, then yields: the machine may
/// have fewer free cores than workers, and a worker that spins on a core another needs only
/// delays the step.
pub(crate) struct Barrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
}

impl Barrier {
    pub(crate) fn new(n: usize) -> Barrier {
        Barrier {
            n,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
        }
    }

    /// Returns once all `n` workers have called it (at once for one worker).
    #[inline]
    pub(crate) fn wait(&self) {
        if self.n <= 1 {
            return;
        }
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            if spins < 2_000 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Worker `worker` of `workers`'s share of `0..len`: consecutive blocks, the first ones one
/// longer when `len` does not divide evenly.
pub(crate) fn share(len: usize, worker: usize, workers: usize) -> std::ops::Range<usize> {
    let (base, extra) = (len / workers, len % workers);
    let start = worker * base + worker.min(extra);
    start..start + base + usize::from(worker < extra)
}

/// A pointer the workers share; what each may touch through it, and when, is the stage list's
/// contract (module doc).
#[derive(Clone, Copy)]
pub(crate) struct Shared<T>(pub(crate) *mut T);

// SAFETY: the stage list gives each worker disjoint parts between barriers.
unsafe impl<T> Send for Shared<T> {}
unsafe impl<T> Sync for Shared<T> {}

/// The private pool, rebuilt only when the thread count changes.
#[derive(Default)]
pub(crate) struct Pool {
    pool: Option<(usize, rayon::ThreadPool)>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pool({:?})", self.pool.as_ref().map(|p| p.0))
    }
}

impl Pool {
    /// Runs `work(worker)` for every worker of `workers` at once, on the calling thread alone
    /// for one worker (or if no pool can be built: then with one worker, which gives the same
    /// result).
    pub(crate) fn run(&mut self, workers: usize, work: &(dyn Fn(usize, usize) + Sync)) {
        if workers > 1 && self.pool.as_ref().is_none_or(|p| p.0 != workers) {
            self.pool = rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .thread_name(|i| format!("sprung-solver-{i}"))
                .build()
                .ok()
                .map(|pool| (workers, pool));
        }
        match &self.pool {
            Some((n, pool)) if workers > 1 && *n == workers => pool.scope(|scope| {
                for worker in 1..workers {
                    scope.spawn(move |_| work(worker, workers));
                }
                work(0, workers);
            }),
            _ => work(0, 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shares cover the range once, in order.
    #[test]
    fn shares_tile_the_range() {
        for len in 0..20 {
            for workers in 1..5 {
                let all: Vec<usize> = (0..workers).flat_map(|w| share(len, w, workers)).collect();
                assert_eq!(all, (0..len).collect::<Vec<_>>());
            }
        }
    }
}

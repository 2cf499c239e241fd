//! The solver's worker threads: a private pool woken once per step, every worker running the
//! same stage list and meeting the others at a barrier between stages (Box2D v3's `solver.c`
//! does the same with its own task system; our own code).
//!
//! Work is split the same way every step: each colour's bundles (contacts, joints in lanes) and
//! each colour of the other joints in `workers` consecutive blocks, the bodies for integration
//! likewise; the chains, vehicles and what no colour took on worker 0 alone. The constraints of
//! a colour share no moving body, and the colours are solved in the same order on any worker
//! count, so which worker solves which block cannot change a bit of the result: one thread, two
//! or four give the same world.

#[cfg(feature = "parallel")]
use std::sync::atomic::AtomicU64;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use crate::settings::MAX_THREADS;

/// A reusable barrier for `n` workers. Spins briefly, then yields, then sleeps: the machine
/// may have fewer free cores than workers (other programs run too), and a worker that spins
/// or yields on a core another needs only delays the step, while one asleep leaves the core
/// to the workers still on their way.
pub(crate) struct Barrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    /// Workers asleep on `wake` (or on their way to it): the last to arrive wakes them.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

impl Barrier {
    pub(crate) fn new(n: usize) -> Barrier {
        Barrier {
            n,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
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
            // Sequentially consistent with the sleepers' count (below): either a sleeper
            // sees the new generation before it sleeps, or this sees it counted and wakes it.
            self.generation.fetch_add(1, Ordering::SeqCst);
            if self.sleepers.load(Ordering::SeqCst) > 0 {
                let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                self.wake.notify_all();
            }
            return;
        }
        let mut backoff = Backoff::default();
        while self.generation.load(Ordering::Acquire) == generation {
            if !backoff.snooze() {
                self.sleep(generation);
                return;
            }
        }
    }

    /// Sleeps until the generation after `generation` begins.
    #[cold]
    fn sleep(&self, generation: usize) {
        let mut held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        while self.generation.load(Ordering::SeqCst) == generation {
            held = self.wake.wait(held).unwrap_or_else(|e| e.into_inner());
        }
        self.sleepers.fetch_sub(1, Ordering::Relaxed);
    }
}

/// How a thread waits for another: it spins a while (the other is usually a few
/// microseconds away on its own core), then yields at each check, so that a thread placed on
/// the core of the one it waits for lets that one run. The barrier, the pool's caller and its
/// watching workers all wait this way; the barrier then sleeps.
#[derive(Default)]
struct Backoff {
    spins: u32,
}

impl Backoff {
    /// Spins this many times before yielding.
    const SPINS: u32 = 2_000;
    /// Yields this many times before [`Backoff::snooze`] says to sleep.
    const YIELDS: u32 = 200;

    /// One wait between two checks; false once the waiting has gone on long enough that
    /// the waiter should sleep if it can (the pool's caller and watchers go on yielding).
    #[inline]
    fn snooze(&mut self) -> bool {
        if self.spins < Self::SPINS {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
        self.spins = self.spins.saturating_add(1);
        self.spins < Self::SPINS + Self::YIELDS
    }
}

/// Worker `worker` of `workers`'s share of `0..len`: consecutive blocks, the first ones one
/// longer when `len` does not divide evenly.
pub fn share(len: usize, worker: usize, workers: usize) -> std::ops::Range<usize> {
    let (base, extra) = (len / workers, len % workers);
    let start = worker * base + worker.min(extra);
    start..start + base + usize::from(worker < extra)
}

/// A pointer the workers share: the one way the engine's crates hand a buffer to several
/// workers at once. What each may touch through it, and when, is its user's contract (the
/// solver's stage list: the module doc; the engine's stages: each says so where it makes one),
/// always disjoint parts between barriers.
pub struct Shared<T>(pub *mut T);

// (By hand: the derives would ask `T: Copy`, and a pointer is copied whatever it points to.)
impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Shared<T> {}

// SAFETY: every user gives each worker disjoint parts between barriers (the type's doc).
unsafe impl<T> Send for Shared<T> {}
// SAFETY: as `Send`'s.
unsafe impl<T> Sync for Shared<T> {}

/// The solver's worker threads: started when a solve first asks for more than one worker
/// (again only for a larger count: a smaller one uses the first of them), parked between
/// solves, and woken for each with the stage list to run. A solve allocates nothing: the
/// work is handed over as a pointer, and waking and waiting are a mutex, a condition
/// variable and atomic counters (a rayon scope boxes every job it spawns, a few allocations
/// per step).
///
/// Without the `parallel` feature the pool starts no thread: every run is worker 0 of one,
/// on the calling thread (the same bits as any count).
#[derive(Default)]
pub(crate) struct Pool {
    #[cfg(feature = "parallel")]
    workers: Option<Workers>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        #[cfg(feature = "parallel")]
        let count = self.workers.as_ref().map(|w| w.count);
        #[cfg(not(feature = "parallel"))]
        let count: Option<usize> = None;
        write!(f, "Pool({count:?})")
    }
}

#[cfg(feature = "parallel")]
/// The work of one solve, as the workers see it: `work(worker, workers)` (its borrows erased:
/// see [`Pool::run`]).
type Work = dyn Fn(usize, usize) + Sync;

#[cfg(feature = "parallel")]
/// What the caller hands the workers.
struct Task {
    /// Raised for each solve; a worker runs each generation once.
    generation: u64,
    /// The solve's work, valid from the generation's start until every worker has reported
    /// it done (the caller waits for that before its borrow ends).
    work: Option<*const Work>,
    /// How many take part, counting the caller: the pool's threads past them sit the
    /// generation out (a pool serves any count up to its own, so that a step whose
    /// narrow phase and solve ask for different counts does not start threads twice).
    workers: usize,
    /// The pool is being dropped.
    stop: bool,
}

#[cfg(feature = "parallel")]
// SAFETY: the pointer is only dereferenced under the protocol above.
unsafe impl Send for Task {}

#[cfg(feature = "parallel")]
struct State {
    task: std::sync::Mutex<Task>,
    wake: std::sync::Condvar,
    /// `Task::generation`, read without the lock by a worker watching for its next work.
    posted: AtomicU64,
    /// Workers done with the current generation.
    done: AtomicUsize,
    /// A worker's work panicked (a bug): the caller panics too rather than go on.
    panicked: std::sync::atomic::AtomicBool,
}

#[cfg(feature = "parallel")]
struct Workers {
    /// Workers counting the caller.
    count: usize,
    state: std::sync::Arc<State>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

#[cfg(feature = "parallel")]
impl Workers {
    /// `count - 1` threads besides the caller, or none if the system refuses a thread.
    fn start(count: usize) -> Option<Workers> {
        let state = std::sync::Arc::new(State {
            task: std::sync::Mutex::new(Task {
                generation: 0,
                work: None,
                workers: 1,
                stop: false,
            }),
            wake: std::sync::Condvar::new(),
            posted: AtomicU64::new(0),
            done: AtomicUsize::new(0),
            panicked: std::sync::atomic::AtomicBool::new(false),
        });
        let mut workers = Workers {
            count,
            state,
            threads: Vec::with_capacity(count - 1),
        };
        for index in 1..count {
            let state = std::sync::Arc::clone(&workers.state);
            // The one place the engine starts threads (the engine crates' clippy list).
            #[allow(clippy::disallowed_methods)]
            let thread = std::thread::Builder::new()
                .name(format!("sprung-solver-{index}"))
                .spawn(move || serve(&state, index))
                .ok()?;
            workers.threads.push(thread);
        }
        Some(workers)
    }
}

/// How long a worker that finished its work watches for the next before it sleeps. Waking
/// a sleeping worker took 23-33 us on this project's machines (two virtual cores), a watching
/// one under 1 us; a step's serial stretch between two uses of the pool (a small scene's
/// contacts and colouring between the narrow phase and the solve, or the end of one step
/// and the start of the next) is ~0.1 ms. Watching costs only the second core's time; like
/// the barrier, it yields after a while of spinning, for a worker placed on the caller's own
/// core (seen here: runs of an empty piece of work took the whole watch, 256 us, when it did
/// not yield, 95 us when it did, and under 1 us on separate cores).
#[cfg(feature = "parallel")]
const WATCH: std::time::Duration = std::time::Duration::from_micros(250);

#[cfg(feature = "parallel")]
/// A worker's loop: watch for a generation, then wait for it asleep; run its work, report it
/// done.
fn serve(state: &State, index: usize) {
    let mut seen = 0;
    loop {
        // The pool's watch, behind the `parallel` feature like the threads themselves.
        #[allow(clippy::disallowed_methods)]
        let watching = std::time::Instant::now();
        let mut backoff = Backoff::default();
        while state.posted.load(Ordering::Acquire) == seen && watching.elapsed() < WATCH {
            backoff.snooze();
        }
        let (work, workers) = {
            let mut task = state.task.lock().unwrap_or_else(|e| e.into_inner());
            while task.generation == seen && !task.stop {
                task = state.wake.wait(task).unwrap_or_else(|e| e.into_inner());
            }
            if task.stop {
                return;
            }
            seen = task.generation;
            (task.work, task.workers)
        };
        // A thread past the count asked for sits this generation out, unseen by the caller
        // (it never reads the work, so the caller need not wait for it).
        if index >= workers {
            continue;
        }
        if let Some(work) = work {
            // SAFETY: the caller keeps the work alive until every worker reports done.
            let work = unsafe { &*work };
            let run = std::panic::AssertUnwindSafe(|| work(index, workers));
            if std::panic::catch_unwind(run).is_err() {
                state.panicked.store(true, Ordering::Release);
            }
        }
        state.done.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(feature = "parallel")]
impl Drop for Workers {
    fn drop(&mut self) {
        self.state
            .task
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .stop = true;
        self.state.wake.notify_all();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl Pool {
    /// Runs `work(worker, workers)` for every worker of `workers` at once, worker 0 on the
    /// calling thread; on the calling thread alone for one worker (or if no thread can be
    /// started: then with one worker, which gives the same result).
    pub(crate) fn run<'a>(&mut self, workers: usize, work: &'a (dyn Fn(usize, usize) + Sync + 'a)) {
        #[cfg(not(feature = "parallel"))]
        {
            let _ = workers;
            work(0, 1)
        }
        #[cfg(feature = "parallel")]
        self.run_on_threads(workers, work)
    }

    /// [`Pool::run`] with the worker threads.
    #[cfg(feature = "parallel")]
    fn run_on_threads<'a>(&mut self, workers: usize, work: &'a (dyn Fn(usize, usize) + Sync + 'a)) {
        if workers > 1 && self.workers.as_ref().is_none_or(|w| w.count < workers) {
            self.workers = None;
            self.workers = Workers::start(workers);
        }
        let Some(pool) = self
            .workers
            .as_ref()
            .filter(|w| workers > 1 && w.count >= workers)
        else {
            return work(0, 1);
        };
        let state = &pool.state;
        state.done.store(0, Ordering::Release);
        // SAFETY: (the lifetime erased here) this function does not return before every
        // worker has reported this generation done, after which none reads the pointer.
        let erased: *const Work = unsafe {
            std::mem::transmute::<&'a (dyn Fn(usize, usize) + Sync + 'a), &'static Work>(work)
        };
        {
            let mut task = state.task.lock().unwrap_or_else(|e| e.into_inner());
            task.generation += 1;
            task.work = Some(erased);
            task.workers = workers;
            state.posted.store(task.generation, Ordering::Release);
        }
        state.wake.notify_all();
        work(0, workers);
        let mut backoff = Backoff::default();
        while state.done.load(Ordering::Acquire) < workers - 1 {
            backoff.snooze();
        }
        state.task.lock().unwrap_or_else(|e| e.into_inner()).work = None;
        assert!(
            !state.panicked.load(Ordering::Acquire),
            "a solver worker panicked"
        );
    }
}

impl Pool {
    /// Runs `work(piece, value)` for every piece of `pieces` (at most [`MAX_THREADS`]; any
    /// more are dropped) at once, each piece on a worker of its own, the first on the calling
    /// thread: for work whose pieces each own what they change (runs of a list, split before).
    /// With one piece, or no thread to start, the calling thread takes them all in turn.
    pub(crate) fn run_pieces<T: Send>(
        &mut self,
        pieces: impl IntoIterator<Item = T>,
        work: &(dyn Fn(usize, T) + Sync),
    ) {
        let held: [Mutex<Option<T>>; MAX_THREADS as usize] =
            std::array::from_fn(|_| Mutex::new(None));
        let mut count = 0;
        for (slot, piece) in held.iter().zip(pieces) {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(piece);
            count += 1;
        }
        let take = |piece: usize| {
            let slot = held[piece].lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(value) = slot {
                work(piece, value);
            }
        };
        if count <= 1 {
            take(0);
            return;
        }
        // Worker `w` of `n` takes pieces w, w + n, ...: all of them whatever `n` the pool runs.
        self.run(count, &|worker, workers| {
            (worker..count).step_by(workers.max(1)).for_each(take);
        });
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // (the tests start threads of their own)
mod tests {
    use super::*;

    /// Every worker asked for runs each piece of work once, and no other does, whether it was
    /// watching for it (runs back to back) or asleep (runs further apart than [`WATCH`]), and
    /// whatever count each run asks for; the pool's threads start once, for the largest.
    #[test]
    #[cfg(feature = "parallel")]
    fn each_worker_runs_each_piece_once() {
        let mut pool = Pool::default();
        let runs = [
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        ];
        let mut expected = [0; 3];
        for pause in [None, Some(WATCH * 4), None, Some(WATCH * 4)] {
            for k in 0..60 {
                let count = [3, 2, 1][k % 3];
                pool.run(count, &|worker, workers| {
                    assert_eq!(workers, count);
                    runs[worker].fetch_add(1, Ordering::Relaxed);
                });
                for e in &mut expected[..count] {
                    *e += 1;
                }
                for (r, e) in runs.iter().zip(expected) {
                    assert_eq!(r.load(Ordering::Relaxed), e);
                }
                let threads = pool.workers.as_ref().map(|w| w.threads.len());
                assert_eq!(threads, Some(2), "started once, for three workers");
                if let Some(pause) = pause {
                    std::thread::sleep(pause);
                }
            }
        }
    }

    /// Every piece handed to the pool is worked on once, with its own value, however many
    /// pieces there are (one runs on the calling thread).
    #[test]
    fn each_piece_is_worked_on_once() {
        let mut pool = Pool::default();
        for count in [1, 2, 3, 5] {
            let seen: [AtomicUsize; 8] = Default::default();
            pool.run_pieces((0..count).map(|k| 10 * k), &|piece, value| {
                assert_eq!(value, 10 * piece);
                seen[piece].fetch_add(1, Ordering::Relaxed);
            });
            let seen: Vec<usize> = seen.iter().map(|s| s.load(Ordering::Relaxed)).collect();
            let expected: Vec<usize> = (0..8).map(|k| usize::from(k < count)).collect();
            assert_eq!(seen, expected, "{count} pieces");
        }
    }

    /// No worker leaves the barrier before every worker has reached it, round after round,
    /// with more workers than cores (so that many of them wait asleep and are woken by the
    /// last to arrive) and with rounds where one worker is late enough that the others
    /// sleep.
    #[test]
    fn the_barrier_holds_every_worker_until_all_arrive() {
        let workers = 8;
        let barrier = Barrier::new(workers);
        let arrived = AtomicUsize::new(0);
        let rounds = 300;
        std::thread::scope(|scope| {
            for worker in 0..workers {
                let (barrier, arrived) = (&barrier, &arrived);
                scope.spawn(move || {
                    for round in 0..rounds {
                        if worker == round % workers && round % 50 == 0 {
                            std::thread::sleep(std::time::Duration::from_millis(2));
                        }
                        arrived.fetch_add(1, Ordering::Relaxed);
                        barrier.wait();
                        assert_eq!(arrived.load(Ordering::Relaxed), workers * (round + 1));
                        barrier.wait();
                    }
                });
            }
        });
        assert_eq!(barrier.sleepers.load(Ordering::Relaxed), 0);
    }

    /// A step runs on at most the machine's cores, however many threads were asked for (on
    /// one without the `parallel` feature).
    #[test]
    fn workers_are_at_most_the_cores() {
        let cores = if cfg!(feature = "parallel") {
            std::thread::available_parallelism().map_or(usize::MAX, |n| n.get())
        } else {
            1
        };
        let mut settings = crate::settings::SolverSettings::default();
        assert_eq!(settings.workers(), 1);
        for threads in [2, 4, 64, 1000] {
            settings.threads = threads;
            let expected = (threads.min(MAX_THREADS) as usize).min(cores);
            assert_eq!(settings.workers(), expected, "{threads} threads");
        }
    }

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

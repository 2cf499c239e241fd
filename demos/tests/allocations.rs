//! No allocation per step once a scene has settled: every buffer the step needs is kept and
//! reused. A counting global allocator watches a stretch of steps after the scene has run a
//! while (awake throughout, so that every stage does its full work).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use sprung_demos::find;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is handed to the system allocator as it came; only a count is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` (through this allocator) with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract for `realloc`, passed on (`ptr` came from `System`).
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The count is global: the tests take turns, or one's scene building is counted in another's
/// steps (it was: "34 allocations in 90 steps of 100 cars", the other test building its scene).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// This test's turn.
fn turn() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Allocations during `measured` steps of `name` after `settle` steps, sleeping off. Events
/// are drained after every step, as a game does: a queue nobody reads grows by design (side
/// contacts resting at zero separation begin and end touching now and then).
fn allocations(name: &str, settle: usize, measured: usize, threads: u32) -> usize {
    let spec = find(name).unwrap();
    let mut scene = (spec.build)();
    scene.world.set_sleeping(false);
    let mut settings = *scene.world.settings();
    settings.threads = threads;
    scene.world.set_settings(settings).unwrap();
    for _ in 0..settle {
        scene.step(spec.dt).unwrap();
        scene.world.drain_events().for_each(drop);
    }
    ALLOCATIONS.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    for _ in 0..measured {
        scene.world.step(spec.dt).unwrap();
        scene.world.drain_events().for_each(drop);
    }
    COUNTING.store(false, Ordering::Relaxed);
    ALLOCATIONS.load(Ordering::Relaxed)
}

#[test]
fn settled_scenes_step_without_allocating() {
    let _turn = turn();
    for (name, settle, threads) in [
        ("pyramid", 120, 1),
        ("pyramid3d", 60, 1),
        ("joint_grid", 60, 1),
        ("spring_net", 120, 1),
        ("bullet", 10, 1),
        // Hulls (GJK, EPA, clipping), and the two piles of thousands of pairs, once their
        // pair lists have stopped growing (at 60 steps boxes still allocated 127 times).
        ("convex", 120, 1),
        ("boxes", 400, 1),
        ("balls", 400, 1),
        // The worker threads are woken each step without allocating.
        ("pyramid3d", 60, 2),
        ("joint_grid", 60, 3),
    ] {
        let count = allocations(name, settle, 30, threads);
        assert_eq!(
            count, 0,
            "{name}, {threads} threads: {count} allocations in 30 steps"
        );
    }
}

#[test]
fn characters_walk_without_allocating() {
    let _turn = turn();
    let spec = find("character").unwrap();
    let mut scene = (spec.build)();
    // Counts what the characters' updates allocate over `steps` steps (the world's own steps
    // are not counted).
    let mut walk = |steps: usize, counted: bool| {
        ALLOCATIONS.store(0, Ordering::Relaxed);
        for _ in 0..steps {
            scene.world.step(spec.dt).unwrap();
            let crowd = scene.crowd.as_mut().unwrap();
            COUNTING.store(counted, Ordering::Relaxed);
            crowd.update(&mut scene.world, spec.dt).unwrap();
            COUNTING.store(false, Ordering::Relaxed);
            scene.world.drain_events().for_each(drop);
        }
        ALLOCATIONS.load(Ordering::Relaxed)
    };
    walk(60, false);
    // The ramp, the stairs, the slope and the platform: casts, contacts, steps, snapping and
    // riding.
    let count = walk(360, true);
    assert_eq!(
        count, 0,
        "{count} allocations in 360 steps of 100 characters"
    );
    // The first pushes (from step 433) wake the crates, which grows the world's list of woken
    // bodies once; the pushing goes on to step 450.
    walk(16, false);
    let count = walk(16, true);
    assert_eq!(
        count, 0,
        "{count} allocations in 16 steps of pushing crates"
    );
}

#[test]
fn vehicles_drive_without_allocating() {
    let _turn = turn();
    let spec = find("vehicles").unwrap();
    let mut scene = (spec.build)();
    scene.world.set_sleeping(false);
    // The drivers' inputs and the world's step: the wheels' casts and rows, the drive trains,
    // the racer's pads and motors, from half a second in (the first contacts' lists grown) to before the first car reaches its ramp or
    // crate (whose new pairs grow the world's lists once, as any new contact does).
    let mut drive = |steps: usize, counted: bool| {
        ALLOCATIONS.store(0, Ordering::Relaxed);
        COUNTING.store(counted, Ordering::Relaxed);
        for _ in 0..steps {
            scene.step(spec.dt).unwrap();
            scene.world.drain_events().for_each(drop);
        }
        COUNTING.store(false, Ordering::Relaxed);
        ALLOCATIONS.load(Ordering::Relaxed)
    };
    drive(30, false);
    let count = drive(90, true);
    assert_eq!(count, 0, "{count} allocations in 90 steps of 100 cars");
}

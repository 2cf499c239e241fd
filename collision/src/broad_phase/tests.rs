//! Tests of the sweep-and-prune broad phase: brute force is the oracle.

use super::sort::RADIX_PAIRS;
use super::*;
use parry3d::math::{Point, Vector};
use std::collections::BTreeSet;

// splitmix64, the scenes' generator, shared rather than copied.
#[allow(dead_code)]
#[path = "../../../demos/src/rng.rs"]
mod rng;
use rng::Rng;

fn cube(x: f32, y: f32, z: f32, h: f32) -> Aabb {
    Aabb::new(
        Point::new(x - h, y - h, z - h),
        Point::new(x + h, y + h, z + h),
    )
}

/// Random box in [0, 10]^3; `grid` snaps to multiples of 0.5 so faces often touch exactly.
fn random_box(rng: &mut Rng, grid: bool) -> Aabb {
    let mut mins = Point::origin();
    let mut maxs = Point::origin();
    for k in 0..3 {
        if grid {
            mins[k] = rng.below(20) as f32 * 0.5;
            maxs[k] = mins[k] + rng.below(4) as f32 * 0.5;
        } else {
            mins[k] = rng.unit() * 10.0;
            maxs[k] = mins[k] + 0.05 + rng.unit() * 1.5;
        }
    }
    Aabb::new(mins, maxs)
}

fn shifted(b: &Aabb, d: Vector<f32>) -> Aabb {
    Aabb::new(b.mins + d, b.maxs + d)
}

fn brute_pairs(bp: &BroadPhase, ids: &[ProxyId]) -> Vec<ProxyPair> {
    let boxes: Vec<Aabb> = ids.iter().map(|&id| bp.fat_aabb(id).unwrap()).collect();
    let mut out = Vec::new();
    for i in 0..ids.len() {
        for j in i + 1..ids.len() {
            if boxes[i].intersects(&boxes[j]) {
                out.push(make_pair(ids[i].0 as usize, ids[j].0 as usize));
            }
        }
    }
    out.sort_unstable();
    out
}

/// Brute force by sorting along x (for large scenes).
fn sorted_brute_pairs(bp: &BroadPhase, ids: &[ProxyId]) -> Vec<ProxyPair> {
    let mut boxes: Vec<(Aabb, ProxyId)> = ids
        .iter()
        .map(|&id| (bp.fat_aabb(id).unwrap(), id))
        .collect();
    boxes.sort_by(|a, b| a.0.mins.x.partial_cmp(&b.0.mins.x).unwrap());
    let mut out = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            if boxes[j].0.mins.x > boxes[i].0.maxs.x {
                break;
            }
            if boxes[i].0.intersects(&boxes[j].0) {
                out.push(make_pair(boxes[i].1 .0 as usize, boxes[j].1 .0 as usize));
            }
        }
    }
    out.sort_unstable();
    out
}

/// Applies one update's events to `set`, checking they are well formed and ordered.
fn apply_events(set: &mut BTreeSet<ProxyPair>, events: &[PairEvent]) {
    let split = events
        .iter()
        .take_while(|e| matches!(e, PairEvent::Ended(_)))
        .count();
    let (ended, began) = events.split_at(split);
    let key = |e: &PairEvent| match *e {
        PairEvent::Ended(p) | PairEvent::Began(p) => p,
    };
    assert!(
        ended.windows(2).all(|w| key(&w[0]) < key(&w[1])),
        "Ended not sorted"
    );
    assert!(
        began.windows(2).all(|w| key(&w[0]) < key(&w[1])),
        "Began not sorted"
    );
    for e in events {
        match *e {
            PairEvent::Ended(p) => assert!(set.remove(&p), "Ended {p:?} was not active"),
            PairEvent::Began(p) => {
                assert!(p.a < p.b);
                assert!(set.insert(p), "Began {p:?} was already active");
            }
        }
    }
}

fn check_structure(bp: &BroadPhase) {
    assert!(bp.is_consistent(), "bookkeeping broken");
    assert!(bp.pending_insert.is_empty() && bp.pending_move.is_empty());
    assert!(
        bp.changed.iter().all(|&c| c == UNCHANGED),
        "a change flag left set"
    );
}

fn run_random(seed: u64, ops: usize, record: &mut Vec<PairEvent>) {
    let mut rng = Rng(seed);
    let grid = seed.is_multiple_of(2);
    let margin = [0.0, 0.1, 0.25][seed as usize % 3];
    let mut bp = BroadPhase::new(margin);
    let mut live: Vec<(ProxyId, Aabb)> = Vec::new();
    let mut dead: Vec<ProxyId> = Vec::new();
    let mut active = BTreeSet::new();
    let mut events = Vec::new();
    let target = 1 + rng.below(60);
    for _ in 0..ops {
        let r = rng.below(100);
        if r < 30 && live.len() < target {
            let b = random_box(&mut rng, grid);
            let id = bp.insert(b).unwrap();
            assert!(
                live.iter().all(|&(l, _)| l != id),
                "id {id:?} reused while live"
            );
            live.push((id, b));
        } else if r < 50 && !live.is_empty() {
            let i = rng.below(live.len());
            let step = if grid { 0.5 } else { 0.3 };
            let d = Vector::from_fn(|_, _| rng.below(3) as f32 * step - step);
            live[i].1 = shifted(&live[i].1, d);
            assert!(bp.set_aabb(live[i].0, live[i].1));
        } else if r < 58 && !live.is_empty() {
            let i = rng.below(live.len());
            live[i].1 = random_box(&mut rng, grid);
            assert!(bp.set_aabb(live[i].0, live[i].1));
        } else if r < 68 && !live.is_empty() {
            let (id, _) = live.swap_remove(rng.below(live.len()));
            assert!(bp.remove(id));
            dead.push(id);
        } else if r < 72 {
            for &id in &dead {
                if live.iter().all(|&(l, _)| l != id) {
                    assert!(!bp.remove(id));
                    assert!(!bp.set_aabb(id, cube(0.0, 0.0, 0.0, 1.0)));
                    assert!(bp.fat_aabb(id).is_none());
                }
            }
        } else {
            events.clear();
            bp.update(&mut events);
            record.extend_from_slice(&events);
            apply_events(&mut active, &events);
            check_structure(&bp);
            assert_eq!(bp.len(), live.len());
            let ids: Vec<ProxyId> = live.iter().map(|l| l.0).collect();
            for (id, tight) in &live {
                assert!(bp.fat_aabb(*id).unwrap().contains(tight));
            }
            let brute = brute_pairs(&bp, &ids);
            assert_eq!(
                bp.pairs(),
                brute,
                "seed {seed}: pairs differ from brute force"
            );
            assert_eq!(
                active.iter().copied().collect::<Vec<_>>(),
                brute,
                "seed {seed}"
            );
            let q = random_box(&mut rng, grid);
            let mut got = Vec::new();
            bp.query_aabb(&q, |id| got.push(id));
            got.sort_unstable();
            let mut want: Vec<ProxyId> = ids
                .iter()
                .copied()
                .filter(|&id| bp.fat_aabb(id).unwrap().intersects(&q))
                .collect();
            want.sort_unstable();
            assert_eq!(got, want, "seed {seed}: query differs");
        }
        check_bounds_and_queue(&bp, &live);
    }
}

/// `bounds` holds every live fat box (pending changes included); `queued` lists the proxies
/// not yet in the arrays, each once, all live.
fn check_bounds_and_queue(bp: &BroadPhase, live: &[(ProxyId, Aabb)]) {
    match bp.bounds() {
        None => assert!(live.is_empty()),
        Some(b) => {
            for (id, _) in live {
                assert!(
                    b.contains(&bp.fat_aabb(*id).unwrap()),
                    "{id:?} outside {b:?}"
                );
            }
        }
    }
    let mut queued: Vec<ProxyId> = bp.queued().collect();
    let count = queued.len();
    queued.sort_unstable();
    queued.dedup();
    assert_eq!(queued.len(), count, "a proxy queued twice");
    assert!(queued.iter().all(|q| live.iter().any(|(l, _)| l == q)));
}

#[test]
fn random_against_brute_force() {
    for seed in 0..20 {
        run_random(seed, 300, &mut Vec::new());
    }
}

/// Small boxes among large ones (a ground, walls, a plank that moves), with few proxies changed
/// per update (the lanes searched) and many (the lanes swept): pairs, events and queries as
/// brute force says, and the bookkeeping whole.
#[test]
fn mixed_sizes_against_brute_force() {
    for seed in 0..6 {
        let mut rng = Rng(100 + seed);
        let mut bp = BroadPhase::new(0.05);
        let mut boxes: Vec<(ProxyId, Aabb)> = Vec::new();
        let ground = Aabb::new(Point::new(-20.0, -1.0, -20.0), Point::new(20.0, 0.0, 20.0));
        let wall = Aabb::new(Point::new(-20.0, 0.0, 5.0), Point::new(20.0, 8.0, 5.5));
        // A board standing across the scene, moved now and then: a large proxy that changes.
        let plank = Aabb::new(Point::new(0.0, 1.0, -12.0), Point::new(0.3, 9.0, 12.0));
        for b in [ground, wall, plank] {
            boxes.push((bp.insert(b).unwrap(), b));
        }
        for _ in 0..400 {
            let c = Point::new(rng.signed(8.0), rng.unit() * 6.0, rng.signed(8.0));
            let b = cube(c.x, c.y, c.z, 0.2 + rng.unit() * 0.4);
            boxes.push((bp.insert(b).unwrap(), b));
        }
        let ids: Vec<ProxyId> = boxes.iter().map(|b| b.0).collect();
        let mut active = BTreeSet::new();
        let mut events = Vec::new();
        bp.update(&mut events);
        apply_events(&mut active, &events);
        let large = [boxes[0].0 .0, boxes[2].0 .0];
        assert!(
            large.iter().all(|p| bp.large.contains(p)),
            "seed {seed}: ground, board"
        );
        for round in 0..40 {
            // Mostly a few boxes, sometimes most of them; the plank now and then.
            let count = if round % 5 == 4 {
                350
            } else {
                1 + rng.below(6)
            };
            for _ in 0..count {
                let i = 3 + rng.below(boxes.len() - 3);
                let d = Vector::from_fn(|_, _| rng.signed(0.6));
                boxes[i].1 = shifted(&boxes[i].1, d);
                assert!(bp.set_aabb(boxes[i].0, boxes[i].1));
            }
            if round % 7 == 3 {
                let d = Vector::new(rng.signed(2.0), rng.signed(1.0), rng.signed(1.0));
                boxes[2].1 = shifted(&boxes[2].1, d);
                assert!(bp.set_aabb(boxes[2].0, boxes[2].1));
            }
            events.clear();
            bp.update(&mut events);
            apply_events(&mut active, &events);
            check_structure(&bp);
            let brute = sorted_brute_pairs(&bp, &ids);
            assert_eq!(bp.pairs(), brute, "seed {seed} round {round}");
            assert_eq!(active.iter().copied().collect::<Vec<_>>(), brute);
            for half in [0.5, 3.0, 40.0] {
                let c = Point::new(rng.signed(8.0), rng.unit() * 6.0, rng.signed(8.0));
                let q = cube(c.x, c.y, c.z, half);
                let mut got = Vec::new();
                bp.query_aabb(&q, |id| got.push(id));
                let count = got.len();
                got.sort_unstable();
                got.dedup();
                assert_eq!(got.len(), count, "a proxy reported twice");
                let want: Vec<ProxyId> = ids
                    .iter()
                    .copied()
                    .filter(|&id| bp.fat_aabb(id).unwrap().intersects(&q))
                    .collect();
                assert_eq!(got, want, "seed {seed} round {round}: query of half {half}");
            }
        }
    }
}

#[test]
fn deterministic_events() {
    for seed in [3, 8, 11] {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        run_random(seed, 400, &mut a);
        run_random(seed, 400, &mut b);
        assert!(!a.is_empty());
        assert_eq!(a, b);
    }
}

#[test]
fn touching_boxes_overlap() {
    let mut bp = BroadPhase::new(0.0);
    let a = bp
        .insert(Aabb::new(
            Point::new(0.0, 0.0, 0.0),
            Point::new(1.0, 1.0, 1.0),
        ))
        .unwrap();
    let b = bp
        .insert(Aabb::new(
            Point::new(1.0, 0.0, 0.0),
            Point::new(2.0, 1.0, 1.0),
        ))
        .unwrap();
    let c = bp
        .insert(Aabb::new(
            Point::new(2.001, 0.0, 0.0),
            Point::new(3.0, 1.0, 1.0),
        ))
        .unwrap();
    let mut events = Vec::new();
    bp.update(&mut events);
    assert_eq!(events, vec![PairEvent::Began(make_pair(0, 1))]);
    assert_eq!(bp.pairs(), vec![ProxyPair { a, b }]);
    // Move c so that it touches b at a corner edge: still overlapping (closed intervals).
    bp.set_aabb(
        c,
        Aabb::new(Point::new(2.0, 1.0, 1.0), Point::new(3.0, 2.0, 2.0)),
    );
    events.clear();
    bp.update(&mut events);
    assert_eq!(events, vec![PairEvent::Began(ProxyPair { a: b, b: c })]);
    // Shifted 1e-3 further along y (a shrink would stay inside the fat box): ended.
    bp.set_aabb(
        c,
        Aabb::new(Point::new(2.0, 1.001, 1.0), Point::new(3.0, 2.001, 2.0)),
    );
    events.clear();
    bp.update(&mut events);
    assert_eq!(events, vec![PairEvent::Ended(ProxyPair { a: b, b: c })]);
}

#[test]
fn invalid_boxes_are_refused() {
    let mut bp = BroadPhase::new(Real::NAN);
    let nan = Aabb::new(Point::new(0.0, Real::NAN, 0.0), Point::new(1.0, 1.0, 1.0));
    let inverted = Aabb::new(Point::new(1.0, 0.0, 0.0), Point::new(0.0, 1.0, 1.0));
    assert_eq!(bp.insert(nan), Err(InvalidAabb));
    assert_eq!(bp.insert(inverted), Err(InvalidAabb));
    assert!(bp.is_empty());
    let a = bp.insert(cube(0.0, 0.0, 0.0, 1.0)).unwrap();
    let mut events = Vec::new();
    bp.update(&mut events);
    let before = bp.fat_aabb(a);
    assert!(!bp.set_aabb(a, nan));
    assert_eq!(bp.fat_aabb(a), before);
}

#[test]
fn stale_ids_and_reuse() {
    let mut bp = BroadPhase::new(0.1);
    let a = bp.insert(cube(0.0, 0.0, 0.0, 1.0)).unwrap();
    let b = bp.insert(cube(1.0, 0.0, 0.0, 1.0)).unwrap();
    let mut events = Vec::new();
    bp.update(&mut events);
    assert_eq!(events, vec![PairEvent::Began(ProxyPair { a, b })]);
    assert!(bp.remove(b));
    assert!(!bp.remove(b));
    assert!(!bp.set_aabb(b, cube(0.0, 0.0, 0.0, 1.0)));
    assert!(!bp.remove(ProxyId(99)));
    assert!(!bp.set_aabb(ProxyId(99), cube(0.0, 0.0, 0.0, 1.0)));
    // b is still in the arrays: its id must not be handed out yet.
    let c = bp.insert(cube(0.5, 0.0, 0.0, 1.0)).unwrap();
    assert_ne!(c, b);
    events.clear();
    bp.update(&mut events);
    assert_eq!(
        events,
        vec![
            PairEvent::Ended(ProxyPair { a, b }),
            PairEvent::Began(ProxyPair { a, b: c })
        ]
    );
    assert_eq!(bp.insert(cube(9.0, 9.0, 9.0, 1.0)).unwrap(), b);
    // Inserted and removed before an update: nothing is reported.
    let d = bp.insert(cube(0.0, 0.0, 0.0, 1.0)).unwrap();
    assert!(bp.remove(d));
    events.clear();
    bp.update(&mut events);
    assert!(events.is_empty());
    assert_eq!(bp.len(), 3);
}

#[test]
fn moves_inside_fat_box_do_not_touch_arrays() {
    let mut bp = BroadPhase::new(0.5);
    let a = bp.insert(cube(0.0, 0.0, 0.0, 1.0)).unwrap();
    bp.update(&mut Vec::new());
    let before = bp.fat_aabb(a);
    assert!(bp.set_aabb(a, cube(0.3, -0.2, 0.1, 1.0)));
    assert!(bp.pending_move.is_empty());
    assert_eq!(bp.fat_aabb(a), before);
}

/// A box grown by its speed and then shrunk back (a body that came to rest) gets its fat box
/// refitted, and the pair its old fat box made with a neighbour ends; a box that shrinks by
/// less than twice the margin keeps its fat box.
#[test]
fn fat_boxes_shrink_when_their_box_does() {
    let mut bp = BroadPhase::new(0.1);
    let a = bp.insert(cube(0.0, 0.0, 0.0, 0.5)).unwrap();
    let b = bp.insert(cube(1.5, 0.0, 0.0, 0.5)).unwrap();
    let mut events = Vec::new();
    bp.update(&mut events);
    assert!(events.is_empty(), "apart: {events:?}");
    // A moving fast: its box grown by 0.5 m of travel reaches B's fat box.
    assert!(bp.set_aabb(a, cube(0.0, 0.0, 0.0, 1.0)));
    bp.update(&mut events);
    assert_eq!(events, vec![PairEvent::Began(ProxyPair { a, b })]);
    // Slowed down by a little: the fat box stays.
    events.clear();
    let grown = bp.fat_aabb(a);
    assert!(bp.set_aabb(a, cube(0.0, 0.0, 0.0, 0.95)));
    bp.update(&mut events);
    assert!(events.is_empty());
    assert_eq!(bp.fat_aabb(a), grown);
    // At rest: refitted, and the pair ends, as brute force over the fat boxes says.
    assert!(bp.set_aabb(a, cube(0.0, 0.0, 0.0, 0.5)));
    bp.update(&mut events);
    assert_eq!(events, vec![PairEvent::Ended(ProxyPair { a, b })]);
    assert_eq!(bp.fat_aabb(a), Some(cube(0.0, 0.0, 0.0, 0.6)));
    assert!(brute_pairs(&bp, &[a, b]).is_empty());
}

#[test]
fn ten_thousand_on_a_grid() {
    let mut rng = Rng(7);
    let mut bp = BroadPhase::new(0.05);
    let mut boxes = Vec::new();
    for i in 0..10_000 {
        let (x, y, z) = ((i % 25) as f32, ((i / 25) % 20) as f32, (i / 500) as f32);
        let b = cube(x, y, z, 0.45);
        boxes.push((bp.insert(b).unwrap(), b));
    }
    let ids: Vec<ProxyId> = boxes.iter().map(|b| b.0).collect();
    let mut events = Vec::new();
    let mut active = BTreeSet::new();
    bp.update(&mut events);
    apply_events(&mut active, &events);
    let brute = sorted_brute_pairs(&bp, &ids);
    assert!(brute.len() > 20_000, "grid neighbours should overlap");
    assert_eq!(bp.pairs(), brute);
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    for _ in 0..10 {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        for &i in &order[..8_000] {
            let d = Vector::from_fn(|_, _| rng.signed(0.08));
            boxes[i].1 = shifted(&boxes[i].1, d);
            bp.set_aabb(boxes[i].0, boxes[i].1);
        }
        events.clear();
        bp.update(&mut events);
        apply_events(&mut active, &events);
        let brute = sorted_brute_pairs(&bp, &ids);
        assert_eq!(bp.pairs(), brute);
        assert_eq!(active.iter().copied().collect::<Vec<_>>(), brute);
    }
    check_structure(&bp);
}

/// Timing figures: `cargo test --release -- --ignored --nocapture timing`.
/// Grid 25 x 20 x 20 of unit spacing, margin 0.05; half-extent 0.45 makes the fat boxes touch
/// their 26 neighbours (117,786 pairs), 0.4 leaves them apart (no pairs).
#[test]
#[ignore]
fn timing() {
    use std::time::{Duration, Instant};
    let grid =
        |i: usize, h: f32| cube((i % 25) as f32, ((i / 25) % 20) as f32, (i / 500) as f32, h);
    for half in [0.45, 0.4] {
        let mut times = Vec::new();
        let mut events = Vec::new();
        for _ in 0..5 {
            let mut bp = BroadPhase::new(0.05);
            for i in 0..10_000 {
                bp.insert(grid(i, half)).unwrap();
            }
            events.clear();
            let t = Instant::now();
            bp.update(&mut events);
            times.push(t.elapsed());
        }
        println!(
            "half {half}: 10k inserts + update: {times:?} ({} pairs)",
            events.len()
        );
        // jitter: offset from the rest pose (stays inside the fat box when amp <= margin);
        // walk: accumulated random steps (proxies leave their fat boxes and move).
        for (amp, walk) in [(0.04, false), (0.04, true), (0.12, true)] {
            let mut rng = Rng(1);
            let mut bp = BroadPhase::new(0.05);
            let mut boxes: Vec<_> = (0..10_000)
                .map(|i| (bp.insert(grid(i, half)).unwrap(), grid(i, half)))
                .collect();
            bp.update(&mut events);
            let (mut total, mut n_events) = (Duration::ZERO, 0);
            for _ in 0..10 {
                for (i, b) in boxes.iter_mut().enumerate().take(8_000) {
                    let base = if walk { b.1 } else { grid(i, half) };
                    b.1 = shifted(&base, Vector::from_fn(|_, _| rng.signed(amp)));
                    bp.set_aabb(b.0, b.1);
                }
                events.clear();
                let t = Instant::now();
                bp.update(&mut events);
                total += t.elapsed();
                n_events += events.len();
            }
            let kind = if walk { "walk" } else { "jitter" };
            println!(
                "half {half}: 8k moved ({kind} +-{amp}): mean update {:?}, {} events/update",
                total / 10,
                n_events / 10
            );
        }
    }
}

/// A removed proxy that is not on the removal list (as corrupt bytes could say) is caught by
/// `is_consistent`: it would stay in its lanes and go on pairing.
#[test]
fn a_removed_proxy_off_the_removal_list_is_inconsistent() {
    let mut bp = BroadPhase::new(0.1);
    let a = bp.insert(cube(0.0, 0.0, 0.0, 1.0)).unwrap();
    bp.insert(cube(1.0, 0.0, 0.0, 1.0)).unwrap();
    bp.update(&mut Vec::new());
    assert!(bp.remove(a));
    assert!(bp.is_consistent());
    bp.pending_remove.clear();
    assert!(!bp.is_consistent());
    bp.pending_remove.extend([a.0, a.0]);
    assert!(!bp.is_consistent(), "listed twice");
}

/// A proxy carries its payload from insertion to removal, and only then; a reused id carries
/// the new one.
#[test]
fn payloads_live_and_die_with_their_proxies() {
    let mut bp = BroadPhase::new(0.0);
    let a = bp.insert_with_payload(cube(0.0, 0.0, 0.0, 1.0), 7).unwrap();
    let b = bp.insert(cube(5.0, 0.0, 0.0, 1.0)).unwrap();
    assert_eq!((bp.payload(a), bp.payload(b)), (Some(7), None));
    assert!(bp.set_payload(b, 9));
    let mut events = Vec::new();
    bp.update(&mut events);
    assert_eq!(bp.payload(b), Some(9));
    assert!(bp.is_consistent());
    assert!(bp.remove(a));
    assert_eq!(bp.payload(a), None);
    assert!(!bp.set_payload(a, 3), "a removed proxy takes no payload");
    assert!(bp.is_consistent());
    bp.update(&mut events);
    let c = bp
        .insert_with_payload(cube(0.0, 0.0, 0.0, 1.0), 11)
        .unwrap();
    assert_eq!(c, a, "the id is reused");
    assert_eq!(bp.payload(c), Some(11));
    assert_eq!(bp.payload(ProxyId(99)), None);
    assert!(bp.id_bound() >= 2 && bp.is_consistent());
}

/// The radix sort of pair keys gives what the standard sort gives: distinct random pairs of
/// ids below several bounds (the radix path needs them below 2^16), around the size where it
/// takes over and where it needs a third pass, with keys whose every digit varies.
#[test]
fn pair_keys_sort_by_radix_as_by_comparison() {
    let mut rng = Rng(0x5A17_50E7);
    let mut scratch = Vec::new();
    for (count, bound) in [
        (0, 10),
        (1, 10),
        (RADIX_PAIRS - 1, 3000),
        (RADIX_PAIRS, 3000),
        (50_000, 1 << 16),
        (20_000, 70_000),
        (5_000, 200),
        // Two passes from half as many pairs while an id fits 11 bits, three beyond.
        (RADIX_PAIRS / 2 - 1, 1_001),
        (RADIX_PAIRS / 2, 1_001),
        (2_100, 66),
        (3_000, 1_001),
        (RADIX_PAIRS, 2048),
        (RADIX_PAIRS, 2049),
    ] {
        let mut set = BTreeSet::new();
        while set.len() < count {
            let p = rng.below(bound);
            let q = rng.below(bound);
            if p != q {
                set.insert(pair_key(p, q));
            }
        }
        let mut keys: Vec<u64> = set.iter().copied().collect();
        // Shuffled (Fisher-Yates), then sorted back.
        for i in (1..keys.len()).rev() {
            keys.swap(i, rng.below(i + 1));
        }
        sort_pairs(&mut keys, &mut scratch, bound);
        let want: Vec<u64> = set.into_iter().collect();
        assert!(keys == want, "{count} pairs of ids below {bound}");
    }
}

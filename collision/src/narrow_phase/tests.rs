use super::*;

/// What the walk reads of a pair kept apart lies in the record's first cache line (the
/// layout [`PairContact`]'s doc describes; `Option<PairCache>`'s own layout is the
/// compiler's, so it is measured).
#[test]
fn a_pair_kept_apart_reads_one_cache_line() {
    let contact = PairContact {
        pair: ProxyPair {
            a: ProxyId(0),
            b: ProxyId(1),
        },
        touching: false,
        peak_impulse: 0.0,
        cache: Some(PairCache::Apart {
            relative: Isometry::identity(),
            extent_b: 1.0,
            gap: 1.0,
            budget: 1.0,
            axis: Vector::zeros(),
        }),
        manifolds: SmallVec::new(),
    };
    let start = &contact as *const PairContact as usize;
    assert_eq!(start % 64, 0);
    let Some(PairCache::Apart { budget, gap, .. }) = &contact.cache else {
        unreachable!()
    };
    let end = |field: &Real| field as *const Real as usize + std::mem::size_of::<Real>() - start;
    assert!(
        end(budget) <= 64 && end(gap) <= 64,
        "{} {}",
        end(budget),
        end(gap)
    );
    let (pair, touching) = (
        &contact.pair as *const ProxyPair as usize - start,
        &contact.touching as *const bool as usize - start,
    );
    assert!(pair < 64 && touching < 64);
}
use parry3d::math::Vector;

/// Restored pairs need one simplex each, with finite vertices: anything else (what a
/// hostile snapshot could hold) is refused and leaves the cache empty.
#[test]
fn reindex_refuses_simplices_that_do_not_fit() {
    let hull = crate::testing::hull(&mut crate::testing::uniform(5));
    let colliders = vec![
        (hull.clone(), Isometry::identity()),
        (hull, Isometry::translation(0.0, 0.7, 0.0)),
    ];
    let fresh = || {
        let mut narrow = NarrowPhase::new(0.02);
        narrow.apply(&[PairEvent::Began(ProxyPair {
            a: ProxyId(0),
            b: ProxyId(1),
        })]);
        narrow.update(colliders.as_slice());
        assert!(!narrow.simplices[0].is_empty());
        narrow
    };
    assert!(fresh().reindex());
    let mut short = fresh();
    short.simplices.clear();
    assert!(!short.reindex());
    assert!(short.contacts().is_empty() && short.simplices.is_empty());
    let mut long = fresh();
    long.simplices.push(SimplexCache::default());
    assert!(!long.reindex());
    let mut nan = fresh();
    nan.simplices[0].points[0].0.x = Real::NAN;
    assert!(!nan.reindex());
}

/// A pair whose budget and drift are spent (B slid 0.6 m along a gap of 0.5) is kept apart by the
/// axis that showed the gap, without a query, and is queried once it comes within the
/// margin: for boxes (the separating axis test's axis) and hulls (GJK's).
#[test]
fn a_gap_along_its_axis_keeps_a_sliding_pair_apart() {
    let points: Vec<Point<Real>> = [
        [-0.5, -0.5, -0.5],
        [0.5, -0.5, -0.5],
        [-0.5, 0.5, -0.5],
        [0.5, 0.5, -0.5],
        [-0.5, -0.5, 0.5],
        [0.5, -0.5, 0.5],
        [-0.4, 0.5, 0.5],
        [0.5, 0.5, 0.4],
    ]
    .iter()
    .map(|&[x, y, z]| Point::new(x, y, z))
    .collect();
    let shapes = [
        Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap(),
        Shape::convex_hull(&points).unwrap(),
    ];
    for shape in shapes {
        let mut colliders = vec![
            (shape.clone(), Isometry::identity()),
            (shape, Isometry::translation(0.0, 1.5, 0.0)),
        ];
        let mut narrow = NarrowPhase::new(0.02);
        narrow.apply(&[PairEvent::Began(ProxyPair {
            a: ProxyId(0),
            b: ProxyId(1),
        })]);
        narrow.update(colliders.as_slice());
        let Some(PairCache::Apart { axis, .. }) = narrow.contacts()[0].cache else {
            panic!("{:?}", narrow.contacts()[0].cache);
        };
        assert!((axis - Vector::y()).norm() < 1e-5, "{axis:?}");
        // (A slice's proxies report infinite motion: the budget is spent every update.)
        colliders[1].1.translation.vector.x += 0.6;
        narrow.update(colliders.as_slice());
        assert_eq!(narrow.kept_apart(), 1);
        colliders[1].1.translation.vector.y = 1.01;
        narrow.update(colliders.as_slice());
        assert_eq!(narrow.kept_apart(), 0);
        assert!(!narrow.contacts()[0].manifolds.is_empty());
    }
}

/// Split over workers, an update gives exactly what the serial one gives: the manifolds,
/// their caches, the tallies and the watched pairs in order, step after step, for any
/// count (the workers here run one after the other, as a pool may schedule them).
#[test]
fn an_update_split_over_workers_is_the_serial_one() {
    let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
    let ball = Shape::sphere(0.5).unwrap();
    let place = |i: usize, t: Real| {
        let (x, z) = ((i % 5) as Real * 0.95, (i / 5 % 5) as Real * 0.97);
        let y = (i / 25) as Real * 0.98 + 0.02 * (t + i as Real).sin();
        Isometry::new(
            Vector::new(x, y, z),
            Vector::new(0.0, 0.1 * t * (i % 3) as Real, 0.0),
        )
    };
    let shape = |i: usize| {
        if i.is_multiple_of(4) {
            ball.clone()
        } else {
            cube.clone()
        }
    };
    let n = 75;
    let mut events = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            events.push(PairEvent::Began(ProxyPair {
                a: ProxyId(a as u32),
                b: ProxyId(b as u32),
            }));
        }
    }
    let mut serial = NarrowPhase::new(0.02);
    serial.apply(&events);
    let mut split: Vec<NarrowPhase> = (0..3).map(|_| NarrowPhase::new(0.02)).collect();
    for narrow in &mut split {
        narrow.apply(&events);
    }
    for step in 0..6 {
        let t = step as Real * 0.05;
        let colliders: Vec<(Shape, Isometry<Real>)> =
            (0..n).map(|i| (shape(i), place(i, t))).collect();
        serial.update(colliders.as_slice());
        assert!(!serial.watched().is_empty());
        for (k, narrow) in split.iter_mut().enumerate() {
            let workers = k + 2;
            narrow.update_on(colliders.as_slice(), workers, |blocks, work| {
                let blocks: Vec<_> = blocks.enumerate().collect();
                assert_eq!(blocks.len(), workers);
                for (w, block) in blocks.into_iter().rev() {
                    work(w, block);
                }
            });
            assert_eq!(narrow.watched(), serial.watched(), "{workers} workers");
            assert_eq!(narrow.recycled(), serial.recycled());
            assert_eq!(narrow.kept_apart(), serial.kept_apart());
            for (p, q) in narrow.contacts().iter().zip(serial.contacts()) {
                assert_eq!(p.manifolds, q.manifolds, "{workers} workers");
                assert_eq!(p.cache, q.cache);
            }
        }
    }
}

/// Colliders as a world at rest shows them: every proxy resting and unmoved; `claims`
/// says whether the view also reports it through [`ProxyShapes::all_at_rest`] (the fast
/// path) or leaves the narrow phase to find it pair by pair.
struct AtRest<'a> {
    colliders: &'a [(Shape, Isometry<Real>)],
    claims: bool,
}

impl ProxyShapes for AtRest<'_> {
    fn shape_and_pose(&self, proxy: ProxyId) -> Option<(&Shape, &Isometry<Real>)> {
        self.colliders.shape_and_pose(proxy)
    }
    fn is_resting(&self, _proxy: ProxyId) -> bool {
        true
    }
    fn moved(&self, _proxy: ProxyId) -> Real {
        0.0
    }
    fn all_at_rest(&self) -> bool {
        self.claims
    }
}

/// A world at rest skips the walk over the pairs from its second update on, and what it
/// reports is what the walk would have found; a change to the pairs in between (here one
/// made through `contacts_mut`, as the engine stores impulses) makes the next update walk.
#[test]
fn a_world_at_rest_skips_the_walk_and_finds_what_it_would() {
    let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
    let colliders: Vec<(Shape, Isometry<Real>)> = (0..6)
        .map(|i| {
            let x = (i / 2) as Real * 3.0;
            (
                cube.clone(),
                Isometry::translation(x, (i % 2) as Real * 0.99, 0.0),
            )
        })
        .collect();
    let events: Vec<PairEvent> = (0..5u32)
        .map(|i| {
            PairEvent::Began(ProxyPair {
                a: ProxyId(i),
                b: ProxyId(i + 1),
            })
        })
        .collect();
    let (mut fast, mut walked) = (NarrowPhase::new(0.02), NarrowPhase::new(0.02));
    for narrow in [&mut fast, &mut walked] {
        narrow.apply(&events);
        narrow.update(colliders.as_slice());
    }
    let claims = AtRest {
        colliders: &colliders,
        claims: true,
    };
    let finds = AtRest {
        colliders: &colliders,
        claims: false,
    };
    let same = |fast: &NarrowPhase, walked: &NarrowPhase| {
        assert_eq!(fast.watched(), walked.watched());
        assert_eq!(fast.updated(), walked.updated());
        assert_eq!(fast.recycled(), walked.recycled());
        assert_eq!(fast.kept_apart(), walked.kept_apart());
    };
    for round in 0..3 {
        fast.update(&claims);
        walked.update(&finds);
        same(&fast, &walked);
        assert!(fast.settled, "round {round}");
        assert_eq!(fast.watched(), &[0, 2, 4][..], "the touching pairs");
    }
    // A change between updates: the next one walks and sees it.
    for narrow in [&mut fast, &mut walked] {
        narrow.contacts_mut()[2].manifolds.clear();
    }
    assert!(!fast.settled);
    fast.update(&claims);
    walked.update(&finds);
    same(&fast, &walked);
    assert_eq!(fast.watched(), &[0, 4][..]);
    // A pair ending, likewise.
    let end = [PairEvent::Ended(ProxyPair {
        a: ProxyId(0),
        b: ProxyId(1),
    })];
    for narrow in [&mut fast, &mut walked] {
        narrow.apply(&end);
    }
    fast.update(&claims);
    walked.update(&finds);
    same(&fast, &walked);
    assert_eq!(fast.contacts().len(), 4);
    assert_eq!(fast.watched().len(), 1);
}

/// A cache that no longer fits its manifolds (a hostile snapshot's) is reported and never
/// used: the next update queries the pair instead of indexing a manifold that is not there.
#[test]
fn a_cache_that_does_not_fit_is_refused_and_not_used() {
    let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
    let colliders = vec![
        (cube.clone(), Isometry::identity()),
        (cube, Isometry::translation(0.1, 0.99, 0.05)),
    ];
    let pair = ProxyPair {
        a: ProxyId(0),
        b: ProxyId(1),
    };
    let mut narrow = NarrowPhase::new(0.02);
    narrow.apply(&[PairEvent::Began(pair)]);
    narrow.update(colliders.as_slice());
    assert!(matches!(
        narrow.contacts()[0].cache,
        Some(PairCache::Manifold(_))
    ));
    assert!(narrow.contacts()[0].cache_is_consistent());
    narrow.contacts_mut()[0].manifolds.clear();
    assert!(!narrow.contacts()[0].cache_is_consistent());
    narrow.update(colliders.as_slice());
    assert_eq!(narrow.recycled(), 0);
    assert_eq!(narrow.contacts()[0].manifolds[0].points.len(), 4);
    assert!(narrow.contacts()[0].cache_is_consistent());
    // Apart with a manifold, or with a NaN gap, is refused too.
    let contact = &mut narrow.contacts_mut()[0];
    contact.cache = Some(PairCache::Apart {
        relative: Isometry::identity(),
        extent_b: 1.0,
        gap: 0.5,
        budget: 0.5,
        axis: Vector::y(),
    });
    assert!(!contact.cache_is_consistent());
    contact.manifolds.clear();
    assert!(contact.cache_is_consistent());
    contact.cache = Some(PairCache::Apart {
        relative: Isometry::identity(),
        extent_b: 1.0,
        gap: 0.5,
        budget: Real::NAN,
        axis: Vector::y(),
    });
    assert!(!contact.cache_is_consistent());
}

#[test]
fn impulses_follow_feature_ids_and_pairs_end() {
    let cube = Shape::cuboid(Vector::new(0.5, 0.5, 0.5)).unwrap();
    // B overhangs A's corner (a generic overlap: no corner sits exactly on an edge).
    let mut colliders = vec![
        (cube.clone(), Isometry::identity()),
        (cube, Isometry::translation(0.1, 0.99, 0.05)),
    ];
    let pair = ProxyPair {
        a: ProxyId(0),
        b: ProxyId(1),
    };
    let mut narrow = NarrowPhase::new(0.02);
    narrow.apply(&[PairEvent::Began(pair)]);
    narrow.update(colliders.as_slice());
    for (i, p) in narrow.contacts_mut()[0].manifolds[0]
        .points
        .iter_mut()
        .enumerate()
    {
        p.normal_impulse = 1.0 + i as Real;
    }
    let before: Vec<_> = narrow.contacts()[0].manifolds[0]
        .points
        .iter()
        .map(|p| (p.id, p.normal_impulse))
        .collect();
    // A small slide keeps the same features: every point keeps its impulse.
    colliders[1].1 = Isometry::translation(0.11, 0.985, 0.05);
    narrow.update(colliders.as_slice());
    let after: Vec<_> = narrow.contacts()[0].manifolds[0]
        .points
        .iter()
        .map(|p| (p.id, p.normal_impulse))
        .collect();
    assert_eq!(after.len(), 4);
    for (id, impulse) in &after {
        let old = before
            .iter()
            .find(|(i, _)| i == id)
            .expect("same features, same ids");
        assert_eq!(old.1, *impulse);
    }
    // A turn about the normal makes new clipped features: those start from zero.
    colliders[1].1 = Isometry::new(Vector::new(0.2, 0.985, 0.1), Vector::y() * 0.5);
    narrow.update(colliders.as_slice());
    let mut fresh = 0;
    for p in &narrow.contacts()[0].manifolds[0].points {
        match before.iter().find(|(i, _)| *i == p.id) {
            Some(old) => assert_eq!(old.1, p.normal_impulse),
            None => {
                assert_eq!(p.normal_impulse, 0.0);
                fresh += 1;
            }
        }
    }
    assert!(fresh > 0);
    narrow.apply(&[PairEvent::Ended(pair)]);
    assert!(narrow.contacts().is_empty() && narrow.manifolds(pair).is_none());
}

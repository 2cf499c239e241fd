//! Arbitrary shapes (through the public constructors) at arbitrary finite poses into the
//! manifold dispatch, GJK and EPA: no panic, every output finite, at most four points per
//! manifold, unit normals; and where parry3d says two convex shapes are clearly apart or
//! clearly overlapping (by more than a margin relative to their size and position), GJK and EPA
//! must say so too.
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use smallvec::SmallVec;
use sprung_collision::dispatch::manifolds;
use sprung_collision::parry3d::math::Real;
use sprung_collision::{dispatch, epa};
use sprung_collision_fuzz::{
    finite, finite_point, finite_vector, parry_verdict, pose, Recipe, Verdict,
};

fn run(u: &mut Unstructured) -> Result<()> {
    let (ra, rb) = (Recipe::draw(u, false)?, Recipe::draw(u, false)?);
    let (Ok(a), Ok(b)) = (ra.build(), rb.build()) else {
        return Ok(());
    };
    let (pa, pb) = (pose(u)?, pose(u)?);
    let margin = [0.0, 0.01, 0.1, 1.0][u.choose_index(4)?];
    let what = || format!("{ra:?} at {pa:?} / {rb:?} at {pb:?}, margin {margin}");

    let mut out = SmallVec::new();
    manifolds(&a, &pa, &b, &pb, margin, &mut out);
    for m in &out {
        assert!(finite_vector(&m.normal), "{m:?} {}", what());
        assert!((m.normal.norm() - 1.0).abs() < 1e-3, "{m:?} {}", what());
        assert!(
            !m.points.is_empty() && m.points.len() <= 4,
            "{m:?} {}",
            what()
        );
        for p in &m.points {
            assert!(
                finite(p.separation) && finite_point(&p.point_a) && finite_point(&p.point_b),
                "{p:?} {}",
                what()
            );
        }
    }
    if a.is_level() || b.is_level() {
        return Ok(());
    }

    let d = dispatch::distance(&a, &pa, &b, &pb);
    assert!(finite(d.separation) && d.separation >= 0.0, "{d:?} {}", what());
    assert!(
        finite_point(&d.point_a) && finite_point(&d.point_b) && finite_vector(&d.normal),
        "{d:?} {}",
        what()
    );
    let touching = dispatch::intersects(&a, &pa, &b, &pb);
    let c = epa::contact(&a, &pa, &b, &pb, Real::INFINITY).expect("infinite margin");
    assert!(
        finite(c.separation)
            && finite_vector(&c.normal)
            && finite_point(&c.point_a)
            && finite_point(&c.point_b),
        "{c:?} {}",
        what()
    );
    assert!((c.normal.norm() - 1.0).abs() < 1e-3, "{c:?} {}", what());

    // The oracle, only with a margin and only where parry3d's verdict comes with a proof.
    let far = pa
        .translation
        .vector
        .amax()
        .max(pb.translation.vector.amax());
    let tolerance = 1e-2 * (a.scale() + b.scale()) + 1e-5 * far + 1e-5;
    match parry_verdict(&a, &pa, &b, &pb, tolerance) {
        Verdict::Apart(gap) => {
            assert!(!touching, "proved {gap} apart, ours touching: {}", what());
            assert!(
                c.separation > 0.0,
                "proved {gap} apart, ours {c:?}: {}",
                what()
            );
        }
        Verdict::Overlapping(depth) => {
            assert!(touching, "proved {depth} deep, ours apart: {}", what());
            assert!(
                c.separation < 0.0,
                "proved {depth} deep, ours {c:?}: {}",
                what()
            );
        }
        Verdict::Unknown => {}
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

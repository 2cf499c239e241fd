//! Ray casts and time of impact on arbitrary shapes (through the public constructors), poses,
//! origins, directions (huge and tiny included) and limits: no panic; a ray hit has a finite
//! toi in [0, max_toi], a finite point and a unit normal; bad input (non-finite, zero
//! direction, negative limit) is no hit. Time of impact on convex pairs with arbitrary
//! velocities: a finite time in [0, max_t], finite normal and points, or `None`. Casts and
//! contacts of a convex shape against any shape, level geometry included (`level`): the same,
//! and finite contacts.
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use sprung_collision::cast::{ray_cast, time_of_impact, Motion};
use sprung_collision::level;
use sprung_collision::parry3d::bounding_volume::BoundingVolume;
use sprung_collision::parry3d::math::Point;
use sprung_collision_fuzz::{
    direction, finite, finite_point, finite_vector, number, plausible, pose, vector, Recipe,
};

fn rays(u: &mut Unstructured) -> Result<()> {
    let recipe = Recipe::draw(u, false)?;
    let Ok(shape) = recipe.build() else {
        return Ok(());
    };
    let at = pose(u)?;
    for _ in 0..4 {
        // Origins mostly plausible, sometimes raw (NaN, 1e38).
        let origin = if u.ratio(1, 8)? {
            Point::from(vector(u)?)
        } else {
            Point::new(plausible(u)?, plausible(u)?, plausible(u)?)
        };
        let dir = direction(u)?;
        let max_toi = if u.ratio(1, 4)? {
            number(u)?
        } else {
            plausible(u)?.abs() * 10.0
        };
        let solid = u.arbitrary()?;
        let hit = ray_cast(&shape, &at, &origin, &dir, max_toi, solid);
        let bad = !finite_point(&origin)
            || !finite_vector(&dir)
            || dir.iter().all(|x| !x.is_normal())
            || max_toi.is_nan()
            || max_toi < 0.0;
        if bad {
            assert!(
                hit.is_none(),
                "{hit:?} for bad input {origin:?} {dir:?} {max_toi}"
            );
            continue;
        }
        if let Some(h) = hit {
            let what =
                || format!("{recipe:?} at {at:?}: {origin:?} {dir:?} {max_toi} {solid}: {h:?}");
            assert!(finite(h.toi) && h.toi >= 0.0, "{}", what());
            assert!(h.toi <= max_toi * (1.0 + 1e-5), "{}", what());
            assert!(
                finite_point(&h.point) && finite_vector(&h.normal),
                "{}",
                what()
            );
            assert!((h.normal.norm() - 1.0).abs() < 1e-3, "{}", what());
        }
    }
    Ok(())
}

fn tois(u: &mut Unstructured) -> Result<()> {
    let (ra, rb) = (Recipe::draw(u, true)?, Recipe::draw(u, true)?);
    let (Ok(a), Ok(b)) = (ra.build(), rb.build()) else {
        return Ok(());
    };
    let motion = |u: &mut Unstructured| -> Result<Motion> {
        let m = Motion::new(pose(u)?, direction(u)?, direction(u)?);
        Ok(if u.arbitrary()? {
            m.about(Point::new(plausible(u)?, plausible(u)?, plausible(u)?))
        } else {
            m
        })
    };
    let (ma, mb) = (motion(u)?, motion(u)?);
    let max_t = if u.ratio(1, 4)? {
        number(u)?
    } else {
        plausible(u)?.abs()
    };
    let target = if u.ratio(1, 4)? {
        number(u)?
    } else {
        plausible(u)?.abs() * 0.01
    };
    let toi = time_of_impact(&a, &ma, &b, &mb, max_t, target);
    if let Some(t) = toi {
        let what =
            || format!("{ra:?} {ma:?} / {rb:?} {mb:?}, max_t {max_t} target {target}: {t:?}");
        assert!(finite(t.t) && t.t >= 0.0 && t.t <= max_t, "{}", what());
        assert!(
            finite_vector(&t.normal) && finite_point(&t.point_a) && finite_point(&t.point_b),
            "{}",
            what()
        );
    }
    Ok(())
}

fn levels(u: &mut Unstructured) -> Result<()> {
    let (ra, rb) = (Recipe::draw(u, true)?, Recipe::draw(u, false)?);
    let (Ok(a), Ok(b)) = (ra.build(), rb.build()) else {
        return Ok(());
    };
    let (pose_a, pose_b) = (pose(u)?, pose(u)?);
    let velocity = direction(u)?;
    let motion = Motion::linear(pose_a, velocity);
    let max_t = if u.ratio(1, 4)? {
        number(u)?
    } else {
        plausible(u)?.abs()
    };
    let target = if u.ratio(1, 4)? {
        number(u)?
    } else {
        plausible(u)?.abs() * 0.01
    };
    // The region a caller gives: the swept box, over a finite reach.
    let reach = if max_t.is_finite() {
        max_t.min(1e3)
    } else {
        1e3
    };
    let end = motion.pose_at(reach);
    let region = a
        .aabb(&pose_a)
        .merged(&a.aabb(&end))
        .loosened(target.abs().min(1e3));
    let what = || format!("{ra:?} at {pose_a:?} v {velocity:?} / {rb:?} at {pose_b:?}");
    if let Some(t) = level::cast(&a, &motion, max_t, target, &b, &pose_b, &region) {
        assert!(
            finite(t.t) && t.t >= 0.0 && t.t <= max_t,
            "{}: {t:?}",
            what()
        );
        assert!(
            finite_vector(&t.normal) && finite_point(&t.point_a) && finite_point(&t.point_b),
            "{}: {t:?}",
            what()
        );
    }
    let margin = plausible(u)?.abs() * 0.1;
    level::contacts(&a, &pose_a, &b, &pose_b, margin, |c| {
        assert!(
            finite(c.separation)
                && finite_vector(&c.normal)
                && finite_point(&c.point_a)
                && finite_point(&c.point_b),
            "{}: {c:?}",
            what()
        );
        assert!(
            c.separation <= margin * (1.0 + 1e-5) + 1e-5,
            "{}: {c:?}",
            what()
        );
    });
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = match u.choose_index(3).unwrap_or(0) {
        0 => rays(&mut u),
        1 => tois(&mut u),
        _ => levels(&mut u),
    };
});

//! parry3d is the oracle for our casts: random rays at random shapes against
//! `RayCast::cast_ray_and_get_normal`, and linear shape casts against `query::cast_shapes`;
//! turning casts are checked by stepping the poses.
//!
//! parry3d's rays on spheres and boxes are closed forms; on capsules and hulls they run its GJK,
//! which stops within a tolerance (we measured tois off by a few 1e-4 of the size typically, and
//! far more in its hollow casts from inside), and so does its `cast_shapes`. Where parry3d and
//! we differ, the test proves our answer from exact primitives instead (parry3d's point
//! projection and support points, and brute-force hull facets: see `common::signed_distance`):
//! - a ray toi or a hit parry3d misses: our point is on the surface, and just before it the ray
//!   is outside (inside, for a hollow cast leaving the shape);
//! - a ray miss: a plane separates the ray's segment from the shape (parry3d's support points
//!   along our GJK axis), or a hollow cast from inside is still inside at `max_toi`;
//! - a normal: its support plane passes through the hit point (on a capsule, it is also the
//!   direction from the segment); parry3d's is then right too (an edge or corner of a polytope:
//!   counted as a tie) or approximate (counted, with the largest angle);
//! - a time of impact: the shapes touch at it (our witness points are on the surfaces and
//!   together) and are apart before it (a lower bound on the distance at the middle of an
//!   interval exceeds what the motion can close in half of it, or both halves are proven).
//!
//! A case neither agreed nor proven fails the test; the tallies are printed.

mod common;

use common::{shape, signed_distance, Rng, KINDS};
use sprung_collision::cast::{ray_cast, time_of_impact, Motion, RayHit};
use sprung_collision::parry3d;
use sprung_collision::parry3d::math::{Isometry, Point, Real, Vector};
use sprung_collision::parry3d::query::{Ray, RayIntersection, ShapeCastOptions};
use sprung_collision::parry3d::shape::Capsule;
use sprung_collision::shape::Shape;
use sprung_collision::{dispatch, epa};

const RAYS_PER_KIND: usize = 20_000;
const CASTS_PER_PAIR: usize = 2_000;

#[derive(Default, Debug)]
struct RayTally {
    rays: usize,
    both_missed: usize,
    agreed: usize,
    /// Parry's toi differs; ours is proven.
    toi_proven: usize,
    parry_toi_max_off: Real,
    /// Normals differ at an edge or corner where both are right.
    edge_ties: usize,
    /// Normals differ; ours is proven, parry's is within its GJK tolerance.
    parry_normal_off: usize,
    parry_normal_max_deg: Real,
    /// The origin is inside a solid shape: toi 0 (parry agreed or ours proven).
    inside_solid: usize,
    /// One hits and the other misses; ours is proven.
    hit_proven: usize,
    miss_proven: usize,
    failures: Vec<String>,
}

/// The surface's support height along unit `n` minus the hit point's: zero when `n` is a
/// normal of the surface at `point` (the point is extreme along it).
fn support_gap(s: &Shape, pose: &Isometry<Real>, point: &Point<Real>, n: &Vector<Real>) -> Real {
    let support = s
        .as_parry()
        .as_support_map()
        .unwrap()
        .support_point(pose, n);
    n.dot(&(support - point))
}

struct Case<'a> {
    shape: &'a Shape,
    pose: Isometry<Real>,
    origin: Point<Real>,
    dir: Vector<Real>,
    max_toi: Real,
    solid: bool,
}

impl Case<'_> {
    fn at(&self, toi: Real) -> Point<Real> {
        self.origin + self.dir * toi
    }
    fn signed_distance(&self, p: &Point<Real>) -> Real {
        signed_distance(self.shape, &self.pose, p)
    }
    fn describe(&self) -> String {
        format!(
            "{:?} at {:?}, ray {:?} dir {:?} max {} solid {}",
            self.shape, self.pose, self.origin, self.dir, self.max_toi, self.solid
        )
    }
}

fn random_case<'a>(rng: &mut Rng, shape: &'a Shape) -> Case<'a> {
    let pose = rng.pose(2.0);
    let size = shape.scale();
    let local_box = shape.aabb(&Isometry::identity());
    let in_box = |rng: &mut Rng, grow: Real| {
        let half = local_box.half_extents() * grow;
        let c = local_box.center();
        Point::new(
            c.x + rng.range(-half.x, half.x),
            c.y + rng.range(-half.y, half.y),
            c.z + rng.range(-half.z, half.z),
        )
    };
    let origin = if rng.unit() < 0.2 {
        pose * in_box(rng, 1.1)
    } else {
        let offset = rng.vector(1.0).try_normalize(1e-3).unwrap_or(Vector::x());
        Point::from(pose.translation.vector + offset * size * rng.range(1.0, 4.0))
    };
    let mut dir = if rng.unit() < 0.7 {
        (pose * in_box(rng, 1.2) - origin)
            .try_normalize(1e-6)
            .unwrap_or(Vector::y())
    } else {
        rng.vector(1.0).try_normalize(1e-3).unwrap_or(Vector::z())
    };
    if rng.unit() < 0.1 {
        dir *= rng.range(0.3, 3.0); // parry's convention: toi in units of |dir|
    }
    let max_toi = if rng.unit() < 0.6 {
        Real::INFINITY
    } else {
        rng.range(0.0, 2.0) * (pose.translation.vector - origin.coords).norm() / dir.norm()
    };
    Case {
        shape,
        pose,
        origin,
        dir,
        max_toi,
        solid: rng.unit() < 0.5,
    }
}

fn check_ray(t: &mut RayTally, c: &Case<'_>) {
    t.rays += 1;
    let tol = 1.0e-4 * c.shape.scale();
    let ours = ray_cast(c.shape, &c.pose, &c.origin, &c.dir, c.max_toi, c.solid);
    let ray = Ray::new(c.origin, c.dir);
    let theirs = c
        .shape
        .as_parry()
        .cast_ray_and_get_normal(&c.pose, &ray, c.max_toi, c.solid);
    if let Some(h) = &ours {
        assert!(h.toi.is_finite() && h.normal.iter().all(|x| x.is_finite()));
        assert!((h.normal.norm() - 1.0).abs() < 1e-4, "{h:?}");
    }
    let inside = c.signed_distance(&c.origin) < 0.0;
    match (ours, theirs) {
        (None, None) => t.both_missed += 1,
        (Some(h), _) if c.solid && inside => {
            // Ours is toi 0 at the origin, normal -dir. parry3d's normal there differs by
            // shape (zero for boxes, the radius for balls, -dir for its GJK shapes), and its GJK
            // can see an origin just inside as just outside.
            let unit = c.dir.normalize();
            if h.toi == 0.0 && h.point == c.origin && (h.normal + unit).norm() < 1e-6 {
                t.inside_solid += 1;
            } else {
                t.failures
                    .push(format!("inside solid: {h:?} {theirs:?}: {}", c.describe()));
            }
        }
        (Some(h), Some(p)) => check_both_hit(t, c, &h, &p, tol),
        (Some(h), None) => match prove_hit(c, &h, tol) {
            Ok(()) => t.hit_proven += 1,
            Err(why) => t.failures.push(format!(
                "we hit {h:?} ({why}), parry missed: {}",
                c.describe()
            )),
        },
        (None, Some(p)) => match prove_miss(c) {
            Ok(()) => t.miss_proven += 1,
            // A ray that only grazes the shape (never deeper than the tolerance around
            // parry's hit) is a tie: which side of an edge it passes is rounding.
            Err(_) if grazes(c, p.time_of_impact, tol) => t.edge_ties += 1,
            Err(why) => t.failures.push(format!(
                "parry hit {p:?}, we missed ({why}): {}",
                c.describe()
            )),
        },
    }
}

/// Our hit lies on the surface within `max_toi`, and just before it the ray is on the side it
/// comes from: outside when it enters, inside when a hollow cast leaves. For a convex shape
/// that makes it the first crossing.
fn prove_hit(c: &Case<'_>, h: &RayHit, tol: Real) -> Result<(), String> {
    let leaving = !c.solid && c.signed_distance(&c.origin) < 0.0;
    let on_surface = c.signed_distance(&h.point);
    if on_surface.abs() > tol || h.toi > c.max_toi {
        return Err(format!("off the surface by {on_surface}"));
    }
    let before = (h.toi - 10.0 * tol / c.dir.norm()).max(0.0);
    let side = c.signed_distance(&c.at(before));
    let right_side = if leaving {
        side < 0.0
    } else {
        side > 0.0 || before == 0.0
    };
    if right_side {
        Ok(())
    } else {
        Err(format!("just before, signed distance {side}"))
    }
}

/// Whether the ray stays within `tol` of the surface (never deeper inside) over the stretch
/// `toi .. toi + 20 tol` where parry3d saw it hit: a graze along an edge or a vertex.
fn grazes(c: &Case<'_>, toi: Real, tol: Real) -> bool {
    let step = tol / c.dir.norm();
    (0..=20).all(|k| c.signed_distance(&c.at(toi + k as Real * step)) >= -tol)
}

/// The ray does not reach the surface within `max_toi`: a hollow cast from inside is still
/// inside at `max_toi`; otherwise a plane separates the ray's segment from the shape (parry3d's
/// support points along our GJK's axis between them).
fn prove_miss(c: &Case<'_>) -> Result<(), String> {
    let inside = c.signed_distance(&c.origin) < 0.0;
    if inside && !c.solid {
        let end = c.signed_distance(&c.at(c.max_toi));
        return if end < 0.0 {
            Ok(())
        } else {
            Err(format!("end at {end}"))
        };
    }
    // No hit lies further than the far side of the shape's bounding sphere.
    let reach = ((c.pose.translation.vector - c.origin.coords).norm() + c.shape.scale() * 2.0)
        / c.dir.norm();
    let end = c.at(c.max_toi.min(reach));
    let segment = Shape::Capsule(Capsule::new(c.origin, end, 1.0e-9));
    let axis = dispatch::distance(&segment, &Isometry::identity(), c.shape, &c.pose).normal;
    if axis.norm() == 0.0 {
        return Err("touching".into());
    }
    let shape_support = c.shape.as_parry().as_support_map().unwrap();
    let nearest = axis.dot(&shape_support.support_point(&c.pose, &-axis).coords);
    let farthest = axis.dot(&c.origin.coords).max(axis.dot(&end.coords));
    if nearest > farthest {
        Ok(())
    } else {
        Err(format!("separation {}", nearest - farthest))
    }
}

fn check_both_hit(t: &mut RayTally, c: &Case<'_>, h: &RayHit, p: &RayIntersection, tol: Real) {
    let len = c.dir.norm();
    if (h.toi - p.time_of_impact).abs() * len > tol {
        match prove_hit(c, h, tol) {
            Ok(()) => {
                t.toi_proven += 1;
                let off = (h.toi - p.time_of_impact).abs() * len / c.shape.scale();

                t.parry_toi_max_off = t.parry_toi_max_off.max(off);
            }
            Err(why) => t.failures.push(format!(
                "toi ours {} parry {} ({why}): {}",
                h.toi,
                p.time_of_impact,
                c.describe()
            )),
        }
        // parry3d's normal belongs to its own point: only ours is checked, below.
    } else if (h.normal - p.normal).norm() <= 1.0e-3 {
        t.agreed += 1;
        return;
    }
    // Our normal is proven if its support plane (outward: flipped for a hollow cast leaving the
    // shape) passes through the hit point, and on a capsule (smooth, so one normal) if it is the
    // direction from the segment. Then parry3d's is either right too (an edge or a corner of a
    // polytope, where several are) or approximate: its GJK stops within its tolerance.
    let leaving = !c.solid && c.signed_distance(&c.origin) < 0.0;
    let outward = |n: Vector<Real>| if leaving { -n } else { n };
    let ours_gap = support_gap(c.shape, &c.pose, &h.point, &outward(h.normal));
    let smooth_ok = match c.shape {
        Shape::Capsule(capsule) => {
            let local = c.pose.inverse_transform_point(&h.point);
            let axis = capsule.segment.b - capsule.segment.a;
            let s = ((local - capsule.segment.a).dot(&axis) / axis.norm_squared()).clamp(0.0, 1.0);
            let exact = c.pose * (local - (capsule.segment.a + axis * s)).normalize();
            (outward(h.normal) - exact).norm() <= 1.0e-3
        }
        _ => true,
    };
    if ours_gap.abs() > tol || !smooth_ok {
        t.failures.push(format!(
            "normal ours {:?} (gap {ours_gap}) parry {:?}, toi {} {}: {}",
            h.normal,
            p.normal,
            h.toi,
            p.time_of_impact,
            c.describe()
        ));
        return;
    }
    if (h.toi - p.time_of_impact).abs() * len > tol {
        return; // counted as a proven toi
    }
    let theirs_gap = support_gap(c.shape, &c.pose, &h.point, &outward(p.normal));
    let polytope = matches!(c.shape, Shape::Cuboid(_) | Shape::ConvexHull(_));
    if polytope && theirs_gap.abs() <= tol {
        t.edge_ties += 1;
    } else {
        t.parry_normal_off += 1;
        let angle = h.normal.dot(&p.normal).clamp(-1.0, 1.0).acos().to_degrees();
        t.parry_normal_max_deg = t.parry_normal_max_deg.max(angle);
    }
}

#[test]
fn rays_agree_with_parry() {
    let mut report = Vec::new();
    let mut failed = false;
    for (kind, name) in KINDS.iter().enumerate() {
        let mut rng = Rng(7 + kind as u64);
        let mut t = RayTally::default();
        for _ in 0..RAYS_PER_KIND {
            let s = shape(&mut rng, kind);
            let c = random_case(&mut rng, &s);
            check_ray(&mut t, &c);
        }
        report.push(format!(
            "{name:>7}: {} rays, both missed {}, hits agreed {}, edge ties {}, parry's normal approximate {} (up to {:.2} deg); ours proven: toi {} (parry off by up to {:.1e} x size), hit {}, miss {}; inside solid {}; failures {}",
            t.rays, t.both_missed, t.agreed, t.edge_ties, t.parry_normal_off,
            t.parry_normal_max_deg, t.toi_proven, t.parry_toi_max_off, t.hit_proven, t.miss_proven,
            t.inside_solid, t.failures.len()
        ));
        if let Some(first) = t.failures.first() {
            failed = true;
            report.push(format!("    first failure: {first}"));
            if std::env::var("ORACLE_DEBUG").is_ok() {
                for f in t.failures.iter().take(10) {
                    report.push(format!("    {f}"));
                }
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(!failed, "{}", report.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Time of impact.

/// parry3d's GJK distance is within this relative band of the truth (`sqrt(10 f32::EPSILON)`,
/// see `parry3d::query::gjk::eps_tol`), plus rounding.
const PARRY_REL: Real = 1.2e-3;

/// A lower bound on the distance between the shapes (<= 0: none), the better of two: the gap
/// between parry3d's support points along the axis our GJK finds (exact, but a nearly touching
/// pair's axis is only as precise as rounding over their distance allows), and parry3d's own
/// GJK distance less its tolerance band.
fn distance_lower_bound(a: &Shape, pa: &Isometry<Real>, b: &Shape, pb: &Isometry<Real>) -> Real {
    let theirs = parry3d::query::distance(pa, a.as_parry(), pb, b.as_parry()).unwrap();
    let from_parry = theirs * (1.0 - PARRY_REL) - 1.0e-6 * a.scale().max(b.scale());
    let axis = dispatch::distance(a, pa, b, pb).normal;
    if axis.norm() == 0.0 {
        return from_parry;
    }
    let sa = a
        .as_parry()
        .as_support_map()
        .unwrap()
        .support_point(pa, &axis);
    let sb = b
        .as_parry()
        .as_support_map()
        .unwrap()
        .support_point(pb, &-axis);
    axis.dot(&(sb - sa)).max(from_parry)
}

/// An upper bound on the distance between the shapes: our witness points, each moved by how
/// far it lies off its surface (parry3d's signed distance).
fn distance_upper_bound(a: &Shape, pa: &Isometry<Real>, b: &Shape, pb: &Isometry<Real>) -> Real {
    let c = epa::contact(a, pa, b, pb, Real::INFINITY).unwrap();
    if c.separation <= 0.0 {
        return 0.0;
    }
    (c.point_b - c.point_a).norm()
        + signed_distance(a, pa, &c.point_a).abs()
        + signed_distance(b, pb, &c.point_b).abs()
}

struct Moving<'a> {
    a: &'a Shape,
    ma: Motion,
    b: &'a Shape,
    mb: Motion,
}

impl Moving<'_> {
    /// How fast the distance can change (m/s): every point's speed bound, summed.
    fn lipschitz(&self) -> Real {
        let speed =
            |s: &Shape, m: &Motion| m.angular_velocity.norm() * s.extent_from(&m.local_center);
        (self.ma.linear_velocity - self.mb.linear_velocity).norm()
            + speed(self.a, &self.ma)
            + speed(self.b, &self.mb)
    }
    fn lower(&self, t: Real) -> Real {
        distance_lower_bound(self.a, &self.ma.pose_at(t), self.b, &self.mb.pose_at(t))
    }
    fn upper(&self, t: Real) -> Real {
        distance_upper_bound(self.a, &self.ma.pose_at(t), self.b, &self.mb.pose_at(t))
    }
    /// Proves that the shapes stay apart over `[t0, t1]`: at the middle they are further apart
    /// than the distance can shrink in half the interval, or both halves are proven.
    fn apart(&self, t0: Real, t1: Real, depth: u32) -> bool {
        let middle = 0.5 * (t0 + t1);
        if self.lower(middle) > self.lipschitz() * 0.5 * (t1 - t0) {
            return true;
        }
        depth > 0 && self.apart(t0, middle, depth - 1) && self.apart(middle, t1, depth - 1)
    }
    fn describe(&self) -> String {
        format!("{:?} {:?} / {:?} {:?}", self.a, self.ma, self.b, self.mb)
    }
}

#[derive(Default)]
struct ToiTally {
    casts: usize,
    both_missed: usize,
    agreed: usize,
    initially_touching: usize,
    proven_hit: usize,
    proven_miss: usize,
    parry_max_off: Real,
    failures: Vec<String>,
}

/// Our hit is proven: the shapes touch at `t` (within `tol`), and are apart over
/// `[0, t - slack]`, `slack` being the time to close `tol` at the fastest possible rate.
fn prove_toi(m: &Moving<'_>, t: Real, tol: Real) -> Result<(), String> {
    let upper = m.upper(t);
    if upper > tol {
        return Err(format!("{upper} apart at t"));
    }
    let before = t - 10.0 * tol / m.lipschitz();
    if before <= 0.0 || m.apart(0.0, before, 24) {
        Ok(())
    } else {
        Err(format!("not proven apart before {before}"))
    }
}

fn random_motions(rng: &mut Rng, a: &Shape, b: &Shape, turning: bool) -> (Motion, Motion, Real) {
    let pa = rng.pose(1.0);
    let offset = rng.vector(1.0).try_normalize(1e-3).unwrap_or(Vector::x());
    let gap = (a.scale() + b.scale()) * rng.range(1.0, 3.0);
    let pb = Isometry::from_parts(
        (pa.translation.vector + offset * gap).into(),
        rng.pose(0.0).rotation,
    );
    let speed = rng.range(0.5, 5.0);
    let aim = (-offset + rng.vector(0.4))
        .try_normalize(1e-3)
        .unwrap_or(-offset);
    let vb = aim * speed;
    let va = if rng.unit() < 0.3 {
        rng.vector(1.0)
    } else {
        Vector::zeros()
    };
    let max_t = rng.range(0.2, 2.0) * gap / speed;
    // Up to about half a turn each over the cast, as a fast spinning body in one step.
    let (wa, wb) = if turning {
        (rng.vector(1.8) / max_t, rng.vector(1.8) / max_t)
    } else {
        (Vector::zeros(), Vector::zeros())
    };
    let ma = Motion::new(pa, va, wa);
    let mb = Motion::new(pb, vb, wb).about(Point::from(rng.vector(0.2)));
    (ma, mb, max_t)
}

#[test]
fn linear_casts_agree_with_parry() {
    let mut report = Vec::new();
    let mut failed = false;
    for (ka, name_a) in KINDS.iter().enumerate() {
        for (kb, name_b) in KINDS.iter().enumerate() {
            let mut rng = Rng(1000 + (ka * 4 + kb) as u64);
            let mut t = ToiTally::default();
            for _ in 0..CASTS_PER_PAIR {
                let (a, b) = (shape(&mut rng, ka), shape(&mut rng, kb));
                let (ma, mut mb, max_t) = random_motions(&mut rng, &a, &b, false);
                mb.local_center = Point::origin();
                let m = Moving {
                    a: &a,
                    ma,
                    b: &b,
                    mb,
                };
                check_linear(&mut t, &m, max_t);
            }
            report.push(format!(
                "{name_a:>7} vs {name_b:<7}: {} casts, both missed {}, agreed {}, touching at 0 {}; ours proven: hit {} (parry off by up to {:.1e} x size), miss {}; failures {}",
                t.casts, t.both_missed, t.agreed, t.initially_touching, t.proven_hit,
                t.parry_max_off, t.proven_miss, t.failures.len()
            ));
            if let Some(first) = t.failures.first() {
                failed = true;
                report.push(format!("    first failure: {first}"));
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(!failed, "{}", report.join("\n"));
}

fn check_linear(t: &mut ToiTally, m: &Moving<'_>, max_t: Real) {
    t.casts += 1;
    let size = m.a.scale().max(m.b.scale());
    let tol = 1.0e-4 * size;
    let ours = time_of_impact(m.a, &m.ma, m.b, &m.mb, max_t, 0.0);
    let options = ShapeCastOptions::with_max_time_of_impact(max_t);
    let (va, vb) = (m.ma.linear_velocity, m.mb.linear_velocity);
    let theirs = parry3d::query::cast_shapes(
        &m.ma.start,
        &va,
        m.a.as_parry(),
        &m.mb.start,
        &vb,
        m.b.as_parry(),
        options,
    )
    .unwrap();
    let speed = (va - vb).norm();
    match (ours, theirs) {
        (None, None) => t.both_missed += 1,
        (Some(h), Some(p)) if h.t == 0.0 && p.time_of_impact == 0.0 => t.initially_touching += 1,
        (Some(h), theirs) => {
            let off = theirs.map_or(Real::INFINITY, |p| (p.time_of_impact - h.t).abs() * speed);
            if off <= 1.0e-3 * size && m.upper(h.t) <= tol {
                t.agreed += 1;
                return;
            }
            match prove_toi(m, h.t, tol) {
                Ok(()) => {
                    t.proven_hit += 1;
                    if off.is_finite() {
                        t.parry_max_off = t.parry_max_off.max(off / size);
                    }
                }
                Err(why) => t.failures.push(format!(
                    "ours {h:?} ({why}), parry {theirs:?}: {}",
                    m.describe()
                )),
            }
        }
        (None, Some(p)) => {
            if m.apart(0.0, max_t, 24) {
                t.proven_miss += 1;
            } else {
                t.failures
                    .push(format!("we missed, parry {p:?}: {}", m.describe()));
            }
        }
    }
}

/// Turning shapes, checked by stepping the poses: when we report a hit the shapes touch then and
/// are proven apart before; when we report none they are proven apart throughout.
#[test]
fn turning_casts_touch_at_toi_and_not_before() {
    let mut report = Vec::new();
    let mut failed = false;
    for (ka, name_a) in KINDS.iter().enumerate() {
        for (kb, name_b) in KINDS.iter().enumerate() {
            let mut rng = Rng(2000 + (ka * 4 + kb) as u64);
            let (mut hits, mut misses, mut stopped, mut failures) = (0, 0, 0, Vec::new());
            for _ in 0..CASTS_PER_PAIR / 4 {
                let (a, b) = (shape(&mut rng, ka), shape(&mut rng, kb));
                let (ma, mb, max_t) = random_motions(&mut rng, &a, &b, true);
                let m = Moving {
                    a: &a,
                    ma,
                    b: &b,
                    mb,
                };
                let tol = 1.0e-4 * a.scale().max(b.scale());
                match time_of_impact(&a, &ma, &b, &mb, max_t, 0.0) {
                    // Out of iterations: a safe time, proven apart until then.
                    Some(h) if !h.converged => {
                        if m.apart(0.0, h.t, 24) {
                            stopped += 1;
                        } else {
                            failures.push(format!("unconverged {h:?} not safe: {}", m.describe()));
                        }
                    }
                    Some(h) => match prove_toi(&m, h.t, tol) {
                        Ok(()) => hits += 1,
                        Err(why) => failures.push(format!("{h:?} ({why}): {}", m.describe())),
                    },
                    None if m.apart(0.0, max_t, 24) => misses += 1,
                    None => failures.push(format!("miss not proven: {}", m.describe())),
                }
            }
            report.push(format!(
                "{name_a:>7} vs {name_b:<7}: hits proven {hits}, misses proven {misses}, stopped early (safe) {stopped}; failures {}",
                failures.len()
            ));
            if let Some(first) = failures.first() {
                failed = true;
                report.push(format!("    first failure: {first}"));
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(!failed, "{}", report.join("\n"));
}

/// Continuous collision's case: a 5 cm bullet at 300 m/s crosses 5 m per 60 Hz step, fifty times
/// the thickness of a 10 cm wall; it must hit, on the face, when the closed form says.
#[test]
fn bullet_hits_thin_wall() {
    let bullet = Shape::sphere(0.05).unwrap();
    let wall = Shape::cuboid(Vector::new(0.05, 2.0, 2.0)).unwrap();
    let fixed = Motion::fixed(Isometry::identity());
    let dt = 1.0 / 60.0;
    let mut rng = Rng(99);
    let (mut hits, mut misses) = (0, 0);
    for _ in 0..2_000 {
        let start = Vector::new(
            -0.1 - rng.range(0.0, 6.0),
            rng.range(-1.5, 1.5),
            rng.range(-1.5, 1.5),
        );
        let tilt = rng.vector(0.04);
        let velocity = Vector::new(1.0, tilt.y, tilt.z).normalize() * 300.0;
        let shot = Motion::linear(Isometry::translation(start.x, start.y, start.z), velocity);
        let expected = (-start.x - 0.1) / velocity.x;
        match time_of_impact(&bullet, &shot, &wall, &fixed, dt, 0.0) {
            Some(toi) => {
                hits += 1;
                assert!(
                    (toi.t - expected).abs() < 1.0e-6,
                    "{toi:?}, expected {expected}"
                );
                assert!((toi.normal - Vector::x()).norm() < 1.0e-4, "{toi:?}");
            }
            None => {
                misses += 1;
                assert!(expected > dt, "missed a wall it reaches at {expected}");
            }
        }
    }
    assert!(hits > 1_000 && misses > 100, "{hits} hits, {misses} misses");
}

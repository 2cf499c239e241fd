//! Shared input decoding for the sprung-collision fuzz targets: bytes -> numbers -> shapes and
//! poses, always through the public constructors (what a user can do).
//!
//! Numbers are drawn two ways, so that both the refusals and the accepted extremes get
//! exercised: raw f32 bit patterns (NaN, infinities, subnormals, 1e38) and "plausible" values,
//! a 16-bit fraction times a magnitude from 1e-6 to 1e6 m (either side of the shape bounds
//! `MIN_DIMENSION` and `MAX_EXTENT`). Poses stay finite and within `POSE_RANGE`: the queries
//! promise finite answers for valid shapes at finite poses within the bounds, not for a pose at
//! 1e30 m.

use arbitrary::{Result, Unstructured};
use sprung_collision::parry3d::math::{Isometry, Point, Real, Translation, Vector};
use sprung_collision::parry3d::na::{DMatrix, Quaternion, UnitQuaternion};
use sprung_collision::shape::{Shape, MAX_EXTENT};
use sprung_collision::unit::unit_quaternion;

/// How far from the origin (m) a fuzzed pose may sit: twice the largest shape.
pub const POSE_RANGE: Real = 2.0 * MAX_EXTENT;

/// Magnitudes (m) for plausible numbers: either side of each bound.
const MAGNITUDES: [Real; 10] = [1e-6, 1e-4, 1e-3, 0.05, 0.5, 1.0, 10.0, 1e3, 1e5, 1e6];

/// Any f32: one time in eight its raw bits, else a plausible signed value.
pub fn number(u: &mut Unstructured) -> Result<Real> {
    if u.ratio(1, 8)? {
        return Ok(Real::from_bits(u.arbitrary()?));
    }
    plausible(u)
}

/// A signed value of a plausible magnitude (never NaN or infinite).
pub fn plausible(u: &mut Unstructured) -> Result<Real> {
    let magnitude = MAGNITUDES[u.choose_index(MAGNITUDES.len())?];
    let fraction = u.arbitrary::<i16>()? as Real / 32768.0;
    Ok(magnitude * fraction)
}

pub fn positive(u: &mut Unstructured) -> Result<Real> {
    Ok(number(u)?.abs())
}

pub fn vector(u: &mut Unstructured) -> Result<Vector<Real>> {
    Ok(Vector::new(number(u)?, number(u)?, number(u)?))
}

pub fn point(u: &mut Unstructured) -> Result<Point<Real>> {
    Ok(Point::from(vector(u)?))
}

/// A direction: mostly plausible, sometimes huge (1e20..1e38) or tiny, sometimes raw bits.
pub fn direction(u: &mut Unstructured) -> Result<Vector<Real>> {
    let scale: Real = match u.choose_index(4)? {
        0 => 1e20,
        1 => 1e30,
        2 => 1e-30,
        _ => 1.0,
    };
    Ok(vector(u)? * scale)
}

/// A rotation from any four finite numbers (identity if they have no direction), sometimes a
/// nearly degenerate one (components 1e-30 or 1e38 apart).
pub fn rotation(u: &mut Unstructured) -> Result<UnitQuaternion<Real>> {
    let mut q = [0.0; 4];
    for c in &mut q {
        *c = plausible(u)?;
        if u.ratio(1, 8)? {
            *c *= if u.arbitrary()? { 1e-30 } else { 1e32 };
        }
    }
    Ok(unit_quaternion(&Quaternion::new(q[0], q[1], q[2], q[3])).unwrap_or_default())
}

/// A finite pose within `POSE_RANGE` of the origin.
pub fn pose(u: &mut Unstructured) -> Result<Isometry<Real>> {
    let t = Vector::new(plausible(u)?, plausible(u)?, plausible(u)?)
        .map(|x| x.clamp(-POSE_RANGE, POSE_RANGE));
    Ok(Isometry::from_parts(Translation::from(t), rotation(u)?))
}

/// The raw arguments of one shape constructor, kept so a target can report what it tried.
#[derive(Debug)]
pub enum Recipe {
    Sphere(Real),
    Cuboid(Vector<Real>),
    Capsule(Real, Real),
    ConvexHull(Vec<Point<Real>>),
    Triangle(Point<Real>, Point<Real>, Point<Real>),
    HalfSpace(Vector<Real>),
    TriMesh(Vec<Point<Real>>, Vec<[u32; 3]>),
    HeightField(DMatrix<Real>, Vector<Real>),
}

impl Recipe {
    /// Draws a recipe; `convex_only` leaves out the level shapes.
    pub fn draw(u: &mut Unstructured, convex_only: bool) -> Result<Recipe> {
        let kinds = if convex_only { 4 } else { 8 };
        Ok(match u.choose_index(kinds)? {
            0 => Recipe::Sphere(positive(u)?),
            1 => Recipe::Cuboid(vector(u)?.abs()),
            2 => Recipe::Capsule(positive(u)?, positive(u)?),
            3 => {
                let n = u.int_in_range(0..=16)?;
                let scale = positive(u)?;
                let points = (0..n)
                    .map(|_| Ok(point(u)? * scale))
                    .collect::<Result<Vec<_>>>()?;
                Recipe::ConvexHull(points)
            }
            4 => Recipe::Triangle(point(u)?, point(u)?, point(u)?),
            5 => Recipe::HalfSpace(direction(u)?),
            6 => {
                let n = u.int_in_range(0..=12)?;
                let vertices = (0..n).map(|_| point(u)).collect::<Result<Vec<_>>>()?;
                let count = u.int_in_range(0..=12)?;
                let mut indices = Vec::with_capacity(count);
                for _ in 0..count {
                    // Mostly in range; one time in 16 anything.
                    let mut t = [0u32; 3];
                    for i in &mut t {
                        *i = if u.ratio(1, 16)? {
                            u.arbitrary()?
                        } else {
                            u.int_in_range(0..=n.max(1) as u32 - 1)?
                        };
                    }
                    indices.push(t);
                }
                Recipe::TriMesh(vertices, indices)
            }
            _ => {
                let rows = u.int_in_range(0..=5)?;
                let cols = u.int_in_range(0..=5)?;
                let mut heights = DMatrix::zeros(rows, cols);
                for h in heights.iter_mut() {
                    *h = number(u)?;
                }
                Recipe::HeightField(heights, vector(u)?)
            }
        })
    }

    /// The shape, through its public constructor.
    pub fn build(&self) -> std::result::Result<Shape, sprung_collision::shape::ShapeError> {
        match self {
            Recipe::Sphere(r) => Shape::sphere(*r),
            Recipe::Cuboid(h) => Shape::cuboid(*h),
            Recipe::Capsule(hh, r) => Shape::capsule(*hh, *r),
            Recipe::ConvexHull(points) => Shape::convex_hull(points),
            Recipe::Triangle(a, b, c) => Shape::triangle(*a, *b, *c),
            Recipe::HalfSpace(n) => Shape::halfspace(*n),
            Recipe::TriMesh(v, i) => Shape::trimesh(v.clone(), i.clone()),
            Recipe::HeightField(h, s) => Shape::heightfield(h.clone(), *s),
        }
    }
}

pub fn finite(x: Real) -> bool {
    x.is_finite()
}

pub fn finite_vector(v: &Vector<Real>) -> bool {
    v.iter().all(|x| x.is_finite())
}

pub fn finite_point(p: &Point<Real>) -> bool {
    finite_vector(&p.coords)
}

/// True if parry3d is a trustworthy oracle on this shape: not tiny, not a sliver. Its GJK has
/// absolute tolerances (a 0.1 mm ball on a 0.2 mm tetrahedron's corner is 0.1 mm apart for it)
/// and fails on slivers (two touching 1e5 x 1e-4 x 1e5 m slabs, 173 759 m apart): see
/// collision/tests/hostile_shapes.rs.
pub fn oracle_friendly(s: &Shape) -> bool {
    !s.is_level() && s.scale() >= 1.0e-2 && s.thickness() >= 1.0e-3 * s.scale()
}

/// The verdict of parry3d on a convex pair, kept only when it comes with a certificate that
/// does not depend on parry3d's GJK tolerances (which have been caught wrong: two coincident
/// capsules 2.5 mm apart, see RELIABILITY.md).
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Apart by at least this much along parry3d's normal, proved by exact support maps.
    Apart(Real),
    /// Overlapping: the midpoint of parry3d's witness points lies inside both shapes.
    Overlapping(Real),
    /// Neither proved beyond `tolerance`.
    Unknown,
}

pub fn parry_verdict(
    a: &Shape,
    pa: &Isometry<Real>,
    b: &Shape,
    pb: &Isometry<Real>,
    tolerance: Real,
) -> Verdict {
    use sprung_collision::parry3d::query::{self, ClosestPoints};
    let (Some(sa), Some(sb)) = (a.as_parry().as_support_map(), b.as_parry().as_support_map())
    else {
        return Verdict::Unknown;
    };
    match query::closest_points(pa, a.as_parry(), pb, b.as_parry(), Real::MAX) {
        Ok(ClosestPoints::WithinMargin(p1, p2)) => {
            let d = p2 - p1;
            if d.norm() > tolerance {
                let n = d.normalize();
                // The gap between the two shapes' support planes along n: a lower bound of
                // their distance, exact up to rounding.
                let top_a = sa.support_point(pa, &n).coords.dot(&n);
                let bottom_b = sb.support_point(pb, &-n).coords.dot(&n);
                let gap = bottom_b - top_a;
                if gap > tolerance {
                    return Verdict::Apart(gap);
                }
            }
        }
        Ok(ClosestPoints::Intersecting) => {
            if let Ok(Some(c)) = query::contact(pa, a.as_parry(), pb, b.as_parry(), 0.0) {
                if c.dist < -tolerance {
                    let mid = Point::from((c.point1.coords + c.point2.coords) * 0.5);
                    let inside_a = a.as_parry().contains_point(pa, &mid);
                    let inside_b = b.as_parry().contains_point(pb, &mid);
                    if inside_a && inside_b {
                        return Verdict::Overlapping(c.dist);
                    }
                }
            }
        }
        _ => {}
    }
    Verdict::Unknown
}

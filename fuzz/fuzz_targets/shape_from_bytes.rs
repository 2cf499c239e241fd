//! Bytes into every shape constructor, and into parry3d's own types for the variants a user
//! can build by hand: never a panic; every shape a constructor accepts passes `check()`; every
//! shape `check()` accepts has a finite AABB at an arbitrary finite pose, a finite scale,
//! thickness and extent, and (if it may carry mass) finite, positive mass properties.
#![no_main]

use std::sync::Arc;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use sprung_collision::parry3d::math::Point;
use sprung_collision::parry3d::na::{DMatrix, Unit};
use sprung_collision::parry3d::shape::{Ball, Capsule, Cuboid, HalfSpace, HeightField, Triangle};
use sprung_collision::shape::Shape;
use sprung_collision_fuzz::{
    finite, finite_point, finite_vector, number, point, pose, positive, vector, Recipe,
};

/// A variant built by hand from parry3d's types, as a user can, skipping our constructors.
/// (Hand-built meshes and hulls go through parry3d's own constructors, which this does not fuzz.)
fn by_hand(u: &mut Unstructured) -> Result<Option<Shape>> {
    Ok(Some(match u.choose_index(6)? {
        0 => Shape::Sphere(Ball::new(number(u)?)),
        1 => Shape::Cuboid(Cuboid::new(vector(u)?)),
        2 => Shape::Capsule(Capsule::new(point(u)?, point(u)?, number(u)?)),
        3 => Shape::Triangle(Triangle::new(point(u)?, point(u)?, point(u)?)),
        4 => Shape::HalfSpace(HalfSpace::new(Unit::new_unchecked(vector(u)?))),
        _ => {
            let rows = u.int_in_range(2..=4)?;
            let cols = u.int_in_range(2..=4)?;
            let mut heights = DMatrix::zeros(rows, cols);
            for h in heights.iter_mut() {
                *h = number(u)?;
            }
            Shape::HeightField(Arc::new(HeightField::new(heights, vector(u)?)))
        }
    }))
}

fn sound(shape: &Shape, u: &mut Unstructured, what: &dyn Fn() -> String) -> Result<()> {
    let at = pose(u)?;
    let aabb = shape.aabb(&at);
    assert!(
        finite_point(&aabb.mins) && finite_point(&aabb.maxs),
        "{aabb:?} {}",
        what()
    );
    assert!(
        (0..3).all(|i| aabb.mins[i] <= aabb.maxs[i]),
        "{aabb:?} {}",
        what()
    );
    assert!(
        finite(shape.scale()) && finite(shape.thickness()),
        "{}",
        what()
    );
    let centre = Point::new(number(u)?, number(u)?, number(u)?);
    if finite_point(&centre) && centre.coords.amax() <= 1e6 {
        assert!(finite(shape.extent_from(&centre)), "{}", what());
    }
    if !shape.is_static_only() {
        let density = [1e-3, 1.0, 1000.0, 2e4][u.choose_index(4)?];
        let m = shape.mass_properties(density);
        assert!(finite(m.mass()) && m.mass() > 0.0, "{m:?} {}", what());
        assert!(finite_point(&m.local_com), "{m:?} {}", what());
        assert!(finite_vector(&m.principal_inertia()), "{m:?} {}", what());
        assert!(
            m.principal_inertia().iter().all(|&x| x > 0.0),
            "{m:?} {}",
            what()
        );
        assert!(finite_vector(&m.inv_principal_inertia), "{m:?} {}", what());
        let q = m.principal_inertia_local_frame.coords;
        assert!(q.iter().all(|x| x.is_finite()), "{m:?} {}", what());
    }
    let _ = positive(u)?;
    Ok(())
}

fn run(u: &mut Unstructured) -> Result<()> {
    if u.arbitrary()? {
        let recipe = Recipe::draw(u, false)?;
        if let Ok(shape) = recipe.build() {
            let what = || format!("{recipe:?} -> {shape:?}");
            assert_eq!(shape.check(), Ok(()), "{}", what());
            sound(&shape, u, &what)?;
        }
    } else if let Some(shape) = by_hand(u)? {
        if shape.check().is_ok() {
            let what = || format!("by hand: {shape:?}");
            sound(&shape, u, &what)?;
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

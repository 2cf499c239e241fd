//! The cost of a vehicle's wheels (their casts, suspension rows, tyres and drive train)
//! against the cost of eight ray casts per wheel among the same bodies (issue 45's target: the
//! wheels cost at most the eight casts). On the `vehicles` scene after two seconds, its 100 cars
//! driving their laps over the height field, their drivers steering:
//!
//! - `step_with_wheels`: one step of the scene;
//! - `step_without_wheels`: one step of the same scene whose vehicles were removed and whose
//!   gravity was turned off, so that the chassis fly on at their speed without touching
//!   anything (what the step costs besides the wheels: the bodies, the broad phase, the racer);
//! - `eight_casts_per_wheel`: eight rays from each wheel's mount along its suspension, as far as
//!   the wheel reaches.
//!
//! The wheels' cost per vehicle is the first less the second over the 100 cars; the casts'
//! the third over the cars.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use sprung::math::Vector;
use sprung::QueryFilter;
use sprung_demos::find;

fn vehicle(c: &mut Criterion) {
    let spec = find("vehicles").expect("the vehicles scene");
    let build = || {
        let mut scene = (spec.build)();
        for _ in 0..120 {
            scene.step(spec.dt).expect("a valid step");
        }
        scene
    };
    let mut with = build();
    let mut without = build();
    let cars = without.fleet.as_ref().expect("cars").vehicles.clone();
    for car in cars {
        without.world.remove_vehicle(car).expect("a live vehicle");
    }
    without
        .world
        .set_gravity(Vector::zeros())
        .expect("no gravity");
    let mut group = c.benchmark_group("vehicles_100");
    group.bench_function("step_with_wheels", |b| {
        b.iter(|| with.step(spec.dt).expect("a valid step"))
    });
    group.bench_function("step_without_wheels", |b| {
        b.iter(|| without.step(spec.dt).expect("a valid step"))
    });
    let world = &with.world;
    let fleet = with.fleet.as_ref().expect("cars");
    group.bench_function("eight_casts_per_wheel", |b| {
        b.iter(|| {
            let mut hits = 0;
            for &car in &fleet.vehicles {
                let vehicle = world.vehicle(car).expect("a car");
                let chassis = world.body(vehicle.chassis()).expect("a chassis");
                let pose = chassis.pose();
                let filter = QueryFilter::new()
                    .exclude_body(vehicle.chassis())
                    .exclude_sensors();
                for wheel in vehicle.wheels() {
                    let w = &wheel.settings;
                    let (mount, dir) = (pose * w.mount, pose.rotation * w.direction);
                    for _ in 0..8 {
                        let hit =
                            world.cast_ray(mount, dir, w.max_length + w.radius, true, &filter);
                        hits += usize::from(matches!(hit, Ok(Some(_))));
                    }
                }
            }
            black_box(hits)
        })
    });
    group.finish();
}

criterion_group!(benches, vehicle);
criterion_main!(benches);

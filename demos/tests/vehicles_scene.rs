//! The `vehicles` scene: every car drives its lap over the rolling height field (some over a
//! ramp, some through a crate) without tipping or sinking, the hover racer flies
//! its lap; and it ends at the same bits on 1, 2 and 4 threads (issue 45's test 8).

use sprung_demos::find;

#[test]
fn every_car_drives_its_lap_over_ramps_and_through_crates() {
    let spec = find("vehicles").unwrap();
    let mut scene = (spec.build)();
    let crates: Vec<_> = scene.tracked.clone();
    // The terrain's body: the first one.
    let terrain = scene.world.bodies().next().unwrap().0;
    // Cars with a wheel on something else than the terrain at some step: on a ramp.
    let mut ramped = [false; sprung_demos::VEHICLES];
    for _ in 0..spec.steps {
        scene.step(spec.dt).unwrap();
        let fleet = scene.fleet.as_ref().unwrap();
        for (i, &car) in fleet.vehicles.iter().enumerate() {
            let wheels = scene.world.vehicle(car).unwrap().wheels();
            let on = |w: &sprung::vehicle::Wheel| w.state.contact.map(|c| c.body);
            ramped[i] |= wheels.iter().any(|w| on(w).is_some_and(|b| b != terrain));
        }
    }
    let figures = scene.figures();
    for f in &figures {
        assert!(f.ok, "{} = {} ({})", f.name, f.value, f.limit);
    }
    assert_eq!(figures.len(), 5);
    // Every fifth lap has a ramp (cars 2, 7, 12, ...): those cars rolled on something else
    // than the terrain; and no car did that had neither a ramp nor a crate (cars 4, 14, ...)
    // on its lap.
    for (k, &ramped) in ramped.iter().enumerate() {
        if k % 5 == 2 {
            assert!(ramped, "car {k} never on its ramp");
        } else if k % 10 != 4 {
            assert!(!ramped, "car {k} off its lap");
        }
    }
    for (handle, start) in crates {
        let moved = scene.world.body(handle).unwrap().translation() - start.translation.vector;
        assert!(moved.norm() > 0.5, "a crate was moved only {moved:?}");
    }
}

#[test]
fn the_vehicles_scene_is_the_same_on_every_thread_count() {
    let spec = find("vehicles").unwrap();
    let hash = |threads| spec.hash_after(300, threads).unwrap();
    let one = hash(1);
    assert_eq!(hash(2), one);
    assert_eq!(hash(4), one);
}

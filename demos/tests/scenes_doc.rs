//! `docs/SCENES.md` is the scenes' contract in the repository (a clone has no `../shared`): it
//! must begin with the shared contract, word for word, wherever the shared copy is beside the
//! checkout (as on CI); the gameplay scenes the shared copy does not have yet follow it.

#[test]
fn the_scenes_contract_is_the_shared_one() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ours = std::fs::read_to_string(root.join("docs/SCENES.md")).expect("docs/SCENES.md");
    let shared = root.join("../shared/bench/SCENES.md");
    match std::fs::read_to_string(&shared) {
        Ok(theirs) => assert!(
            ours.starts_with(&theirs),
            "docs/SCENES.md does not begin with {}: copy it over",
            shared.display()
        ),
        Err(_) => eprintln!("SKIPPED: no {} beside the checkout", shared.display()),
    }
    // Every scene of the catalogue is in it.
    for spec in sprung_demos::catalogue() {
        if spec.name != "rope" && spec.name != "cloth" {
            assert!(
                ours.contains(&format!("### {}", spec.name)),
                "{}",
                spec.name
            );
        }
    }
}

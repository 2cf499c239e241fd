//! The house in order, checked on the sources themselves: no two files of one of the engine's
//! crates import each other in a loop, directly or through others (a file names another by a
//! `crate::`, `super::` or `self::` path, or by a child module's name); no source file of the
//! engine's crates or the demos passes 1,000 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("demos/ sits in the workspace")
        .to_path_buf()
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("a source directory")
        .map(|e| e.expect("an entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A module path within its crate: `src/joint/mod.rs` and `src/joint.rs` are `joint`,
/// `src/lib.rs` is the root (empty).
type Module = Vec<String>;

fn module_of(src: &Path, file: &Path) -> Module {
    let relative = file.strip_prefix(src).expect("under src");
    let mut parts: Module = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// A file's code: its `tests` module cut off, comments dropped.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifiers of a path starting at byte `at` of `code`: `a::b::{c, d::e}` gives
/// `[a, b]` and the first word of each item in braces.
fn path_at(code: &str, at: usize) -> (Vec<String>, Vec<String>) {
    let rest = &code[at..];
    let mut path = Vec::new();
    let mut word = String::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            path.push(std::mem::take(&mut word));
            if chars.peek() == Some(&'{') {
                chars.next();
                let group: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let items = group
                    .split(',')
                    .filter_map(|item| {
                        let first = item.trim().split("::").next()?.trim().to_string();
                        (!first.is_empty()).then_some(first)
                    })
                    .collect();
                return (path, items);
            }
        } else {
            break;
        }
    }
    if !word.is_empty() {
        path.push(word);
    }
    (path, Vec::new())
}

/// The modules of one crate each file names (the root left out: it only declares and
/// re-exports, and every file reaches its `Real` and `Vector`).
fn imports(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let files: Vec<_> = files
        .into_iter()
        .filter(|f| f.file_name().is_some_and(|n| n != "tests.rs"))
        .collect();
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(src, f)).collect();
    let mut edges = BTreeMap::new();
    for file in &files {
        let module = module_of(src, file);
        let text = std::fs::read_to_string(file).expect("a readable source");
        let code = code(&text);
        let mut named = BTreeSet::new();
        let bytes = code.as_bytes();
        for (at, _) in code.char_indices() {
            // Only at the start of a word.
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            if at > 1 && &code[at - 2..at] == "::" {
                continue;
            }
            let (path, items) = path_at(&code, at);
            if path.len() < 2 && items.is_empty() {
                continue;
            }
            // Where the path starts.
            let (mut base, rest): (Module, &[String]) = match path[0].as_str() {
                "crate" => (Vec::new(), &path[1..]),
                "self" => (module.clone(), &path[1..]),
                "super" => {
                    let mut base = module.clone();
                    base.pop();
                    let mut rest = &path[1..];
                    while rest.first().is_some_and(|p| p == "super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                    (base, rest)
                }
                child => {
                    let mut base = module.clone();
                    base.push(child.to_string());
                    if !modules.contains(&base) {
                        continue;
                    }
                    (base, &path[1..])
                }
            };
            for part in rest {
                let mut deeper = base.clone();
                deeper.push(part.clone());
                if modules.contains(&deeper) {
                    base = deeper;
                } else {
                    break;
                }
            }
            let mut targets = vec![base.clone()];
            for item in &items {
                let mut deeper = base.clone();
                deeper.push(item.clone());
                if modules.contains(&deeper) {
                    targets.push(deeper);
                }
            }
            for target in targets {
                if target != module && !target.is_empty() {
                    named.insert(target);
                }
            }
        }
        if !module.is_empty() {
            edges.insert(module, named);
        }
    }
    edges
}

/// A loop of imports, if any: a path back to where it started.
fn a_loop(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    fn visit(
        at: &Module,
        edges: &BTreeMap<Module, BTreeSet<Module>>,
        done: &mut BTreeSet<Module>,
        path: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        if let Some(start) = path.iter().position(|m| m == at) {
            return Some(path[start..].to_vec());
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.clone());
        for next in edges.get(at).into_iter().flatten() {
            if let Some(found) = visit(next, edges, done, path) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(at.clone());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|m| visit(m, edges, &mut done, &mut Vec::new()))
}

#[test]
fn no_two_files_of_an_engine_crate_import_each_other_in_a_loop() {
    // Each crate with at least this many files besides its root, so that a wrong path fails.
    for (krate, files) in [
        ("spring", 10),
        ("collision", 10),
        ("solver", 10),
        ("engine", 10),
        ("control", 4),
    ] {
        let edges = imports(&root().join(krate).join("src"));
        assert!(edges.len() >= files, "{krate}: {} files read", edges.len());
        if let Some(found) = a_loop(&edges) {
            let names: Vec<String> = found.iter().map(|m| m.join("::")).collect();
            panic!(
                "{krate}: {} import each other in a loop",
                names.join(" -> ")
            );
        }
    }
}

/// The check finds a loop where there is one: two modules naming each other, and a child
/// naming its parent that names it back.
#[test]
fn the_loop_check_finds_a_loop() {
    let module = |s: &str| -> Module { s.split("::").map(String::from).collect() };
    let mut edges = BTreeMap::new();
    edges.insert(module("a"), BTreeSet::from([module("b")]));
    edges.insert(module("b"), BTreeSet::from([module("c")]));
    edges.insert(module("c"), BTreeSet::new());
    assert_eq!(a_loop(&edges), None);
    edges.insert(module("c"), BTreeSet::from([module("a")]));
    assert_eq!(a_loop(&edges).map(|l| l.len()), Some(3));
    let (path, items) = path_at("super::{part::Joint, JointFrame};", 0);
    assert_eq!(path, vec!["super"]);
    assert_eq!(items, vec!["part", "JointFrame"]);
}

/// No source file of the engine's crates, nor of the demos (the runner, the scenes, the
/// viewer), passes 1,000 lines.
#[test]
fn no_source_file_passes_a_thousand_lines() {
    let mut files = Vec::new();
    for krate in [
        "spring",
        "collision",
        "solver",
        "engine",
        "control",
        "demos",
    ] {
        sources(&root().join(krate).join("src"), &mut files);
    }
    assert!(files.len() > 100, "{} files read", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).ok()?.lines().count();
            (lines > 1_000).then(|| format!("{} ({lines} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "{long:?}");
}

/// Every unsafe function of the engine's crates says what its caller must hold (a `# Safety`
/// section in its doc); the lints `unsafe_op_in_unsafe_fn` and
/// `clippy::undocumented_unsafe_blocks` (the workspace's `[lints]`) hold the blocks to theirs.
#[test]
fn every_unsafe_function_has_its_safety_section() {
    let mut files = Vec::new();
    for krate in ["spring", "collision", "solver", "engine", "control"] {
        sources(&root().join(krate).join("src"), &mut files);
    }
    let mut found = 0;
    let mut missing = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable source");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if !code.contains("unsafe fn ") {
                continue;
            }
            found += 1;
            let doc = lines[..i]
                .iter()
                .rev()
                .take_while(|l| {
                    let l = l.trim_start();
                    l.starts_with("///") || l.starts_with("#[")
                })
                .any(|l| l.contains("# Safety"));
            if !doc {
                missing.push(format!("{}:{}", file.display(), i + 1));
            }
        }
    }
    assert!(found > 10, "{found} unsafe functions read");
    assert!(missing.is_empty(), "no `# Safety`: {missing:?}");
}

/// The CPU is asked one question, in one place (`solver/src/kernels.rs`): whether it has AVX2.
#[test]
fn the_cpu_is_asked_once() {
    let mut files = Vec::new();
    for krate in ["spring", "collision", "solver", "engine", "control"] {
        sources(&root().join(krate).join("src"), &mut files);
    }
    let asking: Vec<String> = files
        .iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            text.lines().any(|l| {
                l.split("//")
                    .next()
                    .unwrap_or("")
                    .contains("is_x86_feature_detected!")
            })
        })
        .map(|f| f.display().to_string())
        .collect();
    assert_eq!(asking.len(), 1, "{asking:?}");
    assert!(asking[0].ends_with("kernels.rs"), "{asking:?}");
}

/// One type hands a pointer to several workers at once (`sprung_solver::Shared`): no other
/// `unsafe impl Sync` in the engine's crates.
#[test]
fn one_pointer_is_shared_between_workers() {
    let mut files = Vec::new();
    for krate in ["spring", "collision", "solver", "engine", "control"] {
        sources(&root().join(krate).join("src"), &mut files);
    }
    let mut impls = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable source");
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("unsafe impl") && code.contains("Sync for") {
                impls.push(format!("{}: {}", file.display(), code.trim()));
            }
        }
    }
    assert_eq!(impls.len(), 1, "{impls:?}");
    assert!(impls[0].contains("Sync for Shared<T>"), "{impls:?}");
}

/// The step's lane count chooses which code runs in one place (`Kernels::run`,
/// `solver/src/kernels.rs`): no other `match` on a lane count in the engine's crates, tests
/// included (the stages and joints write their work once, as a `LaneWork`).
#[test]
fn the_lane_count_is_matched_once() {
    let mut files = Vec::new();
    for krate in ["spring", "collision", "solver", "engine", "control"] {
        sources(&root().join(krate).join("src"), &mut files);
    }
    let mut matches = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable source");
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            // The matched expression: the words between `match` and the arms' brace.
            let Some(at) = code.find("match ") else {
                continue;
            };
            let matched = code[at + 6..].split('{').next().unwrap_or("");
            let words: Vec<&str> = matched
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .collect();
            if words.contains(&"lanes") {
                matches.push(format!("{}: {}", file.display(), code.trim()));
            }
        }
    }
    assert_eq!(matches.len(), 1, "{matches:?}");
    assert!(matches[0].contains("kernels.rs"), "{matches:?}");
}

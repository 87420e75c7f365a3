//! The repository keeps its promises: no import cycle between sibling files in any crate, a
//! README a newcomer reads in minutes, and the licence files `Cargo.toml` names.

use bitbudget_house::imports::{find_cycle, named_paths, sibling_graph};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every crate's `src` folder: the app's and each one under `crates/`.
fn source_folders() -> Vec<PathBuf> {
    let mut out = vec![root().join("src")];
    for entry in std::fs::read_dir(root().join("crates")).expect("crates/ is readable") {
        let src = entry.expect("a directory entry").path().join("src");
        if src.is_dir() {
            out.push(src);
        }
    }
    out.sort();
    out
}

/// Cycles not untangled yet, each as (source folder, parent module, the files it may involve).
/// A cycle that reaches any other file fails the test, and so does an entry with no cycle left:
/// the list can only shrink. It is empty: keep it so.
const NOT_YET_UNTANGLED: &[(&str, &str, &[&str])] = &[];

#[test]
fn no_file_imports_a_sibling_that_imports_it_back_in_any_crate() {
    let folders = source_folders();
    assert!(folders.len() >= 7, "found only {folders:?}");
    let mut problems = Vec::new();
    let mut allowed_seen = vec![false; NOT_YET_UNTANGLED.len()];
    let mut edges = 0;
    for src in &folders {
        let folder = src
            .strip_prefix(root())
            .unwrap_or(src)
            .to_string_lossy()
            .replace('\\', "/");
        for (parent, children) in sibling_graph(src) {
            edges += children.values().map(BTreeSet::len).sum::<usize>();
            let at = if parent.is_empty() {
                "the crate root".to_string()
            } else {
                parent.join("::")
            };
            // Every cycle of this parent: report one, drop its first edge, look again.
            let mut children = children;
            while let Some(cycle) = find_cycle(&children) {
                if let Some(next) = children.get_mut(&cycle[0]) {
                    next.remove(&cycle[1]);
                }
                let allowed = NOT_YET_UNTANGLED.iter().position(|(f, p, files)| {
                    folder.ends_with(f)
                        && *p == at
                        && cycle.iter().all(|c| files.contains(&c.as_str()))
                });
                match allowed {
                    Some(i) => allowed_seen[i] = true,
                    None => problems.push(format!("{folder}: in {at}: {}", cycle.join(" -> "))),
                }
            }
        }
    }
    // The graph is really read: the app and the math crate have hundreds of sibling imports.
    assert!(edges > 200, "only {edges} sibling imports found");
    assert!(
        problems.is_empty(),
        "import cycles:\n{}",
        problems.join("\n")
    );
    for (seen, (folder, parent, _)) in allowed_seen.iter().zip(NOT_YET_UNTANGLED) {
        assert!(
            seen,
            "{folder}: {parent} has no cycle left: remove it from NOT_YET_UNTANGLED"
        );
    }
}

#[test]
fn the_cycle_finder_finds_a_planted_cycle_and_accepts_a_chain() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    assert_eq!(
        find_cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(
        find_cycle(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])),
        None
    );
}

#[test]
fn paths_are_read_through_crate_super_and_brace_groups() {
    let module: Vec<String> = ["ui", "pages", "quant", "state"].map(String::from).to_vec();
    let code = "use crate::ui::browser::now;\nuse super::{gpu_lab::GpuStatus, lab_upload};\nfn f() { super::super::memory::x(); }\n#[cfg(test)]\nuse crate::ui::shell;";
    let named = named_paths(&module, code);
    let as_text: Vec<String> = named.iter().map(|p| p.join("::")).collect();
    for want in [
        "ui::browser::now",
        "ui::pages::quant::gpu_lab::GpuStatus",
        "ui::pages::quant::lab_upload",
        "ui::pages::memory::x",
    ] {
        assert!(
            as_text.iter().any(|p| p == want),
            "no {want} in {as_text:?}"
        );
    }
    assert!(
        !as_text.iter().any(|p| p == "ui::shell"),
        "test code counted: {as_text:?}"
    );
}

#[test]
fn the_readme_is_short_and_the_licences_are_there() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(lines <= 150, "README.md is {lines} lines (at most 150)");
    for file in ["LICENSE-MIT", "LICENSE-APACHE"] {
        let text = std::fs::read_to_string(root().join(file)).unwrap_or_default();
        assert!(text.len() > 500, "{file} is missing or empty");
    }
    // Every local link of the README leads to a file.
    for part in readme.split("](").skip(1) {
        let target = part.split(')').next().unwrap_or("");
        if !target.starts_with("http") && !target.is_empty() {
            assert!(
                root().join(target).exists(),
                "README links to {target}, which does not exist"
            );
        }
    }
}

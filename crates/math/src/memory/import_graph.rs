//! The memory modules import each other without cycles: no file imports a file that (directly or
//! through others) imports it back. Read from the sources, so a new `use super::x` is checked too.

use std::collections::BTreeMap;

/// Each memory/*.rs module and the sibling modules it names with `super::`.
fn imports() -> BTreeMap<String, Vec<String>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/memory");
    let mut graph = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("memory/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("a readable source file");
        // Only the code before the unit tests: tests may reach anywhere.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let mut deps: Vec<String> = code
            .match_indices("super::")
            .map(|(i, _)| {
                code[i + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect::<String>()
            })
            .filter(|d| !d.is_empty() && *d != "super" && *d != name)
            .collect();
        deps.sort();
        deps.dedup();
        graph.insert(name, deps);
    }
    graph
}

/// A cycle through `node`, if one exists (depth-first search with the path on a stack).
fn cycle(
    graph: &BTreeMap<String, Vec<String>>,
    node: &str,
    path: &mut Vec<String>,
) -> Option<Vec<String>> {
    if let Some(at) = path.iter().position(|p| p == node) {
        let mut c = path[at..].to_vec();
        c.push(node.into());
        return Some(c);
    }
    path.push(node.into());
    for dep in graph.get(node).into_iter().flatten() {
        if let Some(c) = cycle(graph, dep, path) {
            return Some(c);
        }
    }
    path.pop();
    None
}

#[test]
fn no_memory_module_imports_one_that_imports_it_back() {
    let graph = imports();
    assert!(graph.len() >= 15, "found only {:?}", graph.keys());
    assert!(graph["estimate"].contains(&"model_states".to_string()));
    for node in graph.keys() {
        if let Some(c) = cycle(&graph, node, &mut Vec::new()) {
            panic!("import cycle: {}", c.join(" -> "));
        }
    }
}

#[test]
fn the_cycle_finder_finds_a_planted_cycle() {
    let graph: BTreeMap<String, Vec<String>> = [("a", "b"), ("b", "c"), ("c", "a")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), vec![v.to_string()]))
        .collect();
    assert_eq!(
        cycle(&graph, "a", &mut Vec::new()),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}

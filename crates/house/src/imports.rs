//! The import graph of a crate's source files, read from their text: which sibling module each
//! file names (through `crate::`, `super::` or a `use` group), and the cycles among siblings.
//!
//! A file's module path comes from where it lies (`src/quant/ggml/fast.rs` is `quant::ggml::fast`).
//! A file that names a path inside a sibling's folder counts as naming the sibling, so a cycle is
//! found at the level where two folders or files depend on each other. Code after the first
//! `#[cfg(test)]` is left out (unit tests may reach anywhere), and so are comments. Paths through re-exports (a type
//! named through its parent module) are not followed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path inside one crate, as its segments (`["quant", "ggml"]`; the crate root is empty).
pub type ModulePath = Vec<String>;

/// Sibling edges: for each parent module, which child imports which other child.
pub type SiblingGraph = BTreeMap<ModulePath, BTreeMap<String, BTreeSet<String>>>;

/// Every `.rs` file under `src` with its module path (`lib.rs`, `main.rs` and `mod.rs` stand for
/// their folder). Unreadable folders give an empty list.
pub fn module_files(src: &Path) -> Vec<(ModulePath, PathBuf)> {
    let mut out = Vec::new();
    walk(src, &mut Vec::new(), &mut out);
    out.sort();
    out
}

fn walk(dir: &Path, prefix: &mut ModulePath, out: &mut Vec<(ModulePath, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            prefix.push(name);
            walk(&path, prefix, out);
            prefix.pop();
        } else if let Some(stem) = name.strip_suffix(".rs") {
            let mut module = prefix.clone();
            let root =
                matches!(stem, "lib" | "main" | "mod") && (stem == "mod" || prefix.is_empty());
            if !root {
                module.push(stem.to_string());
            }
            out.push((module, path));
        }
    }
}

/// The module paths (inside the crate) a file's code names: `crate::a::b`, `super::c`, and each
/// member of a brace group after either (`crate::a::{b, c}`).
pub fn named_paths(module: &[String], code: &str) -> Vec<ModulePath> {
    let code = code.split("#[cfg(test)]").next().unwrap_or("");
    // Comments (doc links included) name paths without importing them.
    let code: String = code
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let code = code.as_str();
    let mut out = Vec::new();
    for (start, base) in [("crate::", Vec::new()), ("super::", parent(module))] {
        for (i, _) in code.match_indices(start) {
            // `super::` inside `crate::a::super::`-like text cannot occur; skip `self::super::`.
            let rest = &code[i + start.len()..];
            let mut path = base.clone();
            let mut tail = rest;
            let mut supers = rest;
            while let Some(r) = supers.strip_prefix("super::") {
                path.pop();
                supers = r;
                tail = r;
            }
            if let Some(group) = tail.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                for item in inner.split(',') {
                    let mut p = path.clone();
                    p.extend(segments(item.trim()));
                    out.push(p);
                }
            } else {
                let mut p = path.clone();
                p.extend(segments(tail));
                out.push(p);
            }
        }
    }
    out
}

/// The leading `ident::ident::…` segments of a path text (a trailing `{` group is left out).
fn segments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let ident: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if ident.is_empty() {
            break;
        }
        rest = &rest[ident.len()..];
        out.push(ident);
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    out
}

fn parent(module: &[String]) -> ModulePath {
    module[..module.len().saturating_sub(1)].to_vec()
}

/// The sibling graph of one crate's `src` folder, keeping only paths that lead to a real module
/// file of the crate.
pub fn sibling_graph(src: &Path) -> SiblingGraph {
    let files = module_files(src);
    let modules: BTreeSet<ModulePath> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut graph = SiblingGraph::new();
    for (module, path) in &files {
        let Ok(code) = std::fs::read_to_string(path) else {
            continue;
        };
        for named in named_paths(module, &code) {
            // The longest prefix of the named path that is a module file.
            let Some(target) = (1..=named.len())
                .rev()
                .map(|n| named[..n].to_vec())
                .find(|p| modules.contains(p))
            else {
                continue;
            };
            let common = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if common < module.len() && common < target.len() {
                graph
                    .entry(module[..common].to_vec())
                    .or_default()
                    .entry(module[common].clone())
                    .or_default()
                    .insert(target[common].clone());
            }
        }
    }
    graph
}

/// A cycle among the children of one parent, as the names along it (the first repeated at the
/// end), if there is one.
pub fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        edges: &BTreeMap<String, BTreeSet<String>>,
        node: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(c) = visit(edges, next, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|start| visit(edges, start, &mut Vec::new(), &mut done))
}

//! The module graph stays a hierarchy: no top-level module of the library
//! reaches, through `crate::` paths, a module that reaches back to it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::util::repo;

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Top-level module -> the top-level modules its files name as `crate::x`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = repo().join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        let top = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        if top == "lib" || top == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let uses = graph.entry(top.clone()).or_default();
        for (i, _) in text.match_indices("crate::") {
            let name: String = text[i + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != top {
                uses.insert(name);
            }
        }
    }
    graph
}

/// A cycle through `from`, if any: the path back to it.
fn cycle_from(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    let mut stack = vec![vec![from.to_owned()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last().unwrap();
        for next in graph.get(last).into_iter().flatten() {
            if next == from {
                let mut cycle = path.clone();
                cycle.push(next.clone());
                return Some(cycle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push(longer);
            }
        }
    }
    None
}

#[test]
fn no_top_level_module_imports_itself_through_another() {
    let graph = module_graph();
    assert!(graph.len() > 10, "the graph was read: {graph:?}");
    assert!(
        graph["commands"].contains("runner"),
        "the reader sees imports"
    );
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|m| cycle_from(&graph, m))
        .map(|c| c.join(" -> "))
        .collect();
    assert!(cycles.is_empty(), "import cycles: {cycles:#?}");
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut graph = BTreeMap::new();
    graph.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    graph.insert("b".to_owned(), BTreeSet::from(["c".to_owned()]));
    graph.insert("c".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert_eq!(
        cycle_from(&graph, "a").unwrap(),
        ["a", "b", "c", "a"].map(String::from)
    );
    graph.get_mut("c").unwrap().clear();
    assert_eq!(cycle_from(&graph, "a"), None);
}

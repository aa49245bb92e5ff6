//! The module graph stays a hierarchy at every level: in every folder of
//! the library, no module (a file, or a folder with everything in it)
//! reaches a sibling that reaches back to it. Two edges are refused
//! outright: one battle system importing another, and a system's plain
//! reference importing its fast battle. And no code outside a system's
//! folder and the registry reaches a system by name, but the war cards'
//! own deck tools. Each reads code: comments, strings and character
//! literals are blanked first ([`code_of`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::util::repo;

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src`: `systems/gurps/mod.rs` is
/// `systems::gurps`, `lib.rs` and `main.rs` the crate root.
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().unwrap();
    let stem = file.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_owned());
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths a text names from `crate::`, `super::` or `self::`, made
/// absolute for a file of module `module`. A brace group adds one path per
/// item. (Inside a file's inline `mod tests`, `super::` is the file itself:
/// read as its parent, such a path names the parent's item, not a module,
/// and is dropped.)
fn named_paths(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let start_ok = i == 0 || !is_ident(bytes[i - 1] as char) && bytes[i - 1] != b':';
        let base: Option<(Vec<String>, usize)> = if !start_ok {
            None
        } else if rest.starts_with("crate::") {
            Some((Vec::new(), "crate::".len()))
        } else if rest.starts_with("super::") || rest.starts_with("self::") {
            // `self` of a file is its module; `super` its parent.
            let mut base = module.to_vec();
            let at = if rest.starts_with("self::") {
                "self::".len()
            } else {
                base.pop();
                "super::".len()
            };
            let mut at = at;
            while text[i + at..].starts_with("super::") {
                base.pop();
                at += "super::".len();
            }
            Some((base, at))
        } else {
            None
        };
        let Some((base, at)) = base else {
            i += rest.chars().next().unwrap().len_utf8();
            continue;
        };
        let mut path = base;
        let mut j = i + at;
        loop {
            let name: String = text[j..].chars().take_while(|&c| is_ident(c)).collect();
            if !name.is_empty() {
                path.push(name.clone());
                j += name.len();
                if text[j..].starts_with("::") {
                    j += 2;
                    continue;
                }
                out.push(path);
                break;
            }
            if text[j..].starts_with('{') {
                // One path per top-level item of the group: its first name.
                for item in group_items(&text[j + 1..]) {
                    let first: String = item.trim().chars().take_while(|&c| is_ident(c)).collect();
                    if !first.is_empty() && first != "self" {
                        let mut p = path.clone();
                        p.push(first);
                        out.push(p);
                    }
                }
            } else {
                out.push(path);
            }
            break;
        }
        i = j.max(i + 1);
    }
    out
}

/// The top-level items of a brace group whose text starts after its `{`.
fn group_items(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut items) = (0, 0, Vec::new());
    for (k, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&text[start..k]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    items
}

/// Per folder (as a module path), its children's edges: child -> the
/// siblings it names, counting everything inside a child folder as it.
type Graphs = BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>>;

fn module_graphs() -> Graphs {
    let src = repo().join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let modules: Vec<(Vec<String>, String)> = files
        .iter()
        .map(|f| {
            let relative = f.strip_prefix(&src).unwrap();
            (
                module_of(relative),
                code_of(&std::fs::read_to_string(f).unwrap()),
            )
        })
        .collect();
    // Every module and folder, so a name that is an item is not taken for one.
    let known: BTreeSet<Vec<String>> = modules
        .iter()
        .flat_map(|(m, _)| (1..=m.len()).map(|k| m[..k].to_vec()))
        .collect();
    let mut graphs = Graphs::new();
    for (module, text) in &modules {
        let from = module.as_slice();
        if let Some((name, folder)) = from.split_last() {
            // Every module is a node of its folder, even with no edges.
            graphs
                .entry(folder.to_vec())
                .or_default()
                .entry(name.clone())
                .or_default();
        }
        for to in named_paths(text, module) {
            // A module naming its own descendants (a mod.rs its children)
            // or ancestors makes no sibling edge.
            let shared = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if shared >= from.len() || shared >= to.len() {
                continue;
            }
            let target = to[..=shared].to_vec();
            if !known.contains(&target) {
                continue;
            }
            graphs
                .entry(from[..shared].to_vec())
                .or_default()
                .entry(from[shared].clone())
                .or_default()
                .insert(to[shared].clone());
        }
    }
    graphs
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

fn folder_name(folder: &[String]) -> String {
    if folder.is_empty() {
        "src".to_owned()
    } else {
        format!("src/{}", folder.join("/"))
    }
}

#[test]
fn no_module_imports_itself_through_a_sibling_at_any_level() {
    let graphs = module_graphs();
    let top = &graphs[&Vec::new()];
    assert!(top.len() > 8, "the top level was read: {top:?}");
    assert!(
        top["commands"].contains("analysis"),
        "the reader sees imports"
    );
    let gurps = &graphs[&vec!["systems".to_owned(), "gurps".to_owned()]];
    assert!(
        gurps["battle"].contains("survival") && gurps["exact"].contains("success"),
        "sibling imports are seen: {gurps:?}"
    );
    for folder in [
        "commands",
        "report",
        "serve",
        "systems/gurps",
        "systems/seventh_sea",
    ] {
        let path: Vec<String> = folder.split('/').map(String::from).collect();
        assert!(
            graphs.contains_key(&path),
            "{folder} was read: {:?}",
            graphs.keys()
        );
    }
    let mut cycles = Vec::new();
    for (folder, graph) in &graphs {
        for m in graph.keys() {
            if let Some(c) = cycle_from(graph, m) {
                cycles.push(format!("{}: {}", folder_name(folder), c.join(" -> ")));
            }
        }
    }
    assert!(cycles.is_empty(), "import cycles: {cycles:#?}");
}

#[test]
fn systems_never_import_each_other_and_references_never_import_the_fast_battle() {
    let graphs = module_graphs();
    let systems = &graphs[&vec!["systems".to_owned()]];
    let names = warcrunch::systems::SYSTEMS;
    for &a in names {
        for &b in names {
            assert!(
                !systems.get(a).is_some_and(|e| e.contains(b)),
                "systems/{a} imports systems/{b}"
            );
        }
    }
    // Every system whose fast loop is a file of its own (`battle.rs`)
    // beside its plain reference: the registry's systems, not a list here.
    let mut checked = 0;
    for (folder, graph) in &graphs {
        let [top, system] = folder.as_slice() else {
            continue;
        };
        if top != "systems" || !graph.contains_key("battle") {
            continue;
        }
        assert!(graph.contains_key("reference"), "{system} has a reference");
        assert!(
            !graph["reference"].contains("battle"),
            "systems/{system}/reference.rs imports the fast battle: {:?}",
            graph["reference"]
        );
        checked += 1;
    }
    assert!(checked > 0, "no system's fast loop was found");
}

/// The report room's layers, lowest first: a layer draws only on those
/// below it.
const REPORT_LAYERS: [&str; 4] = ["kit", "exporters", "findings", "writers"];

#[test]
fn the_report_room_is_four_layer_folders_each_drawing_only_on_those_below() {
    let graphs = module_graphs();
    let report = &graphs[&vec!["report".to_owned()]];
    let rooms: BTreeSet<&str> = report.keys().map(String::as_str).collect();
    assert_eq!(
        rooms,
        BTreeSet::from(REPORT_LAYERS),
        "src/report holds its layers' folders and nothing else beside mod.rs"
    );
    for (k, layer) in REPORT_LAYERS.iter().enumerate() {
        let above: Vec<&&str> = (report[*layer].iter())
            .filter_map(|to| REPORT_LAYERS[k..].iter().find(|l| **l == to.as_str()))
            .collect();
        assert!(
            above.is_empty(),
            "src/report/{layer} imports {above:?}, a layer not below it"
        );
    }
    // The reader sees the layers' imports.
    assert!(report["writers"].contains("kit") && report["findings"].contains("exporters"));
    // Each layer is a folder of files, none a file of its own.
    for layer in REPORT_LAYERS {
        assert!(
            repo()
                .join("src/report")
                .join(layer)
                .join("mod.rs")
                .is_file(),
            "src/report/{layer}/ is a folder"
        );
    }
}
#[test]
fn the_reader_resolves_relative_and_grouped_paths() {
    let module = ["systems", "gurps", "battle"].map(String::from);
    let paths = named_paths(
        "use super::{casualties::{self, x}, glory};\nuse crate::engine::dice::Digits; let a = b::super_thing;",
        &module,
    );
    let want: Vec<Vec<String>> = vec![
        vec!["systems", "gurps", "casualties"],
        vec!["systems", "gurps", "glory"],
        vec!["engine", "dice", "Digits"],
    ]
    .into_iter()
    .map(|p| p.into_iter().map(String::from).collect())
    .collect();
    assert_eq!(paths, want);
    let in_mod = named_paths("use self::battle::Laws;", &["systems".to_owned()]);
    assert_eq!(
        in_mod,
        vec![["systems", "battle", "Laws"].map(String::from).to_vec()]
    );
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

/// The files outside `src/systems/` that reach one system by name: the war
/// cards' deck tools, which no other system has (`warcrunch cards`, the
/// deck designer and its skew report).
const DECK_TOOLS: [&str; 5] = [
    "commands/cards.rs",
    "report/findings/deck.rs",
    "report/writers/html.rs",
    "report/writers/skew.rs",
    "serve/designer.rs",
];

/// A system's type name from its scenario name: `seventh_sea` → `SeventhSea`.
fn type_name(system: &str) -> String {
    system
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// The code of a Rust file: its comments (doc comments too) and the text
/// of its string and character literals blanked, so that a word in prose
/// or in a message is not taken for a use.
fn code_of(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while i < chars.len() {
        if at(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if at(i, "/*") {
            let mut depth = 0;
            while i < chars.len() {
                if at(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if at(i, "*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if chars[i] == 'r'
            && (at(i + 1, "\"") || at(i + 1, "#"))
            && !(i > 0 && is_ident(chars[i - 1]))
        {
            // A raw string: r"…", r#"…"#, …
            let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(chars[i]);
                i += 1;
                continue;
            }
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            i += 2 + hashes;
            while i < chars.len() && !at(i, &close) {
                i += 1;
            }
            i += close.len();
            out.push_str("\"\"");
        } else if chars[i] == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if chars[i] == '\''
            && (chars.get(i + 2) == Some(&'\'') || chars.get(i + 1) == Some(&'\\'))
        {
            // A character literal ('x', '\n'); a lifetime ('a) is code.
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Whether `text` holds `word` with no identifier character either side.
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

#[test]
fn no_code_outside_a_systems_folder_reaches_a_system_by_name() {
    let src = repo().join("src");
    // Every system, the one compiled only in tests too: a folder of
    // `src/systems/` each.
    let systems: Vec<String> = std::fs::read_dir(src.join("systems"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for system in warcrunch::systems::SYSTEMS {
        assert!(systems.iter().any(|s| s == system), "{system} has a folder");
    }
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        let shown = relative.display().to_string();
        if shown.starts_with("systems/") || DECK_TOOLS.contains(&shown.as_str()) {
            continue;
        }
        let text = code_of(&std::fs::read_to_string(&file).unwrap());
        for system in &systems {
            for name in [format!("systems::{system}"), type_name(system)] {
                if has_word(&text, &name) {
                    found.push(format!("{shown}: {name}"));
                }
            }
        }
    }
    assert!(found.is_empty(), "a system reached by name: {found:#?}");
    assert!(has_word(
        "use crate::systems::gurps::Gurps;",
        "systems::gurps"
    ));
    assert!(!has_word("seventh_seas", "seventh_sea"));
    // Prose and messages are not code: comments, strings and characters.
    let code = code_of(
        "/// the Gurps way\nlet a = Gurps::new(\"Gurps\", r#\"Gurps\"#, '\"'); // Gurps\n/* Gurps */ fn f<'a>(x: &'a str) {}",
    );
    assert_eq!(
        code,
        "\nlet a = Gurps::new(\"\", \"\", ' '); \n fn f<'a>(x: &'a str) {}"
    );
    assert_eq!(type_name("seventh_sea"), "SeventhSea");
}

#[test]
fn the_test_system_is_named_only_in_its_folders_and_its_one_registered_line() {
    // A new system is its folder, its scenario and table files, its line of
    // `registered!` and its tests: the dice duel, kept to those steps,
    // shows it. Every other file of code must not name it.
    let root = repo();
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        sources(&root.join(dir), &mut files);
    }
    files.push(root.join("build.rs"));
    let own = [
        root.join("src/systems/dice_duel"),
        root.join("tests/dice_duel"),
    ];
    let mut lines = Vec::new();
    for file in files
        .iter()
        .filter(|f| !own.iter().any(|o| f.starts_with(o)))
    {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for line in code.lines() {
            if has_word(line, "dice_duel") || has_word(line, "DiceDuel") {
                let shown = file.strip_prefix(&root).unwrap().display();
                lines.push(format!("{shown}: {}", line.trim()));
            }
        }
    }
    assert_eq!(
        lines,
        ["src/systems/mod.rs: dice_duel::DiceDuel,"],
        "the dice duel is named outside its folders"
    );
}

/// Every test file in `tests/` is a module of the one test binary, found
/// when it is built (`automod::dir!` in `tests/main.rs`): no list names
/// them. Cargo does not watch the folder, so a file added since the last
/// build is caught here: its tests are not in this binary's list.
#[test]
fn every_test_file_is_compiled_in_and_no_list_names_them() {
    let main = std::fs::read_to_string(repo().join("tests/main.rs")).unwrap();
    let code = code_of(&main);
    assert!(
        code.contains("automod::dir!(") && !code.lines().any(|l| l.trim_start().starts_with("mod ")),
        "tests/main.rs finds the test files itself and names none: {main}"
    );
    let listed = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--list", "--format", "terse"])
        .output()
        .unwrap();
    let listed = String::from_utf8(listed.stdout).unwrap();
    let modules: BTreeSet<&str> = (listed.lines())
        .filter_map(|l| l.split_once("::").map(|(m, _)| m))
        .collect();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(repo().join("tests")).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if path.extension().is_some_and(|e| e == "rs") && text.contains("#[test]") {
            files.push(stem);
        }
    }
    assert!(files.len() > 30, "the test files were read: {files:?}");
    let missing: Vec<&String> = files.iter().filter(|f| !modules.contains(f.as_str())).collect();
    assert!(
        missing.is_empty(),
        "test files not compiled into this binary (cargo does not watch tests/: `touch tests/main.rs` and build again): {missing:?}"
    );
}

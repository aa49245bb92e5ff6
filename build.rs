//! Facts about this machine that decide whether two tests can run, so a
//! test that cannot is reported as ignored in the test summary (with its
//! reason) instead of passing silently:
//!
//! - `seeds_absent`: the source documents are not beside the repository
//!   (`../shared/seeds`), so the deck's transcription cannot be checked
//!   against them;
//! - `browser_absent`: no Chromium to drive the workbench's page.
//!
//! Under `CI=true` (or `WARCRUNCH_REQUIRE_SEEDS` for the seeds) neither is
//! set: the tests run and a missing seed or browser fails them.
//!
//! It also records the git commit the binary is built from as
//! `WARCRUNCH_COMMIT` (`run.json`'s `tool_commit`): the short hash, with
//! `-modified` when tracked files differ from it, or `unknown` outside git.
//!
//! And it finds the files compiled into the binary by walking their
//! folders (`embedded.rs` in `OUT_DIR`), so a battle or a table is added by
//! adding its file: the bundled scenarios (`scenarios/SYSTEM/*.toml`) and
//! the built-in tables (`scenarios/tables/`, each named by its `kind` key,
//! its system by its folder or, at the top, its file name); and, for tests
//! only, the same folders under `tests/dice_duel/` (the dice duel, the
//! system compiled only in tests). A system's starter is its own
//! (`src/systems/SYSTEM/starter.toml`, the contract's `STARTER`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(seeds_absent)");
    println!("cargo::rustc-check-cfg=cfg(browser_absent)");
    println!("cargo::rerun-if-changed=build.rs");
    for variable in ["CI", "WARCRUNCH_REQUIRE_SEEDS", "CHROMIUM", "PATH"] {
        println!("cargo::rerun-if-env-changed={variable}");
    }
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0");
    let ci = std::env::var("CI").is_ok();
    let seeds = Path::new("../shared/seeds/004_090f5eee1dd0a3ae.txt").exists();
    if !seeds && !ci && !set("WARCRUNCH_REQUIRE_SEEDS") {
        println!("cargo::rustc-cfg=seeds_absent");
    }
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()))
    };
    let browser = set("CHROMIUM")
        || ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .any(|name| on_path(name));
    if !browser && !ci {
        println!("cargo::rustc-cfg=browser_absent");
    }
    println!("cargo::rustc-env=WARCRUNCH_COMMIT={}", commit());
    embedded();
}

/// The `.toml` files of `dir` (not its subfolders), sorted by name.
fn tomls(dir: &Path) -> Vec<PathBuf> {
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|e| e == "toml"))
        .collect();
    found.sort();
    found
}

/// The subfolders of `dir`, sorted by name.
fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.is_dir())
        .collect();
    found.sort();
    found
}

/// A file's name as written in the generated code.
fn stem(path: &Path) -> String {
    path.file_stem()
        .expect("a file name")
        .to_string_lossy()
        .into_owned()
}

/// Writes `embedded.rs`: `BUNDLED` (path under `scenarios/`, text) and
/// `TABLES` (kind, system, path under `scenarios/tables/`, text), each
/// sorted by path. The files of the
/// system compiled only in tests (`tests/dice_duel/`, laid out as the
/// repository is) follow, each marked `#[cfg(test)]`.
fn embedded() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let mut found = Found::default();
    found.walk(&root, "");
    // A package without its tests (and so without this folder) builds too.
    let test_system = root.join("tests/dice_duel");
    if test_system.is_dir() {
        found.walk(&test_system, "#[cfg(test)] ");
    }
    let mut code = String::new();
    let mut list = |doc: &str, head: &str, items: &[String]| {
        let _ = writeln!(code, "/// {doc}\npub const {head} = &[");
        for item in items {
            let _ = writeln!(code, "    {item},");
        }
        code.push_str("];\n");
    };
    list(
        "Every bundled scenario: its path under `scenarios/` and its text.",
        "BUNDLED: &[(&str, &str)]",
        &found.bundled,
    );
    list(
        "Every built-in table: its kind, system, path under `scenarios/tables/` and text.",
        "TABLES: &[(&str, &str, &str, &str)]",
        &found.tables,
    );
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("embedded.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}

/// The entries of `embedded.rs`, as Rust expressions, and each table kind
/// with its file.
#[derive(Default)]
struct Found {
    bundled: Vec<String>,
    tables: Vec<String>,
    kinds: Vec<(String, PathBuf)>,
}

impl Found {
    /// Adds the files under `root`'s `scenarios/`,
    /// each entry preceded by `cfg` (an attribute, or nothing).
    fn walk(&mut self, root: &Path, cfg: &str) {
        let scenarios = root.join("scenarios");
        let tables = scenarios.join("tables");
        let include = |path: &Path| format!("include_str!({:?})", path.display().to_string());
        for folder in folders(&scenarios) {
            let system = stem(&folder);
            if system == "tables" || system == "schema" {
                continue;
            }
            for file in tomls(&folder) {
                let name = format!(
                    "{system}/{}",
                    file.file_name().expect("a file").to_string_lossy()
                );
                self.bundled
                    .push(format!("{cfg}({name:?}, {})", include(&file)));
            }
        }
        let mut files: Vec<(String, PathBuf)> =
            tomls(&tables).into_iter().map(|f| (stem(&f), f)).collect();
        for folder in folders(&tables) {
            files.extend(tomls(&folder).into_iter().map(|f| (stem(&folder), f)));
        }
        files.sort_by(|a, b| a.1.cmp(&b.1));
        for (system, file) in files {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let kind = text
                .lines()
                .find_map(|line| {
                    let value = line.strip_prefix("kind")?.trim_start().strip_prefix('=')?;
                    Some(value.trim().trim_matches('"').to_owned())
                })
                .unwrap_or_else(|| panic!("{}: a built-in table names its `kind`", file.display()));
            // A table is named by its kind everywhere (`--table NAME=FILE`,
            // `[tables]`): two files of one kind would be one name for two tables.
            if let Some((_, other)) = self.kinds.iter().find(|(k, _)| *k == kind) {
                panic!(
                    "{}: kind `{kind}` is already the kind of {}; table kinds are one namespace across systems, so give one of them another",
                    file.display(),
                    other.display()
                );
            }
            self.kinds.push((kind.clone(), file.clone()));
            let path = file
                .strip_prefix(&tables)
                .expect("under scenarios/tables")
                .display()
                .to_string();
            self.tables.push(format!(
                "{cfg}({kind:?}, {system:?}, {path:?}, {})",
                include(&file)
            ));
        }
    }
}

/// The commit of the work tree, or `unknown`.
///
/// Watched so that a new commit records it anew and nothing else does: the
/// ref that moves (the branch `HEAD` names, loose or packed) and `HEAD`
/// itself, never the index, which `git status` and `git add` rewrite. An
/// edit to what the binary is built from rebuilds the crate anyway, and
/// the script reruns with it to add `-modified`. The folders of scenarios
/// are watched by [`tomls`], one by one, so regenerating
/// `scenarios/schema/` compiles nothing.
fn commit() -> String {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let Some(hash) = git(&["rev-parse", "--short=12", "HEAD"]) else {
        return "unknown".to_owned();
    };
    let mut moving = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    moving.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in moving {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            let path = Path::new(&path);
            if path.exists() {
                println!("cargo::rerun-if-changed={}", path.display());
            }
        }
    }
    for watched in ["src", "templates", "assets", "Cargo.toml"] {
        println!("cargo::rerun-if-changed={watched}");
    }
    let modified = git(&["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|changes| !changes.is_empty());
    if modified {
        format!("{hash}-modified")
    } else {
        hash
    }
}

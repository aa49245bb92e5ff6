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

use std::path::Path;
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
}

/// The commit of the work tree, or `unknown`; watched so that a new
/// commit, or an edit to what the binary is built from, records it anew.
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
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        for file in ["HEAD", "index"] {
            let path = Path::new(&dir).join(file);
            if path.exists() {
                println!("cargo::rerun-if-changed={}", path.display());
            }
        }
    }
    for watched in ["src", "templates", "assets", "scenarios", "Cargo.toml"] {
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

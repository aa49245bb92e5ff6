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

use std::path::Path;

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
}

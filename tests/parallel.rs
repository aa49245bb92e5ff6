//! The GNU parallel recipe of docs/usage.md (`docs/recipes/parallel/`), run
//! as it is with this machine as the host (`-S :`): the merged CSV is the
//! single run's, byte for byte, for a scenario whose path has a space.
//!
//! Needs Debian's `parallel` (`.ci/run` installs it). Without it the test
//! says so loudly and passes, except under `CI=true`, where it fails.

use std::process::Command;

use crate::util::{path_with_warcrunch, repo, skipped, warcrunch};

#[test]
fn the_parallel_recipe_merges_to_the_single_runs_bytes() {
    let has_parallel = Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_parallel {
        skipped("GNU parallel test: apt-get install parallel");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let work = work.path();
    let scenario = work.join("my ambush.toml");
    std::fs::copy(
        repo().join("scenarios/gurps/ambush_at_the_ford.toml"),
        &scenario,
    )
    .unwrap();
    let args = ["run", "my ambush.toml", "--trials", "60000", "--seed", "4"];
    warcrunch()
        .current_dir(work)
        .args(args)
        .args(["--quiet", "--out", "single"])
        .assert()
        .success();
    let out = Command::new(repo().join("docs/recipes/parallel/shards.sh"))
        .current_dir(work)
        .env("PATH", path_with_warcrunch())
        .args([":", "3", "parts", "merged"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["distributions.csv", "summary.csv"] {
        assert!(
            std::fs::read(work.join("single").join(name)).unwrap()
                == std::fs::read(work.join("merged").join(name)).unwrap(),
            "{name} differs"
        );
    }
}

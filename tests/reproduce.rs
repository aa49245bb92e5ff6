//! Every record's "reproduce with" line, pasted into a shell, writes the
//! same files: for each command, the line from `run.json` is run by `sh`
//! and every table it writes is compared byte for byte.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::{path_with_warcrunch, read, repo, warcrunch};

/// Every file under `dir` (relative path → bytes), the run record and the
/// page (which hold timings) and pictures left out.
fn tables_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e == "csv" || e == "parquet")
            {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                files.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// Runs `args` in `work` into `work/first`, then the command its run.json
/// records through `sh`: the same tables, byte for byte, in the folder the
/// line names; returns the line.
fn reproduces(work: &Path, args: &[&str]) -> String {
    let first = work.join("first");
    warcrunch()
        .current_dir(work)
        .args(args)
        .args(["--quiet", "--out", "first"])
        .assert()
        .success();
    let record: serde_json::Value = serde_json::from_str(&read(&first.join("run.json"))).unwrap();
    let line = record["command"].as_str().unwrap().to_owned();
    let before = tables_under(&first);
    assert!(!before.is_empty(), "{args:?} wrote no table");
    let kept = work.join("kept");
    std::fs::rename(&first, &kept).unwrap();
    let status = std::process::Command::new("sh")
        .current_dir(work)
        .env("PATH", path_with_warcrunch())
        .args(["-c", &format!("{line} --quiet")])
        .status()
        .unwrap();
    assert!(status.success(), "{line}");
    let again = tables_under(&first);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        again.keys().collect::<Vec<_>>(),
        "{line}: the same files"
    );
    for (name, bytes) in &before {
        assert!(again[name] == *bytes, "{line}: {name} differs");
    }
    std::fs::remove_dir_all(&kept).unwrap();
    std::fs::remove_dir_all(&first).unwrap();
    line
}

fn scenario(path: &str) -> String {
    repo().join("scenarios").join(path).display().to_string()
}

#[test]
fn every_commands_reproduce_line_writes_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    // A table file whose name the shell would split.
    let glory = work.join("my glory.toml");
    std::fs::copy(repo().join("scenarios/tables/gurps/glory.toml"), &glory).unwrap();
    let glory_table = format!("glory={}", glory.display());
    let ambush = scenario("gurps/ambush_at_the_ford.toml");
    let siege = scenario("gurps/siege_assault.toml");
    let even = scenario("seventh_sea/even_field_battle.toml");
    let knights = scenario("war_cards/knights_vs_pikes.toml");

    let line = reproduces(
        work,
        &[
            "run",
            &ambush,
            "--trials",
            "3000",
            "--seed",
            "4",
            "--format",
            "csv,parquet",
            "--table",
            &glory_table,
            "--target",
            "hero:Titus/state=down|dead",
        ],
    );
    assert!(line.contains("--format csv,parquet"), "{line}");
    reproduces(
        work,
        &["run", &even, &knights, "--trials", "2000", "--exact"],
    );
    reproduces(
        work,
        &[
            "sweep",
            &ambush,
            "--set",
            "heroes.Titus.risk=-2,2",
            "--trials",
            "2000",
        ],
    );
    reproduces(
        work,
        &[
            "compare", &ambush, &siege, "--trials", "2000", "--seed", "9",
        ],
    );
    // A folder, as `run` takes one: its three battles, each named.
    let folder = repo().join("scenarios/gurps").display().to_string();
    let line = reproduces(work, &["compare", &folder, "--trials", "1000"]);
    assert_eq!(line.matches(".toml").count(), 3, "{line}");
    reproduces(
        work,
        &[
            "compare",
            &ambush,
            &siege,
            "--table",
            &format!("glory=builtin,{}", glory.display()),
            "--trials",
            "2000",
        ],
    );
    let line = reproduces(
        work,
        &[
            "sensitivity",
            &ambush,
            "--target",
            "hero:Titus/state=down|dead",
            "--cells",
            "--tables",
            "glory",
            "--trials",
            "1000",
        ],
    );
    assert!(line.contains("--cells --tables glory"), "{line}");
    let line = reproduces(
        work,
        &[
            "solve",
            &siege,
            "--vary",
            "sides.Garrison.troop_strength=100..40000",
            "--balance",
            "side:Imperial army",
            "--exact",
        ],
    );
    assert!(line.contains("'side:Imperial army'"), "{line}");
    // Means as targets.
    reproduces(
        work,
        &[
            "sensitivity",
            &even,
            "--target",
            "hero:Isabeau/reputation:mean",
            "--knobs",
            "heroes.Isabeau.finesse",
            "--trials",
            "1000",
        ],
    );
    reproduces(
        work,
        &[
            "solve",
            &even,
            "--vary",
            "heroes.Isabeau.finesse=1..5",
            "--target",
            "hero:Isabeau/reputation:mean",
            "--at-least",
            "8",
            "--max-trials",
            "20000",
        ],
    );
}

/// A several-battle run's record runs the whole run again with
/// `run --from`, into the folder and formats it names.
#[test]
fn a_several_battle_runs_record_runs_again_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let (even, siege) = (
        scenario("seventh_sea/even_field_battle.toml"),
        scenario("gurps/siege_assault.toml"),
    );
    warcrunch()
        .current_dir(work)
        .args([
            "run", &even, &siege, "--trials", "2000", "--format", "parquet",
        ])
        .args(["--quiet", "--out", "first"])
        .assert()
        .success();
    warcrunch()
        .current_dir(work)
        .args([
            "run",
            "--quiet",
            "--from",
            "first/run.json",
            "--out",
            "again",
        ])
        .assert()
        .success();
    let (a, b) = (
        tables_under(&work.join("first")),
        tables_under(&work.join("again")),
    );
    assert!(a.keys().any(|k| k.ends_with(".parquet")), "{:?}", a.keys());
    assert!(
        !a.keys().any(|k| k.ends_with(".csv")),
        "parquet alone: {:?}",
        a.keys()
    );
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
}

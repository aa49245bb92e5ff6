//! Runs that spread over processes (`--shard` + `merge`) and runs that stop
//! at a precision (`--precision`): both give exactly the files one run would.

use std::path::Path;

use predicates::prelude::*;

use crate::util::{csv_rows, number, read, repo, warcrunch};

const CSVS: [&str; 2] = ["distributions.csv", "summary.csv"];

/// Runs `args` on the ambush scenario into `out`.
fn ambush(out: &Path, args: &[&str]) {
    warcrunch()
        .args(["run", "scenarios/gurps/ambush_at_the_ford.toml", "--quiet"])
        .args(["--trials", "250000", "--seed", "11"])
        .args(args)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
}

#[test]
fn four_shards_merged_equal_the_single_run_byte_for_byte() {
    let root = tempfile::tempdir().unwrap();
    let whole = root.path().join("whole");
    ambush(&whole, &["--format", "csv,parquet"]);
    let mut parts = Vec::new();
    for i in 0..4 {
        let part = root.path().join(format!("part{i}"));
        // Separate processes, each with its own thread count.
        ambush(
            &part,
            &[
                "--shard",
                &format!("{i}/4"),
                "--threads",
                &format!("{}", 1 + i % 2),
                "--format",
                "csv,parquet",
            ],
        );
        assert!(part.join("partial.json").exists());
        assert!(
            !part.join("distributions.csv").exists(),
            "a shard writes only its partial"
        );
        parts.push(part);
    }
    let merged = root.path().join("merged");
    // Merge in a shuffled order: the counts are integers, order cannot matter.
    warcrunch()
        .arg("merge")
        .args([&parts[2], &parts[0], &parts[3], &parts[1]])
        .arg("--out")
        .arg(&merged)
        .assert()
        .success()
        .stdout(predicate::str::contains("Megalos"));
    for csv in CSVS {
        let single = read(&whole.join(csv));
        assert!(single.lines().count() > 5, "{csv} has rows");
        assert_eq!(
            single,
            read(&merged.join(csv)),
            "{csv} differs after merging"
        );
    }
    assert_eq!(
        std::fs::read(whole.join("distributions.parquet")).unwrap(),
        std::fs::read(merged.join("distributions.parquet")).unwrap()
    );
    let run_json = read(&merged.join("run.json"));
    assert!(run_json.contains("\"shards\": 4"), "{run_json}");
    assert!(run_json.contains("\"trials\": 250000"), "{run_json}");
}

/// Runs `command` (arguments before `--out`) whole and as two shards,
/// merges the shards in reverse order and checks the merge says `says` and
/// writes the whole run's `csvs` byte for byte.
fn two_shards_merge_into_the_whole(command: &[&str], says: &str, csvs: &[&str]) {
    let root = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let out = root.path().join(name);
        warcrunch()
            .args(command)
            .arg("--quiet")
            .args(extra)
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        out
    };
    let whole = run("whole", &[]);
    let a = run("a", &["--shard", "0/2"]);
    let b = run("b", &["--shard", "1/2"]);
    let merged = root.path().join("merged");
    warcrunch()
        .arg("merge")
        .args([&b, &a])
        .arg("--out")
        .arg(&merged)
        .assert()
        .success()
        .stdout(predicate::str::contains(says));
    for csv in csvs {
        assert_eq!(read(&whole.join(csv)), read(&merged.join(csv)), "{csv}");
    }
}

#[test]
fn a_sharded_sweep_merges_into_the_sweep() {
    two_shards_merge_into_the_whole(
        &[
            "sweep",
            "scenarios/gurps/ambush_at_the_ford.toml",
            "--set",
            "heroes.Titus.risk=-2..0",
            "--trials",
            "100000",
        ],
        // The sweep's advice for Titus (a recommendation, or a tie).
        "For Titus (cap 5.0%):",
        &CSVS,
    );
}

#[test]
fn a_sharded_compare_merges_into_the_comparison() {
    two_shards_merge_into_the_whole(
        &[
            "compare",
            "--trials",
            "60000",
            "scenarios/gurps/ambush_at_the_ford.toml",
            "scenarios/gurps/siege_assault.toml",
        ],
        "tests significant",
        &["comparison.csv", "distributions.csv", "summary.csv"],
    );
}

/// Writes shard `i` of `n` of the ambush run (seed 11) into `root/name`.
fn shard(root: &Path, name: &str, i: u64, n: u64, seed: &str) -> std::path::PathBuf {
    let out = root.join(name);
    warcrunch()
        .args(["run", "scenarios/gurps/ambush_at_the_ford.toml", "--quiet"])
        .args([
            "--trials",
            "50000",
            "--seed",
            seed,
            "--shard",
            &format!("{i}/{n}"),
        ])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    out
}

fn merge_refused(parts: &[&Path], expect: &[&str]) {
    let out = parts[0].parent().unwrap().join("merged");
    let assert = warcrunch()
        .arg("merge")
        .args(parts)
        .arg("--out")
        .arg(&out)
        .assert()
        .failure()
        .code(1);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    for fragment in expect {
        assert!(
            stderr.contains(fragment),
            "expected {fragment:?} in: {stderr}"
        );
    }
    assert!(!out.exists(), "nothing written by a refused merge");
}

#[test]
fn missing_duplicated_and_foreign_shards_are_refused() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let s0 = shard(r, "s0", 0, 3, "11");
    let s1 = shard(r, "s1", 1, 3, "11");
    let s2 = shard(r, "s2", 2, 3, "11");
    let other_seed = shard(r, "x2", 2, 3, "12");
    let other_count = shard(r, "y1", 1, 2, "11");
    merge_refused(&[&s0, &s2], &["missing shard 1/3"]);
    merge_refused(&[&s0, &s1, &s1, &s2], &["shard 1/3 is given twice"]);
    merge_refused(
        &[&s0, &s1, &other_seed],
        &["not shards of the same run", "seed 11 vs 12"],
    );
    merge_refused(&[&s0, &other_count], &["number of shards 3 vs 2"]);
    let scenario = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    merge_refused(&[&s0, &scenario], &["is not a warcrunch partial result"]);
    warcrunch()
        .arg("merge")
        .args([&s2, &s1, &s0])
        .arg("--out")
        .arg(r.join("ok"))
        .assert()
        .success();
}

#[test]
fn precision_stops_at_the_same_battle_whatever_the_threads_and_says_why() {
    let root = tempfile::tempdir().unwrap();
    let run = |threads: &str| {
        let out = root.path().join(threads);
        let assert = warcrunch()
            .args(["run", "scenarios/war_cards/knights_vs_pikes.toml"])
            .args(["--precision", "0.003", "--seed", "4", "--threads", threads])
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
        (out, stdout)
    };
    let (one, said) = run("1");
    let (two, _) = run("2");
    for csv in CSVS {
        assert_eq!(read(&one.join(csv)), read(&two.join(csv)), "{csv}");
    }
    // p(1 - p) ≤ 1/4 needs about 1.96² / (4 · 0.003²) ≈ 107,000 battles; the
    // checkpoints are powers of two of 16,384-battle chunks.
    assert!(said.contains("stopped after 131,072 battles"), "{said}");
    assert!(said.contains("within ±0.3 pt"), "{said}");
    let run_json = read(&one.join("run.json"));
    assert!(run_json.contains("\"trials\": 131072"), "{run_json}");
    assert!(run_json.contains("\"stop_reason\""), "{run_json}");
    assert!(read(&one.join("report.html")).contains("why it stopped"));
    let widest: f64 = csv_rows(&one.join("distributions.csv"))
        .iter()
        .map(|r| (number(r, "ci_high") - number(r, "ci_low")) / 2.0)
        .fold(0.0, f64::max);
    assert!(widest <= 0.003, "widest half-width {widest}");
}

#[test]
fn precision_reports_hitting_the_trial_cap() {
    let root = tempfile::tempdir().unwrap();
    warcrunch()
        .args(["run", "scenarios/war_cards/knights_vs_pikes.toml"])
        .args(["--precision", "0.0001", "--max-trials", "40000"])
        .arg("--out")
        .arg(root.path().join("out"))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "stopped at the most battles asked (40,000) before every probability's 95% interval was within ±0.01 pt: the widest is ±0.",
        ));
}

/// Ten million battles a variant: the two left run for seconds after the
/// first is done, so the interrupt lands while they run even on a loaded
/// machine (three million finished before it under a parallel build).
#[test]
fn an_interrupted_sweep_keeps_the_variants_that_finished() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("sweep");
    // Each variant of the three-day battle takes a second or more; Ctrl-C
    // (SIGINT) arrives once the first has finished.
    let mut child = Command::new(assert_cmd::cargo::cargo_bin!("warcrunch"))
        .current_dir(repo())
        .args(["sweep", "scenarios/gurps/three_days_at_hollin.toml"])
        .args([
            "--set",
            "seed=1,2,3",
            "--trials",
            "10000000",
            "--threads",
            "1",
        ])
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    while !said.contains("done (1 of 3)") {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "sweep ended early: {said}"
        );
        said.push_str(&line);
    }
    let interrupted = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "an interrupted sweep exits non-zero");
    assert!(
        rest.contains("variant seed=2 failed: interrupted"),
        "{rest}"
    );
    assert!(
        rest.contains("the 1 variant that finished was written: variant seed=2"),
        "{rest}"
    );
    let csv = read(&out.join("distributions.csv"));
    assert!(
        csv.lines().skip(1).all(|l| l.starts_with("seed=1,")),
        "{csv}"
    );
    assert!(read(&out.join("run.json")).contains("the sweep stopped early"));
}

#[test]
fn a_part_whose_counts_were_changed_is_refused() {
    use warcrunch::report::exporters::partial::Partial;
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let parts: Vec<_> = (0..3)
        .map(|i| shard(r, &format!("s{i}"), i, 3, "11"))
        .collect();
    let file = parts[2].join("partial.json");
    let written = read(&file);
    let edit = |change: &dyn Fn(&mut Partial), digest_again: bool| {
        let mut part: Partial = serde_json::from_str(&written).unwrap();
        change(&mut part);
        if digest_again {
            part.counts_sha256 = part.counts_digest();
        }
        std::fs::write(&file, serde_json::to_string_pretty(&part).unwrap()).unwrap();
    };
    let refs: Vec<&Path> = parts.iter().map(|p| p.as_path()).collect();
    // Battles added to one count: caught by the digest.
    edit(&|p| p.variants[0].metrics[0].weights[0] += 5000, false);
    merge_refused(&refs, &["s2/partial.json", "do not match the digest"]);
    // Battles moved between counts (the sum holds): caught by the digest.
    edit(
        &|p| {
            let w = &mut p.variants[0].metrics[0].weights;
            w[0] += 500;
            w[1] -= 500;
        },
        false,
    );
    merge_refused(&refs, &["do not match the digest"]);
    // Battles added and the digest written again: the counts no longer add
    // up to the shard's battles.
    edit(&|p| p.variants[0].metrics[0].weights[0] += 5000, true);
    let battles = warcrunch::engine::Shard { index: 2, count: 3 }.battles(50_000);
    merge_refused(
        &refs,
        &[
            &format!("side:Megalos/victory counts {} battles", battles + 5000),
            &format!("shard 2/3 of a run of 50000 has {battles}"),
        ],
    );
    // The part as written merges.
    std::fs::write(&file, &written).unwrap();
    warcrunch()
        .arg("merge")
        .args(&parts)
        .arg("--out")
        .arg(r.join("ok"))
        .assert()
        .success();
}

/// The most memory a sweep of the ambush over `strengths` troop strengths
/// (times 13 Risk values for Titus) held, in bytes: the child's peak
/// resident set, as the kernel counts it when the child is reaped.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[expect(
    clippy::zombie_processes,
    reason = "reaped by `wait4`, which reads its peak memory"
)]
fn sweep_peak_bytes(strengths: u32, out: &Path) -> u64 {
    let last = 100 + (strengths - 1) * 10;
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_warcrunch"))
        .current_dir(repo())
        .args(["sweep", "scenarios/gurps/ambush_at_the_ford.toml"])
        .args(["--set", "heroes.Titus.risk=-6..6"])
        .arg("--set")
        .arg(format!("sides.Raiders.troop_strength=100..{last}:10"))
        .args(["--max-variants", "100000", "--yes", "--quiet"])
        .args(["--trials", "1000", "--seed", "11", "--threads", "2"])
        .args(["--format", "csv", "--out"])
        .arg(out)
        .spawn()
        .expect("warcrunch starts");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for the kernel to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet reaped; both pointers are live.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "waiting for the sweep");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the sweep failed ({status})"
    );
    u64::try_from(usage.ru_maxrss).unwrap() * 1024
}

#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn a_sweeps_memory_grows_by_each_variants_rules_and_counts_and_no_more() {
    use warcrunch::engine::{System, Tally};
    use warcrunch::systems::gurps::Gurps;
    let scenario =
        warcrunch::scenario::load(&repo().join("scenarios/gurps/ambush_at_the_ford.toml")).unwrap();
    let gurps = scenario.battle.downcast::<Gurps>().expect("a GURPS battle");
    let mut bins = 0;
    gurps.new_tally().for_each_slice(|s| bins += s.len());
    let root = tempfile::tempdir().unwrap();
    let small = sweep_peak_bytes(5, &root.path().join("small"));
    let large = sweep_peak_bytes(40, &root.path().join("large"));
    let per_variant = large.saturating_sub(small) / (13 * 35);
    // What a variant needs: its rules and their fast laws (about 50 KB
    // here), and its counts (8 bytes a bin) in each worker's tally and
    // the one they are added into. When every variant kept its own labels
    // for each worker, its own reading of the tally and its layout twice,
    // it was 385 KB a variant.
    assert!(
        per_variant <= 200_000,
        "{per_variant} bytes a variant ({} times its {bins} bins of counts)",
        per_variant / (8 * bins as u64)
    );
}

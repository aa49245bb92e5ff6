//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use warcrunch::stats::{Metric, clopper_pearson};

use assert_cmd::Command;

/// The warcrunch binary, run from the repository root.
pub fn warcrunch() -> Command {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("warcrunch");
    cmd.current_dir(repo());
    cmd
}

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every bundled scenario file, in order.
pub fn bundled_scenarios() -> Vec<PathBuf> {
    let files: Vec<PathBuf> = warcrunch::scenario::bundled::SCENARIOS
        .iter()
        .map(|s| repo().join("scenarios").join(s.name))
        .collect();
    assert!(files.iter().all(|f| f.is_file()), "{files:?}");
    files
}

/// How many bundled scenarios and built-in table files there are.
pub fn bundled_counts() -> (usize, usize) {
    (
        warcrunch::scenario::bundled::SCENARIOS.len(),
        warcrunch::systems::built_ins().len(),
    )
}

/// A bundled scenario's path.
pub fn scenario(name: &str) -> PathBuf {
    repo().join("scenarios/war_cards").join(name)
}

/// The ambush's fair fight asked of `solve`: the Raiders' troop strength
/// at which Megalos wins half the battles.
pub const AMBUSH_FAIR_FIGHT: [&str; 6] = [
    "--vary",
    "sides.Raiders.troop_strength=400..1600",
    "--target",
    "side:Megalos/victory=won",
    "--equals",
    "0.5",
];

/// Set (to anything but `0`) where the seed documents must be present, as
/// in `.ci/run`: a missing seed then fails the test instead of skipping it.
pub const REQUIRE_SEEDS: &str = "WARCRUNCH_REQUIRE_SEEDS";

/// The seed file of the war cards, if the shared folder is beside the repo;
/// panics when it is missing under `CI` or [`REQUIRE_SEEDS`]. (The test
/// that needs it is reported ignored where it is absent: see `build.rs`.)
pub fn war_cards_seed() -> Option<String> {
    let path = repo().join("../shared/seeds/004_090f5eee1dd0a3ae.txt");
    let text = std::fs::read_to_string(&path).ok();
    let required = std::env::var("CI").is_ok()
        || std::env::var(REQUIRE_SEEDS).is_ok_and(|v| !v.is_empty() && v != "0");
    assert!(
        text.is_some() || !required,
        "CI or {REQUIRE_SEEDS} is set but the seed {} is missing",
        path.display()
    );
    text
}

/// A CSV table's rows, each a map from column name to the cell's text.
pub fn csv_rows(path: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader =
        csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    reader
        .deserialize()
        .map(|row| row.unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

/// A CSV cell as a number, panicking with the column's name.
pub fn number(row: &std::collections::BTreeMap<String, String>, column: &str) -> f64 {
    row.get(column)
        .unwrap_or_else(|| panic!("no column {column} in {row:?}"))
        .parse()
        .unwrap_or_else(|e| panic!("{column} in {row:?}: {e}"))
}

/// Reads a file to a string, panicking with its path.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every result symbol of each card, `[card][row][column]`, parsed straight
/// from the seed's text (Карточка Боя N, then rows of two signs and seven
/// results) or, without the seed, from the shipped table with a parser of
/// its own.
pub fn independent_deck() -> Vec<Vec<Vec<String>>> {
    match war_cards_seed() {
        Some(seed) => {
            let mut cards: Vec<Vec<Vec<String>>> = Vec::new();
            for line in seed.lines() {
                if line.starts_with("Карточка Боя") {
                    cards.push(Vec::new());
                    continue;
                }
                let parts: Vec<&str> = line.split_whitespace().collect();
                let is_sign = |s: &str| ["М", "Щ", "Б"].contains(&s);
                if parts.len() == 9 && is_sign(parts[0]) && is_sign(parts[1]) {
                    let card = cards.last_mut().expect("a card heading precedes rows");
                    card.push(parts[2..].iter().map(|s| s.to_string()).collect());
                }
            }
            cards
        }
        None => {
            let table = read(&repo().join("scenarios/tables/war_cards.toml"));
            let mut cards: Vec<Vec<Vec<String>>> = Vec::new();
            for line in table.lines() {
                if line.starts_with("[[cards]]") {
                    cards.push(Vec::new());
                } else if let (Some((_, value)), Some(card)) =
                    (line.split_once('='), cards.last_mut())
                {
                    let value = value.trim().trim_matches('"');
                    card.push(value.split_whitespace().map(str::to_owned).collect());
                }
            }
            cards
        }
    }
}

/// Writes a scenario into a fresh folder and returns (folder, scenario, out).
pub fn setup(text: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("battle.toml");
    std::fs::write(&path, text).unwrap();
    let out = dir.path().join("out");
    (dir, path, out)
}

/// `warcrunch run PATH --out OUT` must fail with every fragment of
/// `expect` in its error and leave no OUT.
pub fn run_refused(path: &Path, out: &Path, expect: &[&str]) {
    let stderr = failure_stderr(warcrunch().arg("run").arg(path).arg("--out").arg(out));
    for fragment in expect {
        assert!(
            stderr.contains(fragment),
            "expected {fragment:?} in: {stderr}"
        );
    }
    assert!(!out.exists(), "no output folder after a refused run");
}

/// `warcrunch check PATH` must fail with every fragment of `expect` in its error.
pub fn check_refused(path: &Path, expect: &[&str]) {
    let stderr = failure_stderr(warcrunch().arg("check").arg(path));
    for fragment in expect {
        assert!(
            stderr.contains(fragment),
            "expected {fragment:?} in: {stderr}"
        );
    }
}

/// Runs a command that must fail with every fragment of `expect` in its
/// error and write nothing at `out`.
pub fn refused_writing_nothing(command: &mut Command, out: &Path, expect: &[&str]) {
    let stderr = failure_stderr(command);
    for fragment in expect {
        assert!(
            stderr.contains(fragment),
            "expected {fragment:?} in: {stderr}"
        );
    }
    assert!(!out.exists(), "no output after a refused command");
}

/// `run SCENARIO --table NAME=FILE` must fail naming every fragment of
/// `expect`, and write nothing.
pub fn table_refused(scenario: &str, name: &str, file: &Path, expect: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    refused_writing_nothing(
        warcrunch()
            .args(["run", scenario, "--trials", "1000", "--table"])
            .arg(format!("{name}={}", file.display()))
            .arg("--out")
            .arg(&out),
        &out,
        expect,
    );
}

/// Runs a command that must fail; its standard error.
pub fn failure_stderr(command: &mut Command) -> String {
    let assert = command.assert().failure();
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}

/// Runs a scenario that must be refused with every fragment in `expect`.
pub fn refused(text: &str, expect: &[&str]) {
    let (_dir, path, out) = setup(text);
    let assert = warcrunch()
        .arg("run")
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .assert()
        .failure()
        .code(1);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("battle.toml"), "names the file: {stderr}");
    for fragment in expect {
        assert!(
            stderr.contains(fragment),
            "expected {fragment:?} in: {stderr}"
        );
    }
    assert!(!out.exists(), "no output folder after a refused run");
    let leftovers: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, vec![std::ffi::OsString::from("battle.toml")]);
}

/// Every exact value inside the simulation's interval. The intervals are
/// 99.9% for the whole family of values checked (Bonferroni: each value at
/// 1 − 0.001/k), so one call makes one 0.1% claim however many values it
/// compares; Clopper–Pearson, which keeps its coverage for values seen a
/// handful of times (Wilson's does not). Exact distributions must sum to one.
pub fn assert_within_family(
    exact: &[Metric<f64>],
    simulated: &[Metric<u64>],
    trials: u64,
) -> usize {
    let values: usize = exact.iter().map(|m| m.weights.len()).sum();
    let confidence = 1.0 - 0.001 / values as f64;
    let mut checked = 0;
    for ex in exact {
        let sum: f64 = ex.weights.iter().sum();
        assert!(
            (sum - 1.0).abs() < 1e-9,
            "{}/{} sums to {sum}",
            ex.subject,
            ex.name
        );
        let mc = simulated
            .iter()
            .find(|m| m.subject == ex.subject && m.name == ex.name)
            .unwrap_or_else(|| panic!("no simulated {}/{}", ex.subject, ex.name));
        assert_eq!(
            mc.weights.len(),
            ex.weights.len(),
            "{}/{}",
            ex.subject,
            ex.name
        );
        for (bin, (&p, &count)) in ex.weights.iter().zip(&mc.weights).enumerate() {
            let (lo, hi) = clopper_pearson(count, trials, confidence);
            assert!(
                lo <= p && p <= hi,
                "{}/{} = {}: exact {p}, simulated {count}/{trials} ({lo}..{hi})",
                ex.subject,
                ex.name,
                ex.label(bin)
            );
            checked += 1;
        }
    }
    checked
}

/// A scenario text garbled by fuzz edits `(line, kind, text)`: the line
/// dropped, doubled, its value replaced by `text`, or the line replaced.
pub fn garble(text: &str, edits: Vec<(usize, u8, String)>) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    for (at, kind, text) in edits {
        let i = at % lines.len().max(1);
        match kind {
            0 => {
                lines.remove(i);
            }
            1 => lines.insert(i, lines[i].clone()),
            2 => {
                if let Some((key, _)) = lines[i].split_once('=') {
                    lines[i] = format!("{key}= {text}");
                }
            }
            _ => lines[i] = text,
        }
        if lines.is_empty() {
            lines.push(String::new());
        }
    }
    lines.join("\n")
}

/// A war-cards battle of one melee exchange between units that fall at the
/// first damage: the attacker (sword, melee 2) strikes at row sword_shield,
/// column +1; the defender (shield, melee 1) at shield_sword, column 0.
pub const ONE_EXCHANGE: &str = r#"
system = "war_cards"
name = "One exchange"
[attacker]
name = "A"
sign = "sword"
melee = 2
defence = 1
hits = 0
[defender]
name = "B"
sign = "shield"
melee = 1
defence = 1
hits = 0
[engagement]
max_exchanges = 1
"#;

/// Says loudly that a test cannot run here and why; under `CI=true`, where
/// every component is installed, fails instead.
pub fn skipped(why: &str) {
    assert!(std::env::var("CI").is_err(), "{why}");
    eprintln!("\n*** SKIPPED *** {why}\n");
}

/// Whether the tests run as root (a cluster's daemons, chroot).
pub fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// The PATH with the warcrunch under test first, for scripts that call it.
pub fn path_with_warcrunch() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_warcrunch")).parent().unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Sends process `pid` SIGTERM (what `kill` and service managers send).
pub fn sigterm(pid: u32) {
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -TERM {pid}");
}

/// The folder a running server with this PID keeps its runs' files in
/// (`warcrunch-serve-PID-` and random characters, in the temporary folder).
pub fn server_files(pid: u32) -> PathBuf {
    let prefix = format!("warcrunch-serve-{pid}-");
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .map(|e| e.unwrap())
        .find(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .unwrap_or_else(|| std::env::temp_dir().join(format!("{prefix}(none)")))
}

//! Same scenario, seed and trials: byte-identical CSV whatever the threads.

use crate::util::{read, repo, warcrunch};

/// Runs `scenarios/<path>` with 300,000 trials.
fn run_into(dir: &std::path::Path, path: &str, threads: &str, seed: &str) {
    warcrunch()
        .args([
            "run",
            "--quiet",
            "--trials",
            "300000",
            "--seed",
            seed,
            "--threads",
            threads,
        ])
        .arg(repo().join("scenarios").join(path))
        .arg("--out")
        .arg(dir)
        .assert()
        .success();
}

#[test]
fn csv_is_byte_identical_at_one_and_eight_threads_in_every_system() {
    // Every system; the 7th Sea battles build their laws lazily, on
    // whichever worker meets them first.
    for file in [
        "war_cards/knights_vs_pikes.toml",
        "war_cards/cavalry_clash_deck.toml",
        "war_cards/guard_vs_levy.toml",
        "gurps/ambush_at_the_ford.toml",
        "gurps/three_days_at_hollin.toml",
        "seventh_sea/even_field_battle.toml",
        "seventh_sea/officer_tips_the_balance.toml",
    ] {
        let root = tempfile::tempdir().unwrap();
        let (one, eight) = (root.path().join("one"), root.path().join("eight"));
        run_into(&one, file, "1", "17");
        run_into(&eight, file, "8", "17");
        for (csv, min_rows) in [("distributions.csv", 20), ("summary.csv", 3)] {
            let a = read(&one.join(csv));
            assert!(a.lines().count() > min_rows, "{file}: {csv} has rows");
            assert_eq!(
                a,
                read(&eight.join(csv)),
                "{file}: {csv} differs between 1 and 8 threads"
            );
        }
    }
}

#[test]
fn another_seed_gives_other_counts() {
    let root = tempfile::tempdir().unwrap();
    let (a, b) = (root.path().join("a"), root.path().join("b"));
    run_into(&a, "war_cards/knights_vs_pikes.toml", "2", "1");
    run_into(&b, "war_cards/knights_vs_pikes.toml", "2", "2");
    assert_ne!(
        read(&a.join("distributions.csv")),
        read(&b.join("distributions.csv"))
    );
}

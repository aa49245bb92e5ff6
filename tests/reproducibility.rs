//! Same scenario, seed and trials: byte-identical CSV whatever the threads.

use crate::util::{read, scenario, warcrunch};

fn run_into(dir: &std::path::Path, scenario_file: &str, threads: &str, seed: &str) {
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
        .arg(scenario(scenario_file))
        .arg("--out")
        .arg(dir)
        .assert()
        .success();
}

#[test]
fn csv_is_byte_identical_at_one_and_eight_threads() {
    for file in [
        "knights_vs_pikes.toml",
        "cavalry_clash_deck.toml",
        "guard_vs_levy.toml",
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
    run_into(&a, "knights_vs_pikes.toml", "2", "1");
    run_into(&b, "knights_vs_pikes.toml", "2", "2");
    assert_ne!(
        read(&a.join("distributions.csv")),
        read(&b.join("distributions.csv"))
    );
}

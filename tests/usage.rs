//! `run --usage`: how often battles read each table cell. The counts add
//! up to what the rules make each battle read, counted by hand, and do not
//! depend on the thread count.

use std::collections::HashMap;
use std::path::Path;

use crate::util::{ONE_EXCHANGE, read, repo, warcrunch};

/// `usage.csv` as (table, row, column) -> reads.
fn usage(
    scenario: &Path,
    trials: &str,
    threads: &str,
    out: &Path,
) -> HashMap<(String, String, String), u64> {
    warcrunch()
        .args([
            "run",
            "--quiet",
            "--usage",
            "--trials",
            trials,
            "--threads",
            threads,
        ])
        .arg("--out")
        .arg(out)
        .arg(scenario)
        .assert()
        .success();
    read(&out.join("usage.csv"))
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let text = |s: &str| s.trim_matches('"').to_owned();
            ((text(f[0]), text(f[1]), text(f[2])), f[3].parse().unwrap())
        })
        .collect()
}

fn total(reads: &HashMap<(String, String, String), u64>, table: &str, row_prefix: &str) -> u64 {
    reads
        .iter()
        .filter(|((t, r, _), _)| t == table && r.starts_with(row_prefix))
        .map(|(_, n)| n)
        .sum()
}

/// One melee exchange: each battle draws one card a side, the attacker's
/// read at row sword_shield column +1, the defender's at shield_sword 0.
#[test]
fn a_one_exchange_battle_reads_two_cells() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("one.toml");
    std::fs::write(&scenario, ONE_EXCHANGE).unwrap();
    let reads = usage(&scenario, "9000", "0", &dir.path().join("out"));
    let read_at = |row: &str, column: &str| -> u64 {
        reads
            .iter()
            .filter(|((t, r, c), _)| t == "cards" && r.ends_with(row) && c == column)
            .map(|(_, n)| n)
            .sum()
    };
    assert_eq!(read_at(".sword_shield", "+1"), 9000);
    assert_eq!(read_at(".shield_sword", "0"), 9000);
    assert_eq!(
        total(&reads, "cards", "card"),
        2 * 9000,
        "nothing else is read"
    );
    for card in 1..=9 {
        let n = reads[&(
            "cards".into(),
            format!("card{card}.sword_shield"),
            "+1".into(),
        )];
        assert!(
            (800..1200).contains(&n),
            "card {card} drawn about 1,000 times: {n}"
        );
    }
}

/// A one-day GURPS battle of four PCs reads, per battle: two Catastrophe
/// rows, one Strategy ratio row, one battle result, each side's armour and
/// casualties row, and each PC's Survival and Glory row; each Survival row
/// that names a damage column reads that column's hits.
#[test]
fn a_one_day_gurps_battle_reads_what_its_day_reads() {
    let dir = tempfile::tempdir().unwrap();
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    let n = 20_000;
    let reads = usage(&ambush, "20000", "0", &dir.path().join("out"));
    assert_eq!(total(&reads, "catastrophe", "rows."), 2 * n);
    let ratio = total(&reads, "strategy", "ts_ratio.")
        + reads[&("strategy".into(), String::new(), "ts_ratio_beyond".into())];
    assert_eq!(ratio, n);
    assert_eq!(total(&reads, "battle_results", "rows."), n);
    assert_eq!(total(&reads, "casualties", "rows."), 2 * n);
    assert_eq!(total(&reads, "casualties", "armour_rows"), 2 * n);
    // Each PC rolls Survival and Glory, but for one a Catastrophe 17 or 18
    // strikes first (a few battles in ten thousand): he rolls neither.
    let survival = total(&reads, "survival", "rows.");
    assert_eq!(total(&reads, "glory", "rows."), survival);
    assert!(
        survival <= 4 * n && 4 * n - survival <= 4 * n / 1000,
        "{survival} Survival rows read for {} PC-battles",
        4 * n
    );
    let with_column: u64 = ["A", "B", "C", "D"]
        .iter()
        .map(|row| reads[&("survival".into(), format!("rows.{row}"), String::new())])
        .sum();
    assert_eq!(total(&reads, "damage", "hits"), with_column);
    // The same counts on one thread.
    let one = usage(&ambush, "20000", "1", &dir.path().join("one"));
    assert_eq!(one, reads);
}

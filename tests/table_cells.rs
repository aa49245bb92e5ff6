//! A table's cell is a setting like any other: `--set tables.NAME.CELL=…`
//! and `[tables.NAME] set = {…}` give the same battles as a hand-edited
//! copy of the table, and a wrong cell is refused naming the table, the
//! row as the file shows it and what is allowed.

use std::path::Path;

use crate::util::{read, repo, warcrunch};

/// `distributions.csv` rows of `variant`, without the variant column.
fn variant_rows(csv: &str, variant: &str) -> Vec<String> {
    csv.lines()
        .skip(1)
        .filter(|l| l.starts_with(&format!("{variant},")))
        .map(|l| l.split_once(',').unwrap().1.to_owned())
        .collect()
}

fn sweep(scenario: &Path, set: &str, out: &Path) -> String {
    warcrunch()
        .args([
            "sweep", "--quiet", "--trials", "20000", "--seed", "7", "--set", set,
        ])
        .arg("--out")
        .arg(out)
        .arg(scenario)
        .assert()
        .success();
    read(&out.join("distributions.csv"))
}

/// The Survival table's catch-all row moved from column D to C, three
/// ways: a cell swept on the command line, the same cell set in the
/// scenario, and a hand-edited copy of the table. All fight the same
/// battles, so their counts are identical.
#[test]
fn a_cell_set_three_ways_gives_the_same_battles() {
    let dir = tempfile::tempdir().unwrap();
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    let by_cell = sweep(
        &ambush,
        "tables.survival.rows.D.column=D,C",
        &dir.path().join("cell"),
    );
    let edited = read(&repo().join("scenarios/tables/gurps/survival.toml")).replace(
        "label = \"D\"\ncolumn = \"D\"",
        "label = \"D\"\ncolumn = \"C\"",
    );
    assert!(edited.contains("label = \"D\"\ncolumn = \"C\""));
    let copy = dir.path().join("survival_c.toml");
    std::fs::write(&copy, edited).unwrap();
    let by_file = sweep(
        &ambush,
        &format!("tables.survival=builtin,{}", copy.display()),
        &dir.path().join("file"),
    );
    let moved = variant_rows(&by_cell, "survival.rows.D.column=C");
    assert!(!moved.is_empty());
    assert_eq!(
        moved,
        variant_rows(&by_file, &format!("survival={}", copy.display()))
    );
    assert_eq!(
        variant_rows(&by_cell, "survival.rows.D.column=D"),
        variant_rows(&by_file, "survival=builtin")
    );
    assert_ne!(
        moved,
        variant_rows(&by_cell, "survival.rows.D.column=D"),
        "the cell matters"
    );

    // The same cell set in the scenario file itself.
    let text = read(&ambush) + "\n[tables.survival]\nset = { \"rows.D.column\" = \"C\" }\n";
    let scenario = dir.path().join("ambush_c.toml");
    std::fs::write(&scenario, text).unwrap();
    let in_file = sweep(&scenario, "trials=20000", &dir.path().join("in_file"));
    assert_eq!(variant_rows(&in_file, "trials=20000"), moved);
    let run_json = read(&dir.path().join("in_file/run.json"));
    assert!(
        run_json.contains(
            "built-in scenarios/tables/gurps/survival.toml, with rows.D.column = \\\"C\\\""
        ),
        "provenance names the cell: {run_json}"
    );
}

/// A 7th Sea Battle Chart cell (rows counted from 0 where they have no
/// label) and a numeric cell swept as a range.
#[test]
fn a_battle_chart_cell_sweeps_like_a_setting() {
    let dir = tempfile::tempdir().unwrap();
    let even = repo().join("scenarios/seventh_sea/even_field_battle.toml");
    let csv = sweep(
        &even,
        "tables.battle_chart.rows.2.engaged.reputation=1..3",
        &dir.path().join("rep"),
    );
    for v in [1, 2, 3].map(|n| format!("battle_chart.rows.2.engaged.reputation={n}")) {
        assert!(!variant_rows(&csv, &v).is_empty(), "variant {v}");
    }
    assert_ne!(
        variant_rows(&csv, "battle_chart.rows.2.engaged.reputation=1"),
        variant_rows(&csv, "battle_chart.rows.2.engaged.reputation=3")
    );
}

fn refused(args: &[&str], expect: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let assert = warcrunch()
        .args(args)
        .arg("--out")
        .arg(&out)
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    for fragment in expect {
        assert!(
            stderr.contains(fragment),
            "expected {fragment:?} in: {stderr}"
        );
    }
    assert!(!out.exists(), "no output after a refused question");
}

#[test]
fn a_wrong_cell_names_the_table_the_row_and_what_is_allowed() {
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    let ambush = ambush.to_str().unwrap();
    // No such row: the rows as the file names them.
    refused(
        &[
            "sweep",
            ambush,
            "--set",
            "tables.survival.rows.Z.column=C,D",
        ],
        &[
            "--set tables.survival.rows.Z.column",
            "survival",
            "`rows` has no entry `Z`",
            "rows.unhurt",
            "rows.D",
        ],
    );
    // No such column: the allowed values.
    refused(
        &[
            "sweep",
            ambush,
            "--set",
            "tables.survival.rows.D.column=C,E",
        ],
        &[
            "--set tables.survival.rows.D.column",
            "survival",
            "E",
            "`A`, `B`, `C`, `D`",
        ],
    );
    // A row without labels, counted past its end.
    let even = repo().join("scenarios/seventh_sea/even_field_battle.toml");
    refused(
        &[
            "sweep",
            even.to_str().unwrap(),
            "--set",
            "tables.battle_chart.rows.40.engaged.damage=2k1,3k2",
        ],
        &[
            "battle_chart",
            "`rows` has no entry `40`",
            "rows.0 to rows.",
        ],
    );
}

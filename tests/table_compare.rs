//! `compare --table NAME=A,B SCENARIOS…`: one table against another across
//! battles. Each scenario's summary rows are the very tests of the single
//! comparison of that scenario with each table; scenarios that do not read
//! the table are named, not shown as zeros.

use std::collections::HashMap;
use std::path::Path;

use crate::util::{read, refused_writing_nothing, repo, warcrunch};

/// A CSV as rows of named fields.
fn records(csv: &str) -> Vec<HashMap<String, String>> {
    let mut lines = csv.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_owned)
        .collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(|f| f.trim_matches('"').to_owned()))
                .collect()
        })
        .collect()
}

/// The Survival table with the catch-all row (fail by 7+) one column milder.
fn milder_survival(dir: &Path) -> String {
    let edited = read(&repo().join("scenarios/tables/gurps/survival.toml")).replace(
        "label = \"D\"\ncolumn = \"D\"",
        "label = \"D\"\ncolumn = \"C\"",
    );
    assert!(edited.contains("label = \"D\"\ncolumn = \"C\""));
    let path = dir.join("milder_survival.toml");
    std::fs::write(&path, edited).unwrap();
    path.display().to_string()
}

#[test]
fn each_scenario_row_is_the_single_comparison_it_summarises() {
    let dir = tempfile::tempdir().unwrap();
    let milder = milder_survival(dir.path());
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    let siege = repo().join("scenarios/gurps/siege_assault.toml");
    let knights = repo().join("scenarios/war_cards/knights_vs_pikes.toml");
    let out = dir.path().join("tables");
    warcrunch()
        .args(["compare", "--quiet", "--trials", "30000", "--seed", "4"])
        .args(["--table", &format!("survival=builtin,{milder}")])
        .arg(&ambush)
        .arg(&siege)
        .arg(&knights)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let summary = records(&read(&out.join("tables.csv")));
    let scenarios: Vec<&str> = summary.iter().map(|r| r["scenario"].as_str()).collect();
    assert!(scenarios.contains(&"ambush_at_the_ford") && scenarios.contains(&"siege_assault"));
    assert!(
        !scenarios.contains(&"knights_vs_pikes"),
        "war cards read no Survival table"
    );
    let run_json = read(&out.join("run.json"));
    assert!(
        run_json.contains("\"scenario\": \"knights_vs_pikes\""),
        "{run_json}"
    );
    assert!(read(&out.join("tables.md")).contains("- knights_vs_pikes (reads cards)"));

    // The ambush alone, with each table, on the same seed and battles.
    let single = dir.path().join("single");
    warcrunch()
        .args(["compare", "--quiet", "--trials", "30000", "--seed", "4"])
        .arg(&ambush)
        .arg(&ambush)
        .args(["--table", "1:survival=builtin"])
        .args(["--table", &format!("2:survival={milder}")])
        .args(["--target", "hero:Titus/state=down|dead"])
        .args(["--target", "hero:Varro/state=down|dead"])
        .args(["--target", "hero:Ilsa/state=down|dead"])
        .args(["--target", "hero:Brother Anselm/state=down|dead"])
        .arg("--out")
        .arg(&single)
        .assert()
        .success();
    let tests = records(&read(&single.join("comparison.csv")));
    let ambush_rows: Vec<&HashMap<String, String>> = summary
        .iter()
        .filter(|r| r["scenario"] == "ambush_at_the_ford")
        .collect();
    // Megalos' victory (the Raiders' is the same question turned round),
    // four PCs' Reputation, the party's risk and three PCs' targets (Ilsa
    // is never down or dead: nothing to test).
    assert!(ambush_rows.len() >= 9, "{ambush_rows:?}");
    let victories: Vec<&str> = ambush_rows
        .iter()
        .filter(|r| r["metric"] == "victory")
        .map(|r| r["outcome"].as_str())
        .collect();
    assert_eq!(victories, ["Megalos won"]);
    assert!(
        ambush_rows
            .iter()
            .any(|r| r["metric"] == "state=down|dead" && r["subject"] == "hero:Titus"),
        "a PC's down-or-dead is a key outcome"
    );
    for row in &ambush_rows {
        let test = tests
            .iter()
            .find(|t| {
                t["subject"] == row["subject"]
                    && t["metric"] == row["metric"]
                    && t["value"] == row["value"]
                    && t["test"] != "chi_square"
            })
            .unwrap_or_else(|| panic!("no single test for {row:?}"));
        for field in [
            "baseline_estimate",
            "estimate",
            "difference",
            "ci_low",
            "ci_high",
            "p_value",
            "significant",
        ] {
            assert_eq!(row[field], test[field], "{field} of {row:?}");
        }
    }
    // The catch-all row one column milder: fewer PCs dead.
    let dead_less = ambush_rows
        .iter()
        .filter(|r| r["metric"] == "state=down|dead")
        .all(|r| r["difference"].parse::<f64>().unwrap() <= 0.0);
    assert!(dead_less, "{ambush_rows:?}");
    // The scenario's folder records the command that asks that very
    // comparison again, its sides named after the tables: run, it writes
    // the same comparison.csv, byte for byte.
    let recorded: serde_json::Value =
        serde_json::from_str(&read(&out.join("ambush_at_the_ford/run.json"))).unwrap();
    let command = recorded["command"].as_str().unwrap();
    let mut again_args = shlex::split(command).unwrap();
    assert_eq!(again_args.remove(0), "warcrunch");
    let at = again_args.iter().position(|a| a == "--out").unwrap();
    let again = dir.path().join("again");
    again_args[at + 1] = again.display().to_string();
    warcrunch()
        .args(&again_args)
        .arg("--quiet")
        .assert()
        .success();
    assert_eq!(
        read(&again.join("comparison.csv")),
        read(&out.join("ambush_at_the_ford/comparison.csv")),
        "{command}"
    );
    // The scenario's folder holds that very comparison (variant names aside).
    let folder = records(&read(&out.join("ambush_at_the_ford/comparison.csv")));
    assert_eq!(folder.len(), tests.len());
    for (a, b) in folder.iter().zip(&tests) {
        for field in [
            "subject", "metric", "value", "estimate", "ci_low", "p_value",
        ] {
            assert_eq!(a[field], b[field]);
        }
    }
}

#[test]
fn a_table_no_scenario_reads_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    refused_writing_nothing(
        warcrunch()
            .arg("compare")
            .arg("--table")
            .arg(format!(
                "spoils=builtin,{}",
                repo()
                    .join("scenarios/tables/seventh_sea/spoils.toml")
                    .display()
            ))
            .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
            .arg("--out")
            .arg(&out),
        &out,
        &[
            "none of the scenarios reads a table `spoils`",
            "ambush_at_the_ford: catastrophe",
        ],
    );
    refused_writing_nothing(
        warcrunch()
            .args(["compare", "--table", "survival=builtin,builtin"])
            .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
            .arg("--out")
            .arg(&out),
        &out,
        &["the two tables are one file"],
    );
    refused_writing_nothing(
        warcrunch()
            .args(["compare", "--table", "survival=builtin,no_such_table.toml"])
            .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
            .arg("--out")
            .arg(&out),
        &out,
        &["no table file", "no_such_table.toml"],
    );
}

/// The built-in Survival table with three cells moved, each line a cell.
const MOVED: [(&str, &str, &str); 3] = [
    (
        "rows.D.column",
        "label = \"D\"\ncolumn = \"D\"",
        "label = \"D\"\ncolumn = \"C\"",
    ),
    (
        "rows.2hp.hp",
        "label = \"2hp\"\nhp = 2",
        "label = \"2hp\"\nhp = 3",
    ),
    (
        "rows.B.min_margin",
        "min_margin = -4\nlabel = \"B\"",
        "min_margin = -3\nlabel = \"B\"",
    ),
];

#[test]
fn each_changed_cells_share_is_that_cell_moved_alone_on_the_same_battles() {
    let dir = tempfile::tempdir().unwrap();
    let builtin = read(&repo().join("scenarios/tables/gurps/survival.toml"));
    let all = MOVED.iter().fold(builtin.clone(), |text, (_, from, to)| {
        text.replace(from, to)
    });
    let all_file = dir.path().join("moved.toml");
    std::fs::write(&all_file, &all).unwrap();
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    let compare = |file: &Path, out: &Path| {
        warcrunch()
            .arg("compare")
            .arg(&ambush)
            .arg("--table")
            .arg(format!("survival=builtin,{}", file.display()))
            .args(["--trials", "20000", "--seed", "11", "--quiet", "--out"])
            .arg(out)
            .assert()
            .success();
    };
    let together = dir.path().join("together");
    compare(&all_file, &together);
    let shares = records(&read(&together.join("cell_shares.csv")));
    let rows = records(&read(&together.join("tables.csv")));
    let clear: Vec<&HashMap<String, String>> =
        rows.iter().filter(|r| r["significant"] == "true").collect();
    assert!(!clear.is_empty(), "{rows:?}");
    for (cell, from, to) in MOVED {
        // The table with that one cell moved, compared on its own.
        let file = dir.path().join(format!("{cell}.toml"));
        std::fs::write(&file, builtin.replace(from, to)).unwrap();
        let alone = dir.path().join(format!("alone_{cell}"));
        compare(&file, &alone);
        let alone_rows = records(&read(&alone.join("tables.csv")));
        for row in &clear {
            let key = |r: &HashMap<String, String>| {
                (
                    r["subject"].clone(),
                    r["metric"].clone(),
                    r["value"].clone(),
                )
            };
            let share = shares
                .iter()
                .find(|s| s["cell"] == cell && s["outcome"] == row["outcome"])
                .unwrap_or_else(|| panic!("{cell} on {}: {shares:?}", row["outcome"]));
            let single = alone_rows
                .iter()
                .find(|r| r["outcome"] == row["outcome"])
                .unwrap_or_else(|| panic!("{:?} in {alone_rows:?}", key(row)));
            // The same battles: the same difference, to the last digit.
            assert_eq!(share["effect"], single["difference"], "{cell}: {share:?}");
            assert_eq!(share["ci_low"], single["ci_low"], "{cell}");
            let (effect, whole): (f64, f64) = (
                share["effect"].parse().unwrap(),
                row["difference"].parse().unwrap(),
            );
            let written: f64 = share["share_of_difference"].parse().unwrap();
            assert!((written - effect / whole).abs() < 1e-12, "{share:?}");
        }
    }
}

/// The Battle Chart with the 26+ row's rear Reputation one higher: a cell
/// so rarely read that Isabeau's mean Reputation moves by about 0.0001.
fn rarely_read_chart(dir: &Path) -> String {
    let text = read(&repo().join("scenarios/tables/seventh_sea/battle_chart.toml"));
    let moved = text.replacen(
        "rear            = { damage = \"-\", reputation = 1 }",
        "rear            = { damage = \"-\", reputation = 2 }",
        1,
    );
    assert_ne!(moved, text, "the 26+ row's rear cell is as expected");
    let file = dir.join("rare.toml");
    std::fs::write(&file, moved).unwrap();
    file.display().to_string()
}

#[test]
fn a_difference_smaller_than_min_effect_is_never_called_higher_or_lower() {
    let dir = tempfile::tempdir().unwrap();
    let chart = rarely_read_chart(dir.path());
    let compare = |out: &Path, min_effect: Option<&str>| {
        let mut command = warcrunch();
        command
            .arg("compare")
            .arg(repo().join("scenarios/seventh_sea/even_field_battle.toml"))
            .arg("--table")
            .arg(format!("battle_chart=builtin,{chart}"))
            .args(["--trials", "200000", "--quiet", "--out"])
            .arg(out);
        if let Some(m) = min_effect {
            command.args(["--min-effect", m]);
        }
        command.assert().success();
        records(&read(&out.join("tables.csv")))
    };
    let isabeau = |rows: &[HashMap<String, String>]| {
        rows.iter()
            .find(|r| r["subject"] == "hero:Isabeau" && r["metric"] == "reputation")
            .unwrap()
            .clone()
    };
    // Without it, a rise of about 0.0001 in a mean near 7.3 is "higher".
    let plain = isabeau(&compare(&dir.path().join("plain"), None));
    let rise: f64 = plain["difference"].parse().unwrap();
    assert!(rise > 0.0 && rise < 0.001, "{plain:?}");
    assert_eq!(plain["verdict"], "higher");
    // With --min-effect 0.01 it is too small to matter; the test's own
    // answer stays in `significant`, and a larger difference is still called.
    let rows = compare(&dir.path().join("min"), Some("0.01"));
    let small = isabeau(&rows);
    assert_eq!(small["verdict"], "too small", "{small:?}");
    assert_eq!(small["significant"], "true");
    let lucienne = rows
        .iter()
        .find(|r| r["subject"] == "hero:Lucienne" && r["metric"] == "reputation")
        .unwrap();
    assert_eq!(lucienne["verdict"], "higher", "{lucienne:?}");
    let record = read(&dir.path().join("min/run.json"));
    assert!(
        record.contains("--min-effect 0.01"),
        "the command asks it again"
    );
    // Two scenarios compared: the small ones are marked, and the console
    // counts them apart from the differences that matter.
    let out = dir.path().join("scenarios");
    let said = warcrunch()
        .arg("compare")
        .arg(repo().join("scenarios/seventh_sea/even_field_battle.toml"))
        .arg(repo().join("scenarios/seventh_sea/officer_tips_the_balance.toml"))
        .args(["--trials", "20000", "--min-effect", "50", "--out"])
        .arg(&out)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&said.get_output().stdout).into_owned();
    assert!(
        text.contains("more significant but smaller than the --min-effect asked (50)"),
        "{text}"
    );
    let tests = records(&read(&out.join("comparison.csv")));
    assert!(tests.iter().any(|t| t["below_min_effect"] == "true"));
    assert!(
        tests
            .iter()
            .filter(|t| t["below_min_effect"] == "false")
            .all(|t| t["difference"].parse::<f64>().unwrap().abs() >= 0.5),
        "{tests:?}"
    );
    // Nought or less is refused, naming the option.
    for bad in ["0", "-1", "abc"] {
        let failed = warcrunch()
            .arg("compare")
            .arg(repo().join("scenarios/seventh_sea/even_field_battle.toml"))
            .arg(repo().join("scenarios/seventh_sea/officer_tips_the_balance.toml"))
            .arg(format!("--min-effect={bad}"))
            .assert()
            .failure();
        let err = String::from_utf8_lossy(&failed.get_output().stderr).into_owned();
        assert!(
            err.contains("--min-effect") && err.contains("above 0"),
            "{err}"
        );
    }
}

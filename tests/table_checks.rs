//! A table file is checked as strictly as a scenario: every `stand_ins`
//! entry names something in the table, banded rows leave no result without
//! a row, and a refusal points at the line it refuses.

use std::path::Path;

use crate::util::{repo, table_refused, warcrunch};

/// The bundled table `file` with `from` replaced by `to` (once), written
/// into `dir`; its path.
fn edited(dir: &Path, file: &str, from: &str, to: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(repo().join("scenarios/tables").join(file)).unwrap();
    assert!(text.contains(from), "{file} holds {from:?}");
    let path = dir.join(file.replace('/', "_"));
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path
}

/// `NAME.toml:LINE:` for the first line of the edited file `path` that
/// holds `text`: where a refusal of that value points.
fn at_line(path: &Path, text: &str) -> String {
    let file = std::fs::read_to_string(path).unwrap();
    let line = file
        .lines()
        .position(|l| l.contains(text))
        .expect("the edit")
        + 1;
    format!("{}:{line}:", path.file_name().unwrap().to_string_lossy())
}

const AMBUSH: &str = "scenarios/gurps/ambush_at_the_ford.toml";
const EVEN: &str = "scenarios/seventh_sea/even_field_battle.toml";

#[test]
fn a_stand_in_that_names_nothing_is_refused_naming_what_exists() {
    let dir = tempfile::tempdir().unwrap();
    let colour = edited(
        dir.path(),
        "gurps/glory.toml",
        r#"stand_ins = ["rows"]"#,
        r#"stand_ins = ["rows", "colour"]"#,
    );
    table_refused(
        AMBUSH,
        "glory",
        &colour,
        &[":9: `stand_ins` names `colour`", "allowed: rows"],
    );
    let ninth = edited(
        dir.path(),
        "seventh_sea/spoils.toml",
        r#"stand_ins = ["rows"]"#,
        r#"stand_ins = ["rows.9"]"#,
    );
    table_refused(
        EVEN,
        "spoils",
        &ninth,
        &["`stand_ins` names `rows.9`", "rows.nothing, rows.purse"],
    );
    // One entry listed twice.
    let twice = edited(
        dir.path(),
        "gurps/glory.toml",
        r#"stand_ins = ["rows"]"#,
        r#"stand_ins = ["rows", "rows"]"#,
    );
    table_refused(
        AMBUSH,
        "glory",
        &twice,
        &[":9: `stand_ins` names `rows` twice (entries 0 and 1); list each once"],
    );
    // Every bundled table's own entries name something.
    for system in ["gurps", "seventh_sea"] {
        let scenario = if system == "gurps" { AMBUSH } else { EVEN };
        warcrunch().args(["check", scenario]).assert().success();
    }
}

#[test]
fn banded_rows_leave_no_result_without_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let chart = edited(
        dir.path(),
        "seventh_sea/battle_chart.toml",
        "min_result = -999",
        "min_result = 5",
    );
    table_refused(
        EVEN,
        "battle_chart",
        &chart,
        &[
            &at_line(&chart, "min_result = 5"),
            "the first row must be the catch-all, min_result = -999",
        ],
    );
    let spoils = edited(
        dir.path(),
        "seventh_sea/spoils.toml",
        "{ min_roll = 1,  label = \"nothing\" }",
        "{ min_roll = 3,  label = \"nothing\" }",
    );
    table_refused(
        EVEN,
        "spoils",
        &spoils,
        &["spoils.toml:8:", "a roll of 1 to 2"],
    );
    let glory = edited(
        dir.path(),
        "gurps/glory.toml",
        "min_margin = -999",
        "min_margin = -20",
    );
    table_refused(
        AMBUSH,
        "glory",
        &glory,
        &[
            &at_line(&glory, "min_margin = -20"),
            "the last row (`coward`) must be the catch-all",
        ],
    );
}

#[test]
fn rows_out_of_order_are_refused_at_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let glory = edited(
        dir.path(),
        "gurps/glory.toml",
        "min_margin = 5\n",
        "min_margin = 12\n",
    );
    table_refused(
        AMBUSH,
        "glory",
        &glory,
        &[
            &at_line(&glory, "min_margin = 12"),
            "row 1 (`distinguished`, min_margin = 12)",
        ],
    );
    let results = edited(
        dir.path(),
        "gurps/battle_results.toml",
        "min_margin = 4",
        "min_margin = 1",
    );
    table_refused(
        AMBUSH,
        "battle_results",
        &results,
        &["battle_results.toml:", "comes after row 1"],
    );
}

/// A sensitivity run on a table given with `--table` moves that file's
/// cells, and a move refused names that file, not the built-in table;
/// the catch-all bound is not moved at all.
#[test]
fn a_refused_cell_move_names_the_file_that_was_read() {
    let dir = tempfile::tempdir().unwrap();
    let chart = edited(dir.path(), "seventh_sea/battle_chart.toml", "kind", "kind");
    let out = dir.path().join("sens");
    warcrunch()
        .args([
            "sensitivity",
            EVEN,
            "--target",
            "hero:Isabeau/state=knocked_out",
        ])
        .args([
            "--cells",
            "--tables",
            "battle_chart",
            "--trials",
            "500",
            "--quiet",
        ])
        .arg("--table")
        .arg(format!("battle_chart={}", chart.display()))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let record: serde_json::Value =
        serde_json::from_str(&crate::util::read(&out.join("run.json"))).unwrap();
    let refused = record["refused_moves"].as_array().unwrap();
    assert!(!refused.is_empty(), "a Reputation of 0 cannot go to -1");
    for r in refused {
        let reason = r["reason"].as_str().unwrap();
        assert!(reason.contains(&chart.display().to_string()), "{reason}");
        assert!(!reason.contains("built-in"), "{reason}");
        assert_ne!(r["knob"], "tables.battle_chart.rows.0.min_result", "{r}");
    }
}

/// `check` says what a `--table` or the tables change nothing of: a table
/// no battle of the scenario reads (the rout has no Heroes, so no chart),
/// and Spoils rows its Heroes can never roll.
#[test]
fn check_points_out_tables_and_rows_the_battle_never_reads() {
    let chart = repo().join("scenarios/tables/seventh_sea/battle_chart.toml");
    let rout = warcrunch()
        .args([
            "check",
            "scenarios/seventh_sea/rout_of_a_weaker_army.toml",
            "--table",
        ])
        .arg(format!("battle_chart={}", chart.display()))
        .assert()
        .success();
    let said = String::from_utf8_lossy(&rout.get_output().stdout).into_owned();
    assert!(
        said.contains("no battle of this scenario reads the `battle_chart` table"),
        "{said}"
    );
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo().join(EVEN)).unwrap();
    let officers = dir.path().join("officers.toml");
    let text = text
        .replace("commission = 0", "commission = 4")
        .replace("commission = 2", "commission = 4")
        .replace(
            "policy = \"adaptive\"",
            "policy = \"adaptive\"\ncommission = 4",
        );
    assert_eq!(text.matches("commission = 4").count(), 3);
    std::fs::write(&officers, text).unwrap();
    let even = warcrunch().arg("check").arg(&officers).assert().success();
    let said = String::from_utf8_lossy(&even.get_output().stdout).into_owned();
    assert!(
        said.contains("row `nothing` (min_roll = 1) is never rolled here: its Heroes roll 5 to 14"),
        "{said}"
    );
    // A comparison of two charts leaves the rout out, saying why.
    let out = dir.path().join("tc");
    let compared = warcrunch()
        .args([
            "compare",
            "scenarios/seventh_sea",
            "--trials",
            "500",
            "--table",
        ])
        .arg(format!("battle_chart=builtin,{}", chart.display()))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let said = String::from_utf8_lossy(&compared.get_output().stdout).into_owned();
    assert!(
        said.contains(
            "rout_of_a_weaker_army: not compared, it does not read `battle_chart` (reads no table)"
        ),
        "{said}"
    );
}

#[test]
fn a_dice_cell_that_is_not_xky_is_refused_at_its_line_by_its_cell_path() {
    let dir = tempfile::tempdir().unwrap();
    let chart = edited(
        dir.path(),
        "seventh_sea/battle_chart.toml",
        r#"damage = "3k2""#,
        r#"damage = "0k0""#,
    );
    table_refused(
        EVEN,
        "battle_chart",
        &chart,
        &[&format!(
            "{} rows.0.not_engaged.damage = \"0k0\": expected XkY with 1 <= Y <= X <= 20",
            at_line(&chart, "0k0")
        )],
    );
}

//! `sensitivity` moves the settings that are not numbers: a yes/no
//! toggled, a word to each other word its schema allows, a list with each
//! entry removed and each entry its table names added; each such move fights
//! the battles a sweep of that setting fights.

use crate::util::{csv_rows, number, read, repo, warcrunch};

#[test]
fn words_yes_no_and_lists_move_like_a_sweep_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    let target = "party/any_down_or_dead=yes";
    let out = dir.path().join("knobs");
    warcrunch()
        .args(["sensitivity", "--quiet", "--trials", "20000", "--seed", "6"])
        .args(["--target", target])
        .args([
            "--knobs",
            "sides.Megalos.commander_luck,sides.Megalos.armour,sides.Raiders.position,heroes.Titus.role",
        ])
        .arg("--out")
        .arg(&out)
        .arg(&ambush)
        .assert()
        .success();
    let csv = read(&out.join("sensitivity.csv"));
    let moves: Vec<(String, String, String, f64)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].into(), f[4].into(), f[5].into(), f[9].parse().unwrap())
        })
        .collect();
    let to_of = |knob: &str| -> Vec<String> {
        let mut to: Vec<String> = moves
            .iter()
            .filter(|m| m.0 == knob)
            .map(|m| format!("{}->{}", m.1, m.2))
            .collect();
        to.sort();
        to
    };
    assert_eq!(to_of("sides.Megalos.commander_luck"), ["true->false"]);
    assert_eq!(
        to_of("sides.Megalos.armour"),
        [
            "medium->heavy",
            "medium->light",
            "medium->none",
            "medium->spearmen"
        ]
    );
    // The Strategy table names two defender positions: one removed, one added.
    assert_eq!(
        to_of("sides.Raiders.position"),
        ["uphill->none", "uphill->uphill+leaving_cover"]
    );
    assert_eq!(
        to_of("heroes.Titus.role"),
        ["unit_commander->army_commander", "unit_commander->soldier"]
    );
    // The toggled Luck fights the battles a sweep of it fights.
    let sweep = dir.path().join("sweep");
    warcrunch()
        .args(["sweep", "--quiet", "--trials", "20000", "--seed", "6"])
        .args(["--set", "sides.Megalos.commander_luck=true,false"])
        .arg("--out")
        .arg(&sweep)
        .arg(&ambush)
        .assert()
        .success();
    let distributions = csv_rows(&sweep.join("distributions.csv"));
    let yes = |variant: &str| -> f64 {
        let row = distributions
            .iter()
            .find(|r| {
                r["variant"] == variant
                    && r["subject"] == "party"
                    && r["metric"] == "any_down_or_dead"
                    && r["value"] == "yes"
            })
            .unwrap_or_else(|| panic!("no {variant} row"));
        number(row, "count") / 20000.0
    };
    let luck = moves
        .iter()
        .find(|m| m.0 == "sides.Megalos.commander_luck")
        .unwrap();
    assert_eq!(luck.3, yes("commander_luck=false"));
    assert_ne!(yes("commander_luck=false"), yes("commander_luck=true"));
}

/// A table cell named with `--knobs` moves as `--cells` moves it.
#[test]
fn a_cell_is_a_knob_by_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    let sensitivity = |extra: &[&str], out: &str| -> String {
        let out = dir.path().join(out);
        warcrunch()
            .args(["sensitivity", "--quiet", "--exact"])
            .args(["--target", "party/any_down_or_dead=yes"])
            .args(extra)
            .arg("--out")
            .arg(&out)
            .arg(&ambush)
            .assert()
            .success();
        read(&out.join("sensitivity.csv"))
    };
    let row = |csv: &str| -> String {
        csv.lines()
            .find(|l| l.starts_with("tables.survival.rows.D.column,"))
            .unwrap_or_else(|| panic!("no row in {csv}"))
            .to_owned()
    };
    let named = sensitivity(&["--knobs", "tables.survival.rows.D.column"], "named");
    let cells = sensitivity(&["--cells", "--tables", "survival"], "cells");
    assert_eq!(named.lines().count(), 2, "one move: D to C");
    assert_eq!(row(&named), row(&cells));
    let wrong = crate::util::failure_stderr(
        warcrunch()
            .args(["sensitivity", "--target", "party/any_down_or_dead=yes"])
            .args(["--knobs", "tables.survival.rows.Q.column"])
            .arg(&ambush),
    );
    assert!(
        wrong.contains("table `survival` has no cell there") && wrong.contains("rows.D.column"),
        "{wrong}"
    );
}

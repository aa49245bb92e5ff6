//! A table's cell is a setting like any other: `--set tables.NAME.CELL=…`
//! and `[tables.NAME] set = {…}` give the same battles as a hand-edited
//! copy of the table, and a wrong cell is refused naming the table, the
//! row as the file shows it and what is allowed.

use std::path::Path;

use crate::util::{
    csv_rows, failure_stderr, number, read, refused_writing_nothing, repo, warcrunch,
};

/// `distributions.csv` rows of `variant`, from the subject on (without
/// the variant and the swept settings' columns).
fn variant_rows(csv: &str, variant: &str) -> Vec<String> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let subject = header.iter().position(|h| h == "subject").unwrap();
    reader
        .records()
        .map(Result::unwrap)
        .filter(|r| &r[0] == variant)
        .map(|r| r.iter().skip(subject).collect::<Vec<_>>().join(","))
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
    refused_writing_nothing(warcrunch().args(args).arg("--out").arg(&out), &out, expect);
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

/// The exact probability of `subject,metric,value` in a run's `exact.csv`.
fn exact_probability(dir: &Path, key: &str) -> f64 {
    let row = csv_rows(&dir.join("exact.csv"))
        .into_iter()
        .find(|r| format!("{},{},{}", r["subject"], r["metric"], r["value"]) == key)
        .unwrap_or_else(|| panic!("no {key} in exact.csv"));
    number(&row, "exact_probability")
}

/// The row of `knob` moved `from -> to` in a `sensitivity.csv`, as fields.
fn move_row(csv: &str, knob: &str, to: &str) -> Vec<String> {
    csv.lines()
        .map(|l| l.split(',').map(str::to_owned).collect::<Vec<_>>())
        .find(|f| f[0] == knob && f[5] == to)
        .unwrap_or_else(|| panic!("no move {knob} -> {to} in:\n{csv}"))
}

/// `sensitivity --cells --tables TABLE` of `scenario` into `out`; its
/// `sensitivity.csv`.
fn cells_of(scenario: &Path, table: &str, target: &str, extra: &[&str], out: &Path) -> String {
    warcrunch()
        .args(["sensitivity", "--quiet", "--cells", "--tables", table])
        .args(["--target", target])
        .args(extra)
        .arg("--out")
        .arg(out)
        .arg(scenario)
        .assert()
        .success();
    read(&out.join("sensitivity.csv"))
}

/// `--cells --exact` on one-day GURPS: each Survival cell's exact
/// difference equals the difference of two exact runs, the scenario as
/// written and one whose table is a hand-edited copy.
#[test]
fn exact_cell_differences_equal_two_exact_runs_of_edited_tables() {
    let dir = tempfile::tempdir().unwrap();
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    let csv = cells_of(
        &ambush,
        "survival",
        "party/any_down_or_dead=yes",
        &["--exact"],
        &dir.path().join("cells"),
    );
    assert!(csv.starts_with("knob,table,row,column,from,to,"), "{csv}");
    let exact_run = |name: &str, table: Option<&Path>| {
        let out = dir.path().join(name);
        let mut cmd = warcrunch();
        cmd.args(["run", "--quiet", "--exact", "--trials", "1000", "--out"])
            .arg(&out)
            .arg(&ambush);
        if let Some(table) = table {
            cmd.arg("--table")
                .arg(format!("survival={}", table.display()));
        }
        cmd.assert().success();
        exact_probability(&out, "party,any_down_or_dead,yes")
    };
    let base = exact_run("base", None);
    let survival = read(&repo().join("scenarios/tables/gurps/survival.toml"));
    for (label, from, to) in [("D", "D", "C"), ("B", "B", "C"), ("A", "A", "B")] {
        let old = format!("label = \"{label}\"\ncolumn = \"{from}\"");
        assert!(survival.contains(&old), "the table has {old}");
        let copy = dir.path().join(format!("survival_{label}{to}.toml"));
        std::fs::write(
            &copy,
            survival.replace(&old, &format!("label = \"{label}\"\ncolumn = \"{to}\"")),
        )
        .unwrap();
        let edited = exact_run(&format!("edited_{label}{to}"), Some(&copy));
        let row = move_row(&csv, &format!("tables.survival.rows.{label}.column"), to);
        assert_eq!(
            &row[1..5],
            ["survival", &format!("rows.{label}"), "column", from]
        );
        let difference: f64 = row[10].parse().unwrap();
        assert!(
            (difference - (edited - base)).abs() < 1e-12,
            "rows.{label}.column {from}->{to}: {difference} against {}",
            edited - base
        );
        assert_eq!(row[13], "exact");
    }
}

/// A paired cell difference (a 7th Sea Battle Chart cell) agrees with two
/// separate runs, the second with a hand-edited chart, within their
/// intervals.
#[test]
fn a_paired_cell_difference_agrees_with_two_separate_runs() {
    let dir = tempfile::tempdir().unwrap();
    let even = repo().join("scenarios/seventh_sea/even_field_battle.toml");
    let csv = cells_of(
        &even,
        "battle_chart",
        "hero:Isabeau/state=knocked_out",
        &["--trials", "20000"],
        &dir.path().join("cells"),
    );
    let row = move_row(
        &csv,
        "tables.battle_chart.rows.1.engaged.opportunity",
        "false",
    );
    let (paired, low, high): (f64, f64, f64) = (
        row[10].parse().unwrap(),
        row[11].parse().unwrap(),
        row[12].parse().unwrap(),
    );
    assert!(high < 0.0, "the flag matters: {paired} ({low} to {high})");
    // The second row of the chart (rows.1) with no opportunity when engaged.
    let chart = read(&repo().join("scenarios/tables/seventh_sea/battle_chart.toml"));
    let old = "engaged         = { damage = \"4k2\", reputation = 1, opportunity = true }";
    assert_eq!(
        chart.matches(old).count(),
        1,
        "the chart's rows.1 engaged cell"
    );
    let copy = dir.path().join("chart.toml");
    std::fs::write(
        &copy,
        chart.replace(
            old,
            "engaged         = { damage = \"4k2\", reputation = 1 }",
        ),
    )
    .unwrap();
    let knocked_out = |name: &str, table: Option<&Path>| -> (f64, f64) {
        let out = dir.path().join(name);
        let mut cmd = warcrunch();
        cmd.args([
            "run", "--quiet", "--trials", "200000", "--seed", "11", "--out",
        ])
        .arg(&out)
        .arg(&even);
        if let Some(table) = table {
            cmd.arg("--table")
                .arg(format!("battle_chart={}", table.display()));
        }
        cmd.assert().success();
        let row = csv_rows(&out.join("distributions.csv"))
            .into_iter()
            .find(|r| {
                (
                    r["subject"].as_str(),
                    r["metric"].as_str(),
                    r["value"].as_str(),
                ) == ("hero:Isabeau", "state", "knocked_out")
            })
            .unwrap();
        // probability and its half-width
        (
            number(&row, "probability"),
            (number(&row, "ci_high") - number(&row, "ci_low")) / 2.0,
        )
    };
    let (p0, w0) = knocked_out("base", None);
    let (p1, w1) = knocked_out("edited", Some(&copy));
    let separate = p1 - p0;
    let slack = (w0 * w0 + w1 * w1).sqrt() + (high - low) / 2.0;
    assert!(
        (separate - paired).abs() <= slack,
        "separate runs {separate:.4} against paired {paired:.4} ({low:.4} to {high:.4})"
    );
}

#[test]
fn cells_of_an_unknown_table_are_refused_naming_the_tables_read() {
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    refused(
        &[
            "sensitivity",
            ambush.to_str().unwrap(),
            "--target",
            "party/any_down_or_dead=yes",
            "--cells",
            "--tables",
            "survivl",
        ],
        &[
            "--tables survivl",
            "allowed:",
            "survival",
            "glory",
            "catastrophe",
        ],
    );
}

/// A threshold on a numeric metric is the sum of its values on that side:
/// `party/down_or_dead>=2` in an exact sensitivity analysis equals the
/// exact run's distribution summed from 2 up, and `<2` is the rest.
#[test]
fn a_threshold_target_sums_the_values_on_its_side() {
    let dir = tempfile::tempdir().unwrap();
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    let run = dir.path().join("run");
    warcrunch()
        .args(["run", "--quiet", "--exact", "--trials", "1000", "--out"])
        .arg(&run)
        .arg(&ambush)
        .assert()
        .success();
    let mut at_least_two = 0.0;
    let mut below_two = 0.0;
    for r in csv_rows(&run.join("exact.csv")) {
        if r["subject"] == "party" && r["metric"] == "down_or_dead" {
            let p = number(&r, "exact_probability");
            if r["value"].parse::<i64>().unwrap() >= 2 {
                at_least_two += p;
            } else {
                below_two += p;
            }
        }
    }
    assert!(at_least_two > 0.0 && below_two > 0.0);
    for (target, expected) in [
        ("party/down_or_dead>=2", at_least_two),
        ("party/down_or_dead<2", below_two),
    ] {
        let out = dir.path().join(target.replace(['/', '<', '>', '='], "_"));
        warcrunch()
            .args([
                "sensitivity",
                "--quiet",
                "--exact",
                "--knobs",
                "heroes.Titus.risk",
            ])
            .args(["--target", target, "--out"])
            .arg(&out)
            .arg(&ambush)
            .assert()
            .success();
        let csv = read(&out.join("sensitivity.csv"));
        let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
        assert_eq!((row[6], row[7]), ("party/down_or_dead", &target[18..]));
        let base: f64 = row[8].parse().unwrap();
        assert!(
            (base - expected).abs() < 1e-12,
            "{target}: {base} against {expected}"
        );
    }
    // A threshold on a metric that is not a number is refused, naming its values.
    refused(
        &[
            "sensitivity",
            ambush.to_str().unwrap(),
            "--target",
            "hero:Titus/state>=1",
        ],
        &["takes no threshold", "allowed:"],
    );
}

/// `check --table NAME=FILE` checks a table file on its own, with every
/// check a scenario's table gets.
#[test]
fn a_table_is_checked_on_its_own() {
    let table = |file: &str| repo().join("scenarios/tables").join(file);
    let out = warcrunch()
        .args(["check", "--table"])
        .arg(format!(
            "survival={}",
            table("gurps/survival.toml").display()
        ))
        .arg("--table")
        .arg(format!(
            "battle_chart={}",
            table("seventh_sea/battle_chart.toml").display()
        ))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("a valid `survival` table (stand-ins: none)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("a valid `battle_chart` table (stand-ins: rows)"),
        "{stdout}"
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("survival.toml");
    std::fs::write(
        &bad,
        read(&table("gurps/survival.toml")).replace("column = \"D\"", "column = \"E\""),
    )
    .unwrap();
    for (given, expect) in [
        (
            format!("survival={}", bad.display()),
            vec!["`E`", "`A`, `B`, `C`, `D`"],
        ),
        (
            format!("survival={}", table("gurps/glory.toml").display()),
            vec!["this is a `glory` table", "given as the `survival` table"],
        ),
        (
            format!("survivl={}", bad.display()),
            vec!["no table is named `survivl`", "allowed:", "battle_chart"],
        ),
    ] {
        let stderr = failure_stderr(warcrunch().args(["check", "--table", &given]));
        for fragment in expect {
            assert!(
                stderr.contains(fragment),
                "{given}: expected {fragment:?} in {stderr}"
            );
        }
    }
}

/// A table checked on its own is refused, with the file's line, when a
/// value has the wrong type, two rows share a label (a cell path could not
/// tell them apart), a row takes a label the results already use, or a row
/// can never be rolled.
#[test]
fn a_table_with_an_ambiguous_or_unreachable_row_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let table = |file: &str| read(&repo().join("scenarios/tables").join(file));
    let survival = table("gurps/survival.toml");
    let spoils = table("seventh_sea/spoils.toml");
    let line_of = |text: &str, needle: &str, nth: usize| {
        text.lines()
            .enumerate()
            .filter(|(_, l)| l.contains(needle))
            .nth(nth)
            .map(|(i, _)| i + 1)
            .unwrap()
    };
    let mistyped = survival.replacen("min_margin = 1\n", "min_margin = \"x\"\n", 1);
    let twice = survival.replacen("label = \"1hp\"", "label = \"unhurt\"", 1);
    let reserved = spoils.replacen("label = \"purse\"", "label = \"none\"", 1);
    let unreachable = spoils.replacen("min_roll = 11", "min_roll = 25", 1);
    for (name, text, expect) in [
        (
            "survival",
            &mistyped,
            vec![
                format!("line {}", line_of(&mistyped, "\"x\"", 0)),
                "\"x\" is text, but a whole number is expected here".to_owned(),
            ],
        ),
        (
            "survival",
            &twice,
            vec![
                format!(":{}:", line_of(&twice, "label = \"unhurt\"", 1)),
                "two rows labelled `unhurt` (rows 0 and 1".to_owned(),
            ],
        ),
        (
            "spoils",
            &reserved,
            vec![
                format!(":{}:", line_of(&reserved, "label = \"none\"", 0)),
                "labelled `none`, which the results already use".to_owned(),
            ],
        ),
        (
            "spoils",
            &unreachable,
            vec![
                format!(":{}:", line_of(&unreachable, "min_roll = 25", 0)),
                "`rows.4.min_roll` = 25 is out of range; allowed: -999 to 20".to_owned(),
            ],
        ),
    ] {
        assert_ne!(text, &survival);
        assert_ne!(text, &spoils);
        let file = dir.path().join(format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        let given = format!("{name}={}", file.display());
        let stderr = failure_stderr(warcrunch().args(["check", "--table", &given]));
        for fragment in expect {
            assert!(
                stderr.contains(&fragment),
                "{given}: expected {fragment:?} in {stderr}"
            );
        }
    }
}

/// Ways three dice make each sum 3..=18.
fn three_d6() -> [u32; 19] {
    let mut ways = [0; 19];
    for a in 1..=6 {
        for b in 1..=6 {
            for c in 1..=6 {
                ways[a + b + c] += 1;
            }
        }
    }
    ways
}

/// The law of the HP `hits` hits of 2d+2 through DR 3 take: each hit at
/// least 0 (the TL 3 damage of columns C and D).
fn hits_law(hits: usize) -> Vec<f64> {
    let mut law = vec![1.0];
    for _ in 0..hits {
        let mut next = vec![0.0; law.len() + 13];
        for (so_far, p) in law.iter().enumerate() {
            for a in 1..=6 {
                for b in 1..=6 {
                    let hit = (a + b + 2 - 3).max(0) as usize;
                    next[so_far + hit] += p / 36.0;
                }
            }
        }
        law = next;
    }
    law
}

/// `sensitivity --knobs tables.survival.rows.D.column --exact` against the
/// rules worked by hand. Varro (Survival against 9, HP 12, HT 12, DR 3)
/// fights one day on a side that cannot lose (Strategy 30 against 0), so
/// no losing-side penalty: he lands on row D (failed by 7+, or a critical
/// failure: 16, 17 or 18 on 3d6) 10 times in 216. Column D is three hits
/// of 2d+2 - DR, column C two. At 0 HP or below he rolls HT to stay
/// conscious, and at -HT one more to live; he is out (down or dead) unless
/// every roll is made (3d6 <= 12).
#[test]
fn a_survival_column_moved_matches_the_rules_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("sure.toml");
    std::fs::write(
        &scenario,
        "system = \"gurps\"\nname = \"A sure win\"\ndays = 1\ntech_level = 3\n\n[[sides]]\nname = \"Megalos\"\nstrategy = 30\ntroop_strength = 2000\nattacker = true\n\n[[sides]]\nname = \"Raiders\"\nstrategy = 0\ntroop_strength = 1000\n\n[[heroes]]\nname = \"Varro\"\nside = \"Megalos\"\nrole = \"soldier\"\ntactics = 10\nweapon_skill = 14\nhp = 12\nht = 12\ndr = 3\nrisk = -3\n",
    )
    .unwrap();
    let ways = three_d6();
    let p_row_d: f64 = (16..=18).map(|r| f64::from(ways[r])).sum::<f64>() / 216.0;
    let p_ht: f64 = (3..=12).map(|r| f64::from(ways[r])).sum::<f64>() / 216.0;
    let (hp, ht) = (12i64, 12i64);
    let p_out = |hits: usize| -> f64 {
        hits_law(hits)
            .iter()
            .enumerate()
            .map(|(damage, p)| {
                let after = hp - damage as i64;
                if after > 0 {
                    return 0.0;
                }
                let rolls = 1 + (-after / ht) as i32;
                p * (1.0 - p_ht.powi(rolls))
            })
            .sum()
    };
    let by_hand = p_row_d * (p_out(2) - p_out(3));
    let out = dir.path().join("cells");
    warcrunch()
        .args(["sensitivity", "--quiet", "--exact"])
        .args(["--target", "hero:Varro/state=down|dead"])
        .args(["--knobs", "tables.survival.rows.D.column"])
        .arg("--out")
        .arg(&out)
        .arg(&scenario)
        .assert()
        .success();
    let csv = read(&out.join("sensitivity.csv"));
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(
        &row[..6],
        [
            "tables.survival.rows.D.column",
            "survival",
            "rows.D",
            "column",
            "D",
            "C"
        ]
    );
    assert_eq!(row[13], "exact");
    let difference: f64 = row[10].parse().unwrap();
    assert!(by_hand < -0.005, "a milder column saves Varro: {by_hand}");
    assert!(
        (difference - by_hand).abs() < 1e-12,
        "D -> C: {difference} against {by_hand} by hand"
    );
}

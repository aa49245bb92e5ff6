//! What a user acts on is true: the outputs that once misled, each run as a
//! user would run it.

use predicates::prelude::*;

use crate::util::{check_refused, csv_rows, read, repo, setup, warcrunch};

fn ambush() -> String {
    read(&repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
}

/// `warcrunch sweep` of a bundled scenario at 20,000 trials into `out`, with
/// `options`; its standard output.
fn sweep(scenario: &str, out: &std::path::Path, options: &[&str]) -> String {
    let assert = warcrunch()
        .args(["sweep", "--trials", "20000"])
        .args(options)
        .arg("--out")
        .arg(out)
        .arg(repo().join("scenarios").join(scenario))
        .assert()
        .success();
    String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
}

#[test]
fn a_sweep_over_no_pcs_setting_recommends_nothing_for_a_pc() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let troops = ["--set", "sides.Raiders.troop_strength=700,900"];
    let stdout = sweep("gurps/ambush_at_the_ford.toml", &out, &troops);
    assert!(
        stdout.contains("No recommendation: no swept setting belongs to a PC"),
        "{stdout}"
    );
    assert!(!stdout.contains("recommended:"), "{stdout}");
    let html = read(&out.join("report.html"));
    assert!(!html.contains("(recommended)"));
    // Asked for by name, it is made.
    let named = [&troops[..], &["--recommend-for", "Titus"]].concat();
    let stdout = sweep(
        "gurps/ambush_at_the_ford.toml",
        &dir.path().join("named"),
        &named,
    );
    assert!(stdout.contains("For Titus (cap 5.0%):"), "{stdout}");
}

#[test]
fn the_only_policy_under_the_cap_is_called_that() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = sweep(
        "seventh_sea/even_field_battle.toml",
        &dir.path().join("s"),
        &[
            "--set",
            "heroes.Isabeau.policy=rear,heavily_engaged",
            "--max-risk-of-down",
            "0.05",
        ],
    );
    let advice = stdout
        .lines()
        .skip_while(|l| !l.starts_with("For Isabeau"))
        .nth(1)
        .unwrap_or_else(|| panic!("advice for Isabeau: {stdout}"));
    assert!(
        advice.contains("the only variant") || advice.contains("no variant keeps"),
        "a variant alone under the cap is not 'level with the best': {advice}"
    );
    assert!(!advice.contains("level with the best"), "{advice}");
}

#[test]
fn compare_counts_agree_across_console_report_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let better = dir.path().join("better_general.toml");
    std::fs::write(&better, ambush().replace("strategy = 14", "strategy = 17")).unwrap();
    let out = dir.path().join("cmp");
    let assert = warcrunch()
        .args(["compare", "--trials", "50000", "--out"])
        .arg(&out)
        .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
        .arg(&better)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let rows = csv_rows(&out.join("comparison.csv"));
    let significant = rows.iter().filter(|r| r["significant"] == "true").count();
    assert!(significant > 0);
    let said = format!("{significant} of {} tests significant", rows.len());
    assert!(stdout.contains(&said), "console says {said}: {stdout}");
    let html = read(&out.join("report.html"));
    assert!(html.contains(&said), "report says {said}");
    // Every significant test is listed, or counted as "and N more".
    let listed = stdout.lines().filter(|l| l.starts_with("  ")).count();
    let more = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("and "))
        .map_or(0, |rest| {
            rest.split(' ').next().unwrap().parse::<usize>().unwrap()
        });
    assert_eq!(
        listed - usize::from(more > 0) + more,
        significant,
        "{stdout}"
    );
    assert!(!stdout.contains("0.00e0"), "{stdout}");
    assert!(html.matches("<tr><td class=\"l\">").count() >= significant);
    // run.json names each scenario with its hash and tables.
    let run: serde_json::Value = serde_json::from_str(&read(&out.join("run.json"))).unwrap();
    let scenarios = run["scenarios"].as_array().expect("scenarios recorded");
    assert_eq!(scenarios.len(), 2);
    for s in scenarios {
        assert_eq!(s["sha256"].as_str().unwrap().len(), 64);
        assert!(!s["tables"].as_array().unwrap().is_empty());
    }
    assert_ne!(scenarios[0]["sha256"], scenarios[1]["sha256"]);
}

#[test]
fn a_position_nobody_attacks_is_refused() {
    let (_dir, path, _out) = setup(&ambush().replace("attacker = true\n", ""));
    check_refused(
        &path,
        &["sides[1].position", "no side has `attacker = true`"],
    );
}

#[test]
fn leadership_without_an_officer_is_refused() {
    let text = read(&repo().join("scenarios/seventh_sea/even_field_battle.toml")).replacen(
        "leadership = 0",
        "leadership = 3",
        1,
    );
    let (_dir, path, _out) = setup(&text);
    check_refused(&path, &["leadership", "not an officer", "would be ignored"]);
}

#[test]
fn an_option_at_fault_is_named_not_a_line_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let assert = warcrunch()
        .args(["run", "--table", "damage=nope.toml", "--out"])
        .arg(dir.path().join("o"))
        .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("--table damage="), "{stderr}");
    assert!(stderr.contains("nope.toml"), "{stderr}");
    assert!(!stderr.contains("ambush_at_the_ford.toml:"), "{stderr}");
    warcrunch()
        .args(["sweep", "--set", "heroes.Titus.risk=-8..0", "--out"])
        .arg(dir.path().join("s"))
        .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("--set heroes.Titus.risk=-8..0 (value -8)")
                .and(predicate::str::contains("allowed: -6 to 6"))
                .and(predicate::str::contains("ambush_at_the_ford.toml:").not()),
        );
}

#[test]
fn check_speaks_the_files_language_and_shows_the_modifiers() {
    let gurps = warcrunch()
        .arg("check")
        .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
        .assert()
        .success();
    let text = String::from_utf8_lossy(&gurps.get_output().stdout).into_owned();
    for part in [
        "unit_commander",
        "Troop-Strength ratio 1.500:1 -> +2 to Megalos",
        "defender's position uphill -> -3",
    ] {
        assert!(text.contains(part), "missing {part}: {text}");
    }
    let sea = warcrunch()
        .arg("check")
        .arg(repo().join("scenarios/seventh_sea/even_field_battle.toml"))
        .assert()
        .success();
    let text = String::from_utf8_lossy(&sea.get_output().stdout).into_owned() + &text;
    for internal in [
        "UnitCommander",
        "OneDie",
        "HeavilyEngaged",
        "NotEngaged",
        "Keep",
    ] {
        assert!(!text.contains(internal), "{internal} in: {text}");
    }
}

#[test]
fn every_report_lists_the_rules_not_modelled() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    warcrunch()
        .args(["run", "--quiet", "--trials", "2000", "--out"])
        .arg(&out)
        .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
        .assert()
        .success();
    let run = read(&out.join("run.json"));
    assert!(run.contains("not modelled: a catastrophe's Morale penalty to the one struck unit"));
    assert!(run.contains("per full 4 points of margin"));
    assert!(read(&out.join("report.html")).contains("not modelled"));
}

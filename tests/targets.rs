//! `--target` in a run, a sweep and a comparison: the event becomes a
//! yes/no outcome of its own, whose counts are those of the values it
//! names, whose exact probability is theirs, and which a comparison tests
//! battle by battle.

use std::path::Path;

use crate::util::{csv_rows, number, read, refused_writing_nothing, repo, warcrunch};

/// (variant, subject, metric, value, count or exact probability) of each
/// row of `distributions.csv` or `exact.csv` (variant empty in a plain run).
fn rows(path: &Path) -> Vec<(String, String, String, String, f64)> {
    csv_rows(path)
        .into_iter()
        .map(|r| {
            let weight = if r.contains_key("count") {
                number(&r, "count")
            } else {
                number(&r, "exact_probability")
            };
            (
                r.get("variant").cloned().unwrap_or_default(),
                r["subject"].clone(),
                r["metric"].clone(),
                r["value"].clone(),
                weight,
            )
        })
        .collect()
}

/// The weight of `subject/metric` values for which `keep` holds.
fn weight_of(
    rows: &[(String, String, String, String, f64)],
    variant: &str,
    subject: &str,
    metric: &str,
    keep: impl Fn(&str) -> bool,
) -> f64 {
    rows.iter()
        .filter(|r| r.0 == variant && r.1 == subject && r.2 == metric && keep(&r.3))
        .map(|r| r.4)
        .sum()
}

fn at_least(threshold: i64) -> impl Fn(&str) -> bool {
    move |v: &str| v.parse::<i64>().unwrap() >= threshold
}

#[test]
fn a_target_counts_the_battles_of_the_values_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    warcrunch()
        .args(["run", "--quiet", "--trials", "20000", "--seed", "3"])
        .arg(repo().join("scenarios/seventh_sea/even_field_battle.toml"))
        .args(["--target", "hero:Isabeau/reputation>=10"])
        .args(["--target", "hero:Isabeau/state=crippled|knocked_out"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let rows = rows(&out.join("distributions.csv"));
    let yes = |metric: &str| weight_of(&rows, "", "hero:Isabeau", metric, |v| v == "yes");
    let no = |metric: &str| weight_of(&rows, "", "hero:Isabeau", metric, |v| v == "no");
    let high = weight_of(&rows, "", "hero:Isabeau", "reputation", at_least(10));
    assert!(high > 0.0 && high < 20000.0, "a threshold inside the range");
    assert_eq!(yes("reputation>=10"), high);
    assert_eq!(no("reputation>=10"), 20000.0 - high);
    let out_of_action = weight_of(&rows, "", "hero:Isabeau", "state", |v| v != "fine");
    assert_eq!(yes("state=crippled|knocked_out"), out_of_action);
    assert_eq!(no("state=crippled|knocked_out"), 20000.0 - out_of_action);
    let run_json = read(&out.join("run.json"));
    assert!(
        run_json.contains("--target 'hero:Isabeau/reputation>=10'"),
        "the command asks the targets again: {run_json}"
    );
}

#[test]
fn a_target_has_the_exact_probability_of_its_values() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("exact");
    warcrunch()
        .args(["run", "--quiet", "--exact", "--trials", "20000"])
        .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
        .args(["--target", "party/down_or_dead>=1"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let exact = rows(&out.join("exact.csv"));
    let any = weight_of(&exact, "", "party", "down_or_dead", at_least(1));
    let yes = weight_of(&exact, "", "party", "down_or_dead>=1", |v| v == "yes");
    assert!(any > 0.01, "someone is hurt in the ambush: {any}");
    assert!((yes - any).abs() < 1e-12, "{yes} against {any}");
    let agrees = read(&out.join("exact.csv"))
        .lines()
        .filter(|l| l.contains("down_or_dead>=1"))
        .all(|l| l.ends_with(",true"));
    assert!(agrees, "the simulated target inside its exact interval");
}

/// A scenario compared with an identical copy shares every battle: the
/// target's paired difference is zero. Against a bolder Isabeau it moves,
/// and its `yes` and `no` move by opposite amounts.
#[test]
fn a_comparison_tests_a_target_battle_by_battle() {
    let dir = tempfile::tempdir().unwrap();
    let even = repo().join("scenarios/seventh_sea/even_field_battle.toml");
    let text = read(&even);
    let same = dir.path().join("same.toml");
    std::fs::write(&same, &text).unwrap();
    let bold = dir.path().join("bold.toml");
    let bolder = text.replacen("policy = \"engaged\"", "policy = \"heavily_engaged\"", 1);
    assert_ne!(bolder, text);
    std::fs::write(&bold, bolder).unwrap();
    let compare = |other: &Path, out: &Path| {
        warcrunch()
            .args(["compare", "--quiet", "--trials", "20000", "--seed", "9"])
            .arg(&even)
            .arg(other)
            .args(["--target", "hero:Isabeau/reputation>=3"])
            .arg("--out")
            .arg(out)
            .assert()
            .success();
        csv_rows(&out.join("comparison.csv"))
    };
    let tests_of = |csv: &[std::collections::BTreeMap<String, String>], value: &str| {
        csv.iter()
            .find(|r| {
                (
                    r["subject"].as_str(),
                    r["metric"].as_str(),
                    r["value"].as_str(),
                ) == ("hero:Isabeau", "reputation>=3", value)
            })
            .unwrap_or_else(|| panic!("no {value} test in {csv:?}"))
            .clone()
    };
    let identical = compare(&same, &dir.path().join("same"));
    let yes = tests_of(&identical, "yes");
    assert_eq!(yes["test"], "mcnemar", "tested on its pairs: {yes:?}");
    assert_eq!(
        yes["baseline_estimate"], yes["estimate"],
        "same battles, same estimate"
    );
    assert_eq!(number(&yes, "difference"), 0.0);
    assert_eq!(yes["significant"], "false");

    let moved = compare(&bold, &dir.path().join("bold"));
    let yes = tests_of(&moved, "yes");
    assert_eq!(yes["method"], "paired_newcombe");
    assert!(
        number(&yes, "difference") > 0.0,
        "bolder, more famous: {yes:?}"
    );
    assert_eq!(yes["significant"], "true");
    // A yes-or-no event is one question: one test, not "no" and a
    // chi-square beside it.
    let asked: Vec<&str> = moved
        .iter()
        .filter(|r| r["subject"] == "hero:Isabeau" && r["metric"] == "reputation>=3")
        .map(|r| r["value"].as_str())
        .collect();
    assert_eq!(asked, ["yes"]);
}

#[test]
fn a_sweep_reports_a_target_for_every_variant() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    warcrunch()
        .args(["sweep", "--quiet", "--trials", "5000"])
        .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
        .args(["--set", "heroes.Titus.risk=-2,0,2"])
        .args(["--target", "hero:Titus/reputation>=1"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let rows = rows(&out.join("distributions.csv"));
    for variant in ["risk=-2", "risk=0", "risk=2"] {
        let yes = weight_of(&rows, variant, "hero:Titus", "reputation>=1", |v| {
            v == "yes"
        });
        let famous = weight_of(&rows, variant, "hero:Titus", "reputation", at_least(1));
        assert!(famous > 0.0, "{variant}: Titus earns Reputation");
        assert_eq!(yes, famous, "{variant}");
    }
}

#[test]
fn a_target_the_battle_cannot_report_is_refused_before_any_battle() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let even = repo().join("scenarios/seventh_sea/even_field_battle.toml");
    refused_writing_nothing(
        warcrunch()
            .arg("run")
            .arg(&even)
            .args(["--target", "hero:Isabeau/state>=1", "--out"])
            .arg(&out),
        &out,
        &["takes no threshold", "fine, crippled, knocked_out"],
    );
    refused_writing_nothing(
        warcrunch()
            .arg("compare")
            .arg(&even)
            .arg(repo().join("scenarios/seventh_sea/officer_tips_the_balance.toml"))
            .args(["--target", "hero:Isabeau/reputation>=3", "--out"])
            .arg(&out),
        &out,
        &[
            "officer_tips_the_balance",
            "no subject `hero:Isabeau`",
            "allowed:",
        ],
    );
    refused_writing_nothing(
        warcrunch()
            .arg("run")
            .arg(&even)
            .args(["--target", "party/knocked_out>=1"])
            .args(["--target", "party/knocked_out>=1", "--out"])
            .arg(&out),
        &out,
        &["given twice"],
    );
}

/// `solve --balance`: the share of decided battles the attacker wins, at
/// each probe, is P(attacker won) / (P(attacker won) + P(defender won))
/// of that variant's exact distribution; the answer brackets one half.
#[test]
fn a_balance_is_the_share_of_decided_battles_won() {
    let dir = tempfile::tempdir().unwrap();
    let knights = repo().join("scenarios/war_cards/knights_vs_pikes.toml");
    let out = dir.path().join("balance");
    warcrunch()
        .args([
            "solve",
            "--exact",
            "--vary",
            "attacker.melee=1..6",
            "--balance",
            "battle",
        ])
        .arg(&knights)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let probes: Vec<(i64, f64)> = read(&out.join("solve.csv"))
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[1].parse().unwrap(), f[3].parse().unwrap())
        })
        .collect();
    assert!(probes.len() >= 3, "{probes:?}");
    let text = read(&knights);
    for &(melee, share) in &probes {
        let edited = dir.path().join(format!("melee{melee}.toml"));
        std::fs::write(
            &edited,
            text.replacen("melee = 3", &format!("melee = {melee}"), 1),
        )
        .unwrap();
        let exact_out = dir.path().join(format!("exact{melee}"));
        warcrunch()
            .args(["run", "--quiet", "--exact", "--trials", "1000"])
            .arg(&edited)
            .arg("--out")
            .arg(&exact_out)
            .assert()
            .success();
        let exact = rows(&exact_out.join("exact.csv"));
        let p = |who: &str| weight_of(&exact, "", "battle", "winner", |v| v == who);
        let expected = p("attacker") / (p("attacker") + p("defender"));
        assert!(
            (share - expected).abs() < 1e-12,
            "melee {melee}: {share} against {expected}"
        );
    }
    let below = probes
        .iter()
        .filter(|p| p.1 < 0.5)
        .map(|p| p.0)
        .max()
        .unwrap();
    let above = probes
        .iter()
        .filter(|p| p.1 > 0.5)
        .map(|p| p.0)
        .min()
        .unwrap();
    assert_eq!(
        above - below,
        1,
        "adjacent values bracket the balance: {probes:?}"
    );
    let answer = read(&out.join("report.html"));
    // The setting in words, as the page's pickers name it.
    let bracket = format!("lies between Attacker \u{b7} melee = {below}");
    assert!(answer.contains(&bracket), "{answer}");
    refused_writing_nothing(
        warcrunch()
            .args([
                "solve",
                "--vary",
                "attacker.melee=1..6",
                "--balance",
                "side:Knights",
            ])
            .arg(&knights)
            .arg("--out")
            .arg(dir.path().join("wrong")),
        &dir.path().join("wrong"),
        &["--balance side:Knights", "allowed: battle"],
    );
}

/// A `--precision` run holds a target's interval to the precision too. A
/// Hero on the side that always wins rolls Spoils: no single value comes
/// near one half, but "purse or better horse" does, so the target's
/// interval is the widest and decides where the run stops.
#[test]
fn a_precision_run_holds_a_targets_interval_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("spoils.toml");
    std::fs::write(
        &scenario,
        "system = \"seventh_sea\"\nname = \"Spoils of a rout\"\nmax_rounds = 50\n\n[[sides]]\nname = \"Eisen\"\ncommander = { wits = 4, strategy = 4 }\n\n[[sides]]\nname = \"Rebels\"\ncommander = { wits = 2, strategy = 1 }\n\n[[heroes]]\nname = \"Karl\"\nside = \"Eisen\"\nwits = 3\ntactics = 2\nbrawn = 2\nresolve = 3\nfinesse = 3\nattack = 3\ndefence_knack = 2\npolicy = \"rear\"\n",
    )
    .unwrap();
    let precision = 0.0036;
    let run = |target: Option<&str>, out: &str| -> (u64, String) {
        let out = dir.path().join(out);
        let mut command = warcrunch();
        command
            .args(["run", "--quiet", "--precision", &precision.to_string()])
            .arg(&scenario)
            .arg("--out")
            .arg(&out);
        if let Some(t) = target {
            command.args(["--target", t]);
        }
        command.assert().success();
        let json: serde_json::Value = serde_json::from_str(&read(&out.join("run.json"))).unwrap();
        (
            json["trials"].as_u64().unwrap(),
            read(&out.join("distributions.csv")),
        )
    };
    let (plain, _) = run(None, "plain");
    let (with_target, csv) = run(
        Some("hero:Karl/spoils=purse|fine_weapon_or_horse"),
        "target",
    );
    let line = csv
        .lines()
        .find(|l| l.contains(",hero,Karl,spoils=purse|fine_weapon_or_horse,yes,"))
        .unwrap_or_else(|| panic!("no target row in {csv}"));
    // probability, ci_low, ci_high (after value, value_number, value_words
    // and count).
    let row: Vec<f64> = line
        .split(',')
        .skip(8)
        .take(3)
        .map(|f| f.parse().unwrap())
        .collect();
    assert!((row[0] - 0.5).abs() < 0.05, "near one half: {row:?}");
    assert!((row[2] - row[1]) / 2.0 <= precision, "{row:?}");
    assert!(
        with_target > plain,
        "the target's interval kept the run going: {with_target} against {plain} battles"
    );
}

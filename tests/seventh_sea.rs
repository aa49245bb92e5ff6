//! 7th Sea: the commanders-only battle against its exact Markov chain, bad
//! input, and the policy sweep.

use std::path::PathBuf;

use predicates::prelude::*;
use warcrunch::engine::{self, RunSettings};
use warcrunch::scenario;
use warcrunch::systems::seventh_sea::SeventhSea;
use warcrunch::systems::seventh_sea::exact::{exact_metrics, round_win_probability};

use crate::util::{assert_within_family, read, refused, repo, warcrunch};

fn bundled(name: &str) -> PathBuf {
    repo().join("scenarios/seventh_sea").join(name)
}

fn load(path: &std::path::Path) -> SeventhSea {
    let battle = scenario::load(path).unwrap().battle;
    match battle.downcast::<SeventhSea>() {
        Some(system) => system.clone(),
        None => panic!("{} is not a 7th Sea scenario", battle.system()),
    }
}

fn from_text(text: &str) -> SeventhSea {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, text).unwrap();
    load(&path)
}

fn assert_agreement(g: &SeventhSea, trials: u64, seed: u64) {
    let exact = exact_metrics(g).unwrap();
    let out = engine::run(
        g,
        RunSettings {
            threads: 2,
            ..RunSettings::new(seed, trials)
        },
    )
    .unwrap();
    assert_within_family(&exact, &out.tally.metrics(), trials);
}

const EVEN: &str = r#"
system = "seventh_sea"
name = "Two equal generals"
max_rounds = 6
[[sides]]
name = "A"
commander = { wits = 3, strategy = 2 }
[[sides]]
name = "B"
commander = { wits = 3, strategy = 2 }
"#;

#[test]
fn equal_commanders_win_a_round_half_the_time() {
    let p = round_win_probability(&from_text(EVEN));
    assert!((p - 0.5).abs() < 1e-12, "{p}");
}

#[test]
fn a_short_even_battle_agrees_with_its_markov_chain() {
    // With p = 1/2 and six rounds: P(decided by round 3) = 2 · (1/2)^3 = 1/4.
    let g = from_text(EVEN);
    let exact = exact_metrics(&g).unwrap();
    let rounds = exact.iter().find(|m| m.name == "rounds").unwrap();
    assert!((rounds.weights[3] - 0.25).abs() < 1e-12);
    assert_agreement(&g, 1_000_000, 3);
}

#[test]
fn the_rout_agrees_with_its_markov_chain() {
    assert_agreement(&load(&bundled("rout_of_a_weaker_army.toml")), 1_000_000, 13);
}

#[test]
fn battles_with_heroes_or_raises_refuse_exact_with_the_reason() {
    let err = exact_metrics(&load(&bundled("officer_tips_the_balance.toml")))
        .unwrap_err()
        .to_string();
    assert!(err.contains("Heroes"), "{err}");
    let with_raises = EVEN.replace(
        "commander = { wits = 3, strategy = 2 }\n[[sides]]",
        "commander = { wits = 3, strategy = 2 }\nspeech = { wits = 3, incitation = 2 }\n[[sides]]",
    );
    let err = exact_metrics(&from_text(&with_raises))
        .unwrap_err()
        .to_string();
    assert!(err.contains("Free Raises"), "{err}");
}

#[test]
fn an_officer_tips_the_balance() {
    // Equal generals, but Captain Ramos adds three dice to Castille's roll.
    let g = load(&bundled("officer_tips_the_balance.toml"));
    let out = engine::run(
        &g,
        RunSettings {
            threads: 2,
            ..RunSettings::new(1, 200_000)
        },
    )
    .unwrap();
    let metrics = out.tally.metrics();
    let castille = metrics
        .iter()
        .find(|m| m.subject == "side:Castille")
        .unwrap();
    let won = castille.weights[0] as f64 / 200_000.0;
    assert!(won > 0.6, "Castille wins {won}");
}

#[test]
fn bad_heroes_are_refused() {
    let field = read(&bundled("even_field_battle.toml"));
    refused(
        &field.replacen("policy = \"engaged\"", "policy = \"reckless\"", 1),
        &["unknown variant `reckless`", "`adaptive`"],
    );
    refused(
        &field.replacen("wits = 3\ntactics = 2", "wits = 0\ntactics = 2", 1),
        &["wits", "Isabeau", "allowed: 1 to 10"],
    );
    refused(
        &field.replacen("resolve = 3\nfinesse = 3", "resolve = -1\nfinesse = 3", 1),
        &["resolve", "= -1", "allowed: 1 to 10"],
    );
    refused(
        &field.replacen("side = \"Montaigne\"", "side = \"Vodacce\"", 1),
        &["\"Vodacce\" is not a side"],
    );
}

#[test]
fn the_policy_sweep_compares_fame_against_knock_outs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    warcrunch()
        .args([
            "sweep",
            "--trials",
            "20000",
            "--set",
            "heroes.Isabeau.policy=rear,not_engaged,engaged,heavily_engaged,adaptive",
            "--max-risk-of-down",
            "0.5",
            "--out",
        ])
        .arg(&out)
        .arg(bundled("even_field_battle.toml"))
        .assert()
        .success()
        .stdout(
            predicate::str::contains("policy=rear")
                .and(predicate::str::contains("Isabeau: P(knocked out)"))
                .and(predicate::str::contains("recommended: policy=")),
        );
    let d = read(&out.join("distributions.csv"));
    assert!(d.contains("\npolicy=adaptive,adaptive,hero:Isabeau,hero,Isabeau,state,knocked_out,"));
    assert!(d.contains("\npolicy=rear,rear,side:Montaigne,side,Montaigne,victory,won,"));
    assert!(out.join("frontier.svg").is_file());
}

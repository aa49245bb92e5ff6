//! The command line: outputs of each command, and one test per class of bad
//! input asserting a clear message, a non-zero exit and no output left behind.

use predicates::prelude::*;

use crate::util::{csv_rows, number, read, refused, repo, run_refused, scenario, setup, warcrunch};

const GOOD: &str = r#"
system = "war_cards"
name = "Test"
trials = 1000
[attacker]
name = "A"
sign = "sword"
melee = 2
defence = 1
hits = 2
[defender]
name = "B"
sign = "shield"
melee = 1
defence = 1
hits = 2
"#;

#[test]
fn malformed_toml_is_refused_with_its_line() {
    refused(&GOOD.replace("melee = 2", "melee = = 2"), &["line 8"]);
}

#[test]
fn unknown_key_is_refused_naming_it_and_the_allowed_keys() {
    refused(
        &GOOD.replace("melee = 2", "melee = 2\nmorale = 3"),
        &["unknown field `morale`", "expected one of", "`melee`"],
    );
}

#[test]
fn a_misspelt_key_gets_the_closest_suggestion() {
    refused(
        &GOOD.replace("melee = 2", "melle = 2"),
        &["unknown field `melle`", "did you mean `melee`?"],
    );
    refused(
        &GOOD.replace("sign = \"sword\"", "sign = \"swrod\""),
        &["did you mean `sword`?"],
    );
}

#[test]
fn bad_sign_is_refused_listing_the_signs() {
    refused(
        &GOOD.replace("sign = \"sword\"", "sign = \"axe\""),
        &["unknown variant `axe`", "`sword`", "`shield`", "`banner`"],
    );
}

#[test]
fn negative_hits_are_refused_with_the_allowed_range() {
    refused(
        &GOOD.replace("hits = 2\n[defender]", "hits = -1\n[defender]"),
        &[
            "battle.toml:10:1: `attacker.hits` = -1",
            "allowed: 0 to 100",
        ],
    );
}

#[test]
fn missing_table_file_is_refused() {
    refused(
        &format!("{GOOD}[tables]\ncards = \"nowhere.toml\"\n"),
        &["cards", "nowhere.toml", "cannot read table file"],
    );
}

#[test]
fn a_table_with_a_missing_row_is_refused() {
    let (dir, path, out) = setup(&format!("{GOOD}[tables]\ncards = \"deck.toml\"\n"));
    let deck = warcrunch::tables::built_in_text("cards").replacen(
        "banner_sword   = \"- F - H R H H\"\n",
        "",
        1,
    );
    std::fs::write(dir.path().join("deck.toml"), deck).unwrap();
    run_refused(&path, &out, &["deck.toml", "banner_sword"]);
}

#[test]
fn unknown_system_zero_trials_and_volleys_without_shooters_are_refused() {
    refused(
        &GOOD.replace("war_cards", "chess"),
        &["\"chess\"", "allowed: \"war_cards\""],
    );
    refused(
        &GOOD.replace("trials = 1000", "trials = 0"),
        &["`trials` = 0", "allowed: 1"],
    );
    refused(
        &format!("{GOOD}[engagement]\nmissile_volleys = 2\n"),
        &["missile_volleys", "neither unit can shoot"],
    );
    refused(
        &GOOD.replace("name = \"B\"", "name = \"A\""),
        &["both named \"A\""],
    );
}

#[test]
fn exact_on_a_deck_draw_is_refused_before_any_output() {
    let (_dir, path, out) = setup(&format!("{GOOD}[engagement]\ndraw = \"deck\"\n"));
    warcrunch()
        .arg("run")
        .arg(&path)
        .args(["--exact", "--out"])
        .arg(&out)
        .assert()
        .failure()
        .stderr(predicate::str::contains("exact odds need draw = \"die\""));
    assert!(!out.exists());
}

#[test]
fn run_writes_every_output_and_a_summary() {
    let (_dir, _path, out) = setup("");
    let assert = warcrunch()
        .args(["run", "--trials", "50000", "--exact", "--out"])
        .arg(&out)
        .arg(scenario("knights_vs_pikes.toml"))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(
        stdout.contains("Knights charge the pike square: 50,000 battles"),
        "{stdout}"
    );
    assert!(stdout.contains("battle/winner: attacker"), "{stdout}");
    assert!(
        stdout.contains("Knights (attacker) won 5") && stdout.contains("engagements †"),
        "the verdict carries the stand-in mark: {stdout}"
    );
    assert!(
        stdout.contains("† Rests on stand-in table values")
            && stdout.contains("table cards: row_order"),
        "{stdout}"
    );
    for file in [
        "distributions.csv",
        "summary.csv",
        "exact.csv",
        "run.json",
        "outcome_battle_winner.svg",
        "outcome_battle_winner.png",
        "outcome_battle_winner@2x.png",
        "hist_battle_exchanges.svg",
        "hist_battle_exchanges.png",
        "hist_battle_exchanges@2x.png",
    ] {
        assert!(out.join(file).is_file(), "{file} written");
    }
    let distributions = read(&out.join("distributions.csv"));
    assert_eq!(
        distributions.lines().next().unwrap(),
        "subject,subject_kind,subject_name,metric,value,value_number,value_words,count,probability,ci_low,ci_high,stand_in_tables,uses_stand_ins"
    );
    assert!(distributions.contains("unit:Knights,unit,Knights,fate,holds,"));
    assert!(distributions.contains("battle,battle,,end,max_exchanges,"));
    assert_eq!(
        read(&out.join("summary.csv")).lines().next().unwrap(),
        "subject,subject_kind,subject_name,metric,trials,mean,std_dev,ci_low,ci_high,p05,p50,p95,stand_in_tables,uses_stand_ins"
    );
    let run: serde_json::Value = serde_json::from_str(&read(&out.join("run.json"))).unwrap();
    assert_eq!(run["trials"], 50000);
    assert_eq!(run["seed"], 7);
    assert_eq!(run["chunk_size"], warcrunch::engine::CHUNK_SIZE);
    assert_eq!(run["tables"][0]["stand_ins"][0], "row_order");
    assert_eq!(run["scenario_sha256"].as_str().unwrap().len(), 64);
    assert!(read(&out.join("outcome_battle_winner.svg")).contains("<svg"));
    let png = std::fs::read(out.join("outcome_battle_winner.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
}

#[test]
fn probabilities_of_each_metric_sum_to_one() {
    let (_dir, _path, out) = setup("");
    warcrunch()
        .args(["run", "--trials", "20000", "--out"])
        .arg(&out)
        .arg(scenario("longbows_vs_men_at_arms.toml"))
        .assert()
        .success();
    let mut sums: std::collections::BTreeMap<String, f64> = Default::default();
    for row in csv_rows(&out.join("distributions.csv")) {
        let p = number(&row, "probability");
        let (lo, hi) = (number(&row, "ci_low"), number(&row, "ci_high"));
        assert!(0.0 <= lo && lo <= p && p <= hi && hi <= 1.0, "{row:?}");
        *sums
            .entry(format!("{}/{}", row["subject"], row["metric"]))
            .or_default() += p;
    }
    assert!(sums.len() >= 7);
    for (metric, sum) in sums {
        assert!((sum - 1.0).abs() < 1e-12, "{metric}: {sum}");
    }
}

#[test]
fn a_foreign_output_folder_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("thesis.tex"), "precious").unwrap();
    warcrunch()
        .args(["run", "--trials", "1000", "--out"])
        .arg(dir.path())
        .arg(scenario("knights_vs_pikes.toml"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("--force"));
    assert_eq!(read(&dir.path().join("thesis.tex")), "precious");
}

#[test]
fn check_prints_the_resolved_scenario() {
    warcrunch()
        .arg("check")
        .arg(scenario("longbows_vs_men_at_arms.toml"))
        .assert()
        .success()
        .stdout(
            predicate::str::contains("valid")
                .and(predicate::str::contains("shooter: ignores F"))
                .and(predicate::str::contains(
                    "missile on Men-at-arms: row banner_sword, column +1",
                ))
                .and(predicate::str::contains("stand-ins: row_order")),
        );
}

#[test]
fn tables_export_round_trips_into_a_scenario() {
    let dir = tempfile::tempdir().unwrap();
    warcrunch()
        .args(["tables", "--export"])
        .arg(dir.path())
        .assert()
        .success();
    let exported = read(&dir.path().join("war_cards.toml"));
    // The same table, its `#:schema` line pointing from the copy to the schema.
    let (line, rest) = exported.split_once('\n').unwrap();
    assert_eq!(
        rest,
        warcrunch::tables::built_in_text("cards")
            .split_once('\n')
            .unwrap()
            .1
    );
    let named = dir.path().join(line.strip_prefix("#:schema ").unwrap());
    assert_eq!(
        named.canonicalize().unwrap(),
        repo()
            .join("scenarios/schema/cards.schema.json")
            .canonicalize()
            .unwrap()
    );
    // Exporting again without --force refuses to overwrite.
    warcrunch()
        .args(["tables", "--export"])
        .arg(dir.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("--force"));
    // A one-line change (row order) is picked up by a scenario using the copy.
    std::fs::write(
        dir.path().join("war_cards.toml"),
        exported.replace(
            "row_order = \"attacker_defender\"",
            "row_order = \"defender_attacker\"",
        ),
    )
    .unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(
        &path,
        format!("{GOOD}[tables]\ncards = \"war_cards.toml\"\n"),
    )
    .unwrap();
    warcrunch()
        .arg("check")
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("melee on B: row shield_sword"));
}

#[test]
fn cards_writes_tables_and_heatmaps_and_names_what_is_out_of_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cards");
    warcrunch()
        .args(["cards", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(
            predicate::str::contains(
                "sword_banner at >=+3: -DDDHHHRR where 8 other rows have -DDHHHHRR",
            )
            .and(predicate::str::contains("card 4")),
        );
    for file in [
        "skew.csv",
        "monotonicity.csv",
        "cell_anomalies.csv",
        "run.json",
        "skew_heatmap.svg",
        "skew_heatmap.png",
    ] {
        assert!(out.join(file).is_file(), "{file}");
    }
    let skew = read(&out.join("skew.csv"));
    assert!(skew.starts_with("scope,key,cells,count_miss,"));
    // deck + 9 cards + 9 rows + 7 columns + 63 cells.
    assert_eq!(skew.lines().count(), 1 + 1 + 9 + 9 + 7 + 63);
    assert!(skew.contains("deck,all,567,180,72,224,54,37,"));
}

#[test]
fn cards_reads_a_tuned_table() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("tuned.toml");
    std::fs::write(
        &table,
        warcrunch::tables::built_in_text("cards").replacen(
            "\"- F H H F H R\"",
            "\"D D D D D D D\"",
            1,
        ),
    )
    .unwrap();
    let out = dir.path().join("cards");
    warcrunch()
        .args(["cards", "--table"])
        .arg(&table)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("* card 1"));
}

#[test]
fn the_readme_commands_name_a_bundled_scenario() {
    let readme = read(&repo().join("README.md"));
    assert!(
        readme.contains("cargo run --release -- run scenarios/war_cards/knights_vs_pikes.toml")
    );
    assert!(readme.contains("cargo test --release"));
}

#[test]
fn a_value_of_the_wrong_type_is_refused_naming_the_expected_type() {
    refused(
        &GOOD.replace("hits = 2\n[defender]", "hits = \"two\"\n[defender]"),
        &[
            "line 10",
            "\"two\" is text, but a whole number",
            "expected here",
        ],
    );
}

#[test]
fn a_duplicate_key_is_refused_with_its_line() {
    refused(
        &GOOD.replace("melee = 2", "melee = 2\nmelee = 3"),
        &["line 9", "duplicate key"],
    );
}

#[test]
fn a_probability_outside_zero_to_one_is_refused() {
    refused(
        &format!("{GOOD}[engagement]\nrally_chance = 1.5\n"),
        &["`engagement.rally_chance` = 1.5", "allowed: 0 to 1"],
    );
}

#[test]
fn contradictory_options_are_refused_before_any_output() {
    let (_dir, path, out) = setup(GOOD);
    for (args, expect) in [
        (
            &["--precision", "0.01", "--trials", "5"][..],
            "cannot be used with",
        ),
        (
            &["--precision", "0.01", "--shard", "0/2"][..],
            "cannot be used with",
        ),
        (
            &["--exact", "--shard", "0/2"][..],
            "--exact cannot be combined with --shard",
        ),
        (
            &["--shard", "2/2"][..],
            "must be below the number of shards",
        ),
        (&["--precision", "0"][..], "allowed: a half-width from 1e-9"),
        (
            &["--precision", "1e-300"][..],
            "--precision = 1e-300 is out of range; allowed: a half-width from 1e-9 to 0.2",
        ),
        (&["--max-trials", "10"][..], "--precision"),
    ] {
        warcrunch()
            .arg("run")
            .arg(&path)
            .args(args)
            .arg("--out")
            .arg(&out)
            .assert()
            .failure()
            .stderr(predicate::str::contains(expect));
        assert!(!out.exists(), "{args:?} wrote output");
    }
}

/// Runs `GOOD` with `[tables] cards = "deck.toml"` holding `deck`; it must be
/// refused naming the table file and every fragment of `expect`.
fn deck_refused(deck: &str, expect: &[&str]) {
    let (dir, path, out) = setup(&format!("{GOOD}[tables]\ncards = \"deck.toml\"\n"));
    std::fs::write(dir.path().join("deck.toml"), deck).unwrap();
    let assert = warcrunch()
        .arg("run")
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .assert()
        .failure()
        .code(1);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("deck.toml"),
        "names the table file: {stderr}"
    );
    for fragment in expect {
        assert!(
            stderr.contains(fragment),
            "expected {fragment:?} in: {stderr}"
        );
    }
    assert!(!out.exists());
}

#[test]
fn a_malformed_table_file_is_refused_with_its_line() {
    let deck = warcrunch::tables::built_in_text("cards").replacen("[[cards]]", "[[cards]", 1);
    let line = warcrunch::tables::built_in_text("cards")
        .lines()
        .position(|l| l.starts_with("[[cards]]"))
        .unwrap()
        + 1;
    deck_refused(&deck, &[&format!("line {line}")]);
}

#[test]
fn a_duplicate_key_in_a_table_file_is_refused() {
    let deck = warcrunch::tables::built_in_text("cards").replacen(
        "banner_sword   = \"- F - H R H H\"\n",
        "banner_sword   = \"- F - H R H H\"\nbanner_sword   = \"- - - - - - -\"\n",
        1,
    );
    deck_refused(&deck, &["duplicate key", "banner_sword"]);
}

#[test]
fn weights_that_cannot_make_a_distribution_are_refused() {
    // Heroic Opportunity weights are normalised; all zero leaves no distribution.
    let dir = tempfile::tempdir().unwrap();
    let weights = "[weights]\nsurgeon = 0\npick_up_banner = 0\nhold_the_line = 0\ncharge = 0\nline_of_fire = 0\nlure = 0\nrescue_the_wounded = 0\ncapture_enemy_banner = 0\nduel = 0\n";
    let table = warcrunch::tables::built_in_text("opportunities");
    let start = table.find("[weights]").unwrap();
    let end = start + table[start..].find("\n\n").unwrap_or(table.len() - start);
    let zeroed = format!("{}{weights}{}", &table[..start], &table[end..]);
    std::fs::write(dir.path().join("opp.toml"), zeroed).unwrap();
    let scenario = read(&repo().join("scenarios/seventh_sea/even_field_battle.toml"));
    let path = dir.path().join("battle.toml");
    std::fs::write(
        &path,
        format!("{scenario}\n[tables]\nopportunities = \"opp.toml\"\n"),
    )
    .unwrap();
    warcrunch()
        .arg("check")
        .arg(&path)
        .assert()
        .failure()
        .stderr(predicate::str::contains("opp.toml").and(predicate::str::contains("not all 0")));
}

#[test]
fn an_interrupted_run_leaves_the_previous_results_intact() {
    use std::process::{Command, Stdio};
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let knights = scenario("knights_vs_pikes.toml");
    warcrunch()
        .args(["run", "--quiet", "--trials", "20000"])
        .arg(&knights)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let before = read(&out.join("distributions.csv"));
    // Long enough to be interrupted: SIGINT (Ctrl-C) once it has started.
    let child = Command::new(assert_cmd::cargo::cargo_bin!("warcrunch"))
        .args([
            "run",
            "--quiet",
            "--threads",
            "1",
            "--trials",
            "100000000000",
        ])
        .arg(&knights)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Ready: the Ctrl-C handler is installed before any command starts, and
    // the run has made its hidden staging folder beside `out`.
    let staging = format!(".out.partial-{}", child.id());
    let waited = std::time::Instant::now();
    while !root.path().join(&staging).exists() {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(120),
            "the run never made its staging folder"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let result = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(!result.status.success());
    assert!(stderr.contains("interrupted after"), "{stderr}");
    assert!(stderr.contains("earlier results are untouched"), "{stderr}");
    assert_eq!(read(&out.join("distributions.csv")), before);
    let names: Vec<_> = std::fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("out")],
        "no staging folder left"
    );
}

#[test]
fn an_output_folder_that_cannot_be_created_is_an_error_with_nothing_left() {
    // Stands in for a full disk or an unwritable folder (tests may run as
    // root, where permissions do not stop writes): the parent is a file.
    let root = tempfile::tempdir().unwrap();
    let blocker = root.path().join("not_a_folder");
    std::fs::write(&blocker, "x").unwrap();
    warcrunch()
        .args(["run", "--quiet", "--trials", "1000"])
        .arg(scenario("knights_vs_pikes.toml"))
        .arg("--out")
        .arg(blocker.join("out"))
        .assert()
        .failure()
        .code(1)
        .stderr(predicate::str::contains("not_a_folder"));
    assert_eq!(read(&blocker), "x");
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 1);
}

#[test]
fn quiet_means_nothing_but_errors() {
    let dir = tempfile::tempdir().unwrap();
    let knights = scenario("knights_vs_pikes.toml");
    let silent = |cmd: &mut assert_cmd::Command| {
        let out = cmd.assert().success();
        let o = out.get_output();
        assert!(
            o.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert!(
            o.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    for shard in ["0/2", "1/2"] {
        silent(
            warcrunch()
                .args([
                    "run", "--quiet", "--trials", "40000", "--shard", shard, "--out",
                ])
                .arg(dir.path().join(shard.replace('/', "-")))
                .arg(&knights),
        );
    }
    silent(
        warcrunch()
            .args(["merge", "--quiet", "--out"])
            .arg(dir.path().join("merged"))
            .arg(dir.path().join("0-2"))
            .arg(dir.path().join("1-2")),
    );
    silent(
        warcrunch()
            .args([
                "sweep",
                "--quiet",
                "--trials",
                "2000",
                "--set",
                "attacker.melee=1,2",
                "--out",
            ])
            .arg(dir.path().join("sweep"))
            .arg(&knights),
    );
    // Errors still speak, typed options with the choices.
    warcrunch()
        .args(["run", "--quiet", "--shard", "4/2"])
        .arg(&knights)
        .assert()
        .failure()
        .stderr(predicate::str::contains("--shard").and(predicate::str::contains("0/2 to 1/2")));
    warcrunch()
        .args(["run", "--quiet", "--format", "csv,parket"])
        .arg(&knights)
        .assert()
        .failure()
        .stderr(predicate::str::contains("parquet"));
}

#[test]
fn new_writes_a_starter_that_passes_check_for_every_system() {
    let dir = tempfile::tempdir().unwrap();
    for &system in warcrunch::systems::SYSTEMS {
        let path = dir.path().join(format!("{system}.toml"));
        warcrunch()
            .args(["new", system, "--out"])
            .arg(&path)
            .assert()
            .success();
        let text = read(&path);
        assert!(text.contains(&format!("system = \"{system}\"")));
        assert!(
            text.lines()
                .filter(|l| l.trim_start().starts_with('#'))
                .count()
                > 3,
            "commented"
        );
        warcrunch().arg("check").arg(&path).assert().success();
        // Never over an existing file without --force.
        warcrunch()
            .args(["new", system, "--out"])
            .arg(&path)
            .assert()
            .failure()
            .stderr(predicate::str::contains("--force"));
    }
}

#[test]
fn completions_and_the_man_page_come_from_the_cli() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = warcrunch().args(["completions", shell]).assert().success();
        let script = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(
            script.contains("sweep") && script.contains("recommend-for"),
            "{shell}"
        );
    }
    let out = warcrunch().arg("man").assert().success();
    let page = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(page.contains(".TH warcrunch") && page.contains("sweep"));
}

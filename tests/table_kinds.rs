//! A table file is recognised as its kind and refused as any other, through
//! every door: `--table`, `[tables]`, `sweep --set tables.X=`.

use std::path::{Path, PathBuf};

use crate::util::{check_refused, repo, run_refused, table_refused, warcrunch};

/// The bundled table `file` (under `scenarios/tables/`).
fn bundled_table(file: &str) -> String {
    std::fs::read_to_string(repo().join("scenarios/tables").join(file)).unwrap()
}

/// Writes `text` as `name` in `dir`; its path.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_glory_table_given_as_survival_is_refused_naming_both_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let glory = write(dir.path(), "glory.toml", &bundled_table("gurps/glory.toml"));
    table_refused(
        "scenarios/gurps/ambush_at_the_ford.toml",
        "survival",
        &glory,
        &[
            "glory.toml",
            "this is a `glory` table",
            "given as the `survival` table",
        ],
    );
}

#[test]
fn every_bundled_table_is_refused_as_every_other_kind_of_its_system() {
    let dir = tempfile::tempdir().unwrap();
    let systems = [
        ("gurps", "scenarios/gurps/ambush_at_the_ford.toml"),
        (
            "seventh_sea",
            "scenarios/seventh_sea/even_field_battle.toml",
        ),
        ("war_cards", "scenarios/war_cards/knights_vs_pikes.toml"),
    ];
    let all = warcrunch::systems::built_ins();
    for (system, scenario) in systems {
        let own: Vec<_> = all.iter().filter(|t| t.system == system).collect();
        for table in &all {
            let file = write(dir.path(), &format!("{}.toml", table.name), table.text);
            for given in own.iter().filter(|t| t.name != table.name) {
                table_refused(
                    scenario,
                    given.name,
                    &file,
                    &[
                        &format!("this is a `{}` table", table.name),
                        &format!("given as the `{}` table", given.name),
                    ],
                );
            }
        }
    }
}

#[test]
fn a_table_without_its_kind_is_refused_with_the_line_to_add() {
    let dir = tempfile::tempdir().unwrap();
    let text = bundled_table("seventh_sea/spoils.toml").replace("kind = \"spoils\"\n", "");
    let spoils = write(dir.path(), "my_spoils.toml", &text);
    table_refused(
        "scenarios/seventh_sea/even_field_battle.toml",
        "spoils",
        &spoils,
        &["my_spoils.toml", "no `kind` key", "add `kind = \"spoils\"`"],
    );
    let text = bundled_table("war_cards.toml").replace("kind = \"cards\"", "kind = \"deck\"");
    let deck = write(dir.path(), "deck.toml", &text);
    table_refused(
        "scenarios/war_cards/knights_vs_pikes.toml",
        "cards",
        &deck,
        &[
            "deck.toml",
            "`kind` = \"deck\" is not a table kind",
            "allowed: battle_chart, battle_results, cards,",
        ],
    );
}

#[test]
fn a_key_of_another_tables_rows_is_refused_with_the_allowed_keys() {
    let dir = tempfile::tempdir().unwrap();
    let survival = bundled_table("gurps/survival.toml");
    for (from, to, expected) in [
        (
            "label = \"1hp\"\nhp = 1",
            "label = \"1hp\"\nhp = 1\nreputation = 1",
            "unknown field `reputation`, expected one of `min_margin`, `label`, `hp`, `column`",
        ),
        (
            "label = \"C\"\ncolumn = \"C\"",
            "label = \"C\"\ncolumn = \"C\"\nhp = 3",
            "row `C` gives both `hp` = 3 and `column` = \"C\"",
        ),
    ] {
        assert!(survival.contains(from), "{from}");
        write(dir.path(), "survival.toml", &survival.replacen(from, to, 1));
        let scenario = write(
            dir.path(),
            "battle.toml",
            &format!(
                "{}\n[tables]\nsurvival = \"survival.toml\"\n",
                std::fs::read_to_string(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
                    .unwrap()
            ),
        );
        check_refused(&scenario, &["survival.toml", expected]);
        run_refused(&scenario, &dir.path().join("out"), &[expected]);
    }
    let glory = bundled_table("gurps/glory.toml").replacen(
        "label = \"heroic\"",
        "label = \"heroic\"\ncolumn = \"A\"",
        1,
    );
    let glory = write(dir.path(), "glory.toml", &glory);
    table_refused(
        "scenarios/gurps/ambush_at_the_ford.toml",
        "glory",
        &glory,
        &[
            "unknown field `column`, expected one of `min_margin`, `label`, `reputation`, `strategy`",
        ],
    );
}

#[test]
fn a_sweep_over_table_files_refuses_one_of_the_wrong_kind() {
    let dir = tempfile::tempdir().unwrap();
    let glory = write(dir.path(), "glory.toml", &bundled_table("gurps/glory.toml"));
    let survival = write(
        dir.path(),
        "survival.toml",
        &bundled_table("gurps/survival.toml"),
    );
    let out = dir.path().join("out");
    let assert = warcrunch()
        .args([
            "sweep",
            "scenarios/gurps/ambush_at_the_ford.toml",
            "--trials",
            "1000",
            "--set",
        ])
        .arg(format!(
            "tables.survival={},{}",
            survival.display(),
            glory.display()
        ))
        .arg("--out")
        .arg(&out)
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("this is a `glory` table") && stderr.contains("glory.toml"),
        "{stderr}"
    );
    assert!(!out.exists(), "no output after a refused sweep");
}

#[test]
fn a_scenario_naming_a_table_its_system_lacks_is_refused_at_that_line() {
    let dir = tempfile::tempdir().unwrap();
    for (scenario, system) in [
        ("scenarios/gurps/ambush_at_the_ford.toml", "GURPS"),
        ("scenarios/seventh_sea/even_field_battle.toml", "7th Sea"),
    ] {
        let text = std::fs::read_to_string(repo().join(scenario)).unwrap();
        let typo = format!("{text}\n[tables]\nglorry = \"builtin\"\n");
        let line = typo.lines().count();
        let path = write(dir.path(), "typo.toml", &typo);
        check_refused(
            &path,
            &[&format!(
                "typo.toml:{line}: [tables] `glorry` is not a {system} table; allowed: "
            )],
        );
    }
}

//! GURPS mass combat: Monte Carlo against the exact one-day distributions,
//! bad input, and the Risk sweep.

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use warcrunch::engine::{self, RunSettings};
use warcrunch::scenario;
use warcrunch::systems::gurps::Gurps;

use crate::util::{
    assert_within_family, check_refused, csv_rows, read, refused, repo, run_refused, warcrunch,
};

fn bundled(name: &str) -> PathBuf {
    repo().join("scenarios/gurps").join(name)
}

fn gurps(path: &std::path::Path) -> Gurps {
    let battle = scenario::load(path).unwrap().battle;
    match battle.downcast::<Gurps>() {
        Some(system) => system.clone(),
        None => panic!("{} is not a GURPS scenario", battle.system()),
    }
}

fn assert_agreement(g: &Gurps, trials: u64, seed: u64) {
    let exact = warcrunch::systems::gurps::exact::exact_metrics(g).unwrap();
    let out = engine::run(
        g,
        RunSettings {
            threads: 2,
            ..RunSettings::new(seed, trials)
        },
    )
    .unwrap();
    let checked = assert_within_family(&exact, &out.tally.metrics(), trials);
    assert!(checked > 40, "{checked}");
}

#[test]
fn the_skirmish_with_four_pcs_agrees_with_exact() {
    assert_agreement(&gurps(&bundled("ambush_at_the_ford.toml")), 1_000_000, 7);
}

#[test]
fn parties_on_both_sides_with_two_unit_commanders_agree_with_exact() {
    // Titus and Varro lead two of Megalos' three major units: a Catastrophe
    // striking a unit leader strikes at most one of them, so their fates
    // are not independent; Brother Anselm fights for the Raiders.
    let text = read(&bundled("ambush_at_the_ford.toml"))
        .replace(
            "armour = \"medium\"",
            "armour = \"medium\"\nmajor_units = 3",
        )
        .replace(
            "role = \"soldier\"\niq = 11",
            "role = \"unit_commander\"\niq = 11",
        )
        .replace(
            "name = \"Brother Anselm\"\nside = \"Megalos\"",
            "name = \"Brother Anselm\"\nside = \"Raiders\"",
        );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two_parties.toml");
    std::fs::write(&path, text).unwrap();
    let g = gurps(&path);
    let exact = warcrunch::systems::gurps::exact::exact_metrics(&g).unwrap();
    let subjects: Vec<&str> = exact
        .iter()
        .filter(|m| m.subject.starts_with("party"))
        .map(|m| m.subject.as_str())
        .collect();
    assert!(
        subjects.contains(&"party:Megalos") && subjects.contains(&"party:Raiders"),
        "{subjects:?}"
    );
    assert_agreement(&g, 1_000_000, 5);
}

/// A defecting ally's troops join the enemy by default, as the seed says;
/// the declared alternative (they leave the field) is simulated and exact
/// alike, and it moves the exact odds of victory.
#[test]
fn defectors_join_the_enemy_by_default_and_leaving_agrees_with_exact_and_moves_the_odds() {
    let text = read(&bundled("ambush_at_the_ford.toml"));
    let default = gurps(&bundled("ambush_at_the_ford.toml"));
    assert_eq!(
        default.rules.defector,
        warcrunch::systems::gurps::scenario::Defector::JoinsEnemy,
        "the seed's reading is the default"
    );
    let leaving = text.replacen(
        "system = \"gurps\"\n",
        "system = \"gurps\"\ndefector = \"leaves\"\n",
        1,
    );
    assert_ne!(leaving, text);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("leaves.toml");
    std::fs::write(&path, leaving).unwrap();
    let g = gurps(&path);
    assert_agreement(&g, 1_000_000, 13);
    let won = |g: &Gurps| {
        let exact = warcrunch::systems::gurps::exact::exact_metrics(g).unwrap();
        let victory = exact
            .iter()
            .find(|m| m.subject == "side:Megalos" && m.name == "victory")
            .unwrap();
        victory.weights[0]
    };
    let joined = won(&default);
    let leaves = won(&g);
    assert!(
        joined != leaves && (joined - leaves).abs() < 0.05,
        "{leaves} -> {joined}"
    );
}

/// Hollin cut to one day, its general at Risk −6 with DR 1 and `body` (the
/// issue's case: `hp = 10\nht = 12`, whom a Catastrophe's wound can knock
/// out before the contest), under `leader_fall` = `reading`; with `rival`,
/// the Rebels' Red Tam leads their army as well.
fn one_day_hollin(reading: &str, rival: bool, body: &str) -> (tempfile::TempDir, Gurps) {
    let mut text = read(&bundled("three_days_at_hollin.toml"))
        .replacen(
            "days = 3",
            &format!("days = 1\nleader_fall = \"{reading}\""),
            1,
        )
        .replacen(
            "hp = 12\nht = 12\ndr = 5\nrisk = 3",
            &format!("{body}\ndr = 1\nrisk = -6"),
            1,
        );
    if rival {
        text = text.replacen(
            "side = \"Rebels\"\nrole = \"unit_commander\"",
            "side = \"Rebels\"\nrole = \"army_commander\"",
            1,
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{reading}.toml"));
    std::fs::write(&path, text).unwrap();
    let g = gurps(&path);
    assert_eq!((g.rules.days, g.rules.heroes[0].own_dr), (1, 1));
    (dir, g)
}

/// Both readings of a PC leader's fall are simulated and exact alike, with
/// one general or two, one whom a Catastrophe's wound can knock out before
/// the contest (10 HP) and one whom its 2d can even kill (3 HP, HT 3);
/// under `same_day` the general's fall halves the day's final roll, so the
/// Kingdom's exact victory falls, and the simulated difference on the same
/// seed matches the exact one.
#[test]
fn a_generals_fall_on_the_day_agrees_with_exact_and_moves_victory() {
    let won_exact = |g: &Gurps| {
        let exact = warcrunch::systems::gurps::exact::exact_metrics(g).unwrap();
        let m = exact
            .iter()
            .find(|m| m.subject == "side:Kingdom" && m.name == "victory")
            .unwrap();
        m.weights[0]
    };
    let trials = 1_000_000;
    let won_sampled = |g: &Gurps| {
        let out = engine::run(g, RunSettings::new(17, trials)).unwrap();
        let metrics = out.tally.metrics();
        let m = metrics
            .iter()
            .find(|m| m.subject == "side:Kingdom" && m.name == "victory")
            .unwrap();
        m.weights[0] as f64 / m.total() as f64
    };
    for (rival, body) in [
        (false, "hp = 10\nht = 12"),
        (true, "hp = 10\nht = 12"),
        (false, "hp = 3\nht = 3"),
    ] {
        let (_next_dir, next) = one_day_hollin("next_day", rival, body);
        let (_same_dir, same) = one_day_hollin("same_day", rival, body);
        assert_agreement(&next, trials, 17);
        assert_agreement(&same, trials, 17);
        let exact = won_exact(&same) - won_exact(&next);
        let (a, b) = (won_sampled(&same), won_sampled(&next));
        let se = (a * (1.0 - a) / trials as f64 + b * (1.0 - b) / trials as f64).sqrt();
        assert!(
            exact < -0.005,
            "rival {rival}, {body}: exact difference {exact}"
        );
        assert!(
            ((a - b) - exact).abs() < 4.0 * se,
            "rival {rival}, {body}: sampled {} against exact {exact} (se {se})",
            a - b
        );
    }
}

#[test]
fn the_siege_agrees_with_exact() {
    assert_agreement(&gurps(&bundled("siege_assault.toml")), 1_000_000, 21);
}

#[test]
fn an_exact_survival_table_by_hand() {
    // Titus: Combat skill (12 + 15) / 2 + 2 = 15; Risk 0, no Luck. When
    // Megalos wins or draws, Survival is against 15: unhurt on 3..10 and on
    // the criticals 3, 4, 5 (margin 5+ or critical): 108/216.
    let g = gurps(&bundled("ambush_at_the_ford.toml"));
    let titus = &g.rules.heroes[0];
    assert_eq!(titus.combat_skill, 15);
    let skill = warcrunch::systems::gurps::survival::skill(titus, 0);
    let rows = warcrunch::systems::gurps::success::rows_by_roll(&g.rules.tables.survival, skill);
    let unhurt: u32 = (3..=18)
        .filter(|&r| rows[r] == 0)
        .map(|r| warcrunch::engine::dice::THREE_D6_WAYS[r])
        .sum();
    assert_eq!(unhurt, 108);
    // 17 and 18 are critical failures at skill 15: column D (row 6).
    assert_eq!((rows[17], rows[18]), (6, 6));
    // Margin 0 (roll 15) is "2hp" (row 2); 16 fails by 1: column A (row 3).
    assert_eq!((rows[15], rows[16]), (2, 3));
}

fn skirmish() -> String {
    read(&bundled("ambush_at_the_ford.toml"))
}

#[test]
fn a_pc_on_an_unknown_side_is_refused() {
    refused(
        &skirmish().replacen("side = \"Megalos\"", "side = \"Megalo\"", 1),
        &["\"Megalo\" is not a side", "\"Megalos\", \"Raiders\""],
    );
}

#[test]
fn risk_outside_the_scale_or_the_traits_is_refused() {
    refused(
        &skirmish().replacen("risk = 0", "risk = 9", 1),
        &["risk", "= 9", "allowed: -6 to 6"],
    );
    // Brother Anselm is a coward: Risk not below −1.
    refused(
        &skirmish().replacen("risk = 1\ncoward = true", "risk = -3\ncoward = true", 1),
        &["Brother Anselm", "coward", "allowed: -1 to 6"],
    );
    // Every trait's limit, at the first value past it; the limit itself passes.
    for (trait_line, past, at, allowed) in [
        (
            "reserve = true",
            "risk = -2",
            "risk = -1",
            "allowed: -1 to 6",
        ),
        (
            "overconfident = true",
            "risk = 2",
            "risk = 1",
            "allowed: -6 to 1",
        ),
        ("berserk = true", "risk = 1", "risk = 0", "allowed: -6 to 0"),
    ] {
        let with =
            |risk: &str| skirmish().replacen("risk = 0", &format!("{risk}\n{trait_line}"), 1);
        let name = trait_line.split(' ').next().unwrap();
        refused(&with(past), &["Titus", name, allowed]);
        let (_dir, path, _out) = crate::util::setup(&with(at));
        warcrunch().arg("check").arg(&path).assert().success();
    }
}

/// Writes `table` as `file` in `dir` and the skirmish using it for table
/// `key`; returns the scenario's path.
fn skirmish_with_table(dir: &Path, key: &str, file: &str, table: &str) -> PathBuf {
    std::fs::write(dir.join(file), table).unwrap();
    let path = dir.join("battle.toml");
    std::fs::write(
        &path,
        format!("{}\n[tables]\n{key} = \"{file}\"\n", skirmish()),
    )
    .unwrap();
    path
}

#[test]
fn a_table_with_a_missing_row_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let table = warcrunch::tables::built_in_text("catastrophe").replacen(
        "[[rows]]\nroll = [12, 12]\nlabel = \"friction\"\nstrategy = -2\nmorale_all = -1\n",
        "",
        1,
    );
    let path = skirmish_with_table(dir.path(), "catastrophe", "cat.toml", &table);
    check_refused(&path, &["cat.toml", "no row covers roll 12"]);
    let table = warcrunch::tables::built_in_text("catastrophe").replacen(
        "roll = [12, 12]",
        "roll = [13, 13]",
        1,
    );
    std::fs::write(dir.path().join("cat.toml"), table).unwrap();
    check_refused(&path, &["roll 13 appears in two rows"]);
    let table = warcrunch::tables::built_in_text("catastrophe").replacen(
        "roll = [12, 12]",
        "roll = [19, 19]",
        1,
    );
    std::fs::write(dir.path().join("cat.toml"), table).unwrap();
    check_refused(
        &path,
        &["`rows.4.roll.0` = 19 is out of range; allowed: 3 to 18"],
    );
}

#[test]
fn a_damage_table_out_of_range_is_refused_before_any_battle() {
    let dir = tempfile::tempdir().unwrap();
    let built_in = warcrunch::tables::built_in_text("damage");
    let out = dir.path().join("out");
    for (from, to, expected) in [
        (
            "D = 3",
            "D = 1000",
            "`hits.D` = 1000 is out of range; allowed: 0 to 10",
        ),
        (
            "c = { tl_num = 2 }\ndr_divisor = 10",
            "c = { tl_num = 9 }\ndr_divisor = 10",
            "gives 135 dice per hit at TL 15; allowed: 0 to 64",
        ),
        (
            "dr_divisor = 5",
            "dr_divisor = 0",
            "`bands.4.dr_divisor` = 0 is out of range; allowed: 1 to 100",
        ),
    ] {
        assert!(built_in.contains(from), "{from}");
        let table = built_in.replacen(from, to, 1);
        let path = skirmish_with_table(dir.path(), "damage", "dmg.toml", &table);
        run_refused(&path, &out, &["dmg.toml", expected]);
    }
}

#[test]
fn a_margin_table_of_more_than_100_rows_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rows: String = std::iter::once("kind = \"survival\"\n".to_owned())
        .chain((0..150).map(|i| {
            format!(
                "[[rows]]\nmin_margin = {}\nlabel = \"r{i}\"\nhp = 0\n\n",
                200 - i
            )
        }))
        .collect();
    let path = skirmish_with_table(dir.path(), "survival", "survival.toml", &rows);
    check_refused(
        &path,
        &["survival.toml", "`rows` has 150 entries; allowed: 2 to 100"],
    );
}

#[test]
fn multi_day_battles_run_and_refuse_exact_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    warcrunch()
        .args(["run", "--trials", "20000", "--exact", "--out"])
        .arg(&out)
        .arg(bundled("three_days_at_hollin.toml"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("one-day battles"));
    warcrunch()
        .args(["run", "--trials", "20000", "--out"])
        .arg(&out)
        .arg(bundled("three_days_at_hollin.toml"))
        .assert()
        .success()
        .stdout(predicate::str::contains("hero:Red Tam/state"));
    let d = read(&out.join("distributions.csv"));
    assert!(d.contains("side:Kingdom,side,Kingdom,victory,won,"));
    assert!(d.contains("hero:Sir Gawen,hero,Sir Gawen,reputation,"));
}

#[test]
fn the_risk_sweep_writes_variants_the_frontier_and_a_recommendation() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    warcrunch()
        .args([
            "sweep",
            "--trials",
            "40000",
            "--set",
            "heroes.Titus.risk=-2..2",
            "--out",
        ])
        .arg(&out)
        .arg(bundled("ambush_at_the_ford.toml"))
        .assert()
        .success()
        .stdout(
            predicate::str::contains("5 variants")
                .and(predicate::str::contains("Titus: P(down or dead)"))
                .and(predicate::str::contains("For Titus (cap 5.0%):")),
        );
    let d = csv_rows(&out.join("distributions.csv"));
    for risk in -2..=2 {
        let rows: Vec<_> = d
            .iter()
            .filter(|r| r["variant"] == format!("risk={risk}"))
            .collect();
        assert!(
            rows.iter()
                .any(|r| r["subject"] == "hero:Titus" && r["metric"] == "state"),
            "variant risk={risk}"
        );
        assert!(
            rows.iter().all(|r| r["risk"] == risk.to_string()),
            "the swept setting has a column of its own"
        );
    }
    for file in [
        "frontier.svg",
        "frontier.png",
        "compare_hero_Titus_survival.svg",
        "run.json",
    ] {
        assert!(out.join(file).is_file(), "{file}");
    }
    let run: serde_json::Value = serde_json::from_str(&read(&out.join("run.json"))).unwrap();
    assert_eq!(run["variants"].as_array().unwrap().len(), 5);
    // An unknown hero in --set is refused before anything runs.
    warcrunch()
        .args(["sweep", "--set", "heroes.Tutus.risk=-2..2", "--out"])
        .arg(dir.path().join("bad"))
        .arg(bundled("ambush_at_the_ford.toml"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("heroes.Titus"));
    assert!(!dir.path().join("bad").exists());
    // A variant outside the trait limits names the option and its value,
    // not a line of the scenario file (the file is fine).
    warcrunch()
        .args([
            "sweep",
            "--set",
            "heroes.Brother Anselm.risk=-3..0",
            "--out",
        ])
        .arg(dir.path().join("bad"))
        .arg(bundled("ambush_at_the_ford.toml"))
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("--set heroes.Brother Anselm.risk=-3..0 (value -3)")
                .and(predicate::str::contains("coward"))
                .and(predicate::str::contains("ambush_at_the_ford.toml:").not()),
        );
}

/// Sweeps `set` on scenario `path` (20,000 battles a variant): the console,
/// `report.html`, `run.json`'s `held_by_readings`, and each variant's count
/// of `side`'s wins from `distributions.csv`.
fn sweep_of(
    path: &Path,
    set: &str,
    side: &str,
) -> (String, String, serde_json::Value, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let done = warcrunch()
        .args(["sweep", "--trials", "20000", "--set", set, "--out"])
        .arg(&out)
        .arg(path)
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(&read(&out.join("run.json"))).unwrap();
    let wins = csv_rows(&out.join("distributions.csv"))
        .into_iter()
        .filter(|r| {
            r["subject"] == format!("side:{side}")
                && r["metric"] == "victory"
                && r["value"] == "won"
        })
        .map(|r| r["count"].clone())
        .collect();
    (
        String::from_utf8_lossy(&done.stdout).into_owned(),
        read(&out.join("report.html")),
        json["held_by_readings"].clone(),
        wins,
    )
}

/// A Risk sweep of a one-day battle under `leader_fall = "next_day"` says
/// in its verdict (console, page, run.json) that the winner cannot change,
/// names the setting that would let a general's fall change it, and the
/// counts agree: every variant wins the same battles. Under `same_day` a
/// general's Risk does move victory, and nothing is said; a three-day
/// battle says nothing either.
#[test]
fn a_one_day_risk_sweep_says_who_wins_cannot_change_under_next_day() {
    let dir = tempfile::tempdir().unwrap();
    let write = |reading: &str| {
        let text = read(&bundled("three_days_at_hollin.toml")).replacen(
            "days = 3",
            &format!("days = 1\nleader_fall = \"{reading}\""),
            1,
        );
        let path = dir.path().join(format!("{reading}.toml"));
        std::fs::write(&path, text).unwrap();
        path
    };
    let set = "heroes.Lord Aldric.risk=-6,0,6";
    let (console, html, held, wins) = sweep_of(&write("next_day"), set, "Kingdom");
    let said = "The winner cannot change across these variants";
    let free = "leader_fall = \"same_day\" would let Lord Aldric's fall decide the day";
    assert!(
        console.contains(said) && console.contains(free),
        "{console}"
    );
    assert!(
        html.contains(said) && html.contains("would let Lord Aldric&#39;s fall"),
        "the page says it"
    );
    assert_eq!(held.as_array().map(Vec::len), Some(1), "{held}");
    assert_eq!(wins.len(), 3);
    assert!(
        wins.iter().all(|w| *w == wins[0]),
        "the counts support it: {wins:?}"
    );
    let (console, _, held, wins) = sweep_of(&write("same_day"), set, "Kingdom");
    assert!(!console.contains(said) && held.is_null(), "{console}");
    assert!(
        wins[0] != wins[2],
        "a general's Risk moves victory under same_day: {wins:?}"
    );
    let (console, _, held, _) = sweep_of(
        &bundled("three_days_at_hollin.toml"),
        "heroes.Mira.risk=-6,6",
        "Kingdom",
    );
    assert!(!console.contains(said) && held.is_null(), "{console}");
}

/// The defender's ground (`side:Garrison/ground`) after the last day: the
/// siege's attacker all but sure to win (Strategy 30, the larger army by far), so the exact shares
/// follow the battle-results rows: every great or overwhelming victory
/// drives the garrison off, every significant one is held or lost on its
/// units' Morale, the rest leave it its ground. The sampled shares agree
/// with the exact ones; a sweep can ask for them as a target.
#[test]
fn the_defenders_ground_follows_the_battle_result() {
    let text = read(&bundled("siege_assault.toml")).replacen("strategy = 13", "strategy = 30", 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sure.toml");
    std::fs::write(&path, text).unwrap();
    let g = gurps(&path);
    assert_eq!(g.rules.defender, Some(1));
    let exact = warcrunch::systems::gurps::exact::exact_metrics(&g).unwrap();
    let find = |subject: &str, name: &str| {
        let m = exact
            .iter()
            .find(|m| m.subject == subject && m.name == name)
            .unwrap();
        (0..m.weights.len())
            .map(|b| (m.label(b), m.weights[b]))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    // The garrison wins a few battles in a million: the rows' shares are
    // the attacker's, but for those.
    let won = find("side:Imperial army", "victory");
    assert!(won["lost"] < 1e-5, "{won:?}");
    let result = find("battle", "result");
    let ground = find("side:Garrison", "ground");
    let close = |a: f64, b: f64| (a - b).abs() <= won["lost"] + 1e-12;
    assert!(
        close(
            ground["driven_off"],
            result["great"] + result["overwhelming"]
        ),
        "{ground:?} {result:?}"
    );
    assert!(close(
        ground["holds_on_morale"] + ground["retreats"],
        result["significant"]
    ));
    assert!(
        ground["holds_on_morale"] > 0.0 && ground["retreats"] > 0.0,
        "{ground:?}"
    );
    assert!(close(
        ground["holds"],
        result["draw"] + result["marginal"] + result["clear"]
    ));
    assert_agreement(&g, 1_000_000, 5);
    // The verdict says it, with the share that keeps the ground.
    let run = warcrunch()
        .args(["run", "--trials", "20000", "--out"])
        .arg(dir.path().join("run"))
        .arg(bundled("siege_assault.toml"))
        .output()
        .unwrap();
    let console = String::from_utf8_lossy(&run.stdout);
    assert!(
        console.contains("Garrison (defending) held the ground in ")
            && console.contains("holds on morale ")
            && console.contains("driven off "),
        "{console}"
    );
    // Every question can ask for it: a sweep with the ground as its target.
    let out = dir.path().join("sweep");
    warcrunch()
        .args([
            "sweep",
            "--quiet",
            "--trials",
            "20000",
            "--set",
            "sides.Garrison.troop_strength=700,1400",
        ])
        .args([
            "--target",
            "side:Garrison/ground=retreats|driven_off",
            "--out",
        ])
        .arg(&out)
        .arg(bundled("siege_assault.toml"))
        .assert()
        .success();
    let rows = csv_rows(&out.join("distributions.csv"));
    let ground = rows.iter().filter(|r| r["metric"] == "ground").count();
    assert_eq!(ground, 2 * 4, "four fates in each of two variants");
}

#[test]
fn a_pc_general_uses_his_own_luck_on_his_sides_catastrophe_roll() {
    let one_day = read(&bundled("three_days_at_hollin.toml")).replacen("days = 3", "days = 1", 1);
    let dir = tempfile::tempdir().unwrap();
    let load = |name: &str, text: &str| -> Gurps {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        gurps(&path)
    };
    let general_luck = one_day.replacen(
        "role = \"army_commander\"\n",
        "role = \"army_commander\"\nluck = true\n",
        1,
    );
    let both_flags = general_luck.replacen(
        "name = \"Kingdom\"\n",
        "name = \"Kingdom\"\ncommander_luck = true\n",
        1,
    );
    assert_ne!(general_luck, one_day);
    assert_ne!(both_flags, general_luck);
    let plain = load("plain.toml", &one_day);
    let general = load("general.toml", &general_luck);
    let both = load("both.toml", &both_flags);
    // The Kingdom's Catastrophe roll takes Lord Aldric's Luck, from his flag
    // alone as from both.
    assert!(!plain.rules.sides[0].commander_luck);
    assert!(general.rules.sides[0].commander_luck);
    assert!(both.rules.sides[0].commander_luck);
    let won = |g: &Gurps| -> f64 {
        let exact = warcrunch::systems::gurps::exact::exact_metrics(g).unwrap();
        let m = exact
            .iter()
            .find(|m| m.subject == "side:Kingdom" && m.name == "victory")
            .unwrap();
        let bin = (0..m.weights.len()).find(|&b| m.label(b) == "won").unwrap();
        m.weights[bin] / m.weights.iter().sum::<f64>()
    };
    assert_eq!(
        won(&general),
        won(&both),
        "one Luck, whichever flag says it"
    );
    assert!(
        won(&general) > won(&plain) + 0.01,
        "Luck on the Catastrophe roll helps the Kingdom: {} against {}",
        won(&general),
        won(&plain)
    );
    // Exact against sampled, the general's Luck on.
    assert_agreement(&general, 400_000, 11);
    // The side's flag gives no Luck to a general who has none: his own
    // flag decides, and `check` says the side's is not used.
    let disagree = one_day.replacen(
        "name = \"Kingdom\"\n",
        "name = \"Kingdom\"\ncommander_luck = true\n",
        1,
    );
    let overruled = load("overruled.toml", &disagree);
    assert!(!overruled.rules.sides[0].commander_luck);
    assert_eq!(won(&overruled), won(&plain));
    let said = warcrunch()
        .arg("check")
        .arg(dir.path().join("overruled.toml"))
        .assert()
        .success();
    let text = String::from_utf8_lossy(&said.get_output().stdout).into_owned();
    assert!(
        text.contains("commander_luck = true is not used: its commander is the PC Lord Aldric, whose own luck = false"),
        "{text}"
    );
}

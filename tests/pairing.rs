//! Common random numbers that pair: a variant moves only the battles it
//! changes, battle by battle; `run` is a comparison's base, count for
//! count; paired intervals cover the exact differences and are narrower
//! than two independent runs'.

use warcrunch::analysis::runner::{
    PairedAsk, Plan, exact_metrics, metric_layout, simulate, simulate_paired,
};
use warcrunch::engine::System;
use warcrunch::engine::paired::Event;
use warcrunch::engine::stream::BattleStream;
use warcrunch::scenario::{self, Edit, Scenario};
use warcrunch::stats::{Metric, paired_difference, unpaired_difference};
use warcrunch::systems::gurps::Gurps;
use warcrunch::systems::gurps::outcome::BattleOutcome;
use warcrunch::systems::seventh_sea::SeventhSea;

use crate::util::{bundled_scenarios, repo};

const AMBUSH: &str = "scenarios/gurps/ambush_at_the_ford.toml";
const SIEGE: &str = "scenarios/gurps/siege_assault.toml";

/// The bundled scenario at `path` with each (key, value) set, as `--set`
/// sets it; `None` where the scenario refuses the value.
fn edited(path: &str, sets: &[(&str, toml::Value)]) -> Option<Scenario> {
    let path = repo().join(path);
    let text = scenario::read_text(&path).unwrap();
    let edits = sets
        .iter()
        .map(|(key, value)| {
            let keys: Vec<String> = key.split('.').map(str::to_owned).collect();
            let value = value.clone();
            Edit {
                option: format!("--set {key}"),
                apply: Box::new(move |doc| {
                    warcrunch::questions::sweep::apply(doc, &keys, value.clone())
                }),
            }
        })
        .collect::<Vec<_>>();
    scenario::load_edited(&path, &text, &edits).ok()
}

fn gurps(s: &Scenario) -> &Gurps {
    s.battle.downcast::<Gurps>().expect("a GURPS battle")
}

/// Battle `n` of seed 5 as each of two battles fights it.
fn both(a: &Gurps, b: &Gurps, n: u64) -> (BattleOutcome, BattleOutcome) {
    let stream = BattleStream::battle(5, n);
    (
        a.simulate(&mut stream.clone()),
        b.simulate(&mut stream.clone()),
    )
}

/// A PC's Risk moved one step (down, or up where down is refused).
fn risk_moved(path: &str, pc: &str, risk: i64) -> Scenario {
    let key = format!("heroes.{pc}.risk");
    [risk - 1, risk + 1]
        .into_iter()
        .find_map(|r| edited(path, &[(&key, toml::Value::Integer(r))]))
        .unwrap_or_else(|| panic!("{pc}: no Risk next to {risk}"))
}

/// Changing one PC's Risk leaves every other PC, the winner, the battle's
/// result and the casualties identical battle by battle, in both one-day
/// battles; the PC himself changes in some battles.
#[test]
fn one_pcs_risk_moves_no_one_else() {
    for path in [AMBUSH, SIEGE] {
        let base = edited(path, &[]).unwrap();
        let g = gurps(&base);
        assert_eq!(g.rules.days, 1, "{path} is a one-day battle");
        for (i, pc) in g.parsed.heroes.iter().enumerate() {
            let moved = risk_moved(path, &pc.file.name, pc.file.risk);
            let m = gurps(&moved);
            let mut his = 0;
            for n in 0..20_000 {
                let (a, b) = both(g, m, n);
                his += u32::from(a.heroes[i] != b.heroes[i]);
                for j in (0..g.rules.heroes.len()).filter(|&j| j != i) {
                    assert_eq!(
                        a.heroes[j], b.heroes[j],
                        "{path}: {}'s Risk moved PC {j}",
                        pc.file.name
                    );
                }
                assert_eq!(
                    (a.winner, a.result, a.casualties_pct, a.catastrophe),
                    (b.winner, b.result, b.casualties_pct, b.catastrophe),
                    "{path}: {}'s Risk moved the battle {n}",
                    pc.file.name
                );
            }
            assert!(
                his > 0,
                "{path}: {}'s own Risk changed nothing",
                pc.file.name
            );
        }
    }
}

/// A Survival cell moved (row D's column to C on the ambush; row 2hp's
/// HP to 3 on the siege, whose lucky captain never fails) changes a PC
/// only in battles where his roll lands on that row, and there his row
/// stays the same.
#[test]
fn a_survival_cell_moves_only_the_battles_on_its_row() {
    let cases = [
        (
            AMBUSH,
            "tables.survival.rows.D.column",
            toml::Value::String("C".into()),
            6,
        ),
        (
            SIEGE,
            "tables.survival.rows.2hp.hp",
            toml::Value::Integer(3),
            2,
        ),
    ];
    for (path, cell, value, row) in cases {
        let base = edited(path, &[]).unwrap();
        let moved = edited(path, &[(cell, value)]).unwrap();
        let (g, m) = (gurps(&base), gurps(&moved));
        let on_row = row + 1; // `survival` counts rows from 1 (0: no roll)
        let (mut landed, mut changed) = (0, 0);
        for n in 0..50_000 {
            let (a, b) = both(g, m, n);
            for (j, (x, y)) in a.heroes.iter().zip(&b.heroes).enumerate() {
                assert_eq!(x.survival, y.survival, "{path}: PC {j}'s row, battle {n}");
                if x.survival == on_row {
                    landed += 1;
                    changed += u32::from(x != y);
                } else {
                    assert_eq!(x, y, "{path}: PC {j} off the row, battle {n}");
                }
            }
            assert_eq!(a.winner, b.winner);
        }
        assert!(
            changed > 0,
            "{path}: {cell} changed none of {landed} battles on its row"
        );
    }
}

/// The exact probabilities of `metric`'s values (by label) for scenario `s`.
fn exact(s: &Scenario, subject: &str, metric: &str) -> (usize, Vec<f64>) {
    let layout = metric_layout(s);
    let index = layout
        .iter()
        .position(|m| m.subject == subject && m.name == metric)
        .unwrap_or_else(|| panic!("no {subject}/{metric}"));
    let exact: Vec<Metric<f64>> = exact_metrics(s).unwrap();
    let m = exact
        .iter()
        .find(|m| m.subject == subject && m.name == metric)
        .unwrap();
    (index, m.weights.clone())
}

/// How often, over `seeds` seeds of `trials` battles, the paired interval
/// of each value of `subject/metric` (base to moved) covers the exact
/// difference; and the paired and unpaired widths summed over the seeds.
fn coverage(
    base: &Scenario,
    moved: &Scenario,
    (subject, metric): (&str, &str),
    seeds: u64,
    trials: u64,
) -> Vec<(f64, f64)> {
    let (index, p0) = exact(base, subject, metric);
    let (_, p1) = exact(moved, subject, metric);
    let events: Vec<Event> = (0..p0.len())
        .map(|bin| Event {
            metric: index,
            bins: vec![bin],
        })
        .collect();
    let plan = Plan {
        threads: 0,
        progress: false,
        shard: warcrunch::engine::Shard::WHOLE,
        precision: None,
    };
    let mut covered = vec![0u64; p0.len()];
    for seed in 0..seeds {
        let (mut b, mut m) = (base.clone(), moved.clone());
        for s in [&mut b, &mut m] {
            s.seed = 1000 + seed;
            s.trials = trials;
        }
        let done = simulate_paired(
            &[&b, &m],
            PairedAsk::events(vec![events.clone(); 2]),
            &plan,
            None,
        )
        .unwrap();
        for (bin, event) in events.iter().enumerate() {
            let (x1, x2) = (done.event_count(0, event), done.event_count(1, event));
            let d = paired_difference(trials, x1, x2, done.both[1][bin]);
            let truth = p1[bin] - p0[bin];
            covered[bin] += u64::from(d.low <= truth && truth <= d.high);
        }
    }
    covered
        .iter()
        .zip(p0.iter().zip(&p1))
        .map(|(&c, (a, b))| (c as f64 / seeds as f64, b - a))
        .collect()
}

/// The paired interval of each of Titus's states (Risk −3 → +3 and
/// 0 → 1) and of the party's outcome (Survival row D's column D → C)
/// covers the exact difference in at least 93% of 400 seeds of 20,000
/// battles.
#[test]
fn paired_intervals_cover_the_exact_differences() {
    let risk = |r: i64| ("heroes.Titus.risk", toml::Value::Integer(r));
    let c = (
        "tables.survival.rows.D.column",
        toml::Value::String("C".into()),
    );
    let cases = [
        (vec![risk(-3)], vec![risk(3)], ("hero:Titus", "state")),
        (vec![risk(0)], vec![risk(1)], ("hero:Titus", "state")),
        (vec![], vec![c], ("party", "any_down_or_dead")),
    ];
    for (from, to, outcome) in cases {
        let base = edited(AMBUSH, &from).unwrap();
        let moved = edited(AMBUSH, &to).unwrap();
        for (value, (share, truth)) in coverage(&base, &moved, outcome, 400, 20_000)
            .into_iter()
            .enumerate()
        {
            println!("{outcome:?} value {value}: exact difference {truth:+.5}, covered {share:.3}");
            if truth == 0.0 && share == 1.0 {
                continue;
            }
            assert!(
                share >= 0.93,
                "{outcome:?} value {value} ({from:?} -> {to:?}): covered {share:.3} of 400 seeds"
            );
        }
    }
}

/// The exact mean of a numeric outcome of `s`.
fn exact_mean(s: &Scenario, subject: &str, metric: &str) -> f64 {
    let (_, weights) = exact(s, subject, metric);
    let layout = metric_layout(s);
    let m = layout
        .iter()
        .find(|m| m.subject == subject && m.name == metric)
        .unwrap();
    let warcrunch::stats::Values::Integers { first } = m.values else {
        panic!("{subject}/{metric} is numeric");
    };
    weights
        .iter()
        .enumerate()
        .map(|(b, w)| (first + b as i64) as f64 * w)
        .sum()
}

/// The paired interval of a mean's difference (Student's t on the
/// battle-by-battle differences) covers the exact difference in at least
/// 93% of 400 seeds of 20,000 battles: the party's count of PCs down or
/// dead, for Titus's Risk −3 → +3 (which moves his own rolls only) and for
/// Survival row D's column D → C (which moves every PC's).
#[test]
fn the_paired_mean_interval_covers_the_exact_difference() {
    let risk = |r: i64| ("heroes.Titus.risk", toml::Value::Integer(r));
    let c = (
        "tables.survival.rows.D.column",
        toml::Value::String("C".into()),
    );
    let (subject, metric) = ("party", "down_or_dead");
    let plan = Plan {
        threads: 0,
        progress: false,
        shard: warcrunch::engine::Shard::WHOLE,
        precision: None,
    };
    for (from, to) in [(vec![risk(-3)], vec![risk(3)]), (vec![], vec![c])] {
        let base = edited(AMBUSH, &from).unwrap();
        let moved = edited(AMBUSH, &to).unwrap();
        let truth = exact_mean(&moved, subject, metric) - exact_mean(&base, subject, metric);
        let index = metric_layout(&base)
            .iter()
            .position(|m| m.subject == subject && m.name == metric)
            .unwrap();
        let (mut covered, mut ratio) = (0u32, 0.0);
        for seed in 0..400 {
            let (mut b, mut m) = (base.clone(), moved.clone());
            for s in [&mut b, &mut m] {
                s.seed = 1000 + seed;
                s.trials = 20_000;
            }
            let ask = PairedAsk {
                events: vec![Vec::new(); 2],
                means: vec![vec![index]; 2],
            };
            let done = simulate_paired(&[&b, &m], ask, &plan, None).unwrap();
            let d = done.mean_sums[1][0].means().unwrap().difference;
            covered += u32::from(d.low <= truth && truth <= d.high);
            let spread = |v: usize| {
                let s = done.metrics[v][index].summary().unwrap();
                s.std_dev.powi(2) / s.trials as f64
            };
            let unpaired = 2.0 * 1.959_964 * (spread(0) + spread(1)).sqrt();
            ratio += unpaired / (d.high - d.low) / 400.0;
        }
        let share = f64::from(covered) / 400.0;
        println!(
            "{subject}/{metric} mean, {from:?} -> {to:?}: exact difference {truth:+.5}, covered {share:.3}, unpaired/paired width {ratio:.2}"
        );
        assert!(truth != 0.0, "the move changes the mean");
        assert!(share >= 0.93, "covered {share:.3} of 400 seeds");
    }
}

/// The paired run of `base` and `moved` at `trials` battles, seed 7, for
/// `subject/metric` bins `bins`: the battles of each with the event, the
/// battles of both, and the width two independent runs would give over the
/// paired width.
fn paired_counts(
    base: &Scenario,
    moved: &Scenario,
    (subject, metric, bins): (&str, &str, Vec<usize>),
    trials: u64,
) -> ([u64; 3], f64) {
    let layout = metric_layout(base);
    let index = layout
        .iter()
        .position(|m| m.subject == subject && m.name == metric)
        .unwrap_or_else(|| panic!("no {subject}/{metric}"));
    let event = Event {
        metric: index,
        bins,
    };
    let plan = Plan {
        threads: 0,
        progress: false,
        shard: warcrunch::engine::Shard::WHOLE,
        precision: None,
    };
    let (mut b, mut m) = (base.clone(), moved.clone());
    for s in [&mut b, &mut m] {
        s.seed = 7;
        s.trials = trials;
    }
    let done = simulate_paired(
        &[&b, &m],
        PairedAsk::events(vec![vec![event.clone()]; 2]),
        &plan,
        None,
    )
    .unwrap();
    let (x1, x2) = (done.event_count(0, &event), done.event_count(1, &event));
    let paired = paired_difference(trials, x1, x2, done.both[1][0]);
    let unpaired = unpaired_difference(x1, trials, x2, trials);
    let ratio = (unpaired.high - unpaired.low) / (paired.high - paired.low);
    ([x1, x2, done.both[1][0]], ratio)
}

/// On the ambush, Risk 0 → 1 couples Titus's down-or-dead monotonically:
/// no battle puts him out at Risk 1 that does not at Risk 0, so the paired
/// interval is the narrowest any pairing can give (its width against two
/// independent runs is then fixed by the two probabilities: about 1.4 at
/// 0.9% and 0.3%); and pairing at least halves the interval of the party's
/// outcome for Survival row D's column D → C.
#[test]
fn pairing_is_monotone_and_halves_the_ambush_intervals() {
    let base = edited(AMBUSH, &[]).unwrap();
    let state = metric_layout(&base)
        .into_iter()
        .find(|m| m.subject == "hero:Titus" && m.name == "state")
        .unwrap();
    let out: Vec<usize> = (0..state.weights.len())
        .filter(|&b| matches!(state.label(b).as_str(), "down" | "dead"))
        .collect();
    assert_eq!(out.len(), 2);
    let risk = edited(AMBUSH, &[("heroes.Titus.risk", toml::Value::Integer(1))]).unwrap();
    let ([x0, x1, both], ratio) =
        paired_counts(&base, &risk, ("hero:Titus", "state", out), 200_000);
    println!("Titus down or dead, Risk 0 -> 1: {x0} -> {x1}, {both} both; width ratio {ratio:.2}");
    assert!(x1 < x0 && x1 > 0, "{x0} -> {x1}");
    assert_eq!(
        both, x1,
        "a battle put Titus out at Risk 1 and not at Risk 0"
    );
    // The best any coupling gives: sqrt of the unpaired variance over
    // (p0 - p1)(1 - (p0 - p1)), to within the intervals' skew.
    let (p0, p1) = (x0 as f64 / 2e5, x1 as f64 / 2e5);
    let best = ((p0 * (1.0 - p0) + p1 * (1.0 - p1)) / ((p0 - p1) * (1.0 - p0 + p1))).sqrt();
    assert!(
        (ratio / best - 1.0).abs() < 0.05,
        "ratio {ratio:.3}, best {best:.3}"
    );
    let c = toml::Value::String("C".into());
    let cell = edited(AMBUSH, &[("tables.survival.rows.D.column", c)]).unwrap();
    let ([x0, x1, both], ratio) = paired_counts(
        &base,
        &cell,
        ("party", "any_down_or_dead", vec![1]),
        200_000,
    );
    println!(
        "party down or dead, row D's column -> C: {x0} -> {x1}, {both} both; width ratio {ratio:.2}"
    );
    assert!(ratio >= 2.0, "party, row D -> C: {ratio:.2}");
}

/// `run S --seed N` is the base of a comparison at the same seed, count
/// for count, on every bundled scenario.
#[test]
fn a_run_is_the_base_of_its_comparison() {
    let plan = Plan {
        threads: 2,
        progress: false,
        shard: warcrunch::engine::Shard::WHOLE,
        precision: None,
    };
    for path in bundled_scenarios() {
        let mut s = scenario::load(&path).unwrap();
        s.trials = 20_000;
        s.seed = 11;
        let run = simulate(&s, &plan).unwrap();
        let paired = simulate_paired(
            &[&s, &s],
            PairedAsk::events(vec![Vec::new(); 2]),
            &plan,
            None,
        )
        .unwrap();
        assert_eq!(run.metrics, paired.metrics[0], "{}", path.display());
        assert_eq!(run.metrics, paired.metrics[1], "{}", path.display());
    }
}

const EVEN_FIELD: &str = "scenarios/seventh_sea/even_field_battle.toml";

/// In the even field, a Battle Chart cell's Reputation moved leaves every
/// Hero's state, wounds and opportunities, and the winner, the same in
/// every battle: no draw reads a cell's Reputation.
#[test]
fn a_reputation_cell_moves_no_roll() {
    let base = edited(EVEN_FIELD, &[]).unwrap();
    let moved = edited(
        EVEN_FIELD,
        &[(
            "tables.battle_chart.rows.2.heavily_engaged.reputation",
            toml::Value::Integer(2),
        )],
    )
    .unwrap();
    let sea = |s: &Scenario| s.battle.downcast::<SeventhSea>().expect("7th Sea").clone();
    let (a, b) = (sea(&base), sea(&moved));
    let mut fame = 0;
    for n in 0..20_000 {
        let stream = BattleStream::battle(5, n);
        let (x, y) = (
            a.simulate(&mut stream.clone()),
            b.simulate(&mut stream.clone()),
        );
        assert_eq!((x.winner, x.rounds), (y.winner, y.rounds), "battle {n}");
        for (h, k) in x.heroes.iter().zip(&y.heroes) {
            assert_eq!(
                (
                    h.state,
                    h.dramatic_wounds,
                    h.opportunities_taken,
                    h.spoils,
                    h.duels_won
                ),
                (
                    k.state,
                    k.dramatic_wounds,
                    k.opportunities_taken,
                    k.spoils,
                    k.duels_won
                ),
                "battle {n}"
            );
            fame += u32::from(h.reputation != k.reputation);
        }
    }
    assert!(fame > 0, "the cell's Reputation changed no Hero's fame");
}

/// `sensitivity --cells` on the even field's Battle Chart: every move of a
/// cell's Reputation leaves Isabeau's knock-out the same in every battle
/// (0 discordant, never said to differ), and the moves that do change it
/// are measured at least twice as narrowly (median) as two independent
/// runs would.
#[test]
fn chart_cell_moves_pair_on_the_even_field() {
    let dir = tempfile::tempdir().unwrap();
    crate::util::warcrunch()
        .args([
            "sensitivity",
            EVEN_FIELD,
            "--target",
            "hero:Isabeau/state=knocked_out",
        ])
        .args([
            "--cells",
            "--tables",
            "battle_chart",
            "--trials",
            "20000",
            "--quiet",
        ])
        .arg("--out")
        .arg(dir.path())
        .assert()
        .success();
    let text = std::fs::read_to_string(dir.path().join("sensitivity.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (column, discordant, ratio, differs) = (
        at("column"),
        at("discordant"),
        at("width_ratio"),
        at("differs"),
    );
    let (mut reputation, mut ratios) = (0, Vec::new());
    for row in reader.records() {
        let row = row.unwrap();
        let moved: u64 = row[discordant].parse().unwrap();
        if row[column].ends_with("reputation") {
            reputation += 1;
            assert_eq!(moved, 0, "{row:?}");
            assert_eq!(&row[differs], "false", "{row:?}");
            // No battle moved: no ratio of two noises (it read 93 to 479).
            assert_eq!(&row[ratio], "", "{row:?}");
        } else if moved > 0 {
            ratios.push(row[ratio].parse::<f64>().unwrap());
        }
    }
    assert!(reputation >= 20, "{reputation} Reputation moves");
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    println!(
        "{} chart moves changed the knock-out; median width ratio {median:.2}",
        ratios.len()
    );
    assert!(median >= 2.0, "median width ratio {median:.2}");
}

/// The workbench's before/after marks a difference ("differs") only
/// family-wise across every outcome it shows: two runs of the same battle
/// that differ only in their seed mark nothing in at least 95 of 100 tries
/// (the ambush, 20,000 battles a run, seeds 1000 to 1199 in pairs).
#[test]
fn a_seed_only_rerun_marks_nothing_on_the_workbench() {
    let base = scenario::load(&repo().join(AMBUSH)).unwrap();
    let plan = Plan {
        threads: 0,
        progress: false,
        shard: warcrunch::engine::Shard::WHOLE,
        precision: None,
    };
    let info =
        warcrunch::analysis::runner::run_info(&base, String::new(), 0, std::time::Duration::ZERO);
    let run = |seed: u64| {
        let mut s = base.clone();
        s.seed = seed;
        s.trials = 20_000;
        simulate(&s, &plan).unwrap().metrics
    };
    let mut marked = 0;
    for pair in 0..100 {
        let before = run(1000 + 2 * pair);
        let after = run(1001 + 2 * pair);
        let (_, shown) = warcrunch::serve::view(&after, 20_000, Some(&before), &info);
        let shares: Vec<_> = shown.iter().flat_map(|m| &m.shares).collect();
        assert!(
            shares.iter().all(|s| s.before.is_some()),
            "every outcome compared"
        );
        if shares
            .iter()
            .any(|s| s.before.as_ref().is_some_and(|b| b.verdict == "differs"))
        {
            marked += 1;
        }
    }
    println!("a seed-only re-run marked a difference in {marked} of 100 tries");
    assert!(
        marked <= 5,
        "{marked} of 100 seed-only re-runs marked a difference"
    );
}

/// A sweep's paired tests say how much pairing narrowed an interval only
/// where some battle changed: Titus's Risk moves his own fate, not who
/// wins, and the victory rows' ratios read 93 to 303 before.
#[test]
fn a_width_ratio_is_written_only_where_a_battle_changed() {
    let dir = tempfile::tempdir().unwrap();
    crate::util::warcrunch()
        .args(["sweep", "scenarios/gurps/ambush_at_the_ford.toml"])
        .args(["--set", "heroes.Titus.risk=-1,-2", "--trials", "20000"])
        .args(["--seed", "11", "--quiet", "--out"])
        .arg(dir.path())
        .assert()
        .success();
    let rows = crate::util::csv_rows(&dir.path().join("comparison.csv"));
    let (mut unmoved, mut moved) = (0, 0);
    for row in &rows {
        match row["discordant"].as_str() {
            "" => {}
            "0" => {
                unmoved += 1;
                assert_eq!(row["width_ratio"], "", "{row:?}");
            }
            _ => {
                moved += 1;
                assert!(row["width_ratio"].parse::<f64>().unwrap() > 0.0, "{row:?}");
            }
        }
    }
    assert!(unmoved > 0 && moved > 0, "{unmoved} unmoved, {moved} moved");
}

/// A sweep compares every variant with the one holding the scenario's own
/// value (the ambush's Raiders field 800 troops), battle by battle: each
/// of a variant's rows in `comparison.csv` is the row a sweep of that value
/// and the variant alone writes, and the report and `run.json` name the
/// baseline. A grid without the scenario's value compares with its first
/// and says so.
#[test]
fn a_sweep_is_measured_against_the_scenarios_own_value() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = |values: &str| {
        let out = dir.path().join(values);
        crate::util::warcrunch()
            .args(["sweep", AMBUSH, "--set"])
            .arg(format!("sides.Raiders.troop_strength={values}"))
            .args(["--trials", "4000", "--seed", "3", "--quiet", "--out"])
            .arg(&out)
            .assert()
            .success();
        out
    };
    let rows_of = |out: &std::path::Path, variant: &str| {
        let rows = crate::util::csv_rows(&out.join("comparison.csv"));
        rows.into_iter()
            .filter(|r| r["variant"] == variant)
            .collect::<Vec<_>>()
    };
    let grid = sweep("600..1000:200");
    let rows = crate::util::csv_rows(&grid.join("comparison.csv"));
    let compared: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["variant"].as_str()).collect();
    assert_eq!(
        compared,
        ["troop_strength=1000", "troop_strength=600"].into()
    );
    assert!(rows.iter().all(|r| r["baseline"] == "troop_strength=800"));
    for (variant, alone) in [
        ("troop_strength=600", "800,600"),
        ("troop_strength=1000", "800,1000"),
    ] {
        let paired = rows_of(&sweep(alone), variant);
        assert!(!paired.is_empty(), "{variant}");
        assert_eq!(rows_of(&grid, variant), paired, "{variant}");
    }
    let report = crate::util::read(&grid.join("report.html")).replace("<wbr>", "");
    assert!(
        report.contains(
            "Each variant is compared with troop_strength=800, the scenario&#39;s own value."
        ),
        "the report names its baseline"
    );
    assert!(
        crate::util::read(&grid.join("run.json")).contains(r#""baseline": "troop_strength=800""#)
    );
    let without = sweep("900,1000");
    assert!(
        crate::util::csv_rows(&without.join("comparison.csv"))
            .iter()
            .all(|r| r["baseline"] == "troop_strength=900")
    );
    let report = crate::util::read(&without.join("report.html")).replace("<wbr>", "");
    assert!(
        report.contains("Each variant is compared with the first, troop_strength=900: no variant holds the value the scenario file sets"),
        "the report says why the first is the baseline"
    );
    assert!(!crate::util::read(&without.join("run.json")).contains(r#""baseline""#));
}

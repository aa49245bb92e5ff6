//! Variants fought battle by battle on the same streams: the bit-sliced
//! counts of [`warcrunch::engine::paired`] equal plain counting of the same
//! outcomes, and the pairs' counts and the sums of the numeric outcomes'
//! differences equal a battle-by-battle count.

use warcrunch::engine::paired::{Event, Lockstep, MetricsOf};
use warcrunch::engine::stream::BattleStream;
use warcrunch::engine::{System, Tally};
use warcrunch::scenario::{self, Edit, Scenario};
use warcrunch::stats::paired_mean::PairedSums;
use warcrunch::stats::{Metric, Values};
use warcrunch::systems::{Battle, BattleSystem, SYSTEMS, Visit, registry};

use crate::util::{bundled_scenarios, repo};

/// The bundled scenario at `path`, with `key` (a sweep path) set to `value`.
fn variant(path: &str, key: &str, value: toml::Value) -> Scenario {
    let path = repo().join(path);
    let text = scenario::read_text(&path).unwrap();
    let keys: Vec<String> = key.split('.').map(str::to_owned).collect();
    let edit = Edit::set(format!("--set {key}"), keys, value);
    scenario::load_edited(&path, &text, &[edit]).unwrap()
}

/// Every bin of every metric as an event, and one event of two bins.
fn events(layout: &[Metric<u64>]) -> Vec<Event> {
    let mut events: Vec<Event> = layout
        .iter()
        .enumerate()
        .flat_map(|(metric, m)| {
            (0..m.weights.len()).map(move |bin| Event {
                metric,
                bins: vec![bin],
            })
        })
        .collect();
    let wide = layout.iter().position(|m| m.weights.len() > 2).unwrap();
    events.push(Event {
        metric: wide,
        bins: vec![0, 2],
    });
    events
}

/// The numeric metrics of a layout.
fn numeric(layout: &[Metric<u64>]) -> Vec<usize> {
    (0..layout.len())
        .filter(|&m| layout[m].is_numeric())
        .collect()
}

/// The value one battle's metrics (counts of that battle alone) give a
/// numeric metric.
fn value_of(one: &[Metric<u64>], metric: usize) -> i64 {
    let Values::Integers { first } = one[metric].values else {
        panic!("a numeric metric");
    };
    let bin = one[metric].weights.iter().position(|&w| w == 1);
    first + bin.expect("one value a battle") as i64
}

/// Fights `battles` battles of every variant in lockstep and checks the
/// paired tally against plain tallies and a battle-by-battle count.
fn check<S: System>(variants: Vec<&S>, metrics: &MetricsOf<'_, S>, battles: usize) {
    let layouts: Vec<Vec<Metric<u64>>> = variants
        .iter()
        .map(|v| metrics(v, &v.new_tally()))
        .collect();
    let shapes = |l: &[Metric<u64>]| l.iter().map(|m| m.weights.len()).collect::<Vec<_>>();
    assert!(layouts.iter().all(|l| shapes(l) == shapes(&layouts[0])));
    let events: Vec<Vec<Event>> = layouts.iter().map(|l| events(l)).collect();
    let means: Vec<Vec<usize>> = layouts.iter().map(|l| numeric(l)).collect();
    assert!(!means[0].is_empty(), "a numeric metric to pair");
    let lockstep = Lockstep::new(variants.clone(), metrics, events.clone(), means.clone());
    let mut sums = vec![vec![PairedSums::default(); means[0].len()]; variants.len()];
    // Two tallies merged, as the engine's workers do.
    let mut paired = [lockstep.new_tally(), lockstep.new_tally()];
    let mut plain: Vec<S::Tally> = variants.iter().map(|v| v.new_tally()).collect();
    let mut both = vec![vec![0u64; events[0].len()]; variants.len()];
    for battle in 0..battles {
        let outcomes = lockstep.simulate(&mut BattleStream::battle(11, battle as u64));
        paired[battle % 3 / 2].record(&outcomes);
        let mut hit = Vec::new();
        let mut base_values = Vec::new();
        for (v, outcome) in outcomes.iter().enumerate() {
            plain[v].record(outcome);
            let mut one = variants[v].new_tally();
            one.record(outcome);
            let one = metrics(variants[v], &one);
            let happened: Vec<bool> = events[v]
                .iter()
                .map(|e| e.bins.iter().any(|&b| one[e.metric].weights[b] == 1))
                .collect();
            let values: Vec<i64> = means[v].iter().map(|&m| value_of(&one, m)).collect();
            if v == 0 {
                hit = happened.clone();
                base_values = values.clone();
            } else {
                for (t, (mine, base)) in values.iter().zip(&base_values).enumerate() {
                    sums[v][t].add_many(i128::from(mine - base), 1);
                }
            }
            for (e, (&base, &mine)) in hit.iter().zip(&happened).enumerate() {
                both[v][e] += u64::from(base && mine);
            }
        }
    }
    let [mut merged, other] = paired;
    merged.merge(other);
    let counted = merged.finish();
    for (v, tally) in plain.iter().enumerate() {
        assert_eq!(
            counted.metrics[v],
            metrics(variants[v], tally),
            "variant {v}"
        );
    }
    assert_eq!(counted.both, both);
    assert!(both[0].iter().any(|&n| n > 0), "events happened");
    assert_eq!(counted.mean_sums, sums);
    assert!(
        sums[1].iter().any(|s| s.changed > 0),
        "the variant changed a numeric outcome in some battle"
    );
}

/// Checks a battle paired with another of its own system.
struct Paired<'o> {
    other: &'o Battle,
    battles: usize,
}

impl<'a> Visit<'a> for Paired<'_> {
    type Output = ();
    fn visit<S: BattleSystem>(self, base: &'a S) {
        let other = self.other.downcast::<S>().expect("one system");
        check(vec![base, other], &|s, t| s.metrics_of(t), self.battles);
    }
}

/// The metrics' shapes (bins per metric) of a battle.
fn shape(s: &Scenario) -> Vec<usize> {
    let layout = warcrunch::analysis::runner::metric_layout(s);
    layout.iter().map(|m| m.weights.len()).collect()
}

/// A battle one step from `base` whose metrics have the same bins: a value
/// of the first sweep its system proposes for it, else the first move of
/// a cell no table path names (the war cards' deck).
fn neighbour(file: &std::path::Path, base: &Scenario) -> Option<Battle> {
    let relative = file.strip_prefix(repo()).unwrap().display().to_string();
    let doc: toml::Value = toml::from_str(&scenario::read_text(file).unwrap()).unwrap();
    let questions = registry::example_questions(&serde_json::to_value(doc).unwrap())?;
    if let Some(set) = questions["sweep"]["set"][0].as_str() {
        let setting = warcrunch::questions::sweep::parse_setting(set).unwrap();
        let path = setting.path.join(".");
        for value in setting.values.into_iter().rev() {
            let moved = variant(&relative, &path, value);
            let same = moved.battle.describe() == base.battle.describe();
            if !same && shape(&moved) == shape(base) {
                return Some(moved.battle);
            }
        }
    }
    let moves = base.battle.own_cell_moves()?.unwrap();
    moves.into_iter().next().map(|m| m.battle)
}

#[test]
fn paired_counts_equal_plain_counts_in_every_system() {
    // Every bundled battle paired with a neighbour: the registry's systems,
    // not a list here.
    let mut checked = std::collections::BTreeSet::new();
    for file in bundled_scenarios() {
        let base = scenario::load(&file).unwrap();
        let Some(other) = neighbour(&file, &base) else {
            continue;
        };
        base.battle.visit(Paired {
            other: &other,
            battles: 600,
        });
        checked.insert(base.battle.system());
    }
    let every: std::collections::BTreeSet<&str> = SYSTEMS.iter().copied().collect();
    assert_eq!(checked, every, "a paired check for every system");
}

fn whole(threads: usize) -> warcrunch::analysis::runner::Plan {
    warcrunch::analysis::runner::Plan {
        threads,
        progress: false,
        shard: warcrunch::engine::Shard::WHOLE,
        precision: None,
    }
}

/// Two identical variants fought paired have the same outcome in every
/// battle, in every bundled scenario of every system: each value of each
/// metric was had by both in exactly the battles either had it (no
/// discordant pair).
#[test]
fn identical_variants_fought_paired_never_disagree_in_a_battle() {
    for file in bundled_scenarios() {
        let mut s = scenario::load(&file).unwrap();
        s.trials = 5_000;
        let layout = warcrunch::analysis::runner::metric_layout(&s);
        let every = events(&layout);
        let means = numeric(&layout);
        let ask = warcrunch::analysis::runner::PairedAsk {
            events: vec![every.clone(), every.clone()],
            means: vec![means.clone(), means.clone()],
        };
        let done =
            warcrunch::analysis::runner::simulate_paired(&[&s, &s], ask, &whole(2), None).unwrap();
        for (t, sums) in done.mean_sums[1].iter().enumerate() {
            assert_eq!(
                (sums.battles, sums.changed, sums.sum, sums.squares),
                (5_000, 0, 0, 0),
                "{}: {} differs from itself",
                file.display(),
                layout[means[t]].name
            );
        }
        for (e, event) in every.iter().enumerate() {
            let count = |v: usize| -> u64 {
                let m = &done.metrics[v][event.metric];
                event.bins.iter().map(|&b| m.weights[b]).sum()
            };
            assert_eq!(count(0), count(1), "{}: event {e}", file.display());
            assert_eq!(
                done.both[1][e],
                count(0),
                "{}: {} bins {:?} had by one variant only in some battles",
                file.display(),
                layout[event.metric].name,
                event.bins
            );
        }
    }
}

/// The paired interval of a difference covers the exact difference about
/// 95% of the time: 400 seeds of Knights against Pikes with the attacker's
/// defence one higher (exact odds by the Markov chain), coverage within
/// four binomial standard deviations of 95% (362 to 398 of 400).
#[test]
fn the_paired_interval_covers_the_exact_difference_95_times_in_100() {
    let file = "scenarios/war_cards/knights_vs_pikes.toml";
    let base = scenario::load(&repo().join(file)).unwrap();
    let doc: toml::Table =
        toml::from_str(&scenario::read_text(&repo().join(file)).unwrap()).unwrap();
    let defence = doc["attacker"]["defence"].as_integer().unwrap();
    let moved = variant(file, "attacker.defence", toml::Value::Integer(defence + 1));
    let layout = warcrunch::analysis::runner::metric_layout(&base);
    let metric = layout
        .iter()
        .position(|m| m.subject == "battle" && m.name == "winner")
        .expect("the winner metric");
    let exact =
        |s: &Scenario| warcrunch::analysis::runner::exact_metrics(s).unwrap()[metric].weights[0];
    let truth = exact(&moved) - exact(&base);
    assert!(truth.abs() > 0.005, "the move changes the odds: {truth}");
    let event = Event {
        metric,
        bins: vec![0],
    };
    let seeds = 400;
    let mut covered = 0;
    for seed in 0..seeds {
        let (mut a, mut b) = (base.clone(), moved.clone());
        for s in [&mut a, &mut b] {
            (s.trials, s.seed) = (20_000, 1_000 + seed);
        }
        let done = warcrunch::analysis::runner::simulate_paired(
            &[&a, &b],
            warcrunch::analysis::runner::PairedAsk::events(vec![vec![event.clone()]; 2]),
            &whole(1),
            None,
        )
        .unwrap();
        let x = |v: usize| done.metrics[v][metric].weights[0];
        let d = warcrunch::stats::paired_difference(done.trials, x(0), x(1), done.both[1][0]);
        covered += u64::from(d.low <= truth && truth <= d.high);
    }
    println!(
        "the paired interval covered the exact difference {truth:+.5} in {covered} of {seeds} seeds"
    );
    assert!((362..=398).contains(&covered), "{covered} of {seeds}");
}

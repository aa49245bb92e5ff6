//! Variants fought battle by battle on the same streams: the bit-sliced
//! counts of [`warcrunch::paired`] equal plain counting of the same
//! outcomes, and the pairs' counts equal a battle-by-battle count.

use rand::SeedableRng;
use warcrunch::engine::{BattleRng, System, Tally};
use warcrunch::paired::{Event, Lockstep, MetricsOf};
use warcrunch::scenario::{self, Battle, Edit, Scenario};
use warcrunch::stats::Metric;

use crate::util::repo;

/// The bundled scenario at `path`, with `key` (a sweep path) set to `value`.
fn variant(path: &str, key: &str, value: toml::Value) -> Scenario {
    let path = repo().join(path);
    let text = scenario::read_text(&path).unwrap();
    let keys: Vec<String> = key.split('.').map(str::to_owned).collect();
    let edit = Edit {
        option: format!("--set {key}"),
        apply: Box::new(move |doc| warcrunch::sweep::apply(doc, &keys, value.clone())),
    };
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
    let lockstep = Lockstep::new(variants.clone(), metrics, events.clone());
    let mut rng = BattleRng::seed_from_u64(11);
    // Two tallies merged, as the engine's workers do.
    let mut paired = [lockstep.new_tally(), lockstep.new_tally()];
    let mut plain: Vec<S::Tally> = variants.iter().map(|v| v.new_tally()).collect();
    let mut both = vec![vec![0u64; events[0].len()]; variants.len()];
    for battle in 0..battles {
        let outcomes = lockstep.simulate(&mut rng);
        paired[battle % 3 / 2].record(&outcomes);
        let mut hit = Vec::new();
        for (v, outcome) in outcomes.iter().enumerate() {
            plain[v].record(outcome);
            let mut one = variants[v].new_tally();
            one.record(outcome);
            let one = metrics(variants[v], &one);
            let happened: Vec<bool> = events[v]
                .iter()
                .map(|e| e.bins.iter().any(|&b| one[e.metric].weights[b] == 1))
                .collect();
            if v == 0 {
                hit = happened.clone();
            }
            for (e, (&base, &mine)) in hit.iter().zip(&happened).enumerate() {
                both[v][e] += u64::from(base && mine);
            }
        }
    }
    let [mut merged, other] = paired;
    merged.merge(other);
    let (counted, counted_both) = merged.finish();
    for (v, tally) in plain.iter().enumerate() {
        assert_eq!(counted[v], metrics(variants[v], tally), "variant {v}");
    }
    assert_eq!(counted_both, both);
    assert!(both[0].iter().any(|&n| n > 0), "events happened");
}

#[test]
fn paired_counts_equal_plain_counts_in_every_system() {
    let risk = |r| toml::Value::Integer(r);
    let ambush = [0, -3].map(|r| {
        variant(
            "scenarios/gurps/ambush_at_the_ford.toml",
            "heroes.Titus.risk",
            risk(r),
        )
    });
    let gurps: Vec<_> = ambush
        .iter()
        .map(|s| match &s.battle {
            Battle::Gurps(g) => g.as_ref(),
            _ => unreachable!(),
        })
        .collect();
    check(gurps, &|g, t| g.metrics(t), 300);

    let policy = |p: &str| toml::Value::String(p.into());
    let field = ["engaged", "rear"].map(|p| {
        variant(
            "scenarios/seventh_sea/even_field_battle.toml",
            "heroes.Isabeau.policy",
            policy(p),
        )
    });
    let sea: Vec<_> = field
        .iter()
        .map(|s| match &s.battle {
            Battle::SeventhSea(g) => g.as_ref(),
            _ => unreachable!(),
        })
        .collect();
    check(sea, &|g, t| g.metrics(t), 300);

    let clash = [0.0, 0.5].map(|r| {
        variant(
            "scenarios/war_cards/knights_vs_pikes.toml",
            "engagement.rally_chance",
            toml::Value::Float(r),
        )
    });
    let cards: Vec<_> = clash
        .iter()
        .map(|s| match &s.battle {
            Battle::WarCards(w) => w.as_ref(),
            _ => unreachable!(),
        })
        .collect();
    check(cards, &|w, t| w.metrics(t), 1000);
}

//! Exact engagement odds for `draw = "die"`: each attack's result has a
//! fixed distribution, so an engagement is a Markov chain on the damage of
//! both units, stepped once per volley and once per melee exchange.

use anyhow::{Result, bail};

use super::deck::CardResult;
use super::rules::{
    ATTACKER, DEFENDER, Draw, End, EngagementOutcome, EngagementRules, Fate, Winner,
    resolve_exchange, settle,
};
use super::tally::WarTally;

/// The largest chain (states × steps) computed exactly.
pub const EXACT_LIMIT: u64 = 50_000_000;

/// The exact distribution of every engagement metric.
pub fn exact_distribution(
    rules: &EngagementRules,
    names: [&str; 2],
    rally_chance: f64,
) -> Result<WarTally<f64>> {
    if rules.draw == Draw::Deck {
        bail!(
            "exact odds need draw = \"die\": with a physical deck each card depends on the cards already drawn; run without --exact"
        );
    }
    let max = [
        rules.units[ATTACKER].max_damage,
        rules.units[DEFENDER].max_damage,
    ];
    let width = max[DEFENDER] as usize + 1;
    let states = (max[ATTACKER] as u64 + 1) * width as u64;
    let steps = rules.missile_volleys as u64 + rules.max_exchanges as u64;
    if states * steps > EXACT_LIMIT {
        bail!(
            "this engagement is too large for the exact calculation ({states} damage states × {steps} steps > {EXACT_LIMIT}); use Monte Carlo alone"
        );
    }
    let miss_only = [1.0, 0.0, 0.0, 0.0, 0.0];
    let melee = [
        result_probabilities(&rules.melee[ATTACKER]),
        result_probabilities(&rules.melee[DEFENDER]),
    ];
    let missile = [
        rules.missile[ATTACKER]
            .as_deref()
            .map_or(miss_only, result_probabilities),
        rules.missile[DEFENDER]
            .as_deref()
            .map_or(miss_only, result_probabilities),
    ];
    let mut tally = WarTally::new(names, rules.max_exchanges, rules.missile_volleys, max);
    let mut mass = vec![0.0f64; states as usize];
    mass[0] = 1.0;
    let phases = (1..=rules.missile_volleys)
        .map(|v| (missile, 0, v))
        .chain((1..=rules.max_exchanges).map(|e| (melee, e, rules.missile_volleys)));
    for (probabilities, exchanges, volleys) in phases {
        let mut next = vec![0.0f64; mass.len()];
        for (state, &m) in mass.iter().enumerate() {
            if m == 0.0 {
                continue;
            }
            let damage = [(state / width) as u32, (state % width) as u32];
            for (ra, &pa) in probabilities[ATTACKER].iter().enumerate() {
                for (rd, &pd) in probabilities[DEFENDER].iter().enumerate() {
                    let p = m * pa * pd;
                    if p == 0.0 {
                        continue;
                    }
                    let attacks = [CardResult::ALL[ra], CardResult::ALL[rd]];
                    let (new_damage, fate) = resolve_exchange(rules.units, damage, attacks);
                    for (fate, q) in rally_branches(fate, rally_chance) {
                        match settle(fate) {
                            None => {
                                next[new_damage[ATTACKER] as usize * width
                                    + new_damage[DEFENDER] as usize] += p * q;
                            }
                            Some((winner, end)) => tally.add(
                                &EngagementOutcome {
                                    winner,
                                    end,
                                    exchanges,
                                    volleys,
                                    damage: new_damage,
                                    fate,
                                },
                                p * q,
                            ),
                        }
                    }
                }
            }
        }
        mass = next;
    }
    for (state, &m) in mass.iter().enumerate() {
        if m > 0.0 {
            tally.add(
                &EngagementOutcome {
                    winner: Winner::None,
                    end: End::MaxExchanges,
                    exchanges: rules.max_exchanges,
                    volleys: rules.missile_volleys,
                    damage: [(state / width) as u32, (state % width) as u32],
                    fate: [Fate::Holds; 2],
                },
                m,
            );
        }
    }
    Ok(tally)
}

/// Probability of each result when a card is picked uniformly.
pub fn result_probabilities(results: &[CardResult]) -> [f64; 5] {
    let mut p = [0.0; 5];
    for r in results {
        p[r.index()] += 1.0;
    }
    p.map(|count| count / results.len() as f64)
}

/// Every way the routed units' rally rolls can fall, with its probability.
fn rally_branches(fate: [Fate; 2], rally_chance: f64) -> Vec<([Fate; 2], f64)> {
    let mut branches = vec![(fate, 1.0)];
    if rally_chance <= 0.0 {
        return branches;
    }
    for side in [ATTACKER, DEFENDER] {
        if fate[side] != Fate::Routed {
            continue;
        }
        branches = branches
            .into_iter()
            .flat_map(|(f, q)| {
                let mut rallied = f;
                rallied[side] = Fate::Holds;
                [(rallied, q * rally_chance), (f, q * (1.0 - rally_chance))]
            })
            .collect();
    }
    branches
}

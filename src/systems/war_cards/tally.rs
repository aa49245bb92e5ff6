//! Counts of engagement outcomes, as integer counts or exact probabilities.

use super::rules::{ATTACKER, DEFENDER, End, EngagementOutcome, Fate, Winner};
use crate::engine::Tally;
use crate::stats::{Metric, MetricRole, Weight};

/// Histograms of every war-cards metric. `W` is `u64` for Monte Carlo
/// counts and `f64` for exact probabilities.
#[derive(Debug, Clone, PartialEq)]
pub struct WarTally<W> {
    winner: [W; 3],
    end: [W; 5],
    exchanges: Vec<W>,
    volleys: Vec<W>,
    damage: [Vec<W>; 2],
    fate: [[W; 4]; 2],
}

impl<W: Weight> WarTally<W> {
    /// An empty tally sized for the given caps: every bin exists up front.
    pub fn new(max_exchanges: u32, missile_volleys: u32, max_damage: [u32; 2]) -> Self {
        let bins = |n: u32| vec![W::default(); n as usize + 1];
        WarTally {
            winner: [W::default(); 3],
            end: [W::default(); 5],
            exchanges: bins(max_exchanges),
            volleys: bins(missile_volleys),
            // Damage runs to max + 1: the hit that destroys.
            damage: [bins(max_damage[0] + 1), bins(max_damage[1] + 1)],
            fate: [[W::default(); 4]; 2],
        }
    }

    /// Adds one outcome with a weight.
    #[inline]
    pub fn add(&mut self, o: &EngagementOutcome, weight: W) {
        self.winner[winner_index(o.winner)] += weight;
        self.end[end_index(o.end)] += weight;
        self.exchanges[o.exchanges as usize] += weight;
        self.volleys[o.volleys as usize] += weight;
        for side in [ATTACKER, DEFENDER] {
            self.damage[side][o.damage[side] as usize] += weight;
            self.fate[side][fate_index(o.fate[side])] += weight;
        }
    }

    /// The metrics, named for reports. `names` are the units' names; the
    /// volleys metric appears only when volleys were part of the engagement.
    pub fn metrics(&self, names: [&str; 2]) -> Vec<Metric<W>> {
        let mut metrics = vec![
            Metric::categorical("battle", "winner", &Winner::LABELS, &self.winner).with_role(
                MetricRole::Winner {
                    units: names.map(str::to_owned),
                },
            ),
            Metric::categorical("battle", "end", &End::LABELS, &self.end)
                .with_role(MetricRole::Outcome),
            Metric::integers("battle", "exchanges", 0, &self.exchanges),
        ];
        if self.volleys.len() > 1 {
            metrics.push(Metric::integers("battle", "volleys", 0, &self.volleys));
        }
        for side in [ATTACKER, DEFENDER] {
            let subject = format!("unit:{}", names[side]);
            metrics.push(Metric::integers(&subject, "damage", 0, &self.damage[side]));
            metrics.push(Metric::categorical(
                &subject,
                "fate",
                &Fate::LABELS,
                &self.fate[side],
            ));
        }
        metrics
    }
}

impl Tally<EngagementOutcome> for WarTally<u64> {
    #[inline]
    fn record_weighted(&mut self, outcome: &EngagementOutcome, weight: u64) {
        self.add(outcome, weight);
    }

    #[inline]
    fn for_each_slice(&mut self, mut visit: impl FnMut(&mut [u64])) {
        visit(&mut self.winner);
        visit(&mut self.end);
        visit(&mut self.exchanges);
        visit(&mut self.volleys);
        for side in &mut self.damage {
            visit(side);
        }
        for side in &mut self.fate {
            visit(side);
        }
    }
}

fn winner_index(w: Winner) -> usize {
    match w {
        Winner::Attacker => 0,
        Winner::Defender => 1,
        Winner::None => 2,
    }
}

fn end_index(e: End) -> usize {
    match e {
        End::Destroyed => 0,
        End::Routed => 1,
        End::Retreated => 2,
        End::BothOut => 3,
        End::MaxExchanges => 4,
    }
}

fn fate_index(f: Fate) -> usize {
    match f {
        Fate::Holds => 0,
        Fate::Retreated => 1,
        Fate::Routed => 2,
        Fate::Destroyed => 3,
    }
}

//! Counts of engagement outcomes, as integer counts or exact probabilities.

use super::rules::{ATTACKER, DEFENDER, End, EngagementOutcome, Fate, Winner};
use crate::engine::Tally;
use crate::engine::histograms::{Hist, Histograms};
use crate::stats::MetricRole::{self, Detail};
use crate::stats::{Metric, Weight};

/// Histograms of every war-cards metric, each declared once in
/// [`WarTally::new`]. `W` is `u64` for Monte Carlo counts and `f64` for
/// exact probabilities.
#[derive(Debug, Clone, PartialEq)]
pub struct WarTally<W> {
    hists: Histograms<W>,
    winner: Hist,
    end: Hist,
    exchanges: Hist,
    volleys: Hist,
    damage: [Hist; 2],
    fate: [Hist; 2],
}

impl<W: Weight> WarTally<W> {
    /// An empty tally of units `names` (attacker first) sized for the
    /// caps: every bin exists up front. The volleys metric is listed only
    /// when volleys are part of the engagement.
    pub fn new(
        names: [&str; 2],
        max_exchanges: u32,
        missile_volleys: u32,
        max_damage: [u32; 2],
    ) -> Self {
        let mut h = Histograms::default();
        let winner = h.categorical(
            "battle",
            "winner",
            &Winner::LABELS,
            MetricRole::Winner {
                units: names.map(str::to_owned),
            },
        );
        let end = h.categorical("battle", "end", &End::LABELS, MetricRole::Outcome);
        let exchanges = h.integers("battle", "exchanges", 0, bins(max_exchanges), Detail);
        let volleys = if missile_volleys > 0 {
            h.integers("battle", "volleys", 0, bins(missile_volleys), Detail)
        } else {
            h.unlisted(1)
        };
        let mut damage = [winner; 2];
        let mut fate = [winner; 2];
        for side in [ATTACKER, DEFENDER] {
            let subject = format!("unit:{}", names[side]);
            // Damage runs to max + 1: the hit that destroys.
            damage[side] = h.integers(&subject, "damage", 0, bins(max_damage[side] + 1), Detail);
            fate[side] = h.categorical(&subject, "fate", &Fate::LABELS, Detail);
        }
        WarTally {
            hists: h,
            winner,
            end,
            exchanges,
            volleys,
            damage,
            fate,
        }
    }

    /// Adds one outcome with a weight.
    #[inline]
    pub fn add(&mut self, o: &EngagementOutcome, weight: W) {
        let h = &mut self.hists;
        h.add(self.winner, winner_index(o.winner), weight);
        h.add(self.end, end_index(o.end), weight);
        h.add(self.exchanges, o.exchanges as usize, weight);
        h.add(self.volleys, o.volleys as usize, weight);
        for side in [ATTACKER, DEFENDER] {
            h.add(self.damage[side], o.damage[side] as usize, weight);
            h.add(self.fate[side], fate_index(o.fate[side]), weight);
        }
    }

    /// The metrics, in report order.
    pub fn metrics(&self) -> Vec<Metric<W>> {
        self.hists.metrics()
    }
}

/// Bins for the values 0 to `max`.
fn bins(max: u32) -> usize {
    max as usize + 1
}

impl Tally<EngagementOutcome> for WarTally<u64> {
    #[inline]
    fn record_weighted(&mut self, outcome: &EngagementOutcome, weight: u64) {
        self.add(outcome, weight);
    }

    #[inline]
    fn for_each_slice(&mut self, mut visit: impl FnMut(&mut [u64])) {
        visit(self.hists.counts_mut());
    }

    fn counted_once_each(&self) -> bool {
        self.hists.counted_once_each()
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

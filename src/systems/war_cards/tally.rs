//! Counts of engagement outcomes, as integer counts or exact probabilities.

use super::rules::{ATTACKER, DEFENDER, End, EngagementOutcome, Fate, Winner};
use super::table::Ending;
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
        self.add_final(o, weight);
        self.add_exchanges(o.exchanges, weight);
        self.add_volleys(o.volleys, weight);
    }

    /// Adds a weight to the counts of how an engagement ended: who won,
    /// why, each unit's damage and fate (every count but the exchanges and
    /// volleys).
    #[inline]
    pub fn add_final(&mut self, o: &EngagementOutcome, weight: W) {
        let h = &mut self.hists;
        h.add(self.winner, winner_index(o.winner), weight);
        h.add(self.end, end_index(o.end), weight);
        for side in [ATTACKER, DEFENDER] {
            h.add(self.damage[side], o.damage[side] as usize, weight);
            h.add(self.fate[side], fate_index(o.fate[side]), weight);
        }
    }

    /// Adds a weight to the count of engagements of `exchanges` melee exchanges.
    #[inline]
    pub fn add_exchanges(&mut self, exchanges: u32, weight: W) {
        self.hists.add(self.exchanges, exchanges as usize, weight);
    }

    /// Adds a weight to the count of engagements of `volleys` missile volleys.
    #[inline]
    pub fn add_volleys(&mut self, volleys: u32, weight: W) {
        self.hists.add(self.volleys, volleys as usize, weight);
    }

    /// The metrics, in report order.
    pub fn metrics(&self) -> Vec<Metric<W>> {
        self.hists.metrics()
    }
}

/// A chunk's engagements fought by the table, counted by how each ended
/// ([`Ending`]): three counts a battle where its outcome has eight, added
/// into a [`WarTally`] once, at the chunk's end.
#[derive(Debug)]
pub struct EndingCounts {
    /// By final outcome's number.
    finals: Vec<u64>,
    /// By melee exchanges fought.
    exchanges: Vec<u64>,
    /// By missile volleys fired.
    volleys: Vec<u64>,
}

impl EndingCounts {
    /// Empty counts for `finals` final outcomes, up to `max_exchanges`
    /// exchanges and `max_volleys` volleys.
    pub fn new(finals: usize, max_exchanges: u32, max_volleys: u32) -> Self {
        EndingCounts {
            finals: vec![0; finals],
            exchanges: vec![0; bins(max_exchanges)],
            volleys: vec![0; bins(max_volleys)],
        }
    }

    /// Counts one engagement.
    #[inline(always)]
    pub fn count(&mut self, ending: Ending) {
        self.finals[ending.last as usize] += 1;
        self.exchanges[ending.exchanges as usize] += 1;
        self.volleys[ending.volleys as usize] += 1;
    }

    /// Adds the counts into `tally`, `finals` naming each final outcome.
    pub fn add_into(&self, tally: &mut WarTally<u64>, finals: &[EngagementOutcome]) {
        for (outcome, &count) in finals.iter().zip(&self.finals) {
            if count > 0 {
                tally.add_final(outcome, count);
            }
        }
        for (exchanges, &count) in (0..).zip(&self.exchanges) {
            if count > 0 {
                tally.add_exchanges(exchanges, count);
            }
        }
        for (volleys, &count) in (0..).zip(&self.volleys) {
            if count > 0 {
                tally.add_volleys(volleys, count);
            }
        }
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

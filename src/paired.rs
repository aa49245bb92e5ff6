//! Variants of a battle on common random numbers, battle by battle.
//!
//! Battle *i* of every variant fights on the same stream: the chunk's
//! stream gives battle *i* a seed and each variant fights on its own copy
//! of the generator seeded with it. A one-step change then moves only the
//! battles it really changes, and a difference between two variants is
//! measured on the pairs ([`crate::stats::paired_difference`]) instead of
//! between two independent samples.
//!
//! Counting the pairs needs, for each battle, the bins each variant fell
//! in. Rather than ask every system for that, battles are counted in
//! blocks of 64 into the system's own tally with battle *j* of a block
//! weighing `1 << j`: every metric puts each battle in exactly one bin, so
//! a bin's weight is the set of the block's battles in it (a bit mask).
//! At the end of a block, a bin's count is the mask's population count, and
//! the battles in which the base variant and another both had an event are
//! the population count of the two masks' intersection.

use rand::{Rng, SeedableRng};

use crate::engine::{BattleRng, System, Tally};

use crate::stats::Metric;

/// Battles counted per block: the bits of a `u64` weight.
const BLOCK: u32 = u64::BITS;

/// Reads a system's metrics off one of its tallies.
pub type MetricsOf<'a, S> = dyn Fn(&S, &<S as System>::Tally) -> Vec<Metric<u64>> + Sync + 'a;

/// An event: some bins of one metric (`state` = `down` or `dead`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Index of the metric in the variant's metrics.
    pub metric: usize,
    /// Its bins that make the event.
    pub bins: Vec<usize>,
}

/// Every variant fought on the same battle streams: a [`System`] whose
/// outcome is every variant's outcome of one battle.
pub struct Lockstep<'a, S: System> {
    variants: Vec<&'a S>,
    metrics: &'a MetricsOf<'a, S>,
    /// Per variant, the events whose pairs with the base are counted.
    events: Vec<Vec<Event>>,
}

impl<'a, S: System> Lockstep<'a, S> {
    /// Variants of one battle (the first is the base every other is paired
    /// with); `events[v]` are variant `v`'s events, the same number for each.
    pub fn new(
        variants: Vec<&'a S>,
        metrics: &'a MetricsOf<'a, S>,
        events: Vec<Vec<Event>>,
    ) -> Self {
        assert_eq!(variants.len(), events.len(), "events for every variant");
        assert!(
            events.iter().all(|e| e.len() == events[0].len()),
            "the same events for every variant"
        );
        Lockstep {
            variants,
            metrics,
            events,
        }
    }
}

impl<'a, S: System> System for Lockstep<'a, S>
where
    S::Tally: Clone,
{
    type Outcome = Vec<S::Outcome>;
    type Tally = PairedTally<'a, S>;

    fn new_tally(&self) -> PairedTally<'a, S> {
        // Reborrow for 'a: the tally reads the variants and the metric reader.
        let variants = self.variants.clone();
        let metrics = self.metrics;
        PairedTally {
            counts: variants
                .iter()
                .map(|v| {
                    metrics(v, &v.new_tally())
                        .into_iter()
                        .map(|m| vec![0; m.weights.len()])
                        .collect()
                })
                .collect(),
            block: variants.iter().map(|v| v.new_tally()).collect(),
            empty: variants.iter().map(|v| v.new_tally()).collect(),
            filled: 0,
            both: vec![vec![0; self.events[0].len()]; variants.len()],
            events: self.events.clone(),
            variants,
            metrics,
        }
    }

    fn simulate<R: Rng + Clone>(&self, rng: &mut R) -> Vec<S::Outcome> {
        let battle = BattleRng::seed_from_u64(rng.next_u64());
        self.variants
            .iter()
            .map(|v| v.simulate(&mut battle.clone()))
            .collect()
    }

    /// [`Lockstep::simulate`] battle by battle, each variant's outcome
    /// counted where it is made (no list of outcomes per battle).
    fn fight_into(&self, rng: &mut BattleRng, len: u64, tally: &mut PairedTally<'a, S>) {
        for _ in 0..len {
            let battle = BattleRng::seed_from_u64(rng.next_u64());
            if tally.filled == BLOCK {
                tally.flush();
            }
            let weight = 1 << tally.filled;
            for (variant, block) in self.variants.iter().zip(tally.block.iter_mut()) {
                let outcome = variant.simulate(&mut battle.clone());
                block.record_weighted(&outcome, weight);
            }
            tally.filled += 1;
        }
    }
}

/// Counts of every variant's metrics, and per event the battles in which
/// both the base and the variant had it.
pub struct PairedTally<'a, S: System> {
    variants: Vec<&'a S>,
    metrics: &'a MetricsOf<'a, S>,
    events: Vec<Vec<Event>>,
    /// The current block, one bit-weighted tally per variant.
    block: Vec<S::Tally>,
    /// An empty tally per variant, copied over a block once it is counted
    /// (reusing its memory).
    empty: Vec<S::Tally>,
    /// Battles in the current block.
    filled: u32,
    /// Per variant, metric and bin: battles.
    counts: Vec<Vec<Vec<u64>>>,
    /// Per variant and event: battles in which the base had it too.
    both: Vec<Vec<u64>>,
}

impl<S: System> PairedTally<'_, S>
where
    S::Tally: Clone,
{
    /// Counts the current block and starts an empty one.
    fn flush(&mut self) {
        if self.filled == 0 {
            return;
        }
        let mut base_masks = Vec::new();
        for (v, variant) in self.variants.iter().enumerate() {
            let metrics = (self.metrics)(variant, &self.block[v]);
            for (count, metric) in self.counts[v].iter_mut().zip(&metrics) {
                for (c, mask) in count.iter_mut().zip(&metric.weights) {
                    *c += u64::from(mask.count_ones());
                }
            }
            let masks: Vec<u64> = self.events[v]
                .iter()
                .map(|e| {
                    e.bins
                        .iter()
                        .fold(0, |mask, &b| mask | metrics[e.metric].weights[b])
                })
                .collect();
            if v == 0 {
                base_masks = masks.clone();
            }
            for ((both, base), mask) in self.both[v].iter_mut().zip(&base_masks).zip(&masks) {
                *both += u64::from((base & mask).count_ones());
            }
            self.block[v].clone_from(&self.empty[v]);
        }
        self.filled = 0;
    }

    /// Battles of variant `v` with `event` so far. Exact at the engine's
    /// checkpoints, where every block has been counted by a merge.
    pub fn count(&self, v: usize, event: &Event) -> u64 {
        debug_assert_eq!(self.filled, 0, "read only after a merge");
        event
            .bins
            .iter()
            .map(|&b| self.counts[v][event.metric][b])
            .sum()
    }

    /// Every variant's metrics (counts of battles) and, per variant and
    /// event, the battles in which the base had the event too.
    pub fn finish(mut self) -> (Vec<Vec<Metric<u64>>>, Vec<Vec<u64>>) {
        self.flush();
        let metrics = self
            .variants
            .iter()
            .zip(&self.counts)
            .map(|(variant, counts)| {
                let mut metrics = (self.metrics)(variant, &variant.new_tally());
                for (metric, count) in metrics.iter_mut().zip(counts) {
                    metric.weights.clone_from(count);
                }
                metrics
            })
            .collect();
        (metrics, self.both)
    }
}

impl<S: System> Tally<Vec<S::Outcome>> for PairedTally<'_, S>
where
    S::Tally: Clone,
{
    fn record(&mut self, outcomes: &Vec<S::Outcome>) {
        if self.filled == BLOCK {
            self.flush();
        }
        let weight = 1 << self.filled;
        for (tally, outcome) in self.block.iter_mut().zip(outcomes) {
            tally.record_weighted(outcome, weight);
        }
        self.filled += 1;
    }

    fn record_weighted(&mut self, outcomes: &Vec<S::Outcome>, weight: u64) {
        for _ in 0..weight {
            self.record(outcomes);
        }
    }

    fn merge(&mut self, mut other: Self) {
        self.flush();
        other.flush();
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                crate::stats::add_all(a, b);
            }
        }
        for (a, b) in self.both.iter_mut().zip(&other.both) {
            crate::stats::add_all(a, b);
        }
    }
}

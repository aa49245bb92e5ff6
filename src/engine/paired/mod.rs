//! Variants of a battle on common random numbers, battle by battle.
//!
//! Battle *n* of every variant fights on the same numbers: the battle's
//! window ([`crate::engine::stream`]), as in a plain run, so the base variant's
//! counts are the plain run's. A one-step change then moves only the
//! battles it really changes, and a difference between two variants is measured on the pairs
//! ([`crate::stats::paired_difference`]) instead of between two independent
//! samples.
//!
//! Counting the pairs needs, for each battle, the bins each variant fell
//! in. Rather than ask every system for that, battles are counted in
//! blocks of 64 into the system's own tally with battle *j* of a block
//! weighing `1 << j`: a battle adds to any one count at most once, so a
//! count's weight is the set of the block's battles that reached it (a bit
//! mask). At the end of a block, a count is its mask's
//! population count, and the battles in which the base variant and another
//! both had an event are the population count of the two masks'
//! intersection. Each metric bin is a sum of some of the tally's counts
//! (the victory of a side is a winner count; "anyone down" adds the counts
//! of one or more down): which ones is found once per variant, by probing
//! the metrics with counts set to distinct bits ([`Layout`]).

use std::sync::Arc;

use rand::{Rng, SeedableRng};

mod joint;

use joint::{JointCounts, PartsReading, parts_readings};

use crate::engine::stream::BattleStream;
use crate::engine::{Chunk, System, Tally};
use crate::stats::Metric;
use crate::stats::paired_mean::PairedSums;

/// Battles counted per block: the bits of a `u64` weight.
const BLOCK: u32 = u64::BITS;

/// Counts a block's flush tests for emptiness at once, first in wide
/// groups (most of a 7th Sea tally is empty), then in narrow ones.
const WIDE: usize = 32;
/// See [`WIDE`].
const NARROW: usize = 8;

/// Tallies of random counts that check a variant shares another's layout.
const CHECKS: usize = 3;

/// Counts probed at once: bits of a weight that a sum of counts cannot
/// carry past unnoticed.
const PROBE: usize = 32;

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

/// Counts in `system`'s tally.
fn counts_of<S: System>(system: &S) -> usize {
    let mut counts = 0;
    system.new_tally().for_each_slice(|s| counts += s.len());
    counts
}

/// A tally of `system` whose count `k` (in [`Tally::for_each_slice`] order)
/// is `value(k)`.
fn filled<S: System>(system: &S, mut value: impl FnMut(usize) -> u64) -> S::Tally {
    let mut tally = system.new_tally();
    let mut k = 0;
    tally.for_each_slice(|slice| {
        for c in slice {
            *c = value(k);
            k += 1;
        }
    });
    tally
}

/// How one variant's metrics read off its tally's counts.
#[derive(Debug, Clone)]
struct Layout {
    /// The metrics, every weight zero.
    metrics: Vec<Metric<u64>>,
    /// Per metric and bin, the counts (in [`Tally::for_each_slice`] order) it adds up.
    sources: Vec<Vec<Vec<u32>>>,
    /// Counts in the tally.
    counts: usize,
}

impl Layout {
    /// Finds the layout by setting `PROBE` counts at a time to distinct bits.
    fn probe<S: System>(system: &S, metrics: &MetricsOf<'_, S>) -> Layout {
        let counts = counts_of(system);
        let zero = metrics(system, &system.new_tally());
        let mut sources: Vec<Vec<Vec<u32>>> = zero
            .iter()
            .map(|m| vec![Vec::new(); m.weights.len()])
            .collect();
        for start in (0..counts).step_by(PROBE) {
            let tally = filled(system, |k| {
                if (start..start + PROBE).contains(&k) {
                    1 << (k - start)
                } else {
                    0
                }
            });
            for (m, metric) in metrics(system, &tally).iter().enumerate() {
                for (b, &w) in metric.weights.iter().enumerate() {
                    assert!(
                        w >> PROBE == 0,
                        "{}/{} is not a sum of the tally's counts",
                        metric.subject,
                        metric.name
                    );
                    // The set bits, lowest first (most bins have none).
                    let mut bits = w;
                    while bits != 0 {
                        sources[m][b].push((start + bits.trailing_zeros() as usize) as u32);
                        bits &= bits - 1;
                    }
                }
            }
        }
        Layout {
            metrics: zero,
            sources,
            counts,
        }
    }

    /// Whether `system`'s metrics read its tally as this layout says: the
    /// same counts and metric shapes, and the same sums on [`CHECKS`]
    /// tallies of random counts (a bin that summed other counts would
    /// match one by chance with probability at most 2^-20 each). One
    /// reading of the metrics per check, where [`Layout::probe`] takes one
    /// per 32 counts: the variants of a sweep mostly share their layout.
    fn reads<S: System>(
        &self,
        system: &S,
        metrics: &MetricsOf<'_, S>,
        zero: &[Metric<u64>],
    ) -> bool {
        let counts = counts_of(system);
        let shape = |m: &[Metric<u64>]| -> Vec<(String, String, usize)> {
            m.iter()
                .map(|m| (m.subject.clone(), m.name.clone(), m.weights.len()))
                .collect()
        };
        if counts != self.counts || shape(zero) != shape(&self.metrics) {
            return false;
        }
        let mut random = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0x5eed);
        for _ in 0..CHECKS {
            let values: Vec<u64> = (0..counts).map(|_| random.next_u64() >> 44).collect();
            let read = metrics(system, &filled(system, |k| values[k]));
            for (metric, sources) in read.iter().zip(&self.sources) {
                for (&w, bins) in metric.weights.iter().zip(sources) {
                    if w != bins.iter().map(|&k| values[k as usize]).sum::<u64>() {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// The counts an event adds up.
    fn sources_of(&self, event: &Event) -> Vec<u32> {
        event
            .bins
            .iter()
            .flat_map(|&b| self.sources[event.metric][b].iter().copied())
            .collect()
    }
}

/// How a lockstep run reads one variant's tally: its layout, and the
/// counts each of its events and paired means adds up. Variants whose
/// tallies read alike share one (a sweep's variants mostly do), so the
/// run holds each variant's counts and little more.
#[derive(Debug)]
struct Reading {
    layout: Layout,
    /// The events it was made for, and the numeric metrics paired.
    asked: (Vec<Event>, Vec<usize>),
    /// Per event, the counts it adds up.
    events: Vec<Vec<u32>>,
    /// The other way round: the events count `k` feeds are
    /// `feeds.1[feeds.0[k]..feeds.0[k + 1]]`.
    feeds: (Vec<u32>, Vec<u32>),
    /// The numeric outcomes whose means are paired.
    means: MeanFeeds,
}

impl Reading {
    fn new(layout: Layout, events: Vec<Event>, means: Vec<usize>) -> Reading {
        let sources: Vec<Vec<u32>> = events.iter().map(|e| layout.sources_of(e)).collect();
        Reading {
            feeds: feeds(layout.counts, &sources),
            means: MeanFeeds::new(&layout, &means),
            events: sources,
            asked: (events, means),
            layout,
        }
    }
}

/// Readings of the last few distinct layouts a new variant is checked
/// against before its own is probed.
const RECENT: usize = 16;

/// Each variant's [`Reading`], shared among those that read alike.
fn readings<S: System>(
    variants: &[&S],
    metrics: &MetricsOf<'_, S>,
    events: Vec<Vec<Event>>,
    means: Vec<Vec<usize>>,
) -> Vec<Arc<Reading>> {
    let mut recent: Vec<Arc<Reading>> = Vec::new();
    let mut out = Vec::with_capacity(variants.len());
    for ((system, events), means) in variants.iter().zip(events).zip(means) {
        let zero = metrics(*system, &system.new_tally());
        let asked = (events, means);
        let same = recent.iter().rev().find(|r| {
            r.layout.metrics == zero && r.asked == asked && r.layout.reads(*system, metrics, &zero)
        });
        let reading = match same {
            Some(r) => Arc::clone(r),
            None => {
                // The same sums under other labels keep the sources found.
                let alike = recent
                    .iter()
                    .rev()
                    .find(|r| r.layout.reads(*system, metrics, &zero));
                let layout = match alike {
                    Some(r) => Layout {
                        metrics: zero,
                        ..r.layout.clone()
                    },
                    None => Layout::probe(*system, metrics),
                };
                let r = Arc::new(Reading::new(layout, asked.0, asked.1));
                if recent.len() == RECENT {
                    recent.remove(0);
                }
                recent.push(Arc::clone(&r));
                r
            }
        };
        out.push(reading);
    }
    out
}

/// Where a variant's paired numeric outcomes read a battle's value: count
/// `k` says outcome `entries[starts[k]..starts[k + 1]].0` took value `.1`.
#[derive(Debug, Default)]
struct MeanFeeds {
    /// Outcomes.
    outcomes: usize,
    starts: Vec<u32>,
    entries: Vec<(u32, i64)>,
}

impl MeanFeeds {
    /// The feeds of the numeric metrics `means` (indices into the layout's
    /// metrics): each bin's counts give its value.
    fn new(layout: &Layout, means: &[usize]) -> MeanFeeds {
        let mut per_count: Vec<Vec<(u32, i64)>> = vec![Vec::new(); layout.counts];
        for (t, &m) in means.iter().enumerate() {
            let metric = &layout.metrics[m];
            let crate::stats::Values::Integers { first } = metric.values else {
                panic!(
                    "{}/{} has no mean: it is not a number",
                    metric.subject, metric.name
                );
            };
            for (b, sources) in layout.sources[m].iter().enumerate() {
                for &k in sources {
                    per_count[k as usize].push((t as u32, first + b as i64));
                }
            }
        }
        let mut starts = vec![0];
        let mut entries = Vec::new();
        for list in per_count {
            entries.extend(list);
            starts.push(entries.len() as u32);
        }
        MeanFeeds {
            outcomes: means.len(),
            starts,
            entries,
        }
    }

    /// The paired outcomes count `k` feeds, each with its value there.
    fn values_of(&self, k: usize) -> impl Iterator<Item = (u32, i64)> + '_ {
        self.entries[self.starts[k] as usize..self.starts[k + 1] as usize]
            .iter()
            .copied()
    }

    /// Each outcome's values in a block, each with the mask of the block's
    /// battles that took it (`groups[t]`: a few per block, where a battle
    /// by battle list would hold 64).
    fn read(&self, found: Masks<'_>, groups: &mut [Vec<(i64, u64)>]) {
        groups.iter_mut().for_each(Vec::clear);
        let mut take = |k: usize, mask: u64| {
            for &(t, value) in &self.entries[self.starts[k] as usize..self.starts[k + 1] as usize] {
                groups[t as usize].push((value, mask));
            }
        };
        match found {
            Masks::Sparse(found) => {
                for &(k, mask) in found {
                    take(k as usize, mask);
                }
            }
            Masks::Dense(all) => {
                for (k, &mask) in all.iter().enumerate() {
                    if mask != 0 {
                        take(k, mask);
                    }
                }
            }
        }
    }
}

/// For each count, the events it feeds (the inverse of `events`), packed.
fn feeds(counts: usize, events: &[Vec<u32>]) -> (Vec<u32>, Vec<u32>) {
    let mut per_count = vec![Vec::new(); counts];
    for (e, sources) in events.iter().enumerate() {
        for &k in sources {
            per_count[k as usize].push(e as u32);
        }
    }
    let mut starts = vec![0];
    let mut ids = Vec::new();
    for list in per_count {
        ids.extend(list);
        starts.push(ids.len() as u32);
    }
    (starts, ids)
}

/// Moves the nonzero counts of `slice` (the tally's counts from index
/// `first` on) into `found`, leaving zeros: empty groups of counts are
/// skipped with one test each.
fn take_nonzero(slice: &mut [u64], first: usize, found: &mut Vec<(u32, u64)>) {
    fn any(group: &[u64]) -> bool {
        group.iter().fold(0, |any, &m| any | m) != 0
    }
    let mut take = |at: usize, counts: &mut [u64]| {
        for (j, c) in counts.iter_mut().enumerate() {
            if *c != 0 {
                found.push(((at + j) as u32, std::mem::take(c)));
            }
        }
    };
    let (wide, rest) = slice.as_chunks_mut::<WIDE>();
    for (g, group) in wide.iter_mut().enumerate() {
        if any(group) {
            for (n, narrow) in group.as_chunks_mut::<NARROW>().0.iter_mut().enumerate() {
                if any(narrow) {
                    take(first + g * WIDE + n * NARROW, narrow);
                }
            }
        }
    }
    let at = first + wide.len() * WIDE;
    let (narrow, rest) = rest.as_chunks_mut::<NARROW>();
    for (n, group) in narrow.iter_mut().enumerate() {
        if any(group) {
            take(at + n * NARROW, group);
        }
    }
    take(at + narrow.len() * NARROW, rest);
}

/// Tallies of at most this many counts are read whole at a flush (a copy
/// and a pass over every count); larger ones, such as 7th Sea's thousands
/// of mostly empty Reputation bins, skip their empty groups first.
const DENSE: usize = 256;

/// A block's counts as a flush reads them.
#[derive(Clone, Copy)]
enum Masks<'b> {
    /// The nonzero counts only (index, mask of the battles that reached it).
    Sparse(&'b [(u32, u64)]),
    /// Every count's mask, by index.
    Dense(&'b [u64]),
}

/// One variant's block of bit masks, read off its tally.
struct Block<'b> {
    /// The block's masks.
    found: Masks<'b>,
    /// The events each count feeds ([`Reading::feeds`]).
    feeds: &'b (Vec<u32>, Vec<u32>),
    /// The counts each event adds up ([`Reading::events`]).
    events: &'b [Vec<u32>],
    /// The variant's counts of battles.
    counts: &'b mut [u64],
    /// Out: per event, the mask of the block's battles that had it.
    masks: &'b mut [u64],
}

impl Block<'_> {
    /// Adds the block's battles to the counts, gathers each event's mask and,
    /// given the base's masks, adds the battles shared with it to `both`.
    /// Population counts use the CPU's instruction where it has one (the
    /// portable one takes a dozen).
    fn count(self, base: Option<&[u64]>, both: &mut [u64]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT, checked just above.
            unsafe { self.count_with_popcnt(base, both) };
            return;
        }
        self.count_portably(base, both);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn count_with_popcnt(self, base: Option<&[u64]>, both: &mut [u64]) {
        self.count_portably(base, both);
    }

    #[inline(always)]
    fn count_portably(self, base: Option<&[u64]>, both: &mut [u64]) {
        let (starts, ids) = self.feeds;
        /// Count `k`'s battles, and its mask into every event it feeds.
        #[inline(always)]
        fn add(block: &mut Block<'_>, starts: &[u32], ids: &[u32], k: usize, mask: u64) {
            block.counts[k] += u64::from(mask.count_ones());
            for &e in &ids[starts[k] as usize..starts[k + 1] as usize] {
                block.masks[e as usize] |= mask;
            }
        }
        let mut block = self;
        match block.found {
            Masks::Sparse(found) => {
                for &(k, mask) in found {
                    add(&mut block, starts, ids, k as usize, mask);
                }
            }
            Masks::Dense(all) => {
                for (count, &mask) in block.counts.iter_mut().zip(all) {
                    *count += u64::from(mask.count_ones());
                }
                for (event, sources) in block.masks.iter_mut().zip(block.events) {
                    *event = sources.iter().fold(0, |m, &k| m | all[k as usize]);
                }
            }
        }
        let Block { masks, .. } = block;
        let base: &[u64] = base.unwrap_or(masks);
        for ((both, base), mask) in both.iter_mut().zip(base).zip(masks.iter()) {
            *both += u64::from((base & mask).count_ones());
        }
    }
}

/// Adds a block's battle-by-battle differences of each paired outcome to
/// `sums`: the battles of each pair of values (the variant's `ours`, the
/// base's `theirs`) at once, one population count a pair rather than a
/// sum a battle; with the CPU's instruction where it has one.
fn pair_means(sums: &mut [PairedSums], ours: &[Vec<(i64, u64)>], theirs: &[Vec<(i64, u64)>]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT, checked just above.
        unsafe { pair_means_with_popcnt(sums, ours, theirs) };
        return;
    }
    pair_means_portably(sums, ours, theirs);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn pair_means_with_popcnt(
    sums: &mut [PairedSums],
    ours: &[Vec<(i64, u64)>],
    theirs: &[Vec<(i64, u64)>],
) {
    pair_means_portably(sums, ours, theirs);
}

#[inline(always)]
fn pair_means_portably(
    sums: &mut [PairedSums],
    ours: &[Vec<(i64, u64)>],
    theirs: &[Vec<(i64, u64)>],
) {
    for ((sums, ours), theirs) in sums.iter_mut().zip(ours).zip(theirs) {
        for &(value, mask) in ours {
            for &(base, base_mask) in theirs {
                let battles = u64::from((mask & base_mask).count_ones());
                if battles > 0 {
                    sums.add_many(i128::from(value) - i128::from(base), battles);
                }
            }
        }
    }
}

/// Every variant fought on the same battle streams: a [`System`] whose
/// outcome is every variant's outcome of one battle.
pub struct Lockstep<'a, S: System> {
    variants: Vec<&'a S>,
    shared: Arc<Shared<S::Tally>>,
}

/// What every tally of a lockstep run reads.
#[derive(Debug)]
struct Shared<T> {
    /// Per variant, how its tally is read.
    readings: Vec<Arc<Reading>>,
    /// Per variant, an empty tally: a worker's block is a clone of each
    /// (only a tally that fights holds a block; merged ones hold counts).
    blanks: Vec<T>,
    /// Per variant, how its parts read, where every variant's battles are
    /// counted by parts ([`joint`]) instead of in blocks.
    parts: Option<Vec<PartsReading>>,
}

impl<'a, S: System> Lockstep<'a, S> {
    /// Variants of one battle (the first is the base every other is paired
    /// with); `events[v]` are variant `v`'s events, and `means[v]` the
    /// numeric metrics whose battle-by-battle differences from the base
    /// are summed, the same number of each for every variant.
    pub fn new(
        variants: Vec<&'a S>,
        metrics: &MetricsOf<'_, S>,
        events: Vec<Vec<Event>>,
        means: Vec<Vec<usize>>,
    ) -> Self {
        assert_eq!(variants.len(), events.len(), "events for every variant");
        assert_eq!(variants.len(), means.len(), "means for every variant");
        assert!(
            events.iter().all(|e| e.len() == events[0].len())
                && means.iter().all(|m| m.len() == means[0].len()),
            "the same events and means for every variant"
        );
        let readings = readings(&variants, metrics, events, means);
        let blanks = variants.iter().map(|v| v.new_tally()).collect();
        let parts = parts_readings(&variants, &readings);
        Lockstep {
            variants,
            shared: Arc::new(Shared {
                readings,
                blanks,
                parts,
            }),
        }
    }
}

impl<'a, S: System> System for Lockstep<'a, S> {
    type Outcome = Vec<S::Outcome>;
    type Tally = PairedTally<'a, S>;

    fn battles_per_trial(&self) -> u64 {
        self.variants.len() as u64
    }

    fn new_tally(&self) -> PairedTally<'a, S> {
        let shared = Arc::clone(&self.shared);
        let events = shared.readings[0].events.len();
        let means = shared.readings[0].means.outcomes;
        let variants = self.variants.len();
        PairedTally {
            counts: (shared.readings.iter())
                .map(|r| vec![0; r.layout.counts])
                .collect(),
            both: vec![vec![0; events]; variants],
            block: Vec::new(),
            filled: 0,
            found: Vec::new(),
            dense: Vec::new(),
            masks: Vec::new(),
            base_events: vec![0; events],
            mean_sums: vec![vec![PairedSums::default(); means]; variants],
            groups: vec![Vec::new(); means],
            base_groups: vec![Vec::new(); means],
            joint: shared.parts.as_deref().map(JointCounts::new),
            variants: self.variants.clone(),
            shared,
        }
    }

    /// Every variant on the same battle stream (the engine fights through
    /// [`Lockstep::fight_into`] instead).
    fn simulate(&self, rng: &mut BattleStream) -> Vec<S::Outcome> {
        self.variants
            .iter()
            .map(|v| v.simulate(&mut rng.clone()))
            .collect()
    }

    /// [`Lockstep::simulate`]'s battles on the run's battle windows,
    /// counted where they are made (no list of outcomes per battle): each
    /// variant fights a block's battles in one tight loop, as a plain run
    /// does, battle *j* of the block weighing `1 << j`.
    fn fight_into(&self, chunk: Chunk, tally: &mut PairedTally<'a, S>) {
        if tally
            .joint
            .as_ref()
            .is_some_and(|j| j.full_after(chunk.len))
        {
            tally.flush();
        }
        if let Some(joint) = &mut tally.joint {
            joint.fight(&self.variants, chunk);
            return;
        }
        tally.open_block();
        let mut start = BattleStream::battle(chunk.seed, chunk.first);
        let mut left = chunk.len;
        while left > 0 {
            if tally.filled == BLOCK {
                tally.flush();
            }
            let first = tally.filled;
            let battles = (BLOCK - first).min(left.min(u64::from(BLOCK)) as u32);
            for (variant, block) in self.variants.iter().zip(tally.block.iter_mut()) {
                let mut battle = start.clone();
                for j in first..first + battles {
                    let outcome = variant.simulate(&mut battle.clone());
                    block.record_weighted(&outcome, 1 << j);
                    battle = battle.next_battle();
                }
            }
            for _ in 0..battles {
                start = start.next_battle();
            }
            tally.filled += battles;
            left -= u64::from(battles);
        }
    }
}

/// What a lockstep run counted ([`PairedTally::finish`]).
#[derive(Debug)]
pub struct Paired {
    /// Per variant, counts of every metric.
    pub metrics: Vec<Vec<Metric<u64>>>,
    /// Per variant and event: battles in which the base had it too.
    pub both: Vec<Vec<u64>>,
    /// Per variant and paired numeric outcome: its differences from the base.
    pub mean_sums: Vec<Vec<PairedSums>>,
}

/// Counts of every variant's metrics, and per event the battles in which
/// both the base and the variant had it.
pub struct PairedTally<'a, S: System> {
    variants: Vec<&'a S>,
    shared: Arc<Shared<S::Tally>>,
    /// The current block, one bit-weighted tally per variant (none until
    /// the tally fights).
    block: Vec<S::Tally>,
    /// Battles in the current block.
    filled: u32,
    /// Per variant and count of its tally: battles.
    counts: Vec<Vec<u64>>,
    /// Per variant and event: battles in which the base had it too.
    both: Vec<Vec<u64>>,
    /// A block's nonzero counts and their masks (reused).
    found: Vec<(u32, u64)>,
    /// A small tally's block, every count (reused).
    dense: Vec<u64>,
    /// A block's event masks (reused).
    masks: Vec<u64>,
    /// The base variant's event masks in the block (reused).
    base_events: Vec<u64>,
    /// Per variant and paired numeric outcome: the sums of its
    /// battle-by-battle differences from the base.
    mean_sums: Vec<Vec<PairedSums>>,
    /// A block's values of each paired outcome, each with the mask of the
    /// battles that took it: the variant's being read, and the base's
    /// (reused).
    groups: Vec<Vec<(i64, u64)>>,
    base_groups: Vec<Vec<(i64, u64)>>,
    /// The battles counted by parts since the last merge, where the
    /// variants are ([`joint`]).
    joint: Option<JointCounts>,
}

impl<S: System> Clone for PairedTally<'_, S> {
    fn clone(&self) -> Self {
        PairedTally {
            variants: self.variants.clone(),
            shared: Arc::clone(&self.shared),
            block: self.block.clone(),
            filled: self.filled,
            counts: self.counts.clone(),
            both: self.both.clone(),
            found: self.found.clone(),
            dense: self.dense.clone(),
            masks: self.masks.clone(),
            base_events: self.base_events.clone(),
            mean_sums: self.mean_sums.clone(),
            groups: self.groups.clone(),
            base_groups: self.base_groups.clone(),
            joint: self.joint.clone(),
        }
    }
}

impl<S: System> PairedTally<'_, S> {
    /// Gives the tally its block, the first time it fights.
    fn open_block(&mut self) {
        if self.block.is_empty() {
            self.block = self.shared.blanks.clone();
        }
    }

    /// Counts the current block and clears it; and the battles counted by
    /// parts.
    fn flush(&mut self) {
        if let (Some(parts), Some(joint)) = (&self.shared.parts, &mut self.joint) {
            joint.merge_into(parts, &mut self.counts, &mut self.both, &mut self.mean_sums);
        }
        if self.filled == 0 {
            return;
        }
        for v in 0..self.variants.len() {
            let reading = &*self.shared.readings[v];
            let found = if reading.layout.counts <= DENSE {
                let dense = &mut self.dense;
                dense.clear();
                self.block[v].for_each_slice(|slice| {
                    dense.extend(slice.iter_mut().map(std::mem::take));
                });
                Masks::Dense(dense)
            } else {
                // Most counts of a block are empty: only the others are read.
                let found = &mut self.found;
                found.clear();
                let mut first = 0;
                self.block[v].for_each_slice(|slice| {
                    take_nonzero(slice, first, found);
                    first += slice.len();
                });
                Masks::Sparse(found)
            };
            if reading.means.outcomes > 0 {
                let groups = if v == 0 {
                    &mut self.base_groups
                } else {
                    &mut self.groups
                };
                reading.means.read(found, groups);
                if v > 0 {
                    pair_means(&mut self.mean_sums[v], &self.groups, &self.base_groups);
                }
            }
            let masks = &mut self.masks;
            masks.clear();
            masks.resize(reading.events.len(), 0);
            let block = Block {
                found,
                feeds: &reading.feeds,
                events: &reading.events,
                counts: &mut self.counts[v],
                masks,
            };
            if v == 0 {
                block.count(None, &mut self.both[v]);
                self.base_events.copy_from_slice(masks);
            } else {
                block.count(Some(&self.base_events), &mut self.both[v]);
            }
        }
        self.filled = 0;
    }

    /// Battles of variant `v` with event `e` so far. Exact at the engine's
    /// checkpoints, where every block has been counted by a merge.
    pub fn event_count(&self, v: usize, e: usize) -> u64 {
        debug_assert_eq!(self.filled, 0, "read only after a merge");
        self.shared.readings[v].events[e]
            .iter()
            .map(|&k| self.counts[v][k as usize])
            .sum()
    }

    /// Every variant's metrics (counts of battles); per variant and
    /// event, the battles in which the base had the event too; and per
    /// variant and paired numeric outcome, the sums of its differences from
    /// the base (all zero for the base itself).
    pub fn finish(mut self) -> Paired {
        self.flush();
        let metrics = (self.shared.readings.iter())
            .zip(&self.counts)
            .map(|(reading, counts)| {
                let layout = &reading.layout;
                let mut metrics = layout.metrics.clone();
                for (metric, sources) in metrics.iter_mut().zip(&layout.sources) {
                    for (weight, bins) in metric.weights.iter_mut().zip(sources) {
                        *weight = bins.iter().map(|&k| counts[k as usize]).sum();
                    }
                }
                metrics
            })
            .collect();
        Paired {
            metrics,
            both: self.both,
            mean_sums: self.mean_sums,
        }
    }
}

impl<S: System> Tally<Vec<S::Outcome>> for PairedTally<'_, S> {
    fn record(&mut self, outcomes: &Vec<S::Outcome>) {
        self.open_block();
        if self.filled == BLOCK {
            self.flush();
        }
        let weight = 1 << self.filled;
        for (tally, outcome) in self.block.iter_mut().zip(outcomes) {
            tally.record_weighted(outcome, weight);
        }
        self.filled += 1;
    }

    /// The same battle counted `weight` times (the trait asks for it; the
    /// engine only ever records battles one by one).
    fn record_weighted(&mut self, outcomes: &Vec<S::Outcome>, weight: u64) {
        for _ in 0..weight {
            self.record(outcomes);
        }
    }

    fn merge(&mut self, mut other: Self) {
        self.flush();
        other.flush();
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            crate::stats::add_all(mine, theirs);
        }
        for (a, b) in self.both.iter_mut().zip(&other.both) {
            crate::stats::add_all(a, b);
        }
        for (mine, theirs) in self.mean_sums.iter_mut().zip(&other.mean_sums) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                a.merge(b);
            }
        }
    }

    fn for_each_slice(&mut self, mut visit: impl FnMut(&mut [u64])) {
        self.flush();
        for counts in self.counts.iter_mut().chain(&mut self.both) {
            visit(counts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A battle of two counts whose metric reads them in the order `swap`
    /// says: two variants of it have one shape and different layouts.
    struct TwoCounts {
        swap: bool,
    }

    #[derive(Default, Clone)]
    struct Counts([u64; 2]);

    impl Tally<usize> for Counts {
        fn record_weighted(&mut self, outcome: &usize, weight: u64) {
            self.0[*outcome] += weight;
        }
        fn for_each_slice(&mut self, mut visit: impl FnMut(&mut [u64])) {
            visit(&mut self.0);
        }
    }

    impl System for TwoCounts {
        type Outcome = usize;
        type Tally = Counts;
        fn new_tally(&self) -> Counts {
            Counts::default()
        }
        fn simulate(&self, rng: &mut BattleStream) -> usize {
            (rng.next_u64() >> 63) as usize
        }
    }

    fn metrics_of(system: &TwoCounts, tally: &Counts) -> Vec<Metric<u64>> {
        let [a, b] = tally.0;
        let weights = if system.swap { [b, a] } else { [a, b] };
        vec![Metric::categorical("battle", "side", &["x", "y"], &weights)]
    }

    #[test]
    fn a_variant_shares_the_bases_layout_only_when_its_sums_agree() {
        let metrics: &MetricsOf<'_, TwoCounts> = &metrics_of;
        let base = TwoCounts { swap: false };
        let layout = Layout::probe(&base, metrics);
        assert_eq!(layout.sources, vec![vec![vec![0], vec![1]]]);
        let zero = metrics(&base, &base.new_tally());
        assert!(layout.reads(&TwoCounts { swap: false }, metrics, &zero));
        assert!(!layout.reads(&TwoCounts { swap: true }, metrics, &zero));
        assert_eq!(
            Layout::probe(&TwoCounts { swap: true }, metrics).sources,
            vec![vec![vec![1], vec![0]]]
        );
    }
}

//! Variants counted by parts: where a system fights a battle to a few
//! small numbers ([`System::part_bounds`]), each variant's battle is
//! counted as one count a part in a table of (the base's value, its own
//! value). The tables say everything the bit-masked blocks of the parent
//! module say: each variant's counts (their margins), the battles in
//! which the base and a variant both had an event, and the sums of a
//! numeric outcome's differences from the base. They are turned into
//! those at each merge, and the blocks are never filled.
//!
//! It applies where every count of a tally is fed by one part only, and
//! each event and paired outcome asked reads one part, the same in every
//! variant; and where the tables stay small ([`MOST_CELLS`]).

use std::sync::Arc;

use crate::engine::stream::BattleStream;
use crate::engine::{Chunk, MAX_PARTS, Parts, System, Tally};
use crate::stats::paired_mean::PairedSums;

use super::{BLOCK, Reading};

/// The most cells of every variant's tables together: beyond, blocks.
const MOST_CELLS: usize = 1 << 20;

/// The most battles a variant fights between two merges: a cell holds 32
/// bits.
const MOST_BETWEEN_MERGES: u64 = u32::MAX as u64;

/// How one variant's parts read: the counts each value of each part feeds,
/// and what each event and paired outcome asked reads of them.
#[derive(Debug)]
pub(super) struct PartsReading {
    /// Each part's values: `bounds[p]`.
    bounds: Vec<usize>,
    /// Per part and value, the tally's counts it feeds.
    feeds: Vec<Vec<Vec<u32>>>,
    /// Per event: the part it reads, and whether each value has it; `None`
    /// where no value has it.
    events: Vec<Option<(usize, Vec<bool>)>>,
    /// Per paired outcome: the part it reads, and each value's number
    /// (`None` where a battle there has none).
    means: Vec<Option<(usize, Vec<Option<i64>>)>>,
}

/// Every variant's [`PartsReading`], where each variant's battles can be
/// counted by parts as the module says; `None` where one cannot.
pub(super) fn parts_readings<S: System>(
    variants: &[&S],
    readings: &[Arc<Reading>],
) -> Option<Vec<PartsReading>> {
    let mut out = Vec::with_capacity(variants.len());
    for (system, reading) in variants.iter().zip(readings) {
        out.push(parts_reading(*system, reading)?);
    }
    let base = &out[0];
    let mut cells = 0usize;
    for other in &out[1..] {
        if other.bounds.len() != base.bounds.len() {
            return None;
        }
        // Each event and paired outcome reads the same part in both.
        let same = |a: Option<usize>, b: Option<usize>| a.is_none() || b.is_none() || a == b;
        for (x, y) in base.events.iter().zip(&other.events) {
            if !same(x.as_ref().map(|e| e.0), y.as_ref().map(|e| e.0)) {
                return None;
            }
        }
        for (x, y) in base.means.iter().zip(&other.means) {
            if !same(x.as_ref().map(|m| m.0), y.as_ref().map(|m| m.0)) {
                return None;
            }
        }
        cells += (base.bounds.iter().zip(&other.bounds))
            .map(|(a, b)| a * b)
            .sum::<usize>();
    }
    (cells <= MOST_CELLS).then_some(out)
}

/// One variant's [`PartsReading`], found by recording each value of each
/// part alone into an empty tally.
fn parts_reading<S: System>(system: &S, reading: &Reading) -> Option<PartsReading> {
    let bounds = system.part_bounds().filter(|b| b.len() <= MAX_PARTS)?;
    let counts = reading.layout.counts;
    // Which part feeds each count: one at most.
    let mut fed_by: Vec<Option<usize>> = vec![None; counts];
    let mut feeds = Vec::with_capacity(bounds.len());
    // One tally, emptied after each value is read off it.
    let mut tally = system.new_tally();
    for (part, &bound) in bounds.iter().enumerate() {
        let mut values = Vec::with_capacity(bound);
        for value in 0..bound {
            system.record_part(&mut tally, part, value as u32, 1);
            let mut fed = Vec::new();
            let mut k = 0;
            let mut odd = false;
            tally.for_each_slice(|slice| {
                for c in slice.iter_mut() {
                    match std::mem::take(c) {
                        0 => {}
                        1 => fed.push(k as u32),
                        _ => odd = true,
                    }
                    k += 1;
                }
            });
            if odd || k != counts {
                return None;
            }
            for &c in &fed {
                match fed_by[c as usize] {
                    Some(other) if other != part => return None,
                    _ => fed_by[c as usize] = Some(part),
                }
            }
            values.push(fed);
        }
        feeds.push(values);
    }
    // The one part a set of counts is fed by, if any; `Err` where several.
    let part_of = |sources: &[u32]| -> Result<Option<usize>, ()> {
        let mut part = None;
        for &k in sources {
            match (part, fed_by[k as usize]) {
                (_, None) => {}
                (None, found) => part = found,
                (Some(a), Some(b)) if a != b => return Err(()),
                _ => {}
            }
        }
        Ok(part)
    };
    let mut events = Vec::with_capacity(reading.events.len());
    for sources in &reading.events {
        let event = part_of(sources).ok()?.map(|p| {
            let has = (feeds[p].iter())
                .map(|fed| fed.iter().any(|k| sources.contains(k)))
                .collect();
            (p, has)
        });
        events.push(event);
    }
    let mean_feeds = &reading.means;
    let mut means = Vec::with_capacity(mean_feeds.outcomes);
    for t in 0..mean_feeds.outcomes {
        let sources: Vec<u32> = (0..counts as u32)
            .filter(|&k| {
                mean_feeds
                    .values_of(k as usize)
                    .any(|(u, _)| u as usize == t)
            })
            .collect();
        let Some(p) = part_of(&sources).ok()? else {
            means.push(None);
            continue;
        };
        let mut values = Vec::with_capacity(bounds[p]);
        for fed in &feeds[p] {
            let mut found = (fed.iter())
                .flat_map(|&k| mean_feeds.values_of(k as usize))
                .filter(|&(u, _)| u as usize == t)
                .map(|(_, value)| value);
            let value = found.next();
            if found.next().is_some() {
                return None;
            }
            values.push(value);
        }
        means.push(Some((p, values)));
    }
    Some(PartsReading {
        bounds,
        feeds,
        events,
        means,
    })
}

/// A tally's battles counted by parts since the last merge: each other
/// variant's by (the base's value, its own); the base's by value only
/// where it fights alone (else they are the other tables' row sums). A
/// part with one value everywhere is not counted: every battle has it.
#[derive(Debug, Clone)]
pub(super) struct JointCounts {
    /// `tables[0][p][x]`; `tables[v][p][x * bounds_v[p] + y]`, as read at
    /// a merge.
    tables: Vec<Vec<Vec<u64>>>,
    /// Where the battles are counted as they are fought: per other
    /// variant, its counted parts' tables one after another, in 32 bits
    /// (half the room: a block's cells stay in the nearest cache).
    cells: Vec<Vec<u32>>,
    /// Per other variant and counted part: the part, its row length and
    /// where its table starts in `cells`.
    rows: Vec<Vec<(usize, usize, usize)>>,
    /// The parts counted: those with more than one value somewhere.
    counted: Vec<usize>,
    /// The base's parts of a block's battles (reused).
    base: Vec<Parts>,
    /// Battles each variant fought since the last merge.
    battles: u64,
}

impl JointCounts {
    /// Whether `more` battles would fill a cell past its 32 bits: merge
    /// first.
    pub(super) fn full_after(&self, more: u64) -> bool {
        self.battles + more > MOST_BETWEEN_MERGES
    }

    /// Empty tables for `readings`.
    pub(super) fn new(readings: &[PartsReading]) -> JointCounts {
        let base = &readings[0].bounds;
        let tables = (readings.iter().enumerate())
            .map(|(v, r)| {
                (r.bounds.iter().zip(base))
                    .map(|(&own, &b)| vec![0; if v == 0 { b } else { b * own }])
                    .collect()
            })
            .collect();
        let counted: Vec<usize> = (0..base.len())
            .filter(|&p| readings.iter().any(|r| r.bounds[p] > 1))
            .collect();
        let rows: Vec<Vec<(usize, usize, usize)>> = (readings[1..].iter())
            .map(|r| {
                let mut at = 0;
                (counted.iter())
                    .map(|&p| {
                        let start = at;
                        at += base[p] * r.bounds[p];
                        (p, r.bounds[p], start)
                    })
                    .collect()
            })
            .collect();
        let cells = (rows.iter())
            .map(|rows| vec![0; rows.iter().map(|&(p, own, _)| base[p] * own).sum()])
            .collect();
        JointCounts {
            tables,
            cells,
            rows,
            counted,
            base: vec![[0; MAX_PARTS]; BLOCK as usize],
            battles: 0,
        }
    }

    /// Fights `chunk`'s battles in every variant, a block of battles at a
    /// time: the base's first, then each other variant's on the same
    /// windows, each counted by its parts beside the base's.
    #[inline(always)]
    pub(super) fn fight<S: System>(&mut self, variants: &[&S], chunk: Chunk) {
        let alone = variants.len() == 1;
        let mut start = BattleStream::battle(chunk.seed, chunk.first);
        let mut left = chunk.len;
        self.battles += left;
        while left > 0 {
            let battles = left.min(u64::from(BLOCK)) as usize;
            let mut battle = start.clone();
            let base_tables = &mut self.tables[0];
            for parts in &mut self.base[..battles] {
                *parts = variants[0].fight_parts(&mut battle.clone());
                if alone {
                    for &p in &self.counted {
                        base_tables[p][parts[p] as usize] += 1;
                    }
                }
                battle = battle.next_battle();
            }
            for ((variant, cells), rows) in
                variants[1..].iter().zip(&mut self.cells).zip(&self.rows)
            {
                let mut battle = start.clone();
                for base in &self.base[..battles] {
                    let own = variant.fight_parts(&mut battle.clone());
                    for &(p, row, at) in rows {
                        cells[at + base[p] as usize * row + own[p] as usize] += 1;
                    }
                    battle = battle.next_battle();
                }
            }
            for _ in 0..battles {
                start = start.next_battle();
            }
            left -= battles as u64;
        }
    }

    /// The tables as counted, with those left uncounted filled in: a part
    /// with one value holds every battle; the base's, where it fought
    /// beside others, are the first other variant's row sums.
    fn filled_in(&mut self, readings: &[PartsReading]) {
        let battles = self.battles;
        for ((cells, rows), tables) in self
            .cells
            .iter_mut()
            .zip(&self.rows)
            .zip(&mut self.tables[1..])
        {
            for &(p, _, at) in rows {
                let table = &mut tables[p];
                for (count, cell) in table.iter_mut().zip(&mut cells[at..]) {
                    *count = u64::from(std::mem::take(cell));
                }
            }
        }
        for tables in &mut self.tables {
            for (p, table) in tables.iter_mut().enumerate() {
                if !self.counted.contains(&p) {
                    table[0] = battles;
                }
            }
        }
        if readings.len() > 1 {
            let (base, others) = self.tables.split_first_mut().expect("a base");
            for &p in &self.counted {
                let own = readings[1].bounds[p];
                for (x, row) in others[0][p].chunks_exact(own).enumerate() {
                    base[p][x] = row.iter().sum();
                }
            }
        }
    }

    /// Adds the battles counted since the last merge to each variant's
    /// `counts`, `both` and `mean_sums`, as the blocks would have, and
    /// empties the tables.
    pub(super) fn merge_into(
        &mut self,
        readings: &[PartsReading],
        counts: &mut [Vec<u64>],
        both: &mut [Vec<u64>],
        mean_sums: &mut [Vec<PairedSums>],
    ) {
        if self.battles == 0 {
            return;
        }
        self.filled_in(readings);
        self.battles = 0;
        let base = &readings[0];
        for (v, reading) in readings.iter().enumerate() {
            let tables = &self.tables[v];
            // The variant's battles by each part's value.
            let margins: Vec<Vec<u64>> = if v == 0 {
                tables.clone()
            } else {
                (tables.iter().zip(&reading.bounds))
                    .map(|(table, &own)| {
                        let mut margin = vec![0; own];
                        for row in table.chunks_exact(own) {
                            crate::stats::add_all(&mut margin, row);
                        }
                        margin
                    })
                    .collect()
            };
            for (part, margin) in margins.iter().enumerate() {
                for (value, &n) in margin.iter().enumerate() {
                    if n > 0 {
                        for &k in &reading.feeds[part][value] {
                            counts[v][k as usize] += n;
                        }
                    }
                }
            }
            for (e, event) in reading.events.iter().enumerate() {
                let Some((p, has)) = event else { continue };
                if v == 0 {
                    both[0][e] += (margins[*p].iter().zip(has))
                        .filter(|&(_, &h)| h)
                        .map(|(&n, _)| n)
                        .sum::<u64>();
                    continue;
                }
                let Some((_, base_has)) = &base.events[e] else {
                    continue;
                };
                let own = reading.bounds[*p];
                for (x, row) in tables[*p].chunks_exact(own).enumerate() {
                    if base_has[x] {
                        both[v][e] += (row.iter().zip(has))
                            .filter(|&(_, &h)| h)
                            .map(|(&n, _)| n)
                            .sum::<u64>();
                    }
                }
            }
            if v == 0 {
                continue;
            }
            for (t, mean) in reading.means.iter().enumerate() {
                let (Some((p, values)), Some((_, base_values))) = (mean, &base.means[t]) else {
                    continue;
                };
                let own = reading.bounds[*p];
                for (x, row) in tables[*p].chunks_exact(own).enumerate() {
                    let Some(theirs) = base_values[x] else {
                        continue;
                    };
                    for (&n, value) in row.iter().zip(values) {
                        if let (true, Some(ours)) = (n > 0, value) {
                            mean_sums[v][t].add_many(i128::from(*ours) - i128::from(theirs), n);
                        }
                    }
                }
            }
        }
        for tables in &mut self.tables {
            for table in tables {
                table.fill(0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::Rng;

    use super::super::{Event, Lockstep, MetricsOf, Paired};
    use crate::engine::stream::BattleStream;
    use crate::engine::{RunSettings, Shard, System, Tally, run};
    use crate::stats::Metric;

    /// A battle of two parts: who won (three ways) and how long it took
    /// (0 to 4 rounds), each drawn from the battle's numbers and moved by
    /// `edge`; `parts` says whether it lets the engine count it by parts.
    struct Duel {
        edge: u64,
        parts: bool,
    }

    /// Who won, then how long it took.
    #[derive(Clone, Default)]
    struct Counts([u64; 8]);

    impl Tally<(u32, u32)> for Counts {
        fn record_weighted(&mut self, &(won, rounds): &(u32, u32), weight: u64) {
            self.0[won as usize] += weight;
            self.0[3 + rounds as usize] += weight;
        }
        fn for_each_slice(&mut self, mut visit: impl FnMut(&mut [u64])) {
            visit(&mut self.0);
        }
    }

    impl Duel {
        fn fight(&self, rng: &mut BattleStream) -> (u32, u32) {
            let roll = rng.next_u64() % 100;
            let won = if roll < 40 + self.edge {
                0
            } else if roll < 90 {
                1
            } else {
                2
            };
            let rounds = ((rng.next_u64() % 100 + self.edge) / 25).min(4) as u32;
            (won, rounds)
        }
    }

    impl System for Duel {
        type Outcome = (u32, u32);
        type Tally = Counts;
        fn new_tally(&self) -> Counts {
            Counts::default()
        }
        fn simulate(&self, rng: &mut BattleStream) -> (u32, u32) {
            self.fight(rng)
        }
        fn part_bounds(&self) -> Option<Vec<usize>> {
            self.parts.then(|| vec![3, 5])
        }
        fn fight_parts(&self, window: &mut BattleStream) -> crate::engine::Parts {
            let (won, rounds) = self.fight(window);
            [won, rounds, 0, 0]
        }
        fn record_part(&self, tally: &mut Counts, part: usize, value: u32, weight: u64) {
            let at = if part == 0 { 0 } else { 3 };
            tally.0[at + value as usize] += weight;
        }
    }

    fn metrics_of(_: &Duel, tally: &Counts) -> Vec<Metric<u64>> {
        vec![
            Metric::categorical("battle", "winner", &["a", "b", "none"], &tally.0[..3]),
            Metric::integers("battle", "rounds", 0, &tally.0[3..]),
        ]
    }

    /// Three variants of the duel fought in lockstep, counted by parts or
    /// in blocks: every winner asked as an event, the rounds' mean paired.
    fn fought(parts: bool, threads: usize) -> Paired {
        let duels: Vec<Duel> = [0, 5, 12].map(|edge| Duel { edge, parts }).into();
        let variants: Vec<&Duel> = duels.iter().collect();
        let events: Vec<Event> = (0..3)
            .map(|b| Event {
                metric: 0,
                bins: vec![b],
            })
            .chain([Event {
                metric: 1,
                bins: vec![3, 4],
            }])
            .collect();
        let metrics: &MetricsOf<'_, Duel> = &metrics_of;
        let lockstep = Lockstep::new(variants, metrics, vec![events; 3], vec![vec![1]; 3]);
        assert_eq!(lockstep.shared.parts.is_some(), parts);
        let settings = RunSettings {
            seed: 11,
            trials: 100_003,
            threads,
            progress: false,
            shard: Shard::WHOLE,
        };
        run(&lockstep, settings).expect("a run").tally.finish()
    }

    #[test]
    fn battles_counted_by_parts_say_what_blocks_of_them_say() {
        let blocks = fought(false, 1);
        for threads in [1, 2] {
            let parts = fought(true, threads);
            assert_eq!(parts.metrics, blocks.metrics);
            assert_eq!(parts.both, blocks.both);
            assert_eq!(parts.mean_sums, blocks.mean_sums);
        }
        // The variants moved battles, and the pairs say so.
        assert!(blocks.mean_sums[2][0].changed > 0);
        assert!(blocks.both[1][0] < blocks.metrics[1][0].weights[0]);
    }
}

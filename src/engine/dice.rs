//! Dice drawn from a random stream.
//!
//! Dice use Lemire's multiply-shift on a full 64-bit draw: the bias for an
//! n-sided die is below n / 2^64 (under 1e-18 for a d9), far beneath anything
//! a run of any length can detect.

use rand::Rng;
use rand::distr::Distribution;

/// A uniform integer in `0..n` (n ≥ 1) from one 64-bit draw.
#[inline(always)]
pub fn below<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    ((rng.next_u64() as u128 * n as u128) >> 64) as u32
}

/// A roll of one n-sided die, `1..=n`.
#[inline(always)]
pub fn die<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    below(rng, n) + 1
}

/// True with probability `threshold / 2^64`; see [`chance_threshold`].
/// It draws its number even when the answer is certain (rand's `Bernoulli`
/// draws none at p = 1), so variants on the same streams read the same
/// numbers in the same places whatever their probabilities.
#[inline(always)]
pub fn chance<R: Rng + ?Sized>(rng: &mut R, threshold: u64) -> bool {
    rng.next_u64() < threshold
}

/// The threshold for [`chance`] that fires with probability `p` (0 ≤ p ≤ 1).
/// A probability of exactly 1 is off by 2^-64 at most.
pub fn chance_threshold(p: f64) -> u64 {
    if p >= 1.0 {
        u64::MAX
    } else if p <= 0.0 {
        0
    } else {
        (p * 18_446_744_073_709_551_616.0) as u64
    }
}

/// The sum of 3d6 for each of the 216 equally likely outcomes.
pub const THREE_D6: [u8; 216] = {
    let mut sums = [0u8; 216];
    let mut i = 0;
    while i < 216 {
        sums[i] = (i / 36 + (i / 6) % 6 + i % 6 + 3) as u8;
        i += 1;
    }
    sums
};

/// The sum of 4d6 for each of the 1296 outcomes, ordered so that the first
/// 6^k entries, less 4 − k, are the sums of k dice (the leading dice are 1).
const FOUR_D6: [u8; 1296] = {
    let mut sums = [0u8; 1296];
    let mut i = 0;
    while i < 1296 {
        sums[i] = (i % 6 + (i / 6) % 6 + (i / 36) % 6 + i / 216 + 4) as u8;
        i += 1;
    }
    sums
};

/// Ways to roll each total of 3d6, indexed by total (0..=18).
pub const THREE_D6_WAYS: [u32; 19] = {
    let mut ways = [0u32; 19];
    let mut i = 0;
    while i < 216 {
        ways[THREE_D6[i] as usize] += 1;
        i += 1;
    }
    ways
};

/// Dice drawn as mixed-radix digits of 64-bit numbers: each number serves
/// successive draws while the product of their sizes stays within 2^24, so
/// every joint draw from one number is uniform to within 2^-40. Cuts the
/// random-number cost of small dice several-fold.
pub struct Digits<'a, R: Rng + ?Sized> {
    rng: &'a mut R,
    bits: u64,
    used: u64,
}

/// The most a [`Digits`] number may be split into.
const DIGITS_ROOM: u64 = 1 << 24;

impl<'a, R: Rng + ?Sized> Digits<'a, R> {
    /// A digit stream over `rng`.
    pub fn new(rng: &'a mut R) -> Self {
        Digits {
            rng,
            bits: 0,
            used: DIGITS_ROOM,
        }
    }

    /// The underlying generator, for draws that need whole numbers.
    #[inline(always)]
    pub fn rng(&mut self) -> &mut R {
        self.rng
    }

    /// A uniform integer in `0..n` (1 ≤ n ≤ 2^24).
    #[inline(always)]
    pub fn below(&mut self, n: u32) -> u32 {
        let n = n as u64;
        if self.used * n > DIGITS_ROOM {
            self.bits = self.rng.next_u64();
            self.used = 1;
        }
        self.used *= n;
        let product = self.bits as u128 * n as u128;
        self.bits = product as u64;
        (product >> 64) as u32
    }

    /// A roll of 3d6.
    #[inline(always)]
    pub fn three_d6(&mut self) -> i64 {
        THREE_D6[self.below(216) as usize] as i64
    }

    /// The sum of `n` d6, four dice per digit (one of 6^4 outcomes).
    /// Always inlined: an out-of-line call would take the generator's
    /// state out of the registers of the battle calling it.
    #[inline(always)]
    pub fn sum_d6(&mut self, n: u32) -> i64 {
        let mut total = 0;
        let mut left = n;
        while left >= 4 {
            total += FOUR_D6[self.below(1296) as usize] as i64;
            left -= 4;
        }
        total
            + match left {
                0 => 0,
                1 => self.below(6) as i64 + 1,
                2 => FOUR_D6[self.below(36) as usize] as i64 - 2,
                _ => FOUR_D6[self.below(216) as usize] as i64 - 1,
            }
    }
}

/// Walker's alias table: one 64-bit number per draw picks a column (the
/// high part of `x · n`) and decides between the column and its alias with
/// the remaining 64 bits (the low part), so each outcome's probability is
/// exact to about `n / 2^64`. (`rand_distr`'s `WeightedAliasIndex` spends
/// two numbers and a rejection loop per draw; this sits in the inner loops.)
///
/// Each outcome carries a 32-bit label, returned by a draw: its index by
/// default, or a packed description of it ([`AliasTable::labelled`]), so a
/// draw needs no second lookup.
///
/// A long law is split in two so the columns a draw nearly always reads
/// stay in the L1 cache: a head of its likeliest outcomes plus one
/// stand-for-the-rest outcome, and a tail table drawn from (with a second
/// number) only when that outcome comes up, at most [`TAIL_MASS`] of the time.
#[derive(Debug, Clone)]
pub struct AliasTable {
    head: Columns,
    tail: Option<Columns>,
}

/// The most probability a table's tail holds.
pub const TAIL_MASS: f64 = 1.0 / 256.0;

/// Laws with at most this many outcomes are not split.
const SPLIT_ABOVE: usize = 64;

/// The head's label for "draw from the tail".
const IN_TAIL: u32 = u32::MAX;

/// One alias table without a tail.
#[derive(Debug, Clone)]
struct Columns {
    /// Side by side, so a draw touches one cache line.
    columns: Box<[Column]>,
}

/// One column of a [`Columns`].
#[derive(Debug, Clone, Copy)]
struct Column {
    /// Keep the column's own outcome when the low 64 bits are below this.
    keep_below: u64,
    /// The label of the column's own outcome.
    own: u32,
    /// The label of its alias.
    alias: u32,
}

impl Columns {
    /// Vose's method over `weights` (positive sum), labelled by `labels`.
    fn new(weights: &[f64], labels: &[u32]) -> Columns {
        let n = weights.len();
        let sum: f64 = weights.iter().sum();
        let mut scaled: Vec<f64> = weights.iter().map(|w| w * n as f64 / sum).collect();
        let mut keep = vec![1.0f64; n];
        let mut alias: Vec<u32> = (0..n as u32).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) =
            (0..n).partition(|&i| scaled[i] < 1.0);
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            keep[s] = scaled[s];
            alias[s] = l as u32;
            scaled[l] -= 1.0 - scaled[s];
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // Left-overs are 1 up to rounding: keep them always.
        let columns = keep
            .iter()
            .zip(alias)
            .enumerate()
            .map(|(own, (&k, a))| Column {
                keep_below: if k >= 1.0 {
                    u64::MAX
                } else {
                    (k * 18_446_744_073_709_551_616.0) as u64
                },
                own: labels[own],
                alias: labels[a as usize],
            })
            .collect();
        Columns { columns }
    }

    /// The label for one uniform 64-bit number.
    #[inline(always)]
    fn pick(&self, x: u64) -> u32 {
        let wide = u128::from(x) * self.columns.len() as u128;
        let column = &self.columns[(wide >> 64) as usize];
        // A select, not a branch: the choice is random, so a branch on it
        // would be mispredicted half the time.
        std::hint::select_unpredictable((wide as u64) < column.keep_below, column.own, column.alias)
    }

    /// Each label's probability, read back from the columns.
    fn probabilities(&self, into: &mut std::collections::BTreeMap<u32, f64>, scale: f64) {
        let n = self.columns.len() as f64;
        for c in self.columns.iter() {
            let keep = if c.keep_below == u64::MAX {
                1.0
            } else {
                c.keep_below as f64 / 18_446_744_073_709_551_616.0
            };
            *into.entry(c.own).or_default() += scale * keep / n;
            *into.entry(c.alias).or_default() += scale * (1.0 - keep) / n;
        }
    }
}

impl AliasTable {
    /// A table drawing `i` with probability `weights[i] / sum`.
    /// Panics unless the weights are finite, non-negative and not all zero.
    pub fn new(weights: &[f64]) -> AliasTable {
        let labels: Vec<u32> = (0..weights.len() as u32).collect();
        AliasTable::labelled(weights, &labels)
    }

    /// A table drawing `labels[i]` with probability `weights[i] / sum`.
    /// Panics unless the weights are finite, non-negative and not all zero,
    /// if there are not as many labels as weights, or on the label `u32::MAX`.
    pub fn labelled(weights: &[f64], labels: &[u32]) -> AliasTable {
        assert_eq!(weights.len(), labels.len(), "one label per weight");
        let sum: f64 = weights.iter().sum();
        assert!(
            !weights.is_empty() && sum > 0.0 && sum.is_finite(),
            "alias table needs positive finite weights"
        );
        assert!(weights.iter().all(|w| *w >= 0.0), "negative weight");
        assert!(!labels.contains(&IN_TAIL), "label u32::MAX is reserved");
        // Likeliest first; the head takes outcomes until what is left is
        // at most TAIL_MASS of the whole.
        let mut order: Vec<usize> = (0..weights.len()).filter(|&i| weights[i] > 0.0).collect();
        order.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]));
        let mut left = sum;
        let mut head_len = 0;
        while head_len < order.len() && left > TAIL_MASS * sum {
            left -= weights[order[head_len]];
            head_len += 1;
        }
        let pick = |part: &[usize]| -> (Vec<f64>, Vec<u32>) {
            part.iter().map(|&i| (weights[i], labels[i])).unzip()
        };
        if weights.len() <= SPLIT_ABOVE || head_len == order.len() {
            return AliasTable {
                head: Columns::new(weights, labels),
                tail: None,
            };
        }
        let (mut head_weights, mut head_labels) = pick(&order[..head_len]);
        let (tail_weights, tail_labels) = pick(&order[head_len..]);
        head_weights.push(tail_weights.iter().sum());
        head_labels.push(IN_TAIL);
        AliasTable {
            head: Columns::new(&head_weights, &head_labels),
            tail: Some(Columns::new(&tail_weights, &tail_labels)),
        }
    }

    /// Each label's probability of being drawn, read back from the table
    /// (exact to rounding): to check a table against the law it was built from.
    pub fn probabilities(&self) -> std::collections::BTreeMap<u32, f64> {
        let mut law = std::collections::BTreeMap::new();
        self.head.probabilities(&mut law, 1.0);
        if let Some(tail) = &self.tail {
            let in_tail = law.remove(&IN_TAIL).unwrap_or(0.0);
            tail.probabilities(&mut law, in_tail);
        }
        law.retain(|_, p| *p > 0.0);
        law
    }
}

impl Distribution<usize> for AliasTable {
    /// Draws a label: one random number, a second in the rare tail.
    #[inline(always)]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let label = self.head.pick(rng.next_u64());
        // The label first: the tail's pointer is read only on the rare
        // draw that needs it (a head never holds IN_TAIL without a tail).
        if label == IN_TAIL
            && let Some(tail) = &self.tail
        {
            return tail.pick(rng.next_u64()) as usize;
        }
        label as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::chi_square_sf;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn alias_table_probabilities_are_exact_over_every_column() {
        // Walk x over a fine grid of each column: the share of x drawing
        // outcome i must be weights[i] / sum to within the grid step.
        let weights = [0.5, 0.0, 3.0, 1.25, 0.25];
        let sum: f64 = weights.iter().sum();
        let table = AliasTable::new(&weights);
        assert!(table.tail.is_none());
        let steps = 1u64 << 20;
        let mut counts = [0u64; 5];
        for k in 0..steps {
            counts[table.head.pick(k * (u64::MAX / steps)) as usize] += 1;
        }
        for (i, (c, w)) in counts.iter().zip(weights).enumerate() {
            let share = *c as f64 / steps as f64;
            assert!((share - w / sum).abs() < 1e-5, "{share} vs {}", w / sum);
            let read = table.probabilities().get(&(i as u32)).copied();
            assert!((read.unwrap_or(0.0) - w / sum).abs() < 1e-15);
        }
        assert_eq!(AliasTable::new(&[2.0]).head.pick(u64::MAX), 0);
    }

    /// A geometric law over 400 outcomes, labelled 1000 + i.
    fn long_law() -> (Vec<f64>, Vec<u32>) {
        let weights: Vec<f64> = (0..400)
            .map(|i| 0.97f64.powi(i) * (1 + i % 3) as f64)
            .collect();
        let labels = (0..400).map(|i| 1000 + i).collect();
        (weights, labels)
    }

    #[test]
    fn a_long_law_splits_into_a_small_head_and_a_rare_tail() {
        let (weights, labels) = long_law();
        let sum: f64 = weights.iter().sum();
        let table = AliasTable::labelled(&weights, &labels);
        let tail = table.tail.as_ref().expect("400 outcomes are split");
        assert!(
            table.head.columns.len() < 250,
            "{}",
            table.head.columns.len()
        );
        let mut head = std::collections::BTreeMap::new();
        table.head.probabilities(&mut head, 1.0);
        let in_tail = head[&IN_TAIL];
        assert!(
            in_tail > 0.0 && in_tail <= TAIL_MASS * (1.0 + 1e-12),
            "{in_tail}"
        );
        assert_eq!(table.head.columns.len() + tail.columns.len(), 401);
        let read = table.probabilities();
        assert_eq!(read.len(), 400);
        for (w, l) in weights.iter().zip(&labels) {
            assert!((read[l] - w / sum).abs() < 1e-15, "label {l}");
        }
    }

    #[test]
    fn draws_from_a_split_table_follow_its_law() {
        // Head and tail together, drawn as a run draws them: chi-square
        // over outcomes pooled into cells of expected count >= 20.
        let (weights, labels) = long_law();
        let sum: f64 = weights.iter().sum();
        let table = AliasTable::labelled(&weights, &labels);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let n = 2_000_000u64;
        let mut counts = vec![0u64; 400];
        for _ in 0..n {
            counts[table.sample(&mut rng) - 1000] += 1;
        }
        // (observed, expected) per cell, consecutive outcomes pooled.
        let mut cells: Vec<(f64, f64)> = vec![(0.0, 0.0)];
        for (c, w) in counts.iter().zip(&weights) {
            let last = cells.last_mut().expect("one cell");
            if last.1 >= 20.0 {
                cells.push((0.0, 0.0));
            }
            let last = cells.last_mut().expect("one cell");
            last.0 += *c as f64;
            last.1 += n as f64 * w / sum;
        }
        if let [.., (o1, e1), (o2, e2)] = cells[..]
            && e2 < 20.0
        {
            cells.pop();
            *cells.last_mut().expect("two cells") = (o1 + o2, e1 + e2);
        }
        let stat: f64 = cells.iter().map(|(o, e)| (o - e).powi(2) / e).sum();
        let cells = cells.len() - 1;
        assert!(
            counts[300..].iter().sum::<u64>() > 0,
            "the tail is drawn from"
        );
        let p = chi_square_sf(stat, cells);
        assert!(p > 1e-4, "chi-square {stat} over {cells} cells: p = {p}");
    }

    #[test]
    fn d9_is_uniform_by_chi_square() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let n = 900_000;
        let mut counts = [0u64; 9];
        for _ in 0..n {
            let face = die(&mut rng, 9);
            assert!((1..=9).contains(&face));
            counts[face as usize - 1] += 1;
        }
        let expected = n as f64 / 9.0;
        let stat: f64 = counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        assert!(chi_square_sf(stat, 8) > 0.001, "chi2 {stat}, {counts:?}");
    }

    #[test]
    fn three_d6_table_has_the_textbook_counts() {
        // 1, 3, 6, 10, 15, 21, 25, 27, 27, 25, 21, 15, 10, 6, 3, 1 ways.
        assert_eq!(
            &THREE_D6_WAYS[3..],
            &[1, 3, 6, 10, 15, 21, 25, 27, 27, 25, 21, 15, 10, 6, 3, 1]
        );
    }

    #[test]
    fn the_four_d6_table_holds_every_smaller_pool() {
        // The first 6^k entries, less 4 − k, are the k-dice sums.
        let mut two = [0u32; 13];
        for &s in &FOUR_D6[..36] {
            two[s as usize - 2] += 1;
        }
        assert_eq!(&two[2..], &[1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]);
        let mut three = [0u32; 19];
        for &s in &FOUR_D6[..216] {
            three[s as usize - 1] += 1;
        }
        assert_eq!(three, THREE_D6_WAYS);
        let mut four = [0u32; 25];
        for &s in &FOUR_D6 {
            four[s as usize] += 1;
        }
        assert_eq!((four[4], four[14], four[24]), (1, 146, 1));
    }

    #[test]
    fn sums_of_d6_have_the_right_mean_and_range() {
        let mut source = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut rng = Digits::new(&mut source);
        let n = 200_000;
        for dice in [1u32, 2, 3, 4, 5, 9, 10, 20] {
            let mut total = 0i64;
            for _ in 0..n {
                let s = rng.sum_d6(dice);
                assert!((dice as i64..=6 * dice as i64).contains(&s));
                total += s;
            }
            let mean = total as f64 / n as f64;
            // sd of the mean: sqrt(35/12 · dice / n).
            let sd = (35.0 / 12.0 * dice as f64 / n as f64).sqrt();
            assert!(
                (mean - 3.5 * dice as f64).abs() < 4.0 * sd,
                "{dice}d6 mean {mean}"
            );
        }
    }

    #[test]
    fn digits_give_uniform_3d6_and_d6() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let mut digits = Digits::new(&mut rng);
        let n = 216_000;
        let mut counts = [0u64; 19];
        let mut d6 = [0u64; 7];
        for _ in 0..n {
            counts[digits.three_d6() as usize] += 1;
            d6[digits.sum_d6(1) as usize] += 1;
        }
        let stat: f64 = (3..=18)
            .map(|k| {
                let e = n as f64 * THREE_D6_WAYS[k] as f64 / 216.0;
                (counts[k] as f64 - e).powi(2) / e
            })
            .sum();
        assert!(chi_square_sf(stat, 15) > 0.001, "3d6 chi2 {stat}");
        let e = n as f64 / 6.0;
        let stat: f64 = d6[1..].iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
        assert!(chi_square_sf(stat, 5) > 0.001, "d6 chi2 {stat}");
    }

    #[test]
    fn chance_thresholds_hit_their_rate() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let t = chance_threshold(0.25);
        let n = 400_000;
        let hits = (0..n).filter(|_| chance(&mut rng, t)).count() as f64;
        // 0.25 ± 3.29 sd (sd = sqrt(p q / n) ≈ 0.000685).
        assert!((hits / n as f64 - 0.25).abs() < 3.29 * 0.000_685);
        assert_eq!(chance_threshold(0.0), 0);
        assert_eq!(chance_threshold(1.0), u64::MAX);
    }
}

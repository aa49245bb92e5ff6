//! Draws by the inverse of a law: one uniform number picks an outcome
//! through the law's cumulative distribution, over an order the rules fix
//! (a dice total, a damage), not over the table's values.
//!
//! Variants that share the number and differ a little in their law then
//! differ only in the numbers near the boundaries the change moved: the
//! monotone coupling of common random numbers (Law and Kelton; Glasserman
//! and Yao 1992). A guide table (Chen and Asau) keeps a draw O(1): the
//! number's leading bits say where to start, and a short scan ends it.

use rand::Rng;
use rand::distr::Distribution;

use crate::engine::dice::THREE_D6_WAYS;

/// An outcome is drawn for numbers (taken to 63 bits) from the upper bound
/// of the one before it up to its own.
const SCALE: f64 = 9_223_372_036_854_775_808.0;

/// A law over outcomes `0..n` in their order, drawn by its inverse.
#[derive(Debug, Clone)]
pub struct InverseLaw {
    /// Per outcome, the smallest 63-bit number that draws a later one
    /// (the last: 2^63, above every number).
    upper: Box<[u64]>,
    /// Per cell of the numbers' leading bits: the first outcome a number
    /// of that cell can draw.
    guide: Box<[u32]>,
    /// Leading bits of a 63-bit number that pick its guide cell.
    guide_shift: u32,
}

impl InverseLaw {
    /// The law drawing outcome `i` with probability `weights[i] / sum`.
    /// Panics unless the weights are finite, non-negative and not all zero.
    pub fn new(weights: &[f64]) -> InverseLaw {
        let sum: f64 = weights.iter().sum();
        assert!(
            !weights.is_empty() && sum > 0.0 && sum.is_finite(),
            "an inverse law needs positive finite weights"
        );
        assert!(weights.iter().all(|w| *w >= 0.0), "negative weight");
        let mut upper = Vec::with_capacity(weights.len());
        let mut cumulative = 0.0;
        for w in &weights[..weights.len() - 1] {
            cumulative += w;
            let bound = (cumulative / sum * SCALE).min(SCALE) as u64;
            // Rounding never makes a bound go back.
            upper.push(bound.max(upper.last().copied().unwrap_or(0)));
        }
        upper.push(1 << 63);
        let bits = (weights.len().next_power_of_two().trailing_zeros() + 1).min(16);
        let guide_shift = 63 - bits;
        let guide = (0..1u64 << bits)
            .map(|cell| {
                let first = cell << guide_shift;
                upper.partition_point(|&u| u <= first) as u32
            })
            .collect();
        InverseLaw {
            upper: upper.into_boxed_slice(),
            guide,
            guide_shift,
        }
    }

    /// The outcome one uniform 64-bit number draws: a larger number never
    /// draws an earlier outcome.
    #[inline(always)]
    pub fn draw(&self, x: u64) -> usize {
        let x = x >> 1;
        // SAFETY: `x < 2^63`, so `x >> guide_shift` is below the guide's
        // `2^(63 - guide_shift)` cells; a cell holds an outcome below `n`;
        // the scan stops at the last outcome at the latest, whose bound
        // 2^63 is above every `x`. (Bounds checks cost a fifth of a draw.)
        unsafe {
            let mut i = *self.guide.get_unchecked((x >> self.guide_shift) as usize) as usize;
            while x >= *self.upper.get_unchecked(i) {
                i += 1;
            }
            i
        }
    }

    /// Each outcome's probability, read back from the bounds (exact to
    /// 2^-63): to check a law against the one it was built from.
    pub fn probabilities(&self) -> Vec<f64> {
        let mut below = 0;
        self.upper
            .iter()
            .map(|&u| {
                let p = (u - below) as f64 / SCALE;
                below = u;
                p
            })
            .collect()
    }
}

impl Distribution<usize> for InverseLaw {
    #[inline(always)]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        self.draw(rng.next_u64())
    }
}

/// The equally likely outcomes of a roll as ascending totals, from the
/// number of ways to roll each total (indexed by total).
const fn ascending<const N: usize>(ways: &[u32]) -> [u8; N] {
    let mut sorted = [0u8; N];
    let mut at = 0;
    let mut total = 0;
    while total < ways.len() {
        let mut k = 0;
        while k < ways[total] {
            sorted[at] = total as u8;
            at += 1;
            k += 1;
        }
        total += 1;
    }
    sorted
}

/// The 216 equally likely 3d6 totals in ascending order.
const THREE_D6_SORTED: [u8; 216] = ascending(&THREE_D6_WAYS);

/// Ways to roll each total of 2d6, indexed by total (0..=12).
const TWO_D6_WAYS: [u32; 13] = [0, 0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1];

/// The 36 equally likely 2d6 totals in ascending order.
const TWO_D6_SORTED: [u8; 36] = ascending(&TWO_D6_WAYS);

/// A 3d6 total from one uniform number, by the inverse of its law (exact:
/// 216 equally likely cells): a larger number never rolls lower.
#[inline(always)]
pub fn three_d6(x: u64) -> i64 {
    THREE_D6_SORTED[((u128::from(x) * 216) >> 64) as usize] as i64
}

/// A 2d6 total from one uniform number, by the inverse of its law.
#[inline(always)]
pub fn two_d6(x: u64) -> i64 {
    TWO_D6_SORTED[((u128::from(x) * 36) >> 64) as usize] as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_give_each_outcome_its_probability() {
        let weights = [0.5, 0.0, 3.0, 1.25, 0.25];
        let law = InverseLaw::new(&weights);
        for (read, w) in law.probabilities().iter().zip(weights) {
            assert!((read - w / 5.0).abs() < 1e-15, "{read} vs {}", w / 5.0);
        }
        // Walk x over a fine grid: the share drawing each outcome is its
        // probability, and the draws never go back.
        let steps = 1u64 << 16;
        let mut counts = [0u64; 5];
        let mut last = 0;
        for k in 0..steps {
            let outcome = law.draw(k * (u64::MAX / steps));
            assert!(outcome >= last, "monotone at {k}");
            last = outcome;
            counts[outcome] += 1;
        }
        for (c, w) in counts.iter().zip(weights) {
            assert!((*c as f64 / steps as f64 - w / 5.0).abs() < 1e-4);
        }
        assert_eq!(law.draw(0), 0);
        assert_eq!(law.draw(u64::MAX), 4);
        assert_eq!(InverseLaw::new(&[2.0]).draw(u64::MAX), 0);
    }

    #[test]
    fn a_guide_cell_never_starts_past_its_numbers_outcome() {
        // Many tiny outcomes and a few large ones: every cell boundary.
        let weights: Vec<f64> = (0..300)
            .map(|i| if i % 50 == 0 { 1e3 } else { 1e-3 })
            .collect();
        let law = InverseLaw::new(&weights);
        for cell in 0..law.guide.len() as u64 {
            let first = (cell << law.guide_shift) << 1;
            let slow = law.upper.partition_point(|&u| u <= first >> 1);
            assert_eq!(law.draw(first), slow, "cell {cell}");
        }
    }

    #[test]
    fn dice_by_inverse_have_the_textbook_counts() {
        let mut ways = [0u32; 19];
        let mut two = [0u32; 13];
        for k in 0..216u64 {
            // The middle of each of the 216 cells.
            let x = ((2 * k + 1) as u128 * (1u128 << 64) / 432) as u64;
            ways[three_d6(x) as usize] += 1;
        }
        for k in 0..36u64 {
            let x = ((2 * k + 1) as u128 * (1u128 << 64) / 72) as u64;
            two[two_d6(x) as usize] += 1;
        }
        assert_eq!(ways, THREE_D6_WAYS);
        assert_eq!(&two[2..], &[1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]);
        assert_eq!((three_d6(0), three_d6(u64::MAX)), (3, 18));
        assert_eq!((two_d6(0), two_d6(u64::MAX)), (2, 12));
    }
}

//! The difference of two variants' means measured battle by battle: the
//! sums of the differences `d = variant − base` over the battles both
//! fought on the same streams, and the paired t interval and test on them
//! (Student's t on the differences, which is what Welch's test becomes
//! when the two samples are the two halves of the same pairs).

use crate::stats::DifferenceInterval;
use crate::stats::special::{t_975, t_two_sided_p};

/// Sums of the battle-by-battle differences of one numeric outcome, kept
/// in integers so the order the battles are added in (threads, shards)
/// changes nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PairedSums {
    /// Battles with a value in both variants.
    pub battles: u64,
    /// Battles whose value differs between the two.
    pub changed: u64,
    /// Sum of the differences.
    pub sum: i128,
    /// Sum of the squared differences (saturating: a value beyond `u128`
    /// would need differences of 2^54 over 2^20 battles).
    pub squares: u128,
}

/// What a paired comparison of means found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedMeans {
    /// Mean difference (variant − base), with its 95% interval.
    pub difference: DifferenceInterval,
    /// The t statistic: the mean difference over its standard error (0
    /// when nothing changed, infinite when every battle changed by the
    /// same amount).
    pub statistic: f64,
    /// Two-sided p-value of the paired t-test (1 when nothing changed, 0
    /// when every battle changed by the same amount).
    pub p_value: f64,
}

impl PairedSums {
    /// Adds `battles` battles of the same difference `d` at once: the
    /// same sums as adding each.
    pub fn add_many(&mut self, d: i128, battles: u64) {
        self.battles += battles;
        self.changed += if d != 0 { battles } else { 0 };
        self.sum += d * i128::from(battles);
        let size = d.unsigned_abs();
        self.squares = self.squares.saturating_add(
            size.saturating_mul(size)
                .saturating_mul(u128::from(battles)),
        );
    }

    /// Adds another tally's battles.
    pub fn merge(&mut self, other: &PairedSums) {
        self.battles += other.battles;
        self.changed += other.changed;
        self.sum += other.sum;
        self.squares = self.squares.saturating_add(other.squares);
    }

    /// The mean difference, its 95% interval (Student's t with n − 1
    /// degrees of freedom) and the two-sided p-value; `None` without two
    /// battles.
    pub fn means(&self) -> Option<PairedMeans> {
        if self.battles < 2 {
            return None;
        }
        let n = self.battles as f64;
        let mean = self.sum as f64 / n;
        // n·Σd² − (Σd)², exactly where it fits, so a small spread beside a
        // large shift is not lost to rounding.
        let spread = i128::try_from(self.squares)
            .ok()
            .and_then(|squares| squares.checked_mul(i128::from(self.battles)))
            .and_then(|scaled| scaled.checked_sub(self.sum.checked_mul(self.sum)?))
            .map_or_else(
                || self.squares as f64 * n - (self.sum as f64).powi(2),
                |exact| exact as f64,
            );
        let variance = (spread / (n * (n - 1.0))).max(0.0);
        let error = (variance / n).sqrt();
        if error == 0.0 {
            let (statistic, p_value) = if self.changed == 0 {
                (0.0, 1.0)
            } else {
                (mean.signum() * f64::INFINITY, 0.0)
            };
            return Some(PairedMeans {
                difference: DifferenceInterval {
                    difference: mean,
                    low: mean,
                    high: mean,
                },
                statistic,
                p_value,
            });
        }
        let quantile = t_975(self.battles - 1);
        let p_value = t_two_sided_p(mean / error, n - 1.0);
        Some(PairedMeans {
            difference: DifferenceInterval {
                difference: mean,
                low: mean - quantile * error,
                high: mean + quantile * error,
            },
            statistic: mean / error,
            p_value,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(differences: &[i64]) -> PairedSums {
        let mut s = PairedSums::default();
        for &d in differences {
            s.add_many(d.into(), 1);
        }
        s
    }

    #[test]
    fn battles_added_at_once_sum_as_one_by_one() {
        let mut at_once = PairedSums::default();
        at_once.add_many(-3, 4);
        at_once.add_many(0, 2);
        at_once.add_many(5, 1);
        assert_eq!(at_once, sums(&[-3, -3, -3, -3, 0, 0, 5]));
    }

    #[test]
    fn a_textbook_paired_t() {
        // Differences 1, 2, 3, 4, 5, 6: mean 3.5, sd √3.5, t(5) 97.5% quantile
        // 2.570582 (tables), so the half width is 2.570582 · √(3.5/6).
        let m = sums(&[1, 2, 3, 4, 5, 6]).means().unwrap();
        let half = 2.570_582 * (3.5f64 / 6.0).sqrt();
        assert!((m.difference.difference - 3.5).abs() < 1e-12);
        assert!((m.difference.low - (3.5 - half)).abs() < 1e-5, "{m:?}");
        assert!((m.difference.high - (3.5 + half)).abs() < 1e-5, "{m:?}");
        // t = 3.5 / √(3.5/6) = 4.5826, p (two-sided, 5 df) = 0.005934.
        assert!((m.p_value - 0.005_934).abs() < 2e-6, "{m:?}");
    }

    #[test]
    fn the_order_of_the_battles_changes_nothing() {
        let mut a = sums(&[3, -1, 0, 7]);
        a.merge(&sums(&[2, 2, -5]));
        assert_eq!(a, sums(&[-5, 2, 2, 0, 7, -1, 3]));
        assert_eq!(a.changed, 6);
    }

    #[test]
    fn no_spread_is_certain_either_way() {
        let unchanged = sums(&[0, 0, 0]).means().unwrap();
        assert_eq!(
            (unchanged.difference.difference, unchanged.p_value),
            (0.0, 1.0)
        );
        let shifted = sums(&[2, 2, 2]).means().unwrap();
        assert_eq!(
            (
                shifted.difference.low,
                shifted.difference.high,
                shifted.p_value
            ),
            (2.0, 2.0, 0.0)
        );
        assert!(sums(&[4]).means().is_none());
    }

    #[test]
    fn a_large_shift_keeps_its_small_spread() {
        // 10^12 + {−1, 0, 1}: a float sum of squares would lose the spread.
        let big = 1_000_000_000_000;
        let m = sums(&[big - 1, big, big + 1]).means().unwrap();
        assert_eq!(m.difference.difference, big as f64);
        let half = m.difference.high - m.difference.difference;
        // sd 1, n 3, t(2) 97.5% = 4.302653: half width 4.302653 / √3.
        assert!((half - 4.302_653 / 3f64.sqrt()).abs() < 1e-4, "{half}");
    }
}

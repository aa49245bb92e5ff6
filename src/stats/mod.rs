//! Distributions, intervals and summary statistics over integer histograms.
//!
//! The simulation only ever fills integer counts; everything a report prints
//! is derived here from those counts, so the same counts always give the same
//! bytes.

use std::sync::OnceLock;

use statrs::distribution::{ContinuousCDF, Normal};

pub mod compare;
pub mod format;
pub mod identity;
pub mod paired_mean;
pub mod recommend;
pub mod special;

pub use special::clopper_pearson;

/// A histogram weight: an integer count (Monte Carlo) or a probability (exact).
pub trait Weight: Copy + Default + std::ops::AddAssign + PartialEq + Send + 'static {}
impl Weight for u64 {}
impl Weight for f64 {}

/// Adds histogram `b` into `a`, bin by bin (tallies merge this way).
pub fn add_all<W: Weight>(a: &mut [W], b: &[W]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// The labels of a metric's values: named categories or a run of integers.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Values {
    /// Category labels, one per bin, in reporting order.
    Categories(Vec<String>),
    /// Integer values `first, first + 1, ...`, one per bin.
    Integers {
        /// The value of bin 0.
        first: i64,
    },
}

/// What a metric means to the reports, declared by the system that makes
/// it, so a report never has to recognise a metric by its name or labels.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum MetricRole {
    /// A detail: shown, but no verdict or comparison rests on it.
    #[default]
    Detail,
    /// An engagement's winner (bins: attacker, defender, neither).
    Winner {
        /// The attacking and the defending unit's names.
        units: [String; 2],
    },
    /// Another battle-wide outcome worth comparing across variants.
    Outcome,
    /// A side's victory (bins: won, lost, then draw or undecided).
    Victory {
        /// The side's name.
        side: String,
    },
    /// A PC's state at the end.
    Fate {
        /// The PC's name.
        pc: String,
        /// The bins that put him out of action (down, dead, knocked out).
        out: Vec<usize>,
        /// The bin in which he is dead, where the system has one.
        dead: Option<usize>,
    },
    /// A defender's ground after the battle (GURPS: holds, holds on
    /// Morale, retreats, driven off).
    Ground {
        /// The defending side's name.
        side: String,
        /// The bins in which it keeps its ground.
        kept: Vec<usize>,
    },
    /// A PC's fame: his Reputation.
    Fame {
        /// The PC's name.
        pc: String,
    },
    /// Whether any PC of a party ended out of action (bins: no, yes).
    PartyRisk {
        /// The side the party fights on.
        side: String,
        /// Whether it holds every PC of the battle.
        whole: bool,
        /// What "out of action" is, in words (`down or dead`).
        words: String,
    },
    /// A PC's Survival categories.
    Survival {
        /// The PC's name.
        pc: String,
    },
    /// An event the user asked about with `--target` (bins: no, yes).
    Target,
}

/// One metric of one subject: a histogram of weights (counts or exact
/// probabilities) over its values.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Metric<W> {
    /// What the metric is about: `battle`, `unit:Knights`, ...
    pub subject: String,
    /// The metric's name: `winner`, `damage`, ...
    pub name: String,
    /// How bins map to values.
    pub values: Values,
    /// One weight per bin.
    pub weights: Vec<W>,
    /// What it means to the reports.
    #[serde(default)]
    pub role: MetricRole,
}

/// How far an exact distribution's sum may stray from 1 by rounding
/// alone; [`Metric::sum_rounded_to_one`] leaves a sum farther off as it is,
/// for the agreement check to flag.
pub const ROUNDING: f64 = 1e-9;

impl Metric<f64> {
    /// The exact distribution with its weights summing to 1 where rounding
    /// alone moved their sum (1.0000000000000016 for 1), so that no system
    /// normalises its own and an agreement check never flags rounding.
    pub fn sum_rounded_to_one(mut self) -> Self {
        let sum: f64 = self.weights.iter().sum();
        if sum != 1.0 && (sum - 1.0).abs() <= ROUNDING {
            for w in &mut self.weights {
                *w /= sum;
            }
        }
        self
    }
}

impl<W: Copy> Metric<W> {
    /// The metric with its meaning declared.
    pub fn with_role(mut self, role: MetricRole) -> Self {
        self.role = role;
        self
    }

    /// A categorical metric.
    pub fn categorical<L: AsRef<str>>(
        subject: &str,
        name: &str,
        labels: &[L],
        weights: &[W],
    ) -> Self {
        assert_eq!(labels.len(), weights.len(), "one weight per category");
        Metric {
            subject: subject.to_owned(),
            name: name.to_owned(),
            values: Values::Categories(labels.iter().map(|l| l.as_ref().to_owned()).collect()),
            weights: weights.to_vec(),
            role: MetricRole::Detail,
        }
    }

    /// An integer-valued metric whose bin `i` holds value `first + i`.
    pub fn integers(subject: &str, name: &str, first: i64, weights: &[W]) -> Self {
        Metric {
            subject: subject.to_owned(),
            name: name.to_owned(),
            values: Values::Integers { first },
            weights: weights.to_vec(),
            role: MetricRole::Detail,
        }
    }

    /// The label of bin `i`.
    pub fn label(&self, i: usize) -> String {
        match &self.values {
            Values::Categories(labels) => labels[i].clone(),
            Values::Integers { first } => (first + i as i64).to_string(),
        }
    }

    /// Whether the metric is numeric (gets a summary row and a histogram).
    pub fn is_numeric(&self) -> bool {
        matches!(self.values, Values::Integers { .. })
    }

    /// The bins worth printing: every category, or the integer range from
    /// the first to the last bin with a non-zero weight.
    pub fn reported_bins(&self, is_zero: impl Fn(W) -> bool) -> std::ops::Range<usize> {
        match self.values {
            Values::Categories(_) => 0..self.weights.len(),
            Values::Integers { .. } => {
                let first = self.weights.iter().position(|&w| !is_zero(w));
                let last = self.weights.iter().rposition(|&w| !is_zero(w));
                match (first, last) {
                    (Some(a), Some(b)) => a..b + 1,
                    _ => 0..0,
                }
            }
        }
    }
}

impl Metric<u64> {
    /// Total count over all bins.
    pub fn total(&self) -> u64 {
        self.weights.iter().sum()
    }

    /// Mean, standard deviation and percentiles of a numeric metric.
    pub fn summary(&self) -> Option<Summary> {
        let Values::Integers { first } = self.values else {
            return None;
        };
        summarize(first, &self.weights)
    }
}

/// The widest 95% Wilson half-width over every value of every metric, and
/// where it is (`battle/winner = attacker`); `None` without counts.
pub fn widest_half_width(metrics: &[Metric<u64>]) -> Option<Widest> {
    let mut widest: Option<Widest> = None;
    for (metric, m) in metrics.iter().enumerate() {
        let total = m.total();
        if total == 0 {
            continue;
        }
        for (bin, &count) in m.weights.iter().enumerate() {
            let (lo, hi) = wilson(count, total, z95());
            let half = (hi - lo) / 2.0;
            if widest.as_ref().is_none_or(|w| half > w.half_width) {
                widest = Some(Widest {
                    half_width: half,
                    metric,
                    bin,
                });
            }
        }
    }
    widest
}

/// The widest 95% interval of a run's shares: its half-width, and where
/// it is (the metric's index among those asked, the value's bin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Widest {
    /// Half the interval's width, as a fraction.
    pub half_width: f64,
    /// The metric's index.
    pub metric: usize,
    /// The value's bin within it.
    pub bin: usize,
}

/// Summary statistics of an integer histogram.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Number of observations.
    pub trials: u64,
    /// Sample mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 denominator).
    pub std_dev: f64,
    /// 95% normal interval on the mean.
    pub ci_low: f64,
    /// 95% normal interval on the mean.
    pub ci_high: f64,
    /// 5th percentile (smallest value whose cumulative share is at least 5%).
    pub p05: i64,
    /// Median, same convention.
    pub p50: i64,
    /// 95th percentile, same convention.
    pub p95: i64,
}

/// The statistics of a [`Summary`] as written in tables.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SummaryFields {
    /// Number of observations.
    pub trials: u64,
    /// Mean.
    pub mean: f64,
    /// Standard deviation.
    pub std_dev: f64,
    /// 95% interval on the mean.
    pub ci_low: f64,
    /// 95% interval on the mean.
    pub ci_high: f64,
    /// 5th percentile.
    pub p05: i64,
    /// Median.
    pub p50: i64,
    /// 95th percentile.
    pub p95: i64,
}

impl From<Summary> for SummaryFields {
    fn from(s: Summary) -> Self {
        SummaryFields {
            trials: s.trials,
            mean: s.mean,
            std_dev: s.std_dev,
            ci_low: s.ci_low,
            ci_high: s.ci_high,
            p05: s.p05,
            p50: s.p50,
            p95: s.p95,
        }
    }
}

/// Summarises the histogram whose bin `i` holds value `first + i`.
pub fn summarize(first: i64, counts: &[u64]) -> Option<Summary> {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return None;
    }
    // Exact integer sums around `first` keep the mean independent of order.
    let mut sum: u128 = 0;
    let mut sum_sq: u128 = 0;
    for (i, &c) in counts.iter().enumerate() {
        let i = i as u128;
        sum += i * c as u128;
        sum_sq += i * i * c as u128;
    }
    let nf = n as f64;
    let variance = if n > 1 {
        // n·Σx² − (Σx)² is exact in integers; divide once.
        let numerator = (n as u128 * sum_sq).saturating_sub(sum * sum) as f64;
        numerator / (nf * (nf - 1.0))
    } else {
        0.0
    };
    let std_dev = variance.sqrt();
    let half = z95() * std_dev / nf.sqrt();
    // The whole sum divided once: the mean is the double nearest the
    // exact one, with no noise from adding `first` afterwards (0.1582,
    // not 0.1581999999999999).
    let mean = (i128::from(first) * i128::from(n) + sum as i128) as f64 / nf;
    let percentile = |q: f64| -> i64 {
        let target = (q * nf).ceil().max(1.0) as u64;
        let mut cumulative = 0u64;
        for (i, &c) in counts.iter().enumerate() {
            cumulative += c;
            if cumulative >= target {
                return first + i as i64;
            }
        }
        first + counts.len() as i64 - 1
    };
    Some(Summary {
        trials: n,
        mean,
        std_dev,
        // The mean cannot leave the metric's possible values (hp lost is
        // never negative): the interval is cut to them, losing no coverage.
        ci_low: (mean - half).max(first as f64),
        ci_high: (mean + half).min((first + counts.len() as i64 - 1) as f64),
        p05: percentile(0.05),
        p50: percentile(0.50),
        p95: percentile(0.95),
    })
}

/// The two-sided normal quantile for a confidence level (0.95 → 1.96).
pub fn z_for_confidence(confidence: f64) -> f64 {
    Normal::standard().inverse_cdf(0.5 + confidence / 2.0)
}

/// The normal quantile for 95% intervals, computed once.
pub fn z95() -> f64 {
    static Z: OnceLock<f64> = OnceLock::new();
    *Z.get_or_init(|| z_for_confidence(0.95))
}

/// Wilson score interval for `successes` out of `trials` at quantile `z`,
/// clamped to [0, 1].
pub fn wilson(successes: u64, trials: u64, z: f64) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // At 0 or `trials` successes the bound is exactly 0 or 1 (rounding
    // would leave it a hair off).
    let lo = if successes == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if successes == trials {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (lo, hi)
}

/// A difference of two probabilities with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DifferenceInterval {
    /// The second probability minus the first.
    pub difference: f64,
    /// Lower end of the interval.
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
}

impl DifferenceInterval {
    /// Whether the interval leaves out 0: the two differ beyond noise.
    pub fn excludes_zero(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

/// Newcombe's hybrid score interval (his method 10) for `p2 - p1`, from
/// each probability's Wilson interval and the correlation `phi` of the two
/// samples (0 for independent samples).
fn newcombe(p1: (f64, f64, f64), p2: (f64, f64, f64), phi: f64) -> DifferenceInterval {
    let ((x1, l1, u1), (x2, l2, u2)) = (p1, p2);
    let spread = |a: f64, b: f64| (a * a - 2.0 * phi * a * b + b * b).max(0.0).sqrt();
    let difference = x2 - x1;
    DifferenceInterval {
        difference,
        low: difference - spread(x2 - l2, u1 - x1),
        high: difference + spread(u2 - x2, x1 - l1),
    }
}

/// `x2/n - x1/n` as one quotient, `(x2 - x1) / n`: the difference of two
/// shares of the same battles rounded once, without the noise of a
/// difference of two rounded shares (`0.584 - 0.447` is
/// `0.13699999999999998`; `411 / 3000` is `0.137`).
fn share_difference(x1: u64, x2: u64, n: u64) -> f64 {
    (x2 as f64 - x1 as f64) / n.max(1) as f64
}

/// The interval of `x2/n2 - x1/n1` for two independent samples (Newcombe's
/// method 10).
pub fn unpaired_difference(x1: u64, n1: u64, x2: u64, n2: u64) -> DifferenceInterval {
    let point = |x: u64, n: u64| {
        let (lo, hi) = wilson(x, n, z95());
        (x as f64 / n.max(1) as f64, lo, hi)
    };
    let mut interval = newcombe(point(x1, n1), point(x2, n2), 0.0);
    if n1 == n2 {
        interval.difference = share_difference(x1, x2, n1);
    }
    interval
}

/// The interval of `p2 - p1` measured on the same `n` battles: the first
/// event happened in `x1` of them, the second in `x2`, both in `both`
/// (Newcombe's method 10 for paired proportions: the samples' correlation
/// as measured, a positive one corrected for continuity). With positively
/// correlated pairs, as common random numbers give, it is narrower than
/// [`unpaired_difference`]; with negatively correlated ones, wider.
pub fn paired_difference(n: u64, x1: u64, x2: u64, both: u64) -> DifferenceInterval {
    assert!(
        both <= x1.min(x2) && x1.max(x2) <= n,
        "counts of one sample"
    );
    let (a, b, c) = (both as f64, (x1 - both) as f64, (x2 - both) as f64);
    let d = n as f64 - a - b - c;
    let denominator = ((a + b) * (c + d) * (a + c) * (b + d)).sqrt();
    // Newcombe's correlation as measured. His continuity correction pulls a
    // positive one toward 0 (never past it); a negative one is kept as it
    // is, so pairs that move against each other widen the interval beyond
    // the unpaired one instead of being floored at it.
    let cross = a * d - b * c;
    let corrected = if cross > 0.0 {
        (cross - n as f64 / 2.0).max(0.0)
    } else {
        cross
    };
    let phi = if denominator > 0.0 {
        corrected / denominator
    } else {
        0.0
    };
    let point = |x: u64| {
        let (lo, hi) = wilson(x, n, z95());
        (x as f64 / n.max(1) as f64, lo, hi)
    };
    let mut interval = newcombe(point(x1), point(x2), phi);
    interval.difference = share_difference(x1, x2, n);
    interval
}

/// McNemar's statistic and two-sided p-value for paired battles in which
/// only the first variant had the event `only_first` times and only the
/// second `only_second` times (0 and 1 when no battle differs).
pub fn mcnemar(only_first: u64, only_second: u64) -> (f64, f64) {
    let discordant = (only_first + only_second) as f64;
    if discordant == 0.0 {
        return (0.0, 1.0);
    }
    let z = (only_second as f64 - only_first as f64) / discordant.sqrt();
    (z, 2.0 * Normal::standard().sf(z.abs()))
}

/// The two-proportion z-test of `x1` of `n1` against `x2` of `n2` as
/// independent samples (pooled standard error): the statistic and its
/// two-sided p-value (0 and 1 when the pooled share is 0 or 1).
pub fn two_proportion(x1: u64, n1: u64, x2: u64, n2: u64) -> (f64, f64) {
    let (n1, n2) = (n1 as f64, n2 as f64);
    let pooled = (x1 as f64 + x2 as f64) / (n1 + n2);
    let se = (pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2)).sqrt();
    if se.is_nan() || se <= 0.0 {
        return (0.0, 1.0);
    }
    let z = (x2 as f64 / n2 - x1 as f64 / n1) / se;
    (z, 2.0 * Normal::standard().sf(z.abs()))
}

/// Holm's step-down procedure: which of `p_values` are significant with
/// the family-wise error rate held at `alpha`.
pub fn holm(p_values: &[f64], alpha: f64) -> Vec<bool> {
    let mut order: Vec<usize> = (0..p_values.len()).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut significant = vec![false; p_values.len()];
    let m = p_values.len();
    for (k, &i) in order.iter().enumerate() {
        if p_values[i] < alpha / (m - k) as f64 {
            significant[i] = true;
        } else {
            break;
        }
    }
    significant
}

/// Asserts that `seen` counts of `trials` draws follow the `exact` law:
/// each outcome expected at least 10 times must have its probability inside
/// its Wilson interval, the rarer ones pooled into one bin (Wilson's
/// coverage fails for a handful of expected counts), family-wise at 0.001;
/// and no outcome outside the law may have been drawn.
#[cfg(test)]
pub fn assert_counts_follow<K: Ord + std::fmt::Debug>(
    exact: &std::collections::BTreeMap<K, f64>,
    seen: &std::collections::BTreeMap<K, u64>,
    trials: u64,
    what: &str,
) {
    let count = |k: &K| seen.get(k).copied().unwrap_or(0);
    let common = |p: f64| p * trials as f64 >= 10.0;
    let bins = exact.values().filter(|p| common(**p)).count() + 1;
    let z = z_for_confidence(1.0 - 0.001 / bins as f64);
    let (mut rare_p, mut rare_count) = (0.0, 0);
    for (k, &p) in exact {
        if !common(p) {
            rare_p += p;
            rare_count += count(k);
            continue;
        }
        let (lo, hi) = wilson(count(k), trials, z);
        assert!(
            lo <= p && p <= hi,
            "{what} {k:?}: exact {p}, simulated {lo}..{hi}"
        );
    }
    let (lo, hi) = wilson(rare_count, trials, z);
    assert!(
        lo <= rare_p && rare_p <= hi,
        "{what}, rare outcomes pooled: exact {rare_p}, simulated {lo}..{hi}"
    );
    assert!(
        seen.keys().all(|k| exact.contains_key(k)),
        "{what}: {seen:?}"
    );
}

/// Upper-tail probability of a chi-square statistic with `df` degrees of
/// freedom (accurate for tiny p-values, unlike 1 − cdf).
pub fn chi_square_sf(statistic: f64, df: usize) -> f64 {
    use statrs::distribution::ChiSquared;
    if df == 0 {
        return 1.0;
    }
    ChiSquared::new(df as f64)
        .map(|d| d.sf(statistic))
        .unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_of_shares_of_the_same_battles_is_rounded_once() {
        // 1,752 and 1,341 of 3,000: 0.584 − 0.447 would be 0.13699999999999998.
        assert_eq!(paired_difference(3000, 1341, 1752, 1300).difference, 0.137);
        assert_eq!(
            unpaired_difference(1341, 3000, 1752, 3000).difference,
            0.137
        );
        // The bounds are as before: from the two shares.
        let d = paired_difference(3000, 1341, 1752, 1300);
        assert!(d.low < 0.137 && 0.137 < d.high);
    }

    #[test]
    fn an_exact_sum_off_by_rounding_is_one_and_one_off_by_more_is_kept() {
        let rounded = Metric::categorical("battle", "w", &["a", "b"], &[0.6, 0.4000000000000016]);
        let sum: f64 = rounded.sum_rounded_to_one().weights.iter().sum();
        assert!((sum - 1.0).abs() < 1e-15, "{sum}");
        let wrong = Metric::categorical("battle", "w", &["a", "b"], &[0.6, 0.41]);
        assert_eq!(wrong.clone().sum_rounded_to_one(), wrong);
    }

    #[test]
    fn paired_intervals_match_newcombes_method_10() {
        // Hand-computed from Newcombe (1998) with the corrected phi:
        // 40 pairs, 8 in both, 2 only in the second, 8 only in the first.
        let d = paired_difference(40, 16, 10, 8);
        assert!((d.difference + 0.15).abs() < 1e-12);
        assert!((d.low + 0.297_240_489_346).abs() < 1e-9, "{d:?}");
        assert!((d.high - 0.006_878_749_293).abs() < 1e-9, "{d:?}");
        assert!(!d.excludes_zero());
        let d = paired_difference(1000, 510, 530, 500);
        assert!((d.low - 0.007_519_590_721).abs() < 1e-9, "{d:?}");
        assert!((d.high - 0.032_450_700_904).abs() < 1e-9, "{d:?}");
        assert!(d.excludes_zero());
        // The same counts from independent samples: a wider interval.
        let u = unpaired_difference(510, 1000, 530, 1000);
        assert!(u.high - u.low > 3.0 * (d.high - d.low), "{u:?} {d:?}");
        assert!(!u.excludes_zero());
    }

    #[test]
    fn holm_steps_down_until_the_first_failure() {
        // m = 4 at 0.05: thresholds 0.0125, 0.01667, 0.025, 0.05.
        assert_eq!(
            holm(&[0.04, 0.001, 0.015, 0.03], 0.05),
            [false, true, true, false]
        );
        // The second smallest misses its threshold: the rest fail too.
        assert_eq!(holm(&[0.001, 0.03, 0.031], 0.05), [true, false, false]);
        assert_eq!(holm(&[0.001, 0.02, 0.021], 0.05), [true, true, true]);
        assert!(holm(&[], 0.05).is_empty());
    }

    #[test]
    fn two_proportions_match_a_hand_computed_z() {
        // 40 of 100 against 60 of 100: pooled 0.5, se = sqrt(0.25 · 0.02),
        // z = 0.2 / 0.0707107 = 2.828427, p = 0.004678.
        let (z, p) = two_proportion(40, 100, 60, 100);
        assert!((z - 2.828_427_125).abs() < 1e-8, "{z}");
        assert!((p - 0.004_677_735).abs() < 1e-8, "{p}");
        assert_eq!(two_proportion(0, 10, 0, 10), (0.0, 1.0));
    }

    #[test]
    fn mcnemar_matches_the_normal_approximation() {
        // 10 vs 30 discordant: z = 20 / sqrt(40) = 3.1623, p = 0.001565.
        let (z, p) = mcnemar(10, 30);
        assert!((z - 3.162_277_660).abs() < 1e-9);
        assert!((p - 0.001_565_402).abs() < 1e-8, "{p}");
        assert_eq!(mcnemar(0, 0), (0.0, 1.0));
    }

    #[test]
    fn negatively_correlated_pairs_widen_the_interval() {
        // 100 pairs, 30 events in each sample and none in both: phi =
        // -900 / 2100 = -3/7, uncorrected (Newcombe corrects only AD > BC).
        // Hand-computed from his formula: ±0.149716605458.
        let d = paired_difference(100, 30, 30, 0);
        assert!(d.difference.abs() < 1e-12);
        assert!((d.low + 0.149_716_605_458).abs() < 1e-9, "{d:?}");
        assert!((d.high - 0.149_716_605_458).abs() < 1e-9, "{d:?}");
        let u = unpaired_difference(30, 100, 30, 100);
        assert!((u.low + 0.125_523_831_492).abs() < 1e-9, "{u:?}");
        assert!(d.high - d.low > u.high - u.low, "{d:?} {u:?}");
    }

    #[test]
    fn clopper_pearson_matches_textbook_bounds() {
        // 0 of 10 at 95%: upper 1 - 0.025^(1/10) = 0.30850.
        let (lo, hi) = clopper_pearson(0, 10, 0.95);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.308_497).abs() < 1e-5, "{hi}");
        // 1 of 1,000,000 at 99.9%: the lower bound is about 0.0005 / n.
        let (lo, _) = clopper_pearson(1, 1_000_000, 0.999);
        assert!((lo / 5.0e-10 - 1.0).abs() < 0.01, "{lo}");
        // 5 of 20 at 95%: 0.08657 to 0.49105.
        let (lo, hi) = clopper_pearson(5, 20, 0.95);
        assert!(
            (lo - 0.086_57).abs() < 1e-4 && (hi - 0.491_05).abs() < 1e-4,
            "{lo} {hi}"
        );
    }

    #[test]
    fn z95_is_the_textbook_value() {
        assert!((z95() - 1.959_963_985).abs() < 1e-8);
        assert!((z_for_confidence(0.999) - 3.290_526_731).abs() < 1e-8);
    }

    #[test]
    fn wilson_matches_a_hand_computed_interval() {
        // 50 of 100 at z = 1.96: centre 0.5, half-width 0.0961 (textbook).
        let (lo, hi) = wilson(50, 100, 1.96);
        assert!((lo - 0.4038).abs() < 1e-4, "{lo}");
        assert!((hi - 0.5962).abs() < 1e-4, "{hi}");
    }

    #[test]
    fn wilson_stays_inside_the_unit_interval() {
        for (k, n) in [(0, 10), (10, 10), (0, 1), (1, 1), (3, 1_000_000_000)] {
            let (lo, hi) = wilson(k, n, 3.29);
            assert!((0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi));
            assert!(lo <= k as f64 / n as f64 && k as f64 / n as f64 <= hi);
        }
    }

    #[test]
    fn summary_of_a_small_histogram() {
        // values 1,2,2,3 (first = 1): mean 2, sample sd sqrt(2/3).
        let s = summarize(1, &[1, 2, 1]).unwrap();
        assert_eq!(s.trials, 4);
        assert!((s.mean - 2.0).abs() < 1e-12);
        assert!((s.std_dev - (2.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!((s.p05, s.p50, s.p95), (1, 2, 3));
    }

    #[test]
    fn a_means_interval_stays_inside_the_possible_values() {
        // One battle in a thousand loses 1 HP: the normal interval would
        // reach below 0; hp lost never does.
        let s = summarize(0, &[999, 1, 0, 0]).unwrap();
        assert!((s.mean - 0.001).abs() < 1e-12);
        assert_eq!(s.ci_low, 0.0);
        assert!(s.ci_high > s.mean);
        // Nearly always the top value: the interval stops at it.
        let s = summarize(0, &[1, 999]).unwrap();
        assert_eq!(s.ci_high, 1.0);
        assert!(s.ci_low < s.mean);
    }

    #[test]
    fn summary_with_negative_values() {
        let s = summarize(-2, &[1, 0, 0, 0, 1]).unwrap();
        assert!((s.mean - 0.0).abs() < 1e-12);
        assert_eq!((s.p05, s.p50, s.p95), (-2, -2, 2));
    }

    #[test]
    fn reported_bins_trim_empty_integer_tails_but_keep_categories() {
        let m = Metric::integers("battle", "x", 0, &[0u64, 3, 0, 2, 0]);
        assert_eq!(m.reported_bins(|w| w == 0), 1..4);
        let c = Metric::categorical("battle", "y", &["a", "b"], &[0u64, 0]);
        assert_eq!(c.reported_bins(|w| w == 0), 0..2);
    }

    #[test]
    fn chi_square_tail_known_values() {
        // P(chi2_4 > 9.4877) = 0.05.
        assert!((chi_square_sf(9.487_729, 4) - 0.05).abs() < 1e-6);
        assert!(chi_square_sf(200.0, 4) > 0.0);
    }
}

//! Significance of the differences between variants: per outcome, McNemar's
//! test on paired battles (variants fought on the same streams) or else a
//! two-proportion z-test; chi-square tests of homogeneity per categorical
//! metric; on the means of numeric metrics, the t-test on the
//! battle-by-battle differences of paired battles, or else Welch's.

use crate::stats::paired_mean::PairedSums;
use crate::stats::special::t_two_sided_p;
use crate::stats::{
    Metric, MetricRole, Values, chi_square_sf, mcnemar, paired_difference, two_proportion,
    unpaired_difference, z95,
};

/// Family-wise significance level; each test is judged at this over the
/// number of tests (Bonferroni).
pub const FAMILY_ALPHA: f64 = 0.05;

/// Battles in which two variants fought on the same streams both had one
/// category of a metric.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SharedCount {
    /// Subject.
    pub subject: String,
    /// Metric.
    pub metric: String,
    /// Category label.
    pub value: String,
    /// Battles in which both had it.
    pub battles: u64,
}

/// The battle-by-battle differences of one numeric metric between a
/// variant and the first, fought on the same streams: what pairs a
/// comparison of their means.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PairedMean {
    /// Subject.
    pub subject: String,
    /// Metric.
    pub metric: String,
    /// The sums of the differences (variant − first).
    pub sums: PairedSums,
}

/// One test of a variant against the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// Subject.
    pub subject: String,
    /// Metric.
    pub metric: String,
    /// Value label, `*` for a whole-distribution test, `mean` for a test
    /// of means.
    pub value: String,
    /// `mcnemar` or `paired_t` (paired), `two_proportion_z`, `chi_square`
    /// or `welch_t`.
    pub test: &'static str,
    /// How the interval of the difference was found: `paired_newcombe` or
    /// `paired_t` (from the battle-by-battle pairs;
    /// `paired_t_constant_difference` when every battle changed by the same
    /// amount, whose statistic is infinite and left empty), `unpaired_wald`
    /// or `welch` (as if the samples were independent), `none` for
    /// chi-square.
    pub method: &'static str,
    /// The baseline's estimate (proportion or mean; NaN for chi-square).
    pub baseline: f64,
    /// The variant's estimate.
    pub estimate: f64,
    /// estimate − baseline, with its 95% interval.
    pub difference: (f64, f64, f64),
    /// Test statistic.
    pub statistic: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// What pairing bought, for a test on paired battles.
    pub pairs: Option<Pairs>,
}

impl Difference {
    /// What the test compares: `value` (one value's share), `mean` (the
    /// means) or `distribution` (every value at once, chi-square).
    pub fn scope(&self) -> &'static str {
        match self.test {
            "chi_square" => "distribution",
            "welch_t" | "paired_t" => "mean",
            _ => "value",
        }
    }

    /// The value whose share is tested; `None` for a mean or a whole
    /// distribution (the files leave it empty).
    pub fn value_tested(&self) -> Option<&str> {
        (self.scope() == "value").then_some(self.value.as_str())
    }
}

/// What pairing the battles bought one paired test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pairs {
    /// Battles in which the event happened in one variant and not the
    /// other: 0 says the change left it the same in every battle.
    pub discordant: u64,
    /// The width the interval would have from two independent runs of as
    /// many battles, over the paired interval's width; NaN (written empty)
    /// when no battle changed.
    pub width_ratio: f64,
}

/// Every test between a baseline and a variant, metric by metric. A
/// category with a count in `shared` (battles both had it, when the two
/// were fought on the same streams) is tested on its pairs: McNemar's test
/// and Newcombe's paired interval; the rest as independent samples. A
/// numeric metric is tested on its mean (on the pairs' differences where
/// `means` has them, else Welch); a categorical one on its whole
/// distribution (chi-square) and value by value.
pub fn differences(
    baseline: &[Metric<u64>],
    variant: &[Metric<u64>],
    (shared, means): (&[SharedCount], &[PairedMean]),
) -> Vec<Difference> {
    tests_of(baseline, variant, (shared, means), Scope::Outcomes)
}

/// What [`tests_of`] tests of a numeric metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// The outcomes a comparison reports: a numeric metric's mean only.
    Outcomes,
    /// The whole law, for proving two samplers equal: every metric also
    /// value by value and by chi-square with its rare values pooled.
    WholeLaw,
}

/// Values met fewer times than this in both samples together are pooled
/// into one cell of a [`Scope::WholeLaw`] chi-square (each cell then
/// expects about five or more in either sample).
const RARE: u64 = 10;

fn tests_of(
    baseline: &[Metric<u64>],
    variant: &[Metric<u64>],
    (shared, means): (&[SharedCount], &[PairedMean]),
    scope: Scope,
) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut victory_tested = false;
    for b in baseline {
        // One side's victory says the other's: testing both would count
        // one difference twice and widen the family-wise correction.
        if scope == Scope::Outcomes && matches!(b.role, MetricRole::Victory { .. }) {
            if victory_tested {
                continue;
            }
            victory_tested = true;
        }
        let Some((b, v)) = variant
            .iter()
            .find(|m| m.subject == b.subject && m.name == b.name)
            .and_then(|v| aligned(b, v))
        else {
            continue;
        };
        let (b, v) = (&b, &v);
        if b.total() == 0 || v.total() == 0 {
            continue;
        }
        if b.is_numeric() {
            let paired = means
                .iter()
                .find(|m| m.subject == b.subject && m.metric == b.name)
                .and_then(|m| paired_t(b, v, m));
            out.push(paired.unwrap_or_else(|| welch(b, v)));
            if scope == Scope::Outcomes {
                continue;
            }
        }
        // Two outcomes (no or yes, won or lost) are one question: its one
        // test, of the outcome that matters, not three.
        if scope == Scope::Outcomes && b.weights.len() == 2 {
            let asked = match b.role {
                MetricRole::Victory { .. } | MetricRole::Winner { .. } => 0,
                _ => 1,
            };
            out.extend(
                per_value(b, v, shared)
                    .into_iter()
                    .filter(|d| d.value == b.label(asked)),
            );
            continue;
        }
        let pool_below = match scope {
            Scope::Outcomes => 0,
            Scope::WholeLaw => RARE,
        };
        out.push(chi_square(b, v, pool_below));
        out.extend(per_value(b, v, shared));
    }
    out
}

/// Welch's t-test of two numeric metrics' means (as independent samples).
pub fn welch(b: &Metric<u64>, v: &Metric<u64>) -> Difference {
    let (n1, n2) = (b.total() as f64, v.total() as f64);
    let (s1, s2) = (
        b.summary().expect("a numeric metric with counts"),
        v.summary().expect("a numeric metric with counts"),
    );
    let (v1, v2) = (s1.std_dev.powi(2) / n1, s2.std_dev.powi(2) / n2);
    let se = (v1 + v2).sqrt();
    let diff = s2.mean - s1.mean;
    let (t, p) = if se > 0.0 {
        let t = diff / se;
        let df = (v1 + v2).powi(2) / (v1 * v1 / (n1 - 1.0) + v2 * v2 / (n2 - 1.0));
        let p = t_two_sided_p(t, df.max(1.0));
        (t, p)
    } else {
        (0.0, if diff == 0.0 { 1.0 } else { 0.0 })
    };
    Difference {
        subject: b.subject.clone(),
        metric: b.name.clone(),
        value: "mean".into(),
        test: "welch_t",
        method: "welch",
        baseline: s1.mean,
        estimate: s2.mean,
        difference: (diff, diff - z95() * se, diff + z95() * se),
        statistic: t,
        p_value: p,
        pairs: None,
    }
}

/// The t-test of two numeric metrics' means on the battle-by-battle
/// differences of battles fought on the same streams; `None` when fewer
/// than two battles pair.
fn paired_t(b: &Metric<u64>, v: &Metric<u64>, pairs: &PairedMean) -> Option<Difference> {
    let found = pairs.sums.means()?;
    let unpaired = welch(b, v);
    let d = found.difference;
    let width = d.high - d.low;
    let unpaired_width = unpaired.difference.2 - unpaired.difference.1;
    // Every battle changed by the same amount: the difference is certain
    // and t is infinite, which no file writes; its method says why the
    // statistic is empty.
    let (method, statistic) = if found.statistic.is_finite() {
        ("paired_t", found.statistic)
    } else {
        ("paired_t_constant_difference", f64::NAN)
    };
    Some(Difference {
        test: "paired_t",
        method,
        difference: (d.difference, d.low, d.high),
        statistic,
        p_value: found.p_value,
        pairs: Some(Pairs {
            discordant: pairs.sums.changed,
            // No battle changed: a ratio of two noises says nothing.
            width_ratio: if width > 0.0 && pairs.sums.changed > 0 {
                unpaired_width / width
            } else {
                f64::NAN
            },
        }),
        ..unpaired
    })
}

/// Chi-square test of homogeneity over the values either sample reached;
/// values met fewer than `pool_below` times in both together share one
/// cell.
fn chi_square(b: &Metric<u64>, v: &Metric<u64>, pool_below: u64) -> Difference {
    let (n1, n2) = (b.total() as f64, v.total() as f64);
    let mut cells: Vec<(u64, u64)> = Vec::new();
    let mut rare = (0u64, 0u64);
    for (&x, &y) in b.weights.iter().zip(&v.weights) {
        if x + y == 0 {
            continue;
        }
        if x + y < pool_below {
            rare = (rare.0 + x, rare.1 + y);
        } else {
            cells.push((x, y));
        }
    }
    if rare.0 + rare.1 > 0 {
        cells.push(rare);
    }
    let mut statistic = 0.0;
    for &(x, y) in &cells {
        let column = (x + y) as f64;
        let e1 = column * n1 / (n1 + n2);
        let e2 = column * n2 / (n1 + n2);
        statistic += (x as f64 - e1).powi(2) / e1 + (y as f64 - e2).powi(2) / e2;
    }
    let df = cells.len().max(1) - 1;
    Difference {
        subject: b.subject.clone(),
        metric: b.name.clone(),
        value: "*".into(),
        test: "chi_square",
        method: "none",
        baseline: f64::NAN,
        estimate: f64::NAN,
        difference: (f64::NAN, f64::NAN, f64::NAN),
        statistic,
        p_value: chi_square_sf(statistic, df),
        pairs: None,
    }
}

/// Each value either sample reached, on its pairs where `shared` counts
/// them, else as independent samples.
fn per_value(b: &Metric<u64>, v: &Metric<u64>, shared: &[SharedCount]) -> Vec<Difference> {
    let (n1, n2) = (b.total() as f64, v.total() as f64);
    let mut out = Vec::new();
    for bin in 0..b.weights.len() {
        let (x1, x2) = (b.weights[bin], v.weights[bin]);
        if x1 == 0 && x2 == 0 {
            continue;
        }
        let label = b.label(bin);
        let both = shared
            .iter()
            .find(|s| s.subject == b.subject && s.metric == b.name && s.value == label)
            .map(|s| s.battles);
        out.push(match both {
            Some(both) if n1 == n2 => paired_test(b, &label, n1 as u64, x1, x2, both),
            _ => unpaired_test(b, &label, (x1, n1), (x2, n2)),
        });
    }
    out
}

/// Two variants' counts of one metric over the union of their values: a
/// label one variant never has (a Spoils row only one table holds) counts
/// 0 there; integer ranges are widened to cover both. `None` when one is
/// categorical and the other numeric (nothing to compare value by value).
pub fn aligned(b: &Metric<u64>, v: &Metric<u64>) -> Option<(Metric<u64>, Metric<u64>)> {
    match (&b.values, &v.values) {
        (Values::Categories(lb), Values::Categories(lv)) => {
            let mut labels = lb.clone();
            labels.extend(lv.iter().filter(|l| !lb.contains(l)).cloned());
            let spread = |m: &Metric<u64>, own: &[String]| -> Metric<u64> {
                let weights: Vec<u64> = labels
                    .iter()
                    .map(|l| own.iter().position(|o| o == l).map_or(0, |i| m.weights[i]))
                    .collect();
                Metric {
                    values: Values::Categories(labels.clone()),
                    weights,
                    ..m.clone()
                }
            };
            Some((spread(b, lb), spread(v, lv)))
        }
        (&Values::Integers { first: fb }, &Values::Integers { first: fv }) => {
            let first = fb.min(fv);
            let end = (fb + b.weights.len() as i64).max(fv + v.weights.len() as i64);
            let spread = |m: &Metric<u64>, own: i64| -> Metric<u64> {
                let mut weights = vec![0; (end - first) as usize];
                let at = (own - first) as usize;
                weights[at..at + m.weights.len()].copy_from_slice(&m.weights);
                Metric {
                    values: Values::Integers { first },
                    weights,
                    ..m.clone()
                }
            };
            Some((spread(b, fb), spread(v, fv)))
        }
        _ => None,
    }
}

/// The metrics one of two variants reports and the other does not (or
/// reports as another kind of value): `subject/metric`, untested.
pub fn untested(baseline: &[Metric<u64>], variant: &[Metric<u64>]) -> Vec<String> {
    let comparable = |m: &Metric<u64>, others: &[Metric<u64>]| {
        others
            .iter()
            .any(|o| o.subject == m.subject && o.name == m.name && aligned(m, o).is_some())
    };
    let mut out: Vec<String> = baseline
        .iter()
        .filter(|m| !comparable(m, variant))
        .chain(variant.iter().filter(|m| !comparable(m, baseline)))
        .map(|m| format!("{}/{}", m.subject, m.name))
        .collect();
    out.dedup();
    out
}

/// McNemar's test of one category on paired battles, with Newcombe's
/// paired interval of the difference.
fn paired_test(b: &Metric<u64>, label: &str, n: u64, x1: u64, x2: u64, both: u64) -> Difference {
    let (z, p_value) = mcnemar(x1 - both, x2 - both);
    let discordant = x1 + x2 - 2 * both;
    let d = paired_difference(n, x1, x2, both);
    let unpaired = unpaired_difference(x1, n, x2, n);
    let width = d.high - d.low;
    Difference {
        subject: b.subject.clone(),
        metric: b.name.clone(),
        value: label.to_owned(),
        test: "mcnemar",
        method: "paired_newcombe",
        baseline: x1 as f64 / n as f64,
        estimate: x2 as f64 / n as f64,
        difference: (d.difference, d.low, d.high),
        statistic: z,
        p_value,
        pairs: Some(Pairs {
            discordant,
            // No battle changed: a ratio of two noises says nothing.
            width_ratio: if width > 0.0 && discordant > 0 {
                (unpaired.high - unpaired.low) / width
            } else {
                f64::NAN
            },
        }),
    }
}

/// The two-proportion z-test of one category between independent samples.
fn unpaired_test(
    b: &Metric<u64>,
    label: &str,
    (x1, n1): (u64, f64),
    (x2, n2): (u64, f64),
) -> Difference {
    let (p1, p2) = (x1 as f64 / n1, x2 as f64 / n2);
    let se = (p1 * (1.0 - p1) / n1 + p2 * (1.0 - p2) / n2).sqrt();
    let diff = p2 - p1;
    let (z, p_value) = two_proportion(x1, n1 as u64, x2, n2 as u64);
    Difference {
        subject: b.subject.clone(),
        metric: b.name.clone(),
        value: label.to_owned(),
        test: "two_proportion_z",
        method: "unpaired_wald",
        baseline: p1,
        estimate: p2,
        difference: (diff, diff - z95() * se, diff + z95() * se),
        statistic: z,
        p_value,
        pairs: None,
    }
}

/// Every test of one variant against the baseline, judged family-wise.
#[derive(Debug, Clone, PartialEq)]
pub struct Tests {
    /// Each test, in metric order (the order of `comparison.csv`).
    pub all: Vec<Difference>,
    /// The per-test threshold (Bonferroni over the tests `all` holds
    /// once: a repeat is not counted again).
    pub alpha: f64,
    /// Per test of `all`: whether it repeats an earlier one (a `--target`
    /// asking one value of an outcome that is tested already, such as
    /// `side:A/victory=won`): listed in comparison.csv under the name
    /// asked, never counted or listed as significant a second time.
    pub repeats: Vec<bool>,
    /// Metrics only one of the two reports (`subject/metric`): not tested,
    /// so never counted as "no difference".
    pub untested: Vec<String>,
}

impl Tests {
    /// Tests a variant's metrics against the baseline's (on their pairs
    /// where `pairs` counts them).
    pub fn new(
        baseline: &[Metric<u64>],
        variant: &[Metric<u64>],
        pairs: (&[SharedCount], &[PairedMean]),
    ) -> Tests {
        let all = differences(baseline, variant, pairs);
        let repeats = repeats(baseline, &all);
        let alpha = threshold(repeats.iter().filter(|r| !**r).count());
        let untested = untested(baseline, variant);
        Tests {
            all,
            alpha,
            repeats,
            untested,
        }
    }

    /// How many tests the family counts: each once.
    pub fn counted(&self) -> usize {
        self.repeats.iter().filter(|r| !**r).count()
    }

    /// Whether one test is significant at the family-wise level.
    pub fn is_significant(&self, d: &Difference) -> bool {
        d.p_value < self.alpha
    }

    /// The significant tests, smallest p-value first. Every place that
    /// counts or lists them (console, report, CSV) uses this list.
    pub fn significant(&self) -> Vec<&Difference> {
        let mut out: Vec<&Difference> = self
            .all
            .iter()
            .zip(&self.repeats)
            .filter(|(d, repeat)| !**repeat && self.is_significant(d))
            .map(|(d, _)| d)
            .collect();
        out.sort_by(|a, b| a.p_value.total_cmp(&b.p_value));
        out
    }
}

impl Difference {
    /// What was tested, in words: `side:A/victory = won` or
    /// `side:A/victory (whole distribution)`.
    pub fn outcome(&self) -> String {
        match self.test {
            "chi_square" => format!("{}/{} (whole distribution)", self.subject, self.metric),
            "welch_t" => format!("{}/{} (mean)", self.subject, self.metric),
            _ => format!("{}/{} = {}", self.subject, self.metric, self.value),
        }
    }

    /// Whether its difference is smaller than `min_effect` (percentage
    /// points for a proportion, the outcome's own units for a mean): too
    /// small to matter, however sure it is. A chi-square test has no
    /// difference to measure: `None`.
    pub fn below(&self, min_effect: f64) -> Option<bool> {
        (self.test != "chi_square").then(|| self.difference.0.abs() * self.scale().0 < min_effect)
    }

    /// Scale and unit for printing the estimates: percent for proportions.
    pub fn scale(&self) -> (f64, &'static str) {
        if matches!(self.test, "two_proportion_z" | "mcnemar") {
            (100.0, "%")
        } else {
            (1.0, "")
        }
    }
}

/// A p-value as a person reads it, three significant digits: in decimals
/// from 0.001 up (`0.0468`), as a power of ten below (`8.42 × 10⁻³¹`, never
/// `8.42e-31`); at or below [`P_FLOOR`] (a tail the normal and chi-square
/// survival functions underflow in) the bound, `< 10⁻³⁰⁰`, so the CSV's
/// `1e-300` ([`reported_p`]) reads the same. `comparison.csv` holds the
/// number itself.
pub fn format_p(p: f64) -> String {
    if p <= P_FLOOR {
        return format!("< {}", power_of_ten(P_FLOOR.log10().round() as i32));
    }
    if p >= 1e-3 {
        let places = (2 - p.log10().floor() as i32).max(0) as usize;
        return format!("{p:.places$}");
    }
    let text = format!("{p:.2e}");
    let (digits, exponent) = text.split_once('e').expect("a number in e notation");
    let exponent: i32 = exponent.parse().expect("a whole exponent");
    format!("{digits} \u{d7} {}", power_of_ten(exponent))
}

/// `10` raised to `exponent`, written with superscript digits and a true
/// minus: `10⁻³¹`.
fn power_of_ten(exponent: i32) -> String {
    const SUPERSCRIPT: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let sign = if exponent < 0 { "\u{207b}" } else { "" };
    let digits: String = (exponent.unsigned_abs().to_string().chars())
        .map(|d| SUPERSCRIPT[d.to_digit(10).expect("a digit") as usize])
        .collect();
    format!("10{sign}{digits}")
}

/// A p-value as the tables write it: never 0, which no finite number of
/// battles can show; one below [`P_FLOOR`] is written as that bound.
pub fn reported_p(p: f64) -> f64 {
    p.max(P_FLOOR)
}

/// The smallest p-value printed or written: below it, the bound.
pub const P_FLOOR: f64 = 1e-300;

/// The tests between two samples that fail at the family-wise level
/// `family_alpha` (Bonferroni over every test): empty when the samples
/// could well come from one law. Every metric's whole law is tested (each
/// value, a chi-square with rare values pooled, and a numeric metric's
/// mean), so a shift in a tail or a rounding error shows, not only one in
/// a mean. Used to prove a fast path equal to its reference.
pub fn disagreements(a: &[Metric<u64>], b: &[Metric<u64>], family_alpha: f64) -> Vec<Difference> {
    let all = tests_of(a, b, (&[], &[]), Scope::WholeLaw);
    let alpha = family_alpha / all.len().max(1) as f64;
    all.into_iter().filter(|d| d.p_value < alpha).collect()
}

/// Per test of `all`: whether it is a target's (a metric of `baseline`
/// with [`MetricRole::Target`]) that asks one value of an outcome whose
/// share of that value is tested already (`victory=won` beside
/// `victory` = won): the same test under another name.
fn repeats(baseline: &[Metric<u64>], all: &[Difference]) -> Vec<bool> {
    let same_test = |d: &Difference, subject: &str, metric: &str, value: &str| {
        d.subject == subject && d.metric == metric && d.value == value && d.scope() == "value"
    };
    all.iter()
        .map(|d| {
            let is_target = baseline.iter().any(|m| {
                m.role == MetricRole::Target && m.subject == d.subject && m.name == d.metric
            });
            let Some((metric, value)) = d.metric.split_once('=') else {
                return false;
            };
            is_target
                && d.value == YES
                && d.scope() == "value"
                && !metric.ends_with(['<', '>', '!'])
                && !value.contains('|')
                && all.iter().any(|e| same_test(e, &d.subject, metric, value))
        })
        .collect()
}

/// The value a target's yes/no outcome is tested at.
const YES: &str = "yes";

/// The per-test threshold for `tests` tests at [`FAMILY_ALPHA`].
pub fn threshold(tests: usize) -> f64 {
    FAMILY_ALPHA / tests.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(weights: &[u64]) -> Metric<u64> {
        Metric::categorical("battle", "winner", &["a", "b"], weights)
    }

    fn m3(weights: &[u64]) -> Metric<u64> {
        Metric::categorical("battle", "end", &["a", "b", "c"], weights)
    }

    /// Every test of a whole law, a two-outcome metric's three included.
    fn whole_law(b: &[Metric<u64>], v: &[Metric<u64>], shared: &[SharedCount]) -> Vec<Difference> {
        tests_of(b, v, (shared, &[]), Scope::WholeLaw)
    }

    #[test]
    fn identical_counts_show_no_difference() {
        let d = differences(&[m3(&[500, 400, 100])], &[m3(&[500, 400, 100])], (&[], &[]));
        assert_eq!(d.len(), 4);
        assert!(d.iter().all(|x| (x.p_value - 1.0).abs() < 1e-12), "{d:?}");
    }

    #[test]
    fn two_outcomes_are_one_test_and_one_sides_victory_says_the_others() {
        let party = |w: [u64; 2]| Metric::categorical("party", "any_out", &["no", "yes"], &w);
        let d = differences(&[party([600, 400])], &[party([500, 500])], (&[], &[]));
        let asked: Vec<(&str, &str)> = d.iter().map(|x| (x.test, x.value.as_str())).collect();
        assert_eq!(asked, [("two_proportion_z", "yes")]);
        let side = |name: &str, w: [u64; 3]| {
            Metric::categorical(
                &format!("side:{name}"),
                "victory",
                &["won", "lost", "draw"],
                &w,
            )
            .with_role(MetricRole::Victory {
                side: name.to_owned(),
            })
        };
        let base = [side("A", [500, 400, 100]), side("B", [400, 500, 100])];
        let variant = [side("A", [600, 300, 100]), side("B", [300, 600, 100])];
        let d = differences(&base, &variant, (&[], &[]));
        assert!(d.iter().all(|x| x.subject == "side:A"), "{d:?}");
        assert_eq!(d.len(), 4, "chi-square and three values, once");
        // A battle that ends won or lost: its side's victory, one test.
        let two = |w: [u64; 2]| {
            Metric::categorical("side:A", "victory", &["won", "lost"], &w).with_role(
                MetricRole::Victory {
                    side: "A".to_owned(),
                },
            )
        };
        let d = differences(&[two([500, 500])], &[two([600, 400])], (&[], &[]));
        let asked: Vec<&str> = d.iter().map(|x| x.value.as_str()).collect();
        assert_eq!(asked, ["won"]);
    }

    #[test]
    fn a_textbook_two_proportion_test() {
        // 60/100 against 40/100: pooled 0.5, z = 0.2 / sqrt(0.25 · 0.02) = 2.828.
        let d = whole_law(&[m(&[40, 60])], &[m(&[60, 40])], &[]);
        let a = d.iter().find(|x| x.value == "a").unwrap();
        assert!((a.statistic - 2.828_427).abs() < 1e-5);
        assert!((a.p_value - 0.004_678).abs() < 1e-5);
        // The 2×2 chi-square equals z².
        let chi = d.iter().find(|x| x.test == "chi_square").unwrap();
        assert!((chi.statistic - 8.0).abs() < 1e-9);
    }

    #[test]
    fn tiny_p_values_are_not_printed_as_zero() {
        assert_eq!(format_p(0.0), "< 10⁻³⁰⁰");
        assert_eq!(format_p(1e-301), "< 10⁻³⁰⁰");
        assert_eq!(format_p(3.2e-45), "3.20 × 10⁻⁴⁵");
        assert_eq!(format_p(8.4213e-31), "8.42 × 10⁻³¹");
        assert_eq!(reported_p(0.0), 1e-300);
        // The CSV's bound reads as the bound, as the page writes it.
        assert_eq!(format_p(reported_p(0.0)), format_p(0.0));
        assert_eq!(reported_p(3.2e-45), 3.2e-45);
        assert_eq!(format_p(0.004_678), "0.00468");
        assert_eq!(format_p(0.046_81), "0.0468");
        assert_eq!(format_p(0.534_2), "0.534");
        assert_eq!(format_p(1.0), "1.00");
        assert_eq!(format_p(0.001), "0.00100");
        assert_eq!(format_p(0.000_999_9), "1.00 × 10⁻³");
    }

    #[test]
    fn the_significant_list_is_the_counted_list() {
        let a = [
            m3(&[400, 500, 100]),
            Metric::integers("battle", "rounds", 0, &[0, 500, 500]),
        ];
        let b = [
            m3(&[600, 300, 100]),
            Metric::integers("battle", "rounds", 0, &[0, 300, 700]),
        ];
        let t = Tests::new(&a, &b, (&[], &[]));
        let sig = t.significant();
        assert_eq!(
            sig.len(),
            t.all.iter().filter(|d| d.p_value < t.alpha).count()
        );
        assert!(sig.iter().any(|d| d.test == "chi_square"));
        assert!(sig.windows(2).all(|w| w[0].p_value <= w[1].p_value));
    }

    #[test]
    fn a_target_repeating_a_tested_outcome_is_counted_once() {
        let victory = |w: &[u64]| {
            Metric::categorical("side:A", "victory", &["won", "lost"], w)
                .with_role(MetricRole::Victory { side: "A".into() })
        };
        let target = |w: &[u64]| {
            Metric::categorical("side:A", "victory=won", &["no", "yes"], &[w[1], w[0]])
                .with_role(MetricRole::Target)
        };
        let other = |w: &[u64]| {
            Metric::categorical("side:A", "victory=lost", &["no", "yes"], &[w[0], w[1]])
                .with_role(MetricRole::Target)
        };
        let (a, b) = ([560, 440], [600, 400]);
        let alone = Tests::new(&[victory(&a)], &[victory(&b)], (&[], &[]));
        let asked = Tests::new(
            &[victory(&a), target(&a), other(&a)],
            &[victory(&b), target(&b), other(&b)],
            (&[], &[]),
        );
        // `victory=won` is the test of `victory` = won again; `victory=lost`
        // is a test of its own.
        assert_eq!(asked.all.len(), 3);
        assert_eq!(asked.repeats, [false, true, false]);
        assert_eq!(asked.counted(), alone.counted() + 1);
        assert_eq!(asked.alpha, threshold(2));
        assert_eq!(asked.all[1].p_value, asked.all[0].p_value);
        // Significant once, under the outcome's own name.
        let (a, b) = ([300, 700], [700, 300]);
        let asked = Tests::new(
            &[victory(&a), target(&a)],
            &[victory(&b), target(&b)],
            (&[], &[]),
        );
        let listed: Vec<_> = asked
            .significant()
            .iter()
            .map(|d| d.metric.clone())
            .collect();
        assert_eq!(listed, ["victory"]);
    }

    #[test]
    fn shared_battles_make_a_paired_test() {
        // 1000 battles each; 580 against 600 "a", 570 of them shared: 10
        // battles went a -> b and 30 b -> a. McNemar z = 20 / sqrt(40).
        let shared = [SharedCount {
            subject: "battle".into(),
            metric: "winner".into(),
            value: "a".into(),
            battles: 570,
        }];
        let d = whole_law(&[m(&[580, 420])], &[m(&[600, 400])], &shared);
        let a = d.iter().find(|x| x.value == "a").unwrap();
        assert_eq!((a.test, a.method), ("mcnemar", "paired_newcombe"));
        assert!((a.statistic - 20.0 / 40f64.sqrt()).abs() < 1e-12);
        let b = d.iter().find(|x| x.value == "b").unwrap();
        assert_eq!(b.method, "unpaired_wald", "no shared count for b");
        // The same counts unpaired: a wider interval, a larger p.
        let u = whole_law(&[m(&[580, 420])], &[m(&[600, 400])], &[]);
        let ua = u.iter().find(|x| x.value == "a").unwrap();
        assert!(ua.difference.2 - ua.difference.1 > 2.0 * (a.difference.2 - a.difference.1));
        assert!(ua.p_value > a.p_value);
    }

    #[test]
    fn a_label_only_one_variant_has_is_tested_as_zero_on_the_other() {
        // The shipped Spoils table against one with a sixth row: the
        // baseline never lands on `hoard`, the variant does 5% of the time.
        let base = Metric::categorical("hero:A", "spoils", &["nothing", "purse"], &[800, 200]);
        let variant = Metric::categorical(
            "hero:A",
            "spoils",
            &["nothing", "hoard", "purse"],
            &[750, 50, 200],
        );
        let d = differences(
            std::slice::from_ref(&base),
            std::slice::from_ref(&variant),
            (&[], &[]),
        );
        let hoard = d.iter().find(|x| x.value == "hoard").expect("hoard tested");
        assert_eq!((hoard.baseline, hoard.estimate), (0.0, 0.05));
        assert!(hoard.p_value < 1e-6, "{hoard:?}");
        let nothing = d.iter().find(|x| x.value == "nothing").unwrap();
        assert!((nothing.baseline - 0.8).abs() < 1e-12);
        assert!(d.iter().any(|x| x.test == "chi_square"));
        assert!(untested(&[base], &[variant]).is_empty());
    }

    #[test]
    fn integer_ranges_of_different_reach_are_compared_value_by_value() {
        let a = Metric::integers("battle", "rounds", 1, &[50, 50]);
        let b = Metric::integers("battle", "rounds", 0, &[10, 40, 50]);
        let (x, y) = aligned(&a, &b).unwrap();
        assert_eq!(x.weights, vec![0, 50, 50]);
        assert_eq!(y.weights, vec![10, 40, 50]);
        assert_eq!(differences(&[a], &[b], (&[], &[])).len(), 1, "Welch's test");
    }

    #[test]
    fn a_metric_only_one_variant_reports_is_named_untested() {
        let a = [m(&[500, 500])];
        let b = [
            m(&[500, 500]),
            Metric::integers("hero:New", "hp_lost", 0, &[10, 0]),
        ];
        let t = Tests::new(&a, &b, (&[], &[]));
        assert_eq!(t.untested, vec!["hero:New/hp_lost".to_owned()]);
    }

    #[test]
    fn a_difference_that_never_varies_writes_no_infinite_statistic() {
        // Every one of 1,000 battles lost 2 hp more: certain, t infinite.
        let a = Metric::integers("hero:A", "hp_lost", 0, &[1000, 0, 0]);
        let b = Metric::integers("hero:A", "hp_lost", 0, &[0, 0, 1000]);
        let pairs = PairedMean {
            subject: "hero:A".into(),
            metric: "hp_lost".into(),
            sums: PairedSums {
                battles: 1000,
                changed: 1000,
                sum: 2000,
                squares: 4000,
            },
        };
        let d = differences(&[a], &[b], (&[], std::slice::from_ref(&pairs)));
        assert_eq!(d.len(), 1);
        assert!(d[0].statistic.is_nan(), "empty in every file: {:?}", d[0]);
        assert_eq!(d[0].method, "paired_t_constant_difference");
        assert_eq!(d[0].p_value, 0.0);
        assert_eq!(d[0].difference, (2.0, 2.0, 2.0));
    }

    #[test]
    fn welch_on_a_textbook_case() {
        // {0, 2} against {4, 6}: means 1 and 5, variances 2 and 2, so
        // t = 4 / sqrt(2/2 + 2/2) = 2.8284 on df = 2, where Student's t has
        // the closed form P(|T| > t) = 1 - t / sqrt(2 + t²) = 0.105573.
        let a = Metric::integers("battle", "x", 0, &[1, 0, 1, 0, 0, 0, 0]);
        let b = Metric::integers("battle", "x", 0, &[0, 0, 0, 0, 1, 0, 1]);
        let d = differences(&[a], &[b], (&[], &[]));
        assert_eq!(d.len(), 1);
        let t = 8f64.sqrt();
        assert!((d[0].statistic - t).abs() < 1e-12, "{:?}", d[0]);
        let p = 1.0 - t / (2.0 + t * t).sqrt();
        assert!(
            (d[0].p_value - p).abs() < 1e-9,
            "{} against {p}",
            d[0].p_value
        );
        assert!((d[0].difference.0 - 4.0).abs() < 1e-12);
    }

    #[test]
    fn the_whole_law_test_sees_a_change_that_keeps_the_mean() {
        // Same mean (2), another spread: Welch's test alone sees nothing.
        let a = Metric::integers("hero:A", "hp_lost", 0, &[0, 0, 100_000, 0, 0]);
        let b = Metric::integers("hero:A", "hp_lost", 0, &[2_000, 0, 96_000, 0, 2_000]);
        let means = differences(
            std::slice::from_ref(&a),
            std::slice::from_ref(&b),
            (&[], &[]),
        );
        assert_eq!(means.len(), 1);
        assert!(means[0].p_value > 0.5, "{:?}", means[0]);
        let bad = disagreements(&[a], &[b], 0.001);
        assert!(bad.iter().any(|d| d.test == "chi_square"), "{bad:?}");
        assert!(bad.iter().any(|d| d.value == "4"), "{bad:?}");
    }

    #[test]
    fn rare_values_are_pooled_in_the_whole_law_chi_square() {
        // Values met 1-3 times in both samples together share one cell:
        // (300, 300) and the pooled (3, 4): df = 1, a tiny statistic.
        let a = Metric::integers("battle", "rounds", 0, &[300, 1, 1, 1]);
        let b = Metric::integers("battle", "rounds", 0, &[300, 0, 1, 3]);
        let all = tests_of(&[a], &[b], (&[], &[]), Scope::WholeLaw);
        let chi = all.iter().find(|d| d.test == "chi_square").unwrap();
        let (n1, n2) = (303.0, 304.0);
        let expected = |c: f64, x: f64, y: f64| {
            let (e1, e2) = (c * n1 / (n1 + n2), c * n2 / (n1 + n2));
            (x - e1).powi(2) / e1 + (y - e2).powi(2) / e2
        };
        let statistic = expected(600.0, 300.0, 300.0) + expected(7.0, 3.0, 4.0);
        assert!((chi.statistic - statistic).abs() < 1e-12);
        assert!((chi.p_value - chi_square_sf(statistic, 1)).abs() < 1e-15);
    }

    #[test]
    fn welch_on_means() {
        let a = Metric::integers("battle", "rounds", 0, &[0, 50, 50]);
        let b = Metric::integers("battle", "rounds", 0, &[0, 50, 50]);
        let d = differences(&[a], &[b], (&[], &[]));
        assert_eq!(d[0].test, "welch_t");
        assert!((d[0].p_value - 1.0).abs() < 1e-9);
    }
}

//! Significance of the differences between variants: per outcome, McNemar's
//! test on paired battles (variants fought on the same streams) or else a
//! two-proportion z-test; chi-square tests of homogeneity per categorical
//! metric; Welch's t-test on the means of numeric metrics.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use crate::stats::{Metric, chi_square_sf, paired_difference, z95};

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

/// One test of a variant against the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// Subject.
    pub subject: String,
    /// Metric.
    pub metric: String,
    /// Value label, `*` for a whole-distribution test, `mean` for Welch.
    pub value: String,
    /// `mcnemar` (paired), `two_proportion_z`, `chi_square` or `welch_t`.
    pub test: &'static str,
    /// How the interval of the difference was found: `paired_newcombe`
    /// (from the battle-by-battle pairs), `unpaired_wald` or `welch`
    /// (as if the samples were independent), `none` for chi-square.
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
}

fn two_sided_normal(z: f64) -> f64 {
    2.0 * Normal::standard().sf(z.abs())
}

/// Every test between a baseline and a variant, metric by metric. A
/// category with a count in `shared` (battles both had it, when the two
/// were fought on the same streams) is tested on its pairs: McNemar's test
/// and Newcombe's paired interval; the rest as independent samples.
pub fn differences(
    baseline: &[Metric<u64>],
    variant: &[Metric<u64>],
    shared: &[SharedCount],
) -> Vec<Difference> {
    let mut out = Vec::new();
    for b in baseline {
        let Some(v) = variant.iter().find(|m| {
            m.subject == b.subject && m.name == b.name && m.weights.len() == b.weights.len()
        }) else {
            continue;
        };
        let (n1, n2) = (b.total() as f64, v.total() as f64);
        if n1 == 0.0 || n2 == 0.0 {
            continue;
        }
        if let (Some(s1), Some(s2)) = (b.summary(), v.summary()) {
            let (v1, v2) = (s1.std_dev.powi(2) / n1, s2.std_dev.powi(2) / n2);
            let se = (v1 + v2).sqrt();
            let diff = s2.mean - s1.mean;
            let (t, p) = if se > 0.0 {
                let t = diff / se;
                let df = (v1 + v2).powi(2) / (v1 * v1 / (n1 - 1.0) + v2 * v2 / (n2 - 1.0));
                let p = StudentsT::new(0.0, 1.0, df.max(1.0))
                    .map(|d| 2.0 * d.sf(t.abs()))
                    .unwrap_or_else(|_| two_sided_normal(t));
                (t, p)
            } else {
                (0.0, if diff == 0.0 { 1.0 } else { 0.0 })
            };
            out.push(Difference {
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
            });
            continue;
        }
        // Chi-square test of homogeneity over the categories either reached.
        let mut statistic = 0.0;
        let mut categories = 0;
        for (&x, &y) in b.weights.iter().zip(&v.weights) {
            let column = (x + y) as f64;
            if column == 0.0 {
                continue;
            }
            categories += 1;
            let e1 = column * n1 / (n1 + n2);
            let e2 = column * n2 / (n1 + n2);
            statistic += (x as f64 - e1).powi(2) / e1 + (y as f64 - e2).powi(2) / e2;
        }
        let df = categories.max(1) - 1;
        out.push(Difference {
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
        });
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
    }
    out
}

/// McNemar's test of one category on paired battles, with Newcombe's
/// paired interval of the difference.
fn paired_test(b: &Metric<u64>, label: &str, n: u64, x1: u64, x2: u64, both: u64) -> Difference {
    let (only_base, only_variant) = ((x1 - both) as f64, (x2 - both) as f64);
    let discordant = only_base + only_variant;
    let z = if discordant > 0.0 {
        (only_variant - only_base) / discordant.sqrt()
    } else {
        0.0
    };
    let d = paired_difference(n, x1, x2, both);
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
        p_value: two_sided_normal(z),
    }
}

/// The two-proportion z-test of one category between independent samples.
fn unpaired_test(
    b: &Metric<u64>,
    label: &str,
    (x1, n1): (u64, f64),
    (x2, n2): (u64, f64),
) -> Difference {
    let (x1, x2) = (x1 as f64, x2 as f64);
    let (p1, p2) = (x1 / n1, x2 / n2);
    let pooled = (x1 + x2) / (n1 + n2);
    let se_pooled = (pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2)).sqrt();
    let se = (p1 * (1.0 - p1) / n1 + p2 * (1.0 - p2) / n2).sqrt();
    let diff = p2 - p1;
    let z = if se_pooled > 0.0 {
        diff / se_pooled
    } else {
        0.0
    };
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
        p_value: two_sided_normal(z),
    }
}

/// Every test of one variant against the baseline, judged family-wise.
#[derive(Debug, Clone, PartialEq)]
pub struct Tests {
    /// Each test, in metric order (the order of `comparison.csv`).
    pub all: Vec<Difference>,
    /// The per-test threshold (Bonferroni over `all`).
    pub alpha: f64,
}

impl Tests {
    /// Tests a variant's metrics against the baseline's (on their pairs
    /// where `shared` counts them).
    pub fn new(baseline: &[Metric<u64>], variant: &[Metric<u64>], shared: &[SharedCount]) -> Tests {
        let all = differences(baseline, variant, shared);
        let alpha = threshold(all.len());
        Tests { all, alpha }
    }

    /// Whether one test is significant at the family-wise level.
    pub fn is_significant(&self, d: &Difference) -> bool {
        d.p_value < self.alpha
    }

    /// The significant tests, smallest p-value first. Every place that
    /// counts or lists them (console, report, CSV) uses this list.
    pub fn significant(&self) -> Vec<&Difference> {
        let mut out: Vec<&Difference> =
            self.all.iter().filter(|d| self.is_significant(d)).collect();
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

    /// Scale and unit for printing the estimates: percent for proportions.
    pub fn scale(&self) -> (f64, &'static str) {
        if matches!(self.test, "two_proportion_z" | "mcnemar") {
            (100.0, "%")
        } else {
            (1.0, "")
        }
    }
}

/// A p-value as printed: `< 1e-16` below what a double distinguishes from
/// zero here, else three significant digits (`4.68e-3`).
pub fn format_p(p: f64) -> String {
    if p < 1e-16 {
        "< 1e-16".to_owned()
    } else {
        format!("{p:.2e}")
    }
}

/// The tests between two samples that fail at the family-wise level
/// `family_alpha` (Bonferroni over every test): empty when the samples
/// could well come from one law. Used to prove a fast path equal to its
/// reference.
pub fn disagreements(a: &[Metric<u64>], b: &[Metric<u64>], family_alpha: f64) -> Vec<Difference> {
    let all = differences(a, b, &[]);
    let alpha = family_alpha / all.len().max(1) as f64;
    all.into_iter().filter(|d| d.p_value < alpha).collect()
}

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

    #[test]
    fn identical_counts_show_no_difference() {
        let d = differences(&[m(&[500, 500])], &[m(&[500, 500])], &[]);
        assert_eq!(d.len(), 3);
        assert!(d.iter().all(|x| (x.p_value - 1.0).abs() < 1e-12), "{d:?}");
    }

    #[test]
    fn a_textbook_two_proportion_test() {
        // 60/100 against 40/100: pooled 0.5, z = 0.2 / sqrt(0.25 · 0.02) = 2.828.
        let d = differences(&[m(&[40, 60])], &[m(&[60, 40])], &[]);
        let a = d.iter().find(|x| x.value == "a").unwrap();
        assert!((a.statistic - 2.828_427).abs() < 1e-5);
        assert!((a.p_value - 0.004_678).abs() < 1e-5);
        // The 2×2 chi-square equals z².
        let chi = d.iter().find(|x| x.test == "chi_square").unwrap();
        assert!((chi.statistic - 8.0).abs() < 1e-9);
    }

    #[test]
    fn tiny_p_values_are_not_printed_as_zero() {
        assert_eq!(format_p(0.0), "< 1e-16");
        assert_eq!(format_p(1e-300), "< 1e-16");
        assert_eq!(format_p(0.004_678), "4.68e-3");
    }

    #[test]
    fn the_significant_list_is_the_counted_list() {
        let a = [
            m(&[400, 600]),
            Metric::integers("battle", "rounds", 0, &[0, 500, 500]),
        ];
        let b = [
            m(&[600, 400]),
            Metric::integers("battle", "rounds", 0, &[0, 300, 700]),
        ];
        let t = Tests::new(&a, &b, &[]);
        let sig = t.significant();
        assert_eq!(
            sig.len(),
            t.all.iter().filter(|d| d.p_value < t.alpha).count()
        );
        assert!(sig.iter().any(|d| d.test == "chi_square"));
        assert!(sig.windows(2).all(|w| w[0].p_value <= w[1].p_value));
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
        let d = differences(&[m(&[580, 420])], &[m(&[600, 400])], &shared);
        let a = d.iter().find(|x| x.value == "a").unwrap();
        assert_eq!((a.test, a.method), ("mcnemar", "paired_newcombe"));
        assert!((a.statistic - 20.0 / 40f64.sqrt()).abs() < 1e-12);
        let b = d.iter().find(|x| x.value == "b").unwrap();
        assert_eq!(b.method, "unpaired_wald", "no shared count for b");
        // The same counts unpaired: a wider interval, a larger p.
        let u = differences(&[m(&[580, 420])], &[m(&[600, 400])], &[]);
        let ua = u.iter().find(|x| x.value == "a").unwrap();
        assert!(ua.difference.2 - ua.difference.1 > 2.0 * (a.difference.2 - a.difference.1));
        assert!(ua.p_value > a.p_value);
    }

    #[test]
    fn welch_on_means() {
        let a = Metric::integers("battle", "rounds", 0, &[0, 50, 50]);
        let b = Metric::integers("battle", "rounds", 0, &[0, 50, 50]);
        let d = differences(&[a], &[b], &[]);
        assert_eq!(d[0].test, "welch_t");
        assert!((d[0].p_value - 1.0).abs() < 1e-9);
    }
}

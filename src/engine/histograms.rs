//! A system's histograms, each declared once: its subject, name, values
//! and role, where it is made. Counting ([`Histograms::add`]), merging and
//! the paired engine's reading (all of [`Histograms::counts_mut`]) and the
//! reports' metrics ([`Histograms::metrics`]) follow from the declaration,
//! so a tally never lists its histograms again.

use std::ops::Range;
use std::sync::Arc;

use crate::stats::{Metric, MetricRole, Values, Weight};

/// Where one histogram's counts sit, as [`Histograms::add`] counts into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hist {
    start: u32,
    len: u32,
}

impl Hist {
    /// Its number of bins.
    pub fn len(self) -> usize {
        self.len as usize
    }

    /// Whether it has no bins.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// One metric the reports list, in the order declared.
#[derive(Debug, Clone, PartialEq)]
struct Listed {
    subject: String,
    name: String,
    values: Values,
    role: MetricRole,
    bins: Bins,
}

/// The counts each bin of a listed metric sums.
#[derive(Debug, Clone, PartialEq)]
enum Bins {
    /// Bin `i` is count `of.start + i` alone (a histogram listed as it is).
    Own(Hist),
    /// Bin `i` sums the counts `ranges[i]` (a view).
    Sums(Vec<Range<u32>>),
}

impl Bins {
    fn len(&self) -> usize {
        match self {
            Bins::Own(h) => h.len(),
            Bins::Sums(r) => r.len(),
        }
    }

    /// The counts bin `i` sums.
    fn range(&self, i: usize) -> Range<usize> {
        match self {
            Bins::Own(h) => {
                let k = h.start as usize + i;
                k..k + 1
            }
            Bins::Sums(r) => r[i].start as usize..r[i].end as usize,
        }
    }
}

/// What a tally's histograms are, apart from their counts: declared once
/// and shared by every copy of the tally (each worker's, each block's).
#[derive(Debug, Clone, PartialEq, Default)]
struct Declared {
    /// Every histogram's counts, listed or not.
    spans: Vec<Hist>,
    listed: Vec<Listed>,
}

/// Every histogram of one battle's tally: the counts, one after another,
/// and the metrics that read them, in report order. `W` is `u64` for
/// Monte Carlo counts and `f64` for exact probabilities. A clone copies the
/// counts and shares the declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct Histograms<W> {
    counts: Vec<W>,
    declared: Arc<Declared>,
}

impl<W: Weight> Default for Histograms<W> {
    fn default() -> Self {
        Histograms {
            counts: Vec::new(),
            declared: Arc::default(),
        }
    }
}

impl<W: Weight> Histograms<W> {
    /// Counts of `len` bins that no metric lists as they are (a view
    /// declared with [`Histograms::view`] reads them).
    pub fn unlisted(&mut self, len: usize) -> Hist {
        let start = self.counts.len();
        self.counts.resize(start + len, W::default());
        let hist = Hist {
            start: u32::try_from(start).expect("a tally's counts fit in u32"),
            len: u32::try_from(len).expect("a histogram's bins fit in u32"),
        };
        Arc::make_mut(&mut self.declared).spans.push(hist);
        hist
    }

    /// A categorical metric, one bin per label.
    pub fn categorical<L: AsRef<str>>(
        &mut self,
        subject: &str,
        name: &str,
        labels: &[L],
        role: MetricRole,
    ) -> Hist {
        let hist = self.unlisted(labels.len());
        let values = Values::Categories(labels.iter().map(|l| l.as_ref().to_owned()).collect());
        self.list(subject, name, values, role, hist);
        hist
    }

    /// A metric of `len` integer values from `first`.
    pub fn integers(
        &mut self,
        subject: &str,
        name: &str,
        first: i64,
        len: usize,
        role: MetricRole,
    ) -> Hist {
        let hist = self.unlisted(len);
        self.list(subject, name, Values::Integers { first }, role, hist);
        hist
    }

    /// Lists counts already declared as a metric, bin for bin.
    pub fn list(&mut self, subject: &str, name: &str, values: Values, role: MetricRole, of: Hist) {
        if let Values::Categories(labels) = &values {
            assert_eq!(labels.len(), of.len(), "one label per bin");
        }
        self.push(subject, name, values, role, Bins::Own(of));
    }

    /// A metric read off counts already declared: its bin `i` sums bins
    /// `groups[i]` of `of` (one side's victory is the other's turned round;
    /// "anyone out" sums every count above none).
    pub fn view(
        &mut self,
        subject: &str,
        name: &str,
        values: Values,
        role: MetricRole,
        of: Hist,
        groups: &[Range<usize>],
    ) {
        if let Values::Categories(labels) = &values {
            assert_eq!(labels.len(), groups.len(), "one label per bin");
        }
        let bins = groups
            .iter()
            .map(|g| {
                assert!(
                    g.end <= of.len(),
                    "{subject}/{name} reads past its histogram"
                );
                // Both ends fit: they are at most the histogram's own end.
                of.start + g.start as u32..of.start + g.end as u32
            })
            .collect();
        self.push(subject, name, values, role, Bins::Sums(bins));
    }

    fn push(&mut self, subject: &str, name: &str, values: Values, role: MetricRole, bins: Bins) {
        Arc::make_mut(&mut self.declared).listed.push(Listed {
            subject: subject.to_owned(),
            name: name.to_owned(),
            values,
            role,
            bins,
        });
    }

    /// Lists `of`, a battle's result counted for the first side (its
    /// won, lost and a third outcome, in that order), as the second side's:
    /// won and lost swapped.
    pub fn turned(
        &mut self,
        (subject, name): (&str, &str),
        labels: [&str; 3],
        role: MetricRole,
        of: Hist,
    ) {
        let values = Values::Categories(labels.map(str::to_owned).to_vec());
        self.view(subject, name, values, role, of, &[1..2, 0..1, 2..3]);
    }

    /// Adds `weight` to bin `bin` of `hist`.
    #[inline(always)]
    pub fn add(&mut self, hist: Hist, bin: usize, weight: W) {
        // Checked here only in debug builds: a bin past the end lands in
        // the next histogram, which [`Histograms::counted_once_each`] finds
        // at the end of every run (a check per count costs the war cards a
        // fifth of their speed).
        debug_assert!(
            bin < hist.len(),
            "bin {bin} of a {}-bin histogram",
            hist.len
        );
        self.counts[hist.start as usize + bin] += weight;
    }

    /// Whether every histogram counted the same weight: each counts every
    /// battle once, so a count that landed past its histogram's end (in
    /// the next one) makes two of them differ.
    pub fn counted_once_each(&self) -> bool {
        let total = |h: &Hist| {
            let mut sum = W::default();
            for &c in &self.counts[h.start as usize..(h.start + h.len) as usize] {
                sum += c;
            }
            sum
        };
        let mut totals = self.declared.spans.iter().map(total);
        match totals.next() {
            Some(first) => totals.all(|t| t == first),
            None => true,
        }
    }

    /// Every count, in declaration order (merging, and the paired engine's
    /// reading of a block).
    pub fn counts_mut(&mut self) -> &mut [W] {
        &mut self.counts
    }

    /// The listed metrics with their counts, in the order declared.
    pub fn metrics(&self) -> Vec<Metric<W>> {
        self.declared
            .listed
            .iter()
            .map(|l| Metric {
                subject: l.subject.clone(),
                name: l.name.clone(),
                values: l.values.clone(),
                weights: (0..l.bins.len())
                    .map(|i| {
                        let mut sum = W::default();
                        for &c in &self.counts[l.bins.range(i)] {
                            sum += c;
                        }
                        sum
                    })
                    .collect(),
                role: l.role.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_read_their_own_bins_and_views_sum_theirs() {
        let mut h = Histograms::<u64>::default();
        let winner = h.categorical(
            "side:A",
            "victory",
            &["won", "lost", "draw"],
            MetricRole::Detail,
        );
        let out = h.unlisted(3);
        h.view(
            "side:B",
            "victory",
            Values::Categories(vec!["won".into(), "lost".into(), "draw".into()]),
            MetricRole::Detail,
            winner,
            &[1..2, 0..1, 2..3],
        );
        h.view(
            "party",
            "any_out",
            Values::Categories(vec!["no".into(), "yes".into()]),
            MetricRole::Detail,
            out,
            &[0..1, 1..3],
        );
        let rounds = h.integers("battle", "rounds", 1, 2, MetricRole::Detail);
        h.add(winner, 0, 5);
        h.add(winner, 2, 1);
        h.add(out, 1, 2);
        h.add(out, 2, 3);
        h.add(rounds, 1, 7);
        let m = h.metrics();
        let weights: Vec<_> = m.iter().map(|m| m.weights.clone()).collect();
        assert_eq!(
            weights,
            vec![vec![5, 0, 1], vec![0, 5, 1], vec![0, 5], vec![0, 7]]
        );
        assert_eq!(m[3].label(1), "2");
        assert_eq!(h.counts_mut().len(), 3 + 3 + 2);
    }

    #[test]
    fn a_count_past_a_histogram_shows_as_two_unequal_totals() {
        let mut h = Histograms::<u64>::default();
        let a = h.unlisted(3);
        let b = h.unlisted(3);
        h.add(a, 1, 4);
        h.add(b, 0, 4);
        assert!(h.counted_once_each());
        // Bin 3 of `a` is bin 0 of `b`: in a release build it lands there.
        h.counts[a.start as usize + 3] += 1;
        h.add(b, 2, 1);
        assert!(!h.counted_once_each());
    }
}

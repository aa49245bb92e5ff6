//! The CSV tables: `distributions.csv`, `summary.csv` and, with `--exact`,
//! `exact.csv`. Built as polars frames from the aggregated counts only.

use std::fs::File;
use std::path::Path;

use anyhow::{Context, Result};
use polars::prelude::*;

use super::{Export, Formats, RunReport};
use crate::stats::{clopper_pearson, wilson, z95};

/// Confidence of the Monte Carlo-versus-exact agreement check.
pub const AGREEMENT_CONFIDENCE: f64 = 0.999;

/// Writes `distributions.csv`: every value of every metric with its Wilson interval.
pub struct Distributions;

/// Writes `summary.csv`: mean, spread and percentiles of numeric metrics.
pub struct Summary;

/// Writes `exact.csv`: exact probabilities beside the Monte Carlo estimates.
pub struct ExactComparison;

/// Writes `comparison.csv`: every variant tested against the first.
pub struct Comparison;

impl Export<RunReport> for Comparison {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        use crate::compare::Tests;
        let Some(base) = report.variants.first() else {
            return Ok(Vec::new());
        };
        if report.variants.len() < 2 {
            return Ok(Vec::new());
        }
        let mut rows = Vec::new();
        for v in report.variants.iter().skip(1) {
            let tests = Tests::new(&base.metrics, &v.metrics, &v.shared);
            let alpha = tests.alpha;
            rows.extend(tests.all.into_iter().map(|d| (v.variant.clone(), alpha, d)));
        }
        let col = |f: &dyn Fn(&crate::compare::Difference) -> f64| {
            rows.iter().map(|(_, _, d)| f(d)).collect::<Vec<f64>>()
        };
        write_table(
            dir,
            "comparison",
            &report.formats,
            vec![
                text("variant", rows.iter().map(|(v, _, _)| v.clone()).collect()),
                text(
                    "baseline",
                    rows.iter().map(|_| base.variant.clone()).collect(),
                ),
                text(
                    "subject",
                    rows.iter().map(|(_, _, d)| d.subject.clone()).collect(),
                ),
                text(
                    "metric",
                    rows.iter().map(|(_, _, d)| d.metric.clone()).collect(),
                ),
                text(
                    "value",
                    rows.iter().map(|(_, _, d)| d.value.clone()).collect(),
                ),
                text(
                    "test",
                    rows.iter().map(|(_, _, d)| d.test.to_owned()).collect(),
                ),
                text(
                    "method",
                    rows.iter().map(|(_, _, d)| d.method.to_owned()).collect(),
                ),
                Column::new("baseline_estimate".into(), col(&|d| d.baseline)),
                Column::new("estimate".into(), col(&|d| d.estimate)),
                Column::new("difference".into(), col(&|d| d.difference.0)),
                Column::new("ci_low".into(), col(&|d| d.difference.1)),
                Column::new("ci_high".into(), col(&|d| d.difference.2)),
                Column::new("statistic".into(), col(&|d| d.statistic)),
                Column::new("p_value".into(), col(&|d| d.p_value)),
                Column::new(
                    "significant".into(),
                    rows.iter()
                        .map(|(_, alpha, d)| d.p_value < *alpha)
                        .collect::<Vec<bool>>(),
                ),
            ],
        )
    }
}

/// Writes a frame built from `columns` as `dir/name`.
pub fn write_csv(dir: &Path, name: &str, columns: Vec<Column>) -> Result<Vec<String>> {
    let mut frame = DataFrame::new_infer_height(columns)
        .map_err(|e| anyhow::anyhow!("cannot build {name}: {e}"))?;
    let mut file = File::create(dir.join(name)).with_context(|| format!("cannot create {name}"))?;
    CsvWriter::new(&mut file)
        .include_header(true)
        .finish(&mut frame)
        .map_err(|e| anyhow::anyhow!("cannot write {name}: {e}"))?;
    Ok(vec![name.to_owned()])
}

/// Writes a frame as `<stem>.csv` and/or `<stem>.parquet`, as `formats` asks.
pub fn write_table(
    dir: &Path,
    stem: &str,
    formats: &Formats,
    columns: Vec<Column>,
) -> Result<Vec<String>> {
    let mut written = Vec::new();
    if formats.csv {
        written.extend(write_csv(dir, &format!("{stem}.csv"), columns.clone())?);
    }
    if formats.parquet {
        let name = format!("{stem}.parquet");
        let mut frame = DataFrame::new_infer_height(columns)
            .map_err(|e| anyhow::anyhow!("cannot build {name}: {e}"))?;
        let file =
            File::create(dir.join(&name)).with_context(|| format!("cannot create {name}"))?;
        ParquetWriter::new(file)
            .finish(&mut frame)
            .map_err(|e| anyhow::anyhow!("cannot write {name}: {e}"))?;
        written.push(name);
    }
    Ok(written)
}

/// A string column.
pub fn text(name: &str, values: Vec<String>) -> Column {
    Column::new(name.into(), values)
}

/// A column of numbers, one per row.
pub fn numbers<T>(name: &str, rows: &[T], value: impl Fn(&T) -> f64) -> Column {
    Column::new(name.into(), rows.iter().map(value).collect::<Vec<f64>>())
}

/// One row of `distributions.csv`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DistributionRow {
    /// Variant name (empty for a plain run).
    pub variant: String,
    /// Subject.
    pub subject: String,
    /// Metric.
    pub metric: String,
    /// Value label.
    pub value: String,
    /// Battles with this value.
    pub count: u64,
    /// count / trials.
    pub probability: f64,
    /// 95% Wilson interval.
    pub ci_low: f64,
    /// 95% Wilson interval.
    pub ci_high: f64,
}

/// One row of `summary.csv`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SummaryRow {
    /// Variant name.
    pub variant: String,
    /// Subject.
    pub subject: String,
    /// Metric.
    pub metric: String,
    /// The statistics.
    #[serde(flatten)]
    pub summary: crate::stats::SummaryFields,
}

/// Every row of `distributions.csv`.
pub fn distribution_rows(report: &RunReport) -> Vec<DistributionRow> {
    let mut rows = Vec::new();
    for v in &report.variants {
        for m in &v.metrics {
            let total = m.total();
            for bin in m.reported_bins(|w| w == 0) {
                let c = m.weights[bin];
                let (lo, hi) = wilson(c, total, z95());
                rows.push(DistributionRow {
                    variant: v.variant.clone(),
                    subject: m.subject.clone(),
                    metric: m.name.clone(),
                    value: m.label(bin),
                    count: c,
                    probability: c as f64 / total as f64,
                    ci_low: lo,
                    ci_high: hi,
                });
            }
        }
    }
    rows
}

/// Every row of `summary.csv`.
pub fn summary_rows(report: &RunReport) -> Vec<SummaryRow> {
    let mut rows = Vec::new();
    for v in &report.variants {
        for m in &v.metrics {
            let Some(s) = m.summary() else { continue };
            rows.push(SummaryRow {
                variant: v.variant.clone(),
                subject: m.subject.clone(),
                metric: m.name.clone(),
                summary: s.into(),
            });
        }
    }
    rows
}

impl Export<RunReport> for Distributions {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        let rows = distribution_rows(report);
        let strings = |f: fn(&DistributionRow) -> &String| {
            rows.iter().map(|r| f(r).clone()).collect::<Vec<_>>()
        };
        let floats = |f: fn(&DistributionRow) -> f64| rows.iter().map(f).collect::<Vec<_>>();
        write_table(
            dir,
            "distributions",
            &report.formats,
            vec![
                text("variant", strings(|r| &r.variant)),
                text("subject", strings(|r| &r.subject)),
                text("metric", strings(|r| &r.metric)),
                text("value", strings(|r| &r.value)),
                Column::new(
                    "count".into(),
                    rows.iter().map(|r| r.count).collect::<Vec<_>>(),
                ),
                Column::new("probability".into(), floats(|r| r.probability)),
                Column::new("ci_low".into(), floats(|r| r.ci_low)),
                Column::new("ci_high".into(), floats(|r| r.ci_high)),
            ],
        )
    }
}

impl Export<RunReport> for Summary {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        let rows = summary_rows(report);
        let strings =
            |f: fn(&SummaryRow) -> &String| rows.iter().map(|r| f(r).clone()).collect::<Vec<_>>();
        let floats = |f: fn(&SummaryRow) -> f64| rows.iter().map(f).collect::<Vec<_>>();
        let ints = |f: fn(&SummaryRow) -> i64| rows.iter().map(f).collect::<Vec<_>>();
        write_table(
            dir,
            "summary",
            &report.formats,
            vec![
                text("variant", strings(|r| &r.variant)),
                text("subject", strings(|r| &r.subject)),
                text("metric", strings(|r| &r.metric)),
                Column::new(
                    "trials".into(),
                    rows.iter().map(|r| r.summary.trials).collect::<Vec<_>>(),
                ),
                Column::new("mean".into(), floats(|r| r.summary.mean)),
                Column::new("std_dev".into(), floats(|r| r.summary.std_dev)),
                Column::new("ci_low".into(), floats(|r| r.summary.ci_low)),
                Column::new("ci_high".into(), floats(|r| r.summary.ci_high)),
                Column::new("p05".into(), ints(|r| r.summary.p05)),
                Column::new("p50".into(), ints(|r| r.summary.p50)),
                Column::new("p95".into(), ints(|r| r.summary.p95)),
            ],
        )
    }
}

/// One value's exact probability beside its Monte Carlo estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    /// Variant name.
    pub variant: String,
    /// Subject.
    pub subject: String,
    /// Metric name.
    pub metric: String,
    /// Value label.
    pub value: String,
    /// Exact probability.
    pub exact: f64,
    /// Monte Carlo count.
    pub count: u64,
    /// Monte Carlo trials.
    pub trials: u64,
    /// Clopper–Pearson interval at [`AGREEMENT_CONFIDENCE`].
    pub interval: (f64, f64),
}

impl Agreement {
    /// Whether the exact value lies inside the Monte Carlo interval.
    pub fn agrees(&self) -> bool {
        self.interval.0 <= self.exact && self.exact <= self.interval.1
    }
}

/// Every value that either the exact answer or the simulation reached,
/// compared at [`AGREEMENT_CONFIDENCE`].
pub fn agreements(report: &RunReport) -> Vec<Agreement> {
    let mut out = Vec::new();
    for v in &report.variants {
        let Some(exact) = &v.exact else { continue };
        for ex in exact {
            let Some(mc) = v
                .metrics
                .iter()
                .find(|m| m.subject == ex.subject && m.name == ex.name)
            else {
                continue;
            };
            let total = mc.total();
            for bin in 0..mc.weights.len() {
                let (count, p) = (mc.weights[bin], ex.weights[bin]);
                if count == 0 && p == 0.0 {
                    continue;
                }
                out.push(Agreement {
                    variant: v.variant.clone(),
                    subject: mc.subject.clone(),
                    metric: mc.name.clone(),
                    value: mc.label(bin),
                    exact: p,
                    count,
                    trials: total,
                    interval: clopper_pearson(count, total, AGREEMENT_CONFIDENCE),
                });
            }
        }
    }
    out
}

impl Export<RunReport> for ExactComparison {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        let rows = agreements(report);
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        write_table(
            dir,
            "exact",
            &report.formats,
            vec![
                text("variant", rows.iter().map(|r| r.variant.clone()).collect()),
                text("subject", rows.iter().map(|r| r.subject.clone()).collect()),
                text("metric", rows.iter().map(|r| r.metric.clone()).collect()),
                text("value", rows.iter().map(|r| r.value.clone()).collect()),
                Column::new(
                    "exact_probability".into(),
                    rows.iter().map(|r| r.exact).collect::<Vec<_>>(),
                ),
                Column::new(
                    "probability".into(),
                    rows.iter()
                        .map(|r| r.count as f64 / r.trials as f64)
                        .collect::<Vec<_>>(),
                ),
                Column::new(
                    "ci999_low".into(),
                    rows.iter().map(|r| r.interval.0).collect::<Vec<_>>(),
                ),
                Column::new(
                    "ci999_high".into(),
                    rows.iter().map(|r| r.interval.1).collect::<Vec<_>>(),
                ),
                Column::new(
                    "agrees".into(),
                    rows.iter().map(|r| r.agrees()).collect::<Vec<_>>(),
                ),
            ],
        )
    }
}

//! The CSV tables: `distributions.csv`, `summary.csv` and, with `--exact`,
//! `exact.csv`. Built as polars frames from the aggregated counts only.

use std::fs::File;
use std::path::Path;

use anyhow::{Context, Result};
use polars::prelude::*;

use super::{Export, RunReport};
use crate::stats::{wilson, z_for_confidence, z95};

/// Confidence of the Monte Carlo-versus-exact agreement check.
pub const AGREEMENT_CONFIDENCE: f64 = 0.999;

/// Writes `distributions.csv`: every value of every metric with its Wilson interval.
pub struct Distributions;

/// Writes `summary.csv`: mean, spread and percentiles of numeric metrics.
pub struct Summary;

/// Writes `exact.csv`: exact probabilities beside the Monte Carlo estimates.
pub struct ExactComparison;

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

/// A string column.
pub fn text(name: &str, values: Vec<String>) -> Column {
    Column::new(name.into(), values)
}

impl Export<RunReport> for Distributions {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        let mut variant = Vec::new();
        let mut subject = Vec::new();
        let mut metric = Vec::new();
        let mut value = Vec::new();
        let mut count = Vec::new();
        let mut probability = Vec::new();
        let mut ci_low = Vec::new();
        let mut ci_high = Vec::new();
        for v in &report.variants {
            for m in &v.metrics {
                let total = m.total();
                for bin in m.reported_bins(|w| w == 0) {
                    let c = m.weights[bin];
                    let (lo, hi) = wilson(c, total, z95());
                    variant.push(v.variant.clone());
                    subject.push(m.subject.clone());
                    metric.push(m.name.clone());
                    value.push(m.label(bin));
                    count.push(c);
                    probability.push(c as f64 / total as f64);
                    ci_low.push(lo);
                    ci_high.push(hi);
                }
            }
        }
        write_csv(
            dir,
            "distributions.csv",
            vec![
                text("variant", variant),
                text("subject", subject),
                text("metric", metric),
                text("value", value),
                Column::new("count".into(), count),
                Column::new("probability".into(), probability),
                Column::new("ci_low".into(), ci_low),
                Column::new("ci_high".into(), ci_high),
            ],
        )
    }
}

impl Export<RunReport> for Summary {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        let mut variant = Vec::new();
        let mut subject = Vec::new();
        let mut metric = Vec::new();
        let mut trials = Vec::new();
        let (mut mean, mut std_dev, mut ci_low, mut ci_high) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut p05, mut p50, mut p95) = (Vec::new(), Vec::new(), Vec::new());
        for v in &report.variants {
            for m in &v.metrics {
                let Some(s) = m.summary() else { continue };
                variant.push(v.variant.clone());
                subject.push(m.subject.clone());
                metric.push(m.name.clone());
                trials.push(s.trials);
                mean.push(s.mean);
                std_dev.push(s.std_dev);
                ci_low.push(s.ci_low);
                ci_high.push(s.ci_high);
                p05.push(s.p05);
                p50.push(s.p50);
                p95.push(s.p95);
            }
        }
        write_csv(
            dir,
            "summary.csv",
            vec![
                text("variant", variant),
                text("subject", subject),
                text("metric", metric),
                Column::new("trials".into(), trials),
                Column::new("mean".into(), mean),
                Column::new("std_dev".into(), std_dev),
                Column::new("ci_low".into(), ci_low),
                Column::new("ci_high".into(), ci_high),
                Column::new("p05".into(), p05),
                Column::new("p50".into(), p50),
                Column::new("p95".into(), p95),
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
    /// Wilson interval at [`AGREEMENT_CONFIDENCE`].
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
    let z = z_for_confidence(AGREEMENT_CONFIDENCE);
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
                    interval: wilson(count, total, z),
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
        write_csv(
            dir,
            "exact.csv",
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

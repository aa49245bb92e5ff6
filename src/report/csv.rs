//! The CSV tables: `distributions.csv`, `summary.csv` and, with `--exact`,
//! `exact.csv`. Built as polars frames from the aggregated counts only.

use std::fs::File;
use std::path::Path;

use anyhow::{Context, Result};
use polars::prelude::*;
use polars_parquet::write::{KeyValue, schema_to_metadata_key};

use super::{Export, Formats, RunInfo, RunReport};
use crate::compare::reported_p;
use crate::stats::{Metric, clopper_pearson, wilson, z95};
use crate::target::{with_combined, with_combined_as};

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
            let tests = Tests::new(&base.metrics, &v.metrics, (&v.shared, &v.paired_means));
            let alpha = tests.alpha;
            rows.extend(
                tests
                    .all
                    .into_iter()
                    .map(|d| (v.variant.as_str(), alpha, d)),
            );
        }
        // A chi-square test has no estimate: null (empty), never NaN.
        let col = |f: &dyn Fn(&crate::compare::Difference) -> f64| {
            rows.iter()
                .map(|(_, _, d)| Some(f(d)).filter(|x| !x.is_nan()))
                .collect::<Vec<Option<f64>>>()
        };
        let (variants, subjects): (Vec<&str>, Vec<&str>) = rows
            .iter()
            .map(|(v, _, d)| (*v, d.subject.as_str()))
            .unzip();
        let mut columns = variant_columns(report, &variants, VALUE_COLUMNS);
        columns.push(text(
            "baseline",
            rows.iter().map(|_| base.variant.clone()).collect(),
        ));
        columns.extend(subject_columns(&subjects));
        columns.extend([
            text(
                "metric",
                rows.iter().map(|(_, _, d)| d.metric.clone()).collect(),
            ),
            text(
                "scope",
                rows.iter().map(|(_, _, d)| d.scope().to_owned()).collect(),
            ),
            Column::new(
                "value".into(),
                rows.iter()
                    .map(|(_, _, d)| d.value_tested())
                    .collect::<Vec<Option<&str>>>(),
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
            Column::new("p_value".into(), col(&|d| reported_p(d.p_value))),
            Column::new(
                "discordant".into(),
                rows.iter()
                    .map(|(_, _, d)| d.pairs.map(|p| p.discordant))
                    .collect::<Vec<Option<u64>>>(),
            ),
            Column::new(
                "width_ratio".into(),
                rows.iter()
                    .map(|(_, _, d)| d.pairs.map(|p| p.width_ratio).filter(|r| r.is_finite()))
                    .collect::<Vec<Option<f64>>>(),
            ),
            Column::new(
                "significant".into(),
                rows.iter()
                    .map(|(_, alpha, d)| d.p_value < *alpha)
                    .collect::<Vec<bool>>(),
            ),
        ]);
        let keys: Vec<(&str, &str, &str)> = rows
            .iter()
            .map(|(v, _, d)| (*v, d.subject.as_str(), d.metric.as_str()))
            .collect();
        columns.extend(stand_in_columns(report, &keys, Some(&base.variant)));
        let about = TableMeta::of(&report.info).with_units(&base.metrics);
        write_table(dir, "comparison", (&report.formats, &about), columns)
    }
}

/// The frame of `columns`, counts (unsigned) as signed 64-bit integers: the
/// type a CSV reader infers, so every format holds the same types.
fn frame(name: &str, columns: Vec<Column>) -> Result<DataFrame> {
    let columns = columns
        .into_iter()
        .map(|c| match c.dtype() {
            DataType::UInt64 | DataType::UInt32 => c.cast(&DataType::Int64),
            _ => Ok(c),
        })
        .collect::<PolarsResult<Vec<_>>>()
        .map_err(|e| anyhow::anyhow!("cannot build {name}: {e}"))?;
    DataFrame::new_infer_height(columns).map_err(|e| anyhow::anyhow!("cannot build {name}: {e}"))
}

/// Writes a frame built from `columns` as `dir/name`.
pub fn write_csv(dir: &Path, name: &str, columns: Vec<Column>) -> Result<Vec<String>> {
    let mut frame = frame(name, columns)?;
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
    (formats, about): (&Formats, &TableMeta),
    columns: Vec<Column>,
) -> Result<Vec<String>> {
    let mut written = Vec::new();
    if formats.csv {
        written.extend(write_csv(dir, &format!("{stem}.csv"), columns.clone())?);
    }
    if formats.parquet {
        let name = format!("{stem}.parquet");
        let mut frame = frame(&name, columns)?;
        let file =
            File::create(dir.join(&name)).with_context(|| format!("cannot create {name}"))?;
        let mut metadata = vec![arrow_schema_for_older_readers(&frame)];
        metadata.extend(
            (about.0.iter())
                .map(|(key, value)| KeyValue::new(format!("warcrunch.{key}"), value.clone())),
        );
        ParquetWriter::new(file)
            .with_key_value_metadata(Some(KeyValueMetadata::Static(metadata)))
            .finish(&mut frame)
            .map_err(|e| anyhow::anyhow!("cannot write {name}: {e}"))?;
        written.push(name);
    }
    Ok(written)
}

/// The subject columns: `subject` as the metric names it (`side:Megalos`),
/// and the same split into its kind (`side`, `hero`, `party`, `battle`) and
/// its name (missing for the party and the battle: an empty cell, not `""`).
pub fn subject_columns(subjects: &[&str]) -> Vec<Column> {
    let (kinds, names): (Vec<&str>, Vec<Option<&str>>) = subjects
        .iter()
        .map(|s| match s.split_once(':') {
            Some((kind, name)) => (kind, Some(name)),
            None => (*s, None),
        })
        .unzip();
    vec![
        Column::new("subject".into(), subjects.to_vec()),
        Column::new("subject_kind".into(), kinds),
        Column::new("subject_name".into(), names),
    ]
}

/// The columns that say which variant a row is about: `variant` (none in
/// a plain run, which has one unnamed variant), then one column per swept
/// setting holding its value (numbers as numbers). A setting whose name is
/// one of `taken` (the table's other columns) is called `set.NAME`.
pub fn variant_columns(report: &RunReport, variants: &[&str], taken: &[&str]) -> Vec<Column> {
    if report.is_plain() {
        return Vec::new();
    }
    let mut columns = vec![Column::new("variant".into(), variants.to_vec())];
    let order = &report.info.variants;
    for p in &report.info.parameters {
        let values: Vec<&str> = variants
            .iter()
            .map(|v| {
                order
                    .iter()
                    .position(|o| o == v)
                    .and_then(|i| p.values.get(i))
                    .map_or("", String::as_str)
            })
            .collect();
        let name = if taken.contains(&p.name.as_str()) || p.name == "variant" {
            format!("set.{}", p.name)
        } else {
            p.name.clone()
        };
        columns.push(typed(&name, &values));
    }
    columns
}

/// The last two columns of every file: `stand_in_tables`, the tables
/// holding stand-in values that each row's metric rests on (`; `
/// between them, empty for none), then `uses_stand_ins`, whether there is
/// one. Rows are given as (variant, subject, metric); with `base`, a
/// comparison's rows rest on the base variant's tables too.
pub fn stand_in_columns(
    report: &RunReport,
    rows: &[(&str, &str, &str)],
    base: Option<&str>,
) -> [Column; 2] {
    let tables: Vec<Vec<String>> = rows
        .iter()
        .map(|&(variant, subject, metric)| {
            let variants: Vec<&str> = std::iter::once(variant).chain(base).collect();
            report
                .info
                .stand_in_tables_of_any(&variants, subject, metric)
        })
        .collect();
    stand_in_pair(&tables)
}

/// The two stand-in columns of rows whose metrics rest on the stand-in
/// tables `tables` lists, row by row.
pub fn stand_in_pair(tables: &[Vec<String>]) -> [Column; 2] {
    [
        text(
            "stand_in_tables",
            tables.iter().map(|t| t.join("; ")).collect(),
        ),
        Column::new(
            "uses_stand_ins".into(),
            tables.iter().map(|t| !t.is_empty()).collect::<Vec<bool>>(),
        ),
    ]
}

/// A row of a table about one metric of one variant's subject.
pub(super) trait Keyed {
    /// Its variant, subject and metric.
    fn key(&self) -> [&str; 3];
}

/// `name` (and its other formats): one row per entry of `rows`, its
/// variant and subject columns, then `own`, then the stand-in columns.
fn keyed_table<T: Keyed>(
    report: &RunReport,
    dir: &Path,
    name: &str,
    rows: &[T],
    own: Vec<Column>,
) -> Result<Vec<String>> {
    let keys3: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            let [v, s, m] = r.key();
            (v, s, m)
        })
        .collect();
    let mut columns = keys(report, keys3.iter().map(|&(v, s, _)| (v, s)));
    columns.extend(own);
    columns.extend(stand_in_columns(report, &keys3, None));
    write_table(dir, name, (&report.formats, &report.table_meta()), columns)
}

impl Keyed for DistributionRow {
    fn key(&self) -> [&str; 3] {
        [&self.variant, &self.subject, &self.metric]
    }
}

impl Keyed for SummaryRow {
    fn key(&self) -> [&str; 3] {
        [&self.variant, &self.subject, &self.metric]
    }
}

impl Keyed for Agreement {
    fn key(&self) -> [&str; 3] {
        [&self.variant, &self.subject, &self.metric]
    }
}

/// A column of values shown as text, typed: whole numbers as integers,
/// other numbers as floats, anything else as text.
fn typed(name: &str, values: &[&str]) -> Column {
    if let Ok(ints) = values.iter().map(|v| v.parse::<i64>()).collect() {
        let ints: Vec<i64> = ints;
        return Column::new(name.into(), ints);
    }
    if let Ok(floats) = values.iter().map(|v| v.parse::<f64>()).collect() {
        let floats: Vec<f64> = floats;
        return Column::new(name.into(), floats);
    }
    Column::new(name.into(), values.to_vec())
}

/// The Arrow schema a Parquet file carries for readers that restore Arrow
/// types (pyarrow, pandas): strings as plain (large) strings, which every
/// reader knows, rather than the newer string views polars writes by
/// default. The pages hold the same UTF-8 bytes either way.
fn arrow_schema_for_older_readers(frame: &DataFrame) -> KeyValue {
    schema_to_metadata_key(&frame.schema().to_arrow(CompatLevel::oldest()))
}

/// What a Parquet file says of itself in its key-value metadata, each key
/// prefixed `warcrunch.`: the tool, the intervals' level and, for one
/// battle's run, the battle, its system, seed and battles, and the units of
/// its metrics (a CSV file has no place for them: `run.json` beside it
/// holds the same, and the command, which would make the bytes depend on
/// the output folder).
#[derive(Debug, Clone, Default)]
pub struct TableMeta(Vec<(String, String)>);

impl TableMeta {
    /// The tool's version and the intervals' level.
    pub fn tool() -> TableMeta {
        TableMeta(vec![
            (
                "tool_version".to_owned(),
                env!("CARGO_PKG_VERSION").to_owned(),
            ),
            ("interval_level".to_owned(), "0.95".to_owned()),
        ])
    }

    /// A run's: the tool, and the run's battle, system, seed and battles.
    pub fn of(info: &RunInfo) -> TableMeta {
        let mut meta = TableMeta::tool();
        let mut add = |key: &str, value: Option<String>| {
            if let Some(value) = value {
                meta.0.push((key.to_owned(), value));
            }
        };
        add("tool_commit", Some(info.tool_commit.clone()));
        add("battle", Some(info.name.clone()));
        add("system", Some(info.system.clone()));
        add("seed", info.seed.map(|s| s.to_string()));
        add("battles", info.trials.map(|t| t.to_string()));
        meta
    }

    /// With `units`: a JSON object of each metric's unit, where it has one
    /// (`{"casualties_pct": "% of Troop Strength"}`).
    pub fn with_units<W>(mut self, metrics: &[Metric<W>]) -> TableMeta {
        let units: serde_json::Map<String, serde_json::Value> = metrics
            .iter()
            .filter_map(|m| {
                let unit = super::words::metric(&m.name).1?;
                Some((m.name.clone(), serde_json::Value::from(unit)))
            })
            .collect();
        self.0.push((
            "units".to_owned(),
            serde_json::Value::Object(units).to_string(),
        ));
        self
    }
}

/// A string column.
pub fn text(name: &str, values: Vec<String>) -> Column {
    Column::new(name.into(), values)
}

/// A column of numbers, one per row.
pub fn numbers<T>(name: &str, rows: &[T], value: impl Fn(&T) -> f64) -> Column {
    // "Not applicable" (NaN: a chi-square test has no estimate) is null:
    // empty in CSV, null in Parquet, never the word NaN.
    let values: Vec<Option<f64>> = rows
        .iter()
        .map(|r| Some(value(r)).filter(|x| !x.is_nan()))
        .collect();
    Column::new(name.into(), values)
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
    /// The value as a number, for a numeric metric (so it sorts as one).
    pub value_number: Option<i64>,
    /// The value in words, as the report's tables write it: a war-cards
    /// winner by its unit (`Knights (attacker)`), `at or below 0hp`.
    pub value_words: String,
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
        for m in &with_combined(&v.metrics) {
            let total = m.total();
            for bin in m.reported_bins(|w| w == 0) {
                let c = m.weights[bin];
                let (lo, hi) = wilson(c, total, z95());
                rows.push(DistributionRow {
                    variant: v.variant.clone(),
                    subject: m.subject.clone(),
                    metric: m.name.clone(),
                    value: m.label(bin),
                    value_words: super::words::value(m, bin),
                    value_number: match m.values {
                        crate::stats::Values::Integers { first } => Some(first + bin as i64),
                        crate::stats::Values::Categories(_) => None,
                    },
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
        keyed_table(
            report,
            dir,
            "distributions",
            &rows,
            distribution_columns(&rows),
        )
    }
}

impl Export<RunReport> for Summary {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        let rows = summary_rows(report);
        keyed_table(report, dir, "summary", &rows, summary_columns(&rows))
    }
}

/// The columns of `distributions.csv` after the subject's.
pub fn distribution_columns(rows: &[DistributionRow]) -> Vec<Column> {
    let floats = |f: fn(&DistributionRow) -> f64| rows.iter().map(f).collect::<Vec<_>>();
    vec![
        text("metric", rows.iter().map(|r| r.metric.clone()).collect()),
        text("value", rows.iter().map(|r| r.value.clone()).collect()),
        Column::new(
            "value_number".into(),
            rows.iter()
                .map(|r| r.value_number)
                .collect::<Vec<Option<i64>>>(),
        ),
        text(
            "value_words",
            rows.iter().map(|r| r.value_words.clone()).collect(),
        ),
        Column::new(
            "count".into(),
            rows.iter().map(|r| r.count).collect::<Vec<_>>(),
        ),
        Column::new("probability".into(), floats(|r| r.probability)),
        Column::new("ci_low".into(), floats(|r| r.ci_low)),
        Column::new("ci_high".into(), floats(|r| r.ci_high)),
    ]
}

/// The columns of `summary.csv` after the subject's.
pub fn summary_columns(rows: &[SummaryRow]) -> Vec<Column> {
    let floats = |f: fn(&SummaryRow) -> f64| rows.iter().map(f).collect::<Vec<_>>();
    let ints = |f: fn(&SummaryRow) -> i64| rows.iter().map(f).collect::<Vec<_>>();
    vec![
        text("metric", rows.iter().map(|r| r.metric.clone()).collect()),
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
    ]
}

/// The columns of `exact.csv` after the subject's.
pub fn agreement_columns(rows: &[Agreement]) -> Vec<Column> {
    let floats = |f: &dyn Fn(&Agreement) -> f64| rows.iter().map(f).collect::<Vec<_>>();
    vec![
        text("metric", rows.iter().map(|r| r.metric.clone()).collect()),
        text("value", rows.iter().map(|r| r.value.clone()).collect()),
        Column::new("exact_probability".into(), floats(&|r| r.exact)),
        Column::new(
            "probability".into(),
            floats(&|r| r.count as f64 / r.trials as f64),
        ),
        Column::new("ci999_low".into(), floats(&|r| r.interval.0)),
        Column::new("ci999_high".into(), floats(&|r| r.interval.1)),
        Column::new(
            "agrees".into(),
            rows.iter().map(|r| r.agrees()).collect::<Vec<_>>(),
        ),
    ]
}

/// Every column name a run's tables use after their key columns: a swept
/// setting of one of these names gets another column name.
const VALUE_COLUMNS: &[&str] = &[
    "baseline",
    "metric",
    "scope",
    "value",
    "value_number",
    "value_words",
    "count",
    "probability",
    "ci_low",
    "ci_high",
    "trials",
    "mean",
    "std_dev",
    "p05",
    "p50",
    "p95",
    "exact_probability",
    "ci999_low",
    "ci999_high",
    "agrees",
    "test",
    "method",
    "baseline_estimate",
    "estimate",
    "difference",
    "statistic",
    "p_value",
    "discordant",
    "width_ratio",
    "significant",
    "subject",
    "subject_kind",
    "subject_name",
    "stand_in_tables",
    "uses_stand_ins",
];

/// The key columns of rows given as (variant, subject).
fn keys<'a>(report: &RunReport, rows: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<Column> {
    let (variants, subjects): (Vec<&str>, Vec<&str>) = rows.unzip();
    let mut columns = variant_columns(report, &variants, VALUE_COLUMNS);
    columns.extend(subject_columns(&subjects));
    columns
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
    /// Whether the exact answer or the simulation reached the value.
    pub fn reached(&self) -> bool {
        self.exact > 0.0 || self.count > 0
    }

    /// Whether the exact value lies inside the Monte Carlo interval.
    pub fn agrees(&self) -> bool {
        self.interval.0 <= self.exact && self.exact <= self.interval.1
    }
}

/// Every value of every metric the exact answer covers (those neither it
/// nor the simulation reached too), compared at [`AGREEMENT_CONFIDENCE`].
pub fn agreements(report: &RunReport) -> Vec<Agreement> {
    let mut out = Vec::new();
    for v in &report.variants {
        let Some(exact) = &v.exact else { continue };
        let simulated = with_combined(&v.metrics);
        for ex in &with_combined_as(&v.metrics, exact) {
            let Some(mc) = simulated
                .iter()
                .find(|m| m.subject == ex.subject && m.name == ex.name)
            else {
                continue;
            };
            let total = mc.total();
            for bin in 0..mc.weights.len() {
                let (count, p) = (mc.weights[bin], ex.weights[bin]);
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
        keyed_table(report, dir, "exact", &rows, agreement_columns(&rows))
    }
}

//! The CSV tables: `distributions.csv`, `summary.csv` and, with `--exact`,
//! `exact.csv`. Built as polars frames from the aggregated counts only.

use std::fs::File;
use std::path::Path;

use anyhow::{Context, Result};
use polars::prelude::*;
use polars_parquet::write::{KeyValue, schema_to_metadata_key};

use crate::questions::target::{with_combined, with_combined_as};
use crate::report::{Export, Formats, RunInfo, RunReport, VariantResult};
use crate::stats::compare::reported_p;
use crate::stats::{Metric, clopper_pearson, wilson, z95};

/// Confidence of the Monte Carlo-versus-exact agreement check.
pub const AGREEMENT_CONFIDENCE: f64 = 0.999;

/// Writes `distributions.csv`: every value of every metric with its Wilson interval.
pub struct Distributions;

/// Writes `summary.csv`: mean, spread and percentiles of numeric metrics.
pub struct Summary;

/// Writes `exact.csv`: exact probabilities beside the Monte Carlo estimates.
pub struct ExactComparison;

/// Writes `comparison.csv`: every variant tested against the baseline.
pub struct Comparison;

impl Export<RunReport> for Comparison {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        let Some(base) = report.baseline() else {
            return Ok(Vec::new());
        };
        if report.variants.len() < 2 {
            return Ok(Vec::new());
        }
        let held: Vec<&str> = report.compared().map(|v| v.variant.as_str()).collect();
        let about = TableMeta::of(&report.info).with_units(&base.metrics);
        let mut table = TableWriter::new(dir, "comparison", (&report.formats, &about));
        let variant_keys = VariantKeys::new(report, &held);
        // A variant's tests at a time: memory holds one variant's rows.
        for v in report.compared() {
            table.write(comparison_columns(report, (base, v), &variant_keys))?;
        }
        table.finish()
    }
}

/// The rows of `comparison.csv` that test `v` against the baseline
/// `base`, as columns.
fn comparison_columns(
    report: &RunReport,
    (base, v): (&VariantResult, &VariantResult),
    variant_keys: &VariantKeys,
) -> Vec<Column> {
    use crate::stats::compare::{Difference, Tests};
    let tests = Tests::new(&base.metrics, &v.metrics, (&v.shared, &v.paired_means));
    let alpha = tests.alpha;
    let rows: Vec<Difference> = tests.all;
    // A chi-square test has no estimate: null (empty), never NaN.
    let col = |f: &dyn Fn(&Difference) -> f64| {
        rows.iter()
            .map(|d| Some(f(d)).filter(|x| !x.is_nan()))
            .collect::<Vec<Option<f64>>>()
    };
    let variants = vec![v.variant.as_str(); rows.len()];
    let subjects: Vec<&str> = rows.iter().map(|d| d.subject.as_str()).collect();
    let mut columns = variant_keys.columns(&variants, VALUE_COLUMNS);
    columns.push(text(
        "baseline",
        rows.iter().map(|_| base.variant.clone()).collect(),
    ));
    columns.extend(subject_columns(&subjects));
    columns.extend([
        text("metric", rows.iter().map(|d| d.metric.clone()).collect()),
        text("scope", rows.iter().map(|d| d.scope().to_owned()).collect()),
        Column::new(
            "value".into(),
            rows.iter()
                .map(|d| d.value_tested())
                .collect::<Vec<Option<&str>>>(),
        ),
        text("test", rows.iter().map(|d| d.test.to_owned()).collect()),
        text("method", rows.iter().map(|d| d.method.to_owned()).collect()),
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
                .map(|d| d.pairs.map(|p| p.discordant))
                .collect::<Vec<Option<u64>>>(),
        ),
        Column::new(
            "width_ratio".into(),
            rows.iter()
                .map(|d| d.pairs.map(|p| p.width_ratio).filter(|r| r.is_finite()))
                .collect::<Vec<Option<f64>>>(),
        ),
        Column::new(
            "significant".into(),
            rows.iter()
                .map(|d| d.p_value < alpha)
                .collect::<Vec<bool>>(),
        ),
    ]);
    // Asked, the least difference that matters marks each one below it.
    if let Some(m) = report.info.min_effect {
        columns.push(Column::new(
            "below_min_effect".into(),
            rows.iter()
                .map(|d| d.below(m))
                .collect::<Vec<Option<bool>>>(),
        ));
    }
    let keys: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|d| (v.variant.as_str(), d.subject.as_str(), d.metric.as_str()))
        .collect();
    columns.extend(stand_in_columns(report, &keys, Some(&base.variant)));
    columns
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
    let mut table = TableWriter::new(dir, stem, (formats, about));
    table.write(columns)?;
    table.finish()
}

/// Rows a Parquet row group holds (polars' own default), so a table
/// written in chunks has the row groups it would have had whole.
const ROW_GROUP: usize = 512 * 512;

/// A table written a chunk of rows at a time (a variant's, in a sweep), as
/// `<stem>.csv` and/or `<stem>.parquet`: memory holds one chunk, and at
/// most a Parquet row group's rows. The bytes are those of the whole table
/// written at once; every chunk has the same columns.
pub struct TableWriter<'a> {
    dir: &'a Path,
    stem: &'a str,
    formats: &'a Formats,
    about: &'a TableMeta,
    /// Opened with the first chunk, whose columns name the schema.
    csv: Option<polars::io::csv::write::BatchedWriter<File>>,
    parquet: Option<ParquetRows>,
}

/// A Parquet file being written, and the rows not yet in a row group.
struct ParquetRows {
    writer: polars::io::parquet::write::BatchedWriter<File>,
    pending: Vec<DataFrame>,
    rows: usize,
}

impl<'a> TableWriter<'a> {
    /// A table to be written in `dir`; nothing is created before the first chunk.
    pub fn new(
        dir: &'a Path,
        stem: &'a str,
        (formats, about): (&'a Formats, &'a TableMeta),
    ) -> Self {
        Self {
            dir,
            stem,
            formats,
            about,
            csv: None,
            parquet: None,
        }
    }

    fn create(&self, format: &str) -> Result<File> {
        let name = format!("{}.{format}", self.stem);
        File::create(self.dir.join(&name)).with_context(|| format!("cannot create {name}"))
    }

    fn failed(&self, format: &str, e: impl std::fmt::Display) -> anyhow::Error {
        anyhow::anyhow!("cannot write {}.{format}: {e}", self.stem)
    }

    /// Appends the rows of `columns`.
    pub fn write(&mut self, columns: Vec<Column>) -> Result<()> {
        let frame = frame(self.stem, columns)?;
        if self.formats.csv {
            if self.csv.is_none() {
                let file = self.create("csv")?;
                let batches = CsvWriter::new(file)
                    .include_header(true)
                    .batched(frame.schema())
                    .map_err(|e| self.failed("csv", e))?;
                self.csv = Some(batches);
            }
            let result = self.csv.as_mut().map(|csv| csv.write_batch(&frame));
            result.transpose().map_err(|e| self.failed("csv", e))?;
        }
        if self.formats.parquet {
            if self.parquet.is_none() {
                let file = self.create("parquet")?;
                let mut metadata = vec![arrow_schema_for_older_readers(&frame)];
                metadata.extend(
                    (self.about.0.iter()).map(|(key, value)| {
                        KeyValue::new(format!("warcrunch.{key}"), value.clone())
                    }),
                );
                let writer = ParquetWriter::new(file)
                    .with_key_value_metadata(Some(KeyValueMetadata::Static(metadata)))
                    .batched(frame.schema())
                    .map_err(|e| self.failed("parquet", e))?;
                self.parquet = Some(ParquetRows {
                    writer,
                    pending: Vec::new(),
                    rows: 0,
                });
            }
            let full = self.parquet.as_mut().is_some_and(|p| {
                p.rows += frame.height();
                p.pending.push(frame);
                p.rows >= ROW_GROUP
            });
            if full {
                self.flush_row_groups(false)?;
            }
        }
        Ok(())
    }

    /// Writes the pending rows as row groups of [`ROW_GROUP`] rows; the last,
    /// shorter one only when `all`.
    fn flush_row_groups(&mut self, all: bool) -> Result<()> {
        let Some(parquet) = self.parquet.as_mut() else {
            return Ok(());
        };
        if parquet.pending.is_empty() {
            return Ok(());
        }
        let failed = |e: PolarsError| anyhow::anyhow!("cannot write {}.parquet: {e}", self.stem);
        let mut chunks = std::mem::take(&mut parquet.pending).into_iter();
        let mut rows = chunks.next().expect("pending rows");
        for chunk in chunks {
            rows.vstack_mut_owned(chunk).map_err(failed)?;
        }
        while rows.height() >= ROW_GROUP || (all && rows.height() > 0) {
            let (mut group, rest) = rows.split_at(ROW_GROUP.min(rows.height()) as i64);
            group.rechunk_mut_par();
            parquet.writer.write_batch(&group).map_err(failed)?;
            rows = rest;
        }
        parquet.rows = rows.height();
        if parquet.rows > 0 {
            parquet.pending.push(rows);
        }
        Ok(())
    }

    /// Ends the files; returns their names.
    pub fn finish(mut self) -> Result<Vec<String>> {
        let mut written = Vec::new();
        if let Some(mut csv) = self.csv.take() {
            csv.finish().map_err(|e| self.failed("csv", e))?;
            written.push(format!("{}.csv", self.stem));
        }
        self.flush_row_groups(true)?;
        if let Some(parquet) = self.parquet.take() {
            parquet
                .writer
                .finish()
                .map_err(|e| self.failed("parquet", e))?;
            written.push(format!("{}.parquet", self.stem));
        }
        Ok(written)
    }
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
    VariantKeys::new(report, variants).columns(variants, taken)
}

/// What a table's variant columns need, found once for the table: each
/// variant's place among the report's, and the type of each swept
/// setting's column (whole numbers, numbers or text, as every variant the
/// table holds allows), so that chunks of the table agree.
struct VariantKeys<'a> {
    report: &'a RunReport,
    place: std::collections::HashMap<&'a str, usize>,
    kinds: Vec<ValueKind>,
}

impl<'a> VariantKeys<'a> {
    /// The keys of a table whose rows are about the variants `held`.
    fn new(report: &'a RunReport, held: &[&str]) -> Self {
        let place: std::collections::HashMap<&str, usize> = report
            .info
            .variants
            .iter()
            .enumerate()
            .rev()
            .map(|(i, name)| (name.as_str(), i))
            .collect();
        let mut keys = VariantKeys {
            report,
            place,
            kinds: Vec::new(),
        };
        keys.kinds = (report.info.parameters.iter())
            .map(|p| ValueKind::of(held.iter().map(|v| keys.value(p, v))))
            .collect();
        keys
    }

    /// Setting `p`'s value in variant `v` (empty where it has none).
    fn value(&self, p: &'a crate::report::Parameter, v: &str) -> &'a str {
        self.place
            .get(v)
            .and_then(|&i| p.values.get(i))
            .map_or("", String::as_str)
    }

    /// The variant columns of rows about `variants`, row by row.
    fn columns(&self, variants: &[&str], taken: &[&str]) -> Vec<Column> {
        if self.report.is_plain() {
            return Vec::new();
        }
        let mut columns = vec![Column::new("variant".into(), variants.to_vec())];
        for (p, kind) in self.report.info.parameters.iter().zip(&self.kinds) {
            let values: Vec<&str> = variants.iter().map(|v| self.value(p, v)).collect();
            let name = if taken.contains(&p.name.as_str()) || p.name == "variant" {
                format!("set.{}", p.name)
            } else {
                p.name.clone()
            };
            columns.push(kind.column(&name, &values));
        }
        columns
    }
}

/// The last two columns of every file: `stand_in_tables`, the tables
/// holding stand-in values that each row's metric rests on (`; `
/// between them, missing for none), then `uses_stand_ins`, whether there is
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
pub(in crate::report) trait Keyed {
    /// Its variant, subject and metric.
    fn key(&self) -> [&str; 3];
}

/// `name` (and its other formats), written a variant at a time: the rows
/// `rows_of` gives each variant that `holds` rows, each with its variant
/// and subject columns, then the columns `own` makes of them, then the
/// stand-in columns.
fn keyed_table<T: Keyed>(
    report: &RunReport,
    (dir, name): (&Path, &str),
    holds: impl Fn(&VariantResult) -> bool,
    rows_of: impl Fn(&VariantResult) -> Vec<T>,
    own: fn(&[T]) -> Vec<Column>,
) -> Result<Vec<String>> {
    let held: Vec<&VariantResult> = report.variants.iter().filter(|v| holds(v)).collect();
    let held_names: Vec<&str> = held.iter().map(|v| v.variant.as_str()).collect();
    let variant_keys = VariantKeys::new(report, &held_names);
    let about = TableMeta::of_report(report);
    let mut table = TableWriter::new(dir, name, (&report.formats, &about));
    for variant in held {
        let rows = rows_of(variant);
        let keys3: Vec<(&str, &str, &str)> = rows
            .iter()
            .map(|r| {
                let [v, s, m] = r.key();
                (v, s, m)
            })
            .collect();
        let (variants, subjects): (Vec<&str>, Vec<&str>) =
            keys3.iter().map(|&(v, s, _)| (v, s)).unzip();
        let mut columns = variant_keys.columns(&variants, VALUE_COLUMNS);
        columns.extend(subject_columns(&subjects));
        columns.extend(own(&rows));
        columns.extend(stand_in_columns(report, &keys3, None));
        table.write(columns)?;
    }
    table.finish()
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

/// The type of a column of values shown as text: whole numbers as
/// integers, other numbers as floats, anything else as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueKind {
    Integer,
    Float,
    Text,
}

impl ValueKind {
    /// The type every one of `values` allows.
    fn of<'a>(values: impl Iterator<Item = &'a str>) -> ValueKind {
        values.fold(ValueKind::Integer, |kind, v| match kind {
            ValueKind::Integer if v.parse::<i64>().is_ok() => ValueKind::Integer,
            ValueKind::Integer | ValueKind::Float if v.parse::<f64>().is_ok() => ValueKind::Float,
            _ => ValueKind::Text,
        })
    }

    /// `values` as a column of this type.
    fn column(self, name: &str, values: &[&str]) -> Column {
        match self {
            ValueKind::Integer => Column::new(
                name.into(),
                values
                    .iter()
                    .map(|v| v.parse::<i64>().ok())
                    .collect::<Vec<_>>(),
            ),
            ValueKind::Float => Column::new(
                name.into(),
                values
                    .iter()
                    .map(|v| v.parse::<f64>().ok())
                    .collect::<Vec<_>>(),
            ),
            ValueKind::Text => Column::new(name.into(), values.to_vec()),
        }
    }
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
    /// The tool's version, the intervals' level and the tool's commit
    /// (every Parquet file, a run's or several battles' index).
    pub fn tool() -> TableMeta {
        TableMeta(vec![
            (
                "tool_version".to_owned(),
                env!("CARGO_PKG_VERSION").to_owned(),
            ),
            ("interval_level".to_owned(), "0.95".to_owned()),
            (
                "tool_commit".to_owned(),
                crate::report::TOOL_COMMIT.to_owned(),
            ),
        ])
    }

    /// What a run's Parquet files say of themselves: the run and its
    /// metrics' units.
    pub fn of_report(report: &RunReport) -> TableMeta {
        let metrics = (report.variants.first()).map_or(&[][..], |v| &v.metrics[..]);
        TableMeta::of(&report.info).with_units(metrics)
    }

    /// A run's: the tool, and the run's battle, system, seed and battles.
    pub fn of(info: &RunInfo) -> TableMeta {
        let mut meta = TableMeta::tool();
        let mut add = |key: &str, value: Option<String>| {
            if let Some(value) = value {
                meta.0.push((key.to_owned(), value));
            }
        };
        add("battle", Some(info.name.clone()));
        add("system", Some(info.system.clone()));
        add("seed", info.seed.map(|s| s.to_string()));
        add("battles", info.trials.map(|t| t.to_string()));
        meta
    }

    /// With `units`: a JSON object of each metric's unit, where it has one
    /// (`{"casualties_pct": "% of Troop Strength"}`), as the battle's
    /// system (the `system` already named) words it.
    pub fn with_units<W>(mut self, metrics: &[Metric<W>]) -> TableMeta {
        let system = (self.0.iter())
            .find(|(key, _)| key == "system")
            .map(|(_, value)| value.clone())
            .unwrap_or_default();
        let units: serde_json::Map<String, serde_json::Value> = metrics
            .iter()
            .filter_map(|m| {
                let unit = crate::report::kit::words::metric(&system, &m.name).1?;
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

/// A string column; an empty string is a missing cell, as a missing
/// number is: empty in CSV (not `""`), null in Parquet, so every reader
/// takes a row's blank the same from either file.
pub fn text(name: &str, values: Vec<String>) -> Column {
    let values: Vec<Option<String>> = values
        .into_iter()
        .map(|v| Some(v).filter(|v| !v.is_empty()))
        .collect();
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
    (report.variants.iter())
        .flat_map(|v| distribution_rows_of(&report.info.system, v))
        .collect()
}

/// The rows of `distributions.csv` about one variant of a battle of
/// `system` (whose words its values take).
pub fn distribution_rows_of(system: &str, v: &VariantResult) -> Vec<DistributionRow> {
    let mut rows = Vec::new();
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
                value_words: crate::report::kit::words::value(system, m, bin),
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
    rows
}

/// Every row of `summary.csv`.
pub fn summary_rows(report: &RunReport) -> Vec<SummaryRow> {
    report.variants.iter().flat_map(summary_rows_of).collect()
}

/// The rows of `summary.csv` about one variant.
pub fn summary_rows_of(v: &VariantResult) -> Vec<SummaryRow> {
    v.metrics
        .iter()
        .filter_map(|m| {
            Some(SummaryRow {
                variant: v.variant.clone(),
                subject: m.subject.clone(),
                metric: m.name.clone(),
                summary: m.summary()?.into(),
            })
        })
        .collect()
}

impl Export<RunReport> for Distributions {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        keyed_table(
            report,
            (dir, "distributions"),
            |_| true,
            |v| distribution_rows_of(&report.info.system, v),
            distribution_columns,
        )
    }
}

impl Export<RunReport> for Summary {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        keyed_table(
            report,
            (dir, "summary"),
            |_| true,
            summary_rows_of,
            summary_columns,
        )
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
        Column::new(
            "exact_probability".into(),
            floats(&|r| crate::stats::format::without_float_noise(r.exact)),
        ),
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
    "below_min_effect",
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
    report.variants.iter().flat_map(agreements_of).collect()
}

/// The agreements of one variant (none without exact laws).
pub fn agreements_of(v: &VariantResult) -> Vec<Agreement> {
    let mut out = Vec::new();
    let Some(exact) = &v.exact else {
        return out;
    };
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
    out
}

impl Export<RunReport> for ExactComparison {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        let holds = |v: &VariantResult| !agreements_of(v).is_empty();
        if !report.variants.iter().any(holds) {
            return Ok(Vec::new());
        }
        keyed_table(
            report,
            (dir, "exact"),
            holds,
            agreements_of,
            agreement_columns,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn formats() -> Formats {
        Formats {
            csv: true,
            parquet: true,
            json: false,
        }
    }

    fn chunk(values: &[&str], counts: &[u64]) -> Vec<Column> {
        let values: Vec<&str> = values.to_vec();
        vec![
            ValueKind::of(["1", "2.5", "3"].into_iter()).column("setting", &values),
            Column::new("count".into(), counts.to_vec()),
        ]
    }

    #[test]
    fn a_table_written_in_chunks_is_the_table_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (whole, parts) = (dir.path().join("whole"), dir.path().join("parts"));
        std::fs::create_dir_all(&whole).unwrap();
        std::fs::create_dir_all(&parts).unwrap();
        let (about, formats) = (TableMeta::tool(), formats());
        write_table(
            &whole,
            "t",
            (&formats, &about),
            chunk(&["1", "1", "2.5", "3"], &[4, 5, 6, 7]),
        )
        .unwrap();
        let mut table = TableWriter::new(&parts, "t", (&formats, &about));
        // A chunk of whole numbers still writes them as the column's floats.
        table.write(chunk(&["1", "1"], &[4, 5])).unwrap();
        table.write(chunk(&["2.5", "3"], &[6, 7])).unwrap();
        assert_eq!(table.finish().unwrap(), ["t.csv", "t.parquet"]);
        let csv = std::fs::read_to_string(parts.join("t.csv")).unwrap();
        assert_eq!(csv, "setting,count\n1.0,4\n1.0,5\n2.5,6\n3.0,7\n");
        assert_eq!(std::fs::read_to_string(whole.join("t.csv")).unwrap(), csv);
        assert_eq!(
            std::fs::read(whole.join("t.parquet")).unwrap(),
            std::fs::read(parts.join("t.parquet")).unwrap()
        );
    }

    #[test]
    fn a_settings_column_takes_the_type_every_value_allows() {
        let kind = |values: &[&str]| ValueKind::of(values.iter().copied());
        assert_eq!(kind(&["-3", "0", "12"]), ValueKind::Integer);
        assert_eq!(kind(&["0", "0.05", "1"]), ValueKind::Float);
        assert_eq!(kind(&["1", "elite", "2.5"]), ValueKind::Text);
        assert_eq!(kind(&["2.5", "elite"]), ValueKind::Text);
        assert_eq!(kind(&[]), ValueKind::Integer);
    }
}

//! Everything a run writes: one small exporter per output file behind the
//! [`Export`] trait, written into a staging folder that replaces the
//! destination only when every file succeeded.
//!
//! The room has four layers, each a folder, each drawing only on those
//! below it (the architecture test holds the order):
//! - [`kit`]: what every page and chart is drawn with: the drawing, the
//!   page skeleton, words and numbers, the output folder and its name, the
//!   command line a report repeats;
//! - [`exporters`]: one file format each (CSV, JSON, a shard's partial
//!   counts, the key outcomes a format lists);
//! - [`findings`]: verdicts, flags and advice, computed once as data;
//! - [`writers`]: each question's files, console lines and pages.
//!
//! This file holds what they all describe: a run's provenance, its report
//! and the exporter trait.

pub mod exporters;
pub mod findings;
pub mod kit;
pub mod writers;

use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::stats::Metric;
pub use crate::stats::compare::{PairedMean, SharedCount};
use crate::tables::{RestsOn, TableUse};

/// Provenance of a run, written to `run.json` and shown in every report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunInfo {
    /// warcrunch version.
    pub tool_version: String,
    /// The git commit warcrunch was built from (`-modified` when the tree
    /// had changes), or `unknown` for a build outside git.
    #[serde(default = "unknown")]
    pub tool_commit: String,
    /// The command line that reproduces the run.
    pub command: String,
    /// The least difference that matters, as asked (`compare
    /// --min-effect`: percentage points for a probability, a mean's own
    /// units): a smaller one is never called higher or lower.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_effect: Option<f64>,
    /// Scenario file, if the run had one.
    pub scenario_path: Option<String>,
    /// SHA-256 of the scenario file.
    pub scenario_sha256: Option<String>,
    /// The scenario file's text: with the tables' texts, what reruns the
    /// run from `run.json` alone (`warcrunch run --from run.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario_text: Option<String>,
    /// Battle name.
    pub name: String,
    /// System name.
    pub system: String,
    /// Seed of the random streams.
    pub seed: Option<u64>,
    /// Battles run.
    pub trials: Option<u64>,
    /// Battles per chunk (part of the reproducibility contract).
    pub chunk_size: Option<u64>,
    /// How the run read its random numbers ([`crate::engine::STREAM_LAYOUT`]):
    /// the same seed gives the same numbers only under the same layout.
    #[serde(default)]
    pub stream_layout: Option<u32>,
    /// Worker threads used.
    pub threads: Option<usize>,
    /// Wall-clock seconds spent simulating (the slowest shard's, when merged).
    pub elapsed_seconds: Option<f64>,
    /// Shards the run was split into and merged from (absent: one process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<u64>,
    /// Why a `--precision` run stopped where it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Every table used, with its stand-ins.
    pub tables: Vec<TableUse>,
    /// Rules in use whose published form is unknown.
    pub stand_in_rules: Vec<String>,
    /// The tables each metric can depend on (absent from an older
    /// `run.json`: then every metric rests on every table).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rests_on: Vec<RestsOn>,
    /// Variant names of a sweep, in order (empty for a plain run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<String>,
    /// A sweep's baseline: the variant holding the scenario's own value of
    /// every swept setting, which every other variant is compared with;
    /// absent when the sweep holds none (the first variant is then the
    /// baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// A sweep's cap on P(down or dead) for its recommendation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_risk_of_down: Option<f64>,
    /// PCs a sweep's recommendation is made for: those whose own settings
    /// are swept, and those named with `--recommend-for`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub swept_heroes: Vec<String>,
    /// What the battle's declared readings of its rules hold fixed across
    /// a sweep's variants (a one-day GURPS battle's victory, when only a
    /// PC's own settings are swept), said beside its verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_by_readings: Vec<String>,
    /// A comparison's scenarios, each with its file's hash and its tables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scenarios: Vec<ScenarioUse>,
    /// A sweep's settings, each with its value in every variant: one column
    /// each in the tables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<Parameter>,
}

/// One swept setting, as `run.json` records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    /// Its column in the tables: the setting's last path part (its full
    /// path if that is ambiguous; a table cell's path in its table).
    pub name: String,
    /// The setting's full path, as `--set` names it.
    pub path: String,
    /// Its value in each variant, in the order of `variants`.
    pub values: Vec<String>,
}

impl RunInfo {
    /// Every stand-in table value the run's numbers rest on, by table
    /// (`table glory: rows`). (The stand-in rules, readings of the rules,
    /// are in every run of a system and listed in its provenance.)
    pub fn stand_ins(&self) -> Vec<String> {
        stand_ins_of(&self.tables_resting_on_stand_ins())
    }

    /// The tables holding stand-in values that some metric of the run
    /// rests on (a table the battle loads but never reads is left out).
    pub fn tables_resting_on_stand_ins(&self) -> Vec<TableUse> {
        self.tables
            .iter()
            .filter(|t| !t.stand_ins.is_empty())
            .filter(|t| {
                self.rests_on.is_empty() || self.rests_on.iter().any(|r| r.tables.contains(&t.name))
            })
            .cloned()
            .collect()
    }

    /// Whether any of the run's numbers rests on a stand-in table value: a
    /// table some metric rests on holds one.
    pub fn uses_stand_ins(&self) -> bool {
        !self.stand_ins().is_empty()
    }

    /// The tables holding stand-in values that metric `metric` of
    /// `subject` rests on, in `variant`'s battle (a comparison's scenario,
    /// else the run's).
    pub fn stand_in_tables(&self, variant: &str, subject: &str, metric: &str) -> Vec<String> {
        let (tables, rests_on) = match self.scenarios.iter().find(|u| u.variant == variant) {
            Some(u) => (&u.tables, &u.rests_on),
            None => (&self.tables, &self.rests_on),
        };
        crate::tables::stand_in_tables(tables, rests_on, subject, metric)
    }

    /// [`RunInfo::stand_in_tables`] in any of `variants`' battles, each
    /// table once, in the order first met.
    pub fn stand_in_tables_of_any(
        &self,
        variants: &[&str],
        subject: &str,
        metric: &str,
    ) -> Vec<String> {
        let mut all: Vec<String> = Vec::new();
        for v in variants {
            for t in self.stand_in_tables(v, subject, metric) {
                if !all.contains(&t) {
                    all.push(t);
                }
            }
        }
        all
    }

    /// Whether metric `metric` of `subject` rests on a stand-in value in
    /// the run's battle (or any of a comparison's).
    pub fn metric_uses_stand_ins(&self, subject: &str, metric: &str) -> bool {
        !self.metric_stand_in_tables(subject, metric).is_empty()
    }

    /// The tables holding stand-in values that metric `metric` of
    /// `subject` rests on in any battle of the run (each of a comparison's
    /// scenarios).
    pub fn metric_stand_in_tables(&self, subject: &str, metric: &str) -> Vec<String> {
        let mut variants = vec![""];
        variants.extend(self.scenarios.iter().map(|u| u.variant.as_str()));
        self.stand_in_tables_of_any(&variants, subject, metric)
    }

    /// The line naming what drew a chart of the run's numbers, so a
    /// picture met on its own can be traced and redrawn: `warcrunch 0.1.0
    /// · seed 7`.
    pub fn source_line(&self) -> String {
        match self.seed {
            Some(seed) => format!("warcrunch {} · seed {seed}", self.tool_version),
            None => format!("warcrunch {}", self.tool_version),
        }
    }
}

/// [`RunInfo::stand_ins`] of some tables.
pub fn stand_ins_of(tables: &[TableUse]) -> Vec<String> {
    tables
        .iter()
        .filter(|t| !t.stand_ins.is_empty())
        .map(|t| {
            let paths = crate::tables::stand_ins::runs_of_rows(&t.stand_ins);
            format!("table {}: {}", t.name, paths.join(", "))
        })
        .collect()
}

/// The commit recorded when `run.json` predates the field.
fn unknown() -> String {
    "unknown".to_owned()
}

/// The commit this binary was built from (see `build.rs`).
pub const TOOL_COMMIT: &str = env!("WARCRUNCH_COMMIT");

/// One scenario of a comparison, as `run.json` records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioUse {
    /// Variant name in the comparison.
    pub variant: String,
    /// The file.
    pub path: String,
    /// SHA-256 of the file.
    pub sha256: String,
    /// The file's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Every table it used, with its stand-ins.
    pub tables: Vec<TableUse>,
    /// The tables each of its metrics can depend on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rests_on: Vec<RestsOn>,
}

/// The results of one variant (a plain run has one, with an empty name).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VariantResult {
    /// Empty for a plain run; `risk=-3` in a sweep.
    pub variant: String,
    /// Monte Carlo counts.
    pub metrics: Vec<Metric<u64>>,
    /// Exact distributions, when computed.
    pub exact: Option<Vec<Metric<f64>>>,
    /// Battles in which this variant and the first (fought on the same
    /// battle streams) fell in the same category of a metric: what makes
    /// the comparison paired. Empty for a plain run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared: Vec<SharedCount>,
    /// The battle-by-battle differences of each numeric metric this
    /// variant and the first share (fought on the same streams): what pairs
    /// the comparison of their means. Empty for a plain run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paired_means: Vec<PairedMean>,
}

/// Which files the tabular outputs are written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Formats {
    /// `.csv` files.
    pub csv: bool,
    /// `.parquet` files.
    pub parquet: bool,
    /// One `results.json` document.
    pub json: bool,
}

impl Default for Formats {
    fn default() -> Self {
        Formats {
            csv: true,
            parquet: false,
            json: false,
        }
    }
}

/// One tabular output format, as `--format` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// `.csv` files.
    Csv,
    /// `.parquet` files.
    Parquet,
    /// One `results.json` document.
    Json,
}

impl Formats {
    /// The formats listed (`--format csv,parquet`).
    /// CSV alone when the list is empty (no `--format` given).
    pub fn of(list: &[Format]) -> Formats {
        if list.is_empty() {
            return Formats::default();
        }
        Formats {
            csv: list.contains(&Format::Csv),
            parquet: list.contains(&Format::Parquet),
            json: list.contains(&Format::Json),
        }
    }

    /// The formats as `--format` names them, in that order.
    pub fn names(&self) -> Vec<&'static str> {
        [
            (self.csv, "csv"),
            (self.parquet, "parquet"),
            (self.json, "json"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect()
    }
}

/// Which command produced a report: decides its console summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportKind {
    /// `warcrunch run`.
    Run,
    /// `warcrunch sweep`.
    Sweep,
    /// `warcrunch compare`.
    Compare,
}

/// A finished simulation run.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// Provenance.
    pub info: RunInfo,
    /// Results, one per variant.
    pub variants: Vec<VariantResult>,
    /// Tabular output formats.
    pub formats: Formats,
    /// How often the battles read each table cell, when asked (`run --usage`).
    pub usage: Option<crate::questions::usage::Usage>,
}

impl RunReport {
    /// The variant every other is compared with: a sweep's baseline (its
    /// scenario's own values), else the first.
    pub fn baseline(&self) -> Option<&VariantResult> {
        let own = (self.info.baseline.as_ref())
            .and_then(|name| self.variants.iter().find(|v| &v.variant == name));
        own.or(self.variants.first())
    }

    /// Every variant but the baseline, in order.
    pub fn compared(&self) -> impl Iterator<Item = &VariantResult> {
        let base = self.baseline().map(|b| b.variant.as_str());
        self.variants
            .iter()
            .filter(move |v| Some(v.variant.as_str()) != base)
    }

    /// Whether this is a plain run: one variant, unnamed.
    pub fn is_plain(&self) -> bool {
        matches!(self.variants.as_slice(), [only] if only.variant.is_empty())
    }
}

/// Writes one or more output files for a report of type `R`.
pub trait Export<R> {
    /// Writes into `dir`, returning the names of the files written.
    fn write(&self, report: &R, dir: &Path) -> Result<Vec<String>>;
}

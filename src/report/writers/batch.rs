//! A run of several scenarios: the tables of every battle in one file each
//! (`distributions.csv`, `summary.csv`, `exact.csv`, a `scenario` column
//! first), `run.json`, and an index page with one line of key odds per
//! battle. Each battle's own folder holds its usual report.

use std::path::Path;

use anyhow::{Context, Result};
use askama::Template;
use polars::prelude::Column;

use crate::report::exporters::csv::{
    Keyed, TableMeta, agreement_columns, agreements, distribution_columns, distribution_rows,
    numbers, stand_in_pair, subject_columns, summary_columns, summary_rows, text, write_table,
};
use crate::report::findings::{KeyRow, key_odds, key_rows};
use crate::report::kit::page::{Provenance, write_report};
use crate::report::{Formats, RunReport, TOOL_COMMIT};
use crate::stats::format::thousands;

/// One battle of the batch, as the combined files show it.
pub struct Entry<'a> {
    /// Its name and folder.
    pub name: &'a str,
    /// Its scenario file.
    pub path: &'a Path,
    /// Its report.
    pub report: &'a RunReport,
    /// Why its exact odds are missing, when asked and not covered.
    pub no_exact: Option<&'a str>,
}

/// Writes the combined tables, `run.json` and `report.html` into `dir`;
/// `left_out` names each file a folder held that is no scenario, and why.
pub fn write(
    entries: &[Entry],
    left_out: &[(String, String)],
    command: &str,
    dir: &Path,
    formats: Formats,
) -> Result<Vec<String>> {
    let mut files = distributions(entries, dir, &formats)?;
    files.extend(summaries(entries, dir, &formats)?);
    files.extend(exact(entries, dir, &formats)?);
    files.extend(key_outcomes(entries, dir, &formats)?);
    let json = serde_json::json!({
        "tool_version": env!("CARGO_PKG_VERSION"),
        "tool_commit": TOOL_COMMIT,
        "command": command,
        "scenarios": entries.iter().map(|e| {
            let info = &e.report.info;
            serde_json::json!({
                "scenario": e.name,
                "folder": e.name,
                "path": e.path.display().to_string(),
                "sha256": info.scenario_sha256,
                "name": info.name,
                "system": info.system,
                "trials": info.trials,
                "seed": info.seed,
                "uses_stand_ins": info.uses_stand_ins(),
                "no_exact": e.no_exact,
            })
        }).collect::<Vec<_>>(),
        "left_out": left_out.iter().map(|(path, reason)| {
            serde_json::json!({ "path": path, "reason": reason })
        }).collect::<Vec<_>>(),
    });
    std::fs::write(
        dir.join("run.json"),
        serde_json::to_string_pretty(&json)? + "\n",
    )
    .context("cannot write run.json")?;
    files.push("run.json".into());
    files.extend(write_report(&index(entries, left_out, command), dir)?);
    Ok(files)
}

/// A combined table's columns: the battle's name and system, the
/// subject's columns, the table's own `columns`, and last (as in every
/// file) the stand-in tables each row's metric rests on in its battle.
fn battle_columns<T: Keyed>(
    entries: &[Entry],
    rows_of: &[usize],
    rows: &[T],
    columns: Vec<Column>,
) -> Vec<Column> {
    let each = |f: &dyn Fn(&Entry) -> String| -> Vec<String> {
        rows_of.iter().map(|&i| f(&entries[i])).collect()
    };
    let mut all = vec![
        text("scenario", each(&|e| e.name.to_owned())),
        text("system", each(&|e| e.report.info.system.clone())),
    ];
    let subjects: Vec<&str> = rows.iter().map(|r| r.key()[1]).collect();
    all.extend(subject_columns(&subjects));
    all.extend(columns);
    let tables: Vec<Vec<String>> = rows_of
        .iter()
        .zip(rows)
        .map(|(&i, row)| {
            let [_, subject, metric] = row.key();
            let e = &entries[i];
            let variant = e.report.variants.first().map_or("", |v| v.variant.as_str());
            e.report.info.stand_in_tables(variant, subject, metric)
        })
        .collect();
    all.extend(stand_in_pair(&tables));
    all
}

/// `distributions.csv`: every battle's.
fn distributions(entries: &[Entry], dir: &Path, formats: &Formats) -> Result<Vec<String>> {
    let (rows_of, rows) = rows_of_each(entries, |e| distribution_rows(e.report));
    let columns = battle_columns(entries, &rows_of, &rows, distribution_columns(&rows));
    write_table(dir, "distributions", (formats, &TableMeta::tool()), columns)
}

/// `summary.csv`: every battle's.
fn summaries(entries: &[Entry], dir: &Path, formats: &Formats) -> Result<Vec<String>> {
    let (rows_of, rows) = rows_of_each(entries, |e| summary_rows(e.report));
    let columns = battle_columns(entries, &rows_of, &rows, summary_columns(&rows));
    write_table(dir, "summary", (formats, &TableMeta::tool()), columns)
}

/// `exact.csv`: every battle's exact odds beside its estimates, when any
/// battle has them.
fn exact(entries: &[Entry], dir: &Path, formats: &Formats) -> Result<Vec<String>> {
    let (rows_of, rows) = rows_of_each(entries, |e| agreements(e.report));
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let columns = battle_columns(entries, &rows_of, &rows, agreement_columns(&rows));
    write_table(dir, "exact", (formats, &TableMeta::tool()), columns)
}

/// `key_outcomes.csv`: every battle's headline outcomes, one row each,
/// named in words, with its estimate, interval and battles.
fn key_outcomes(entries: &[Entry], dir: &Path, formats: &Formats) -> Result<Vec<String>> {
    let (rows_of, rows) = rows_of_each(entries, |e| {
        e.report
            .variants
            .first()
            .map(|v| key_rows(&v.metrics))
            .unwrap_or_default()
    });
    let each = |f: &dyn Fn(&KeyRow) -> String| rows.iter().map(f).collect::<Vec<_>>();
    let columns = vec![
        text("metric", each(&|r| r.metric.clone())),
        // A mean reads no one value: its `value` is empty, as its kind says.
        Column::new(
            "value".into(),
            rows.iter()
                .map(|r| (r.kind != "mean").then_some(r.value.as_str()))
                .collect::<Vec<Option<&str>>>(),
        ),
        text("outcome", each(&|r| r.outcome.clone())),
        text("kind", each(&|r| r.kind.to_owned())),
        numbers("estimate", &rows, |r| r.estimate.0),
        numbers("ci_low", &rows, |r| r.estimate.1),
        numbers("ci_high", &rows, |r| r.estimate.2),
        text("printed", each(&|r| r.printed())),
        Column::new(
            "battles".into(),
            rows.iter().map(|r| r.battles).collect::<Vec<u64>>(),
        ),
    ];
    let columns = battle_columns(entries, &rows_of, &rows, columns);
    write_table(dir, "key_outcomes", (formats, &TableMeta::tool()), columns)
}

/// Every battle's rows, each with the index of its battle.
fn rows_of_each<T>(entries: &[Entry], rows: impl Fn(&Entry) -> Vec<T>) -> (Vec<usize>, Vec<T>) {
    entries
        .iter()
        .enumerate()
        .flat_map(|(i, e)| rows(e).into_iter().map(move |r| (i, r)))
        .unzip()
}

/// The index page (`templates/report/batch.html`).
#[derive(Template)]
#[template(path = "report/batch.html")]
struct IndexPage {
    title: String,
    battles: Vec<BattleLine>,
    left_out: Vec<(String, String)>,
    /// Whether any battle's numbers rest on stand-in values.
    any_stand_ins: bool,
    provenance: Provenance,
}

/// One battle's line on the index.
struct BattleLine {
    name: String,
    folder: String,
    system: String,
    battles: String,
    /// Its key odds, each a sentence without its full stop, and whether
    /// it rests on stand-in values.
    odds: Vec<(String, bool)>,
    /// Its stand-in values, listed (empty: none).
    stand_ins: Vec<String>,
    no_exact: Option<String>,
}

fn index(entries: &[Entry], left_out: &[(String, String)], command: &str) -> IndexPage {
    let battles: Vec<BattleLine> = entries
        .iter()
        .map(|e| {
            let info = &e.report.info;
            let trials = info.trials.unwrap_or(0);
            BattleLine {
                name: info.name.clone(),
                folder: e.name.to_owned(),
                system: info.system.clone(),
                battles: thousands(trials),
                odds: e
                    .report
                    .variants
                    .first()
                    .map(|v| key_odds(&v.metrics, trials, info))
                    .unwrap_or_default(),
                stand_ins: info.stand_ins(),
                no_exact: e.no_exact.map(str::to_owned),
            }
        })
        .collect();
    IndexPage {
        title: format!("{} battles", entries.len()),
        any_stand_ins: battles.iter().any(|b| !b.stand_ins.is_empty()),
        battles,
        left_out: left_out.to_vec(),
        provenance: Provenance {
            rows: vec![
                ("tool", format!("warcrunch {}", env!("CARGO_PKG_VERSION"))),
                ("build", TOOL_COMMIT.to_owned()),
                ("reproduce with", command.to_owned()),
            ],
            tables: Vec::new(),
            stand_in_rules: Vec::new(),
        },
    }
}

//! A table against another across battles: for every scenario, the same
//! battles fought with table A and with table B (a paired comparison, as
//! `compare` makes), and one summary of each scenario's key outcomes.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::cell_shares::cell_shares;
use super::compare::{CompareRequest, compare};
use super::{Destination, scenario_name, unique_name};
use crate::analysis::runner::{Plan, Written, run_info};
use crate::report::kit::command_line::CommandLine;
use crate::report::kit::output_dir::Staging;
use crate::report::writers::table_compare::{ScenarioOutcomes, TableComparison, key_outcomes};
use crate::report::{RunReport, ScenarioUse};
use crate::scenario::Resolved;
use crate::tables::BUILT_IN;

/// A table comparison asked: `--table NAME=A,B` over some scenarios.
#[derive(Debug, Clone)]
pub struct TableCompareRequest {
    /// The table's name (`spoils`).
    pub table: String,
    /// The two tables, each `builtin` or a file: A is the baseline.
    pub files: [String; 2],
    /// Battles per scenario and table (each scenario's `trials` when absent).
    pub trials: Option<u64>,
    /// Seed of the streams (each scenario's `seed` when absent).
    pub seed: Option<u64>,
    /// Events reported besides the key outcomes.
    pub targets: Vec<String>,
    /// The least difference that matters: a smaller one is never called
    /// higher or lower (percentage points for a probability).
    pub min_effect: Option<f64>,
}

impl TableCompareRequest {
    /// `NAME=A,B` as `--table` writes it for a table comparison; `None`
    /// for any other form (`N:NAME=FILE`, `NAME=FILE`).
    pub fn parse_pair(option: &str) -> Option<(String, [String; 2])> {
        let (name, files) = option.split_once('=')?;
        if name.contains(':') {
            return None;
        }
        let (a, b) = files.split_once(',')?;
        let (a, b) = (a.trim(), b.trim());
        (!a.is_empty() && !b.is_empty() && !b.contains(','))
            .then(|| (name.trim().to_owned(), [a.to_owned(), b.to_owned()]))
    }
}

/// Runs every scenario (each read with its own tables) with both tables
/// and writes each comparison and the summary.
pub fn compare_tables(
    resolved: &[Resolved],
    request: &TableCompareRequest,
    plan: &Plan,
    to: &Destination,
) -> Result<TableCompareAnswer> {
    let table = &request.table;
    let labels = table_labels(&request.files)?;
    let files: Vec<String> = request
        .files
        .iter()
        .map(|f| absolute_table(f))
        .collect::<Result<_>>()?;
    // Which scenarios read the table; every scenario and both tables
    // checked before any battle.
    let mut reading = Vec::new();
    let mut not_read = Vec::new();
    for r in resolved {
        let (plain, path) = (&r.scenario, r.path());
        let reads = |name: &str| plain.battle.reads_table(name);
        if !plain
            .battle
            .tables()
            .iter()
            .any(|t| &t.name == table && reads(table))
        {
            let read: Vec<String> = plain
                .battle
                .tables()
                .iter()
                .filter(|t| reads(&t.name))
                .map(|t| t.name.clone())
                .collect();
            let read = if read.is_empty() {
                "no table".to_owned()
            } else {
                read.join(", ")
            };
            not_read.push((scenario_name(path), read));
            continue;
        }
        let both = (files.iter())
            .map(|file| r.with_tables(&[format!("{table}={file}")]))
            .collect::<Result<Vec<_>>>()?;
        reading.push((r, both));
    }
    if reading.is_empty() {
        bail!(
            "--table {table}=…: none of the scenarios reads a table `{table}`; they read: {}",
            not_read
                .iter()
                .map(|(name, read)| format!("{name}: {read}"))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    let out = to
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("reports/compare.table.{table}")));
    let staging = Staging::new(&out, to.force)?;
    // The cells the two differ in, each then moved alone.
    let cells = {
        let read = |file: &str| -> Result<toml::Table> {
            let (text, _) = crate::tables::text_as_read(
                &toml::Table::new(),
                reading[0].0.files(),
                &[(table.clone(), file.to_owned())],
                table,
            )?;
            Ok(toml::from_str(&text)?)
        };
        crate::tables::diff::differences(&read(&files[0])?, &read(&files[1])?)
    };
    let mut scenarios = Vec::new();
    let mut infos = Vec::new();
    for (r, both) in &reading {
        let path = r.path();
        let taken: Vec<String> = scenarios
            .iter()
            .map(|s: &ScenarioOutcomes| s.scenario.clone())
            .collect();
        let name = unique_name(path, &taken);
        // The comparison adds each PC's being out of action itself.
        let single = CompareRequest {
            names: labels.to_vec(),
            trials: request.trials,
            seed: request.seed,
            min_effect: request.min_effect,
            targets: request.targets.clone(),
        };
        let folder = Destination {
            out: Some(staging.path().join(&name)),
            force: true,
            formats: to.formats,
            named_out: Some(out.join(&name)),
            inputs: to.inputs.clone(),
            large_output: to.large_output,
        };
        let answer = compare(both, &single, plan, &folder)?;
        let report: &RunReport = &answer.report;
        infos.push(report.info.clone());
        let rows = key_outcomes(
            &report.info.system,
            (&report.variants[0], &report.variants[1]),
            request.min_effect,
        );
        let (trials, seed) = (
            report.info.trials.unwrap_or(0),
            report.info.seed.unwrap_or(0),
        );
        // Each changed cell alone, on the same battles.
        let shares = cell_shares(
            (&both[0], table),
            &cells,
            (&request.targets, &rows),
            (trials, seed),
            plan,
        )?;
        scenarios.push(ScenarioOutcomes {
            scenario: name.clone(),
            path: path.display().to_string(),
            folder: name,
            command: report.info.command.clone(),
            trials,
            seed,
            rows,
            shares,
        });
    }
    let first = &reading[0].0.scenario;
    let command = reproduce_command(resolved, request, (&out, to));
    let elapsed = infos.iter().filter_map(|i| i.elapsed_seconds).sum::<f64>();
    let mut info = run_info(
        first,
        command,
        infos.first().and_then(|i| i.threads).unwrap_or(1),
        std::time::Duration::from_secs_f64(elapsed),
    );
    info.name = format!("Table {table}: {} against {}", labels[1], labels[0]);
    info.scenario_path = None;
    info.scenario_sha256 = None;
    info.scenario_text = None;
    info.variants = labels.to_vec();
    info.scenarios = infos
        .iter()
        .zip(&scenarios)
        .flat_map(|(i, s)| {
            i.scenarios.iter().map(|u| ScenarioUse {
                variant: format!("{} / {}", s.scenario, u.variant),
                ..u.clone()
            })
        })
        .collect();
    info.trials = request.trials;
    info.seed = request.seed;
    let comparison = TableComparison {
        info,
        table: table.clone(),
        labels,
        scenarios,
        not_read,
        cells,
        formats: to.formats,
    };
    let files = crate::report::writers::table_compare::write(&comparison, staging.path())?;
    let folder = staging.commit()?;
    Ok(TableCompareAnswer {
        comparison,
        written: Written { folder, files },
    })
}

/// What a table comparison found and wrote.
#[derive(Debug)]
pub struct TableCompareAnswer {
    /// Each scenario's key outcomes with both tables.
    pub comparison: TableComparison,
    /// Where it was written (each scenario's comparison in a folder of its own).
    pub written: Written,
}

/// The two tables' names in the report: `builtin` or the file's stem
/// (the whole path where both stems agree).
fn table_labels(files: &[String; 2]) -> Result<[String; 2]> {
    let stem = |f: &str| {
        if f == BUILT_IN {
            BUILT_IN.to_owned()
        } else {
            Path::new(f)
                .file_stem()
                .map_or_else(|| f.to_owned(), |s| s.to_string_lossy().into_owned())
        }
    };
    if files[0] == files[1] {
        bail!(
            "--table …={},{}: the two tables are one file, so nothing would differ",
            files[0],
            files[1]
        );
    }
    let (a, b) = (stem(&files[0]), stem(&files[1]));
    Ok(if a == b { files.clone() } else { [a, b] })
}

/// A table file as every scenario reads it, whatever its folder: an
/// absolute path, or `builtin`.
fn absolute_table(file: &str) -> Result<String> {
    if file == BUILT_IN {
        return Ok(file.to_owned());
    }
    let path = std::path::absolute(file)
        .map_err(|e| anyhow::anyhow!("--table: cannot resolve {file}: {e}"))?;
    if !path.is_file() {
        bail!("--table: no table file {}", path.display());
    }
    Ok(path.display().to_string())
}

/// The command line that asks this comparison again, into the same folder
/// and formats.
fn reproduce_command(
    resolved: &[Resolved],
    request: &TableCompareRequest,
    (out, to): (&Path, &Destination),
) -> String {
    let line = (resolved.iter()).fold(CommandLine::new("compare"), |line, r| line.path(r.path()));
    let pair = format!(
        "{}={},{}",
        request.table, request.files[0], request.files[1]
    );
    line.option("table", pair)
        .option_if("trials", request.trials)
        .option_if("seed", request.seed)
        .options("target", &request.targets)
        .option_if("min-effect", request.min_effect)
        .written_to(to.named(out, crate::engine::Shard::WHOLE), &to.formats)
        .naming_inputs(to.inputs.as_deref())
        .into()
}

//! Many battles in one run: several scenario files or folders, each run as
//! `run` runs it into a folder of its own, and one table of them all.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::run::{RunAnswer, RunRequest, run};
use super::{Destination, unique_name};
use crate::analysis::runner::Plan;
use crate::report::kit::output_dir::Staging;
use crate::report::writers::batch::Entry;
use crate::scenario::Resolved;

/// A run of several scenarios asked: the files and folders named, and the
/// run each of them gets (its `scenario` is set per file).
#[derive(Debug, Clone)]
pub struct BatchRequest {
    /// Scenario files and folders (searched for `.toml` files, subfolders too).
    pub inputs: Vec<PathBuf>,
    /// The run of each scenario.
    pub run: RunRequest,
    /// `--table NAME=FILE` options every scenario is read with.
    pub tables: Vec<String>,
    /// The command line that asks the batch again.
    pub command: String,
}

/// A file a folder held that is no scenario, and why it was left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// The file.
    pub path: PathBuf,
    /// Why: `a table file (kind = "survival")`.
    pub reason: String,
}

/// One scenario's run within the batch.
#[derive(Debug)]
pub struct BatchRun {
    /// Its name: the file's stem (numbered if two share it), also its folder.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// What the run found and wrote (why its exact odds are missing, when
    /// `--exact` was asked and no exact method covers its battle).
    pub answer: RunAnswer,
}

/// What a batch found and wrote.
#[derive(Debug)]
pub struct BatchAnswer {
    /// Each scenario's run, in the order found.
    pub runs: Vec<BatchRun>,
    /// Files left out.
    pub skipped: Vec<Skipped>,
    /// The folder holding every run and the combined tables.
    pub folder: PathBuf,
    /// The combined files written at its top.
    pub files: Vec<String>,
}

/// The folder a batch writes when `--out` is not given.
pub const DEFAULT_BATCH_DIR: &str = "reports/runs";

/// The scenario files `inputs` name: files as given, folders searched
/// (sorted, subfolders too) for `.toml` files; a file that is no scenario
/// (a table file, another TOML file) is left out with its reason.
pub fn scenario_files(inputs: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<Skipped>)> {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found = Vec::new();
            toml_files(input, &mut found)?;
            if found.is_empty() {
                bail!("{}: the folder holds no .toml file", input.display());
            }
            files.extend(found);
        } else if input.is_file() {
            files.push(input.clone());
        } else {
            bail!("{}: no such scenario file or folder", input.display());
        }
    }
    let mut scenarios = Vec::new();
    for file in files {
        match not_a_scenario(&file)? {
            Some(reason) => skipped.push(Skipped { path: file, reason }),
            None if scenarios.contains(&file) => {}
            None => scenarios.push(file),
        }
    }
    if scenarios.is_empty() {
        bail!(
            "no scenario among {} (a scenario names its `system`); left out: {}",
            inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            skipped
                .iter()
                .map(|s| format!("{} ({})", s.path.display(), s.reason))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok((scenarios, skipped))
}

/// Every `.toml` file under `dir`, sorted by path.
fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read folder {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("cannot read folder {}", dir.display()))?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            toml_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
    Ok(())
}

/// Why `file` is no scenario (`None`: it names a `system`, so it is one,
/// valid or not: the run says what is wrong with it).
fn not_a_scenario(file: &Path) -> Result<Option<String>> {
    let text = crate::scenario::read_text(file)?;
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Ok(None);
    };
    if doc.contains_key("system") {
        return Ok(None);
    }
    Ok(Some(match doc.get("kind").and_then(|k| k.as_str()) {
        Some(kind) => format!("a table file (kind = \"{kind}\")"),
        None => "not a scenario: it names no `system`".to_owned(),
    }))
}

/// Runs every scenario into its own folder under the batch's folder and
/// writes the combined tables and the index page beside them.
pub fn run_batch(request: &BatchRequest, plan: &Plan, to: &Destination) -> Result<BatchAnswer> {
    if plan.shard != crate::engine::Shard::WHOLE {
        bail!(
            "--shard runs one scenario; give one scenario file, or run each scenario with --shard on its own"
        );
    }
    let (files, skipped) = scenario_files(&request.inputs)?;
    // Every scenario loads before any battle is fought.
    let resolved = (files.iter())
        .map(|file| Resolved::read(file, &request.tables))
        .collect::<Result<Vec<_>>>()?;
    let out = to
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_BATCH_DIR));
    let staging = Staging::new(&out, to.force)?;
    let mut runs: Vec<BatchRun> = Vec::new();
    for (file, resolved) in files.into_iter().zip(&resolved) {
        let taken: Vec<String> = runs.iter().map(|r| r.name.clone()).collect();
        let name = unique_name(&file, &taken);
        let one = RunRequest {
            exact_where_covered: true,
            ..request.run.clone()
        };
        let folder = Destination {
            out: Some(staging.path().join(&name)),
            force: true,
            formats: to.formats,
            named_out: Some(out.join(&name)),
            inputs: to.inputs.clone(),
            large_output: to.large_output,
        };
        if plan.progress {
            eprintln!("{name}: {}", file.display());
        }
        let answer = run(resolved, &one, plan, &folder)?;
        runs.push(BatchRun {
            name,
            path: file,
            answer,
        });
    }
    let entries: Vec<Entry> = runs
        .iter()
        .map(|r| Entry {
            name: &r.name,
            path: &r.path,
            report: &r.answer.report,
            no_exact: r.answer.no_exact.as_deref(),
        })
        .collect();
    let left_out: Vec<(String, String)> = skipped
        .iter()
        .map(|s| (s.path.display().to_string(), s.reason.clone()))
        .collect();
    let files = crate::report::writers::batch::write(
        &entries,
        &left_out,
        &request.command,
        staging.path(),
        to.formats,
    )?;
    let folder = staging.commit()?;
    Ok(BatchAnswer {
        runs,
        skipped,
        folder,
        files,
    })
}

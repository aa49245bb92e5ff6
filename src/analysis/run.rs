//! A run: one scenario simulated (to a number of battles or a precision),
//! with its exact odds beside when asked, written as a report.

use anyhow::{Result, bail};
use serde::Deserialize;

use super::Destination;
use std::path::Path;

use crate::analysis::runner::{
    Plan, Stored, Watch, count_usage, exact_metrics, nothing_written, run_info, simulate_watched,
    store,
};
use crate::engine::{DEFAULT_PRECISION_MAX_TRIALS, Shard};
use crate::questions::target::{Target, add_outcomes, parse_events};
use crate::questions::usage::Usage;
use crate::report::kit::command_line::CommandLine;
use crate::report::kit::folder_names::{default_out_dir, output_dir};
use crate::report::kit::output_dir::Staging;
use crate::report::{Formats, ReportKind, RunReport, VariantResult};
use crate::scenario::{Resolved, Scenario};
use crate::stats::Metric;
use crate::tables::text_as_read;

/// A run asked of a [`Resolved`] scenario: its size and whether to add
/// the exact odds.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// Also compute the exact distribution.
    #[serde(default)]
    pub exact: bool,
    /// With `exact`: a battle no exact method covers runs without its
    /// exact odds (the reason in the answer) instead of being refused, as a
    /// run of several scenarios asks (set by the caller).
    #[serde(skip)]
    pub exact_where_covered: bool,
    /// Also count how often the battles read each table cell.
    #[serde(default)]
    pub usage: bool,
    /// Run until every probability's 95% interval is at most ± this wide.
    #[serde(default)]
    pub precision: Option<f64>,
    /// The most battles a precision run may take (1,000,000,000 when absent).
    #[serde(default)]
    pub max_trials: Option<u64>,
    /// Battles (the scenario's `trials` when absent).
    #[serde(default)]
    pub trials: Option<u64>,
    /// `--target` events, each reported as a yes/no outcome of its own
    /// (`hero:Isabeau/reputation>=10`).
    #[serde(default)]
    pub targets: Vec<String>,
    /// Seed of the streams (the scenario's `seed` when absent).
    #[serde(default)]
    pub seed: Option<u64>,
    /// The command line to record, when not this request's own: a rerun
    /// from `run.json` records the command it reran.
    #[serde(skip)]
    pub command: Option<String>,
    /// Where each table named here came from, recorded instead of the file
    /// read: a rerun from `run.json` reads the tables it holds from files
    /// of its own, and records their first sources.
    #[serde(skip)]
    pub table_sources: Vec<(String, String)>,
}

/// What a run found and wrote.
#[derive(Debug)]
pub struct RunAnswer {
    /// The counts, exact odds if asked, and provenance.
    pub report: RunReport,
    /// Where it was written.
    pub stored: Stored,
    /// Why the exact odds asked are missing (`exact_where_covered`).
    pub no_exact: Option<String>,
}

/// Loads, simulates and writes the report (or a shard's part).
pub fn run(
    resolved: &Resolved,
    request: &RunRequest,
    plan: &Plan,
    to: &Destination,
) -> Result<RunAnswer> {
    let mut plan = *plan;
    if let Some(p) = request.precision {
        crate::tables::validate::check_precision(p)
            .map_err(|e| anyhow::anyhow!("--precision = {e}"))?;
        plan.precision = Some(p);
    }
    if request.usage && (plan.shard != Shard::WHOLE || request.precision.is_some()) {
        bail!(
            "--usage counts a run of a fixed number of battles in one process; run it without --shard and --precision"
        );
    }
    if request.exact && plan.shard != Shard::WHOLE {
        bail!(
            "--exact cannot be combined with --shard: the exact answer needs no cluster; run --exact once without --shard"
        );
    }
    let targets = parse_events(&request.targets, "run")?;
    let mut s = resolved.scenario.clone();
    add_outcomes(&mut crate::analysis::runner::metric_layout(&s), &targets)?;
    let trials = match request.precision {
        Some(_) => Some(request.max_trials()),
        None => request.trials,
    };
    s.override_settings(trials, request.seed)?;
    let out = output_dir(
        to.out.as_deref(),
        default_out_dir(resolved.path()),
        plan.shard,
    );
    let mut no_exact = None;
    let exact = match request.exact.then(|| exact_metrics(&s)) {
        Some(Ok(mut exact)) => {
            add_outcomes(&mut exact, &targets)?;
            Some(exact)
        }
        Some(Err(e)) if request.exact_where_covered => {
            no_exact = Some(format!("{e:#}"));
            None
        }
        Some(Err(e)) => return Err(e),
        None => None,
    };
    let staging = Staging::new(&out, to.force)?;
    let command = request
        .command
        .clone()
        .unwrap_or_else(|| reproduce_command((&s, resolved), request, (&out, to, plan.shard)));
    let usage = if request.usage {
        Some(usage_of(&s, &plan, resolved)?)
    } else {
        None
    };
    let asked = Asked {
        command,
        targets: &targets,
        exact,
        usage,
        table_sources: &request.table_sources,
    };
    let mut answer = simulate_and_store(&s, asked, &plan, staging, to.formats, None)?
        .ok_or_else(|| anyhow::anyhow!("an unwatched run stopped"))?;
    answer.no_exact = no_exact;
    Ok(answer)
}

/// What a run reports beside the battles' counts.
#[derive(Debug)]
pub struct Asked<'a> {
    /// The command line that asks the run again.
    pub command: String,
    /// Events reported as outcomes of their own.
    pub targets: &'a [Target],
    /// The exact distributions (with the targets' outcomes), when asked.
    pub exact: Option<Vec<Metric<f64>>>,
    /// The table cells' reads, when asked.
    pub usage: Option<Usage>,
    /// Where each table named here came from, recorded instead of the file
    /// read ([`RunRequest::table_sources`]).
    pub table_sources: &'a [(String, String)],
}

/// A loaded scenario simulated and stored: what [`run`] does once the file
/// is read, and what the workbench does with the scenario edited in its
/// page, showing `watch` the counts at every checkpoint. `None` when
/// `watch` stopped the run (nothing is written then).
pub fn simulate_and_store(
    s: &Scenario,
    asked: Asked<'_>,
    plan: &Plan,
    staging: Staging,
    formats: Formats,
    watch: Option<&mut Watch>,
) -> Result<Option<RunAnswer>> {
    let Some(done) = simulate_watched(s, plan, watch, asked.targets).map_err(nothing_written)?
    else {
        return Ok(None);
    };
    let metrics = done.metrics;
    let mut info = run_info(s, asked.command, done.threads, done.elapsed);
    info.trials = Some(if plan.shard == Shard::WHOLE {
        done.trials
    } else {
        s.trials
    });
    info.stop_reason = done.stop_reason;
    for t in &mut info.tables {
        if let Some((_, source)) = asked.table_sources.iter().find(|(n, _)| *n == t.name) {
            t.source = source.clone();
        }
    }
    let report = RunReport {
        info,
        variants: vec![VariantResult {
            variant: String::new(),
            metrics,
            exact: asked.exact,
            shared: Vec::new(),
            paired_means: Vec::new(),
        }],
        formats,
        usage: asked.usage,
    };
    let stored = store(ReportKind::Run, &report, staging, plan.shard)?;
    Ok(Some(RunAnswer {
        report,
        stored,
        no_exact: None,
    }))
}

/// How often the scenario's battles read each cell of each table it reads,
/// counted over as many battles fought by the book.
fn usage_of(s: &Scenario, plan: &Plan, resolved: &Resolved) -> Result<Usage> {
    let tally = count_usage(s, plan)?;
    let doc: toml::Table =
        toml::from_str(&s.text).map_err(|e| anyhow::anyhow!("{}: {e}", s.path.display()))?;
    let tables = s
        .battle
        .tables()
        .iter()
        .map(|t| {
            let (text, table) = text_as_read(&doc, resolved.files(), &resolved.tables, &t.name)?;
            Ok((t.name.clone(), text, table))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Usage::of(&tally, s.trials, &tables))
}

impl RunRequest {
    /// The most battles a precision run may take.
    pub fn max_trials(&self) -> u64 {
        self.max_trials.unwrap_or(DEFAULT_PRECISION_MAX_TRIALS)
    }
}

/// The command line that asks this run again, into the same folder and
/// formats.
fn reproduce_command(
    (s, resolved): (&Scenario, &Resolved),
    request: &RunRequest,
    (out, to, shard): (&Path, &Destination, Shard),
) -> String {
    let line = CommandLine::new("run").path(&s.path);
    let line = match request.precision {
        Some(p) => line
            .option("precision", p)
            .option("max-trials", request.max_trials()),
        None => line.option("trials", s.trials),
    };
    line.option("seed", s.seed)
        .flag("exact", request.exact)
        .flag("usage", request.usage)
        .options("table", resolved.table_options())
        .options("target", &request.targets)
        .written_to(to.named(out, shard), &to.formats)
        .naming_inputs(to.inputs.as_deref())
        .into()
}

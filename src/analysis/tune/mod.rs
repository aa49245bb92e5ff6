//! A tune on the engine: the settings or table cells that bring several
//! outcomes into their goals at once. The question's core
//! (`questions::tune`) plans, searches and judges on data; this module
//! reads each scenario once, answers what the core asks of the battles
//! ([`fight`]), and hands the answer to the report.
//!
//! Several scenarios are tuned together when they share the tables moved:
//! every candidate is fought in each of them, a goal holds every scenario
//! with its outcome (or the one it names with `@STEM`), and the total
//! shortfall is summed over them all.

use std::path::Path;

use anyhow::Result;
use toml::Value;

use super::Destination;
use crate::analysis::runner::{Plan, Written};
use crate::questions::tune::moves::{Dimension, same, shown};
use crate::questions::tune::plan::TuneRequest;
use crate::questions::tune::{Answer, StepSeen, answer};
use crate::report::kit::command_line::CommandLine;
use crate::report::kit::folder_names::question_out_dir;
use crate::report::kit::output_dir::Staging;
use crate::report::writers::tune::{Alternative, Change, GoalResult, TuneReport, conflict_words};
use crate::report::{RunInfo, ScenarioUse};
use crate::scenario::Resolved;
use crate::scenario::tuned::{TunedFiles, tuned_files};

mod fight;

use fight::Fighter;

/// What a tune found and wrote.
#[derive(Debug)]
pub struct TuneAnswer {
    /// The search, the table found and the verdicts.
    pub report: TuneReport,
    /// Where it was written.
    pub written: Written,
}

/// Validates the request, searches the `scenarios` tuned together
/// (showing `seen` each step), verifies the table found on fresh battles
/// and writes the report. The request's walk: each scenario read once
/// (`battles::grounds`), the plan checked on that data
/// (`questions::tune::plan`), the folder staged, the search and the
/// verification answered by the question's core asking the runner
/// ([`Fighter`]), the tuned files made, and the report written.
pub fn tune(
    scenarios: &[Resolved],
    request: &TuneRequest,
    plan: &Plan,
    to: &Destination,
    seen: &mut StepSeen,
) -> Result<TuneAnswer> {
    let started = std::time::Instant::now();
    let grounds = (scenarios.iter())
        .map(Resolved::tune_ground)
        .collect::<Result<Vec<_>>>()?;
    let files: Vec<&Path> = scenarios.iter().map(Resolved::path).collect();
    let table_options = scenarios[0].table_options();
    let planned = crate::questions::tune::plan::plan(request, &grounds)?;
    let out = to.out.clone().unwrap_or_else(|| {
        let mut named: Vec<String> = request.cell_tables.clone();
        named.extend(
            request
                .vary
                .iter()
                .map(|v| v.split('=').next().unwrap_or(v).to_owned()),
        );
        named.extend(planned.names[1..].iter().cloned());
        question_out_dir(files[0], "tune", &named)
    });
    let staging = Staging::new(&out, to.force)?;
    let run = Plan {
        progress: false,
        ..*plan
    };
    let command = reproduce_command((&files, table_options), request, (&out, to));
    let fighter = Fighter::new(scenarios, &planned, run);
    let mut runs = Vec::new();
    let Answer {
        proposal,
        verify_trials,
        mut goals,
        effects,
    } = answer(
        &planned,
        request,
        &fighter,
        run.threads,
        &mut |at: &[Value], trials: u64| fighter.verify(at, trials, (&command, started), &mut runs),
        seen,
    )?;
    let current = &proposal.current;
    let dimensions = &planned.dimensions;
    let changes = changes_of(dimensions, &planned.start, current);
    // Each alternative's goals, as the search (or the race) judged them.
    let alternatives = (proposal.alternatives.iter())
        .map(|(a, verdicts)| Alternative {
            changes: changes_of(dimensions, &planned.start, &a.at),
            values: a.estimates.clone(),
            verdicts: verdicts.clone(),
        })
        .collect();
    let TunedFiles {
        scenarios: tuned,
        tables,
    } = tuned_files(
        scenarios,
        &planned,
        current,
        &report_header(&command, &goals),
        &out,
    )?;
    for (_, info) in &mut runs {
        info.threads = Some(proposal.threads);
    }
    // Each goal's stand-in tables, as its battle's verifying run records
    // them (the goals come in the order held).
    for (g, h) in goals.iter_mut().zip(&planned.held) {
        let target = &planned.goals[h.goal].target;
        let (_, info) = &runs[h.battle];
        g.stand_in_tables = info.stand_in_tables_of_any(&[""], &target.subject, &target.metric);
    }
    let report = TuneReport {
        info: merged_info(runs),
        goals,
        steps: proposal.steps,
        changes,
        conflicts: (proposal.conflicts.iter())
            .map(|c| conflict_words(planned.system, c))
            .collect(),
        effects,
        stopped: proposal.stopped,
        searched: proposal.searched,
        alternatives,
        alternatives_are: proposal.alternatives_are,
        exact_search: proposal.exact,
        min_effect: request.min_effect,
        tuned,
        tables,
        search_trials: planned.search_trials,
        search_seed: planned.search_seed,
        verify_trials,
        verify_seed: planned.verify_seed,
        confidence: crate::questions::tune::plan::CONFIDENCE,
        battles_fought: fighter.fought(),
        formats: to.formats,
    };
    let mut files = crate::report::writers::tune_html::write(&report, staging.path())?;
    files.extend(crate::report::writers::tune_html::write_chart(
        &report,
        staging.path(),
    )?);
    files.extend(crate::report::writers::tune::write(
        &report,
        staging.path(),
    )?);
    let folder = staging.commit()?;
    Ok(TuneAnswer {
        report,
        written: Written { folder, files },
    })
}

/// Each value `at` changes from `start`, as the report lists it.
fn changes_of(dimensions: &[Dimension], start: &[Value], at: &[Value]) -> Vec<Change> {
    (dimensions.iter().zip(start).zip(at))
        .filter(|((_, a), b)| !same(a, b))
        .map(|((d, a), b)| Change {
            setting: d.path.join("."),
            from: shown(a),
            to: shown(b),
        })
        .collect()
}

/// One provenance record for the verifying runs: the first scenario's,
/// with every scenario's file and tables beside it where several were tuned.
fn merged_info(runs: Vec<(ScenarioUse, RunInfo)>) -> RunInfo {
    let several = runs.len() > 1;
    let (uses, mut infos): (Vec<ScenarioUse>, Vec<RunInfo>) = runs.into_iter().unzip();
    let mut info = infos.swap_remove(0);
    if several {
        info.name = (uses.iter())
            .map(|s| s.variant.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        info.scenarios = uses;
    }
    info
}

/// The comment a tuned table file starts with: what it was tuned for, the
/// verdicts, and the command.
fn report_header(command: &str, goals: &[GoalResult]) -> String {
    let mut head =
        String::from("# Tuned by `warcrunch tune` for these goals (verdicts on fresh battles):\n");
    for g in goals {
        head.push_str(&format!("#   {}: {}\n", g.goal, g.verdict.words()));
    }
    head.push_str(&format!("# Command: {command}\n"));
    head
}

/// The command line that asks this tune again, into the same folder.
fn reproduce_command(
    (files, table_options): (&[&Path], &[String]),
    request: &TuneRequest,
    (out, to): (&Path, &Destination),
) -> String {
    (files.iter())
        .fold(CommandLine::new("tune"), |line, file| line.path(file))
        .options("goal", &request.goals)
        .options("vary", &request.vary)
        .options("tables", &request.cell_tables)
        .options("freeze", &request.freeze)
        .option_if("max-changes", request.max_changes)
        .option_if("max-steps", request.max_steps)
        .option_if("trials", request.trials)
        .option_if("seed", request.seed)
        .option_if("verify-trials", request.verify_trials)
        .option_if("verify-seed", request.verify_seed)
        .flag("exact", request.exact)
        .flag("allow-disorder", request.allow_disorder)
        .option_if("min-effect", request.min_effect)
        .options("table", table_options)
        .written_to(to.named(out, crate::engine::Shard::WHOLE), &to.formats)
        .naming_inputs(to.inputs.as_deref())
        .into()
}

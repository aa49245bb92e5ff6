//! A comparison: scenarios of one system run with the same seed and
//! trials, battle by battle on the same streams, every metric tested
//! against the first scenario.

use std::path::PathBuf;

use anyhow::{Result, bail};
use serde::Deserialize;

use super::Destination;
use crate::analysis::runner::{Plan, Stored, run_info, simulate_variants, store};
use crate::questions::target::{Target, combined_targets, parse_all};
use crate::report::kit::command_line::CommandLine;
use crate::report::kit::folder_names::output_dir;
use crate::report::kit::output_dir::Staging;
use crate::report::{ReportKind, RunReport, ScenarioUse};
use crate::scenario::{Resolved, Scenario};

/// A comparison asked of two or more [`Resolved`] scenarios (the first is
/// the baseline): their battles.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareRequest {
    /// Battles per scenario (the first scenario's `trials` when absent).
    #[serde(default)]
    pub trials: Option<u64>,
    /// `--target` events, each reported as a yes/no outcome of its own
    /// (`hero:Isabeau/reputation>=10`).
    #[serde(default)]
    pub targets: Vec<String>,
    /// Seed of the streams (the first scenario's `seed` when absent).
    #[serde(default)]
    pub seed: Option<u64>,
    /// The least difference that matters: a smaller one is never called
    /// higher or lower (percentage points for a probability).
    #[serde(default)]
    pub min_effect: Option<f64>,
    /// The scenarios' names in the report (their file stems when empty;
    /// set by the caller, never by a posted request).
    #[serde(skip)]
    pub names: Vec<String>,
}

/// What a comparison found and wrote.
#[derive(Debug)]
pub struct CompareAnswer {
    /// Every scenario's results, paired with the first.
    pub report: RunReport,
    /// Where it was written.
    pub stored: Stored,
}

/// The `asked` targets, and each PC's being out of action where that is
/// more than one state (GURPS: down or dead) and every scenario has the
/// PC alike ([`combined_targets`]): the outcome a run's verdict names per
/// PC, so a comparison tests it battle by battle as an asked event. An
/// asked target naming the same event is not added twice.
pub fn with_out_of_action(asked: &[String], scenarios: &[Scenario]) -> Result<Vec<Target>> {
    let mut targets = parse_all(asked)?;
    let each: Vec<Vec<Target>> = (scenarios.iter())
        .map(|s| combined_targets(&s.battle.metric_layout()))
        .collect();
    for event in each.first().into_iter().flatten() {
        if each[1..].iter().all(|e| e.contains(event)) && !targets.contains(event) {
            targets.push(event.clone());
        }
    }
    Ok(targets)
}

/// Runs every scenario alike and writes the report.
pub fn compare(
    resolved: &[Resolved],
    request: &CompareRequest,
    plan: &Plan,
    to: &Destination,
) -> Result<CompareAnswer> {
    if resolved.len() < 2 {
        bail!("compare needs two or more scenario files; the first is the baseline");
    }
    if let Some(amount) = request.min_effect
        && !(amount.is_finite() && amount > 0.0)
    {
        bail!(
            "`min_effect` = {amount} is out of range; allowed: a number above 0 (percentage points for a probability, the outcome's own units for a mean)"
        );
    }
    let mut scenarios: Vec<Scenario> = resolved.iter().map(|r| r.scenario.clone()).collect();
    let targets = with_out_of_action(&request.targets, &scenarios)?;
    let trials = request.trials.unwrap_or(scenarios[0].trials);
    let seed = request.seed.unwrap_or(scenarios[0].seed);
    for s in &mut scenarios {
        s.override_settings(Some(trials), Some(seed))?;
    }
    let mut names: Vec<String> = request.names.clone();
    if !names.is_empty() && names.len() != resolved.len() {
        bail!(
            "--name: give one name per scenario, or none: {} scenarios, {} given",
            resolved.len(),
            names.len()
        );
    }
    if let Some(twice) = (names.iter()).find(|n| names.iter().filter(|m| m == n).count() > 1) {
        bail!("--name {twice}: each scenario needs a name of its own");
    }
    for (i, r) in resolved.iter().enumerate().skip(names.len()) {
        let stem = (r.path().file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| format!("scenario{i}"));
        let name = if names.contains(&stem) {
            format!("{stem}#{}", i + 1)
        } else {
            stem
        };
        names.push(name);
    }
    let systems: Vec<&str> = scenarios.iter().map(|s| s.battle.system()).collect();
    if systems.iter().any(|s| *s != systems[0]) {
        bail!(
            "compare needs scenarios of one system; got {}",
            systems.join(", ")
        );
    }
    let out = output_dir(
        to.out.as_deref(),
        PathBuf::from("reports/compare"),
        plan.shard,
    );
    let staging = Staging::new(&out, to.force)?;
    let named: Vec<(String, &Scenario)> = names.iter().cloned().zip(&scenarios).collect();
    let done = simulate_variants(&named, &targets, plan)
        .map_err(crate::analysis::runner::nothing_written)?;
    let (results, threads, elapsed) = (done.variants, done.threads, done.elapsed);
    // Each scenario's table options as `--table N:NAME=FILE`.
    let tables: Vec<String> = (resolved.iter().enumerate())
        .flat_map(|(i, r)| (r.table_options().iter()).map(move |t| format!("{}:{t}", i + 1)))
        .collect();
    let command: String = (resolved.iter())
        .fold(CommandLine::new("compare"), |line, r| {
            line.arg(r.path().display())
        })
        .option("trials", trials)
        .option("seed", seed)
        .options("table", &tables)
        .options("target", &request.targets)
        .options("name", &request.names)
        .option_if("min-effect", request.min_effect)
        .written_to(to.named(&out, plan.shard), &to.formats)
        .naming_inputs(to.inputs.as_deref())
        .into();
    let mut info = run_info(&scenarios[0], command, threads, elapsed);
    info.name = format!("Comparison: {}", names.join(" vs "));
    info.min_effect = request.min_effect;
    info.variants = names.clone();
    info.scenarios = names
        .iter()
        .zip(&scenarios)
        .map(|(name, s)| ScenarioUse {
            variant: name.clone(),
            path: s.path.display().to_string(),
            sha256: s.sha256.clone(),
            text: Some(s.text.clone()),
            tables: s.battle.tables().to_vec(),
            rests_on: s.battle.rests_on(),
        })
        .collect();
    let report = RunReport {
        info,
        variants: results,
        formats: to.formats,
        usage: None,
    };
    let stored = store(ReportKind::Compare, &report, staging, plan.shard)?;
    Ok(CompareAnswer { report, stored })
}

/// Each scenario's `--table N:NAME=FILE` options as `NAME=FILE` (N counts
/// scenarios from 1). A `--table` without `N:` is refused: it would give
/// every scenario the same table, and the comparison would then find
/// nothing.
pub fn scenario_tables(options: &[String], count: usize) -> Result<Vec<Vec<String>>> {
    let mut per_scenario = vec![Vec::new(); count];
    for option in options {
        let numbered = option
            .split_once(':')
            .and_then(|(n, rest)| Some((n.trim().parse::<usize>().ok()?, rest)));
        let Some((n, rest)) = numbered else {
            bail!(
                "--table {option}: compare would give every scenario this table, so the tables would not differ; give it to one scenario as --table N:{option} (N = 1 to {count}, in the order the scenarios are listed)"
            );
        };
        if !(1..=count).contains(&n) {
            bail!("--table {option}: there is no scenario {n}; allowed: 1 to {count}");
        }
        per_scenario[n - 1].push(rest.to_owned());
    }
    Ok(per_scenario)
}

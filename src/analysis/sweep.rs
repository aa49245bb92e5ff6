//! A sweep: one variant per value of each swept setting (a grid for
//! several), every variant fought battle by battle on the same streams
//! (unless they differ in seed or trials), written side by side.

use std::time::Duration;

use anyhow::{Result, bail};
use serde::Deserialize;

use super::Destination;
use std::path::Path;

use crate::analysis::runner::{
    Plan, Stored, metric_layout, run_info, simulate, simulate_variants, store,
};
use crate::engine::Shard;
use crate::questions::sweep::{
    DEFAULT_MAX_VARIANTS, Setting, Variant, grid, labels, parse_setting,
};
use crate::questions::target::{Target, add_outcomes, parse_events};
use crate::report::kit::command_line::CommandLine;
use crate::report::kit::folder_names::{output_dir, question_out_dir};
use crate::report::kit::output_dir::Staging;
use crate::report::{Parameter, ReportKind, RunReport, VariantResult};
use crate::scenario::{Edit, Resolved, Scenario};
use crate::stats::recommend::DEFAULT_MAX_RISK_OF_DOWN;

/// A sweep asked of a [`Resolved`] scenario: the settings swept and the
/// recommendation's terms.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepRequest {
    /// `PATH=a..b`, `PATH=a..b:step` or `PATH=v1,v2,...`; several make a grid.
    pub set: Vec<String>,
    /// Most variants the sweep may run.
    #[serde(default = "default_max_variants")]
    pub max_variants: usize,
    /// Cap on a PC's chance of going out of action for the recommended variant.
    #[serde(default = "default_max_risk_of_down")]
    pub max_risk_of_down: f64,
    /// PCs to recommend for besides those whose own settings are swept.
    #[serde(default)]
    pub recommend_for: Vec<String>,
    /// Battles per variant (the scenario's `trials` when absent).
    #[serde(default)]
    pub trials: Option<u64>,
    /// `--target` events, each reported as a yes/no outcome of its own
    /// (`hero:Isabeau/reputation>=10`).
    #[serde(default)]
    pub targets: Vec<String>,
    /// Seed of the streams (the scenario's `seed` when absent).
    #[serde(default)]
    pub seed: Option<u64>,
}

fn default_max_variants() -> usize {
    DEFAULT_MAX_VARIANTS
}

fn default_max_risk_of_down() -> f64 {
    DEFAULT_MAX_RISK_OF_DOWN
}

/// What a sweep found and wrote.
#[derive(Debug)]
pub struct SweepAnswer {
    /// Every variant's results, each paired with the baseline.
    pub report: RunReport,
    /// Where it was written.
    pub stored: Stored,
    /// Why a sweep of variants run one by one stopped early; the report
    /// then holds those that finished.
    pub failure: Option<anyhow::Error>,
}

/// Builds every variant, runs them and writes one report.
pub fn sweep(
    resolved: &Resolved,
    request: &SweepRequest,
    plan: &Plan,
    to: &Destination,
) -> Result<SweepAnswer> {
    if request.set.is_empty() {
        bail!("sweep needs at least one --set PATH=VALUES, e.g. --set heroes.Titus.risk=-6..6");
    }
    if !(0.0..=1.0).contains(&request.max_risk_of_down) {
        bail!(
            "--max-risk-of-down = {} is out of range; allowed: 0 to 1",
            request.max_risk_of_down
        );
    }
    let settings = request
        .set
        .iter()
        .map(|s| parse_setting(s))
        .collect::<Result<Vec<_>>>()?;
    let variants = grid(&settings, request.max_variants)?;
    let targets = parse_events(&request.targets, "sweep")?;
    check_recommend_for(resolved, request)?;
    // Each variant's scenario, validated.
    let variant = |v: &Variant| -> Result<(String, Scenario)> {
        let edits: Vec<Edit> = settings
            .iter()
            .zip(&v.values)
            .zip(&request.set)
            .map(|((setting, value), typed)| {
                let shown = match value {
                    toml::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                Edit::set(
                    format!("--set {typed} (value {shown})"),
                    setting.path.clone(),
                    value.clone(),
                )
            })
            .collect();
        let mut s = resolved.edited(edits)?;
        s.override_settings(request.trials, request.seed)?;
        add_outcomes(&mut metric_layout(&s), &targets)
            .map_err(|e| anyhow::anyhow!("variant {}: {e}", v.name))?;
        Ok((v.name.clone(), s))
    };
    // The size of what it would write, from the first variant alone:
    // refused before the others are even built.
    let first = variant(&variants[0])?;
    let bins: u64 = metric_layout(&first.1)
        .iter()
        .map(|m| m.weights.len() as u64)
        .sum();
    let size = expected_output_bytes(variants.len() as u64, bins);
    if size > super::LARGE_OUTPUT_BYTES && !to.large_output {
        bail!(
            "this sweep would write about {} MB ({} variants × {} values each, in its tables, report and charts); \
             pass --yes to write them, or sweep fewer values",
            crate::stats::format::thousands(size >> 20),
            crate::stats::format::thousands(variants.len() as u64),
            crate::stats::format::thousands(bins)
        );
    }
    // Every variant validated before any is fought.
    let mut scenarios: Vec<(String, Scenario)> = vec![first];
    for v in &variants[1..] {
        scenarios.push(variant(v)?);
    }
    let out = output_dir(
        to.out.as_deref(),
        question_out_dir(
            resolved.path(),
            "sweep",
            &settings
                .iter()
                .map(|s| s.path.join("."))
                .collect::<Vec<_>>(),
        ),
        plan.shard,
    );
    let staging = Staging::new(&out, to.force)?;
    // Every variant is compared with the one holding the scenario's own
    // values, where the sweep holds it; else with the first.
    let own = own_variant(resolved, &settings, &variants)?;
    let baseline = own.unwrap_or(0);
    // Variants of one seed and size are fought battle by battle on the same
    // streams, the baseline first, as the paired engine pairs every variant
    // with its first; a sweep of `seed` or `trials` runs each on its own.
    let pairable = scenarios
        .iter()
        .all(|(_, s)| (s.seed, s.trials) == (scenarios[0].1.seed, scenarios[0].1.trials));
    let (results, threads, elapsed, failure) = if pairable {
        let order: Vec<usize> = std::iter::once(baseline)
            .chain((0..scenarios.len()).filter(|&i| i != baseline))
            .collect();
        let named: Vec<(String, &Scenario)> = order
            .iter()
            .map(|&i| (scenarios[i].0.clone(), &scenarios[i].1))
            .collect();
        let done = simulate_variants(&named, &targets, plan)
            .map_err(crate::analysis::runner::nothing_written)?;
        // Back in the grid's order.
        let mut fought: Vec<(usize, VariantResult)> =
            order.into_iter().zip(done.variants).collect();
        fought.sort_by_key(|(i, _)| *i);
        let results = fought.into_iter().map(|(_, v)| v).collect();
        (results, done.threads, done.elapsed, None)
    } else {
        one_by_one(&scenarios, &targets, plan)?
    };
    let base = &scenarios[baseline].1;
    let command = reproduce_command((resolved, request), base, (&out, to, plan.shard));
    let mut info = run_info(base, command, threads, elapsed);
    info.variants = results.iter().map(|v| v.variant.clone()).collect();
    info.baseline = own
        .map(|i| scenarios[i].0.clone())
        .filter(|name| info.variants.contains(name));
    for (i, (_, s)) in scenarios.iter().enumerate() {
        if i != baseline {
            crate::tables::join_rests_on(&mut info.rests_on, s.battle.rests_on());
        }
    }
    info.max_risk_of_down = Some(request.max_risk_of_down);
    info.swept_heroes = settings
        .iter()
        .filter(|s| s.path.len() > 2 && s.path[0] == "heroes")
        .map(|s| s.path[1].clone())
        .chain(request.recommend_for.iter().cloned())
        .collect();
    info.swept_heroes.sort();
    info.swept_heroes.dedup();
    let paths: Vec<Vec<String>> = settings.iter().map(|s| s.path.clone()).collect();
    info.held_by_readings = base.battle.held_by_readings(&paths);
    info.scenario_sha256 = Some(crate::tables::sha256_hex(resolved.text().as_bytes()));
    info.parameters = parameters(&settings, &variants, &info.variants);
    if let Some(failure) = &failure {
        info.stop_reason = Some(format!(
            "the sweep stopped early ({failure:#}); the results hold the {} of {} variants that finished",
            results.len(),
            scenarios.len()
        ));
    }
    let report = RunReport {
        info,
        variants: results,
        formats: to.formats,
        usage: None,
    };
    let stored = store(ReportKind::Sweep, &report, staging, plan.shard)?;
    Ok(SweepAnswer {
        report,
        stored,
        failure,
    })
}

/// The variant holding the scenario's own value of every swept setting,
/// as its file and tables set it; none when the grid lacks it, or when a
/// swept setting is one the file leaves to its default.
fn own_variant(
    resolved: &Resolved,
    settings: &[Setting],
    variants: &[Variant],
) -> Result<Option<usize>> {
    let movable = resolved.ground(None, None)?.movable;
    let mut knobs = movable.settings();
    knobs.extend(movable.cells(&[])?);
    let own: Option<Vec<&toml::Value>> = settings
        .iter()
        .map(|s| knobs.iter().find(|k| k.path == s.path).map(|k| &k.value))
        .collect();
    let Some(own) = own else { return Ok(None) };
    Ok(variants
        .iter()
        .position(|v| v.values.iter().zip(&own).all(|(a, b)| same_value(a, b))))
}

/// Whether two values are the same setting: numbers by their value
/// (`6` and `6.0` alike), anything else as written.
fn same_value(a: &toml::Value, b: &toml::Value) -> bool {
    let number = |v: &toml::Value| v.as_float().or(v.as_integer().map(|i| i as f64));
    match (number(a), number(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Each swept setting with its value in each variant that ran.
fn parameters(settings: &[Setting], grid: &[Variant], ran: &[String]) -> Vec<Parameter> {
    labels(settings)
        .into_iter()
        .zip(settings)
        .enumerate()
        .map(|(k, (name, setting))| Parameter {
            name,
            path: setting.path.join("."),
            values: ran
                .iter()
                .filter_map(|r| grid.iter().find(|v| &v.name == r))
                .map(|v| v.shown[k].clone())
                .collect(),
        })
        .collect()
}

/// Refuses a `--recommend-for` name that is no PC of the scenario (its
/// frontier would silently be missing), naming the PCs there are.
fn check_recommend_for(resolved: &Resolved, request: &SweepRequest) -> Result<()> {
    if request.recommend_for.is_empty() {
        return Ok(());
    }
    let doc = resolved.document()?;
    let names: Vec<&str> = doc
        .get("heroes")
        .and_then(|h| h.as_array())
        .into_iter()
        .flatten()
        .filter_map(|h| h.get("name").and_then(|n| n.as_str()))
        .collect();
    for wanted in &request.recommend_for {
        if !names.contains(&wanted.as_str()) {
            if names.is_empty() {
                bail!(
                    "--recommend-for {wanted}: {} has no PCs to recommend for",
                    resolved.path().display()
                );
            }
            bail!(
                "--recommend-for {wanted}: no PC of {} is called that; allowed: {}",
                resolved.path().display(),
                names.join(", ")
            );
        }
    }
    Ok(())
}

/// Variants that differ in seed or trials, each run on its own streams
/// (unpaired). An interrupted whole sweep keeps the variants that
/// finished, and the error that stopped it.
type OneByOne = (Vec<VariantResult>, usize, Duration, Option<anyhow::Error>);

fn one_by_one(
    scenarios: &[(String, Scenario)],
    targets: &[Target],
    plan: &Plan,
) -> Result<OneByOne> {
    let mut results = Vec::new();
    let mut elapsed = Duration::ZERO;
    let mut threads = 0;
    let mut failure = None;
    for (i, (name, s)) in scenarios.iter().enumerate() {
        match simulate(s, plan) {
            Ok(done) => {
                threads = done.threads;
                elapsed += done.elapsed;
                let mut metrics = done.metrics;
                add_outcomes(&mut metrics, targets)?;
                results.push(VariantResult {
                    variant: name.clone(),
                    metrics,
                    exact: None,
                    shared: Vec::new(),
                    paired_means: Vec::new(),
                });
                if plan.progress {
                    eprintln!("variant {name} done ({} of {})", i + 1, scenarios.len());
                }
            }
            Err(e) => {
                failure = Some(e.context(format!("variant {name} failed")));
                break;
            }
        }
    }
    // A partial result must hold every variant.
    if let Some(failure) = failure.take_if(|_| results.is_empty() || plan.shard != Shard::WHOLE) {
        return Err(crate::analysis::runner::nothing_written(failure));
    }
    Ok((results, threads, elapsed, failure))
}

/// The command line that asks this sweep again, into the same folder and
/// formats.
fn reproduce_command(
    (resolved, request): (&Resolved, &SweepRequest),
    base: &Scenario,
    (out, to, shard): (&Path, &Destination, Shard),
) -> String {
    CommandLine::new("sweep")
        .path(resolved.path())
        .options("set", &request.set)
        .options("table", resolved.table_options())
        .options("target", &request.targets)
        .option("trials", base.trials)
        .option("seed", base.seed)
        .option("max-variants", request.max_variants)
        .option("max-risk-of-down", request.max_risk_of_down)
        .options("recommend-for", &request.recommend_for)
        .written_to(to.named(out, shard), &to.formats)
        .naming_inputs(to.inputs.as_deref())
        .into()
}

/// About what a sweep of `variants` writes when each has `bins` values in
/// all (its metrics' bins): some 265 bytes a value a variant across
/// `distributions.csv`, `comparison.csv`, the report and the charts
/// (measured on a 2,197-variant GURPS sweep: 315 MB), and 4 MB besides.
fn expected_output_bytes(variants: u64, bins: u64) -> u64 {
    variants.saturating_mul(bins).saturating_mul(265) + (4 << 20)
}

//! `warcrunch sweep`: one variant per `--set` value (a grid for several),
//! every variant fought battle by battle on the same streams (unless they
//! differ in seed or trials), written side by side.

use std::time::Duration;

use anyhow::{Result, bail};

use crate::cli::SweepArgs;
use crate::engine::Shard;
use crate::report::output_dir::Staging;
use crate::report::{ReportKind, RunReport, VariantResult};
use crate::runner::{
    Plan, finish, output_dir, override_settings, question_out_dir, run_info, simulate,
    simulate_variants,
};
use crate::scenario::{self, Edit, Scenario};
use crate::sweep::{apply, grid, parse_setting};

/// Refuses a `--recommend-for` name that is no PC of the scenario (its
/// frontier would silently be missing), naming the PCs there are.
fn check_recommend_for(args: &SweepArgs, text: &str) -> Result<()> {
    if args.recommend_for.is_empty() {
        return Ok(());
    }
    let doc: toml::Table = text
        .parse()
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.scenario.display()))?;
    let names: Vec<&str> = doc
        .get("heroes")
        .and_then(|h| h.as_array())
        .into_iter()
        .flatten()
        .filter_map(|h| h.get("name").and_then(|n| n.as_str()))
        .collect();
    for wanted in &args.recommend_for {
        if !names.contains(&wanted.as_str()) {
            if names.is_empty() {
                bail!(
                    "--recommend-for {wanted}: {} has no PCs to recommend for",
                    args.scenario.display()
                );
            }
            bail!(
                "--recommend-for {wanted}: no PC of {} is called that; allowed: {}",
                args.scenario.display(),
                names.join(", ")
            );
        }
    }
    Ok(())
}

/// Builds every variant, runs them, writes one report and prints the comparison.
pub fn run(args: &SweepArgs) -> Result<()> {
    if args.set.is_empty() {
        bail!("sweep needs at least one --set PATH=VALUES, e.g. --set heroes.Titus.risk=-6..6");
    }
    if !(0.0..=1.0).contains(&args.max_risk_of_down) {
        bail!(
            "--max-risk-of-down = {} is out of range; allowed: 0 to 1",
            args.max_risk_of_down
        );
    }
    let settings = args
        .set
        .iter()
        .map(|s| parse_setting(s))
        .collect::<Result<Vec<_>>>()?;
    let variants = grid(&settings, args.max_variants)?;
    let sim = &args.sim;
    let formats = crate::report::Formats::of(&sim.format);
    let overrides = crate::runner::table_overrides(&sim.tables)?;
    let plan = Plan::from_args(sim);
    let text = scenario::read_text(&args.scenario)?;
    check_recommend_for(args, &text)?;
    // Validate every variant before simulating any.
    let mut scenarios: Vec<(String, Scenario)> = Vec::new();
    for v in &variants {
        let mut edits: Vec<Edit> = settings
            .iter()
            .zip(&v.values)
            .zip(&args.set)
            .map(|((setting, value), typed)| {
                let shown = match value {
                    toml::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                Edit {
                    option: format!("--set {typed} (value {shown})"),
                    apply: Box::new(move |doc| apply(doc, &setting.path, value.clone())),
                }
            })
            .collect();
        edits.extend(overrides.iter().map(Edit::table));
        let mut s = scenario::load_edited(&args.scenario, &text, &edits)?;
        override_settings(&mut s, sim.trials, sim.seed)?;
        scenarios.push((v.name.clone(), s));
    }
    let out = output_dir(
        args.out.as_deref(),
        question_out_dir(
            &args.scenario,
            "sweep",
            &settings
                .iter()
                .map(|s| s.path.join("."))
                .collect::<Vec<_>>(),
        ),
        plan.shard,
    );
    let staging = Staging::new(&out, sim.force)?;
    // Variants of one seed and size are fought battle by battle on the same
    // streams; a sweep of `seed` or `trials` runs each on its own.
    let pairable = scenarios
        .iter()
        .all(|(_, s)| (s.seed, s.trials) == (scenarios[0].1.seed, scenarios[0].1.trials));
    let (results, threads, elapsed, failure) = if pairable {
        let named: Vec<(String, &Scenario)> =
            scenarios.iter().map(|(n, s)| (n.clone(), s)).collect();
        let done = simulate_variants(&named, &plan).map_err(crate::runner::nothing_written)?;
        (done.variants, done.threads, done.elapsed, None)
    } else {
        one_by_one(&scenarios, &plan, sim.quiet)?
    };
    let base = &scenarios[0].1;
    let mut info = run_info(base, reproduce_command(args, base), threads, elapsed);
    info.variants = results.iter().map(|v| v.variant.clone()).collect();
    info.max_risk_of_down = Some(args.max_risk_of_down);
    info.swept_heroes = settings
        .iter()
        .filter(|s| s.path.len() > 2 && s.path[0] == "heroes")
        .map(|s| s.path[1].clone())
        .chain(args.recommend_for.iter().cloned())
        .collect();
    info.swept_heroes.sort();
    info.swept_heroes.dedup();
    info.scenario_sha256 = Some(crate::tables::sha256_hex(text.as_bytes()));
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
        formats,
    };
    finish(ReportKind::Sweep, &report, staging, plan.shard)?;
    match failure {
        Some(failure) => Err(failure.context(match report.variants.len() {
            1 => "the 1 variant that finished was written".to_owned(),
            n => format!("the {n} variants that finished were written"),
        })),
        None => Ok(()),
    }
}

/// Variants that differ in seed or trials, each run on its own streams
/// (unpaired). An interrupted whole sweep keeps the variants that
/// finished, and the error that stopped it.
type OneByOne = (Vec<VariantResult>, usize, Duration, Option<anyhow::Error>);

fn one_by_one(scenarios: &[(String, Scenario)], plan: &Plan, quiet: bool) -> Result<OneByOne> {
    let mut results = Vec::new();
    let mut elapsed = Duration::ZERO;
    let mut threads = 0;
    let mut failure = None;
    for (i, (name, s)) in scenarios.iter().enumerate() {
        match simulate(s, plan) {
            Ok(done) => {
                threads = done.threads;
                elapsed += done.elapsed;
                results.push(VariantResult {
                    variant: name.clone(),
                    metrics: done.metrics,
                    exact: None,
                    shared: Vec::new(),
                });
                if !quiet {
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
        return Err(crate::runner::nothing_written(failure));
    }
    Ok((results, threads, elapsed, failure))
}

fn reproduce_command(args: &SweepArgs, base: &Scenario) -> String {
    let sets: String = args
        .set
        .iter()
        .map(|s| format!(" --set {s}"))
        .chain(args.sim.tables.iter().map(|t| format!(" --table {t}")))
        .collect();
    format!(
        "warcrunch sweep {}{sets} --trials {} --seed {} --max-risk-of-down {}",
        args.scenario.display(),
        base.trials,
        base.seed,
        args.max_risk_of_down
    )
}

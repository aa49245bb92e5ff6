//! `warcrunch sweep`: one variant per `--set` value (a grid for several),
//! each run with the same seed and trials, written side by side.

use std::fmt::Write as _;
use std::time::Duration;

use anyhow::{Result, bail};

use super::run::{
    Plan, default_out_dir, finish, output_dir, override_settings, run_info, simulate,
};
use crate::cli::SweepArgs;
use crate::engine::Shard;
use crate::format::thousands;
use crate::report::output_dir::Staging;
use crate::report::sweep::{advice, frontiers};
use crate::report::{ReportKind, RunReport, VariantResult};
use crate::scenario::{self, Edit, Scenario};
use crate::sweep::{apply, grid, parse_setting};

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
    let variants = grid(&settings)?;
    let sim = &args.sim;
    let formats = crate::report::Formats::parse(&sim.format)?;
    let overrides = super::run::table_overrides(&sim.tables)?;
    let plan = Plan::from_args(sim)?;
    let text = scenario::read_text(&args.scenario)?;
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
        default_out_dir(&args.scenario).with_extension("sweep"),
        plan.shard,
    );
    let staging = Staging::new(&out, sim.force)?;
    let mut results = Vec::new();
    let mut elapsed = Duration::ZERO;
    let mut threads = 0;
    let mut failure = None;
    for (i, (name, s)) in scenarios.iter().enumerate() {
        match simulate(s, &plan) {
            Ok(done) => {
                threads = done.threads;
                elapsed += done.elapsed;
                results.push(VariantResult {
                    variant: name.clone(),
                    metrics: done.metrics,
                    exact: None,
                });
                if !sim.quiet {
                    eprintln!("variant {name} done ({} of {})", i + 1, scenarios.len());
                }
            }
            Err(e) => {
                failure = Some(e.context(format!("variant {name} failed")));
                break;
            }
        }
    }
    // A partial result must hold every variant; a whole sweep keeps the
    // variants that finished.
    if let Some(failure) = failure.take_if(|_| results.is_empty() || plan.shard != Shard::WHOLE) {
        return Err(super::nothing_written(failure));
    }
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

/// The comparison printed after a sweep.
pub fn sweep_summary(report: &RunReport, cap: f64) -> String {
    let info = &report.info;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} variants × {} battles, seed {}, {:.2} s",
        info.name,
        report.variants.len(),
        thousands(info.trials.unwrap_or(0)),
        info.seed.unwrap_or(0),
        info.elapsed_seconds.unwrap_or(0.0)
    );
    if let Some(reason) = &info.stop_reason {
        let _ = writeln!(out, "  {reason}");
    }
    for v in &report.variants {
        let headline: Vec<String> = v
            .metrics
            .iter()
            .filter(|m| m.subject == "battle" && m.name == "winner" || m.name == "victory")
            .take(1)
            .map(|m| {
                let total = m.total() as f64;
                (0..m.weights.len())
                    .map(|b| format!("{} {:.2}%", m.label(b), 100.0 * m.weights[b] as f64 / total))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .collect();
        let _ = writeln!(out, "  {:<24} {}", v.variant, headline.join(""));
    }
    let all = frontiers(report);
    for f in &all {
        let _ = writeln!(
            out,
            "{}: P({}) and expected Reputation per variant",
            f.subject, f.out_label
        );
        for p in &f.points {
            let _ = writeln!(
                out,
                "    {:<22} P({}) {:6.2}% ({:.2}–{:.2})   E[Reputation] {:+.3} ({:+.3}–{:+.3})",
                p.variant,
                f.out_label,
                100.0 * p.p_out,
                100.0 * p.p_out_ci.0,
                100.0 * p.p_out_ci.1,
                p.reputation,
                p.reputation_ci.0,
                p.reputation_ci.1
            );
        }
    }
    match advice(report, &all) {
        Some(a) => {
            let whom: Vec<&str> = a
                .subjects
                .iter()
                .map(|s| s.trim_start_matches("hero:"))
                .collect();
            let _ = writeln!(out, "For {} (cap {:.1}%):", whom.join(" and "), 100.0 * cap);
            let _ = writeln!(out, "  {}", a.explain());
        }
        None if !all.is_empty() => {
            let _ = writeln!(
                out,
                "No recommendation: no swept setting belongs to a PC (name one with --recommend-for NAME)."
            );
        }
        None => {}
    }
    out
}

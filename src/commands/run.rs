//! `warcrunch run`: simulate a scenario and write its reports.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;

use super::{say, thousands};
use crate::cli::RunArgs;
use crate::engine::{self, CHUNK_SIZE, RunSettings};
use crate::report::csv::{AGREEMENT_CONFIDENCE, agreements};
use crate::report::output_dir::Staging;
use crate::report::{RunInfo, RunReport, VariantResult, run_exporters};
use crate::scenario::{self, Battle, Scenario};
use crate::stats::{Metric, wilson, z95};

/// Parses `--table NAME=FILE` options.
pub fn table_overrides(options: &[String]) -> Result<Vec<(String, String)>> {
    options
        .iter()
        .map(|t| scenario::parse_table_override(t))
        .collect()
}

/// Applies `--trials` and `--seed` overrides.
pub fn override_settings(s: &mut Scenario, trials: Option<u64>, seed: Option<u64>) -> Result<()> {
    if let Some(trials) = trials {
        scenario::check_range("--trials", "trials", trials, 1..=engine::MAX_TRIALS)?;
        s.trials = trials;
    }
    if let Some(seed) = seed {
        s.seed = seed;
    }
    Ok(())
}

/// Simulates a scenario: its metrics, the threads used and the time taken.
pub fn simulate(
    s: &Scenario,
    threads: usize,
    progress: bool,
) -> Result<(Vec<Metric<u64>>, usize, Duration)> {
    let settings = RunSettings {
        seed: s.seed,
        trials: s.trials,
        threads,
        progress,
    };
    Ok(match &s.battle {
        Battle::WarCards(w) => {
            let output = engine::run(w.as_ref(), settings)?;
            (w.metrics(&output.tally), output.threads, output.elapsed)
        }
        Battle::Gurps(g) => {
            let output = engine::run(g.as_ref(), settings)?;
            (g.metrics(&output.tally), output.threads, output.elapsed)
        }
        Battle::SeventhSea(g) => {
            let output = engine::run(g.as_ref(), settings)?;
            (g.metrics(&output.tally), output.threads, output.elapsed)
        }
    })
}

/// The provenance record of a run of `s`.
pub fn run_info(s: &Scenario, command: String, threads: usize, elapsed: Duration) -> RunInfo {
    RunInfo {
        tool_version: env!("CARGO_PKG_VERSION").to_owned(),
        command,
        scenario_path: Some(s.path.display().to_string()),
        scenario_sha256: Some(s.sha256.clone()),
        name: s.name.clone(),
        system: s.battle.system().to_owned(),
        seed: Some(s.seed),
        trials: Some(s.trials),
        chunk_size: Some(CHUNK_SIZE),
        threads: Some(threads),
        elapsed_seconds: Some(elapsed.as_secs_f64()),
        tables: s.battle.tables().to_vec(),
        stand_in_rules: s.battle.stand_in_rules(),
        variants: Vec::new(),
        max_risk_of_down: None,
        swept_heroes: Vec::new(),
    }
}

/// Runs every exporter into a staging folder and moves it into place.
pub fn write_report(report: &RunReport, staging: Staging) -> Result<(PathBuf, Vec<String>)> {
    let mut written = Vec::new();
    for exporter in run_exporters() {
        written.extend(exporter.write(report, staging.path())?);
    }
    Ok((staging.commit()?, written))
}

/// Loads, simulates, writes and summarises.
pub fn run(args: &RunArgs) -> Result<()> {
    let formats = crate::report::Formats::parse(&args.format)?;
    let overrides = table_overrides(&args.tables)?;
    let mut s = scenario::load_with_tables(&args.scenario, &overrides)?;
    override_settings(&mut s, args.trials, args.seed)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| default_out_dir(&args.scenario));
    let exact = if args.exact {
        Some(exact_metrics(&s)?)
    } else {
        None
    };
    let staging = Staging::new(&out, args.force)?;
    let (metrics, threads, elapsed) = simulate(&s, args.threads, !args.quiet)?;
    let report = RunReport {
        info: run_info(&s, reproduce_command(&s, args), threads, elapsed),
        variants: vec![VariantResult {
            variant: String::new(),
            metrics,
            exact,
        }],
        formats,
    };
    let (dest, written) = write_report(&report, staging)?;
    say(&console_summary(&report))?;
    say(&format!(
        "Wrote {}: {}\n",
        dest.display(),
        written.join(", ")
    ))
}

/// `reports/<scenario file stem>`.
pub fn default_out_dir(scenario: &Path) -> PathBuf {
    let stem = scenario
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".into());
    PathBuf::from("reports").join(stem)
}

fn exact_metrics(s: &Scenario) -> Result<Vec<Metric<f64>>> {
    match &s.battle {
        Battle::WarCards(w) => w.exact(),
        Battle::Gurps(g) => crate::systems::gurps::exact::exact_metrics(g),
        Battle::SeventhSea(g) => crate::systems::seventh_sea::exact::exact_metrics(g),
    }
    .map_err(|e| anyhow::anyhow!("{}: --exact: {e}", s.path.display()))
}

fn reproduce_command(s: &Scenario, args: &RunArgs) -> String {
    let tables: String = args
        .tables
        .iter()
        .map(|t| format!(" --table {t}"))
        .collect();
    format!(
        "warcrunch run {} --trials {} --seed {}{}{tables}",
        s.path.display(),
        s.trials,
        s.seed,
        if args.exact { " --exact" } else { "" }
    )
}

/// The short human summary printed after a run.
pub fn console_summary(report: &RunReport) -> String {
    use std::fmt::Write as _;
    let info = &report.info;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} battles, seed {}, {} threads, {:.2} s",
        info.name,
        thousands(info.trials.unwrap_or(0)),
        info.seed.unwrap_or(0),
        info.threads.unwrap_or(0),
        info.elapsed_seconds.unwrap_or(0.0)
    );
    for v in &report.variants {
        for m in &v.metrics {
            let total = m.total();
            let line = match m.summary() {
                Some(s) => format!(
                    "mean {:.3} (95% CI {:.3}–{:.3}), median {}, 95th percentile {}",
                    s.mean, s.ci_low, s.ci_high, s.p50, s.p95
                ),
                None => m
                    .reported_bins(|w| w == 0)
                    .filter(|&b| m.weights[b] > 0)
                    .map(|b| {
                        let (lo, hi) = wilson(m.weights[b], total, z95());
                        format!(
                            "{} {:.2}% ({:.2}–{:.2})",
                            m.label(b),
                            100.0 * m.weights[b] as f64 / total as f64,
                            100.0 * lo,
                            100.0 * hi
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            let _ = writeln!(out, "  {}/{}: {line}", m.subject, m.name);
        }
    }
    let checks = agreements(report);
    if !checks.is_empty() {
        let disagreeing: Vec<_> = checks.iter().filter(|a| !a.agrees()).collect();
        let _ = writeln!(
            out,
            "  exact check: {} of {} values inside their {:.1}% Monte Carlo interval",
            checks.len() - disagreeing.len(),
            checks.len(),
            100.0 * AGREEMENT_CONFIDENCE
        );
        for a in disagreeing {
            let _ = writeln!(
                out,
                "    outside: {}/{} = {}: exact {:.6}, simulated {:.6} ({:.6}–{:.6})",
                a.subject,
                a.metric,
                a.value,
                a.exact,
                a.count as f64 / a.trials as f64,
                a.interval.0,
                a.interval.1
            );
        }
    }
    let stand_ins: Vec<String> = info
        .tables
        .iter()
        .filter(|t| !t.stand_ins.is_empty())
        .map(|t| format!("{} ({})", t.name, t.stand_ins.join(", ")))
        .collect();
    if !stand_ins.is_empty() {
        let _ = writeln!(out, "  stand-in tables in use: {}", stand_ins.join("; "));
    }
    out
}

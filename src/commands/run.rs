//! `warcrunch run`: simulate a scenario and write its reports.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Result, bail};

use super::say;
use crate::cli::{RunArgs, SimulationArgs};
use crate::engine::{self, CHUNK_SIZE, RunSettings, Shard, System};
use crate::format::{percent, thousands};
use crate::report::csv::{AGREEMENT_CONFIDENCE, agreements};
use crate::report::output_dir::Staging;
use crate::report::partial::Partial;
use crate::report::{ReportKind, RunInfo, RunReport, VariantResult, run_exporters};
use crate::scenario::{self, Battle, Scenario};
use crate::stats::{Metric, widest_half_width, wilson, z95};

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

/// How to simulate a scenario.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Worker threads (0: every core).
    pub threads: usize,
    /// Show a progress bar on long runs.
    pub progress: bool,
    /// The part of the run to simulate.
    pub shard: Shard,
    /// Stop once every probability's 95% half-width is at most this.
    pub precision: Option<f64>,
}

impl Plan {
    /// The plan the shared command-line options describe.
    pub fn from_args(sim: &SimulationArgs) -> Result<Plan> {
        Ok(Plan {
            threads: sim.threads,
            progress: !sim.quiet,
            shard: sim
                .shard
                .as_deref()
                .map_or(Ok(Shard::WHOLE), Shard::parse)?,
            precision: None,
        })
    }
}

/// What simulating a scenario produced.
#[derive(Debug)]
pub struct Simulated {
    /// Counts of every metric.
    pub metrics: Vec<Metric<u64>>,
    /// Battles simulated.
    pub trials: u64,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// Why a `--precision` run stopped where it did.
    pub stop_reason: Option<String>,
}

/// Simulates a scenario (up to `s.trials` battles, or its shard of them).
pub fn simulate(s: &Scenario, plan: &Plan) -> Result<Simulated> {
    let settings = RunSettings {
        seed: s.seed,
        trials: s.trials,
        threads: plan.threads,
        progress: plan.progress,
        shard: plan.shard,
    };
    match &s.battle {
        Battle::WarCards(w) => simulate_system(w.as_ref(), |t| w.metrics(t), settings, plan),
        Battle::Gurps(g) => simulate_system(g.as_ref(), |t| g.metrics(t), settings, plan),
        Battle::SeventhSea(g) => simulate_system(g.as_ref(), |t| g.metrics(t), settings, plan),
    }
}

fn simulate_system<S: System>(
    system: &S,
    metrics: impl Fn(&S::Tally) -> Vec<Metric<u64>>,
    settings: RunSettings,
    plan: &Plan,
) -> Result<Simulated> {
    let precise_enough = |m: &[Metric<u64>], target: f64| {
        widest_half_width(m).is_none_or(|(width, _)| width <= target)
    };
    let output = match plan.precision {
        Some(target) => engine::run_until(system, settings, |tally, _| {
            precise_enough(&metrics(tally), target)
        })?,
        None => engine::run(system, settings)?,
    };
    let metrics = metrics(&output.tally);
    let stop_reason = plan.precision.map(|target| {
        let (width, at) = widest_half_width(&metrics).unwrap_or((0.0, "no value".into()));
        let trials = thousands(output.trials);
        if width <= target {
            format!(
                "stopped after {trials} battles: every probability's 95% interval is within ±{target} (widest ±{width:.6}, {at})"
            )
        } else {
            format!(
                "stopped at --max-trials ({trials} battles) before reaching ±{target}: the widest 95% interval is ±{width:.6} ({at})"
            )
        }
    });
    Ok(Simulated {
        metrics,
        trials: output.trials,
        threads: output.threads,
        elapsed: output.elapsed,
        stop_reason,
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
        shards: None,
        stop_reason: None,
        tables: s.battle.tables().to_vec(),
        stand_in_rules: s.battle.stand_in_rules(),
        variants: Vec::new(),
        max_risk_of_down: None,
        swept_heroes: Vec::new(),
        scenarios: Vec::new(),
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

/// Where a command writes: `out`, or `default` (with `.shard-I-of-N` for a shard).
pub fn output_dir(out: Option<&Path>, default: PathBuf, shard: Shard) -> PathBuf {
    match out {
        Some(out) => out.to_path_buf(),
        None if shard == Shard::WHOLE => default,
        None => PathBuf::from(format!(
            "{}.shard-{}-of-{}",
            default.display(),
            shard.index,
            shard.count
        )),
    }
}

/// Writes a finished report (or a shard's partial result) and prints its summary.
pub fn finish(kind: ReportKind, report: &RunReport, staging: Staging, shard: Shard) -> Result<()> {
    if shard == Shard::WHOLE {
        let (dest, written) = write_report(report, staging)?;
        say(&super::summary(kind, report))?;
        return say(&format!(
            "Wrote {}: {}\n",
            dest.display(),
            written.join(", ")
        ));
    }
    Partial::new(kind, shard, report).write(staging.path())?;
    let dest = staging.commit()?;
    let battles: u64 = report
        .variants
        .first()
        .and_then(|v| v.metrics.first())
        .map_or(0, Metric::total);
    say(&format!(
        "{}: shard {}/{}: {} of {} battles{}, {:.2} s\nWrote {}; when every shard is done: warcrunch merge PARTS... --out DIR\n",
        report.info.name,
        shard.index,
        shard.count,
        thousands(battles),
        thousands(report.info.trials.unwrap_or(0)),
        if report.variants.len() > 1 {
            " per variant"
        } else {
            ""
        },
        report.info.elapsed_seconds.unwrap_or(0.0),
        dest.display()
    ))
}

/// Loads, simulates, writes and summarises.
pub fn run(args: &RunArgs) -> Result<()> {
    let sim = &args.sim;
    let formats = crate::report::Formats::parse(&sim.format)?;
    let overrides = table_overrides(&sim.tables)?;
    let mut plan = Plan::from_args(sim)?;
    if let Some(p) = args.precision {
        if !(p > 0.0 && p <= 0.5) {
            bail!(
                "--precision = {p} is out of range; allowed: a half-width above 0 and at most 0.5, e.g. 0.001"
            );
        }
        plan.precision = Some(p);
    }
    if args.exact && plan.shard != Shard::WHOLE {
        bail!(
            "--exact cannot be combined with --shard: the exact answer needs no cluster; run --exact once without --shard"
        );
    }
    let mut s = scenario::load_with_tables(&args.scenario, &overrides)?;
    let trials = match args.precision {
        Some(_) => Some(args.max_trials),
        None => sim.trials,
    };
    override_settings(&mut s, trials, sim.seed)?;
    let out = output_dir(
        args.out.as_deref(),
        default_out_dir(&args.scenario),
        plan.shard,
    );
    let exact = if args.exact {
        Some(exact_metrics(&s)?)
    } else {
        None
    };
    let staging = Staging::new(&out, sim.force)?;
    let done = simulate(&s, &plan).map_err(super::nothing_written)?;
    let mut info = run_info(&s, reproduce_command(&s, args), done.threads, done.elapsed);
    info.trials = Some(if plan.shard == Shard::WHOLE {
        done.trials
    } else {
        s.trials
    });
    info.stop_reason = done.stop_reason;
    let report = RunReport {
        info,
        variants: vec![VariantResult {
            variant: String::new(),
            metrics: done.metrics,
            exact,
        }],
        formats,
    };
    finish(ReportKind::Run, &report, staging, plan.shard)
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
        .sim
        .tables
        .iter()
        .map(|t| format!(" --table {t}"))
        .collect();
    let size = match args.precision {
        Some(p) => format!("--precision {p} --max-trials {}", args.max_trials),
        None => format!("--trials {}", s.trials),
    };
    format!(
        "warcrunch run {} {size} --seed {}{}{tables}",
        s.path.display(),
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
                            "{} {} ({}–{})",
                            m.label(b),
                            percent(m.weights[b] as f64 / total as f64),
                            percent(lo),
                            percent(hi)
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
    if let Some(reason) = &info.stop_reason {
        let _ = writeln!(out, "  {reason}");
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

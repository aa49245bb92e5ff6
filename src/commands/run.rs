//! `warcrunch run`: simulate a scenario and write its reports.

use anyhow::{Result, bail};

use crate::cli::RunArgs;
use crate::engine::Shard;
use crate::report::output_dir::Staging;
use crate::report::{ReportKind, RunReport, VariantResult};
use crate::runner::{
    Plan, default_out_dir, exact_metrics, finish, nothing_written, output_dir, override_settings,
    run_info, simulate, table_overrides,
};
use crate::scenario::{self, Scenario};

/// Loads, simulates, writes and summarises.
pub fn run(args: &RunArgs) -> Result<()> {
    let sim = &args.sim;
    let formats = crate::report::Formats::of(&sim.format);
    let overrides = table_overrides(&sim.tables)?;
    let mut plan = Plan::from_args(sim);
    if let Some(p) = args.precision {
        crate::validate::check_precision(p).map_err(|e| anyhow::anyhow!("--precision = {e}"))?;
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
    let done = simulate(&s, &plan).map_err(nothing_written)?;
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
            shared: Vec::new(),
        }],
        formats,
    };
    finish(ReportKind::Run, &report, staging, plan.shard)
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

//! `warcrunch run`: the command line as a [`RunRequest`], its summary
//! printed.

use anyhow::Result;

use crate::analysis::run::{RunRequest, run as run_scenario};
use crate::cli::RunArgs;
use crate::report::ReportKind;
use crate::report::console::say;
use crate::runner::Plan;

/// Loads, simulates, writes and summarises.
pub fn run(args: &RunArgs) -> Result<()> {
    let sim = &args.sim;
    let request = RunRequest {
        scenario: args.scenario.clone(),
        exact: args.exact,
        usage: args.usage,
        precision: args.precision,
        max_trials: Some(args.max_trials),
        trials: sim.trials,
        targets: args.targets.clone(),
        seed: sim.seed,
        tables: sim.tables.clone(),
    };
    let to = super::destination(&args.out, &args.sim);
    let answer = run_scenario(&request, &Plan::from_args(sim), &to)?;
    say(&answer.stored.summary(ReportKind::Run, &answer.report))
}

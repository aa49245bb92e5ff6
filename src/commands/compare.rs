//! `warcrunch compare`: the command line as a [`CompareRequest`], what
//! changed printed.

use anyhow::Result;

use crate::analysis::compare::{CompareRequest, compare};
use crate::cli::CompareArgs;
use crate::report::ReportKind;
use crate::report::console::say;
use crate::runner::Plan;

/// Loads every scenario, runs them alike, writes the report and prints what changed.
pub fn run(args: &CompareArgs) -> Result<()> {
    let sim = &args.sim;
    let request = CompareRequest {
        scenarios: args.scenarios.clone(),
        trials: sim.trials,
        targets: args.targets.clone(),
        seed: sim.seed,
        tables: sim.tables.clone(),
    };
    let to = super::destination(&args.out, &args.sim);
    let answer = compare(&request, &Plan::from_args(sim), &to)?;
    say(&answer.stored.summary(ReportKind::Compare, &answer.report))
}

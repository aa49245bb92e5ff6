//! `warcrunch sweep`: the command line as a [`SweepRequest`], its answer
//! printed.

use anyhow::Result;

use crate::analysis::sweep::{SweepRequest, sweep};
use crate::cli::SweepArgs;
use crate::report::ReportKind;
use crate::report::writers::console::say;
use crate::scenario::Resolved;

/// Runs the sweep the options ask and prints its comparison.
pub fn run(args: &SweepArgs) -> Result<()> {
    let resolved = Resolved::read(&args.scenario, &args.sim.tables)?;
    let to = super::destination(&args.out, &args.sim);
    let answer = sweep(&resolved, &request(args), &args.sim.plan(), &to)?;
    say(&answer.stored.summary(ReportKind::Sweep, &answer.report))?;
    match answer.failure {
        Some(failure) => Err(failure.context(match answer.report.variants.len() {
            1 => "the 1 variant that finished was written".to_owned(),
            n => format!("the {n} variants that finished were written"),
        })),
        None => Ok(()),
    }
}

/// The options as the request the library answers (the workbench's sweep
/// form posts the same request).
pub fn request(args: &SweepArgs) -> SweepRequest {
    SweepRequest {
        set: args.set.clone(),
        max_variants: args.max_variants,
        max_risk_of_down: args.max_risk_of_down,
        recommend_for: args.recommend_for.clone(),
        trials: args.sim.trials,
        targets: args.targets.clone(),
        seed: args.sim.seed,
    }
}

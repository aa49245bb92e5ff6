//! `warcrunch sensitivity`: the command line as a [`SensitivityRequest`],
//! the largest moves printed.

use anyhow::{Result, bail};

use crate::analysis::sensitivity::{prepare, sensitivity};
use crate::cli::SensitivityArgs;
use crate::questions::sensitivity::plan::SensitivityRequest;
use crate::report::writers::console::say;
use crate::report::writers::sensitivity::top_lines;
use crate::scenario::Resolved;

/// Runs the analysis the options ask and prints its largest moves.
pub fn run(args: &SensitivityArgs) -> Result<()> {
    let sim = &args.sim;
    if sim.shard.is_some() {
        bail!(
            "--shard: sensitivity runs in one process (its moves are paired battle by battle); run it without --shard"
        );
    }
    let resolved = Resolved::read(&args.scenario, &sim.tables)?;
    let to = super::destination(&args.out, &args.sim);
    let prepared = prepare(&resolved, &request(args))?;
    let answer = sensitivity(&resolved, prepared, &sim.plan(), &to)?;
    say(&top_lines(&answer.report, 10))?;
    say(&crate::report::writers::console::wrote(
        &answer.written.folder,
        &answer.written.files,
    ))
}

/// The options as the request the library answers (the workbench's
/// sensitivity form posts the same request).
pub fn request(args: &SensitivityArgs) -> SensitivityRequest {
    let sim = &args.sim;
    SensitivityRequest {
        target: args.target.clone(),
        knobs: args.knobs.clone(),
        cells: args.cells,
        cell_tables: args.cell_tables.clone(),
        exact: args.exact,
        min_effect: args.min_effect,
        trials: sim.trials,
        seed: sim.seed,
    }
}

//! One module per command.

pub mod cards;
pub mod check;
pub mod compare;
#[cfg(test)]
mod every_system;
pub mod merge;
pub mod new;
pub mod run;
pub mod schema;
pub mod sensitivity;
pub mod serve;
pub mod shell;
pub mod solve;
pub mod sweep;
pub mod tables;
pub mod tune;

use std::path::PathBuf;

use anyhow::Result;

use crate::analysis::Destination;
use crate::cli::{Cli, Command, SimulationArgs};

/// Runs the command the user asked for.
pub fn dispatch(cli: Cli) -> Result<()> {
    crate::report::writers::console::set_quiet(match &cli.command {
        Command::Run(a) => a.sim.quiet,
        Command::Sweep(a) => a.sim.quiet,
        Command::Compare(a) => a.sim.quiet,
        Command::Sensitivity(a) => a.sim.quiet,
        Command::Solve(a) => a.sim.quiet,
        Command::Tune(a) => a.sim.quiet,
        Command::Merge(a) => a.quiet,
        Command::Cards(a) => a.quiet,
        Command::Check(_)
        | Command::Tables(_)
        | Command::New(_)
        | Command::Schema(_)
        | Command::Serve(_)
        | Command::Completions(_)
        | Command::Man => false,
    });
    match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Sweep(args) => sweep::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Sensitivity(args) => sensitivity::run(&args),
        Command::Solve(args) => solve::run(&args),
        Command::Tune(args) => tune::run(&args),
        Command::Merge(args) => merge::run(&args),
        Command::Cards(args) => cards::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Tables(args) => tables::run(&args),
        Command::New(args) => new::run(&args),
        Command::Schema(args) => schema::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Completions(args) => shell::completions(&args),
        Command::Man => shell::man(),
    }
}

/// Where a simulating command writes: `--out`, `--force` and `--format`.
fn destination(out: &Option<PathBuf>, sim: &SimulationArgs) -> Destination {
    Destination {
        out: out.clone(),
        force: sim.force,
        formats: crate::report::Formats::of(&sim.format),
        named_out: None,
        inputs: None,
        large_output: sim.yes,
    }
}

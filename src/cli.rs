//! Command-line arguments and dispatch to the commands.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};

use crate::commands;

/// warcrunch: how mass-battle rules play out, with measured certainty.
#[derive(Debug, Parser)]
#[command(name = "warcrunch", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate a scenario and write distributions, summary, provenance and charts.
    Run(RunArgs),
    /// Run one variant per value of --set (a grid for several) and compare them.
    Sweep(SweepArgs),
    /// Run scenarios with the same seed and trials and test every difference.
    Compare(CompareArgs),
    /// Exact skew analysis of the Combat Card deck.
    Cards(CardsArgs),
    /// Validate a scenario and print it as it will run.
    Check(CheckArgs),
    /// List the built-in tables, or write them out for editing.
    Tables(TablesArgs),
}

/// Arguments of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Battles to simulate (overrides the scenario's `trials`).
    #[arg(long)]
    pub trials: Option<u64>,
    /// Seed of the random streams (overrides the scenario's `seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads; 0 uses every core. Results do not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Output folder [default: reports/<scenario file stem>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also compute the exact distribution and compare the simulation with it.
    #[arg(long)]
    pub exact: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Replace an output folder that warcrunch did not write.
    #[arg(long)]
    pub force: bool,
    /// Use another table file without editing the scenario: NAME=FILE (repeatable).
    #[arg(long = "table", value_name = "NAME=FILE")]
    pub tables: Vec<String>,
    /// Tabular outputs: any of csv, parquet, json, comma-separated.
    #[arg(long, default_value = "csv")]
    pub format: String,
}

/// Arguments of `sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// PATH=a..b or PATH=v1,v2,...; e.g. heroes.Titus.risk=-6..6. Repeat for a grid.
    #[arg(long, required = true)]
    pub set: Vec<String>,
    /// Cap on a PC's chance of going out of action (GURPS: down or dead; 7th Sea: knocked out) for the recommended variant.
    #[arg(long, default_value_t = 0.05)]
    pub max_risk_of_down: f64,
    /// Battles per variant (overrides the scenario's `trials`).
    #[arg(long)]
    pub trials: Option<u64>,
    /// Seed, the same for every variant (overrides the scenario's `seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads; 0 uses every core.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Output folder [default: reports/<scenario file stem>.sweep].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Replace an output folder that warcrunch did not write.
    #[arg(long)]
    pub force: bool,
    /// Use another table file without editing the scenario: NAME=FILE (repeatable).
    #[arg(long = "table", value_name = "NAME=FILE")]
    pub tables: Vec<String>,
    /// Tabular outputs: any of csv, parquet, json, comma-separated.
    #[arg(long, default_value = "csv")]
    pub format: String,
}

/// Arguments of `compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Two or more scenario files; the first is the baseline.
    #[arg(required = true, num_args = 2..)]
    pub scenarios: Vec<PathBuf>,
    /// Battles per scenario [default: the first scenario's `trials`].
    #[arg(long)]
    pub trials: Option<u64>,
    /// Seed, the same for every scenario [default: the first scenario's `seed`].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads; 0 uses every core.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Output folder [default: reports/compare].
    #[arg(long, default_value = "reports/compare")]
    pub out: PathBuf,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Replace an output folder that warcrunch did not write.
    #[arg(long)]
    pub force: bool,
    /// Use another table file in every scenario: NAME=FILE (repeatable).
    #[arg(long = "table", value_name = "NAME=FILE")]
    pub tables: Vec<String>,
    /// Tabular outputs: any of csv, parquet, json, comma-separated.
    #[arg(long, default_value = "csv")]
    pub format: String,
}

/// Arguments of `cards`.
#[derive(Debug, Args)]
pub struct CardsArgs {
    /// A deck table to analyse instead of the built-in one.
    #[arg(long)]
    pub table: Option<PathBuf>,
    /// Output folder.
    #[arg(long, default_value = "reports/cards")]
    pub out: PathBuf,
    /// Replace an output folder that warcrunch did not write.
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
}

/// Arguments of `tables`.
#[derive(Debug, Args)]
pub struct TablesArgs {
    /// Write every built-in table into this folder.
    #[arg(long)]
    pub export: Option<PathBuf>,
    /// Overwrite existing files when exporting.
    #[arg(long)]
    pub force: bool,
}

/// Runs the command the arguments name.
pub fn dispatch(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run(args) => commands::run::run(&args),
        Command::Sweep(args) => commands::sweep::run(&args),
        Command::Compare(args) => commands::compare::run(&args),
        Command::Cards(args) => commands::cards::run(&args),
        Command::Check(args) => commands::check::run(&args),
        Command::Tables(args) => commands::tables::run(&args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}

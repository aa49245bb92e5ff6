//! Command-line arguments: what the user typed, parsed and nothing more.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::analysis::runner::Plan;
use crate::engine::Shard;
use crate::report::Format;

/// `--shard I/N`.
fn parse_shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text).map_err(|e| e.to_string())
}

/// The most worker threads `--threads` accepts for each core: more only
/// queue for the same cores (and each thread costs memory).
pub const THREADS_PER_CORE: usize = 4;

/// `--threads N`: 0 (every core) up to [`THREADS_PER_CORE`] per core.
fn parse_threads(text: &str) -> Result<usize, String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let most = cores * THREADS_PER_CORE;
    let n: usize = text
        .parse()
        .map_err(|_| format!("expected a whole number from 0 (every core) to {most}"))?;
    if n > most {
        return Err(format!(
            "{n} threads is more than {THREADS_PER_CORE} per core on this machine's {cores} \
             (at most {most}; 0 uses every core)"
        ));
    }
    Ok(n)
}

/// A count of battles (`--max-trials`): 1 up to the engine's limit.
fn parse_battle_count(text: &str) -> Result<u64, String> {
    let most = crate::engine::MAX_TRIALS;
    match text.parse::<u64>() {
        Ok(n) if (1..=most).contains(&n) => Ok(n),
        _ => Err(format!("allowed: 1 to {most} battles")),
    }
}

/// `--min-effect`: a change above 0.
fn parse_min_effect(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err("allowed: a number above 0 (percentage points for a probability, the outcome's own units for a mean)".to_owned()),
    }
}

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
    /// Find the value of one setting at which a target's probability reaches a threshold.
    Solve(SolveArgs),
    /// Move every knob of a scenario one step each way and rank what moves a target's probability (or a mean) most.
    Sensitivity(SensitivityArgs),
    /// Find settings or table cells that bring several outcomes into their goals at once, then judge them on fresh battles.
    Tune(TuneArgs),
    /// Combine the partial results of `--shard` runs into the files one run writes.
    Merge(MergeArgs),
    /// Exact skew analysis of the Combat Card deck.
    Cards(CardsArgs),
    /// Validate a scenario and print it as it will run.
    Check(CheckArgs),
    /// List the built-in tables, or write them out for editing.
    Tables(TablesArgs),
    /// Write a commented starter scenario of a system.
    New(NewArgs),
    /// Print the JSON Schema of a scenario or table file, for editors that complete keys.
    Schema(SchemaArgs),
    /// Serve the workbench: a local page to edit a battle and watch its odds converge.
    Serve(ServeArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(CompletionsArgs),
    /// Print the manual page (roff), e.g. `warcrunch man > warcrunch.1`.
    Man,
}

/// Arguments of `new`.
#[derive(Debug, Args)]
pub struct NewArgs {
    /// The system, as a scenario's `system` key names it.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(crate::systems::SYSTEMS.iter().copied()))]
    pub system: String,
    /// Where to write it [default: my_<system>.toml].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace the file if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The scenario file (TOML); or several files or folders (subfolders too), each scenario
    /// run into a folder of its own, with every battle's numbers in one table beside them
    /// (files that are no scenario, such as table files, are left out with a note).
    #[arg(required_unless_present = "from", num_args = 1.., value_name = "SCENARIO")]
    pub scenarios: Vec<PathBuf>,
    /// Run again what a run.json records, from the scenario and tables it holds (no other
    /// file needed): the same battles, the same numbers.
    #[arg(long, value_name = "RUN_JSON", conflicts_with_all = [
        "scenarios", "exact", "usage", "precision", "targets", "trials", "seed", "tables", "shard",
    ])]
    pub from: Option<PathBuf>,
    /// Output folder [default: reports/<scenario file stem>; several scenarios: reports/runs].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also compute the exact distribution and compare the simulation with it.
    #[arg(long)]
    pub exact: bool,
    /// Also count how often the battles read each cell of each table (usage.csv and a heat
    /// map per table), over as many battles fought by the book, die by die.
    #[arg(long, conflicts_with_all = ["precision", "shard"])]
    pub usage: bool,
    /// Run until every probability's 95% interval is at most ± this wide
    /// (checked at fixed chunk counts, so the stop depends only on the seed).
    #[arg(long, value_name = "HALF_WIDTH", conflicts_with_all = ["trials", "shard"])]
    pub precision: Option<f64>,
    /// Also report an event as a yes/no outcome of its own, with its interval (and, in a
    /// comparison or sweep, its paired difference): SUBJECT/METRIC=VALUE[|VALUE...] or
    /// SUBJECT/METRIC>=N (also <=, >, <), e.g. "hero:Isabeau/reputation>=10". Repeatable.
    #[arg(long = "target", value_name = "EVENT")]
    pub targets: Vec<String>,
    /// The most battles a --precision run may take.
    #[arg(long, requires = "precision", default_value_t = crate::engine::DEFAULT_PRECISION_MAX_TRIALS, value_parser = parse_battle_count)]
    pub max_trials: u64,
    /// Options shared with sweep and compare.
    #[command(flatten)]
    pub sim: SimulationArgs,
}

/// Options of every command that simulates.
#[derive(Debug, Args)]
pub struct SimulationArgs {
    /// Battles per scenario or variant (overrides the scenario's `trials`).
    #[arg(long)]
    pub trials: Option<u64>,
    /// Seed of the random streams, the same for every scenario or variant (overrides the scenario's `seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads; 0 uses every core, at most 4 per core. Results do not depend on it.
    #[arg(long, default_value_t = 0, value_parser = parse_threads)]
    pub threads: usize,
    /// Print nothing but errors (no summary, no progress bar).
    #[arg(long, short)]
    pub quiet: bool,
    /// Replace an output folder that warcrunch did not write.
    #[arg(long)]
    pub force: bool,
    /// Go on with a sweep that would write more than about 100 MB (its size is said first).
    #[arg(long)]
    pub yes: bool,
    /// Use another table file without editing the scenario: NAME=FILE (repeatable);
    /// compare takes N:NAME=FILE, for its Nth scenario, or NAME=A,B to compare two tables
    /// (each `builtin` or a file) across every scenario listed.
    #[arg(long = "table", value_name = "NAME=FILE")]
    pub tables: Vec<String>,
    /// Tabular outputs, comma-separated [default: csv].
    #[arg(long, value_enum, value_delimiter = ',')]
    pub format: Vec<Format>,
    /// Run only shard I of N (I counts from 0) and write a partial result
    /// for `warcrunch merge`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
}

impl SimulationArgs {
    /// The plan these options describe.
    pub fn plan(&self) -> Plan {
        Plan {
            threads: self.threads,
            progress: !self.quiet,
            shard: self.shard.unwrap_or(Shard::WHOLE),
            precision: None,
        }
    }
}

/// Arguments of `sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// PATH=a..b, PATH=a..b:step or PATH=v1,v2,...; e.g. heroes.Titus.risk=-6..6,
    /// sides.Raiders.troop_strength=600..1000:50. Repeat for a grid.
    #[arg(long, required = true)]
    pub set: Vec<String>,
    /// Most variants the sweep may run.
    #[arg(long, default_value_t = crate::questions::sweep::DEFAULT_MAX_VARIANTS)]
    pub max_variants: usize,
    /// Cap on a PC's chance of going out of action (GURPS: down or dead; 7th Sea: knocked out) for the recommended variant.
    #[arg(long, default_value_t = crate::stats::recommend::DEFAULT_MAX_RISK_OF_DOWN)]
    pub max_risk_of_down: f64,
    /// Make the recommendation for this PC too (by default it is made only for PCs whose own settings are swept). Repeatable.
    #[arg(long, value_name = "NAME")]
    pub recommend_for: Vec<String>,
    /// Also report an event as a yes/no outcome of its own, with its interval (and, in a
    /// comparison or sweep, its paired difference): SUBJECT/METRIC=VALUE[|VALUE...] or
    /// SUBJECT/METRIC>=N (also <=, >, <), e.g. "hero:Isabeau/reputation>=10". Repeatable.
    #[arg(long = "target", value_name = "EVENT")]
    pub targets: Vec<String>,
    /// Output folder [default: reports/<scenario file stem>.sweep.<swept paths>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Options shared with run and compare.
    #[command(flatten)]
    pub sim: SimulationArgs,
}

/// Arguments of `compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Two or more scenario files; the first is the baseline (its `trials` and `seed` are used for all).
    /// With --table NAME=A,B: one or more scenarios, each fought with table A and with table B.
    #[arg(required = true, num_args = 1..)]
    pub scenarios: Vec<PathBuf>,
    /// Also report an event as a yes/no outcome of its own, with its interval and its paired
    /// difference: SUBJECT/METRIC=VALUE[|VALUE...] or SUBJECT/METRIC>=N (also <=, >, <), e.g.
    /// "hero:Isabeau/reputation>=10"; or check that a numeric outcome's mean can be compared,
    /// SUBJECT/METRIC:mean (every numeric outcome's mean is compared on the battles'
    /// differences). Repeatable.
    #[arg(long = "target", value_name = "EVENT")]
    pub targets: Vec<String>,
    /// Each scenario's name in the report and its files, one per scenario in the order listed
    /// [default: the file's name, numbered `#2`, `#3` where two are alike]. Repeatable.
    #[arg(long = "name", value_name = "NAME")]
    pub names: Vec<String>,
    /// The least difference that matters to you: a difference smaller than this is never
    /// called higher or lower, however sure it is. Percentage points for a probability (0.5),
    /// the outcome's own units for a mean; adds the column below_min_effect to comparison.csv.
    #[arg(long, value_name = "AMOUNT", value_parser = parse_min_effect)]
    pub min_effect: Option<f64>,
    /// Output folder [default: reports/compare].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Options shared with run and sweep.
    #[command(flatten)]
    pub sim: SimulationArgs,
}

/// Arguments of `solve`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("goal").required(true).args(["at_least", "at_most", "equals", "balance"])))]
pub struct SolveArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// The setting and its range: PATH=LO..HI, e.g. sides.Raiders.troop_strength=200..3000
    /// or engagement.rally_chance=0..1.
    #[arg(long, value_name = "PATH=LO..HI")]
    pub vary: String,
    /// The event: SUBJECT/METRIC=VALUE[|VALUE...], e.g. "side:Megalos/victory=won", or a threshold
    /// on a numeric metric, e.g. "hero:Isabeau/reputation>=10" (also <=, >, <).
    #[arg(long, required_unless_present = "balance")]
    pub target: Option<String>,
    /// Find where a side wins as often as it loses (draws count for neither), e.g.
    /// side:Megalos; war cards: battle (the attacker wins as often as the defender).
    #[arg(long, value_name = "SUBJECT", conflicts_with = "target")]
    pub balance: Option<String>,
    /// Find where the probability is at least P.
    #[arg(long, value_name = "P")]
    pub at_least: Option<f64>,
    /// Find where the probability is at most P.
    #[arg(long, value_name = "P")]
    pub at_most: Option<f64>,
    /// Find where the probability is closest to P.
    #[arg(long, value_name = "P")]
    pub equals: Option<f64>,
    /// Exact probabilities for every probe, where the battle has them.
    #[arg(
        long,
        conflicts_with_all = ["precision", "max_trials"],
        help = exact_help("Exact probabilities for every probe", ""),
    )]
    pub exact: bool,
    /// Also stop a probe once its 95% interval is at most ± this wide.
    #[arg(long, value_name = "HALF_WIDTH")]
    pub precision: Option<f64>,
    /// The most battles one probe may take.
    #[arg(long, default_value_t = crate::questions::solve::DEFAULT_MAX_TRIALS, value_parser = parse_battle_count)]
    pub max_trials: u64,
    /// For a real setting: stop once the bracket is this narrow [default: a thousandth of the range].
    #[arg(long)]
    pub tolerance: Option<f64>,
    /// Output folder [default: reports/<scenario file stem>.solve.<varied path>+<target>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Options shared with run, sweep and compare.
    #[command(flatten)]
    pub sim: SimulationArgs,
}

/// Arguments of `tune`.
#[derive(Debug, Args)]
pub struct TuneArgs {
    /// The scenario files (TOML); several are tuned together, each candidate fought in every one.
    #[arg(required = true, num_args = 1..)]
    pub scenarios: Vec<PathBuf>,
    /// A goal: TARGET in LO%..HI%, TARGET <= X% or TARGET >= X% for an event's probability,
    /// e.g. "side:Megalos/victory=won in 45%..55%" or "party/any_down_or_dead=yes <= 10%";
    /// a mean in its own units, e.g. "hero:Isabeau/reputation:mean >= 2". Every scenario with
    /// the outcome is held to it; "... @STEM" holds only the scenario of that file stem.
    /// Repeatable
    #[arg(long, value_name = "GOAL", required = true)]
    pub goal: Vec<String>,
    /// What may change, with its range: PATH=LO..HI[:STEP] or PATH=V1,V2,... (a setting or a
    /// table cell, as `sweep --set` takes it); the range holds the battle's own value. Repeatable
    #[arg(
        long,
        value_name = "PATH=RANGE",
        required_unless_present = "cell_tables"
    )]
    pub vary: Vec<String>,
    /// Move every cell of these tables one step at a time, as `sensitivity --cells` does
    /// (numbers by one, a damage column or a card result to its neighbours, dice by one die,
    /// yes/no toggled); comma-separated, e.g. survival,glory.
    #[arg(long = "tables", value_name = "NAME", value_delimiter = ',')]
    pub cell_tables: Vec<String>,
    /// Keep a cell (or a whole row) of those tables as it is: TABLE.PATH, e.g.
    /// survival.rows.D.column or survival.rows.D. Repeatable
    #[arg(long, value_name = "TABLE.PATH")]
    pub freeze: Vec<String>,
    /// The most settings the tuned battle may change [default: every one varied].
    #[arg(long, value_name = "N")]
    pub max_changes: Option<usize>,
    /// The most steps of the search.
    #[arg(long, value_name = "N", default_value_t = crate::questions::tune::plan::DEFAULT_MAX_STEPS)]
    pub max_steps: usize,
    /// Battles of the verifying run [default: enough for the goals' bands, at least 4 times
    /// the search's battles].
    #[arg(long, value_name = "N", value_parser = parse_battle_count)]
    pub verify_trials: Option<u64>,
    /// Seed of the verifying run [default: one derived from the search's, never the same].
    #[arg(long, value_name = "SEED")]
    pub verify_seed: Option<u64>,
    /// Score every candidate by its exact odds, and refuse a battle that has none. Where every
    /// battle tuned has exact odds the search takes them anyway; this makes it a promise.
    #[arg(long)]
    pub exact: bool,
    /// Let the proposal break the orders its tables declare (a higher result never paying less
    /// Reputation, say); kept by default, and the report names an order that blocks a goal.
    #[arg(long)]
    pub allow_disorder: bool,
    /// The least change in a goal's outcome that matters to you: a change's effect smaller than
    /// this is marked too small to matter, and never counts as bringing a goal closer or taking
    /// it further. Percentage points for a probability (0.5), the outcome's own units for a
    /// mean; adds the column below_min_effect to changes.csv.
    #[arg(long, value_name = "AMOUNT", value_parser = parse_min_effect)]
    pub min_effect: Option<f64>,
    /// Output folder [default: reports/<scenario file stem>.tune.<varied paths>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Options shared with run, sweep and compare (--trials: battles each candidate fights in
    /// the search, 20,000 by default; --seed: the search's seed).
    #[command(flatten)]
    pub sim: SimulationArgs,
}

/// Arguments of `sensitivity`.
#[derive(Debug, Args)]
pub struct SensitivityArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// The event: SUBJECT/METRIC=VALUE[|VALUE...], e.g. "side:Megalos/victory=won"
    /// or "party/any_down_or_dead=yes", or a threshold on a numeric metric, e.g.
    /// "hero:Isabeau/reputation>=10" (also <=, >, <); or a numeric metric's mean,
    /// "hero:Isabeau/reputation:mean" (moves ranked by how far they shift it).
    #[arg(long)]
    pub target: String,
    /// Only these knobs (sweep paths, comma-separated), e.g. heroes.Titus.risk,sides.Raiders.troop_strength.
    #[arg(long, value_delimiter = ',')]
    pub knobs: Vec<String>,
    /// Move every cell of the scenario's tables one step each way (numbers by 1, a damage column
    /// or a card result to its neighbours, dice by one die, yes/no toggled); war cards: every cell
    /// of the Combat Card table the engagement reads.
    #[arg(long)]
    pub cells: bool,
    /// With --cells: only these tables (comma-separated), e.g. survival,glory; every table the
    /// scenario reads by default.
    #[arg(
        long = "tables",
        value_name = "TABLES",
        value_delimiter = ',',
        requires = "cells"
    )]
    pub cell_tables: Vec<String>,
    /// Exact differences, where the battle has exact odds: no sampling.
    #[arg(long, help = exact_help("Exact differences", ": no sampling"))]
    pub exact: bool,
    /// The least change that matters to you: a move whose 95% interval (an exact move: its
    /// change) lies within ± this is reported as too small to matter, however sure it is.
    /// Percentage points for a probability (0.5), the outcome's own units for a mean; adds the
    /// column below_min_effect to sensitivity.csv.
    #[arg(long, value_name = "AMOUNT", value_parser = parse_min_effect)]
    pub min_effect: Option<f64>,
    /// Output folder [default: reports/<scenario file stem>.sensitivity.<target>[+knobs][+cells]].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Options shared with run, sweep and compare.
    #[command(flatten)]
    pub sim: SimulationArgs,
}

/// Arguments of `merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The partial results of every shard (folders written by `--shard`).
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,
    /// Output folder for the merged results.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace an output folder that warcrunch did not write.
    #[arg(long)]
    pub force: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
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
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Arguments of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The scenario file (TOML); optional when --table checks tables on their own.
    #[arg(required_unless_present = "table")]
    pub scenario: Option<PathBuf>,
    /// A table file to check, as NAME=FILE (repeatable): with a scenario, the scenario with
    /// that table; alone, the table on its own, e.g. --table survival=my_survival.toml.
    #[arg(long, value_name = "NAME=FILE")]
    pub table: Vec<String>,
}

/// Arguments of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 7878)]
    pub port: u16,
    /// Address to bind; anything but 127.0.0.1 exposes the server to the network.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,
    /// Open the page in the browser once the server listens.
    #[arg(long)]
    pub open: bool,
    /// Most battles one request may fight: a run's, or a question's in all
    /// (variants × battles, probes × battles, moves × battles).
    #[arg(long, default_value_t = 1_000_000_000)]
    pub max_trials: u64,
    /// Runs at once (the rest wait) [default: the number of cores].
    #[arg(long)]
    pub max_runs: Option<usize>,
    /// The folder scenarios are listed and read from (nothing outside it is read)
    /// [default: ./scenarios when present]; the bundled battles are offered beside it.
    #[arg(long, value_name = "DIR")]
    pub scenarios: Option<PathBuf>,
    /// Require this secret on every API call (the start-up address carries it).
    /// Always on with a non-loopback --host: a fresh one is made unless given.
    #[arg(long, value_name = "SECRET")]
    pub token: Option<String>,
}

/// Arguments of `schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// A system or a table kind (`warcrunch schema` with none lists them).
    #[arg(value_name = "SYSTEM|TABLE")]
    pub name: Option<String>,
    /// Write the schema (every one, if no name is given) into this folder as NAME.schema.json.
    #[arg(long, value_name = "DIR", conflicts_with = "markdown")]
    pub out: Option<PathBuf>,
    /// Print the key reference of every file as Markdown (docs/scenarios.md).
    #[arg(long, conflicts_with = "name")]
    pub markdown: bool,
    /// Overwrite existing files.
    #[arg(long, requires = "out")]
    pub force: bool,
}

/// Arguments of `tables`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct TablesArgs {
    /// Compare two tables instead.
    #[command(subcommand)]
    pub action: Option<TablesAction>,
    /// Write the built-in tables into this folder (every one, or those named).
    #[arg(long)]
    pub export: Option<PathBuf>,
    /// With --export: only these tables (e.g. `cards damage`).
    #[arg(requires = "export", value_name = "NAME")]
    pub names: Vec<String>,
    /// Overwrite existing files when exporting.
    #[arg(long)]
    pub force: bool,
}

/// What `tables` does besides listing and exporting.
#[derive(Debug, Subcommand)]
pub enum TablesAction {
    /// List the cells two tables of one kind differ in (either may be `builtin`).
    Diff {
        /// The first table: a file, or `builtin` (the built-in table of the other's kind).
        first: String,
        /// The second table: a file, or `builtin`.
        second: String,
    },
}

/// An `--exact` option's help: `what`, the battles that have exact odds
/// (each system says which), then `then`.
fn exact_help(what: &str, then: &str) -> String {
    let odds = crate::systems::registry::exact_odds();
    format!("{what} ({odds}){then}")
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

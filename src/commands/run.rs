//! `warcrunch run`: the command line as a [`RunRequest`] (one scenario) or
//! a [`BatchRequest`] (several, or folders), its summary printed; and
//! `run --from run.json`, a run asked again from what its record holds.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Parser;

use crate::analysis::batch::{BatchAnswer, BatchRequest, run_batch};
use crate::analysis::run::{RunRequest, run as run_scenario};
use crate::cli::{Cli, Command, RunArgs};
use crate::report::kit::command_line::CommandLine;
use crate::report::writers::console::say;
use crate::report::{Formats, ReportKind, RunInfo};
use crate::scenario::Resolved;

/// Loads, simulates, writes and summarises.
pub fn run(args: &RunArgs) -> Result<()> {
    if let Some(from) = &args.from {
        return rerun(from, args);
    }
    let request = request(args);
    let plan = args.sim.plan();
    let to = super::destination(&args.out, &args.sim);
    match args.scenarios.as_slice() {
        [one] if !one.is_dir() => {
            let resolved = Resolved::read(one, &args.sim.tables)?;
            let answer = run_scenario(&resolved, &request, &plan, &to)?;
            say(&answer.stored.summary(ReportKind::Run, &answer.report))
        }
        inputs => {
            let batch = BatchRequest {
                inputs: inputs.to_vec(),
                command: batch_command(args),
                tables: args.sim.tables.clone(),
                run: request,
            };
            say(&batch_summary(&run_batch(&batch, &plan, &to)?))
        }
    }
}

/// The run each scenario of `args` gets.
fn request(args: &RunArgs) -> RunRequest {
    let sim = &args.sim;
    RunRequest {
        exact: args.exact,
        exact_where_covered: false,
        usage: args.usage,
        precision: args.precision,
        max_trials: Some(args.max_trials),
        trials: sim.trials,
        targets: args.targets.clone(),
        seed: sim.seed,
        command: None,
        table_sources: Vec::new(),
    }
}

/// The command line that asks a batch again, into the same folder and
/// formats.
fn batch_command(args: &RunArgs) -> String {
    let sim = &args.sim;
    let line = args
        .scenarios
        .iter()
        .fold(CommandLine::new("run"), |line, p| line.path(p))
        .option_if("trials", sim.trials)
        .option_if("seed", sim.seed);
    let line = match args.precision {
        Some(p) => line
            .option("precision", p)
            .option("max-trials", args.max_trials),
        None => line,
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(crate::analysis::batch::DEFAULT_BATCH_DIR));
    line.flag("exact", args.exact)
        .flag("usage", args.usage)
        .options("target", &args.targets)
        .options("table", &sim.tables)
        .written_to(Some(&out), &Formats::of(&sim.format))
        .into()
}

/// What a batch prints: each battle's key odds, then where the tables are.
fn batch_summary(answer: &BatchAnswer) -> String {
    let mut out = String::new();
    for r in &answer.runs {
        let report = &r.answer.report;
        let info = &report.info;
        let _ = writeln!(
            out,
            "{} ({}): {} battles",
            info.name,
            r.name,
            crate::stats::format::thousands(info.trials.unwrap_or(0))
        );
        if let Some(v) = report.variants.first() {
            let trials = info.trials.unwrap_or(0);
            for (line, marked) in crate::report::findings::key_odds(&v.metrics, trials, info) {
                let mark = if marked { " †" } else { "" };
                let _ = writeln!(out, "  {line}{mark}");
            }
        }
        if let Some(reason) = &r.answer.no_exact {
            let _ = writeln!(out, "  no exact odds: {reason}");
        }
    }
    if answer
        .runs
        .iter()
        .any(|r| r.answer.report.info.uses_stand_ins())
    {
        let _ = writeln!(
            out,
            "† rests on stand-in table values (listed in each battle's report and in report.html)"
        );
    }
    let tables = answer
        .skipped
        .iter()
        .filter(|s| s.reason.starts_with("a table file"))
        .count();
    if tables > 0 {
        let _ = writeln!(
            out,
            "left out {tables} table file{} (listed in run.json)",
            if tables == 1 { "" } else { "s" }
        );
    }
    for s in answer
        .skipped
        .iter()
        .filter(|s| !s.reason.starts_with("a table file"))
    {
        let _ = writeln!(out, "left out {}: {}", s.path.display(), s.reason);
    }
    let _ = writeln!(
        out,
        "{} battles' tables in {}: {}",
        answer.runs.len(),
        answer.folder.display(),
        answer.files.join(", ")
    );
    out
}

/// `run --from run.json`: the recorded command run again on the recorded
/// scenario and tables, each written to a private folder that is removed
/// afterwards; the hashes checked before and after.
fn rerun(from: &Path, args: &RunArgs) -> Result<()> {
    let text = crate::tables::input_file::read_results(from)
        .map_err(|e| anyhow::anyhow!("--from: cannot read {}: {e}", from.display()))?;
    if let Ok(batch) = serde_json::from_str::<BatchRecord>(&text) {
        return rerun_batch(from, &batch, args);
    }
    let info: RunInfo = serde_json::from_str(&text)
        .with_context(|| format!("--from {}: not a run.json warcrunch wrote", from.display()))?;
    let words = shlex::split(&info.command).filter(|w| w.get(1).is_some_and(|c| c == "run"));
    let Some(words) = words else {
        bail!(
            "--from {}: it records `{}`, not a run; only a run's record can be run again",
            from.display(),
            info.command
        );
    };
    let (Some(scenario_text), Some(path)) = (&info.scenario_text, &info.scenario_path) else {
        bail!(
            "--from {}: it holds no scenario text (written by warcrunch {} before runs recorded it); run its command instead: {}",
            from.display(),
            info.tool_version,
            info.command
        );
    };
    if info.scenario_sha256.as_deref() != Some(&crate::tables::sha256_hex(scenario_text.as_bytes()))
    {
        bail!(
            "--from {}: the scenario text does not match its recorded SHA-256; the file was edited",
            from.display()
        );
    }
    let Command::Run(recorded) = Cli::try_parse_from(&words)
        .with_context(|| format!("--from {}: cannot read its command", from.display()))?
        .command
    else {
        unreachable!("the command was checked to be a run")
    };
    let private = PrivateFolder::new()?;
    let mut request = request(&recorded);
    let mut tables = recorded.sim.tables.clone();
    // The record's command, writing where this run writes when `--out`
    // asks anew (pasting it then rewrites these files, not the old ones).
    request.command = Some(match &args.out {
        Some(out) => with_out(&words, out),
        None => info.command.clone(),
    });
    for table in info.tables.iter().filter(|t| t.text.is_some()) {
        let file = private.0.join(format!("{}.toml", table.name));
        std::fs::write(&file, table.text.as_deref().unwrap_or_default())
            .with_context(|| format!("cannot write {}", file.display()))?;
        tables.retain(|t| t.split_once('=').is_none_or(|(name, _)| name != table.name));
        tables.push(format!("{}={}", table.name, file.display()));
        request
            .table_sources
            .push((table.name.clone(), table.source.clone()));
    }
    // Every table as read now must be the one recorded (a built-in table
    // may have changed since), checked before any battle.
    let resolved = Resolved::from_text(Path::new(path), scenario_text, &tables)?;
    for was in &info.tables {
        let same = (resolved.scenario.battle)
            .tables()
            .iter()
            .find(|t| t.name == was.name)
            .is_some_and(|t| t.sha256 == was.sha256);
        if !same {
            bail!(
                "--from {}: table {} ({}) is not the one this warcrunch reads: its SHA-256 differs; rerun with the warcrunch that wrote it ({} {})",
                from.display(),
                was.name,
                was.source,
                info.tool_version,
                info.tool_commit
            );
        }
    }
    // Where and as what the record says the run wrote, unless asked anew.
    let out = (args.out.clone())
        .or(recorded.out.clone())
        .unwrap_or_else(|| crate::report::kit::folder_names::default_out_dir(Path::new(path)));
    let mut to = super::destination(&Some(out), &args.sim);
    if args.sim.format.is_empty() {
        to.formats = Formats::of(&recorded.sim.format);
    }
    let answer = run_scenario(&resolved, &request, &args.sim.plan(), &to)?;
    say(&answer.stored.summary(ReportKind::Run, &answer.report))
}

/// `words` (a command line, split) with its `--out` replaced by `out`.
fn with_out(words: &[String], out: &Path) -> String {
    let mut kept = Vec::new();
    let mut words = words.iter();
    while let Some(word) = words.next() {
        if word == "--out" {
            words.next();
        } else if !word.starts_with("--out=") {
            kept.push(word.as_str());
        }
    }
    let out = out.display().to_string();
    kept.iter()
        .copied()
        .chain(["--out", out.as_str()])
        .map(crate::stats::format::shell_word)
        .collect::<Vec<_>>()
        .join(" ")
}

/// What `run --from` reads of a several-battle run's `run.json`.
#[derive(serde::Deserialize)]
struct BatchRecord {
    command: String,
    scenarios: Vec<BatchMember>,
}

/// One battle of a [`BatchRecord`]: its file and that file's SHA-256.
#[derive(serde::Deserialize)]
struct BatchMember {
    path: String,
    sha256: String,
}

/// `run --from` a several-battle run's record: its command run again, once
/// every scenario file is checked to be the one recorded (each battle's own
/// `run.json` holds its text, for a file that has changed since).
fn rerun_batch(from: &Path, batch: &BatchRecord, args: &RunArgs) -> Result<()> {
    let words = shlex::split(&batch.command).filter(|w| w.get(1).is_some_and(|c| c == "run"));
    let Some(Ok(Cli {
        command: Command::Run(mut recorded),
        ..
    })) = words.map(|w| Cli::try_parse_from(&w))
    else {
        bail!(
            "--from {}: cannot read its command `{}`",
            from.display(),
            batch.command
        );
    };
    for member in &batch.scenarios {
        let now = std::fs::read(&member.path).ok();
        if now.as_deref().map(crate::tables::sha256_hex) != Some(member.sha256.clone()) {
            bail!(
                "--from {}: {} is missing or not the file this run read (its SHA-256 differs); run that battle again from its own run.json in the battle's folder",
                from.display(),
                member.path
            );
        }
    }
    if args.out.is_some() {
        recorded.out = args.out.clone();
    }
    if !args.sim.format.is_empty() {
        recorded.sim.format = args.sim.format.clone();
    }
    (recorded.sim.threads, recorded.sim.quiet) = (args.sim.threads, args.sim.quiet);
    run(&recorded)
}

/// A folder of this process's own, removed when dropped.
struct PrivateFolder(PathBuf);

impl PrivateFolder {
    fn new() -> Result<PrivateFolder> {
        let dir = std::env::temp_dir().join(format!("warcrunch-from-{}", std::process::id()));
        if dir.exists() {
            std::fs::remove_dir_all(&dir).ok();
        }
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create folder {}", dir.display()))?;
        Ok(PrivateFolder(dir))
    }
}

impl Drop for PrivateFolder {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

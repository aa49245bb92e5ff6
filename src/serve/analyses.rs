//! Sweeps, solves and sensitivity analyses asked from the page: the posted
//! scenario and the command's own options, run by the command itself, so
//! the files are the CLI's. Only the options that ask a question are
//! accepted; where files go, which tables are read and how many threads
//! run stay the server's choice.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::Parser;
use serde::Deserialize;

use super::files::Refusal;
use super::runs::{Run, Status};

/// Which command answers.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// `warcrunch sweep`.
    Sweep,
    /// `warcrunch solve`.
    Solve,
    /// `warcrunch sensitivity`.
    Sensitivity,
}

impl Kind {
    fn command(self) -> &'static str {
        match self {
            Kind::Sweep => "sweep",
            Kind::Solve => "solve",
            Kind::Sensitivity => "sensitivity",
        }
    }

    /// The options the page may pass (each takes a value unless listed in
    /// [`FLAGS`]).
    fn options(self) -> &'static [&'static str] {
        match self {
            Kind::Sweep => &[
                "--set",
                "--trials",
                "--seed",
                "--max-variants",
                "--max-risk-of-down",
                "--recommend-for",
            ],
            Kind::Solve => &[
                "--vary",
                "--target",
                "--at-least",
                "--at-most",
                "--equals",
                "--exact",
                "--precision",
                "--max-trials",
                "--tolerance",
                "--trials",
                "--seed",
            ],
            Kind::Sensitivity => &[
                "--target", "--knobs", "--cells", "--exact", "--trials", "--seed",
            ],
        }
    }
}

/// Options that take no value.
const FLAGS: [&str; 2] = ["--exact", "--cells"];

/// Options whose value is a number of battles, capped by `--max-trials`.
const BATTLES: [&str; 2] = ["--trials", "--max-trials"];

/// The command line for `kind` on the scenario at `scenario`, writing into
/// `out`; refused when an option is not one the page may pass, any count
/// of battles an option asks (`--trials`, `--max-trials`, a swept
/// `trials`) is above the server's cap (the scenario's own `trials` is
/// checked when it is loaded), or a setting would read a table file. A
/// solve asked without `--max-trials` gets the cap when it is below the
/// command's default.
pub fn command_line(
    kind: Kind,
    options: &[String],
    scenario: &Path,
    out: &Path,
    max_trials: u64,
) -> Result<Vec<OsString>, Refusal> {
    let refuse = |message: String| Refusal {
        status: 422,
        message,
    };
    let allowed = kind.options();
    let mut counted = false;
    let mut exact = false;
    let mut words = options.iter();
    while let Some(option) = words.next() {
        let name = option.split('=').next().unwrap_or_default();
        if !allowed.contains(&name) {
            return Err(refuse(format!(
                "`{option}` is not an option the workbench passes to {}; allowed: {}",
                kind.command(),
                allowed.join(", ")
            )));
        }
        if FLAGS.contains(&name) {
            exact |= name == "--exact";
            continue;
        }
        let value = match option.split_once('=') {
            Some((_, v)) => v.to_owned(),
            None => words
                .next()
                .cloned()
                .ok_or_else(|| refuse(format!("`{option}` needs a value")))?,
        };
        counted |= BATTLES.contains(&name);
        if name == "--set"
            && let Ok(setting) = crate::sweep::parse_setting(&value)
            && setting.path == ["trials"]
        {
            counted = true;
            if let Some(too_many) = setting
                .values
                .iter()
                .find(|v| v.as_integer().is_some_and(|n| n as u64 > max_trials))
            {
                return Err(refuse(format!(
                    "`--set {value}`: trials = {too_many} is out of range; allowed: 1 to {max_trials} (this server's cap)"
                )));
            }
        }
        if BATTLES.contains(&name)
            && value
                .replace('_', "")
                .parse::<u64>()
                .is_ok_and(|n| n > max_trials)
        {
            return Err(refuse(format!(
                "`{name}` = {value} is out of range; allowed: 1 to {max_trials} (this server's cap)"
            )));
        }
        if name == "--set" && value.trim_start().starts_with("tables.") {
            return Err(Refusal {
                status: 403,
                message: format!(
                    "`--set {value}`: the workbench reads no table file named in a request; compare decks or tables with `warcrunch sweep`"
                ),
            });
        }
    }
    let mut line: Vec<OsString> = vec!["warcrunch".into(), kind.command().into(), scenario.into()];
    line.extend(options.iter().map(OsString::from));
    if kind == Kind::Solve && !counted && !exact && crate::solve::DEFAULT_MAX_TRIALS > max_trials {
        line.extend(["--max-trials".into(), max_trials.to_string().into()]);
    }
    line.extend([
        "--out".into(),
        out.into(),
        "--force".into(),
        "--quiet".into(),
    ]);
    // The options' own checks (numbers, ranges of `--set`) as clap makes them.
    crate::cli::Cli::try_parse_from(&line).map_err(|e| refuse(plain(&e.render().to_string())))?;
    Ok(line)
}

/// clap's message without its usage lines.
fn plain(message: &str) -> String {
    message
        .lines()
        .take_while(|l| !l.starts_with("Usage:"))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// A question checked and waiting for its turn.
pub struct Asked {
    /// The command.
    pub kind: Kind,
    /// Its options, as checked by [`command_line`].
    pub options: Vec<String>,
    /// The folder the posted scenario is written in (removed afterwards).
    pub input: PathBuf,
    /// The scenario as written there.
    pub file: PathBuf,
    /// The scenario's name on the page, used in messages.
    pub name: String,
    /// The server's cap on battles.
    pub max_trials: u64,
    /// Runs the command line ([`super::ServeOptions::command`]).
    pub command: fn(crate::cli::Cli) -> anyhow::Result<()>,
}

impl Asked {
    /// Runs the command on this (blocking) thread, writing into the run's
    /// folder, and reports its files or its own error through the run's
    /// state.
    pub fn answer(self, run: &Run) {
        let outcome = command_line(
            self.kind,
            &self.options,
            &self.file,
            &run.dir,
            self.max_trials,
        )
        .map_err(|r| anyhow::anyhow!(r.message))
        .and_then(|line| {
            crate::cli::Cli::try_parse_from(&line)
                .map_err(|e| anyhow::anyhow!(plain(&e.render().to_string())))
        })
        .and_then(self.command)
        .map_err(|e| format!("{e:#}").replace(&self.file.display().to_string(), &self.name));
        let _ = std::fs::remove_dir_all(&self.input);
        let files = std::fs::read_dir(&run.dir).map(|entries| {
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect();
            names.sort();
            names
        });
        run.state.send_modify(|s| match (outcome, files) {
            (Ok(()), Ok(names)) => {
                s.files = names;
                s.status = Status::Done;
            }
            (Ok(()), Err(e)) => {
                s.status = Status::Failed;
                s.note = Some(format!("cannot list the files written: {e}"));
            }
            (Err(message), _) => {
                s.status = Status::Failed;
                s.note = Some(message);
            }
        });
    }
}

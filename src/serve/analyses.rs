//! Sweeps, solves, sensitivity analyses and comparisons of edited tables
//! asked from the page: the posted scenario (with the page's tables) and a
//! typed request, answered by the same library calls the
//! commands make, so the files are the CLI's. Where files go, which tables
//! are read and how many threads run stay the server's choice; no command
//! line is built or parsed here.

use std::path::PathBuf;

use serde::Deserialize;

use super::files::Refusal;
use super::runs::{Run, Status};
use crate::analysis::Destination;
use crate::analysis::compare::{CompareRequest, compare};
use crate::analysis::sensitivity::{SensitivityRequest, sensitivity};
use crate::analysis::solve::{SolveRequest, solve};
use crate::analysis::sweep::{SweepRequest, sweep};
use crate::engine::Shard;
use crate::runner::Plan;

/// A question and its terms, as the page posts it:
/// `{"sweep": {"set": ["sides.A.strategy=10..14"], "trials": 100000}}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ask {
    /// `warcrunch sweep`.
    Sweep(SweepRequest),
    /// `warcrunch solve`.
    Solve(SolveRequest),
    /// `warcrunch sensitivity`.
    Sensitivity(SensitivityRequest),
    /// `warcrunch compare S S --table 2:NAME=FILE …`: the battle with its
    /// tables as written against the battle with the page's edited tables,
    /// on the same battles.
    Compare(CompareRequest),
}

impl Ask {
    /// Refuses a question above the server's cap on battles (the battles of
    /// a variant or probe, a swept `trials`; the scenario's own `trials` is
    /// checked when it is loaded) or one that would read a table file;
    /// gives a solve the cap as its most battles per probe when the
    /// question names none and the default is above it.
    pub fn within(mut self, max_trials: u64) -> Result<Ask, Refusal> {
        let refuse = |message: String| Refusal {
            status: 422,
            message,
        };
        let over = |name: &str, n: Option<u64>| match n {
            Some(n) if n > max_trials => Err(refuse(format!(
                "`{name}` = {n} is out of range; allowed: 1 to {max_trials} (this server's cap)"
            ))),
            _ => Ok(()),
        };
        match &mut self {
            Ask::Sweep(r) => {
                over("trials", r.trials)?;
                for typed in &r.set {
                    let setting = crate::sweep::parse_setting(typed).ok();
                    // A table's cells may be set; a table file may not be named.
                    if setting
                        .as_ref()
                        .is_some_and(|s| s.path.len() == 2 && s.path[0] == "tables")
                    {
                        return Err(Refusal {
                            status: 403,
                            message: format!(
                                "`set` {typed}: the workbench reads no table file named in a request; set a table's cells instead (tables.NAME.CELL=…), or compare table files with `warcrunch sweep`"
                            ),
                        });
                    }
                    if let Some(setting) = setting
                        && setting.path == ["trials"]
                        && let Some(too_many) = setting
                            .values
                            .iter()
                            .find(|v| v.as_integer().is_some_and(|n| n as u64 > max_trials))
                    {
                        return Err(refuse(format!(
                            "`set` {typed}: trials = {too_many} is out of range; allowed: 1 to {max_trials} (this server's cap)"
                        )));
                    }
                }
            }
            Ask::Solve(r) => {
                let missing = match (&r.balance, &r.target, &r.goal) {
                    (None, None, _) => Some("target"),
                    (None, Some(_), None) => Some("goal"),
                    _ => None,
                };
                if let Some(field) = missing {
                    return Err(refuse(format!(
                        "missing field `{field}`: `solve` needs `target` and `goal` ({{\"at_least\"|\"at_most\"|\"equals\": P}}), or `balance` (a side)"
                    )));
                }
                over("max_trials", r.max_trials)?;
                if r.max_trials.is_none()
                    && !r.exact
                    && crate::solve::DEFAULT_MAX_TRIALS > max_trials
                {
                    r.max_trials = Some(max_trials);
                }
            }
            Ask::Sensitivity(r) => over("trials", r.trials)?,
            Ask::Compare(r) => over("trials", r.trials)?,
        }
        Ok(self)
    }
}

/// A question checked and waiting for its turn.
pub struct Asked {
    /// The question, within the server's cap.
    pub ask: Ask,
    /// The folder the posted scenario is written in (removed afterwards).
    pub input: PathBuf,
    /// The scenario as written there.
    pub file: PathBuf,
    /// The scenario's name on the page, used in messages.
    pub name: String,
    /// The tables edited on the page, written in `input`: name and file.
    pub tables: Vec<(String, PathBuf)>,
}

impl Asked {
    /// Answers on this (blocking) thread, writing into the run's folder,
    /// and reports its files or its error through the run's state.
    pub fn answer(self, run: &Run) {
        let plan = Plan {
            threads: 0,
            progress: false,
            shard: Shard::WHOLE,
            precision: None,
        };
        let to = Destination {
            out: Some(run.dir.clone()),
            force: true,
            formats: crate::report::Formats::default(),
        };
        let scenario = self.file.clone();
        let edited: Vec<String> = self
            .tables
            .iter()
            .map(|(name, file)| format!("{name}={}", file.display()))
            .collect();
        let outcome = match self.ask {
            Ask::Sweep(request) => sweep(
                &SweepRequest {
                    scenario,
                    tables: edited,
                    ..request
                },
                &plan,
                &to,
            )
            .and_then(|a| a.failure.map_or(Ok(()), Err)),
            Ask::Solve(request) => solve(
                &SolveRequest {
                    scenario,
                    tables: edited,
                    ..request
                },
                &plan,
                &to,
                &mut |_, _, _, _| Ok(()),
            )
            .map(drop),
            Ask::Sensitivity(request) => sensitivity(
                &SensitivityRequest {
                    scenario,
                    tables: edited,
                    ..request
                },
                &plan,
                &to,
            )
            .map(drop),
            Ask::Compare(request) => compare(
                &CompareRequest {
                    scenarios: vec![scenario.clone(), scenario],
                    tables: edited.iter().map(|t| format!("2:{t}")).collect(),
                    ..request
                },
                &plan,
                &to,
            )
            .map(drop),
        }
        .map_err(|e| {
            let mut message =
                format!("{e:#}").replace(&self.file.display().to_string(), &self.name);
            for (name, file) in &self.tables {
                message = message.replace(
                    &file.display().to_string(),
                    &format!("the page's {name} table"),
                );
            }
            message
        });
        let _ = std::fs::remove_dir_all(&self.input);
        let files = std::fs::read_dir(&run.dir).map(|entries| {
            // The folder's marker (`.warcrunch`) is not one of the answer's files.
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|name| !name.starts_with('.'))
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

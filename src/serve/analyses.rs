//! Sweeps, solves, sensitivity analyses and comparisons of edited tables
//! asked from the page: the posted scenario (with the page's tables) and a
//! typed request, answered by the same library calls the
//! commands make, so the files are the CLI's. Where files go, which tables
//! are read and how many threads run stay the server's choice; no command
//! line is built or parsed here.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use serde::Deserialize;

use super::files::Refusal;
use super::inputs::Inputs;
use super::runs::{Run, Status};
use crate::analysis::Destination;
use crate::analysis::compare::{CompareRequest, compare};
use crate::analysis::runner::Plan;
use crate::analysis::sensitivity::{Prepared, prepare, sensitivity};
use crate::analysis::solve::{SolveRequest, solve};
use crate::analysis::sweep::{SweepRequest, sweep};
use crate::analysis::tune::tune;
use crate::engine::Shard;
use crate::questions::sensitivity::plan::SensitivityRequest;
use crate::questions::tune::plan::{DEFAULT_SEARCH_TRIALS, TuneRequest};
use crate::scenario::Resolved;

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
    /// `warcrunch tune`: the table cells (or settings) that bring the
    /// goals into their bands, judged on fresh battles.
    Tune(TuneRequest),
}

impl Ask {
    /// Holds a question to the server's cap on battles, `max_trials` for
    /// the whole question (the scenario's own battles, `scenario_trials`,
    /// already held to it): a sweep or compare that names no `trials`
    /// gives each variant an equal share of the cap (at most the
    /// scenario's number), one that names them is refused when its
    /// variants × battles exceed the cap; a solve that names no
    /// `max_trials` probes with at most [`SOLVE_SHARE`] of the cap each;
    /// a sensitivity analysis shares the cap as a sweep does among the
    /// scenarios it fights (the base and each move), which
    /// `sensitivity_scenarios` counts. A sweep runs at most
    /// [`crate::questions::sweep::DEFAULT_MAX_VARIANTS`] variants whatever it asks,
    /// and no question may read a table file.
    pub fn within(
        mut self,
        max_trials: u64,
        scenario_trials: u64,
        sensitivity_scenarios: impl FnOnce(&SensitivityRequest) -> anyhow::Result<u64>,
    ) -> Result<Ask, Refusal> {
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
        // Variants × battles within the cap: `trials` given is checked, none
        // given gets an equal share.
        let share = |trials: &mut Option<u64>, variants: u64| match *trials {
            Some(n) if n.saturating_mul(variants) > max_trials => Err(refuse(format!(
                "{variants} variants × {n} battles is {} battles; this server fights at most {max_trials} for one question: ask fewer `trials` or fewer variants",
                n.saturating_mul(variants)
            ))),
            Some(_) => Ok(()),
            None => {
                let each = scenario_trials.min(max_trials / variants.max(1));
                if each == 0 {
                    return Err(refuse(format!(
                        "{variants} variants are more than this server's cap of {max_trials} battles for one question allows (one battle each)"
                    )));
                }
                *trials = Some(each);
                Ok(())
            }
        };
        match &mut self {
            Ask::Sweep(r) => {
                over("trials", r.trials)?;
                r.max_variants = r
                    .max_variants
                    .min(crate::questions::sweep::DEFAULT_MAX_VARIANTS);
                let settings = r
                    .set
                    .iter()
                    .map(|typed| {
                        crate::questions::sweep::parse_setting(typed)
                            .map(|setting| (typed, setting))
                            .map_err(|e| refuse(format!("{e:#}")))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                for (typed, setting) in &settings {
                    // A table's cells may be set; a table file may not be named.
                    if setting.path.len() == 2 && setting.path[0] == "tables" {
                        return Err(Refusal {
                            status: 403,
                            message: format!(
                                "`set` {typed}: the workbench reads no table file named in a request; set a table's cells instead (tables.NAME.CELL=…), or compare table files with `warcrunch sweep`"
                            ),
                        });
                    }
                    if setting.path == ["trials"]
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
                // A sweep of `trials` or `seed` fights its variants one after
                // another with their own numbers; the others in lockstep.
                let variants = settings
                    .iter()
                    .fold(1u64, |n, (_, s)| n.saturating_mul(s.values.len() as u64));
                if variants > r.max_variants as u64 {
                    return Err(refuse(format!(
                        "`set` makes {variants} variants; this server runs at most {} in one sweep",
                        r.max_variants
                    )));
                }
                match settings.iter().find(|(_, s)| s.path == ["trials"]) {
                    Some((_, swept)) => {
                        let sum = swept
                            .values
                            .iter()
                            .filter_map(toml::Value::as_integer)
                            .fold(0u64, |n, t| n.saturating_add(t.max(0) as u64));
                        let per_trials = variants / (swept.values.len().max(1) as u64);
                        if sum.saturating_mul(per_trials) > max_trials {
                            return Err(refuse(format!(
                                "the swept `trials` add up to {} battles; this server fights at most {max_trials} for one question",
                                sum.saturating_mul(per_trials)
                            )));
                        }
                    }
                    None => share(&mut r.trials, variants)?,
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
                if r.max_trials.is_none() && !r.exact {
                    r.max_trials = Some(
                        crate::questions::solve::DEFAULT_MAX_TRIALS
                            .min((max_trials / SOLVE_SHARE).max(1)),
                    );
                }
            }
            Ask::Sensitivity(r) => {
                over("trials", r.trials)?;
                let fought = sensitivity_scenarios(r).map_err(|e| refuse(format!("{e:#}")))?;
                share(&mut r.trials, fought)?;
            }
            Ask::Compare(r) => share(&mut r.trials, 2)?,
            Ask::Tune(r) => {
                over("trials", r.trials)?;
                over("verify_trials", r.verify_trials)?;
                if !r.vary.is_empty() {
                    for typed in &r.vary {
                        let setting = crate::questions::sweep::parse_setting(typed)
                            .map_err(|e| refuse(format!("{e:#}").replacen("--set", "`vary`", 1)))?;
                        if setting.path.len() == 2 && setting.path[0] == "tables" {
                            return Err(Refusal {
                                status: 403,
                                message: format!(
                                    "`vary` {typed}: the workbench reads no table file named in a request; move a table's cells instead"
                                ),
                            });
                        }
                    }
                }
                // Each candidate fights its share of the cap (a search
                // fights many), at most the battle's own count.
                r.trials.get_or_insert(
                    DEFAULT_SEARCH_TRIALS
                        .min(scenario_trials)
                        .min((max_trials / TUNE_SHARE).max(1)),
                );
                r.max_verify_trials = Some(max_trials / 4);
            }
        }
        Ok(self)
    }
}

impl Ask {
    /// What the answer fights, held by [`Ask::within`], in words for the
    /// page to name beside it: `1,000,000 battles a variant`.
    pub fn battles_in_words(&self, scenario_trials: u64) -> String {
        let count = |n: u64| crate::stats::format::thousands(n);
        match self {
            Ask::Sweep(r) if sweeps(r, &["trials"]) => "the swept battles a variant".to_owned(),
            Ask::Sweep(r) => format!(
                "{} battles a variant",
                count(r.trials.unwrap_or(scenario_trials))
            ),
            Ask::Solve(r) if r.exact => "exact odds".to_owned(),
            Ask::Solve(r) => {
                let most = format!("at most {} battles a probe", count(r.max_trials()));
                match r.precision {
                    Some(h) => format!(
                        "{most}, each until its interval is within ±{} pt",
                        crate::stats::format::trim_decimal(100.0 * h, 6)
                    ),
                    None => most,
                }
            }
            Ask::Sensitivity(r) if r.exact => "exact odds".to_owned(),
            Ask::Sensitivity(r) => format!(
                "{} battles a move",
                count(r.trials.unwrap_or(scenario_trials))
            ),
            Ask::Compare(r) => format!(
                "{} battles each",
                count(r.trials.unwrap_or(scenario_trials))
            ),
            Ask::Tune(r) => format!(
                "{} battles a candidate, the verdicts on fresh ones",
                count(r.trials.unwrap_or(DEFAULT_SEARCH_TRIALS))
            ),
        }
    }

    /// The battles it fights for each variant, move or side, where that is
    /// one number a run's count compares with (none for a solve's probes,
    /// a tune's candidates, exact odds or a sweep of `trials`).
    pub fn battles_each(&self, scenario_trials: u64) -> Option<u64> {
        match self {
            Ask::Sweep(r) if !sweeps(r, &["trials"]) => Some(r.trials.unwrap_or(scenario_trials)),
            Ask::Sensitivity(r) if !r.exact => Some(r.trials.unwrap_or(scenario_trials)),
            Ask::Compare(r) => Some(r.trials.unwrap_or(scenario_trials)),
            _ => None,
        }
    }

    /// Whether its simulations set out to fight all their battles at once
    /// (one lockstep run), so its battles fought tell the time left: not
    /// a solve's probes, nor a sweep of `trials` or `seed`, fought one
    /// after another.
    pub fn plans_ahead(&self) -> bool {
        match self {
            Ask::Sweep(r) => !sweeps(r, &["trials", "seed"]),
            Ask::Solve(_) | Ask::Tune(_) => false,
            Ask::Sensitivity(_) | Ask::Compare(_) => true,
        }
    }

    /// The question's target in words (`the party: anyone down or dead =
    /// yes`) as `system` words it, for the page's heading over its answer.
    pub fn target_in_words(&self, system: &str) -> Option<String> {
        let target = match self {
            Ask::Solve(r) => r.target.as_deref(),
            Ask::Sensitivity(r) => Some(r.target.as_str()),
            Ask::Sweep(_) | Ask::Compare(_) | Ask::Tune(_) => None,
        };
        target.map(|t| crate::report::kit::words::target(system, t))
    }
}

/// Whether the sweep sets one of `keys` (the battle count, the seed),
/// read as the sweep reads its settings.
fn sweeps(r: &SweepRequest, keys: &[&str]) -> bool {
    r.set.iter().any(|typed| {
        crate::questions::sweep::parse_setting(typed)
            .is_ok_and(|s| matches!(s.path.as_slice(), [key] if keys.contains(&key.as_str())))
    })
}

/// Every [`PROGRESS_EVERY`], while a question runs, its battles fought
/// and planned so far into its state, until `finished` is closed.
fn report_battles(run: &Run, finished: &Receiver<()>) {
    while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(PROGRESS_EVERY) {
        let (done, planned) = (run.scope.fought(), run.scope.planned());
        run.state.send_if_modified(|s| {
            let moved = s.status == Status::Running && (s.done, s.planned) != (done, planned);
            if moved {
                (s.done, s.planned) = (done, planned);
            }
            moved
        });
    }
}

/// How often a running question reports its battles.
const PROGRESS_EVERY: Duration = Duration::from_millis(400);

/// A solve that names no `max_trials` probes with at most 1/this of the
/// server's cap each (a search takes about 2 + log2(range) probes).
pub const SOLVE_SHARE: u64 = 16;

/// A tune that names no `trials` fights each candidate with at most
/// 1/this of the server's cap (a search fights hundreds of candidates;
/// the whole tune is held to the cap all the same).
pub const TUNE_SHARE: u64 = 400;

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
    /// The files of `input`, written again beside the answer (the
    /// record's command names them by file name).
    pub inputs: Inputs,
    /// The scenario in `input`, read with the page's tables.
    pub resolved: Resolved,
    /// A sensitivity analysis's moves, prepared when its scenarios were
    /// counted against the cap.
    pub sensitivity: Option<Prepared>,
}

impl Asked {
    /// Answers on this (blocking) thread, writing into the run's folder,
    /// and reports its files or its error through the run's state; while
    /// it simulates, the state says how many battles it has fought of
    /// those its simulations set out to fight so far.
    pub fn answer(self, run: &Run) {
        let (answered, finished) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|threads| {
            threads.spawn(move || report_battles(run, &finished));
            self.answer_now(run);
            // Dropped: the reporter stops at once.
            drop(answered);
        });
    }

    fn answer_now(self, run: &Run) {
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
            // Pasted in a folder of the inputs, the command writes the
            // answer into a folder named as the run's.
            named_out: run.dir.file_name().map(PathBuf::from),
            inputs: Some(self.input.clone()),
            // The server's caps on variants and battles bound its files.
            large_output: true,
        };
        let outcome = match self.ask {
            // Its recommendation and flags, as the page shows them above
            // the report.
            Ask::Sweep(request) => sweep(&self.resolved, &request, &plan, &to).and_then(|a| {
                let findings = crate::report::findings::sweep_findings(&a.report);
                run.state.send_modify(|s| (s.verdict, s.flags) = findings);
                a.failure.map_or(Ok(()), Err)
            }),
            Ask::Solve(request) => {
                solve(&self.resolved, &request, &plan, &to, &mut |_, _, _, _| {
                    Ok(())
                })
                .map(drop)
            }
            Ask::Sensitivity(request) => (self.sensitivity)
                .map_or_else(|| prepare(&self.resolved, &request), Ok)
                .and_then(|prepared| sensitivity(&self.resolved, prepared, &plan, &to))
                .map(drop),
            // The battle with its tables as written, then with the page's,
            // named so.
            Ask::Compare(request) => {
                let request = CompareRequest {
                    names: vec!["as written".to_owned(), "edited".to_owned()],
                    ..request
                };
                (self.resolved.with_tables(&[]))
                    .and_then(|written| {
                        compare(&[written, self.resolved.clone()], &request, &plan, &to)
                    })
                    .map(drop)
            }
            Ask::Tune(request) => tune(
                std::slice::from_ref(&self.resolved),
                &request,
                &plan,
                &to,
                // Each step taken, as the page's note on the question.
                &mut |(pass, step), _, shortfall| {
                    let note = format!(
                        "{} {step}, total shortfall {}",
                        match pass {
                            1 => "step".to_owned(),
                            crate::questions::tune::TIDY_PASS => "tidying, step".to_owned(),
                            crate::questions::tune::RACE_PASS => {
                                "the finalists on fresh battles, round".to_owned()
                            }
                            _ => format!("pass {pass}, step"),
                        },
                        crate::stats::format::trim_decimal(shortfall, 3)
                    );
                    run.state.send_modify(|s| s.note = Some(note));
                    Ok(())
                },
            )
            // Done, the steps' note gives way to the answer.
            .map(|_| run.state.send_modify(|s| s.note = None)),
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
        let outcome = outcome.and_then(|()| {
            self.inputs
                .write_into(&run.dir)
                .map_err(|e| format!("cannot write the question's inputs beside its answer: {e}"))
        });
        let files = std::fs::read_dir(&run.dir).map(|entries| {
            // The folder's marker (`.warcrunch`) is not one of the answer's files.
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|name| !name.starts_with('.'))
                .collect();
            names.sort();
            names
        });
        match (outcome, files) {
            (Ok(()), Ok(names)) => run.state.send_modify(|s| {
                s.files = names;
                s.status = Status::Done;
            }),
            (Ok(()), Err(e)) => run.fail(format!("cannot list the files written: {e}")),
            (Err(message), _) => run.fail(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(json: serde_json::Value) -> Ask {
        serde_json::from_value(json).expect("a question")
    }

    /// A lockstep question knows its battles from the start; a solve and
    /// a sweep of the seed or the count add simulations as they go.
    #[test]
    fn only_a_lockstep_question_plans_ahead() {
        let sweep = |set: &str| ask(serde_json::json!({ "sweep": { "set": [set] } }));
        assert!(sweep("heroes.Titus.risk=-1..1").plans_ahead());
        assert!(!sweep("trials=1000,2000").plans_ahead());
        assert!(!sweep("seed=1..3").plans_ahead());
        assert!(!sweep(" seed = 1..3").plans_ahead());
        let solve = ask(serde_json::json!({ "solve": {
            "vary": "sides.A.strategy=1..20", "target": "side:A/victory=won", "goal": { "equals": 0.5 }
        } }));
        assert!(!solve.plans_ahead());
        let sensitivity =
            ask(serde_json::json!({ "sensitivity": { "target": "side:A/victory=won" } }));
        assert!(sensitivity.plans_ahead());
        assert_eq!(
            sensitivity.battles_in_words(20_000),
            "20,000 battles a move"
        );
        assert_eq!(
            sensitivity.target_in_words("gurps").as_deref(),
            Some("A: victory = won")
        );
    }

    /// The one count a run's compares with: a variant's, a move's, a
    /// side's; none where a question fights no one count.
    #[test]
    fn a_question_fights_one_count_each_or_none() {
        let sweep =
            |set: &str| ask(serde_json::json!({ "sweep": { "set": [set], "trials": 500 } }));
        assert_eq!(
            sweep("heroes.Titus.risk=-1..1").battles_each(20_000),
            Some(500)
        );
        assert_eq!(sweep("trials=1000,2000").battles_each(20_000), None);
        let sensitivity = |exact: bool| {
            ask(
                serde_json::json!({ "sensitivity": { "target": "side:A/victory=won", "exact": exact } }),
            )
        };
        assert_eq!(sensitivity(false).battles_each(20_000), Some(20_000));
        assert_eq!(sensitivity(true).battles_each(20_000), None);
        let solve = ask(serde_json::json!({ "solve": {
            "vary": "sides.A.strategy=1..20", "target": "side:A/victory=won", "goal": { "equals": 0.5 }
        } }));
        assert_eq!(solve.battles_each(20_000), None);
    }
}

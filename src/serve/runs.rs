//! The workbench's runs: queued behind a cap on runs at once, simulated on
//! a blocking thread (never on the async workers), publishing their counts
//! at every checkpoint, stoppable, and writing the files `warcrunch run`
//! writes.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use tokio::sync::{Semaphore, watch};

use super::inputs::Inputs;
use crate::analysis::run::{Asked, simulate_and_store};
use crate::analysis::runner::Plan;
use crate::engine::Scope;
use crate::report::Formats;
use crate::report::kit::command_line::CommandLine;
use crate::report::kit::output_dir::Staging;
use crate::scenario::Scenario;
use crate::stats::{Metric, two_proportion, unpaired_difference, wilson, z95};

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Waiting for a free slot.
    Queued,
    /// Simulating.
    Running,
    /// Finished; its files can be fetched.
    Done,
    /// Stopped on request before the end; nothing written.
    Stopped,
    /// Failed; `error` says why.
    Failed,
}

impl Status {
    /// Whether the run has ended.
    pub fn ended(self) -> bool {
        matches!(self, Status::Done | Status::Stopped | Status::Failed)
    }
}

/// One outcome's share with its 95% Wilson interval.
#[derive(Debug, Clone, Serialize)]
pub struct Share {
    /// The outcome as written in distributions.csv.
    pub value: String,
    /// Its share of the battles so far.
    pub probability: f64,
    /// Lower end of the 95% interval.
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
    /// The share and its interval as the console and the report print them
    /// (`56.62% (56.41%–56.84%)`).
    pub shown: String,
    /// The same outcome in the run this one is compared with, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Before>,
}

/// An outcome in an earlier run, and how far this run's share is from it:
/// the 95% interval of the difference of two independent proportions
/// (Newcombe's method, as `warcrunch compare` computes it for unpaired runs).
#[derive(Debug, Clone, Serialize)]
pub struct Before {
    /// Its share in the earlier run.
    pub probability: f64,
    /// That share as the console prints it.
    pub shown: String,
    /// This run's share minus the earlier one's.
    pub difference: f64,
    /// Lower end of the difference's 95% interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// The difference and its interval as every report writes them
    /// (`−24.1 pt (−24.4 to −23.8)`).
    pub change: String,
    /// `unchanged` (the same count of as many battles), `differs` (beyond
    /// noise, family-wise over every outcome shown: Holm at 5% on the
    /// two-proportion test) or `tied`.
    pub verdict: &'static str,
    /// The test's p-value (for the family-wise verdict).
    #[serde(skip)]
    p_value: f64,
}

/// A metric as the page draws it: its outcomes seen so far.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    /// `side:Megalos`, `hero:Titus`, `battle`, `party`.
    pub subject: String,
    /// `victory`, `state`, …
    pub metric: String,
    /// The two in the report's words: `Megalos — victory`.
    pub title: String,
    /// Outcomes with at least one battle, in the metric's order.
    pub shares: Vec<Share>,
}

/// What the event stream sends: the whole state of a run, each time it moves.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    /// The run's id (random: another site's page cannot guess it).
    pub id: u64,
    /// The run's number on this server, in the order runs were started
    /// (1, 2, 3…): what the page calls it.
    pub number: u64,
    /// Where it is.
    pub status: Status,
    /// Battles done so far.
    pub done: u64,
    /// Battles asked for (the most, for a `precision` run).
    pub planned: u64,
    /// The verdict in plain words, as the report states it (each sentence
    /// marked † when the battle rests on stand-in values).
    pub verdict: Vec<String>,
    /// The balance flags report.html shows, once done.
    pub flags: Vec<crate::report::findings::Flag>,
    /// The stand-in values the † leads to, if the battle rests on any.
    pub stand_ins: Option<String>,
    /// Every metric's outcomes so far.
    pub metrics: Vec<Shown>,
    /// The files written, once done.
    pub files: Vec<String>,
    /// Why it stopped early (`precision`) or failed.
    pub note: Option<String>,
    /// For a run stopped on request: milliseconds from the request to its
    /// end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_after_ms: Option<u64>,
}

/// A run the server knows.
pub struct Run {
    /// Stops its simulations (within a piece of battles) and caps the battles
    /// they fight in all.
    pub scope: Arc<Scope>,
    /// The latest snapshot; the event stream follows it.
    pub state: watch::Sender<Snapshot>,
    /// Where its files are written.
    pub dir: PathBuf,
    /// Its final counts, once it is done (what a later run is compared with).
    pub counts: OnceLock<Vec<Metric<u64>>>,
    /// When a stop was first asked for.
    asked_to_stop: OnceLock<std::time::Instant>,
    /// Its place in the order runs were started (its id is random).
    started: u64,
}

impl Run {
    /// Its number on this server (see [`Snapshot::number`]).
    pub fn number(&self) -> u64 {
        self.started
    }
}

/// Ended runs kept (state and files) when a new run starts; older ones are
/// forgotten, so the server's memory and disk stay flat however many runs
/// it serves.
pub const KEPT: usize = 32;

/// Runs waiting for a slot at most; another is refused (429) until one
/// starts, so what queued runs hold (their scenarios, at most a request
/// body each) stays bounded.
pub const MAX_QUEUED: usize = 32;

/// A run refused because [`MAX_QUEUED`] runs are waiting already.
#[derive(Debug)]
pub struct Busy {
    /// Runs waiting.
    pub waiting: usize,
}

/// Every run of this server, and the cap on runs at once.
pub struct Runs {
    runs: Mutex<HashMap<u64, Arc<Run>>>,
    next: AtomicU64,
    slots: Arc<Semaphore>,
    waiting: Arc<AtomicUsize>,
    files: PathBuf,
}

impl Runs {
    /// No runs yet; at most `at_once` simulate at a time; files go under `files`.
    pub fn new(at_once: usize, files: PathBuf) -> Runs {
        Runs {
            runs: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
            slots: Arc::new(Semaphore::new(at_once.max(1))),
            waiting: Arc::new(AtomicUsize::new(0)),
            files,
        }
    }

    /// The folder every run's files go under.
    pub fn files(&self) -> &std::path::Path {
        &self.files
    }

    /// A random id no run of this server has: another site cannot guess a
    /// run's id to follow or stop it. Below 2^53, so the page's numbers
    /// hold it exactly.
    fn unused_id(&self) -> u64 {
        use rand::RngExt;
        let runs = self.runs.lock().expect("runs lock");
        loop {
            let id = rand::rng().random_range(1..1u64 << 53);
            if !runs.contains_key(&id) {
                return id;
            }
        }
    }

    /// The run with this id.
    pub fn get(&self, id: u64) -> Option<Arc<Run>> {
        self.runs.lock().expect("runs lock").get(&id).cloned()
    }

    /// Queues a run of a loaded scenario (trials and seed already set) and
    /// returns its id at once. `asked` is the command that runs it again
    /// (without `--out`) from a folder of its inputs, which are written
    /// beside its files. Each outcome is shown beside its share in
    /// `baseline`, the final counts of an earlier run.
    pub fn start(
        &self,
        scenario: Scenario,
        precision: Option<f64>,
        asked: (CommandLine, Inputs),
        baseline: Option<Vec<Metric<u64>>>,
    ) -> Result<u64, Busy> {
        let planned = scenario.trials;
        self.start_with(planned, planned, move |run| {
            simulate(run, &scenario, precision, asked, baseline.as_deref())
        })
    }

    /// Queues `work` (a run, or a sweep, solve or sensitivity) behind the
    /// cap on runs at once, fighting at most `budget` battles in all; it
    /// reports through the run's state. Refused when [`MAX_QUEUED`] runs
    /// wait already.
    pub fn start_with(
        &self,
        planned: u64,
        budget: u64,
        work: impl FnOnce(&Run) + Send + 'static,
    ) -> Result<u64, Busy> {
        let waiting = self.waiting.clone();
        waiting
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < MAX_QUEUED).then_some(n + 1)
            })
            .map_err(|waiting| Busy { waiting })?;
        let started = self.next.fetch_add(1, Ordering::SeqCst);
        let id = self.unused_id();
        let snapshot = Snapshot {
            id,
            number: started,
            status: Status::Queued,
            done: 0,
            planned,
            verdict: Vec::new(),
            flags: Vec::new(),
            stand_ins: None,
            metrics: Vec::new(),
            files: Vec::new(),
            note: None,
            stopped_after_ms: None,
        };
        let run = Arc::new(Run {
            scope: Arc::new(Scope::new(budget)),
            state: watch::channel(snapshot).0,
            dir: self.files.join(format!("run-{id}")),
            counts: OnceLock::new(),
            asked_to_stop: OnceLock::new(),
            started,
        });
        {
            let mut runs = self.runs.lock().expect("runs lock");
            forget_old(&mut runs);
            runs.insert(id, run.clone());
        }
        let slots = self.slots.clone();
        tokio::spawn(async move {
            // A run stopped while it waits leaves the queue at once.
            let mut watcher = run.state.subscribe();
            let slot = tokio::select! {
                slot = slots.acquire_owned() => slot.ok(),
                _ = watcher.wait_for(|s| s.status.ended()) => None,
            };
            waiting.fetch_sub(1, Ordering::SeqCst);
            let Some(_slot) = slot else {
                return;
            };
            if run.scope.stopped() {
                run.state.send_modify(|s| run.mark_stopped(s));
                return;
            }
            run.state.send_modify(|s| s.status = Status::Running);
            let worker = run.clone();
            let ended = tokio::task::spawn_blocking(move || {
                worker.scope.enter(|| work(&worker));
                give_back_memory();
            })
            .await;
            if let Err(e) = ended {
                run.state.send_modify(|s| {
                    s.status = Status::Failed;
                    s.note = Some(format!("the run crashed: {e}"));
                });
            }
        });
        Ok(id)
    }
}

/// How a queued piece of work that answers in its reply ended.
pub enum Answered<T> {
    /// Its answer.
    Done(T),
    /// Stopped before the end: by a DELETE of its id, by a shutdown, or
    /// because its client left.
    Stopped,
    /// Failed, saying why.
    Failed(anyhow::Error),
}

impl Runs {
    /// Queues `work` as [`Runs::start_with`] does (the same queue, slots,
    /// cap on battles, Stop and shutdown as a run) and waits for its
    /// answer, for an endpoint that answers in its reply (a usage count).
    /// When the waiting ends before the work does (its client left and
    /// the reply was dropped), the work is stopped.
    pub async fn answer<T: Send + 'static>(
        &self,
        planned: u64,
        work: impl FnOnce(&Run) -> anyhow::Result<T> + Send + 'static,
    ) -> Result<(u64, Answered<T>), Busy> {
        let (sender, answer) = tokio::sync::oneshot::channel();
        let id = self.start_with(planned, planned, move |run| {
            let result = work(run);
            match &result {
                Ok(_) => run.state.send_modify(|s| {
                    s.status = Status::Done;
                    s.done = s.planned;
                }),
                Err(e) => run.fail(format!("{e:#}")),
            }
            // A receiver gone is a client gone; the run is stopped already.
            let _ = sender.send(result);
        })?;
        let Some(run) = self.get(id) else {
            return Ok((id, Answered::Stopped));
        };
        let stop_if_left = StopOnDrop(run.clone());
        let result = answer.await;
        drop(stop_if_left);
        let stopped = run.state.borrow().status == Status::Stopped;
        Ok((
            id,
            match result {
                Ok(Ok(answer)) => Answered::Done(answer),
                Ok(Err(_)) | Err(_) if stopped || run.scope.stopped() => Answered::Stopped,
                Ok(Err(e)) => Answered::Failed(e),
                // The work never ran: stopped while it waited.
                Err(_) => Answered::Stopped,
            },
        ))
    }
}

/// Stops a run that has not ended when dropped: the reply waiting for it
/// was dropped because its client left.
struct StopOnDrop(Arc<Run>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if !self.0.state.borrow().status.ended() {
            self.0.stop();
        }
    }
}

impl Run {
    /// Ends the run in failure, saying why; or, when it was asked to stop
    /// (what cut it short), as stopped.
    pub fn fail(&self, why: String) {
        let stopped = self.scope.stopped();
        self.state.send_modify(|s| {
            if stopped {
                self.mark_stopped(s);
            } else {
                s.status = Status::Failed;
                s.note = Some(why);
            }
        });
    }

    /// Stops the run: a queued one ends at once, a running one within a
    /// piece of battles.
    pub fn stop(&self) {
        self.asked_to_stop.get_or_init(std::time::Instant::now);
        self.scope.stop();
        self.state.send_if_modified(|s| {
            let queued = s.status == Status::Queued;
            if queued {
                self.mark_stopped(s);
            }
            queued
        });
    }

    /// Marks the snapshot stopped, with how long the stop took.
    fn mark_stopped(&self, s: &mut Snapshot) {
        s.status = Status::Stopped;
        s.files.clear();
        s.stopped_after_ms = self
            .asked_to_stop
            .get()
            .map(|at| at.elapsed().as_millis() as u64);
    }
}

/// Returns the pages freed by the work that just ended to the system.
///
/// glibc keeps what a thread frees in that thread's arena; a run's report
/// (chart bitmaps, CSV buffers: several MB) would otherwise stay resident in
/// each arena a new worker thread opens, and the server's memory would climb
/// in steps although it holds nothing more.
fn give_back_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Forgets the oldest ended runs beyond [`KEPT`], files and all.
fn forget_old(runs: &mut HashMap<u64, Arc<Run>>) {
    let mut ended: Vec<(u64, u64)> = runs
        .iter()
        .filter(|(_, run)| run.state.borrow().status.ended())
        .map(|(&id, run)| (run.started, id))
        .collect();
    if ended.len() <= KEPT {
        return;
    }
    ended.sort_unstable();
    for (_, id) in &ended[..ended.len() - KEPT] {
        if let Some(run) = runs.remove(id) {
            // A folder already gone is what we want.
            let _ = std::fs::remove_dir_all(&run.dir);
        }
    }
}

/// Simulates on this (blocking) thread, publishing a snapshot at every
/// checkpoint, then writes the run's files as `warcrunch run` would.
fn simulate(
    run: &Run,
    scenario: &Scenario,
    precision: Option<f64>,
    (line, inputs): (CommandLine, Inputs),
    baseline: Option<&[Metric<u64>]>,
) {
    let command: String = line
        .written_to(
            run.dir.file_name().map(std::path::Path::new),
            &Formats::default(),
        )
        .into();
    // What the report will say of the battle, known before any battle:
    // its stand-in values.
    let info =
        crate::analysis::runner::run_info(scenario, command.clone(), 0, std::time::Duration::ZERO);
    let stand_ins = crate::report::findings::stand_ins_of(&info);
    let plan = Plan {
        threads: 0,
        progress: false,
        shard: crate::engine::Shard::WHOLE,
        precision,
    };
    let mut watch = |metrics: &[Metric<u64>], done: u64| {
        let (verdict, metrics) = view(metrics, done, baseline, &info);
        run.state.send_modify(|s| {
            s.done = done;
            s.verdict = verdict;
            s.stand_ins = stand_ins.clone();
            s.metrics = metrics;
        });
        run.scope.stopped() || crate::engine::INTERRUPTED.load(Ordering::SeqCst)
    };
    let stored = Staging::new(&run.dir, true).and_then(|staging| {
        simulate_and_store(
            scenario,
            Asked {
                command,
                targets: &[],
                exact: None,
                usage: None,
                table_sources: &[],
            },
            &plan,
            staging,
            Formats::default(),
            Some(&mut watch),
        )
    });
    let stored = stored.and_then(|answer| {
        if answer.is_some() {
            inputs.write_into(&run.dir).map_err(|e| {
                anyhow::anyhow!("cannot write the battle's inputs beside its files: {e}")
            })?;
        }
        Ok(answer)
    });
    let answer = match stored {
        Ok(Some(answer)) => answer,
        Ok(None) => return run.state.send_modify(|s| run.mark_stopped(s)),
        Err(e) => return run.fail(format!("{e:#}")),
    };
    let report = &answer.report;
    let metrics = &report.variants[0].metrics;
    let trials = report.info.trials.unwrap_or(0);
    run.state.send_modify(|s| {
        s.done = trials;
        s.verdict = crate::report::findings::verdict(metrics, trials, &report.info);
        s.flags = crate::report::findings::flags(report);
        s.stand_ins = crate::report::findings::stand_ins_of(&report.info);
        s.metrics = shown(&report.info.system, metrics, baseline);
        s.note = report.info.stop_reason.clone();
        s.files = answer.stored.files().to_vec();
        s.files.extend(inputs.names());
        let _ = run.counts.set(metrics.clone());
        s.status = Status::Done;
    });
}

/// What a checkpoint publishes: the verdict in words and every metric's
/// outcomes with their intervals, beside `baseline`'s if given
/// (benches/engine.rs times it).
pub fn view(
    metrics: &[Metric<u64>],
    done: u64,
    baseline: Option<&[Metric<u64>]>,
    info: &crate::report::RunInfo,
) -> (Vec<String>, Vec<Shown>) {
    (
        crate::report::findings::verdict(metrics, done, info),
        shown(&info.system, metrics, baseline),
    )
}

/// The metrics as the page draws them: each outcome seen, with its
/// interval, and beside it the same outcome in `baseline` (0 battles where
/// the baseline never saw it) with the difference's interval, for every
/// metric the baseline has too.
fn shown(system: &str, metrics: &[Metric<u64>], baseline: Option<&[Metric<u64>]>) -> Vec<Shown> {
    let mut shown = shown_one_by_one(system, metrics, baseline);
    judge(&mut shown);
    shown
}

/// Marks the differences from the run before that hold family-wise over
/// every outcome shown (Holm at 5%); the others stay `tied` or `unchanged`.
fn judge(shown: &mut [Shown]) {
    let befores = || {
        shown
            .iter()
            .flat_map(|m| &m.shares)
            .filter_map(|s| s.before.as_ref())
    };
    let p_values: Vec<f64> = befores().map(|b| b.p_value).collect();
    let differs = crate::stats::holm(&p_values, 0.05);
    let mut verdicts = differs.into_iter();
    for before in shown
        .iter_mut()
        .flat_map(|m| &mut m.shares)
        .filter_map(|s| s.before.as_mut())
    {
        if verdicts.next() == Some(true) {
            before.verdict = "differs";
        }
    }
}

/// [`shown`] before the family-wise verdicts.
fn shown_one_by_one(
    system: &str,
    metrics: &[Metric<u64>],
    baseline: Option<&[Metric<u64>]>,
) -> Vec<Shown> {
    metrics
        .iter()
        .map(|m| {
            let total = m.total();
            let earlier = baseline.and_then(|b| {
                b.iter()
                    .find(|e| e.subject == m.subject && e.name == m.name)
            });
            let shares = m
                .weights
                .iter()
                .enumerate()
                .filter(|(_, w)| **w > 0)
                .map(|(i, &w)| {
                    let (ci_low, ci_high) = wilson(w, total, z95());
                    let value = m.label(i);
                    let before = earlier.map(|e| {
                        let n = e.total();
                        let x = (0..e.weights.len())
                            .find(|&j| e.label(j) == value)
                            .map_or(0, |j| e.weights[j]);
                        let d = unpaired_difference(x, n, w, total);
                        let unchanged = x == w && n == total;
                        Before {
                            probability: x as f64 / n.max(1) as f64,
                            shown: crate::stats::format::percent(x as f64 / n.max(1) as f64),
                            difference: d.difference,
                            low: d.low,
                            high: d.high,
                            change: crate::stats::format::change(
                                100.0 * d.difference,
                                (100.0 * d.low, 100.0 * d.high),
                                " pt",
                            ),
                            verdict: if unchanged { "unchanged" } else { "tied" },
                            p_value: two_proportion(x, n, w, total).1,
                        }
                    });
                    let probability = w as f64 / total.max(1) as f64;
                    let [p, lo, hi] =
                        crate::stats::format::percent_interval(probability, ci_low, ci_high);
                    Share {
                        value,
                        probability,
                        ci_low,
                        ci_high,
                        shown: format!("{p} ({lo}–{hi})"),
                        before,
                    }
                })
                .collect();
            Shown {
                subject: m.subject.clone(),
                metric: m.name.clone(),
                title: crate::report::kit::words::title(system, &m.subject, &m.name),
                shares,
            }
        })
        .collect()
}

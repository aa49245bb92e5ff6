//! What `run`, `sweep`, `compare` and `merge` share: the plan of a run,
//! simulating a scenario on the engine, its provenance record, where the
//! files go, and writing a finished report (or a shard's part) with its
//! console summary.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;

use crate::engine::paired::{Event, Lockstep, MetricsOf};
use crate::engine::{self, CHUNK_SIZE, RunSettings, Shard, System};
use crate::questions::target::{Target, YES_NO, add_outcomes};
use crate::questions::usage::UsageTally;
use crate::report::exporters::partial::Partial;
use crate::report::kit::output_dir::Staging;
use crate::report::kit::words;
use crate::report::writers::console::{say, summary};
use crate::report::writers::run_exporters;
use crate::report::{PairedMean, ReportKind, RunInfo, RunReport, SharedCount, VariantResult};
use crate::scenario::Scenario;
use crate::stats::format::{thousands, trim_decimal};
use crate::stats::paired_mean::PairedSums;
use crate::stats::{Metric, widest_half_width};
use crate::systems::{BattleSystem, Visit};
use crate::tables::cells::CellReads;

/// How to simulate a scenario.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Worker threads (0: every core).
    pub threads: usize,
    /// Show a progress bar on long runs.
    pub progress: bool,
    /// The part of the run to simulate.
    pub shard: Shard,
    /// Stop once every probability's 95% half-width is at most this.
    pub precision: Option<f64>,
}

impl Plan {
    /// The engine's settings for scenario `s` under this plan.
    pub fn settings(&self, s: &Scenario) -> RunSettings {
        RunSettings {
            seed: s.seed,
            trials: s.trials,
            threads: self.threads,
            progress: self.progress,
            shard: self.shard,
        }
    }
}

/// What simulating a scenario produced.
#[derive(Debug)]
pub struct Simulated {
    /// Counts of every metric.
    pub metrics: Vec<Metric<u64>>,
    /// Battles simulated.
    pub trials: u64,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// Why a `--precision` run stopped where it did.
    pub stop_reason: Option<String>,
}

/// Simulates a scenario (up to `s.trials` battles, or its shard of them).
pub fn simulate(s: &Scenario, plan: &Plan) -> Result<Simulated> {
    simulate_watched(s, plan, None, &[])?.ok_or_else(|| anyhow::anyhow!("an unwatched run stopped"))
}

/// Asked at each checkpoint of a watched run ([`engine::next_checkpoint`]
/// for a precision run, else [`engine::watched_checkpoint`]) with the counts
/// so far and the battles done; `true` stops the
/// run there.
pub type Watch<'a> = dyn FnMut(&[Metric<u64>], u64) -> bool + 'a;

/// Simulates like [`simulate`], showing `watch` the counts at every
/// checkpoint (the workbench streams them). `None` when `watch` stopped the
/// run. A run `watch` lets finish counts exactly what [`simulate`] counts:
/// chunks are the same whatever the batches.
pub fn simulate_watched(
    s: &Scenario,
    plan: &Plan,
    watch: Option<&mut Watch>,
    targets: &[Target],
) -> Result<Option<Simulated>> {
    let settings = plan.settings(s);
    s.battle.visit(SimulateOne {
        settings,
        plan,
        watch,
        targets,
    })
}

/// [`simulate_watched`] on the battle's own system.
struct SimulateOne<'p, 'w, 'f> {
    settings: RunSettings,
    plan: &'p Plan,
    watch: Option<&'w mut Watch<'f>>,
    targets: &'p [Target],
}

impl Visit<'_> for SimulateOne<'_, '_, '_> {
    type Output = Result<Option<Simulated>>;

    fn visit<S: BattleSystem>(self, system: &S) -> Self::Output {
        simulate_system(system, self.settings, self.plan, self.watch, self.targets)
    }
}

fn simulate_system<S: BattleSystem>(
    system: &S,
    settings: RunSettings,
    plan: &Plan,
    watch: Option<&mut Watch>,
    targets: &[Target],
) -> Result<Option<Simulated>> {
    // Every metric, with each target's outcome: a precision run holds
    // their intervals to the precision too.
    let metrics = |tally: &S::Tally| {
        let mut metrics = system.metrics_of(tally);
        add_outcomes(&mut metrics, targets).expect("targets checked before the run");
        metrics
    };
    let precise_enough = |m: &[Metric<u64>], target: f64| {
        widest_half_width(m).is_none_or(|w| w.half_width <= target)
    };
    let mut stopped_by_watch = false;
    let output = match (plan.precision, watch) {
        (Some(target), None) => engine::run_until(system, settings, |tally, _| {
            precise_enough(&metrics(tally), target)
        })?,
        (None, None) => engine::run(system, settings)?,
        // A precision run stops at the fixed checkpoints `warcrunch run
        // --precision` uses; a run of fixed length may show fewer.
        (Some(target), Some(watch)) => engine::run_until(system, settings, |tally, done| {
            let counts = metrics(tally);
            if watch(&counts, done) {
                stopped_by_watch = true;
                return true;
            }
            precise_enough(&counts, target)
        })?,
        (None, Some(watch)) => engine::run_watched(system, settings, |tally, done| {
            stopped_by_watch = watch(&metrics(tally), done);
            stopped_by_watch
        })?,
    };
    if stopped_by_watch {
        return Ok(None);
    }
    let metrics = metrics(&output.tally);
    let stop_reason = plan.precision.map(|target| {
        // In percentage points, as the page asks for them (`±0.5 pt`); the
        // widest with two decimals, or more where two would read as the
        // precision asked for (`±0.69 pt`, `±0.5004 pt`).
        let asked = trim_decimal(100.0 * target, 4);
        let widest = |x: f64| {
            let shown = (2..=4)
                .map(|d| trim_decimal(100.0 * x, d))
                .find(|s| *s != asked)
                .unwrap_or_else(|| asked.clone());
            format!("±{shown} pt")
        };
        let asked = format!("±{asked} pt");
        let (width, at) = match widest_half_width(&metrics) {
            Some(w) => {
                let m = &metrics[w.metric];
                let at = words::target(
                    S::NAME,
                    &format!("{}/{}={}", m.subject, m.name, m.label(w.bin)),
                );
                (w.half_width, at)
            }
            None => (0.0, "no value".to_owned()),
        };
        let trials = thousands(output.trials);
        if width <= target {
            format!(
                "stopped after {trials} battles: every probability's 95% interval is within {asked} (the widest is {}, for {at})",
                widest(width)
            )
        } else {
            format!(
                "stopped at the most battles asked ({trials}) before every probability's 95% interval was within {asked}: the widest is {}, for {at}",
                widest(width)
            )
        }
    });
    Ok(Some(Simulated {
        metrics,
        trials: output.trials,
        threads: output.threads,
        elapsed: output.elapsed,
        stop_reason,
    }))
}

/// When a paired run may stop: asked with each variant's event counts and
/// the battles so far.
pub type StopRule<'a> = dyn Fn(&[Vec<u64>], u64) -> bool + 'a;

/// Variants simulated on common random numbers ([`crate::engine::paired`]).
#[derive(Debug)]
pub struct SimulatedPairs {
    /// Per variant, counts of every metric.
    pub metrics: Vec<Vec<Metric<u64>>>,
    /// Per variant and event: battles in which the base variant had it too.
    pub both: Vec<Vec<u64>>,
    /// Per variant and paired numeric outcome: the sums of its
    /// battle-by-battle differences from the base.
    pub mean_sums: Vec<Vec<PairedSums>>,
    /// Battles simulated per variant.
    pub trials: u64,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl SimulatedPairs {
    /// Battles of variant `v` in which `event` happened.
    pub fn event_count(&self, v: usize, event: &Event) -> u64 {
        event
            .bins
            .iter()
            .map(|&b| self.metrics[v][event.metric].weights[b])
            .sum()
    }
}

/// The metrics a scenario reports, with every count zero: where events
/// find their metric and bins.
pub fn metric_layout(s: &Scenario) -> Vec<Metric<u64>> {
    s.battle.metric_layout()
}

/// What a paired run measures of each variant against the base: per
/// variant, its events (the battles shared with the base are counted) and
/// its numeric metrics whose means are paired (the battle-by-battle
/// differences are summed); the same number of each for every variant.
#[derive(Debug, Clone, Default)]
pub struct PairedAsk {
    /// Per variant, events.
    pub events: Vec<Vec<Event>>,
    /// Per variant, indices of numeric metrics.
    pub means: Vec<Vec<usize>>,
}

impl PairedAsk {
    /// Events only, no paired means.
    pub fn events(events: Vec<Vec<Event>>) -> PairedAsk {
        let means = vec![Vec::new(); events.len()];
        PairedAsk { events, means }
    }

    /// One target asked of each of `scenarios`: its event, or for a mean
    /// its numeric metric, found among each scenario's own metrics.
    pub fn of_target(target: &Target, scenarios: &[&Scenario]) -> Result<PairedAsk> {
        let metrics = scenarios.iter().map(|s| s.battle.metric_layout());
        if target.is_mean() {
            let means = metrics
                .map(|m| target.mean_metric(&m).map(|i| vec![i]))
                .collect::<Result<Vec<Vec<usize>>>>()?;
            let events = vec![Vec::new(); means.len()];
            return Ok(PairedAsk { events, means });
        }
        let events = metrics
            .map(|m| target.event(&m).map(|e| vec![e]))
            .collect::<Result<Vec<Vec<Event>>>>()?;
        Ok(PairedAsk::events(events))
    }
}

/// Simulates variants of one system battle by battle on the same streams
/// (the first is the base every other one is paired with), counting each
/// variant's metrics and what `ask` asks. With `stop`, the run ends at the
/// first checkpoint where `stop(count of each variant's events, battles)`
/// says so.
pub fn simulate_paired(
    scenarios: &[&Scenario],
    ask: PairedAsk,
    plan: &Plan,
    stop: Option<&StopRule<'_>>,
) -> Result<SimulatedPairs> {
    let base = scenarios.first().expect("at least one variant");
    let settings = plan.settings(base);
    base.battle.visit(Paired {
        scenarios,
        ask,
        settings,
        stop,
    })
}

/// [`simulate_paired`] on the base battle's own system; every other
/// variant must be of that system too.
struct Paired<'v, 's, 'r> {
    scenarios: &'v [&'s Scenario],
    ask: PairedAsk,
    settings: RunSettings,
    stop: Option<&'r StopRule<'r>>,
}

impl Visit<'_> for Paired<'_, '_, '_> {
    type Output = Result<SimulatedPairs>;

    fn visit<S: BattleSystem>(self, base: &S) -> Self::Output {
        let systems = self
            .scenarios
            .iter()
            .map(|s| {
                s.battle.downcast::<S>().ok_or_else(|| {
                    anyhow::anyhow!(
                        "variants compared battle by battle must be of one system; got {} and {}",
                        S::NAME,
                        s.battle.system()
                    )
                })
            })
            .collect::<Result<Vec<&S>>>()?;
        debug_assert!(std::ptr::eq(systems[0], base));
        let sharing = S::sharing_laws(&systems);
        let systems = match &sharing {
            Some(copies) => copies.iter().collect(),
            None => systems,
        };
        let metrics = |system: &S, tally: &S::Tally| system.metrics_of(tally);
        run_lockstep(systems, &metrics, self.ask, self.settings, self.stop)
    }
}

fn run_lockstep<S: System>(
    systems: Vec<&S>,
    metrics: &MetricsOf<'_, S>,
    ask: PairedAsk,
    settings: RunSettings,
    stop: Option<&StopRule<'_>>,
) -> Result<SimulatedPairs> {
    crate::engine::stream::check_battles(settings.trials)?;
    let variants = systems.len();
    let events = ask.events.clone();
    let lockstep = Lockstep::new(systems, metrics, ask.events, ask.means);
    let output = match stop {
        Some(stop) => engine::run_until(&lockstep, settings, |tally, trials| {
            let counts: Vec<Vec<u64>> = (0..variants)
                .map(|v| {
                    (0..events[v].len())
                        .map(|e| tally.event_count(v, e))
                        .collect()
                })
                .collect();
            stop(&counts, trials)
        })?,
        None => engine::run(&lockstep, settings)?,
    };
    let paired = output.tally.finish();
    Ok(SimulatedPairs {
        metrics: paired.metrics,
        both: paired.both,
        mean_sums: paired.mean_sums,
        trials: output.trials,
        threads: output.threads,
        elapsed: output.elapsed,
    })
}

/// Variants of one system fought on the same battle streams: each one's
/// counts, and the battles it shared with the first in each category of
/// every categorical metric the two have in common (what pairs them in a
/// comparison).
pub fn simulate_variants(
    named: &[(String, &Scenario)],
    targets: &[Target],
    plan: &Plan,
) -> Result<SimulatedVariants> {
    let first = named.first().expect("at least one variant").1;
    if let Some((name, _)) = named
        .iter()
        .find(|(_, s)| (s.seed, s.trials) != (first.seed, first.trials))
    {
        anyhow::bail!(
            "variant {name} has its own seed or trials: variants fought on the same streams share both"
        );
    }
    let layouts: Vec<Vec<Metric<u64>>> = named.iter().map(|(_, s)| metric_layout(s)).collect();
    // Every category of the first variant's categorical metrics, found by
    // name in each variant (no bins where a variant lacks it).
    let categories: Vec<(usize, usize)> = layouts[0]
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.is_numeric())
        .flat_map(|(i, m)| (0..m.weights.len()).map(move |b| (i, b)))
        .collect();
    let mut events: Vec<Vec<Event>> = layouts
        .iter()
        .map(|layout| {
            categories
                .iter()
                .map(|&(i, b)| {
                    let base = &layouts[0][i];
                    let found = layout
                        .iter()
                        .position(|m| m.subject == base.subject && m.name == base.name);
                    let bin = found.and_then(|f| {
                        (0..layout[f].weights.len()).find(|&c| layout[f].label(c) == base.label(b))
                    });
                    Event {
                        metric: found.unwrap_or(0),
                        bins: bin.into_iter().collect(),
                    }
                })
                .collect()
        })
        .collect();
    // Each target's `no` and `yes` in every variant, checked before any battle.
    for ((layout, events), (name, _)) in layouts.iter().zip(&mut events).zip(named) {
        for t in targets.iter().filter(|t| t.is_mean()) {
            t.mean_metric(layout)
                .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        }
        for t in targets.iter().filter(|t| !t.is_mean()) {
            let yes = t
                .event(layout)
                .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
            let no = Event {
                metric: yes.metric,
                bins: (0..layout[yes.metric].weights.len())
                    .filter(|b| !yes.bins.contains(b))
                    .collect(),
            };
            events.extend([no, yes]);
        }
    }
    // Every numeric metric of the first variant that every variant has:
    // its mean is compared on the battles' differences.
    let numeric: Vec<(String, String)> = layouts[0]
        .iter()
        .filter(|m| m.is_numeric())
        .map(|m| (m.subject.clone(), m.name.clone()))
        .filter(|(subject, name)| {
            layouts.iter().all(|layout| {
                layout
                    .iter()
                    .any(|m| &m.subject == subject && &m.name == name && m.is_numeric())
            })
        })
        .collect();
    let means: Vec<Vec<usize>> = layouts
        .iter()
        .map(|layout| {
            numeric
                .iter()
                .map(|(subject, name)| {
                    layout
                        .iter()
                        .position(|m| &m.subject == subject && &m.name == name)
                        .expect("every variant has it")
                })
                .collect()
        })
        .collect();
    let asked = targets
        .iter()
        .filter(|t| !t.is_mean())
        .flat_map(|t| YES_NO.map(|value| (t.subject.clone(), t.outcome_name(), value.to_owned())));
    let shared_names: Vec<(String, String, String)> = categories
        .iter()
        .map(|&(i, b)| {
            let m = &layouts[0][i];
            (m.subject.clone(), m.name.clone(), m.label(b))
        })
        .chain(asked)
        .collect();
    // Every variant's metrics, labels and all, are dropped before the
    // battles: the run holds each variant's counts, not its layout twice.
    drop(layouts);
    let scenarios: Vec<&Scenario> = named.iter().map(|(_, s)| *s).collect();
    let ask = PairedAsk {
        events: events.clone(),
        means,
    };
    let done = simulate_paired(&scenarios, ask, plan, None)?;
    let mut results = Vec::new();
    for (v, ((name, _), mut metrics)) in named.iter().zip(done.metrics).enumerate() {
        add_outcomes(&mut metrics, targets)?;
        let shared = if v == 0 {
            Vec::new()
        } else {
            // A category the variant lacks has no pairs; a target's
            // side that no value reaches has none in common, truly.
            shared_names
                .iter()
                .zip(&events[v])
                .zip(&done.both[v])
                .enumerate()
                .filter(|(k, ((_, e), _))| *k >= categories.len() || !e.bins.is_empty())
                .map(
                    |(_, (((subject, metric, value), _), &battles))| SharedCount {
                        subject: subject.clone(),
                        metric: metric.clone(),
                        value: value.clone(),
                        battles,
                    },
                )
                .collect()
        };
        let paired_means = if v == 0 {
            Vec::new()
        } else {
            numeric
                .iter()
                .zip(&done.mean_sums[v])
                .map(|((subject, metric), sums)| PairedMean {
                    subject: subject.clone(),
                    metric: metric.clone(),
                    sums: *sums,
                })
                .collect()
        };
        results.push(VariantResult {
            variant: name.clone(),
            metrics,
            exact: None,
            shared,
            paired_means,
        });
    }
    Ok(SimulatedVariants {
        variants: results,
        threads: done.threads,
        elapsed: done.elapsed,
    })
}

/// A system's battles fought by the book for their table reads: what
/// [`crate::engine::run`] fights when usage is asked, on the run's own
/// seed, battle count and chunks (so the counts do not depend on threads).
pub struct ByTheBook<'a, S>(pub &'a S);

impl<S: BattleSystem> System for ByTheBook<'_, S> {
    type Outcome = CellReads;
    type Tally = UsageTally;

    fn new_tally(&self) -> UsageTally {
        UsageTally::default()
    }

    fn simulate(&self, rng: &mut crate::engine::stream::BattleStream) -> CellReads {
        let mut reads = CellReads::counting();
        self.0.read_cells(rng, &mut reads);
        reads
    }
}

/// Every table cell the scenario's battles read, counted over its battles
/// fought by the book (the same seed, battles and chunks as its run).
pub fn count_usage(s: &Scenario, plan: &Plan) -> Result<UsageTally> {
    s.battle.visit(CountUsage(plan.settings(s)))
}

/// [`count_usage`] on the battle's own system.
struct CountUsage(RunSettings);

impl Visit<'_> for CountUsage {
    type Output = Result<UsageTally>;

    fn visit<S: BattleSystem>(self, system: &S) -> Self::Output {
        Ok(engine::run(&ByTheBook(system), self.0)?.tally)
    }
}

/// What [`simulate_variants`] produced.
#[derive(Debug)]
pub struct SimulatedVariants {
    /// Each variant's results, paired with the first.
    pub variants: Vec<VariantResult>,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// The exact distribution of every metric, where the system's exact method
/// applies to the scenario.
pub fn exact_metrics(s: &Scenario) -> Result<Vec<Metric<f64>>> {
    s.battle
        .exact()
        .map_err(|e| anyhow::anyhow!("{}: --exact: {e}", s.path.display()))
}

/// The provenance record of a run of `s`.
pub fn run_info(s: &Scenario, command: String, threads: usize, elapsed: Duration) -> RunInfo {
    RunInfo {
        tool_version: env!("CARGO_PKG_VERSION").to_owned(),
        tool_commit: crate::report::TOOL_COMMIT.to_owned(),
        command,
        min_effect: None,
        scenario_path: Some(s.path.display().to_string()),
        scenario_sha256: Some(s.sha256.clone()),
        scenario_text: Some(s.text.clone()),
        name: s.name.clone(),
        system: s.battle.system().to_owned(),
        seed: Some(s.seed),
        trials: Some(s.trials),
        chunk_size: Some(CHUNK_SIZE),
        stream_layout: Some(engine::STREAM_LAYOUT),
        threads: Some(threads),
        elapsed_seconds: Some(elapsed.as_secs_f64()),
        shards: None,
        stop_reason: None,
        tables: s.battle.tables().to_vec(),
        stand_in_rules: s.battle.stand_in_rules(),
        rests_on: s.battle.rests_on(),
        variants: Vec::new(),
        baseline: None,
        max_risk_of_down: None,
        swept_heroes: Vec::new(),
        held_by_readings: Vec::new(),
        parameters: Vec::new(),
        scenarios: Vec::new(),
    }
}

/// Runs every exporter into a staging folder and moves it into place.
pub fn write_report(report: &RunReport, staging: Staging) -> Result<(PathBuf, Vec<String>)> {
    let mut written = Vec::new();
    for exporter in run_exporters() {
        written.extend(exporter.write(report, staging.path())?);
    }
    Ok((staging.commit()?, written))
}

/// Writes a finished report (or a shard's partial result) and prints its summary.
pub fn finish(kind: ReportKind, report: &RunReport, staging: Staging, shard: Shard) -> Result<()> {
    let stored = store(kind, report, staging, shard)?;
    say(&stored.summary(kind, report))
}

/// The files a report wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// The folder, moved into place.
    pub folder: PathBuf,
    /// The files in it.
    pub files: Vec<String>,
}

/// What [`store`] wrote.
#[derive(Debug, Clone)]
pub enum Stored {
    /// A whole run's report: its folder and files.
    Report(Written),
    /// A shard's part, for `warcrunch merge`.
    Part {
        /// The part's folder.
        folder: PathBuf,
        /// Which shard.
        shard: Shard,
    },
}

/// Writes a finished report, or a shard's partial result, into `staging`
/// and moves it into place.
pub fn store(
    kind: ReportKind,
    report: &RunReport,
    staging: Staging,
    shard: Shard,
) -> Result<Stored> {
    if shard == Shard::WHOLE {
        let (folder, files) = write_report(report, staging)?;
        return Ok(Stored::Report(Written { folder, files }));
    }
    Partial::new(kind, shard, report).write(staging.path())?;
    Ok(Stored::Part {
        folder: staging.commit()?,
        shard,
    })
}

impl Stored {
    /// The files of a whole run's report (a shard's part has none to show).
    pub fn files(&self) -> &[String] {
        match self {
            Stored::Report(written) => &written.files,
            Stored::Part { .. } => &[],
        }
    }

    /// The console lines: the report's summary and the files, or the
    /// shard's count and what to do next.
    pub fn summary(&self, kind: ReportKind, report: &RunReport) -> String {
        match self {
            Stored::Report(written) => format!(
                "{}{}",
                summary(kind, report),
                crate::report::writers::console::wrote(&written.folder, &written.files)
            ),
            Stored::Part { folder, shard } => {
                let battles: u64 = report
                    .variants
                    .first()
                    .and_then(|v| v.metrics.first())
                    .map_or(0, Metric::total);
                format!(
                    "{}: shard {}/{}: {} of {} battles{}, {:.2} s\nWrote {}; when every shard is done: warcrunch merge PARTS... --out DIR\n",
                    report.info.name,
                    shard.index,
                    shard.count,
                    thousands(battles),
                    thousands(report.info.trials.unwrap_or(0)),
                    if report.variants.len() > 1 {
                        " per variant"
                    } else {
                        ""
                    },
                    report.info.elapsed_seconds.unwrap_or(0.0),
                    folder.display()
                )
            }
        }
    }
}

/// Says what an interrupted simulation left behind: nothing.
pub fn nothing_written(e: anyhow::Error) -> anyhow::Error {
    if e.is::<engine::Interrupted>() {
        anyhow::anyhow!("{e:#}; nothing was written and earlier results are untouched")
    } else {
        e
    }
}

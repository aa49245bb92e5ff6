//! A solve: the value of one setting at which a target's probability
//! reaches a threshold, found by bisection with every probe on the same
//! battle streams and decided only beyond its interval.

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use toml::Value;

use super::Destination;
use std::path::Path;

use crate::analysis::runner::{
    PairedAsk, Plan, Written, exact_metrics, metric_layout, nothing_written, run_info,
    simulate_paired,
};
use crate::engine::paired::Event;
use crate::questions::solve::{DEFAULT_MAX_TRIALS, Decision, Domain, Goal, Point, Probe, search};
use crate::questions::target::{Balance, Quantity, Target, check_probability};
use crate::report::kit::command_line::CommandLine;
use crate::report::kit::folder_names::question_out_dir;
use crate::report::kit::output_dir::Staging;
use crate::report::kit::words;
use crate::report::writers::solve::{SolveReport, solve_exporters};
use crate::scenario::{Edit, Resolved, Scenario};
use crate::stats::format::thousands;
use crate::stats::{Metric, MetricRole, Values, summarize, wilson, z95};

/// A solve asked: the setting and its range, the event and the goal.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolveRequest {
    /// The setting and its range: `PATH=LO..HI`.
    pub vary: String,
    /// The event: `SUBJECT/METRIC=VALUE[|VALUE...]` (or a threshold).
    #[serde(default)]
    pub target: Option<String>,
    /// What the probability should be (absent with `balance`).
    #[serde(default)]
    pub goal: Option<Goal>,
    /// Instead of a target and a goal: the side (or a war-cards `battle`)
    /// whose battles won should equal those lost.
    #[serde(default)]
    pub balance: Option<String>,
    /// Exact probabilities for every probe, where the exact method applies.
    #[serde(default)]
    pub exact: bool,
    /// Also stop a probe once its 95% interval is at most ± this wide.
    #[serde(default)]
    pub precision: Option<f64>,
    /// The most battles one probe may take (1,000,000 when absent).
    #[serde(default)]
    pub max_trials: Option<u64>,
    /// For a real setting: stop once the bracket is this narrow.
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// Seed of the streams (the scenario's `seed` when absent).
    #[serde(default)]
    pub seed: Option<u64>,
}

impl SolveRequest {
    /// The most battles one probe may take.
    pub fn max_trials(&self) -> u64 {
        self.max_trials.unwrap_or(DEFAULT_MAX_TRIALS)
    }
}

/// What a solve found and wrote.
#[derive(Debug)]
pub struct SolveAnswer {
    /// The probes, the answer and its provenance.
    pub report: SolveReport,
    /// Battles simulated in all (0 for an exact solve).
    pub battles: u64,
    /// Where it was written.
    pub written: Written,
}

/// One probe, as it is decided: its number (from 1), the setting's path,
/// the range searched and the probe.
pub type ProbeSeen<'a> = dyn FnMut(usize, &str, Domain, &Probe) -> Result<()> + 'a;

/// Validates everything, searches the scenario (showing `seen` each probe
/// as it is decided) and writes the report.
pub fn solve(
    resolved: &Resolved,
    request: &SolveRequest,
    plan: &Plan,
    to: &Destination,
    seen: &mut ProbeSeen,
) -> Result<SolveAnswer> {
    let (question, goal) = Question::asked(request)?;
    if let Some(h) = request.precision {
        match question.quantity() {
            Quantity::Probability => crate::tables::validate::check_precision(h)
                .map_err(|e| anyhow::anyhow!("--precision = {e}"))?,
            Quantity::Mean if h.is_finite() && h > 0.0 => {}
            Quantity::Mean => bail!(
                "--precision = {h} is out of range; allowed: for a mean, a half-width above 0 in the outcome's own units, e.g. 0.05"
            ),
        }
    }
    let (loader, domain, first) = prepare(resolved, request, &question)?;
    let plan = Plan {
        progress: false,
        ..*plan
    };
    let threshold = goal.threshold();
    let out = to.out.clone().unwrap_or_else(|| {
        let varied = request
            .vary
            .split_once('=')
            .map_or(&*request.vary, |(path, _)| path);
        question_out_dir(
            resolved.path(),
            "solve",
            &[varied.to_owned(), question.name()],
        )
    });
    let staging = Staging::new(&out, to.force)?;
    let setting = loader.path.join(".");
    let started = std::time::Instant::now();
    let mut threads = 1;
    let mut count = 0;
    let probe = |v: f64| -> Result<Probe> {
        let s = loader.load(v)?;
        let probe = if request.exact {
            exact_probe(&question, &s, v, threshold)?
        } else {
            let probing = Probing {
                threshold,
                plan: &plan,
                precision: request.precision,
            };
            let (probe, used) = sampled_probe(&question, (&s, v), &probing)?;
            threads = used;
            probe
        };
        count += 1;
        seen(count, &setting, domain, &probe)?;
        Ok(probe)
    };
    // The answer's sentences name the setting and the event in words.
    let event = question.text(first.battle.system(), &metric_layout(&first))?;
    let quantity = question.quantity();
    let setting_words = words::setting(&setting);
    let (probes, solution) = search(domain, (goal, quantity), (&setting_words, &event), probe)?;
    let battles: u64 = probes.iter().filter_map(|p| p.trials).sum();
    let mut info = run_info(
        &first,
        reproduce_command(resolved, request, (&out, to)),
        threads,
        started.elapsed(),
    );
    info.trials = (!request.exact).then_some(battles);
    if request.exact {
        info.seed = None;
        info.chunk_size = None;
        info.stream_layout = None;
    }
    info.scenario_sha256 = Some(crate::tables::sha256_hex(resolved.text().as_bytes()));
    let stand_ins = {
        let layout = metric_layout(&first);
        let (subject, metric) = question.outcome(&layout);
        info.stand_in_tables("", &subject, &metric)
    };
    let report = SolveReport {
        info,
        target: event,
        stand_ins,
        quantity,
        goal,
        setting,
        domain,
        probes,
        solution,
        formats: to.formats,
    };
    let mut files = Vec::new();
    for exporter in solve_exporters() {
        files.extend(exporter.write(&report, staging.path())?);
    }
    let folder = staging.commit()?;
    Ok(SolveAnswer {
        report,
        battles,
        written: Written { folder, files },
    })
}

/// What each probe measures.
#[derive(Debug, Clone)]
enum Question {
    /// A target's probability, or its mean.
    Reach(Target),
    /// A side's share of the battles it won or lost.
    Balance(Balance),
}

impl Question {
    /// The subject and metric whose outcome it measures, in `layout`.
    fn outcome(&self, layout: &[Metric<u64>]) -> (String, String) {
        match self {
            Question::Reach(t) => (t.subject.clone(), t.metric.clone()),
            Question::Balance(b) => {
                let won = layout.iter().find(|m| {
                    m.subject == b.subject
                        && matches!(
                            m.role,
                            MetricRole::Victory { .. } | MetricRole::Winner { .. }
                        )
                });
                (
                    b.subject.clone(),
                    won.map_or_else(String::new, |m| m.name.clone()),
                )
            }
        }
    }

    /// The question a request asks, and the goal of its probability.
    fn asked(request: &SolveRequest) -> Result<(Question, Goal)> {
        match (&request.balance, &request.target, request.goal) {
            (Some(subject), None, None) => Ok((
                Question::Balance(Balance {
                    subject: subject.trim().to_owned(),
                }),
                Goal::Equals(0.5),
            )),
            (Some(_), _, _) => bail!(
                "--balance asks where battles won equal battles lost; it takes no --target and no --at-least, --at-most or --equals"
            ),
            (None, Some(target), Some(goal)) => {
                let target = Target::parse(target)?;
                let check = |option: &str, x: f64| {
                    if !target.is_mean() {
                        check_probability(option, x)
                    } else if x.is_finite() {
                        Ok(x)
                    } else {
                        bail!(
                            "{option} = {x} is out of range; allowed: a number, the mean to reach"
                        )
                    }
                };
                let goal = match goal {
                    Goal::AtLeast(p) => Goal::AtLeast(check("--at-least", p)?),
                    Goal::AtMost(p) => Goal::AtMost(check("--at-most", p)?),
                    Goal::Equals(p) => Goal::Equals(check("--equals", p)?),
                };
                Ok((Question::Reach(target), goal))
            }
            (None, None, _) => bail!(
                "name what to solve for: --target EVENT with --at-least, --at-most or --equals, or --balance SIDE"
            ),
            (None, Some(_), None) => {
                bail!("name one goal: --at-least P, --at-most P or --equals P")
            }
        }
    }

    /// The question in a folder name: the target as written, or `balance.SIDE`.
    fn name(&self) -> String {
        match self {
            Question::Reach(t) => t.text(),
            Question::Balance(b) => format!("balance.{}", b.subject),
        }
    }

    /// Whether a probe measures a probability or a mean.
    fn quantity(&self) -> Quantity {
        match self {
            Question::Reach(t) => t.quantity(),
            Question::Balance(_) => Quantity::Probability,
        }
    }

    /// What is measured, in words, as the answer's sentences name it:
    /// `P(A: victory = won)`, `the mean of A: Reputation gained`, in
    /// `system`'s words.
    fn text<W: Copy>(&self, system: &str, metrics: &[Metric<W>]) -> Result<String> {
        let inner = match self {
            Question::Reach(t) => words::target(system, &t.text()),
            Question::Balance(b) => b.events(metrics)?.text,
        };
        Ok(self.quantity().of_target(&inner))
    }

    /// What a probe counts: the event measured and the battles it is a
    /// share of (`None`: every battle); or, for a mean, the metric.
    fn counted<W: Copy>(&self, metrics: &[Metric<W>]) -> Result<Counted> {
        Ok(match self {
            Question::Reach(t) if t.is_mean() => Counted::Mean(t.mean_metric(metrics)?),
            Question::Reach(t) => Counted::Share(t.event(metrics)?, None),
            Question::Balance(b) => {
                let e = b.events(metrics)?;
                Counted::Share(e.won, Some(e.decided))
            }
        })
    }

    /// The probability or mean in exact distributions.
    fn exact(&self, metrics: &[Metric<f64>]) -> Result<f64> {
        match self {
            Question::Reach(t) => t.exact_estimate(metrics),
            Question::Balance(b) => b.events(metrics)?.exact_share(metrics).ok_or_else(|| {
                anyhow::anyhow!("--balance {}: no battle is won or lost", b.subject)
            }),
        }
    }
}

/// What a probe counts ([`Question::counted`]).
enum Counted {
    /// An event's battles, as a share of every battle (`None`) or of
    /// another event's.
    Share(Event, Option<Event>),
    /// A numeric metric (its index), whose mean is measured.
    Mean(usize),
}

/// Loads the scenario with the varied setting at one value.
struct Loader<'a> {
    resolved: &'a Resolved,
    request: &'a SolveRequest,
    path: Vec<String>,
    real: bool,
}

impl Loader<'_> {
    fn value(&self, v: f64) -> Value {
        if self.real {
            Value::Float(v)
        } else {
            Value::Integer(v as i64)
        }
    }

    fn load(&self, v: f64) -> Result<Scenario> {
        let value = self.value(v);
        let option = format!("--vary {} (value {value})", self.request.vary);
        let edit = Edit::set(option, self.path.clone(), value);
        let mut s = self.resolved.edited(vec![edit])?;
        s.override_settings(Some(self.request.max_trials()), self.request.seed)?;
        Ok(s)
    }
}

/// Whether the setting takes reals: a whole-number setting refuses any
/// TOML float, even `1.0`; a real one takes its lower end written as one.
/// The varied setting's value as the scenario (or the table it reads)
/// writes it, if the path names one.
fn written_value(loader: &Loader) -> Option<Value> {
    let resolved = loader.resolved;
    let doc = resolved.document().ok()?;
    match loader.path.as_slice() {
        [tables, name, cell @ ..] if tables == "tables" && !cell.is_empty() => {
            let table =
                crate::tables::as_read(&doc, resolved.files(), &resolved.tables, name).ok()?;
            crate::tables::toml_path::find(&table, cell).ok().cloned()
        }
        path => crate::tables::toml_path::find(&doc, path).ok().cloned(),
    }
}

fn takes_reals(loader: &Loader, at: f64) -> bool {
    let edit = Edit::set(String::new(), loader.path.clone(), Value::Float(at));
    loader.resolved.edited(vec![edit]).is_ok()
}

/// The loader of the varied scenario, the range searched, and the scenario
/// at the range's low end, after checking before anything runs that both
/// ends are allowed values, that the target exists and that the exact
/// method applies when asked.
fn prepare<'a>(
    resolved: &'a Resolved,
    request: &'a SolveRequest,
    question: &Question,
) -> Result<(Loader<'a>, Domain, Scenario)> {
    let Some((path, range)) = request.vary.split_once('=') else {
        bail!(
            "--vary {}: expected PATH=LO..HI, e.g. sides.Raiders.troop_strength=200..3000",
            request.vary
        );
    };
    let mut loader = Loader {
        resolved,
        request,
        path: path.trim().split('.').map(str::to_owned).collect(),
        real: false,
    };
    let lo_text = range.split_once("..").map_or(range, |(a, _)| a).trim();
    loader.real = lo_text
        .parse::<f64>()
        .is_ok_and(|lo| takes_reals(&loader, lo));
    let option = format!("--vary {}", request.vary);
    if let Some(Value::String(word)) = written_value(&loader) {
        bail!(
            "{option}: `{path}` is the word \"{word}\" as written, and solve searches a range of numbers; compare its words with `sweep --set {path}=…`, or see one step each way with `sensitivity --cells`",
            path = path.trim()
        );
    }
    let domain = Domain::parse(&option, range, loader.real, request.tolerance)?;
    let (lo, hi) = match domain {
        Domain::Integers { lo, hi } => (lo as f64, hi as f64),
        Domain::Reals { lo, hi, .. } => (lo, hi),
    };
    let first = loader.load(lo)?;
    loader.load(hi)?;
    question.counted(&metric_layout(&first))?;
    if request.exact {
        exact_metrics(&first).map_err(|e| anyhow::anyhow!("--exact: {e:#}"))?;
    }
    Ok((loader, domain, first))
}

/// A probe by the exact method: no sampling, no interval.
fn exact_probe(question: &Question, s: &Scenario, v: f64, threshold: f64) -> Result<Probe> {
    let p = question.exact(&exact_metrics(s)?)?;
    Ok(Probe {
        point: Point {
            value: v,
            estimate: p,
            ci_low: p,
            ci_high: p,
            quantity: question.quantity(),
        },
        trials: None,
        decision: Decision::of(p, p, threshold),
    })
}

/// How a simulated probe is fought: until its 95% interval leaves
/// `threshold` out, is within ±`precision`, or reaches the plan's cap.
#[derive(Clone, Copy)]
struct Probing<'a> {
    threshold: f64,
    plan: &'a Plan,
    precision: Option<f64>,
}

/// A probe by simulation ([`Probing`]) of the scenario `s`, the setting at
/// `v`. Returns the probe and the threads used.
fn sampled_probe(
    question: &Question,
    (s, v): (&Scenario, f64),
    probing: &Probing,
) -> Result<(Probe, usize)> {
    let Probing {
        threshold,
        plan,
        precision,
    } = *probing;
    let (event, out_of) = match question.counted(&metric_layout(s))? {
        Counted::Share(event, out_of) => (event, out_of),
        Counted::Mean(metric) => return sampled_mean(metric, (s, v), probing),
    };
    let precise = |x: u64, n: u64| {
        let (low, high) = wilson(x, n, z95());
        n > 0
            && (Decision::of(low, high, threshold) != Decision::Undecided
                || precision.is_some_and(|h| (high - low) / 2.0 <= h))
    };
    // A share of some battles counts them as its trials.
    let stop =
        |counts: &[Vec<u64>], n: u64| precise(counts[0][0], counts[0].get(1).map_or(n, |&d| d));
    let events: Vec<Event> = std::iter::once(event.clone())
        .chain(out_of.clone())
        .collect();
    let done = simulate_paired(&[s], PairedAsk::events(vec![events]), plan, Some(&stop))
        .map_err(nothing_written)?;
    let count = |e: &Event| done.event_count(0, e);
    let x = count(&event);
    let n = out_of.as_ref().map_or(done.trials, count);
    if n == 0 {
        bail!(
            "{}: no battle of {} was won or lost",
            question.name(),
            thousands(done.trials)
        );
    }
    let (low, high) = wilson(x, n, z95());
    let probe = Probe {
        point: Point {
            value: v,
            estimate: x as f64 / n as f64,
            ci_low: low,
            ci_high: high,
            quantity: Quantity::Probability,
        },
        trials: Some(done.trials),
        decision: Decision::of(low, high, threshold),
    };
    Ok((probe, done.threads))
}

/// [`sampled_probe`] of a numeric metric's mean: each of its values counted
/// as an event, until the mean's 95% interval leaves the threshold out.
fn sampled_mean(
    metric: usize,
    (s, v): (&Scenario, f64),
    probing: &Probing,
) -> Result<(Probe, usize)> {
    let threshold = probing.threshold;
    let layout = metric_layout(s);
    let Values::Integers { first } = layout[metric].values else {
        unreachable!("a mean target's metric is numeric")
    };
    let values: Vec<Event> = (0..layout[metric].weights.len())
        .map(|bin| Event {
            metric,
            bins: vec![bin],
        })
        .collect();
    let stop = |counts: &[Vec<u64>], _: u64| {
        summarize(first, &counts[0]).is_some_and(|m| {
            Decision::of(m.ci_low, m.ci_high, threshold) != Decision::Undecided
                || probing
                    .precision
                    .is_some_and(|h| (m.ci_high - m.ci_low) / 2.0 <= h)
        })
    };
    let done = simulate_paired(
        &[s],
        PairedAsk::events(vec![values]),
        probing.plan,
        Some(&stop),
    )
    .map_err(nothing_written)?;
    let m = done.metrics[0][metric]
        .summary()
        .context("the target's outcome has no value in any battle")?;
    let probe = Probe {
        point: Point {
            value: v,
            estimate: m.mean,
            ci_low: m.ci_low,
            ci_high: m.ci_high,
            quantity: Quantity::Mean,
        },
        trials: Some(done.trials),
        decision: Decision::of(m.ci_low, m.ci_high, threshold),
    };
    Ok((probe, done.threads))
}

/// The command line that asks this solve again, into the same folder and
/// formats.
fn reproduce_command(
    resolved: &Resolved,
    request: &SolveRequest,
    (out, to): (&Path, &Destination),
) -> String {
    let line = CommandLine::new("solve")
        .path(resolved.path())
        .option("vary", &request.vary);
    let line = match (&request.balance, &request.target, request.goal) {
        (Some(subject), _, _) => line.option("balance", subject),
        (None, target, goal) => {
            let line = line.option_if("target", target.as_ref());
            match goal {
                Some(Goal::AtLeast(p)) => line.option("at-least", p),
                Some(Goal::AtMost(p)) => line.option("at-most", p),
                Some(Goal::Equals(p)) => line.option("equals", p),
                None => line,
            }
        }
    };
    let line = if request.exact {
        line.flag("exact", true)
    } else {
        line.option("max-trials", request.max_trials())
            .option_if("seed", request.seed)
            .option_if("precision", request.precision)
    };
    line.option_if("tolerance", request.tolerance)
        .options("table", resolved.table_options())
        .written_to(to.named(out, crate::engine::Shard::WHOLE), &to.formats)
        .naming_inputs(to.inputs.as_deref())
        .into()
}

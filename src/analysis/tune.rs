//! A tune: the settings or table cells that bring several outcomes into
//! their goals at once, found by a search every candidate of which is
//! fought on the same battles, then judged on fresh ones.
//!
//! The search starts from the scenario as written. Each step fights the
//! current candidate and every candidate one step away (each setting one
//! value up or down its range) on the same battle streams, and takes the
//! one whose total shortfall (the sum of each goal's distance from its
//! band, in percentage points or in a mean's units) is least; fewer
//! changed settings break a tie; where no single move helps, every pair
//! of moves is tried. It stops when nothing lowers the shortfall, or
//! after `max_steps`; if it falls short, a second pass starts again with
//! the pairs at every step, and the better of the two is kept. The search's numbers choose; they do
//! not judge: the table found is fought again on a seed the search never
//! used, and only that run says whether each goal is met, missed or too
//! close to tell, on intervals family-wise over the goals; where the
//! battle has exact odds, they decide met or missed.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use toml::Value;

use super::Destination;
use crate::analysis::runner::{
    PairedAsk, Plan, Written, exact_metrics, metric_layout, override_settings, question_out_dir,
    run_info, simulate, simulate_paired, simulate_variants, table_overrides,
};
use crate::engine::paired::Event;
use crate::questions::sweep::{Setting, apply, parse_setting};
use crate::questions::target::{with_combined, with_combined_as};
use crate::questions::tune::{Goal, contradiction};
use crate::report::command_line::CommandLine;
use crate::report::output_dir::Staging;
use crate::report::tune::{Change, Effect, GoalResult, StepRow, TuneReport};
use crate::scenario::{self, Edit, Scenario};
use crate::stats::{Metric, paired_difference, wilson, z_for_confidence};

/// Battles each candidate of the search fights, unless the request says.
pub const DEFAULT_SEARCH_TRIALS: u64 = 20_000;

/// Most steps of the search, unless the request says.
pub const DEFAULT_MAX_STEPS: usize = 40;

/// Most battles the verifying run sizes itself to.
const MAX_VERIFY_TRIALS: u64 = 10_000_000;

/// The family-wise confidence of the verdicts.
pub const CONFIDENCE: f64 = 0.95;

/// A tune asked: the goals, what may change, and how hard to look.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneRequest {
    /// The scenario file (set by the caller).
    #[serde(skip)]
    pub scenario: PathBuf,
    /// The goals: `TARGET in LO..HI`, `TARGET <= X` or `TARGET >= X`.
    pub goals: Vec<String>,
    /// The settings or table cells that may change, with their ranges:
    /// `PATH=LO..HI[:STEP]` or `PATH=V1,V2,...`, as `sweep --set` takes them.
    #[serde(default)]
    pub vary: Vec<String>,
    /// Tables every cell of which may move, one step at a time (the moves
    /// `sensitivity --cells` makes).
    #[serde(default)]
    pub cell_tables: Vec<String>,
    /// Cells that stay as they are: `TABLE.PATH` (`survival.rows.D.column`),
    /// or a whole row (`survival.rows.D`).
    #[serde(default)]
    pub freeze: Vec<String>,
    /// The most settings the tuned scenario may change.
    #[serde(default)]
    pub max_changes: Option<usize>,
    /// The most steps of the search.
    #[serde(default)]
    pub max_steps: Option<usize>,
    /// Battles each candidate fights in the search.
    #[serde(default)]
    pub trials: Option<u64>,
    /// Seed of the search's battles (the scenario's `seed` when absent).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Battles of the verifying run (sized to the goals when absent).
    #[serde(default)]
    pub verify_trials: Option<u64>,
    /// Seed of the verifying run (one derived from the search's when absent).
    #[serde(default)]
    pub verify_seed: Option<u64>,
    /// `NAME=FILE` table overrides (set by the caller).
    #[serde(skip)]
    pub tables: Vec<String>,
}

/// What a tune found and wrote.
#[derive(Debug)]
pub struct TuneAnswer {
    /// The search, the table found and the verdicts.
    pub report: TuneReport,
    /// Where it was written.
    pub written: Written,
}

/// One step of the search as it is taken (a move, or a pair of moves, to
/// another candidate): its pass and number, the candidate, and its total
/// shortfall.
pub type StepSeen<'a> = dyn FnMut((usize, usize), &str, f64) -> Result<()> + 'a;

/// The seed the verifying run takes when none is given: the search's,
/// moved by a fixed odd constant, so the two never share battles.
pub fn verify_seed_of(search_seed: u64) -> u64 {
    search_seed.wrapping_add(0x9E37_79B9_7F4A_7C15)
}

/// Validates the request, searches (showing `seen` each step), verifies
/// the table found on fresh battles and writes the report.
pub fn tune(
    request: &TuneRequest,
    plan: &Plan,
    to: &Destination,
    seen: &mut StepSeen,
) -> Result<TuneAnswer> {
    let started = std::time::Instant::now();
    if request.goals.is_empty() {
        bail!(
            "tune needs at least one --goal, e.g. --goal \"side:Megalos/victory=won in 45%..55%\""
        );
    }
    if request.vary.is_empty() && request.cell_tables.is_empty() {
        bail!(
            "tune needs something to move: --vary PATH=RANGE (e.g. --vary sides.Raiders.troop_strength=600..1400:100) or --tables NAME"
        );
    }
    let goals = (request.goals.iter())
        .map(|g| Goal::parse(g))
        .collect::<Result<Vec<_>>>()?;
    if let Some(said) = contradiction(&goals) {
        bail!("{said}");
    }
    let dimensions = dimensions(request)?;
    let max_changes = request.max_changes.unwrap_or(dimensions.len());
    if max_changes == 0 {
        bail!("--max-changes 0 allows no change; allowed: 1 or more");
    }
    let max_steps = request.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
    let overrides = table_overrides(&request.tables)?;
    let text = scenario::read_text(&request.scenario)?;
    let base = scenario::load_edited(
        &request.scenario,
        &text,
        &overrides.iter().map(Edit::table).collect::<Vec<_>>(),
    )?;
    // Every goal names an outcome of this battle, before anything is fought.
    let layout = with_combined(&metric_layout(&base));
    for g in &goals {
        let named = if g.target.is_mean() {
            g.target.mean_metric(&layout).map(|_| ())
        } else {
            g.target.event(&layout).map(|_| ())
        };
        named.map_err(|e| anyhow::anyhow!("--goal {}: {e:#}", g.text))?;
    }
    let start: Vec<Value> = dimensions.iter().map(|d| d.value.clone()).collect();
    let search_trials = request.trials.unwrap_or(DEFAULT_SEARCH_TRIALS);
    let search_seed = request.seed.unwrap_or(base.seed);
    let fight = Fight {
        request,
        text: &text,
        dimensions: &dimensions,
        start: &start,
        overrides: &overrides,
        trials: search_trials,
        seed: search_seed,
    };
    let out = to.out.clone().unwrap_or_else(|| {
        let mut named: Vec<String> = request.cell_tables.clone();
        named.extend(
            request
                .vary
                .iter()
                .map(|v| v.split('=').next().unwrap_or(v).to_owned()),
        );
        question_out_dir(&request.scenario, "tune", &named)
    });
    let staging = Staging::new(&out, to.force)?;
    let plan = Plan {
        progress: false,
        ..*plan
    };

    // The search: one step at a time, a pair of moves where no single one
    // helps; if that falls short, once more from the start with pairs at
    // every step. The better of the two is kept.
    let descend = |pass: usize, pairs: Pairs, seen: &mut StepSeen| {
        descend(
            (&fight, &goals, &plan),
            (&start, max_changes, max_steps),
            (pass, pairs),
            seen,
        )
    };
    let mut found = descend(1, Pairs::WhenStalled, seen)?;
    let mut steps = std::mem::take(&mut found.steps);
    if found.total() > 0.0 {
        let mut again = descend(2, Pairs::Always, seen)?;
        steps.append(&mut again.steps);
        let key = |d: &Descent| (d.total(), changed(&d.current, &start));
        if key(&again) < key(&found) {
            found = again;
        }
    }
    let Descent {
        current,
        last_round,
        stopped,
        threads,
        ..
    } = found;
    let search = last_round
        .iter()
        .find(|s| s.at == current)
        .cloned()
        .expect("the table found was scored");
    let conflicts = if search.total > 0.0 {
        pulls(&goals, &last_round, &current)
    } else {
        Vec::new()
    };

    // The verifying run, on battles the search never saw.
    let verify_seed = request.verify_seed.unwrap_or(verify_seed_of(search_seed));
    if verify_seed == search_seed {
        bail!(
            "--verify-seed {verify_seed} is the search's seed; the verdicts need battles the search never saw"
        );
    }
    let z = z_for_confidence(1.0 - (1.0 - CONFIDENCE) / goals.len() as f64);
    let verify_trials = request
        .verify_trials
        .unwrap_or_else(|| verify_trials_for(&goals, &search, z, search_trials));
    let mut tuned = fight.scenario(&current)?;
    override_settings(&mut tuned, Some(verify_trials), Some(verify_seed))?;
    let verified = simulate(&tuned, &plan)?;
    let all = with_combined(&verified.metrics);
    // Where the battle has exact odds, they judge; the simulation's
    // interval stays beside them.
    let exact = exact_metrics(&tuned)
        .ok()
        .map(|odds| with_combined_as(&verified.metrics, &odds));
    let mut info = run_info(
        &tuned,
        reproduce_command(request, (&out, to)),
        threads,
        started.elapsed(),
    );
    info.scenario_sha256 = Some(crate::tables::sha256_hex(text.as_bytes()));
    let mut results = Vec::new();
    for (g, search_estimate) in goals.iter().zip(&search.estimates) {
        let measured = measure(g, &all)?;
        let (low, high) = measured.interval(z);
        let exact = exact
            .as_ref()
            .and_then(|odds| g.target.exact_estimate(odds).ok());
        results.push(GoalResult {
            goal: g.text.clone(),
            target: g.target.text(),
            band: g.band_text(),
            mean: g.target.is_mean(),
            search_estimate: *search_estimate,
            estimate: measured.estimate(),
            ci_low: low,
            ci_high: high,
            exact,
            verdict: exact.map_or_else(|| g.verdict(low, high), |p| g.verdict(p, p)),
            stand_in_tables: info.stand_in_tables_of_any(
                &[""],
                &g.target.subject,
                &g.target.metric,
            ),
        });
    }
    let changes = (dimensions.iter().zip(&start).zip(&current))
        .filter(|((_, a), b)| a != b)
        .map(|((d, a), b)| Change {
            setting: d.path.join("."),
            from: shown(a),
            to: shown(b),
        })
        .collect();
    let effects = fight.effects(&current, &goals, (verify_trials, verify_seed), &plan)?;
    let tables = fight.tuned_tables(&current, &report_header(&info.command, &results), &out)?;
    let report = TuneReport {
        info,
        goals: results,
        steps,
        changes,
        conflicts,
        effects,
        stopped,
        tuned: fight.document(&current)?,
        tables,
        search_trials,
        search_seed,
        verify_trials,
        verify_seed,
        confidence: CONFIDENCE,
        formats: to.formats,
    };
    let files = crate::report::tune::write(&report, staging.path())?;
    let folder = staging.commit()?;
    Ok(TuneAnswer {
        report,
        written: Written { folder, files },
    })
}

/// The comment a tuned table file starts with: what it was tuned for, the
/// verdicts, and the command.
fn report_header(command: &str, goals: &[GoalResult]) -> String {
    let mut head =
        String::from("# Tuned by `warcrunch tune` for these goals (verdicts on fresh battles):\n");
    for g in goals {
        head.push_str(&format!("#   {}: {}\n", g.goal, g.verdict.words()));
    }
    head.push_str(&format!("# Command: {command}\n"));
    head
}

/// Whether a step of the search also tries pairs of moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pairs {
    /// Only when no single move lowers the shortfall.
    WhenStalled,
    /// At every step, beside the single moves.
    Always,
}

/// Most candidates one step fights: pairs of moves beyond it are not tried.
const MAX_CANDIDATES: usize = 2_000;

/// Where one pass of the search ended.
struct Descent {
    current: Vec<Value>,
    steps: Vec<StepRow>,
    last_round: Vec<Scored>,
    stopped: String,
    threads: usize,
}

impl Descent {
    /// The total shortfall where it ended, in the search's battles.
    fn total(&self) -> f64 {
        (self.last_round.iter())
            .find(|s| s.at == self.current)
            .map_or(f64::INFINITY, |s| s.total)
    }
}

/// One pass of the search from `start`: each step fights the current
/// candidate and those one move away (and pairs of moves, as `pairs` says),
/// and takes the least total shortfall, fewer changes breaking a tie.
fn descend(
    (fight, goals, plan): (&Fight, &[Goal], &Plan),
    (start, max_changes, max_steps): (&[Value], usize, usize),
    (pass, pairs): (usize, Pairs),
    seen: &mut StepSeen,
) -> Result<Descent> {
    let mut current = start.to_vec();
    let mut steps = Vec::new();
    let mut threads = 1;
    let mut last_round: Vec<Scored> = Vec::new();
    let mut stopped = format!("it took the most steps allowed ({max_steps}, --max-steps)");
    for step in 1..=max_steps {
        let singles: Vec<(usize, Value)> = (fight.dimensions.iter().enumerate())
            .flat_map(|(i, d)| d.neighbours(&current[i]).into_iter().map(move |v| (i, v)))
            .collect();
        let allowed = |c: &Vec<Value>| changed(c, start) <= max_changes;
        let one: Vec<Vec<Value>> = (singles.iter())
            .map(|(i, v)| {
                let mut c = current.clone();
                c[*i] = v.clone();
                c
            })
            .filter(allowed)
            .collect();
        let mut two: Vec<Vec<Value>> = Vec::new();
        for (k, (i, v)) in singles.iter().enumerate() {
            for (j, w) in &singles[k + 1..] {
                if i != j {
                    let mut c = current.clone();
                    c[*i] = v.clone();
                    c[*j] = w.clone();
                    if allowed(&c) {
                        two.push(c);
                    }
                }
            }
        }
        let pairs_fit = two.len() + one.len() < MAX_CANDIDATES;
        let here = vec![current.clone()];
        let rounds: Vec<Vec<Vec<Value>>> = match (pairs, pairs_fit) {
            (Pairs::Always, true) => vec![[here, one, two].concat()],
            (Pairs::WhenStalled, true) => vec![[here.clone(), one].concat(), [here, two].concat()],
            (_, false) => vec![[here, one].concat()],
        };
        let mut moved = false;
        let mut scored = Vec::new();
        for candidates in rounds {
            if candidates.len() < 2 {
                continue;
            }
            let (round, used) = fight.score(&candidates, goals, plan)?;
            threads = used;
            let best = (0..round.len())
                .min_by(|&a, &b| {
                    let key = |k: usize| (round[k].total, changed(&round[k].at, start), k);
                    key(a).partial_cmp(&key(b)).expect("shortfalls are numbers")
                })
                .expect("the current candidate is scored");
            moved = best != 0 && round[best].total < round[0].total;
            let chosen = if moved { best } else { 0 };
            for (k, s) in round.iter().enumerate() {
                steps.push(StepRow {
                    pass,
                    step,
                    candidate: fight.name(&s.at),
                    changed: changed(&s.at, start),
                    estimates: s.estimates.clone(),
                    shortfalls: s.shortfalls.clone(),
                    total: s.total,
                    chosen: k == chosen,
                });
            }
            current = round[chosen].at.clone();
            scored = round;
            if moved {
                break;
            }
        }
        if scored.is_empty() {
            stopped = "nothing is left to move".to_owned();
            break;
        }
        let total = (scored.iter())
            .find(|s| s.at == current)
            .map_or(0.0, |s| s.total);
        if moved {
            seen((pass, step), &fight.name(&current), total)?;
        }
        last_round = scored;
        if total == 0.0 {
            stopped = "every goal is met in the search's battles".to_owned();
            break;
        }
        if !moved {
            stopped = if pairs_fit {
                "no single move or pair of moves lowers the total shortfall".to_owned()
            } else {
                format!(
                    "no single move lowers the total shortfall (pairs of moves, over {MAX_CANDIDATES}, were not tried)"
                )
            };
            break;
        }
    }
    Ok(Descent {
        current,
        steps,
        last_round,
        stopped,
        threads,
    })
}

/// `--set` in a sweep's message is `--vary` here.
fn vary_words(e: &anyhow::Error) -> String {
    format!("{e:#}").replacen("--set ", "--vary ", 1)
}

/// How many settings `at` changes from `start`.
fn changed(at: &[Value], start: &[Value]) -> usize {
    at.iter().zip(start).filter(|(a, b)| a != b).count()
}

/// A value as the files write it: `12`, `0.5`, `elite`.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One thing the search may change: its path, its value in the battle as
/// written, and how it moves.
#[derive(Debug, Clone)]
struct Dimension {
    path: Vec<String>,
    value: Value,
    moves: Moves,
}

/// How a [`Dimension`] moves one step.
#[derive(Debug, Clone)]
enum Moves {
    /// To the next value of a range, either way (`--vary`).
    Range(Vec<Value>),
    /// As `sensitivity --cells` moves a cell (`--tables`).
    Cell(crate::questions::sensitivity::Knob),
}

impl Dimension {
    /// The values one step from `value`.
    fn neighbours(&self, value: &Value) -> Vec<Value> {
        match &self.moves {
            Moves::Range(values) => {
                let Some(at) = values.iter().position(|v| same(v, value)) else {
                    return Vec::new();
                };
                [at.checked_sub(1), Some(at + 1)]
                    .into_iter()
                    .flatten()
                    .filter_map(|i| values.get(i).cloned())
                    .collect()
            }
            Moves::Cell(knob) => crate::questions::sensitivity::Knob {
                value: value.clone(),
                ..knob.clone()
            }
            .moves(),
        }
    }
}

/// Whether two values are one (an integer and a float of the same number too).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Integer(i), Value::Float(f)) | (Value::Float(f), Value::Integer(i)) => {
            (*i as f64 - f).abs() < 1e-9
        }
        (Value::Float(x), Value::Float(y)) => (x - y).abs() < 1e-9,
        (a, b) => a == b,
    }
}

/// What the search may change: each `--vary` range (holding the battle's
/// own value, where the search starts), then every cell of each
/// `--tables` table but the frozen ones.
fn dimensions(request: &TuneRequest) -> Result<Vec<Dimension>> {
    let choices = crate::analysis::sensitivity::choices(&request.scenario, &request.tables)?;
    let mut found: Vec<Dimension> = Vec::new();
    for text in &request.vary {
        let setting: Setting =
            parse_setting(text).map_err(|e| anyhow::anyhow!("{}", vary_words(&e)))?;
        let path = setting.path.join(".");
        if found.iter().any(|d| d.path == setting.path) {
            bail!("--vary {path}: the path is varied twice");
        }
        let knob = (choices.settings.iter().chain(&choices.cells))
            .find(|k| k.name() == path)
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "--vary {path}: not a setting or table cell of this battle; `warcrunch sensitivity --cells` lists them"
                )
            })?;
        if !setting.values.iter().any(|v| same(v, &knob.value)) {
            bail!(
                "--vary {path}: its range does not hold the battle's own value, {}; the search starts there, so include it",
                shown(&knob.value)
            );
        }
        found.push(Dimension {
            path: setting.path,
            value: knob.value.clone(),
            moves: Moves::Range(setting.values),
        });
    }
    for table in &request.cell_tables {
        let cells: Vec<&crate::questions::sensitivity::Knob> = (choices.cells.iter())
            .filter(|k| k.cell.as_ref().is_some_and(|c| c.table == *table))
            .collect();
        if cells.is_empty() {
            let tables: std::collections::BTreeSet<&str> = (choices.cells.iter())
                .filter_map(|k| k.cell.as_ref().map(|c| c.table.as_str()))
                .collect();
            bail!(
                "--tables {table}: no cell of such a table moves in this battle; allowed: {}",
                if tables.is_empty() {
                    "none (name a cell with --vary instead)".to_owned()
                } else {
                    tables.into_iter().collect::<Vec<_>>().join(", ")
                }
            );
        }
        for knob in cells {
            if found.iter().any(|d| d.path == knob.path) {
                continue;
            }
            found.push(Dimension {
                path: knob.path.clone(),
                value: knob.value.clone(),
                moves: Moves::Cell(knob.clone()),
            });
        }
    }
    for frozen in &request.freeze {
        let prefix: Vec<String> = std::iter::once("tables".to_owned())
            .chain(frozen.split('.').map(str::to_owned))
            .collect();
        let before = found.len();
        found.retain(|d| !d.path.starts_with(&prefix) || !matches!(d.moves, Moves::Cell(_)));
        if found.len() == before {
            bail!(
                "--freeze {frozen}: no cell of the --tables given is there; write TABLE.PATH, e.g. survival.rows.D.column"
            );
        }
    }
    if found.is_empty() {
        bail!("--freeze: every cell is frozen; nothing is left to move");
    }
    Ok(found)
}

/// What the search fights: the scenario with each candidate's values.
struct Fight<'a> {
    request: &'a TuneRequest,
    text: &'a str,
    dimensions: &'a [Dimension],
    /// Each dimension's value in the battle as written.
    start: &'a [Value],
    overrides: &'a [(String, String)],
    trials: u64,
    seed: u64,
}

/// A candidate fought: where it is, each goal's estimate and shortfall,
/// and their sum.
#[derive(Debug, Clone)]
struct Scored {
    at: Vec<Value>,
    estimates: Vec<f64>,
    /// Each goal's spread of one battle's outcome: a mean's standard
    /// deviation, a share's at most 1/2.
    spreads: Vec<f64>,
    shortfalls: Vec<f64>,
    total: f64,
}

impl Fight<'_> {
    /// The dimensions a candidate changes, with their values.
    fn changes<'v>(&self, at: &'v [Value]) -> impl Iterator<Item = (&Dimension, &'v Value)> {
        (self.dimensions.iter().zip(at).zip(self.start))
            .filter(|((_, v), s)| !same(v, s))
            .map(|((d, v), _)| (d, v))
    }

    /// A candidate's name: each setting it changes at its value, or `as
    /// written`.
    fn name(&self, at: &[Value]) -> String {
        let named: Vec<String> = (self.changes(at))
            .map(|(d, v)| format!("{}={}", d.path.join("."), shown(v)))
            .collect();
        if named.is_empty() {
            "as written".to_owned()
        } else {
            named.join(",")
        }
    }

    /// The edits that make a candidate, after the table overrides: only
    /// what it changes, so the battle as written stays as written.
    fn edits(&self, at: &[Value]) -> Vec<Edit<'_>> {
        let mut edits: Vec<Edit> = self.overrides.iter().map(Edit::table).collect();
        for (d, value) in self.changes(at) {
            let (path, value) = (d.path.clone(), value.clone());
            edits.push(Edit {
                option: format!("--vary {} (value {})", path.join("."), shown(&value)),
                apply: Box::new(move |doc| apply(doc, &path, value.clone())),
            });
        }
        edits
    }

    /// A candidate as a scenario, at the search's battles and seed.
    fn scenario(&self, at: &[Value]) -> Result<Scenario> {
        let mut s = scenario::load_edited(&self.request.scenario, self.text, &self.edits(at))?;
        override_settings(&mut s, Some(self.trials), Some(self.seed))?;
        Ok(s)
    }

    /// A candidate's scenario file: the battle as written with the
    /// candidate's values set (and the `--table` files named).
    fn document(&self, at: &[Value]) -> Result<String> {
        let mut doc: toml::Table = toml::from_str(self.text)
            .with_context(|| format!("{}: not a TOML document", self.request.scenario.display()))?;
        for edit in self.edits(at) {
            (edit.apply)(&mut doc).with_context(|| edit.option.clone())?;
        }
        toml::to_string(&doc).context("cannot write the tuned scenario")
    }

    /// Each table a candidate changes cells of, as a file of its own: the
    /// table the battle reads (its file, or the built-in one) with every
    /// cell the candidate's scenario sets, its layout and comments kept,
    /// and `header` (then the cells changed) after its `#:schema` line,
    /// which names the schema from the folder `out`; and that schema, when
    /// it is to be written beside the file.
    fn tuned_tables(
        &self,
        at: &[Value],
        header: &str,
        out: &std::path::Path,
    ) -> Result<Vec<(String, String)>> {
        let original: toml::Table = toml::from_str(self.text)?;
        let tuned: toml::Table = toml::from_str(&self.document(at)?)?;
        let mut names: Vec<&str> = (self.changes(at))
            .filter_map(|(d, _)| match d.path.as_slice() {
                [tables, name, _, ..] if tables == "tables" => Some(name.as_str()),
                _ => None,
            })
            .collect();
        names.sort_unstable();
        names.dedup();
        let mut files = Vec::new();
        for name in names {
            let (text, _) = crate::tables::text_as_read(
                &original,
                &self.request.scenario,
                self.overrides,
                name,
            )?;
            let set = crate::tables::toml_path::get(
                &tuned,
                &["tables".to_owned(), name.to_owned(), "set".to_owned()],
            )
            .and_then(Value::as_table)
            .cloned()
            .unwrap_or_default();
            let edits: Vec<(Vec<String>, Value)> = set
                .into_iter()
                .map(|(cell, v)| (cell.split('.').map(str::to_owned).collect(), v))
                .collect();
            let edited = crate::tables::toml_path::set_keeping_layout(&text, &edits)
                .with_context(|| format!("the tuned {name} table"))?;
            let changed: Vec<String> = (self.changes(at))
                .filter(|(d, _)| d.path.get(1).is_some_and(|n| n == name) && d.path.len() > 2)
                .map(|(d, v)| {
                    format!(
                        "#   {}: {} -> {}\n",
                        d.path[2..].join("."),
                        shown(&d.value),
                        shown(v)
                    )
                })
                .collect();
            let head = format!("{header}# Cells changed:\n{}", changed.concat());
            let body = match edited.split_once('\n') {
                Some((first, rest)) if first.starts_with("#:schema") => rest,
                _ => &edited,
            };
            // Its `#:schema` line, for where the file will be; the schema
            // is written beside it when the bundled one is not at hand.
            let file = format!("tuned_{name}.toml");
            let entry = crate::scenario::schema::find(name)?;
            let placed = crate::scenario::schema::place(&entry, &out.join(&file), true)?;
            let text = crate::scenario::schema::with_schema_line(&(head + body), &placed.line);
            files.push((file, text));
            if placed.write.is_some() {
                files.push((entry.file_name(), entry.text()));
            }
        }
        Ok(files)
    }

    /// Each change of `at` made alone to the battle as written, fought with
    /// it on the same `(trials, seed)` battles: its paired effect on every
    /// goal (Newcombe's paired interval for an event, Student's t on the
    /// battles' differences for a mean; 95% each). A goal whose outcome the
    /// paired engine cannot count alone (one combined from several
    /// metrics) has no effect written.
    fn effects(
        &self,
        at: &[Value],
        goals: &[Goal],
        (trials, seed): (u64, u64),
        plan: &Plan,
    ) -> Result<Vec<Effect>> {
        let changes: Vec<(usize, &Value)> = (at.iter().enumerate())
            .filter(|&(i, v)| !same(v, &self.start[i]))
            .collect();
        if changes.is_empty() {
            return Ok(Vec::new());
        }
        let mut scenarios = Vec::new();
        for &(i, v) in std::iter::once(&(usize::MAX, &self.start[0])).chain(&changes) {
            let mut alone = self.start.to_vec();
            if i != usize::MAX {
                alone[i] = v.clone();
            }
            let mut s = self.scenario(&alone)?;
            override_settings(&mut s, Some(trials), Some(seed))?;
            scenarios.push(s);
        }
        let layout = metric_layout(&scenarios[0]);
        // Each goal as the paired engine counts it: an event or a mean.
        let counted: Vec<Option<Result<Event, usize>>> = (goals.iter())
            .map(|g| {
                if g.target.is_mean() {
                    g.target.mean_metric(&layout).ok().map(Err)
                } else {
                    g.target.event(&layout).ok().map(Ok)
                }
            })
            .collect();
        let events: Vec<Event> = counted
            .iter()
            .flatten()
            .filter_map(|c| c.clone().ok())
            .collect();
        let means: Vec<usize> = counted
            .iter()
            .flatten()
            .filter_map(|c| c.clone().err())
            .collect();
        let all: Vec<&Scenario> = scenarios.iter().collect();
        let ask = PairedAsk {
            events: vec![events.clone(); all.len()],
            means: vec![means.clone(); all.len()],
        };
        let done = simulate_paired(&all, ask, plan, None)?;
        let n = done.trials;
        let mut found = Vec::new();
        for (k, &(i, v)) in changes.iter().enumerate() {
            let variant = k + 1;
            let (mut e, mut m) = (0, 0);
            for (g, c) in goals.iter().zip(&counted) {
                let interval = match c {
                    Some(Ok(event)) => {
                        let (x0, x1) =
                            (done.event_count(0, event), done.event_count(variant, event));
                        let both = done.both[variant][e];
                        e += 1;
                        Some((paired_difference(n, x0, x1, both), "paired_newcombe"))
                    }
                    Some(Err(_)) => {
                        let sums = &done.mean_sums[variant][m];
                        m += 1;
                        sums.means().map(|p| (p.difference, "paired_t"))
                    }
                    None => None,
                };
                found.push(Effect {
                    setting: self.dimensions[i].path.join("."),
                    from: shown(&self.start[i]),
                    to: shown(v),
                    goal: g.text.clone(),
                    mean: g.target.is_mean(),
                    difference: interval.map(|(d, _)| d),
                    method: interval.map_or("not_paired_alone", |(_, method)| method),
                });
            }
        }
        Ok(found)
    }

    /// Fights every candidate on the same battles; each one's score, and
    /// the threads used. A candidate the rules refuse (a table's rows out
    /// of order after a move) is left out; the first, the current one,
    /// always loads.
    fn score(
        &self,
        candidates: &[Vec<Value>],
        goals: &[Goal],
        plan: &Plan,
    ) -> Result<(Vec<Scored>, usize)> {
        let mut scenarios = Vec::new();
        let mut kept = Vec::new();
        for (k, c) in candidates.iter().enumerate() {
            match self.scenario(c) {
                Ok(s) => {
                    scenarios.push((self.name(c), s));
                    kept.push(c);
                }
                Err(e) if k == 0 => return Err(e),
                Err(_) => {}
            }
        }
        let named: Vec<(String, &Scenario)> =
            scenarios.iter().map(|(n, s)| (n.clone(), s)).collect();
        let done = simulate_variants(&named, &[], plan)?;
        let scored = (kept.into_iter().zip(&done.variants))
            .map(|(at, v)| {
                let all = with_combined(&v.metrics);
                let measured = (goals.iter())
                    .map(|g| measure(g, &all))
                    .collect::<Result<Vec<_>>>()?;
                let estimates: Vec<f64> = measured.iter().map(Measured::estimate).collect();
                let spreads = (measured.iter())
                    .map(|m| match *m {
                        Measured::Share(..) => 0.5,
                        Measured::Mean(_, sd, _) => sd,
                    })
                    .collect();
                let shortfalls: Vec<f64> = goals
                    .iter()
                    .zip(&estimates)
                    .map(|(g, &x)| g.shortfall(x))
                    .collect();
                Ok(Scored {
                    at: at.clone(),
                    total: shortfalls.iter().sum(),
                    estimates,
                    spreads,
                    shortfalls,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((scored, done.threads))
    }
}

/// A goal's outcome as counted.
enum Measured {
    /// An event: battles with it, of all battles.
    Share(u64, u64),
    /// A mean, its standard deviation and the battles.
    Mean(f64, f64, u64),
}

impl Measured {
    fn estimate(&self) -> f64 {
        match *self {
            Measured::Share(x, n) => x as f64 / n.max(1) as f64,
            Measured::Mean(mean, _, _) => mean,
        }
    }

    /// The interval at normal quantile `z`: Wilson for a share, normal for a mean.
    fn interval(&self, z: f64) -> (f64, f64) {
        match *self {
            Measured::Share(x, n) => wilson(x, n, z),
            Measured::Mean(mean, sd, n) => {
                let half = z * sd / (n.max(1) as f64).sqrt();
                (mean - half, mean + half)
            }
        }
    }
}

/// A goal's outcome in a battle's metrics (its combined ones too).
fn measure(g: &Goal, metrics: &[Metric<u64>]) -> Result<Measured> {
    if g.target.is_mean() {
        let m = &metrics[g.target.mean_metric(metrics)?];
        let s = m
            .summary()
            .ok_or_else(|| anyhow::anyhow!("--goal {}: no battle was counted", g.text))?;
        Ok(Measured::Mean(s.mean, s.std_dev, s.trials))
    } else {
        let e = g.target.event(metrics)?;
        let m = &metrics[e.metric];
        let x: u64 = e.bins.iter().map(|&b| m.weights[b]).sum();
        Ok(Measured::Share(x, m.total()))
    }
}

/// Battles for the verifying run: enough that a goal's interval, at the
/// family-wise level, is at most half its band's half-width where the
/// band has one (a bound has none: four times the search's battles), and
/// never fewer than the search's.
fn verify_trials_for(goals: &[Goal], search: &Scored, z: f64, search_trials: u64) -> u64 {
    let mut n = search_trials.saturating_mul(4);
    for (g, &sd) in goals.iter().zip(&search.spreads) {
        let Some(h) = g.half_width() else { continue };
        if h <= 0.0 {
            continue;
        }
        // The spread of one battle's outcome as the search measured it.
        let needed = (z * sd / (h / 2.0)).powi(2).ceil() as u64;
        n = n.max(needed);
    }
    n.clamp(search_trials, MAX_VERIFY_TRIALS.max(search_trials))
}

/// From the table found (its last round of neighbours), the goals that
/// pull against each other, and those no single step brings closer.
fn pulls(goals: &[Goal], round: &[Scored], current: &[Value]) -> Vec<String> {
    let Some(here) = round.iter().find(|s| s.at == current) else {
        return Vec::new();
    };
    let neighbours: Vec<&Scored> = round.iter().filter(|s| s.at != current).collect();
    let mut said = Vec::new();
    for (i, gi) in goals.iter().enumerate() {
        if here.shortfalls[i] == 0.0 {
            continue;
        }
        let helps: Vec<&&Scored> = neighbours
            .iter()
            .filter(|s| s.shortfalls[i] < here.shortfalls[i])
            .collect();
        if helps.is_empty() {
            said.push(format!(
                "\"{}\": no single step of the settings varied brings it closer (widen a range or vary another setting)",
                gi.text
            ));
            continue;
        }
        for (j, gj) in goals.iter().enumerate() {
            if j != i && helps.iter().all(|s| s.shortfalls[j] > here.shortfalls[j]) {
                said.push(format!(
                    "\"{}\" and \"{}\" pull against each other here: in the search's battles, every single step that brings the first closer takes the second further",
                    gi.text, gj.text
                ));
            }
        }
    }
    said
}

/// The command line that asks this tune again, into the same folder.
fn reproduce_command(request: &TuneRequest, (out, to): (&std::path::Path, &Destination)) -> String {
    CommandLine::new("tune")
        .path(&request.scenario)
        .options("goal", &request.goals)
        .options("vary", &request.vary)
        .options("tables", &request.cell_tables)
        .options("freeze", &request.freeze)
        .option_if("max-changes", request.max_changes)
        .option_if("max-steps", request.max_steps)
        .option_if("trials", request.trials)
        .option_if("seed", request.seed)
        .option_if("verify-trials", request.verify_trials)
        .option_if("verify-seed", request.verify_seed)
        .options("table", &request.tables)
        .written_to(to.named(out, crate::engine::Shard::WHOLE), &to.formats)
        .naming_inputs(to.inputs.as_deref())
        .into()
}

//! A sensitivity analysis: every knob of a scenario moved one step down
//! and one step up, all fought battle by battle on the same streams, and
//! ranked by how far each move shifts the target's probability.

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use super::Destination;
use std::path::Path;

use crate::analysis::runner::{
    PairedAsk, Plan, Written, exact_metrics, metric_layout, nothing_written, override_settings,
    question_out_dir, run_info, simulate_paired,
};
use crate::engine::paired::Event;
use crate::questions::sensitivity::{
    Knob, Method, Move, PairedTest, Refused, Words, chosen_knobs, judge, knobs, rank, shown,
    table_cells,
};
use crate::questions::target::Target;
use crate::report::command_line::CommandLine;
use crate::report::output_dir::Staging;
use crate::report::sensitivity::{SensitivityReport, sensitivity_exporters};
use crate::scenario::{Edit, Resolved, Scenario};
use crate::stats::{mcnemar, paired_difference, unpaired_difference};
use crate::tables::as_read;
use crate::tables::cells::Cell;

/// A sensitivity analysis asked of a [`Resolved`] scenario: the event,
/// and which knobs or cells move.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensitivityRequest {
    /// The event: `SUBJECT/METRIC=VALUE[|VALUE...]`.
    pub target: String,
    /// Only these knobs (sweep paths); every knob when empty.
    #[serde(default)]
    pub knobs: Vec<String>,
    /// Move every cell of the scenario's tables (war cards: every cell of
    /// the Combat Card table the battle reads).
    #[serde(default)]
    pub cells: bool,
    /// With `cells`: only these tables (every table the scenario reads when
    /// empty).
    #[serde(default)]
    pub cell_tables: Vec<String>,
    /// Exact differences where the exact method applies: no sampling.
    #[serde(default)]
    pub exact: bool,
    /// The least change that matters, in the target's units as a person
    /// reads them (percentage points for a probability): moves within it
    /// are reported as too small to matter.
    #[serde(default)]
    pub min_effect: Option<f64>,
    /// Battles per move (the scenario's `trials` when absent).
    #[serde(default)]
    pub trials: Option<u64>,
    /// Seed of the streams (the scenario's `seed` when absent).
    #[serde(default)]
    pub seed: Option<u64>,
}

/// What a sensitivity analysis found and wrote.
#[derive(Debug)]
pub struct SensitivityAnswer {
    /// The ranked moves, the refused ones and the provenance.
    pub report: SensitivityReport,
    /// Where it was written.
    pub written: Written,
}

/// One move of one knob, loaded and validated.
#[derive(Clone)]
struct Variant {
    knob: String,
    lowers: bool,
    cell: Option<Cell>,
    from: String,
    to: String,
    scenario: Scenario,
}

impl Variant {
    /// The move, nothing measured yet.
    fn unmeasured(&self) -> Move {
        Move {
            knob: self.knob.clone(),
            lowers: self.lowers,
            cell: self.cell.clone(),
            from: self.from.clone(),
            to: self.to.clone(),
            base_estimate: 0.0,
            estimate: 0.0,
            difference: crate::stats::DifferenceInterval {
                difference: 0.0,
                low: 0.0,
                high: 0.0,
            },
            unpaired: None,
            paired: None,
            differs: false,
            method: Method::Exact,
        }
    }
}

/// A sensitivity analysis ready to fight: its request, target, base and
/// moves, and the moves refused. Prepared once, whether a server first
/// counts its scenarios against its cap or the command fights at once.
pub struct Prepared {
    request: SensitivityRequest,
    target: Target,
    base: Scenario,
    variants: Vec<Variant>,
    refused: Vec<Refused>,
}

impl Prepared {
    /// How many scenarios it fights (the base and each move), each for
    /// its `trials`: what a server's cap is shared among.
    pub fn scenarios_fought(&self) -> u64 {
        self.variants.len() as u64 + 1
    }

    /// Fights `trials` battles a scenario instead (the scenario's own
    /// number when `None`, as the request asked).
    pub fn set_trials(&mut self, trials: Option<u64>) -> Result<()> {
        let Some(n) = trials else { return Ok(()) };
        override_settings(&mut self.base, Some(n), None)?;
        for v in &mut self.variants {
            override_settings(&mut v.scenario, Some(n), None)?;
        }
        self.request.trials = Some(n);
        Ok(())
    }
}

/// The base scenario and every move, each checked.
pub fn prepare(resolved: &Resolved, request: &SensitivityRequest) -> Result<Prepared> {
    let target = Target::parse(&request.target)?;
    if let Some(amount) = request.min_effect
        && !(amount.is_finite() && amount > 0.0)
    {
        anyhow::bail!(
            "`min_effect` = {amount} is out of range; allowed: a number above 0 ({} for this target)",
            target.quantity().change_words()
        );
    }
    let mut base = resolved.scenario.clone();
    override_settings(&mut base, request.trials, request.seed)?;
    if target.is_mean() {
        target.mean_metric(&metric_layout(&base))?;
    } else {
        target.event(&metric_layout(&base))?;
    }
    if request.exact {
        exact_metrics(&base)?;
    }
    let doc = resolved.document()?;
    let mut all = knobs(&doc, &setting_words(resolved, &doc, &base)?);
    // A battle whose cells no table path names moves them itself.
    let own_cells = base.battle.own_cell_moves().transpose()?;
    // Cells named with --knobs, in any table the scenario reads.
    if own_cells.is_none() && request.knobs.iter().any(|k| k.starts_with("tables.")) {
        let every_table = SensitivityRequest {
            cell_tables: Vec::new(),
            ..request.clone()
        };
        all.extend(table_cell_knobs(resolved, &every_table, &doc, &base)?);
    }
    let mut chosen = chosen_knobs(all, &request.knobs, request.cells)?;
    if request.cells && own_cells.is_none() {
        chosen.extend(table_cell_knobs(resolved, request, &doc, &base)?);
    }
    let (mut variants, refused) = moves(resolved, request, &chosen)?;
    if let (true, Some(cells)) = (request.cells, own_cells) {
        variants.extend(cells.into_iter().map(|m| Variant {
            knob: m.knob,
            lowers: m.lowers,
            cell: Some(m.cell),
            from: m.from,
            to: m.to,
            scenario: Scenario {
                battle: m.battle,
                ..base.clone()
            },
        }));
    }
    if variants.is_empty() {
        bail!(
            "no knob could be moved: {}",
            refused
                .iter()
                .map(|r| format!("{} -> {}: {}", r.knob, r.to, r.reason))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    Ok(Prepared {
        request: request.clone(),
        target,
        base,
        variants,
        refused,
    })
}

/// Runs the base scenario and every move, prepared from `resolved`, and
/// writes the report.
pub fn sensitivity(
    resolved: &Resolved,
    prepared: Prepared,
    plan: &Plan,
    to: &Destination,
) -> Result<SensitivityAnswer> {
    let Prepared {
        request,
        target,
        base,
        variants,
        refused,
    } = prepared;
    let request = &request;
    let out = to.out.clone().unwrap_or_else(|| {
        let mut asked = vec![request.target.clone()];
        asked.extend(request.knobs.iter().cloned());
        if request.cells {
            asked.push("cells".to_owned());
        }
        question_out_dir(resolved.path(), "sensitivity", &asked)
    });
    let staging = Staging::new(&out, to.force)?;
    let (mut found, info_threads, elapsed, trials) = if request.exact {
        exact_moves(&target, &base, &variants, plan)?
    } else {
        sampled_moves(&target, &base, &variants, plan)?
    };
    rank(&mut found);
    judge(&mut found);
    let mut info = run_info(
        &base,
        reproduce_command(resolved, request, (&base, trials.is_some()), (&out, to)),
        info_threads,
        std::time::Duration::from_secs_f64(elapsed),
    );
    info.trials = trials;
    if trials.is_none() {
        info.seed = None;
        info.chunk_size = None;
        info.stream_layout = None;
    }
    let report = SensitivityReport {
        info,
        target: target.text(),
        quantity: target.quantity(),
        moves: found,
        refused,
        min_effect: request.min_effect,
        formats: to.formats,
    };
    let mut files = Vec::new();
    for exporter in sensitivity_exporters() {
        files.extend(exporter.write(&report, staging.path())?);
    }
    let folder = staging.commit()?;
    Ok(SensitivityAnswer {
        report,
        written: Written { folder, files },
    })
}

/// Every move fought with the base on the same battles: each difference
/// from the pairs (Newcombe's paired interval for an event, Student's t
/// on the battles' differences for a mean). Returns the moves, the
/// threads, the seconds spent and the battles per variant.
fn sampled_moves(
    target: &Target,
    base: &Scenario,
    variants: &[Variant],
    plan: &Plan,
) -> Result<(Vec<Move>, usize, f64, Option<u64>)> {
    let all: Vec<&Scenario> = std::iter::once(base)
        .chain(variants.iter().map(|v| &v.scenario))
        .collect();
    if target.is_mean() {
        return sampled_means(target, &all, variants, plan);
    }
    let events = all
        .iter()
        .map(|s| target.event(&metric_layout(s)).map(|e| vec![e]))
        .collect::<Result<Vec<Vec<Event>>>>()?;
    let done = simulate_paired(&all, PairedAsk::events(events.clone()), plan, None)
        .map_err(nothing_written)?;
    let count = |v: usize| done.event_count(v, &events[v][0]);
    let n = done.trials;
    let base_count = count(0);
    let found = variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let x = count(i + 1);
            let both = done.both[i + 1][0];
            let (only_base, only_moved) = (base_count - both, x - both);
            Move {
                base_estimate: base_count as f64 / n as f64,
                estimate: x as f64 / n as f64,
                difference: paired_difference(n, base_count, x, both),
                unpaired: Some(unpaired_difference(base_count, n, x, n)),
                paired: Some(PairedTest {
                    changed: only_base + only_moved,
                    p_value: mcnemar(only_base, only_moved).1,
                }),
                method: Method::PairedNewcombe,
                ..v.unmeasured()
            }
        })
        .collect();
    Ok((found, done.threads, done.elapsed.as_secs_f64(), Some(n)))
}

/// [`sampled_moves`] of a mean target: each move's battles paired with
/// the base's, value by value.
fn sampled_means(
    target: &Target,
    all: &[&Scenario],
    variants: &[Variant],
    plan: &Plan,
) -> Result<(Vec<Move>, usize, f64, Option<u64>)> {
    let means = all
        .iter()
        .map(|s| target.mean_metric(&metric_layout(s)).map(|m| vec![m]))
        .collect::<Result<Vec<Vec<usize>>>>()?;
    let ask = PairedAsk {
        events: vec![Vec::new(); all.len()],
        means: means.clone(),
    };
    let done = simulate_paired(all, ask, plan, None).map_err(nothing_written)?;
    let no_value = "the target's outcome has no value in any battle";
    let mean_of = |v: usize| done.metrics[v][means[v][0]].summary().context(no_value);
    let base = mean_of(0)?;
    let n = done.trials;
    let found = variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let moved = mean_of(i + 1)?;
            let sums = &done.mean_sums[i + 1][0];
            let paired = sums
                .means()
                .context("fewer than two battles to pair; raise --trials")?;
            // What two independent runs would have given: Welch's interval.
            let (difference, low, high) = crate::stats::compare::welch(
                &done.metrics[0][means[0][0]],
                &done.metrics[i + 1][means[i + 1][0]],
            )
            .difference;
            Ok(Move {
                base_estimate: base.mean,
                estimate: moved.mean,
                difference: paired.difference,
                unpaired: Some(crate::stats::DifferenceInterval {
                    difference,
                    low,
                    high,
                }),
                paired: Some(PairedTest {
                    changed: sums.changed,
                    p_value: paired.p_value,
                }),
                method: Method::PairedT,
                ..v.unmeasured()
            })
        })
        .collect::<Result<Vec<Move>>>()?;
    Ok((found, done.threads, done.elapsed.as_secs_f64(), Some(n)))
}

/// What a question about a scenario can move: every setting it sets
/// (as `sensitivity` moves them) and every cell of every table it reads
/// (none for war cards, whose deck cells move as card results), and its
/// outcomes, as `--target` names them; for the workbench's pickers.
pub struct Choices {
    /// The battle's system (`gurps`), whose words the outcomes take.
    pub system: &'static str,
    /// The settings, by their `--set` paths.
    pub settings: Vec<Knob>,
    /// The table cells, by their `--set` paths (`tables.survival.rows.D.column`).
    pub cells: Vec<Knob>,
    /// Each metric's subject, name and values (for a number: its lowest
    /// and highest value seen possible).
    pub outcomes: Vec<Outcome>,
}

/// One metric a target can name.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Outcome {
    /// `side:Megalos`, `party`, `hero:Titus`, `battle`.
    pub subject: String,
    /// `victory`, `any_down_or_dead`, `reputation`.
    pub metric: String,
    /// Its values, in the report's order (for a number: from its lowest
    /// to its highest).
    pub values: Vec<String>,
    /// Whether the values are numbers (thresholds `>=` apply).
    pub numeric: bool,
}

/// The [`Choices`] of a scenario.
pub fn choices(resolved: &Resolved) -> Result<Choices> {
    let request = SensitivityRequest {
        target: String::new(),
        knobs: Vec::new(),
        cells: true,
        cell_tables: Vec::new(),
        exact: false,
        min_effect: None,
        trials: None,
        seed: None,
    };
    let base = &resolved.scenario;
    let doc = resolved.document()?;
    let settings = knobs(&doc, &setting_words(resolved, &doc, base)?);
    let cells = if base.battle.own_cell_moves().is_some() {
        Vec::new()
    } else {
        table_cell_knobs(resolved, &request, &doc, base)?
    };
    let outcomes = metric_layout(base)
        .iter()
        .map(|m| {
            let (values, numeric) = match &m.values {
                crate::stats::Values::Categories(labels) => (labels.clone(), false),
                crate::stats::Values::Integers { first } => (
                    (0..m.weights.len() as i64)
                        .map(|i| (first + i).to_string())
                        .collect(),
                    true,
                ),
            };
            Outcome {
                subject: m.subject.clone(),
                metric: m.name.clone(),
                values,
                numeric,
            }
        })
        .collect();
    Ok(Choices {
        system: base.battle.system(),
        settings,
        cells,
        outcomes,
    })
}

/// Every cell of the tables the scenario reads (or those `--tables`
/// names), as knobs: `tables.survival.rows.D.column`. Each table is read as
/// the scenario reads it: its file, the built-in table, with any cells the
/// scenario sets.
fn table_cell_knobs(
    resolved: &Resolved,
    request: &SensitivityRequest,
    doc: &toml::Table,
    base: &Scenario,
) -> Result<Vec<Knob>> {
    let read: Vec<&str> = base
        .battle
        .tables()
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    for name in &request.cell_tables {
        if !read.contains(&name.as_str()) {
            bail!(
                "--tables {name}: this scenario reads no such table; allowed: {}",
                read.join(", ")
            );
        }
    }
    let mut found = Vec::new();
    for name in read {
        if !request.cell_tables.is_empty() && !request.cell_tables.iter().any(|t| t == name) {
            continue;
        }
        // A word with no order of its own moves to the words the table's
        // schema allows there.
        let schema = crate::scenario::schema::find(name)?.schema();
        let words = Words {
            at: crate::scenario::schema::word_places(&schema),
            by_key: Vec::new(),
        };
        found.extend(table_cells(
            name,
            &as_read(doc, resolved.files(), &resolved.tables, name)?,
            &words,
        ));
    }
    Ok(found)
}

/// What each word and list of words of the scenario may hold, as data:
/// the words its system's schema allows, or for a list a table names
/// ([`crate::systems::BattleSystem::WORDS_FROM_TABLES`]), that table's
/// entries as the scenario reads it.
fn setting_words(resolved: &Resolved, doc: &toml::Table, base: &Scenario) -> Result<Words> {
    let schema = crate::scenario::schema::find(base.battle.system())?.schema();
    let at = crate::scenario::schema::word_places(&schema);
    let mut by_key = Vec::new();
    for &(key, table, section) in base.battle.words_from_tables() {
        if base.battle.tables().iter().any(|t| t.name == table) {
            let read = as_read(doc, resolved.files(), &resolved.tables, table)?;
            let entries: Vec<String> = read
                .get(section)
                .and_then(toml::Value::as_table)
                .map(|s| s.keys().cloned().collect())
                .unwrap_or_default();
            by_key.push((key.to_owned(), entries));
        }
    }
    Ok(Words { at, by_key })
}

/// Every move that validates, and those refused with the reason.
fn moves(
    resolved: &Resolved,
    request: &SensitivityRequest,
    chosen: &[Knob],
) -> Result<(Vec<Variant>, Vec<Refused>)> {
    let mut variants = Vec::new();
    let mut refused = Vec::new();
    for knob in chosen {
        for to in knob.moves() {
            let lowers = knob.lowers(&to);
            let option = format!("{} = {}", knob.name(), shown(&to));
            let edit = Edit::set(option, knob.path.clone(), to.clone());
            match resolved.edited(vec![edit]) {
                Ok(mut s) => {
                    override_settings(&mut s, request.trials, request.seed)?;
                    variants.push(Variant {
                        knob: knob.name(),
                        lowers,
                        cell: knob.cell.clone(),
                        from: shown(&knob.value),
                        to: shown(&to),
                        scenario: s,
                    });
                }
                Err(e) => refused.push(Refused {
                    knob: knob.name(),
                    to: shown(&to),
                    reason: format!("{e:#}"),
                }),
            }
        }
    }
    Ok((variants, refused))
}

/// Exact differences for every move the system's exact method reaches (the
/// base must be in reach); a move that leaves its reach (one day to two) is
/// fought paired with the base instead, and its row says so. Returns the
/// moves and, when any was simulated, the threads, seconds and battles.
fn exact_moves(
    target: &Target,
    base: &Scenario,
    variants: &[Variant],
    plan: &Plan,
) -> Result<(Vec<Move>, usize, f64, Option<u64>)> {
    let base_p = target.exact_estimate(&exact_metrics(base)?)?;
    let mut found: Vec<Option<Move>> = Vec::with_capacity(variants.len());
    let mut beyond = Vec::new();
    for v in variants {
        let Ok(metrics) = exact_metrics(&v.scenario) else {
            found.push(None);
            beyond.push(v.clone());
            continue;
        };
        let p = target.exact_estimate(&metrics)?;
        let d = p - base_p;
        found.push(Some(Move {
            base_estimate: base_p,
            estimate: p,
            difference: crate::stats::DifferenceInterval {
                difference: d,
                low: d,
                high: d,
            },
            method: Method::Exact,
            ..v.unmeasured()
        }));
    }
    if beyond.is_empty() {
        return Ok((found.into_iter().flatten().collect(), 1, 0.0, None));
    }
    let (sampled, threads, elapsed, trials) = sampled_moves(target, base, &beyond, plan)?;
    let mut sampled = sampled.into_iter();
    let all = found
        .into_iter()
        .map(|m| {
            m.or_else(|| sampled.next())
                .expect("one sampled move per gap")
        })
        .collect();
    Ok((all, threads, elapsed, trials))
}

/// The command that reproduces the analysis into the same folder and
/// formats; `sampled` when any move was simulated (so the battles and seed
/// matter).
fn reproduce_command(
    resolved: &Resolved,
    request: &SensitivityRequest,
    (base, sampled): (&Scenario, bool),
    (out, to): (&Path, &Destination),
) -> String {
    let line = CommandLine::new("sensitivity")
        .path(resolved.path())
        .option("target", &request.target);
    let line = if request.knobs.is_empty() {
        line
    } else {
        line.option("knobs", request.knobs.join(","))
    };
    let line = line.flag("cells", request.cells);
    let line = if request.cell_tables.is_empty() {
        line
    } else {
        line.option("tables", request.cell_tables.join(","))
    };
    let line = line.flag("exact", request.exact);
    let line = match request.min_effect {
        Some(amount) => line.option("min-effect", amount),
        None => line,
    };
    let line = if sampled {
        line.option("trials", base.trials).option("seed", base.seed)
    } else {
        line
    };
    line.options("table", resolved.table_options())
        .written_to(to.named(out, crate::engine::Shard::WHOLE), &to.formats)
        .naming_inputs(to.inputs.as_deref())
        .into()
}

//! A sensitivity analysis: every knob of a scenario moved one step down
//! and one step up, all fought battle by battle on the same streams, and
//! ranked by how far each move shifts the target's probability.

use anyhow::{Result, bail};

use super::Destination;
use std::path::Path;

use crate::analysis::runner::{
    PairedAsk, Plan, Written, exact_metrics, nothing_written, run_info, simulate_paired,
};
use crate::questions::sensitivity::measure::{self, EventCounts, MeanCounts};
use crate::questions::sensitivity::plan::{Plan as MovePlan, SensitivityRequest, plan};
use crate::questions::sensitivity::{Knob, Move, Refused, judge, rank};
use crate::questions::target::Target;
use crate::report::kit::command_line::CommandLine;
use crate::report::kit::folder_names::question_out_dir;
use crate::report::kit::output_dir::Staging;
use crate::report::writers::sensitivity::{SensitivityReport, sensitivity_exporters};
use crate::scenario::{Edit, Resolved, Scenario};

/// What a sensitivity analysis found and wrote.
#[derive(Debug)]
pub struct SensitivityAnswer {
    /// The ranked moves, the refused ones and the provenance.
    pub report: SensitivityReport,
    /// Where it was written.
    pub written: Written,
}

/// One move made: its row, nothing measured yet, and the scenario moved.
#[derive(Clone)]
struct Variant {
    row: Move,
    scenario: Scenario,
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
        self.base.override_settings(Some(n), None)?;
        for v in &mut self.variants {
            v.scenario.override_settings(Some(n), None)?;
        }
        self.request.trials = Some(n);
        Ok(())
    }
}

/// The base scenario and every move, each checked: the scenario's ground
/// read once, the moves planned on it, then each move made.
pub fn prepare(resolved: &Resolved, request: &SensitivityRequest) -> Result<Prepared> {
    let ground = resolved.ground(request.trials, request.seed)?;
    let MovePlan { target, moves } = plan(request, &ground.metrics, &ground.movable)?;
    let base = ground.base;
    if request.exact {
        exact_metrics(&base)?;
    }
    let mut variants = Vec::new();
    let mut refused = Vec::new();
    for planned in moves {
        let edit = Edit::set(planned.option, planned.path, planned.value);
        match resolved.edited(vec![edit]) {
            Ok(mut scenario) => {
                scenario.override_settings(request.trials, request.seed)?;
                variants.push(Variant {
                    row: planned.row,
                    scenario,
                });
            }
            Err(e) => refused.push(Refused {
                knob: planned.row.knob,
                to: planned.row.to,
                reason: format!("{e:#}"),
            }),
        }
    }
    // A battle whose cells no table path names moves them itself.
    if let (true, Some(cells)) = (request.cells, ground.own_cells) {
        variants.extend(cells.into_iter().map(|m| Variant {
            row: Move::unmeasured(m.knob, m.lowers, Some(m.cell), m.from, m.to),
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
    let (path, table_options) = (resolved.path(), resolved.table_options());
    let out = to.out.clone().unwrap_or_else(|| {
        let mut asked = vec![request.target.clone()];
        asked.extend(request.knobs.iter().cloned());
        if request.cells {
            asked.push("cells".to_owned());
        }
        question_out_dir(path, "sensitivity", &asked)
    });
    let staging = Staging::new(&out, to.force)?;
    // The base's provenance; its threads, time and battles once fought.
    let mut info = run_info(&base, String::new(), 1, std::time::Duration::ZERO);
    let fought = if request.exact {
        exact_moves(&target, &base, &variants, plan)?
    } else {
        sampled_moves(&target, &base, &variants, plan)?
    };
    let mut found = fought.moves;
    rank(&mut found);
    judge(&mut found);
    let (target, quantity) = (target.text(), target.quantity());
    info.command = reproduce_command(
        (path, table_options),
        request,
        (&base, fought.trials.is_some()),
        (&out, to),
    );
    info.threads = Some(fought.threads);
    info.elapsed_seconds = Some(fought.seconds);
    info.trials = fought.trials;
    if fought.trials.is_none() {
        info.seed = None;
        info.chunk_size = None;
        info.stream_layout = None;
    }
    let report = SensitivityReport {
        info,
        target,
        quantity,
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

/// The moves measured, and how: the threads, the seconds spent and the
/// battles a scenario (none when every move was exact).
struct Fought {
    moves: Vec<Move>,
    threads: usize,
    seconds: f64,
    trials: Option<u64>,
}

/// Every move fought with the base on the same battles: each difference
/// from the pairs (Newcombe's paired interval for an event, Student's t
/// on the battles' differences for a mean).
fn sampled_moves(
    target: &Target,
    base: &Scenario,
    variants: &[Variant],
    plan: &Plan,
) -> Result<Fought> {
    let all: Vec<&Scenario> = std::iter::once(base)
        .chain(variants.iter().map(|v| &v.scenario))
        .collect();
    let ask = PairedAsk::of_target(target, &all)?;
    let (events, means) = (ask.events.clone(), ask.means.clone());
    let done = simulate_paired(&all, ask, plan, None).map_err(nothing_written)?;
    let rows = variants.iter().map(|v| v.row.clone()).collect();
    // A mean's target asks for its metric, an event's for its event.
    let moves = if !means[0].is_empty() {
        let metric = |v: usize| &done.metrics[v][means[v][0]];
        let counts = MeanCounts {
            base: metric(0),
            moved: (1..all.len())
                .map(|v| (metric(v), &done.mean_sums[v][0]))
                .collect(),
        };
        measure::by_mean(rows, &counts)?
    } else {
        let counts = EventCounts {
            battles: done.trials,
            base: done.event_count(0, &events[0][0]),
            moved: (1..all.len())
                .map(|v| (done.event_count(v, &events[v][0]), done.both[v][0]))
                .collect(),
        };
        measure::by_event(rows, &counts)
    };
    Ok(Fought {
        moves,
        threads: done.threads,
        seconds: done.elapsed.as_secs_f64(),
        trials: Some(done.trials),
    })
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
    let ground = resolved.ground(None, None)?;
    let settings = ground.movable.settings();
    let cells = if ground.movable.own_cells {
        Vec::new()
    } else {
        ground.movable.cells(&[])?
    };
    let outcomes = ground
        .metrics
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
        system: ground.base.battle.system(),
        settings,
        cells,
        outcomes,
    })
}

/// Exact differences for every move the system's exact method reaches (the
/// base must be in reach); a move that leaves its reach (one day to two) is
/// fought paired with the base instead, and its row says so.
fn exact_moves(
    target: &Target,
    base: &Scenario,
    variants: &[Variant],
    plan: &Plan,
) -> Result<Fought> {
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
        found.push(Some(measure::exactly(v.row.clone(), base_p, p)));
    }
    if beyond.is_empty() {
        return Ok(Fought {
            moves: found.into_iter().flatten().collect(),
            threads: 1,
            seconds: 0.0,
            trials: None,
        });
    }
    let sampled = sampled_moves(target, base, &beyond, plan)?;
    let mut measured = sampled.moves.into_iter();
    let moves = found
        .into_iter()
        .map(|m| {
            m.or_else(|| measured.next())
                .expect("one sampled move per gap")
        })
        .collect();
    Ok(Fought { moves, ..sampled })
}

/// The command that reproduces the analysis into the same folder and
/// formats; `sampled` when any move was simulated (so the battles and seed
/// matter).
fn reproduce_command(
    (path, table_options): (&Path, &[String]),
    request: &SensitivityRequest,
    (base, sampled): (&Scenario, bool),
    (out, to): (&Path, &Destination),
) -> String {
    let line = CommandLine::new("sensitivity")
        .path(path)
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
    line.options("table", table_options)
        .written_to(to.named(out, crate::engine::Shard::WHOLE), &to.formats)
        .naming_inputs(to.inputs.as_deref())
        .into()
}

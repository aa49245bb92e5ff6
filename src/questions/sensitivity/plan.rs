//! A sensitivity's terms and its plan: the request as asked, what a
//! scenario lets it move (read from the scenario once, handed here as
//! data), and the moves it will fight, each a knob and the value it goes to.

use anyhow::{Result, bail};
use serde::Deserialize;
use toml::Value;

use super::{Knob, Move, Words, chosen_knobs, knobs, shown, table_cells};
use crate::questions::target::Target;
use crate::stats::Metric;

/// A sensitivity analysis asked of a scenario: the event, and which knobs
/// or cells move.
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

/// What a scenario lets a question move, read from it once: its settings
/// as the file writes them with the words each may hold, and every table
/// it reads, as it reads it.
#[derive(Debug, Clone)]
pub struct Movable {
    /// The scenario file as a TOML document (before any table option).
    pub document: toml::Table,
    /// What each word setting, or list of words, may hold.
    pub words: Words,
    /// Each table the battle reads, in the battle's order.
    pub tables: Vec<ReadTable>,
    /// Whether the battle moves cells no table path names itself (the war
    /// cards' deck): its table cells are then no knobs here.
    pub own_cells: bool,
}

/// A table as the scenario reads it (its file or the built-in table, with
/// the cells the scenario sets), and the words its cells may hold.
#[derive(Debug, Clone)]
pub struct ReadTable {
    /// The table's name (`survival`).
    pub name: String,
    /// Its entries as read.
    pub table: toml::Table,
    /// The words its schema allows where a word has no order of its own.
    pub words: Words,
}

impl Movable {
    /// Every setting the scenario sets, as knobs.
    pub fn settings(&self) -> Vec<Knob> {
        knobs(&self.document, &self.words)
    }

    /// Every cell of the tables `named` (`--tables`; every table read when
    /// empty), as knobs: `tables.survival.rows.D.column`. A table the
    /// scenario does not read is refused, naming those it reads.
    pub fn cells(&self, named: &[String]) -> Result<Vec<Knob>> {
        for name in named {
            if !self.tables.iter().any(|t| t.name == *name) {
                let read: Vec<&str> = self.tables.iter().map(|t| t.name.as_str()).collect();
                bail!(
                    "--tables {name}: this scenario reads no such table; allowed: {}",
                    read.join(", ")
                );
            }
        }
        Ok(self
            .tables
            .iter()
            .filter(|t| named.is_empty() || named.contains(&t.name))
            .flat_map(|t| table_cells(&t.name, &t.table, &t.words))
            .collect())
    }
}

/// What a sensitivity will fight: its target, checked against the base's
/// metrics, and every move of the knobs it chose.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The target, parsed.
    pub target: Target,
    /// Each move, in knob order, a step down before a step up.
    pub moves: Vec<Planned>,
}

/// One move planned: the knob's path, the value it moves to, and its row.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The knob's sweep path.
    pub path: Vec<String>,
    /// The value it moves to.
    pub value: Value,
    /// The move as a refusal names it: `heroes.Titus.risk = 7`.
    pub option: String,
    /// Its row, nothing measured yet.
    pub row: Move,
}

/// Plans `request` on a scenario whose base fights with `metrics` and
/// which lets it move `movable`: the target parsed and found among the
/// metrics, `min_effect` checked, the knobs chosen (`--knobs`, `--cells`,
/// `--tables`) and each moved one step each way.
pub fn plan(
    request: &SensitivityRequest,
    metrics: &[Metric<u64>],
    movable: &Movable,
) -> Result<Plan> {
    let target = Target::parse(&request.target)?;
    if let Some(amount) = request.min_effect
        && !(amount.is_finite() && amount > 0.0)
    {
        bail!(
            "`min_effect` = {amount} is out of range; allowed: a number above 0 ({} for this target)",
            target.quantity().change_words()
        );
    }
    if target.is_mean() {
        target.mean_metric(metrics)?;
    } else {
        target.event(metrics)?;
    }
    let mut all = movable.settings();
    // Cells named with --knobs, in any table the scenario reads.
    if !movable.own_cells && request.knobs.iter().any(|k| k.starts_with("tables.")) {
        all.extend(movable.cells(&[])?);
    }
    let mut chosen = chosen_knobs(all, &request.knobs, request.cells)?;
    if request.cells && !movable.own_cells {
        chosen.extend(movable.cells(&request.cell_tables)?);
    }
    let moves = chosen
        .iter()
        .flat_map(|knob| {
            knob.moves().into_iter().map(|to| Planned {
                path: knob.path.clone(),
                option: format!("{} = {}", knob.name(), shown(&to)),
                row: Move::unmeasured(
                    knob.name(),
                    knob.lowers(&to),
                    knob.cell.clone(),
                    shown(&knob.value),
                    shown(&to),
                ),
                value: to,
            })
        })
        .collect();
    Ok(Plan { target, moves })
}

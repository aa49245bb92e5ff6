//! A tune's terms checked and planned, before any battle, on what each
//! battle tuned was read for once ([`BattleGround`]): the goals and the
//! battles each holds, what may change and how, the orders kept, and the
//! search's battles and margin.

use anyhow::{Result, bail};
use serde::Deserialize;
use toml::Value;

use super::moves::{Dimension, Moves, changes, same, shown, vary_words};
use super::{Goal, contradiction};
use crate::questions::sensitivity::Knob;
use crate::questions::sweep::{Setting, parse_setting};
use crate::questions::target::with_combined;
use crate::stats::{Metric, z_for_confidence};
use crate::tables::RestsOn;
use crate::tables::orders::Order;

/// Battles each candidate of the search fights, unless the request says.
pub const DEFAULT_SEARCH_TRIALS: u64 = 20_000;

/// Most steps of the search, unless the request says.
pub const DEFAULT_MAX_STEPS: usize = 40;

/// The family-wise confidence of the verdicts.
pub const CONFIDENCE: f64 = 0.95;

/// A tune asked: the goals, what may change, and how hard to look.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneRequest {
    /// The goals: `TARGET in LO..HI`, `TARGET <= X` or `TARGET >= X`, with
    /// `@STEM` after it for one scenario of several.
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
    /// Let the search break the orders the tables declare (kept by default).
    #[serde(default)]
    pub allow_disorder: bool,
    /// Refuse to search on sampled battles: every battle tuned must have
    /// exact odds (where they all do, the search takes them anyway).
    #[serde(default)]
    pub exact: bool,
    /// The least change in a goal's outcome that matters (percentage
    /// points for a probability, a mean's own units): an effect smaller
    /// is too small to matter, and never counts as a pull.
    #[serde(default)]
    pub min_effect: Option<f64>,
    /// The most battles the verifying run sizes itself to (a server's cap;
    /// set by the caller).
    #[serde(skip)]
    pub max_verify_trials: Option<u64>,
}

/// The seed the verifying run takes when none is given: the search's,
/// moved by a fixed odd constant, so the two never share battles.
pub fn verify_seed_of(search_seed: u64) -> u64 {
    search_seed.wrapping_add(0x9E37_79B9_7F4A_7C15)
}

/// One battle tuned, as the plan reads it: what the scenario room read of
/// it once.
pub struct BattleGround {
    /// Its name: the file's stem, which goals write after `@`.
    pub name: String,
    /// Its file, as the user gave it.
    pub path: String,
    /// Its system.
    pub system: &'static str,
    /// Which systems have exact odds, in words (for a refusal of `--exact`).
    pub exact_odds: String,
    /// Its metrics, as its battles count them.
    pub metrics: Vec<Metric<u64>>,
    /// Its settings, as knobs.
    pub settings: Vec<Knob>,
    /// The cells of the tables it reads, as knobs (none where the battle
    /// moves its cells itself).
    pub cells: Vec<Knob>,
    /// The tables each of its metrics rests on.
    pub rests_on: Vec<RestsOn>,
    /// The text of each table it reads, as it reads it: `(name, text)`.
    pub tables: Vec<(String, String)>,
    /// Whether it has exact odds as written (each candidate then has them
    /// too: a table's cells or a setting's value never decide whether a
    /// system's exact method applies).
    pub exact: bool,
    /// The seed its file gives.
    pub seed: u64,
}

impl BattleGround {
    /// The text of table `name` as this battle reads it, if it reads it.
    pub fn table_text(&self, name: &str) -> Option<&str> {
        (self.tables.iter())
            .find(|(n, _)| n == name)
            .map(|(_, text)| text.as_str())
    }
}

/// A goal as one scenario is held to it.
#[derive(Debug, Clone)]
pub struct Held {
    pub goal: usize,
    pub battle: usize,
    /// As the files write it: the goal, with `@STEM` where several
    /// scenarios are tuned and the goal names none.
    pub label: String,
}

/// A declared order of a moved table, as the tune keeps it.
#[derive(Debug, Clone)]
pub struct Kept {
    /// The table's name.
    pub table: String,
    /// The table's text as the battles read it.
    pub text: String,
    pub order: Order,
}

/// A tune planned: everything the search, the verification and the
/// verdicts read, checked.
pub struct TunePlan {
    pub goals: Vec<Goal>,
    /// Each goal as each battle is held to it.
    pub held: Vec<Held>,
    /// Each battle's name.
    pub names: Vec<String>,
    /// The system of the battles (the tables tuned are shared, so every
    /// battle is of one system).
    pub system: &'static str,
    /// What may change.
    pub dimensions: Vec<Dimension>,
    /// Each dimension's value in the battles as written.
    pub start: Vec<Value>,
    pub max_changes: usize,
    pub max_steps: usize,
    /// Battles each candidate fights in the search, and their seed.
    pub search_trials: u64,
    pub search_seed: u64,
    /// The seed of the verifying run.
    pub verify_seed: u64,
    /// The normal quantile of the verdicts' family-wise intervals.
    pub z: f64,
    /// The verifying run's expected interval half-width per unit of one
    /// battle's spread: each goal's margin inside its band is this times
    /// the spread the search measures.
    pub margin: f64,
    /// The declared orders a candidate must keep: each moved table's that
    /// hold as written (none with `--allow-disorder`).
    pub orders: Vec<Kept>,
    /// Per battle, whether it has exact odds.
    pub exact: Vec<bool>,
}

impl TunePlan {
    /// Whether every battle tuned has exact odds: the search then scores
    /// every candidate by them.
    pub fn exact_everywhere(&self) -> bool {
        self.exact.iter().all(|&e| e)
    }
}

/// Checks `request` against the `battles` tuned and plans it, as the
/// module says; every refusal is said here, before any battle.
pub fn plan(request: &TuneRequest, battles: &[BattleGround]) -> Result<TunePlan> {
    if battles.is_empty() {
        bail!("tune needs a scenario file");
    }
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
    // Goals and files name a scenario by its file's stem.
    for (b, battle) in battles.iter().enumerate() {
        if let Some(twin) = battles[..b].iter().find(|t| t.name == battle.name) {
            bail!(
                "{} and {}: two scenarios named {}; goals name a scenario by its file's stem, so give one another name",
                twin.path,
                battle.path,
                battle.name
            );
        }
    }
    let dimensions = dimensions(
        (&request.vary, &request.cell_tables, &request.freeze),
        battles,
    )?;
    let max_changes = request.max_changes.unwrap_or(dimensions.len());
    if max_changes == 0 {
        bail!("--max-changes 0 allows no change; allowed: 1 or more");
    }
    if let Some(amount) = request.min_effect
        && !(amount.is_finite() && amount > 0.0)
    {
        bail!(
            "`min_effect` = {amount} is out of range; allowed: a number above 0 (percentage points for a probability, the outcome's own units for a mean)"
        );
    }
    let max_steps = request.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
    if max_steps == 0 {
        bail!("--max-steps 0 allows the search no step; allowed: 1 or more");
    }
    let held = held_goals(&goals, battles)?;
    out_of_reach(&goals, &held, battles, &dimensions)?;
    let start: Vec<Value> = dimensions.iter().map(|d| d.value.clone()).collect();
    let search_trials = request.trials.unwrap_or(DEFAULT_SEARCH_TRIALS);
    let search_seed = request.seed.unwrap_or(battles[0].seed);
    // The search aims inside each band by the half-width the verifying
    // run's interval will have, so that what it finds can be judged met.
    let z = z_for_confidence(1.0 - (1.0 - CONFIDENCE) / held.len() as f64);
    let expected_verify = request
        .verify_trials
        .unwrap_or(search_trials.saturating_mul(4));
    let orders = if request.allow_disorder {
        Vec::new()
    } else {
        declared_orders(&dimensions, battles)?
    };
    same_tables_everywhere(&dimensions, &start, battles)?;
    let exact: Vec<bool> = battles.iter().map(|b| b.exact).collect();
    if request.exact && !exact.iter().all(|&e| e) {
        bail!(
            "--exact: {} no exact odds; exact odds: {}. Leave --exact out to search on paired battles",
            if battles.len() == 1 {
                "this battle has".to_owned()
            } else {
                "not every battle tuned has".to_owned()
            },
            battles[0].exact_odds
        );
    }
    let verify_seed = request.verify_seed.unwrap_or(verify_seed_of(search_seed));
    if verify_seed == search_seed {
        bail!(
            "--verify-seed {verify_seed} is the search's seed; the verdicts need battles the search never saw"
        );
    }
    Ok(TunePlan {
        goals,
        held,
        names: battles.iter().map(|b| b.name.clone()).collect(),
        system: battles[0].system,
        dimensions,
        start,
        max_changes,
        max_steps,
        search_trials,
        search_seed,
        verify_seed,
        z,
        margin: z / (expected_verify.max(1) as f64).sqrt(),
        orders,
        exact,
    })
}

/// Each goal as each scenario is held to it: the one it names, or every
/// scenario that has its outcome. A goal no scenario has is refused,
/// before anything is fought.
fn held_goals(goals: &[Goal], battles: &[BattleGround]) -> Result<Vec<Held>> {
    let layouts: Vec<Vec<Metric<u64>>> = (battles.iter())
        .map(|b| with_combined(&b.metrics))
        .collect();
    let names: Vec<&str> = battles.iter().map(|b| b.name.as_str()).collect();
    let mut held = Vec::new();
    for (i, g) in goals.iter().enumerate() {
        let has = |layout: &[Metric<u64>]| {
            if g.target.is_mean() {
                g.target.mean_metric(layout).map(|_| ())
            } else {
                g.target.event(layout).map(|_| ())
            }
        };
        let mut first_error = None;
        for (b, layout) in layouts.iter().enumerate() {
            if g.scenario.as_deref().is_some_and(|n| n != names[b]) {
                continue;
            }
            match has(layout) {
                Ok(()) => held.push(Held {
                    goal: i,
                    battle: b,
                    label: if battles.len() > 1 && g.scenario.is_none() {
                        format!("{} @{}", g.text, names[b])
                    } else {
                        g.text.clone()
                    },
                }),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        if held.iter().any(|h| h.goal == i) {
            continue;
        }
        match (&g.scenario, first_error) {
            (Some(n), _) if !names.contains(&n.as_str()) => bail!(
                "--goal {}: no scenario named {n} is tuned; allowed: {}",
                g.text,
                names.join(", ")
            ),
            (_, Some(e)) if battles.len() == 1 || g.scenario.is_some() => {
                bail!("--goal {}: {e:#}", g.text)
            }
            _ => bail!(
                "--goal {}: none of the scenarios tuned ({}) has this outcome",
                g.text,
                names.join(", ")
            ),
        }
    }
    Ok(held)
}

/// Refuses, before any battle, a goal whose outcome reads none of the
/// tables moved, where only table cells move: no table the search can
/// propose would move it. (A setting may move any outcome; a goal read by
/// no battle's declared account is let through.)
fn out_of_reach(
    goals: &[Goal],
    held: &[Held],
    battles: &[BattleGround],
    dimensions: &[Dimension],
) -> Result<()> {
    let mut moved: Vec<&str> = Vec::new();
    for d in dimensions {
        match d.path.as_slice() {
            [tables, name, _, ..] if tables == "tables" => {
                if !moved.contains(&name.as_str()) {
                    moved.push(name);
                }
            }
            _ => return Ok(()),
        }
    }
    for (i, g) in goals.iter().enumerate() {
        let mut read_by: Option<bool> = None;
        for h in held.iter().filter(|h| h.goal == i) {
            let rests = &battles[h.battle].rests_on;
            if let Some(r) = (rests.iter())
                .find(|r| r.subject == g.target.subject && r.metric == g.target.metric)
            {
                let reads = r.tables.iter().any(|t| moved.contains(&t.as_str()));
                read_by = Some(read_by.unwrap_or(false) || reads);
            } else {
                read_by = Some(true);
            }
        }
        if read_by == Some(false) {
            bail!(
                "--goal {}: its outcome reads none of the tables moved ({}); no table the search could propose moves it. Move a table it reads, or --vary a setting",
                g.text,
                moved.join(", ")
            );
        }
    }
    Ok(())
}

/// The declared orders of every table moved that hold in the battles as
/// written: what every candidate keeps.
fn declared_orders(dimensions: &[Dimension], battles: &[BattleGround]) -> Result<Vec<Kept>> {
    let mut moved: Vec<String> = Vec::new();
    for d in dimensions {
        if let [tables, name, _, ..] = d.path.as_slice()
            && tables == "tables"
            && !moved.contains(name)
        {
            moved.push(name.clone());
        }
    }
    let mut kept = Vec::new();
    for name in moved {
        let Some(text) = battles.iter().find_map(|b| b.table_text(&name)) else {
            continue;
        };
        let doc: toml::Table = toml::from_str(text)?;
        for order in crate::tables::orders::of_text(text) {
            if order.broken_in(&doc).is_none() {
                kept.push(Kept {
                    table: name.clone(),
                    text: text.to_owned(),
                    order,
                });
            }
        }
    }
    Ok(kept)
}

/// The names of the tables a candidate `at` changes cells of.
pub fn tables_changed(dimensions: &[Dimension], start: &[Value], at: &[Value]) -> Vec<String> {
    let mut names: Vec<String> = changes(dimensions, start, at)
        .filter_map(|(d, _)| match d.path.as_slice() {
            [tables, name, _, ..] if tables == "tables" => Some(name.clone()),
            _ => None,
        })
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Refuses scenarios that read different texts of a table whose cells
/// move: one tuned table is written for them all.
fn same_tables_everywhere(
    dimensions: &[Dimension],
    start: &[Value],
    battles: &[BattleGround],
) -> Result<()> {
    if battles.len() < 2 {
        return Ok(());
    }
    let all: Vec<Value> = (dimensions.iter())
        .map(|d| match &d.moves {
            Moves::Range(values) => values.last().cloned().unwrap_or(d.value.clone()),
            Moves::Cell(_) => d.value.clone(),
        })
        .collect();
    let mut touched = tables_changed(dimensions, start, &all);
    for d in dimensions {
        if let [tables, name, _, ..] = d.path.as_slice()
            && tables == "tables"
            && !touched.contains(name)
        {
            touched.push(name.clone());
        }
    }
    for name in touched {
        let mut seen: Option<(usize, &str)> = None;
        for (b, battle) in battles.iter().enumerate() {
            let Some(text) = battle.table_text(&name) else {
                continue;
            };
            match &seen {
                None => seen = Some((b, text)),
                Some((a, first)) if *first != text => bail!(
                    "{} and {} read different {name} tables; a tune writes one {name} table for every scenario, so give them one (--table {name}=FILE) or tune them apart",
                    battles[*a].name,
                    battle.name
                ),
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// What the search may change: each `--vary` range (holding the battles'
/// own value, where the search starts), then every cell of each
/// `--tables` table but the frozen ones. A path some scenarios lack moves
/// in those that have it; where several have it, they must agree on its
/// value.
fn dimensions(
    (vary, cell_tables, freeze): (&[String], &[String], &[String]),
    battles: &[BattleGround],
) -> Result<Vec<Dimension>> {
    // The knob at `path` in each scenario that has it, agreeing in value.
    let found_in = |path: &str, cells_only: bool| -> Result<Option<(Knob, Vec<bool>)>> {
        let mut first: Option<(usize, &Knob)> = None;
        let mut present = vec![false; battles.len()];
        for (b, c) in battles.iter().enumerate() {
            let settings = if cells_only { &[][..] } else { &c.settings[..] };
            let Some(knob) = settings.iter().chain(&c.cells).find(|k| k.name() == path) else {
                continue;
            };
            present[b] = true;
            match first {
                None => first = Some((b, knob)),
                Some((a, k)) if !same(&k.value, &knob.value) => bail!(
                    "{path}: {} has {} and {} has {}; a tune moves one value for every scenario, so tune them apart or give them one table",
                    battles[a].name,
                    shown(&k.value),
                    battles[b].name,
                    shown(&knob.value)
                ),
                Some(_) => {}
            }
        }
        Ok(first.map(|(_, k)| (k.clone(), present)))
    };
    let mut found: Vec<Dimension> = Vec::new();
    for text in vary {
        let setting: Setting =
            parse_setting(text).map_err(|e| anyhow::anyhow!("{}", vary_words(&e)))?;
        let path = setting.path.join(".");
        if found.iter().any(|d| d.path == setting.path) {
            bail!("--vary {path}: the path is varied twice");
        }
        let (knob, present) = found_in(&path, false)
            .map_err(|e| anyhow::anyhow!("--vary {e:#}"))?
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "--vary {path}: not a setting or table cell of {}; `warcrunch sensitivity --cells` lists them",
                    if battles.len() == 1 { "this battle" } else { "any battle tuned" }
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
            present,
        });
    }
    for table in cell_tables {
        let mut paths: Vec<String> = Vec::new();
        for c in battles {
            for k in &c.cells {
                if k.cell.as_ref().is_some_and(|c| c.table == *table) && !paths.contains(&k.name())
                {
                    paths.push(k.name());
                }
            }
        }
        if paths.is_empty() {
            let tables: std::collections::BTreeSet<&str> = (battles.iter())
                .flat_map(|c| &c.cells)
                .filter_map(|k| k.cell.as_ref().map(|c| c.table.as_str()))
                .collect();
            bail!(
                "--tables {table}: no cell of such a table moves in {}; allowed: {}",
                if battles.len() == 1 {
                    "this battle"
                } else {
                    "the battles tuned"
                },
                if tables.is_empty() {
                    "none (name a cell with --vary instead)".to_owned()
                } else {
                    tables.into_iter().collect::<Vec<_>>().join(", ")
                }
            );
        }
        for path in paths {
            let (knob, present) = found_in(&path, true)
                .map_err(|e| anyhow::anyhow!("--tables {table}: {e:#}"))?
                .expect("the cell was found");
            if found.iter().any(|d| d.path == knob.path) {
                continue;
            }
            found.push(Dimension {
                path: knob.path.clone(),
                value: knob.value.clone(),
                moves: Moves::Cell(knob),
                present,
            });
        }
    }
    for frozen in freeze {
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

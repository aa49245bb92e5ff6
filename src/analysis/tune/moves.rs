//! What a tune may change: each setting or cell, where it starts and the
//! values one move away.

use anyhow::{Result, bail};
use toml::Value;

use super::battles::Battle;
use crate::questions::sensitivity::Knob;
use crate::questions::sweep::{Setting, parse_setting};

/// `--set` in a sweep's message is `--vary` here.
pub(super) fn vary_words(e: &anyhow::Error) -> String {
    format!("{e:#}").replacen("--set ", "--vary ", 1)
}

/// How many settings `at` changes from `start`.
pub(super) fn changed(at: &[Value], start: &[Value]) -> usize {
    at.iter().zip(start).filter(|(a, b)| a != b).count()
}

/// A value as the files write it: `12`, `0.5`, `elite`.
pub(super) fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One thing the search may change: its path, its value in the battle as
/// written, and how it moves.
#[derive(Debug, Clone)]
pub(super) struct Dimension {
    pub(super) path: Vec<String>,
    pub(super) value: Value,
    pub(super) moves: Moves,
    /// Whether each scenario tuned has it.
    pub(super) present: Vec<bool>,
}

/// How a [`Dimension`] moves one step.
#[derive(Debug, Clone)]
pub(super) enum Moves {
    /// To the next value of a range, either way (`--vary`).
    Range(Vec<Value>),
    /// As `sensitivity --cells` moves a cell (`--tables`).
    Cell(Knob),
}

impl Dimension {
    /// The values one step from `value`.
    pub(super) fn neighbours(&self, value: &Value) -> Vec<Value> {
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
            Moves::Cell(knob) => Knob {
                value: value.clone(),
                ..knob.clone()
            }
            .moves(),
        }
    }
}

impl Dimension {
    /// How many moves `value` is from `to` (at most [`FAR`]).
    pub(super) fn distance(&self, value: &Value, to: &Value) -> usize {
        let mut level = vec![to.clone()];
        let mut met: std::collections::HashSet<String> = std::iter::once(to.to_string()).collect();
        for depth in 0..FAR {
            if level.iter().any(|v| same(v, value)) {
                return depth;
            }
            let mut next = Vec::new();
            for v in &level {
                for w in self.neighbours(v) {
                    if met.insert(w.to_string()) {
                        next.push(w);
                    }
                }
            }
            level = next;
        }
        FAR
    }
}

/// The farthest [`Dimension::distance`] counts.
pub(super) const FAR: usize = 32;

/// Whether two values are one (an integer and a float of the same number too).
pub(super) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Integer(i), Value::Float(f)) | (Value::Float(f), Value::Integer(i)) => {
            (*i as f64 - f).abs() < 1e-9
        }
        (Value::Float(x), Value::Float(y)) => (x - y).abs() < 1e-9,
        (a, b) => a == b,
    }
}

/// What the search may change: each `--vary` range (holding the battles'
/// own value, where the search starts), then every cell of each
/// `--tables` table but the frozen ones. A path some scenarios lack moves
/// in those that have it; where several have it, they must agree on its
/// value.
pub(super) fn dimensions(
    (vary, cell_tables, freeze): (&[String], &[String], &[String]),
    battles: &[Battle],
) -> Result<Vec<Dimension>> {
    let choices = (battles.iter())
        .map(|b| crate::analysis::sensitivity::choices(b.resolved))
        .collect::<Result<Vec<_>>>()?;
    // The knob at `path` in each scenario that has it, agreeing in value.
    let found_in = |path: &str, cells_only: bool| -> Result<Option<(Knob, Vec<bool>)>> {
        let mut first: Option<(usize, &Knob)> = None;
        let mut present = vec![false; battles.len()];
        for (b, c) in choices.iter().enumerate() {
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
        for c in &choices {
            for k in &c.cells {
                if k.cell.as_ref().is_some_and(|c| c.table == *table) && !paths.contains(&k.name())
                {
                    paths.push(k.name());
                }
            }
        }
        if paths.is_empty() {
            let tables: std::collections::BTreeSet<&str> = (choices.iter())
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

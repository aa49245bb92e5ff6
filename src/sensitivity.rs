//! The knobs of a scenario and their one-step moves, for
//! `warcrunch sensitivity`: every number the file sets (each side's,
//! unit's, PC's and Hero's, and the battle's), moved one step down and one
//! step up.

use serde::Serialize;
use toml::Value;

use crate::stats::DifferenceInterval;

/// Settings that are not rules of the battle.
const NOT_KNOBS: [&str; 2] = ["trials", "seed"];

/// Integers up to this size move by 1; larger ones by a tenth.
const SMALL_INTEGER: i64 = 20;

/// One number the scenario sets.
#[derive(Debug, Clone, PartialEq)]
pub struct Knob {
    /// Its sweep path: `sides.Raiders.troop_strength`, `heroes.Titus.risk`.
    pub path: Vec<String>,
    /// Its value in the file.
    pub value: Value,
}

impl Knob {
    /// The path as written: `heroes.Titus.risk`.
    pub fn name(&self) -> String {
        self.path.join(".")
    }

    /// One step down and one step up: ±1 for integers below
    /// [`SMALL_INTEGER`], ±10% (rounded, at least 1) for larger ones, ±10%
    /// for reals (±0.05 at 0).
    pub fn moves(&self) -> [Value; 2] {
        match self.value {
            Value::Integer(v) => {
                let step = if v.abs() < SMALL_INTEGER {
                    1
                } else {
                    ((v.abs() as f64 * 0.1).round() as i64).max(1)
                };
                [Value::Integer(v - step), Value::Integer(v + step)]
            }
            Value::Float(v) => {
                let step = if v == 0.0 { 0.05 } else { 0.1 * v.abs() };
                let round = |x: f64| (x * 1e9).round() / 1e9;
                [Value::Float(round(v - step)), Value::Float(round(v + step))]
            }
            _ => unreachable!("knobs are numbers"),
        }
    }
}

/// Every number a scenario document sets, keys in alphabetical order, with sweep paths
/// (elements of arrays of tables by their `name`).
pub fn knobs(doc: &toml::Table) -> Vec<Knob> {
    let mut out = Vec::new();
    walk(doc, &mut Vec::new(), &mut out);
    out
}

fn walk(table: &toml::Table, path: &mut Vec<String>, out: &mut Vec<Knob>) {
    for (key, value) in table {
        if path.is_empty() && (NOT_KNOBS.contains(&key.as_str()) || key == "tables") {
            continue;
        }
        path.push(key.clone());
        match value {
            Value::Integer(_) | Value::Float(_) => out.push(Knob {
                path: path.clone(),
                value: value.clone(),
            }),
            Value::Table(inner) => walk(inner, path, out),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let Value::Table(element) = item {
                        let name = element
                            .get("name")
                            .and_then(Value::as_str)
                            .map_or_else(|| i.to_string(), str::to_owned);
                        path.push(name);
                        walk(element, path, out);
                        path.pop();
                    }
                }
            }
            _ => {}
        }
        path.pop();
    }
}

/// How a difference's interval was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// From the battle-by-battle pairs of a common-random-numbers run
    /// (Newcombe's paired interval).
    PairedNewcombe,
    /// Exact: no sampling, no interval.
    Exact,
}

impl Method {
    /// The name written in CSV files.
    pub fn name(self) -> &'static str {
        match self {
            Method::PairedNewcombe => "paired_newcombe",
            Method::Exact => "exact",
        }
    }
}

/// One knob moved one step, and what it did to the target's probability.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Move {
    /// The knob's path.
    pub knob: String,
    /// Its value in the scenario.
    pub from: String,
    /// The value it was moved to.
    pub to: String,
    /// The target's probability in the scenario as written.
    pub base_probability: f64,
    /// The target's probability after the move.
    pub probability: f64,
    /// `probability - base_probability`, with its 95% interval.
    pub difference: DifferenceInterval,
    /// The interval two independent runs would have given (none when exact).
    pub unpaired: Option<DifferenceInterval>,
    /// How the interval was found.
    pub method: Method,
}

/// A move that could not be made: the value is outside what the setting allows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refused {
    /// The knob's path.
    pub knob: String,
    /// The value refused.
    pub to: String,
    /// Why, as the scenario's validation says it.
    pub reason: String,
}

/// Moves ranked by how far they move the probability, largest first (ties
/// in knob order, so the ranking is reproducible).
pub fn rank(moves: &mut [Move]) {
    moves.sort_by(|a, b| {
        b.difference
            .difference
            .abs()
            .total_cmp(&a.difference.difference.abs())
            .then_with(|| a.knob.cmp(&b.knob))
            .then_with(|| a.to.cmp(&b.to))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knobs_are_the_numbers_the_file_sets() {
        let doc: toml::Table = toml::from_str(
            "seed = 1\ntrials = 5\ndays = 1\n[[sides]]\nname = \"A\"\nstrategy = 12\ntroop_strength = 800\ncommander = { wits = 3 }\n[engagement]\nrally_chance = 0.5\ndraw = \"die\"\n",
        )
        .unwrap();
        let names: Vec<String> = knobs(&doc).iter().map(Knob::name).collect();
        assert_eq!(
            names,
            [
                "days",
                "engagement.rally_chance",
                "sides.A.commander.wits",
                "sides.A.strategy",
                "sides.A.troop_strength",
            ]
        );
        let moves: Vec<[Value; 2]> = knobs(&doc).iter().map(Knob::moves).collect();
        assert_eq!(moves[3], [Value::Integer(11), Value::Integer(13)]);
        assert_eq!(moves[4], [Value::Integer(720), Value::Integer(880)]);
        assert_eq!(moves[1], [Value::Float(0.45), Value::Float(0.55)]);
    }
}

//! What a tune may change: each setting or cell, where it starts and the
//! values one move away.

use toml::Value;

use crate::questions::sensitivity::Knob;

/// `--set` in a sweep's message is `--vary` here.
pub fn vary_words(e: &anyhow::Error) -> String {
    format!("{e:#}").replacen("--set ", "--vary ", 1)
}

/// How many settings `at` changes from `start`.
pub fn changed(at: &[Value], start: &[Value]) -> usize {
    at.iter().zip(start).filter(|(a, b)| a != b).count()
}

/// The dimensions candidate `at` changes from `start`, with their values.
pub fn changes<'d, 'v>(
    dimensions: &'d [Dimension],
    start: &[Value],
    at: &'v [Value],
) -> impl Iterator<Item = (&'d Dimension, &'v Value)> {
    (dimensions.iter().zip(at).zip(start))
        .filter(|((_, v), s)| !same(v, s))
        .map(|((d, v), _)| (d, v))
}

/// A candidate's name: each setting it changes from `start` at its value
/// (`rows.D.column=C,...`), or `as written`.
pub fn candidate_name(dimensions: &[Dimension], start: &[Value], at: &[Value]) -> String {
    let named: Vec<String> = changes(dimensions, start, at)
        .map(|(d, v)| format!("{}={}", d.path.join("."), shown(v)))
        .collect();
    if named.is_empty() {
        "as written".to_owned()
    } else {
        named.join(",")
    }
}

/// A value as the files write it: `12`, `0.5`, `elite`.
pub fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One thing the search may change: its path, its value in the battle as
/// written, and how it moves.
#[derive(Debug, Clone)]
pub struct Dimension {
    pub path: Vec<String>,
    pub value: Value,
    pub moves: Moves,
    /// Whether each scenario tuned has it.
    pub present: Vec<bool>,
}

/// How a [`Dimension`] moves one step.
#[derive(Debug, Clone)]
pub enum Moves {
    /// To the next value of a range, either way (`--vary`).
    Range(Vec<Value>),
    /// As `sensitivity --cells` moves a cell (`--tables`).
    Cell(Knob),
}

impl Dimension {
    /// The values one step from `value`.
    pub fn neighbours(&self, value: &Value) -> Vec<Value> {
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
    pub fn distance(&self, value: &Value, to: &Value) -> usize {
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
pub const FAR: usize = 32;

/// Whether two values are one (an integer and a float of the same number too).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Integer(i), Value::Float(f)) | (Value::Float(f), Value::Integer(i)) => {
            (*i as f64 - f).abs() < 1e-9
        }
        (Value::Float(x), Value::Float(y)) => (x - y).abs() < 1e-9,
        (a, b) => a == b,
    }
}

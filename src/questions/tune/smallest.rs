//! The smallest table, where every battle tuned has exact odds. Level by
//! level over the number of changed values: level 0 is the battle as
//! written; a level is tried whole (every table with that many changed
//! values, each value within [`REACH`] steps of its own, or anywhere in
//! its `--vary` range) while it holds at most [`WHOLE_LEVEL`] tables, and
//! beyond that by a beam: the [`BEAM`] best tables of the level before,
//! each with one more value changed. The first level with a table that
//! meets every goal gives the proposal: the fewest changed values, then
//! the fewest steps from the battle as written; the others meeting there
//! are its alternatives. Every table is scored by its exact odds, so the
//! answer is the same whatever the seed.

use std::collections::HashSet;

use anyhow::{Result, bail};
use toml::Value;

use super::Goal;
use super::StepRow;
use crate::stats::format::thousands;

use super::fight::{Fight, Scored};
use super::moves::{Dimension, Moves, changed, same};
use super::plan::Held;
use super::search::StepSeen;

/// The most steps a changed cell moves from its value as written (a
/// `--vary` range is searched whole).
pub const REACH: usize = 3;

/// The most tables a level is tried whole with.
pub const WHOLE_LEVEL: usize = 20_000;

/// Tables the beam keeps from one level to the next.
pub const BEAM: usize = 64;

/// Tables scored between two looks at the stop flag.
const BATCH: usize = 256;

/// The most alternatives the report lists beside the proposal.
pub const ALTERNATIVES: usize = 5;

/// What the search found.
pub struct Found {
    /// The proposal: a table meeting every goal with the fewest changes,
    /// then the fewest steps; or, where none was found, the least total
    /// shortfall.
    pub best: Scored,
    /// Other tables meeting every goal with as few changes, fewest steps
    /// first; or, where none meets, the next nearest.
    pub alternatives: Vec<Scored>,
    /// The battle as written (step 0), then the best tables of each level,
    /// as `steps.csv` lists them.
    pub steps: Vec<StepRow>,
    /// Why it stopped where it did.
    pub stopped: String,
    /// What it looked through, in words.
    pub searched: String,
}

/// Each dimension's values a changed one may take, with their steps from
/// the value as written: a range's every other value, a cell's within
/// [`REACH`] moves.
fn reachable(d: &Dimension) -> Vec<(Value, usize)> {
    match &d.moves {
        Moves::Range(values) => (values.iter())
            .filter(|v| !same(v, &d.value))
            .map(|v| (v.clone(), d.distance(v, &d.value)))
            .collect(),
        Moves::Cell(_) => {
            let mut found: Vec<(Value, usize)> = Vec::new();
            let mut level = vec![d.value.clone()];
            for depth in 1..=REACH {
                let mut next = Vec::new();
                for v in &level {
                    for w in d.neighbours(v) {
                        if !same(&w, &d.value) && !found.iter().any(|(f, _)| same(f, &w)) {
                            found.push((w.clone(), depth));
                            next.push(w);
                        }
                    }
                }
                level = next;
            }
            found
        }
    }
}

/// The smallest table meeting every goal, searched as the module says.
pub fn smallest(
    (fight, goals, threads): (&Fight, (&[Goal], &[Held]), usize),
    (max_changes, max_levels): (usize, usize),
    seen: &mut StepSeen,
) -> Result<Found> {
    let start = fight.start;
    let values: Vec<Vec<(Value, usize)>> = fight.dimensions.iter().map(reachable).collect();
    let mut steps: Vec<StepRow> = Vec::new();
    let record =
        |steps: &mut Vec<StepRow>, level: usize, round: &[Scored], chosen: Option<usize>| {
            fight.record(steps, (1, level), round, chosen)
        };
    let as_written = fight.exact_score(start, goals)?;
    let order = |a: &Scored, b: &Scored| {
        (a.total, changed(&a.at, start), fight.steps(&a.at))
            .partial_cmp(&(b.total, changed(&b.at, start), fight.steps(&b.at)))
            .expect("shortfalls are numbers")
    };
    // Step 0, the battle as written, is always the first row.
    let meets = as_written.total == 0.0;
    record(
        &mut steps,
        0,
        std::slice::from_ref(&as_written),
        meets.then_some(0),
    );
    if meets {
        return Ok(Found {
            best: as_written,
            alternatives: Vec::new(),
            steps,
            stopped: "the battle as written meets every goal, exactly".to_owned(),
            searched: "the battle as written, exactly".to_owned(),
        });
    }
    let last = max_changes.min(max_levels).min(fight.dimensions.len());
    let mut best = as_written.clone();
    let mut kept: Vec<Scored> = vec![as_written];
    // The deepest level tried whole, and the first tried by the beam.
    let mut whole_to = 0;
    let mut tried = 0usize;
    let mut stalled = None;
    for level in 1..=last {
        if crate::engine::stop_asked() {
            bail!("the tune was stopped");
        }
        let whole = level_size(&values, level) <= WHOLE_LEVEL as f64;
        let candidates = if whole {
            whole_level(start, &values, level)
        } else {
            beam_level(start, &values, &kept)
        };
        if candidates.is_empty() {
            break;
        }
        tried += candidates.len();
        if whole && whole_to == level - 1 {
            whole_to = level;
        }
        // In batches, so a stop (Ctrl-C, the workbench's Stop) is heard
        // within one.
        let mut round = Vec::with_capacity(candidates.len());
        for batch in candidates.chunks(BATCH) {
            if crate::engine::stop_asked() {
                bail!("the tune was stopped");
            }
            round.extend(fight.score_exact(batch, goals, threads)?);
        }
        round.sort_by(order);
        let meeting: Vec<Scored> = (round.iter()).filter(|s| s.total == 0.0).cloned().collect();
        if !meeting.is_empty() {
            // The fewest steps first; the listing order breaks a tie.
            let mut meeting = meeting;
            meeting.sort_by_key(|s| fight.steps(&s.at));
            let chosen = meeting.remove(0);
            let shown: Vec<Scored> = std::iter::once(chosen.clone())
                .chain(meeting.iter().take(ALTERNATIVES).cloned())
                .collect();
            record(&mut steps, level, &shown, Some(0));
            seen((1, level), &fight.name(&chosen.at), 0.0)?;
            meeting.truncate(ALTERNATIVES);
            return Ok(Found {
                best: chosen,
                alternatives: meeting,
                steps,
                stopped: format!(
                    "a table with {level} changed value{} meets every goal, exactly",
                    plural(level)
                ),
                searched: searched_words(whole_to, level, tried),
            });
        }
        kept = round.into_iter().take(BEAM).collect();
        record(&mut steps, level, &kept, Some(0));
        seen((1, level), &fight.name(&kept[0].at), kept[0].total)?;
        if order(&kept[0], &best).is_lt() {
            best = kept[0].clone();
        } else if !whole {
            // The beam no longer gets nearer: another value changed would
            // only be more of the same.
            stalled = Some(level);
            break;
        }
    }
    let deepest = stalled.unwrap_or(last);
    let proof = if whole_to >= last {
        format!(
            "no table within {last} changed value{} (--max-changes; every one tried, each cell within {REACH} steps) meets every goal",
            plural(last)
        )
    } else if stalled.is_some() {
        format!(
            "no table the search reached meets every goal: at {deepest} changed values the beam got no nearer than at {}",
            deepest - 1
        )
    } else {
        format!(
            "no table the search reached, up to {deepest} changed value{}, meets every goal",
            plural(deepest)
        )
    };
    let mut alternatives: Vec<Scored> = kept.into_iter().filter(|s| s.at != best.at).collect();
    alternatives.sort_by(order);
    alternatives.truncate(ALTERNATIVES);
    Ok(Found {
        best,
        alternatives,
        steps,
        stopped: proof,
        searched: searched_words(whole_to, deepest, tried),
    })
}

/// "every table within 2 changed values (1,234 tables); a beam of 64 beyond, to 4".
fn searched_words(whole_to: usize, deepest: usize, tried: usize) -> String {
    let whole = format!(
        "every table within {whole_to} changed value{} (each cell within {REACH} steps of its own)",
        plural(whole_to)
    );
    let beam = if deepest > whole_to {
        format!("; a beam of the {BEAM} best beyond, to {deepest} changed values")
    } else {
        String::new()
    };
    format!(
        "{whole}{beam}: {} tables, each scored by its exact odds",
        thousands(tried as u64)
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// How many tables change exactly `level` values: the sum, over every
/// `level` dimensions, of the product of their values' counts.
fn level_size(values: &[Vec<(Value, usize)>], level: usize) -> f64 {
    // By dynamic programming over the dimensions: ways[k] tables change k.
    let mut ways = vec![0.0; level + 1];
    ways[0] = 1.0;
    for v in values {
        for k in (1..=level).rev() {
            ways[k] += ways[k - 1] * v.len() as f64;
        }
    }
    ways[level]
}

/// Every table changing exactly `level` values, in the dimensions' order.
fn whole_level(start: &[Value], values: &[Vec<(Value, usize)>], level: usize) -> Vec<Vec<Value>> {
    let mut found = Vec::new();
    let mut at = start.to_vec();
    fn place(
        from: usize,
        left: usize,
        values: &[Vec<(Value, usize)>],
        at: &mut Vec<Value>,
        start: &[Value],
        found: &mut Vec<Vec<Value>>,
    ) {
        if left == 0 {
            found.push(at.clone());
            return;
        }
        for i in from..values.len() {
            if values.len() - i < left {
                break;
            }
            for (v, _) in &values[i] {
                at[i] = v.clone();
                place(i + 1, left - 1, values, at, start, found);
            }
            at[i] = start[i].clone();
        }
    }
    place(0, level, values, &mut at, start, &mut found);
    found
}

/// Each table of `kept` with one more value changed, each once.
fn beam_level(start: &[Value], values: &[Vec<(Value, usize)>], kept: &[Scored]) -> Vec<Vec<Value>> {
    let mut met: HashSet<String> = HashSet::new();
    let mut found = Vec::new();
    for s in kept {
        for (i, choices) in values.iter().enumerate() {
            if !same(&s.at[i], &start[i]) {
                continue;
            }
            for (v, _) in choices {
                let mut c = s.at.clone();
                c[i] = v.clone();
                let key = format!("{c:?}");
                if met.insert(key) {
                    found.push(c);
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(counts: &[usize]) -> Vec<Vec<(Value, usize)>> {
        (counts.iter())
            .map(|&n| (1..=n).map(|v| (Value::Integer(v as i64), 1)).collect())
            .collect()
    }

    #[test]
    fn a_whole_level_holds_every_table_of_its_size_once() {
        let values = values(&[2, 3, 1]);
        let start = vec![Value::Integer(0); 3];
        for level in 0..=3 {
            let tables = whole_level(&start, &values, level);
            assert_eq!(
                tables.len() as f64,
                level_size(&values, level),
                "level {level}"
            );
            let distinct: HashSet<String> = tables.iter().map(|t| format!("{t:?}")).collect();
            assert_eq!(distinct.len(), tables.len());
            assert!(tables.iter().all(|t| changed(t, &start) == level));
        }
        // 2 + 3 + 1 single changes; 2·3 + 2·1 + 3·1 pairs; 2·3·1 triples.
        assert_eq!(level_size(&values, 1), 6.0);
        assert_eq!(level_size(&values, 2), 11.0);
        assert_eq!(level_size(&values, 3), 6.0);
    }

    #[test]
    fn the_beam_adds_one_change_to_each_table_it_keeps() {
        let values = values(&[2, 2]);
        let start = vec![Value::Integer(0); 2];
        let kept = Scored {
            at: vec![Value::Integer(1), Value::Integer(0)],
            estimates: vec![],
            spreads: vec![],
            shortfalls: vec![],
            total: 1.0,
            noise: 0.0,
        };
        let next = beam_level(&start, &values, &[kept]);
        assert_eq!(
            next,
            vec![
                vec![Value::Integer(1), Value::Integer(1)],
                vec![Value::Integer(1), Value::Integer(2)]
            ]
        );
    }
}

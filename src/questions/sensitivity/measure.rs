//! Each planned move's row measured: from the battles the base and the
//! moved scenarios fought in pairs (an event's counts, a mean's paired
//! sums), or from their exact odds.

use anyhow::{Context, Result};

use super::{Method, Move, PairedTest};
use crate::stats::paired_mean::PairedSums;
use crate::stats::{DifferenceInterval, Metric, mcnemar, paired_difference, unpaired_difference};

/// An event's counts in a paired run: the battles each side fought, the
/// event's count as written, and for each move its count and the battles
/// in which both the base and the move had it.
#[derive(Debug, Clone)]
pub struct EventCounts {
    /// Battles fought by each scenario.
    pub battles: u64,
    /// The event's count in the scenario as written.
    pub base: u64,
    /// Per move: its count, and the battles counted by both.
    pub moved: Vec<(u64, u64)>,
}

/// Each row measured from `counts`, move by move: Newcombe's paired
/// interval, the unpaired one two separate runs would have given, and
/// McNemar's test on the battles that changed.
pub fn by_event(rows: Vec<Move>, counts: &EventCounts) -> Vec<Move> {
    let (n, base) = (counts.battles, counts.base);
    rows.into_iter()
        .zip(&counts.moved)
        .map(|(row, &(x, both))| {
            let (only_base, only_moved) = (base - both, x - both);
            Move {
                base_estimate: base as f64 / n as f64,
                estimate: x as f64 / n as f64,
                difference: paired_difference(n, base, x, both),
                unpaired: Some(unpaired_difference(base, n, x, n)),
                paired: Some(PairedTest {
                    changed: only_base + only_moved,
                    p_value: mcnemar(only_base, only_moved).1,
                }),
                method: Method::PairedNewcombe,
                ..row
            }
        })
        .collect()
}

/// A numeric target in a paired run: its histogram in the scenario as
/// written, and per move its histogram and the sums of the battles'
/// differences from the base.
pub struct MeanCounts<'a> {
    /// The target's histogram as written.
    pub base: &'a Metric<u64>,
    /// Per move: its histogram and the paired sums.
    pub moved: Vec<(&'a Metric<u64>, &'a PairedSums)>,
}

/// Each row measured from `counts`: Student's t on the battles'
/// differences, beside Welch's interval two separate runs would have given.
pub fn by_mean(rows: Vec<Move>, counts: &MeanCounts) -> Result<Vec<Move>> {
    let no_value = "the target's outcome has no value in any battle";
    let base = counts.base.summary().context(no_value)?;
    rows.into_iter()
        .zip(&counts.moved)
        .map(|(row, &(metric, sums))| {
            let moved = metric.summary().context(no_value)?;
            let paired = sums
                .means()
                .context("fewer than two battles to pair; raise --trials")?;
            let (difference, low, high) =
                crate::stats::compare::welch(counts.base, metric).difference;
            Ok(Move {
                base_estimate: base.mean,
                estimate: moved.mean,
                difference: paired.difference,
                unpaired: Some(DifferenceInterval {
                    difference,
                    low,
                    high,
                }),
                paired: Some(PairedTest {
                    changed: sums.changed,
                    p_value: paired.p_value,
                }),
                method: Method::PairedT,
                ..row
            })
        })
        .collect()
}

/// A row measured exactly: the target's exact value as written (`base`)
/// and after the move (`moved`).
pub fn exactly(row: Move, base: f64, moved: f64) -> Move {
    let d = moved - base;
    Move {
        base_estimate: base,
        estimate: moved,
        difference: DifferenceInterval {
            difference: d,
            low: d,
            high: d,
        },
        method: Method::Exact,
        ..row
    }
}

//! The scenarios of a tune and the goals each is held to: a goal holds
//! every scenario with its outcome, or the one it names with `@STEM`.

use anyhow::{Result, bail};

use crate::analysis::runner::metric_layout;
use crate::questions::target::with_combined;
use crate::questions::tune::Goal;
use crate::scenario::Resolved;
use crate::stats::Metric;

/// One scenario tuned, and its name (the file's stem).
pub(super) struct Battle<'a> {
    pub(super) resolved: &'a Resolved,
    pub(super) name: String,
}

/// A goal as one scenario is held to it.
#[derive(Debug, Clone)]
pub(super) struct Held {
    pub(super) goal: usize,
    pub(super) battle: usize,
    /// As the files write it: the goal, with `@STEM` where several
    /// scenarios are tuned and the goal names none.
    pub(super) label: String,
}

/// The scenarios by name; their names (file stems) must differ, since
/// goals and files name them.
pub(super) fn named_battles(scenarios: &[Resolved]) -> Result<Vec<Battle<'_>>> {
    let mut battles: Vec<Battle> = Vec::new();
    for resolved in scenarios {
        let path = resolved.path();
        let name = (path.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scenario".to_owned());
        if let Some(twin) = battles.iter().find(|b| b.name == name) {
            bail!(
                "{} and {}: two scenarios named {name}; goals name a scenario by its file's stem, so give one another name",
                twin.resolved.path().display(),
                path.display()
            );
        }
        battles.push(Battle { resolved, name });
    }
    Ok(battles)
}

/// Each goal as each scenario is held to it: the one it names, or every
/// scenario that has its outcome. A goal no scenario has is refused,
/// before anything is fought.
pub(super) fn held_goals(goals: &[Goal], battles: &[Battle]) -> Result<Vec<Held>> {
    let layouts: Vec<Vec<Metric<u64>>> = (battles.iter())
        .map(|b| with_combined(&metric_layout(&b.resolved.scenario)))
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

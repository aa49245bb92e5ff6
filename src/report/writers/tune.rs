//! The files of a tune: `goals.csv` (each goal's verdict on the verifying
//! run), `changes.csv` (each change alone), `steps.csv` (every candidate
//! the search fought), `tuned.toml` (the battle with the values found;
//! `tuned.STEM.toml` each where several were tuned), `tuned_TABLE.toml`
//! and `run.json`.

use std::path::Path;

use anyhow::{Context, Result};
use polars::prelude::Column;
use serde::Serialize;

pub use crate::questions::tune::verdicts::GoalResult;
use crate::questions::tune::{Conflict, Verdict};
pub use crate::questions::tune::{Effect, StepRow};
use crate::report::exporters::csv::{TableMeta, text, write_table};
use crate::report::{Formats, RunInfo};

/// What a tune found, and what the verifying run says of it.
#[derive(Debug)]
pub struct TuneReport {
    /// Provenance of the verifying run.
    pub info: RunInfo,
    /// Each goal on the verifying run.
    pub goals: Vec<GoalResult>,
    /// Every candidate the search fought, step by step.
    pub steps: Vec<StepRow>,
    /// The settings the table found changes.
    pub changes: Vec<Change>,
    /// Goals that pull against each other, where the search fell short.
    pub conflicts: Vec<String>,
    /// Each change made alone: its paired effect on each goal.
    pub effects: Vec<Effect>,
    /// Why the search stopped where it did.
    pub stopped: String,
    /// What the search looked through, in words.
    pub searched: String,
    /// Other tables the search found as good (each meeting every goal with
    /// as few changes), or, where none meets, the next nearest.
    pub alternatives: Vec<Alternative>,
    /// What the alternatives are, in words (how they were judged).
    pub alternatives_are: String,
    /// Whether the search scored every candidate by its exact odds (else
    /// on paired battles).
    pub exact_search: bool,
    /// The least change in a goal's outcome that matters, as asked
    /// (`--min-effect`: percentage points for a probability).
    pub min_effect: Option<f64>,
    /// Each scenario with the values found, as a file (its name, its text).
    pub tuned: Vec<(String, String)>,
    /// Each table whose cells changed, as a file of its own (its name, its
    /// text), to give a scenario with `--table NAME=FILE`.
    pub tables: Vec<(String, String)>,
    /// Battles each candidate fought in the search.
    pub search_trials: u64,
    /// The search's seed.
    pub search_seed: u64,
    /// Battles of the verifying run.
    pub verify_trials: u64,
    /// The verifying run's seed.
    pub verify_seed: u64,
    /// Family-wise confidence of the verdicts.
    pub confidence: f64,
    /// Battles fought in all: the search's (every candidate, each
    /// scenario), the verifying run's and each change's alone.
    pub battles_fought: u64,
    /// Which tabular files to write.
    pub formats: Formats,
}

/// Another table the search found: its changes, and each goal's value
/// there (in the goals' order) with its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Alternative {
    /// What it changes.
    pub changes: Vec<Change>,
    /// Each goal's value as the search scored it (exact where it was exact).
    pub values: Vec<f64>,
    /// What that value says of each goal.
    pub verdicts: Vec<Verdict>,
}

/// A setting the table found changes.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// Its path.
    pub setting: String,
    /// The battle's own value.
    pub from: String,
    /// The value found.
    pub to: String,
}

impl TuneReport {
    /// Whether every goal is met on the verifying run.
    pub fn all_met(&self) -> bool {
        self.goals.iter().all(|g| g.verdict == Verdict::Met)
    }

    /// The answer in one sentence, naming each goal not met by its
    /// verdict: "2 of 3 goals met, with 1 change; missed: …; too close to
    /// tell: …". The console and the page both say it.
    pub fn answer(&self) -> String {
        let met = (self.goals.iter())
            .filter(|g| g.verdict == Verdict::Met)
            .count();
        let changes = match self.changes.len() {
            0 => "no change to the battle as written".to_owned(),
            1 => "1 change".to_owned(),
            n => format!("{n} changes"),
        };
        if met == self.goals.len() {
            return match met {
                1 => format!("The goal is met, with {changes}."),
                _ => format!("Every goal is met ({met} of {met}), with {changes}."),
            };
        }
        let named = |verdict: Verdict| -> Option<String> {
            let goals: Vec<String> = (self.goals.iter())
                .filter(|g| g.verdict == verdict)
                .map(|g| goal_words(&self.info.system, &g.goal))
                .collect();
            (!goals.is_empty()).then(|| {
                let word = match verdict {
                    Verdict::Missed => "missed",
                    _ => "too close to tell",
                };
                format!("{word}: {}", goals.join("; "))
            })
        };
        let others: Vec<String> = [Verdict::Missed, Verdict::TooCloseToTell]
            .into_iter()
            .filter_map(named)
            .collect();
        format!(
            "{}, with {changes}; {}.",
            crate::report::findings::upper_first(&goals_met(met, self.goals.len())),
            others.join("; ")
        )
    }
}

/// How many of `total` goals are met, in words: `2 of 3 goals met`; one
/// goal is `the goal met` or `the goal not met`.
pub fn goals_met(met: usize, total: usize) -> String {
    match (met, total) {
        (1, 1) => "the goal met".to_owned(),
        (0, 1) => "the goal not met".to_owned(),
        _ => format!("{met} of {total} goals met"),
    }
}

impl GoalResult {
    /// How far it falls short, as the console and the page write it,
    /// never rounded to nothing: `0.01 pt`, `0.0046 pt`, `0.25`; empty
    /// where it is met.
    pub fn short_by(&self) -> String {
        if self.shortfall <= 0.0 {
            return String::new();
        }
        let least = if self.mean { 3 } else { 2 };
        let unit = if self.mean { "" } else { " pt" };
        format!("{}{unit}", at_least_two_digits(self.shortfall, least))
    }
}

/// A goal's band as a person reads it: `≤ 10%`, `≥ 9`, `45%–55%`.
pub fn band_words(band: &str) -> String {
    band.replace("<= ", "\u{2264} ")
        .replace(">= ", "\u{2265} ")
        .replace("..", "\u{2013}")
}

/// What stands in a tune's way, in words: its goals as [`goal_words`]
/// says them.
pub fn conflict_words(system: &str, conflict: &Conflict) -> String {
    let said = |label: &str| goal_words(system, label);
    match conflict {
        Conflict::Blocks {
            order,
            goals,
            found,
        } => format!(
            "{order} blocks {}: the table the search finds without it ({found}) meets {}; --allow-disorder lets the search break it",
            (goals.iter())
                .map(|g| format!("\"{}\"", said(g)))
                .collect::<Vec<_>>()
                .join(" and "),
            if goals.len() == 1 { "it" } else { "them" }
        ),
        Conflict::Stuck { goal } => format!(
            "\"{}\": no single step of the settings varied brings it closer (widen a range or vary another setting)",
            said(goal)
        ),
        Conflict::Pull { closer, further } => format!(
            "\"{}\" and \"{}\" pull against each other here: in the search's battles, every single step that brings the first closer takes the second further",
            said(closer),
            said(further)
        ),
    }
}

/// A goal as a person reads it, its outcome in words and its band with
/// `≤`, `≥` and a true dash: `party/any_down_or_dead=yes <= 10%` → `the
/// party: anyone down or dead = yes in ≤ 10% of battles`,
/// `hero:Isabeau/reputation:mean >= 9 @even_field_battle` → `Isabeau:
/// Reputation gained, mean ≥ 9 (even_field_battle)`. A goal that does not
/// parse is shown as written.
pub fn goal_words(system: &str, goal: &str) -> String {
    use crate::questions::tune::{Band, Goal};
    let Ok(parsed) = Goal::parse(goal) else {
        return goal.to_owned();
    };
    let mean = parsed.target.is_mean();
    let shown = |x: f64| {
        if mean {
            crate::stats::format::value_read(&crate::stats::format::trim_decimal(x, 6))
        } else {
            format!("{}%", crate::stats::format::trim_decimal(100.0 * x, 6))
        }
    };
    let band = match parsed.band {
        Band::Between(low, high) => format!("{}\u{2013}{}", shown(low), shown(high)),
        Band::AtMost(high) => format!("\u{2264} {}", shown(high)),
        Band::AtLeast(low) => format!("\u{2265} {}", shown(low)),
    };
    let outcome = crate::report::kit::words::target(system, &parsed.target.text());
    let mut said = if mean {
        format!("{outcome}, mean {band}")
    } else {
        format!("{outcome} in {band} of battles")
    };
    if let Some(battle) = &parsed.scenario {
        said.push_str(&format!(" ({battle})"));
    }
    if parsed.weight != 1.0 {
        said.push_str(&format!(
            ", weight {}",
            crate::stats::format::trim_decimal(parsed.weight, 6)
        ));
    }
    said
}

/// `x` with `least` decimals, or as many more as two significant digits
/// need (`0.0046`), trailing zeros dropped.
pub fn at_least_two_digits(x: f64, least: usize) -> String {
    let mut places = least;
    while places < 12 && x.abs() > 0.0 && x.abs() < 10f64.powi(1 - places as i32) {
        places += 1;
    }
    crate::stats::format::trim_decimal(x, places)
}

/// Writes the files into `dir`; returns their names.
pub fn write(report: &TuneReport, dir: &Path) -> Result<Vec<String>> {
    let about = TableMeta::of(&report.info);
    let mut files = write_table(
        dir,
        "goals",
        (&report.formats, &about),
        goal_columns(report),
    )?;
    if !report.effects.is_empty() {
        files.extend(write_table(
            dir,
            "changes",
            (&report.formats, &about),
            effect_columns(&report.effects, report.min_effect),
        )?);
    }
    files.extend(write_table(
        dir,
        "steps",
        (&report.formats, &about),
        step_columns(report),
    )?);
    let header = format!(
        "# Written by `warcrunch tune`: the battle with the values its search found\n\
         # ({}). Comments of the file it was made from are not kept.\n",
        if report.changes.is_empty() {
            "no change".to_owned()
        } else {
            (report.changes.iter())
                .map(|c| format!("{}: {} -> {}", c.setting, c.from, c.to))
                .collect::<Vec<_>>()
                .join("; ")
        }
    );
    for (name, text) in &report.tuned {
        std::fs::write(dir.join(name), header.clone() + text)
            .with_context(|| format!("cannot write {name}"))?;
        files.push(name.clone());
    }
    for (name, text) in &report.tables {
        std::fs::write(dir.join(name), text).with_context(|| format!("cannot write {name}"))?;
        files.push(name.clone());
    }
    files.extend(crate::report::exporters::json::write_info_with(
        &report.info,
        dir,
        [
            ("goals", serde_json::to_value(&report.goals)?),
            ("changes", serde_json::to_value(&report.changes)?),
            ("conflicts", serde_json::to_value(&report.conflicts)?),
            ("stopped", serde_json::to_value(&report.stopped)?),
            ("searched", serde_json::to_value(&report.searched)?),
            ("alternatives", serde_json::to_value(&report.alternatives)?),
            ("battles_fought", report.battles_fought.into()),
            (
                "search",
                if report.exact_search {
                    serde_json::json!({ "exact": true })
                } else {
                    serde_json::json!({ "trials": report.search_trials, "seed": report.search_seed })
                },
            ),
            (
                "verification",
                serde_json::json!({
                    "trials": report.verify_trials,
                    "seed": report.verify_seed,
                    "confidence": report.confidence,
                }),
            ),
        ],
    )?);
    Ok(files)
}

fn goal_columns(report: &TuneReport) -> Vec<Column> {
    let goals = &report.goals;
    let floats = |name: &str, f: fn(&GoalResult) -> f64| {
        Column::new(name.into(), goals.iter().map(f).collect::<Vec<f64>>())
    };
    vec![
        text("goal", goals.iter().map(|g| g.goal.clone()).collect()),
        text(
            "scenario",
            goals.iter().map(|g| g.scenario.clone()).collect(),
        ),
        text("target", goals.iter().map(|g| g.target.clone()).collect()),
        text("band", goals.iter().map(|g| g.band.clone()).collect()),
        text(
            "quantity",
            (goals.iter())
                .map(|g| if g.mean { "mean" } else { "probability" }.to_owned())
                .collect(),
        ),
        floats("as_written_search_estimate", |g| g.before),
        Column::new(
            "as_written_exact".into(),
            goals
                .iter()
                .map(|g| g.before_exact)
                .collect::<Vec<Option<f64>>>(),
        ),
        floats("search_estimate", |g| g.search_estimate),
        floats("estimate", |g| g.estimate),
        floats("ci_low", |g| g.ci_low),
        floats("ci_high", |g| g.ci_high),
        Column::new(
            "exact".into(),
            goals.iter().map(|g| g.exact).collect::<Vec<Option<f64>>>(),
        ),
        floats("shortfall", |g| g.shortfall),
        Column::new("confidence".into(), vec![report.confidence; goals.len()]),
        text(
            "verdict",
            goals.iter().map(|g| g.verdict.words().to_owned()).collect(),
        ),
    ]
    .into_iter()
    .chain(crate::report::exporters::csv::stand_in_pair(
        &goals
            .iter()
            .map(|g| g.stand_in_tables.clone())
            .collect::<Vec<_>>(),
    ))
    .collect()
}

/// One row per candidate and goal.
fn step_columns(report: &TuneReport) -> Vec<Column> {
    let rows: Vec<(&StepRow, usize)> = (report.steps.iter())
        .flat_map(|s| (0..report.goals.len()).map(move |g| (s, g)))
        .collect();
    vec![
        Column::new(
            "pass".into(),
            rows.iter().map(|(s, _)| s.pass as u64).collect::<Vec<_>>(),
        ),
        Column::new(
            "step".into(),
            rows.iter().map(|(s, _)| s.step as u64).collect::<Vec<_>>(),
        ),
        text(
            "candidate",
            rows.iter().map(|(s, _)| s.candidate.clone()).collect(),
        ),
        Column::new(
            "changed".into(),
            rows.iter()
                .map(|(s, _)| s.changed as u64)
                .collect::<Vec<_>>(),
        ),
        text(
            "goal",
            rows.iter()
                .map(|&(_, g)| report.goals[g].goal.clone())
                .collect(),
        ),
        text(
            "scenario",
            rows.iter()
                .map(|&(_, g)| report.goals[g].scenario.clone())
                .collect(),
        ),
        Column::new(
            "estimate".into(),
            rows.iter()
                .map(|&(s, g)| s.estimates[g])
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "shortfall".into(),
            rows.iter()
                .map(|&(s, g)| s.shortfalls[g])
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "total_shortfall".into(),
            rows.iter().map(|(s, _)| s.total).collect::<Vec<_>>(),
        ),
        Column::new(
            "chosen".into(),
            rows.iter().map(|(s, _)| s.chosen).collect::<Vec<_>>(),
        ),
    ]
}

/// `changes.csv`: one row per change and goal.
fn effect_columns(effects: &[Effect], min_effect: Option<f64>) -> Vec<Column> {
    let part = |f: fn(&crate::stats::DifferenceInterval) -> f64| {
        effects
            .iter()
            .map(|e| e.difference.as_ref().map(f))
            .collect::<Vec<Option<f64>>>()
    };
    vec![
        text(
            "setting",
            effects.iter().map(|e| e.setting.clone()).collect(),
        ),
        text("from", effects.iter().map(|e| e.from.clone()).collect()),
        text("to", effects.iter().map(|e| e.to.clone()).collect()),
        text("goal", effects.iter().map(|e| e.goal.clone()).collect()),
        text(
            "scenario",
            effects.iter().map(|e| e.scenario.clone()).collect(),
        ),
        text(
            "quantity",
            (effects.iter())
                .map(|e| if e.mean { "mean" } else { "probability" }.to_owned())
                .collect(),
        ),
        Column::new("effect".into(), part(|d| d.difference)),
        Column::new("ci_low".into(), part(|d| d.low)),
        Column::new("ci_high".into(), part(|d| d.high)),
        text(
            "method",
            effects.iter().map(|e| e.method.to_owned()).collect(),
        ),
    ]
    .into_iter()
    // Asked, the least change that matters marks each effect below it.
    .chain(min_effect.map(|m| {
        Column::new(
            "below_min_effect".into(),
            effects
                .iter()
                .map(|e| e.below(m))
                .collect::<Vec<Option<bool>>>(),
        )
    }))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_goal_is_the_goal_never_one_of_one() {
        assert_eq!(goals_met(1, 1), "the goal met");
        assert_eq!(goals_met(0, 1), "the goal not met");
        assert_eq!(goals_met(2, 3), "2 of 3 goals met");
    }

    #[test]
    fn a_shortfall_never_rounds_to_nothing() {
        assert_eq!(at_least_two_digits(0.25, 2), "0.25");
        assert_eq!(at_least_two_digits(0.01, 2), "0.01");
        assert_eq!(at_least_two_digits(0.0046, 2), "0.0046");
        // An exact 4.6e-6 of a share is 0.00046 points.
        assert_eq!(at_least_two_digits(100.0 * 4.6e-6, 2), "0.00046");
        assert_eq!(at_least_two_digits(1.5, 3), "1.5");
    }

    #[test]
    fn goals_read_in_words_with_true_signs() {
        assert_eq!(
            goal_words("gurps", "party/any_down_or_dead=yes <= 10%"),
            "the party: anyone down or dead = yes in \u{2264} 10% of battles"
        );
        assert_eq!(
            goal_words(
                "seventh_sea",
                "hero:A/reputation:mean >= 2 @even_field_battle"
            ),
            "A: Reputation gained, mean \u{2265} 2 (even_field_battle)"
        );
        assert_eq!(
            goal_words("gurps", "side:B/victory=won in 45%..55% weight 2"),
            "B: victory = won in 45%\u{2013}55% of battles, weight 2"
        );
        assert_eq!(band_words("45%..55%"), "45%\u{2013}55%");
        assert_eq!(band_words("<= 10%"), "\u{2264} 10%");
    }
}

//! The verdicts of a tune: the table proposed fought again on battles the
//! search never saw, as many as the goals' bands need, and each goal
//! judged met, missed or too close to tell on intervals family-wise over
//! the goals; where a battle has exact odds, they judge.

use anyhow::Result;
use serde::Serialize;

use super::fight::{Scored, measure};
use super::plan::{Held, TunePlan, TuneRequest};
use super::propose::Proposal;
use super::{Goal, Verdict};
use crate::questions::target::{with_combined, with_combined_as};
use crate::stats::Metric;

/// Most battles the verifying run sizes itself to.
const MAX_VERIFY_TRIALS: u64 = 10_000_000;

/// One battle of the verifying run, as the runner counted it.
pub struct Verified {
    /// Its metrics, as counted.
    pub metrics: Vec<Metric<u64>>,
    /// The tuned battle's exact odds, where it has them.
    pub exact: Option<Vec<Metric<f64>>>,
    /// The battle as written, exactly, where it has exact odds.
    pub as_written_exact: Option<Vec<Metric<f64>>>,
}

/// One goal on the verifying run.
#[derive(Debug, Clone, Serialize)]
pub struct GoalResult {
    /// As written (with `@SCENARIO` where several were tuned).
    pub goal: String,
    /// The scenario held to it (its file's stem).
    pub scenario: String,
    /// Its outcome, in the target syntax.
    pub target: String,
    /// Its band: `45%..55%`, `<= 10%`.
    pub band: String,
    /// Whether the outcome is a mean (else a probability).
    pub mean: bool,
    /// The battle as written, in the search's battles.
    pub before: f64,
    /// The battle as written, exactly, where it has exact odds.
    pub before_exact: Option<f64>,
    /// The band as an interval (a bound's other end open: infinite).
    #[serde(skip)]
    pub band_range: (f64, f64),
    /// What the search measured at the table found.
    pub search_estimate: f64,
    /// What the verifying run measured.
    pub estimate: f64,
    /// The verifying run's interval, family-wise over the goals.
    pub ci_low: f64,
    /// The verifying run's interval, family-wise over the goals.
    pub ci_high: f64,
    /// The exact value, where the battle has exact odds (which then judge).
    pub exact: Option<f64>,
    /// How far the judged value (exact where the battle has exact odds,
    /// else the verifying run's estimate) is from the band: percentage
    /// points for a probability, the mean's units for a mean; 0 inside it.
    pub shortfall: f64,
    /// Met, missed or too close to tell.
    pub verdict: Verdict,
    /// The tables holding stand-in values its outcome rests on.
    pub stand_in_tables: Vec<String>,
}

/// Battles of the verifying run: as asked, else enough that a goal's
/// interval, at the family-wise level, is at most half its band's
/// half-width where the band has one (a bound has none: four times the
/// search's battles), never fewer than the search's or the race's last
/// round's, and at most the cap.
pub fn verify_trials(plan: &TunePlan, request: &TuneRequest, proposal: &Proposal) -> u64 {
    request.verify_trials.unwrap_or_else(|| {
        let most = request.max_verify_trials.unwrap_or(MAX_VERIFY_TRIALS);
        verify_trials_for(
            &plan.goals,
            &plan.held,
            &proposal.search,
            plan.z,
            plan.search_trials,
        )
        .max(proposal.least_verify)
        .min(most.max(plan.search_trials))
    })
}

fn verify_trials_for(
    goals: &[Goal],
    held: &[Held],
    search: &Scored,
    z: f64,
    search_trials: u64,
) -> u64 {
    let mut n = search_trials.saturating_mul(4);
    for (held, &sd) in held.iter().zip(&search.spreads) {
        let Some(h) = goals[held.goal].half_width() else {
            continue;
        };
        if h <= 0.0 {
            continue;
        }
        // The spread of one battle's outcome as the search measured it.
        let needed = (z * sd / (h / 2.0)).powi(2).ceil() as u64;
        n = n.max(needed);
    }
    n.clamp(search_trials, MAX_VERIFY_TRIALS.max(search_trials))
}

/// Each goal judged on the verifying run's battles (`verified`, one per
/// battle tuned), in the order the goals were given, each scenario's in
/// turn; the stand-in tables are left for the report to name.
pub fn judge(
    plan: &TunePlan,
    proposal: &Proposal,
    verified: &[Verified],
) -> Result<Vec<GoalResult>> {
    let z = plan.z;
    let mut results = Vec::new();
    for (b, v) in verified.iter().enumerate() {
        let all = with_combined(&v.metrics);
        // Where the battle has exact odds, they judge; the simulation's
        // interval stays beside them.
        let exact = (v.exact.as_ref()).map(|odds| with_combined_as(&v.metrics, odds));
        let as_written_exact =
            (v.as_written_exact.as_ref()).map(|odds| with_combined_as(&v.metrics, odds));
        for (k, h) in plan.held.iter().enumerate().filter(|(_, h)| h.battle == b) {
            let g = &plan.goals[h.goal];
            let measured = measure(g, &all)?;
            let (low, high) = measured.interval(z);
            let exact = exact
                .as_ref()
                .and_then(|odds| g.target.exact_estimate(odds).ok());
            results.push((
                k,
                GoalResult {
                    goal: h.label.clone(),
                    scenario: plan.names[b].clone(),
                    target: g.target.text(),
                    band: g.band_text(),
                    mean: g.target.is_mean(),
                    before: proposal.steps.first().map_or(f64::NAN, |s| s.estimates[k]),
                    before_exact: as_written_exact
                        .as_ref()
                        .and_then(|odds| g.target.exact_estimate(odds).ok()),
                    band_range: g.range(),
                    search_estimate: proposal.search.estimates[k],
                    estimate: measured.estimate(),
                    ci_low: low,
                    ci_high: high,
                    exact,
                    shortfall: g.shortfall(exact.unwrap_or(measured.estimate())),
                    verdict: exact.map_or_else(|| g.verdict(low, high), |p| g.verdict(p, p)),
                    stand_in_tables: Vec::new(),
                },
            ));
        }
    }
    results.sort_by_key(|&(k, _)| k);
    Ok(results.into_iter().map(|(_, r)| r).collect())
}

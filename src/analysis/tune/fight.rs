//! The runner's side of a tune: each candidate the search asks for made
//! into each scenario tuned and fought there (or read from its exact
//! odds), the verifying run, and each change's effect alone.

use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Result;
use toml::Value;

use crate::analysis::runner::{
    PairedAsk, Plan, exact_metrics, metric_layout, run_info, simulate, simulate_paired,
    simulate_variants,
};
use crate::engine::paired::Event;
use crate::questions::target::{Target, with_combined, with_combined_as};
use crate::questions::tune::fight::{Ask, Fought, Measured, measure};
use crate::questions::tune::moves::{candidate_name, changes, same, shown};
use crate::questions::tune::plan::{Held, TunePlan};
use crate::questions::tune::verdicts::Verified;
use crate::questions::tune::{Effect, Goal};
use crate::report::{RunInfo, ScenarioUse};
use crate::scenario::tuned::edits;
use crate::scenario::{Resolved, Scenario};
use crate::stats::{Metric, Values, paired_difference};

/// The battles tuned, fighting what the search asks.
pub(super) struct Fighter<'a> {
    /// Each scenario tuned, in the plan's order.
    pub(super) resolved: &'a [Resolved],
    pub(super) plan: &'a TunePlan,
    /// How the runner fights (its threads).
    pub(super) run: Plan,
    /// Battles fought so far (each variant's battles counted).
    fought: AtomicU64,
}

impl<'a> Fighter<'a> {
    pub(super) fn new(resolved: &'a [Resolved], plan: &'a TunePlan, run: Plan) -> Fighter<'a> {
        Fighter {
            resolved,
            plan,
            run,
            fought: AtomicU64::new(0),
        }
    }

    /// Battles fought so far.
    pub(super) fn fought(&self) -> u64 {
        self.fought.load(Ordering::Relaxed)
    }

    fn count(&self, battles: u64) {
        self.fought.fetch_add(battles, Ordering::Relaxed);
    }

    /// A candidate of scenario `b`, on `trials` battles of `seed`.
    fn scenario(&self, at: &[Value], b: usize, (trials, seed): (u64, u64)) -> Result<Scenario> {
        let mut s = self.resolved[b].edited(edits(self.plan, at, b))?;
        s.override_settings(Some(trials), Some(seed))?;
        Ok(s)
    }

    /// A candidate of scenario `b` at the search's battles and seed.
    fn searched(&self, at: &[Value], b: usize) -> Result<Scenario> {
        self.scenario(at, b, (self.plan.search_trials, self.plan.search_seed))
    }

    /// The table `at` fought on the verifying run's `trials` battles, one
    /// battle tuned at a time; each one's provenance (recording `command`
    /// and the time since `started`) is added to `runs`.
    pub(super) fn verify(
        &self,
        at: &[Value],
        trials: u64,
        (command, started): (&str, std::time::Instant),
        runs: &mut Vec<(ScenarioUse, RunInfo)>,
    ) -> Result<Vec<Verified>> {
        let mut verified = Vec::new();
        for b in 0..self.resolved.len() {
            let tuned = self.scenario(at, b, (trials, self.plan.verify_seed))?;
            let counted = simulate(&tuned, &self.run)?;
            self.count(trials);
            let mut info = run_info(&tuned, command.to_owned(), 1, started.elapsed());
            info.scenario_sha256 = Some(crate::tables::sha256_hex(
                self.resolved[b].text().as_bytes(),
            ));
            verified.push(Verified {
                exact: exact_metrics(&tuned).ok(),
                as_written_exact: exact_metrics(&self.searched(&self.plan.start, b)?).ok(),
                metrics: counted.metrics,
            });
            let used = ScenarioUse {
                variant: self.plan.names[b].clone(),
                path: tuned.path.display().to_string(),
                sha256: tuned.sha256.clone(),
                text: Some(tuned.text.clone()),
                tables: tuned.battle.tables().to_vec(),
                rests_on: tuned.battle.rests_on(),
            };
            runs.push((used, info));
        }
        Ok(verified)
    }
}

impl Ask for Fighter<'_> {
    fn paired(
        &self,
        candidates: &[Vec<Value>],
        trials: u64,
        seed: u64,
    ) -> Result<(Vec<Option<Fought>>, usize)> {
        let (goals, held) = (&self.plan.goals[..], &self.plan.held[..]);
        let battles = self.resolved.len();
        let mut loaded: Vec<Vec<Scenario>> = Vec::new();
        let mut kept = Vec::new();
        'candidate: for (k, c) in candidates.iter().enumerate() {
            let mut each = Vec::new();
            for b in 0..battles {
                match self.scenario(c, b, (trials, seed)) {
                    Ok(s) => each.push(s),
                    Err(e) if k == 0 => return Err(e),
                    Err(_) => continue 'candidate,
                }
            }
            loaded.push(each);
            kept.push(k);
        }
        let mut threads = 1;
        // Each held goal's measure, and the standard error of its paired
        // difference from the current candidate's, candidate by candidate.
        let mut measured: Vec<Vec<Option<Measured>>> = vec![vec![None; held.len()]; kept.len()];
        let mut errors: Vec<Vec<f64>> = (0..kept.len()).map(|_| vec![0.0; held.len()]).collect();
        for b in 0..battles {
            // A battle with exact odds is scored by them: no battle fought,
            // no noise in its goals' differences.
            if self.plan.exact[b] {
                for (c, each) in loaded.iter().enumerate() {
                    let odds = with_combined_as(&metric_layout(&each[b]), &each[b].battle.exact()?);
                    for (k, h) in held.iter().enumerate().filter(|(_, h)| h.battle == b) {
                        let target = &goals[h.goal].target;
                        let value = target.exact_estimate(&odds)?;
                        let spread = if target.is_mean() {
                            spread(&odds[target.mean_metric(&odds)?])
                        } else {
                            0.0
                        };
                        measured[c][k] = Some(Measured::Exact(value, spread));
                    }
                }
                continue;
            }
            let named: Vec<(String, &Scenario)> = (kept.iter().zip(&loaded))
                .map(|(&c, each)| {
                    (
                        candidate_name(&self.plan.dimensions, &self.plan.start, &candidates[c]),
                        &each[b],
                    )
                })
                .collect();
            // The events held here, as targets: what makes the paired
            // engine count the battles in which both candidates had them.
            let raw = metric_layout(&loaded[0][b]);
            let targets: Vec<(usize, Target)> = (held.iter().enumerate())
                .filter(|(_, h)| h.battle == b)
                .map(|(k, h)| (k, goals[h.goal].target.clone()))
                .filter(|(_, t)| !t.is_mean() && t.event(&raw).is_ok())
                .collect();
            let asked: Vec<Target> = targets.iter().map(|(_, t)| t.clone()).collect();
            let done = simulate_variants(&named, &asked, &self.run)?;
            threads = threads.max(done.threads);
            self.count(trials * named.len() as u64);
            let all: Vec<Vec<Metric<u64>>> = (done.variants.iter())
                .map(|v| with_combined(&v.metrics))
                .collect();
            for (k, h) in held.iter().enumerate().filter(|(_, h)| h.battle == b) {
                for (c, m) in measured.iter_mut().enumerate() {
                    m[k] = Some(measure(&goals[h.goal], &all[c])?);
                }
            }
            for (c, v) in done.variants.iter().enumerate().skip(1) {
                for (k, t) in &targets {
                    let both = (v.shared.iter())
                        .find(|s| {
                            s.subject == t.subject
                                && s.metric == t.outcome_name()
                                && s.value == "yes"
                        })
                        .map(|s| s.battles);
                    if let (
                        Some(both),
                        Some(Measured::Share(x0, n)),
                        Some(Measured::Share(x1, _)),
                    ) = (both, &measured[0][*k], &measured[c][*k])
                    {
                        errors[c][*k] = paired_share_error(*n, *x0, *x1, both);
                    }
                }
                for (k, h) in held.iter().enumerate().filter(|(_, h)| h.battle == b) {
                    let g = &goals[h.goal];
                    if !g.target.is_mean() {
                        continue;
                    }
                    let Ok(at) = g.target.mean_metric(&all[0]) else {
                        continue;
                    };
                    let m = &all[0][at];
                    if let Some(p) = (v.paired_means.iter())
                        .find(|p| p.subject == m.subject && p.metric == m.name)
                    {
                        errors[c][k] = paired_mean_error(&p.sums);
                    }
                }
            }
        }
        let mut fought: Vec<Option<Fought>> = vec![None; candidates.len()];
        for ((k, measured), errors) in kept.into_iter().zip(measured).zip(errors) {
            fought[k] = Some(Fought {
                measured: (measured.into_iter())
                    .map(|m| m.expect("every held goal is measured"))
                    .collect(),
                errors,
            });
        }
        Ok((fought, threads))
    }

    fn exact(&self, at: &[Value]) -> Result<Vec<Measured>> {
        let (goals, held) = (&self.plan.goals[..], &self.plan.held[..]);
        let mut odds: Vec<Option<Vec<Metric<f64>>>> = vec![None; self.resolved.len()];
        for h in held {
            if odds[h.battle].is_none() {
                let s = self.searched(at, h.battle)?;
                let exact = s.battle.exact()?;
                odds[h.battle] = Some(with_combined_as(&metric_layout(&s), &exact));
            }
        }
        let mut measured = Vec::with_capacity(held.len());
        for h in held {
            let metrics = odds[h.battle].as_ref().expect("scored above");
            let target = &goals[h.goal].target;
            let value = target.exact_estimate(metrics)?;
            measured.push(Measured::Exact(
                value,
                if target.is_mean() {
                    spread(&metrics[target.mean_metric(metrics)?])
                } else {
                    0.0
                },
            ));
        }
        Ok(measured)
    }

    /// Newcombe's paired interval for an event, Student's t on the
    /// battles' differences for a mean (95% each). A goal whose outcome
    /// the paired engine cannot count alone (one combined from several
    /// metrics) has no effect written.
    fn effects(&self, at: &[Value], trials: u64, seed: u64) -> Result<Vec<Effect>> {
        let plan = self.plan;
        let (goals, held) = (&plan.goals[..], &plan.held[..]);
        let start = &plan.start;
        let mut found = Vec::new();
        for b in 0..self.resolved.len() {
            let changes: Vec<(usize, &Value)> = (at.iter().enumerate())
                .filter(|&(i, v)| !same(v, &start[i]) && plan.dimensions[i].present[b])
                .collect();
            let here: Vec<&Held> = held.iter().filter(|h| h.battle == b).collect();
            if changes.is_empty() || here.is_empty() {
                continue;
            }
            let mut scenarios = vec![self.scenario(start, b, (trials, seed))?];
            for &(i, v) in &changes {
                let mut alone = start.to_vec();
                alone[i] = v.clone();
                scenarios.push(self.scenario(&alone, b, (trials, seed))?);
            }
            let layout = metric_layout(&scenarios[0]);
            // Each goal as the paired engine counts it: an event or a mean.
            let counted: Vec<Option<Result<Event, usize>>> = (here.iter())
                .map(|h| {
                    let g: &Goal = &goals[h.goal];
                    if g.target.is_mean() {
                        g.target.mean_metric(&layout).ok().map(Err)
                    } else {
                        g.target.event(&layout).ok().map(Ok)
                    }
                })
                .collect();
            let events: Vec<Event> = (counted.iter().flatten())
                .filter_map(|c| c.clone().ok())
                .collect();
            let means: Vec<usize> = (counted.iter().flatten())
                .filter_map(|c| c.clone().err())
                .collect();
            let all: Vec<&Scenario> = scenarios.iter().collect();
            let ask = PairedAsk {
                events: vec![events.clone(); all.len()],
                means: vec![means.clone(); all.len()],
            };
            let done = simulate_paired(&all, ask, &self.run, None)?;
            let n = done.trials;
            self.count(n * all.len() as u64);
            for (k, &(i, v)) in changes.iter().enumerate() {
                let variant = k + 1;
                let (mut e, mut m) = (0, 0);
                for (h, c) in here.iter().zip(&counted) {
                    let interval = match c {
                        Some(Ok(event)) => {
                            let (x0, x1) =
                                (done.event_count(0, event), done.event_count(variant, event));
                            let both = done.both[variant][e];
                            e += 1;
                            Some((paired_difference(n, x0, x1, both), "paired_newcombe"))
                        }
                        Some(Err(_)) => {
                            let sums = &done.mean_sums[variant][m];
                            m += 1;
                            sums.means().map(|p| (p.difference, "paired_t"))
                        }
                        None => None,
                    };
                    found.push(Effect {
                        setting: plan.dimensions[i].path.join("."),
                        from: shown(&start[i]),
                        to: shown(v),
                        goal: h.label.clone(),
                        scenario: plan.names[b].clone(),
                        mean: goals[h.goal].target.is_mean(),
                        difference: interval.map(|(d, _)| d),
                        method: interval.map_or("not_paired_alone", |(_, method)| method),
                    });
                }
            }
        }
        // Each change's effects together, in the order the changes are listed.
        let order: Vec<String> = changes(&plan.dimensions, start, at)
            .map(|(d, _)| d.path.join("."))
            .collect();
        found.sort_by_key(|e| order.iter().position(|p| *p == e.setting));
        Ok(found)
    }
}

/// The standard error of a paired difference of two shares of `n`
/// battles (`x0` and `x1` with the event, `both` with it in both).
fn paired_share_error(n: u64, x0: u64, x1: u64, both: u64) -> f64 {
    let n = n.max(1) as f64;
    let (b, c) = ((x1 - both.min(x1)) as f64, (x0 - both.min(x0)) as f64);
    ((b + c) / n - ((b - c) / n).powi(2)).max(0.0).sqrt() / n.sqrt()
}

/// The standard error of a paired difference of two means.
fn paired_mean_error(sums: &crate::stats::paired_mean::PairedSums) -> f64 {
    let n = sums.battles as f64;
    if n < 2.0 {
        return 0.0;
    }
    let mean = sums.sum as f64 / n;
    let variance = ((sums.squares as f64 - n * mean * mean) / (n - 1.0)).max(0.0);
    (variance / n).sqrt()
}

/// The standard deviation of a numeric metric's exact distribution.
fn spread(m: &Metric<f64>) -> f64 {
    let Values::Integers { first } = m.values else {
        return 0.0;
    };
    let total: f64 = m.weights.iter().sum();
    if total <= 0.0 {
        return 0.0;
    }
    let value = |b: usize| (first + b as i64) as f64;
    let mean = (m.weights.iter().enumerate())
        .map(|(b, w)| value(b) * w)
        .sum::<f64>()
        / total;
    let variance = (m.weights.iter().enumerate())
        .map(|(b, w)| (value(b) - mean).powi(2) * w)
        .sum::<f64>()
        / total;
    variance.max(0.0).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_of_an_exact_distribution() {
        // Values 1 and 3, half each: mean 2, standard deviation 1.
        let m = Metric {
            subject: "hero:A".to_owned(),
            name: "reputation".to_owned(),
            values: Values::Integers { first: 1 },
            weights: vec![0.5, 0.0, 0.5],
            role: Default::default(),
        };
        assert!((spread(&m) - 1.0).abs() < 1e-12);
    }
}

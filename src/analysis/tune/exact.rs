//! A tune's candidates scored by their exact odds, where every battle
//! tuned has them: no battle fought, no sampling noise, no seed.

use anyhow::Result;
use rayon::prelude::*;
use toml::Value;

use crate::analysis::runner::metric_layout;
use crate::questions::target::with_combined_as;
use crate::questions::tune::Goal;
use crate::stats::Metric;

use super::battles::Held;
use super::fight::{Fight, Scored, spread, weighed_total};

impl Fight<'_> {
    /// Whether every battle tuned has exact odds as written (each
    /// candidate then has them too: a table's cells or a setting's value
    /// never decide whether a system's exact method applies, and a
    /// candidate where one does is left out).
    pub(super) fn exact_everywhere(&self) -> bool {
        self.exact.iter().all(|&e| e)
    }

    /// Whether battle `b` has exact odds as written (its candidates then
    /// have them too, as [`Fight::exact_everywhere`] says).
    pub(super) fn exact_in(&self, b: usize) -> bool {
        self.exact[b]
    }

    /// Per battle, whether it has exact odds as written: what
    /// [`Fight::exact`] holds, found once.
    pub(super) fn exact_odds_of(&self) -> Vec<bool> {
        (0..self.battles.len())
            .map(|b| {
                self.scenario(self.start, b)
                    .is_ok_and(|s| s.battle.exact().is_ok())
            })
            .collect()
    }

    /// Every candidate scored by its exact odds in every battle, on
    /// `threads` workers (0: every core). A candidate the rules refuse in
    /// any battle (a table's rows out of order after a move, a declared
    /// order broken), or whose odds cannot be had exactly, is left out.
    /// The order of `candidates` is kept.
    pub(super) fn score_exact(
        &self,
        candidates: &[Vec<Value>],
        (goals, held): (&[Goal], &[Held]),
        threads: usize,
    ) -> Result<Vec<Scored>> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()?;
        let scored: Vec<Result<Scored>> = pool.install(|| {
            candidates
                .par_iter()
                .map(|c| self.exact_score(c, (goals, held)))
                .collect()
        });
        Ok(scored.into_iter().filter_map(Result::ok).collect())
    }

    /// One candidate's exact estimate of each held goal, its shortfalls
    /// (the band's own, with no margin: there is no noise to keep clear
    /// of) and their weighed total; why it cannot be scored.
    pub(super) fn exact_score(
        &self,
        at: &[Value],
        (goals, held): (&[Goal], &[Held]),
    ) -> Result<Scored> {
        let mut odds: Vec<Option<Vec<Metric<f64>>>> = vec![None; self.battles.len()];
        for h in held {
            if odds[h.battle].is_none() {
                let s = self.candidate(at, h.battle)?;
                let exact = s.battle.exact()?;
                odds[h.battle] = Some(with_combined_as(&metric_layout(&s), &exact));
            }
        }
        let mut estimates = Vec::with_capacity(held.len());
        let mut spreads = Vec::with_capacity(held.len());
        for h in held {
            let metrics = odds[h.battle].as_ref().expect("scored above");
            let target = &goals[h.goal].target;
            estimates.push(target.exact_estimate(metrics)?);
            spreads.push(if target.is_mean() {
                spread(&metrics[target.mean_metric(metrics)?])
            } else {
                0.5
            });
        }
        let shortfalls: Vec<f64> = (held.iter().zip(&estimates))
            .map(|(h, &e)| goals[h.goal].shortfall(e))
            .collect();
        Ok(Scored {
            at: at.to_vec(),
            total: weighed_total(goals, held, &shortfalls),
            estimates,
            spreads,
            shortfalls,
            noise: 0.0,
        })
    }
}

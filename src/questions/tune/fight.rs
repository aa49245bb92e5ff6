//! The candidates of a tune scored: each asked of the battles (the
//! runner answers, through [`Ask`]), then each held goal's shortfall and
//! their weighed total worked out here, with the noise of each paired
//! difference.

use anyhow::{Result, bail};
use rayon::prelude::*;
use toml::Value;

use super::moves::changed;
use super::moves::{Dimension, candidate_name, changes};
use super::plan::{Held, Kept, TunePlan};
use super::{Effect, Goal, StepRow};
use crate::stats::{Metric, wilson};

/// What the search asks of the battles tuned; the runner answers.
pub trait Ask: Sync {
    /// Fights every candidate in every battle, each battle's candidates on
    /// the same `trials` battles of `seed` (a battle with exact odds is
    /// measured by them instead). Per candidate, in order: each held
    /// goal's measure and the standard error of its paired difference
    /// from the first candidate's; `None` for a candidate the rules refuse
    /// in some battle (the first is never left out: its refusal is the
    /// error). Also the threads used.
    fn paired(
        &self,
        candidates: &[Vec<Value>],
        trials: u64,
        seed: u64,
    ) -> Result<(Vec<Option<Fought>>, usize)>;

    /// One candidate's exact measure of each held goal: the value and, for
    /// a mean, its standard deviation (0 for a share); why it has none.
    fn exact(&self, at: &[Value]) -> Result<Vec<Measured>>;

    /// Each change of `at` made alone to each battle as written, fought
    /// with it on the same `trials` battles of `seed`: its paired effect on
    /// every goal held there.
    fn effects(&self, at: &[Value], trials: u64, seed: u64) -> Result<Vec<Effect>>;
}

/// A candidate fought: each held goal's measure, and the standard error
/// of its paired difference from the first candidate's.
#[derive(Debug, Clone)]
pub struct Fought {
    pub measured: Vec<Measured>,
    pub errors: Vec<f64>,
}

/// What the search fights: the plan's candidates, on `trials` battles of
/// `seed`, keeping `orders`.
pub struct Fight<'a> {
    pub plan: &'a TunePlan,
    pub ask: &'a dyn Ask,
    /// The dimensions, as the plan has them.
    pub dimensions: &'a [Dimension],
    /// Each dimension's value in the battles as written.
    pub start: &'a [Value],
    pub trials: u64,
    pub seed: u64,
    /// The declared orders a candidate must keep (the plan's, or none).
    pub orders: &'a [Kept],
}

/// A candidate fought: where it is, each held goal's estimate and
/// shortfall, and their sum.
#[derive(Debug, Clone)]
pub struct Scored {
    pub at: Vec<Value>,
    pub estimates: Vec<f64>,
    /// Each held goal's spread of one battle's outcome: a mean's standard
    /// deviation, a share's at most 1/2.
    pub spreads: Vec<f64>,
    pub shortfalls: Vec<f64>,
    /// The shortfalls summed, each over its goal's own scale and times its
    /// weight ([`Goal::weighed`]).
    pub total: f64,
    /// The standard error of its goals' paired differences from the
    /// current candidate's (fought on the same battles), in the
    /// shortfall's units, summed as squares: how much of a difference in
    /// total shortfall the search's battles cannot tell from chance. 0 for
    /// the current candidate itself.
    pub noise: f64,
}

impl<'a> Fight<'a> {
    /// The search of `plan` on its own battles, asking `ask`, keeping the
    /// plan's orders.
    pub fn new(plan: &'a TunePlan, ask: &'a dyn Ask) -> Fight<'a> {
        Fight {
            plan,
            ask,
            dimensions: &plan.dimensions,
            start: &plan.start,
            trials: plan.search_trials,
            seed: plan.search_seed,
            orders: &plan.orders,
        }
    }

    /// The dimensions a candidate changes, with their values.
    pub fn changes<'v>(&self, at: &'v [Value]) -> impl Iterator<Item = (&'a Dimension, &'v Value)> {
        changes(self.dimensions, self.start, at)
    }

    /// How many one-step moves candidate `at` is from the battles as
    /// written, summed over the values it changes.
    pub fn steps(&self, at: &[Value]) -> usize {
        (self.changes(at))
            .map(|(d, v)| d.distance(v, &d.value))
            .sum()
    }

    /// A candidate's name: each setting it changes at its value, or `as
    /// written`.
    pub fn name(&self, at: &[Value]) -> String {
        candidate_name(self.dimensions, self.start, at)
    }

    /// Adds `round` to `steps` as `steps.csv` lists it: as step `step` of
    /// pass `pass`, candidate `chosen` (if any) the one taken.
    pub fn record(
        &self,
        steps: &mut Vec<StepRow>,
        (pass, step): (usize, usize),
        round: &[Scored],
        chosen: Option<usize>,
    ) {
        steps.extend(round.iter().enumerate().map(|(k, s)| StepRow {
            pass,
            step,
            candidate: self.name(&s.at),
            changed: changed(&s.at, self.start),
            estimates: s.estimates.clone(),
            shortfalls: s.shortfalls.clone(),
            total: s.total,
            chosen: chosen == Some(k),
        }));
    }

    /// The same battles, dimensions and seed with no declared order kept:
    /// a second search, beside this one, that says which order blocks a
    /// goal.
    pub fn without_orders(&self) -> Fight<'a> {
        Fight {
            orders: &[],
            ..*self
        }
    }

    /// The same candidates fought on `trials` other battles of `seed`: the
    /// race's rounds.
    pub fn again_on(&self, trials: u64, seed: u64) -> Fight<'a> {
        Fight {
            trials,
            seed,
            ..*self
        }
    }

    /// Whether battle `b` has exact odds (its candidates then have them too).
    pub fn exact_in(&self, b: usize) -> bool {
        self.plan.exact[b]
    }

    /// Each kept order candidate `at` breaks, in words: `the battle_chart
    /// table's rows.*.engaged.reputation never falls (rows 1 and 2: 3 then 2)`.
    pub fn disorders(&self, at: &[Value]) -> Vec<String> {
        let mut broken = Vec::new();
        // Each moved table's candidate text, made once for all its orders.
        let mut made: Vec<(&str, Option<toml::Table>)> = Vec::new();
        for kept in self.orders {
            let doc = match made.iter().find(|(t, _)| *t == kept.table) {
                Some((_, doc)) => doc,
                None => {
                    made.push((&kept.table, self.candidate_table(at, kept)));
                    &made.last().expect("just pushed").1
                }
            };
            if let Some(at) = doc.as_ref().and_then(|d| kept.order.broken_in(d)) {
                broken.push(format!(
                    "the {} table's {} ({at})",
                    kept.table,
                    kept.order.words()
                ));
            }
        }
        broken
    }

    /// The table `kept` belongs to with candidate `at`'s cells set, where
    /// the candidate sets any.
    fn candidate_table(&self, at: &[Value], kept: &Kept) -> Option<toml::Table> {
        let edits: Vec<(Vec<String>, Value)> = (self.changes(at))
            .filter(|(d, _)| d.path.len() > 2 && d.path[0] == "tables" && d.path[1] == kept.table)
            .map(|(d, v)| (d.path[2..].to_vec(), v.clone()))
            .collect();
        if edits.is_empty() {
            return None;
        }
        let text = crate::tables::toml_path::set_keeping_layout(&kept.text, &edits).ok()?;
        toml::from_str(&text).ok()
    }

    /// Fights every candidate in every scenario, each scenario's candidates
    /// on the same battles; each one's score, and the threads used. A
    /// candidate that breaks a kept order, or that the rules refuse in any
    /// scenario (a table's rows out of order after a move), is left out;
    /// the first, the current one, always loads.
    pub fn score(
        &self,
        candidates: &[Vec<Value>],
        (goals, held): (&[Goal], &[Held]),
    ) -> Result<(Vec<Scored>, usize)> {
        let mut asked: Vec<Vec<Value>> = Vec::new();
        for (k, c) in candidates.iter().enumerate() {
            match self.disorders(c).into_iter().next() {
                Some(broken) if k == 0 => bail!("{broken}"),
                Some(_) => {}
                None => asked.push(c.clone()),
            }
        }
        let (fought, threads) = self.ask.paired(&asked, self.trials, self.seed)?;
        let scored = (asked.into_iter().zip(fought))
            .filter_map(|(at, f)| f.map(|f| (at, f)))
            .map(|(at, Fought { measured, errors })| {
                let estimates: Vec<f64> = measured.iter().map(Measured::estimate).collect();
                // An exact goal's spread is 0 where it is a share: the race
                // reads it as known, not sampled.
                let spreads = (measured.iter())
                    .map(|m| match *m {
                        Measured::Share(..) => 0.5,
                        Measured::Mean(_, sd, _) | Measured::Exact(_, sd) => sd,
                    })
                    .collect();
                let shortfalls: Vec<f64> = (held.iter().zip(&measured))
                    .map(|(h, m)| {
                        let spread = match *m {
                            Measured::Share(..) => {
                                let p = m.estimate();
                                (p * (1.0 - p)).sqrt()
                            }
                            Measured::Mean(_, sd, _) => sd,
                            // Known exactly: no margin to keep clear of.
                            Measured::Exact(..) => 0.0,
                        };
                        goals[h.goal].shortfall_within(m.estimate(), self.plan.margin * spread)
                    })
                    .collect();
                // In the total's units: each goal's over its own scale.
                let noise = (held.iter().zip(&errors))
                    .map(|(h, e)| {
                        let g = &goals[h.goal];
                        let unit = if g.target.is_mean() { 1.0 } else { 100.0 };
                        g.weighed(unit * e).powi(2)
                    })
                    .sum::<f64>()
                    .sqrt();
                Scored {
                    total: weighed_total(goals, held, &shortfalls),
                    at,
                    estimates,
                    spreads,
                    shortfalls,
                    noise,
                }
            })
            .collect();
        Ok((scored, threads))
    }

    /// Every candidate scored by its exact odds in every battle, on
    /// `threads` workers (0: every core). A candidate the rules refuse in
    /// any battle (a table's rows out of order after a move, a declared
    /// order broken), or whose odds cannot be had exactly, is left out.
    /// The order of `candidates` is kept.
    pub fn score_exact(
        &self,
        candidates: &[Vec<Value>],
        goals: (&[Goal], &[Held]),
        threads: usize,
    ) -> Result<Vec<Scored>> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()?;
        let scored: Vec<Result<Scored>> = pool.install(|| {
            candidates
                .par_iter()
                .map(|c| self.exact_score(c, goals))
                .collect()
        });
        Ok(scored.into_iter().filter_map(Result::ok).collect())
    }

    /// One candidate's exact estimate of each held goal, its shortfalls
    /// (the band's own, with no margin: there is no noise to keep clear
    /// of) and their weighed total; why it cannot be scored.
    pub fn exact_score(&self, at: &[Value], (goals, held): (&[Goal], &[Held])) -> Result<Scored> {
        if let Some(broken) = self.disorders(at).into_iter().next() {
            bail!("{broken}");
        }
        let measured = self.ask.exact(at)?;
        let estimates: Vec<f64> = measured.iter().map(Measured::estimate).collect();
        let spreads: Vec<f64> = (held.iter().zip(&measured))
            .map(|(h, m)| match *m {
                Measured::Exact(_, sd) if goals[h.goal].target.is_mean() => sd,
                _ => 0.5,
            })
            .collect();
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

/// Each held goal's shortfall over its own scale, times its weight, summed.
pub fn weighed_total(goals: &[Goal], held: &[Held], shortfalls: &[f64]) -> f64 {
    (held.iter().zip(shortfalls))
        .map(|(h, &s)| goals[h.goal].weighed(s))
        .sum()
}

/// A goal's outcome as counted.
#[derive(Debug, Clone)]
pub enum Measured {
    /// An event: battles with it, of all battles.
    Share(u64, u64),
    /// A mean, its standard deviation and the battles.
    Mean(f64, f64, u64),
    /// Known exactly: the value, and (a mean's) standard deviation.
    Exact(f64, f64),
}

impl Measured {
    pub fn estimate(&self) -> f64 {
        match *self {
            Measured::Share(x, n) => x as f64 / n.max(1) as f64,
            Measured::Mean(mean, _, _) | Measured::Exact(mean, _) => mean,
        }
    }

    /// The interval at normal quantile `z`: Wilson for a share, normal for a mean.
    pub fn interval(&self, z: f64) -> (f64, f64) {
        match *self {
            Measured::Share(x, n) => wilson(x, n, z),
            Measured::Mean(mean, sd, n) => {
                let half = z * sd / (n.max(1) as f64).sqrt();
                (mean - half, mean + half)
            }
            Measured::Exact(value, _) => (value, value),
        }
    }
}

/// A goal's outcome in a battle's metrics (its combined ones too).
pub fn measure(g: &Goal, metrics: &[Metric<u64>]) -> Result<Measured> {
    if g.target.is_mean() {
        let m = &metrics[g.target.mean_metric(metrics)?];
        let s = m
            .summary()
            .ok_or_else(|| anyhow::anyhow!("--goal {}: no battle was counted", g.text))?;
        Ok(Measured::Mean(s.mean, s.std_dev, s.trials))
    } else {
        let e = g.target.event(metrics)?;
        let m = &metrics[e.metric];
        let x: u64 = e.bins.iter().map(|&b| m.weights[b]).sum();
        Ok(Measured::Share(x, m.total()))
    }
}

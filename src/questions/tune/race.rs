//! Ranking and selection, for a tune searched on sampled battles: the
//! table the descent ended at, with its near variants, fought again on
//! battles the search never used, until the smallest that meets every
//! goal is told from the smaller ones, or they cannot be told apart.
//!
//! Picking the best of many candidates on one sample flatters the winner;
//! so the descent only screens. Its finalists are the table it found,
//! each change taken back, and each changed value one step either way.
//! They race on fresh paired battles, each goal judged on intervals
//! family-wise over every goal of every finalist. Ranked by the fewest
//! changes, then the fewest steps from the battle as written, the pick is
//! the first that meets every goal, where every one ranked before it
//! misses one. A finalist before it that is too close to tell doubles the
//! battles, up to [`MOST_ROUNDS`] rounds; those still too close then are
//! listed beside the pick as alternatives the race could not tell apart,
//! never chosen between by noise.

use anyhow::{Result, bail};
use toml::Value;

use super::StepRow;
use super::{Goal, Verdict};
use crate::stats::z_for_confidence;

use super::fight::{Fight, Scored};
use super::moves::{changed, same};
use super::plan::Held;
use super::search::StepSeen;

/// The pass number `steps.csv` gives the race's rounds.
pub const RACE_PASS: usize = 4;

/// The race's first round fights each finalist on this many times the
/// search's battles.
const FIRST_ROUND: u64 = 4;

/// Most rounds, each on twice the battles of the one before.
pub const MOST_ROUNDS: usize = 3;

/// The seed the race takes: the search's, moved by a fixed odd constant
/// other than the verifying run's.
pub fn race_seed_of(search_seed: u64) -> u64 {
    search_seed.wrapping_add(0xD1B5_4A32_D192_ED03)
}

/// What the race decided.
pub struct Raced {
    /// The table proposed, as the race's last round scored it.
    pub pick: Scored,
    /// Whether it meets every goal on the race's intervals.
    pub met: bool,
    /// Finalists ranked before the pick (or beside it, where none meets)
    /// that the race could not tell from meeting every goal.
    pub untold: Vec<Scored>,
    /// Each goal's verdict for each alternative, as the race judged it.
    pub untold_verdicts: Vec<Vec<Verdict>>,
    /// The rounds, as `steps.csv` lists them.
    pub steps: Vec<StepRow>,
    /// Battles of the last round, each finalist.
    pub trials: u64,
    /// What the alternatives are, in words.
    pub untold_are: String,
    /// What the race did, in words.
    pub said: String,
}

/// The finalists around `found`: it first, then each change taken back,
/// then each changed value one step either way (within `max_changes`);
/// none twice.
pub fn finalists(fight: &Fight, found: &[Value], max_changes: usize) -> Vec<Vec<Value>> {
    let start = fight.start;
    let mut all: Vec<Vec<Value>> = vec![found.to_vec()];
    let mut add = |c: Vec<Value>| {
        if changed(&c, start) <= max_changes
            && !all
                .iter()
                .any(|a| a.iter().zip(&c).all(|(x, y)| same(x, y)))
        {
            all.push(c);
        }
    };
    let moved: Vec<usize> = (0..start.len())
        .filter(|&i| !same(&found[i], &start[i]))
        .collect();
    for &i in &moved {
        let mut back = found.to_vec();
        back[i] = start[i].clone();
        add(back);
    }
    for &i in &moved {
        for v in fight.dimensions[i].neighbours(&found[i]) {
            let mut next = found.to_vec();
            next[i] = v;
            add(next);
        }
    }
    all
}

/// Races `finalists` (the table found first) on fresh battles of `fight`'s
/// scenarios, as the module says.
pub fn race(
    (fight, goals): (&Fight, (&[Goal], &[Held])),
    finalists: &[Vec<Value>],
    seen: &mut StepSeen,
) -> Result<Raced> {
    let (goal_list, held) = goals;
    let start = fight.start;
    let seed = race_seed_of(fight.seed);
    let mut trials = fight.trials.saturating_mul(FIRST_ROUND);
    let mut racing: Vec<Vec<Value>> = finalists.to_vec();
    let mut steps = Vec::new();
    let mut round = 0;
    loop {
        round += 1;
        if crate::engine::stop_asked() {
            bail!("the tune was stopped");
        }
        let again = fight.again_on(trials, seed);
        let (mut scored, _) = again.score(&racing, goals)?;
        // Family-wise over every goal of every finalist.
        let z = z_for_confidence(
            1.0 - (1.0 - super::plan::CONFIDENCE) / (held.len() * scored.len()).max(1) as f64,
        );
        scored.sort_by_key(|s| (changed(&s.at, start), fight.steps(&s.at)));
        let judged: Vec<(Verdict, Vec<Verdict>)> = (scored.iter())
            .map(|s| judge(goal_list, held, s, trials, z))
            .collect();
        let pick = judged.iter().position(|(v, _)| *v == Verdict::Met);
        let before = pick.unwrap_or(judged.len());
        let untold: Vec<usize> = (0..before)
            .filter(|&k| judged[k].0 == Verdict::TooCloseToTell)
            .collect();
        fight.record(&mut steps, (RACE_PASS, round), &scored, pick);
        let leader = pick.map_or(&scored[0], |k| &scored[k]);
        seen((RACE_PASS, round), &fight.name(&leader.at), leader.total)?;
        if untold.is_empty() || round == MOST_ROUNDS {
            let battles = crate::stats::format::thousands(trials);
            let said = match (pick, untold.len()) {
                (Some(_), 0) => format!(
                    "the race of {} finalists on {battles} fresh battles each: the smallest that meets every goal, every smaller one missing a goal",
                    finalists.len()
                ),
                (Some(_), n) => format!(
                    "the race of {} finalists on {battles} fresh battles each: the smallest that meets every goal; {n} smaller one{} could not be told from meeting (listed as alternatives)",
                    finalists.len(),
                    if n == 1 { "" } else { "s" }
                ),
                (None, _) => format!(
                    "the race of {} finalists on {battles} fresh battles each: none meets every goal on them",
                    finalists.len()
                ),
            };
            // Where none meets, the descent's own table stays the proposal.
            let pick_at = pick.unwrap_or_else(|| {
                (scored.iter())
                    .position(|s| s.at == finalists[0])
                    .unwrap_or(0)
            });
            let untold: Vec<usize> = if pick.is_some() {
                untold
            } else {
                (0..scored.len())
                    .filter(|&k| k != pick_at && judged[k].0 == Verdict::TooCloseToTell)
                    .collect()
            };
            let untold_are = if pick.is_some() {
                format!(
                    "Smaller tables the race could not tell from meeting every goal on {battles} fresh battles each: equal alternatives, none chosen by noise"
                )
            } else {
                format!(
                    "Finalists the race could not tell from meeting every goal on {battles} fresh battles each"
                )
            };
            return Ok(Raced {
                met: pick.is_some(),
                untold_are,
                pick: scored[pick_at].clone(),
                untold_verdicts: untold.iter().map(|&k| judged[k].1.clone()).collect(),
                untold: untold.iter().map(|&k| scored[k].clone()).collect(),
                steps,
                trials,
                said,
            });
        }
        // Again, on twice the battles: those too close, and the pick.
        racing = (untold.iter().chain(pick.as_slice()))
            .map(|&k| scored[k].at.clone())
            .collect();
        trials = trials.saturating_mul(2);
    }
}

/// A finalist's verdict on `trials` battles at normal quantile `z`: met
/// where every goal's interval is inside its band, missed where one is
/// outside, else too close to tell; and each goal's.
fn judge(
    goals: &[Goal],
    held: &[Held],
    s: &Scored,
    trials: u64,
    z: f64,
) -> (Verdict, Vec<Verdict>) {
    let n = trials.max(1) as f64;
    let each: Vec<Verdict> = (held.iter().enumerate())
        .map(|(k, h)| {
            let g = &goals[h.goal];
            let p = s.estimates[k];
            // Known exactly (a battle with exact odds): no interval.
            let exact = s.spreads[k] == 0.0;
            let (low, high) = if exact {
                (p, p)
            } else if g.target.is_mean() {
                let half = z * s.spreads[k] / n.sqrt();
                (p - half, p + half)
            } else {
                let x = (p * n).round() as u64;
                crate::stats::wilson(x, trials.max(1), z)
            };
            g.verdict(low, high)
        })
        .collect();
    let all = if each.contains(&Verdict::Missed) {
        Verdict::Missed
    } else if each.iter().all(|v| *v == Verdict::Met) {
        Verdict::Met
    } else {
        Verdict::TooCloseToTell
    };
    (all, each)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_race_seed_is_neither_the_search_seed_nor_the_verifying_one() {
        for seed in [0, 5, u64::MAX] {
            assert_ne!(race_seed_of(seed), seed);
            assert_ne!(race_seed_of(seed), super::super::plan::verify_seed_of(seed));
        }
    }
}

//! The search of a tune: steps that each take the move (or pair of moves)
//! that most lowers the total shortfall beyond the noise of the search's
//! battles, then the tidying that takes back what costs nothing.

use anyhow::Result;
use toml::Value;

use super::Goal;
use super::StepRow;

use super::fight::{Fight, Scored};
use super::moves::{changed, same};
use super::plan::Held;

/// One step of the search as it is taken (a move, or a pair of moves, to
/// another candidate): its pass and number, the candidate, and its total
/// shortfall.
pub type StepSeen<'a> = dyn FnMut((usize, usize), &str, f64) -> Result<()> + 'a;

/// Whether a step of the search also tries pairs of moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairs {
    /// Only when no single move lowers the shortfall.
    WhenStalled,
    /// At every step, beside the single moves.
    Always,
}

/// Most candidates one step fights: pairs of moves beyond it are not tried.
pub const MAX_CANDIDATES: usize = 2_000;

/// How many standard errors of its paired difference a move must gain to
/// be taken (and may cost to be taken back, when tidying).
pub const NOISE_MARGIN: f64 = 2.0;

/// The pass number `steps.csv` gives the tidying after the search.
pub const TIDY_PASS: usize = 3;

/// Where one pass of the search ended.
pub struct Descent {
    pub current: Vec<Value>,
    /// The candidate it ended at, as last fought.
    pub here: Scored,
    pub steps: Vec<StepRow>,
    pub stopped: String,
    pub threads: usize,
}

/// The search's state between steps: where it is and what it has fought.
pub struct Walk<'f, 'a> {
    pub fight: &'f Fight<'a>,
    pub goals: (&'f [Goal], &'f [Held]),
    pub start: &'f [Value],
    pub pass: usize,
    pub current: Vec<Value>,
    pub here: Option<Scored>,
    pub steps: Vec<StepRow>,
    pub threads: usize,
}

impl Walk<'_, '_> {
    /// Fights `candidates` (the current one first) and records them as
    /// step `step`; takes the least total shortfall if it is lower than the
    /// current one's (fewer changes breaking a tie). Whether it moved.
    pub fn round(&mut self, step: usize, candidates: Vec<Vec<Value>>) -> Result<bool> {
        let (round, used) = self.fight.score(&candidates, self.goals)?;
        self.threads = self.threads.max(used);
        let start = self.start;
        let here = round[0].total;
        // The least total shortfall among the moves whose gain stands out
        // from the noise of the search's battles.
        let best = (1..round.len())
            .filter(|&k| here - round[k].total > NOISE_MARGIN * round[k].noise)
            .min_by(|&a, &b| {
                let key = |k: usize| (round[k].total, changed(&round[k].at, start), k);
                key(a).partial_cmp(&key(b)).expect("shortfalls are numbers")
            });
        let moved = best.is_some();
        let best = best.unwrap_or(0);
        self.take(step, &round, if moved { best } else { 0 });
        Ok(moved)
    }

    /// Records every candidate of `round` as step `step` of the walk's
    /// pass, and goes to candidate `chosen` (0: stays where it is).
    fn take(&mut self, step: usize, round: &[Scored], chosen: usize) {
        (self.fight).record(&mut self.steps, (self.pass, step), round, Some(chosen));
        self.current = round[chosen].at.clone();
        self.here = Some(round[chosen].clone());
    }

    /// The total shortfall where the walk is.
    pub fn total(&self) -> f64 {
        self.here.as_ref().map_or(f64::INFINITY, |h| h.total)
    }

    /// The candidates one move (or each of `dimensions`' moves) away.
    pub fn singles(&self, dimensions: impl Iterator<Item = usize>) -> Vec<(usize, Value)> {
        dimensions
            .flat_map(|i| {
                (self.fight.dimensions[i]
                    .neighbours(&self.current[i])
                    .into_iter())
                .map(move |v| (i, v))
            })
            .collect()
    }

    /// `current` with `moves` made.
    pub fn with(&self, moves: &[&(usize, Value)]) -> Vec<Value> {
        let mut c = self.current.clone();
        for (i, v) in moves {
            c[*i] = v.clone();
        }
        c
    }

    pub fn into_descent(self, stopped: String) -> Descent {
        Descent {
            current: self.current,
            here: self.here.expect("the walk fought at least once"),
            steps: self.steps,
            stopped,
            threads: self.threads,
        }
    }
}

/// One pass of the search from `start`: each step fights the current
/// candidate and those one move away (and pairs of moves, as `pairs` says),
/// and takes the least total shortfall, fewer changes breaking a tie;
/// after a single move, the same setting keeps moving while that lowers
/// the shortfall (a few candidates a move, not a whole step).
pub fn descend(
    (fight, goals): (&Fight, (&[Goal], &[Held])),
    (start, max_changes, max_steps): (&[Value], usize, usize),
    (pass, pairs): (usize, Pairs),
    seen: &mut StepSeen,
) -> Result<Descent> {
    let mut walk = Walk {
        fight,
        goals,
        start,
        pass,
        current: start.to_vec(),
        here: None,
        steps: Vec::new(),
        threads: 1,
    };
    let allowed = |c: &Vec<Value>| changed(c, start) <= max_changes;
    for step in 1..=max_steps {
        let singles = walk.singles(0..fight.dimensions.len());
        let one: Vec<Vec<Value>> = (singles.iter())
            .map(|m| walk.with(&[m]))
            .filter(allowed)
            .collect();
        let mut two: Vec<Vec<Value>> = Vec::new();
        for (k, a) in singles.iter().enumerate() {
            for b in &singles[k + 1..] {
                if a.0 != b.0 {
                    let c = walk.with(&[a, b]);
                    if allowed(&c) {
                        two.push(c);
                    }
                }
            }
        }
        let pairs_fit = two.len() + one.len() < MAX_CANDIDATES;
        let here = vec![walk.current.clone()];
        let rounds: Vec<Vec<Vec<Value>>> = match (pairs, pairs_fit) {
            (Pairs::Always, true) => vec![[here, one, two].concat()],
            (Pairs::WhenStalled, true) => vec![[here.clone(), one].concat(), [here, two].concat()],
            (_, false) => vec![[here, one].concat()],
        };
        let before = walk.current.clone();
        let mut moved = false;
        let mut fought = false;
        for candidates in rounds {
            if candidates.len() < 2 {
                continue;
            }
            fought = true;
            moved = walk.round(step, candidates)?;
            if moved {
                break;
            }
        }
        if !fought {
            return Ok(walk.into_descent("nothing is left to move".to_owned()));
        }
        if moved {
            seen((pass, step), &fight.name(&walk.current), walk.total())?;
            // A single move: keep moving that setting while it helps.
            let moved_alone: Vec<usize> = (0..before.len())
                .filter(|&i| !same(&before[i], &walk.current[i]))
                .collect();
            if let [i] = moved_alone[..] {
                let mut previous = before[i].clone();
                loop {
                    let onward: Vec<Vec<Value>> = (walk.singles(std::iter::once(i)).iter())
                        .filter(|(_, v)| !same(v, &previous))
                        .map(|m| walk.with(&[m]))
                        .filter(allowed)
                        .collect();
                    if onward.is_empty() || walk.total() == 0.0 {
                        break;
                    }
                    let at = walk.current[i].clone();
                    if !walk.round(step, [vec![walk.current.clone()], onward].concat())? {
                        break;
                    }
                    previous = at;
                    seen((pass, step), &fight.name(&walk.current), walk.total())?;
                }
            }
        }
        if walk.total() == 0.0 {
            return Ok(walk.into_descent(
                "every goal is met in the search's battles, by the verifying run's margin"
                    .to_owned(),
            ));
        }
        if !moved {
            let stopped = if pairs_fit {
                "no single move or pair of moves lowers the total shortfall".to_owned()
            } else {
                format!(
                    "no single move lowers the total shortfall (pairs of moves, over {MAX_CANDIDATES}, were not tried)"
                )
            };
            return Ok(walk.into_descent(stopped));
        }
    }
    Ok(walk.into_descent(format!(
        "it took the most steps allowed ({max_steps}, --max-steps)"
    )))
}

/// Whether a second pass, with pairs of moves at every step, can differ
/// from the first: only where the pairs from the start fit in one step.
pub fn pairs_fit_from(fight: &Fight, start: &[Value]) -> bool {
    let moves: usize = (fight.dimensions.iter().zip(start))
        .map(|(d, v)| d.neighbours(v).len())
        .sum();
    moves + moves * moves.saturating_sub(1) / 2 < MAX_CANDIDATES
}

/// Fewest changes, then the smallest: takes a change back whole, or one
/// step toward the battle as written, wherever the search's battles say it
/// costs no shortfall beyond their noise; again until nothing more can be
/// taken back. It never moves a value further from the battle as written.
pub fn tidy(
    (fight, goals): (&Fight, (&[Goal], &[Held])),
    start: &[Value],
    found: Descent,
    seen: &mut StepSeen,
) -> Result<Descent> {
    let Descent {
        current,
        here,
        steps,
        stopped,
        threads,
    } = found;
    let mut walk = Walk {
        fight,
        goals,
        start,
        pass: TIDY_PASS,
        current,
        here: Some(here),
        steps,
        threads,
    };
    let mut step = 0;
    loop {
        let mut back: Vec<Vec<Value>> = Vec::new();
        let moved: Vec<usize> = (0..start.len())
            .filter(|&i| !same(&walk.current[i], &start[i]))
            .collect();
        for &i in &moved {
            back.push(walk.with(&[&(i, start[i].clone())]));
            // One step toward the battle as written: a neighbour nearer it.
            let d = &fight.dimensions[i];
            for v in d.neighbours(&walk.current[i]) {
                if !same(&v, &start[i])
                    && d.distance(&v, &start[i]) < d.distance(&walk.current[i], &start[i])
                {
                    back.push(walk.with(&[&(i, v)]));
                }
            }
        }
        if back.is_empty() {
            break;
        }
        step += 1;
        let total = walk.total();
        let (round, used) = fight.score(&[vec![walk.current.clone()], back].concat(), goals)?;
        walk.threads = walk.threads.max(used);
        // The smallest change among those whose cost the search's battles
        // cannot tell from chance (every goal still met, where they were).
        let costless = |k: usize| {
            if total == 0.0 {
                round[k].total == 0.0
            } else {
                round[k].total - total <= NOISE_MARGIN * round[k].noise
            }
        };
        let Some(k) = (1..round.len())
            .filter(|&k| costless(k))
            .min_by_key(|&k| (changed(&round[k].at, start), k))
        else {
            walk.take(step, &round, 0);
            break;
        };
        walk.take(step, &round, k);
        seen((TIDY_PASS, step), &fight.name(&walk.current), walk.total())?;
    }
    Ok(walk.into_descent(stopped))
}

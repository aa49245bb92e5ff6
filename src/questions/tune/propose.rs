//! The table a tune proposes. Where every battle has exact odds, the
//! smallest table by them ([`smallest`](super::smallest)). Else a search
//! every candidate of which is fought on the same battles: it starts from
//! the scenario as written; each step fights the current candidate and
//! every candidate one step away (each setting one value up or down its
//! range) on the same battle streams, and takes the one whose total
//! shortfall (each goal's distance from its band over its own scale,
//! weighed) is least beyond the noise; fewer changed settings break a tie;
//! where no single move helps, every pair of moves is tried. It stops when
//! nothing lowers the shortfall, or after `max_steps`; if it falls short,
//! a second pass starts again with the pairs at every step, and the better
//! of the two is kept. Then the tidying, and the race
//! ([`race`](super::race)) of the table found and its near variants on
//! fresh battles, which picks the smallest that meets every goal. The
//! search's numbers choose; they do not judge: only the verifying run
//! ([`verdicts`](super::verdicts)) says whether each goal is met.
//!
//! Where it falls short, it says what stands in the way: the orders that
//! block a goal, and the goals that pull against each other.

use anyhow::Result;
use toml::Value;

use super::fight::{Ask, Fight, Scored};
use super::moves::changed;
use super::plan::{Held, TunePlan};
use super::race;
use super::search::{Descent, Pairs, StepSeen, descend, pairs_fit_from, tidy};
use super::smallest::smallest;
use super::{Conflict, Goal, StepRow, Verdict};

/// The table proposed, how it was found, and what stands in its way.
pub struct Proposal {
    /// The table found.
    pub current: Vec<Value>,
    /// The table found, as the search scored it.
    pub search: Scored,
    /// Whether it meets every goal as the search judged it (exactly, or
    /// on the race's intervals).
    pub met: bool,
    pub steps: Vec<StepRow>,
    pub stopped: String,
    /// What it looked through, in words.
    pub searched: String,
    /// Other tables as good, with their scores and each goal's verdict.
    pub alternatives: Vec<(Scored, Vec<Verdict>)>,
    /// What the alternatives are, in words.
    pub alternatives_are: String,
    /// The fewest battles the verifying run may fight: the race's last
    /// round's, so that it judges at least as finely.
    pub least_verify: u64,
    pub threads: usize,
    /// Where it falls short: the orders that block goals, then the goals
    /// that pull against each other.
    pub conflicts: Vec<Conflict>,
    /// Whether every candidate was scored by its exact odds.
    pub exact: bool,
}

/// Searches `plan`, asking `ask` for every candidate's numbers on
/// `threads` workers (0: every core) and showing `seen` each step, as the
/// module says. A pull smaller than `min_effect` is not one.
pub fn propose(
    plan: &TunePlan,
    ask: &dyn Ask,
    threads: usize,
    min_effect: f64,
    seen: &mut StepSeen,
) -> Result<Proposal> {
    let fight = Fight::new(plan, ask);
    let goals = (&plan.goals[..], &plan.held[..]);
    let limits = (plan.max_changes, plan.max_steps);
    let exact = plan.exact_everywhere();
    let search = |fight: &Fight, seen: &mut StepSeen| {
        if exact {
            search_exact(fight, goals, limits, threads, seen)
        } else {
            search_paired(fight, goals, limits, seen)
        }
    };
    let found = search(&fight, seen)?;
    // Where it falls short with the tables' declared orders kept, the same
    // search without them says which order blocks which goal.
    let blocked = if !found.met && !plan.orders.is_empty() {
        let free = fight.without_orders();
        let mut quiet = |_: (usize, usize), _: &str, _: f64| Ok(());
        let unordered = search(&free, &mut quiet)?;
        blocking_orders(&fight, (&found.search, &unordered.search), &plan.held)
    } else {
        Vec::new()
    };
    // Where it falls short, what the next moves would do says which goals
    // pull against each other.
    let pulled = if !found.met {
        let current = &found.current;
        let around: Vec<Vec<Value>> = std::iter::once(current.clone())
            .chain((0..plan.dimensions.len()).flat_map(|i| {
                plan.dimensions[i]
                    .neighbours(&current[i])
                    .into_iter()
                    .map(move |v| {
                        let mut c = current.clone();
                        c[i] = v;
                        c
                    })
            }))
            .collect();
        let round = if exact {
            fight.score_exact(&around, goals, threads)?
        } else {
            fight.score(&around, goals)?.0
        };
        pulls(&plan.held, &round, current, min_effect)
    } else {
        Vec::new()
    };
    Ok(Proposal {
        conflicts: [blocked, pulled].concat(),
        exact,
        ..found
    })
}

/// The smallest table, every candidate scored by its exact odds.
fn search_exact(
    fight: &Fight,
    goals: (&[Goal], &[Held]),
    (max_changes, max_steps): (usize, usize),
    threads: usize,
    seen: &mut StepSeen,
) -> Result<Proposal> {
    let found = smallest((fight, goals, threads), (max_changes, max_steps), seen)?;
    let (goal_list, held) = goals;
    let met = found.best.total == 0.0;
    let threads = if threads == 0 {
        rayon::current_num_threads()
    } else {
        threads
    };
    Ok(Proposal {
        current: found.best.at.clone(),
        search: found.best,
        met,
        steps: found.steps,
        stopped: found.stopped,
        searched: found.searched,
        alternatives: (found.alternatives.into_iter())
            .map(|a| {
                let verdicts = (held.iter().zip(&a.estimates))
                    .map(|(h, &p)| goal_list[h.goal].verdict(p, p))
                    .collect();
                (a, verdicts)
            })
            .collect(),
        alternatives_are: if met {
            "Other tables that meet every goal exactly with as few changes, the fewest steps first"
        } else {
            "The next nearest tables, by their exact odds"
        }
        .to_owned(),
        least_verify: 0,
        threads,
        conflicts: Vec::new(),
        exact: true,
    })
}

/// The descent on paired battles: one step at a time, a pair of moves
/// where no single one helps; if that falls short, once more from the
/// start with pairs at every step, the better of the two kept; then the
/// tidying; then the race of the table found and its near variants on
/// fresh battles, which picks the proposal.
fn search_paired(
    fight: &Fight,
    goals: (&[Goal], &[Held]),
    (max_changes, max_steps): (usize, usize),
    seen: &mut StepSeen,
) -> Result<Proposal> {
    let start = fight.start;
    let descend = |pass: usize, pairs: Pairs, seen: &mut StepSeen| {
        descend(
            (fight, goals),
            (start, max_changes, max_steps),
            (pass, pairs),
            seen,
        )
    };
    let mut found = descend(1, Pairs::WhenStalled, seen)?;
    let mut steps = std::mem::take(&mut found.steps);
    let mut passes = 1;
    if found.here.total > 0.0 && pairs_fit_from(fight, start) {
        passes = 2;
        let mut again = descend(2, Pairs::Always, seen)?;
        steps.append(&mut again.steps);
        let key = |d: &Descent| (d.here.total, changed(&d.current, start));
        if key(&again) < key(&found) {
            found = again;
        }
    }
    found.steps = steps;
    let Descent {
        current,
        steps: mut all_steps,
        stopped,
        threads,
        ..
    } = tidy((fight, goals), start, found, seen)?;
    let finalists = race::finalists(fight, &current, max_changes);
    let raced = race::race((fight, goals), &finalists, seen)?;
    all_steps.extend(raced.steps);
    // The battles among them with exact odds, scored by those.
    let exact: Vec<&str> = (0..fight.plan.names.len())
        .filter(|&b| fight.exact_in(b))
        .map(|b| fight.plan.names[b].as_str())
        .collect();
    let exact = if exact.is_empty() {
        String::new()
    } else {
        format!(" ({} scored by exact odds)", exact.join(", "))
    };
    Ok(Proposal {
        current: raced.pick.at.clone(),
        met: raced.met,
        search: raced.pick,
        steps: all_steps,
        stopped,
        searched: format!(
            "a descent on {} paired battles a candidate{exact} ({passes} pass{}), then the tidying, then {}",
            crate::stats::format::thousands(fight.trials),
            if passes == 1 { "" } else { "es" },
            raced.said
        ),
        alternatives_are: raced.untold_are,
        alternatives: raced
            .untold
            .into_iter()
            .zip(raced.untold_verdicts)
            .collect(),
        least_verify: raced.trials,
        threads,
        conflicts: Vec::new(),
        exact: false,
    })
}

/// The orders that block goals: each the table found without them breaks,
/// with the goals it meets that the table found with them misses.
fn blocking_orders(
    fight: &Fight,
    (kept, free): (&Scored, &Scored),
    held: &[Held],
) -> Vec<Conflict> {
    let freed: Vec<String> = (held.iter().enumerate())
        .filter(|&(k, _)| kept.shortfalls[k] > 0.0 && free.shortfalls[k] == 0.0)
        .map(|(_, h)| h.label.clone())
        .collect();
    if freed.is_empty() {
        return Vec::new();
    }
    (fight.disorders(&free.at).into_iter())
        .map(|order| Conflict::Blocks {
            order,
            goals: freed.clone(),
            found: fight.name(&free.at),
        })
        .collect()
}

/// From the table found (its last round of neighbours), the goals that
/// pull against each other, and those no single step brings closer: a
/// step brings a goal closer, or takes it further, only by more than
/// `min_effect` (in the shortfall's units).
fn pulls(goals: &[Held], round: &[Scored], current: &[Value], min_effect: f64) -> Vec<Conflict> {
    let Some(here) = round.iter().find(|s| s.at == current) else {
        return Vec::new();
    };
    let neighbours: Vec<&Scored> = round.iter().filter(|s| s.at != current).collect();
    let mut said = Vec::new();
    for (i, gi) in goals.iter().enumerate() {
        if here.shortfalls[i] == 0.0 {
            continue;
        }
        let helps: Vec<&&Scored> = neighbours
            .iter()
            .filter(|s| s.shortfalls[i] < here.shortfalls[i] - min_effect)
            .collect();
        if helps.is_empty() {
            said.push(Conflict::Stuck {
                goal: gi.label.clone(),
            });
            continue;
        }
        for (j, gj) in goals.iter().enumerate() {
            if j != i
                && helps
                    .iter()
                    .all(|s| s.shortfalls[j] > here.shortfalls[j] + min_effect)
            {
                said.push(Conflict::Pull {
                    closer: gi.label.clone(),
                    further: gj.label.clone(),
                });
            }
        }
    }
    said
}

//! A tune: the settings or table cells that bring several outcomes into
//! their goals at once, found by a search every candidate of which is
//! fought on the same battles, then judged on fresh ones.
//!
//! The search starts from the scenario as written. Each step fights the
//! current candidate and every candidate one step away (each setting one
//! value up or down its range) on the same battle streams, and takes the
//! one whose total shortfall (the sum of each goal's distance from its
//! band, in percentage points or in a mean's units) is least; fewer
//! changed settings break a tie; where no single move helps, every pair
//! of moves is tried. It stops when nothing lowers the shortfall, or
//! after `max_steps`; if it falls short, a second pass starts again with
//! the pairs at every step, and the better of the two is kept. Then the
//! race (`race.rs`) fights the table found and its near variants again on
//! fresh battles and picks the smallest that meets every goal. The
//! search's numbers choose; they do not judge: the table found is fought again on a seed the search never
//! used, and only that run says whether each goal is met, missed or too
//! close to tell, on intervals family-wise over the goals; where the
//! battle has exact odds, they decide met or missed.
//!
//! Several scenarios are tuned together when they share the tables moved:
//! every candidate is fought in each of them, a goal holds every scenario
//! with its outcome (or the one it names with `@STEM`), and the total
//! shortfall is summed over them all.

use anyhow::{Result, bail};
use serde::Deserialize;
use toml::Value;

use super::Destination;
use crate::analysis::runner::{Plan, Written, exact_metrics, run_info, simulate};
use crate::questions::target::{with_combined, with_combined_as};
use crate::questions::tune::{Goal, contradiction};
use crate::report::kit::command_line::CommandLine;
use crate::report::kit::folder_names::question_out_dir;
use crate::report::kit::output_dir::Staging;
use crate::report::writers::tune::{
    Alternative, Change, GoalResult, StepRow, TuneReport, goal_words,
};
use crate::scenario::{Resolved, Scenario};
use crate::stats::z_for_confidence;

mod battles;
mod exact;
mod fight;
mod moves;
mod race;
mod search;
mod smallest;

use battles::{Held, held_goals, named_battles};
use fight::{Fight, Scored, measure};
use moves::{changed, dimensions, shown};
pub use race::{MOST_ROUNDS, RACE_PASS};
use search::{Descent, Pairs, descend, pairs_fit_from, tidy};
pub use search::{StepSeen, TIDY_PASS};
use smallest::smallest;

/// Battles each candidate of the search fights, unless the request says.
pub const DEFAULT_SEARCH_TRIALS: u64 = 20_000;

/// Most steps of the search, unless the request says.
pub const DEFAULT_MAX_STEPS: usize = 40;

/// Most battles the verifying run sizes itself to.
const MAX_VERIFY_TRIALS: u64 = 10_000_000;

/// The family-wise confidence of the verdicts.
pub const CONFIDENCE: f64 = 0.95;

/// A tune asked: the goals, what may change, and how hard to look.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneRequest {
    /// The goals: `TARGET in LO..HI`, `TARGET <= X` or `TARGET >= X`, with
    /// `@STEM` after it for one scenario of several.
    pub goals: Vec<String>,
    /// The settings or table cells that may change, with their ranges:
    /// `PATH=LO..HI[:STEP]` or `PATH=V1,V2,...`, as `sweep --set` takes them.
    #[serde(default)]
    pub vary: Vec<String>,
    /// Tables every cell of which may move, one step at a time (the moves
    /// `sensitivity --cells` makes).
    #[serde(default)]
    pub cell_tables: Vec<String>,
    /// Cells that stay as they are: `TABLE.PATH` (`survival.rows.D.column`),
    /// or a whole row (`survival.rows.D`).
    #[serde(default)]
    pub freeze: Vec<String>,
    /// The most settings the tuned scenario may change.
    #[serde(default)]
    pub max_changes: Option<usize>,
    /// The most steps of the search.
    #[serde(default)]
    pub max_steps: Option<usize>,
    /// Battles each candidate fights in the search.
    #[serde(default)]
    pub trials: Option<u64>,
    /// Seed of the search's battles (the scenario's `seed` when absent).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Battles of the verifying run (sized to the goals when absent).
    #[serde(default)]
    pub verify_trials: Option<u64>,
    /// Seed of the verifying run (one derived from the search's when absent).
    #[serde(default)]
    pub verify_seed: Option<u64>,
    /// Let the search break the orders the tables declare (kept by default).
    #[serde(default)]
    pub allow_disorder: bool,
    /// Refuse to search on sampled battles: every battle tuned must have
    /// exact odds (where they all do, the search takes them anyway).
    #[serde(default)]
    pub exact: bool,
    /// The least change in a goal's outcome that matters (percentage
    /// points for a probability, a mean's own units): an effect smaller
    /// is too small to matter, and never counts as a pull.
    #[serde(default)]
    pub min_effect: Option<f64>,
    /// The most battles the verifying run sizes itself to (a server's cap;
    /// set by the caller).
    #[serde(skip)]
    pub max_verify_trials: Option<u64>,
}

/// What a tune found and wrote.
#[derive(Debug)]
pub struct TuneAnswer {
    /// The search, the table found and the verdicts.
    pub report: TuneReport,
    /// Where it was written.
    pub written: Written,
}

/// The seed the verifying run takes when none is given: the search's,
/// moved by a fixed odd constant, so the two never share battles.
pub fn verify_seed_of(search_seed: u64) -> u64 {
    search_seed.wrapping_add(0x9E37_79B9_7F4A_7C15)
}
/// Validates the request, searches the `scenarios` tuned together
/// (showing `seen` each step), verifies the table found on fresh battles
/// and writes the report.
pub fn tune(
    scenarios: &[Resolved],
    request: &TuneRequest,
    plan: &Plan,
    to: &Destination,
    seen: &mut StepSeen,
) -> Result<TuneAnswer> {
    let started = std::time::Instant::now();
    if scenarios.is_empty() {
        bail!("tune needs a scenario file");
    }
    if request.goals.is_empty() {
        bail!(
            "tune needs at least one --goal, e.g. --goal \"side:Megalos/victory=won in 45%..55%\""
        );
    }
    if request.vary.is_empty() && request.cell_tables.is_empty() {
        bail!(
            "tune needs something to move: --vary PATH=RANGE (e.g. --vary sides.Raiders.troop_strength=600..1400:100) or --tables NAME"
        );
    }
    let goals = (request.goals.iter())
        .map(|g| Goal::parse(g))
        .collect::<Result<Vec<_>>>()?;
    if let Some(said) = contradiction(&goals) {
        bail!("{said}");
    }
    let battles = named_battles(scenarios)?;
    // The tables tuned are shared, so every battle is of one system.
    let system = battles[0].resolved.scenario.battle.system();
    let dimensions = dimensions(
        (&request.vary, &request.cell_tables, &request.freeze),
        &battles,
    )?;
    let max_changes = request.max_changes.unwrap_or(dimensions.len());
    if max_changes == 0 {
        bail!("--max-changes 0 allows no change; allowed: 1 or more");
    }
    if let Some(amount) = request.min_effect
        && !(amount.is_finite() && amount > 0.0)
    {
        bail!(
            "`min_effect` = {amount} is out of range; allowed: a number above 0 (percentage points for a probability, the outcome's own units for a mean)"
        );
    }
    let max_steps = request.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
    if max_steps == 0 {
        bail!("--max-steps 0 allows the search no step; allowed: 1 or more");
    }
    let held = held_goals(&goals, &battles)?;
    out_of_reach(&goals, &held, &battles, &dimensions)?;
    let start: Vec<Value> = dimensions.iter().map(|d| d.value.clone()).collect();
    let search_trials = request.trials.unwrap_or(DEFAULT_SEARCH_TRIALS);
    let search_seed = request.seed.unwrap_or(scenarios[0].scenario.seed);
    // The search aims inside each band by the half-width the verifying
    // run's interval will have, so that what it finds can be judged met.
    let z = z_for_confidence(1.0 - (1.0 - CONFIDENCE) / held.len() as f64);
    let expected_verify = request
        .verify_trials
        .unwrap_or(search_trials.saturating_mul(4));
    let fight = Fight {
        battles: &battles,
        dimensions: &dimensions,
        start: &start,
        trials: search_trials,
        seed: search_seed,
        margin: z / (expected_verify.max(1) as f64).sqrt(),
        fought: std::sync::atomic::AtomicU64::new(0),
        orders: Vec::new(),
        exact: Vec::new(),
    };
    let mut fight = fight;
    fight.exact = fight.exact_odds_of();
    if !request.allow_disorder {
        fight.orders = fight.declared_orders()?;
    }
    let fight = fight;
    fight.same_tables_everywhere()?;
    let out = to.out.clone().unwrap_or_else(|| {
        let mut named: Vec<String> = request.cell_tables.clone();
        named.extend(
            request
                .vary
                .iter()
                .map(|v| v.split('=').next().unwrap_or(v).to_owned()),
        );
        named.extend(battles[1..].iter().map(|b| b.name.clone()));
        question_out_dir(scenarios[0].path(), "tune", &named)
    });
    let staging = Staging::new(&out, to.force)?;
    let plan = Plan {
        progress: false,
        ..*plan
    };

    let exact = fight.exact_everywhere();
    if request.exact && !exact {
        bail!(
            "--exact: {} no exact odds; exact odds: {}. Leave --exact out to search on paired battles",
            if battles.len() == 1 {
                "this battle has".to_owned()
            } else {
                "not every battle tuned has".to_owned()
            },
            crate::systems::registry::exact_odds()
        );
    }
    let Searched {
        current,
        search,
        met,
        steps,
        stopped,
        searched,
        alternatives,
        alternatives_are,
        least_verify,
        threads,
    } = if exact {
        search_exact(
            &fight,
            (&goals, &held),
            (max_changes, max_steps),
            &plan,
            seen,
        )?
    } else {
        search_paired(
            &fight,
            (&goals, &held),
            (max_changes, max_steps),
            &plan,
            seen,
        )?
    };
    // Where it falls short with the tables' declared orders kept, the same
    // search without them says which order blocks which goal.
    let blocked = if !met && !fight.orders.is_empty() {
        let free = fight.without_orders();
        let mut quiet = |_: (usize, usize), _: &str, _: f64| Ok(());
        let unordered = if exact {
            search_exact(
                &free,
                (&goals, &held),
                (max_changes, max_steps),
                &plan,
                &mut quiet,
            )?
        } else {
            search_paired(
                &free,
                (&goals, &held),
                (max_changes, max_steps),
                &plan,
                &mut quiet,
            )?
        };
        fight.count(free.fought.load(std::sync::atomic::Ordering::Relaxed));
        blocking_orders(system, &fight, (&search, &unordered.search), &held)
    } else {
        Vec::new()
    };
    // Where it falls short, what the next moves would do says which goals
    // pull against each other.
    let conflicts = if !met {
        let around: Vec<Vec<Value>> = std::iter::once(current.clone())
            .chain((0..dimensions.len()).flat_map(|i| {
                dimensions[i].neighbours(&current[i]).into_iter().map({
                    let current = &current;
                    move |v| {
                        let mut c = current.clone();
                        c[i] = v;
                        c
                    }
                })
            }))
            .collect();
        let round = if exact {
            fight.score_exact(&around, (&goals, &held), plan.threads)?
        } else {
            fight.score(&around, (&goals, &held), &plan)?.0
        };
        pulls(
            system,
            &held,
            &round,
            &current,
            request.min_effect.unwrap_or(0.0),
        )
    } else {
        Vec::new()
    };
    let conflicts = [blocked, conflicts].concat();

    // The verifying run, on battles the search never saw.
    let verify_seed = request.verify_seed.unwrap_or(verify_seed_of(search_seed));
    if verify_seed == search_seed {
        bail!(
            "--verify-seed {verify_seed} is the search's seed; the verdicts need battles the search never saw"
        );
    }
    let verify_trials = request.verify_trials.unwrap_or_else(|| {
        let most = request.max_verify_trials.unwrap_or(MAX_VERIFY_TRIALS);
        verify_trials_for(&goals, &held, &search, z, search_trials)
            .max(least_verify)
            .min(most.max(search_trials))
    });
    let command = reproduce_command(scenarios, request, (&out, to));
    let mut results = Vec::new();
    let mut infos = Vec::new();
    for (b, battle) in battles.iter().enumerate() {
        let mut tuned = fight.scenario(&current, b)?;
        tuned.override_settings(Some(verify_trials), Some(verify_seed))?;
        let verified = simulate(&tuned, &plan)?;
        fight.count(verify_trials);
        let all = with_combined(&verified.metrics);
        // Where the battle has exact odds, they judge; the simulation's
        // interval stays beside them.
        let exact = exact_metrics(&tuned)
            .ok()
            .map(|odds| with_combined_as(&verified.metrics, &odds));
        let mut info = run_info(&tuned, command.clone(), threads, started.elapsed());
        // The battle as written, exactly, where it has exact odds.
        let as_written_exact = exact_metrics(&fight.scenario(&start, b)?)
            .ok()
            .map(|odds| with_combined_as(&verified.metrics, &odds));
        info.scenario_sha256 = Some(crate::tables::sha256_hex(battle.resolved.text().as_bytes()));
        for (k, h) in held.iter().enumerate().filter(|(_, h)| h.battle == b) {
            let g = &goals[h.goal];
            let measured = measure(g, &all)?;
            let (low, high) = measured.interval(z);
            let exact = exact
                .as_ref()
                .and_then(|odds| g.target.exact_estimate(odds).ok());
            results.push((
                k,
                GoalResult {
                    goal: h.label.clone(),
                    scenario: battle.name.clone(),
                    target: g.target.text(),
                    band: g.band_text(),
                    mean: g.target.is_mean(),
                    before: steps.first().map_or(f64::NAN, |s| s.estimates[k]),
                    before_exact: as_written_exact
                        .as_ref()
                        .and_then(|odds| g.target.exact_estimate(odds).ok()),
                    band_range: g.range(),
                    search_estimate: search.estimates[k],
                    estimate: measured.estimate(),
                    ci_low: low,
                    ci_high: high,
                    exact,
                    shortfall: g.shortfall(exact.unwrap_or(measured.estimate())),
                    verdict: exact.map_or_else(|| g.verdict(low, high), |p| g.verdict(p, p)),
                    stand_in_tables: info.stand_in_tables_of_any(
                        &[""],
                        &g.target.subject,
                        &g.target.metric,
                    ),
                },
            ));
        }
        infos.push((battle.name.clone(), tuned, info));
    }
    // The goals in the order they were given, each scenario's in turn.
    results.sort_by_key(|&(k, _)| k);
    let results: Vec<GoalResult> = results.into_iter().map(|(_, r)| r).collect();
    let changes = changes_of(&dimensions, &start, &current);
    // Each alternative's goals, as the search (or the race) judged them.
    let alternatives = (alternatives.iter())
        .map(|(a, verdicts)| Alternative {
            changes: changes_of(&dimensions, &start, &a.at),
            values: a.estimates.clone(),
            verdicts: verdicts.clone(),
        })
        .collect();
    let effects = fight.effects(
        &current,
        (&goals, &held),
        (verify_trials, verify_seed),
        &plan,
    )?;
    let tables = fight.tuned_tables(&current, &report_header(&command, &results), &out)?;
    let tuned = (0..battles.len())
        .map(|b| {
            let file = if battles.len() == 1 {
                "tuned.toml".to_owned()
            } else {
                format!("tuned.{}.toml", battles[b].name)
            };
            Ok((file, fight.document(&current, b)?))
        })
        .collect::<Result<Vec<_>>>()?;
    let info = merged_info(infos);
    let report = TuneReport {
        info,
        goals: results,
        steps,
        changes,
        conflicts,
        effects,
        stopped,
        searched,
        alternatives,
        alternatives_are,
        exact_search: exact,
        min_effect: request.min_effect,
        tuned,
        tables,
        search_trials,
        search_seed,
        verify_trials,
        verify_seed,
        confidence: CONFIDENCE,
        battles_fought: fight.fought.load(std::sync::atomic::Ordering::Relaxed),
        formats: to.formats,
    };
    let mut files = crate::report::writers::tune_html::write(&report, staging.path())?;
    files.extend(crate::report::writers::tune_html::write_chart(
        &report,
        staging.path(),
    )?);
    files.extend(crate::report::writers::tune::write(
        &report,
        staging.path(),
    )?);
    let folder = staging.commit()?;
    Ok(TuneAnswer {
        report,
        written: Written { folder, files },
    })
}

/// Refuses, before any battle, a goal whose outcome reads none of the
/// tables moved, where only table cells move: no table the search can
/// propose would move it. (A setting may move any outcome; a goal read by
/// no battle's declared account is let through.)
fn out_of_reach(
    goals: &[Goal],
    held: &[Held],
    battles: &[battles::Battle],
    dimensions: &[moves::Dimension],
) -> Result<()> {
    let mut moved: Vec<&str> = Vec::new();
    for d in dimensions {
        match d.path.as_slice() {
            [tables, name, _, ..] if tables == "tables" => {
                if !moved.contains(&name.as_str()) {
                    moved.push(name);
                }
            }
            _ => return Ok(()),
        }
    }
    for (i, g) in goals.iter().enumerate() {
        let mut read_by: Option<bool> = None;
        for h in held.iter().filter(|h| h.goal == i) {
            let rests = battles[h.battle].resolved.scenario.battle.rests_on();
            if let Some(r) = (rests.iter())
                .find(|r| r.subject == g.target.subject && r.metric == g.target.metric)
            {
                let reads = r.tables.iter().any(|t| moved.contains(&t.as_str()));
                read_by = Some(read_by.unwrap_or(false) || reads);
            } else {
                read_by = Some(true);
            }
        }
        if read_by == Some(false) {
            bail!(
                "--goal {}: its outcome reads none of the tables moved ({}); no table the search could propose moves it. Move a table it reads, or --vary a setting",
                g.text,
                moved.join(", ")
            );
        }
    }
    Ok(())
}

/// The orders that block goals: each the table found without them breaks,
/// with the goals it meets that the table found with them misses.
fn blocking_orders(
    system: &str,
    fight: &Fight,
    (kept, free): (&Scored, &Scored),
    held: &[Held],
) -> Vec<String> {
    let freed: Vec<String> = (held.iter().enumerate())
        .filter(|&(k, _)| kept.shortfalls[k] > 0.0 && free.shortfalls[k] == 0.0)
        .map(|(_, h)| goal_words(system, &h.label))
        .collect();
    if freed.is_empty() {
        return Vec::new();
    }
    (fight.disorders(&free.at).into_iter())
        .map(|order| {
            format!(
                "{order} blocks {}: the table the search finds without it ({}) meets {}; --allow-disorder lets the search break it",
                freed.iter().map(|g| format!("\"{g}\"")).collect::<Vec<_>>().join(" and "),
                fight.name(&free.at),
                if freed.len() == 1 { "it" } else { "them" }
            )
        })
        .collect()
}

/// Each value `at` changes from `start`, as the report lists it.
fn changes_of(dimensions: &[moves::Dimension], start: &[Value], at: &[Value]) -> Vec<Change> {
    (dimensions.iter().zip(start).zip(at))
        .filter(|((_, a), b)| !moves::same(a, b))
        .map(|((d, a), b)| Change {
            setting: d.path.join("."),
            from: shown(a),
            to: shown(b),
        })
        .collect()
}

/// Where a search ended, whichever it was.
struct Searched {
    current: Vec<Value>,
    /// The table found, as the search scored it.
    search: Scored,
    /// Whether it meets every goal as the search judged it (exactly, or
    /// on the race's intervals).
    met: bool,
    steps: Vec<StepRow>,
    stopped: String,
    /// What it looked through, in words.
    searched: String,
    /// Other tables as good, with their scores and each goal's verdict.
    alternatives: Vec<(Scored, Vec<crate::questions::tune::Verdict>)>,
    /// What the alternatives are, in words.
    alternatives_are: String,
    /// The fewest battles the verifying run may fight: the race's last
    /// round's, so that it judges at least as finely.
    least_verify: u64,
    threads: usize,
}

/// The smallest table, every candidate scored by its exact odds.
fn search_exact(
    fight: &Fight,
    goals: (&[Goal], &[Held]),
    (max_changes, max_steps): (usize, usize),
    plan: &Plan,
    seen: &mut StepSeen,
) -> Result<Searched> {
    let found = smallest((fight, goals, plan.threads), (max_changes, max_steps), seen)?;
    let (goal_list, held) = goals;
    let met = found.best.total == 0.0;
    let threads = if plan.threads == 0 {
        rayon::current_num_threads()
    } else {
        plan.threads
    };
    Ok(Searched {
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
    plan: &Plan,
    seen: &mut StepSeen,
) -> Result<Searched> {
    let start = fight.start;
    let descend = |pass: usize, pairs: Pairs, seen: &mut StepSeen| {
        descend(
            (fight, goals, plan),
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
    } = tidy((fight, goals, plan), start, found, seen)?;
    let finalists = race::finalists(fight, &current, max_changes);
    let raced = race::race((fight, goals, plan), &finalists, seen)?;
    all_steps.extend(raced.steps);
    // The battles among them with exact odds, scored by those.
    let exact: Vec<&str> = (0..fight.battles.len())
        .filter(|&b| fight.exact_in(b))
        .map(|b| fight.battles[b].name.as_str())
        .collect();
    let exact = if exact.is_empty() {
        String::new()
    } else {
        format!(" ({} scored by exact odds)", exact.join(", "))
    };
    Ok(Searched {
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
    })
}

/// One provenance record for the verifying runs: the first scenario's,
/// with every scenario's file and tables beside it where several were tuned.
fn merged_info(
    mut infos: Vec<(String, Scenario, crate::report::RunInfo)>,
) -> crate::report::RunInfo {
    let scenarios: Vec<crate::report::ScenarioUse> = (infos.iter())
        .map(|(name, s, _)| crate::report::ScenarioUse {
            variant: name.clone(),
            path: s.path.display().to_string(),
            sha256: s.sha256.clone(),
            text: Some(s.text.clone()),
            tables: s.battle.tables().to_vec(),
            rests_on: s.battle.rests_on(),
        })
        .collect();
    let several = infos.len() > 1;
    let (_, _, mut info) = infos.swap_remove(0);
    if several {
        info.name = (scenarios.iter())
            .map(|s| s.variant.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        info.scenarios = scenarios;
    }
    info
}

/// The comment a tuned table file starts with: what it was tuned for, the
/// verdicts, and the command.
fn report_header(command: &str, goals: &[GoalResult]) -> String {
    let mut head =
        String::from("# Tuned by `warcrunch tune` for these goals (verdicts on fresh battles):\n");
    for g in goals {
        head.push_str(&format!("#   {}: {}\n", g.goal, g.verdict.words()));
    }
    head.push_str(&format!("# Command: {command}\n"));
    head
}

/// Battles for the verifying run: enough that a goal's interval, at the
/// family-wise level, is at most half its band's half-width where the
/// band has one (a bound has none: four times the search's battles), and
/// never fewer than the search's.
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

/// From the table found (its last round of neighbours), the goals that
/// pull against each other, and those no single step brings closer: a
/// step brings a goal closer, or takes it further, only by more than
/// `min_effect` (in the shortfall's units).
fn pulls(
    system: &str,
    goals: &[Held],
    round: &[Scored],
    current: &[Value],
    min_effect: f64,
) -> Vec<String> {
    let said_of = |h: &Held| goal_words(system, &h.label);
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
            said.push(format!(
                "\"{}\": no single step of the settings varied brings it closer (widen a range or vary another setting)",
                said_of(gi)
            ));
            continue;
        }
        for (j, gj) in goals.iter().enumerate() {
            if j != i
                && helps
                    .iter()
                    .all(|s| s.shortfalls[j] > here.shortfalls[j] + min_effect)
            {
                said.push(format!(
                    "\"{}\" and \"{}\" pull against each other here: in the search's battles, every single step that brings the first closer takes the second further",
                    said_of(gi),
                    said_of(gj)
                ));
            }
        }
    }
    said
}

/// The command line that asks this tune again, into the same folder.
fn reproduce_command(
    scenarios: &[Resolved],
    request: &TuneRequest,
    (out, to): (&std::path::Path, &Destination),
) -> String {
    (scenarios.iter())
        .fold(CommandLine::new("tune"), |line, s| line.path(s.path()))
        .options("goal", &request.goals)
        .options("vary", &request.vary)
        .options("tables", &request.cell_tables)
        .options("freeze", &request.freeze)
        .option_if("max-changes", request.max_changes)
        .option_if("max-steps", request.max_steps)
        .option_if("trials", request.trials)
        .option_if("seed", request.seed)
        .option_if("verify-trials", request.verify_trials)
        .option_if("verify-seed", request.verify_seed)
        .flag("exact", request.exact)
        .flag("allow-disorder", request.allow_disorder)
        .option_if("min-effect", request.min_effect)
        .options("table", scenarios[0].table_options())
        .written_to(to.named(out, crate::engine::Shard::WHOLE), &to.formats)
        .naming_inputs(to.inputs.as_deref())
        .into()
}

//! `warcrunch tune`: the command line as a [`TuneRequest`], each step of
//! the search printed as it is taken, then each goal's verdict on the
//! verifying run.

use anyhow::{Result, bail};

use crate::analysis::tune::{TuneAnswer, tune};
use crate::cli::TuneArgs;
use crate::questions::tune::plan::TuneRequest;
use crate::questions::tune::{MOST_ROUNDS, RACE_PASS, TIDY_PASS};
use crate::report::writers::console::say;
use crate::report::writers::tune::goal_words;
use crate::scenario::Resolved;
use crate::stats::format::{
    percent, percent_interval, signed, thousands, trim_decimal, value_read,
};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal as _;

/// A goal's value in the reports' style: a percentage, or a mean with a
/// true minus.
fn goal_value(mean: bool, x: f64) -> String {
    if mean {
        signed(x, 3, false)
    } else {
        percent(x)
    }
}

/// Validates the options, searches, verifies and prints the verdicts.
pub fn run(args: &TuneArgs) -> Result<()> {
    let request = request(args)?;
    let scenarios = (args.scenarios.iter())
        .map(|path| Resolved::read(path, &args.sim.tables))
        .collect::<Result<Vec<_>>>()?;
    let to = super::destination(&args.out, &args.sim);
    // On a terminal, a bar says where the search is between steps: its
    // step of the `--max-steps` a pass may take, and the time those left
    // would take at the pace so far (a pass often ends sooner).
    let spinner = if crate::report::writers::console::quiet() || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(args.max_steps as u64)
    };
    spinner.set_style(
        ProgressStyle::with_template(
            "{spinner} tune: {msg} [{bar:12}] {pos}/{len} {prefix}, {elapsed}, up to ~{eta} left",
        )
        .expect("a fixed template"),
    );
    spinner.set_prefix("steps");
    spinner.set_message("scoring the battle as written");
    spinner.enable_steady_tick(std::time::Duration::from_millis(200));
    let mut last = String::from("as written");
    let mut race_from: Option<String> = None;
    let mut seen = |(pass, step): (usize, usize), candidate: &str, shortfall: f64| {
        let number = step;
        let (again, step) = match pass {
            1 => (String::new(), format!("step {step}")),
            TIDY_PASS => (
                "taking back what costs nothing, ".to_owned(),
                format!("step {step}"),
            ),
            RACE_PASS => (
                "the finalists on fresh battles, ".to_owned(),
                format!("round {step}, leading"),
            ),
            _ => (
                format!("pass {pass} (from the start, pairs of moves at every step), "),
                format!("step {step}"),
            ),
        };
        let shortfall = trim_decimal(shortfall, 3);
        // A round of the race names its leader by how it differs from the
        // table the search found (the finalists are that table, each of its
        // changes taken back, each changed value a step either way).
        let words = if pass == RACE_PASS {
            race_words(race_from.get_or_insert_with(|| last.clone()), candidate)
        } else {
            step_words(&last, candidate)
        };
        let line = format!("{again}{step}: {words} (total shortfall {shortfall})\n");
        last = candidate.to_owned();
        // The bar: the pass and its shortfall, its step of the most it may
        // take (the race: its round), and the time those would take.
        let (phase, unit, most) = match pass {
            1 => ("search", "steps", args.max_steps),
            TIDY_PASS => ("tidying", "steps", args.max_steps),
            RACE_PASS => ("race", "rounds", MOST_ROUNDS),
            _ => ("pairs of moves", "steps", args.max_steps),
        };
        spinner.set_message(format!("{phase}, shortfall {shortfall}"));
        spinner.set_prefix(unit);
        spinner.set_length(most as u64);
        if spinner.position() > number as u64 {
            spinner.reset_eta();
        }
        spinner.set_position(number as u64);
        spinner.suspend(|| say(&line))
    };
    let answer = tune(&scenarios, &request, &args.sim.plan(), &to, &mut seen);
    spinner.finish_and_clear();
    let answer = answer?;
    say(&summary(&answer))
}

/// A finalist of the race in words, by how it differs from the table the
/// search `found`.
fn race_words(found: &str, finalist: &str) -> String {
    if finalist == found {
        "the table the search found".to_owned()
    } else {
        format!("the table found with {}", step_words(found, finalist))
    }
}

/// A step in words: only what it changes from the step before (`rows.D.column=C`,
/// `rows.C.column back as written`), then how many values differ from the battle as
/// written in all.
fn step_words(before: &str, now: &str) -> String {
    let parts = |c: &str| -> Vec<(String, String)> {
        if c == "as written" {
            return Vec::new();
        }
        (c.split(','))
            .map(|p| match p.split_once('=') {
                Some((k, v)) => (k.to_owned(), v.to_owned()),
                None => (p.to_owned(), String::new()),
            })
            .collect()
    };
    let (was, is) = (parts(before), parts(now));
    let short = |k: &str| k.strip_prefix("tables.").unwrap_or(k).to_owned();
    let mut said: Vec<String> = (is.iter())
        .filter(|p| !was.contains(p))
        .map(|(k, v)| format!("{}={v}", short(k)))
        .collect();
    said.extend(
        (was.iter())
            .filter(|(k, _)| !is.iter().any(|(j, _)| j == k))
            .map(|(k, _)| format!("{} back as written", short(k))),
    );
    if said.is_empty() {
        said.push("no change".to_owned());
    }
    format!(
        "{}; {} changed in all",
        said.join(", "),
        match is.len() {
            1 => "1 value".to_owned(),
            n => format!("{n} values"),
        }
    )
}

/// The options as the request the library answers.
pub fn request(args: &TuneArgs) -> Result<TuneRequest> {
    if args.sim.shard.is_some() {
        bail!("--shard: tune decides each step before the next; run it without --shard");
    }
    Ok(TuneRequest {
        goals: args.goal.clone(),
        vary: args.vary.clone(),
        cell_tables: args.cell_tables.clone(),
        freeze: args.freeze.clone(),
        max_changes: args.max_changes,
        max_steps: Some(args.max_steps),
        trials: args.sim.trials,
        seed: args.sim.seed,
        verify_trials: args.verify_trials,
        verify_seed: args.verify_seed,
        exact: args.exact,
        allow_disorder: args.allow_disorder,
        min_effect: args.min_effect,
        max_verify_trials: None,
    })
}

/// The table found, each goal's verdict, what pulls against what, and
/// the files.
fn summary(answer: &TuneAnswer) -> String {
    let report = &answer.report;
    let mut lines = format!(
        "the search stopped: {}\nsearched: {}\n",
        report.stopped, report.searched
    );
    if report.changes.is_empty() {
        lines.push_str("it keeps the battle as written\n");
    } else {
        lines.push_str(
            "the table it found (each change alone, on the verifying run's battles, 95% each):\n",
        );
        for c in &report.changes {
            lines.push_str(&format!(
                "  {}: {} \u{2192} {}\n",
                c.setting,
                value_read(&c.from),
                value_read(&c.to)
            ));
            for e in report.effects.iter().filter(|e| e.setting == c.setting) {
                let Some(d) = &e.difference else { continue };
                let (scale, unit) = if e.mean { (1.0, "") } else { (100.0, " pt") };
                lines.push_str(&format!(
                    "    {}: {}{}\n",
                    goal_words(&report.info.system, &e.goal),
                    crate::stats::format::change(
                        scale * d.difference,
                        (scale * d.low, scale * d.high),
                        unit
                    ),
                    e.too_small_words(report.min_effect)
                ));
            }
        }
    }
    lines.push_str(&format!(
        "on {} fresh battles (seed {}), {}% family-wise over the goals:\n",
        thousands(report.verify_trials),
        report.verify_seed,
        trim_decimal(100.0 * report.confidence, 3)
    ));
    for g in &report.goals {
        let mark = if g.stand_in_tables.is_empty() {
            ""
        } else {
            " \u{2020}"
        };
        let [estimate, low, high] = if g.mean {
            [g.estimate, g.ci_low, g.ci_high].map(|x| signed(x, 3, false))
        } else {
            percent_interval(g.estimate, g.ci_low, g.ci_high)
        };
        let exact = g.exact.map_or_else(String::new, |p| {
            format!(", exact {}", goal_value(g.mean, p))
        });
        // Where it falls short, by how much.
        let short = match g.short_by() {
            by if by.is_empty() => by,
            by => format!(" (short by {by})"),
        };
        lines.push_str(&format!(
            "  {}{mark}: {estimate} ({low}\u{2013}{high}){exact}, {}{short}\n",
            goal_words(&report.info.system, &g.goal),
            g.verdict.words()
        ));
    }
    lines.push_str(&format!("{}\n", report.answer()));
    if !report.alternatives.is_empty() {
        lines.push_str(&format!("{}:\n", report.alternatives_are));
        for a in &report.alternatives {
            let changes: Vec<String> = (a.changes.iter())
                .map(|c| {
                    format!(
                        "{}: {} \u{2192} {}",
                        c.setting,
                        value_read(&c.from),
                        value_read(&c.to)
                    )
                })
                .collect();
            let goals: Vec<String> = (report.goals.iter().zip(&a.values).zip(&a.verdicts))
                .map(|((g, &v), verdict)| format!("{} {}", goal_value(g.mean, v), verdict.words()))
                .collect();
            lines.push_str(&format!(
                "  {}  ({})\n",
                changes.join(", "),
                goals.join("; ")
            ));
        }
    }
    let mut stand_ins: Vec<&str> = (report.goals.iter())
        .flat_map(|g| g.stand_in_tables.iter().map(String::as_str))
        .collect();
    stand_ins.sort_unstable();
    stand_ins.dedup();
    if !stand_ins.is_empty() {
        lines.push_str(&format!(
            "  \u{2020} rests on stand-in table values (warcrunch's defaults where the published figure is unknown): {}\n",
            stand_ins.join(", ")
        ));
    }
    for c in &report.conflicts {
        lines.push_str(&format!("  {c}\n"));
    }
    lines.push_str(&format!(
        "{} battles fought in all (the search's, the verifying run's and each change's alone)\n",
        thousands(report.battles_fought)
    ));
    lines.push_str(&crate::report::writers::console::wrote(
        &answer.written.folder,
        &answer.written.files,
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::{race_words, step_words};

    #[test]
    fn a_finalist_is_named_by_how_it_differs_from_the_table_found() {
        let found = "tables.survival.rows.A.min_margin=-1,tables.survival.rows.B.column=C";
        assert_eq!(race_words(found, found), "the table the search found");
        assert_eq!(
            race_words(found, "tables.survival.rows.B.column=C"),
            "the table found with survival.rows.A.min_margin back as written; 1 value changed in all"
        );
    }

    #[test]
    fn a_step_names_only_what_it_changes() {
        assert_eq!(
            step_words(
                "tables.survival.rows.D.column=C",
                "tables.survival.rows.D.column=C,tables.survival.rows.C.column=B"
            ),
            "survival.rows.C.column=B; 2 values changed in all"
        );
        assert_eq!(
            step_words("as written", "sides.Raiders.troop_strength=900"),
            "sides.Raiders.troop_strength=900; 1 value changed in all"
        );
        assert_eq!(
            step_words("a=1,b=2", "a=1"),
            "b back as written; 1 value changed in all"
        );
    }
}

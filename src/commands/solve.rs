//! `warcrunch solve`: the command line as a [`SolveRequest`], each probe
//! printed as it is decided, then the answer.

use anyhow::{Result, bail};

use crate::analysis::solve::{SolveAnswer, SolveRequest, solve};
use crate::cli::SolveArgs;
use crate::questions::solve::{Domain, Goal, Probe, read_as};
use crate::questions::target::Quantity;
use crate::report::writers::console::say;
use crate::scenario::Resolved;
use crate::stats::format::thousands;

/// Validates the options, searches and prints the answer.
pub fn run(args: &SolveArgs) -> Result<()> {
    let request = request(args)?;
    let resolved = Resolved::read(&args.scenario, &args.sim.tables)?;
    let to = super::destination(&args.out, &args.sim);
    let mut seen = |count: usize, setting: &str, domain: Domain, probe: &Probe| {
        say(&probe_line(count, setting, domain, probe))
    };
    let answer = solve(&resolved, &request, &args.sim.plan(), &to, &mut seen)?;
    say(&summary(&answer, args.exact))
}

/// The options as the request the library answers (the workbench's solve
/// form posts the same request).
pub fn request(args: &SolveArgs) -> Result<SolveRequest> {
    let sim = &args.sim;
    if sim.shard.is_some() {
        bail!("--shard: solve decides each probe before the next; run it without --shard");
    }
    if sim.trials.is_some() {
        bail!(
            "--trials: solve sizes each probe itself; give the most battles a probe may take with --max-trials"
        );
    }
    let goal = match (args.at_least, args.at_most, args.equals, &args.balance) {
        (Some(p), None, None, None) => Some(Goal::AtLeast(p)),
        (None, Some(p), None, None) => Some(Goal::AtMost(p)),
        (None, None, Some(p), None) => Some(Goal::Equals(p)),
        (None, None, None, Some(_)) => None,
        _ => bail!("name one goal: --at-least P, --at-most P, --equals P or --balance SIDE"),
    };
    Ok(SolveRequest {
        vary: args.vary.clone(),
        target: args.target.clone(),
        goal,
        balance: args.balance.clone(),
        exact: args.exact,
        precision: args.precision,
        max_trials: Some(args.max_trials),
        tolerance: args.tolerance,
        seed: sim.seed,
    })
}

/// The console line of one probe.
fn probe_line(count: usize, setting: &str, domain: Domain, probe: &Probe) -> String {
    let point = &probe.point;
    // In the one style of every report: `86.51% (85.97%–87.02%)`, a mean
    // `−0.12 (−0.13 to −0.11)`.
    let estimate = match point.quantity {
        Quantity::Probability => {
            let [p, lo, hi] = point
                .quantity
                .interval(point.estimate, point.ci_low, point.ci_high);
            format!("{p} ({lo}\u{2013}{hi})")
        }
        Quantity::Mean => {
            crate::stats::format::estimate(point.estimate, (point.ci_low, point.ci_high))
        }
    };
    format!(
        "probe {count}: {setting} = {} \u{2192} {estimate}{}, {}\n",
        read_as(domain, probe.point.value),
        probe.trials.map_or(" exact".to_owned(), |n| format!(
            ", {} battles",
            thousands(n)
        )),
        probe.decision.name()
    )
}

/// The closing lines: the answer, any warning, the probes and battles spent
/// and the files written.
fn summary(answer: &SolveAnswer, exact: bool) -> String {
    let report = &answer.report;
    let mut lines = format!(
        "{}{}\n",
        report.solution.sentence,
        crate::report::kit::words::mark_if(&report.stand_ins)
    );
    if let Some(line) = report.rests_on() {
        lines.push_str(&format!("{line}\n"));
    }
    if let Some(w) = &report.solution.warning {
        lines.push_str(&format!("warning: {w}\n"));
    }
    lines.push_str(&format!(
        "{} probes{}\n{}",
        report.probes.len(),
        if exact {
            ", exact".to_owned()
        } else {
            format!(", {} battles in all", thousands(answer.battles))
        },
        crate::report::writers::console::wrote(&answer.written.folder, &answer.written.files)
    ));
    lines
}

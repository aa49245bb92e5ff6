//! The short summaries printed on the console after `run`, `sweep` and
//! `compare`, and the one way text reaches stdout.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::report::exporters::csv::{AGREEMENT_CONFIDENCE, agreements};
use crate::report::findings::{advice, frontiers, metric_mark, stand_ins_note, verdict};
use crate::report::kit::words::STAND_IN_MARK;
use crate::report::{ReportKind, RunReport};
use crate::stats::compare::{Difference, Tests, format_p};
use crate::stats::format::{percent_interval, thousands, trim_decimal};
use crate::stats::{MetricRole, wilson, z95};

/// Set once, by the command line's `--quiet`: then [`say`] prints nothing
/// and only errors reach the terminal.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences (or restores) everything [`say`] prints.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether `--quiet` was given.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// The console's line for files written into `folder`: the folder, the
/// page and the tables by name, and the charts counted (a run writes up
/// to a hundred files; every one is in the folder).
pub fn wrote(folder: &std::path::Path, files: &[String]) -> String {
    let chart = |f: &String| f.ends_with(".svg") || f.ends_with(".png");
    let mut named: Vec<&str> = files
        .iter()
        .filter(|f| f.as_str() == "report.html")
        .chain(
            files
                .iter()
                .filter(|f| !chart(f) && f.as_str() != "report.html"),
        )
        .map(String::as_str)
        .collect();
    let charts = files.iter().filter(|f| chart(f)).count();
    let counted = match charts {
        0 => String::new(),
        1 => "1 chart file".to_owned(),
        n => format!("{n} chart files (SVG and PNG)"),
    };
    if !counted.is_empty() {
        named.push(&counted);
    }
    format!("Wrote {}: {}\n", folder.display(), named.join(", "))
}

/// Writes text to stdout unless `--quiet`, flushed, so a write that fails
/// (a full disk) is an error naming it; a closed pipe (`warcrunch ... |
/// head`) is not an error.
pub fn say(text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    if quiet() {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(anyhow::anyhow!("cannot write to standard output: {e}"))
        }
        _ => Ok(()),
    }
}

/// The console summary of a finished report of the command `kind`.
/// Every kind ends with the note the † marks lead to, when a number
/// rests on stand-in values.
pub fn summary(kind: ReportKind, report: &RunReport) -> String {
    let mut out = match kind {
        ReportKind::Run => run_summary(report),
        ReportKind::Sweep => sweep_summary(report, report.info.max_risk_of_down.unwrap_or(0.05)),
        ReportKind::Compare => compare_summary(report),
    };
    let stand_ins = report.info.stand_ins();
    if !stand_ins.is_empty() {
        let _ = writeln!(out, "{STAND_IN_MARK} {}", stand_ins_note(&stand_ins));
    }
    out
}

/// The short human summary printed after a run.
fn run_summary(report: &RunReport) -> String {
    let info = &report.info;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} battles, seed {}, {}, {:.2} s",
        info.name,
        thousands(info.trials.unwrap_or(0)),
        info.seed.unwrap_or(0),
        match info.threads.unwrap_or(0) {
            1 => "1 thread".to_owned(),
            n => format!("{n} threads"),
        },
        info.elapsed_seconds.unwrap_or(0.0)
    );
    for v in &report.variants {
        for line in verdict(&v.metrics, info.trials.unwrap_or(0), info) {
            let _ = writeln!(out, "{line}");
        }
        for m in &v.metrics {
            let total = m.total();
            let line = match m.summary() {
                Some(s) => format!(
                    "mean {}, median {}, 95th percentile {}",
                    crate::stats::format::estimate(s.mean, (s.ci_low, s.ci_high)),
                    crate::stats::format::minus(&s.p50.to_string()),
                    crate::stats::format::minus(&s.p95.to_string())
                ),
                None => m
                    .reported_bins(|w| w == 0)
                    .filter(|&b| m.weights[b] > 0)
                    .map(|b| {
                        let (lo, hi) = wilson(m.weights[b], total, z95());
                        let p = m.weights[b] as f64 / total as f64;
                        let [p, lo, hi] = percent_interval(p, lo, hi);
                        format!("{} {p} ({lo}–{hi})", m.label(b))
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            let _ = writeln!(out, "  {}/{}: {line}", m.subject, m.name);
        }
    }
    let checks: Vec<_> = agreements(report)
        .into_iter()
        .filter(|a| a.reached())
        .collect();
    if !checks.is_empty() {
        let disagreeing: Vec<_> = checks.iter().filter(|a| !a.agrees()).collect();
        let _ = writeln!(
            out,
            "  exact check: {} of {} values inside their {:.1}% Monte Carlo interval",
            checks.len() - disagreeing.len(),
            checks.len(),
            100.0 * AGREEMENT_CONFIDENCE
        );
        for a in disagreeing {
            let _ = writeln!(
                out,
                "    outside: {}/{} = {}: exact {:.6}, simulated {:.6} ({:.6}–{:.6})",
                a.subject,
                a.metric,
                a.value,
                a.exact,
                a.count as f64 / a.trials as f64,
                a.interval.0,
                a.interval.1
            );
        }
    }
    if let Some(reason) = &info.stop_reason {
        let _ = writeln!(out, "  {reason}");
    }
    out
}

/// The comparison printed after a sweep.
fn sweep_summary(report: &RunReport, cap: f64) -> String {
    let info = &report.info;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} variants × {} battles, seed {}, {:.2} s",
        info.name,
        report.variants.len(),
        thousands(info.trials.unwrap_or(0)),
        info.seed.unwrap_or(0),
        info.elapsed_seconds.unwrap_or(0.0)
    );
    if let Some(reason) = &info.stop_reason {
        let _ = writeln!(out, "  {reason}");
    }
    for v in &report.variants {
        let headline: Vec<String> = v
            .metrics
            .iter()
            .filter(|m| {
                matches!(
                    m.role,
                    MetricRole::Winner { .. } | MetricRole::Victory { .. }
                )
            })
            .take(1)
            .map(|m| {
                let total = m.total().max(1) as f64;
                let shares = (0..m.weights.len())
                    .map(|b| {
                        format!(
                            "{} {}",
                            m.label(b),
                            crate::stats::format::percent(m.weights[b] as f64 / total)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                // Whose outcome: the side a victory metric belongs to.
                let mark = metric_mark(&report.info, &m.subject, &m.name);
                match &m.role {
                    MetricRole::Victory { side } => format!("{side} {shares}{mark}"),
                    _ => format!("{shares}{mark}"),
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "  {:<24} {}",
            crate::stats::format::minus(&v.variant),
            headline.join("")
        );
    }
    for held in &info.held_by_readings {
        let _ = writeln!(out, "  {held}.");
    }
    let all = frontiers(report);
    for f in &all {
        let _ = writeln!(
            out,
            "{}: P({}) and expected Reputation per variant{}",
            f.pc.clone(),
            f.out_label,
            // The frontier plots his fate against his Reputation.
            [
                metric_mark(&report.info, &f.subject, "state"),
                metric_mark(&report.info, &f.subject, "reputation")
            ]
            .into_iter()
            .max()
            .unwrap_or_default()
        );
        for p in &f.points {
            let [p_out, lo, hi] = percent_interval(p.p_out, p.p_out_ci.0, p.p_out_ci.1);
            let _ = writeln!(
                out,
                "    {:<22} P({}) {p_out} ({lo}–{hi})   E[Reputation] {}",
                crate::stats::format::minus(&p.variant),
                f.out_label,
                crate::stats::format::estimate(p.reputation, p.reputation_ci)
            );
        }
    }
    match advice(report, &all) {
        Some(a) => {
            let whom: Vec<&str> = a.pcs.iter().map(String::as_str).collect();
            let _ = writeln!(out, "For {} (cap {:.1}%):", whom.join(" and "), 100.0 * cap);
            let _ = writeln!(out, "  {}", a.explain());
        }
        None if !all.is_empty() => {
            let _ = writeln!(
                out,
                "No recommendation: no swept setting belongs to a PC (name one with --recommend-for NAME)."
            );
        }
        None => {}
    }
    out
}

/// Significant tests listed on the console per variant; the rest are counted.
const LISTED: usize = 15;

/// One significant test in words.
fn one_line(d: &Difference) -> String {
    let p = format_p(d.p_value);
    if d.test == "chi_square" {
        return format!("{}: chi-square {:.1}, p {p}", d.outcome(), d.statistic);
    }
    let (scale, unit) = d.scale();
    let (diff, lo, hi) = d.difference;
    let unit = if unit == "%" { " pt" } else { "" };
    let change = crate::stats::format::change(scale * diff, (scale * lo, scale * hi), unit);
    format!("{}: {change}, p {p}", d.outcome())
}

/// What changed significantly, per variant against the baseline.
fn compare_summary(report: &RunReport) -> String {
    let mut out = String::new();
    let Some(base) = report.baseline() else {
        return out;
    };
    let _ = writeln!(
        out,
        "{}: {} battles each, seed {}",
        report.info.name,
        thousands(report.info.trials.unwrap_or(0)),
        report.info.seed.unwrap_or(0)
    );
    for line in crate::report::findings::baseline_sentence(report)
        .into_iter()
        .chain(crate::report::findings::comparison(report))
    {
        let _ = writeln!(out, "{line}.");
    }
    for v in report.compared() {
        let tests = Tests::new(&base.metrics, &v.metrics, (&v.shared, &v.paired_means));
        let (significant, too_small) =
            crate::report::findings::beyond_min_effect(tests.significant(), report.info.min_effect);
        let _ = writeln!(
            out,
            "{} against {}: {} of {} tests significant (family-wise 5%, each at p < {}){}",
            crate::stats::format::minus(&v.variant),
            crate::stats::format::minus(&base.variant),
            significant.len(),
            tests.counted(),
            format_p(tests.alpha),
            match too_small {
                0 => String::new(),
                n => format!(
                    "; {n} more significant but smaller than the --min-effect asked ({}): too small to matter",
                    trim_decimal(report.info.min_effect.unwrap_or_default(), 6)
                ),
            }
        );
        for d in significant.iter().take(LISTED) {
            let _ = writeln!(out, "  {}", one_line(d));
        }
        if !tests.untested.is_empty() {
            let _ = writeln!(
                out,
                "  not tested (only one of the two reports them): {}",
                crate::report::kit::words::targets(&report.info.system, &tests.untested)
            );
        }
        if significant.len() > LISTED {
            let _ = writeln!(
                out,
                "  and {} more (every test is in comparison.csv)",
                significant.len() - LISTED
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::wrote;

    #[test]
    fn the_line_names_the_page_and_tables_and_counts_the_charts() {
        let files: Vec<String> = [
            "distributions.csv",
            "a.svg",
            "a.png",
            "a@2x.png",
            "run.json",
            "report.html",
        ]
        .map(str::to_owned)
        .to_vec();
        assert_eq!(
            wrote(std::path::Path::new("out"), &files),
            "Wrote out: report.html, distributions.csv, run.json, 3 chart files (SVG and PNG)\n"
        );
        assert_eq!(
            wrote(std::path::Path::new("out"), &["run.json".to_owned()]),
            "Wrote out: run.json\n"
        );
    }
}

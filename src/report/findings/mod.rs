//! Findings: what a run's numbers say, computed once as data — the
//! headline verdict sentences and the balance flags. The console, the HTML
//! report and the workbench render them; none of them words a finding of
//! its own.

pub mod deck;

use std::fmt::Write as _;

use crate::stats::format::thousands;
use crate::stats::recommend::{Choice, Estimate, Recommendation, recommend};
use crate::stats::{Metric, MetricRole, wilson, z95};

use crate::report::RunReport;
use crate::report::exporters::csv::agreements;
use crate::report::kit::words::STAND_IN_MARK;

pub(super) fn pct(p: f64) -> String {
    crate::stats::format::percent(p)
}

/// A probability with its interval: `56.80% (55.10%–58.00%)`, written by
/// [`crate::stats::format::percent_interval`].
pub(super) fn with_interval(p: f64, low: f64, high: f64) -> String {
    let [p, low, high] = crate::stats::format::percent_interval(p, low, high);
    format!("{p} ({low}–{high})")
}

pub(super) fn share(m: &Metric<u64>, bin: usize) -> (f64, f64, f64) {
    let total = m.total();
    let (lo, hi) = wilson(m.weights[bin], total, z95());
    (m.weights[bin] as f64 / total.max(1) as f64, lo, hi)
}

/// Bin `bin`'s share and its interval's ends as every table and chart
/// label writes them: one text for one count, wherever it is shown.
pub(super) fn shown_share(m: &Metric<u64>, bin: usize) -> [String; 3] {
    let (p, lo, hi) = share(m, bin);
    crate::stats::format::percent_interval(p, lo, hi)
}

pub(super) fn find<'a>(
    metrics: &'a [Metric<u64>],
    subject: &str,
    name: &str,
) -> Option<&'a Metric<u64>> {
    metrics
        .iter()
        .find(|m| m.subject == subject && m.name == name)
}

/// The out-of-action bins of a fate in words: `down or dead`.
pub fn out_words(m: &Metric<u64>, bins: &[usize]) -> String {
    bins.iter()
        .map(|&b| m.label(b).replace('_', " "))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// The headline sentences of one variant's results.
pub fn headline(system: &str, metrics: &[Metric<u64>], trials: u64) -> Vec<String> {
    sentences(system, metrics, trials)
        .into_iter()
        .map(|(line, _)| line)
        .collect()
}

/// The headline sentences, each with the metric it states.
fn sentences<'a>(
    system: &str,
    metrics: &'a [Metric<u64>],
    trials: u64,
) -> Vec<(String, &'a Metric<u64>)> {
    let mut lines = Vec::new();
    let n = thousands(trials);
    for (w, units) in metrics.iter().filter_map(|m| match &m.role {
        MetricRole::Winner { units } => Some((m, units)),
        _ => None,
    }) {
        for (bin, role) in [(0, "attacker"), (1, "defender")] {
            let (p, lo, hi) = share(w, bin);
            lines.push((
                format!(
                    "{} ({role}) won {} of {n} engagements",
                    units[bin],
                    with_interval(p, lo, hi)
                ),
                w,
            ));
        }
        // A headline outcome of its own (a row of key_outcomes.csv), so
        // with its interval as the others.
        let (p, lo, hi) = share(w, 2);
        lines.push((format!("Neither won in {}", with_interval(p, lo, hi)), w));
    }
    // One side's view says it all: the first side's.
    if let Some((m, name)) = metrics.iter().find_map(|m| match &m.role {
        MetricRole::Victory { side } => Some((m, side)),
        _ => None,
    }) {
        let (p, lo, hi) = share(m, 0);
        let mut line = format!("{name} won {} of {n} battles", with_interval(p, lo, hi));
        let [lost, ..] = shown_share(m, 1);
        let _ = write!(line, "; lost {lost}");
        if let Some([other, ..]) = (2 < m.weights.len()).then(|| shown_share(m, 2)) {
            let _ = write!(line, "; {} {other}", m.label(2));
        }
        lines.push((line, m));
    }
    for (m, side, kept) in metrics.iter().filter_map(|m| match &m.role {
        MetricRole::Ground { side, kept } => Some((m, side, kept)),
        _ => None,
    }) {
        let total = m.total();
        let hits: u64 = kept.iter().map(|&b| m.weights[b]).sum();
        let (lo, hi) = wilson(hits, total, z95());
        let apart: Vec<String> = (0..m.weights.len())
            .map(|b| format!("{} {}", m.label(b).replace('_', " "), shown_share(m, b)[0]))
            .collect();
        lines.push((
            format!(
                "{side} (defending) held the ground in {}: {}",
                with_interval(hits as f64 / total.max(1) as f64, lo, hi),
                apart.join(", ")
            ),
            m,
        ));
    }
    for (m, side, whole, words) in metrics.iter().filter_map(|m| match &m.role {
        MetricRole::PartyRisk { side, whole, words } => Some((m, side, *whole, words)),
        _ => None,
    }) {
        let (p, lo, hi) = share(m, 1);
        lines.push((
            format!(
                "{} in {}",
                crate::report::kit::words::party_risk(side, whole, words),
                with_interval(p, lo, hi)
            ),
            m,
        ));
    }
    for (m, name, out_bins) in metrics.iter().filter_map(|m| match &m.role {
        MetricRole::Fate { pc, out, .. } => Some((m, pc, out)),
        _ => None,
    }) {
        let total = m.total();
        let out: u64 = out_bins.iter().map(|&b| m.weights[b]).sum();
        let (lo, hi) = wilson(out, total, z95());
        let mut line = format!(
            "{name} ends {} in {}",
            out_words(m, out_bins),
            with_interval(out as f64 / total.max(1) as f64, lo, hi)
        );
        if out_bins.len() > 1 {
            let apart: Vec<String> = out_bins
                .iter()
                .map(|&b| {
                    let (p, lo, hi) = share(m, b);
                    format!("{} {}", m.label(b), with_interval(p, lo, hi))
                })
                .collect();
            let _ = write!(line, ": {}", apart.join(", "));
        }
        lines.push((line, m));
    }
    for m in metrics.iter().filter(|m| m.role == MetricRole::Target) {
        let (p, lo, hi) = share(m, 1);
        lines.push((
            format!(
                "{} in {} of {n} battles",
                crate::report::kit::words::target(system, &format!("{}/{}", m.subject, m.name)),
                with_interval(p, lo, hi)
            ),
            m,
        ));
    }
    lines
}

/// One headline outcome of a battle as numbers: what a verdict line
/// states (a side's victory, an engagement's winner, the party's risk, a
/// PC out of action, a PC's mean Reputation, a target), for
/// `key_outcomes.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyRow {
    /// `side:Megalos`, `hero:Titus`, `party`, `battle`.
    pub subject: String,
    /// The metric read.
    pub metric: String,
    /// The value or values counted (`won`, `down|dead`), `mean` for a mean.
    pub value: String,
    /// The outcome in words: `Megalos won`, `Titus ends down or dead`.
    pub outcome: String,
    /// `probability` or `mean`.
    pub kind: &'static str,
    /// The estimate, with its 95% interval.
    pub estimate: (f64, f64, f64),
    /// The battles it was counted over.
    pub battles: u64,
}

impl KeyRow {
    /// The estimate and its interval as the reports print them:
    /// `56.80% (55.10%–58.00%)`, a mean `7.34 (7.30–7.37)`.
    pub fn printed(&self) -> String {
        let (x, lo, hi) = self.estimate;
        if self.kind == "mean" {
            crate::stats::format::estimate(x, (lo, hi))
        } else {
            with_interval(x, lo, hi)
        }
    }
}

/// A headline outcome is its battle's own (a plain run: no variant).
impl crate::report::exporters::csv::Keyed for KeyRow {
    fn key(&self) -> [&str; 3] {
        ["", &self.subject, &self.metric]
    }
}

/// The headline outcomes of one battle's metrics, in the verdict's order.
pub fn key_rows(metrics: &[Metric<u64>]) -> Vec<KeyRow> {
    let mut rows = Vec::new();
    let share_of = |m: &Metric<u64>, bins: &[usize]| {
        let hits: u64 = bins.iter().map(|&b| m.weights[b]).sum();
        let total = m.total();
        let (lo, hi) = wilson(hits, total, z95());
        (hits as f64 / total.max(1) as f64, lo, hi)
    };
    let probability = |m: &Metric<u64>, bins: &[usize], outcome: String| KeyRow {
        subject: m.subject.clone(),
        metric: m.name.clone(),
        value: bins
            .iter()
            .map(|&b| m.label(b))
            .collect::<Vec<_>>()
            .join("|"),
        outcome,
        kind: "probability",
        estimate: share_of(m, bins),
        battles: m.total(),
    };
    let mut side_seen = false;
    for m in metrics {
        match &m.role {
            MetricRole::Winner { units } => {
                rows.push(probability(m, &[0], format!("{} (attacker) won", units[0])));
                rows.push(probability(m, &[1], format!("{} (defender) won", units[1])));
                rows.push(probability(m, &[2], "Neither won".to_owned()));
            }
            MetricRole::Victory { side } if !side_seen => {
                side_seen = true;
                rows.push(probability(m, &[0], format!("{side} won")));
            }
            MetricRole::Ground { side, kept } => {
                rows.push(probability(
                    m,
                    kept,
                    format!("{side} (defending) held the ground"),
                ));
            }
            MetricRole::PartyRisk { side, whole, words } => {
                rows.push(probability(
                    m,
                    &[1],
                    crate::report::kit::words::party_risk(side, *whole, words),
                ));
            }
            MetricRole::Fate { pc, out, .. } => {
                rows.push(probability(
                    m,
                    out,
                    format!("{pc} ends {}", out_words(m, out)),
                ));
            }
            MetricRole::Fame { pc } => {
                if let Some(s) = m.summary() {
                    rows.push(KeyRow {
                        subject: m.subject.clone(),
                        metric: m.name.clone(),
                        value: "mean".to_owned(),
                        outcome: format!("{pc}: mean Reputation"),
                        kind: "mean",
                        estimate: (s.mean, s.ci_low, s.ci_high),
                        battles: m.total(),
                    });
                }
            }
            MetricRole::Target => {
                rows.push(probability(m, &[1], format!("{}/{}", m.subject, m.name)));
            }
            _ => {}
        }
    }
    rows
}

/// The key odds of one variant's results: who wins and the risk to the
/// party, the first of the headline sentences (an index's one line), each
/// with whether its metric rests on stand-in values (marked †).
pub fn key_odds(
    metrics: &[Metric<u64>],
    trials: u64,
    info: &crate::report::RunInfo,
) -> Vec<(String, bool)> {
    sentences(&info.system, metrics, trials)
        .into_iter()
        .filter(|(_, m)| {
            matches!(
                m.role,
                MetricRole::Winner { .. }
                    | MetricRole::Victory { .. }
                    | MetricRole::PartyRisk { .. }
            )
        })
        .map(|(line, m)| (line, info.metric_uses_stand_ins(&m.subject, &m.name)))
        .collect()
}

/// The stand-in tables a question's target (`side:A/victory=won`,
/// `hero:A/reputation:mean`) rests on in the battle as written.
pub fn target_stand_ins(info: &crate::report::RunInfo, target: &str) -> Vec<String> {
    let (subject_metric, _) = crate::questions::target::split_text(target);
    let (subject, metric) = subject_metric
        .split_once('/')
        .unwrap_or(("", subject_metric));
    info.stand_in_tables("", subject, metric)
}

/// What to append to a verdict sentence of a run: ` †` when its battle
/// rests on stand-in values, else nothing.
pub fn stand_in_mark(info: &crate::report::RunInfo) -> String {
    if info.uses_stand_ins() {
        format!(" {STAND_IN_MARK}")
    } else {
        String::new()
    }
}

/// What to append to a line about metric `metric` of `subject`: ` †`
/// when it rests on stand-in values, else nothing.
pub fn metric_mark(info: &crate::report::RunInfo, subject: &str, metric: &str) -> String {
    if info.metric_uses_stand_ins(subject, metric) {
        format!(" {STAND_IN_MARK}")
    } else {
        String::new()
    }
}

/// The verdict's sentences of one battle's metrics after `trials` battles,
/// each marked † when its metric rests on stand-in values: what the
/// console, report.html and the workbench state alike.
pub fn verdict(metrics: &[Metric<u64>], trials: u64, info: &crate::report::RunInfo) -> Vec<String> {
    sentences(&info.system, metrics, trials)
        .into_iter()
        .map(|(line, m)| line + &metric_mark(info, &m.subject, &m.name))
        .collect()
}

/// Which variant a sweep compares every other with, and why: the one
/// holding the scenario's own values, else the first. None for a plain run
/// or a comparison of files (whose first file is the baseline).
pub fn baseline_sentence(report: &RunReport) -> Option<String> {
    if report.info.parameters.is_empty() || report.variants.len() < 2 {
        return None;
    }
    let base = crate::stats::format::minus(&report.baseline()?.variant);
    let plural = if report.info.parameters.len() > 1 {
        "s"
    } else {
        ""
    };
    Some(match report.info.baseline {
        Some(_) => {
            format!("Each variant is compared with {base}, the scenario's own value{plural}")
        }
        None => format!(
            "Each variant is compared with the first, {base}: no variant holds the value{plural} the scenario file sets for the swept setting{plural}"
        ),
    })
}

/// Whether every variant put every battle in the same category of
/// `subject`'s `metric` as the baseline did, fought on the same battles:
/// then no variant moves it anywhere, and a chart of it would show one
/// picture over and over. False when the variants were not paired.
pub fn same_in_every_battle(report: &RunReport, subject: &str, metric: &str) -> bool {
    let mut compared = report.compared().peekable();
    compared.peek().is_some()
        && compared.all(|v| {
            let both: u64 = (v.shared.iter())
                .filter(|c| c.subject == subject && c.metric == metric)
                .map(|c| c.battles)
                .sum();
            find(&v.metrics, subject, metric).is_some_and(|m| m.total() > 0 && both == m.total())
        })
}

/// A comparison's verdict: for each variant against the baseline, each key
/// outcome in both and the difference with its 95% interval, or "no
/// clear difference" where the family-wise test (the one
/// `comparison.csv` and the console use) does not tell them apart; each
/// marked † when its metric rests on stand-in values.
pub fn comparison(report: &RunReport) -> Vec<String> {
    let Some(base) = report.baseline() else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for v in report.compared() {
        // Paired by battle on the same random numbers: true of a sweep's
        // variants and of two unrelated battles compared alike.
        lines.push(format!(
            "{} against {}, battle by battle on the same random numbers",
            crate::stats::format::minus(&v.variant),
            crate::stats::format::minus(&base.variant)
        ));
        lines.extend(
            crate::report::exporters::key_outcomes::key_outcomes(
                &report.info.system,
                (base, v),
                report.info.min_effect,
            )
            .iter()
            .map(|k| k.sentence() + &metric_mark(&report.info, &k.subject, &k.metric)),
        );
    }
    lines
}

/// The significant differences no smaller than the `--min-effect` asked
/// (every one where none was), and how many smaller ones were left out as
/// too small to matter.
pub fn beyond_min_effect(
    significant: Vec<&crate::stats::compare::Difference>,
    min_effect: Option<f64>,
) -> (Vec<&crate::stats::compare::Difference>, usize) {
    let Some(m) = min_effect else {
        return (significant, 0);
    };
    let (small, kept): (Vec<_>, Vec<_>) =
        (significant.into_iter()).partition(|d| d.below(m) == Some(true));
    (kept, small.len())
}

/// The note the mark leads to, when the battle rests on stand-in values.
pub fn stand_ins_of(info: &crate::report::RunInfo) -> Option<String> {
    let all = info.stand_ins();
    (!all.is_empty()).then(|| stand_ins_note(&all))
}

/// The note the mark leads to: which stand-in values the battle rests on.
pub fn stand_ins_note(stand_ins: &[String]) -> String {
    format!(
        "Rests on stand-in table values, our defaults where the published figure is unknown: {}. Replace them with your book's figures before quoting these numbers as the rules' answer.",
        stand_ins.join("; ")
    )
}

/// `text` with its first letter in upper case.
pub fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A balance warning, or a confirmation that a check passed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Flag {
    /// False for a warning, true for a passed check.
    pub ok: bool,
    /// The explanation.
    pub text: String,
}

/// The automatic balance flags of a run or sweep.
pub fn flags(report: &RunReport) -> Vec<Flag> {
    let mut out = Vec::new();
    let warn = |text: String| Flag { ok: false, text };
    for v in &report.variants {
        let prefix = if v.variant.is_empty() {
            String::new()
        } else {
            format!("[{}] ", crate::stats::format::minus(&v.variant))
        };
        for m in &v.metrics {
            out.extend(metric_flag(m, &prefix).into_iter().map(warn));
        }
    }
    if report.variants.len() > 1 {
        out.extend(dominated_flags(report).into_iter().map(warn));
    }
    // The stand-in values are said once, in the note the † marks lead to
    // (`stand_ins_of`), not again as a flag.
    let checks: Vec<_> = agreements(report)
        .into_iter()
        .filter(|a| a.reached())
        .collect();
    if !checks.is_empty() {
        let bad = checks.iter().filter(|a| !a.agrees()).count();
        out.push(Flag {
            ok: bad == 0,
            text: format!(
                "Exact check: {} of {} values lie inside their 99.9% Monte Carlo interval.",
                checks.len() - bad,
                checks.len()
            ),
        });
    }
    if out.iter().all(|f| f.ok) {
        out.push(Flag {
            ok: true,
            text: "No balance warnings.".into(),
        });
    }
    out
}

/// Warnings one metric raises: a side or role that almost never wins, a
/// PC who dies in more than 1 battle in 10 or is out in more than half.
fn metric_flag(m: &Metric<u64>, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    match &m.role {
        MetricRole::Victory { side } => {
            let (p, _, hi) = share(m, 0);
            if hi < 0.05 {
                out.push(format!(
                        "{prefix}{side} almost never wins: {} of battles. The matchup may be too lopsided to be interesting.",
                        pct(p)
                    ));
            }
        }
        MetricRole::Winner { .. } => {
            for (bin, role) in [(0, "attacker"), (1, "defender")] {
                let (p, _, hi) = share(m, bin);
                if hi < 0.05 {
                    out.push(format!("{prefix}The {role} almost never wins: {}.", pct(p)));
                }
            }
        }
        MetricRole::Fate {
            pc,
            out: out_bins,
            dead,
        } => {
            if let Some(b) = *dead {
                let (p, lo, _) = share(m, b);
                if lo > 0.10 {
                    out.push(format!(
                        "{prefix}{pc} dies in {} of battles: more than 1 in 10.",
                        pct(p)
                    ));
                }
            }
            let total = m.total();
            let gone: u64 = out_bins.iter().map(|&b| m.weights[b]).sum();
            let (lo, _) = wilson(gone, total, z95());
            if lo > 0.5 {
                out.push(format!(
                    "{prefix}{pc} ends {} in {} of battles: more than half.",
                    out_words(m, out_bins),
                    pct(gone as f64 / total.max(1) as f64)
                ));
            }
        }
        _ => {}
    }
    out
}

/// Variants never worth taking: another variant is clearly safer and not
/// clearly less glorious, or clearly more glorious and not clearly less safe.
fn dominated_flags(report: &RunReport) -> Vec<String> {
    let mut out = Vec::new();
    // Only a PC's own choice can be never worth taking: a swept side's
    // numbers are no PC's to take.
    for f in frontiers(report).into_iter().filter(|f| f.advised) {
        for (i, p) in f.points.iter().enumerate() {
            // Dominated: another variant is clearly safer and not clearly
            // less glorious, or clearly more glorious and not clearly less safe.
            let better = f.points.iter().find(|q| {
                let safer = q.p_out_ci.1 < p.p_out_ci.0;
                let not_less_safe = q.p_out_ci.0 <= p.p_out_ci.1;
                let more_glory = q.reputation_ci.0 > p.reputation_ci.1;
                let not_less_glory = q.reputation_ci.1 >= p.reputation_ci.0;
                (safer && not_less_glory) || (more_glory && not_less_safe)
            });
            if let Some(q) = better {
                out.push(format!(
                    "{}: {} is never worth taking: {} is at least as good on both safety and Reputation and clearly better on one.",
                    f.pc.clone(),
                    crate::stats::format::minus(&f.points[i].variant),
                    crate::stats::format::minus(&q.variant)
                ));
            }
        }
    }
    out
}

/// One variant's point on a PC's frontier.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontierPoint {
    /// Variant name.
    pub variant: String,
    /// P(out of action): down or dead (GURPS), knocked out (7th Sea).
    pub p_out: f64,
    /// 95% Wilson interval of `p_out`.
    pub p_out_ci: (f64, f64),
    /// Expected Reputation.
    pub reputation: f64,
    /// 95% interval of the mean.
    pub reputation_ci: (f64, f64),
}

/// A PC's frontier across the sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct HeroFrontier {
    /// The PC's subject (`hero:Titus`).
    pub subject: String,
    /// The PC's name.
    pub pc: String,
    /// What "out" means for this system: `down or dead`, `knocked out`.
    pub out_label: String,
    /// One point per variant, in sweep order.
    pub points: Vec<FrontierPoint>,
    /// Whether the sweep's recommendation is made for this PC.
    pub advised: bool,
}

/// The sweep's one joint recommendation, for the PCs whose own settings
/// are swept (or named with `--recommend-for`).
#[derive(Debug, Clone, PartialEq)]
pub struct SweepAdvice {
    /// The PCs it is made for.
    pub pcs: Vec<String>,
    /// What "out" means (`down or dead`).
    pub out_label: String,
    /// Each variant, joint over those PCs.
    pub choices: Vec<Choice>,
    /// The decision.
    pub recommendation: Recommendation,
    /// The cap it was made under.
    pub cap: f64,
}

impl SweepAdvice {
    /// The decision and its reason in plain words.
    pub fn explain(&self) -> String {
        self.recommendation
            .explain(&self.choices, self.cap, &self.out_label)
    }

    /// Whether variant `i` is recommended (alone or tied).
    pub fn recommends(&self, i: usize) -> bool {
        self.recommendation.chosen().contains(&i)
    }
}

/// A sweep's findings for a reader who has its report beside them: the
/// recommendation in its sentence (or why there is none), and its flags.
pub fn sweep_findings(report: &RunReport) -> (Vec<String>, Vec<Flag>) {
    let all = frontiers(report);
    let said = match advice(report, &all) {
        Some(a) => vec![format!("For {}: {}", a.pcs.join(" and "), a.explain())],
        None if !all.is_empty() => vec![NO_RECOMMENDATION.to_owned()],
        None => Vec::new(),
    };
    (said, flags(report))
}

/// Why a sweep recommends nothing, where PCs are in it: no one's own
/// choice is swept.
const NO_RECOMMENDATION: &str = "No recommendation: no swept setting belongs to a PC. Name the PCs to recommend a value for (the page's \u{201c}Recommend a value for\u{201d}, or --recommend-for NAME).";

/// The joint recommendation, or `None` when no PC's own setting is swept
/// and none is named with `--recommend-for` (a troop-strength sweep is no
/// PC's choice).
pub fn advice(report: &RunReport, frontiers: &[HeroFrontier]) -> Option<SweepAdvice> {
    let cap = report.info.max_risk_of_down.unwrap_or(1.0);
    let advised: Vec<&HeroFrontier> = frontiers.iter().filter(|f| f.advised).collect();
    let first = advised.first()?;
    let choices: Vec<Choice> = (0..first.points.len())
        .map(|i| {
            let per_pc: Vec<(Estimate, Estimate)> = advised
                .iter()
                .map(|f| {
                    let p = &f.points[i];
                    (
                        Estimate {
                            value: p.p_out,
                            low: p.p_out_ci.0,
                            high: p.p_out_ci.1,
                        },
                        Estimate {
                            value: p.reputation,
                            low: p.reputation_ci.0,
                            high: p.reputation_ci.1,
                        },
                    )
                })
                .collect();
            Choice::joint(&first.points[i].variant, &per_pc)
        })
        .collect();
    Some(SweepAdvice {
        pcs: advised.iter().map(|f| f.pc.clone()).collect(),
        out_label: first.out_label.clone(),
        recommendation: recommend(&choices, cap)?,
        choices,
        cap,
    })
}

/// The frontier of each PC in `report.info.swept_heroes` (every PC when
/// none is named; those named are `advised`).
pub fn frontiers(report: &RunReport) -> Vec<HeroFrontier> {
    let Some(first) = report.variants.first() else {
        return Vec::new();
    };
    let swept = &report.info.swept_heroes;
    let pcs: Vec<String> = first
        .metrics
        .iter()
        .filter_map(|m| match &m.role {
            MetricRole::Fate { pc, .. } => Some(pc.clone()),
            _ => None,
        })
        .filter(|pc| swept.is_empty() || swept.contains(pc))
        .collect();
    pcs.into_iter()
        .filter_map(|pc| {
            let mut points = Vec::new();
            let mut out_label = String::new();
            for v in &report.variants {
                let (state, out_bins) = v.metrics.iter().find_map(|m| match &m.role {
                    MetricRole::Fate { pc: p, out, .. } if *p == pc => Some((m, out)),
                    _ => None,
                })?;
                let reputation = v
                    .metrics
                    .iter()
                    .find(|m| matches!(&m.role, MetricRole::Fame { pc: p } if *p == pc))?
                    .summary()?;
                let total = state.total();
                out_label = out_words(state, out_bins);
                let out: u64 = out_bins.iter().map(|&b| state.weights[b]).sum();
                points.push(FrontierPoint {
                    variant: v.variant.clone(),
                    p_out: out as f64 / total as f64,
                    p_out_ci: wilson(out, total, z95()),
                    reputation: reputation.mean,
                    reputation_ci: (reputation.ci_low, reputation.ci_high),
                });
            }
            Some(HeroFrontier {
                subject: format!("hero:{pc}"),
                pc,
                out_label,
                points,
                advised: !swept.is_empty(),
            })
        })
        .collect()
}

//! `report.html`: one self-contained page (inline SVG and CSS, no script, no
//! network) with the headline verdict, balance flags, every outcome with its
//! interval, sweep comparisons and the provenance of the run; and the card
//! skew's page. The findings come from [`crate::report::findings`] and
//! [`crate::report::findings::deck`]; this module only lays them out for the
//! templates `templates/report/run.html` and `skew.html`.

use std::path::Path;

use anyhow::Result;
use askama::Template;

use crate::report::findings::deck::SkewReport;
use crate::report::findings::deck::{DeckVerdict, deck_verdict, skew_flags};
use crate::report::findings::{
    Flag, HeroFrontier, SweepAdvice, advice, comparison, find, flags, frontiers, pct,
    same_in_every_battle, share, shown_share, stand_ins_of, upper_first, verdict,
};
use crate::report::kit::page::{Provenance, svg_string, write_report};
use crate::report::writers::charts::Picture;
use crate::report::{Export, RunReport};
use crate::stats::compare::{Tests, format_p};
use crate::stats::format::{percent_interval, thousands};
use crate::stats::recommend::Recommendation;
use crate::stats::{Metric, MetricRole};
use crate::systems::war_cards::skew::GroupSkew;

/// Writes `report.html` for a run or sweep.
pub struct HtmlReport;

/// Writes `report.html` for a card-skew analysis.
pub struct SkewHtml;

/// The page of a run or sweep (`templates/report/run.html`).
#[derive(Template)]
#[template(path = "report/run.html")]
struct RunPage<'a> {
    title: &'a str,
    /// System, battles, variants and seed, in one line.
    subtitle: String,
    /// The verdict's sentences, without their full stops.
    verdict: Vec<String>,
    /// A sweep over no PC's setting: say how to get a recommendation.
    no_recommendation: bool,
    stop_reason: Option<&'a str>,
    flags: Vec<Flag>,
    sweep: Option<SweepSection>,
    /// A plain run's outcomes, by subject.
    outcomes: Vec<SubjectOutcomes>,
    /// Table usage, when counted.
    usage: Option<UsageSection>,
    /// What the verdict's † leads to: the stand-in values the battle rests on.
    stand_ins: Option<String>,
    provenance: Provenance,
}

/// Each table's usage map.
struct UsageSection {
    /// Battles counted.
    battles: String,
    /// (table, its map as SVG).
    maps: Vec<(String, String)>,
}

/// A sweep's comparison of variants.
struct SweepSection {
    frontier_chart: Option<String>,
    frontiers: Vec<FrontierTable>,
    /// The recommendation and its reason.
    advice: Option<String>,
    stacked: Vec<StackedOutcome>,
    /// The outcomes every variant left the same in every battle, in words:
    /// named, not charted.
    unchanged: Vec<String>,
    significance: Vec<Significance>,
}

/// One PC's frontier as a table.
struct FrontierTable {
    /// The PC in words, its heading.
    heading: String,
    out_label: String,
    rows: Vec<FrontierRow>,
}

struct FrontierRow {
    variant: String,
    /// `recommended` or `tied`.
    mark: Option<&'static str>,
    probability: String,
    interval: String,
    reputation: String,
    reputation_interval: String,
}

/// One categorical outcome across the variants.
struct StackedOutcome {
    /// Its subject and metric in words, its heading (`Megalos — victory`).
    heading: String,
    chart: String,
    labels: Vec<String>,
    /// Each variant with its shares.
    rows: Vec<(String, Vec<String>)>,
}

/// One variant tested against the baseline.
struct Significance {
    variant: String,
    baseline: String,
    significant: usize,
    /// Significant, but smaller than the `--min-effect` asked.
    too_small: usize,
    tests: usize,
    /// Outcomes only one of the two reports.
    untested: String,
    rows: Vec<DifferenceRow>,
}

struct DifferenceRow {
    outcome: String,
    baseline: String,
    variant: String,
    difference: String,
    interval: String,
    p_value: String,
}

/// A subject's outcomes in a plain run.
struct SubjectOutcomes {
    subject: String,
    /// The subject in words, its heading (`Titus`, `The party`).
    heading: String,
    metrics: Vec<OutcomeTable>,
}

/// One metric: its chart and every value with its interval.
struct OutcomeTable {
    chart: String,
    /// The chart's file beside the report, named where the report is
    /// printed without its charts.
    file: String,
    /// The chart's title, and what it leaves off the axis.
    caption: String,
    /// The chart in words (its alt text).
    description: String,
    /// Long tables are folded under their chart.
    folded: bool,
    rows: Vec<ValueRow>,
    /// Mean, spread and quantiles of a numeric metric.
    summary: Option<String>,
}

struct ValueRow {
    label: String,
    /// The count, as every count a person reads: `934,390`.
    count: String,
    probability: String,
    interval: String,
}

/// Variants a report's verdict compares in sentences (more: a sweep,
/// whose table and charts compare them).
const COMPARED_IN_WORDS: usize = 3;

/// Tables longer than this are folded under their chart.
const FOLD_ROWS: usize = 12;

fn outcome_table(
    info: &crate::report::RunInfo,
    m: &Metric<u64>,
    stand_ins: &[String],
    file: String,
) -> Result<OutcomeTable> {
    let system = info.system.as_str();
    let rows: Vec<ValueRow> = m
        .reported_bins(|w| w == 0)
        .map(|bin| {
            let [p, lo, hi] = shown_share(m, bin);
            ValueRow {
                label: crate::stats::format::minus(&crate::report::kit::words::value(
                    system, m, bin,
                )),
                count: thousands(m.weights[bin]),
                probability: p,
                interval: format!("{lo}\u{2013}{hi}"),
            }
        })
        .collect();
    let picture = Picture::of(system, m, (&info.name, &info.source_line()), stand_ins);
    Ok(OutcomeTable {
        chart: svg_string(picture.size(), &picture.caption(), |root| {
            picture.draw(root)
        })?,
        file,
        caption: {
            [
                Some(picture.title.as_str()),
                picture.tail.as_deref(),
                picture.note,
            ]
            .into_iter()
            .flatten()
            .map(|part| format!("{part}."))
            .collect::<Vec<_>>()
            .join(" ")
        },
        description: picture.description.clone(),
        folded: rows.len() > FOLD_ROWS,
        rows,
        summary: m.summary().map(|s| {
            format!(
                "{}, standard deviation {}, 5th percentile {}, median {}, 95th percentile {}",
                crate::stats::format::estimate(s.mean, (s.ci_low, s.ci_high)),
                crate::stats::format::as_known(s.std_dev, (s.ci_low, s.ci_high)),
                crate::stats::format::minus(&s.p05.to_string()),
                crate::stats::format::minus(&s.p50.to_string()),
                crate::stats::format::minus(&s.p95.to_string())
            )
        }),
    })
}

/// Each variant tested against the baseline.
fn significance(report: &RunReport) -> Vec<Significance> {
    let Some(base) = report.baseline() else {
        return Vec::new();
    };
    report
        .compared()
        .map(|v| {
            let tests = Tests::new(&base.metrics, &v.metrics, (&v.shared, &v.paired_means));
            let (significant, too_small) = crate::report::findings::beyond_min_effect(
                tests.significant(),
                report.info.min_effect,
            );
            let rows = significant
                .iter()
                .map(|d| {
                    let (scale, suffix) = d.scale();
                    let share = suffix == "%";
                    // A chi-square test has no estimate: a dash, not NaN.
                    let dash_if_nan = |x: f64, text: String| {
                        if x.is_nan() {
                            "\u{2013}".to_owned()
                        } else {
                            text
                        }
                    };
                    let shown = |x: f64| {
                        dash_if_nan(
                            x,
                            if share {
                                crate::stats::format::percent(x)
                            } else {
                                crate::stats::format::signed(x, 3, false)
                            },
                        )
                    };
                    let (diff, lo, hi) = d.difference;
                    let [diff_text, lo_text, hi_text] = crate::stats::format::with_interval(
                        scale * diff,
                        (scale * lo, scale * hi),
                        true,
                    );
                    let unit = if share { " pt" } else { "" };
                    DifferenceRow {
                        outcome: d.outcome(),
                        baseline: shown(d.baseline),
                        variant: shown(d.estimate),
                        difference: dash_if_nan(diff, format!("{diff_text}{unit}")),
                        interval: dash_if_nan(diff, format!("{lo_text} to {hi_text}")),
                        p_value: format_p(d.p_value),
                    }
                })
                .collect();
            Significance {
                variant: crate::stats::format::minus(&v.variant),
                baseline: crate::stats::format::minus(&base.variant),
                significant: significant.len(),
                too_small,
                tests: tests.counted(),
                untested: crate::report::kit::words::targets(&report.info.system, &tests.untested),
                rows,
            }
        })
        .collect()
}

fn frontier_table(f: &HeroFrontier, advice: Option<&SweepAdvice>) -> FrontierTable {
    let rows = f
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| FrontierRow {
            variant: crate::stats::format::minus(&p.variant),
            mark: match advice {
                Some(a) if f.advised && a.recommends(i) => Some(match a.recommendation {
                    Recommendation::Tied(_) => "tied",
                    _ => "recommended",
                }),
                _ => None,
            },
            probability: percent_interval(p.p_out, p.p_out_ci.0, p.p_out_ci.1)[0].clone(),
            interval: {
                let [_, lo, hi] = percent_interval(p.p_out, p.p_out_ci.0, p.p_out_ci.1);
                format!("{lo}\u{2013}{hi}")
            },
            reputation: crate::stats::format::with_interval(p.reputation, p.reputation_ci, false)
                [0]
            .clone(),
            reputation_interval: {
                let [_, lo, hi] =
                    crate::stats::format::with_interval(p.reputation, p.reputation_ci, false);
                crate::stats::format::range(&lo, &hi, p.reputation_ci.0 < 0.0)
            },
        })
        .collect();
    FrontierTable {
        heading: f.pc.clone(),
        out_label: f.out_label.clone(),
        rows,
    }
}

/// Each categorical outcome that says who won or how a PC fared, across
/// the variants: those some variant moves charted, and the headings of
/// those every variant left the same in every battle.
fn stacked_outcomes(report: &RunReport) -> Result<(Vec<StackedOutcome>, Vec<String>)> {
    let Some(first) = report.variants.first() else {
        return Ok((Vec::new(), Vec::new()));
    };
    let wanted = |m: &&Metric<u64>| {
        !m.is_numeric()
            && matches!(
                m.role,
                MetricRole::Winner { .. }
                    | MetricRole::Outcome
                    | MetricRole::Ground { .. }
                    | MetricRole::Victory { .. }
                    | MetricRole::Survival { .. }
                    | MetricRole::Fate { .. }
                    | MetricRole::Target
            )
    };
    let heading = |m: &Metric<u64>| {
        crate::report::kit::words::title(&report.info.system, &m.subject, &m.name)
    };
    let (moved, unchanged): (Vec<&Metric<u64>>, Vec<&Metric<u64>>) = (first.metrics.iter())
        .filter(wanted)
        .partition(|m| !same_in_every_battle(report, &m.subject, &m.name));
    let charted = moved
        .into_iter()
        .map(|m| {
            let rows = report
                .variants
                .iter()
                .filter_map(|v| {
                    let vm = find(&v.metrics, &m.subject, &m.name)?;
                    let shares = (0..vm.weights.len())
                        .map(|bin| pct(share(vm, bin).0))
                        .collect();
                    Some((crate::stats::format::minus(&v.variant), shares))
                })
                .collect();
            Ok(StackedOutcome {
                heading: heading(m),
                chart: svg_string(
                    crate::report::writers::sweep::STACKED_SIZE,
                    &crate::report::writers::sweep::stacked_caption(report, &m.subject, &m.name),
                    |root| {
                        crate::report::writers::sweep::stacked(root, report, &m.subject, &m.name)
                    },
                )?,
                labels: (0..m.weights.len()).map(|bin| m.label(bin)).collect(),
                rows,
            })
        })
        .collect::<Result<Vec<StackedOutcome>>>()?;
    // Named inside a sentence: "the battle", not "The battle".
    let in_sentence = |m: &Metric<u64>| {
        let h = heading(m);
        h.strip_prefix("The ")
            .map_or_else(|| h.clone(), |rest| format!("the {rest}"))
    };
    Ok((charted, unchanged.into_iter().map(in_sentence).collect()))
}

fn sweep_section(
    report: &RunReport,
    all: &[HeroFrontier],
    advice: Option<&SweepAdvice>,
) -> Result<SweepSection> {
    let frontier_chart = if all.is_empty() {
        None
    } else {
        Some(svg_string(
            crate::report::writers::sweep::frontier_size(all),
            &crate::report::writers::sweep::frontier_caption(report, all),
            |root| crate::report::writers::sweep::frontier_panels(root, report, all, advice),
        )?)
    };
    let (stacked, unchanged) = stacked_outcomes(report)?;
    Ok(SweepSection {
        frontier_chart,
        frontiers: all.iter().map(|f| frontier_table(f, advice)).collect(),
        advice: advice
            .filter(|_| !all.is_empty())
            .map(|a| upper_first(&a.explain())),
        stacked,
        unchanged,
        significance: significance(report),
    })
}

/// A plain run's outcomes, grouped by subject in metric order.
fn outcomes(report: &RunReport) -> Result<Vec<SubjectOutcomes>> {
    let mut groups: Vec<SubjectOutcomes> = Vec::new();
    let Some(v) = report.variants.first() else {
        return Ok(groups);
    };
    for (m, stem) in v
        .metrics
        .iter()
        .zip(crate::report::writers::charts::stems(&v.metrics))
    {
        let file = format!("{stem}.svg");
        let stand_ins = report.info.stand_in_tables(&v.variant, &m.subject, &m.name);
        let table = outcome_table(&report.info, m, &stand_ins, file)?;
        match groups.last_mut() {
            Some(g) if g.subject == m.subject => g.metrics.push(table),
            _ => groups.push(SubjectOutcomes {
                subject: m.subject.clone(),
                heading: crate::report::kit::words::subject(&report.info.system, &m.subject),
                metrics: vec![table],
            }),
        }
    }
    Ok(groups)
}

impl Export<RunReport> for HtmlReport {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        let info = &report.info;
        let trials = info.trials.unwrap_or(0);
        let is_sweep = report.variants.len() > 1;
        let per_variant = if is_sweep {
            format!(" per variant × {} variants", report.variants.len())
        } else {
            String::new()
        };
        let mut page = RunPage {
            title: &info.name,
            subtitle: format!(
                "{} · {} battles{per_variant} · seed {}",
                info.system,
                thousands(trials),
                info.seed.unwrap_or(0)
            ),
            verdict: Vec::new(),
            no_recommendation: false,
            stop_reason: info.stop_reason.as_deref(),
            flags: flags(report),
            sweep: None,
            outcomes: Vec::new(),
            usage: None,
            stand_ins: stand_ins_of(info),
            provenance: Provenance::of(info),
        };
        if let Some(usage) = &report.usage {
            let maps = usage
                .tables
                .iter()
                .filter(|t| !t.columns.is_empty())
                .map(|t| {
                    let svg = svg_string(
                        crate::report::writers::usage::map_size(info, t),
                        &crate::report::writers::usage::map_caption(usage, t),
                        |a| crate::report::writers::usage::heat_map(&a, info, usage, t),
                    )?;
                    Ok((t.table.clone(), svg))
                })
                .collect::<Result<Vec<_>>>()?;
            page.usage = Some(UsageSection {
                battles: thousands(usage.battles),
                maps,
            });
        }
        if is_sweep {
            let all = frontiers(report);
            let advice = advice(report, &all);
            match &advice {
                Some(a) => {
                    page.verdict
                        .push(format!("For {}: {}", a.pcs.join(" and "), a.explain()))
                }
                // A comparison of files makes no recommendation, and says nothing of one.
                None => page.no_recommendation = !all.is_empty() && info.max_risk_of_down.is_some(),
            }
            // A comparison of a few variants says what changed in its
            // headline outcomes; a long sweep names its variants.
            page.verdict.extend(info.held_by_readings.iter().cloned());
            page.verdict
                .extend(crate::report::findings::baseline_sentence(report));
            if report.variants.len() <= COMPARED_IN_WORDS {
                page.verdict.extend(comparison(report));
            } else {
                page.verdict.push(format!(
                    "{} variants compared: {}",
                    report.variants.len(),
                    crate::stats::recommend::named_few(
                        &info
                            .variants
                            .iter()
                            .map(|v| crate::stats::format::minus(v))
                            .collect::<Vec<_>>()
                    )
                ));
            }
            page.sweep = Some(sweep_section(report, &all, advice.as_ref())?);
        } else {
            if let Some(v) = report.variants.first() {
                page.verdict = verdict(&v.metrics, trials, info);
            }
            page.outcomes = outcomes(report)?;
        }
        write_report(&page, dir)
    }
}

/// The card skew's page (`templates/report/skew.html`).
#[derive(Template)]
#[template(path = "report/skew.html")]
struct SkewPage {
    title: &'static str,
    verdict: DeckVerdict,
    flags: Vec<Flag>,
    heatmaps: String,
    cards: Vec<SkewRow>,
    rows: Vec<SkewRow>,
    provenance: Provenance,
}

/// A card or a row of the deck with its shares.
struct SkewRow {
    key: String,
    /// A card's impact in points (rows have none).
    impact: Option<String>,
    /// Hurt, decisive and retreat shares, the count of each result, and
    /// the chi-square p of the group against the deck.
    cells: Vec<String>,
}

impl SkewRow {
    fn of(g: &GroupSkew) -> Self {
        let mut cells = vec![pct(g.p_hurt()), pct(g.p_decisive()), pct(g.p_retreat())];
        cells.extend(g.counts.iter().map(u64::to_string));
        cells.push(
            g.chi_square
                .map_or(String::new(), |c| format!("{:.3}", c.p_value)),
        );
        SkewRow {
            key: g.key.clone(),
            impact: g
                .impact
                .map(|i| crate::stats::format::signed(100.0 * i, 2, true)),
            cells,
        }
    }
}

impl Export<SkewReport> for SkewHtml {
    fn write(&self, report: &SkewReport, dir: &Path) -> Result<Vec<String>> {
        let a = &report.analysis;
        let page = SkewPage {
            title: "Combat Card skew",
            verdict: deck_verdict(a),
            flags: skew_flags(report),
            heatmaps: crate::report::writers::skew::heatmap_svg(a)?,
            cards: a.cards_by_impact().into_iter().map(SkewRow::of).collect(),
            rows: a.scope("row").map(SkewRow::of).collect(),
            provenance: Provenance::of(&report.info),
        };
        write_report(&page, dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::findings::headline;

    /// The verdict reads what a metric means from its declared role, not
    /// its names: relabelled bins and renamed metrics keep their lines.
    #[test]
    fn the_verdict_follows_roles_not_labels() {
        let metrics = vec![
            Metric::categorical(
                "army:North",
                "outcome",
                &["yes", "no", "even"],
                &[60, 30, 10],
            )
            .with_role(MetricRole::Victory {
                side: "North".into(),
            }),
            Metric::categorical("pc:Ann", "end", &["ok", "ko", "gone"], &[90, 6, 4]).with_role(
                MetricRole::Fate {
                    pc: "Ann".into(),
                    out: vec![1, 2],
                    dead: Some(2),
                },
            ),
        ];
        let lines = headline("gurps", &metrics, 100);
        assert!(lines[0].starts_with("North won 60.00%"), "{lines:?}");
        assert!(
            lines[1].starts_with("Ann ends ko or gone in 10.00%"),
            "{lines:?}"
        );
        // Without roles, nothing is claimed.
        let plain: Vec<Metric<u64>> = metrics
            .into_iter()
            .map(|m| m.with_role(MetricRole::Detail))
            .collect();
        assert!(headline("gurps", &plain, 100).is_empty());
    }

    /// A share the verdict writes without its interval is spelled as its
    /// table row spells it, and as the share alone reads: one text for one
    /// count (here 1 battle lost in 20,000, `0.0050%`, two significant
    /// digits, though its interval's low end needs more).
    #[test]
    fn the_verdict_spells_a_share_as_its_row_does() {
        let victory = Metric::categorical(
            "side:North",
            "victory",
            &["won", "lost", "draw"],
            &[15_000, 1, 4_999],
        )
        .with_role(MetricRole::Victory {
            side: "North".into(),
        });
        let [row, ..] = crate::report::findings::shown_share(&victory, 1);
        assert_eq!(row, "0.0050%");
        assert_eq!(crate::stats::format::percent(1.0 / 20_000.0), row);
        let lines = headline("gurps", std::slice::from_ref(&victory), 20_000);
        assert!(lines[0].contains("; lost 0.0050%;"), "{lines:?}");
    }
}

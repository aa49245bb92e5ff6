//! Outputs of `warcrunch solve`: `solve.csv`, `run.json` with the
//! `solution`, the curve chart and `report.html` leading with the answer.

use std::path::Path;

use anyhow::Result;
use askama::Template;
use plotters::coord::Shift;
use plotters::prelude::*;
use polars::prelude::Column;

use crate::questions::solve::{Domain, Goal, Probe, Solution, read_as, shown};
use crate::questions::target::Quantity;
use crate::report::exporters::csv::{TableMeta, numbers, text, write_table};
use crate::report::exporters::json::write_info_with;
use crate::report::kit::draw::{
    Caption, FONT, LABEL_SIZE, PALETTE, draw_publication, footnoted, footnotes, plot_err,
};
use crate::report::kit::page::{Provenance, svg_string, write_report};
use crate::report::{Export, Formats, RunInfo};
use crate::stats::format::thousands;

/// A finished search.
#[derive(Debug, Clone)]
pub struct SolveReport {
    /// Provenance.
    pub info: RunInfo,
    /// What was measured, in words: `P(side:A/victory=won)`, `the mean of
    /// hero:A/reputation`.
    pub target: String,
    /// The stand-in tables the target rests on in the battle as written.
    pub stand_ins: Vec<String>,
    /// Whether a probability or a mean was measured.
    pub quantity: Quantity,
    /// What was asked of it.
    pub goal: Goal,
    /// The varied setting's path.
    pub setting: String,
    /// Its range.
    pub domain: Domain,
    /// Every probe, in the order made.
    pub probes: Vec<Probe>,
    /// The answer.
    pub solution: Solution,
    /// Tabular output formats.
    pub formats: Formats,
}

/// Every exporter of a search.
pub fn solve_exporters() -> Vec<Box<dyn Export<SolveReport>>> {
    vec![
        Box::new(SolveCsv),
        Box::new(SolveJson),
        Box::new(Curve),
        Box::new(SolveHtml),
    ]
}

/// `solve.csv`: every probe.
pub struct SolveCsv;
/// `run.json`: provenance and the `solution`.
pub struct SolveJson;
/// `solve.{svg,png}`: the probability (or mean) against the setting.
pub struct Curve;
/// `report.html`.
pub struct SolveHtml;

impl Export<SolveReport> for SolveCsv {
    fn write(&self, report: &SolveReport, dir: &Path) -> Result<Vec<String>> {
        let p = &report.probes;
        write_table(
            dir,
            "solve",
            (&report.formats, &TableMeta::of(&report.info)),
            vec![
                Column::new("probe".into(), (1..=p.len() as u64).collect::<Vec<u64>>()),
                text(
                    "value",
                    p.iter()
                        .map(|x| shown(report.domain, x.point.value))
                        .collect(),
                ),
                Column::new(
                    "trials".into(),
                    p.iter().map(|x| x.trials).collect::<Vec<Option<u64>>>(),
                ),
                numbers(report.quantity.name(), p, |x| x.point.estimate),
                numbers("ci_low", p, |x| x.point.ci_low),
                numbers("ci_high", p, |x| x.point.ci_high),
                text(
                    "decision",
                    p.iter().map(|x| x.decision.name().to_owned()).collect(),
                ),
            ],
        )
    }
}

/// The goal in words, its value as asked: `at least 5%`, `equal to 4`.
fn goal_words(goal: Goal, q: Quantity) -> String {
    match goal {
        Goal::AtLeast(p) => format!("at least {}", q.asked(p)),
        Goal::AtMost(p) => format!("at most {}", q.asked(p)),
        Goal::Equals(p) => format!("equal to {}", q.asked(p)),
    }
}

impl Export<SolveReport> for SolveJson {
    fn write(&self, report: &SolveReport, dir: &Path) -> Result<Vec<String>> {
        let fields = [
            ("target", report.target.clone().into()),
            ("goal", goal_words(report.goal, report.quantity).into()),
            ("setting", report.setting.clone().into()),
            ("probes", report.probes.len().into()),
            ("solution", serde_json::to_value(&report.solution)?),
        ];
        write_info_with(&report.info, dir, fields)
    }
}

fn curve_title(report: &SolveReport) -> String {
    format!(
        "{} against {}{}",
        crate::report::findings::upper_first(&report.target),
        crate::report::kit::words::setting(&report.setting),
        crate::report::kit::words::mark_if(&report.stand_ins)
    )
}

impl SolveReport {
    /// The line its † leads to, if the target rests on stand-in values.
    pub fn rests_on(&self) -> Option<String> {
        let tables = &self.stand_ins;
        (!tables.is_empty()).then(|| crate::report::kit::words::rests_on_line(tables))
    }
}

/// The search's chart in words: the goal, each probe in value order, the answer.
fn curve_caption(report: &SolveReport) -> Caption {
    let mut probes: Vec<&Probe> = report.probes.iter().collect();
    probes.sort_by(|a, b| a.point.value.total_cmp(&b.point.value));
    let points: Vec<String> = probes
        .iter()
        .map(|p| {
            let [value, lo, hi] =
                report
                    .quantity
                    .interval(p.point.estimate, p.point.ci_low, p.point.ci_high);
            let interval = if p.trials.is_some() {
                format!(
                    " ({})",
                    crate::stats::format::range(&lo, &hi, p.point.ci_low < 0.0)
                )
            } else {
                " (exact)".to_owned()
            };
            format!(
                "at {} {value}{interval}",
                read_as(report.domain, p.point.value)
            )
        })
        .collect();
    Caption {
        title: curve_title(report),
        description: format!(
            "Each probe of the search with its 95% interval, against the goal {}: {}. {}.{}",
            goal_words(report.goal, report.quantity),
            points.join("; "),
            report.solution.sentence,
            if report.stand_ins.is_empty() {
                String::new()
            } else {
                let words = crate::report::kit::words::rests_on_words(&report.stand_ins);
                format!(" The target {words}.")
            }
        ),
    }
}

fn curve<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, report: &SolveReport) -> Result<()> {
    area.fill(&WHITE).map_err(plot_err)?;
    let area = &footnoted(area.clone(), &footnotes(&report.info, &report.stand_ins))?;
    let mut probes: Vec<&Probe> = report.probes.iter().collect();
    probes.sort_by(|a, b| a.point.value.total_cmp(&b.point.value));
    let (lo, hi) = match report.domain {
        Domain::Integers { lo, hi } => (lo as f64, hi as f64),
        Domain::Reals { lo, hi, .. } => (lo, hi),
    };
    let pad = (hi - lo) * 0.03;
    let scale = report.quantity.scale();
    let threshold = scale * report.goal.threshold();
    let top = probes
        .iter()
        .map(|p| scale * p.point.ci_high)
        .fold(threshold, f64::max);
    let bottom = probes
        .iter()
        .map(|p| scale * p.point.ci_low)
        .fold(threshold, f64::min);
    let margin = ((top - bottom) * 0.08).max(0.5 / (100.0 / scale));
    // A probability's axis stays within 0–100%.
    let (floor, ceiling) = match report.quantity {
        Quantity::Probability => (0.0, 100.0),
        Quantity::Mean => (f64::NEG_INFINITY, f64::INFINITY),
    };
    let (title, px) = crate::report::kit::draw::fitted(area, &curve_title(report), 18, 14);
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, px))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (lo - pad)..(hi + pad),
            (bottom - margin).max(floor)..(top + margin).min(ceiling),
        )
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_label_formatter(&crate::report::kit::draw::tick)
        .y_label_formatter(&crate::report::kit::draw::tick)
        .x_desc(crate::report::kit::words::setting(&report.setting))
        .y_desc(match report.quantity {
            Quantity::Probability => "probability (%)",
            Quantity::Mean => "mean",
        })
        .label_style((FONT, LABEL_SIZE))
        .draw()
        .map_err(plot_err)?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(lo - pad, threshold), (hi + pad, threshold)],
            PALETTE[5].stroke_width(2),
        )))
        .map_err(plot_err)?
        .label(format!(
            "target: {}",
            goal_words(report.goal, report.quantity)
        ))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], PALETTE[5].stroke_width(2)));
    chart
        .draw_series(LineSeries::new(
            probes
                .iter()
                .map(|p| (p.point.value, scale * p.point.estimate)),
            PALETTE[0].stroke_width(1),
        ))
        .map_err(plot_err)?;
    chart
        .draw_series(probes.iter().map(|p| {
            PathElement::new(
                vec![
                    (p.point.value, scale * p.point.ci_low),
                    (p.point.value, scale * p.point.ci_high),
                ],
                BLACK.stroke_width(1),
            )
        }))
        .map_err(plot_err)?;
    chart
        .draw_series(probes.iter().map(|p| {
            Circle::new(
                (p.point.value, scale * p.point.estimate),
                4,
                PALETTE[0].filled(),
            )
        }))
        .map_err(plot_err)?
        .label("probe, 95% interval")
        .legend(|(x, y)| Circle::new((x + 7, y), 4, PALETTE[0].filled()));
    let answer = &report.solution.point;
    chart
        .draw_series(std::iter::once(Circle::new(
            (answer.value, scale * answer.estimate),
            8,
            PALETTE[2].stroke_width(3),
        )))
        .map_err(plot_err)?
        .label(format!("answer: {}", read_as(report.domain, answer.value)))
        .legend(|(x, y)| Circle::new((x + 7, y), 5, PALETTE[2].stroke_width(3)));
    // The legend goes in the upper corner the curve leaves empty.
    let rising =
        probes.last().map(|p| p.point.estimate) >= probes.first().map(|p| p.point.estimate);
    chart
        .configure_series_labels()
        .position(if rising {
            SeriesLabelPosition::UpperLeft
        } else {
            SeriesLabelPosition::UpperRight
        })
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, LABEL_SIZE))
        .draw()
        .map_err(plot_err)?;
    Ok(())
}

/// The chart's size (with two lines of footnotes).
const SIZE: (u32, u32) = (900, 560);

impl Export<SolveReport> for Curve {
    fn write(&self, report: &SolveReport, dir: &Path) -> Result<Vec<String>> {
        draw_publication(
            dir,
            "solve",
            SIZE,
            &curve_caption(report),
            |a| curve(&a, report),
            |a| curve(&a, report),
        )
    }
}

/// The page of a search (`templates/report/solve.html`).
#[derive(Template)]
#[template(path = "report/solve.html")]
struct SolvePage<'a> {
    title: &'a str,
    /// The answer in words, without its full stop, † where it rests on
    /// stand-in values.
    sentence: String,
    /// The line the † leads to.
    rests_on: Option<String>,
    warning: Option<&'a str>,
    setting: &'a str,
    target: &'a str,
    goal: String,
    /// The probes' column header: `probability`, `mean`.
    estimate: &'static str,
    /// How many battles the probes fought, or that they were exact.
    battles: String,
    chart: String,
    probes: Vec<ProbeRow>,
    provenance: Provenance,
}

struct ProbeRow {
    value: String,
    battles: String,
    estimate: String,
    interval: String,
    decision: &'static str,
}

impl Export<SolveReport> for SolveHtml {
    fn write(&self, report: &SolveReport, dir: &Path) -> Result<Vec<String>> {
        let battles: u64 = report.probes.iter().filter_map(|p| p.trials).sum();
        let page = SolvePage {
            title: &report.info.name,
            sentence: format!(
                "{}{}",
                report.solution.sentence,
                crate::report::kit::words::mark_if(&report.stand_ins)
            ),
            rests_on: report.rests_on(),
            warning: report.solution.warning.as_deref(),
            setting: &report.setting,
            target: &report.target,
            goal: goal_words(report.goal, report.quantity),
            estimate: report.quantity.name(),
            battles: if battles > 0 {
                format!(
                    ", {} battles in all, every probe on the same battle streams",
                    thousands(battles)
                )
            } else {
                ", every one exact".to_owned()
            },
            chart: svg_string(SIZE, &curve_caption(report), |a| curve(&a, report))?,
            probes: report
                .probes
                .iter()
                .map(|p| ProbeRow {
                    value: read_as(report.domain, p.point.value),
                    battles: p.trials.map_or("exact".to_owned(), thousands),
                    estimate: report.quantity.value(p.point.estimate),
                    interval: {
                        let [_, lo, hi] = report.quantity.interval(
                            p.point.estimate,
                            p.point.ci_low,
                            p.point.ci_high,
                        );
                        format!("{lo}–{hi}")
                    },
                    decision: p.decision.name(),
                })
                .collect(),
            provenance: Provenance::of(&report.info),
        };
        write_report(&page, dir)
    }
}

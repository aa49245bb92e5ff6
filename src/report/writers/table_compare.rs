//! A table against another across battles: the key outcomes of every
//! scenario with each table, their paired differences, as `tables.csv`,
//! `tables.md`, `run.json`, a chart and `report.html`. Each scenario's
//! whole comparison sits in a folder of its own beside them.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use askama::Template;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use polars::prelude::Column;

use crate::report::exporters::csv::{
    TableMeta, numbers, stand_in_pair, subject_columns, text, write_table,
};
use crate::report::exporters::json::write_info_with;
pub use crate::report::exporters::key_outcomes::{KeyOutcome, key_outcomes};
use crate::report::kit::draw::{
    Caption, FONT, LABEL_SIZE, PALETTE, draw_publication, footnoted, footnotes, footnotes_height,
    plot_err,
};
use crate::report::kit::page::{Provenance, svg_string, write_report};
use crate::report::{Formats, RunInfo};
use crate::stats::compare::{format_p, reported_p};
use crate::stats::format::thousands;

/// Every scenario's key outcomes with table A and table B.
#[derive(Debug, Clone)]
pub struct TableComparison {
    /// Provenance: the command, the tables, every scenario's files.
    pub info: RunInfo,
    /// The table compared.
    pub table: String,
    /// The two tables' names: the baseline first.
    pub labels: [String; 2],
    /// The scenarios that read the table.
    pub scenarios: Vec<ScenarioOutcomes>,
    /// The scenarios that do not read it, each with the tables it reads.
    pub not_read: Vec<(String, String)>,
    /// The cells the two tables differ in.
    pub cells: Vec<crate::tables::diff::CellDiff>,
    /// Tabular output formats.
    pub formats: Formats,
}

/// One scenario's key outcomes with both tables.
#[derive(Debug, Clone)]
pub struct ScenarioOutcomes {
    /// Its name in the summary.
    pub scenario: String,
    /// Its file.
    pub path: String,
    /// The folder holding its whole comparison.
    pub folder: String,
    /// The command that asks its comparison alone.
    pub command: String,
    /// Battles with each table.
    pub trials: u64,
    /// Seed of the streams.
    pub seed: u64,
    /// Its key outcomes.
    pub rows: Vec<KeyOutcome>,
    /// Each changed cell's effect alone on each significant difference.
    pub shares: Vec<CellShare>,
}

/// One changed cell set alone in the baseline table, and its effect on one
/// outcome the tables differ in, fought on the comparison's battles.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CellShare {
    /// The outcome in words: `Montaigne won`.
    pub outcome: String,
    /// Its subject, metric and value, as `tables.csv` names them.
    pub subject: String,
    /// Its metric.
    pub metric: String,
    /// Its value (`mean` for a mean).
    pub value: String,
    /// A probability (else a mean).
    pub is_probability: bool,
    /// The cell's path in the table.
    pub cell: String,
    /// Its value in the baseline table.
    pub first: String,
    /// Its value in the other.
    pub second: String,
    /// The cell alone minus the baseline, with its 95% interval.
    pub effect: (f64, f64, f64),
    /// Its effect over the whole difference (`None` where that is 0); the
    /// shares of several cells need not add to 1 (cells act together).
    pub share: Option<f64>,
}

impl CellShare {
    /// `rows.D.column ("D" -> "B") alone: -8.51 pt (-8.90 to -8.12), 98% of the difference`.
    fn line(&self) -> String {
        let (scale, unit) = if self.is_probability {
            (100.0, " pt")
        } else {
            (1.0, "")
        };
        let (d, lo, hi) = self.effect;
        // Rounded first, so a share too small to show reads 0%, not -0%.
        let share = self.share.map_or_else(String::new, |x| {
            format!(", {}% of the difference", (100.0 * x).round() + 0.0)
        });
        format!(
            "{} ({} \u{2192} {}) alone: {}{share}",
            self.cell,
            self.first,
            self.second,
            crate::stats::format::change(scale * d, (scale * lo, scale * hi), unit)
        )
    }
}

impl ScenarioOutcomes {
    /// `ambush: 30,000 battles with each table, seed 5`.
    fn battles(&self) -> String {
        format!(
            "{}: {} battles with each table, seed {}",
            self.scenario,
            thousands(self.trials),
            self.seed
        )
    }
}

/// Writes every file of the summary into `dir`; the names written.
pub fn write(c: &TableComparison, dir: &Path) -> Result<Vec<String>> {
    let mut files = summary_table(c, dir)?;
    if c.scenarios.iter().any(|s| !s.shares.is_empty()) {
        files.extend(shares_table(c, dir)?);
    }
    std::fs::write(dir.join("tables.md"), markdown(c)).context("cannot write tables.md")?;
    files.push("tables.md".into());
    let scenarios: Vec<serde_json::Value> = c
        .scenarios
        .iter()
        .map(|s| {
            serde_json::json!({
                "scenario": s.scenario,
                "path": s.path,
                "folder": s.folder,
                "command": s.command,
                "trials": s.trials,
                "seed": s.seed,
                "cell_shares": s.shares,
            })
        })
        .collect();
    let not_read: Vec<serde_json::Value> = c
        .not_read
        .iter()
        .map(|(s, reads)| serde_json::json!({ "scenario": s, "reads": reads }))
        .collect();
    files.extend(write_info_with(
        &c.info,
        dir,
        [
            ("table", c.table.clone().into()),
            ("compared", serde_json::json!(c.labels)),
            ("scenario_comparisons", scenarios.into()),
            ("not_read_by", not_read.into()),
            ("cells_changed", serde_json::to_value(&c.cells)?),
        ],
    )?);
    if charted(c).next().is_some() {
        files.extend(draw_publication(
            dir,
            "tables",
            chart_size(c),
            &forest_caption(c),
            |a| forest(&a, c),
            |a| forest(&a, c),
        )?);
    }
    files.extend(html(c, dir)?);
    Ok(files)
}

/// The cells the tables differ in, a line each: `rows.D.column: "D" -> "B"`.
fn cells_changed(c: &TableComparison) -> String {
    let none = "(none)".to_owned();
    let mut text = match c.cells.len() {
        0 => return "The two tables hold the same cells.\n".to_owned(),
        1 => "1 cell differs:\n".to_owned(),
        n => format!("{n} cells differ:\n"),
    };
    for cell in &c.cells {
        let _ = writeln!(
            text,
            "  {}: {} \u{2192} {}",
            cell.cell,
            cell.first.as_ref().unwrap_or(&none),
            cell.second.as_ref().unwrap_or(&none)
        );
    }
    text
}

/// `tables.csv` (and the other formats asked): one row per scenario and outcome.
fn summary_table(c: &TableComparison, dir: &Path) -> Result<Vec<String>> {
    let rows: Vec<(&ScenarioOutcomes, &KeyOutcome)> = c
        .scenarios
        .iter()
        .flat_map(|s| s.rows.iter().map(move |r| (s, r)))
        .collect();
    let each = |f: &dyn Fn(&ScenarioOutcomes, &KeyOutcome) -> String| -> Vec<String> {
        rows.iter().map(|(s, r)| f(s, r)).collect()
    };
    let number = |name: &str, f: &dyn Fn(&KeyOutcome) -> f64| -> Column {
        let values: Vec<&KeyOutcome> = rows.iter().map(|(_, r)| *r).collect();
        numbers(name, &values, |r| f(r))
    };
    let subjects: Vec<&str> = rows.iter().map(|(_, r)| r.subject.as_str()).collect();
    let mut columns = vec![text("scenario", each(&|s, _| s.scenario.clone()))];
    columns.extend(subject_columns(&subjects));
    columns.extend([
        text("metric", each(&|_, r| r.metric.clone())),
        // A mean reads no one value: its `value` is empty, as its kind says.
        Column::new(
            "value".into(),
            rows.iter()
                .map(|(_, r)| r.is_probability.then_some(r.value.as_str()))
                .collect::<Vec<Option<&str>>>(),
        ),
        text("outcome", each(&|_, r| r.words.clone())),
        text(
            "kind",
            each(&|_, r| {
                if r.is_probability {
                    "probability"
                } else {
                    "mean"
                }
                .to_owned()
            }),
        ),
        text("baseline_table", each(&|_, _| c.labels[0].clone())),
        text("table", each(&|_, _| c.labels[1].clone())),
        number("baseline_estimate", &|r| r.baseline),
        number("estimate", &|r| r.estimate),
        number("difference", &|r| r.difference.0),
        number("ci_low", &|r| r.difference.1),
        number("ci_high", &|r| r.difference.2),
        number("p_value", &|r| reported_p(r.p_value)),
        Column::new(
            "significant".into(),
            rows.iter()
                // The test's own answer; `verdict` says whether it matters.
                .map(|(_, r)| r.significant || r.too_small)
                .collect::<Vec<bool>>(),
        ),
        text("verdict", each(&|_, r| r.verdict().to_owned())),
    ]);
    // A row rests on the stand-in tables of its scenario under either table.
    let tables: Vec<Vec<String>> = rows
        .iter()
        .map(|(s, r)| {
            let variants = c
                .labels
                .clone()
                .map(|label| format!("{} / {label}", s.scenario));
            let variants = variants.each_ref().map(String::as_str);
            c.info
                .stand_in_tables_of_any(&variants, &r.subject, &r.metric)
        })
        .collect();
    columns.extend(stand_in_pair(&tables));
    write_table(
        dir,
        "tables",
        (&c.formats, &TableMeta::of(&c.info)),
        columns,
    )
}

/// `cell_shares.csv`: one row per scenario, significant outcome and cell.
fn shares_table(c: &TableComparison, dir: &Path) -> Result<Vec<String>> {
    let rows: Vec<(&ScenarioOutcomes, &CellShare)> = (c.scenarios.iter())
        .flat_map(|s| s.shares.iter().map(move |x| (s, x)))
        .collect();
    let each = |f: &dyn Fn(&ScenarioOutcomes, &CellShare) -> String| -> Vec<String> {
        rows.iter().map(|(s, x)| f(s, x)).collect()
    };
    let number = |name: &str, f: &dyn Fn(&CellShare) -> f64| -> Column {
        Column::new(
            name.into(),
            rows.iter().map(|(_, x)| f(x)).collect::<Vec<f64>>(),
        )
    };
    let columns = vec![
        text("scenario", each(&|s, _| s.scenario.clone())),
        text("outcome", each(&|_, x| x.outcome.clone())),
        text("subject", each(&|_, x| x.subject.clone())),
        text("metric", each(&|_, x| x.metric.clone())),
        text("value", each(&|_, x| x.value.clone())),
        text("cell", each(&|_, x| x.cell.clone())),
        text("baseline_value", each(&|_, x| x.first.clone())),
        text("value_alone", each(&|_, x| x.second.clone())),
        number("effect", &|x| x.effect.0),
        number("ci_low", &|x| x.effect.1),
        number("ci_high", &|x| x.effect.2),
        Column::new(
            "share_of_difference".into(),
            rows.iter()
                .map(|(_, x)| x.share)
                .collect::<Vec<Option<f64>>>(),
        ),
    ];
    write_table(
        dir,
        "cell_shares",
        (&c.formats, &TableMeta::of(&c.info)),
        columns,
    )
}

/// The summary printed on the console: every scenario's key outcomes, and
/// under each significant difference each changed cell's effect alone.
pub fn console(c: &TableComparison) -> String {
    let mut out = format!("{}\n", c.info.name);
    out.push_str(&cells_changed(c));
    if c.scenarios.iter().any(|s| !s.shares.is_empty()) {
        out.push_str(
            "Under each clear difference, each changed cell set alone in the baseline table, on the same battles (cells acting together need not add to 100%).\n",
        );
    }
    for s in &c.scenarios {
        let _ = writeln!(out, "{}", s.battles());
        for r in &s.rows {
            let _ = writeln!(
                out,
                "  {:<40} {:>8} -> {:>8}  {:<32} {}",
                r.words,
                r.shown(r.baseline),
                r.shown(r.estimate),
                r.difference_text(),
                r.verdict()
            );
            for x in s
                .shares
                .iter()
                .filter(|x| x.subject == r.subject && x.metric == r.metric && x.value == r.value)
            {
                let _ = writeln!(out, "      {}", x.line());
            }
        }
    }
    for (s, reads) in &c.not_read {
        let _ = writeln!(
            out,
            "{s}: not compared, it does not read `{}` (reads {reads})",
            c.table
        );
    }
    out
}

/// `tables.md`: the summary as a Markdown table, for a design document.
fn markdown(c: &TableComparison) -> String {
    let mut md = format!("# {}\n\n", c.info.name);
    for line in cells_changed(c).lines() {
        // The cells as a Markdown list.
        let _ = writeln!(
            md,
            "{}",
            line.strip_prefix("  ")
                .map_or_else(|| line.to_owned(), |cell| format!("- `{cell}`"))
        );
    }
    md.push('\n');
    let _ = writeln!(
        md,
        "Each scenario's battles fought with both tables on the same battle streams; differences with their 95% interval. \"higher\" and \"lower\" where the scenario's family-wise test (5% over all its tests) finds a difference (no smaller than `--min-effect`, where asked; \"too small\" where it is), \"tied\" where the interval holds zero, \"unclear\" between.\n"
    );
    let _ = writeln!(
        md,
        "| Scenario | Outcome | {} | {} | Difference (95% interval) | |",
        c.labels[0], c.labels[1]
    );
    md.push_str("|---|---|---:|---:|---:|---|\n");
    for s in &c.scenarios {
        for r in &s.rows {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                s.scenario,
                r.words,
                r.shown(r.baseline),
                r.shown(r.estimate),
                r.difference_text(),
                r.verdict()
            );
        }
    }
    for s in &c.scenarios {
        let _ = write!(md, "\n{}.", s.battles());
    }
    md.push('\n');
    if c.scenarios.iter().any(|s| !s.shares.is_empty()) {
        md.push_str(
            "\nEach changed cell set alone in the baseline table, on the same battles: its effect on each clear difference, and its share of it (cells acting together need not add to 100%).\n\n",
        );
        for s in &c.scenarios {
            for x in &s.shares {
                let _ = writeln!(md, "- {}, {}: {}", s.scenario, x.outcome, x.line());
            }
        }
    }
    if !c.not_read.is_empty() {
        md.push_str("\nNot compared (they do not read the table):\n");
        for (s, reads) in &c.not_read {
            let _ = writeln!(md, "- {s} (reads {reads})");
        }
    }
    md
}

/// The probability rows the chart draws (means are on another scale).
fn charted(c: &TableComparison) -> impl Iterator<Item = (&ScenarioOutcomes, &KeyOutcome)> {
    c.scenarios
        .iter()
        .flat_map(|s| s.rows.iter().map(move |r| (s, r)))
        .filter(|(_, r)| r.is_probability)
}

fn chart_size(c: &TableComparison) -> (u32, u32) {
    let foot = footnotes_height(&footnotes(&c.info, &[]));
    (1000, 130 + 26 * charted(c).count() as u32 + foot)
}

fn forest_title(c: &TableComparison) -> String {
    format!("{}: {} against {}", c.table, c.labels[1], c.labels[0])
}

/// The chart in words: each probability's difference with its interval.
fn forest_caption(c: &TableComparison) -> Caption {
    let pt = |x: f64| format!("{:+.2}", 100.0 * x);
    let rows: Vec<String> = charted(c)
        .map(|(s, r)| {
            let (difference, low, high) = r.difference;
            let beyond = if r.significant { "" } else { ", tied" };
            format!(
                "{} · {} {} pt ({} to {}){beyond}",
                s.scenario,
                r.words,
                pt(difference),
                pt(low),
                pt(high)
            )
        })
        .collect();
    Caption {
        title: forest_title(c),
        description: format!(
            "Each probability's difference between the tables in percentage points, with its 95% interval: {}.",
            rows.join("; ")
        ),
    }
}

/// Each probability's difference with its interval, one row per scenario
/// and outcome, a line at zero.
fn forest<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, c: &TableComparison) -> Result<()> {
    area.fill(&WHITE).map_err(plot_err)?;
    let area = &footnoted(area.clone(), &footnotes(&c.info, &[]))?;
    let rows: Vec<(&ScenarioOutcomes, &KeyOutcome)> = charted(c).collect();
    let n = rows.len().max(1) as f64;
    let reach = rows
        .iter()
        .flat_map(|(_, r)| [r.difference.1.abs(), r.difference.2.abs()])
        .fold(0.0_f64, f64::max)
        .max(1e-4)
        * 100.0
        * 1.15;
    let labels: Vec<String> = rows
        .iter()
        .map(|(s, r)| format!("{} · {}", s.scenario, r.words))
        .collect();
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u32;
    let (title, px) = crate::report::kit::draw::fitted(area, &forest_title(c), 18, 12);
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, px))
        .margin(12)
        .margin_left((20 + 7 * longest).clamp(200, 520))
        .x_label_area_size(44)
        .build_cartesian_2d(-reach..reach, 0.0..n)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_desc("difference in probability (percentage points), with 95% interval")
        .x_label_formatter(&crate::report::kit::draw::tick)
        .label_style((FONT, LABEL_SIZE))
        .draw()
        .map_err(plot_err)?;
    let y = |i: usize| n - i as f64 - 0.5;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(0.0, 0.0), (0.0, n)],
            BLACK.stroke_width(1),
        )))
        .map_err(plot_err)?;
    for (i, (_, r)) in rows.iter().enumerate() {
        let colour = if r.significant {
            PALETTE[5]
        } else {
            PALETTE[0]
        };
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![
                    (100.0 * r.difference.1, y(i)),
                    (100.0 * r.difference.2, y(i)),
                ],
                colour.stroke_width(2),
            )))
            .map_err(plot_err)?;
        chart
            .draw_series(std::iter::once(Circle::new(
                (100.0 * r.difference.0, y(i)),
                4,
                colour.filled(),
            )))
            .map_err(plot_err)?;
    }
    let style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    for (i, label) in labels.iter().enumerate() {
        let (x, yy) = chart.backend_coord(&(-reach, y(i)));
        area.draw(&Text::new(label.clone(), (x - 8, yy), style.clone()))
            .map_err(plot_err)?;
    }
    Ok(())
}

/// The summary page (`templates/report/table_compare.html`).
#[derive(Template)]
#[template(path = "report/table_compare.html")]
struct TablePage<'a> {
    title: &'a str,
    table: &'a str,
    labels: &'a [String; 2],
    chart: Option<String>,
    scenarios: Vec<ScenarioSection<'a>>,
    not_read: &'a [(String, String)],
    provenance: Provenance,
}

struct ScenarioSection<'a> {
    name: &'a str,
    folder: &'a str,
    battles: String,
    command: &'a str,
    rows: Vec<[String; 5]>,
}

fn html(c: &TableComparison, dir: &Path) -> Result<Vec<String>> {
    let chart = if charted(c).next().is_some() {
        Some(svg_string(chart_size(c), &forest_caption(c), |a| {
            forest(&a, c)
        })?)
    } else {
        None
    };
    let page = TablePage {
        title: &c.info.name,
        table: &c.table,
        labels: &c.labels,
        chart,
        scenarios: c
            .scenarios
            .iter()
            .map(|s| ScenarioSection {
                name: &s.scenario,
                folder: &s.folder,
                battles: format!(
                    "{} battles with each table, seed {}",
                    thousands(s.trials),
                    s.seed
                ),
                command: &s.command,
                rows: s
                    .rows
                    .iter()
                    .map(|r| {
                        [
                            r.words.clone(),
                            r.shown(r.baseline),
                            r.shown(r.estimate),
                            r.difference_text(),
                            format!("{}, p {}", r.verdict(), format_p(r.p_value)),
                        ]
                    })
                    .collect(),
            })
            .collect(),
        not_read: &c.not_read,
        provenance: Provenance::of(&c.info),
    };
    write_report(&page, dir)
}

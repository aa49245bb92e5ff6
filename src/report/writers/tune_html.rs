//! The page of a tune (`report.html`): the answer, each goal before and
//! after (the band, the battle as written, the tuned battle with its
//! interval), what changed with each change's effect alone, and each tuned
//! table with its changed cells marked.

use std::path::Path;

use anyhow::Result;
use askama::Template;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::report::kit::draw::{Caption, FONT, LABEL_SIZE, PALETTE, plot_err};
use crate::report::kit::page::{Provenance, breakable, svg_string, write_report};
use crate::report::writers::tune::{GoalResult, TuneReport};
use crate::stats::format::{thousands, trim_decimal};

/// The size of one goal's picture.
const SIZE: (u32, u32) = (760, 120);

/// The page (`templates/report/tune.html`).
#[derive(Template)]
#[template(path = "report/tune.html")]
struct TunePage {
    title: String,
    /// The title, escaped, with places to break a long name on a phone.
    heading: String,
    answer: String,
    stopped: String,
    searched: String,
    alternatives: Vec<AlternativeRow>,
    alternatives_are: String,
    verify: String,
    confidence: String,
    exact: bool,
    fought: String,
    conflicts: Vec<String>,
    goals: Vec<GoalRow>,
    stand_ins: String,
    changes: Vec<ChangeRow>,
    tables: Vec<TableGrid>,
    provenance: Provenance,
}

struct GoalRow {
    /// Escaped, with places to break (written `|safe`).
    goal: String,
    /// Escaped, with places to break (written `|safe`).
    scenario: String,
    before: String,
    after: String,
    interval: String,
    exact: String,
    verdict: &'static str,
    stand_in: bool,
    chart: String,
}

/// Another table the search found: its changes, and each goal there.
struct AlternativeRow {
    changes: Vec<String>,
    goals: Vec<String>,
}

struct ChangeRow {
    setting: String,
    from: String,
    to: String,
    effects: Vec<String>,
}

/// A tuned table as a grid: one line per row of the table (or per cell,
/// for a table without rows), its changed cells marked.
struct TableGrid {
    name: String,
    file: String,
    header: Vec<String>,
    rows: Vec<Vec<GridCell>>,
}

struct GridCell {
    value: String,
    /// Its value before the tune, where the tune changed it.
    was: Option<String>,
}

/// Writes `report.html` into `dir`.
pub fn write(report: &TuneReport, dir: &Path) -> Result<Vec<String>> {
    let answer = report.answer();
    let mut stand_ins: Vec<&str> = (report.goals.iter())
        .flat_map(|g| g.stand_in_tables.iter().map(String::as_str))
        .collect();
    stand_ins.sort_unstable();
    stand_ins.dedup();
    let goals = (report.goals.iter())
        .map(|g| {
            Ok(GoalRow {
                goal: breakable(&crate::report::writers::tune::goal_words(
                    &report.info.system,
                    &g.goal,
                )),
                scenario: breakable(&g.scenario),
                before: shown(g, g.before_exact.unwrap_or(g.before)),
                after: shown(g, g.exact.unwrap_or(g.estimate)),
                interval: format!("{}–{}", shown(g, g.ci_low), shown(g, g.ci_high)),
                exact: g.exact.map_or_else(String::new, |p| shown(g, p)),
                verdict: g.verdict.words(),
                stand_in: !g.stand_in_tables.is_empty(),
                chart: svg_string(SIZE, &caption(&report.info.system, g), |a| picture(&a, g))?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let changes = (report.changes.iter())
        .map(|c| ChangeRow {
            setting: c.setting.clone(),
            from: c.from.clone(),
            to: c.to.clone(),
            effects: (report.effects.iter())
                .filter(|e| e.setting == c.setting)
                .filter_map(|e| {
                    let d = e.difference.as_ref()?;
                    let (scale, unit) = if e.mean { (1.0, "") } else { (100.0, " pt") };
                    Some(format!(
                        "{}: {}{}",
                        crate::report::writers::tune::goal_words(&report.info.system, &e.goal),
                        crate::stats::format::change(
                            scale * d.difference,
                            (scale * d.low, scale * d.high),
                            unit
                        ),
                        e.too_small_words(report.min_effect)
                    ))
                })
                .collect(),
        })
        .collect();
    let tables = (report.tables.iter())
        .filter(|(file, _)| file.ends_with(".toml"))
        .map(|(file, text)| grid(report, file, text))
        .collect::<Result<Vec<_>>>()?;
    let page = TunePage {
        title: format!("Tune: {}", report.info.name),
        heading: breakable(&format!("Tune: {}", report.info.name)),
        answer,
        stopped: report.stopped.clone(),
        searched: report.searched.clone(),
        alternatives_are: report.alternatives_are.clone(),
        alternatives: (report.alternatives.iter())
            .map(|a| AlternativeRow {
                changes: (a.changes.iter())
                    .map(|c| {
                        format!(
                            "{}: {} \u{2192} {}",
                            c.setting,
                            crate::stats::format::value_read(&c.from),
                            crate::stats::format::value_read(&c.to)
                        )
                    })
                    .collect(),
                goals: (report.goals.iter().zip(&a.values).zip(&a.verdicts))
                    .map(|((g, &v), verdict)| format!("{}: {}", shown(g, v), verdict.words()))
                    .collect(),
            })
            .collect(),
        verify: format!(
            "{} fresh battles (seed {})",
            thousands(report.verify_trials),
            report.verify_seed
        ),
        confidence: format!("{}%", trim_decimal(100.0 * report.confidence, 3)),
        exact: report.goals.iter().any(|g| g.exact.is_some()),
        fought: format!("{} battles fought in all", thousands(report.battles_fought)),
        conflicts: report.conflicts.clone(),
        goals,
        stand_ins: stand_ins.join(", "),
        changes,
        tables,
        provenance: Provenance::of(&report.info),
    };
    write_report(&page, dir)
}

/// A goal's value as the page writes it: a percentage, or a mean.
fn shown(g: &GoalResult, x: f64) -> String {
    if g.mean {
        crate::stats::format::signed(x, 3, false)
    } else {
        crate::stats::format::percent(x)
    }
}

/// Writes the tune's chart, `goals.svg` and `goals.png`: every goal on
/// its own axis as the page draws it, under a title, with the source line
/// and, where a goal rests on stand-in values, the † line.
pub fn write_chart(report: &TuneReport, dir: &Path) -> Result<Vec<String>> {
    let mut stand_ins: Vec<String> = (report.goals.iter())
        .flat_map(|g| g.stand_in_tables.iter().cloned())
        .collect();
    stand_ins.sort_unstable();
    stand_ins.dedup();
    let notes = crate::report::kit::draw::footnotes(&report.info, &stand_ins);
    let size = (
        900,
        CHART_TITLE
            + CHART_ROW * report.goals.len().max(1) as u32
            + crate::report::kit::draw::footnotes_height(&notes),
    );
    let caption = Caption {
        title: chart_title(report),
        description: (report.goals.iter())
            .map(|g| {
                let goal = crate::report::writers::tune::goal_words(&report.info.system, &g.goal);
                format!("{goal}: {}", caption(&report.info.system, g).description)
            })
            .collect::<Vec<_>>()
            .join(" "),
    };
    crate::report::kit::draw::draw_publication(
        dir,
        "goals",
        size,
        &caption,
        |a| goals_chart(a, report, &notes),
        |a| goals_chart(a, report, &notes),
    )
}

/// Height of the chart's title, and of each goal's row.
const CHART_TITLE: u32 = 40;
const CHART_ROW: u32 = 140;

/// The chart's title: the battles tuned and the answer's count.
fn chart_title(report: &TuneReport) -> String {
    let met = (report.goals.iter())
        .filter(|g| g.verdict == crate::questions::tune::Verdict::Met)
        .count();
    format!(
        "Tune: {}: {}, as written and tuned",
        report.info.name,
        crate::report::writers::tune::goals_met(met, report.goals.len())
    )
}

/// Every goal's row under the title, the notes along the bottom.
fn goals_chart<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    report: &TuneReport,
    notes: &[String],
) -> Result<()> {
    root.fill(&WHITE).map_err(plot_err)?;
    let area = crate::report::kit::draw::footnoted(root, notes)?;
    let (head, rows) = area.split_vertically(CHART_TITLE);
    let (title, px) = crate::report::kit::draw::fitted(&head, &chart_title(report), 20, 10);
    head.draw(&Text::new(title, (10, 10), (FONT, px).into_font()))
        .map_err(plot_err)?;
    for (row, g) in (rows.split_evenly((report.goals.len().max(1), 1)).iter()).zip(&report.goals) {
        let (label, plot) = row.split_vertically(22);
        let mark = if g.stand_in_tables.is_empty() {
            ""
        } else {
            " \u{2020}"
        };
        let text = format!(
            "{}{mark}: {}",
            crate::report::writers::tune::goal_words(&report.info.system, &g.goal),
            g.verdict.words()
        );
        let (text, px) = crate::report::kit::draw::fitted(&label, &text, 15, 10);
        label
            .draw(&Text::new(text, (10, 4), (FONT, px).into_font()))
            .map_err(plot_err)?;
        picture(&plot, g)?;
    }
    Ok(())
}

/// The picture in words.
fn caption(system: &str, g: &GoalResult) -> Caption {
    Caption {
        title: crate::report::writers::tune::goal_words(system, &g.goal),
        description: format!(
            "Band {}. As written {}; tuned {} ({}–{}){}: {}.",
            crate::report::writers::tune::band_words(&g.band),
            shown(g, g.before_exact.unwrap_or(g.before)),
            shown(g, g.estimate),
            shown(g, g.ci_low),
            shown(g, g.ci_high),
            g.exact
                .map_or_else(String::new, |p| format!(", exact {}", shown(g, p))),
            g.verdict.words()
        ),
    }
}

/// One goal on one axis: its band shaded, the battle as written (hollow)
/// and the tuned battle with its interval (filled; diamonds where exact).
fn picture<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, g: &GoalResult) -> Result<()> {
    area.fill(&WHITE).map_err(plot_err)?;
    let scale = if g.mean { 1.0 } else { 100.0 };
    let before = scale * g.before_exact.unwrap_or(g.before);
    let after = scale * g.exact.unwrap_or(g.estimate);
    let (lo, hi) = (scale * g.band_range.0, scale * g.band_range.1);
    let seen = [before, after, scale * g.ci_low, scale * g.ci_high];
    let finite = |x: f64| x.is_finite().then_some(x);
    let low = seen
        .iter()
        .copied()
        .chain(finite(lo))
        .fold(f64::INFINITY, f64::min);
    let high = seen
        .iter()
        .copied()
        .chain(finite(hi))
        .fold(f64::NEG_INFINITY, f64::max);
    let pad = ((high - low) * 0.12).max(if g.mean { 0.05 } else { 0.5 });
    let (mut x0, mut x1) = (low - pad, high + pad);
    if !g.mean {
        (x0, x1) = (x0.max(0.0), x1.min(100.0));
    }
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(90)
        .build_cartesian_2d(x0..x1, 0.0..2.0)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_label_formatter(&crate::report::kit::draw::tick)
        .x_desc(if g.mean { "mean" } else { "probability (%)" })
        .label_style((FONT, LABEL_SIZE))
        .draw()
        .map_err(plot_err)?;
    let band = (lo.max(x0), hi.min(x1));
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(band.0, 0.1), (band.1, 1.9)],
            PALETTE[2].mix(0.18).filled(),
        )))
        .map_err(plot_err)?;
    // As written, above; tuned, below.
    let marker =
        |x: f64, y: f64, exact: bool, filled: bool| -> DynElement<'static, DB, (f64, f64)> {
            let style = if filled {
                PALETTE[0].filled()
            } else {
                PALETTE[0].stroke_width(2)
            };
            if exact {
                Polygon::new(
                    vec![
                        (x, y + 0.22),
                        (x + (x1 - x0) * 0.008, y),
                        (x, y - 0.22),
                        (x - (x1 - x0) * 0.008, y),
                    ],
                    style,
                )
                .into_dyn()
            } else {
                Circle::new((x, y), 6, style).into_dyn()
            }
        };
    chart
        .draw_series(std::iter::once(marker(
            before,
            1.45,
            g.before_exact.is_some(),
            false,
        )))
        .map_err(plot_err)?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(scale * g.ci_low, 0.6), (scale * g.ci_high, 0.6)],
            PALETTE[0].stroke_width(2),
        )))
        .map_err(plot_err)?;
    chart
        .draw_series(std::iter::once(marker(after, 0.6, g.exact.is_some(), true)))
        .map_err(plot_err)?;
    // The two lines named at the left (the plot spans 10 to 80 px down).
    for (y, text) in [(1.45, "as written"), (0.6, "tuned")] {
        let down = 10.0 + (2.0 - y) / 2.0 * 70.0 - 7.0;
        area.draw(&Text::new(text, (8, down as i32), (FONT, 12).into_font()))
            .map_err(plot_err)?;
    }
    Ok(())
}

/// The grid of a tuned table file: its `rows` (each a line, its nested
/// keys as columns), or every cell, with the cells the tune changed marked.
fn grid(report: &TuneReport, file: &str, text: &str) -> Result<TableGrid> {
    let doc: toml::Table = toml::from_str(text)?;
    let name = file
        .trim_start_matches("tuned_")
        .trim_end_matches(".toml")
        .to_owned();
    // The cells changed in this table: their path in it, and their old value.
    let prefix = format!("tables.{name}.");
    let was: Vec<(String, String)> = (report.changes.iter())
        .filter_map(|c| {
            c.setting
                .strip_prefix(&prefix)
                .map(|p| (p.to_owned(), c.from.clone()))
        })
        .collect();
    let was_at = |path: &str| {
        (was.iter())
            .find(|(p, _)| p == path)
            .map(|(_, v)| crate::stats::format::value_read(v))
    };
    if let Some(rows) = doc.get("rows").and_then(toml::Value::as_array) {
        let lines: Vec<(String, Vec<(String, String)>)> = rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let id = row
                    .get("label")
                    .and_then(toml::Value::as_str)
                    .map_or_else(|| i.to_string(), str::to_owned);
                let mut cells = Vec::new();
                flatten(row, "", &mut cells);
                (id, cells)
            })
            .collect();
        let mut header: Vec<String> = Vec::new();
        for (_, cells) in &lines {
            for (key, _) in cells {
                if !header.contains(key) {
                    header.push(key.clone());
                }
            }
        }
        // Plain keys first, then each group's keys together (a key only a
        // later row has sits with its group, not at the far end).
        let group = |key: &str| key.rsplit_once('.').map_or("", |(g, _)| g).to_owned();
        let groups: Vec<String> =
            header
                .iter()
                .map(|k| group(k))
                .fold(Vec::new(), |mut seen, g| {
                    if !seen.contains(&g) {
                        seen.push(g);
                    }
                    seen
                });
        header.sort_by_key(|k| {
            let g = group(k);
            (!g.is_empty(), groups.iter().position(|x| *x == g))
        });
        let rows = lines
            .iter()
            .map(|(id, cells)| {
                header
                    .iter()
                    .map(|key| GridCell {
                        value: (cells.iter())
                            .find(|(k, _)| k == key)
                            .map_or_else(String::new, |(_, v)| v.clone()),
                        was: was_at(&format!("rows.{id}.{key}")),
                    })
                    .collect()
            })
            .collect();
        let header = header.iter().map(|h| h.replace('.', " ")).collect();
        return Ok(TableGrid {
            name,
            file: file.to_owned(),
            header,
            rows,
        });
    }
    let mut cells = Vec::new();
    flatten(&toml::Value::Table(doc), "", &mut cells);
    Ok(TableGrid {
        name,
        file: file.to_owned(),
        header: vec!["cell".to_owned(), "value".to_owned()],
        rows: cells
            .into_iter()
            .filter(|(k, _)| k != "kind" && k != "stand_ins" && k != crate::tables::orders::KEY)
            .map(|(k, v)| {
                let was = was_at(&k);
                vec![
                    GridCell {
                        value: k,
                        was: None,
                    },
                    GridCell { value: v, was },
                ]
            })
            .collect(),
    })
}

/// Every leaf of `value` under its dotted path.
fn flatten(value: &toml::Value, path: &str, out: &mut Vec<(String, String)>) {
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let at = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                flatten(v, &at, out);
            }
        }
        toml::Value::String(s) => out.push((path.to_owned(), s.clone())),
        // A number as people read it: a true minus (`−2`), thousands.
        other => out.push((
            path.to_owned(),
            crate::stats::format::value_read(&other.to_string()),
        )),
    }
}

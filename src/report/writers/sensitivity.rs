//! Outputs of `warcrunch sensitivity`: `sensitivity.csv`, `run.json`, the
//! tornado chart and `report.html`, and the console's top ten.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use askama::Template;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use polars::prelude::Column;

use crate::questions::sensitivity::{Method, Move, Refused};
use crate::questions::target::Quantity;
use crate::questions::target::split_text;
use crate::report::exporters::csv::{TableMeta, numbers, stand_in_pair, text, write_table};
use crate::report::exporters::json::write_info_with;
use crate::report::findings::target_stand_ins;
use crate::report::kit::draw::{
    Caption, FONT, LABEL_SIZE, PALETTE, draw_publication, footnoted, footnotes, footnotes_height,
    plot_err,
};
use crate::report::kit::page::{Provenance, svg_string, write_report};
use crate::report::kit::words;
use crate::report::kit::words::{mark_if, rests_on_line, rests_on_words};
use crate::report::{Export, Formats, RunInfo};
use crate::stats::format::thousands;
use crate::stats::format::value_read;
use crate::tables::cells::Cell;

/// A finished sensitivity analysis.
#[derive(Debug, Clone)]
pub struct SensitivityReport {
    /// Provenance.
    pub info: RunInfo,
    /// The event or mean, as `--target` wrote it.
    pub target: String,
    /// Whether the target's probability or its mean is measured.
    pub quantity: Quantity,
    /// Every move made, largest shift first.
    pub moves: Vec<Move>,
    /// Moves the settings' allowed values ruled out.
    pub refused: Vec<Refused>,
    /// The least change that matters, as asked (`--min-effect`: points
    /// for a probability, a mean's units).
    pub min_effect: Option<f64>,
    /// Tabular output formats.
    pub formats: Formats,
}

impl SensitivityReport {
    /// Whether move `m` lies within the `--min-effect` asked (a move that
    /// changes nothing does).
    pub fn too_small(&self, m: &Move) -> bool {
        self.min_effect
            .is_some_and(|amount| m.within(amount / self.quantity.scale()))
    }

    /// The `--min-effect` asked, with its unit: `0.5 pt`, `0.05`.
    fn min_effect_words(&self) -> String {
        format!(
            "{}{}",
            self.min_effect.unwrap_or_default(),
            self.quantity.change_unit()
        )
    }
}

/// Moves too small to matter named in the summary; the rest are counted.
const LISTED_SMALL: usize = 8;

/// Knobs the tornado chart shows.
const CHART_KNOBS: usize = 15;

/// Every exporter of a sensitivity analysis.
pub fn sensitivity_exporters() -> Vec<Box<dyn Export<SensitivityReport>>> {
    vec![
        Box::new(SensitivityCsv),
        Box::new(SensitivityJson),
        Box::new(Tornado),
        Box::new(SensitivityHtml),
    ]
}

/// `sensitivity.csv`: one row per move, largest shift first.
pub struct SensitivityCsv;
/// `run.json`: provenance, the target and the refused moves.
pub struct SensitivityJson;
/// `tornado.{svg,png}`.
pub struct Tornado;
/// `report.html`.
pub struct SensitivityHtml;

impl Export<SensitivityReport> for SensitivityCsv {
    fn write(&self, report: &SensitivityReport, dir: &Path) -> Result<Vec<String>> {
        let m = &report.moves;
        let (subject_metric, value) = split_text(&report.target);
        let estimate = report.quantity.name();
        // The target's base numbers rest on these, whichever cell moves.
        let rests_on = target_stand_ins(&report.info, &report.target);
        write_table(
            dir,
            "sensitivity",
            (&report.formats, &TableMeta::of(&report.info)),
            vec![
                text("knob", m.iter().map(|x| x.knob.clone()).collect()),
                text("table", cell_part(m, |c| &c.table)),
                text("row", cell_part(m, |c| &c.row)),
                text("column", cell_part(m, |c| &c.column)),
                text("from", m.iter().map(|x| x.from.clone()).collect()),
                text("to", m.iter().map(|x| x.to.clone()).collect()),
                text("metric", vec![subject_metric.to_owned(); m.len()]),
                text("value", vec![value.to_owned(); m.len()]),
                numbers(&format!("base_{estimate}"), m, |x| x.base_estimate),
                numbers(estimate, m, |x| x.estimate),
                numbers("difference", m, |x| x.difference.difference),
                numbers("ci_low", m, |x| x.difference.low),
                numbers("ci_high", m, |x| x.difference.high),
                text(
                    "method",
                    m.iter().map(|x| x.method.name().to_owned()).collect(),
                ),
                Column::new(
                    "differs".into(),
                    m.iter().map(|x| x.differs).collect::<Vec<bool>>(),
                ),
            ]
            .into_iter()
            .chain(report.min_effect.map(|_| {
                Column::new(
                    "below_min_effect".into(),
                    m.iter().map(|x| report.too_small(x)).collect::<Vec<bool>>(),
                )
            }))
            .chain([
                Column::new(
                    "discordant".into(),
                    m.iter()
                        .map(|x| x.paired.map(|t| t.changed))
                        .collect::<Vec<Option<u64>>>(),
                ),
                Column::new(
                    "width_ratio".into(),
                    m.iter().map(width_ratio).collect::<Vec<Option<f64>>>(),
                ),
            ])
            .chain(stand_in_pair(&vec![rests_on; m.len()]))
            .collect(),
        )
    }
}

/// The width two independent runs would give a simulated move's interval
/// over its paired width (none when exact, or when no battle moved: both
/// widths are then the noise of a difference that is none, and their
/// ratio says nothing).
fn width_ratio(m: &Move) -> Option<f64> {
    if m.paired?.changed == 0 {
        return None;
    }
    let unpaired = m.unpaired?;
    let width = m.difference.high - m.difference.low;
    (width > 0.0).then(|| (unpaired.high - unpaired.low) / width)
}

/// One part of each move's cell (empty for a knob that is no cell).
fn cell_part(moves: &[Move], part: impl Fn(&Cell) -> &String) -> Vec<String> {
    moves
        .iter()
        .map(|m| {
            m.cell
                .as_ref()
                .map_or_else(String::new, |c| part(c).clone())
        })
        .collect()
}

impl Export<SensitivityReport> for SensitivityJson {
    fn write(&self, report: &SensitivityReport, dir: &Path) -> Result<Vec<String>> {
        let fields = [
            ("target", report.target.clone().into()),
            ("refused_moves", serde_json::to_value(&report.refused)?),
        ];
        write_info_with(&report.info, dir, fields)
    }
}

/// Whether a move lowers its knob (drawn as the lower bar).
fn is_down(m: &Move) -> bool {
    m.lowers
}

/// The knobs in ranking order (by their largest shift), each once.
fn ranked_knobs(moves: &[Move]) -> Vec<&str> {
    let mut knobs: Vec<&str> = Vec::new();
    for m in moves {
        if !knobs.contains(&m.knob.as_str()) {
            knobs.push(&m.knob);
        }
    }
    knobs
}

/// The tornado's size: a row per charted knob.
fn tornado_size(report: &SensitivityReport) -> (u32, u32) {
    let notes = footnotes(
        &report.info,
        &target_stand_ins(&report.info, &report.target),
    );
    (
        1000,
        120 + 36 * ranked_knobs(&report.moves).len().min(CHART_KNOBS) as u32
            + footnotes_height(&notes),
    )
}

fn tornado_title(report: &SensitivityReport) -> String {
    format!(
        "What moves {} most: one step of each knob{}",
        report
            .quantity
            .of_target(&words::target(&report.info.system, &report.target)),
        mark_if(&target_stand_ins(&report.info, &report.target))
    )
}

/// The tornado in words: each charted move, largest first.
fn tornado_caption(report: &SensitivityReport) -> Caption {
    let (_, shown, _) = charted_moves(report);
    let lines: Vec<String> = shown
        .iter()
        .map(|m| move_line(m, report, knob_words))
        .collect();
    let stand_ins = target_stand_ins(&report.info, &report.target);
    let rests_on = if stand_ins.is_empty() {
        String::new()
    } else {
        format!(" The target {}.", rests_on_words(&stand_ins))
    };
    Caption {
        title: tornado_title(report),
        description: format!(
            "Each knob's one-step moves as bars of the change in {}, with 95% intervals, largest first (a word with several values on one side, its largest move that way): {}.{rests_on}",
            report.quantity.change_words(),
            lines.join("; ")
        ),
    }
}

fn tornado<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    report: &SensitivityReport,
) -> Result<()> {
    area.fill(&WHITE).map_err(plot_err)?;
    let notes = footnotes(
        &report.info,
        &target_stand_ins(&report.info, &report.target),
    );
    let area = &footnoted(area.clone(), &notes)?;
    let (knobs, shown, reach) = charted_moves(report);
    let scale = report.quantity.scale();
    let rows = knobs.len().max(1) as f64;
    // A strip under the last row for the legend (about 56 px of the plot's
    // height), so it never covers a bar.
    let plot_px = (area.dim_in_pixel().1 as f64 - 110.0).max(100.0);
    let legend_rows = 56.0 / (plot_px / (rows + 1.0));
    // The caption is centred over the chart beside the knobs' names, and
    // fitted to that width.
    let names_room = label_room(&knobs, &shown);
    let (_, beside_names) = area.split_horizontally(names_room);
    let (title, px) =
        crate::report::kit::draw::fitted(&beside_names, &tornado_title(report), 18, 12);
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, px))
        .margin(12)
        .margin_left(names_room)
        .x_label_area_size(44)
        .build_cartesian_2d(-reach..reach, -legend_rows..rows)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_label_formatter(&crate::report::kit::draw::tick)
        .x_desc(match report.quantity {
            Quantity::Probability => {
                "change in probability (percentage points), bars with 95% interval"
            }
            Quantity::Mean => "change in the mean, bars with 95% interval",
        })
        .label_style((FONT, LABEL_SIZE))
        .draw()
        .map_err(plot_err)?;
    // Row r (0 = the largest) spans rows-1-r .. rows-r; down bars in its
    // upper half, up bars in its lower half.
    let top = |m: &Move| {
        let r = knobs
            .iter()
            .position(|k| *k == m.knob)
            .expect("a shown knob") as f64;
        rows - r - if is_down(m) { 0.1 } else { 0.5 }
    };
    let names = bar_names(&shown);
    for (down, colour, name) in [(true, PALETTE[0], names[0]), (false, PALETTE[1], names[1])] {
        let bars: Vec<&Move> = shown
            .iter()
            .copied()
            .filter(|m| is_down(m) == down)
            .collect();
        chart
            .draw_series(bars.iter().map(|m| {
                let y = top(m);
                Rectangle::new(
                    [(0.0, y), (scale * m.difference.difference, y - 0.38)],
                    colour.filled(),
                )
            }))
            .map_err(plot_err)?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
        chart
            .draw_series(bars.iter().map(|m| {
                let y = top(m) - 0.19;
                PathElement::new(
                    vec![
                        (scale * m.difference.low, y),
                        (scale * m.difference.high, y),
                    ],
                    BLACK.stroke_width(1),
                )
            }))
            .map_err(plot_err)?;
    }
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(0.0, 0.0), (0.0, rows)],
            BLACK.stroke_width(1),
        )))
        .map_err(plot_err)?;
    // A word's move says what changed, beyond the end of its bar.
    for m in shown.iter().filter(|m| !is_number(m)) {
        // Past the bar and its whisker.
        let d = m.difference.difference;
        let end = if d >= 0.0 {
            d.max(m.difference.high)
        } else {
            d.min(m.difference.low)
        };
        let (x, y) = chart.backend_coord(&(scale * end, top(m) - 0.19));
        let label = format!("{}→{}", value_read(&m.from), value_read(&m.to));
        // Beyond the end, unless the chart's edge would cut it: then in
        // white inside the bar's end, toward the axis.
        let width = crate::report::kit::draw::text_width(&label, 11.0)? as i32 + 4;
        let (plot_x, _) = chart.plotting_area().get_pixel_range();
        let outward = if d >= 0.0 {
            x + width <= area.dim_in_pixel().0 as i32 - 2
        } else {
            x - width >= plot_x.start
        };
        let style = TextStyle::from((FONT, 11).into_font());
        let (style, at) = if outward {
            let (anchor, dx) = if d >= 0.0 {
                (HPos::Left, 4)
            } else {
                (HPos::Right, -4)
            };
            (style.pos(Pos::new(anchor, VPos::Center)), (x + dx, y))
        } else {
            let (bar_end, _) = chart.backend_coord(&(scale * d, top(m) - 0.19));
            let (anchor, dx) = if d >= 0.0 {
                (HPos::Right, -4)
            } else {
                (HPos::Left, 4)
            };
            let style = style.color(&WHITE).pos(Pos::new(anchor, VPos::Center));
            (style, (bar_end + dx, y))
        };
        area.draw(&Text::new(label, at, style)).map_err(plot_err)?;
    }
    // Each row's knob and its value, left of the axis.
    let style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    for (r, knob) in knobs.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(-reach, rows - r as f64 - 0.5));
        let text = row_label(knob, &shown);
        area.draw(&Text::new(text, (x - 8, y), style.clone()))
            .map_err(plot_err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, LABEL_SIZE))
        .draw()
        .map_err(plot_err)?;
    Ok(())
}

/// Pixels left of the axis for the longest row label (about 7 a
/// character at 13 px), within a third to a half of the chart.
fn label_room(knobs: &[&str], shown: &[&Move]) -> u32 {
    let longest = knobs
        .iter()
        .map(|k| row_label(k, shown).chars().count())
        .max()
        .unwrap_or(0) as u32;
    (20 + 7 * longest).clamp(290, 480)
}

/// A row's label: the knob in words and the
/// value it moves from.
fn row_label(knob: &str, shown: &[&Move]) -> String {
    format!(
        "{} ({})",
        knob_words(knob),
        value_read(value_of(shown, knob))
    )
}

/// The knobs the chart shows (the first [`CHART_KNOBS`] by rank), their
/// moves, and the half-width of the axis (in percentage points for a
/// probability).
fn charted_moves(report: &SensitivityReport) -> (Vec<&str>, Vec<&Move>, f64) {
    let knobs: Vec<&str> = ranked_knobs(&report.moves)
        .into_iter()
        .take(CHART_KNOBS)
        .collect();
    // A word with several values on one side of its own (a policy)
    // draws the largest of those moves, so no two bars or labels share a
    // half-row; sensitivity.csv lists every move.
    let largest = |m: &Move| {
        report
            .moves
            .iter()
            .filter(|o| o.knob == m.knob && o.lowers == m.lowers)
            .max_by(|a, b| {
                let size = |x: &Move| x.difference.difference.abs();
                size(a).total_cmp(&size(b))
            })
            .is_some_and(|o| std::ptr::eq(o, m))
    };
    let shown: Vec<&Move> = report
        .moves
        .iter()
        .filter(|m| knobs.contains(&m.knob.as_str()) && largest(m))
        .collect();
    let reach = shown
        .iter()
        .flat_map(|m| [m.difference.low.abs(), m.difference.high.abs()])
        .fold(0.0_f64, f64::max)
        .max(1e-4)
        * report.quantity.scale()
        * 1.1;
    (knobs, shown, reach)
}

/// The legend of the two bars: settings down or up; a word (a result, a
/// column, dice, yes/no) to the value before or after it in its order,
/// each such bar labelled with what changed (`F→H`).
fn bar_names(shown: &[&Move]) -> [&'static str; 2] {
    if shown.iter().all(|m| is_number(m)) {
        ["one step down", "one step up"]
    } else {
        [
            "one step down, or the value before it",
            "one step up, or the value after it",
        ]
    }
}

/// Whether a move sets a number (its bar needs no label of its own).
fn is_number(m: &Move) -> bool {
    m.from.parse::<f64>().is_ok()
}

/// The value a knob moves from.
fn value_of<'a>(shown: &[&'a Move], knob: &str) -> &'a str {
    shown
        .iter()
        .find(|m| m.knob == knob)
        .map_or("", |m| m.from.as_str())
}

impl Export<SensitivityReport> for Tornado {
    fn write(&self, report: &SensitivityReport, dir: &Path) -> Result<Vec<String>> {
        draw_publication(
            dir,
            "tornado",
            tornado_size(report),
            &tornado_caption(report),
            |a| tornado(&a, report),
            |a| tornado(&a, report),
        )
    }
}

/// One move in words: `heroes.Titus.risk 0 → −1: 12.30% → 10.10%, −2.2 pt (−2.5 to −1.9)`
/// (a mean: `4.512 → 4.101, −0.41 (−0.44 to −0.38)`),
/// "unchanged in every battle" where no battle moved, "tied" where the
/// move does not differ family-wise.
fn move_line(m: &Move, report: &SensitivityReport, knob_name: fn(&str) -> String) -> String {
    let q = report.quantity;
    if m.unchanged() {
        return format!(
            "{} {} \u{2192} {}: {} {}",
            knob_name(&m.knob),
            value_read(&m.from),
            value_read(&m.to),
            q.value(m.base_estimate),
            m.verdict()
        );
    }
    let [change, low, high] = q.change(difference_of(m));
    let interval = if m.difference.low == m.difference.high {
        "exact".to_owned()
    } else {
        format!("{low} to {high}")
    };
    let verdict = match (m.differs, report.too_small(m)) {
        (true, false) => String::new(),
        (true, true) => format!(
            ", within ±{}: too small to matter",
            report.min_effect_words()
        ),
        (false, false) => ", tied: no change beyond noise across the moves".to_owned(),
        (false, true) => format!(
            ", tied, and within ±{}: too small to matter",
            report.min_effect_words()
        ),
    };
    format!(
        "{} {} \u{2192} {}: {} \u{2192} {}, {change}{} ({interval}){verdict}",
        knob_name(&m.knob),
        value_read(&m.from),
        value_read(&m.to),
        q.value(m.base_estimate),
        q.value(m.estimate),
        q.change_unit(),
    )
}

/// A move's difference and its interval's ends.
fn difference_of(m: &Move) -> (f64, f64, f64) {
    (m.difference.difference, m.difference.low, m.difference.high)
}

/// A knob as the report's page and charts name it: `Heroes · Varro · HT`,
/// a table cell without `tables.` (`Survival · rows · A · column`).
fn knob_words(knob: &str) -> String {
    words::setting(knob.strip_prefix("tables.").unwrap_or(knob))
}

/// A knob as the command line names it (`heroes.Varro.ht`), for the console.
fn knob_path(knob: &str) -> String {
    knob.to_owned()
}

/// The console summary: the target, the base and the `n` largest moves,
/// each knob as the command line names it.
pub fn top_lines(report: &SensitivityReport, n: usize) -> String {
    lines_naming(report, n, knob_path)
}

/// [`top_lines`] with each knob named by `knob_name`.
fn lines_naming(report: &SensitivityReport, n: usize, knob_name: fn(&str) -> String) -> String {
    let mut out = String::new();
    // The exact base when any move is exact; the simulated one otherwise.
    let exact = report.moves.iter().find(|m| m.method == Method::Exact);
    let base = exact
        .or(report.moves.first())
        .map_or(0.0, |m| m.base_estimate);
    let sampled = report.info.trials.map(|t| {
        format!(
            "{} battles per move, every move on the same battles",
            thousands(t)
        )
    });
    let how = match (exact.is_some(), sampled) {
        (true, Some(sampled)) => format!(
            " (exact; the moves the exact method cannot follow are simulated: {sampled}, each row says which)"
        ),
        (true, None) => " (exact)".to_owned(),
        (false, Some(sampled)) => format!(" ({sampled})"),
        (false, None) => String::new(),
    };
    let q = report.quantity;
    let stand_ins = target_stand_ins(&report.info, &report.target);
    let _ = writeln!(
        out,
        "{}: {} = {}{} as written{how}",
        report.info.name,
        q.of_target(&words::target(&report.info.system, &report.target)),
        q.value(base),
        mark_if(&stand_ins),
    );
    let _ = writeln!(
        out,
        "The {} largest of {} moves:",
        n.min(report.moves.len()),
        report.moves.len()
    );
    for m in report.moves.iter().take(n) {
        let _ = writeln!(out, "  {}", move_line(m, report, knob_name));
    }
    if report.min_effect.is_some() {
        let moves = report.moves.iter().filter(|m| report.too_small(m)).count();
        // Each knob once, though both its moves may be small.
        let mut small: Vec<&str> = Vec::new();
        for m in report.moves.iter().filter(|m| report.too_small(m)) {
            if !small.contains(&m.knob.as_str()) {
                small.push(&m.knob);
            }
        }
        let _ = writeln!(
            out,
            "{} of {} moves change {} by less than ±{} (the whole 95% interval, or the exact change, within it): too small to matter at the --min-effect asked{}",
            moves,
            report.moves.len(),
            q.of_target(&report.target),
            report.min_effect_words(),
            match small.len() {
                0 => String::new(),
                n if n <= LISTED_SMALL => format!(", of {}", small.join(", ")),
                n => format!(
                    ", of {} and {} more knobs (below_min_effect in sensitivity.csv)",
                    small[..LISTED_SMALL].join(", "),
                    n - LISTED_SMALL
                ),
            }
        );
    }
    if !stand_ins.is_empty() {
        let _ = writeln!(out, "{}", rests_on_line(&stand_ins));
    }
    if !report.refused.is_empty() {
        let _ = writeln!(
            out,
            "{} outside the setting's allowed values and left out (see run.json)",
            match report.refused.len() {
                1 => "1 move is".to_owned(),
                n => format!("{n} moves are"),
            }
        );
    }
    out
}

/// The page of a sensitivity analysis (`templates/report/sensitivity.html`).
#[derive(Template)]
#[template(path = "report/sensitivity.html")]
struct SensitivityPage<'a> {
    title: &'a str,
    /// `P(side:A/victory=won)`, `the mean of hero:A/reputation`.
    asked: String,
    /// The estimate's column header: `probability`, `mean`.
    estimate: &'static str,
    /// The change's unit after its header: ` (pt)` or nothing.
    unit: &'static str,
    /// The largest moves, one sentence each.
    lines: Vec<String>,
    chart: String,
    /// How each kind of knob was stepped.
    step_rule: String,
    moves: Vec<MoveRow>,
    refused: &'a [Refused],
    provenance: Provenance,
}

struct MoveRow {
    /// The knob in words.
    knob: String,
    /// The knob as the command line names it, in the row's tooltip.
    path: String,
    from: String,
    to: String,
    estimate: String,
    change: String,
    interval: String,
    verdict: &'static str,
    method: &'static str,
}

impl Export<SensitivityReport> for SensitivityHtml {
    fn write(&self, report: &SensitivityReport, dir: &Path) -> Result<Vec<String>> {
        let q = report.quantity;
        let page = SensitivityPage {
            title: &report.info.name,
            // Marked † where the target rests on stand-ins: the line the
            // mark leads to is among the page's sentences.
            asked: format!(
                "{}{}",
                q.of_target(&words::target(&report.info.system, &report.target)),
                mark_if(&target_stand_ins(&report.info, &report.target))
            ),
            estimate: q.name(),
            unit: match q {
                Quantity::Probability => " (pt)",
                Quantity::Mean => "",
            },
            lines: lines_naming(report, 3, knob_words)
                .lines()
                .skip(2)
                .map(|line| line.trim().to_owned())
                .collect(),
            chart: svg_string(tornado_size(report), &tornado_caption(report), |a| {
                tornado(&a, report)
            })?,
            step_rule: crate::questions::sensitivity::step_rule(),
            moves: report
                .moves
                .iter()
                .map(|m| {
                    let [change, low, high] = q.change(difference_of(m));
                    MoveRow {
                        knob: knob_words(&m.knob),
                        path: m.knob.clone(),
                        from: value_read(&m.from),
                        to: value_read(&m.to),
                        estimate: q.value(m.estimate),
                        change,
                        interval: format!("{low} to {high}"),
                        verdict: if report.too_small(m) && !m.unchanged() {
                            "too small to matter"
                        } else {
                            m.verdict()
                        },
                        method: m.method.name(),
                    }
                })
                .collect(),
            refused: &report.refused,
            provenance: Provenance::of(&report.info),
        };
        write_report(&page, dir)
    }
}

//! Sweep comparisons: each PC's safety against glory across variants (the
//! Risk frontier), the recommended variant under a cap on the chance of
//! going down, and stacked outcome charts per variant.

use std::path::Path;

use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::report::RunReport;
use crate::report::findings::{FrontierPoint, HeroFrontier, SweepAdvice, advice, find, frontiers};
use crate::report::kit::draw::{
    Caption, FONT, LABEL_SIZE, PALETTE, Stems, bar_range, draw_publication, file_safe, footnoted,
    footnotes, plot_err, text_on,
};
use crate::stats::format::percent;
use crate::stats::recommend::Recommendation;
use crate::stats::{Metric, MetricRole};

/// Whether variants are the values of one numeric setting (`risk=-3`).
fn ordered_sweep(points: &[FrontierPoint]) -> bool {
    points.iter().all(|p| {
        !p.variant.contains(',')
            && p.variant
                .split_once('=')
                .is_some_and(|(_, v)| v.parse::<f64>().is_ok())
    })
}

/// Draws the comparison charts of a sweep; returns the files written.
pub fn draw(report: &RunReport, dir: &Path) -> Result<Vec<String>> {
    let mut written = Vec::new();
    let mut stems = Stems::default();
    let all = frontiers(report);
    let advice = advice(report, &all);
    if !all.is_empty() {
        written.extend(draw_publication(
            dir,
            "frontier",
            frontier_size(&all),
            &frontier_caption(report, &all),
            |root| frontier_panels(root, report, &all, advice.as_ref()),
            |root| frontier_panels(root, report, &all, advice.as_ref()),
        )?);
    }
    let Some(first) = report.variants.first() else {
        return Ok(written);
    };
    // The battle's outcomes, the first side's victory, each PC's Survival
    // and fate.
    let first_side = first.metrics.iter().find_map(|m| match &m.role {
        MetricRole::Victory { side } => Some(side.clone()),
        _ => None,
    });
    for m in first.metrics.iter().filter(|m| !m.is_numeric()) {
        let wanted = match &m.role {
            MetricRole::Winner { .. } | MetricRole::Outcome | MetricRole::Ground { .. } => true,
            MetricRole::Victory { side } => Some(side) == first_side.as_ref(),
            MetricRole::Survival { .. }
            | MetricRole::Fate { .. }
            | MetricRole::PartyRisk { .. }
            | MetricRole::Target => true,
            MetricRole::Detail | MetricRole::Fame { .. } => false,
        };
        if !wanted {
            continue;
        }
        let stem = stems.claim(format!(
            "compare_{}_{}",
            file_safe(&m.subject),
            file_safe(&m.name)
        ));
        written.extend(draw_publication(
            dir,
            &stem,
            STACKED_SIZE,
            &stacked_caption(report, &m.subject, &m.name),
            |root| stacked(root, report, &m.subject, &m.name),
            |root| stacked(root, report, &m.subject, &m.name),
        )?);
    }
    Ok(written)
}

/// The size of a stacked outcome chart.
pub const STACKED_SIZE: (u32, u32) = (1000, 520);

/// The size of the frontier chart: one panel per PC.
pub fn frontier_size(all: &[HeroFrontier]) -> (u32, u32) {
    (1000, 480 * all.len() as u32 + 40)
}

/// The frontier chart's title, short enough for its width; the cap on
/// the chance of going out is a line on each panel (and in the
/// description).
fn frontier_title(report: &RunReport) -> String {
    format!(
        "{}: safety against glory, {} per variant{}",
        report.info.name,
        battles_each(report),
        crate::report::findings::stand_in_mark(&report.info)
    )
}

/// `20,000 battles`: what each variant of a sweep or comparison fought
/// (`engagements` where the system calls them so).
fn battles_each(report: &RunReport) -> String {
    format!(
        "{} {}",
        crate::stats::format::thousands(report.info.trials.unwrap_or(0)),
        crate::systems::registry::battle_noun(&report.info.system)[1]
    )
}

/// What a chart's description adds when its numbers rest on stand-ins.
fn stand_in_words(stand_ins: bool) -> &'static str {
    if stand_ins {
        " It rests on stand-in table values (marked †)."
    } else {
        ""
    }
}

/// The frontier chart's title and, per PC, each variant's point in words.
pub fn frontier_caption(report: &RunReport, all: &[HeroFrontier]) -> Caption {
    let panels: Vec<String> = all
        .iter()
        .map(|f| {
            let points: Vec<String> = f
                .points
                .iter()
                .map(|p| {
                    format!(
                        "{} P({}) {}, expected Reputation {}",
                        crate::stats::format::minus(&p.variant),
                        f.out_label,
                        percent(p.p_out),
                        crate::stats::format::as_known(p.reputation, p.reputation_ci)
                    )
                })
                .collect();
            format!("{}: {}.", f.pc.clone(), points.join("; "))
        })
        .collect();
    Caption {
        title: frontier_title(report),
        description: format!(
            "One panel per PC, each variant a point with its 95% intervals{}. {}{}",
            match report.info.max_risk_of_down {
                Some(cap) => format!(
                    "; the line at {} is the cap on the chance of going out",
                    cap_percent(cap)
                ),
                None => String::new(),
            },
            panels.join(" "),
            stand_in_words(report.info.uses_stand_ins())
        ),
    }
}

fn stacked_title(report: &RunReport, subject: &str, name: &str) -> String {
    let mark = crate::report::findings::metric_mark(&report.info, subject, name);
    format!(
        "{} by variant ({}, {} each){mark}",
        crate::report::kit::words::title(&report.info.system, subject, name),
        report.info.name,
        battles_each(report),
    )
}

/// A stacked chart's title and each variant's shares in words.
pub fn stacked_caption(report: &RunReport, subject: &str, name: &str) -> Caption {
    let variants: Vec<String> = report
        .variants
        .iter()
        .filter_map(|v| {
            let m = find(&v.metrics, subject, name)?;
            let total = m.total().max(1) as f64;
            let shares: Vec<String> = (0..m.weights.len())
                .map(|bin| {
                    format!(
                        "{} {}",
                        m.label(bin),
                        percent(m.weights[bin] as f64 / total)
                    )
                })
                .collect();
            Some(format!(
                "{}: {}",
                crate::stats::format::minus(&v.variant),
                shares.join(", ")
            ))
        })
        .collect();
    Caption {
        title: stacked_title(report, subject, name),
        description: format!(
            "One stacked bar per variant, each outcome's share of the {}. {}.{}",
            crate::systems::registry::battle_noun(&report.info.system)[1],
            variants.join("; "),
            stand_in_words(report.info.metric_uses_stand_ins(subject, name))
        ),
    }
}

pub(crate) fn frontier_panels<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    report: &RunReport,
    all: &[HeroFrontier],
    advice: Option<&SweepAdvice>,
) -> Result<()> {
    root.fill(&WHITE).map_err(plot_err)?;
    let cap = report.info.max_risk_of_down.unwrap_or(1.0);
    let stand_ins: Vec<String> = (report.info.tables_resting_on_stand_ins().into_iter())
        .map(|t| t.name)
        .collect();
    let root = footnoted(root, &footnotes(&report.info, &stand_ins))?
        .titled(&frontier_title(report), (FONT, 20))
        .map_err(plot_err)?;
    for (area, f) in root.split_evenly((all.len(), 1)).iter().zip(all) {
        frontier_panel(area, f, advice, cap)?;
    }
    root.present().map_err(plot_err)
}

/// One PC's panel: each variant's expected Reputation against its chance
/// of going out, with both intervals, the cap, and labels placed clear of
/// each other.
fn frontier_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    f: &HeroFrontier,
    advice: Option<&SweepAdvice>,
    cap: f64,
) -> Result<()> {
    let (data_max, y_lo, y_hi, pad) = frontier_ranges(f);
    let (x_max, cap_shown) = cap_axis(data_max, cap);
    let off_chart = match cap_shown {
        CapShown::OffChart => format!(" (cap {} off the chart)", cap_percent(cap)),
        CapShown::Drawn | CapShown::None => String::new(),
    };
    let title = format!(
        "{}: expected Reputation against P({}){off_chart}",
        f.pc.clone(),
        f.out_label
    );
    let (title, px) = crate::report::kit::draw::fitted(area, &title, 17, 14);
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, px))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..x_max, (y_lo - pad)..(y_hi + pad))
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .max_light_lines(0)
        .x_desc(format!("P({}) (%)", f.out_label))
        .x_label_formatter(&crate::report::kit::draw::tick)
        .y_desc("expected Reputation")
        // Each tick as short as it reads (8, not 8.0; 7.25), a true minus.
        .y_label_formatter(&crate::report::kit::draw::tick)
        .label_style((FONT, LABEL_SIZE))
        .draw()
        .map_err(plot_err)?;
    if cap_shown == CapShown::Drawn {
        let cap_label = TextStyle::from((FONT, POINT_LABEL_SIZE).into_font())
            .pos(Pos::new(HPos::Right, VPos::Top));
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(100.0 * cap, y_lo - pad), (100.0 * cap, y_hi + pad)],
                PALETTE[5].stroke_width(2),
            )))
            .map_err(plot_err)?;
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((100.0 * cap, y_hi + pad))
                    + Text::new(format!("cap {}", cap_percent(cap)), (-4, 2), cap_label),
            ))
            .map_err(plot_err)?;
    }
    // Joined in sweep order only when that order means something: one
    // numeric setting (risk=-6..6), not a list of policies or a grid.
    if ordered_sweep(&f.points) {
        chart
            .draw_series(LineSeries::new(
                f.points.iter().map(|p| (100.0 * p.p_out, p.reputation)),
                PALETTE[0].stroke_width(2),
            ))
            .map_err(plot_err)?;
    }
    let label = TextStyle::from((FONT, POINT_LABEL_SIZE).into_font())
        .pos(Pos::new(HPos::Left, VPos::Bottom));
    let texts = frontier_labels(f, advice);
    let anchors: Vec<(i32, i32)> = f
        .points
        .iter()
        .map(|p| chart.backend_coord(&(100.0 * p.p_out, p.reputation)))
        .collect();
    let (x_range, y_range) = chart.plotting_area().get_pixel_range();
    // The recommended variants named first, then the two ends, then the
    // rest while there are few (every variant is in the table below).
    let best = |i: usize| f.advised && advice.is_some_and(|a| a.recommends(i));
    let end = |i: usize| i == 0 || i + 1 == f.points.len();
    let mut order: Vec<usize> = (0..f.points.len())
        .filter(|&i| f.points.len() <= MAX_NAMED_POINTS || best(i) || end(i))
        .collect();
    order.sort_by_key(|&i| (!best(i), !end(i), i));
    let offsets = place_labels(
        &anchors,
        &texts,
        &order,
        (x_range.start, y_range.start, x_range.end, y_range.end),
    );
    for (i, p) in f.points.iter().enumerate() {
        let recommended = best(i);
        let colour = if recommended { PALETTE[5] } else { PALETTE[0] };
        let (x, y) = (100.0 * p.p_out, p.reputation);
        chart
            .draw_series([
                PathElement::new(
                    vec![(100.0 * p.p_out_ci.0, y), (100.0 * p.p_out_ci.1, y)],
                    BLACK.stroke_width(1),
                ),
                PathElement::new(
                    vec![(x, p.reputation_ci.0), (x, p.reputation_ci.1)],
                    BLACK.stroke_width(1),
                ),
            ])
            .map_err(plot_err)?;
        chart
            .draw_series(std::iter::once(Circle::new(
                (x, y),
                if recommended { 8 } else { 4 },
                colour.filled(),
            )))
            .map_err(plot_err)?;
        if let Some(offset) = offsets[i] {
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((x, y)) + Text::new(texts[i].clone(), offset, label.clone()),
                ))
                .map_err(plot_err)?;
        }
    }
    Ok(())
}

/// Most points a frontier panel names; beyond, only the ends and the
/// recommended ones.
const MAX_NAMED_POINTS: usize = 24;

/// How a frontier panel shows the cap on the chance of going out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CapShown {
    /// No cap was set.
    None,
    /// A line at the cap, inside the axis.
    Drawn,
    /// The cap lies far beyond the data: said in the caption, not drawn.
    OffChart,
}

/// The P(out) axis's end (percent) and how the cap is shown: the axis
/// stretches to hold a cap up to three times the data's reach, so the line
/// stands at its value; a cap beyond that is named off the chart.
fn cap_axis(data_max: f64, cap: f64) -> (f64, CapShown) {
    if cap >= 1.0 {
        return (data_max, CapShown::None);
    }
    let at = 100.0 * cap;
    if at <= data_max {
        (data_max, CapShown::Drawn)
    } else if at <= 3.0 * data_max {
        (at * 1.1, CapShown::Drawn)
    } else {
        (data_max, CapShown::OffChart)
    }
}

/// A cap as the charts write it: `5%`, `2.5%`.
fn cap_percent(cap: f64) -> String {
    format!("{}%", crate::stats::format::trim_decimal(100.0 * cap, 2))
}

/// Width of the comparison chart's plot, in pixels (before its margins).
const PLOT_WIDTH: u32 = 820;

/// How the comparison chart writes its variant names: level when they fit,
/// else turned upright; when even upright names would touch, every k-th;
/// names longer than [`MAX_LABEL_CHARS`] are cut with `…`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct VariantAxis {
    /// Names turned upright.
    rotated: bool,
    /// Every `step`-th variant is named.
    step: usize,
    /// Height of the label area, in pixels.
    area: u32,
}

/// The longest variant name written under a bar.
const MAX_LABEL_CHARS: usize = 28;

impl VariantAxis {
    /// The layout for `names` across about `width` pixels.
    fn fit(names: &[&str], width: u32) -> VariantAxis {
        // DejaVu Sans at 12 px: about 7 px a character, 14 px a line.
        let char_px = 7.0;
        let line_px = 16.0;
        let n = names.len().max(1) as f64;
        let slot = f64::from(width.saturating_sub(100)) / n;
        let longest = names
            .iter()
            .map(|s| s.chars().count().min(MAX_LABEL_CHARS))
            .max()
            .unwrap_or(0) as f64;
        if longest * char_px + 8.0 <= slot {
            return VariantAxis {
                rotated: false,
                step: 1,
                area: 50,
            };
        }
        VariantAxis {
            rotated: true,
            step: (line_px / slot).ceil().max(1.0) as usize,
            area: (longest * char_px + 24.0).clamp(50.0, 220.0) as u32,
        }
    }

    /// Variant `i`'s label: its name (cut), or nothing between named ones.
    fn label(&self, names: &[&str], i: usize) -> String {
        if !i.is_multiple_of(self.step) {
            return String::new();
        }
        let Some(name) = names.get(i) else {
            return String::new();
        };
        if name.chars().count() > MAX_LABEL_CHARS {
            let cut: String = name.chars().take(MAX_LABEL_CHARS - 1).collect();
            format!("{cut}…")
        } else {
            (*name).to_owned()
        }
    }
}

/// A panel's axes: P(out) from 0 to past the widest interval, in percent;
/// Reputation from the lowest to the highest interval end, and a margin.
fn frontier_ranges(f: &HeroFrontier) -> (f64, f64, f64, f64) {
    let x_max = f
        .points
        .iter()
        .map(|p| 100.0 * p.p_out_ci.1)
        .fold(1.0, f64::max)
        * 1.15;
    let y_lo = f
        .points
        .iter()
        .map(|p| p.reputation_ci.0)
        .fold(f64::INFINITY, f64::min);
    let y_hi = f
        .points
        .iter()
        .map(|p| p.reputation_ci.1)
        .fold(f64::NEG_INFINITY, f64::max);
    let pad = ((y_hi - y_lo) * 0.15).max(0.05);
    (x_max, y_lo, y_hi, pad)
}

/// Each point's label: the variant, marked where it is recommended or tied.
fn frontier_labels(f: &HeroFrontier, advice: Option<&SweepAdvice>) -> Vec<String> {
    f.points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let best = f.advised && advice.is_some_and(|a| a.recommends(i));
            match (best, advice.map(|a| &a.recommendation)) {
                (false, _) => crate::stats::format::minus(&p.variant),
                (true, Some(Recommendation::Tied(_))) => {
                    format!("{} (tied)", crate::stats::format::minus(&p.variant))
                }
                (true, _) => format!("{} (recommended)", crate::stats::format::minus(&p.variant)),
            }
        })
        .collect()
}

/// Point size of the frontier's and the bars' value labels.
const POINT_LABEL_SIZE: i32 = 12;

/// Where each wanted frontier label goes, as a pixel offset of its
/// bottom-left corner from its point: the first of eight places around the
/// point that stays inside `area` (left, top, right, bottom) and clear of
/// the labels already placed. Labels are placed in `order` (the most wanted
/// first); one with no clear place is left out (`None`), so no two labels
/// ever touch (every variant is in the table beside the chart).
pub(crate) fn place_labels(
    anchors: &[(i32, i32)],
    texts: &[String],
    order: &[usize],
    area: (i32, i32, i32, i32),
) -> Vec<Option<(i32, i32)>> {
    // A character of the 12-point font is at most about 7 pixels wide.
    let width = |text: &str| 7 * text.chars().count() as i32;
    let height = POINT_LABEL_SIZE + 2;
    let mut placed: Vec<(i32, i32, i32, i32)> = Vec::new();
    let mut offsets = vec![None; anchors.len()];
    for &i in order {
        let ((x, y), text) = (anchors[i], &texts[i]);
        let w = width(text);
        let candidates = [
            (6, -4),
            (6, 4 + height),
            (-6 - w, -4),
            (-6 - w, 4 + height),
            (6, -4 - height),
            (6, 4 + 2 * height),
            (-6 - w, -4 - height),
            (-6 - w, 4 + 2 * height),
        ];
        let rect = |(dx, dy): (i32, i32)| (x + dx, y + dy - height, x + dx + w, y + dy);
        let clear = |offset: (i32, i32)| {
            let r = rect(offset);
            let inside = r.0 >= area.0 && r.1 >= area.1 && r.2 <= area.2 && r.3 <= area.3;
            inside && placed.iter().all(|p| overlap_area(r, *p) == 0)
        };
        if let Some(best) = candidates.iter().copied().find(|&o| clear(o)) {
            placed.push(rect(best));
            offsets[i] = Some(best);
        }
    }
    offsets
}

/// The area two rectangles (left, top, right, bottom) share.
fn overlap_area(a: (i32, i32, i32, i32), b: (i32, i32, i32, i32)) -> i64 {
    let w = (a.2.min(b.2) - a.0.max(b.0)).max(0);
    let h = (a.3.min(b.3) - a.1.max(b.1)).max(0);
    i64::from(w) * i64::from(h)
}

pub(crate) fn stacked<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    report: &RunReport,
    subject: &str,
    name: &str,
) -> Result<()> {
    root.fill(&WHITE).map_err(plot_err)?;
    let variants: Vec<(String, &Metric<u64>)> = report
        .variants
        .iter()
        .filter_map(|v| {
            find(&v.metrics, subject, name).map(|m| (crate::stats::format::minus(&v.variant), m))
        })
        .collect();
    let Some((_, first)) = variants.first() else {
        return Ok(());
    };
    let categories = first.weights.len();
    let n = variants.len() as i32;
    let stand_ins = report.info.metric_stand_in_tables(subject, name);
    let root = footnoted(root, &footnotes(&report.info, &stand_ins))?;
    let (plot, legend) = root.split_horizontally(820);
    let names: Vec<&str> = variants.iter().map(|v| v.0.as_str()).collect();
    let axis = VariantAxis::fit(&names, PLOT_WIDTH);
    let (title, px) =
        crate::report::kit::draw::fitted(&plot, &stacked_title(report, subject, name), 17, 12);
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, (FONT, px))
        .margin(12)
        .x_label_area_size(axis.area)
        .y_label_area_size(60)
        .build_cartesian_2d(bar_range(n).into_segmented(), 0.0..100.0)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(0)
        .x_labels(bar_range(n).len() + 1)
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) if !axis.rotated => axis.label(&names, *i as usize),
            _ => String::new(),
        })
        .y_desc(format!(
            "share of {} (%)",
            crate::systems::registry::battle_noun(&report.info.system)[1]
        ))
        .y_label_formatter(&crate::report::kit::draw::tick)
        .label_style((FONT, LABEL_SIZE))
        .draw()
        .map_err(plot_err)?;
    if axis.rotated {
        // Upright names reading down from under each named bar.
        let style = TextStyle::from((FONT, POINT_LABEL_SIZE).into_font())
            .transform(FontTransform::Rotate90)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for i in (0..names.len()).step_by(axis.step) {
            let (x, y) = chart.backend_coord(&(SegmentValue::CenterOf(i as i32), 0.0));
            plot.draw(&Text::new(axis.label(&names, i), (x, y + 8), style.clone()))
                .map_err(plot_err)?;
        }
    }
    // Bars keep a gap of a fifth of their slot, at most 4 px a side, so
    // hundreds of variants still draw bars of positive width.
    let (x_pixels, _) = chart.plotting_area().get_pixel_range();
    let slot = f64::from(x_pixels.end - x_pixels.start) / f64::from(n.max(1));
    let gap = (slot / 5.0).floor().clamp(0.0, 4.0) as u32;
    let value_style = TextStyle::from((FONT, POINT_LABEL_SIZE).into_font())
        .pos(Pos::new(HPos::Center, VPos::Center));
    for (i, (_, m)) in variants.iter().enumerate() {
        let total = m.total().max(1) as f64;
        let mut base = 0.0;
        for c in 0..categories {
            let share = 100.0 * m.weights[c] as f64 / total;
            let colour = PALETTE[c % PALETTE.len()];
            let mut rect = Rectangle::new(
                [
                    (SegmentValue::Exact(i as i32), base),
                    (SegmentValue::Exact(i as i32 + 1), base + share),
                ],
                colour.filled(),
            );
            rect.set_margin(0, 0, gap, gap);
            chart.draw_series(std::iter::once(rect)).map_err(plot_err)?;
            // Its share written on the segment where the segment holds it
            // (the description and the tables give every share).
            let label = percent(m.weights[c] as f64 / total);
            let (x, top) = chart.backend_coord(&(SegmentValue::CenterOf(i as i32), base + share));
            let (_, bottom) = chart.backend_coord(&(SegmentValue::CenterOf(i as i32), base));
            let fits = plot
                .estimate_text_size(&label, &value_style)
                .is_ok_and(|(w, h)| {
                    f64::from(w) + 4.0 <= slot - 2.0 * f64::from(gap)
                        && h as i32 + 4 <= bottom - top
                });
            if fits {
                let ink = text_on(colour);
                let style = value_style.clone().color(&ink);
                plot.draw(&Text::new(label, (x, (top + bottom) / 2), style))
                    .map_err(plot_err)?;
            }
            base += share;
        }
    }
    // The legend reads as the stack does: its top category first.
    let style = TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (row, c) in (0..categories).rev().enumerate() {
        let y = 60 + 28 * row as i32;
        legend
            .draw(&Rectangle::new(
                [(10, y - 9), (28, y + 9)],
                PALETTE[c % PALETTE.len()].filled(),
            ))
            .map_err(plot_err)?;
        legend
            .draw(&Text::new(
                crate::stats::format::minus(&crate::report::kit::words::value(
                    &report.info.system,
                    first,
                    c,
                )),
                (36, y),
                style.clone(),
            ))
            .map_err(plot_err)?;
    }
    root.present().map_err(plot_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_line_stands_at_its_value_or_is_named_off_the_chart() {
        // Data reaching 4.1%, cap 5%: the axis grows to hold the line.
        let (x_max, shown) = cap_axis(4.1, 0.05);
        assert_eq!(shown, CapShown::Drawn);
        assert!(x_max > 5.0, "{x_max}");
        // Inside the data: the axis is the data's.
        assert_eq!(cap_axis(8.0, 0.05), (8.0, CapShown::Drawn));
        // Far beyond: not drawn at the edge, said in words.
        assert_eq!(cap_axis(1.2, 0.5), (1.2, CapShown::OffChart));
        assert_eq!(cap_axis(3.0, 1.0), (3.0, CapShown::None));
        assert_eq!(cap_percent(0.05), "5%");
        assert_eq!(cap_percent(0.025), "2.5%");
    }

    fn rects(
        anchors: &[(i32, i32)],
        texts: &[String],
        offsets: &[(i32, i32)],
    ) -> Vec<(i32, i32, i32, i32)> {
        anchors
            .iter()
            .zip(texts)
            .zip(offsets)
            .map(|((&(x, y), t), &(dx, dy))| {
                let w = 7 * t.chars().count() as i32;
                (x + dx, y + dy - POINT_LABEL_SIZE - 2, x + dx + w, y + dy)
            })
            .collect()
    }

    #[test]
    fn frontier_labels_of_a_risk_sweep_do_not_overlap() {
        // Thirteen variants along a rising curve, 14 to 20 pixels apart, as
        // a Risk sweep draws them.
        let anchors: Vec<(i32, i32)> = (0..13).map(|i| (200 + 14 * i, 500 - 20 * i)).collect();
        let texts: Vec<String> = (-6..=6).map(|r| format!("risk={r}")).collect();
        let area = (60, 40, 1200, 560);
        let order: Vec<usize> = (0..13).collect();
        let offsets: Vec<(i32, i32)> = place_labels(&anchors, &texts, &order, area)
            .into_iter()
            .map(|o| o.expect("every label of a risk sweep has a place"))
            .collect();
        let boxes = rects(&anchors, &texts, &offsets);
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.0 >= area.0 && a.1 >= area.1 && a.2 <= area.2 && a.3 <= area.3);
            for b in &boxes[i + 1..] {
                assert_eq!(overlap_area(*a, *b), 0, "{a:?} and {b:?}");
            }
        }
    }

    #[test]
    fn a_label_at_the_right_edge_goes_left() {
        let texts = vec!["a long label".to_owned()];
        let offsets = place_labels(&[(1190, 300)], &texts, &[0], (0, 0, 1200, 600));
        assert!(offsets[0].expect("a place").0 < 0);
    }

    #[test]
    fn labels_that_would_touch_are_left_out_most_wanted_first() {
        // Forty labels on one spot: the first has its place, and no two
        // placed ones touch.
        let anchors = vec![(300, 300); 40];
        let texts: Vec<String> = (0..40).map(|i| format!("variant {i} (tied)")).collect();
        let order: Vec<usize> = (0..40).rev().collect();
        let offsets = place_labels(&anchors, &texts, &order, (0, 0, 1200, 600));
        assert!(offsets[39].is_some(), "the first placed");
        let placed: Vec<usize> = (0..40).filter(|&i| offsets[i].is_some()).collect();
        assert!(placed.len() < 40 && placed.len() >= 4, "{placed:?}");
        let boxes = rects(
            &placed.iter().map(|&i| anchors[i]).collect::<Vec<_>>(),
            &placed.iter().map(|&i| texts[i].clone()).collect::<Vec<_>>(),
            &placed
                .iter()
                .map(|&i| offsets[i].unwrap())
                .collect::<Vec<_>>(),
        );
        for (k, a) in boxes.iter().enumerate() {
            for b in &boxes[k + 1..] {
                assert_eq!(overlap_area(*a, *b), 0);
            }
        }
    }
}

//! Charts as SVG and PNG, drawn with plotters and an embedded DejaVu Sans so
//! they render the same on a machine with no fonts installed.

use std::path::Path;

use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::draw::{FONT, PALETTE, bar_range, draw_both, file_safe, plot_err};
use super::{Export, RunReport};
use crate::stats::{Metric, wilson, z95};

/// Writes `outcomes.{svg,png}` (every categorical metric with 95% whiskers)
/// and `hist_<subject>_<metric>.{svg,png}` for each numeric metric.
pub struct Charts;

impl Export<RunReport> for Charts {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        if report.variants.len() > 1 {
            return super::sweep::draw(report, dir);
        }
        let Some(first) = report.variants.first() else {
            return Ok(Vec::new());
        };
        let title = &report.info.name;
        let trials = report.info.trials.unwrap_or(0);
        let categorical: Vec<&Metric<u64>> =
            first.metrics.iter().filter(|m| !m.is_numeric()).collect();
        let mut written = Vec::new();
        if !categorical.is_empty() {
            let size = (900, 300 * categorical.len() as u32 + 60);
            written.extend(draw_both(
                dir,
                "outcomes",
                size,
                |root| outcome_panels(root, title, trials, &categorical),
                |root| outcome_panels(root, title, trials, &categorical),
            )?);
        }
        for m in first.metrics.iter().filter(|m| m.is_numeric()) {
            let stem = format!("hist_{}_{}", file_safe(&m.subject), file_safe(&m.name));
            written.extend(draw_both(
                dir,
                &stem,
                (900, 420),
                |root| histogram(root, title, m),
                |root| histogram(root, title, m),
            )?);
        }
        Ok(written)
    }
}

/// One bar per value: its probability in percent and a 95% interval.
struct Bar {
    label: String,
    percent: f64,
    low: f64,
    high: f64,
}

fn bars(metric: &Metric<u64>) -> Vec<Bar> {
    let total = metric.total();
    metric
        .reported_bins(|w| w == 0)
        .map(|bin| {
            let count = metric.weights[bin];
            let (lo, hi) = wilson(count, total, z95());
            Bar {
                label: metric.label(bin),
                percent: 100.0 * count as f64 / total.max(1) as f64,
                low: 100.0 * lo,
                high: 100.0 * hi,
            }
        })
        .collect()
}

fn outcome_panels<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    trials: u64,
    metrics: &[&Metric<u64>],
) -> Result<()> {
    root.fill(&WHITE).map_err(plot_err)?;
    let root = root
        .titled(
            &format!(
                "{title}: outcome probabilities ({} battles, 95% intervals)",
                crate::format::thousands(trials)
            ),
            (FONT, 22),
        )
        .map_err(plot_err)?;
    let panels = root.split_evenly((metrics.len(), 1));
    for (i, (panel, metric)) in panels.iter().zip(metrics).enumerate() {
        bar_chart(
            panel,
            &format!("{} / {}", metric.subject, metric.name),
            &bars(metric),
            PALETTE[i % PALETTE.len()],
        )?;
    }
    root.present().map_err(plot_err)
}

fn histogram<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    metric: &Metric<u64>,
) -> Result<()> {
    root.fill(&WHITE).map_err(plot_err)?;
    let caption = match metric.summary() {
        Some(s) => format!(
            "{title}: {} / {} (mean {:.3}, median {}, 95th percentile {})",
            metric.subject, metric.name, s.mean, s.p50, s.p95
        ),
        None => format!("{title}: {} / {}", metric.subject, metric.name),
    };
    bar_chart(&root, &caption, &bars(metric), PALETTE[0])?;
    root.present().map_err(plot_err)
}

/// A vertical bar chart of percentages with interval whiskers; numbers are
/// printed on the bars when there is room.
fn bar_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    bars: &[Bar],
    colour: RGBColor,
) -> Result<()> {
    let n = bars.len().max(1) as i32;
    let label_step = bars.len().div_ceil(20).max(1);
    // Gaps between bars shrink as bars multiply, so a hundred stay visible.
    let gap = match bars.len() {
        0..=16 => 6,
        17..=40 => 2,
        _ => 0,
    };
    let top = bars.iter().map(|b| b.high).fold(0.0, f64::max);
    let y_max = (top * 1.2 + 2.0).min(105.0);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 17))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(bar_range(n).into_segmented(), 0.0..y_max)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(0)
        .x_labels(bar_range(n).len() + 1)
        .x_label_formatter(&|v| match v {
            // Every label up to 20 bars; beyond, every step-th one.
            SegmentValue::CenterOf(i) if (*i as usize).is_multiple_of(label_step) => bars
                .get(*i as usize)
                .map(|b| b.label.clone())
                .unwrap_or_default(),
            _ => String::new(),
        })
        .y_desc("probability (%)")
        .label_style((FONT, 13))
        .draw()
        .map_err(plot_err)?;
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| {
            let i = i as i32;
            let mut rect = Rectangle::new(
                [
                    (SegmentValue::Exact(i), 0.0),
                    (SegmentValue::Exact(i + 1), b.percent),
                ],
                colour.filled(),
            );
            rect.set_margin(0, 0, gap, gap);
            rect
        }))
        .map_err(plot_err)?;
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| {
            let x = || SegmentValue::CenterOf(i as i32);
            PathElement::new(vec![(x(), b.low), (x(), b.high)], BLACK.stroke_width(2))
        }))
        .map_err(plot_err)?;
    if bars.len() <= 16 {
        let style =
            TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
        chart
            .draw_series(bars.iter().enumerate().map(|(i, b)| {
                Text::new(
                    format!("{:.1}%", b.percent),
                    (SegmentValue::CenterOf(i as i32), b.high + y_max * 0.01),
                    style.clone(),
                )
            }))
            .map_err(plot_err)?;
    }
    Ok(())
}

/// The size of one metric's picture in the HTML report.
pub fn metric_size(metric: &Metric<u64>) -> (u32, u32) {
    (820, if metric.is_numeric() { 560 } else { 330 })
}

/// One metric's picture for the HTML report: bars with 95% whiskers, and
/// for numeric metrics the at-most and at-least curves below.
pub fn metric_picture<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    metric: &Metric<u64>,
) -> Result<()> {
    root.fill(&WHITE).map_err(plot_err)?;
    let caption = format!("{title}: {} / {}", metric.subject, metric.name);
    if metric.is_numeric() {
        let (top, bottom) = root.split_vertically(300);
        bar_chart(&top, &caption, &bars(metric), PALETTE[0])?;
        cumulative_chart(&bottom, metric)?;
    } else {
        bar_chart(&root, &caption, &bars(metric), PALETTE[0])?;
    }
    root.present().map_err(plot_err)?;
    Ok(())
}

/// P(value ≤ x) and P(value ≥ x) over the reported range.
fn cumulative_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    metric: &Metric<u64>,
) -> Result<()> {
    let range = metric.reported_bins(|w| w == 0);
    let total = metric.total().max(1) as f64;
    let first = match metric.values {
        crate::stats::Values::Integers { first } => first,
        crate::stats::Values::Categories(_) => 0,
    };
    let xs: Vec<i64> = range.clone().map(|b| first + b as i64).collect();
    let (x_lo, x_hi) = (
        *xs.first().unwrap_or(&0) as f64 - 0.5,
        *xs.last().unwrap_or(&0) as f64 + 0.5,
    );
    let mut below = 0u64;
    let mut at_most = Vec::new();
    let mut at_least = Vec::new();
    for b in range.clone() {
        at_least.push((
            first as f64 + b as f64,
            100.0 * (total - below as f64) / total,
        ));
        below += metric.weights[b];
        at_most.push((first as f64 + b as f64, 100.0 * below as f64 / total));
    }
    let mut chart = ChartBuilder::on(area)
        .caption("at most / at least", (FONT, 15))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(x_lo..x_hi, 0.0..101.0)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .max_light_lines(0)
        .x_desc(metric.name.clone())
        .y_desc("probability (%)")
        .label_style((FONT, 13))
        .draw()
        .map_err(plot_err)?;
    chart
        .draw_series(LineSeries::new(at_most, PALETTE[0].stroke_width(2)))
        .map_err(plot_err)?
        .label("P(value ≤ x)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], PALETTE[0].stroke_width(2)));
    chart
        .draw_series(LineSeries::new(at_least, PALETTE[5].stroke_width(2)))
        .map_err(plot_err)?
        .label("P(value ≥ x)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], PALETTE[5].stroke_width(2)));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font((FONT, 13))
        .draw()
        .map_err(plot_err)?;
    Ok(())
}

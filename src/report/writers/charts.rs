//! A run's charts, one file per metric and fit to publish: a title and
//! axes in words with units, bars with 95% whiskers, a numeric metric's
//! rare tail left off the axis and said in words, SVG with its title and
//! description, PNG at 1× and 2×. Drawn with plotters and an embedded
//! DejaVu Sans, so they render the same on a machine with no fonts.

use std::path::Path;

use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::report::kit::draw::{
    Caption, FONT, LABEL_SIZE, PALETTE, Stems, bar_range, draw_publication, file_safe, plot_err,
};
use crate::report::kit::words;
use crate::report::kit::words::STAND_IN_MARK;
use crate::report::{Export, RunReport};
use crate::stats::format::thousands;
use crate::stats::{Metric, Values, wilson, z95};

/// Writes `outcome_<subject>_<metric>` for each categorical metric and
/// `hist_<subject>_<metric>` for each numeric one: `.svg`, `.png` and
/// `@2x.png`.
pub struct Charts;

/// Pixels kept clear between two value labels over the bars.
const LABEL_GAP: f64 = 4.0;

/// The share of battles a numeric chart may leave off each end of its
/// axis (said in words under the title): its axis spans the 0.01% to
/// 99.99% quantiles, or more.
const TAIL: f64 = 0.0001;

/// A numeric metric keeps its whole range up to this many values.
const FULL_RANGE_VALUES: usize = 20;

impl Export<RunReport> for Charts {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        if report.variants.len() > 1 {
            return crate::report::writers::sweep::draw(report, dir);
        }
        let Some(first) = report.variants.first() else {
            return Ok(Vec::new());
        };
        let mut written = Vec::new();
        for (m, stem) in first.metrics.iter().zip(stems(&first.metrics)) {
            let stand_ins = report
                .info
                .stand_in_tables(&first.variant, &m.subject, &m.name);
            let source = report.info.source_line();
            let picture = Picture::of(
                &report.info.system,
                m,
                (&report.info.name, &source),
                &stand_ins,
            );
            written.extend(draw_publication(
                dir,
                &stem,
                picture.size(),
                &picture.caption(),
                |root| picture.draw(root),
                |root| picture.draw(root),
            )?);
        }
        Ok(written)
    }
}

/// Each metric's chart file, without its extension: `hist_hero_Titus_hp_lost`
/// for a numeric metric, `outcome_side_Megalos_victory` for the others (a
/// name two metrics would share gets `-2`, `-3`...).
pub fn stems(metrics: &[Metric<u64>]) -> Vec<String> {
    let mut stems = Stems::default();
    metrics
        .iter()
        .map(|m| {
            let kind = if m.is_numeric() { "hist" } else { "outcome" };
            stems.claim(format!(
                "{kind}_{}_{}",
                file_safe(&m.subject),
                file_safe(&m.name)
            ))
        })
        .collect()
}

/// One bar: a value's share of the battles in percent, with its 95% interval.
struct Bar {
    label: String,
    /// The value, for a numeric metric.
    value: Option<i64>,
    percent: f64,
    low: f64,
    high: f64,
    /// Its share as the tables write it.
    shown: String,
}

/// A numeric metric's share of battles at or below each value and at or
/// above it: (value, %) each.
struct Steps {
    at_most: Vec<(i64, f64)>,
    at_least: Vec<(i64, f64)>,
}

/// One metric as a reader sees it: what the chart says, what it draws and
/// what it leaves out.
pub struct Picture {
    /// `Megalos — casualties, % of Troop Strength`.
    pub title: String,
    /// Lines under the title: the battle, its size and what the whiskers
    /// are; that it rests on stand-in values, when it does.
    subtitle: Vec<String>,
    /// What the values are, with their unit.
    x_label: String,
    /// What its battles are called, several (`engagements`).
    battles: &'static str,
    bars: Vec<Bar>,
    /// Numeric: the at-most and at-least steps over the drawn values.
    steps: Option<Steps>,
    /// What the axis leaves off, in words.
    pub tail: Option<String>,
    /// What a reader needs to read the values ([`crate::systems::registry::metric_note`]).
    pub note: Option<&'static str>,
    /// The chart in a few sentences: SVG `<desc>`, the report's alt text.
    pub description: String,
    /// Its footnote: what drew it ([`crate::report::RunInfo::source_line`]).
    source: String,
}

impl Picture {
    /// The picture of `metric` from the battle called `battle`, in the
    /// words of `system`; one that rests on tables holding stand-in values
    /// (`stand_ins` names them) says which, its title marked †; `source`
    /// is its footnote.
    pub fn of(
        system: &str,
        metric: &Metric<u64>,
        (battle, source): (&str, &str),
        stand_ins: &[String],
    ) -> Picture {
        let total = metric.total();
        let reported = metric.reported_bins(|w| w == 0);
        let drawn = match metric.values {
            Values::Integers { .. } if reported.len() > FULL_RANGE_VALUES => {
                central(metric, reported.clone())
            }
            _ => reported.clone(),
        };
        let first = match metric.values {
            Values::Integers { first } => Some(first),
            Values::Categories(_) => None,
        };
        let bars: Vec<Bar> = drawn
            .clone()
            .map(|bin| {
                let count = metric.weights[bin];
                let (lo, hi) = wilson(count, total, z95());
                Bar {
                    label: crate::stats::format::minus(&crate::report::kit::words::value(
                        system, metric, bin,
                    )),
                    value: first.map(|f| f + bin as i64),
                    percent: 100.0 * count as f64 / total.max(1) as f64,
                    low: 100.0 * lo,
                    high: 100.0 * hi,
                    shown: crate::report::findings::shown_share(metric, bin)[0].clone(),
                }
            })
            .collect();
        let noun = crate::systems::registry::battle_noun(system);
        let tail = tail_words(metric, reported, drawn.clone(), (total, noun));
        let steps = first.map(|f| {
            let below: u64 = metric.weights[..drawn.start].iter().sum();
            let mut seen = below;
            let mut at_most = Vec::new();
            let mut at_least = Vec::new();
            for bin in drawn.clone() {
                let share = |c: u64| 100.0 * c as f64 / total.max(1) as f64;
                at_least.push((f + bin as i64, share(total - seen)));
                seen += metric.weights[bin];
                at_most.push((f + bin as i64, share(seen)));
            }
            Steps { at_most, at_least }
        });
        let mut title = words::title(system, &metric.subject, &metric.name);
        let mut description = describe(system, metric, &bars, total, tail.as_deref());
        let mut subtitle = vec![format!(
            "{battle} · {} {} · bars: share of {}, whiskers: 95% interval",
            thousands(total),
            noun[1],
            noun[1]
        )];
        let note = crate::systems::registry::metric_note(system, &metric.name);
        if let Some(note) = note {
            subtitle.push(note.to_owned());
            description.push_str(&format!(" {note}."));
        }
        if !stand_ins.is_empty() {
            title.push_str(&format!(" {STAND_IN_MARK}"));
            let words = crate::report::kit::words::rests_on_words(stand_ins);
            description.push_str(&format!(" It {words}."));
            subtitle.push(crate::report::kit::words::rests_on_line(stand_ins));
        }
        Picture {
            subtitle,
            x_label: if first.is_some() {
                words::axis(system, &metric.name)
            } else {
                words::metric(system, &metric.name).0
            },
            battles: noun[1],
            title,
            bars,
            steps,
            tail,
            note,
            description,
            source: source.to_owned(),
        }
    }

    /// The picture's size at 1×.
    pub fn size(&self) -> (u32, u32) {
        let foot = crate::report::kit::draw::footnotes_height(std::slice::from_ref(&self.source));
        (720, foot + if self.steps.is_some() { 620 } else { 400 })
    }

    /// The picture's title and description.
    pub fn caption(&self) -> Caption {
        Caption {
            title: self.title.clone(),
            description: self.description.clone(),
        }
    }

    /// Draws the picture.
    pub fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<()> {
        root.fill(&WHITE).map_err(plot_err)?;
        const HEADING: u32 = 28;
        const LINE: u32 = 20;
        let lines: Vec<(&String, RGBColor)> = self
            .subtitle
            .iter()
            .map(|line| (line, RGBColor(90, 90, 90)))
            .chain(self.tail.iter().map(|tail| (tail, PALETTE[5])))
            .collect();
        let root = crate::report::kit::draw::footnoted(root, std::slice::from_ref(&self.source))?;
        let (head, body) = root.split_vertically(HEADING + LINE * lines.len() as u32 + 14);
        let left =
            |px: u32| TextStyle::from((FONT, px).into_font()).pos(Pos::new(HPos::Left, VPos::Top));
        let x0 = 14;
        let (title, px) = crate::report::kit::draw::fitted(&head, &self.title, 22, x0 as u32);
        head.draw(&Text::new(title, (x0, 8), left(px)))
            .map_err(plot_err)?;
        for (i, (line, colour)) in lines.into_iter().enumerate() {
            let y = 8 + HEADING + LINE * i as u32;
            let (line, px) = crate::report::kit::draw::fitted(&head, line, 15, x0 as u32);
            head.draw(&Text::new(line, (x0, y as i32), left(px).color(&colour)))
                .map_err(plot_err)?;
        }
        match &self.steps {
            Some(steps) => {
                let (top, bottom) = body.split_vertically(body.dim_in_pixel().1 * 11 / 20);
                self.bar_chart(&top)?;
                self.step_chart(&bottom, steps)?;
            }
            None => self.bar_chart(&body)?,
        }
        root.present().map_err(plot_err)
    }

    /// Bars with whiskers; each bar's share printed on it when there is room.
    fn bar_chart<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()> {
        let bars = &self.bars;
        let n = bars.len().max(1) as i32;
        let every = label_every(bars);
        let gap = match bars.len() {
            0..=16 => 6,
            17..=40 => 2,
            _ => 0,
        };
        let top = bars.iter().map(|b| b.high).fold(0.0, f64::max);
        let y_max = (top * 1.15 + 1.0).min(105.0);
        let mut chart = ChartBuilder::on(area)
            .margin(12)
            .x_label_area_size(52)
            .y_label_area_size(64)
            .build_cartesian_2d(bar_range(n).into_segmented(), 0.0..y_max)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(0)
            .x_labels(bar_range(n).len() + 1)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => bars
                    .get(*i as usize)
                    .filter(|b| every(b, *i as usize))
                    .map(|b| b.label.clone())
                    .unwrap_or_default(),
                _ => String::new(),
            })
            .x_desc(self.x_label.clone())
            .y_desc(format!("share of {} (%)", self.battles))
            .y_label_formatter(&crate::report::kit::draw::tick)
            .axis_desc_style((FONT, 16))
            .label_style((FONT, LABEL_SIZE))
            .axis_style(BLACK.stroke_width(1))
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
                    PALETTE[0].filled(),
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
                TextStyle::from((FONT, 15).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
            // Largest share first, a label that would touch one already
            // placed is left out (the table and the description give every
            // value): boxes in pixels, centred over their bars.
            let plot = chart.plotting_area();
            let (width, height) = plot.dim_in_pixel();
            let slot = f64::from(width) / f64::from(n);
            let mut order: Vec<usize> = (0..bars.len()).collect();
            order.sort_by(|&a, &b| bars[b].percent.total_cmp(&bars[a].percent));
            let mut placed: Vec<[f64; 4]> = Vec::new();
            let mut labels = Vec::new();
            for i in order {
                let b = &bars[i];
                let at = b.high + y_max * 0.01;
                let (w, h) = plot
                    .estimate_text_size(&b.shown, &style)
                    .map_err(plot_err)?;
                let (x, bottom) = (
                    slot * (i as f64 + 0.5),
                    f64::from(height) * (1.0 - at / y_max),
                );
                let (w, h) = (f64::from(w) / 2.0 + LABEL_GAP / 2.0, f64::from(h));
                let [left, right, top] = [x - w, x + w, bottom - h];
                let touches =
                    |p: &[f64; 4]| left < p[1] && p[0] < right && top < p[3] && p[2] < bottom;
                if !placed.iter().any(touches) {
                    placed.push([left, right, top, bottom]);
                    labels.push(Text::new(
                        b.shown.clone(),
                        (SegmentValue::CenterOf(i as i32), at),
                        style.clone(),
                    ));
                }
            }
            chart.draw_series(labels).map_err(plot_err)?;
        }
        Ok(())
    }

    /// P(value ≤ x) and P(value ≥ x) as steps, one flat stretch per value,
    /// under the bars they sum.
    fn step_chart<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        Steps { at_most, at_least }: &Steps,
    ) -> Result<()> {
        let (lo, hi) = match (at_most.first(), at_most.last()) {
            (Some(a), Some(b)) => (a.0, b.0),
            _ => return Ok(()),
        };
        let values = (hi - lo + 1) as usize;
        let x_range = lo as f64 - 0.5..hi as f64 + 0.5;
        let mut chart = ChartBuilder::on(area)
            .margin(12)
            .x_label_area_size(52)
            .y_label_area_size(64)
            .build_cartesian_2d(x_range, 0.0..101.0)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .max_light_lines(0)
            // At most one label per whole value, and only on whole values.
            .x_labels(values.min(20))
            .x_label_formatter(&|v| {
                if v.fract() == 0.0 {
                    crate::report::kit::draw::tick(v)
                } else {
                    String::new()
                }
            })
            .x_desc(self.x_label.clone())
            .y_desc(format!("share of {} (%)", self.battles))
            .y_label_formatter(&crate::report::kit::draw::tick)
            .axis_desc_style((FONT, 16))
            .label_style((FONT, LABEL_SIZE))
            .axis_style(BLACK.stroke_width(1))
            .draw()
            .map_err(plot_err)?;
        let stairs = |points: &[(i64, f64)]| -> Vec<(f64, f64)> {
            points
                .iter()
                .flat_map(|&(v, p)| [(v as f64 - 0.5, p), (v as f64 + 0.5, p)])
                .collect()
        };
        for (points, colour, label) in [
            (
                at_most.as_slice(),
                PALETTE[0],
                "share at or below the value",
            ),
            (
                at_least.as_slice(),
                PALETTE[5],
                "share at or above the value",
            ),
        ] {
            chart
                .draw_series(LineSeries::new(stairs(points), colour.stroke_width(2)))
                .map_err(plot_err)?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::MiddleRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .label_font((FONT, LABEL_SIZE))
            .draw()
            .map_err(plot_err)?;
        Ok(())
    }
}

/// Which bars get a label on the axis: every one up to 20; beyond, the
/// values that are multiples of a round step (2, 5, 10, 20, …) for a
/// numeric metric, every k-th for words.
fn label_every(bars: &[Bar]) -> impl Fn(&Bar, usize) -> bool + use<> {
    let n = bars.len();
    let step = [1i64, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000]
        .into_iter()
        .find(|&k| n as i64 / k <= 20)
        .unwrap_or(1000);
    move |bar: &Bar, i: usize| match bar.value {
        Some(v) => v.rem_euclid(step) == 0,
        None => (i as i64).rem_euclid(step) == 0,
    }
}

/// The bins of `reported` a numeric chart draws: without the least values
/// and the greatest that together hold at most [`TAIL`] of the battles at
/// each end, keeping at least [`FULL_RANGE_VALUES`] values; an end is cut
/// only where that leaves off at least a tenth of the values.
fn central(metric: &Metric<u64>, reported: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let allowed = (TAIL * metric.total() as f64).floor() as u64;
    let (mut lo, mut hi) = (reported.start, reported.end);
    let mut cut = 0;
    while hi - lo > FULL_RANGE_VALUES && cut + metric.weights[lo] <= allowed {
        cut += metric.weights[lo];
        lo += 1;
    }
    cut = 0;
    while hi - lo > FULL_RANGE_VALUES && cut + metric.weights[hi - 1] <= allowed {
        cut += metric.weights[hi - 1];
        hi -= 1;
    }
    // An end is left off only where that shortens the axis by a tenth.
    let worth = |kept: usize| kept * 10 >= reported.len();
    let lo = if worth(lo - reported.start) {
        lo
    } else {
        reported.start
    };
    let hi = if worth(reported.end - hi) {
        hi
    } else {
        reported.end
    };
    lo..hi
}

/// What the axis leaves off, in words: `Not drawn: 6 battles in
/// 1,000,000 above 61 (up to 100)`.
fn tail_words(
    metric: &Metric<u64>,
    reported: std::ops::Range<usize>,
    drawn: std::ops::Range<usize>,
    (total, noun): (u64, [&str; 2]),
) -> Option<String> {
    let battles = |n: u64| match n {
        1 => format!("1 {}", noun[0]),
        n => format!("{} {}", thousands(n), noun[1]),
    };
    let mut parts = Vec::new();
    if drawn.start > reported.start {
        let n: u64 = metric.weights[reported.start..drawn.start].iter().sum();
        parts.push(format!(
            "{} below {} (down to {})",
            battles(n),
            metric.label(drawn.start),
            metric.label(reported.start)
        ));
    }
    if drawn.end < reported.end {
        let n: u64 = metric.weights[drawn.end..reported.end].iter().sum();
        parts.push(format!(
            "{} above {} (up to {})",
            battles(n),
            metric.label(drawn.end - 1),
            metric.label(reported.end - 1)
        ));
    }
    (!parts.is_empty()).then(|| format!("Not drawn: {} in {}", parts.join("; "), thousands(total)))
}

/// The chart in words, for a reader who cannot see it.
fn describe(
    system: &str,
    metric: &Metric<u64>,
    bars: &[Bar],
    total: u64,
    tail: Option<&str>,
) -> String {
    // Read aloud as a sentence: `Histogram of casualties for Megalos, in %
    // of Troop Strength, over 20,000 battles`, not the title's dash and comma.
    let (words, unit) = words::metric(system, &metric.name);
    let whom = words::subject_within(system, &metric.subject);
    let unit = unit.map_or_else(String::new, |u| format!(", in {u},"));
    let title = format!("{words} for {whom}{unit}");
    let battles = crate::systems::registry::battle_noun(system)[1];
    let mut text = match metric.summary() {
        Some(s) => format!(
            "Histogram of {title} over {} {battles}: mean {}, median {}, 95th percentile {}",
            thousands(total),
            crate::stats::format::as_known(s.mean, (s.ci_low, s.ci_high)),
            crate::stats::format::minus(&s.p50.to_string()),
            crate::stats::format::minus(&s.p95.to_string())
        ),
        None => {
            let mut shares: Vec<String> = bars
                .iter()
                .take(8)
                .map(|b| format!("{} {}", b.label, b.shown))
                .collect();
            if bars.len() > 8 {
                shares.push(format!("and {} more values", bars.len() - 8));
            }
            format!(
                "Bar chart of {title} over {} {battles}: {}",
                thousands(total),
                shares.join(", ")
            )
        }
    };
    if let (Some(first), Some(last)) = (bars.first(), bars.last())
        && metric.is_numeric()
    {
        text.push_str(&format!("; drawn from {} to {}", first.label, last.label));
    }
    if let Some(tail) = tail {
        text.push_str(&format!(". {tail}"));
    }
    text.push('.');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Value labels over the bars never touch: a 3d6-like law with a tail
    /// of tiny shares keeps its largest share's label and leaves out a
    /// tail label that would overlap its neighbour's (each label's box
    /// taken as 0.64 em a character, the widest digit of its font).
    #[test]
    fn value_labels_never_touch() {
        let weights = [
            139, 420, 761, 1188, 1580, 1815, 1643, 1208, 698, 370, 138, 29, 10, 1,
        ];
        let metric = Metric::integers("side:A", "catastrophe", 3, &weights);
        let picture = Picture::of(
            "gurps",
            &metric,
            ("a battle", "warcrunch 0.1.0 · seed 1"),
            &[],
        );
        let svg =
            crate::report::kit::page::svg_string(picture.size(), &picture.caption(), |root| {
                picture.draw(root)
            })
            .unwrap();
        let attr = |tag: &str, name: &str| -> f64 {
            let at = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            tag[at..].split('"').next().unwrap().parse().unwrap()
        };
        let boxes: Vec<(String, [f64; 4])> = svg
            .split("<text ")
            .skip(1)
            .filter_map(|t| {
                let (tag, rest) = t.split_once('>')?;
                let tag = &format!(" {tag}");
                let text = rest.split('<').next()?.trim().to_owned();
                (text.ends_with('%') && tag.contains("text-anchor=\"middle\"")).then(|| {
                    let (x, y, size) = (attr(tag, "x"), attr(tag, "y"), attr(tag, "font-size"));
                    let half = 0.64 * size * text.chars().count() as f64 / 2.0;
                    (text, [x - half, x + half, y - size, y])
                })
            })
            .collect();
        assert!(boxes.iter().any(|(t, _)| t == "18.15%"), "{boxes:?}");
        for (i, (a, p)) in boxes.iter().enumerate() {
            for (b, q) in &boxes[i + 1..] {
                let apart = p[1] <= q[0] || q[1] <= p[0] || p[3] <= q[2] || q[3] <= p[2];
                assert!(apart, "{a} {p:?} touches {b} {q:?}");
            }
        }
    }

    /// A bar's label is the outcome table's text for the same count, even
    /// where a share computed another way rounds the other way (9,735 of
    /// 100,000 is 9.74%; 100 × 9,735 / 100,000 / 100 reads 9.73%).
    #[test]
    fn every_bar_label_is_the_tables_text_for_its_count() {
        let weights = [9_735, 60_535, 29_730];
        let metric = Metric::categorical("battle", "winner", &["none", "a", "b"], &weights);
        let picture = Picture::of(
            "gurps",
            &metric,
            ("a battle", "warcrunch 0.1.0 · seed 1"),
            &[],
        );
        let labels: Vec<&str> = picture.bars.iter().map(|b| b.shown.as_str()).collect();
        let tables: Vec<String> = (0..weights.len())
            .map(|bin| crate::report::findings::shown_share(&metric, bin)[0].clone())
            .collect();
        assert_eq!(labels, tables);
        assert_eq!(labels[0], "9.74%");
        assert!(
            picture.description.contains("none 9.74%"),
            "{}",
            picture.description
        );
    }
}

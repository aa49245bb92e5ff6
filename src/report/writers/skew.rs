//! Outputs of `warcrunch cards`: the skew tables and the heatmaps.

use std::path::Path;

use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use polars::prelude::Column;

use crate::report::Export;
use crate::report::exporters::csv::{text, write_csv};
use crate::report::findings::deck::{SkewReport, impact_flagged};
use crate::report::kit::draw::{
    Caption, FONT, Grid, PALETTE, draw_grid, draw_publication, mix, plot_err, sequential,
};
use crate::report::kit::page::{svg_document, svg_string};
use crate::stats::format::signed;
use crate::systems::war_cards::deck::{COLUMNS, CardResult, ROWS, row_key};
use crate::systems::war_cards::skew::{GroupSkew, SkewAnalysis};

/// `skew.csv`: one row per deck, card, row, column and cell.
pub struct SkewCsv;
/// `monotonicity.csv`: column steps where lethality goes the wrong way.
pub struct MonotonicityCsv;
/// `cell_anomalies.csv`: cells out of their column's pattern.
pub struct AnomaliesCsv;
/// `run.json` for the analysis.
pub struct SkewJson;
/// `skew_heatmap.{svg,png}`.
pub struct Heatmaps;

/// A deviation from the deck mean (in probability) drawn at full colour.
const FULL_COLOUR_DEVIATION: f64 = 0.10;

const RESULT_NAMES: [&str; 5] = ["miss", "retreat", "hit", "rout", "destroy"];

impl Export<SkewReport> for SkewCsv {
    fn write(&self, report: &SkewReport, dir: &Path) -> Result<Vec<String>> {
        let groups = &report.analysis.groups;
        let mut columns = vec![
            text("scope", groups.iter().map(|g| g.scope.to_owned()).collect()),
            text("key", groups.iter().map(|g| g.key.clone()).collect()),
            Column::new(
                "cells".into(),
                groups.iter().map(GroupSkew::cells).collect::<Vec<_>>(),
            ),
        ];
        for (i, name) in RESULT_NAMES.iter().enumerate() {
            columns.push(Column::new(
                format!("count_{name}").into(),
                groups.iter().map(|g| g.counts[i]).collect::<Vec<_>>(),
            ));
        }
        for (i, name) in RESULT_NAMES.iter().enumerate() {
            columns.push(Column::new(
                format!("p_{name}").into(),
                groups
                    .iter()
                    .map(|g| g.probability(CardResult::ALL[i]))
                    .collect::<Vec<_>>(),
            ));
        }
        // `p_retreat` (F) is among the shares above.
        columns.push(Column::new(
            "p_hurt".into(),
            groups.iter().map(GroupSkew::p_hurt).collect::<Vec<_>>(),
        ));
        columns.push(Column::new(
            "p_decisive".into(),
            groups.iter().map(GroupSkew::p_decisive).collect::<Vec<_>>(),
        ));
        columns.push(Column::new(
            "impact".into(),
            groups.iter().map(|g| g.impact).collect::<Vec<_>>(),
        ));
        columns.push(Column::new(
            "chi_square".into(),
            groups
                .iter()
                .map(|g| g.chi_square.map(|c| c.statistic))
                .collect::<Vec<_>>(),
        ));
        columns.push(Column::new(
            "df".into(),
            groups
                .iter()
                .map(|g| g.chi_square.map(|c| c.df as u32))
                .collect::<Vec<_>>(),
        ));
        // Not "does it differ" (the cells are enumerated, not sampled): how
        // often a deck dealt at random would look at least this uneven.
        columns.push(Column::new(
            "p_random_deck_as_uneven".into(),
            groups
                .iter()
                .map(|g| g.chi_square.map(|c| c.p_value))
                .collect::<Vec<_>>(),
        ));
        write_csv(dir, "skew.csv", columns)
    }
}

impl Export<SkewReport> for MonotonicityCsv {
    fn write(&self, report: &SkewReport, dir: &Path) -> Result<Vec<String>> {
        let b = &report.analysis.breaks;
        write_csv(
            dir,
            "monotonicity.csv",
            vec![
                text("scope", b.iter().map(|x| x.scope.to_owned()).collect()),
                text("key", b.iter().map(|x| x.key.clone()).collect()),
                text("measure", b.iter().map(|x| x.measure.to_owned()).collect()),
                text(
                    "from_column",
                    b.iter()
                        .map(|x| COLUMNS[x.from_column].to_owned())
                        .collect(),
                ),
                text(
                    "to_column",
                    b.iter()
                        .map(|x| COLUMNS[x.from_column + 1].to_owned())
                        .collect(),
                ),
                Column::new(
                    "from_value".into(),
                    b.iter().map(|x| x.from_value).collect::<Vec<_>>(),
                ),
                Column::new(
                    "to_value".into(),
                    b.iter().map(|x| x.to_value).collect::<Vec<_>>(),
                ),
            ],
        )
    }
}

impl Export<SkewReport> for AnomaliesCsv {
    fn write(&self, report: &SkewReport, dir: &Path) -> Result<Vec<String>> {
        let a = &report.analysis.anomalies;
        write_csv(
            dir,
            "cell_anomalies.csv",
            vec![
                text("row", a.iter().map(|x| row_key(x.row)).collect()),
                text(
                    "column",
                    a.iter().map(|x| COLUMNS[x.column].to_owned()).collect(),
                ),
                text("multiset", a.iter().map(|x| x.multiset.clone()).collect()),
                text("pattern", a.iter().map(|x| x.pattern.clone()).collect()),
                Column::new(
                    "rows_with_pattern".into(),
                    a.iter()
                        .map(|x| x.rows_with_pattern as u32)
                        .collect::<Vec<_>>(),
                ),
                text(
                    "difference",
                    a.iter().map(|x| x.difference.clone()).collect(),
                ),
                text("cards", a.iter().map(|x| x.cards_text()).collect()),
            ],
        )
    }
}

impl Export<SkewReport> for SkewJson {
    fn write(&self, report: &SkewReport, dir: &Path) -> Result<Vec<String>> {
        crate::report::exporters::json::write_info(&report.info, dir)
    }
}

impl Export<SkewReport> for Heatmaps {
    fn write(&self, report: &SkewReport, dir: &Path) -> Result<Vec<String>> {
        draw_publication(
            dir,
            "skew_heatmap",
            HEATMAP_SIZE,
            &heatmap_caption(&report.analysis),
            |root| heatmaps(root, &report.analysis),
            |root| heatmaps(root, &report.analysis),
        )
    }
}

/// Width and height of the skew heatmaps, in pixels.
const HEATMAP_SIZE: (u32, u32) = (1500, 1180);

/// Blue below the deck mean, white at it, vermillion above.
fn diverging(delta: f64, scale: f64) -> RGBColor {
    let t = if scale > 0.0 { delta / scale } else { 0.0 };
    if t < 0.0 {
        mix(WHITE, PALETTE[0], -t)
    } else {
        mix(WHITE, PALETTE[5], t)
    }
}

fn result_grid(
    title: &str,
    groups: &[&GroupSkew],
    labels: Vec<String>,
    deck: &GroupSkew,
    by_deviation: bool,
) -> Grid {
    let deviation = |g: &GroupSkew, r: CardResult| g.probability(r) - deck.probability(r);
    // One fixed scale for every panel, so small wobbles stay pale.
    let scale = groups
        .iter()
        .flat_map(|g| CardResult::ALL.map(|r| deviation(g, r).abs()))
        .fold(FULL_COLOUR_DEVIATION, f64::max);
    Grid {
        title: title.to_owned(),
        row_labels: groups
            .iter()
            .zip(labels)
            .map(|(g, label)| match g.impact {
                Some(impact) => (
                    format!("{label}  impact {} pt", signed(100.0 * impact, 2, true)),
                    impact_flagged(impact),
                ),
                None => (label, false),
            })
            .collect(),
        column_labels: CardResult::SYMBOLS.iter().map(|s| s.to_string()).collect(),
        cells: groups
            .iter()
            .map(|g| {
                CardResult::ALL
                    .iter()
                    .map(|&r| {
                        let colour = if by_deviation {
                            diverging(deviation(g, r), scale)
                        } else {
                            sequential(g.probability(r))
                        };
                        (format!("{:.1}%", 100.0 * g.probability(r)), colour, false)
                    })
                    .collect()
            })
            .collect(),
    }
}

/// The picture of `skew_heatmap.svg` as a string, for a page.
pub fn heatmap_svg(a: &SkewAnalysis) -> Result<String> {
    svg_string(HEATMAP_SIZE, &heatmap_caption(a), |root| heatmaps(root, a))
}

/// [`heatmap_svg`] as a file of its own, namespace and all: what an
/// `<img>` shows (the deck designer's).
pub fn heatmap_document(a: &SkewAnalysis) -> Result<String> {
    svg_document(HEATMAP_SIZE, &heatmap_caption(a), |root| heatmaps(root, a))
}

const HEATMAP_TITLE: &str = "Combat Card skew: colour = distance from the deck mean (blue below, orange above; full colour at 10 points); red label = impact of 1 point or more";

/// The heat maps in words: each card's impact, largest first, and how
/// many cells and column steps are out of line.
fn heatmap_caption(a: &SkewAnalysis) -> Caption {
    let cards: Vec<String> = a
        .cards_by_impact()
        .iter()
        .filter_map(|g| {
            let impact = g.impact?;
            let star = if impact_flagged(impact) {
                " (flagged)"
            } else {
                ""
            };
            Some(format!(
                "card {} {} pt{star}",
                g.key,
                signed(100.0 * impact, 2, true)
            ))
        })
        .collect();
    Caption {
        title: HEATMAP_TITLE.to_owned(),
        description: format!(
            "Grids of each card, row and column's share of every result against the deck's. \
             Impact of drawing each card on the drawer's chance to win, largest first: {}. \
             {} cells break their column's pattern; {} column steps go the wrong way.",
            cards.join(", "),
            a.anomalies.len(),
            a.breaks.len()
        ),
    }
}

fn heatmaps<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, a: &SkewAnalysis) -> Result<()> {
    root.fill(&WHITE).map_err(plot_err)?;
    let root = root.titled(HEATMAP_TITLE, (FONT, 20)).map_err(plot_err)?;
    let deck = a.scope("deck").next().expect("deck group");
    let cards: Vec<&GroupSkew> = a.scope("card").collect();
    let rows: Vec<&GroupSkew> = a.scope("row").collect();
    let columns: Vec<&GroupSkew> = a.scope("column").collect();
    let cells: Vec<&GroupSkew> = a.scope("cell").collect();
    let grids = [
        result_grid(
            "Cards × results",
            &cards,
            cards.iter().map(|g| format!("card {}", g.key)).collect(),
            deck,
            true,
        ),
        result_grid(
            "Rows (sign pairs) × results",
            &rows,
            rows.iter().map(|g| g.key.clone()).collect(),
            deck,
            true,
        ),
        result_grid(
            "Columns × results (colour = probability)",
            &columns,
            columns.iter().map(|g| format!("column {}", g.key)).collect(),
            deck,
            false,
        ),
        Grid {
            title: "Cells: chance the defender is hurt (H, R or D); boxed = breaks its column's pattern"
                .to_owned(),
            row_labels: (0..ROWS.len()).map(|r| (row_key(r), false)).collect(),
            column_labels: COLUMNS.iter().map(|c| c.to_string()).collect(),
            cells: (0..ROWS.len())
                .map(|r| {
                    (0..COLUMNS.len())
                        .map(|c| {
                            let g = cells[r * COLUMNS.len() + c];
                            let odd = a.anomalies.iter().any(|x| x.row == r && x.column == c);
                            (format!("{:.0}%", 100.0 * g.p_hurt()), sequential(g.p_hurt()), odd)
                        })
                        .collect()
                })
                .collect(),
        },
    ];
    for (area, grid) in root.split_evenly((2, 2)).iter().zip(&grids) {
        draw_grid(area, grid)?;
    }
    root.present().map_err(plot_err)
}

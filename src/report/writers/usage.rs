//! Table usage (`run --usage`): `usage.csv`, one row per cell of each
//! table (every row of a list the battles read, read or not), and a heat
//! map per table, `usage_<table>.{svg,png}`.

use std::path::Path;

use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use polars::prelude::Column;

use crate::questions::usage::{TableUsage, Usage};
use crate::report::exporters::csv::{text, write_table};
use crate::report::kit::draw::{
    Caption, Grid, draw_grid, draw_publication, file_safe, footnoted, footnotes, footnotes_height,
    sequential,
};
use crate::report::{Export, RunInfo, RunReport};

/// `usage.csv`.
pub struct UsageCsv;

/// `usage_<table>.svg`, `.png` and `@2x.png`.
pub struct UsageMaps;

/// A row's name in the grid: `(keys outside any row)` for the empty row.
fn row_name(row: &str) -> String {
    if row.is_empty() {
        "(settings)".to_owned()
    } else {
        row.to_owned()
    }
}

/// A column's name in the grid: `(row)` for a row read as a whole.
fn column_name(column: &str) -> String {
    if column.is_empty() {
        "(row)".to_owned()
    } else {
        column.to_owned()
    }
}

impl Export<RunReport> for UsageCsv {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        let Some(usage) = &report.usage else {
            return Ok(Vec::new());
        };
        let cells: Vec<(&TableUsage, usize, usize)> = usage
            .tables
            .iter()
            .flat_map(|t| {
                (0..t.rows.len()).flat_map(move |r| (0..t.columns.len()).map(move |c| (t, r, c)))
            })
            .filter(|&(t, r, c)| t.exists[r][c])
            .collect();
        let n = usage.battles.max(1) as f64;
        let counts = |name: &str, f: &dyn Fn(&TableUsage, usize, usize) -> u64| {
            Column::new(
                name.into(),
                cells
                    .iter()
                    .map(|&(t, r, c)| f(t, r, c))
                    .collect::<Vec<u64>>(),
            )
        };
        let share = |name: &str, f: &dyn Fn(&TableUsage, usize, usize) -> u64| {
            Column::new(
                name.into(),
                cells
                    .iter()
                    .map(|&(t, r, c)| f(t, r, c) as f64 / n)
                    .collect::<Vec<f64>>(),
            )
        };
        write_table(
            dir,
            "usage",
            (
                &report.formats,
                &crate::report::exporters::csv::TableMeta::of_report(report),
            ),
            vec![
                text(
                    "table",
                    cells.iter().map(|(t, _, _)| t.table.clone()).collect(),
                ),
                text(
                    "row",
                    cells.iter().map(|(t, r, _)| t.rows[*r].clone()).collect(),
                ),
                text(
                    "column",
                    cells
                        .iter()
                        .map(|(t, _, c)| t.columns[*c].clone())
                        .collect(),
                ),
                counts("reads", &|t, r, c| t.reads[r][c]),
                counts("battles_reading", &|t, r, c| t.battles[r][c]),
                share("reads_per_battle", &|t, r, c| t.reads[r][c]),
                share("share_of_battles", &|t, r, c| t.battles[r][c]),
            ],
        )
    }
}

impl Export<RunReport> for UsageMaps {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        let Some(usage) = &report.usage else {
            return Ok(Vec::new());
        };
        let mut written = Vec::new();
        for t in usage.tables.iter().filter(|t| !t.columns.is_empty()) {
            written.extend(draw_publication(
                dir,
                &format!("usage_{}", file_safe(&t.table)),
                map_size(&report.info, t),
                &map_caption(usage, t),
                |a| heat_map(&a, &report.info, usage, t),
                |a| heat_map(&a, &report.info, usage, t),
            )?);
        }
        Ok(written)
    }
}

/// A table's map: wide enough for its columns, tall enough for its rows
/// and its footnote.
pub fn map_size(info: &RunInfo, t: &TableUsage) -> (u32, u32) {
    let width = 300 + 110 * t.columns.len().max(1) as u32;
    (
        width.clamp(520, 1400),
        110 + 28 * t.rows.len().max(1) as u32 + footnotes_height(&footnotes(info, &[])),
    )
}

fn map_title(usage: &Usage, t: &TableUsage) -> String {
    format!(
        "{}: reads per battle over {} battles (colour: share of battles reading the cell)",
        t.table,
        crate::stats::format::thousands(usage.battles)
    )
}

/// A table's map in words: how many cells, which are read most, how many
/// never.
pub fn map_caption(usage: &Usage, t: &TableUsage) -> Caption {
    let n = usage.battles.max(1) as f64;
    let mut cells: Vec<(String, u64)> = Vec::new();
    for (r, row) in t.rows.iter().enumerate() {
        for (c, column) in t.columns.iter().enumerate() {
            if t.exists[r][c] {
                let name = if column.is_empty() {
                    row_name(row)
                } else {
                    format!("{} {column}", row_name(row))
                };
                cells.push((name, t.reads[r][c]));
            }
        }
    }
    let never = cells.iter().filter(|(_, reads)| *reads == 0).count();
    cells.sort_by_key(|cell| std::cmp::Reverse(cell.1));
    let most: Vec<String> = cells
        .iter()
        .take(5)
        .filter(|(_, reads)| *reads > 0)
        .map(|(name, reads)| format!("{name} {:.3}", *reads as f64 / n))
        .collect();
    Caption {
        title: map_title(usage, t),
        description: format!(
            "A grid of the table's {} cells, each with its reads per battle. Most read: {}. \
             Never read: {never} cells.",
            cells.len(),
            if most.is_empty() {
                "none".to_owned()
            } else {
                most.join(", ")
            }
        ),
    }
}

/// One table's cells, coloured by the share of battles that read them
/// (white: never), each with its reads per battle; grey where a row has
/// no such cell; the run's source under them.
pub fn heat_map<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    info: &RunInfo,
    usage: &Usage,
    t: &TableUsage,
) -> Result<()> {
    area.fill(&WHITE)
        .map_err(crate::report::kit::draw::plot_err)?;
    let area = &footnoted(area.clone(), &footnotes(info, &[]))?;
    let n = usage.battles.max(1) as f64;
    let grid = Grid {
        title: map_title(usage, t),
        row_labels: t.rows.iter().map(|r| (row_name(r), false)).collect(),
        column_labels: t.columns.iter().map(|c| column_name(c)).collect(),
        cells: (0..t.rows.len())
            .map(|r| {
                (0..t.columns.len())
                    .map(|c| {
                        if !t.exists[r][c] {
                            return (String::new(), RGBColor(235, 235, 235), false);
                        }
                        let per_battle = t.reads[r][c] as f64 / n;
                        let text = match t.reads[r][c] {
                            0 => "never".to_owned(),
                            _ if per_battle < 0.001 => format!("{} reads", t.reads[r][c]),
                            _ => format!("{per_battle:.3}"),
                        };
                        (text, sequential(t.battles[r][c] as f64 / n), false)
                    })
                    .collect()
            })
            .collect(),
    };
    draw_grid(area, &grid)
}

//! Table usage: how often battles read each cell of each table, counted
//! by fighting battles by the book (each system's plain reference, the
//! rules die by die) with a [`CellReads`] switched on (the runner's
//! `ByTheBook`). A run that does not
//! ask for usage never fights these battles; the reference's own tests
//! leave the counter off, where noting a read is one test of a flag.

use std::collections::BTreeMap;

use crate::engine::Tally;
use crate::tables::cells::{CellName, CellReads};

/// Reads of every cell over many battles.
#[derive(Debug, Clone, Default)]
pub struct UsageTally {
    /// Reads per cell.
    pub counts: BTreeMap<CellName, u64>,
    /// Battles in which each cell was read at least once.
    pub battles: BTreeMap<CellName, u64>,
}

impl Tally<CellReads> for UsageTally {
    fn record_weighted(&mut self, outcome: &CellReads, weight: u64) {
        for (cell, &n) in outcome.counts() {
            *self.counts.entry(cell.clone()).or_insert(0) += n * weight;
            *self.battles.entry(cell.clone()).or_insert(0) += weight;
        }
    }

    fn merge(&mut self, other: Self) {
        for (cell, n) in other.counts {
            *self.counts.entry(cell).or_insert(0) += n;
        }
        for (cell, n) in other.battles {
            *self.battles.entry(cell).or_insert(0) += n;
        }
    }

    fn for_each_slice(&mut self, mut visit: impl FnMut(&mut [u64])) {
        for n in self.counts.values_mut().chain(self.battles.values_mut()) {
            visit(std::slice::from_mut(n));
        }
    }
}

/// One cell's reads over a run's battles, as `usage.csv` writes it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CellUsage {
    /// The cell.
    #[serde(flatten)]
    pub cell: CellName,
    /// Reads in all.
    pub reads: u64,
    /// Battles that read it at least once.
    pub battles: u64,
}

impl UsageTally {
    /// Every cell read, in table, row and column order.
    pub fn cells(&self) -> Vec<CellUsage> {
        self.counts
            .iter()
            .map(|(cell, &reads)| CellUsage {
                cell: cell.clone(),
                reads,
                battles: self.battles.get(cell).copied().unwrap_or(0),
            })
            .collect()
    }
}

/// A table's reads as a grid: its rows in the file's order (every entry of
/// a list any read names, read or not), and the keys read within them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TableUsage {
    /// The table.
    pub table: String,
    /// Rows, in the file's order (empty: keys outside any row).
    pub rows: Vec<String>,
    /// Keys read within rows, in the file's order (empty: the row as a whole).
    pub columns: Vec<String>,
    /// `[row][column]`: reads.
    pub reads: Vec<Vec<u64>>,
    /// `[row][column]`: battles that read the cell at least once.
    pub battles: Vec<Vec<u64>>,
    /// `[row][column]`: whether the row has that cell (a column read in
    /// any row of the same list or section); the others are not cells.
    pub exists: Vec<Vec<bool>>,
}

/// The list or section a grid row belongs to: `rows` of `rows.D`,
/// `card3` of `card3.sword_shield`, the row itself otherwise.
fn group(row: &str) -> &str {
    row.split_once('.').map_or(row, |(list, _)| list)
}

/// Every table's usage over a run's battles.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Usage {
    /// Battles fought by the book for the counts.
    pub battles: u64,
    /// Each table the scenario reads.
    pub tables: Vec<TableUsage>,
}

impl Usage {
    /// The grids of `tally`'s counts, one per table in `tables` (its name,
    /// text and document as the scenario reads it).
    pub fn of(tally: &UsageTally, battles: u64, tables: &[(String, String, toml::Table)]) -> Usage {
        let tables = tables
            .iter()
            .map(|(name, text, doc)| {
                let mut cells: Vec<CellUsage> = tally
                    .cells()
                    .into_iter()
                    .filter(|c| c.cell.table == name)
                    .collect();
                unread_keys(name, doc, &mut cells);
                let rows = rows_in_order(doc, text, &cells);
                let mut columns: Vec<String> = Vec::new();
                for c in &cells {
                    if !columns.contains(&c.cell.column) {
                        columns.push(c.cell.column.clone());
                    }
                }
                columns.sort_by_key(|c| word_position(text, c));
                let mut reads = vec![vec![0; columns.len()]; rows.len()];
                let mut battles = reads.clone();
                let exists = rows
                    .iter()
                    .map(|r| {
                        columns
                            .iter()
                            .map(|k| {
                                cells
                                    .iter()
                                    .any(|c| c.cell.column == *k && group(&c.cell.row) == group(r))
                            })
                            .collect()
                    })
                    .collect();
                for c in &cells {
                    let r = rows.iter().position(|r| *r == c.cell.row);
                    let k = columns.iter().position(|k| *k == c.cell.column);
                    if let (Some(r), Some(k)) = (r, k) {
                        reads[r][k] = c.reads;
                        battles[r][k] = c.battles;
                    }
                }
                TableUsage {
                    table: name.clone(),
                    rows,
                    columns,
                    reads,
                    battles,
                    exists,
                }
            })
            .collect();
        Usage { battles, tables }
    }
}

/// Keys of a table that are not cells a battle reads: what the file is,
/// its stand-ins, and how the deck orders a row's signs.
const NOT_CELLS: [&str; 4] = ["kind", "stand_ins", crate::tables::orders::KEY, "row_order"];

/// Adds, with no reads, the cells no battle read that the grid must still
/// show: the table's settings outside any row, and every key of a section
/// some read names (`weights`).
fn unread_keys(table: &str, doc: &toml::Table, cells: &mut Vec<CellUsage>) {
    let Some(name) = crate::tables::built_in(table).map(|t| t.name) else {
        return;
    };
    let sections: Vec<String> = cells
        .iter()
        .map(|c| c.cell.row.clone())
        .filter(|row| matches!(doc.get(row), Some(toml::Value::Table(_))))
        .collect();
    let mut keys: Vec<(String, String)> = doc
        .iter()
        .filter(|(k, v)| !NOT_CELLS.contains(&k.as_str()) && !v.is_table() && !v.is_array())
        .map(|(k, _)| (String::new(), k.clone()))
        .collect();
    for section in sections {
        if let Some(toml::Value::Table(inner)) = doc.get(&section) {
            keys.extend(inner.keys().map(|k| (section.clone(), k.clone())));
        }
    }
    for (row, column) in keys {
        if !cells
            .iter()
            .any(|c| c.cell.row == row && c.cell.column == column)
        {
            cells.push(CellUsage {
                cell: CellName {
                    table: name,
                    row,
                    column,
                },
                reads: 0,
                battles: 0,
            });
        }
    }
}

/// The rows of a table's grid: for each list some read names (`rows.D`:
/// the list `rows`), every entry of the list by its label or position, in
/// the file's order; then every other row read, in the order the file
/// writes it.
fn rows_in_order(doc: &toml::Table, text: &str, cells: &[CellUsage]) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    let add = |row: String, rows: &mut Vec<String>| {
        if !rows.contains(&row) {
            rows.push(row);
        }
    };
    let mut lists: Vec<&str> = cells
        .iter()
        .filter_map(|c| c.cell.row.split_once('.').map(|(list, _)| list))
        .filter(|list| matches!(doc.get(*list), Some(toml::Value::Array(_))))
        .collect();
    lists.sort_by_key(|l| word_position(text, l));
    lists.dedup();
    for list in lists {
        if let Some(toml::Value::Array(items)) = doc.get(list) {
            for (i, item) in items.iter().enumerate() {
                let name = crate::tables::toml_path::entry_name(item)
                    .map_or_else(|| i.to_string(), str::to_owned);
                add(format!("{list}.{name}"), &mut rows);
            }
        }
    }
    let mut others: Vec<&str> = cells.iter().map(|c| c.cell.row.as_str()).collect();
    others.sort_by_key(|r| {
        (
            word_position(text, r.split('.').next().unwrap_or(r)),
            natural(r),
        )
    });
    for row in others {
        add(row.to_owned(), &mut rows);
    }
    rows
}

/// Where `word` first stands alone in `text` (not inside a longer key);
/// the end of the text when nowhere.
fn word_position(text: &str, word: &str) -> usize {
    if word.is_empty() {
        return 0;
    }
    let part_of_key = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word)
        .find(|(at, _)| {
            let before = text[..*at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            !before.is_some_and(part_of_key) && !after.is_some_and(part_of_key)
        })
        .map_or(text.len(), |(at, _)| at)
}

/// A key that sorts `card2` before `card10`.
fn natural(text: &str) -> (String, u64, String) {
    let start = text
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(text.len());
    let digits: String = text[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let rest = text[start + digits.len()..].to_owned();
    (text[..start].to_owned(), digits.parse().unwrap_or(0), rest)
}

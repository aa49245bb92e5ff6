//! Table cells: where one is (a sensitivity's move names it) and the
//! reads of each a battle makes (a system notes them while it fights by
//! the book, for `warcrunch tables --usage`).

use std::collections::BTreeMap;

use serde::Serialize;

/// Where a table cell is: its table, its row as the file names it, and
/// the key within the row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// The table's name: `survival`, `battle_chart`, `cards`.
    pub table: String,
    /// The row: `rows.D`, `rows.2`, `card4.sword_banner` (empty for a key
    /// outside any list of rows).
    pub row: String,
    /// The key within the row: `column`, `engaged.damage`, `>=+3`.
    pub column: String,
}

/// A table cell as the file names it: the table, its row (`rows.D`,
/// `rows.2`, `weights`, or empty for a key outside any row) and the key
/// within the row (empty when the row is read as a whole).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct CellName {
    /// The table: `survival`, `battle_chart`.
    pub table: &'static str,
    /// The row.
    pub row: String,
    /// The key within the row.
    pub column: String,
}

/// Reads of table cells, counted when switched on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CellReads {
    counting: bool,
    counts: BTreeMap<CellName, u64>,
}

impl CellReads {
    /// A counter that counts.
    pub fn counting() -> Self {
        CellReads {
            counting: true,
            counts: BTreeMap::new(),
        }
    }

    /// Notes one read of `table`'s cell `column` of the row `row()` names;
    /// `row` is called only when counting.
    #[inline]
    pub fn note(&mut self, table: &'static str, row: impl FnOnce() -> String, column: &str) {
        if self.counting {
            let cell = CellName {
                table,
                row: row(),
                column: column.to_owned(),
            };
            *self.counts.entry(cell).or_insert(0) += 1;
        }
    }

    /// The counts, cell by cell in table, row and column order.
    pub fn counts(&self) -> &BTreeMap<CellName, u64> {
        &self.counts
    }
}

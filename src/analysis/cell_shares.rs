//! Each changed cell's share of a table comparison's differences: the
//! baseline table with one cell of the other set, for every cell the two
//! differ in, fought on the comparison's own battles (paired with the
//! baseline), so each cell's effect alone sits beside the whole
//! difference it is part of.

use anyhow::Result;

use crate::analysis::runner::{Plan, simulate_variants};
use crate::report::exporters::key_outcomes::{KeyOutcome, key_outcomes};
use crate::report::writers::table_compare::CellShare;
use crate::scenario::{self, Edit, Resolved};
use crate::tables::diff::CellDiff;

/// Most cells moved one at a time; beyond it, no shares are written.
pub const MAX_CELLS: usize = 24;

/// The shares of each cell of table `table` in each significant
/// difference of `rows`, for the `baseline` scenario (read with the
/// baseline table) fought on `(trials, seed)`. Empty when no difference
/// is significant, or when there are more than [`MAX_CELLS`] cells.
pub fn cell_shares(
    (baseline, table): (&Resolved, &str),
    cells: &[CellDiff],
    (targets, rows): (&[String], &[KeyOutcome]),
    (trials, seed): (u64, u64),
    plan: &Plan,
) -> Result<Vec<CellShare>> {
    let significant: Vec<&KeyOutcome> = rows.iter().filter(|r| r.significant).collect();
    if significant.is_empty() || cells.len() > MAX_CELLS {
        return Ok(Vec::new());
    }
    // A cell only one table has cannot be set alone in the other.
    let movable: Vec<(&CellDiff, toml::Value)> = cells
        .iter()
        .filter(|c| c.first.is_some())
        .filter_map(|c| c.second.as_deref().and_then(value).map(|v| (c, v)))
        .collect();
    if movable.is_empty() {
        return Ok(Vec::new());
    }
    let mut scenarios = vec![baseline.scenario.clone()];
    let mut names = vec!["baseline".to_owned()];
    for (cell, v) in &movable {
        let at: Vec<String> = std::iter::once("tables".to_owned())
            .chain(std::iter::once(table.to_owned()))
            .chain(cell.cell.split('.').map(str::to_owned))
            .collect();
        let edit = Edit::set(
            format!("--table {table} cell {} alone", cell.cell),
            at,
            v.clone(),
        );
        scenarios.push(baseline.edited(vec![edit])?);
        names.push(cell.cell.clone());
    }
    for s in &mut scenarios {
        s.override_settings(Some(trials), Some(seed))?;
    }
    let named: Vec<(String, &scenario::Scenario)> =
        names.into_iter().zip(scenarios.iter()).collect();
    let asked = crate::analysis::compare::with_out_of_action(targets, &scenarios)?;
    let done = simulate_variants(&named, &asked, plan)?;
    let mut shares = Vec::new();
    for row in significant {
        for ((cell, _), variant) in movable.iter().zip(&done.variants[1..]) {
            let alone = key_outcomes(
                baseline.scenario.battle.system(),
                (&done.variants[0], variant),
                None,
            )
            .into_iter()
            .find(|r| r.subject == row.subject && r.metric == row.metric && r.value == row.value);
            let Some(alone) = alone else { continue };
            let whole = row.difference.0;
            shares.push(CellShare {
                outcome: row.words.clone(),
                subject: row.subject.clone(),
                metric: row.metric.clone(),
                value: row.value.clone(),
                is_probability: row.is_probability,
                cell: cell.cell.clone(),
                first: cell.first.as_deref().map(plain).unwrap_or_default(),
                second: cell.second.as_deref().map(plain).unwrap_or_default(),
                effect: alone.difference,
                share: (whole != 0.0).then(|| alone.difference.0 / whole),
            });
        }
    }
    Ok(shares)
}

/// A cell's value as `tables diff` writes it (TOML), read back.
fn value(written: &str) -> Option<toml::Value> {
    let doc: toml::Table = toml::from_str(&format!("v = {written}")).ok()?;
    doc.get("v").cloned()
}

/// A cell's value as the files write it: a word unquoted (`D`), else as written.
fn plain(written: &str) -> String {
    match value(written) {
        Some(toml::Value::String(s)) => s,
        _ => written.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_as_written_reads_back_as_its_value() {
        assert_eq!(value("\"C\""), Some(toml::Value::String("C".into())));
        assert_eq!(value("-3"), Some(toml::Value::Integer(-3)));
        assert_eq!(value("true"), Some(toml::Value::Boolean(true)));
        assert_eq!(value("not toml at all ="), None);
        assert_eq!(plain("\"C\""), "C");
        assert_eq!(plain("-3"), "-3");
    }
}

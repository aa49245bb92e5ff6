//! A table's `stand_ins`: the paths of its values that are our defaults
//! where the published figure is unknown, checked when the table is read
//! and told in every report.

use anyhow::{Result, bail};

/// Refuses a `stand_ins` entry that names nothing in the table, or that
/// an earlier entry names: each is a path to a key, a row (by label or
/// position) or a cell, as table cells are named (`rows`, `rows.draw`,
/// `rows.ally_defects.own_ts_pct`).
pub fn check(text: &str, doc: &toml::Table, origin: &str) -> Result<()> {
    let Some(toml::Value::Array(entries)) = doc.get("stand_ins") else {
        return Ok(());
    };
    let mut cells = doc.clone();
    cells.remove("stand_ins");
    cells.remove("kind");
    for (i, entry) in entries.iter().enumerate() {
        let Some(path) = entry.as_str() else { continue };
        let steps: Vec<String> = path.split('.').map(str::to_owned).collect();
        let at = || super::Place { origin, text }.at(&format!("stand_ins.{i}"));
        if let Err(e) = crate::tables::toml_path::find(&cells, &steps) {
            bail!(
                "{}: `stand_ins` names `{path}`, which is not in this table: {e:#}",
                at()
            );
        }
        if let Some(j) = entries[..i].iter().position(|e| e.as_str() == Some(path)) {
            bail!(
                "{}: `stand_ins` names `{path}` twice (entries {j} and {i}); list each once",
                at()
            );
        }
    }
    Ok(())
}

/// `paths` as a report tells them: consecutive rows of one list joined
/// into a run (`rows.0`, `rows.1`, `rows.2` read `rows.0–2`), every other
/// path as written, in the order listed.
pub fn runs_of_rows(paths: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut run: Option<(&str, usize, usize)> = None;
    let close = |run: Option<(&str, usize, usize)>, out: &mut Vec<String>| {
        if let Some((list, first, last)) = run {
            out.push(match last - first {
                0 => format!("{list}.{first}"),
                _ => format!("{list}.{first}\u{2013}{last}"),
            });
        }
    };
    for path in paths {
        let row =
            (path.rsplit_once('.')).and_then(|(list, i)| Some((list, i.parse::<usize>().ok()?)));
        match (row, run) {
            (Some((list, i)), Some((l, first, last))) if list == l && i == last + 1 => {
                run = Some((l, first, i));
            }
            (Some((list, i)), _) => {
                close(run.take(), &mut out);
                run = Some((list, i, i));
            }
            (None, _) => {
                close(run.take(), &mut out);
                out.push(path.clone());
            }
        }
    }
    close(run, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn consecutive_rows_read_as_one_run_and_other_paths_as_written() {
        let paths = owned(&[
            "rows.0",
            "rows.1",
            "rows.2",
            "rows.4",
            "rows.6",
            "rows.7",
            "weights",
            "bands.1.a",
        ]);
        assert_eq!(
            runs_of_rows(&paths),
            owned(&[
                "rows.0\u{2013}2",
                "rows.4",
                "rows.6\u{2013}7",
                "weights",
                "bands.1.a"
            ])
        );
    }

    #[test]
    fn rows_of_different_lists_never_join() {
        let paths = owned(&["rows.3", "bands.4", "rows.draw"]);
        assert_eq!(runs_of_rows(&paths), paths);
    }
}

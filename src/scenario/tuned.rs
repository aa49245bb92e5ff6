//! A tune's proposal as files: each scenario with the values found, and
//! each table whose cells changed as a file of its own.

use std::path::Path;

use anyhow::{Context, Result};
use toml::Value;

use super::{Edit, Resolved};
use crate::questions::tune::moves::{changes, shown};
use crate::questions::tune::plan::{TunePlan, tables_changed};

/// The edits that make candidate `at` of the plan's scenario `b` (made
/// after its table options): only what it changes there, so the battle as
/// written stays as written.
pub fn edits<'p>(plan: &'p TunePlan, at: &[Value], b: usize) -> Vec<Edit<'p>> {
    let mut edits: Vec<Edit> = Vec::new();
    for (d, value) in changes(&plan.dimensions, &plan.start, at).filter(|(d, _)| d.present[b]) {
        let (path, value) = (d.path.clone(), value.clone());
        let option = format!("--vary {} (value {})", path.join("."), shown(&value));
        edits.push(Edit::set(option, path, value));
    }
    edits
}

/// A tune's proposal as files, each a name and a text.
pub struct TunedFiles {
    /// Each scenario with the values found: `tuned.toml`, or
    /// `tuned.STEM.toml` each where several are tuned.
    pub scenarios: Vec<(String, String)>,
    /// Each table whose cells changed (`tuned_TABLE.toml`), and its schema
    /// where it is written beside it.
    pub tables: Vec<(String, String)>,
}

/// Candidate `at` of `plan` (its scenarios `resolved`) as files: each
/// scenario file with its values set (and the `--table` files named), and
/// each table it changes cells of as a file of its own: the table the
/// battles read (its file, or the built-in one) with every cell the
/// candidate sets, its layout and comments kept, and `header` (then the
/// cells changed) after its `#:schema` line, which names the schema from
/// the folder `out`; and that schema, when it is to be written beside the
/// file.
pub fn tuned_files(
    resolved: &[Resolved],
    plan: &TunePlan,
    at: &[Value],
    header: &str,
    out: &Path,
) -> Result<TunedFiles> {
    let document = |b: usize| -> Result<String> {
        let doc = resolved[b].edited_document(edits(plan, at, b))?;
        toml::to_string(&doc).context("cannot write the tuned scenario")
    };
    // The text of table `name` as scenario `b` reads it.
    let table_text = |name: &str, b: usize| -> Result<Option<String>> {
        let r = &resolved[b];
        if !r.scenario.battle.tables().iter().any(|t| t.name == name) {
            return Ok(None);
        }
        let doc = r.document()?;
        let (text, _) = crate::tables::text_as_read(&doc, r.files(), &r.tables, name)?;
        Ok(Some(text))
    };
    let names = &plan.names;
    let scenarios = (0..names.len())
        .map(|b| {
            let file = if names.len() == 1 {
                "tuned.toml".to_owned()
            } else {
                format!("tuned.{}.toml", names[b])
            };
            Ok((file, document(b)?))
        })
        .collect::<Result<Vec<_>>>()?;

    let mut files = Vec::new();
    for name in tables_changed(&plan.dimensions, &plan.start, at) {
        // The first scenario that reads it (every one reads the same text).
        let Some(b) =
            (0..resolved.len()).find(|&b| table_text(&name, b).is_ok_and(|t| t.is_some()))
        else {
            continue;
        };
        let text = table_text(&name, b)?.expect("it reads the table");
        let tuned: toml::Table = toml::from_str(&document(b)?)?;
        let set = crate::tables::toml_path::get(
            &tuned,
            &["tables".to_owned(), name.clone(), "set".to_owned()],
        )
        .and_then(Value::as_table)
        .cloned()
        .unwrap_or_default();
        let edits: Vec<(Vec<String>, Value)> = set
            .into_iter()
            .map(|(cell, v)| (cell.split('.').map(str::to_owned).collect(), v))
            .collect();
        let edited = crate::tables::toml_path::set_keeping_layout(&text, &edits)
            .with_context(|| format!("the tuned {name} table"))?;
        let changed: Vec<String> = changes(&plan.dimensions, &plan.start, at)
            .filter(|(d, _)| d.path.get(1).is_some_and(|n| *n == name) && d.path.len() > 2)
            .map(|(d, v)| {
                format!(
                    "#   {}: {} -> {}\n",
                    d.path[2..].join("."),
                    shown(&d.value),
                    shown(v)
                )
            })
            .collect();
        let head = format!("{header}# Cells changed:\n{}", changed.concat());
        let body = match edited.split_once('\n') {
            Some((first, rest)) if first.starts_with("#:schema") => rest,
            _ => &edited,
        };
        // Its `#:schema` line, for where the file will be; the schema
        // is written beside it when the bundled one is not at hand.
        let file = format!("tuned_{name}.toml");
        let entry = super::schema::find(&name)?;
        let placed = super::schema::place(&entry, &out.join(&file), true)?;
        let text = super::schema::with_schema_line(&(head + body), &placed.line);
        files.push((file, text));
        if placed.write.is_some() {
            files.push((entry.file_name(), entry.text()));
        }
    }
    Ok(TunedFiles {
        scenarios,
        tables: files,
    })
}

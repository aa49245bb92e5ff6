//! `warcrunch tables`: list the built-in tables or write them out.

use crate::report::kit::output_dir::write_files_whole;
use anyhow::{Context, Result, bail};

use crate::cli::{TablesAction, TablesArgs};
use crate::report::writers::console::say;
use crate::scenario::schema;
use crate::systems::built_ins;
use crate::tables::BuiltIn;

/// Lists or exports the built-in tables, or compares two.
pub fn run(args: &TablesArgs) -> Result<()> {
    if let Some(TablesAction::Diff { first, second }) = &args.action {
        return diff(first, second);
    }
    let mut all = built_ins();
    let Some(dir) = &args.export else {
        let width = |f: fn(&BuiltIn) -> usize| all.iter().map(f).max().unwrap_or(0);
        let (name, system) = (width(|t| t.name.len()), width(|t| t.system.len()));
        let mut out = format!("{:<name$}  {:<system$}  file\n", "table", "system");
        for t in &all {
            out += &format!(
                "{:<name$}  {:<system$}  scenarios/tables/{}\n",
                t.name, t.system, t.file
            );
        }
        out += "Write them out for editing with: warcrunch tables --export DIR [NAME...]\n";
        return say(&out);
    };
    for wanted in &args.names {
        if !all.iter().any(|t| t.name == wanted) {
            let names: Vec<&str> = all.iter().map(|t| t.name).collect();
            bail!(
                "tables --export: there is no table `{wanted}`; allowed: {}",
                names.join(", ")
            );
        }
    }
    if !args.names.is_empty() {
        all.retain(|t| args.names.iter().any(|n| n == t.name));
    }
    for t in &all {
        let path = dir.join(t.file);
        if path.exists() && !args.force {
            bail!(
                "{} already exists; pass --force to overwrite it",
                path.display()
            );
        }
    }
    // Every table and schema staged first, then moved into place as one
    // set: a full disk leaves none of them.
    let mut files: Vec<(std::path::PathBuf, String)> = Vec::new();
    let mut said = String::new();
    for t in &all {
        let path = dir.join(t.file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        let entry = schema::find(t.name)?;
        let placed = schema::place(&entry, &path, args.force)?;
        files.push((path.clone(), schema::with_schema_line(t.text, &placed.line)));
        said += &format!("wrote {}\n", path.display());
        if let Some(spare) = placed.write
            && !files.iter().any(|(p, _)| *p == spare)
        {
            said += &format!("wrote {} (its schema)\n", spare.display());
            files.push((spare, entry.text()));
        }
    }
    write_files_whole(&files)?;
    say(&said)?;
    say(&format!(
        "Point a scenario at an edited copy with, e.g.:  [tables] {} = \"{}\"\n",
        all[0].name,
        dir.join(all[0].file).display()
    ))
}

/// A table named on the command line: its kind, its cells and where it is
/// from; `builtin` is read once the other's kind is known.
fn read_table(named: &str) -> Result<Option<(String, toml::Table)>> {
    if named == BUILTIN {
        return Ok(None);
    }
    let path = std::path::Path::new(named);
    let text = crate::tables::input_file::read_text(path)
        .map_err(|e| anyhow::anyhow!("tables diff: {named}: {e}"))?;
    let table: toml::Table =
        toml::from_str(&text).map_err(|e| crate::tables::validate::toml_error(named, e))?;
    let kind = table
        .get("kind")
        .and_then(toml::Value::as_str)
        .ok_or_else(|| {
            anyhow::anyhow!("tables diff: {named}: no `kind`; a table file names its kind, e.g. kind = \"survival\"")
        })?
        .to_owned();
    Ok(Some((kind, table)))
}

/// The word for the built-in table in `tables diff`.
const BUILTIN: &str = "builtin";

/// Prints the cells two tables of one kind differ in.
fn diff(first: &str, second: &str) -> Result<()> {
    let (a, b) = (read_table(first)?, read_table(second)?);
    let kind = match (&a, &b) {
        (None, None) => bail!(
            "tables diff: name at least one table file; `builtin` is the built-in table of the other's kind"
        ),
        (Some((x, _)), Some((y, _))) if x != y => bail!(
            "tables diff: {first} is a `{x}` table and {second} a `{y}` table; only tables of one kind compare"
        ),
        (Some((kind, _)), _) | (None, Some((kind, _))) => kind.clone(),
    };
    let builtin = || -> Result<toml::Table> {
        let text = crate::tables::built_in(&kind)
            .ok_or_else(|| anyhow::anyhow!("tables diff: there is no built-in `{kind}` table"))?
            .text;
        Ok(toml::from_str(text)?)
    };
    let a = a.map_or_else(builtin, |(_, t)| Ok(t))?;
    let b = b.map_or_else(builtin, |(_, t)| Ok(t))?;
    let cells = crate::tables::diff::differences(&a, &b);
    if cells.is_empty() {
        return say(&format!(
            "{first} and {second} hold the same `{kind}` table\n"
        ));
    }
    let absent = "(none)".to_owned();
    let width = |f: &dyn Fn(&crate::tables::diff::CellDiff) -> usize| {
        cells.iter().map(f).max().unwrap_or(0)
    };
    let w_cell = width(&|c| c.cell.len()).max(4);
    let w_first = width(&|c| c.first.as_ref().map_or(6, String::len)).max(first.len());
    let mut out = format!("{:<w_cell$}  {:<w_first$}  {second}\n", "cell", first);
    for c in &cells {
        out += &format!(
            "{:<w_cell$}  {:<w_first$}  {}\n",
            c.cell,
            c.first.as_ref().unwrap_or(&absent),
            c.second.as_ref().unwrap_or(&absent)
        );
    }
    let (n, verb) = match cells.len() {
        1 => ("1 cell".to_owned(), "differs"),
        n => (format!("{n} cells"), "differ"),
    };
    out += &format!("{n} of the `{kind}` table {verb}\n");
    say(&out)
}

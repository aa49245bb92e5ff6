//! `warcrunch tables`: list the built-in tables or write them out.

use crate::report::output_dir::write_files_whole;
use anyhow::{Context, Result, bail};

use crate::cli::TablesArgs;
use crate::report::console::say;
use crate::scenario::schema;
use crate::systems::built_ins;
use crate::tables::BuiltIn;

/// Lists or exports the built-in tables.
pub fn run(args: &TablesArgs) -> Result<()> {
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
    for t in &all {
        let path = dir.join(t.file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        let entry = schema::find(t.name)?;
        let placed = schema::place(&entry, &path, args.force)?;
        write_files_whole(&[(path.clone(), schema::with_schema_line(t.text, &placed.line))])?;
        say(&format!("wrote {}\n", path.display()))?;
        if let Some(spare) = &placed.write {
            schema::write(&entry, spare)?;
            say(&format!("wrote {} (its schema)\n", spare.display()))?;
        }
    }
    say(&format!(
        "Point a scenario at an edited copy with, e.g.:  [tables] {} = \"{}\"\n",
        all[0].name,
        dir.join(all[0].file).display()
    ))
}

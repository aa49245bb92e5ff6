//! `warcrunch tables`: list the built-in tables or write them out.

use anyhow::{Context, Result, bail};

use crate::cli::TablesArgs;
use crate::tables::built_ins;

/// Lists or exports the built-in tables.
pub fn run(args: &TablesArgs) -> Result<()> {
    let all = built_ins();
    let Some(dir) = &args.export else {
        for t in &all {
            println!("{:<8} {:<10} scenarios/tables/{}", t.name, t.system, t.file);
        }
        println!("Write them out for editing with: warcrunch tables --export DIR");
        return Ok(());
    };
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
        std::fs::write(&path, t.text)
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    println!(
        "Point a scenario at an edited copy with, e.g.:  [tables] {} = \"{}\"",
        all[0].name,
        dir.join(all[0].file).display()
    );
    Ok(())
}

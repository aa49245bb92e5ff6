//! `warcrunch tables`: list the built-in tables or write them out.

use anyhow::{Context, Result, bail};

use crate::cli::TablesArgs;
use crate::tables::BUILT_INS;

/// Lists or exports the built-in tables.
pub fn run(args: &TablesArgs) -> Result<()> {
    let Some(dir) = &args.export else {
        for t in BUILT_INS {
            println!("{:<8} {:<10} scenarios/tables/{}", t.name, t.system, t.file);
        }
        println!("Write them out for editing with: warcrunch tables --export DIR");
        return Ok(());
    };
    for t in BUILT_INS {
        let path = dir.join(t.file);
        if path.exists() && !args.force {
            bail!(
                "{} already exists; pass --force to overwrite it",
                path.display()
            );
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for t in BUILT_INS {
        let path = dir.join(t.file);
        std::fs::write(&path, t.text)
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    println!(
        "Point a scenario at an edited copy with:  [tables] {} = \"{}\"",
        BUILT_INS[0].name,
        dir.join(BUILT_INS[0].file).display()
    );
    Ok(())
}

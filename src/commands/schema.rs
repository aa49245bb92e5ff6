//! `warcrunch schema`: print or write the JSON Schemas of scenario and
//! table files, or the key reference as Markdown.

use crate::report::kit::output_dir::write_files_whole;
use std::fmt::Write as _;

use anyhow::{Context, Result, bail};

use crate::cli::SchemaArgs;
use crate::report::writers::console::say;
use crate::scenario::schema::{self, Kind};

/// Prints one schema, writes schemas to a folder, prints the Markdown
/// reference, or lists the schemas.
pub fn run(args: &SchemaArgs) -> Result<()> {
    if args.markdown {
        return say(&schema::markdown());
    }
    let chosen = match &args.name {
        Some(name) => vec![schema::find(name)?],
        None if args.out.is_some() => schema::entries(),
        None => return say(&listing()),
    };
    let Some(dir) = &args.out else {
        return say(&chosen[0].text());
    };
    for entry in &chosen {
        let path = dir.join(entry.file_name());
        if path.exists() && !args.force {
            bail!(
                "schema --out: {} already exists; pass --force to overwrite it",
                path.display()
            );
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let files: Vec<(std::path::PathBuf, String)> = chosen
        .iter()
        .map(|entry| (dir.join(entry.file_name()), entry.text()))
        .collect();
    write_files_whole(&files)?;
    for (path, _) in &files {
        say(&format!("wrote {}\n", path.display()))?;
    }
    Ok(())
}

/// The schemas, aligned, and how to use one.
fn listing() -> String {
    let all = schema::entries();
    let width = all.iter().map(|e| e.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for kind in [Kind::Scenario, Kind::Table] {
        out.push_str(match kind {
            Kind::Scenario => "scenario files:\n",
            Kind::Table => "table files:\n",
        });
        for e in all.iter().filter(|e| e.kind == kind) {
            let _ = writeln!(out, "  {:<width$}  {}", e.name, e.title);
        }
    }
    out.push_str(
        "Print one with `warcrunch schema NAME`, write them all with `warcrunch schema --out DIR`;\n\
         an editor with a TOML language server reads `#:schema PATH` on a file's first line.\n",
    );
    out
}

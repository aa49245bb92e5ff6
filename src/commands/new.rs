//! `warcrunch new`: a commented starter scenario that passes `check` as written.

use crate::report::kit::output_dir::write_files_whole;
use std::path::PathBuf;

use crate::cli::NewArgs;
use crate::report::writers::console::say;
use crate::scenario::schema;
use anyhow::{Result, bail};

/// Writes the starter where asked, never over a file unless `--force`.
pub fn run(args: &NewArgs) -> Result<()> {
    let name = args.system.as_str();
    let starter = crate::systems::registry::starter(name).ok_or_else(|| {
        anyhow::anyhow!(
            "{name}: no such system; allowed: {}",
            crate::systems::SYSTEMS.join(", ")
        )
    })?;
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("my_{name}.toml")));
    if path.exists() && !args.force {
        bail!(
            "--out {}: the file exists; choose another name or pass --force to replace it",
            path.display()
        );
    }
    let schema = schema::find(name)?;
    let placed = schema::place(&schema, &path, args.force)?;
    let text = format!("{}\n{}", placed.line, starter);
    // The scenario and its schema move into place as one set: a full disk
    // leaves neither.
    let mut files = vec![(path.clone(), text)];
    if let Some(spare) = &placed.write {
        files.push((spare.clone(), schema.text()));
    }
    write_files_whole(&files)?;
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    let mut said = format!(
        "Wrote {p}, {article} {name} scenario to edit. Check it with `warcrunch check {p}`, run it with `warcrunch run {p}`.\n",
        p = path.display()
    );
    if let Some(spare) = &placed.write {
        said += &format!(
            "Wrote {}, which its first line names, so an editor with a TOML language server completes and checks its keys.\n",
            spare.display()
        );
    }
    say(&said)
}

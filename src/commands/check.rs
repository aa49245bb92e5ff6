//! `warcrunch check`: validate a scenario and print it as it will run, or
//! check table files on their own.

use std::fmt::Write as _;

use anyhow::Result;

use crate::cli::CheckArgs;
use crate::report::writers::console::say;
use crate::scenario::{Resolved, parse_table_override};

/// Loads the scenario (with any `--table`) and prints the resolved
/// settings; or, with no scenario, checks each `--table` on its own.
pub fn run(args: &CheckArgs) -> Result<()> {
    let overrides = args
        .table
        .iter()
        .map(|t| parse_table_override(t))
        .collect::<Result<Vec<_>>>()?;
    let Some(path) = &args.scenario else {
        let mut out = String::new();
        for table in &overrides {
            out.push_str(&check_table(table)?);
        }
        return say(&out);
    };
    let resolved = Resolved::read(path, &args.table)?;
    let s = &resolved.scenario;
    let mut out = format!(
        "{}: valid\nname: {}\nsystem: {}\ntrials: {}\nseed: {}\n",
        path.display(),
        s.name,
        s.battle.system(),
        s.trials,
        s.seed
    );
    out.push_str(&s.battle.describe());
    for t in s.battle.tables() {
        let stand_ins = if t.stand_ins.is_empty() {
            "none".to_owned()
        } else {
            t.stand_ins.join(", ")
        };
        let _ = writeln!(
            out,
            "table {}: {} (stand-ins: {stand_ins})",
            t.name, t.source
        );
        let text = (t.text.as_deref())
            .or_else(|| crate::tables::built_in(&t.name).map(|b| b.text))
            .unwrap_or_default();
        for broken in crate::tables::orders::breaks(text) {
            let _ = writeln!(
                out,
                "warning: table {}: out of its declared order: {broken}",
                t.name
            );
        }
    }
    for rule in s.battle.stand_in_rules() {
        let _ = writeln!(out, "stand-in rule: {rule}");
    }
    for (name, file) in &overrides {
        if !s.battle.reads_table(name) {
            let _ = writeln!(
                out,
                "note: --table {name}={file}: no battle of this scenario reads the `{name}` table, so it changes nothing here"
            );
        }
    }
    for note in s.battle.check_notes() {
        let _ = writeln!(out, "note: {note}");
    }
    say(&out)
}

/// Checks one table file on its own (see [`crate::scenario::bundled::check_table`]).
fn check_table((name, file): &(String, String)) -> Result<String> {
    let stand_ins = crate::scenario::bundled::check_table(name, file)?;
    let stand_ins = if stand_ins.is_empty() {
        "none".to_owned()
    } else {
        stand_ins.join(", ")
    };
    let mut said = format!("{file}: a valid `{name}` table (stand-ins: {stand_ins})\n");
    let text = std::fs::read_to_string(file).unwrap_or_default();
    for broken in crate::tables::orders::breaks(&text) {
        let _ = writeln!(said, "warning: {file}: out of its declared order: {broken}");
    }
    Ok(said)
}

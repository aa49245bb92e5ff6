//! `warcrunch check`: validate a scenario and print it as it will run, or
//! check table files on their own.

use std::fmt::Write as _;

use anyhow::{Result, anyhow};
use clap::ValueEnum;

use crate::cli::{CheckArgs, SystemName};
use crate::report::console::say;
use crate::scenario::{self, Edit, parse_table_override};
use crate::tables::built_ins;

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
    let s = scenario::load_with_tables(path, &overrides)?;
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
    }
    for rule in s.battle.stand_in_rules() {
        let _ = writeln!(out, "stand-in rule: {rule}");
    }
    say(&out)
}

/// Checks one table file on its own: read as its system's starter battle
/// would read it, with every check a scenario's table gets.
fn check_table((name, file): &(String, String)) -> Result<String> {
    let all = built_ins();
    let builtin = all.iter().find(|t| t.name == *name).ok_or_else(|| {
        anyhow!(
            "--table {name}={file}: no table is named `{name}`; allowed: {}",
            all.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
        )
    })?;
    let system = SystemName::from_str(builtin.system, false)
        .map_err(|e| anyhow!("the system of table `{name}`: {e}"))?;
    let starter = super::new::starter(system);
    let battle = std::path::Path::new(file).with_file_name("starter.toml");
    let s = scenario::load_edited(
        &battle,
        starter,
        &[Edit::table(&(name.clone(), file.clone()))],
    )?;
    let used = s
        .battle
        .tables()
        .iter()
        .find(|t| t.name == *name)
        .expect("the battle reads the table it was given");
    let stand_ins = if used.stand_ins.is_empty() {
        "none".to_owned()
    } else {
        used.stand_ins.join(", ")
    };
    Ok(format!(
        "{file}: a valid `{name}` table (stand-ins: {stand_ins})\n"
    ))
}

//! `warcrunch compare`: the command line as a [`CompareRequest`] (or, with
//! `--table NAME=A,B`, a [`TableCompareRequest`]), what changed printed.

use anyhow::{Result, bail};

use crate::analysis::batch::scenario_files;
use crate::analysis::compare::{CompareRequest, compare, scenario_tables};
use crate::analysis::table_compare::{TableCompareRequest, compare_tables};
use crate::cli::CompareArgs;
use crate::report::ReportKind;
use crate::report::writers::console::say;
use crate::scenario::Resolved;

/// Loads every scenario, runs them alike, writes the report and prints what changed.
pub fn run(args: &CompareArgs) -> Result<()> {
    let sim = &args.sim;
    let to = super::destination(&args.out, &args.sim);
    // Folders as `run` takes them: every scenario under them, table files
    // left out with a note; a file given twice stays twice (a baseline
    // against itself with another table).
    let mut scenarios = Vec::new();
    for input in &args.scenarios {
        if !input.is_dir() {
            scenarios.push(input.clone());
            continue;
        }
        let (found, skipped) = scenario_files(std::slice::from_ref(input))?;
        scenarios.extend(found);
        if !sim.quiet {
            for s in &skipped {
                eprintln!("left out {}: {}", s.path.display(), s.reason);
            }
        }
    }
    let pairs: Vec<_> = sim
        .tables
        .iter()
        .filter_map(|t| TableCompareRequest::parse_pair(t))
        .collect();
    if let Some((table, files)) = pairs.first() {
        if sim.tables.len() > 1 {
            bail!(
                "--table {table}={},{}: a comparison of two tables takes that one --table only",
                files[0],
                files[1]
            );
        }
        if sim.shard.is_some() {
            bail!("--shard: a comparison of two tables runs whole; run it without --shard");
        }
        if !args.names.is_empty() {
            bail!(
                "--name: a comparison of two tables names its two sides after the table files ({} and {}); leave --name out",
                files[0],
                files[1]
            );
        }
        let resolved = (scenarios.iter())
            .map(|path| Resolved::read(path, &[]))
            .collect::<Result<Vec<_>>>()?;
        let request = TableCompareRequest {
            table: table.clone(),
            files: files.clone(),
            trials: sim.trials,
            seed: sim.seed,
            targets: args.targets.clone(),
            min_effect: args.min_effect,
        };
        let answer = compare_tables(&resolved, &request, &sim.plan(), &to)?;
        let mut text = crate::report::writers::table_compare::console(&answer.comparison);
        text.push_str(&crate::report::writers::console::wrote(
            &answer.written.folder,
            &answer.written.files,
        ));
        return say(&text);
    }
    let tables = scenario_tables(&sim.tables, scenarios.len())?;
    let resolved = (scenarios.iter().zip(&tables))
        .map(|(path, tables)| Resolved::read(path, tables))
        .collect::<Result<Vec<_>>>()?;
    let request = CompareRequest {
        trials: sim.trials,
        targets: args.targets.clone(),
        names: args.names.clone(),
        seed: sim.seed,
        min_effect: args.min_effect,
    };
    let answer = compare(&resolved, &request, &sim.plan(), &to)?;
    say(&answer.stored.summary(ReportKind::Compare, &answer.report))
}

//! `warcrunch check`: validate a scenario and print it as it will run.

use std::fmt::Write as _;

use anyhow::Result;

use crate::report::console::say;

use crate::cli::CheckArgs;
use crate::scenario;

/// Loads the scenario and prints the resolved settings.
pub fn run(args: &CheckArgs) -> Result<()> {
    let s = scenario::load(&args.scenario)?;
    let mut out = format!(
        "{}: valid\nname: {}\nsystem: {}\ntrials: {}\nseed: {}\n",
        args.scenario.display(),
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

//! `warcrunch check`: validate a scenario and print it as it will run.

use anyhow::Result;

use crate::cli::CheckArgs;
use crate::scenario::{self, Battle};

/// Loads the scenario and prints the resolved settings.
pub fn run(args: &CheckArgs) -> Result<()> {
    let s = scenario::load(&args.scenario)?;
    println!("{}: valid", args.scenario.display());
    println!("name: {}", s.name);
    println!("system: {}", s.battle.system());
    println!("trials: {}", s.trials);
    println!("seed: {}", s.seed);
    match &s.battle {
        Battle::WarCards(w) => print!("{}", w.describe()),
    }
    for t in s.battle.tables() {
        let stand_ins = if t.stand_ins.is_empty() {
            "none".to_owned()
        } else {
            t.stand_ins.join(", ")
        };
        println!("table {}: {} (stand-ins: {stand_ins})", t.name, t.source);
    }
    for rule in s.battle.stand_in_rules() {
        println!("stand-in rule: {rule}");
    }
    Ok(())
}

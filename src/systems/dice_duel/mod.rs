//! A dice duel, the smallest battle system: two champions each roll the
//! duel die (its faces a table) and add their bonus; the higher total
//! wins, a tie is rolled again, and ties up to `max_rolls` make a draw.
//! It exists to keep "a new system is a new folder" true: it is compiled
//! only in tests, registered by one line of `registry.rs`, and its files
//! lie where a shipped system's would, under `tests/dice_duel/`.

mod exact;
mod reference;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;
use std::ops::RangeInclusive;

use anyhow::{Result, anyhow};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::tables::TableFiles;
use crate::engine::histograms::{Hist, Histograms};
use crate::engine::stream::BattleStream;
use crate::engine::{System, Tally};
use crate::stats::{Metric, MetricRole};
use crate::systems::contract::{BattleSystem, Layout};
use crate::tables::cells::CellReads;
use crate::tables::validate::{CrossKeyRule, Header, check_two_sides};
use crate::tables::{TableSource, TableUse, built_in_text, load_text, parse_table};

/// A champion's bonus, added to every roll.
pub const BONUS: RangeInclusive<i64> = -3..=3;
/// The rolls a duel may take before it is a draw.
pub const MAX_ROLLS: RangeInclusive<i64> = 1..=10;
/// A face of the duel die.
pub const FACE: RangeInclusive<i64> = 0..=20;

/// A dice-duel scenario file, as written.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Dice-duel scenario")]
pub struct ScenarioFile {
    /// Names the rules: "dice_duel".
    #[serde(rename = "system")]
    #[schemars(extend("const" = "dice_duel"))]
    _system: String,
    /// The duel's display name.
    name: String,
    /// Battles to run (default 1,000,000).
    #[schemars(range(min = 1, max = crate::engine::MAX_TRIALS))]
    trials: Option<i64>,
    /// Seed of the random streams (default 1).
    seed: Option<u64>,
    /// The two champions.
    #[schemars(length(min = 2, max = 2))]
    champions: Vec<Champion>,
    /// Rolls before a duel of ties is a draw.
    #[schemars(range(min = *MAX_ROLLS.start(), max = *MAX_ROLLS.end()))]
    max_rolls: i64,
    /// Tuned tables replacing the built-in one.
    #[serde(default)]
    tables: TablesSection,
}

/// One champion.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Champion {
    /// The champion's name, unique in the duel.
    pub name: String,
    /// Added to each of the champion's rolls.
    #[serde(default)]
    #[schemars(range(min = *BONUS.start(), max = *BONUS.end()))]
    pub bonus: i64,
}

/// The `[tables]` section.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TablesSection {
    /// A tuned duel die: a file relative to the scenario, or the die with faces set.
    #[schemars(schema_with = "crate::tables::validate::table_source_schema")]
    duel_die: Option<TableSource>,
}

/// The duel die's table file.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Dice-duel table: duel_die")]
pub struct DieFile {
    /// Which table this file is: `duel_die`.
    #[schemars(extend("const" = "duel_die"))]
    pub kind: String,
    /// Keys of this file whose published value is unknown (`faces`).
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// The die's faces, each as likely.
    #[schemars(length(min = 2, max = 12))]
    faces: Vec<FaceRow>,
}

/// One face of the duel die.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FaceRow {
    /// The face's name, unique on the die (`one`).
    label: String,
    /// What the face adds to a roll.
    #[schemars(range(min = *FACE.start(), max = *FACE.end()))]
    value: i64,
}

/// A validated duel.
#[derive(Debug, Clone)]
pub struct DiceDuel {
    champions: [Champion; 2],
    max_rolls: u32,
    /// The die's faces, in the table's order, and their labels.
    faces: Vec<i64>,
    labels: Vec<String>,
    tables: Vec<TableUse>,
}

/// One duel's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DuelOutcome {
    /// 0 or 1: the champion who won; 2: a draw.
    pub winner: u8,
    /// Rolls taken, from 1.
    pub rolls: u32,
}

impl DiceDuel {
    /// The champions' names.
    fn names(&self) -> [&str; 2] {
        [&self.champions[0].name, &self.champions[1].name]
    }
}

/// The duel's histograms, each declared once.
#[derive(Debug, Clone, PartialEq)]
pub struct DuelTally {
    hists: Histograms<u64>,
    winner: Hist,
    rolls: Hist,
}

impl DuelTally {
    /// Each champion's victory (the second's the first's turned round) and
    /// the rolls taken.
    fn declare<W: crate::stats::Weight>(duel: &DiceDuel) -> (Histograms<W>, Hist, Hist) {
        let mut h = Histograms::default();
        let [first, second] = duel.names();
        let labels = ["won", "lost", "draw"];
        let role = |side: &str| MetricRole::Victory {
            side: side.to_owned(),
        };
        let subject = |name: &str| format!("side:{name}");
        let winner = h.categorical(&subject(first), "victory", &labels, role(first));
        h.turned((&subject(second), "victory"), labels, role(second), winner);
        let bins = duel.max_rolls as usize;
        let rolls = h.integers("battle", "rolls", 1, bins, MetricRole::Detail);
        (h, winner, rolls)
    }
}

impl Tally<DuelOutcome> for DuelTally {
    #[inline]
    fn record_weighted(&mut self, o: &DuelOutcome, weight: u64) {
        self.hists.add(self.winner, usize::from(o.winner), weight);
        self.hists.add(self.rolls, o.rolls as usize - 1, weight);
    }

    fn for_each_slice(&mut self, mut visit: impl FnMut(&mut [u64])) {
        visit(self.hists.counts_mut());
    }

    fn counted_once_each(&self) -> bool {
        self.hists.counted_once_each()
    }
}

impl System for DiceDuel {
    type Outcome = DuelOutcome;
    type Tally = DuelTally;

    fn new_tally(&self) -> DuelTally {
        let (hists, winner, rolls) = DuelTally::declare(self);
        DuelTally {
            hists,
            winner,
            rolls,
        }
    }

    /// Roll `r` of champion `c` reads number `2r + c` of the battle's
    /// window, by the inverse of the die's law (the `k`-th face of `n` for
    /// the `k`-th `n`-th of the unit interval).
    #[inline]
    fn simulate(&self, rng: &mut BattleStream) -> DuelOutcome {
        let decisions = rng.decisions();
        let n = self.faces.len() as u64;
        let roll = |address: u32, c: usize| {
            let face = ((decisions.number(address) >> 32) * n) >> 32;
            self.faces[face as usize] + self.champions[c].bonus
        };
        for r in 0..self.max_rolls {
            let (a, b) = (roll(2 * r, 0), roll(2 * r + 1, 1));
            if a != b {
                return DuelOutcome {
                    winner: u8::from(b > a),
                    rolls: r + 1,
                };
            }
        }
        DuelOutcome {
            winner: 2,
            rolls: self.max_rolls,
        }
    }
}

impl BattleSystem for DiceDuel {
    const NAME: &'static str = "dice_duel";
    const TITLE: &'static str = "dice duel";
    const STARTER: &'static str = include_str!("starter.toml");
    const CHECK_RULES: &'static [CrossKeyRule] = &[
        CrossKeyRule {
            refuses: "two champions of one name",
            says: "names must differ",
        },
    ];

    fn metric_words(metric: &str) -> Option<(&'static str, Option<&'static str>)> {
        Some(match metric {
            "victory" => ("victory", None),
            "rolls" => ("rolls taken", Some("rolls")),
            _ => return None,
        })
    }

    fn example_questions(doc: &serde_json::Value) -> serde_json::Value {
        let first = doc["champions"][0]["name"].as_str().unwrap_or("first");
        serde_json::json!({
            "sweep": { "set": ["max_rolls=1..5"] },
            "solve": {
                "vary": "champions.0.bonus=-3..3",
                "target": format!("side:{first}/victory=won"),
                "goal": { "at_least": 0.5 }
            },
            "sensitivity": { "target": format!("side:{first}/victory=won") }
        })
    }

    fn from_scenario(text: &str, origin: &str, files: &TableFiles) -> Result<(Header, DiceDuel)> {
        let doc: toml::Table =
            toml::from_str(text).map_err(|e| crate::tables::validate::toml_error(origin, e))?;
        crate::tables::ranges::check::<ScenarioFile>(text, &doc, (origin, true))?;
        let file: ScenarioFile =
            toml::from_str(text).map_err(|e| crate::tables::validate::toml_error(origin, e))?;
        let names: Vec<&str> = file.champions.iter().map(|c| c.name.as_str()).collect();
        check_two_sides(origin, &names)?;
        let builtin = crate::tables::built_in("duel_die").expect("the duel die is built in");
        let (die_text, source) = load_text(
            built_in_text("duel_die"),
            file.tables.duel_die.as_ref(),
            files,
        )
        .map_err(|e| anyhow!("{origin}: [tables] duel_die: {e:#}"))?;
        let die_origin = crate::tables::origin(&source, builtin.file);
        let die: DieFile = parse_table(&die_text, &die_origin, "duel_die")?;
        let tables = vec![TableUse::new("duel_die", source, &die_text, die.stand_ins)];
        let [a, b] = [file.champions[0].clone(), file.champions[1].clone()];
        let duel = DiceDuel {
            champions: [a, b],
            max_rolls: file.max_rolls as u32,
            faces: die.faces.iter().map(|f| f.value).collect(),
            labels: die.faces.into_iter().map(|f| f.label).collect(),
            tables,
        };
        let header = Header {
            name: file.name,
            trials: file.trials,
            seed: file.seed,
        };
        Ok((header, duel))
    }

    fn metrics_of(&self, tally: &DuelTally) -> Vec<Metric<u64>> {
        tally.hists.metrics()
    }

    const EXACT_ODDS: Option<&'static str> = Some("dice duels");


    fn exact(&self) -> Result<Vec<Metric<f64>>> {
        Ok(exact::metrics(self))
    }

    fn describe(&self) -> String {
        let mut out = String::new();
        for c in &self.champions {
            let _ = writeln!(out, "champion {}: bonus {:+}", c.name, c.bonus);
        }
        let faces: Vec<String> = self.faces.iter().map(i64::to_string).collect();
        let _ = writeln!(out, "duel die: faces {}", faces.join(", "));
        let _ = writeln!(out, "max_rolls = {}", self.max_rolls);
        out
    }

    fn stand_in_rules(&self) -> Vec<String> {
        vec!["dice_duel: ties are rolled again, up to max_rolls, then a draw".to_owned()]
    }

    fn tables(&self) -> &[TableUse] {
        &self.tables
    }

    fn read_cells<R: rand::Rng>(&self, rng: &mut R, reads: &mut CellReads) {
        reference::duel(self.plain(), rng, reads);
    }

    fn scenario_layout() -> Layout {
        Layout::of::<ScenarioFile>("dice_duel", "Dice-duel scenario")
    }

    fn table_layouts() -> Vec<Layout> {
        vec![Layout::of::<DieFile>(
            "duel_die",
            "Dice-duel table: duel_die",
        )]
    }
}

impl DiceDuel {
    /// The duel as the plain reference reads it.
    fn plain(&self) -> reference::Duel<'_> {
        reference::Duel {
            bonus: [self.champions[0].bonus, self.champions[1].bonus],
            faces: &self.faces,
            labels: &self.labels,
            max_rolls: self.max_rolls,
        }
    }
}

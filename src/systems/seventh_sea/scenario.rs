//! The 7th Sea scenario file.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use anyhow::{Result, anyhow, bail};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::tables::SeaTables;
use crate::tables::TableFiles;
use crate::tables::TableSource;
use crate::tables::validate::{
    Header, check_range, check_table_names, check_two_sides, side_index,
};

/// A commander: Wits + Strategy.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Commander {
    /// Wits.
    #[schemars(range(min = *TRAIT.start(), max = *TRAIT.end()))]
    pub wits: i64,
    /// Strategy knack.
    #[schemars(range(min = *KNACK.start(), max = *KNACK.end()))]
    pub strategy: i64,
}

/// A quartermaster: Wits + Logistics.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Quartermaster {
    /// Wits.
    #[schemars(range(min = *TRAIT.start(), max = *TRAIT.end()))]
    pub wits: i64,
    /// Logistics knack.
    #[schemars(range(min = *KNACK.start(), max = *KNACK.end()))]
    pub logistics: i64,
}

/// The commander's speech: Wits + Incitation.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Speech {
    /// Wits.
    #[schemars(range(min = *TRAIT.start(), max = *TRAIT.end()))]
    pub wits: i64,
    /// Incitation knack.
    #[schemars(range(min = *KNACK.start(), max = *KNACK.end()))]
    pub incitation: i64,
}

/// A side as written.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SideFile {
    /// Unique name.
    pub name: String,
    /// The commander.
    pub commander: Commander,
    /// Optional: Supply roll.
    #[serde(default)]
    pub quartermaster: Option<Quartermaster>,
    /// Optional: Speech roll.
    #[serde(default)]
    pub speech: Option<Speech>,
    /// When the side spends its Free Raises (default `as_needed`).
    #[serde(default)]
    pub spending: Spending,
}

/// When a side spends its Free Raises (+5 each to a commander's total).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Spending {
    /// A round it would lose: the fewest that turn it into a win, if it has
    /// that many; otherwise it keeps them [stand-in default: the seed does
    /// not say when raises are spent].
    #[default]
    AsNeeded,
    /// Never: the raises are kept to the end.
    Never,
    /// The first round it would lose: every raise at once, whether or not
    /// they turn it.
    AllAtFirstLoss,
}

/// How a Hero fights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Always Rear.
    Rear,
    /// Always Not Engaged.
    NotEngaged,
    /// Always Engaged.
    Engaged,
    /// Always Heavily Engaged.
    HeavilyEngaged,
    /// Heavily Engaged, one level back per Dramatic Wound; refuses duels once crippled.
    Adaptive,
}

impl Policy {
    /// The engagement level (Rear 0 to Heavily Engaged 3) he picks with
    /// `wounds` Dramatic Wounds.
    #[inline]
    pub fn level(self, wounds: i64) -> u8 {
        match self {
            Policy::Rear => 0,
            Policy::NotEngaged => 1,
            Policy::Engaged => 2,
            Policy::HeavilyEngaged => 3,
            Policy::Adaptive => (3 - wounds).clamp(0, 3) as u8,
        }
    }
}

/// How the personal result is rolled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PersonalRoll {
    /// One exploding d10 + Wits + Tactics [seed].
    #[default]
    OneDie,
    /// (Wits + Tactics)k(Wits).
    Keep,
}

/// How Supply and Speech turn into Free Raises: one per 10 points, or
/// fraction, of ...
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FreeRaiseCount {
    /// ... the two rolls added together (the seed's example: 42 → 5).
    #[default]
    Combined,
    /// ... each roll on its own, the fractions rounded up apiece (the
    /// seed's words "of each roll": 21 + 21 → 3 + 3).
    EachRoll,
}

/// A Hero as written.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeroFile {
    /// Unique name.
    pub name: String,
    /// His side.
    pub side: String,
    /// Wits.
    #[schemars(range(min = *TRAIT.start(), max = *TRAIT.end()))]
    pub wits: i64,
    /// Tactics knack.
    #[serde(default)]
    #[schemars(range(min = *KNACK.start(), max = *KNACK.end()))]
    pub tactics: i64,
    /// Brawn.
    #[schemars(range(min = *TRAIT.start(), max = *TRAIT.end()))]
    pub brawn: i64,
    /// Resolve.
    #[schemars(range(min = *TRAIT.start(), max = *TRAIT.end()))]
    pub resolve: i64,
    /// Finesse.
    #[schemars(range(min = *TRAIT.start(), max = *TRAIT.end()))]
    pub finesse: i64,
    /// Attack knack (duels).
    #[serde(default)]
    #[schemars(range(min = *KNACK.start(), max = *KNACK.end()))]
    pub attack: i64,
    /// Firearms or bow knack (Line of Fire).
    #[serde(default)]
    #[schemars(range(min = *KNACK.start(), max = *KNACK.end()))]
    pub firearms: i64,
    /// Defence knack subtracted from damage.
    #[serde(default)]
    #[schemars(range(min = *KNACK.start(), max = *KNACK.end()))]
    pub defence_knack: i64,
    /// Leadership knack (officers add it to the commander's roll).
    #[serde(default)]
    #[schemars(range(min = *KNACK.start(), max = *KNACK.end()))]
    pub leadership: i64,
    /// Whether he helps his commander (−2 on his own roll).
    #[serde(default)]
    pub officer: bool,
    /// Commission rank (Spoils).
    #[serde(default)]
    #[schemars(range(min = *KNACK.start(), max = *KNACK.end()))]
    pub commission: i64,
    /// Dracheneisen armour points.
    #[serde(default)]
    #[schemars(range(min = *DRACHENEISEN.start(), max = *DRACHENEISEN.end()))]
    pub dracheneisen: i64,
    /// rear | not_engaged | engaged | heavily_engaged | adaptive.
    pub policy: Policy,
}

/// A 7th Sea mass-battle scenario file, as written.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "7th Sea mass-battle scenario")]
pub struct ScenarioFile {
    /// Names the rules: "seventh_sea".
    #[serde(rename = "system")]
    #[schemars(extend("const" = "seventh_sea"))]
    _system: String,
    /// The battle's display name.
    name: String,
    /// Battles to run (default 1,000,000).
    #[schemars(range(min = 1, max = crate::engine::MAX_TRIALS))]
    trials: Option<i64>,
    /// Seed of the random streams (default 1).
    seed: Option<u64>,
    /// Rounds after which an undecided battle ends.
    #[serde(default = "default_max_rounds")]
    #[schemars(range(min = *MAX_ROUNDS.start(), max = *MAX_ROUNDS.end()))]
    max_rounds: i64,
    /// one_die | keep: how a Hero's personal result is rolled.
    #[serde(default)]
    personal_roll: PersonalRoll,
    /// combined | each_roll: whether Supply and Speech give Free Raises per
    /// 10 points or fraction of their sum (default) or of each roll.
    #[serde(default)]
    free_raises: FreeRaiseCount,
    /// The two sides.
    #[schemars(length(min = 2, max = 2))]
    sides: Vec<SideFile>,
    /// The Heroes.
    #[serde(default)]
    #[schemars(length(max = MAX_HEROES))]
    heroes: Vec<HeroFile>,
    /// Tuned tables replacing the built-in ones: table name = file path (relative to the
    /// scenario), or a table with cells set (`file`, `set`).
    #[serde(default)]
    #[schemars(schema_with = "table_paths")]
    tables: BTreeMap<String, TableSource>,
}

/// The `[tables]` section's schema: one optional path per table name.
fn table_paths(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    crate::tables::validate::table_paths_schema(generator, &TABLE_NAMES)
}

fn default_max_rounds() -> i64 {
    50
}

/// The most Heroes a battle may hold.
pub const MAX_HEROES: usize = 16;

// Allowed values of each ranged key, shared by the checks and the schema.
/// Rounds a battle may be capped at.
pub const MAX_ROUNDS: RangeInclusive<i64> = 3..=1000;
/// Traits (Wits, Brawn, Resolve, Finesse): rolled and kept, so at least 1.
const TRAIT: RangeInclusive<i64> = 1..=10;
/// Knacks and Commission rank.
const KNACK: RangeInclusive<i64> = 0..=10;
const DRACHENEISEN: RangeInclusive<i64> = 0..=40;

/// The validated scenario.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// Run settings.
    pub header: Header,
    /// Round cap.
    pub max_rounds: u32,
    /// Personal roll mode.
    pub personal_roll: PersonalRoll,
    /// How Supply and Speech count into Free Raises.
    pub free_raises: FreeRaiseCount,
    /// The two sides.
    pub sides: [SideFile; 2],
    /// Heroes with their side index.
    pub heroes: Vec<(HeroFile, usize)>,
}

/// Table names a scenario may override.
pub const TABLE_NAMES: [&str; 3] = ["battle_chart", "opportunities", "spoils"];

/// Parses, validates and loads the tables.
pub fn parse(text: &str, origin: &str, files: &TableFiles) -> Result<(Parsed, SeaTables)> {
    let file: ScenarioFile =
        toml::from_str(text).map_err(|e| crate::tables::validate::toml_error(origin, e))?;
    check_table_names((origin, text), file.tables.keys(), &TABLE_NAMES, "7th Sea")?;
    let tables = SeaTables::load(&file.tables, files).map_err(|e| anyhow!("{origin}: {e:#}"))?;
    // A winner rolls 1d10 + his Commission rank (a knack).
    tables
        .check_spoils_reach(10 + KNACK.end())
        .map_err(|e| anyhow!("{origin}: {e:#}"))?;
    check_range(origin, "max_rounds", file.max_rounds, MAX_ROUNDS)?;
    let side_names: Vec<&str> = file.sides.iter().map(|s| s.name.as_str()).collect();
    check_two_sides(origin, &side_names)?;
    for (i, s) in file.sides.iter().enumerate() {
        let key = |k: &str| format!("sides[{i}].{k}");
        check_range(origin, &key("commander.wits"), s.commander.wits, TRAIT)?;
        check_range(
            origin,
            &key("commander.strategy"),
            s.commander.strategy,
            KNACK,
        )?;
        if let Some(q) = s.quartermaster {
            check_range(origin, &key("quartermaster.wits"), q.wits, TRAIT)?;
            check_range(origin, &key("quartermaster.logistics"), q.logistics, KNACK)?;
        }
        if let Some(sp) = s.speech {
            check_range(origin, &key("speech.wits"), sp.wits, TRAIT)?;
            check_range(origin, &key("speech.incitation"), sp.incitation, KNACK)?;
        }
    }
    if file.heroes.len() > MAX_HEROES {
        bail!(
            "{origin}: {} heroes given; at most {MAX_HEROES}",
            file.heroes.len()
        );
    }
    let mut heroes: Vec<(HeroFile, usize)> = Vec::new();
    for (i, h) in file.heroes.iter().enumerate() {
        let key = |k: &str| format!("heroes[{i}].{k} ({})", h.name);
        if heroes.iter().any(|(o, _)| o.name == h.name) {
            bail!(
                "{origin}: two heroes are named \"{}\"; names must differ",
                h.name
            );
        }
        let side = side_index(
            origin,
            &key("side"),
            &h.side,
            [side_names[0], side_names[1]],
        )?;
        // Traits are rolled and kept: a Trait of 0 cannot make a knack roll.
        for (name, value) in [
            ("wits", h.wits),
            ("brawn", h.brawn),
            ("resolve", h.resolve),
            ("finesse", h.finesse),
        ] {
            check_range(origin, &key(name), value, TRAIT)?;
        }
        for (name, value) in [
            ("tactics", h.tactics),
            ("attack", h.attack),
            ("firearms", h.firearms),
            ("defence_knack", h.defence_knack),
            ("leadership", h.leadership),
            ("commission", h.commission),
        ] {
            check_range(origin, &key(name), value, KNACK)?;
        }
        check_range(origin, &key("dracheneisen"), h.dracheneisen, DRACHENEISEN)?;
        if !h.officer && h.leadership > 0 {
            bail!(
                "{origin}: `{}` = {} but the Hero is not an officer, so it would be ignored; set officer = true or leadership = 0",
                key("leadership"),
                h.leadership
            );
        }
        if h.officer && h.leadership == 0 {
            bail!(
                "{origin}: `{}` is true but leadership = 0; an officer adds his Leadership knack",
                key("officer")
            );
        }
        heroes.push((h.clone(), side));
    }
    let [a, b]: [SideFile; 2] = file.sides.try_into().expect("two sides");
    Ok((
        Parsed {
            header: Header {
                name: file.name,
                trials: file.trials,
                seed: file.seed,
            },
            max_rounds: file.max_rounds as u32,
            personal_roll: file.personal_roll,
            free_raises: file.free_raises,
            sides: [a, b],
            heroes,
        },
        tables,
    ))
}

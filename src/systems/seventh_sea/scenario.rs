//! The 7th Sea scenario file.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Result, anyhow, bail};
use serde::{Deserialize, Serialize};

use super::tables::SeaTables;
use crate::validate::{Header, check_range, check_table_names, check_two_sides, side_index};

/// A commander: Wits + Strategy.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Commander {
    /// Wits.
    pub wits: i64,
    /// Strategy knack.
    pub strategy: i64,
}

/// A quartermaster: Wits + Logistics.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Quartermaster {
    /// Wits.
    pub wits: i64,
    /// Logistics knack.
    pub logistics: i64,
}

/// The commander's speech: Wits + Incitation.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Speech {
    /// Wits.
    pub wits: i64,
    /// Incitation knack.
    pub incitation: i64,
}

/// A side as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
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
}

/// How a Hero fights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PersonalRoll {
    /// One exploding d10 + Wits + Tactics [seed].
    #[default]
    OneDie,
    /// (Wits + Tactics)k(Wits).
    Keep,
}

/// A Hero as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HeroFile {
    /// Unique name.
    pub name: String,
    /// His side.
    pub side: String,
    /// Wits.
    pub wits: i64,
    /// Tactics knack.
    #[serde(default)]
    pub tactics: i64,
    /// Brawn.
    pub brawn: i64,
    /// Resolve.
    pub resolve: i64,
    /// Finesse.
    pub finesse: i64,
    /// Attack knack (duels).
    #[serde(default)]
    pub attack: i64,
    /// Firearms or bow knack (Line of Fire).
    #[serde(default)]
    pub firearms: i64,
    /// Defence knack subtracted from damage.
    #[serde(default)]
    pub defence_knack: i64,
    /// Leadership knack (officers add it to the commander's roll).
    #[serde(default)]
    pub leadership: i64,
    /// Whether he helps his commander (−2 on his own roll).
    #[serde(default)]
    pub officer: bool,
    /// Commission rank (Spoils).
    #[serde(default)]
    pub commission: i64,
    /// Dracheneisen armour points.
    #[serde(default)]
    pub dracheneisen: i64,
    /// rear | not_engaged | engaged | heavily_engaged | adaptive.
    pub policy: Policy,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    #[serde(rename = "system")]
    _system: String,
    name: String,
    trials: Option<i64>,
    seed: Option<u64>,
    #[serde(default = "default_max_rounds")]
    max_rounds: i64,
    #[serde(default)]
    personal_roll: PersonalRoll,
    sides: Vec<SideFile>,
    #[serde(default)]
    heroes: Vec<HeroFile>,
    #[serde(default)]
    tables: BTreeMap<String, String>,
}

fn default_max_rounds() -> i64 {
    50
}

/// The most Heroes a battle may hold.
pub const MAX_HEROES: usize = 16;

/// The validated scenario.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// Run settings.
    pub header: Header,
    /// Round cap.
    pub max_rounds: u32,
    /// Personal roll mode.
    pub personal_roll: PersonalRoll,
    /// The two sides.
    pub sides: [SideFile; 2],
    /// Heroes with their side index.
    pub heroes: Vec<(HeroFile, usize)>,
}

/// Table names a scenario may override.
pub const TABLE_NAMES: [&str; 3] = ["battle_chart", "opportunities", "spoils"];

/// Parses, validates and loads the tables.
pub fn parse(text: &str, origin: &str, base_dir: &Path) -> Result<(Parsed, SeaTables)> {
    let file: ScenarioFile =
        toml::from_str(text).map_err(|e| crate::validate::toml_error(origin, e))?;
    check_table_names(origin, file.tables.keys(), &TABLE_NAMES, "7th Sea")?;
    let tables = SeaTables::load(&file.tables, base_dir).map_err(|e| anyhow!("{origin}: {e:#}"))?;
    check_range(origin, "max_rounds", file.max_rounds, 3..=1000)?;
    let side_names: Vec<&str> = file.sides.iter().map(|s| s.name.as_str()).collect();
    check_two_sides(origin, &side_names)?;
    for (i, s) in file.sides.iter().enumerate() {
        let key = |k: &str| format!("sides[{i}].{k}");
        check_range(origin, &key("commander.wits"), s.commander.wits, 1..=10)?;
        check_range(
            origin,
            &key("commander.strategy"),
            s.commander.strategy,
            0..=10,
        )?;
        if let Some(q) = s.quartermaster {
            check_range(origin, &key("quartermaster.wits"), q.wits, 1..=10)?;
            check_range(origin, &key("quartermaster.logistics"), q.logistics, 0..=10)?;
        }
        if let Some(sp) = s.speech {
            check_range(origin, &key("speech.wits"), sp.wits, 1..=10)?;
            check_range(origin, &key("speech.incitation"), sp.incitation, 0..=10)?;
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
            check_range(origin, &key(name), value, 1..=10)?;
        }
        for (name, value) in [
            ("tactics", h.tactics),
            ("attack", h.attack),
            ("firearms", h.firearms),
            ("defence_knack", h.defence_knack),
            ("leadership", h.leadership),
            ("commission", h.commission),
        ] {
            check_range(origin, &key(name), value, 0..=10)?;
        }
        check_range(origin, &key("dracheneisen"), h.dracheneisen, 0..=40)?;
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
            sides: [a, b],
            heroes,
        },
        tables,
    ))
}

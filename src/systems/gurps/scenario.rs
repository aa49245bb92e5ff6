//! The GURPS scenario file: sides, heroes and battle settings, validated
//! into the resolved battle.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Result, anyhow, bail};
use serde::{Deserialize, Serialize};

use super::tables::GurpsTables;
use crate::validate::{Header, check_range, check_table_names, check_two_sides, side_index};

/// A side as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SideFile {
    /// Unique name.
    pub name: String,
    /// The commander's Strategy skill.
    pub strategy: i64,
    /// Troop Strength.
    pub troop_strength: i64,
    /// Whether this side attacks (defender positions then apply to it).
    #[serde(default)]
    pub attacker: bool,
    /// The commander may reroll the Catastrophe roll with Luck.
    #[serde(default)]
    pub commander_luck: bool,
    /// Tech Level of this army (default: the battle's).
    #[serde(default)]
    pub tech_level: Option<i64>,
    /// Defender's position entries (this side defends).
    #[serde(default)]
    pub position: Vec<String>,
    /// Class superiority over the enemy (+3).
    #[serde(default)]
    pub class_superiority: bool,
    /// Free GM modifier to this side's Strategy roll.
    #[serde(default)]
    pub gm_modifier: i64,
    /// Added to this side's Catastrophe rolls (enemy powers: +1 per 2 points).
    #[serde(default)]
    pub catastrophe_modifier: i64,
    /// none | light | spearmen | medium | heavy.
    #[serde(default)]
    pub armour: Armour,
    /// green | average | seasoned | veteran | elite.
    #[serde(default)]
    pub troop_quality: Quality,
    /// Major units (each ≥ 20% of TS) a catastrophe can strike [stand-in 3].
    #[serde(default = "default_major_units")]
    pub major_units: i64,
}

/// Major units a side has unless the scenario says.
pub const DEFAULT_MAJOR_UNITS: i64 = 3;

/// Tactics defaults to IQ minus this.
pub const TACTICS_BELOW_IQ: i64 = 6;

fn default_major_units() -> i64 {
    DEFAULT_MAJOR_UNITS
}

/// Armour class of a side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Armour {
    /// No armour.
    #[default]
    None,
    /// Light armour.
    Light,
    /// Spearmen.
    Spearmen,
    /// Medium armour.
    Medium,
    /// Heavy armour.
    Heavy,
}

/// Troop quality.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Quality {
    /// Green.
    Green,
    /// Average.
    #[default]
    Average,
    /// Seasoned.
    Seasoned,
    /// Veteran.
    Veteran,
    /// Elite.
    Elite,
}

/// A PC's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A soldier in the ranks.
    Soldier,
    /// Commands a major unit.
    UnitCommander,
    /// Commands the army.
    ArmyCommander,
}

/// A PC as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HeroFile {
    /// Unique name.
    pub name: String,
    /// The side's name.
    pub side: String,
    /// soldier | unit_commander | army_commander.
    #[serde(default = "default_role")]
    pub role: Role,
    /// Tactics skill (default IQ − 6).
    #[serde(default)]
    pub tactics: Option<i64>,
    /// IQ, used when Tactics is not given.
    #[serde(default)]
    pub iq: Option<i64>,
    /// Main weapon skill (the melee weapon if both).
    pub weapon_skill: i64,
    /// Combat Reflexes: +2.
    #[serde(default)]
    pub combat_reflexes: bool,
    /// Danger Sense: +1.
    #[serde(default)]
    pub danger_sense: bool,
    /// Hit Points (default HT).
    #[serde(default)]
    pub hp: Option<i64>,
    /// Health.
    pub ht: i64,
    /// Damage Resistance, Toughness included.
    #[serde(default)]
    pub dr: i64,
    /// −6 (very risky) to +6 (very careful).
    #[serde(default)]
    pub risk: i64,
    /// Luck: Survival rolled three times, best kept.
    #[serde(default)]
    pub luck: bool,
    /// Cowardly: Risk not below −1.
    #[serde(default)]
    pub coward: bool,
    /// His unit is in reserve: Risk not below −1.
    #[serde(default)]
    pub reserve: bool,
    /// Overconfident: Risk not above +1.
    #[serde(default)]
    pub overconfident: bool,
    /// Berserk: Risk not above 0.
    #[serde(default)]
    pub berserk: bool,
}

fn default_role() -> Role {
    Role::Soldier
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    #[serde(rename = "system")]
    _system: String,
    name: String,
    trials: Option<i64>,
    seed: Option<u64>,
    #[serde(default = "one_day")]
    days: i64,
    #[serde(default = "default_tl")]
    tech_level: i64,
    sides: Vec<SideFile>,
    #[serde(default)]
    heroes: Vec<HeroFile>,
    #[serde(default)]
    tables: BTreeMap<String, String>,
}

fn one_day() -> i64 {
    1
}

fn default_tl() -> i64 {
    3
}

/// The most PCs a battle may hold.
pub const MAX_HEROES: usize = 16;
/// The most days a battle may last.
pub const MAX_DAYS: i64 = 30;

/// A resolved side.
#[derive(Debug, Clone)]
pub struct Side {
    /// As written.
    pub file: SideFile,
    /// Resolved TL.
    pub tech_level: i64,
    /// Sum of this side's position entries (applied to the enemy attacker).
    pub position_modifier: i64,
}

/// A resolved PC.
#[derive(Debug, Clone)]
pub struct Hero {
    /// As written.
    pub file: HeroFile,
    /// Index of his side.
    pub side: usize,
    /// Combat skill before modifiers and cap.
    pub combat_skill: i64,
    /// Hit Points.
    pub hp: i64,
    /// Index among his side's PC unit commanders (major units), if one.
    pub major_unit: Option<usize>,
}

/// The validated scenario content.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// Run settings.
    pub header: Header,
    /// Days of battle.
    pub days: u32,
    /// The two sides.
    pub sides: [Side; 2],
    /// The PCs.
    pub heroes: Vec<Hero>,
}

/// Table names a scenario may override.
pub const TABLE_NAMES: [&str; 8] = [
    "catastrophe",
    "strategy",
    "battle_results",
    "casualties",
    "survival",
    "damage",
    "glory",
    "morale",
];

/// Parses and validates the scenario and loads its tables.
pub fn parse(text: &str, origin: &str, base_dir: &Path) -> Result<(Parsed, GurpsTables)> {
    let file: ScenarioFile =
        toml::from_str(text).map_err(|e| crate::validate::toml_error(origin, e))?;
    check_table_names(origin, file.tables.keys(), &TABLE_NAMES, "GURPS")?;
    let tables =
        GurpsTables::load(&file.tables, base_dir).map_err(|e| anyhow!("{origin}: {e:#}"))?;
    let position_table = &tables.strategy.position;
    check_range(origin, "days", file.days, 1..=MAX_DAYS)?;
    check_range(origin, "tech_level", file.tech_level, 0..=16)?;
    let side_names: Vec<&str> = file.sides.iter().map(|s| s.name.as_str()).collect();
    check_two_sides(origin, &side_names)?;
    if file.sides.iter().all(|s| s.attacker) {
        bail!("{origin}: both sides have attacker = true; at most one attacks");
    }
    let mut sides = Vec::new();
    for (i, s) in file.sides.iter().enumerate() {
        let key = |k: &str| format!("sides[{i}].{k}");
        if s.name.trim().is_empty() {
            bail!("{origin}: `{}` is empty", key("name"));
        }
        check_range(origin, &key("strategy"), s.strategy, 0..=30)?;
        check_range(
            origin,
            &key("troop_strength"),
            s.troop_strength,
            1..=1_000_000_000,
        )?;
        check_range(origin, &key("gm_modifier"), s.gm_modifier, -20..=20)?;
        check_range(
            origin,
            &key("catastrophe_modifier"),
            s.catastrophe_modifier,
            -15..=15,
        )?;
        check_range(origin, &key("major_units"), s.major_units, 1..=50)?;
        let tech_level = s.tech_level.unwrap_or(file.tech_level);
        check_range(origin, &key("tech_level"), tech_level, 0..=16)?;
        if !s.position.is_empty() && s.attacker {
            bail!(
                "{origin}: `{}` is set on the attacking side; positions belong to the defender",
                key("position")
            );
        }
        if !s.position.is_empty() && !file.sides.iter().any(|o| o.attacker) {
            bail!(
                "{origin}: `{}` is set, but no side has `attacker = true`, so the position would be ignored; \
                 mark the other side `attacker = true` (positions penalise the attacker) or remove `position`",
                key("position")
            );
        }
        let mut position_modifier = 0;
        for p in &s.position {
            match position_table.get(p) {
                Some(m) => position_modifier += m,
                None => bail!(
                    "{origin}: `{}` has \"{p}\"; allowed: {}",
                    key("position"),
                    position_table
                        .keys()
                        .map(|k| format!("\"{k}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        }
        sides.push(Side {
            file: s.clone(),
            tech_level,
            position_modifier,
        });
    }
    if file.heroes.len() > MAX_HEROES {
        bail!(
            "{origin}: {} heroes given; at most {MAX_HEROES}",
            file.heroes.len()
        );
    }
    let mut heroes: Vec<Hero> = Vec::new();
    let mut unit_commanders = [0usize; 2];
    let mut army_commanders = [0usize; 2];
    for (i, h) in file.heroes.iter().enumerate() {
        let key = |k: &str| format!("heroes[{i}].{k} ({})", h.name);
        if h.name.trim().is_empty() {
            bail!("{origin}: `heroes[{i}].name` is empty");
        }
        if heroes.iter().any(|o| o.file.name == h.name) {
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
        let tactics = match (h.tactics, h.iq) {
            (Some(t), _) => t,
            (None, Some(iq)) => {
                check_range(origin, &key("iq"), iq, 1..=30)?;
                iq - TACTICS_BELOW_IQ
            }
            (None, None) => bail!(
                "{origin}: `{}` is missing; give `tactics` or `iq` (Tactics defaults to IQ − 6)",
                key("tactics")
            ),
        };
        check_range(origin, &key("tactics"), tactics, 0..=30)?;
        check_range(origin, &key("weapon_skill"), h.weapon_skill, 0..=30)?;
        check_range(origin, &key("ht"), h.ht, 1..=30)?;
        let hp = h.hp.unwrap_or(h.ht);
        check_range(origin, &key("hp"), hp, 1..=100)?;
        check_range(origin, &key("dr"), h.dr, 0..=100)?;
        check_range(origin, &key("risk"), h.risk, -6..=6)?;
        let mut low = -6;
        let mut high = 6;
        let mut why_low = "";
        let mut why_high = "";
        if h.coward || h.reserve {
            low = -1;
            why_low = if h.coward { "coward" } else { "reserve" };
        }
        if h.overconfident {
            high = 1;
            why_high = "overconfident";
        }
        if h.berserk {
            high = 0;
            why_high = "berserk";
        }
        if h.risk < low {
            bail!(
                "{origin}: `{}` = {} is below what a {why_low} PC may choose; allowed: {low} to {high}",
                key("risk"),
                h.risk
            );
        }
        if h.risk > high {
            bail!(
                "{origin}: `{}` = {} is above what a {why_high} PC may choose; allowed: {low} to {high}",
                key("risk"),
                h.risk
            );
        }
        let major_unit = match h.role {
            Role::UnitCommander => {
                unit_commanders[side] += 1;
                Some(unit_commanders[side] - 1)
            }
            Role::ArmyCommander => {
                army_commanders[side] += 1;
                if army_commanders[side] > 1 {
                    bail!(
                        "{origin}: side \"{}\" has two army commanders; at most one",
                        h.side
                    );
                }
                None
            }
            Role::Soldier => None,
        };
        let combat_skill = (tactics + h.weapon_skill).div_euclid(2)
            + if h.combat_reflexes { 2 } else { 0 }
            + if h.danger_sense { 1 } else { 0 };
        heroes.push(Hero {
            file: h.clone(),
            side,
            combat_skill,
            hp,
            major_unit,
        });
    }
    for (s, side) in sides.iter().enumerate() {
        if unit_commanders[s] as i64 > side.file.major_units {
            bail!(
                "{origin}: side \"{}\" has {} PC unit commanders but major_units = {}; raise major_units",
                side.file.name,
                unit_commanders[s],
                side.file.major_units
            );
        }
    }
    let [a, b]: [Side; 2] = sides.try_into().expect("two sides");
    Ok((
        Parsed {
            header: Header {
                name: file.name,
                trials: file.trials,
                seed: file.seed,
            },
            days: file.days as u32,
            sides: [a, b],
            heroes,
        },
        tables,
    ))
}

//! The GURPS scenario file: sides, heroes and battle settings, validated
//! into the resolved battle.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use anyhow::{Result, anyhow, bail};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::tables::{GurpsTables, TABLE_NAMES};
use crate::tables::TableFiles;
use crate::tables::TableSource;
use crate::tables::validate::{
    Header, check_range, check_table_names, check_two_sides, side_index,
};

/// A side as written.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SideFile {
    /// Unique name.
    pub name: String,
    /// The commander's Strategy skill.
    #[schemars(range(min = *SKILL.start(), max = *SKILL.end()))]
    pub strategy: i64,
    /// Troop Strength.
    #[schemars(range(min = *TROOP_STRENGTH.start(), max = *TROOP_STRENGTH.end()))]
    pub troop_strength: i64,
    /// Whether this side attacks (defender positions then apply to it).
    #[serde(default)]
    pub attacker: bool,
    /// The commander may reroll the Catastrophe roll with Luck. Where a PC
    /// commands the army, his own `luck` decides instead (`check` says so
    /// where the two differ).
    #[serde(default)]
    pub commander_luck: bool,
    /// Tech Level of this army (default: the battle's).
    #[serde(default)]
    #[schemars(range(min = *TECH_LEVEL.start(), max = *TECH_LEVEL.end()))]
    pub tech_level: Option<i64>,
    /// Defender's position entries (this side defends), each at most once.
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    pub position: Vec<String>,
    /// Class superiority over the enemy (+3).
    #[serde(default)]
    pub class_superiority: bool,
    /// Free GM modifier to this side's Strategy roll.
    #[serde(default)]
    #[schemars(range(min = *GM_MODIFIER.start(), max = *GM_MODIFIER.end()))]
    pub gm_modifier: i64,
    /// Added to this side's Catastrophe rolls (enemy powers: +1 per 2 points).
    #[serde(default)]
    #[schemars(range(min = *CATASTROPHE_MODIFIER.start(), max = *CATASTROPHE_MODIFIER.end()))]
    pub catastrophe_modifier: i64,
    /// none | light | spearmen | medium | heavy.
    #[serde(default)]
    pub armour: Armour,
    /// green | average | seasoned | veteran | elite.
    #[serde(default)]
    pub troop_quality: Quality,
    /// Major units (each ≥ 20% of TS) a catastrophe can strike [stand-in 3].
    #[serde(default = "default_major_units")]
    #[schemars(range(min = *MAJOR_UNITS.start(), max = *MAJOR_UNITS.end()))]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
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

impl Armour {
    /// The armour as files write it: `medium`.
    pub fn key(self) -> &'static str {
        match self {
            Armour::None => "none",
            Armour::Light => "light",
            Armour::Spearmen => "spearmen",
            Armour::Medium => "medium",
            Armour::Heavy => "heavy",
        }
    }
}

/// Troop quality.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
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

impl Quality {
    /// The quality as files write it: `seasoned`.
    pub fn key(self) -> &'static str {
        match self {
            Quality::Green => "green",
            Quality::Average => "average",
            Quality::Seasoned => "seasoned",
            Quality::Veteran => "veteran",
            Quality::Elite => "elite",
        }
    }
}

/// A PC's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
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
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
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
    #[schemars(range(min = *SKILL.start(), max = *SKILL.end()))]
    pub tactics: Option<i64>,
    /// IQ, used when Tactics is not given.
    #[serde(default)]
    #[schemars(range(min = *ATTRIBUTE.start(), max = *ATTRIBUTE.end()))]
    pub iq: Option<i64>,
    /// Main weapon skill (the melee weapon if both).
    #[schemars(range(min = *SKILL.start(), max = *SKILL.end()))]
    pub weapon_skill: i64,
    /// Combat Reflexes: +2.
    #[serde(default)]
    pub combat_reflexes: bool,
    /// Danger Sense: +1.
    #[serde(default)]
    pub danger_sense: bool,
    /// Hit Points (default HT).
    #[serde(default)]
    #[schemars(range(min = *HIT_POINTS.start(), max = *HIT_POINTS.end()))]
    pub hp: Option<i64>,
    /// Health.
    #[schemars(range(min = *ATTRIBUTE.start(), max = *ATTRIBUTE.end()))]
    pub ht: i64,
    /// Damage Resistance of his armour: stops each hit of a damage column
    /// and a Catastrophe's wound.
    #[serde(default)]
    #[schemars(range(min = *DAMAGE_RESISTANCE.start(), max = *DAMAGE_RESISTANCE.end()))]
    pub dr: i64,
    /// Toughness (DR of his own skin): comes off every wound, the fixed
    /// 1 HP and 2 HP Survival rows included, never divided by the enemy's
    /// Tech Level.
    #[serde(default)]
    #[schemars(range(min = *TOUGHNESS.start(), max = *TOUGHNESS.end()))]
    pub toughness: i64,
    /// −6 (very risky) to +6 (very careful).
    #[serde(default)]
    #[schemars(range(min = *RISK.start(), max = *RISK.end()))]
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

/// A GURPS mass-combat scenario file, as written.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "GURPS mass-combat scenario")]
pub struct ScenarioFile {
    /// Names the rules: "gurps".
    #[serde(rename = "system")]
    #[schemars(extend("const" = "gurps"))]
    _system: String,
    /// The battle's display name.
    name: String,
    /// Battles to run (default 1,000,000).
    #[schemars(range(min = 1, max = crate::engine::MAX_TRIALS))]
    trials: Option<i64>,
    /// Seed of the random streams (default 1).
    seed: Option<u64>,
    /// Days of battle, one Strategy contest each.
    #[serde(default = "one_day")]
    #[schemars(range(min = *DAYS.start(), max = *DAYS.end()))]
    days: i64,
    /// Where an ally who defects (Catastrophe row 14) takes his troops: "joins_enemy" (the
    /// default, as the seed says he "goes over to the enemy, taking his troops with him")
    /// adds them to the enemy; "leaves" takes them off the field instead.
    #[serde(default)]
    defector: Defector,
    /// When a PC leader's fall in his Survival roll reaches the battle: "next_day" (the
    /// default) on the days after; "same_day" also that day's final Strategy roll and
    /// casualties. The seed says a fallen leader's "final Strategy roll is made as for
    /// Catastrophes", which reads either way.
    #[serde(default)]
    leader_fall: LeaderFall,
    /// What a later Catastrophe row striking the army commander (16, 18) does once he is
    /// gone (killed, captured, down): "successor_struck" (the default) strikes whoever
    /// leads in his place, its Strategy and Morale applying again; "row_spent" makes it
    /// do nothing. The seed names only the commander.
    #[serde(default)]
    commander_gone: CommanderGone,
    /// The battle's Tech Level (a side may set its own).
    #[serde(default = "default_tl")]
    #[schemars(range(min = *TECH_LEVEL.start(), max = *TECH_LEVEL.end()))]
    tech_level: i64,
    /// The two sides.
    #[schemars(length(min = 2, max = 2))]
    sides: Vec<SideFile>,
    /// The PCs.
    #[serde(default)]
    #[schemars(length(max = MAX_HEROES))]
    heroes: Vec<HeroFile>,
    /// Tuned tables replacing the built-in ones: table name = file path (relative to the
    /// scenario), or a table with cells set (`file`, `set`).
    #[serde(default)]
    #[schemars(schema_with = "table_paths")]
    tables: BTreeMap<String, TableSource>,
}

/// Where a defecting ally's troops go (see [`ScenarioFile`]'s `defector`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Defector {
    /// Off the field: his side loses them, the enemy gains nothing.
    Leaves,
    /// To the enemy: his side loses them and the enemy gains as many (the
    /// seed's "goes over to the enemy … taking his troops with him").
    #[default]
    JoinsEnemy,
}

/// When a PC leader's fall reaches the battle (see [`ScenarioFile`]'s
/// `leader_fall`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LeaderFall {
    /// On the days after: the day's Strategy contest is settled before any
    /// PC rolls Survival.
    #[default]
    NextDay,
    /// That same day too: a PC army commander who falls in his Survival
    /// roll halves his side's Strategy for the day's final roll (the
    /// contest settled again on the same dice), and a fallen leader's
    /// Morale counts in that day's casualties.
    SameDay,
}

/// What a Catastrophe row striking a commander already gone does (see
/// [`ScenarioFile`]'s `commander_gone`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommanderGone {
    /// It strikes whoever leads in his place: its Strategy and Morale apply.
    #[default]
    SuccessorStruck,
    /// It does nothing, as if no Catastrophe had come up.
    RowSpent,
}

/// The `[tables]` section's schema: one optional path per table name.
fn table_paths(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    crate::tables::validate::table_paths_schema(generator, &TABLE_NAMES)
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

// A PC's Reputation total over the longest battle fits its i16.
const _: () = assert!(
    *super::tables::GLORY_REPUTATION.end() * MAX_DAYS <= i16::MAX as i64
        && *super::tables::GLORY_REPUTATION.start() * MAX_DAYS >= i16::MIN as i64
);

// Allowed values of each ranged key, shared by the checks and the schema.
const DAYS: RangeInclusive<i64> = 1..=MAX_DAYS;
const TECH_LEVEL: RangeInclusive<i64> = 0..=16;
/// Strategy, Tactics and weapon skill.
const SKILL: RangeInclusive<i64> = 0..=30;
/// IQ and HT.
const ATTRIBUTE: RangeInclusive<i64> = 1..=30;
const TROOP_STRENGTH: RangeInclusive<i64> = 1..=1_000_000_000;
const GM_MODIFIER: RangeInclusive<i64> = -20..=20;
const CATASTROPHE_MODIFIER: RangeInclusive<i64> = -15..=15;
const MAJOR_UNITS: RangeInclusive<i64> = 1..=MAX_MAJOR_UNITS;
/// The most major units a side may have.
pub const MAX_MAJOR_UNITS: i64 = 50;
const HIT_POINTS: RangeInclusive<i64> = 1..=100;
const DAMAGE_RESISTANCE: RangeInclusive<i64> = 0..=100;
/// Toughness's DR.
const TOUGHNESS: RangeInclusive<i64> = 0..=10;
const RISK: RangeInclusive<i64> = -6..=6;

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
    /// Where a defecting ally's troops go.
    pub defector: Defector,
    /// When a PC leader's fall reaches the battle.
    pub leader_fall: LeaderFall,
    /// What a row striking a commander already gone does.
    pub commander_gone: CommanderGone,
    /// The two sides.
    pub sides: [Side; 2],
    /// The PCs.
    pub heroes: Vec<Hero>,
}

/// Parses and validates the scenario and loads its tables.
pub fn parse(text: &str, origin: &str, files: &TableFiles) -> Result<(Parsed, GurpsTables)> {
    let file: ScenarioFile =
        toml::from_str(text).map_err(|e| crate::tables::validate::toml_error(origin, e))?;
    check_table_names((origin, text), file.tables.keys(), &TABLE_NAMES, "GURPS")?;
    let tables =
        GurpsTables::load(&file.tables, files).map_err(|e| anyhow!("{origin}: {e:#}"))?;
    check_range(origin, "days", file.days, DAYS)?;
    check_range(origin, "tech_level", file.tech_level, TECH_LEVEL)?;
    let sides = resolve_sides(origin, &file, &tables.strategy.position)?;
    let heroes = resolve_heroes(origin, &file.heroes, &sides)?;
    Ok((
        Parsed {
            header: Header {
                name: file.name,
                trials: file.trials,
                seed: file.seed,
            },
            days: file.days as u32,
            defector: file.defector,
            leader_fall: file.leader_fall,
            commander_gone: file.commander_gone,
            sides,
            heroes,
        },
        tables,
    ))
}

/// Checks both sides and resolves their Tech Levels and positions.
fn resolve_sides(
    origin: &str,
    file: &ScenarioFile,
    position_table: &BTreeMap<String, i64>,
) -> Result<[Side; 2]> {
    let side_names: Vec<&str> = file.sides.iter().map(|s| s.name.as_str()).collect();
    check_two_sides(origin, &side_names)?;
    if file.sides.iter().all(|s| s.attacker) {
        bail!("{origin}: both sides have attacker = true; at most one attacks");
    }
    let someone_attacks = file.sides.iter().any(|s| s.attacker);
    let sides = file
        .sides
        .iter()
        .enumerate()
        .map(|(i, s)| {
            resolve_side(
                origin,
                i,
                s,
                file.tech_level,
                someone_attacks,
                position_table,
            )
        })
        .collect::<Result<Vec<Side>>>()?;
    Ok(sides.try_into().expect("two sides"))
}

/// Checks one side's numbers and sums its defensive position.
fn resolve_side(
    origin: &str,
    i: usize,
    s: &SideFile,
    battle_tech_level: i64,
    someone_attacks: bool,
    position_table: &BTreeMap<String, i64>,
) -> Result<Side> {
    let key = |k: &str| format!("sides[{i}].{k}");
    if s.name.trim().is_empty() {
        bail!("{origin}: `{}` is empty", key("name"));
    }
    check_range(origin, &key("strategy"), s.strategy, SKILL)?;
    check_range(
        origin,
        &key("troop_strength"),
        s.troop_strength,
        TROOP_STRENGTH,
    )?;
    check_range(origin, &key("gm_modifier"), s.gm_modifier, GM_MODIFIER)?;
    check_range(
        origin,
        &key("catastrophe_modifier"),
        s.catastrophe_modifier,
        CATASTROPHE_MODIFIER,
    )?;
    check_range(origin, &key("major_units"), s.major_units, MAJOR_UNITS)?;
    let tech_level = s.tech_level.unwrap_or(battle_tech_level);
    check_range(origin, &key("tech_level"), tech_level, TECH_LEVEL)?;
    if !s.position.is_empty() && s.attacker {
        bail!(
            "{origin}: `{}` is set on the attacking side; positions belong to the defender",
            key("position")
        );
    }
    if !s.position.is_empty() && !someone_attacks {
        bail!(
            "{origin}: `{}` is set, but no side has `attacker = true`, so the position would be ignored; \
             mark the other side `attacker = true` (positions penalise the attacker) or remove `position`",
            key("position")
        );
    }
    let mut position_modifier = 0;
    for (i, p) in s.position.iter().enumerate() {
        if s.position[..i].contains(p) {
            bail!(
                "{origin}: `{}` lists \"{p}\" twice; a position counts once",
                key("position")
            );
        }
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
    Ok(Side {
        file: s.clone(),
        tech_level,
        position_modifier,
    })
}

/// Checks every PC, numbers the unit commanders' major units and checks
/// that each side has the units and single army commander they need.
fn resolve_heroes(origin: &str, written: &[HeroFile], sides: &[Side; 2]) -> Result<Vec<Hero>> {
    if written.len() > MAX_HEROES {
        bail!(
            "{origin}: {} heroes given; at most {MAX_HEROES}",
            written.len()
        );
    }
    let side_names = [sides[0].file.name.as_str(), sides[1].file.name.as_str()];
    let mut heroes: Vec<Hero> = Vec::new();
    let mut unit_commanders = [0usize; 2];
    let mut army_commanders = [0usize; 2];
    for (i, h) in written.iter().enumerate() {
        if h.name.trim().is_empty() {
            bail!("{origin}: `heroes[{i}].name` is empty");
        }
        if heroes.iter().any(|o| o.file.name == h.name) {
            bail!(
                "{origin}: two heroes are named \"{}\"; names must differ",
                h.name
            );
        }
        let mut hero = resolve_hero(origin, i, h, side_names)?;
        let side = hero.side;
        match h.role {
            Role::UnitCommander => {
                hero.major_unit = Some(unit_commanders[side]);
                unit_commanders[side] += 1;
            }
            Role::ArmyCommander => {
                army_commanders[side] += 1;
                if army_commanders[side] > 1 {
                    bail!(
                        "{origin}: side \"{}\" has two army commanders; at most one",
                        h.side
                    );
                }
            }
            Role::Soldier => {}
        }
        heroes.push(hero);
    }
    for (side, commanders) in sides.iter().zip(unit_commanders) {
        if commanders as i64 > side.file.major_units {
            bail!(
                "{origin}: side \"{}\" has {commanders} PC unit commanders but major_units = {}; raise major_units",
                side.file.name,
                side.file.major_units
            );
        }
    }
    Ok(heroes)
}

/// Checks one PC's numbers and works out his Combat skill and HP.
fn resolve_hero(origin: &str, i: usize, h: &HeroFile, side_names: [&str; 2]) -> Result<Hero> {
    let key = |k: &str| format!("heroes[{i}].{k} ({})", h.name);
    let side = side_index(origin, &key("side"), &h.side, side_names)?;
    let tactics = match (h.tactics, h.iq) {
        (Some(t), _) => t,
        (None, Some(iq)) => {
            check_range(origin, &key("iq"), iq, ATTRIBUTE)?;
            iq - TACTICS_BELOW_IQ
        }
        (None, None) => bail!(
            "{origin}: `{}` is missing; give `tactics` or `iq` (Tactics defaults to IQ − 6)",
            key("tactics")
        ),
    };
    check_range(origin, &key("tactics"), tactics, SKILL)?;
    check_range(origin, &key("weapon_skill"), h.weapon_skill, SKILL)?;
    check_range(origin, &key("ht"), h.ht, ATTRIBUTE)?;
    let hp = h.hp.unwrap_or(h.ht);
    check_range(origin, &key("hp"), hp, HIT_POINTS)?;
    check_range(origin, &key("dr"), h.dr, DAMAGE_RESISTANCE)?;
    check_range(origin, &key("toughness"), h.toughness, TOUGHNESS)?;
    check_range(origin, &key("risk"), h.risk, RISK)?;
    check_risk_traits(origin, &key("risk"), h)?;
    let combat_skill = (tactics + h.weapon_skill).div_euclid(2)
        + if h.combat_reflexes { 2 } else { 0 }
        + if h.danger_sense { 1 } else { 0 };
    Ok(Hero {
        file: h.clone(),
        side,
        combat_skill,
        hp,
        major_unit: None,
    })
}

/// Checks the Risk a PC's traits allow: a coward or a PC in reserve not
/// below −1, an overconfident PC not above +1, a berserk not above 0.
fn check_risk_traits(origin: &str, key: &str, h: &HeroFile) -> Result<()> {
    let (mut low, mut high) = (*RISK.start(), *RISK.end());
    let (mut why_low, mut why_high) = ("", "");
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
            "{origin}: `{key}` = {} is below what a {why_low} PC may choose; allowed: {low} to {high}",
            h.risk
        );
    }
    if h.risk > high {
        bail!(
            "{origin}: `{key}` = {} is above what a {why_high} PC may choose; allowed: {low} to {high}",
            h.risk
        );
    }
    Ok(())
}

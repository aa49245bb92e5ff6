//! The GURPS mass-combat tables, parsed and checked: every row present,
//! ranges contiguous, values in range.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use anyhow::{Result, anyhow, bail};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tables::TableFiles;
use crate::tables::Place;
use crate::tables::{
    TableSource, TableUse, built_in, load_text, origin as table_origin, parse_table as parse,
};

/// The GURPS tables, as a scenario's `[tables]` names them, in the order
/// they are loaded.
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

// The values each table key may take, declared on the types below (the
// loader enforces the same schema the JSON Schema files are written from).
/// A modifier to a roll (Strategy, Morale): −20 to +20.
pub const MODIFIER: RangeInclusive<i64> = -20..=20;
/// The Reputation one day's Glory gives: −10 to +10, so a battle of the
/// longest length stays far inside an `i16` total.
pub const GLORY_REPUTATION: RangeInclusive<i64> = -10..=10;
/// The smallest margin of a Survival or Glory row (at most 13: the best a
/// capped skill of 16 rolls on 3d6; −999 is the catch-all).
pub const ROW_MARGIN: RangeInclusive<i64> = -999..=13;
/// The smallest margin of victory of a battle-result row.
pub const RESULT_MARGIN: RangeInclusive<i64> = 0..=999;
/// A casualty row's margins.
pub const CASUALTY_MARGIN: RangeInclusive<i64> = -999..=999;
/// Base Morale of a troop quality.
pub const MORALE: RangeInclusive<i64> = 0..=30;
/// Casualty rows an armour class or a rout moves by (rout: d6 rolled).
pub const ROW_SHIFT: RangeInclusive<i64> = 0..=50;
/// d6 of rows a routing side moves.
pub const ROUT_DICE: RangeInclusive<i64> = 0..=10;
/// A Troop Strength ratio (larger over smaller).
pub const RATIO: RangeInclusive<f64> = 1.0..=1e9;

/// What happens to a leader on a catastrophe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LeaderHarm {
    /// Nothing.
    #[default]
    None,
    /// 2d damage at the start of the battle.
    Wounded,
    /// Killed (a PC: wounded and unconscious, no Survival or Glory roll).
    Killed,
}

/// One row of the catastrophe table.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatastropheRow {
    /// Inclusive 3d6 range.
    #[schemars(inner(range(min = 3, max = 18)))]
    pub roll: [i64; 2],
    /// Short name.
    pub label: String,
    /// Modifier to this side's Strategy roll.
    #[serde(default)]
    #[schemars(range(min = *MODIFIER.start(), max = *MODIFIER.end()))]
    pub strategy: i64,
    /// Percent added to the enemy's Troop Strength.
    #[serde(default)]
    #[schemars(range(min = 0, max = 100))]
    pub enemy_ts_pct: i64,
    /// Percent of this side's Troop Strength lost.
    #[serde(default)]
    #[schemars(range(min = 0, max = 100))]
    pub own_ts_pct: i64,
    /// Morale modifier to all units.
    #[serde(default)]
    #[schemars(range(min = *MODIFIER.start(), max = *MODIFIER.end()))]
    pub morale_all: i64,
    /// Morale to all units decided by a Morale roll: +N if made, −N if failed.
    #[serde(default)]
    #[schemars(range(min = 0, max = *MODIFIER.end()))]
    pub morale_by_roll: i64,
    /// Harm to a major unit's leader.
    #[serde(default)]
    pub major_leader: LeaderHarm,
    /// Harm to the army commander.
    #[serde(default)]
    pub commander: LeaderHarm,
}

/// The Catastrophe table file (3d6 per side each battle day; high is bad).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "GURPS table: catastrophe")]
pub struct CatastropheFile {
    /// Which table this file is: `catastrophe`.
    #[schemars(extend("const" = "catastrophe"))]
    pub kind: String,
    /// Keys, rows or cells of this file whose published value is unknown, named as
    /// table cells are (`rows`, `rows.draw`, `rows.4`, `rows.ally_defects.own_ts_pct`);
    /// each must exist in the file; reports mark them, consecutive rows as one
    /// run (`rows.0–4`).
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// Rows whose `roll` ranges cover 3 to 18 exactly once.
    #[schemars(length(min = 1, max = 16))]
    rows: Vec<CatastropheRow>,
}

/// A row of the Troop Strength ratio table.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RatioRow {
    /// Ratios up to this (inclusive) give `bonus`.
    #[schemars(range(min = *RATIO.start(), max = *RATIO.end()))]
    pub max_ratio: f64,
    /// Bonus to the larger side.
    #[schemars(range(min = *MODIFIER.start(), max = *MODIFIER.end()))]
    pub bonus: i64,
}

/// The Strategy contest modifiers.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StrategyTable {
    /// Which table this file is: `strategy`.
    #[schemars(extend("const" = "strategy"))]
    pub kind: String,
    /// Keys, rows or cells of this file whose published value is unknown, named as
    /// table cells are (`rows`, `rows.draw`, `rows.4`, `rows.ally_defects.own_ts_pct`);
    /// each must exist in the file; reports mark them, consecutive rows as one
    /// run (`rows.0–4`).
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// Troop Strength ratio rows, increasing.
    #[schemars(length(min = 1, max = 100))]
    pub ts_ratio: Vec<RatioRow>,
    /// Bonus beyond the last row.
    #[schemars(range(min = *MODIFIER.start(), max = *MODIFIER.end()))]
    pub ts_ratio_beyond: i64,
    /// TL lead above which the ratio bonus is uncapped.
    #[schemars(range(min = 0, max = 16))]
    pub uncapped_tl_lead: i64,
    /// The more advanced army adds TL difference + this.
    #[schemars(range(min = *MODIFIER.start(), max = *MODIFIER.end()))]
    pub tl_bonus_add: i64,
    /// Class superiority bonus.
    #[schemars(range(min = *MODIFIER.start(), max = *MODIFIER.end()))]
    pub class_superiority: i64,
    /// Defender's position entries: modifiers to the attacker's roll
    /// (−20 to +20 each).
    #[schemars(extend("additionalProperties" = {"type": "integer", "minimum": *MODIFIER.start(), "maximum": *MODIFIER.end()}))]
    pub position: BTreeMap<String, i64>,
}

/// A row of a table keyed by margin (battle results, survival, glory):
/// where it starts and what it is called.
pub trait MarginBand {
    /// Smallest margin of the row.
    fn min_margin(&self) -> i64;
    /// Category name.
    fn label(&self) -> &str;
}

/// A battle-result row: the category a margin of victory falls in.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResultRow {
    /// Smallest margin of victory of the row.
    #[schemars(range(min = *RESULT_MARGIN.start(), max = *RESULT_MARGIN.end()))]
    pub min_margin: i64,
    /// Category name.
    pub label: String,
    /// The loser's army commander is captured: on the days after, his side
    /// fights as if its commander were killed.
    #[serde(default)]
    pub captures_commander: bool,
    /// What a defender beaten by this margin does: `kept` (the default: it
    /// keeps its ground), `morale_check` (it holds if at least half its
    /// major units make Morale, else retreats in good order) or `retreats`
    /// (every defending unit retreats).
    #[serde(default)]
    pub ground: Ground,
}

/// What a battle result does to a beaten defender's ground.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ground {
    /// It keeps its ground.
    #[default]
    Kept,
    /// It holds if at least half its major units make Morale, else it
    /// retreats in good order.
    MoraleCheck,
    /// Every defending unit retreats.
    Retreats,
}

/// A Survival row: HP lost outright (`hp`), or a roll on a damage column
/// (`column`), never both.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SurvivalRow {
    /// Smallest margin of the row (at most 13: the best a capped skill of
    /// 16 rolls on 3d6).
    #[schemars(range(min = *ROW_MARGIN.start(), max = *ROW_MARGIN.end()))]
    pub min_margin: i64,
    /// Category name.
    pub label: String,
    /// HP lost outright (0 to 20; none when the row names a column).
    #[serde(default)]
    #[schemars(range(min = 0, max = 20))]
    pub hp: Option<i64>,
    /// Damage column (A–D) rolled instead of a fixed loss.
    #[serde(default)]
    pub column: Option<Column>,
}

impl SurvivalRow {
    /// HP lost outright (0 for a row that rolls a column).
    pub fn hp_lost(&self) -> i64 {
        self.hp.unwrap_or(0)
    }
}

/// A Glory row: the Reputation it gives and the Strategy modifier for a
/// commanding PC.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GloryRow {
    /// Smallest margin of the row (at most 13: the best a capped skill of
    /// 16 rolls on 3d6).
    #[schemars(range(min = *ROW_MARGIN.start(), max = *ROW_MARGIN.end()))]
    pub min_margin: i64,
    /// Category name.
    pub label: String,
    /// Reputation change (−10 to +10).
    #[serde(default)]
    #[schemars(range(min = *GLORY_REPUTATION.start(), max = *GLORY_REPUTATION.end()))]
    pub reputation: i64,
    /// Strategy modifier for a commanding PC.
    #[serde(default)]
    #[schemars(range(min = *MODIFIER.start(), max = *MODIFIER.end()))]
    pub strategy: i64,
}

macro_rules! margin_band {
    ($($row:ty),*) => {$(
        impl MarginBand for $row {
            fn min_margin(&self) -> i64 {
                self.min_margin
            }
            fn label(&self) -> &str {
                &self.label
            }
        }
    )*};
}
margin_band!(ResultRow, SurvivalRow, GloryRow);

/// The labels of a margin table's rows, in order.
pub fn labels(rows: &[impl MarginBand]) -> Vec<String> {
    rows.iter().map(|r| r.label().to_owned()).collect()
}

/// The battle-results table file: rows from margin 0 up.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "GURPS table: battle_results")]
pub struct ResultsFile {
    /// Which table this file is: `battle_results`.
    #[schemars(extend("const" = "battle_results"))]
    pub kind: String,
    /// Keys, rows or cells of this file whose published value is unknown, named as
    /// table cells are (`rows`, `rows.draw`, `rows.4`, `rows.ally_defects.own_ts_pct`);
    /// each must exist in the file; reports mark them, consecutive rows as one
    /// run (`rows.0–4`).
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// Rows, each applying from its `min_margin` up, smallest first.
    #[schemars(length(min = 1, max = 100))]
    rows: Vec<ResultRow>,
}

/// The Survival table file: rows from the best margin down.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "GURPS table: survival")]
pub struct SurvivalFile {
    /// Which table this file is: `survival`.
    #[schemars(extend("const" = "survival"))]
    pub kind: String,
    /// Keys, rows or cells of this file whose published value is unknown, named as
    /// table cells are (`rows`, `rows.draw`, `rows.4`, `rows.ally_defects.own_ts_pct`);
    /// each must exist in the file; reports mark them, consecutive rows as one
    /// run (`rows.0–4`).
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// Rows, each applying from its `min_margin` up, best first.
    #[schemars(length(min = 2, max = 100))]
    rows: Vec<SurvivalRow>,
}

/// The Glory table file: rows from the best margin down.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "GURPS table: glory")]
pub struct GloryFile {
    /// Which table this file is: `glory`.
    #[schemars(extend("const" = "glory"))]
    pub kind: String,
    /// Keys, rows or cells of this file whose published value is unknown, named as
    /// table cells are (`rows`, `rows.draw`, `rows.4`, `rows.ally_defects.own_ts_pct`);
    /// each must exist in the file; reports mark them, consecutive rows as one
    /// run (`rows.0–4`).
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// Rows, each applying from its `min_margin` up, best first.
    #[schemars(length(min = 2, max = 100))]
    rows: Vec<GloryRow>,
}

/// A damage column.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
pub enum Column {
    /// Column A.
    A,
    /// Column B.
    B,
    /// Column C.
    C,
    /// Column D.
    D,
}

impl Column {
    /// The column as files write it: `C`.
    pub fn key(self) -> &'static str {
        match self {
            Column::A => "A",
            Column::B => "B",
            Column::C => "C",
            Column::D => "D",
        }
    }
}

/// Dice of one hit: floor(TL · tl_num / tl_den) + dice, plus add.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HitDice {
    /// Numerator of the TL multiple.
    #[serde(default)]
    #[schemars(range(min = 0, max = 10))]
    pub tl_num: i64,
    /// Denominator of the TL multiple.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 100))]
    pub tl_den: i64,
    /// Dice added to the TL multiple (the dice of a hit, at every TL, 0 to 64).
    #[serde(default)]
    #[schemars(range(min = -64, max = 64))]
    pub dice: i64,
    /// Adds to the roll.
    #[serde(default)]
    #[schemars(range(min = -50, max = 50))]
    pub add: i64,
}

fn one() -> i64 {
    1
}

/// A TL band of the damage table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DamageBand {
    /// Inclusive TL range.
    #[schemars(inner(range(min = 0, max = 16)))]
    pub tl: [i64; 2],
    /// Dice per hit of columns A and B.
    pub a: HitDice,
    /// Dice per hit of columns C and D.
    pub c: HitDice,
    /// DR is divided by this.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 100))]
    pub dr_divisor: i64,
}

/// Hits per column.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct HitsPerColumn {
    /// Hits of column A.
    #[schemars(range(min = 0, max = 10))]
    pub A: i64,
    /// Hits of column B.
    #[schemars(range(min = 0, max = 10))]
    pub B: i64,
    /// Hits of column C.
    #[schemars(range(min = 0, max = 10))]
    pub C: i64,
    /// Hits of column D.
    #[schemars(range(min = 0, max = 10))]
    pub D: i64,
}

/// The damage table file: dice per hit by the enemy army's Tech Level.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "GURPS table: damage")]
pub struct DamageFile {
    /// Which table this file is: `damage`.
    #[schemars(extend("const" = "damage"))]
    pub kind: String,
    /// Keys, rows or cells of this file whose published value is unknown, named as
    /// table cells are (`rows`, `rows.draw`, `rows.4`, `rows.ally_defects.own_ts_pct`);
    /// each must exist in the file; reports mark them, consecutive rows as one
    /// run (`rows.0–4`).
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// Hits each damage column deals.
    hits: HitsPerColumn,
    /// Tech Level bands covering 0 to 16.
    #[schemars(length(min = 1, max = 17))]
    bands: Vec<DamageBand>,
}

/// A casualties row.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CasualtyRow {
    /// Inclusive margin range.
    #[schemars(inner(range(min = *CASUALTY_MARGIN.start(), max = *CASUALTY_MARGIN.end())))]
    pub margins: [i64; 2],
    /// d6 rolled.
    #[schemars(range(min = 0, max = 40))]
    pub dice: i64,
    /// Added percent.
    #[schemars(range(min = 0, max = 100))]
    pub add: i64,
}

/// Rows of shift toward less loss per armour class.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArmourRows {
    /// No armour.
    #[schemars(range(min = *ROW_SHIFT.start(), max = *ROW_SHIFT.end()))]
    pub none: i64,
    /// Light armour.
    #[schemars(range(min = *ROW_SHIFT.start(), max = *ROW_SHIFT.end()))]
    pub light: i64,
    /// Spearmen.
    #[schemars(range(min = *ROW_SHIFT.start(), max = *ROW_SHIFT.end()))]
    pub spearmen: i64,
    /// Medium armour.
    #[schemars(range(min = *ROW_SHIFT.start(), max = *ROW_SHIFT.end()))]
    pub medium: i64,
    /// Heavy armour.
    #[schemars(range(min = *ROW_SHIFT.start(), max = *ROW_SHIFT.end()))]
    pub heavy: i64,
}

/// The casualties table.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CasualtyTable {
    /// Which table this file is: `casualties`.
    #[schemars(extend("const" = "casualties"))]
    pub kind: String,
    /// Keys, rows or cells of this file whose published value is unknown, named as
    /// table cells are (`rows`, `rows.draw`, `rows.4`, `rows.ally_defects.own_ts_pct`);
    /// each must exist in the file; reports mark them, consecutive rows as one
    /// run (`rows.0–4`).
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// Rows, most loss first.
    #[schemars(length(min = 1, max = 200))]
    pub rows: Vec<CasualtyRow>,
    /// Armour shifts.
    pub armour_rows: ArmourRows,
    /// d6 of rows a routing side moves toward more loss.
    #[schemars(range(min = *ROUT_DICE.start(), max = *ROUT_DICE.end()))]
    pub rout_dice: i64,
}

/// Base Morale by troop quality.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoraleTable {
    /// Which table this file is: `morale`.
    #[schemars(extend("const" = "morale"))]
    pub kind: String,
    /// Keys, rows or cells of this file whose published value is unknown, named as
    /// table cells are (`rows`, `rows.draw`, `rows.4`, `rows.ally_defects.own_ts_pct`);
    /// each must exist in the file; reports mark them, consecutive rows as one
    /// run (`rows.0–4`).
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// Green troops.
    #[schemars(range(min = *MORALE.start(), max = *MORALE.end()))]
    pub green: i64,
    /// Average troops.
    #[schemars(range(min = *MORALE.start(), max = *MORALE.end()))]
    pub average: i64,
    /// Seasoned troops.
    #[schemars(range(min = *MORALE.start(), max = *MORALE.end()))]
    pub seasoned: i64,
    /// Veterans.
    #[schemars(range(min = *MORALE.start(), max = *MORALE.end()))]
    pub veteran: i64,
    /// Elite troops.
    #[schemars(range(min = *MORALE.start(), max = *MORALE.end()))]
    pub elite: i64,
}

/// Every GURPS table.
#[derive(Debug, Clone)]
pub struct GurpsTables {
    /// Indexed by roll 3..=18 (index 0..16).
    pub catastrophe: Vec<CatastropheRow>,
    /// Strategy modifiers.
    pub strategy: StrategyTable,
    /// Battle result by margin (increasing).
    pub battle_results: Vec<ResultRow>,
    /// Casualties.
    pub casualties: CasualtyTable,
    /// Survival rows, best first.
    pub survival: Vec<SurvivalRow>,
    /// Damage by TL.
    pub damage: DamageTable,
    /// Glory rows, best first.
    pub glory: Vec<GloryRow>,
    /// Morale by quality.
    pub morale: MoraleTable,
    /// Provenance of each table.
    pub uses: Vec<TableUse>,
}

/// The damage table.
#[derive(Debug, Clone)]
pub struct DamageTable {
    /// Hits per column.
    pub hits: HitsPerColumn,
    /// TL bands.
    pub bands: Vec<DamageBand>,
}

impl GurpsTables {
    /// Loads every table: the built-in one unless `overrides` names a file
    /// (read through `files`).
    pub fn load(overrides: &BTreeMap<String, TableSource>, files: &TableFiles) -> Result<GurpsTables> {
        let mut texts = BTreeMap::new();
        let mut uses = Vec::new();
        for name in TABLE_NAMES {
            let builtin = built_in(name).expect("scenarios/tables/ holds the GURPS tables");
            let (text, source) = load_text(builtin.text, overrides.get(name), files)
                .map_err(|e| anyhow!("[tables] {name}: {e:#}"))?;
            let origin = table_origin(&source, builtin.file);
            texts.insert(name, (text, origin));
        }
        let get = |name: &str| &texts[name];
        let mut record = |name: &str, stand_ins: &[String]| {
            let (text, source) = get(name);
            uses.push(TableUse::new(
                name,
                source.clone(),
                text,
                stand_ins.to_vec(),
            ));
        };

        let (text, origin) = get("catastrophe");
        let cat: CatastropheFile = parse(text, origin, "catastrophe")?;
        let catastrophe = catastrophe_by_roll(&cat.rows, Place { origin, text })?;
        record("catastrophe", &cat.stand_ins);

        let (text, origin) = get("strategy");
        let strategy: StrategyTable = parse(text, origin, "strategy")?;
        check_strategy(&strategy, Place { origin, text })?;
        record("strategy", &strategy.stand_ins);

        let (text, origin) = get("battle_results");
        let results: ResultsFile = parse(text, origin, "battle_results")?;
        check_ascending(&results.rows, Place { origin, text })?;
        record("battle_results", &results.stand_ins);

        let (text, origin) = get("casualties");
        let casualties: CasualtyTable = parse(text, origin, "casualties")?;
        check_casualties(&casualties.rows, origin)?;
        record("casualties", &casualties.stand_ins);

        let (text, origin) = get("survival");
        let survival: SurvivalFile = parse(text, origin, "survival")?;
        check_descending(&survival.rows, Place { origin, text })?;
        check_survival_rows(&survival.rows, origin)?;
        record("survival", &survival.stand_ins);

        let (text, origin) = get("damage");
        let damage: DamageFile = parse(text, origin, "damage")?;
        check_damage(&damage, origin)?;
        record("damage", &damage.stand_ins);

        let (text, origin) = get("glory");
        let glory: GloryFile = parse(text, origin, "glory")?;
        check_descending(&glory.rows, Place { origin, text })?;
        record("glory", &glory.stand_ins);

        let (text, origin) = get("morale");
        let morale: MoraleTable = parse(text, origin, "morale")?;
        record("morale", &morale.stand_ins);

        Ok(GurpsTables {
            catastrophe,
            strategy,
            battle_results: results.rows,
            casualties,
            survival: survival.rows,
            damage: DamageTable {
                hits: damage.hits,
                bands: damage.bands,
            },
            glory: glory.rows,
            morale,
            uses,
        })
    }

    /// The lowest and highest Reputation one day's Glory can give (0
    /// included: a PC who rolls no Glory gains none).
    pub fn reputation_range(&self) -> (i64, i64) {
        let gains = self.glory.iter().map(|r| r.reputation);
        (
            gains.clone().min().unwrap_or(0).min(0),
            gains.max().unwrap_or(0).max(0),
        )
    }

    /// The row index of a margin in a best-first table (last row catches all).
    pub fn margin_row(rows: &[impl MarginBand], margin: i64) -> usize {
        rows.iter()
            .position(|r| margin >= r.min_margin())
            .unwrap_or(rows.len() - 1)
    }

    /// The Morale every unit of a side loses on each day that starts with
    /// its army commander out (killed, captured, or a PC down or dead):
    /// the (highest) row that kills the commander, carried as its Strategy
    /// halving is. The row's index and its Morale; `None` if no row kills
    /// him.
    pub fn commander_out_morale(&self) -> Option<(usize, i64)> {
        self.last_row_morale(|r| r.commander == LeaderHarm::Killed)
    }

    /// The Morale every unit of a side loses on each day that starts with
    /// one of its PC unit leaders down or dead: that of the (highest) row
    /// that kills a major unit's leader, as a fallen leader is treated as
    /// that Catastrophe. The row's index and its Morale; `None` if no row
    /// kills one.
    pub fn leader_out_morale(&self) -> Option<(usize, i64)> {
        self.last_row_morale(|r| r.major_leader == LeaderHarm::Killed)
    }

    /// The highest Catastrophe row that `kills`: its index and its Morale.
    fn last_row_morale(&self, kills: impl Fn(&CatastropheRow) -> bool) -> Option<(usize, i64)> {
        let row = self.catastrophe.iter().rposition(kills)?;
        Some((row, self.catastrophe[row].morale_all))
    }

    /// The battle-result row of a margin of victory (≥ 0).
    pub fn result_row(&self, margin: i64) -> usize {
        self.battle_results
            .iter()
            .rposition(|r| margin >= r.min_margin)
            .unwrap_or(0)
    }

    /// The casualties row of a margin (negative: the loser).
    pub fn casualty_row(&self, margin: i64) -> usize {
        self.casualties
            .rows
            .iter()
            .position(|r| margin >= r.margins[0] && margin <= r.margins[1])
            .unwrap_or(if margin < 0 {
                0
            } else {
                self.casualties.rows.len() - 1
            })
    }

    /// The damage band of a TL.
    pub fn damage_band(&self, tl: i64) -> &DamageBand {
        self.damage
            .bands
            .iter()
            .find(|b| (b.tl[0]..=b.tl[1]).contains(&tl))
            .expect("every TL 0..16 is covered")
    }
}

/// The catastrophe rows indexed by roll 3..=18: each roll covered once.
fn catastrophe_by_roll(rows: &[CatastropheRow], place: Place) -> Result<Vec<CatastropheRow>> {
    let origin = place.origin;
    let mut by_roll: Vec<Option<CatastropheRow>> = vec![None; 16];
    for (i, row) in rows.iter().enumerate() {
        let [lo, hi] = row.roll;
        let at = place.at(&format!("rows.{i}.roll"));
        if lo > hi {
            bail!(
                "{at}: row `{}` has roll = [{lo}, {hi}]; allowed: 3 <= low <= high <= 18",
                row.label
            );
        }
        for r in lo..=hi {
            if by_roll[(r - 3) as usize].is_some() {
                bail!("{at}: roll {r} appears in two rows; each of 3..18 must appear once");
            }
            by_roll[(r - 3) as usize] = Some(row.clone());
        }
    }
    let missing: Vec<String> = (3..=18)
        .filter(|r| by_roll[(r - 3) as usize].is_none())
        .map(|r| r.to_string())
        .collect();
    if !missing.is_empty() {
        bail!(
            "{origin}: no row covers roll {}; rows must cover 3..18",
            missing.join(", ")
        );
    }
    Ok(by_roll.into_iter().map(|r| r.expect("checked")).collect())
}

/// The Troop Strength ratio rows increase from at least 1.
fn check_strategy(strategy: &StrategyTable, place: Place) -> Result<()> {
    if let Some(i) = strategy
        .ts_ratio
        .windows(2)
        .position(|w| w[0].max_ratio >= w[1].max_ratio)
    {
        bail!(
            "{}: `ts_ratio` rows must have increasing max_ratio values of at least 1; row {} (max_ratio = {}) does not rise above row {i} (max_ratio = {})",
            place.at(&format!("ts_ratio.{}.max_ratio", i + 1)),
            i + 1,
            strategy.ts_ratio[i + 1].max_ratio,
            strategy.ts_ratio[i].max_ratio
        );
    }
    Ok(())
}

/// Battle-result rows start at margin 0 and increase.
fn check_ascending(rows: &[ResultRow], place: Place) -> Result<()> {
    if let Some(first) = rows.first().filter(|r| r.min_margin != 0) {
        bail!(
            "{}: `rows` must start at min_margin = 0 and increase; the first row (`{}`) starts at {}, so margins below it have no row",
            place.at("rows.0.min_margin"),
            first.label,
            first.min_margin
        );
    }
    if let Some(i) = rows
        .windows(2)
        .position(|w| w[0].min_margin >= w[1].min_margin)
    {
        let (a, b) = (&rows[i], &rows[i + 1]);
        bail!(
            "{}: `rows` must start at min_margin = 0 and increase; row {} (`{}`, min_margin = {}) comes after row {i} (`{}`, min_margin = {})",
            place.at(&format!("rows.{}.min_margin", i + 1)),
            i + 1,
            b.label,
            b.min_margin,
            a.label,
            a.min_margin
        );
    }
    Ok(())
}

/// Casualty rows cover margins −99 to 99 contiguously.
fn check_casualties(rows: &[CasualtyRow], origin: &str) -> Result<()> {
    if rows[0].margins[0] > -99 || rows[rows.len() - 1].margins[1] < 99 {
        bail!("{origin}: `rows` must run from margin -99 or lower to 99 or higher");
    }
    for (i, w) in rows.windows(2).enumerate() {
        if w[1].margins[0] != w[0].margins[1] + 1 {
            bail!(
                "{origin}: rows[{}] ends at margin {} but rows[{}] starts at {}; rows must be contiguous",
                i,
                w[0].margins[1],
                i + 1,
                w[1].margins[0]
            );
        }
    }
    for (i, r) in rows.iter().enumerate() {
        if r.margins[0] > r.margins[1] {
            bail!(
                "{origin}: rows.{i}.margins = [{}, {}]; margins must be [low, high]",
                r.margins[0],
                r.margins[1]
            );
        }
    }
    Ok(())
}

/// A Survival row takes HP outright or rolls a column, not both.
fn check_survival_rows(rows: &[SurvivalRow], origin: &str) -> Result<()> {
    for r in rows {
        if let (Some(hp), Some(column)) = (r.hp, r.column) {
            bail!(
                "{origin}: row `{}` gives both `hp` = {hp} and `column` = \"{column:?}\"; \
                 a Survival row takes HP outright or rolls a damage column, not both",
                r.label
            );
        }
    }
    Ok(())
}

/// Damage bands cover every TL 0 to 16 once, with 0 to 64 dice per hit.
fn check_damage(damage: &DamageFile, origin: &str) -> Result<()> {
    for tl in 0..=16 {
        let n = damage
            .bands
            .iter()
            .filter(|b| (b.tl[0]..=b.tl[1]).contains(&tl))
            .count();
        if n != 1 {
            bail!("{origin}: TL {tl} is covered by {n} bands; each TL 0..16 must be covered once");
        }
    }
    for b in &damage.bands {
        for (key, d) in [("a", &b.a), ("c", &b.c)] {
            for tl in b.tl[0].max(0)..=b.tl[1].min(16) {
                let dice = (tl * d.tl_num).div_euclid(d.tl_den) + d.dice;
                if !(0..=64).contains(&dice) {
                    bail!(
                        "{origin}: band TL {:?}: `{key}` gives {dice} dice per hit at TL {tl}; allowed: 0 to 64",
                        b.tl
                    );
                }
            }
        }
    }
    Ok(())
}

/// Survival and Glory rows run from the best margin down to the
/// catch-all, whose `min_margin` is the lowest allowed ([`ROW_MARGIN`]).
fn check_descending(rows: &[impl MarginBand], place: Place) -> Result<()> {
    if let Some(i) = rows
        .windows(2)
        .position(|w| w[0].min_margin() <= w[1].min_margin())
    {
        let (a, b) = (&rows[i], &rows[i + 1]);
        bail!(
            "{}: `rows` must list at least two rows with decreasing min_margin, best first; row {} (`{}`, min_margin = {}) does not fall below row {i} (`{}`, min_margin = {})",
            place.at(&format!("rows.{}.min_margin", i + 1)),
            i + 1,
            b.label(),
            b.min_margin(),
            a.label(),
            a.min_margin()
        );
    }
    let catch_all = *ROW_MARGIN.start();
    if let Some(last) = rows.last().filter(|r| r.min_margin() != catch_all) {
        bail!(
            "{}: the last row (`{}`) must be the catch-all, min_margin = {catch_all}; at {} margins below it would have no row",
            place.at(&format!("rows.{}.min_margin", rows.len() - 1)),
            last.label(),
            last.min_margin()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_tables_load() {
        let t = GurpsTables::load(&BTreeMap::new(), &crate::tables::TableFiles::in_folder(std::path::Path::new("."))).unwrap();
        assert_eq!(t.catastrophe.len(), 16);
        assert_eq!(t.catastrophe[18 - 3].commander, LeaderHarm::Killed);
        assert_eq!(t.catastrophe[10 - 3].enemy_ts_pct, 10);
        assert_eq!(t.uses.len(), 8);
        let row = t.casualty_row(-3);
        assert_eq!(
            (t.casualties.rows[row].dice, t.casualties.rows[row].add),
            (4, 20)
        );
        assert_eq!(t.battle_results[t.result_row(9)].label, "significant");
        assert_eq!(
            t.survival[GurpsTables::margin_row(&t.survival, 0)].label,
            "2hp"
        );
        assert_eq!(
            t.survival[GurpsTables::margin_row(&t.survival, -7)].label,
            "D"
        );
    }
}

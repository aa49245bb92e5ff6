//! The 7th Sea tables: battle chart, Heroic Opportunity weights and Spoils.

use std::collections::BTreeMap;

use anyhow::{Result, anyhow, bail};
use schemars::JsonSchema;
use serde::Deserialize;

use super::roll_keep::Pool;
use crate::tables::TableFiles;
use crate::engine::inverse::InverseLaw;
use crate::tables::{
    Place, TableSource, TableUse, built_in, load_text, origin as table_origin, parse_table,
};

/// One cell of the battle chart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartCell {
    /// Damage pool, if any.
    pub damage: Option<Pool>,
    /// Reputation gained.
    pub reputation: i64,
    /// Whether a Heroic Opportunity arises.
    pub opportunity: bool,
}

/// One engagement level's cell of a chart row.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CellFile {
    /// Damage dice as "XkY", or "-" for none.
    damage: String,
    /// Reputation gained.
    #[schemars(range(min = 0, max = 10))]
    reputation: i64,
    /// Whether a Heroic Opportunity arises.
    #[serde(default)]
    opportunity: bool,
}

/// The first chart row's `min_result`: every result is at least this.
const CATCH_ALL_RESULT: i64 = -999;

/// A chart row: from `min_result` up, one cell per engagement level.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RowFile {
    /// Lowest personal result of the row (the first row is the catch-all,
    /// −999).
    #[schemars(range(min = CATCH_ALL_RESULT, max = 999))]
    min_result: i64,
    /// The Hero stays in the rear.
    rear: CellFile,
    /// Not engaged.
    not_engaged: CellFile,
    /// Engaged.
    engaged: CellFile,
    /// Heavily engaged.
    heavily_engaged: CellFile,
}

/// The battle chart file: personal result bands by engagement level.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "7th Sea table: battle_chart")]
pub struct ChartFile {
    /// Which table this file is: `battle_chart`.
    #[schemars(extend("const" = "battle_chart"))]
    pub kind: String,
    /// Keys, rows or cells of this file whose published value is unknown, named as
    /// table cells are (`rows`, `rows.draw`, `rows.4`, `rows.ally_defects.own_ts_pct`);
    /// each must exist in the file; reports mark them, consecutive rows as one
    /// run (`rows.0–4`).
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// Rows from the lowest band up.
    #[schemars(length(min = 1, max = 200))]
    rows: Vec<RowFile>,
}

/// The nine Heroic Opportunities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opportunity {
    /// Surgeon.
    Surgeon,
    /// Pick up the Banner.
    PickUpBanner,
    /// Hold the Line.
    HoldTheLine,
    /// Charge.
    Charge,
    /// Line of Fire.
    LineOfFire,
    /// Lure.
    Lure,
    /// Rescue the Wounded.
    RescueTheWounded,
    /// Capture the Enemy Banner.
    CaptureEnemyBanner,
    /// Duel.
    Duel,
}

impl Opportunity {
    /// All nine, in table order.
    pub const ALL: [Opportunity; 9] = [
        Opportunity::Surgeon,
        Opportunity::PickUpBanner,
        Opportunity::HoldTheLine,
        Opportunity::Charge,
        Opportunity::LineOfFire,
        Opportunity::Lure,
        Opportunity::RescueTheWounded,
        Opportunity::CaptureEnemyBanner,
        Opportunity::Duel,
    ];

    /// Its key in the table's `weights`: `pick_up_banner`.
    pub const KEYS: [&'static str; 9] = [
        "surgeon",
        "pick_up_banner",
        "hold_the_line",
        "charge",
        "line_of_fire",
        "lure",
        "rescue_the_wounded",
        "capture_enemy_banner",
        "duel",
    ];

    /// Its key in the table's `weights`.
    pub fn key(self) -> &'static str {
        let i = Self::ALL
            .iter()
            .position(|o| *o == self)
            .expect("every opportunity is in ALL");
        Self::KEYS[i]
    }
}

/// Relative weights of the nine Heroic Opportunities.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Weights {
    /// Weight of Surgeon.
    #[schemars(range(max = 1_000_000))]
    surgeon: u32,
    /// Weight of Pick up Banner.
    #[schemars(range(max = 1_000_000))]
    pick_up_banner: u32,
    /// Weight of Hold the Line.
    #[schemars(range(max = 1_000_000))]
    hold_the_line: u32,
    /// Weight of Charge.
    #[schemars(range(max = 1_000_000))]
    charge: u32,
    /// Weight of Line Of Fire.
    #[schemars(range(max = 1_000_000))]
    line_of_fire: u32,
    /// Weight of Lure.
    #[schemars(range(max = 1_000_000))]
    lure: u32,
    /// Weight of Rescue the Wounded.
    #[schemars(range(max = 1_000_000))]
    rescue_the_wounded: u32,
    /// Weight of Capture Enemy Banner.
    #[schemars(range(max = 1_000_000))]
    capture_enemy_banner: u32,
    /// Weight of Duel.
    #[schemars(range(max = 1_000_000))]
    duel: u32,
}

/// The duel opponent's figures.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Opponent {
    /// Finesse.
    #[schemars(range(min = 1, max = 10))]
    pub finesse: i64,
    /// Attack knack.
    #[schemars(range(min = 0, max = 10))]
    pub attack: i64,
    /// Resolve.
    #[schemars(range(min = 1, max = 10))]
    pub resolve: i64,
}

/// The Heroic Opportunities file: how often each is drawn, and the figures some need.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "7th Sea table: opportunities")]
pub struct OpportunityFile {
    /// Which table this file is: `opportunities`.
    #[schemars(extend("const" = "opportunities"))]
    pub kind: String,
    /// Keys, rows or cells of this file whose published value is unknown, named as
    /// table cells are (`rows`, `rows.draw`, `rows.4`, `rows.ally_defects.own_ts_pct`);
    /// each must exist in the file; reports mark them, consecutive rows as one
    /// run (`rows.0–4`).
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// How often each opportunity is drawn when the chart offers one.
    weights: Weights,
    /// Reputation change for refusing a duel.
    #[schemars(range(min = -10, max = 0))]
    refuse_duel_reputation: i64,
    /// Target number of the Line of Fire shot.
    #[schemars(range(min = 1, max = 200))]
    line_of_fire_tn: i64,
    /// The enemy met in a duel.
    duel_opponent: Opponent,
}

/// A Spoils row.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SpoilsRow {
    /// Lowest 1d10 + Commission roll of the row (a winner rolls 1 to 20).
    #[schemars(range(min = -999, max = 20))]
    min_roll: i64,
    /// What the winner gains.
    label: String,
}

/// The Spoils file: what winners gain on 1d10 + Commission rank.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "7th Sea table: spoils")]
pub struct SpoilsFile {
    /// Which table this file is: `spoils`.
    #[schemars(extend("const" = "spoils"))]
    pub kind: String,
    /// Keys, rows or cells of this file whose published value is unknown, named as
    /// table cells are (`rows`, `rows.draw`, `rows.4`, `rows.ally_defects.own_ts_pct`);
    /// each must exist in the file; reports mark them, consecutive rows as one
    /// run (`rows.0–4`).
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// Rows from the lowest roll up.
    #[schemars(length(min = 1, max = 100))]
    rows: Vec<SpoilsRow>,
}

/// Every 7th Sea table, checked.
#[derive(Debug, Clone)]
pub struct SeaTables {
    /// Chart rows: (min_result, cells by level rear..heavily_engaged), lowest first.
    pub chart: Vec<(i64, [ChartCell; 4])>,
    /// The chart row of each result from `row_lookup_base` up to the last
    /// row's `min_result` (results beyond clamp to the ends).
    row_lookup: Vec<u8>,
    /// The result of `row_lookup[0]`.
    row_lookup_base: i64,
    /// Draws an index into [`Opportunity::ALL`] by the weights.
    pub opportunities: InverseLaw,
    /// Reputation for refusing a duel.
    pub refuse_duel_reputation: i64,
    /// TN of the Line of Fire shot.
    pub line_of_fire_tn: i64,
    /// Duel opponent.
    pub duel_opponent: Opponent,
    /// Spoils rows (min_roll, label), lowest first.
    pub spoils: Vec<(i64, String)>,
    /// Provenance.
    pub uses: Vec<TableUse>,
}

/// Parses `XkY` or `-`.
pub fn parse_pool(text: &str, origin: &str, key: &str) -> Result<Option<Pool>> {
    let t = text.trim();
    if t == "-" {
        return Ok(None);
    }
    let parsed = t
        .split_once('k')
        .and_then(|(x, y)| Some((x.parse::<i64>().ok()?, y.parse::<i64>().ok()?)));
    match parsed {
        Some((x, y)) if (1..=20).contains(&x) && (1..=x).contains(&y) => Ok(Some(Pool::new(x, y))),
        _ => bail!("{origin}: {key} = \"{text}\": expected XkY with 1 <= Y <= X <= 20, or \"-\""),
    }
}

impl SeaTables {
    /// Loads the tables, built-in unless `overrides` names a file.
    pub fn load(overrides: &BTreeMap<String, TableSource>, files: &TableFiles) -> Result<SeaTables> {
        let mut uses = Vec::new();
        let mut text_of = |name: &str| -> Result<(String, String)> {
            let builtin = built_in(name).expect("scenarios/tables/ holds the 7th Sea tables");
            let (text, source) = load_text(builtin.text, overrides.get(name), files)
                .map_err(|e| anyhow!("[tables] {name}: {e:#}"))?;
            let origin = table_origin(&source, builtin.file);
            uses.push((name.to_owned(), source, text.clone()));
            Ok((text, origin))
        };
        let (chart_text, origin) = text_of("battle_chart")?;
        let chart_file: ChartFile = parse_table(&chart_text, &origin, "battle_chart")?;
        let chart = chart_cells(
            &chart_file.rows,
            Place {
                origin: &origin,
                text: &chart_text,
            },
        )?;
        let (text, origin) = text_of("opportunities")?;
        let opp: OpportunityFile = parse_table(&text, &origin, "opportunities")?;
        let weights = check_opportunities(&opp, &origin)?;
        let o = opp.duel_opponent;
        let (text, origin) = text_of("spoils")?;
        let spoils_file: SpoilsFile = parse_table(&text, &origin, "spoils")?;
        let place = Place {
            origin: &origin,
            text: &text,
        };
        if let Some(first) = spoils_file.rows.first().filter(|r| r.min_roll > 1) {
            bail!(
                "{}: the first row (`{}`) must take the lowest roll, min_roll = 1 or less; at {} a roll of 1 to {} (1d10 + Commission 0) would have no row",
                place.at("rows.0.min_roll"),
                first.label,
                first.min_roll,
                first.min_roll - 1
            );
        }
        if let Some(i) = spoils_file
            .rows
            .windows(2)
            .position(|w| w[0].min_roll >= w[1].min_roll)
        {
            let (a, b) = (&spoils_file.rows[i], &spoils_file.rows[i + 1]);
            bail!(
                "{}: `rows` must be non-empty with increasing min_roll; row {} (`{}`, min_roll = {}) comes after row {i} (`{}`, min_roll = {})",
                place.at(&format!("rows.{}.min_roll", i + 1)),
                i + 1,
                b.label,
                b.min_roll,
                a.label,
                a.min_roll
            );
        }
        let stand_ins = [chart_file.stand_ins, opp.stand_ins, spoils_file.stand_ins];
        let row_lookup_base = chart.get(1).map_or(0, |(min, _)| min - 1);
        let last = chart.last().map_or(0, |(min, _)| *min).max(row_lookup_base);
        let row_lookup = (row_lookup_base..=last)
            .map(|result| {
                chart
                    .iter()
                    .rposition(|(min, _)| result >= *min)
                    .unwrap_or(0) as u8
            })
            .collect();
        Ok(SeaTables {
            chart,
            row_lookup,
            row_lookup_base,
            opportunities: InverseLaw::new(&weights.map(f64::from)),
            refuse_duel_reputation: opp.refuse_duel_reputation,
            line_of_fire_tn: opp.line_of_fire_tn,
            duel_opponent: o,
            spoils: spoils_file
                .rows
                .into_iter()
                .map(|r| (r.min_roll, r.label))
                .collect(),
            uses: uses
                .into_iter()
                .zip(stand_ins)
                .map(|((name, source, text), stand_ins)| {
                    TableUse::new(&name, source, &text, stand_ins)
                })
                .collect(),
        })
    }

    /// The index in `chart` of the row a personal result lands on.
    pub fn chart_row(&self, result: i64) -> usize {
        let last = self.row_lookup.len() as i64 - 1;
        let at = (result - self.row_lookup_base).clamp(0, last) as usize;
        usize::from(self.row_lookup[at])
    }

    /// Refuses a Spoils row no roll reaches, when a winner rolls at most
    /// `highest` (1d10 + the highest Commission rank).
    pub fn check_spoils_reach(&self, highest: i64) -> Result<()> {
        let origin = self
            .uses
            .iter()
            .find(|t| t.name == "spoils")
            .map_or("spoils", |t| t.source.as_str());
        if let Some((i, (min_roll, label))) = self
            .spoils
            .iter()
            .enumerate()
            .find(|(_, (min_roll, _))| *min_roll > highest)
        {
            bail!(
                "{origin}: `rows` row {i} (`{label}`, min_roll = {min_roll}) can never be rolled: 1d10 + Commission reaches at most {highest}"
            );
        }
        Ok(())
    }

    /// The spoils row of a roll.
    pub fn spoils_row(&self, roll: i64) -> usize {
        self.spoils
            .iter()
            .rposition(|(min, _)| roll >= *min)
            .unwrap_or(0)
    }
}

/// The chart's cells, checked: rows with increasing `min_result`, damage
/// written `XkY` or `-` (ranges and row counts are checked by the loader).
fn chart_cells(rows: &[RowFile], place: Place) -> Result<Vec<(i64, [ChartCell; 4])>> {
    if let Some(first) = rows.first().filter(|r| r.min_result != CATCH_ALL_RESULT) {
        bail!(
            "{}: the first row must be the catch-all, min_result = {CATCH_ALL_RESULT}; at {} a lower personal result would have no row",
            place.at("rows.0.min_result"),
            first.min_result
        );
    }
    if let Some(i) = rows
        .windows(2)
        .position(|w| w[0].min_result >= w[1].min_result)
    {
        bail!(
            "{}: `rows` must be non-empty with increasing min_result; row {} (min_result = {}) comes after row {i} (min_result = {})",
            place.at(&format!("rows.{}.min_result", i + 1)),
            i + 1,
            rows[i + 1].min_result,
            rows[i].min_result
        );
    }
    let mut chart = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let cell = |c: &CellFile, level: &str| -> Result<ChartCell> {
            let key = format!("rows.{i}.{level}.damage");
            Ok(ChartCell {
                damage: parse_pool(&c.damage, &place.at(&key), &key)?,
                reputation: c.reputation,
                opportunity: c.opportunity,
            })
        };
        chart.push((
            r.min_result,
            [
                cell(&r.rear, "rear")?,
                cell(&r.not_engaged, "not_engaged")?,
                cell(&r.engaged, "engaged")?,
                cell(&r.heavily_engaged, "heavily_engaged")?,
            ],
        ));
    }
    Ok(chart)
}

/// The opportunity weights in [`Opportunity::ALL`] order, after checking
/// them and the figures the opportunities use.
fn check_opportunities(opp: &OpportunityFile, origin: &str) -> Result<[u32; 9]> {
    let w = opp.weights;
    let weights = [
        w.surgeon,
        w.pick_up_banner,
        w.hold_the_line,
        w.charge,
        w.line_of_fire,
        w.lure,
        w.rescue_the_wounded,
        w.capture_enemy_banner,
        w.duel,
    ];
    if weights.iter().sum::<u32>() == 0 {
        bail!("{origin}: `weights` must be whole numbers 0 to 1000000, not all 0");
    }
    Ok(weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_lookup_agrees_with_the_rows_min_results() {
        let t = SeaTables::load(&Default::default(), &crate::tables::TableFiles::in_folder(std::path::Path::new("."))).unwrap();
        for result in -1100..1100 {
            let row = t
                .chart
                .iter()
                .rposition(|(min, _)| result >= *min)
                .unwrap_or(0);
            assert_eq!(t.chart_row(result), row, "{result}");
        }
    }
}

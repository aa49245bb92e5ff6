//! War cards (docs/rules.md §1): two units fight an engagement with Combat Cards.

pub mod deck;
pub mod exact;
pub mod rules;
pub mod skew;
pub mod table;
pub mod tally;

use crate::stats::identity::{Identity, Pick::*, Subject::*, bins};
use std::fmt::Write as _;
use std::ops::RangeInclusive;

use anyhow::{Result, anyhow, bail};
use schemars::JsonSchema;
use serde::Deserialize;

use self::deck::{COLUMNS, CardResult, Deck, Sign, column_index, row_key};
use self::rules::{ATTACKER, Combatant, DEFENDER, Draw, EngagementOutcome, EngagementRules, Picks};
use self::table::EngagementTable;
use self::tally::{EndingCounts, WarTally};
use crate::tables::TableFiles;
use crate::engine::{Chunk, System, Tally};
use crate::engine::dice::chance_threshold;
use crate::stats::Metric;
use crate::systems::contract::{BattleSystem, CellMove, Layout};
use crate::tables::cells::Cell;
use crate::tables::cells::CellReads;
use crate::tables::validate::{CrossKeyRule, Header, check_range};
use crate::tables::{self, TableSource, TableUse};

/// Allowed range of melee, missile, defence and modifier values.
const RATING_RANGE: RangeInclusive<i64> = -20..=20;
/// Allowed damage on a unit card.
const HITS: RangeInclusive<i64> = 0..=100;
/// Allowed volleys before melee.
const MISSILE_VOLLEYS: RangeInclusive<i64> = 0..=100;
/// Allowed melee exchanges.
const MAX_EXCHANGES: RangeInclusive<i64> = 1..=10_000;

/// A unit as written in a scenario.
#[derive(Debug, Clone, Deserialize, serde::Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Unit {
    /// Display name, unique in the scenario.
    pub name: String,
    /// Morale sign.
    pub sign: Sign,
    /// Melee attack value.
    #[schemars(range(min = *RATING_RANGE.start(), max = *RATING_RANGE.end()))]
    pub melee: i64,
    /// Missile attack value; a unit with one is a shooter and ignores `F`.
    #[serde(default)]
    #[schemars(range(min = *RATING_RANGE.start(), max = *RATING_RANGE.end()))]
    pub missile: Option<i64>,
    /// Defence value.
    #[schemars(range(min = *RATING_RANGE.start(), max = *RATING_RANGE.end()))]
    pub defence: i64,
    /// Maximum damage on the unit card (one more destroys it).
    #[schemars(range(min = *HITS.start(), max = *HITS.end()))]
    pub hits: i64,
    /// Situational modifier added to this unit's attack columns.
    #[serde(default)]
    #[schemars(range(min = *RATING_RANGE.start(), max = *RATING_RANGE.end()))]
    pub modifier: i64,
}

impl Unit {
    /// Whether the unit shoots (and so ignores `F`).
    pub fn is_shooter(&self) -> bool {
        self.missile.is_some()
    }
}

/// The `[engagement]` section.
#[derive(Debug, Clone, Deserialize, serde::Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Engagement {
    /// Volleys before melee; only shooters fire.
    #[serde(default)]
    #[schemars(range(min = *MISSILE_VOLLEYS.start(), max = *MISSILE_VOLLEYS.end()))]
    pub missile_volleys: i64,
    /// Melee exchanges before the engagement is called off.
    #[serde(default = "default_max_exchanges")]
    #[schemars(range(min = *MAX_EXCHANGES.start(), max = *MAX_EXCHANGES.end()))]
    pub max_exchanges: i64,
    /// `die` (1dN per attack) or `deck` (shared deck without replacement).
    #[serde(default = "default_draw")]
    pub draw: Draw,
    /// Chance a routed unit rallies back into the fight (0 to 1) [stand-in].
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub rally_chance: f64,
}

fn default_max_exchanges() -> i64 {
    20
}

fn default_draw() -> Draw {
    Draw::Die
}

impl Default for Engagement {
    fn default() -> Self {
        Engagement {
            missile_volleys: 0,
            max_exchanges: default_max_exchanges(),
            draw: default_draw(),
            rally_chance: 0.0,
        }
    }
}

/// The `[tables]` section: tuned tables, by file (relative to the
/// scenario) or with cells set.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TablesSection {
    /// A tuned Combat Card deck: a file relative to the scenario file, or
    /// the deck with cells set (`file`, `set`).
    #[serde(default)]
    #[schemars(schema_with = "crate::tables::validate::table_source_schema")]
    cards: Option<TableSource>,
}

/// A war-cards scenario file, as written.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "War-cards engagement scenario")]
pub struct ScenarioFile {
    /// Names the rules: "war_cards".
    #[serde(rename = "system")]
    #[schemars(extend("const" = "war_cards"))]
    _system: String,
    /// The battle's display name.
    name: String,
    /// Battles to run (default 1,000,000).
    #[schemars(range(min = 1, max = crate::engine::MAX_TRIALS))]
    trials: Option<i64>,
    /// Seed of the random streams (default 1).
    seed: Option<u64>,
    /// The attacking unit.
    attacker: Unit,
    /// The defending unit.
    defender: Unit,
    /// How the engagement is fought.
    #[serde(default)]
    engagement: Engagement,
    /// Tuned tables replacing the built-in ones.
    #[serde(default)]
    tables: TablesSection,
}

/// A validated war-cards battle.
#[derive(Debug, Clone)]
pub struct WarCards {
    /// Attacker and defender.
    pub units: [Unit; 2],
    /// Engagement settings.
    pub engagement: Engagement,
    /// The deck in use.
    pub deck: Deck,
    /// Precomputed per-attack results.
    pub rules: EngagementRules,
    /// The engagement precomputed, which fights it when present (the same
    /// law as `rules`, faster); `None` for engagements too large for it.
    pub table: Option<EngagementTable>,
    /// Provenance of the tables.
    pub tables: Vec<TableUse>,
}

impl WarCards {
    /// Validates the units and settings and precomputes the attack tables.
    pub fn new(
        units: [Unit; 2],
        engagement: Engagement,
        deck: Deck,
        tables: Vec<TableUse>,
        origin: &str,
    ) -> Result<WarCards> {
        for (unit, section) in units.iter().zip(["attacker", "defender"]) {
            if unit.name.trim().is_empty() {
                bail!("{origin}: `{section}.name` is empty");
            }
            check_range(
                origin,
                &format!("{section}.melee"),
                unit.melee,
                RATING_RANGE,
            )?;
            check_range(
                origin,
                &format!("{section}.defence"),
                unit.defence,
                RATING_RANGE,
            )?;
            check_range(
                origin,
                &format!("{section}.modifier"),
                unit.modifier,
                RATING_RANGE,
            )?;
            if let Some(missile) = unit.missile {
                check_range(origin, &format!("{section}.missile"), missile, RATING_RANGE)?;
            }
            check_range(origin, &format!("{section}.hits"), unit.hits, HITS)?;
        }
        if units[0].name == units[1].name {
            bail!(
                "{origin}: attacker and defender are both named \"{}\"; names must differ",
                units[0].name
            );
        }
        check_range(
            origin,
            "engagement.missile_volleys",
            engagement.missile_volleys,
            MISSILE_VOLLEYS,
        )?;
        check_range(
            origin,
            "engagement.max_exchanges",
            engagement.max_exchanges,
            MAX_EXCHANGES,
        )?;
        if !(0.0..=1.0).contains(&engagement.rally_chance) {
            bail!(
                "{origin}: `engagement.rally_chance` = {} is out of range; allowed: 0 to 1",
                engagement.rally_chance
            );
        }
        if engagement.missile_volleys > 0 && !units.iter().any(Unit::is_shooter) {
            bail!(
                "{origin}: `engagement.missile_volleys` = {} but neither unit can shoot; give a shooter a `missile` value or set missile_volleys = 0",
                engagement.missile_volleys
            );
        }
        let attack_results = |attacker: &Unit, defender: &Unit, value: i64| {
            let row = deck.row_for(attacker.sign, defender.sign);
            deck.results_at(
                row,
                column_index(value - defender.defence + attacker.modifier),
            )
        };
        let [a, d] = &units;
        let combatants = [a, d].map(|u| Combatant {
            max_damage: u.hits as u32,
            shooter: u.is_shooter(),
        });
        let melee = [attack_results(a, d, a.melee), attack_results(d, a, d.melee)];
        let rally_threshold = chance_threshold(engagement.rally_chance);
        let missile = [
            a.missile.map(|m| attack_results(a, d, m)),
            d.missile.map(|m| attack_results(d, a, m)),
        ];
        let table = EngagementTable::build(
            combatants,
            &melee,
            &missile,
            engagement.draw,
            rally_threshold,
            engagement.missile_volleys as u32,
        );
        let rules = EngagementRules {
            units: combatants,
            melee,
            missile,
            missile_volleys: engagement.missile_volleys as u32,
            max_exchanges: engagement.max_exchanges as u32,
            draw: engagement.draw,
            rally_threshold,
        };
        Ok(WarCards {
            units,
            engagement,
            deck,
            rules,
            table,
            tables,
        })
    }

    /// The units' names, attacker first.
    pub fn names(&self) -> [&str; 2] {
        [&self.units[ATTACKER].name, &self.units[DEFENDER].name]
    }

    /// The cells (row, column) this engagement reads on every card: each
    /// unit's melee attack and, for a shooter, its missile attack.
    pub fn cells_read(&self) -> Vec<(usize, usize)> {
        let [a, d] = &self.units;
        let mut cells = Vec::new();
        for (attacker, defender) in [(a, d), (d, a)] {
            let row = self.deck.row_for(attacker.sign, defender.sign);
            for value in std::iter::once(attacker.melee).chain(attacker.missile) {
                let cell = (
                    row,
                    column_index(value - defender.defence + attacker.modifier),
                );
                if !cells.contains(&cell) {
                    cells.push(cell);
                }
            }
        }
        cells
    }

    /// This engagement fought with one cell of one card changed.
    pub fn with_cell(
        &self,
        card: usize,
        row: usize,
        column: usize,
        result: CardResult,
    ) -> Result<WarCards> {
        let mut deck = self.deck.clone();
        deck.cards[card][row][column] = result;
        WarCards::new(
            self.units.clone(),
            self.engagement.clone(),
            deck,
            self.tables.clone(),
            "--cells",
        )
    }
}

impl BattleSystem for WarCards {
    const NAME: &'static str = "war_cards";
    const TITLE: &'static str = "war cards";
    const STARTER: &'static str = include_str!("starter.toml");

    /// Every cell of every card that this engagement reads, moved to each
    /// neighbouring result (in the order `- F H R D`).
    fn own_cell_moves(&self) -> Option<Result<Vec<CellMove<Self>>>> {
        let mut moves = Vec::new();
        for (row, column) in self.cells_read() {
            for (card, grid) in self.deck.cards.iter().enumerate() {
                let now = grid[row][column];
                let i = now.index();
                let neighbours = [
                    i.checked_sub(1),
                    Some(i + 1).filter(|&j| j < CardResult::ALL.len()),
                ];
                for j in neighbours.into_iter().flatten() {
                    let to = CardResult::ALL[j];
                    let battle = match self.with_cell(card, row, column, to) {
                        Ok(battle) => battle,
                        Err(e) => return Some(Err(e)),
                    };
                    moves.push(CellMove {
                        knob: format!("card{}.{}.{}", card + 1, row_key(row), COLUMNS[column]),
                        lowers: j < i,
                        cell: Cell {
                            table: "cards".to_owned(),
                            row: format!("card{}.{}", card + 1, row_key(row)),
                            column: COLUMNS[column].to_owned(),
                        },
                        from: now.symbol().to_owned(),
                        to: to.symbol().to_owned(),
                        battle,
                    });
                }
            }
        }
        Some(Ok(moves))
    }
    const CHECK_RULES: &'static [CrossKeyRule] = &[
        CrossKeyRule {
            refuses: "`missile_volleys` above 0 when neither unit has `missile`",
            says: "neither unit can shoot",
        },
    ];

    fn metric_words(metric: &str) -> Option<(&'static str, Option<&'static str>)> {
        Some(match metric {
            "winner" => ("winner", None),
            "end" => ("how the engagement ended", None),
            "exchanges" => ("exchanges fought", Some("exchanges")),
            "volleys" => ("volleys fired", Some("volleys")),
            "damage" => ("damage taken", Some("hits")),
            "fate" => ("fate", None),
            _ => return None,
        })
    }

    /// The engagement's length swept, the rally chance solved for an even
    /// fight, and the attacker's victory as the sensitivity's target.
    fn example_questions(_doc: &serde_json::Value) -> serde_json::Value {
        serde_json::json!({
            "sweep": { "set": ["engagement.max_exchanges=5..30:5"] },
            "solve": {
                "vary": "engagement.rally_chance=0..1",
                "target": "battle/winner=attacker",
                "goal": { "equals": 0.5 }
            },
            "sensitivity": { "target": "battle/winner=attacker" }
        })
    }

    /// Parses and validates a war-cards scenario.
    fn from_scenario(text: &str, origin: &str, files: &TableFiles) -> Result<(Header, WarCards)> {
        let file: ScenarioFile =
            toml::from_str(text).map_err(|e| crate::tables::validate::toml_error(origin, e))?;
        let (deck_text, source) = tables::load_text(
            tables::built_in_text("cards"),
            file.tables.cards.as_ref(),
            files,
        )
        .map_err(|e| anyhow!("{origin}: [tables] cards: {e:#}"))?;
        let deck = Deck::parse(&deck_text, &source)?;
        let table = TableUse::new("cards", source, &deck_text, deck.stand_ins.clone());
        let battle = WarCards::new(
            [file.attacker, file.defender],
            file.engagement,
            deck,
            vec![table],
            origin,
        )?;
        let header = Header {
            name: file.name,
            trials: file.trials,
            seed: file.seed,
        };
        Ok((header, battle))
    }

    const IDENTITIES: &'static [Identity] = &[
        // No unit wins when both leave the field or the exchanges run out.
        Identity::Same(
            bins(Named("battle"), "winner", These(&["none"])),
            bins(Named("battle"), "end", These(&["both_out", "max_exchanges"])),
        ),
    ];

    const EXACT_ODDS: Option<&'static str> = Some("war cards with die draw");

    const BATTLE_NOUN: [&'static str; 2] = ["engagement", "engagements"];

    /// The exact distribution of every metric (die draw only).
    fn exact(&self) -> Result<Vec<Metric<f64>>> {
        let tally =
            exact::exact_distribution(&self.rules, self.names(), self.engagement.rally_chance)?;
        Ok(tally.metrics())
    }

    /// Rules of this engagement whose published form is unknown.
    fn stand_in_rules(&self) -> Vec<String> {
        let mut rules = vec![
            "war_cards: column = clamp(attack \u{2212} defence + modifier, \u{2212}3, +3)".to_owned(),
            "war_cards: engagement = volleys, then simultaneous melee exchanges until a unit leaves or max_exchanges".to_owned(),
            "war_cards: shooters (units with `missile`) ignore F in melee as well as when shooting".to_owned(),
        ];
        if self.engagement.draw == Draw::Deck {
            rules.push("war_cards: draw = \"deck\" (one shared deck, reshuffled when empty, fresh each engagement)".to_owned());
        }
        if self.engagement.rally_chance > 0.0 {
            rules.push(
                "war_cards: rally_chance (a routed unit rallies at once with this chance)"
                    .to_owned(),
            );
        }
        rules
    }

    /// A readable account of the resolved battle for `warcrunch check`.
    fn describe(&self) -> String {
        let mut out = String::new();
        let e = &self.engagement;
        let _ = writeln!(
            out,
            "engagement: missile_volleys = {}, max_exchanges = {}, draw = {}, rally_chance = {}",
            e.missile_volleys,
            e.max_exchanges,
            match e.draw {
                Draw::Die => format!("die (1d{} per attack)", self.deck.cards.len()),
                Draw::Deck => format!("deck ({} cards, shared)", self.deck.cards.len()),
            },
            e.rally_chance
        );
        for (side, role) in [(ATTACKER, "attacker"), (DEFENDER, "defender")] {
            let u = &self.units[side];
            let other = &self.units[1 - side];
            let _ = writeln!(
                out,
                "{role}: {} (sign {}, melee {}, missile {}, defence {}, hits {}, modifier {:+}{})",
                u.name,
                u.sign.name(),
                u.melee,
                u.missile.map_or("-".to_owned(), |m| m.to_string()),
                u.defence,
                u.hits,
                u.modifier,
                if u.is_shooter() {
                    ", shooter: ignores F"
                } else {
                    ""
                }
            );
            let row = self.deck.row_for(u.sign, other.sign);
            let mut attacks = vec![("melee", u.melee)];
            if let Some(m) = u.missile {
                attacks.push(("missile", m));
            }
            for (kind, value) in attacks {
                let column = column_index(value - other.defence + u.modifier);
                let counts = self.deck.counts_at(row, column);
                let n = self.deck.cards.len() as f64;
                let odds: Vec<String> = CardResult::ALL
                    .iter()
                    .map(|r| {
                        format!(
                            "{} {:.1}%",
                            r.symbol(),
                            100.0 * counts[r.index()] as f64 / n
                        )
                    })
                    .collect();
                let _ = writeln!(
                    out,
                    "  {kind} on {}: row {}, column {}: {}",
                    other.name,
                    row_key(row),
                    COLUMNS[column],
                    odds.join(", ")
                );
            }
        }
        out
    }

    fn metrics_of(&self, tally: &WarTally<u64>) -> Vec<Metric<u64>> {
        tally.metrics()
    }

    fn tables(&self) -> &[TableUse] {
        &self.tables
    }

    fn read_cells<R: rand::Rng>(&self, rng: &mut R, reads: &mut CellReads) {
        /// Each draw noted as the card's cell the side reads.
        struct Noting<'a> {
            reads: &'a mut CellReads,
            /// Per side: its row key, and the columns of its melee and missile values.
            cells: [(String, &'static str, &'static str); 2],
        }
        impl Picks for Noting<'_> {
            fn picked(&mut self, side: usize, card: usize, missile: bool) {
                let (row, melee, shot) = &self.cells[side];
                let column = if missile { shot } else { melee };
                self.reads
                    .note("cards", || format!("card{}.{row}", card + 1), column);
            }
        }
        let [a, d] = &self.units;
        let cells = [(a, d), (d, a)].map(|(me, them)| {
            let row = self.deck.row_for(me.sign, them.sign);
            let column = |value: i64| COLUMNS[column_index(value - them.defence + me.modifier)];
            (
                row_key(row),
                column(me.melee),
                me.missile.map_or("", column),
            )
        });
        self.rules.fight_telling(rng, &mut Noting { reads, cells });
    }

    fn scenario_layout() -> Layout {
        Layout::of::<ScenarioFile>("war_cards", "War-cards engagement scenario")
    }

    fn table_layouts() -> Vec<Layout> {
        vec![Layout::of::<deck::DeckFile>(
            "cards",
            "War cards table: the Combat Card deck",
        )]
    }
}

impl System for WarCards {
    type Outcome = EngagementOutcome;
    type Tally = WarTally<u64>;

    fn new_tally(&self) -> WarTally<u64> {
        WarTally::new(
            self.names(),
            self.rules.max_exchanges,
            self.rules.missile_volleys,
            self.rules.units.map(|u| u.max_damage),
        )
    }

    #[inline(always)]
    fn simulate(&self, rng: &mut crate::engine::stream::BattleStream) -> EngagementOutcome {
        self.fight(rng)
    }

    /// Counts each engagement the table fights by how it ended (three
    /// counts, where its outcome has eight); one the table cannot hold is
    /// fought and counted as any battle is.
    fn fight_into(&self, chunk: Chunk, tally: &mut WarTally<u64>) {
        let Some(table) = &self.table else {
            for mut window in chunk.windows() {
                tally.record(&self.simulate(&mut window));
            }
            return;
        };
        let max_exchanges = self.rules.max_exchanges;
        let finals = table.finals();
        let mut counts = EndingCounts::new(finals.len(), max_exchanges, self.rules.missile_volleys);
        for mut window in chunk.windows() {
            counts.count(table.fight_to_end(&mut window, max_exchanges));
        }
        counts.add_into(tally, finals);
    }

    /// An engagement the table fights ends in three parts: its final
    /// outcome's number, the melee exchanges and the missile volleys.
    fn part_bounds(&self) -> Option<Vec<usize>> {
        let table = self.table.as_ref()?;
        Some(vec![
            table.finals().len(),
            self.rules.max_exchanges as usize + 1,
            self.rules.missile_volleys as usize + 1,
        ])
    }

    #[inline(always)]
    fn fight_parts(&self, window: &mut crate::engine::stream::BattleStream) -> crate::engine::Parts {
        let table = self.table.as_ref().expect("parts only where a table fights");
        let ending = table.fight_to_end(window, self.rules.max_exchanges);
        [ending.last, ending.exchanges, ending.volleys, 0]
    }

    fn record_part(&self, tally: &mut WarTally<u64>, part: usize, value: u32, weight: u64) {
        match part {
            0 => {
                let table = self.table.as_ref().expect("parts only where a table fights");
                tally.add_final(&table.finals()[value as usize], weight);
            }
            1 => tally.add_exchanges(value, weight),
            _ => tally.add_volleys(value, weight),
        }
    }
}

impl WarCards {
    /// One engagement on numbers drawn in turn from `rng` (what
    /// [`System::simulate`] fights on a battle's window).
    #[inline(always)]
    pub fn fight<R: rand::Rng + Clone>(&self, rng: &mut R) -> EngagementOutcome {
        match &self.table {
            Some(table) => table.fight(rng, self.rules.max_exchanges),
            None => self.rules.fight(rng),
        }
    }
}

//! What a question that moves a resolved scenario starts from, read from
//! it in one go: the base under the question's battles and seed, its
//! metrics, what it lets a question move, and the cells a battle moves
//! itself.

use anyhow::Result;

use super::{Resolved, Scenario};
use crate::questions::sensitivity::Words;
use crate::questions::sensitivity::plan::{Movable, ReadTable};
use crate::questions::tune::plan::BattleGround;
use crate::stats::Metric;
use crate::systems::Battle;
use crate::systems::contract::CellMove;
use crate::tables::as_read;

/// A resolved scenario as a sensitivity (or the workbench's pickers)
/// starts from it.
pub struct Ground {
    /// The scenario under the question's battles and seed.
    pub base: Scenario,
    /// The base's metrics, as its battles count them.
    pub metrics: Vec<Metric<u64>>,
    /// Its settings and the tables it reads, as data.
    pub movable: Movable,
    /// The moves of the cells the battle reads that no table path names
    /// (the war cards' deck), each with its battle.
    pub own_cells: Option<Vec<CellMove<Battle>>>,
}

impl Resolved {
    /// The [`Ground`] of a question fighting `trials` battles on `seed`
    /// (the scenario's own when `None`).
    pub fn ground(&self, trials: Option<u64>, seed: Option<u64>) -> Result<Ground> {
        let mut base = self.scenario.clone();
        base.override_settings(trials, seed)?;
        let document = self.document()?;
        let tables = base
            .battle
            .tables()
            .iter()
            .map(|t| {
                // A word with no order of its own moves to the words the
                // table's schema allows there.
                let schema = super::schema::find(&t.name)?.schema();
                Ok(ReadTable {
                    name: t.name.clone(),
                    table: as_read(&document, self.files(), &self.tables, &t.name)?,
                    words: Words {
                        at: super::schema::word_places(&schema),
                        by_key: Vec::new(),
                    },
                })
            })
            .collect::<Result<Vec<ReadTable>>>()?;
        let words = setting_words(&base, &tables)?;
        let own_cells = base.battle.own_cell_moves().transpose()?;
        Ok(Ground {
            metrics: base.battle.metric_layout(),
            movable: Movable {
                document,
                words,
                tables,
                own_cells: own_cells.is_some(),
            },
            own_cells,
            base,
        })
    }
}

/// What each word and list of words of the scenario may hold: the words
/// its system's schema allows, or for a list a table names
/// ([`crate::systems::BattleSystem::WORDS_FROM_TABLES`]), that table's
/// entries as the scenario reads it (`tables`).
fn setting_words(base: &Scenario, tables: &[ReadTable]) -> Result<Words> {
    let schema = super::schema::find(base.battle.system())?.schema();
    let mut by_key = Vec::new();
    for &(key, table, section) in base.battle.words_from_tables() {
        if let Some(read) = tables.iter().find(|t| t.name == table) {
            let entries: Vec<String> = read
                .table
                .get(section)
                .and_then(toml::Value::as_table)
                .map(|s| s.keys().cloned().collect())
                .unwrap_or_default();
            by_key.push((key.to_owned(), entries));
        }
    }
    Ok(Words {
        at: super::schema::word_places(&schema),
        by_key,
    })
}

impl Resolved {
    /// What a tune reads of this scenario, in one go: its name (the file's
    /// stem), metrics, settings and cells as knobs, the tables its
    /// outcomes rest on, the text of every table it reads, and whether it
    /// has exact odds.
    pub fn tune_ground(&self) -> Result<BattleGround> {
        let path = self.path();
        let ground = self.ground(None, None)?;
        let cells = if ground.movable.own_cells {
            Vec::new()
        } else {
            ground.movable.cells(&[])?
        };
        let battle = &self.scenario.battle;
        let document = &ground.movable.document;
        let tables = (battle.tables().iter())
            .map(|t| {
                let (text, _) =
                    crate::tables::text_as_read(document, self.files(), &self.tables, &t.name)?;
                Ok((t.name.clone(), text))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(BattleGround {
            name: (path.file_stem())
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "scenario".to_owned()),
            path: path.display().to_string(),
            system: battle.system(),
            exact_odds: crate::systems::registry::exact_odds(),
            settings: ground.movable.settings(),
            cells,
            metrics: ground.metrics,
            rests_on: battle.rests_on(),
            tables,
            exact: battle.exact().is_ok(),
            seed: self.scenario.seed,
        })
    }
}

//! The contract every battle system keeps: what the commands, the runner,
//! the paired engine, the report and the server may ask of a system. They
//! reach a system only through this trait and the registry beside it.

use anyhow::Result;
use schemars::{JsonSchema, Schema, SchemaGenerator};

use crate::engine::System;
use crate::stats::Metric;
use crate::stats::identity::Identity;
use crate::tables::TableFiles;
use crate::tables::TableUse;
use crate::tables::cells::Cell;
use crate::tables::cells::CellReads;
use crate::tables::validate::{CrossKeyRule, Header};

/// A battle system: a scenario layout, a battle the engine can fight, the
/// metrics it counts, its exact method if it has one, and an account of its
/// resolved rules, stand-ins and tables.
pub trait BattleSystem: System + Clone + std::fmt::Debug + Send + 'static {
    /// The system's name as a scenario's `system` key writes it.
    const NAME: &'static str;

    /// The system's name in words, as the page writes it (`7th Sea`).
    const TITLE: &'static str;

    /// The commented starter scenario `warcrunch new` writes (its folder's
    /// `starter.toml`); it passes `check` as written.
    const STARTER: &'static str;

    /// The rules `warcrunch check` enforces on its scenarios and tables
    /// that a schema cannot express (docs/scenarios.md lists them; the
    /// schema tests accept a refusal only by one of these or
    /// [`COMMON_RULES`](crate::tables::validate::COMMON_RULES)).
    const CHECK_RULES: &'static [CrossKeyRule];

    /// Lists of words in its scenarios whose allowed entries one of its
    /// tables names, where the schema cannot (GURPS: a side's `position`
    /// takes the keys of the Strategy table's `position` section): the
    /// list's key, the table, the section whose keys are the entries.
    const WORDS_FROM_TABLES: &'static [(&'static str, &'static str, &'static str)] = &[];

    /// Facts one battle writes twice in its metrics, whatever its tables
    /// say: `merge` refuses counts that break one ([`Identity`]).
    const IDENTITIES: &'static [Identity] = &[];

    /// One of the system's metrics in words, with its unit where it has
    /// one: `casualties_pct` → (`casualties`, `% of Troop Strength`);
    /// `None` for a metric it does not report.
    fn metric_words(metric: &str) -> Option<(&'static str, Option<&'static str>)>;

    /// What a reader needs to read one of its metrics' values, where the
    /// values alone do not say it (GURPS Survival's `A` to `D`); the
    /// reports print it under the metric's chart and table.
    fn metric_note(_metric: &str) -> Option<&'static str> {
        None
    }

    /// A value of one of its metrics in words, where its label alone could
    /// mislead a reader (two Spoils labels that mean different things);
    /// `None` leaves the label as it is.
    fn value_words(_metric: &str, _value: &str) -> Option<&'static str> {
        None
    }

    /// A first sweep, solve and sensitivity analysis for the battle in
    /// `doc` (the scenario as JSON), as the server's question requests
    /// write them: `{"sweep": {...}, "solve": {...}, "sensitivity": {...}}`.
    /// They name no battle count or seed: a question takes the battle's.
    fn example_questions(doc: &serde_json::Value) -> serde_json::Value;

    /// Parses and validates scenario `text` (read from `origin`; relative
    /// table files are read through `files`).
    fn from_scenario(text: &str, origin: &str, files: &TableFiles) -> Result<(Header, Self)>;

    /// Every metric of a tally, in report order.
    fn metrics_of(&self, tally: &Self::Tally) -> Vec<Metric<u64>>;

    /// The exact distribution of every metric, or why the exact method does
    /// not apply to this battle.
    fn exact(&self) -> Result<Vec<Metric<f64>>>;

    /// Which of its battles [`BattleSystem::exact`] answers, in a few words
    /// that name the system (`one-day GURPS`), or `None` if none: `--help`
    /// and the page list them.
    const EXACT_ODDS: Option<&'static str>;

    /// What one of its battles is called, one and several (war cards:
    /// `engagement`, `engagements`): the charts count them so, as the
    /// console does.
    const BATTLE_NOUN: [&'static str; 2] = ["battle", "battles"];

    /// A readable account of the resolved battle (`warcrunch check`).
    fn describe(&self) -> String;

    /// Rules this battle follows whose published form is unknown.
    fn stand_in_rules(&self) -> Vec<String>;

    /// The tables this battle read.
    fn tables(&self) -> &[TableUse];

    /// Whether any battle of this scenario reads a cell of table `name`
    /// (a table it loads may go unread: no Heroes, no chart).
    fn reads_table(&self, _name: &str) -> bool {
        true
    }

    /// The tables whose values metric `metric` of `subject` can depend on
    /// in this battle (names as [`Self::tables`] gives them): the stand-ins
    /// a row of the reports says it rests on. By default every table the
    /// battle reads; a system that lists fewer is held to it by a test (a
    /// move of a stand-in value in a table not listed leaves the metric
    /// the same in every battle).
    fn metric_tables(&self, _subject: &str, _metric: &str) -> Vec<&str> {
        self.tables()
            .iter()
            .filter(|t| self.reads_table(&t.name))
            .map(|t| t.name.as_str())
            .collect()
    }

    /// What this battle's declared readings of its rules hold fixed however
    /// the scenario keys at `paths` are set (a sweep's `--set` paths, as
    /// key lists: `["heroes", "Ilsa", "risk"]`), each a sentence naming
    /// the reading and the setting that would free it; a sweep says them
    /// beside its verdict. None by default.
    fn held_by_readings(&self, _paths: &[Vec<String>]) -> Vec<String> {
        Vec::new()
    }

    /// What `warcrunch check` should point out about this battle with its
    /// tables: rows no battle of it can reach, and the like.
    fn check_notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Each one-step move of the cells this battle reads that no table
    /// path names (war cards: every deck cell the engagement reads, to each
    /// neighbouring result), for `sensitivity --cells`; `None` when its
    /// tables' cells move as a file's cells do (`tables.NAME.PATH`).
    fn own_cell_moves(&self) -> Option<Result<Vec<CellMove<Self>>>> {
        None
    }

    /// Fights one battle by the book (the plain reference, die by die),
    /// noting in `reads` every table cell it reads.
    fn read_cells<R: rand::Rng>(&self, rng: &mut R, reads: &mut CellReads);

    /// Copies of variants fought in lockstep that build each of their laws
    /// once for all of them, where their rules agree; `None` when the
    /// system builds nothing per battle worth sharing.
    fn sharing_laws(_variants: &[&Self]) -> Option<Vec<Self>> {
        None
    }

    /// The layout of the system's scenario files.
    fn scenario_layout() -> Layout;

    /// The layouts of the table files the system reads, in the order
    /// `warcrunch schema` lists them.
    fn table_layouts() -> Vec<Layout>;
}

/// One move of a cell a battle reads ([`BattleSystem::own_cell_moves`]).
#[derive(Debug, Clone)]
pub struct CellMove<B> {
    /// The move's name as `sensitivity.csv` writes it (`card4.sword_banner.>=+3`).
    pub knob: String,
    /// Whether the move lowers the cell in its own order.
    pub lowers: bool,
    /// The cell.
    pub cell: Cell,
    /// Its value as the battle reads it.
    pub from: String,
    /// The value it moves to.
    pub to: String,
    /// The battle with the cell moved.
    pub battle: B,
}

/// A file layout a system reads: what `warcrunch schema` writes a JSON
/// Schema of, from the parser's own type.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// The system's name for its scenarios, the table's kind for a table.
    pub name: &'static str,
    /// The schema's title.
    pub title: &'static str,
    /// Writes the layout's schema with a generator's settings.
    pub schema: fn(SchemaGenerator) -> Schema,
}

impl Layout {
    /// The layout of files that parse as `T`.
    pub fn of<T: JsonSchema>(name: &'static str, title: &'static str) -> Layout {
        Layout {
            name,
            title,
            schema: SchemaGenerator::into_root_schema_for::<T>,
        }
    }
}

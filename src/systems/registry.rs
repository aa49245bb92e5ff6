//! The one place that lists the systems: [`Battle`] holds a battle of any
//! of them, and every question about "whichever system this is" goes
//! through [`Battle::visit`] (an instance) or [`each_system`] (the types).
//! A new system is one more line of the `registered!` list in
//! `systems/mod.rs` (its folder and type).

use std::any::Any;

use anyhow::Result;

use super::contract::{BattleSystem, CellMove};
use crate::stats::Metric;
use crate::tables::TableFiles;
use crate::tables::validate::{CrossKeyRule, Header};
use crate::tables::{BuiltIn, RestsOn, TableUse};

/// Work done on a battle of whichever system: one generic method, called
/// with the system's own type.
pub trait Visit<'a> {
    /// What the work produces (it may borrow from the battle).
    type Output;
    /// Does the work on `system`.
    fn visit<S: BattleSystem>(self, system: &'a S) -> Self::Output;
}

/// Work done once per system type, without a battle (listing, parsing).
pub trait VisitType {
    /// Called with each system's type, in [`SYSTEMS`] order.
    fn visit<S: BattleSystem>(&mut self);
}

macro_rules! systems {
    ($($(#[$meta:meta])* $module:ident :: $variant:ident),+ $(,)?) => {
        $($(#[$meta])* use super::$module::$variant;)+

        /// A battle of one of the supported systems.
        #[derive(Debug, Clone)]
        pub enum Battle {
            $(
                $(#[$meta])*
                #[doc = concat!("A battle of [`", stringify!($variant), "`].")]
                $variant(Box<$variant>),
            )+
        }

        impl Battle {
            /// Runs `work` on this battle, as its own system's type.
            pub fn visit<'a, V: Visit<'a>>(&'a self, work: V) -> V::Output {
                match self {
                    $($(#[$meta])* Battle::$variant(system) => work.visit(system.as_ref()),)+
                }
            }
        }

        /// Runs `work` once for each system type.
        pub fn each_system(work: &mut impl VisitType) {
            $($(#[$meta])* work.visit::<$variant>();)+
        }

        impl Battle {
            /// Wraps a battle of any system.
            pub fn from_system<S: BattleSystem>(system: S) -> Battle {
                let any: Box<dyn Any> = Box::new(system);
                $(
                    $(#[$meta])*
                    let any = match any.downcast::<$variant>() {
                        Ok(system) => return Battle::$variant(system),
                        Err(other) => other,
                    };
                )+
                unreachable!("{} is not listed in `systems!`", std::any::type_name_of_val(&*any))
            }

            /// The battle's account of itself, whichever its system.
            fn account(&self) -> &dyn Account {
                match self {
                    $($(#[$meta])* Battle::$variant(system) => system.as_ref(),)+
                }
            }

            /// This battle as system `S`, if it is one.
            pub fn downcast<S: BattleSystem>(&self) -> Option<&S> {
                match self {
                    $($(#[$meta])* Battle::$variant(system) => (system.as_ref() as &dyn Any).downcast_ref::<S>(),)+
                }
            }
        }

        $(
            $(#[$meta])*
            impl From<$variant> for Battle {
                fn from(system: $variant) -> Battle {
                    Battle::$variant(Box::new(system))
                }
            }
        )+

        /// Systems a scenario may name.
        pub const SYSTEMS: &[&str] = &[$($(#[$meta])* <$variant as BattleSystem>::NAME),+];
    };
}

registered!(systems);

impl Battle {
    /// Parses scenario `text` of the system called `system`; `None` when no
    /// system has that name.
    pub fn parse(
        system: &str,
        text: &str,
        origin: &str,
        files: &TableFiles,
    ) -> Option<Result<(Header, Battle)>> {
        struct Parse<'a> {
            system: &'a str,
            text: &'a str,
            origin: &'a str,
            files: &'a TableFiles,
            parsed: Option<Result<(Header, Battle)>>,
        }
        impl VisitType for Parse<'_> {
            fn visit<S: BattleSystem>(&mut self) {
                if S::NAME == self.system {
                    self.parsed = Some(
                        S::from_scenario(self.text, self.origin, self.files)
                            .map(|(header, battle)| (header, Battle::from_system(battle))),
                    );
                }
            }
        }
        let mut parse = Parse {
            system,
            text,
            origin,
            files,
            parsed: None,
        };
        each_system(&mut parse);
        parse.parsed
    }

    /// The system's name as written in scenario files.
    pub fn system(&self) -> &'static str {
        self.account().name()
    }

    /// The tables this battle read.
    pub fn tables(&self) -> &[TableUse] {
        self.account().tables()
    }

    /// Whether any battle of this scenario reads a cell of table `name`.
    pub fn reads_table(&self, name: &str) -> bool {
        self.account().reads_table(name)
    }

    /// The tables each of its metrics can depend on
    /// ([`BattleSystem::metric_tables`]), in report order.
    pub fn rests_on(&self) -> Vec<RestsOn> {
        self.account().rests_on()
    }

    /// What `warcrunch check` points out about this battle and its tables.
    pub fn check_notes(&self) -> Vec<String> {
        self.account().check_notes()
    }

    /// What its declared readings hold fixed however the keys at `paths`
    /// are set ([`BattleSystem::held_by_readings`]).
    pub fn held_by_readings(&self, paths: &[Vec<String>]) -> Vec<String> {
        self.account().held_by_readings(paths)
    }

    /// Lists of words its scenario's tables name the entries of
    /// ([`BattleSystem::WORDS_FROM_TABLES`]).
    pub fn words_from_tables(&self) -> &'static [(&'static str, &'static str, &'static str)] {
        self.account().words_from_tables()
    }

    /// Rules this battle follows whose published form is unknown.
    pub fn stand_in_rules(&self) -> Vec<String> {
        self.account().stand_in_rules()
    }

    /// A readable account of the resolved battle.
    pub fn describe(&self) -> String {
        self.account().describe()
    }

    /// The metrics this battle reports, with every count zero.
    pub fn metric_layout(&self) -> Vec<Metric<u64>> {
        self.account().metric_layout()
    }

    /// The exact distribution of every metric, where the system's exact
    /// method applies to this battle; each summing to 1 where rounding
    /// alone moved its sum (done here, once, for every system).
    pub fn exact(&self) -> Result<Vec<Metric<f64>>> {
        let metrics = self.account().exact()?;
        Ok(metrics
            .into_iter()
            .map(Metric::sum_rounded_to_one)
            .collect())
    }

    /// The moves of the cells this battle reads that no table path names
    /// ([`BattleSystem::own_cell_moves`]), each with its moved battle.
    pub fn own_cell_moves(&self) -> Option<Result<Vec<CellMove<Battle>>>> {
        struct Moves;
        impl Visit<'_> for Moves {
            type Output = Option<Result<Vec<CellMove<Battle>>>>;
            fn visit<S: BattleSystem>(self, system: &S) -> Self::Output {
                Some(system.own_cell_moves()?.map(|moves| {
                    moves
                        .into_iter()
                        .map(|m| CellMove {
                            knob: m.knob,
                            lowers: m.lowers,
                            cell: m.cell,
                            from: m.from,
                            to: m.to,
                            battle: Battle::from_system(m.battle),
                        })
                        .collect()
                }))
            }
        }
        self.visit(Moves)
    }
}

/// The part of the contract that needs no generic work: what the battle is
/// and what it read, callable through a `&dyn` (every [`BattleSystem`] has it).
trait Account {
    fn name(&self) -> &'static str;
    fn tables(&self) -> &[TableUse];
    fn reads_table(&self, name: &str) -> bool;
    fn rests_on(&self) -> Vec<RestsOn>;
    fn check_notes(&self) -> Vec<String>;
    fn held_by_readings(&self, paths: &[Vec<String>]) -> Vec<String>;
    fn stand_in_rules(&self) -> Vec<String>;
    fn words_from_tables(&self) -> &'static [(&'static str, &'static str, &'static str)];
    fn describe(&self) -> String;
    fn metric_layout(&self) -> Vec<Metric<u64>>;
    fn exact(&self) -> Result<Vec<Metric<f64>>>;
}

impl<S: BattleSystem> Account for S {
    fn name(&self) -> &'static str {
        S::NAME
    }
    fn tables(&self) -> &[TableUse] {
        BattleSystem::tables(self)
    }
    fn reads_table(&self, name: &str) -> bool {
        BattleSystem::reads_table(self, name)
    }
    fn rests_on(&self) -> Vec<RestsOn> {
        self.metric_layout()
            .iter()
            .map(|m| RestsOn {
                subject: m.subject.clone(),
                metric: m.name.clone(),
                tables: (self.metric_tables(&m.subject, &m.name).into_iter())
                    .map(str::to_owned)
                    .collect(),
            })
            .collect()
    }
    fn check_notes(&self) -> Vec<String> {
        BattleSystem::check_notes(self)
    }
    fn held_by_readings(&self, paths: &[Vec<String>]) -> Vec<String> {
        BattleSystem::held_by_readings(self, paths)
    }
    fn stand_in_rules(&self) -> Vec<String> {
        BattleSystem::stand_in_rules(self)
    }
    fn words_from_tables(&self) -> &'static [(&'static str, &'static str, &'static str)] {
        S::WORDS_FROM_TABLES
    }
    fn describe(&self) -> String {
        BattleSystem::describe(self)
    }
    fn metric_layout(&self) -> Vec<Metric<u64>> {
        self.metrics_of(&self.new_tally())
    }
    /// The system's exact metrics, each with the role its simulated twin
    /// has (a side's victory, a PC's fate...), so every question reads
    /// exact and simulated answers alike.
    fn exact(&self) -> Result<Vec<Metric<f64>>> {
        let mut exact = BattleSystem::exact(self)?;
        let layout = self.metric_layout();
        for m in &mut exact {
            if let Some(twin) = layout
                .iter()
                .find(|l| l.subject == m.subject && l.name == m.name)
            {
                m.role = twin.role.clone();
            }
        }
        Ok(exact)
    }
}

/// Every built-in table, system by system in [`SYSTEMS`] order, each
/// system's in the order `warcrunch schema` lists its table layouts.
pub fn built_ins() -> Vec<BuiltIn> {
    struct Tables(Vec<BuiltIn>);
    impl VisitType for Tables {
        fn visit<S: BattleSystem>(&mut self) {
            for layout in S::table_layouts() {
                let table = crate::tables::built_in(layout.name).unwrap_or_else(|| {
                    panic!(
                        "{}: scenarios/tables/ holds no table of kind `{}`",
                        S::NAME,
                        layout.name
                    )
                });
                self.0.push(table);
            }
        }
    }
    let mut tables = Tables(Vec::new());
    each_system(&mut tables);
    tables.0
}

/// The fixed facts of the system called `system`: its name in words and
/// its starter; `None` when no system has that name.
fn named(system: &str) -> Option<(&'static str, &'static str)> {
    struct Find<'a>(&'a str, Option<(&'static str, &'static str)>);
    impl VisitType for Find<'_> {
        fn visit<S: BattleSystem>(&mut self) {
            if S::NAME == self.0 {
                self.1 = Some((S::TITLE, S::STARTER));
            }
        }
    }
    let mut find = Find(system, None);
    each_system(&mut find);
    find.1
}

/// The name in words of the system called `system` (`7th Sea`); `None`
/// when no system has that name.
pub fn title(system: &str) -> Option<&'static str> {
    named(system).map(|(title, _)| title)
}

/// The starter scenario of the system called `system`
/// ([`BattleSystem::STARTER`]); `None` when no system has that name.
pub fn starter(system: &str) -> Option<&'static str> {
    named(system).map(|(_, starter)| starter)
}

/// The battles that have exact odds, system by system in [`SYSTEMS`]
/// order ([`BattleSystem::EXACT_ODDS`]): `war cards with die draw, one-day GURPS`.
pub fn exact_odds() -> String {
    struct Exact(Vec<&'static str>);
    impl VisitType for Exact {
        fn visit<S: BattleSystem>(&mut self) {
            self.0.extend(S::EXACT_ODDS);
        }
    }
    let mut exact = Exact(Vec::new());
    each_system(&mut exact);
    exact.0.join(", ")
}

/// Each system's name, its name in words and the rules its `check`
/// enforces beyond the schema ([`BattleSystem::CHECK_RULES`]), in
/// [`SYSTEMS`] order.
pub fn check_rules() -> Vec<(&'static str, &'static str, &'static [CrossKeyRule])> {
    type Listed = (&'static str, &'static str, &'static [CrossKeyRule]);
    struct Rules(Vec<Listed>);
    impl VisitType for Rules {
        fn visit<S: BattleSystem>(&mut self) {
            self.0.push((S::NAME, S::TITLE, S::CHECK_RULES));
        }
    }
    let mut rules = Rules(Vec::new());
    each_system(&mut rules);
    rules.0
}

/// A metric in words and its unit, as the system called `system` says it
/// (each system its own words: two systems may name a metric alike).
pub fn metric_words(system: &str, metric: &str) -> Option<(&'static str, Option<&'static str>)> {
    struct Words<'a>(
        &'a str,
        &'a str,
        Option<(&'static str, Option<&'static str>)>,
    );
    impl VisitType for Words<'_> {
        fn visit<S: BattleSystem>(&mut self) {
            if S::NAME == self.0 {
                self.2 = S::metric_words(self.1);
            }
        }
    }
    let mut words = Words(system, metric, None);
    each_system(&mut words);
    words.2
}

/// The note on a metric's values, as the system called `system` gives it
/// ([`BattleSystem::metric_note`]).
pub fn metric_note(system: &str, metric: &str) -> Option<&'static str> {
    struct Note<'a>(&'a str, &'a str, Option<&'static str>);
    impl VisitType for Note<'_> {
        fn visit<S: BattleSystem>(&mut self) {
            if S::NAME == self.0 {
                self.2 = S::metric_note(self.1);
            }
        }
    }
    let mut note = Note(system, metric, None);
    each_system(&mut note);
    note.2
}

/// The facts one battle of the system called `system` writes twice
/// ([`BattleSystem::IDENTITIES`]; none for an unknown name).
pub fn identities(system: &str) -> &'static [crate::stats::identity::Identity] {
    struct Facts<'a>(&'a str, &'static [crate::stats::identity::Identity]);
    impl VisitType for Facts<'_> {
        fn visit<S: BattleSystem>(&mut self) {
            if S::NAME == self.0 {
                self.1 = S::IDENTITIES;
            }
        }
    }
    let mut facts = Facts(system, &[]);
    each_system(&mut facts);
    facts.1
}

/// What one battle of the system called `system` is called, one and
/// several ([`BattleSystem::BATTLE_NOUN`]; `battle` for an unknown name).
pub fn battle_noun(system: &str) -> [&'static str; 2] {
    struct Noun<'a>(&'a str, [&'static str; 2]);
    impl VisitType for Noun<'_> {
        fn visit<S: BattleSystem>(&mut self) {
            if S::NAME == self.0 {
                self.1 = S::BATTLE_NOUN;
            }
        }
    }
    let mut noun = Noun(system, ["battle", "battles"]);
    each_system(&mut noun);
    noun.1
}

/// A metric's value in words, as the system called `system` words it.
pub fn value_words(system: &str, metric: &str, value: &str) -> Option<&'static str> {
    struct Words<'a>(&'a str, &'a str, &'a str, Option<&'static str>);
    impl VisitType for Words<'_> {
        fn visit<S: BattleSystem>(&mut self) {
            if S::NAME == self.0 {
                self.3 = S::value_words(self.1, self.2);
            }
        }
    }
    let mut words = Words(system, metric, value, None);
    each_system(&mut words);
    words.3
}

/// The example questions for the battle in `doc` (a scenario as JSON),
/// by its `system`; `None` when it names no system.
pub fn example_questions(doc: &serde_json::Value) -> Option<serde_json::Value> {
    struct Examples<'a>(&'a serde_json::Value, Option<serde_json::Value>);
    impl VisitType for Examples<'_> {
        fn visit<S: BattleSystem>(&mut self) {
            if self.0.get("system").and_then(|s| s.as_str()) == Some(S::NAME) {
                self.1 = Some(S::example_questions(self.0));
            }
        }
    }
    let mut examples = Examples(doc, None);
    each_system(&mut examples);
    examples.1
}

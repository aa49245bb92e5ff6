//! The one place that lists the systems: [`Battle`] holds a battle of any
//! of them, and every question about "whichever system this is" goes
//! through [`Battle::visit`] (an instance) or [`each_system`] (the types).
//! A fourth system is one more line of the `systems!` list below.

use std::any::Any;
use std::path::Path;

use anyhow::Result;

use super::contract::BattleSystem;
use super::gurps::Gurps;
use super::seventh_sea::SeventhSea;
use super::war_cards::WarCards;
use crate::stats::Metric;
use crate::tables::TableUse;
use crate::validate::Header;

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
    ($($variant:ident),+ $(,)?) => {
        /// A battle of one of the supported systems.
        #[derive(Debug, Clone)]
        pub enum Battle {
            $(
                #[doc = concat!("A battle of [`", stringify!($variant), "`].")]
                $variant(Box<$variant>),
            )+
        }

        impl Battle {
            /// Runs `work` on this battle, as its own system's type.
            pub fn visit<'a, V: Visit<'a>>(&'a self, work: V) -> V::Output {
                match self {
                    $(Battle::$variant(system) => work.visit(system.as_ref()),)+
                }
            }
        }

        /// Runs `work` once for each system type.
        pub fn each_system(work: &mut impl VisitType) {
            $(work.visit::<$variant>();)+
        }

        impl Battle {
            /// Wraps a battle of any system.
            pub fn from_system<S: BattleSystem>(system: S) -> Battle {
                let any: Box<dyn Any> = Box::new(system);
                $(
                    let any = match any.downcast::<$variant>() {
                        Ok(system) => return Battle::$variant(system),
                        Err(other) => other,
                    };
                )+
                unreachable!("{} is not listed in `systems!`", std::any::type_name_of_val(&*any))
            }

            /// This battle as system `S`, if it is one.
            pub fn downcast<S: BattleSystem>(&self) -> Option<&S> {
                match self {
                    $(Battle::$variant(system) => (system.as_ref() as &dyn Any).downcast_ref::<S>(),)+
                }
            }
        }

        $(
            impl From<$variant> for Battle {
                fn from(system: $variant) -> Battle {
                    Battle::$variant(Box::new(system))
                }
            }
        )+

        /// Systems a scenario may name.
        pub const SYSTEMS: &[&str] = &[$(<$variant as BattleSystem>::NAME),+];
    };
}

systems!(WarCards, Gurps, SeventhSea);

impl Battle {
    /// Parses scenario `text` of the system called `system`; `None` when no
    /// system has that name.
    pub fn parse(
        system: &str,
        text: &str,
        origin: &str,
        base_dir: &Path,
    ) -> Option<Result<(Header, Battle)>> {
        struct Parse<'a> {
            system: &'a str,
            text: &'a str,
            origin: &'a str,
            base_dir: &'a Path,
            parsed: Option<Result<(Header, Battle)>>,
        }
        impl VisitType for Parse<'_> {
            fn visit<S: BattleSystem>(&mut self) {
                if S::NAME == self.system {
                    self.parsed = Some(
                        S::from_scenario(self.text, self.origin, self.base_dir)
                            .map(|(header, battle)| (header, Battle::from_system(battle))),
                    );
                }
            }
        }
        let mut parse = Parse {
            system,
            text,
            origin,
            base_dir,
            parsed: None,
        };
        each_system(&mut parse);
        parse.parsed
    }

    /// The system's name as written in scenario files.
    pub fn system(&self) -> &'static str {
        struct Name;
        impl Visit<'_> for Name {
            type Output = &'static str;
            fn visit<S: BattleSystem>(self, _: &S) -> &'static str {
                S::NAME
            }
        }
        self.visit(Name)
    }

    /// The tables this battle read.
    pub fn tables(&self) -> &[TableUse] {
        struct Tables;
        impl<'a> Visit<'a> for Tables {
            type Output = &'a [TableUse];
            fn visit<S: BattleSystem>(self, system: &'a S) -> &'a [TableUse] {
                system.tables()
            }
        }
        self.visit(Tables)
    }

    /// Rules this battle follows whose published form is unknown.
    pub fn stand_in_rules(&self) -> Vec<String> {
        struct StandIns;
        impl Visit<'_> for StandIns {
            type Output = Vec<String>;
            fn visit<S: BattleSystem>(self, system: &S) -> Vec<String> {
                system.stand_in_rules()
            }
        }
        self.visit(StandIns)
    }

    /// A readable account of the resolved battle.
    pub fn describe(&self) -> String {
        struct Describe;
        impl Visit<'_> for Describe {
            type Output = String;
            fn visit<S: BattleSystem>(self, system: &S) -> String {
                system.describe()
            }
        }
        self.visit(Describe)
    }

    /// The metrics this battle reports, with every count zero.
    pub fn metric_layout(&self) -> Vec<Metric<u64>> {
        struct Layout;
        impl Visit<'_> for Layout {
            type Output = Vec<Metric<u64>>;
            fn visit<S: BattleSystem>(self, system: &S) -> Vec<Metric<u64>> {
                system.metrics_of(&system.new_tally())
            }
        }
        self.visit(Layout)
    }

    /// The exact distribution of every metric, where the system's exact
    /// method applies to this battle.
    pub fn exact(&self) -> Result<Vec<Metric<f64>>> {
        struct Exact;
        impl Visit<'_> for Exact {
            type Output = Result<Vec<Metric<f64>>>;
            fn visit<S: BattleSystem>(self, system: &S) -> Result<Vec<Metric<f64>>> {
                system.exact()
            }
        }
        self.visit(Exact)
    }
}

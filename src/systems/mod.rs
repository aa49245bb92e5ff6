//! The battle systems. Each is rules + tables + a `simulate` per battle,
//! and keeps one contract ([`BattleSystem`]); [`registry`] reaches them.

/// Every system, one line each: its folder (a module of this one) and its
/// type. Registering a system is its line here; `$then` is called with
/// the list (the modules below, the registry's `systems!`).
macro_rules! registered {
    ($then:ident) => {
        $then!(
            war_cards::WarCards,
            gurps::Gurps,
            seventh_sea::SeventhSea,
            #[cfg(test)]
            dice_duel::DiceDuel, // the test system: src/systems/dice_duel/
        );
    };
}

/// Each registered system's folder, as a module of this one.
macro_rules! folders {
    ($($(#[$meta:meta])* $module:ident :: $variant:ident),+ $(,)?) => {
        $($(#[$meta])* pub mod $module;)+
    };
}

registered!(folders);

pub mod contract;
pub mod party;
pub mod registry;

pub use self::contract::BattleSystem;
pub use self::registry::{Battle, SYSTEMS, Visit, built_ins};

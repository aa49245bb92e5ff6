//! The battle systems. Each is rules + tables + a `simulate` per battle,
//! and keeps one contract ([`BattleSystem`]); [`registry`] lists them.

pub mod contract;
#[cfg(test)]
pub mod dice_duel;
pub mod gurps;
pub mod party;
pub mod registry;
pub mod seventh_sea;
pub mod war_cards;

pub use self::contract::BattleSystem;
pub use self::registry::{Battle, SYSTEMS, Visit, built_ins};

//! The battle systems. Each is rules + tables + a `simulate` per battle.

pub mod gurps;
pub mod party;
pub mod seventh_sea;
pub mod war_cards;

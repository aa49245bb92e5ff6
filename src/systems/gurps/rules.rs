//! A GURPS battle resolved for play: each side's and each PC's figures with
//! every modifier of the scenario applied, the days and the tables. Both
//! the fast battle and the plain one read these; neither adds to them.

use super::scenario::{CommanderGone, Defector, LeaderFall, Role};
use super::tables::GurpsTables;

/// The cap on effective Combat skill, after Risk and every penalty.
pub const COMBAT_CAP: i64 = 16;

#[derive(Debug, Clone)]
pub struct SideRules {
    /// Base Strategy skill.
    pub strategy: i64,
    /// Initial Troop Strength.
    pub troop_strength: f64,
    /// 100 / initial Troop Strength.
    pub percent_per_troop: f64,
    /// Tech Level.
    pub tech_level: i64,
    /// Fixed modifiers: TL advantage, class superiority, GM modifier and,
    /// for the attacker, the defender's position.
    pub fixed_modifier: i64,
    /// Commander's Luck on the Catastrophe roll.
    pub commander_luck: bool,
    /// Added to this side's Catastrophe roll.
    pub catastrophe_modifier: i64,
    /// Casualty rows toward less loss.
    pub armour_rows: i64,
    /// The armour's key in the casualties table's `armour_rows`.
    pub armour: &'static str,
    /// Base Morale.
    pub morale: i64,
    /// The troop quality's key in the morale table.
    pub quality: &'static str,
    /// Major units a catastrophe can strike.
    pub major_units: u32,
}

/// A PC, resolved for simulation.
#[derive(Debug, Clone)]
pub struct HeroRules {
    /// Side index.
    pub side: usize,
    /// Role.
    pub role: Role,
    /// Combat skill before Risk, penalties and the cap.
    pub combat_skill: i64,
    /// Risk.
    pub risk: i64,
    /// Luck on Survival.
    pub luck: bool,
    /// Hit Points.
    pub hp: i64,
    /// Health.
    pub ht: i64,
    /// Major-unit index if a unit commander.
    pub major_unit: Option<u32>,
    /// Dice and adds of the enemy's hits: [A/B dice, A/B add, C/D dice, C/D add].
    pub enemy_hit: [i64; 4],
    /// DR against the enemy's weapons, armour and Toughness (divided for
    /// high TL).
    pub dr: i64,
    /// His own DR, armour and Toughness undivided: a Catastrophe's wound is
    /// no enemy weapon.
    pub own_dr: i64,
    /// Toughness alone: it also comes off the fixed HP a Survival row costs.
    pub toughness: i64,
}

/// The whole battle, resolved.
#[derive(Debug, Clone)]
pub struct BattleRules {
    /// The two sides.
    pub sides: [SideRules; 2],
    /// The PCs.
    pub heroes: Vec<HeroRules>,
    /// Days.
    pub days: u32,
    /// Where a defecting ally's troops go.
    pub defector: Defector,
    /// When a PC leader's fall reaches the battle.
    pub leader_fall: LeaderFall,
    /// What a row striking a commander already gone does.
    pub commander_gone: CommanderGone,
    /// The defending side, where the other attacks.
    pub defender: Option<usize>,
    /// Tables.
    pub tables: GurpsTables,
}

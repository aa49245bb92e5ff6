//! A 7th Sea battle resolved for play: each side's and each Hero's figures
//! with the scenario's modifiers applied, the round cap, the personal roll
//! and the tables. Both the fast battle and the plain one read these.

use super::roll_keep::Pool;
use super::scenario::{FreeRaiseCount, PersonalRoll, Policy, Spending};
use super::tables::SeaTables;
use crate::engine::inverse::InverseLaw;

/// Engagement levels, Rear (0) to Heavily Engaged (3).
pub const REAR: usize = 0;
/// Heavily Engaged.
pub const HEAVILY_ENGAGED: usize = 3;

/// Reputation, and Strategy on the next roll, for bringing a captured
/// banner to the Rear.
pub const CAPTURE_REAR_BONUS: i64 = 5;

/// A side, resolved.
#[derive(Debug, Clone)]
pub struct SideRules {
    /// Commander's Wits.
    pub wits: i64,
    /// Commander's Wits + Strategy (rolled dice).
    pub strategy_dice: i64,
    /// Supply pool, if a quartermaster.
    pub supply: Option<Pool>,
    /// Speech pool, if a speech.
    pub speech: Option<Pool>,
    /// Draws the Free Raises from Supply and Speech ([`super::preparation::free_raises_law`]).
    pub free_raises: InverseLaw,
    /// When it spends them.
    pub spending: Spending,
}

impl SideRules {
    /// 1 if the side may spend the raises it draws, 0 if it never does: a
    /// side that never spends fights exactly as one that has none (the
    /// raises are still drawn, so the streams stay the same).
    #[inline(always)]
    pub fn spendable(&self) -> i64 {
        i64::from(self.spending != Spending::Never)
    }
}

/// A Hero, resolved.
#[derive(Debug, Clone, Copy)]
pub struct HeroRules {
    /// Side index.
    pub side: usize,
    /// Wits + Tactics.
    pub personal: i64,
    /// Wits (kept dice of the keep-mode personal roll).
    pub wits: i64,
    /// Brawn.
    pub brawn: i64,
    /// Brawn + defence knack, subtracted from damage.
    pub soak: i64,
    /// Resolve.
    pub resolve: i64,
    /// Finesse.
    pub finesse: i64,
    /// Attack knack.
    pub attack: i64,
    /// Firearms knack.
    pub firearms: i64,
    /// Leadership dice added to the commander if an officer.
    pub leadership: i64,
    /// Officer.
    pub officer: bool,
    /// The Spoils row of each d10 face (0 to 9) with his commission added.
    pub spoils_by_face: [u8; 10],
    /// Kept dice removed from each damage roll by Dracheneisen.
    pub armour_kept: i64,
    /// Policy.
    pub policy: Policy,
    /// Threshold for [`crate::engine::dice::chance`]: the Line of Fire shot
    /// reaches its TN, without and with a banner.
    pub line_of_fire_hit: [u64; 2],
}

/// The battle, resolved.
#[derive(Debug, Clone)]
pub struct BattleRules {
    /// The two sides.
    pub sides: [SideRules; 2],
    /// The Heroes.
    pub heroes: Vec<HeroRules>,
    /// Indices of the Heroes who are officers.
    pub officers: Vec<usize>,
    /// Round cap.
    pub max_rounds: u32,
    /// Personal roll mode.
    pub personal_roll: PersonalRoll,
    /// How Supply and Speech count into Free Raises.
    pub free_raises: FreeRaiseCount,
    /// Tables.
    pub tables: SeaTables,
}

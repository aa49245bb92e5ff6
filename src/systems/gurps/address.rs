//! Where each decision of a GURPS battle reads its random number in the
//! battle's window ([`crate::stream::Decisions`]): a block per day, in it
//! a number per side and roll, and a block per PC. A variant that makes a
//! PC roll more or less (an HT roll, a column's hits) reads only his own
//! numbers, so every other PC, and every side, rolls the same in every
//! battle.

use super::scenario::{MAX_DAYS, MAX_HEROES};
use super::survival::HT_ROLLS;
use crate::stream::{Decisions, WINDOW_BITS};

/// Numbers of one day.
const DAY: u32 = 512;

/// A side's Catastrophe roll (+ side).
pub const CATASTROPHE: u32 = 0;
/// A side's commander's Strategy roll (+ side).
pub const STRATEGY: u32 = 2;
/// Which major unit a Catastrophe strikes (+ side).
pub const MAJOR_UNIT: u32 = 4;
/// An atrocity's Morale roll, made when a side may rout (+ side).
pub const ATROCITY_MORALE: u32 = 6;
/// A badly beaten side's Morale roll against routing (+ side).
pub const ROUT_MORALE: u32 = 8;
/// A routing side's rout dice, a stream of their own (+ side).
pub const ROUT_DICE: u32 = 10;
/// A side's casualty percentage (+ side).
pub const CASUALTIES: u32 = 12;

/// The first PC's block; PC `i`'s is `PC + i × PC_BLOCK`.
const PC: u32 = 16;
/// Numbers of one PC a day.
const PC_BLOCK: u32 = 16;

/// In a PC's block: his Survival roll.
pub const SURVIVAL: u32 = 0;
/// His Survival column's hits.
pub const DAMAGE: u32 = 1;
/// The HT rolls of his Survival injury ([`HT_ROLLS`] of them).
pub const SURVIVAL_HT: u32 = 2;
/// His Glory roll.
pub const GLORY: u32 = SURVIVAL_HT + HT_ROLLS;
/// The 2d of a Catastrophe that wounds or kills him as a leader.
pub const LEADER_DAMAGE: u32 = GLORY + 1;
/// The HT rolls of that wound ([`HT_ROLLS`] of them).
pub const LEADER_HT: u32 = LEADER_DAMAGE + 1;

const _: () = {
    assert!(LEADER_HT + HT_ROLLS <= PC_BLOCK);
    assert!(CASUALTIES + 2 <= PC);
    assert!(PC + MAX_HEROES as u32 * PC_BLOCK <= DAY);
    assert!(DAY as u64 * MAX_DAYS as u64 <= 1 << WINDOW_BITS);
};

/// Day `day`'s numbers (from 0).
#[inline(always)]
pub fn day(battle: Decisions, day: u32) -> Decisions {
    battle.block(day * DAY)
}

/// PC `i`'s numbers of a day.
#[inline(always)]
pub fn pc(day: Decisions, i: usize) -> Decisions {
    day.block(PC + i as u32 * PC_BLOCK)
}

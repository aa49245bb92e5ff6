//! Where each decision of a GURPS battle reads its random number in the
//! battle's window ([`crate::engine::stream::Decisions`]): a block per day, in it
//! the sides' rolls and a block per PC. Each roll reads half a number
//! ([`Decisions::half`]), two rolls always made together sharing one; a
//! draw of unbounded length reads a stream of its own. A variant that
//! makes a PC roll more or less (an HT roll, a column's hits) reads only
//! his own numbers, so every other PC, and every side, rolls the same in
//! every battle.

use super::scenario::{MAX_DAYS, MAX_HEROES, MAX_MAJOR_UNITS};
use super::survival::HT_ROLLS;
use crate::engine::stream::{Decisions, WINDOW_BITS};

/// Numbers of one day.
const DAY: u32 = 256;

/// A side's Catastrophe roll (half-slot, + side).
pub const CATASTROPHE: u32 = 0;
/// A side's commander's Strategy roll (half-slot, + side).
pub const STRATEGY: u32 = 2;
/// Which major unit a Catastrophe strikes (half-slot, + side).
pub const MAJOR_UNIT: u32 = 4;
/// An atrocity's Morale roll, made when a side may rout (half-slot, + side).
pub const ATROCITY_MORALE: u32 = 6;
/// A badly beaten side's Morale roll against routing (half-slot, + side).
pub const ROUT_MORALE: u32 = 8;
/// A side's casualty percentage (half-slot, + side).
pub const CASUALTIES: u32 = 10;
/// A routing side's rout dice: a stream of its own (number, + side).
pub const ROUT_DICE: u32 = 6;

/// The first PC's block (in numbers); PC `i`'s is `PC + i × PC_BLOCK`.
const PC: u32 = 8;
/// Numbers of one PC a day.
const PC_BLOCK: u32 = 8;

/// The defender's major units' Morale rolls to hold their ground, after
/// the PCs' blocks (in numbers): unit `k`'s is half-slot `k` of it.
const UNITS: u32 = PC + MAX_HEROES as u32 * PC_BLOCK;

/// In a PC's block (half-slots): his Survival roll.
pub const SURVIVAL: u32 = 0;
/// His Glory roll, made with his Survival roll.
pub const GLORY: u32 = 1;
/// His Survival column's hits.
pub const DAMAGE: u32 = 2;
/// The HT rolls of his Survival injury ([`HT_ROLLS`] of them).
pub const SURVIVAL_HT: u32 = 4;
/// The 2d of a Catastrophe that wounds or kills him as a leader.
pub const LEADER_DAMAGE: u32 = SURVIVAL_HT + HT_ROLLS;
/// The HT rolls of that wound ([`HT_ROLLS`] of them).
pub const LEADER_HT: u32 = LEADER_DAMAGE + 1;

const _: () = {
    assert!(LEADER_HT + HT_ROLLS <= 2 * PC_BLOCK);
    assert!(CASUALTIES + 2 <= 2 * ROUT_DICE && ROUT_DICE + 2 <= PC);
    assert!(PC + MAX_HEROES as u32 * PC_BLOCK <= DAY);
    assert!(2 * UNITS + MAX_MAJOR_UNITS as u32 <= 2 * DAY);
    assert!(DAY as u64 * MAX_DAYS as u64 <= 1 << WINDOW_BITS);
};

/// Day `day`'s numbers (from 0).
#[inline(always)]
pub fn day(battle: Decisions, day: u32) -> Decisions {
    battle.block(day * DAY)
}

/// The numbers of the defender's units' Morale rolls of a day.
#[inline(always)]
pub fn units(day: Decisions) -> Decisions {
    day.block(UNITS)
}

/// PC `i`'s numbers of a day.
#[inline(always)]
pub fn pc(day: Decisions, i: usize) -> Decisions {
    day.block(PC + i as u32 * PC_BLOCK)
}

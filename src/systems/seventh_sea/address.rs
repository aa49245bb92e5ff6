//! Where each decision of a 7th Sea battle reads its random number in the
//! battle's window ([`crate::engine::stream::Decisions`]): a block for what is
//! drawn once a battle (Free Raises, Spoils), then a block per round, in it
//! the commanders' contest and a block per Hero. Each decision reads half a
//! number ([`Decisions::half`]); the contest rolled out reads a stream of
//! its own. A Hero whose round changes (another cell, a duel) reads only
//! his own numbers, so every other Hero rolls the same in every round both
//! variants fight.

use super::scenario::{MAX_HEROES, MAX_ROUNDS};
use crate::engine::stream::{Decisions, WINDOW_BITS};

/// A side's Free Raises (half-slot, + side).
pub const FREE_RAISES: u32 = 0;
/// A Hero's Spoils roll (half-slot, + Hero).
pub const SPOILS: u32 = 2;

/// The first round's block (in numbers); round `r`'s (from 0) is
/// `ROUNDS + r × ROUND`.
const ROUNDS: u32 = 16;
/// Numbers of one round.
const ROUND: u32 = 72;

/// In a round's block: how the commanders' contest ends (half-slot).
pub const CONTEST: u32 = 0;
/// The contest rolled out where no law is cached: a stream of its own
/// (number).
pub const CONTEST_ROLLS: u32 = 1;

/// The first Hero's block in a round (in numbers); Hero `i`'s is
/// `HERO + i × HERO_BLOCK`.
const HERO: u32 = 4;
/// Numbers of one Hero a round.
const HERO_BLOCK: u32 = 4;

/// In a Hero's block (half-slots): his personal result.
pub const PERSONAL: u32 = 0;
/// The damage the chart's cell rolls against him.
pub const DAMAGE: u32 = 1;
/// His Wound Check.
pub const WOUND_CHECK: u32 = 2;
/// Which Heroic Opportunity the cell offers.
pub const OPPORTUNITY: u32 = 3;
/// His Line of Fire shot.
pub const LINE_OF_FIRE: u32 = 4;
/// How his duel ends.
pub const DUEL: u32 = 5;

const _: () = {
    assert!(SPOILS + MAX_HEROES as u32 <= 2 * ROUNDS);
    assert!(CONTEST < 2 * CONTEST_ROLLS && CONTEST_ROLLS < HERO);
    assert!(DUEL < 2 * HERO_BLOCK);
    assert!(HERO + MAX_HEROES as u32 * HERO_BLOCK <= ROUND);
    assert!(ROUNDS as u64 + ROUND as u64 * *MAX_ROUNDS.end() as u64 <= 1 << WINDOW_BITS);
};

/// Round `round`'s numbers (from 0).
#[inline(always)]
pub fn round(battle: Decisions, round: u32) -> Decisions {
    battle.block(ROUNDS + round * ROUND)
}

/// Hero `i`'s numbers of a round.
#[inline(always)]
pub fn hero(round: Decisions, i: usize) -> Decisions {
    round.block(HERO + i as u32 * HERO_BLOCK)
}

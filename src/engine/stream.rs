//! The random numbers of a battle, addressed by the battle and the
//! decision they make.
//!
//! Battle *n* of a run of seed *s* owns a window of 2^20 numbers of one
//! SplitMix64 sequence (the seed's): number *k* of the battle is the
//! sequence's number `n · 2^20 + k`. Windows never overlap, and a battle's
//! window costs nothing to find, so a plain run and every variant of a
//! paired one fight battle *n* on the same numbers, whatever the thread
//! count or shard.
//!
//! A system reads its window in either of two ways:
//! - in turn, as a [`rand::Rng`] (war cards, 7th Sea);
//! - by address ([`Decisions::number`], or half a number each,
//!   [`Decisions::half`]): each decision of the rules
//!   (a day, a PC, which roll) owns a fixed number of the window, so a
//!   variant that rolls more or less for one PC never moves another's
//!   numbers (GURPS). A draw of unbounded length reads a sub-stream of its
//!   own ([`Decisions::stream`]).

use anyhow::{Result, bail};
use rand::{Rng, SeedableRng};
use rand_xoshiro::SplitMix64;

/// SplitMix64's increment: its state moves by this at every number.
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// A battle's window holds 2^this numbers (a battle reading more in turn
/// would run into the next battle's window; the longest bundled battles
/// read a few hundred, and addressed ones a few thousand at most).
pub const WINDOW_BITS: u32 = 20;

/// How far apart two battles' windows start, in SplitMix64 states.
const WINDOW_STEP: u64 = GOLDEN << WINDOW_BITS;

/// The most battles a run numbers before its windows would repeat.
pub const MAX_BATTLES: u64 = 1 << (u64::BITS - WINDOW_BITS);

/// Refuses a run of more battles than its windows can number.
pub fn check_battles(trials: u64) -> Result<()> {
    if trials > MAX_BATTLES {
        bail!(
            "trials = {trials} is more than a run numbers battle by battle \
             (at most 2^44 = {MAX_BATTLES})"
        );
    }
    Ok(())
}

/// One battle's stream: SplitMix64 from a state set directly (the numbers
/// of `rand_xoshiro::SplitMix64`, checked by the tests), which a battle
/// builds for nothing: the crate's type is built only through a call the
/// battle loop cannot inline.
#[derive(Debug, Clone)]
pub struct BattleStream {
    state: u64,
}

/// SplitMix64's output function of a state.
#[inline(always)]
fn mix(state: u64) -> u64 {
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl BattleStream {
    /// The stream from `state` on (its first number mixes `state + GOLDEN`).
    #[inline(always)]
    pub fn at(state: u64) -> BattleStream {
        BattleStream { state }
    }

    /// Battle `n`'s window of a run of `seed`, from its first number.
    #[inline]
    pub fn battle(seed: u64, n: u64) -> BattleStream {
        BattleStream::at(battle_start(seed, n))
    }

    /// The window of the battle after this one's (the stream must stand at
    /// its window's start).
    #[inline(always)]
    pub fn next_battle(&self) -> BattleStream {
        BattleStream::at(self.state.wrapping_add(WINDOW_STEP))
    }

    /// The window read by address, from where the stream stands.
    #[inline(always)]
    pub fn decisions(&self) -> Decisions {
        Decisions { state: self.state }
    }
}

/// A battle's window read by address: number `k` is the number the
/// `k + 1`-th draw in turn would give. A block of addresses reads like a
/// window of its own ([`Decisions::block`]), so each part of the rules
/// numbers its decisions from 0.
#[derive(Debug, Clone, Copy)]
pub struct Decisions {
    state: u64,
}

impl Decisions {
    /// Number `address`.
    #[inline(always)]
    pub fn number(self, address: u32) -> u64 {
        mix(self
            .state
            .wrapping_add(u64::from(address).wrapping_add(1).wrapping_mul(GOLDEN)))
    }

    /// Half-number `slot`: the high 32 bits of number `slot / 2` for an
    /// even slot, the low ones for an odd slot, as the top bits of a
    /// 64-bit number (the rest zero). Two decisions then share one number's
    /// cost, each with 32 random bits of its own: a law drawn from one is
    /// exact to within 2^-32 an outcome.
    #[inline(always)]
    pub fn half(self, slot: u32) -> u64 {
        let x = self.number(slot / 2);
        if slot.is_multiple_of(2) {
            x & !0xFFFF_FFFF
        } else {
            x << 32
        }
    }

    /// The addresses from `offset` on, numbered from 0.
    #[inline(always)]
    pub fn block(self, offset: u32) -> Decisions {
        Decisions {
            state: self
                .state
                .wrapping_add(u64::from(offset).wrapping_mul(GOLDEN)),
        }
    }

    /// A stream of its own for a draw of unbounded length, started from
    /// number `address`: its numbers lie somewhere far off in the seed's
    /// sequence, where a window of the run is met only by a chance of
    /// 2^-44 per battle and number drawn.
    #[inline(always)]
    pub fn stream(self, address: u32) -> BattleStream {
        BattleStream::at(self.number(address))
    }
}

impl rand::TryRng for BattleStream {
    type Error = std::convert::Infallible;

    #[inline(always)]
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        self.state = self.state.wrapping_add(GOLDEN);
        let mut z = self.state;
        z = (z ^ (z >> 33)).wrapping_mul(0x62a9_d9ed_7997_05f5);
        z = (z ^ (z >> 28)).wrapping_mul(0xcb24_d0a5_c88c_35b3);
        Ok((z >> 32) as u32)
    }

    #[inline(always)]
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.state = self.state.wrapping_add(GOLDEN);
        Ok(mix(self.state))
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dest.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        Ok(())
    }
}

/// The SplitMix64 state battle `n` of a run of `seed` starts from: number
/// `k` of the battle is the sequence's number `n · 2^20 + k` past the
/// seed's origin (distinct for every `n < 2^44`, as `GOLDEN` is odd).
#[inline]
pub fn battle_start(seed: u64, n: u64) -> u64 {
    let origin = SplitMix64::seed_from_u64(seed).next_u64();
    origin.wrapping_add(n.wrapping_mul(WINDOW_STEP))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_battle_stream_is_rand_xoshiros_splitmix64() {
        for state in [0, 1, 7, u64::MAX, GOLDEN, 123_456_789] {
            let mut mine = BattleStream::at(state);
            let mut theirs = SplitMix64::seed_from_u64(state);
            for _ in 0..4 {
                assert_eq!(mine.next_u64(), theirs.next_u64(), "state {state}");
                assert_eq!(mine.next_u32(), theirs.next_u32(), "state {state}");
            }
            let (mut a, mut b) = ([0u8; 13], [0u8; 13]);
            mine.fill_bytes(&mut a);
            theirs.fill_bytes(&mut b);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn an_addressed_number_is_the_draw_in_turn_at_that_place() {
        let stream = BattleStream::battle(3, 5);
        let mut in_turn = stream.clone();
        let drawn: Vec<u64> = (0..10).map(|_| in_turn.next_u64()).collect();
        let decisions = stream.decisions();
        for (k, x) in drawn.iter().enumerate() {
            assert_eq!(decisions.number(k as u32), *x, "address {k}");
        }
        // A block numbers from its offset.
        assert_eq!(decisions.block(6).number(2), drawn[8]);
        assert_eq!(decisions.block(3).block(4).number(0), drawn[7]);
        // Halves: the high and low 32 bits of one number.
        assert_eq!(decisions.half(6), drawn[3] & !0xFFFF_FFFF);
        assert_eq!(decisions.half(7), drawn[3] << 32);
        // A sub-stream starts from its address's number.
        let mut sub = decisions.stream(4);
        assert_eq!(sub.next_u64(), mix(drawn[4].wrapping_add(GOLDEN)));
    }

    #[test]
    fn battle_windows_follow_one_splitmix_sequence_without_overlap() {
        let seed = 17;
        let mut sequence = BattleStream::battle(seed, 0);
        let whole: Vec<u64> = (0..3 << WINDOW_BITS).map(|_| sequence.next_u64()).collect();
        let mut next = BattleStream::battle(seed, 0);
        for n in 0..3u64 {
            let mut battle = BattleStream::battle(seed, n);
            assert_eq!(battle.state, next.state, "battle {n}");
            next = next.next_battle();
            let window = &whole[(n << WINDOW_BITS) as usize..][..8];
            let drawn: Vec<u64> = (0..8).map(|_| battle.next_u64()).collect();
            assert_eq!(drawn, window, "battle {n}");
        }
        // The last battle a run numbers is the window just before the first.
        let last = battle_start(seed, MAX_BATTLES - 1);
        assert_eq!(last.wrapping_add(WINDOW_STEP), battle_start(seed, 0));
        assert!(check_battles(MAX_BATTLES).is_ok());
        assert!(check_battles(MAX_BATTLES + 1).is_err());
    }
}

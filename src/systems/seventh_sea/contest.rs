//! The commanders' contest of one round (docs/rules.md §3): both commanders roll
//! (Wits + Strategy + officers' Leadership)k Wits against a TN of 5 × the
//! enemy's Wits; a roll neither wins is rerolled. The loser may spend Free
//! Raises (+5 each) to turn the round. [`ContestLaw`] is the exact law of
//! one round's end, so a round costs one random number however many
//! rerolls it takes.

use rand::distr::Distribution;
use std::hint::select_unpredictable;

use crate::engine::inverse::InverseLaw;

/// Rerolls (neither succeeds, or a tie) before a round is called even.
pub const MAX_REROLLS: u32 = 1000;

/// The natural winner of one roll of both totals and the Free Raises the
/// loser would need to turn it (reach his TN and, if the winner succeeded,
/// beat his total), or `None` if the roll decides nothing.
#[inline]
pub fn decide(totals: [i64; 2], tn: [i64; 2]) -> Option<(usize, i64)> {
    let ok = [totals[0] >= tn[0], totals[1] >= tn[1]];
    let winner = match ok {
        [true, false] => 0,
        [false, true] => 1,
        [true, true] if totals[0] != totals[1] => usize::from(totals[1] > totals[0]),
        _ => return None,
    };
    let loser = 1 - winner;
    let needed_total = if ok[winner] {
        totals[winner] + 1
    } else {
        tn[loser]
    }
    .max(tn[loser]);
    Some((
        winner,
        (needed_total - totals[loser] + 4).div_euclid(5).max(0),
    ))
}

/// The side that takes a decided round: the loser if `need` Free Raises
/// (at least one) are within his means, which he then spends.
#[inline]
pub fn settle(winner: usize, need: i64, raises: &mut [i64; 2]) -> usize {
    let loser = 1 - winner;
    // A branch while he has no raises (none bought, or all spent: it
    // predicts well), selects while he has some: whether he can pay is
    // then a coin toss.
    if raises[loser] == 0 {
        return winner;
    }
    let turned = (need > 0) & (need <= raises[loser]);
    raises[loser] -= select_unpredictable(turned, need, 0);
    select_unpredictable(turned, loser, winner)
}

/// How one round ends: undecided after [`MAX_REROLLS`] rerolls, or decided
/// with a natural winner and the raises his opponent would need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RoundEnd {
    /// Every roll was rerolled.
    Undecided,
    /// (natural winner, Free Raises the loser needs to turn it).
    Decided(usize, i64),
}

impl RoundEnd {
    /// Where the end stands in the order its draw follows: side 0's wins
    /// from the most decisive down, the undecided round, then side 1's
    /// wins up to the most decisive, so a change that favours one side
    /// moves every round's end the same way.
    fn order(self) -> (u8, i64) {
        match self {
            RoundEnd::Decided(0, need) => (0, -need),
            RoundEnd::Undecided => (1, 0),
            RoundEnd::Decided(_, need) => (2, need),
        }
    }
}

/// The exact law of a round's end for given pool laws, modifiers and TNs.
#[derive(Debug, Clone)]
pub struct ContestLaw {
    /// The ends in [`RoundEnd::order`], by the inverse of their law.
    law: InverseLaw,
    /// The ends, in that order.
    ends: Vec<RoundEnd>,
}

/// P(one roll decides for winner w with need n) at `once[w][n]`, with
/// whether any pair of totals reached it (so the ends are the same whether
/// or not a product rounds to zero), and P(one roll decides nothing).
///
/// The winner `w` takes the roll when his total `X` reaches his TN and the
/// loser's `Y` is below `max(tn[l], X)`; the loser then needs
/// `ceil((N − Y) / 5)` ≥ 1 raises, `N = max(X + 1, tn[l])`. So for each `X`
/// the loser's totals needing `k` raises form the band `N − 5k ..= N − 5k + 4`,
/// summed from prefix sums: O(n²/5) rather than every pair of totals.
fn one_roll(laws: [&[f64]; 2], modifier: [i64; 2], tn: [i64; 2]) -> ([Vec<(bool, f64)>; 2], f64) {
    let mut once: [Vec<(bool, f64)>; 2] = [Vec::new(), Vec::new()];
    for w in 0..2 {
        let l = 1 - w;
        let loser = laws[l];
        // below[i] = P(loser's roll < i), some[i] = rolls < i possible.
        let mut below = vec![0.0; loser.len() + 1];
        let mut some = vec![0usize; loser.len() + 1];
        for (y, &p) in loser.iter().enumerate() {
            below[y + 1] = below[y] + p;
            some[y + 1] = some[y] + usize::from(p != 0.0);
        }
        for (x, &px) in laws[w].iter().enumerate() {
            let total = x as i64 + modifier[w];
            if px == 0.0 || total < tn[w] {
                continue;
            }
            let needed = (total + 1).max(tn[l]);
            // Loser's rolls (before his modifier) this roll beats.
            let top = (tn[l].max(total) - 1 - modifier[l]).min(loser.len() as i64 - 1);
            // The loser's rolls needing `need` raises: `band - 4 ..= band`
            // (totals `needed - 5 need ..= needed - 5 need + 4`), falling by 5
            // a raise until the band is below his lowest roll.
            let mut need = 1;
            let mut band = needed - 1 - modifier[l];
            while band >= 0 {
                let (low, high) = ((band - 4).max(0), band.min(top));
                if low <= high && some[high as usize + 1] > some[low as usize] {
                    let by_need = &mut once[w];
                    if by_need.len() <= need {
                        by_need.resize(need + 1, (false, 0.0));
                    }
                    let p = below[high as usize + 1] - below[low as usize];
                    by_need[need] = (true, by_need[need].1 + px * p);
                }
                need += 1;
                band -= 5;
            }
        }
    }
    // Undecided: neither reaches his TN, or both do with equal totals.
    let short = |s: usize| -> f64 {
        let reach = (tn[s] - modifier[s]).clamp(0, laws[s].len() as i64) as usize;
        laws[s][..reach].iter().sum()
    };
    let mut undecided = short(0) * short(1);
    for (x, &px) in laws[0].iter().enumerate() {
        let total = x as i64 + modifier[0];
        let y = total - modifier[1];
        if total >= tn[0] && total >= tn[1] && (0..laws[1].len() as i64).contains(&y) {
            undecided += px * laws[1][y as usize];
        }
    }
    (once, undecided)
}

impl ContestLaw {
    /// `laws[s][k]` = P(side s's total before modifiers = k).
    pub fn new(laws: [&[f64]; 2], modifier: [i64; 2], tn: [i64; 2]) -> ContestLaw {
        let (once, undecided) = one_roll(laws, modifier, tn);
        let once: Vec<(RoundEnd, f64)> = (0..2)
            .flat_map(|w| {
                once[w]
                    .iter()
                    .enumerate()
                    .filter(|(_, (reached, _))| *reached)
                    .map(move |(need, &(_, p))| (RoundEnd::Decided(w, need as i64), p))
            })
            .collect();
        // A decided end after k − 1 rerolls, summed over k ≤ MAX_REROLLS.
        let decided: f64 = once.iter().map(|(_, p)| p).sum();
        let never = undecided.powi(MAX_REROLLS as i32);
        let scale = if decided > 0.0 {
            (1.0 - never) / decided
        } else {
            0.0
        };
        let mut ends = Vec::new();
        let mut weights = Vec::new();
        for (end, p) in once {
            ends.push(end);
            weights.push(p * scale);
        }
        if never > 0.0 || ends.is_empty() {
            ends.push(RoundEnd::Undecided);
            weights.push(if ends.len() == 1 { 1.0 } else { never });
        }
        let mut order: Vec<usize> = (0..ends.len()).collect();
        order.sort_by_key(|&i| ends[i].order());
        ContestLaw {
            law: InverseLaw::new(&order.iter().map(|&i| weights[i]).collect::<Vec<_>>()),
            ends: order.iter().map(|&i| ends[i]).collect(),
        }
    }

    /// Each end's probability, read back from the draw table.
    pub fn probabilities(&self) -> std::collections::BTreeMap<RoundEnd, f64> {
        let mut law = std::collections::BTreeMap::new();
        for (end, p) in self.ends.iter().zip(self.law.probabilities()) {
            *law.entry(*end).or_default() += p;
        }
        law
    }
}

impl ContestLaw {
    /// The end number `x` draws.
    #[inline]
    pub fn draw(&self, x: u64) -> RoundEnd {
        self.ends[self.law.draw(x)]
    }
}

impl Distribution<RoundEnd> for ContestLaw {
    /// Draws the end of a round.
    #[inline]
    fn sample<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> RoundEnd {
        self.draw(rng.next_u64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::dice::Digits;
    use crate::systems::seventh_sea::roll_keep::Pool;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// A round rolled out, die by die: the reference for [`ContestLaw`].
    fn rolled_out<R: rand::Rng>(
        dice: &mut Digits<R>,
        pools: [Pool; 2],
        modifier: [i64; 2],
        tn: [i64; 2],
    ) -> RoundEnd {
        for _ in 0..MAX_REROLLS {
            let totals = [0, 1].map(|s| pools[s].roll(dice) + modifier[s]);
            if let Some((winner, need)) = decide(totals, tn) {
                return RoundEnd::Decided(winner, need);
            }
        }
        RoundEnd::Undecided
    }

    #[test]
    fn round_laws_match_rounds_rolled_out() {
        let mut source = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut dice = Digits::new(&mut source);
        for (pools, modifier, tn, n) in [
            (
                [Pool::new(6, 3), Pool::new(6, 3)],
                [0, 0],
                [15, 15],
                100_000u64,
            ),
            (
                [Pool::new(8, 3), Pool::new(5, 2)],
                [3, -2],
                [10, 20],
                100_000,
            ),
            (
                [Pool::new(12, 10), Pool::new(4, 4)],
                [0, 5],
                [25, 50],
                100_000,
            ),
            // Both rarely reach the TN: a quarter of rounds end undecided.
            ([Pool::new(1, 1), Pool::new(1, 1)], [0, 0], [40, 40], 4_000),
        ] {
            let law = ContestLaw::new([&pools[0].law(), &pools[1].law()], modifier, tn);
            let exact = law.probabilities();
            let mut seen = std::collections::BTreeMap::<RoundEnd, u64>::new();
            for _ in 0..n {
                *seen
                    .entry(rolled_out(&mut dice, pools, modifier, tn))
                    .or_default() += 1;
            }
            crate::stats::assert_counts_follow(&exact, &seen, n, &format!("{pools:?}"));
        }
    }

    /// [`one_roll`] by every pair of totals through [`decide`]: the
    /// reference for its banded sums.
    fn one_roll_pair_by_pair(
        laws: [&[f64]; 2],
        modifier: [i64; 2],
        tn: [i64; 2],
    ) -> ([Vec<(bool, f64)>; 2], f64) {
        let mut once: [Vec<(bool, f64)>; 2] = [Vec::new(), Vec::new()];
        let mut undecided = 0.0;
        for (a, &pa) in laws[0].iter().enumerate().filter(|(_, p)| **p != 0.0) {
            for (b, &pb) in laws[1].iter().enumerate().filter(|(_, p)| **p != 0.0) {
                let totals = [a as i64 + modifier[0], b as i64 + modifier[1]];
                match decide(totals, tn) {
                    Some((w, need)) => {
                        let need = need as usize;
                        if once[w].len() <= need {
                            once[w].resize(need + 1, (false, 0.0));
                        }
                        once[w][need] = (true, once[w][need].1 + pa * pb);
                    }
                    None => undecided += pa * pb,
                }
            }
        }
        (once, undecided)
    }

    #[test]
    fn banded_sums_match_every_pair_of_totals() {
        let with_gap = [0.0, 0.5, 0.0, 0.0, 0.25, 0.0, 0.25];
        for (laws, modifier, tn) in [
            (
                [Pool::new(6, 3).law(), Pool::new(6, 3).law()],
                [0, 0],
                [15, 15],
            ),
            (
                [Pool::new(8, 3).law(), Pool::new(5, 2).law()],
                [3, -2],
                [10, 20],
            ),
            (
                [Pool::new(12, 10).law(), Pool::new(4, 4).law()],
                [0, 5],
                [25, 50],
            ),
            (
                [Pool::new(1, 1).law(), Pool::new(1, 1).law()],
                [-12, 12],
                [40, 5],
            ),
            ([with_gap.to_vec(), Pool::new(2, 1).law()], [4, -3], [3, 0]),
            (
                [Pool::new(3, 2).law(), with_gap.to_vec()],
                [-5, 9],
                [0, 200],
            ),
        ]
        .into_iter()
        // The even field's commanders under every modifier a round caches.
        .chain((-12..=12).flat_map(|m0| {
            (-12..=12).map(move |m1| {
                (
                    [Pool::new(6, 3).law(), Pool::new(6, 3).law()],
                    [m0, m1],
                    [15, 15],
                )
            })
        })) {
            let laws = [laws[0].as_slice(), laws[1].as_slice()];
            let (once, undecided) = one_roll(laws, modifier, tn);
            let (want, want_undecided) = one_roll_pair_by_pair(laws, modifier, tn);
            let case = format!("modifier {modifier:?}, tn {tn:?}");
            assert!(
                (undecided - want_undecided).abs() < 1e-12,
                "{case}: undecided"
            );
            for w in 0..2 {
                assert_eq!(once[w].len(), want[w].len(), "{case}: needs of {w}");
                for (need, (got, want)) in once[w].iter().zip(&want[w]).enumerate() {
                    assert_eq!(got.0, want.0, "{case}: reached, side {w} need {need}");
                    assert!(
                        (got.1 - want.1).abs() < 1e-12,
                        "{case}: side {w} need {need}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_loser_turns_the_round_only_with_enough_raises() {
        let mut raises = [3, 1];
        assert_eq!(settle(0, 2, &mut raises), 0, "side 1 has 1 raise, needs 2");
        assert_eq!(raises, [3, 1]);
        assert_eq!(settle(1, 2, &mut raises), 0, "side 0 spends 2");
        assert_eq!(raises, [1, 1]);
        // 14 against TN 15 while the other side fails: one raise (+5) to 19.
        assert_eq!(decide([14, 9], [15, 15]), None);
        assert_eq!(decide([14, 16], [15, 15]), Some((1, 1)));
        assert_eq!(decide([20, 16], [15, 15]), Some((0, 1)));
        assert_eq!(decide([30, 16], [15, 15]), Some((0, 3)));
    }
}

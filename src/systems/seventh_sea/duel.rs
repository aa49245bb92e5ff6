//! A duel: exchanges of (Finesse + Attack)k(Finesse) against the opponent's,
//! the lower total taking a Dramatic Wound (ties replay), to the knock-out.
//!
//! Law: [`exchange_odds`] (one exchange) and [`DuelEnds`] (how the whole
//! duel ends, drawn with one random number). The exchange-by-exchange duel
//! is this file's test and `reference.rs`'s `duel`.

use rand::Rng;
use rand::distr::Distribution;

use crate::engine::inverse::InverseLaw;

/// How a duel ends from one starting point, drawn with one random number
/// by the inverse of its law, from the Hero's best end (won unhurt) to his
/// worst (knocked out).
#[derive(Debug, Clone)]
pub struct DuelEnds {
    law: InverseLaw,
    /// (the Hero won, his Dramatic Wounds at the end), best first.
    ends: Vec<(bool, i64)>,
}

impl DuelEnds {
    /// The exact law of a duel's end: each exchange the lower total takes a
    /// Dramatic Wound (ties replay), until the Hero reaches `hero_limit`
    /// wounds (he is out and loses) or the opponent `opponent_limit` (he
    /// wins). `p_win`/`p_lose`: one exchange's odds. A duel no exchange can
    /// decide is called off: no winner, no wounds.
    pub fn new(p_win: f64, p_lose: f64, wounds: i64, hero_limit: i64, opponent_limit: i64) -> Self {
        let decided = p_win + p_lose;
        if decided < 1e-15 || wounds >= hero_limit {
            return DuelEnds {
                law: InverseLaw::new(&[1.0]),
                ends: vec![(false, wounds)],
            };
        }
        let lose = p_lose / decided;
        let (rows, cols) = (hero_limit as usize, opponent_limit as usize);
        // mass[h][o]: P(the duel passes through h Hero and o opponent wounds).
        let mut mass = vec![vec![0.0f64; cols]; rows];
        mass[wounds as usize][0] = 1.0;
        let mut ends = Vec::new();
        let mut weights = Vec::new();
        for h in wounds as usize..rows {
            for o in 0..cols {
                let m = mass[h][o];
                if m == 0.0 {
                    continue;
                }
                if h + 1 == rows {
                    ends.push((false, hero_limit));
                    weights.push(m * lose);
                } else {
                    mass[h + 1][o] += m * lose;
                }
                if o + 1 == cols {
                    ends.push((true, h as i64));
                    weights.push(m * (1.0 - lose));
                } else {
                    mass[h][o + 1] += m * (1.0 - lose);
                }
            }
        }
        // Best first: won before lost, then fewer wounds.
        let mut order: Vec<usize> = (0..ends.len()).collect();
        order.sort_by_key(|&i| (!ends[i].0, ends[i].1));
        DuelEnds {
            law: InverseLaw::new(&order.iter().map(|&i| weights[i]).collect::<Vec<_>>()),
            ends: order.iter().map(|&i| ends[i]).collect(),
        }
    }

    /// The end number `x` draws.
    #[inline]
    pub fn draw(&self, x: u64) -> (bool, i64) {
        self.ends[self.law.draw(x)]
    }
}

impl Distribution<(bool, i64)> for DuelEnds {
    /// Draws (the Hero won, his Dramatic Wounds at the end).
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> (bool, i64) {
        self.draw(rng.next_u64())
    }
}

/// P(a > b) and P(a < b) for independent totals with the laws `a`, `b`
/// (P(total = k) at index k).
pub fn exchange_odds(a: &[f64], b: &[f64]) -> (f64, f64) {
    let b_total: f64 = b.iter().sum();
    let mut below = 0.0; // P(b < k)
    let (mut greater, mut less) = (0.0, 0.0);
    for (k, &pa) in a.iter().enumerate() {
        let at = b.get(k).copied().unwrap_or(0.0);
        greater += pa * below;
        less += pa * (b_total - below - at);
        below += at;
    }
    (greater, less)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::engine::dice::Digits;
    use crate::systems::seventh_sea::roll_keep::Pool;

    /// A duel fought exchange by exchange with dice rolled die by die: the
    /// reference the exact chain must match.
    fn duel_by_exchanges<R: Rng>(
        dice: &mut Digits<R>,
        (mine, theirs): (Pool, Pool),
        wounds: i64,
        (hero_limit, opponent_limit): (i64, i64),
    ) -> (bool, i64) {
        let (mut h, mut o) = (wounds, 0);
        loop {
            let (a, b) = (mine.roll(dice), theirs.roll(dice));
            if a < b {
                h += 1;
                if h >= hero_limit {
                    return (false, h);
                }
            } else if b < a {
                o += 1;
                if o >= opponent_limit {
                    return (true, h);
                }
            }
        }
    }

    #[test]
    fn duel_ends_match_duels_fought_exchange_by_exchange() {
        let law = |p: Pool| p.law();
        let mut source = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut dice = Digits::new(&mut source);
        for (pools, wounds, limits) in [
            ((Pool::new(6, 3), Pool::new(6, 3)), 0, (6, 6)),
            ((Pool::new(4, 2), Pool::new(7, 4)), 3, (4, 6)),
            ((Pool::new(10, 9), Pool::new(12, 10)), 1, (2, 2)),
        ] {
            let (win, lose) = exchange_odds(&law(pools.0), &law(pools.1));
            let chain = DuelEnds::new(win, lose, wounds, limits.0, limits.1);
            // The chain's probability of each end, read off a fine grid of x.
            let mut exact = std::collections::BTreeMap::<(bool, i64), f64>::new();
            for (end, p) in chain.ends.iter().zip(chain.law.probabilities()) {
                *exact.entry(*end).or_default() += p;
            }
            let total: f64 = exact.values().sum();
            assert!((total - 1.0).abs() < 1e-9);
            let n = 100_000u64;
            let mut seen = std::collections::BTreeMap::<(bool, i64), u64>::new();
            for _ in 0..n {
                *seen
                    .entry(duel_by_exchanges(&mut dice, pools, wounds, limits))
                    .or_default() += 1;
            }
            crate::stats::assert_counts_follow(&exact, &seen, n, &format!("{pools:?}"));
        }
    }
}

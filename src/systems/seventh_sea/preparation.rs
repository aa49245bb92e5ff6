//! Preparation: before the first round, the quartermaster's Supply and the
//! commander's Speech are rolled; every 10 points or fraction of the two
//! together is one Free Raise for the battle.
//!
//! Law: [`free_raises_law`] (the plain roll is `reference.rs`'s
//! `BookBattle::new`).

use super::roll_keep::Pool;

/// Supply and Speech give one Free Raise per this many points, or fraction.
pub const POINTS_PER_FREE_RAISE: usize = 10;

/// The law of a side's Free Raises: one per 10 points or fraction of the
/// combined Supply and Speech totals (42 → 5), P(raises = k) at index k.
pub fn free_raises_law(supply: Option<Pool>, speech: Option<Pool>) -> Vec<f64> {
    let mut total = vec![1.0];
    for pool in [supply, speech].into_iter().flatten() {
        let law = pool.law();
        let mut next = vec![0.0; total.len() + law.len() - 1];
        for (a, p) in total.iter().enumerate() {
            for (b, q) in law.iter().enumerate() {
                next[a + b] += p * q;
            }
        }
        total = next;
    }
    let mut raises = vec![0.0; total.len().div_ceil(POINTS_PER_FREE_RAISE) + 1];
    for (sum, p) in total.iter().enumerate() {
        raises[sum.div_ceil(POINTS_PER_FREE_RAISE)] += p;
    }
    raises
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::dice::Digits;
    use crate::systems::seventh_sea::roll_keep::{Pool, reach_chance};

    #[test]
    fn free_raises_and_line_of_fire_match_rolls() {
        let mut source = Xoshiro256PlusPlus::seed_from_u64(23);
        let mut dice = Digits::new(&mut source);
        let n = 200_000;
        for (supply, speech) in [
            (Some(Pool::new(5, 2)), Some(Pool::new(5, 3))),
            (Some(Pool::new(3, 3)), None),
            (None, None),
        ] {
            let law: std::collections::BTreeMap<usize, f64> = free_raises_law(supply, speech)
                .into_iter()
                .enumerate()
                .filter(|(_, p)| *p > 0.0)
                .collect();
            let mut seen = std::collections::BTreeMap::new();
            for _ in 0..n {
                let total: i64 = [supply, speech]
                    .iter()
                    .flatten()
                    .map(|p| p.roll(&mut dice))
                    .sum();
                *seen.entry(((total + 9) / 10) as usize).or_default() += 1;
            }
            crate::stats::assert_counts_follow(&law, &seen, n, &format!("{supply:?} {speech:?}"));
        }
        for (pool, tn) in [
            (Pool::new(7, 4), 20),
            (Pool::new(3, 2), 20),
            (Pool::new(2, 1), 35),
        ] {
            let p = reach_chance(pool, tn) as f64 / 2f64.powi(64);
            let hits = (0..n).filter(|_| pool.roll(&mut dice) >= tn).count() as u64;
            let z = crate::stats::z_for_confidence(0.999);
            let (lo, hi) = crate::stats::wilson(hits, n, z);
            assert!(
                lo <= p && p <= hi,
                "{pool:?} vs {tn}: exact {p}, rolled {lo}..{hi}"
            );
        }
    }
}

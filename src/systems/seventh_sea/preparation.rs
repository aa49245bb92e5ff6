//! Preparation: before the first round, the quartermaster's Supply and the
//! commander's Speech are rolled; every 10 points or fraction of the two
//! together (or, as a setting, of each roll) is one Free Raise for the
//! battle.
//!
//! Law: [`free_raises_law`] (the plain roll is `reference.rs`'s
//! `BookBattle::new`).

use super::roll_keep::Pool;
use super::scenario::FreeRaiseCount;

/// Supply and Speech give one Free Raise per this many points, or fraction.
pub const POINTS_PER_FREE_RAISE: usize = 10;

/// The law of a side's Free Raises, P(raises = k) at index k: one per 10
/// points or fraction of the combined Supply and Speech totals (42 → 5), or
/// of each total on its own (21 + 21 → 3 + 3).
pub fn free_raises_law(
    supply: Option<Pool>,
    speech: Option<Pool>,
    count: FreeRaiseCount,
) -> Vec<f64> {
    let rolls = [supply, speech]
        .into_iter()
        .flatten()
        .map(|pool| pool.law());
    match count {
        FreeRaiseCount::Combined => raises_of(&rolls.fold(vec![1.0], |a, b| sum_law(&a, &b))),
        FreeRaiseCount::EachRoll => rolls.fold(vec![1.0], |a, b| sum_law(&a, &raises_of(&b))),
    }
}

/// The law of a total's Free Raises, from the total's law.
fn raises_of(total: &[f64]) -> Vec<f64> {
    let mut raises = vec![0.0; total.len().div_ceil(POINTS_PER_FREE_RAISE) + 1];
    for (sum, p) in total.iter().enumerate() {
        raises[sum.div_ceil(POINTS_PER_FREE_RAISE)] += p;
    }
    raises
}

/// The law of the sum of two independent counts.
fn sum_law(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut sum = vec![0.0; a.len() + b.len() - 1];
    for (i, p) in a.iter().enumerate() {
        for (j, q) in b.iter().enumerate() {
            sum[i + j] += p * q;
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::engine::dice::Digits;
    use crate::systems::seventh_sea::roll_keep::{Pool, reach_chance};

    #[test]
    fn free_raises_and_line_of_fire_match_rolls() {
        let mut source = Xoshiro256PlusPlus::seed_from_u64(23);
        let mut dice = Digits::new(&mut source);
        let n = 200_000;
        for count in [FreeRaiseCount::Combined, FreeRaiseCount::EachRoll] {
            for (supply, speech) in [
                (Some(Pool::new(5, 2)), Some(Pool::new(5, 3))),
                (Some(Pool::new(3, 3)), None),
                (None, None),
            ] {
                let law: std::collections::BTreeMap<usize, f64> =
                    free_raises_law(supply, speech, count)
                        .into_iter()
                        .enumerate()
                        .filter(|(_, p)| *p > 0.0)
                        .collect();
                let mut seen = std::collections::BTreeMap::new();
                for _ in 0..n {
                    let totals = [supply, speech].map(|p| p.map_or(0, |p| p.roll(&mut dice)));
                    // One per 10 points or fraction: of the sum, or of each.
                    let raises = match count {
                        FreeRaiseCount::Combined => (totals[0] + totals[1] + 9) / 10,
                        FreeRaiseCount::EachRoll => (totals[0] + 9) / 10 + (totals[1] + 9) / 10,
                    };
                    *seen.entry(raises as usize).or_default() += 1;
                }
                let case = format!("{count:?} {supply:?} {speech:?}");
                crate::stats::assert_counts_follow(&law, &seen, n, &case);
            }
        }
        // The seed's example, both ways: 42 → 5 combined; 21 + 21 → 6 apiece.
        let sure = |total: i64| Pool {
            rolled: 0,
            kept: 0,
            bonus: total,
        };
        let both = (Some(sure(21)), Some(sure(21)));
        assert_eq!(
            free_raises_law(both.0, both.1, FreeRaiseCount::Combined)[5],
            1.0
        );
        assert_eq!(
            free_raises_law(both.0, both.1, FreeRaiseCount::EachRoll)[6],
            1.0
        );
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

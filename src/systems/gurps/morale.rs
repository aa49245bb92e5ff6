//! Morale: a side's base Morale comes from its troops' quality; a side
//! beaten by [`ROUT_MARGIN`] or more rolls Morale (with its Catastrophe's
//! modifiers, an atrocity's roll first) and routs on a failure.
//!
//! Plain: [`base_morale`], [`routs`]. Fast: [`routs_fast`]. Law:
//! [`rout_chance`].

use rand::Rng;

use super::catastrophe::Effect;
use super::scenario::Quality;
use super::success::{check, roll_3d6, three_d6_distribution};
use super::tables::{CatastropheRow, GurpsTables};
use crate::engine::inverse;

/// A side beaten by at least this margin rolls Morale and routs on a failure [stand-in].
pub const ROUT_MARGIN: i64 = 13;

/// Troop quality → base Morale.
pub fn base_morale(tables: &GurpsTables, quality: Quality) -> i64 {
    let m = &tables.morale;
    match quality {
        Quality::Green => m.green,
        Quality::Average => m.average,
        Quality::Seasoned => m.seasoned,
        Quality::Veteran => m.veteran,
        Quality::Elite => m.elite,
    }
}

/// Whether a side of base Morale `morale`, its Catastrophe row `row`, routs
/// when beaten badly, rolled die by die: an atrocity's Morale roll first
/// (+N made, −N failed), then the Morale roll itself.
pub fn routs<R: Rng>(rng: &mut R, morale: i64, row: &CatastropheRow) -> bool {
    let mut morale = morale + row.morale_all;
    if row.morale_by_roll != 0 {
        let made = check(morale, roll_3d6(rng, false)).success;
        morale += if made {
            row.morale_by_roll
        } else {
            -row.morale_by_roll
        };
    }
    !check(morale, roll_3d6(rng, false)).success
}

/// [`routs`] drawn fast, from the row's [`Effect`]: the atrocity's Morale
/// roll from number `atrocity`, the roll against routing from `rout`.
#[inline(always)]
pub fn routs_fast(morale: i64, effect: &Effect, (atrocity, rout): (u64, u64)) -> bool {
    let mut morale = morale + effect.morale;
    if effect.morale_by_roll != 0 {
        // Its Morale roll, made now since only the rout reads it.
        let made = check(morale, inverse::three_d6(atrocity)).success;
        morale += if made {
            effect.morale_by_roll
        } else {
            -effect.morale_by_roll
        };
    }
    !check(morale, inverse::three_d6(rout)).success
}

/// The exact chance of [`routs`].
pub fn rout_chance(morale: i64, row: &CatastropheRow) -> f64 {
    let p = three_d6_distribution(false);
    let made = |skill: i64| -> f64 {
        (3..=18)
            .filter(|&r| check(skill, r).success)
            .map(|r| p[r as usize])
            .sum()
    };
    let base = morale + row.morale_all;
    if row.morale_by_roll == 0 {
        return 1.0 - made(base);
    }
    let first = made(base);
    first * (1.0 - made(base + row.morale_by_roll))
        + (1.0 - first) * (1.0 - made(base - row.morale_by_roll))
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;

    /// Routs rolled die by die and fast, against the exact chance, with and
    /// without an atrocity's roll.
    #[test]
    fn routs_rolled_both_ways_follow_the_law() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let n = 200_000;
        for (morale, all, by_roll) in [(10, 0, 0), (9, -3, 0), (11, 0, 1), (8, -1, 2)] {
            let row = CatastropheRow {
                morale_all: all,
                morale_by_roll: by_roll,
                ..Default::default()
            };
            let effect = Effect::new(&row);
            let p = rout_chance(morale, &row);
            let exact = std::collections::BTreeMap::from([(true, p), (false, 1.0 - p)]);
            let (mut plain, mut fast) = (Default::default(), Default::default());
            let count = |seen: &mut std::collections::BTreeMap<bool, u64>, r: bool| {
                *seen.entry(r).or_default() += 1;
            };
            for _ in 0..n {
                count(&mut plain, routs(&mut rng, morale, &row));
                let numbers = (rng.next_u64(), rng.next_u64());
                count(&mut fast, routs_fast(morale, &effect, numbers));
            }
            let what = format!("Morale {morale}, {all:+}, atrocity {by_roll}");
            crate::stats::assert_counts_follow(&exact, &plain, n, &what);
            crate::stats::assert_counts_follow(&exact, &fast, n, &what);
        }
        // Morale 10 with no modifier: fails on 11+, 108/216.
        assert!((rout_chance(10, &CatastropheRow::default()) - 0.5).abs() < 1e-15);
    }
}

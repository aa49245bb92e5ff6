//! Damage: a Survival column's hits, each (dice)d6 + add by the enemy's
//! Tech Level, each reduced by the PC's DR and at least 0; and the same sum
//! of dice as a law, which the casualty percentages also use.
//!
//! Plain: [`column_hits`], [`hits`]. Law: [`damage_distribution`],
//! [`column_damage`].

use rand::Rng;

use super::rules::HeroRules;
use super::success::d6_sum;
use super::tables::{Column, GurpsTables};

/// The (count, dice, add) of column `column`'s hits on PC `hero`.
pub fn column_hits(tables: &GurpsTables, hero: &HeroRules, column: Column) -> (i64, i64, i64) {
    let hits = tables.damage.hits;
    let [a_dice, a_add, c_dice, c_add] = hero.enemy_hit;
    match column {
        Column::A => (hits.A, a_dice, a_add),
        Column::B => (hits.B, a_dice, a_add),
        Column::C => (hits.C, c_dice, c_add),
        Column::D => (hits.D, c_dice, c_add),
    }
}

/// `count` hits of `dice`d6 + `add`, each through DR `dr` and at least 0,
/// rolled die by die.
pub fn hits<R: Rng>(rng: &mut R, (count, dice, add): (i64, i64, i64), dr: i64) -> i64 {
    (0..count)
        .map(|_| (d6_sum(rng, dice) + add - dr).max(0))
        .sum()
}

/// The law of the HP each Survival column's hits take from a PC, columns A
/// to D: [`hits`] of [`column_hits`] through his DR.
pub fn column_damage(tables: &GurpsTables, hero: &HeroRules) -> [Vec<f64>; 4] {
    [Column::A, Column::B, Column::C, Column::D].map(|c| {
        let (count, dice, add) = column_hits(tables, hero, c);
        damage_distribution(count, dice, add, hero.dr)
    })
}

/// The exact distribution of the HP `hits` hits of `dice`d6 + `add` do
/// through DR `dr` (each hit at least 0): P(total = k) for k = 0, 1, ...
pub fn damage_distribution(hits: i64, dice: i64, add: i64, dr: i64) -> Vec<f64> {
    let mut sum = vec![1.0];
    for _ in 0..dice.max(0) {
        let mut next = vec![0.0; sum.len() + 6];
        for (s, p) in sum.iter().enumerate() {
            for face in 1..=6 {
                next[s + face] += p / 6.0;
            }
        }
        sum = next;
    }
    let mut hit = vec![0.0];
    for (s, p) in sum.iter().enumerate() {
        let through = (s as i64 + add - dr).max(0) as usize;
        if hit.len() <= through {
            hit.resize(through + 1, 0.0);
        }
        hit[through] += p;
    }
    let mut total = vec![1.0];
    for _ in 0..hits.max(0) {
        let mut next = vec![0.0; total.len() + hit.len() - 1];
        for (a, p) in total.iter().enumerate() {
            for (b, q) in hit.iter().enumerate() {
                next[a + b] += p * q;
            }
        }
        total = next;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damage_distribution_matches_every_roll_enumerated() {
        let d = damage_distribution(2, 2, -1, 3);
        let mut ways = vec![0u32; d.len()];
        for roll in 0..6u32.pow(4) {
            let faces: Vec<i64> = (0..4)
                .map(|k| (roll / 6u32.pow(k) % 6) as i64 + 1)
                .collect();
            let hit = |a: i64, b: i64| (a + b - 1 - 3).max(0);
            ways[(hit(faces[0], faces[1]) + hit(faces[2], faces[3])) as usize] += 1;
        }
        for (p, w) in d.iter().zip(&ways) {
            assert!((p - *w as f64 / 1296.0).abs() < 1e-15, "{d:?} vs {ways:?}");
        }
        assert_eq!(damage_distribution(0, 3, 5, 0), vec![1.0]);
    }

    /// Hits rolled die by die follow the law.
    #[test]
    fn hits_rolled_follow_the_law() {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(8);
        let n = 200_000;
        for (count, dice, add, dr) in [(1, 1, 2, 2), (2, 2, 2, 3), (3, 3, -1, 5)] {
            let exact: std::collections::BTreeMap<i64, f64> =
                damage_distribution(count, dice, add, dr)
                    .into_iter()
                    .enumerate()
                    .filter(|(_, p)| *p > 0.0)
                    .map(|(k, p)| (k as i64, p))
                    .collect();
            let mut seen = std::collections::BTreeMap::new();
            for _ in 0..n {
                *seen
                    .entry(hits(&mut rng, (count, dice, add), dr))
                    .or_default() += 1;
            }
            crate::stats::assert_counts_follow(
                &exact,
                &seen,
                n,
                &format!("{count} hits of {dice}d+{add} - DR {dr}"),
            );
        }
    }
}

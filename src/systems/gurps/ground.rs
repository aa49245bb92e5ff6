//! The ground after the battle: a defender beaten by a significant victory
//! holds if at least half its major units make Morale, else it retreats in
//! good order; beaten by a great or overwhelming victory, every defending
//! unit retreats. The battle-results table says which rows do what
//! ([`Ground`]); the fate is the last day's.
//!
//! Plain: [`roll`]. Fast: [`fate_fast`]. Law: [`hold_chance`].

use rand::Rng;

use super::success::{check, roll_3d6, three_d6_distribution};
use super::tables::Ground;
use crate::engine::inverse;
use crate::engine::stream::Decisions;

/// The defender's ground after the battle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Fate {
    /// Not beaten, or beaten by a result that leaves it its ground.
    Holds,
    /// Beaten by a significant victory, at least half its units made Morale.
    HoldsOnMorale,
    /// Beaten by a significant victory, fewer than half made Morale: it
    /// retreats in good order.
    Retreats,
    /// Beaten by a great or overwhelming victory: every unit retreats.
    DrivenOff,
}

impl Fate {
    /// Labels in reporting order.
    pub const LABELS: [&'static str; 4] = ["holds", "holds_on_morale", "retreats", "driven_off"];
}

/// Whether `made` of `units` Morale rolls are at least half.
pub fn half_made(made: u32, units: u32) -> bool {
    2 * made >= units
}

/// The defender's fate, die by die: `beaten` says whether the attacker won
/// the last day, `ground` what its result does; each of the `units` rolls
/// Morale against `morale` when the result calls for it.
pub fn roll<R: Rng>(rng: &mut R, beaten: bool, ground: Ground, morale: i64, units: u32) -> Fate {
    match (beaten, ground) {
        (false, _) | (true, Ground::Kept) => Fate::Holds,
        (true, Ground::Retreats) => Fate::DrivenOff,
        (true, Ground::MoraleCheck) => {
            let made = (0..units)
                .filter(|_| check(morale, roll_3d6(rng, false)).success)
                .count() as u32;
            if half_made(made, units) {
                Fate::HoldsOnMorale
            } else {
                Fate::Retreats
            }
        }
    }
}

/// [`roll`] drawn fast: unit `k`'s Morale roll from half-number `k` of
/// `units_numbers`, read only when the result calls for it.
#[inline(always)]
pub fn fate_fast(beaten: bool, ground: Ground, morale: i64, units: u32, numbers: Decisions) -> Fate {
    match (beaten, ground) {
        (false, _) | (true, Ground::Kept) => Fate::Holds,
        (true, Ground::Retreats) => Fate::DrivenOff,
        (true, Ground::MoraleCheck) => {
            let made = (0..units)
                .filter(|&k| check(morale, inverse::three_d6(numbers.half(k))).success)
                .count() as u32;
            if half_made(made, units) {
                Fate::HoldsOnMorale
            } else {
                Fate::Retreats
            }
        }
    }
}

/// The exact chance that at least half of `units` Morale rolls against
/// `morale` are made.
pub fn hold_chance(morale: i64, units: u32) -> f64 {
    let p3 = three_d6_distribution(false);
    let p: f64 = (3..=18)
        .filter(|&r| check(morale, r).success)
        .map(|r| p3[r as usize])
        .sum();
    // The binomial law of the rolls made, summed where half are.
    let mut made = vec![1.0];
    for _ in 0..units {
        let mut next = vec![0.0; made.len() + 1];
        for (k, &q) in made.iter().enumerate() {
            next[k] += q * (1.0 - p);
            next[k + 1] += q * p;
        }
        made = next;
    }
    (made.iter().enumerate())
        .filter(|&(k, _)| half_made(k as u32, units))
        .map(|(_, q)| q)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: Morale 10 is made on 3d6 ≤ 10, 108/216 = 1/2. Three units
    /// hold with two or three made: 3/8 + 1/8 = 1/2. Four hold with two
    /// or more: 1 − (1 + 4)/16 = 11/16.
    #[test]
    fn half_the_units_made_by_hand() {
        assert!((hold_chance(10, 3) - 0.5).abs() < 1e-12);
        assert!((hold_chance(10, 4) - 11.0 / 16.0).abs() < 1e-12);
        assert!(half_made(2, 3) && !half_made(1, 3) && half_made(2, 4) && half_made(1, 1));
    }

    /// The plain roll's shares match the law.
    #[test]
    fn the_plain_roll_follows_the_law() {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let n = 200_000;
        let held = (0..n)
            .filter(|_| roll(&mut rng, true, Ground::MoraleCheck, 11, 3) == Fate::HoldsOnMorale)
            .count() as f64
            / n as f64;
        let p = hold_chance(11, 3);
        let se = (p * (1.0 - p) / n as f64).sqrt();
        assert!((held - p).abs() < 5.0 * se, "{held} against {p}");
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(4);
        assert_eq!(roll(&mut rng, false, Ground::Retreats, 11, 3), Fate::Holds);
        assert_eq!(roll(&mut rng, true, Ground::Retreats, 11, 3), Fate::DrivenOff);
        assert_eq!(roll(&mut rng, true, Ground::Kept, 11, 3), Fate::Holds);
    }
}

//! Survival: each day every PC still standing rolls his Combat skill plus
//! Risk, less the losing side's penalty, capped (with Luck the best of
//! three), on the Survival table; the row costs HP (fixed, or its column's hits), and the
//! injury may knock him out or kill him (HT rolls at 0 HP and at each
//! multiple of −HT, dead at −5×HT).
//!
//! Plain: [`penalty`], [`skill`], [`roll`], [`injure`]. Fast:
//! [`injure_fast`], its law [`injury_law`], and [`SurvivalDraws`]: the roll
//! and the damage, each drawn by the inverse of its law from a number of
//! its own, so a variant whose PC lands on another row (or column) differs
//! only where the change moved a boundary.

use rand::Rng;

use super::damage::{self, column_damage};
use super::outcome::State;
use super::rules::{COMBAT_CAP, HeroRules};
use super::success::{RollLaw, check, roll_3d6, row_of, rows_by_roll, three_d6_distribution};
use super::tables::GurpsTables;
use crate::engine::inverse::InverseLaw;

/// The losing side's PCs take −1 on Survival per this many points of the
/// margin of victory [stand-in].
pub const LOSING_PENALTY_STEP: i64 = 4;

/// Largest losing-side penalty tabulated; larger ones read the last table.
pub const MAX_PENALTY: usize = 40;

/// The Survival penalty of a PC on side `side` after a day won by `winner`
/// (2: a tie) by `margin` of victory.
pub fn penalty(winner: usize, side: usize, margin: i64) -> i64 {
    let losing = winner != 2 && winner != side;
    if losing {
        margin / LOSING_PENALTY_STEP
    } else {
        0
    }
}

/// The skill a PC rolls Survival against: Combat skill + Risk − penalty,
/// capped.
pub fn skill(h: &HeroRules, penalty: i64) -> i64 {
    (h.combat_skill + h.risk - penalty).min(COMBAT_CAP)
}

/// A PC's Survival roll and its damage, die by die: the row, and the HP
/// lost and state after, from `lost` HP lost and `state` so far.
pub fn roll<R: Rng>(
    rng: &mut R,
    t: &GurpsTables,
    h: &HeroRules,
    penalty: i64,
    (lost, state): (i64, State),
) -> (usize, i64, State) {
    let row = row_of(&t.survival, skill(h, penalty), roll_3d6(rng, h.luck));
    let r = &t.survival[row];
    let damage = match r.column {
        // A fixed loss meets his Toughness; a column's hits his DR.
        None => (r.hp_lost() - h.toughness).max(0),
        Some(column) => damage::hits(rng, damage::column_hits(t, h, column), h.dr),
    };
    let (lost, state) = injure(rng, h, lost, damage, state);
    (row, lost, state)
}

/// `damage` HP off a PC who has lost `lost` of `hp`: at 0 HP or below an HT
/// roll to stay conscious; at −HT and each further multiple an HT roll or
/// die; at −5×HT dead.
pub fn injure<R: Rng>(
    rng: &mut R,
    h: &HeroRules,
    lost: i64,
    damage: i64,
    state: State,
) -> (i64, State) {
    if damage <= 0 || state == State::Dead {
        return (lost, state);
    }
    let (before, after) = (h.hp - lost, h.hp - lost - damage);
    let lost = lost + damage;
    if after <= -5 * h.ht {
        return (lost, State::Dead);
    }
    for k in 1..5 {
        let threshold = -k * h.ht;
        if before > threshold && after <= threshold && !check(h.ht, roll_3d6(rng, false)).success {
            return (lost, State::Dead);
        }
    }
    let state = state.max(State::Wounded);
    if after <= 0 && state < State::Down {
        let conscious = check(h.ht, roll_3d6(rng, false)).success;
        return (
            lost,
            if conscious {
                State::AtOrBelowZeroHp
            } else {
                State::Down
            },
        );
    }
    (lost, state)
}

/// [`injure`] drawn fast, for a PC of `hp` and `ht`: `ht_roll(k)` is the
/// HT roll of the death check at −(k+1)×HT (k = 0..4) and, for k = 4, the
/// roll to stay conscious, each from a number of its own.
#[inline(always)]
pub fn injure_fast(
    ht_roll: impl Fn(u32) -> i64,
    (hp, ht): (i64, i64),
    lost: i64,
    damage: i64,
    state: State,
) -> (i64, State) {
    if damage <= 0 || state == State::Dead {
        return (lost, state);
    }
    let before = hp - lost;
    let after = before - damage;
    let mut state = if state == State::Unhurt {
        State::Wounded
    } else {
        state
    };
    if after <= -5 * ht {
        return (lost + damage, State::Dead);
    }
    if after <= -ht {
        for k in 1..5 {
            let threshold = -k * ht;
            if before > threshold && after <= threshold && !check(ht, ht_roll(k as u32 - 1)).success
            {
                return (lost + damage, State::Dead);
            }
        }
    }
    if after <= 0 && state < State::Down {
        state = if check(ht, ht_roll(CONSCIOUSNESS)).success {
            State::AtOrBelowZeroHp
        } else {
            State::Down
        };
    }
    (lost + damage, state)
}

/// The [`injure_fast`] HT roll that keeps a PC conscious.
pub const CONSCIOUSNESS: u32 = 4;

/// HT rolls an injury may make: four death checks and one to stay conscious.
pub const HT_ROLLS: u32 = 5;

/// The exact law of the state [`injure`] leaves, indexed as [`State::ALL`].
pub fn injury_law(hp: i64, ht: i64, lost: i64, damage: i64, state: State) -> [f64; 5] {
    let mut law = [0.0; 5];
    if damage <= 0 || state == State::Dead {
        law[state as usize] = 1.0;
        return law;
    }
    let before = hp - lost;
    let after = before - damage;
    let state = if state == State::Unhurt {
        State::Wounded
    } else {
        state
    };
    if after <= -5 * ht {
        law[State::Dead as usize] = 1.0;
        return law;
    }
    let rolls = three_d6_distribution(false);
    let pass: f64 = (3..=18)
        .filter(|&roll| check(ht, roll).success)
        .map(|roll| rolls[roll as usize])
        .sum();
    // P(still alive) through the death checks.
    let mut alive = 1.0;
    if after <= -ht {
        for k in 1..5 {
            let threshold = -k * ht;
            if before > threshold && after <= threshold {
                law[State::Dead as usize] += alive * (1.0 - pass);
                alive *= pass;
            }
        }
    }
    if after <= 0 && state < State::Down {
        law[State::Down as usize] += alive * (1.0 - pass);
        law[State::AtOrBelowZeroHp as usize] += alive * pass;
    } else {
        law[state as usize] += alive;
    }
    law
}

/// A PC's Survival row and the HP it costs, fast: the roll (3d6, or the
/// lowest of three with Luck) by the inverse of its law from one number,
/// the row it lands on at the day's penalty by lookup, and a column's hits
/// by the inverse of their law from a second number.
#[derive(Debug, Clone)]
pub struct SurvivalDraws {
    /// His roll.
    roll: RollLaw,
    /// Per losing-side penalty 0..=MAX_PENALTY: its entry of `rows`.
    by_penalty: [u8; MAX_PENALTY + 1],
    /// Distinct lookups of the row each roll (3..=18) lands on.
    rows: Vec<[u8; 19]>,
    /// Per Survival row: its fixed HP through Toughness, or (as `-1 - c`)
    /// column `c`'s hits.
    cost: Vec<i64>,
    /// Per column A..D: the law of the HP its hits take.
    damage: Vec<InverseLaw>,
}

impl SurvivalDraws {
    /// The draws of one PC.
    pub fn new(tables: &GurpsTables, hero: &HeroRules) -> SurvivalDraws {
        let mut draws = SurvivalDraws {
            roll: RollLaw::new(hero.luck),
            by_penalty: [0; MAX_PENALTY + 1],
            rows: Vec::new(),
            cost: tables
                .survival
                .iter()
                .map(|r| {
                    let fixed = (r.hp_lost() - hero.toughness).max(0);
                    r.column.map_or(fixed, |c| -1 - c as i64)
                })
                .collect(),
            damage: column_damage(tables, hero)
                .iter()
                .map(|law| InverseLaw::new(law))
                .collect(),
        };
        for penalty in 0..=MAX_PENALTY {
            let by_roll = rows_by_roll(&tables.survival, skill(hero, penalty as i64));
            let index = match draws.rows.iter().position(|r| *r == by_roll) {
                Some(i) => i,
                None => {
                    draws.rows.push(by_roll);
                    draws.rows.len() - 1
                }
            };
            draws.by_penalty[penalty] = index as u8;
        }
        draws
    }

    /// The Survival row and HP lost at a losing-side `penalty`, from the
    /// roll's number and (read only for a column's hits) the damage's.
    #[inline(always)]
    pub fn draw(&self, penalty: usize, roll: u64, damage: impl FnOnce() -> u64) -> (usize, i64) {
        let rows = &self.rows[self.by_penalty[penalty.min(MAX_PENALTY)] as usize];
        let row = rows[self.roll.draw(roll) as usize] as usize;
        let cost = self.cost[row];
        if cost >= 0 {
            (row, cost)
        } else {
            (row, self.damage[(-1 - cost) as usize].draw(damage()) as i64)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::engine::inverse;
    use crate::engine::stream::BattleStream;
    use crate::stats::assert_counts_follow;
    use crate::systems::gurps::scenario::Role;

    /// A soldier PC with Combat skill `skill` (Risk 0) and (HP, HT, DR).
    fn soldier(skill: i64, luck: bool, (hp, ht, dr): (i64, i64, i64)) -> HeroRules {
        HeroRules {
            side: 0,
            role: Role::Soldier,
            combat_skill: skill,
            risk: 0,
            luck,
            hp,
            ht,
            major_unit: None,
            enemy_hit: [1, 2, 2, 0],
            dr,
            own_dr: dr,
            toughness: 0,
        }
    }

    fn built_in() -> GurpsTables {
        GurpsTables::load(&Default::default(), &crate::tables::TableFiles::in_folder(std::path::Path::new("."))).unwrap()
    }

    /// HT rolls for [`injure_fast`] from battle `n`'s numbers.
    fn ht_rolls(n: u64) -> impl Fn(u32) -> i64 {
        let numbers = BattleStream::battle(1, n).decisions();
        move |k| inverse::three_d6(numbers.number(k))
    }

    #[test]
    fn injuries_follow_the_thresholds() {
        let rolls = ht_rolls(0);
        // No damage: nothing changes.
        assert_eq!(
            injure_fast(&rolls, (10, 10), 0, 0, State::Unhurt),
            (0, State::Unhurt)
        );
        // Damage above 0 HP: wounded, no rolls.
        assert_eq!(
            injure_fast(&rolls, (10, 10), 0, 5, State::Unhurt),
            (5, State::Wounded)
        );
        // To −5×HT: dead outright.
        assert_eq!(
            injure_fast(&rolls, (10, 10), 0, 60, State::Unhurt),
            (60, State::Dead)
        );
        // At −HT exactly: one death check.
        let mut dead = 0;
        for n in 0..10_000 {
            let (_, s) = injure_fast(ht_rolls(n), (10, 3), 0, 13, State::Unhurt);
            assert_ne!(s, State::Unhurt);
            dead += (s == State::Dead) as u32;
        }
        // HT 3: success only on 3 (1/216) or 4 (3/216): dies with 212/216.
        let p = dead as f64 / 10_000.0;
        assert!((p - 212.0 / 216.0).abs() < 0.01, "{p}");
    }

    /// The injury's law against injuries rolled, fast and die by die.
    #[test]
    fn injury_law_matches_injuries_rolled_both_ways() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let n = 100_000;
        // (HP, HT, lost, damage, state): no check, one consciousness roll,
        // death checks at -HT and -2HT, straight to -5HT, already down.
        for case in [
            (10, 10, 0, 4, State::Unhurt),
            (10, 10, 0, 12, State::Unhurt),
            (11, 9, 3, 25, State::Wounded),
            (12, 12, 0, 40, State::Unhurt),
            (10, 8, 0, 60, State::Unhurt),
            (10, 10, 14, 3, State::Down),
        ] {
            let (hp, ht, lost, damage, state) = case;
            let hero = soldier(12, false, (hp, ht, 0));
            let exact: BTreeMap<State, f64> = State::ALL
                .into_iter()
                .zip(injury_law(hp, ht, lost, damage, state))
                .filter(|(_, p)| *p > 0.0)
                .collect();
            let (mut fast, mut plain) = (BTreeMap::new(), BTreeMap::new());
            for battle in 0..n {
                let (_, s) = injure_fast(ht_rolls(battle), (hp, ht), lost, damage, state);
                *fast.entry(s).or_default() += 1;
                let (l, s) = injure(&mut rng, &hero, lost, damage, state);
                assert_eq!(l, lost + damage.max(0));
                *plain.entry(s).or_default() += 1;
            }
            assert_counts_follow(&exact, &fast, n, &format!("fast {case:?}"));
            assert_counts_follow(&exact, &plain, n, &format!("plain {case:?}"));
        }
    }

    /// The exact law of an unhurt PC's (row, HP lost, state after), from
    /// the roll's law, each row's cost and the injury's law.
    fn unhurt_law(
        t: &GurpsTables,
        hero: &HeroRules,
        penalty: i64,
    ) -> BTreeMap<(usize, i64, State), f64> {
        let rolls = three_d6_distribution(hero.luck);
        let columns = column_damage(t, hero);
        let mut law = BTreeMap::new();
        for roll in 3..=18 {
            let row = row_of(&t.survival, skill(hero, penalty), roll);
            let r = &t.survival[row];
            let costs: Vec<(i64, f64)> = match r.column {
                // A fixed loss through Toughness alone.
                None => vec![((r.hp_lost() - hero.toughness).max(0), 1.0)],
                Some(c) => (columns[c as usize].iter().enumerate())
                    .map(|(hp, q)| (hp as i64, *q))
                    .collect(),
            };
            for (hp, q) in costs {
                let injury = injury_law(hero.hp, hero.ht, 0, hp, State::Unhurt);
                for (state, s) in State::ALL.into_iter().zip(injury) {
                    if rolls[roll as usize] * q * s > 0.0 {
                        *law.entry((row, hp, state)).or_default() += rolls[roll as usize] * q * s;
                    }
                }
            }
        }
        law
    }

    /// The fast draws and Survival rolled die by die ([`roll`]) against
    /// the exact joint law of (row, HP lost, state after) of an unhurt PC.
    #[test]
    fn the_draws_and_the_roll_follow_the_exact_law() {
        let t = built_in();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let cases = [
            (15, false, (10, 10), (2, 0)),
            (9, true, (8, 9), (0, 0)),
            (13, false, (10, 10), (1, 1)),
        ];
        for (skill, luck, (hp, ht), (armour, toughness)) in cases {
            let mut hero = soldier(skill, luck, (hp, ht, armour + toughness));
            hero.toughness = toughness;
            hero.enemy_hit = [2, 1, 3, 2];
            let draws = SurvivalDraws::new(&t, &hero);
            for penalty in [0, 3] {
                let exact = unhurt_law(&t, &hero, penalty);
                let n = 200_000;
                let (mut plain, mut fast) = (BTreeMap::new(), BTreeMap::new());
                for battle in 0..n {
                    let plain_roll = roll(&mut rng, &t, &hero, penalty, (0, State::Unhurt));
                    *plain.entry(plain_roll).or_default() += 1;
                    let numbers = BattleStream::battle(2, battle).decisions();
                    let (row, damage) =
                        draws.draw(penalty as usize, numbers.number(0), || numbers.number(1));
                    let rolls = |k| inverse::three_d6(numbers.block(2).number(k));
                    let (lost, state) = injure_fast(rolls, (hp, ht), 0, damage, State::Unhurt);
                    *fast.entry((row, lost, state)).or_default() += 1;
                }
                let what = format!("skill {skill}, penalty {penalty}, toughness {toughness}");
                assert_counts_follow(&exact, &plain, n, &format!("plain {what}"));
                assert_counts_follow(&exact, &fast, n, &format!("fast {what}"));
            }
        }
    }

    /// The same numbers at a higher skill never land on a worse row, nor
    /// cost more HP; a move of one row's cells changes only the draws
    /// whose roll lands on that row.
    #[test]
    fn draws_are_monotone_in_skill_and_local_to_a_row() {
        let t = built_in();
        let hero = |skill| soldier(skill, false, (10, 10, 0));
        let mut row_d = t.clone();
        let last = row_d.survival.len() - 1;
        row_d.survival[last].column = row_d.survival[last - 1].column;
        for skill in 6..16 {
            let (low, high) = (
                SurvivalDraws::new(&t, &hero(skill)),
                SurvivalDraws::new(&t, &hero(skill + 1)),
            );
            let moved = SurvivalDraws::new(&row_d, &hero(skill));
            for battle in 0..2_000 {
                let numbers = BattleStream::battle(3, battle).decisions();
                let (x, y) = (numbers.number(0), || numbers.number(1));
                let (a, b) = (low.draw(0, x, y), high.draw(0, x, y));
                assert!(b.0 <= a.0, "skill {skill}: row {} then {}", a.0, b.0);
                let c = moved.draw(0, x, y);
                assert_eq!(c.0, a.0);
                if a.0 != last {
                    assert_eq!(c, a, "skill {skill}, battle {battle}");
                }
            }
        }
    }

    #[test]
    fn the_penalty_falls_on_the_losing_side_only() {
        assert_eq!(penalty(0, 1, 9), 2);
        assert_eq!(penalty(0, 0, 9), 0);
        assert_eq!(penalty(2, 1, 0), 0);
        assert_eq!(penalty(1, 0, 3), 0);
    }
}

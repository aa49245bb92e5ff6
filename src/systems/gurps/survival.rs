//! Survival: each day every PC still standing rolls his Combat skill plus
//! Risk, less the losing side's penalty, capped (with Luck the best of
//! three), on the Survival table; the row costs HP (fixed, or its column's hits), and the
//! injury may knock him out or kill him (HT rolls at 0 HP and at each
//! multiple of −HT, dead at −5×HT).
//!
//! Plain: [`penalty`], [`skill`], [`roll`], [`injure`]. Fast:
//! [`injure_fast`], its law [`injury_law`], and [`SurvivalDraws`]: the row,
//! the HP and (for an unhurt PC) the state after, drawn together from their
//! exact joint law.

use rand::Rng;
use rand::distr::Distribution;

use super::damage::{self, column_damage};
use super::outcome::State;
use super::rules::{COMBAT_CAP, HeroRules};
use super::success::{check, roll_3d6, row_of, rows_by_roll, three_d6_distribution};
use super::tables::{Column, GurpsTables};
use crate::dice::{AliasTable, Digits};

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
        None => r.hp_lost(),
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

/// [`injure`] drawn fast, for a PC of `hp` and `ht`. Inlined, as everything
/// a battle hands its generator to ([`crate::engine::System::simulate`]).
#[inline(always)]
pub fn injure_fast<R: Rng>(
    dice: &mut Digits<R>,
    hp: i64,
    ht: i64,
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
            if before > threshold && after <= threshold && !check(ht, dice.three_d6()).success {
                return (lost + damage, State::Dead);
            }
        }
    }
    if after <= 0 && state < State::Down {
        state = if check(ht, dice.three_d6()).success {
            State::AtOrBelowZeroHp
        } else {
            State::Down
        };
    }
    (lost + damage, state)
}

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

/// A PC's Survival row and the HP it costs, drawn together with one random
/// number from their exact joint law (3d6, or the lowest of three with
/// Luck, for the row; the row's HP or its column's hits for the damage).
/// For a PC still unhurt, the state the injury leaves him in is drawn with
/// them ([`injury_law`]), so his HT rolls cost nothing either.
#[derive(Debug, Clone)]
pub struct SurvivalDraws {
    /// Draw table for each losing-side penalty 0..=MAX_PENALTY.
    by_penalty: [u8; MAX_PENALTY + 1],
    /// Distinct tables, labelled Survival row + 2^8 × HP lost.
    tables: Vec<AliasTable>,
    /// The same for an unhurt PC, labelled row + 2^8 × HP lost + 2^24 × state.
    unhurt: Vec<AliasTable>,
}

/// A Survival draw's label: row, HP lost and (for an unhurt PC) the state.
fn survival_label(row: usize, hp: usize, state: State) -> u32 {
    assert!(row < 1 << 8 && hp < 1 << 16, "Survival row {row}, HP {hp}");
    (row | hp << 8 | (state as usize) << 24) as u32
}

impl SurvivalDraws {
    /// The joint tables of one PC.
    pub fn new(tables: &GurpsTables, hero: &HeroRules) -> SurvivalDraws {
        let rolls = three_d6_distribution(hero.luck);
        let columns = column_damage(tables, hero);
        let column = |c: Column| &columns[c as usize];
        let mut seen: Vec<[u8; 19]> = Vec::new();
        let mut draws = SurvivalDraws {
            by_penalty: [0; MAX_PENALTY + 1],
            tables: Vec::new(),
            unhurt: Vec::new(),
        };
        let by_rolls =
            (0..=MAX_PENALTY as i64).map(|p| rows_by_roll(&tables.survival, skill(hero, p)));
        for (penalty, by_roll) in by_rolls.enumerate() {
            if let Some(i) = seen.iter().position(|s| *s == by_roll) {
                draws.by_penalty[penalty] = i as u8;
                continue;
            }
            let mut row_p = vec![0.0; tables.survival.len()];
            for roll in 3..=18 {
                row_p[by_roll[roll] as usize] += rolls[roll];
            }
            // (row, HP lost, probability).
            let mut joint = Vec::new();
            for (row, &p) in row_p.iter().enumerate() {
                if p == 0.0 {
                    continue;
                }
                let r = &tables.survival[row];
                match r.column {
                    None => joint.push((row, r.hp_lost() as usize, p)),
                    Some(c) => {
                        for (hp, q) in column(c).iter().enumerate() {
                            if *q > 0.0 {
                                joint.push((row, hp, p * q));
                            }
                        }
                    }
                }
            }
            let (labels, weights): (Vec<u32>, Vec<f64>) = joint
                .iter()
                .map(|&(row, hp, p)| (survival_label(row, hp, State::Unhurt), p))
                .unzip();
            let (mut unhurt_labels, mut unhurt_weights) = (Vec::new(), Vec::new());
            for &(row, hp, p) in &joint {
                let law = injury_law(hero.hp, hero.ht, 0, hp as i64, State::Unhurt);
                for (state, q) in State::ALL.into_iter().zip(law) {
                    if q > 0.0 {
                        unhurt_labels.push(survival_label(row, hp, state));
                        unhurt_weights.push(p * q);
                    }
                }
            }
            draws.by_penalty[penalty] = seen.len() as u8;
            seen.push(by_roll);
            draws.tables.push(AliasTable::labelled(&weights, &labels));
            draws
                .unhurt
                .push(AliasTable::labelled(&unhurt_weights, &unhurt_labels));
        }
        draws
    }

    /// The law of (Survival row, HP lost) at a losing-side penalty.
    #[inline(always)]
    pub fn at(&self, penalty: usize) -> SurvivalLaw<'_> {
        SurvivalLaw(&self.tables[self.by_penalty[penalty.min(MAX_PENALTY)] as usize])
    }

    /// The law of (Survival row, HP lost, state after) of an unhurt PC at a
    /// losing-side penalty.
    #[inline(always)]
    pub fn unhurt_at(&self, penalty: usize) -> UnhurtLaw<'_> {
        UnhurtLaw(&self.unhurt[self.by_penalty[penalty.min(MAX_PENALTY)] as usize])
    }
}

/// (Survival row, HP lost) at one penalty ([`SurvivalDraws::at`]).
#[derive(Clone, Copy)]
pub struct SurvivalLaw<'a>(&'a AliasTable);

impl Distribution<(usize, i64)> for SurvivalLaw<'_> {
    #[inline(always)]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> (usize, i64) {
        let label = self.0.sample(rng);
        (label & 0xFF, (label >> 8) as i64)
    }
}

/// (Survival row, HP lost, state after) of an unhurt PC at one penalty
/// ([`SurvivalDraws::unhurt_at`]).
#[derive(Clone, Copy)]
pub struct UnhurtLaw<'a>(&'a AliasTable);

impl Distribution<(usize, i64, State)> for UnhurtLaw<'_> {
    #[inline(always)]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> (usize, i64, State) {
        let label = self.0.sample(rng);
        let state = State::ALL[label >> 24];
        (label & 0xFF, (label >> 8 & 0xFFFF) as i64, state)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
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
        }
    }

    fn built_in() -> GurpsTables {
        GurpsTables::load(&Default::default(), std::path::Path::new(".")).unwrap()
    }

    #[test]
    fn injuries_follow_the_thresholds() {
        let mut source = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut rng = Digits::new(&mut source);
        // No damage: nothing changes.
        assert_eq!(
            injure_fast(&mut rng, 10, 10, 0, 0, State::Unhurt),
            (0, State::Unhurt)
        );
        // Damage above 0 HP: wounded, no rolls.
        assert_eq!(
            injure_fast(&mut rng, 10, 10, 0, 5, State::Unhurt),
            (5, State::Wounded)
        );
        // To −5×HT: dead outright.
        assert_eq!(
            injure_fast(&mut rng, 10, 10, 0, 60, State::Unhurt),
            (60, State::Dead)
        );
        // At −HT exactly: one death check.
        let mut dead = 0;
        for _ in 0..10_000 {
            let (_, s) = injure_fast(&mut rng, 10, 3, 0, 13, State::Unhurt);
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
        let mut source = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut dice = Digits::new(&mut source);
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
            for _ in 0..n {
                let (_, s) = injure_fast(&mut dice, hp, ht, lost, damage, state);
                *fast.entry(s).or_default() += 1;
                let (l, s) = injure(&mut rng, &hero, lost, damage, state);
                assert_eq!(l, lost + damage.max(0));
                *plain.entry(s).or_default() += 1;
            }
            assert_counts_follow(&exact, &fast, n, &format!("fast {case:?}"));
            assert_counts_follow(&exact, &plain, n, &format!("plain {case:?}"));
        }
    }

    /// The agreement of the fast draws with the rule: an unhurt PC's joint
    /// table (row, HP lost, state after) against Survival rolled die by die
    /// ([`roll`]), and the table of a PC already hurt against the same with
    /// its injury left out.
    #[test]
    fn the_draws_are_survival_rolled_die_by_die() {
        let t = built_in();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        for (skill, luck, hp, ht, dr) in [(15, false, 10, 10, 2), (9, true, 8, 9, 0)] {
            let mut hero = soldier(skill, luck, (hp, ht, dr));
            hero.enemy_hit = [2, 1, 3, 2];
            let draws = SurvivalDraws::new(&t, &hero);
            for penalty in [0, 3] {
                let table = &draws.unhurt[draws.by_penalty[penalty] as usize];
                let exact: BTreeMap<u32, f64> = table.probabilities();
                let n = 200_000;
                let mut seen = BTreeMap::new();
                for _ in 0..n {
                    let (row, lost, state) =
                        roll(&mut rng, &t, &hero, penalty as i64, (0, State::Unhurt));
                    *seen
                        .entry(survival_label(row, lost as usize, state))
                        .or_default() += 1;
                }
                let what = format!("skill {skill}, penalty {penalty}");
                assert_counts_follow(&exact, &seen, n, &what);
            }
        }
    }

    #[test]
    fn survival_draws_keep_the_exact_row_odds() {
        let t = built_in();
        for (skill, luck) in [(15, false), (12, true), (8, false)] {
            let hero = soldier(skill, luck, (10, 10, 2));
            let draws = SurvivalDraws::new(&t, &hero);
            let exact =
                crate::systems::gurps::success::category_distribution(&t.survival, skill, luck);
            let mut rows = vec![0.0; exact.len()];
            for (label, p) in draws.tables[draws.by_penalty[0] as usize].probabilities() {
                rows[label as usize & 0xFF] += p;
            }
            for (read, p) in rows.iter().zip(&exact) {
                assert!((read - p).abs() < 1e-14, "skill {skill}");
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

//! A Hero's round on the battle chart: his personal result picks a row, his
//! engagement level a column; the cell gives Reputation, maybe a Heroic
//! Opportunity and damage, which after his soak adds Flesh Wounds, and a
//! failed Wound Check (Brawn k Brawn below the Flesh Wounds) turns them into
//! Dramatic Wounds.
//!
//! Fast: [`RoundDraws`], the round from its exact joint law. The round rolled
//! die by die is this file's test and `reference.rs`'s `hero_round`.

use rand::distr::Distribution;
use std::hint::select_unpredictable;

use rand::Rng;

use super::banner::minus_banner;
use super::roll_keep::{Pool, Sampler, without_far_tail};
use super::rules::HeroRules;
use super::scenario::PersonalRoll;
use super::tables::SeaTables;
use crate::dice::AliasTable;

/// A failed Wound Check deals one more Dramatic Wound per this many points
/// missed [stand-in].
pub const MISSED_PER_EXTRA_WOUND: i64 = 20;

/// Personal-result penalties a round can carry: 0, 2, ..., 8 (helping the
/// commander 2, charging 2, carrying a banner 4).
pub const PENALTY_STEPS: usize = 5;

/// A Hero's round on the battle chart: the cell his personal result lands
/// on, the damage that gets through his soak and the Wound Check, from
/// their exact joint law. Replaces rolling the personal pool, the damage
/// pool and Brawn k Brawn.
#[derive(Debug, Clone)]
pub struct RoundDraws {
    /// From no Flesh Wounds (most rounds): the whole round with one random
    /// number, labelled by [`Round::label`].
    fresh: AliasTable,
    /// From some Flesh Wounds: the round up to the damage, labelled by
    /// [`Round::label`] with the damage through his soak as `flesh` and no
    /// wounds; the Wound Check is drawn after ([`RoundDraws::draw`]).
    carried: AliasTable,
    /// His Brawn k Brawn.
    brawn_check: Sampler,
}

/// What a Hero's round on the chart brought.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Round {
    /// Reputation of the chart cell.
    pub reputation: i64,
    /// Whether the cell offers a Heroic Opportunity.
    pub opportunity: bool,
    /// Flesh Wounds after the round.
    pub flesh: i64,
    /// Dramatic Wounds the round dealt.
    pub wounds: i64,
}

impl Round {
    /// The 32-bit label of a round: Flesh Wounds in bits 0..14, Dramatic
    /// Wounds in bits 14..24, the cell's Reputation in bits 24..31, its
    /// Heroic Opportunity in bit 31. Damage stays below 2^14 − 1, so
    /// Dramatic Wounds below 2^10, and Reputation below 2^7 (pools are at
    /// most 20k20, cells' Reputation 0 to 10, both checked when the tables
    /// load); no label is `u32::MAX`.
    fn label(self) -> u32 {
        assert!(
            (0..0x3FFF).contains(&self.flesh)
                && (0..1 << 10).contains(&self.wounds)
                && (0..1 << 7).contains(&self.reputation)
        );
        self.flesh as u32
            | (self.wounds as u32) << 14
            | (self.reputation as u32) << 24
            | u32::from(self.opportunity) << 31
    }

    #[inline(always)]
    fn from_label(label: usize) -> Round {
        Round {
            flesh: (label & 0x3FFF) as i64,
            wounds: (label >> 14 & 0x3FF) as i64,
            reputation: (label >> 24 & 0x7F) as i64,
            opportunity: label >> 31 & 1 == 1,
        }
    }
}

/// The Wound Check after `damage` through his soak brought his Flesh
/// Wounds to `total`: on damage, Brawn k Brawn (`check`) below the total
/// deals 1 Dramatic Wound and 1 more per full 20 missed, and resets the
/// Flesh Wounds. (Flesh Wounds after, Dramatic Wounds dealt), by selects:
/// whether the check fails is a coin toss a branch would miss.
#[inline(always)]
fn wound_check(total: i64, damage: i64, check: i64) -> (i64, i64) {
    let wounded = damage > 0 && check < total;
    (
        select_unpredictable(wounded, 0, total),
        select_unpredictable(wounded, 1 + (total - check) / MISSED_PER_EXTRA_WOUND, 0),
    )
}

/// What a Hero's round draws are built from of him: nothing else of his
/// rules is read, so variants that differ elsewhere share the draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RoundHero {
    /// Wits + Tactics.
    pub personal: i64,
    /// Wits.
    pub wits: i64,
    /// Brawn.
    pub brawn: i64,
    /// Brawn + defence knack.
    pub soak: i64,
    /// Kept dice Dracheneisen removes from damage.
    pub armour_kept: i64,
}

impl RoundHero {
    /// What his rounds read of `hero`.
    pub fn of(hero: &HeroRules) -> RoundHero {
        RoundHero {
            personal: hero.personal,
            wits: hero.wits,
            brawn: hero.brawn,
            soak: hero.soak,
            armour_kept: hero.armour_kept,
        }
    }
}

impl RoundDraws {
    /// The joint law for a Hero at `level` with `penalty` off his personal
    /// result, carrying a banner or not. Each damage law drops its far tail
    /// ([`without_far_tail`]), as pool samplers do.
    pub fn new(
        tables: &SeaTables,
        hero: RoundHero,
        mode: PersonalRoll,
        (level, penalty, banner): (usize, i64, bool),
    ) -> RoundDraws {
        // P(personal result = first + k).
        let (first, result) = match mode {
            PersonalRoll::OneDie if banner => (hero.personal, vec![1.0]),
            PersonalRoll::OneDie => (hero.personal, Pool::new(1, 1).law()),
            PersonalRoll::Keep => (
                0,
                minus_banner(Pool::new(hero.personal, hero.wits), banner).law(),
            ),
        };
        let mut row_p = vec![0.0; tables.chart.len()];
        for (k, p) in result.iter().enumerate() {
            row_p[tables.chart_row(first + k as i64 - penalty)] += p;
        }
        // The round up to the damage through his soak.
        let mut carried = Vec::new();
        for (row, &p) in row_p.iter().enumerate().filter(|(_, p)| **p > 0.0) {
            let cell = &tables.chart[row].1[level];
            let round = |damage: usize| Round {
                reputation: cell.reputation,
                opportunity: cell.opportunity,
                flesh: damage as i64,
                wounds: 0,
            };
            let Some(pool) = cell.damage else {
                carried.push((round(0), p));
                continue;
            };
            // Damage is rolled against him: his banner's penalty is not on it.
            let pool = Pool::new(pool.rolled as i64, pool.kept as i64 - hero.armour_kept);
            let law = pool.law();
            let mut through = vec![0.0; 1];
            for (d, q) in without_far_tail(&law).iter().enumerate() {
                let past = (d as i64 - hero.soak).max(0) as usize;
                if through.len() <= past {
                    through.resize(past + 1, 0.0);
                }
                through[past] += q;
            }
            for (d, &q) in through.iter().enumerate().filter(|(_, q)| **q > 0.0) {
                carried.push((round(d), p * q));
            }
        }
        // From no Flesh Wounds: each damage with each Wound Check total
        // below it (runs that end the round alike summed as they come),
        // then all the totals at or above it at once (they pass alike).
        let brawn = minus_banner(Pool::new(hero.brawn, hero.brawn), banner);
        let checks = brawn.sampled_law();
        let mut at_or_above = vec![0.0; checks.len() + 1];
        for c in (0..checks.len()).rev() {
            at_or_above[c] = at_or_above[c + 1] + checks[c];
        }
        let mut fresh = Vec::new();
        for &(before, p) in &carried {
            let damage = before.flesh;
            let passed = damage.min(checks.len() as i64);
            let mut run: Option<(Round, f64)> = None;
            for (check, &q) in checks.iter().enumerate().take(passed as usize) {
                let (flesh, wounds) = wound_check(damage, damage, check as i64);
                let round = Round {
                    flesh,
                    wounds,
                    ..before
                };
                match &mut run {
                    Some((same, mass)) if *same == round => *mass += q,
                    _ => {
                        fresh.extend(run.map(|(r, mass)| (r, p * mass)));
                        run = Some((round, q));
                    }
                }
            }
            fresh.extend(run.map(|(r, mass)| (r, p * mass)));
            let (flesh, wounds) = wound_check(damage, damage, passed);
            let mass = at_or_above[passed as usize];
            if mass > 0.0 {
                fresh.push((
                    Round {
                        flesh,
                        wounds,
                        ..before
                    },
                    p * mass,
                ));
            }
        }
        RoundDraws {
            fresh: table_of(&fresh),
            carried: table_of(&carried),
            brawn_check: brawn.sampler(),
        }
    }

    /// The law of a round of a Hero with `flesh` Flesh Wounds.
    #[inline(always)]
    pub fn with_flesh(&self, flesh: i64) -> RoundLaw<'_> {
        RoundLaw { draws: self, flesh }
    }
}

/// The law of one Hero's round, given his Flesh Wounds.
#[derive(Clone, Copy)]
pub struct RoundLaw<'a> {
    draws: &'a RoundDraws,
    flesh: i64,
}

impl Distribution<Round> for RoundLaw<'_> {
    /// Draws the round: one random number from no Flesh Wounds, two from some.
    #[inline(always)]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Round {
        let draws = self.draws;
        if self.flesh == 0 {
            return Round::from_label(draws.fresh.sample(rng));
        }
        let before = Round::from_label(draws.carried.sample(rng));
        let check = draws.brawn_check.sample(rng);
        let (flesh, wounds) = wound_check(self.flesh + before.flesh, before.flesh, check);
        Round {
            flesh,
            wounds,
            ..before
        }
    }
}

/// An alias table of rounds, equal rounds' weights summed.
fn table_of(rounds: &[(Round, f64)]) -> AliasTable {
    let mut labelled: Vec<(u32, f64)> = rounds.iter().map(|(r, p)| (r.label(), *p)).collect();
    labelled.sort_unstable_by_key(|(label, _)| *label);
    let (mut labels, mut weights) = (Vec::<u32>::new(), Vec::<f64>::new());
    for (label, p) in labelled {
        if labels.last() == Some(&label) {
            *weights.last_mut().expect("a weight per label") += p;
        } else {
            labels.push(label);
            weights.push(p);
        }
    }
    AliasTable::labelled(&weights, &labels)
}

/// Round-draw slots per Hero: banner × engagement level × penalty.
pub const ROUND_SLOTS: usize = 2 * 4 * PENALTY_STEPS;

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::dice::Digits;
    use crate::systems::contract::BattleSystem;
    use crate::systems::seventh_sea::rules::BattleRules;

    /// The bundled even-field battle.
    fn even_field() -> crate::systems::seventh_sea::SeventhSea {
        let text = include_str!("../../../scenarios/seventh_sea/even_field_battle.toml");
        let (_, sea) = crate::systems::seventh_sea::SeventhSea::from_scenario(
            text,
            "even_field",
            std::path::Path::new("."),
        )
        .expect("bundled scenario");
        sea
    }

    /// The banner's penalty falls on the bearer's own rolls only: from no
    /// Flesh Wounds, at every level, penalty and personal roll mode, his
    /// round deals him Dramatic Wounds at least as often, and as many on
    /// average, as the same round without the banner. (Once it shrank the
    /// damage rolled against him, and bearers were hurt less.)
    #[test]
    fn a_banner_bearer_is_never_better_off() {
        let rules = even_field().rules;
        for hero in &rules.heroes {
            for mode in [PersonalRoll::OneDie, PersonalRoll::Keep] {
                for level in 0..4 {
                    for penalty in [0, 4] {
                        let hurt = |banner: bool| {
                            let draws = RoundDraws::new(
                                &rules.tables,
                                RoundHero::of(hero),
                                mode,
                                (level, penalty, banner),
                            );
                            let (mut any, mut mean) = (0.0, 0.0);
                            for (label, p) in draws.fresh.probabilities() {
                                let wounds = Round::from_label(label as usize).wounds;
                                any += p * f64::from(u8::from(wounds > 0));
                                mean += p * wounds as f64;
                            }
                            (any, mean)
                        };
                        let (with, without) = (hurt(true), hurt(false));
                        let case = format!("{mode:?} level {level} penalty {penalty}");
                        assert!(with.0 >= without.0 - 1e-9, "{case}: {with:?} < {without:?}");
                        assert!(with.1 >= without.1 - 1e-9, "{case}: {with:?} < {without:?}");
                    }
                }
            }
        }
    }

    /// The Wound Check as docs/rules.md §3 words it: Brawn k Brawn (`check`)
    /// against the Flesh Wounds' `total`; on a failure 1 Dramatic Wound and
    /// 1 more per full 20 missed, and the Flesh Wounds reset. (Flesh Wounds
    /// after, Dramatic Wounds dealt.)
    fn wound_check_as_worded(total: i64, check: i64) -> (i64, i64) {
        if check < total {
            (0, 1 + (total - check) / MISSED_PER_EXTRA_WOUND)
        } else {
            (total, 0)
        }
    }

    /// A Hero's round from `flesh` Flesh Wounds rolled die by die: the
    /// reference for [`RoundDraws`].
    fn round_rolled<R: Rng>(
        dice: &mut Digits<R>,
        (rules, hero, mode): (&BattleRules, &HeroRules, PersonalRoll),
        (level, penalty, banner): (usize, i64, bool),
        flesh: i64,
    ) -> Round {
        let personal = match mode {
            PersonalRoll::OneDie if banner => hero.personal,
            PersonalRoll::OneDie => hero.personal + super::super::roll_keep::exploding_d10(dice),
            PersonalRoll::Keep => {
                minus_banner(Pool::new(hero.personal, hero.wits), banner).roll(dice)
            }
        };
        let t = &rules.tables;
        let cell = &t.chart[t.chart_row(personal - penalty)].1[level];
        let damage = cell.damage.map_or(0, |p| {
            let pool = Pool::new(p.rolled as i64, p.kept as i64 - hero.armour_kept);
            (pool.roll(dice) - hero.soak).max(0)
        });
        let round = |flesh, wounds| Round {
            reputation: cell.reputation,
            opportunity: cell.opportunity,
            flesh,
            wounds,
        };
        if damage == 0 {
            return round(flesh, 0);
        }
        let check = minus_banner(Pool::new(hero.brawn, hero.brawn), banner).roll(dice);
        let (flesh, wounds) = wound_check_as_worded(flesh + damage, check);
        round(flesh, wounds)
    }

    #[test]
    fn round_draws_match_rounds_rolled_die_by_die() {
        let rules = even_field().rules;
        let mut source = Xoshiro256PlusPlus::seed_from_u64(17);
        let mut dice = Digits::new(&mut source);
        let cases = [
            (0, PersonalRoll::Keep, (2, 0, false), 0),
            (0, PersonalRoll::Keep, (3, 0, false), 9),
            (1, PersonalRoll::Keep, (3, 4, true), 0),
            (1, PersonalRoll::Keep, (1, 2, false), 25),
            (2, PersonalRoll::OneDie, (1, 2, false), 0),
            (2, PersonalRoll::OneDie, (3, 8, true), 3),
            (1, PersonalRoll::OneDie, (0, 6, false), 0),
        ];
        for (hero, mode, key, flesh) in cases {
            let h = &rules.heroes[hero];
            let draws = RoundDraws::new(&rules.tables, RoundHero::of(h), mode, key);
            // The exact law: the one-draw table read back from no Flesh
            // Wounds; else the damage table read back with each Brawn k
            // Brawn total, the check applied as the reference applies it.
            let mut exact = std::collections::BTreeMap::new();
            let checks = minus_banner(Pool::new(h.brawn, h.brawn), key.2).sampled_law();
            let table = if flesh == 0 {
                &draws.fresh
            } else {
                &draws.carried
            };
            for (label, p) in table.probabilities() {
                let before = Round::from_label(label as usize);
                if flesh == 0 {
                    *exact.entry(before).or_default() += p;
                    continue;
                }
                if before.flesh == 0 {
                    // No damage, no Wound Check.
                    *exact.entry(Round { flesh, ..before }).or_default() += p;
                    continue;
                }
                let total = flesh + before.flesh;
                for (check, q) in checks.iter().enumerate() {
                    let (flesh, wounds) = wound_check_as_worded(total, check as i64);
                    *exact
                        .entry(Round {
                            flesh,
                            wounds,
                            ..before
                        })
                        .or_default() += p * q;
                }
            }
            exact.retain(|_, p| *p > 0.0);
            let n = 200_000;
            let mut rolled = std::collections::BTreeMap::<Round, u64>::new();
            let mut drawn = std::collections::BTreeMap::<Round, u64>::new();
            for _ in 0..n {
                let round = round_rolled(&mut dice, (&rules, h, mode), key, flesh);
                *rolled.entry(round).or_default() += 1;
                *drawn
                    .entry(draws.with_flesh(flesh).sample(dice.rng()))
                    .or_default() += 1;
            }
            let what = format!("hero {hero} {mode:?} {key:?} from {flesh} Flesh Wounds");
            crate::stats::assert_counts_follow(&exact, &rolled, n, &format!("{what}, rolled"));
            crate::stats::assert_counts_follow(&exact, &drawn, n, &format!("{what}, drawn"));
        }
    }
}

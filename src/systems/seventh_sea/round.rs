//! A Hero's round on the battle chart: his personal result picks a row, his
//! engagement level a column; the cell gives Reputation, maybe a Heroic
//! Opportunity and damage, which after his soak adds Flesh Wounds, and a
//! failed Wound Check (Brawn k Brawn below the Flesh Wounds) turns them into
//! Dramatic Wounds.
//!
//! Fast: [`RoundDraws`]: the personal result, the damage and the Wound Check
//! each drawn by the inverse of its law from a number of its own, so a
//! change to one cell moves only the rounds that land on it, and a change
//! to a cell's Reputation moves no roll at all. The round rolled die by die
//! is this file's test and `reference.rs`'s `hero_round`.

use std::collections::HashMap;
use std::hint::select_unpredictable;
use std::sync::{Arc, Mutex, OnceLock};

use super::address;
use super::banner::own_pool;
use super::roll_keep::{Pool, without_far_tail};
use super::rules::HeroRules;
use super::scenario::PersonalRoll;
use super::tables::SeaTables;
use crate::engine::inverse::InverseLaw;
use crate::engine::stream::Decisions;

/// A failed Wound Check deals one more Dramatic Wound per this many points
/// missed [stand-in].
pub const MISSED_PER_EXTRA_WOUND: i64 = 20;

/// Personal-result penalties a round can carry: 0, 2, ..., 8 (helping the
/// commander 2, charging 2, carrying a banner 4).
pub const PENALTY_STEPS: usize = 5;

/// A Hero's round on the chart, fast: the chart row his personal result
/// lands on by the inverse of its law (rows rise with the result, so this
/// is the row of his result drawn by the inverse of its own law), the
/// cell's damage through his soak by the inverse of its law, and the Wound
/// Check by the inverse of Brawn k Brawn's: each from a number of its own.
#[derive(Debug, Clone)]
pub struct RoundDraws {
    /// The chart row of his personal result.
    row: InverseLaw,
    /// Per chart row: its cell at his level.
    cells: Box<[CellDraws]>,
    /// His Brawn k Brawn total.
    brawn: Arc<InverseLaw>,
    /// The lowest total his Brawn k Brawn can roll: Flesh Wounds up to it
    /// pass the Wound Check without a roll.
    lowest_check: i64,
}

/// One cell of the chart at a Hero's level, as his rounds draw it.
#[derive(Debug, Clone)]
struct CellDraws {
    reputation: i64,
    opportunity: bool,
    /// The damage through his soak, if the cell rolls any.
    damage: Option<Arc<InverseLaw>>,
}

/// The laws [`through_soak`] has built, by pool and soak.
type SoakLaws = Mutex<HashMap<(Pool, i64), Arc<InverseLaw>>>;

/// A pool's total through a soak, by the inverse of its law (the far tail
/// dropped, as pool samplers do): built once per process for each pool and
/// soak, so every round draw of every Hero, slot and variant that rolls it
/// reads one copy, which stays in the cache.
fn through_soak(pool: Pool, soak: i64) -> Arc<InverseLaw> {
    static BUILT: OnceLock<SoakLaws> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built.lock().expect("the damage laws");
    let law = built.entry((pool, soak)).or_insert_with(|| {
        let mut through = vec![0.0; 1];
        for (d, q) in without_far_tail(&pool.law()).iter().enumerate() {
            let past = (d as i64 - soak).max(0) as usize;
            if through.len() <= past {
                through.resize(past + 1, 0.0);
            }
            through[past] += q;
        }
        Arc::new(InverseLaw::new(&through))
    });
    Arc::clone(law)
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
    /// The draws for a Hero at `level` with `penalty` off his personal
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
            PersonalRoll::OneDie => (hero.personal, Pool::new(1, 1).law()),
            PersonalRoll::Keep => (0, own_pool(hero.personal, hero.wits, banner).law()),
        };
        let mut row_p = vec![0.0; tables.chart.len()];
        for (k, p) in result.iter().enumerate() {
            row_p[tables.chart_row(first + k as i64 - penalty)] += p;
        }
        let cells = tables
            .chart
            .iter()
            .map(|(_, row)| {
                let cell = &row[level];
                // Damage is rolled against him: his banner's penalty is not on it.
                let damage = cell.damage.map(|pool| {
                    let pool = Pool::new(pool.rolled as i64, pool.kept as i64 - hero.armour_kept);
                    through_soak(pool, hero.soak)
                });
                CellDraws {
                    reputation: cell.reputation,
                    opportunity: cell.opportunity,
                    damage,
                }
            })
            .collect();
        let brawn = own_pool(hero.brawn, hero.brawn, banner);
        RoundDraws {
            row: InverseLaw::new(&row_p),
            cells,
            lowest_check: brawn.kept as i64 + brawn.bonus,
            brawn: through_soak(brawn, 0),
        }
    }

    /// The round of a Hero with `flesh` Flesh Wounds, from his `numbers`
    /// of the round: his personal result's, the damage's (read only when
    /// the cell rolls damage) and the Wound Check's (only when damage gets
    /// through and the check can fail).
    #[inline(always)]
    pub fn draw(&self, flesh: i64, numbers: Decisions) -> Round {
        let row = self.row.draw(numbers.half(address::PERSONAL));
        let cell = &self.cells[row];
        let damage = match &cell.damage {
            Some(law) => law.draw(numbers.half(address::DAMAGE)) as i64,
            None => 0,
        };
        let total = flesh + damage;
        let (flesh, wounds) = if damage > 0 && total > self.lowest_check {
            let check = self.brawn.draw(numbers.half(address::WOUND_CHECK)) as i64;
            wound_check(total, damage, check)
        } else {
            (total, 0)
        };
        Round {
            reputation: cell.reputation,
            opportunity: cell.opportunity,
            flesh,
            wounds,
        }
    }
}

/// Round-draw slots per Hero: banner × engagement level × penalty.
pub const ROUND_SLOTS: usize = 2 * 4 * PENALTY_STEPS;

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use std::collections::BTreeMap;

    use rand::Rng;

    use super::*;
    use crate::engine::dice::Digits;
    use crate::engine::stream::BattleStream;
    use crate::systems::contract::BattleSystem;
    use crate::systems::seventh_sea::rules::BattleRules;

    /// The bundled even-field battle.
    fn even_field() -> crate::systems::seventh_sea::SeventhSea {
        let text = include_str!("../../../scenarios/seventh_sea/even_field_battle.toml");
        let (_, sea) = crate::systems::seventh_sea::SeventhSea::from_scenario(
            text,
            "even_field",
            &crate::tables::TableFiles::in_folder(std::path::Path::new(".")),
        )
        .expect("bundled scenario");
        sea
    }

    /// The law a Hero's round draws from `flesh` Flesh Wounds, read back
    /// from its draws' laws.
    fn read_back(draws: &RoundDraws, flesh: i64) -> BTreeMap<Round, f64> {
        let rows = draws.row.probabilities();
        let checks = draws.brawn.probabilities();
        let mut law = BTreeMap::new();
        for (cell, &p) in draws.cells.iter().zip(&rows).filter(|(_, p)| **p > 0.0) {
            let damage = cell
                .damage
                .as_ref()
                .map_or(vec![1.0], |d| d.probabilities());
            for (d, q) in damage.iter().enumerate() {
                for (c, r) in checks.iter().enumerate() {
                    let (flesh, wounds) = wound_check(flesh + d as i64, d as i64, c as i64);
                    let round = Round {
                        reputation: cell.reputation,
                        opportunity: cell.opportunity,
                        flesh,
                        wounds,
                    };
                    *law.entry(round).or_default() += p * q * r;
                }
            }
        }
        law.retain(|_, p| *p > 0.0);
        law
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
                            for (round, p) in read_back(&draws, 0) {
                                any += p * f64::from(u8::from(round.wounds > 0));
                                mean += p * round.wounds as f64;
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
            PersonalRoll::OneDie => hero.personal + super::super::roll_keep::exploding_d10(dice),
            PersonalRoll::Keep => own_pool(hero.personal, hero.wits, banner).roll(dice),
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
        let check = own_pool(hero.brawn, hero.brawn, banner).roll(dice);
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
            // The exact law, from the pools' laws as the rules word them.
            let (first, personal) = match mode {
                PersonalRoll::OneDie => (h.personal, Pool::new(1, 1).law()),
                PersonalRoll::Keep => (0, own_pool(h.personal, h.wits, key.2).law()),
            };
            let checks = own_pool(h.brawn, h.brawn, key.2).law();
            let t = &rules.tables;
            let mut exact = BTreeMap::new();
            for (k, p) in personal.iter().enumerate() {
                let cell = &t.chart[t.chart_row(first + k as i64 - key.1)].1[key.0];
                let damage = cell.damage.map_or(vec![1.0], |pool| {
                    let pool = Pool::new(pool.rolled as i64, pool.kept as i64 - h.armour_kept);
                    let mut through = vec![0.0; 1];
                    for (d, q) in pool.law().iter().enumerate() {
                        let past = (d as i64 - h.soak).max(0) as usize;
                        through.resize(through.len().max(past + 1), 0.0);
                        through[past] += q;
                    }
                    through
                });
                let round = |flesh, wounds| Round {
                    reputation: cell.reputation,
                    opportunity: cell.opportunity,
                    flesh,
                    wounds,
                };
                for (d, q) in damage.iter().enumerate() {
                    if d == 0 {
                        *exact.entry(round(flesh, 0)).or_default() += p * q;
                        continue;
                    }
                    for (check, r) in checks.iter().enumerate() {
                        let (f, w) = wound_check_as_worded(flesh + d as i64, check as i64);
                        *exact.entry(round(f, w)).or_default() += p * q * r;
                    }
                }
            }
            exact.retain(|_, p| *p > 1e-15);
            // The draws read back agree with it.
            for (round, p) in read_back(&draws, flesh) {
                let q = exact.get(&round).copied().unwrap_or(0.0);
                assert!((p - q).abs() < 1e-9, "{round:?}: drawn {p}, exact {q}");
            }
            let n = 200_000;
            let mut rolled = BTreeMap::<Round, u64>::new();
            let mut drawn = BTreeMap::<Round, u64>::new();
            for battle in 0..n {
                let round = round_rolled(&mut dice, (&rules, h, mode), key, flesh);
                *rolled.entry(round).or_default() += 1;
                let numbers = BattleStream::battle(19, battle).decisions();
                *drawn.entry(draws.draw(flesh, numbers)).or_default() += 1;
            }
            let what = format!("hero {hero} {mode:?} {key:?} from {flesh} Flesh Wounds");
            crate::stats::assert_counts_follow(&exact, &rolled, n, &format!("{what}, rolled"));
            crate::stats::assert_counts_follow(&exact, &drawn, n, &format!("{what}, drawn"));
        }
    }
}

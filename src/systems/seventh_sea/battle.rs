//! One 7th Sea mass battle, round by round (docs/rules.md §3), fast: the
//! rounds drawn from their laws ([`super::round`], [`super::duel`],
//! [`super::contest`]), built on first use, each draw from a number
//! addressed by the decision it makes ([`super::address`]).
//! [`super::reference`] plays the same rules die by die.

use rand::distr::Distribution;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::address;
use super::banner::own_pool;
use super::contest::{ContestLaw, MAX_REROLLS, RoundEnd, decide, settle};
use super::duel::{DuelEnds, exchange_odds};
use super::opportunities::{Duel, Held, Hero, take};
use super::outcome::{BattleOutcome, HeroOutcome};
use super::roll_keep::Pool;
use super::round::{PENALTY_STEPS, ROUND_SLOTS, RoundDraws, RoundHero};
use super::rules::{BattleRules, CAPTURE_REAR_BONUS, HeroRules, REAR, SideRules};
use super::scenario::{MAX_HEROES, Spending};
use super::tables::Opportunity;
use crate::engine::stream::{BattleStream, Decisions};

/// The battle's fast laws, each built on first use.
#[derive(Debug, Clone)]
pub struct Laws {
    /// Per Hero, by banner and Dramatic Wounds at the start: how a duel
    /// ends.
    duel_ends: Vec<Box<[OnceLock<DuelEnds>]>>,
    /// By Hero, banner, engagement level and penalty ([`ROUND_SLOTS`] per
    /// Hero, in one array: one load less per round): his round on the
    /// chart.
    round_draws: Box<[OnceLock<Arc<RoundDraws>>]>,
    /// Contest laws by pools and modifiers.
    contest_laws: ContestLaws,
    /// Laws built once for several variants of a lockstep run, and this
    /// variant's tables' number among them.
    shared: Option<(Arc<SharedLaws>, usize)>,
}

/// What a contest law is built from: each side's pool, its commander's
/// Wits (which also set the other side's TN) and its modifier.
type ContestKey = ([i64; 2], [i64; 2], [i64; 2]);

/// What a Hero's round draws are built from: his variant's tables (by
/// number), what the draws read of the Hero, and the slot's level, penalty
/// and banner.
type RoundKey = (usize, RoundHero, (usize, i64, bool));

/// Laws built once for every variant of one lockstep run that needs them
/// (the moves of a sensitivity mostly leave the commanders and Heroes as
/// they are), keyed by everything a law is built from. It lives as long
/// as the run's variants, so nothing outlasts one question.
#[derive(Debug, Default)]
pub struct SharedLaws {
    /// The tables of the variants, each written out once.
    tables: Mutex<Vec<String>>,
    contests: Mutex<HashMap<ContestKey, Arc<ContestLaw>>>,
    rounds: Mutex<HashMap<RoundKey, Arc<RoundDraws>>>,
}

impl SharedLaws {
    /// The number of `rules`' tables and personal roll among the variants'.
    fn tables_of(&self, rules: &BattleRules) -> usize {
        let written = format!("{:?}", (&rules.tables, rules.personal_roll));
        let mut tables = self.tables.lock().expect("shared laws");
        match tables.iter().position(|t| *t == written) {
            Some(i) => i,
            None => {
                tables.push(written);
                tables.len() - 1
            }
        }
    }
}

/// The law under `key` in `map`, built by `build` if no variant has built
/// it yet (outside the lock: two workers may both build it, and keep one).
fn shared_or_built<K: std::hash::Hash + Eq, T: Clone>(
    map: &Mutex<HashMap<K, T>>,
    key: K,
    build: impl FnOnce() -> T,
) -> T {
    if let Some(law) = map.lock().expect("shared laws").get(&key) {
        return law.clone();
    }
    let law = build();
    map.lock()
        .expect("shared laws")
        .entry(key)
        .or_insert(law)
        .clone()
}

impl Laws {
    /// Empty slots for every law `rules` can need.
    pub fn new(rules: &BattleRules) -> Laws {
        let heroes = &rules.heroes;
        Laws {
            duel_ends: heroes
                .iter()
                .map(|h| (0..4 * h.resolve).map(|_| OnceLock::new()).collect())
                .collect(),
            round_draws: (0..heroes.len() * ROUND_SLOTS)
                .map(|_| OnceLock::new())
                .collect(),
            contest_laws: ContestLaws::new(&rules.sides, heroes),
            shared: None,
        }
    }

    /// These laws (those built so far kept) for `rules`, the others built
    /// through `shared`: where another variant already built a law from the
    /// same inputs, this one takes a copy of it.
    pub fn sharing(&self, rules: &BattleRules, shared: Arc<SharedLaws>) -> Laws {
        let tables = shared.tables_of(rules);
        Laws {
            shared: Some((shared, tables)),
            ..self.clone()
        }
    }

    /// A contest law, from the shared laws when there are some (one copy
    /// for every variant that builds it from the same inputs).
    fn contest(&self, key: ContestKey, build: impl FnOnce() -> ContestLaw) -> Arc<ContestLaw> {
        let build = || Arc::new(build());
        match &self.shared {
            Some((shared, _)) => shared_or_built(&shared.contests, key, build),
            None => build(),
        }
    }

    /// A Hero's round draws, from the shared laws when there are some:
    /// variants then read one copy, which keeps them in the cache.
    fn round(
        &self,
        hero: RoundHero,
        slot: (usize, i64, bool),
        build: impl FnOnce() -> RoundDraws,
    ) -> Arc<RoundDraws> {
        let build = || Arc::new(build());
        match &self.shared {
            Some((shared, tables)) => shared_or_built(&shared.rounds, (*tables, hero, slot), build),
            None => build(),
        }
    }

    /// Fights the battle of `rules` on `stream`'s numbers, read by address.
    #[inline(always)]
    pub fn fight(&self, rules: &BattleRules, stream: &BattleStream) -> BattleOutcome {
        Fast { rules, laws: self }.fight(stream.decisions())
    }
}

/// A battle's rules with their laws, as the battle loop reads them: passed
/// by value, two pointers in registers.
#[derive(Clone, Copy)]
struct Fast<'a> {
    rules: &'a BattleRules,
    laws: &'a Laws,
}

/// Contest modifiers from −this to +this have their laws cached; rounds
/// beyond are rolled out.
const MODIFIER_REACH: i64 = 12;

/// One slot per (pool of each side, modifier of each side) a round can
/// have: pools from the commander's dice up by every officer's Leadership,
/// modifiers within [`MODIFIER_REACH`].
#[derive(Debug, Clone)]
pub struct ContestLaws {
    first_pool: [i64; 2],
    pool_span: [i64; 2],
    slots: Box<[OnceLock<Arc<ContestLaw>>]>,
}

impl ContestLaws {
    /// Empty slots for these sides and Heroes.
    pub fn new(sides: &[SideRules; 2], heroes: &[HeroRules]) -> ContestLaws {
        let pool_span = [0, 1].map(|s| {
            1 + heroes
                .iter()
                .filter(|h| h.officer && h.side == s)
                .map(|h| h.leadership)
                .sum::<i64>()
        });
        let reach = (2 * MODIFIER_REACH + 1) as usize;
        let count = (pool_span[0] * pool_span[1]) as usize * reach * reach;
        ContestLaws {
            first_pool: [sides[0].strategy_dice, sides[1].strategy_dice],
            pool_span,
            slots: (0..count).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The slot of a round, if it is cached.
    #[inline]
    fn slot(&self, pools: [i64; 2], modifier: [i64; 2]) -> Option<&OnceLock<Arc<ContestLaw>>> {
        let reach = (2 * MODIFIER_REACH + 1) as u64;
        // Offsets from the first slot; a negative one wraps to a huge
        // unsigned value, so one comparison each checks both ends.
        let p = [0, 1].map(|s| (pools[s] - self.first_pool[s]) as u64);
        let m = [0, 1].map(|s| (modifier[s] + MODIFIER_REACH) as u64);
        let span = self.pool_span.map(|s| s as u64);
        let inside = (p[0] < span[0]) & (p[1] < span[1]) & (m[0] < reach) & (m[1] < reach);
        if !inside {
            return None;
        }
        let index = ((p[0] * span[1] + p[1]) * reach + m[0]) * reach + m[1];
        self.slots.get(index as usize)
    }
}

/// One empty slot per (banner, starting wounds) of each Hero.
pub fn duel_slots(heroes: &[HeroRules]) -> Vec<Box<[OnceLock<DuelEnds>]>> {
    heroes
        .iter()
        .map(|h| (0..4 * h.resolve).map(|_| OnceLock::new()).collect())
        .collect()
}

/// The value in the `OnceLock` `$slot`, built by `$init` the first time.
/// A macro, not a function: the closure around `$init` is made only on the
/// (out-of-line) first build, so a battle's hot path loads the slot's state,
/// tests it and stores nothing for the build.
macro_rules! built {
    ($slot:expr, $init:expr) => {{
        let slot = $slot;
        match slot.get() {
            Some(value) => value,
            None => build(slot, || $init),
        }
    }};
}

#[cold]
#[inline(never)]
fn build<T>(slot: &OnceLock<T>, init: impl FnOnce() -> T) -> &T {
    slot.get_or_init(init)
}

impl Fast<'_> {
    /// Fights the battle.
    fn fight(self, battle: Decisions) -> BattleOutcome {
        // A side that spends all its raises at once takes its own copy of
        // the battle loop, so the usual spending pays nothing for it.
        if self
            .rules
            .sides
            .iter()
            .any(|s| s.spending == Spending::AllAtFirstLoss)
        {
            self.fight_inline::<true>(battle)
        } else {
            self.fight_inline::<false>(battle)
        }
    }

    /// [`Fast::fight`]'s body, with the contest, opportunities and
    /// duels inlined into it.
    #[inline(always)]
    fn fight_inline<const SPEND_ALL: bool>(self, battle: Decisions) -> BattleOutcome {
        let n = self.rules.heroes.len();
        let mut heroes = [Hero::default(); MAX_HEROES];
        let mut raises: [i64; 2] = std::array::from_fn(|s| {
            let side = &self.rules.sides[s];
            let x = battle.half(address::FREE_RAISES + s as u32);
            side.free_raises.draw(x) as i64 * side.spendable()
        });
        let mut next_modifier = [0i64; 2];
        let mut streak = (2usize, 0u32);
        let mut winner = 2u8;
        let mut rounds = 0u32;
        while rounds < self.rules.max_rounds && winner == 2 {
            let numbers = address::round(battle, rounds);
            rounds += 1;
            // 1. Officers' help: Leadership dice to the commander from each
            // officer still in the fight and not with the surgeon.
            let mut pools = [
                self.rules.sides[0].strategy_dice,
                self.rules.sides[1].strategy_dice,
            ];
            let mut helping = [false; MAX_HEROES];
            for &i in &self.rules.officers {
                let (h, r) = (&heroes[i], &self.rules.heroes[i]);
                helping[i] = !h.out && !h.surgeon;
                pools[r.side] += r.leadership * i64::from(helping[i]);
            }
            // 2. The commanders' contest.
            let modifier = next_modifier;
            next_modifier = [0; 2];
            let round_winner = self.contest::<SPEND_ALL>(numbers, pools, modifier, &mut raises);
            if let Some(w) = round_winner {
                streak = if streak.0 == w {
                    (w, streak.1 + 1)
                } else {
                    (w, 1)
                };
                if streak.1 >= 3 {
                    winner = w as u8;
                }
            } else {
                streak = (2, 0);
            }
            // 3. Each Hero's personal result.
            for i in 0..n {
                let hero = address::hero(numbers, i);
                self.hero_round(hero, i, &mut heroes[i], helping[i], &mut next_modifier);
            }
        }
        self.outcome(battle, &heroes, winner, rounds)
    }

    /// One Hero's round: the surgeon's care, or his engagement level, his
    /// personal result on the chart, the effects that end with the round,
    /// and a Heroic Opportunity if the chart offers one.
    #[inline(always)]
    fn hero_round(
        self,
        numbers: Decisions,
        i: usize,
        h: &mut Hero,
        helping: bool,
        next_modifier: &mut [i64; 2],
    ) {
        let t = &self.rules.tables;
        let r = &self.rules.heroes[i];
        if h.out {
            return;
        }
        if h.surgeon {
            // The banner he holds still earns its round.
            h.surgeon = false;
            h.flesh = 0;
            h.wounds = (h.wounds - 1).max(0);
            h.reputation += i64::from(h.banner);
            return;
        }
        // His engagement level: where a banner he carries is, else
        // a forced level, else his policy's.
        h.level = if let Some(level) = &mut h.carrying {
            // One level toward the Rear every round he carries it,
            // starting with the first.
            *level = level.saturating_sub(1);
            *level
        } else if let Some(forced) = h.forced {
            forced.level
        } else {
            r.policy.level(h.wounds)
        };
        // The penalty in steps of 2.
        let steps =
            usize::from(helping) + usize::from(h.charge) + 2 * usize::from(h.carrying.is_some());
        let level = usize::from(h.level);
        let slot = (usize::from(h.banner) * 4 + level) * PENALTY_STEPS + steps;
        let round_slot = (level, 2 * steps as i64, h.banner);
        let draws = built!(
            &self.laws.round_draws[i * ROUND_SLOTS + slot],
            self.laws
                .round(RoundHero::of(r), round_slot, || RoundDraws::new(
                    t,
                    RoundHero::of(r),
                    self.rules.personal_roll,
                    round_slot
                ))
        );
        let round = draws.draw(h.flesh, numbers);
        h.reputation += round.reputation
            + h.forced.map_or(0, |f| f.reputation)
            + i64::from(h.banner)
            + 3 * i64::from(h.carrying.is_some());
        h.wounds += round.wounds;
        h.flesh = round.flesh;
        h.out |= h.wounds >= 2 * r.resolve;
        // Effects that end with this round.
        let side = r.side;
        if h.charge {
            h.charge = false;
            if !h.out {
                next_modifier[side] += 1;
            }
        }
        if let Some(level) = h.carrying {
            if h.out {
                h.carrying = None;
            } else if level == REAR as u8 {
                h.carrying = None;
                h.reputation += CAPTURE_REAR_BONUS;
                next_modifier[side] += CAPTURE_REAR_BONUS;
            }
        }
        if let Some(forced) = &mut h.forced {
            if let Held::TheLine { rounds_held } = &mut forced.by {
                *rounds_held += 1;
            }
            if forced.rounds_left <= 1 || h.out {
                if !h.out {
                    next_modifier[side] += match forced.by {
                        Held::TheLine { rounds_held } if rounds_held >= 3 => 3,
                        Held::Lure => 1,
                        _ => 0,
                    };
                }
                h.forced = None;
            } else {
                forced.rounds_left -= 1;
            }
        }
        // A Heroic Opportunity.
        if round.opportunity && !h.out {
            let x = numbers.half(address::OPPORTUNITY);
            let opportunity = Opportunity::ALL[t.opportunities.draw(x)];
            self.take(numbers, i, h, opportunity, next_modifier);
        }
    }

    /// What the battle left: each Hero's Reputation (halved on the losing
    /// side), wounds, state, opportunities and Spoils.
    #[inline(always)]
    fn outcome(
        self,
        battle: Decisions,
        heroes: &[Hero; MAX_HEROES],
        winner: u8,
        rounds: u32,
    ) -> BattleOutcome {
        let mut outcome = BattleOutcome {
            winner,
            rounds: rounds as u16,
            heroes: [HeroOutcome::default(); MAX_HEROES],
        };
        for (i, (slot, (h, r))) in outcome
            .heroes
            .iter_mut()
            .zip(heroes.iter().zip(&self.rules.heroes))
            .enumerate()
        {
            let won = winner as usize == r.side;
            // The losers' half drops its fraction (toward zero).
            let reputation = if won { h.reputation } else { h.reputation / 2 };
            let spoils = if won {
                let x = battle.half(address::SPOILS + i as u32);
                1 + r.spoils_by_face[((u128::from(x) * 10) >> 64) as usize]
            } else {
                0
            };
            *slot = HeroOutcome {
                reputation: reputation as i32,
                dramatic_wounds: h.wounds.min(2 * r.resolve) as u8,
                state: h.state(r.resolve),
                opportunities_taken: h.taken,
                spoils,
                duels_won: h.duels_won,
            };
        }
        outcome
    }

    /// One round of the commanders' contest: the winning side, or `None` if
    /// rerolls ran out. A side about to lose spends the fewest Free Raises
    /// that turn the loss into a win, if it has enough. Drawn from the
    /// round's exact law when cached, else rolled out.
    #[inline(always)]
    fn contest<const SPEND_ALL: bool>(
        self,
        numbers: Decisions,
        pools: [i64; 2],
        modifier: [i64; 2],
        raises: &mut [i64; 2],
    ) -> Option<usize> {
        let tn = [5 * self.rules.sides[1].wits, 5 * self.rules.sides[0].wits];
        let pool = |s: usize| Pool::new(pools[s], self.rules.sides[s].wits);
        if let Some(slot) = self.laws.contest_laws.slot(pools, modifier) {
            let wits = [self.rules.sides[0].wits, self.rules.sides[1].wits];
            let law = built!(
                slot,
                self.laws
                    .contest((pools, wits, modifier), || ContestLaw::new(
                        [&pool(0).law(), &pool(1).law()],
                        modifier,
                        tn
                    ))
            );
            return match law.draw(numbers.half(address::CONTEST)) {
                RoundEnd::Undecided => None,
                RoundEnd::Decided(winner, need) => {
                    Some(self.settle::<SPEND_ALL>(winner, need, raises))
                }
            };
        }
        let mut rolls = numbers.stream(address::CONTEST_ROLLS);
        for _ in 0..MAX_REROLLS {
            let totals = [
                pool(0).sample(&mut rolls) + modifier[0],
                pool(1).sample(&mut rolls) + modifier[1],
            ];
            if let Some((winner, need)) = decide(totals, tn) {
                return Some(self.settle::<SPEND_ALL>(winner, need, raises));
            }
        }
        None
    }

    /// The side that takes a decided round, by the loser's way of spending:
    /// all his raises at his first loss, else [`settle`] as needed (a side
    /// that never spends holds no raises here: see [`SideRules::spendable`]).
    /// `SPEND_ALL`: some side spends all at once (checked once a battle).
    #[inline(always)]
    fn settle<const SPEND_ALL: bool>(
        self,
        winner: usize,
        need: i64,
        raises: &mut [i64; 2],
    ) -> usize {
        let loser = 1 - winner;
        if SPEND_ALL
            && self.rules.sides[loser].spending == Spending::AllAtFirstLoss
            && raises[loser] > 0
        {
            let turned = need <= raises[loser];
            raises[loser] = 0;
            return if turned { loser } else { winner };
        }
        settle(winner, need, raises)
    }

    /// A Hero's response to an opportunity ([`super::opportunities::take`]),
    /// his duels drawn whole from their laws.
    #[inline(always)]
    fn take(
        self,
        numbers: Decisions,
        hero: usize,
        h: &mut Hero,
        opportunity: Opportunity,
        next_modifier: &mut [i64; 2],
    ) {
        take(
            self.rules,
            hero,
            numbers,
            h,
            opportunity,
            next_modifier,
            Duelist { fast: self, hero },
        );
    }

    /// A duel to the knock-out: each exchange both roll (Finesse + Attack)k
    /// Finesse and the lower total takes a Dramatic Wound; drawn whole from
    /// its exact law ([`DuelEnds`]). True if the Hero wins.
    #[inline(always)]
    fn duel(self, x: u64, hero: usize, h: &mut Hero) -> bool {
        let r = &self.rules.heroes[hero];
        let limit = 2 * r.resolve;
        let start = h.wounds.min(limit - 1);
        let slot = usize::from(h.banner) * limit as usize + start as usize;
        let ends = built!(&self.laws.duel_ends[hero][slot], {
            let o = self.rules.tables.duel_opponent;
            let mine = own_pool(r.finesse + r.attack, r.finesse, h.banner);
            let theirs = Pool::new(o.finesse + o.attack, o.finesse);
            let (win, lose) = exchange_odds(&mine.law(), &theirs.law());
            DuelEnds::new(win, lose, start, limit, 2 * o.resolve)
        });
        let (won, wounds) = ends.draw(x);
        h.wounds = wounds;
        if wounds >= limit {
            h.out = true;
        }
        won
    }
}

/// Hero `hero`'s duels, drawn whole from their laws.
struct Duelist<'a> {
    fast: Fast<'a>,
    hero: usize,
}

impl Duel for Duelist<'_> {
    #[inline(always)]
    fn fight(self, x: u64, h: &mut Hero) -> bool {
        self.fast.duel(x, self.hero, h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::contract::BattleSystem;
    use crate::systems::seventh_sea::rules::HEAVILY_ENGAGED;
    use crate::systems::seventh_sea::scenario::Policy;

    /// The bundled even-field battle.
    fn even_field() -> super::super::SeventhSea {
        let text = include_str!("../../../scenarios/seventh_sea/even_field_battle.toml");
        let (_, sea) =
            super::super::SeventhSea::from_scenario(text, "even_field", &crate::tables::TableFiles::in_folder(std::path::Path::new(".")))
                .expect("bundled scenario");
        sea
    }

    #[test]
    fn policies_pick_their_level_and_adaptive_heroes_step_back_per_wound() {
        let fixed = [
            (Policy::Rear, REAR as u8),
            (Policy::NotEngaged, 1),
            (Policy::Engaged, 2),
            (Policy::HeavilyEngaged, HEAVILY_ENGAGED as u8),
        ];
        for (policy, level) in fixed {
            for wounds in [0, 1, 5] {
                assert_eq!(policy.level(wounds), level, "{policy:?} at {wounds} wounds");
            }
        }
        let adaptive: Vec<u8> = (0..6).map(|w| Policy::Adaptive.level(w)).collect();
        assert_eq!(adaptive, [3, 2, 1, 0, 0, 0]);
    }

    #[test]
    fn spoils_follow_a_d10_plus_commission_on_the_table() {
        let sea = even_field();
        // A winner's spoils are his roll's row, a loser's none, whatever
        // duels either won (those are counted apart).
        let rules = &sea.rules;
        let laws = Laws::new(rules);
        let n = 100_000;
        let mut seen = vec![std::collections::BTreeMap::new(); rules.heroes.len()];
        let mut wins = vec![0u64; rules.heroes.len()];
        for battle in 0..n {
            let outcome = laws.fight(rules, &BattleStream::battle(29, battle));
            for (i, h) in rules.heroes.iter().enumerate() {
                let won = usize::from(outcome.winner) == h.side;
                let spoils = outcome.heroes[i].spoils;
                assert_eq!(won, spoils > 0, "a roll for the winners only: {spoils}");
                if won {
                    wins[i] += 1;
                    *seen[i].entry(outcome.heroes[i].spoils - 1).or_default() += 1;
                }
            }
        }
        for (i, (hero, _)) in sea.parsed.heroes.iter().enumerate() {
            let mut exact = std::collections::BTreeMap::new();
            for roll in 1..=10 {
                let row = rules
                    .tables
                    .spoils
                    .iter()
                    .rposition(|(min, _)| roll + hero.commission >= *min)
                    .unwrap_or(0) as u8;
                *exact.entry(row).or_default() += 0.1;
            }
            crate::stats::assert_counts_follow(&exact, &seen[i], wins[i], &hero.name);
        }
    }
}

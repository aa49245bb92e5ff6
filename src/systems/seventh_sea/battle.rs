//! One 7th Sea mass battle, round by round (docs/rules.md §3).

use std::hint::select_unpredictable;
use std::sync::OnceLock;

use rand::Rng;

use super::contest::{ContestLaw, MAX_REROLLS, RoundEnd, decide, settle};
use super::roll_keep::{Pool, Sampler, without_far_tail};
use super::scenario::{MAX_HEROES, PersonalRoll, Policy, Spending};
use super::tables::{Opportunity, SeaTables};
use crate::dice::{AliasTable, Digits, chance, chance_threshold};

/// Engagement levels, Rear (0) to Heavily Engaged (3).
pub const REAR: usize = 0;
/// Heavily Engaged.
pub const HEAVILY_ENGAGED: usize = 3;

/// A Hero's final state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeroState {
    /// Fewer Dramatic Wounds than his Resolve.
    #[default]
    Fine,
    /// Dramatic Wounds ≥ Resolve.
    Crippled,
    /// Dramatic Wounds ≥ 2 × Resolve.
    KnockedOut,
}

impl HeroState {
    /// Labels in reporting order.
    pub const LABELS: [&'static str; 3] = ["fine", "crippled", "knocked_out"];
}

/// What happened to one Hero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeroOutcome {
    /// Reputation after the halving rule.
    pub reputation: i32,
    /// Dramatic Wounds, counted up to the knock-out threshold.
    pub dramatic_wounds: u8,
    /// Final state.
    pub state: HeroState,
    /// Heroic Opportunities taken.
    pub opportunities_taken: u16,
    /// 0: no spoils (his side did not win); otherwise 1 + the Spoils row.
    pub spoils: u8,
}

/// What one battle produced.
#[derive(Debug, Clone, Copy)]
pub struct BattleOutcome {
    /// 0 or 1: that side won; 2: undecided at `max_rounds`.
    pub winner: u8,
    /// Rounds fought.
    pub rounds: u16,
    /// Per Hero.
    pub heroes: [HeroOutcome; MAX_HEROES],
}

/// A side, resolved.
#[derive(Debug, Clone)]
pub struct SideRules {
    /// Commander's Wits.
    pub wits: i64,
    /// Commander's Wits + Strategy (rolled dice).
    pub strategy_dice: i64,
    /// Supply pool, if a quartermaster.
    pub supply: Option<Pool>,
    /// Speech pool, if a speech.
    pub speech: Option<Pool>,
    /// Draws the Free Raises from Supply and Speech ([`free_raises_law`]).
    pub free_raises: AliasTable,
    /// When it spends them.
    pub spending: Spending,
}

impl SideRules {
    /// 1 if the side may spend the raises it draws, 0 if it never does: a
    /// side that never spends fights exactly as one that has none (the
    /// raises are still drawn, so the streams stay the same).
    #[inline(always)]
    pub fn spendable(&self) -> i64 {
        i64::from(self.spending != Spending::Never)
    }
}

/// Threshold for [`chance`]: a roll of `pool` reaches `tn`.
pub fn reach_chance(pool: Pool, tn: i64) -> u64 {
    let law = pool.law();
    chance_threshold(law.iter().skip(tn.max(0) as usize).sum())
}

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

/// A Hero, resolved.
#[derive(Debug, Clone, Copy)]
pub struct HeroRules {
    /// Side index.
    pub side: usize,
    /// Wits + Tactics.
    pub personal: i64,
    /// Wits (kept dice of the keep-mode personal roll).
    pub wits: i64,
    /// Brawn.
    pub brawn: i64,
    /// Brawn + defence knack, subtracted from damage.
    pub soak: i64,
    /// Resolve.
    pub resolve: i64,
    /// Finesse.
    pub finesse: i64,
    /// Attack knack.
    pub attack: i64,
    /// Firearms knack.
    pub firearms: i64,
    /// Leadership dice added to the commander if an officer.
    pub leadership: i64,
    /// Officer.
    pub officer: bool,
    /// The Spoils row of each d10 face (0 to 9) with his commission added.
    pub spoils_by_face: [u8; 10],
    /// Kept dice removed from each damage roll by Dracheneisen.
    pub armour_kept: i64,
    /// Policy.
    pub policy: Policy,
    /// Threshold for [`crate::dice::chance`]: the Line of Fire shot
    /// reaches its TN, without and with a banner.
    pub line_of_fire_hit: [u64; 2],
}

/// The battle, resolved.
#[derive(Debug, Clone)]
pub struct BattleRules {
    /// The two sides.
    pub sides: [SideRules; 2],
    /// The Heroes.
    pub heroes: Vec<HeroRules>,
    /// Indices of the Heroes who are officers.
    pub officers: Vec<usize>,
    /// Round cap.
    pub max_rounds: u32,
    /// Personal roll mode.
    pub personal_roll: PersonalRoll,
    /// Tables.
    pub tables: SeaTables,
    /// Per Hero, by banner and Dramatic Wounds at the start: how a duel
    /// ends, built on first use.
    pub duel_ends: Vec<Box<[OnceLock<DuelEnds>]>>,
    /// By Hero, banner, engagement level and penalty ([`ROUND_SLOTS`] per
    /// Hero, in one array: one load less per round): his round on the
    /// chart, built on first use.
    pub round_draws: Box<[OnceLock<RoundDraws>]>,
    /// Contest laws by pools and modifiers, built on first use.
    pub contest_laws: ContestLaws,
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
    slots: Box<[OnceLock<ContestLaw>]>,
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
    fn slot(&self, pools: [i64; 2], modifier: [i64; 2]) -> Option<&OnceLock<ContestLaw>> {
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

/// How a duel ends from one starting point, drawn with one random number.
#[derive(Debug, Clone)]
pub struct DuelEnds {
    table: AliasTable,
    /// (the Hero won, his Dramatic Wounds at the end).
    ends: Vec<(bool, i64)>,
}

impl DuelEnds {
    /// The exact law of a duel's end: each exchange the lower total takes a
    /// Dramatic Wound (ties replay), until the Hero reaches `hero_limit`
    /// wounds (he is out and loses) or the opponent `opponent_limit` (he
    /// wins). `p_win`/`p_lose`: one exchange's odds. A duel no exchange can
    /// decide is called off: no winner, no wounds.
    pub fn new(p_win: f64, p_lose: f64, wounds: i64, hero_limit: i64, opponent_limit: i64) -> Self {
        let decided = p_win + p_lose;
        if decided < 1e-15 || wounds >= hero_limit {
            return DuelEnds {
                table: AliasTable::new(&[1.0]),
                ends: vec![(false, wounds)],
            };
        }
        let lose = p_lose / decided;
        let (rows, cols) = (hero_limit as usize, opponent_limit as usize);
        // mass[h][o]: P(the duel passes through h Hero and o opponent wounds).
        let mut mass = vec![vec![0.0f64; cols]; rows];
        mass[wounds as usize][0] = 1.0;
        let mut ends = Vec::new();
        let mut weights = Vec::new();
        for h in wounds as usize..rows {
            for o in 0..cols {
                let m = mass[h][o];
                if m == 0.0 {
                    continue;
                }
                if h + 1 == rows {
                    ends.push((false, hero_limit));
                    weights.push(m * lose);
                } else {
                    mass[h + 1][o] += m * lose;
                }
                if o + 1 == cols {
                    ends.push((true, h as i64));
                    weights.push(m * (1.0 - lose));
                } else {
                    mass[h][o + 1] += m * (1.0 - lose);
                }
            }
        }
        DuelEnds {
            table: AliasTable::new(&weights),
            ends,
        }
    }

    /// Draws (the Hero won, his Dramatic Wounds at the end).
    #[inline]
    pub fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> (bool, i64) {
        self.ends[self.table.draw(rng)]
    }
}

/// P(a > b) and P(a < b) for independent totals with the laws `a`, `b`
/// (P(total = k) at index k).
pub fn exchange_odds(a: &[f64], b: &[f64]) -> (f64, f64) {
    let b_total: f64 = b.iter().sum();
    let mut below = 0.0; // P(b < k)
    let (mut greater, mut less) = (0.0, 0.0);
    for (k, &pa) in a.iter().enumerate() {
        let at = b.get(k).copied().unwrap_or(0.0);
        greater += pa * below;
        less += pa * (b_total - below - at);
        below += at;
    }
    (greater, less)
}

/// Personal-result penalties a round can carry: 0, 2, ..., 8 (helping the
/// commander 2, charging 2, carrying a banner 4).
const PENALTY_STEPS: usize = 5;

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

impl RoundDraws {
    /// The joint law for a Hero at `level` with `penalty` off his personal
    /// result, carrying a banner or not. Each damage law drops its far tail
    /// ([`without_far_tail`]), as pool samplers do.
    pub fn new(
        tables: &SeaTables,
        hero: &HeroRules,
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

    /// Draws a round of a Hero with `flesh` Flesh Wounds: one random number
    /// from none, two from some.
    #[inline(always)]
    pub fn draw<R: Rng + ?Sized>(&self, flesh: i64, rng: &mut R) -> Round {
        if flesh == 0 {
            return Round::from_label(self.fresh.draw(rng));
        }
        let before = Round::from_label(self.carried.draw(rng));
        let check = self.brawn_check.sample(rng);
        let (flesh, wounds) = wound_check(flesh + before.flesh, before.flesh, check);
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

/// One empty slot per (banner, engagement level, penalty) of each Hero.
pub fn round_slots(heroes: &[HeroRules]) -> Box<[OnceLock<RoundDraws>]> {
    (0..heroes.len() * ROUND_SLOTS)
        .map(|_| OnceLock::new())
        .collect()
}

/// One empty slot per (banner, starting wounds) of each Hero.
pub fn duel_slots(heroes: &[HeroRules]) -> Vec<Box<[OnceLock<DuelEnds>]>> {
    heroes
        .iter()
        .map(|h| (0..4 * h.resolve).map(|_| OnceLock::new()).collect())
        .collect()
}

/// Per-Hero state during a battle (small: sixteen of them are set up per
/// battle).
#[derive(Debug, Clone, Copy, Default)]
struct Hero {
    flesh: i64,
    wounds: i64,
    reputation: i64,
    taken: u16,
    /// Engagement level this round.
    level: u8,
    out: bool,
    /// Holds his own side's banner (to the end of the battle).
    banner: bool,
    /// Spends his next round with the surgeon.
    surgeon: bool,
    /// Charged: −2 on his next personal result.
    charge: bool,
    /// Held at a level by an opportunity (never while carrying a banner).
    forced: Option<Forced>,
    /// Carries the enemy's banner toward the Rear: the level it is at
    /// (never while held at a level).
    carrying: Option<u8>,
    /// Won a duel: takes the opponent's belongings.
    won_duel: bool,
}

/// Which opportunity holds a Hero at a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    /// Hold the Line, with the rounds held so far.
    TheLine { rounds_held: u8 },
    /// Lure: Heavily Engaged for one round.
    Lure,
    /// Rescue the Wounded: Heavily Engaged for two rounds.
    Rescue,
}

/// A Hero held at a level by an opportunity.
#[derive(Debug, Clone, Copy)]
struct Forced {
    by: Held,
    level: u8,
    /// Rounds still to fight there.
    rounds_left: u8,
    /// Reputation each of those rounds.
    reputation: i64,
}

impl Hero {
    /// Held by `by` at `level` for `rounds` rounds, earning `reputation` each.
    #[inline(always)]
    fn force(&mut self, by: Held, level: u8, rounds: u8, reputation: i64) {
        self.forced = Some(Forced {
            by,
            level,
            rounds_left: rounds,
            reputation,
        });
    }

    fn state(&self, resolve: i64) -> HeroState {
        if self.wounds >= 2 * resolve {
            HeroState::KnockedOut
        } else if self.wounds >= resolve {
            HeroState::Crippled
        } else {
            HeroState::Fine
        }
    }
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

/// Supply and Speech give one Free Raise per this many points, or fraction.
pub const POINTS_PER_FREE_RAISE: usize = 10;

/// A failed Wound Check deals one more Dramatic Wound per this many points
/// missed [stand-in].
pub const MISSED_PER_EXTRA_WOUND: i64 = 20;

/// Reputation, and Strategy on the next roll, for bringing a captured
/// banner to the Rear.
pub const CAPTURE_REAR_BONUS: i64 = 5;

/// A banner bearer's own roll: one rolled die fewer (docs/rules.md: "−1 unkept
/// die on all rolls"); where the pool has no unkept die (Brawn k Brawn, the
/// one-die personal roll) a kept die goes with it [stand-in]. Only his own
/// rolls: never the damage rolled against him, or the penalty would heal.
#[inline]
pub fn minus_banner(pool: Pool, banner: bool) -> Pool {
    if banner {
        Pool::new(pool.rolled as i64 - 1, pool.kept as i64)
    } else {
        pool
    }
}

impl BattleRules {
    /// Fights the battle.
    pub fn fight<R: Rng + Clone>(&self, rng: &mut R) -> BattleOutcome {
        // A side that spends all its raises at once takes its own copy of
        // the battle loop, so the usual spending pays nothing for it.
        if self
            .sides
            .iter()
            .any(|s| s.spending == Spending::AllAtFirstLoss)
        {
            crate::engine::on_local_copy(rng, |rng| self.fight_inline::<R, true>(rng))
        } else {
            crate::engine::on_local_copy(rng, |rng| self.fight_inline::<R, false>(rng))
        }
    }

    /// [`BattleRules::fight`]'s body, with the contest, opportunities and
    /// duels inlined into it.
    #[inline(always)]
    fn fight_inline<R: Rng, const SPEND_ALL: bool>(&self, rng: &mut R) -> BattleOutcome {
        let dice = &mut Digits::new(rng);
        let n = self.heroes.len();
        let mut heroes = [Hero::default(); MAX_HEROES];
        // Written out: a closure taking the generator would be called out
        // of line, and the generator's state would leave the registers.
        let mut raises = [
            self.sides[0].free_raises.draw(dice.rng()) as i64 * self.sides[0].spendable(),
            self.sides[1].free_raises.draw(dice.rng()) as i64 * self.sides[1].spendable(),
        ];
        let mut next_modifier = [0i64; 2];
        let mut streak = (2usize, 0u32);
        let mut winner = 2u8;
        let mut rounds = 0u32;
        while rounds < self.max_rounds && winner == 2 {
            rounds += 1;
            // 1. Officers' help: Leadership dice to the commander from each
            // officer still in the fight and not with the surgeon.
            let mut pools = [self.sides[0].strategy_dice, self.sides[1].strategy_dice];
            let mut helping = [false; MAX_HEROES];
            for &i in &self.officers {
                let (h, r) = (&heroes[i], &self.heroes[i]);
                helping[i] = !h.out && !h.surgeon;
                pools[r.side] += r.leadership * i64::from(helping[i]);
            }
            // 2. The commanders' contest.
            let modifier = next_modifier;
            next_modifier = [0; 2];
            let round_winner = self.contest::<R, SPEND_ALL>(dice, pools, modifier, &mut raises);
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
                self.hero_round(dice, i, &mut heroes[i], helping[i], &mut next_modifier);
            }
        }
        self.outcome(dice, &heroes, winner, rounds)
    }

    /// One Hero's round: the surgeon's care, or his engagement level, his
    /// personal result on the chart, the effects that end with the round,
    /// and a Heroic Opportunity if the chart offers one.
    #[inline(always)]
    fn hero_round<R: Rng>(
        &self,
        dice: &mut Digits<R>,
        i: usize,
        h: &mut Hero,
        helping: bool,
        next_modifier: &mut [i64; 2],
    ) {
        let t = &self.tables;
        let r = &self.heroes[i];
        if h.out {
            return;
        }
        if h.surgeon {
            h.surgeon = false;
            h.flesh = 0;
            h.wounds = (h.wounds - 1).max(0);
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
        let draws = built!(
            &self.round_draws[i * ROUND_SLOTS + slot],
            RoundDraws::new(
                t,
                r,
                self.personal_roll,
                (level, 2 * steps as i64, h.banner)
            )
        );
        let round = draws.draw(h.flesh, dice.rng());
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
            let opportunity = Opportunity::ALL[t.opportunities.draw(dice.rng())];
            self.take(dice, i, h, opportunity, next_modifier);
        }
    }

    /// What the battle left: each Hero's Reputation (halved on the losing
    /// side), wounds, state, opportunities and Spoils.
    #[inline(always)]
    fn outcome<R: Rng>(
        &self,
        dice: &mut Digits<R>,
        heroes: &[Hero; MAX_HEROES],
        winner: u8,
        rounds: u32,
    ) -> BattleOutcome {
        let mut outcome = BattleOutcome {
            winner,
            rounds: rounds as u16,
            heroes: [HeroOutcome::default(); MAX_HEROES],
        };
        for (slot, (h, r)) in outcome
            .heroes
            .iter_mut()
            .zip(heroes.iter().zip(&self.heroes))
        {
            let won = winner as usize == r.side;
            let reputation = if won {
                h.reputation
            } else {
                h.reputation.div_euclid(2)
            };
            let rolled = if won {
                1 + r.spoils_by_face[dice.below(10) as usize]
            } else {
                0
            };
            let taken = if h.won_duel {
                1 + self.tables.duel_belongings as u8
            } else {
                0
            };
            let spoils = rolled.max(taken);
            *slot = HeroOutcome {
                reputation: reputation as i32,
                dramatic_wounds: h.wounds.min(2 * r.resolve) as u8,
                state: h.state(r.resolve),
                opportunities_taken: h.taken,
                spoils,
            };
        }
        outcome
    }

    /// One round of the commanders' contest: the winning side, or `None` if
    /// rerolls ran out. A side about to lose spends the fewest Free Raises
    /// that turn the loss into a win, if it has enough. Drawn from the
    /// round's exact law when cached, else rolled out.
    #[inline(always)]
    fn contest<R: Rng, const SPEND_ALL: bool>(
        &self,
        dice: &mut Digits<R>,
        pools: [i64; 2],
        modifier: [i64; 2],
        raises: &mut [i64; 2],
    ) -> Option<usize> {
        let tn = [5 * self.sides[1].wits, 5 * self.sides[0].wits];
        let pool = |s: usize| Pool::new(pools[s], self.sides[s].wits);
        if let Some(slot) = self.contest_laws.slot(pools, modifier) {
            let law = built!(
                slot,
                ContestLaw::new([&pool(0).law(), &pool(1).law()], modifier, tn)
            );
            return match law.draw(dice.rng()) {
                RoundEnd::Undecided => None,
                RoundEnd::Decided(winner, need) => {
                    Some(self.settle::<SPEND_ALL>(winner, need, raises))
                }
            };
        }
        for _ in 0..MAX_REROLLS {
            let totals = [
                pool(0).sample(dice.rng()) + modifier[0],
                pool(1).sample(dice.rng()) + modifier[1],
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
        &self,
        winner: usize,
        need: i64,
        raises: &mut [i64; 2],
    ) -> usize {
        let loser = 1 - winner;
        if SPEND_ALL && self.sides[loser].spending == Spending::AllAtFirstLoss && raises[loser] > 0
        {
            let turned = need <= raises[loser];
            raises[loser] = 0;
            return if turned { loser } else { winner };
        }
        settle(winner, need, raises)
    }

    /// A Hero's response to an opportunity, by his policy: one dispatch on
    /// the kind, each arm deciding whether he takes it.
    #[inline(always)]
    fn take<R: Rng>(
        &self,
        dice: &mut Digits<R>,
        hero: usize,
        h: &mut Hero,
        opportunity: Opportunity,
        next_modifier: &mut [i64; 2],
    ) {
        let r = &self.heroes[hero];
        // Crippled or knocked out ([`HeroState`]).
        let crippled = h.wounds >= r.resolve;
        let refuses_duels = r.policy == Policy::Adaptive && crippled;
        let busy = h.forced.is_some() || h.carrying.is_some();
        let side = r.side;
        let taken = match opportunity {
            Opportunity::Surgeon => {
                h.surgeon = true;
                true
            }
            Opportunity::PickUpBanner => {
                h.banner = true;
                true
            }
            Opportunity::HoldTheLine if !busy => {
                let reputation = match h.level {
                    3 => 2,
                    2 => 1,
                    _ => 0,
                };
                h.force(Held::TheLine { rounds_held: 1 }, h.level, 2, reputation);
                true
            }
            Opportunity::Charge => {
                h.charge = true;
                h.reputation += 2;
                true
            }
            Opportunity::LineOfFire => {
                if chance(dice.rng(), r.line_of_fire_hit[usize::from(h.banner)]) {
                    h.reputation += 3;
                    next_modifier[1 - side] -= 3;
                }
                true
            }
            Opportunity::Lure if !busy => {
                h.force(Held::Lure, HEAVILY_ENGAGED as u8, 1, 2);
                true
            }
            Opportunity::RescueTheWounded if !busy => {
                h.force(Held::Rescue, HEAVILY_ENGAGED as u8, 2, 2);
                true
            }
            Opportunity::CaptureEnemyBanner if !refuses_duels && !busy => {
                if self.duel(dice, hero, h) {
                    h.carrying = Some(h.level);
                    h.won_duel = true;
                }
                true
            }
            Opportunity::Duel if refuses_duels => {
                h.reputation += self.tables.refuse_duel_reputation;
                false
            }
            Opportunity::Duel => {
                if self.duel(dice, hero, h) {
                    next_modifier[1 - side] -= 3;
                    h.won_duel = true;
                } else {
                    next_modifier[side] -= 3;
                }
                true
            }
            // Busy, or refusing a capture once crippled.
            _ => false,
        };
        h.taken += u16::from(taken);
    }

    /// A duel to the knock-out: each exchange both roll (Finesse + Attack)k
    /// Finesse and the lower total takes a Dramatic Wound; drawn whole from
    /// its exact law ([`DuelEnds`]). True if the Hero wins.
    #[inline(always)]
    fn duel<R: Rng>(&self, dice: &mut Digits<R>, hero: usize, h: &mut Hero) -> bool {
        let r = &self.heroes[hero];
        let limit = 2 * r.resolve;
        let start = h.wounds.min(limit - 1);
        let slot = usize::from(h.banner) * limit as usize + start as usize;
        let ends = built!(&self.duel_ends[hero][slot], {
            let o = self.tables.duel_opponent;
            let mine = minus_banner(Pool::new(r.finesse + r.attack, r.finesse), h.banner);
            let theirs = Pool::new(o.finesse + o.attack, o.finesse);
            let (win, lose) = exchange_odds(&mine.law(), &theirs.law());
            DuelEnds::new(win, lose, start, limit, 2 * o.resolve)
        });
        let (won, wounds) = ends.draw(dice.rng());
        h.wounds = wounds;
        if wounds >= limit {
            h.out = true;
        }
        won
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// A duel fought exchange by exchange with dice rolled die by die: the
    /// reference the exact chain must match.
    fn duel_by_exchanges<R: Rng>(
        dice: &mut Digits<R>,
        (mine, theirs): (Pool, Pool),
        wounds: i64,
        (hero_limit, opponent_limit): (i64, i64),
    ) -> (bool, i64) {
        let (mut h, mut o) = (wounds, 0);
        loop {
            let (a, b) = (mine.roll(dice), theirs.roll(dice));
            if a < b {
                h += 1;
                if h >= hero_limit {
                    return (false, h);
                }
            } else if b < a {
                o += 1;
                if o >= opponent_limit {
                    return (true, h);
                }
            }
        }
    }

    /// The bundled even-field battle.
    fn even_field() -> super::super::SeventhSea {
        let text = include_str!("../../../scenarios/seventh_sea/even_field_battle.toml");
        let (_, sea) =
            super::super::SeventhSea::from_scenario(text, "even_field", std::path::Path::new("."))
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
                                hero,
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

    /// The banner bearer's pools, by hand from the rule ("−1 unkept die on
    /// all rolls"): one unkept die fewer from the dice he rolls (after the
    /// ten-dice rule); a pool with no unkept die loses a kept one.
    #[test]
    fn a_banner_takes_one_rolled_die() {
        let show = |rolled, kept, banner| minus_banner(Pool::new(rolled, kept), banner).to_string();
        assert_eq!(show(3, 2, false), "3k2");
        assert_eq!(show(3, 2, true), "2k2");
        assert_eq!(show(2, 2, true), "1k1", "no unkept die: a kept one goes");
        assert_eq!(show(1, 1, true), "0k0");
        // 12k6 is rolled as 10k8, which has two unkept dice: one goes.
        assert_eq!(show(12, 6, true), "9k8");
    }

    #[test]
    fn spoils_follow_a_d10_plus_commission_on_the_table() {
        let sea = even_field();
        // Belongings worth the lowest row: a winner's spoils are his roll's
        // row, a loser's nothing, or that row if he won a duel.
        let mut rules = sea.rules.clone();
        rules.tables.duel_belongings = 0;
        let rules = &rules;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(29);
        let n = 100_000;
        let mut seen = vec![std::collections::BTreeMap::new(); rules.heroes.len()];
        let mut wins = vec![0u64; rules.heroes.len()];
        for _ in 0..n {
            let outcome = rules.fight(&mut rng);
            for (i, h) in rules.heroes.iter().enumerate() {
                let won = usize::from(outcome.winner) == h.side;
                let spoils = outcome.heroes[i].spoils;
                assert!(
                    won == (spoils > 0) || (!won && spoils == 1),
                    "a roll for the winners, belongings for a duel's winner: {spoils}"
                );
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
            let draws = RoundDraws::new(&rules.tables, h, mode, key);
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
                *drawn.entry(draws.draw(flesh, dice.rng())).or_default() += 1;
            }
            let what = format!("hero {hero} {mode:?} {key:?} from {flesh} Flesh Wounds");
            crate::stats::assert_counts_follow(&exact, &rolled, n, &format!("{what}, rolled"));
            crate::stats::assert_counts_follow(&exact, &drawn, n, &format!("{what}, drawn"));
        }
    }

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

    #[test]
    fn duel_ends_match_duels_fought_exchange_by_exchange() {
        let law = |p: Pool| p.law();
        let mut source = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut dice = Digits::new(&mut source);
        for (pools, wounds, limits) in [
            ((Pool::new(6, 3), Pool::new(6, 3)), 0, (6, 6)),
            ((Pool::new(4, 2), Pool::new(7, 4)), 3, (4, 6)),
            ((Pool::new(10, 9), Pool::new(12, 10)), 1, (2, 2)),
        ] {
            let (win, lose) = exchange_odds(&law(pools.0), &law(pools.1));
            let chain = DuelEnds::new(win, lose, wounds, limits.0, limits.1);
            // The chain's probability of each end, read off a fine grid of x.
            let mut exact = std::collections::BTreeMap::<(bool, i64), f64>::new();
            for (i, p) in chain.table.probabilities() {
                *exact.entry(chain.ends[i as usize]).or_default() += p;
            }
            let total: f64 = exact.values().sum();
            assert!((total - 1.0).abs() < 1e-9);
            let n = 100_000u64;
            let mut seen = std::collections::BTreeMap::<(bool, i64), u64>::new();
            for _ in 0..n {
                *seen
                    .entry(duel_by_exchanges(&mut dice, pools, wounds, limits))
                    .or_default() += 1;
            }
            crate::stats::assert_counts_follow(&exact, &seen, n, &format!("{pools:?}"));
        }
    }
}

//! One GURPS battle, fast: the rules of the other files of this folder
//! applied day by day in their order (docs/rules.md §2), each drawn from its
//! fast law with a number addressed by the decision it makes
//! ([`super::address`]). [`super::reference`] plays the same order die by
//! die.

use std::collections::HashMap;
use std::sync::Arc;

use super::address;
use super::casualties::{self, casualty_percent};
use super::catastrophe::{self, Effect};
use super::glory::{self, GloryGain};
use super::ground::{self, Fate};
use super::outcome::{BattleOutcome, HeroOutcome, State};
use super::rules::BattleRules;
use super::tables::CatastropheRow;
use super::scenario::{CommanderGone, LeaderFall, MAX_HEROES, Role};
use super::strategy::{self, MARGIN_SPAN};
use super::success::{RollLaw, quick_contest};
use super::survival::{self, SurvivalDraws, injure_fast};
use crate::engine::inverse;
use crate::engine::stream::{BattleStream, Decisions};

/// Each side's army commander, if a PC: his index (a side has at most one).
fn army_commanders(rules: &BattleRules) -> [Option<usize>; 2] {
    [0, 1].map(|s| (rules.heroes.iter()).position(|h| h.side == s && h.role == Role::ArmyCommander))
}

/// The roll standing for the spent Catastrophe row, after 3..=18.
const SPENT_ROLL: i64 = 19;

/// The PC leaders who fell in today's Survival rolls, under
/// `leader_fall = "same_day"`.
#[derive(Debug, Default)]
struct Fallen {
    /// Per side: its PC army commander, standing for the contest, fell.
    commander: [bool; 2],
    /// Per side: how many of its PC unit leaders fell.
    unit_leaders: [i64; 2],
}

impl Fallen {
    /// Notes PC `h`'s fall; an army commander counts only if his side had
    /// its commander for the contest (`contest_out` false).
    #[inline(always)]
    fn note(&mut self, h: &super::rules::HeroRules, contest_out: [bool; 2]) {
        match h.role {
            Role::ArmyCommander => self.commander[h.side] |= !contest_out[h.side],
            Role::UnitCommander => self.unit_leaders[h.side] += 1,
            Role::Soldier => {}
        }
    }
}

/// The laws variants fought in lockstep share, by what they are built from
/// (the tables, and the PC), held only while the variants are made.
#[derive(Debug, Default)]
pub struct SharedLaws {
    survival: HashMap<String, Arc<SurvivalDraws>>,
    casualties: HashMap<String, Arc<casualties::Laws>>,
}

/// Every rule's fast law for one battle, tabulated once.
#[derive(Debug, Clone)]
pub struct Laws {
    /// Per Catastrophe roll 3..=18: its row's effects.
    catastrophe: Vec<Effect>,
    /// Per side: its commander's Catastrophe roll (with Luck or without).
    catastrophe_roll: [RollLaw; 2],
    /// The Catastrophe roll of a side whose commander is out: no Luck.
    leaderless_roll: RollLaw,
    /// The contest's lookups.
    strategy: strategy::Laws,
    /// Per PC: Survival row and HP lost, drawn together (shared between
    /// variants fought in lockstep where the tables and the PC agree).
    survival: Vec<Arc<SurvivalDraws>>,
    /// Per PC, per 3d6 roll: what his Glory roll brings.
    glory: Vec<[GloryGain; 19]>,
    /// The casualty lookups (shared like `survival`, where the tables agree).
    casualties: Arc<casualties::Laws>,
    /// The Morale a side's units lose on a day that starts with its army
    /// commander out ([`super::tables::GurpsTables::commander_out_morale`]).
    out_morale: i64,
    /// The Morale a side's units lose for each of its PC unit leaders out
    /// when a day starts ([`super::tables::GurpsTables::leader_out_morale`]).
    leader_out_morale: i64,
    /// Each side's army commander, if a PC.
    army_commander: [Option<usize>; 2],
}

impl Laws {
    /// Tabulates every rule of `rules`.
    pub fn new(rules: &BattleRules) -> Laws {
        let t = &rules.tables;
        // The rows by roll 3..=18, then the spent row (`SPENT_ROLL`).
        let catastrophe: Vec<Effect> = (t.catastrophe.iter())
            .chain([&CatastropheRow::default()])
            .map(Effect::new)
            .collect();
        Laws {
            strategy: strategy::Laws::new(rules, &catastrophe),
            catastrophe,
            catastrophe_roll: rules
                .sides
                .each_ref()
                .map(|s| RollLaw::new(s.commander_luck)),
            leaderless_roll: RollLaw::new(false),
            survival: rules
                .heroes
                .iter()
                .map(|h| Arc::new(SurvivalDraws::new(t, h)))
                .collect(),
            glory: rules
                .heroes
                .iter()
                .map(|h| glory::gains_by_roll(t, h))
                .collect(),
            casualties: Arc::new(casualties::Laws::new(t)),
            out_morale: t.commander_out_morale().map_or(0, |(_, morale)| morale),
            leader_out_morale: t.leader_out_morale().map_or(0, |(_, morale)| morale),
            army_commander: army_commanders(rules),
        }
    }

    /// Takes each PC's Survival draws and the casualty lookups from `built`
    /// where another variant with the same tables (and PC) made them, and
    /// leaves its own there for the next: variants fought in lockstep then
    /// read one copy of each law, which keeps them in the cache.
    pub fn share(&mut self, rules: &BattleRules, built: &mut SharedLaws) {
        let tables = format!("{:?}", rules.tables);
        let casualties = built
            .casualties
            .entry(tables.clone())
            .or_insert_with(|| Arc::clone(&self.casualties));
        self.casualties = Arc::clone(casualties);
        for (draws, hero) in self.survival.iter_mut().zip(&rules.heroes) {
            let key = format!("{tables}{hero:?}");
            let shared = built
                .survival
                .entry(key)
                .or_insert_with(|| Arc::clone(draws));
            *draws = Arc::clone(shared);
        }
    }

    /// Fights the whole battle on `stream`'s numbers, read by address.
    /// Inlined into the chunk loop, so the outcome is counted where it was
    /// built instead of being copied out first.
    #[inline(always)]
    pub fn fight(&self, rules: &BattleRules, stream: &BattleStream) -> BattleOutcome {
        let battle = stream.decisions();
        let t = &rules.tables;
        let n = rules.heroes.len();
        let mut heroes = [HeroOutcome::default(); MAX_HEROES];
        let mut lost = [0i64; MAX_HEROES];
        let mut troops = [rules.sides[0].troop_strength, rules.sides[1].troop_strength];
        let mut casualties = [0.0f64; 2];
        let mut carry = [0i64; 2];
        let mut commander_out = [false; 2];
        // Each side's PC unit leaders down or dead when the day starts.
        let mut leaders_out = [0i64; 2];
        // Days won by each side, and ties.
        let mut days_won = [0u32; 3];
        let mut margin_sum = 0i64;
        let mut first_catastrophe = [0u8; 2];
        let mut result = 0u8;
        let mut ground = Fate::Holds;
        let same_day = rules.leader_fall == LeaderFall::SameDay;
        let spent = rules.commander_gone == CommanderGone::RowSpent;
        for day in 0..rules.days {
            let numbers = address::day(battle, day);
            // 1. Catastrophe, with the commander's Luck only while he leads.
            let rolls: [i64; 2] = std::array::from_fn(|s| {
                let x = numbers.half(address::CATASTROPHE + s as u32);
                let law = match commander_out[s] {
                    false => &self.catastrophe_roll[s],
                    true => &self.leaderless_roll,
                };
                catastrophe::roll_fast(law, x, &rules.sides[s])
            });
            if day == 0 {
                first_catastrophe = rolls.map(|r| r as u8);
            }
            // Under `row_spent`, a row striking an army commander already
            // gone reads as the spent row: it does nothing.
            let rolls: [i64; 2] = std::array::from_fn(|s| {
                let strikes = self.catastrophe[(rolls[s] - 3) as usize].strikes_commander;
                match spent && commander_out[s] && strikes {
                    true => SPENT_ROLL,
                    false => rolls[s],
                }
            });
            // PCs a Catastrophe 17/18 struck today, and those it wounded; a
            // PC army commander it leaves unconscious is out for today's
            // contest too.
            let mut out_today = [false; MAX_HEROES];
            let mut wounded_today = [false; MAX_HEROES];
            let mut contest_out = commander_out;
            for (s, roll) in rolls.into_iter().enumerate() {
                if self.catastrophe[(roll - 3) as usize].harms_leaders {
                    // A roll of the table: the spent row harms no one.
                    let row = &t.catastrophe[(roll - 3) as usize];
                    let struck = (&mut out_today[..], &mut wounded_today[..]);
                    let pcs = (&mut heroes[..], &mut lost[..]);
                    catastrophe::strike_leaders_fast(rules, numbers, s, row, pcs, struck);
                    contest_out[s] |= self.commander_down(&heroes, s);
                }
            }
            let start = if day == 0 && contest_out == [false; 2] {
                self.strategy.first_day[((rolls[0] - 3) * 16 + rolls[1] - 3) as usize]
            } else {
                strategy::day_start(rules, &self.catastrophe, rolls, troops, carry, contest_out)
            };
            troops = start.troops;
            // 2. Strategy contest.
            let dice: [i64; 2] = std::array::from_fn(|s| {
                inverse::three_d6(numbers.half(address::STRATEGY + s as u32))
            });
            let mut victory =
                quick_contest(start.skill[0] - dice[0], start.skill[1] - dice[1]);
            let mov = victory.abs();
            // 0 or 1: that side won the day; 2: a tie. Arithmetic, not a
            // match: the winner is a toss a branch would miss.
            let mut winner = usize::from(victory < 0) + 2 * usize::from(victory == 0);
            // 3. Each PC's Survival and Glory, and the Strategy his Glory
            // would give tomorrow; under `same_day`, the leaders who fall.
            let mut glory_strategy = [0i64; MAX_HEROES];
            let mut fell = Fallen::default();
            for (i, h) in rules.heroes.iter().enumerate() {
                // Out before today, captured, or killed today: no rolls.
                // Downed today by a Catastrophe 15/16 wound: he still rolls.
                let down_before = heroes[i].state >= State::Down && !wounded_today[i];
                if out_today[i] || down_before || heroes[i].captured {
                    continue;
                }
                let penalty = survival::penalty(winner, h.side, mov) as usize;
                let pc = address::pc(numbers, i);
                let standing = heroes[i].state < State::Down;
                glory_strategy[i] =
                    self.pc_day(rules, pc, i, penalty, &mut heroes[i], &mut lost[i]);
                if same_day && standing && heroes[i].state >= State::Down {
                    fell.note(h, contest_out);
                }
            }
            // A PC army commander who fell halves his side's Strategy for
            // the day's final roll: the contest settled again on its dice.
            if fell.commander != [false; 2] {
                let skill: [i64; 2] = std::array::from_fn(|s| {
                    let side = rules.sides[s].strategy;
                    start.skill[s] - i64::from(fell.commander[s]) * strategy::halving(side)
                });
                victory = quick_contest(skill[0] - dice[0], skill[1] - dice[1]);
                winner = usize::from(victory < 0) + 2 * usize::from(victory == 0);
            }
            days_won[winner] += 1;
            margin_sum += victory;
            result = self.strategy.result_by_margin[victory.abs().min(MARGIN_SPAN) as usize];
            // 4. Casualties and Morale: a side whose commander or PC unit
            // leaders were out when the day began (or, under `same_day`,
            // fell in it) fights without their Morale too.
            for s in 0..2 {
                let effect = &self.catastrophe[(rolls[s] - 3) as usize];
                let side = &rules.sides[s];
                let morale = side.morale
                    + self.out_morale * i64::from(commander_out[s] || fell.commander[s])
                    + self.leader_out_morale * (leaders_out[s] + fell.unit_leaders[s]);
                let signed = [victory, -victory][s];
                let share = self
                    .casualties
                    .draw(numbers, s, t, (side, morale), signed, effect);
                let loss = troops[s] * share;
                troops[s] -= loss;
                casualties[s] += loss;
            }
            // The defender's ground after the last day, its units' Morale
            // that of the day's start with its Catastrophe's.
            if let Some(d) = rules.defender
                && day + 1 == rules.days
            {
                let morale = rules.sides[d].morale
                    + self.out_morale * i64::from(commander_out[d])
                    + self.leader_out_morale * leaders_out[d]
                    + self.catastrophe[(rolls[d] - 3) as usize].morale;
                let rule = t.battle_results[result as usize].ground;
                let units = rules.sides[d].major_units;
                ground = ground::fate_fast(winner == 1 - d, rule, morale, units, address::units(numbers));
            }
            // An army commander killed by Catastrophe, or a PC commander
            // down or dead, halves his side's Strategy on the days after.
            for (s, roll) in rolls.into_iter().enumerate() {
                commander_out[s] |= self.catastrophe[(roll - 3) as usize].commander_killed;
            }
            // An overwhelming victory captures the loser's commander: out
            // on the days after, and a PC commander out of the battle.
            if winner < 2 && t.battle_results[result as usize].captures_commander {
                // A PC commander taken alive is out of the battle.
                if let Some(i) = self.army_commander[1 - winner] {
                    heroes[i].captured |= heroes[i].state != State::Dead;
                }
                commander_out[1 - winner] = true;
            }
            for (s, out) in commander_out.iter_mut().enumerate() {
                *out |= self.commander_down(&heroes, s);
            }
            // Glory's Strategy applies only if the PC commands a unit: not
            // one down, dead or taken at the day's end. A PC unit leader
            // down or dead costs his side Morale on the days after.
            carry = [0, 0];
            leaders_out = [0, 0];
            for (i, h) in rules.heroes.iter().enumerate() {
                if heroes[i].state < State::Down && !heroes[i].captured {
                    carry[h.side] += glory_strategy[i];
                } else if h.role == Role::UnitCommander {
                    leaders_out[h.side] += 1;
                }
            }
        }
        for (i, h) in heroes.iter_mut().enumerate().take(n) {
            h.hp_lost = lost[i] as u16;
        }
        // More days won, else the larger total margin, else a draw; by
        // arithmetic, as the winner is a toss a branch would miss.
        let lead = i64::from(days_won[0]) - i64::from(days_won[1]);
        let decider = std::hint::select_unpredictable(lead != 0, lead, margin_sum);
        let winner = u8::from(decider < 0) + 2 * u8::from(decider == 0);
        let pct = |s: usize| casualty_percent(casualties[s], rules.sides[s].percent_per_troop);
        BattleOutcome {
            winner,
            result,
            casualties_pct: [pct(0), pct(1)],
            catastrophe: first_catastrophe,
            heroes,
            ground: ground as u8,
        }
    }

    /// Whether side `s`'s army commander is a PC now down or dead.
    #[inline(always)]
    fn commander_down(&self, heroes: &[HeroOutcome], s: usize) -> bool {
        self.army_commander[s].is_some_and(|i| heroes[i].state >= State::Down)
    }

    /// PC `i`'s Survival roll (with the losing side's `penalty`) and its
    /// injury, then his Glory roll (made even if he died), each from his
    /// own numbers of the day. Returns the Strategy his Glory would give
    /// his side tomorrow, if he still commands then.
    #[inline(always)]
    fn pc_day(
        &self,
        rules: &BattleRules,
        numbers: Decisions,
        i: usize,
        penalty: usize,
        outcome: &mut HeroOutcome,
        lost: &mut i64,
    ) -> i64 {
        let h = &rules.heroes[i];
        let (row, damage) = self.survival[i].draw(penalty, numbers.half(address::SURVIVAL), || {
            numbers.half(address::DAMAGE)
        });
        let ht_roll = |k| inverse::three_d6(numbers.half(address::SURVIVAL_HT + k));
        let (l, state) = injure_fast(ht_roll, (h.hp, h.ht), *lost, damage, outcome.state);
        *lost = l;
        outcome.state = state;
        outcome.survival = outcome.survival.max(row as u8 + 1);
        let glory_roll = inverse::three_d6(numbers.half(address::GLORY));
        let gain = self.glory[i][glory_roll as usize];
        outcome.glory = gain.row + 1;
        outcome.reputation += gain.reputation;
        gain.strategy
    }
}

//! One GURPS mass battle, day by day: Catastrophe, Strategy contest, each
//! PC's Survival and Glory, casualties and Morale (docs/rules.md §2).

use rand::Rng;

use super::exact::three_d6_distribution;
use super::scenario::{Armour, MAX_HEROES, Quality, Role};
use super::success::{Check, check, quick_contest};
use super::tables::{CatastropheRow, Column, GurpsTables, LeaderHarm, MarginBand};
use crate::dice::{AliasTable, Digits};

/// Final state of a PC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
#[repr(u8)]
pub enum State {
    /// No HP lost.
    #[default]
    Unhurt,
    /// HP lost, still above 0 HP.
    Wounded,
    /// At or below 0 HP and still conscious (made every HT roll so far).
    AtOrBelowZeroHp,
    /// Unconscious.
    Down,
    /// Dead.
    Dead,
}

impl State {
    /// Labels in reporting order.
    pub const LABELS: [&'static str; 5] = ["unhurt", "wounded", "at_or_below_0hp", "down", "dead"];
    /// Every state, in that order.
    pub const ALL: [State; 5] = [
        State::Unhurt,
        State::Wounded,
        State::AtOrBelowZeroHp,
        State::Down,
        State::Dead,
    ];
}

/// What happened to one PC.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeroOutcome {
    /// 0: never rolled; otherwise 1 + the worst Survival row reached.
    pub survival: u8,
    /// HP lost over the battle.
    pub hp_lost: u16,
    /// Final state.
    pub state: State,
    /// 0: never rolled; otherwise 1 + the last Glory row.
    pub glory: u8,
    /// Reputation gained (negative: lost).
    pub reputation: i16,
}

/// What one battle produced.
#[derive(Debug, Clone, Copy)]
pub struct BattleOutcome {
    /// 0 or 1: that side won; 2: draw.
    pub winner: u8,
    /// Battle-result row of the last day.
    pub result: u8,
    /// Percent of initial Troop Strength lost, per side.
    pub casualties_pct: [u8; 2],
    /// First day's Catastrophe roll per side (3..18).
    pub catastrophe: [u8; 2],
    /// Per PC, in scenario order.
    pub heroes: [HeroOutcome; MAX_HEROES],
}

/// A side, resolved for simulation.
#[derive(Debug, Clone)]
pub struct SideRules {
    /// Base Strategy skill.
    pub strategy: i64,
    /// Initial Troop Strength.
    pub troop_strength: f64,
    /// 100 / initial Troop Strength.
    pub percent_per_troop: f64,
    /// Tech Level.
    pub tech_level: i64,
    /// Fixed modifiers: TL advantage, class superiority, GM modifier and,
    /// for the attacker, the defender's position.
    pub fixed_modifier: i64,
    /// Commander's Luck on the Catastrophe roll.
    pub commander_luck: bool,
    /// Added to this side's Catastrophe roll.
    pub catastrophe_modifier: i64,
    /// Casualty rows toward less loss.
    pub armour_rows: i64,
    /// Base Morale.
    pub morale: i64,
    /// Major units a catastrophe can strike.
    pub major_units: u32,
}

/// A PC, resolved for simulation.
#[derive(Debug, Clone)]
pub struct HeroRules {
    /// Side index.
    pub side: usize,
    /// Role.
    pub role: Role,
    /// Combat skill before Risk, penalties and the cap.
    pub combat_skill: i64,
    /// Risk.
    pub risk: i64,
    /// Luck on Survival.
    pub luck: bool,
    /// Hit Points.
    pub hp: i64,
    /// Health.
    pub ht: i64,
    /// Major-unit index if a unit commander.
    pub major_unit: Option<u32>,
    /// Dice and adds of the enemy's hits: [A/B dice, A/B add, C/D dice, C/D add].
    pub enemy_hit: [i64; 4],
    /// DR against the enemy's weapons (divided for high TL).
    pub dr: i64,
    /// His own DR, undivided: a Catastrophe's wound is no enemy weapon.
    pub own_dr: i64,
    /// Survival row for each 3d6 roll, by losing-side penalty (0..=MAX_PENALTY).
    pub survival_by_roll: Vec<[u8; 19]>,
    /// Glory row for each 3d6 roll.
    pub glory_by_roll: [u8; 19],
}

/// The losing side's PCs take −1 on Survival per this many points of the
/// margin of victory [stand-in].
pub const LOSING_PENALTY_STEP: i64 = 4;

/// Largest losing-side penalty tabulated; larger ones read the last table.
pub const MAX_PENALTY: usize = 40;

/// The row of every 3d6 roll against `skill` in a best-first margin table.
pub fn rows_by_roll(rows: &[impl MarginBand], skill: i64) -> [u8; 19] {
    let mut out = [0u8; 19];
    for (roll, slot) in out.iter_mut().enumerate().skip(3) {
        *slot = margin_row(rows, check(skill, roll as i64)) as u8;
    }
    out
}

/// The whole battle, resolved.
#[derive(Debug, Clone)]
pub struct BattleRules {
    /// The two sides.
    pub sides: [SideRules; 2],
    /// The PCs.
    pub heroes: Vec<HeroRules>,
    /// Days.
    pub days: u32,
    /// Tables.
    pub tables: GurpsTables,
    /// Battle-result row by margin of victory 0..=MARGIN_SPAN.
    pub result_by_margin: Vec<u8>,
    /// Casualty row by signed margin −MARGIN_SPAN..=MARGIN_SPAN.
    pub casualty_by_margin: Vec<u8>,
    /// Per PC: Survival row and HP lost, drawn together.
    pub survival_draws: Vec<SurvivalDraws>,
    /// Per casualties row: the percent lost (dice + add, at most 100).
    pub casualty_pct: Vec<AliasTable>,
    /// Per Catastrophe roll 3..=18: its row's effects.
    pub catastrophe_effects: Vec<CatastropheEffect>,
    /// Per PC, per 3d6 roll: what his Glory roll brings.
    pub glory_gains: Vec<[GloryGain; 19]>,
    /// The first day's start for each pair of Catastrophe rolls,
    /// 16 × (side 0's roll − 3) + side 1's roll − 3.
    pub first_day: Vec<DayStart>,
}

/// What a PC's Glory roll brings.
#[derive(Debug, Clone, Copy, Default)]
pub struct GloryGain {
    /// The Glory row.
    pub row: u8,
    /// Reputation gained (negative: lost).
    pub reputation: i16,
    /// Strategy for his side's next day: a unit commander's row's Strategy;
    /// an army commander's, one more if any.
    pub strategy: i64,
}

/// A Catastrophe row's effects, in the form the battle loop applies them
/// unconditionally (a factor of exactly 1 for no change in Troop Strength),
/// since which row comes up is a toss a branch would miss.
#[derive(Debug, Clone, Copy)]
pub struct CatastropheEffect {
    /// Modifier to the side's Strategy roll.
    pub strategy: i64,
    /// Morale modifier.
    pub morale: i64,
    /// Morale +N on a made Morale roll, −N on a failed one (atrocity).
    pub morale_by_roll: i64,
    /// Factor on the enemy's Troop Strength.
    pub enemy_factor: f64,
    /// Factor on the side's own Troop Strength.
    pub own_factor: f64,
    /// The army commander is killed: base Strategy halved.
    pub commander_killed: bool,
    /// The army commander or a major unit's leader is harmed.
    pub harms_leaders: bool,
}

impl CatastropheEffect {
    /// The effects of a row.
    pub fn new(row: &CatastropheRow) -> CatastropheEffect {
        CatastropheEffect {
            strategy: row.strategy,
            morale: row.morale_all,
            morale_by_roll: row.morale_by_roll,
            enemy_factor: 1.0 + row.enemy_ts_pct as f64 / 100.0,
            own_factor: 1.0 - row.own_ts_pct as f64 / 100.0,
            commander_killed: row.commander == LeaderHarm::Killed,
            harms_leaders: row.commander != LeaderHarm::None
                || row.major_leader != LeaderHarm::None,
        }
    }
}

/// The law of the HP each Survival column's hits take from a PC, columns A
/// to D: the enemy's TL dice, each hit through his DR.
pub fn column_damage(tables: &GurpsTables, hero: &HeroRules) -> [Vec<f64>; 4] {
    let hits = tables.damage.hits;
    let [a_dice, a_add, c_dice, c_add] = hero.enemy_hit;
    [
        damage_distribution(hits.A, a_dice, a_add, hero.dr),
        damage_distribution(hits.B, a_dice, a_add, hero.dr),
        damage_distribution(hits.C, c_dice, c_add, hero.dr),
        damage_distribution(hits.D, c_dice, c_add, hero.dr),
    ]
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
        for (penalty, by_roll) in hero.survival_by_roll.iter().enumerate() {
            if let Some(i) = seen.iter().position(|s| s == by_roll) {
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
            seen.push(*by_roll);
            draws.tables.push(AliasTable::labelled(&weights, &labels));
            draws
                .unhurt
                .push(AliasTable::labelled(&unhurt_weights, &unhurt_labels));
        }
        draws
    }

    /// Draws (Survival row, HP lost) for a losing-side penalty.
    #[inline(always)]
    pub fn draw<R: Rng + ?Sized>(&self, penalty: usize, rng: &mut R) -> (usize, i64) {
        let table = &self.tables[self.by_penalty[penalty.min(MAX_PENALTY)] as usize];
        let label = table.draw(rng);
        (label & 0xFF, (label >> 8) as i64)
    }

    /// Draws (Survival row, HP lost, state after) for an unhurt PC.
    #[inline(always)]
    pub fn draw_unhurt<R: Rng + ?Sized>(&self, penalty: usize, rng: &mut R) -> (usize, i64, State) {
        let table = &self.unhurt[self.by_penalty[penalty.min(MAX_PENALTY)] as usize];
        let label = table.draw(rng);
        let state = State::ALL[label >> 24];
        (label & 0xFF, (label >> 8 & 0xFFFF) as i64, state)
    }
}

/// Margins tabulated each way; beyond it the last rows apply.
pub const MARGIN_SPAN: i64 = 127;

impl BattleRules {
    /// Tabulates the per-margin lookups.
    pub fn new(
        sides: [SideRules; 2],
        heroes: Vec<HeroRules>,
        days: u32,
        tables: GurpsTables,
    ) -> Self {
        let result_by_margin = (0..=MARGIN_SPAN)
            .map(|m| tables.result_row(m) as u8)
            .collect();
        let casualty_by_margin = (-MARGIN_SPAN..=MARGIN_SPAN)
            .map(|m| tables.casualty_row(m) as u8)
            .collect();
        let survival_draws = heroes
            .iter()
            .map(|h| SurvivalDraws::new(&tables, h))
            .collect();
        let casualty_pct = tables
            .casualties
            .rows
            .iter()
            .map(|r| {
                let mut pct = damage_distribution(1, r.dice, r.add, 0);
                if pct.len() > 101 {
                    let beyond: f64 = pct[100..].iter().sum();
                    pct.truncate(101);
                    pct[100] = beyond;
                }
                AliasTable::new(&pct)
            })
            .collect();
        let mut rules = BattleRules {
            catastrophe_effects: tables
                .catastrophe
                .iter()
                .map(CatastropheEffect::new)
                .collect(),
            first_day: Vec::new(),
            glory_gains: heroes
                .iter()
                .map(|h| {
                    h.glory_by_roll.map(|g| {
                        let row = &tables.glory[g as usize];
                        GloryGain {
                            row: g,
                            reputation: row.reputation as i16,
                            strategy: match h.role {
                                Role::Soldier => 0,
                                Role::UnitCommander => row.strategy,
                                Role::ArmyCommander if row.strategy != 0 => row.strategy + 1,
                                Role::ArmyCommander => 0,
                            },
                        }
                    })
                })
                .collect(),
            casualty_pct,
            survival_draws,
            sides,
            heroes,
            days,
            tables,
            result_by_margin,
            casualty_by_margin,
        };
        let initial = [rules.sides[0].troop_strength, rules.sides[1].troop_strength];
        rules.first_day = (0..256)
            .map(|i| rules.day_start([3 + i / 16, 3 + i % 16], initial, [0; 2], [false; 2]))
            .collect();
        rules
    }
}

/// `k / 100` for k = 0..=100, so the hot loop multiplies instead of dividing.
const PERCENT: [f64; 101] = {
    let mut p = [0.0; 101];
    let mut k = 0;
    while k <= 100 {
        p[k] = k as f64 / 100.0;
        k += 1;
    }
    p
};

/// Whole percent of the initial Troop Strength that `lost` is, rounded
/// down, given `percent_per_troop` = 100 / initial (a multiply where the
/// battle loop would divide). A loss of exactly k% computes as k − 1e-14 or
/// so in floating point; the tolerance keeps it at k (no real loss is that
/// close below a whole percent).
#[inline]
pub fn casualty_percent(lost: f64, percent_per_troop: f64) -> u8 {
    (lost * percent_per_troop + 1e-9).clamp(0.0, 100.0) as u8
}

/// The cap on effective Combat skill.
pub const COMBAT_CAP: i64 = 16;

/// A side beaten by at least this margin rolls Morale and routs on a failure [stand-in].
pub const ROUT_MARGIN: i64 = 13;

/// Resolves a 3d6 roll with or without Luck (three rolls, lowest kept).
#[inline(always)]
fn roll_3d6<R: Rng>(dice: &mut Digits<R>, luck: bool) -> i64 {
    let first = dice.three_d6();
    if luck {
        first.min(dice.three_d6()).min(dice.three_d6())
    } else {
        first
    }
}

/// Armour class → casualty rows.
pub fn armour_rows(tables: &GurpsTables, armour: Armour) -> i64 {
    let a = tables.casualties.armour_rows;
    match armour {
        Armour::None => a.none,
        Armour::Light => a.light,
        Armour::Spearmen => a.spearmen,
        Armour::Medium => a.medium,
        Armour::Heavy => a.heavy,
    }
}

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

/// Relative slack on ratio boundaries: Troop Strengths cut by the same
/// percent can come out a rounding error above a boundary they sit on
/// (2100 × 0.7 / (700 × 0.7) = 3.0000000000000004).
const RATIO_SLACK: f64 = 1e-12;

/// The Troop Strength ratio bonus of the larger side.
pub fn ratio_bonus(tables: &GurpsTables, ratio: f64, tl_lead: i64) -> i64 {
    let s = &tables.strategy;
    match s
        .ts_ratio
        .iter()
        .find(|r| ratio <= r.max_ratio * (1.0 + RATIO_SLACK))
    {
        Some(row) => row.bonus,
        None => {
            let last = s.ts_ratio.last().expect("rows checked").max_ratio;
            if tl_lead > s.uncapped_tl_lead {
                let decades = (ratio / last * (1.0 + RATIO_SLACK)).log10().floor();
                s.ts_ratio_beyond + decades.max(0.0) as i64
            } else {
                s.ts_ratio_beyond
            }
        }
    }
}

/// HP lost and state after taking `damage`: death checks at −HT and each
/// further multiple, dead at −5×HT, a consciousness roll at 0 HP or below.
/// Inlined, as everything a battle hands its generator to
/// ([`crate::engine::System::simulate`]).
#[inline(always)]
pub fn injure<R: Rng>(
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

/// The row of a roll in a best-first margin table, criticals first.
fn margin_row(rows: &[impl MarginBand], c: Check) -> usize {
    if c.critical_success {
        0
    } else if c.critical_failure {
        rows.len() - 1
    } else {
        GurpsTables::margin_row(rows, c.margin)
    }
}

/// What a day's Catastrophe rolls leave before the Strategy contest.
#[derive(Debug, Clone, Copy)]
pub struct DayStart {
    /// Each side's effective Strategy skill.
    pub skill: [i64; 2],
    /// Troop Strengths after the Catastrophe.
    pub troops: [f64; 2],
}

impl BattleRules {
    /// The sides' skills and Troop Strengths after Catastrophe
    /// `rolls`, from the day's Troop Strengths, the Strategy `carry` of the
    /// PCs' Glory and whether each army commander is out.
    pub fn day_start(
        &self,
        rolls: [i64; 2],
        mut troops: [f64; 2],
        carry: [i64; 2],
        commander_out: [bool; 2],
    ) -> DayStart {
        let mut strategy_mod = carry;
        let mut halved = commander_out;
        for (s, roll) in rolls.into_iter().enumerate() {
            let effect = &self.catastrophe_effects[(roll - 3) as usize];
            strategy_mod[s] += effect.strategy;
            troops[1 - s] *= effect.enemy_factor;
            troops[s] *= effect.own_factor;
            halved[s] |= effect.commander_killed;
        }
        let (large, small) = if troops[0] >= troops[1] {
            (0, 1)
        } else {
            (1, 0)
        };
        let ratio = troops[large] / troops[small].max(f64::MIN_POSITIVE);
        let tl_lead = self.sides[large].tech_level - self.sides[small].tech_level;
        let ts_bonus = ratio_bonus(&self.tables, ratio, tl_lead);
        let skill = [0, 1].map(|s| {
            let side = &self.sides[s];
            let base = if halved[s] {
                (side.strategy + 1) / 2
            } else {
                side.strategy
            };
            let bonus = if s == large { ts_bonus } else { 0 };
            base + strategy_mod[s] + side.fixed_modifier + bonus
        });
        DayStart { skill, troops }
    }

    /// Side `s`'s Catastrophe roll, 3 to 18.
    #[inline(always)]
    fn catastrophe_roll<R: Rng>(&self, dice: &mut Digits<R>, s: usize) -> i64 {
        let side = &self.sides[s];
        (roll_3d6(dice, side.commander_luck) + side.catastrophe_modifier).clamp(3, 18)
    }

    /// Catastrophe `row` striking side `s`'s leaders: the army commander,
    /// and the leader of one major unit picked at random, if PCs; marks
    /// those it kills and those it wounds. Out of line: few days strike a
    /// leader, and the battle loop stays small without it.
    #[cold]
    #[inline(never)]
    fn harm_leaders<R: Rng>(
        &self,
        dice: &mut Digits<R>,
        s: usize,
        row: &CatastropheRow,
        (heroes, lost): (&mut [HeroOutcome], &mut [i64]),
        (killed, wounded): (&mut [bool], &mut [bool]),
    ) {
        let struck_unit = if row.major_leader != LeaderHarm::None {
            Some(dice.below(self.sides[s].major_units))
        } else {
            None
        };
        for (i, h) in self.heroes.iter().enumerate() {
            if h.side != s || heroes[i].state >= State::Down {
                continue;
            }
            let harm = match h.role {
                Role::ArmyCommander => row.commander,
                Role::UnitCommander if struck_unit.is_some() && struck_unit == h.major_unit => {
                    row.major_leader
                }
                _ => LeaderHarm::None,
            };
            match harm {
                LeaderHarm::None => {}
                LeaderHarm::Wounded => {
                    let damage = (dice.sum_d6(2) - h.own_dr).max(0);
                    let (l, st) = injure(dice, h.hp, h.ht, lost[i], damage, heroes[i].state);
                    lost[i] = l;
                    heroes[i].state = st;
                    wounded[i] = true;
                }
                LeaderHarm::Killed => {
                    // A PC is wounded (the 2d of 15/16 [stand-in]) and
                    // left unconscious.
                    let damage = (dice.sum_d6(2) - h.own_dr).max(0);
                    let (l, st) = injure(dice, h.hp, h.ht, lost[i], damage, heroes[i].state);
                    lost[i] = l;
                    heroes[i].state = st.max(State::Down);
                    killed[i] = true;
                    // Rolls missed on any day read `no_roll`.
                    heroes[i].survival = 0;
                    heroes[i].glory = 0;
                }
            }
        }
    }

    /// Fights the whole battle. Inlined into the chunk loop, so the outcome
    /// is counted where it was built instead of being copied out first.
    #[inline(always)]
    pub fn fight<R: Rng + Clone>(&self, rng: &mut R) -> BattleOutcome {
        crate::engine::on_local_copy(rng, |rng| self.fight_inline(rng))
    }

    /// [`BattleRules::fight`]'s body, inlined into it.
    #[inline(always)]
    fn fight_inline<R: Rng>(&self, rng: &mut R) -> BattleOutcome {
        let dice = &mut Digits::new(rng);
        let t = &self.tables;
        let n = self.heroes.len();
        let mut heroes = [HeroOutcome::default(); MAX_HEROES];
        let mut lost = [0i64; MAX_HEROES];
        let mut troops = [self.sides[0].troop_strength, self.sides[1].troop_strength];
        let mut casualties = [0.0f64; 2];
        let mut carry = [0i64; 2];
        let mut commander_out = [false; 2];
        // Days won by each side, and ties.
        let mut days_won = [0u32; 3];
        let mut margin_sum = 0i64;
        let mut first_catastrophe = [0u8; 2];
        let mut result = 0u8;
        for day in 0..self.days {
            // 1. Catastrophe.
            let rolls = [
                self.catastrophe_roll(dice, 0),
                self.catastrophe_roll(dice, 1),
            ];
            let start = if day == 0 {
                first_catastrophe = rolls.map(|r| r as u8);
                self.first_day[((rolls[0] - 3) * 16 + rolls[1] - 3) as usize]
            } else {
                self.day_start(rolls, troops, carry, commander_out)
            };
            troops = start.troops;
            // PCs a Catastrophe 17/18 struck today, and those it wounded.
            let mut out_today = [false; MAX_HEROES];
            let mut wounded_today = [false; MAX_HEROES];
            for (s, roll) in rolls.into_iter().enumerate() {
                if self.catastrophe_effects[(roll - 3) as usize].harms_leaders {
                    let row = &t.catastrophe[(roll - 3) as usize];
                    let struck = (&mut out_today[..], &mut wounded_today[..]);
                    self.harm_leaders(dice, s, row, (&mut heroes, &mut lost), struck);
                }
            }
            // 2. Strategy contest.
            let margins = [
                start.skill[0] - dice.three_d6(),
                start.skill[1] - dice.three_d6(),
            ];
            let victory = quick_contest(margins[0], margins[1]);
            let mov = victory.abs();
            // 0 or 1: that side won the day; 2: a tie. Arithmetic, not a
            // match: the winner is a toss a branch would miss.
            let winner = usize::from(victory < 0) + 2 * usize::from(victory == 0);
            days_won[winner] += 1;
            margin_sum += victory;
            result = self.result_by_margin[mov.min(MARGIN_SPAN) as usize];
            // 3. Each PC's Survival and Glory.
            let mut next_carry = [0i64; 2];
            for (i, h) in self.heroes.iter().enumerate() {
                // Out before today, or killed today: no rolls. Downed today
                // by a Catastrophe 15/16 wound: he still rolls.
                if out_today[i] || (heroes[i].state >= State::Down && !wounded_today[i]) {
                    continue;
                }
                let losing = winner < 2 && winner != h.side;
                let penalty = if losing {
                    (mov / LOSING_PENALTY_STEP) as usize
                } else {
                    0
                };
                next_carry[h.side] += self.pc_day(dice, i, penalty, &mut heroes[i], &mut lost[i]);
            }
            // 4. Casualties and Morale.
            for s in 0..2 {
                let pct = self.casualty_draw(dice, s, [victory, -victory][s], rolls[s]);
                let loss = troops[s] * PERCENT[pct];
                troops[s] -= loss;
                casualties[s] += loss;
            }
            carry = next_carry;
            // An army commander killed by Catastrophe, or a PC commander
            // down or dead, halves his side's Strategy on the days after.
            for (s, roll) in rolls.into_iter().enumerate() {
                commander_out[s] |= self.catastrophe_effects[(roll - 3) as usize].commander_killed;
            }
            // A commander captured by an overwhelming victory counts as
            // killed on the days after (a test only battles of several days
            // make; bitwise, as the winner is a toss a branch would miss).
            if self.days > 1 && (winner < 2) & t.battle_results[result as usize].captures_commander
            {
                commander_out[1 - winner] = true;
            }
            for (i, h) in self.heroes.iter().enumerate() {
                if h.role == Role::ArmyCommander && heroes[i].state >= State::Down {
                    commander_out[h.side] = true;
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
        let pct = |s: usize| casualty_percent(casualties[s], self.sides[s].percent_per_troop);
        BattleOutcome {
            winner,
            result,
            casualties_pct: [pct(0), pct(1)],
            catastrophe: first_catastrophe,
            heroes,
        }
    }

    /// PC `i`'s Survival roll (with the losing side's `penalty`) and its
    /// injury, then his Glory roll (made even if he died). Returns the
    /// Strategy his Glory gives his side tomorrow.
    #[inline(always)]
    fn pc_day<R: Rng>(
        &self,
        dice: &mut Digits<R>,
        i: usize,
        penalty: usize,
        outcome: &mut HeroOutcome,
        lost: &mut i64,
    ) -> i64 {
        let h = &self.heroes[i];
        let draws = &self.survival_draws[i];
        let row = if *lost == 0 && outcome.state == State::Unhurt {
            let (row, damage, state) = draws.draw_unhurt(penalty, dice.rng());
            *lost = damage;
            outcome.state = state;
            row
        } else {
            let (row, damage) = draws.draw(penalty, dice.rng());
            let (l, st) = injure(dice, h.hp, h.ht, *lost, damage, outcome.state);
            *lost = l;
            outcome.state = st;
            row
        };
        outcome.survival = outcome.survival.max(row as u8 + 1);
        let gain = self.glory_gains[i][dice.three_d6() as usize];
        outcome.glory = gain.row + 1;
        outcome.reputation += gain.reputation;
        gain.strategy
    }

    /// The casualty percentage (an index into [`PERCENT`]) side `s` draws
    /// for the day's `signed` margin (its own view) after Catastrophe
    /// `roll`: the margin's row, shifted by armour and, if it routs after a
    /// failed Morale roll, by rout dice toward more loss.
    #[inline(always)]
    fn casualty_draw<R: Rng>(
        &self,
        dice: &mut Digits<R>,
        s: usize,
        signed: i64,
        roll: i64,
    ) -> usize {
        let t = &self.tables;
        let rows = t.casualties.rows.len() as i64;
        let index = (signed.clamp(-MARGIN_SPAN, MARGIN_SPAN) + MARGIN_SPAN) as usize;
        let mut row = self.casualty_by_margin[index] as i64 + self.sides[s].armour_rows;
        if signed <= -ROUT_MARGIN {
            let catastrophe = &self.catastrophe_effects[(roll - 3) as usize];
            let mut morale = self.sides[s].morale + catastrophe.morale;
            if catastrophe.morale_by_roll != 0 {
                // Its Morale roll, made now since only the rout reads it.
                let made = check(morale, dice.three_d6()).success;
                morale += if made {
                    catastrophe.morale_by_roll
                } else {
                    -catastrophe.morale_by_roll
                };
            }
            if !check(morale, dice.three_d6()).success {
                row -= dice.sum_d6(t.casualties.rout_dice as u32);
            }
        }
        self.casualty_pct[row.clamp(0, rows - 1) as usize].draw(dice.rng())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// A soldier PC with Combat skill `skill` (Risk 0) and (HP, HT, DR).
    fn soldier(
        t: &GurpsTables,
        skill: i64,
        luck: bool,
        (hp, ht, dr): (i64, i64, i64),
    ) -> HeroRules {
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
            survival_by_roll: (0..=MAX_PENALTY as i64)
                .map(|penalty| rows_by_roll(&t.survival, skill - penalty))
                .collect(),
            glory_by_roll: rows_by_roll(&t.glory, skill),
        }
    }

    #[test]
    fn injuries_follow_the_thresholds() {
        let mut source = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut rng = Digits::new(&mut source);
        // No damage: nothing changes.
        assert_eq!(
            injure(&mut rng, 10, 10, 0, 0, State::Unhurt),
            (0, State::Unhurt)
        );
        // Damage above 0 HP: wounded, no rolls.
        assert_eq!(
            injure(&mut rng, 10, 10, 0, 5, State::Unhurt),
            (5, State::Wounded)
        );
        // To −5×HT: dead outright.
        assert_eq!(
            injure(&mut rng, 10, 10, 0, 60, State::Unhurt),
            (60, State::Dead)
        );
        // At −HT exactly: one death check.
        let mut dead = 0;
        for _ in 0..10_000 {
            let (_, s) = injure(&mut rng, 10, 3, 0, 13, State::Unhurt);
            assert_ne!(s, State::Unhurt);
            dead += (s == State::Dead) as u32;
        }
        // HT 3: success only on 3 (1/216) or 4 (3/216): dies with 212/216.
        let p = dead as f64 / 10_000.0;
        assert!((p - 212.0 / 216.0).abs() < 0.01, "{p}");
    }

    #[test]
    fn injury_law_matches_injuries_rolled() {
        let mut source = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut dice = Digits::new(&mut source);
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
            let exact: std::collections::BTreeMap<State, f64> = State::ALL
                .into_iter()
                .zip(injury_law(hp, ht, lost, damage, state))
                .filter(|(_, p)| *p > 0.0)
                .collect();
            let mut seen = std::collections::BTreeMap::new();
            for _ in 0..n {
                *seen
                    .entry(injure(&mut dice, hp, ht, lost, damage, state).1)
                    .or_default() += 1;
            }
            crate::stats::assert_counts_follow(&exact, &seen, n, &format!("{case:?}"));
        }
    }

    #[test]
    fn an_unhurt_pcs_draw_matches_survival_then_injury_rolled() {
        let t = GurpsTables::load(&Default::default(), std::path::Path::new(".")).unwrap();
        let mut source = Xoshiro256PlusPlus::seed_from_u64(9);
        let mut dice = Digits::new(&mut source);
        for (skill, luck, hp, ht, dr) in [(15, false, 10, 10, 2), (9, true, 8, 9, 0)] {
            let mut hero = soldier(&t, skill, luck, (hp, ht, dr));
            hero.enemy_hit = [2, 1, 3, 2];
            let draws = SurvivalDraws::new(&t, &hero);
            for penalty in [0, 3] {
                let table = &draws.unhurt[draws.by_penalty[penalty] as usize];
                let exact: std::collections::BTreeMap<u32, f64> = table.probabilities();
                let n = 200_000;
                let mut seen = std::collections::BTreeMap::new();
                for _ in 0..n {
                    let (row, damage) = draws.draw(penalty, dice.rng());
                    let (_, state) = injure(&mut dice, hp, ht, 0, damage, State::Unhurt);
                    let label = survival_label(row, damage as usize, state);
                    *seen.entry(label).or_default() += 1;
                }
                let what = format!("skill {skill}, penalty {penalty}");
                crate::stats::assert_counts_follow(&exact, &seen, n, &what);
            }
        }
    }

    #[test]
    fn damage_distribution_matches_every_roll_enumerated() {
        // 2 hits of 2d6 − 1 through DR 3: all 6^4 rolls.
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

    #[test]
    fn survival_draws_keep_the_exact_row_odds() {
        let t = GurpsTables::load(&Default::default(), std::path::Path::new(".")).unwrap();
        for (skill, luck) in [(15, false), (12, true), (8, false)] {
            let hero = soldier(&t, skill, luck, (10, 10, 2));
            let draws = SurvivalDraws::new(&t, &hero);
            let exact = super::super::exact::category_distribution(&t.survival, skill, luck);
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
    fn a_loss_of_exactly_k_percent_reports_k() {
        for initial in [100.0, 800.0, 1200.0, 1234.0, 990.0, 1320.0, 1e6] {
            for (k, share) in PERCENT.iter().enumerate() {
                let lost = initial * share;
                assert_eq!(
                    casualty_percent(lost, 100.0 / initial),
                    k as u8,
                    "{k}% of {initial}"
                );
            }
        }
        assert_eq!(casualty_percent(29.9, 1.0), 29);
        assert_eq!(casualty_percent(150.0, 1.0), 100);
        assert_eq!(casualty_percent(1199.0, 100.0 / 1200.0), 99);
    }

    /// A day's Strategy: the Glory carried from yesterday adds, a general
    /// out halves the base (rounded up), armour moves casualty rows.
    #[test]
    fn a_days_strategy_carries_glory_and_halves_for_a_lost_general() {
        let text = include_str!("../../../scenarios/gurps/three_days_at_hollin.toml");
        let (_, g) = super::super::Gurps::from_scenario(text, "hollin", std::path::Path::new("."))
            .expect("bundled scenario");
        let r = &g.rules;
        let troops = [r.sides[0].troop_strength, r.sides[1].troop_strength];
        let calm = r.day_start([3, 3], troops, [0, 0], [false, false]);
        let carried = r.day_start([3, 3], troops, [2, -1], [false, false]);
        assert_eq!(carried.skill, [calm.skill[0] + 2, calm.skill[1] - 1]);
        let out = r.day_start([3, 3], troops, [0, 0], [true, false]);
        let base = r.sides[0].strategy;
        assert_eq!(out.skill[0], calm.skill[0] - base + (base + 1) / 2);
        assert_eq!(out.skill[1], calm.skill[1]);
        let t = &r.tables;
        let rows = [
            Armour::None,
            Armour::Light,
            Armour::Spearmen,
            Armour::Medium,
            Armour::Heavy,
        ]
        .map(|a| armour_rows(t, a));
        assert_eq!(rows, [0, 1, 1, 2, 4]);
    }

    #[test]
    fn ratio_bonus_follows_the_table() {
        let t = GurpsTables::load(&Default::default(), std::path::Path::new(".")).unwrap();
        assert_eq!(ratio_bonus(&t, 1.0, 0), 0);
        assert_eq!(ratio_bonus(&t, 1.5, 0), 2);
        assert_eq!(ratio_bonus(&t, 2.0, 0), 3);
        assert_eq!(ratio_bonus(&t, 4.0, 0), 5);
        assert_eq!(ratio_bonus(&t, 50.0, 0), 8);
        assert_eq!(ratio_bonus(&t, 150.0, 3), 9);
        // On a boundary after the same cut to both sides.
        assert_eq!(
            ratio_bonus(&t, (2100.0 * 0.7) / (700.0 * 0.7), 0),
            ratio_bonus(&t, 3.0, 0)
        );
        assert_eq!(ratio_bonus(&t, 70.0, 3), ratio_bonus(&t, 700.0 / 10.0, 3));
    }
}

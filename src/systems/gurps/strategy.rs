//! The Strategy contest: each day the commanders roll a Quick Contest of
//! Strategy, the larger army adding a bonus by the ratio of Troop Strengths;
//! the margin of victory picks the day's battle result.
//!
//! Plain: [`ratio_bonus`], [`skills`]. Fast, built from the same rows:
//! [`day_start`] (the Catastrophe's effects and the skills in one pass) and
//! [`Laws`] (the first day's start for every pair of Catastrophe rolls, the
//! battle-result row of every margin).

use super::catastrophe::Effect;
use super::rules::BattleRules;
use super::scenario::Defector;
use super::tables::{CatastropheRow, GurpsTables, LeaderHarm};

/// Relative slack on ratio boundaries: Troop Strengths cut by the same
/// percent can come out a rounding error above a boundary they sit on
/// (2100 × 0.7 / (700 × 0.7) = 3.0000000000000004).
const RATIO_SLACK: f64 = 1e-12;

/// The `ts_ratio` row of a Troop Strength ratio; `None` beyond the last.
pub fn ratio_row(tables: &GurpsTables, ratio: f64) -> Option<usize> {
    tables
        .strategy
        .ts_ratio
        .iter()
        .position(|r| ratio <= r.max_ratio * (1.0 + RATIO_SLACK))
}

/// The Troop Strength ratio bonus of the larger side.
pub fn ratio_bonus(tables: &GurpsTables, ratio: f64, tl_lead: i64) -> i64 {
    let s = &tables.strategy;
    match ratio_row(tables, ratio).map(|i| &s.ts_ratio[i]) {
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

/// Each side's effective Strategy skill for the day: halved if its
/// commander is out, plus yesterday's Glory, the Catastrophe, the fixed
/// modifiers and the Troop Strength ratio bonus of the larger army.
pub fn skills(
    rules: &BattleRules,
    troops: [f64; 2],
    rows: [&CatastropheRow; 2],
    carry: [i64; 2],
    commander_out: [bool; 2],
) -> [i64; 2] {
    let t = &rules.tables;
    let large = usize::from(troops[1] > troops[0]);
    let tl_lead = rules.sides[large].tech_level - rules.sides[1 - large].tech_level;
    let ratio_edge = ratio_bonus(t, troops[large] / troops[1 - large], tl_lead);
    [0, 1].map(|s| {
        let side = &rules.sides[s];
        let halved = commander_out[s] || rows[s].commander == LeaderHarm::Killed;
        let base = if halved {
            (side.strategy + 1) / 2
        } else {
            side.strategy
        };
        let edge = if s == large { ratio_edge } else { 0 };
        base + carry[s] + rows[s].strategy + side.fixed_modifier + edge
    })
}

/// What halving a side's base Strategy (rounded up) takes off its skill.
pub fn halving(strategy: i64) -> i64 {
    strategy - (strategy + 1) / 2
}

/// What a day's Catastrophe rolls leave before the Strategy contest.
#[derive(Debug, Clone, Copy)]
pub struct DayStart {
    /// Each side's effective Strategy skill.
    pub skill: [i64; 2],
    /// Troop Strengths after the Catastrophe.
    pub troops: [f64; 2],
}

/// The sides' skills and Troop Strengths after Catastrophe `rolls` (their
/// rows' `effects`, by roll − 3), from the day's Troop Strengths, the
/// Strategy `carry` of the PCs' Glory and whether each army commander is out.
pub fn day_start(
    rules: &BattleRules,
    effects: &[Effect],
    rolls: [i64; 2],
    mut troops: [f64; 2],
    carry: [i64; 2],
    commander_out: [bool; 2],
) -> DayStart {
    let mut strategy_mod = carry;
    let mut halved = commander_out;
    for (s, roll) in rolls.into_iter().enumerate() {
        let effect = &effects[(roll - 3) as usize];
        strategy_mod[s] += effect.strategy;
        troops[1 - s] *= effect.enemy_factor;
        let before = troops[s];
        troops[s] *= effect.own_factor;
        if rules.defector == Defector::JoinsEnemy {
            troops[1 - s] += before - troops[s];
        }
        halved[s] |= effect.commander_killed;
    }
    let (large, small) = if troops[0] >= troops[1] {
        (0, 1)
    } else {
        (1, 0)
    };
    let ratio = troops[large] / troops[small].max(f64::MIN_POSITIVE);
    let tl_lead = rules.sides[large].tech_level - rules.sides[small].tech_level;
    let ts_bonus = ratio_bonus(&rules.tables, ratio, tl_lead);
    let skill = [0, 1].map(|s| {
        let side = &rules.sides[s];
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

/// Margins tabulated each way; beyond it the last rows apply.
pub const MARGIN_SPAN: i64 = 127;

/// The contest's lookups, tabulated once per battle.
#[derive(Debug, Clone)]
pub struct Laws {
    /// The first day's start for each pair of Catastrophe rolls,
    /// 16 × (side 0's roll − 3) + side 1's roll − 3.
    pub first_day: Vec<DayStart>,
    /// Battle-result row by margin of victory 0..=MARGIN_SPAN.
    pub result_by_margin: Vec<u8>,
}

impl Laws {
    /// Tabulates the battle's contest.
    pub fn new(rules: &BattleRules, effects: &[Effect]) -> Laws {
        let initial = [rules.sides[0].troop_strength, rules.sides[1].troop_strength];
        Laws {
            first_day: (0..256)
                .map(|i| {
                    let rolls = [3 + i / 16, 3 + i % 16];
                    day_start(rules, effects, rolls, initial, [0; 2], [false; 2])
                })
                .collect(),
            result_by_margin: (0..=MARGIN_SPAN)
                .map(|m| rules.tables.result_row(m) as u8)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::contract::BattleSystem;
    use crate::systems::gurps::Gurps;
    use crate::systems::gurps::catastrophe::troops_after;

    fn bundled(file: &str) -> Gurps {
        bundled_reading(file, "leaves")
    }

    /// A bundled battle with its defecting allies' troops going as
    /// `defector` says.
    fn bundled_reading(file: &str, defector: &str) -> Gurps {
        let path = format!("scenarios/gurps/{file}");
        let text = std::fs::read_to_string(&path).unwrap().replacen(
            "system = \"gurps\"\n",
            &format!("system = \"gurps\"\ndefector = \"{defector}\"\n"),
            1,
        );
        Gurps::from_scenario(&text, &path, &crate::tables::TableFiles::in_folder(std::path::Path::new(".")))
            .expect("bundled scenario")
            .1
    }

    /// The fast start of a day against the plain rules, for every pair of
    /// Catastrophe rolls, with and without Glory carried and a general out:
    /// the same skills and, bit for bit, the same Troop Strengths.
    #[test]
    fn the_fast_day_start_is_the_plain_one_for_every_catastrophe_pair() {
        let readings = ["leaves", "joins_enemy"];
        let files = ["ambush_at_the_ford.toml", "three_days_at_hollin.toml"];
        for (file, defector) in files.iter().flat_map(|f| readings.map(|d| (f, d))) {
            let g = bundled_reading(file, defector);
            assert_eq!(
                g.rules.defector == Defector::JoinsEnemy,
                defector == "joins_enemy"
            );
            let r = &g.rules;
            let effects: Vec<Effect> = r.tables.catastrophe.iter().map(Effect::new).collect();
            let laws = Laws::new(r, &effects);
            let troops = [r.sides[0].troop_strength, r.sides[1].troop_strength * 0.7];
            for (a, b) in (3..=18).flat_map(|a| (3..=18).map(move |b| (a, b))) {
                let rows = [a, b].map(|roll: i64| &r.tables.catastrophe[(roll - 3) as usize]);
                for (carry, out) in [([0, 0], [false, false]), ([2, -1], [true, false])] {
                    let fast = day_start(r, &effects, [a, b], troops, carry, out);
                    let after = troops_after(rows, troops, r.defector);
                    assert_eq!(fast.troops.map(f64::to_bits), after.map(f64::to_bits));
                    assert_eq!(fast.skill, skills(r, after, rows, carry, out), "{a}, {b}");
                }
                let first = laws.first_day[((a - 3) * 16 + b - 3) as usize];
                let initial = [r.sides[0].troop_strength, r.sides[1].troop_strength];
                let after = troops_after(rows, initial, r.defector);
                assert_eq!(first.skill, skills(r, after, rows, [0; 2], [false; 2]));
            }
            for m in 0..=MARGIN_SPAN {
                assert_eq!(
                    laws.result_by_margin[m as usize] as usize,
                    r.tables.result_row(m)
                );
            }
        }
    }

    /// A day's Strategy: the Glory carried from yesterday adds, a general
    /// out halves the base (rounded up).
    #[test]
    fn a_days_strategy_carries_glory_and_halves_for_a_lost_general() {
        let g = bundled("three_days_at_hollin.toml");
        let r = &g.rules;
        let calm_row = &r.tables.catastrophe[0];
        let troops = [r.sides[0].troop_strength, r.sides[1].troop_strength];
        let rows = [calm_row, calm_row];
        let calm = skills(r, troops, rows, [0, 0], [false, false]);
        let carried = skills(r, troops, rows, [2, -1], [false, false]);
        assert_eq!(carried, [calm[0] + 2, calm[1] - 1]);
        let out = skills(r, troops, rows, [0, 0], [true, false]);
        let base = r.sides[0].strategy;
        assert_eq!(out[0], calm[0] - base + (base + 1) / 2);
        assert_eq!(out[1], calm[1]);
    }

    #[test]
    fn ratio_bonus_follows_the_table() {
        let t = GurpsTables::load(&Default::default(), &crate::tables::TableFiles::in_folder(std::path::Path::new("."))).unwrap();
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

//! The Catastrophe: each side rolls 3d6 at the start of every day (high is
//! bad; a commander with Luck, while he still leads, keeps the lowest of
//! three), and the row of the
//! Catastrophe table that comes up changes its Strategy, Morale and Troop
//! Strength, and may wound or kill its army commander or a major unit's
//! leader.
//!
//! Plain: [`roll`], [`troops_after`], [`strike_leaders`]. Fast: [`Effect`],
//! the same rows in the form the battle loop applies unconditionally, and
//! [`roll_fast`], [`strike_leaders_fast`], each roll from a number of its
//! own ([`super::address`]).

use rand::Rng;

use super::address;
use super::outcome::{HeroOutcome, State};
use super::rules::{BattleRules, SideRules};
use super::scenario::{Defector, Role};
use super::success::{RollLaw, d6_sum, roll_3d6};
use super::survival::{injure, injure_fast};
use super::tables::{CatastropheRow, LeaderHarm};
use crate::engine::dice;
use crate::engine::inverse;
use crate::engine::stream::Decisions;

/// Side `side`'s Catastrophe roll, 3 to 18, die by die. Only the
/// commander may use his Luck: a side whose commander is `out` (killed,
/// captured, down) rolls 3d6 once.
pub fn roll<R: Rng>(rng: &mut R, side: &SideRules, out: bool) -> i64 {
    (roll_3d6(rng, side.commander_luck && !out) + side.catastrophe_modifier).clamp(3, 18)
}

/// The Troop Strengths after each side's Catastrophe row: the enemy
/// reinforced, the side's own allies defecting (their troops leaving the
/// field, or joining the enemy, as `defector` reads the seed).
pub fn troops_after(
    rows: [&CatastropheRow; 2],
    mut troops: [f64; 2],
    defector: Defector,
) -> [f64; 2] {
    for s in 0..2 {
        troops[1 - s] *= 1.0 + rows[s].enemy_ts_pct as f64 / 100.0;
        let before = troops[s];
        troops[s] *= 1.0 - rows[s].own_ts_pct as f64 / 100.0;
        if defector == Defector::JoinsEnemy {
            troops[1 - s] += before - troops[s];
        }
    }
    troops
}

/// The Catastrophe's harm to commanding PCs: the army commander, and the
/// leader of the one major unit struck. A PC "killed" is left unconscious
/// and sits the day out.
pub fn strike_leaders<R: Rng>(
    rules: &BattleRules,
    rng: &mut R,
    rows: [&CatastropheRow; 2],
    (pcs, lost): (&mut [HeroOutcome], &mut [i64]),
    sits_out: &mut [bool],
) {
    for (s, row) in rows.iter().enumerate() {
        let struck_unit = (row.major_leader != LeaderHarm::None)
            .then(|| dice::below(rng, rules.sides[s].major_units));
        for (i, h) in rules.heroes.iter().enumerate() {
            // A captured commander is no longer with the army.
            if h.side != s || pcs[i].state >= State::Down || pcs[i].captured {
                continue;
            }
            let harm = match h.role {
                Role::ArmyCommander => row.commander,
                Role::UnitCommander if struck_unit.is_some() && h.major_unit == struck_unit => {
                    row.major_leader
                }
                _ => LeaderHarm::None,
            };
            match harm {
                LeaderHarm::None => {}
                // A Catastrophe is no enemy weapon: his own DR, undivided.
                LeaderHarm::Wounded => {
                    let damage = (d6_sum(rng, 2) - h.own_dr).max(0);
                    (lost[i], pcs[i].state) = injure(rng, h, lost[i], damage, pcs[i].state);
                }
                LeaderHarm::Killed => {
                    // A PC is wounded and unconscious (the wound: the 2d of
                    // 15/16 [stand-in]) and rolls nothing today.
                    let damage = (d6_sum(rng, 2) - h.own_dr).max(0);
                    (lost[i], pcs[i].state) = injure(rng, h, lost[i], damage, pcs[i].state);
                    pcs[i].state = pcs[i].state.max(State::Down);
                    sits_out[i] = true;
                    // Over several days: a Survival and a Glory roll he
                    // missed on any day read `no_roll`.
                    pcs[i].survival = 0;
                    pcs[i].glory = 0;
                }
            }
        }
    }
}

/// A Catastrophe row's effects, in the form the battle loop applies them
/// unconditionally (a factor of exactly 1 for no change in Troop Strength),
/// since which row comes up is a toss a branch would miss.
#[derive(Debug, Clone, Copy)]
pub struct Effect {
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
    /// The army commander is harmed (wounded or killed).
    pub strikes_commander: bool,
}

impl Effect {
    /// The effects of a row.
    pub fn new(row: &CatastropheRow) -> Effect {
        Effect {
            strategy: row.strategy,
            morale: row.morale_all,
            morale_by_roll: row.morale_by_roll,
            enemy_factor: 1.0 + row.enemy_ts_pct as f64 / 100.0,
            own_factor: 1.0 - row.own_ts_pct as f64 / 100.0,
            commander_killed: row.commander == LeaderHarm::Killed,
            harms_leaders: row.commander != LeaderHarm::None
                || row.major_leader != LeaderHarm::None,
            strikes_commander: row.commander != LeaderHarm::None,
        }
    }
}

/// [`roll`] drawn fast from number `x`, by `law` (the commander's Luck).
#[inline(always)]
pub fn roll_fast(law: &RollLaw, x: u64, side: &SideRules) -> i64 {
    (law.draw(x) + side.catastrophe_modifier).clamp(3, 18)
}

/// [`strike_leaders`] for side `s`'s `row`, drawn fast from the `day`'s
/// numbers; marks those it kills and those it wounds. Out of line: few days
/// strike a leader, and the battle loop stays small without it.
#[cold]
#[inline(never)]
pub fn strike_leaders_fast(
    rules: &BattleRules,
    day: Decisions,
    s: usize,
    row: &CatastropheRow,
    (heroes, lost): (&mut [HeroOutcome], &mut [i64]),
    (killed, wounded): (&mut [bool], &mut [bool]),
) {
    let struck_unit = if row.major_leader != LeaderHarm::None {
        let x = day.half(address::MAJOR_UNIT + s as u32);
        Some(((u128::from(x) * u128::from(rules.sides[s].major_units)) >> 64) as u32)
    } else {
        None
    };
    for (i, h) in rules.heroes.iter().enumerate() {
        if h.side != s || heroes[i].state >= State::Down || heroes[i].captured {
            continue;
        }
        let harm = match h.role {
            Role::ArmyCommander => row.commander,
            Role::UnitCommander if struck_unit.is_some() && struck_unit == h.major_unit => {
                row.major_leader
            }
            _ => LeaderHarm::None,
        };
        let numbers = address::pc(day, i);
        let damage = || (inverse::two_d6(numbers.half(address::LEADER_DAMAGE)) - h.own_dr).max(0);
        let ht_roll = |k| inverse::three_d6(numbers.half(address::LEADER_HT + k));
        match harm {
            LeaderHarm::None => {}
            LeaderHarm::Wounded => {
                let (l, st) =
                    injure_fast(ht_roll, (h.hp, h.ht), lost[i], damage(), heroes[i].state);
                lost[i] = l;
                heroes[i].state = st;
                wounded[i] = true;
            }
            LeaderHarm::Killed => {
                let (l, st) =
                    injure_fast(ht_roll, (h.hp, h.ht), lost[i], damage(), heroes[i].state);
                lost[i] = l;
                heroes[i].state = st.max(State::Down);
                killed[i] = true;
                heroes[i].survival = 0;
                heroes[i].glory = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::systems::contract::BattleSystem;
    use std::collections::BTreeMap;

    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::systems::gurps::Gurps;
    use crate::systems::gurps::damage::damage_distribution;
    use crate::systems::gurps::scenario::MAX_HEROES;
    use crate::systems::gurps::survival::injury_law;

    /// The army commander's (HP lost, state) after a row that wounds or
    /// kills him, struck fast and die by die, against their exact law: 2d
    /// through his own DR, then the injury's HT rolls (at least down if
    /// killed); a unit leader struck one time in `major_units`.
    #[test]
    fn leaders_struck_fast_and_die_by_die_follow_the_law() {
        let path = "scenarios/gurps/three_days_at_hollin.toml";
        let text = std::fs::read_to_string(path).unwrap();
        let (_, mut g) = Gurps::from_scenario(&text, path, &crate::tables::TableFiles::in_folder(std::path::Path::new("."))).unwrap();
        // A lord of 3 HP and HT 9, so 2d can knock him out or kill him.
        g.rules.heroes[0].hp = 3;
        g.rules.heroes[0].ht = 9;
        let r = &g.rules;
        let lord = &r.heroes[0];
        assert_eq!((lord.role, lord.side), (Role::ArmyCommander, 0));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
        let n = 100_000;
        for harm in [LeaderHarm::Wounded, LeaderHarm::Killed] {
            let row = CatastropheRow {
                commander: harm,
                ..Default::default()
            };
            let calm = CatastropheRow::default();
            let mut exact = BTreeMap::new();
            for (damage, p) in damage_distribution(1, 2, 0, lord.own_dr).iter().enumerate() {
                let law = injury_law(lord.hp, lord.ht, 0, damage as i64, State::Unhurt);
                for (state, q) in State::ALL.into_iter().zip(law) {
                    let state = if harm == LeaderHarm::Killed {
                        state.max(State::Down)
                    } else {
                        state
                    };
                    *exact.entry((damage as i64, state)).or_insert(0.0) += p * q;
                }
            }
            exact.retain(|_, p| *p > 0.0);
            let (mut fast, mut plain) = (BTreeMap::new(), BTreeMap::new());
            for battle in 0..n {
                let mut pcs = [HeroOutcome::default(); MAX_HEROES];
                let mut lost = [0i64; MAX_HEROES];
                let mut out = [false; MAX_HEROES];
                strike_leaders(r, &mut rng, [&row, &calm], (&mut pcs, &mut lost), &mut out);
                *plain.entry((lost[0], pcs[0].state)).or_default() += 1;
                assert_eq!(out[0], harm == LeaderHarm::Killed);
                let mut pcs = [HeroOutcome::default(); MAX_HEROES];
                let mut lost = [0i64; MAX_HEROES];
                let (mut killed, mut wounded) = ([false; MAX_HEROES], [false; MAX_HEROES]);
                let struck = (&mut killed[..], &mut wounded[..]);
                let day = crate::engine::stream::BattleStream::battle(13, battle).decisions();
                strike_leaders_fast(r, day, 0, &row, (&mut pcs, &mut lost), struck);
                *fast.entry((lost[0], pcs[0].state)).or_default() += 1;
                assert_eq!(killed[0], harm == LeaderHarm::Killed);
            }
            let what = format!("{harm:?}");
            crate::stats::assert_counts_follow(&exact, &plain, n, &format!("plain {what}"));
            crate::stats::assert_counts_follow(&exact, &fast, n, &format!("fast {what}"));
        }
    }

    /// Each row's fast factors are its plain Troop Strength change, bit for
    /// bit.
    /// Row 14 at equal strength, 1,000 a side, its ally taking 10%: gone
    /// from the field, 900 against 1,000 (ratio 1.11); gone to the enemy,
    /// 900 against 1,100 (ratio 1.22). The enemy's own row (calm) moves
    /// nothing either way.
    #[test]
    fn a_defecting_allys_troops_leave_or_join_the_enemy_as_declared() {
        let defects = CatastropheRow {
            own_ts_pct: 10,
            ..CatastropheRow::default()
        };
        let calm = CatastropheRow::default();
        let leaves = troops_after([&defects, &calm], [1000.0, 1000.0], Defector::Leaves);
        let joins = troops_after([&defects, &calm], [1000.0, 1000.0], Defector::JoinsEnemy);
        assert_eq!(leaves, [900.0, 1000.0]);
        assert_eq!(joins, [900.0, 1100.0]);
        assert!((leaves[1] / leaves[0] - 1.111).abs() < 1e-3);
        assert!((joins[1] / joins[0] - 1.222).abs() < 1e-3);
        // The other side's ally defecting goes the other way.
        let other = troops_after([&calm, &defects], [1000.0, 1000.0], Defector::JoinsEnemy);
        assert_eq!(other, [1100.0, 900.0]);
    }

    #[test]
    fn the_effects_move_troops_as_the_rows_do() {
        let t = crate::systems::gurps::tables::GurpsTables::load(
            &Default::default(),
            &crate::tables::TableFiles::in_folder(std::path::Path::new(".")),
        )
        .unwrap();
        let calm = CatastropheRow::default();
        for row in &t.catastrophe {
            let e = Effect::new(row);
            let troops = [1234.0, 987.0];
            let plain = troops_after([row, &calm], troops, Defector::Leaves);
            let fast = [troops[0] * e.own_factor, troops[1] * e.enemy_factor];
            assert_eq!(
                plain.map(f64::to_bits),
                fast.map(f64::to_bits),
                "{}",
                row.label
            );
        }
    }
}

//! Exact distributions of a one-day GURPS battle: the Catastrophe rolls,
//! the Strategy contest and each PC's Survival and Glory categories are all
//! finite sums over 3d6 outcomes.

use std::collections::BTreeMap;

use anyhow::{Result, bail};

use super::Gurps;
use super::damage::column_damage;
use super::outcome::State;
use super::rules::{BattleRules, COMBAT_CAP, HeroRules};
use super::scenario::Role;
use super::scenario::LeaderFall;
use super::strategy::{halving, ratio_bonus};
use super::success::{category_distribution, three_d6_distribution};
use super::survival::{LOSING_PENALTY_STEP, MAX_PENALTY, injury_law};
use super::ground;
use super::tables::{self, CatastropheRow, Ground, LeaderHarm};
use crate::engine::histograms::Histograms;
use crate::stats::Metric;
use crate::systems::party::Parties;

/// The exact distributions of the metrics that have one, for a one-day
/// battle: summed over both Catastrophe rows and, where a row wounds a PC
/// army commander, over whether the wound knocks him out before the
/// contest.
pub fn exact_metrics(g: &Gurps) -> Result<Vec<Metric<f64>>> {
    check_exact_applies(&g.rules)?;
    let r = &g.rules;
    let t = &r.tables;
    let cat = catastrophe_laws(r);
    let wound = two_d6_distribution();
    let mut laws: Vec<HeroLaws> = (0..r.heroes.len()).map(|i| HeroLaws::new(g, i)).collect();
    let fate_given = fates_given(g, &wound, &mut laws);
    let knocked_out = knock_out_chances(g, &wound);
    let mut party = Histograms::<f64>::default();
    let parties = Parties::declare(
        &mut party,
        &r.heroes.iter().map(|h| h.side).collect::<Vec<_>>(),
        g.side_names(),
        true,
        ("down_or_dead", "down or dead"),
    );
    let mut sums = Sums::new(g);
    for (ra, &pa) in cat[0].iter().enumerate() {
        for (rb, &pb) in cat[1].iter().enumerate() {
            let weight = pa * pb;
            if weight == 0.0 {
                continue;
            }
            let rows = [&t.catastrophe[ra], &t.catastrophe[rb]];
            // Each PC army commander a row wounds is knocked out before
            // the contest or not; each case has its own contest.
            for (harms, chance) in commander_cases(rows, &knocked_out) {
                let weight = weight * chance;
                if weight == 0.0 {
                    continue;
                }
                let victory = victory_law(g, rows, harms);
                let day = Day {
                    rows,
                    harms,
                    victory: &victory,
                    fate_given: &fate_given,
                };
                add_party(g, (&parties, &mut party, &mut sums.captured), &day, weight);
                sums.add_day(g, (&day, &laws), weight, &wound);
            }
        }
    }
    let mut metrics = sums.metrics(g, &cat, &mut laws);
    metrics.extend(party.metrics());
    Ok(metrics)
}

/// Refuses what the one-day exact method cannot follow: several days.
fn check_exact_applies(r: &BattleRules) -> Result<()> {
    if r.days != 1 {
        bail!(
            "exact odds cover one-day battles; this one lasts {} days (later days depend on earlier wounds and losses)",
            r.days
        );
    }
    Ok(())
}

/// One case of a day: both Catastrophe rows, what they did to each side's
/// PC army commander, and the contest's law in that case.
struct Day<'a> {
    rows: [&'a CatastropheRow; 2],
    /// Per side: its PC army commander's harm, a wound split by whether it
    /// knocked him out before the contest ([`Harm::WoundedStanding`],
    /// [`Harm::WoundedDown`]) where it can.
    harms: [Harm; 2],
    /// Side 0's first margin of victory.
    victory: &'a BTreeMap<i64, f64>,
    fate_given: &'a FatesGiven,
}

/// Per side: the chance a Catastrophe's wound knocks its PC army commander
/// out (down or dead) before the contest; 0 without one.
fn knock_out_chances(g: &Gurps, wound: &[f64; WOUND_MAX + 1]) -> [f64; 2] {
    [0, 1].map(|s| {
        let Some(i) = (g.rules.heroes.iter()).position(|h| h.side == s && h.role == Role::ArmyCommander) else {
            return 0.0;
        };
        pre_contest(g, i, &[(Harm::Wounded, 1.0)], wound)
            .iter()
            .map(|by_state| by_state[State::Down as usize] + by_state[State::Dead as usize])
            .sum()
    })
}

/// The cases of the army commanders' harm on `rows`, with their chances:
/// a wound that can knock a PC commander out splits into his standing and
/// his knocked out before the contest.
fn commander_cases(rows: [&CatastropheRow; 2], knocked_out: &[f64; 2]) -> Vec<([Harm; 2], f64)> {
    let each = [0, 1].map(|s| match rows[s].commander {
        LeaderHarm::None => vec![(Harm::None, 1.0)],
        LeaderHarm::Killed => vec![(Harm::Killed, 1.0)],
        LeaderHarm::Wounded if knocked_out[s] > 0.0 => vec![
            (Harm::WoundedStanding, 1.0 - knocked_out[s]),
            (Harm::WoundedDown, knocked_out[s]),
        ],
        LeaderHarm::Wounded => vec![(Harm::Wounded, 1.0)],
    });
    let mut cases = Vec::new();
    for &(h0, c0) in &each[0] {
        for &(h1, c1) in &each[1] {
            cases.push(([h0, h1], c0 * c1));
        }
    }
    cases
}

/// Each side's law of its (modified) Catastrophe roll, indexed 0 for 3.
fn catastrophe_laws(r: &BattleRules) -> [[f64; 16]; 2] {
    [0, 1].map(|s| {
        let side = &r.sides[s];
        let base = three_d6_distribution(side.commander_luck);
        let mut p = [0.0; 16];
        for (roll, &q) in base.iter().enumerate().skip(3) {
            let modified = (roll as i64 + side.catastrophe_modifier).clamp(3, 18);
            p[(modified - 3) as usize] += q;
        }
        p
    })
}

/// The law of side 0's margin of victory, given both Catastrophe rows and
/// what they did to the PC army commanders (one knocked out halves his
/// side's base Strategy, as one killed does).
fn victory_law(g: &Gurps, rows: [&CatastropheRow; 2], harms: [Harm; 2]) -> BTreeMap<i64, f64> {
    let r = &g.rules;
    let t = &r.tables;
    let plain = three_d6_distribution(false);
    let mut troops = [r.sides[0].troop_strength, r.sides[1].troop_strength];
    troops = crate::systems::gurps::catastrophe::troops_after(rows, troops, r.defector);
    let (large, small) = if troops[0] >= troops[1] {
        (0, 1)
    } else {
        (1, 0)
    };
    let tl_lead = r.sides[large].tech_level - r.sides[small].tech_level;
    let ts_bonus = ratio_bonus(t, troops[large] / troops[small], tl_lead);
    let skill = [0, 1].map(|s| {
        let side = &r.sides[s];
        let out = rows[s].commander == LeaderHarm::Killed || harms[s] == Harm::WoundedDown;
        let base = if out {
            (side.strategy + 1) / 2
        } else {
            side.strategy
        };
        base + rows[s].strategy + side.fixed_modifier + if s == large { ts_bonus } else { 0 }
    });
    // Distribution of the margin of victory of side 0 (−30..=30 and beyond).
    let mut victory = BTreeMap::<i64, f64>::new();
    for (x, &px) in plain.iter().enumerate().skip(3) {
        for (y, &py) in plain.iter().enumerate().skip(3) {
            let v = (skill[0] - x as i64) - (skill[1] - y as i64);
            *victory.entry(v).or_default() += px * py;
        }
    }
    victory
}

/// The exact laws summed over every pair of Catastrophe rows.
struct Sums {
    /// Side 0 wins, side 1 wins, draw.
    winner: [f64; 3],
    /// Per battle-result row.
    result: Vec<f64>,
    /// The defender's ground, per [`ground::Fate`].
    ground: [f64; 4],
    /// Per PC: no roll, then per Survival row.
    survival: Vec<Vec<f64>>,
    /// Per PC: no roll, then per Glory row.
    glory: Vec<Vec<f64>>,
    /// Per PC: P(killed by Catastrophe).
    killed: Vec<f64>,
    /// Per PC: P(captured).
    captured: Vec<f64>,
    /// Per PC: the weight of each (HP lost to a Catastrophe wound, state
    /// it left, losing-side penalty) with which he rolls Survival.
    rolls_from: Vec<RollsFrom>,
}

/// Per HP lost to a Catastrophe wound, per state it left (as
/// [`State::ALL`]), per losing-side penalty: the weight with which a PC
/// rolls Survival from there.
type RollsFrom = Vec<[[f64; MAX_PENALTY + 1]; 5]>;

impl Sums {
    fn new(g: &Gurps) -> Sums {
        let t = &g.rules.tables;
        let n = g.rules.heroes.len();
        Sums {
            winner: [0.0; 3],
            result: vec![0.0; t.battle_results.len()],
            ground: [0.0; 4],
            survival: vec![vec![0.0; t.survival.len() + 1]; n],
            glory: vec![vec![0.0; t.glory.len() + 1]; n],
            killed: vec![0.0; n],
            captured: vec![0.0; n],
            rolls_from: vec![vec![[[0.0; MAX_PENALTY + 1]; 5]; WOUND_MAX + 1]; n],
        }
    }

    /// Adds one pair of Catastrophe rows, of probability `weight`, with the
    /// margin law `victory` it gives.
    fn add_day(
        &mut self,
        g: &Gurps,
        (day, laws): (&Day, &[HeroLaws]),
        weight: f64,
        wound: &[f64; WOUND_MAX + 1],
    ) {
        let t = &g.rules.tables;
        let rows = day.rows;
        let (winner, result) = (&mut self.winner, &mut self.result);
        for (&first, &q) in day.victory {
            for end in endings(g, day, first) {
                let (v, w) = (end.margin, weight * q * end.chance);
                winner[match v.signum() {
                    1 => 0,
                    -1 => 1,
                    _ => 2,
                }] += w;
                result[t.result_row(v.abs())] += w;
                if let Some(d) = g.rules.defender {
                    add_ground(g, rows[d], d, v, w, &mut self.ground);
                }
            }
        }
        for (i, hero_laws) in laws.iter().enumerate() {
            self.add_hero(g, (i, hero_laws), day, weight, wound);
        }
    }

    /// Adds PC `i`'s Catastrophe harm, Glory and Survival for one pair of rows.
    fn add_hero(
        &mut self,
        g: &Gurps,
        (i, laws): (usize, &HeroLaws),
        day: &Day,
        weight: f64,
        wound: &[f64; WOUND_MAX + 1],
    ) {
        let (rows, victory) = (day.rows, day.victory);
        let r = &g.rules;
        let t = &r.tables;
        let h = &r.heroes[i];
        let (survival, glory) = (&mut self.survival, &mut self.glory);
        let (killed, rolls_from) = (&mut self.killed, &mut self.rolls_from);
        let out = match h.role {
            Role::ArmyCommander if rows[h.side].commander == LeaderHarm::Killed => 1.0,
            Role::UnitCommander if rows[h.side].major_leader == LeaderHarm::Killed => {
                1.0 / r.sides[h.side].major_units as f64
            }
            _ => 0.0,
        };
        survival[i][0] += weight * out;
        glory[i][0] += weight * out;
        killed[i] += weight * out;
        // HP lost to a wound (2d − DR, at least 0) and the state it
        // leaves, with their chance.
        let mix = match h.role {
            Role::ArmyCommander if rows[h.side].commander == LeaderHarm::Wounded => {
                vec![(day.harms[h.side], 1.0)]
            }
            Role::UnitCommander if rows[h.side].major_leader == LeaderHarm::Wounded => {
                let wounded = 1.0 / r.sides[h.side].major_units as f64;
                vec![(Harm::None, 1.0 - wounded), (Harm::Wounded, wounded)]
            }
            _ => vec![(Harm::None, 1.0)],
        };
        let wound_law = pre_contest(g, i, &mix, wound);
        let glory_rows =
            category_distribution(&t.glory, (h.combat_skill - h.risk).min(COMBAT_CAP), false);
        for (row, q) in glory_rows.iter().enumerate() {
            glory[i][row + 1] += weight * (1.0 - out) * q;
        }
        for (&v, &q) in victory {
            let side_margin = if h.side == 0 { v } else { -v };
            let penalty = if side_margin < 0 {
                -side_margin / LOSING_PENALTY_STEP
            } else {
                0
            };
            for (w, by_state) in wound_law.iter().enumerate() {
                for (before, &pw) in by_state.iter().enumerate() {
                    rolls_from[i][w][before][(penalty as usize).min(MAX_PENALTY)] +=
                        weight * (1.0 - out) * q * pw;
                }
            }
            let skill = (h.combat_skill + h.risk - penalty).min(COMBAT_CAP);
            let far;
            let rows_at = match laws.rows_at.get(penalty as usize) {
                Some(rows) => rows,
                None => {
                    far = category_distribution(&t.survival, skill, h.luck);
                    &far
                }
            };
            for (row, c) in rows_at.iter().enumerate() {
                survival[i][row + 1] += weight * (1.0 - out) * q * c;
            }
        }
    }

    /// The metrics of the sums, in the order the simulation reports them.
    fn metrics(&self, g: &Gurps, cat: &[[f64; 16]; 2], laws: &mut [HeroLaws]) -> Vec<Metric<f64>> {
        let t = &g.rules.tables;
        let (winner, result) = (&self.winner, &self.result);
        let (survival, glory) = (&self.survival, &self.glory);
        let names = g.side_names();
        let mut metrics = Vec::new();
        for s in 0..2 {
            let subject = format!("side:{}", names[s]);
            metrics.push(Metric::categorical(
                &subject,
                "victory",
                &["won", "lost", "draw"],
                &[winner[s], winner[1 - s], winner[2]],
            ));
            metrics.push(Metric::integers(&subject, "catastrophe", 3, &cat[s]));
        }
        let labels = |rows: Vec<String>| -> Vec<String> {
            std::iter::once("no_roll".to_owned()).chain(rows).collect()
        };
        metrics.push(Metric::categorical(
            "battle",
            "result",
            &t.battle_results
                .iter()
                .map(|r| r.label.clone())
                .collect::<Vec<_>>(),
            result,
        ));
        if let Some(d) = g.rules.defender {
            metrics.push(Metric::categorical(
                &format!("side:{}", names[d]),
                "ground",
                &ground::Fate::LABELS,
                &self.ground,
            ));
        }
        let (rep_min, rep_max) = t.reputation_range();
        for (i, h) in g.parsed.heroes.iter().enumerate() {
            let subject = format!("hero:{}", h.file.name);
            metrics.push(Metric::categorical(
                &subject,
                "survival",
                &labels(tables::labels(&t.survival)),
                &survival[i],
            ));
            let rolls_from = (self.rolls_from[i].iter().enumerate()).flat_map(|(w, by_state)| {
                (by_state.iter().enumerate()).flat_map(move |(s, by_penalty)| {
                    (by_penalty.iter().enumerate()).map(move |(penalty, &m)| (w, s, penalty, m))
                })
            });
            let (state, hp_lost) = injuries(g, i, self.killed[i], rolls_from, &mut laws[i]);
            metrics.push(Metric::integers(&subject, "hp_lost", 0, &hp_lost));
            metrics.push(Metric::categorical(
                &subject,
                "state",
                &State::LABELS,
                &state,
            ));
            metrics.push(Metric::categorical(
                &subject,
                "glory",
                &labels(tables::labels(&t.glory)),
                &glory[i],
            ));
            let mut reputation = vec![0.0; (rep_max - rep_min + 1) as usize];
            reputation[(-rep_min) as usize] += glory[i][0];
            for (row, q) in glory[i].iter().enumerate().skip(1) {
                reputation[(t.glory[row - 1].reputation - rep_min) as usize] += q;
            }
            metrics.push(Metric::integers(
                &subject,
                "reputation",
                rep_min,
                &reputation,
            ));
            if h.file.role == Role::ArmyCommander {
                let taken = self.captured[i];
                metrics.push(Metric::categorical(
                    &subject,
                    "captured",
                    &["no", "yes"],
                    &[1.0 - taken, taken],
                ));
            }
        }
        metrics
    }
}

/// Adds the defender `d`'s ground on a day that ends at side 0's margin
/// `v`, of probability `w`, its Catastrophe row `row`: beaten by a result
/// that calls for it, its major units roll the Morale of the day's start
/// (nothing carried on a first day) with the row's.
fn add_ground(g: &Gurps, row: &CatastropheRow, d: usize, v: i64, w: f64, sums: &mut [f64; 4]) {
    let t = &g.rules.tables;
    let beaten = if d == 0 { v < 0 } else { v > 0 };
    let rule = t.battle_results[t.result_row(v.abs())].ground;
    let side = &g.rules.sides[d];
    match (beaten, rule) {
        (false, _) | (true, Ground::Kept) => sums[ground::Fate::Holds as usize] += w,
        (true, Ground::Retreats) => sums[ground::Fate::DrivenOff as usize] += w,
        (true, Ground::MoraleCheck) => {
            let held = ground::hold_chance(side.morale + row.morale_all, side.major_units);
            sums[ground::Fate::HoldsOnMorale as usize] += w * held;
            sums[ground::Fate::Retreats as usize] += w * (1.0 - held);
        }
    }
}

/// What a Catastrophe does to one PC: nothing, a 2d wound, or "killed".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Harm {
    None = 0,
    Wounded = 1,
    Killed = 2,
    /// Wounded, and still conscious when the contest is rolled.
    WoundedStanding = 3,
    /// Wounded, and knocked out (down or dead) by it before the contest.
    WoundedDown = 4,
}

impl Harm {
    /// Every harm, as [`FatesGiven`] indexes them.
    const ALL: [Harm; 5] = [
        Harm::None,
        Harm::Wounded,
        Harm::Killed,
        Harm::WoundedStanding,
        Harm::WoundedDown,
    ];
}

/// A PC's HP lost and state before the contest, per HP lost (as
/// [`State::ALL`]), mixed from `mix`'s harms with their shares: none, or a
/// Catastrophe's 2d − DR wound (split by whether it knocks him out, each
/// part given that it did or did not).
fn pre_contest(g: &Gurps, i: usize, mix: &[(Harm, f64)], wound: &[f64; WOUND_MAX + 1]) -> Vec<[f64; 5]> {
    let h = &g.rules.heroes[i];
    let mut law = vec![[0.0f64; 5]; WOUND_MAX + 1];
    let wound_states = |w: i64| injury_law(h.hp, h.ht, 0, w, State::Unhurt);
    let down_chance = || -> f64 {
        (wound.iter().enumerate())
            .map(|(roll, &q)| {
                let states = wound_states((roll as i64 - h.own_dr).max(0));
                q * (states[State::Down as usize] + states[State::Dead as usize])
            })
            .sum()
    };
    for &(harm, share) in mix {
        let (keep, norm): (fn(usize) -> bool, f64) = match harm {
            Harm::None | Harm::Killed => {
                law[0][State::Unhurt as usize] += share;
                continue;
            }
            Harm::Wounded => (|_| true, 1.0),
            Harm::WoundedStanding => (|s| s < State::Down as usize, 1.0 - down_chance()),
            Harm::WoundedDown => (|s| s >= State::Down as usize, down_chance()),
        };
        if norm == 0.0 {
            continue;
        }
        for (roll, &q) in wound.iter().enumerate() {
            let w = (roll as i64 - h.own_dr).max(0);
            for (s, &p) in wound_states(w).iter().enumerate() {
                if p > 0.0 && keep(s) {
                    law[w as usize][s] += share * q * p / norm;
                }
            }
        }
    }
    law
}

/// Per PC, harm and losing-side penalty: his chances of ending the day out
/// of action (down or dead) and dead.
type FatesGiven = Vec<[[(f64, f64); MAX_PENALTY + 1]; 5]>;

fn fates_given(g: &Gurps, wound: &[f64; WOUND_MAX + 1], laws: &mut [HeroLaws]) -> FatesGiven {
    g.rules
        .heroes
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let mut by_harm = [[(0.0, 0.0); MAX_PENALTY + 1]; 5];
            for harm in Harm::ALL {
                let pre = pre_contest(g, i, &[(harm, 1.0)], wound);
                for (penalty, fates) in by_harm[harm as usize].iter_mut().enumerate() {
                    // Every roll at this one penalty, from each wound and state.
                    let (killed, from) = match harm {
                        Harm::Killed => (1.0, &[][..]),
                        _ => (0.0, &pre[..]),
                    };
                    let rolls_from = (from.iter().enumerate()).flat_map(|(w, by_state)| {
                        (by_state.iter().enumerate()).map(move |(s, &p)| (w, s, penalty, p))
                    });
                    let (state, _) = injuries(g, i, killed, rolls_from, &mut laws[i]);
                    let dead = state[State::Dead as usize];
                    *fates = (state[State::Down as usize] + dead, dead);
                }
            }
            by_harm
        })
        .collect()
}

/// Adds the party's fates on one pair of Catastrophe rows (`weight`): given
/// the rows, the unit each side's Catastrophe strikes and the margin of
/// victory, the PCs' own rolls are independent. Adds each army commander's
/// chance of being captured (alive, his side beaten overwhelmingly) too.
fn add_party(
    g: &Gurps,
    (parties, party, captured): (&Parties, &mut Histograms<f64>, &mut [f64]),
    day: &Day,
    weight: f64,
) {
    let (rows, victory, fate_given) = (day.rows, day.victory, day.fate_given);
    let r = &g.rules;
    let t = &r.tables;
    // The struck major unit of each side, each equally likely (none when the
    // row strikes no unit leader).
    let struck = |s: usize| -> Vec<(Option<u32>, f64)> {
        if rows[s].major_leader == LeaderHarm::None {
            vec![(None, 1.0)]
        } else {
            let n = r.sides[s].major_units;
            (0..n).map(|u| (Some(u), 1.0 / n as f64)).collect()
        }
    };
    let harm_of = |h: &HeroRules, unit: Option<u32>| {
        let leader = match h.role {
            Role::ArmyCommander => return day.harms[h.side],
            Role::UnitCommander if unit.is_some() && unit == h.major_unit => {
                rows[h.side].major_leader
            }
            _ => LeaderHarm::None,
        };
        match leader {
            LeaderHarm::None => Harm::None,
            LeaderHarm::Wounded => Harm::Wounded,
            LeaderHarm::Killed => Harm::Killed,
        }
    };
    let mut fates = vec![(0.0, 0.0); r.heroes.len()];
    for (u0, p0) in struck(0) {
        for (u1, p1) in struck(1) {
            for (&v, &q) in victory {
                for (i, h) in r.heroes.iter().enumerate() {
                    let margin = if h.side == 0 { v } else { -v };
                    let penalty = if margin < 0 {
                        -margin / LOSING_PENALTY_STEP
                    } else {
                        0
                    };
                    let unit = if h.side == 0 { u0 } else { u1 };
                    fates[i] = fate_given[i][harm_of(h, unit) as usize]
                        [(penalty as usize).min(MAX_PENALTY)];
                    // His side beaten overwhelmingly, an army commander
                    // still alive is taken.
                    if h.role != Role::ArmyCommander {
                        continue;
                    }
                    if r.leader_fall == LeaderFall::SameDay {
                        for end in endings(g, day, v) {
                            let last = if h.side == 0 { end.margin } else { -end.margin };
                            if last < 0 && t.battle_results[t.result_row(-last)].captures_commander {
                                captured[i] += weight * p0 * p1 * q * end.chance * end.alive[h.side];
                            }
                        }
                        continue;
                    }
                    let taken = t.battle_results[t.result_row(-margin)].captures_commander;
                    if margin < 0 && taken {
                        captured[i] += weight * p0 * p1 * q * (1.0 - fates[i].1);
                    }
                }
                parties.add_independent(party, &fates, weight * p0 * p1 * q);
            }
        }
    }
}

/// One way the day's contest ends, from its first margin.
struct Ending {
    /// Side 0's final margin of victory.
    margin: i64,
    /// Its chance, given the first margin.
    chance: f64,
    /// Per side: the chance its army commander is alive, given this ending.
    alive: [f64; 2],
}

/// The endings of a contest first settled at side 0's margin `first` (the
/// margin every PC's Survival penalty is taken from). Under `next_day`, the
/// only one is that margin. Under `same_day`, each side's PC army commander
/// whom the Catastrophe left standing may fall in his Survival roll, given
/// his penalty; a fall halves his side's base Strategy for the final roll,
/// which the same dice settle again.
fn endings(g: &Gurps, day: &Day, first: i64) -> Vec<Ending> {
    let r = &g.rules;
    // Per side: (fell, chance, chance alive given that) for its commander.
    let sides = [0, 1].map(|s| {
        let Some(i) = r.heroes.iter().position(|h| h.side == s && h.role == Role::ArmyCommander) else {
            return vec![(false, 1.0, 1.0)];
        };
        let margin = if s == 0 { first } else { -first };
        let penalty = if margin < 0 { -margin / LOSING_PENALTY_STEP } else { 0 };
        let penalty = (penalty as usize).min(MAX_PENALTY);
        let harm = day.harms[s];
        let (out, dead) = day.fate_given[i][harm as usize][penalty];
        // Out before the contest (killed, or knocked out by the wound), he
        // has no fall to make.
        let gone = matches!(harm, Harm::Killed | Harm::WoundedDown);
        if r.leader_fall == LeaderFall::NextDay || gone {
            return vec![(false, 1.0, 1.0 - dead)];
        }
        let mut falls = vec![(false, 1.0 - out, 1.0)];
        if out > 0.0 {
            falls.push((true, out, (out - dead) / out));
        }
        falls
    });
    let mut ends = Vec::new();
    for &(fell0, c0, alive0) in &sides[0] {
        for &(fell1, c1, alive1) in &sides[1] {
            let cost = |s: usize, fell: bool| i64::from(fell) * halving(r.sides[s].strategy);
            ends.push(Ending {
                margin: first - cost(0, fell0) + cost(1, fell1),
                chance: c0 * c1,
                alive: [alive0, alive1],
            });
        }
    }
    ends
}

/// The most HP a Catastrophe's 2d wound takes.
const WOUND_MAX: usize = 12;

/// P(2d6 = k) for k = 0..=12.
fn two_d6_distribution() -> [f64; WOUND_MAX + 1] {
    let mut p = [0.0; WOUND_MAX + 1];
    for a in 1..=6 {
        for b in 1..=6 {
            p[a + b] += 1.0 / 36.0;
        }
    }
    p
}

/// One PC's laws that [`injuries`] reads again and again, each worked out
/// once: his Survival rows' law at each losing-side penalty, the damage of
/// each Survival row, and [`injury_law`] at each (HP lost before, damage,
/// state). Pure functions of the PC and the tables, so the sums they feed
/// are the same to the last bit.
struct HeroLaws {
    /// Per losing-side penalty: the law of his Survival row.
    rows_at: Vec<Vec<f64>>,
    /// Per Survival row: the HP its damage takes, with their chances.
    damage: Vec<Vec<(usize, f64)>>,
    /// [`injury_law`] by (HP lost before, damage, state), as
    /// [`HeroLaws::slot`] places them.
    known: Vec<Option<[f64; 5]>>,
    /// The most damage a row (or a Catastrophe's wound) does, plus one.
    damages: usize,
}

impl HeroLaws {
    fn new(g: &Gurps, i: usize) -> HeroLaws {
        let t = &g.rules.tables;
        let h = &g.rules.heroes[i];
        let columns = column_damage(t, h);
        let damage: Vec<Vec<(usize, f64)>> = (t.survival.iter())
            .map(|row| match row.column {
                None => vec![((row.hp_lost() - h.toughness).max(0) as usize, 1.0)],
                Some(col) => columns[col as usize]
                    .iter()
                    .copied()
                    .enumerate()
                    .filter(|&(_, q)| q > 0.0)
                    .collect(),
            })
            .collect();
        let damages = (damage.iter().flatten())
            .map(|&(d, _)| d + 1)
            .max()
            .unwrap_or(0)
            .max(WOUND_MAX + 1);
        HeroLaws {
            rows_at: (0..=MAX_PENALTY)
                .map(|penalty| {
                    let skill = (h.combat_skill + h.risk - penalty as i64).min(COMBAT_CAP);
                    category_distribution(&t.survival, skill, h.luck)
                })
                .collect(),
            damage,
            known: vec![None; (WOUND_MAX + 1) * damages * State::ALL.len()],
            damages,
        }
    }

    /// [`injury_law`] for this PC.
    fn injury(&mut self, h: &HeroRules, lost: usize, damage: usize, before: State) -> [f64; 5] {
        let slot = (lost * self.damages + damage) * State::ALL.len() + before as usize;
        *self.known[slot]
            .get_or_insert_with(|| injury_law(h.hp, h.ht, lost as i64, damage as i64, before))
    }
}

/// PC `i`'s exact state and HP lost after one day: struck down by
/// Catastrophe 17/18 (unconscious with a 2d wound) with `killed`; otherwise he carries a Catastrophe
/// wound of `w` HP (which leaves him conscious: checked before) and rolls
/// Survival at each losing-side penalty with the weight `rolls_from` gives
/// `(w, state before, penalty)`, in that order (zero weights may be left out);
/// the Survival row's damage then goes through [`injury_law`] (`laws`: his).
fn injuries(
    g: &Gurps,
    i: usize,
    killed: f64,
    rolls_from: impl Iterator<Item = (usize, usize, usize, f64)>,
    laws: &mut HeroLaws,
) -> ([f64; 5], Vec<f64>) {
    let h = &g.rules.heroes[i];
    let mut state = [0.0f64; 5];
    let mut hp_lost = vec![0.0f64; g.max_hp_lost(h) + 1];
    // Struck by a Catastrophe 17/18: unconscious at least, with its 2d
    // wound, which may kill him.
    let dies: f64 = (two_d6_distribution().iter().enumerate())
        .map(|(roll, &q)| {
            let w = (roll as i64 - h.own_dr).max(0) as usize;
            q * laws.injury(h, 0, w, State::Unhurt)[State::Dead as usize]
        })
        .sum();
    state[State::Down as usize] += killed * (1.0 - dies);
    state[State::Dead as usize] += killed * dies;
    for (roll, &q) in two_d6_distribution().iter().enumerate() {
        hp_lost[(roll as i64 - h.own_dr).max(0) as usize] += killed * q;
    }
    for (w, before, penalty, mass) in rolls_from {
        let before = State::ALL[before];
        if mass == 0.0 {
            continue;
        }
        for row in 0..laws.rows_at[penalty].len() {
            let c = laws.rows_at[penalty][row];
            if c == 0.0 {
                continue;
            }
            for k in 0..laws.damage[row].len() {
                let (d, q) = laws.damage[row][k];
                let p = mass * c * q;
                let law = laws.injury(h, w, d, before);
                for (slot, l) in state.iter_mut().zip(law) {
                    *slot += p * l;
                }
                // The dead (a Catastrophe's wound killed him) lose no more.
                let taken = if before == State::Dead { 0 } else { d };
                hp_lost[w + taken] += p;
            }
        }
    }
    (state, hp_lost)
}

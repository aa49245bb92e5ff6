//! Casualties: each day each side loses a percent of its Troop Strength,
//! read on the casualties table by its signed margin (the loser the
//! negative row), moved toward less loss by its armour and, if it routs
//! (see [`super::morale`]), by rout dice toward more.
//!
//! Plain: [`armour_rows`], [`roll`]. Fast: [`Laws`] (the row of every
//! margin, each row's percent drawn by the inverse of its law) and
//! [`Laws::draw`]. Both report with [`casualty_percent`].

use crate::tables::cells::CellReads;
use rand::Rng;

use super::address;
use super::catastrophe::Effect;
use super::damage::damage_distribution;
use super::morale::{ROUT_MARGIN, routs, routs_fast};
use super::rules::SideRules;
use super::scenario::Armour;
use super::strategy::MARGIN_SPAN;
use super::success::d6_sum;
use super::tables::{CatastropheRow, GurpsTables};
use crate::engine::dice::Digits;
use crate::engine::inverse::InverseLaw;
use crate::engine::stream::Decisions;

/// Armour class → casualty rows toward less loss.
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

/// A side's casualty percentage for the day's `signed` margin (its own
/// view), rolled die by die: the margin's row shifted by armour, and by
/// rout dice if a badly beaten side fails its Morale roll against its
/// `morale` of the day.
pub fn roll<R: Rng>(
    rng: &mut R,
    t: &GurpsTables,
    (side, morale): (&SideRules, i64),
    signed: i64,
    catastrophe: &CatastropheRow,
    reads: &mut CellReads,
) -> i64 {
    reads.note("casualties", || "armour_rows".into(), side.armour);
    let mut row = t.casualty_row(signed) as i64 + side.armour_rows;
    if signed <= -ROUT_MARGIN {
        reads.note("morale", String::new, side.quality);
        if routs(rng, morale, catastrophe) {
            reads.note("casualties", String::new, "rout_dice");
            row -= d6_sum(rng, t.casualties.rout_dice);
        }
    }
    let row = row.clamp(0, t.casualties.rows.len() as i64 - 1) as usize;
    reads.note("casualties", || format!("rows.{row}"), "");
    let r = &t.casualties.rows[row];
    (d6_sum(rng, r.dice) + r.add).clamp(0, 100)
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

/// The casualty lookups, tabulated once per battle.
#[derive(Debug, Clone)]
pub struct Laws {
    /// Casualty row by signed margin −MARGIN_SPAN..=MARGIN_SPAN.
    by_margin: Vec<u8>,
    /// Per casualties row: the percent lost (dice + add, at most 100).
    percent: Vec<InverseLaw>,
}

impl Laws {
    /// Tabulates the battle's casualties.
    pub fn new(tables: &GurpsTables) -> Laws {
        Laws {
            by_margin: (-MARGIN_SPAN..=MARGIN_SPAN)
                .map(|m| tables.casualty_row(m) as u8)
                .collect(),
            percent: tables
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
                    InverseLaw::new(&pct)
                })
                .collect(),
        }
    }

    /// [`roll`] drawn fast from the `day`'s numbers of side `s`, as the
    /// fraction of Troop Strength lost: side `side`'s percent for the day's
    /// `signed` margin after its Catastrophe's `effect`, its `morale` of the
    /// day facing a rout.
    #[inline(always)]
    pub fn draw(
        &self,
        day: Decisions,
        s: usize,
        t: &GurpsTables,
        (side, morale): (&SideRules, i64),
        signed: i64,
        effect: &Effect,
    ) -> f64 {
        let s = s as u32;
        let rows = t.casualties.rows.len() as i64;
        let index = (signed.clamp(-MARGIN_SPAN, MARGIN_SPAN) + MARGIN_SPAN) as usize;
        let mut row = self.by_margin[index] as i64 + side.armour_rows;
        if signed <= -ROUT_MARGIN {
            let rolls = (
                day.half(address::ATROCITY_MORALE + s),
                day.half(address::ROUT_MORALE + s),
            );
            if routs_fast(morale, effect, rolls) {
                let mut stream = day.stream(address::ROUT_DICE + s);
                row -= Digits::new(&mut stream).sum_d6(t.casualties.rout_dice as u32);
            }
        }
        let x = day.half(address::CASUALTIES + s);
        PERCENT[self.percent[row.clamp(0, rows - 1) as usize].draw(x)]
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;

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

    #[test]
    fn armour_moves_casualty_rows_toward_less_loss() {
        let t = GurpsTables::load(&Default::default(), &crate::tables::TableFiles::in_folder(std::path::Path::new("."))).unwrap();
        let rows = [
            Armour::None,
            Armour::Light,
            Armour::Spearmen,
            Armour::Medium,
            Armour::Heavy,
        ]
        .map(|a| armour_rows(&t, a));
        assert_eq!(rows, [0, 1, 1, 2, 4]);
    }

    /// Casualties drawn fast against casualties rolled die by die: a win, a
    /// loss, a loss bad enough to roll Morale (with an atrocity) and one
    /// off the table, for an unarmoured and a heavy side.
    #[test]
    fn the_draw_is_the_roll() {
        let t = GurpsTables::load(&Default::default(), &crate::tables::TableFiles::in_folder(std::path::Path::new("."))).unwrap();
        let laws = Laws::new(&t);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
        let atrocity = CatastropheRow {
            morale_by_roll: 1,
            ..Default::default()
        };
        let effect = Effect::new(&atrocity);
        let n = 100_000;
        for armour in [Armour::None, Armour::Heavy] {
            let side = SideRules {
                strategy: 12,
                troop_strength: 1000.0,
                percent_per_troop: 0.1,
                tech_level: 3,
                fixed_modifier: 0,
                commander_luck: false,
                catastrophe_modifier: 0,
                armour_rows: armour_rows(&t, armour),
                armour: armour.key(),
                morale: 10,
                quality: "green",
                major_units: 3,
            };
            for signed in [3, -3, -15, -200] {
                let mut law = std::collections::BTreeMap::new();
                let mut plain = std::collections::BTreeMap::new();
                let mut fast = std::collections::BTreeMap::new();
                // The law: the plain roll's, by enumeration of its pieces.
                let p_rout = if signed <= -ROUT_MARGIN {
                    crate::systems::gurps::morale::rout_chance(side.morale, &atrocity)
                } else {
                    0.0
                };
                let base = t.casualty_row(signed) as i64 + side.armour_rows;
                let shifts = damage_distribution(1, t.casualties.rout_dice, 0, 0);
                let rows = t.casualties.rows.len() as i64;
                let mut add_row = |row: i64, p: f64| {
                    let r = &t.casualties.rows[row.clamp(0, rows - 1) as usize];
                    for (k, q) in damage_distribution(1, r.dice, r.add, 0).iter().enumerate() {
                        *law.entry((k as i64).min(100)).or_insert(0.0) += p * q;
                    }
                };
                add_row(base, 1.0 - p_rout);
                for (shift, q) in shifts.iter().enumerate() {
                    add_row(base - shift as i64, p_rout * q);
                }
                law.retain(|_, p| *p > 0.0);
                for battle in 0..n {
                    *plain
                        .entry(roll(
                            &mut rng,
                            &t,
                            (&side, side.morale),
                            signed,
                            &atrocity,
                            &mut CellReads::default(),
                        ))
                        .or_default() += 1;
                    let day = crate::engine::stream::BattleStream::battle(7, battle).decisions();
                    let share = laws.draw(day, 1, &t, (&side, side.morale), signed, &effect);
                    *fast.entry((share * 100.0).round() as i64).or_default() += 1;
                }
                let what = format!("{armour:?}, margin {signed}");
                crate::stats::assert_counts_follow(&law, &plain, n, &format!("plain {what}"));
                crate::stats::assert_counts_follow(&law, &fast, n, &format!("fast {what}"));
            }
        }
    }
}

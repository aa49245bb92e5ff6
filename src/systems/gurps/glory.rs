//! Glory: after his Survival roll, each PC rolls his capped Combat skill
//! − Risk on the Glory table (made even if he died); the row brings
//! Reputation and, to a commander, Strategy for his side's next day (a unit
//! commander the row's; an army commander one more, if any).
//!
//! Plain: [`skill`], [`gain`], [`roll`]. Fast: [`gains_by_roll`], [`gain`] of
//! every 3d6 roll looked up by the roll.

use rand::Rng;

use super::rules::{COMBAT_CAP, HeroRules};
use super::scenario::Role;
use super::success::{roll_3d6, rows_by_roll};
use super::tables::GurpsTables;

/// What a PC's Glory roll brings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GloryGain {
    /// The Glory row.
    pub row: u8,
    /// Reputation gained (negative: lost).
    pub reputation: i16,
    /// Strategy for his side's next day.
    pub strategy: i64,
}

/// The skill a PC rolls Glory against: Combat skill − Risk, capped (the
/// losing side's penalty falls on Survival only).
pub fn skill(h: &HeroRules) -> i64 {
    (h.combat_skill - h.risk).min(COMBAT_CAP)
}

/// What Glory row `row` brings PC `h`.
pub fn gain(t: &GurpsTables, h: &HeroRules, row: usize) -> GloryGain {
    let r = &t.glory[row];
    GloryGain {
        row: row as u8,
        reputation: r.reputation as i16,
        strategy: match h.role {
            Role::Soldier => 0,
            Role::UnitCommander => r.strategy,
            // One better, or one less bad, for the army commander.
            Role::ArmyCommander if r.strategy != 0 => r.strategy + 1,
            Role::ArmyCommander => 0,
        },
    }
}

/// A PC's Glory roll, die by die.
pub fn roll<R: Rng>(rng: &mut R, t: &GurpsTables, h: &HeroRules) -> GloryGain {
    let row = super::success::row_of(&t.glory, skill(h), roll_3d6(rng, false));
    gain(t, h, row)
}

/// [`gain`] of every 3d6 roll 3..=18, looked up by the roll.
pub fn gains_by_roll(t: &GurpsTables, h: &HeroRules) -> [GloryGain; 19] {
    rows_by_roll(&t.glory, skill(h)).map(|row| gain(t, h, row as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::gurps::success::row_of;

    /// Every roll of every role's table against the plain rule, and each
    /// role's Strategy by hand.
    #[test]
    fn the_table_by_roll_is_the_plain_rule() {
        let t = GurpsTables::load(&Default::default(), &crate::tables::TableFiles::in_folder(std::path::Path::new("."))).unwrap();
        for role in [Role::Soldier, Role::UnitCommander, Role::ArmyCommander] {
            for (combat_skill, risk) in [(12, 0), (15, 4), (18, -3), (7, 6)] {
                let h = HeroRules {
                    side: 0,
                    role,
                    combat_skill,
                    risk,
                    luck: false,
                    hp: 10,
                    ht: 10,
                    major_unit: None,
                    enemy_hit: [1, 2, 2, 2],
                    dr: 0,
                    own_dr: 0,
                    toughness: 0,
                };
                let table = gains_by_roll(&t, &h);
                for roll in 3..=18 {
                    let row = row_of(&t.glory, skill(&h), roll);
                    let g = table[roll as usize];
                    assert_eq!(g, gain(&t, &h, row), "roll {roll}");
                    let written = t.glory[row].strategy;
                    let expected = match role {
                        Role::Soldier => 0,
                        Role::UnitCommander => written,
                        // "One better, or one less bad": +2 → +3, −1 → 0.
                        Role::ArmyCommander if written != 0 => written + 1,
                        Role::ArmyCommander => 0,
                    };
                    assert_eq!(g.strategy, expected, "{role:?} roll {roll}");
                }
            }
        }
    }
}

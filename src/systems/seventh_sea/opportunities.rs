//! Heroic Opportunities (docs/rules.md §3): a Hero's state through the
//! battle, and his response to each opportunity a chart cell offers, by his
//! policy. The plain form is `BookBattle::take` in [`super::reference`];
//! the test below holds the two to the same state for every opportunity
//! whose effect is settled by the Hero's state (the duel's and the shot's
//! laws are tested in their own files and by the battle's agreement test).

use super::address;
use super::outcome::HeroState;
use super::rules::{BattleRules, HEAVILY_ENGAGED};
use super::scenario::Policy;
use super::tables::Opportunity;
use crate::engine::stream::Decisions;

/// Per-Hero state during a battle (small: sixteen of them are set up per
/// battle).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Hero {
    pub(super) flesh: i64,
    pub(super) wounds: i64,
    pub(super) reputation: i64,
    pub(super) taken: u16,
    /// Engagement level this round.
    pub(super) level: u8,
    pub(super) out: bool,
    /// Holds his own side's banner (to the end of the battle).
    pub(super) banner: bool,
    /// Spends his next round with the surgeon.
    pub(super) surgeon: bool,
    /// Charged: −2 on his next personal result.
    pub(super) charge: bool,
    /// Held at a level by an opportunity (never while carrying a banner).
    pub(super) forced: Option<Forced>,
    /// Carries the enemy's banner toward the Rear: the level it is at
    /// (never while held at a level).
    pub(super) carrying: Option<u8>,
    /// Duels won: each takes the opponent's belongings.
    pub(super) duels_won: u16,
}

/// Which opportunity holds a Hero at a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Held {
    /// Hold the Line, with the rounds held so far.
    TheLine { rounds_held: u8 },
    /// Lure: Heavily Engaged for one round.
    Lure,
    /// Rescue the Wounded: Heavily Engaged for two rounds.
    Rescue,
}

/// A Hero held at a level by an opportunity.
#[derive(Debug, Clone, Copy)]
pub(super) struct Forced {
    pub(super) by: Held,
    pub(super) level: u8,
    /// Rounds still to fight there.
    pub(super) rounds_left: u8,
    /// Reputation each of those rounds.
    pub(super) reputation: i64,
}

impl Hero {
    /// Held by `by` at `level` for `rounds` rounds, earning `reputation` each.
    #[inline(always)]
    pub(super) fn force(&mut self, by: Held, level: u8, rounds: u8, reputation: i64) {
        self.forced = Some(Forced {
            by,
            level,
            rounds_left: rounds,
            reputation,
        });
    }

    /// His state at the battle's end.
    #[inline]
    pub(super) fn state(&self, resolve: i64) -> HeroState {
        if self.wounds >= 2 * resolve {
            HeroState::KnockedOut
        } else if self.wounds >= resolve {
            HeroState::Crippled
        } else {
            HeroState::Fine
        }
    }
}

/// Fights a Hero's duel to the knock-out: true if he wins. (A trait, not a
/// closure: its `fight` is inlined into the battle loop, where a closure's
/// body was called out of line.)
pub(super) trait Duel {
    /// Fights it on number `x`, wounding `h`.
    fn fight(self, x: u64, h: &mut Hero) -> bool;
}

/// Hero `hero`'s response to an opportunity, by his policy: one dispatch on
/// the kind, each arm deciding whether he takes it; a duel he takes up is
/// fought by `duel`; the shot and the duel read the Hero's `numbers` of
/// the round.
#[inline(always)]
pub(super) fn take(
    rules: &BattleRules,
    hero: usize,
    numbers: Decisions,
    h: &mut Hero,
    opportunity: Opportunity,
    next_modifier: &mut [i64; 2],
    duel: impl Duel,
) {
    let r = &rules.heroes[hero];
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
        // A Hero who holds the banner already has nothing to pick up.
        Opportunity::PickUpBanner if !h.banner => {
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
            let x = numbers.half(address::LINE_OF_FIRE);
            if x < r.line_of_fire_hit[usize::from(h.banner)] {
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
            if duel.fight(numbers.half(address::DUEL), h) {
                h.carrying = Some(h.level);
                h.duels_won += 1;
            }
            true
        }
        Opportunity::Duel if refuses_duels => {
            h.reputation += rules.tables.refuse_duel_reputation;
            false
        }
        Opportunity::Duel => {
            if duel.fight(numbers.half(address::DUEL), h) {
                next_modifier[1 - side] -= 3;
                h.duels_won += 1;
            } else {
                next_modifier[side] -= 3;
            }
            true
        }
        // Busy, refusing a capture once crippled, or holding the banner offered.
        _ => false,
    };
    h.taken += u16::from(taken);
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::engine::stream::BattleStream;
    use crate::systems::contract::BattleSystem;
    use crate::systems::seventh_sea::SeventhSea;
    use crate::systems::seventh_sea::reference::{self as book, BookBattle, BookHero};

    /// A duel that only records it was fought (and is won).
    struct Stub<'a>(&'a mut bool);

    impl Duel for Stub<'_> {
        fn fight(self, _: u64, _: &mut Hero) -> bool {
            *self.0 = true;
            true
        }
    }

    /// What a response can change, written the same for both forms: the
    /// Reputation, opportunities taken, banner, surgeon, charge, the level
    /// held (which, where, rounds left, Reputation a round), the banner
    /// carried, a duel won, and the commanders' next modifiers.
    type Effect = (
        i64,
        u16,
        bool,
        bool,
        bool,
        Option<(usize, usize, u32, i64)>,
        Option<usize>,
        u16,
        [i64; 2],
    );

    fn fast_effect(h: &Hero, next: [i64; 2]) -> Effect {
        let forced = h.forced.map(|f| {
            let which = match f.by {
                Held::TheLine { rounds_held } => {
                    assert_eq!(rounds_held, 1, "a line newly held");
                    0
                }
                Held::Lure => 1,
                Held::Rescue => 2,
            };
            (
                which,
                usize::from(f.level),
                u32::from(f.rounds_left),
                f.reputation,
            )
        });
        let carrying = h.carrying.map(usize::from);
        let (rep, taken) = (h.reputation, h.taken);
        (
            rep,
            taken,
            h.banner,
            h.surgeon,
            h.charge,
            forced,
            carrying,
            h.duels_won,
            next,
        )
    }

    fn book_effect(h: &BookHero, next: [i64; 2]) -> Effect {
        let forced = h.forced.map(|f| {
            let which = match f.by {
                book::Held::TheLine => 0,
                book::Held::Lure => 1,
                book::Held::Rescue => 2,
            };
            assert_eq!(f.fought, 0, "a hold newly taken");
            (which, f.level, f.rounds_left, f.reputation)
        });
        let (rep, taken) = (h.reputation, h.taken);
        (
            rep,
            taken,
            h.banner,
            h.surgeon,
            h.charging,
            forced,
            h.carrying,
            h.duels_won,
            next,
        )
    }

    /// Every opportunity, offered to each Hero of the even-field battle
    /// (three policies, the adaptive one among them) in every state that
    /// decides a response (level, wounds up to knocked out, banner, held
    /// at a level, carrying a banner): the fast response leaves the state
    /// the book's does. Responses that roll (the Line of Fire shot, a duel
    /// fought) are left to their laws' tests.
    #[test]
    fn every_settled_response_matches_the_book() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scenarios/seventh_sea/even_field_battle.toml"
        ))
        .unwrap();
        let (_, sea) =
            SeventhSea::from_scenario(&text, "even_field", &crate::tables::TableFiles::in_folder(std::path::Path::new("."))).unwrap();
        let rules = &sea.rules;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut compared = 0;
        for (i, r) in rules.heroes.iter().enumerate() {
            for opportunity in Opportunity::ALL {
                for level in 1..=HEAVILY_ENGAGED {
                    for wounds in 0..2 * r.resolve {
                        for banner in [false, true] {
                            for busy in 0..3 {
                                let mut fast = Hero {
                                    wounds,
                                    level: level as u8,
                                    banner,
                                    reputation: 5,
                                    ..Hero::default()
                                };
                                let mut plain = BookHero {
                                    wounds,
                                    level,
                                    banner,
                                    reputation: 5,
                                    ..BookHero::default()
                                };
                                match busy {
                                    1 => {
                                        fast.force(Held::Lure, HEAVILY_ENGAGED as u8, 1, 2);
                                        plain.forced = Some(book::Forced {
                                            by: book::Held::Lure,
                                            level: HEAVILY_ENGAGED,
                                            rounds_left: 1,
                                            reputation: 2,
                                            fought: 0,
                                        });
                                    }
                                    2 => {
                                        fast.carrying = Some(level as u8);
                                        plain.carrying = Some(level);
                                    }
                                    _ => {}
                                }
                                let before = (fast.forced.is_some(), fast.carrying);
                                let mut next = [0; 2];
                                let mut rolled = opportunity == Opportunity::LineOfFire;
                                let numbers = BattleStream::at(rng.next_u64()).decisions();
                                take(
                                    rules,
                                    i,
                                    numbers,
                                    &mut fast,
                                    opportunity,
                                    &mut next,
                                    Stub(&mut rolled),
                                );
                                if rolled {
                                    continue;
                                }
                                let mut battle = BookBattle::new(rules, &mut rng);
                                battle.next_modifier = [0; 2];
                                battle.heroes[i] = plain;
                                battle.take(&mut rng, i, opportunity);
                                assert_eq!(
                                    fast_effect(&fast, next),
                                    book_effect(&battle.heroes[i], battle.next_modifier),
                                    "{opportunity:?} to hero {i} at level {level}, {wounds} wounds, banner {banner}, busy {before:?}"
                                );
                                compared += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(compared > 500, "{compared} responses compared");
    }
}

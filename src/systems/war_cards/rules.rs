//! The engagement rules of docs/rules.md §1: simultaneous melee, missile volleys,
//! R/D over F, damage beyond the card maximum, rout with optional rally,
//! retreat, and the exchange cap; and the engagement fought by them, one
//! card drawn per attack (the plain form).

use rand::Rng;

use super::deck::{CardResult, MAX_CARDS};
use crate::engine::dice;

/// Side index of the attacking unit.
pub const ATTACKER: usize = 0;
/// Side index of the defending unit.
pub const DEFENDER: usize = 1;

/// Where a unit stands at the end of an exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fate {
    /// Still in the fight.
    Holds,
    /// Drew `F` and fell back.
    Retreated,
    /// Routed and left the fight.
    Routed,
    /// Destroyed outright or by damage beyond its maximum.
    Destroyed,
}

impl Fate {
    /// Labels in reporting order.
    pub const LABELS: [&'static str; 4] = ["holds", "retreated", "routed", "destroyed"];
}

/// Who won an engagement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Winner {
    /// The attacking unit.
    Attacker,
    /// The defending unit.
    Defender,
    /// Neither: both left at once, or the exchange cap was reached.
    None,
}

impl Winner {
    /// Labels in reporting order.
    pub const LABELS: [&'static str; 3] = ["attacker", "defender", "none"];
}

/// Why an engagement ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The loser was destroyed.
    Destroyed,
    /// The loser routed.
    Routed,
    /// The loser retreated.
    Retreated,
    /// Both units left the fight in the same exchange.
    BothOut,
    /// `max_exchanges` melee exchanges were fought with both units holding.
    MaxExchanges,
}

impl End {
    /// Labels in reporting order.
    pub const LABELS: [&'static str; 5] = [
        "destroyed",
        "routed",
        "retreated",
        "both_out",
        "max_exchanges",
    ];
}

/// What one engagement produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngagementOutcome {
    /// Who won.
    pub winner: Winner,
    /// Why it ended.
    pub end: End,
    /// Melee exchanges fought (0 if it ended during the volleys).
    pub exchanges: u32,
    /// Missile volleys fired.
    pub volleys: u32,
    /// Damage taken by each side.
    pub damage: [u32; 2],
    /// Each side's fate.
    pub fate: [Fate; 2],
}

/// The state of the two units between exchanges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitsState {
    /// Damage taken so far by each side.
    pub damage: [u32; 2],
}

/// The fixed facts of a unit that the exchange rules need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Combatant {
    /// Damage the unit survives; one more destroys it.
    pub max_damage: u32,
    /// Shooters ignore `F`.
    pub shooter: bool,
}

/// Applies one exchange: `attacks[s]` is side *s*'s result against the other
/// side (`Miss` when it does not attack). Returns new damage and each side's
/// fate before any rally. Fates rank destroyed > routed > retreated, so R and
/// D beat F.
pub fn resolve_exchange(
    units: [Combatant; 2],
    damage: [u32; 2],
    attacks: [CardResult; 2],
) -> ([u32; 2], [Fate; 2]) {
    let mut new_damage = damage;
    let mut fate = [Fate::Holds; 2];
    for side in 0..2 {
        let incoming = attacks[1 - side];
        let mut worst = Fate::Holds;
        match incoming {
            CardResult::Destroy => worst = Fate::Destroyed,
            CardResult::Hit | CardResult::Rout => {
                new_damage[side] += 1;
                worst = if new_damage[side] > units[side].max_damage {
                    Fate::Destroyed
                } else if incoming == CardResult::Rout {
                    Fate::Routed
                } else {
                    Fate::Holds
                };
            }
            CardResult::Miss | CardResult::Retreat => {}
        }
        if attacks[side] == CardResult::Retreat && !units[side].shooter {
            worst = worst.max(Fate::Retreated);
        }
        fate[side] = worst;
    }
    (new_damage, fate)
}

/// The end of an engagement implied by both fates, or `None` if both hold.
pub fn settle(fate: [Fate; 2]) -> Option<(Winner, End)> {
    let out = |f: Fate| f != Fate::Holds;
    match (out(fate[ATTACKER]), out(fate[DEFENDER])) {
        (false, false) => None,
        (true, true) => Some((Winner::None, End::BothOut)),
        (false, true) => Some((Winner::Attacker, end_of(fate[DEFENDER]))),
        (true, false) => Some((Winner::Defender, end_of(fate[ATTACKER]))),
    }
}

fn end_of(loser: Fate) -> End {
    match loser {
        Fate::Retreated => End::Retreated,
        Fate::Routed => End::Routed,
        Fate::Destroyed => End::Destroyed,
        Fate::Holds => unreachable!("a holding unit has not lost"),
    }
}

/// How the card for each attack is picked.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Draw {
    /// A die roll per attack (with replacement).
    Die,
    /// One shared physical deck, drawn without replacement, reshuffled when empty.
    Deck,
}

/// A physical deck of card indices, drawn without replacement.
#[derive(Debug, Clone)]
pub struct CardDeck {
    remaining: [u8; MAX_CARDS],
    left: usize,
    size: usize,
}

impl CardDeck {
    /// A full, shuffled-on-draw deck of `size` cards.
    pub fn new(size: usize) -> Self {
        const IDENTITY: [u8; MAX_CARDS] = {
            let mut cards = [0u8; MAX_CARDS];
            let mut i = 0;
            while i < MAX_CARDS {
                cards[i] = i as u8;
                i += 1;
            }
            cards
        };
        CardDeck {
            remaining: IDENTITY,
            left: size,
            size,
        }
    }

    /// Draws a uniformly random remaining card; reshuffles the whole deck when empty.
    #[inline]
    pub fn draw<R: Rng>(&mut self, rng: &mut R) -> usize {
        self.draw_with(|left| dice::below(rng, left))
    }

    /// Draws the remaining card at `pick(left)`, a uniform index below the
    /// number of cards left; reshuffles the whole deck when empty.
    #[inline(always)]
    pub fn draw_with(&mut self, pick: impl FnOnce(u32) -> u32) -> usize {
        if self.left == 0 {
            self.left = self.size;
        }
        let pick = pick(self.left as u32) as usize;
        let card = self.remaining[pick];
        self.left -= 1;
        self.remaining.swap(pick, self.left);
        card as usize
    }
}

/// Everything one engagement needs, precomputed from the scenario.
#[derive(Debug, Clone)]
pub struct EngagementRules {
    /// Max damage and shooter flag of each side.
    pub units: [Combatant; 2],
    /// Melee result on each card, for each side's attack.
    pub melee: [Vec<CardResult>; 2],
    /// Missile result on each card for each side's volley; `None` if not a shooter.
    pub missile: [Option<Vec<CardResult>>; 2],
    /// Volleys before melee.
    pub missile_volleys: u32,
    /// Melee exchanges before the engagement is called off.
    pub max_exchanges: u32,
    /// Die or deck draw.
    pub draw: Draw,
    /// Threshold for [`dice::chance`] that a routed unit rallies (0: never).
    pub rally_threshold: u64,
}

/// Told every card a side draws (war-cards usage counts them); a fight
/// nobody watches tells [`NoPicks`], which compiles to nothing.
pub trait Picks {
    /// Side `side` drew card `card` for a missile volley (`missile`) or a
    /// melee exchange.
    fn picked(&mut self, side: usize, card: usize, missile: bool);
}

/// Draws nobody watches.
pub struct NoPicks;

impl Picks for NoPicks {
    #[inline(always)]
    fn picked(&mut self, _: usize, _: usize, _: bool) {}
}

impl EngagementRules {
    /// Fights one engagement as the rules state it, a card drawn from the
    /// generator for each attack: the plain form of the engagement (the
    /// fast law is the engagement's table, in `table.rs`).
    #[inline(always)]
    pub fn fight<R: Rng>(&self, rng: &mut R) -> EngagementOutcome {
        self.fight_telling(rng, &mut NoPicks)
    }

    /// Fights one engagement as [`fight`](Self::fight) does, telling
    /// `picks` every card drawn.
    #[inline(always)]
    pub fn fight_telling<R: Rng>(&self, rng: &mut R, picks: &mut impl Picks) -> EngagementOutcome {
        let cards = self.melee[ATTACKER].len();
        let mut deck = match self.draw {
            Draw::Die => None,
            Draw::Deck => Some(CardDeck::new(cards)),
        };
        let mut pick = |rng: &mut R| match &mut deck {
            None => dice::below(rng, cards as u32) as usize,
            Some(deck) => deck.draw(rng),
        };
        let mut damage = [0u32; 2];
        for volley in 1..=self.missile_volleys {
            let mut attacks = [CardResult::Miss; 2];
            for (side, attack) in attacks.iter_mut().enumerate() {
                if let Some(results) = &self.missile[side] {
                    let card = pick(rng);
                    picks.picked(side, card, true);
                    *attack = results[card];
                }
            }
            let (new_damage, fate) = resolve_exchange(self.units, damage, attacks);
            damage = new_damage;
            let fate = self.rally(rng, fate);
            if let Some((winner, end)) = settle(fate) {
                return EngagementOutcome {
                    winner,
                    end,
                    exchanges: 0,
                    volleys: volley,
                    damage,
                    fate,
                };
            }
        }
        for exchange in 1..=self.max_exchanges {
            let (a, d) = (pick(rng), pick(rng));
            picks.picked(ATTACKER, a, false);
            picks.picked(DEFENDER, d, false);
            let attacks = [self.melee[ATTACKER][a], self.melee[DEFENDER][d]];
            let (new_damage, fate) = resolve_exchange(self.units, damage, attacks);
            damage = new_damage;
            let fate = self.rally(rng, fate);
            if let Some((winner, end)) = settle(fate) {
                return EngagementOutcome {
                    winner,
                    end,
                    exchanges: exchange,
                    volleys: self.missile_volleys,
                    damage,
                    fate,
                };
            }
        }
        EngagementOutcome {
            winner: Winner::None,
            end: End::MaxExchanges,
            exchanges: self.max_exchanges,
            volleys: self.missile_volleys,
            damage,
            fate: [Fate::Holds; 2],
        }
    }

    /// Each routed unit rolls to rally back into the fight.
    #[inline]
    fn rally<R: Rng>(&self, rng: &mut R, mut fate: [Fate; 2]) -> [Fate; 2] {
        if self.rally_threshold > 0 {
            for f in &mut fate {
                if *f == Fate::Routed && dice::chance(rng, self.rally_threshold) {
                    *f = Fate::Holds;
                }
            }
        }
        fate
    }
}

#[cfg(test)]
mod tests {
    use super::CardResult::*;
    use super::*;

    const FOOT: Combatant = Combatant {
        max_damage: 2,
        shooter: false,
    };
    const ARCHERS: Combatant = Combatant {
        max_damage: 2,
        shooter: true,
    };

    #[test]
    fn hits_add_damage_and_the_third_on_max_two_destroys() {
        let units = [FOOT, FOOT];
        assert_eq!(
            resolve_exchange(units, [0, 1], [Hit, Miss]),
            ([0, 2], [Fate::Holds, Fate::Holds])
        );
        assert_eq!(
            resolve_exchange(units, [0, 2], [Hit, Miss]),
            ([0, 3], [Fate::Holds, Fate::Destroyed])
        );
    }

    #[test]
    fn rout_deals_damage_and_routs_unless_it_destroys() {
        let units = [FOOT, FOOT];
        assert_eq!(
            resolve_exchange(units, [0, 0], [Rout, Miss]).1,
            [Fate::Holds, Fate::Routed]
        );
        assert_eq!(
            resolve_exchange(units, [0, 2], [Rout, Miss]),
            ([0, 3], [Fate::Holds, Fate::Destroyed])
        );
    }

    #[test]
    fn destroy_ignores_damage() {
        assert_eq!(
            resolve_exchange([FOOT, FOOT], [0, 0], [Destroy, Miss]),
            ([0, 0], [Fate::Holds, Fate::Destroyed])
        );
    }

    #[test]
    fn f_makes_the_attacker_retreat_but_r_and_d_take_priority() {
        let units = [FOOT, FOOT];
        assert_eq!(
            resolve_exchange(units, [0, 0], [Retreat, Miss]).1,
            [Fate::Retreated, Fate::Holds]
        );
        assert_eq!(
            resolve_exchange(units, [0, 0], [Retreat, Rout]).1,
            [Fate::Routed, Fate::Holds]
        );
        assert_eq!(
            resolve_exchange(units, [0, 0], [Retreat, Destroy]).1,
            [Fate::Destroyed, Fate::Holds]
        );
        // A plain hit does not cancel the retreat; the unit retreats damaged.
        assert_eq!(
            resolve_exchange(units, [0, 0], [Retreat, Hit]),
            ([1, 0], [Fate::Retreated, Fate::Holds])
        );
    }

    #[test]
    fn shooters_ignore_f() {
        assert_eq!(
            resolve_exchange([ARCHERS, FOOT], [0, 0], [Retreat, Miss]).1,
            [Fate::Holds, Fate::Holds]
        );
    }

    #[test]
    fn both_sides_strike_at_once() {
        let (damage, fate) = resolve_exchange([FOOT, FOOT], [2, 0], [Hit, Hit]);
        assert_eq!(damage, [3, 1]);
        assert_eq!(fate, [Fate::Destroyed, Fate::Holds]);
        assert_eq!(settle(fate), Some((Winner::Defender, End::Destroyed)));
        assert_eq!(
            settle([Fate::Retreated, Fate::Routed]),
            Some((Winner::None, End::BothOut))
        );
        assert_eq!(settle([Fate::Holds; 2]), None);
    }

    #[test]
    fn the_deck_deals_every_card_once_before_reshuffling() {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let mut deck = CardDeck::new(9);
        for _ in 0..3 {
            let mut seen: Vec<usize> = (0..9).map(|_| deck.draw(&mut rng)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..9).collect::<Vec<_>>());
        }
    }
}

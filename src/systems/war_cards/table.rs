//! The fast law of an engagement: every volley and every melee exchange
//! precomputed as a table (damage state × cards drawn → next state or final
//! outcome), the cards drawn as digits of shared 64-bit numbers
//! ([`dice::Digits`]). One exchange is then one table lookup. The plain form
//! is [`EngagementRules::fight`](super::rules::EngagementRules::fight),
//! which resolves each exchange as the rules state it; tests/exact.rs holds
//! both to the exact Markov chain and to each other.

use rand::Rng;

use super::deck::CardResult;
use super::rules::{
    ATTACKER, CardDeck, Combatant, DEFENDER, Draw, End, EngagementOutcome, Fate, Winner,
    resolve_exchange, settle,
};
use crate::engine::dice::{self, Digits};

/// The largest table built (entries); larger engagements take the plain path.
const TABLE_LIMIT: u64 = 1 << 20;

/// Marks a table entry as a final outcome while the table is built.
const TERMINAL: u32 = 1 << 31;

/// The most melee exchanges fought between two looks at whether the
/// engagement is over. A final outcome's state leads only to itself, so
/// the exchanges after it change nothing; one branch a group replaces one
/// an exchange, which the processor mispredicts about once a battle.
const MAX_GROUP: u32 = 4;

/// A group is the fewest exchanges (up to [`MAX_GROUP`]) that end this
/// share of melees begun at no damage.
const GROUP_ENDS: f64 = 7.0 / 8.0;

/// Every exchange of an engagement, precomputed.
#[derive(Debug, Clone)]
pub struct EngagementTable {
    /// Cards in the deck.
    cards: u32,
    /// Damage states in which both units fight on; state `live + i` is
    /// final outcome `i`.
    live: u32,
    /// Melee exchanges fought between looks (see [`MAX_GROUP`]; 1 when
    /// the cards of exchanges after the end would be missed by a rallied
    /// unit's deck).
    group: u32,
    /// How cards are picked.
    draw: Draw,
    /// Threshold for [`dice::chance`] that a routed unit rallies (0: never).
    rally_threshold: u64,
    /// Melee: `[state * cards² + attacker card * cards + defender card]`,
    /// final outcomes' states leading to themselves.
    melee: Vec<u32>,
    /// The volleys' table, when some unit shoots.
    volley: Option<VolleyTable>,
    /// Every way an engagement can end, by number (exchange and volley
    /// counts unset): first, for each damage state, the engagement cut
    /// off there at its last exchange; then each final outcome's state
    /// (`live + i`), as the table's entries lead; then the final outcomes
    /// a rally makes of them.
    finals: Vec<EngagementOutcome>,
    /// Where a final outcome leads once its routed units roll to rally:
    /// `[i * 4 + rallied]`, bit *s* of `rallied` set when side *s* rallied;
    /// below `live`, the damage state the units fight on from; from `live`
    /// on, the number of the final outcome in [`EngagementTable::finals`].
    rallied: Vec<u32>,
}

/// How an engagement fought by its table ended: which of the table's
/// final outcomes ([`EngagementTable::outcome`]), after how many melee
/// exchanges and missile volleys. Counting it costs less than counting an
/// [`EngagementOutcome`], field by field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ending {
    /// The final outcome's number.
    pub last: u32,
    /// Melee exchanges fought.
    pub exchanges: u32,
    /// Missile volleys fired.
    pub volleys: u32,
}

/// The table of one missile volley: only shooters draw a card.
#[derive(Debug, Clone)]
struct VolleyTable {
    /// Which sides shoot.
    shooters: [bool; 2],
    /// Card combinations a volley draws: cards to the number of shooters.
    symbols: u32,
    /// `[state * symbols + symbol]`, the symbol the shooters' cards in side
    /// order; final outcomes' states lead to themselves.
    next: Vec<u32>,
    /// Volleys before melee.
    volleys: u32,
    /// With die draw and few enough card combinations, the whole volley
    /// phase from the start: `[symbols^volleys]`, the first volley's symbol
    /// the leading digit, gives the state after it and the volleys fired
    /// (fewer than all when a final outcome ended it). One draw and one
    /// lookup; the same numbers as drawing volley by volley.
    opening: Option<Vec<(u32, u32)>>,
}

/// The most entries of a volley phase precomputed whole.
const OPENING_LIMIT: u64 = 4096;

/// The melee's group ([`MAX_GROUP`], [`GROUP_ENDS`]): the chain of damage
/// states stepped from no damage, every card pair equally likely.
fn melee_group(next: &[u32], live: u32, pairs: usize) -> u32 {
    let mut mass = vec![0.0f64; next.len() / pairs];
    mass[0] = 1.0;
    for group in 1..MAX_GROUP {
        let mut stepped = vec![0.0f64; mass.len()];
        for (state, &m) in mass.iter().enumerate().filter(|(_, m)| **m > 0.0) {
            for &to in &next[state * pairs..(state + 1) * pairs] {
                stepped[to as usize] += m / pairs as f64;
            }
        }
        mass = stepped;
        let over: f64 = mass[live as usize..].iter().sum();
        if over >= GROUP_ENDS {
            return group;
        }
    }
    MAX_GROUP
}

impl VolleyTable {
    /// The volley phase from the start for every combination of its
    /// symbols ([`VolleyTable::opening`]).
    fn opening_from_the_start(&self, live: u32) -> Vec<(u32, u32)> {
        let combinations = self.symbols.pow(self.volleys);
        (0..combinations)
            .map(|combination| {
                let (mut state, mut fired) = (0u32, 0u32);
                let mut place = combinations;
                for _ in 0..self.volleys {
                    place /= self.symbols;
                    let symbol = combination / place % self.symbols;
                    fired += (state < live) as u32;
                    state = self.next[(state * self.symbols + symbol) as usize];
                }
                (state, fired)
            })
            .collect()
    }
}

impl EngagementTable {
    /// Builds the table, or `None` if the engagement has too many damage
    /// states for it (the plain path then fights it). `volleys` are the
    /// missile volleys before melee.
    pub fn build(
        units: [Combatant; 2],
        melee: &[Vec<CardResult>; 2],
        missile: &[Option<Vec<CardResult>>; 2],
        draw: Draw,
        rally_threshold: u64,
        volleys: u32,
    ) -> Option<EngagementTable> {
        let cards = melee[ATTACKER].len() as u32;
        let width = units[DEFENDER].max_damage + 1;
        let states = (units[ATTACKER].max_damage as u64 + 1) * width as u64;
        let pairs = cards as u64 * cards as u64;
        let shooters = [missile[0].is_some(), missile[1].is_some()];
        let shots = shooters.iter().filter(|&&s| s).count() as u32;
        let symbols = cards.pow(shots);
        let volley_entries = if shots > 0 && volleys > 0 {
            symbols as u64
        } else {
            0
        };
        if states * (pairs + volley_entries) > TABLE_LIMIT {
            return None;
        }
        let mut terminals = Vec::new();
        let mut entry = |damage: [u32; 2], attacks: [CardResult; 2]| {
            let (new_damage, fate) = resolve_exchange(units, damage, attacks);
            match settle(fate) {
                None => new_damage[ATTACKER] * width + new_damage[DEFENDER],
                Some((winner, end)) => {
                    let outcome = EngagementOutcome {
                        winner,
                        end,
                        exchanges: 0,
                        volleys: 0,
                        damage: new_damage,
                        fate,
                    };
                    let index = terminals
                        .iter()
                        .position(|t| *t == outcome)
                        .unwrap_or_else(|| {
                            terminals.push(outcome);
                            terminals.len() - 1
                        });
                    TERMINAL | index as u32
                }
            }
        };
        let damage_of = |state: u32| [state / width, state % width];
        let mut melee_next = Vec::with_capacity((states * pairs) as usize);
        for state in 0..states as u32 {
            for a in 0..cards as usize {
                for d in 0..cards as usize {
                    let attacks = [melee[ATTACKER][a], melee[DEFENDER][d]];
                    melee_next.push(entry(damage_of(state), attacks));
                }
            }
        }
        let mut volley = (shots > 0 && volleys > 0).then(|| {
            let mut next = Vec::with_capacity((states * symbols as u64) as usize);
            for state in 0..states as u32 {
                for symbol in 0..symbols {
                    // The symbol's digits in base `cards`, the first shooter's first.
                    let mut rest = symbol;
                    let mut attacks = [CardResult::Miss; 2];
                    for side in (0..2).rev() {
                        if let Some(results) = &missile[side] {
                            attacks[side] = results[(rest % cards) as usize];
                            rest /= cards;
                        }
                    }
                    next.push(entry(damage_of(state), attacks));
                }
            }
            VolleyTable {
                shooters,
                symbols,
                next,
                volleys,
                opening: None,
            }
        });
        let live = states as u32;
        let final_state = |entry: &mut u32| {
            if *entry & TERMINAL != 0 {
                *entry = live + (*entry & !TERMINAL);
            }
        };
        melee_next.iter_mut().for_each(final_state);
        for outcome in 0..terminals.len() as u32 {
            melee_next.extend(std::iter::repeat_n(live + outcome, pairs as usize));
        }
        if let Some(volley) = &mut volley {
            volley.next.iter_mut().for_each(final_state);
            for outcome in 0..terminals.len() as u32 {
                let symbols = volley.symbols as usize;
                volley
                    .next
                    .extend(std::iter::repeat_n(live + outcome, symbols));
            }
            let combinations = (volley.symbols as u64).checked_pow(volleys);
            if draw == Draw::Die && combinations.is_some_and(|c| c <= OPENING_LIMIT) {
                volley.opening = Some(volley.opening_from_the_start(live));
            }
        }
        let (finals, rallied) = finals_and_rallies(&terminals, live, width);
        let group = if draw == Draw::Deck && rally_threshold > 0 {
            1
        } else {
            melee_group(&melee_next, live, pairs as usize)
        };
        Some(EngagementTable {
            cards,
            live,
            group,
            draw,
            rally_threshold,
            melee: melee_next,
            volley,
            finals,
            rallied,
        })
    }

    /// Fights one engagement: its missile volleys, then melee exchanges up
    /// to `max_exchanges`.
    #[inline(always)]
    pub fn fight<R: Rng>(&self, rng: &mut R, max_exchanges: u32) -> EngagementOutcome {
        self.outcome(self.fight_to_end(rng, max_exchanges))
    }

    /// The outcome of an ending.
    #[inline(always)]
    pub fn outcome(&self, ending: Ending) -> EngagementOutcome {
        EngagementOutcome {
            exchanges: ending.exchanges,
            volleys: ending.volleys,
            ..self.finals[ending.last as usize]
        }
    }

    /// Every final outcome, by number, exchange and volley counts unset.
    pub fn finals(&self) -> &[EngagementOutcome] {
        &self.finals
    }

    /// Fights one engagement as [`EngagementTable::fight`] does, on the
    /// same numbers, and says how it ended.
    #[inline(always)]
    pub fn fight_to_end<R: Rng>(&self, rng: &mut R, max_exchanges: u32) -> Ending {
        let mut digits = Digits::new(rng);
        let mut deck = match self.draw {
            Draw::Die => None,
            Draw::Deck => Some(CardDeck::new(self.cards as usize)),
        };
        let mut state = 0u32;
        let volleys = self.volley.as_ref().map_or(0, |table| table.volleys);
        let ended = |last: u32, exchanges: u32, volleys: u32| Ending {
            last,
            exchanges,
            volleys,
        };
        if let Some(table) = &self.volley {
            let mut fired = 0;
            if let Some(opening) = &table.opening {
                (state, fired) = opening[digits.below(opening.len() as u32) as usize];
                state = self.step(state, &mut digits);
                if state >= self.live {
                    return ended(state, 0, fired);
                }
            }
            while fired < volleys {
                for _ in 0..self.group.min(volleys - fired) {
                    let symbol = match &mut deck {
                        None => digits.below(table.symbols),
                        Some(deck) => {
                            let mut symbol = 0;
                            for side in [ATTACKER, DEFENDER] {
                                if table.shooters[side] {
                                    let card = deck.draw_with(|left| digits.below(left));
                                    symbol = symbol * self.cards + card as u32;
                                }
                            }
                            symbol
                        }
                    };
                    fired += (state < self.live) as u32;
                    state = table.next[(state * table.symbols + symbol) as usize];
                }
                state = self.step(state, &mut digits);
                if state >= self.live {
                    return ended(state, 0, fired);
                }
            }
        }
        let pairs = self.cards * self.cards;
        let mut exchanges = 0;
        while exchanges < max_exchanges {
            for _ in 0..self.group.min(max_exchanges - exchanges) {
                let pair = match &mut deck {
                    None => digits.below(pairs),
                    Some(deck) => {
                        let a = deck.draw_with(|left| digits.below(left));
                        let d = deck.draw_with(|left| digits.below(left));
                        a as u32 * self.cards + d as u32
                    }
                };
                exchanges += (state < self.live) as u32;
                state = self.melee[(state * pairs + pair) as usize];
            }
            state = self.step(state, &mut digits);
            if state >= self.live {
                return ended(state, exchanges, volleys);
            }
        }
        // Cut off at the last exchange: the final outcome numbered by the
        // damage state.
        ended(state, max_exchanges, volleys)
    }

    /// Where a state leads: below `live`, the damage state the units fight
    /// on from; from `live` on, the final outcome's number, after each
    /// routed unit (attacker first) rolls to rally.
    #[inline(always)]
    fn step<R: Rng>(&self, state: u32, digits: &mut Digits<'_, R>) -> u32 {
        if state < self.live || self.rally_threshold == 0 {
            return state;
        }
        let fate = self.finals[state as usize].fate;
        if !fate.contains(&Fate::Routed) {
            return state;
        }
        let mut rallied = 0;
        for (side, fate) in fate.iter().enumerate() {
            if *fate == Fate::Routed && dice::chance(digits.rng(), self.rally_threshold) {
                rallied |= 1 << side;
            }
        }
        self.rallied[((state - self.live) * 4 + rallied) as usize]
    }
}

/// The table's final outcomes ([`EngagementTable::finals`]) and where a
/// rally leads from each of `terminals` ([`EngagementTable::rallied`]):
/// the rules' own rally (a routed unit that rallies holds, and the
/// engagement is settled again) worked out once per outcome and rally.
fn finals_and_rallies(
    terminals: &[EngagementOutcome],
    live: u32,
    width: u32,
) -> (Vec<EngagementOutcome>, Vec<u32>) {
    let mut finals: Vec<EngagementOutcome> = (0..live)
        .map(|state| EngagementOutcome {
            winner: Winner::None,
            end: End::MaxExchanges,
            exchanges: 0,
            volleys: 0,
            damage: [state / width, state % width],
            fate: [Fate::Holds; 2],
        })
        .collect();
    finals.extend_from_slice(terminals);
    let mut rallied = Vec::with_capacity(terminals.len() * 4);
    for (i, terminal) in terminals.iter().enumerate() {
        for mask in 0..4u32 {
            let mut fate = terminal.fate;
            for (side, fate) in fate.iter_mut().enumerate() {
                if mask & (1 << side) != 0 && *fate == Fate::Routed {
                    *fate = Fate::Holds;
                }
            }
            let leads = match settle(fate) {
                _ if fate == terminal.fate => live + i as u32,
                None => terminal.damage[ATTACKER] * width + terminal.damage[DEFENDER],
                Some((winner, end)) => {
                    let outcome = EngagementOutcome {
                        winner,
                        end,
                        fate,
                        ..*terminal
                    };
                    let at = finals.iter().position(|f| *f == outcome);
                    at.unwrap_or_else(|| {
                        finals.push(outcome);
                        finals.len() - 1
                    }) as u32
                }
            };
            rallied.push(leads);
        }
    }
    (finals, rallied)
}
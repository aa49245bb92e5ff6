//! One 7th Sea mass battle, round by round (RULES.md §3).

use rand::Rng;

use super::roll_keep::{Pool, exploding_d10};
use super::scenario::{MAX_HEROES, PersonalRoll, Policy};
use super::tables::{Opportunity, SeaTables};
use crate::dice::Digits;

/// Engagement levels, Rear (0) to Heavily Engaged (3).
pub const REAR: usize = 0;
/// Heavily Engaged.
pub const HEAVILY_ENGAGED: usize = 3;

/// Contest rerolls (neither succeeds, or a tie) before a round is called even.
const MAX_REROLLS: u32 = 1000;
/// Duel exchanges before a duel is called off.
const MAX_DUEL_EXCHANGES: u32 = 1000;

/// A Hero's final state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeroState {
    /// Fewer Dramatic Wounds than his Resolve.
    #[default]
    Fine,
    /// Dramatic Wounds ≥ Resolve.
    Crippled,
    /// Dramatic Wounds ≥ 2 × Resolve.
    KnockedOut,
}

impl HeroState {
    /// Labels in reporting order.
    pub const LABELS: [&'static str; 3] = ["fine", "crippled", "knocked_out"];
}

/// What happened to one Hero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeroOutcome {
    /// Reputation after the halving rule.
    pub reputation: i32,
    /// Dramatic Wounds, counted up to the knock-out threshold.
    pub dramatic_wounds: u8,
    /// Final state.
    pub state: HeroState,
    /// Heroic Opportunities taken.
    pub opportunities_taken: u16,
    /// 0: no spoils (his side did not win); otherwise 1 + the Spoils row.
    pub spoils: u8,
}

/// What one battle produced.
#[derive(Debug, Clone, Copy)]
pub struct BattleOutcome {
    /// 0 or 1: that side won; 2: undecided at `max_rounds`.
    pub winner: u8,
    /// Rounds fought.
    pub rounds: u16,
    /// Per Hero.
    pub heroes: [HeroOutcome; MAX_HEROES],
}

/// A side, resolved.
#[derive(Debug, Clone, Copy)]
pub struct SideRules {
    /// Commander's Wits.
    pub wits: i64,
    /// Commander's Wits + Strategy (rolled dice).
    pub strategy_dice: i64,
    /// Supply pool, if a quartermaster.
    pub supply: Option<Pool>,
    /// Speech pool, if a speech.
    pub speech: Option<Pool>,
}

/// A Hero, resolved.
#[derive(Debug, Clone, Copy)]
pub struct HeroRules {
    /// Side index.
    pub side: usize,
    /// Wits + Tactics.
    pub personal: i64,
    /// Wits (kept dice of the keep-mode personal roll).
    pub wits: i64,
    /// Brawn.
    pub brawn: i64,
    /// Brawn + defence knack, subtracted from damage.
    pub soak: i64,
    /// Resolve.
    pub resolve: i64,
    /// Finesse.
    pub finesse: i64,
    /// Attack knack.
    pub attack: i64,
    /// Firearms knack.
    pub firearms: i64,
    /// Leadership dice added to the commander if an officer.
    pub leadership: i64,
    /// Officer.
    pub officer: bool,
    /// Commission rank.
    pub commission: i64,
    /// Kept dice removed from each damage roll by Dracheneisen.
    pub armour_kept: i64,
    /// Policy.
    pub policy: Policy,
}

/// The battle, resolved.
#[derive(Debug, Clone)]
pub struct BattleRules {
    /// The two sides.
    pub sides: [SideRules; 2],
    /// The Heroes.
    pub heroes: Vec<HeroRules>,
    /// Round cap.
    pub max_rounds: u32,
    /// Personal roll mode.
    pub personal_roll: PersonalRoll,
    /// Tables.
    pub tables: SeaTables,
}

/// Per-Hero state during a battle.
#[derive(Debug, Clone, Copy, Default)]
struct Hero {
    flesh: i64,
    wounds: i64,
    out: bool,
    reputation: i64,
    taken: u16,
    /// Forced engagement level and rounds left.
    forced: Option<(usize, u8)>,
    /// Reputation per round while forced (Hold the Line, Rescue, Lure).
    forced_reputation: i64,
    /// Hold the Line: rounds held so far.
    holding: u8,
    lure: bool,
    banner: bool,
    carrying: Option<usize>,
    surgeon: bool,
    charge: bool,
    level: usize,
}

impl Hero {
    fn state(&self, resolve: i64) -> HeroState {
        if self.wounds >= 2 * resolve {
            HeroState::KnockedOut
        } else if self.wounds >= resolve {
            HeroState::Crippled
        } else {
            HeroState::Fine
        }
    }
}

/// Pool with one rolled die fewer while carrying a banner.
#[inline]
fn minus_banner(pool: Pool, banner: bool) -> Pool {
    if banner {
        Pool::new(pool.rolled as i64 - 1, pool.kept as i64)
    } else {
        pool
    }
}

impl BattleRules {
    /// Free Raises from Supply and Speech: one per 10 points or fraction of
    /// their combined total (42 → 5).
    fn free_raises<R: Rng>(&self, dice: &mut Digits<R>, side: usize) -> i64 {
        let s = &self.sides[side];
        let total: i64 = [s.supply, s.speech]
            .iter()
            .flatten()
            .map(|p| p.sample(dice.rng()))
            .sum();
        (total + 9) / 10
    }

    /// Fights the battle.
    pub fn fight<R: Rng>(&self, rng: &mut R) -> BattleOutcome {
        let dice = &mut Digits::new(rng);
        let t = &self.tables;
        let n = self.heroes.len();
        let mut heroes = [Hero::default(); MAX_HEROES];
        let mut raises = [self.free_raises(dice, 0), self.free_raises(dice, 1)];
        let mut next_modifier = [0i64; 2];
        let mut streak = (2usize, 0u32);
        let mut winner = 2u8;
        let mut rounds = 0u32;
        while rounds < self.max_rounds && winner == 2 {
            rounds += 1;
            // 1. Engagement levels.
            for (h, r) in heroes.iter_mut().zip(&self.heroes).take(n) {
                if h.out {
                    continue;
                }
                h.level = match (h.carrying, h.forced) {
                    (Some(level), _) => level,
                    (None, Some((level, _))) => level,
                    (None, None) => match r.policy {
                        Policy::Rear => 0,
                        Policy::NotEngaged => 1,
                        Policy::Engaged => 2,
                        Policy::HeavilyEngaged => 3,
                        Policy::Adaptive => (HEAVILY_ENGAGED as i64 - h.wounds).max(0) as usize,
                    },
                };
            }
            // 2. The commanders' contest.
            let mut pools = [self.sides[0].strategy_dice, self.sides[1].strategy_dice];
            let mut helping = [false; MAX_HEROES];
            for (i, (h, r)) in heroes.iter().zip(&self.heroes).enumerate().take(n) {
                if r.officer && !h.out && !h.surgeon {
                    pools[r.side] += r.leadership;
                    helping[i] = true;
                }
            }
            let modifier = next_modifier;
            next_modifier = [0; 2];
            let round_winner = self.contest(dice, pools, modifier, &mut raises);
            if let Some(w) = round_winner {
                streak = if streak.0 == w {
                    (w, streak.1 + 1)
                } else {
                    (w, 1)
                };
                if streak.1 >= 3 {
                    winner = w as u8;
                }
            } else {
                streak = (2, 0);
            }
            // 3. Each Hero's personal result.
            for i in 0..n {
                let r = &self.heroes[i];
                let h = &mut heroes[i];
                if h.out {
                    continue;
                }
                if h.surgeon {
                    h.surgeon = false;
                    h.flesh = 0;
                    h.wounds = (h.wounds - 1).max(0);
                    continue;
                }
                let mut penalty = 0;
                if helping[i] {
                    penalty += 2;
                }
                if h.charge {
                    penalty += 2;
                }
                if h.carrying.is_some() {
                    penalty += 4;
                }
                let result = match self.personal_roll {
                    PersonalRoll::OneDie => {
                        let die = if h.banner { 0 } else { exploding_d10(dice) };
                        die + r.personal
                    }
                    PersonalRoll::Keep => {
                        minus_banner(Pool::new(r.personal, r.wits), h.banner).sample(dice.rng())
                    }
                } - penalty;
                let cell = t.chart_row(result)[h.level];
                h.reputation += cell.reputation + h.forced_reputation + i64::from(h.banner);
                if h.carrying.is_some() {
                    h.reputation += 3;
                }
                if let Some(pool) = cell.damage {
                    let pool = Pool::new(pool.rolled as i64, pool.kept as i64 - r.armour_kept);
                    let damage = minus_banner(pool, h.banner).sample(dice.rng()) - r.soak;
                    if damage > 0 {
                        h.flesh += damage;
                        let check =
                            minus_banner(Pool::new(r.brawn, r.brawn), h.banner).sample(dice.rng());
                        if check < h.flesh {
                            h.wounds += 1 + (h.flesh - check) / 20;
                            h.flesh = 0;
                        }
                    }
                }
                if h.state(r.resolve) == HeroState::KnockedOut {
                    h.out = true;
                }
                // Effects that end with this round.
                let side = r.side;
                if h.charge {
                    h.charge = false;
                    if !h.out {
                        next_modifier[side] += 1;
                    }
                }
                if let Some(level) = h.carrying {
                    if h.out {
                        h.carrying = None;
                    } else if level == REAR {
                        h.carrying = None;
                        h.reputation += 5;
                        next_modifier[side] += 5;
                    } else {
                        h.carrying = Some(level - 1);
                    }
                }
                if let Some((level, left)) = h.forced {
                    if h.holding > 0 {
                        h.holding += 1;
                    }
                    if left <= 1 || h.out {
                        if h.holding >= 3 && !h.out {
                            next_modifier[side] += 3;
                        }
                        if h.lure && !h.out {
                            next_modifier[side] += 1;
                        }
                        h.forced = None;
                        h.forced_reputation = 0;
                        h.holding = 0;
                        h.lure = false;
                    } else {
                        h.forced = Some((level, left - 1));
                    }
                }
                // A Heroic Opportunity.
                if cell.opportunity && !h.out {
                    let opportunity = self.draw_opportunity(dice);
                    self.take(dice, r, &mut heroes[i], opportunity, &mut next_modifier);
                }
            }
        }
        let mut outcome = BattleOutcome {
            winner,
            rounds: rounds as u16,
            heroes: [HeroOutcome::default(); MAX_HEROES],
        };
        for (slot, (h, r)) in outcome
            .heroes
            .iter_mut()
            .zip(heroes.iter().zip(&self.heroes))
        {
            let won = winner as usize == r.side;
            let reputation = if won {
                h.reputation
            } else {
                h.reputation.div_euclid(2)
            };
            let spoils = if won {
                1 + t.spoils_row(dice.below(10) as i64 + 1 + r.commission) as u8
            } else {
                0
            };
            *slot = HeroOutcome {
                reputation: reputation as i32,
                dramatic_wounds: h.wounds.min(2 * r.resolve) as u8,
                state: h.state(r.resolve),
                opportunities_taken: h.taken,
                spoils,
            };
        }
        outcome
    }

    /// One round of the commanders' contest: the winning side, or `None` if
    /// rerolls ran out. A side about to lose spends the fewest Free Raises
    /// that turn the loss into a win, if it has enough.
    fn contest<R: Rng>(
        &self,
        dice: &mut Digits<R>,
        pools: [i64; 2],
        modifier: [i64; 2],
        raises: &mut [i64; 2],
    ) -> Option<usize> {
        let tn = [5 * self.sides[1].wits, 5 * self.sides[0].wits];
        for _ in 0..MAX_REROLLS {
            let totals = [0, 1]
                .map(|s| Pool::new(pools[s], self.sides[s].wits).sample(dice.rng()) + modifier[s]);
            let ok = [totals[0] >= tn[0], totals[1] >= tn[1]];
            let winner = match ok {
                [true, false] => 0,
                [false, true] => 1,
                [true, true] if totals[0] != totals[1] => usize::from(totals[1] > totals[0]),
                _ => continue,
            };
            let loser = 1 - winner;
            // Raises needed: reach the TN and beat the winner's total if it succeeded.
            let needed_total = if ok[winner] {
                totals[winner] + 1
            } else {
                tn[loser]
            };
            let needed_total = needed_total.max(tn[loser]);
            let raises_needed = (needed_total - totals[loser] + 4).div_euclid(5).max(0);
            if raises_needed > 0 && raises_needed <= raises[loser] {
                raises[loser] -= raises_needed;
                return Some(loser);
            }
            return Some(winner);
        }
        None
    }

    #[inline]
    fn draw_opportunity<R: Rng>(&self, dice: &mut Digits<R>) -> Opportunity {
        let c = &self.tables.opportunity_cumulative;
        let pick = dice.below(c[8]);
        let i = c.iter().position(|&x| pick < x).expect("pick below total");
        Opportunity::ALL[i]
    }

    /// A Hero's response to an opportunity, by his policy.
    fn take<R: Rng>(
        &self,
        dice: &mut Digits<R>,
        r: &HeroRules,
        h: &mut Hero,
        opportunity: Opportunity,
        next_modifier: &mut [i64; 2],
    ) {
        let t = &self.tables;
        let crippled = h.state(r.resolve) != HeroState::Fine;
        let refuses_duels = r.policy == Policy::Adaptive && crippled;
        let busy = h.forced.is_some() || h.carrying.is_some();
        let side = r.side;
        match opportunity {
            Opportunity::Duel if refuses_duels => {
                h.reputation += t.refuse_duel_reputation;
                return;
            }
            Opportunity::CaptureEnemyBanner if refuses_duels || busy => return,
            Opportunity::HoldTheLine | Opportunity::Lure | Opportunity::RescueTheWounded
                if busy =>
            {
                return;
            }
            _ => {}
        }
        h.taken += 1;
        match opportunity {
            Opportunity::Surgeon => h.surgeon = true,
            Opportunity::PickUpBanner => h.banner = true,
            Opportunity::HoldTheLine => {
                h.forced = Some((h.level, 2));
                h.forced_reputation = match h.level {
                    3 => 2,
                    2 => 1,
                    _ => 0,
                };
                h.holding = 1;
            }
            Opportunity::Charge => {
                h.charge = true;
                h.reputation += 2;
            }
            Opportunity::LineOfFire => {
                let shot = minus_banner(Pool::new(r.finesse + r.firearms, r.finesse), h.banner)
                    .sample(dice.rng());
                if shot >= t.line_of_fire_tn {
                    h.reputation += 3;
                    next_modifier[1 - side] -= 3;
                }
            }
            Opportunity::Lure => {
                h.forced = Some((HEAVILY_ENGAGED, 1));
                h.forced_reputation = 2;
                h.lure = true;
            }
            Opportunity::RescueTheWounded => {
                h.forced = Some((HEAVILY_ENGAGED, 2));
                h.forced_reputation = 2;
            }
            Opportunity::CaptureEnemyBanner => {
                if self.duel(dice, r, h) {
                    h.carrying = Some(h.level);
                }
            }
            Opportunity::Duel => {
                if self.duel(dice, r, h) {
                    next_modifier[1 - side] -= 3;
                } else {
                    next_modifier[side] -= 3;
                }
            }
        }
    }

    /// A duel to the knock-out: each exchange both roll (Finesse + Attack)k
    /// Finesse and the lower total takes a Dramatic Wound. True if the Hero wins.
    fn duel<R: Rng>(&self, dice: &mut Digits<R>, r: &HeroRules, h: &mut Hero) -> bool {
        let o = self.tables.duel_opponent;
        let mut opponent_wounds = 0;
        let hero_pool = minus_banner(Pool::new(r.finesse + r.attack, r.finesse), h.banner);
        let opponent_pool = Pool::new(o.finesse + o.attack, o.finesse);
        for _ in 0..MAX_DUEL_EXCHANGES {
            let (mine, theirs) = (
                hero_pool.sample(dice.rng()),
                opponent_pool.sample(dice.rng()),
            );
            if mine < theirs {
                h.wounds += 1;
                if h.wounds >= 2 * r.resolve {
                    h.out = true;
                    return false;
                }
            } else if theirs < mine {
                opponent_wounds += 1;
                if opponent_wounds >= 2 * o.resolve {
                    return true;
                }
            }
        }
        false
    }
}

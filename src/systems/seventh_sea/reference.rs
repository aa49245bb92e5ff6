//! A 7th Sea mass battle rolled die by die, round by round, as the rules
//! word it (see `docs/rules.md`): the plain reference the fast battle
//! (`battle.rs`) is proven equal to, importing nothing of it, and the place where each
//! Heroic Opportunity can be scripted and watched. Every roll-and-keep roll
//! here rolls its exploding d10s, sorts them and keeps the highest; nothing
//! is tabulated ahead.

use crate::tables::cells::CellReads;
use rand::Rng;
use rand::distr::Distribution;

use super::contest::MAX_REROLLS;
use super::outcome::{BattleOutcome, HeroOutcome, HeroState};
use super::preparation::POINTS_PER_FREE_RAISE;
use super::roll_keep::Pool;
use super::round::MISSED_PER_EXTRA_WOUND;
use super::rules::{BattleRules, CAPTURE_REAR_BONUS, HEAVILY_ENGAGED, REAR};
use super::scenario::{FreeRaiseCount, MAX_HEROES, PersonalRoll, Policy, Spending};
use super::tables::Opportunity;
use crate::engine::dice;

/// A Hero's own `XkY`: holding the banner he rolls "−1 unkept die", so a
/// pool with more dice rolled than kept rolls one fewer; the ten-dice rule
/// then applies to what he rolls.
fn own_roll(rolled: i64, kept: i64, banner: bool) -> Pool {
    let rolled = if banner && rolled > kept.max(0) {
        rolled - 1
    } else {
        rolled
    };
    Pool::new(rolled, kept)
}

/// One exploding d10: a 10 is rolled again and added.
pub fn exploding_d10<R: Rng>(rng: &mut R) -> i64 {
    let mut total = 0;
    loop {
        let face = i64::from(dice::die(rng, 10));
        total += face;
        if face < 10 {
            return total;
        }
    }
}

/// Rolls `XkY` (after the ten-dice rule): every die, the highest kept.
pub fn roll<R: Rng>(pool: Pool, rng: &mut R) -> i64 {
    let mut dice: Vec<i64> = (0..pool.rolled).map(|_| exploding_d10(rng)).collect();
    dice.sort_unstable_by(|a, b| b.cmp(a));
    pool.bonus + dice.iter().take(pool.kept as usize).sum::<i64>()
}

/// An engagement level a Heroic Opportunity holds a Hero at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// Hold the Line: the level he held when he took it.
    TheLine,
    /// Lure: Heavily Engaged for one round.
    Lure,
    /// Rescue the Wounded: Heavily Engaged for two rounds.
    Rescue,
}

/// A Hero held at a level by an opportunity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Forced {
    /// Which opportunity.
    pub by: Held,
    /// The level.
    pub level: usize,
    /// Rounds still to fight there.
    pub rounds_left: u32,
    /// Reputation each of those rounds.
    pub reputation: i64,
    /// Rounds fought there so far.
    pub fought: u32,
}

/// A Hero during the battle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BookHero {
    /// Flesh Wounds.
    pub flesh: i64,
    /// Dramatic Wounds.
    pub wounds: i64,
    /// Reputation earned (before the halving rule).
    pub reputation: i64,
    /// Engagement level of his last round.
    pub level: usize,
    /// Knocked out.
    pub out: bool,
    /// Holds his own side's banner (to the end of the battle).
    pub banner: bool,
    /// Spends his next round with the surgeon.
    pub surgeon: bool,
    /// Charged: −2 on his next personal roll.
    pub charging: bool,
    /// Held at a level.
    pub forced: Option<Forced>,
    /// Carries the enemy's banner; the level it is at.
    pub carrying: Option<usize>,
    /// Opportunities taken.
    pub taken: u16,
    /// Duels won (the Duel, or for the enemy's banner).
    pub duels_won: u16,
}

/// What one Hero's round was, for the scripted tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeroRound {
    /// He fought (not out, not with the surgeon).
    pub fought: bool,
    /// Engagement level.
    pub level: usize,
    /// Penalty on his personal result.
    pub penalty: i64,
    /// Reputation of the chart cell.
    pub chart_reputation: i64,
    /// The cell offered a Heroic Opportunity.
    pub opportunity: bool,
}

/// The engagement levels' keys in a battle chart row, by level.
const LEVEL_KEYS: [&str; 4] = ["rear", "not_engaged", "engaged", "heavily_engaged"];

/// A battle in progress.
#[derive(Debug, Clone)]
pub struct BookBattle<'a> {
    /// The rules.
    pub rules: &'a BattleRules,
    /// The table cells read (counted only when switched on).
    pub reads: CellReads,
    /// The Heroes, in scenario order.
    pub heroes: Vec<BookHero>,
    /// Free Raises left to each side.
    pub raises: [i64; 2],
    /// Modifier to each commander's next Strategy roll.
    pub next_modifier: [i64; 2],
    /// The side on a winning streak and its length.
    pub streak: Option<(usize, u32)>,
    /// The side that won three rounds running.
    pub winner: Option<usize>,
    /// Rounds fought.
    pub rounds: u32,
}

impl<'a> BookBattle<'a> {
    /// Preparation: Supply and Speech rolled, one Free Raise per 10 points
    /// or fraction of their sum (or of each roll, as the battle says).
    pub fn new<R: Rng>(rules: &'a BattleRules, rng: &mut R) -> Self {
        let raises = [0, 1].map(|s| {
            let side = &rules.sides[s];
            let totals: Vec<i64> = [side.supply, side.speech]
                .into_iter()
                .flatten()
                .map(|pool| roll(pool, rng))
                .collect();
            let raises = |points: i64| (points as usize).div_ceil(POINTS_PER_FREE_RAISE) as i64;
            match rules.free_raises {
                FreeRaiseCount::Combined => raises(totals.iter().sum()),
                FreeRaiseCount::EachRoll => totals.into_iter().map(raises).sum(),
            }
        });
        BookBattle {
            rules,
            reads: CellReads::default(),
            heroes: vec![BookHero::default(); rules.heroes.len()],
            raises,
            next_modifier: [0; 2],
            streak: None,
            winner: None,
            rounds: 0,
        }
    }

    /// One round: officers help, the commanders contest, every Hero fights
    /// his round, and `offer(hero, rng)` names the opportunity a chart cell
    /// gives him (`None`: the test scripting it declines to offer one).
    pub fn round<R: Rng>(
        &mut self,
        rng: &mut R,
        offer: &mut impl FnMut(usize, &mut R) -> Option<Opportunity>,
    ) -> Vec<HeroRound> {
        let rules = self.rules;
        self.rounds += 1;
        // 1. Officers still fighting, and not with the surgeon, add their
        // Leadership dice to their commander's pool.
        let helping: Vec<bool> = (0..self.heroes.len())
            .map(|i| {
                let h = &self.heroes[i];
                rules.heroes[i].officer && !h.out && !h.surgeon
            })
            .collect();
        let mut pools = rules.sides.each_ref().map(|s| s.strategy_dice);
        for (i, r) in rules.heroes.iter().enumerate() {
            if helping[i] {
                pools[r.side] += r.leadership;
            }
        }
        // 2. The contest, with last round's modifiers.
        let modifier = std::mem::take(&mut self.next_modifier);
        match self.contest(rng, pools, modifier) {
            Some(w) => {
                let run = match self.streak {
                    Some((side, n)) if side == w => n + 1,
                    _ => 1,
                };
                self.streak = Some((w, run));
                if run >= 3 {
                    self.winner = Some(w);
                }
            }
            None => self.streak = None,
        }
        // 3. Each Hero's round.
        (0..self.heroes.len())
            .map(|i| self.hero_round(rng, i, helping[i], offer))
            .collect()
    }

    /// Both commanders roll (Wits + Strategy + help)k(Wits) plus modifiers
    /// against 5 × the enemy's Wits: one success wins; both, the higher;
    /// neither or a tie, roll again. A side about to lose spends the fewest
    /// Free Raises (+5 each) that make it win, if it has enough.
    fn contest<R: Rng>(
        &mut self,
        rng: &mut R,
        pools: [i64; 2],
        modifier: [i64; 2],
    ) -> Option<usize> {
        let sides = &self.rules.sides;
        let tn = [5 * sides[1].wits, 5 * sides[0].wits];
        for _ in 0..MAX_REROLLS {
            let totals =
                [0, 1].map(|s| roll(Pool::new(pools[s], sides[s].wits), rng) + modifier[s]);
            let made = [totals[0] >= tn[0], totals[1] >= tn[1]];
            let winner = match made {
                [true, false] => 0,
                [false, true] => 1,
                [true, true] if totals[0] > totals[1] => 0,
                [true, true] if totals[1] > totals[0] => 1,
                _ => continue,
            };
            let loser = 1 - winner;
            // He must reach his TN and beat the winner's total.
            let wanted = (totals[winner] + 1).max(tn[loser]);
            let mut need = 0;
            while totals[loser] + 5 * need < wanted {
                need += 1;
            }
            // How the loser spends: the fewest raises that turn the round;
            // none ever; or all of them the first time he would lose.
            let raises = self.raises[loser];
            return Some(match sides[loser].spending {
                Spending::AsNeeded if need <= raises => {
                    self.raises[loser] -= need;
                    loser
                }
                Spending::AsNeeded | Spending::Never => winner,
                Spending::AllAtFirstLoss if raises > 0 => {
                    self.raises[loser] = 0;
                    if need <= raises { loser } else { winner }
                }
                Spending::AllAtFirstLoss => winner,
            });
        }
        None
    }

    /// Hero `i`'s round: his level, his personal result on the battle chart,
    /// damage and Wound Check, the effects that end with the round, and an
    /// opportunity if the cell gives one.
    fn hero_round<R: Rng>(
        &mut self,
        rng: &mut R,
        i: usize,
        helping: bool,
        offer: &mut impl FnMut(usize, &mut R) -> Option<Opportunity>,
    ) -> HeroRound {
        let rules = self.rules;
        let r = &rules.heroes[i];
        let side = r.side;
        let h = &mut self.heroes[i];
        if h.out {
            return HeroRound::default();
        }
        if h.surgeon {
            // No personal roll; Flesh Wounds and one Dramatic Wound healed.
            // A banner he holds is still held: +1 Reputation for the round.
            h.surgeon = false;
            h.flesh = 0;
            h.wounds = (h.wounds - 1).max(0);
            h.reputation += i64::from(h.banner);
            return HeroRound::default();
        }
        h.level = if let Some(level) = &mut h.carrying {
            // The banner moves one level toward the Rear each round.
            *level = level.saturating_sub(1);
            *level
        } else if let Some(f) = h.forced {
            f.level
        } else {
            r.policy.level(h.wounds) as usize
        };
        let penalty = 2 * i64::from(helping)
            + 2 * i64::from(h.charging)
            + 4 * i64::from(h.carrying.is_some());
        let personal = match rules.personal_roll {
            // One exploding d10 + Wits + Tactics: no die unkept, so a
            // banner bearer keeps it.
            PersonalRoll::OneDie => r.personal + exploding_d10(rng),
            PersonalRoll::Keep => roll(own_roll(r.personal, r.wits, h.banner), rng),
        };
        let t = &rules.tables;
        let row = t.chart_row(personal - penalty);
        let cell = &t.chart[row].1[h.level];
        self.reads.note(
            "battle_chart",
            || format!("rows.{row}"),
            LEVEL_KEYS[h.level],
        );
        // Damage through Brawn and the defence knack, then a Wound Check.
        if let Some(pool) = cell.damage {
            let damage = roll(
                Pool::new(pool.rolled as i64, pool.kept as i64 - r.armour_kept),
                rng,
            );
            let through = (damage - r.soak).max(0);
            if through > 0 {
                h.flesh += through;
                let check = roll(own_roll(r.brawn, r.brawn, h.banner), rng);
                if check < h.flesh {
                    h.wounds += 1 + (h.flesh - check) / MISSED_PER_EXTRA_WOUND;
                    h.flesh = 0;
                }
            }
        }
        h.reputation += cell.reputation
            + h.forced.map_or(0, |f| f.reputation)
            + i64::from(h.banner)
            + 3 * i64::from(h.carrying.is_some());
        h.out |= h.wounds >= 2 * r.resolve;
        // Effects that end with this round.
        if std::mem::take(&mut h.charging) && !h.out {
            self.next_modifier[side] += 1;
        }
        if let Some(level) = h.carrying {
            if h.out {
                h.carrying = None;
            } else if level == REAR {
                h.carrying = None;
                h.reputation += CAPTURE_REAR_BONUS;
                self.next_modifier[side] += CAPTURE_REAR_BONUS;
            }
        }
        if let Some(f) = &mut h.forced {
            f.fought += 1;
            f.rounds_left -= 1;
            if f.rounds_left == 0 || h.out {
                match f.by {
                    Held::TheLine if f.fought == 2 && !h.out => self.next_modifier[side] += 3,
                    Held::Lure if !h.out => self.next_modifier[side] += 1,
                    _ => {}
                }
                h.forced = None;
            }
        }
        let round = HeroRound {
            fought: true,
            level: h.level,
            penalty,
            chart_reputation: cell.reputation,
            opportunity: cell.opportunity,
        };
        if cell.opportunity
            && !h.out
            && let Some(o) = offer(i, rng)
        {
            self.take(rng, i, o);
        }
        round
    }

    /// Hero `i` meets opportunity `o`: his policy takes it unless he is
    /// busy (held at a level or carrying a banner) for one that would hold
    /// him, or crippled under the adaptive policy for a duel or a capture.
    pub fn take<R: Rng>(&mut self, rng: &mut R, i: usize, o: Opportunity) {
        let rules = self.rules;
        let r = &rules.heroes[i];
        let side = r.side;
        self.reads
            .note("opportunities", || "weights".into(), o.key());
        let h = &mut self.heroes[i];
        let busy = h.forced.is_some() || h.carrying.is_some();
        let refuses_duels = r.policy == Policy::Adaptive && h.wounds >= r.resolve;
        let hold = |h: &mut BookHero, by, level, rounds, reputation| {
            h.forced = Some(Forced {
                by,
                level,
                rounds_left: rounds,
                reputation,
                fought: 0,
            });
        };
        let taken = match o {
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
                    HEAVILY_ENGAGED => 2,
                    2 => 1,
                    _ => 0,
                };
                hold(h, Held::TheLine, h.level, 2, reputation);
                true
            }
            Opportunity::Charge => {
                h.charging = true;
                h.reputation += 2;
                true
            }
            Opportunity::LineOfFire => {
                self.reads
                    .note("opportunities", String::new, "line_of_fire_tn");
                let shot = own_roll(r.finesse + r.firearms, r.finesse, h.banner);
                if roll(shot, rng) >= rules.tables.line_of_fire_tn {
                    h.reputation += 3;
                    self.next_modifier[1 - side] -= 3;
                }
                true
            }
            Opportunity::Lure if !busy => {
                hold(h, Held::Lure, HEAVILY_ENGAGED, 1, 2);
                true
            }
            Opportunity::RescueTheWounded if !busy => {
                hold(h, Held::Rescue, HEAVILY_ENGAGED, 2, 2);
                true
            }
            Opportunity::CaptureEnemyBanner if !refuses_duels && !busy => {
                note_opponent(&mut self.reads);
                if duel(rules, i, h, rng) {
                    h.carrying = Some(h.level);
                    h.duels_won += 1;
                }
                true
            }
            Opportunity::Duel if refuses_duels => {
                self.reads
                    .note("opportunities", String::new, "refuse_duel_reputation");
                h.reputation += rules.tables.refuse_duel_reputation;
                false
            }
            Opportunity::Duel => {
                note_opponent(&mut self.reads);
                if duel(rules, i, h, rng) {
                    self.next_modifier[1 - side] -= 3;
                    h.duels_won += 1;
                } else {
                    self.next_modifier[side] -= 3;
                }
                true
            }
            _ => false,
        };
        h.taken += u16::from(taken);
    }

    /// The battle's end: Reputation kept whole by the winners and halved
    /// (rounded down) for the others; Spoils for the winners.
    pub fn outcome<R: Rng>(&mut self, rng: &mut R) -> BattleOutcome {
        let spoils = &self.rules.tables.spoils;
        let mut heroes = [HeroOutcome::default(); MAX_HEROES];
        for ((slot, h), r) in heroes.iter_mut().zip(&self.heroes).zip(&self.rules.heroes) {
            let won = self.winner == Some(r.side);
            let state = if h.wounds >= 2 * r.resolve {
                HeroState::KnockedOut
            } else if h.wounds >= r.resolve {
                HeroState::Crippled
            } else {
                HeroState::Fine
            };
            *slot = HeroOutcome {
                reputation: if won {
                    h.reputation
                } else {
                    // Half, the fraction dropped: −3 halves to −1.
                    h.reputation / 2
                } as i32,
                dramatic_wounds: h.wounds.min(2 * r.resolve) as u8,
                state,
                opportunities_taken: h.taken,
                // Winners roll for Spoils; a Hero who won a duel also takes
                // the opponent's belongings, one lot per duel won, beside
                // whatever he rolled.
                spoils: if won {
                    let row = r.spoils_by_face[dice::die(rng, 10) as usize - 1];
                    self.reads
                        .note("spoils", || format!("rows.{}", spoils[row as usize].1), "");
                    1 + row
                } else {
                    0
                },
                duels_won: h.duels_won,
            };
        }
        BattleOutcome {
            winner: self.winner.map_or(2, |w| w as u8),
            rounds: self.rounds as u16,
            heroes,
        }
    }
}

/// A duel reads the opponent's three figures.
fn note_opponent(reads: &mut CellReads) {
    for figure in ["attack", "finesse", "resolve"] {
        reads.note("opportunities", || "duel_opponent".into(), figure);
    }
}

/// A duel to the knock-out: each exchange both roll (Finesse + Attack)k
/// Finesse, the lower total takes a Dramatic Wound, ties replay. True if
/// the Hero wins.
fn duel<R: Rng>(rules: &BattleRules, i: usize, h: &mut BookHero, rng: &mut R) -> bool {
    let r = &rules.heroes[i];
    let o = rules.tables.duel_opponent;
    let mine = own_roll(r.finesse + r.attack, r.finesse, h.banner);
    let theirs = Pool::new(o.finesse + o.attack, o.finesse);
    let mut opponent_wounds = 0;
    while h.wounds < 2 * r.resolve {
        let (a, b) = (roll(mine, rng), roll(theirs, rng));
        if a < b {
            h.wounds += 1;
        } else if b < a {
            opponent_wounds += 1;
            if opponent_wounds >= 2 * o.resolve {
                return true;
            }
        }
    }
    h.out = true;
    false
}

/// Fights one battle by the book, opportunities drawn from the table.
pub fn fight_by_the_book<R: Rng>(rules: &BattleRules, rng: &mut R) -> BattleOutcome {
    fight_noting_reads(rules, rng, &mut CellReads::default())
}

/// [`fight_by_the_book`], noting in `reads` every table cell the battle reads.
pub fn fight_noting_reads<R: Rng>(
    rules: &BattleRules,
    rng: &mut R,
    reads: &mut CellReads,
) -> BattleOutcome {
    let mut battle = BookBattle::new(rules, rng);
    battle.reads = std::mem::take(reads);
    let mut draw =
        |_: usize, rng: &mut R| Some(Opportunity::ALL[rules.tables.opportunities.sample(rng)]);
    while battle.winner.is_none() && battle.rounds < rules.max_rounds {
        battle.round(rng, &mut draw);
    }
    let outcome = battle.outcome(rng);
    *reads = battle.reads;
    outcome
}

#[cfg(test)]
mod tests {
    use crate::systems::contract::BattleSystem;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::engine::stream::BattleStream;
    use crate::engine::{System, Tally};
    use crate::stats::compare::disagreements;
    use crate::systems::seventh_sea::SeventhSea;

    fn bundled(file: &str) -> SeventhSea {
        let path = format!("scenarios/seventh_sea/{file}");
        let text = std::fs::read_to_string(&path).unwrap();
        SeventhSea::from_scenario(&text, &path, &crate::tables::TableFiles::in_folder(std::path::Path::new(".")))
            .unwrap()
            .1
    }

    /// The fast path against the book, on every bundled 7th Sea battle:
    /// every value of every metric inside a family-wise 99.9% band.
    #[test]
    fn the_fast_battle_is_the_battle_by_the_book() {
        for file in [
            "even_field_battle.toml",
            "officer_tips_the_balance.toml",
            "rout_of_a_weaker_army.toml",
        ] {
            let sea = bundled(file);
            let n = 100_000;
            let mut fast = sea.new_tally();
            let mut book = sea.new_tally();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
            for battle in 0..n {
                fast.record(&sea.simulate(&mut BattleStream::battle(5, battle)));
                book.record(&fight_by_the_book(&sea.rules, &mut rng));
            }
            let (fast, book) = (fast.metrics(), book.metrics());
            let bad = disagreements(&fast, &book, 0.001);
            assert!(
                bad.is_empty(),
                "{file}: the fast path differs from the book: {bad:#?}"
            );
        }
    }

    /// The fast path against the book on `text` (a scenario), at `n` battles.
    fn assert_fast_is_book(text: &str, n: usize, what: &str) {
        let sea = sea(text);
        let mut fast = sea.new_tally();
        let mut book = sea.new_tally();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(17);
        for battle in 0..n {
            fast.record(&sea.simulate(&mut BattleStream::battle(17, battle as u64)));
            book.record(&fight_by_the_book(&sea.rules, &mut rng));
        }
        let bad = disagreements(&fast.metrics(), &book.metrics(), 0.001);
        assert!(
            bad.is_empty(),
            "{what}: the fast path differs from the book: {bad:#?}"
        );
    }

    fn even_field() -> String {
        std::fs::read_to_string("scenarios/seventh_sea/even_field_battle.toml").unwrap()
    }

    /// The even field with the Montaigne (side 0) spending as `spending`.
    fn montaigne_spending(spending: &str) -> String {
        let text = even_field().replacen(
            "speech = { wits = 3, incitation = 2 }         # optional: Speech raises\n",
            &format!("speech = {{ wits = 3, incitation = 2 }}\nspending = \"{spending}\"\n"),
            1,
        );
        assert!(text.contains("spending = "));
        text
    }

    fn sea(text: &str) -> SeventhSea {
        SeventhSea::from_scenario(text, "edited", &crate::tables::TableFiles::in_folder(std::path::Path::new(".")))
            .unwrap()
            .1
    }

    /// Rules no bundled battle uses: the personal roll kept (Wits +
    /// Tactics)k(Wits), Dracheneisen of both strengths, every way of
    /// spending Free Raises, and Free Raises counted per roll.
    #[test]
    fn the_fast_battle_is_the_book_with_kept_rolls_dracheneisen_and_each_spending() {
        let keep = even_field()
            .replacen(
                "max_rounds = 50\n",
                "max_rounds = 50\npersonal_roll = \"keep\"\n",
                1,
            )
            .replacen("dracheneisen = 0\n", "dracheneisen = 8\n", 1)
            .replacen("commission = 2\n", "commission = 2\ndracheneisen = 13\n", 1);
        assert_eq!(keep.matches("dracheneisen = ").count(), 2);
        assert!(keep.contains("personal_roll = \"keep\""));
        assert_fast_is_book(&keep, 100_000, "kept rolls and Dracheneisen");
        for spending in ["never", "all_at_first_loss"] {
            let text = montaigne_spending(spending).replace(
                "speech = { wits = 2, incitation = 3 }\n",
                &format!("speech = {{ wits = 2, incitation = 3 }}\nspending = \"{spending}\"\n"),
            );
            assert_eq!(text.matches("spending = ").count(), 2, "{spending}");
            assert_fast_is_book(&text, 100_000, spending);
        }
        let each_roll = montaigne_spending("as_needed").replacen(
            "max_rounds = 50\n",
            "max_rounds = 50\nfree_raises = \"each_roll\"\n",
            1,
        );
        assert!(each_roll.contains("free_raises = \"each_roll\""));
        assert_fast_is_book(&each_roll, 100_000, "Free Raises of each roll");
    }

    /// Free Raises by the book: never spent, a side keeps all it drew; all
    /// at the first loss, none are left once it has lost a round.
    #[test]
    fn each_way_of_spending_free_raises_by_the_book() {
        let never = sea(&montaigne_spending("never"));
        assert_eq!(never.rules.sides[0].spending, Spending::Never);
        // Castille buys no raises, so every round it takes is one the
        // Montaigne lost outright.
        let all = sea(&montaigne_spending("all_at_first_loss")
            .replacen("quartermaster = { wits = 3, logistics = 2 }\n", "", 1)
            .replacen("speech = { wits = 2, incitation = 3 }\n", "", 1));
        // Over many rounds, a side that never spends ends with all it
        // drew; one that spends all at its first loss ends with none once
        // it has lost a round.
        let mut rng = rng();
        let (mut kept, mut lost_with_raises) = (0, 0);
        for _ in 0..200 {
            let mut b = BookBattle::new(&never.rules, &mut rng);
            let start = b.raises[0];
            while b.winner.is_none() && b.rounds < 50 {
                b.round(&mut rng, &mut |_, _| None);
            }
            assert_eq!(b.raises[0], start, "never spent");
            kept += start;
            let mut b = BookBattle::new(&all.rules, &mut rng);
            let had = b.raises[0];
            let mut lost_one = false;
            while b.winner.is_none() && b.rounds < 50 {
                b.round(&mut rng, &mut |_, _| None);
                // Side 1 took the round: side 0 lost one.
                lost_one |= b.streak.is_some_and(|(side, _)| side == 1);
            }
            if had > 0 && lost_one {
                assert_eq!(b.raises[0], 0, "all spent at the first loss");
                lost_with_raises += 1;
            }
        }
        assert!(
            kept > 0 && lost_with_raises > 20,
            "{kept} {lost_with_raises}"
        );
    }

    /// The even-field rules with Isabeau (Hero 0) unbreakable and a
    /// swordsman (Finesse and Attack 10) or a straw man (0) as asked.
    fn scripted(sword: bool) -> BattleRules {
        let mut rules = bundled("even_field_battle.toml").rules;
        let h = &mut rules.heroes[0];
        h.resolve = 100;
        let skill = if sword { 10 } else { 0 };
        (h.finesse, h.attack, h.firearms) = (skill, skill, skill);
        rules
    }

    /// One round in which no cell offers an opportunity to anyone.
    fn quiet_round(b: &mut BookBattle, rng: &mut Xoshiro256PlusPlus) -> HeroRound {
        b.round(rng, &mut |_, _| None)[0]
    }

    fn rng() -> Xoshiro256PlusPlus {
        Xoshiro256PlusPlus::seed_from_u64(3)
    }

    #[test]
    fn surgeon_skips_a_round_and_heals() {
        let rules = scripted(true);
        let mut rng = rng();
        let mut b = BookBattle::new(&rules, &mut rng);
        (b.heroes[0].flesh, b.heroes[0].wounds) = (7, 2);
        b.take(&mut rng, 0, Opportunity::Surgeon);
        let before = b.heroes[0].reputation;
        let round = quiet_round(&mut b, &mut rng);
        assert!(!round.fought);
        assert_eq!((b.heroes[0].flesh, b.heroes[0].wounds), (0, 1));
        assert_eq!(b.heroes[0].reputation, before);
        assert_eq!(b.heroes[0].taken, 1);
        assert!(quiet_round(&mut b, &mut rng).fought, "one round only");
        // A banner bearer still holds the banner at the surgeon's: +1.
        let mut b = BookBattle::new(&rules, &mut rng);
        b.heroes[0].banner = true;
        b.take(&mut rng, 0, Opportunity::Surgeon);
        let before = b.heroes[0].reputation;
        quiet_round(&mut b, &mut rng);
        assert_eq!(b.heroes[0].reputation, before + 1, "the banner's round");
    }

    #[test]
    fn pick_up_the_banner_earns_one_a_round_to_the_end() {
        let rules = scripted(true);
        let mut rng = rng();
        let mut b = BookBattle::new(&rules, &mut rng);
        b.take(&mut rng, 0, Opportunity::PickUpBanner);
        for _ in 0..3 {
            let before = b.heroes[0].reputation;
            let round = quiet_round(&mut b, &mut rng);
            assert_eq!(b.heroes[0].reputation - before, round.chart_reputation + 1);
        }
        assert!(b.heroes[0].banner);
        // Offered again, the banner he holds is no opportunity taken.
        let taken = b.heroes[0].taken;
        b.take(&mut rng, 0, Opportunity::PickUpBanner);
        assert_eq!(b.heroes[0].taken, taken, "a second banner counted");
    }

    #[test]
    fn hold_the_line_keeps_the_level_two_rounds_then_adds_three() {
        let rules = scripted(true);
        let mut rng = rng();
        let mut b = BookBattle::new(&rules, &mut rng);
        b.heroes[0].level = HEAVILY_ENGAGED; // Isabeau's policy is Engaged.
        b.take(&mut rng, 0, Opportunity::HoldTheLine);
        for round in 0..2 {
            let before = b.heroes[0].reputation;
            let r = quiet_round(&mut b, &mut rng);
            assert_eq!(r.level, HEAVILY_ENGAGED);
            assert_eq!(b.heroes[0].reputation - before, r.chart_reputation + 2);
            let expected = if round == 1 { 3 } else { 0 };
            assert_eq!(b.next_modifier[0], expected, "round {round}");
        }
        assert_eq!(quiet_round(&mut b, &mut rng).level, 2, "back to his policy");
        // Held at Engaged it earns 1 a round; busy, he cannot take a Lure.
        b.heroes[0].level = 2;
        b.take(&mut rng, 0, Opportunity::HoldTheLine);
        let taken = b.heroes[0].taken;
        b.take(&mut rng, 0, Opportunity::Lure);
        assert_eq!(b.heroes[0].taken, taken, "a held Hero declines a Lure");
        let before = b.heroes[0].reputation;
        let r = quiet_round(&mut b, &mut rng);
        assert_eq!(b.heroes[0].reputation - before, r.chart_reputation + 1);
    }

    #[test]
    fn charge_pays_two_costs_two_then_helps_the_general() {
        let rules = scripted(true);
        let mut rng = rng();
        let mut b = BookBattle::new(&rules, &mut rng);
        let before = b.heroes[0].reputation;
        b.take(&mut rng, 0, Opportunity::Charge);
        assert_eq!(b.heroes[0].reputation - before, 2);
        assert_eq!(b.next_modifier, [0, 0], "not the next contest");
        let r = quiet_round(&mut b, &mut rng);
        assert_eq!(r.penalty, 2);
        assert_eq!(b.next_modifier, [1, 0], "the contest after");
        assert_eq!(quiet_round(&mut b, &mut rng).penalty, 0);
    }

    #[test]
    fn line_of_fire_hits_the_enemy_general_or_misses() {
        for (sword, hit) in [(true, true), (false, false)] {
            let rules = scripted(sword);
            let mut rng = rng();
            let mut b = BookBattle::new(&rules, &mut rng);
            b.take(&mut rng, 0, Opportunity::LineOfFire);
            let (reputation, modifier) = if hit { (3, [0, -3]) } else { (0, [0, 0]) };
            assert_eq!(b.heroes[0].reputation, reputation);
            assert_eq!(b.next_modifier, modifier);
        }
    }

    #[test]
    fn lure_is_one_round_heavily_engaged_then_plus_one() {
        let rules = scripted(true);
        let mut rng = rng();
        let mut b = BookBattle::new(&rules, &mut rng);
        b.take(&mut rng, 0, Opportunity::Lure);
        let before = b.heroes[0].reputation;
        let r = quiet_round(&mut b, &mut rng);
        assert_eq!(r.level, HEAVILY_ENGAGED);
        assert_eq!(b.heroes[0].reputation - before, r.chart_reputation + 2);
        assert_eq!(b.next_modifier, [1, 0]);
        assert_eq!(quiet_round(&mut b, &mut rng).level, 2);
    }

    #[test]
    fn rescue_is_two_rounds_heavily_engaged_at_two_each() {
        let rules = scripted(true);
        let mut rng = rng();
        let mut b = BookBattle::new(&rules, &mut rng);
        b.take(&mut rng, 0, Opportunity::RescueTheWounded);
        for _ in 0..2 {
            let before = b.heroes[0].reputation;
            let r = quiet_round(&mut b, &mut rng);
            assert_eq!(r.level, HEAVILY_ENGAGED);
            assert_eq!(b.heroes[0].reputation - before, r.chart_reputation + 2);
            assert_eq!(b.next_modifier, [0, 0]);
        }
        assert_eq!(quiet_round(&mut b, &mut rng).level, 2);
    }

    /// Captured at Heavily Engaged, the banner reaches the Rear in three
    /// rounds (Engaged, Not Engaged, Rear), at −4 and +3 a round, and the
    /// +5 comes at the end of the third.
    #[test]
    fn a_captured_banner_walks_back_one_level_a_round_from_the_first() {
        let rules = scripted(true);
        let mut rng = rng();
        let mut b = BookBattle::new(&rules, &mut rng);
        b.heroes[0].level = HEAVILY_ENGAGED;
        b.take(&mut rng, 0, Opportunity::CaptureEnemyBanner);
        assert_eq!(
            b.heroes[0].carrying,
            Some(HEAVILY_ENGAGED),
            "the swordsman wins"
        );
        for (round, level) in [2, 1, 0].into_iter().enumerate() {
            let before = b.heroes[0].reputation;
            let r = quiet_round(&mut b, &mut rng);
            assert_eq!((r.level, r.penalty), (level, 4), "round {round}");
            let bonus = if level == REAR { CAPTURE_REAR_BONUS } else { 0 };
            assert_eq!(
                b.heroes[0].reputation - before,
                r.chart_reputation + 3 + bonus
            );
            assert_eq!(b.next_modifier, [bonus, 0]);
        }
        assert_eq!(b.heroes[0].carrying, None);
        assert_eq!(quiet_round(&mut b, &mut rng).penalty, 0);
    }

    #[test]
    fn a_duel_won_or_lost_moves_a_general_and_a_crippled_adaptive_hero_refuses() {
        let rules = scripted(true);
        let mut rng = rng();
        let mut b = BookBattle::new(&rules, &mut rng);
        b.take(&mut rng, 0, Opportunity::Duel);
        assert_eq!(b.next_modifier, [0, -3], "won: the enemy's general loses 3");
        let mut weak = scripted(false);
        weak.heroes[0].resolve = 2;
        let mut b = BookBattle::new(&weak, &mut rng);
        b.take(&mut rng, 0, Opportunity::Duel);
        assert_eq!(b.next_modifier, [-3, 0], "lost: his own general loses 3");
        assert!(b.heroes[0].out && b.heroes[0].wounds == 4);
        // Lucienne (Hero 2) is adaptive: crippled, she refuses and is branded.
        let mut b = BookBattle::new(&rules, &mut rng);
        b.heroes[2].wounds = rules.heroes[2].resolve;
        b.take(&mut rng, 2, Opportunity::Duel);
        assert_eq!(b.heroes[2].reputation, rules.tables.refuse_duel_reputation);
        assert_eq!((b.heroes[2].taken, b.next_modifier), (0, [0, 0]));
    }

    /// A duel's winner also takes the opponent's belongings: each duel won
    /// counts, on either side, and his Spoils roll is reported as rolled
    /// beside them (a purse stays a purse). The loser of a duel takes
    /// nothing.
    #[test]
    fn a_duel_won_takes_the_opponents_belongings_beside_the_spoils_roll() {
        let rules = scripted(true);
        let mut rng = rng();
        let mut b = BookBattle::new(&rules, &mut rng);
        b.take(&mut rng, 0, Opportunity::Duel);
        b.take(&mut rng, 0, Opportunity::Duel);
        assert_eq!(
            b.heroes[0].duels_won, 2,
            "two duels, two lots of belongings"
        );
        b.winner = Some(1);
        let lost_battle = b.outcome(&mut rng);
        assert_eq!(
            (
                lost_battle.heroes[0].spoils,
                lost_battle.heroes[0].duels_won
            ),
            (0, 2)
        );
        assert_eq!(lost_battle.heroes[1].duels_won, 0, "no duel, no belongings");
        // On the winning side his roll is his roll: every row the table's
        // 1d10 + Commission reaches turns up, the lowest among them.
        b.winner = Some(0);
        let lowest = rules.heroes[0].spoils_by_face[0] + 1;
        let rolls: Vec<u8> = (0..400)
            .map(|_| b.outcome(&mut rng).heroes[0].spoils)
            .collect();
        assert!(
            rolls.contains(&lowest),
            "the lowest row {lowest} among {rolls:?}"
        );
        let mut weak = scripted(false);
        weak.heroes[0].resolve = 2;
        let mut b = BookBattle::new(&weak, &mut rng);
        b.take(&mut rng, 0, Opportunity::Duel);
        b.winner = Some(1);
        assert_eq!(b.outcome(&mut rng).heroes[0].duels_won, 0, "a lost duel");
    }

    /// The losers' Reputation is halved with the fraction dropped: 7 → 3,
    /// −3 → −1 (toward zero, not −2).
    #[test]
    fn halving_drops_the_fraction() {
        let rules = scripted(true);
        let mut rng = rng();
        let mut b = BookBattle::new(&rules, &mut rng);
        b.winner = Some(1);
        for (earned, kept) in [(7, 3), (-3, -1), (-4, -2), (1, 0), (-1, 0)] {
            b.heroes[0].reputation = earned;
            assert_eq!(b.outcome(&mut rng).heroes[0].reputation, kept, "{earned}");
        }
    }
}

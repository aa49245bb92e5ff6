//! 7th Sea (1st edition) mass battle (docs/rules.md §3): preparation raises,
//! the commanders' contest to three consecutive wins, each Hero's personal
//! result, wounds, Heroic Opportunities and Reputation.

pub mod address;
pub mod banner;
pub mod battle;
pub mod contest;
pub mod duel;
pub mod exact;
pub mod opportunities;
pub mod outcome;
pub mod preparation;
pub mod reference;
pub mod roll_keep;
pub mod round;
pub mod rules;
pub mod scenario;
pub mod tables;

use crate::stats::identity::{Identity, Pick::*, Subject::*, bins};
use std::fmt::Write as _;

use anyhow::Result;

use self::battle::Laws;
use self::outcome::{BattleOutcome, HeroState};
use self::roll_keep::Pool;
use self::rules::{BattleRules, HeroRules, SideRules};
use self::scenario::{FreeRaiseCount, Parsed, PersonalRoll};
use self::tables::SeaTables;
use crate::tables::TableFiles;
use crate::engine::histograms::{Hist, Histograms};
use crate::engine::inverse::InverseLaw;
use crate::engine::stream::BattleStream;
use crate::engine::{System, Tally};
use crate::stats::MetricRole::{self, Detail};
use crate::stats::{Metric, Weight};
use crate::systems::contract::{BattleSystem, Layout};
use crate::systems::party::{Parties, PartyBattle};
use crate::tables::TableUse;
use crate::tables::cells::CellReads;
use crate::tables::validate::{CrossKeyRule, Header, as_written};

/// Largest Reputation change one round can bring, for histogram bounds.
const MAX_REPUTATION_PER_ROUND: i64 = 30;
/// Largest Reputation loss one round can bring (refusing a duel).
const MIN_REPUTATION_PER_ROUND: i64 = -10;

/// A validated 7th Sea battle.
#[derive(Debug, Clone)]
pub struct SeventhSea {
    /// As validated.
    pub parsed: Parsed,
    /// Resolved rules.
    pub rules: BattleRules,
    /// Their fast laws.
    pub laws: Laws,
}

impl SeventhSea {
    /// Resolves the battle for simulation.
    pub fn new(parsed: Parsed, tables: SeaTables) -> SeventhSea {
        let sides = [0, 1].map(|s| {
            let f = &parsed.sides[s];
            let supply = f
                .quartermaster
                .map(|q| Pool::new(q.wits + q.logistics, q.wits));
            let speech = f
                .speech
                .map(|sp| Pool::new(sp.wits + sp.incitation, sp.wits));
            SideRules {
                wits: f.commander.wits,
                strategy_dice: f.commander.wits + f.commander.strategy,
                supply,
                speech,
                free_raises: InverseLaw::new(&preparation::free_raises_law(
                    supply,
                    speech,
                    parsed.free_raises,
                )),
                spending: f.spending,
            }
        });
        let heroes: Vec<HeroRules> = parsed
            .heroes
            .iter()
            .map(|(h, side)| HeroRules {
                side: *side,
                personal: h.wits + h.tactics,
                wits: h.wits,
                brawn: h.brawn,
                soak: h.brawn + h.defence_knack,
                resolve: h.resolve,
                finesse: h.finesse,
                attack: h.attack,
                firearms: h.firearms,
                leadership: h.leadership,
                officer: h.officer,
                spoils_by_face: std::array::from_fn(|face| {
                    tables.spoils_row(face as i64 + 1 + h.commission) as u8
                }),
                armour_kept: match h.dracheneisen {
                    0 => 0,
                    1..=12 => 1,
                    _ => 2,
                },
                policy: h.policy,
                line_of_fire_hit: [false, true].map(|banner| {
                    let shot = banner::own_pool(h.finesse + h.firearms, h.finesse, banner);
                    roll_keep::reach_chance(shot, tables.line_of_fire_tn)
                }),
            })
            .collect();
        let rules = BattleRules {
            sides,
            officers: (0..heroes.len()).filter(|&i| heroes[i].officer).collect(),
            heroes,
            max_rounds: parsed.max_rounds,
            personal_roll: parsed.personal_roll,
            free_raises: parsed.free_raises,
            tables,
        };
        let laws = Laws::new(&rules);
        SeventhSea {
            parsed,
            rules,
            laws,
        }
    }

    /// The sides' names.
    pub fn side_names(&self) -> [&str; 2] {
        [&self.parsed.sides[0].name, &self.parsed.sides[1].name]
    }

    /// Lowest Reputation a Hero can end with.
    fn reputation_first(&self) -> i64 {
        MIN_REPUTATION_PER_ROUND * self.rules.max_rounds as i64
    }
}

/// Histograms of every 7th Sea metric, each declared once in
/// [`SeaTally::new`], in report order.
#[derive(Debug, Clone, PartialEq)]
pub struct SeaTally<W> {
    hists: Histograms<W>,
    /// Battles by winner: the first side, the second, undecided.
    winner: Hist,
    rounds: Hist,
    heroes: Vec<HeroHists>,
    parties: Parties,
    reputation_first: i64,
}

/// One Hero's histograms.
#[derive(Debug, Clone, PartialEq)]
struct HeroHists {
    reputation: Hist,
    wounds: Hist,
    state: Hist,
    taken: Hist,
    spoils: Hist,
    duels_won: Hist,
}

impl<W: Weight> SeaTally<W> {
    /// An empty tally sized for the battle.
    pub fn new(g: &SeventhSea) -> Self {
        let rounds = g.rules.max_rounds as usize;
        let rep_bins =
            ((MAX_REPUTATION_PER_ROUND - MIN_REPUTATION_PER_ROUND) * rounds as i64 + 1) as usize;
        let mut h = Histograms::default();
        let [first, second] = g.side_names();
        let victory = ["won", "lost", "undecided"];
        let role = |side: &str| MetricRole::Victory {
            side: side.to_owned(),
        };
        let winner = h.categorical(&format!("side:{first}"), "victory", &victory, role(first));
        // The second side's victory is the first's turned round.
        let subject = format!("side:{second}");
        h.turned((&subject, "victory"), victory, role(second), winner);
        let rounds_hist = h.integers("battle", "rounds", 0, rounds + 1, Detail);
        let mut spoils = vec!["none".to_owned()];
        spoils.extend(g.rules.tables.spoils.iter().map(|(_, l)| l.clone()));
        let heroes = (g.parsed.heroes.iter().zip(&g.rules.heroes))
            .map(|((file, _), rules)| {
                let pc = file.name.clone();
                let subject = format!("hero:{pc}");
                let fame = MetricRole::Fame { pc: pc.clone() };
                let first = g.reputation_first();
                let reputation = h.integers(&subject, "reputation", first, rep_bins, fame);
                let wound_bins = 2 * rules.resolve as usize + 1;
                let wounds = h.integers(&subject, "dramatic_wounds", 0, wound_bins, Detail);
                let fate = MetricRole::Fate {
                    pc,
                    out: vec![HeroState::KnockedOut as usize],
                    dead: None,
                };
                let state = h.categorical(&subject, "state", &HeroState::LABELS, fate);
                let taken = h.integers(&subject, "opportunities_taken", 0, rounds + 1, Detail);
                let spoils = h.categorical(&subject, "spoils", &spoils, Detail);
                let duels_won = h.integers(&subject, "duels_won", 0, rounds + 1, Detail);
                HeroHists {
                    reputation,
                    wounds,
                    state,
                    taken,
                    spoils,
                    duels_won,
                }
            })
            .collect();
        let side_of: Vec<usize> = g.rules.heroes.iter().map(|h| h.side).collect();
        let out = ("knocked_out", "knocked out");
        let parties = Parties::declare(&mut h, &side_of, g.side_names(), false, out);
        SeaTally {
            hists: h,
            winner,
            rounds: rounds_hist,
            heroes,
            parties,
            reputation_first: g.reputation_first(),
        }
    }

    /// The metrics, in report order.
    pub fn metrics(&self) -> Vec<Metric<W>> {
        self.hists.metrics()
    }

    /// Adds one battle with a weight.
    #[inline]
    pub fn add(&mut self, o: &BattleOutcome, w: W) {
        let h = &mut self.hists;
        h.add(self.winner, o.winner as usize, w);
        h.add(self.rounds, o.rounds as usize, w);
        let mut party = PartyBattle::default();
        for (i, (pc, ho)) in self.heroes.iter().zip(&o.heroes).enumerate() {
            let out = ho.state == HeroState::KnockedOut;
            party.pc(&self.parties, i, out, false);
            // The tables' ranges keep every round within the bounds above.
            let reputation = (ho.reputation as i64 - self.reputation_first) as usize;
            h.add(pc.reputation, reputation, w);
            h.add(pc.wounds, ho.dramatic_wounds as usize, w);
            h.add(pc.state, ho.state as usize, w);
            h.add(pc.taken, ho.opportunities_taken as usize, w);
            h.add(pc.spoils, ho.spoils as usize, w);
            h.add(pc.duels_won, ho.duels_won as usize, w);
        }
        self.parties.add(h, &party, w);
    }
}

impl Tally<BattleOutcome> for SeaTally<u64> {
    #[inline]
    fn record_weighted(&mut self, outcome: &BattleOutcome, weight: u64) {
        self.add(outcome, weight);
    }

    #[inline]
    fn for_each_slice(&mut self, mut visit: impl FnMut(&mut [u64])) {
        visit(self.hists.counts_mut());
    }

    fn counted_once_each(&self) -> bool {
        self.hists.counted_once_each()
    }
}

impl BattleSystem for SeventhSea {
    const NAME: &'static str = "seventh_sea";
    const TITLE: &'static str = "7th Sea";
    const STARTER: &'static str = include_str!("starter.toml");
    const CHECK_RULES: &'static [CrossKeyRule] = &[
        CrossKeyRule {
            refuses: "`leadership` above 0 on a Hero who is not an officer",
            says: "is not an officer",
        },
        CrossKeyRule {
            refuses: "an officer with `leadership` 0",
            says: "an officer adds his Leadership",
        },
        CrossKeyRule {
            refuses: "the Battle Chart's rows out of order (increasing `min_result`)",
            says: "with increasing min_result",
        },
        CrossKeyRule {
            refuses: "the Battle Chart's first row other than the catch-all `min_result = -999`",
            says: "must be the catch-all",
        },
        CrossKeyRule {
            refuses: "the Spoils' rows out of order (increasing `min_roll`)",
            says: "with increasing min_roll",
        },
        CrossKeyRule {
            refuses: "the Spoils' first row above `min_roll = 1`",
            says: "must take the lowest roll",
        },
        CrossKeyRule {
            refuses: "Heroic Opportunity weights all 0",
            says: "not all 0",
        },
    ];

    fn metric_words(metric: &str) -> Option<(&'static str, Option<&'static str>)> {
        Some(match metric {
            "victory" => ("victory", None),
            "state" => ("state after the battle", None),
            "reputation" => ("Reputation gained", Some("points")),
            "rounds" => ("rounds fought", Some("rounds")),
            "dramatic_wounds" => ("Dramatic Wounds", Some("wounds")),
            "opportunities_taken" => ("Heroic Opportunities taken", Some("opportunities")),
            "spoils" => ("Spoils rolled", None),
            "duels_won" => ("duels won (belongings taken)", Some("duels")),
            "any_knocked_out" => ("anyone knocked out", None),
            "knocked_out" => ("PCs knocked out", Some("PCs")),
            _ => return None,
        })
    }

    /// Spoils `none` (the Hero's side lost or the battle was undecided: no
    /// roll) and `nothing` (won, and rolled nothing) told apart.
    fn value_words(metric: &str, value: &str) -> Option<&'static str> {
        match (metric, value) {
            ("spoils", "none") => Some("none (the Hero's side did not win)"),
            ("spoils", "nothing") => Some("nothing (won, rolled nothing)"),
            _ => None,
        }
    }

    /// The second side's commander's Strategy swept and solved for; the
    /// first side's victory as the sensitivity's target.
    fn example_questions(doc: &serde_json::Value) -> serde_json::Value {
        let sides = &doc["sides"];
        let (Some(a), Some(b)) = (sides[0]["name"].as_str(), sides[1]["name"].as_str()) else {
            return serde_json::json!({});
        };
        let mut examples = serde_json::json!({
            "sweep": { "set": [format!("sides.{b}.commander.strategy=1..5")] },
            "solve": {
                "vary": format!("sides.{b}.commander.strategy=1..5"),
                "target": format!("side:{a}/victory=won"),
                "goal": { "at_least": 0.5 }
            },
            "sensitivity": { "target": format!("side:{a}/victory=won") }
        });
        // The Battle Chart is read by Heroes only: a tune of it needs one.
        if doc["heroes"].as_array().is_some_and(|h| !h.is_empty()) {
            examples["tune"] = serde_json::json!({
                "goals": [format!("side:{a}/victory=won in 45%..55%")],
                "cell_tables": ["battle_chart"]
            });
        }
        examples
    }

    /// Parses and validates a 7th Sea scenario.
    fn from_scenario(text: &str, origin: &str, files: &TableFiles) -> Result<(Header, SeventhSea)> {
        let (parsed, tables) = scenario::parse(text, origin, files)?;
        let header = parsed.header.clone();
        Ok((header, SeventhSea::new(parsed, tables)))
    }

    /// Provenance of the tables.
    fn tables(&self) -> &[TableUse] {
        &self.rules.tables.uses
    }

    /// The chart, the opportunities and the Spoils are read by Heroes only.
    fn reads_table(&self, name: &str) -> bool {
        !self.rules.heroes.is_empty() || !scenario::TABLE_NAMES.contains(&name)
    }

    /// Only a winner's Spoils read the Spoils table; every outcome reads
    /// the chart and the opportunities (a Hero's round moves his side's
    /// contest through his officer's help and his deeds), where a Hero
    /// fights.
    fn metric_tables(&self, _subject: &str, metric: &str) -> Vec<&str> {
        scenario::TABLE_NAMES
            .into_iter()
            .filter(|&t| (metric == "spoils" || t != "spoils") && self.reads_table(t))
            .collect()
    }

    /// Spoils rows no Hero of this battle can roll: 1d10 + his Commission
    /// reaches `1 + c` to `10 + c`.
    fn check_notes(&self) -> Vec<String> {
        let spoils = &self.rules.tables.spoils;
        let commissions: Vec<i64> = self
            .parsed
            .heroes
            .iter()
            .map(|(h, _)| h.commission)
            .collect();
        if commissions.is_empty() {
            return Vec::new();
        }
        (0..spoils.len())
            .filter(|&i| {
                let low = spoils[i].0;
                let high = spoils.get(i + 1).map_or(i64::MAX, |next| next.0 - 1);
                !commissions.iter().any(|c| low <= 10 + c && *c < high)
            })
            .map(|i| {
                let highest = commissions.iter().max().map_or(10, |c| 10 + c);
                let lowest = commissions.iter().min().map_or(1, |c| 1 + c);
                format!(
                    "table spoils: row `{}` (min_roll = {}) is never rolled here: its Heroes roll {lowest} to {highest} (1d10 + Commission)",
                    spoils[i].1, spoils[i].0
                )
            })
            .collect()
    }

    fn read_cells<R: rand::Rng>(&self, rng: &mut R, reads: &mut CellReads) {
        reference::fight_noting_reads(&self.rules, rng, reads);
    }

    /// Rules whose published form is unknown.
    fn stand_in_rules(&self) -> Vec<String> {
        use self::contest::MAX_REROLLS;
        use self::preparation::POINTS_PER_FREE_RAISE;
        use self::round::MISSED_PER_EXTRA_WOUND;
        use self::rules::CAPTURE_REAR_BONUS;
        vec![
            format!(
                "seventh_sea: Free Raises = one per {POINTS_PER_FREE_RAISE} points or fraction of {} (`free_raises = \"{}\"`; the other reading is `{}`)",
                match self.rules.free_raises {
                    FreeRaiseCount::Combined => "Supply + Speech combined",
                    FreeRaiseCount::EachRoll => "each of Supply and Speech",
                },
                as_written(&self.rules.free_raises),
                match self.rules.free_raises {
                    FreeRaiseCount::Combined => "each_roll",
                    FreeRaiseCount::EachRoll => "combined",
                },
            ),
            "seventh_sea: an officer adds his Leadership as rolled dice to the commander's (Wits+Strategy)kWits".to_owned(),
            format!(
                "seventh_sea: a battle in which no side has won three rounds in a row after `max_rounds` rounds ({} here) is undecided",
                self.rules.max_rounds
            ),
            format!(
                "seventh_sea: the contest is rerolled on neither/tie up to {} times, then the round is even (streaks reset)",
                crate::stats::format::thousands(u64::from(MAX_REROLLS))
            ),
            format!(
                "seventh_sea: Wound Check on each damage taken: Brawn k Brawn against total Flesh Wounds; +1 Dramatic Wound per full {MISSED_PER_EXTRA_WOUND} missed"
            ),
            "seventh_sea: Heroic Opportunity effects start next round; fixed policies take every opportunity; adaptive refuses duels and banner captures once crippled".to_owned(),
            "seventh_sea: a knocked-out Hero takes no further part; an undecided battle halves Reputation like a loss".to_owned(),
            "seventh_sea: Pick up the Banner is held to the end of the battle".to_owned(),
            "seventh_sea: the banner bearer's own rolls (personal roll, Wound Checks, duel, Line of Fire) roll one unkept die fewer, taken before the ten-dice rule; a pool with no unkept die (Brawn k Brawn, the one-die personal roll) is untouched; damage rolled against him is unchanged; a round with the surgeon still earns the banner's +1".to_owned(),
            format!(
                "seventh_sea: a captured enemy banner moves one level toward the Rear every round it is carried, starting with the first; +{CAPTURE_REAR_BONUS} Reputation and +{CAPTURE_REAR_BONUS} Strategy on the next roll at the end of the round it reaches the Rear"
            ),
            "seventh_sea: Charge's +1 Strategy lands on the commanders' roll after the round it ends, two contests after the opportunity".to_owned(),
            "seventh_sea: a Surgeon round (no personal roll) also pauses Hold the Line, Rescue the Wounded and a carried banner: none advances that round".to_owned(),
            "seventh_sea: a duel runs to 2 x Resolve Dramatic Wounds on one side; each exchange the lower (Finesse+Attack)kFinesse total takes one, ties replay".to_owned(),
            "seventh_sea: Free Raises are spent by each side's `spending` (default as_needed: the fewest that turn a round it would lose, if it has that many; the seed does not say when they are spent)".to_owned(),
            "seventh_sea: a Hero who won a duel (or the duel for the enemy banner) takes the opponent's belongings whichever side won: `duels_won` counts them beside his Spoils roll".to_owned(),
        ]
    }

    /// A readable account for `warcrunch check`.
    fn describe(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "max_rounds: {}, personal_roll: {}, free_raises: {}",
            self.rules.max_rounds,
            as_written(&self.rules.personal_roll),
            as_written(&self.rules.free_raises)
        );
        for (s, side) in self.parsed.sides.iter().enumerate() {
            let r = &self.rules.sides[s];
            let _ = writeln!(
                out,
                "side {}: commander rolls {} against TN {}; supply {}, speech {}",
                side.name,
                Pool::new(r.strategy_dice, r.wits),
                5 * self.rules.sides[1 - s].wits,
                r.supply.map_or("none".to_owned(), |p| p.to_string()),
                r.speech.map_or("none".to_owned(), |p| p.to_string()),
            );
        }
        for ((h, _), r) in self.parsed.heroes.iter().zip(&self.rules.heroes) {
            let _ = writeln!(
                out,
                "hero {} ({}): policy {}, personal roll {}, soak {}, Resolve {} (crippled at {}, knocked out at {}){}",
                h.name,
                h.side,
                as_written(&r.policy),
                match self.rules.personal_roll {
                    PersonalRoll::OneDie => format!("d10 + {}", r.personal),
                    PersonalRoll::Keep => Pool::new(r.personal, r.wits).to_string(),
                },
                r.soak,
                r.resolve,
                r.resolve,
                2 * r.resolve,
                if r.officer {
                    format!(
                        ", officer (+{} dice to the commander, -2 personal)",
                        r.leadership
                    )
                } else {
                    String::new()
                }
            );
        }
        out
    }

    fn metrics_of(&self, tally: &SeaTally<u64>) -> Vec<Metric<u64>> {
        tally.metrics()
    }

    const IDENTITIES: &'static [Identity] = &[
        // A Hero is knocked out exactly when his Dramatic Wounds are full.
        Identity::Same(
            bins(Each("hero"), "state", These(&["knocked_out"])),
            bins(Each("hero"), "dramatic_wounds", Last),
        ),
        // A party has someone knocked out when it counts one or more.
        Identity::Same(
            bins(Each("party"), "any_knocked_out", These(&["yes"])),
            bins(Each("party"), "knocked_out", AllBut(&["0"])),
        ),
    ];

    const EXACT_ODDS: Option<&'static str> = None;


    fn exact(&self) -> Result<Vec<Metric<f64>>> {
        exact::exact_metrics(self)
    }

    /// Every variant's contest laws and round draws built once where the
    /// variants agree on what they are built from.
    fn sharing_laws(variants: &[&Self]) -> Option<Vec<Self>> {
        if variants.len() < 2 {
            return None;
        }
        let shared = std::sync::Arc::new(battle::SharedLaws::default());
        Some(
            variants
                .iter()
                .map(|v| SeventhSea {
                    parsed: v.parsed.clone(),
                    rules: v.rules.clone(),
                    laws: v.laws.sharing(&v.rules, std::sync::Arc::clone(&shared)),
                })
                .collect(),
        )
    }

    fn scenario_layout() -> Layout {
        Layout::of::<scenario::ScenarioFile>("seventh_sea", "7th Sea mass-battle scenario")
    }

    fn table_layouts() -> Vec<Layout> {
        use self::tables::{ChartFile, OpportunityFile, SpoilsFile};
        vec![
            Layout::of::<ChartFile>("battle_chart", "7th Sea table: battle_chart"),
            Layout::of::<OpportunityFile>("opportunities", "7th Sea table: opportunities"),
            Layout::of::<SpoilsFile>("spoils", "7th Sea table: spoils"),
        ]
    }
}

impl System for SeventhSea {
    type Outcome = BattleOutcome;
    type Tally = SeaTally<u64>;

    fn new_tally(&self) -> SeaTally<u64> {
        SeaTally::new(self)
    }

    #[inline]
    fn simulate(&self, rng: &mut BattleStream) -> BattleOutcome {
        self.laws.fight(&self.rules, rng)
    }
}

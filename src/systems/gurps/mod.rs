//! GURPS mass combat (docs/rules.md §2): Catastrophe, the Strategy contest,
//! every PC's Survival and Glory, casualties, over one or more days.

pub mod address;
pub mod battle;
pub mod casualties;
pub mod catastrophe;
pub mod damage;
pub mod exact;
pub mod glory;
pub mod ground;
pub mod morale;
pub mod outcome;
pub mod readings;
pub mod reference;
pub mod rules;
pub mod scenario;
pub mod strategy;
pub mod success;
pub mod survival;
pub mod tables;

use crate::stats::identity::{Identity, Pick::*, Subject::*, bins};
use std::fmt::Write as _;

use anyhow::Result;

use self::battle::Laws;
use self::casualties::armour_rows;
use self::morale::base_morale;
use self::outcome::{BattleOutcome, State};
use self::rules::{BattleRules, COMBAT_CAP, HeroRules, SideRules};
use self::scenario::{CommanderGone, Defector, LeaderFall, Parsed, Role};
use self::tables::{GurpsTables, TABLE_NAMES};
use crate::tables::TableFiles;
use crate::engine::histograms::{Hist, Histograms};
use crate::engine::stream::BattleStream;
use crate::engine::{System, Tally};
use crate::stats::MetricRole::{self, Detail};
use crate::stats::{Metric, Weight};
use crate::systems::contract::{BattleSystem, Layout};
use crate::systems::party::{Parties, PartyBattle};
use crate::tables::TableUse;
use crate::tables::cells::CellReads;
use crate::tables::validate::{CrossKeyRule, Header, as_written};

/// A validated GURPS battle.
#[derive(Debug, Clone)]
pub struct Gurps {
    /// The scenario as validated.
    pub parsed: Parsed,
    /// Resolved rules.
    pub rules: BattleRules,
    /// Their fast laws.
    pub laws: Laws,
}

/// The PC who commands side `s`'s army, if one does.
fn pc_general(parsed: &Parsed, s: usize) -> Option<&scenario::Hero> {
    (parsed.heroes.iter()).find(|h| h.side == s && h.file.role == Role::ArmyCommander)
}

impl Gurps {
    /// Resolves the battle for simulation.
    pub fn new(parsed: Parsed, tables: GurpsTables) -> Gurps {
        let st = &tables.strategy;
        let sides: [SideRules; 2] = std::array::from_fn(|s| {
            let side = &parsed.sides[s];
            let enemy = &parsed.sides[1 - s];
            let tl_lead = side.tech_level - enemy.tech_level;
            let mut fixed = side.file.gm_modifier;
            if tl_lead > 0 {
                fixed += tl_lead + st.tl_bonus_add;
            }
            if side.file.class_superiority {
                fixed += st.class_superiority;
            }
            if side.file.attacker {
                fixed += enemy.position_modifier;
            }
            SideRules {
                strategy: side.file.strategy,
                troop_strength: side.file.troop_strength as f64,
                percent_per_troop: 100.0 / side.file.troop_strength as f64,
                tech_level: side.tech_level,
                fixed_modifier: fixed,
                // A PC who commands the army is the commander: his own
                // Luck, not the side's flag, goes to its Catastrophe roll.
                commander_luck: match pc_general(&parsed, s) {
                    Some(h) => h.file.luck,
                    None => side.file.commander_luck,
                },
                catastrophe_modifier: side.file.catastrophe_modifier,
                armour_rows: armour_rows(&tables, side.file.armour),
                armour: side.file.armour.key(),
                morale: base_morale(&tables, side.file.troop_quality),
                quality: side.file.troop_quality.key(),
                major_units: side.file.major_units as u32,
            }
        });
        let heroes = parsed
            .heroes
            .iter()
            .map(|h| {
                let enemy_tl = parsed.sides[1 - h.side].tech_level;
                let band = tables.damage_band(enemy_tl);
                let dice =
                    |d: &tables::HitDice| (enemy_tl * d.tl_num).div_euclid(d.tl_den) + d.dice;
                HeroRules {
                    side: h.side,
                    role: h.file.role,
                    combat_skill: h.combat_skill,
                    risk: h.file.risk,
                    luck: h.file.luck,
                    hp: h.hp,
                    ht: h.file.ht,
                    major_unit: h.major_unit.map(|u| u as u32),
                    enemy_hit: [dice(&band.a), band.a.add, dice(&band.c), band.c.add],
                    // The enemy's Tech Level divides his armour; Toughness
                    // counts whole (damage comes off "taking Toughness
                    // into account").
                    dr: h.file.dr / band.dr_divisor + h.file.toughness,
                    own_dr: h.file.dr + h.file.toughness,
                    toughness: h.file.toughness,
                }
            })
            .collect();
        let rules = BattleRules {
            sides,
            heroes,
            days: parsed.days,
            defector: parsed.defector,
            leader_fall: parsed.leader_fall,
            commander_gone: parsed.commander_gone,
            defender: (parsed.sides.iter())
                .position(|s| s.file.attacker)
                .map(|attacker| 1 - attacker),
            tables,
        };
        let laws = Laws::new(&rules);
        Gurps {
            parsed,
            rules,
            laws,
        }
    }

    /// The sides' names.
    pub fn side_names(&self) -> [&str; 2] {
        [
            &self.parsed.sides[0].file.name,
            &self.parsed.sides[1].file.name,
        ]
    }

    /// Upper bound of HP a PC can lose over the battle.
    fn max_hp_lost(&self, hero: &HeroRules) -> usize {
        let t = &self.rules.tables;
        let hits = t.damage.hits;
        let per_hit = |dice: i64, add: i64| (6 * dice.max(0) + add).max(0);
        let column = [
            hits.A * per_hit(hero.enemy_hit[0], hero.enemy_hit[1]),
            hits.B * per_hit(hero.enemy_hit[0], hero.enemy_hit[1]),
            hits.C * per_hit(hero.enemy_hit[2], hero.enemy_hit[3]),
            hits.D * per_hit(hero.enemy_hit[2], hero.enemy_hit[3]),
        ];
        let worst_row = t
            .survival
            .iter()
            .map(|r| r.hp_lost().max(r.column.map_or(0, |c| column[c as usize])))
            .max()
            .unwrap_or(0);
        ((worst_row + 12) * self.rules.days as i64) as usize
    }
}

/// Histograms of every GURPS metric, each declared once in
/// [`GurpsTally::new`], in report order.
#[derive(Debug, Clone, PartialEq)]
pub struct GurpsTally<W> {
    hists: Histograms<W>,
    /// Battles by winner: the first side, the second, a draw.
    winner: Hist,
    result: Hist,
    /// The defender's ground, where a side attacks.
    ground: Option<Hist>,
    casualties: [Hist; 2],
    catastrophe: [Hist; 2],
    heroes: Vec<HeroHists>,
    parties: Parties,
    reputation_first: i64,
}

/// One PC's histograms.
#[derive(Debug, Clone, PartialEq)]
struct HeroHists {
    survival: Hist,
    hp_lost: Hist,
    state: Hist,
    glory: Hist,
    reputation: Hist,
    /// An army commander's: not captured, captured.
    captured: Option<Hist>,
}

impl<W: Weight> GurpsTally<W> {
    fn new(g: &Gurps) -> Self {
        let t = &g.rules.tables;
        let days = g.rules.days as i64;
        let (low, high) = t.reputation_range();
        let (rep_min, rep_max) = (low * days, high * days);
        let mut h = Histograms::default();
        let victory = ["won", "lost", "draw"];
        let names = g.side_names();
        let mut winner = None;
        let mut casualties = Vec::new();
        let mut catastrophe = Vec::new();
        for name in names {
            let subject = format!("side:{name}");
            let role = MetricRole::Victory {
                side: name.to_owned(),
            };
            match winner {
                None => winner = Some(h.categorical(&subject, "victory", &victory, role)),
                // The second side's victory is the first's turned round.
                Some(first) => h.turned((&subject, "victory"), victory, role, first),
            }
            casualties.push(h.integers(&subject, "casualties_pct", 0, 101, Detail));
            catastrophe.push(h.integers(&subject, "catastrophe", 3, 16, Detail));
        }
        let results = tables::labels(&t.battle_results);
        let result = h.categorical("battle", "result", &results, MetricRole::Outcome);
        let ground = g.rules.defender.map(|d| {
            let subject = format!("side:{}", names[d]);
            let role = MetricRole::Ground {
                side: names[d].to_owned(),
                kept: vec![ground::Fate::Holds as usize, ground::Fate::HoldsOnMorale as usize],
            };
            h.categorical(&subject, "ground", &ground::Fate::LABELS, role)
        });
        let no_roll_and = |rows: Vec<String>| -> Vec<String> {
            std::iter::once("no_roll".to_owned()).chain(rows).collect()
        };
        let survival_labels = no_roll_and(tables::labels(&t.survival));
        let glory_labels = no_roll_and(tables::labels(&t.glory));
        let heroes = (g.parsed.heroes.iter().zip(&g.rules.heroes))
            .map(|(file, rules)| {
                let pc = file.file.name.clone();
                let subject = format!("hero:{pc}");
                let role = MetricRole::Survival { pc: pc.clone() };
                let survival = h.categorical(&subject, "survival", &survival_labels, role);
                let hp_lost = h.integers(&subject, "hp_lost", 0, g.max_hp_lost(rules) + 1, Detail);
                let fate = MetricRole::Fate {
                    pc: pc.clone(),
                    out: vec![State::Down as usize, State::Dead as usize],
                    dead: Some(State::Dead as usize),
                };
                let state = h.categorical(&subject, "state", &State::LABELS, fate);
                let glory = h.categorical(&subject, "glory", &glory_labels, Detail);
                let bins = (rep_max - rep_min + 1) as usize;
                let fame = MetricRole::Fame { pc };
                let reputation = h.integers(&subject, "reputation", rep_min, bins, fame);
                let captured = (rules.role == Role::ArmyCommander)
                    .then(|| h.categorical(&subject, "captured", &["no", "yes"], Detail));
                HeroHists {
                    survival,
                    hp_lost,
                    state,
                    glory,
                    reputation,
                    captured,
                }
            })
            .collect();
        let side_of: Vec<usize> = g.rules.heroes.iter().map(|h| h.side).collect();
        let out = ("down_or_dead", "down or dead");
        let parties = Parties::declare(&mut h, &side_of, names, true, out);
        GurpsTally {
            hists: h,
            winner: winner.expect("two sides"),
            result,
            ground,
            casualties: [casualties[0], casualties[1]],
            catastrophe: [catastrophe[0], catastrophe[1]],
            heroes,
            parties,
            reputation_first: rep_min,
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
        h.add(self.result, o.result as usize, w);
        if let Some(ground) = self.ground {
            h.add(ground, o.ground as usize, w);
        }
        for s in 0..2 {
            h.add(self.casualties[s], o.casualties_pct[s] as usize, w);
            h.add(self.catastrophe[s], o.catastrophe[s] as usize - 3, w);
        }
        let mut party = PartyBattle::default();
        for (i, (pc, ho)) in self.heroes.iter().zip(&o.heroes).enumerate() {
            let out = ho.state >= State::Down;
            party.pc(&self.parties, i, out, ho.state == State::Dead);
            h.add(pc.survival, ho.survival as usize, w);
            h.add(pc.hp_lost, ho.hp_lost as usize, w);
            h.add(pc.state, ho.state as usize, w);
            h.add(pc.glory, ho.glory as usize, w);
            let reputation = (ho.reputation as i64 - self.reputation_first) as usize;
            h.add(pc.reputation, reputation, w);
            if let Some(captured) = pc.captured {
                h.add(captured, usize::from(ho.captured), w);
            }
        }
        self.parties.add(h, &party, w);
    }
}

impl Tally<BattleOutcome> for GurpsTally<u64> {
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

impl BattleSystem for Gurps {
    const NAME: &'static str = "gurps";
    const TITLE: &'static str = "GURPS";
    const STARTER: &'static str = include_str!("starter.toml");
    const WORDS_FROM_TABLES: &'static [(&'static str, &'static str, &'static str)] =
        &[("position", "strategy", "position")];
    const CHECK_RULES: &'static [CrossKeyRule] = &[
        CrossKeyRule {
            refuses: "both sides attacking",
            says: "both sides have attacker",
        },
        CrossKeyRule {
            refuses: "a `position` on the attacking side",
            says: "positions belong to the defender",
        },
        CrossKeyRule {
            refuses: "a `position` with no attacker",
            says: "no side has `attacker = true`",
        },
        CrossKeyRule {
            refuses: "a `position` entry the strategy table does not list",
            says: "position` has",
        },
        CrossKeyRule {
            refuses: "a Hero with neither `tactics` nor `iq`",
            says: "give `tactics` or `iq`",
        },
        CrossKeyRule {
            refuses: "Risk outside what the Hero's traits allow (coward or reserve: not below −1; overconfident: not above +1; berserk: not above 0)",
            says: "PC may choose",
        },
        CrossKeyRule {
            refuses: "more PC unit commanders than `major_units`",
            says: "PC unit commanders but major_units",
        },
        CrossKeyRule {
            refuses: "two army commanders on one side",
            says: "has two army commanders",
        },
        CrossKeyRule {
            refuses: "battle results that do not start at a draw (`min_margin = 0`) and increase",
            says: "must start at min_margin = 0",
        },
        CrossKeyRule {
            refuses: "Survival's and Glory's rows out of their order, best first",
            says: "with decreasing min_margin",
        },
        CrossKeyRule {
            refuses: "Survival's and Glory's last row other than the catch-all `min_margin = -999`",
            says: "must be the catch-all",
        },
        CrossKeyRule {
            refuses: "a damage band giving more than 64 dice per hit at some Tech Level",
            says: "dice per hit at TL",
        },
    ];

    fn metric_words(metric: &str) -> Option<(&'static str, Option<&'static str>)> {
        Some(match metric {
            "victory" => ("victory", None),
            "casualties_pct" => ("casualties", Some("% of Troop Strength")),
            "catastrophe" => ("first day's Catastrophe roll", Some("3d6")),
            "result" => ("battle result", None),
            "survival" => ("worst Survival result", None),
            "hp_lost" => ("HP lost", Some("HP")),
            "state" => ("state after the battle", None),
            "glory" => ("last Glory result", None),
            "reputation" => ("Reputation gained", Some("points")),
            "captured" => ("captured", None),
            "ground" => ("the defender's ground", None),
            "any_down_or_dead" => ("anyone down or dead", None),
            "any_dead" => ("anyone dead", None),
            "down_or_dead" => ("PCs down or dead", Some("PCs")),
            _ => return None,
        })
    }

    fn metric_note(metric: &str) -> Option<&'static str> {
        match metric {
            "survival" => {
                Some("A to D: injury rolled on that column of the Damage table (D the worst)")
            }
            _ => None,
        }
    }

    /// Troop Strength of the second side swept around its value, solved for
    /// an even battle; the party's danger as the sensitivity's target.
    fn example_questions(doc: &serde_json::Value) -> serde_json::Value {
        let sides = &doc["sides"];
        let (a, b) = (sides[0]["name"].as_str(), sides[1]["name"].as_str());
        let (Some(a), Some(b)) = (a, b) else {
            return serde_json::json!({
                "sensitivity": { "target": "party/any_down_or_dead=yes" }
            });
        };
        let strength = sides[1]["troop_strength"].as_i64().unwrap_or(1000);
        let step = (strength as f64 / 10.0).round().max(1.0) as i64;
        serde_json::json!({
            "sweep": {
                "set": [format!("sides.{b}.troop_strength={}..{}:{step}", strength - 3 * step, strength + 3 * step)]
            },
            "solve": {
                "vary": format!("sides.{b}.troop_strength=100..{}", 4 * strength),
                "target": format!("side:{a}/victory=won"),
                "goal": { "equals": 0.5 }
            },
            "sensitivity": { "target": "party/any_down_or_dead=yes" },
            "tune": {
                "goals": ["party/any_down_or_dead=yes <= 10%"],
                "cell_tables": ["survival"]
            }
        })
    }

    /// Parses and validates a GURPS scenario.
    fn from_scenario(text: &str, origin: &str, files: &TableFiles) -> Result<(Header, Gurps)> {
        let (parsed, tables) = scenario::parse(text, origin, files)?;
        let source = |name: &'static str| {
            tables
                .uses
                .iter()
                .find(|t| t.name == name)
                .map_or(name, |t| t.source.as_str())
        };
        success::check_reachable(&tables.survival, source("survival"))
            .and_then(|()| success::check_reachable(&tables.glory, source("glory")))
            .map_err(|e| anyhow::anyhow!("{origin}: {e}"))?;
        let header = parsed.header.clone();
        Ok((header, Gurps::new(parsed, tables)))
    }

    /// Provenance of the tables.
    fn tables(&self) -> &[TableUse] {
        &self.rules.tables.uses
    }

    /// Survival, damage and Glory are read by PCs only.
    fn reads_table(&self, name: &str) -> bool {
        !self.rules.heroes.is_empty() || !["survival", "damage", "glory"].contains(&name)
    }

    /// In a one-day battle, each outcome reads the tables of the steps
    /// that lead to it (docs/rules.md §2): the Catastrophe roll none; the
    /// contest the Catastrophe and Strategy tables; the result those and
    /// the battle results; casualties those two and the casualty and
    /// Morale tables; a PC's fate the contest's (his penalty) and his
    /// Survival and damage; an army commander's capture those and the
    /// battle results; his Glory the Catastrophe (which may keep him from
    /// rolling) and Glory. Over more days every outcome feeds the next
    /// day's, so each rests on every table read.
    fn metric_tables(&self, subject: &str, metric: &str) -> Vec<&str> {
        const CONTEST: [&str; 2] = ["catastrophe", "strategy"];
        // Under `same_day` a PC leader's fall in his Survival roll reaches
        // the day's contest and casualties.
        let falls = self.rules.leader_fall == LeaderFall::SameDay
            && self.rules.heroes.iter().any(|h| h.role != Role::Soldier);
        let steps: &[&str] = match metric {
            "catastrophe" => &[],
            _ if self.rules.days > 1 => &TABLE_NAMES,
            "victory" if falls => &["catastrophe", "strategy", "survival", "damage"],
            "result" if falls => &["catastrophe", "strategy", "battle_results", "survival", "damage"],
            "ground" if falls => &[
                "catastrophe",
                "strategy",
                "battle_results",
                "morale",
                "survival",
                "damage",
            ],
            "casualties_pct" if falls => &[
                "catastrophe",
                "strategy",
                "casualties",
                "morale",
                "survival",
                "damage",
            ],
            "victory" => &CONTEST,
            "result" => &["catastrophe", "strategy", "battle_results"],
            "ground" => &["catastrophe", "strategy", "battle_results", "morale"],
            "casualties_pct" => &["catastrophe", "strategy", "casualties", "morale"],
            "glory" | "reputation" => &["catastrophe", "glory"],
            "captured" => &[
                "catastrophe",
                "strategy",
                "battle_results",
                "survival",
                "damage",
            ],
            "survival" | "hp_lost" | "state" => &["catastrophe", "strategy", "survival", "damage"],
            _ if subject == "party" => &["catastrophe", "strategy", "survival", "damage"],
            _ => &TABLE_NAMES,
        };
        TABLE_NAMES
            .into_iter()
            .filter(|t| steps.contains(t) && self.reads_table(t))
            .collect()
    }

    fn read_cells<R: rand::Rng>(&self, rng: &mut R, reads: &mut CellReads) {
        reference::fight_noting_reads(&self.rules, rng, reads);
        // Fixed modifiers, read every day.
        let st = &self.parsed.sides;
        for _ in 0..self.rules.days {
            for s in 0..2 {
                let (side, enemy) = (&st[s], &st[1 - s]);
                if side.tech_level > enemy.tech_level {
                    reads.note("strategy", String::new, "tl_bonus_add");
                }
                if side.file.class_superiority {
                    reads.note("strategy", String::new, "class_superiority");
                }
                if side.file.attacker {
                    for entry in &enemy.file.position {
                        reads.note("strategy", || "position".into(), entry);
                    }
                }
            }
        }
    }

    fn held_by_readings(&self, paths: &[Vec<String>]) -> Vec<String> {
        readings::victory_held(&self.parsed, &self.rules, paths)
            .into_iter()
            .collect()
    }

    /// Rules whose published form is unknown.
    fn stand_in_rules(&self) -> Vec<String> {
        use self::morale::ROUT_MARGIN;
        use self::scenario::{DEFAULT_MAJOR_UNITS, TACTICS_BELOW_IQ};
        use self::survival::LOSING_PENALTY_STEP;
        let mut rules = vec![
            format!("gurps: Tactics default IQ-{TACTICS_BELOW_IQ} and (Tactics + weapon)/2 round down"),
            format!("gurps: losing side: \u{2212}1 Survival per full {LOSING_PENALTY_STEP} points of margin"),
            format!("gurps: Glory skill = min({COMBAT_CAP}, Combat skill - Risk); losing-side penalty applies to Survival only"),
            format!("gurps: a catastrophe striking a major unit picks one of `major_units` (default {DEFAULT_MAJOR_UNITS}) at random; PC unit commanders are among them"),
            "gurps: a leader wounded by catastrophe takes 2d - his own DR (undivided: no enemy weapon) and still makes his Survival and Glory rolls that day; 'killed' leaves a PC wounded (the same 2d - DR) and unconscious, with no Survival or Glory roll".to_owned(),
            "gurps: a commander captured by an overwhelming victory (battle result row with captures_commander) counts as killed on every later day: his side's base Strategy is halved; a PC commander taken alive makes no further roll and shows captured = yes".to_owned(),
            "gurps: HT rolls: one consciousness roll at 0 HP or below, one death check per multiple of -HT crossed; unconscious PCs sit out later days".to_owned(),
            format!("gurps: a side beaten by {ROUT_MARGIN}+ rolls Morale (quality + catastrophe morale) and routs on a failure"),
            "gurps: the atrocity's Morale roll (+1 made, \u{2212}1 failed) is rolled for the whole army when it matters, at the rout check".to_owned(),
            "gurps: not modelled: a catastrophe's Morale penalty to the one struck unit (\u{2212}2 or \u{2212}3 to that unit); Morale is rolled for the army as a whole".to_owned(),
            "gurps: a PC army commander knocked out by a catastrophe 15/16 wound halves his side's base Strategy that same day".to_owned(),
            "gurps: Toughness comes off every wound; armour DR does not stop the fixed 1 HP / 2 HP Survival rows".to_owned(),
            "gurps: catastrophe Troop Strength changes (enemy reinforced, ally defects) are permanent; casualties_pct is counted against the initial Troop Strength".to_owned(),
            "gurps: Troop-Strength ratios beyond 10:1 with a lead of more than 2 TLs add +1 per further factor of ten".to_owned(),
            "gurps: armour's DR divided at high TL rounds down; Toughness is never divided (it counts whole against every hit, the fixed 1 HP / 2 HP rows and a catastrophe's wound)".to_owned(),
            match self.rules.leader_fall {
                LeaderFall::NextDay => "gurps: the Strategy contest is settled before the PCs' Survival and Glory, so a PC leader's fall reaches only the days after: in a one-day battle no PC's Risk changes the winner (leader_fall = \"next_day\", the default; \"same_day\" lets a PC general's fall halve that day's final Strategy roll)",
                LeaderFall::SameDay => "gurps: a PC leader who falls in his Survival roll counts as out that same day: a PC army commander's side has its base Strategy halved for the day's final roll (the contest settled again on the same dice; the PCs' Survival keeps the first margin), and a fallen leader's Morale counts in that day's casualties (leader_fall = \"same_day\"; the default, \"next_day\", waits for the next day)",
            }
            .to_owned(),
            match self.rules.defector {
                Defector::JoinsEnemy => "gurps: an ally who defects (row 14) takes his share of Troop Strength over to the enemy (defector = \"joins_enemy\", the default; \"leaves\" takes it off the field)",
                Defector::Leaves => "gurps: an ally who defects (row 14) takes his share of Troop Strength off the field; it does not join the enemy (defector = \"leaves\"; the default, \"joins_enemy\", takes it over to the enemy)",
            }
            .to_owned(),
            "gurps: the defender's ground is the last day's (a battle lasts its days whatever the margin); to hold after a significant victory each of its major units rolls the Morale the day began with plus its Catastrophe row's (not a PC's fall that day)".to_owned(),
            "gurps: hit location is not modelled (no location multipliers)".to_owned(),
        ];
        // Lines of several days only: a one-day battle never reaches them.
        if self.parsed.days > 1 {
            rules.extend([
                "gurps: a multi-day battle rolls each side's Catastrophe at the start of every day (the seed rolls one as the battle begins)".to_owned(),
                "gurps: Glory's Strategy carries to the next day only from a PC who still commands at the day's end (not down, dead or captured)".to_owned(),
                "gurps: over several days, a PC a catastrophe 17/18 struck on any day shows survival and glory = no_roll; otherwise survival is his worst result over the days and glory his last".to_owned(),
                "gurps: an army commander killed by catastrophe, or a PC commander down or dead, halves his side's base Strategy (rounded up) on every later day, and his side's Morale takes the commander-killing catastrophe row's modifier on those days".to_owned(),
                "gurps: a PC unit leader down or dead costs every unit of his side the Morale of the catastrophe row that kills a major unit's leader on every later day, once per such leader (not modelled: the extra \u{2212}3 to his own unit)".to_owned(),
                "gurps: multi-day victory = more days won, then larger total margin, else draw; the battle's result is the last day's".to_owned(),
                match self.rules.commander_gone {
                    CommanderGone::SuccessorStruck => "gurps: a catastrophe row striking the army commander after he is gone strikes whoever leads in his place: its Strategy and Morale apply again (the halving is not doubled) (commander_gone = \"successor_struck\", the default; \"row_spent\" makes it do nothing)",
                    CommanderGone::RowSpent => "gurps: a catastrophe row striking the army commander after he is gone does nothing, as if no catastrophe had come up (commander_gone = \"row_spent\"; the default, \"successor_struck\", strikes whoever leads in his place)",
                }
                .to_owned(),
            ]);
        }
        rules
    }

    /// A side whose PC general's own Luck overrules its `commander_luck`.
    fn check_notes(&self) -> Vec<String> {
        (0..2)
            .filter_map(|s| {
                let side = &self.parsed.sides[s].file;
                let h = pc_general(&self.parsed, s)?;
                (side.commander_luck != h.file.luck).then(|| {
                    format!(
                        "side \"{}\": commander_luck = {} is not used: its commander is the PC {}, whose own luck = {} goes to its Catastrophe roll",
                        side.name, side.commander_luck, h.file.name, h.file.luck
                    )
                })
            })
            .collect()
    }

    /// A readable account of the resolved battle for `warcrunch check`.
    fn describe(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "days: {}", self.parsed.days);
        if self.rules.defector != Defector::default() {
            let _ = writeln!(out, "defector: {}", as_written(&self.rules.defector));
        }
        if self.rules.commander_gone != CommanderGone::SuccessorStruck {
            let _ = writeln!(out, "commander_gone: {}", as_written(&self.rules.commander_gone));
        }
        if self.rules.leader_fall != LeaderFall::NextDay {
            let _ = writeln!(out, "leader_fall: {}", as_written(&self.rules.leader_fall));
        }
        let st = &self.rules.tables.strategy;
        for (s, side) in self.parsed.sides.iter().enumerate() {
            let r = &self.rules.sides[s];
            let enemy = &self.parsed.sides[1 - s];
            let _ = writeln!(
                out,
                "side {}{}: strategy {}, troop_strength {}, tech_level {}, troop_quality {} (Morale {}), armour {} ({} casualty rows toward less loss), major_units {}",
                side.file.name,
                if side.file.attacker {
                    " (attacker)"
                } else {
                    ""
                },
                r.strategy,
                side.file.troop_strength,
                r.tech_level,
                as_written(&side.file.troop_quality),
                r.morale,
                as_written(&side.file.armour),
                r.armour_rows,
                r.major_units
            );
            let tl_lead = side.tech_level - enemy.tech_level;
            let mut parts = Vec::new();
            if tl_lead > 0 {
                parts.push(format!(
                    "TL lead {tl_lead} -> {:+}",
                    tl_lead + st.tl_bonus_add
                ));
            }
            if side.file.class_superiority {
                parts.push(format!("class_superiority {:+}", st.class_superiority));
            }
            if side.file.gm_modifier != 0 {
                parts.push(format!("gm_modifier {:+}", side.file.gm_modifier));
            }
            if side.file.attacker && enemy.position_modifier != 0 {
                parts.push(format!(
                    "defender's position {} -> {:+}",
                    enemy.file.position.join(" + "),
                    enemy.position_modifier
                ));
            }
            let _ = writeln!(
                out,
                "  fixed Strategy modifiers: {} (total {:+})",
                if parts.is_empty() {
                    "none".to_owned()
                } else {
                    parts.join(", ")
                },
                r.fixed_modifier
            );
        }
        // The first day without a catastrophe: what the ratio adds.
        let troops = [
            self.rules.sides[0].troop_strength,
            self.rules.sides[1].troop_strength,
        ];
        let no_catastrophe = &self.rules.tables.catastrophe[0];
        let calm = strategy::skills(
            &self.rules,
            troops,
            [no_catastrophe; 2],
            [0, 0],
            [false, false],
        );
        let (large, small) = if troops[0] >= troops[1] {
            (0, 1)
        } else {
            (1, 0)
        };
        let tl_lead = self.rules.sides[large].tech_level - self.rules.sides[small].tech_level;
        let ratio = troops[large] / troops[small];
        let names = self.side_names();
        let _ = writeln!(
            out,
            "Troop-Strength ratio {ratio:.3}:1 -> {:+} to {} (strategy table: the bonus moves in steps at set ratios)",
            strategy::ratio_bonus(&self.rules.tables, ratio, tl_lead),
            names[large]
        );
        let _ = writeln!(
            out,
            "Strategy skill on a day without catastrophe: {} {}, {} {}",
            names[0], calm[0], names[1], calm[1]
        );
        for (h, r) in self.parsed.heroes.iter().zip(&self.rules.heroes) {
            let _ = writeln!(
                out,
                "hero {} ({}, {}): Combat skill {}, Risk {:+} -> Survival vs {} (before losing-side penalty), Glory vs {}; HP {}, HT {}, DR {}{} vs enemy TL {}",
                h.file.name,
                h.file.side,
                as_written(&r.role),
                r.combat_skill,
                r.risk,
                survival::skill(r, 0),
                glory::skill(r),
                r.hp,
                r.ht,
                r.dr,
                if r.toughness > 0 {
                    format!(
                        " (Toughness {} of it, and off every fixed loss)",
                        r.toughness
                    )
                } else {
                    String::new()
                },
                self.rules.sides[1 - r.side].tech_level
            );
        }
        out
    }

    fn metrics_of(&self, tally: &GurpsTally<u64>) -> Vec<Metric<u64>> {
        tally.metrics()
    }

    const IDENTITIES: &'static [Identity] = &[
        // HP are lost only to a wound, which leaves a PC wounded at least
        // (a Catastrophe 17/18 may put him down with none lost: his DR).
        Identity::Within(
            bins(Each("hero"), "state", These(&["unhurt"])),
            bins(Each("hero"), "hp_lost", These(&["0"])),
        ),
        // A PC who never rolls, or misses a day's rolls, has neither roll.
        Identity::Same(
            bins(Each("hero"), "survival", These(&["no_roll"])),
            bins(Each("hero"), "glory", These(&["no_roll"])),
        ),
        // A party has someone down or dead when it counts one or more,
        // and someone dead only when it has someone down or dead.
        Identity::Same(
            bins(Each("party"), "any_down_or_dead", These(&["yes"])),
            bins(Each("party"), "down_or_dead", AllBut(&["0"])),
        ),
        Identity::Within(
            bins(Each("party"), "any_dead", These(&["yes"])),
            bins(Each("party"), "any_down_or_dead", These(&["yes"])),
        ),
    ];

    const EXACT_ODDS: Option<&'static str> = Some("one-day GURPS");


    fn exact(&self) -> Result<Vec<Metric<f64>>> {
        exact::exact_metrics(self)
    }

    fn sharing_laws(variants: &[&Self]) -> Option<Vec<Self>> {
        if variants.len() < 2 {
            return None;
        }
        let mut built = battle::SharedLaws::default();
        Some(
            variants
                .iter()
                .map(|v| {
                    let mut copy = (*v).clone();
                    copy.laws.share(&copy.rules, &mut built);
                    copy
                })
                .collect(),
        )
    }

    fn scenario_layout() -> Layout {
        Layout::of::<scenario::ScenarioFile>("gurps", "GURPS mass-combat scenario")
    }

    fn table_layouts() -> Vec<Layout> {
        use self::tables::{
            CasualtyTable, CatastropheFile, DamageFile, GloryFile, MoraleTable, ResultsFile,
            StrategyTable, SurvivalFile,
        };
        vec![
            Layout::of::<CatastropheFile>("catastrophe", "GURPS table: catastrophe"),
            Layout::of::<StrategyTable>("strategy", "GURPS table: strategy"),
            Layout::of::<ResultsFile>("battle_results", "GURPS table: battle_results"),
            Layout::of::<CasualtyTable>("casualties", "GURPS table: casualties"),
            Layout::of::<SurvivalFile>("survival", "GURPS table: survival"),
            Layout::of::<DamageFile>("damage", "GURPS table: damage"),
            Layout::of::<GloryFile>("glory", "GURPS table: glory"),
            Layout::of::<MoraleTable>("morale", "GURPS table: morale"),
        ]
    }
}

impl System for Gurps {
    type Outcome = BattleOutcome;
    type Tally = GurpsTally<u64>;

    fn new_tally(&self) -> GurpsTally<u64> {
        GurpsTally::new(self)
    }

    #[inline]
    fn simulate(&self, rng: &mut BattleStream) -> BattleOutcome {
        self.laws.fight(&self.rules, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ambush(edit: impl Fn(String) -> String) -> Gurps {
        let path = "scenarios/gurps/ambush_at_the_ford.toml";
        let text = edit(std::fs::read_to_string(path).unwrap());
        Gurps::from_scenario(&text, path, &crate::tables::TableFiles::in_folder(std::path::Path::new(".")))
            .unwrap()
            .1
    }

    /// The ambush with the Raiders at TL 11 and Titus's `dr = 2` line
    /// replaced by `armour`.
    fn against_tl_11(armour: &str) -> Gurps {
        ambush(|t| {
            t.replacen(
                "troop_quality = \"seasoned\"",
                "troop_quality = \"seasoned\"\ntech_level = 11",
                1,
            )
            .replacen("dr = 2\n", armour, 1)
        })
    }

    /// A PC's resolved figures, by hand from the damage table's words: at
    /// the enemy's TL 3, a hit is 1d+2 (A, B) or 2d+2 (C, D) against his
    /// whole DR; at TL 11, (TL)d and (2TL)d against DR/2, rounded down,
    /// while a Catastrophe's wound always meets his own DR.
    #[test]
    fn a_pcs_hits_and_dr_follow_the_enemys_tech_level() {
        let low = ambush(|t| t);
        let titus = &low.rules.heroes[0];
        assert_eq!(titus.enemy_hit, [1, 2, 2, 2]);
        assert_eq!((titus.dr, titus.own_dr), (2, 2));
        let high = against_tl_11("dr = 5\n");
        let titus = &high.rules.heroes[0];
        assert_eq!(titus.enemy_hit, [11, 0, 22, 0]);
        assert_eq!(
            (titus.dr, titus.own_dr),
            (2, 5),
            "5 / 2 rounds down; his own stays 5"
        );
        // Combat skill: (Tactics 12 + weapon 15) / 2 = 13, +2 Combat Reflexes.
        assert_eq!(titus.combat_skill, 15);
    }

    /// Damage comes off "taking Toughness into account": at TL 11 armour
    /// 5 is halved to 2 (rounded down), and Toughness 2 counts whole on
    /// top, DR 4 (not (5 + 2) / 2 = 3); his own DR is 7.
    #[test]
    fn toughness_is_not_divided_by_the_enemys_tech_level() {
        let tough = against_tl_11("dr = 5\ntoughness = 2\n");
        let titus = &tough.rules.heroes[0];
        assert_eq!((titus.dr, titus.own_dr, titus.toughness), (4, 7, 2));
    }
}

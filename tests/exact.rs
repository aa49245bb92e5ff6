//! Monte Carlo against exact engagement odds.

use std::path::Path;

use warcrunch::engine::{self, Chunk, RunSettings, System, Tally};
use warcrunch::scenario;
use warcrunch::stats::{Metric, wilson, z_for_confidence};
use warcrunch::systems::BattleSystem;
use warcrunch::systems::war_cards::WarCards;

use crate::util::{ONE_EXCHANGE, scenario as bundled};

fn war_cards(path: &Path) -> WarCards {
    let battle = scenario::load(path).unwrap().battle;
    match battle.downcast::<WarCards>() {
        Some(system) => system.clone(),
        None => panic!("{} is not a war-cards scenario", battle.system()),
    }
}

fn from_text(text: &str) -> WarCards {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, text).unwrap();
    war_cards(&path)
}

fn simulate(w: &WarCards, trials: u64, seed: u64) -> Vec<Metric<u64>> {
    let out = engine::run(
        w,
        RunSettings {
            threads: 2,
            ..RunSettings::new(seed, trials)
        },
    )
    .unwrap();
    out.tally.metrics()
}

/// Every value of every metric: the exact probability inside the
/// simulation's Wilson interval, the intervals family-wise (Bonferroni: a
/// false alarm on any value 1 time in 1,000), and exact probabilities
/// summing to 1.
fn assert_agreement(w: &WarCards, trials: u64, seed: u64) {
    let exact = w.exact().unwrap();
    let simulated = simulate(w, trials, seed);
    let values: usize = exact.iter().map(|m| m.weights.len()).sum();
    let z = z_for_confidence(1.0 - 0.001 / values as f64);
    assert_eq!(exact.len(), simulated.len());
    let mut checked = 0;
    for (ex, mc) in exact.iter().zip(&simulated) {
        assert_eq!((&ex.subject, &ex.name), (&mc.subject, &mc.name));
        let sum: f64 = ex.weights.iter().sum();
        assert!(
            (sum - 1.0).abs() < 1e-12,
            "{}/{} sums to {sum}",
            ex.subject,
            ex.name
        );
        assert_eq!(mc.total(), trials);
        for (bin, (&p, &count)) in ex.weights.iter().zip(&mc.weights).enumerate() {
            let (lo, hi) = wilson(count, trials, z);
            assert!(
                lo <= p && p <= hi,
                "{}/{} = {}: exact {p}, simulated {count}/{trials} ({lo}..{hi})",
                ex.subject,
                ex.name,
                ex.label(bin)
            );
            checked += 1;
        }
    }
    assert!(checked > 20);
}

#[test]
fn knights_vs_pikes_agrees_with_exact() {
    assert_agreement(&war_cards(&bundled("knights_vs_pikes.toml")), 1_000_000, 7);
}

#[test]
fn shooters_with_volleys_agree_with_exact() {
    assert_agreement(
        &war_cards(&bundled("longbows_vs_men_at_arms.toml")),
        1_000_000,
        11,
    );
}

#[test]
fn rally_agrees_with_exact() {
    assert_agreement(&war_cards(&bundled("guard_vs_levy.toml")), 1_000_000, 5);
}

#[test]
fn two_shooters_defender_first_rows_and_a_short_cap_agree_with_exact() {
    let dir = tempfile::tempdir().unwrap();
    let deck = warcrunch::tables::built_in_text("cards").replace(
        "row_order = \"attacker_defender\"",
        "row_order = \"defender_attacker\"",
    );
    std::fs::write(dir.path().join("deck.toml"), deck).unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(
        &path,
        r#"
system = "war_cards"
name = "Skirmishers trade shots"
[attacker]
name = "Slingers"
sign = "banner"
melee = 0
missile = 2
defence = 1
hits = 1
[defender]
name = "Javelins"
sign = "sword"
melee = 1
missile = 1
defence = 0
hits = 2
modifier = 1
[engagement]
missile_volleys = 2
max_exchanges = 3
rally_chance = 0.5
[tables]
cards = "deck.toml"
"#,
    )
    .unwrap();
    assert_agreement(&war_cards(&path), 1_000_000, 99);
}

#[test]
fn one_exchange_matches_a_hand_enumeration_of_the_81_card_pairs() {
    // One melee exchange, units that die at the first damage: every outcome
    // follows from the pair of cards drawn, so enumerate the 81 pairs.
    let w = from_text(ONE_EXCHANGE);
    let deck = &w.deck;
    // A on B: row sword_shield (0), column 2 − 1 = +1 (4).
    // B on A: row shield_sword (5), column 1 − 1 = 0 (3).
    let (mut a_wins, mut b_wins, mut none) = (0u32, 0u32, 0u32);
    for a in &deck.cards {
        for b in &deck.cards {
            let ra = a[0][4].symbol();
            let rb = b[5][3].symbol();
            // With hits 0, H, R and D all remove the target; F removes the
            // striker unless it is removed anyway. A side is out if struck
            // or if it drew F.
            let b_out = matches!(ra, "H" | "R" | "D") || rb == "F";
            let a_out = matches!(rb, "H" | "R" | "D") || ra == "F";
            match (a_out, b_out) {
                (false, true) => a_wins += 1,
                (true, false) => b_wins += 1,
                _ => none += 1,
            }
        }
    }
    let exact = w.exact().unwrap();
    let winner = exact.iter().find(|m| m.name == "winner").unwrap();
    let expect = [a_wins, b_wins, none].map(|n| n as f64 / 81.0);
    for (got, want) in winner.weights.iter().zip(expect) {
        assert!(
            (got - want).abs() < 1e-12,
            "{:?} vs {expect:?}",
            winner.weights
        );
    }
}

#[test]
fn deck_draw_has_no_exact_answer_and_says_why() {
    let w = war_cards(&bundled("cavalry_clash_deck.toml"));
    let err = w.exact().unwrap_err().to_string();
    assert!(err.contains("draw = \"die\""), "{err}");
}

#[test]
fn deck_draw_deals_each_card_once_per_pass() {
    // With the deck, the attacker's first two draws and the defender's are
    // three different cards: a deck of one card type per result shows it.
    // Simplest observable: a deck where card 1 is all D and the others all
    // "-": at most one side can be destroyed in the first exchange.
    let miss_row = "\"- - - - - - -\"";
    let d_row = "\"D D D D D D D\"";
    let rows = [
        "sword_shield",
        "sword_banner",
        "sword_sword",
        "shield_shield",
        "shield_banner",
        "shield_sword",
        "banner_shield",
        "banner_banner",
        "banner_sword",
    ];
    let card = |row: &str| {
        let mut s = String::from("[[cards]]\n");
        for r in rows {
            s.push_str(&format!("{r} = {row}\n"));
        }
        s
    };
    let mut deck = String::from("kind = \"cards\"\nrow_order = \"attacker_defender\"\n");
    deck.push_str(&card(d_row));
    deck.push_str(&card(miss_row));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("deck.toml"), deck).unwrap();
    let path = dir.path().join("s.toml");
    let scenario_text = |draw: &str| {
        format!(
            r#"
system = "war_cards"
name = "Two-card deck"
[attacker]
name = "A"
sign = "sword"
melee = 0
defence = 0
hits = 3
[defender]
name = "B"
sign = "sword"
melee = 0
defence = 0
hits = 3
[engagement]
max_exchanges = 1
draw = "{draw}"
[tables]
cards = "deck.toml"
"#
        )
    };
    std::fs::write(&path, scenario_text("deck")).unwrap();
    let metrics = simulate(&war_cards(&path), 100_000, 1);
    let end = metrics.iter().find(|m| m.name == "end").unwrap();
    // Both destroyed needs the D card twice: impossible from one deck pass.
    assert_eq!(
        end.weights[3], 0,
        "both_out with a two-card deck: {:?}",
        end.weights
    );
    // Exactly one side draws the D card in every exchange.
    assert_eq!(end.weights[0], 100_000);
    // With a die, both can draw it: P(both out) = 1/4.
    std::fs::write(&path, scenario_text("die")).unwrap();
    let exact = war_cards(&path).exact().unwrap();
    let end = exact.iter().find(|m| m.name == "end").unwrap();
    assert!((end.weights[3] - 0.25).abs() < 1e-12);
}

#[test]
fn the_plain_path_without_the_table_also_agrees_with_exact() {
    for (name, seed) in [
        ("knights_vs_pikes.toml", 8),
        ("longbows_vs_men_at_arms.toml", 9),
        ("guard_vs_levy.toml", 10),
    ] {
        let mut w = war_cards(&bundled(name));
        assert!(w.table.is_some(), "{name} is fought by its table");
        w.table = None;
        assert_agreement(&w, 1_000_000, seed);
    }
}

/// Two simulations of the same engagement, by its table and by the plain
/// path, on different streams: every value of every metric within the
/// family-wise bound of a two-sample test (a false alarm 1 time in 1,000).
fn assert_table_matches_plain(mut w: WarCards, trials: u64) {
    assert!(w.table.is_some(), "{} is fought by its table", w.describe());
    let fast = simulate(&w, trials, 21);
    w.table = None;
    let plain = simulate(&w, trials, 22);
    let values: usize = fast.iter().map(|m| m.weights.len()).sum();
    let bound = z_for_confidence(1.0 - 0.001 / values as f64);
    for (f, p) in fast.iter().zip(&plain) {
        assert_eq!((&f.subject, &f.name), (&p.subject, &p.name));
        for (bin, (&a, &b)) in f.weights.iter().zip(&p.weights).enumerate() {
            let pooled = (a + b) as f64 / (2 * trials) as f64;
            let sd = (pooled * (1.0 - pooled) * 2.0 / trials as f64).sqrt();
            let z = if sd == 0.0 {
                0.0
            } else {
                (a as f64 - b as f64).abs() / trials as f64 / sd
            };
            assert!(
                z <= bound,
                "{}/{} = {}: table {a}, plain {b} of {trials} ({z:.2} sd > {bound:.2})",
                f.subject,
                f.name,
                f.label(bin)
            );
        }
    }
}

#[test]
fn the_deck_drawn_by_the_table_is_the_plain_deck() {
    assert_table_matches_plain(war_cards(&bundled("cavalry_clash_deck.toml")), 1_000_000);
}

#[test]
fn volleys_rally_and_the_deck_together_by_the_table_are_the_plain_engagement() {
    let text = std::fs::read_to_string(bundled("longbows_vs_men_at_arms.toml")).unwrap();
    let text = text.replace("draw = \"die\"", "draw = \"deck\"\nrally_chance = 0.4");
    let text = text.replace(
        "melee = 3\ndefence = 2",
        "melee = 3\nmissile = 1\ndefence = 2",
    );
    assert!(text.contains("rally_chance") && text.contains("missile = 1"));
    assert_table_matches_plain(from_text(&text), 1_000_000);
}

/// A chunk counted by how each engagement ended (the engine's loop for
/// the war cards) is the chunk counted outcome by outcome, count for count:
/// every bundled engagement, one cut off after two exchanges, and one with
/// volleys, rallies and the deck together.
#[test]
fn counting_a_chunk_by_its_endings_is_counting_each_outcome() {
    let mut engagements: Vec<(String, WarCards)> = [
        "knights_vs_pikes.toml",
        "longbows_vs_men_at_arms.toml",
        "cavalry_clash_deck.toml",
        "guard_vs_levy.toml",
    ]
    .iter()
    .map(|name| (name.to_string(), war_cards(&bundled(name))))
    .collect();
    let text = std::fs::read_to_string(bundled("guard_vs_levy.toml")).unwrap();
    let cut = text.replace("max_exchanges = 30", "max_exchanges = 2");
    assert!(cut.contains("max_exchanges = 2\n"));
    engagements.push(("guard vs levy, two exchanges".into(), from_text(&cut)));
    let text = std::fs::read_to_string(bundled("longbows_vs_men_at_arms.toml")).unwrap();
    let mixed = text.replace("draw = \"die\"", "draw = \"deck\"\nrally_chance = 0.4");
    assert!(mixed.contains("rally_chance"));
    engagements.push(("longbows, deck and rally".into(), from_text(&mixed)));
    for (name, w) in engagements {
        assert!(w.table.is_some(), "{name} is fought by its table");
        let chunk = Chunk {
            seed: 7,
            first: 3_000,
            len: 40_000,
        };
        let mut by_ending = w.new_tally();
        w.fight_into(chunk.clone(), &mut by_ending);
        let mut by_outcome = w.new_tally();
        for mut window in chunk.windows() {
            by_outcome.record(&w.simulate(&mut window));
        }
        assert!(by_outcome.metrics().iter().all(|m| m.total() == 40_000));
        assert_eq!(by_ending, by_outcome, "{name}");
    }
}

/// The one-exchange battle's P(A wins), by hand from the 81 card pairs of
/// `deck` (`[card][row][column]` symbols): A strikes on row sword_shield
/// (0) column +1 (4), B on row shield_sword (5) column 0 (3).
fn one_exchange_attacker_wins(deck: &[Vec<Vec<String>>]) -> f64 {
    let mut wins = 0;
    for a in deck {
        for b in deck {
            let (ra, rb) = (a[0][4].as_str(), b[5][3].as_str());
            let b_out = matches!(ra, "H" | "R" | "D") || rb == "F";
            let a_out = matches!(rb, "H" | "R" | "D") || ra == "F";
            wins += u32::from(b_out && !a_out);
        }
    }
    f64::from(wins) / 81.0
}

/// `sensitivity --cells --exact` on war cards: every cell move's exact
/// difference equals the hand enumeration of the 81 card pairs with that
/// one cell changed, from a deck read without the tool.
#[test]
fn each_deck_cell_move_matches_a_hand_enumeration() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("one.toml");
    std::fs::write(&scenario, ONE_EXCHANGE).unwrap();
    let out = dir.path().join("cells");
    crate::util::warcrunch()
        .args(["sensitivity", "--quiet", "--cells", "--exact"])
        .args(["--target", "battle/winner=attacker", "--out"])
        .arg(&out)
        .arg(&scenario)
        .assert()
        .success();
    let deck = crate::util::independent_deck();
    let base = one_exchange_attacker_wins(&deck);
    let rows = ["sword_shield", "shield_sword"];
    let columns = ["<=-3", "-2", "-1", "0", "+1", "+2", ">=+3"];
    let csv = crate::util::read(&out.join("sensitivity.csv"));
    let mut checked = 0;
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (card, row) = f[2].split_once('.').unwrap();
        let card: usize = card.strip_prefix("card").unwrap().parse().unwrap();
        let row_index = [0, 5][rows.iter().position(|r| *r == row).unwrap()];
        let column = columns.iter().position(|c| *c == f[3]).unwrap();
        assert_eq!(deck[card - 1][row_index][column], f[4], "{line}");
        let mut moved = deck.clone();
        moved[card - 1][row_index][column] = f[5].to_owned();
        let expected = one_exchange_attacker_wins(&moved) - base;
        let difference: f64 = f[10].parse().unwrap();
        assert!(
            (difference - expected).abs() < 1e-12,
            "{line}: by hand {expected}"
        );
        assert_eq!(f[13], "exact");
        checked += 1;
    }
    // Each card's two cells, moved to each neighbour in the order - F H R D.
    let order = ["-", "F", "H", "R", "D"];
    let moves: usize = deck
        .iter()
        .flat_map(|card| [&card[0][4], &card[5][3]])
        .map(
            |symbol| match order.iter().position(|o| o == symbol).unwrap() {
                0 | 4 => 1,
                _ => 2,
            },
        )
        .sum();
    assert_eq!(
        checked, moves,
        "every cell the exchange reads, moved each way it can"
    );
}

/// A generator that counts the 64-bit numbers drawn from it.
#[derive(Clone)]
struct Counting {
    inner: rand_xoshiro::Xoshiro256PlusPlus,
    drawn: u64,
}

impl rand::TryRng for Counting {
    type Error = std::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        self.drawn += 1;
        Ok(rand::Rng::next_u32(&mut self.inner))
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.drawn += 1;
        Ok(rand::Rng::next_u64(&mut self.inner))
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Self::Error> {
        self.drawn += dest.len().div_ceil(8) as u64;
        rand::Rng::fill_bytes(&mut self.inner, dest);
        Ok(())
    }
}

#[test]
fn a_bundled_engagement_draws_at_most_two_numbers_a_battle() {
    use rand::SeedableRng;
    // The plain path draws one number a card (about 3 a battle on the
    // longbows, the deck and the rally); the table draws the cards of
    // several exchanges, volleys and deck draws from one number.
    for name in [
        "knights_vs_pikes.toml",
        "longbows_vs_men_at_arms.toml",
        "cavalry_clash_deck.toml",
        "guard_vs_levy.toml",
    ] {
        let w = war_cards(&bundled(name));
        let mut rng = Counting {
            inner: rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3),
            drawn: 0,
        };
        let battles = 100_000;
        for _ in 0..battles {
            w.fight(&mut rng);
        }
        let per_battle = rng.drawn as f64 / battles as f64;
        assert!(
            (1.0..=2.0).contains(&per_battle),
            "{name}: {per_battle:.3} numbers a battle"
        );
    }
}

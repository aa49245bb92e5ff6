//! Property tests: tallies merge in any grouping and order to the same
//! counts, the shards of a run add up to the whole run, every metric's
//! probabilities sum to one, and no scenario or table text makes a parser
//! panic. `PROPTEST_CASES` raises the case count for a long fuzzing run.

use proptest::prelude::*;
use warcrunch::engine::stream::BattleStream;
use warcrunch::engine::{self, CHUNK_SIZE, RunSettings, Shard, System, Tally};
use warcrunch::scenario;
use warcrunch::systems::war_cards::WarCards;

use crate::util::garble;

fn knights() -> WarCards {
    let path = crate::util::scenario("knights_vs_pikes.toml");
    let battle = scenario::load(&path).unwrap().battle;
    match battle.downcast::<WarCards>() {
        Some(system) => system.clone(),
        None => panic!("{} is not war cards", battle.system()),
    }
}

fn tally_of(system: &WarCards, seed: u64, n: u64) -> <WarCards as System>::Tally {
    let mut t = system.new_tally();
    for battle in 0..n {
        t.record(&system.simulate(&mut BattleStream::battle(seed, battle)));
    }
    t
}

const VALID: &str = r#"system = "war_cards"
name = "Fuzz"
trials = 1000
[attacker]
name = "A"
sign = "sword"
melee = 2
defence = 1
hits = 2
[defender]
name = "B"
sign = "shield"
melee = 1
defence = 2
hits = 3
[engagement]
max_exchanges = 20
draw = "die"
"#;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn merging_is_associative_and_order_independent(
        seeds in prop::array::uniform3(any::<u64>()),
        sizes in prop::array::uniform3(0u64..200),
    ) {
        let system = knights();
        let parts: Vec<_> = seeds.iter().zip(sizes).map(|(&s, n)| tally_of(&system, s, n)).collect();
        let mut left = parts[0].clone();
        left.merge(parts[1].clone());
        left.merge(parts[2].clone());
        let mut right = parts[1].clone();
        let mut inner = parts[2].clone();
        inner.merge(parts[0].clone());
        right.merge(inner);
        prop_assert_eq!(left, right);
    }

    #[test]
    fn the_union_of_shards_equals_the_whole_run(
        seed in any::<u64>(),
        chunks in 1u64..12,
        tail in 0u64..CHUNK_SIZE,
        count in 1u64..9,
    ) {
        let system = knights();
        let trials = (chunks - 1) * CHUNK_SIZE + tail.max(1);
        let settings = RunSettings { threads: 1, ..RunSettings::new(seed, trials) };
        let whole = engine::run(&system, settings).unwrap().tally;
        let mut union = system.new_tally();
        for index in (0..count).rev() {
            let shard = Shard { index, count };
            if !shard.chunks(trials.div_ceil(CHUNK_SIZE)).is_empty() {
                union.merge(engine::run(&system, RunSettings { shard, ..settings }).unwrap().tally);
            }
        }
        prop_assert_eq!(union.metrics(), whole.metrics());
    }

    #[test]
    fn probabilities_of_every_metric_sum_to_one(seed in any::<u64>(), n in 1u64..300) {
        let system = knights();
        for m in tally_of(&system, seed, n).metrics() {
            let total = m.total();
            prop_assert_eq!(total, n);
            let sum: f64 = m.weights.iter().map(|&c| c as f64 / total as f64).sum();
            prop_assert!((sum - 1.0).abs() < 1e-12, "{}/{}: {}", m.subject, m.name, sum);
        }
    }
}

proptest! {
    // Scenario text with lines dropped, duplicated or garbled, keys renamed
    // and values replaced by anything: the parser answers Ok or Err, never panics.
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_scenario_text_makes_the_parser_panic(
        edits in prop::collection::vec((0usize..20, 0u8..4, ".{0,12}"), 0..6),
        system in prop::sample::select(
            warcrunch::systems::SYSTEMS.iter().copied().chain(["x"]).collect::<Vec<_>>()
        ),
    ) {
        let text = garble(&VALID.replace("war_cards", system), edits);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fuzz.toml");
        let _ = scenario::load_text(&path, &text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn no_deck_text_makes_the_table_parser_panic(
        edits in prop::collection::vec((0usize..120, 0u8..3, ".{0,16}"), 0..6),
    ) {
        let mut lines: Vec<String> = warcrunch::tables::built_in_text("cards").lines().map(str::to_owned).collect();
        for (at, kind, text) in edits {
            let i = at % lines.len().max(1);
            match kind {
                0 => { lines.remove(i); }
                1 => lines[i] = text,
                _ => lines.insert(i, text),
            }
            if lines.is_empty() {
                lines.push(String::new());
            }
        }
        let _ = warcrunch::systems::war_cards::deck::Deck::parse(&lines.join("\n"), "fuzz.toml");
    }
}

proptest! {
    // Every built-in table file, mutated the same way as the deck and
    // checked as its system's starter battle reads it: loading answers Ok
    // or Err, never panics.
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn no_table_text_makes_the_loader_panic(
        which in 0usize..1000,
        edits in prop::collection::vec((0usize..200, 0u8..3, ".{0,16}"), 0..6),
    ) {
        let all = warcrunch::systems::built_ins();
        let table = all[which % all.len()];
        let mut lines: Vec<String> = table.text.lines().map(str::to_owned).collect();
        for (at, kind, new) in edits {
            let i = at % lines.len().max(1);
            match kind {
                0 => { lines.remove(i); }
                1 => lines[i] = new,
                _ => lines.insert(i, new),
            }
            if lines.is_empty() {
                lines.push(String::new());
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.toml");
        std::fs::write(&file, lines.join("\n")).unwrap();
        let _ = warcrunch::scenario::bundled::check_table(table.name, &file.display().to_string());
    }
}

//! Each row names the tables holding stand-in values that its metric rests
//! on (`stand_in_tables`): a system may list fewer tables than its battle
//! reads ([`warcrunch::systems::BattleSystem::metric_tables`]), and a move
//! of any cell of a table it leaves out leaves the metric the same in
//! every battle.

use warcrunch::analysis::runner::{PairedAsk, Plan, metric_layout, simulate_paired};
use warcrunch::engine::Shard;
use warcrunch::engine::paired::Event;
use warcrunch::questions::sensitivity::table_cells;
use warcrunch::scenario::{self, Edit, Scenario};

use crate::util::{bundled_scenarios, repo, warcrunch};

/// Battles each move is fought over, beside the base.
const BATTLES: u64 = 4_000;

/// Every one-step move of every cell of the tables of `base` that hold a
/// stand-in value and that some metric does not rest on: each moved
/// battle with its table.
fn moves_of_unlisted_tables(path: &std::path::Path, base: &Scenario) -> Vec<(String, Scenario)> {
    let text = scenario::read_text(path).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let rests_on = base.battle.rests_on();
    let mut moved = Vec::new();
    for table in base.battle.tables() {
        let name = table.name.as_str();
        let left_out = rests_on.iter().any(|r| !r.tables.iter().any(|t| t == name));
        if table.stand_ins.is_empty() || !base.battle.reads_table(name) || !left_out {
            continue;
        }
        let schema = warcrunch::scenario::schema::find(name).unwrap().schema();
        let read = warcrunch::tables::as_read(
            &doc,
            &warcrunch::tables::TableFiles::beside(path),
            &[],
            name,
        )
        .unwrap();
        let words = warcrunch::questions::sensitivity::Words {
            at: warcrunch::scenario::schema::word_places(&schema),
            by_key: Vec::new(),
        };
        for knob in table_cells(name, &read, &words) {
            for to in knob.moves() {
                let keys = knob.path.clone();
                let edit = Edit {
                    option: format!("{} = {to}", knob.name()),
                    apply: Box::new(move |doc| {
                        warcrunch::questions::sweep::apply(doc, &keys, to.clone())
                    }),
                };
                if let Ok(mut s) = scenario::load_edited(path, &text, &[edit]) {
                    (s.seed, s.trials) = (base.seed, base.trials);
                    moved.push((name.to_owned(), s));
                }
            }
        }
    }
    moved
}

/// For every bundled scenario: each metric is the same in every battle
/// after any move of a cell of a table holding stand-ins that its record
/// leaves out; and some metric of some battle leaves a table out (or the
/// test would check nothing).
#[test]
fn a_metric_rests_only_on_the_tables_it_names() {
    let plan = Plan {
        threads: 0,
        progress: false,
        shard: Shard::WHOLE,
        precision: None,
    };
    let mut checked = 0u64;
    for path in bundled_scenarios() {
        let mut base = scenario::load(&path).unwrap();
        (base.seed, base.trials) = (3, BATTLES);
        let moved = moves_of_unlisted_tables(&path, &base);
        if moved.is_empty() {
            continue;
        }
        // One event per value of each metric of the base; each variant's
        // event is the same value in its own layout (none if it has none).
        let layout = metric_layout(&base);
        let keys: Vec<(usize, String)> = (layout.iter().enumerate())
            .flat_map(|(metric, m)| (0..m.weights.len()).map(move |bin| (metric, m.label(bin))))
            .collect();
        let mut all: Vec<&Scenario> = vec![&base];
        all.extend(moved.iter().map(|(_, s)| s));
        let events: Vec<Vec<Event>> = all
            .iter()
            .map(|s| {
                let own = metric_layout(s);
                (keys.iter())
                    .map(|(metric, label)| {
                        let m = &layout[*metric];
                        let at = (own.iter())
                            .position(|o| o.subject == m.subject && o.name == m.name)
                            .unwrap();
                        let bins = (0..own[at].weights.len())
                            .filter(|&b| own[at].label(b) == *label)
                            .collect();
                        Event { metric: at, bins }
                    })
                    .collect()
            })
            .collect();
        let done = simulate_paired(&all, PairedAsk::events(events), &plan, None).unwrap();
        let rests_on = base.battle.rests_on();
        for (v, (table, _)) in moved.iter().enumerate().map(|(i, m)| (i + 1, m)) {
            for (metric, m) in layout.iter().enumerate() {
                let listed = rests_on
                    .iter()
                    .find(|r| r.subject == m.subject && r.metric == m.name)
                    .unwrap_or_else(|| {
                        panic!("{}: no record of {}/{}", path.display(), m.subject, m.name)
                    });
                if listed.tables.contains(table) {
                    continue;
                }
                let same: u64 = (keys.iter().enumerate())
                    .filter(|(_, (m, _))| *m == metric)
                    .map(|(e, _)| done.both[v][e])
                    .sum();
                assert_eq!(
                    same,
                    BATTLES,
                    "{}: a move in table {table} changed {}/{} in {} battles, which rests on {:?} only",
                    path.display(),
                    m.subject,
                    m.name,
                    BATTLES - same,
                    listed.tables
                );
                checked += 1;
            }
        }
    }
    println!("{checked} (move, metric) pairs the same in every battle");
    assert!(
        checked > 1_000,
        "only {checked} (move, metric) pairs checked"
    );
}

/// The ambush's CSV rows name each metric's stand-in tables: the first
/// Catastrophe roll rests on none, a PC's Glory on the Catastrophe and
/// Glory tables; the report's verdict marks every line that rests on one.
#[test]
fn the_ambush_rows_name_their_stand_in_tables() {
    let dir = tempfile::tempdir().unwrap();
    warcrunch()
        .args(["run", "scenarios/gurps/ambush_at_the_ford.toml"])
        .args(["--trials", "2000", "--quiet", "--out"])
        .arg(dir.path())
        .current_dir(repo())
        .assert()
        .success();
    let text = std::fs::read_to_string(dir.path().join("distributions.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let names: Vec<&str> = header.iter().collect();
    assert_eq!(
        names[names.len() - 2..],
        ["stand_in_tables", "uses_stand_ins"],
        "the stand-in columns come last"
    );
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let mut seen = std::collections::BTreeMap::new();
    for row in reader.records() {
        let row = row.unwrap();
        let key = format!("{}/{}", &row[at("subject")], &row[at("metric")]);
        let tables = row[at("stand_in_tables")].to_owned();
        assert_eq!(
            &row[at("uses_stand_ins")],
            if tables.is_empty() { "false" } else { "true" }
        );
        seen.insert(key, tables);
    }
    assert_eq!(seen["side:Megalos/catastrophe"], "");
    assert_eq!(seen["hero:Titus/glory"], "catastrophe; glory");
    assert_eq!(
        seen["side:Megalos/casualties_pct"],
        "catastrophe; casualties; morale"
    );
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run.json")).unwrap())
            .unwrap();
    assert!(
        run["rests_on"].as_array().is_some_and(|r| !r.is_empty()),
        "run.json records what each metric rests on"
    );
}

/// A sensitivity and a solve whose target rests on stand-in values mark
/// their answer, their chart's title and their page with †, and say what
/// it means; a target that rests on none carries no mark.
#[test]
fn questions_mark_a_target_that_rests_on_stand_ins() {
    let dir = tempfile::tempdir().unwrap();
    let ask = |args: &[&str], out: &str| -> String {
        let output = warcrunch()
            .args(args)
            .arg("--out")
            .arg(dir.path().join(out))
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let title = |out: &str, chart: &str| {
        let svg = std::fs::read_to_string(dir.path().join(out).join(chart)).unwrap();
        svg.split("<title>")
            .nth(1)
            .unwrap()
            .split("</title>")
            .next()
            .unwrap()
            .to_owned()
    };
    let ambush = "scenarios/gurps/ambush_at_the_ford.toml";
    let said = ask(
        &["sensitivity", ambush, "--target", "hero:Titus/state=dead"]
            .iter()
            .chain(&["--trials", "2000", "--seed", "3"])
            .copied()
            .collect::<Vec<_>>(),
        "sens",
    );
    assert!(said.contains("% † as written"), "{said}");
    assert!(
        said.contains("† rests on the catastrophe and damage tables, which hold stand-in values"),
        "{said}"
    );
    assert!(title("sens", "tornado.svg").ends_with(" †"));
    let page = std::fs::read_to_string(dir.path().join("sens/report.html")).unwrap();
    assert!(page.contains("† rests on"));
    assert!(page.contains("<h2>What moves P(Titus: state after the battle = dead) † most"));
    let said = ask(
        &[
            "solve",
            ambush,
            "--vary",
            "sides.Raiders.troop_strength=100..2000",
        ]
        .iter()
        .chain(&["--target", "side:Megalos/victory=won", "--equals", "0.5"])
        .chain(&["--max-trials", "20000"])
        .copied()
        .collect::<Vec<_>>(),
        "solve",
    );
    assert!(
        said.contains("† rests on the catastrophe table, which holds stand-in values"),
        "{said}"
    );
    assert!(title("solve", "solve.svg").ends_with(" †"));
    // The first day's Catastrophe roll is 3d6 as the seed has it.
    let said = ask(
        &[
            "sensitivity",
            ambush,
            "--target",
            "side:Megalos/catastrophe:mean",
        ]
        .iter()
        .chain(&["--trials", "2000"])
        .copied()
        .collect::<Vec<_>>(),
        "plain",
    );
    assert!(!said.contains('†'), "{said}");
    assert!(!title("plain", "tornado.svg").contains('†'));
}

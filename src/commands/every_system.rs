//! Every registered system run through every command a user has, on its
//! starter, in-process: `new`, `check`, `run` (simulated and exact),
//! `compare`, `sensitivity --cells`, `check --table` on each of its
//! tables, and the page's first questions (a sweep, a solve, a
//! sensitivity). The list comes from the registry, so in tests it holds
//! the dice duel, the system compiled only to keep this promise: a system
//! added in its folder needs no change here or anywhere else.

use std::collections::BTreeMap;
use std::path::Path;

use clap::Parser;

use crate::systems::{Battle, BattleSystem, SYSTEMS, Visit, built_ins};
use crate::tables::TableFiles;

/// Runs `warcrunch ARGS` in-process.
fn warcrunch(args: &[&str]) -> anyhow::Result<()> {
    let all = std::iter::once("warcrunch").chain(args.iter().copied());
    let cli = crate::cli::Cli::try_parse_from(all).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    super::dispatch(cli)
}

/// Like [`warcrunch`], failing the test on an error.
fn ok(args: &[&str]) {
    warcrunch(args).unwrap_or_else(|e| panic!("{args:?}: {e:#}"));
}

/// The rows of a CSV file, by column name.
fn rows(file: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .map(str::to_owned)
                .zip(r.iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

/// Battles a test run fights: enough for every bin's count to mean
/// something, few enough for every system's every command.
const TRIALS: &str = "4000";

#[test]
fn every_system_runs_through_every_command() {
    // In tests every folder of `src/systems/` is a registered system, the
    // one compiled only in tests too.
    let folders = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/systems"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(SYSTEMS.len(), folders);
    for &system in SYSTEMS {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| dir.path().join(name).display().to_string();
        let few = ["--trials", TRIALS, "--seed", "3", "--quiet"];
        // `new` writes the starter, which `check` accepts.
        let file = at("starter.toml");
        ok(&["new", system, "--out", &file]);
        let text = std::fs::read_to_string(&file).unwrap();
        let starter = crate::systems::registry::starter(system).expect("a starter");
        assert!(
            text.ends_with(starter),
            "{system}: the starter, after a schema line"
        );
        ok(&["check", &file]);
        // `run`: every metric counts every battle once.
        ok(&[&["run", &file, "--out", &at("run")][..], &few].concat());
        let mut counted: BTreeMap<(String, String), u64> = BTreeMap::new();
        for r in rows(&dir.path().join("run/distributions.csv")) {
            let count: u64 = r["count"].parse().unwrap();
            *counted
                .entry((r["subject"].clone(), r["metric"].clone()))
                .or_default() += count;
        }
        assert!(!counted.is_empty(), "{system}");
        for (metric, n) in &counted {
            assert_eq!(n.to_string(), TRIALS, "{system}: {metric:?}");
        }
        // `run --exact` where the system's exact method applies, and its
        // reason where it does not.
        let (_, battle) = Battle::parse(system, &text, &file, &TableFiles::in_folder(dir.path()))
            .unwrap()
            .unwrap();
        let exact = warcrunch(&["run", &file, "--exact", "--quiet", "--out", &at("exact")]);
        // A battle with exact odds is of a system that says it has some
        // (`--help` and the page list them).
        struct Declared;
        impl Visit<'_> for Declared {
            type Output = Option<&'static str>;
            fn visit<S: BattleSystem>(self, _: &S) -> Option<&'static str> {
                S::EXACT_ODDS
            }
        }
        assert!(
            battle.exact().is_err() || battle.visit(Declared).is_some(),
            "{system} has exact odds but declares none in EXACT_ODDS"
        );
        match battle.exact() {
            Ok(_) => exact.unwrap_or_else(|e| panic!("{system}: --exact: {e:#}")),
            Err(why) => assert!(
                format!("{:#}", exact.unwrap_err()).contains(&why.to_string()),
                "{system}"
            ),
        }
        // `compare` of the battle with itself: every difference is none.
        let compare = ["compare", &file, &file, "--out", &at("cmp")];
        ok(&[&compare[..], &few].concat());
        let tests = rows(&dir.path().join("cmp/comparison.csv"));
        assert!(!tests.is_empty(), "{system}");
        assert!(
            tests.iter().all(|r| r["significant"] == "false"),
            "{system}"
        );
        // `check --table` of each of its tables as shipped.
        for table in built_ins().into_iter().filter(|t| t.system == system) {
            let path = at(&format!("{}.toml", table.name));
            std::fs::write(&path, table.text).unwrap();
            ok(&["check", "--table", &format!("{}={path}", table.name)]);
        }
        // The page's first questions, as the API serves them.
        let doc: serde_json::Value = toml::from_str(&text).unwrap();
        let asked = crate::systems::registry::example_questions(&doc).expect("questions");
        if let Some(set) = asked["sweep"]["set"][0].as_str() {
            ok(&[
                &["sweep", &file, "--set", set, "--out", &at("sweep")][..],
                &few,
            ]
            .concat());
            assert!(!rows(&dir.path().join("sweep/comparison.csv")).is_empty());
        }
        let solve = &asked["solve"];
        if let (Some(vary), Some(target)) = (solve["vary"].as_str(), solve["target"].as_str()) {
            let (goal, p) = solve["goal"].as_object().unwrap().iter().next().unwrap();
            let goal = format!("--{}", goal.replace('_', "-"));
            let p = p.as_f64().unwrap().to_string();
            let args = [
                "solve", &file, "--vary", vary, "--target", target, &goal, &p,
            ];
            let out = ["--max-trials", TRIALS, "--quiet", "--out", &at("solve")];
            ok(&[&args[..], &out].concat());
        }
        // Sensitivity of every knob and then of every table cell.
        let target = asked["sensitivity"]["target"].as_str().expect("a target");
        let sensitivity = ["sensitivity", &file, "--target", target];
        ok(&[&sensitivity[..], &few, &["--out", &at("knobs")]].concat());
        ok(&[&sensitivity[..], &["--cells", "--out", &at("cells")], &few].concat());
        let moves = rows(&dir.path().join("cells/sensitivity.csv"));
        assert!(
            moves.iter().any(|r| !r["table"].is_empty()),
            "{system}: a table cell moved"
        );
    }
}

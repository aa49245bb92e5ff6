//! A request is resolved once: the scenario file and its table files are
//! read at the door, and every question answers from that value. With the
//! files gone after it was resolved, each question still answers (each of
//! its variants, moves and candidates reads the table as first read),
//! records the file's hash and its table option, and names the file in its
//! reproduce line.

use std::path::Path;

use warcrunch::analysis::Destination;
use warcrunch::analysis::runner::Plan;
use warcrunch::engine::Shard;
use warcrunch::report::{Formats, RunInfo};
use warcrunch::scenario::Resolved;

use crate::util::repo;

fn plan() -> Plan {
    Plan {
        threads: 1,
        progress: false,
        shard: Shard::WHOLE,
        precision: None,
    }
}

fn into(out: &Path) -> Destination {
    Destination {
        out: Some(out.to_path_buf()),
        force: true,
        formats: Formats::default(),
        ..Destination::default()
    }
}

/// The record a question wrote into `out`.
fn record(out: &Path) -> RunInfo {
    let text = std::fs::read_to_string(out.join("run.json")).expect("run.json");
    serde_json::from_str(&text).expect("a run record")
}

#[test]
fn every_question_answers_from_the_resolved_scenario_once_its_files_are_gone() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ambush.toml");
    std::fs::copy(
        repo().join("scenarios/gurps/ambush_at_the_ford.toml"),
        &file,
    )
    .unwrap();
    let table = dir.path().join("survival.toml");
    std::fs::copy(repo().join("scenarios/tables/gurps/survival.toml"), &table).unwrap();
    let option = format!("survival={}", table.display());
    let resolved = Resolved::read(&file, std::slice::from_ref(&option)).unwrap();
    let sha = resolved.scenario.sha256.clone();
    std::fs::remove_file(&file).unwrap();
    std::fs::remove_file(&table).unwrap();
    assert!(Resolved::read(&file, &[]).is_err(), "the file is gone");
    assert!(
        resolved
            .with_tables(&[])
            .unwrap()
            .files()
            .text("survival.toml")
            .is_ok(),
        "the table file, read once, is shared by the same scenario with other tables"
    );

    let out = dir.path().join("answers");
    let each = |name: &str| out.join(name);
    let run = warcrunch::analysis::run::run(
        &resolved,
        &serde_json::from_value(serde_json::json!({"trials": 2000, "seed": 3})).unwrap(),
        &plan(),
        &into(&each("run")),
    );
    let sweep = warcrunch::analysis::sweep::sweep(
        &resolved,
        &serde_json::from_value(serde_json::json!({
            "set": ["heroes.Titus.risk=-1..1"], "trials": 2000, "seed": 3
        }))
        .unwrap(),
        &plan(),
        &into(&each("sweep")),
    );
    let sensitivity = warcrunch::analysis::sensitivity::prepare(
        &resolved,
        &serde_json::from_value(serde_json::json!({
            "target": "side:Megalos/victory=won", "knobs": ["days"], "trials": 2000, "seed": 3
        }))
        .unwrap(),
    )
    .and_then(|prepared| {
        warcrunch::analysis::sensitivity::sensitivity(
            &resolved,
            prepared,
            &plan(),
            &into(&each("sensitivity")),
        )
    });
    let solve = warcrunch::analysis::solve::solve(
        &resolved,
        &serde_json::from_value(serde_json::json!({
            "vary": "sides.Raiders.troop_strength=200..3000",
            "target": "side:Megalos/victory=won",
            "goal": {"equals": 0.5},
            "exact": true
        }))
        .unwrap(),
        &plan(),
        &into(&each("solve")),
        &mut |_, _, _, _| Ok(()),
    );
    let tune = warcrunch::analysis::tune::tune(
        std::slice::from_ref(&resolved),
        &serde_json::from_value(serde_json::json!({
            "goals": ["side:Megalos/victory=won <= 60%"],
            "vary": ["sides.Raiders.troop_strength=400..1600:400"],
            "trials": 500, "verify_trials": 2000, "seed": 3
        }))
        .unwrap(),
        &plan(),
        &into(&each("tune")),
        &mut |_, _, _| Ok(()),
    );
    let written = resolved.with_tables(&[]).unwrap();
    let compare = warcrunch::analysis::compare::compare(
        &[written, resolved.clone()],
        &serde_json::from_value(serde_json::json!({"trials": 2000, "seed": 3})).unwrap(),
        &plan(),
        &into(&each("compare")),
    );
    let answered = [
        ("run", run.map(drop)),
        ("sweep", sweep.map(drop)),
        ("sensitivity", sensitivity.map(drop)),
        ("solve", solve.map(drop)),
        ("tune", tune.map(drop)),
        ("compare", compare.map(drop)),
    ];
    for (name, answer) in answered {
        if let Err(e) = answer {
            panic!("{name}: {e:#}");
        }
        let info = record(&each(name));
        let recorded = std::iter::once(info.scenario_sha256.clone())
            .chain(info.scenarios.iter().map(|s| Some(s.sha256.clone())))
            .flatten()
            .collect::<Vec<_>>();
        assert!(
            !recorded.is_empty() && recorded.iter().all(|s| *s == sha),
            "{name}: {recorded:?}"
        );
        assert!(
            info.command.contains("ambush.toml"),
            "{name}: {}",
            info.command
        );
        assert!(info.command.contains(&option), "{name}: {}", info.command);
    }
}

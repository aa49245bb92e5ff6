//! Every integer of every table file has the range the rules allow, in the
//! JSON Schema and the loader alike, and the values at and beyond its ends
//! (and ±2^31, ±2^63) are each refused with the key and the range, or load
//! and run: no wrap, no panic, no hang, no huge allocation.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;
use warcrunch::engine::Shard;
use warcrunch::runner::{Plan, simulate};
use warcrunch::schema::{self, Kind};
use warcrunch::tables::built_ins;

use crate::util::{read, repo};

/// An integer of a document: its path (`rows.0.reputation`) and the range
/// its schema gives.
struct Field {
    path: Vec<String>,
    min: i64,
    max: i64,
}

/// The schema node a `$ref` names, followed.
fn resolved<'a>(node: &'a Value, root: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(r) => resolved(root.pointer(&r[1..]).expect("refs resolve"), root),
        None => match ["anyOf", "allOf"]
            .iter()
            .find_map(|k| node.get(*k).and_then(Value::as_array))
        {
            Some(options) => options
                .iter()
                .map(|o| resolved(o, root))
                .find(|o| o.get("type").is_some_and(|t| t != "null"))
                .unwrap_or(node),
            None => node,
        },
    }
}

/// Every integer of `value` (each element of a list of integers, the first
/// section of a list of sections), with the range its schema declares;
/// `missing` collects the integers whose schema declares none.
fn integers(
    value: &toml::Value,
    node: &Value,
    root: &Value,
    path: &mut Vec<String>,
    found: &mut Vec<Field>,
    missing: &mut Vec<String>,
) {
    let node = resolved(node, root);
    match value {
        toml::Value::Integer(_) => {
            let bound = |k: &str| node.get(k).and_then(Value::as_i64);
            match (bound("minimum"), bound("maximum")) {
                (Some(min), Some(max)) => found.push(Field {
                    path: path.clone(),
                    min,
                    max,
                }),
                _ => missing.push(path.join(".")),
            }
        }
        toml::Value::Array(items) => {
            let item = &node["items"];
            for (i, v) in items.iter().enumerate() {
                if v.is_table() && i > 0 {
                    break;
                }
                path.push(i.to_string());
                integers(v, item, root, path, found, missing);
                path.pop();
            }
        }
        toml::Value::Table(t) => {
            for (k, v) in t {
                let child = node
                    .get("properties")
                    .and_then(|p| p.get(k))
                    .or_else(|| node.get("additionalProperties"))
                    .unwrap_or(&Value::Null);
                path.push(k.clone());
                integers(v, child, root, path, found, missing);
                path.pop();
            }
        }
        _ => {}
    }
}

/// `doc` with the integer at `path` set to `value`.
fn with(doc: &toml::Table, path: &[String], value: i64) -> toml::Table {
    let mut copy = toml::Value::Table(doc.clone());
    let mut at = &mut copy;
    for step in path {
        at = match at {
            toml::Value::Table(t) => t.get_mut(step).unwrap(),
            toml::Value::Array(a) => &mut a[step.parse::<usize>().unwrap()],
            _ => unreachable!("paths lead through tables and lists"),
        };
    }
    *at = toml::Value::Integer(value);
    match copy {
        toml::Value::Table(t) => t,
        _ => unreachable!(),
    }
}

/// Loads the scenario with the table file and runs a few hundred battles
/// on a thread of its own; `Err` with the loader's message, or a panic or
/// a hang named.
fn load_and_run(scenario: PathBuf, text: String) -> Result<(), String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| {
            let mut s =
                warcrunch::scenario::load_text(&scenario, &text).map_err(|e| format!("{e:#}"))?;
            s.trials = 500;
            let plan = Plan {
                threads: 1,
                progress: false,
                shard: Shard::WHOLE,
                precision: None,
            };
            let run = simulate(&s, &plan).map_err(|e| format!("run: {e:#}"))?;
            for m in &run.metrics {
                let total: u64 = m.weights.iter().sum();
                assert!(
                    total == 500 || total == 0,
                    "{} {}: {total} of 500 battles",
                    m.subject,
                    m.name
                );
            }
            Ok(())
        });
        let _ = tx.send(outcome);
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(Ok(result)) => result,
        Ok(Err(_)) => Err("PANIC".to_owned()),
        Err(_) => Err("HANG: no answer within 60 s".to_owned()),
    }
}

#[test]
fn every_table_integer_at_and_beyond_its_range_is_refused_by_name_or_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    let (mut refused, mut ran) = (0, 0);
    for table in built_ins() {
        let entry = schema::find(table.name).unwrap();
        assert_eq!(entry.kind, Kind::Table);
        let root = entry.schema();
        let doc: toml::Table = toml::from_str(table.text).unwrap();
        let (mut fields, mut missing) = (Vec::new(), Vec::new());
        integers(
            &toml::Value::Table(doc.clone()),
            &root,
            &root,
            &mut Vec::new(),
            &mut fields,
            &mut missing,
        );
        for key in missing {
            problems.push(format!("table {}: `{key}` has no range", table.name));
        }
        let scenario = std::fs::read_dir(repo().join("scenarios").join(table.system))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .min()
            .unwrap();
        let table_path = dir.path().join(format!("{}.toml", table.name));
        let mut scenario_doc: toml::Table = toml::from_str(&read(&scenario)).unwrap();
        warcrunch::scenario::override_tables(
            &mut scenario_doc,
            &[(table.name.to_owned(), table_path.display().to_string())],
        )
        .unwrap();
        let scenario_text = toml::to_string(&scenario_doc).unwrap();
        for field in fields {
            let key = field.path.join(".");
            let (min, max) = (field.min, field.max);
            let mut probes = vec![min, max, 1 << 31, -(1 << 31), i64::MAX, i64::MIN];
            probes.extend(min.checked_sub(1));
            probes.extend(max.checked_add(1));
            for v in probes {
                let text = toml::to_string(&with(&doc, &field.path, v)).unwrap();
                std::fs::write(&table_path, text).unwrap();
                let place = format!("table {} `{key}` = {v}", table.name);
                match load_and_run(scenario.clone(), scenario_text.clone()) {
                    Ok(()) if (min..=max).contains(&v) => ran += 1,
                    Ok(()) => problems.push(format!("{place}: outside {min} to {max}, but ran")),
                    Err(e) if e.starts_with("PANIC") || e.starts_with("HANG") => {
                        problems.push(format!("{place}: {e}"))
                    }
                    Err(e) if e.starts_with("run:") => problems.push(format!("{place}: {e}")),
                    Err(e) if (min..=max).contains(&v) => {
                        // A value in range may break a rule across keys
                        // (rows out of order); the message names the file.
                        assert!(
                            e.contains(&table_path.display().to_string()),
                            "{place}: {e}"
                        );
                        refused += 1;
                    }
                    Err(e) => {
                        let says =
                            format!("`{key}` = {v} is out of range; allowed: {min} to {max}");
                        if e.contains(&says) {
                            refused += 1;
                        } else {
                            problems.push(format!("{place}: refused without `{says}`: {e}"));
                        }
                    }
                }
            }
        }
    }
    eprintln!("{refused} refused, {ran} loaded and ran");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(ran > 100 && refused > 300, "{ran} ran, {refused} refused");
}

#[test]
fn every_scenario_integer_at_and_beyond_its_range_is_refused_by_name_or_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    let (mut refused, mut ran) = (0, 0);
    for system in ["war_cards", "gurps", "seventh_sea"] {
        let root = schema::find(system).unwrap().schema();
        let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("scenarios").join(system))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        for file in files {
            let doc: toml::Table = toml::from_str(&read(&file)).unwrap();
            let (mut fields, mut missing) = (Vec::new(), Vec::new());
            integers(
                &toml::Value::Table(doc.clone()),
                &root,
                &root,
                &mut Vec::new(),
                &mut fields,
                &mut missing,
            );
            // `seed` takes any 64-bit number; every other integer has a range.
            for key in missing.iter().filter(|k| *k != "seed") {
                problems.push(format!("{}: `{key}` has no range", file.display()));
            }
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let copy = dir.path().join(&name);
            for field in fields {
                let key = field.path.join(".");
                let last = field.path.last().unwrap().clone();
                let (min, max) = (field.min, field.max);
                let mut probes = vec![min, max, 1 << 31, -(1 << 31), i64::MAX, i64::MIN];
                probes.extend(min.checked_sub(1));
                probes.extend(max.checked_add(1));
                for v in probes {
                    let mut mutated = with(&doc, &field.path, v);
                    // A run of a few hundred battles is enough to show it runs.
                    if key != "trials" {
                        mutated.insert("trials".into(), toml::Value::Integer(500));
                    }
                    let text = toml::to_string(&mutated).unwrap();
                    let place = format!("{name} `{key}` = {v}");
                    match load_and_run(copy.clone(), text) {
                        Ok(()) if (min..=max).contains(&v) => ran += 1,
                        Ok(()) => {
                            problems.push(format!("{place}: outside {min} to {max}, but ran"))
                        }
                        Err(e)
                            if e.starts_with("PANIC")
                                || e.starts_with("HANG")
                                || e.starts_with("run:") =>
                        {
                            problems.push(format!("{place}: {e}"))
                        }
                        Err(_) if (min..=max).contains(&v) => refused += 1,
                        Err(e) => {
                            let says = format!("= {v} is out of range; allowed: {min} to {max}");
                            if e.contains(&says) && e.contains(&last) {
                                refused += 1;
                            } else {
                                problems.push(format!(
                                    "{place}: refused without `{last}` and `{says}`: {e}"
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    eprintln!("{refused} refused, {ran} loaded and ran");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(ran > 100 && refused > 300, "{ran} ran, {refused} refused");
}

//! Every integer of every table file has the range the rules allow, in the
//! JSON Schema and the loader alike, and the values at and beyond its ends
//! (and ±2^31, ±2^63) are each refused with the key and the range, or load
//! and run: no wrap, no panic, no hang, no huge allocation.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;
use warcrunch::analysis::runner::{Plan, simulate};
use warcrunch::engine::Shard;
use warcrunch::scenario::schema::{self, Kind};
use warcrunch::systems::built_ins;

use crate::schema::bundled_scenarios;
use crate::util::read;

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

/// The fields of a document (its schema `root`): each integer with the
/// range its schema declares, and the keys of those that declare none.
fn fields_of(doc: &toml::Table, root: &Value) -> (Vec<Field>, Vec<String>) {
    let (mut fields, mut missing) = (Vec::new(), Vec::new());
    let whole = toml::Value::Table(doc.clone());
    integers(
        &whole,
        root,
        root,
        &mut Vec::new(),
        &mut fields,
        &mut missing,
    );
    (fields, missing)
}

/// The values each field is tried at: its ends, one beyond each, ±2^31
/// and the ends of a 64-bit integer.
fn probes(field: &Field) -> Vec<i64> {
    let (min, max) = (field.min, field.max);
    let mut probes = vec![min, max, 1 << 31, -(1 << 31), i64::MAX, i64::MIN];
    probes.extend(min.checked_sub(1));
    probes.extend(max.checked_add(1));
    probes
}

/// What the probes found: counts, and every answer that was wrong.
#[derive(Default)]
struct Findings {
    refused: usize,
    ran: usize,
    problems: Vec<String>,
}

impl Findings {
    /// Judges one probe of `field` at `v`: a value inside the range loads
    /// and runs, or is refused by a rule across keys (the message names
    /// `file`); one outside is refused with the key (`says` the range).
    fn judge(
        &mut self,
        place: String,
        field: &Field,
        v: i64,
        file: &str,
        answer: Result<(), String>,
    ) {
        let inside = (field.min..=field.max).contains(&v);
        let last = field.path.last().expect("a field has a key");
        let says = format!(
            "= {v} is out of range; allowed: {} to {}",
            field.min, field.max
        );
        match answer {
            Err(e) if e.starts_with("PANIC") || e.starts_with("HANG") || e.starts_with("run:") => {
                self.problems.push(format!("{place}: {e}"))
            }
            Ok(()) if inside => self.ran += 1,
            Ok(()) => self
                .problems
                .push(format!("{place}: outside the range, but ran")),
            Err(e) if inside && e.contains(file) => self.refused += 1,
            Err(e) if !inside && e.contains(&says) && e.contains(last.as_str()) => {
                self.refused += 1
            }
            Err(e) => self.problems.push(format!(
                "{place}: refused without `{last}` and `{says}`: {e}"
            )),
        }
    }

    fn assert_sound(self) {
        let Findings {
            refused,
            ran,
            problems,
        } = self;
        eprintln!("{refused} refused, {ran} loaded and ran");
        assert!(
            problems.is_empty(),
            "{} problems:\n{}",
            problems.len(),
            problems.join("\n")
        );
        assert!(ran > 100 && refused > 300, "{ran} ran, {refused} refused");
    }
}

#[test]
fn every_table_integer_at_and_beyond_its_range_is_refused_by_name_or_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut found = Findings::default();
    for table in built_ins() {
        let entry = schema::find(table.name).unwrap();
        assert_eq!(entry.kind, Kind::Table);
        let doc: toml::Table = toml::from_str(table.text).unwrap();
        let (fields, missing) = fields_of(&doc, &entry.schema());
        for key in missing {
            found
                .problems
                .push(format!("table {}: `{key}` has no range", table.name));
        }
        let scenario = bundled_scenarios(table.system).remove(0);
        let table_path = dir.path().join(format!("{}.toml", table.name));
        let mut scenario_doc: toml::Table = toml::from_str(&read(&scenario)).unwrap();
        warcrunch::scenario::override_tables(
            &mut scenario_doc,
            &[(table.name.to_owned(), table_path.display().to_string())],
        )
        .unwrap();
        let scenario_text = toml::to_string(&scenario_doc).unwrap();
        for field in fields {
            for v in probes(&field) {
                let text = toml::to_string(&with(&doc, &field.path, v)).unwrap();
                std::fs::write(&table_path, text).unwrap();
                let place = format!("table {} `{}` = {v}", table.name, field.path.join("."));
                let answer = load_and_run(scenario.clone(), scenario_text.clone());
                found.judge(place, &field, v, &table_path.display().to_string(), answer);
            }
        }
    }
    found.assert_sound();
}

#[test]
fn every_scenario_integer_at_and_beyond_its_range_is_refused_by_name_or_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut found = Findings::default();
    for &system in warcrunch::systems::SYSTEMS {
        let root = schema::find(system).unwrap().schema();
        for file in bundled_scenarios(system) {
            let doc: toml::Table = toml::from_str(&read(&file)).unwrap();
            let (fields, missing) = fields_of(&doc, &root);
            // `seed` takes any 64-bit number; every other integer has a range.
            for key in missing.iter().filter(|k| *k != "seed") {
                found
                    .problems
                    .push(format!("{}: `{key}` has no range", file.display()));
            }
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let copy = dir.path().join(&name);
            for field in fields {
                for v in probes(&field) {
                    let mut mutated = with(&doc, &field.path, v);
                    // A few hundred battles show that it runs.
                    if field.path != ["trials"] {
                        mutated.insert("trials".into(), toml::Value::Integer(500));
                    }
                    let text = toml::to_string(&mutated).unwrap();
                    let place = format!("{name} `{}` = {v}", field.path.join("."));
                    let answer = load_and_run(copy.clone(), text);
                    found.judge(place, &field, v, &name, answer);
                }
            }
        }
    }
    found.assert_sound();
}

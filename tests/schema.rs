//! The JSON Schemas: current, named by every bundled file, passed by every
//! bundled file, and agreeing with the parsers on mutated files.

use std::path::{Path, PathBuf};

use serde_json::Value;
use warcrunch::scenario::schema::{self, Entry, Kind};
use warcrunch::systems::built_ins;

use crate::util::{read, repo, warcrunch};

use warcrunch::systems::SYSTEMS;

fn validator(entry: &Entry) -> jsonschema::Validator {
    jsonschema::validator_for(&entry.schema())
        .unwrap_or_else(|e| panic!("schema {} does not compile: {e}", entry.name))
}

fn as_json(doc: &toml::Table) -> Value {
    serde_json::to_value(doc).expect("TOML values are JSON values")
}

pub(crate) fn bundled_scenarios(system: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("scenarios").join(system))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{system} has bundled scenarios");
    files
}

#[test]
fn schema_files_and_the_key_reference_are_current() {
    for entry in schema::entries() {
        let path = repo().join("scenarios/schema").join(entry.file_name());
        assert!(
            read(&path) == entry.text(),
            "{} is stale: run `cargo run --release -- schema --out scenarios/schema --force`",
            path.display()
        );
    }
    assert!(
        read(&repo().join("docs/scenarios.md")) == schema::markdown(),
        "docs/scenarios.md is stale: run `cargo run --release -- schema --markdown > docs/scenarios.md`"
    );
    // The command prints the same text the files hold.
    let out = warcrunch().args(["schema", "gurps"]).assert().success();
    let printed = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(printed, schema::find("gurps").unwrap().text());
    warcrunch()
        .args(["schema", "gurp"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(format!(
            "allowed: {}",
            schema::entries()
                .iter()
                .map(|e| e.name)
                .collect::<Vec<_>>()
                .join(", ")
        )));
}

/// The path a bundled file's `#:schema` line names, resolved.
fn schema_line_target(file: &Path) -> PathBuf {
    let text = read(file);
    let first = text.lines().next().unwrap_or("");
    let named = first
        .strip_prefix("#:schema ")
        .unwrap_or_else(|| panic!("{} does not start with a #:schema line", file.display()));
    file.parent().unwrap().join(named)
}

#[test]
fn every_bundled_file_names_its_schema_and_passes_it() {
    let mut checked = 0;
    for &system in SYSTEMS {
        let entry = schema::find(system).unwrap();
        let validator = validator(&entry);
        for file in bundled_scenarios(system) {
            let named = schema_line_target(&file).canonicalize().unwrap();
            let expected = repo().join("scenarios/schema").join(entry.file_name());
            assert_eq!(
                named,
                expected.canonicalize().unwrap(),
                "{}",
                file.display()
            );
            let doc: toml::Table = toml::from_str(&read(&file)).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&as_json(&doc))
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}", file.display());
            checked += 1;
        }
    }
    for table in built_ins() {
        let entry = schema::find(table.name).unwrap();
        assert_eq!(entry.kind, Kind::Table);
        let file = repo().join("scenarios/tables").join(table.file);
        let named = schema_line_target(&file).canonicalize().unwrap();
        let expected = repo().join("scenarios/schema").join(entry.file_name());
        assert_eq!(
            named,
            expected.canonicalize().unwrap(),
            "{}",
            file.display()
        );
        let doc: toml::Table = toml::from_str(table.text).unwrap();
        let errors: Vec<String> = validator(&entry)
            .iter_errors(&as_json(&doc))
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", file.display());
        checked += 1;
    }
    let (scenarios, tables) = crate::util::bundled_counts();
    assert_eq!(checked, scenarios + tables);
}

/// A change to a file, described for the failure message.
struct Mutation {
    what: String,
    doc: toml::Table,
}

/// Values around every bound a scenario check uses.
const PROBES: [i64; 36] = [
    -1000,
    -21,
    -20,
    -16,
    -15,
    -7,
    -6,
    -1,
    0,
    1,
    2,
    3,
    6,
    7,
    9,
    10,
    11,
    15,
    16,
    17,
    20,
    21,
    29,
    30,
    31,
    40,
    41,
    50,
    51,
    100,
    101,
    1000,
    1001,
    10_000,
    10_001,
    1_000_000_001,
];

/// Every mutation of a document: at each section (the first element of
/// each list of sections), an unknown key, each key removed, each value of
/// the wrong type and, for integers, each probe value.
fn mutations(doc: &toml::Table) -> Vec<Mutation> {
    let mut out = Vec::new();
    visit(doc, &mut Vec::new(), &mut |path, table| {
        let at = |f: &dyn Fn(&mut toml::Table)| {
            let mut copy = doc.clone();
            f(section(&mut copy, path));
            copy
        };
        let place = path.join(".");
        out.push(Mutation {
            what: format!("{place}: unknown key added"),
            doc: at(&|t| {
                t.insert("unheard_of".into(), toml::Value::Integer(1));
            }),
        });
        for (key, value) in table {
            out.push(Mutation {
                what: format!("{place}.{key} removed"),
                doc: at(&|t| {
                    t.remove(key);
                }),
            });
            let wrong = match value {
                toml::Value::String(_) => Some(toml::Value::Integer(7)),
                toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_) => {
                    Some(toml::Value::String("seven".into()))
                }
                toml::Value::Table(_) => Some(toml::Value::Integer(7)),
                _ => None,
            };
            if let Some(wrong) = wrong {
                out.push(Mutation {
                    what: format!("{place}.{key} = {wrong}"),
                    doc: at(&|t| {
                        t.insert(key.clone(), wrong.clone());
                    }),
                });
            }
            if let toml::Value::Integer(_) = value {
                for probe in PROBES {
                    out.push(Mutation {
                        what: format!("{place}.{key} = {probe}"),
                        doc: at(&|t| {
                            t.insert(key.clone(), toml::Value::Integer(probe));
                        }),
                    });
                }
            }
        }
    });
    out
}

/// Calls `f` on every section of `table`: itself, its sub-sections, and the
/// first element of each list of sections, with the path that reaches it.
fn visit(table: &toml::Table, path: &mut Vec<String>, f: &mut dyn FnMut(&[String], &toml::Table)) {
    f(path, table);
    for (key, value) in table {
        let child = match value {
            toml::Value::Table(t) => Some((key.clone(), t)),
            toml::Value::Array(items) => match items.first() {
                Some(toml::Value::Table(t)) => Some((format!("{key}[0]"), t)),
                _ => None,
            },
            _ => None,
        };
        if let Some((step, t)) = child {
            path.push(step);
            visit(t, path, f);
            path.pop();
        }
    }
}

/// The section a path names, for editing.
fn section<'a>(table: &'a mut toml::Table, path: &[String]) -> &'a mut toml::Table {
    let Some((step, rest)) = path.split_first() else {
        return table;
    };
    let next = match step.strip_suffix("[0]") {
        Some(key) => match table.get_mut(key) {
            Some(toml::Value::Array(items)) => items.first_mut(),
            _ => None,
        },
        None => table.get_mut(step.as_str()),
    };
    match next {
        Some(toml::Value::Table(t)) => section(t, rest),
        _ => panic!("no section at {step}"),
    }
}

/// What a refusal by a rule across keys says: every system's
/// `CHECK_RULES` and the common rules, as the registry lists them.
fn rules_across_keys() -> Vec<&'static str> {
    let common = warcrunch::tables::validate::COMMON_RULES.iter();
    let systems = warcrunch::systems::registry::check_rules()
        .into_iter()
        .flat_map(|(_, _, rules)| rules.iter());
    common.chain(systems).map(|r| r.says).collect()
}

/// The text of every `.rs` file under `dir`, one after another.
fn code_under(dir: &std::path::Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            text += &code_under(&path);
        } else if path.extension().is_some_and(|e| e == "rs") {
            text += &read(&path);
        }
    }
    text
}

#[test]
fn every_rule_across_keys_says_what_its_systems_refusals_say() {
    // A rule's words are found in a message of its own system's code (or
    // of the common checks): a rule no refusal could match would let the
    // schema test above excuse nothing, or the wrong refusal.
    let common = read(&repo().join("src/tables/validate.rs"));
    for rule in warcrunch::tables::validate::COMMON_RULES {
        assert!(common.contains(rule.says), "{rule:?}");
    }
    for (name, _, rules) in warcrunch::systems::registry::check_rules() {
        let code = code_under(&repo().join("src/systems").join(name));
        assert!(!rules.is_empty(), "{name} lists its rules across keys");
        for rule in rules {
            assert!(code.contains(rule.says), "{name}: {rule:?}");
        }
    }
}

/// The verdicts of the parser and the schema on the mutated files.
#[derive(Default)]
struct Verdicts {
    checked: usize,
    refused_by_both: usize,
    disagreements: Vec<String>,
}

impl Verdicts {
    /// Records one mutated file: `parsed` is the parser's answer, `valid`
    /// the schema's. A schema-pass/parser-refusal is allowed only for the
    /// rules across keys; a parser-pass/schema-refusal never.
    fn judge(
        &mut self,
        place: String,
        parsed: &anyhow::Result<warcrunch::scenario::Scenario>,
        valid: bool,
    ) {
        self.checked += 1;
        match (parsed, valid) {
            (Ok(_), true) => {}
            (Err(_), false) => self.refused_by_both += 1,
            (Err(e), true)
                if rules_across_keys()
                    .iter()
                    .any(|rule| format!("{e:#}").contains(rule)) => {}
            (Err(e), true) => self.disagreements.push(format!(
                "{place}: the schema passes it, the parser refuses: {e:#}"
            )),
            (Ok(_), false) => self
                .disagreements
                .push(format!("{place}: the parser takes it, the schema refuses")),
        }
    }
}

#[test]
fn the_parsers_and_the_schemas_agree_on_mutated_files() {
    let mut verdicts = Verdicts::default();
    for &system in SYSTEMS {
        let entry = schema::find(system).unwrap();
        let validator = validator(&entry);
        for file in bundled_scenarios(system) {
            let doc: toml::Table = toml::from_str(&read(&file)).unwrap();
            for m in mutations(&doc) {
                let text = toml::to_string(&m.doc).unwrap();
                let parsed = warcrunch::scenario::load_text(&file, &text);
                let valid = validator.is_valid(&as_json(&m.doc));
                verdicts.judge(format!("{} {}", file.display(), m.what), &parsed, valid);
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    for table in built_ins() {
        let entry = schema::find(table.name).unwrap();
        let validator = validator(&entry);
        let scenario = bundled_scenarios(table.system).remove(0);
        let mut scenario_doc: toml::Table = toml::from_str(&read(&scenario)).unwrap();
        let table_path = dir.path().join(format!("{}.toml", table.name));
        warcrunch::scenario::override_tables(
            &mut scenario_doc,
            &[(table.name.to_owned(), table_path.display().to_string())],
        )
        .unwrap();
        let scenario_text = toml::to_string(&scenario_doc).unwrap();
        let doc: toml::Table = toml::from_str(table.text).unwrap();
        for m in mutations(&doc) {
            std::fs::write(&table_path, toml::to_string(&m.doc).unwrap()).unwrap();
            let parsed = warcrunch::scenario::load_text(&scenario, &scenario_text);
            let valid = validator.is_valid(&as_json(&m.doc));
            verdicts.judge(format!("table {} {}", table.name, m.what), &parsed, valid);
        }
    }
    let Verdicts {
        checked,
        refused_by_both,
        disagreements,
    } = verdicts;
    eprintln!(
        "{checked} mutated files, {refused_by_both} refused by both the parser and the schema, {} disagreements",
        disagreements.len()
    );
    assert!(refused_by_both > 1000, "the mutations reach the checks");
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

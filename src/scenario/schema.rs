//! JSON Schemas of scenario and table files, generated from the parsers'
//! own types (`schemars` reads the same serde attributes the parsers obey),
//! and the key reference `docs/scenarios.md` written from them.
//!
//! A schema checks keys, types, allowed words and numeric ranges. Rules
//! that tie keys together (side names, unique names, table rows covering a
//! range) are checked by the parsers only; `docs/scenarios.md` lists them.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use anyhow::{Result, bail};
use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::systems::BattleSystem;
use crate::systems::built_ins;
use crate::systems::contract::Layout;
use crate::systems::registry::{VisitType, each_system};
use crate::tables::validate::COMMON_RULES;

/// What a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A scenario file of one system.
    Scenario,
    /// A rule table file.
    Table,
}

/// One schema warcrunch can write.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// A system's name, or a table's kind.
    pub name: &'static str,
    /// Scenario or table.
    pub kind: Kind,
    /// The system it belongs to.
    pub system: &'static str,
    /// The schema's title.
    pub title: &'static str,
    schema: fn(schemars::SchemaGenerator) -> schemars::Schema,
}

impl Entry {
    /// The schema as JSON.
    pub fn schema(&self) -> Value {
        let generator = SchemaSettings::draft07().into_generator();
        let mut schema = serde_json::to_value((self.schema)(generator)).expect("schemas are JSON");
        tidy(&mut schema);
        if self.kind == Kind::Table
            && let Some(Value::Object(properties)) = schema.get_mut("properties")
        {
            properties.insert(crate::tables::orders::KEY.into(), orders_schema());
        }
        if self.kind == Kind::Scenario {
            bound_names(&mut schema);
        }
        schema["title"] = Value::from(self.title);
        schema
    }

    /// The schema as written to a file: pretty JSON ending in a newline.
    pub fn text(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.schema()).expect("JSON values print");
        text.push('\n');
        text
    }

    /// The file name of the schema: `NAME.schema.json`.
    pub fn file_name(&self) -> String {
        format!("{}.schema.json", self.name)
    }

    /// Where the bundled file(s) of this schema live under `scenarios/`:
    /// `gurps` for scenarios, `tables/gurps/catastrophe.toml` for a table.
    pub fn bundled_path(&self) -> String {
        match self.kind {
            Kind::Scenario => self.system.to_owned(),
            Kind::Table => {
                let file = built_ins()
                    .into_iter()
                    .find(|t| t.name == self.name)
                    .map(|t| t.file)
                    .expect("every table schema names a built-in table");
                format!("tables/{file}")
            }
        }
    }
}

/// Every `name` or `label` string of a scenario's schema bounded to
/// [`crate::scenario::MAX_NAME`] characters, as loading it checks.
fn bound_names(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = object.get_mut("properties") {
                for key in ["name", "label"] {
                    if let Some(Value::Object(field)) = properties.get_mut(key)
                        && field.get("type") == Some(&Value::from("string"))
                    {
                        field.insert("maxLength".into(), crate::scenario::MAX_NAME.into());
                    }
                }
            }
            object.values_mut().for_each(bound_names);
        }
        Value::Array(items) => items.iter_mut().for_each(bound_names),
        _ => {}
    }
}

/// The `orders` key every table file may carry ([`crate::tables::orders`]):
/// the parser reads it for the file, not the system's rows.
fn orders_schema() -> Value {
    serde_json::json!({
        "default": [],
        "description": "Orders a designer expects the cells to keep down a list, in the file's order: `warcrunch check` warns about a table out of one, and `tune` keeps every one (unless --allow-disorder).",
        "items": {
            "additionalProperties": false,
            "properties": {
                "cells": {
                    "description": "The cells, one `*` for each entry of a list: `rows.*.engaged.reputation`.",
                    "pattern": "^[^*]+\\.\\*\\.[^*]+$",
                    "maxLength": crate::tables::orders::MAX_CELLS_LEN,
                    "type": "string"
                },
                "never": {
                    "description": "Which way a value may not go from one entry to the next: `falls` (each at least the one before) or `rises` (each at most the one before).",
                    "enum": ["falls", "rises"],
                    "type": "string"
                }
            },
            "required": ["cells", "never"],
            "type": "object"
        },
        "type": "array"
    })
}

/// Every schema: each system's scenario layout, then every table.
pub fn entries() -> Vec<Entry> {
    #[derive(Default)]
    struct Collect {
        scenarios: Vec<Entry>,
        tables: Vec<Entry>,
    }
    impl VisitType for Collect {
        fn visit<S: BattleSystem>(&mut self) {
            let entry = |kind, layout: Layout| Entry {
                name: layout.name,
                kind,
                system: S::NAME,
                title: layout.title,
                schema: layout.schema,
            };
            self.scenarios
                .push(entry(Kind::Scenario, S::scenario_layout()));
            self.tables.extend(
                S::table_layouts()
                    .into_iter()
                    .map(|l| entry(Kind::Table, l)),
            );
        }
    }
    let mut all = Collect::default();
    each_system(&mut all);
    all.scenarios.extend(all.tables);
    all.scenarios
}

/// The schema called `name`, or an error listing the names.
pub fn find(name: &str) -> Result<Entry> {
    let all = entries();
    match all.iter().find(|e| e.name == name) {
        Some(entry) => Ok(*entry),
        None => {
            let names: Vec<&str> = all.iter().map(|e| e.name).collect();
            bail!(
                "schema: there is no schema `{name}`; allowed: {}",
                names.join(", ")
            )
        }
    }
}

/// The `#:schema` line of a file written outside the bundled ones (a new
/// scenario, an exported table), and the schema file to write for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// `#:schema PATH`, the path relative to the file's folder.
    pub line: String,
    /// Where to write the schema, when the bundled one is not at hand.
    pub write: Option<PathBuf>,
}

/// Where a file at `file` finds its schema: the bundled one when the
/// working folder is a warcrunch checkout (`scenarios/schema/`), else a
/// copy beside the file (one already there is kept unless `replace`).
pub fn place(entry: &Entry, file: &Path, replace: bool) -> Result<Placement> {
    let bundled = Path::new("scenarios/schema").join(entry.file_name());
    let (schema, write) = if bundled.is_file() {
        (bundled, None)
    } else {
        let beside = file.with_file_name(entry.file_name());
        let write = (replace || !beside.exists()).then(|| beside.clone());
        (beside, write)
    };
    let folder = match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    Ok(Placement {
        line: format!("#:schema {}", relative(folder, &schema)?),
        write,
    })
}

/// A text with its first line replaced when it is a `#:schema` line, or
/// the line put first otherwise.
pub fn with_schema_line(text: &str, line: &str) -> String {
    let rest = match text.split_once('\n') {
        Some((first, rest)) if first.starts_with("#:schema") => rest,
        _ => text,
    };
    format!("{line}\n{rest}")
}

/// `target` as a path relative to the folder `from`, with `/` separators.
fn relative(from: &Path, target: &Path) -> Result<String> {
    let from = std::path::absolute(from)?;
    let target = std::path::absolute(target)?;
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = target.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    Ok(parts.join("/"))
}

/// Removes `null` from types and alternatives, `"default": null`, and
/// `format` annotations, everywhere in a schema.
fn tidy(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(alternatives)) = map.get_mut(key) {
                    alternatives.retain(|a| a.get("type").is_none_or(|t| t != "null"));
                }
            }
            if map.get("default") == Some(&Value::Null) {
                map.remove("default");
            }
            map.remove("format");
            map.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// Every place a file's schema allows only certain words, as data: the
/// path pattern of a key as a document writes it (`None` for any key of a
/// map or any entry of a list, entries named by their `name`:
/// `sides.*.armour`) and its words in the schema's order (`none`, `light`,
/// … for a side's `armour`); for a list of words, the words an entry may
/// take. A key absent takes any word.
pub fn word_places(schema: &Value) -> Vec<(Vec<Option<String>>, Vec<String>)> {
    let mut found = Vec::new();
    words_below(
        schema,
        &resolve(schema, schema),
        &mut Vec::new(),
        &mut found,
    );
    found
}

/// How deep [`word_places`] follows a schema (none nests half as deep; it stops a
/// definition that contains itself).
const SCHEMA_DEPTH: usize = 16;

fn words_below(
    schema: &Value,
    node: &Value,
    path: &mut Vec<Option<String>>,
    found: &mut Vec<(Vec<Option<String>>, Vec<String>)>,
) {
    if path.len() > SCHEMA_DEPTH {
        return;
    }
    let listed = |list: &Value| -> Vec<String> {
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.get("const").or(Some(v)).and_then(Value::as_str))
            .map(str::to_owned)
            .collect()
    };
    let allowed = |node: &Value| match (node.get("oneOf"), node.get("enum")) {
        (Some(alternatives), _) => listed(alternatives),
        (None, Some(list)) => listed(list),
        _ => Vec::new(),
    };
    let items = node.get("items").map(|items| resolve(schema, items));
    let here = allowed(items.as_ref().unwrap_or(node));
    if !here.is_empty() {
        found.push((path.clone(), here));
    }
    let mut below = |key: Option<String>, next: &Value| {
        path.push(key);
        words_below(schema, &resolve(schema, next), path, found);
        path.pop();
    };
    match (node.get("properties"), items) {
        // An entry of a list, named by its `name`.
        (None, Some(entry)) => below(None, &entry),
        (properties, _) => {
            for (key, next) in properties.and_then(Value::as_object).into_iter().flatten() {
                below(Some(key.clone()), next);
            }
            if let Some(extra @ Value::Object(_)) = node.get("additionalProperties") {
                below(None, extra);
            }
        }
    }
}

/// A schema node with its `$ref` (and a lone `allOf` wrapping one) followed.
fn resolve(schema: &Value, node: &Value) -> Value {
    let mut node = node.clone();
    loop {
        let next = if let Some(Value::String(r)) = node.get("$ref") {
            let name = r.rsplit('/').next().unwrap_or("");
            schema.get("definitions").and_then(|d| d.get(name)).cloned()
        } else {
            match node.get("allOf") {
                Some(Value::Array(all)) if all.len() == 1 && node.get("properties").is_none() => {
                    Some(all[0].clone())
                }
                _ => None,
            }
        };
        match next {
            Some(n) => node = n,
            None => return node,
        }
    }
}

/// The key reference of every scenario and table file, as Markdown
/// (`docs/scenarios.md` is this text).
pub fn markdown() -> String {
    let mut out = String::from(MARKDOWN_HEAD);
    for kind in [Kind::Scenario, Kind::Table] {
        out.push_str(match kind {
            Kind::Scenario => "\n## Scenario files\n",
            Kind::Table => "\n## Table files\n",
        });
        for entry in entries().iter().filter(|e| e.kind == kind) {
            write_entry(&mut out, entry);
        }
    }
    let common = COMMON_RULES.iter().map(|r| r.refuses).collect::<Vec<_>>();
    let systems: Vec<String> = std::iter::once(format!("- {};", common.join(", ")))
        .chain(
            crate::systems::registry::check_rules()
                .into_iter()
                .map(|(_, title, rules)| {
                    let each: Vec<&str> = rules.iter().map(|r| r.refuses).collect();
                    format!("- {title}: {};", each.join("; "))
                }),
        )
        .collect();
    out.push_str(&MARKDOWN_TAIL.replace("{systems}", &systems.join("\n")));
    out
}

const MARKDOWN_HEAD: &str =
    "<!-- Generated by `warcrunch schema --markdown`; a test fails when it is stale. \
Edit the doc comments of the parser's types in src/, then run \
`cargo run --release -- schema --markdown > docs/scenarios.md`. -->

# Scenario and table keys

The quickest start is `warcrunch new SYSTEM` (a system's name, as below):
it writes a commented starter that passes `check` as written. The bundled
scenarios under `scenarios/` are commented examples of every system, and
`warcrunch tables --export DIR` writes the built-in tables for tuning.

Below is every key of every scenario and table file: its type, the values it
allows, its default and what it means. The same facts drive the JSON Schemas in
`scenarios/schema/` (`warcrunch schema NAME`), which editors with a TOML
language server (taplo, Even Better TOML) read from a file's first line:

```toml
#:schema ../schema/gurps.schema.json
```

A key without a default must be given. `warcrunch check FILE` checks
everything below and also the rules that tie keys together (listed at the
end), which a schema cannot express.
";

const MARKDOWN_TAIL: &str = "
## Table cells

A scenario's `[tables]` entry is a file (`survival = \"my_survival.toml\"`,
relative to the scenario), or the table with some cells set:

```toml
[tables.survival]
file = \"builtin\"                 # the default; or a file
set = { \"rows.D.column\" = \"C\" }  # cell path = value
```

A cell's path walks the table file as written: sections and keys by name,
and a list of rows (`[[rows]]`, `rows = [{ … }]`, `[[bands]]`) by a row's
`label` (or `name`) where its rows have one, else by position counted from
0 (the first `[[rows]]` of the file is `rows.0`); a list of numbers by
position from 0. Examples: `rows.D.column` (Survival: the row labelled `D`),
`rows.2.engaged.damage` (Battle Chart: the third row), `rows.0.margins.1`
(Casualties: the upper margin of the first row), `weights.charge`
(Opportunities), `cards.3.sword_shield` (the deck: a row's seven results
of the fourth card, e.g. `\"- F H H F H R\"`).

The same path after `tables.NAME.` is a setting for `sweep --set`,
`solve --vary` and `sensitivity --knobs`:
`--set tables.survival.rows.D.column=C,D`,
`--set tables.battle_chart.rows.2.engaged.reputation=1..3`. The table is
checked with the cell set as a file would be, and run.json records the
cells beside the table's source.

## Rules a schema cannot check

`warcrunch check` (and every command that loads a scenario) also refuses:

{systems}
- tables of every system: rows that must cover a range exactly once
  (catastrophe rolls 3 to 18, damage Tech Levels, casualty margins), a
  `stand_ins` entry that names nothing in the file (a key, a row by label
  or position, or a cell), dice text that is not `XkY`.
";

/// One schema's section: a table of keys per object, top level first, then
/// each nested section in the order its key appears.
fn write_entry(out: &mut String, entry: &Entry) {
    let schema = entry.schema();
    let _ = write!(
        out,
        "\n### {} (`{}`)\n\nSchema: `scenarios/schema/{}`; bundled: `scenarios/{}`.\n",
        entry.title,
        entry.name,
        entry.file_name(),
        entry.bundled_path()
    );
    if let Some(about) = schema.get("description").and_then(Value::as_str) {
        let _ = writeln!(out, "\n{about}");
    }
    let definitions = schema.get("definitions").cloned().unwrap_or(Value::Null);
    // (dotted path of the section, its schema); the top level has no path.
    let mut pending = vec![(String::new(), schema.clone())];
    while let Some((path, object)) = pending.pop() {
        let place = if path.is_empty() {
            "Top level".to_owned()
        } else {
            format!("`{path}`")
        };
        write_object(out, &place, &object, &definitions);
        let mut nested = Vec::new();
        for (key, property) in properties(&object) {
            if let Some(name) = reference(property)
                && is_section(&definitions[&name])
            {
                let parent = path.trim_matches(|c| c == '[' || c == ']');
                let dotted = if parent.is_empty() {
                    key.clone()
                } else {
                    format!("{parent}.{key}")
                };
                let header = if property.get("type").and_then(Value::as_str) == Some("array") {
                    format!("[[{dotted}]]")
                } else {
                    format!("[{dotted}]")
                };
                nested.push((header, definitions[&name].clone()));
            }
        }
        pending.extend(nested.into_iter().rev());
    }
}

/// The `properties` of an object schema.
fn properties(object: &Value) -> Vec<(&String, &Value)> {
    object
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.iter().collect())
        .unwrap_or_default()
}

/// The definition a property refers to: directly, as an array's items, or
/// through `allOf`/`anyOf` (how a described or optional reference is written).
fn reference(property: &Value) -> Option<String> {
    let target = property
        .get("items")
        .or_else(|| property.get("allOf").and_then(|a| a.get(0)))
        .or_else(|| property.get("anyOf").and_then(|a| a.get(0)))
        .unwrap_or(property);
    let name = target.get("$ref")?.as_str()?.rsplit('/').next()?.to_owned();
    Some(name)
}

/// Whether a definition is a section of keys (rather than a set of words).
fn is_section(definition: &Value) -> bool {
    definition.get("properties").is_some()
}

/// A Markdown table of one object's keys.
fn write_object(out: &mut String, place: &str, object: &Value, definitions: &Value) {
    let keys = properties(object);
    if keys.is_empty() {
        return;
    }
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let _ = write!(
        out,
        "\n{place}:\n\n| key | type | allowed | default | meaning |\n|---|---|---|---|---|\n"
    );
    for (key, property) in keys {
        let default = match property.get("default") {
            Some(Value::Object(_)) => "see below".to_owned(),
            Some(value) => format!("`{value}`"),
            None if required.contains(&key.as_str()) => "required".to_owned(),
            None => "none".to_owned(),
        };
        let meaning = property
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .replace('\n', " ")
            .replace('|', "\\|");
        let _ = writeln!(
            out,
            "| `{key}` | {} | {} | {default} | {meaning} |",
            type_of(property, definitions),
            allowed(property, definitions).replace('|', "\\|"),
        );
    }
}

/// A property's type in words: `integer`, `list of string`, `section`, `word`.
fn type_of(property: &Value, definitions: &Value) -> String {
    let is_list = property.get("type").and_then(Value::as_str) == Some("array");
    if let Some(name) = reference(property) {
        return match (is_section(&definitions[&name]), is_list) {
            (true, true) => "list of sections".to_owned(),
            (true, false) => "section".to_owned(),
            (false, true) => "list of words".to_owned(),
            (false, false) => "word".to_owned(),
        };
    }
    match property.get("type").and_then(Value::as_str) {
        Some("array") => match property.get("items") {
            Some(items) => format!("list of {}", type_of(items, definitions)),
            None => "list".to_owned(),
        },
        Some("object") => "section".to_owned(),
        Some(t) => t.to_owned(),
        // One of several shapes: `string or section`.
        None => match property.get("anyOf").and_then(Value::as_array) {
            Some(shapes) => shapes
                .iter()
                .map(|shape| type_of(shape, definitions))
                .collect::<Vec<_>>()
                .join(" or "),
            None => "value".to_owned(),
        },
    }
}

/// The values a property allows, in words.
fn allowed(property: &Value, definitions: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(value) = property.get("const") {
        parts.push(format!("exactly {value}"));
    }
    if let Some(name) = reference(property) {
        if is_section(&definitions[&name]) {
            parts.push("see below".to_owned());
        } else {
            parts.push(words(&definitions[&name]).join(", "));
        }
    }
    match (property.get("minimum"), property.get("maximum")) {
        (Some(low), Some(high)) => parts.push(format!("{low} to {high}")),
        (Some(low), None) => parts.push(format!("at least {low}")),
        (None, Some(high)) => parts.push(format!("at most {high}")),
        (None, None) => {}
    }
    match (property.get("minItems"), property.get("maxItems")) {
        (Some(low), Some(high)) if low == high => parts.push(format!("exactly {low} items")),
        (Some(low), Some(high)) => parts.push(format!("{low} to {high} items")),
        (None, Some(high)) => parts.push(format!("at most {high} items")),
        (Some(low), None) => parts.push(format!("at least {low} items")),
        (None, None) => {}
    }
    if let Some(pattern) = property.get("pattern").and_then(Value::as_str) {
        parts.push(format!("matches `{pattern}`"));
    }
    if let Some(keys) = property.get("properties").and_then(Value::as_object) {
        let names: Vec<String> = keys.keys().map(|k| format!("`{k}`")).collect();
        parts.push(format!("keys: {}", names.join(", ")));
    }
    if let Some(items) = property.get("items")
        && reference(property).is_none()
    {
        let inner = allowed(items, definitions);
        if inner != "any" {
            parts.push(format!("each: {inner}"));
        }
    }
    if parts.is_empty() {
        "any".to_owned()
    } else {
        parts.join("; ")
    }
}

/// The words an enum definition allows (`"none"`, `"light"`, …).
fn words(definition: &Value) -> Vec<String> {
    let quoted = |v: &Value| format!("`{v}`");
    if let Some(values) = definition.get("enum").and_then(Value::as_array) {
        return values.iter().map(quoted).collect();
    }
    definition
        .get("oneOf")
        .and_then(Value::as_array)
        .map(|variants| {
            variants
                .iter()
                .flat_map(|v| match (v.get("const"), v.get("enum")) {
                    (Some(c), _) => vec![quoted(c)],
                    (None, Some(Value::Array(e))) => e.iter().map(quoted).collect(),
                    _ => Vec::new(),
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_has_a_distinct_name_and_a_title() {
        let all = entries();
        for (i, entry) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|e| e.name != entry.name));
            assert_eq!(entry.schema()["title"], entry.title);
        }
        assert_eq!(all.len(), crate::systems::SYSTEMS.len() + built_ins().len());
    }

    #[test]
    fn nothing_in_a_schema_allows_null() {
        for entry in entries() {
            assert!(!entry.text().contains("\"null\""), "{}", entry.name);
        }
    }

    #[test]
    fn relative_paths_climb_then_descend() {
        let root = std::path::absolute("/work").unwrap();
        let up = relative(
            &root.join("scenarios/gurps"),
            &root.join("scenarios/schema/g.json"),
        );
        assert_eq!(up.unwrap(), "../schema/g.json");
        let here = relative(&root.join("a"), &root.join("a/g.json"));
        assert_eq!(here.unwrap(), "g.json");
    }

    #[test]
    fn a_schema_line_replaces_the_first_one_only_if_it_is_one() {
        assert_eq!(
            with_schema_line("#:schema a\nx = 1\n", "#:schema b"),
            "#:schema b\nx = 1\n"
        );
        assert_eq!(
            with_schema_line("# note\nx = 1\n", "#:schema b"),
            "#:schema b\n# note\nx = 1\n"
        );
    }

    #[test]
    fn unknown_name_lists_the_allowed_ones() {
        let error = find("gurp").unwrap_err().to_string();
        assert!(
            error.contains("`gurp`") && error.contains("gurps, seventh_sea"),
            "{error}"
        );
    }

    #[test]
    fn the_words_a_setting_may_take_come_from_its_schema() {
        let path = |p: &str| p.split('.').map(str::to_owned).collect::<Vec<_>>();
        let choices_at = |schema: &Value, at: &[String]| {
            crate::questions::sensitivity::Words {
                at: word_places(schema),
                by_key: Vec::new(),
            }
            .of(at)
        };
        let gurps = find("gurps").unwrap().schema();
        assert_eq!(
            choices_at(&gurps, &path("sides.Raiders.armour")),
            ["none", "light", "spearmen", "medium", "heavy"]
        );
        assert_eq!(
            choices_at(&gurps, &path("heroes.Titus.role")),
            ["soldier", "unit_commander", "army_commander"]
        );
        // Any word: a name, or a position the Strategy table names.
        assert!(choices_at(&gurps, &path("sides.Raiders.name")).is_empty());
        assert!(choices_at(&gurps, &path("sides.Raiders.position")).is_empty());
        assert!(choices_at(&gurps, &path("no.such.key")).is_empty());
        let sea = find("seventh_sea").unwrap().schema();
        assert_eq!(
            choices_at(&sea, &path("heroes.Isabeau.policy")),
            [
                "rear",
                "not_engaged",
                "engaged",
                "heavily_engaged",
                "adaptive"
            ]
        );
        // A table's words: a Catastrophe row's fate of the commander.
        let catastrophe = find("catastrophe").unwrap().schema();
        assert_eq!(
            choices_at(&catastrophe, &path("rows.17.commander")).len(),
            choices_at(&catastrophe, &path("rows.x.commander")).len()
        );
        assert!(!choices_at(&catastrophe, &path("rows.17.commander")).is_empty());
    }
}
